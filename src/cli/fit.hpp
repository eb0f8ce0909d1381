// llmsize fit (which catalog models and quantizations fit given GPUs, with the largest context
// each holds there) and the main command's --ctx max.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/app.hpp"

namespace llmsize {
class Catalog;
}

namespace llmsize::cli {

struct Report;

// The quantizations `fit` tries when --quants is not given: the usual llama.cpp ladder.
const std::vector<std::string>& fit_default_quants();

struct FitEntry {
  std::string model_id;
  std::string model_name;
  uint64_t params = 0;
  std::string quant;
  double bits_per_weight = 0;
  bool lossy = false;          // the preset's body type has under 4 bits per weight (Q3, Q2, IQ1-3)
  uint64_t per_gpu_bytes = 0;  // at the requested context
  uint32_t max_context = 0;
  bool max_context_is_trained = false;  // the model's trained context fits (not limited by memory)
};

struct FitResult {
  std::string gpu_id;
  std::string gpu_name;
  uint32_t count = 1;
  uint64_t usable_bytes_each = 0;
  uint32_t context = 0;
  std::vector<FitEntry> fits;              // best quality first; one per model unless --all
  std::vector<std::string> short_context;  // models whose trained context is below `context`
  std::vector<std::string> no_fit;         // models that fit at none of the quantizations
};

// Every catalog model x quantization at o.ctx on o.gpus (default 1) x o.gpu, through
// build_report(); the largest context by max_context(). Ordered best quality first: presets whose
// body type has 4 or more bits per weight before lower ones, then more parameters, then more bits
// per weight.
FitResult compute_fit(const Options& o, const Catalog& cat);

// `llmsize fit`: table, json or csv.
std::string run_fit(const Options& o);

// The main command with --ctx max: the largest context that --gpus (default 1) x --gpu hold,
// searched on the estimate, then the report at that context with a warning that says so.
Report build_report_max_context(const Options& o, const Catalog& cat);

}  // namespace llmsize::cli
