#include "cli/render/words.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {

std::string estimate_warning_words(const EstimateWarning& w) {
  switch (w.kind) {
    case EstimateWarningKind::beyond_naive_rule:
      return fmt::format(
          "the rule of thumb 1.2 x weights ({:.2f} GiB) would be {:.2f} GiB short of this "
          "estimate ({:.2f} GiB)",
          gib_of(w.n[0]), gib_of(w.n[2]), gib_of(w.n[1]));
    case EstimateWarningKind::deepseek4_kv_approximate:
      return "DeepSeek-V4's KV cache is approximate: a sliding window per layer plus compressed "
             "caches of n_ctx / compress_ratio entries; llama.cpp's llama-kv-cache-dsv4 state is "
             "not modelled exactly";
    case EstimateWarningKind::beyond_trained_context:
      return fmt::format("context {} exceeds the model's trained context {}", w.n[0], w.n[1]);
    case EstimateWarningKind::mtp_not_in_gguf:
      return fmt::format(
          "the GGUF leaves out the checkpoint's {} MTP layer(s) ({} parameters), as llama.cpp's "
          "convert_hf_to_gguf.py does for this model",
          w.n[0], group_digits(w.n[1]));
    case EstimateWarningKind::mtp_not_loaded:
      return fmt::format(
          "the engine skips the checkpoint's {} MTP layer(s) ({:.2f} GB, on disk and in the "
          "download) unless MTP speculative decoding is on; not counted in VRAM",
          w.n[0], gb_of(w.n[1]));
  }
  return "";
}

namespace {
std::string circuit_words_one_feed(const PowerPlan& p) {
  const CircuitPlan& c = p.circuit;
  switch (c.kind) {
    case CircuitKind::outlet:
      return fmt::format(
          "{:.1f} A at {:.0f} V fits one ordinary {:.0f} A outlet ({:.1f} A continuous)", p.amps,
          p.mains_v, c.rating_a, c.continuous_a);
    case CircuitKind::circuit:
      return fmt::format(
          "{:.1f} A at {:.0f} V: needs a {:.0f} A circuit ({:.1f} A continuous), not a {:.0f} A "
          "outlet",
          p.amps, p.mains_v, c.rating_a, c.continuous_a, c.outlet_a);
    case CircuitKind::dedicated_circuit:
      return fmt::format(
          "{:.1f} A at {:.0f} V: needs a dedicated {:.0f} A circuit ({:.0f} A continuous)", p.amps,
          p.mains_v, c.rating_a, c.continuous_a);
    case CircuitKind::dedicated_circuits:
      return fmt::format(
          "{:.1f} A at {:.0f} V: dedicated {:.0f} A{} circuits ({:.0f} A continuous each): {} of "
          "them",
          p.amps, p.mains_v, c.rating_a, c.north_america ? " 208/240 V" : "", c.continuous_a,
          c.count);
  }
  return "";
}
}  // namespace

std::string circuit_words(const PowerPlan& p) {
  // A redundant machine (A and B feeds) needs the circuits on each feed.
  return circuit_words_one_feed(p) + (p.circuit.feeds > 1 ? ", on each of the A and B feeds" : "");
}

std::string source_words(const std::string& source) {
  static const std::string kMark = "DOUBTFUL", kWords = "(a weak or conflicting source)";
  std::string s = source;
  for (size_t at = s.find(kMark); at != std::string::npos; at = s.find(kMark, at + kWords.size()))
    s.replace(at, kMark.size(), kWords);
  return s;
}

std::string usd_words(double usd) {
  return "$" + group_whole(usd);
}
std::string watts_words(double watts) {
  return group_whole(watts) + " W";
}

std::string hardware_price_words(const CostPlan& c) {
  return (c.complete ? "" : "at least ") + usd_words(c.capex_usd);
}

// The engine that serves the plan (the serving engine, else the memory engine's).
const EngineProfile& engine_of(const Plan& p) {
  return p.serving ? engine_profile(p.serving->deployment.engine) : engine_profile(p.config.engine);
}

template <typename List>
std::string joined(const List& items) {
  std::string o;
  for (const auto& i : items) o += (o.empty() ? "" : ", ") + std::string(i);
  return o.empty() ? "none listed" : o;
}

