#include "llmsize/machine/bom.hpp"

#include <charconv>
#include <utility>

#include "llmsize/machine/cost.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

const char* to_string(BomComponent c) {
  switch (c) {
    case BomComponent::platform:
      return "platform";
    case BomComponent::gpu:
      return "gpu";
    case BomComponent::cpu:
      return "cpu";
    case BomComponent::memory:
      return "memory";
    case BomComponent::os_drive:
      return "os_drive";
    case BomComponent::data_drive:
      return "data_drive";
    case BomComponent::nic:
      return "nic";
    case BomComponent::network_switch:
      return "switch";
    case BomComponent::psu:
      return "psu";
    case BomComponent::pdu:
      return "pdu";
  }
  return "?";
}

const char* to_string(BomReason r) {
  switch (r) {
    case BomReason::chosen_platform:
      return "chosen_platform";
    case BomReason::model_memory:
      return "model_memory";
    case BomReason::shipped_with_platform:
      return "shipped_with_platform";
    case BomReason::ram_rule:
      return "ram_rule";
    case BomReason::os_mirror:
      return "os_mirror";
    case BomReason::model_storage:
      return "model_storage";
    case BomReason::gpu_fabric:
      return "gpu_fabric";
    case BomReason::storage_frontend:
      return "storage_frontend";
    case BomReason::rack_power:
      return "rack_power";
    case BomReason::unit_link:
      return "unit_link";
    case BomReason::stage_link:
      return "stage_link";
  }
  return "?";
}

namespace {

using Spec = std::vector<std::pair<std::string, std::string>>;

// printf's "%g" and "%.2f" (std::to_chars with a precision formats as printf does in the C
// locale, without its locale and varargs machinery).
std::string num(double v) {
  char b[64];
  const auto r = std::to_chars(b, b + sizeof b, v, std::chars_format::general, 6);
  return std::string(b, r.ptr);
}

std::string tb(uint64_t bytes) {
  char b[64];
  const auto r = std::to_chars(b, b + sizeof b, static_cast<double>(bytes) / 1e12,
                               std::chars_format::fixed, 2);
  return std::string(b, r.ptr);
}

// The DIMM generation the platform takes: DDR4 where the catalog says so (EPYC 7003, Xeon 3rd Gen
// hosts), else DDR5, the generation of every other machine in it.
bool takes_ddr4(const PlatformModel& p) {
  return p.memory_type.find("DDR4") != std::string::npos;
}
std::string ddr_generation(const PlatformModel& p) {
  return takes_ddr4(p) ? "ddr4" : "ddr5";
}

}  // namespace

