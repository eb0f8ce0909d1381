// The per-layer description (layers.hpp): KV cache by layer kind and recurrent state, derived the
// way llama.cpp allocates them, at commit 00395eb2 of ggml-org/llama.cpp:
//   src/llama-kv-cache.cpp       K: n_embd_k_gqa(il) x kv_size per layer with has_kv(il),
//                                V: n_embd_v_gqa(il) x kv_size (none for MLA); one stream per seq
//   src/llama-kv-cache-iswa.cpp  SWA/chunked layers: GGML_PAD(min(size_base, n_swa + n_ubatch),
//   256) src/llama-hparams.cpp        n_embd_r() = (d_conv - 1)(d_inner + 2 n_group d_state), LFM2
//                                n_embd (l_cache - 1); n_embd_s() = d_state d_inner
//   src/llama-memory-recurrent.cpp  r and s tensors of n_embd_r/s x max(1, n_seq_max), F32
// Row sizes: f16 2 B per value; q8_0 34 B per 32 values (ggml block_q8_0).
#include "llmsize/model/layers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "io/json_readers.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/memory/recurrent_state.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/model/tensors.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

std::string fixture_path(const std::string& name) {
  return std::string(LLMSIZE_TEST_DATA) + "/../fixtures/configs_2026/" + name;
}

ModelSpec config(const std::string& name) {
  return read_hf_config_file(fixture_path(name));
}

KvCache kv(const ModelSpec& m, uint32_t n_ctx, uint32_t n_seq, TensorType t) {
  KvCacheConfig c;
  c.n_ctx = n_ctx;
  c.n_seq = n_seq;
  c.type_k = c.type_v = t;
  return kv_cache(m, c);
}

}  // namespace

TEST_CASE("SWA layers keep n_swa + n_ubatch cells padded to 256: gpt-oss-20b", "[layers]") {
  const ModelSpec m = config("gpt-oss-20b.json");
  // 24 layers alternating sliding 128 / full; 8 KV heads x 64: K row 512 values, V row 512.
  // f16: (512 + 512) x 2 B = 2,048 B per cell-layer; q8_0: 2 x 512/32 x 34 = 1,088 B.
  // SWA cells: pad(min(4096, 128 + 512), 256) = 768.
  struct Case {
    uint32_t n_seq;
    TensorType t;
    uint64_t full, swa;
  };
  const Case cases[] = {
      {1, TensorType::F16, 12ull * 4096 * 2048, 12ull * 768 * 2048},  // 96 + 18 MiB
      {4, TensorType::F16, 4 * 12ull * 4096 * 2048, 4 * 12ull * 768 * 2048},
      {1, TensorType::Q8_0, 12ull * 4096 * 1088, 12ull * 768 * 1088},  // 51 + 9.56 MiB
      {4, TensorType::Q8_0, 4 * 12ull * 4096 * 1088, 4 * 12ull * 768 * 1088},
  };
  for (const auto& c : cases) {
    const KvCache k = kv(m, 4096, c.n_seq, c.t);
    CHECK(k.bytes_of(AttnKind::full) == c.full);
    CHECK(k.bytes_of(AttnKind::swa) == c.swa);
    CHECK(k.total_bytes() == c.full + c.swa);
    CHECK(k.cells_swa == 768);
    CHECK(k.n_layer_swa == 12);
    CHECK(k.n_layer_full == 12);
  }
  CHECK(layer_pattern(m) == "12 × (1 × sliding window 128 + 1 × full attention)");
}

