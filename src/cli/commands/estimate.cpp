#include "cli/commands/estimate.hpp"
#include "cli/commands/verify.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/commands/compare.hpp"
#include "cli/options/request.hpp"
#include "cli/render/plot.hpp"
#include "cli/render/system_report.hpp"
#include "cli/render/words.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/machine/platform.hpp"
#include "llmsize/memory/max_context.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/serving/launch.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

const std::vector<std::string>& kFormats = main_formats();
const std::vector<std::string>& kMachineFormats = machine_formats();

}  // namespace

void check_ram_channels(const Options& o, const Plan& p) {
  if (!o.ram_channels || !p.gpu) return;
  if (p.gpu->gpu.unified_memory)
    throw InputError(fmt::format(
        "--ram-channels {}: {} is a unified-memory computer, its memory is the GPU's ({:.0f} "
        "GB/s); it has no DIMM channels to set",
        o.ram_channels, p.gpu->gpu.id, p.gpu->gpu.bandwidth_gb_per_s));
  // The machine's channels bound it; without a machine (or one whose channels no source gave)
  // the number is taken as given.
  const PlatformModel* pm = p.system ? p.system->platform : nullptr;
  if (!pm || !pm->memory_channels_per_socket) return;
  const uint32_t have = std::max<uint32_t>(1, pm->cpu_sockets) * pm->memory_channels_per_socket;
  if (o.ram_channels <= have) return;
  throw InputError(fmt::format(
      "--ram-channels {}: the {} planned for {} × {} has {} memory channel{}; give 1 to {}",
      o.ram_channels, pm->id, p.gpu->count, p.gpu->gpu.id, have, have == 1 ? "" : "s", have));
}

Report make_report(const ResolvedRequest& rq, Plan p, bool explain, bool words) {
  Report r;
  static_cast<Plan&>(r) = std::move(p);
  r.model = rq.model;
  r.quant = r.config.quant;
  r.quant_requested = rq.quant_requested;
  r.quant_ignored = rq.quant_ignored;
  r.explain = explain;
  r.platforms = rq.platforms;
  r.draft = rq.draft;
  if (!words) return r;
  PlanWords w;
  w.model = &r.model;
  w.quant = r.quant;
  w.quant_requested = r.quant_requested;
  w.quant_ignored = r.quant_ignored;
  plan_warnings(w, r, r.warnings);
  if (std::string s = stored_quant_warning(w); !s.empty()) r.warnings.push_back(std::move(s));
  // A model whose GGUF conversion drops its MTP layers anyway (DeepSeek-V3.x / V4) only loses
  // their parameters from the count.
  if (rq.mtp_layers_dropped)
    r.warnings.push_back(
        rq.model.spec.gguf_drops_nextn
            ? fmt::format("--no-mtp: sized without the model's {} MTP layer(s); llama.cpp's "
                          "converter leaves them out of its GGUF anyway, so only the parameter "
                          "count changes",
                          rq.mtp_layers_dropped)
            : fmt::format("--no-mtp: sized without the model's {} MTP layer(s), as a GGUF that "
                          "holds none (converted before llama.cpp exported them)",
                          rq.mtp_layers_dropped));
  plan_checklist(r, r.checklist);
  return r;
}

Report build_report(const Options& o, const Catalog& catalog) {
  ResolvedRequest rq;
  resolve_request(o, catalog, rq);
  Plan p = plan(rq.request);
  check_ram_channels(o, p);
  return make_report(rq, std::move(p), o.explain);
}

Report build_report_max_context(const Options& o, const Catalog& cat) {
  if (o.gpu.empty())
    throw InputError(
        "--ctx max: needs --gpu NAME (and --gpus N, default 1): the largest context those GPUs "
        "hold");
  Options probe = o;
  probe.ctx = 1;
  probe.ctx_max = false;
  probe.gpus = o.gpus ? o.gpus : 1;
  ResolvedRequest rq;
  resolve_request(probe, cat, rq);
  // Weights once, for the probe at context 1 and the plan at the largest context.
  Planner planner(rq.request);
  const size_t mi =
      planner.add_model(rq.request.model, rq.request.config.quant, rq.request.exact_weights);
  const size_t gi = planner.add_gpu(*rq.request.gpu);
  const uint32_t count = rq.request.gpus_requested;
  const Plan& p = planner.plan(mi, 1, gi, count);
  const ModelSpec& m = rq.request.model;
  const GpuPlan& plan = *p.gpu;
  const uint64_t usable = plan.gpu.usable_bytes();
  const MaxContext mc =
      max_context(m, p.config, p.estimate.weights, plan.count, usable, context_search_limit(m));
  const std::string gpus = fmt::format("{} × {}", plan.count, plan.gpu.id);
  if (mc.n_ctx == 0)
    throw InputError(fmt::format(
        "--ctx max: {} {} does not fit {} even at context 1 ({:.2f} GiB per GPU > {:.2f} GiB "
        "usable)",
        m.id.empty() ? m.name : m.id, p.config.quant->id, gpus, gib_of(mc.next_per_gpu_bytes),
        gib_of(usable)));
  check_ram_channels(o, p);
  Report r = make_report(rq, planner.plan(mi, mc.n_ctx, gi, count), o.explain);
  r.warnings.insert(r.warnings.begin(), ctx_max_warning(mc, gpus, usable));
  return r;
}

