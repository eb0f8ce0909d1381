// --explain: every figure's formula with its numbers, read from the plan's breakdowns and the
// named constants the computation uses (speed.hpp, power.hpp), never retyped literals.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cli/render/derivations.hpp"
#include "cli/render/report.hpp"
#include "cli/render/words.hpp"
#include "llmsize/machine/power.hpp"
#include "llmsize/serving/speed.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

// The prefill's TFLOPS, and that it was assumed where the catalog has no figure.
std::string tflops_words(const Speed& s) {
  return s.tflops_assumed
             ? fmt::format("{:.1f} TFLOPS (assumed: the catalog has no dense FP16/BF16 figure)",
                           s.tflops)
             : fmt::format("{:.1f} TFLOPS", s.tflops);
}

std::string group(uint64_t v) {
  return group_digits(v);
}
std::string usd(double v) {
  if (v <= 0) return "n/a";
  return "$" + group(static_cast<uint64_t>(std::llround(v)));
}
std::string tb_str(uint64_t b) {
  const double tb = tb_of(b);
  return tb == std::floor(tb) ? fmt::format("{:.0f} TB", tb) : fmt::format("{:.2f} TB", tb);
}

// The catalog machine's host (host_model.cpp size_host): its RAM rule and population, its
// shipped CPUs, its drives.
std::string machine_host_explain(const Report& r) {
  const SystemPlan& sy = *r.system;
  const HostSizing& h = sy.host;
  const RamSizing& m = h.ram;
  const PlatformModel& pm = *sy.platform;
  if (h.has(HostReason::unified_memory))
    return fmt::format(
        "  system RAM\n      = the unit's {:.0f} GiB of unified memory, of which the GPU may use "
        "{:.0f} GiB; storage built in\n",
        gib_of(sy.gpu.memory_bytes), gib_of(sy.gpu_usable_bytes));
  if (m.reason == HostReason::ram_soldered)
    return fmt::format(
        "  system RAM\n      = per machine, the {:.0f} GiB of {} it ships (2 × weights + "
        "host-resident weights {:.0f} GiB{})\n",
        gib_of(m.installed_bytes), pm.memory_type, gib_of(m.rule_bytes),
        m.rule_bytes > m.installed_bytes ? ": more than it holds" : " fits in it");
  std::string o = fmt::format(
      "  system RAM\n      = per machine, max(2 × weights + host-resident weights {:.0f} GiB, "
      "what the class ships per GPU × {} GPU{} {:.0f} GiB){} = {:.0f} GiB → {} × {} GiB, {} per "
      "channel on {} channels = {:.0f} GiB\n",
      gib_of(m.rule_bytes), sy.choice.gpus_per_node, sy.choice.gpus_per_node == 1 ? "" : "s",
      gib_of(m.platform_bytes),
      m.reason == HostReason::ram_platform_max ? ", capped at the platform's maximum" : "",
      gib_of(m.required_bytes), m.dimms, m.dimm_gib, m.dimms_per_channel, m.channels,
      gib_of(m.installed_bytes));
  o += fmt::format("  CPU\n      = per machine, {} socket{} × {}{}: what {} ships{}\n",
                   h.cpu_sockets, h.cpu_sockets == 1 ? "" : "s", pm.cpu_model,
                   h.cpu_cores ? fmt::format(", {} cores", h.cpu_cores) : std::string(), pm.name,
                   h.cores_per_gpu > 0 ? fmt::format(" ({:.1f} cores per GPU)", h.cores_per_gpu)
                                       : std::string());
  const StorageSizing& st = h.storage;
  o += fmt::format(
      "  storage\n      = per machine, OS {} × {}{}; data {} × {} for {:.0f} GB (weights × {} "
      "kept + datasets + checkpoints)\n",
      st.os_drives, tb_str(st.os_drive_bytes), st.os_drives > 1 ? " (RAID 1)" : "", st.data_drives,
      tb_str(st.data_drive_bytes), gb_of(st.required_bytes), r.host_keep_models);
  return o;
}

