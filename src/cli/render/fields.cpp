#include "cli/render/fields.hpp"
#include "cli/render/derivations.hpp"
#include "cli/render/words.hpp"

#include <fmt/format.h>

#include <cmath>

#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

using ojson = nlohmann::ordered_json;

// --- cells ------------------------------------------------------------------------------------

Cell A() {
  Cell c;
  c.type = CellType::absent;
  return c;
}
Cell N() {
  return Cell();
}
Cell B(bool v) {
  Cell c;
  c.type = CellType::boolean;
  c.b = v;
  return c;
}
Cell U(uint64_t v) {
  Cell c;
  c.type = CellType::u64;
  c.u = v;
  return c;
}
Cell D(double v) {
  Cell c;
  c.type = CellType::f64;
  c.f = v;
  return c;
}
Cell S(std::string_view v) {
  Cell c;
  c.type = CellType::str;
  c.s = v;
  return c;
}
Cell L(const std::vector<std::string>* v, std::string_view encoded) {
  Cell c;
  c.type = CellType::list;
  c.list = v;
  c.s = encoded;
  return c;
}

// One cell through a row writer (inline: a putter's cell type folds to one writer call).
[[gnu::always_inline]] inline void write_cell(const Cell& c, RowWriter& w) {
  switch (c.type) {
    case CellType::absent:
      w.skip();
      return;
    case CellType::null:
      w.null();
      return;
    case CellType::boolean:
      w.boolean(c.b);
      return;
    case CellType::u64:
      w.u64(c.u);
      return;
    case CellType::f64:
      w.f64(c.f);
      return;
    case CellType::str:
      w.str(c.s);
      return;
    case CellType::list:
      if (!c.s.empty()) {
        w.segment(c.s, 1);
        return;
      }
      thread_local std::vector<std::string_view> items;
      items.assign(c.list->begin(), c.list->end());
      w.strs(items.data(), items.size());
      return;
  }
}

double r2(double v) {
  return std::round(v * 100) / 100;
}
// A price or amount that is 0 when unknown: null then.
Cell opt(double v) {
  return v > 0 ? D(v) : N();
}
ojson opt_json(double v) {
  return v > 0 ? ojson(v) : ojson();
}

const Plan& P(const Row& r) {
  return *r.plan;
}
const Estimate& E(const Row& r) {
  return r.plan->estimate;
}
const ModelSpec& M(const Row& r) {
  return r.model->spec;
}
const RunConfig& C(const Row& r) {
  return r.plan->config;
}
const GpuPlan* G(const Row& r) {
  return r.plan->gpu ? &*r.plan->gpu : nullptr;
}
const Offload* O(const Row& r) {
  return r.plan->offload ? &*r.plan->offload : nullptr;
}
// The machine's rated power (null without a machine, or a whole computer without a published
// figure).
const PowerPlan* W(const Row& r) {
  return r.plan->power ? &*r.plan->power : nullptr;
}
// llama.cpp's vision projector, a GGUF of its own beside the language model's (a checkpoint
// engine loads the vision tower from the model's own files).
uint64_t mmproj_bytes(const Row& r) {
  const Estimate& e = r.plan->estimate;
  const Engine g = C(r).engine;
  return g == Engine::llama_cpp || g == Engine::ollama ? e.weights.vision_bytes : 0;
}
// A generating model (not an embedding or rerank run): decode figures apply.
bool GEN(const Row& r) {
  return r.model->spec.task == Task::generation;
}
const Speed* SP(const Row& r) {
  return r.plan->speed ? &*r.plan->speed : nullptr;
}
const CapacityPlan* CP(const Row& r) {
  return r.plan->capacity ? &*r.plan->capacity : nullptr;
}
// #10: the serving block (null fields when the plan has none).
const ServingPlan* SV(const Row& r) {
  return r.plan->serving ? &*r.plan->serving : nullptr;
}
const ServingEstimate* SE(const Row& r) {
  return r.plan->serving ? &r.plan->serving->estimate : nullptr;
}
const ServingCapacity* SC(const Row& r) {
  return r.plan->serving && r.plan->serving->capacity ? &*r.plan->serving->capacity : nullptr;
}
double r3(double v) {
  return std::round(v * 1000) / 1000;
}
double r4(double v) {
  return std::round(v * 10000) / 10000;
}
double r5(double v) {
  return std::round(v * 1e5) / 1e5;
}
// The machine from the platform catalog; null when none takes the GPUs.
const SystemPlan* SY(const Row& r) {
  return r.plan->system && r.plan->system->platform ? &*r.plan->system : nullptr;
}
const PlatformModel* PM(const Row& r) {
  return SY(r) ? SY(r)->platform : nullptr;
}
const FitVerdict* FV(const Row& r) {
  return r.plan->fit ? &*r.plan->fit : nullptr;
}
// The cost of the machine's BOM (null without a machine).
const CostPlan* CC(const Row& r) {
  return r.plan->cost ? &*r.plan->cost : nullptr;
}
const CostInput& CI(const Row& r) {
  return r.plan->cost_input;
}

// The replicas the memory estimate is one of: a serving deployment's (plan_replica_memory), else 1.
uint32_t replicas_of(const Row& r) {
  const ServingPlan* s = SV(r);
  return s && r.plan->gpu && s->deployment.gpus() == r.plan->gpu->count ? s->deployment.replicas
                                                                        : 1;
}

Cell class_count(const Row& r, size_t i) {
  const auto& c = P(r).classes;
  return i < c.size() && c[i].count ? U(c[i].count) : N();
}
// Load time (read + deserialize + copy to the GPUs) from local drive class i, the engine's loader;
// absent without a machine.
Cell load_time(const Row& r, size_t i) {
  const SystemPlan* s = r.plan->system && r.plan->system->platform ? &*r.plan->system : nullptr;
  return s && i < s->cold_start_by_drive.size() ? D(r2(s->cold_start_by_drive[i].load_s)) : A();
}

const char* mode_name(TrainMode m) {
  return m == TrainMode::full ? "full" : m == TrainMode::qlora ? "qlora" : "lora";
}

// Shorthands for the table: a getter of one expression over `r`.
// Shorthands for the table: a getter of one expression over `r`, and the same expression written
// straight through a row writer (the cell's type known where it is made: no Cell in between).
#define GETTER(expr)         \
  [](const Row& r) -> Cell { \
    (void)r;                 \
    return expr;             \
  }
#define PUTTER(expr)               \
  [](const Row& r, RowWriter& w) { \
    (void)r;                       \
    write_cell(expr, w);           \
  }
#define CELL(expr, scope) GETTER(expr), nullptr, scope, PUTTER(expr)
#define GET(expr) CELL(expr, Scope::row)
#define JSON(expr) nullptr, [](const Row& r) -> ojson { return expr; }
// A getter and its field's scope (fields.hpp Scope).
#define RUN(expr) CELL(expr, Scope::run)
#define PER_GPU(expr) CELL(expr, Scope::gpu)
#define SERVING(expr) CELL(expr, Scope::serving)
#define CAPACITY(expr) CELL(expr, Scope::capacity)

ojson tensor_types_json(const Row& r) {
  ojson types = ojson::array();
  for (const auto& u : E(r).weights.by_type)
    types.push_back({{"type", traits(u.type).name},
                     {"tensors", u.n_tensors},
                     {"elements", u.n_elements},
                     {"bytes", u.bytes}});
  return types;
}

ojson finetune_json(const Row& r) {
  const Plan& p = P(r);
  if (!p.train) return ojson(ojson::value_t::discarded);
  const auto& t = *p.train;
  return {{"mode", mode_name(p.train_config.mode)},
          {"trainable_params", t.trainable_params},
          {"weights_bytes", t.weights_bytes},
          {"gradients_bytes", t.gradients_bytes},
          {"optimizer_bytes", t.optimizer_bytes},
          {"activations_bytes", t.activations_bytes},
          {"total_bytes", t.total_bytes()},
          {"gpus", p.train_gpus ? ojson(p.train_gpus) : ojson()},
          {"gpus_fewest", p.train_gpus_fewest ? ojson(p.train_gpus_fewest) : ojson()},
          {"sharding", "fsdp"}};
}

