// Vision towers (ModelSpec::vision, vision_tower_params) and MTP layers counted from config.json,
// checked against the published safetensors totals of the catalog entries (params_source).
#include <catch2/catch.hpp>

#include "llmsize/io/hf_config.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/model/tensors.hpp"
#include "test_util.hpp"

using namespace llmsize;

TEST_CASE("vision tower parameters from the tensor shapes", "[vision]") {
  struct Row {
    const char* what;
    VisionTower v;
    uint64_t params;
  };
  VisionTower qvl2b;  // Qwen3-VL-2B vision_config
  qvl2b.kind = VisionKind::qwen3_vl;
  qvl2b.depth = 24, qvl2b.hidden = 1024, qvl2b.n_ff = 4096, qvl2b.n_head = 16, qvl2b.patch = 16;
  qvl2b.temporal_patch = 2, qvl2b.n_pos = 2304, qvl2b.merge = 2, qvl2b.out_hidden = 2048;
  qvl2b.n_deepstack = 3;
  VisionTower q35 = qvl2b;  // Qwen3.5-35B-A3B: no deepstack
  q35.depth = 27, q35.hidden = 1152, q35.n_ff = 4304, q35.n_deepstack = 0;
  VisionTower g3;  // Gemma 3 4B SigLIP, image 896 / patch 14
  g3.kind = VisionKind::siglip;
  g3.depth = 27, g3.hidden = 1152, g3.n_ff = 4304, g3.n_head = 16, g3.patch = 14;
  g3.n_pos = 64 * 64, g3.out_hidden = 2560;
  VisionTower g4;  // Gemma 4 31B
  g4.kind = VisionKind::gemma4;
  g4.depth = 27, g4.hidden = 1152, g4.n_ff = 4304, g4.n_head = 16, g4.head_dim = 72;
  g4.patch = 16, g4.n_pos = 10240, g4.out_hidden = 5376;
  VisionTower px;  // Mistral-Small-3.1/3.2-24B: Pixtral 24 x 1024, projector to 5120
  px.kind = VisionKind::pixtral;
  px.depth = 24, px.hidden = 1024, px.n_ff = 4096, px.n_head = 16, px.head_dim = 64;
  px.patch = 14, px.merge = 2, px.out_hidden = 5120;
  const Row rows[] = {
      // patch Conv2d 3x14x14x1024 = 602,112 + ln_pre 1,024; layer: q/k/v/o 4 x 1024 x 1024 =
      // 4,194,304 + gate/up/down 3 x 1024 x 4096 = 12,582,912 + two norms 2,048 = 16,779,264,
      // x 24 = 402,702,336; projector: norm 1,024 + merging 4096 x 1024 = 4,194,304 + linear_1
      // 1024 x 5120 = 5,242,880 + linear_2 5120 x 5120 = 26,214,400. Sum 438,958,080 = the
      // published safetensors total 24,011,361,280 (data/models.json, mistral-small-3.2-24b's
      // notes) - its text model 23,572,403,200.
      {"mistral-small-3.2-24b (pixtral)", px, 438958080},
      // patch Conv3d 3x2x16x16x1024 + 1024 = 1,573,888; pos 2304 x 1024 = 2,359,296;
      // block: norms 4 x 1024 + qkv 1024x3072+3072 + proj 1024x1024+1024 + fc1 1024x4096+4096
      //   + fc2 4096x1024+1024 = 4,096 + 3,148,800 + 1,049,600 + 4,198,400 + 4,195,328
      //   = 12,596,224, x 24 = 302,309,376;
      // merger (H = 4096): norm 2,048 + fc1 4096x4096+4096 + fc2 4096x2048+2048 = 25,174,016;
      // deepstack 3 x (norm 8,192 + 25,171,968) = 75,540,480.
      // Sum 406,957,056 = official 2,127,532,032 - text 1,720,574,976.
      {"qwen3-vl-2b", qvl2b, 406957056},
      // patch 1536 x 1152 + 1152 = 1,770,624; pos 2304 x 1152 = 2,654,208; block: LayerNorms
      // 4,608 + qkv 1152x3456+3456 = 3,984,768 + proj 1,328,256 + fc1 1152x4304+4304 =
      // 4,962,512 + fc2 4,959,360 = 15,239,504, x 27 = 411,466,608; merger (H = 4608) 2,304 +
      // 4608x4608+4608 = 21,238,272 + 4608x2048+2048 = 9,439,232. Sum 446,571,248.
      {"qwen3.5-35b-a3b", q35, 446571248},
      // patch Conv2d 3x14x14x1152 + 1152 = 678,528; pos 4096 x 1152 = 4,718,592; layer:
      // LayerNorms 4,608 + q/k/v/out 4 x 1,328,256 + fc1 4,962,512 + fc2 4,959,360 = 15,239,504,
      // x 27 = 411,466,608; post_layernorm 2,304; projector 1152 x 2560 + norm 1152 = 2,950,272.
      // Sum 419,816,304 = official 4,300,079,472 - text 3,880,263,168.
      {"gemma-3-4b", g3, 419816304},
      // patch 768 x 1152 = 884,736; positions 2 x 10240 x 1152 = 23,592,960; layer: q/k/v/o
      // 4 x 1152 x 1152 = 5,308,416 + q/k norms 144 + four norms 4,608 + MLP 3 x 1152 x 4304 =
      // 14,874,624 -> 20,187,792, x 27 = 545,070,384; projection 1152 x 5376 = 6,193,152.
      // Sum 575,741,232.
      {"gemma-4-31b", g4, 575741232},
  };
  for (const auto& r : rows) {
    INFO(r.what);
    CHECK(vision_tower_params(r.v) == r.params);
  }
  CHECK(vision_tower_params(VisionTower{}) == 0);
}

