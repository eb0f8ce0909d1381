#include "cli/render/report.hpp"

#include "cli/render/derivations.hpp"
#include "cli/render/fields.hpp"
#include "cli/render/system_report.hpp"
#include "cli/render/words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "llmsize/io/error.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {

namespace {

// The counts a machine is sold with, as words: "8", "4 or 8", "2, 4 or 8".
std::string counts_words(const std::vector<uint32_t>& counts) {
  std::vector<std::string> words;
  for (const uint32_t n : counts) words.push_back(std::to_string(n));
  return or_list(words);
}

using ojson = nlohmann::ordered_json;

std::string group(uint64_t v) {
  return group_digits(v);
}

std::string billions(uint64_t p) {
  return fmt::format("{:.2f} B", billions_of(p));
}

std::string usd(double v) {
  if (v <= 0) return "n/a";
  return "$" + group(static_cast<uint64_t>(std::llround(v)));
}

std::string duration(double s) {
  if (s < 120) return fmt::format("{:.1f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", minutes_of(s));
  return fmt::format("{:.1f} h", hours_of(s));
}

std::string quant_line(const Report& r) {
  std::string q = r.quant->id;
  if (r.quant_requested != r.quant->id)
    q += fmt::format(" (\"{}\" expands to {})", r.quant_requested, r.quant->id);
  return q;
}

std::string settings_line(const Report& r) {
  const auto& c = r.config;
  if (r.train)
    return fmt::format(
        "{} fine-tuning · checkpoint {} · {:.2f} bits/weight on disk · seq {} × batch "
        "{} per GPU",
        r.train_config.mode == TrainMode::full    ? "full"
        : r.train_config.mode == TrainMode::qlora ? "QLoRA"
                                                  : "LoRA",
        quant_line(r), r.estimate.weights.bits_per_weight(), group(r.train_config.seq),
        r.train_config.batch);
  if (r.model.spec.task != Task::generation)
    return fmt::format(
        "{} · {} · {:.2f} bits/weight · {} document{} × {} tokens · KV {} · n_ubatch {} · "
        "flash attention {}",
        task_name(r.model.spec.task), quant_line(r), r.estimate.weights.bits_per_weight(),
        c.kv.n_seq, c.kv.n_seq == 1 ? "" : "s", group(c.kv.n_ctx),
        r.model.spec.is_encoder() ? "none (encoder)" : traits(c.kv.type_k).name,
        r.estimate.ubatch_tokens, c.flash_attn ? "on" : "off");
  return fmt::format(
      "{} · {:.2f} bits/weight · context {} × {} sequence{} · KV {} · n_ubatch {} · flash "
      "attention {}",
      quant_line(r), r.estimate.weights.bits_per_weight(), group(c.kv.n_ctx), c.kv.n_seq,
      c.kv.n_seq == 1 ? "" : "s", traits(c.kv.type_k).name, c.kv.n_ubatch,
      c.flash_attn ? "on" : "off");
}

std::string model_line(const Report& r) {
  const auto& m = r.model.spec;
  std::string s = m.name;
  if (!m.id.empty()) s += " (" + m.id + ")";
  s += fmt::format(" · {} · {} params", arch_name(m.arch), billions(r.estimate.weights.params));
  if (m.is_moe()) s += fmt::format(", {} active", billions(r.estimate.weights.active_params));
  s += fmt::format(" · {} layers", m.n_layer);
  return s;
}

struct MemoryRow {
  std::string part;
  uint64_t bytes;
  std::string how;
};

std::string memory_scope_words(const Report& r) {
  const Estimate& e = r.estimate;
  const std::string gpus = fmt::format("{} GPU{}", e.n_gpus, e.n_gpus == 1 ? "" : "s");
  const ServingPlan* s = r.serving ? &*r.serving : nullptr;
  if (!s || !r.gpu || s->deployment.gpus() != r.gpu->count ||
      (s->deployment.replicas == 1 && !s->deployment.disaggregated()))
    return gpus;
  const Deployment& d = s->deployment;
  if (d.disaggregated())
    return fmt::format("one decode replica: {}, × {} replica{} + {} prefill GPU{} = {} GPUs", gpus,
                       d.replicas, d.replicas == 1 ? "" : "s", d.prefill_workers * d.prefill_tp,
                       d.prefill_workers * d.prefill_tp == 1 ? "" : "s", d.gpus());
  return fmt::format("one replica: {}, × {} replicas = {} GPUs", gpus, d.replicas, d.gpus());
}

std::vector<MemoryRow> memory_rows(const Report& r) {
  const auto& e = r.estimate;
  const auto& m = r.model.spec;
  const auto& c = r.config;
  std::vector<MemoryRow> rows;
  std::string w = fmt::format("{} params at {:.2f} bits/weight", billions(e.weights.text_params()),
                              e.weights.bits_per_weight());
  if (e.weights.layout_padding_bytes)
    w += fmt::format(" + {:.2f} GiB of the experts padded to the engine's kernel layout",
                     gib_of(e.weights.layout_padding_bytes));
  if (e.cpu_experts.bytes)
    w += fmt::format(
        "; in host RAM: the routed experts of {} blocks {:.2f} GiB (--n-cpu-moe), token_embd "
        "{:.2f} GiB",
        e.cpu_experts.n_moved, gib_of(e.cpu_experts.bytes),
        gib_of(e.weights.host_bytes - e.cpu_experts.bytes));
  else if (e.weights.host_bytes)
    w += fmt::format("; token_embd {:.2f} GiB kept in host RAM{}", gib_of(e.weights.host_bytes),
                     m.tied_embeddings ? " (copied to the GPU as the tied output)" : "");
  // The vision tower has a line of its own (llama.cpp: the separate mmproj file).
  const uint64_t vision = e.vision_weights_bytes();
  rows.push_back({"weights", e.text_weights_bytes(), w});
  if (vision)
    rows.push_back({"vision tower (mmproj)", vision,
                    fmt::format("{} params, F16 (a separate mmproj file in llama.cpp)",
                                billions(e.weights.vision_params))});
  std::string kv = fmt::format("{} cells × {} layers × {} B/cell", group(e.kv.cells_full),
                               e.kv.n_layer_full, e.kv.bytes_per_cell_layer());
  if (e.kv.n_layer_swa)
    kv += fmt::format(" + {} SWA layers × {} cells", e.kv.n_layer_swa, group(e.kv.cells_swa));
  const std::string seqs = e.kv.n_stream > 1 ? fmt::format(", × {} sequences", e.kv.n_stream)
                           : e.n_seq > 1
                               ? fmt::format(", one stream the {} sequences share", e.n_seq)
                               : std::string();
  kv += seqs;
  if (m.is_mla()) kv += " (MLA latent)";
  if (e.kv.parts.size() > 1 || !m.layer_kinds.empty()) {
    // By layer kind: "SWA 12 layers × 768 cells 18.0 MiB; full 12 layers × 4,096 cells 96.0 MiB".
    kv.clear();
    for (const auto& p : e.kv.parts) {
      if (!kv.empty()) kv += "; ";
      std::string name = p.indexer                     ? "indexer keys"
                         : p.compress_ratio            ? "compressed"
                         : p.attn == AttnKind::swa     ? "SWA"
                         : p.attn == AttnKind::chunked ? "chunked"
                         : p.attn == AttnKind::mla     ? "MLA latent"
                                                       : "full";
      if (p.compress_ratio) name += " 1/" + std::to_string(p.compress_ratio);
      kv += fmt::format("{} {} layers × {} cells {:.1f} MiB", name, p.n_layer, group(p.cells),
                        mib_of(p.bytes));
    }
    kv += seqs;
  }
  if (m.is_encoder())
    kv = fmt::format("none: an encoder ({}) attends over its ubatch and keeps no cache",
                     arch_name(m.arch));
  else if (m.task != Task::generation)
    kv += " (the batch's own tokens, nothing generated)";
  rows.push_back({"KV cache", e.kv_cache_bytes, kv});
  if (e.recurrent_state_bytes) {
    std::string rs;
    for (const auto& p : e.rs.parts)
      rs += fmt::format("{}{} {} layers × {:.2f} MiB = {:.2f} MiB per sequence",
                        rs.empty() ? "" : "; ", state_kind_name(p.kind), p.n_layer,
                        mib_of(p.n_layer ? p.bytes_per_seq() / p.n_layer : 0),
                        mib_of(p.bytes_per_seq()));
    rs += fmt::format(" × {} sequence{} (F32, independent of context)", e.rs.n_seq,
                      e.rs.n_seq > 1 ? "s" : "");
    rows.push_back({"recurrent state", e.recurrent_state_bytes, rs});
  }
  const auto& split = e.compute_split.devices;
  rows.push_back(
      {"compute buffers", e.activations_bytes,
       split.empty()
           ? fmt::format("{:.0f} MiB per GPU × {} (peak: {}){}", mib_of(e.compute.bytes()),
                         e.n_gpus, e.compute.peak(),
                         e.compute.weight_copy_bytes
                             ? fmt::format(", with {:.0f} MiB for a RAM expert's copy",
                                           mib_of(e.compute.weight_copy_bytes))
                             : std::string())
           : fmt::format("layer split: {:.0f} MiB on GPU 1{}{:.0f} MiB on GPU {} (output layer){}",
                         mib_of(split.front().buffer.bytes()),
                         e.compute_split.output_device() > 1 ? " … " : ", ",
                         mib_of(split[e.compute_split.output_device()].buffer.bytes()),
                         e.compute_split.output_device() + 1,
                         e.compute_split.n_copies > 1 ? ", pipeline input copies × 4" : "")});
  if (e.draft_bytes && r.config.draft)
    rows.push_back({"draft model (-md)", e.draft_bytes,
                    fmt::format("{}: weights {:.2f} GiB + KV {:.2f} GiB (f16) + compute {:.0f} MiB",
                                r.config.draft->spec.id.empty() ? r.config.draft->spec.name
                                                                : r.config.draft->spec.id,
                                gib_of(e.draft_weights_bytes), gib_of(e.draft_kv_bytes),
                                mib_of(e.draft_compute_bytes))});
  rows.push_back(
      {"runtime overhead", e.overhead_bytes,
       fmt::format("{:.0f} MiB per GPU × {}", mib_of(c.overhead_per_gpu_bytes), e.n_gpus)});
  rows.push_back({fmt::format("headroom ({:.0f}%)", percent_of(c.headroom)), e.headroom_bytes,
                  "on the sum above"});
  return rows;
}

std::string gpu_verdict(const GpuPlan& p, const std::optional<FitVerdict>& fit) {
  if (p.count_needed == 0)
    return fmt::format("{} cannot hold this model even with {} GPUs", p.gpu.name, kMaxGpus);
  std::string s = fmt::format("{} × {} needed ({:.0f} GiB usable each)", p.count_needed, p.gpu.name,
                              gib_of(fit ? fit->capacity_bytes : p.gpu.usable_bytes()));
  if (p.count_requested && !p.fits && fit && fit->fit == Fit::tight) {
    s += fmt::format("; --gpus {} holds it tight: each needs {:.2f} GiB with the headroom",
                     p.count_requested, gib_of(p.per_gpu_bytes));
  } else if (p.count_requested) {
    s += p.fits ? fmt::format("; --gpus {} is enough", p.count_requested)
                : fmt::format("; --gpus {} is NOT enough: each would need {:.2f} GiB",
                              p.count_requested, gib_of(p.per_gpu_bytes));
  }
  return s;
}

// The bill of materials: component, spec, quantity, why.
struct BomLine {
  std::string component, spec, qty, why;
};

// The GPU line: what they are, their price, how many are bought and why.
BomLine gpu_line(const Report& r) {
  const auto& p = *r.gpu;
  std::string why =
      r.capacity && r.capacity->gpus && !p.count_requested
          ? fmt::format("{} users at ≥ {:.0f} tok/s each: {} (limited by {})", r.capacity->users,
                        r.capacity->target_tokens_per_s, split_words(r),
                        capacity_limit_words(*r.capacity))
          : fmt::format("{:.2f} GiB per GPU of {:.0f} usable; {}", gib_of(p.per_gpu_bytes),
                        gib_of(r.usable_bytes_each()), split_words(r));
  if (r.gpu_recommended) why = "cheapest system that holds it (GPUs + platform); " + why;
  std::string price =
      p.gpu.price_usd > 0
          ? fmt::format(", {} each ({}{}{})", usd(p.gpu.price_usd), p.gpu.price_kind,
                        p.gpu.price_date.empty() ? "" : " ", p.gpu.price_date)
          : "";
  // The GPUs bought: a baseboard machine rounds a request up to the count it ships (one MI300X
  // is a board of 8), as its BOM line counts them.
  uint32_t bought = p.count;
  if (r.system && r.system->platform && r.system->choice.gpus_total() > p.count) {
    bought = r.system->choice.gpus_total();
    const PlatformChoice& ch = r.system->choice;
    why += ch.nodes > 1 ? fmt::format("; {} bought: {} machines of {} ({} beyond the plan)", bought,
                                      ch.nodes, ch.gpus_per_node, bought - p.count)
                        : fmt::format("; {} bought: the machine ships {} ({} beyond the plan)",
                                      bought, ch.gpus_per_node, bought - p.count);
  }
  return {"GPU",
          fmt::format("{} {:.0f} GiB {}, {:.0f} GB/s, {:.0f} W{}", p.gpu.name,
                      gib_of(p.gpu.memory_bytes), p.gpu.memory_type, p.gpu.bandwidth_gb_per_s,
                      p.gpu.board_power_w, price),
          std::to_string(bought), why};
}

// Why the machine's RAM is what it is: the 2 x weights rule (doubled for fine-tuning) or what
// the platform ships per GPU, whichever is larger, as the Machine section says.
std::string machine_ram_rule_words(const Report& r, const RamSizing& mr) {
  const std::string rule =
      fmt::format("2 x weights + host-resident weights{} = {:.0f} GiB",
                  r.train ? ", x 2 for fine-tuning" : "", gib_of(mr.rule_bytes));
  switch (mr.reason) {
    case HostReason::ram_platform_class:
      return fmt::format("what the machine ships, {:.0f} GiB, over the rule ({})",
                         gib_of(mr.platform_bytes), rule);
    case HostReason::ram_platform_max:
      return fmt::format("the machine's maximum, under the rule ({})", rule);
    default:
      return rule;
  }
}

// The GPUs and the machine around them in a line each (the table keeps the GPU lines and the
// platform; Markdown all of them). Without a catalog machine only the GPUs and how many machines
// the count spans.
std::vector<BomLine> bom_lines(const Report& r) {
  std::vector<BomLine> b;
  if (!r.gpu) return b;
  const auto& p = *r.gpu;
  b.push_back(gpu_line(r));
  if (p.count > 1)
    b.push_back({"GPU link", gpu_link_words(r), "-", link_reason_words(p.link_reason)});
  const SystemPlan* machine = r.system && r.system->platform ? &*r.system : nullptr;
  if (!machine) {
    if (p.nodes > 1)
      b.push_back({"Nodes",
                   fmt::format("{} servers of up to {} GPUs", p.nodes, max_gpus_per_node(p.gpu)),
                   std::to_string(p.nodes), "more GPUs than one chassis holds"});
    return b;
  }
  // The machines as bought: what each holds.
  const PlatformChoice& ch = machine->choice;
  const PlatformModel& mp = *machine->platform;
  const uint32_t nodes = ch.nodes;
  const std::string held =
      mp.gpu_mount == GpuMount::pcie
          ? fmt::format("{} GPU{} per machine at x{}, {:g} of its {:g} GPU slot widths",
                        ch.gpus_per_node, ch.gpus_per_node == 1 ? "" : "s", ch.lanes_per_gpu,
                        ch.slot_widths_per_node, mp.gpu_widths_total)
      : mp.gpu_mount == GpuMount::integrated
          ? std::string(nodes > 1 ? "separate whole computers, one GPU each"
                                  : "a whole computer: the GPU is its SoC")
          : fmt::format("{} {} per machine on its baseboard (sold in {})", ch.gpus_per_node,
                        mp.gpu_mount == GpuMount::sxm ? "SXM modules" : "modules",
                        counts_words(mp.gpu_counts));
  b.push_back({"Platform", fmt::format("{} ({})", mp.name, to_string(mp.platform_class)),
               std::to_string(nodes), held});
  const HostSizing& h = machine->host;
  if (mp.gpu_mount == GpuMount::integrated) return b;
  b.push_back({"CPU",
               h.cpu_cores
                   ? fmt::format("{} × {}, {} cores", h.cpu_sockets, mp.cpu_model, h.cpu_cores)
                   : fmt::format("{} × {}", h.cpu_sockets, mp.cpu_model),
               std::to_string(h.cpu_sockets * nodes), "as the machine ships"});
  const RamSizing& mr = h.ram;
  b.push_back({"System RAM",
               fmt::format("{} × {} GiB {} ({:.0f} GiB per machine)", mr.dimms, mr.dimm_gib,
                           mp.memory_type.empty() ? std::string("DDR5") : mp.memory_type,
                           gib_of(mr.installed_bytes)),
               std::to_string(mr.dimms * nodes),
               fmt::format("needs {:.0f} GiB: {}; every channel populated",
                           gib_of(mr.required_bytes), machine_ram_rule_words(r, mr))});
  const auto& ms = h.storage;
  b.push_back({"Data storage",
               fmt::format("{:.2f} TB NVMe{}", tb_of(ms.data_drive_bytes),
                           ms.data_drives > 1 ? ", RAID 1" : ""),
               std::to_string(ms.data_drives * nodes),
               fmt::format("needs {:.0f} GB: models × kept + datasets + checkpoints",
                           gb_of(ms.required_bytes))});
  b.push_back({"OS drive",
               fmt::format("{:.2f} TB NVMe{}", tb_of(ms.os_drive_bytes),
                           ms.os_drives > 1 ? ", RAID 1" : ""),
               std::to_string(ms.os_drives * nodes), "system on its own drive"});
  return b;
}

}  // namespace