ojson options_json(const Row& r) {
  ojson a = ojson::array();
  for (const auto& o : P(r).options)
    a.push_back({{"id", o.plan.gpu.id},
                 {"count", o.plan.count},
                 {"total_price_usd", opt_json(o.total_price_usd)},
                 {"price_complete", o.price_complete},
                 {"gpus_usd", opt_json(o.gpus_usd)},
                 {"machine_usd", opt_json(o.host_usd)},
                 {"platform", o.no_machine ? ojson() : ojson(o.platform)},
                 {"platform_id", o.no_machine ? ojson() : ojson(o.platform_id)},
                 {"machines", o.machines},
                 {"bought", o.bought},
                 {"per_gpu_bytes", o.plan.per_gpu_bytes},
                 {"split", option_split_words(o)},
                 {"tokens_per_s", opt_json(o.tokens_per_s)},
                 {"below_usable_speed", o.below_usable_speed},
                 {"max_wall_w", opt_json(o.max_wall_w)},
                 {"tco_usd", opt_json(o.tco_usd)}});
  return a;
}

ojson fewest_json(const Row& r) {
  ojson a = ojson::array();
  for (const auto& o : P(r).fewest)
    a.push_back({{"id", o.plan.gpu.id},
                 {"count", o.plan.count},
                 {"total_price_usd", opt_json(o.total_price_usd)}});
  return a;
}

ojson bom_json(const Row& r) {
  const SystemPlan* sy = SY(r);
  if (!sy) return ojson(ojson::value_t::discarded);
  ojson a = ojson::array();
  for (const auto& l : sy->bom()) {
    ojson spec = ojson::object();
    for (const auto& [k, v] : l.spec) spec[k] = v;
    a.push_back({{"component", to_string(l.component)},
                 {"part", l.part},
                 {"spec", std::move(spec)},
                 {"qty", l.qty},
                 {"unit_price_usd", l.included ? ojson() : opt_json(l.unit_price_usd)},
                 {"price_source", l.price_source.empty() ? ojson() : ojson(l.price_source)},
                 {"included_in", l.included ? ojson("platform") : ojson()},
                 {"why", to_string(l.reason)}});
  }
  return a;
}

ojson machine_json(const Row& r) {
  const Plan& p = P(r);
  if (!p.system) return ojson(ojson::value_t::discarded);
  const SystemPlan& s = *p.system;
  ojson reasons = ojson::array();
  for (auto x : s.choice.reasons) reasons.push_back(to_string(x));
  ojson rejected = ojson::array();
  for (const auto& x : s.choice.rejected) {
    ojson why = ojson::array();
    for (auto y : x.reasons) why.push_back(to_string(y));
    rejected.push_back({{"platform", x.platform_id}, {"reasons", std::move(why)}});
  }
  ojson j = {{"platform_id", s.platform ? ojson(s.platform->id) : ojson()},
             {"reasons", std::move(reasons)},
             {"rejected", std::move(rejected)}};
  if (!s.platform) return j;
  j["gpus_per_node"] = s.choice.gpus_per_node;
  j["nodes"] = s.choice.nodes;
  j["source"] = s.platform->source;
  ojson parts = {{"gpus_w", std::round(s.max_power.parts.gpus_w)},
                 {"baseboard_w", std::round(s.max_power.parts.baseboard_w)},
                 {"cpus_w", std::round(s.max_power.parts.cpus_w)},
                 {"memory_w", std::round(s.max_power.parts.memory_w)},
                 {"drives_w", std::round(s.max_power.parts.drives_w)},
                 {"nics_w", std::round(s.max_power.parts.nics_w)},
                 {"fans_w", std::round(s.max_power.parts.fans_w)},
                 {"board_w", std::round(s.max_power.parts.board_w)}};
  j["max_power_parts_dc_watts"] = std::move(parts);
  j["published_max_watts"] = opt_json(s.max_power.published_w);
  ojson circuits = ojson::array();
  for (const auto& c : s.circuits)
    circuits.push_back({{"volts", c.volts},
                        {"phases", c.phases},
                        {"breaker_amps", c.breaker_a},
                        {"continuous_watts", std::round(c.continuous_w)},
                        {"circuits", c.circuits},
                        {"outlet", c.outlet}});
  j["circuits"] = std::move(circuits);
  j["racks"] = {{"racks", s.racks.racks},
                {"rack_units", s.racks.rack_units},
                {"nodes_per_rack", s.racks.nodes_per_rack},
                {"kw_per_rack", r2(s.racks.kw_per_rack)},
                {"pdus", s.racks.pdus}};
  ojson steps = ojson::array();
  for (const auto& st : s.cold_start.steps)
    steps.push_back(
        {{"step", to_string(st.step)},
         {"seconds", r2(st.seconds)},
         {"rate_gb_per_s", st.rate_gb_per_s > 0 ? ojson(r2(st.rate_gb_per_s)) : ojson()},
         {"source", st.source}});
  j["cold_start"] = {{"storage", storage_spec(P(r).storage).name},
                     {"load_s", r2(s.cold_start.load_s)},
                     {"total_s", r2(s.cold_start.total_s)},
                     {"steps", std::move(steps)}};
  return j;
}

ojson explain_json(const Row& r) {
  if (!r.explain) return ojson(ojson::value_t::discarded);
  ojson ex = ojson::array();
  for (const auto& d : derivations(E(r), M(r), C(r)))
    ex.push_back({{"quantity", d.quantity}, {"formula", d.formula}, {"result", d.result}});
  return ex;
}

using U_ = Unit;

