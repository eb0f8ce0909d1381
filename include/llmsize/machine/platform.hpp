// Platforms as vendors ship them (HGX/OAM baseboard servers, PCIe GPU servers, workstations,
// desktops, unified-memory computers) and the choice of one that a set of GPUs really fits in.
// Pure: the catalog is read in src/io/platform_catalog.cpp; reasons are codes, words are the
// renderer's.
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "llmsize/gpu.hpp"
#include "llmsize/serving/placement.hpp"

namespace llmsize {

// GPU positions in one server: 8 (HGX/OAM boards, and 4U PCIe servers with 8 double-width slots).
constexpr uint32_t kMaxGpusPerNode = 8;
// Slot widths a GPU server chassis offers (8 double-width positions).
constexpr double kChassisSlotWidths = 16;

// system.platform in the JSON contract.
enum class PlatformClass { desktop, workstation, server, unified };
const char* to_string(PlatformClass c);
// Smallest first: unified 0, desktop 1, workstation 2, server 3.
int class_rank(PlatformClass c);

// How the GPUs sit in the machine.
enum class GpuMount {
  pcie,        // add-in cards in PCIe slots
  sxm,         // NVIDIA SXM modules on an HGX baseboard
  oam,         // OCP Accelerator Modules on a UBB baseboard (AMD Instinct, Intel Gaudi)
  superchip,   // Grace + GPU superchips (GH200, GB300): a deskside station or rack trays
  integrated,  // one SoC with unified memory (Apple M-series, GB10, Ryzen AI Max)
};
const char* to_string(GpuMount m);

// The mount a catalog GPU needs, from its form factor: "sxm" -> sxm, "superchip" -> superchip,
// "oam" -> oam, "soc" or unified memory -> integrated, everything else -> pcie.
GpuMount gpu_mount(const GpuSpec& g);

// Datacenter PCIe cards (T4, L4, L40S, A100/H100 PCIe, H100 NVL, MI210) have passive heatsinks
// and rely on the chassis' front-to-back airflow (their product briefs say "passive"); consumer
// and workstation cards carry their own fans or blowers.
bool gpu_is_passive(const GpuSpec& g);

// Slot widths one card takes: the catalog's, or 2 (the width of most PCIe GPUs) where it has none.
double card_slot_width(const GpuSpec& g);

// n PSUs carry the load, r more are spares: "4+2", "5+1", "1+1"; r = 0 is "none".
struct Redundancy {
  uint32_t n = 1;
  uint32_t r = 0;
  uint32_t total() const { return n + r; }
  friend bool operator==(Redundancy a, Redundancy b) { return a.n == b.n && a.r == b.r; }
};
// "4+2", or "none" when r = 0.
std::string to_string(Redundancy r);
// Parses "4+2", "N+1" (n = bays - 1), "N+N" (n = bays / 2), "none"; false when malformed.
bool parse_redundancy(const std::string& s, uint32_t bays, Redundancy* out);

// PSU efficiency (AC->DC at 50% load) where the catalog gives none: 80 PLUS Platinum for servers,
// Gold for the rest, at 230 V internal (CLEAResult 80 PLUS program table: Platinum 90/94/91%,
// Gold 88/92/88% at 20/50/100% load).
constexpr double kServerPsuEfficiency = 0.94;
// ATX PSU ratings sold (W), smallest first: a desktop's supply is bought to fit from these.
constexpr double kAtxPsuW[] = {550, 650, 750, 850, 1000, 1200, 1300, 1500, 1600};
constexpr double kLargestAtxPsuW = kAtxPsuW[std::size(kAtxPsuW) - 1];
constexpr double kOtherPsuEfficiency = 0.92;

struct PsuSpec {
  uint32_t bays = 1;  // PSU positions in the chassis
  // Rating of one PSU at 200-240 V; 0 = not in the catalog. A desktop's ATX supply is bought to
  // fit (atx = true): watts is then the largest the chassis takes.
  double watts = 0;
  bool atx = false;
  Redundancy redundancy;                     // as shipped
  double efficiency = kServerPsuEfficiency;  // AC->DC at 50% load (80 PLUS class of the PSU)
  // Whether a source gave the bays and the redundancy scheme. Where the catalog has none, its
  // reader keeps one bay and no spare as placeholders and clears these: plan_psus then reports
  // the count and the scheme as unknown, never as "1" and "none".
  bool bays_published = true;
  bool redundancy_published = true;
};

// One buyable machine model (a catalog row).
struct PlatformModel {
  std::string id;  // stable catalog id, "dgx-h100"
  std::string name;
  std::string vendor;
  PlatformClass platform_class = PlatformClass::desktop;
  std::string form_factor;  // the catalog's form: "rack", "tower", "deskside", "desktop", "mini"
  uint32_t rack_units = 0;  // 0 = not rack-mounted, or its height is not in the catalog

