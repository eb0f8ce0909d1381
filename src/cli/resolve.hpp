// Turns what the user typed (flags, names, files) into plain specs for the core.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "llmsize/estimate.hpp"
#include "llmsize/gpu.hpp"
#include "llmsize/io/catalog.hpp"

namespace llmsize::cli {

struct ResolvedModel {
  ModelSpec spec;
  std::string source;      // catalog | shorthand | config.json | generic | gguf | safetensors
  std::string assumption;  // why this model, for a shorthand or generic size; empty otherwise
  // Set when the model came from a weights file: the exact per-tensor weights, which replace the
  // weights derived from the architecture and --quant.
  std::optional<Weights> exact_weights;
  std::string file_quant;  // the file's own type, e.g. "q4_k_m" (GGUF general.file_type), or "bf16"
};

// MODEL as a catalog id or alias, a size shorthand ("70b", "8x7b"), or a path to config.json.
// `where` names it in errors about the name ("MODEL", or a plan file's pointer); a file's own
// errors name the file.
ResolvedModel resolve_model(const std::string& text, const Catalog& cat,
                            const std::string& where = "MODEL");

// A generic dense Llama-3-like architecture of about `params` parameters (shorthand fallback).
ModelSpec generic_dense_model(double params);

// What is wrong with `text` as an integer in [lo, hi] ("expected an integer from 1 to 64, got
// 'x'"), or empty when nothing is; the same for a number.
std::string integer_problem(const std::string& text, uint64_t lo, uint64_t hi);
std::string number_problem(const std::string& text, double lo, double hi);

// Integer flag in [lo, hi]; InputError naming the flag and the range otherwise.
uint64_t parse_int(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi);
double parse_real(const std::string& flag, const std::string& text, double lo, double hi);

}  // namespace llmsize::cli