TEST_CASE("Chunked layers are sized like SWA with the chunk as window: Llama 4 Scout", "[layers]") {
  // Llama-4-Scout-17B-16E text config: 48 layers, 40 heads, 8 KV heads x 128, chunk 8192, MoE
  // every layer (interleave_moe_layer_step 1), intermediate_size 8192, intermediate_size_mlp 16384.
  const auto j = nlohmann::json::parse(R"({"model_type": "llama4_text", "num_hidden_layers": 48,
      "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
      "vocab_size": 202048, "attention_chunk_size": 8192, "num_local_experts": 16,
      "num_experts_per_tok": 1, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
      "interleave_moe_layer_step": 1, "max_position_embeddings": 10485760})");
  const ModelSpec m = model_from_hf_config(j, "scout");
  // 36 chunked layers: cells pad(min(32768, 8192 + 512), 256) = 8,704; 12 global NoPE layers:
  // 32,768. f16 K + V row: 2 x 8 x 128 x 2 B = 4,096 B; q8_0: 2 x 1024/32 x 34 = 2,176 B.
  struct Case {
    uint32_t n_seq;
    TensorType t;
    uint64_t row;
  };
  for (const auto& c : {Case{1, TensorType::F16, 4096}, Case{4, TensorType::F16, 4096},
                        Case{1, TensorType::Q8_0, 2176}, Case{4, TensorType::Q8_0, 2176}}) {
    const KvCache k = kv(m, 32768, c.n_seq, c.t);
    CHECK(k.bytes_of(AttnKind::chunked) == c.n_seq * 36ull * 8704 * c.row);
    CHECK(k.bytes_of(AttnKind::full) == c.n_seq * 12ull * 32768 * c.row);
  }
  CHECK(layer_pattern(m) == "12 × (3 × chunked attention 8192 + 1 × full attention NoPE)");
}

TEST_CASE("MLA caches the latent, the DSA indexer its keys beside it: GLM-5.1", "[layers]") {
  const ModelSpec m = config("glm-5.1.json");
  // 78 layers, kv_lora_rank 512 + qk_rope 64 = 576 values (f16 1,152 B; q8_0 18 x 34 = 612 B),
  // no V; indexer keys index_head_dim 128 (f16 256 B; q8_0 4 x 34 = 136 B). The MTP layer holds
  // no cache.
  struct Case {
    uint32_t n_seq;
    TensorType t;
    uint64_t mla_row, ix_row;
  };
  for (const auto& c : {Case{1, TensorType::F16, 1152, 256}, Case{4, TensorType::F16, 1152, 256},
                        Case{1, TensorType::Q8_0, 612, 136}, Case{4, TensorType::Q8_0, 612, 136}}) {
    const KvCache k = kv(m, 4096, c.n_seq, c.t);
    CHECK(k.bytes_of(AttnKind::mla) == c.n_seq * 78ull * 4096 * c.mla_row);
    CHECK(k.bytes_of(AttnKind::mla, true) == c.n_seq * 78ull * 4096 * c.ix_row);
    CHECK(k.v_bytes == 0);
  }
}

TEST_CASE("Gemma 4 global layers have their own KV heads and head size, K = V still caches V",
          "[layers]") {
  const ModelSpec m = config("gemma-4-31b-it.json");
  // 50 sliding layers of 16 KV heads x 256 (K + V f16: 16,384 B per cell), cells
  // pad(min(8192, 1024 + 512), 256) = 1,536; 10 global layers of 4 KV heads x 512 (8,192 B per
  // cell), 8,192 cells: llama.cpp's cache allocates V of n_embd_v_gqa(il) even where the
  // checkpoint has no v_proj.
  for (uint32_t n_seq : {1u, 4u}) {
    const KvCache k = kv(m, 8192, n_seq, TensorType::F16);
    CHECK(k.bytes_of(AttnKind::swa) == n_seq * 50ull * 1536 * 16384);
    CHECK(k.bytes_of(AttnKind::full) == n_seq * 10ull * 8192 * 8192);
    const KvCache q = kv(m, 8192, n_seq, TensorType::Q8_0);
    // q8_0: sliding 2 x 4096/32 x 34 = 8,704 B per cell; global 2 x 2048/32 x 34 = 4,352 B.
    CHECK(q.bytes_of(AttnKind::swa) == n_seq * 50ull * 1536 * 8704);
    CHECK(q.bytes_of(AttnKind::full) == n_seq * 10ull * 8192 * 4352);
  }
  CHECK(layer_pattern(m) ==
        "10 × (5 × sliding window 1024 (16 KV heads × 256) + 1 × full attention (4 KV heads × "
        "512, K = V))");
}

