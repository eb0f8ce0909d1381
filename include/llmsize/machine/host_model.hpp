// The host of a chosen platform sized like the servers that ship: sockets and cores per GPU, system
// RAM from the larger of two rules with its DIMM population, NICs, and storage.
#pragma once

#include <cstdint>
#include <vector>

#include "llmsize/machine/platform.hpp"
#include "llmsize/machine/power_model.hpp"

namespace llmsize {

struct HostNeeds {
  uint32_t gpus = 1;   // in this machine
  uint32_t nodes = 1;  // machines in the plan
  // The machines run one model instance between them (a layer split, or a replica wider than a
  // machine): false for independent replicas, each inside one machine, that need no GPU fabric
  // or stage link between the machines.
  bool linked = true;
  uint64_t weights_bytes = 0;       // the model file
  uint64_t host_weights_bytes = 0;  // weights the engine keeps in RAM (token_embd, offload)
  uint64_t model_set_bytes = 0;     // every model and variant kept on disk; 0 = the model alone
  uint64_t dataset_bytes = 0;
  uint64_t checkpoint_bytes = 0;
  // A fine-tuning job: the RAM rule doubles (the trainer stages the checkpoint, optimizer and
  // dataloader in host memory beside the page cache), as the class rules always had it.
  bool fine_tuning = false;
  bool networked = false;  // served behind a network / reads a shared store
  // Slot widths the GPUs take along the board (PCIe machines; 0 = not known): what is left is
  // where a network card could go.
  double gpu_slot_widths = 0;
};

// Why a host quantity is what it is.
enum class HostReason {
  ram_two_x_weights,     // 2 x weights (+ host-resident weights) was the larger rule
  ram_platform_class,    // what the platform class ships per GPU was the larger
  ram_platform_max,      // capped by the platform's maximum
  cores_shipped,         // the sockets and cores the platform ships
  nic_per_gpu,           // one 400 Gb/s NIC per GPU: the HGX/OAM baseboard fabric across nodes
  nic_storage_frontend,  // storage + front-end NICs: multi-node or networked
  storage_os_mirror,     // two OS drives in RAID 1
  storage_data,          // data drives for the model set, datasets, checkpoints
  unified_memory,        // a unified-memory computer: RAM is the GPU memory
  unit_link,             // unified computers as separate units: their built-in network link
  nic_onboard,     // no slot left beside the GPUs for a NIC: the board's own Ethernet carries the
                   // activations of a layer split
  nic_stage_link,  // PCIe servers across nodes: one 200 Gb/s NIC per machine carries the
                   // activations between pipeline stages (a layer split, not tensor parallel)
  nic_stage_and_frontend,  // one free x16 slot: one dual-port card, a port for the stage link
                           // and one for storage / front end
  ram_soldered,            // the CPUs' soldered memory as shipped (superchip machines)
};
const char* to_string(HostReason r);

struct RamSizing {
  uint64_t rule_bytes = 0;      // 2 x weights + host-resident weights
  uint64_t platform_bytes = 0;  // what the class ships per GPU x GPUs
  uint64_t required_bytes = 0;  // max of the two, capped at the platform's maximum
  uint64_t installed_bytes = 0;
  uint32_t dimms = 0;
  uint32_t dimm_gib = 0;
  uint32_t channels = 0;  // all sockets
  uint32_t dimms_per_channel = 0;
  HostReason reason = HostReason::ram_two_x_weights;
};

struct NicLine {
  uint32_t count = 0;  // per machine
  uint32_t gbit_per_s = 0;
  uint32_t ports = 1;
  HostReason reason = HostReason::nic_per_gpu;
};

// The x16 slots a PCIe server has for network cards beside its GPUs: the catalog's nic_slots plus
// the GPU positions the plan leaves empty. known = false when neither gives a count (the
// catalog has no slot layout and every GPU position is taken): the cards are then bought as the
// plan needs them and the BOM says the slots are unchecked.
struct NicSlots {
  bool known = false;
  uint32_t free = 0;  // when known
  uint32_t used = 0;  // by the NIC cards bought
};

struct StorageSizing {
  uint32_t os_drives = 2;
  uint64_t os_drive_bytes = 0;
  uint32_t data_drives = 0;
  uint64_t data_drive_bytes = 0;
  uint64_t required_bytes = 0;  // model set + datasets + checkpoints
};

struct HostSizing {
  uint32_t cpu_sockets = 0;
  uint32_t cpu_cores = 0;  // all sockets
  double cores_per_gpu = 0;
  RamSizing ram;
  std::vector<NicLine> nics;
  NicSlots nic_slots;  // PCIe servers across nodes or networked; otherwise unset
  StorageSizing storage;
  std::vector<HostReason> reasons;
  MachineLoad load;              // for the power model
  bool has(HostReason r) const;  // r is among `reasons`
};

// System RAM each platform class ships per GPU, GiB: HGX/DGX 8-GPU servers 2 TiB / 8 = 256
// (DGX H100/B200), PCIe GPU servers 1 TiB / 8 = 128, workstations 64, desktops 32.
uint32_t shipped_ram_gib_per_gpu(const PlatformModel& p);

// RAM: the vendor's shipped population when it holds the need and fills every channel alike;
// else every channel alike, one DIMM per channel before two, the smallest module that reaches it.
HostSizing size_host(const PlatformModel& p, const HostNeeds& n);

}  // namespace llmsize
