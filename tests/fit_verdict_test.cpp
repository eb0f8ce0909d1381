#include "llmsize/fit_verdict.hpp"

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
  // 1024 x 2 x 2 B = 2,684,354,560 B: half each = 22,302,941,184 B, + the compute buffer
  // 279,445,504 B + 536,870,912 B overhead = 23,119,257,600 B per GPU. 24 GiB = 25,769,803,776 B
  // leaves 2,650,546,176 B: 11.5% headroom, below the 20% rule.
  CHECK(e.weights_bytes == 41'921'527'808ull);
  CHECK(e.kv_cache_bytes == 80ull * 8192 * 1024 * 2 * 2);
  CHECK(v.need_bytes == 23'119'257'600ull);
  CHECK(v.headroom_fraction == Approx(2'650'546'176.0 / 23'119'257'600.0));
  // The 20% rule says it does not fit, as gpus_needed does.
  CHECK(per_gpu_bytes(e, c, 2) > usable);
}
