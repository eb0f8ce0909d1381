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

struct CodeRange {
  uint32_t first, last;
};

// Code points a terminal or an editor acts on without showing them. Each range is from one list:
// Default_Ignorable_Code_Point (Unicode 14.0 DerivedCoreProperties.txt; it holds every
// Bidi_Control: U+061C, U+200E/F, U+202A..E, U+2066..9), the C1 controls (U+0080..9F, 8-bit
// escape introducers such as CSI U+009B), the line and paragraph separators U+2028/9 and the
// interlinear annotation controls U+FFF9..B (Unicode format characters outside that list).
// Sorted, disjoint: the test walks every code point against it.
constexpr CodeRange kInvisible[] = {
    {0x0080, 0x009F}, {0x00AD, 0x00AD}, {0x034F, 0x034F},   {0x061C, 0x061C},   {0x115F, 0x1160},
    {0x17B4, 0x17B5}, {0x180B, 0x180F}, {0x200B, 0x200F},   {0x2028, 0x2029},   {0x202A, 0x202E},
    {0x2060, 0x206F}, {0x3164, 0x3164}, {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0},
    {0xFFF0, 0xFFF8}, {0xFFF9, 0xFFFB}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF},
};

}  // namespace

bool invisible_code_point(uint32_t cp) {
  if (cp < 0x80) return false;
  for (const CodeRange& r : kInvisible) {
    if (cp < r.first) return false;
    if (cp <= r.last) return true;
  }
  return false;
}

bool any_code_point(std::string_view s, bool (*pred)(uint32_t)) {
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    const size_t len = utf8_len(s, i, &cp);
    if (len == 0 || pred(cp)) return true;
    i += len;
  }
  return false;
}

bool needs_sanitizing(std::string_view s) {
  return any_code_point(
      s, [](uint32_t cp) { return cp < 0x20 || cp == 0x7F || invisible_code_point(cp); });
}

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
    } else if (invisible_code_point(cp)) {
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

bool csv_formula_start(char first) {
  return first == '=' || first == '+' || first == '-' || first == '@' || first == '\t' ||
         first == '\r';
}

std::string csv_text_cell(std::string_view cell) {
  const bool mark = !cell.empty() && csv_formula_start(cell[0]);
  if (cell.find_first_of(",\"\n\r") == std::string_view::npos)
    return mark ? "'" + std::string(cell) : std::string(cell);
  std::string r = mark ? "\"'" : "\"";
  for (char ch : cell) {
    if (ch == '"') r += '"';
    r += ch;
  }
  return r + "\"";
}

}  // namespace llmsize
