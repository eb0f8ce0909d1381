// For each new architecture, a small GGUF whose tensor list is llama.cpp's own, written down here
// from ggml-org/llama.cpp at commit de3ff815 (src/models/<arch>.cpp load_arch_tensors,
// src/llama-model.cpp create_tensor_qkv / create_tensor_gate_up_exps), not from llmsize's tensor
// builder, in the types an f16 conversion stores them (conversion/base.py at the same commit:
// 1-D tensors, "*_norm.weight", anything not named ".weight" (biases, ssm_a, ssm_d),
// ffn_gate_inp(_shexp), ssm_conv1d, shortconv.conv, the DSA indexer_proj and Gemma 3n's
// altup_correct_coef / altup_predict_coef in F32, the rest
// F16; gpt-oss experts stay MXFP4, conversion/gpt_oss.py). The reader must parse the header, and
// the weights llmsize computes from the spec it read must equal the file's tensor bytes exactly,
// tensor by tensor.
#include <catch2/catch.hpp>
#include <cstdio>
#include <functional>
#include <map>
#include <regex>
#include <string>

#include "io/json_readers.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/model_file.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/model/tensors.hpp"
#include "model_file_writer.hpp"
#include "test_util.hpp"

using namespace llmsize;
using namespace llmsize::test;

namespace {

// A GGUF written tensor by tensor, remembering each tensor's shape and bytes.
struct LlamaCppFile {
  GgufWriter w;
  std::map<std::string, std::vector<uint64_t>> shapes;
  std::map<std::string, uint64_t> bytes;

