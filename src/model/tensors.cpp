#include "llmsize/model/tensors.hpp"

#include <algorithm>
#include <cstdio>

#include "llmsize/model/layers.hpp"
#include "llmsize/units.hpp"

namespace llmsize {
namespace {

const char* const kRoleNames[] = {
    "token_embd",
    "output_norm",
    "output",
    "attn_norm",
    "attn_norm_2",
    "attn_q",
    "attn_k",
    "attn_v",
    "attn_qkv",
    "attn_output",
    "attn_q_norm",
    "attn_k_norm",
    "post_attention_norm",
    "attn_q_a",
    "attn_q_a_norm",
    "attn_q_b",
    "attn_kv_a_mqa",
    "attn_kv_a_norm",
    "attn_kv_b",
    "ffn_norm",
    "post_ffw_norm",
    "ffn_gate",
    "ffn_up",
    "ffn_down",
    "ffn_gate_inp",
    "ffn_gate_exps",
    "ffn_up_exps",
    "ffn_down_exps",
    "ffn_gate_inp_shexp",
    "ffn_gate_shexp",
    "ffn_up_shexp",
    "ffn_down_shexp",
    "exp_probs_b",
    "position_embd",
    "attn_sinks",
    "attn_gate",
    "ssm_in",
    "ssm_conv1d",
    "ssm_dt",
    "ssm_a",
    "ssm_d",
    "ssm_norm",
    "ssm_out",
    "ssm_ba",
    "ssm_beta",
    "ssm_alpha",
    "shortconv.conv",
    "shortconv.in_proj",
    "shortconv.out_proj",
    "token_embd_norm",
    "indexer.k_norm",
    "indexer.proj",
    "indexer.attn_k",
    "indexer.attn_q_b",
    "nextn.eh_proj",
    "nextn.enorm",
    "nextn.hnorm",
    "nextn.shared_head_norm",
    "nextn.embed_tokens",
    "nextn.shared_head_head",
    "per_layer_token_embd",
    "per_layer_model_proj",
    "per_layer_proj_norm",
    "inp_gate",
    "proj",
    "post_norm",
    "rope_freqs",
    "ffn_gate_up_exps",
    "pre_ffw_norm_2",
    "post_ffw_norm_1",
    "post_ffw_norm_2",
    "attn_kv",
    "attn_kv_norm",
    "attn_out_a",
    "attn_out_b",
    "hc_attn_fn",
    "hc_attn_base",
    "hc_attn_scale",
    "hc_ffn_fn",
    "hc_ffn_base",
    "hc_ffn_scale",
    "hc_head_fn",
    "hc_head_base",
    "hc_head_scale",
    "attn_comp_wkv",
    "attn_comp_wgate",
    "attn_comp_ape",
    "attn_comp_norm",
    "indexer_comp_wkv",
    "indexer_comp_wgate",
    "indexer_comp_ape",
    "indexer_comp_norm",
    "ffn_gate_tid2eid",
    "token_types",
    "attn_output_norm",
    "layer_output_norm",
    "cls",
    "cls.output",
    "altup_proj",
    "altup_unembd_proj",
    "altup_correct_coef",
    "altup_correct_scale",
    "altup_predict_coef",
    "altup_router",
    "altup_router_norm",
    "laurel_l",
    "laurel_r",
    "laurel_post_norm",
    "attn_k_b",
    "attn_v_b",
    "layer_output_scale",
    "ffn_gate_inp",   // ".scale"
    "ffn_down_exps",  // ".scale"
    "ffn_norm",       // no suffix
};
static_assert(sizeof(kRoleNames) / sizeof(kRoleNames[0]) ==
                  static_cast<size_t>(TensorRole::ffn_pre_norm) + 1,
              "one name per role");

using R = TensorRole;

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
  void t2b(TensorRole r, uint64_t n0, uint64_t n1) {  // a 2-D bias
    out_.push_back({r, true, layer_, {n0, n1, 1}, 2});
  }
  void t3(TensorRole r, uint64_t n0, uint64_t n1, uint64_t n2) {
    out_.push_back({r, false, layer_, {n0, n1, n2}, 3});
  }
  // A linear layer: its weight [n_in, n_out], then its bias [n_out] when `bias`.
  void linear(TensorRole r, uint64_t n_in, uint64_t n_out, bool bias) {
    t2(r, n_in, n_out);
    if (bias) t1(r, n_out, true);
  }
  // A norm over n: its scale, then its shift (a LayerNorm's bias) when `bias`.
  void norm(TensorRole r, uint64_t n, bool bias) {
    t1(r, n);
    if (bias) t1(r, n, true);
  }
  // A feed-forward block between n_embd and n_ff: gate (when gated), down and up, in llama.cpp's
  // load order; the dense MLP or the shared expert.
  void ffn(uint64_t n_embd, uint64_t n_ff, bool gated, bool shared_expert = false) {
    if (gated) t2(shared_expert ? R::ffn_gate_shexp : R::ffn_gate, n_embd, n_ff);
    t2(shared_expert ? R::ffn_down_shexp : R::ffn_down, n_ff, n_embd);
    t2(shared_expert ? R::ffn_up_shexp : R::ffn_up, n_embd, n_ff);
  }
  // The q, k and v biases, after the three weights (llama.cpp's create_tensor order).
  void qkv_biases(uint64_t n_q, uint64_t n_k, uint64_t n_v) {
    t1(R::attn_q, n_q, true);
    t1(R::attn_k, n_k, true);
    t1(R::attn_v, n_v, true);
  }
  // The routed experts of a MoE block, [.., .., n_expert] each, in the same order.
  void experts(uint64_t n_embd, uint64_t n_ff, uint64_t n_expert, bool gated) {
    if (gated) t3(R::ffn_gate_exps, n_embd, n_ff, n_expert);
    t3(R::ffn_down_exps, n_ff, n_embd, n_expert);
    t3(R::ffn_up_exps, n_embd, n_ff, n_expert);
  }

