#include "llmsize/plan/acceptance.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <string_view>

namespace llmsize {

const char* bench_tool_name(BenchTool t) {
  switch (t) {
    case BenchTool::vllm_serve:
      return "vllm bench serve";
    case BenchTool::sglang_serving:
      return "sglang bench_serving";
    case BenchTool::trtllm_bench:
      return "trtllm-bench";
    case BenchTool::llama_bench:
      return "llama-bench";
  }
  return "";
}

bool AcceptanceVerdict::pass() const {
  if (!compared()) return false;
  return std::all_of(figures.begin(), figures.end(),
                     [](const AcceptanceFigure& f) { return f.pass; });
}

namespace {

AcceptanceFigure figure(const char* name, const char* key, double predicted, double low,
                        double high, double measured, bool higher_is_better) {
  AcceptanceFigure f;
  f.name = name;
  f.key = key;
  f.predicted = predicted;
  f.low = low;
  f.high = high;
  f.measured = measured;
  f.higher_is_better = higher_is_better;
  f.pass = higher_is_better ? measured >= low : measured <= high;
  return f;
}

// Lower-case letters and digits of a path's last component: "/workspace/Qwen3-32B" -> "qwen332b".
std::string folded(std::string_view s) {
  const size_t slash = s.find_last_of('/');
  if (slash != std::string_view::npos && slash + 1 < s.size()) s.remove_prefix(slash + 1);
  std::string out;
  for (const char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Why the run is of another model than the plan's ("" when it is, or when the file does not say):
// llama-bench's parameter count within 2% of the plan's weights; else the run's model name holding
// the catalog id, the display name or the repository the launch names (case and punctuation
// aside), or held by it.
std::string other_model(const PlanRequest& req, const Plan& p, const BenchRun& run) {
  if (run.model_params && p.estimate.weights.params) {
    const double r =
        static_cast<double>(run.model_params) / static_cast<double>(p.estimate.weights.params);
    if (r > 0.98 && r < 1.02) return "";
    return "a run of a model of " + std::to_string(run.model_params) + " parameters, not the " +
           std::to_string(p.estimate.weights.params) + " of the plan's " + req.model.name;
  }
  const std::string run_model = folded(run.model);
  if (run_model.empty()) return "";
  for (const std::string& name :
       {req.model.id, req.model.name, req.serving ? req.serving->launch_model : std::string()}) {
    const std::string f = folded(name);
    if (!f.empty() &&
        (run_model.find(f) != std::string::npos || f.find(run_model) != std::string::npos))
      return "";
  }
  return "a run of " + run.model + ", not the plan's " + req.model.name;
}

// req with p's serving layout pinned on `gpus` of its GPU, at `users`, with no capacity target
// and no spare machines.
PlanRequest pinned_request(const PlanRequest& req, const Plan& p, uint32_t gpus, uint32_t users) {
  const Deployment& d = p.serving->deployment;
  PlanRequest q = req;
  q.users = users;
  q.target_tokens_per_s = 0;
  q.gpus_requested = gpus;
  q.gpu = p.gpu->gpu;
  ServingRequest& s = *q.serving;
  s.spare_machines = 0;
  if (engine_profile(s.engine).default_split == SplitMode::tensor) {
    s.tp = d.attention_dp ? 0 : d.tp;
    s.pp = d.pp;
  }
  return q;
}

uint32_t tokens(double mean) {
  return static_cast<uint32_t>(std::clamp(std::lround(mean), 1L, 16L * 1024 * 1024));
}

// A serving run: the plan's deployment (its GPUs and layout pinned, no capacity search, no
// spares) estimated again at the users, lengths and requests per user the run had.
void verify_serving(const PlanRequest& req, const Plan& p, const BenchRun& run,
                    AcceptanceVerdict& v) {
  if (!p.serving || !p.gpu) {
    v.not_comparable =
        "the plan is not a serving deployment: a serving benchmark is compared "
        "with the plan of a serving engine (--engine vllm, sglang or trt-llm) or "
        "of llama-server's users";
    return;
  }
  if (run.rate_limited) {
    v.not_comparable =
        "a run at a request rate: the plan is a closed loop of users; run it "
        "with --max-concurrency N --request-rate inf";
    return;
  }
  if (run.requests == 0 || run.output_tokens_per_s <= 0) {
    v.not_comparable = "the run completed no request";
    return;
  }
  const uint32_t users = run.concurrency ? run.concurrency : run.requests;
  PlanRequest q = pinned_request(req, p, p.gpu->count, users);
  q.serving->users_max = false;
  q.serving->prefill_auto = false;
  Workload& w = q.serving->workload;
  w.isl = tokens(run.mean_input_tokens > 0 ? run.mean_input_tokens : w.isl);
  w.osl = tokens(run.mean_output_tokens > 0 ? run.mean_output_tokens : w.osl);
  w.rate_per_s = 0;
  w.requests_per_user = std::max<uint32_t>(1, run.requests / std::max<uint32_t>(1, users));
  w.ttft_slo_s = w.tpot_slo_s = 0;
  v.load = std::to_string(users) + " users x " + std::to_string(w.requests_per_user) +
           " requests, " + std::to_string(w.isl) + " tokens in / " + std::to_string(w.osl) +
           " out, on " + std::to_string(p.gpu->count) + " GPUs";
  const Plan at = plan(q);
  if (!at.serving || !at.serving->estimate.fits) {
    v.not_comparable = "the plan's GPUs do not hold the run's load (" + v.load + ")";
    return;
  }
  const ServingEstimate& e = at.serving->estimate;
  if (e.overloaded) {
    v.not_comparable = "the plan's GPUs do not keep up with the run's load (" + v.load + ")";
    return;
  }
  const Ranged& out = e.output_tokens_per_s;
  v.figures.push_back(figure("output", "output_tokens_per_s", out.value, out.low, out.high,
                             run.output_tokens_per_s, true));
  if (run.mean_tpot_s > 0) {
    const Ranged& u = e.per_user_tokens_per_s;
    v.figures.push_back(figure("per user (1 / mean TPOT)", "per_user_tokens_per_s", u.value, u.low,
                               u.high, 1 / run.mean_tpot_s, true));
  }
  if (run.mean_ttft_s > 0) {
    const Ranged& t = e.ttft_s;
    v.figures.push_back(
        figure("mean TTFT", "mean_ttft_s", t.value, t.low, t.high, run.mean_ttft_s, false));
  }
}

// A llama-bench test: the plan's single sequence on its GPUs, decoding n_gen tokens after n_depth
// (KV read at the mean context n_depth + n_gen / 2), or a prompt of n_prompt from an empty context.
void verify_llama_bench(const PlanRequest& req, const Plan& p, const BenchRun& run,
                        AcceptanceVerdict& v) {
  const bool serving_engine =
      p.serving &&
      engine_profile(p.serving->deployment.engine).memory_rule != MemoryRule::fixed_slots;
  if (!p.gpu || !p.speed || serving_engine) {
    v.not_comparable = "llama-bench measures llama.cpp: the plan's engine is " +
                       std::string(engine_profile(p.config.engine).name);
    return;
  }
  if (run.n_prompt && run.n_gen) {
    v.not_comparable = "a prompt-and-generation test (-pg): llmsize compares -p and -n tests";
    return;
  }
  if (run.n_prompt && run.n_depth) {
    v.not_comparable = "a prompt test at depth " + std::to_string(run.n_depth) +
                       ": llmsize's prompt speed starts from an empty context (-d 0)";
    return;
  }
  SpeedInput in = p.speed_input;
  in.n_seq = 1;
  if (run.n_gen) {
    in.n_ctx = std::max<uint32_t>(1, run.n_depth + run.n_gen / 2);
    v.load = "1 sequence generating " + std::to_string(run.n_gen) + " tokens after " +
             std::to_string(run.n_depth);
  } else {
    in.prompt_tokens = std::max<uint32_t>(1, run.n_prompt);
    in.n_ctx = in.prompt_tokens;
    v.load = "a prompt of " + std::to_string(run.n_prompt) + " tokens";
  }
  v.load += " on " + std::to_string(p.gpu->count) + " GPU" + (p.gpu->count == 1 ? "" : "s");
  const Speed s = estimate_speed(req.model, p.estimate, p.gpu->gpu, in);
  if (run.n_gen)
    v.figures.push_back(figure("decode", "decode_tokens_per_s", s.decode_tokens_per_s, s.decode_low,
                               s.decode_high, run.tokens_per_s, true));
  else
    v.figures.push_back(figure("prompt", "prefill_tokens_per_s", s.prefill_tokens_per_s,
                               s.prefill_low, s.prefill_high, run.tokens_per_s, true));
}

}  // namespace

PlanRequest one_replica_request(const PlanRequest& req, const Plan& p) {
  if (!p.serving || !p.gpu || p.serving->deployment.replicas <= 1) return req;
  const Deployment& d = p.serving->deployment;
  return pinned_request(
      req, p, d.tp * d.pp,
      (std::max<uint32_t>(1, p.serving->workload.users) + d.replicas - 1) / d.replicas);
}

std::vector<BenchRun> planned_runs(const Plan& p, BenchTool tool, uint32_t prompt, uint32_t gen,
                                   uint32_t depth) {
  std::vector<BenchRun> runs;
  BenchRun r;
  r.tool = tool;
  if (tool == BenchTool::llama_bench) {
    r.n_prompt = prompt;
    r.tokens_per_s = 1;
    runs.push_back(r);
    r.n_prompt = 0;
    r.n_gen = gen;
    r.n_depth = depth;
    runs.push_back(r);
    return runs;
  }
  if (!p.serving) return runs;
  const Workload& w = p.serving->workload;
  r.concurrency = std::max<uint32_t>(1, w.users);
  r.requests = r.concurrency * std::max<uint32_t>(1, w.requests_per_user);
  r.mean_input_tokens = w.isl;
  r.mean_output_tokens = w.osl;
  r.output_tokens_per_s = 1;
  r.mean_tpot_s = 1;
  r.mean_ttft_s = 1;
  runs.push_back(r);
  return runs;
}

AcceptanceVerdict verify_run(const PlanRequest& req, const Plan& p, const BenchRun& run) {
  AcceptanceVerdict v;
  v.where = run.where;
  v.tool = run.tool;
  v.not_comparable = other_model(req, p, run);
  if (!v.not_comparable.empty()) return v;
  if (run.tool == BenchTool::llama_bench)
    verify_llama_bench(req, p, run, v);
  else
    verify_serving(req, p, run, v);
  return v;
}

}  // namespace llmsize
