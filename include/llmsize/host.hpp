// The server around the GPUs: system RAM, CPU and PCIe lanes, platform class, storage, load time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llmsize {

enum class Platform { desktop, workstation, server };
const char* platform_name(Platform p);

struct PlatformSpec {
  Platform platform;
  uint32_t memory_channels;
  uint32_t dimms_per_channel;
  uint32_t pcie_lanes;  // CPU lanes available to devices
  double cpu_watts;     // typical CPU TDP of the class
  const char* example;  // a real platform of the class
};

// Desktop AM5 (24 usable PCIe 5.0 lanes, 2 channels); workstation Threadripper PRO 7000 WX (128
// lanes, 8 channels); server single-socket EPYC 9004 (128 lanes, 12 channels). Vendor specs.
const PlatformSpec& platform_spec(Platform p);

struct HostInput {
  uint32_t n_gpus = 1;
  double gpu_slot_width = 2;   // 0 for SXM/OAM boards (a server by construction)
  bool gpu_is_module = false;  // SXM/OAM: an HGX-class server
  uint64_t weights_bytes = 0;  // the model file
  uint64_t host_weights_bytes =
      0;                     // weights the engine keeps in RAM (llama.cpp token_embd, offload)
  uint32_t keep_models = 1;  // models or variants kept on disk
  uint64_t dataset_bytes = 0;
  uint64_t checkpoint_bytes = 0;  // fine-tuning checkpoints
  bool fine_tuning = false;
  uint32_t nics = 0;  // x16 network cards (multi-node)
};

struct RamPlan {
  uint64_t required_bytes = 0;   // max(2 x weights [+ offload], floor)
  uint64_t installed_bytes = 0;  // channels x DIMMs x module
  uint32_t dimms = 0;
  uint32_t dimm_gib = 0;
  std::string rule;
};

struct StoragePlan {
  uint64_t required_bytes = 0;  // models x keep + datasets + checkpoints, floor 2 TB
  uint64_t drive_bytes = 0;     // one data drive (RAID 1 pair: two of these)
  uint32_t data_drives = 2;
  uint64_t os_drive_bytes = 0;
  std::string drive_class;  // suggested class
};

struct LoadTime {
  const char* drive_class;
  double read_gb_per_s;  // sequential read, decimal GB/s
  double seconds;
  const char* source;
};

struct HostPlan {
  Platform platform = Platform::desktop;
  RamPlan ram;
  uint32_t cpu_cores = 0;
  uint32_t pcie_lanes_needed = 0;
  double chassis_slot_widths = 0;
  StoragePlan storage;
  std::vector<LoadTime> load_times;
  std::vector<std::string> notes;
};

// The platform class that holds n_gpus cards of slot_width (0 = SXM/OAM module).
Platform choose_platform(uint32_t n_gpus, double slot_width, bool module, bool fine_tuning);

HostPlan plan_host(const HostInput& in);

// Load time of `bytes` at each drive class's sequential read.
std::vector<LoadTime> load_times(uint64_t bytes);

// DDR bandwidth of a platform: channels x MT/s x 8 bytes, decimal GB/s.
double ram_bandwidth_gb_per_s(uint32_t channels, uint32_t mt_per_s);

}  // namespace llmsize
