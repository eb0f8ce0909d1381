// An accelerator as the catalog describes it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsize/units.hpp"

namespace llmsize {

// The most GPUs llmsize plans one model on: every search for a GPU count stops here (0: none is
// enough) and --gpus accepts up to it.
constexpr uint32_t kMaxGpus = 1024;

// The chip's maker (a GB10 is nvidia); `other` is another maker's part, planned uncalibrated.
enum class GpuVendor : uint8_t { other, nvidia, amd, intel, apple };
// The market a part is made for; `soc` is a unified-memory system (Apple M-series, NVIDIA GB10 /
// Jetson Thor, AMD Ryzen AI Max) and always has unified_memory set. `unknown`: not recorded.
enum class GpuClass : uint8_t { unknown, consumer, workstation, datacenter, soc };
// How the part is sold: a card in a slot, a module on a baseboard (SXM, OAM), a Grace superchip,
// or one SoC with unified memory. `unknown`: not recorded (planned as a card when it has a slot
// width, else as a module).
enum class FormFactor : uint8_t { unknown, pcie, sxm, oam, superchip, soc };
// The GPU-to-GPU link it has besides PCIe.
enum class GpuInterconnect : uint8_t {
  none,
  nvlink,           // NVLink through NVSwitch (HGX) or the rack's switch trays (NVL72)
  nvlink_bridge,    // NVLink bridges joining pairs of cards
  infinity_fabric,  // AMD Infinity Fabric links between cards (bridges)
  xgmi,             // AMD Infinity Fabric (xGMI) on an OAM baseboard
  ethernet_roce,    // Intel Gaudi's on-chip RoCE Ethernet ports
};

// The catalog's words for them, in enum order (data/gpus.json "vendor", "class", "form_factor",
// "interconnect.kind"; "" for an unknown class or form factor).
inline constexpr const char* kGpuVendorWords[] = {"other", "nvidia", "amd", "intel", "apple"};
inline constexpr const char* kGpuClassWords[] = {"", "consumer", "workstation", "datacenter",
                                                 "soc"};
inline constexpr const char* kFormFactorWords[] = {"", "pcie", "sxm", "oam", "superchip", "soc"};
inline constexpr const char* kInterconnectWords[] = {
    "none", "nvlink", "nvlink-bridge", "infinity-fabric", "xgmi", "ethernet-roce"};

// The enum whose word in `words` is `name`; nullopt for a word the catalog does not use.
template <class E, size_t N>
std::optional<E> gpu_word_value(const char* const (&words)[N], std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (name == words[i]) return static_cast<E>(i);
  return std::nullopt;
}

inline const char* to_string(GpuVendor v) {
  return kGpuVendorWords[static_cast<size_t>(v)];
}
inline const char* to_string(GpuClass c) {
  return kGpuClassWords[static_cast<size_t>(c)];
}
inline const char* to_string(FormFactor f) {
  return kFormFactorWords[static_cast<size_t>(f)];
}
inline const char* to_string(GpuInterconnect i) {
  return kInterconnectWords[static_cast<size_t>(i)];
}
// Any maker's name: a vendor the catalog does not name is `other`.
inline GpuVendor gpu_vendor_from_name(std::string_view name) {
  return gpu_word_value<GpuVendor>(kGpuVendorWords, name).value_or(GpuVendor::other);
}

struct GpuSpec {
  std::string id;  // stable catalog id, "rtx-4090"
  std::string name;
  GpuVendor vendor = GpuVendor::other;
  GpuClass gpu_class = GpuClass::unknown;
  bool is_consumer() const { return gpu_class == GpuClass::consumer; }
  uint64_t memory_bytes = 0;
  double memory_fraction = 1.0;  // share a model may use (unified memory: what the OS leaves)
  // The device memory the CUDA / HIP runtime reports as its total (deviceQuery's totalGlobalMem,
  // torch.cuda.mem_get_info's total, vLLM's total_gpu_memory), below the nominal memory_bytes by
  // what the driver keeps; where only nvidia-smi's total is published, that figure. 0 = not
  // published (the serving engines then plan on memory_bytes).
  uint64_t visible_memory_bytes = 0;
  std::string memory_type;
  double bandwidth_gb_per_s = 0;  // decimal GB/s
  double board_power_w = 0;
  double fp16_tflops_dense = 0;  // 0 = unknown
  double bf16_tflops_dense = 0;
  // Dense (no 2:4 sparsity) low-precision tensor rates, datasheet figures; 0 = unknown or none.
  double fp8_tflops_dense = 0;
  double fp4_tflops_dense = 0;  // NVFP4 / MXFP4
  double int8_tops_dense = 0;
  // The GPU's architecture as its maker names it (known_architecture: volta ... cdna4); empty =
  // not recorded. The serving model's
  // family factors and the engines' per-architecture defaults read it.
  std::string architecture;
  GpuInterconnect interconnect = GpuInterconnect::none;
  double interconnect_gb_per_s = 0;
  // GPUs one interconnect domain joins at that speed (GB200/GB300 NVL72: 72, through NVLink
  // switch trays); 0 = an 8-GPU baseboard's NVLink / Infinity Fabric, or the bridge's pair.
  uint32_t link_domain_gpus = 0;
  uint32_t pcie_gen = 0;
  uint32_t pcie_lanes = 0;
  double slot_width = 0;  // PCIe slots the card occupies (2.5 for some); 0 for SXM/OAM/SoC
  FormFactor form_factor = FormFactor::unknown;
  bool unified_memory = false;  // CPU and GPU share one memory: the device is a whole computer
  std::vector<std::string> backends;
  double price_usd = 0;  // 0 = unknown
  std::string price_date;
  std::string price_kind;
  // The same GPU rented in the cloud (#27): the median of published on-demand prices per
  // GPU-hour over rent_providers providers (each one's lowest at its latest date), their range
  // and the latest date; 0 = none published in the catalog (data/rental_offers.json has each
  // offer).
  double rent_usd_per_gpu_hour = 0;
  double rent_low_usd_per_gpu_hour = 0, rent_high_usd_per_gpu_hour = 0;
  uint32_t rent_providers = 0;
  std::string rent_date;
  // The one market the part is made for ("china": NVIDIA's export-control parts, H20 and L20);
  // empty = sold worldwide. The recommender does not offer a restricted part; --gpu plans one.
  std::string market;

