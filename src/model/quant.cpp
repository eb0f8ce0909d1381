#include "llmsize/model/quant.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmsize {
namespace {

using T = TensorType;
using F = Ftype;
using R = TensorRole;

const std::vector<QuantPreset> kPresets = {
    {"f32", F::ALL_F32, T::F32, true, "all tensors F32"},
    {"f16", F::F16, T::F16, true, "2-D weights F16, norms F32"},
    {"bf16", F::BF16, T::BF16, true, "2-D weights BF16, norms F32"},
    {"q8_0", F::Q8_0, T::Q8_0, true, "Q8_0 throughout"},
    {"q6_k", F::Q6_K, T::Q6_K, true, "Q6_K throughout"},
    {"q5_k_m", F::Q5_K_M, T::Q5_K, true, "Q5_K; half of attn_v and ffn_down Q6_K; output Q6_K"},
    {"q5_k_s", F::Q5_K_S, T::Q5_K, true, "Q5_K; output Q6_K"},
    {"q5_1", F::Q5_1, T::Q5_1, true, "Q5_1; output Q6_K"},
    {"q5_0", F::Q5_0, T::Q5_0, true, "Q5_0; output Q6_K"},
    {"q4_k_m", F::Q4_K_M, T::Q4_K, true, "Q4_K; half of attn_v and ffn_down Q6_K; output Q6_K"},
    {"q4_k_s", F::Q4_K_S, T::Q4_K, true, "Q4_K; first attn_v/ffn_down Q5_K; output Q6_K"},
    {"q4_1", F::Q4_1, T::Q4_1, true, "Q4_1; output Q6_K"},
    {"q4_0", F::Q4_0, T::Q4_0, true, "Q4_0; output Q6_K"},
    {"iq4_xs", F::IQ4_XS, T::IQ4_XS, true, "IQ4_XS; attn_v Q5_K with GQA; output Q6_K"},
    {"iq4_nl", F::IQ4_NL, T::IQ4_NL, true, "IQ4_NL; attn_v Q5_K with GQA; output Q6_K"},
    {"q3_k_l", F::Q3_K_L, T::Q3_K, true, "Q3_K; attn_v, ffn_down, attn_output Q5_K"},
    {"q3_k_m", F::Q3_K_M, T::Q3_K, true,
     "Q3_K; attn_v Q4/Q5_K, ffn_down Q4/Q5_K, attn_output Q4_K"},
    {"q3_k_s", F::Q3_K_S, T::Q3_K, true, "Q3_K throughout; output Q6_K"},
    {"iq3_m", F::IQ3_M, T::IQ3_S, true, "IQ3_S; attn_v/attn_output Q4_K"},
    {"iq3_s", F::IQ3_S, T::IQ3_S, true, "IQ3_S"},
    {"iq3_xs", F::IQ3_XS, T::IQ3_S, true, "IQ3_S with IQ3_XXS middle layers"},
    {"iq3_xxs", F::IQ3_XXS, T::IQ3_XXS, true, "IQ3_XXS"},
    {"q2_k", F::Q2_K, T::Q2_K, true, "Q2_K; attn_v Q3/Q4_K, ffn_down and attn_output Q3_K"},
    {"q2_k_s", F::Q2_K_S, T::Q2_K, true, "Q2_K"},
    {"iq2_m", F::IQ2_M, T::IQ2_S, true, "IQ2_S"},
    {"iq2_s", F::IQ2_S, T::IQ2_XS, true, "IQ2_XS"},
    {"iq2_xs", F::IQ2_XS, T::IQ2_XS, true, "IQ2_XS"},
    {"iq2_xxs", F::IQ2_XXS, T::IQ2_XXS, true, "IQ2_XXS"},
    {"iq1_m", F::IQ1_M, T::IQ1_M, true, "IQ1_M"},
    {"iq1_s", F::IQ1_S, T::IQ1_S, true, "IQ1_S"},
    {"tq2_0", F::TQ2_0, T::TQ2_0, true, "ternary TQ2_0 (BitNet-style models)"},
    {"tq1_0", F::TQ1_0, T::TQ1_0, true, "ternary TQ1_0 (BitNet-style models)"},
    {"mxfp4_moe", F::MXFP4_MOE, T::MXFP4, true, "MXFP4 experts, Q8_0 elsewhere"},
    {"fp8", F::HF_FP8, T::FP8_E4M3, false, "FP8 E4M3 linear layers; embeddings, head, norms BF16"},
    {"int8", F::HF_INT8, T::INT8, false, "INT8 linear layers; embeddings, head, norms BF16"},
    {"gptq-4bit", F::HF_GPTQ4, T::GPTQ4_G128, false, "GPTQ 4-bit g128 linear layers; rest FP16"},
    {"gptq-8bit", F::HF_GPTQ8, T::GPTQ8_G128, false, "GPTQ 8-bit g128 linear layers; rest FP16"},
    {"awq-4bit", F::HF_AWQ4, T::AWQ4_G128, false, "AWQ 4-bit g128 linear layers; rest FP16"},
    {"nvfp4", F::HF_NVFP4, T::NVFP4, false, "NVFP4 linear layers; rest BF16 (Blackwell)"},
    {"hf-bf16", F::HF_BF16, T::BF16, false,
     "unquantized BF16 checkpoint as vLLM/transformers load it"},
    {"hf-f32", F::HF_F32, T::F32, false,
     "unquantized FP32 checkpoint (safetensors files) as transformers loads it"},
    {"hf-f16", F::HF_F16, T::F16, false,
     "unquantized FP16 checkpoint as vLLM/transformers load it"},
    {"int4-g32", F::HF_INT4_G32_EXPERTS, T::INT4_G32, false,
     "routed experts INT4 group 32 (compressed-tensors); attention, shared experts, dense "
     "layers, embeddings and head BF16 (Kimi-K2.5)"},
    {"int4-g128", F::HF_INT4_G128, T::INT4_G128, false,
     "INT4 group 128 linear layers (compressed-tensors W4A16); embeddings, head, norms BF16"},
    {"mxfp4-experts", F::HF_MXFP4_EXPERTS, T::MXFP4, false,
     "routed experts MXFP4; attention, router, embeddings and head BF16 (gpt-oss checkpoint)"},
    {"fp8-mxfp4-experts", F::HF_FP8_MXFP4_EXPERTS, T::FP8_E4M3, false,
     "routed experts FP4 with an E8M0 scale per 32 (the MXFP4 layout); attention, shared experts "
     "and dense layers FP8 E4M3; embeddings, head, norms BF16 (DeepSeek-V4 checkpoint)"},
};

const std::vector<QuantAlias> kAliases = {
    {"q4", "q4_k_m"},     {"q4_k", "q4_k_m"},     {"q5", "q5_k_m"},       {"q5_k", "q5_k_m"},
    {"q3", "q3_k_m"},     {"q3_k", "q3_k_m"},     {"q2", "q2_k"},         {"q6", "q6_k"},
    {"q8", "q8_0"},       {"fp16", "f16"},        {"float16", "f16"},     {"half", "f16"},
    {"fp32", "f32"},      {"float32", "f32"},     {"bfloat16", "bf16"},   {"fp8_e4m3", "fp8"},
    {"e4m3", "fp8"},      {"gptq", "gptq-4bit"},  {"gptq4", "gptq-4bit"}, {"awq", "awq-4bit"},
    {"awq4", "awq-4bit"}, {"gptq8", "gptq-8bit"}, {"mxfp4", "mxfp4_moe"},
};

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return r;
}