// NoteKind::experts_in_ram: the request's placement, or the one the GPUs given would need.
std::string experts_in_ram_words(const Note& n) {
  const bool all = n.n[0] >= n.n[1];
  const std::string which =
      all ? fmt::format("every block's routed experts (all {})", n.n[1])
          : fmt::format("the routed experts of the first {} of {} blocks", n.n[0], n.n[1]);
  if (n.n[3])
    return fmt::format(
        "{} stay in system RAM ({:.1f} GiB, read at {:.0f} GB/s); attention, KV and the shared "
        "weights run on the GPUs",
        which, gib_of(n.n[2]), n.x);
  return fmt::format(
      "the GPUs hold the model with {} in system RAM ({:.1f} GiB, read at {:.0f} GB/s): plan it "
      "with --n-cpu-moe {}",
      which, gib_of(n.n[2]), n.x, all ? n.n[1] : n.n[0]);
}

// NoteKind::none_at_usable_speed: no option reaches the usable speed, and what to do.
std::string none_at_usable_speed_words(const Note& n) {
  return fmt::format(
      "no catalog system serves {} users at the usable speed of {:.0f} tok/s each under {} "
      "(the fastest option gives {:.1f}): nothing is recommended; a batching engine "
      "(--engine vllm or sglang), --gpu to plan one anyway, or --min-tps to accept slower",
      n.n[0], n.y, engine_profile(static_cast<Engine>(n.n[1])).name, n.x);
}

// NoteKind::fewer_experts_in_ram: the fewest blocks' experts in RAM the GPUs hold the model with.
std::string fewer_experts_words(const Note& n) {
  const std::string now =
      fmt::format("{:.2f} GiB with the experts of {} blocks there", n.y, n.n[2]);
  if (n.n[0] == 0)
    return fmt::format(
        "the GPUs hold every routed expert with the headroom: without --n-cpu-moe no token reads "
        "experts from RAM ({})",
        now);
  return fmt::format(
      "--n-cpu-moe {} is the fewest blocks the GPUs hold the model with ({:.1f} GiB of experts in "
      "RAM): each token would read {:.2f} GiB from RAM instead of {}",
      n.n[0], gib_of(n.n[3]), n.x, now);
}

// NoteKind::unified_memory: the GPU's share of the memory, and how to raise the OS's limit when
// the plan needs more (macOS: iogpu.wired_limit_mb in MiB; Linux amdgpu: GTT through
// ttm.pages_limit in 4 KiB pages and amdgpu.gttsize in MiB, AMD's Strix Halo optimization guide).
std::string unified_memory_words(const Note& n, const GpuSpec& g) {
  std::string o = fmt::format(
      "{} shares memory with the CPU: {:.0f}% of {:.0f} GiB is counted as usable by the GPU ({})",
      g.name, percent_of(g.memory_fraction), gib_of(g.memory_bytes),
      n.n[0] ? "--gpu-memory-limit" : "the OS's default; --gpu-memory-limit GIB sets yours");
  if (!n.n[1]) return o;
  const uint64_t gib = (n.n[1] + (1ull << 30) - 1) >> 30;
  if (g.vendor == GpuVendor::apple)
    o += fmt::format(
        "; the plan needs {} GiB: sudo sysctl iogpu.wired_limit_mb={} raises macOS's "
        "limit, then plan with --gpu-memory-limit {}",
        gib, gib * 1024, gib);
  else if (g.vendor == GpuVendor::amd)
    o += fmt::format(
        "; the plan needs {} GiB: the kernel parameters ttm.pages_limit={} amdgpu.gttsize={} "
        "raise Linux's GTT, then plan with --gpu-memory-limit {}",
        gib, gib * 262144, gib * 1024, gib);
  return o;
}

std::string padding_otherwise_words(const Note& n) {
  return fmt::format(
      "where vLLM takes its Marlin MXFP4 kernels on Hopper (no triton_kernels installed), the "
      "experts are padded to its layout: {:.2f} GiB more per GPU, a {:.2f} GiB KV pool{}",
      gib_of(n.n[0]), gib_of(n.n[1]),
      n.n[2] ? std::string()
             : fmt::format(" that holds no {}-token request: vLLM does not start (raise "
                           "--gpu-memory-utilization or lower --ctx)",
                           group_whole(static_cast<double>(n.n[3]))));
}

