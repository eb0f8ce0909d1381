// Units used across llmsize. Memory is binary (GiB), disks and bandwidth decimal (GB).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace llmsize {

constexpr uint64_t kKiB = 1ull << 10;
constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kGB = 1'000'000'000ull;
// Hours in the (365-day) year energy and tokens per year are counted over.
constexpr double kHoursPerYear = 8760;

// Thrown when a byte count would not fit in 64 bits (a hostile or absurd input).
class OverflowError : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

// a * b, throwing OverflowError instead of wrapping.
inline uint64_t checked_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw OverflowError("byte count overflows 64 bits");
  return r;
}

// a + b, throwing OverflowError instead of wrapping.
inline uint64_t checked_add(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw OverflowError("byte count overflows 64 bits");
  return r;
}

// std::round (halves away from zero; NaN, infinities and -0.0 kept) without the libm call: a
// sweep row rounds a few dozen displayed figures. Below 2^52 the integer part fits in 64 bits
// and v minus it is exact; at or above, every double is an integer.
inline double round_half_away(double v) {
  if (!(std::fabs(v) < 4503599627370496.0)) return v;
  const double t = static_cast<double>(static_cast<int64_t>(v));
  const double f = v - t;
  const double r = f >= 0.5 ? t + 1.0 : f <= -0.5 ? t - 1.0 : t;
  return std::copysign(r, v);
}

// Rounds n up to a multiple of m (GGML_PAD). REQUIRES: m > 0.
constexpr uint64_t pad_to(uint64_t n, uint64_t m) {
  return (n + m - 1) / m * m;
}

// ceil(n x f) computed exactly for f given to 6 decimals (0.2 -> 200000 ppm), so a 20% headroom
// is exactly ceil(n / 5). REQUIRES: 0 <= f <= 1000.
inline uint64_t fraction_of(uint64_t n, double f) {
  __extension__ typedef unsigned __int128 u128;
  const uint64_t ppm64 = static_cast<uint64_t>(f * 1e6 + 0.5);
  // In 64 bits when n x ppm fits (the same quotient; 128-bit division is a library call).
  uint64_t p64;
  if (!__builtin_mul_overflow(n, ppm64, &p64) && p64 <= UINT64_MAX - 999999)
    return (p64 + 999999) / 1000000;
  const auto ppm = static_cast<u128>(ppm64);
  const u128 r = (static_cast<u128>(n) * ppm + 999999) / 1000000;
  if (r > std::numeric_limits<uint64_t>::max()) throw OverflowError("byte count overflows 64 bits");
  return static_cast<uint64_t>(r);
}

// Bytes as binary GiB or decimal GB, for display and rates only (sums stay integer bytes).
inline double gib_of(uint64_t b) {
  return static_cast<double>(b) / static_cast<double>(kGiB);
}
inline double gb_of(uint64_t b) {
  return static_cast<double>(b) / static_cast<double>(kGB);
}
inline double mib_of(uint64_t b) {
  return static_cast<double>(b) / static_cast<double>(kMiB);
}
// Decimal terabytes (disks).
inline double tb_of(uint64_t b) {
  return static_cast<double>(b) / 1e12;
}
// A count (parameters, tokens) in billions: 8,030,261,248 -> 8.03.
inline double billions_of(uint64_t n) {
  return static_cast<double>(n) / 1e9;
}
// part / whole (a share of bytes, of parameters); 0 when whole is 0.
inline double share_of(uint64_t part, uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}
// Bits per element of `bytes` holding `elements` values; 0 without elements.
inline double bits_per_element(uint64_t bytes, uint64_t elements) {
  return elements ? 8.0 * static_cast<double>(bytes) / static_cast<double>(elements) : 0.0;
}

// Seconds from milliseconds (--ttft-ms, --tpot-ms) and back, for display.
constexpr double seconds_of_ms(double ms) {
  return ms / 1000;
}
constexpr double ms_of(double s) {
  return s * 1000;
}
// Seconds as microseconds, minutes or hours, for display.
constexpr double us_of(double s) {
  return s * 1e6;
}
constexpr double minutes_of(double s) {
  return s / 60;
}
constexpr double hours_of(double s) {
  return s / 3600;
}
// A fraction (0.2 headroom, 0.85 power limit) in percent, for display: 0.2 -> 20.
constexpr double percent_of(double fraction) {
  return fraction * 100;
}

// A size given in MiB, GiB or decimal GB (a flag, a budget) as whole bytes, rounded to the
// nearest. REQUIRES: x >= 0; OverflowError when the bytes do not fit in 64 bits.
inline uint64_t bytes_of(double x, uint64_t unit) {
  const double b = std::round(x * static_cast<double>(unit));
  if (!(b >= 0) || b >= 18446744073709551616.0)  // NaN, negative, or 2^64 and up
    throw OverflowError("byte count overflows 64 bits");
  return static_cast<uint64_t>(b);
}
inline uint64_t bytes_of_mib(double mib) {
  return bytes_of(mib, kMiB);
}
inline uint64_t bytes_of_gib(double gib) {
  return bytes_of(gib, kGiB);
}
inline uint64_t bytes_of_gb(double gb) {
  return bytes_of(gb, kGB);
}

// 1234567 -> "1,234,567": thousands grouped, for derivations and tables.
inline std::string group_digits(uint64_t v) {
  const std::string s = std::to_string(v);
  std::string r;
  r.reserve(s.size() + s.size() / 3);
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) r.push_back(',');
    r.push_back(s[i]);
  }
  return r;
}
// A whole number of watts, kWh or BTU/h as the tables print it, rounded and grouped: 2592.4 ->
// "2,592" (negative values and NaN as 0).
inline std::string group_whole(double v) {
  return group_digits(static_cast<uint64_t>(std::llround(v > 0 ? v : 0.0)));
}

}  // namespace llmsize