bool any_of(F f, std::initializer_list<F> fs) {
  return std::find(fs.begin(), fs.end(), f) != fs.end();
}

// llama.cpp's use_more_bits: the first and last eighth of the layers and every third in between.
bool use_more_bits(int i_layer, int n_layers) {
  return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}

// llama.cpp LLM_TYPE_70B: llama with 80 layers and GQA (Llama-2/3-70B), qwen2 with 80 layers.
bool is_type_70b(const ModelSpec& m) {
  if (m.n_layer != 80) return false;
  if (m.arch == Arch::llama) return m.n_head != m.n_head_kv;
  return m.arch == Arch::qwen2;
}

bool matches(R r, std::initializer_list<R> rs) {
  return std::find(rs.begin(), rs.end(), r) != rs.end();
}

// Counters llama_model_quantize_impl keeps while it walks the tensors.
struct QuantState {
  int n_attention_wv = 0, n_ffn_down = 0, n_ffn_gate = 0, n_ffn_up = 0;
  int i_attention_wv = 0, i_ffn_down = 0, i_ffn_gate = 0, i_ffn_up = 0;
  bool has_output = false;
  bool has_imatrix = false;
};

// Tensors convert_hf_to_gguf.py stores in F32 whatever the out type and llama-quantize leaves
// alone (llama.cpp de3ff815 conversion/base.py prepare_tensors: every "*_norm.weight", also a
// 2-D one such as Mamba2's grouped ssm_norm {d_inner / n_group, n_group}, and
// ALTUP_CORRECT_COEF / ALTUP_PREDICT_COEF; src/llama-quant.cpp tensor_allows_quantization skips
// "_norm.weight" and "altup").
bool is_f32_always(R r) {
  const std::string n = role_name(r);
  return (n.size() >= 5 && n.compare(n.size() - 5, 5, "_norm") == 0) ||
         r == R::altup_correct_coef || r == R::altup_predict_coef;
}
// 2-D tensors llama-quantize does not quantize, kept in the 16-bit type of the converted file
// (src/llama-quant.cpp tensor_allows_quantization at de3ff815: names containing "altup" or
// "laurel", and "per_layer_model_proj").
bool kept_16_bit(R r) {
  return r == R::altup_proj || r == R::altup_unembd_proj || r == R::altup_router ||
         r == R::laurel_l || r == R::laurel_r || r == R::per_layer_model_proj;
}

