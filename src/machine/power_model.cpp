#include "llmsize/machine/power_model.hpp"

#include <algorithm>
#include <cmath>

#include "llmsize/machine/platform.hpp"
#include "llmsize/machine/power.hpp"
#include "llmsize/units.hpp"

namespace llmsize {
namespace {

// Per-component maxima, watts, DC side. Approximations from vendor datasheets (docs/formulas.md
// "Maximum system power" lists each): DDR5 UDIMM ~5 W and RDIMM (64 GB, 2Rx4) ~10 W at full
// bandwidth (Micron DDR5 power calculator range 3-12 W); enterprise U.2/E3.S NVMe 25 W (Micron
// 9400 / Samsung PM1743 maximum power class); ConnectX-7 class 400 Gb/s NIC ~25 W, dual-port
// 100-200 GbE NIC ~25 W, BlueField-3 DPU 150 W (its product brief's maximum).
constexpr double kUdimmW = 5;
constexpr double kRdimmW = 10;
// RDIMMs below 64 GB are x8 organisations: 10 x8 dies per rank (Kingston, "32Gbit DDR5 DRAM
// modules": a 32 GB RDIMM is 10 x8 dies in one rank; 16 GB and 48 GB likewise x8), half the 20 x4
// dies of a 64 GB 2Rx4's rank, and one rank per channel is active at a time (Virtium,
// rampedia.com "Memory Power Consumption"). With ~2 W of RCD and PMIC losses and ~8 W of DRAM in
// the 64 GB figure: 2 + 8 x 10 / 20 = 6 W. Approximation.
constexpr double kSmallRdimmW = 6;
// Client M.2 NVMe, the drives desktops and workstations ship: ~8 W, the top of the sustained
// maxima client drives declare in their NVMe power state 0 (smartctl's power-state tables:
// Sabrent Rocket 4 Plus 8.80 W, Samsung PM981 7.02 W, SK hynix Gold P31 6.30 W,
// https://gist.github.com/prometheanfire/e7747ce40f79205eddabccdbf99f3882; Samsung 970 EVO 1 TB
// 6.20 W, https://pastebin.com/upPYZqyL). NVMe's "Maximum Power" of a state is the sustained
// maximum the drive draws in it (NVMe base spec, Identify Controller power state descriptor).
constexpr double kClientNvmeW = 8;
constexpr double kEnterpriseNvmeW = 25;
constexpr double kNic400gW = 25;
constexpr double kNicOtherW = 25;
constexpr double kDpuW = 150;

// HGX/UBB baseboards: NVSwitch or Infinity Fabric switches, retimers, voltage-regulator losses and
// the GPU tray's fans at full speed, as a fraction of the GPUs' TDP. Calibrated on NVIDIA's
// published maxima: DGX H100 10.2 kW (8 x 700 W) and DGX B200 14.3 kW (8 x 1000 W) give 0.43 and
// 0.45 once CPUs, DIMMs, drives and NICs are counted at the rates above and the PSUs at 94%.
constexpr double kBaseboardFraction = 0.44;
// Rack-scale NVLink domains (GB200 / GB300 NVL72): the switch trays, the compute trays' boards
// and pumps as a fraction of the GPUs' TDP, fitted on NVIDIA's figures with the Grace CPUs
// counted at their share of the node budget and the trays' NICs, DPUs and drives as shipped
// (data/platforms.json): GB200 NVL72 120 kW at full load (72 x 1.2 kW GPUs, 36 x 250 W CPUs,
// 72 ConnectX-7 and 36 BlueField-3; Mission Control PRS FAQ 2.0.0) and GB300 NVL72 142 kW maximum
// (72 x 1.4 kW, 36 x 500 W, 72 ConnectX-8, 90 NVMe; the NVL72 AI factory reference architecture),
// PSUs at 94%: 0.116 and 0.105 (0.18 and 0.15 before the NICs were counted as parts).
constexpr double kRackScaleBaseboardFraction = 0.11;
// Chassis fans at full speed as a fraction of the heat they move: air-cooled PCIe GPU servers 10%
// of GPUs + CPUs (passive cards: the chassis fans cool them), desktops 2% of GPUs + CPUs
// (open-air cards exhaust into the case), workstation towers 3% of the CPUs alone: a tower takes
// no passive card (platform.cpp, passive_cooling) and its cards' fans are in their board power,
// blower workstation cards exhausting through their own bracket. Approximation (high-static-
// pressure 80 mm server fans draw 30-50 W each at full speed, 8-10 per 4U GPU server moving ~3-4
// kW); the workstation rule lets the ThinkStation P8 carry the three 300 W cards and the 350 W
// Threadripper PRO Lenovo sells it with on its 1,400 W supply (1,374.5 W DC, tests).
constexpr double kServerFanFraction = 0.10;
constexpr double kWorkstationFanFraction = 0.03;
constexpr double kDesktopFanFraction = 0.02;
// Motherboard, chipset, BMC: server 100 W (approximation); desktop and workstation 50 W, the
// worst case of Tom's Hardware's measured component table (motherboard with its chipsets,
// controllers and voltage regulators: 10-15 W best, 30-50 W worst;
// https://www.tomshardware.com/reviews/power-saving-guide,1611-4.html).
double board_w(PlatformClass c) {
  return c == PlatformClass::server ? 100 : 50;
}

bool registered_dimms(const PlatformModel& p) {
  return p.platform_class == PlatformClass::server ||
         p.platform_class == PlatformClass::workstation;
}

}  // namespace

MaxPower max_system_power(const PlatformModel& p, const GpuSpec& g, const MachineLoad& load) {
  MaxPower m;
  m.published_w = p.max_power_w;
  m.efficiency = p.psu.efficiency > 0 ? p.psu.efficiency : kServerPsuEfficiency;
  if (p.platform_class == PlatformClass::unified) {
    // Rated whole by its maker (Apple's "maximum continuous power", the PSU of a mini PC).
    m.wall_w = p.max_power_w > 0 ? p.max_power_w : p.psu.watts;
    m.dc_w = m.wall_w * m.efficiency;
    m.parts.gpus_w = m.dc_w;
    return m;
  }
  PowerParts& q = m.parts;
  const uint32_t gpus = load.gpus;
  q.gpus_w = g.board_power_w * gpus * load.power_limit;
  if (p.gpu_mount == GpuMount::sxm || p.gpu_mount == GpuMount::oam ||
      p.gpu_mount == GpuMount::superchip)
    q.baseboard_w =
        (g.link_domain_gpus > kMaxGpusPerNode ? kRackScaleBaseboardFraction : kBaseboardFraction) *
        q.gpus_w;
  q.cpus_w = p.cpu_tdp_w * p.cpu_sockets;
  const uint32_t dimms = load.dimms ? load.dimms : p.dimm_slots;
  const double rdimm_w = load.dimm_gib > 0 && load.dimm_gib < 64 ? kSmallRdimmW : kRdimmW;
  q.memory_w = dimms * (registered_dimms(p) ? rdimm_w : kUdimmW);
  const uint32_t drives = load.nvme_drives ? load.nvme_drives : p.nvme_shipped ? p.nvme_shipped : 2;
  // Desktops and workstations ship client M.2 drives; servers enterprise U.2/E3.S.
  q.drives_w =
      drives * (p.platform_class == PlatformClass::server ? kEnterpriseNvmeW : kClientNvmeW);
  const bool stated = load.nics_400g || load.nics_other || load.dpus;
  q.nics_w = stated ? load.nics_400g * kNic400gW + load.nics_other * kNicOtherW + load.dpus * kDpuW
                    : p.nics_400g_shipped * kNic400gW + p.nics_other_shipped * kNicOtherW +
                          p.dpus_shipped * kDpuW;
  if (q.baseboard_w == 0) {
    const double frac = p.platform_class == PlatformClass::server        ? kServerFanFraction
                        : p.platform_class == PlatformClass::workstation ? kWorkstationFanFraction
                                                                         : kDesktopFanFraction;
    q.fans_w =
        frac * (p.platform_class == PlatformClass::workstation ? q.cpus_w : q.gpus_w + q.cpus_w);
  }
  q.board_w = board_w(p.platform_class);
  m.dc_w = q.total();
  m.wall_w = m.dc_w / m.efficiency;
  return m;
}

double max_system_wall_w(const PlatformModel& p, const GpuSpec& g, uint32_t n_gpus) {
  MachineLoad l;
  l.gpus = n_gpus;
  return max_system_power(p, g, l).wall_w;
}

PsuPlan plan_psus(const PlatformModel& p, double max_wall_w) {
  PsuPlan s;
  const double dc = max_wall_w * (p.psu.efficiency > 0 ? p.psu.efficiency : kServerPsuEfficiency);
  if (p.psu.atx) {
    // One ATX supply, sized so the maximum DC load is at most 80% of its rating (transient
    // headroom; the rule PSU makers' calculators apply), up to what the chassis takes.
    s.count = 1;
    s.redundancy = {1, 0};
    s.watts = p.psu.watts;
    for (double w : kAtxPsuW)
      if (w >= dc / 0.8 && w <= p.psu.watts) {
        s.watts = w;
        break;
      }
  } else if (!p.psu.bays_published) {
    // No source gave the chassis' PSUs: nothing to report but that.
    s.count = 0;
    s.watts = p.psu.watts;
    s.redundancy = {0, 0};
    s.redundancy_known = false;
  } else {
    s.count = p.psu.redundancy.total();
    s.watts = p.psu.watts;
    s.redundancy = p.psu.redundancy;
    s.redundancy_known = p.psu.redundancy_published;
  }
  s.capacity_w = s.watts * s.redundancy.n;
  s.sufficient = s.watts > 0 && dc <= s.capacity_w;
  return s;
}

std::vector<CircuitOption> plan_circuits(double total_max_w, PlatformClass c,
                                         bool redundant_feeds) {
  // Continuous loads at 80% of the breaker (NEC 210.19(A)/210.20(A); the same derating is common
  // practice under IEC 60364). 3-phase: sqrt(3) x V(line-line) x A.
  struct Def {
    double v;
    uint32_t phases;
    double a;
    bool outlet;
  };
  static const Def kDesk[] = {
      {120, 1, 15, true},  {120, 1, 20, false}, {230, 1, 10, true},
      {230, 1, 16, false}, {208, 1, 30, false},
  };
  static const Def kRack[] = {
      {208, 1, 30, false},
      {230, 1, 32, false},
      {208, 3, 30, false},
      {400, 3, 32, false},
  };
  std::vector<CircuitOption> out;
  const bool rack = c == PlatformClass::server;
  const Def* b = rack ? kRack : kDesk;
  const size_t n = rack ? sizeof kRack / sizeof kRack[0] : sizeof kDesk / sizeof kDesk[0];
  for (size_t i = 0; i < n; ++i) {
    CircuitOption o;
    o.volts = b[i].v;
    o.phases = b[i].phases;
    o.breaker_a = b[i].a;
    o.outlet = b[i].outlet;
    o.north_america = north_american_mains(b[i].v) || b[i].v == 208;
    o.continuous_w = 0.8 * b[i].a * b[i].v * (b[i].phases == 3 ? std::sqrt(3.0) : 1.0);
    o.circuits = static_cast<uint32_t>(std::ceil(total_max_w / o.continuous_w));
    if (o.circuits == 0) o.circuits = 1;
    if (redundant_feeds) o.circuits *= 2;
    out.push_back(o);
  }
  return out;
}

std::vector<CircuitOption> plan_circuits(double max_w_each, uint32_t machines, uint32_t cords,
                                         PlatformClass c, bool redundant_feeds) {
  std::vector<CircuitOption> out = plan_circuits(max_w_each * machines, c, redundant_feeds);
  if (cords == 0 || machines == 0) return out;
  const double cord_w = max_w_each / cords;
  const uint64_t all_cords = uint64_t{cords} * machines;
  for (auto& o : out) {
    // Whole cords per circuit: floor(continuous / one cord's share); none fits: no option.
    const uint64_t per_circuit = cord_w > 0 ? static_cast<uint64_t>(o.continuous_w / cord_w) : 0;
    if (cord_w > 0 && per_circuit == 0) {
      o.circuits = 0;
      continue;
    }
    if (per_circuit == 0) continue;
    uint64_t n = (all_cords + per_circuit - 1) / per_circuit;
    if (redundant_feeds) n *= 2;
    o.circuits = static_cast<uint32_t>(std::max<uint64_t>(n, o.circuits));
  }
  return out;
}

RackPlan plan_racks(const PlatformModel& p, uint32_t nodes, double max_wall_w_each,
                    double rack_budget_kw, double mains_v) {
  RackPlan r;
  r.nodes = nodes;
  // Rack servers whose height the catalog lacks are placed by power alone.
  if (nodes == 0 || (p.rack_units == 0 && p.platform_class != PlatformClass::server)) return r;
  r.rack_units = p.rack_units * nodes;
  // A 42U rack, a few units kept for switches and PDUs' cabling: 38 for servers.
  const uint32_t by_space = p.rack_units ? std::max<uint32_t>(1, 38 / p.rack_units) : nodes;
  const uint32_t by_power = std::max<uint32_t>(
      1, static_cast<uint32_t>(rack_budget_kw * 1000 / std::max(1.0, max_wall_w_each)));
  r.nodes_per_rack = std::min({by_space, by_power, nodes});
  r.racks = (nodes + r.nodes_per_rack - 1) / r.nodes_per_rack;
  r.kw_per_rack = r.nodes_per_rack * max_wall_w_each / 1000;
  // PDUs: 3-phase 400 V 32 A (IEC 60309 red, 17.7 kW continuous each), an A and a B feed; on
  // 120 V mains (North America) 3-phase 208 V 60 A (17.3 kW continuous), the 3-phase service
  // there: a 400 V PDU does not plug into it.
  if (mains_v < 200) {
    r.pdu_volts = 208;
    r.pdu_amps = 60;
  }
  const double pdu_kw = 0.8 * r.pdu_volts * r.pdu_amps * std::sqrt(3.0) / 1000;
  r.pdus = r.racks * 2 * static_cast<uint32_t>(std::ceil(r.kw_per_rack / pdu_kw));
  return r;
}

TypicalPower typical_power(const PlatformModel& p, const GpuSpec& g, const MachineLoad& load,
                           const PowerWorkload& w) {
  TypicalPower t;
  const double cap = std::clamp(w.power_limit, 0.0, 1.0);
  // Decode reads every weight once per step for the whole batch: FLOPs per byte = 2 x batch /
  // bytes_per_weight. Below the GPU's ridge point (FLOPS / bandwidth) it is memory-bound and draws
  // the measured single-stream fraction; the draw rises linearly to board power at the ridge
  // (approximation between two measured ends).
  const double tflops = g.bf16_tflops_dense > 0 ? g.bf16_tflops_dense : g.fp16_tflops_dense;
  double ridge_batch = 0;
  if (tflops > 0 && g.bandwidth_gb_per_s > 0)
    ridge_batch = tflops * 1e12 / (g.bandwidth_gb_per_s * 1e9) * w.bytes_per_weight / 2;
  double f = kDecodeSingleStreamFraction;
  const double batch = 1 + (w.decode_batch - 1.0) * std::clamp(w.routed_share, 0.0, 1.0);
  if (ridge_batch > 1 && batch > 1) f += (1 - f) * std::min(1.0, (batch - 1) / (ridge_batch - 1));
  t.gpu_decode_fraction = std::min(f, cap);
  t.gpu_prefill_fraction = cap;
  const double busy_frac =
      (1 - w.prefill_share) * t.gpu_decode_fraction + w.prefill_share * t.gpu_prefill_fraction;

  const MaxPower m = max_system_power(p, g, load);
  if (p.platform_class == PlatformClass::unified) {
    // Published typical and idle draw where the maker gives them; else the maximum scaled like a
    // GPU's board power.
    t.busy_wall_w = p.typical_power_w > 0 ? p.typical_power_w : m.wall_w * busy_frac;
    t.idle_wall_w = p.idle_power_w > 0 ? p.idle_power_w : m.wall_w * kGpuIdleFraction;
  } else {
    const double board = g.board_power_w * load.gpus;
    t.gpus_busy_w = board * busy_frac;
    t.gpus_idle_w = board * kGpuIdleFraction;
    const PowerParts& q = m.parts;
    // Host parts under serving load: CPUs ~50% of TDP (one busy scheduler thread per GPU and the
    // tokenizer), ~25% idle; memory, drives, NICs 60% / 40%; the baseboard and fans follow the
    // GPUs' heat. Approximations.
    const double gpu_share_busy = q.gpus_w > 0 ? t.gpus_busy_w / q.gpus_w : 0;
    const double gpu_share_idle = q.gpus_w > 0 ? t.gpus_idle_w / q.gpus_w : 0;
    const double io = q.memory_w + q.drives_w + q.nics_w;
    t.host_busy_w = 0.5 * q.cpus_w + 0.6 * io + q.board_w +
                    (q.baseboard_w + q.fans_w) * std::max(0.3, gpu_share_busy);
    t.host_idle_w = 0.25 * q.cpus_w + 0.4 * io + q.board_w +
                    (q.baseboard_w + q.fans_w) * std::max(0.3, gpu_share_idle);
    t.busy_wall_w = (t.gpus_busy_w + t.host_busy_w) / m.efficiency;
    t.idle_wall_w = (t.gpus_idle_w + t.host_idle_w) / m.efficiency;
  }
  const double busy = std::clamp(w.busy_share, 0.0, 1.0);
  t.typical_wall_w = busy * t.busy_wall_w + (1 - busy) * t.idle_wall_w;
  return t;
}

EnergyCost energy_cost(double typical_wall_w, double busy_share, double tokens_per_s,
                       double kwh_price_usd, double pue) {
  EnergyCost e;
  e.kwh_per_year = typical_wall_w * pue * kHoursPerYear / 1000;
  e.usd_per_year = e.kwh_per_year * kwh_price_usd;
  e.tokens_per_year = tokens_per_s * std::clamp(busy_share, 0.0, 1.0) * kHoursPerYear * 3600;
  if (e.tokens_per_year > 0) {
    e.usd_energy_per_mtok = e.usd_per_year / e.tokens_per_year * 1e6;
    e.wh_per_mtok = e.kwh_per_year * 1000 / e.tokens_per_year * 1e6;
  }
  return e;
}

}  // namespace llmsize
