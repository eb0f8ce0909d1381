#include "byte_reader.hpp"

#include <algorithm>
#include <cstring>

namespace llmsize::io {
namespace {

// Bytes fetched per refill: the first read is small (a safetensors length, a short GGUF header),
// later ones 64 KiB. Reading far past a header costs time on every file (the zero pages of a
// sparse file are copied too), and so does a large buffer: in a VM each page first touched is a
// costly fault, more than the extra pread calls of a small window.
constexpr size_t kFirstWindow = 4 << 10;
constexpr size_t kMaxWindow = 64 << 10;

}  // namespace

void fail_at(const std::string& where, const std::string& what, uint64_t at) {
  throw InputError(where + ": " + what + " (at byte " + std::to_string(at) + ")");
}

void MemorySource::read(uint64_t off, void* dst, size_t n) const {
  if (n) std::memcpy(dst, bytes_.data() + off, n);
}

Cursor::Cursor(const ByteSource& src, std::string where)
    : src_(src), where_(std::move(where)), size_(src.size()), window_(kFirstWindow) {}

void Cursor::truncated(uint64_t n, const char* what) const {
  fail(std::string("truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
           std::to_string(remaining()) + " remain",
       pos_);
}

const uint8_t* Cursor::refill(size_t n, const char* what) {
  need(n, what);
  if (pos_ < buf_off_ || pos_ + n > buf_off_ + size_ok_) {
    const auto len = static_cast<size_t>(std::min<uint64_t>(std::max(window_, n), remaining()));
    if (len > cap_) {
      buf_.reset(new uint8_t[len]);  // not value-initialised: the read fills it
      cap_ = len;
    }
    size_ok_ = len;
    src_.read(pos_, buf_.get(), len);
    buf_off_ = pos_;
    window_ = kMaxWindow;
  }
  const uint8_t* p = buf_.get() + (pos_ - buf_off_);
  pos_ += n;
  return p;
}

uint8_t Cursor::u8(const char* what) {
  return *window(1, what);
}

uint16_t Cursor::u16(const char* what) {
  const uint8_t* p = window(2, what);
  return static_cast<uint16_t>(p[0] | p[1] << 8);
}

uint32_t Cursor::u32(const char* what) {
  const uint8_t* p = window(4, what);
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

std::string Cursor::bytes(uint64_t n, const char* what) {
  need(n, what);
  std::string s(static_cast<size_t>(n), '\0');
  if (pos_ >= buf_off_ && pos_ + n <= buf_off_ + size_ok_) {
    std::memcpy(s.data(), buf_.get() + (pos_ - buf_off_), static_cast<size_t>(n));
  } else if (n < 256) {
    // Short strings (keys, tensor names) refill the window: more of them follow.
    std::memcpy(s.data(), window(static_cast<size_t>(n), what), static_cast<size_t>(n));
    return s;
  } else {
    src_.read(pos_, s.data(), static_cast<size_t>(n));  // exactly these bytes, nothing after
  }
  pos_ += n;
  return s;
}

uint64_t Cursor::skip_strings(uint64_t n, const char* what) {
  uint64_t i = 0;
  while (i < n) {
    // Within the window, with the position in a register: a load and two compares a string.
    const uint64_t end = buf_off_ + size_ok_;
    const uint8_t* base = buf_.get();
    uint64_t pos = pos_;
    while (i < n && pos >= buf_off_ && pos + 8 <= end) {
      const uint64_t len = le64(base + (pos - buf_off_));
      if (len > size_ - pos - 8) {
        pos_ = pos;
        return i;
      }
      pos += 8 + len;
      ++i;
    }
    pos_ = pos;
    if (i == n) break;
    // At the window's edge: this one through u64(), which refills it.
    const uint64_t at = pos_;
    if (remaining() < 8) return i;
    const uint64_t len = u64(what);
    if (len > remaining()) {
      pos_ = at;
      return i;
    }
    pos_ += len;
    ++i;
  }
  return i;
}

bool valid_utf8(std::string_view s, size_t* bad) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c < 0x80)
      len = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      len = 2;
    else if (c == 0xE0)
      len = 3, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC)
      len = 3;
    else if (c == 0xED)
      len = 3, hi = 0x9F;  // no UTF-16 surrogates
    else if (c >= 0xEE && c <= 0xEF)
      len = 3;
    else if (c == 0xF0)
      len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3)
      len = 4;
    else if (c == 0xF4)
      len = 4, hi = 0x8F;  // at most U+10FFFF
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned b = p[i + k];
      ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    }
    if (!ok) {
      if (bad) *bad = i;
      return false;
    }
    i += len;
  }
  return true;
}

}  // namespace llmsize::io