// State-space tensors llama-quantize and checkpoint quantizers leave in their stored type.
bool is_small_state_tensor(R r) {
  return r == R::ssm_conv1d || r == R::shortconv_conv || r == R::ssm_a || r == R::ssm_d;
}
bool is_ffn_down(R r) {
  return matches(r, {R::ffn_down, R::ffn_down_exps, R::ffn_down_shexp});
}
bool is_ffn_gate(R r) {
  return matches(r, {R::ffn_gate, R::ffn_gate_exps, R::ffn_gate_shexp});
}
bool is_ffn_up(R r) {
  return matches(r, {R::ffn_up, R::ffn_up_exps, R::ffn_up_shexp});
}

// Fallback when a row does not split into whole blocks of the chosen type (llama-quant.cpp).
T fallback_type(T t, uint64_t ne0) {
  T r;
  switch (t) {
    case T::TQ1_0:
    case T::TQ2_0:
      r = T::Q4_0;
      break;
    case T::IQ2_XXS:
    case T::IQ2_XS:
    case T::IQ2_S:
    case T::IQ3_XXS:
    case T::IQ3_S:
    case T::IQ1_S:
    case T::IQ1_M:
    case T::Q2_K:
    case T::Q3_K:
    case T::IQ4_XS:
      r = T::IQ4_NL;
      break;
    case T::Q4_K:
      r = T::Q5_0;
      break;
    case T::Q5_K:
      r = T::Q5_1;
      break;
    case T::Q6_K:
      r = T::Q8_0;
      break;
    default:
      r = T::F16;
      break;
  }
  if (ne0 % traits(r).block_size != 0) r = T::F16;
  return r;
}