// How many GPUs and how they split: the serving engine's deployment and memory rule
// (plan_serving) where it decided the count, else the layer split and the tensor-parallel degree.
std::string gpu_count_explain(const Report& r) {
  std::string o;
  if (r.gpu && r.serving && r.serving->deployment.gpus() == r.gpu->count) {
    // The serving engine's own deployment and memory rule (plan_serving, serving_memory).
    const Deployment& d = r.serving->deployment;
    const ServingEstimate& se = r.serving->estimate;
    const double usable = gib_of(r.gpu->gpu.usable_bytes());
    const EngineProfile& prof = engine_profile(d.engine);
    const std::string rule =
        prof.memory_rule == MemoryRule::share_of_total
            ? fmt::format(
                  "≤ {:.2f} × {:.2f} GiB ({}'s memory share{})", d.limits.memory_fraction, usable,
                  prof.name,
                  d.engine == Engine::sglang ? "; activations and graphs live outside it" : "")
        : prof.memory_rule == MemoryRule::share_of_free
            ? fmt::format("≤ {:.2f} GiB, the KV within {:.2f} of what is left free ({})", usable,
                          d.limits.memory_fraction, prof.name)
            : fmt::format("≤ {:.2f} GiB ({})", usable, prof.name);
    o += fmt::format(
        "  GPU count\n      = {} n = TP × PP{}: TP the largest degree ≤ {} GPUs per node that "
        "divides n and the {} heads, PP = n / TP; each GPU places weights / n + {}its share of "
        "one sequence's KV = {:.2f} GiB {} → {} GPU{} = TP {} × PP {} × {} replica{}\n",
        r.gpu->count_requested ? std::string("the requested")
        : r.serving->gpus_needed_before_machine
            ? fmt::format("the machines' (they ship more than the fewest that fit, {})",
                          r.serving->gpus_needed_before_machine)
            : std::string("the fewest"),
        r.gpu->count_requested || r.serving->gpus_needed_before_machine ? "" : " that fits",
        r.serving->gpus_per_node, r.model.spec.n_head,
        d.engine == Engine::sglang ? ""
        : prof.profile_run
            ? "the profile run's peak (the forward's activations / TP or the sampler's "
              "max_num_seqs rows of logits, the larger) + non-torch memory + "
            : "activations / TP + runtime + ",
        gib_of(se.need_bytes_per_gpu), rule, d.gpus(), d.gpus() == 1 ? "" : "s", d.tp, d.pp,
        d.replicas, d.replicas == 1 ? "" : "s");
  } else if (r.gpu) {
    const auto& p = *r.gpu;
    o += fmt::format(
        "  GPU count\n      = smallest n with ceil((weights + KV) / n) + compute(n) (for n > 1 the "
        "layer split's largest GPU) + overhead, × "
        "(1 + {:.2f}) ≤ {:.2f} GiB usable"
        " → n = {}; {} GPUs: {:.2f} GiB each\n",
        r.config.headroom, gib_of(p.gpu.usable_bytes()), p.count_needed, p.count,
        gib_of(p.per_gpu_bytes));
    o += fmt::format(
        "  tensor parallel\n      = smallest t ≥ {} dividing n_head {} and n_head_kv {} = {}\n",
        p.count, r.model.spec.n_head, r.model.spec.n_head_kv,
        p.tp_degree ? std::to_string(p.tp_degree) : "none up to 64");
  }
  return o;
}

