// The results of llmsize check: one line per plan (PASS/FAIL with the reasons), the JSON
// document, and a JUnit XML report for CI systems.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace llmsize {
struct CostPlan;
}

namespace llmsize::cli {

struct Report;

struct PlanFailure {
  std::string check;    // memory | power | ram | price | speed | ttft | tpot | rate
  std::string message;  // "needs 2 × h100-sxm, plan has 1: 97.4 GiB > 80 GiB"
  std::string detail;   // memory: "KV cache at ctx 32768 adds 10.0 GiB"; else empty
  double value = 0;     // what the plan needs or gets (bytes, W, USD, tok/s)
  double limit = 0;     // what it may use or must reach
  std::string unit;     // bytes | W | USD | tokens/s | s | requests/s
};

struct PlanResult {
  std::string file;
  std::string pointer;  // JSON pointer of the plan in its file, "/plans/0"
  std::string name;
  std::string summary;  // what the plan holds, for the PASS line
  std::vector<PlanFailure> failures;
  std::string report_json;  // the main command's JSON for the plan
  uint64_t report_id = 0;   // plans of one run with the same id have the same report_json; 0: none
  bool pass() const { return failures.empty(); }
  // "PASS name (file#/plans/0): ..." or "FAIL name (...): reason; reason"
  std::string line() const;
  void append_line(std::string& out) const;  // line() at the end of `out`
};

// The words of a plan's verdict: commands/check.cpp decides what passes, these say it.
// "llama-3.1-8b q4_k_m ctx 8192 × 1 on 1 × rtx-4090: 6.8 of 23.6 GiB per GPU"
std::string check_summary_words(const Report& r);
// "needs 2 × h100-sxm, plan has 1: 97.4 GiB > 80 GiB" (or: no count up to 1024 holds it)
std::string memory_failure_words(const Report& r);
// "KV cache at ctx 32768 adds 10.0 GiB[ for 4 sequences]"
std::string memory_failure_detail(const Report& r);
std::string power_summary_words(double peak_w);  // ", peak 708 W"
// " (a generic machine: ...)": after a power or price figure of a generic platform row
// (FigureBasis::generic), not a vendor's machine.
std::string generic_machine_words();
std::string power_failure_words(double peak_w, double budget_w);
std::string ram_summary_words(uint64_t need_bytes);  // ", 64 GiB RAM"
std::string ram_failure_words(uint64_t need_bytes, double budget_gib);
// ", at least $1,887 (a BOM line is unpriced)" or ", $25,614"
std::string price_summary_words(const CostPlan& cost);
std::string price_failure_words(const CostPlan& cost, double budget_usd);
std::string speed_summary_words(double decode_tokens_per_s);  // ", 120.5 tok/s per sequence"
std::string speed_failure_words(const Report& r, double target_tokens_per_s);
// The same of a serving deployment: each user's speed (its step model), the layout, and the GPUs
// the capacity search needs for the target when the plan has fewer.
std::string user_speed_summary_words(double per_user_tokens_per_s);
std::string user_speed_failure_words(const Report& r, double target_tokens_per_s);
// A serving plan's SLOs (what: "TTFT" or "TPOT"): ", TTFT 412 ms"; "TTFT 912 ms > SLO 500 ms".
std::string slo_summary_words(const char* what, double seconds);
std::string slo_failure_words(const char* what, double seconds, double slo_seconds);
// A request rate past what the replicas complete.
std::string rate_failure_words(double rate, double sustainable);

std::string render_check_table(const std::vector<PlanResult>& results);
std::string render_check_json(const std::vector<PlanResult>& results);
// render_check_json's text in pieces, for check -f json to stream the reports without holding
// them: the head with the counts, each plan's object up to its "report" value, the report's text
// (render_json's) placed as that value with the plan's closing brace, and the tail.
std::string check_json_head(size_t passed, size_t failed);
std::string check_json_plan_head(const PlanResult& r, bool first);
void check_json_report(std::string_view report, const std::function<void(std::string_view)>& out);
std::string check_json_tail(bool no_plans);
std::string render_check_junit(const std::vector<PlanResult>& results);

}  // namespace llmsize::cli
