#include "llmsize/fit_verdict.hpp"

#include "llmsize/units.hpp"

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
