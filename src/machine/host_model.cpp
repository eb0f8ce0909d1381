#include "llmsize/machine/host_model.hpp"

#include <algorithm>

#include "llmsize/units.hpp"

namespace llmsize {

const char* to_string(HostReason r) {
  switch (r) {
    case HostReason::ram_two_x_weights:
      return "ram_two_x_weights";
    case HostReason::ram_platform_class:
      return "ram_platform_class";
    case HostReason::ram_platform_max:
      return "ram_platform_max";
    case HostReason::cores_shipped:
      return "cores_shipped";
    case HostReason::nic_per_gpu:
      return "nic_per_gpu";
    case HostReason::nic_storage_frontend:
      return "nic_storage_frontend";
    case HostReason::storage_os_mirror:
      return "storage_os_mirror";
    case HostReason::storage_data:
      return "storage_data";
    case HostReason::unified_memory:
      return "unified_memory";
    case HostReason::unit_link:
      return "unit_link";
    case HostReason::nic_onboard:
      return "nic_onboard";
    case HostReason::nic_stage_link:
      return "nic_stage_link";
    case HostReason::nic_stage_and_frontend:
      return "nic_stage_and_frontend";
    case HostReason::ram_soldered:
      return "ram_soldered";
  }
  return "?";
}

namespace {

// DDR5 modules sold, GiB: registered (servers, workstations) and unbuffered (desktops).
const uint32_t kRdimmGib[] = {16, 32, 48, 64, 96, 128, 256};
const uint32_t kUdimmGib[] = {8, 16, 24, 32, 48};
// Enterprise NVMe capacities (decimal TB x 100): 1.92 / 3.84 / 7.68 / 15.36 / 30.72.
const uint64_t kEnterpriseTb100[] = {192, 384, 768, 1536, 3072};
// Client NVMe capacities (decimal TB): 1 / 2 / 4 / 8.
const uint64_t kClientTb[] = {1, 2, 4, 8};
// The data drives' floor (DESIGN: NVMe for models, datasets and checkpoints, floor 2 TB): the
// 2 TB class, which enterprise drives sell as 1.92 TB.
constexpr uint64_t kDataFloorBytes = 1920 * kGB;

bool is_server_class(const PlatformModel& p) {
  return p.platform_class == PlatformClass::server ||
         p.platform_class == PlatformClass::workstation;
}

}  // namespace

uint32_t shipped_ram_gib_per_gpu(const PlatformModel& p) {
  if (p.ram_shipped_gib > 0 && p.max_gpus() > 0) return p.ram_shipped_gib / p.max_gpus();
  switch (p.platform_class) {
    case PlatformClass::server:
      // DGX H100 / DGX B200: 2 TiB for 8 GPUs; 8-GPU PCIe servers ship 1 TiB.
      return p.gpu_mount == GpuMount::pcie ? 128 : 256;
    case PlatformClass::workstation:
      return 64;
    case PlatformClass::desktop:
      return 32;
    case PlatformClass::unified:
      return 0;
  }
  return 0;
}

namespace {

// System RAM: what the rule and the platform class ask, populated in whole DIMMs; its reason
// appended to h.reasons.
void size_ram(const PlatformModel& p, const HostNeeds& n, uint32_t gpus, HostSizing& h) {
  RamSizing& r = h.ram;
  if (p.platform_class == PlatformClass::unified) {
    r.reason = HostReason::unified_memory;
    r.installed_bytes = r.required_bytes = uint64_t{p.ram_shipped_gib} * kGiB;
    h.reasons.push_back(HostReason::unified_memory);
  } else {
    // The seed's rule: the file goes through the page cache while the engine holds its host-side
    // tensors; against what the class ships per GPU (host_model.hpp). The larger, stated both.
    r.rule_bytes = checked_add(checked_mul(2, n.weights_bytes), n.host_weights_bytes);
    if (n.fine_tuning) r.rule_bytes = checked_mul(r.rule_bytes, 2);
    r.platform_bytes = checked_mul(uint64_t{shipped_ram_gib_per_gpu(p)} * kGiB, gpus);
    r.required_bytes = std::max(r.rule_bytes, r.platform_bytes);
    r.reason = r.rule_bytes > r.platform_bytes ? HostReason::ram_two_x_weights
                                               : HostReason::ram_platform_class;
    if (p.soldered_ram()) {
      // Soldered beside the CPUs: the machine's memory is what it ships, whatever the rule asks.
      r.installed_bytes = uint64_t{p.ram_shipped_gib} * kGiB;
      r.reason = HostReason::ram_soldered;
      h.reasons.push_back(r.reason);
      return;
    }
    if (p.ram_max_gib > 0 && r.required_bytes > uint64_t{p.ram_max_gib} * kGiB) {
      r.required_bytes = uint64_t{p.ram_max_gib} * kGiB;
      r.reason = HostReason::ram_platform_max;
    }
    h.reasons.push_back(r.reason);
    // Every channel populated alike (balanced bandwidth), one DIMM per channel first (DDR5 runs
    // slower at two), the smallest module that reaches the need.
    r.channels = p.memory_channels_per_socket * p.cpu_sockets;
    if (r.channels == 0) r.channels = 2;
    const uint32_t max_dpc = std::max<uint32_t>(1, p.dimm_slots / r.channels);
    const bool rdimm = is_server_class(p);
    const uint32_t* sizes = rdimm ? kRdimmGib : kUdimmGib;
    const size_t n_sizes =
        rdimm ? sizeof kRdimmGib / sizeof kRdimmGib[0] : sizeof kUdimmGib / sizeof kUdimmGib[0];
    // A vendor configuration that holds the need is kept as shipped (DGX H100: 32 x 64 GB).
    const uint64_t shipped = uint64_t{p.ram_shipped_gib} * kGiB;
    if (shipped >= r.required_bytes && p.dimm_slots > 0 && p.ram_shipped_gib % p.dimm_slots == 0 &&
        p.dimm_slots % r.channels == 0) {
      r.dimms = p.dimm_slots;
      r.dimm_gib = p.ram_shipped_gib / p.dimm_slots;
      r.dimms_per_channel = p.dimm_slots / r.channels;
      r.installed_bytes = shipped;
    }
    for (uint32_t dpc = 1; dpc <= max_dpc && r.dimms == 0; ++dpc)
      for (size_t i = 0; i < n_sizes; ++i) {
        const uint64_t total = uint64_t{sizes[i]} * kGiB * r.channels * dpc;
        if (total >= r.required_bytes) {
          r.dimms = r.channels * dpc;
          r.dimm_gib = sizes[i];
          r.dimms_per_channel = dpc;
          r.installed_bytes = total;
          break;
        }
      }
    if (r.dimms == 0) {  // the largest population
      r.dimms_per_channel = max_dpc;
      r.dimms = r.channels * max_dpc;
      r.dimm_gib = sizes[n_sizes - 1];
      r.installed_bytes = uint64_t{r.dimm_gib} * kGiB * r.dimms;
    }
  }
}

// The x16 slots a PCIe server leaves for network cards with `gpus` cards in it: the catalog's
// nic_slots (besides the GPU positions) plus the positions left empty, each an x16 slot.
NicSlots free_nic_slots(const PlatformModel& p, uint32_t gpus) {
  NicSlots s;
  const uint32_t empty = p.max_gpus() > gpus ? p.max_gpus() - gpus : 0;
  s.known = p.nic_slots_published || empty > 0;
  s.free = p.nic_slots + empty;
  return s;
}

// NICs, by what crosses between the machines:
// - HGX/OAM baseboard servers across nodes: one 400 Gb/s NIC per GPU (the HGX/DGX reference
//   design, a ConnectX-7 per GPU: the baseboards' fabric for tensor/expert traffic between them)
//   and a dual-port storage/front-end NIC.
// - PCIe servers across nodes: the GPU plan splits them by layers (a pipeline), and only the
//   activations of a stage boundary cross between machines (n_embd x 2 bytes per token: 14 KB for
//   a 7168-wide model), so one 200 Gb/s NIC per machine carries them, plus the storage/front-end
//   NIC; never more cards than the x16 slots left beside the GPUs (free_nic_slots): one slot
//   takes one dual-port card for both, none leaves the board's own network to the stage link.
// - A networked single server: the front-end NIC.
// - Desktops and workstations across nodes: one 100 Gb/s NIC each where a slot width is left
//   beside the GPUs; where the GPUs take every width (two 3-slot cards on an ATX board) the
//   board's own Ethernet carries the activations (a few KB per token).
// - Unified computers use what they have.
// - Independent serving replicas, each inside one machine, share nothing: each machine is sized
//   as if alone (HostNeeds::linked).
void size_nics(const PlatformModel& p, const HostNeeds& n, uint32_t gpus, HostSizing& h) {
  // Independent replicas, each inside its machine, are machines of their own: nothing crosses.
  const bool multi = n.nodes > 1 && n.linked;
  // A NIC line and the reason it is there.
  const auto nic = [&h](uint32_t count, uint32_t gbit, uint32_t ports, HostReason why) {
    h.nics.push_back({count, gbit, ports, why});
    h.reasons.push_back(why);
  };
  if (p.platform_class == PlatformClass::server && p.gpu_mount != GpuMount::pcie) {
    if (multi) {
      nic(gpus, 400, 1, HostReason::nic_per_gpu);
    }
    if (multi || n.networked) {
      nic(1, 200, 2, HostReason::nic_storage_frontend);
    }
  } else if (p.platform_class == PlatformClass::server) {
    if (!multi && !n.networked) return;
    NicSlots& s = h.nic_slots;
    s = free_nic_slots(p, gpus);
    const uint32_t want = multi ? 2 : 1;
    const uint32_t cards = s.known ? std::min(want, s.free) : want;
    if (multi && cards >= 2) {
      nic(1, 200, 1, HostReason::nic_stage_link);
      nic(1, 200, 2, HostReason::nic_storage_frontend);
    } else if (multi && cards == 1) {
      nic(1, 200, 2, HostReason::nic_stage_and_frontend);
    } else if (cards == 1) {
      nic(1, 200, 2, HostReason::nic_storage_frontend);
    } else {
      h.reasons.push_back(HostReason::nic_onboard);
    }
    s.used = cards;
  } else if (p.platform_class == PlatformClass::unified && multi) {
    // Separate units: each links to the next over the port its maker provides (DGX Spark's
    // ConnectX-7, a Mac's Thunderbolt 5); built in, nothing to buy for two units.
    nic(1, p.unit_link_gbit_per_s, 1, HostReason::unit_link);
  } else if (p.platform_class != PlatformClass::unified && (multi || n.networked)) {
    // A NIC is a single-width card: it needs one slot width the GPUs leave free.
    const bool slot_left = p.gpu_mount != GpuMount::pcie || n.gpu_slot_widths <= 0 ||
                           p.gpu_widths_total <= 0 || n.gpu_slot_widths + 1 <= p.gpu_widths_total;
    if (slot_left) {
      nic(1, 100, multi ? 1u : 2u, HostReason::nic_storage_frontend);
    } else {
      h.reasons.push_back(HostReason::nic_onboard);
    }
  }
}

// Storage: servers two enterprise OS drives in RAID 1 and mirrored enterprise data drives;
// desktops and workstations the client M.2 drives they ship (one OS drive, data drives of client
// sizes, as the power model counts them; a workstation's mirrored). Data drives hold the model
// set, datasets and checkpoints with room to download a second copy (x 2), at least the 2 TB
// class.
void size_storage(const PlatformModel& p, const HostNeeds& n, HostSizing& h) {
  StorageSizing& s = h.storage;
  const uint64_t models = n.model_set_bytes ? n.model_set_bytes : n.weights_bytes;
  s.required_bytes = checked_add(checked_add(models, n.dataset_bytes), n.checkpoint_bytes);
  // At least the 2 TB class for models and datasets (the design's floor: 1.92 TB enterprise, 2 TB
  // client drives), whatever one model needs: the next model and its download land there too.
  const uint64_t want = std::max(checked_mul(2, s.required_bytes), kDataFloorBytes);
  if (p.platform_class == PlatformClass::unified) {
    s.os_drives = 1;
    s.os_drive_bytes = 0;  // built in
  } else if (p.platform_class == PlatformClass::server) {
    s.os_drives = 2;
    s.os_drive_bytes = 192 * kGB * 10;  // 1.92 TB (DGX H100/B200 OS drives)
    h.reasons.push_back(HostReason::storage_os_mirror);
    uint64_t size = kEnterpriseTb100[sizeof kEnterpriseTb100 / sizeof kEnterpriseTb100[0] - 1];
    for (uint64_t t : kEnterpriseTb100)
      if (t * 10 * kGB >= want) {
        size = t;
        break;
      }
    s.data_drive_bytes = size * 10 * kGB;
    // Mirrored pair, or as many more as the need takes (RAID 10).
    const uint64_t per_pair = s.data_drive_bytes;
    s.data_drives =
        static_cast<uint32_t>(2 * std::max<uint64_t>(1, (want + per_pair - 1) / per_pair));
    h.reasons.push_back(HostReason::storage_data);
  } else {
    s.os_drives = 1;
    s.os_drive_bytes = 1000 * kGB;
    uint64_t size = kClientTb[sizeof kClientTb / sizeof kClientTb[0] - 1];
    for (uint64_t t : kClientTb)
      if (t * 1000 * kGB >= want) {
        size = t;
        break;
      }
    s.data_drive_bytes = size * 1000 * kGB;
    const uint64_t drives =
        std::max<uint64_t>(1, (want + s.data_drive_bytes - 1) / s.data_drive_bytes);
    // A workstation mirrors its data as a server does (RAID 1); a desktop keeps one copy.
    s.data_drives =
        static_cast<uint32_t>(p.platform_class == PlatformClass::workstation ? 2 * drives : drives);
    h.reasons.push_back(HostReason::storage_data);
  }
}

}  // namespace

bool HostSizing::has(HostReason r) const {
  return std::find(reasons.begin(), reasons.end(), r) != reasons.end();
}

HostSizing size_host(const PlatformModel& p, const HostNeeds& n) {
  HostSizing h;
  const uint32_t gpus = std::max<uint32_t>(1, n.gpus);
  h.cpu_sockets = p.cpu_sockets;
  h.cpu_cores = p.cpu_sockets * p.cpu_cores_per_socket;
  h.cores_per_gpu = static_cast<double>(h.cpu_cores) / gpus;
  h.reasons.push_back(HostReason::cores_shipped);
  size_ram(p, n, gpus, h);
  size_nics(p, n, gpus, h);
  size_storage(p, n, h);
  const RamSizing& r = h.ram;
  const StorageSizing& s = h.storage;
  h.load.gpus = gpus;
  h.load.dimms = r.dimms;
  h.load.dimm_gib = r.dimm_gib;
  h.load.nvme_drives = p.platform_class == PlatformClass::unified ? 0 : s.os_drives + s.data_drives;
  for (const auto& nic : h.nics) {
    if (nic.reason == HostReason::nic_per_gpu)
      h.load.nics_400g += nic.count;
    else
      h.load.nics_other += nic.count;
  }
  return h;
}

}  // namespace llmsize
