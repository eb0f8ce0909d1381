#include "llmsize/sanitize.hpp"

#include <cstdint>
#include <cstdio>

namespace llmsize {
namespace {

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629), or 0.
size_t utf8_len(std::string_view s, size_t i, uint32_t* cp) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const unsigned c = p[i];
  size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c == 0xE0)
    len = 3, lo = 0xA0;
  else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF)
    len = 3;
  else if (c == 0xED)
    len = 3, hi = 0x9F;
  else if (c == 0xF0)
    len = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3)
    len = 4;
  else if (c == 0xF4)
    len = 4, hi = 0x8F;
  if (len == 0 || i + len > s.size()) return 0;
  uint32_t v = c & (0x7Fu >> len);
  for (size_t k = 1; k < len; ++k) {
    const unsigned b = p[i + k];
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return 0;
    v = v << 6 | (b & 0x3Fu);
  }
  *cp = v;
  return len;
}

bool invisible(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x200B && cp <= 0x200F) ||
         (cp >= 0x2028 && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

}  // namespace

std::string sanitize(std::string_view s, size_t max_bytes) {
  std::string r;
  r.reserve(s.size() < max_bytes ? s.size() : max_bytes + 24);
  char buf[16];
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = 0;
    const size_t len = utf8_len(s, i, &cp);
    std::string_view piece;
    if (len == 0) {
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[i]));
      piece = buf;
    } else if (cp == '\n') {
      piece = "\\n";
    } else if (cp == '\t') {
      piece = "\\t";
    } else if (cp == '\r') {
      piece = "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\x%02x", cp);
      piece = buf;
    } else if (invisible(cp)) {
      std::snprintf(buf, sizeof buf, "\\u{%04X}", cp);
      piece = buf;
    } else {
      piece = s.substr(i, len);
    }
    // Cut before the piece that would pass the limit (counted on the output).
    if (r.size() + piece.size() > max_bytes) {
      r += "... (" + std::to_string(s.size()) + " bytes)";
      return r;
    }
    r += piece;
    i += len ? len : 1;
  }
  return r;
}

std::string sanitize_quoted(std::string_view s, size_t max_bytes) {
  return "\"" + sanitize(s, max_bytes) + "\"";
}

std::string csv_text_cell(std::string_view cell) {
  if (!cell.empty() && (cell[0] == '=' || cell[0] == '+' || cell[0] == '-' || cell[0] == '@' ||
                        cell[0] == '\t' || cell[0] == '\r'))
    return "'" + std::string(cell);
  return std::string(cell);
}

}  // namespace llmsize