 private:
  std::vector<TensorDesc>& out_;
  int32_t layer_ = -1;
};

}  // namespace

const char* role_name(TensorRole r) {
  return kRoleNames[static_cast<size_t>(r)];
}

std::string TensorDesc::name() const {
  std::string s;
  if (layer >= 0) s = "blk." + std::to_string(layer) + ".";
  s += role_name(role);
  // ssm_a and ssm_d carry no suffix (llama.cpp tn(LLM_TENSOR_SSM_A, il)).
  if (role == R::ssm_a || role == R::ssm_d || role == R::ffn_pre_norm) return s;
  // Gemma 4's router and per-expert scales (conversion/gemma.py: router.scale and
  // per_expert_scale as FFN_GATE_INP / FFN_DOWN_EXP ".scale").
  if (role == R::ffn_gate_inp_scale || role == R::ffn_down_exps_scale) return s + ".scale";
  // exp_probs_b and ssm_dt are stored as ".bias" by convert_hf_to_gguf.py.
  s += (bias || role == R::ffn_exp_probs_b || role == R::ssm_dt) ? ".bias" : ".weight";
  return s;
}

bool moved_by_cpu_moe(std::string_view name) {
  for (size_t at = name.find(".ffn_"); at != std::string_view::npos;
       at = name.find(".ffn_", at + 1)) {
    std::string_view rest = name.substr(at + 5);
    for (std::string_view kind : {"gate_up_", "up_", "down_", "gate_"}) {
      if (rest.substr(0, kind.size()) != kind) continue;
      std::string_view tail = rest.substr(kind.size());
      if (tail.substr(0, 2) == "ch") tail.remove_prefix(2);
      if (tail.substr(0, 4) == "exps") return true;
    }
  }
  return false;
}

bool is_routed_expert(TensorRole r) {
  return r == R::ffn_gate_exps || r == R::ffn_up_exps || r == R::ffn_down_exps ||
         r == R::ffn_gate_up_exps;
}

std::vector<TensorDesc> layered_tensors(const ModelSpec& m);

// Widths of the attention projections: q (n_head x n_embd_head_k), the output projection's input
// (n_head x n_embd_head_v), k and v (n_head_kv x the head sizes).
struct AttnWidths {
  explicit AttnWidths(const ModelSpec& m)
      : q(uint64_t{m.n_head} * m.n_embd_head_k),
        kq_out(uint64_t{m.n_head} * m.n_embd_head_v),
        k(uint64_t{m.n_head_kv} * m.n_embd_head_k),
        v(uint64_t{m.n_head_kv} * m.n_embd_head_v) {}
  uint64_t q, kq_out, k, v;
};

// Multi-head latent attention's projections before attn_output (llama.cpp deepseek2): the query
// through the low-rank q_a / q_b pair (or one attn_q), the joint KV compression kv_a_mqa with its
// norm, and its expansion to every head's nope part and value, stored split and absorbed as
// attn_k_b {nope, kv_lora_rank, n_head} and attn_v_b {kv_lora_rank, v_head, n_head}: llama.cpp
// de3ff815 src/models/deepseek2.cpp load_arch_tensors (is_mla) and conversion/deepseek.py, which
// splits kv_b_proj (only old files hold the unsplit attn_kv_b).
void mla_projections(Builder& b, const ModelSpec& m, uint32_t n_head, uint32_t n_embd_head_k,
                     uint32_t n_embd_head_v) {
  const uint64_t n_embd = m.n_embd, n_q = uint64_t{n_head} * n_embd_head_k;
  const uint64_t n_nope = n_embd_head_k - m.n_rot;
  if (m.q_lora_rank > 0) {
    b.t2(R::attn_q_a, n_embd, m.q_lora_rank);
    b.t1(R::attn_q_a_norm, m.q_lora_rank);
    b.t2(R::attn_q_b, m.q_lora_rank, n_q);
  } else {
    b.t2(R::attn_q, n_embd, n_q);
  }
  b.t2(R::attn_kv_a_mqa, n_embd, uint64_t{m.kv_lora_rank} + m.n_rot);
  b.t1(R::attn_kv_a_norm, m.kv_lora_rank);
  b.t3(R::attn_k_b, n_nope, m.kv_lora_rank, n_head);
  b.t3(R::attn_v_b, m.kv_lora_rank, n_embd_head_v, n_head);
}

