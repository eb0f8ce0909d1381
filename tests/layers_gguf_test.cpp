// For each architecture of the per-layer description, a small GGUF written by the test writer
// (model_file_writer.hpp) with llama.cpp's metadata keys and the tensors llama.cpp loads: the
// architecture read back from it must give weights equal to the file's tensor bytes, and the
// same layer pattern, KV cache and recurrent state as the spec it was written from.
#include <catch2/catch.hpp>
#include <cstdio>

#include "io/json_readers.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/model_file.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/model/quant.hpp"
#include "model_file_writer.hpp"
#include "test_util.hpp"

using namespace llmsize;
using namespace llmsize::test;

namespace {

// The GGUF keys llama.cpp's load_hparams reads for m (llama-arch.cpp LLM_KV_NAMES).
GgufWriter gguf_of(const ModelSpec& m) {
  GgufWriter w;
  const std::string a = arch_name(m.arch);
  const auto key = [&](const char* k) { return a + "." + k; };
  const LayerLayout lay = layer_layout(m);
  std::vector<uint32_t> kv_heads, heads, swa, ffs;
  uint32_t hk = m.n_embd_head_k, hv = m.n_embd_head_v, hk_swa = 0, hv_swa = 0, shared = 0;
  for_each_layer(lay, [&](uint32_t, const LayerKind& k) {
    kv_heads.push_back(k.attn == AttnKind::none ? 0 : k.n_head_kv);
    heads.push_back(k.attn == AttnKind::none ? 0 : k.n_head);
    swa.push_back(k.attn == AttnKind::swa ? 1 : 0);
    ffs.push_back(k.n_ff);
    if (k.attn == AttnKind::full) hk = k.n_embd_head_k, hv = k.n_embd_head_v;
    if (k.attn == AttnKind::swa) hk_swa = k.n_embd_head_k, hv_swa = k.n_embd_head_v;
    if (k.kv_shared) ++shared;
  });
  for (uint32_t i = 0; i < m.n_layer_nextn; ++i) {  // MTP blocks: attention, no cache
    kv_heads.push_back(m.n_head_kv);
    heads.push_back(m.n_head);
    swa.push_back(0);
    ffs.push_back(0);
  }
  w.str("general.architecture", a).str("general.name", "test");
  w.u32(key("block_count"), m.n_layer + m.n_layer_nextn).u32(key("embedding_length"), m.n_embd);
  w.u32(key("context_length"), 4096);
  w.u32s(key("feed_forward_length"), ffs);
  w.u32s(key("attention.head_count"), heads).u32s(key("attention.head_count_kv"), kv_heads);
  if (!m.is_mla()) w.u32(key("attention.key_length"), hk).u32(key("attention.value_length"), hv);
  if (m.arch == Arch::gemma4) {
    w.u32(key("attention.key_length_swa"), hk_swa).u32(key("attention.value_length_swa"), hv_swa);
    w.u32s(key("attention.sliding_window_pattern"), swa);
    w.u32(key("attention.shared_kv_layers"), shared);
    w.u32(key("embedding_length_per_layer_input"), m.n_embd_per_layer);
  }
  if (m.n_swa) w.u32(key("attention.sliding_window"), m.n_swa);
  if (m.is_moe()) {
    w.u32(key("expert_count"), m.n_expert).u32(key("expert_used_count"), m.n_expert_used);
    w.u32(key("expert_feed_forward_length"), m.n_ff_exp);
    w.u32(key("expert_shared_count"), m.n_expert_shared);
    w.u32(key("leading_dense_block_count"), m.n_layer_dense_lead);
  }
  if (m.is_mla()) {
    w.u32(key("attention.kv_lora_rank"), m.kv_lora_rank)
        .u32(key("attention.q_lora_rank"), m.q_lora_rank);
    w.u32(key("rope.dimension_count"), m.n_rot);
    w.u32(key("attention.key_length"), m.kv_lora_rank + m.n_rot);
    w.u32(key("attention.value_length"), m.kv_lora_rank);
    w.u32(key("attention.key_length_mla"), m.n_embd_head_k);
    w.u32(key("attention.value_length_mla"), m.n_embd_head_v);
  }
  if (m.n_indexer_head) {
    w.u32(key("attention.indexer.head_count"), m.n_indexer_head);
    w.u32(key("attention.indexer.key_length"), m.n_indexer_head_dim);
  }
  if (m.n_layer_nextn) w.u32(key("nextn_predict_layers"), m.n_layer_nextn);
  if (m.ssm.d_conv) {
    w.u32(key("ssm.conv_kernel"), m.ssm.d_conv).u32(key("ssm.inner_size"), m.ssm.d_inner);
    w.u32(key("ssm.state_size"), m.ssm.d_state).u32(key("ssm.time_step_rank"), m.ssm.dt_rank);
    w.u32(key("ssm.group_count"), m.ssm.n_group);
  }
  if (m.ssm.l_cache) w.u32(key("shortconv.l_cache"), m.ssm.l_cache);
  // Tensors as llmsize lists them for llama.cpp, in the types an f16 conversion gives.
  const auto tensors = model_tensors(m);
  const auto types = assign_tensor_types(m, tensors, *find_quant_preset("f16"));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    std::vector<uint64_t> ne(t.ne.begin(), t.ne.begin() + t.n_dims);
    // gpt-oss experts stay MXFP4 (ggml type 39: 32 values in 17 B, ggml-common.h block_mxfp4).
    constexpr GgmlBlock kMXFP4{39, 32, 17};
    w.tensor(t.name(),
             types[i] == TensorType::F32     ? kF32
             : types[i] == TensorType::MXFP4 ? kMXFP4
                                             : kF16,
             ne);
  }
  return w;
}

