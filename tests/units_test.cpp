// Unit conversions at the edges (units.hpp) and the typed sums the CLI reads instead of doing
// arithmetic itself.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "llmsize/gpu.hpp"
#include "llmsize/machine/power_model.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/memory/recurrent_state.hpp"
#include "llmsize/units.hpp"

using namespace llmsize;

TEST_CASE("sizes given in MiB, GiB or GB become whole bytes, rounded to the nearest", "[units]") {
  struct Case {
    double x;
    uint64_t unit;
    uint64_t bytes;
  };
  const Case cases[] = {
      {512, kMiB, 536870912},   // 512 x 2^20
      {0.5, kMiB, 524288},      // 2^19
      {64, kGiB, 68719476736},  // 64 x 2^30
      {1.1, kGiB, 1181116006},  // 1,181,116,006.4 rounds down
      {1.5, kGB, 1500000000},   // decimal
      {0.0000000015, kGB, 2},   // 1.5 bytes rounds up
      {0, kGiB, 0},
  };
  for (const auto& c : cases) CHECK(bytes_of(c.x, c.unit) == c.bytes);
  CHECK(bytes_of_mib(512) == 536870912);
  CHECK(bytes_of_gib(64) == 68719476736);
  CHECK(bytes_of_gb(1.5) == 1500000000);
  // 2^34 GiB = 2^64 bytes does not fit; NaN and negative sizes are refused too.
  CHECK_THROWS_AS(bytes_of_gib(17179869184.0), OverflowError);
  CHECK_THROWS_AS(bytes_of_gib(-1), OverflowError);
  CHECK_THROWS_AS(bytes_of_gib(std::nan("")), OverflowError);
}

TEST_CASE("bytes and counts shown in GiB, MiB, TB and billions", "[units]") {
  CHECK(gib_of(3 * kGiB / 2) == 1.5);
  CHECK(mib_of(3 * kMiB / 2) == 1.5);
  CHECK(tb_of(1'920'000'000'000) == Approx(1.92));  // a 1.92 TB drive
  CHECK(billions_of(8'030'261'248) == Approx(8.030261248));
  // Q4_0: 18 bytes per 32 weights = 4.5 bits each; no elements, no bits.
  CHECK(bits_per_element(18, 32) == 4.5);
  CHECK(bits_per_element(18, 0) == 0);
  CHECK(share_of(1, 4) == 0.25);
  CHECK(share_of(1, 0) == 0);
  CHECK(seconds_of_ms(250) == 0.25);
  CHECK(ms_of(0.025) == 25);
}

TEST_CASE("the usable memory of n GPUs is n times one's, checked", "[units][gpu]") {
  GpuSpec g;
  g.memory_bytes = 24 * kGiB;
  g.memory_fraction = 1.0;
  CHECK(g.usable_bytes(2) == 48 * kGiB);
  CHECK(g.usable_bytes(0) == 0);
  g.memory_bytes = uint64_t{1} << 62;
  CHECK_THROWS_AS(g.usable_bytes(8), OverflowError);  // 2^65
}

TEST_CASE(
    "typed shares: a sequence's recurrent state, the language model's weights, power over "
    "the published figure",
    "[units]") {
  RecurrentPart p;
  p.n_layer = 36;
  p.n_embd_r = 3 * 4096;  // (d_conv 4 - 1) x 4096
  p.n_embd_s = 128 * 64;
  // 36 layers x 4 B x (12,288 + 8,192) = 2,949,120 B
  CHECK(p.bytes_per_seq() == 2949120);

  Estimate e;
  e.weights_bytes = 10 * kGiB;
  e.weights.vision_bytes = kGiB;
  e.weights.params = 9'000'000'000;
  e.weights.vision_params = 500'000'000;
  CHECK(e.vision_weights_bytes() == kGiB);
  CHECK(e.text_weights_bytes() == 9 * kGiB);
  CHECK(e.weights.text_params() == 8'500'000'000);
  e.weights.vision_bytes = 20 * kGiB;  // never more than the weights themselves
  CHECK(e.text_weights_bytes() == 0);

  KvCache kv;
  kv.k_bytes_per_cell_layer = 1024;  // 4 KV heads x 128 x 2 B (F16)
  kv.v_bytes_per_cell_layer = 512;   // 4 x 64 (n_embd_head_v) x 2 B
  CHECK(kv.bytes_per_cell_layer() == 1536);

  MaxPower m;
  m.wall_w = 10200;
  CHECK(m.over_published() == 0);  // unpublished
  m.published_w = 10000;
  CHECK(m.over_published() == Approx(0.02));  // 10,200 / 10,000 - 1
}

TEST_CASE("a KV part's elements per KV head, for the K and V rows --explain prints", "[units]") {
  KvPart gqa;  // Llama-3.1-8B: 8 KV heads x 128 = 1024 elements in K and in V
  gqa.n_head_kv = 8;
  gqa.n_embd_k = 1024;
  gqa.n_embd_v = 1024;
  CHECK(gqa.head_dim_k() == 128);
  CHECK(gqa.head_dim_v() == 128);
  KvPart mla;  // DeepSeek-V3: one latent "head" of kv_lora_rank 512 + n_rot 64, no V
  mla.n_head_kv = 1;
  mla.n_embd_k = 576;
  CHECK(mla.head_dim_k() == 576);
  CHECK(mla.head_dim_v() == 0);
  CHECK(KvPart{}.head_dim_k() == 0);  // no heads: 0, not a division by zero
}

TEST_CASE("display conversions of seconds and fractions", "[units]") {
  CHECK(us_of(90e-6) == Approx(90));  // the consumer-GPU t_layer
  CHECK(minutes_of(150) == 2.5);
  CHECK(hours_of(9000) == 2.5);
  CHECK(percent_of(0.2) == Approx(20));
  CHECK(percent_of(0.85) == Approx(85));
}

// round_half_away stands in for std::round in the sweep's cells: the same double for every input.
TEST_CASE("round_half_away equals std::round bit for bit", "[units]") {
  auto same = [](double v) {
    const double a = round_half_away(v), b = std::round(v);
    if (std::isnan(b)) return std::isnan(a);
    return std::memcmp(&a, &b, sizeof a) == 0;
  };
  const double cases[] = {0.0,
                          -0.0,
                          0.3,
                          -0.3,
                          0.5,
                          -0.5,
                          1.5,
                          2.5,
                          -2.5,
                          0.49999999999999994,
                          -0.49999999999999994,
                          2.4999999999999996,
                          4503599627370495.5,
                          -4503599627370495.5,
                          4503599627370496.0,
                          9007199254740993.0,
                          1e300,
                          -1e300,
                          std::numeric_limits<double>::infinity(),
                          -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN(),
                          std::numeric_limits<double>::denorm_min(),
                          1600.0,
                          119.085 * 100};
  for (double v : cases) {
    INFO(v);
    CHECK(same(v));
  }
  std::mt19937_64 rng(7);
  size_t mismatches = 0;
  for (int i = 0; i < 200000; ++i) {
    uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    // Random bit patterns, and the scaled figures the cells round (watts, dollars, r2 x 100).
    const double scaled =
        std::ldexp(static_cast<double>(rng() >> 11), -(static_cast<int>(rng() % 60)));
    mismatches += !same(v) + !same(scaled) + !same(-scaled);
  }
  CHECK(mismatches == 0);
}
