#include <catch2/catch.hpp>

#include "io/json_readers.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"

using namespace llmsize;
using json = nlohmann::json;

TEST_CASE("config.json fields map to llama.cpp's terms", "[hf_config]") {
  // Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B config.json): head_dim 128 != 2048 / 32.
  const auto m =
      model_from_hf_config(json::parse(R"({"model_type": "qwen3_moe", "num_hidden_layers": 48,
      "hidden_size": 2048, "intermediate_size": 6144, "moe_intermediate_size": 768, "num_attention_heads": 32,
      "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936, "num_experts": 128,
      "num_experts_per_tok": 8, "max_position_embeddings": 40960, "rope_scaling": {"type": "yarn"}})"),
                           "config.json");
  CHECK(m.arch == Arch::qwen3moe);
  CHECK(m.n_embd_head_k == 128);
  CHECK(m.n_expert == 128);
  CHECK(m.n_ff_exp == 768);
  CHECK(m.n_ctx_train == 40960);
  CHECK(m.n_embd_k_gqa() == 512);
}

TEST_CASE("Gemma-3 multimodal configs are read from text_config", "[hf_config]") {
  const auto m = model_from_hf_config(json::parse(R"({"model_type": "gemma3", "text_config": {
      "model_type": "gemma3_text", "num_hidden_layers": 62, "hidden_size": 5376, "intermediate_size": 21504,
      "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128, "vocab_size": 262208,
      "sliding_window": 1024}})"),
                                      "config.json");
  CHECK(m.arch == Arch::gemma3);
  CHECK(m.n_swa == 1024);
  CHECK(m.swa_pattern == 6);
  CHECK(m.tied_embeddings);
}

TEST_CASE("bad config.json fields are named with their JSON path", "[hf_config]") {
  auto [text, message] = GENERATE(table<std::string, std::string>({
      {R"({"model_type": "llama"})",
       "config.json: /num_hidden_layers: missing (expected a positive integer)"},
      {R"({"model_type": "llama", "num_hidden_layers": "32"})",
       "config.json: /num_hidden_layers: expected an integer, got \"32\""},
      {R"({"model_type": "llama", "num_hidden_layers": -1})",
       "config.json: /num_hidden_layers: out of range: -1"},
      {R"({"model_type": "lama", "num_hidden_layers": 2})",
       // The list grew with the 2025-2026 families and the encoders (issue 9); "lama" is near
       // llama4 and lfm2 too.
       "config.json: /model_type: unsupported \"lama\" (did you mean llama, llama4, lfm2?); "
       "supported: llama, mistral, mixtral, "
       "qwen2, qwen2_moe, qwen3, qwen3_moe, gemma2, gemma3, gemma3_text, phi3, deepseek_v2, "
       "deepseek_v3, cohere, falcon, gpt_bigcode, gpt_oss, qwen3_next, qwen3_5, qwen3_5_moe, "
       "qwen3_vl, gemma4, llama4, kimi_k2, kimi_k25, glm4_moe_lite, deepseek_v32, glm_moe_dsa, "
       "glm4_moe, minimax_m2, nemotron_h, granitemoehybrid, lfm2, lfm2_moe, falcon_h1, cohere2, "
       "olmo2, olmo3, smollm3, seed_oss, ernie4_5_moe, hunyuan_v1_moe, ministral3, deepseek_v4, "
       "mistral3, qwen3_vl_moe, hunyuan, bert, xlm-roberta, gemma4_unified, gemma3n"},
      {R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64, "intermediate_size": 128,
          "num_attention_heads": 6, "num_key_value_heads": 4, "vocab_size": 10})",
       "config.json: num_attention_heads (6) is not divisible by num_key_value_heads (4)"},
      {R"([1, 2])", "config.json: expected a JSON object"},
  }));
  CHECK_THROWS_MATCHES(model_from_hf_config(json::parse(text), "config.json"), InputError,
                       Catch::Message(message));
}

namespace {

// Published shapes the bound and architecture tests break one key at a time.
// Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B config.json).
const char* kQwen3Moe = R"({"model_type": "qwen3_moe", "num_hidden_layers": 48, "hidden_size": 2048,
  "intermediate_size": 6144, "moe_intermediate_size": 768, "num_attention_heads": 32,
  "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936, "num_experts": 128,
  "num_experts_per_tok": 8})";
// DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json).
const char* kDeepSeekV3 = R"({"model_type": "deepseek_v3", "num_hidden_layers": 61,
  "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
  "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
  "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1,
  "first_k_dense_replace": 3, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
  "qk_nope_head_dim": 128, "v_head_dim": 128, "num_nextn_predict_layers": 1})";
// A small Qwen3.5 text model: 3 delta-net layers and 1 full-attention layer.
const char* kQwen35 = R"({"model_type": "qwen3_5_text", "num_hidden_layers": 4, "hidden_size": 64,
  "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
  "intermediate_size": 128, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 16,
  "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_value_head_dim": 16,
  "mtp_num_hidden_layers": 1})";
const char* kLlama4 = R"({"model_type": "llama4_text", "num_hidden_layers": 4, "hidden_size": 64,
  "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
  "intermediate_size": 128, "intermediate_size_mlp": 256, "num_local_experts": 4,
  "num_experts_per_tok": 1, "attention_chunk_size": 8192})";
const char* kGptOss = R"({"model_type": "gpt_oss", "num_hidden_layers": 2, "hidden_size": 64,
  "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 100,
  "intermediate_size": 128, "num_local_experts": 4, "num_experts_per_tok": 2,
  "sliding_window": 128})";
const char* kBigCode = R"({"model_type": "gpt_bigcode", "n_layer": 2, "n_embd": 64, "n_head": 4,
  "vocab_size": 100, "n_positions": 1024})";
const char* kMixtral = R"({"model_type": "mixtral", "num_hidden_layers": 2, "hidden_size": 64,
  "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2,
  "vocab_size": 100, "num_local_experts": 8, "num_experts_per_tok": 2})";

// `base` with the keys of `patch` set (a null removes nothing: it is read as absent).
json patched(const char* base, const char* patch) {
  json j = json::parse(base);
  j.update(json::parse(patch));
  return j;
}

}  // namespace

TEST_CASE("the published shapes the bound tests break read as they are", "[hf_config]") {
  for (const char* base : {kQwen3Moe, kDeepSeekV3, kQwen35, kLlama4, kGptOss, kBigCode, kMixtral})
    CHECK_NOTHROW(model_from_hf_config(json::parse(base), "config.json"));
  // DeepSeek-V3's MLA: 512 + 64 cached per token and layer.
  CHECK(model_from_hf_config(json::parse(kDeepSeekV3), "config.json").n_embd_k_gqa() == 576);
}

TEST_CASE("count keys are bounded, named by the config's own key and the bound", "[hf_config]") {
  auto [base, patch, message] = GENERATE(table<const char*, const char*, std::string>({
      // 1,000,000 MTP layers once cost 7 s, 1 GB and printed 243 trillion parameters.
      {kQwen35, R"({"mtp_num_hidden_layers": 1000000})",
       "config.json: /mtp_num_hidden_layers: out of range: 1000000 (at most 16)"},
      {kDeepSeekV3, R"({"num_nextn_predict_layers": 1000000})",
       "config.json: /num_nextn_predict_layers: out of range: 1000000 (at most 16)"},
      {kQwen3Moe, R"({"num_experts": 5000})",
       "config.json: /num_experts: out of range: 5000 (at most 4096)"},
      {kDeepSeekV3, R"({"n_routed_experts": 5000})",
       "config.json: /n_routed_experts: out of range: 5000 (at most 4096)"},
      {kMixtral, R"({"num_local_experts": 5000})",
       "config.json: /num_local_experts: out of range: 5000 (at most 4096)"},
      {kQwen3Moe, R"({"num_experts_per_tok": 300})",
       "config.json: /num_experts_per_tok: out of range: 300 (at most 256)"},
      {kDeepSeekV3, R"({"n_shared_experts": 100})",
       "config.json: /n_shared_experts: out of range: 100 (at most 64)"},
      {kQwen35, R"({"num_attention_heads": 5000})",
       "config.json: /num_attention_heads: out of range: 5000 (at most 4096)"},
      {kQwen35, R"({"linear_num_value_heads": 8192})",
       "config.json: /linear_num_value_heads: out of range: 8192 (at most 4096)"},
      {kQwen35, R"({"num_hidden_layers": 5000})",
       "config.json: /num_hidden_layers: out of range: 5000 (at most 4096)"},
      {kQwen3Moe, R"({"vocab_size": 20000000})",
       "config.json: /vocab_size: out of range: 20000000 (at most 16777216)"},
      // Per-layer lists hold one entry per layer at most, checked before they are walked.
      {kLlama4, R"({"no_rope_layers": [1, 1, 1, 1, 1]})",
       "config.json: /no_rope_layers: 5 entries for 4 layers"},
  }));
  CHECK_THROWS_MATCHES(model_from_hf_config(patched(base, patch), "config.json"), InputError,
                       Catch::Message(message));
}