TEST_CASE("Layers that share an earlier layer's KV hold no cache (Gemma 3n/4 E-models)",
          "[layers]") {
  // A Gemma 4 E-model shape: 35 layers, 4 sliding : 1 global, the last 20 reuse the KV of an
  // earlier layer (num_kv_shared_layers; llama.cpp n_layer_kv_from_start = 35 - 20 = 15).
  const ModelSpec m = test::gemma4_e_model();
  // Layers 0-14 have KV: 12 sliding (1 x 256: K + V f16 1,024 B per cell, cells pad(512 + 512)
  // = 1,024) and 3 global (1 x 512: 2,048 B per cell, 4,096 cells).
  const KvCache k = kv(m, 4096, 1, TensorType::F16);
  CHECK(k.bytes_of(AttnKind::swa) == 12ull * 1024 * 1024);
  CHECK(k.bytes_of(AttnKind::full) == 3ull * 4096 * 2048);
  CHECK(kv(m, 4096, 4, TensorType::F16).total_bytes() == 4 * k.total_bytes());
  // Shared-KV layers run a double-wide MLP (use_double_wide_mlp).
  uint32_t wide = 0;
  for (const auto& g : layer_groups(m))
    if (g.kind.kv_shared) wide += g.kind.n_ff == 12288 ? static_cast<uint32_t>(g.n_layer) : 0;
  CHECK(wide == 20);
}

TEST_CASE("Gated delta-net state: r and s tensors per sequence, F32, any context: Qwen3-Next",
          "[layers]") {
  const ModelSpec m = config("qwen3-next-80b-a3b-instruct.json");
  // 48 layers, full attention every 4th: 36 delta-net layers. d_conv 4, d_inner 32 value heads x
  // 128 = 4,096, d_state 128, n_group 16 key heads: r = 3 x (4096 + 2 x 16 x 128) = 24,576;
  // s = 128 x 4096 = 524,288; 4 B each: 2,195,456 B per layer per sequence (llama.cpp logs
  // "RS buffer size = 75.38 MiB" for one sequence).
  CHECK(n_embd_r(m, StateKind::gated_delta_net) == 24576);
  CHECK(n_embd_s(m, StateKind::gated_delta_net) == 524288);
  for (uint32_t n_seq : {1u, 4u}) {
    const RecurrentState rs = recurrent_state(m, n_seq);
    CHECK(rs.total_bytes() == n_seq * 36ull * 2195456);
    CHECK(rs.r_bytes == n_seq * 36ull * 24576 * 4);
  }
  // The KV cache type does not touch the state; the KV of the 12 full layers follows it:
  // 2 KV heads x 256, f16 (512 + 512) x 2 B = 2,048 B per cell; q8_0 2 x 16 x 34 = 1,088 B.
  CHECK(kv(m, 4096, 1, TensorType::F16).total_bytes() == 12ull * 4096 * 2048);
  CHECK(kv(m, 4096, 4, TensorType::Q8_0).total_bytes() == 4 * 12ull * 4096 * 1088);
  CHECK(layer_pattern(m) == "12 × (3 × gated delta-net + 1 × full attention)");
}

