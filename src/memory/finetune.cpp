#include "llmsize/memory/finetune.hpp"

#include <algorithm>

#include "llmsize/gpu.hpp"
#include "llmsize/model/tensors.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

TrainMemory train_memory(const ModelSpec& m, uint64_t params, const TrainConfig& c) {
  TrainMemory t;
  const auto tensors = model_tensors(m);
  uint64_t linear = 0, lora = 0;
  for (const auto& x : tensors) {
    if (x.bias || x.n_dims < 2 || x.role == TensorRole::token_embd ||
        x.role == TensorRole::output || x.role == TensorRole::ffn_gate_inp)
      continue;
    linear += x.n_elements();
    lora += uint64_t{c.lora_rank} * (x.ne[0] + x.ne[1]) * x.ne[2];
  }
  const uint64_t other = params - linear;
  switch (c.mode) {
    case TrainMode::full:
      t.trainable_params = params;
      t.weights_bytes = checked_mul(params, 2);
      t.gradients_bytes = checked_mul(params, 2);
      t.optimizer_bytes = checked_mul(params, c.optimizer == Optimizer::adamw ? 12 : 6);
      break;
    case TrainMode::lora:
    case TrainMode::qlora: {
      t.trainable_params = lora;
      const uint64_t frozen = c.mode == TrainMode::lora
                                  ? checked_mul(params, 2)
                                  : linear / 64 * 33 + linear % 64 + checked_mul(other, 2);
      // QLoRA NF4: 4 bits + 8-bit absmax per 64 + FP32 absmax-of-absmax per 256 blocks ~= 33 B
      // per 64.
      t.weights_bytes = frozen + lora * 4;
      t.gradients_bytes = lora * 4;
      t.optimizer_bytes = lora * (c.optimizer == Optimizer::adamw ? 8 : 2);
      break;
    }
  }
  const uint64_t sbh = uint64_t{c.seq} * c.batch * m.n_embd;
  const uint64_t logits = uint64_t{c.seq} * c.batch * m.n_vocab * 4 * 2;
  if (c.checkpointing) {
    t.activations_bytes = checked_mul(sbh * 2, m.n_layer) + sbh * 34 + logits;
    t.activation_formula =
        "2 x seq x batch x n_embd x n_layer (checkpoints) + 34 x seq x batch x n_embd (one layer) "
        "+ logits";
  } else {
    t.activations_bytes = checked_mul(sbh * 34, m.n_layer) + logits;
    t.activation_formula = "34 x seq x batch x n_embd x n_layer + logits";
  }
  return t;
}

uint64_t fsdp_per_gpu_bytes(const TrainMemory& t, uint64_t overhead_per_gpu_bytes, double headroom,
                            uint32_t n) {
  const uint64_t shardable =
      checked_add(checked_add(t.weights_bytes, t.gradients_bytes), t.optimizer_bytes);
  const uint64_t per_gpu = checked_add(t.activations_bytes, overhead_per_gpu_bytes);
  const uint64_t shard = n ? shardable / n + (shardable % n != 0) : shardable;
  return fraction_of(checked_add(shard, per_gpu), 1 + headroom);
}

uint32_t fsdp_gpus(const TrainMemory& t, uint64_t overhead_per_gpu_bytes, double headroom,
                   uint64_t usable_each) {
  for (uint32_t n = 1; n <= kMaxGpus; ++n)
    if (fsdp_per_gpu_bytes(t, overhead_per_gpu_bytes, headroom, n) <= usable_each) return n;
  return 0;
}

uint32_t training_gpu_count(uint32_t n, uint32_t gpus_per_node) {
  const uint32_t gpn = std::max<uint32_t>(1, gpus_per_node);
  if (n == 0) return 0;
  if (n > gpn) return (n + gpn - 1) / gpn * gpn;
  uint32_t p = 1;
  while (p < n) p *= 2;
  return std::min(p, gpn);
}

}  // namespace llmsize
