// How many GPUs of one kind hold a model, how they split it and how they should be linked.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "llmsize/engine.hpp"
#include "llmsize/gpu.hpp"
#include "llmsize/machine/platform.hpp"
#include "llmsize/memory/estimate.hpp"

namespace llmsize {

// How the GPUs share the model (worded by the CLI: src/cli/render/words.cpp).
enum class GpuSplit : uint8_t {
  single,                 // one GPU
  layer,                  // whole layers per GPU (llama.cpp --split-mode layer)
  tensor_parallel,        // in one node over the GPUs' own link
  tensor_then_pipeline,   // tensor parallel in each node, pipeline across nodes
  pipeline_across_nodes,  // layer (pipeline) split across nodes
  data_parallel,          // fine-tuning: each GPU a data-parallel rank, the state sharded (FSDP)
  replicas                // serving: independent replicas, each TP x PP, that share no link
};
// The interconnect to buy.
enum class GpuLink : uint8_t {
  none,     // one GPU
  network,  // nodes > 1: 400 Gb/s InfiniBand or RoCE per GPU for TP, 100-200 GbE for a pipeline
  gpu,      // the GPU's own link (gpu.interconnect) at link_gb_per_s per GPU
  pcie      // PCIe gen pcie_gen x pcie_lanes at link_gb_per_s per direction per GPU
};
// Why that link.
enum class LinkReason : uint8_t {
  one_gpu,
  beyond_chassis,       // more GPUs than one chassis holds
  nvlink_bridge_pairs,  // NVLink bridges join pairs only: TP beyond 2 falls back to PCIe
  tensor_all_reduce,    // TP all-reduces every layer: use the GPU's own link
  no_gpu_link,          // no GPU-to-GPU link: a layer split passes only activations
  separate_units,       // unified-memory computers: each unit is its own machine, layers split
                        // across them over the network (llama.cpp RPC, MLX distributed, NCCL)
  fsdp_collectives,     // FSDP gathers each layer's weights and reduce-scatters its gradients
  tensor_over_pcie,     // TP all-reduces every layer over PCIe: the card has no GPU link
};

struct GpuPlan {
  GpuSpec gpu;
  uint32_t count_needed = 0;     // layer split, smallest count that holds it; 0 = none up to 1024
  uint32_t count_requested = 0;  // --gpus, 0 when not given
  uint32_t count = 0;            // what the plan is for: requested, else needed
  uint64_t per_gpu_bytes = 0;    // each of `count` must hold this, headroom included
  bool fits = false;
  // Tensor parallelism over the plan's GPUs: the smallest degree >= count dividing n_head and
  // n_head_kv (vLLM's and TensorRT-LLM's requirement); 0 when no degree up to 64 qualifies.
  uint32_t tp_degree = 0;
  uint32_t gpus_per_node = 0;
  uint32_t nodes = 1;
  GpuSplit split = GpuSplit::single;
  GpuLink link = GpuLink::none;
  LinkReason link_reason = LinkReason::one_gpu;
  uint32_t pcie_gen = 0, pcie_lanes = 0;  // link pcie: the card's (4.0 x16 when not listed)
  double link_gb_per_s = 0;               // link gpu or pcie: per GPU (PCIe: per direction)
  std::vector<uint32_t> layers_per_gpu;   // layer split: whole layers per GPU
};

// Largest number of this GPU one server chassis holds (slot width, SXM boards of 8).
uint32_t max_gpus_per_node(const GpuSpec& g);

// Smallest tensor-parallel degree >= n that divides the attention heads and KV heads.
uint32_t tensor_parallel_degree(const ModelSpec& m, uint32_t n);

// Fills p.split, p.link, p.link_reason, p.pcie_gen, p.pcie_lanes and p.link_gb_per_s from p.gpu,
// p.count, p.nodes, p.gpus_per_node and p.tp_degree alone (so a caller planning many estimates on
// one GPU and count can reuse them).
void describe_split(GpuPlan& p);

// The plan for `gpu`; requested = 0 lets the estimate choose.
GpuPlan plan_gpus(const ModelSpec& m, const Estimate& e, const RunConfig& c, const GpuSpec& gpu,
                  uint32_t requested);
// The same without describe_split(), into `out` (whose storage is reused; every field but split,
// link and link_reason is assigned).
void plan_gpus_numbers(const ModelSpec& m, const Estimate& e, const RunConfig& c,
                       const GpuSpec& gpu, uint32_t requested, GpuPlan& out);

// Sorts v stably by `less`, moving each element once: an index sort, for elements as large as
// GpuOption, whose moves a merge sort would repeat log n times.
template <class T, class Less>
void stable_sort_moving_once(std::vector<T>& v, Less less) {
  std::vector<uint32_t> idx(v.size());
  for (uint32_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](uint32_t a, uint32_t b) { return less(v[a], v[b]); });
  std::vector<T> out;
  out.reserve(v.size());
  for (uint32_t i : idx) out.push_back(std::move(v[i]));
  v = std::move(out);
}

