// The largest context a set of GPUs holds, searched on the real estimate.
#pragma once

#include <cstdint>

#include "llmsize/memory/estimate.hpp"

namespace llmsize {

struct MaxContext {
  uint32_t n_ctx = 0;              // 0: does not fit even at n_ctx = 1
  bool limited_by_memory = false;  // false: ctx_limit itself fits (the model's trained context)
  uint64_t per_gpu_bytes = 0;  // what each GPU holds at n_ctx, headroom included (0 when n_ctx = 0)
  // When limited by memory: the first context that does not fit (n_ctx + 1) and what each GPU
  // would hold there; 0 when ctx_limit fits.
  uint32_t next_n_ctx = 0;
  uint64_t next_per_gpu_bytes = 0;
};

// Whether n GPUs of `usable_bytes_each` hold the estimate of (m, c) with c.kv.n_ctx = n_ctx:
// per_gpu_bytes(e, c, n) <= usable, the main command's gpu.fits. Byte counts that overflow 64 bits
// do not fit. `per_gpu`, when given, receives what each GPU would hold.
// REQUIRES: as for estimate(); n_gpus > 0.
bool fits_at_context(const ModelSpec& m, const RunConfig& c, const Weights& w, uint32_t n_gpus,
                     uint64_t usable_bytes_each, uint32_t n_ctx, uint64_t* per_gpu = nullptr);

// The largest n_ctx in [1, ctx_limit] at which n_gpus GPUs of `usable_bytes_each` hold the
// estimate, by binary search on estimate() itself (so padding to the engine's cell granularity,
// sliding-window layers capped at n_swa + n_ubatch, one KV stream per sequence and context-sized
// compute buffers all count exactly). Exact because no part of the estimate shrinks as n_ctx grows:
// KV cells are non-decreasing step functions of n_ctx and compute buffers grow with n_kv or tokens.
// `w` are the weights as estimate() places them (Estimate::weights of any earlier estimate).
// REQUIRES: as for estimate() with c.kv.n_ctx ignored; n_gpus > 0; ctx_limit > 0.
MaxContext max_context(const ModelSpec& m, const RunConfig& c, const Weights& w, uint32_t n_gpus,
                       uint64_t usable_bytes_each, uint32_t ctx_limit);

}  // namespace llmsize