const std::vector<Field> kFields = {
    {"schema_version", U_::count,
     "2 (power, cost and load times from the machine model; README \"Schema version 2\"); a "
     "field whose meaning changes moves to a new version",
     RUN(U(kPlanSchemaVersion))},
    // model
    {"model.name", U_::text, "the model's name", RUN(S(M(r).name))},
    {"model.id", U_::text, "catalog id; null for a file or generic size",
     RUN(M(r).id.empty() ? N() : S(M(r).id))},
    {"model.source", U_::text, "catalog, shorthand, generic, config.json, gguf or safetensors",
     RUN(S(r.model->source))},
    {"model.assumed", U_::text,
     "what a shorthand or generic size was taken to mean, or a quantization_config llmsize does "
     "not size; else null",
     RUN(r.model->assumption.empty() ? N() : S(r.model->assumption))},
    {"model.arch", U_::text, "architecture", RUN(S(arch_name(M(r).arch)))},
    {"model.params", U_::count, "parameters", RUN(U(E(r).weights.params))},
    {"model.active_params", U_::count, "parameters read per token (< params for MoE)",
     RUN(U(E(r).weights.active_params))},
    {"model.weights_bytes", U_::bytes,
     "the weights at the quantization: a GGUF file's tensor data (llama.cpp: the language model's "
     "file, without its mmproj)",
     RUN(U(E(r).weights.bytes - mmproj_bytes(r)))},
    {"model.mmproj_bytes", U_::bytes,
     "llama.cpp: the vision projector's own GGUF (F16), null without one",
     RUN(mmproj_bytes(r) ? U(mmproj_bytes(r)) : N())},
    {"model.bits_per_weight", U_::bits_per_weight, "weights_bytes × 8 / params",
     RUN(D(r4(E(r).weights.bits_per_weight())))},
    {"model.n_layer", U_::count, "layers", RUN(U(M(r).n_layer))},
    {"model.n_embd", U_::count, "hidden size", RUN(U(M(r).n_embd))},
    {"model.n_head", U_::count, "attention heads", RUN(U(M(r).n_head))},
    {"model.n_head_kv", U_::count, "KV heads", RUN(U(M(r).n_head_kv))},
    {"model.n_ctx_train", U_::tokens, "trained context", RUN(U(M(r).n_ctx_train))},
    {"model.tensor_types", U_::none, "per tensor type: type, tensors, elements, bytes (JSON only)",
     JSON(tensor_types_json(r))},
    // settings
    {"settings.quant", U_::text, "the quantization preset used", RUN(S(r.quant->id))},
    {"settings.quant_requested", U_::text, "as typed (q4 means q4_k_m)", RUN(S(r.quant_requested))},
    {"settings.kv_quant", U_::text, "KV cache type", RUN(S(traits(C(r).kv.type_k).name))},
    {"settings.context", U_::tokens, "context per sequence", GET(U(C(r).kv.n_ctx))},
    {"settings.batch", U_::count, "concurrent sequences", RUN(U(C(r).kv.n_seq))},
    {"settings.task", U_::text, "generation, embedding or rerank (--task)",
     RUN(S(task_name(M(r).task)))},
    {"settings.ubatch", U_::tokens, "micro-batch (n_ubatch)", RUN(U(C(r).kv.n_ubatch))},
    {"settings.flash_attn", U_::boolean, "flash attention", RUN(B(C(r).flash_attn))},
    {"settings.headroom", U_::fraction,
     "added on top of the sum (a serving plan: its engine's rule, when that asks more)",
     GET(D(C(r).headroom))},
    {"settings.overhead_bytes_per_gpu", U_::bytes, "runtime overhead per GPU",
     RUN(U(C(r).overhead_per_gpu_bytes))},
    {"settings.engine", U_::text, "whose memory rules apply (a serving plan: its engine)",
     RUN(S(SV(r) ? engine_profile(SV(r)->deployment.engine).name
                 : engine_profile(C(r).engine).name))},
    // vram
    {"vram.weights_bytes", U_::bytes, "weights held in GPU memory under the engine's rules",
     GET(U(E(r).weights_bytes))},
    {"vram.weights_host_bytes", U_::bytes, "weights the engine keeps in host RAM",
     RUN(U(E(r).weights.host_bytes))},
    {"vram.kv_cache_bytes", U_::bytes,
     "KV cache of every sequence (a serving deployment: of one replica's running sequences)",
     GET(U(E(r).kv_cache_bytes))},
    {"vram.kv_full_bytes", U_::bytes, "KV cache of the full-attention layers",
     GET(U(E(r).kv.bytes_of(AttnKind::full)))},
    {"vram.kv_swa_bytes", U_::bytes, "KV cache of the sliding-window layers",
     GET(U(E(r).kv.bytes_of(AttnKind::swa)))},
    {"vram.kv_chunked_bytes", U_::bytes, "KV cache of the chunked-attention layers",
     GET(U(E(r).kv.bytes_of(AttnKind::chunked)))},
    {"vram.kv_mla_bytes", U_::bytes, "KV cache of the MLA layers (latent)",
     GET(U(E(r).kv.bytes_of(AttnKind::mla)))},
    {"vram.kv_indexer_bytes", U_::bytes, "DSA indexer keys beside the MLA cache",
     GET(U(E(r).kv.bytes_of(AttnKind::mla, true)))},
    {"vram.recurrent_state_bytes", U_::bytes,
     "recurrent state (delta-net, Mamba2, short conv): per sequence, any context",
     GET(U(E(r).recurrent_state_bytes))},
    {"vram.activations_bytes", U_::bytes, "compute buffers of all GPUs",
     GET(U(E(r).activations_bytes))},
    {"vram.draft_bytes", U_::bytes,
     "llama.cpp's draft model (--draft, -md): its weights, KV cache and compute buffers",
     GET(U(E(r).draft_bytes))},
    {"vram.overhead_bytes", U_::bytes, "runtime overhead × GPUs", GET(U(E(r).overhead_bytes))},
    {"vram.headroom_bytes", U_::bytes, "headroom on the sum", GET(U(E(r).headroom_bytes))},
    {"vram.total_bytes", U_::bytes,
     "weights + KV + recurrent state + activations + overhead + headroom",
     GET(U(E(r).total_bytes()))},
    {"vram.total_bytes_low", U_::bytes, "low end from each part's measured error",
     GET(U(E(r).total_low_bytes))},
    {"vram.total_bytes_high", U_::bytes, "high end", GET(U(E(r).total_high_bytes))},
    {"vram.kv_cells", U_::count, "KV cells per full-attention layer", GET(U(E(r).kv.cells_full))},
    {"vram.kv_cells_swa", U_::count, "KV cells per sliding-window layer",
     GET(U(E(r).kv.cells_swa))},
    {"vram.compute_buffer_bytes_per_gpu", U_::bytes,
     "compute buffer of one GPU (a layer split's largest)", GET(U(E(r).compute.bytes()))},
    {"vram.compute_buffer_bytes_first_gpu", U_::bytes,
     "compute buffer of the layer split's first GPU (its first layers)",
     GET(U(E(r).compute_split.devices.empty()
               ? E(r).compute.bytes()
               : E(r).compute_split.devices.front().buffer.bytes()))},
    {"vram.compute_weight_copy_bytes", U_::bytes,
     "of the first GPU's compute buffer: a weight in system RAM copied in per prompt batch "
     "(llama.cpp op offload, --n-cpu-moe)",
     GET(U(E(r).compute_split.devices.empty()
               ? E(r).compute.weight_copy_bytes
               : E(r).compute_split.devices.front().buffer.weight_copy_bytes))},
    {"vram.compute_buffer_bytes_last_gpu", U_::bytes,
     "compute buffer of the layer split's GPU with the output layer (logits), the last",
     GET(U(E(r).compute_split.devices.empty()
               ? E(r).compute.bytes()
               : E(r).compute_split.devices[E(r).compute_split.output_device()].buffer.bytes()))},
    {"vram.kv_available_bytes", U_::bytes,
     "KV memory left on the GPUs (a serving deployment: its engine's KV pool on every GPU)",
     GET(G(r) ? U(P(r).kv_available_bytes) : N())},
    {"vram.gpus", U_::count,
     "GPUs the estimate counts buffers and overhead on (a serving deployment: one replica's)",
     GET(U(E(r).n_gpus))},
    {"vram.replicas", U_::count,
     "copies of what vram.* counts: a serving deployment's replicas, each holding the weights "
     "and its own sequences (1 otherwise)",
     GET(U(replicas_of(r)))},
    {"vram.rule_of_thumb_bytes", U_::bytes, "1.2 × weights, for comparison",
     RUN(U(E(r).naive_rule_bytes))},
    // gpu
    {"gpu.name", U_::text, "GPU", PER_GPU(G(r) ? S(G(r)->gpu.name) : N())},
    {"gpu.id", U_::text, "catalog id", PER_GPU(G(r) ? S(G(r)->gpu.id) : N())},
    {"gpu.recommended", U_::boolean, "llmsize chose it (no --gpu)",
     PER_GPU(B(P(r).gpu_recommended))},
    {"gpu.count", U_::count, "GPUs of the plan", GET(G(r) ? U(G(r)->count) : N())},
    {"gpu.count_needed", U_::count, "fewest that hold it (0: none up to 1024)",
     GET(G(r) ? U(G(r)->count_needed) : N())},
    {"gpu.memory_bytes_each", U_::bytes, "memory of one GPU",
     PER_GPU(G(r) ? U(G(r)->gpu.memory_bytes) : N())},
    {"gpu.usable_bytes_each", U_::bytes,
     "usable memory of one GPU, as the fit verdict holds it (vLLM, SGLang, TensorRT-LLM: the "
     "total the CUDA / HIP runtime reports, where published)",
     PER_GPU(G(r) ? U(r.plan->usable_bytes_each()) : N())},
    {"gpu.per_gpu_bytes", U_::bytes, "what each GPU must hold, headroom included",
     GET(G(r) ? U(G(r)->per_gpu_bytes) : N())},
    {"gpu.fits", U_::boolean, "the GPUs hold it", GET(G(r) ? B(G(r)->fits) : N())},
    {"gpu.fit", U_::text,
     "fits (with the requested headroom), tight (without it, inside the engine's margins) or no",
     GET(FV(r) ? S(to_string(FV(r)->fit)) : N())},
    {"gpu.headroom_fraction", U_::fraction,
     "(usable - need) / need per GPU, need without headroom; negative when it does not fit",
     GET(FV(r) ? D(r4(FV(r)->headroom_fraction)) : N())},
    {"gpu.engine_margin_fraction", U_::fraction,
     "the slack the engine itself needs beyond the need (a share of it), the line between tight "
     "and no: its own allocation rule (llama.cpp exact, Ollama 457 MiB, vLLM 0.9 of memory, "
     "SGLang mem_fraction_static, TensorRT-LLM 0.9 of free) plus the estimate's error",
     GET(FV(r) ? D(r4(FV(r)->engine_margin)) : N())},
    {"gpu.split", U_::text, "single GPU, layer split, tensor parallel, replicas",
     GET(G(r) ? S(r.split) : N())},
    {"gpu.tp_degree", U_::count, "smallest tensor-parallel degree dividing the heads",
     GET(G(r) && G(r)->tp_degree ? U(G(r)->tp_degree) : N())},
    {"gpu.nodes", U_::count, "machines: the catalog machine's count where one is planned",
     GET(G(r) ? U(G(r)->nodes) : N())},
    {"gpu.interconnect", U_::text, "the link to buy", GET(G(r) ? S(r.link) : N())},
    {"gpu.price_usd_each", U_::usd, "catalog or --price price",
     PER_GPU(G(r) ? opt(G(r)->gpu.price_usd) : N())},
    {"gpu.offload_layers_gpu", U_::count, "layers on the GPUs when offloading",
     GET(O(r) ? U(O(r)->n_layer_gpu) : N())},
    {"gpu.offload_layers_cpu", U_::count, "layers in system RAM",
     GET(O(r) ? U(O(r)->n_layer_cpu) : N())},
    {"gpu.offload_ram_bytes", U_::bytes,
     "weights and KV of those layers, and the routed experts kept in RAM",
     GET(O(r) ? U(O(r)->ram_bytes + O(r)->expert_ram_bytes) : N())},
    {"gpu.offload_cpu_moe", U_::count,
     "blocks whose routed experts are in system RAM instead (llama.cpp --n-cpu-moe N)",
     GET(O(r) && O(r)->n_cpu_moe ? U(O(r)->n_cpu_moe) : N())},
    {"gpu.offload_ram_read_bytes_per_token", U_::bytes,
     "of them, read from system RAM per generated token",
     GET(O(r) && O(r)->n_cpu_moe ? U(O(r)->ram_read_bytes_per_token) : N())},
    {"gpu.count_24gib", U_::count, "GPUs of 24 GiB that hold it", GET(class_count(r, 0))},
    {"gpu.count_48gib", U_::count, "of 48 GiB", GET(class_count(r, 1))},
    {"gpu.count_80gib", U_::count, "of 80 GiB", GET(class_count(r, 2))},
    // system
    {"system.platform", U_::text,
     "desktop, workstation, server or unified: the class of the catalog platform chosen (null "
     "where none takes the GPUs)",
     GET(PM(r) ? S(to_string(PM(r)->platform_class)) : N())},
    {"system.platform_name", U_::text, "the machine to buy (data/platforms.json)",
     GET(PM(r) ? S(PM(r)->name) : N())},
    {"system.platform_id", U_::text, "its catalog id (--platform)",
     GET(PM(r) ? S(PM(r)->id) : N())},
    {"system.platform_generic", U_::boolean,
     "a generic platform row (no sourced catalog machine takes the GPUs), not a vendor's machine",
     GET(PM(r) ? B(PM(r)->generic) : N())},
    {"system.platform_basis", U_::text, "a generic row's basis: where its numbers come from",
     GET(PM(r) && PM(r)->generic ? S(PM(r)->basis) : N())},
    {"system.nodes", U_::count, "machines of that platform",
     GET(SY(r) ? U(SY(r)->choice.nodes) : N())},
    {"system.cpu_sockets", U_::count, "CPU sockets per machine",
     GET(SY(r) ? U(SY(r)->host.cpu_sockets) : N())},
    {"system.ram_bytes", U_::bytes,
     "RAM installed per machine: the catalog machine's population (the larger of 2 x weights and "
     "what its class ships per GPU)",
     GET(SY(r) ? U(SY(r)->host.ram.installed_bytes) : N())},
    {"system.ram_required_bytes", U_::bytes,
     "RAM needed per machine: the larger of 2 x weights and what the class ships per GPU",
     GET(SY(r) ? U(SY(r)->host.ram.required_bytes) : N())},
    {"system.ram_dimms", U_::count, "DIMMs per machine",
     GET(SY(r) ? U(SY(r)->host.ram.dimms) : N())},
    {"system.ram_dimm_gib", U_::gib, "size of one DIMM",
     GET(SY(r) ? U(SY(r)->host.ram.dimm_gib) : N())},
    {"system.storage_bytes", U_::bytes, "storage needed",
     GET(SY(r) ? U(SY(r)->host.storage.required_bytes) : N())},
    {"system.data_drive_bytes", U_::bytes, "one data drive",
     GET(SY(r) ? U(SY(r)->host.storage.data_drive_bytes) : N())},
    {"system.data_drives", U_::count, "data drives per machine",
     GET(SY(r) ? U(SY(r)->host.storage.data_drives) : N())},
    {"system.os_drive_bytes", U_::bytes, "one OS drive (two in RAID 1 on servers)",
     GET(SY(r) ? U(SY(r)->host.storage.os_drive_bytes) : N())},
    {"system.load_time_s", U_::seconds,
     "v2: weights read, deserialized and copied to the GPUs from --storage by the engine's loader "
     "(cold_start load_s; v1: the NVMe PCIe 4.0 drive's sequential read alone)",
     GET(SY(r) ? D(r2(SY(r)->cold_start.load_s)) : N())},
    {"system.load_time_s_hdd_7200_rpm", U_::seconds,
     "v2: the same load from a 7200 rpm disk (absent without host)", GET(load_time(r, 0))},
    {"system.load_time_s_sata_ssd", U_::seconds, "from a SATA SSD", GET(load_time(r, 1))},
    {"system.load_time_s_nvme_pcie_3_0", U_::seconds, "from NVMe PCIe 3.0", GET(load_time(r, 2))},
    {"system.load_time_s_nvme_pcie_4_0", U_::seconds, "from NVMe PCIe 4.0", GET(load_time(r, 3))},
    {"system.load_time_s_nvme_pcie_5_0", U_::seconds, "from NVMe PCIe 5.0", GET(load_time(r, 4))},
    {"system.cpu_cores", U_::count, "CPU cores per machine, all sockets",
     GET(SY(r) && SY(r)->host.cpu_cores ? U(SY(r)->host.cpu_cores) : N())},
    {"system.cold_start_s", U_::seconds, "process start to serving, every step (--storage)",
     GET(SY(r) ? D(r2(SY(r)->cold_start.total_s)) : N())},
    {"system.bom_total_usd", U_::usd,
     "sum of the priced BOM lines (a floor when some are unpriced)",
     GET(SY(r) ? opt(std::round(SY(r)->bom_total_usd)) : N())},
    {"system.pcie_lanes", U_::count,
     "PCIe lanes wired to the GPUs of one machine: the platform's lanes per GPU x GPUs per machine "
     "(null for baseboard modules and whole computers)",
     GET(SY(r) && SY(r)->choice.lanes_per_gpu
             ? U(SY(r)->choice.lanes_per_gpu * SY(r)->choice.gpus_per_node)
             : N())},
    {"system.ram_bandwidth_gb_per_s", U_::gb_per_s, "RAM bandwidth offloaded layers are read at",
     GET(P(r).ram_bandwidth_gb_per_s > 0 ? D(r2(P(r).ram_bandwidth_gb_per_s)) : N())},
    // power
    {"power.peak_watts", U_::watts,
     "DC load at full tilt, all machines (v2: the rated model's DC maximum)",
     GET(W(r) ? D(std::round(W(r)->peak_w)) : N())},
    {"power.max_wall_watts", U_::watts,
     "maximum at the wall as vendors rate it, all machines: circuits and cooling",
     GET(SY(r) ? opt(std::round(SY(r)->max_wall_w_total)) : N())},
    {"power.typical_wall_watts", U_::watts,
     "typical draw under the workload (decode at the batch, prefill bursts, idle), all machines",
     GET(SY(r) ? opt(std::round(SY(r)->typical_wall_w_total)) : N())},
    {"power.psu_watts", U_::watts, "rating of one PSU (null when the platform's is unrated)",
     GET(SY(r) && SY(r)->psus.watts > 0 ? D(SY(r)->psus.watts) : N())},
    {"power.psu_count", U_::count,
     "PSUs per machine, spares included (null when the platform's are not published)",
     GET(SY(r) && SY(r)->psus.count ? U(SY(r)->psus.count) : N())},
    {"power.psu_redundancy", U_::text,
     "PSUs carrying the load + spares (\"4+2\"), or none (null when not published)",
     GET(SY(r) && SY(r)->psus.count && !P(r).psu_redundancy.empty() ? S(P(r).psu_redundancy)
                                                                    : N())},
    {"power.wall_watts", U_::watts, "AC draw at peak (v2: = max_wall_watts)",
     GET(W(r) ? D(std::round(W(r)->wall_w)) : N())},
    {"power.mains_volts", U_::volts, "mains voltage", RUN(D(P(r).power_input.mains_v))},
    {"power.circuit_amps", U_::amps, "current at the mains voltage",
     GET(W(r) ? D(r2(W(r)->amps)) : N())},
    {"power.fits_ordinary_outlet", U_::boolean, "one ordinary outlet carries it",
     GET(W(r) ? B(W(r)->fits_outlet) : N())},
    {"power.circuit", U_::text, "circuit advice", GET(W(r) ? S(r.circuit) : N())},
    {"power.heat_watts", U_::watts, "heat to remove",
     GET(W(r) ? D(std::round(W(r)->wall_w)) : N())},
    {"power.heat_btu_per_hour", U_::btu_per_hour, "heat to remove",
     GET(W(r) ? D(std::round(W(r)->heat_btu_per_h)) : N())},
    {"power.energy_kwh_per_year", U_::kwh_per_year,
     "typical draw busy at the duty cycle, idle the rest",
     GET(W(r) ? D(std::round(W(r)->energy_kwh_per_year)) : N())},
    {"power.basis", U_::text,
     "machine (the catalog machine's power model), generic (a generic platform row's: no sourced "
     "machine takes the GPUs; system.platform_basis says where its numbers come from); null "
     "without power (no platform takes the GPUs, or a whole computer without a published figure)",
     GET(power_basis(P(r)) != FigureBasis::none ? S(to_string(power_basis(P(r)))) : N())},
    // throughput
    {"throughput.decode_tokens_per_s", U_::tokens_per_s,
     "decode speed per sequence (null for embedding and rerank)",
     GET(SP(r) && GEN(r) ? D(r2(SP(r)->decode_tokens_per_s)) : N())},
    {"throughput.decode_tokens_per_s_low", U_::tokens_per_s, "its calibration's low end",
     GET(SP(r) && GEN(r) ? D(r2(SP(r)->decode_low)) : N())},
    {"throughput.decode_tokens_per_s_high", U_::tokens_per_s, "high end",
     GET(SP(r) && GEN(r) ? D(r2(SP(r)->decode_high)) : N())},
    {"throughput.aggregate_tokens_per_s", U_::tokens_per_s,
     "all sequences (and replicas) together: the figure the table prints and cost per token "
     "divides by (a serving plan: its output_tokens_per_s)",
     GET(SP(r) && GEN(r) ? D(r2(SP(r)->aggregate_tokens_per_s)) : N())},
    {"throughput.documents_per_s", U_::documents_per_s,
     "embedding / rerank: documents of settings.context tokens encoded per second (prefill)",
     GET(SP(r) && !GEN(r) ? D(r2(SP(r)->documents_per_s)) : N())},
    {"throughput.documents_per_s_low", U_::documents_per_s, "low end",
     GET(SP(r) && !GEN(r) ? D(r2(SP(r)->documents_low)) : N())},
    {"throughput.documents_per_s_high", U_::documents_per_s, "high end",
     GET(SP(r) && !GEN(r) ? D(r2(SP(r)->documents_high)) : N())},
    {"throughput.batch_s", U_::seconds,
     "embedding / rerank: time of one batch of settings.batch "
     "documents",
     GET(SP(r) && !GEN(r) ? D(r3(SP(r)->batch_s)) : N())},
    {"throughput.prefill_tokens_per_s", U_::tokens_per_s, "prompt processing",
     GET(SP(r) ? D(std::round(SP(r)->prefill_tokens_per_s)) : N())},
    {"throughput.prefill_tokens_per_s_low", U_::tokens_per_s, "low end",
     GET(SP(r) ? D(std::round(SP(r)->prefill_low)) : N())},
    {"throughput.prefill_tokens_per_s_high", U_::tokens_per_s, "high end",
     GET(SP(r) ? D(std::round(SP(r)->prefill_high)) : N())},
    {"throughput.time_to_first_token_s", U_::seconds,
     "for the prompt (a serving plan: its ttft_s, queueing included; null when overloaded)",
     GET(SP(r) && !(SE(r) && SE(r)->overloaded) ? D(r3(SP(r)->time_to_first_token_s)) : N())},
    {"throughput.prompt_tokens", U_::tokens, "prompt length",
     RUN(U(P(r).speed_input.prompt_tokens))},
    {"throughput.max_concurrent_sequences", U_::count, "sequences of the context that fit",
     GET(G(r) ? U(P(r).max_concurrent_sequences) : N())},
    {"throughput.calibration", U_::text, "speed calibration family",
     PER_GPU(SP(r) ? S(SP(r)->calibration->family) : N())},
    // One capacity plan (#20): a layer split's replicas (plan_capacity) or a serving engine's
    // search (throughput.serving_capacity_* adds its own figures).
    {"throughput.users", U_::count, "--users of a capacity plan",
     CAPACITY(CP(r)   ? U(CP(r)->users)
              : SC(r) ? U(SV(r)->workload.users)
                      : N())},
    {"throughput.target_tokens_per_s", U_::tokens_per_s,
     "--target-tps (a serving plan sized for --users alone: the usable speed)",
     CAPACITY(CP(r)   ? D(CP(r)->target_tokens_per_s)
              : SC(r) ? D(SV(r)->capacity_target_tokens_per_s)
                      : N())},
    {"throughput.capacity_gpus", U_::count, "GPUs the capacity plan needs",
     CAPACITY(CP(r) && CP(r)->gpus    ? U(CP(r)->gpus)
              : SC(r) && SC(r)->found ? U(SC(r)->gpus)
                                      : N())},
    {"throughput.capacity_tp_degree", U_::count, "GPUs per replica",
     CAPACITY(CP(r) && CP(r)->gpus    ? U(CP(r)->tp_degree)
              : SC(r) && SC(r)->found ? U(SC(r)->deployment.tp * SC(r)->deployment.pp)
                                      : N())},
    {"throughput.capacity_replicas", U_::count, "replicas",
     CAPACITY(CP(r) && CP(r)->gpus    ? U(CP(r)->replicas)
              : SC(r) && SC(r)->found ? U(SC(r)->deployment.replicas)
                                      : N())},
    {"throughput.capacity_limited_by", U_::text,
     "memory, speed, or why unreachable (a serving search: what stops one more user, or "
     "unreachable)",
     CAPACITY(CP(r)   ? S(r.capacity_limited_by)
              : SC(r) ? S(SC(r)->found ? limit_name(SC(r)->binding) : "unreachable")
                      : N())},
    // throughput of a serving plan (#10: --engine vllm|sglang|trt-llm, or --isl/--osl/--rate/...)
    {"throughput.engine", U_::text, "serving engine whose step model and calibration apply",
     SERVING(SV(r) ? S(engine_profile(SV(r)->deployment.engine).name) : N())},
    {"throughput.isl", U_::tokens, "tokens in per request (--isl)",
     SERVING(SV(r) ? U(SV(r)->workload.isl) : N())},
    {"throughput.osl", U_::tokens, "tokens out per request (--osl)",
     SERVING(SV(r) ? U(SV(r)->workload.osl) : N())},
    {"throughput.output_tokens_per_s", U_::tokens_per_s,
     "aggregate output tokens/s of every replica (serving step model)",
     SERVING(SE(r) ? D(r2(SE(r)->output_tokens_per_s.value)) : N())},
    {"throughput.output_tokens_per_s_low", U_::tokens_per_s, "its calibration's low end",
     SERVING(SE(r) ? D(r2(SE(r)->output_tokens_per_s.low)) : N())},
    {"throughput.output_tokens_per_s_high", U_::tokens_per_s, "high end",
     SERVING(SE(r) ? D(r2(SE(r)->output_tokens_per_s.high)) : N())},
    {"throughput.per_user_tokens_per_s", U_::tokens_per_s, "one user's decode speed (1 / ITL)",
     SERVING(SE(r) ? D(r2(SE(r)->per_user_tokens_per_s.value)) : N())},
    {"throughput.per_user_tokens_per_s_low", U_::tokens_per_s, "low end",
     SERVING(SE(r) ? D(r2(SE(r)->per_user_tokens_per_s.low)) : N())},
    {"throughput.per_user_tokens_per_s_high", U_::tokens_per_s, "high end",
     SERVING(SE(r) ? D(r2(SE(r)->per_user_tokens_per_s.high)) : N())},
    {"throughput.ttft_s", U_::seconds,
     "mean time to first token, queueing included (null when overloaded)",
     SERVING(SE(r) && !SE(r)->overloaded ? D(r3(SE(r)->ttft_s.value)) : N())},
    {"throughput.ttft_s_low", U_::seconds, "low end",
     SERVING(SE(r) && !SE(r)->overloaded ? D(r3(SE(r)->ttft_s.low)) : N())},
    {"throughput.ttft_s_high", U_::seconds, "high end",
     SERVING(SE(r) && !SE(r)->overloaded ? D(r3(SE(r)->ttft_s.high)) : N())},
    {"throughput.ttft_p90_s", U_::seconds,
     "90th percentile TTFT over the requests (the queue's tail; a closed loop's first wave "
     "among them)",
     SERVING(SE(r) && !SE(r)->overloaded ? D(r3(SE(r)->ttft_p90_s)) : N())},
    {"throughput.ttft_p99_s", U_::seconds, "99th percentile TTFT, the same way",
     SERVING(SE(r) && !SE(r)->overloaded ? D(r3(SE(r)->ttft_p99_s)) : N())},
    {"throughput.ttft_first_wave_s", U_::seconds,
     "the first wave's share of ttft_s: every user's first request at once, its wait beyond the "
     "steady one over requests_per_user",
     SERVING(SE(r) && !SE(r)->overloaded ? D(r3(SE(r)->first_wave_s)) : N())},
    {"throughput.request_overhead_s", U_::seconds,
     "the engine's time per request outside the GPU steps (front end, tokenization, first "
     "token's return), in ttft_s",
     SERVING(SE(r) ? D(r3(SE(r)->request_overhead_s)) : N())},
    {"throughput.requests_per_user", U_::count,
     "each user's requests in the closed loop (--requests-per-user; null under --rate)",
     SERVING(SV(r) && SV(r)->workload.rate_per_s <= 0 ? U(SV(r)->workload.requests_per_user)
                                                      : N())},
    {"throughput.overloaded", U_::boolean,
     "--rate exceeds what the deployment completes: the queue grows without bound",
     SERVING(SE(r) && SE(r)->fits ? B(SE(r)->overloaded) : N())},
    {"throughput.sustainable_requests_per_s", U_::count,
     "when overloaded: the most requests/s the deployment completes (null otherwise)",
     SERVING(SE(r) && SE(r)->overloaded ? D(r3(SE(r)->sustainable_requests_per_s)) : N())},
    {"throughput.itl_s", U_::seconds, "mean inter-token latency",
     SERVING(SE(r) ? D(r5(SE(r)->itl_s.value)) : N())},
    {"throughput.itl_p90_s", U_::seconds, "90th percentile inter-token latency",
     SERVING(SE(r) ? D(r5(SE(r)->itl_p90_s)) : N())},
    {"throughput.requests_per_s", U_::count, "requests completed per second",
     SERVING(SE(r) ? D(r3(SE(r)->requests_per_s)) : N())},
    {"throughput.concurrency", U_::count, "sequences running per replica",
     SERVING(SE(r) ? U(SE(r)->concurrency) : N())},
    {"throughput.queued", U_::count,
     "requests waiting per replica (beyond max concurrency); null when overloaded (growing)",
     SERVING(SE(r) && !SE(r)->overloaded ? U(SE(r)->queued) : N())},
    {"throughput.max_concurrency", U_::count,
     "sequences one replica admits, KV charged as throughput.kv_charged says",
     SERVING(SE(r) ? U(SE(r)->max_concurrency) : N())},
    {"throughput.max_concurrency_guarantee", U_::count,
     "sequences one replica holds at max_model_len each",
     SERVING(SE(r) ? U(SE(r)->max_concurrency_guarantee) : N())},
    {"throughput.limited_by", U_::text,
     "what bounds the step: memory, compute, bandwidth, link, host, batch, ttft, tpot, overload",
     SERVING(SE(r) ? S(limit_name(SE(r)->limited_by)) : N())},
    {"throughput.meets_ttft", U_::boolean,
     "TTFT at --slo-percentile (the mean by default) meets --ttft-ms (true without one)",
     SERVING(SE(r) ? B(SE(r)->meets_ttft) : N())},
    {"throughput.meets_tpot", U_::boolean,
     "ITL at --slo-percentile (the mean by default) meets --tpot-ms (true without one)",
     SERVING(SE(r) ? B(SE(r)->meets_tpot) : N())},
    {"throughput.fits", U_::boolean, "weights and one sequence fit the engine's KV pool",
     SERVING(SE(r) ? B(SE(r)->fits) : N())},
    {"throughput.kv_dtype", U_::text, "KV cache element type",
     SERVING(SV(r) ? S(kv_dtype_name(SV(r)->deployment.kv)) : N())},
    {"throughput.kv_cache_tokens", U_::count,
     "tokens one replica's KV pool holds (vLLM's 'GPU KV cache size: N tokens')",
     SERVING(SE(r) ? U(SE(r)->kv_cache_tokens) : N())},
    {"throughput.max_concurrency_at_max_model_len", U_::count,
     "the pool over one max_model_len request (vLLM's 'Maximum concurrency for L tokens per "
     "request: C x')",
     SERVING(SE(r) ? D(r3(SE(r)->max_concurrency_at_max_model_len)) : N())},
    {"throughput.kv_pool_bytes_per_gpu", U_::bytes, "KV pool of one GPU under the engine's rule",
     SERVING(SE(r) ? U(SE(r)->kv_pool_bytes_per_gpu) : N())},
    {"throughput.kv_bytes_per_seq_planning", U_::bytes,
     "KV of a sequence holding isl + osl / 2 tokens (the mean)",
     SERVING(SE(r) ? U(SE(r)->kv_bytes_per_seq) : N())},
    {"throughput.kv_bytes_per_seq_guarantee", U_::bytes, "KV of a sequence at max_model_len",
     SERVING(SE(r) ? U(SE(r)->kv_bytes_per_seq_guarantee) : N())},
    {"throughput.kv_charged", U_::text,
     "planning (paged, on demand: vLLM, SGLang) or guarantee (reserved: TRT-LLM, slots)",
     SERVING(SV(r) ? S(SV(r)->kv_charged_guarantee ? "guarantee" : "planning") : N())},
    {"throughput.max_model_len", U_::tokens, "tokens per sequence the engine is launched with",
     SERVING(SV(r) ? U(SV(r)->launch.max_model_len) : N())},
    {"throughput.memory_fraction", U_::fraction,
     "gpu_memory_utilization / mem_fraction_static / free_gpu_memory_fraction; a slot engine: "
     "the share its slots fill, 1 / (1 + headroom) when llmsize sizes it (0: all the engine "
     "would, on a count given)",
     SERVING(SV(r) ? D(r3(SV(r)->deployment.limits.memory_fraction)) : N())},
    {"throughput.max_num_seqs", U_::count, "running requests the engine admits per replica",
     SERVING(SV(r) ? U(SV(r)->deployment.limits.max_num_seqs) : N())},
    {"throughput.max_num_batched_tokens", U_::count, "tokens per engine step",
     SERVING(SV(r) ? U(SV(r)->deployment.limits.max_num_batched_tokens) : N())},
    {"throughput.tensor_parallel", U_::count, "tensor-parallel degree of a replica",
     SERVING(SV(r) ? U(SV(r)->deployment.tp) : N())},
    {"throughput.pipeline_parallel", U_::count, "pipeline stages of a replica",
     SERVING(SV(r) ? U(SV(r)->deployment.pp) : N())},
    {"throughput.replicas", U_::count, "replicas (data parallel)",
     SERVING(SV(r) ? U(SV(r)->deployment.replicas) : N())},
    {"throughput.gpus", U_::count, "GPUs of the deployment (tp x pp x replicas)",
     SERVING(SV(r) ? U(SV(r)->deployment.gpus()) : N())},
    {"throughput.nodes", U_::count, "machines the deployment runs on (= gpu.nodes, system.nodes)",
     SERVING(SV(r) ? U(G(r) ? G(r)->nodes : SV(r)->nodes()) : N())},
    {"throughput.power_scale", U_::fraction, "throughput kept at --power-limit (calibrated curve)",
     SERVING(SE(r) ? D(r3(SE(r)->power_scale)) : N())},
    {"throughput.serving_calibration", U_::text, "the engine calibration's basis",
     SERVING(SE(r) && SE(r)->calibration ? S(SE(r)->calibration->basis) : N())},
    {"throughput.serving_error_median", U_::fraction, "its median error on aggregate throughput",
     SERVING(SE(r) && SE(r)->calibration ? D(SE(r)->calibration->error_median) : N())},
    {"throughput.serving_error_worst", U_::fraction, "its worst error (ratio - 1)",
     SERVING(SE(r) && SE(r)->calibration ? D(SE(r)->calibration->error_worst) : N())},
    // a serving capacity plan (#10: --users N --target-tps T [--ttft-ms X])
    {"throughput.serving_capacity_found", U_::boolean,
     "a deployment meets the target within 1024 GPUs", SERVING(SC(r) ? B(SC(r)->found) : N())},
    {"throughput.serving_capacity_gpus", U_::count, "GPUs it needs",
     SERVING(SC(r) && SC(r)->found ? U(SC(r)->gpus) : N())},
    {"throughput.serving_capacity_users_per_replica", U_::count,
     "users one replica carries meeting the target",
     SERVING(SC(r) && SC(r)->found ? U(SC(r)->users_per_replica) : N())},
    {"throughput.serving_capacity_user_headroom", U_::count,
     "users beyond --users the deployment still carries",
     SERVING(SC(r) && SC(r)->found ? U(SC(r)->user_headroom) : N())},
    {"throughput.serving_capacity_binding", U_::text, "the limit that stops one more user",
     SERVING(SC(r) ? S(limit_name(SC(r)->binding)) : N())},
    {"throughput.serving_capacity_memory_min_gpus", U_::count,
     "the fewest GPUs that hold the weights and one sequence",
     SERVING(SC(r) ? U(SC(r)->memory_min_gpus) : N())},
    {"throughput.layouts_searched", U_::count,
     "layouts (TP x PP x replicas) of the GPUs given that the serving plan estimated, the best "
     "taken (null: the GPUs were not given, or the engine splits layers)",
     SERVING(SV(r) && SV(r)->layouts_searched ? U(SV(r)->layouts_searched) : N())},
    {"throughput.runner_up_layout", U_::text, "the second best of those layouts",
     SERVING(SV(r) && SV(r)->runner_up ? S(r.runner_up) : N())},
    {"throughput.runner_up_output_tokens_per_s", U_::tokens_per_s,
     "its output tokens/s under the same workload",
     SERVING(SV(r) && SV(r)->runner_up ? D(r2(SV(r)->runner_up_estimate.output_tokens_per_s.value))
                                       : N())},
    // disaggregated prefill and decode (#22: --prefill-gpus)
    {"throughput.prefill_workers", U_::count,
     "prefill workers apart from the decode replicas (null: prefill and decode share the GPUs)",
     SERVING(SV(r) && SV(r)->deployment.disaggregated() ? U(SV(r)->deployment.prefill_workers)
                                                        : N())},
    {"throughput.prefill_tp", U_::count, "each prefill worker's tensor-parallel degree",
     SERVING(SV(r) && SV(r)->deployment.disaggregated() ? U(SV(r)->deployment.prefill_tp) : N())},
    {"throughput.prefill_utilization", U_::fraction, "the share of the prefill workers' time busy",
     SERVING(SV(r) && SV(r)->deployment.disaggregated() && SE(r)->fits
                 ? D(r4(SE(r)->prefill_utilization))
                 : N())},
    {"throughput.kv_transfer_s", U_::seconds,
     "seconds a request's KV takes from its prefill worker to its decode worker",
     SERVING(SV(r) && SV(r)->deployment.disaggregated() && SE(r)->fits ? D(r4(SE(r)->kv_transfer_s))
                                                                       : N())},
    // speculative decoding (#22: --spec)
    {"throughput.spec_method", U_::text,
     "speculative decoding's draft: mtp, eagle3 or draft (null: none)",
     SERVING(SV(r) && SV(r)->deployment.spec.active()
                 ? S(spec_method_name(SV(r)->deployment.spec.method))
                 : N())},
    {"throughput.spec_draft_tokens", U_::count, "draft tokens proposed per step",
     SERVING(SV(r) && SV(r)->deployment.spec.active() ? U(SV(r)->deployment.spec.draft_tokens)
                                                      : N())},
    {"throughput.spec_acceptance", U_::fraction,
     "the share of draft tokens accepted, each given the ones before it were",
     SERVING(SV(r) && SV(r)->deployment.spec.active() ? D(r4(SV(r)->deployment.spec.acceptance))
                                                      : N())},
    {"throughput.spec_tokens_per_step", U_::tokens,
     "tokens each sequence emits per verification step, its own included",
     SERVING(SV(r) && SV(r)->deployment.spec.active()
                 ? D(r4(SV(r)->deployment.spec.tokens_per_step()))
                 : N())},
    {"throughput.spec_acceptance_measured_on", U_::text,
     "the model whose published acceptance is used (null: --spec-acceptance gave it)",
     SERVING(SV(r) && SV(r)->deployment.spec.measured
                 ? S(std::string(SV(r)->deployment.spec.measured->model))
                 : N())},
    {"throughput.per_user_tokens_per_s_without_spec", U_::tokens_per_s,
     "each user's tokens/s on the same deployment without speculative decoding",
     SERVING(SV(r) && SV(r)->without_spec ? D(r2(SV(r)->without_spec->per_user_tokens_per_s.value))
                                          : N())},
    {"throughput.output_tokens_per_s_without_spec", U_::tokens_per_s,
     "output tokens/s of the same deployment without speculative decoding",
     SERVING(SV(r) && SV(r)->without_spec ? D(r2(SV(r)->without_spec->output_tokens_per_s.value))
                                          : N())},
    // cost
    {"cost.hardware_usd", U_::usd,
     "v2: the BOM's priced lines (GPUs + platform + RAM, drives, NICs); v1: GPUs + a class price",
     GET(CC(r) && CC(r)->priced ? D(std::round(CC(r)->capex_usd)) : N())},
    {"cost.gpus_usd", U_::usd, "GPUs",
     GET(CC(r) && CC(r)->priced ? D(std::round(CC(r)->gpus_usd)) : N())},
    {"cost.hardware_complete", U_::boolean,
     "every BOM line has a price (false: hardware_usd is a floor)",
     GET(CC(r) && CC(r)->priced ? B(CC(r)->complete) : N())},
    {"cost.host_usd", U_::usd, "the host around them",
     GET(CC(r) ? D(std::round(CI(r).host_usd)) : N())},
    {"cost.energy_usd_per_year", U_::usd_per_year, "energy",
     GET(CC(r) ? D(std::round(CC(r)->energy_usd_per_year)) : N())},
    {"cost.usd_per_million_tokens", U_::usd_per_mtok, "hardware amortised + energy per 1M tokens",
     GET(CC(r) && CC(r)->priced && CC(r)->usd_per_mtok > 0 ? D(r4(CC(r)->usd_per_mtok)) : N())},
    {"cost.cloud_usd_per_million_tokens", U_::usd_per_mtok, "--cloud-price",
     RUN(opt(P(r).cost_input.cloud_price_per_mtok))},
    {"cost.breakeven_months", U_::months, "against the cloud price",
     GET(CC(r) && CC(r)->breakeven_months > 0 ? D(r2(CC(r)->breakeven_months)) : N())},
    {"cost.years", U_::years, "amortisation", RUN(D(P(r).cost_input.years))},
    {"cost.utilization", U_::fraction, "share of the year generating",
     RUN(D(P(r).cost_input.utilization))},
    {"cost.kwh_price_usd", U_::usd_per_kwh, "electricity price",
     RUN(D(P(r).cost_input.kwh_price_usd))},
    {"cost.basis", U_::text,
     "machine (the catalog machine's BOM) or generic (a generic platform row's BOM); null without "
     "a machine",
     GET(cost_basis(P(r)) != FigureBasis::none ? S(to_string(cost_basis(P(r)))) : N())},
    // blocks and lists
    {"finetune", U_::none,
     "with --mode lora, qlora or full (JSON only): mode, trainable_params, weights_bytes, "
     "gradients_bytes, optimizer_bytes, activations_bytes, total_bytes, gpus (as bought: powers "
     "of two in a machine, whole machines past one; gpu.count is this), gpus_fewest (the fewest "
     "that hold the sharded state), sharding (fsdp: FSDP / ZeRO-3)",
     JSON(finetune_json(r))},
    {"gpu_options", U_::none,
     "without --gpu, the GPUs the engine runs on: at the usable speed (--min-tps) first, then "
     "priced first, no network fabric before one, the cheapest system first (--optimize gpus, "
     "power or tco: the fewest GPUs, the least max_wall_w or tco_usd first) (JSON only): id, count "
     "(the engine's own count), total_price_usd (the bill of materials of the machines it buys, "
     "as cost.hardware_usd would be), price_complete (false: a floor, a line has no public "
     "price), gpus_usd, machine_usd (the rest of the bill), platform (class) and platform_id "
     "(null: no catalog machine takes them), machines, bought (GPUs "
     "priced: a count it is sold in), per_gpu_bytes, split, tokens_per_s (per user under a "
     "serving engine, else per sequence; null under a capacity target), below_usable_speed, "
     "max_wall_w (every machine's maximum at the wall; null: no machine), tco_usd "
     "(total_price_usd + the energy of --years at max_wall_w and --duty-cycle; null: unpriced)",
     JSON(options_json(r))},
    {"gpu_options_fewest_cards", U_::none,
     "the same by fewest cards (JSON only): id, count, total_price_usd", JSON(fewest_json(r))},
    {"checklist", U_::text, "things to check before buying (CSV: joined by \"; \")",
     GET(L(r.checklist, r.checklist_encoded))},
    {"warnings", U_::text, "assumptions and problems (CSV: joined by \"; \")",
     GET(L(r.warnings, {}))},
    {"bom", U_::none,
     "the bill of materials as lines (JSON only; --format bom-csv): component, part, spec, qty, "
     "unit_price_usd, price_source, included_in, why",
     JSON(bom_json(r))},
    {"machine", U_::none,
     "the platform choice and power detail (JSON only): platform_id, reasons, rejected, "
     "gpus_per_node, nodes, source, max_power_parts_dc_watts, published_max_watts, circuits, "
     "racks, cold_start (storage, load_s, total_s, steps)",
     JSON(machine_json(r))},
    {"explain", U_::none, "with --explain (JSON only): quantity, formula, result of each part",
     JSON(explain_json(r))},
};

