// Capacity planning (how many GPUs for N users at T tokens/s each) and offload (what spills to
// system RAM when the GPUs are too few).
#pragma once

#include <cstdint>
#include <string>

#include "llmsize/estimate.hpp"
#include "llmsize/gpu.hpp"
#include "llmsize/speed.hpp"

namespace llmsize {

struct CapacityPlan {
  uint32_t users = 0;
  double target_tokens_per_s = 0;
  uint32_t tp_degree = 0;  // GPUs per replica (tensor parallel)
  uint32_t replicas = 0;   // independent copies of the model, users split evenly
  uint32_t gpus = 0;       // tp_degree x replicas; 0 = not reachable with this GPU
  uint32_t users_per_replica = 0;
  double per_user_tokens_per_s = 0;
  uint64_t per_gpu_bytes = 0;
  std::string limited_by;  // "memory", "speed" or why it is unreachable
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
};

// With n_gpus that cannot hold everything: how many whole layers (weights + KV) fit on the GPUs
// after each keeps its compute buffer, overhead and headroom; the rest run from system RAM
// (llama.cpp -ngl).
Offload plan_offload(const ModelSpec& m, const Estimate& e, const RunConfig& c,
                     uint64_t usable_each, uint32_t n_gpus);

}  // namespace llmsize
