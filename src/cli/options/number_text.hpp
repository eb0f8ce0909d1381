// The text of numeric flags and list items: what is wrong with it, or its value. (Models are
// resolved by the library: llmsize/io/resolve.hpp.)
#pragma once

#include <cstdint>
#include <string>

#include "llmsize/io/resolve.hpp"
#include "llmsize/model/generic_model.hpp"

namespace llmsize::cli {

using llmsize::ResolvedModel;

// What is wrong with `text` as an integer in [lo, hi] ("expected an integer from 1 to 64, got
// 'x'"), or empty when nothing is; the same for a number.
std::string integer_problem(const std::string& text, uint64_t lo, uint64_t hi);
std::string number_problem(const std::string& text, double lo, double hi);

// Integer flag in [lo, hi]; InputError naming the flag and the range otherwise.
uint64_t parse_int(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi);
double parse_real(const std::string& flag, const std::string& text, double lo, double hi);

}  // namespace llmsize::cli