std::string note_words(const Note& n, const Plan& p) {
  const GpuSpec* g = p.gpu ? &p.gpu->gpu : nullptr;
  const std::string name = g ? g->name : "";
  switch (n.kind) {
    case NoteKind::no_catalog_gpu:
      return fmt::format("no catalog GPU holds this model in up to {} cards", kMaxRecommendedGpus);
    case NoteKind::none_at_usable_speed:
      return none_at_usable_speed_words(n);
    case NoteKind::capacity_unreachable:
      return "capacity: " + (p.capacity ? capacity_limit_words(*p.capacity) : std::string());
    case NoteKind::unified_memory:
      return unified_memory_words(n, *g);
    case NoteKind::gpu_cannot_hold:
      return name + " cannot hold this model at any count up to " + std::to_string(kMaxGpus);
    case NoteKind::gpu_not_enough:
      return fmt::format("{} × {} is not enough: {} are needed", n.n[0], name, n.n[1]);
    case NoteKind::gpu_tight:
      return fmt::format(
          "{} × {} fit tight: {:.1f}% headroom, below the {:.0f}% rule ({} GPUs keep the rule)",
          n.n[0], name, percent_of(n.x), percent_of(n.y), n.n[1]);
    case NoteKind::tensor_split_indivisible:
      return fmt::format(
          "--split tensor: {} GPUs do not divide the {} attention heads and {} KV heads; "
          "valid degrees start at {}",
          n.n[0], n.n[1], n.n[2], n.n[3]);
    case NoteKind::no_price:
      return name + " has no public price in the catalog: give one with --price " + g->id + "=USD";
    case NoteKind::whole_computer:
      return name +
             " is a whole computer (unified memory): host, power and storage sections are left out";
    case NoteKind::no_platform: {
      std::string why;
      if (p.system)
        for (const auto& x : p.system->choice.rejected) {
          why += why.empty() ? ": " : "; ";
          why += x.platform_id;
          for (size_t i = 0; i < x.reasons.size(); ++i)
            why += std::string(i ? ", " : " (") + to_string(x.reasons[i]);
          if (!x.reasons.empty()) why += ")";
        }
      // Nothing stands in for the machine: no host, power or cost is shown.
      return fmt::format(
          "no platform in the catalog takes {} × {}{}; no host, power or cost is planned (a "
          "--catalog platform row that takes them gives one)",
          n.n[0], name, why);
    }
    case NoteKind::engine_not_on_gpu: {
      const EngineProfile& e = engine_of(p);
      return fmt::format("{} does not run on {} ({}): it runs on {} ({})", e.name, name,
                         joined(g->backends), joined(e.backends), e.backends_source);
    }
    case NoteKind::offload:
      return fmt::format(
          "{} of {} layers do not fit on the GPUs and run from system RAM ({:.1f} GiB at {:.0f} "
          "GB/s)",
          n.n[0], n.n[1], gib_of(n.n[2]), n.x);
    case NoteKind::experts_in_ram:
      return experts_in_ram_words(n);
    case NoteKind::fewer_experts_in_ram:
      return fewer_experts_words(n);
    case NoteKind::draft_speed:
      return "the draft model (--draft) is in the memory; the speed is the main model's alone: "
             "speculative decoding's gain depends on how many drafted tokens are accepted, which "
             "llmsize does not model yet";
    case NoteKind::kernel_padding_otherwise:
      return padding_otherwise_words(n);
    case NoteKind::ram_too_small:
      return fmt::format(
          "the weights kept in system RAM ({:.1f} GiB) are more than the {:.0f} GiB this machine "
          "takes at most: a machine that takes more (--class workstation or server) or more GPUs "
          "to hold them",
          gib_of(n.n[0]), gib_of(n.n[1]));
    case NoteKind::uncalibrated_speed:
      return "speed for " + name + " is not calibrated against measurements: wide range";
    case NoteKind::assumed_tflops:
      return fmt::format(
          "the catalog has no dense FP16/BF16 TFLOPS for {}: prefill and time to first token "
          "assume {:.0f} TFLOPS (conservative: the chip is likely faster)",
          name, n.x);
    case NoteKind::rate_missing: {
      const auto want = static_cast<ComputeDtype>(n.n[0]);
      const auto used = static_cast<ComputeDtype>(n.n[1]);
      return n.n[2] ? fmt::format(
                          "the catalog has no dense tensor rate for {}: the serving plan assumes "
                          "{:.0f} TFLOPS, so prefill, time to first token and large batches may be "
                          "far slower than the chip runs them",
                          name, n.x)
                    : fmt::format(
                          "the catalog has no dense {} rate for {}: the serving plan computes the "
                          "{} weights at its {} rate ({:.0f} TFLOPS), so prefill, time to first "
                          "token and large batches may be understated",
                          compute_dtype_name(want), name, compute_dtype_name(want),
                          compute_dtype_name(used), n.x);
    }
    case NoteKind::class_policy:
      return n.n[1] ? fmt::format(
                          "a shared service{}: planned on a workstation or server, which carry ECC "
                          "memory, a BMC and redundant PSUs that a desktop lacks, with no consumer "
                          "card (no ECC memory; the GeForce licence bars datacenter use): "
                          "--class desktop to allow them",
                          n.n[2] ? fmt::format(" of {} users", n.n[2]) : std::string())
                    : fmt::format("machines of {} class or above (--class)",
                                  to_string(static_cast<PlatformClass>(n.n[0])));
    case NoteKind::batching_engine_suggested:
      return fmt::format(
          "{} users on {}: a batching engine (--engine vllm or sglang: continuous batching over a "
          "paged KV cache) serves that many with fewer GPUs or faster; compare the two plans",
          n.n[0], p.config.engine == Engine::ollama ? "Ollama" : "llama.cpp");
    case NoteKind::below_usable_speed:
      return fmt::format(
          "{:.1f} tok/s {} is below the usable speed of {:.0f} tok/s (--min-tps){}: more GPUs, "
          "a faster GPU{}, or --min-tps 0 to accept it",
          n.x, p.serving ? "per user" : "per sequence", n.y,
          n.n[0] ? "; no catalog system that holds the model reaches it" : "",
          p.serving ? "" : ", or a batching engine (--engine vllm or sglang) for several users");
  }
  return "";
}

