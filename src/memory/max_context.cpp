#include "llmsize/memory/max_context.hpp"

#include "llmsize/units.hpp"

namespace llmsize {

bool fits_at_context(const ModelSpec& m, const RunConfig& c, const Weights& w, uint32_t n_gpus,
                     uint64_t usable_bytes_each, uint32_t n_ctx, uint64_t* per_gpu) {
  RunConfig rc = c;
  rc.kv.n_ctx = n_ctx;
  rc.n_gpus = n_gpus;
  try {
    const Estimate e = estimate(m, rc, &w);
    const uint64_t each = per_gpu_bytes(e, rc, n_gpus);
    if (per_gpu) *per_gpu = each;
    return each <= usable_bytes_each;
  } catch (const OverflowError&) {
    if (per_gpu) *per_gpu = UINT64_MAX;
    return false;
  }
}

MaxContext max_context(const ModelSpec& m, const RunConfig& c, const Weights& w, uint32_t n_gpus,
                       uint64_t usable_bytes_each, uint32_t ctx_limit) {
  MaxContext r;
  uint64_t at = 0;
  if (fits_at_context(m, c, w, n_gpus, usable_bytes_each, ctx_limit, &at)) {
    r.n_ctx = ctx_limit;
    r.per_gpu_bytes = at;
    return r;
  }
  r.limited_by_memory = true;
  r.next_n_ctx = ctx_limit;
  r.next_per_gpu_bytes = at;
  if (!fits_at_context(m, c, w, n_gpus, usable_bytes_each, 1, &at)) {
    r.next_n_ctx = 1;
    r.next_per_gpu_bytes = at;
    return r;
  }
  r.per_gpu_bytes = at;
  // Invariant: lo fits, hi does not.
  uint32_t lo = 1, hi = ctx_limit;
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (fits_at_context(m, c, w, n_gpus, usable_bytes_each, mid, &at)) {
      lo = mid;
      r.per_gpu_bytes = at;
    } else {
      hi = mid;
      r.next_n_ctx = mid;
      r.next_per_gpu_bytes = at;
    }
  }
  r.n_ctx = lo;
  return r;
}

}  // namespace llmsize
