#include "llmsize/io/input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "llmsize/io/error.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize::io {
namespace {

// Paths are echoed sanitized, cut at 256 bytes.
constexpr size_t kPathMax = 256;

}  // namespace

const char* file_kind(unsigned m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a file";
}

InputFile::InputFile(const std::string& path)
    : path_(path.empty() ? "'' (an empty path)" : sanitize(path, kPathMax)) {
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    const std::string reason = std::strerror(errno);
    throw OpenError(path_ + ": cannot open (" + reason + ")", reason);
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw InputError(path_ + ": cannot stat (" + std::strerror(e) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(path_ + ": not a regular file (" + file_kind(st.st_mode) + ")");
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::read(uint64_t off, void* dst, size_t n) const {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(off));
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0)
      throw InputError(path_ + ": " +
                       (got == 0 ? std::string("file shrank while being read")
                                 : std::string("read error: ") + std::strerror(errno)) +
                       " (at byte " + std::to_string(off) + ")");
    p += got;
    off += static_cast<uint64_t>(got);
    n -= static_cast<size_t>(got);
  }
}

std::string read_text_input(const std::string& path, const InputKind& kind) {
  const InputFile f(path);
  if (f.size() > kind.max_bytes)
    throw InputError(f.path() + ": " + std::to_string(f.size()) + " bytes is too large for a " +
                     kind.name + " (at most " + std::to_string(kind.max_bytes) + ")");
  std::string s(static_cast<size_t>(f.size()), '\0');
  f.read(0, s.data(), s.size());
  return s;
}

}  // namespace llmsize::io
