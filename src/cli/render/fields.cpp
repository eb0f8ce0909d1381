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

Cell cell_absent() {
  Cell c;
  c.type = CellType::absent;
  return c;
}
Cell cell_null() {
  return Cell();
}
Cell cell_bool(bool v) {
  Cell c;
  c.type = CellType::boolean;
  c.b = v;
  return c;
}
Cell cell_u64(uint64_t v) {
  Cell c;
  c.type = CellType::u64;
  c.u = v;
  return c;
}
Cell cell_f64(double v) {
  Cell c;
  c.type = CellType::f64;
  c.f = v;
  return c;
}
Cell cell_str(std::string_view v) {
  Cell c;
  c.type = CellType::str;
  c.s = v;
  return c;
}
Cell cell_list(const std::vector<std::string>* v, std::string_view encoded) {
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
  return round_half_away(v * 100) / 100;
}
// A price or amount that is 0 when unknown: null then.
Cell opt(double v) {
  return v > 0 ? cell_f64(v) : cell_null();
}
ojson opt_json(double v) {
  return v > 0 ? ojson(v) : ojson();
}

const Plan& plan_of(const Row& r) {
  return *r.plan;
}
const Estimate& estimate_of(const Row& r) {
  return r.plan->estimate;
}
const ModelSpec& model_of(const Row& r) {
  return r.model->spec;
}
const RunConfig& config_of(const Row& r) {
  return r.plan->config;
}
const GpuPlan* gpu_plan_of(const Row& r) {
  return r.plan->gpu ? &*r.plan->gpu : nullptr;
}
const Offload* offload_of(const Row& r) {
  return r.plan->offload ? &*r.plan->offload : nullptr;
}
// The machine's rated power (null without a machine, or a whole computer without a published
// figure).
const PowerPlan* power_of(const Row& r) {
  return r.plan->power ? &*r.plan->power : nullptr;
}
// llama.cpp's vision projector, a GGUF of its own beside the language model's (a checkpoint
// engine loads the vision tower from the model's own files).
uint64_t mmproj_bytes(const Row& r) {
  const Estimate& e = r.plan->estimate;
  const Engine g = config_of(r).engine;
  return g == Engine::llama_cpp || g == Engine::ollama ? e.weights.vision_bytes : 0;
}
// A generating model (not an embedding or rerank run): decode figures apply.
bool generates(const Row& r) {
  return r.model->spec.task == Task::generation;
}
const Speed* speed_of(const Row& r) {
  return r.plan->speed ? &*r.plan->speed : nullptr;
}
const CapacityPlan* capacity_of(const Row& r) {
  return r.plan->capacity ? &*r.plan->capacity : nullptr;
}
// #10: the serving block (null fields when the plan has none).
const ServingPlan* serving_of(const Row& r) {
  return r.plan->serving ? &*r.plan->serving : nullptr;
}
const ServingEstimate* serving_estimate_of(const Row& r) {
  return r.plan->serving ? &r.plan->serving->estimate : nullptr;
}
// A serving plan bought with spare machines (--redundancy), or null.
const ServingPlan* spares_of(const Row& r) {
  const ServingPlan* s = serving_of(r);
  return s && s->spare_machines && s->capacity && s->capacity->found ? s : nullptr;
}

const ServingCapacity* serving_capacity_of(const Row& r) {
  return r.plan->serving && r.plan->serving->capacity ? &*r.plan->serving->capacity : nullptr;
}
double r3(double v) {
  return round_half_away(v * 1000) / 1000;
}
double r4(double v) {
  return round_half_away(v * 10000) / 10000;
}
double r5(double v) {
  return round_half_away(v * 1e5) / 1e5;
}
// The machine from the platform catalog; null when none takes the GPUs.
const SystemPlan* system_of(const Row& r) {
  return r.plan->system && r.plan->system->platform ? &*r.plan->system : nullptr;
}
const PlatformModel* platform_of(const Row& r) {
  return system_of(r) ? system_of(r)->platform : nullptr;
}
const FitVerdict* fit_of(const Row& r) {
  return r.plan->fit ? &*r.plan->fit : nullptr;
}
// The cost of the machine's BOM (null without a machine).
const CostPlan* cost_of(const Row& r) {
  return r.plan->cost ? &*r.plan->cost : nullptr;
}
const CostInput& cost_input_of(const Row& r) {
  return r.plan->cost_input;
}

// The replicas the memory estimate is one of: a serving deployment's (plan_replica_memory), else 1.
uint32_t replicas_of(const Row& r) {
  const ServingPlan* s = serving_of(r);
  return s && r.plan->gpu && s->deployment.gpus() == r.plan->gpu->count ? s->deployment.replicas
                                                                        : 1;
}

Cell class_count(const Row& r, size_t i) {
  const auto& c = plan_of(r).classes;
  return i < c.size() && c[i].count ? cell_u64(c[i].count) : cell_null();
}
// Load time (read + deserialize + copy to the GPUs) from local drive class i, the engine's loader;
// absent without a machine.
Cell load_time(const Row& r, size_t i) {
  const SystemPlan* s = system_of(r);
  return s && i < s->cold_start_by_drive.size() ? cell_f64(r2(s->cold_start_by_drive[i].load_s))
                                                : cell_absent();
}

const char* mode_name(TrainMode m) {
  return m == TrainMode::full ? "full" : m == TrainMode::qlora ? "qlora" : "lora";
}

// Shorthands for the table: a getter of one expression over `r`, and the same expression written
// straight through a row writer (the cell's type known where it is made: no Cell in between).
// Macros, not templates: one expression must become two lambdas, and C++17 takes no lambda as a
// template argument; a putter that called the getter through its pointer would cost a sweep row
// an indirect call and a Cell per field (bench/instructions_bench.cpp).
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
#define MACHINE(expr) CELL(expr, Scope::machine)
#define ESTIMATE(expr) CELL(expr, Scope::estimate)
#define SERVING(expr) CELL(expr, Scope::serving)
#define CAPACITY(expr) CELL(expr, Scope::capacity)

ojson tensor_types_json(const Row& r) {
  ojson types = ojson::array();
  for (const auto& u : estimate_of(r).weights.by_type)
    types.push_back({{"type", traits(u.type).name},
                     {"tensors", u.n_tensors},
                     {"elements", u.n_elements},
                     {"bytes", u.bytes}});
  return types;
}

ojson finetune_json(const Row& r) {
  const Plan& p = plan_of(r);
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
  for (const auto& o : plan_of(r).options)
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
  for (const auto& o : plan_of(r).fewest)
    a.push_back({{"id", o.plan.gpu.id},
                 {"count", o.plan.count},
                 {"total_price_usd", opt_json(o.total_price_usd)}});
  return a;
}

