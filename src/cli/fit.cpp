#include "cli/fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/report.hpp"
#include "cli/request.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/max_context.hpp"
#include "llmsize/plan.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

using ojson = nlohmann::ordered_json;

std::string group(uint64_t v) {
  return group_digits(v);
}

double gib(uint64_t b) {
  return static_cast<double>(b) / static_cast<double>(kGiB);
}

// Presets whose body type has fewer bits per weight than this lose quality steeply (llama.cpp's
// quantization perplexity tables: Q4_K_M and up stay within a few percent of F16, Q3 and Q2 do
// not).
constexpr double kLossyBelowBpw = 4.0;

bool lossy(const QuantPreset& q) {
  return traits(q.default_type).bits_per_weight() < kLossyBelowBpw;
}

}  // namespace

const std::vector<std::string>& fit_default_quants() {
  static const std::vector<std::string> k = {"f16",    "q8_0",   "q6_k", "q5_k_m",
                                             "q4_k_m", "q3_k_m", "q2_k"};
  return k;
}

FitResult compute_fit(const Options& o, const Catalog& cat) {
  if (o.gpu.empty()) throw InputError("--gpu: fit needs the GPU to fit on (llmsize gpus)");
  FitResult res;
  const std::vector<std::string> quants =
      o.planning.fit_quants.empty() ? fit_default_quants() : o.planning.fit_quants;
  if (o.ctx_max)
    throw InputError(
        "--ctx: fit lists the largest context of each model itself; give the one "
        "each must hold at least, tokens");
  res.context = count_in_range("--ctx", o.ctx, 1, kMaxContextTokens);
  if (cat.models().empty()) return res;
  // Every flag and the GPU through the first model's request; the models come from the catalog.
  Options first = o;
  first.gpus = o.gpus ? o.gpus : 1;
  first.planning = PlanningOptions();
  first.model = cat.models().front().spec.id;
  first.quant = quants.front();
  first.explain = false;
  ResolvedRequest rq;
  resolve_request(first, cat, rq);
  Planner planner(rq.request);
  const size_t gi = planner.add_gpu(*rq.request.gpu);
  const uint32_t count = rq.request.gpus_requested;
  for (const auto& cm : cat.models()) {
    const ModelSpec& m = cm.spec;
    if (m.n_ctx_train && m.n_ctx_train < res.context) {
      res.short_context.push_back(m.id);
      continue;
    }
    std::vector<FitEntry> fitting;
    for (const auto& q : quants) {
      const QuantPreset& preset = resolve_quant("--quant", q);
      const size_t mi = planner.add_model(m, &preset);
      const Plan& r = planner.plan(mi, res.context, gi, count);
      const GpuPlan& p = *r.gpu;
      res.gpu_id = p.gpu.id;
      res.gpu_name = p.gpu.name;
      res.count = p.count;
      res.usable_bytes_each = p.gpu.usable_bytes();
      if (!p.fits) continue;
      FitEntry f;
      f.model_id = m.id;
      f.model_name = m.name;
      f.params = r.estimate.weights.params;
      f.quant = preset.id;
      f.bits_per_weight = r.estimate.weights.bits_per_weight();
      f.lossy = lossy(preset);
      f.per_gpu_bytes = p.per_gpu_bytes;
      const uint32_t limit =
          m.n_ctx_train ? std::min(m.n_ctx_train, kMaxContextTokens) : kMaxContextTokens;
      const MaxContext mc =
          max_context(m, r.config, r.estimate.weights, p.count, p.gpu.usable_bytes(), limit);
      f.max_context = mc.n_ctx;
      f.max_context_is_trained = !mc.limited_by_memory;
      fitting.push_back(f);
    }
    if (fitting.empty()) {
      res.no_fit.push_back(m.id);
      continue;
    }
    std::sort(fitting.begin(), fitting.end(), [](const FitEntry& a, const FitEntry& b) {
      return a.bits_per_weight > b.bits_per_weight;
    });
    if (o.planning.fit_all)
      res.fits.insert(res.fits.end(), fitting.begin(), fitting.end());
    else
      res.fits.push_back(fitting.front());
  }
  std::stable_sort(res.fits.begin(), res.fits.end(), [](const FitEntry& a, const FitEntry& b) {
    if (a.lossy != b.lossy) return b.lossy;
    if (a.params != b.params) return a.params > b.params;
    return a.bits_per_weight > b.bits_per_weight;
  });
  return res;
}

