// Capacity search: the cheapest TP x PP x replicas of one GPU for a load and SLO.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "llmsize/serving_capacity.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

ServingSetup setup(const char* model, const char* quant, const char* gpu, ServingEngine e,
                   KvDtype kv) {
  return serving_setup(test::model(model), *find_quant_preset(quant),
                       test::catalog().find_gpu(gpu)->spec, e, kv, 1, 1, 1, 8);
}

void dump(const char* what, const ServingCapacity& c) {
  if (!std::getenv("LLMSIZE_SERVING_DUMP")) return;
  std::printf(
      "%s: found %d gpus %u nodes %u tp %u pp %u replicas %u users/replica %u headroom %u "
      "binding %s per-user %.1f agg %.0f ttft %.2fs itl %.1fms\n",
      what, c.found, c.gpus, c.nodes, c.deployment.tp, c.deployment.pp, c.deployment.replicas,
      c.users_per_replica, c.user_headroom, limit_name(c.binding),
      c.estimate.per_user_tokens_per_s.value, c.estimate.output_tokens_per_s.value,
      c.estimate.ttft_s.value, c.estimate.itl_s.value * 1e3);
}

}  // namespace

TEST_CASE("Llama-3.3-70B FP8 on H100 for 50 users at 16 tokens/s, 5000 in / 500 out",
          "[serving][capacity]") {
  auto s = setup("llama-3.3-70b", "fp8", "h100-sxm", ServingEngine::vllm, KvDtype::fp8_e4m3);
  Workload w;
  w.isl = 5000;
  w.osl = 500;
  CapacityTarget t;
  t.users = 50;
  t.per_user_tokens_per_s = 16;
  const auto c = plan_serving_capacity(s.model, s.gpu, s.deployment, w, t);
  dump("70b-h100-vllm", c);
  REQUIRE(c.found);
  // 70 GB of FP8 weights need 2 x 80 GB; a serving engineer runs this on TP2 or TP4 (one
  // 4-GPU or 8-GPU box), not a rack.
  CHECK(c.gpus >= 2);
  CHECK(c.gpus <= 8);
  CHECK(c.estimate.per_user_tokens_per_s.value >= 16);
  CHECK(c.users_per_replica * c.deployment.replicas >= 50);
  CHECK(c.user_headroom == c.users_per_replica * c.deployment.replicas - 50);
}

TEST_CASE("GPUs beyond memory become replicas, and the SLO that binds is named",
          "[serving][capacity]") {
  auto s = setup("llama-3.1-8b", "fp8", "h100-sxm", ServingEngine::vllm, KvDtype::fp8_e4m3);
  Workload w;
  w.isl = 1000;
  w.osl = 1000;
  CapacityTarget t;
  t.users = 2000;
  t.per_user_tokens_per_s = 30;
  const auto c = plan_serving_capacity(s.model, s.gpu, s.deployment, w, t);
  dump("8b-h100-2000users", c);
  REQUIRE(c.found);
  // An 8B model fits one GPU: more GPUs are replicas, not tensor parallelism (TP1 is cheaper per
  // user than TP2 when one GPU holds the weights).
  CHECK(c.deployment.replicas > 1);
  CHECK(c.memory_min_gpus == 1);
  // A target no batch can reach: one sequence already decodes slower than 5000 tokens/s.
  t.per_user_tokens_per_s = 5000;
  const auto none = plan_serving_capacity(s.model, s.gpu, s.deployment, w, t);
  CHECK_FALSE(none.found);
}
