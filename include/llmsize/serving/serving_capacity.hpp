// Capacity you can buy on: the cheapest tensor-parallel degree x pipeline stages x replicas of one
// GPU that serves N users at T tokens/s each (and a TTFT SLO), with the limit that binds and the
// users left over; `found` means every target given is met. GPUs beyond what memory needs become
// replicas (data parallel).
#pragma once

#include <cstdint>

#include "llmsize/serving/serving.hpp"

namespace llmsize {

struct CapacityTarget {
  uint32_t users = 1;                // concurrent requests to serve
  double per_user_tokens_per_s = 0;  // each user's decode speed, at least (0 = none)
  double ttft_slo_s = 0;             // mean time to first token, at most (0 = none)
  double tpot_slo_s = 0;             // mean time per output token (ITL), at most (0 = none)
  uint32_t slo_percentile = 0;       // what both bound: the mean (0), p90 or p99
  uint32_t max_gpus = kMaxGpus;
  EngineLimits limits;  // the user's --max-num-seqs etc.; zero fields = the engine's defaults
  // --redundancy n+k: every target still met with any k machines of gpus_per_node GPUs down.
  uint32_t spare_machines = 0;
};

struct ServingCapacity {
  bool found = false;
  Deployment deployment;     // tp, pp, replicas, limits
  ServingEstimate estimate;  // at `users` spread over the replicas
  uint32_t gpus = 0;
  uint32_t nodes = 0;
  uint32_t users_per_replica = 0;  // what one replica carries meeting the target
  uint32_t user_headroom = 0;      // replicas x users_per_replica - users
  Limit binding = Limit::memory;   // what stops a replica from taking one more user
  uint32_t memory_min_gpus = 0;    // the fewest GPUs that hold the weights and one sequence
  // With spare machines (CapacityTarget::spare_machines): the replicas the users need, those
  // bought on top so that they survive k machines down, and the users on the survivors.
  uint32_t replicas_needed = 0;
  uint32_t spare_replicas = 0;
  ServingEstimate degraded;     // `users` over replicas_needed replicas (k machines down)
  bool degraded_meets = false;  // meets_target(degraded)
};

// Whether an estimate meets every target of t (and holds its users without a queue).
bool meets_target(const ServingEstimate& e, const CapacityTarget& t);

// A machine down takes every replica on it: per_node / span of them when a replica is smaller
// than a machine (first-fit placement fills machines), one when it spans machines. k spare
// machines are k times that many replicas on top of those the users need, so that any k
// machines lost leave them.
uint32_t spare_replicas_for(uint32_t spare_machines, uint32_t span, uint32_t per_node);

// REQUIRES: t.users > 0. base supplies the engine, KV type, max_model_len and power limit; each
// degree gets engine_limits() for its GPUs, overridden by t.limits' non-zero fields. Degrees: tp
// divides n_head and n_head_kv (or is a multiple of n_head_kv: replicated KV heads) and stays
// within one node; pp spans nodes only when one node's GPUs are not enough.
ServingCapacity plan_serving_capacity(const ServingModel& m, const ServingGpu& g,
                                      const Deployment& base, const Workload& w,
                                      const CapacityTarget& t);

// One replica of tp x pp GPUs from `base`: the engine's own limits for that degree (the memory
// share the user gave kept), attention data parallel by default_attention_dp.
Deployment replica_deployment(const ServingModel& m, const ServingGpu& g, const Deployment& base,
                              uint32_t tp, uint32_t pp);

// Whether a deployment of tp runs attention data parallel by default (every layout the plan
// makes, a capacity search's or a given count's): MoE on GPUs without NVLink.
bool default_attention_dp(const ServingModel& m, const ServingGpu& g, uint32_t tp);

// Whether tp is a valid tensor-parallel degree for the model (vLLM/SGLang/TensorRT-LLM shard
// query heads evenly; KV heads evenly or replicated).
bool valid_tp(const ServingModel& m, uint32_t tp);
// The same rule on the head counts (a ModelSpec's, before a ServingModel is made).
bool valid_tp_heads(uint32_t n_head, uint32_t n_head_kv, uint32_t tp);

}  // namespace llmsize
