// llmsize verify --plan PLAN.json [--name NAME] RESULT...: the acceptance test of delivered
// hardware (#27). Each RESULT is a benchmark tool's own result file (vllm bench serve, SGLang's
// bench_serving, trtllm-bench --report_json, llama-bench -o json|jsonl); each run in it is held
// to the plan named in the plan file (check's format), estimated at the run's own load on the
// plan's GPUs and layout: PASS when each figure reaches the plan's calibrated range (throughput
// at or above its low end, time to first token at or below its high end).
#pragma once

#include <string>

#include "cli/options/options.hpp"

namespace llmsize {
class Catalog;
}

namespace llmsize::cli {

// 0 when every run passes, 1 when one fails or cannot be compared; writes --junit FILE.
int run_verify(const Options& o, std::string& out);

// --emit acceptance: the benchmark of one replica at its share of the plan's load with the tool
// of the plan's engine (vllm bench serve, SGLang's bench_serving, trtllm-bench, llama-bench), the
// plan file of that replica and the verify that holds the result to it, with the figures the plan
// predicts. InputError when there is nothing to benchmark.
std::string emit_acceptance(const Options& o, const llmsize::Catalog& cat);

}  // namespace llmsize::cli
