// Options -> PlanRequest: the one place where the command line meets the library. Every flag is
// validated here (InputError naming the flag and the accepted values), names are looked up in the
// catalog, and the result holds typed values only.
#pragma once

#include <string>
#include <vector>

#include "cli/options/number_text.hpp"
#include "cli/options/options.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/plan/plan.hpp"

namespace llmsize::cli {

struct ResolvedRequest {
  ResolvedModel model;
  std::string quant_requested;      // as typed ("q4"); the request holds the preset it names
  std::string quant_ignored;        // --quant text a weights file's own type replaced; else empty
  uint32_t mtp_layers_dropped = 0;  // --no-mtp: the model's MTP layers left out of the GGUF
  // The catalog's GPUs with --price applied: the candidates when no --gpu is given. The request
  // points into it: keep this object alive (and unmoved) while the request is used.
  std::vector<GpuSpec> gpus;
  // The request's platforms with its machine prices (--price PLATFORM=USD, a plan file's
  // "prices") applied, when it prices a machine; null: the request points into the catalog's.
  // Shared: a plan's machine points into it, and a Report keeps it alive (make_report).
  std::shared_ptr<const std::vector<PlatformModel>> platforms;
  // --draft: the draft model request.config.draft points to, with its exact weights (a GGUF);
  // shared so a Report keeps it alive.
  std::shared_ptr<const DraftModel> draft;
  std::shared_ptr<const Weights> draft_weights;  // a GGUF draft's own tensors
  std::string draft_launch;                      // what llama-server -md loads
  PlanRequest request;
};

// Validates every flag of `o` (before any work: a typo never yields half a result), resolves the
// model and GPU in `catalog` and fills the request. REQUIRES: `out` is not moved afterwards.
// `priced`: the catalog's GPUs with no --price applied, kept by the caller for many requests
// (the request's candidates then point into it: keep it alive); null: copied into `out`.
void resolve_request(const Options& o, const Catalog& catalog, ResolvedRequest& out,
                     const std::vector<GpuSpec>* priced = nullptr);

// The pieces, for commands that vary some of them (sweep, fit, check). `where` names the flag
// ("--ctx") or the place in a file ("plans.json: /plans/0/context") in the InputError.
const QuantPreset& resolve_quant(const std::string& where, const std::string& text);
// Throws InputError "FLAG: expected a, b or c, got 'V'" with the closest name unless v is
// one of `choices`.
void check_choice(const std::string& flag, const std::string& v,
                  const std::vector<std::string>& choices);
// v in [lo, hi]: "WHERE: expected an integer from LO to HI, got 'V'".
uint32_t count_in_range(const std::string& where, uint64_t v, uint64_t lo, uint64_t hi);
// v in [lo, hi]: "WHERE: expected a number from LO to HI, got 'TEXT'" (TEXT: v as typed).
double real_in_range(const std::string& where, double v, const std::string& text, double lo,
                     double hi);
// --power-limit: "80%", "80" (percent) or "0.8" (fraction) -> 0.8, within 10%..100%.
double parse_power_limit(const std::string& text);
// A quantized KV type stores each K and V row in whole blocks (ggml_row_size asserts
// ne % blck_size == 0; llama.cpp refuses the context otherwise): "--kv-quant: q4_0 stores rows in
// blocks of 32 elements, but this model's K row is 72 elements (1 KV heads x head size 72)".
void check_kv_rows(const std::string& where, const ModelSpec& m, TensorType type_k,
                   TensorType type_v);
TensorType resolve_kv_type(const std::string& where, const std::string& text);
// --gpu NAME among `gpus` (the catalog's, prices applied).
const GpuSpec& resolve_gpu(const std::string& flag, const std::string& name, const Catalog& cat,
                           const std::vector<GpuSpec>& gpus);
// The quantization of `model` under --quant `text` (`given`: typed, not the default): a weights
// file's own type replaces it (and `ignored` receives the text when it was typed and names
// another type); `requested` is what the report names.
const QuantPreset& model_quant(const std::string& where, const ResolvedModel& model,
                               const std::string& text, bool given, std::string& requested,
                               std::string& ignored);
// A config.json whose quantization_config names how the checkpoint is stored (FP8, GPTQ, AWQ,
// AutoRound, compressed-tensors INT4/INT8/FP8, MXFP4 experts, NVFP4): vLLM and transformers load
// it as stored unless a quantization is given. Null when that does not apply (a weights file,
// llama.cpp, no stored type).
const QuantPreset* stored_quant(const ResolvedModel& model, Engine engine, bool quant_given);
// Where stored_quant() would apply but the quantization_config is one llmsize does not size
// (ModelSpec::stored_quant_unread): the answer then says so in its assumptions.
bool unread_stored_quant(const ResolvedModel& model, Engine engine, bool quant_given);
// The quantization --quant stands for when not typed: the main command's default for the engine
// (a checkpoint engine loads the checkpoint as stored, bf16; fine-tuning reads the bf16
// checkpoint; llama.cpp and Ollama a Q4_K_M GGUF), else --quant as typed.
std::string serving_quant_text(const Options& o);
// The built-in catalog with every --catalog FILE merged in, in order. Prices given with --price
// are the request's (resolve_request), not the catalog's.
Catalog load_catalog(const std::vector<std::string>& files);
// The catalog's GPUs with every --price NAME=USD applied.
std::vector<GpuSpec> priced_gpus(const std::vector<std::string>& prices, const Catalog& cat);

}  // namespace llmsize::cli
