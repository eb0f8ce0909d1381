// Checked 64-bit arithmetic for counts that come from untrusted input (bytes, elements,
// parameters): an overflow throws OverflowError naming the quantity instead of wrapping.
// The unnamed checked_add/checked_mul of units.hpp say only "byte count overflows 64 bits".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "llmsize/units.hpp"

namespace llmsize {

// OverflowError "<what>: a <op> b overflows 64 bits". Out of line and cold: the checks below
// stay a few instructions where they are inlined (a sweep row makes about a hundred).
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_overflow(uint64_t a, const char* op,
                                                                  uint64_t b,
                                                                  std::string_view what) {
  throw OverflowError(std::string(what) + ": " + std::to_string(a) + op + std::to_string(b) +
                      " overflows 64 bits");
}

// a + b; OverflowError "<what>: a + b overflows 64 bits".
inline uint64_t checked_add(uint64_t a, uint64_t b, std::string_view what) {
  uint64_t r = 0;
  if (__builtin_expect(__builtin_add_overflow(a, b, &r), 0)) throw_overflow(a, " + ", b, what);
  return r;
}

// a x b; OverflowError "<what>: a x b overflows 64 bits".
inline uint64_t checked_mul(uint64_t a, uint64_t b, std::string_view what) {
  uint64_t r = 0;
  if (__builtin_expect(__builtin_mul_overflow(a, b, &r), 0)) throw_overflow(a, " x ", b, what);
  return r;
}

// v as 32 bits; OverflowError "<what>: v does not fit in 32 bits".
inline uint32_t checked_u32(uint64_t v, std::string_view what) {
  if (v > 0xffffffffull)
    throw OverflowError(std::string(what) + ": " + std::to_string(v) + " does not fit in 32 bits");
  return static_cast<uint32_t>(v);
}

}  // namespace llmsize
