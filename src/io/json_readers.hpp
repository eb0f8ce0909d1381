// The io library's readers of parsed JSON values, private to it and to the tests: nlohmann stays
// out of the public headers (include/llmsize/io/ takes text and files).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "llmsize/machine/platform.hpp"
#include "llmsize/model/model_spec.hpp"

namespace llmsize {

// Maps config fields (num_hidden_layers, num_key_value_heads, head_dim, num_local_experts, ...) to
// llama.cpp's terms. `where` names the document in errors ("config.json", "data/models.json:
// /models/3/config"). Unknown fields are ignored; a missing, mistyped or inconsistent field
// throws InputError naming `where` and the JSON path.
ModelSpec model_from_hf_config(const nlohmann::json& cfg, const std::string& where);

// One platform entry at JSON pointer `path` of the file `where`, validated as data/platforms.json's
// rows are (a --catalog file's "platforms" entries). Throws InputError "WHERE: PATH/field: ...".
PlatformModel read_platform(const nlohmann::json& entry, const std::string& path,
                            const std::string& where);

}  // namespace llmsize