// An MTP layer's next-n inputs (llama.cpp LLM_TENSOR_NEXTN_*): the projection of the concatenated
// embedding and hidden state, their two norms; with `shared_head`, the shared head's norm and the
// layer's own embedding and output copies when the checkpoint has them (GLM-4.5 family).
void nextn_inputs(Builder& b, const ModelSpec& m, bool shared_head) {
  const uint64_t n_embd = m.n_embd;
  b.t2(R::nextn_eh_proj, 2 * n_embd, n_embd);
  b.t1(R::nextn_enorm, n_embd);
  b.t1(R::nextn_hnorm, n_embd);
  if (!shared_head) return;
  b.t1(R::nextn_shared_head_norm, n_embd);
  if (m.nextn_embeddings) {
    b.t2(R::nextn_embed_tokens, n_embd, m.n_vocab);
    b.t2(R::nextn_shared_head_head, n_embd, m.n_vocab);
  }
}

// llama.cpp src/models/bert.cpp llama_model_bert::load_arch_tensors (LLM_ARCH_BERT): token,
// token-type and learned position embeddings, an embedding LayerNorm, q/k/v/o with biases,
// post-attention and post-FFN LayerNorms, a GELU MLP with biases; no output head. A
// sequence-classification checkpoint (reranker) adds cls (n_embd x n_embd) and cls.output
// (n_embd x n_cls_out), both with biases (convert_hf_to_gguf.py maps classifier.dense and
// classifier.out_proj to them and drops the pooler).
void bert_tensors(const ModelSpec& m, Builder& b) {
  const uint64_t n_embd = m.n_embd;
  const AttnWidths a(m);
  b.t2(R::token_embd, n_embd, m.n_vocab);
  if (m.n_token_types) b.t2(R::token_types, n_embd, m.n_token_types);
  b.t2(R::position_embd, n_embd, m.n_ctx_train);
  if (m.n_cls_out) {
    b.linear(R::cls, n_embd, n_embd, true);
    b.linear(R::cls_output, n_embd, m.n_cls_out, true);
  }
  b.norm(R::token_embd_norm, n_embd, true);
  for (uint32_t il = 0; il < m.n_layer; ++il) {
    b.at(static_cast<int32_t>(il));
    b.linear(R::attn_q, n_embd, a.q, true);
    b.linear(R::attn_k, n_embd, a.k, true);
    b.linear(R::attn_v, n_embd, a.v, true);
    b.linear(R::attn_output, a.kq_out, n_embd, true);
    b.norm(R::attn_output_norm, n_embd, true);
    b.linear(R::ffn_up, n_embd, m.n_ff, true);
    b.linear(R::ffn_down, m.n_ff, n_embd, true);
    b.norm(R::layer_output_norm, n_embd, true);
  }
}

// GPTBigCode (llama.cpp LLM_ARCH_STARCODER): LayerNorms and every linear layer carry biases.
void starcoder_tensors(const ModelSpec& m, Builder& b) {
  const uint64_t n_embd = m.n_embd;
  const AttnWidths a(m);
  // llama-model.cpp LLM_ARCH_STARCODER: tok + learned position embeddings, biased LayerNorms,
  // fused QKV (MQA), GELU MLP, every linear layer with a bias.
  b.t2(R::token_embd, n_embd, m.n_vocab);
  b.t2(R::position_embd, n_embd, m.n_ctx_train);
  b.norm(R::output_norm, n_embd, true);
  if (!m.tied_embeddings) b.t2(R::output, n_embd, m.n_vocab);
  for (uint32_t il = 0; il < m.n_layer; ++il) {
    b.at(static_cast<int32_t>(il));
    b.norm(R::attn_norm, n_embd, true);
    b.linear(R::attn_qkv, n_embd, a.q + a.k + a.v, true);
    b.linear(R::attn_output, a.kq_out, n_embd, true);
    b.norm(R::ffn_norm, n_embd, true);
    b.linear(R::ffn_up, n_embd, m.n_ff, true);
    b.linear(R::ffn_down, m.n_ff, n_embd, true);
  }
}