TEST_CASE("config.json vision_config and MTP layers reach the parameter count", "[vision]") {
  struct Row {
    const char* id;
    uint64_t params;
    uint64_t vision;
  };
  const Row rows[] = {
      // text 34,660,610,688 + MTP layer 844,640,768 + vision 446,571,248 = the safetensors total
      {"qwen3.5-35b-a3b", 35951822704, 446571248},
      // text 8,190,735,360 + vision 576,388,336 (three deepstack mergers)
      {"qwen3-vl-8b", 8767123696, 576388336},
      {"gemma-3-4b", 4300079472, 419816304},
      // Ministral 3 3B's Pixtral tower (the Mistral-Small tower above, projected to 3072):
      // 403,305,472 + norm 1,024 + merging 4,194,304 + linear_1 1024 x 3072 = 3,145,728 +
      // linear_2 3072 x 3072 = 9,437,184 = 420,083,712; text 3,429,006,336.
      {"ministral-3-3b", 3849090048, 420083712},
      // 671,026,419,200 main + MTP module: attn_norm 7,168, eh_proj 2x7168x7168 = 102,760,448,
      // enorm/hnorm/shared_head_norm 21,504, MLA q_a 11,010,048 + q_a_norm 1,536 + q_b
      // 37,748,736 + kv_a_mqa 7168x576 = 4,128,768 + kv_a_norm 512 + kv_b 512x128x256 =
      // 16,777,216 + attn_output 117,440,512, ffn_norm 7,168, router 1,835,008 + bias 256,
      // experts 3x7168x2048x256 = 11,274,289,152, shared 44,040,192 -> 11,610,068,224.
      // 682,636,487,424 is 0.28% below the official 684,531,386,000 (the MTP module's own copy
      // of embed_tokens and shared_head.head are not counted).
      {"deepseek-v3.1", 682636487424, 0},
  };
  for (const auto& r : rows) {
    INFO(r.id);
    const auto& m = test::model(r.id);
    CHECK(vision_tower_params(m.vision) == r.vision);
    const auto w = compute_weights(m, *find_quant_preset("q4_k_m"));
    CHECK(w.params == r.params);
    CHECK(w.vision_params == r.vision);
    CHECK(w.vision_bytes == 2 * r.vision);  // F16 mmproj
  }
}

TEST_CASE("vision_config errors name the field", "[vision]") {
  const std::string cfg = R"({"model_type": "qwen3_5", "vision_config": {"depth": 2,
      "out_hidden_size": 64, "hidden_size": 32, "intermediate_size": 64,
      "patch_size": 16, "num_position_embeddings": 16},
      "text_config": {"model_type": "qwen3_5_text", "num_hidden_layers": 4, "hidden_size": 64,
      "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128,
      "linear_conv_kernel_dim": 4, "linear_key_head_dim": 16, "linear_num_key_heads": 2,
      "linear_num_value_heads": 4, "linear_value_head_dim": 16}})";
  CHECK_THROWS_WITH(parse_hf_config(cfg, "c.json"),
                    Catch::Contains("c.json: /vision_config/num_heads: missing"));
  // Mistral3's projector with a bias is a layout the count does not hold: refused, not guessed.
  const std::string mistral3 = R"({"model_type": "mistral3", "multimodal_projector_bias": true,
      "vision_config": {"model_type": "pixtral", "num_hidden_layers": 2, "hidden_size": 64,
      "intermediate_size": 128, "num_attention_heads": 4, "patch_size": 14},
      "text_config": {"model_type": "mistral", "num_hidden_layers": 2, "hidden_size": 64,
      "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100,
      "intermediate_size": 128}})";
  CHECK_THROWS_WITH(parse_hf_config(mistral3, "c.json"),
                    Catch::Contains("c.json: /multimodal_projector_bias: true is not supported"));
}
