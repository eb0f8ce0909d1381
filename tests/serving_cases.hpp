// Published serving throughput rows (tests/data/serving_throughput.json) set up for prediction,
// shared by the unit tests and the accuracy benchmark so both predict each row the same way.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "io/json_readers.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/serving/serving.hpp"

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
  const auto engine = engine_from_name(row["engine"].get<std::string>());
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
  // These sources give no count of requests per client (NIM's page: AIPerf at a fixed
  // concurrency): read as the steady state, no first wave.
  c.workload.requests_per_user = 0;
  c.setup.deployment.max_model_len = c.workload.isl + c.workload.osl;
  c.measured_tokens_per_s = row["output_tokens_per_s"].get<double>();
  return c;
}

// A published 2025-26 serving result (tests/data/serving_2026.json): its layout (tp x pp x
// replicas), its scenario's load (a closed loop of users, a burst of users requests, a rate, or
// offline: as many as fit) and its engine's defaults otherwise. nullopt when the row is one
// llmsize cannot express yet (not_expressible) or names a model, GPU or preset the catalog lacks.
struct PublishedServing {
  ServingCase c;
  std::string scenario;
  double per_user_tps = 0, ttft_ms = 0;  // 0: not published
};
inline std::optional<PublishedServing> published_serving(const Catalog& cat,
                                                         const nlohmann::json& row) {
  if (row.contains("not_expressible")) return std::nullopt;
  const auto* gm = cat.find_gpu(row["gpu"].get<std::string>());
  const auto* mm = cat.find_model(row["model"].get<std::string>());
  const QuantPreset* q = find_quant_preset(row["quant"].get<std::string>());
  const auto engine = engine_from_name(row["engine"].get<std::string>());
  const auto kv = kv_dtype_from_name(row["kv"].get<std::string>());
  if (!gm || !mm || !q || !engine || !kv) return std::nullopt;
  PublishedServing p;
  ServingCase& c = p.c;
  c.id = row["id"].get<std::string>();
  const uint32_t tp = row["tp"].get<uint32_t>(), pp = row["pp"].get<uint32_t>();
  c.setup = serving_setup(mm->spec, *q, gm->spec, *engine, *kv, tp, pp,
                          row["replicas"].get<uint32_t>(), 8);
  c.setup.deployment.attention_dp = row.value("attention_dp", false);
  c.workload.isl = row["isl"].get<uint32_t>();
  c.workload.osl = row["osl"].get<uint32_t>();
  p.scenario = row["scenario"].get<std::string>();
  if (row.contains("users") && !row["users"].is_null())
    c.workload.users = row["users"].get<uint32_t>();
  c.workload.rate_per_s = row.value("rate_per_s", 0.0);
  // InferenceMAX sends 10 x the concurrency prompts (10 per client); a burst one per client.
  c.workload.requests_per_user = p.scenario == "burst" ? 1 : 10;
  c.setup.deployment.max_model_len = row.value("max_model_len", c.workload.isl + c.workload.osl);
  // The launch settings the row publishes.
  if (row.contains("memory_fraction"))
    c.setup.deployment.limits.memory_fraction = row["memory_fraction"].get<double>();
  if (row.contains("max_num_seqs"))
    c.setup.deployment.limits.max_num_seqs = row["max_num_seqs"].get<uint32_t>();
  const auto& m = row["measured"];
  c.measured_tokens_per_s = m["output_tps_aggregate"].get<double>();
  p.per_user_tps = m.value("per_user_tps", 0.0);
  p.ttft_ms = m.value("ttft_mean_ms", 0.0);
  return p;
}

}  // namespace llmsize::test
