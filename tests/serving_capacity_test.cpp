// Capacity search: the cheapest TP x PP x replicas of one GPU for a load and SLO.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "llmsize/serving/serving_capacity.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

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

// A capacity question: a catalog model under a quant preset on one catalog GPU and engine, a
// workload of isl prompt and osl output tokens, and a target of `users` at per_user_tokens_per_s.
struct Question {
  ServingSetup s;
  Workload w;
  CapacityTarget t;
  // The cheapest plan for it; printed under LLMSIZE_SERVING_DUMP as `what`.
  ServingCapacity plan(const char* what) const {
    const auto c = plan_serving_capacity(s.model, s.gpu, s.deployment, w, t);
    dump(what, c);
    return c;
  }
};

Question question(const char* model, const char* quant, const char* gpu, Engine e, KvDtype kv,
                  uint32_t isl, uint32_t osl, uint32_t users, double per_user_tokens_per_s) {
  Question q{serving_setup(test::model(model), *find_quant_preset(quant),
                           test::catalog().find_gpu(gpu)->spec, e, kv, 1, 1, 1, 8),
             {},
             {}};
  q.w.isl = isl;
  q.w.osl = osl;
  q.t.users = users;
  q.t.per_user_tokens_per_s = per_user_tokens_per_s;
  return q;
}

}  // namespace

TEST_CASE("Llama-3.3-70B FP8 on H100 for 50 users at 16 tokens/s, 5000 in / 500 out",
          "[serving][capacity]") {
  const auto c = question("llama-3.3-70b", "fp8", "h100-sxm", Engine::vllm, KvDtype::fp8_e4m3, 5000,
                          500, 50, 16)
                     .plan("70b-h100-vllm");
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
  auto job = question("llama-3.1-8b", "fp8", "h100-sxm", Engine::vllm, KvDtype::fp8_e4m3, 1000,
                      1000, 2000, 30);
  const auto c = job.plan("8b-h100-2000users");
  REQUIRE(c.found);
  // An 8B model fits one GPU: more GPUs are replicas, not tensor parallelism (TP1 is cheaper per
  // user than TP2 when one GPU holds the weights).
  CHECK(c.deployment.replicas > 1);
  CHECK(c.memory_min_gpus == 1);
  // A target no batch can reach: one sequence already decodes slower than 5000 tokens/s.
  job.t.per_user_tokens_per_s = 5000;
  const auto none = job.plan("8b-h100-5000tps");
  CHECK_FALSE(none.found);
}

TEST_CASE("Plans a serving engineer recognises across engines and GPUs", "[serving][capacity]") {
  // Llama-3.3-70B FP8 (70.6 GB of weights), 50 users at >= 16 tokens/s, 5000 in / 500 out. NIM's
  // published run serves 50 users on one TP2 pair of H100s at 16.7 tokens/s (59.7 ms ITL): the
  // plan must be within one step of it (2 or 4 H100s), and a 141-192 GB GPU holds a replica.
  struct Case {
    const char* gpu;
    Engine engine;
    uint32_t min_gpus, max_gpus;
  };
  const Case cases[] = {
      {"h100-sxm", Engine::vllm, 2, 4},    {"h100-sxm", Engine::sglang, 2, 4},
      {"h100-sxm", Engine::trt_llm, 2, 4}, {"h200", Engine::vllm, 1, 4},
      {"h200", Engine::sglang, 1, 4},      {"b200", Engine::trt_llm, 1, 2},
      {"mi300x", Engine::vllm, 1, 4},      {"mi300x", Engine::sglang, 1, 4},
  };
  for (const auto& c : cases) {
    const auto p =
        question("llama-3.3-70b", "fp8", c.gpu, c.engine, KvDtype::fp8_e4m3, 5000, 500, 50, 16)
            .plan(c.gpu);
    INFO(c.gpu << " " << engine_profile(c.engine).name << ": " << p.gpus << " GPUs, tp "
               << p.deployment.tp << " x " << p.deployment.replicas);
    REQUIRE(p.found);
    CHECK(p.gpus >= c.min_gpus);
    CHECK(p.gpus <= c.max_gpus);
    CHECK(p.nodes == 1);
    CHECK(p.estimate.per_user_tokens_per_s.value >= 16);
    CHECK(p.estimate.queued == 0);
  }
}

TEST_CASE("llama.cpp on consumer GPUs and Apple silicon: layers split, one slot per user",
          "[serving][capacity]") {
  // Llama-3.3-70B Q4_K_M (42.5 GB) does not fit one 24 GB RTX 4090: two cards, layer split
  // (pipeline stages, no tensor parallelism), two users at >= 10 tokens/s each.
  const auto p = question("llama-3.3-70b", "q4_k_m", "rtx-4090", Engine::llama_cpp, KvDtype::q8_0,
                          2000, 500, 2, 10)
                     .plan("70b-4090");
  REQUIRE(p.found);
  CHECK(p.deployment.tp == 1);
  CHECK(p.deployment.pp == 2);
  CHECK(p.gpus == 2);
  // A 192 GB M2 Ultra holds it alone, one user at >= 5 tokens/s.
  const auto a = question("llama-3.3-70b", "q4_k_m", "m2-ultra", Engine::llama_cpp, KvDtype::f16,
                          2000, 500, 1, 5)
                     .plan("70b-m2ultra");
  REQUIRE(a.found);
  CHECK(a.gpus == 1);
}

