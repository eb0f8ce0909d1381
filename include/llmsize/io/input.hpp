// The one way llmsize reads an input file. Every reader (config.json, safetensors index, catalog,
// plan file; GGUF and safetensors headers through the binary reader) opens with
// O_RDONLY | O_NONBLOCK | O_CLOEXEC, so a FIFO cannot block, and requires a regular file before
// reading a byte: a FIFO, a device (/dev/zero, /dev/urandom) or a directory is refused with its
// path. A text input is read once, whole, up to a cap stated per kind.
#pragma once

#include <cstdint>
#include <string>

#include "llmsize/io/error.hpp"
#include "llmsize/units.hpp"

namespace llmsize::io {

// A file that cannot be opened: "<path>: cannot open (<reason>)"; reason() is strerror's text.
class OpenError : public InputError {
 public:
  OpenError(const std::string& what, std::string reason)
      : InputError(what), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// A kind of text input and the largest file accepted for it.
struct InputKind {
  const char* name;  // "config.json", for "... is too large for a config.json"
  uint64_t max_bytes;
};

// Real config.json files are a few KB (the largest seen, with vision towers, ~100 KB).
inline constexpr InputKind kConfigJsonInput{"config.json", 4 * kMiB};
// A safetensors index lists every tensor: DeepSeek-V3's is 9 MB for 91,000 tensors.
inline constexpr InputKind kSafetensorsIndexInput{"safetensors index", 32 * kMiB};
// A --catalog file: 100,000 GPU entries take about 30 MB.
inline constexpr InputKind kCatalogInput{"catalog", 64 * kMiB};
// A plan file for `check`: 100,000 plans take about 15 MB.
inline constexpr InputKind kPlanInput{"plan file", 64 * kMiB};

// An open regular file. Throws InputError "<path>: cannot open (<reason>)" or
// "<path>: not a regular file (a FIFO | a directory | a character device | ...)".
class InputFile {
 public:
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Copies [off, off + n) to dst; "<path>: file shrank while being read (at byte N)" if it ends.
  void read(uint64_t off, void* dst, size_t n) const;

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// What a file that is not a regular one is, from its st_mode: "a FIFO", "a directory",
// "a character device", "a block device", "a socket".
const char* file_kind(unsigned st_mode);

// The whole text of a file of `kind`, read once. Throws InputError naming the path: cannot open,
// not a regular file, or "<path>: 123456789 bytes is too large for a catalog (at most 67108864)".
std::string read_text_input(const std::string& path, const InputKind& kind);

}  // namespace llmsize::io
