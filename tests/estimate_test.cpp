#include <catch2/catch.hpp>

#include "llmsize/memory/estimate.hpp"
#include "llmsize/units.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {
RunConfig config(const char* quant, uint32_t n_ctx) {
  RunConfig c;
  c.quant = find_quant_preset(quant);
  c.kv.n_ctx = n_ctx;
  return c;
}
}  // namespace

TEST_CASE("the total is the sum of the parts plus 20% headroom on that sum", "[estimate]") {
  const auto c = config("q4_k_m", 8192);
  const auto e = estimate(test::model("llama-3.1-8b"), c);
  const uint64_t sum = e.weights_bytes + e.kv_cache_bytes + e.activations_bytes + e.overhead_bytes;
  CHECK(e.subtotal_bytes() == sum);
  CHECK(e.headroom_bytes == (sum + 4) / 5);  // 0.2 x sum, rounded up
  CHECK(e.total_bytes() == sum + e.headroom_bytes);
  CHECK(e.overhead_bytes == 512ull << 20);
  CHECK(e.kv_cache_bytes == 1ull << 30);
  // VRAM weights leave token_embd in host memory: 128,256 x 4,096 values at Q4_K (144 B per
  // 256-value block) = 2,052,096 blocks x 144 B = 295,501,824 B.
  CHECK(e.weights.host_bytes == 295501824);
  CHECK(e.weights_bytes == e.weights.bytes - e.weights.host_bytes);
}

TEST_CASE("a long context or many users outgrow the 1.2 x weights rule, and it says so",
          "[estimate]") {
  auto c = config("q4_k_m", 131072);
  const auto e = estimate(test::model("llama-3.1-8b"), c);
  CHECK(e.total_bytes() > e.naive_rule_bytes);
  REQUIRE_FALSE(e.warnings.empty());
  CHECK(e.warnings[0].kind == EstimateWarningKind::beyond_naive_rule);
  CHECK(e.warnings[0].n[0] == e.naive_rule_bytes);
  CHECK(e.warnings[0].n[1] == e.total_bytes());
  CHECK(e.warnings[0].n[2] == e.total_bytes() - e.naive_rule_bytes);
}

TEST_CASE("GPU count: each GPU holds its share plus its own buffer, overhead and headroom",
          "[estimate]") {
  const auto c = config("q4_k_m", 8192);
  const auto e = estimate(test::model("llama-3.1-70b"), c);
  // per GPU(n) = ceil((W + KV) / n) + compute(n) + overhead, then x 1.2. compute(1) is the
  // one-GPU buffer, the logits 4 x 512 x (128,256 + 8,192) = 279,445,504 B; for 2 or more GPUs
  // the layer split's device with the output (llama.cpp de3ff815 pipeline parallelism,
  // compute_buffer.hpp): + 4 copies of its inputs (hidden state 2,048 x 8,192 = 16,777,216,
  // KQ mask F16 8,192 x 512 x 2 = 8,388,608, K and V indices 8,192, positions and output ids
  // 2 x 2,048: 25,178,112) = 380,157,952 B (before the split was modelled: e.compute, the
  // one-GPU buffer, for every n).
  for (uint32_t n : {1u, 2u, 3u}) {
    const uint64_t compute = n == 1 ? 279'445'504ull : 380'157'952ull;
    CHECK(compute_bytes_per_gpu(e, n) == compute);
    const uint64_t each =
        (e.weights_bytes + e.kv_cache_bytes + n - 1) / n + compute + (512ull << 20);
    CHECK(per_gpu_bytes(e, c, n) == each + (each + 4) / 5);
  }
  const uint32_t n24 = gpus_needed(e, c, 24ull << 30);
  CHECK(per_gpu_bytes(e, c, n24) <= 24ull << 30);
  CHECK(per_gpu_bytes(e, c, n24 - 1) > 24ull << 30);
  CHECK(gpus_needed(e, c, 80ull << 30) == 1);
  CHECK(gpus_needed(e, c, 1ull << 30, 4) == 0);  // cannot fit in 4 x 1 GiB
}

