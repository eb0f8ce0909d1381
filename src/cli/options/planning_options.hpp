// Options of the planning and CI commands (check, fit, sweep, --plot, completions, man), kept in
// one struct that Options holds, so those commands add no fields to the main command's list.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace llmsize::cli {

struct PlanningOptions {
  // check PLAN.json...
  std::vector<std::string> plan_files;
  std::string junit;    // --junit FILE: a JUnit XML report
  bool strict = false;  // --strict: a tight fit fails
  // verify --plan PLAN.json [--name NAME] RESULT...
  std::string verify_plan, verify_name;
  std::vector<std::string> verify_results;
  // sweep: comma-separated lists (or repeated flags)
  std::vector<std::string> models;
  std::vector<std::string> quants;
  std::vector<std::string> ctxs;
  std::vector<std::string> gpu_list;
  std::vector<std::string> counts;
  bool only_fits = false;
  std::string max_rows = "1000000";
  std::string sweep_format = "csv";  // csv or jsonl
  bool verify = false;               // hidden: check every fast row against build_report()
  // fit
  std::vector<std::string> fit_quants;
  bool fit_all = false;
  // the main command and sweep: an SVG picture
  std::string plot;
  // completions SHELL
  std::string shell;
  // The parsed command line, for completions and man: set by setup_planning().
  const CLI::App* app = nullptr;
};

struct Options;

// Adds the subcommands check, fit, sweep, completions, man and fields (the last three hidden) and
// the main command's --plot to `app`, bound to o.planning (and to o's own fields where they mean
// the same).
void setup_planning(CLI::App& app, Options& o);

}  // namespace llmsize::cli
