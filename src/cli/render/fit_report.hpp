// The result of llmsize fit as a table, JSON or CSV.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llmsize::cli {

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
  std::string engine;                      // whose memory rule and formats: llama.cpp, vllm, ...
  double lossy_below_bpw = 0;              // the order's quality threshold (bits per weight)
  std::vector<FitEntry> fits;              // best quality first; one per model unless --all
  std::vector<std::string> short_context;  // models whose trained context is below `context`
  std::vector<std::string> no_fit;         // models that fit at none of the quantizations
};

// REQUIRES: format is table, json or csv.
std::string render_fit(const FitResult& r, const std::string& format);

}  // namespace llmsize::cli