std::vector<std::string> quant_warnings(const PlanWords& w, const Plan& p) {
  std::vector<std::string> v;
  const QuantPreset& q = *w.quant;
  if (w.quant_requested != q.id)
    v.push_back("quantization \"" + std::string(w.quant_requested) + "\" means " + q.id);
  const Engine e = p.config.engine;
  if (!q.gguf && (e == Engine::llama_cpp || e == Engine::ollama))
    v.push_back(std::string(q.id) + " is a checkpoint format of vLLM/transformers: every " +
                "weight is counted on the GPU, and KV cache and buffers follow " +
                engine_profile(e).name + "'s rules; --engine vllm or transformers applies theirs");
  return v;
}

size_t hash_key(const EstimateWarning& w) {
  return KeyMix().add(uint64_t{static_cast<uint8_t>(w.kind)}).add(w.n[0]).add(w.n[1]).add(w.n[2]).h;
}
size_t hash_key(const std::pair<Note, size_t>& k) {
  const Note& n = k.first;
  return KeyMix()
      .add(uint64_t{static_cast<uint8_t>(n.kind)})
      .add(n.n[0])
      .add(n.n[1])
      .add(n.n[2])
      .add(n.n[3])
      .add(n.x)
      .add(n.y)
      .add(uint64_t{k.second})
      .h;
}

namespace {

// Notes whose words come from their own numbers alone (WarningsMemo keeps them).
bool self_worded(NoteKind k) {
  return k == NoteKind::offload || k == NoteKind::experts_in_ram ||
         k == NoteKind::fewer_experts_in_ram || k == NoteKind::ram_too_small ||
         k == NoteKind::draft_speed || k == NoteKind::kernel_padding_otherwise ||
         k == NoteKind::tensor_split_indivisible || k == NoteKind::no_catalog_gpu ||
         k == NoteKind::none_at_usable_speed;
}
// Notes worded from their numbers and the plan's GPU (its name, id and memory).
bool gpu_worded(NoteKind k) {
  return k == NoteKind::unified_memory || k == NoteKind::gpu_cannot_hold ||
         k == NoteKind::gpu_not_enough || k == NoteKind::gpu_tight || k == NoteKind::no_price ||
         k == NoteKind::whole_computer || k == NoteKind::uncalibrated_speed ||
         k == NoteKind::engine_not_on_gpu || k == NoteKind::assumed_tflops ||
         k == NoteKind::rate_missing;
}

// The lines of the model and quantization alone: before the notes, and the quantization's.
void model_lines(const PlanWords& w, const Plan& p, std::vector<std::string>& leading,
                 std::vector<std::string>& quant) {
  leading.clear();
  if (!w.model->assumption.empty()) leading.push_back("assumed: " + w.model->assumption);
  if (!w.quant_ignored.empty())
    leading.push_back("--quant " + sanitize(std::string(w.quant_ignored)) +
                      " is ignored: the file's tensors give the weights (" + w.quant->id + ")");
  quant = quant_warnings(w, p);
}

}  // namespace

