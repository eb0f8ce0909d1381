// Memory for fine-tuning: weights, gradients, optimizer states and activations.
#pragma once

#include <cstdint>
#include <string>

#include "llmsize/checked.hpp"
#include "llmsize/model/model_spec.hpp"

namespace llmsize {

enum class TrainMode { lora, qlora, full };
enum class Optimizer { adamw, adamw_8bit };

struct TrainConfig {
  TrainMode mode = TrainMode::lora;
  Optimizer optimizer = Optimizer::adamw;
  uint32_t seq = 2048;
  uint32_t batch = 1;  // micro-batch per GPU
  uint32_t lora_rank = 16;
  bool checkpointing = true;  // activation (gradient) checkpointing
};

struct TrainMemory {
  uint64_t trainable_params = 0;
  uint64_t weights_bytes = 0;  // frozen + trainable weights as held on the GPU
  uint64_t gradients_bytes = 0;
  uint64_t optimizer_bytes = 0;  // Adam moments (+ FP32 master weights for full fine-tuning)
  uint64_t activations_bytes = 0;
  uint64_t total_bytes() const {
    return checked_add(checked_add(checked_add(weights_bytes, gradients_bytes, "fine-tuning bytes"),
                                   optimizer_bytes, "fine-tuning bytes"),
                       activations_bytes, "fine-tuning bytes");
  }
  std::string activation_formula;
};

// Weights: BF16 (2 B/param) for LoRA and full; QLoRA keeps linear layers in NF4 with double
//   quantization, 4 + 8/64 + 32/(64 x 256) = 4.127 bits (QLoRA paper, Dettmers et al. 2023).
// LoRA adapters: rank x (d_in + d_out) for every linear layer, trained in FP32: 4 B weight + 4 B
//   gradient + 8 B Adam moments.
// Full: BF16 weights and gradients (2 + 2 B) + FP32 master copy (4 B) + Adam moments (8 B, or
//   2 B with 8-bit Adam) = 16 B/param (ZeRO paper, Rajbhandari et al. 2020: 16 B/param).
// Activations per layer (Korthikanti et al. 2022, "Reducing Activation Recomputation", BF16, flash
//   attention so no s^2 term): 34 x seq x batch x n_embd bytes; with checkpointing only each
//   layer's input (2 x seq x batch x n_embd) is kept plus one layer recomputed. Logits: seq x batch
//   x n_vocab x 4 B x 2 (FP32 logits and their gradient).
TrainMemory train_memory(const ModelSpec& m, uint64_t params, const TrainConfig& c);

// FSDP / ZeRO-3 shards weights, gradients and optimizer states over the GPUs; activations and the
// runtime overhead stay per GPU: the smallest n up to 1024 with
//   (shardable / n + activations + overhead) x (1 + headroom) <= usable_each.
// 0 when none.
uint32_t fsdp_gpus(const TrainMemory& t, uint64_t overhead_per_gpu_bytes, double headroom,
                   uint64_t usable_each);
// What each of n GPUs holds under that sharding, headroom included:
//   (ceil(shardable / n) + activations + overhead) x (1 + headroom).
uint64_t fsdp_per_gpu_bytes(const TrainMemory& t, uint64_t overhead_per_gpu_bytes, double headroom,
                            uint32_t n);
// The GPUs a training job of `n` is bought as: data-parallel ranks come in powers of two inside a
// machine (1, 2, 4, 8: the sizes torchrun's and DeepSpeed's launchers are given, and HGX boards
// are sold in 4 and 8), up to `gpus_per_node`; past one machine, whole machines
// (19 GPUs on 8-GPU nodes: 24). 0 stays 0.
uint32_t training_gpu_count(uint32_t n, uint32_t gpus_per_node);

}  // namespace llmsize
