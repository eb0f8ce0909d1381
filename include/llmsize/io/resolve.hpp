// MODEL as the user names it -> a model spec: a catalog id or alias, a size shorthand ("70b",
// "8x7b"), a config.json (or a directory holding one), or a weights file read header-only (GGUF,
// safetensors) whose exact per-tensor weights replace the architecture's.
#pragma once

#include <optional>
#include <string>

#include "llmsize/io/catalog.hpp"
#include "llmsize/memory/estimate.hpp"

namespace llmsize {

struct ResolvedModel {
  ModelSpec spec;
  std::string source;      // catalog | shorthand | config.json | generic | gguf | safetensors
  std::string assumption;  // why this model, for a shorthand or generic size; empty otherwise
  // Set when the model came from a weights file: the exact per-tensor weights, which replace the
  // weights derived from the architecture and --quant.
  std::optional<Weights> exact_weights;
  std::string file_quant;  // the file's own type, e.g. "q4_k_m" (GGUF general.file_type), or "bf16"
};

// `where` names MODEL in errors about the name ("MODEL", or a plan file's JSON pointer); a file's
// own errors name the file. Throws InputError.
ResolvedModel resolve_model(const std::string& text, const Catalog& cat,
                            const std::string& where = "MODEL");

}  // namespace llmsize