// Shapes from llama.cpp src/llama-model.cpp (llama_model::load_tensors), per architecture.
std::vector<TensorDesc> model_tensors(const ModelSpec& m) {
  if (!m.layer_kinds.empty()) return layered_tensors(m);
  std::vector<TensorDesc> v;
  v.reserve(16 + size_t{m.n_layer} * 20);
  Builder b(v);
  const uint64_t n_embd = m.n_embd;
  const AttnWidths a(m);
  const bool falcon = m.arch == Arch::falcon;

  b.at(-1);
  if (m.arch == Arch::bert) {
    bert_tensors(m, b);
    return v;
  }
  if (m.arch == Arch::starcoder) {
    starcoder_tensors(m, b);
    return v;
  }
  b.t2(R::token_embd, n_embd, m.n_vocab);
  b.norm(R::output_norm, n_embd, falcon);
  if (m.n_cls_out)  // a decoder reranker: cls.output replaces output (gguf_arch.cpp)
    b.t2(R::cls_output, n_embd, m.n_cls_out);
  else if (!m.tied_embeddings)
    b.t2(R::output, n_embd, m.n_vocab);

  // DeepSeek-V3's MTP module (model.layers.<n_layer>): a full decoder block plus the next-n
  // inputs (enorm, hnorm, eh_proj) and shared_head.norm, llama.cpp LLM_TENSOR_NEXTN_*; its
  // embed_tokens and shared_head.head duplicate token_embd and output and are not counted.
  const uint32_t n_block = m.arch == Arch::deepseek2 ? m.n_layer + m.n_layer_nextn : m.n_layer;
  for (uint32_t il = 0; il < n_block; ++il) {
    b.at(static_cast<int32_t>(il));
    // Only deepseek2 has MTP blocks here, and falcon none: its attn_norm bias follows the scale.
    b.norm(R::attn_norm, n_embd, falcon);
    if (il >= m.n_layer) nextn_inputs(b, m, true);
    if (falcon) b.norm(R::attn_norm_2, n_embd, true);
    // Attention.
    if (m.is_mla()) {
      mla_projections(b, m, m.n_head, m.n_embd_head_k, m.n_embd_head_v);
    } else if (m.arch == Arch::phi3 || falcon) {
      b.t2(R::attn_qkv, n_embd, a.q + a.k + a.v);
    } else {
      b.t2(R::attn_q, n_embd, a.q);
      b.t2(R::attn_k, n_embd, a.k);
      b.t2(R::attn_v, n_embd, a.v);
      if (m.qkv_bias) b.qkv_biases(a.q, a.k, a.v);
    }
    b.t2(R::attn_output, a.kq_out, n_embd);
    if (m.arch == Arch::qwen3 || m.arch == Arch::qwen3moe || m.arch == Arch::qwen3vl ||
        m.arch == Arch::gemma3) {
      b.t1(R::attn_q_norm, m.n_embd_head_k);
      b.t1(R::attn_k_norm, m.n_embd_head_k);
    }
    if (m.arch == Arch::gemma2 || m.arch == Arch::gemma3) b.t1(R::attn_post_norm, n_embd);

    // Feed-forward. command-r and falcon run it in parallel with attention on the same norm.
    if (m.arch != Arch::command_r && !falcon) b.t1(R::ffn_norm, n_embd);
    if (m.is_moe_layer(il)) {
      b.t2(R::ffn_gate_inp, n_embd, m.n_expert);
      if (m.arch == Arch::deepseek2) b.t1(R::ffn_exp_probs_b, m.n_expert);
      b.experts(n_embd, m.n_ff_exp, m.n_expert, true);
      if (m.n_ff_shexp > 0) {
        if (m.arch == Arch::qwen2moe) b.t1(R::ffn_gate_inp_shexp, n_embd);
        b.ffn(n_embd, m.n_ff_shexp, true, true);
      }
    } else if (m.arch == Arch::phi3) {
      b.t2(R::ffn_down, m.n_ff, n_embd);
      b.t2(R::ffn_up, n_embd, 2 * uint64_t{m.n_ff});  // gate and up fused
    } else if (falcon) {
      b.t2(R::ffn_up, n_embd, m.n_ff);
      b.t2(R::ffn_down, m.n_ff, n_embd);
    } else {
      b.ffn(n_embd, m.n_ff, true);
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
    const bool routed = is_routed_expert(t.role);
    p.active = checked_add(p.active, routed && m.n_expert ? n / m.n_expert * m.n_expert_used : n,
                           "active parameters");
    if (t.role == R::token_embd) p.token_embd = n;
  }
  return p;
}

}  // namespace llmsize

