// llmsize check PLAN.json...: validates planned deployments for CI. A plan file (format:
// docs/plan.schema.json) holds one or more plans: a model, quantization, context, batch or users,
// GPU x count, and optional budgets (peak power, system RAM, hardware price) and a target decode
// speed. Each plan becomes a PlanRequest read from its fields (errors at their JSON pointers) and
// runs through plan(); a plan fails when the GPUs do not hold it or a
// budget or the target is missed, with the reason in numbers.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options/options.hpp"
#include "cli/options/request.hpp"
#include "cli/render/check_report.hpp"

namespace llmsize {
class Catalog;
}

namespace llmsize::cli {

// Reads and validates every file first (InputError "FILE: /plans/0/field: ..." on the first
// problem: unreadable file, bad JSON, unknown or mistyped field, unknown model or GPU, a number
// out of range), then checks each plan.
// `cached`: plans sharing settings share the Planner's work (identical results); false: plan()
// for each (the reference the tests compare with).
std::vector<PlanResult> check_plans(const Options& o, const Catalog& cat, bool cached = true);

// Reads and validates the plans of a plan file's text (the fuzzer's entry point): their number,
// or InputError "<where>: /plans/0/field: ..." (nothing is computed).
size_t read_plans(std::string_view text, const std::string& where, const Catalog& cat);

// Each plan of the file at `path`, read as check reads it (InputError as check gives it): its
// name, JSON pointer and request.
void each_file_plan(const std::string& path, const Catalog& cat,
                    const std::function<void(const std::string&, const std::string&,
                                             const ResolvedRequest&)>& sink);

// `llmsize check`: returns 0 when every plan passes, 1 otherwise; writes --junit FILE.
int run_check(const Options& o, std::string& out);

}  // namespace llmsize::cli
