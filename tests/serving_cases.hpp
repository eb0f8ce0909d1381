// Published serving throughput rows (tests/data/serving_throughput.json) set up for prediction,
// shared by the unit tests and the accuracy benchmark so both predict each row the same way.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "llmsize/io/catalog.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/serving.hpp"

namespace llmsize::test {

struct ServingCase {
  std::string id;
  ServingSetup setup;
  Workload workload;
  double measured_tokens_per_s = 0;
  ServingEstimate predict() const {
    return estimate_serving(setup.model, setup.gpu, setup.deployment, workload);
  }
};

// A model the catalog lacks, from the data file's "model_configs" (config.json fields).
inline ModelSpec data_model(const nlohmann::json& doc, const std::string& id) {
  return model_from_hf_config(doc.at("model_configs").at(id).at("config"), id);
}

// An offline row (users null: as many as fit) or a fixed-concurrency one. nullopt when the row
// names a model, GPU or preset the catalog lacks.
inline std::optional<ServingCase> serving_case(const Catalog& cat, const nlohmann::json& row,
                                               const ModelSpec* model_override = nullptr) {
  const auto* gm = cat.find_gpu(row["gpu"].get<std::string>());
  const auto* mm = model_override ? nullptr : cat.find_model(row["model"].get<std::string>());
  const QuantPreset* q = find_quant_preset(row["quant"].get<std::string>());
  const auto engine = serving_engine_from_name(row["engine"].get<std::string>());
  const auto kv = kv_dtype_from_name(row["kv"].get<std::string>());
  if (!gm || (!mm && !model_override) || !q || !engine || !kv) return std::nullopt;
  const ModelSpec& m = model_override ? *model_override : mm->spec;
  ServingCase c;
  c.id = row["id"].get<std::string>();
  const uint32_t tp = row["tp"].get<uint32_t>(), pp = row["pp"].get<uint32_t>();
  c.setup = serving_setup(m, *q, gm->spec, *engine, *kv, tp, pp, 1, 8);
  c.setup.deployment.attention_dp = row.value("attention_dp", false);
  c.workload.isl = row["isl"].get<uint32_t>();
  c.workload.osl = row["osl"].get<uint32_t>();
  c.workload.decode_only = row.value("decode_only", false);
  c.workload.users = row["users"].is_null() ? 0 : row["users"].get<uint32_t>();
  if (c.workload.users) c.setup.deployment.limits.max_num_seqs = c.workload.users;
  c.setup.deployment.max_model_len = c.workload.isl + c.workload.osl;
  c.measured_tokens_per_s = row["output_tokens_per_s"].get<double>();
  return c;
}

}  // namespace llmsize::test
