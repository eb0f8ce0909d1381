// Whether a model fits per GPU, in three levels: with the requested headroom, tight (without it,
// but inside the engine's own margins), or not at all.
#pragma once

#include <cstdint>

#include "llmsize/engine.hpp"
#include "llmsize/memory/estimate.hpp"

namespace llmsize {

// gpu.fit in the JSON contract.
enum class Fit { fits, tight, no };
const char* to_string(Fit f);

struct FitVerdict {
  Fit fit = Fit::no;
  // (capacity - need) / need: the headroom the GPU has over what it must hold; negative when the
  // need exceeds the capacity. gpu.headroom_fraction.
  double headroom_fraction = 0;
  double requested_headroom = 0;  // the rule (20% by default), always shown
  uint64_t need_bytes = 0;        // per GPU, without headroom
  uint64_t capacity_bytes = 0;
  // The margin the "tight" level was judged with (a share of the need) and where it comes from.
  double engine_margin = 0;
  const char* margin_source = "";
};

// How an engine sizes its memory beyond the tensors it computes, for the "tight" level.
enum class MarginRule {
  exact,           // allocates what it computes (llama.cpp's measured graph buffers)
  fixed_reserve,   // keeps a fixed reserve free per GPU (Ollama's minimum memory)
  share_of_total,  // uses at most a share of the GPU's memory (vLLM, SGLang)
  share_of_free,   // its KV pool takes a share of what is free after the weights (TensorRT-LLM)
};
const char* to_string(MarginRule r);

struct EngineMargin {
  MarginRule rule = MarginRule::exact;
  double share = 1;                // share_of_total / share_of_free: the fraction the engine takes
  uint64_t reserve_bytes = 0;      // fixed_reserve: per GPU
  bool add_estimate_error = true;  // add the estimate's own measured error (buffers calibrated
                                   // on runs, not the engine's own profile)
  const char* source = "";
};

// The engine's own rule (the upstream file with each in fit_verdict.cpp), from its limits when
// given (engine_limits(): vLLM 0.9, SGLang's mem_fraction_static for this GPU, TensorRT-LLM's
// free_gpu_memory_fraction 0.9); without them the engines' defaults.
EngineMargin engine_margin(Engine e, const EngineLimits& l = EngineLimits());

// The margin as a share of the need on one GPU of capacity_bytes holding need_bytes, of which
// kv_bytes are KV cache (share_of_free takes its share of the memory left for the KV pool):
//   exact           0
//   fixed_reserve   reserve / need
//   share_of_total  1 / share - 1                  (need <= share x capacity)
//   share_of_free   kv x (1 / share - 1) / need    (kv <= share x (capacity - the rest))
// plus the estimate's error (estimate_error, a share of the need) when add_estimate_error.
double margin_fraction(const EngineMargin& m, uint64_t need_bytes, uint64_t kv_bytes,
                       double estimate_error);

// need_bytes: what one GPU holds without any headroom; capacity_bytes: what it may use.
// fits  when need x (1 + requested_headroom) <= capacity;
// tight when need x (1 + engine_margin) <= capacity, below the requested headroom;
// no    otherwise. engine_margin is the slack the engine itself needs beyond the estimate (0 for
// llama.cpp, whose buffers are the estimate). REQUIRES: 0 <= engine_margin <= requested_headroom.
FitVerdict fit_verdict(uint64_t need_bytes, uint64_t capacity_bytes, double requested_headroom,
                       double engine_margin = 0);

// The verdict for n GPUs of usable_each holding e under c's layer split: the need is
// per_gpu_bytes with no headroom, the rule is c.headroom.
FitVerdict fit_verdict(const Estimate& e, const RunConfig& c, uint64_t usable_each, uint32_t n,
                       double engine_margin = 0);

}  // namespace llmsize
