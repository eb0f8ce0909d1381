#include "llmsize/host.hpp"

#include <algorithm>

#include "llmsize/units.hpp"

namespace llmsize {
namespace {

const PlatformSpec kPlatforms[] = {
    {Platform::desktop, 2, 2, 24, 170,
     "AMD AM5 (Ryzen 9 9950X: 24 usable PCIe 5.0 lanes, 2 DDR5 channels, 170 W)"},
    {Platform::workstation, 8, 1, 128, 350,
     "AMD Threadripper PRO 7000 WX (128 PCIe 5.0 lanes, 8 DDR5 channels, 350 W)"},
    {Platform::server, 12, 1, 128, 360,
     "AMD EPYC 9004 single socket (128 PCIe 5.0 lanes, 12 DDR5 channels, up to 360 W)"},
};

// DDR5 module sizes sold (GiB): UDIMM 16/32/48, RDIMM 16..256.
const uint32_t kDimmGib[] = {8, 16, 24, 32, 48, 64, 96, 128, 256};

// Drive sizes sold (decimal TB): client 1/2/4/8, enterprise 3.84/7.68/15.36/30.72/61.44.
const double kDriveTb[] = {1, 2, 3.84, 4, 7.68, 8, 15.36, 30.72, 61.44};

// Sequential read per drive class, decimal GB/s (vendor datasheets of representative drives).
const LoadTime kDrives[] = {
    {"HDD (7200 rpm)", 0.25, 0, "Seagate Exos X20 datasheet: 272 MB/s max sustained"},
    {"SATA SSD", 0.55, 0, "Samsung 870 EVO datasheet: 560 MB/s (SATA 6 Gb/s limit)"},
    {"NVMe PCIe 3.0", 3.5, 0, "Samsung 970 EVO Plus datasheet: 3,500 MB/s"},
    {"NVMe PCIe 4.0", 7.0, 0, "Samsung 990 PRO datasheet: 7,450 MB/s"},
    {"NVMe PCIe 5.0", 14.0, 0, "Crucial T705 datasheet: 14,500 MB/s"},
};

}  // namespace

const char* platform_name(Platform p) {
  switch (p) {
    case Platform::desktop:
      return "desktop";
    case Platform::workstation:
      return "workstation";
    case Platform::server:
      return "server";
  }
  return "?";
}

const PlatformSpec& platform_spec(Platform p) {
  return kPlatforms[static_cast<int>(p)];
}

double ram_bandwidth_gb_per_s(uint32_t channels, uint32_t mt_per_s) {
  return static_cast<double>(channels) * mt_per_s * 8 / 1000.0;
}

std::vector<LoadTime> load_times(uint64_t bytes) {
  std::vector<LoadTime> v;
  for (auto d : kDrives) {
    d.seconds = static_cast<double>(bytes) / (d.read_gb_per_s * 1e9);
    v.push_back(d);
  }
  return v;
}

Platform choose_platform(uint32_t n_gpus, double slot_width, bool module, bool fine_tuning) {
  // A desktop board (AM5) gives one GPU x16, or two GPUs x8/x8 when they are at most two slots
  // wide, with the drives on chipset lanes; more cards, wider pairs or fine-tuning need a
  // workstation (128 lanes, 7 slots); SXM/OAM modules or more than 4 cards need a server.
  if (module || n_gpus > 4) return Platform::server;
  const bool desktop_ok = n_gpus == 1 || (n_gpus == 2 && slot_width > 0 && slot_width <= 2);
  return !desktop_ok || fine_tuning ? Platform::workstation : Platform::desktop;
}

HostPlan plan_host(const HostInput& in) {
  HostPlan h;
  // PCIe: x16 per GPU, x4 per NVMe (2 data + 1 OS), x16 per NIC.
  const uint32_t nvme = 3;
  h.pcie_lanes_needed = 16 * (in.gpu_is_module ? 0 : in.n_gpus) + 4 * nvme + 16 * in.nics;
  h.chassis_slot_widths = in.gpu_slot_width * in.n_gpus;
  h.platform = choose_platform(in.n_gpus, in.gpu_slot_width, in.gpu_is_module, in.fine_tuning);
  if (in.n_gpus == 2 && h.platform == Platform::desktop)
    h.notes.push_back(
        "two GPUs on a desktop run at x8/x8: fine for a layer split, slower for tensor "
        "parallelism");

  // CPU: 4 cores per GPU for the engine, tokenizer and scheduler, at least 8 (a sizing rule of
  // ours).
  h.cpu_cores = std::max<uint32_t>(8, 4 * in.n_gpus);

  // RAM: >= 2 x weights (the seed's rule: the file is read through the page cache while the engine
  // holds its own copy of host-side tensors), plus host-resident weights; floor 64 GiB for a
  // server; fine-tuning doubles it for data loaders and optimizer offload.
  RamPlan& r = h.ram;
  uint64_t need = checked_add(checked_mul(2, in.weights_bytes), in.host_weights_bytes);
  if (in.fine_tuning) need *= 2;
  if (h.platform != Platform::desktop) need = std::max<uint64_t>(need, 64 * kGiB);
  r.required_bytes = need;
  r.rule = "2 x weights" + std::string(in.host_weights_bytes ? " + host-resident weights" : "") +
           (in.fine_tuning ? ", x 2 for fine-tuning" : "") +
           (h.platform != Platform::desktop ? ", floor 64 GiB" : "");
  const auto& ps = platform_spec(h.platform);
  // Fill every channel with identical DIMMs (balanced bandwidth): smallest module that reaches it,
  // then a second DIMM per channel where the platform allows.
  for (uint32_t per_channel = 1; per_channel <= ps.dimms_per_channel && r.dimms == 0; ++per_channel)
    for (uint32_t gib_size : kDimmGib) {
      // Registered DIMMs (workstation, server) start at 16 GiB.
      if (h.platform != Platform::desktop && gib_size < 16) continue;
      const uint64_t total = uint64_t{gib_size} * kGiB * ps.memory_channels * per_channel;
      if (total >= need) {
        r.dimms = ps.memory_channels * per_channel;
        r.dimm_gib = gib_size;
        r.installed_bytes = total;
        break;
      }
    }
  if (r.dimms == 0) {
    r.dimms = ps.memory_channels * ps.dimms_per_channel;
    r.dimm_gib = 256;
    r.installed_bytes = uint64_t{256} * kGiB * r.dimms;
    h.notes.push_back(
        "the RAM rule exceeds one platform's largest population; use a dual-socket server");
  }

  // Storage: weights x models kept + datasets + checkpoints, floor 2 TB, RAID 1 pair + OS drive.
  StoragePlan& s = h.storage;
  s.required_bytes = std::max<uint64_t>(in.weights_bytes * std::max<uint32_t>(1, in.keep_models) +
                                            in.dataset_bytes + in.checkpoint_bytes,
                                        2 * 1000 * kGB);
  s.drive_bytes = static_cast<uint64_t>(kDriveTb[sizeof kDriveTb / sizeof kDriveTb[0] - 1] * 1e12);
  for (double tb : kDriveTb)
    if (tb * 1e12 >= static_cast<double>(s.required_bytes)) {
      s.drive_bytes = static_cast<uint64_t>(tb * 1e12);
      break;
    }
  s.data_drives = 2;
  s.os_drive_bytes = 1000 * kGB;
  s.drive_class = h.platform == Platform::desktop ? "NVMe PCIe 4.0 (client)"
                                                  : "NVMe PCIe 4.0/5.0 U.2/E3.S (enterprise)";
  h.load_times = load_times(in.weights_bytes);
  return h;
}

}  // namespace llmsize
