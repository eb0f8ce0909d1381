// Rendering of results: table, JSON, CSV, Markdown. Formatting lives here and nowhere else.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/resolve.hpp"
#include "llmsize/estimate.hpp"
#include "llmsize/gpu.hpp"
#include "llmsize/io/catalog.hpp"

namespace llmsize::cli {

// How many GPUs of a memory class hold the estimate.
struct ClassFit {
  uint32_t memory_gib;
  uint32_t count;  // 0: does not fit even in 1024
};

struct GpuPlan {
  GpuSpec gpu;
  uint32_t count = 0;          // GPUs the estimate is for (requested, else needed)
  uint32_t count_needed = 0;   // 0: no count up to 1024 holds it
  uint32_t count_requested = 0;
  uint64_t per_gpu_bytes = 0;  // what each of `count` GPUs must hold, headroom included
  bool fits = false;
};

struct Report {
  ResolvedModel model;
  const QuantPreset* quant = nullptr;
  std::string quant_requested;
  RunConfig config;
  Estimate estimate;
  std::optional<GpuPlan> gpu;
  std::vector<ClassFit> classes;
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