TEST_CASE("gpus_needed finds the fewest GPUs a scan from 1 would find", "[estimate]") {
  // It halves the range (per_gpu_bytes does not grow with n); every memory size from 1 to 96 GiB
  // in 1/4 GiB steps and several limits give the first n of the scan, or 0 when none fits.
  for (const char* q : {"q4_k_m", "f16"}) {
    const auto c = config(q, 32768);
    const auto e = estimate(test::model("llama-3.1-70b"), c);
    for (uint64_t quarter = 4; quarter <= 4 * 96; ++quarter)
      for (uint32_t limit : {1u, 3u, 8u, 1024u}) {
        const uint64_t usable = quarter * (kGiB / 4);
        uint32_t scan = 0;
        for (uint32_t n = 1; n <= limit && !scan; ++n)
          if (per_gpu_bytes(e, c, n) <= usable) scan = n;
        CHECK(gpus_needed(e, c, usable, limit) == scan);
      }
  }
}

TEST_CASE("the tokens of one pass and the ubatch the compute buffer is reserved for",
          "[estimate]") {
  struct Case {
    const char* model;
    uint32_t n_ctx, n_seq, n_ubatch;
    uint64_t batch, ubatch;
  };
  for (const Case& k : {
           // Generation: n_ctx x n_seq = 4,096 x 2 = 8,192 tokens; the ubatch is n_ubatch, 512.
           Case{"llama-3.1-8b", 4096, 2, 512, 8192, 512},
           // Embedding: 8 documents of 1,024 tokens = 8,192; a document is pooled within one
           // ubatch: min(max(512, 1,024), 8,192) = 1,024.
           Case{"bge-m3", 1024, 8, 512, 8192, 1024},
           // One document of 256 tokens: min(max(512, 256), 256) = 256.
           Case{"bge-m3", 256, 1, 512, 256, 256},
       }) {
    INFO(k.model << " n_ctx " << k.n_ctx << " n_seq " << k.n_seq);
    RunConfig c = config("q8_0", k.n_ctx);
    c.kv.n_seq = k.n_seq;
    c.kv.n_ubatch = k.n_ubatch;
    const auto e = estimate(test::model(k.model), c);
    CHECK(e.batch_tokens == k.batch);
    CHECK(e.ubatch_tokens == k.ubatch);
  }
}

TEST_CASE("per-GPU and available-KV sums are checked, not wrapped or rounded in double",
          "[estimate]") {
  const auto c = config("q4_k_m", 8192);
  auto e = estimate(test::model("llama-3.1-8b"), c);
  // A byte count near 2^64 (a hostile file's sizes) throws instead of wrapping to a small number.
  Estimate big = e;
  big.weights_bytes = ~uint64_t{0} - 10;
  CHECK_THROWS_AS(per_gpu_bytes(big, c, 1), OverflowError);
  CHECK_THROWS_AS(available_kv_bytes(big, c, 80ull << 30, ~uint32_t{0}), OverflowError);
  // Exact integers: 2 GPUs of 10^12 B with headroom 0.2 give floor(2 x 10^12 / 1.2) =
  // 1,666,666,666,666 B of budget; the rest is that minus weights, state and 2 x (compute +
  // overhead). Doubles would carry the rounding of 2 x 10^12 / 1.2. The compute buffer of a
  // 2-GPU split is the pipelined device with the output (compute_split_test.cpp:
  // 67,158,016 + 271,056,896 = 338,214,912 B; e.compute, the one-GPU 271,056,896 B, before).
  REQUIRE(compute_bytes_per_gpu(e, 2) == 338'214'912ull);
  const uint64_t used =
      e.weights_bytes + e.recurrent_state_bytes + 2 * (338'214'912ull + c.overhead_per_gpu_bytes);
  CHECK(available_kv_bytes(e, c, 1000000000000ull, 2) == 1666666666666ull - used);
}

