#include <catch2/catch.hpp>

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
      {"=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"},
      {"+1+1", "'+1+1"},
      {"-2+3", "'-2+3"},
      {"@SUM(A1)", "'@SUM(A1)"},
      {"\tx", "'\tx"},
      {"\rx", "'\rx"},
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
