// KV cache and recurrent state of every layer kind at 1 and 4 sequences, f16 and q8_0 KV, for
// the kinds tests/layers_test.cpp checks at fewer points: layers without attention (Mamba2 and
// FFN-only blocks of Nemotron-H), attention and Mamba2 in one layer (Falcon-H1), NoPE layers
// (SmolLM3), layers sharing an earlier layer's KV (Gemma 4 E-models), short convolution beside
// attention (LFM2) and DeepSeek-V3.2's MLA with its DSA indexer key cache. Derivations follow
// ggml-org/llama.cpp at commit de3ff815:
//   src/llama-kv-cache.cpp        per layer with a cache: K ggml_row_size(type_k, n_embd_k_gqa(il))
//                                 and V ggml_row_size(type_v, n_embd_v_gqa(il)) per cell, one
//                                 stream of kv_size cells per sequence (unified = false); layers
//                                 whose n_head_kv(il) is 0 or that reuse another's KV get none
//   src/llama-kv-cache-iswa.cpp   SWA cells GGML_PAD(min(size_base, n_swa + n_ubatch), 256)
//   src/llama-kv-cache-dsa.cpp    the indexer's key cache: a second llama_kv_cache of one key
//                                 head of indexer_head_size, in type_k, beside the MLA cache
//   src/llama-memory-recurrent.cpp  r and s of n_embd_r() / n_embd_s() F32 values per sequence
//                                 (the KV type does not touch them), src/llama-hparams.cpp:
//                                 Mamba2 r = (d_conv - 1)(d_inner + 2 n_group d_state),
//                                 s = d_state d_inner; short conv r = n_embd (l_cache - 1)
// Row bytes: f16 2 B per value; q8_0 34 B per 32 values (ggml-common.h block_q8_0).
#include <catch2/catch.hpp>

#include "io/json_readers.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/memory/recurrent_state.hpp"
#include "llmsize/model/layers.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

KvCache kv(const ModelSpec& m, uint32_t n_seq, TensorType t, uint32_t n_ctx = 4096) {
  KvCacheConfig c;
  c.n_ctx = n_ctx;
  c.n_seq = n_seq;
  c.type_k = c.type_v = t;
  return kv_cache(m, c);
}

// K + V row bytes of a cell for `values` K values and as many V values.
uint64_t kv_row(TensorType t, uint64_t values) {
  return t == TensorType::F16 ? 2 * values * 2 : 2 * (values / 32 * 34);
}

struct Point {
  uint32_t n_seq;
  TensorType t;
};
const Point kPoints[] = {
    {1, TensorType::F16}, {4, TensorType::F16}, {1, TensorType::Q8_0}, {4, TensorType::Q8_0}};

}  // namespace

TEST_CASE("No-attention and Mamba2 layers: no KV, F32 state per sequence (Nemotron-H)",
          "[layers][kv_cache]") {
  // Nemotron-H-8B shapes, 8 layers "M-M*-M-M": 4 Mamba2 layers, 3 FFN-only layers, 1 attention
  // layer of 8 KV heads x 128 = 1,024 values (f16 K + V 4,096 B per cell; q8_0 2 x 32 x 34 =
  // 2,176 B). Mamba2: r = 3 x (8,192 + 2 x 8 x 128) = 30,720, s = 128 x 8,192 = 1,048,576.
  const ModelSpec m = model_from_hf_config(
      nlohmann::json::parse(R"({"model_type": "nemotron_h", "num_hidden_layers": 8,
      "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "vocab_size": 131072, "intermediate_size": 21504, "conv_kernel": 4, "ssm_state_size": 128,
      "n_groups": 8, "mamba_num_heads": 128, "mamba_head_dim": 64,
      "hybrid_override_pattern": "M-M*-M-M"})"),
      "nemotron-h");
  for (const Point& p : kPoints) {
    INFO(p.n_seq << " " << traits(p.t).name);
    const KvCache k = kv(m, p.n_seq, p.t);
    CHECK(k.total_bytes() == p.n_seq * 1ull * 4096 * kv_row(p.t, 1024));
    CHECK(k.bytes_of(AttnKind::full) == k.total_bytes());
    CHECK(k.n_layer_full == 1);
    CHECK(recurrent_state(m, p.n_seq).total_bytes() == p.n_seq * 4ull * (30720 + 1048576) * 4);
  }
}