void plan_warnings(const PlanWords& w, const Plan& p, std::vector<std::string>& out) {
  // The strings of `out` are reused: a sweep words every row into the same vector.
  size_t k = 0;
  auto put = [&](std::string_view s) {
    if (k == out.size()) out.emplace_back();
    out[k++].assign(s);
  };
  auto note = [&](const Note& n) {
    if (w.memo && self_worded(n.kind))
      put(w.memo->notes.get({n, 0}, [&] { return note_words(n, p); }));
    else if (w.memo && w.gpu_key && gpu_worded(n.kind))
      put(w.memo->notes.get({n, w.gpu_key}, [&] { return note_words(n, p); }));
    else
      put(note_words(n, p));
  };
  std::vector<std::string> leading, quant;
  if (w.memo) {
    WarningsMemo& m = *w.memo;
    if (m.model != w.model || m.quant != w.quant || m.quant_requested != w.quant_requested ||
        m.quant_ignored != w.quant_ignored || m.engine != p.config.engine) {
      model_lines(w, p, m.leading, m.quant_lines);
      m.model = w.model;
      m.quant = w.quant;
      m.quant_requested = w.quant_requested;
      m.quant_ignored = w.quant_ignored;
      m.engine = p.config.engine;
    }
  } else {
    model_lines(w, p, leading, quant);
  }
  const auto& lead_lines = w.memo ? w.memo->leading : leading;
  const auto& quant_lines = w.memo ? w.memo->quant_lines : quant;
  for (const auto& x : lead_lines) put(x);
  for (const Note& n : p.notes)
    if (!after_estimate_warnings(n.kind)) note(n);
  for (const auto& x : p.estimate.warnings) {
    if (w.memo)
      put(w.memo->estimate.get(x, [&] { return estimate_warning_words(x); }));
    else
      put(estimate_warning_words(x));
  }
  for (const auto& x : quant_lines) put(x);
  for (const Note& n : p.notes)
    if (after_estimate_warnings(n.kind)) note(n);
  out.resize(k);
}

std::vector<std::string> plan_warnings(const PlanWords& w, const Plan& p) {
  std::vector<std::string> v;
  plan_warnings(w, p, v);
  return v;
}

std::string stored_quant_warning(const PlanWords& w) {
  // resolve_request took the checkpoint's stored format from its quantization_config.
  const ResolvedModel& m = *w.model;
  if (m.exact_weights || m.spec.stored_quant.empty() || m.spec.stored_quant != w.quant->id)
    return "";
  return std::string("weights as the checkpoint stores them (") + w.quant->id +
         ", from its quantization_config); --quant overrides";
}

std::string ctx_max_warning(const MaxContext& mc, const std::string& gpus, uint64_t usable_bytes) {
  if (mc.limited_by_memory)
    return fmt::format(
        "--ctx max: {} is the largest context that fits {} ({:.2f} GiB per GPU; {} would need "
        "{:.2f} GiB of {:.2f})",
        group_digits(mc.n_ctx), gpus, gib_of(mc.per_gpu_bytes), group_digits(mc.next_n_ctx),
        gib_of(mc.next_per_gpu_bytes), gib_of(usable_bytes));
  return fmt::format(
      "--ctx max: {}, the model's trained context, fits {} ({:.2f} GiB per GPU of "
      "{:.2f})",
      group_digits(mc.n_ctx), gpus, gib_of(mc.per_gpu_bytes), gib_of(usable_bytes));
}

