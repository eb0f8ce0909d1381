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

namespace llmsize::cli {

// --emit acceptance: the benchmark the buyer runs on the delivered machine, and the verify that
// holds it to the plan. Filled by the command from the plan of one replica at its share of the
// load (one_replica_request) and verify_run's predictions for planned_runs().
struct AcceptanceScript {
  BenchTool tool = BenchTool::vllm_serve;
  std::string engine;  // "vLLM", "SGLang", "TensorRT-LLM", "llama.cpp"
  std::string model;   // what the engine serves or llama-bench loads (a repo id, a path, a GGUF)
  std::string what;    // one replica's layout and load, in words
  uint32_t port = 8000;
  uint32_t users = 1, isl = 1, osl = 1, requests = 1, tp = 1, pp = 1;
  uint32_t prompt = 512, gen = 128, depth = 0;  // llama-bench
  std::string cache_type;                       // llama-bench -ctk/-ctv ("" = f16)
  std::string plan_json;                        // the plan file verify reads
  std::vector<AcceptanceFigure> predicted;
};
std::string render_acceptance_script(const AcceptanceScript& s);

}  // namespace llmsize::cli
