// The main command: one configuration's estimate, machine and bill of materials, rendered as the
// table, JSON, CSV, Markdown, the BOM as CSV, the procurement report, or a launch command.
#pragma once

#include <string>

#include "cli/options/options.hpp"
#include "cli/render/report.hpp"

namespace llmsize {
class Catalog;
struct Plan;
}  // namespace llmsize

namespace llmsize::cli {

struct ResolvedRequest;

// The whole estimate and bill of materials for one configuration, without rendering: validates
// every flag, resolves the model and GPUs in `catalog`, computes. Throws InputError on bad input.
Report build_report(const Options& o, const Catalog& catalog);

// A plan of `rq` with its words, for the renderers. words = false leaves the warnings and the
// checklist empty (check's PASS/FAIL lines print neither).
Report make_report(const ResolvedRequest& rq, Plan p, bool explain, bool words = true);

// --ram-channels beyond the memory channels of the machine planned (the catalog platform's, else
// the platform class's), or on a unified-memory computer: InputError naming the count it has.
void check_ram_channels(const Options& o, const Plan& p);

// The main command with --ctx max: the largest context that --gpus (default 1) x --gpu hold,
// searched on the estimate, then the report at that context with a warning that says so.
Report build_report_max_context(const Options& o, const Catalog& cat);

// `llmsize MODEL ...`: the report in o.format (or the --emit launch command); writes --plot.
std::string run_estimate(const Options& o);

}  // namespace llmsize::cli
