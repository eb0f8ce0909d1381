// A model's architecture in llama.cpp's terms (n_layer, n_embd, n_head_kv, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmsize {

// Architectures whose tensor layout llmsize knows; names are llama.cpp's LLM_ARCH names.
enum class Arch {
  llama,
  qwen2,
  qwen2moe,
  qwen3,
  qwen3moe,
  gemma2,
  gemma3,
  phi3,
  deepseek2,
  command_r,
  falcon,
  starcoder,  // GPTBigCode (StarCoder, OctoCoder): learned positions, MQA, GELU MLP
};

const char* arch_name(Arch a);
std::optional<Arch> arch_from_name(std::string_view name);
const std::vector<Arch>& all_archs();

struct ModelSpec {
  std::string id;    // catalog id, or empty for a file
  std::string name;  // display name
  Arch arch = Arch::llama;

  uint32_t n_layer = 0;
  uint32_t n_embd = 0;
  uint32_t n_ff = 0;  // dense FFN width (the leading dense layers of an MoE)
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;
  // KV heads layer by layer when they vary (a GGUF's per-layer attention.head_count_kv, llama.cpp
  // hparams.n_head_kv(il)); empty when every layer has n_head_kv, which is then the largest.
  std::vector<uint32_t> n_head_kv_per_layer;
  uint32_t n_embd_head_k = 0;  // per-head K width (head_dim); MLA: qk_nope + qk_rope
  uint32_t n_embd_head_v = 0;  // per-head V width; MLA: v_head_dim
  uint32_t n_vocab = 0;
  uint32_t n_ctx_train = 0;
  bool tied_embeddings = false;  // output projection shares token_embd
  bool qkv_bias = false;         // attn_q/k/v carry biases (qwen2)

  // Mixture of experts. n_expert == 0 for a dense model.
  uint32_t n_expert = 0;
  uint32_t n_expert_used = 0;
  uint32_t n_expert_shared = 0;  // shared experts per MoE layer
  uint32_t n_ff_exp = 0;         // FFN width of one routed expert
  uint32_t n_ff_shexp = 0;       // FFN width of the shared expert block (all shared experts)
  uint32_t n_layer_dense_lead =
      0;  // leading layers with a dense FFN (deepseek first_k_dense_replace)

  // Sliding-window attention. n_swa == 0: none. swa_pattern p: layer il uses the window when
  // il % p < p - 1 (llama.cpp hparams.set_swa_pattern); p == 1 means every layer.
  uint32_t n_swa = 0;
  uint32_t swa_pattern = 0;

  // Multi-head latent attention (DeepSeek-V2/V3). kv_lora_rank == 0: not MLA.
  uint32_t q_lora_rank = 0;
  uint32_t kv_lora_rank = 0;
  uint32_t n_rot = 0;  // qk_rope_head_dim for MLA

  uint64_t params_official = 0;  // published parameter count, 0 = unknown
  std::string params_source;

  bool is_moe() const { return n_expert > 1; }
  bool is_mla() const { return kv_lora_rank > 0; }
  uint32_t n_gqa() const { return n_head_kv ? n_head / n_head_kv : 0; }
  bool is_swa_layer(uint32_t il) const {
    return n_swa > 0 && swa_pattern > 0 && (swa_pattern == 1 || il % swa_pattern < swa_pattern - 1);
  }
  bool is_moe_layer(uint32_t il) const { return is_moe() && il >= n_layer_dense_lead; }
  // K and V elements cached per token per layer (llama.cpp n_embd_k_gqa / n_embd_v_gqa).
  // MLA caches the compressed latent plus the rope part in K, and no separate V.
  uint64_t n_embd_k_gqa() const;
  uint64_t n_embd_v_gqa() const;
};

// Problems with a spec, each naming the field ("n_head (32) is not divisible by n_head_kv (5)").
std::vector<std::string> validate(const ModelSpec& m);

}  // namespace llmsize
