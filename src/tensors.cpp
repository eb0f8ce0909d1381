#include "llmsize/tensors.hpp"

#include <cstdio>

namespace llmsize {
namespace {

const char* const kRoleNames[] = {
    "token_embd",    "output_norm",    "output",         "attn_norm",          "attn_norm_2",
    "attn_q",        "attn_k",         "attn_v",         "attn_qkv",           "attn_output",
    "attn_q_norm",   "attn_k_norm",    "attn_post_norm", "attn_q_a",           "attn_q_a_norm",
    "attn_q_b",      "attn_kv_a_mqa",  "attn_kv_a_norm", "attn_kv_b",          "ffn_norm",
    "ffn_post_norm", "ffn_gate",       "ffn_up",         "ffn_down",           "ffn_gate_inp",
    "ffn_gate_exps", "ffn_up_exps",    "ffn_down_exps",  "ffn_gate_inp_shexp", "ffn_gate_shexp",
    "ffn_up_shexp",  "ffn_down_shexp", "exp_probs_b",    "position_embd",
};
static_assert(sizeof(kRoleNames) / sizeof(kRoleNames[0]) ==
                  static_cast<size_t>(TensorRole::position_embd) + 1,
              "one name per role");

class Builder {
 public:
  explicit Builder(std::vector<TensorDesc>& out) : out_(out) {}
  void at(int32_t layer) { layer_ = layer; }
  void t1(TensorRole r, uint64_t n0, bool bias = false) {
    out_.push_back({r, bias, layer_, {n0, 1, 1}, 1});
  }
  void t2(TensorRole r, uint64_t n0, uint64_t n1) {
    out_.push_back({r, false, layer_, {n0, n1, 1}, 2});
  }
  void t3(TensorRole r, uint64_t n0, uint64_t n1, uint64_t n2) {
    out_.push_back({r, false, layer_, {n0, n1, n2}, 3});
  }

