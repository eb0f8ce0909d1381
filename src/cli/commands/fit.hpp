// llmsize fit: which catalog models and quantizations fit given GPUs, with the largest context
// each holds there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/options/options.hpp"
#include "cli/render/fit_report.hpp"

namespace llmsize {
class Catalog;
}

namespace llmsize::cli {

// The quantizations `fit` tries when --quants is not given: the formats the engine serves, best
// first: llama.cpp's and Ollama's GGUF ladder; vLLM's and SGLang's checkpoints (BF16, FP8, GPTQ
// 8-bit, AWQ 4-bit); TensorRT-LLM's (BF16, FP8, INT8 weight-only, AWQ 4-bit).
const std::vector<std::string>& fit_default_quants(const std::string& engine = "llama.cpp");

// Every catalog model x quantization at o.ctx on o.gpus (default 1) x o.gpu, through
// build_report(); the largest context by max_context(). Ordered best quality first: presets whose
// body type has 4 or more bits per weight before lower ones, then more parameters, then more bits
// per weight.
FitResult compute_fit(const Options& o, const Catalog& cat);

// `llmsize fit`: table, json or csv.
std::string run_fit(const Options& o);

}  // namespace llmsize::cli