TEST_CASE("a per-layer list longer than any model is refused before it is read", "[hf_config]") {
  json j = json::parse(kQwen35);
  j["layer_types"] = std::vector<std::string>(5000, "full_attention");
  CHECK_THROWS_MATCHES(
      model_from_hf_config(j, "config.json"), InputError,
      Catch::Message("config.json: /layer_types: 5000 entries (at most 4096, one per layer)"));
}

TEST_CASE("values that would change the architecture are refused with the config's own key",
          "[hf_config]") {
  auto [base, patch, message] = GENERATE(table<const char*, const char*, std::string>({
      // 0 or 1 experts would size a mixture of experts as a dense model.
      {kQwen3Moe, R"({"num_experts": 0})",
       "config.json: /num_experts: 0 on a mixture-of-experts model (model_type qwen3_moe): "
       "expected at least 2 experts"},
      {kQwen3Moe, R"({"num_experts": 1})",
       "config.json: /num_experts: 1 on a mixture-of-experts model (model_type qwen3_moe): "
       "expected at least 2 experts"},
      {kDeepSeekV3, R"({"n_routed_experts": 0})",
       "config.json: /n_routed_experts: 0 on a mixture-of-experts model (model_type "
       "deepseek_v3): expected at least 2 experts"},
      {kMixtral, R"({"num_local_experts": 0})",
       "config.json: /num_local_experts: 0 on a mixture-of-experts model (model_type mixtral): "
       "expected at least 2 experts"},
      {kGptOss, R"({"num_local_experts": 0})",
       "config.json: /num_local_experts: 0 on a mixture-of-experts model (model_type gpt_oss): "
       "expected at least 2 experts"},
      {kQwen3Moe, R"({"num_experts_per_tok": 0})",
       "config.json: /num_experts_per_tok: 0 (expected at least 1 expert per token)"},
      // Named by the expert key the config uses, not num_local_experts.
      {kQwen3Moe, R"({"num_experts_per_tok": 129})",
       "config.json: /num_experts_per_tok: 129 exceeds num_experts (128)"},
      {kDeepSeekV3, R"({"num_experts_per_tok": 255, "n_routed_experts": 200})",
       "config.json: /num_experts_per_tok: 255 exceeds n_routed_experts (200)"},
      // kv_lora_rank 0 is not MLA: DeepSeek-V3 would be sized with 128 KV heads of 192 + 128,
      // 40,960 per token and layer instead of 576 (71 x).
      {kDeepSeekV3, R"({"kv_lora_rank": 0})",
       "config.json: /kv_lora_rank: 0 (expected at least 1: MLA caches a latent of kv_lora_rank "
       "+ qk_rope_head_dim per token and layer)"},
      {kDeepSeekV3, R"({"qk_rope_head_dim": 0})",
       "config.json: /qk_rope_head_dim: 0 (expected at least 1: the rope part of each MLA key)"},
      {kQwen35, R"({"layer_types": []})",
       "config.json: /layer_types: empty (expected one entry per layer, 4 for "
       "num_hidden_layers)"},
      {kGptOss, R"({"layer_types": []})",
       "config.json: /layer_types: empty (expected one entry per layer, 2 for "
       "num_hidden_layers)"},
      {kQwen35, R"({"linear_num_value_heads": 3})",
       "config.json: /linear_num_value_heads: 3 is not a multiple of linear_num_key_heads (2): "
       "value heads must group evenly over key heads"},
      {kQwen35, R"({"linear_num_key_heads": 0})",
       "config.json: /linear_num_key_heads: 0 (expected at least 1: the delta-net's key heads)"},
      {kQwen35, R"({"linear_conv_kernel_dim": 0})",
       "config.json: /linear_conv_kernel_dim: 0 (expected at least 1: the delta-net's "
       "convolution taps)"},
      {kLlama4, R"({"attention_chunk_size": 0})",
       "config.json: /attention_chunk_size: 0 (expected at least 1: Llama 4's chunked layers "
       "attend within chunks of this many tokens)"},
      {kGptOss, R"({"sliding_window": 0})",
       "config.json: /sliding_window: 0 (expected at least 1: the sliding layers' window in "
       "tokens)"},
  }));
  CHECK_THROWS_MATCHES(model_from_hf_config(patched(base, patch), "config.json"), InputError,
                       Catch::Message(message));
}