TEST_CASE("A TTFT SLO binds when prompts are long", "[serving][capacity]") {
  auto job = question("llama-3.1-8b", "fp8", "h100-sxm", Engine::sglang, KvDtype::fp8_e4m3, 20000,
                      200, 64, 10);
  job.t.ttft_slo_s = 1.0;
  const auto p = job.plan("8b-ttft");
  REQUIRE(p.found);
  CHECK(p.estimate.ttft_s.value <= 1.0);
  // Without the SLO the same load needs no more GPUs.
  job.t.ttft_slo_s = 0;
  const auto q = job.plan("8b-no-ttft");
  CHECK(q.gpus <= p.gpus);
}

TEST_CASE("A found capacity meets every SLO given: per-user speed, TTFT and TPOT together",
          "[serving][capacity]") {
  // Llama 3.1 8B FP8 on H100 under vLLM, 20 users at 20 tokens/s each (ITL <= 50 ms): one GPU
  // decodes 20 users at an ITL near 10 ms, so a TPOT under that is what binds. Each row's TPOT
  // is met by the plan found, and a tighter TPOT never needs fewer GPUs.
  struct Row {
    double tpot_s;
  };
  uint32_t gpus_before = 0;
  for (const Row row : {Row{0.050}, Row{0.010}, Row{0.008}, Row{0.005}}) {
    auto job = question("llama-3.1-8b", "fp8", "h100-sxm", Engine::vllm, KvDtype::fp8_e4m3, 1000,
                        1000, 20, 20);
    job.t.tpot_slo_s = row.tpot_s;
    job.t.ttft_slo_s = 2.0;
    const auto p = job.plan("8b-tpot");
    INFO("tpot " << row.tpot_s);
    REQUIRE(p.found);
    CHECK(p.estimate.itl_s.value <= row.tpot_s);
    CHECK(p.estimate.ttft_s.value <= 2.0);
    CHECK(p.estimate.per_user_tokens_per_s.value >= 20);
    CHECK(p.gpus >= gpus_before);
    gpus_before = p.gpus;
  }
  // 5 ms is past what one GPU gives 20 users (~7 ms measured by this model at TP1): TPOT binds.
  auto job = question("llama-3.1-8b", "fp8", "h100-sxm", Engine::vllm, KvDtype::fp8_e4m3, 1000,
                      1000, 20, 20);
  job.t.tpot_slo_s = 0.005;
  CHECK(job.plan("8b-tpot-5ms").binding == Limit::tpot);
  // A TPOT no replica can meet (0.01 ms: 100,000 tokens/s for one user) is not found.
  job.t.tpot_slo_s = 0.00001;
  CHECK_FALSE(job.plan("8b-tpot-unreachable").found);
}

// #27: a machine down takes every replica on it. Replicas of `span` GPUs on machines of
// `per_node`: per_node / span of them to a machine when they fit one (first-fit fills machines),
// one when a replica spans machines; k spare machines are k times that many replicas.
TEST_CASE("Spare machines are the replicas a machine down takes, times the machines",
          "[serving][capacity]") {
  struct Case {
    uint32_t k, span, per_node, spares;
  };
  for (const Case& c : std::vector<Case>{
           {0, 2, 8, 0},   // no redundancy asked
           {1, 2, 4, 2},   // TP 2 on a 4-GPU HGX: a machine holds 2 replicas
           {1, 1, 8, 8},   // single-GPU replicas, 8 to a machine
           {2, 4, 8, 4},   // two machines of 2 TP 4 replicas
           {1, 8, 8, 1},   // one replica a machine
           {1, 16, 8, 1},  // a replica over 2 machines: one machine down takes one replica
           {2, 3, 8, 4},   // TP 3 (PP 3) on 8: 2 to a machine (2 GPUs idle), x 2 machines
       }) {
    INFO("k " << c.k << " span " << c.span << " per node " << c.per_node);
    CHECK(spare_replicas_for(c.k, c.span, c.per_node) == c.spares);
  }
}

TEST_CASE("A capacity with spare machines meets its targets with them down",
          "[serving][capacity]") {
  auto q = question("llama-3.3-70b", "fp8", "h100-sxm", Engine::vllm, KvDtype::fp8_e4m3, 1000, 1000,
                    200, 20);
  const auto plain = q.plan("70b-200-users");
  REQUIRE(plain.found);
  CHECK(plain.spare_replicas == 0);
  q.t.spare_machines = 1;
  const auto spared = q.plan("70b-200-users-n+1");
  REQUIRE(spared.found);
  // The same layout as without (the cheapest stays the cheapest here), the replicas the users
  // need and a machine's worth more: 8 / span replicas of the 8-GPU node the search counts in.
  CHECK(spared.deployment.tp == plain.deployment.tp);
  CHECK(spared.replicas_needed == plain.deployment.replicas);
  const uint32_t span = spared.deployment.tp * spared.deployment.pp;
  CHECK(spared.spare_replicas == 8 / span);
  CHECK(spared.deployment.replicas == spared.replicas_needed + spared.spare_replicas);
  CHECK(spared.gpus == span * spared.deployment.replicas);
  // Down to the needed replicas, the users still get the target; up, they get more.
  CHECK(spared.degraded_meets);
  CHECK(spared.degraded.per_user_tokens_per_s.value >= 20);
  CHECK(spared.degraded.per_user_tokens_per_s.value ==
        Approx(plain.estimate.per_user_tokens_per_s.value));
  CHECK(spared.estimate.per_user_tokens_per_s.value >= spared.degraded.per_user_tokens_per_s.value);
  // The headroom is the needed replicas' (the spares are not growth).
  CHECK(spared.user_headroom == plain.user_headroom);
}