// llama_tensor_get_type, for the roles that rule touches. `nt` is the preset's default type.
// Over 120 lines on purpose: it mirrors the upstream function branch for branch (ggml-org/
// llama.cpp src/llama-quant.cpp llama_tensor_get_type at commit
// 8784689fee07c6daabf3487d24e1535534ef6e6b), so a diff against upstream stays readable; do not
// split it (scripts/function_lengths_allow.txt lists it).
// Mirrored, in upstream's order: output.weight (or token_embd without one): MXFP4_MOE -> Q8_0,
// falcon or a row not in whole blocks -> Q8_0, IQ1/IQ2/IQ3_XXS -> Q5_K, else Q6_K unless Q8_0;
// MXFP4_MOE: 3-D (expert) tensors MXFP4, the rest Q8_0; token_embd and per_layer_token_embd;
// the IQ1/IQ2 file types' attn_v, attn_k (8 experts), ffn_down, attn_output; attn_v (70B bump,
// 8 experts Q8_0); attn_k; attn_q; ffn_down (layer from the tensor's block with experts, as
// upstream parses blk.N); attn_output; attn_qkv; ffn_gate; ffn_up; then the fallback of a row
// that does not split into whole blocks (fallback_type). A role is matched where upstream
// matches a name substring: ffn_down/ffn_gate/ffn_up include their _exps and _shexp tensors.
// Deliberately left out: the --output-tensor-type and --token-embedding-type overrides and
// --tensor-type regexes of llama-quantize (llmsize models the default file types); the
// n_k_quantized / n_fallback statistics; upstream throws on a fallback of a type without one
// (`Unsupported tensor size`), llmsize keeps F16. Approximations: upstream's MXFP4_MOE test is
// ne[2] > 1, llmsize's n_dims == 3 (the same for expert tensors of more than one expert); the 70B
// bump reads llama.cpp's LLM_TYPE_70B, llmsize is_type_70b() (80 layers of llama with GQA, or
// qwen2). The counters (assign_tensor_types) are upstream's: n_attention_wv counts attn_v, attn_qkv
// and attn_kv_b; n_ffn_down = n_ffn_gate = n_ffn_up = hparams.n_layer (block count, next-n layers
// included).
T get_type(QuantState& qs, const ModelSpec& m, const TensorDesc& t, F ft, T nt) {
  const bool falcon = m.arch == Arch::falcon;
  const int n_expert = static_cast<int>(m.n_expert);
  const uint32_t gqa = m.n_gqa();
  const auto layer_info = [&](int i_counter, int n_counter) {
    // MoE files interleave expert tensors, so llama.cpp parses the layer from the name.
    return std::pair<int, int>{n_expert > 1 ? t.layer : i_counter, n_counter};
  };
  const bool output_like = t.role == R::output || (!qs.has_output && t.role == R::token_embd);
  const bool low_iq = any_of(ft, {F::IQ2_XXS, F::IQ2_XS, F::IQ1_S, F::IQ2_S, F::IQ2_M, F::IQ1_M});

  if (output_like) {
    if (ft == F::MXFP4_MOE || falcon || t.ne[0] % traits(nt).block_size != 0) {
      nt = T::Q8_0;
    } else if (any_of(ft, {F::IQ2_XXS, F::IQ2_XS, F::IQ3_XXS, F::IQ1_S, F::IQ2_S, F::IQ2_M,
                           F::IQ1_M})) {
      nt = T::Q5_K;
    } else if (nt != T::Q8_0) {
      nt = T::Q6_K;
    }
  } else if (ft == F::MXFP4_MOE) {
    nt = t.n_dims == 3 ? T::MXFP4 : T::Q8_0;
  } else if (t.role == R::token_embd || t.role == R::per_layer_token_embd) {
    if (any_of(ft, {F::IQ2_XXS, F::IQ2_XS, F::IQ1_S, F::IQ1_M}))
      nt = T::Q2_K;
    else if (any_of(ft, {F::IQ2_S, F::IQ2_M, F::IQ3_XXS}))
      nt = T::IQ3_S;
    else if (any_of(ft, {F::TQ1_0, F::TQ2_0}))
      nt = T::Q4_K;
  } else if (low_iq) {
    const bool s_or_m = ft == F::IQ2_S || ft == F::IQ2_M;
    if (t.role == R::attn_v) {
      nt = (gqa >= 4 || n_expert >= 4) ? T::Q4_K : s_or_m ? T::IQ3_S : T::Q2_K;
      ++qs.i_attention_wv;
    } else if (n_expert == 8 && t.role == R::attn_k) {
      nt = T::Q4_K;
    } else if (is_ffn_down(t.role)) {
      if (qs.i_ffn_down < qs.n_ffn_down / 8) nt = s_or_m ? T::IQ3_S : T::Q2_K;
      ++qs.i_ffn_down;
    } else if (t.role == R::attn_output) {
      if (n_expert == 8)
        nt = T::Q5_K;
      else if (ft == F::IQ1_S || ft == F::IQ1_M)
        nt = T::IQ2_XXS;
      else if (s_or_m)
        nt = T::IQ3_S;
    }
  } else if (t.role == R::attn_v) {
    if (ft == F::Q2_K)
      nt = gqa >= 4 ? T::Q4_K : T::Q3_K;
    else if (ft == F::Q2_K_S && gqa >= 4)
      nt = T::Q4_K;
    else if (ft == F::IQ3_XXS)
      nt = gqa >= 4 ? T::Q4_K : !qs.has_imatrix ? T::IQ3_S : T::IQ3_XXS;
    else if ((ft == F::IQ3_XS || ft == F::IQ3_S) && gqa >= 4)
      nt = T::Q4_K;
    else if (ft == F::IQ3_M)
      nt = T::Q4_K;
    else if (ft == F::Q3_K_M)
      nt = qs.i_attention_wv < 2 ? T::Q5_K : T::Q4_K;
    else if (ft == F::Q3_K_L)
      nt = T::Q5_K;
    else if ((ft == F::IQ4_NL || ft == F::IQ4_XS) && gqa >= 4)
      nt = T::Q5_K;
    else if ((ft == F::Q4_K_M || ft == F::Q5_K_M) &&
             use_more_bits(qs.i_attention_wv, qs.n_attention_wv))
      nt = T::Q6_K;
    else if (ft == F::Q4_K_S && qs.i_attention_wv < 4)
      nt = T::Q5_K;
    // 70B: 8 heads share attn_v, so more bits cost little (comment in llama-quant.cpp).
    if (is_type_70b(m) && (nt == T::Q3_K || nt == T::Q4_K)) nt = T::Q5_K;
    if (n_expert == 8) nt = T::Q8_0;
    ++qs.i_attention_wv;
  } else if (t.role == R::attn_k) {
    if (n_expert == 8)
      nt = T::Q8_0;
    else if (ft == F::IQ3_XS)
      nt = T::IQ3_XXS;
    else if (ft == F::IQ3_XXS)
      nt = T::IQ2_S;
  } else if (t.role == R::attn_q) {
    if (ft == F::IQ3_XS)
      nt = T::IQ3_XXS;
    else if (ft == F::IQ3_XXS)
      nt = T::IQ2_S;
  } else if (is_ffn_down(t.role)) {
    auto [i_layer, n_layer] = layer_info(qs.i_ffn_down, qs.n_ffn_down);
    if (ft == F::Q2_K)
      nt = T::Q3_K;
    else if (ft == F::Q2_K_S) {
      if (i_layer < n_layer / 8) nt = T::Q4_K;
    } else if (ft == F::IQ3_XXS && !qs.has_imatrix)
      nt = i_layer < n_layer / 8 ? T::Q4_K : T::Q3_K;
    else if (ft == F::Q3_K_M)
      nt = i_layer < n_layer / 16                       ? T::Q5_K
           : !falcon || use_more_bits(i_layer, n_layer) ? T::Q4_K
                                                        : T::Q3_K;
    else if (ft == F::IQ3_M &&
             (i_layer < n_layer / 8 || (n_expert == 8 && use_more_bits(i_layer, n_layer))))
      nt = T::Q4_K;
    else if (ft == F::Q3_K_L)
      nt = falcon ? T::Q4_K : T::Q5_K;
    else if (ft == F::Q4_K_M) {
      if (falcon)
        nt = i_layer < n_layer / 16 ? T::Q6_K : use_more_bits(i_layer, n_layer) ? T::Q5_K : T::Q4_K;
      else if (use_more_bits(i_layer, n_layer))
        nt = T::Q6_K;
    } else if (i_layer < n_layer / 8 && (ft == F::IQ4_NL || ft == F::IQ4_XS) && !qs.has_imatrix)
      nt = T::Q5_K;
    else if (ft == F::Q5_K_M && use_more_bits(i_layer, n_layer))
      nt = T::Q6_K;
    else if (ft == F::Q4_K_S && !falcon && i_layer < n_layer / 8)
      nt = T::Q5_K;
    else if ((ft == F::Q4_0 || ft == F::Q5_0) && qs.has_imatrix && i_layer < n_layer / 8)
      nt = ft == F::Q4_0 ? T::Q4_1 : T::Q5_1;
    ++qs.i_ffn_down;
  } else if (t.role == R::attn_output) {
    if (!falcon) {
      if (n_expert == 8) {
        if (any_of(ft, {F::Q2_K, F::IQ3_XS, F::IQ3_XXS, F::Q3_K_S, F::Q3_K_M, F::IQ4_NL, F::Q4_K_S,
                        F::Q4_K_M, F::IQ3_S, F::IQ3_M, F::IQ4_XS}))
          nt = T::Q5_K;
      } else {
        if (ft == F::Q2_K)
          nt = T::Q3_K;
        else if (ft == F::IQ3_XXS)
          nt = T::IQ3_S;
        else if (ft == F::Q3_K_M)
          nt = T::Q4_K;
        else if (ft == F::Q3_K_L)
          nt = T::Q5_K;
        else if (ft == F::IQ3_M)
          nt = T::Q4_K;
      }
    } else if (ft == F::Q3_K_L) {
      nt = T::Q4_K;
    }
  } else if (t.role == R::attn_qkv) {
    if (ft == F::Q3_K_M || ft == F::Q3_K_L || ft == F::IQ3_M)
      nt = T::Q4_K;
    else if (ft == F::Q4_K_M)
      nt = T::Q5_K;
    else if (ft == F::Q5_K_M)
      nt = T::Q6_K;
  } else if (is_ffn_gate(t.role)) {
    auto [i_layer, n_layer] = layer_info(qs.i_ffn_gate, qs.n_ffn_gate);
    if (ft == F::IQ3_XS && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8) nt = T::IQ3_XXS;
    ++qs.i_ffn_gate;
  } else if (is_ffn_up(t.role)) {
    auto [i_layer, n_layer] = layer_info(qs.i_ffn_up, qs.n_ffn_up);
    if (ft == F::IQ3_XS && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8) nt = T::IQ3_XXS;
    ++qs.i_ffn_up;
  }

  if (t.ne[0] % traits(nt).block_size != 0) nt = fallback_type(nt, t.ne[0]);
  return nt;
}