  static bool ends_with(const std::string& s, const std::string& e) {
    return s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0;
  }
  // conversion/base.py (de3ff815) prepare_tensors: the F32 rules of an f16 conversion.
  static bool stored_f32(const std::string& n, size_t n_dims) {
    if (n_dims <= 1 || ends_with(n, "_norm.weight") || !ends_with(n, ".weight")) return true;
    for (const char* k : {"ffn_gate_inp.weight", "ffn_gate_inp_shexp.weight", "ssm_conv1d.weight",
                          "shortconv.conv.weight", "indexer.proj.weight",
                          "altup_correct_coef.weight", "altup_predict_coef.weight"})
      if (ends_with(n, k)) return true;
    return false;
  }
  void t(const std::string& name, std::vector<uint64_t> ne, bool mxfp4 = false) {
    // MXFP4: ggml type 39, 32 values in 17 B (ggml-common.h block_mxfp4).
    constexpr GgmlBlock kMXFP4{39, 32, 17};
    const GgmlBlock b = mxfp4 ? kMXFP4 : stored_f32(name, ne.size()) ? kF32 : kF16;
    uint64_t n = 1;
    for (auto x : ne) n *= x;
    bytes[name] = n / b.block * b.size;
    shapes[name] = ne;
    w.tensor(name, b, std::move(ne));
  }
  // "blk.<il>.<name>"
  void l(uint32_t il, const std::string& name, std::vector<uint64_t> ne, bool mxfp4 = false) {
    t("blk." + std::to_string(il) + "." + name, std::move(ne), mxfp4);
  }
};

struct Case {
  const char* arch;
  std::function<void(LlamaCppFile&)> write;
};

// Sizes shared by the cases: n_embd 256, vocab 512.
constexpr uint64_t E = 256, V = 512;

void embeddings(LlamaCppFile& f, bool output = true, const char* out_norm = "output_norm") {
  f.t("token_embd.weight", {E, V});
  f.t(std::string(out_norm) + ".weight", {E});
  if (output) f.t("output.weight", {E, V});
}

// DeepSeek-V3 / Kimi-K2 / GLM-4.7-Flash / Mistral Large 3 as llama.cpp's deepseek2 loads them
// (src/models/deepseek2.cpp load_arch_tensors): MLA with the absorbed attn_k_b / attn_v_b that
// conversion/deepseek.py splits kv_b_proj into; q through q_a / q_b when q_lora_rank is given,
// else one attn_q; leading dense layers, then the router, its score bias, experts and the
// shared experts. Sizes: 4 heads, kv_lora_rank 64, rope 16, nope 32, v 32, q_lora 96; 8 experts
// of 64, one shared, 1 leading dense layer of 512, 3 layers.
void deepseek2(LlamaCppFile& f, bool q_lora) {
  const uint64_t H = 4, kv_lora = 64, rope = 16, nope = 32, hv = 32, q_r = 96, ne = 8, ff = 64;
  GgufWriter& w = f.w;
  w.u32("deepseek2.block_count", 3).u32("deepseek2.embedding_length", E);
  w.u32("deepseek2.context_length", 4096).u32("deepseek2.feed_forward_length", 512);
  w.u32("deepseek2.attention.head_count", H).u32("deepseek2.attention.head_count_kv", 1);
  // MLA files: key/value_length are the latent's, *_mla the decompressed heads'.
  w.u32("deepseek2.attention.key_length", kv_lora + rope);
  w.u32("deepseek2.attention.value_length", kv_lora);
  w.u32("deepseek2.attention.key_length_mla", nope + rope);
  w.u32("deepseek2.attention.value_length_mla", hv);
  w.u32("deepseek2.rope.dimension_count", rope).u32("deepseek2.attention.kv_lora_rank", kv_lora);
  if (q_lora) w.u32("deepseek2.attention.q_lora_rank", q_r);
  w.u32("deepseek2.expert_count", ne).u32("deepseek2.expert_used_count", 2);
  w.u32("deepseek2.expert_shared_count", 1).u32("deepseek2.expert_feed_forward_length", ff);
  w.u32("deepseek2.leading_dense_block_count", 1);
  embeddings(f);
  for (uint32_t il = 0; il < 3; ++il) {
    f.l(il, "attn_norm.weight", {E});
    if (q_lora) f.l(il, "attn_q_a_norm.weight", {q_r});
    f.l(il, "attn_kv_a_norm.weight", {kv_lora});
    if (q_lora) {
      f.l(il, "attn_q_a.weight", {E, q_r});
      f.l(il, "attn_q_b.weight", {q_r, H * (nope + rope)});
    } else {
      f.l(il, "attn_q.weight", {E, H * (nope + rope)});
    }
    f.l(il, "attn_kv_a_mqa.weight", {E, kv_lora + rope});
    f.l(il, "attn_k_b.weight", {nope, kv_lora, H});
    f.l(il, "attn_v_b.weight", {kv_lora, hv, H});
    f.l(il, "attn_output.weight", {H * hv, E});
    f.l(il, "ffn_norm.weight", {E});
    if (il < 1) {
      f.l(il, "ffn_gate.weight", {E, 512});
      f.l(il, "ffn_down.weight", {512, E});
      f.l(il, "ffn_up.weight", {E, 512});
      continue;
    }
    f.l(il, "ffn_gate_inp.weight", {E, ne});
    f.l(il, "exp_probs_b.bias", {ne});
    f.l(il, "ffn_down_exps.weight", {ff, E, ne});
    f.l(il, "ffn_gate_exps.weight", {E, ff, ne});
    f.l(il, "ffn_up_exps.weight", {E, ff, ne});
    f.l(il, "ffn_gate_shexp.weight", {E, ff});
    f.l(il, "ffn_down_shexp.weight", {ff, E});
    f.l(il, "ffn_up_shexp.weight", {E, ff});
  }
}

const Case kCases[] = {
    {"deepseek2", [](LlamaCppFile& f) { deepseek2(f, true); }},
    {"deepseek2", [](LlamaCppFile& f) { deepseek2(f, false); }},
    // OLMo 2 (src/models/olmo2.cpp): no pre-norms; q norm n_embd wide, k norm n_head_kv x head;
    // post-attention and post-FFN norms. 4 heads of 64, 2 KV heads, 2 layers.
    {"olmo2",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("olmo2.block_count", 2).u32("olmo2.embedding_length", E);
       w.u32("olmo2.context_length", 4096).u32("olmo2.feed_forward_length", 512);
       w.u32("olmo2.attention.head_count", 4).u32("olmo2.attention.head_count_kv", 2);
       embeddings(f);
       for (uint32_t il = 0; il < 2; ++il) {
         f.l(il, "attn_q.weight", {E, E});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {E, E});
         f.l(il, "attn_q_norm.weight", {E});
         f.l(il, "attn_k_norm.weight", {128});
         f.l(il, "post_attention_norm.weight", {E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_up.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "post_ffw_norm.weight", {E});
       }
     }},
    // gpt-oss (src/models/openai-moe.cpp): post-attention norm, q/k/v of n_rot-wide heads with
    // biases (create_tensor_qkv), output bias, one sink per head; router with bias, experts with
    // biases, the experts MXFP4. 4 heads of 64, 2 KV heads, 4 experts of 64, SWA 128 on even
    // layers (set_swa_pattern(2)), 2 layers.
    {"gpt-oss",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("gpt-oss.block_count", 2).u32("gpt-oss.embedding_length", E);
       w.u32("gpt-oss.context_length", 4096).u32("gpt-oss.feed_forward_length", 64);
       w.u32("gpt-oss.attention.head_count", 4).u32("gpt-oss.attention.head_count_kv", 2);
       w.u32("gpt-oss.attention.key_length", 64).u32("gpt-oss.attention.value_length", 64);
       w.u32("gpt-oss.rope.dimension_count", 64).u32("gpt-oss.attention.sliding_window", 128);
       w.u32("gpt-oss.expert_count", 4).u32("gpt-oss.expert_used_count", 2);
       w.u32("gpt-oss.expert_feed_forward_length", 64);
       embeddings(f);
       for (uint32_t il = 0; il < 2; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "post_attention_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, 256});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_q.bias", {256});
         f.l(il, "attn_k.bias", {128});
         f.l(il, "attn_v.bias", {128});
         f.l(il, "attn_output.weight", {256, E});
         f.l(il, "attn_sinks.weight", {4});
         f.l(il, "ffn_gate_inp.weight", {E, 4});
         f.l(il, "ffn_gate_exps.weight", {E, 64, 4}, true);
         f.l(il, "ffn_down_exps.weight", {64, E, 4}, true);
         f.l(il, "ffn_up_exps.weight", {E, 64, 4}, true);
         f.l(il, "attn_output.bias", {E});
         f.l(il, "ffn_gate_inp.bias", {4});
         f.l(il, "ffn_gate_exps.bias", {64, 4});
         f.l(il, "ffn_down_exps.bias", {E, 4});
         f.l(il, "ffn_up_exps.bias", {64, 4});
       }
     }},
    // Qwen3.5 dense (src/models/qwen35.cpp): 3 gated delta-net layers then 1 full-attention
    // layer (full_attention_interval 4). Delta-net: attn_qkv (2 x key_dim + value_dim), attn_gate,
    // ssm_conv1d {d_conv, conv_dim}, ssm_dt bias, ssm_a, ssm_beta / ssm_alpha {n_embd, v heads},
    // ssm_norm {head_v_dim}, ssm_out. Attention: q doubled for the output gate, q/k norms of one
    // head. ssm: d_state 32 (head dims), 2 key heads (n_group), 4 value heads (dt_rank), inner 128,
    // conv 4; attention 4 heads of 64, 1 KV head.
    {"qwen35",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("qwen35.block_count", 4).u32("qwen35.embedding_length", E);
       w.u32("qwen35.context_length", 4096).u32("qwen35.feed_forward_length", 512);
       w.u32("qwen35.attention.head_count", 4).u32("qwen35.attention.head_count_kv", 1);
       w.u32("qwen35.attention.key_length", 64).u32("qwen35.attention.value_length", 64);
       w.u32("qwen35.full_attention_interval", 4);
       w.u32("qwen35.ssm.conv_kernel", 4).u32("qwen35.ssm.state_size", 32);
       w.u32("qwen35.ssm.group_count", 2).u32("qwen35.ssm.time_step_rank", 4);
       w.u32("qwen35.ssm.inner_size", 128);
       embeddings(f);
       const uint64_t key_dim = 32 * 2, value_dim = 32 * 4, conv_dim = 2 * key_dim + value_dim;
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "post_attention_norm.weight", {E});
         if (il % 4 == 3) {
           f.l(il, "attn_q.weight", {E, 2 * 4 * 64});
           f.l(il, "attn_k.weight", {E, 64});
           f.l(il, "attn_v.weight", {E, 64});
           f.l(il, "attn_output.weight", {4 * 64, E});
           f.l(il, "attn_q_norm.weight", {64});
           f.l(il, "attn_k_norm.weight", {64});
         } else {
           f.l(il, "attn_qkv.weight", {E, conv_dim});
           f.l(il, "attn_gate.weight", {E, value_dim});
           f.l(il, "ssm_conv1d.weight", {4, conv_dim});
           f.l(il, "ssm_dt.bias", {4});
           f.l(il, "ssm_a", {4});
           f.l(il, "ssm_beta.weight", {E, 4});
           f.l(il, "ssm_alpha.weight", {E, 4});
           f.l(il, "ssm_norm.weight", {32});
           f.l(il, "ssm_out.weight", {value_dim, E});
         }
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "ffn_up.weight", {E, 512});
       }
     }},
    // Nemotron-H (src/models/nemotron-h.cpp): one attn_norm per block; Mamba2 blocks (KV heads 0):
    // ssm_in {n_embd, 2 d_inner + 2 n_group d_state + heads}, ssm_conv1d and its bias, ssm_dt
    // bias, ssm_a / ssm_d {1, heads}, the grouped ssm_norm {d_inner / n_group, n_group} (a 2-D
    // "_norm.weight", F32), ssm_out; attention blocks (n_ff 0); MLP blocks up + down (relu^2).
    // Pattern M - M * - M: d_inner 256 (8 heads of 32), d_state 16, 2 groups, conv 4.
    {"nemotron_h",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("nemotron_h.block_count", 6).u32("nemotron_h.embedding_length", E);
       w.u32("nemotron_h.context_length", 4096);
       w.u32s("nemotron_h.feed_forward_length", {0, 512, 0, 0, 512, 0});
       w.u32s("nemotron_h.attention.head_count", {4, 4, 4, 4, 4, 4});
       w.u32s("nemotron_h.attention.head_count_kv", {0, 0, 0, 2, 0, 0});
       w.u32("nemotron_h.attention.key_length", 64).u32("nemotron_h.attention.value_length", 64);
       w.u32("nemotron_h.ssm.conv_kernel", 4).u32("nemotron_h.ssm.inner_size", 256);
       w.u32("nemotron_h.ssm.state_size", 16).u32("nemotron_h.ssm.time_step_rank", 8);
       w.u32("nemotron_h.ssm.group_count", 2);
       embeddings(f);
       const uint64_t d_inner = 256, conv = d_inner + 2 * 2 * 16, heads = 8;
       const char* kind = "M-M*-M";
       for (uint32_t il = 0; il < 6; ++il) {
         f.l(il, "attn_norm.weight", {E});
         if (kind[il] == 'M') {
           f.l(il, "ssm_in.weight", {E, 2 * d_inner + 2 * 2 * 16 + heads});
           f.l(il, "ssm_conv1d.weight", {4, conv});
           f.l(il, "ssm_conv1d.bias", {conv});
           f.l(il, "ssm_dt.bias", {heads});
           f.l(il, "ssm_a", {1, heads});
           f.l(il, "ssm_d", {1, heads});
           f.l(il, "ssm_norm.weight", {d_inner / 2, 2});
           f.l(il, "ssm_out.weight", {d_inner, E});
         } else if (kind[il] == '*') {
           f.l(il, "attn_q.weight", {E, 256});
           f.l(il, "attn_k.weight", {E, 128});
           f.l(il, "attn_v.weight", {E, 128});
           f.l(il, "attn_output.weight", {256, E});
         } else {
           f.l(il, "ffn_down.weight", {512, E});
           f.l(il, "ffn_up.weight", {E, 512});
         }
       }
     }},
    // LFM2 (src/models/lfm2.cpp): ffn_norm and a dense FFN in every layer, attn_norm; attention
    // layers with q/k norms of one head; short-conv layers (KV heads 0): shortconv.conv
    // {l_cache, n_embd}, in_proj {n_embd, 3 n_embd}, out_proj; the final norm is token_embd_norm
    // (LLM_TENSOR_OUTPUT_NORM_LFM2), output tied. 4 heads of 64, 2 KV heads, l_cache 3.
    {"lfm2",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("lfm2.block_count", 4).u32("lfm2.embedding_length", E);
       w.u32("lfm2.context_length", 4096).u32("lfm2.feed_forward_length", 512);
       w.u32("lfm2.attention.head_count", 4);
       w.u32s("lfm2.attention.head_count_kv", {0, 0, 2, 0});
       w.u32("lfm2.shortconv.l_cache", 3);
       embeddings(f, false, "token_embd_norm");
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "ffn_up.weight", {E, 512});
         f.l(il, "attn_norm.weight", {E});
         if (il == 2) {
           f.l(il, "attn_q_norm.weight", {64});
           f.l(il, "attn_k_norm.weight", {64});
           f.l(il, "attn_q.weight", {E, E});
           f.l(il, "attn_k.weight", {E, 128});
           f.l(il, "attn_v.weight", {E, 128});
           f.l(il, "attn_output.weight", {E, E});
         } else {
           f.l(il, "shortconv.conv.weight", {3, E});
           f.l(il, "shortconv.in_proj.weight", {E, 3 * E});
           f.l(il, "shortconv.out_proj.weight", {E, E});
         }
       }
     }},
    // Llama 4 (src/models/llama4.cpp): every n_moe_layer_step-th layer MoE ((il + 1) % 2 == 0
    // here) with a shared expert as wide as a routed one, the others a dense FFN of n_ff; 4 heads
    // of 64, 2 KV heads, 4 experts of 128, dense 512; chunked 3 : 1 (hard-coded 8192, NoPE
    // globals), 4 layers.
    {"llama4",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("llama4.block_count", 4).u32("llama4.embedding_length", E);
       w.u32("llama4.context_length", 4096).u32("llama4.feed_forward_length", 512);
       w.u32("llama4.attention.head_count", 4).u32("llama4.attention.head_count_kv", 2);
       w.u32("llama4.rope.dimension_count", 64);
       w.u32("llama4.expert_count", 4).u32("llama4.expert_used_count", 1);
       w.u32("llama4.expert_feed_forward_length", 128);
       w.u32("llama4.interleave_moe_layer_step", 2);
       embeddings(f);
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, 256});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {256, E});
         f.l(il, "ffn_norm.weight", {E});
         if ((il + 1) % 2 == 0) {
           f.l(il, "ffn_gate_inp.weight", {E, 4});
           f.l(il, "ffn_gate_exps.weight", {E, 128, 4});
           f.l(il, "ffn_down_exps.weight", {128, E, 4});
           f.l(il, "ffn_up_exps.weight", {E, 128, 4});
           f.l(il, "ffn_gate_shexp.weight", {E, 128});
           f.l(il, "ffn_down_shexp.weight", {128, E});
           f.l(il, "ffn_up_shexp.weight", {E, 128});
         } else {
           f.l(il, "ffn_gate.weight", {E, 512});
           f.l(il, "ffn_down.weight", {512, E});
           f.l(il, "ffn_up.weight", {E, 512});
         }
       }
     }},
    // GLM-4.5 family (src/models/glm4-moe.cpp): q/k/v with biases, q/k norms of one head,
    // post_attention_norm before the FFN (no ffn_norm); 1 leading dense layer, then router,
    // exp_probs_b, experts and the shared expert; the MTP block (il = n_layer) is a whole MoE
    // block plus nextn.eh_proj / enorm / hnorm / shared_head_norm. 4 heads of 64, 2 KV heads,
    // 8 experts of 64, 3 layers + 1 MTP.
    {"glm4moe",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("glm4moe.block_count", 4).u32("glm4moe.embedding_length", E);
       w.u32("glm4moe.context_length", 4096).u32("glm4moe.feed_forward_length", 512);
       w.u32("glm4moe.attention.head_count", 4).u32("glm4moe.attention.head_count_kv", 2);
       w.u32("glm4moe.attention.key_length", 64).u32("glm4moe.attention.value_length", 64);
       w.u32("glm4moe.expert_count", 8).u32("glm4moe.expert_used_count", 2);
       w.u32("glm4moe.expert_shared_count", 1).u32("glm4moe.expert_feed_forward_length", 64);
       w.u32("glm4moe.leading_dense_block_count", 1).u32("glm4moe.nextn_predict_layers", 1);
       embeddings(f);
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, 256});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_q.bias", {256});
         f.l(il, "attn_k.bias", {128});
         f.l(il, "attn_v.bias", {128});
         f.l(il, "attn_output.weight", {256, E});
         f.l(il, "attn_q_norm.weight", {64});
         f.l(il, "attn_k_norm.weight", {64});
         f.l(il, "post_attention_norm.weight", {E});
         if (il >= 1) {
           f.l(il, "ffn_gate_inp.weight", {E, 8});
           f.l(il, "exp_probs_b.bias", {8});
           f.l(il, "ffn_gate_exps.weight", {E, 64, 8});
           f.l(il, "ffn_down_exps.weight", {64, E, 8});
           f.l(il, "ffn_up_exps.weight", {E, 64, 8});
           f.l(il, "ffn_gate_shexp.weight", {E, 64});
           f.l(il, "ffn_down_shexp.weight", {64, E});
           f.l(il, "ffn_up_shexp.weight", {E, 64});
         } else {
           f.l(il, "ffn_gate.weight", {E, 512});
           f.l(il, "ffn_down.weight", {512, E});
           f.l(il, "ffn_up.weight", {E, 512});
         }
         if (il == 3) {
           f.l(il, "nextn.eh_proj.weight", {2 * E, E});
           f.l(il, "nextn.enorm.weight", {E});
           f.l(il, "nextn.hnorm.weight", {E});
           f.l(il, "nextn.shared_head_norm.weight", {E});
         }
       }
     }},
    // MiniMax-M2 (src/models/minimax-m2.cpp): q norm over all heads {n_head x hk}, k norm over
    // n_embd_k_gqa; experts as wide as feed_forward_length; exp_probs_b; no shared expert.
    // 4 heads of 64, 2 KV heads, 8 experts of 64, 2 layers.
    {"minimax-m2",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("minimax-m2.block_count", 2).u32("minimax-m2.embedding_length", E);
       w.u32("minimax-m2.context_length", 4096).u32("minimax-m2.feed_forward_length", 64);
       w.u32("minimax-m2.attention.head_count", 4).u32("minimax-m2.attention.head_count_kv", 2);
       w.u32("minimax-m2.attention.key_length", 64).u32("minimax-m2.attention.value_length", 64);
       w.u32("minimax-m2.expert_count", 8).u32("minimax-m2.expert_used_count", 2);
       w.u32("minimax-m2.expert_feed_forward_length", 64);
       embeddings(f);
       for (uint32_t il = 0; il < 2; ++il) {
         f.l(il, "attn_q.weight", {E, 256});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {256, E});
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q_norm.weight", {256});
         f.l(il, "attn_k_norm.weight", {128});
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "ffn_gate_inp.weight", {E, 8});
         f.l(il, "ffn_gate_exps.weight", {E, 64, 8});
         f.l(il, "ffn_down_exps.weight", {64, E, 8});
         f.l(il, "ffn_up_exps.weight", {E, 64, 8});
         f.l(il, "exp_probs_b.bias", {8});
       }
     }},
    // Command R7B / Command A (src/models/cohere2.cpp): one attn_norm feeding attention and FFN
    // in parallel, output tied to token_embd; SWA 3 : 1 with a window. 4 heads of 64, 2 KV heads,
    // 4 layers.
    {"cohere2",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("cohere2.block_count", 4).u32("cohere2.embedding_length", E);
       w.u32("cohere2.context_length", 4096).u32("cohere2.feed_forward_length", 512);
       w.u32("cohere2.attention.head_count", 4).u32("cohere2.attention.head_count_kv", 2);
       w.u32("cohere2.attention.sliding_window", 64);
       embeddings(f, false);
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, E});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {E, E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "ffn_up.weight", {E, 512});
       }
     }},
    // SmolLM3 (src/models/smollm3.cpp): Llama blocks (NoPE every 4th layer changes no tensor).
    {"smollm3",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("smollm3.block_count", 4).u32("smollm3.embedding_length", E);
       w.u32("smollm3.context_length", 4096).u32("smollm3.feed_forward_length", 512);
       w.u32("smollm3.attention.head_count", 4).u32("smollm3.attention.head_count_kv", 2);
       embeddings(f, false);
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, E});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {E, E});
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "ffn_up.weight", {E, 512});
       }
     }},
    // Seed-OSS (src/models/seed-oss.cpp): q/k/v biases, post_attention_norm before the FFN (no
    // ffn_norm). 4 heads of 128 (wider than n_embd / n_head), 2 KV heads, 2 layers.
    {"seed_oss",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("seed_oss.block_count", 2).u32("seed_oss.embedding_length", E);
       w.u32("seed_oss.context_length", 4096).u32("seed_oss.feed_forward_length", 512);
       w.u32("seed_oss.attention.head_count", 4).u32("seed_oss.attention.head_count_kv", 2);
       w.u32("seed_oss.attention.key_length", 128).u32("seed_oss.attention.value_length", 128);
       embeddings(f);
       for (uint32_t il = 0; il < 2; ++il) {
         f.l(il, "attn_q.weight", {E, 512});
         f.l(il, "attn_k.weight", {E, 256});
         f.l(il, "attn_v.weight", {E, 256});
         f.l(il, "attn_q.bias", {512});
         f.l(il, "attn_k.bias", {256});
         f.l(il, "attn_v.bias", {256});
         f.l(il, "attn_output.weight", {512, E});
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "post_attention_norm.weight", {E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_up.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
       }
     }},
    // Ministral 3 / Mistral Large 3 text (src/models/mistral3.cpp): Llama blocks, head_dim given.
    {"mistral3",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("mistral3.block_count", 2).u32("mistral3.embedding_length", E);
       w.u32("mistral3.context_length", 4096).u32("mistral3.feed_forward_length", 512);
       w.u32("mistral3.attention.head_count", 4).u32("mistral3.attention.head_count_kv", 2);
       w.u32("mistral3.attention.key_length", 128).u32("mistral3.attention.value_length", 128);
       embeddings(f);
       for (uint32_t il = 0; il < 2; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, 512});
         f.l(il, "attn_k.weight", {E, 256});
         f.l(il, "attn_v.weight", {E, 256});
         f.l(il, "attn_output.weight", {512, E});
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "ffn_up.weight", {E, 512});
       }
     }},
    // Granite-4.0-H (src/models/granite-hybrid.cpp): attn_norm and ffn_norm in every block;
    // Mamba2 blocks (KV heads 0) as Nemotron-H's with d_inner = 2 n_embd; attention blocks; MoE
    // FFN of feed_forward_length-wide experts and a shared expert. 4 heads of 64, 2 KV heads;
    // Mamba2 8 heads x 64, d_state 16, 1 group, conv 4; 4 experts of 64, shared 128; 4 layers,
    // attention at 2.
    {"granitehybrid",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("granitehybrid.block_count", 4).u32("granitehybrid.embedding_length", E);
       w.u32("granitehybrid.context_length", 4096).u32("granitehybrid.feed_forward_length", 64);
       w.u32("granitehybrid.attention.head_count", 4);
       w.u32s("granitehybrid.attention.head_count_kv", {0, 0, 2, 0});
       w.u32("granitehybrid.expert_count", 4).u32("granitehybrid.expert_used_count", 2);
       w.u32("granitehybrid.expert_shared_feed_forward_length", 128);
       w.u32("granitehybrid.ssm.conv_kernel", 4).u32("granitehybrid.ssm.inner_size", 2 * E);
       w.u32("granitehybrid.ssm.state_size", 16).u32("granitehybrid.ssm.time_step_rank", 8);
       w.u32("granitehybrid.ssm.group_count", 1);
       embeddings(f);
       const uint64_t d_inner = 2 * E, conv = d_inner + 2 * 16, heads = 8;
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "attn_norm.weight", {E});
         if (il != 2) {
           f.l(il, "ssm_in.weight", {E, 2 * d_inner + 2 * 16 + heads});
           f.l(il, "ssm_conv1d.weight", {4, conv});
           f.l(il, "ssm_conv1d.bias", {conv});
           f.l(il, "ssm_dt.bias", {heads});
           f.l(il, "ssm_a", {1, heads});
           f.l(il, "ssm_d", {1, heads});
           f.l(il, "ssm_norm.weight", {d_inner, 1});
           f.l(il, "ssm_out.weight", {d_inner, E});
         } else {
           f.l(il, "attn_q.weight", {E, E});
           f.l(il, "attn_k.weight", {E, 128});
           f.l(il, "attn_v.weight", {E, 128});
           f.l(il, "attn_output.weight", {E, E});
         }
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "ffn_gate_inp.weight", {E, 4});
         f.l(il, "ffn_gate_exps.weight", {E, 64, 4});
         f.l(il, "ffn_down_exps.weight", {64, E, 4});
         f.l(il, "ffn_up_exps.weight", {E, 64, 4});
         f.l(il, "ffn_gate_shexp.weight", {E, 128});
         f.l(il, "ffn_up_shexp.weight", {E, 128});
         f.l(il, "ffn_down_shexp.weight", {128, E});
       }
     }},
    // ERNIE-4.5-MoE (src/models/ernie4-5.cpp, arch ernie4_5-moe): 1 leading dense layer, then the
    // router, exp_probs_b, experts of 64 and shared experts 128 wide. 4 heads of 64, 2 KV heads,
    // 8 experts, 3 layers.
    {"ernie4_5-moe",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("ernie4_5-moe.block_count", 3).u32("ernie4_5-moe.embedding_length", E);
       w.u32("ernie4_5-moe.context_length", 4096).u32("ernie4_5-moe.feed_forward_length", 512);
       w.u32("ernie4_5-moe.attention.head_count", 4);
       w.u32("ernie4_5-moe.attention.head_count_kv", 2);
       w.u32("ernie4_5-moe.expert_count", 8).u32("ernie4_5-moe.expert_used_count", 2);
       w.u32("ernie4_5-moe.expert_feed_forward_length", 64);
       w.u32("ernie4_5-moe.expert_shared_feed_forward_length", 128);
       w.u32("ernie4_5-moe.leading_dense_block_count", 1);
       embeddings(f);
       for (uint32_t il = 0; il < 3; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, E});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {E, E});
         f.l(il, "ffn_norm.weight", {E});
         if (il == 0) {
           f.l(il, "ffn_gate.weight", {E, 512});
           f.l(il, "ffn_down.weight", {512, E});
           f.l(il, "ffn_up.weight", {E, 512});
           continue;
         }
         f.l(il, "ffn_gate_inp.weight", {E, 8});
         f.l(il, "exp_probs_b.bias", {8});
         f.l(il, "ffn_gate_exps.weight", {E, 64, 8});
         f.l(il, "ffn_down_exps.weight", {64, E, 8});
         f.l(il, "ffn_up_exps.weight", {E, 64, 8});
         f.l(il, "ffn_gate_shexp.weight", {E, 128});
         f.l(il, "ffn_down_shexp.weight", {128, E});
         f.l(il, "ffn_up_shexp.weight", {E, 128});
       }
     }},
    // Hunyuan-A13B (src/models/hunyuan-moe.cpp): q/k norms of one head, experts as wide as
    // feed_forward_length, one shared expert (n_ff_shexp). 4 heads of 64, 2 KV heads, 8 experts
    // of 64, shared 128, 2 layers.
    {"hunyuan-moe",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("hunyuan-moe.block_count", 2).u32("hunyuan-moe.embedding_length", E);
       w.u32("hunyuan-moe.context_length", 4096).u32("hunyuan-moe.feed_forward_length", 64);
       w.u32("hunyuan-moe.attention.head_count", 4).u32("hunyuan-moe.attention.head_count_kv", 2);
       w.u32("hunyuan-moe.attention.key_length", 64).u32("hunyuan-moe.attention.value_length", 64);
       w.u32("hunyuan-moe.expert_count", 8).u32("hunyuan-moe.expert_used_count", 2);
       w.u32("hunyuan-moe.expert_shared_feed_forward_length", 128);
       embeddings(f);
       for (uint32_t il = 0; il < 2; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, 256});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {256, E});
         f.l(il, "attn_k_norm.weight", {64});
         f.l(il, "attn_q_norm.weight", {64});
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "ffn_gate_inp.weight", {E, 8});
         f.l(il, "ffn_gate_exps.weight", {E, 64, 8});
         f.l(il, "ffn_down_exps.weight", {64, E, 8});
         f.l(il, "ffn_up_exps.weight", {E, 64, 8});
         f.l(il, "ffn_gate_shexp.weight", {E, 128});
         f.l(il, "ffn_up_shexp.weight", {E, 128});
         f.l(il, "ffn_down_shexp.weight", {128, E});
       }
     }},
    // DeepSeek-V3.2 (src/models/deepseek32.cpp): deepseek2's MLA blocks (q through q_a / q_b)
    // plus the DSA indexer in every block, the MTP block too: indexer.k_norm with its bias,
    // indexer.proj {n_embd, indexer heads} (F32 in an f16 file, conversion/base.py),
    // indexer.attn_k {n_embd, key}, indexer.attn_q_b {q_lora, heads x key}. 4 heads, kv_lora 64,
    // rope 16, nope 32, v 32, q_lora 96; indexer 4 heads of 32; 8 experts of 64, one shared;
    // 1 dense + 2 MoE layers + 1 MTP block.
    {"deepseek32",
     [](LlamaCppFile& f) {
       const uint64_t H = 4, kv_lora = 64, rope = 16, nope = 32, hv = 32, q_r = 96, ne = 8, ff = 64,
                      ixh = 4, ixk = 32;
       GgufWriter& w = f.w;
       w.u32("deepseek32.block_count", 4).u32("deepseek32.embedding_length", E);
       w.u32("deepseek32.context_length", 4096).u32("deepseek32.feed_forward_length", 512);
       w.u32("deepseek32.attention.head_count", H).u32("deepseek32.attention.head_count_kv", 1);
       w.u32("deepseek32.attention.key_length", kv_lora + rope);
       w.u32("deepseek32.attention.value_length", kv_lora);
       w.u32("deepseek32.attention.key_length_mla", nope + rope);
       w.u32("deepseek32.attention.value_length_mla", hv);
       w.u32("deepseek32.rope.dimension_count", rope);
       w.u32("deepseek32.attention.kv_lora_rank", kv_lora);
       w.u32("deepseek32.attention.q_lora_rank", q_r);
       w.u32("deepseek32.attention.indexer.head_count", ixh);
       w.u32("deepseek32.attention.indexer.key_length", ixk);
       w.u32("deepseek32.expert_count", ne).u32("deepseek32.expert_used_count", 2);
       w.u32("deepseek32.expert_shared_count", 1).u32("deepseek32.expert_feed_forward_length", ff);
       w.u32("deepseek32.leading_dense_block_count", 1).u32("deepseek32.nextn_predict_layers", 1);
       embeddings(f);
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q_a_norm.weight", {q_r});
         f.l(il, "attn_kv_a_norm.weight", {kv_lora});
         f.l(il, "attn_q_a.weight", {E, q_r});
         f.l(il, "attn_q_b.weight", {q_r, H * (nope + rope)});
         f.l(il, "attn_kv_a_mqa.weight", {E, kv_lora + rope});
         f.l(il, "attn_k_b.weight", {nope, kv_lora, H});
         f.l(il, "attn_v_b.weight", {kv_lora, hv, H});
         f.l(il, "attn_output.weight", {H * hv, E});
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "indexer.k_norm.weight", {ixk});
         f.l(il, "indexer.k_norm.bias", {ixk});
         f.l(il, "indexer.proj.weight", {E, ixh});
         f.l(il, "indexer.attn_k.weight", {E, ixk});
         f.l(il, "indexer.attn_q_b.weight", {q_r, ixh * ixk});
         if (il < 1) {
           f.l(il, "ffn_gate.weight", {E, 512});
           f.l(il, "ffn_down.weight", {512, E});
           f.l(il, "ffn_up.weight", {E, 512});
         } else {
           f.l(il, "ffn_gate_inp.weight", {E, ne});
           f.l(il, "exp_probs_b.bias", {ne});
           f.l(il, "ffn_gate_exps.weight", {E, ff, ne});
           f.l(il, "ffn_down_exps.weight", {ff, E, ne});
           f.l(il, "ffn_up_exps.weight", {E, ff, ne});
           f.l(il, "ffn_gate_shexp.weight", {E, ff});
           f.l(il, "ffn_down_shexp.weight", {ff, E});
           f.l(il, "ffn_up_shexp.weight", {E, ff});
         }
         if (il == 3) {
           f.l(il, "nextn.eh_proj.weight", {2 * E, E});
           f.l(il, "nextn.enorm.weight", {E});
           f.l(il, "nextn.hnorm.weight", {E});
           f.l(il, "nextn.shared_head_norm.weight", {E});
         }
       }
     }},
    // Qwen3.5-MoE (src/models/qwen35moe.cpp): qwen35's delta-net / gated attention blocks with a
    // MoE FFN (router, experts, the shared expert and its sigmoid gate ffn_gate_inp_shexp
    // {n_embd}); the MTP block is a full-attention MoE block plus nextn.eh_proj / enorm / hnorm /
    // shared_head_norm. ssm as the qwen35 case; 4 experts of 64, shared 128; 4 layers + 1 MTP.
    {"qwen35moe",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("qwen35moe.block_count", 5).u32("qwen35moe.embedding_length", E);
       w.u32("qwen35moe.context_length", 4096).u32("qwen35moe.nextn_predict_layers", 1);
       w.u32("qwen35moe.attention.head_count", 4).u32("qwen35moe.attention.head_count_kv", 1);
       w.u32("qwen35moe.attention.key_length", 64).u32("qwen35moe.attention.value_length", 64);
       w.u32("qwen35moe.full_attention_interval", 4);
       w.u32("qwen35moe.expert_count", 4).u32("qwen35moe.expert_used_count", 2);
       w.u32("qwen35moe.expert_feed_forward_length", 64);
       w.u32("qwen35moe.expert_shared_feed_forward_length", 128);
       w.u32("qwen35moe.ssm.conv_kernel", 4).u32("qwen35moe.ssm.state_size", 32);
       w.u32("qwen35moe.ssm.group_count", 2).u32("qwen35moe.ssm.time_step_rank", 4);
       w.u32("qwen35moe.ssm.inner_size", 128);
       embeddings(f);
       const uint64_t key_dim = 32 * 2, value_dim = 32 * 4, conv_dim = 2 * key_dim + value_dim;
       for (uint32_t il = 0; il < 5; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "post_attention_norm.weight", {E});
         if (il % 4 == 3 || il == 4) {
           f.l(il, "attn_q.weight", {E, 2 * 4 * 64});
           f.l(il, "attn_k.weight", {E, 64});
           f.l(il, "attn_v.weight", {E, 64});
           f.l(il, "attn_output.weight", {4 * 64, E});
           f.l(il, "attn_q_norm.weight", {64});
           f.l(il, "attn_k_norm.weight", {64});
         } else {
           f.l(il, "attn_qkv.weight", {E, conv_dim});
           f.l(il, "attn_gate.weight", {E, value_dim});
           f.l(il, "ssm_conv1d.weight", {4, conv_dim});
           f.l(il, "ssm_dt.bias", {4});
           f.l(il, "ssm_a", {4});
           f.l(il, "ssm_beta.weight", {E, 4});
           f.l(il, "ssm_alpha.weight", {E, 4});
           f.l(il, "ssm_norm.weight", {32});
           f.l(il, "ssm_out.weight", {value_dim, E});
         }
         f.l(il, "ffn_gate_inp.weight", {E, 4});
         f.l(il, "ffn_down_exps.weight", {64, E, 4});
         f.l(il, "ffn_gate_exps.weight", {E, 64, 4});
         f.l(il, "ffn_up_exps.weight", {E, 64, 4});
         f.l(il, "ffn_gate_inp_shexp.weight", {E});
         f.l(il, "ffn_gate_shexp.weight", {E, 128});
         f.l(il, "ffn_up_shexp.weight", {E, 128});
         f.l(il, "ffn_down_shexp.weight", {128, E});
         if (il == 4) {
           f.l(il, "nextn.eh_proj.weight", {2 * E, E});
           f.l(il, "nextn.enorm.weight", {E});
           f.l(il, "nextn.hnorm.weight", {E});
           f.l(il, "nextn.shared_head_norm.weight", {E});
         }
       }
     }},
    // Qwen3-Next (src/models/qwen3next.cpp): the delta-net's fused ssm_in {n_embd, 2 key_dim +
    // 2 value_dim} (q, k, v and the gate z) and ssm_ba {n_embd, 2 v heads}; gated attention every
    // 4th layer; a MoE FFN with a gated shared expert in every layer. ssm: d_state 32, 2 key
    // heads, 4 value heads, conv 4; attention 4 heads of 64, 1 KV head; 4 experts of 64, shared
    // 128; 4 layers.
    {"qwen3next",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("qwen3next.block_count", 4).u32("qwen3next.embedding_length", E);
       w.u32("qwen3next.context_length", 4096);
       w.u32("qwen3next.attention.head_count", 4).u32("qwen3next.attention.head_count_kv", 1);
       w.u32("qwen3next.attention.key_length", 64).u32("qwen3next.attention.value_length", 64);
       w.u32("qwen3next.full_attention_interval", 4);
       w.u32("qwen3next.expert_count", 4).u32("qwen3next.expert_used_count", 2);
       w.u32("qwen3next.expert_feed_forward_length", 64);
       w.u32("qwen3next.expert_shared_feed_forward_length", 128);
       w.u32("qwen3next.ssm.conv_kernel", 4).u32("qwen3next.ssm.state_size", 32);
       w.u32("qwen3next.ssm.group_count", 2).u32("qwen3next.ssm.time_step_rank", 4);
       w.u32("qwen3next.ssm.inner_size", 128);
       embeddings(f);
       const uint64_t key_dim = 32 * 2, value_dim = 32 * 4, conv_dim = 2 * key_dim + value_dim;
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "post_attention_norm.weight", {E});
         if (il == 3) {
           f.l(il, "attn_q.weight", {E, 2 * 4 * 64});
           f.l(il, "attn_k.weight", {E, 64});
           f.l(il, "attn_v.weight", {E, 64});
           f.l(il, "attn_output.weight", {4 * 64, E});
           f.l(il, "attn_q_norm.weight", {64});
           f.l(il, "attn_k_norm.weight", {64});
         } else {
           f.l(il, "ssm_in.weight", {E, 2 * key_dim + 2 * value_dim});
           f.l(il, "ssm_conv1d.weight", {4, conv_dim});
           f.l(il, "ssm_dt.bias", {4});
           f.l(il, "ssm_a", {4});
           f.l(il, "ssm_ba.weight", {E, 2 * 4});
           f.l(il, "ssm_norm.weight", {32});
           f.l(il, "ssm_out.weight", {value_dim, E});
         }
         f.l(il, "ffn_gate_inp.weight", {E, 4});
         f.l(il, "ffn_down_exps.weight", {64, E, 4});
         f.l(il, "ffn_gate_exps.weight", {E, 64, 4});
         f.l(il, "ffn_up_exps.weight", {E, 64, 4});
         f.l(il, "ffn_gate_inp_shexp.weight", {E});
         f.l(il, "ffn_gate_shexp.weight", {E, 128});
         f.l(il, "ffn_up_shexp.weight", {E, 128});
         f.l(il, "ffn_down_shexp.weight", {128, E});
       }
     }},
    // Nemotron 3 Nano (nemotron_h_moe, llama_model_nemotron_h's load_arch_tensors): Mamba2 and
    // attention blocks as nemotron_h; MoE blocks (n_ff(il) != 0 with experts): router,
    // exp_probs_b, relu^2 experts up + down (no gate) and the shared expert's up + down.
    // Pattern M E M * E M; 8 experts of 64, shared 128.
    {"nemotron_h_moe",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("nemotron_h_moe.block_count", 6).u32("nemotron_h_moe.embedding_length", E);
       w.u32("nemotron_h_moe.context_length", 4096);
       w.u32s("nemotron_h_moe.feed_forward_length", {0, 64, 0, 0, 64, 0});
       w.u32s("nemotron_h_moe.attention.head_count", {4, 4, 4, 4, 4, 4});
       w.u32s("nemotron_h_moe.attention.head_count_kv", {0, 0, 0, 2, 0, 0});
       w.u32("nemotron_h_moe.attention.key_length", 64);
       w.u32("nemotron_h_moe.attention.value_length", 64);
       w.u32("nemotron_h_moe.expert_count", 8).u32("nemotron_h_moe.expert_used_count", 2);
       w.u32("nemotron_h_moe.expert_feed_forward_length", 64);
       w.u32("nemotron_h_moe.expert_shared_feed_forward_length", 128);
       w.u32("nemotron_h_moe.ssm.conv_kernel", 4).u32("nemotron_h_moe.ssm.inner_size", 256);
       w.u32("nemotron_h_moe.ssm.state_size", 16).u32("nemotron_h_moe.ssm.time_step_rank", 8);
       w.u32("nemotron_h_moe.ssm.group_count", 2);
       embeddings(f);
       const uint64_t d_inner = 256, conv = d_inner + 2 * 2 * 16, heads = 8;
       const char* kind = "MEM*EM";
       for (uint32_t il = 0; il < 6; ++il) {
         f.l(il, "attn_norm.weight", {E});
         if (kind[il] == 'M') {
           f.l(il, "ssm_in.weight", {E, 2 * d_inner + 2 * 2 * 16 + heads});
           f.l(il, "ssm_conv1d.weight", {4, conv});
           f.l(il, "ssm_conv1d.bias", {conv});
           f.l(il, "ssm_dt.bias", {heads});
           f.l(il, "ssm_a", {1, heads});
           f.l(il, "ssm_d", {1, heads});
           f.l(il, "ssm_norm.weight", {d_inner / 2, 2});
           f.l(il, "ssm_out.weight", {d_inner, E});
         } else if (kind[il] == '*') {
           f.l(il, "attn_q.weight", {E, 256});
           f.l(il, "attn_k.weight", {E, 128});
           f.l(il, "attn_v.weight", {E, 128});
           f.l(il, "attn_output.weight", {256, E});
         } else {
           f.l(il, "ffn_gate_inp.weight", {E, 8});
           f.l(il, "exp_probs_b.bias", {8});
           f.l(il, "ffn_down_exps.weight", {64, E, 8});
           f.l(il, "ffn_up_exps.weight", {E, 64, 8});
           f.l(il, "ffn_down_shexp.weight", {128, E});
           f.l(il, "ffn_up_shexp.weight", {E, 128});
         }
       }
     }},
    // LFM2-MoE (src/models/lfm2moe.cpp): lfm2's blocks with 1 leading dense FFN, then router,
    // experts and exp_probs_b. 8 experts of 64; short conv l_cache 3; attention at layer 2.
    {"lfm2moe",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("lfm2moe.block_count", 4).u32("lfm2moe.embedding_length", E);
       w.u32("lfm2moe.context_length", 4096).u32("lfm2moe.feed_forward_length", 512);
       w.u32("lfm2moe.attention.head_count", 4);
       w.u32s("lfm2moe.attention.head_count_kv", {0, 0, 2, 0});
       w.u32("lfm2moe.shortconv.l_cache", 3).u32("lfm2moe.leading_dense_block_count", 1);
       w.u32("lfm2moe.expert_count", 8).u32("lfm2moe.expert_used_count", 2);
       w.u32("lfm2moe.expert_feed_forward_length", 64);
       embeddings(f, false, "token_embd_norm");
       for (uint32_t il = 0; il < 4; ++il) {
         f.l(il, "ffn_norm.weight", {E});
         if (il >= 1) {
           f.l(il, "ffn_gate_inp.weight", {E, 8});
           f.l(il, "ffn_gate_exps.weight", {E, 64, 8});
           f.l(il, "ffn_down_exps.weight", {64, E, 8});
           f.l(il, "ffn_up_exps.weight", {E, 64, 8});
           f.l(il, "exp_probs_b.bias", {8});
         } else {
           f.l(il, "ffn_gate.weight", {E, 512});
           f.l(il, "ffn_down.weight", {512, E});
           f.l(il, "ffn_up.weight", {E, 512});
         }
         f.l(il, "attn_norm.weight", {E});
         if (il == 2) {
           f.l(il, "attn_q_norm.weight", {64});
           f.l(il, "attn_k_norm.weight", {64});
           f.l(il, "attn_q.weight", {E, E});
           f.l(il, "attn_k.weight", {E, 128});
           f.l(il, "attn_v.weight", {E, 128});
           f.l(il, "attn_output.weight", {E, E});
         } else {
           f.l(il, "shortconv.conv.weight", {3, E});
           f.l(il, "shortconv.in_proj.weight", {E, 3 * E});
           f.l(il, "shortconv.out_proj.weight", {E, E});
         }
       }
     }},
    // Gemma 4 MoE (src/models/gemma4.cpp; conversion/gemma.py): sliding layers of 2 KV heads x
    // 64 (key/value_length_swa), the global layer of 1 KV head x 128 with K = V (no attn_v);
    // q/k norms of one head, post_attention_norm, ffn_norm + the dense MLP (the shared expert) +
    // post_ffw_norm; the router with its input scale ffn_gate_inp.scale, pre_ffw_norm_2 /
    // post_ffw_norm_1 / post_ffw_norm_2, fused ffn_gate_up_exps, ffn_down_exps and its
    // per-expert ffn_down_exps.scale; every layer's layer_output_scale {1}; one rope_freqs
    // {global head / 2}; output tied. 4 heads, 8 experts of 64, dense 512; 5 sliding : 1 global.
    {"gemma4",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("gemma4.block_count", 6).u32("gemma4.embedding_length", E);
       w.u32("gemma4.context_length", 4096).u32("gemma4.feed_forward_length", 512);
       w.u32("gemma4.attention.head_count", 4);
       w.u32s("gemma4.attention.head_count_kv", {2, 2, 2, 2, 2, 1});
       w.u32("gemma4.attention.key_length", 128).u32("gemma4.attention.value_length", 128);
       w.u32("gemma4.attention.key_length_swa", 64);
       w.u32("gemma4.attention.value_length_swa", 64);
       w.u32s("gemma4.attention.sliding_window_pattern", {1, 1, 1, 1, 1, 0});
       w.u32("gemma4.attention.sliding_window", 128);
       w.u32("gemma4.expert_count", 8).u32("gemma4.expert_used_count", 2);
       w.u32("gemma4.expert_feed_forward_length", 64);
       f.t("token_embd.weight", {E, V});
       f.t("output_norm.weight", {E});
       f.t("rope_freqs.weight", {64});
       for (uint32_t il = 0; il < 6; ++il) {
         const bool global = il == 5;
         const uint64_t hd = global ? 128 : 64, kv = global ? 1 : 2;
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, 4 * hd});
         f.l(il, "attn_k.weight", {E, kv * hd});
         if (!global) f.l(il, "attn_v.weight", {E, kv * hd});
         f.l(il, "attn_output.weight", {4 * hd, E});
         f.l(il, "attn_q_norm.weight", {hd});
         f.l(il, "attn_k_norm.weight", {hd});
         f.l(il, "post_attention_norm.weight", {E});
         f.l(il, "layer_output_scale.weight", {1});
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_up.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "post_ffw_norm.weight", {E});
         f.l(il, "ffn_gate_inp.weight", {E, 8});
         f.l(il, "ffn_gate_inp.scale", {E});
         f.l(il, "pre_ffw_norm_2.weight", {E});
         f.l(il, "post_ffw_norm_1.weight", {E});
         f.l(il, "post_ffw_norm_2.weight", {E});
         f.l(il, "ffn_gate_up_exps.weight", {E, 2 * 64, 8});
         f.l(il, "ffn_down_exps.weight", {64, E, 8});
         f.l(il, "ffn_down_exps.scale", {8});
       }
     }},
    // GLM-5 (glm-dsa, src/models/glm-dsa.cpp): deepseek32's MLA + DSA indexer blocks (q_a / q_b,
    // attn_k_b / attn_v_b), leading dense layer, MoE with exp_probs_b and the shared expert.
    // Sizes as the deepseek32 case, 3 layers, no MTP block.
    {"glm-dsa",
     [](LlamaCppFile& f) {
       const uint64_t H = 4, kv_lora = 64, rope = 16, nope = 32, hv = 32, q_r = 96, ne = 8, ff = 64,
                      ixh = 4, ixk = 32;
       GgufWriter& w = f.w;
       w.u32("glm-dsa.block_count", 3).u32("glm-dsa.embedding_length", E);
       w.u32("glm-dsa.context_length", 4096).u32("glm-dsa.feed_forward_length", 512);
       w.u32("glm-dsa.attention.head_count", H).u32("glm-dsa.attention.head_count_kv", 1);
       w.u32("glm-dsa.attention.key_length", kv_lora + rope);
       w.u32("glm-dsa.attention.value_length", kv_lora);
       w.u32("glm-dsa.attention.key_length_mla", nope + rope);
       w.u32("glm-dsa.attention.value_length_mla", hv);
       w.u32("glm-dsa.rope.dimension_count", rope).u32("glm-dsa.attention.kv_lora_rank", kv_lora);
       w.u32("glm-dsa.attention.q_lora_rank", q_r);
       w.u32("glm-dsa.attention.indexer.head_count", ixh);
       w.u32("glm-dsa.attention.indexer.key_length", ixk);
       w.u32("glm-dsa.expert_count", ne).u32("glm-dsa.expert_used_count", 2);
       w.u32("glm-dsa.expert_shared_count", 1).u32("glm-dsa.expert_feed_forward_length", ff);
       w.u32("glm-dsa.leading_dense_block_count", 1);
       embeddings(f);
       for (uint32_t il = 0; il < 3; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q_a_norm.weight", {q_r});
         f.l(il, "attn_kv_a_norm.weight", {kv_lora});
         f.l(il, "attn_q_a.weight", {E, q_r});
         f.l(il, "attn_q_b.weight", {q_r, H * (nope + rope)});
         f.l(il, "attn_kv_a_mqa.weight", {E, kv_lora + rope});
         f.l(il, "attn_k_b.weight", {nope, kv_lora, H});
         f.l(il, "attn_v_b.weight", {kv_lora, hv, H});
         f.l(il, "attn_output.weight", {H * hv, E});
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "indexer.k_norm.weight", {ixk});
         f.l(il, "indexer.k_norm.bias", {ixk});
         f.l(il, "indexer.proj.weight", {E, ixh});
         f.l(il, "indexer.attn_k.weight", {E, ixk});
         f.l(il, "indexer.attn_q_b.weight", {q_r, ixh * ixk});
         if (il < 1) {
           f.l(il, "ffn_gate.weight", {E, 512});
           f.l(il, "ffn_down.weight", {512, E});
           f.l(il, "ffn_up.weight", {E, 512});
           continue;
         }
         f.l(il, "ffn_gate_inp.weight", {E, ne});
         f.l(il, "exp_probs_b.bias", {ne});
         f.l(il, "ffn_gate_exps.weight", {E, ff, ne});
         f.l(il, "ffn_down_exps.weight", {ff, E, ne});
         f.l(il, "ffn_up_exps.weight", {E, ff, ne});
         f.l(il, "ffn_gate_shexp.weight", {E, ff});
         f.l(il, "ffn_down_shexp.weight", {ff, E});
         f.l(il, "ffn_up_shexp.weight", {E, ff});
       }
     }},
    // Falcon-H1 (src/models/falcon-h1.cpp): Mamba2 and attention in every block, then the FFN.
    // Its FFN norm is "blk.N.ffn_norm" with no ".weight": gguf-py tensor_mapping.py maps
    // "model.layers.{bid}.pre_ff_layernorm.weight" (suffix included) to FFN_PRE_NORM
    // "blk.{bid}.ffn_norm", and llama.cpp loads tn(LLM_TENSOR_FFN_NORM, i). Mamba2 8 heads x 32 =
    // d_inner 256, d_state 16, 1 group, conv 4; attention 4 heads of 64, 2 KV heads; 3 layers.
    {"falcon-h1",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("falcon-h1.block_count", 3).u32("falcon-h1.embedding_length", E);
       w.u32("falcon-h1.context_length", 4096).u32("falcon-h1.feed_forward_length", 512);
       w.u32("falcon-h1.attention.head_count", 4).u32("falcon-h1.attention.head_count_kv", 2);
       w.u32("falcon-h1.attention.key_length", 64).u32("falcon-h1.attention.value_length", 64);
       w.u32("falcon-h1.ssm.conv_kernel", 4).u32("falcon-h1.ssm.inner_size", 256);
       w.u32("falcon-h1.ssm.state_size", 16).u32("falcon-h1.ssm.time_step_rank", 8);
       w.u32("falcon-h1.ssm.group_count", 1);
       embeddings(f);
       const uint64_t d_inner = 256, conv = d_inner + 2 * 16, heads = 8;
       for (uint32_t il = 0; il < 3; ++il) {
         f.l(il, "ssm_in.weight", {E, d_inner + conv + heads});
         f.l(il, "ssm_conv1d.weight", {4, conv});
         f.l(il, "ssm_conv1d.bias", {conv});
         f.l(il, "ssm_dt.bias", {heads});
         f.l(il, "ssm_a", {1, heads});
         f.l(il, "ssm_d", {1, heads});
         f.l(il, "ssm_norm.weight", {d_inner, 1});
         f.l(il, "ssm_out.weight", {d_inner, E});
         f.l(il, "attn_q.weight", {E, 256});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {256, E});
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "ffn_norm", {E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "ffn_up.weight", {E, 512});
       }
     }},
    // Gemma 3n (src/models/gemma3n.cpp): AltUp projections {n_embd, n_embd, n_altup - 1}, the
    // per-layer embeddings (per_layer_token_embd {n_embd_altup x n_layer, n_vocab},
    // per_layer_model_proj, per_layer_proj_norm); per block Gemma 3 attention with q/k norms and
    // post norms, the per-layer inp_gate / proj / post_norm, AltUp coefficients, router and its
    // norm, LAuReL l / r and post norm. n_altup 4 and laurel_rank 16 from the tensors; 5 layers
    // (set_swa_pattern(5): 4 sliding, 1 full), all below n_layer_kv_from_start 20.
    {"gemma3n",
     [](LlamaCppFile& f) {
       const uint64_t na = 4, lr = 16, pe = 8, L = 5;
       GgufWriter& w = f.w;
       w.u32("gemma3n.block_count", L).u32("gemma3n.embedding_length", E);
       w.u32("gemma3n.context_length", 4096).u32("gemma3n.feed_forward_length", 512);
       w.u32("gemma3n.attention.head_count", 4).u32("gemma3n.attention.head_count_kv", 2);
       w.u32("gemma3n.attention.key_length", 64).u32("gemma3n.attention.value_length", 64);
       w.u32("gemma3n.attention.sliding_window", 32);
       w.u32("gemma3n.embedding_length_per_layer_input", pe);
       f.t("token_embd.weight", {E, V});
       f.t("altup_proj.weight", {E, E, na - 1});
       f.t("altup_unembd_proj.weight", {E, E, na - 1});
       f.t("per_layer_token_embd.weight", {pe * L, V});
       f.t("per_layer_model_proj.weight", {E, pe * L});
       f.t("per_layer_proj_norm.weight", {pe});
       f.t("output_norm.weight", {E});
       for (uint32_t il = 0; il < L; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, 256});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {256, E});
         f.l(il, "attn_q_norm.weight", {64});
         f.l(il, "attn_k_norm.weight", {64});
         f.l(il, "post_attention_norm.weight", {E});
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_up.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "post_ffw_norm.weight", {E});
         f.l(il, "inp_gate.weight", {E, pe});
         f.l(il, "proj.weight", {pe, E});
         f.l(il, "post_norm.weight", {E});
         f.l(il, "altup_correct_coef.weight", {na, na});
         f.l(il, "altup_correct_scale.weight", {E});
         f.l(il, "altup_predict_coef.weight", {na, na * na});
         f.l(il, "altup_router.weight", {E, na});
         f.l(il, "altup_router_norm.weight", {E});
         f.l(il, "laurel_l.weight", {E, lr});
         f.l(il, "laurel_r.weight", {lr, E});
         f.l(il, "laurel_post_norm.weight", {E});
       }
     }},
    // Qwen3-VL's text model (src/models/qwen3vl.cpp): Qwen3 blocks, q/k norms of one head; the
    // vision tower is a separate mmproj file. 4 heads of 64, 2 KV heads, 2 layers, tied output.
    {"qwen3vl",
     [](LlamaCppFile& f) {
       GgufWriter& w = f.w;
       w.u32("qwen3vl.block_count", 2).u32("qwen3vl.embedding_length", E);
       w.u32("qwen3vl.context_length", 4096).u32("qwen3vl.feed_forward_length", 512);
       w.u32("qwen3vl.attention.head_count", 4).u32("qwen3vl.attention.head_count_kv", 2);
       w.u32("qwen3vl.attention.key_length", 64).u32("qwen3vl.attention.value_length", 64);
       w.u32s("qwen3vl.rope.dimension_sections", {8, 12, 12, 0});
       embeddings(f, false);
       for (uint32_t il = 0; il < 2; ++il) {
         f.l(il, "attn_norm.weight", {E});
         f.l(il, "attn_q.weight", {E, 256});
         f.l(il, "attn_k.weight", {E, 128});
         f.l(il, "attn_v.weight", {E, 128});
         f.l(il, "attn_output.weight", {256, E});
         f.l(il, "attn_k_norm.weight", {64});
         f.l(il, "attn_q_norm.weight", {64});
         f.l(il, "ffn_norm.weight", {E});
         f.l(il, "ffn_gate.weight", {E, 512});
         f.l(il, "ffn_down.weight", {512, E});
         f.l(il, "ffn_up.weight", {E, 512});
       }
     }},
};

}  // namespace