// A serving plan's figures as the table prints them (#20): the step of one replica, each user's
// speed (1 / ITL), the aggregate of all replicas over a request's cycle, the time to first token
// and the sequences running, from the serving step model (serving.cpp estimate_serving).
std::string serving_explain(const Report& r) {
  const ServingPlan& sp = *r.serving;
  const ServingEstimate& e = sp.estimate;
  const Deployment& d = sp.deployment;
  const Workload& w = sp.workload;
  const StepTime& st = e.step;
  std::string o = fmt::format(
      "  serving step (one replica: TP {} × PP {}, {} decode + {} prompt tokens)\n"
      "      = per stage: GEMMs (weights streamed {:.2f} ms, math {:.2f} ms) + attention {:.2f} ms "
      "+ links {:.2f} ms{} + per-layer kernel tails = {:.2f} ms; GPU {:.2f} ms over {} stage(s); "
      "host {:.2f} ms{}\n"
      "      = {:.2f} ms per step, bound by {}; calibration {}\n",
      d.tp, d.pp, st.decode_tokens, st.prefill_tokens, ms_of(st.memory_s), ms_of(st.compute_s),
      ms_of(st.attention_s), ms_of(st.link_s),
      st.ram_s > 0 ? fmt::format(" + experts in system RAM {:.2f} ms (read, and the prompt's copy "
                                 "to the GPU)",
                                 ms_of(st.ram_s))
                   : std::string(),
      ms_of(st.stage_s), ms_of(st.gpu_s), d.pp, ms_of(st.host_s),
      e.calibration && e.calibration->overlap_host ? " (overlapped)" : " (added)", ms_of(st.step_s),
      limit_name(st.bound), e.calibration ? e.calibration->basis : "");
  o += fmt::format(
      "  concurrency\n      = min(users per replica {}, KV pool {:.2f} GiB / {:.3f} GiB per "
      "sequence = {}, max_num_seqs {})\n      = {} running, {} queued per replica\n",
      w.users ? std::to_string((w.users + d.replicas - 1) / d.replicas) : std::string("as many"),
      gib_of(e.kv_pool_bytes_per_gpu), gib_of(e.kv_bytes_per_seq), e.max_concurrency,
      d.limits.max_num_seqs, e.concurrency, e.queued);
  o += fmt::format(
      "  per user\n      = 1 / ITL; ITL = step × running / decode tokens per step{} = {:.2f} ms\n"
      "      = {:.1f} tok/s\n",
      e.power_scale < 1 ? fmt::format(" / power share {:.2f}", e.power_scale) : std::string(),
      ms_of(e.itl_s.value), e.per_user_tokens_per_s.value);
  o += fmt::format(
      "  aggregate\n      = running × replicas × osl / request cycle = {} × {} × {} / {:.2f} s; "
      "cycle = prompt {:.3f} s + prefill wait {:.3f} s + (osl − 1) × ITL\n"
      "      = {:.0f} output tok/s{}\n",
      e.concurrency, d.replicas, w.osl, e.cycle_s, e.prefill_service_s, e.queue_wait_s,
      e.output_tokens_per_s.value,
      e.overloaded ? fmt::format(" (overloaded: the {:.3g} requests/s the replicas sustain)",
                                 e.sustainable_requests_per_s)
                   : std::string());
  if (!e.overloaded)
    o += fmt::format(
        "  first token\n      = request overhead {:.3f} s + prompt in chunks {:.3f} s + wait for "
        "the prefill budget {:.3f} s + first wave {:.3f} s + wait for a slot {:.3f} s\n"
        "      = {:.3f} s (first wave: every user's first request at once, its extra wait over "
        "{} requests per user)\n",
        e.request_overhead_s, e.prefill_service_s, e.queue_wait_s, e.first_wave_s, e.slot_wait_s,
        e.ttft_s.value, w.requests_per_user);
  return o;
}

}  // namespace