#undef GETTER
#undef PUTTER
#undef CELL
#undef GET
#undef JSON
#undef RUN
#undef PER_GPU
#undef SERVING
#undef CAPACITY

ojson cell_json(const Cell& c) {
  switch (c.type) {
    case CellType::absent:
      return ojson(ojson::value_t::discarded);
    case CellType::null:
      return ojson();
    case CellType::boolean:
      return ojson(c.b);
    case CellType::u64:
      return ojson(c.u);
    case CellType::f64:
      return ojson(c.f);
    case CellType::str:
      return ojson(std::string(c.s));
    case CellType::list:
      return ojson(*c.list);
  }
  return ojson();
}

}  // namespace

const char* unit_name(Unit u) {
  switch (u) {
    case Unit::none:
      return "";
    case Unit::text:
      return "text";
    case Unit::boolean:
      return "bool";
    case Unit::count:
      return "count";
    case Unit::bytes:
      return "bytes";
    case Unit::tokens:
      return "tokens";
    case Unit::tokens_per_s:
      return "tokens/s";
    case Unit::documents_per_s:
      return "documents/s";
    case Unit::seconds:
      return "s";
    case Unit::fraction:
      return "fraction";
    case Unit::bits_per_weight:
      return "bits";
    case Unit::gib:
      return "GiB";
    case Unit::gb_per_s:
      return "GB/s";
    case Unit::watts:
      return "W";
    case Unit::volts:
      return "V";
    case Unit::amps:
      return "A";
    case Unit::btu_per_hour:
      return "BTU/h";
    case Unit::kwh_per_year:
      return "kWh/year";
    case Unit::usd:
      return "USD";
    case Unit::usd_per_year:
      return "USD/year";
    case Unit::usd_per_mtok:
      return "USD/1M tokens";
    case Unit::months:
      return "months";
    case Unit::years:
      return "years";
    case Unit::usd_per_kwh:
      return "USD/kWh";
  }
  return "";
}