TEST_CASE("A GGUF with llama.cpp's tensor list of each new architecture: exact weights",
          "[gguf][layers]") {
  const std::string path = "/tmp/llmsize_gguf_tensor_list_test.gguf";
  int i_case = 0, moe_cases = 0;
  for (const Case& c : kCases) {
    INFO(c.arch << " case " << i_case++);
    LlamaCppFile f;
    f.w.str("general.architecture", c.arch).str("general.name", "test");
    f.w.vocab(static_cast<uint32_t>(V));
    c.write(f);
    f.w.write(path);
    const ModelFile mf = read_model_file(path);
    std::remove(path.c_str());
    REQUIRE(mf.spec);
    CHECK(mf.arch_known);
    CHECK(mf.weights.bytes == f.w.data_bytes());
    // The spec read back lists llama.cpp's tensors, shape for shape, and types them as the file
    // stores them: its computed f16 weights are the file's bytes, tensor by tensor.
    const ModelSpec& g = *mf.spec;
    const auto tensors = model_tensors(g);
    const auto types = assign_tensor_types(g, tensors, *find_quant_preset("f16"));
    std::map<std::string, uint64_t> computed;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const auto& t = tensors[i];
      const std::string name = t.name();
      computed[name] = tensor_bytes(types[i], t.ne[0], t.n_elements());
      const auto it = f.shapes.find(name);
      INFO(name);
      REQUIRE(it != f.shapes.end());  // llmsize lists no tensor llama.cpp does not load
      CHECK(std::vector<uint64_t>(t.ne.begin(), t.ne.begin() + t.n_dims) == it->second);
    }
    for (const auto& [name, b] : f.bytes) {
      INFO(name);
      REQUIRE(computed.count(name));  // every tensor llama.cpp loads is listed
      CHECK(computed[name] == b);
    }
    CHECK(compute_weights(g, *find_quant_preset("f16")).bytes == f.w.data_bytes());
    // What llama.cpp's --n-cpu-moe moves, block by block: the file's tensors that its own
    // pattern finds (common/common.h LLM_FFN_EXPS_REGEX, std::regex_search as
    // llama-model-loader.cpp applies a tensor_buft_override), read from the file and derived
    // from the spec alike.
    const std::regex exps("\\.ffn_(up|down|gate|gate_up)_(ch|)exps");
    std::map<uint32_t, uint64_t> moved;
    for (const auto& [name, b] : f.bytes)
      if (std::regex_search(name, exps))
        moved[static_cast<uint32_t>(std::stoul(name.substr(4)))] += b;
    const auto derived = compute_weights(g, *find_quant_preset("f16")).expert_blocks;
    for (const auto* blocks : {&mf.weights.expert_blocks, &derived}) {
      uint64_t sum = 0;
      for (size_t il = 0; il < blocks->size(); ++il) {
        INFO("block " << il);
        const auto it = moved.find(static_cast<uint32_t>(il));
        CHECK((*blocks)[il].bytes == (it == moved.end() ? 0 : it->second));
        sum += (*blocks)[il].bytes;
      }
      uint64_t want = 0;
      for (const auto& [il, b] : moved) want += b;
      CHECK(sum == want);
    }
    moe_cases += moved.empty() ? 0 : 1;
  }
  CHECK(moe_cases >= 5);  // the MoE architectures among the cases
}

