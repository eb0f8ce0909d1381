// Capacity planning (how many GPUs for N users at T tokens/s each) and offload (what spills to
// system RAM when the GPUs are too few).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "llmsize/gpu.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/serving/speed.hpp"

namespace llmsize {

// What bounds a capacity plan, or why none is reachable (worded by src/cli/render/words.cpp).
enum class CapacityLimit : uint8_t {
  memory,        // the GPUs needed to hold the users' KV caches
  speed,         // more GPUs than memory needs, to reach the per-user target
  no_tp_degree,  // no tensor-parallel degree up to max_tp_degree holds model and KV cache
  too_slow       // one sequence is already slower than the target (bandwidth bound)
};

struct CapacityPlan {
  uint32_t users = 0;
  double target_tokens_per_s = 0;
  uint32_t tp_degree = 0;  // GPUs per replica (tensor parallel)
  uint32_t replicas = 0;   // independent copies of the model, users split evenly
  uint32_t gpus = 0;       // tp_degree x replicas; 0 = not reachable with this GPU
  uint32_t users_per_replica = 0;
  double per_user_tokens_per_s = 0;
  uint64_t per_gpu_bytes = 0;
  CapacityLimit limited_by = CapacityLimit::memory;
  uint32_t max_tp_degree = 0;  // the largest degree tried (for no_tp_degree)
};

// Smallest tp_degree x replicas of `gpu` such that each replica holds its users' KV caches at
// n_ctx and decodes them all at >= target tokens/s per user. Degrees divide the heads and stay in
// one node (<= 8); replicas scale out.
CapacityPlan plan_capacity(const ModelSpec& m, const RunConfig& base, const GpuSpec& gpu,
                           uint32_t users, double target_tokens_per_s,
                           const Weights* exact_weights = nullptr);

struct Offload {
  uint32_t n_layer_gpu = 0;
  uint32_t n_layer_cpu = 0;
  uint64_t ram_bytes = 0;  // weights and KV of the CPU layers
  // A MoE model's routed experts of the first n_cpu_moe blocks in RAM (llama.cpp --n-cpu-moe),
  // expert_ram_bytes of them, instead of or before whole layers: attention, KV and the shared
  // weights stay on the GPUs.
  uint32_t n_cpu_moe = 0;
  uint64_t expert_ram_bytes = 0;
  // Read from RAM per generated token, and copied to the GPU per prompt micro-batch (op
  // offload: each weight a batch's matmul runs on the GPU with, speed.hpp).
  uint64_t ram_read_bytes_per_token = 0;
  uint64_t copy_bytes_per_ubatch = 0;
};

// With n_gpus that cannot hold everything: how many whole layers (weights + KV) fit on the GPUs
// after each keeps its compute buffer, overhead and headroom; the rest run from system RAM
// (llama.cpp -ngl).
Offload plan_offload(const ModelSpec& m, const Estimate& e, const RunConfig& c,
                     uint64_t usable_each, uint32_t n_gpus);

// A MoE model under llama.cpp that n_gpus cannot hold: the fewest first blocks whose routed
// experts, kept in RAM (--n-cpu-moe), leave the rest (attention, KV, shared weights, the copy
// buffer) on the GPUs with the headroom; nullopt when even every block's experts do not.
std::optional<Offload> plan_expert_offload(const ModelSpec& m, const RunConfig& c,
                                           const Weights* exact, uint64_t usable_each,
                                           uint32_t n_gpus);

// The fewest first blocks (0 to all) whose routed experts in RAM let n_gpus of usable_each hold a
// llama.cpp MoE GGUF with the headroom, and the estimate of that placement; nullopt when even every
// block's do not, or the model is not one. `zero_tried`: the caller knows 0 does not hold.
struct ExpertBlocks {
  uint32_t blocks = 0;
  Estimate estimate;
};
std::optional<ExpertBlocks> fewest_expert_blocks(const ModelSpec& m, const RunConfig& c,
                                                 const Weights* exact, uint64_t usable_each,
                                                 uint32_t n_gpus, bool zero_tried = false);

// The Offload an estimate's own --n-cpu-moe placement describes (Estimate::cpu_experts), added to
// `layers` (plan_offload's, when the GPUs do not hold even the rest; else none).
Offload expert_offload(const ModelSpec& m, const Estimate& e, Offload layers = Offload());

}  // namespace llmsize