TEST_CASE("a GGUF of DeepSeek-V3.x leaves out the MTP layer convert_hf_to_gguf.py skips",
          "[estimate][mtp]") {
  // llama.cpp convert_hf_to_gguf.py, class DeepseekV2Model (registered for
  // DeepseekV2/V3ForCausalLM and KimiK25ForConditionalGeneration): skip_mtp = True, and
  // modify_tensors returns nothing for "model.layers.N" with N >= num_hidden_layers.
  // DeepseekV32Model and Glm4MoeLiteModel set skip_mtp = False (the layer stays in the GGUF).
  const auto& ds = test::model("deepseek-v3.1");
  REQUIRE(ds.n_layer_nextn == 1);
  CHECK(ds.gguf_drops_nextn);
  ModelSpec main_only = ds;
  main_only.n_layer_nextn = 0;
  for (const char* q : {"q4_k_m", "q8_0", "iq2_xs"}) {
    INFO(q);
    const auto w = compute_weights(ds, *find_quant_preset(q));
    // The parameters stay the checkpoint's (vision_test.cpp derives 682,636,487,424 with the MTP
    // module); 682,636,487,424 - 671,026,419,200 of the 61 main layers = 11,610,068,224 in the
    // MTP module are not in the file, whose bytes are those of the 61 main layers.
    CHECK(w.params == 682636487424);
    CHECK(w.params_not_in_file == 11610068224);
    const auto w0 = compute_weights(main_only, *find_quant_preset(q));
    CHECK(w0.params == 671026419200);
    CHECK(w.bytes == w0.bytes);
    CHECK(w.active_params == w0.active_params);
    CHECK(w.bits_per_weight() == Approx(w0.bits_per_weight()));
  }
  // Safetensors presets (vLLM, transformers) hold the checkpoint as stored, MTP layer included.
  const auto fp8 = compute_weights(ds, *find_quant_preset("fp8"), false);
  CHECK(fp8.params_not_in_file == 0);
  CHECK(fp8.bytes > compute_weights(main_only, *find_quant_preset("fp8"), false).bytes);
  // GLM-4.7-Flash (llama.cpp deepseek2 too) keeps its MTP layer 47 in the GGUF.
  const auto& glm = test::model("glm-4.7-flash");
  CHECK(glm.n_layer_nextn == 1);
  CHECK_FALSE(glm.gguf_drops_nextn);
  CHECK(compute_weights(glm, *find_quant_preset("q4_k_m")).params_not_in_file == 0);
  // DeepSeek-V3.2 (DeepseekV32Model) keeps it as well.
  CHECK_FALSE(test::model("deepseek-v3.2").gguf_drops_nextn);
  // And the estimate says so.
  RunConfig c = config("q4_k_m", 4096);
  const auto e = estimate(ds, c);
  const EstimateWarning mtp{EstimateWarningKind::mtp_not_in_gguf, {1, 11610068224, 0}};
  CHECK(std::find(e.warnings.begin(), e.warnings.end(), mtp) != e.warnings.end());
}

TEST_CASE("vLLM leaves the checkpoint's MTP layers out of VRAM, disk and load keep them",
          "[estimate][mtp]") {
  // vllm/model_executor/models/deepseek_v2.py DeepseekV2Model.load_weights (vllm-project/vllm
  // 002d6073aa034d4f5545d45021b0e56d1f3c3593): get_spec_layer_idx_from_weight_name() matches
  // model.layers.{num_hidden_layers + i} and the loop continues ("skip spec decode layers for
  // main model"); glm4_moe.py Glm4MoeModel.load_weights runs skip_spec_layers() first. The main
  // model builds layers 0..num_hidden_layers-1 only.
  const auto& ds = test::model("deepseek-v3.1");
  REQUIRE(ds.n_layer_nextn == 1);
  const QuantPreset& bf16 = *find_quant_preset("hf-bf16");
  const auto all = compute_weights(ds, bf16, false);
  const auto vllm = compute_weights(ds, bf16, false, false);
  // BF16 checkpoint: 2 B per parameter; the MTP module holds 682,636,487,424 - 671,026,419,200
  // = 11,610,068,224 parameters (the test above) = 23,220,136,448 B.
  CHECK(all.bytes == 2 * 682636487424ull);
  CHECK(vllm.bytes == all.bytes);  // the download and what load time reads
  CHECK(vllm.params == all.params);
  CHECK(vllm.nextn_bytes_not_loaded == 23220136448ull);
  CHECK(vllm.vram_bytes == 2 * 671026419200ull);
  CHECK(vllm.active_bytes < all.active_bytes);
  CHECK(all.nextn_bytes_not_loaded == 0);
  // A GGUF preset is untouched: the file already holds what llama.cpp loads.
  CHECK(compute_weights(ds, *find_quant_preset("q4_k_m"), false, false).nextn_bytes_not_loaded ==
        0);
  CHECK_FALSE(engine_loads_nextn(Engine::vllm));
  CHECK(engine_loads_nextn(Engine::llama_cpp));
  CHECK(engine_loads_nextn(Engine::transformers));

  // The estimate: --engine vllm counts the main layers in VRAM and says so.
  RunConfig c = config("hf-bf16", 4096);
  c.engine = Engine::vllm;
  const auto e = estimate(ds, c);
  CHECK(e.weights_bytes == 2 * 671026419200ull);
  CHECK(e.weights.bytes == 2 * 682636487424ull);
  const EstimateWarning w{EstimateWarningKind::mtp_not_loaded, {1, 23220136448ull, 0}};
  CHECK(std::find(e.warnings.begin(), e.warnings.end(), w) != e.warnings.end());
  c.engine = Engine::transformers;
  CHECK(estimate(ds, c).weights_bytes == 2 * 682636487424ull);

  // GLM-4.5 (glm4_moe.py): its MTP layer 92 with its own embed_tokens and shared_head.head
  // (2 x 151,552 x 5,120 = 1,551,892,480 parameters of them) is not loaded either.
  const auto& glm = test::model("glm-4.5");
  REQUIRE(glm.n_layer_nextn == 1);
  ModelSpec glm_main = glm;
  glm_main.n_layer_nextn = 0;
  const auto g = compute_weights(glm, bf16, false, false);
  CHECK(g.vram_bytes == compute_weights(glm_main, bf16, false).bytes);
  CHECK(g.nextn_bytes_not_loaded > 2 * 1551892480ull);
}