ojson bom_json(const Row& r) {
  const SystemPlan* sy = system_of(r);
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
  const Plan& p = plan_of(r);
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
  ojson parts = {{"gpus_w", round_half_away(s.max_power.parts.gpus_w)},
                 {"baseboard_w", round_half_away(s.max_power.parts.baseboard_w)},
                 {"cpus_w", round_half_away(s.max_power.parts.cpus_w)},
                 {"memory_w", round_half_away(s.max_power.parts.memory_w)},
                 {"drives_w", round_half_away(s.max_power.parts.drives_w)},
                 {"nics_w", round_half_away(s.max_power.parts.nics_w)},
                 {"fans_w", round_half_away(s.max_power.parts.fans_w)},
                 {"board_w", round_half_away(s.max_power.parts.board_w)}};
  j["max_power_parts_dc_watts"] = std::move(parts);
  j["published_max_watts"] = opt_json(s.max_power.published_w);
  ojson circuits = ojson::array();
  for (const auto& c : s.circuits)
    circuits.push_back({{"volts", c.volts},
                        {"phases", c.phases},
                        {"breaker_amps", c.breaker_a},
                        {"continuous_watts", round_half_away(c.continuous_w)},
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
  j["cold_start"] = {{"storage", storage_spec(plan_of(r).storage).name},
                     {"load_s", r2(s.cold_start.load_s)},
                     {"total_s", r2(s.cold_start.total_s)},
                     {"steps", std::move(steps)}};
  return j;
}

ojson explain_json(const Row& r) {
  if (!r.explain) return ojson(ojson::value_t::discarded);
  ojson ex = ojson::array();
  for (const auto& d : derivations(estimate_of(r), model_of(r), config_of(r)))
    ex.push_back({{"quantity", d.quantity}, {"formula", d.formula}, {"result", d.result}});
  return ex;
}

using U_ = Unit;

const std::vector<Field> kFields = {
    {"schema_version", U_::count,
     "2 (power, cost and load times from the machine model; README \"Schema version 2\"); a "
     "field whose meaning changes moves to a new version",
     RUN(cell_u64(kPlanSchemaVersion))},
    // model
    {"model.name", U_::text, "the model's name", RUN(cell_str(model_of(r).name))},
    {"model.id", U_::text, "catalog id; null for a file or generic size",
     RUN(model_of(r).id.empty() ? cell_null() : cell_str(model_of(r).id))},
    {"model.source", U_::text, "catalog, shorthand, generic, config.json, gguf or safetensors",
     RUN(cell_str(r.model->source))},
    {"model.assumed", U_::text,
     "what a shorthand or generic size was taken to mean, or a quantization_config llmsize does "
     "not size; else null",
     RUN(r.model->assumption.empty() ? cell_null() : cell_str(r.model->assumption))},
    {"model.arch", U_::text, "architecture", RUN(cell_str(arch_name(model_of(r).arch)))},
    {"model.params", U_::count, "parameters", RUN(cell_u64(estimate_of(r).weights.params))},
    {"model.active_params", U_::count, "parameters read per token (< params for MoE)",
     RUN(cell_u64(estimate_of(r).weights.active_params))},
    {"model.weights_bytes", U_::bytes,
     "the weights at the quantization: a GGUF file's tensor data (llama.cpp: the language model's "
     "file, without its mmproj)",
     RUN(cell_u64(estimate_of(r).weights.bytes - mmproj_bytes(r)))},
    {"model.mmproj_bytes", U_::bytes,
     "llama.cpp: the vision projector's own GGUF (F16), null without one",
     RUN(mmproj_bytes(r) ? cell_u64(mmproj_bytes(r)) : cell_null())},
    {"model.bits_per_weight", U_::bits_per_weight, "weights_bytes × 8 / params",
     RUN(cell_f64(r4(estimate_of(r).weights.bits_per_weight())))},
    {"model.n_layer", U_::count, "layers", RUN(cell_u64(model_of(r).n_layer))},
    {"model.n_embd", U_::count, "hidden size", RUN(cell_u64(model_of(r).n_embd))},
    {"model.n_head", U_::count, "attention heads", RUN(cell_u64(model_of(r).n_head))},
    {"model.n_head_kv", U_::count, "KV heads", RUN(cell_u64(model_of(r).n_head_kv))},
    {"model.n_ctx_train", U_::tokens, "trained context", RUN(cell_u64(model_of(r).n_ctx_train))},
    {"model.tensor_types", U_::none, "per tensor type: type, tensors, elements, bytes (JSON only)",
     JSON(tensor_types_json(r))},
    // settings
    {"settings.quant", U_::text, "the quantization preset used", RUN(cell_str(r.quant->id))},
    {"settings.quant_requested", U_::text, "as typed (q4 means q4_k_m)",
     RUN(cell_str(r.quant_requested))},
    {"settings.kv_quant", U_::text, "KV cache type",
     RUN(cell_str(traits(config_of(r).kv.type_k).name))},
    {"settings.context", U_::tokens, "context per sequence", GET(cell_u64(config_of(r).kv.n_ctx))},
    {"settings.batch", U_::count, "concurrent sequences", RUN(cell_u64(config_of(r).kv.n_seq))},
    {"settings.task", U_::text, "generation, embedding or rerank (--task)",
     RUN(cell_str(task_name(model_of(r).task)))},
    {"settings.ubatch", U_::tokens, "micro-batch (n_ubatch)",
     RUN(cell_u64(config_of(r).kv.n_ubatch))},
    {"settings.flash_attn", U_::boolean, "flash attention",
     RUN(cell_bool(config_of(r).flash_attn))},
    {"settings.headroom", U_::fraction,
     "added on top of the sum (a serving plan: its engine's rule, when that asks more)",
     GET(cell_f64(config_of(r).headroom))},
    {"settings.overhead_bytes_per_gpu", U_::bytes, "runtime overhead per GPU",
     RUN(cell_u64(config_of(r).overhead_per_gpu_bytes))},
    {"settings.engine", U_::text, "whose memory rules apply (a serving plan: its engine)",
     RUN(cell_str(serving_of(r) ? engine_profile(serving_of(r)->deployment.engine).name
                                : engine_profile(config_of(r).engine).name))},
    // vram
    {"vram.weights_bytes", U_::bytes, "weights held in GPU memory under the engine's rules",
     ESTIMATE(cell_u64(estimate_of(r).weights_bytes))},
    {"vram.weights_host_bytes", U_::bytes, "weights the engine keeps in host RAM",
     RUN(cell_u64(estimate_of(r).weights.host_bytes))},
    {"vram.kv_cache_bytes", U_::bytes,
     "KV cache of every sequence (a serving deployment: of one replica's running sequences)",
     ESTIMATE(cell_u64(estimate_of(r).kv_cache_bytes))},
    {"vram.kv_full_bytes", U_::bytes, "KV cache of the full-attention layers",
     ESTIMATE(cell_u64(estimate_of(r).kv.bytes_of(AttnKind::full)))},
    {"vram.kv_swa_bytes", U_::bytes, "KV cache of the sliding-window layers",
     ESTIMATE(cell_u64(estimate_of(r).kv.bytes_of(AttnKind::swa)))},
    {"vram.kv_chunked_bytes", U_::bytes, "KV cache of the chunked-attention layers",
     ESTIMATE(cell_u64(estimate_of(r).kv.bytes_of(AttnKind::chunked)))},
    {"vram.kv_mla_bytes", U_::bytes, "KV cache of the MLA layers (latent)",
     ESTIMATE(cell_u64(estimate_of(r).kv.bytes_of(AttnKind::mla)))},
    {"vram.kv_indexer_bytes", U_::bytes, "DSA indexer keys beside the MLA cache",
     ESTIMATE(cell_u64(estimate_of(r).kv.bytes_of(AttnKind::mla, true)))},
    {"vram.recurrent_state_bytes", U_::bytes,
     "recurrent state (delta-net, Mamba2, short conv): per sequence, any context",
     ESTIMATE(cell_u64(estimate_of(r).recurrent_state_bytes))},
    {"vram.activations_bytes", U_::bytes, "compute buffers of all GPUs",
     ESTIMATE(cell_u64(estimate_of(r).activations_bytes))},
    {"vram.draft_bytes", U_::bytes,
     "llama.cpp's draft model (--draft, -md): its weights, KV cache and compute buffers",
     ESTIMATE(cell_u64(estimate_of(r).draft_bytes))},
    {"vram.overhead_bytes", U_::bytes, "runtime overhead × GPUs",
     ESTIMATE(cell_u64(estimate_of(r).overhead_bytes))},
    {"vram.headroom_bytes", U_::bytes, "headroom on the sum",
     ESTIMATE(cell_u64(estimate_of(r).headroom_bytes))},
    {"vram.total_bytes", U_::bytes,
     "weights + KV + recurrent state + activations + overhead + headroom",
     ESTIMATE(cell_u64(estimate_of(r).total_bytes()))},
    {"vram.total_bytes_low", U_::bytes, "low end from each part's measured error",
     ESTIMATE(cell_u64(estimate_of(r).total_low_bytes))},
    {"vram.total_bytes_high", U_::bytes, "high end",
     ESTIMATE(cell_u64(estimate_of(r).total_high_bytes))},
    {"vram.kv_cells", U_::count, "KV cells per full-attention layer",
     ESTIMATE(cell_u64(estimate_of(r).kv.cells_full))},
    {"vram.kv_cells_swa", U_::count, "KV cells per sliding-window layer",
     ESTIMATE(cell_u64(estimate_of(r).kv.cells_swa))},
    {"vram.compute_buffer_bytes_per_gpu", U_::bytes,
     "compute buffer of one GPU (a layer split's largest)",
     ESTIMATE(cell_u64(estimate_of(r).compute.bytes()))},
    {"vram.compute_buffer_bytes_first_gpu", U_::bytes,
     "compute buffer of the layer split's first GPU (its first layers)",
     ESTIMATE(cell_u64(estimate_of(r).compute_split.devices.empty()
                           ? estimate_of(r).compute.bytes()
                           : estimate_of(r).compute_split.devices.front().buffer.bytes()))},
    {"vram.compute_weight_copy_bytes", U_::bytes,
     "of the first GPU's compute buffer: a weight in system RAM copied in per prompt batch "
     "(llama.cpp op offload, --n-cpu-moe)",
     ESTIMATE(
         cell_u64(estimate_of(r).compute_split.devices.empty()
                      ? estimate_of(r).compute.weight_copy_bytes
                      : estimate_of(r).compute_split.devices.front().buffer.weight_copy_bytes))},
    {"vram.compute_buffer_bytes_last_gpu", U_::bytes,
     "compute buffer of the layer split's GPU with the output layer (logits), the last",
     ESTIMATE(
         cell_u64(estimate_of(r).compute_split.devices.empty()
                      ? estimate_of(r).compute.bytes()
                      : estimate_of(r)
                            .compute_split.devices[estimate_of(r).compute_split.output_device()]
                            .buffer.bytes()))},
    {"vram.kv_available_bytes", U_::bytes,
     "KV memory left on the GPUs (a serving deployment: its engine's KV pool on every GPU)",
     GET(gpu_plan_of(r) ? cell_u64(plan_of(r).kv_available_bytes) : cell_null())},
    {"vram.gpus", U_::count,
     "GPUs the estimate counts buffers and overhead on (a serving deployment: one replica's)",
     GET(cell_u64(estimate_of(r).n_gpus))},
    {"vram.replicas", U_::count,
     "copies of what vram.* counts: a serving deployment's replicas, each holding the weights "
     "and its own sequences (1 otherwise)",
     GET(cell_u64(replicas_of(r)))},
    {"vram.rule_of_thumb_bytes", U_::bytes, "1.2 × weights, for comparison",
     RUN(cell_u64(estimate_of(r).naive_rule_bytes))},
    // gpu
    {"gpu.name", U_::text, "GPU",
     PER_GPU(gpu_plan_of(r) ? cell_str(gpu_plan_of(r)->gpu.name) : cell_null())},
    {"gpu.id", U_::text, "catalog id",
     PER_GPU(gpu_plan_of(r) ? cell_str(gpu_plan_of(r)->gpu.id) : cell_null())},
    {"gpu.recommended", U_::boolean, "llmsize chose it (no --gpu)",
     PER_GPU(cell_bool(plan_of(r).gpu_recommended))},
    {"gpu.count", U_::count, "GPUs of the plan",
     GET(gpu_plan_of(r) ? cell_u64(gpu_plan_of(r)->count) : cell_null())},
    {"gpu.count_needed", U_::count, "fewest that hold it (0: none up to 1024)",
     GET(gpu_plan_of(r) ? cell_u64(gpu_plan_of(r)->count_needed) : cell_null())},
    {"gpu.memory_bytes_each", U_::bytes, "memory of one GPU",
     PER_GPU(gpu_plan_of(r) ? cell_u64(gpu_plan_of(r)->gpu.memory_bytes) : cell_null())},
    {"gpu.usable_bytes_each", U_::bytes,
     "usable memory of one GPU, as the fit verdict holds it (vLLM, SGLang, TensorRT-LLM: the "
     "total the CUDA / HIP runtime reports, where published)",
     PER_GPU(gpu_plan_of(r) ? cell_u64(r.plan->usable_bytes_each()) : cell_null())},
    {"gpu.per_gpu_bytes", U_::bytes, "what each GPU must hold, headroom included",
     GET(gpu_plan_of(r) ? cell_u64(gpu_plan_of(r)->per_gpu_bytes) : cell_null())},
    {"gpu.fits", U_::boolean, "the GPUs hold it",
     GET(gpu_plan_of(r) ? cell_bool(gpu_plan_of(r)->fits) : cell_null())},
    {"gpu.fit", U_::text,
     "fits (with the requested headroom), tight (without it, inside the engine's margins) or no",
     GET(fit_of(r) ? cell_str(to_string(fit_of(r)->fit)) : cell_null())},
    {"gpu.headroom_fraction", U_::fraction,
     "(usable - need) / need per GPU, need without headroom; negative when it does not fit",
     GET(fit_of(r) ? cell_f64(r4(fit_of(r)->headroom_fraction)) : cell_null())},
    {"gpu.engine_margin_fraction", U_::fraction,
     "the slack the engine itself needs beyond the need (a share of it), the line between tight "
     "and no: its own allocation rule (llama.cpp exact, Ollama 457 MiB, vLLM 0.9 of memory, "
     "SGLang mem_fraction_static, TensorRT-LLM 0.9 of free) plus the estimate's error",
     GET(fit_of(r) ? cell_f64(r4(fit_of(r)->engine_margin)) : cell_null())},
    {"gpu.split", U_::text, "single GPU, layer split, tensor parallel, replicas",
     GET(gpu_plan_of(r) ? cell_str(r.split) : cell_null())},
    {"gpu.tp_degree", U_::count, "smallest tensor-parallel degree dividing the heads",
     GET(gpu_plan_of(r) && gpu_plan_of(r)->tp_degree ? cell_u64(gpu_plan_of(r)->tp_degree)
                                                     : cell_null())},
    {"gpu.nodes", U_::count, "machines: the catalog machine's count where one is planned",
     GET(gpu_plan_of(r) ? cell_u64(gpu_plan_of(r)->nodes) : cell_null())},
    {"gpu.interconnect", U_::text, "the link to buy",
     GET(gpu_plan_of(r) ? cell_str(r.link) : cell_null())},
    {"gpu.price_usd_each", U_::usd, "catalog or --price price",
     PER_GPU(gpu_plan_of(r) ? opt(gpu_plan_of(r)->gpu.price_usd) : cell_null())},
    {"gpu.offload_layers_gpu", U_::count, "layers on the GPUs when offloading",
     GET(offload_of(r) ? cell_u64(offload_of(r)->n_layer_gpu) : cell_null())},
    {"gpu.offload_layers_cpu", U_::count, "layers in system RAM",
     GET(offload_of(r) ? cell_u64(offload_of(r)->n_layer_cpu) : cell_null())},
    {"gpu.offload_ram_bytes", U_::bytes,
     "weights and KV of those layers, and the routed experts kept in RAM",
     GET(offload_of(r) ? cell_u64(offload_of(r)->ram_bytes + offload_of(r)->expert_ram_bytes)
                       : cell_null())},
    {"gpu.offload_cpu_moe", U_::count,
     "blocks whose routed experts are in system RAM instead (llama.cpp --n-cpu-moe N)",
     GET(offload_of(r) && offload_of(r)->n_cpu_moe ? cell_u64(offload_of(r)->n_cpu_moe)
                                                   : cell_null())},
    {"gpu.offload_ram_read_bytes_per_token", U_::bytes,
     "of them, read from system RAM per generated token",
     GET(offload_of(r) && offload_of(r)->n_cpu_moe
             ? cell_u64(offload_of(r)->ram_read_bytes_per_token)
             : cell_null())},
    {"gpu.count_24gib", U_::count, "GPUs of 24 GiB that hold it", GET(class_count(r, 0))},
    {"gpu.count_48gib", U_::count, "of 48 GiB", GET(class_count(r, 1))},
    {"gpu.count_80gib", U_::count, "of 80 GiB", GET(class_count(r, 2))},
    // system
    {"system.platform", U_::text,
     "desktop, workstation, server or unified: the class of the catalog platform chosen (null "
     "where none takes the GPUs)",
     MACHINE(platform_of(r) ? cell_str(to_string(platform_of(r)->platform_class)) : cell_null())},
    {"system.platform_name", U_::text, "the machine to buy (data/platforms.json)",
     MACHINE(platform_of(r) ? cell_str(platform_of(r)->name) : cell_null())},
    {"system.platform_id", U_::text, "its catalog id (--platform)",
     MACHINE(platform_of(r) ? cell_str(platform_of(r)->id) : cell_null())},
    {"system.platform_generic", U_::boolean,
     "a generic platform row (no sourced catalog machine takes the GPUs), not a vendor's machine",
     MACHINE(platform_of(r) ? cell_bool(platform_of(r)->generic) : cell_null())},
    {"system.platform_basis", U_::text, "a generic row's basis: where its numbers come from",
     MACHINE(platform_of(r) && platform_of(r)->generic ? cell_str(platform_of(r)->basis)
                                                       : cell_null())},
    {"system.nodes", U_::count, "machines of that platform",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->choice.nodes) : cell_null())},
    {"system.cpu_sockets", U_::count, "CPU sockets per machine",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->host.cpu_sockets) : cell_null())},
    {"system.ram_bytes", U_::bytes,
     "RAM installed per machine: the catalog machine's population (the larger of 2 x weights and "
     "what its class ships per GPU)",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->host.ram.installed_bytes) : cell_null())},
    {"system.ram_required_bytes", U_::bytes,
     "RAM needed per machine: the larger of 2 x weights and what the class ships per GPU",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->host.ram.required_bytes) : cell_null())},
    {"system.ram_dimms", U_::count, "DIMMs per machine",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->host.ram.dimms) : cell_null())},
    {"system.ram_dimm_gib", U_::gib, "size of one DIMM",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->host.ram.dimm_gib) : cell_null())},
    {"system.storage_bytes", U_::bytes, "storage needed",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->host.storage.required_bytes) : cell_null())},
    {"system.data_drive_bytes", U_::bytes, "one data drive",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->host.storage.data_drive_bytes) : cell_null())},
    {"system.data_drives", U_::count, "data drives per machine",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->host.storage.data_drives) : cell_null())},
    {"system.os_drive_bytes", U_::bytes, "one OS drive (two in RAID 1 on servers)",
     MACHINE(system_of(r) ? cell_u64(system_of(r)->host.storage.os_drive_bytes) : cell_null())},
    {"system.load_time_s", U_::seconds,
     "v2: weights read, deserialized and copied to the GPUs from --storage by the engine's loader "
     "(cold_start load_s; v1: the NVMe PCIe 4.0 drive's sequential read alone)",
     MACHINE(system_of(r) ? cell_f64(r2(system_of(r)->cold_start.load_s)) : cell_null())},
    {"system.load_time_s_hdd_7200_rpm", U_::seconds,
     "v2: the same load from a 7200 rpm disk (absent without host)", MACHINE(load_time(r, 0))},
    {"system.load_time_s_sata_ssd", U_::seconds, "from a SATA SSD", MACHINE(load_time(r, 1))},
    {"system.load_time_s_nvme_pcie_3_0", U_::seconds, "from NVMe PCIe 3.0",
     MACHINE(load_time(r, 2))},
    {"system.load_time_s_nvme_pcie_4_0", U_::seconds, "from NVMe PCIe 4.0",
     MACHINE(load_time(r, 3))},
    {"system.load_time_s_nvme_pcie_5_0", U_::seconds, "from NVMe PCIe 5.0",
     MACHINE(load_time(r, 4))},
    {"system.cpu_cores", U_::count, "CPU cores per machine, all sockets",
     MACHINE(system_of(r) && system_of(r)->host.cpu_cores ? cell_u64(system_of(r)->host.cpu_cores)
                                                          : cell_null())},
    {"system.cold_start_s", U_::seconds, "process start to serving, every step (--storage)",
     MACHINE(system_of(r) ? cell_f64(r2(system_of(r)->cold_start.total_s)) : cell_null())},
    {"system.bom_total_usd", U_::usd,
     "sum of the priced BOM lines (a floor when some are unpriced)",
     MACHINE(system_of(r) ? opt(round_half_away(system_of(r)->bom_total_usd)) : cell_null())},
    {"system.pcie_lanes", U_::count,
     "PCIe lanes wired to the GPUs of one machine: the platform's lanes per GPU x GPUs per machine "
     "(null for baseboard modules and whole computers)",
     MACHINE(system_of(r) && system_of(r)->choice.lanes_per_gpu
                 ? cell_u64(system_of(r)->choice.lanes_per_gpu * system_of(r)->choice.gpus_per_node)
                 : cell_null())},
    {"system.ram_bandwidth_gb_per_s", U_::gb_per_s, "RAM bandwidth offloaded layers are read at",
     MACHINE(plan_of(r).ram_bandwidth_gb_per_s > 0 ? cell_f64(r2(plan_of(r).ram_bandwidth_gb_per_s))
                                                   : cell_null())},
    // power
    {"power.peak_watts", U_::watts,
     "DC load at full tilt, all machines (v2: the rated model's DC maximum)",
     MACHINE(power_of(r) ? cell_f64(round_half_away(power_of(r)->peak_w)) : cell_null())},
    {"power.max_wall_watts", U_::watts,
     "maximum at the wall as vendors rate it, all machines: circuits and cooling",
     MACHINE(system_of(r) ? opt(round_half_away(system_of(r)->max_wall_w_total)) : cell_null())},
    {"power.typical_wall_watts", U_::watts,
     "typical draw under the workload (decode at the batch, prefill bursts, idle), all machines",
     MACHINE(system_of(r) ? opt(round_half_away(system_of(r)->typical_wall_w_total))
                          : cell_null())},
    {"power.psu_watts", U_::watts, "rating of one PSU (null when the platform's is unrated)",
     MACHINE(system_of(r) && system_of(r)->psus.watts > 0 ? cell_f64(system_of(r)->psus.watts)
                                                          : cell_null())},
    {"power.psu_count", U_::count,
     "PSUs per machine, spares included (null when the platform's are not published)",
     MACHINE(system_of(r) && system_of(r)->psus.count ? cell_u64(system_of(r)->psus.count)
                                                      : cell_null())},
    {"power.psu_redundancy", U_::text,
     "PSUs carrying the load + spares (\"4+2\"), or none (null when not published)",
     MACHINE(system_of(r) && system_of(r)->psus.count && !plan_of(r).psu_redundancy.empty()
                 ? cell_str(plan_of(r).psu_redundancy)
                 : cell_null())},
    {"power.wall_watts", U_::watts, "AC draw at peak (v2: = max_wall_watts)",
     MACHINE(power_of(r) ? cell_f64(round_half_away(power_of(r)->wall_w)) : cell_null())},
    {"power.mains_volts", U_::volts, "mains voltage",
     RUN(cell_f64(plan_of(r).power_input.mains_v))},
    {"power.circuit_amps", U_::amps, "current at the mains voltage",
     MACHINE(power_of(r) ? cell_f64(r2(power_of(r)->amps)) : cell_null())},
    {"power.fits_ordinary_outlet", U_::boolean, "one ordinary outlet carries it",
     MACHINE(power_of(r) ? cell_bool(power_of(r)->fits_outlet) : cell_null())},
    {"power.circuit", U_::text, "circuit advice",
     MACHINE(power_of(r) ? cell_str(r.circuit) : cell_null())},
    {"power.heat_watts", U_::watts, "heat to remove",
     MACHINE(power_of(r) ? cell_f64(round_half_away(power_of(r)->wall_w)) : cell_null())},
    {"power.heat_btu_per_hour", U_::btu_per_hour, "heat to remove",
     MACHINE(power_of(r) ? cell_f64(round_half_away(power_of(r)->heat_btu_per_h)) : cell_null())},
    {"power.energy_kwh_per_year", U_::kwh_per_year,
     "typical draw busy at the duty cycle, idle the rest",
     MACHINE(power_of(r) ? cell_f64(round_half_away(power_of(r)->energy_kwh_per_year))
                         : cell_null())},
    {"power.basis", U_::text,
     "machine (the catalog machine's power model), generic (a generic platform row's: no sourced "
     "machine takes the GPUs; system.platform_basis says where its numbers come from); null "
     "without power (no platform takes the GPUs, or a whole computer without a published figure)",
     MACHINE(power_basis(plan_of(r)) != FigureBasis::none
                 ? cell_str(to_string(power_basis(plan_of(r))))
                 : cell_null())},
    // throughput
    {"throughput.decode_tokens_per_s", U_::tokens_per_s,
     "decode speed per sequence (null for embedding and rerank)",
     GET(speed_of(r) && generates(r) ? cell_f64(r2(speed_of(r)->decode_tokens_per_s))
                                     : cell_null())},
    {"throughput.decode_tokens_per_s_low", U_::tokens_per_s, "its calibration's low end",
     GET(speed_of(r) && generates(r) ? cell_f64(r2(speed_of(r)->decode_low)) : cell_null())},
    {"throughput.decode_tokens_per_s_high", U_::tokens_per_s, "high end",
     GET(speed_of(r) && generates(r) ? cell_f64(r2(speed_of(r)->decode_high)) : cell_null())},
    {"throughput.aggregate_tokens_per_s", U_::tokens_per_s,
     "all sequences (and replicas) together: the figure the table prints and cost per token "
     "divides by (a serving plan: its output_tokens_per_s)",
     GET(speed_of(r) && generates(r) ? cell_f64(r2(speed_of(r)->aggregate_tokens_per_s))
                                     : cell_null())},
    {"throughput.documents_per_s", U_::documents_per_s,
     "embedding / rerank: documents of settings.context tokens encoded per second (prefill)",
     GET(speed_of(r) && !generates(r) ? cell_f64(r2(speed_of(r)->documents_per_s)) : cell_null())},
    {"throughput.documents_per_s_low", U_::documents_per_s, "low end",
     GET(speed_of(r) && !generates(r) ? cell_f64(r2(speed_of(r)->documents_low)) : cell_null())},
    {"throughput.documents_per_s_high", U_::documents_per_s, "high end",
     GET(speed_of(r) && !generates(r) ? cell_f64(r2(speed_of(r)->documents_high)) : cell_null())},
    {"throughput.batch_s", U_::seconds,
     "embedding / rerank: time of one batch of settings.batch "
     "documents",
     GET(speed_of(r) && !generates(r) ? cell_f64(r3(speed_of(r)->batch_s)) : cell_null())},
    {"throughput.prefill_tokens_per_s", U_::tokens_per_s, "prompt processing",
     GET(speed_of(r) ? cell_f64(round_half_away(speed_of(r)->prefill_tokens_per_s)) : cell_null())},
    {"throughput.prefill_tokens_per_s_low", U_::tokens_per_s, "low end",
     GET(speed_of(r) ? cell_f64(round_half_away(speed_of(r)->prefill_low)) : cell_null())},
    {"throughput.prefill_tokens_per_s_high", U_::tokens_per_s, "high end",
     GET(speed_of(r) ? cell_f64(round_half_away(speed_of(r)->prefill_high)) : cell_null())},
    {"throughput.time_to_first_token_s", U_::seconds,
     "for the prompt (a serving plan: its ttft_s, queueing included; null when overloaded)",
     GET(speed_of(r) && !(serving_estimate_of(r) && serving_estimate_of(r)->overloaded)
             ? cell_f64(r3(speed_of(r)->time_to_first_token_s))
             : cell_null())},
    {"throughput.prompt_tokens", U_::tokens, "prompt length",
     RUN(cell_u64(plan_of(r).speed_input.prompt_tokens))},
    {"throughput.max_concurrent_sequences", U_::count, "sequences of the context that fit",
     GET(gpu_plan_of(r) ? cell_u64(plan_of(r).max_concurrent_sequences) : cell_null())},
    {"throughput.calibration", U_::text, "speed calibration family",
     PER_GPU(speed_of(r) ? cell_str(speed_of(r)->calibration->family) : cell_null())},
    // One capacity plan (#20): a layer split's replicas (plan_capacity) or a serving engine's
    // search (throughput.serving_capacity_* adds its own figures).
    {"throughput.users", U_::count, "--users of a capacity plan",
     CAPACITY(capacity_of(r)           ? cell_u64(capacity_of(r)->users)
              : serving_capacity_of(r) ? cell_u64(serving_of(r)->workload.users)
                                       : cell_null())},
    {"throughput.target_tokens_per_s", U_::tokens_per_s,
     "--target-tps (a serving plan sized for --users alone: the usable speed)",
     CAPACITY(capacity_of(r)           ? cell_f64(capacity_of(r)->target_tokens_per_s)
              : serving_capacity_of(r) ? cell_f64(serving_of(r)->capacity_target_tokens_per_s)
                                       : cell_null())},
    {"throughput.capacity_gpus", U_::count, "GPUs the capacity plan needs",
     CAPACITY(capacity_of(r) && capacity_of(r)->gpus ? cell_u64(capacity_of(r)->gpus)
              : serving_capacity_of(r) && serving_capacity_of(r)->found
                  ? cell_u64(serving_capacity_of(r)->gpus)
                  : cell_null())},
    {"throughput.capacity_tp_degree", U_::count, "GPUs per replica",
     CAPACITY(capacity_of(r) && capacity_of(r)->gpus ? cell_u64(capacity_of(r)->tp_degree)
              : serving_capacity_of(r) && serving_capacity_of(r)->found
                  ? cell_u64(serving_capacity_of(r)->deployment.tp *
                             serving_capacity_of(r)->deployment.pp)
                  : cell_null())},
    {"throughput.capacity_replicas", U_::count, "replicas",
     CAPACITY(capacity_of(r) && capacity_of(r)->gpus ? cell_u64(capacity_of(r)->replicas)
              : serving_capacity_of(r) && serving_capacity_of(r)->found
                  ? cell_u64(serving_capacity_of(r)->deployment.replicas)
                  : cell_null())},
    {"throughput.capacity_limited_by", U_::text,
     "memory, speed, or why unreachable (a serving search: what stops one more user, or "
     "unreachable)",
     CAPACITY(capacity_of(r)           ? cell_str(r.capacity_limited_by)
              : serving_capacity_of(r) ? cell_str(serving_capacity_of(r)->found
                                                      ? limit_name(serving_capacity_of(r)->binding)
                                                      : "unreachable")
                                       : cell_null())},
    // throughput of a serving plan (#10: --engine vllm|sglang|trt-llm, or --isl/--osl/--rate/...)
    {"throughput.engine", U_::text, "serving engine whose step model and calibration apply",
     SERVING(serving_of(r) ? cell_str(engine_profile(serving_of(r)->deployment.engine).name)
                           : cell_null())},
    {"throughput.isl", U_::tokens, "tokens in per request (--isl)",
     SERVING(serving_of(r) ? cell_u64(serving_of(r)->workload.isl) : cell_null())},
    {"throughput.osl", U_::tokens, "tokens out per request (--osl)",
     SERVING(serving_of(r) ? cell_u64(serving_of(r)->workload.osl) : cell_null())},
    {"throughput.output_tokens_per_s", U_::tokens_per_s,
     "aggregate output tokens/s of every replica (serving step model)",
     SERVING(serving_estimate_of(r)
                 ? cell_f64(r2(serving_estimate_of(r)->output_tokens_per_s.value))
                 : cell_null())},
    {"throughput.output_tokens_per_s_low", U_::tokens_per_s, "its calibration's low end",
     SERVING(serving_estimate_of(r) ? cell_f64(r2(serving_estimate_of(r)->output_tokens_per_s.low))
                                    : cell_null())},
    {"throughput.output_tokens_per_s_high", U_::tokens_per_s, "high end",
     SERVING(serving_estimate_of(r) ? cell_f64(r2(serving_estimate_of(r)->output_tokens_per_s.high))
                                    : cell_null())},
    {"throughput.per_user_tokens_per_s", U_::tokens_per_s, "one user's decode speed (1 / ITL)",
     SERVING(serving_estimate_of(r)
                 ? cell_f64(r2(serving_estimate_of(r)->per_user_tokens_per_s.value))
                 : cell_null())},
    {"throughput.per_user_tokens_per_s_low", U_::tokens_per_s, "low end",
     SERVING(serving_estimate_of(r)
                 ? cell_f64(r2(serving_estimate_of(r)->per_user_tokens_per_s.low))
                 : cell_null())},
    {"throughput.per_user_tokens_per_s_high", U_::tokens_per_s, "high end",
     SERVING(serving_estimate_of(r)
                 ? cell_f64(r2(serving_estimate_of(r)->per_user_tokens_per_s.high))
                 : cell_null())},
    {"throughput.ttft_s", U_::seconds,
     "mean time to first token, queueing included (null when overloaded)",
     SERVING(serving_estimate_of(r) && !serving_estimate_of(r)->overloaded
                 ? cell_f64(r3(serving_estimate_of(r)->ttft_s.value))
                 : cell_null())},
    {"throughput.ttft_s_low", U_::seconds, "low end",
     SERVING(serving_estimate_of(r) && !serving_estimate_of(r)->overloaded
                 ? cell_f64(r3(serving_estimate_of(r)->ttft_s.low))
                 : cell_null())},
    {"throughput.ttft_s_high", U_::seconds, "high end",
     SERVING(serving_estimate_of(r) && !serving_estimate_of(r)->overloaded
                 ? cell_f64(r3(serving_estimate_of(r)->ttft_s.high))
                 : cell_null())},
    {"throughput.ttft_p90_s", U_::seconds,
     "90th percentile TTFT over the requests (the queue's tail; a closed loop's first wave "
     "among them)",
     SERVING(serving_estimate_of(r) && !serving_estimate_of(r)->overloaded
                 ? cell_f64(r3(serving_estimate_of(r)->ttft_p90_s))
                 : cell_null())},
    {"throughput.ttft_p99_s", U_::seconds, "99th percentile TTFT, the same way",
     SERVING(serving_estimate_of(r) && !serving_estimate_of(r)->overloaded
                 ? cell_f64(r3(serving_estimate_of(r)->ttft_p99_s))
                 : cell_null())},
    {"throughput.ttft_first_wave_s", U_::seconds,
     "the first wave's share of ttft_s: every user's first request at once, its wait beyond the "
     "steady one over requests_per_user",
     SERVING(serving_estimate_of(r) && !serving_estimate_of(r)->overloaded
                 ? cell_f64(r3(serving_estimate_of(r)->first_wave_s))
                 : cell_null())},
    {"throughput.request_overhead_s", U_::seconds,
     "the engine's time per request outside the GPU steps (front end, tokenization, first "
     "token's return), in ttft_s",
     SERVING(serving_estimate_of(r) ? cell_f64(r3(serving_estimate_of(r)->request_overhead_s))
                                    : cell_null())},
    {"throughput.requests_per_user", U_::count,
     "each user's requests in the closed loop (--requests-per-user; null under --rate)",
     SERVING(serving_of(r) && serving_of(r)->workload.rate_per_s <= 0
                 ? cell_u64(serving_of(r)->workload.requests_per_user)
                 : cell_null())},
    {"throughput.overloaded", U_::boolean,
     "--rate exceeds what the deployment completes: the queue grows without bound",
     SERVING(serving_estimate_of(r) && serving_estimate_of(r)->fits
                 ? cell_bool(serving_estimate_of(r)->overloaded)
                 : cell_null())},
    {"throughput.sustainable_requests_per_s", U_::count,
     "when overloaded: the most requests/s the deployment completes (null otherwise)",
     SERVING(serving_estimate_of(r) && serving_estimate_of(r)->overloaded
                 ? cell_f64(r3(serving_estimate_of(r)->sustainable_requests_per_s))
                 : cell_null())},
    {"throughput.itl_s", U_::seconds, "mean inter-token latency",
     SERVING(serving_estimate_of(r) ? cell_f64(r5(serving_estimate_of(r)->itl_s.value))
                                    : cell_null())},
    {"throughput.itl_p90_s", U_::seconds, "90th percentile inter-token latency",
     SERVING(serving_estimate_of(r) ? cell_f64(r5(serving_estimate_of(r)->itl_p90_s))
                                    : cell_null())},
    {"throughput.requests_per_s", U_::count, "requests completed per second",
     SERVING(serving_estimate_of(r) ? cell_f64(r3(serving_estimate_of(r)->requests_per_s))
                                    : cell_null())},
    {"throughput.concurrency", U_::count, "sequences running per replica",
     SERVING(serving_estimate_of(r) ? cell_u64(serving_estimate_of(r)->concurrency) : cell_null())},
    {"throughput.queued", U_::count,
     "requests waiting per replica (beyond max concurrency); null when overloaded (growing)",
     SERVING(serving_estimate_of(r) && !serving_estimate_of(r)->overloaded
                 ? cell_u64(serving_estimate_of(r)->queued)
                 : cell_null())},
    {"throughput.max_concurrency", U_::count,
     "sequences one replica admits, KV charged as throughput.kv_charged says",
     SERVING(serving_estimate_of(r) ? cell_u64(serving_estimate_of(r)->max_concurrency)
                                    : cell_null())},
    {"throughput.max_concurrency_guarantee", U_::count,
     "sequences one replica holds at max_model_len each",
     SERVING(serving_estimate_of(r) ? cell_u64(serving_estimate_of(r)->max_concurrency_guarantee)
                                    : cell_null())},
    {"throughput.limited_by", U_::text,
     "what bounds the step: memory, compute, bandwidth, link, host, batch, ttft, tpot, overload",
     SERVING(serving_estimate_of(r) ? cell_str(limit_name(serving_estimate_of(r)->limited_by))
                                    : cell_null())},
    {"throughput.meets_ttft", U_::boolean,
     "TTFT at --slo-percentile (the mean by default) meets --ttft-ms (true without one)",
     SERVING(serving_estimate_of(r) ? cell_bool(serving_estimate_of(r)->meets_ttft) : cell_null())},
    {"throughput.meets_tpot", U_::boolean,
     "ITL at --slo-percentile (the mean by default) meets --tpot-ms (true without one)",
     SERVING(serving_estimate_of(r) ? cell_bool(serving_estimate_of(r)->meets_tpot) : cell_null())},
    {"throughput.fits", U_::boolean, "weights and one sequence fit the engine's KV pool",
     SERVING(serving_estimate_of(r) ? cell_bool(serving_estimate_of(r)->fits) : cell_null())},
    {"throughput.kv_dtype", U_::text, "KV cache element type",
     SERVING(serving_of(r) ? cell_str(kv_dtype_name(serving_of(r)->deployment.kv)) : cell_null())},
    {"throughput.kv_cache_tokens", U_::count,
     "tokens one replica's KV pool holds (vLLM's 'GPU KV cache size: N tokens')",
     SERVING(serving_estimate_of(r) ? cell_u64(serving_estimate_of(r)->kv_cache_tokens)
                                    : cell_null())},
    {"throughput.max_concurrency_at_max_model_len", U_::count,
     "the pool over one max_model_len request (vLLM's 'Maximum concurrency for L tokens per "
     "request: C x')",
     SERVING(serving_estimate_of(r)
                 ? cell_f64(r3(serving_estimate_of(r)->max_concurrency_at_max_model_len))
                 : cell_null())},
    {"throughput.kv_pool_bytes_per_gpu", U_::bytes, "KV pool of one GPU under the engine's rule",
     SERVING(serving_estimate_of(r) ? cell_u64(serving_estimate_of(r)->kv_pool_bytes_per_gpu)
                                    : cell_null())},
    {"throughput.kv_bytes_per_seq_planning", U_::bytes,
     "KV of a sequence holding isl + osl / 2 tokens (the mean)",
     SERVING(serving_estimate_of(r) ? cell_u64(serving_estimate_of(r)->kv_bytes_per_seq)
                                    : cell_null())},
    {"throughput.kv_bytes_per_seq_guarantee", U_::bytes, "KV of a sequence at max_model_len",
     SERVING(serving_estimate_of(r) ? cell_u64(serving_estimate_of(r)->kv_bytes_per_seq_guarantee)
                                    : cell_null())},
    {"throughput.kv_charged", U_::text,
     "planning (paged, on demand: vLLM, SGLang) or guarantee (reserved: TRT-LLM, slots)",
     SERVING(serving_of(r)
                 ? cell_str(serving_of(r)->kv_charged_guarantee ? "guarantee" : "planning")
                 : cell_null())},
    {"throughput.max_model_len", U_::tokens, "tokens per sequence the engine is launched with",
     SERVING(serving_of(r) ? cell_u64(serving_of(r)->launch.max_model_len) : cell_null())},
    {"throughput.memory_fraction", U_::fraction,
     "gpu_memory_utilization / mem_fraction_static / free_gpu_memory_fraction; a slot engine: "
     "the share its slots fill, 1 / (1 + headroom) when llmsize sizes it (0: all the engine "
     "would, on a count given)",
     SERVING(serving_of(r) ? cell_f64(r3(serving_of(r)->deployment.limits.memory_fraction))
                           : cell_null())},
    {"throughput.max_num_seqs", U_::count, "running requests the engine admits per replica",
     SERVING(serving_of(r) ? cell_u64(serving_of(r)->deployment.limits.max_num_seqs)
                           : cell_null())},
    {"throughput.max_num_batched_tokens", U_::count, "tokens per engine step",
     SERVING(serving_of(r) ? cell_u64(serving_of(r)->deployment.limits.max_num_batched_tokens)
                           : cell_null())},
    {"throughput.tensor_parallel", U_::count, "tensor-parallel degree of a replica",
     SERVING(serving_of(r) ? cell_u64(serving_of(r)->deployment.tp) : cell_null())},
    {"throughput.pipeline_parallel", U_::count, "pipeline stages of a replica",
     SERVING(serving_of(r) ? cell_u64(serving_of(r)->deployment.pp) : cell_null())},
    {"throughput.replicas", U_::count, "replicas (data parallel)",
     SERVING(serving_of(r) ? cell_u64(serving_of(r)->deployment.replicas) : cell_null())},
    {"throughput.gpus", U_::count, "GPUs of the deployment (tp x pp x replicas)",
     SERVING(serving_of(r) ? cell_u64(serving_of(r)->deployment.gpus()) : cell_null())},
    {"throughput.nodes", U_::count, "machines the deployment runs on (= gpu.nodes, system.nodes)",
     SERVING(serving_of(r)
                 ? cell_u64(gpu_plan_of(r) ? gpu_plan_of(r)->nodes : serving_of(r)->nodes())
                 : cell_null())},
    {"throughput.power_scale", U_::fraction, "throughput kept at --power-limit (calibrated curve)",
     SERVING(serving_estimate_of(r) ? cell_f64(r3(serving_estimate_of(r)->power_scale))
                                    : cell_null())},
    {"throughput.serving_calibration", U_::text, "the engine calibration's basis",
     SERVING(serving_estimate_of(r) && serving_estimate_of(r)->calibration
                 ? cell_str(serving_estimate_of(r)->calibration->basis)
                 : cell_null())},
    {"throughput.serving_error_median", U_::fraction, "its median error on aggregate throughput",
     SERVING(serving_estimate_of(r) && serving_estimate_of(r)->calibration
                 ? cell_f64(serving_estimate_of(r)->calibration->error_median)
                 : cell_null())},
    {"throughput.serving_error_worst", U_::fraction, "its worst error (ratio - 1)",
     SERVING(serving_estimate_of(r) && serving_estimate_of(r)->calibration
                 ? cell_f64(serving_estimate_of(r)->calibration->error_worst)
                 : cell_null())},
    // a serving capacity plan (#10: --users N --target-tps T [--ttft-ms X])
    {"throughput.serving_capacity_found", U_::boolean,
     "a deployment meets the target within 1024 GPUs",
     SERVING(serving_capacity_of(r) ? cell_bool(serving_capacity_of(r)->found) : cell_null())},
    {"throughput.serving_capacity_gpus", U_::count, "GPUs it needs",
     SERVING(serving_capacity_of(r) && serving_capacity_of(r)->found
                 ? cell_u64(serving_capacity_of(r)->gpus)
                 : cell_null())},
    {"throughput.serving_capacity_users_per_replica", U_::count,
     "users one replica carries meeting the target",
     SERVING(serving_capacity_of(r) && serving_capacity_of(r)->found
                 ? cell_u64(serving_capacity_of(r)->users_per_replica)
                 : cell_null())},
    {"throughput.serving_capacity_user_headroom", U_::count,
     "users beyond --users the deployment still carries",
     SERVING(serving_capacity_of(r) && serving_capacity_of(r)->found
                 ? cell_u64(serving_capacity_of(r)->user_headroom)
                 : cell_null())},
    {"throughput.serving_capacity_binding", U_::text, "the limit that stops one more user",
     SERVING(serving_capacity_of(r) ? cell_str(limit_name(serving_capacity_of(r)->binding))
                                    : cell_null())},
    {"throughput.serving_capacity_memory_min_gpus", U_::count,
     "the fewest GPUs that hold the weights and one sequence",
     SERVING(serving_capacity_of(r) ? cell_u64(serving_capacity_of(r)->memory_min_gpus)
                                    : cell_null())},
    // --redundancy n+k (#27): spares so that any k machines down leave the users served
    {"throughput.redundancy", U_::text,
     "n+1 or n+2: the machines that may be down with every target still met (null: none asked)",
     SERVING(spares_of(r) ? cell_str(spares_of(r)->spare_machines == 1 ? "n+1" : "n+2")
                          : cell_null())},
    {"throughput.redundancy_spare_replicas", U_::count,
     "replicas bought on top of those the users need",
     SERVING(spares_of(r) ? cell_u64(spares_of(r)->capacity->spare_replicas) : cell_null())},
    {"throughput.redundancy_spare_gpus", U_::count, "their GPUs",
     SERVING(spares_of(r) ? cell_u64(uint64_t{spares_of(r)->capacity->spare_replicas} *
                                     spares_of(r)->deployment.tp * spares_of(r)->deployment.pp)
                          : cell_null())},
    {"throughput.redundancy_spare_usd", U_::usd,
     "what the spares add to the bill of materials (a floor when a line is unpriced; null: "
     "unpriced)",
     SERVING(spares_of(r) && spares_of(r)->spare_usd > 0 ? cell_f64(r2(spares_of(r)->spare_usd))
                                                         : cell_null())},
    {"throughput.redundancy_replicas_surviving", U_::count,
     "replicas left with the machines that hold the most of them down",
     SERVING(spares_of(r) ? cell_u64(spares_of(r)->replicas_surviving) : cell_null())},
    {"throughput.degraded_per_user_tokens_per_s", U_::tokens_per_s,
     "each user's decode speed on the replicas the users need (the spares down)",
     SERVING(spares_of(r)
                 ? cell_f64(r2(spares_of(r)->capacity->degraded.per_user_tokens_per_s.value))
                 : cell_null())},
    {"throughput.degraded_ttft_s", U_::seconds, "their mean time to first token",
     SERVING(spares_of(r) ? cell_f64(r3(spares_of(r)->capacity->degraded.ttft_s.value))
                          : cell_null())},
    {"throughput.degraded_meets_target", U_::boolean,
     "the users' targets still met with the machines down",
     SERVING(spares_of(r) ? cell_bool(spares_of(r)->degraded_meets()) : cell_null())},
    {"throughput.layouts_searched", U_::count,
     "layouts (TP x PP x replicas) of the GPUs given that the serving plan estimated, the best "
     "taken (null: the GPUs were not given, or the engine splits layers)",
     SERVING(serving_of(r) && serving_of(r)->layouts_searched
                 ? cell_u64(serving_of(r)->layouts_searched)
                 : cell_null())},
    {"throughput.runner_up_layout", U_::text, "the second best of those layouts",
     SERVING(serving_of(r) && serving_of(r)->runner_up ? cell_str(r.runner_up) : cell_null())},
    {"throughput.runner_up_output_tokens_per_s", U_::tokens_per_s,
     "its output tokens/s under the same workload",
     SERVING(serving_of(r) && serving_of(r)->runner_up
                 ? cell_f64(r2(serving_of(r)->runner_up_estimate.output_tokens_per_s.value))
                 : cell_null())},
    // disaggregated prefill and decode (#22: --prefill-gpus)
    {"throughput.prefill_workers", U_::count,
     "prefill workers apart from the decode replicas (null: prefill and decode share the GPUs)",
     SERVING(serving_of(r) && serving_of(r)->deployment.disaggregated()
                 ? cell_u64(serving_of(r)->deployment.prefill_workers)
                 : cell_null())},
    {"throughput.prefill_tp", U_::count, "each prefill worker's tensor-parallel degree",
     SERVING(serving_of(r) && serving_of(r)->deployment.disaggregated()
                 ? cell_u64(serving_of(r)->deployment.prefill_tp)
                 : cell_null())},
    {"throughput.prefill_utilization", U_::fraction, "the share of the prefill workers' time busy",
     SERVING(serving_of(r) && serving_of(r)->deployment.disaggregated() &&
                     serving_estimate_of(r)->fits
                 ? cell_f64(r4(serving_estimate_of(r)->prefill_utilization))
                 : cell_null())},
    {"throughput.kv_transfer_s", U_::seconds,
     "seconds a request's KV takes from its prefill worker to its decode worker",
     SERVING(serving_of(r) && serving_of(r)->deployment.disaggregated() &&
                     serving_estimate_of(r)->fits
                 ? cell_f64(r4(serving_estimate_of(r)->kv_transfer_s))
                 : cell_null())},
    // speculative decoding (#22: --spec)
    {"throughput.spec_method", U_::text,
     "speculative decoding's draft: mtp, eagle3 or draft (null: none)",
     SERVING(serving_of(r) && serving_of(r)->deployment.spec.active()
                 ? cell_str(spec_method_name(serving_of(r)->deployment.spec.method))
                 : cell_null())},
    {"throughput.spec_draft_tokens", U_::count, "draft tokens proposed per step",
     SERVING(serving_of(r) && serving_of(r)->deployment.spec.active()
                 ? cell_u64(serving_of(r)->deployment.spec.draft_tokens)
                 : cell_null())},
    {"throughput.spec_acceptance", U_::fraction,
     "the share of draft tokens accepted, each given the ones before it were",
     SERVING(serving_of(r) && serving_of(r)->deployment.spec.active()
                 ? cell_f64(r4(serving_of(r)->deployment.spec.acceptance))
                 : cell_null())},
    {"throughput.spec_tokens_per_step", U_::tokens,
     "tokens each sequence emits per verification step, its own included",
     SERVING(serving_of(r) && serving_of(r)->deployment.spec.active()
                 ? cell_f64(r4(serving_of(r)->deployment.spec.tokens_per_step()))
                 : cell_null())},
    {"throughput.spec_acceptance_measured_on", U_::text,
     "the model whose published acceptance is used (null: --spec-acceptance gave it)",
     SERVING(serving_of(r) && serving_of(r)->deployment.spec.measured
                 ? cell_str(std::string(serving_of(r)->deployment.spec.measured->model))
                 : cell_null())},
    {"throughput.per_user_tokens_per_s_without_spec", U_::tokens_per_s,
     "each user's tokens/s on the same deployment without speculative decoding",
     SERVING(serving_of(r) && serving_of(r)->without_spec
                 ? cell_f64(r2(serving_of(r)->without_spec->per_user_tokens_per_s.value))
                 : cell_null())},
    {"throughput.output_tokens_per_s_without_spec", U_::tokens_per_s,
     "output tokens/s of the same deployment without speculative decoding",
     SERVING(serving_of(r) && serving_of(r)->without_spec
                 ? cell_f64(r2(serving_of(r)->without_spec->output_tokens_per_s.value))
                 : cell_null())},
    // cost
    {"cost.hardware_usd", U_::usd,
     "v2: the BOM's priced lines (GPUs + platform + RAM, drives, NICs); v1: GPUs + a class price",
     GET(cost_of(r) && cost_of(r)->priced ? cell_f64(round_half_away(cost_of(r)->capex_usd))
                                          : cell_null())},
    {"cost.gpus_usd", U_::usd, "GPUs",
     GET(cost_of(r) && cost_of(r)->priced ? cell_f64(round_half_away(cost_of(r)->gpus_usd))
                                          : cell_null())},
    {"cost.hardware_complete", U_::boolean,
     "every BOM line has a price (false: hardware_usd is a floor)",
     GET(cost_of(r) && cost_of(r)->priced ? cell_bool(cost_of(r)->complete) : cell_null())},
    {"cost.host_usd", U_::usd, "the host around them",
     GET(cost_of(r) ? cell_f64(round_half_away(cost_input_of(r).host_usd)) : cell_null())},
    {"cost.energy_usd_per_year", U_::usd_per_year, "energy",
     GET(cost_of(r) ? cell_f64(round_half_away(cost_of(r)->energy_usd_per_year)) : cell_null())},
    {"cost.usd_per_million_tokens", U_::usd_per_mtok, "hardware amortised + energy per 1M tokens",
     GET(cost_of(r) && cost_of(r)->priced && cost_of(r)->usd_per_mtok > 0
             ? cell_f64(r4(cost_of(r)->usd_per_mtok))
             : cell_null())},
    {"cost.cloud_usd_per_million_tokens", U_::usd_per_mtok, "--cloud-price",
     RUN(opt(plan_of(r).cost_input.cloud_price_per_mtok))},
    {"cost.breakeven_months", U_::months, "against the cloud price",
     GET(cost_of(r) && cost_of(r)->breakeven_months > 0 ? cell_f64(r2(cost_of(r)->breakeven_months))
                                                        : cell_null())},
    // buy against rent (#27)
    {"cost.rent_usd_per_gpu_hour", U_::usd,
     "the same GPU rented, USD per GPU-hour: --rent-price, else the median of the providers' "
     "published on-demand prices (null: none in the catalog)",
     GET(cost_of(r) && cost_of(r)->rent_usd_per_month > 0
             ? cell_f64(cost_input_of(r).rent_usd_per_gpu_hour)
             : cell_null())},
    {"cost.rent_gpus", U_::count, "the GPUs rented: the plan's",
     GET(cost_of(r) && cost_of(r)->rent_usd_per_month > 0 ? cell_u64(cost_input_of(r).rent_gpus)
                                                          : cell_null())},
    {"cost.rent_usd_per_month", U_::usd, "renting them around the clock, a month",
     GET(cost_of(r) && cost_of(r)->rent_usd_per_month > 0
             ? cell_f64(round_half_away(cost_of(r)->rent_usd_per_month))
             : cell_null())},
    {"cost.rent_breakeven_months", U_::months,
     "months after which owning (hardware, energy, colocation) costs less than renting (null: "
     "never, or no rental price)",
     GET(cost_of(r) && cost_of(r)->rent_breakeven_months > 0
             ? cell_f64(r2(cost_of(r)->rent_breakeven_months))
             : cell_null())},
    {"cost.colo_usd_per_month", U_::usd, "--colo-usd-per-kw-month x the machines' maximum kW",
     GET(cost_of(r) && cost_of(r)->colo_usd_per_month > 0
             ? cell_f64(round_half_away(cost_of(r)->colo_usd_per_month))
             : cell_null())},
    {"cost.years", U_::years, "amortisation", RUN(cell_f64(plan_of(r).cost_input.years))},
    {"cost.utilization", U_::fraction, "share of the year generating",
     RUN(cell_f64(plan_of(r).cost_input.utilization))},
    {"cost.kwh_price_usd", U_::usd_per_kwh, "electricity price",
     RUN(cell_f64(plan_of(r).cost_input.kwh_price_usd))},
    {"cost.basis", U_::text,
     "machine (the catalog machine's BOM) or generic (a generic platform row's BOM); null without "
     "a machine",
     GET(cost_basis(plan_of(r)) != FigureBasis::none ? cell_str(to_string(cost_basis(plan_of(r))))
                                                     : cell_null())},
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
     GET(cell_list(r.checklist, r.checklist_encoded))},
    {"warnings", U_::text, "assumptions and problems (CSV: joined by \"; \")",
     GET(cell_list(r.warnings, {}))},
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
  // The machine's rated power (as power_of()).
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
    // A run cell between two machine or two estimate cells joins their segment, and a gpu cell
    // between two machine cells: their keys hold the run (and a machine its GPU).
    auto scope_of = [&s](size_t i) {
      const Scope sc = s.cols[i]->scope;
      if (sc != Scope::run && sc != Scope::gpu) return sc;
      auto inner = [&s](size_t k) {
        return s.cols[k]->scope == Scope::run || s.cols[k]->scope == Scope::gpu;
      };
      size_t b = i, a = i;
      while (b > 0 && inner(b)) --b;
      while (a + 1 < s.cols.size() && inner(a)) ++a;
      const Scope before = s.cols[b]->scope, after = s.cols[a]->scope;
      if (before == Scope::machine && after == Scope::machine) return Scope::machine;
      if (sc == Scope::run && before == Scope::estimate && after == Scope::estimate)
        return Scope::estimate;
      return sc;
    };
    for (size_t i = 0; i < s.cols.size(); ++i) {
      const Scope sc = scope_of(i);
      if (s.runs.empty() || s.runs.back().scope != sc) s.runs.push_back(Segment{i, i, sc});
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
  if (reuse == Reuse::fresh) w.forget_keyed();
  // Segment `id` kept under `key` (0: not kept) with `pin` held, replayed for a later row with
  // the same key.
  const auto keyed = [&](size_t id, const Segment& s, uint64_t key, const auto& pin) {
    if (key && w.replay_keyed(id, key, s.last - s.first)) return;
    const size_t at = w.pos();
    write_cells(r, w, cols, s.first, s.last);
    if (key) w.keep_keyed(id, key, pin, at);
  };
  for (size_t id = 0; id < sg.runs.size(); ++id) {
    const Segment& s = sg.runs[id];
    bool same = false;
    switch (s.scope) {
      case Scope::row:
        write_cells(r, w, cols, s.first, s.last);
        continue;
      case Scope::machine:
        keyed(id, s, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p.system.get())), p.system);
        continue;
      case Scope::estimate:
        keyed(id, s, p.estimate.memo_serial, nullptr);
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