  // GPUs.
  GpuMount gpu_mount = GpuMount::pcie;
  std::vector<uint32_t> gpu_counts;  // the GPU counts it ships with, ascending (HGX: {8})
  std::vector<std::string> gpu_ids;  // GPUs it is sold with (PCIe: empty = any that fits)
  double gpu_width_max = 0;          // slot widths one GPU may take (pcie); 0 = modules
  double gpu_widths_total = 0;       // slot widths along the board for GPUs (pcie)
  uint32_t gpu_lanes_total = 0;      // PCIe lanes wired to GPU positions (after any switch)
  uint32_t gpu_lanes_each = 16;      // electrical width of one GPU position
  double gpu_watts_each_max = 0;     // power one GPU position delivers; 0 = unstated
  bool server_airflow = false;       // forced front-to-back airflow for passive cards
  bool liquid_cooled = false;

  // Host.
  uint32_t cpu_sockets = 1;
  std::string cpu_model;
  uint32_t cpu_cores_per_socket = 0;
  double cpu_tdp_w = 0;          // per socket
  bool cpu_tdp_assumed = false;  // no TDP on file for the catalog's CPU model: the class's
  uint32_t memory_channels_per_socket = 0;
  std::string memory_type;       // as the catalog states it: "DDR5", "DDR4", "LPDDR5x (unified)"
  uint32_t dimm_slots = 0;       // all sockets
  uint32_t ram_shipped_gib = 0;  // as configured by the vendor (0 = unstated)
  uint32_t ram_max_gib = 0;
  // x16 slots for network cards besides the GPU positions, from the vendor's slot layout (or
  // the fewest a cited configuration fills); nic_slots_published false = no source gave it.
  uint32_t nic_slots = 0;
  bool nic_slots_published = false;
  // As the vendor ships it (0 = unstated): the power model counts these when the plan does not
  // say otherwise. NICs are counted from the catalog's nics_shipped; the catalog's storage is
  // text, so nvme_shipped is left to callers.
  uint32_t nvme_shipped = 0;        // OS + data NVMe drives
  uint32_t nics_400g_shipped = 0;   // GPU fabric NICs (ConnectX-7 class)
  uint32_t nics_other_shipped = 0;  // storage / front-end NICs
  uint32_t dpus_shipped = 0;        // BlueField-3 class

  PsuSpec psu;
  double max_power_w = 0;      // published maximum system power (wall); 0 = unpublished
  double typical_power_w = 0;  // unified computers: published typical draw; 0 = unpublished
  double idle_power_w = 0;
  double measured_peak_w = 0;  // a measured wall peak of the cited configuration; 0 = none
  // Unified-memory computers: the share of memory the GPU may use as the maker or the OS sets it
  // (macOS ~0.75 by default); 0 = the GPU catalog's memory_fraction.
  double gpu_memory_fraction = 0;
  // Unified-memory computers linked as separate units: the most the maker supports together
  // (DGX Spark: 2 over ConnectX-7); 0 = no limit stated. The link, as the catalog states it.
  uint32_t units_linked_max = 0;
  std::string unit_link;
  uint32_t unit_link_gbit_per_s = 0;
  // A generic row (#20): no vendor's machine but the class a GPU no sourced machine takes falls
  // back to; `basis` says where its numbers come from. Chosen only when no sourced row takes the
  // GPUs; a generic baseboard takes any module of its mount.
  bool generic = false;
  std::string basis;
  double price_usd = 0;  // list or street price of the configuration; 0 = unpublished
  std::string price_source;
  std::string source;  // where the rest was read

