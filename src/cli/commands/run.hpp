// Runs the parsed command line: the command it names, with its options.
#pragma once

#include <string>

#include "cli/options/options.hpp"

namespace llmsize::cli {

// Runs the parsed options; writes the result to `out` (sweep streams to stdout itself). Returns the
// exit code: 0, or 1 when `check` finds a plan that fails. Throws InputError on bad input (nothing
// written to out in that case).
int run(const Options& o, std::string& out);

}  // namespace llmsize::cli