namespace {

// The CPUs and the DIMMs of every node.
void add_host_lines(const BomInput& in, uint32_t nodes, bool priced_whole, bool words,
                    std::vector<BomLine>& v) {
  const PlatformModel& p = *in.platform;
  // A vendor system ships its CPUs; a desktop platform (an ATX build: board, CPU, case and PSU
  // bought apart) does not.
  BomLine cpu{BomComponent::cpu,
              words ? p.cpu_model : std::string(),
              words ? Spec{{"sockets", std::to_string(in.host.cpu_sockets)}} : Spec(),
              in.host.cpu_sockets * nodes,
              0,
              "",
              p.psu.atx ? BomReason::chosen_platform : BomReason::shipped_with_platform,
              !p.psu.atx};
  if (words && in.host.cpu_cores) cpu.spec.emplace_back("cores", std::to_string(in.host.cpu_cores));
  if (words && p.cpu_tdp_w > 0)
    cpu.spec.emplace_back(p.cpu_tdp_assumed ? "tdp_w_assumed" : "tdp_w", num(p.cpu_tdp_w));
  v.push_back(std::move(cpu));
  const RamSizing& r = in.host.ram;
  // Server memory (registered DDR5) has its own, 2025-26 price; desktop and DDR4 DIMMs the 2026
  // street price of desktop kits.
  const bool rdimm_ddr5 = p.platform_class != PlatformClass::desktop && !takes_ddr4(p);
  const bool ram_shipped =
      p.ram_shipped_gib > 0 && uint64_t{p.ram_shipped_gib} * kGiB >= r.installed_bytes;
  if (p.soldered_ram()) {  // the CPUs' own memory, part of the machine
    v.push_back({BomComponent::memory,
                 words ? "soldered-" + std::to_string(p.ram_shipped_gib) + "gib" : std::string(),
                 words ? Spec{{"type", p.memory_type},
                              {"total_gib", std::to_string(r.installed_bytes / kGiB)},
                              {"rule_gib", std::to_string(r.rule_bytes / kGiB)},
                              {"why", to_string(r.reason)}}
                       : Spec(),
                 nodes, 0, "", BomReason::ram_rule, true});
    return;
  }
  v.push_back(
      {BomComponent::memory,
       words ? ddr_generation(p) + "-" +
                   std::string(p.platform_class == PlatformClass::desktop ? "udimm" : "rdimm") +
                   "-" + std::to_string(r.dimm_gib) + "gib"
             : std::string(),
       words ? Spec{{"dimm_gib", std::to_string(r.dimm_gib)},
                    {"dimms_per_channel", std::to_string(r.dimms_per_channel)},
                    {"channels", std::to_string(r.channels)},
                    {"total_gib", std::to_string(r.installed_bytes / kGiB)},
                    {"rule_gib", std::to_string(r.rule_bytes / kGiB)},
                    {"platform_gib", std::to_string(r.platform_bytes / kGiB)},
                    {"why", to_string(r.reason)}}
             : Spec(),
       r.dimms * nodes, (rdimm_ddr5 ? kDdr5RdimmUsdPerGib : kRamUsdPerGib) * r.dimm_gib,
       !words       ? ""
       : rdimm_ddr5 ? "reported DDR5 RDIMM contract price, Q4 2025 ($450 per 64 GB; Counterpoint)"
                    : "street DDR5 kit price, 2026-06 ($679.99 per 64 GB; PCPartPicker via Tom's "
                      "Hardware)",
       BomReason::ram_rule,
       // A vendor system whose shipped population holds the need comes with it (a DGX's
       // 32 x 64 GB is not bought apart); an ATX build buys its DIMMs.
       ram_shipped && (priced_whole || !p.psu.atx)});
}

// The OS drives (mirrored on servers and workstations) and the data drives.
void add_storage_lines(const BomInput& in, uint32_t nodes, bool priced_whole, bool words,
                       std::vector<BomLine>& v) {
  const StorageSizing& s = in.host.storage;
  // A server's drives are enterprise NVMe (their 2026 price), other machines' client drives.
  const bool enterprise = in.platform->platform_class == PlatformClass::server;
  const double usd_per_tb = enterprise ? kEnterpriseNvmeUsdPerTb : kNvmeUsdPerTb;
  const char* source = !words ? ""
                       : enterprise
                           ? "reported enterprise TLC NVMe price, Q1 2026 ($9,000-11,000 for 30 TB)"
                           : "assumed NVMe street price, 2025 (not a quote)";
  v.push_back(
      {BomComponent::os_drive, words ? "nvme-" + tb(s.os_drive_bytes) + "tb" : std::string(),
       words
           ? Spec{{"capacity_tb", tb(s.os_drive_bytes)}, {"raid", s.os_drives >= 2 ? "1" : "none"}}
           : Spec(),
       s.os_drives * nodes, usd_per_tb * static_cast<double>(s.os_drive_bytes) / 1e12, source,
       BomReason::os_mirror,
       priced_whole || (in.platform->nvme_shipped >= s.os_drives && !in.platform->psu.atx)});
  if (s.data_drives)
    v.push_back(
        {BomComponent::data_drive, words ? "nvme-" + tb(s.data_drive_bytes) + "tb" : std::string(),
         words ? Spec{{"capacity_tb", tb(s.data_drive_bytes)},
                      {"raid", s.data_drives >= 4   ? "10"
                               : s.data_drives == 2 ? "1"
                                                    : "none"},
                      {"required_tb", tb(s.required_bytes)}}
               : Spec(),
         s.data_drives * nodes, usd_per_tb * static_cast<double>(s.data_drive_bytes) / 1e12, source,
         BomReason::model_storage,
         in.platform->nvme_shipped >= s.os_drives + s.data_drives && !in.platform->psu.atx});
}

// A NIC that carries a pipeline's stage link (alone or with storage and the front end).
bool stage_link(HostReason r) {
  return r == HostReason::nic_stage_link || r == HostReason::nic_stage_and_frontend;
}

// A network switch where the machines cannot be cabled to each other directly: the GPU fabric of
// baseboard servers across nodes (one port per fabric NIC, as the HGX/DGX reference designs wire
// it), unified units beyond what their maker links without one (DGX Spark: two, cabled together),
// and the stage links of PCIe servers, desktops or towers beyond two machines (two are cabled NIC
// to NIC; a pipeline of three or more needs one port per machine). Unpriced: one switch or a
// leaf/spine fabric of them, by the ports.
void add_switch_line(const BomInput& in, uint32_t nodes, bool words, std::vector<BomLine>& v) {
  if (nodes < 2) return;
  const PlatformModel& p = *in.platform;
  uint32_t ports = 0, gbit = 0;
  BomReason why = BomReason::gpu_fabric;
  if (p.platform_class == PlatformClass::unified) {
    if (p.units_linked_max == 0 || nodes <= p.units_linked_max) return;
    ports = nodes;
    gbit = p.unit_link_gbit_per_s;
    why = BomReason::unit_link;
  } else {
    for (const auto& n : in.host.nics) {
      const bool fabric = n.reason == HostReason::nic_per_gpu;
      const bool pair_link =
          n.reason == HostReason::nic_storage_frontend && p.platform_class != PlatformClass::server;
      const bool stage = stage_link(n.reason);
      if (fabric || ((pair_link || stage) && nodes > 2)) {
        // A shared dual-port card puts one port on the stage switch, the other on the site's.
        ports += n.count * (stage ? 1 : n.ports) * nodes;
        gbit = n.gbit_per_s;
        why = fabric  ? BomReason::gpu_fabric
              : stage ? BomReason::stage_link
                      : BomReason::storage_frontend;
      }
    }
    // Machines whose GPUs leave no slot run the pipeline over the boards' own Ethernet
    // (host_model.cpp, nic_onboard): beyond two they need a switch port each all the same.
    if (ports == 0 && in.host.has(HostReason::nic_onboard) && nodes > 2) {
      ports = nodes;
      why = BomReason::stage_link;
    }
    if (ports == 0) return;
  }
  v.push_back({BomComponent::network_switch,
               words ? "switch-" + (gbit ? std::to_string(gbit) + "g-" : std::string("ethernet-")) +
                           std::to_string(ports) + "-ports"
                     : std::string(),
               words ? Spec{{"ports", std::to_string(ports)},
                            {"gbit_per_s", gbit                           ? std::to_string(gbit)
                                           : why == BomReason::stage_link ? "the boards' onboard"
                                                                          : "unknown"},
                            {"why", p.platform_class == PlatformClass::unified
                                        ? "more units than the maker links without a switch"
                                    : why == BomReason::stage_link
                                        ? "a pipeline of more than two machines: one port per "
                                          "machine's stage link"
                                        : "the machines' NICs cannot all be cabled to each other"}}
                     : Spec(),
               1, 0, "", why, false});
}

// The NICs (GPU fabric, storage and front end) and the PSUs.
void add_network_power_lines(const BomInput& in, uint32_t nodes, bool words,
                             std::vector<BomLine>& v) {
  const PlatformModel& p = *in.platform;
  // A system that ships more 400 Gb/s NICs than its fabric takes uses the rest for storage and
  // the front end (a DGX H100's 10: 8 for the GPUs, 2 more), so those are not bought again.
  uint32_t fabric_per_node = 0;
  for (const auto& n : in.host.nics)
    if (n.reason == HostReason::nic_per_gpu) fabric_per_node += n.count;
  const uint32_t spare_400g =
      p.nics_400g_shipped > fabric_per_node ? p.nics_400g_shipped - fabric_per_node : 0;
  // A PCIe server's cards against the x16 slots its GPUs leave (host_model.cpp free_nic_slots).
  const NicSlots& slots = in.host.nic_slots;
  const bool pcie_server =
      p.platform_class == PlatformClass::server && p.gpu_mount == GpuMount::pcie;
  for (const auto& n : in.host.nics) {
    const bool fabric = n.reason == HostReason::nic_per_gpu;
    const bool stage = stage_link(n.reason);
    const bool shipped =
        fabric ? p.nics_400g_shipped >= n.count : p.nics_other_shipped + spare_400g >= n.count;
    Spec spec;
    if (words) {
      spec = {{"gbit_per_s", std::to_string(n.gbit_per_s)},
              {"ports", std::to_string(n.ports)},
              {"why", to_string(n.reason)}};
      if (pcie_server)
        spec.emplace_back("x16_slots_free", slots.known ? std::to_string(slots.free)
                                                        : std::string("not published, unchecked"));
    }
    v.push_back({BomComponent::nic,
                 words
                     ? "nic-" + std::to_string(n.gbit_per_s) + "g-" + std::to_string(n.ports) + "p"
                     : std::string(),
                 std::move(spec), n.count * nodes, 0, "",
                 fabric  ? BomReason::gpu_fabric
                 : stage ? BomReason::stage_link
                         : BomReason::storage_frontend,
                 shipped});
  }
  // A chassis whose PSUs the catalog lacks: the line says what is unpublished instead of a "0 W"
  // part; without a published count it is the machine's set as shipped, one per machine.
  const bool rated = in.psus.watts > 0;
  Spec spec;
  if (words) {
    spec.emplace_back("watts", rated ? num(in.psus.watts) : std::string("not published"));
    if (!in.psus.count) spec.emplace_back("count", "not published");
    spec.emplace_back("redundancy", in.psus.redundancy_known ? to_string(in.psus.redundancy)
                                                             : std::string("not published"));
    if (rated && in.psus.count) spec.emplace_back("capacity_w", num(in.psus.capacity_w));
  }
  v.push_back({BomComponent::psu,
               !words  ? std::string()
               : rated ? "psu-" + num(in.psus.watts) + "w"
                       : std::string("psu-as-shipped"),
               std::move(spec), (in.psus.count ? in.psus.count : 1) * nodes, 0, "",
               BomReason::shipped_with_platform, !p.psu.atx});
}

}  // namespace

