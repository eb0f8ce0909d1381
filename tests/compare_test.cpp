#include "llmsize/plan/compare.hpp"

#include <catch2/catch.hpp>

#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/units.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

const std::vector<GpuSpec>& gpus() {
  static const std::vector<GpuSpec> v = [] {
    std::vector<GpuSpec> g;
    for (const auto& c : test::catalog().gpus()) g.push_back(c.spec);
    return g;
  }();
  return v;
}

PlanRequest request(const std::string& model, const char* quant, uint32_t n_ctx) {
  PlanRequest r;
  r.model = test::model(model);
  r.config.quant = find_quant_preset(quant);
  r.config.kv.n_ctx = n_ctx;
  r.candidates = &gpus();
  r.platforms = &builtin_platforms();
  return r;
}

const Comparison* by_gpu(const std::vector<Comparison>& v, const std::string& id) {
  for (const auto& c : v)
    if (c.system.gpu_id == id) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("Compare plans unified computers beside GPU towers through plan()", "[compare]") {
  const PlanRequest base = request("llama-3.1-70b", "q4_k_m", 8192);
  const auto systems = default_comparison(base);
  // Every unified computer of the built-in platform catalog (its SoC is a catalog GPU), then the
  // recommended towers.
  size_t unified = 0;
  for (const auto& p : builtin_platforms())
    if (p.platform_class == PlatformClass::unified) ++unified;
  REQUIRE(systems.size() > unified);
  for (size_t i = 0; i < systems.size(); ++i) {
    const GpuSpec* g = nullptr;
    for (const auto& x : gpus())
      if (x.id == systems[i].gpu_id) g = &x;
    REQUIRE(g);
    CHECK(g->unified_memory == (i < unified));
  }
  const auto v = compare_systems(base, systems);
  REQUIRE(v.size() == systems.size());
  for (const auto& c : v) {
    CAPTURE(c.system.gpu_id);
    // Each row is plan() of the same request on that system, field for field.
    PlanRequest r = base;
    r.gpu = *std::find_if(gpus().begin(), gpus().end(),
                          [&](const GpuSpec& g) { return g.id == c.system.gpu_id; });
    r.gpus_requested = c.system.count;
    r.platform_override = c.system.platform_id;
    const Plan p = plan(r);
    REQUIRE(c.plan.gpu);
    CHECK(c.plan.gpu->count == p.gpu->count);
    CHECK(c.plan.estimate.total_bytes() == p.estimate.total_bytes());
    REQUIRE(c.plan.fit);
    CHECK(c.plan.fit->fit == p.fit->fit);
  }
  // DGX Spark: one unit of 128 GiB, the GPU may use 0.9 of it (115.2 GiB) -> 70B Q4_K_M at 8k
  // (~43 GiB) fits; idle 25 W, typical 95 W and max 240 W from the catalog.
  const Comparison* spark = by_gpu(v, "dgx-spark");
  REQUIRE(spark);
  REQUIRE(spark->plan.system);
  REQUIRE(spark->plan.system->platform);
  CHECK(spark->plan.system->platform->id == "nvidia-dgx-spark");
  CHECK(spark->plan.system->choice.nodes == 1);
  CHECK(spark->usable_bytes_total == static_cast<uint64_t>(128.0 * kGiB * 0.9));
  CHECK(spark->plan.fit->fit == Fit::fits);
  CHECK(spark->idle_wall_w_total == 25);
  CHECK(spark->plan.system->max_wall_w_total == 240);
  // 95 W busy x 0.5 + 25 W idle x 0.5 (the default duty cycle) = 60 W typical.
  CHECK(spark->plan.system->typical_wall_w_total == Approx(60));
  // The price is the platform's, the GPU inside it: the Founders Edition's $4,699 of 2026 (it
  // launched at $3,999 in October 2025; data/platforms.json price_source).
  REQUIRE(spark->plan.cost);
  CHECK(spark->plan.cost->priced);
  CHECK(spark->plan.cost->capex_usd == 4699);
}

TEST_CASE("Unified computers past one unit are separate machines on a network", "[compare]") {
  // Llama-3.1-405B Q4_K_M (~228 GiB of weights) does not fit one 128 GiB unit.
  const PlanRequest base = request("llama-3.1-405b", "q4_k_m", 4096);
  const auto v = compare_systems(base, {{"ryzen-ai-max-395", 0, ""}, {"dgx-spark", 0, ""}});
  REQUIRE(v.size() == 2);
  // Ryzen AI Max+ 395 (96 of 128 GiB usable): 3 units, each its own machine, linked over the
  // network; never "3 GPUs in one chassis".
  const Plan& amd = v[0].plan;
  REQUIRE(amd.gpu);
  CHECK(amd.gpu->count == 3);
  CHECK(amd.gpu->gpus_per_node == 1);
  CHECK(amd.gpu->nodes == 3);
  CHECK(amd.gpu->link == GpuLink::network);
  CHECK(amd.gpu->link_reason == LinkReason::separate_units);
  REQUIRE(amd.system);
  REQUIRE(amd.system->platform);
  CHECK(amd.system->choice.nodes == 3);
  CHECK(amd.system->choice.gpus_per_node == 1);
  CHECK(std::find(amd.system->choice.reasons.begin(), amd.system->choice.reasons.end(),
                  PlatformReason::separate_units) != amd.system->choice.reasons.end());
  // Three units at $1,999 each.
  REQUIRE(amd.cost);
  CHECK(amd.cost->capex_usd == 3 * 1999);
  // DGX Spark (0.9 x 128 GiB usable): 405B Q4_K_M needs 3 units where NVIDIA links two: still
  // separate machines, and the plan says the setup is beyond the maker's.
  const Plan& spark = v[1].plan;
  REQUIRE(spark.gpu);
  CHECK(spark.gpu->count == 3);
  REQUIRE(spark.system);
  REQUIRE(spark.system->platform);
  const auto& why = spark.system->choice.reasons;
  CHECK(std::find(why.begin(), why.end(), PlatformReason::units_not_linked) != why.end());
  CHECK(std::find(why.begin(), why.end(), PlatformReason::separate_units) != why.end());
}