TEST_CASE("Mamba2 and short-conv states, and a hybrid with both memories in one layer",
          "[layers]") {
  // Nemotron-H-8B shapes (nvidia/Nemotron-H-8B-Base-8K config.json): 52 layers, d_conv 4,
  // mamba 128 heads x 64 = d_inner 8,192, d_state 128, n_groups 8; the pattern's 24 'M' layers.
  nlohmann::json j = R"({"model_type": "nemotron_h", "num_hidden_layers": 8,
      "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "vocab_size": 131072, "intermediate_size": 21504, "conv_kernel": 4, "ssm_state_size": 128,
      "n_groups": 8, "mamba_num_heads": 128, "mamba_head_dim": 64,
      "hybrid_override_pattern": "M-M*-M-M"})"_json;
  const ModelSpec nh = model_from_hf_config(j, "nemotron-h");
  // r = 3 x (8192 + 2 x 8 x 128) = 30,720; s = 128 x 8192 = 1,048,576; 4 'M' layers.
  CHECK(n_embd_r(nh, StateKind::mamba2) == 30720);
  CHECK(n_embd_s(nh, StateKind::mamba2) == 1048576);
  CHECK(recurrent_state(nh, 1).total_bytes() == 4ull * (30720 + 1048576) * 4);
  CHECK(recurrent_state(nh, 4).total_bytes() == 4 * 4ull * (30720 + 1048576) * 4);
  // One '*' layer with KV: 8 x 128 x 2 x 2 B = 4,096 B per cell.
  CHECK(kv(nh, 4096, 1, TensorType::F16).total_bytes() == 4096ull * 4096);
  CHECK(layer_pattern(nh) ==
        "1 × mamba2 + 1 × dense FFN only + 1 × mamba2 + 1 × full attention, "
        "2 × (1 × dense FFN only + 1 × mamba2)");

  // LFM2-1.2B shapes (LiquidAI/LFM2-1.2B config.json): n_embd 2048, conv_L_cache 3, 10 conv
  // layers of 16: r = 2048 x 2 = 4,096 values, no s.
  nlohmann::json l = R"({"model_type": "lfm2", "num_hidden_layers": 16, "hidden_size": 2048,
      "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 65536,
      "block_ff_dim": 12288, "block_auto_adjust_ff_dim": true, "block_ffn_dim_multiplier": 1.0,
      "block_multiple_of": 256, "conv_L_cache": 3})"_json;
  l["layer_types"] = {"conv",           "conv",           "full_attention", "conv",
                      "conv",           "full_attention", "conv",           "conv",
                      "full_attention", "conv",           "full_attention", "conv",
                      "full_attention", "conv",           "full_attention", "conv"};
  const ModelSpec lf = model_from_hf_config(l, "lfm2");
  CHECK(lf.n_ff == 8192);  // 2 x 12288 / 3 = 8192, a multiple of 256
  CHECK(recurrent_state(lf, 1).total_bytes() == 10ull * 4096 * 4);
  CHECK(recurrent_state(lf, 4).total_bytes() == 4 * 10ull * 4096 * 4);

  // Falcon-H1: attention and Mamba2 in every layer: both memories for each of the 4 layers.
  nlohmann::json f = R"({"model_type": "falcon_h1", "num_hidden_layers": 4, "hidden_size": 1024,
      "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 32768,
      "intermediate_size": 2048, "mamba_d_conv": 4, "mamba_d_state": 64, "mamba_n_groups": 1,
      "mamba_n_heads": 16, "mamba_d_head": 64, "mamba_d_ssm": 1024})"_json;
  const ModelSpec fh = model_from_hf_config(f, "falcon-h1");
  // r = 3 x (1024 + 2 x 64) = 3,456; s = 64 x 1024 = 65,536; KV 2 x 64 x 2 x 2 B = 512 B/cell.
  CHECK(recurrent_state(fh, 1).total_bytes() == 4ull * (3456 + 65536) * 4);
  CHECK(kv(fh, 4096, 1, TensorType::F16).total_bytes() == 4ull * 4096 * 512);
  CHECK(layer_pattern(fh) == "4 × full attention + mamba2");
}

TEST_CASE("A million layers cost a few runs: sizes are per kind, multiplied", "[layers]") {
  // Qwen3.5-style 3 delta-net : 1 full, 1,000,000 layers (config.json readers bound the layer
  // count far lower; the core must not need per-layer data whatever the count).
  nlohmann::json j = R"({"model_type": "qwen3_5_text", "num_hidden_layers": 4,
      "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 32,
      "vocab_size": 100, "intermediate_size": 128, "linear_conv_kernel_dim": 4,
      "linear_key_head_dim": 16, "linear_value_head_dim": 16, "linear_num_key_heads": 2,
      "linear_num_value_heads": 4, "full_attention_interval": 4})"_json;
  ModelSpec m = model_from_hf_config(j, "deep");
  const LayerKind gdn = m.layer_kinds[0], full = m.layer_kinds[1];
  m.n_layer = 1000000;
  m.layer_kinds.clear();
  m.layer_segments.clear();
  append_layers(m, 0, m.n_layer, 4, [&](uint32_t il) { return (il + 1) % 4 ? gdn : full; });
  REQUIRE(validate(m).empty());
  CHECK(m.layer_segments.size() == 1);
  CHECK(m.layer_segments[0].repeat == 250000);
  CHECK(m.layer_kinds.size() == 2);
  // 250,000 full layers x 4,096 cells x (32 + 32) x 2 B.
  CHECK(kv(m, 4096, 1, TensorType::F16).total_bytes() == 250000ull * 4096 * 128);
  // 750,000 delta-net layers: r = 3 x (64 + 2 x 2 x 16) = 384, s = 16 x 64 = 1,024.
  CHECK(recurrent_state(m, 1).total_bytes() == 750000ull * (384 + 1024) * 4);
}

TEST_CASE("Runs compress into repeated periods", "[layers]") {
  const auto s = compress_layers({0, 0, 1, 0, 0, 1, 0, 0, 1, 2, 2});
  REQUIRE(s.size() == 2);
  CHECK(s[0].repeat == 3);
  REQUIRE(s[0].runs.size() == 2);
  CHECK(s[0].runs[0].count == 2);
  CHECK(s[1].repeat == 1);
  CHECK(s[1].runs[0].kind == 2);
  CHECK(s[1].runs[0].count == 2);
}