void set_plan(Row& row, const Plan& p) {
  row.plan = &p;
  row.split = split_words(p);
  row.runner_up = p.serving && p.serving->runner_up ? layout_words(*p.serving->runner_up) : "";
  if (!p.gpu) {
    row.link = {};
  } else {
    const GpuPlan& g = *p.gpu;
    Row::LinkKey& k = row.link_key;
    const LinkShape shape = link_shape(p);  // what gpu_link_words reads of the plan
    k.link = g.link;
    k.nodes = shape.nodes;
    k.pcie_gen = g.pcie_gen;
    k.pcie_lanes = g.pcie_lanes;
    k.max_per_node = shape.per_node;
    k.module = g.gpu.is_module();
    k.gb_per_s = g.link_gb_per_s;
    k.interconnect = g.gpu.interconnect;
    row.link = row.link_memo.get(k, [&] { return gpu_link_words(g, shape.nodes, shape.per_node); });
  }
  row.capacity_limited_by = p.capacity ? capacity_limit_words(*p.capacity) : std::string();
  // The machine's rated power (as W()).
  const PowerPlan* w = p.power ? &*p.power : nullptr;
  if (!w) {
    row.circuit = {};
  } else {
    Row::CircuitKey& k = row.circuit_key;
    k.amps = w->amps;
    k.mains_v = w->mains_v;
    k.plan = w->circuit;
    row.circuit = row.circuit_memo.get(k, [&] { return circuit_words(*w); });
  }
}

