#include "llmsize/machine/system_plan.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "llmsize/units.hpp"

namespace llmsize {
namespace {

// What the BOM is made from. REQUIRES: s.platform non-null.
BomInput bom_input(const SystemPlan& s) {
  BomInput b;
  b.platform = s.platform;
  b.gpu = s.gpu;
  b.gpus_per_node = s.choice.gpus_per_node;
  b.nodes = s.choice.nodes;
  b.host = s.host;
  b.psus = s.psus;
  b.racks = s.racks;
  return b;
}

}  // namespace

SystemPlan plan_system(const SystemRequest& r) {
  return plan_system(
      r, choose_platform(*r.catalog, *r.gpu, r.n_gpus, r.platform_override, nullptr, r.units));
}

namespace {

// What the BOM prices of the machine chosen, for plan_system() and price_machine() alike: the GPU
// as the platform holds it, the host, the PSUs (sized from the maximum draw, into *max_power) and
// the racks.
BomInput machine_bom_input(const SystemRequest& r, const PlatformChoice& choice,
                           const PlatformModel& p, MaxPower* max_power) {
  BomInput b;
  b.platform = &p;
  b.gpu = *r.gpu;
  if (p.gpu_mount == GpuMount::integrated && p.gpu_memory_fraction > 0)
    b.gpu.memory_fraction = p.gpu_memory_fraction;
  b.gpus_per_node = choice.gpus_per_node;
  b.nodes = choice.nodes;
  b.host = system_host(r, choice);
  MachineLoad load = b.host.load;
  load.power_limit = r.power_limit;
  *max_power = max_system_power(p, b.gpu, load);
  b.psus = plan_psus(p, max_power->wall_w);
  b.racks = plan_racks(p, choice.nodes, max_power->wall_w, r.rack_budget_kw, r.mains_v);
  return b;
}

}  // namespace

SystemPlan plan_system(const SystemRequest& r, const PlatformChoice& choice) {
  SystemPlan s;
  s.choice = choice;
  if (s.choice.index < 0) return s;
  const PlatformModel& p = (*r.catalog)[static_cast<size_t>(s.choice.index)];
  s.platform = &p;
  const BomInput b = machine_bom_input(r, s.choice, p, &s.max_power);
  const GpuSpec& g = b.gpu;
  s.gpu_usable_bytes = g.usable_bytes();
  s.host = b.host;
  s.psus = b.psus;
  s.racks = b.racks;
  const HostNeeds& n = r.needs;
  MachineLoad load = s.host.load;
  load.power_limit = r.power_limit;
  const uint32_t nodes = s.choice.nodes;
  s.max_wall_w_total = s.max_power.wall_w * nodes;
  s.heat_btu_per_h_total = s.max_wall_w_total * kBtuPerHourPerWatt;
  // Rack servers feed from PDUs; the rest plug their own cords (the carrying PSUs) into wall
  // circuits.
  s.circuits =
      p.platform_class == PlatformClass::server
          ? plan_circuits(s.max_wall_w_total, p.platform_class, p.psu.redundancy.r > 0)
          : plan_circuits(s.max_power.wall_w, nodes, s.psus.count ? s.psus.redundancy.n : 0,
                          p.platform_class, p.psu.redundancy.r > 0);
  PowerWorkload w = r.workload;
  w.power_limit = std::min(w.power_limit, r.power_limit);
  s.typical = typical_power(p, g, load, w);
  s.typical_wall_w_total = s.typical.typical_wall_w * nodes;

  ColdStartInput ci = r.cold_start;
  ci.weights_bytes = n.weights_bytes;
  ci.n_gpus = s.choice.gpus_per_node;
  ci.unified_memory = p.gpu_mount == GpuMount::integrated;
  // The host link each card loads over, as this machine wires it: the card's PCIe generation
  // (4.0 when unlisted) at the lanes the machine gives it, per direction (PCIe 3.0/4.0/5.0:
  // 0.985 / 1.969 / 3.938 GB/s per lane); an AM5 desktop's x8/x8 halves a 4.0 x16 card's 31.5.
  if (p.gpu_mount == GpuMount::pcie && s.choice.lanes_per_gpu > 0) {
    const uint32_t gen = g.pcie_gen ? g.pcie_gen : 4;
    const uint32_t lanes = std::min(s.choice.lanes_per_gpu, g.pcie_lanes ? g.pcie_lanes : 16u);
    const double per_lane = gen >= 5 ? 3.938 : gen == 4 ? 1.969 : 0.985;
    ci.pcie_gb_per_s = per_lane * lanes;
  }
  s.cold_start = cold_start(ci);
  s.cold_start_by_drive.reserve(std::size(kLocalDrives));
  for (StorageClass d : kLocalDrives) {
    ColdStartInput di = ci;
    di.storage = d;
    s.cold_start_by_drive.push_back(cold_start(di));
  }

  s.gpu = g;
  // The sums from the lines' quantities and prices; their text waits for bom().
  const std::vector<BomLine> prices = bill_of_materials(b, BomDetail::prices);
  s.bom_total_usd = bom_total_usd(prices);
  s.bom_cost = llmsize::bom_cost(prices);
  return s;
}

MachinePrice price_machine(const SystemRequest& r) {
  MachinePrice m;
  m.choice = choose_platform(*r.catalog, *r.gpu, r.n_gpus, r.platform_override, nullptr, r.units);
  if (m.choice.index < 0) return m;
  const PlatformModel& p = (*r.catalog)[static_cast<size_t>(m.choice.index)];
  m.platform = &p;
  MaxPower max_power;
  m.cost =
      bom_cost(bill_of_materials(machine_bom_input(r, m.choice, p, &max_power), BomDetail::prices));
  m.max_wall_w = max_power.wall_w * m.choice.nodes;
  return m;
}

HostSizing system_host(const SystemRequest& r, const PlatformChoice& choice) {
  HostNeeds n = r.needs;
  n.gpus = choice.gpus_per_node;
  n.nodes = choice.nodes;
  // Replicas each inside their machine share nothing; a disaggregated deployment's workers hand
  // each request's KV over the fabric.
  n.linked = r.units.prefill_workers > 0 || r.units.unit == 0 || r.units.unit >= r.n_gpus ||
             r.units.unit > choice.gpus_per_node;
  const PlatformModel& p = (*r.catalog)[static_cast<size_t>(choice.index)];
  n.gpu_slot_widths = choice.slot_widths_per_node;  // where a NIC could go
  return size_host(p, n);
}

namespace {

bool same_ram_population(const HostSizing& a, const HostSizing& b) {
  return a.ram.dimms == b.ram.dimms && a.ram.dimm_gib == b.ram.dimm_gib &&
         a.ram.installed_bytes == b.ram.installed_bytes && a.ram.channels == b.ram.channels &&
         a.ram.dimms_per_channel == b.ram.dimms_per_channel;
}

}  // namespace

SystemPlan with_host(const SystemPlan& s, HostSizing host) {
  if (!same_ram_population(s.host, host))
    throw std::logic_error("with_host: the RAM population differs from the sibling's");
  SystemPlan t = s;
  t.host = std::move(host);
  t.bom_.reset();
  return t;
}

const std::vector<BomLine>& SystemPlan::bom() const {
  if (!bom_) bom_ = platform ? bill_of_materials(bom_input(*this)) : std::vector<BomLine>();
  return *bom_;
}

PowerPlan rated_power_plan(const SystemPlan& s, double mains_v) {
  PowerPlan w;
  const double nodes = std::max<uint32_t>(1, s.choice.nodes);
  const PowerParts& q = s.max_power.parts;
  w.gpu_w = q.gpus_w * nodes;
  w.cpu_w = q.cpus_w * nodes;
  w.ram_w = q.memory_w * nodes;
  w.drives_w = q.drives_w * nodes;
  w.board_fans_w = (q.baseboard_w + q.nics_w + q.fans_w + q.board_w) * nodes;
  w.peak_w = s.max_power.dc_w * nodes;
  w.psu_w = s.psus.watts;
  w.psus = s.psus.count;
  w.wall_w = s.max_wall_w_total;
  mains_draw(w, mains_v, s.platform && s.platform->psu.redundancy.r > 0 ? 2 : 1);
  w.heat_btu_per_h = s.heat_btu_per_h_total;
  w.energy_kwh_per_year = s.typical_wall_w_total * kHoursPerYear / 1000;
  return w;
}

}  // namespace llmsize