TEST_CASE("Attention and Mamba2 in one layer keep both memories (Falcon-H1)",
          "[layers][kv_cache]") {
  // 4 layers, each with attention of 2 KV heads x 64 = 128 values (f16 512 B per cell; q8_0
  // 2 x 4 x 34 = 272 B) and Mamba2 of d_inner 1,024 (16 heads x 64), d_state 64, 1 group:
  // r = 3 x (1,024 + 2 x 64) = 3,456, s = 64 x 1,024 = 65,536.
  const ModelSpec m = model_from_hf_config(
      nlohmann::json::parse(R"({"model_type": "falcon_h1", "num_hidden_layers": 4,
      "hidden_size": 1024, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64,
      "vocab_size": 32768, "intermediate_size": 2048, "mamba_d_conv": 4, "mamba_d_state": 64,
      "mamba_n_groups": 1, "mamba_n_heads": 16, "mamba_d_head": 64, "mamba_d_ssm": 1024})"),
      "falcon-h1");
  for (const Point& p : kPoints) {
    INFO(p.n_seq << " " << traits(p.t).name);
    CHECK(kv(m, p.n_seq, p.t).total_bytes() == p.n_seq * 4ull * 4096 * kv_row(p.t, 128));
    CHECK(recurrent_state(m, p.n_seq).total_bytes() == p.n_seq * 4ull * (3456 + 65536) * 4);
  }
}

TEST_CASE("NoPE layers cache like full attention (SmolLM3)", "[layers][kv_cache]") {
  // SmolLM3-3B shapes: 36 layers, 4 KV heads x 128 = 512 values (f16 2,048 B per cell; q8_0
  // 2 x 16 x 34 = 1,088 B); every 4th layer without rope (llama.cpp smollm3
  // n_no_rope_layer_step 4): 9 NoPE layers, cached as the 27 others.
  nlohmann::json j = R"({"model_type": "smollm3", "num_hidden_layers": 36, "hidden_size": 2048,
      "num_attention_heads": 16, "num_key_value_heads": 4, "vocab_size": 128256,
      "intermediate_size": 11008})"_json;
  j["no_rope_layers"] = nlohmann::json::array();
  for (int il = 0; il < 36; ++il) j["no_rope_layers"].push_back((il + 1) % 4 ? 1 : 0);
  const ModelSpec m = model_from_hf_config(j, "smollm3");
  uint64_t nope = 0;
  for (const auto& g : layer_groups(m)) nope += g.kind.nope ? g.n_layer : 0;
  CHECK(nope == 9);
  for (const Point& p : kPoints) {
    INFO(p.n_seq << " " << traits(p.t).name);
    const KvCache k = kv(m, p.n_seq, p.t);
    CHECK(k.bytes_of(AttnKind::full) == p.n_seq * 36ull * 4096 * kv_row(p.t, 512));
    CHECK(k.total_bytes() == k.bytes_of(AttnKind::full));
    CHECK(recurrent_state(m, p.n_seq).total_bytes() == 0);
  }
}

TEST_CASE("KV shared from an earlier layer at both KV types (Gemma 4 E-model)",
          "[layers][kv_cache]") {
  // 35 layers, 4 sliding : 1 global, the last 20 reuse earlier layers' KV (llama.cpp
  // n_layer_kv_from_start 15): 12 sliding layers of 1 KV head x 256 (f16 1,024 B per cell; q8_0
  // 2 x 8 x 34 = 544 B), cells pad(min(4,096, 512 + 512), 256) = 1,024; 3 global layers of
  // 1 x 512 (f16 2,048 B; q8_0 2 x 16 x 34 = 1,088 B), 4,096 cells.
  const ModelSpec m = test::gemma4_e_model();
  for (const Point& p : kPoints) {
    INFO(p.n_seq << " " << traits(p.t).name);
    const KvCache k = kv(m, p.n_seq, p.t);
    CHECK(k.bytes_of(AttnKind::swa) == p.n_seq * 12ull * 1024 * kv_row(p.t, 256));
    CHECK(k.bytes_of(AttnKind::full) == p.n_seq * 3ull * 4096 * kv_row(p.t, 512));
    CHECK(k.total_bytes() == k.bytes_of(AttnKind::swa) + k.bytes_of(AttnKind::full));
  }
}