 private:
  std::vector<TensorDesc>& out_;
  int32_t layer_ = -1;
};

using R = TensorRole;

}  // namespace

const char* role_name(TensorRole r) {
  return kRoleNames[static_cast<size_t>(r)];
}

std::string TensorDesc::name() const {
  std::string s;
  if (layer >= 0) s = "blk." + std::to_string(layer) + ".";
  s += role_name(role);
  // exp_probs_b is stored as "blk.N.exp_probs_b.bias" by convert_hf_to_gguf.py.
  s += (bias || role == R::ffn_exp_probs_b) ? ".bias" : ".weight";
  return s;
}

// Shapes from llama.cpp src/llama-model.cpp (llama_model::load_tensors), per architecture.
std::vector<TensorDesc> model_tensors(const ModelSpec& m) {
  std::vector<TensorDesc> v;
  v.reserve(16 + size_t{m.n_layer} * 20);
  Builder b(v);
  const uint64_t n_embd = m.n_embd;
  const uint64_t n_q = uint64_t{m.n_head} * m.n_embd_head_k;
  const uint64_t n_kq_out = uint64_t{m.n_head} * m.n_embd_head_v;
  const uint64_t n_k = uint64_t{m.n_head_kv} * m.n_embd_head_k;
  const uint64_t n_v = uint64_t{m.n_head_kv} * m.n_embd_head_v;
  const bool falcon = m.arch == Arch::falcon;
  // GPTBigCode (llama.cpp LLM_ARCH_STARCODER): LayerNorms and every linear layer carry biases.
  const bool starcoder = m.arch == Arch::starcoder;

  b.at(-1);
  if (starcoder) {
    // llama-model.cpp LLM_ARCH_STARCODER: tok + learned position embeddings, biased LayerNorms,
    // fused QKV (MQA), GELU MLP, every linear layer with a bias.
    b.t2(R::token_embd, n_embd, m.n_vocab);
    b.t2(R::position_embd, n_embd, m.n_ctx_train);
    b.t1(R::output_norm, n_embd);
    b.t1(R::output_norm, n_embd, true);
    if (!m.tied_embeddings) b.t2(R::output, n_embd, m.n_vocab);
    for (uint32_t il = 0; il < m.n_layer; ++il) {
      b.at(static_cast<int32_t>(il));
      b.t1(R::attn_norm, n_embd);
      b.t1(R::attn_norm, n_embd, true);
      b.t2(R::attn_qkv, n_embd, n_q + n_k + n_v);
      b.t1(R::attn_qkv, n_q + n_k + n_v, true);
      b.t2(R::attn_output, n_kq_out, n_embd);
      b.t1(R::attn_output, n_embd, true);
      b.t1(R::ffn_norm, n_embd);
      b.t1(R::ffn_norm, n_embd, true);
      b.t2(R::ffn_up, n_embd, m.n_ff);
      b.t1(R::ffn_up, m.n_ff, true);
      b.t2(R::ffn_down, m.n_ff, n_embd);
      b.t1(R::ffn_down, n_embd, true);
    }
    return v;
  }
  b.t2(R::token_embd, n_embd, m.n_vocab);
  b.t1(R::output_norm, n_embd);
  if (falcon) b.t1(R::output_norm, n_embd, true);
  if (!m.tied_embeddings) b.t2(R::output, n_embd, m.n_vocab);

  for (uint32_t il = 0; il < m.n_layer; ++il) {
    b.at(static_cast<int32_t>(il));
    b.t1(R::attn_norm, n_embd);
    if (falcon) {
      b.t1(R::attn_norm, n_embd, true);
      b.t1(R::attn_norm_2, n_embd);
      b.t1(R::attn_norm_2, n_embd, true);
    }
    // Attention.
    if (m.is_mla()) {
      const uint64_t n_nope = m.n_embd_head_k - m.n_rot;
      if (m.q_lora_rank > 0) {
        b.t2(R::attn_q_a, n_embd, m.q_lora_rank);
        b.t1(R::attn_q_a_norm, m.q_lora_rank);
        b.t2(R::attn_q_b, m.q_lora_rank, n_q);
      } else {
        b.t2(R::attn_q, n_embd, n_q);
      }
      b.t2(R::attn_kv_a_mqa, n_embd, uint64_t{m.kv_lora_rank} + m.n_rot);
      b.t1(R::attn_kv_a_norm, m.kv_lora_rank);
      b.t2(R::attn_kv_b, m.kv_lora_rank, uint64_t{m.n_head} * (n_nope + m.n_embd_head_v));
    } else if (m.arch == Arch::phi3 || falcon) {
      b.t2(R::attn_qkv, n_embd, n_q + n_k + n_v);
    } else {
      b.t2(R::attn_q, n_embd, n_q);
      b.t2(R::attn_k, n_embd, n_k);
      b.t2(R::attn_v, n_embd, n_v);
      if (m.qkv_bias) {
        b.t1(R::attn_q, n_q, true);
        b.t1(R::attn_k, n_k, true);
        b.t1(R::attn_v, n_v, true);
      }
    }
    b.t2(R::attn_output, n_kq_out, n_embd);
    if (m.arch == Arch::qwen3 || m.arch == Arch::qwen3moe || m.arch == Arch::gemma3) {
      b.t1(R::attn_q_norm, m.n_embd_head_k);
      b.t1(R::attn_k_norm, m.n_embd_head_k);
    }
    if (m.arch == Arch::gemma2 || m.arch == Arch::gemma3) b.t1(R::attn_post_norm, n_embd);

    // Feed-forward. command-r and falcon run it in parallel with attention on the same norm.
    if (m.arch != Arch::command_r && !falcon) b.t1(R::ffn_norm, n_embd);
    if (m.is_moe_layer(il)) {
      b.t2(R::ffn_gate_inp, n_embd, m.n_expert);
      if (m.arch == Arch::deepseek2) b.t1(R::ffn_exp_probs_b, m.n_expert);
      b.t3(R::ffn_gate_exps, n_embd, m.n_ff_exp, m.n_expert);
      b.t3(R::ffn_down_exps, m.n_ff_exp, n_embd, m.n_expert);
      b.t3(R::ffn_up_exps, n_embd, m.n_ff_exp, m.n_expert);
      if (m.n_ff_shexp > 0) {
        if (m.arch == Arch::qwen2moe) b.t1(R::ffn_gate_inp_shexp, n_embd);
        b.t2(R::ffn_gate_shexp, n_embd, m.n_ff_shexp);
        b.t2(R::ffn_down_shexp, m.n_ff_shexp, n_embd);
        b.t2(R::ffn_up_shexp, n_embd, m.n_ff_shexp);
      }
    } else if (m.arch == Arch::phi3) {
      b.t2(R::ffn_down, m.n_ff, n_embd);
      b.t2(R::ffn_up, n_embd, 2 * uint64_t{m.n_ff});  // gate and up fused
    } else if (falcon) {
      b.t2(R::ffn_up, n_embd, m.n_ff);
      b.t2(R::ffn_down, m.n_ff, n_embd);
    } else {
      b.t2(R::ffn_gate, n_embd, m.n_ff);
      b.t2(R::ffn_down, m.n_ff, n_embd);
      b.t2(R::ffn_up, n_embd, m.n_ff);
    }
    if (m.arch == Arch::gemma2 || m.arch == Arch::gemma3) b.t1(R::ffn_post_norm, n_embd);
  }
  return v;
}

ParamCount count_params(const ModelSpec& m, const std::vector<TensorDesc>& tensors) {
  ParamCount p;
  for (const auto& t : tensors) {
    const uint64_t n = t.n_elements();
    p.total = checked_add(p.total, n, "parameter count");
    const bool routed =
        t.role == R::ffn_gate_exps || t.role == R::ffn_up_exps || t.role == R::ffn_down_exps;
    p.active = checked_add(p.active, routed && m.n_expert ? n / m.n_expert * m.n_expert_used : n,
                           "active parameters");
    if (t.role == R::token_embd) p.token_embd = n;
  }
  return p;
}

}  // namespace llmsize
