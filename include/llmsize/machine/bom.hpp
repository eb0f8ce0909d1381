// The bill of materials as lines: what procurement prices, one component per line, each with its
// spec fields, quantity, unit price and its source, and a reason code. Renderers write bom[] and
// --format bom-csv from these without recomputing.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "llmsize/gpu.hpp"
#include "llmsize/machine/host_model.hpp"
#include "llmsize/machine/platform.hpp"
#include "llmsize/machine/power_model.hpp"

namespace llmsize {

// network_switch ("switch"): where the machines of a plan cannot be cabled to each other.
enum class BomComponent {
  platform,
  gpu,
  cpu,
  memory,
  os_drive,
  data_drive,
  nic,
  network_switch,
  psu,
  pdu
};
const char* to_string(BomComponent c);

// Why a line is there. Codes, stable in JSON.
enum class BomReason {
  chosen_platform,        // the chassis / system (platform_choice.reasons say why this one)
  model_memory,           // GPUs that hold the model
  shipped_with_platform,  // part of the platform as sold (CPUs, PSUs, integrated GPU)
  ram_rule,               // RAM from HostSizing (ram.reason)
  os_mirror,
  model_storage,
  gpu_fabric,  // one NIC per GPU, multi-node
  storage_frontend,
  rack_power,  // PDUs for the racks
  unit_link,   // unified computers as separate units: the built-in port that links them
  stage_link,  // PCIe servers across nodes: one NIC per machine for the pipeline stages' traffic
};
const char* to_string(BomReason r);

struct BomLine {
  BomComponent component;
  std::string part;  // catalog id or generic part ("ddr5-rdimm-64gb")
  std::vector<std::pair<std::string, std::string>> spec;  // ordered key -> value
  uint32_t qty = 0;                                       // for the whole plan (all nodes)
  double unit_price_usd = 0;                              // 0 = no public price
  std::string price_source;
  BomReason reason;
  bool included = false;  // part of another line's price (a DGX's CPUs, a Mac's GPU)
};

struct BomInput {
  const PlatformModel* platform = nullptr;  // REQUIRES: non-null
  GpuSpec gpu;
  uint32_t gpus_per_node = 0;
  uint32_t nodes = 1;
  HostSizing host;
  PsuPlan psus;
  RackPlan racks;
};

// What a BOM is made for: the lines as procurement reads them, or their quantities and prices
// alone (part, spec and price_source left empty: what the cost model needs, without the text).
enum class BomDetail { lines, prices };

std::vector<BomLine> bill_of_materials(const BomInput& in, BomDetail detail = BomDetail::lines);
// The price a PCIe platform line of class c is assumed at when the catalog publishes none (board,
// CPUs, chassis, PSUs; rough 2025 street prices, docs/formulas.md); 0 for unified computers.
double assumed_platform_usd(PlatformClass c);
// Sum of qty x unit price over the priced, not-included lines; unpriced lines leave it a floor.
double bom_total_usd(const std::vector<BomLine>& lines);

// The BOM's total split for the cost model: the GPUs priced as their own lines, the rest.
struct BomCost {
  double gpus_usd = 0;  // GPU lines priced on their own (0 when the platform's price includes them)
  double rest_usd = 0;  // every other priced, not-included line
  bool gpus_priced = false;  // the GPUs have a price: their own, or the priced platform's
  bool complete = true;      // every line that is not included has a price
  double total_usd() const { return gpus_usd + rest_usd; }
};
BomCost bom_cost(const std::vector<BomLine>& lines);

}  // namespace llmsize
