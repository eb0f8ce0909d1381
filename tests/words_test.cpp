// The CLI's words for what the library returns as kinds and numbers (src/cli/render/words.cpp).
#include <catch2/catch.hpp>

#include "cli/render/words.hpp"
#include "llmsize/estimate.hpp"
#include "llmsize/power.hpp"
#include "llmsize/units.hpp"

using namespace llmsize;
using namespace llmsize::cli;

TEST_CASE("circuits are worded with the amps, the mains and the circuit's rating", "[words]") {
  struct Case {
    uint32_t gpus;
    double power_limit;
    Platform platform;
    uint32_t dimms;
    double mains_v;
    const char* words;
  };
  // RTX 4090s (450 W board); desktop: CPU 170 W, board/fans 60 W; workstation: CPU 350 W,
  // board/fans 100 W; DIMMs 5 W, 3 NVMe drives 8 W each; wall = peak / 0.92; continuous = rating x
  // 0.8.
  const Case cases[] = {
      // 450 + 170 + 10 + 24 + 60 = 714 W; 714 / 0.92 / 120 = 6.47 A <= 15 A x 0.8
      {1, 1.0, Platform::desktop, 2, 120,
       "6.5 A at 120 V fits one ordinary 15 A outlet (12.0 A continuous)"},
      // 714 / 0.92 / 230 = 3.37 A <= 10 A x 0.8
      {1, 1.0, Platform::desktop, 2, 230,
       "3.4 A at 230 V fits one ordinary 10 A outlet (8.0 A continuous)"},
      // 4 x 360 + 350 + 40 + 24 + 100 = 1954 W; / 0.92 / 230 = 9.23 A: over 8 A, under 12.8 A
      {4, 0.8, Platform::workstation, 8, 230,
       "9.2 A at 230 V: needs a 16 A circuit (12.8 A continuous), not a 10 A outlet"},
      // 1350 + 170 + 10 + 24 + 60 = 1614 W; / 0.92 / 120 = 14.62 A: over 12 A, under 16 A
      {3, 1.0, Platform::desktop, 2, 120,
       "14.6 A at 120 V: needs a dedicated 20 A circuit (16 A continuous)"},
      // 1954 W / 0.92 / 120 = 17.70 A over 16 A: ceil(17.70 / 24) = 1 circuit of 30 A
      {4, 0.8, Platform::workstation, 8, 120,
       "17.7 A at 120 V: dedicated 30 A 208/240 V circuits (24 A continuous each): 1 of them"},
      // 3600 + 350 + 40 + 24 + 100 = 4114 W; / 0.92 / 230 = 19.44 A; 32 A x 0.8 = 25.6 A
      {8, 1.0, Platform::workstation, 8, 230,
       "19.4 A at 230 V: dedicated 32 A circuits (26 A continuous each): 1 of them"},
      // 4114 / 0.92 / 120 = 37.26 A: ceil(37.26 / 24) = 2 circuits
      {8, 1.0, Platform::workstation, 8, 120,
       "37.3 A at 120 V: dedicated 30 A 208/240 V circuits (24 A continuous each): 2 of them"},
  };
  for (const auto& c : cases) {
    PowerInput in;
    in.n_gpus = c.gpus;
    in.gpu_board_w = 450;
    in.power_limit = c.power_limit;
    in.platform = c.platform;
    in.dimms = c.dimms;
    in.nvme_drives = 3;
    in.mains_v = c.mains_v;
    CHECK(circuit_words(plan_power(in)) == c.words);
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