TEST_CASE("Every 2025-2026 reference config is read, parameters within 1% of the official",
          "[layers]") {
  struct Case {
    const char* file;
    double official;  // published total parameters (tests/fixtures/configs_2026/*: _source)
  };
  // gpt-oss 21B / 117B (model cards), Gemma 4 31B, Qwen3-30B-A3B-2507 30.5B, Qwen3-Next 80B,
  // Qwen3.5-35B-A3B and Qwen3.6-27B: their safetensors totals (HF API, as data/models.json cites
  // them; the model cards' rounded 35B / 27B leave out the MTP layer and the vision tower, now
  // counted); 0: no official count published. The vision tower (vision_config) counts too.
  const Case cases[] = {
      {"gpt-oss-20b.json", 21e9},
      {"gpt-oss-120b.json", 117e9},
      {"gemma-4-31b-it.json", 31e9},
      {"qwen3-30b-a3b-thinking-2507.json", 30.5e9},
      {"qwen3-next-80b-a3b-instruct.json", 80e9},
      {"qwen3.5-35b-a3b.json", 35951822704.0},
      {"qwen3.6-27b.json", 27781427952.0},
      {"glm-4.7-flash.json", 0},
      {"glm-5.1.json", 0},
      {"kimi-k2-instruct.json", 0},
      {"kimi-k2.5.json", 0},
      {"minimax-m2.7.json", 0},
      {"qwen3-vl-8b-instruct.json", 0},
      {"deepseek-v4-flash.json", 0},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const ModelSpec m = config(c.file);
    const auto p = count_params(m, model_tensors(m));
    const double total = static_cast<double>(p.total + vision_tower_params(m.vision));
    if (c.official > 0)
      CHECK(std::abs(total / c.official - 1) < 0.01);
    else
      CHECK(p.total > 0);
  }
}

TEST_CASE("Stored checkpoint formats come from quantization_config", "[layers]") {
  CHECK(config("gpt-oss-20b.json").stored_quant == "mxfp4-experts");
  CHECK(config("kimi-k2.5.json").stored_quant == "int4-g32");
  CHECK(config("kimi-k2-instruct.json").stored_quant == "fp8");
  CHECK(config("minimax-m2.7.json").stored_quant == "fp8");
  CHECK(config("qwen3.6-27b.json").stored_quant.empty());
  CHECK(config("deepseek-v4-flash.json").stored_quant == "fp8-mxfp4-experts");
}

// DeepSeek-V4-Flash as published: routed experts FP4 with an E8M0 scale per 32 (4.25 bits), the
// other linear layers FP8, embeddings and head BF16, MTP layer included: 46 safetensors files of
// 148.66 GiB (the checkpoint report in tests/fixtures/configs_2026/deepseek-v4-flash.json's
// _source). llmsize's tensor-by-tensor sum is within 0.5% (148.24 GiB).
TEST_CASE("DeepSeek-V4's checkpoint keeps its experts in FP4", "[layers]") {
  const ModelSpec m = config("deepseek-v4-flash.json");
  const Weights w = compute_weights(m, *find_quant_preset(m.stored_quant), false, true);
  CHECK(static_cast<double>(w.bytes) / static_cast<double>(kGiB) == Approx(148.66).epsilon(0.005));
}

TEST_CASE("gpt-oss GGUFs keep the experts in MXFP4 whatever the file type", "[layers]") {
  const ModelSpec m = config("gpt-oss-20b.json");
  // 32 experts x (gate + up + down) of 2880 x 2880 = 796,262,400 values per layer; 24 layers:
  // 19,110,297,600 values in MXFP4 (17 B per 32) = 10,152,345,600 B. Unsloth's and ggml-org's
  // gpt-oss GGUFs are all about this size (Q4_K_M 11.6 GB for the 20b).
  for (const char* q : {"q4_k_m", "q8_0", "f16"}) {
    INFO(q);
    const auto tensors = model_tensors(m);
    const auto types = assign_tensor_types(m, tensors, *find_quant_preset(q));
    uint64_t mx = 0;
    for (size_t i = 0; i < tensors.size(); ++i)
      if (types[i] == TensorType::MXFP4) mx += tensors[i].n_elements() / 32 * 17;
    CHECK(mx == 10152345600ull);
  }
}

