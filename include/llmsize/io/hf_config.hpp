// Reads a Hugging Face config.json (as a parsed JSON value) into a ModelSpec.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "llmsize/model_spec.hpp"

namespace llmsize {

// Maps config fields (num_hidden_layers, num_key_value_heads, head_dim, num_local_experts, ...) to
// llama.cpp's terms. `where` names the document in errors ("config.json", "data/models.json:
// /models/3/config"). Unknown fields are ignored; a missing, mistyped or inconsistent field
// throws InputError naming `where` and the JSON path.
ModelSpec model_from_hf_config(const nlohmann::json& cfg, const std::string& where);

// The model_type values model_from_hf_config understands.
const std::vector<std::string>& supported_model_types();

}  // namespace llmsize
