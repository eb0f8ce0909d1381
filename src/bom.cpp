#include "llmsize/bom.hpp"

#include <cstdio>

#include "llmsize/cost.hpp"
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
  }
  return "?";
}

namespace {

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::string tb(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", static_cast<double>(bytes) / 1e12);
  return b;
}

}  // namespace

namespace {

// The CPUs and the DIMMs of every node.
void add_host_lines(const BomInput& in, uint32_t nodes, bool priced_whole,
                    std::vector<BomLine>& v) {
  const PlatformModel& p = *in.platform;
  v.push_back({BomComponent::cpu,
               p.cpu_model,
               {{"sockets", std::to_string(in.host.cpu_sockets)},
                {"cores", std::to_string(in.host.cpu_cores)},
                {"tdp_w", num(p.cpu_tdp_w)}},
               in.host.cpu_sockets * nodes,
               0,
               "",
               BomReason::shipped_with_platform,
               true});
  const RamSizing& r = in.host.ram;
  const bool ram_shipped =
      p.ram_shipped_gib > 0 && uint64_t{p.ram_shipped_gib} * kGiB >= r.installed_bytes;
  v.push_back({BomComponent::memory,
               "ddr5-" +
                   std::string(p.platform_class == PlatformClass::desktop ? "udimm" : "rdimm") +
                   "-" + std::to_string(r.dimm_gib) + "gib",
               {{"dimm_gib", std::to_string(r.dimm_gib)},
                {"dimms_per_channel", std::to_string(r.dimms_per_channel)},
                {"channels", std::to_string(r.channels)},
                {"total_gib", std::to_string(r.installed_bytes / kGiB)},
                {"rule_gib", std::to_string(r.rule_bytes / kGiB)},
                {"platform_gib", std::to_string(r.platform_bytes / kGiB)},
                {"why", to_string(r.reason)}},
               r.dimms * nodes,
               kRamUsdPerGib * r.dimm_gib,
               "kRamUsdPerGib (cost.hpp): DDR5 street price assumption, 2025",
               BomReason::ram_rule,
               ram_shipped && priced_whole});
}

// The OS drives (mirrored on servers and workstations) and the data drives.
void add_storage_lines(const BomInput& in, uint32_t nodes, bool priced_whole,
                       std::vector<BomLine>& v) {
  const StorageSizing& s = in.host.storage;
  v.push_back({BomComponent::os_drive,
               "nvme-" + tb(s.os_drive_bytes) + "tb",
               {{"capacity_tb", tb(s.os_drive_bytes)}, {"raid", s.os_drives >= 2 ? "1" : "none"}},
               s.os_drives * nodes,
               kNvmeUsdPerTb * static_cast<double>(s.os_drive_bytes) / 1e12,
               "kNvmeUsdPerTb (cost.hpp): NVMe street price assumption, 2025",
               BomReason::os_mirror,
               priced_whole});
  if (s.data_drives)
    v.push_back({BomComponent::data_drive,
                 "nvme-" + tb(s.data_drive_bytes) + "tb",
                 {{"capacity_tb", tb(s.data_drive_bytes)},
                  {"raid", s.data_drives >= 4   ? "10"
                           : s.data_drives == 2 ? "1"
                                                : "none"},
                  {"required_tb", tb(s.required_bytes)}},
                 s.data_drives * nodes,
                 kNvmeUsdPerTb * static_cast<double>(s.data_drive_bytes) / 1e12,
                 "kNvmeUsdPerTb (cost.hpp): NVMe street price assumption, 2025",
                 BomReason::model_storage,
                 false});
}

// The NICs (GPU fabric, storage and front end) and the PSUs.
void add_network_power_lines(const BomInput& in, uint32_t nodes, std::vector<BomLine>& v) {
  const PlatformModel& p = *in.platform;
  for (const auto& n : in.host.nics) {
    const bool fabric = n.reason == HostReason::nic_per_gpu;
    const bool shipped = fabric ? p.nics_400g_shipped >= n.count : p.nics_other_shipped >= n.count;
    v.push_back({BomComponent::nic,
                 "nic-" + std::to_string(n.gbit_per_s) + "g-" + std::to_string(n.ports) + "p",
                 {{"gbit_per_s", std::to_string(n.gbit_per_s)},
                  {"ports", std::to_string(n.ports)},
                  {"why", to_string(n.reason)}},
                 n.count * nodes,
                 0,
                 "",
                 fabric ? BomReason::gpu_fabric : BomReason::storage_frontend,
                 shipped});
  }
  v.push_back({BomComponent::psu,
               "psu-" + num(in.psus.watts) + "w",
               {{"watts", num(in.psus.watts)},
                {"redundancy", to_string(in.psus.redundancy)},
                {"capacity_w", num(in.psus.capacity_w)}},
               in.psus.count * nodes,
               0,
               "",
               BomReason::shipped_with_platform,
               !p.psu.atx});
}

}  // namespace

std::vector<BomLine> bill_of_materials(const BomInput& in) {
  std::vector<BomLine> v;
  const PlatformModel& p = *in.platform;
  const uint32_t nodes = in.nodes ? in.nodes : 1;
  const bool priced_whole = p.price_usd > 0 && !p.gpu_ids.empty();

  BomLine pl{BomComponent::platform,     p.id, {}, nodes, p.price_usd, p.price_source,
             BomReason::chosen_platform, false};
  pl.spec = {{"name", p.name},
             {"vendor", p.vendor},
             {"class", to_string(p.platform_class)},
             {"form_factor", p.form_factor},
             {"gpu_mount", to_string(p.gpu_mount)}};
  if (p.rack_units) pl.spec.emplace_back("rack_units", std::to_string(p.rack_units));
  v.push_back(pl);

  BomLine g{BomComponent::gpu,
            in.gpu.id,
            {{"name", in.gpu.name},
             {"memory_gib", num(static_cast<double>(in.gpu.memory_bytes) / kGiB)},
             {"board_power_w", num(in.gpu.board_power_w)},
             {"form_factor", in.gpu.form_factor}},
            in.gpus_per_node * nodes,
            in.gpu.price_usd,
            in.gpu.price_usd > 0 ? in.gpu.price_kind + " " + in.gpu.price_date : "",
            BomReason::model_memory,
            priced_whole || p.gpu_mount == GpuMount::integrated};
  v.push_back(g);

  if (p.platform_class != PlatformClass::unified) {
    add_host_lines(in, nodes, priced_whole, v);
    add_storage_lines(in, nodes, priced_whole, v);
    add_network_power_lines(in, nodes, v);
  }
  if (in.racks.pdus)
    v.push_back({BomComponent::pdu,
                 "pdu-3ph-400v-32a",
                 {{"volts", "400"},
                  {"phases", "3"},
                  {"breaker_a", "32"},
                  {"racks", std::to_string(in.racks.racks)}},
                 in.racks.pdus,
                 0,
                 "",
                 BomReason::rack_power,
                 false});
  return v;
}

double bom_total_usd(const std::vector<BomLine>& lines) {
  double t = 0;
  for (const auto& l : lines)
    if (!l.included) t += l.qty * l.unit_price_usd;
  return t;
}

}  // namespace llmsize
