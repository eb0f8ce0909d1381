// The CLI's words for what the library returns as kinds and numbers (src/cli/render/words.cpp).
#include <catch2/catch.hpp>

#include "cli/render/words.hpp"
#include "llmsize/machine/power.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/units.hpp"

using namespace llmsize;
using namespace llmsize::cli;

TEST_CASE("circuits are worded with the amps, the mains and the circuit's rating", "[words]") {
  struct Case {
    double peak_w;  // DC load; the wall draws peak / kPsuEfficiency (0.92)
    double mains_v;
    const char* words;
  };
  // Continuous = rating x 0.8.
  const Case cases[] = {
      // 714 / 0.92 / 120 = 6.47 A <= 15 A x 0.8
      {714, 120, "6.5 A at 120 V fits one ordinary 15 A outlet (12.0 A continuous)"},
      // 714 / 0.92 / 230 = 3.37 A <= 10 A x 0.8
      {714, 230, "3.4 A at 230 V fits one ordinary 10 A outlet (8.0 A continuous)"},
      // 1954 / 0.92 / 230 = 9.23 A: over 8 A, under 12.8 A
      {1954, 230, "9.2 A at 230 V: needs a 16 A circuit (12.8 A continuous), not a 10 A outlet"},
      // 1614 / 0.92 / 120 = 14.62 A: over 12 A, under 16 A
      {1614, 120, "14.6 A at 120 V: needs a dedicated 20 A circuit (16 A continuous)"},
      // 1954 / 0.92 / 120 = 17.70 A over 16 A: ceil(17.70 / 24) = 1 circuit of 30 A
      {1954, 120,
       "17.7 A at 120 V: dedicated 30 A 208/240 V circuits (24 A continuous each): 1 of them"},
      // 4114 / 0.92 / 230 = 19.44 A; 32 A x 0.8 = 25.6 A
      {4114, 230, "19.4 A at 230 V: dedicated 32 A circuits (26 A continuous each): 1 of them"},
      // 4114 / 0.92 / 120 = 37.26 A: ceil(37.26 / 24) = 2 circuits
      {4114, 120,
       "37.3 A at 120 V: dedicated 30 A 208/240 V circuits (24 A continuous each): 2 of them"},
  };
  for (const auto& c : cases) {
    PowerPlan p;
    p.peak_w = c.peak_w;
    p.wall_w = c.peak_w / kPsuEfficiency;
    mains_draw(p, c.mains_v);
    CHECK(circuit_words(p) == c.words);
  }
}

TEST_CASE("the estimate's warnings are worded from their numbers", "[words]") {
  CHECK(estimate_warning_words(
            {EstimateWarningKind::beyond_naive_rule, {3 * kGiB, 9 * kGiB / 2, 3 * kGiB / 2}}) ==
        "the rule of thumb 1.2 x weights (3.00 GiB) would be 1.50 GiB short of this estimate "
        "(4.50 GiB)");
  CHECK(estimate_warning_words({EstimateWarningKind::beyond_trained_context, {200000, 131072}}) ==
        "context 200000 exceeds the model's trained context 131072");
  CHECK(estimate_warning_words({EstimateWarningKind::deepseek4_kv_approximate}) ==
        "DeepSeek-V4's KV cache is approximate: a sliding window per layer plus compressed caches "
        "of n_ctx / compress_ratio entries; llama.cpp's llama-kv-cache-dsv4 state is not modelled "
        "exactly");
}