std::vector<const CircuitOption*> circuits_shown(const Plan& p) {
  std::vector<const CircuitOption*> v;
  if (!p.system) return v;
  const bool north_america = north_american_mains(p.power_input.mains_v);
  for (const auto& c : p.system->circuits) {
    if (!c.circuits || c.north_america != north_america) continue;
    if (c.outlet && c.circuits == 1) return {&c};
    v.push_back(&c);
  }
  // Nothing at these mains (a voltage the catalog does not model): every option.
  if (v.empty())
    for (const auto& c : p.system->circuits)
      if (c.circuits) v.push_back(&c);
  return v;
}

void plan_checklist(const Plan& r, std::vector<std::string>& c) {
  c.clear();
  const SystemPlan* sy = r.system && r.system->platform ? &*r.system : nullptr;
  if (sy) {
    std::string circuits;
    for (const CircuitOption* x : circuits_shown(r))
      circuits += fmt::format("{}{} × {:.0f} V{} {:.0f} A{}", circuits.empty() ? "" : "; ",
                              x->circuits, x->volts, x->phases == 3 ? " 3-phase" : "", x->breaker_a,
                              x->outlet ? " (an ordinary outlet)" : "");
    c.push_back(fmt::format("Circuit: {} W maximum at the wall{}: {}",
                            group_whole(sy->max_wall_w_total),
                            sy->platform->psu.redundancy.r > 0 ? ", A and B feeds" : "",
                            circuits.empty() ? "beyond the circuits modelled" : circuits));
    c.push_back(fmt::format(
        "Cooling: remove {} W = {} BTU/h at the maximum (typical {} W){}",
        group_whole(sy->max_wall_w_total), group_whole(sy->heat_btu_per_h_total),
        group_whole(sy->typical_wall_w_total),
        sy->max_wall_w_total > kOfficeCoolingW
            ? " (more than an office's air conditioning: plan a server room or rack cooling)"
            : ""));
  }
  if (!r.gpu) return;
  const auto& p = *r.gpu;
  std::string between;
  // The machine may wire the cards narrower than they are (an AM5 desktop's x8/x8).
  if (sy && p.link == GpuLink::pcie && sy->choice.lanes_per_gpu > 0 &&
      sy->choice.lanes_per_gpu < p.pcie_lanes)
    between = fmt::format("; this machine gives each card x{} ({:.0f} GB/s per direction)",
                          sy->choice.lanes_per_gpu,
                          p.link_gb_per_s * sy->choice.lanes_per_gpu / p.pcie_lanes);
  // The catalog may split GPUs the class rule keeps in one box (two desktops of two): the
  // machines need a network of their own.
  if (replicas_within_machines(r))
    between += fmt::format(
        "; each replica stays inside one of the {} machines: only requests travel between them",
        sy->choice.nodes);
  else if (sy && sy->choice.nodes > 1 && p.link != GpuLink::network)
    between += fmt::format(
        "; between the {} machines a network carries the layer split (only activations)",
        sy->choice.nodes);
  c.push_back(fmt::format("Links: {} — {}{}", gpu_link_words(r), link_reason_words(p.link_reason),
                          between));
  // Growth in the machine chosen (a platform's largest GPU count it ships with), else the class.
  const uint32_t per_node = sy ? sy->platform->max_gpus() : max_gpus_per_node(p.gpu);
  const uint32_t in_node = sy ? sy->choice.gpus_per_node : p.count;
  const uint32_t room = per_node > in_node ? per_node - in_node : 0;
  c.push_back(room ? fmt::format("Growth: the {} holds {} more {} (up to {} per machine)",
                                 sy ? sy->platform->name : std::string("chassis class"), room,
                                 p.gpu.id, per_node)
                   : "Growth: the machine is full; more capacity means another machine");
  const EngineProfile& engine = engine_of(r);
  const bool runs = std::none_of(r.notes.begin(), r.notes.end(), [](const Note& n) {
    return n.kind == NoteKind::engine_not_on_gpu;
  });
  c.push_back(fmt::format("Software: {} supports {} — {} {} on it (it runs on {})", p.gpu.name,
                          joined(p.gpu.backends), engine.name, runs ? "runs" : "does not run",
                          joined(engine.backends)));
  // A unified-memory computer has no cards: its memory and GPU are one soldered part.
  const bool whole_computer = p.gpu.unified_memory || p.gpu.gpu_class == GpuClass::soc;
  c.push_back(
      whole_computer
          ? "Maintenance: a whole computer: memory and GPU are soldered, so nothing is upgraded "
            "or swapped; service is the maker's warranty, and the spare part is a spare unit"
      : p.gpu.gpu_class == GpuClass::consumer
          ? "Maintenance: consumer cards have no ECC memory on most models, blower-less coolers "
            "need open-air spacing, and the GeForce driver licence restricts datacenter deployment"
          : "Maintenance: datacenter/workstation cards carry ECC and vendor support; budget a "
            "spare and firmware updates");
}

