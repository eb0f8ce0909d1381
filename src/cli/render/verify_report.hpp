// The results of llmsize verify: a line per benchmark run (PASS/FAIL with each figure against the
// plan's prediction and range), the JSON document, and a JUnit XML report as check writes it.
#pragma once

#include <string>
#include <vector>

#include "llmsize/plan/acceptance.hpp"

namespace llmsize::cli {

// A run the plan cannot be compared with (AcceptanceVerdict::not_comparable) is skipped, with the
// reason; the result passes when at least one run was compared and every compared run passed.
struct VerifyResult {
  std::string plan;  // "NAME (FILE#/plans/0)"
  std::vector<AcceptanceVerdict> runs;
  size_t compared() const;
  size_t failed() const;  // compared and not passed
  bool pass() const { return compared() > 0 && failed() == 0; }
};

std::string render_verify_table(const VerifyResult& r);
std::string render_verify_json(const VerifyResult& r);
std::string render_verify_junit(const VerifyResult& r);

}  // namespace llmsize::cli
