#include "llmsize/memory/fit_verdict.hpp"

#include "llmsize/units.hpp"

#include <algorithm>

namespace llmsize {

const char* to_string(Fit f) {
  switch (f) {
    case Fit::fits:
      return "fits";
    case Fit::tight:
      return "tight";
    case Fit::no:
      return "no";
  }
  return "?";
}

const char* to_string(MarginRule r) {
  switch (r) {
    case MarginRule::exact:
      return "exact";
    case MarginRule::fixed_reserve:
      return "fixed_reserve";
    case MarginRule::share_of_total:
      return "share_of_total";
    case MarginRule::share_of_free:
      return "share_of_free";
  }
  return "?";
}

EngineMargin engine_margin(Engine e, const EngineLimits& l) {
  EngineMargin m;
  switch (e) {
    case Engine::llama_cpp:
      // llama_context reserves the compute buffers by measuring the worst-case graph
      // (ggml_backend_sched_reserve in src/llama-context.cpp) and allocates weights and KV exactly:
      // no share held back. What remains is the estimate's own error.
      m.source =
          "llama.cpp allocates what it computes (ggml_backend_sched_reserve, "
          "src/llama-context.cpp)";
      break;
    case Engine::ollama:
      // discover/gpu.go (ollama/ollama): cudaMinimumMemory = rocmMinimumMemory = 457 MiB kept
      // free per GPU by the scheduler's fit check.
      m.rule = MarginRule::fixed_reserve;
      m.reserve_bytes = 457 * kMiB;
      m.source = "Ollama keeps 457 MiB free per GPU (cudaMinimumMemory, discover/gpu.go)";
      break;
    case Engine::vllm:
      // vllm/config/cache.py: gpu_memory_utilization = 0.9 of total memory, the rest untouched.
      m.rule = MarginRule::share_of_total;
      m.share = l.memory_fraction > 0 ? l.memory_fraction : 0.9;
      m.add_estimate_error = false;  // the estimate is vLLM's own profile rule
      m.source = "vLLM uses gpu_memory_utilization 0.9 of memory (vllm/config/cache.py)";
      break;
    case Engine::sglang:
      // python/sglang/srt/server_args.py: weights + KV pool = total x mem_fraction_static.
      m.rule = MarginRule::share_of_total;
      m.share = l.memory_fraction > 0 ? l.memory_fraction : 0.88;
      m.add_estimate_error = false;
      m.source = "SGLang uses mem_fraction_static of memory (python/sglang/srt/server_args.py)";
      break;
    case Engine::trt_llm:
      // tensorrt_llm/llmapi/llm_args.py KvCacheConfig.free_gpu_memory_fraction = 0.9 of the
      // memory free after weights and activations.
      m.rule = MarginRule::share_of_free;
      m.share = l.memory_fraction > 0 ? l.memory_fraction : 0.9;
      m.add_estimate_error = false;
      m.source =
          "TensorRT-LLM's KV pool takes free_gpu_memory_fraction 0.9 of free memory "
          "(tensorrt_llm/llmapi/llm_args.py)";
      break;
    case Engine::transformers:
      // PyTorch's caching allocator takes what each step asks for; no share is reserved.
      m.source = "transformers allocates on demand (PyTorch caching allocator), no reserve";
      break;
  }
  return m;
}

double margin_fraction(const EngineMargin& m, uint64_t need_bytes, uint64_t kv_bytes,
                       double estimate_error) {
  if (need_bytes == 0) return 0;
  const double need = static_cast<double>(need_bytes);
  const double share = m.share > 0 && m.share <= 1 ? m.share : 1;
  double f = 0;
  switch (m.rule) {
    case MarginRule::exact:
      break;
    case MarginRule::fixed_reserve:
      f = static_cast<double>(m.reserve_bytes) / need;
      break;
    case MarginRule::share_of_total:
      f = 1 / share - 1;
      break;
    case MarginRule::share_of_free:
      f = static_cast<double>(std::min(kv_bytes, need_bytes)) * (1 / share - 1) / need;
      break;
  }
  if (m.add_estimate_error) f += std::max(0.0, estimate_error);
  return f;
}

FitVerdict fit_verdict(uint64_t need_bytes, uint64_t capacity_bytes, double requested_headroom,
                       double engine_margin) {
  FitVerdict v;
  v.need_bytes = need_bytes;
  v.capacity_bytes = capacity_bytes;
  v.requested_headroom = requested_headroom;
  v.headroom_fraction =
      need_bytes ? (static_cast<double>(capacity_bytes) - static_cast<double>(need_bytes)) /
                       static_cast<double>(need_bytes)
                 : 0;
  // Exact integer comparisons (fraction_of rounds up), so "fits" agrees with gpus_needed().
  if (checked_add(need_bytes, fraction_of(need_bytes, requested_headroom)) <= capacity_bytes)
    v.fit = Fit::fits;
  else if (checked_add(need_bytes, fraction_of(need_bytes, engine_margin)) <= capacity_bytes)
    v.fit = Fit::tight;
  else
    v.fit = Fit::no;
  return v;
}

FitVerdict fit_verdict(const Estimate& e, const RunConfig& c, uint64_t usable_each, uint32_t n,
                       double engine_margin) {
  RunConfig bare = c;
  bare.headroom = 0;
  return fit_verdict(per_gpu_bytes(e, bare, n ? n : 1), usable_each, c.headroom, engine_margin);
}

}  // namespace llmsize