TEST_CASE("validate()'s problems name the key the config used, not llama.cpp's field",
          "[hf_config]") {
  auto [base, patch, message] = GENERATE(table<const char*, const char*, std::string>({
      // gpt_bigcode's own keys are n_layer, n_embd, n_head (GPT-2's), not num_hidden_layers.
      {kBigCode, R"({"n_layer": 0})", "config.json: n_layer must be a positive integer"},
      {kBigCode, R"({"n_head": 0})", "config.json: n_head must be a positive integer"},
      // gpt-oss's experts are intermediate_size wide: it has no moe_intermediate_size.
      {kGptOss, R"({"intermediate_size": 0})",
       "config.json: intermediate_size must be a positive integer"},
      {kQwen3Moe, R"({"num_key_value_heads": 5})",
       "config.json: num_attention_heads (32) is not divisible by num_key_value_heads (5)"},
  }));
  CHECK_THROWS_MATCHES(model_from_hf_config(patched(base, patch), "config.json"), InputError,
                       Catch::Message(message));
}

TEST_CASE("quantization_config names the checkpoint's format, or what llmsize does not read",
          "[hf_config]") {
  // The formats as their tools write them: AutoGPTQ / TheBloke (bits, group_size), AutoAWQ
  // (w_bit, q_group_size; transformers' AwqConfig: bits, group_size), AutoRound (packing_format),
  // llm-compressor's compressed-tensors (config_groups.*.weights), bitsandbytes.
  auto [qc, preset, unread] = GENERATE(table<std::string, std::string, std::string>({
      {R"({"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": true})", "gptq-4bit",
       ""},
      {R"({"quant_method": "gptq", "bits": 8, "group_size": 128})", "gptq-8bit", ""},
      {R"({"quant_method": "gptq", "bits": 4})", "gptq-4bit", ""},  // GPTQConfig's default group
      {R"({"quant_method": "gptq", "bits": 4, "group_size": 32})", "", "GPTQ 4-bit, group 32"},
      {R"({"quant_method": "gptq", "bits": 3, "group_size": -1})", "",
       "GPTQ 3-bit, group per channel"},
      {R"({"quant_method": "awq", "w_bit": 4, "q_group_size": 128, "version": "gemm"})", "awq-4bit",
       ""},
      {R"({"quant_method": "awq", "bits": 4, "group_size": 128})", "awq-4bit", ""},
      {R"({"quant_method": "awq", "bits": 4, "group_size": 64})", "", "AWQ 4-bit, group 64"},
      {R"({"quant_method": "auto-round", "bits": 4, "group_size": 128,
           "packing_format": "auto_round:auto_gptq"})",
       "gptq-4bit", ""},
      {R"({"quant_method": "intel/auto-round", "bits": 4, "group_size": 128,
           "packing_format": "auto_round:auto_awq"})",
       "awq-4bit", ""},
      {R"({"quant_method": "compressed-tensors", "format": "pack-quantized", "config_groups":
           {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
           "symmetric": true, "group_size": 128, "strategy": "group"}}}})",
       "int4-g128", ""},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights":
           {"num_bits": 4, "type": "int", "symmetric": false, "group_size": 128}}}})",
       "", "compressed-tensors int 4-bit, group 128, asymmetric"},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights":
           {"num_bits": 8, "type": "int", "strategy": "channel"}}}})",
       "int8", ""},
      {R"({"quant_method": "compressed-tensors", "config_groups": {"group_0": {"weights":
           {"num_bits": 8, "type": "float", "strategy": "channel"}}}})",
       "fp8", ""},
      {R"({"quant_method": "fp8", "weight_block_size": [128, 128]})", "fp8", ""},
      {R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4"})",
       "", "bitsandbytes 4-bit (nf4)"},
      {R"({"quant_method": "bitsandbytes", "load_in_8bit": true})", "", "bitsandbytes 8-bit"},
      {R"({"quant_method": "hqq", "nbits": 4})", "", "quant_method hqq"},
  }));
  json j = json::parse(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256,
      "intermediate_size": 512, "num_attention_heads": 4, "vocab_size": 1024})");
  j["quantization_config"] = json::parse(qc);
  INFO(qc);
  const ModelSpec m = model_from_hf_config(j, "config.json");
  CHECK(m.stored_quant == preset);
  CHECK(m.stored_quant_unread == unread);
}