namespace llmsize {
namespace {

// How an architecture of the per-layer description lays out a block, beyond its layer kinds.
// From llama.cpp at commit 00395eb2 (src/llama-model.cpp load_tensors and the per-model
// src/models/*.cpp load_arch_tensors), one entry per LLM_ARCH.
struct BlockStyle {
  bool pre_norms = true;               // attn_norm before the mixer, ffn_norm before the FFN
  bool single_norm = false;            // one attn_norm per layer (Nemotron-H: one mixer per layer)
  bool post_attn_as_ffn_norm = false;  // post_attention_norm is the FFN's pre-norm
  bool attn_post_norm = false;         // gemma/olmo2: norm after attention
  bool ffn_post_norm = false;          // gemma/olmo2: norm after the FFN
  bool parallel_ffn = false;           // cohere: attention and FFN share attn_norm, no ffn_norm
  bool qk_norm_head = false;           // attn_q_norm / attn_k_norm of one head's width
  bool qk_norm_full = false;           // attn_q_norm [n_head x hk], attn_k_norm [n_head_kv x hk]
  bool qkv_bias = false;
  bool out_bias = false;
  bool gate_inp_bias = false;   // gpt-oss router bias
  bool exps_bias = false;       // gpt-oss expert biases
  bool exp_probs_b = false;     // expert score correction bias (DeepSeek-V3 style routing)
  bool gate_inp_shexp = false;  // sigmoid gate of the shared expert (Qwen2-MoE family)
  bool ffn_gated = true;        // gate + up + down; false: up + down (Nemotron-H relu^2)
  bool gdn_fused_qkv = false;   // Qwen3.5 delta-net: attn_qkv + attn_gate + ssm_beta/alpha
  bool mamba_conv_bias = true;
  bool mamba_norm = true;
  bool ffn_norm_unsuffixed = false;  // Falcon-H1: "blk.N.ffn_norm" (R::ffn_pre_norm)
};

BlockStyle style_of(Arch a) {
  BlockStyle s;
  switch (a) {
    case Arch::gpt_oss:
      s.post_attn_as_ffn_norm = true;
      s.qkv_bias = s.out_bias = s.gate_inp_bias = s.exps_bias = true;
      break;
    case Arch::qwen3next:
    case Arch::qwen35:
    case Arch::qwen35moe:
      s.post_attn_as_ffn_norm = true;
      s.qk_norm_head = true;
      s.gate_inp_shexp = true;
      s.gdn_fused_qkv = a != Arch::qwen3next;
      break;
    case Arch::qwen3vl:
      s.qk_norm_head = true;
      break;
    case Arch::gemma4:
    case Arch::gemma3n:
      s.qk_norm_head = s.attn_post_norm = s.ffn_post_norm = true;
      break;
    case Arch::glm4moe:
      s.post_attn_as_ffn_norm = true;
      s.exp_probs_b = true;
      break;
    case Arch::seed_oss:
      // src/models/seed-oss.cpp loads post_attention_norm and no ffn_norm (gguf-py constants.py
      // MODEL_TENSORS[SEED_OSS] lists ATTN_POST_NORM, so post_attention_layernorm maps to it).
      s.post_attn_as_ffn_norm = true;
      break;
    case Arch::deepseek32:
    case Arch::glm_dsa:
      s.exp_probs_b = true;
      break;
    case Arch::minimax_m2:
      s.qk_norm_full = s.exp_probs_b = true;
      break;
    case Arch::nemotron_h:
    case Arch::nemotron_h_moe:
      s.single_norm = true;
      s.ffn_gated = false;
      s.exp_probs_b = true;
      break;
    case Arch::lfm2:
    case Arch::lfm2moe:
      s.qk_norm_head = true;
      s.exp_probs_b = true;
      break;
    case Arch::cohere2:
      s.parallel_ffn = true;
      break;
    case Arch::olmo2:
      s.pre_norms = false;
      s.attn_post_norm = s.ffn_post_norm = s.qk_norm_full = true;
      break;
    case Arch::ernie4_5_moe:
      s.exp_probs_b = true;
      break;
    case Arch::hunyuan_moe:
      s.qk_norm_head = true;
      break;
    case Arch::falcon_h1:
      // gguf-py tensor_mapping.py maps "model.layers.{bid}.pre_ff_layernorm.weight", suffix and
      // all, to FFN_PRE_NORM "blk.{bid}.ffn_norm"; llama.cpp de3ff815 src/models/falcon-h1.cpp
      // loads tn(LLM_TENSOR_FFN_NORM, i), without ".weight".
      s.ffn_norm_unsuffixed = true;
      break;
    case Arch::granitehybrid:
      s.mamba_conv_bias = true;
      break;
    default:
      break;
  }
  return s;
}

void attention_block(Builder& b, const ModelSpec& m, const LayerKind& k, const BlockStyle& st) {
  const uint64_t n_embd = m.n_embd;
  if (k.attn == AttnKind::mla) {
    mla_projections(b, m, k.n_head, k.n_embd_head_k, k.n_embd_head_v);
    b.t2(R::attn_output, uint64_t{k.n_head} * k.n_embd_head_v, n_embd);
    // llama.cpp de3ff815 src/models/deepseek32.cpp and glm-dsa.cpp load the indexer in every
    // block, the MTP block too; the GLM-5.1 checkpoint holds it there (its 753,864,139,008
    // parameters, tests/fixtures/configs_2026/glm-5.1.json, count it).
    if (k.n_indexer_k) {
      // DSA lightning indexer (llama.cpp deepseek32 / glm-dsa): its own query heads from the
      // compressed query, one shared key, a LayerNorm on the key and per-head weights.
      b.t2(R::indexer_attn_q_b, m.q_lora_rank, uint64_t{m.n_indexer_head} * k.n_indexer_k);
      b.t2(R::indexer_attn_k, n_embd, k.n_indexer_k);
      b.norm(R::indexer_k_norm, k.n_indexer_k, true);
      b.t2(R::indexer_proj, n_embd, m.n_indexer_head);
    }
    return;
  }
  const uint64_t hk = k.n_embd_head_k, hv = k.n_embd_head_v;
  const uint64_t n_q = uint64_t{k.n_head} * hk, n_k = uint64_t{k.n_head_kv} * hk,
                 n_v = uint64_t{k.n_head_kv} * hv;
  b.t2(R::attn_q, n_embd, k.gated_q ? 2 * n_q : n_q);
  if (!k.kv_shared || m.arch != Arch::gemma4) b.t2(R::attn_k, n_embd, n_k);
  if (!k.k_eq_v && !(k.kv_shared && m.arch == Arch::gemma4)) b.t2(R::attn_v, n_embd, n_v);
  if (st.qkv_bias) b.qkv_biases(n_q, n_k, n_v);
  b.linear(R::attn_output, uint64_t{k.n_head} * hv, n_embd, st.out_bias);
  if (st.qk_norm_head) {
    b.t1(R::attn_q_norm, hk);
    if (!(k.kv_shared && m.arch == Arch::gemma4)) b.t1(R::attn_k_norm, hk);
  } else if (st.qk_norm_full) {
    b.t1(R::attn_q_norm, n_q);
    b.t1(R::attn_k_norm, n_k);
  }
  if (k.sinks) b.t1(R::attn_sinks, k.n_head);
}

void state_block(Builder& b, const ModelSpec& m, const LayerKind& k, const BlockStyle& st) {
  const uint64_t n_embd = m.n_embd;
  const SsmSpec& s = m.ssm;
  switch (k.state) {
    case StateKind::none:
      return;
    case StateKind::gated_delta_net: {
      // llama.cpp qwen3next / qwen35: key_dim = d_state x n_group, value_dim = d_inner
      // (value heads dt_rank x head dim d_state), conv over q, k and v.
      const uint64_t key_dim = uint64_t{s.d_state} * s.n_group, value_dim = s.d_inner;
      const uint64_t conv_dim = 2 * key_dim + value_dim;
      if (st.gdn_fused_qkv) {
        b.t2(R::attn_qkv, n_embd, conv_dim);
        b.t2(R::attn_gate, n_embd, value_dim);
      } else {
        b.t2(R::ssm_in, n_embd, 2 * key_dim + 2 * value_dim);  // q, k, v and the gate z
      }
      b.t2(R::ssm_conv1d, s.d_conv, conv_dim);
      b.t1(R::ssm_dt, s.dt_rank);
      b.t1(R::ssm_a, s.dt_rank);
      if (st.gdn_fused_qkv) {
        b.t2(R::ssm_beta, n_embd, s.dt_rank);
        b.t2(R::ssm_alpha, n_embd, s.dt_rank);
      } else {
        b.t2(R::ssm_ba, n_embd, 2ull * s.dt_rank);
      }
      b.t1(R::ssm_norm, s.d_state);
      b.t2(R::ssm_out, value_dim, n_embd);
      return;
    }
    case StateKind::mamba2: {
      // llama.cpp mamba2 / nemotron_h / granitehybrid / falcon-h1: in_proj gives z, x, B, C, dt.
      const uint64_t n_head = s.dt_rank;
      const uint64_t conv_dim = s.d_inner + 2ull * s.n_group * s.d_state;
      b.t2(R::ssm_in, n_embd, s.d_inner + conv_dim + n_head);
      // The depthwise conv is stored as a linear layer is: [d_conv, conv_dim] and a bias.
      b.linear(R::ssm_conv1d, s.d_conv, conv_dim, st.mamba_conv_bias);
      b.t1(R::ssm_dt, n_head);
      b.t2(R::ssm_a, 1, n_head);
      b.t2(R::ssm_d, 1, n_head);
      if (st.mamba_norm) b.t2(R::ssm_norm, s.d_inner / std::max<uint32_t>(1, s.n_group), s.n_group);
      b.t2(R::ssm_out, s.d_inner, n_embd);
      return;
    }
    case StateKind::short_conv:
      // llama.cpp lfm2: a depthwise conv of l_cache taps between two projections.
      b.t2(R::shortconv_conv, s.l_cache, n_embd);
      b.t2(R::shortconv_in_proj, n_embd, 3 * n_embd);
      b.t2(R::shortconv_out_proj, n_embd, n_embd);
      return;
  }
}

void ffn_block(Builder& b, const ModelSpec& m, const LayerKind& k, const BlockStyle& st) {
  const uint64_t n_embd = m.n_embd;
  if (k.ffn == FfnKind::none) return;
  if (k.ffn == FfnKind::dense || (m.arch == Arch::gemma4 && k.n_ff > 0)) {
    // Gemma 4 MoE layers keep the dense MLP beside the experts (it acts as the shared expert).
    b.ffn(n_embd, k.n_ff, st.ffn_gated);
    if (k.ffn == FfnKind::dense) return;
  }
  const uint64_t ne = m.n_expert, ff = m.n_ff_exp;
  b.linear(R::ffn_gate_inp, n_embd, ne, st.gate_inp_bias);
  if (st.exp_probs_b) b.t1(R::ffn_exp_probs_b, ne);
  if (m.arch == Arch::gemma4) {
    b.t1(R::ffn_pre_norm_2, n_embd);
    b.t1(R::ffn_post_norm_1, n_embd);
    b.t1(R::ffn_post_norm_2, n_embd);
    b.t3(R::ffn_gate_up_exps, n_embd, 2 * ff, ne);
    b.t3(R::ffn_down_exps, ff, n_embd, ne);
    // llama.cpp de3ff815 src/models/gemma4.cpp: ffn_gate_inp.scale {n_embd} (required) and
    // llama-model.cpp's ffn_down_exps.scale {n_expert}, which conversion/gemma.py writes from the
    // checkpoint's router.scale and router.per_expert_scale.
    b.t1(R::ffn_gate_inp_scale, n_embd);
    b.t1(R::ffn_down_exps_scale, ne);
    return;
  }
  b.experts(n_embd, ff, ne, st.ffn_gated);
  if (st.exps_bias) {
    b.t2b(R::ffn_gate_exps, ff, ne);
    b.t2b(R::ffn_down_exps, n_embd, ne);
    b.t2b(R::ffn_up_exps, ff, ne);
  }
  if (m.n_ff_shexp > 0) {
    if (st.gate_inp_shexp) b.t1(R::ffn_gate_inp_shexp, n_embd);
    b.ffn(n_embd, m.n_ff_shexp, st.ffn_gated, true);
  }
}

void layer_block(Builder& b, const ModelSpec& m, const LayerKind& k, const BlockStyle& st,
                 bool mtp) {
  const uint64_t n_embd = m.n_embd;
  const bool mixer = k.attn != AttnKind::none || k.state != StateKind::none;
  if (st.single_norm || (st.pre_norms && (mixer || st.parallel_ffn))) b.t1(R::attn_norm, n_embd);
  if (mtp) nextn_inputs(b, m, true);
  state_block(b, m, k, st);
  if (k.attn != AttnKind::none) attention_block(b, m, k, st);
  if (st.attn_post_norm && k.attn != AttnKind::none) b.t1(R::attn_post_norm, n_embd);
  if (k.ffn != FfnKind::none) {
    if (st.post_attn_as_ffn_norm)
      b.t1(R::attn_post_norm, n_embd);
    else if (st.pre_norms && !st.parallel_ffn && !st.single_norm)
      b.t1(st.ffn_norm_unsuffixed ? R::ffn_pre_norm : R::ffn_norm, n_embd);
  }
  ffn_block(b, m, k, st);
  if (st.ffn_post_norm && k.ffn != FfnKind::none) b.t1(R::ffn_post_norm, n_embd);
  // Gemma 4's layer_scalar (gguf-py tensor_mapping LAYER_OUT_SCALE "blk.N.layer_output_scale").
  if (m.arch == Arch::gemma4) b.t1(R::layer_output_scale, 1);
  if (m.n_embd_per_layer > 0) {
    b.t2(R::per_layer_inp_gate, n_embd, m.n_embd_per_layer);
    b.t2(R::per_layer_proj, m.n_embd_per_layer, n_embd);
    b.t1(R::per_layer_post_norm, n_embd);
  }
  if (m.n_altup > 0) {
    // llama.cpp src/models/gemma3n.cpp load_arch_tensors: every layer, KV-sharing ones too (they
    // keep their attn_k / attn_v / attn_k_norm), holds the AltUp and LAuReL tensors.
    const uint64_t na = m.n_altup;
    b.t2(R::altup_correct_coef, na, na);
    b.t1(R::altup_correct_scale, n_embd);
    b.t2(R::altup_predict_coef, na, na * na);
    b.t2(R::altup_router, n_embd, na);
    b.t1(R::altup_router_norm, n_embd);
    b.t2(R::laurel_l, n_embd, m.laurel_rank);
    b.t2(R::laurel_r, m.laurel_rank, n_embd);
    b.t1(R::laurel_post_norm, n_embd);
  }
}

}  // namespace

// DeepSeek-V4, as llama.cpp's src/models/deepseek4.cpp load_arch_tensors (commit 00395eb2).
std::vector<TensorDesc> deepseek4_tensors(const ModelSpec& m) {
  std::vector<TensorDesc> v;
  Builder b(v);
  const uint64_t n_embd = m.n_embd, hd = m.n_embd_head_k, q_lora = m.q_lora_rank;
  const uint64_t hc = m.hc_mult, hc_dim = hc * n_embd, hc_mix = (2 + hc) * hc;
  const uint64_t ne = m.n_expert, ff = m.n_ff_exp;
  b.at(-1);
  b.t2(R::token_embd, n_embd, m.n_vocab);
  b.t1(R::output_norm, n_embd);
  b.t2(R::output, n_embd, m.n_vocab);
  b.t2(R::hc_head_fn, hc_dim, hc);
  b.t1(R::hc_head_base, hc);
  b.t1(R::hc_head_scale, 1);
  const LayerLayout lay = layer_layout(m);
  auto block = [&](uint32_t il, const LayerKind& k, bool mtp) {
    b.at(static_cast<int32_t>(il));
    b.t1(R::attn_norm, n_embd);
    b.t1(R::attn_sinks, k.n_head);
    b.t2(R::attn_q_a, n_embd, q_lora);
    b.t1(R::attn_q_a_norm, q_lora);
    b.t2(R::attn_q_b, q_lora, k.n_head * hd);
    b.t2(R::attn_kv, n_embd, hd);
    b.t1(R::attn_kv_norm, hd);
    b.t2(R::attn_out_a, k.n_head * hd / std::max<uint32_t>(1, m.o_groups),
         uint64_t{m.o_lora_rank} * m.o_groups);
    b.t2(R::attn_out_b, uint64_t{m.o_groups} * m.o_lora_rank, n_embd);
    b.t2(R::hc_attn_fn, hc_dim, hc_mix);
    b.t1(R::hc_attn_base, hc_mix);
    b.t1(R::hc_attn_scale, 3);
    b.t2(R::hc_ffn_fn, hc_dim, hc_mix);
    b.t1(R::hc_ffn_base, hc_mix);
    b.t1(R::hc_ffn_scale, 3);
    if (k.compress_ratio) {
      const uint64_t coff = k.compress_ratio == 4 ? 2 : 1;
      b.t2(R::attn_comp_wkv, n_embd, coff * hd);
      b.t2(R::attn_comp_wgate, n_embd, coff * hd);
      b.t2(R::attn_comp_ape, coff * hd, k.compress_ratio);
      b.t1(R::attn_comp_norm, hd);
      if (k.compress_ratio == 4) {
        const uint64_t ix = m.n_indexer_head_dim;
        b.t2(R::indexer_proj, n_embd, m.n_indexer_head);
        b.t2(R::indexer_attn_q_b, q_lora, uint64_t{m.n_indexer_head} * ix);
        b.t2(R::indexer_comp_wkv, n_embd, 2 * ix);
        b.t2(R::indexer_comp_wgate, n_embd, 2 * ix);
        b.t2(R::indexer_comp_ape, 2 * ix, k.compress_ratio);
        b.t1(R::indexer_comp_norm, ix);
      }
    }
    b.t2(R::ffn_gate_inp, n_embd, ne);
    if (il < m.n_hash_layers)
      b.t2(R::ffn_gate_tid2eid, m.n_expert_used, m.n_vocab);
    else
      b.t1(R::ffn_exp_probs_b, ne);
    b.t1(R::ffn_norm, n_embd);
    b.experts(n_embd, ff, ne, true);
    b.ffn(n_embd, m.n_ff_shexp, true, true);
    if (mtp) nextn_inputs(b, m, false);
  };
  LayerKind last;
  for_each_layer(lay, [&](uint32_t il, const LayerKind& k) {
    block(il, k, false);
    last = k;
  });
  for (uint32_t i = 0; i < m.n_layer_nextn; ++i) {
    last.compress_ratio = 0;
    block(m.n_layer + i, last, true);
  }
  return v;
}

std::vector<TensorDesc> layered_tensors(const ModelSpec& m) {
  if (m.arch == Arch::deepseek4) return deepseek4_tensors(m);
  std::vector<TensorDesc> v;
  const LayerLayout lay = layer_layout(m);
  v.reserve(16 + static_cast<size_t>(std::min<uint64_t>(m.n_layer, 1u << 16)) * 24);
  Builder b(v);
  BlockStyle st = style_of(m.arch);
  if (m.qk_norm && !st.qk_norm_full) st.qk_norm_head = true;
  if (m.qkv_bias) st.qkv_bias = true;
  const uint64_t n_embd = m.n_embd;
  b.at(-1);
  b.t2(R::token_embd, n_embd, m.n_vocab);
  if (m.n_embd_per_layer > 0) {
    const uint64_t w = checked_mul(m.n_embd_per_layer, m.n_layer);
    b.t2(R::per_layer_token_embd, w, m.n_vocab);
    b.t2(R::per_layer_model_proj, n_embd, w);
    b.t1(R::per_layer_proj_norm, m.n_embd_per_layer);
  }
  b.t1(m.arch == Arch::lfm2 || m.arch == Arch::lfm2moe ? R::token_embd_norm : R::output_norm,
       n_embd);
  if (!m.tied_embeddings) b.t2(R::output, n_embd, m.n_vocab);
  if (m.n_altup > 1) {
    // Gemma 3n: the projections into and out of the n_altup - 1 extra streams.
    b.t3(R::altup_proj, n_embd, n_embd, m.n_altup - 1);
    b.t3(R::altup_unembd_proj, n_embd, n_embd, m.n_altup - 1);
  }
  if (m.arch == Arch::gemma4)
    for (const auto& k : lay.kinds)
      if (k.attn == AttnKind::full) {
        // Proportional rope factors of the global layers: one tensor, shared (TENSOR_DUPLICATED).
        b.t1(R::rope_freqs, k.n_embd_head_k / 2);
        break;
      }
  LayerKind last_full;
  bool have_full = false;
  for_each_layer(lay, [&](uint32_t il, const LayerKind& k) {
    b.at(static_cast<int32_t>(il));
    layer_block(b, m, k, st, false);
    if (k.attn != AttnKind::none && k.attn != AttnKind::swa && k.attn != AttnKind::chunked) {
      last_full = k;
      have_full = true;
    }
  });
  // MTP layers: a full-attention decoder block (the last full-attention kind) with the next-n
  // inputs, after the main layers (llama.cpp glm4moe / glm-dsa / qwen35 n_layer_nextn).
  if (m.n_layer_nextn && have_full) {
    last_full.state = StateKind::none;
    if (last_full.ffn == FfnKind::dense && m.is_moe()) last_full.ffn = FfnKind::moe;
    for (uint32_t i = 0; i < m.n_layer_nextn; ++i) {
      b.at(static_cast<int32_t>(m.n_layer + i));
      layer_block(b, m, last_full, st, true);
    }
  }
  return v;
}

}  // namespace llmsize
