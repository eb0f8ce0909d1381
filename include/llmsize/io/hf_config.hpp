// Reads a Hugging Face config.json into a ModelSpec (src/io/json_readers.hpp takes a parsed value).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llmsize/model/model_spec.hpp"

namespace llmsize {

// Parses config.json text (untrusted): a JSON syntax error names the byte, a field error the JSON
// path. The spec's name is _name_or_path when present, else `where`.
ModelSpec parse_hf_config(std::string_view text, const std::string& where);

// Reads a config.json file of at most 16 MiB and parses it with parse_hf_config.
ModelSpec read_hf_config_file(const std::string& path);

}  // namespace llmsize
