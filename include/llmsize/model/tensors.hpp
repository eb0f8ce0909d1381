// The tensors of a model, shape by shape, named as llama.cpp names them in a GGUF file.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llmsize/checked.hpp"
#include "llmsize/model/model_spec.hpp"

namespace llmsize {

// What a tensor is for; names follow llama.cpp's LLM_TENSOR_NAMES ("attn_q", "ffn_down_exps").
enum class TensorRole : uint8_t {
  token_embd,
  output_norm,
  output,
  attn_norm,
  attn_norm_2,
  attn_q,
  attn_k,
  attn_v,
  attn_qkv,
  attn_output,
  attn_q_norm,
  attn_k_norm,
  attn_post_norm,
  attn_q_a,
  attn_q_a_norm,
  attn_q_b,
  attn_kv_a_mqa,
  attn_kv_a_norm,
  attn_kv_b,
  ffn_norm,
  ffn_post_norm,
  ffn_gate,
  ffn_up,
  ffn_down,
  ffn_gate_inp,
  ffn_gate_exps,
  ffn_up_exps,
  ffn_down_exps,
  ffn_gate_inp_shexp,
  ffn_gate_shexp,
  ffn_up_shexp,
  ffn_down_shexp,
  ffn_exp_probs_b,
  position_embd,  // learned absolute positions (starcoder)
  // 2025-2026 tensors (llama.cpp src/llama-arch.cpp LLM_TENSOR_NAMES at commit 00395eb2).
  attn_sinks,  // gpt-oss: one learned sink logit per head
  attn_gate,   // Qwen3.5 delta-net output gate (z)
  ssm_in,      // Mamba2 in_proj; Qwen3-Next delta-net qkvz projection
  ssm_conv1d,  // kept F32 by llama-quantize
  ssm_dt,      // stored as ".bias"
  ssm_a,       // no ".weight" suffix
  ssm_d,       // no ".weight" suffix
  ssm_norm,
  ssm_out,
  ssm_ba,          // Qwen3-Next beta/alpha projection
  ssm_beta,        // Qwen3.5 beta projection
  ssm_alpha,       // Qwen3.5 alpha projection
  shortconv_conv,  // LFM2, kept F32 by llama-quantize
  shortconv_in_proj,
  shortconv_out_proj,
  token_embd_norm,  // LFM2's final norm (llama.cpp LLM_TENSOR_OUTPUT_NORM_LFM2)
  indexer_k_norm,   // DSA lightning indexer (DeepSeek-V3.2, GLM-5)
  indexer_proj,
  indexer_attn_k,
  indexer_attn_q_b,
  nextn_eh_proj,  // MTP / next-n prediction layers
  nextn_enorm,
  nextn_hnorm,
  nextn_shared_head_norm,
  nextn_embed_tokens,  // the MTP layer's own copies of token_embd and output (GLM-4.5 family)
  nextn_shared_head_head,
  per_layer_token_embd,  // Gemma 3n/4 per-layer embeddings
  per_layer_model_proj,
  per_layer_proj_norm,
  per_layer_inp_gate,
  per_layer_proj,
  per_layer_post_norm,
  rope_freqs,        // Gemma 4 proportional rope factors, one tensor shared by global layers
  ffn_gate_up_exps,  // Gemma 4 MoE: gate and up fused
  ffn_pre_norm_2,    // Gemma 4 MoE norms
  ffn_post_norm_1,
  ffn_post_norm_2,
  // DeepSeek-V4 (llama.cpp src/models/deepseek4.cpp load_arch_tensors; names after the
  // LLM_TENSOR_* enum): shared-KV projection, grouped low-rank output, hyper-connection mixers,
  // KV and indexer compressors, hash-routing table.
  attn_kv,
  attn_kv_norm,
  attn_out_a,
  attn_out_b,
  hc_attn_fn,
  hc_attn_base,
  hc_attn_scale,
  hc_ffn_fn,
  hc_ffn_base,
  hc_ffn_scale,
  hc_head_fn,
  hc_head_base,
  hc_head_scale,
  attn_comp_wkv,
  attn_comp_wgate,
  attn_comp_ape,
  attn_comp_norm,
  indexer_comp_wkv,
  indexer_comp_wgate,
  indexer_comp_ape,
  indexer_comp_norm,
  ffn_gate_tid2eid,
  // BERT / XLM-RoBERTa encoders (llama.cpp LLM_TENSOR_TOKEN_TYPES, ATTN_OUT_NORM, LAYER_OUT_NORM,
  // CLS, CLS_OUT).
  token_types,
  attn_output_norm,
  layer_output_norm,
  cls,
  cls_output,
  // Gemma 3n AltUp and LAuReL (llama.cpp LLM_TENSOR_ALTUP_* / LAUREL_*).
  altup_proj,
  altup_unembd_proj,
  altup_correct_coef,
  altup_correct_scale,
  altup_predict_coef,
  altup_router,
  altup_router_norm,
  laurel_l,
  laurel_r,
  laurel_post_norm,
  // MLA's kv_b expansion as llama.cpp stores it, split and absorbed (LLM_TENSOR_ATTN_K_B / V_B).
  attn_k_b,
  attn_v_b,
  // Gemma 4: the per-layer output scalar, the router's input scale, the per-expert output scale.
  layer_output_scale,
  ffn_gate_inp_scale,
  ffn_down_exps_scale,
  ffn_pre_norm,  // Falcon-H1's FFN norm, stored as "blk.N.ffn_norm" without ".weight"
};

// Routed-expert tensors: read n_expert_used of n_expert per token.
bool is_routed_expert(TensorRole r);

// The tensors llama.cpp's --n-cpu-moe keeps in system RAM (LLM_FFN_EXPS_REGEX, estimate.hpp
// ExpertBlock): the routed experts, their biases and Gemma 4's ffn_down_exps.scale.
inline bool moved_by_cpu_moe(TensorRole r) {
  return is_routed_expert(r) || r == TensorRole::ffn_down_exps_scale;
}
// The same by GGUF tensor name: a search for ".ffn_" + up|down|gate|gate_up + "_" + ch|"" +
// "exps", as std::regex_search does with the pattern.
bool moved_by_cpu_moe(std::string_view gguf_name);

const char* role_name(TensorRole r);

struct TensorDesc {
  TensorRole role;
  bool bias = false;                    // "<name>.bias" rather than "<name>.weight"
  int32_t layer = -1;                   // block index, -1 for global tensors
  std::array<uint64_t, 3> ne{1, 1, 1};  // ggml order: ne[0] is the row length
  uint32_t n_dims = 1;

  uint64_t n_elements() const {
    return checked_mul(checked_mul(ne[0], ne[1], "tensor elements"), ne[2], "tensor elements");
  }
  // The GGUF name, e.g. "blk.3.attn_v.weight".
  std::string name() const;
};

// Every tensor llama.cpp loads for this architecture, in block order. Architectures with a
// per-layer description (m.layer_kinds) get each layer's tensors from its kind; MTP layers
// (n_layer_nextn) follow the main layers.
// REQUIRES: validate(m) is empty.
std::vector<TensorDesc> model_tensors(const ModelSpec& m);

// Parameter counts derived from the tensor shapes.
struct ParamCount {
  uint64_t total = 0;
  uint64_t active = 0;  // per token: routed experts counted n_expert_used times, not n_expert
  uint64_t token_embd = 0;
};
ParamCount count_params(const ModelSpec& m, const std::vector<TensorDesc>& tensors);

}  // namespace llmsize
