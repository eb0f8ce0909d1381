// How a deployment's GPUs fall into machines (#22): the machines a deployment buys, and the node
// and GPUs each replica or worker gets in the launch files, from one rule.
#pragma once

#include <cstdint>
#include <vector>

namespace llmsize {

// The pieces a deployment places: replicas of `unit` GPUs (0, or all the decode GPUs: one
// instance of them) and, for disaggregated serving, `prefill_workers` prefill workers of
// `prefill_tp` GPUs beside them.
// min_machines: a deployment with spares (--redundancy) runs on at least that many machines, so
// that the spare replicas are machines of their own (0: no floor).
struct GpuUnits {
  uint32_t unit = 0;
  uint32_t prefill_tp = 0, prefill_workers = 0;
  uint32_t min_machines = 0;
  uint32_t prefill_gpus() const { return prefill_tp * prefill_workers; }
};

// Where a replica or worker runs: its machine and its first GPU there (the rest follow it).
struct UnitPlace {
  uint32_t node = 0, first_gpu = 0;
};

struct Placement {
  std::vector<UnitPlace> prefill, decode;  // each prefill worker's and decode replica's place
  uint32_t machines = 0;
};

// The places of n_gpus (the prefill workers' included) on machines of per_node GPUs: a replica or
// worker that fits a machine stays inside one, placed largest first into the first machine with
// room (first-fit decreasing: prefill workers fill what the replicas leave); one wider than a
// machine takes whole machines of its own. Replicas: ceil(decode GPUs / unit). Machines: at least
// u.min_machines.
Placement place_units(uint32_t n_gpus, uint32_t per_node, const GpuUnits& u);

// place_units(...).machines: ceil(n / per_node) for one instance; replicas of `unit` GPUs
// per_node / unit to a machine when unit <= per_node, else ceil(unit / per_node) machines each;
// at least u.min_machines.
uint32_t machines_for(uint32_t n_gpus, uint32_t per_node, const GpuUnits& u = {});

}  // namespace llmsize
