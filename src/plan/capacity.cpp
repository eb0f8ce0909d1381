#include "llmsize/plan/capacity.hpp"

#include <algorithm>

#include "llmsize/plan/gpu_plan.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

CapacityPlan plan_capacity(const ModelSpec& m, const RunConfig& base, const GpuSpec& gpu,
                           uint32_t users, double target, const Weights* exact_weights) {
  CapacityPlan best;
  best.users = users;
  best.target_tokens_per_s = target;
  const uint32_t max_tp = std::min<uint32_t>(8, max_gpus_per_node(gpu));
  const uint32_t t_min = tensor_parallel_degree(m, 1);
  uint32_t memory_only = 0;  // GPUs that hold all users in one replica, speed ignored
  for (uint32_t r = 1; r <= users && r <= 4096; ++r) {
    if (best.gpus && r * t_min >= best.gpus) break;  // more replicas cannot use fewer GPUs
    const uint32_t u = (users + r - 1) / r;
    RunConfig c = base;
    c.kv.n_seq = u;
    for (uint32_t t = t_min; t && t <= max_tp; t = tensor_parallel_degree(m, t + 1)) {
      if (best.gpus && t * r >= best.gpus) break;
      c.n_gpus = t;
      const Estimate e = estimate(m, c, exact_weights);
      const uint64_t each = per_gpu_bytes(e, c, t);
      if (each > gpu.usable_bytes()) continue;
      if (r == 1 && !memory_only) memory_only = t;
      SpeedInput in;
      in.n_gpus = t;
      in.tensor_parallel = true;
      in.n_seq = u;
      in.n_ctx = c.kv.n_ctx;
      const Speed s = estimate_speed(m, e, gpu, in);
      if (s.decode_tokens_per_s < target) continue;  // more GPUs per replica read faster
      best.tp_degree = t;
      best.replicas = r;
      best.gpus = t * r;
      best.users_per_replica = u;
      best.per_user_tokens_per_s = s.decode_tokens_per_s;
      best.per_gpu_bytes = each;
      break;
    }
  }
  best.max_tp_degree = max_tp;
  if (best.gpus)
    best.limited_by =
        !memory_only || best.gpus == memory_only ? CapacityLimit::memory : CapacityLimit::speed;
  else if (!memory_only && max_tp)
    best.limited_by = CapacityLimit::no_tp_degree;
  else
    best.limited_by = CapacityLimit::too_slow;
  return best;
}

Offload plan_offload(const ModelSpec& m, const Estimate& e, const RunConfig& c,
                     uint64_t usable_each, uint32_t n_gpus) {
  Offload o;
  const uint64_t fixed = checked_add(e.compute.bytes(), c.overhead_per_gpu_bytes);
  // Per GPU, (layers + fixed) x (1 + headroom) <= usable.
  const uint64_t budget_each =
      static_cast<uint64_t>(static_cast<double>(usable_each) / (1 + c.headroom));
  const uint64_t budget = budget_each > fixed ? checked_mul(budget_each - fixed, n_gpus) : 0;
  const uint64_t per_layer =
      checked_add(e.weights_bytes, e.kv_cache_bytes) / std::max<uint32_t>(1, m.n_layer);
  o.n_layer_gpu = per_layer
                      ? static_cast<uint32_t>(std::min<uint64_t>(m.n_layer, budget / per_layer))
                      : m.n_layer;
  o.n_layer_cpu = m.n_layer - o.n_layer_gpu;
  o.ram_bytes = checked_mul(per_layer, o.n_layer_cpu);
  // A prompt micro-batch runs the CPU layers' matmuls on the GPU, their weights copied in.
  if (e.ubatch_tokens >= kOpOffloadMinBatch)
    o.copy_bytes_per_ubatch = e.weights_bytes / std::max<uint32_t>(1, m.n_layer) * o.n_layer_cpu;
  return o;
}

Offload expert_offload(const ModelSpec& m, const Estimate& e, Offload layers) {
  Offload o = layers;
  if (!o.n_layer_cpu) o.n_layer_gpu = m.n_layer;
  o.n_cpu_moe = e.cpu_experts.n_blocks;
  o.expert_ram_bytes = e.cpu_experts.bytes;
  o.ram_read_bytes_per_token = e.cpu_experts.read_bytes_per_token;
  if (e.ubatch_tokens >= kOpOffloadMinBatch)
    o.copy_bytes_per_ubatch = checked_add(o.copy_bytes_per_ubatch, e.cpu_experts.bytes);
  return o;
}

std::optional<ExpertBlocks> fewest_expert_blocks(const ModelSpec& m, const RunConfig& c,
                                                 const Weights* exact, uint64_t usable_each,
                                                 uint32_t n_gpus, bool zero_tried) {
  if (!m.is_moe() || c.engine != Engine::llama_cpp || !c.quant->gguf) return std::nullopt;
  const uint32_t n = std::max<uint32_t>(1, n_gpus);
  // The weights once for every placement tried (estimate() would derive them each time).
  const Weights ws = exact
                         ? *exact
                         : compute_weights(m, *c.quant, engine_profile(c.engine).embeddings_on_host,
                                           loads_nextn(c));
  exact = &ws;
  RunConfig rc = c;
  rc.n_gpus = n;
  const auto holds = [&](uint32_t blocks, Estimate& out) {
    rc.n_cpu_moe = blocks;
    out = estimate(m, rc, exact);
    return per_gpu_bytes(out, rc, n) <= usable_each;
  };
  ExpertBlocks best;
  const uint32_t blocks = m.n_layer + m.n_layer_nextn;
  if (!holds(blocks, best.estimate)) return std::nullopt;
  best.blocks = blocks;
  if (!zero_tried) {
    Estimate t;
    if (holds(0, t)) return ExpertBlocks{0, std::move(t)};
  }
  // Moving more blocks' experts only frees memory (the copy buffer is one tensor, the same
  // size in every block of a uniform model): the fewest that hold, by bisection.
  uint32_t lo = 0, hi = blocks;  // lo does not hold, hi holds
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    Estimate t;
    if (holds(mid, t)) {
      hi = mid;
      best = {mid, std::move(t)};
    } else {
      lo = mid;
    }
  }
  return best;
}

std::optional<Offload> plan_expert_offload(const ModelSpec& m, const RunConfig& c,
                                           const Weights* exact, uint64_t usable_each,
                                           uint32_t n_gpus) {
  // Called when the GPUs do not hold the model as requested: no experts in RAM does not hold.
  auto f = fewest_expert_blocks(m, c, exact, usable_each, n_gpus, true);
  if (!f || !f->estimate.cpu_experts.bytes) return std::nullopt;
  return expert_offload(m, f->estimate);
}

}  // namespace llmsize