  // Sold as SXM/OAM modules on a baseboard or as a superchip, not as a card in a slot. A PCIe
  // card whose width is unpublished (slot_width 0) is still a card; an entry without a form
  // factor falls back to "no slot width, no unified memory".
  bool is_module() const {
    if (form_factor == FormFactor::unknown) return slot_width <= 0 && !unified_memory;
    return form_factor == FormFactor::sxm || form_factor == FormFactor::oam ||
           form_factor == FormFactor::superchip;
  }

  // Memory a model may use on one device (unified memory: the share the OS gives the GPU).
  uint64_t usable_bytes() const {
    return static_cast<uint64_t>(static_cast<double>(memory_bytes) * memory_fraction);
  }
  // What a serving engine (vLLM, SGLang, TensorRT-LLM) sizes its memory share from: the runtime's
  // total where published, else usable_bytes(). The llama.cpp plans keep the nominal memory and
  // their 20% headroom.
  uint64_t engine_visible_bytes() const {
    return visible_memory_bytes && !unified_memory ? visible_memory_bytes : usable_bytes();
  }
  // Memory a model may use on `count` of them (checked).
  uint64_t usable_bytes(uint32_t count) const { return checked_mul(usable_bytes(), count); }
};

// The architectures a catalog GPU may name (GpuSpec::architecture).
// PCIe payload bandwidth per lane and direction, GB/s: 8 GT/s 128b/130b = 0.985 (gen 3),
// doubling each generation (PCI-SIG); 0.5 before gen 3.
inline double pcie_lane_gb_per_s(uint32_t gen) {
  return gen < 3 ? 0.5 : 0.985 * static_cast<double>(1u << (std::min<uint32_t>(gen, 10) - 3));
}
// A GPU's host link, one direction: its generation and lanes (PCIe 4.0 x16 where the catalog
// gives none).
inline double pcie_gb_per_s(const GpuSpec& g) {
  return pcie_lane_gb_per_s(g.pcie_gen ? g.pcie_gen : 4) * (g.pcie_lanes ? g.pcie_lanes : 16);
}

inline bool known_architecture(std::string_view a) {
  for (const char* k :
       {"volta", "turing", "ampere", "ada", "hopper", "blackwell", "blackwell-ultra",
        "rtx-blackwell", "rdna2", "rdna3", "rdna4", "cdna2", "cdna3", "cdna4"})
    if (a == k) return true;
  return false;
}

}  // namespace llmsize
