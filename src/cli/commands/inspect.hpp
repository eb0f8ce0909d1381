// llmsize inspect PATH: what a GGUF or safetensors file holds, read from its headers only.
#pragma once

#include <string>

namespace llmsize::cli {

// Reads the file(s) at `path` and renders format "table" or "json". Throws InputError on a
// malformed file, naming it, what is wrong and the byte offset.
std::string run_inspect(const std::string& path, const std::string& format);

}  // namespace llmsize::cli
