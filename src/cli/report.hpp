// Rendering of results: table, JSON, CSV, Markdown. Formatting lives here and nowhere else.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/resolve.hpp"
#include "llmsize/capacity.hpp"
#include "llmsize/cost.hpp"
#include "llmsize/estimate.hpp"
#include "llmsize/finetune.hpp"
#include "llmsize/gpu_plan.hpp"
#include "llmsize/host.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/power.hpp"
#include "llmsize/speed.hpp"

namespace llmsize::cli {

// How many GPUs of a memory class hold the estimate.
struct ClassFit {
  uint32_t memory_gib;
  uint32_t count;  // 0: does not fit even in 1024
};

struct Report {
  ResolvedModel model;
  const QuantPreset* quant = nullptr;
  std::string quant_requested;
  RunConfig config;
  Estimate estimate;
  std::vector<ClassFit> classes;

  // The GPUs of the bill: given with --gpu, else llmsize's first choice.
  std::optional<GpuPlan> gpu;
  bool gpu_recommended = false;
  std::vector<GpuOption> options;  // ranked alternatives when no --gpu, cheapest first
  std::vector<GpuOption> fewest;   // the same catalog ranked by fewest cards
  std::optional<CapacityPlan> capacity;
  std::optional<Offload> offload;
  uint32_t max_concurrent_sequences = 0;
  uint64_t kv_available_bytes = 0;  // KV memory left on the GPUs (vLLM's KV pool)

  std::optional<Speed> speed;
  SpeedInput speed_input;
  double ram_bandwidth_gb_per_s = 0;
  uint32_t ram_channels = 0;
  uint32_t ram_mts = 0;

  std::optional<HostPlan> host;
  uint32_t host_keep_models = 1;
  std::optional<PowerPlan> power;
  PowerInput power_input;
  std::optional<CostPlan> cost;
  CostInput cost_input;

  std::optional<TrainMemory> train;
  TrainConfig train_config;
  uint32_t train_gpus = 0;

  std::vector<std::string> checklist;
  std::vector<std::string> warnings;
  bool explain = false;
};

std::string render_table(const Report& r);
std::string render_markdown(const Report& r);
std::string render_json(const Report& r);
std::string render_csv(const Report& r);

std::string render_models(const Catalog& c, const std::string& format);
std::string render_gpus(const Catalog& c, const std::string& format);
std::string render_quants(const std::string& format);

}  // namespace llmsize::cli