// Checkpoints of other engines: linear layers in the preset's type, everything else 16-bit.
T hf_type(const TensorDesc& t, const QuantPreset& p) {
  const T keep = p.ftype == F::HF_F16 || p.ftype == F::HF_GPTQ4 || p.ftype == F::HF_GPTQ8 ||
                         p.ftype == F::HF_AWQ4
                     ? T::F16
                     : T::BF16;
  const bool linear = t.n_dims >= 2 && !t.bias && t.role != R::token_embd && t.role != R::output &&
                      t.role != R::ffn_gate_inp && t.role != R::position_embd &&
                      t.role != R::token_types && t.role != R::per_layer_token_embd &&
                      !is_small_state_tensor(t.role);
  if (p.ftype == F::HF_F32) return T::F32;
  if (!linear) return keep;
  // Expert-only checkpoints: their quantization_config ignores everything but the routed experts.
  if ((p.ftype == F::HF_INT4_G32_EXPERTS || p.ftype == F::HF_MXFP4_EXPERTS) &&
      !is_routed_expert(t.role))
    return keep;
  // DeepSeek-V4: the routed experts are 4-bit floats, two per byte, with an E8M0 scale per 32.
  if (p.ftype == F::HF_FP8_MXFP4_EXPERTS && is_routed_expert(t.role) &&
      t.ne[0] % traits(T::MXFP4).block_size == 0)
    return T::MXFP4;
  if (t.ne[0] % traits(p.default_type).block_size != 0) return keep;
  return p.default_type;
}

}  // namespace