namespace {

// The engine's memory rows: a slot engine (llama-server -np, OLLAMA_NUM_PARALLEL) runs the slots it
// is launched with, each of max_model_len tokens; a paged engine admits up to max_num_seqs from
// its pool.
void serving_memory_rows(const ServingPlan& sp, Block& b) {
  const ServingEstimate& e = sp.estimate;
  const Deployment& d = sp.deployment;
  const EngineProfile& prof = engine_profile(d.engine);
  if (prof.memory_rule == MemoryRule::fixed_slots)
    b.rows.emplace_back(
        "engine",
        fmt::format("KV {}, {} slots of {} tokens per replica (the launch "
                    "command's), batch {} tokens",
                    kv_dtype_name(d.kv), sp.launch.max_num_seqs, group(sp.launch.max_model_len),
                    group(d.limits.max_num_batched_tokens)));
  else
    b.rows.emplace_back(
        "engine",
        fmt::format("KV {}, {}, max_num_seqs {}, max_num_batched_tokens {}, max_model_len {}",
                    kv_dtype_name(d.kv),
                    d.limits.memory_fraction > 0
                        ? fmt::format("memory fraction {:.2f}", d.limits.memory_fraction)
                        : std::string("fixed slots"),
                    d.limits.max_num_seqs, d.limits.max_num_batched_tokens,
                    group(sp.launch.max_model_len)));
  if (prof.memory_rule == MemoryRule::fixed_slots)
    b.rows.emplace_back(
        "KV per sequence",
        fmt::format("{:.2f} GiB a slot (max_model_len, reserved at start); pool "
                    "{:.2f} GiB per GPU",
                    gib_of(e.kv_bytes_per_seq_guarantee), gib_of(e.kv_pool_bytes_per_gpu)));
  else
    b.rows.emplace_back(
        "KV per sequence",
        fmt::format("{:.2f} GiB planning (isl + osl/2), {:.2f} GiB guarantee (max_model_len); {} "
                    "charged; pool {:.2f} GiB per GPU",
                    gib_of(e.kv_bytes_per_seq), gib_of(e.kv_bytes_per_seq_guarantee),
                    sp.kv_charged_guarantee ? "guarantee" : "planning",
                    gib_of(e.kv_pool_bytes_per_gpu)));
  if (prof.profile_run)  // the two lines its start-up log prints
    b.rows.emplace_back(
        "KV cache",
        fmt::format("{} tokens; maximum concurrency for {} tokens per request: {:.2f}x ({}'s "
                    "start-up log lines)",
                    group(e.kv_cache_tokens), group(sp.launch.max_model_len),
                    e.max_concurrency_at_max_model_len, prof.name));
}

// The speculative decoding of a serving plan: the draft, its acceptance and where that was
// measured, and what it gains against the same deployment without it.
std::string spec_words(const ServingPlan& sp) {
  const Speculation& x = sp.deployment.spec;
  const char* draft = x.method == SpecMethod::mtp      ? "MTP (the checkpoint's next-n layers)"
                      : x.method == SpecMethod::eagle3 ? "EAGLE-3 head"
                                                       : "draft model";
  std::string from = "as --spec-acceptance gives it";
  if (const SpecAcceptance* r = x.measured) {
    from = fmt::format("{}{}'s, measured at {} by {} on {}",
                       x.measured_own ? "" : "no published rate for this model: ", r->model,
                       r->draft_tokens, r->engine, r->task);
    if (r->draft_tokens != x.draft_tokens) from += ", the same rate per token assumed";
  }
  std::string s = fmt::format(
      "{}{}, {} draft token{} per step accepted at {:.2f} each: {:.2f} tokens per step ({})", draft,
      sp.launch.spec_model.empty() ? "" : " " + sp.launch.spec_model, x.draft_tokens,
      x.draft_tokens == 1 ? "" : "s", x.acceptance, x.tokens_per_step(), from);
  if (sp.without_spec && sp.without_spec->fits && sp.without_spec->per_user_tokens_per_s.value > 0)
    s += fmt::format(
        "; per user {:.2f}× ({:.1f} tok/s without), output {:.2f}× of the same GPUs "
        "without it",
        sp.estimate.per_user_tokens_per_s.value / sp.without_spec->per_user_tokens_per_s.value,
        sp.without_spec->per_user_tokens_per_s.value,
        sp.estimate.output_tokens_per_s.value /
            std::max(1e-9, sp.without_spec->output_tokens_per_s.value));
  return s;
}

// #10: the serving plan's deployment, speed (named by its engine's calibration) and capacity.
std::vector<Block> serving_blocks(const ServingPlan& sp) {
  const ServingEstimate& e = sp.estimate;
  const Deployment& d = sp.deployment;
  const EngineProfile& prof = engine_profile(d.engine);
  const Workload& w = sp.workload;
  Block b;
  b.title = fmt::format("Serving ({}: {} GPU{} = {}{})", prof.name, d.gpus(),
                        d.gpus() == 1 ? "" : "s", layout_words(d),
                        sp.launch.nodes() > 1 ? fmt::format(", {} nodes", sp.launch.nodes()) : "");
  b.rows.emplace_back(
      "workload",
      fmt::format("{} tokens in, {} out per request; {}", group(w.isl), group(w.osl),
                  w.rate_per_s > 0 ? fmt::format("{:g} requests/s", w.rate_per_s)
                  : w.users ? fmt::format("{} concurrent user{}", w.users, w.users == 1 ? "" : "s")
                            : std::string("as many users as fit (offline)")));
  if (sp.runner_up)
    b.rows.emplace_back(
        "layout",
        fmt::format("{}: the best of {} layouts of {} GPUs for this workload ({} output tok/s); "
                    "runner-up {} ({} output tok/s)",
                    layout_words(d), sp.layouts_searched, d.gpus(),
                    group(static_cast<uint64_t>(std::llround(e.output_tokens_per_s.value))),
                    layout_words(*sp.runner_up),
                    group(static_cast<uint64_t>(
                        std::llround(sp.runner_up_estimate.output_tokens_per_s.value)))));
  if (d.spec.active()) b.rows.emplace_back("speculative", spec_words(sp));
  if (d.disaggregated() && e.fits)
    b.rows.emplace_back(
        "prefill",
        fmt::format("{} worker{} of TP {} apart from decode: {:.2f} prompts/s each, {:.0f}% busy; "
                    "each request's KV reaches its decode worker in {:.2f} ms",
                    d.prefill_workers, d.prefill_workers == 1 ? "" : "s", d.prefill_tp,
                    e.prefill_requests_per_s_per_worker, e.prefill_utilization * 100,
                    e.kv_transfer_s * 1e3));
  serving_memory_rows(sp, b);
  if (!e.fits) {
    b.rows.emplace_back("does not fit", "the weights and one sequence exceed the engine's KV pool");
    return {b};
  }
  Block v;
  v.title = fmt::format("Speed ({}-calibrated: {}; range = its error, median {:.0f}%)", prof.name,
                        e.calibration ? e.calibration->basis : "",
                        e.calibration ? percent_of(e.calibration->error_median) : 0);
  v.rows.emplace_back("aggregate",
                      fmt::format("{:.0f} output tok/s ({:.0f}–{:.0f}), {:.2f} requests/s",
                                  e.output_tokens_per_s.value, e.output_tokens_per_s.low,
                                  e.output_tokens_per_s.high, e.requests_per_s));
  v.rows.emplace_back(
      "per user",
      fmt::format("{:.1f} tok/s ({:.1f}–{:.1f}); ITL {:.1f} ms, p90 {:.1f} ms",
                  e.per_user_tokens_per_s.value, e.per_user_tokens_per_s.low,
                  e.per_user_tokens_per_s.high, ms_of(e.itl_s.value), ms_of(e.itl_p90_s)));
  if (e.overloaded)
    v.rows.emplace_back(
        "overloaded",
        fmt::format("the offered rate exceeds what {} GPU{} sustain{}: {:.{}f} requests/s; the "
                    "queue and the time to first token grow for as long as {:g} requests/s last",
                    d.gpus(), d.gpus() == 1 ? "" : "s", d.gpus() == 1 ? "s" : "",
                    e.sustainable_requests_per_s,
                    e.sustainable_requests_per_s >= 100  ? 0
                    : e.sustainable_requests_per_s >= 10 ? 1
                    : e.sustainable_requests_per_s >= 1  ? 2
                                                         : 3,
                    w.rate_per_s));
  else
    v.rows.emplace_back(
        "first token",
        fmt::format("{:.2f} s ({:.2f}–{:.2f}), p90 {:.2f} s, p99 {:.2f} s", e.ttft_s.value,
                    e.ttft_s.low, e.ttft_s.high, e.ttft_p90_s, e.ttft_p99_s));
  v.rows.emplace_back(
      "concurrency",
      fmt::format(
          "{} running, {} per replica; {} admitted ({} at max_model_len); limited by {}",
          e.concurrency,
          e.overloaded ? std::string("a growing queue") : fmt::format("{} queued", e.queued),
          e.max_concurrency, e.max_concurrency_guarantee, limit_name(e.limited_by)));
  if (e.power_scale < 1)
    v.rows.emplace_back("power limit",
                        fmt::format("{:.0f}% of board power keeps {:.0f}% of throughput",
                                    percent_of(d.power_limit), percent_of(e.power_scale)));
  if (!e.meets_ttft || !e.meets_tpot)
    v.rows.emplace_back("SLO", fmt::format("{}{}", e.meets_ttft ? "" : "TTFT missed ",
                                           e.meets_tpot ? "" : "TPOT missed"));
  if (sp.capacity) {
    const ServingCapacity& c = *sp.capacity;
    if (c.found && sp.users_sized)
      v.rows.emplace_back(
          "capacity",
          fmt::format("sized for all {} users at once at ≥ {:g} tok/s each (the usable speed; "
                      "--target-tps sets another, --gpus N plans N): {} GPU{} on {} node{}, {} "
                      "user{} per replica; binding limit {}; memory alone needs {}",
                      sp.workload.users, sp.capacity_target_tokens_per_s, c.gpus,
                      c.gpus == 1 ? "" : "s", c.nodes, c.nodes == 1 ? "" : "s", c.users_per_replica,
                      c.users_per_replica == 1 ? "" : "s", limit_name(c.binding),
                      c.memory_min_gpus));
    else if (c.found)
      v.rows.emplace_back(
          "capacity",
          fmt::format("{} GPU{} on {} node{}: {} user{} per replica, headroom {} user{}; binding "
                      "limit {}; memory alone needs {}",
                      c.gpus, c.gpus == 1 ? "" : "s", c.nodes, c.nodes == 1 ? "" : "s",
                      c.users_per_replica, c.users_per_replica == 1 ? "" : "s", c.user_headroom,
                      c.user_headroom == 1 ? "" : "s", limit_name(c.binding), c.memory_min_gpus));
    else
      v.rows.emplace_back("capacity", fmt::format("not reachable within {} GPUs (binding limit {})",
                                                  kMaxGpus, limit_name(c.binding)));
    if (c.found && sp.spare_machines) v.rows.emplace_back("redundancy", redundancy_words(sp));
  }
  return {b, v};
}

// Model, settings, the memory table and the GPUs each class needs.
// A fine-tuning plan's memory (#20): what the job holds (weights, gradients, optimizer states,
// activations), how FSDP / ZeRO-3 shards it over the plan's GPUs, and what each GPU then holds;
// the GPU count, machine and BOM are this job's. Rows for the table, Markdown and HTML alike.
std::string training_title(const Report& r) {
  const TrainConfig& c = r.train_config;
  return fmt::format(
      "Fine-tuning ({}, seq {}, batch {} per GPU, {}, checkpointing {}): {} trainable",
      train_mode_name(c.mode), c.seq, c.batch,
      c.optimizer == Optimizer::adamw ? "AdamW" : "8-bit AdamW", c.checkpointing ? "on" : "off",
      billions(r.train->trainable_params));
}

// "19 of h100-sxm hold it, 24 as bought (...)".
std::string training_gpus_words(const Report& r) {
  if (!r.train_gpus) return "no count up to 1024 holds it";
  return fmt::format(
      "{} of {} hold it, {} as bought ({})", r.train_gpus_fewest, r.gpu->gpu.id, r.train_gpus,
      r.train_gpus == r.train_gpus_fewest ? "a count sold"
                                          : "powers of two in a machine, whole machines past one");
}

std::vector<MemoryRow> training_rows(const Report& r) {
  const TrainMemory& t = *r.train;
  const TrainConfig& c = r.train_config;
  const uint32_t n = r.gpu ? r.gpu->count : 1;
  const std::string shard = n > 1 ? fmt::format("; sharded over {} GPUs (FSDP / ZeRO-3)", n) : "";
  const bool full = c.mode == TrainMode::full;
  const bool adam8 = c.optimizer == Optimizer::adamw_8bit;
  std::vector<MemoryRow> rows;
  rows.push_back({"weights", t.weights_bytes,
                  (full                         ? "BF16, 2 B per parameter"
                   : c.mode == TrainMode::qlora ? "NF4 base (4.127 bits), frozen, + FP32 adapters"
                                                : "BF16 base, frozen, + FP32 adapters") +
                      shard});
  rows.push_back({"gradients", t.gradients_bytes,
                  (full ? "BF16, every parameter" : "the adapters' only, FP32") + shard});
  rows.push_back(
      {"optimizer", t.optimizer_bytes,
       (full ? (adam8 ? "FP32 master weights + 8-bit Adam moments (6 B per parameter)"
                      : "FP32 master weights + Adam moments (12 B per parameter)")
             : (adam8 ? "the adapters' 8-bit Adam moments" : "the adapters' Adam moments, FP32")) +
           shard});
  rows.push_back(
      {"activations", t.activations_bytes, t.activation_formula + (n > 1 ? "; on each GPU" : "")});
  rows.push_back({"total", t.total_bytes(), "the job, before sharding and runtime overhead"});
  if (r.gpu)
    rows.push_back({"per GPU", r.gpu->per_gpu_bytes,
                    fmt::format("(sharded state / {} + activations + {:.2f} GiB runtime overhead) "
                                "× {:.0f}% headroom; {}",
                                n, gib_of(r.config.overhead_per_gpu_bytes),
                                100 * (1 + r.config.headroom), training_gpus_words(r))});
  return rows;
}

std::string table_training_memory(const Report& r) {
  std::string o = training_title(r) + "\n";
  o += fmt::format("{:<18} {:>10}  {}\n", "memory", "GiB", "how");
  for (const auto& row : training_rows(r))
    o += fmt::format("{:<18} {:>10.2f}  {}\n", row.part, gib_of(row.bytes), row.how);
  return o;
}

}  // namespace