double assumed_platform_usd(PlatformClass c) {
  switch (c) {
    case PlatformClass::desktop:
      return 1500;
    case PlatformClass::workstation:
      return 6000;
    case PlatformClass::server:
      return 15000;
    case PlatformClass::unified:
      return 0;
  }
  return 0;
}

std::vector<BomLine> bill_of_materials(const BomInput& in, BomDetail detail) {
  const bool words = detail == BomDetail::lines;
  std::vector<BomLine> v;
  v.reserve(16);  // a platform, GPUs, CPUs, memory, drives, NICs, PSUs, PDUs: no reallocation
  const PlatformModel& p = *in.platform;
  const uint32_t nodes = in.nodes ? in.nodes : 1;
  const bool priced_whole = p.price_usd > 0 && !p.gpu_ids.empty();

  BomLine pl{BomComponent::platform,
             words ? p.id : std::string(),
             {},
             nodes,
             p.price_usd,
             words ? p.price_source : std::string(),
             BomReason::chosen_platform,
             false};
  // A unified computer is bought with the memory the plan uses: a price quoted for a smaller
  // configuration (a Mac Studio's $3,999 96 GB base) does not buy it.
  const uint64_t unit_gib = in.gpu.memory_bytes / kGiB;
  const bool larger_config = p.platform_class == PlatformClass::unified && p.ram_shipped_gib > 0 &&
                             unit_gib > p.ram_shipped_gib;
  if (larger_config && pl.unit_price_usd > 0) {
    pl.unit_price_usd = 0;
    if (words)
      pl.price_source = "not in the catalog for " + std::to_string(unit_gib) +
                        " GB; its price is of the " + std::to_string(p.ram_shipped_gib) +
                        " GB configuration (" + p.price_source + ")";
  }
  // A baseboard server without a published price of its own (a Dell or Supermicro HGX or UBB
  // machine) is bought as its modules at their catalog price, which the press reports per GPU of
  // such systems (H100 SXM "$25,000-$30,000"), and the host around them; a priced one (a DGX)
  // carries its modules in its price.
  const bool module_mount = p.gpu_mount == GpuMount::sxm || p.gpu_mount == GpuMount::oam;
  const bool modules_apart = module_mount && !(p.price_usd > 0) && in.gpu.price_usd > 0;
  // No published price (and no larger configuration's): the class's assumed price of what a
  // platform line buys (board, CPUs, chassis, PSUs; desktop $1,500, workstation $6,000, server
  // $15,000: rough 2025 street prices, docs/formulas.md), said to be one, so the options, the
  // BOM and the cost read one figure rather than a floor without the machine. Only for machines
  // the GPUs are bought apart for (PCIe cards, modules priced apart): unified computers are sold
  // whole.
  if (!(pl.unit_price_usd > 0) && !larger_config &&
      (p.gpu_mount == GpuMount::pcie || modules_apart)) {
    const double assumed = assumed_platform_usd(p.platform_class);
    if (assumed > 0) {
      pl.unit_price_usd = assumed;
      if (words)
        pl.price_source = "assumed " + std::string(to_string(p.platform_class)) +
                          " price, 2025 (board, CPU, chassis and PSUs; not a quote)" +
                          (modules_apart ? "; the modules at their own price" : "");
    }
  }
  if (words) {
    pl.spec = {{"name", p.name},
               {"vendor", p.vendor},
               {"class", to_string(p.platform_class)},
               {"form_factor", p.form_factor},
               {"gpu_mount", to_string(p.gpu_mount)}};
    if (p.rack_units) pl.spec.emplace_back("rack_units", std::to_string(p.rack_units));
    if (p.platform_class == PlatformClass::unified)
      pl.spec.emplace_back("memory_gib", std::to_string(unit_gib));
  }
  v.push_back(std::move(pl));

  BomLine g{BomComponent::gpu, words ? in.gpu.id : std::string(),
            words ? Spec{{"name", in.gpu.name},
                         {"memory_gib", num(static_cast<double>(in.gpu.memory_bytes) / kGiB)},
                         {"board_power_w", num(in.gpu.board_power_w)},
                         {"form_factor", to_string(in.gpu.form_factor)}}
                  : Spec(),
            in.gpus_per_node * nodes, in.gpu.price_usd,
            words && in.gpu.price_usd > 0 ? in.gpu.price_kind + " " + in.gpu.price_date : "",
            BomReason::model_memory,
            // A unified computer is one SoC, and modules come on the system's baseboard: bought
            // apart only where the machine has no price of its own (modules_apart).
            priced_whole || (p.gpu_mount != GpuMount::pcie && !modules_apart)};
  v.push_back(std::move(g));

  if (p.platform_class != PlatformClass::unified) {
    add_host_lines(in, nodes, priced_whole, words, v);
    add_storage_lines(in, nodes, priced_whole, words, v);
    add_network_power_lines(in, nodes, words, v);
  }
  // Beyond what the maker cables together the units go to a switch (add_switch_line): the
  // catalog's link text ("..., two units cabled directly") is cut to the port itself.
  const bool to_switch = p.units_linked_max > 0 && nodes > p.units_linked_max;
  const std::string port = to_switch ? p.unit_link.substr(0, p.unit_link.find(',')) : p.unit_link;
  if (p.platform_class == PlatformClass::unified)
    for (const auto& n : in.host.nics)
      if (n.reason == HostReason::unit_link) {
        Spec spec;
        if (words) {
          spec.push_back({"gbit_per_s", n.gbit_per_s ? std::to_string(n.gbit_per_s) : "unknown"});
          if (to_switch) spec.push_back({"to", "the switch line"});
          spec.push_back({"why", to_string(n.reason)});
        }
        v.push_back({BomComponent::nic,
                     !words                ? std::string()
                     : p.unit_link.empty() ? std::string("unit-link")
                                           : port,
                     std::move(spec), n.count * nodes, 0, "", BomReason::unit_link, true});
      }
  add_switch_line(in, nodes, words, v);
  if (in.racks.pdus)
    v.push_back(
        {BomComponent::pdu,
         words ? "pdu-3ph-" + num(in.racks.pdu_volts) + "v-" + num(in.racks.pdu_amps) + "a" : "",
         words ? Spec{{"volts", num(in.racks.pdu_volts)},
                      {"phases", "3"},
                      {"breaker_a", num(in.racks.pdu_amps)},
                      {"racks", std::to_string(in.racks.racks)}}
               : Spec(),
         in.racks.pdus, 0, "", BomReason::rack_power, false});
  return v;
}

double bom_total_usd(const std::vector<BomLine>& lines) {
  double t = 0;
  for (const auto& l : lines)
    if (!l.included) t += l.qty * l.unit_price_usd;
  return t;
}

BomCost bom_cost(const std::vector<BomLine>& lines) {
  BomCost c;
  bool gpu_included = false, platform_priced = false;
  for (const auto& l : lines) {
    if (l.component == BomComponent::platform && l.unit_price_usd > 0) platform_priced = true;
    if (l.component == BomComponent::gpu && l.included) gpu_included = true;
    if (l.included) continue;
    if (!(l.unit_price_usd > 0)) {
      c.complete = false;
      continue;
    }
    if (l.component == BomComponent::gpu) {
      c.gpus_usd += l.qty * l.unit_price_usd;
      c.gpus_priced = true;
    } else {
      c.rest_usd += l.qty * l.unit_price_usd;
    }
  }
  if (gpu_included && platform_priced) c.gpus_priced = true;
  return c;
}

}  // namespace llmsize
