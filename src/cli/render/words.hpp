// Every sentence a plan is worded in: warnings, the checklist, and the split of the GPUs. Plans
// carry kinds and numbers (Plan::notes); rewording happens here and nowhere else.
#pragma once

#include <string>
#include <vector>

#include "llmsize/io/resolve.hpp"
#include "llmsize/max_context.hpp"
#include "llmsize/plan.hpp"

namespace llmsize::cli {

// What a plan was made from, as far as its words need it.
struct PlanWords {
  const ResolvedModel* model = nullptr;
  const QuantPreset* quant = nullptr;  // the preset used
  std::string_view quant_requested;    // as typed
  std::string_view quant_ignored;      // --quant text a weights file replaced; else empty
};

// The warnings in the order a reader needs them: assumptions, what the GPUs lack, the estimate's
// own, the quantization's, offload and speed calibration.
std::vector<std::string> plan_warnings(const PlanWords& w, const Plan& p);
// Appends them to `out` (cleared first), reusing its storage.
void plan_warnings(const PlanWords& w, const Plan& p, std::vector<std::string>& out);

// The warnings about the quantization alone: a short form's expansion, and a checkpoint format
// (fp8, gptq, ...) estimated under llama.cpp's rules.
std::vector<std::string> quant_warnings(const PlanWords& w, const Plan& p);

// The main command's warning that the weights are sized in the format a checkpoint stores them
// (its quantization_config named the preset used); "" when they are not.
std::string stored_quant_warning(const PlanWords& w);

// --ctx max's warning: the largest context that fits `gpus` ("2 × rtx-4090", usable_bytes each)
// and what the next one would need, or that the trained context fits.
std::string ctx_max_warning(const MaxContext& mc, const std::string& gpus, uint64_t usable_bytes);

// One of the estimate's warnings in words.
std::string estimate_warning_words(const EstimateWarning& w);

// The circuit a power plan needs: "17.7 A at 120 V: dedicated 30 A 208/240 V circuits (24 A
// continuous each): 1 of them".
std::string circuit_words(const PowerPlan& p);

// One note in words.
std::string note_words(const Note& n, const Plan& p);

// The checklist lines (power, links, growth, software, maintenance).
std::vector<std::string> plan_checklist(const Plan& p);
void plan_checklist(const Plan& p, std::vector<std::string>& out);

// The GPU split: "layer split", "tensor parallel", or the capacity plan's "2 replicas × tensor
// parallel 4".
std::string split_words(const Plan& p);

// A GpuPlan's split, link (with its numbers) and the link's reason, as the JSON and tables say
// them ("layer split", "PCIe 4.0 x16 (32 GB/s per direction per GPU)", ...).
std::string gpu_split_words(GpuSplit s);
std::string gpu_link_words(const GpuPlan& p);
std::string link_reason_words(LinkReason r);
// CapacityPlan::limited_by: "memory", "speed", or why no plan reaches the target.
std::string capacity_limit_words(const CapacityPlan& c);

}  // namespace llmsize::cli
