// The one error type of the edges: bad input from a flag, a catalog or a file. main catches it,
// prints "llmsize: error: <what>" to stderr and exits 2.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace llmsize {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Edit distance of two short strings (insertions, deletions, substitutions).
size_t edit_distance(const std::string& a, const std::string& b);

// "a, b or c": the choices a message names.
std::string or_list(const std::vector<std::string>& words);

// Up to `max` candidates closest to `name` by edit distance (case-insensitive), best first;
// only those close enough to be a plausible typo, or containing `name`.
std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates, size_t max = 3);

// " (did you mean a, b?)" or "".
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace llmsize