std::string run_fit(const Options& o) {
  static const std::vector<std::string> kFormats = {"table", "json", "csv"};
  if (std::find(kFormats.begin(), kFormats.end(), o.format) == kFormats.end())
    throw InputError("--format: expected table, json or csv, got '" + o.format + "'");
  Catalog cat = Catalog::builtin();
  for (const auto& f : o.catalogs) cat.merge_file(f);
  const FitResult r = compute_fit(o, cat);
  if (o.format == "json" || o.format == "csv") {
    ojson arr = ojson::array();
    for (const auto& f : r.fits)
      arr.push_back(
          {{"model", f.model_id},
           {"name", f.model_name},
           {"params", f.params},
           {"quant", f.quant},
           {"bits_per_weight", std::round(f.bits_per_weight * 10000) / 10000},
           {"lossy", f.lossy},
           {"per_gpu_bytes", f.per_gpu_bytes},
           {"max_context", f.max_context},
           {"max_context_limited_by", f.max_context_is_trained ? "n_ctx_train" : "memory"}});
    if (o.format == "json") {
      ojson j = {{"schema_version", 1},
                 {"gpu",
                  {{"id", r.gpu_id},
                   {"name", r.gpu_name},
                   {"count", r.count},
                   {"usable_bytes_each", r.usable_bytes_each}}},
                 {"context", r.context},
                 {"fits", arr},
                 {"left_out_short_context", r.short_context},
                 {"left_out_no_fit", r.no_fit}};
      return j.dump(2) + "\n";
    }
    std::string out =
        "model,name,params,quant,bits_per_weight,lossy,per_gpu_bytes,max_context,max_context_"
        "limited_by\n";
    for (const auto& x : arr) {
      std::string line;
      for (const auto& [k, v] : x.items())
        line += (line.empty() ? "" : ",") +
                (v.is_string() ? csv_cell(csv_text_cell(v.get<std::string>())) : v.dump());
      out += line + "\n";
    }
    return out;
  }
  std::string out =
      fmt::format("Fits {} × {} ({:.1f} GiB usable each) at context {} — best quality first\n\n",
                  r.count, r.gpu_id, gib(r.usable_bytes_each), group(r.context));
  if (r.fits.empty()) {
    out += "  nothing in the catalog fits\n";
  } else {
    out += fmt::format("  {:<30} {:>9}  {:<8} {:>6}  {:>8}  {}\n", "model", "params", "quant",
                       "bits/w", "GiB/GPU", "max context");
    for (const auto& f : r.fits)
      out += fmt::format("  {:<30} {:>7.2f} B  {:<8} {:>6.2f}  {:>8.2f}  {}{}\n", f.model_id,
                         static_cast<double>(f.params) / 1e9, f.quant, f.bits_per_weight,
                         gib(f.per_gpu_bytes), group(f.max_context),
                         f.max_context_is_trained ? " (trained maximum)" : "");
  }
  out += fmt::format(
      "\nOrder: presets of {:.0f}+ bits per weight first (below that quality drops steeply), then "
      "more parameters, "
      "then more bits per weight.\nGiB/GPU at context {}, headroom included; max context: the "
      "largest that fits, exactly "
      "(KV padding, sliding windows), up to the model's trained context.\n",
      kLossyBelowBpw, group(r.context));
  if (!r.no_fit.empty())
    out += fmt::format("Too large at every quantization tried: {}\n", fmt::join(r.no_fit, ", "));
  if (!r.short_context.empty())
    out += fmt::format("Trained context below {}: {}\n", group(r.context),
                       fmt::join(r.short_context, ", "));
  return out;
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
  const uint32_t limit =
      m.n_ctx_train ? std::min(m.n_ctx_train, kMaxContextTokens) : kMaxContextTokens;
  const MaxContext mc = max_context(m, p.config, p.estimate.weights, plan.count, usable, limit);
  const std::string gpus = fmt::format("{} × {}", plan.count, plan.gpu.id);
  if (mc.n_ctx == 0)
    throw InputError(fmt::format(
        "--ctx max: {} {} does not fit {} even at context 1 ({:.2f} GiB per GPU > {:.2f} GiB "
        "usable)",
        m.id.empty() ? m.name : m.id, p.config.quant->id, gpus, gib(mc.next_per_gpu_bytes),
        gib(usable)));
  Report r = make_report(rq, planner.plan(mi, mc.n_ctx, gi, count), o.explain);
  r.warnings.insert(r.warnings.begin(),
                    mc.limited_by_memory
                        ? fmt::format("--ctx max: {} is the largest context that fits {} ({:.2f} "
                                      "GiB per GPU; {} would need {:.2f} GiB of {:.2f})",
                                      group(mc.n_ctx), gpus, gib(mc.per_gpu_bytes),
                                      group(mc.n_ctx + 1), gib(mc.next_per_gpu_bytes), gib(usable))
                        : fmt::format("--ctx max: {}, the model's trained context, fits {} ({:.2f} "
                                      "GiB per GPU of {:.2f})",
                                      group(mc.n_ctx), gpus, gib(mc.per_gpu_bytes), gib(usable)));
  return r;
}

}  // namespace llmsize::cli
