// A tiny PNG reader for tests: 8-bit RGB/RGBA/grey, non-interlaced (what rsvg-convert writes),
// with its own inflate (RFC 1951), so checking a rendered picture needs no image library.
#pragma once

#include <array>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace llmsize::test {

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<std::array<uint8_t, 4>> pixels;  // RGBA, row by row
};

namespace png_detail {

struct Bits {
  const std::vector<uint8_t>& in;
  size_t pos = 0;
  uint32_t buf = 0;
  int n = 0;
  uint32_t get(int k) {
    while (n < k) {
      if (pos >= in.size()) throw std::runtime_error("inflate: out of data");
      buf |= uint32_t{in[pos++]} << n;
      n += 8;
    }
    const uint32_t v = buf & ((1u << k) - 1);
    buf >>= k;
    n -= k;
    return v;
  }
};

// Canonical Huffman code from code lengths (RFC 1951 3.2.2), decoded bit by bit.
struct Huffman {
  std::vector<uint16_t> count, symbol;
  explicit Huffman(const std::vector<uint8_t>& lengths) : count(16, 0), symbol(lengths.size()) {
    for (uint8_t l : lengths) count[l]++;
    count[0] = 0;
    std::vector<uint16_t> offs(16, 0);
    for (size_t i = 1; i < 16; ++i) offs[i] = static_cast<uint16_t>(offs[i - 1] + count[i - 1]);
    for (size_t s = 0; s < lengths.size(); ++s)
      if (lengths[s]) symbol[offs[lengths[s]]++] = static_cast<uint16_t>(s);
  }
  int decode(Bits& b) const {
    int code = 0, first = 0, index = 0;
    for (size_t len = 1; len < 16; ++len) {
      code |= static_cast<int>(b.get(1));
      const int c = count[len];
      // code - first is in [0, c): the symbol index is index + that, never negative.
      if (code - c < first) return symbol[static_cast<size_t>(index + (code - first))];
      index += c;
      first += c;
      first <<= 1;
      code <<= 1;
    }
    throw std::runtime_error("inflate: bad code");
  }
};

inline std::vector<uint8_t> inflate(const std::vector<uint8_t>& z) {
  static const uint16_t kLenBase[] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const uint8_t kLenExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  static const uint16_t kDistBase[] = {
      1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
      193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
  static const uint8_t kDistExtra[] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
  if (z.size() < 2) throw std::runtime_error("zlib: too short");
  std::vector<uint8_t> data(z.begin() + 2, z.end());  // skip the zlib header
  Bits b{data};
  std::vector<uint8_t> out;
  for (bool last = false; !last;) {
    last = b.get(1);
    const uint32_t type = b.get(2);
    if (type == 0) {
      b.buf = 0;
      b.n = 0;
      if (b.pos + 4 > data.size()) throw std::runtime_error("inflate: bad stored block");
      const uint32_t len = data[b.pos] | (uint32_t{data[b.pos + 1]} << 8);
      b.pos += 4;
      if (b.pos + len > data.size()) throw std::runtime_error("inflate: bad stored block");
      out.insert(out.end(), data.begin() + static_cast<long>(b.pos),
                 data.begin() + static_cast<long>(b.pos + len));
      b.pos += len;
      continue;
    }
    if (type == 3) throw std::runtime_error("inflate: bad block type");
    std::vector<uint8_t> lit(288), dist(30);
    if (type == 1) {
      for (size_t i = 0; i < 288; ++i)
        lit[i] = static_cast<uint8_t>(i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8);
      for (auto& d : dist) d = 5;
    } else {
      const uint32_t hlit = b.get(5) + 257, hdist = b.get(5) + 1, hclen = b.get(4) + 4;
      static const uint8_t kOrder[] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                       11, 4,  12, 3, 13, 2, 14, 1, 15};
      std::vector<uint8_t> cl(19, 0);
      for (uint32_t i = 0; i < hclen; ++i) cl[kOrder[i]] = static_cast<uint8_t>(b.get(3));
      const Huffman clh(cl);
      std::vector<uint8_t> lens;
      while (lens.size() < hlit + hdist) {
        const int sym = clh.decode(b);
        if (sym < 16) {
          lens.push_back(static_cast<uint8_t>(sym));
        } else if (sym == 16) {
          if (lens.empty()) throw std::runtime_error("inflate: repeat with no length");
          const uint8_t prev = lens.back();
          for (uint32_t k = 3 + b.get(2); k; --k) lens.push_back(prev);
        } else {
          for (uint32_t k = (sym == 17 ? 3 + b.get(3) : 11 + b.get(7)); k; --k) lens.push_back(0);
        }
      }
      lit.assign(lens.begin(), lens.begin() + hlit);
      dist.assign(lens.begin() + hlit, lens.begin() + hlit + hdist);
    }
    const Huffman lh(lit), dh(dist);
    for (;;) {
      const int sym = lh.decode(b);
      if (sym < 256) {
        out.push_back(static_cast<uint8_t>(sym));
      } else if (sym == 256) {
        break;
      } else {
        const int li = sym - 257;
        if (li >= 29) throw std::runtime_error("inflate: bad length");
        const uint32_t len = kLenBase[li] + b.get(kLenExtra[li]);
        const int di = dh.decode(b);
        if (di >= 30) throw std::runtime_error("inflate: bad distance");
        const uint32_t d = kDistBase[di] + b.get(kDistExtra[di]);
        if (d > out.size()) throw std::runtime_error("inflate: distance too far");
        for (uint32_t k = 0; k < len; ++k) out.push_back(out[out.size() - d]);
      }
    }
  }
  return out;
}

inline uint32_t be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

}  // namespace png_detail

