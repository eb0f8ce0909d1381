#include "llmsize/serving/serving_capacity.hpp"

#include <algorithm>

namespace llmsize {
namespace {

struct ReplicaFit {
  uint32_t users = 0;  // the most users one replica carries meeting the target
  Limit binding = Limit::memory;
};

bool meets(const ServingEstimate& e, const CapacityTarget& t) {
  return meets_target(e, t);
}

// A TPOT target missed while the per-user speed target (if any) is met: the binding limit is tpot.
bool only_tpot_missed(const ServingEstimate& e, const CapacityTarget& t) {
  return t.tpot_slo_s > 0 && e.itl_at(t.slo_percentile) > t.tpot_slo_s &&
         !(t.per_user_tokens_per_s > 0 && e.per_user_tokens_per_s.value < t.per_user_tokens_per_s);
}

// Largest n with meets(n): per-user speed falls and TTFT grows with n, so bisect on [1, cap].
ReplicaFit replica_fit(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                       const Workload& w, const CapacityTarget& t) {
  ReplicaFit f;
  Workload one = w;
  one.rate_per_s = 0;
  one.users = 0;
  const ServingEstimate full = estimate_serving(m, g, d, one);  // as many as fit
  if (!full.fits) return f;
  const uint32_t cap = std::max<uint32_t>(1, full.concurrency);
  auto at = [&](uint32_t n) {
    Workload x = one;
    x.users = n;
    return estimate_serving(m, g, d, x);
  };
  const ServingEstimate first = at(1);
  if (!meets(first, t)) {
    f.binding = t.ttft_slo_s > 0 && first.ttft_at(t.slo_percentile) > t.ttft_slo_s ? Limit::ttft
                : only_tpot_missed(first, t)                                       ? Limit::tpot
                                             : first.step.bound;
    return f;
  }
  const uint32_t lo = largest_holding(1, cap, [&](uint32_t n) { return meets(at(n), t); });
  f.users = lo;
  if (lo == cap) {
    f.binding = full.concurrency < full.max_concurrency ? Limit::batch : Limit::memory;
  } else {
    const ServingEstimate next = at(lo + 1);
    if (t.ttft_slo_s > 0 && next.ttft_at(t.slo_percentile) > t.ttft_slo_s &&
        !(t.per_user_tokens_per_s > 0 &&
          next.per_user_tokens_per_s.value < t.per_user_tokens_per_s))
      f.binding = Limit::ttft;
    else if (only_tpot_missed(next, t))
      f.binding = Limit::tpot;
    else
      f.binding = next.step.bound;
  }
  return f;
}

}  // namespace

bool meets_target(const ServingEstimate& e, const CapacityTarget& t) {
  if (!e.fits || e.queued) return false;
  if (t.per_user_tokens_per_s > 0 && e.per_user_tokens_per_s.value < t.per_user_tokens_per_s)
    return false;
  if (t.ttft_slo_s > 0 && e.ttft_at(t.slo_percentile) > t.ttft_slo_s) return false;
  if (t.tpot_slo_s > 0 && e.itl_at(t.slo_percentile) > t.tpot_slo_s) return false;
  return true;
}

uint32_t spare_replicas_for(uint32_t spare_machines, uint32_t span, uint32_t per_node) {
  const uint32_t per_machine = span < per_node ? per_node / std::max<uint32_t>(1, span) : 1;
  return spare_machines * per_machine;
}

Deployment replica_deployment(const ServingModel& m, const ServingGpu& g, const Deployment& base,
                              uint32_t tp, uint32_t pp) {
  Deployment d = base;
  d.tp = tp;
  d.pp = pp;
  d.replicas = 1;
  d.limits = engine_limits(d.engine, g.memory_bytes, g.small_batch_defaults, tp, pp);
  if (d.memory_fraction_given > 0) d.limits.memory_fraction = d.memory_fraction_given;
  d.attention_dp = default_attention_dp(m, g, tp);
  return d;
}

bool default_attention_dp(const ServingModel& m, const ServingGpu& g, uint32_t tp) {
  // MoE on GPUs without NVLink: attention data parallel, experts split (no per-layer all-reduce
  // over PCIe); the same rule the calibration rows follow.
  return m.n_expert && tp > 1 && g.link == LinkKind::pcie;
}

bool valid_tp_heads(uint32_t n_head, uint32_t n_head_kv, uint32_t tp) {
  if (tp == 0 || n_head % tp) return false;
  const uint32_t kv = std::max<uint32_t>(1, n_head_kv);
  return kv % tp == 0 || tp % kv == 0;
}

bool valid_tp(const ServingModel& m, uint32_t tp) {
  return valid_tp_heads(m.n_head, m.n_head_kv, tp);
}

ServingCapacity plan_serving_capacity(const ServingModel& m, const ServingGpu& g,
                                      const Deployment& base, const Workload& w,
                                      const CapacityTarget& t) {
  ServingCapacity best;
  const uint32_t per_node = std::max<uint32_t>(1, g.gpus_per_node);
  Limit first_reason = Limit::memory;
  bool any_fit = false;
  const EngineProfile& prof = engine_profile(base.engine);
  // Layer-split engines (llama.cpp, Ollama, transformers) spread layers over GPUs: stages only.
  const bool layer_split = prof.default_split == SplitMode::layer;
  for (uint32_t pp = 1; pp <= 64; pp *= 2) {
    for (uint32_t tp = 1; tp <= (layer_split ? 1 : per_node); tp *= 2) {
      if (!valid_tp(m, tp) || tp * pp > t.max_gpus) continue;
      if (!layer_split && pp > 1 && tp < per_node && valid_tp(m, tp * 2))
        continue;  // fill a node with tp first
      if (pp > m.n_layer) continue;
      // The engine's own limits for this degree, except what the target overrides; slot engines
      // get one slot per user (-np / OLLAMA_NUM_PARALLEL): the KV pool bounds them.
      Deployment d = replica_deployment(m, g, base, tp, pp);
      if (prof.memory_rule == MemoryRule::fixed_slots) d.limits.max_num_seqs = 0;
      const EngineLimits& o = t.limits;
      if (o.max_num_seqs) d.limits.max_num_seqs = o.max_num_seqs;
      if (o.max_num_batched_tokens) d.limits.max_num_batched_tokens = o.max_num_batched_tokens;
      if (o.memory_fraction > 0) d.limits.memory_fraction = o.memory_fraction;
      const ReplicaFit f = replica_fit(m, g, d, w, t);
      if (!f.users) {
        if (!any_fit) first_reason = f.binding;
        continue;
      }
      if (!best.memory_min_gpus || tp * pp < best.memory_min_gpus) best.memory_min_gpus = tp * pp;
      any_fit = true;
      const uint32_t span = tp * pp;
      const uint32_t needed = (t.users + f.users - 1) / f.users;
      const uint32_t spare = spare_replicas_for(t.spare_machines, span, per_node);
      const uint32_t replicas = needed + spare;
      const uint64_t gpus = uint64_t{tp} * pp * replicas;
      if (gpus > t.max_gpus) continue;
      const uint32_t nodes = span >= per_node
                                 ? replicas * ((span + per_node - 1) / per_node)
                                 : (replicas + per_node / span - 1) / (per_node / span);
      const uint32_t headroom = needed * f.users - t.users;
      const bool better =
          !best.found || gpus < best.gpus || (gpus == best.gpus && nodes < best.nodes) ||
          (gpus == best.gpus && nodes == best.nodes && headroom > best.user_headroom);
      if (!better) continue;
      best.found = true;
      best.gpus = static_cast<uint32_t>(gpus);
      best.nodes = nodes;
      best.users_per_replica = f.users;
      best.user_headroom = headroom;
      best.binding = f.binding;
      best.replicas_needed = needed;
      best.spare_replicas = spare;
      d.replicas = replicas;
      best.deployment = d;
    }
  }
  if (best.found) {
    Workload x = w;
    x.rate_per_s = 0;
    x.users = t.users;
    best.estimate = estimate_serving(m, g, best.deployment, x);
    if (best.spare_replicas) {
      Deployment down = best.deployment;
      down.replicas = best.replicas_needed;
      best.degraded = estimate_serving(m, g, down, x);
      best.degraded_meets = meets_target(best.degraded, t);
    }
  } else {
    best.binding = first_reason;
  }
  return best;
}

}  // namespace llmsize
