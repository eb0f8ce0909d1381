// max_context(): the largest context that fits, and the first one that does not.
#include <catch2/catch.hpp>

#include "llmsize/memory/estimate.hpp"
#include "llmsize/memory/max_context.hpp"
#include "llmsize/plan/plan.hpp"
#include "llmsize/units.hpp"
#include "test_util.hpp"

using namespace llmsize;

TEST_CASE("max_context: n_ctx fits, next_n_ctx = n_ctx + 1 does not, each with its bytes",
          "[max_context]") {
  const auto& m = test::model("llama-3.1-8b");
  RunConfig c;
  c.quant = find_quant_preset("q4_k_m");
  const Weights w = estimate(m, c).weights;
  // 6 to 24 GiB cards hold Q4_K_M weights (4.6 GiB) and some of the 131,072-token context.
  for (const uint64_t gib : {6, 8, 12, 16, 24}) {
    INFO(gib << " GiB");
    const uint64_t usable = gib * kGiB;
    const MaxContext mc = max_context(m, c, w, 1, usable, m.n_ctx_train);
    REQUIRE(mc.limited_by_memory);
    REQUIRE(mc.n_ctx > 0);
    CHECK(mc.next_n_ctx == mc.n_ctx + 1);
    uint64_t at = 0, next = 0;
    CHECK(fits_at_context(m, c, w, 1, usable, mc.n_ctx, &at));
    CHECK_FALSE(fits_at_context(m, c, w, 1, usable, mc.next_n_ctx, &next));
    CHECK(mc.per_gpu_bytes == at);
    CHECK(mc.next_per_gpu_bytes == next);
    CHECK(at <= usable);
    CHECK(next > usable);
  }
  // 80 GiB holds the trained context: nothing over it to name.
  const MaxContext all = max_context(m, c, w, 1, 80 * kGiB, m.n_ctx_train);
  CHECK_FALSE(all.limited_by_memory);
  CHECK(all.n_ctx == m.n_ctx_train);
  CHECK(all.next_n_ctx == 0);
  CHECK(all.next_per_gpu_bytes == 0);
  // 1 GiB does not hold the weights: context 1 is the first that does not fit.
  const MaxContext none = max_context(m, c, w, 1, kGiB, m.n_ctx_train);
  CHECK(none.n_ctx == 0);
  CHECK(none.next_n_ctx == 1);
  uint64_t at_one = 0;
  CHECK_FALSE(fits_at_context(m, c, w, 1, kGiB, 1, &at_one));
  CHECK(none.next_per_gpu_bytes == at_one);
}

TEST_CASE("the context search of --ctx max and fit stops at the trained context, at most 16 Mi",
          "[max_context]") {
  ModelSpec m;
  m.n_ctx_train = 131072;
  CHECK(context_search_limit(m) == 131072);
  m.n_ctx_train = 0;  // not stated: the whole range
  CHECK(context_search_limit(m) == kMaxContextTokens);
  m.n_ctx_train = 32u << 20;  // a config claiming 32 Mi: capped at 16 Mi = 16,777,216
  CHECK(context_search_limit(m) == 16777216);
}