struct GpuOption {
  GpuPlan plan;
  // The machine the option buys, priced as the plan's BOM prices it (OptionPricer): the GPUs'
  // lines (0 = no public price), every other priced line, and their sum (0 when the GPUs have no
  // price); price_complete false when a line of the bill has no price (the total is a floor).
  double gpus_usd = 0;
  double host_usd = 0;
  double total_price_usd = 0;
  bool price_complete = true;
  // The class of the machine (desktop, workstation, server, unified) and its catalog id; "" when
  // no catalog platform takes the GPUs.
  const char* platform = "";
  std::string platform_id;
  // Machines the count spans (the catalog machine's choice, else plan.nodes); past one, the plan
  // also needs a network fabric (NICs, a switch) and runs its pipeline over it.
  uint32_t machines = 1;
  // The machines' maximum draw at the wall, all of them (0: no machine), and the price plus the
  // energy of the amortisation years at that draw and the duty cycle (0: unpriced).
  double max_wall_w = 0;
  double tco_usd = 0;
  // A model split across machines (a layer split or a replica larger than one machine) runs over
  // a network fabric; replicas that each fit one machine share nothing but requests.
  bool needs_fabric = false;
  // GPUs bought, what gpus_usd prices: a count the machine ships (an SXM/OAM board of 4 or 8),
  // >= plan.count.
  uint32_t bought = 0;
  // No catalog machine takes the GPUs at this count: no machine, power or host price.
  bool no_machine = false;
  // Only a generic class row takes them (platforms_generic: "an OAM baseboard server"), a
  // machine no vendor sells by that name, priced by the class's assumption: after every option
  // a sourced machine carries.
  bool generic_machine = false;
  // A serving engine's deployment of plan.count (TP x PP x replicas); 0 when the layer split
  // (plan.split) describes it.
  uint32_t tp = 0, pp = 0, replicas = 0;
  bool attention_dp = false;  // experts over the tp GPUs with attention data parallel (EP = tp)
  uint32_t min_machines = 0;  // --redundancy: machines bought at least (spares included)
  // Unified computers in more units than their maker links together (DGX Spark: two; a platform
  // catalog's units.linked_max): buyable, an unsupported setup.
  bool units_not_linked = false;
  // Each user's (or sequence's) decode speed on this option, and whether it is below the usable
  // speed the request asks (PlanRequest::min_tokens_per_s): such options rank after the rest.
  double tokens_per_s = 0;
  bool below_usable_speed = false;
};

// How many of a GPU the plan deploys the model on (gpus 0: no count holds it), and what each
// then holds with headroom (0: the layer split's per_gpu_bytes at that count). Serving engines
// pass their own deployment search (tensor-parallel degrees that divide the heads, the engine's
// memory rule), a capacity target its replicas; without one the layer split's count is used.
struct EngineCount {
  uint32_t gpus = 0;
  uint64_t per_gpu_bytes = 0;
  uint32_t tp = 0, pp = 0, replicas = 0;  // a serving engine's degrees; 0: the layer split's
  bool attention_dp = false;   // MoE experts split over the tp GPUs, attention data parallel
  bool data_parallel = false;  // fine-tuning: FSDP ranks, not a model split
  double tokens_per_s = 0;     // a serving deployment's per-user speed; 0: not known
  uint32_t min_machines = 0;   // a serving deployment with spares: ServingPlan::min_machines
};
using EngineGpuCount = std::function<EngineCount(const GpuSpec&)>;
// Plans the machine of an option (plan, tp/pp/replicas set) as the plan would buy it and fills its
// price, platform, machines, bought and no_machine (one hardware model: the options list prices
// the same BOM the chosen plan prints).
using OptionPricer = std::function<void(GpuOption&)>;

// Catalog GPUs that hold the model, that `engine` runs on (runs_on(); every GPU when null) and
// that are sold worldwide (no GpuSpec::market: H20 and L20 are made for China alone), each priced
// by `price`, in this order: setups their maker supports before those it does not
// (units_not_linked); priced before unpriced; GPUs a catalog machine takes before those none
// takes (no_machine), and a sourced machine before a generic class row (generic_machine); systems
// in one machine before those spanning several (their fabric is unpriced and their pipeline runs
// over the network); the cheapest system first (its BOM: the GPUs bought and the machines around
// them); ties by fewer cards.
std::vector<GpuOption> rank_gpus(const ModelSpec& m, const Estimate& e, const RunConfig& c,
                                 const std::vector<GpuSpec>& gpus, const OptionPricer& price,
                                 const EngineProfile* engine = nullptr,
                                 const EngineGpuCount* engine_count = nullptr);

}  // namespace llmsize
