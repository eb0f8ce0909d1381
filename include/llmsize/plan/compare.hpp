// Side by side (--compare): unified-memory computers beside GPU towers for one model, quantization
// and context. Each system is planned by plan() as if asked alone; nothing here recomputes what a
// plan holds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llmsize/plan/plan.hpp"

namespace llmsize {

// One system to compare: a catalog GPU (a unified computer's SoC or a discrete card), how many
// (GPUs, or units of a unified computer), and optionally the catalog platform.
struct CompareSystem {
  std::string gpu_id;
  uint32_t count = 0;       // 0: as many as the model needs
  std::string platform_id;  // "" = the plan chooses
};

// The default set: every unified-memory computer of the platform catalog whose SoC is among the
// candidates (as many units as the model needs), then the cheapest and the fewest-card discrete
// systems that a plan without --gpu recommends (one entry when they are the same).
// REQUIRES: base.candidates non-null.
std::vector<CompareSystem> default_comparison(const PlanRequest& base);

struct Comparison {
  CompareSystem system;
  Plan plan;
  uint64_t usable_bytes_total = 0;  // what the model may use on all its GPUs (or units)
  double idle_wall_w_total = 0;     // all machines at idle with the model loaded
  bool unified = false;             // a unified-memory computer (units are separate machines)
};

// plan() of `base` on each system (its gpu from base.candidates, gpus_requested = count,
// platform_override = platform_id). REQUIRES: every gpu_id is among base.candidates.
std::vector<Comparison> compare_systems(const PlanRequest& base,
                                        const std::vector<CompareSystem>& systems);

}  // namespace llmsize
