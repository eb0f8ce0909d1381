#include "cli/options/number_text.hpp"

#include <cstdio>
#include <cstdlib>

#include "llmsize/io/error.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize::cli {

std::string integer_problem(const std::string& text, uint64_t lo, uint64_t hi) {
  const std::string problem = "expected an integer from " + std::to_string(lo) + " to " +
                              std::to_string(hi) + ", got '" + sanitize(text) + "'";
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return problem;
  // 19 digits always fit in 64 bits; anything longer is out of range anyway.
  if (text.size() > 19 || std::stoull(text) < lo || std::stoull(text) > hi) return problem;
  return "";
}

std::string number_problem(const std::string& text, double lo, double hi) {
  // Decimal only: strtod would also take hex floats (0x1p-3), "inf" and "nan".
  const bool decimal = text.find_first_not_of("0123456789.eE+-") == std::string::npos &&
                       // "-0" for a flag that takes no negative number is a typo, not zero.
                       !(lo >= 0 && !text.empty() && text[0] == '-');
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  char buf[128];
  std::snprintf(buf, sizeof buf, "expected a number from %g to %g", lo, hi);
  if (text.empty() || !decimal || end != text.c_str() + text.size() || !(v >= lo && v <= hi))
    return std::string(buf) + ", got '" + sanitize(text) + "'";
  return "";
}

uint64_t parse_int(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  const std::string problem = integer_problem(text, lo, hi);
  if (!problem.empty()) throw InputError(flag + ": " + problem);
  return std::stoull(text);
}

double parse_real(const std::string& flag, const std::string& text, double lo, double hi) {
  const std::string problem = number_problem(text, lo, hi);
  if (!problem.empty()) throw InputError(flag + ": " + problem);
  return std::strtod(text.c_str(), nullptr);
}

}  // namespace llmsize::cli
