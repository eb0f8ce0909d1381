// The whole machine for a GPU plan in one call: platform, host, power (maximum and typical),
// PSUs, circuits, racks, cold start and the BOM lines. Pure; the CLI renders it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llmsize/machine/bom.hpp"
#include "llmsize/machine/host_model.hpp"
#include "llmsize/machine/load_time.hpp"
#include "llmsize/machine/platform.hpp"
#include "llmsize/machine/power.hpp"
#include "llmsize/machine/power_model.hpp"

namespace llmsize {

struct SystemRequest {
  const std::vector<PlatformModel>* catalog = nullptr;  // REQUIRES: non-null
  const GpuSpec* gpu = nullptr;  // REQUIRES: non-null (a request is made per plan: no copy)
  uint32_t n_gpus = 1;           // what the GPU plan needs or --gpus asked
  // The pieces of a serving deployment: its replicas (tp x pp) when n_gpus are replicas of it,
  // and its prefill workers; none = one instance (choose_platform's units: a replica or worker
  // that fits a machine is not split between two).
  GpuUnits units;
  std::string platform_override;  // --platform, "" = choose
  HostNeeds needs;                // weights, model set, datasets; gpus and nodes are filled in
  PowerWorkload workload;         // for the typical draw
  double power_limit = 1.0;       // --power-limit, fraction of board power
  ColdStartInput cold_start;      // weights_bytes and n_gpus are filled in
  double rack_budget_kw = 40;
  double mains_v = 230;  // the site's mains: the PDU type (plan_racks)
};

struct SystemPlan {
  PlatformChoice choice;
  const PlatformModel* platform = nullptr;  // nullptr when nothing fits (choice.rejected says why)
  HostSizing host;                          // per machine
  MaxPower max_power;                       // per machine
  double max_wall_w_total = 0;              // all machines: circuits and cooling
  double heat_btu_per_h_total = 0;          // max wall x 3.412
  PsuPlan psus;                             // per machine
  std::vector<CircuitOption> circuits;      // for all machines
  RackPlan racks;
  TypicalPower typical;             // per machine
  double typical_wall_w_total = 0;  // all machines: energy and cost per token
  ColdStart cold_start;
  // The same start from each local drive class (hdd, sata_ssd, local_nvme_gen3/4/5), the
  // engine's loader: the per-drive load times of the JSON.
  std::vector<ColdStart> cold_start_by_drive;
  // The bill of materials, made from the fields above on first use: a sweep's rows, which do not
  // print it, never make its text. Its sums are made with the plan (from the lines' prices).
  const std::vector<BomLine>& bom() const;
  double bom_total_usd = 0;  // a floor when some lines are unpriced
  BomCost bom_cost;
  GpuSpec gpu;  // the GPU as planned (a unified computer's memory fraction applied)
  // Unified-memory computers: what the GPU may use of the memory.
  uint64_t gpu_usable_bytes = 0;

 private:
  friend SystemPlan with_host(const SystemPlan& s, HostSizing host);
  mutable std::optional<std::vector<BomLine>> bom_;  // bom()'s, once made
};

SystemPlan plan_system(const SystemRequest& r);
// The same on the platform choice made for r's catalog, GPU, count and override
// (choose_platform(*r.catalog, r.gpu, r.n_gpus, r.platform_override)): a Planner makes it once per
// GPU and count.
SystemPlan plan_system(const SystemRequest& r, const PlatformChoice& choice);

// What the machine of r costs, without its typical power, circuits and cold start: the platform
// choice and the cost of the BOM plan_system(r) prices (equal to its bom_cost), for ranking
// options by the machine each would buy.
struct MachinePrice {
  PlatformChoice choice;
  const PlatformModel* platform = nullptr;  // null when no platform takes the GPUs
  BomCost cost;
  double max_wall_w = 0;  // every machine's maximum at the wall
};
MachinePrice price_machine(const SystemRequest& r);

// The host plan_system(r, choice) sizes: r's needs with the choice's GPUs and nodes per machine.
// REQUIRES: choice.index names a platform of *r.catalog.
HostSizing system_host(const SystemRequest& r, const PlatformChoice& choice);
// A request's machine from a sibling's: `s` planned for a request that differs from this one only
// in needs.host_weights_bytes (an offloading plan at another context), and `host` this request's
// system_host() with the same RAM population (DIMMs, their size, installed bytes) as s.host. Only
// the RAM rule and requirement differ (host_weights_bytes enters nothing else): the rest of s is
// this request's, so it is s with `host` (its BOM text made again on first use). Throws
// std::logic_error when the populations differ.
SystemPlan with_host(const SystemPlan& s, HostSizing host);

// The local drive classes cold_start_by_drive holds, in its order.
constexpr StorageClass kLocalDrives[] = {
    StorageClass::hdd, StorageClass::sata_ssd, StorageClass::local_nvme_gen3,
    StorageClass::local_nvme_gen4, StorageClass::local_nvme_gen5};

// The power fields of power.hpp (power.peak_watts, wall_watts, circuit_amps, circuit, heat) from
// the rated model for all machines, so the JSON has one source of truth: peak = the DC maximum,
// wall = the maximum at the wall, energy from the typical draw. REQUIRES: s.platform non-null.
PowerPlan rated_power_plan(const SystemPlan& s, double mains_v);

}  // namespace llmsize