KvCache kv_of(const ModelSpec& m, uint32_t n_seq) {
  KvCacheConfig c;
  c.n_ctx = 8192;
  c.n_seq = n_seq;
  return kv_cache(m, c);
}

}  // namespace

TEST_CASE("A GGUF of each 2025-2026 architecture reads back with exact weights", "[layers]") {
  const std::string dir = std::string(LLMSIZE_TEST_DATA) + "/../fixtures/";
  // Small configs of each family (sizes cut down; the keys are the published configs').
  const char* small[] = {
      R"({"model_type": "llama4_text", "num_hidden_layers": 8, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 512,
          "attention_chunk_size": 8192, "num_local_experts": 4, "num_experts_per_tok": 1,
          "intermediate_size": 128, "intermediate_size_mlp": 256, "interleave_moe_layer_step": 2})",
      R"({"model_type": "nemotron_h", "num_hidden_layers": 6, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 512,
          "intermediate_size": 512, "conv_kernel": 4, "ssm_state_size": 16, "n_groups": 2,
          "mamba_num_heads": 8, "mamba_head_dim": 32, "hybrid_override_pattern": "M-M*-M"})",
      R"({"model_type": "nemotron_h", "num_hidden_layers": 6, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 512,
          "conv_kernel": 4, "ssm_state_size": 16, "n_groups": 2, "mamba_num_heads": 8,
          "mamba_head_dim": 32, "n_routed_experts": 8, "num_experts_per_tok": 2,
          "moe_intermediate_size": 64, "moe_shared_expert_intermediate_size": 128,
          "hybrid_override_pattern": "MEM*EM"})",
      R"({"model_type": "granitemoehybrid", "num_hidden_layers": 4, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512,
          "mamba_d_conv": 4, "mamba_d_state": 16, "mamba_n_groups": 1, "mamba_n_heads": 8,
          "mamba_d_head": 64, "num_local_experts": 4, "num_experts_per_tok": 2,
          "intermediate_size": 64, "shared_intermediate_size": 128,
          "layer_types": ["mamba", "mamba", "attention", "mamba"]})",
      R"({"model_type": "lfm2", "num_hidden_layers": 4, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512,
          "block_ff_dim": 512, "conv_L_cache": 3,
          "layer_types": ["conv", "conv", "full_attention", "conv"]})",
      R"({"model_type": "lfm2_moe", "num_hidden_layers": 4, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512,
          "intermediate_size": 512, "moe_intermediate_size": 64, "num_experts": 8,
          "num_experts_per_tok": 2, "num_dense_layers": 1, "conv_L_cache": 3,
          "layer_types": ["conv", "conv", "full_attention", "conv"]})",
      R"({"model_type": "falcon_h1", "num_hidden_layers": 3, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 512,
          "intermediate_size": 512, "mamba_d_conv": 4, "mamba_d_state": 16, "mamba_n_groups": 1,
          "mamba_n_heads": 8, "mamba_d_head": 32, "mamba_d_ssm": 256})",
      R"({"model_type": "cohere2", "num_hidden_layers": 8, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512,
          "intermediate_size": 512, "sliding_window": 64, "sliding_window_pattern": 4})",
      R"({"model_type": "olmo3", "num_hidden_layers": 4, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 512,
          "intermediate_size": 512, "sliding_window": 64,
          "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention",
                          "full_attention"]})",
      R"({"model_type": "smollm3", "num_hidden_layers": 4, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512,
          "intermediate_size": 512, "no_rope_layers": [1, 1, 1, 0]})",
      R"({"model_type": "seed_oss", "num_hidden_layers": 2, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 128,
          "vocab_size": 512, "intermediate_size": 512, "attention_bias": true})",
      R"({"model_type": "ernie4_5_moe", "num_hidden_layers": 3, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512,
          "intermediate_size": 512, "moe_num_experts": 8, "moe_k": 2,
          "moe_intermediate_size": 64, "moe_num_shared_experts": 2, "moe_layer_start_index": 1})",
      R"({"model_type": "hunyuan_v1_moe", "num_hidden_layers": 2, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 512,
          "intermediate_size": 128, "num_experts": 8, "moe_topk": [2, 2],
          "moe_intermediate_size": [128, 128], "num_shared_expert": [1, 1]})",
      R"({"model_type": "glm4_moe", "num_hidden_layers": 3, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 512,
          "intermediate_size": 512, "n_routed_experts": 8, "num_experts_per_tok": 2,
          "moe_intermediate_size": 64, "n_shared_experts": 1, "first_k_dense_replace": 1,
          "attention_bias": true, "num_nextn_predict_layers": 1})",
      R"({"model_type": "deepseek_v32", "num_hidden_layers": 3, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 512,
          "intermediate_size": 512, "n_routed_experts": 8, "num_experts_per_tok": 2,
          "moe_intermediate_size": 64, "n_shared_experts": 1, "first_k_dense_replace": 1,
          "q_lora_rank": 96, "kv_lora_rank": 64, "qk_rope_head_dim": 16, "qk_nope_head_dim": 32,
          "v_head_dim": 32, "index_n_heads": 4, "index_head_dim": 32})",
      R"({"model_type": "ministral3", "num_hidden_layers": 2, "hidden_size": 256,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 512,
          "intermediate_size": 512})",
  };
  std::vector<ModelSpec> specs;
  for (const char* s : small) specs.push_back(model_from_hf_config(nlohmann::json::parse(s), "t"));
  for (const char* f :
       {"gpt-oss-20b.json", "qwen3-next-80b-a3b-instruct.json", "qwen3.5-35b-a3b.json",
        "qwen3.6-27b.json", "gemma-4-31b-it.json", "glm-5.1.json", "minimax-m2.7.json"})
    specs.push_back(read_hf_config_file(dir + "configs_2026/" + f));

  const std::string path = "/tmp/llmsize_layers_gguf_test.gguf";
  for (const ModelSpec& m : specs) {
    INFO(arch_name(m.arch) << " " << layer_pattern(m));
    const GgufWriter w = gguf_of(m);
    w.write(path);
    const ModelFile f = read_model_file(path);
    REQUIRE(f.spec);
    CHECK(f.arch_known);
    const ModelSpec& g = *f.spec;
    CHECK(g.arch == m.arch);
    CHECK(f.weights.bytes == w.data_bytes());
    // The spec read back lists the same tensors: computed weights equal the file's bytes.
    const Weights cw = compute_weights(g, *find_quant_preset("f16"));
    CHECK(cw.bytes == w.data_bytes());
    CHECK(cw.params == f.weights.params);
    CHECK(layer_pattern(g) == layer_pattern(m));
    for (uint32_t n_seq : {1u, 4u}) {
      CHECK(kv_of(g, n_seq).total_bytes() == kv_of(m, n_seq).total_bytes());
      CHECK(recurrent_state(g, n_seq).total_bytes() == recurrent_state(m, n_seq).total_bytes());
    }
  }
  std::remove(path.c_str());
}

