#include "llmsize/plan/compare.hpp"

#include <algorithm>

#include "llmsize/units.hpp"

namespace llmsize {
namespace {

const GpuSpec* find_gpu(const std::vector<GpuSpec>& gpus, const std::string& id) {
  for (const auto& g : gpus)
    if (g.id == id) return &g;
  return nullptr;
}

}  // namespace

std::vector<CompareSystem> default_comparison(const PlanRequest& base) {
  std::vector<CompareSystem> out;
  const std::vector<GpuSpec>& gpus = *base.candidates;
  if (base.platforms)
    for (const auto& p : *base.platforms) {
      if (p.platform_class != PlatformClass::unified || p.gpu_ids.empty()) continue;
      if (!find_gpu(gpus, p.gpu_ids.front())) continue;
      out.push_back({p.gpu_ids.front(), 0, p.id});
    }
  // The towers: a recommendation among the discrete GPUs.
  std::vector<GpuSpec> discrete;
  for (const auto& g : gpus)
    if (!g.unified_memory) discrete.push_back(g);
  PlanRequest r = base;
  r.gpu.reset();
  r.candidates = &discrete;
  r.gpus_requested = 0;
  r.platform_override.clear();
  r.serving.reset();
  r.users = 0;
  r.target_tokens_per_s = 0;
  const Plan p = plan(r);
  auto add = [&](const GpuOption& o) {
    for (const auto& s : out)
      if (s.gpu_id == o.plan.gpu.id && s.count == o.plan.count) return;
    out.push_back({o.plan.gpu.id, o.plan.count, ""});
  };
  if (!p.options.empty()) add(p.options.front());
  if (!p.fewest.empty()) add(p.fewest.front());
  return out;
}

std::vector<Comparison> compare_systems(const PlanRequest& base,
                                        const std::vector<CompareSystem>& systems) {
  std::vector<Comparison> out;
  for (const auto& s : systems) {
    const GpuSpec* g = find_gpu(*base.candidates, s.gpu_id);
    if (!g) continue;
    PlanRequest r = base;
    r.gpu = *g;
    r.gpus_requested = s.count;
    r.platform_override = s.platform_id;
    Comparison c;
    c.system = s;
    c.plan = plan(r);
    c.unified = g->unified_memory;
    if (c.plan.gpu) {
      // A unified computer's usable share is its platform's (system_plan.cpp) when one is chosen.
      const uint64_t each = c.plan.system && c.plan.system->platform
                                ? c.plan.system->gpu_usable_bytes
                                : c.plan.gpu->gpu.usable_bytes();
      c.usable_bytes_total = checked_mul(each, c.plan.gpu->count);
    }
    if (c.plan.system && c.plan.system->platform)
      c.idle_wall_w_total = c.plan.system->typical.idle_wall_w * c.plan.system->choice.nodes;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace llmsize
