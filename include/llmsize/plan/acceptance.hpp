// An acceptance test for the delivered hardware (#27): a benchmark tool's run (vllm bench serve,
// SGLang's bench_serving, trtllm-bench, llama-bench) against what the plan predicts for the same
// load on its GPUs and layout. A serving run is compared with the plan estimated again at the run's
// users, lengths and requests per user (the load the buyer ran, on the deployment the plan
// bought); a llama-bench test with the plan's single-sequence speed at the test's prompt or depth.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llmsize/plan/plan.hpp"

namespace llmsize {

enum class BenchTool { vllm_serve, sglang_serving, trtllm_bench, llama_bench };
const char* bench_tool_name(BenchTool t);  // "vllm bench serve", "sglang bench_serving", ...

// One run as its tool's result file records it; 0 where the file does not give a figure.
struct BenchRun {
  BenchTool tool = BenchTool::vllm_serve;
  std::string where;  // the file and the line or element it came from
  // The model the run loaded as the file names it (vLLM's and SGLang's model_id, trtllm-bench's
  // engine.model, llama-bench's model_filename) and its parameters (llama-bench's model_n_params;
  // 0 when not given).
  std::string model;
  uint64_t model_params = 0;
  // A serving run (vllm, sglang, trtllm-bench): its load and what it measured.
  uint32_t concurrency = 0;  // the in-flight cap (max_concurrency; trtllm-bench --concurrency)
  uint32_t requests = 0;     // completed
  double mean_input_tokens = 0, mean_output_tokens = 0;
  bool rate_limited = false;  // a finite request rate (not a closed loop of users)
  double output_tokens_per_s = 0;
  double mean_ttft_s = 0, p99_ttft_s = 0;
  double mean_tpot_s = 0;
  // A llama-bench test: n_prompt tokens of prompt (pp) or n_gen generated (tg) after n_depth
  // tokens already in the context, at avg_ts tokens/s.
  uint32_t n_prompt = 0, n_gen = 0, n_depth = 0;
  double tokens_per_s = 0;
};

// A figure the plan predicts, its calibrated range, and what the run measured. Throughput passes
// at or above the range's low end, a latency at or below its high end.
struct AcceptanceFigure {
  std::string name;  // "output tokens/s", "per-user tokens/s", "mean TTFT (s)", ...
  std::string key;   // output_tokens_per_s, per_user_tokens_per_s, mean_ttft_s, ...
  double predicted = 0, low = 0, high = 0, measured = 0;
  bool higher_is_better = true;
  bool pass = false;
  double ratio() const { return predicted > 0 ? measured / predicted : 0; }
};

struct AcceptanceVerdict {
  std::string where;
  BenchTool tool = BenchTool::vllm_serve;
  std::string load;  // the load compared at, in words
  std::vector<AcceptanceFigure> figures;
  // Why the run cannot be compared with the plan (empty: it can): a rate run against a plan of
  // users, a llama-bench file against a serving engine's plan, a run that completed nothing.
  std::string not_comparable;
  bool compared() const { return not_comparable.empty() && !figures.empty(); }
  bool pass() const;  // compared, every figure within the plan's range
};

// The run against the plan `p` of request `req` (p = plan(req)). Pure: plan() is run again at the
// run's load where the run's differs.
AcceptanceVerdict verify_run(const PlanRequest& req, const Plan& p, const BenchRun& run);

// What a benchmark of one replica's endpoint measures (the acceptance test's load, --emit
// acceptance): the request of one replica of p's serving deployment (its tp x pp GPUs, pinned)
// at its share of the users, ceil(users / replicas); req itself when p has one replica or no
// serving deployment. REQUIRES: p = plan(req).
PlanRequest one_replica_request(const PlanRequest& req, const Plan& p);

// The run a benchmark tool would record at the plan's own load, its figures unknown: a serving
// run of `users` x requests_per_user requests of isl / osl tokens (verify_run then gives the
// plan's predictions with their ranges), or llama-bench's prompt test of `prompt` tokens and
// generation test of `gen` tokens after `depth`.
std::vector<BenchRun> planned_runs(const Plan& p, BenchTool tool, uint32_t prompt, uint32_t gen,
                                   uint32_t depth);

}  // namespace llmsize