size_t display_width(std::string_view s) {
  size_t n = 0;
  for (const char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> column_lines(std::string_view text, size_t width, char after) {
  std::vector<std::string> out;
  std::string_view rest = text;
  while (display_width(rest) > width) {
    const auto breakable = [&](size_t i) {
      return rest[i] == ' ' && i > 0 && (!after || rest[i - 1] == after);
    };
    size_t cut = std::string_view::npos;
    for (size_t i = rest.size(); i-- > 0;)  // the last break whose text before it fits
      if (breakable(i) && display_width(rest.substr(0, i)) <= width) {
        cut = i;
        break;
      }
    for (size_t i = 0; cut == std::string_view::npos && i < rest.size(); ++i)
      if (breakable(i)) cut = i;  // none fits: the first, so a long item keeps its own line
    if (cut == std::string_view::npos) break;
    out.emplace_back(rest.substr(0, cut));
    rest.remove_prefix(cut + 1);
  }
  out.emplace_back(rest);
  return out;
}

std::vector<std::string> answer_lines(const Report& r) {
  // Nothing serves the users at the usable speed: the answer is that (#21), not a system.
  for (const Note& n : r.notes)
    if (n.kind == NoteKind::none_at_usable_speed)
      return {
          fmt::format("none: no catalog system serves {} users at ≥ {:.0f} tok/s each under {} "
                      "(the fastest option below gives {:.1f})",
                      group(n.n[0]), n.y, engine_profile(static_cast<Engine>(n.n[1])).name, n.x),
          "a batching engine (--engine vllm or sglang), or --min-tps to accept slower"};
  if (!r.gpu || r.gpu->count_needed == 0) return {};
  std::vector<std::string> lines;
  const GpuPlan& g = *r.gpu;
  // A fine-tuning job runs on the GPUs it is planned on (the count as bought, or --gpus N).
  // GPUs given that do not hold the model are what the plan runs on (with its offload).
  const uint32_t used = r.train                    ? g.count
                        : r.serving                ? r.serving->deployment.gpus()
                        : g.count < g.count_needed ? g.count
                                                   : g.count_needed;
  std::string hw = fmt::format("{} × {}", used, g.gpu.name);
  if (used < g.count_needed && !r.serving)
    hw += fmt::format(" ({} would hold it all)", g.count_needed);
  if (r.serving && r.serving->deployment.tp * r.serving->deployment.pp > 1)
    hw += " (" + layout_words(r.serving->deployment) + ")";
  if (r.system && r.system->platform) {
    const SystemPlan& s = *r.system;
    hw += fmt::format(" in {} × {}", s.choice.nodes, s.platform->name);
    if (s.choice.gpus_total() > used)
      hw += fmt::format(", {} GPUs bought with {}", s.choice.gpus_total(),
                        s.choice.nodes == 1 ? "it" : "them");
  }
  lines.push_back(hw);
  if (r.train) {
    lines.push_back(fmt::format(
        "{} fine-tuning: the job holds {} GiB; {:.1f} GiB per GPU{}",
        train_mode_name(r.train_config.mode), group_whole(gib_of(r.train->total_bytes())),
        gib_of(g.per_gpu_bytes),
        g.count > 1 ? fmt::format(", sharded over {} (FSDP / ZeRO-3)", g.count) : std::string()));
  } else if (r.serving && r.model.spec.task == Task::generation) {
    const ServingEstimate& e = r.serving->estimate;
    const uint32_t users = r.serving->workload.users;
    const Deployment& d = r.serving->deployment;
    if (!e.fits)
      // No speed to give: the engine would not start on these GPUs (vLLM refuses a pool without
      // room for one max_model_len request; the others a pool without room for one sequence).
      lines.push_back(fmt::format(
          "{} does not start here: its KV pool ({:.2f} GiB a GPU after the weights and "
          "activations) holds no {}-token request; more GPUs or a shorter context",
          engine_profile(d.engine).name, gib_of(e.kv_pool_bytes_per_gpu),
          group(d.max_model_len ? d.max_model_len : r.serving->workload.request_tokens())));
    else if (e.overloaded)
      lines.push_back(fmt::format("overloaded: {:.2f} requests/s sustained, fewer than offered",
                                  e.sustainable_requests_per_s));
    else
      lines.push_back(fmt::format(
          "{} user{} at {:.1f} tok/s each ({} tok/s in all), first token {:.2f} s{}", group(users),
          users == 1 ? "" : "s", e.per_user_tokens_per_s.value,
          group_whole(e.output_tokens_per_s.value), e.ttft_s.value,
          e.queued ? fmt::format(" ({} at once: the KV pool holds no more, the others wait)",
                                 group(uint64_t{e.concurrency} * r.serving->deployment.replicas))
                   : std::string()));
    if (const ServingPlan& sp = *r.serving;
        e.fits && sp.spare_machines && sp.capacity && sp.capacity->found)
      lines.push_back(fmt::format(
          "n+{}: with {} machine{} down {:.1f} tok/s each, first token "
          "{:.2f} s ({})",
          sp.spare_machines, sp.spare_machines, sp.spare_machines == 1 ? "" : "s",
          sp.capacity->degraded.per_user_tokens_per_s.value, sp.capacity->degraded.ttft_s.value,
          sp.degraded_meets() ? "the targets hold" : "a target is missed"));
  } else if (r.speed && r.model.spec.task == Task::generation) {
    std::string ram;
    if (const Offload* o = r.offload ? &*r.offload : nullptr) {
      if (o->n_cpu_moe)
        ram =
            fmt::format("; experts of {} blocks in RAM (--n-cpu-moe)",
                        std::min(o->n_cpu_moe, r.model.spec.n_layer + r.model.spec.n_layer_nextn));
      if (o->n_layer_cpu)
        ram += fmt::format("{} {} of {} layers in RAM", ram.empty() ? ";" : ",", o->n_layer_cpu,
                           r.model.spec.n_layer);
    }
    lines.push_back(fmt::format("{:.1f} tok/s per sequence at context {}{}",
                                r.speed->decode_tokens_per_s, group(r.speed_input.n_ctx), ram));
  } else if (r.speed) {
    lines.push_back(fmt::format("{:.1f} documents/s", r.speed->documents_per_s));
  }
  std::string money;
  if (const CostPlan* c = r.cost ? &*r.cost : nullptr; c && c->priced && c->capex_usd > 0)
    money = fmt::format("{}{} to buy", usd_words(c->capex_usd), c->complete ? "" : " or more");
  else
    money = "no catalog price (--price NAME=USD)";
  if (const PowerPlan* pw = r.power ? &*r.power : nullptr; pw && pw->wall_w > 0)
    money += fmt::format(" · {} at the wall at most", watts_words(pw->wall_w));
  lines.push_back(money);
  if (r.fit) lines.push_back(fit_words(r));
  return lines;
}

namespace {

// The answer in a few lines, before the parts it is made of (answer_lines).
std::string table_answer(const Report& r) {
  const std::vector<std::string> lines = answer_lines(r);
  if (lines.empty()) return "";
  std::string o;
  for (size_t i = 0; i < lines.size(); ++i)
    o += fmt::format("{:<10}{}\n", i == 0 ? "Answer" : "", lines[i]);
  return o + "\n";
}

std::string table_head(const Report& r) {
  std::string o;
  const auto& e = r.estimate;
  o += fmt::format("Model     {}\n", model_line(r));
  if (!r.model.assumption.empty()) o += fmt::format("Assumed   {}\n", r.model.assumption);
  if (!r.model.spec.layer_kinds.empty())
    o += fmt::format("Layers    {}\n", layer_pattern(r.model.spec));
  o += fmt::format("Settings  {}\n\n", settings_line(r));
  o += table_answer(r);
  if (r.train) return o + table_training_memory(r);
  o += fmt::format("{:<18} {:>10}  {}\n", "VRAM", "GiB", "how");
  for (const auto& row : memory_rows(r)) {
    // A label longer than the column ("vision tower (mmproj)") takes from the number's padding.
    const size_t over = std::min<size_t>(row.part.size() > 18 ? row.part.size() - 18 : 0, 4);
    o += fmt::format("{:<18} {:>{}.2f}  {}\n", row.part, gib_of(row.bytes), 10 - over, row.how);
  }
  o += fmt::format(
      "{:<18} {:>10.2f}  range {:.2f}–{:.2f} from each part's measured error · {} (GiB = "
      "2^30 bytes)\n",
      "total", gib_of(e.total_bytes()), gib_of(e.total_low_bytes), gib_of(e.total_high_bytes),
      memory_scope_words(r));
  // llama.cpp's vision projector is a file of its own (convert_hf_to_gguf.py --mmproj).
  const bool ggml = r.config.engine == Engine::llama_cpp || r.config.engine == Engine::ollama;
  const uint64_t mmproj = ggml ? e.weights.vision_bytes : 0;
  o += fmt::format(
      "\nWeights file {:.2f} GiB ({:.2f} GB){} · rule of thumb 1.2 × weights = {:.2f} GiB\n",
      gib_of(e.weights.bytes - mmproj), gb_of(e.weights.bytes - mmproj),
      mmproj ? fmt::format(" + mmproj {:.2f} GiB ({:.2f} GB)", gib_of(mmproj), gb_of(mmproj))
             : std::string(),
      gib_of(e.naive_rule_bytes));
  // The layer split's counts by memory class: llama.cpp's way of holding the model, noise beside a
  // tensor-parallel engine's own deployment (#21); JSON keeps them (gpu.count_24gib, ...).
  if (r.serving && engine_profile(r.serving->deployment.engine).default_split == SplitMode::tensor)
    return o;
  o += "\nGPUs needed (layer split; each GPU holds its share plus its own compute buffer, overhead "
       "and headroom)\n";
  for (const auto& c : r.classes)
    o += c.count ? fmt::format("  {:>3} GiB class  {:>3} GPU{}\n", c.memory_gib, c.count,
                               c.count == 1 ? "" : "s")
                 : fmt::format("  {:>3} GiB class  does not fit\n", c.memory_gib);

  return o;
}

// An option's decode speed per user (a serving deployment) or per sequence, and whether it is
// below the usable speed; empty when not known (a capacity target plans the speed itself).
std::string option_speed_words(const Report& r, const GpuOption& opt) {
  if (opt.tokens_per_s <= 0) return "";
  return fmt::format(" · {:.1f} tok/s per {}{}", opt.tokens_per_s, r.serving ? "user" : "sequence",
                     opt.below_usable_speed ? " (below the usable speed)" : "");
}

// An option's price: its bill's total, "≥" before a floor, "no price" without a GPU price.
std::string option_price_words(const GpuOption& o) {
  if (o.total_price_usd <= 0) return "no price";
  return (o.price_complete ? "" : "≥") + usd(o.total_price_usd);
}

// What an option's rank under --optimize power or tco reads, beside its price.
std::string option_objective_words(Objective objective, const GpuOption& opt) {
  if (objective == Objective::power && opt.max_wall_w > 0)
    return fmt::format(" · {:.1f} kW at most", opt.max_wall_w / 1000);
  if (objective == Objective::tco && opt.tco_usd > 0)
    return fmt::format(" · {} with energy", usd(opt.tco_usd));
  return "";
}

// The ranked GPU options when no --gpu was given.
std::string table_options(const Report& r) {
  std::string o;
  if (!r.options.empty()) {
    static constexpr const char* kOrder[] = {
        "cheapest system first", "fewest GPUs first (--optimize gpus)",
        "least power at the wall first (--optimize power)",
        "least price + energy over the years first (--optimize tco)"};
    const bool none_usable = !r.gpu_recommended && r.options.front().below_usable_speed;
    o += none_usable ? std::string(
                           "\nGPU options (none at the usable speed: the fastest first; ≥ marks a "
                           "floor, a line without a public price)\n")
                     : fmt::format(
                           "\nGPU options (at the usable speed first, then priced, a vendor's "
                           "machine before a generic one, no network fabric before one, {}: the "
                           "bill of materials of the machines each buys; ≥ marks a floor, a line "
                           "without a public price; --price NAME=USD)\n",
                           kOrder[static_cast<int>(r.objective)]);
    for (const auto& opt : r.options) {
      // The machines around the GPUs: their class and what the rest of their bill costs.
      const std::string machine =
          opt.no_machine ? std::string("no machine")
          : opt.plan.gpu.unified_memory && opt.gpus_usd <= 0
              ? fmt::format("{} whole computer{}", opt.machines, opt.machines > 1 ? "s" : "")
              : fmt::format("{} {}{} {}", opt.machines, opt.platform, opt.machines > 1 ? "s" : "",
                            opt.host_usd > 0 ? usd(opt.host_usd) : "unpriced");
      // Where the GPUs' price comes from: its kind and date (#21), or that there is none.
      const GpuSpec& g = opt.plan.gpu;
      const std::string price_kind =
          opt.gpus_usd > 0 && g.price_usd > 0
              ? fmt::format(" · {} each, {}{}{}", usd(g.price_usd), g.price_kind,
                            g.price_date.empty() ? "" : " ", g.price_date)
          : opt.total_price_usd > 0 || g.unified_memory
              ? std::string()  // in the machine's own price
              : std::string(" · no public GPU price");
      o += fmt::format(
          "  {:<20} × {:<3} {:>10} = GPUs {:>8} + {:<22} {:.1f} GiB per GPU{} · {}{}{}{}\n",
          opt.plan.gpu.id, opt.plan.count, option_price_words(opt),
          opt.gpus_usd > 0 ? usd(opt.gpus_usd) : "included", machine,
          gib_of(opt.plan.per_gpu_bytes), price_kind, option_split_words(opt),
          opt.bought > opt.plan.count
              ? fmt::format(" · {} bought (a count it is sold in)", opt.bought)
              : std::string(),
          opt.units_not_linked ? " · more units than the maker links: unsupported"
          : opt.no_machine     ? " · no catalog machine takes them"
                               : "",
          option_speed_words(r, opt) + option_objective_words(r.objective, opt));
    }
  }
  if (!r.fewest.empty()) {
    o += "\nFewest cards\n";
    for (const auto& opt : r.fewest)
      o += fmt::format("  {:<20} × {:<3} {:>10}  {:.1f} GiB per GPU · {}\n", opt.plan.gpu.id,
                       opt.plan.count, option_price_words(opt), gib_of(opt.plan.per_gpu_bytes),
                       option_split_words(opt));
  }
  return o;
}

// The verdict on the GPUs and the bill of materials; its table's cells wrap within `width`
// columns (0: one line a row).
std::string table_bill(const Report& r, size_t width) {
  std::string o;
  if (r.gpu) {
    o += fmt::format("\nGPU       {}{}\n", gpu_verdict(*r.gpu, r.fit),
                     r.gpu_recommended ? " — recommended" : "");
    // #10: the serving plan's count can exceed what memory alone needs (replicas, speed).
    if (r.serving && r.serving->deployment.gpus() != r.gpu->count_needed)
      o += fmt::format(
          "          the serving plan uses {}{}{} (TP {} × PP {} × {} replica{}): see Serving\n",
          r.serving->gpus_needed_before_machine ? "all " : "", r.serving->deployment.gpus(),
          r.serving->gpus_needed_before_machine
              ? fmt::format(" the machine ships, {} would serve it",
                            r.serving->gpus_needed_before_machine)
              : "",
          r.serving->deployment.tp, r.serving->deployment.pp, r.serving->deployment.replicas,
          r.serving->deployment.replicas == 1 ? "" : "s");
    // The capacity target's count (replicas, speed) beyond what memory alone needs.
    if (r.capacity_split && r.capacity->gpus != r.gpu->count_needed)
      o += fmt::format(
          "          the capacity plan uses {} ({} users at ≥ {:.0f} tok/s each: {})\n",
          r.capacity->gpus, r.capacity->users, r.capacity->target_tokens_per_s, split_words(r));
    // The GPUs, their link and the platform; the machine's own sections (Machine, Bill of
    // materials, Power) follow.
    o += "\nGPUs\n";
    auto lines = bom_lines(r);
    lines.erase(std::remove_if(lines.begin(), lines.end(),
                               [](const BomLine& l) {
                                 return l.component != "GPU" && l.component != "GPU link" &&
                                        l.component != "Platform" && l.component != "Nodes";
                               }),
                lines.end());
    // The spec column leaves the why 40 of the width; a longer spec wraps inside its column.
    size_t w0 = 9, w1 = 4;
    for (const auto& l : lines) w0 = std::max(w0, l.component.size());
    const size_t fixed = (2 + w0 + 2) + (2 + 3 + 2);
    const size_t most = width >= fixed + 40 + 20 ? width - fixed - 40 : width ? 20 : SIZE_MAX;
    for (const auto& l : lines) w1 = std::max(w1, std::min(display_width(l.spec), most));
    o += fmt::format("  {:<{}}  {:<{}}  {:>3}  {}\n", "component", w0, "spec", w1, "qty", "why");
    const size_t w3 = width > fixed + w1 + 20 ? width - fixed - w1 : width ? 20 : SIZE_MAX;
    for (const auto& l : lines) {
      const std::vector<std::string> spec = column_lines(l.spec, w1), why = column_lines(l.why, w3);
      for (size_t i = 0; i < std::max(spec.size(), why.size()); ++i) {
        const std::string a = i < spec.size() ? spec[i] : "";
        std::string line = fmt::format("  {:<{}}  {}{}  {:>3}  {}", i ? "" : l.component, w0, a,
                                       std::string(w1 - std::min(w1, display_width(a)), ' '),
                                       i ? "" : l.qty, i < why.size() ? why[i] : "");
        while (!line.empty() && line.back() == ' ') line.pop_back();
        o += line + "\n";
      }
    }
    o += render_system_table(r, width);
  }
  return o;
}

// Offload and speed.
std::string table_speed(const Report& r) {
  std::string o;
  if (r.offload && r.offload->n_cpu_moe) {
    const uint32_t blocks = r.model.spec.n_layer + r.model.spec.n_layer_nextn;
    const Offload& x = *r.offload;
    o += fmt::format(
        "\nOffload   routed experts of {} in system RAM (--n-cpu-moe {}): {:.2f} GiB, {:.2f} GiB "
        "read per token at {:.0f} GB/s ({} ch × {} MT/s);\n          each prompt batch of {} "
        "tokens copies {:.2f} GiB to the GPU at {:.1f} GB/s ({:.0f}% of PCIe)\n",
        x.n_cpu_moe >= blocks ? fmt::format("all {} blocks", blocks)
                              : fmt::format("blocks 0-{} of {}", x.n_cpu_moe - 1, blocks),
        std::min(x.n_cpu_moe, blocks), gib_of(x.expert_ram_bytes),
        gib_of(x.ram_read_bytes_per_token), r.ram_bandwidth_gb_per_s, r.ram_channels, r.ram_mts,
        r.speed_input.n_ubatch, gib_of(x.copy_bytes_per_ubatch),
        r.speed_input.pcie_gb_per_s * kOffloadCopyFraction, kOffloadCopyFraction * 100);
  }
  if (r.offload && r.offload->n_layer_cpu) {
    o += fmt::format(
        "{}{} layers on the GPUs, {} in system RAM ({:.2f} GiB at {:.0f} GB/s: {} ch × "
        "{} MT/s)\n",
        r.offload->n_cpu_moe ? "          " : "\nOffload   ", r.offload->n_layer_gpu,
        r.offload->n_layer_cpu, gib_of(r.offload->ram_bytes), r.ram_bandwidth_gb_per_s,
        r.ram_channels, r.ram_mts);
  }
  for (const Block& b : speed_blocks(r)) o += table_block(b);
  return o;
}

// Power, load time and cost.
std::string table_power_cost(const Report& r) {
  std::string o;
  if (r.system && r.system->platform) {
    // The cold start's load (read + deserialize + copy) from each local drive class.
    static const char* const kDriveNames[] = {"HDD 7200 rpm", "SATA SSD", "NVMe PCIe 3.0",
                                              "NVMe PCIe 4.0", "NVMe PCIe 5.0"};
    const SystemPlan& s = *r.system;
    o += fmt::format(
        "\nModel load time ({:.1f} GB, read + copy to the GPUs by the engine's loader)\n",
        gb_of(r.estimate.weights.bytes));
    for (size_t i = 0; i < s.cold_start_by_drive.size() && i < std::size(kDriveNames); ++i)
      o += fmt::format("  {:<16} {}\n", kDriveNames[i], duration(s.cold_start_by_drive[i].load_s));
  }
  if (const auto b = cost_block(r)) o += table_block(*b);
  return o;
}

// Fine-tuning, the checklist and the warnings.
std::string table_train_notes(const Report& r) {
  std::string o;
  if (!r.checklist.empty()) {
    o += "\nChecklist\n";
    for (const auto& c : r.checklist) o += "  [ ] " + c + "\n";
  }
  if (!r.warnings.empty()) {
    o += "\nWarnings\n";
    for (const auto& w : r.warnings) o += "  - " + w + "\n";
  }
  return o;
}

}  // namespace

std::vector<Block> answer_blocks(const Report& r) {
  std::vector<Block> blocks = speed_blocks(r);
  if (auto c = cost_block(r)) blocks.push_back(std::move(*c));
  return blocks;
}

std::string table_block(const Block& b) {
  std::string o = "\n" + b.title + "\n";
  for (const auto& [label, value] : b.rows) o += fmt::format("  {:<15} {}\n", label, value);
  return o;
}

std::vector<Block> speed_blocks(const Report& r) {
  if (r.serving && r.model.spec.task == Task::generation) return serving_blocks(*r.serving);
  if (!r.speed) return {};
  const auto& s = *r.speed;
  Block b;
  if (r.model.spec.task != Task::generation) {
    // Embedding / rerank: one pass over the batch, nothing generated.
    const bool rerank = r.model.spec.task == Task::rerank;
    b.title = fmt::format("{} (llama.cpp-calibrated prefill; range = the calibration's error)",
                          rerank ? "Rerank" : "Embedding");
    b.rows.emplace_back("batch",
                        fmt::format("{} document{} of {} tokens in one pass, nothing "
                                    "generated",
                                    group(r.config.kv.n_seq), r.config.kv.n_seq == 1 ? "" : "s",
                                    group(r.config.kv.n_ctx)));
    b.rows.emplace_back("throughput",
                        fmt::format("{:.1f} {}/s ({:.1f}–{:.1f}) = {:.0f} tok/s", s.documents_per_s,
                                    rerank ? "query-document pairs" : "documents", s.documents_low,
                                    s.documents_high, s.prefill_tokens_per_s));
    b.rows.emplace_back("batch time", fmt::format("{:.3f} s", s.batch_s));
    return {b};
  }
  b.title = "Speed (llama.cpp-calibrated; range = the calibration's error)";
  b.rows.emplace_back(
      "decode",
      fmt::format("{:.1f} tok/s per sequence ({:.1f}–{:.1f}) at context {}", s.decode_tokens_per_s,
                  s.decode_low, s.decode_high, group(r.speed_input.n_ctx)));
  b.rows.emplace_back(
      "aggregate",
      fmt::format("{:.1f} tok/s over {} sequence{}", s.aggregate_tokens_per_s,
                  r.capacity && r.capacity->gpus ? r.capacity->users : r.speed_input.n_seq,
                  r.speed_input.n_seq == 1 ? "" : "s"));
  b.rows.emplace_back("prefill", fmt::format("{:.0f} tok/s ({:.0f}–{:.0f})", s.prefill_tokens_per_s,
                                             s.prefill_low, s.prefill_high));
  b.rows.emplace_back("first token",
                      fmt::format("{:.2f} s for a {}-token prompt", s.time_to_first_token_s,
                                  group(r.speed_input.prompt_tokens)));
  b.rows.emplace_back("concurrency",
                      fmt::format("{} sequences of {} tokens fit beside the weights "
                                  "({:.2f} GiB left for KV)",
                                  r.max_concurrent_sequences, group(r.config.kv.n_ctx),
                                  gib_of(r.kv_available_bytes)));
  return {b};
}

// Buy against rent: the same GPUs rented around the clock, at what price and from what source,
// and the months after which owning costs less.
std::string rent_words(const Report& r) {
  const CostPlan& c = *r.cost;
  const CostInput& in = r.cost_input;
  const GpuSpec& g = r.gpu->gpu;
  const std::string basis =
      in.rent_price_given ? std::string("--rent-price")
                : fmt::format(
                      "the median on-demand price of {} providers, {}, ${:.2f}-{:.2f}: "
                      "data/rental_offers.json",
                      g.rent_providers, g.rent_date, g.rent_low_usd_per_gpu_hour,
                      g.rent_high_usd_per_gpu_hour);
  const std::string when =
      c.rent_breakeven_months > 0
          ? fmt::format("owning costs less after {:.1f} months{}", c.rent_breakeven_months,
                        c.complete ? "" : " (or more: the bill is a floor)")
          : std::string("owning never costs less: energy and colocation cost more a month");
  return fmt::format("{} x {} at ${:.2f} per GPU-hour ({}), around the clock: {} a month; {}",
                     in.rent_gpus, g.id, in.rent_usd_per_gpu_hour, basis, usd(c.rent_usd_per_month),
                     when);
}

// The machine's cost (its BOM) where a catalog machine is planned, as the JSON's cost.* fields.
std::optional<Block> cost_block(const Report& r) {
  if (!r.cost) return std::nullopt;
  const auto& c = *r.cost;
  const CostInput& in = r.cost_input;
  Block b;
  b.title = "Cost";
  if (!c.priced) {
    b.rows.emplace_back("energy", fmt::format("{} per year; no machine or GPU price in the catalog "
                                              "(--price NAME=USD)",
                                              usd(c.energy_usd_per_year)));
    return b;
  }
  b.rows.emplace_back("hardware",
                      fmt::format("{} (the bill of materials{})", usd(c.capex_usd),
                                  c.complete ? "" : "; a floor: some lines have no public price"));
  b.rows.emplace_back("energy", fmt::format("{} per year at ${:.2f}/kWh",
                                            usd(c.energy_usd_per_year), in.kwh_price_usd));
  // Per token: hardware over its years plus energy, over the aggregate the Speed block prints.
  b.rows.emplace_back("per 1M tokens",
                      c.usd_per_mtok > 0
                          ? fmt::format("${:.3f} over {:.0f} years at {:.0f}% utilization",
                                        c.usd_per_mtok, in.years, percent_of(in.utilization))
                          : std::string("none: the plan generates no tokens"));
  if (c.colo_usd_per_month > 0)
    b.rows.emplace_back("colocation", fmt::format("{} a month at ${:g} per kW of {:.1f} kW",
                                                  usd(c.colo_usd_per_month),
                                                  in.colo_usd_per_kw_month, in.max_wall_kw));
  if (c.rent_usd_per_month > 0) b.rows.emplace_back("rent instead", rent_words(r));
  if (in.cloud_price_per_mtok > 0)
    b.rows.emplace_back("break-even",
                        c.breakeven_months > 0
                            ? fmt::format("{:.1f} months against ${:.2f} per 1M tokens",
                                          c.breakeven_months, in.cloud_price_per_mtok)
                            : fmt::format("never at ${:.2f} per 1M tokens (energy costs more)",
                                          in.cloud_price_per_mtok));
  return b;
}

// Where a line's continuation lines start: after a "[ ] " or "- " item mark; else at its last
// column (text after a run of two or more spaces) that leaves at least 24 columns of room, so a
// table's earlier columns stay whole ("  why             the ...", "  GPU   spec   2  why ...");
// 2 where there is none.
size_t hanging_indent(std::string_view line, size_t width) {
  const size_t at = line.find_first_not_of(' ');
  if (at == std::string_view::npos) return 2;
  if (line.compare(at, 4, "[ ] ") == 0) return at + 4;
  if (line.compare(at, 2, "- ") == 0) return at + 2;
  size_t best = at + 2;
  for (size_t gap = line.find("  ", at); gap != std::string_view::npos && gap < width;
       gap = line.find("  ", gap)) {
    const size_t column = line.find_first_not_of(' ', gap);
    if (column == std::string_view::npos) break;
    if (column + 24 <= width) best = column;
    gap = column;
  }
  return best;
}

// `line` broken at spaces into lines of at most `width` columns (counted in bytes: the table's
// multi-byte symbols make a line a little shorter than it counts), the continuations indented to
// its text column (hanging_indent); a word longer than the room stays whole.
std::string wrap_line(std::string_view line, size_t width) {
  if (line.size() <= width) return std::string(line);
  const size_t indent = hanging_indent(line, width);
  // The indentation in columns: the bytes before the text column less UTF-8 continuation bytes
  // ("×", "·" take two bytes and one column).
  const size_t pad = display_width(line.substr(0, indent));
  std::string out, cur(line);
  size_t text_at = indent;  // where the current line's text starts: no cut before it
  // Separators a line reads best broken after, if one falls in the line's second half.
  static const std::string_view kSeparators[] = {"; ", " \u00b7 ", ", "};
  while (cur.size() > width) {
    size_t cut = std::string::npos;
    for (const std::string_view sep : kSeparators) {
      const size_t at = cur.rfind(sep, width - sep.size() + 1);
      if (at != std::string::npos && 2 * at > width && at > text_at) {
        cut = at + sep.size() - 1;  // the separator's last space
        break;
      }
    }
    if (cut == std::string::npos) cut = cur.rfind(' ', width);
    if (cut == std::string::npos || cut < text_at) {
      cut = cur.find(' ', std::max(width, text_at));
      if (cut == std::string::npos) break;
    }
    size_t keep = cut, next = cut;
    while (keep > 0 && cur[keep - 1] == ' ') --keep;
    while (next < cur.size() && cur[next] == ' ') ++next;
    if (next >= cur.size() || keep <= text_at) break;  // only spaces follow, or nothing precedes
    out.append(cur, 0, keep);
    out += '\n';
    cur = std::string(pad, ' ') + cur.substr(next);
    text_at = pad;
  }
  return out + cur;
}

// Every line of `text` within `width` columns (wrap_line).
std::string wrap_lines(const std::string& text, size_t width) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += wrap_line(std::string_view(text).substr(start, end - start), width);
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

std::string render_table(const Report& r, size_t width) {
  std::string o = table_head(r) + table_options(r) + table_bill(r, width) + table_speed(r) +
                  table_power_cost(r) + table_train_notes(r);
  if (r.explain) o += render_explain(r);
  // Within 120 columns by default, the width a terminal and a pasted e-mail keep (#21).
  return width ? wrap_lines(o, width) : o;
}

// The GPU memory of an inference plan and the GPUs each memory class needs, as Markdown.
void markdown_memory(const Report& r, std::string& o) {
  const auto& e = r.estimate;
  o += "### GPU memory\n\n| part | GiB | how |\n|---|---:|---|\n";
  for (const auto& row : memory_rows(r))
    o += fmt::format("| {} | {:.2f} | {} |\n", row.part, gib_of(row.bytes), row.how);
  o += fmt::format("| **total** | **{:.2f}** | {} |\n\n", gib_of(e.total_bytes()),
                   memory_scope_words(r));
  o += "| GPU class | GPUs needed |\n|---|---:|\n";
  for (const auto& c : r.classes)
    o += fmt::format("| {} GiB | {} |\n", c.memory_gib,
                     c.count ? std::to_string(c.count) : "does not fit");
}

std::string render_markdown(const Report& r) {
  std::string o;
  const auto& e = r.estimate;
  o += fmt::format("## {}\n\n", model_line(r));
  if (!r.model.assumption.empty()) o += fmt::format("*Assumed:* {}\n\n", r.model.assumption);
  o += fmt::format("*Settings:* {}\n\n", settings_line(r));
  if (const auto answer = answer_lines(r); !answer.empty()) {
    o += "**Answer**\n\n";
    for (const auto& a : answer) o += "- " + a + "\n";
    o += "\n";
  }
  const auto lines = bom_lines(r);
  if (!lines.empty()) {
    o += "### Bill of materials\n\n| component | spec | qty | why |\n|---|---|---:|---|\n";
    for (const auto& l : lines)
      o += fmt::format("| {} | {} | {} | {} |\n", l.component, l.spec, l.qty, l.why);
    o += "\n";
  }
  if (r.train) {
    o += "### " + training_title(r) + "\n\n| part | GiB | how |\n|---|---:|---|\n";
    for (const auto& row : training_rows(r))
      o += fmt::format("| {} | {:.2f} | {} |\n", row.part, gib_of(row.bytes), row.how);
  } else {
    markdown_memory(r, o);
  }
  if (r.gpu) o += fmt::format("\n**GPU:** {}\n", gpu_verdict(*r.gpu, r.fit));
  // As the JSON's power.*: the machine's.
  if (const PowerPlan* w = r.power ? &*r.power : nullptr)
    o += fmt::format("\n**Power:** peak {} W, wall {} W, {}; heat {} BTU/h; {} kWh/year\n",
                     group_whole(w->peak_w), group_whole(w->wall_w), circuit_words(*w),
                     group_whole(w->heat_btu_per_h), group_whole(w->energy_kwh_per_year));
  // The table's serving, speed and cost blocks, as Markdown tables.
  for (const Block& b : answer_blocks(r)) {
    o += "\n### " + b.title + "\n\n| figure | value |\n|---|---|\n";
    for (const auto& [label, value] : b.rows) o += "| " + label + " | " + value + " |\n";
  }
  if (!r.checklist.empty()) {
    o += "\n### Checklist\n\n";
    for (const auto& c : r.checklist) o += "- [ ] " + c + "\n";
  }
  if (!r.warnings.empty()) {
    o += "\n### Warnings\n\n";
    for (const auto& w : r.warnings) o += "- " + w + "\n";
  }
  if (r.explain) {
    o += "\n### How each figure is computed\n\n";
    for (const auto& d : derivations(e, r.model.spec, r.config))
      o += fmt::format("- **{}** = {} = {}\n", d.quantity, d.formula, d.result);
  }
  return o;
}

namespace {

void flatten(const ojson& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
    return;
  }
  std::string val;
  if (j.is_null())
    val = "";
  else if (j.is_string())
    val = csv_text_cell(j.get<std::string>());  // no cell a spreadsheet runs as a formula
  else if (j.is_array()) {
    for (const auto& x : j) {
      if (!val.empty()) val += "; ";
      val += x.is_string() ? x.get<std::string>() : x.dump();
    }
    val = csv_text_cell(val);
  } else
    val = j.dump();
  out.emplace_back(prefix, val);
}

std::string to_csv(const std::vector<std::vector<std::pair<std::string, std::string>>>& rows) {
  std::string o;
  for (size_t i = 0; i < rows.front().size(); ++i)
    o += (i ? "," : "") + csv_text_cell(rows.front()[i].first);
  o += "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) o += (i ? "," : "") + row[i].second;
    o += "\n";
  }
  return o;
}

// A listing's entries as CSV: one row each, its fields flattened to dotted columns.
std::string listing_csv(const ojson& entries) {
  std::vector<std::vector<std::pair<std::string, std::string>>> rows;
  for (const auto& x : entries) {
    std::vector<std::pair<std::string, std::string>> cells;
    flatten(x, "", cells);
    rows.push_back(cells);
  }
  return to_csv(rows);
}

}  // namespace