  // The largest GPU count it ships with.
  uint32_t max_gpus() const { return gpu_counts.empty() ? 0 : gpu_counts.back(); }
  // Host memory soldered beside the CPUs (a superchip machine's LPDDR5X, GB200 / GB300 NVL72):
  // what it ships, no DIMMs to add.
  bool soldered_ram() const {
    return gpu_mount == GpuMount::superchip && ram_shipped_gib > 0 && dimm_slots == 0;
  }
};

// Why a platform was taken or turned down. Codes, stable in JSON as their to_string names.
enum class PlatformReason {
  // turning down
  mount_mismatch,     // a PCIe card in an SXM chassis, a module in a PCIe slot, ...
  gpu_not_offered,    // the vendor sells it with other GPUs only (gpu_ids)
  count_not_offered,  // the GPU count is not one it ships with (SXM/OAM boards: 4 or 8)
  too_wide,           // the card is wider than one GPU position
  slot_widths,        // n cards do not fit along the board
  pcie_lanes,         // fewer than x8 per GPU
  gpu_power,          // the card draws more than one position delivers
  passive_cooling,    // passive card, no server airflow
  psu_capacity,       // the maximum system power exceeds the PSUs without redundancy
  // A consumer card in a rack server: its open-air cooler is not built for a server's airflow
  // and the GeForce driver licence restricts datacenter deployment (#21); only by --platform.
  consumer_in_server,
  // noting
  psu_unrated,         // no PSU rating or count in the catalog: capacity not checked
  reduced_lanes,       // runs below the card's own lane count (x8/x8 on a desktop)
  slot_width_unknown,  // the catalog gives no width for the card: 2 slots assumed
  rounded_up,          // more GPUs than asked: the nearest count that is sold
  multi_node,          // more GPUs than one machine holds
  separate_units,      // unified-memory computers: n units, each its own machine, on a network
  units_not_linked,    // more units than their maker supports linking (an unsupported setup)
  override_name,       // chosen by name (--platform)
  smallest_class,      // the smallest class that fits (desktop before workstation ...)
  cheapest,            // cheapest of those that fit
};
const char* to_string(PlatformReason r);

// Whether n GPUs of g go in one p (n per node). Empty = it fits; else the blocking reasons.
// `max_system_w` is the machine's maximum power at the wall with those GPUs (power_model.hpp);
// its DC part (x PSU efficiency) must fit the PSUs without the spares. 0 skips the PSU check.
std::vector<PlatformReason> platform_blockers(const PlatformModel& p, const GpuSpec& g, uint32_t n,
                                              double max_system_w);

struct PlatformRejection {
  std::string platform_id;
  std::vector<PlatformReason> reasons;
  // Turned down only because it is not sold with the GPU (every other box of another mount or
  // GPU list), not on fit.
  bool only_not_sold() const;
};

struct PlatformChoice {
  int index = -1;               // into the catalog; -1 = none fits
  uint32_t gpus_requested = 0;  // asked for
  uint32_t gpus_per_node = 0;   // bought per machine
  uint32_t nodes = 0;
  uint32_t gpus_total() const { return gpus_per_node * nodes; }
  uint32_t lanes_per_gpu = 0;           // electrical lanes each GPU gets
  double slot_widths_per_node = 0;      // PCIe: the slot widths the cards take in one machine
  std::vector<PlatformReason> reasons;  // why this one (and notes such as reduced_lanes)
  // Platforms of the GPU's mount (or the named one) turned down, with the blockers of the count
  // nearest the request: those turned down on fit first, then those not sold with the GPU; the
  // class nearest the chosen one first within each.
  std::vector<PlatformRejection> rejected;
};

// Function from (platform, GPU, GPUs per node) to the maximum wall power of that machine; the
// selection uses it for the PSU check (power_model.hpp's max_system_power by default).
using MaxPowerFn = double (*)(const PlatformModel&, const GpuSpec&, uint32_t);

// The machine for n_gpus of g: the fewest machines, then the fewest GPUs (>= n_gpus, the same
// count in each machine, one the platform ships), then the smallest class, then one whose PSUs
// are published (count and rating) before one whose are not, then the cheapest, then the
// catalog's order.
// override_id (--platform) picks by id and still checks the fit; an unknown id returns index -1
// with no rejections. n_gpus = 0 is 1.
// `units` are the pieces a serving deployment places (serving/placement.hpp): a replica or prefill
// worker no wider than a machine stays inside one (machines_for()); none = the GPUs are one
// model instance spread over the machines.
PlatformChoice choose_platform(const std::vector<PlatformModel>& catalog, const GpuSpec& g,
                               uint32_t n_gpus, const std::string& override_id = "",
                               MaxPowerFn max_power = nullptr, const GpuUnits& units = {});

}  // namespace llmsize
