#include <catch2/catch.hpp>

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
