#include "cli/commands/fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/commands/estimate.hpp"
#include "cli/options/request.hpp"
#include "cli/render/report.hpp"
#include "llmsize/engine.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/memory/max_context.hpp"
#include "llmsize/plan/plan.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/serving/serving.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

// Presets whose body type has fewer bits per weight than this lose quality steeply (llama.cpp's
// quantization perplexity tables: Q4_K_M and up stay within a few percent of F16, Q3 and Q2 do
// not).
constexpr double kLossyBelowBpw = 4.0;

bool lossy(const QuantPreset& q) {
  return traits(q.default_type).bits_per_weight() < kLossyBelowBpw;
}

}  // namespace

const std::vector<std::string>& fit_default_quants(const std::string& engine) {
  static const std::vector<std::string> gguf = {"f16",    "q8_0",   "q6_k", "q5_k_m",
                                                "q4_k_m", "q3_k_m", "q2_k"};
  static const std::vector<std::string> batching = {"bf16", "fp8", "gptq-8bit", "awq-4bit"};
  static const std::vector<std::string> trt = {"bf16", "fp8", "int8", "awq-4bit"};
  if (engine == "vllm" || engine == "sglang") return batching;
  if (engine == "trt-llm") return trt;
  return gguf;
}

FitResult compute_fit(const Options& o, const Catalog& cat) {
  if (o.gpu.empty()) throw InputError("--gpu: fit needs the GPU to fit on (llmsize gpus)");
  FitResult res;
  res.lossy_below_bpw = kLossyBelowBpw;
  // The engine by its canonical name (an alias such as trtllm names the same ladder); an unknown
  // name is refused by resolve_request below.
  const auto engine = engine_from_name(o.engine);
  res.engine = engine ? engine_profile(*engine).name : o.engine;
  const std::vector<std::string> quants =
      o.planning.fit_quants.empty() ? fit_default_quants(res.engine) : o.planning.fit_quants;
  if (o.ctx_max)
    throw InputError(
        "--ctx: fit lists the largest context of each model itself; give the one "
        "each must hold at least, tokens");
  // Flags of a whole plan, which fit does not make (it sizes the GPUs' memory only): refused
  // rather than ignored (#24).
  if (!o.emit.empty())
    throw InputError(
        "--emit: fit lists models, it plans no deployment to launch; run llmsize "
        "MODEL --gpu GPU --emit ENGINE");
  if (o.compare_given)
    throw InputError(
        "--compare: fit lists the models one GPU holds; compare systems with "
        "llmsize MODEL --compare LIST");
  if (o.ram_channels)
    throw InputError(
        "--ram-channels: fit sizes the GPUs' memory only, no machine and no RAM "
        "bandwidth; give it to llmsize MODEL --gpu GPU");
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
      // A serving engine: the largest max_model_len whose one sequence its KV pool holds (the
      // engine refuses to start past it), at least the context asked.
      uint32_t serving_ctx = 0;
      if (r.serving) {
        const ServingPlan& sp = *r.serving;
        const ServingSetup s = serving_setup(m, preset, p.gpu, sp.deployment.engine,
                                             sp.deployment.kv, 1, 1, 1, sp.gpus_per_node);
        serving_ctx = serving_max_model_len(s.model, s.gpu, sp.deployment, context_search_limit(m));
        if (serving_ctx < res.context) continue;
      }
      FitEntry f;
      f.model_id = m.id;
      f.model_name = m.name;
      f.params = r.estimate.weights.params;
      f.quant = preset.id;
      f.bits_per_weight = r.estimate.weights.bits_per_weight();
      f.lossy = lossy(preset);
      f.per_gpu_bytes = p.per_gpu_bytes;
      if (r.serving) {
        f.max_context = serving_ctx;
        f.max_context_is_trained = serving_ctx >= context_search_limit(m);
      } else {
        const MaxContext mc = max_context(m, r.config, r.estimate.weights, p.count,
                                          p.gpu.usable_bytes(), context_search_limit(m));
        f.max_context = mc.n_ctx;
        f.max_context_is_trained = !mc.limited_by_memory;
      }
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
  const Catalog cat = load_catalog(o.catalogs);
  const FitResult r = compute_fit(o, cat);
  return render_fit(r, o.format);
}

}  // namespace llmsize::cli