const std::vector<Field>& report_fields() {
  return kFields;
}

const std::vector<std::string>& report_columns() {
  static const std::vector<std::string> kColumns = [] {
    std::vector<std::string> v;
    for (const auto& f : kFields)
      if (f.get) v.push_back(f.path);
    return v;
  }();
  return kColumns;
}

ojson report_json(const Row& r) {
  ojson j = ojson::object();
  for (const auto& f : kFields) {
    ojson v = f.get ? cell_json(f.get(r)) : f.json(r);
    if (v.is_discarded()) continue;
    const std::string_view path = f.path;
    const auto dot = path.find('.');
    if (dot == std::string_view::npos)
      j[std::string(path)] = std::move(v);
    else
      j[std::string(path.substr(0, dot))][std::string(path.substr(dot + 1))] = std::move(v);
  }
  return j;
}

namespace {

// The row's cells [first, last) of the columns.
void write_cells(const Row& r, RowWriter& w, const Field* const* cols, size_t first, size_t last) {
  for (size_t i = first; i < last; ++i) cols[i]->put(r, w);
}

// The columns in runs of one scope: what write_row() computes, or copies, as one piece.
struct Segment {
  size_t first = 0, last = 0;  // columns [first, last)
  Scope scope = Scope::row;
};
struct Segments {
  std::vector<const Field*> cols;
  std::vector<Segment> runs;
};
const Segments& segments() {
  static const Segments kSegments = [] {
    Segments s;
    for (const auto& f : kFields)
      if (f.get) s.cols.push_back(&f);
    for (size_t i = 0; i < s.cols.size(); ++i) {
      if (s.runs.empty() || s.runs.back().scope != s.cols[i]->scope)
        s.runs.push_back(Segment{i, i, s.cols[i]->scope});
      s.runs.back().last = i + 1;
    }
    return s;
  }();
  return kSegments;
}

}  // namespace