std::vector<std::string> plan_checklist(const Plan& p) {
  std::vector<std::string> v;
  plan_checklist(p, v);
  return v;
}

std::string layout_words(const Deployment& d) {
  std::string s = fmt::format(
      "TP {} × PP {} × {} replica{}{}", d.tp, d.pp, d.replicas, d.replicas == 1 ? "" : "s",
      d.attention_dp && d.tp > 1 ? fmt::format(", EP {} with attention data parallel", d.tp)
                                 : std::string());
  if (d.disaggregated())
    s = fmt::format("{} prefill worker{} of TP {} + decode {}", d.prefill_workers,
                    d.prefill_workers == 1 ? "" : "s", d.prefill_tp, s);
  return s;
}

std::string split_words(const Plan& p) {
  if (!p.gpu) return "";
  // A serving deployment's own layout (the one its Serving section and --emit run).
  if (p.serving && p.serving->deployment.gpus() == p.gpu->count)
    return layout_words(p.serving->deployment);
  if (p.capacity_split)
    return p.capacity->replicas > 1 ? fmt::format("{} replicas × tensor parallel {}",
                                                  p.capacity->replicas, p.capacity->tp_degree)
                                    : fmt::format("tensor parallel {}", p.capacity->tp_degree);
  return gpu_split_words(p.gpu->split);
}

const char* train_mode_name(TrainMode m) {
  return m == TrainMode::full ? "full" : m == TrainMode::qlora ? "QLoRA" : "LoRA";
}

std::string gpu_split_words(GpuSplit s) {
  switch (s) {
    case GpuSplit::single:
      return "single GPU";
    case GpuSplit::layer:
      return "layer split";
    case GpuSplit::tensor_parallel:
      return "tensor parallel";
    case GpuSplit::tensor_then_pipeline:
      return "tensor parallel in each node, pipeline across nodes";
    case GpuSplit::pipeline_across_nodes:
      return "layer (pipeline) split across nodes";
    case GpuSplit::replicas:
      return "independent replicas";
    case GpuSplit::data_parallel:
      return "data parallel, the weights, gradients and optimizer states sharded (FSDP / ZeRO-3)";
  }
  return "";
}

const char* step_words(StartStep s) {
  switch (s) {
    case StartStep::read_weights:
      return "read weights";
    case StartStep::copy_to_gpu:
      return "copy to GPUs";
    case StartStep::runtime_init:
      return "runtime init";
    case StartStep::memory_profile:
      return "memory profile";
    case StartStep::graph_capture:
      return "graph capture";
    case StartStep::compile:
      return "compile";
  }
  return "";
}

std::string option_split_words(const GpuOption& o) {
  if (!o.tp) return gpu_split_words(o.plan.split);
  Deployment d;
  d.tp = o.tp;
  d.pp = o.pp;
  d.replicas = o.replicas;
  d.attention_dp = o.attention_dp;
  return layout_words(d);
}

std::string gpu_link_words(const GpuPlan& p, uint32_t nodes, uint32_t per_node) {
  switch (p.link) {
    case GpuLink::none:
      return "none needed";
    case GpuLink::network:
      // One GPU per machine (unified-memory computers): units, not 8-GPU servers. Reads only
      // is_module() of the GPU and the shape given, as the sweep's memo key of these words
      // holds.
      if (per_node == 1)
        return fmt::format(
            "{} units of one GPU each, on a network: a pipeline split passes only activations "
            "(the maker's own link where it has one)",
            nodes);
      // Modules: the HGX/OAM baseboards' fabric, a 400 Gb/s NIC per GPU. PCIe cards split by
      // layers across the machines (host_model.cpp size_nics): one stage link per machine.
      if (p.gpu.is_module())
        return fmt::format(
            "{} nodes of up to {} GPUs: 400 Gb/s InfiniBand or RoCE per GPU between the "
            "baseboards (the HGX/DGX design)",
            nodes, per_node);
      return fmt::format(
          "{} nodes of up to {} GPUs: the layers split across them pass only activations: a "
          "100-200 GbE link per machine at most (400 Gb/s per GPU is for tensor parallelism "
          "across nodes)",
          nodes, per_node);
    case GpuLink::gpu:
      return fmt::format("{}, {:.0f} GB/s per GPU", to_string(p.gpu.interconnect), p.link_gb_per_s);
    case GpuLink::pcie:
      return fmt::format("PCIe {}.0 x{} ({:.0f} GB/s per direction per GPU)", p.pcie_gen,
                         p.pcie_lanes, p.link_gb_per_s);
  }
  return "";
}