Row report_row(const Report& r) {
  Row row;
  row.model = &r.model;
  row.quant = r.quant;
  row.quant_requested = r.quant_requested;
  set_plan(row, r);
  row.checklist = &r.checklist;
  row.warnings = &r.warnings;
  row.explain = r.explain;
  return row;
}

std::string render_json(const Report& r) {
  return report_json(report_row(r)).dump(2) + "\n";
}

std::string render_csv(const Report& r) {
  // The row's columns that are present (a plan without a host has no load_time_s_* keys).
  ojson j = report_json(report_row(r));
  std::vector<std::pair<std::string, std::string>> cells;
  for (const auto& f : report_fields()) {
    if (!f.get) continue;
    const std::string path = f.path;
    const auto dot = path.find('.');
    const ojson* v = nullptr;
    if (dot == std::string::npos) {
      if (j.contains(path)) v = &j.at(path);
    } else if (j.contains(path.substr(0, dot)) &&
               j.at(path.substr(0, dot)).contains(path.substr(dot + 1))) {
      v = &j.at(path.substr(0, dot)).at(path.substr(dot + 1));
    }
    if (v) flatten(*v, path, cells);
  }
  return to_csv({cells});
}

// --- catalog listings -------------------------------------------------------------------------

std::string render_models(const std::vector<ModelListing>& models, const std::string& format) {
  ojson arr = ojson::array();
  for (const auto& x : models) {
    const CatalogModel& cm = *x.model;
    const auto& m = cm.spec;
    arr.push_back({{"id", m.id},
                   {"name", m.name},
                   {"arch", arch_name(m.arch)},
                   {"params", x.params},
                   {"active_params", x.active_params},
                   {"params_official", m.params_official ? ojson(m.params_official) : ojson()},
                   {"n_layer", m.n_layer},
                   {"n_embd", m.n_embd},
                   {"n_head", m.n_head},
                   {"n_head_kv", m.n_head_kv},
                   {"n_ctx_train", m.n_ctx_train},
                   {"aliases", cm.aliases},
                   {"shorthand", cm.shorthand},
                   {"hf_repo", cm.hf_repo},
                   {"source", cm.source},
                   {"origin", cm.origin},
                   {"task", task_name(m.task)}});
  }
  if (format == "json")
    return ojson({{"schema_version", kSchemaVersion}, {"models", arr}}).dump(2) + "\n";
  if (format == "csv") return listing_csv(arr);
  std::string o = fmt::format("{:<30} {:<10} {:>10} {:>10} {:>6} {:>9}  {}\n", "id", "arch",
                              "params", "active", "layers", "ctx", "shorthand");
  for (const auto& x : arr)
    o += fmt::format(
        "{:<30} {:<10} {:>10} {:>10} {:>6} {:>9}  {}\n", x["id"].get<std::string>(),
        x["arch"].get<std::string>(), billions(x["params"].get<uint64_t>()),
        billions(x["active_params"].get<uint64_t>()), x["n_layer"].get<uint32_t>(),
        x["n_ctx_train"].get<uint32_t>(),
        fmt::format("{}", fmt::join(x["shorthand"].get<std::vector<std::string>>(), ",")));
  return o;
}