// llama-quantize's exceptions for the new tensors (llama.cpp de3ff815 src/llama-quant.cpp
// tensor_allows_quantization): no "_norm.weight" is quantized, 2-D ones (Mamba2's grouped
// ssm_norm) included; names with "altup" or "laurel" and per_layer_model_proj keep the converted
// file's 16-bit type; the DSA indexer_proj, F32 in an f16 file (conversion/base.py), is quantized
// like any other 2-D weight.
TEST_CASE("llama-quantize keeps 2-D norms F32, AltUp / LAuReL 16-bit, quantizes indexer.proj",
          "[gguf][quant]") {
  struct Row {
    const char* id;
    TensorRole role;
    const char* preset;
    TensorType want;
  };
  const Row rows[] = {
      {"gemma-3n-e2b", TensorRole::laurel_l, "q4_k_m", TensorType::F16},
      {"gemma-3n-e2b", TensorRole::altup_router, "q4_k_m", TensorType::F16},
      {"gemma-3n-e2b", TensorRole::altup_proj, "q4_k_m", TensorType::F16},
      {"gemma-3n-e2b", TensorRole::per_layer_model_proj, "q4_k_m", TensorType::F16},
      {"gemma-3n-e2b", TensorRole::altup_correct_coef, "q8_0", TensorType::F32},
      {"gemma-3n-e2b", TensorRole::altup_predict_coef, "f16", TensorType::F32},
      {"gemma-3n-e2b", TensorRole::per_layer_inp_gate, "q8_0", TensorType::Q8_0},
  };
  for (const Row& r : rows) {
    INFO(r.id << " " << role_name(r.role) << " " << r.preset);
    const ModelSpec& m = test::model(r.id);
    const auto tensors = model_tensors(m);
    const auto types = assign_tensor_types(m, tensors, *find_quant_preset(r.preset));
    size_t seen = 0;
    for (size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i].role == r.role) {
        CHECK(types[i] == r.want);
        ++seen;
      }
    CHECK(seen > 0);
  }
  // Nemotron-H's grouped ssm_norm {d_inner / n_group, n_group} and the DSA indexer.
  const ModelSpec nh = model_from_hf_config(
      nlohmann::json::parse(R"({"model_type": "nemotron_h", "num_hidden_layers": 2,
      "hidden_size": 1024, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 128,
      "vocab_size": 1024, "intermediate_size": 2048, "conv_kernel": 4, "ssm_state_size": 128,
      "n_groups": 8, "mamba_num_heads": 32, "mamba_head_dim": 64,
      "hybrid_override_pattern": "M*"})"),
      "nh");
  const ModelSpec ds = model_from_hf_config(
      nlohmann::json::parse(R"({"model_type": "deepseek_v32", "num_hidden_layers": 2,
      "hidden_size": 1024, "num_attention_heads": 8, "num_key_value_heads": 8,
      "vocab_size": 1024, "intermediate_size": 2048, "n_routed_experts": 8,
      "num_experts_per_tok": 2, "moe_intermediate_size": 256, "n_shared_experts": 1,
      "first_k_dense_replace": 1, "q_lora_rank": 512, "kv_lora_rank": 256,
      "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "index_n_heads": 256,
      "index_head_dim": 128})"),
      "ds");
  struct Pick {
    const ModelSpec* m;
    TensorRole role;
    const char* preset;
    TensorType want;
  };
  const Pick picks[] = {
      {&nh, TensorRole::ssm_norm, "q4_k_m", TensorType::F32},
      {&nh, TensorRole::ssm_norm, "f16", TensorType::F32},
      {&ds, TensorRole::indexer_proj, "f16", TensorType::F32},
      {&ds, TensorRole::indexer_proj, "bf16", TensorType::F32},
      // {1024, 256}: rows of 1,024 in whole Q8_0 / Q4_K blocks.
      {&ds, TensorRole::indexer_proj, "q8_0", TensorType::Q8_0},
      {&ds, TensorRole::indexer_proj, "q4_k_m", TensorType::Q4_K},
  };
  for (const Pick& p : picks) {
    INFO(arch_name(p.m->arch) << " " << role_name(p.role) << " " << p.preset);
    const auto tensors = model_tensors(*p.m);
    const auto types = assign_tensor_types(*p.m, tensors, *find_quant_preset(p.preset));
    size_t seen = 0;
    for (size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i].role == p.role && tensors[i].n_dims == 2) {
        CHECK(types[i] == p.want);
        ++seen;
      }
    CHECK(seen > 0);
  }
}