std::string run_estimate(const Options& o) {
  if (std::find(kMachineFormats.begin(), kMachineFormats.end(), o.format) ==
      kMachineFormats.end()) {
    std::vector<std::string> all = kFormats;
    all.insert(all.end(), kMachineFormats.begin(), kMachineFormats.end());
    if (std::find(all.begin(), all.end(), o.format) == all.end())
      throw InputError("--format: expected table, json, csv or markdown, got '" +
                       sanitize(o.format) + "'; or bom-csv (one row per BOM line) or html (a " +
                       "procurement report)" + did_you_mean(o.format, all));
  }
  const Catalog cat = load_catalog(o.catalogs);
  if (o.compare_given) return run_compare(o, cat);
  if (o.emit == "acceptance") return emit_acceptance(o, cat);
  const Report r = o.ctx_max ? build_report_max_context(o, cat) : build_report(o, cat);
  if (!o.planning.plot.empty()) write_memory_plot(o.planning.plot, r);
  if (!o.emit.empty()) {
    if (!r.serving && r.model.spec.task != Task::generation)
      throw InputError("--emit " + o.emit + ": an " +
                       (r.model.spec.task == Task::rerank ? "rerank" : "embedding") +
                       " model generates nothing: llmsize sizes its encoder (documents per "
                       "second), not a serving deployment to launch");
    if (!r.serving)
      throw InputError("--emit " + o.emit + ": no catalog GPU holds the model: nothing to launch");
    // A command for an engine the GPU does not run would not start (#21).
    for (const Note& n : r.notes)
      if (n.kind == NoteKind::engine_not_on_gpu)
        throw InputError("--emit " + o.emit + ": " + note_words(n, r) +
                         "; pick an engine that runs on it (--engine) or another --gpu");
    if (!r.serving->estimate.fits)
      throw InputError(fmt::format(
          "--emit {}: the weights and one sequence do not fit the engine's KV pool on {} GPU{}; "
          "give more --gpus or drop --gpus to let llmsize plan them",
          o.emit, r.serving->deployment.gpus(), r.serving->deployment.gpus() == 1 ? "" : "s"));
    if (r.serving->capacity && !r.serving->capacity->found)
      throw InputError(fmt::format(
          "--emit {}: the capacity target is not reachable within {} GPUs: nothing to launch",
          o.emit, kMaxGpus));
    const std::string& model = r.serving->launch.model;
    if (model.empty())
      throw InputError("--emit " + o.emit + ": " + sanitize_quoted(o.model) +
                       " is a generic size, not a checkpoint an engine can load; name a catalog "
                       "model (llmsize models) or pass its config.json");
    // The model and the draft beside it (-md) are printed into the script alike.
    for (const auto& [what, value] :
         {std::pair<const char*, const std::string&>{"the model", model},
          std::pair<const char*, const std::string&>{"the draft model", r.serving->launch.draft},
          std::pair<const char*, const std::string&>{"the speculative draft",
                                                     r.serving->launch.spec_model}}) {
      if (value.empty()) continue;
      const std::string why = launch_value_problem(value, r.serving->launch.engine);
      if (!why.empty())
        throw InputError("--emit " + o.emit + ": " + what + " " + sanitize_quoted(value, 256) +
                         " " + why + "; rename it");
    }
    // Disaggregated prefill and decode: SGLang's PD mode is one script here; vLLM and
    // TensorRT-LLM run it behind llm-d's or Dynamo's own deployment.
    const LaunchPlan& lp = r.serving->launch;
    if (lp.prefill_workers && o.emit != "k8s" && lp.engine != Engine::sglang)
      throw InputError("--emit " + o.emit + ": disaggregated prefill and decode on " +
                       engine_profile(lp.engine).name +
                       " runs behind llm-d or Dynamo, not one launch script; plan it with "
                       "--engine sglang for SGLang's PD workers and router");
    if (lp.prefill_workers && lp.tp * lp.pp > lp.gpus_per_node)
      throw InputError("--emit " + o.emit +
                       ": a disaggregated decode replica spanning machines is not launched here; "
                       "fewer GPUs per replica (--tp) keep each worker in one machine");
    if (o.emit == "k8s") {
      if (const std::string k = kubernetes_problem(r.serving->launch); !k.empty())
        throw InputError("--emit k8s: " + k);
      return kubernetes_manifest(r.serving->launch);
    }
    return launch_script(r.serving->launch);
  }
  if (o.format == "json") return render_json(r);
  if (o.format == "csv") return render_csv(r);
  if (o.format == "markdown") return render_markdown(r);
  if (o.format == "bom-csv") return render_bom_csv(r);
  if (o.format == "html") return render_html(r);
  if (o.width > 0 && o.width < 40)
    throw InputError("--width: expected 0 (no wrapping) or 40 or more columns, got " +
                     std::to_string(o.width));
  return render_table(r, o.width);
}

}  // namespace llmsize::cli
