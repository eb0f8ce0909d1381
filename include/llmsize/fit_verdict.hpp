// Whether a model fits per GPU, in three levels: with the requested headroom, tight (without it,
// but inside the engine's own margins), or not at all.
#pragma once

#include <cstdint>

#include "llmsize/estimate.hpp"

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
};

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
