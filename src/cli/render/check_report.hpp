// The results of llmsize check: one line per plan (PASS/FAIL with the reasons), the JSON
// document, and a JUnit XML report for CI systems.
#pragma once

#include <string>
#include <vector>

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

std::string render_check_table(const std::vector<PlanResult>& results);
std::string render_check_json(const std::vector<PlanResult>& results);
std::string render_check_junit(const std::vector<PlanResult>& results);

}  // namespace llmsize::cli
