// What a GGUF or safetensors file holds (llmsize inspect), as a table or JSON.
#pragma once

#include <string>

namespace llmsize {
struct ModelFile;
}

namespace llmsize::cli {

std::string render_model_file_table(const ModelFile& f);
std::string render_model_file_json(const ModelFile& f);

}  // namespace llmsize::cli