const std::vector<QuantPreset>& all_quant_presets() {
  return kPresets;
}
const std::vector<QuantAlias>& quant_aliases() {
  return kAliases;
}

const QuantPreset* find_quant_preset(std::string_view name) {
  // Names as views, measured once: a plan file asks this for every plan.
  static const auto views = [] {
    std::vector<std::pair<std::string_view, std::string_view>> aliases;
    for (const auto& a : kAliases) aliases.emplace_back(a.alias, a.id);
    std::vector<std::string_view> ids;
    for (const auto& p : kPresets) ids.emplace_back(p.id);
    return std::make_pair(std::move(aliases), std::move(ids));
  }();
  const std::string low = lower(name);
  std::string_view n = low;
  for (const auto& [alias, id] : views.first)
    if (n == alias) n = id;
  for (size_t i = 0; i < views.second.size(); ++i)
    if (n == views.second[i]) return &kPresets[i];
  return nullptr;
}

const QuantPreset* find_quant_preset(Ftype f) {
  for (const auto& p : kPresets)
    if (p.ftype == f) return &p;
  return nullptr;
}

bool assumes_imatrix(const QuantPreset& p) {
  // IQ4_NL/IQ4_XS files are commonly made without one: llama.cpp's quantize README table for
  // Llama-3.1-8B (IQ4_XS 4.17 GiB, IQ4_NL 4.38 GiB) matches the no-imatrix rule (first ffn_down
  // Q5_K).
  return any_of(p.ftype,
                {F::IQ1_S, F::IQ1_M, F::IQ2_XXS, F::IQ2_XS, F::IQ2_S, F::IQ2_M, F::IQ3_XXS});
}

