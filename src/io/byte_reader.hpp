// Bounds-checked reading of untrusted binary headers: a byte source (a file read with pread, or
// bytes in memory for the fuzzers) and a cursor that never reads past the end. Every failure is an
// InputError "<where>: <what> (at byte N)". Private to src/io.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "llmsize/io/error.hpp"
#include "llmsize/io/input.hpp"

namespace llmsize::io {

// "<where>: <what> (at byte <at>)".
[[noreturn]] void fail_at(const std::string& where, const std::string& what, uint64_t at);

// Random access to the bytes of one file or buffer.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Copies [off, off + n) to dst. REQUIRES: off + n <= size().
  virtual void read(uint64_t off, void* dst, size_t n) const = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(uint64_t off, void* dst, size_t n) const override;

 private:
  std::string_view bytes_;
};

// An open file (InputFile: non-blocking open, regular files only); never maps or reads more than
// the cursor asks for, so the size of the tensor data behind a header costs nothing.
class FileSource final : public ByteSource {
 public:
  // Throws InputError "<path>: cannot open (<reason>)" or "<path>: not a regular file (a FIFO)".
  explicit FileSource(const std::string& path) : file_(path) {}
  uint64_t size() const override { return file_.size(); }
  void read(uint64_t off, void* dst, size_t n) const override { file_.read(off, dst, n); }

 private:
  InputFile file_;
};

// The little-endian u64 at p.
inline uint64_t le64(const uint8_t* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;  // the file's byte order is the host's: one load
  std::memcpy(&v, p, 8);
#else
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
#endif
  return v;
}

// Sequential little-endian reads through a window buffer. Every read checks the remaining bytes
// first, so a length or count field is always tested against the file before it is used.
class Cursor {
 public:
  Cursor(const ByteSource& src, std::string where);

  uint64_t pos() const { return pos_; }
  uint64_t size() const { return size_; }
  uint64_t remaining() const { return size_ - pos_; }
  const std::string& where() const { return where_; }

  [[noreturn]] void fail(const std::string& what, uint64_t at) const { fail_at(where_, what, at); }
  // Fails with "truncated: <what> needs N bytes, M remain" unless n bytes remain.
  void need(uint64_t n, const char* what) const {
    if (n > remaining()) truncated(n, what);
  }

  uint8_t u8(const char* what);
  uint16_t u16(const char* what);
  uint32_t u32(const char* what);
  uint64_t u64(const char* what) { return le64(window(8, what)); }
  // n bytes as a string. REQUIRES: the caller bounded n (need() is checked here too).
  std::string bytes(uint64_t n, const char* what);
  void skip(uint64_t n, const char* what) {
    need(n, what);
    pos_ += n;
  }
  void seek(uint64_t off) { pos_ = off; }
  // Steps over up to n strings stored as a u64 length and its bytes (a GGUF vocabulary: 10^5 of
  // them) and returns how many: fewer when the next one's length is truncated or runs past the
  // end, the cursor then at that length, for the caller to read and report.
  uint64_t skip_strings(uint64_t n, const char* what);

 private:
  // The next n bytes, advancing past them: from the window when it holds them (inline: the
  // metadata of a GGUF is a few hundred thousand short reads), else refilled.
  const uint8_t* window(size_t n, const char* what) {
    if (n <= remaining() && pos_ >= buf_off_ && pos_ + n <= buf_off_ + size_ok_) {
      const uint8_t* p = buf_.get() + (pos_ - buf_off_);
      pos_ += n;
      return p;
    }
    return refill(n, what);
  }
  const uint8_t* refill(size_t n, const char* what);
  [[noreturn]] void truncated(uint64_t n, const char* what) const;

  const ByteSource& src_;
  std::string where_;
  uint64_t size_ = 0;
  uint64_t pos_ = 0;
  std::unique_ptr<uint8_t[]> buf_;
  size_t cap_ = 0;        // bytes allocated in buf_
  size_t size_ok_ = 0;    // bytes of buf_ holding file data
  uint64_t buf_off_ = 0;  // file offset of buf_[0]
  size_t window_;         // bytes the next refill reads
};

// Whether s is well-formed UTF-8 (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
// On failure, *bad is the index of the first offending byte.
bool valid_utf8(std::string_view s, size_t* bad);

}  // namespace llmsize::io
