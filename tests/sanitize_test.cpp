#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "llmsize/checked.hpp"
#include "llmsize/sanitize.hpp"

using namespace llmsize;

TEST_CASE("sanitize escapes what a terminal would act on and keeps the rest", "[sanitize]") {
  auto [in, out] = GENERATE(table<std::string, std::string>({
      {"llama-3.1-8b", "llama-3.1-8b"},
      {"caf\xc3\xa9 \xe6\xbc\xa2", "caf\xc3\xa9 \xe6\xbc\xa2"},  // UTF-8 kept
      {"a\x1b[31mred", "a\\x1b[31mred"},                         // CSI colour
      {"t\x1b]0;title\x07", "t\\x1b]0;title\\x07"},              // OSC title + BEL
      {"l1\nl2\tx\r", "l1\\nl2\\tx\\r"},
      {"del\x7f", "del\\x7f"},
      {"c1\xc2\x9b", "c1\\u{009B}"},        // U+009B, the 8-bit CSI
      {"rtl\xe2\x80\xae", "rtl\\u{202E}"},  // RIGHT-TO-LEFT OVERRIDE
      {"bad\xff\xc3", "bad\\xff\\xc3"},     // not UTF-8, a truncated sequence
      {std::string("nul\0x", 5), "nul\\x00x"},
      {"back\\slash", "back\\slash"},  // unchanged: sanitizing twice is a no-op
  }));
  CHECK(sanitize(in) == out);
  CHECK(sanitize(sanitize(in)) == sanitize(in));
}

namespace {

// UTF-8 of code point `cp` (not a surrogate).
std::string utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

struct Range {
  uint32_t first, last;
};

bool in(const std::vector<Range>& list, uint32_t cp) {
  for (const auto& r : list)
    if (cp >= r.first && cp <= r.last) return true;
  return false;
}

}  // namespace

TEST_CASE("sanitize escapes Unicode's bidi controls and every default-ignorable code point",
          "[sanitize]") {
  // Default_Ignorable_Code_Point, DerivedCoreProperties.txt of Unicode 14.0 (as Perl 5.36's
  // Unicode::UCD ships it: prop_invlist("Default_Ignorable_Code_Point")).
  const std::vector<Range> ignorable = {
      {0x00AD, 0x00AD},   {0x034F, 0x034F}, {0x061C, 0x061C},   {0x115F, 0x1160},
      {0x17B4, 0x17B5},   {0x180B, 0x180F}, {0x200B, 0x200F},   {0x202A, 0x202E},
      {0x2060, 0x206F},   {0x3164, 0x3164}, {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},
      {0xFFA0, 0xFFA0},   {0xFFF0, 0xFFF8}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},
      {0xE0000, 0xE0FFF},
  };
  // Bidi_Control (PropList.txt, Unicode 14.0): all inside the list above, checked here as well.
  const std::vector<Range> bidi = {
      {0x061C, 0x061C}, {0x200E, 0x200F}, {0x202A, 0x202E}, {0x2066, 0x2069}};
  // Beyond the list, escaped on purpose: C1 controls, the line and paragraph separators, the
  // interlinear annotation controls.
  const std::vector<Range> extra = {{0x0080, 0x009F}, {0x2028, 0x2029}, {0xFFF9, 0xFFFB}};
  uint32_t mismatches = 0, escaped = 0;
  for (uint32_t cp = 0x20; cp <= 0x10FFFF; ++cp) {
    if (cp == 0x7F || (cp >= 0xD800 && cp <= 0xDFFF)) continue;
    const bool want = in(ignorable, cp) || in(extra, cp);
    const std::string s = utf8(cp);
    const bool got = sanitize(s, 64) != s;
    if (got != want || invisible_code_point(cp) != want || needs_sanitizing(s) != want) {
      ++mismatches;
      UNSCOPED_INFO("U+" << std::hex << cp);
    }
    if (in(bidi, cp) && sanitize(s, 64) == s) ++mismatches;
    escaped += got;
  }
  CHECK(mismatches == 0);
  // 4,174 default-ignorables (1+1+1+2+2+5+5+5+16+1+16+1+1+9+4+8+4,096) and 37 extras
  // (32 + 2 + 3).
  CHECK(escaped == 4174 + 37);
  CHECK(sanitize("name\xd8\x9c") == "name\\u{061C}");  // ARABIC LETTER MARK
}

TEST_CASE("sanitize cuts a long string and says how long it was", "[sanitize]") {
  const std::string big(131072, 'a');
  // 120 bytes kept, then the original length.
  CHECK(sanitize(big) == std::string(120, 'a') + "... (131072 bytes)");
  CHECK(sanitize(big, 4) == "aaaa... (131072 bytes)");
  // A cut never splits an escape or a UTF-8 character: "\x1b" is 4 bytes, "é" 2.
  CHECK(sanitize("ab\x1b", 4) == "ab... (3 bytes)");
  CHECK(sanitize("abc\xc3\xa9", 4) == "abc... (5 bytes)");
  CHECK(sanitize_quoted("x\ny") == "\"x\\ny\"");
}

TEST_CASE("CSV text cells that a spreadsheet would run as a formula are neutralised",
          "[sanitize]") {
  auto [in, out] = GENERATE(table<std::string, std::string>({
      // Quoted as RFC 4180 says (a quote inside doubled), the apostrophe inside the quotes.
      {"=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""},
      {"=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
      {"+1+1", "'+1+1"},
      {"-2+3", "'-2+3"},
      {"@SUM(A1)", "'@SUM(A1)"},
      {"\tx", "'\tx"},
      {"\rx", "\"'\rx\""},
      {"a,b", "\"a,b\""},
      {"line\nbreak", "\"line\nbreak\""},
      {"x=1", "x=1"},
      {"llama-3.1-8b", "llama-3.1-8b"},
      {"", ""},
  }));
  CHECK(csv_text_cell(in) == out);
}

TEST_CASE("checked arithmetic names the quantity that overflows", "[checked]") {
  CHECK(checked_add(1, 2, "x") == 3);
  CHECK(checked_mul(1ull << 32, 1ull << 31, "x") == 1ull << 63);
  // 2^63 + 2^63 = 2^64: one past the largest 64-bit value.
  CHECK_THROWS_MATCHES(checked_add(1ull << 63, 1ull << 63, "KV cache bytes (K + V)"), OverflowError,
                       Catch::Message("KV cache bytes (K + V): 9223372036854775808 + "
                                      "9223372036854775808 overflows 64 bits"));
  CHECK_THROWS_MATCHES(
      checked_mul(1ull << 32, 1ull << 32, "tensor elements"), OverflowError,
      Catch::Message("tensor elements: 4294967296 x 4294967296 overflows 64 bits"));
  CHECK(checked_u32(0xffffffffull, "n") == 0xffffffffu);
  CHECK_THROWS_MATCHES(checked_u32(1ull << 32, "moe_intermediate_size x n_shared_experts"),
                       OverflowError,
                       Catch::Message("moe_intermediate_size x n_shared_experts: 4294967296 does "
                                      "not fit in 32 bits"));
}