std::vector<TensorType> assign_tensor_types(const ModelSpec& m,
                                            const std::vector<TensorDesc>& tensors,
                                            const QuantPreset& p) {
  std::vector<TensorType> out;
  out.reserve(tensors.size());
  if (!p.gguf) {
    for (const auto& t : tensors) out.push_back(hf_type(t, p));
    return out;
  }
  QuantState qs;
  qs.has_imatrix = assumes_imatrix(p);
  for (const auto& t : tensors) {
    if (t.bias || t.n_dims < 2) continue;
    if (t.role == R::output) qs.has_output = true;
    // llama_model_quantize_impl at the same commit: attn_v, attn_qkv and attn_kv_b count as V
    // tensors; the FFN counters are hparams.n_layer (every block, next-n layers included), not
    // the number of ffn_* tensors (a layer with experts and a shared expert has two ffn_down).
    if (t.role == R::attn_v || t.role == R::attn_qkv || t.role == R::attn_kv_b) ++qs.n_attention_wv;
  }
  qs.n_ffn_down = qs.n_ffn_gate = qs.n_ffn_up = static_cast<int>(m.n_layer + m.n_layer_nextn);
  const bool quantized_default = traits(p.default_type).quantized;
  for (const auto& t : tensors) {
    // convert_hf_to_gguf.py stores 1-D tensors, biases and the MoE router as F32; llama-quantize
    // leaves them (and anything not named *.weight) unquantized.
    // llama-quant.cpp also keeps Mamba's small 2-D tensors (ssm_conv1d, shortconv.conv, and
    // ssm_a / ssm_d of one column) unquantized.
    // BERT: convert_hf_to_gguf.py writes POS_EMBD and TOKEN_TYPES in F32 ("Some tensor types
    // are always in float32") and llama-quant.cpp skips both.
    const bool bert_f32 = m.arch == Arch::bert && (t.role == R::position_embd);
    const bool quantize = !t.bias && t.n_dims >= 2 && t.role != R::ffn_gate_inp &&
                          t.role != R::ffn_exp_probs_b && t.role != R::token_types && !bert_f32 &&
                          !is_small_state_tensor(t.role);
    if (m.arch == Arch::gpt_oss && is_routed_expert(t.role) && !t.bias && p.ftype != F::ALL_F32) {
      // gpt-oss: convert_hf_to_gguf.py writes the experts in their published MXFP4 and
      // llama-quantize keeps them, whatever the file type (every gpt-oss GGUF is ~MXFP4-sized).
      out.push_back(T::MXFP4);
    } else if (t.role == R::position_embd && !bert_f32) {
      // llama-quantize skips position embeddings; convert_hf_to_gguf.py stores them as F16.
      out.push_back(p.ftype == F::ALL_F32 ? T::F32 : p.default_type == T::BF16 ? T::BF16 : T::F16);
    } else if (!quantize || p.ftype == F::ALL_F32 || (!t.bias && is_f32_always(t.role))) {
      out.push_back(T::F32);
    } else if (!quantized_default) {
      // f16 / bf16: no per-tensor rules but conversion/base.py's F32 list, where the DSA
      // indexer's head weights (INDEXER_PROJ) are; llama-quantize then quantizes them.
      out.push_back(t.role == R::indexer_proj ? T::F32 : p.default_type);
    } else if (kept_16_bit(t.role)) {
      out.push_back(T::F16);  // the converted file's F16 or BF16: 2 B a value either way
    } else {
      out.push_back(get_type(qs, m, t, p.ftype, p.default_type));
    }
  }
  return out;
}

}  // namespace llmsize