void write_row(const Row& r, RowWriter& w, std::string& out, Reuse reuse) {
  const Segments& sg = segments();
  const Field* const* cols = sg.cols.data();
  w.begin(out);
  if (reuse == Reuse::off) {
    write_cells(r, w, cols, 0, sg.cols.size());
    w.end();
    return;
  }
  const Plan& p = *r.plan;
  for (size_t id = 0; id < sg.runs.size(); ++id) {
    const Segment& s = sg.runs[id];
    bool same = false;
    switch (s.scope) {
      case Scope::row:
        write_cells(r, w, cols, s.first, s.last);
        continue;
      case Scope::run:
        same = reuse >= Reuse::same_run;
        break;
      case Scope::gpu:
        same = reuse >= Reuse::same_gpu;
        break;
      case Scope::serving:
      case Scope::capacity:
        // Kept only while the block is absent: the nulls of every such row.
        if (s.scope == Scope::serving
                ? p.serving.has_value()
                : p.capacity.has_value() || (p.serving && p.serving->capacity)) {
          write_cells(r, w, cols, s.first, s.last);
          continue;
        }
        same = true;
        break;
    }
    if (same && w.replay(id, s.last - s.first)) continue;
    const size_t at = w.pos();
    write_cells(r, w, cols, s.first, s.last);
    w.keep(id, at);
  }
  w.end();
}

std::string field_list_markdown() {
  std::string s = "| field | unit | meaning |\n|---|---|---|\n";
  for (const auto& f : kFields)
    s += fmt::format("| `{}` | {} | {} |\n", f.path, unit_name(f.unit), f.about);
  return s;
}

}  // namespace llmsize::cli