LinkShape link_shape(const Plan& p) {
  if (p.system && p.system->platform)
    return {p.system->choice.nodes, p.system->choice.gpus_per_node};
  return {p.gpu ? p.gpu->nodes : 1, p.gpu ? max_gpus_per_node(p.gpu->gpu) : 1};
}

std::string gpu_link_words(const Plan& p) {
  const LinkShape s = link_shape(p);
  return gpu_link_words(*p.gpu, s.nodes, s.per_node);
}

std::string capacity_limit_words(const CapacityPlan& c) {
  switch (c.limited_by) {
    case CapacityLimit::memory:
      return "memory";
    case CapacityLimit::speed:
      return "speed";
    case CapacityLimit::no_tp_degree:
      return fmt::format("no tensor-parallel degree up to {} holds the model and KV cache",
                         c.max_tp_degree);
    case CapacityLimit::too_slow:
      return "no split reaches the target per user: one sequence is already slower (bandwidth "
             "bound)";
  }
  return "";
}

std::string link_reason_words(LinkReason r) {
  switch (r) {
    case LinkReason::one_gpu:
      return "one GPU";
    case LinkReason::beyond_chassis:
      return "more GPUs than one chassis holds";
    case LinkReason::nvlink_bridge_pairs:
      return "NVLink bridges join pairs only: tensor parallelism beyond 2 falls back to PCIe";
    case LinkReason::tensor_all_reduce:
      return "tensor parallelism all-reduces every layer: use the GPU's own link";
    case LinkReason::no_gpu_link:
      return "no GPU-to-GPU link on this card: a layer split passes only activations between GPUs";
    case LinkReason::separate_units:
      return "unified-memory computers are separate machines: the layers split across units "
             "over the network (llama.cpp RPC, MLX distributed), one hop per token per unit";
    case LinkReason::tensor_over_pcie:
      return "tensor parallelism all-reduces every layer over PCIe (the card has no GPU-to-GPU "
             "link)";
    case LinkReason::fsdp_collectives:
      return "FSDP all-gathers each layer's weights and reduce-scatters its gradients every step: "
             "the GPUs' own link in a machine, a 400 Gb/s NIC per GPU between machines";
  }
  return "";
}

std::string redundancy_words(const ServingPlan& sp) {
  const ServingCapacity& c = *sp.capacity;
  const uint32_t k = sp.spare_machines, span = sp.deployment.tp * sp.deployment.pp;
  const std::string cost =
      sp.spare_usd > 0 ? fmt::format(", {}{} more", sp.spare_usd_complete ? "" : "at least ",
                                     usd_words(sp.spare_usd))
                       : std::string(", unpriced");
  return fmt::format(
      "n+{}: {} spare replica{} ({} GPU{}) on {} machine{} of {}{}; with {} machine{} down, {} "
      "replica{} serve all {} users at {:.1f} tok/s each, first token {:.2f} s: {}",
      k, c.spare_replicas, c.spare_replicas == 1 ? "" : "s", c.spare_replicas * span,
      c.spare_replicas * span == 1 ? "" : "s", k, k == 1 ? "" : "s",
      k == 1 ? "its own" : "their own", cost, k, k == 1 ? "" : "s", sp.replicas_surviving,
      sp.replicas_surviving == 1 ? "" : "s", sp.workload.users,
      c.degraded.per_user_tokens_per_s.value, c.degraded.ttft_s.value,
      sp.degraded_meets() ? "the targets hold" : "a target is missed");
}

}  // namespace llmsize::cli
