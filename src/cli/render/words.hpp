// Every sentence a plan is worded in: warnings, the checklist, and the split of the GPUs. Plans
// carry kinds and numbers (Plan::notes); rewording happens here and nowhere else.
#pragma once

#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "llmsize/io/resolve.hpp"
#include "llmsize/memory/max_context.hpp"
#include "llmsize/plan/plan.hpp"

namespace llmsize::cli {

// Hashing of the plain keys below: every word, multiplied and folded.
struct KeyMix {
  size_t h = 0x9E3779B97F4A7C15ull;
  KeyMix& add(uint64_t x) {
    h = (h ^ x) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    return *this;
  }
  KeyMix& add(double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return add(b);
  }
};
size_t hash_key(const EstimateWarning& w);
size_t hash_key(const std::pair<Note, size_t>& n);
// A key's hash: the hash_key above, or one found by argument lookup.
template <typename Key>
struct KeyHash {
  size_t operator()(const Key& k) const { return hash_key(k); }
};

// Words kept by what they are made from, for renderers that word the same values many times (a
// sweep's rows); at most kSize kept (then forgotten all at once).
template <typename Key>
class WordsMemo {
 public:
  static constexpr size_t kSize = 4096;
  // The words of `k`, made by make() when not kept. The reference lives until the next miss.
  template <typename Make>
  const std::string& get(const Key& k, Make make) {
    auto it = words_.find(k);
    if (it != words_.end()) return it->second;
    if (words_.size() >= kSize) words_.clear();
    return words_.emplace(k, make()).first->second;
  }

 private:
  std::unordered_map<Key, std::string, KeyHash<Key>> words_;
};

// What the warnings of a sweep's rows repeat: the estimate's warnings, the notes worded from
// their own numbers and the GPU (PlanWords::gpu_key names it), and the lines of the model and
// quantization alone.
struct WarningsMemo {
  WordsMemo<EstimateWarning> estimate;
  WordsMemo<std::pair<Note, size_t>> notes;  // by (note, gpu_key); 0: worded from numbers alone
  const ResolvedModel* model = nullptr;      // whose lines `assumed` and `quant` hold
  const QuantPreset* quant = nullptr;
  std::string quant_requested, quant_ignored;
  Engine engine{};
  std::vector<std::string> leading, quant_lines;
};

// What a plan was made from, as far as its words need it.
struct PlanWords {
  const ResolvedModel* model = nullptr;
  const QuantPreset* quant = nullptr;  // the preset used
  std::string_view quant_requested;    // as typed
  std::string_view quant_ignored;      // --quant text a weights file replaced; else empty
  WarningsMemo* memo = nullptr;        // optional: words kept between calls
  // With a memo: a number the caller gives each GPU it plans on (1, 2, ...; 0: not known), so
  // notes that name the GPU are kept too.
  size_t gpu_key = 0;
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
// Dollars and watts as the tables print them, rounded and grouped: "$12,345", "2,592 W".
std::string usd_words(double usd);
// --redundancy n+k: the spares, what they add, and the users' speed with k machines down.
std::string redundancy_words(const ServingPlan& sp);
// A catalog source as a reader of the report takes it: the catalog's own marker of a weak or
// conflicting source (DOUBTFUL, data/platforms.json's note) said in words.
std::string source_words(const std::string& source);
std::string watts_words(double watts);
std::string circuit_words(const PowerPlan& p);

// One note in words.
std::string note_words(const Note& n, const Plan& p);

// A hardware price: "$25,614", or "at least $1,887" when some BOM line is unpriced (the sum is a
// floor). Every renderer words a floor this one way (check, --compare, --explain, markdown).
std::string hardware_price_words(const CostPlan& c);

// The checklist lines (power, links, growth, software, maintenance).
// The circuits worth reading for the plan's mains (--mains): its own voltages (120 V outlets and
// 208/240 V circuits in North America, 230 V and 400 V 3-phase elsewhere), and only the ordinary
// outlet when one carries the machine (#21: five options for a 240 W box were noise). JSON keeps
// every option.
std::vector<const CircuitOption*> circuits_shown(const Plan& p);

std::vector<std::string> plan_checklist(const Plan& p);
void plan_checklist(const Plan& p, std::vector<std::string>& out);

// The GPU split: "layer split", "tensor parallel", or the capacity plan's "2 replicas × tensor
// parallel 4".
// "TP 2 × PP 1 × 4 replicas": a serving deployment's layout.
std::string layout_words(const Deployment& d);
std::string split_words(const Plan& p);

// A GpuPlan's split, link (with its numbers) and the link's reason, as the JSON and tables say
// them ("layer split", "PCIe 4.0 x16 (32 GB/s per direction per GPU)", ...).
std::string gpu_split_words(GpuSplit s);
// "full", "LoRA", "QLoRA".
const char* train_mode_name(TrainMode m);
// A cold-start step as the tables say it ("read weights", "copy to GPUs", ...).
const char* step_words(StartStep s);
// A GPU option's split: a serving engine's TP x PP x replicas, else the layer split's words.
std::string option_split_words(const GpuOption& o);
// The GPUs' link; across machines `nodes` of up to `per_node` GPUs.
std::string gpu_link_words(const GpuPlan& p, uint32_t nodes, uint32_t per_node);
// Machines and GPUs per machine the link words count: the catalog machine's choice where one is
// planned (a 10-GPU server), else the GPU plan's nodes of the class rule's chassis.
struct LinkShape {
  uint32_t nodes = 1, per_node = 1;
};
LinkShape link_shape(const Plan& p);
// gpu_link_words(*p.gpu, link_shape(p)); REQUIRES p.gpu.
std::string gpu_link_words(const Plan& p);
std::string link_reason_words(LinkReason r);
// CapacityPlan::limited_by: "memory", "speed", or why no plan reaches the target.
std::string capacity_limit_words(const CapacityPlan& c);

}  // namespace llmsize::cli