TEST_CASE("A GGUF of an unknown architecture gets exact weights and says what is generic",
          "[layers]") {
  GgufWriter w;
  w.str("general.architecture", "mamba9").u32("mamba9.block_count", 1);
  w.u32("mamba9.embedding_length", 64).u32("mamba9.attention.head_count", 2);
  w.tensor("token_embd.weight", kF16, {64, 32}).tensor("blk.0.ssm_in.weight", kF16, {64, 256});
  w.tensor("blk.0.ffn_up.weight", kF16, {64, 128});
  const std::string path = "/tmp/llmsize_layers_unknown.gguf";
  w.write(path);
  const ModelFile f = read_model_file(path);
  std::remove(path.c_str());
  CHECK_FALSE(f.arch_known);
  // 64 x 32 + 64 x 256 + 64 x 128 values in f16: 2 B each.
  CHECK(f.weights.bytes == 2ull * 64 * (32 + 256 + 128));
  bool generic = false, state = false;
  for (const auto& n : f.notes) {
    generic |= n.find("generic llama formula") != std::string::npos;
    state |= n.find("recurrent state llmsize cannot size") != std::string::npos;
  }
  CHECK(generic);
  CHECK(state);
}

// Regression: the catalog path counted no embedding bytes per token, so a tied model (whose
// output layer is token_embd itself, read in full for the logits) read ~27% too few bytes per
// token for qwen2.5-0.5b. Per token, llama.cpp reads every tensor but token_embd, one row of
// token_embd, and for a tied model token_embd again as the output layer. io/model_file.cpp counts
// a GGUF written from the spec (output.weight absent when tied) that way; the catalog path leaves
// out the one row (n_embd x 2 B in F16), which the check adds back.
TEST_CASE("Active bytes per token of a catalog model equal those of its GGUF", "[layers]") {
  const std::string path = "/tmp/llmsize_layers_gguf_active.gguf";
  for (const char* id : {"qwen2.5-0.5b", "llama-3.2-1b", "qwen3-30b-a3b"}) {
    INFO(id);
    const ModelSpec& m = test::model(id);
    const GgufWriter w = gguf_of(m);
    w.write(path);
    const ModelFile f = read_model_file(path);
    const Weights cw = compute_weights(m, *find_quant_preset("f16"));
    CHECK(cw.active_bytes + uint64_t{m.n_embd} * 2 == f.weights.active_bytes);
    if (std::string(id) == "qwen2.5-0.5b") {
      REQUIRE(m.tied_embeddings);
      // token_embd 151,936 x 896 in F16 = 272,269,312 B, read once more as the output layer:
      // without it the bytes per token were 715,939,328 B, 27.6% short.
      CHECK(cw.active_bytes == w.data_bytes());
      CHECK(w.data_bytes() - 272269312 == 715939328);
    }
  }
  std::remove(path.c_str());
}