std::string render_explain(const Report& r) {
  std::string o;
  const auto& e = r.estimate;
  o += "\nHow each figure is computed\n";
  for (const auto& d : derivations(e, r.model.spec, r.config))
    o += fmt::format("  {}\n      = {}\n      = {}\n", d.quantity, d.formula, d.result);
  if (r.speed && r.gpu && r.model.spec.task != Task::generation) {
    // Embedding / rerank: one prefill pass over the batch, nothing decoded.
    const auto& s = *r.speed;
    const bool enc = r.model.spec.is_encoder();
    o += fmt::format(
        "  prefill\n      = {} × efficiency / (2 × (active params{}) + 4 × n_layer × "
        "{} × n_head × head_dim)\n      = {:.0f} tok/s\n",
        tflops_words(s), enc ? " − n_embd × (n_vocab + n_ctx_train), lookups" : "",
        enc ? "document length" : "document length / 2", s.prefill_tokens_per_s);
    o += fmt::format(
        "  {}\n      = prefill tok/s / document length = {:.0f} / {}\n      = {:.2f} per s; a "
        "batch of {} in {:.3f} s\n",
        r.model.spec.task == Task::rerank ? "query-document pairs" : "documents",
        s.prefill_tokens_per_s, group(r.config.kv.n_ctx), s.documents_per_s, r.config.kv.n_seq,
        s.batch_s);
  } else if (r.speed && r.gpu && r.serving && r.serving->estimate.fits) {
    o += serving_explain(r);
  } else if (r.speed && r.gpu) {
    const auto& s = *r.speed;
    const auto& cal = *s.calibration;
    o += fmt::format(
        "  decode\n      = 1 / (bytes per step / ({:.2f} × {:.0f} GB/s{}) + n_layer × "
        "t_layer{})\n"
        "      = 1 / ({} B / {:.0f} GB/s + {} × {:.0f} µs) = 1 / {:.2f} ms = {:.2f} tok/s per "
        "sequence\n"
        "      bytes per step = active weights + KV read at context {} × {} sequence(s); "
        "calibration {}: {}\n",
        cal.bw_efficiency, r.gpu->gpu.bandwidth_gb_per_s,
        r.speed_input.tensor_parallel && r.speed_input.n_gpus > 1
            ? fmt::format(" × (1 + {} × {:.2f})", r.speed_input.n_gpus - 1, kTpEfficiency)
            : "",
        r.offload ? fmt::format(" + RAM {} at {:.1f} × {:.0f} GB/s",
                                r.offload->n_cpu_moe ? "experts" : "layers", kOffloadRamEfficiency,
                                r.ram_bandwidth_gb_per_s)
                  : "",
        group(s.bytes_per_step), s.decode_bandwidth_gb_per_s, r.model.spec.n_layer,
        us_of(cal.t_layer_s), ms_of(s.step_s), s.decode_tokens_per_s, group(r.speed_input.n_ctx),
        r.speed_input.n_seq, cal.family, cal.basis);
    o += fmt::format(
        "  prefill\n      = {:.2f} × {} / (2 × active params + 4 × n_layer × prompt/2 "
        "× n_head × head_dim)\n      = {:.0f} tok/s\n",
        s.flops_efficiency, tflops_words(s), s.prefill_tokens_per_s);
  }
  if (r.power) {
    // The machine's rated parts, as power.* and the BOM report them.
    const auto& w = *r.power;
    o += fmt::format(
        "  power\n      = the machine's rated parts (machine.max_power_parts_dc_watts) = {:.0f} W "
        "peak DC; wall {:.0f} W (power.max_wall_watts); {:.1f} A at {:.0f} V; heat {:.0f} BTU/h\n",
        w.peak_w, w.wall_w, w.amps, r.power_input.mains_v, w.heat_btu_per_h);
  }
  if (r.system && r.system->platform) {
    o += machine_host_explain(r);
  }
  // The cold start's own steps (load_time.cpp): each with its rate or time and its source.
  if (r.system) {
    const ColdStart& cs = r.system->cold_start;
    o += fmt::format("  load time\n      = weights {:.1f} GB from {}", gb_of(e.weights.bytes),
                     storage_spec(r.storage).name);
    for (const auto& st : cs.steps)
      if (st.step == StartStep::read_weights || st.step == StartStep::copy_to_gpu)
        o += fmt::format(
            "; {} {:.1f} s{} ({})", step_words(st.step), st.seconds,
            st.rate_gb_per_s > 0 ? fmt::format(" at {:.2f} GB/s", st.rate_gb_per_s) : std::string(),
            st.source);
    o += fmt::format("\n      = {:.1f} s to load, {:.1f} s to serving\n", cs.load_s, cs.total_s);
  }
  o += gpu_count_explain(r);
  // As cost.*: the machine's BOM.
  if (const CostPlan* c = r.cost ? &*r.cost : nullptr; c && c->priced) {
    const CostInput& ci = r.cost_input;
    o += fmt::format(
        "  cost per 1M tokens\n      = (hardware {} / {:.0f} years + energy {} per year) / "
        "({:.1f} tok/s × {:.0f}% × 8760 h × 3600 s) × 1e6 = ${:.3f}\n",
        hardware_price_words(*c), ci.years, usd(c->energy_usd_per_year), ci.aggregate_tokens_per_s,
        percent_of(ci.utilization), c->usd_per_mtok);
  }
  return o;
}

}  // namespace llmsize::cli