inline Image read_png(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)),
                               std::istreambuf_iterator<char>());
  static const uint8_t kSig[] = {137, 80, 78, 71, 13, 10, 26, 10};
  if (d.size() < 8 || !std::equal(kSig, kSig + 8, d.begin()))
    throw std::runtime_error(path + ": not a PNG");
  Image img;
  uint8_t depth = 0, color = 0, interlace = 0;
  std::vector<uint8_t> z;
  for (size_t p = 8; p + 8 <= d.size();) {
    const uint32_t len = png_detail::be32(&d[p]);
    const std::string type(d.begin() + static_cast<long>(p + 4),
                           d.begin() + static_cast<long>(p + 8));
    const uint8_t* body = &d[p + 8];
    if (p + 12 + len > d.size()) throw std::runtime_error(path + ": truncated chunk");
    if (type == "IHDR") {
      img.width = png_detail::be32(body);
      img.height = png_detail::be32(body + 4);
      depth = body[8];
      color = body[9];
      interlace = body[12];
    } else if (type == "IDAT") {
      z.insert(z.end(), body, body + len);
    } else if (type == "IEND") {
      break;
    }
    p += 12 + len;
  }
  if (depth != 8 || interlace != 0 || (color != 0 && color != 2 && color != 4 && color != 6))
    throw std::runtime_error(path + ": only 8-bit non-interlaced grey/RGB/RGBA is read here");
  const size_t bpp = color == 6 ? 4 : color == 2 ? 3 : color == 4 ? 2 : 1;
  const size_t stride = img.width * bpp;
  const std::vector<uint8_t> raw = png_detail::inflate(z);
  if (raw.size() < (stride + 1) * img.height) throw std::runtime_error(path + ": short image data");
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  img.pixels.reserve(size_t{img.width} * img.height);
  for (uint32_t y = 0; y < img.height; ++y) {
    const uint8_t* row = &raw[y * (stride + 1)];
    const uint8_t filter = row[0];
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= bpp ? cur[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
      int v = row[1 + x];
      switch (filter) {
        case 0:
          break;
        case 1:
          v += a;
          break;
        case 2:
          v += b;
          break;
        case 3:
          v += (a + b) / 2;
          break;
        case 4: {
          const int pp = a + b - c, pa = pp > a ? pp - a : a - pp, pb = pp > b ? pp - b : b - pp,
                    pc = pp > c ? pp - c : c - pp;
          v += (pa <= pb && pa <= pc) ? a : pb <= pc ? b : c;
          break;
        }
        default:
          throw std::runtime_error("png: bad filter");
      }
      cur[x] = static_cast<uint8_t>(v & 0xff);
    }
    for (uint32_t x = 0; x < img.width; ++x) {
      const uint8_t* px = &cur[x * bpp];
      std::array<uint8_t, 4> rgba{};
      if (bpp >= 3)
        rgba = {px[0], px[1], px[2], bpp == 4 ? px[3] : uint8_t{255}};
      else
        rgba = {px[0], px[0], px[0], bpp == 2 ? px[1] : uint8_t{255}};
      img.pixels.push_back(rgba);
    }
    prev.swap(cur);
  }
  return img;
}

}  // namespace llmsize::test