std::string render_gpus(const Catalog& c, const std::string& format) {
  ojson arr = ojson::array();
  for (const auto& cg : c.gpus()) {
    const auto& g = cg.spec;
    arr.push_back({{"id", g.id},
                   {"name", g.name},
                   {"vendor", to_string(g.vendor)},
                   {"class", to_string(g.gpu_class)},
                   {"memory_bytes", g.memory_bytes},
                   {"usable_bytes", g.usable_bytes()},
                   {"bandwidth_gb_per_s", g.bandwidth_gb_per_s},
                   {"board_power_w", g.board_power_w},
                   {"fp16_tflops_dense", g.fp16_tflops_dense},
                   {"interconnect", to_string(g.interconnect)},
                   {"interconnect_gb_per_s", g.interconnect_gb_per_s},
                   {"pcie_gen", g.pcie_gen},
                   {"slot_width", g.slot_width},
                   {"backends", g.backends},
                   {"price_usd", g.price_usd > 0 ? ojson(g.price_usd) : ojson()},
                   {"price_date", g.price_date},
                   {"aliases", cg.aliases},
                   {"source", cg.source},
                   {"origin", cg.origin}});
  }
  if (format == "json")
    return ojson({{"schema_version", kSchemaVersion}, {"gpus", arr}}).dump(2) + "\n";
  if (format == "csv") return listing_csv(arr);
  std::string o = fmt::format("{:<20} {:<40} {:>8} {:>9} {:>7} {:>8}  {}\n", "id", "name", "GiB",
                              "GB/s", "W", "FP16 TF", "link");
  for (const auto& cg : c.gpus()) {
    const auto& g = cg.spec;
    o += fmt::format("{:<20} {:<40} {:>8.1f} {:>9.0f} {:>7.0f} {:>8}  {}\n", g.id, g.name,
                     gib_of(g.memory_bytes), g.bandwidth_gb_per_s, g.board_power_w,
                     g.fp16_tflops_dense > 0 ? fmt::format("{:.1f}", g.fp16_tflops_dense) : "-",
                     to_string(g.interconnect));
  }
  return o;
}

