// llmsize check PLAN.json...: validates planned deployments for CI. A plan file (format:
// docs/plan.schema.json) holds one or more plans: a model, quantization, context, batch or users,
// GPU x count, and optional budgets (peak power, system RAM, hardware price) and a target decode
// speed. Each plan becomes a PlanRequest read from its fields (errors at their JSON pointers) and
// runs through plan(); a plan fails when the GPUs do not hold it or a
// budget or the target is missed, with the reason in numbers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/app.hpp"

namespace llmsize {
class Catalog;
}

namespace llmsize::cli {

struct PlanFailure {
  std::string check;    // memory | power | ram | price | speed
  std::string message;  // "needs 2 × h100-sxm, plan has 1: 97.4 GiB > 80 GiB"
  std::string detail;   // memory: "KV cache at ctx 32768 adds 10.0 GiB"; else empty
  double value = 0;     // what the plan needs or gets (bytes, W, USD, tok/s)
  double limit = 0;     // what it may use or must reach
  std::string unit;     // bytes | W | USD | tokens/s
};

struct PlanResult {
  std::string file;
  std::string pointer;  // JSON pointer of the plan in its file, "/plans/0"
  std::string name;
  std::string summary;  // what the plan holds, for the PASS line
  std::vector<PlanFailure> failures;
  std::string report_json;  // the main command's JSON for the plan
  bool pass() const { return failures.empty(); }
  // "PASS name (file#/plans/0): ..." or "FAIL name (...): reason; reason"
  std::string line() const;
};

// Reads and validates every file first (InputError "FILE: /plans/0/field: ..." on the first
// problem: unreadable file, bad JSON, unknown or mistyped field, unknown model or GPU, a number
// out of range), then checks each plan.
std::vector<PlanResult> check_plans(const Options& o, const Catalog& cat);

// Reads and validates the plans of a plan file's text (the fuzzer's entry point): their number,
// or InputError "<where>: /plans/0/field: ..." (nothing is computed).
size_t read_plans(std::string_view text, const std::string& where, const Catalog& cat);

std::string render_check_table(const std::vector<PlanResult>& results);
std::string render_check_json(const std::vector<PlanResult>& results);
std::string render_check_junit(const std::vector<PlanResult>& results);

// `llmsize check`: returns 0 when every plan passes, 1 otherwise; writes --junit FILE.
int run_check(const Options& o, std::string& out);

}  // namespace llmsize::cli
