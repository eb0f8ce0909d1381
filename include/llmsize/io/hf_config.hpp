// Reads a Hugging Face config.json (as a parsed JSON value) into a ModelSpec.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "llmsize/model/model_spec.hpp"

namespace llmsize {

// Maps config fields (num_hidden_layers, num_key_value_heads, head_dim, num_local_experts, ...) to
// llama.cpp's terms. `where` names the document in errors ("config.json", "data/models.json:
// /models/3/config"). Unknown fields are ignored; a missing, mistyped or inconsistent field
// throws InputError naming `where` and the JSON path.
ModelSpec model_from_hf_config(const nlohmann::json& cfg, const std::string& where);

// Parses config.json text (untrusted): a JSON syntax error names the byte, a field error the JSON
// path. The spec's name is _name_or_path when present, else `where`.
ModelSpec parse_hf_config(std::string_view text, const std::string& where);

// Reads a config.json file of at most 16 MiB and parses it with parse_hf_config.
ModelSpec read_hf_config_file(const std::string& path);

// The reason of a nlohmann exception without its "[json.exception...]" prefix.
std::string json_reason(const nlohmann::json::exception& e);

}  // namespace llmsize
