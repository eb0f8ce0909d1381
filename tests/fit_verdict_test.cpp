#include "llmsize/memory/fit_verdict.hpp"

#include <catch2/catch.hpp>

#include "llmsize/units.hpp"
#include "test_util.hpp"

using namespace llmsize;

TEST_CASE("Fit verdicts in three levels", "[fit_verdict]") {
  struct Case {
    uint64_t need, capacity;
    double requested, margin;
    Fit fit;
    double headroom;
  };
  const Case cases[] = {
      {20 * kGiB, 24 * kGiB, 0.2, 0, Fit::fits, 0.2},        // 20 x 1.2 = 24: exactly the rule
      {20 * kGiB + 1, 24 * kGiB, 0.2, 0, Fit::tight, 0.2},   // a byte over the rule
      {22 * kGiB, 24 * kGiB, 0.2, 0, Fit::tight, 2.0 / 22},  // 9.1% headroom
      {24 * kGiB, 24 * kGiB, 0.2, 0, Fit::tight, 0},         // no headroom, still fits
      {24 * kGiB + 1, 24 * kGiB, 0.2, 0, Fit::no, -1.0 / (24.0 * kGiB + 1)},
      {23 * kGiB, 24 * kGiB, 0.2, 0.05, Fit::no, 1.0 / 23},  // 4.3% < the engine's 5%
      {16 * kGiB, 24 * kGiB, 0.2, 0.05, Fit::fits, 0.5},
  };
  for (const auto& c : cases) {
    CAPTURE(c.need, c.capacity, c.requested, c.margin);
    const auto v = fit_verdict(c.need, c.capacity, c.requested, c.margin);
    CHECK(v.fit == c.fit);
    CHECK(v.headroom_fraction == Approx(c.headroom));
    CHECK(v.requested_headroom == c.requested);
  }
  CHECK(std::string(to_string(Fit::tight)) == "tight");
}

TEST_CASE("2 x RTX 3090 hold Llama-3.1-70B Q4_K_M at 8192 tight", "[fit_verdict]") {
  RunConfig c;
  c.quant = find_quant_preset("q4_k_m");
  c.kv.n_ctx = 8192;
  c.n_gpus = 2;
  const auto e = estimate(test::model("llama-3.1-70b"), c);
  const uint64_t usable = test::catalog().find_gpu("rtx-3090")->spec.usable_bytes();
  const auto v = fit_verdict(e, c, usable, 2);
  // Each GPU: half of (weights + KV) + its compute buffer + 512 MiB overhead, no headroom.
  const uint64_t each = (e.weights_bytes + e.kv_cache_bytes + 1) / 2 + e.compute.bytes() +
                        kDefaultOverheadPerGpuBytes;
  CHECK(v.need_bytes == each);
  CHECK(v.capacity_bytes == 24 * kGiB);
  CHECK(v.fit == Fit::tight);
  const double d = static_cast<double>(each);
  CHECK(v.headroom_fraction == Approx((24.0 * kGiB - d) / d));
  // Weights in VRAM 41,921,527,808 B (token_embd stays on the host), KV 80 layers x 8192 x
  // 1024 x 2 x 2 B = 2,684,354,560 B: half each = 22,302,941,184 B, + the compute buffer of the
  // larger GPU + 536,870,912 B overhead. That buffer is the second GPU's (layers 41-79 and the
  // output; llama.cpp de3ff815 pipelines the split, compute_buffer.hpp compute_buffers_by_device):
  // the logits 4 x 512 x (128,256 + 8,192) = 279,445,504 B + 4 copies of its inputs (hidden
  // state 2,048 x 8,192 = 16,777,216, KQ mask F16 8,192 x 512 x 2 = 8,388,608, K and V indices
  // 8,192, positions and output ids 2 x 2,048: 25,178,112) = 100,712,448 B: 380,157,952 B
  // (it was the one-GPU 279,445,504 B before the split was modelled). Per GPU 23,219,970,048 B;
  // 24 GiB = 25,769,803,776 B leaves 2,549,833,728 B: 11.0% headroom, below the 20% rule.
  CHECK(e.weights_bytes == 41'921'527'808ull);
  CHECK(e.kv_cache_bytes == 80ull * 8192 * 1024 * 2 * 2);
  CHECK(e.compute.bytes() == 380'157'952ull);
  CHECK(v.need_bytes == 23'219'970'048ull);
  CHECK(v.headroom_fraction == Approx(2'549'833'728.0 / 23'219'970'048.0));
  // The 20% rule says it does not fit, as gpus_needed does.
  CHECK(per_gpu_bytes(e, c, 2) > usable);
}

TEST_CASE("The tight level uses each engine's own allocation rule", "[fit_verdict]") {
  // A GPU holding need 20 GiB of which 4 GiB KV cache, the estimate's measured error 2%.
  const uint64_t need = 20 * kGiB, kv = 4 * kGiB;
  const double err = 0.02;
  struct Case {
    EngineMargin m;
    double margin;  // share of the need
  };
  EngineLimits sglang_h100;
  sglang_h100.memory_fraction = 0.837;  // engine_limits(sglang, 80 GiB): (81920 - 13338) / 81920
  EngineLimits trt;
  trt.memory_fraction = 0.9;
  const Case cases[] = {
      // llama.cpp allocates what it computes: only the estimate's error, 2%.
      {engine_margin(Engine::llama_cpp), 0.02},
      // Ollama keeps 457 MiB free: 457 / 20480 = 2.23%, + 2%.
      {engine_margin(Engine::ollama), 457.0 / 20480 + 0.02},
      // vLLM uses 0.9 of memory: need <= 0.9 x capacity, 1 / 0.9 - 1 = 11.1%; the estimate is
      // vLLM's own profile rule, no error added.
      {engine_margin(Engine::vllm), 1 / 0.9 - 1},
      {engine_margin(Engine::vllm, EngineLimits()), 1 / 0.9 - 1},
      // SGLang: 1 / 0.837 - 1 = 19.5%.
      {engine_margin(Engine::sglang, sglang_h100), 1 / 0.837 - 1},
      // TensorRT-LLM: the KV pool is 0.9 of what is free, 4 GiB x (1 / 0.9 - 1) / 20 GiB = 2.2%.
      {engine_margin(Engine::trt_llm, trt), 4.0 * (1 / 0.9 - 1) / 20},
      // transformers: on demand, the estimate's error.
      {engine_margin(Engine::transformers), 0.02},
  };
  for (const auto& c : cases) {
    CAPTURE(to_string(c.m.rule), c.m.source);
    CHECK(margin_fraction(c.m, need, kv, err) == Approx(c.margin));
    CHECK(std::string(c.m.source).size() > 10);
  }
  CHECK(engine_margin(Engine::vllm).rule == MarginRule::share_of_total);
  CHECK(engine_margin(Engine::trt_llm, trt).rule == MarginRule::share_of_free);
  CHECK(margin_fraction(engine_margin(Engine::llama_cpp), 0, 0, err) == 0);
  // 22 GiB need on 24 GiB (9.1% headroom): tight for llama.cpp (2%), no for vLLM (11.1%).
  CHECK(fit_verdict(22 * kGiB, 24 * kGiB, 0.2,
                    margin_fraction(engine_margin(Engine::llama_cpp), 22 * kGiB, kv, err))
            .fit == Fit::tight);
  CHECK(fit_verdict(22 * kGiB, 24 * kGiB, 0.2,
                    margin_fraction(engine_margin(Engine::vllm), 22 * kGiB, kv, err))
            .fit == Fit::no);
}
