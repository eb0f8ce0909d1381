// Power of a whole machine the way vendors rate it (the maximum, for PSUs, circuits and cooling)
// and the way it is measured under an LLM workload (the typical draw, for energy and cost).
#pragma once

#include <cstdint>
#include <vector>

#include "llmsize/gpu.hpp"
#include "llmsize/machine/platform.hpp"

namespace llmsize {

// What a machine holds besides its GPUs, for power and the BOM. Zeros take the platform's
// shipped configuration (host_model.hpp fills it from the sizing).
struct MachineLoad {
  uint32_t gpus = 0;  // in this machine
  uint32_t dimms = 0;
  uint32_t dimm_gib = 0;     // module size; 0 = not known (counted as a 64 GB RDIMM)
  uint32_t nvme_drives = 0;  // OS and data drives
  uint32_t nics_400g = 0;    // high-speed GPU fabric NICs (ConnectX-7 class)
  uint32_t nics_other = 0;   // storage / front-end NICs (dual-port 100-200 GbE)
  uint32_t dpus = 0;         // BlueField-3 class DPUs
  double power_limit = 1.0;  // fraction of board power the GPUs are capped at
};

// Maximum power part by part, DC side, watts.
struct PowerParts {
  double gpus_w = 0;       // GPUs at TDP (x power limit)
  double baseboard_w = 0;  // HGX/UBB baseboard (NVSwitch, retimers, VRs) and GPU fans at full
  double cpus_w = 0;       // sockets x TDP
  double memory_w = 0;
  double drives_w = 0;
  double nics_w = 0;
  double fans_w = 0;   // chassis fans at full speed (besides the GPU baseboard's)
  double board_w = 0;  // motherboard, BMC, chipset
  double total() const {
    return gpus_w + baseboard_w + cpus_w + memory_w + drives_w + nics_w + fans_w + board_w;
  }
};

struct MaxPower {
  PowerParts parts;
  double dc_w = 0;
  double efficiency = 0;   // of the PSUs at full load
  double wall_w = 0;       // the machine's maximum at the wall
  double published_w = 0;  // the vendor's figure, 0 when unpublished
  // How far wall_w is above (+) or below (-) the published figure, as a fraction; 0 unpublished.
  double over_published() const { return published_w > 0 ? wall_w / published_w - 1 : 0; }
};

// Per-component maxima (vendor datasheets; see docs/formulas.md "Maximum system power").
// Unified-memory computers are rated whole: their published maximum (or PSU rating) is used.
MaxPower max_system_power(const PlatformModel& p, const GpuSpec& g, const MachineLoad& load);
// The same for the platform's shipped configuration with n GPUs (MaxPowerFn for choose_platform).
double max_system_wall_w(const PlatformModel& p, const GpuSpec& g, uint32_t n_gpus);

// PSUs: the platform's bays and redundancy scheme, the platform's module rating; a desktop ATX
// supply is sized to the load from the ratings sold.
// Unsourced facts are unknown, not guessed: no published bays gives count 0 and redundancy {0, 0};
// bays without a published scheme keep count = bays with redundancy_known false.
struct PsuPlan {
  uint32_t count = 0;  // 0 = not published
  double watts = 0;    // each; 0 = not published
  Redundancy redundancy;
  bool redundancy_known = true;  // the scheme is the vendor's (false: not published)
  double capacity_w = 0;         // n x watts: what carries the load with the spares out
  bool sufficient = false;       // DC max <= capacity; false when the rating is unknown (watts 0)
};
PsuPlan plan_psus(const PlatformModel& p, double max_wall_w);

// One way to feed the machine(s) from the mains.
struct CircuitOption {
  double volts = 0;  // line-to-line for 3-phase
  uint32_t phases = 1;
  double breaker_a = 0;
  double continuous_w = 0;     // what one circuit carries continuously (80% of the breaker)
  uint32_t circuits = 0;       // for the whole plan's maximum, with the PSUs' redundancy
  bool outlet = false;         // an ordinary wall outlet (NEMA 5-15 / Schuko / C13)
  bool north_america = false;  // a 120 V or 208 V circuit (north_american_mains)
};
// 120 V 15 A and 20 A, 208 V 30 A, 230 V 16 A and 32 A single phase, 400 V 3-phase 32 A (and
// 208 V 3-phase 30 A for racks). total_max_w is all nodes; a redundant machine (r > 0) gets two
// feeds (A and B), each sized for the whole load.
std::vector<CircuitOption> plan_circuits(double total_max_w, PlatformClass c, bool redundant_feeds);
// The same for machines plugged into wall circuits by their own cords (desktops, towers, unified
// computers; rack servers feed from PDUs): each of a machine's `cords` carrying PSUs draws
// max_w_each / cords, a share one cord cannot split over two circuits, so a circuit carries
// whole cords only and one rated below a cord's share is no option (circuits 0: a 3.4 kW tower on
// two cords does not go on three 15 A outlets). cords 0 (not published) is the call above.
std::vector<CircuitOption> plan_circuits(double max_w_each, uint32_t machines, uint32_t cords,
                                         PlatformClass c, bool redundant_feeds);

struct RackPlan {
  uint32_t nodes = 0;
  uint32_t rack_units = 0;      // all nodes
  uint32_t nodes_per_rack = 0;  // limited by the rack's power budget and 42U
  uint32_t racks = 0;
  double kw_per_rack = 0;
  uint32_t pdus = 0;  // 2 per rack (A/B feeds) per PDU's continuous rating
  // The PDU type: 3-phase 400 V 32 A (IEC 60309, 17.7 kW continuous) on 230 V mains, 3-phase
  // 208 V 60 A (17.3 kW) on North America's 120 V mains.
  double pdu_volts = 400;
  double pdu_amps = 32;
};
// rack_budget_kw: what the room supplies and cools per rack (air-cooled rows: 15-40 kW). Servers
// without a catalog height are placed by power alone (rack_units 0); other classes get no racks.
// mains_v: the site's single-phase mains (120: North America, 208 V 3-phase PDUs; else 400 V).
RackPlan plan_racks(const PlatformModel& p, uint32_t nodes, double max_wall_w_each,
                    double rack_budget_kw = 40, double mains_v = 230);

// The workload the machine runs, for the typical draw.
struct PowerWorkload {
  uint32_t decode_batch = 1;    // sequences decoded together
  double prefill_share = 0.1;   // share of busy time spent in prefill (compute-bound bursts)
  double busy_share = 0.5;      // share of the time serving (the rest idle)
  double power_limit = 1.0;     // GPU power cap as a fraction of board power
  double bytes_per_weight = 2;  // decode arithmetic intensity: 2 FLOPs per weight per token
  // MoE: the share of the batch each routed expert's weights see (n_expert_used / n_expert);
  // 1 for dense models. A step reads every expert once but multiplies it by this share only.
  double routed_share = 1;
};

struct TypicalPower {
  double gpu_decode_fraction = 0;   // of board power while decoding at the batch
  double gpu_prefill_fraction = 0;  // of board power in prefill
  double gpus_busy_w = 0;           // all GPUs, busy (decode/prefill mix)
  double gpus_idle_w = 0;
  double host_busy_w = 0;  // CPUs, memory, drives, NICs, fans, board under load
  double host_idle_w = 0;
  double busy_wall_w = 0;
  double idle_wall_w = 0;
  double typical_wall_w = 0;  // busy_share x busy + (1 - busy_share) x idle
};
// Calibrated on measured draw (docs/formulas.md "Typical draw"): an RTX 4090 decoding one
// stream of a small model drew ~246 W of 450 W (0.547), rising with the batch to the board power
// once decode becomes compute-bound; prefill runs at the cap.
TypicalPower typical_power(const PlatformModel& p, const GpuSpec& g, const MachineLoad& load,
                           const PowerWorkload& w);

// Single-stream decode as a fraction of board power (P05: 246 / 450 W).
constexpr double kDecodeSingleStreamFraction = 246.0 / 450.0;
// A GPU at idle with a model loaded, as a fraction of board power (nvidia-smi idle P8 on a 4090:
// ~20-30 W of 450; 0.06).
constexpr double kGpuIdleFraction = 0.06;

struct EnergyCost {
  double kwh_per_year = 0;
  double usd_per_year = 0;
  double tokens_per_year = 0;
  double usd_energy_per_mtok = 0;  // energy only; 0 when no tokens
  double wh_per_mtok = 0;
};
// From the typical draw: energy over a year and per million generated tokens at
// tokens_per_s while busy. REQUIRES: busy_share in [0, 1].
EnergyCost energy_cost(double typical_wall_w, double busy_share, double tokens_per_s,
                       double kwh_price_usd, double pue = 1.0);

}  // namespace llmsize
