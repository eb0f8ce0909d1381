// The tensors of a model, shape by shape, named as llama.cpp names them in a GGUF file.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "llmsize/checked.hpp"
#include "llmsize/model_spec.hpp"

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
};

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

// Every tensor llama.cpp loads for this architecture, in block order.
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