TEST_CASE("KV and recurrent state equal what llama.cpp allocated for the reference configs",
          "[layers]") {
  // tests/data/llamacpp_measured_2026.json: llama.cpp (the CPU build of node-llama-cpp) run on
  // shape-only GGUFs of these models; its n_ctx is the total over n_seq_max sequences, so each
  // sequence has n_ctx / n_seq cells. MiB printed with 2 decimals.
  const auto doc = test::data_file("llamacpp_measured_2026.json");
  const std::map<std::string, std::string> configs = {
      {"gpt-oss-20b", "gpt-oss-20b.json"},
      {"gpt-oss-120b", "gpt-oss-120b.json"},
      {"qwen3-next-80b-a3b", "qwen3-next-80b-a3b-instruct.json"},
      {"qwen3.5-35b-a3b", "qwen3.5-35b-a3b.json"},
      {"qwen3.6-27b", "qwen3.6-27b.json"},
      {"gemma-4-31b", "gemma-4-31b-it.json"},
      {"glm-4.7-flash", "glm-4.7-flash.json"},
      {"minimax-m2.7", "minimax-m2.7.json"},
  };
  size_t checked = 0;
  for (const auto& row : doc.at("summary")) {
    const std::string id = row[0];
    const auto it = configs.find(id);
    if (it == configs.end() || !row[9].is_null()) continue;
    // Gemma 4 without flash attention allocates more than its layers' K and V (1680 vs 1520 MiB
    // at 4096): not modelled, so only its flash-attention rows are compared.
    if (id == "gemma-4-31b" && row[5] == "off") continue;
    INFO(row.dump());
    const ModelSpec m = config(it->second);
    const uint32_t n_ctx = row[2], n_seq = row[3];
    const TensorType t = row[4] == "q8_0" ? TensorType::Q8_0 : TensorType::F16;
    const double kv_mib =
        static_cast<double>(kv(m, n_ctx / n_seq, n_seq, t).total_bytes()) / 1048576;
    const double rs_mib = static_cast<double>(recurrent_state(m, n_seq).total_bytes()) / 1048576;
    CHECK(std::abs(kv_mib - row[6].get<double>()) < 0.01);
    CHECK(std::abs(rs_mib - row[7].get<double>()) < 0.01);
    ++checked;
  }
  CHECK(checked > 50);
}

// The reference configs without a published official count: their checkpoints' own totals
// (tests/fixtures/configs_2026/*.json _source.checkpoint, read from the safetensors headers).
// BF16 checkpoints count exactly their parameters: llmsize's must be equal. FP8 checkpoints
// (block-128 e4m3 weights) count each weight_scale_inv value as an element too: MiniMax-M2.7
// per layer 256 experts x 3 x (1,536 / 128 x 3,072 / 128) = 221,184 plus attention q, o
// 2 x 48 x 24 and k, v 2 x 8 x 24 = 2,688 scales, x 62 layers = 13,880,064 above the
// parameters; so those are compared within 0.01%.
TEST_CASE("The reference configs' checkpoint totals: exact for BF16, scales apart for FP8",
          "[layers]") {
  struct Case {
    const char* file;
    uint64_t checkpoint;
    uint64_t scales;  // FP8 scale elements the checkpoint total includes (0: BF16)
  };
  const Case cases[] = {
      // GLM-4.7-Flash incl. its MTP layer 47; GLM-5.1 incl. MTP layer 78 with its DSA indexer;
      // Qwen3-VL-8B incl. the vision tower and 3 deepstack mergers.
      {"glm-4.7-flash.json", 31221488576ull, 0},
      {"glm-5.1.json", 753864139008ull, 0},
      {"qwen3-vl-8b-instruct.json", 8767123696ull, 0},
      {"minimax-m2.7.json", 228703644928ull, 13880064ull},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const ModelSpec m = config(c.file);
    const auto p = count_params(m, model_tensors(m));
    CHECK(p.total + vision_tower_params(m.vision) + c.scales == c.checkpoint);
  }
  // Kimi-K2-Instruct, FP8 too: 1,026,470,731,056 stored elements, within 0.01%.
  const ModelSpec k = config("kimi-k2-instruct.json");
  const double total = static_cast<double>(count_params(k, model_tensors(k)).total);
  CHECK(std::abs(total / 1026470731056.0 - 1) < 1e-4);
}
