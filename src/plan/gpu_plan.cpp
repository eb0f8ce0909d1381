#include "llmsize/plan/gpu_plan.hpp"

#include <algorithm>
#include <cstdio>

namespace llmsize {

uint32_t max_gpus_per_node(const GpuSpec& g) {
  // A unified-memory computer is one SoC per machine: more are separate units on a network.
  if (g.unified_memory || g.form_factor == FormFactor::soc) return 1;
  // A rack-scale NVLink domain is one machine (GB200 / GB300 NVL72: the rack).
  if (g.link_domain_gpus > kMaxGpusPerNode) return g.link_domain_gpus;
  if (g.slot_width <= 0) return kMaxGpusPerNode;  // SXM/OAM board
  return std::max<uint32_t>(
      1, std::min<uint32_t>(kMaxGpusPerNode,
                            static_cast<uint32_t>(kChassisSlotWidths / g.slot_width)));
}

uint32_t tensor_parallel_degree(const ModelSpec& m, uint32_t n) {
  // MLA shares one latent across heads: only n_head must divide.
  const uint32_t kv = m.is_mla() ? m.n_head : m.n_head_kv;
  for (uint32_t t = std::max<uint32_t>(1, n); t <= 64; ++t)
    if (m.n_head % t == 0 && kv % t == 0) return t;
  return 0;
}

GpuPlan plan_gpus(const ModelSpec& m, const Estimate& e, const RunConfig& c, const GpuSpec& gpu,
                  uint32_t requested) {
  GpuPlan p;
  plan_gpus_numbers(m, e, c, gpu, requested, p);
  describe_split(p);
  return p;
}

void plan_gpus_numbers(const ModelSpec& m, const Estimate& e, const RunConfig& c,
                       const GpuSpec& gpu, uint32_t requested, GpuPlan& p) {
  p.gpu = gpu;
  p.count_requested = requested;
  p.count_needed = gpus_needed(e, c, gpu.usable_bytes());
  p.count = requested ? requested : std::max<uint32_t>(1, p.count_needed);
  p.per_gpu_bytes = per_gpu_bytes(e, c, p.count);
  p.fits = p.count_needed != 0 && p.per_gpu_bytes <= gpu.usable_bytes();
  p.tp_degree = tensor_parallel_degree(m, p.count);
  p.gpus_per_node = std::min(max_gpus_per_node(gpu), p.count);
  p.nodes = (p.count + max_gpus_per_node(gpu) - 1) / max_gpus_per_node(gpu);

  // Whole layers per GPU, as llama.cpp's --split-mode layer assigns them (even split).
  p.layers_per_gpu.clear();
  for (uint32_t i = 0; i < p.count; ++i)
    p.layers_per_gpu.push_back(m.n_layer / p.count + (i < m.n_layer % p.count ? 1 : 0));
}

void describe_split(GpuPlan& p) {
  const GpuSpec& gpu = p.gpu;
  const bool fast_link = gpu.interconnect != GpuInterconnect::none;
  p.pcie_gen = p.pcie_lanes = 0;
  p.link_gb_per_s = 0;
  if (p.count <= 1) {
    p.split = GpuSplit::single;
    p.link = GpuLink::none;
    p.link_reason = LinkReason::one_gpu;
  } else if (p.nodes > 1) {
    p.split = p.tp_degree && p.tp_degree <= p.gpus_per_node ? GpuSplit::tensor_then_pipeline
                                                            : GpuSplit::pipeline_across_nodes;
    p.link = GpuLink::network;
    p.link_reason = gpu.unified_memory || gpu.form_factor == FormFactor::soc
                        ? LinkReason::separate_units
                        : LinkReason::beyond_chassis;
  } else if (fast_link) {
    p.split = GpuSplit::tensor_parallel;
    p.link = GpuLink::gpu;
    p.link_gb_per_s = gpu.interconnect_gb_per_s;
    p.link_reason = gpu.interconnect == GpuInterconnect::nvlink_bridge && p.count > 2
                        ? LinkReason::nvlink_bridge_pairs
                        : LinkReason::tensor_all_reduce;
  } else {
    p.split = GpuSplit::layer;
    p.link = GpuLink::pcie;
    p.pcie_gen = gpu.pcie_gen ? gpu.pcie_gen : 4;
    p.pcie_lanes = gpu.pcie_lanes ? gpu.pcie_lanes : 16;
    // GB/s per direction of x16: PCIe 5.0 64, 4.0 32, older 16 (as the card lists its generation).
    p.link_gb_per_s = (gpu.pcie_gen >= 5                        ? 64.0
                       : gpu.pcie_gen == 4 || gpu.pcie_gen == 0 ? 32.0
                                                                : 16.0) *
                      p.pcie_lanes / 16.0;
    p.link_reason = LinkReason::no_gpu_link;
  }
}

std::vector<GpuOption> rank_gpus(const ModelSpec& m, const Estimate& e, const RunConfig& c,
                                 const std::vector<GpuSpec>& gpus, const OptionPricer& price,
                                 const EngineProfile* engine, const EngineGpuCount* engine_count) {
  std::vector<GpuOption> out;
  for (const auto& g : gpus) {
    if (engine && !runs_on(*engine, g.backends)) continue;
    if (!g.market.empty()) continue;
    GpuOption o;
    if (engine_count) {
      const EngineCount n = (*engine_count)(g);
      if (n.gpus == 0) continue;
      o.plan = plan_gpus(m, e, c, g, n.gpus);
      o.plan.fits = true;  // the engine's own rule holds it at n
      if (n.per_gpu_bytes) o.plan.per_gpu_bytes = n.per_gpu_bytes;
      o.tokens_per_s = n.tokens_per_s;
      if (n.data_parallel && n.gpus > 1) {
        o.plan.split = GpuSplit::data_parallel;
        o.plan.link_reason = LinkReason::fsdp_collectives;
      }
      o.tp = n.tp;
      o.pp = n.pp;
      o.replicas = n.replicas;
      o.attention_dp = n.attention_dp;
      o.min_machines = n.min_machines;
    } else {
      o.plan = plan_gpus(m, e, c, g, 0);
    }
    if (!o.plan.fits || o.plan.count > 64) continue;
    o.machines = std::max<uint32_t>(1, o.plan.nodes);
    o.needs_fabric = o.machines > 1;
    o.bought = o.plan.count;
    price(o);
    out.push_back(o);
  }
  stable_sort_moving_once(out, [](const GpuOption& a, const GpuOption& b) {
    if (a.units_not_linked != b.units_not_linked) return b.units_not_linked;
    const bool pa = a.total_price_usd > 0, pb = b.total_price_usd > 0;
    if (pa != pb) return pa;
    if (a.no_machine != b.no_machine) return b.no_machine;
    if (a.generic_machine != b.generic_machine) return b.generic_machine;
    // A fabric costs what the catalog does not price: a deployment without one first.
    if (a.needs_fabric != b.needs_fabric) return b.needs_fabric;
    if (pa && a.total_price_usd != b.total_price_usd) return a.total_price_usd < b.total_price_usd;
    return a.plan.count < b.plan.count;
  });
  return out;
}

}  // namespace llmsize