std::string render_quants(const std::vector<QuantListing>& presets, const std::string& format) {
  ojson arr = ojson::array();
  for (const auto& q : presets) {
    const QuantPreset& p = *q.preset;
    std::vector<std::string> aliases;
    for (const auto& a : quant_aliases())
      if (std::string(a.id) == p.id) aliases.push_back(a.alias);
    arr.push_back(
        {{"id", p.id},
         {"format", p.gguf ? "gguf" : "checkpoint"},
         {"base_type", traits(p.default_type).name},
         {"base_type_bits_per_weight", traits(p.default_type).bits_per_weight()},
         {"bits_per_weight_llama_3_1_8b", std::round(q.reference_bits_per_weight * 1000) / 1000},
         {"aliases", aliases},
         {"description", p.description},
         {"source", p.gguf ? "llama.cpp src/llama-quant.cpp llama_tensor_get_type"
                           : traits(p.default_type).layout}});
  }
  ojson types = ojson::array();
  for (const auto& t : all_tensor_types())
    types.push_back(
        {{"name", t.name},
         {"ggml_id",
          static_cast<uint32_t>(t.type) < 1000 ? ojson(static_cast<uint32_t>(t.type)) : ojson()},
         {"block_size", t.block_size},
         {"bytes_per_block", t.type_size},
         {"bits_per_weight", t.bits_per_weight()},
         {"layout", t.layout}});
  if (format == "json")
    return ojson({{"schema_version", kSchemaVersion}, {"presets", arr}, {"tensor_types", types}})
               .dump(2) +
           "\n";
  if (format == "csv") return listing_csv(arr);
  std::string o = fmt::format("{:<11} {:<10} {:>9} {:>9}  {:<16} {}\n", "preset", "base",
                              "base bpw", "8B bpw", "aliases", "mix");
  for (const auto& x : arr)
    o +=
        fmt::format("{:<11} {:<10} {:>9.4f} {:>9.3f}  {:<16} {}\n", x["id"].get<std::string>(),
                    x["base_type"].get<std::string>(), x["base_type_bits_per_weight"].get<double>(),
                    x["bits_per_weight_llama_3_1_8b"].get<double>(),
                    fmt::format("{}", fmt::join(x["aliases"].get<std::vector<std::string>>(), ",")),
                    x["description"].get<std::string>());
  o += "\n8B bpw: bits per weight of the whole file for Llama-3.1-8B shapes, derived tensor by "
       "tensor.\n";
  return o;
}

}  // namespace llmsize::cli
