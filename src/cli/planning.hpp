// The planning and CI commands wired into the command line: check, fit, sweep, --ctx max, --plot,
// and the hidden completions/man generators.
#pragma once

#include <string>

#include "cli/app.hpp"
#include "cli/fit.hpp"
#include "cli/plot.hpp"

namespace llmsize::cli {

// Adds the subcommands check, fit, sweep, completions and man (the last two hidden) and the main
// command's --plot to `app`, bound to o.planning (and to o's own fields where they mean the same).
void setup_planning(CLI::App& app, Options& o);

bool is_planning_command(const std::string& command);

// Runs one of them; returns the exit code (check: 1 when a plan fails).
int run_planning(const Options& o, std::string& out);

}  // namespace llmsize::cli
