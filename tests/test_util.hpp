// Shared helpers for the unit tests: catalog models and the copied reference data.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "io/json_readers.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/hf_config.hpp"

namespace llmsize::test {

inline const Catalog& catalog() {
  static const Catalog c = Catalog::builtin();
  return c;
}

inline const ModelSpec& model(const std::string& id) {
  const auto* m = catalog().find_model(id);
  if (!m) throw std::runtime_error("test model not in catalog: " + id);
  return m->spec;
}

inline nlohmann::json data_file(const std::string& name) {
  std::ifstream in(std::string(LLMSIZE_TEST_DATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// A Gemma 4 E-model shape (config.json keys of the published E2B): 35 layers, 4 sliding : 1
// global, the last 20 reusing the KV of an earlier layer (num_kv_shared_layers).
inline ModelSpec gemma4_e_model() {
  nlohmann::json j = R"({"model_type": "gemma4_text", "num_hidden_layers": 35,
      "hidden_size": 1536, "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256,
      "global_head_dim": 512, "num_global_key_value_heads": 1, "intermediate_size": 6144,
      "vocab_size": 262144, "sliding_window": 512, "num_kv_shared_layers": 20,
      "hidden_size_per_layer_input": 256, "use_double_wide_mlp": true})"_json;
  j["layer_types"] = nlohmann::json::array();
  for (int il = 0; il < 35; ++il)
    j["layer_types"].push_back(il % 5 == 4 ? "full_attention" : "sliding_attention");
  return model_from_hf_config(j, "e2b");
}

constexpr double kMiBd = 1024.0 * 1024.0;
constexpr double kGiBd = 1024.0 * 1024.0 * 1024.0;

}  // namespace llmsize::test