TEST_CASE("Short convolution beside attention at both KV types (LFM2)", "[layers][kv_cache]") {
  // LFM2-1.2B shapes: 16 layers, 6 attention layers of 8 KV heads x 64 = 512 values (f16
  // 2,048 B per cell; q8_0 1,088 B), 10 conv layers of r = 2,048 x (3 - 1) = 4,096 F32 values.
  nlohmann::json l = R"({"model_type": "lfm2", "num_hidden_layers": 16, "hidden_size": 2048,
      "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 65536,
      "block_ff_dim": 12288, "block_auto_adjust_ff_dim": true, "block_ffn_dim_multiplier": 1.0,
      "block_multiple_of": 256, "conv_L_cache": 3})"_json;
  l["layer_types"] = {"conv",           "conv",           "full_attention", "conv",
                      "conv",           "full_attention", "conv",           "conv",
                      "full_attention", "conv",           "full_attention", "conv",
                      "full_attention", "conv",           "full_attention", "conv"};
  const ModelSpec m = model_from_hf_config(l, "lfm2");
  for (const Point& p : kPoints) {
    INFO(p.n_seq << " " << traits(p.t).name);
    CHECK(kv(m, p.n_seq, p.t).total_bytes() == p.n_seq * 6ull * 4096 * kv_row(p.t, 512));
    CHECK(recurrent_state(m, p.n_seq).total_bytes() == p.n_seq * 10ull * 4096 * 4);
  }
}

TEST_CASE("MLA and the DSA indexer key cache at both KV types (DeepSeek-V3.2)",
          "[layers][kv_cache]") {
  // deepseek-ai/DeepSeek-V3.2 config.json shapes: 61 layers, kv_lora_rank 512 + qk_rope 64 =
  // 576 latent values per cell (f16 1,152 B; q8_0 18 x 34 = 612 B), no V; the indexer caches one
  // key of index_head_dim 128 (f16 256 B; q8_0 4 x 34 = 136 B) per cell and layer.
  const ModelSpec m = model_from_hf_config(
      nlohmann::json::parse(R"({"model_type": "deepseek_v32", "num_hidden_layers": 61,
      "hidden_size": 7168, "num_attention_heads": 128, "num_key_value_heads": 128,
      "vocab_size": 129280, "intermediate_size": 18432, "n_routed_experts": 256,
      "num_experts_per_tok": 8, "moe_intermediate_size": 2048, "n_shared_experts": 1,
      "first_k_dense_replace": 3, "q_lora_rank": 1536, "kv_lora_rank": 512,
      "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "index_n_heads": 64,
      "index_head_dim": 128, "index_topk": 2048})"),
      "deepseek-v3.2");
  REQUIRE(m.arch == Arch::deepseek32);
  for (const Point& p : kPoints) {
    INFO(p.n_seq << " " << traits(p.t).name);
    const KvCache k = kv(m, p.n_seq, p.t);
    const uint64_t mla_row = p.t == TensorType::F16 ? 1152 : 612;
    const uint64_t ix_row = p.t == TensorType::F16 ? 256 : 136;
    CHECK(k.bytes_of(AttnKind::mla) == p.n_seq * 61ull * 4096 * mla_row);
    CHECK(k.bytes_of(AttnKind::mla, true) == p.n_seq * 61ull * 4096 * ix_row);
    CHECK(k.v_bytes == 0);
    CHECK(k.total_bytes() == p.n_seq * 61ull * 4096 * (mla_row + ix_row));
  }
}
