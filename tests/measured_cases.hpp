// Public measurements (tests/data) set up for prediction, shared by the unit tests and the
// accuracy benchmark so both predict each row the same way.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "llmsize/engine.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/serving/speed.hpp"
#include "llmsize/units.hpp"
#include "measurement_names.hpp"

namespace llmsize::test {

// A llama.cpp speed row (llama-bench tg/pp or main's eval rates): the model at its file type, a
// short context (tg rows read ~256 cells on average) and pp512 prompts.
struct SpeedCase {
  const ModelSpec* model;
  const GpuSpec* gpu;
  const QuantPreset* quant;
  Estimate estimate;
  SpeedInput input;
  Speed predict() const { return estimate_speed(*model, estimate, *gpu, input); }
};

// nullopt when the row names a GPU, model or file type the catalog lacks.
inline std::optional<SpeedCase> speed_case(const Catalog& cat, const nlohmann::json& row) {
  if (row["gpu"].is_null()) return std::nullopt;
  const std::string gid = measured_gpu_id(row["gpu"]), mid = measured_model_id(row["model"]);
  const QuantPreset* preset = find_quant_preset(row["quant"].get<std::string>());
  if (gid.empty() || mid.empty() || !preset) return std::nullopt;
  SpeedCase s{&cat.find_model(mid)->spec, &cat.find_gpu(gid)->spec, preset, {}, {}};
  RunConfig c;
  c.quant = preset;
  c.kv.n_ctx = 512;
  s.estimate = estimate(*s.model, c);
  s.input.n_gpus = row["n_gpus"].get<uint32_t>();
  s.input.n_ctx = 256;
  s.input.prompt_tokens = 512;
  return s;
}

// A vLLM memory-profile log: the KV pool vLLM reported against the one llmsize predicts.
struct VllmCase {
  RunConfig config;
  Estimate estimate;
  uint64_t total_bytes_each = 0;  // total GPU memory as vLLM printed it
  uint32_t tp = 1;
  double logged_pool_gib = 0;     // per GPU
  double logged_weights_gib = 0;  // per GPU
  double pool_gib() const {
    return static_cast<double>(available_kv_bytes(estimate, config, total_bytes_each, tp)) / kGiB /
           tp;
  }
};

inline VllmCase vllm_case(const Catalog& cat, const nlohmann::json& r) {
  VllmCase v;
  RunConfig& c = v.config;
  c.engine = Engine::vllm;
  c.quant = find_quant_preset(r["quant"].get<std::string>());
  c.headroom = 1 / r["gpu_memory_utilization"].get<double>() - 1;  // sum = utilization x memory
  c.overhead_per_gpu_bytes = engine_profile(Engine::vllm).overhead_per_gpu_bytes;
  c.kv.n_ctx = r["max_model_len"].get<uint32_t>();
  v.tp = r["tp"].get<uint32_t>();
  c.n_gpus = v.tp;
  v.estimate = estimate(cat.find_model(r["model"].get<std::string>())->spec, c);
  v.total_bytes_each = static_cast<uint64_t>(r["gpu_total_gib"].get<double>() * kGiB);
  v.logged_pool_gib = r.contains("kv_cache_gib") ? r["kv_cache_gib"].get<double>()
                                                 : r["kv_cache_gib_per_gpu"].get<double>();
  v.logged_weights_gib = r.contains("weights_gib") ? r["weights_gib"].get<double>()
                                                   : r["weights_gib_per_gpu"].get<double>();
  return v;
}

}  // namespace llmsize::test