TEST_CASE("the subtotal and total byte sums are checked, not wrapped", "[estimate]") {
  // Each part of the sum near 2^64 (a hostile file's sizes): the sum throws, naming the part,
  // where an unchecked uint64_t sum would wrap to a few bytes and "fit".
  const uint64_t near_max = ~uint64_t{0} - 5;
  for (int part = 0; part < 4; ++part) {
    Estimate e;
    e.weights_bytes = near_max;
    uint64_t* const other[] = {&e.kv_cache_bytes, &e.recurrent_state_bytes, &e.activations_bytes,
                               &e.overhead_bytes};
    *other[part] = 10;  // near_max + 10 wraps to 4
    INFO("part " << part);
    CHECK_THROWS_AS(e.subtotal_bytes(), OverflowError);
    CHECK_THROWS_AS(e.total_bytes(), OverflowError);
  }
  // The headroom on top of a subtotal that fits: subtotal 2^64 - 6, headroom 10.
  Estimate e;
  e.weights_bytes = near_max;
  e.headroom_bytes = 10;
  CHECK(e.subtotal_bytes() == near_max);
  CHECK_THROWS_AS(e.total_bytes(), OverflowError);
  // Exact at the edge: 2^64 - 6 + 5 = 2^64 - 1 still fits.
  e.headroom_bytes = 5;
  CHECK(e.total_bytes() == ~uint64_t{0});
}

TEST_CASE("the quants listing's reference bits per weight are those of the catalog Llama-3.1-8B",
          "[estimate]") {
  // The reference shape is Llama-3.1-8B's: every preset gives the catalog model's figure (which
  // data/quants.json pins, rounded: 4.894 for q4_k_m, 8.501 for q8_0).
  const auto& m = test::model("llama-3.1-8b");
  for (const auto& p : all_quant_presets()) {
    INFO(p.id);
    CHECK(reference_bits_per_weight(p) == Approx(compute_weights(m, p).bits_per_weight()));
  }
  CHECK(reference_bits_per_weight(*find_quant_preset("q4_k_m")) == Approx(4.894).margin(5e-4));
  CHECK(reference_bits_per_weight(*find_quant_preset("q8_0")) == Approx(8.501).margin(5e-4));
}

TEST_CASE("the models listing's parameter counts do not depend on the quantization", "[estimate]") {
  // Llama-3.1-8B: 8,030,261,248 parameters (Meta's safetensors total), all read per token.
  // Mixtral-8x7B: 46,702,792,704, of which 2 of 8 experts are read per token: 12,879,925,248.
  const ModelParams l = model_params(test::model("llama-3.1-8b"));
  CHECK(l.params == 8030261248ull);
  CHECK(l.active_params == 8030261248ull);
  const ModelParams x = model_params(test::model("mixtral-8x7b"));
  CHECK(x.params == 46702792704ull);
  CHECK(x.active_params == 12879925248ull);
  for (const char* q : {"q4_k_m", "q8_0", "iq2_xs"}) {
    const Weights w = compute_weights(test::model("mixtral-8x7b"), *find_quant_preset(q));
    CHECK(w.params == x.params);
    CHECK(w.active_params == x.active_params);
  }
}
