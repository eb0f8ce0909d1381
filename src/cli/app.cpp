#include "cli/app.hpp"

#include <fmt/format.h>

#include <cmath>

#include "cli/report.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/quant.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

// Memory classes the table always answers for (GiB).
constexpr uint32_t kClasses[] = {24, 48, 80};

const std::vector<std::string> kFormats = {"table", "json", "csv", "markdown"};

void check_format(const std::string& f) {
  if (std::find(kFormats.begin(), kFormats.end(), f) == kFormats.end())
    throw InputError("--format: expected table, json, csv or markdown, got '" + f + "'" + did_you_mean(f, kFormats));
}

TensorType parse_kv_type(const std::string& text) {
  static const std::vector<std::string> kKv = {"f32", "f16", "bf16", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"};
  std::string t = text;
  for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "fp16") t = "f16";
  if (t == "q8") t = "q8_0";
  if (t == "q4") t = "q4_0";
  if (std::find(kKv.begin(), kKv.end(), t) == kKv.end())
    throw InputError("--kv-quant: unknown KV cache type '" + text + "'" + did_you_mean(text, kKv) +
                     "; llama.cpp accepts f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl");
  return *tensor_type_from_name(t);
}

std::vector<std::string> quant_names() {
  std::vector<std::string> v;
  for (const auto& p : all_quant_presets()) v.push_back(p.id);
  for (const auto& a : quant_aliases()) v.push_back(a.alias);
  return v;
}

Catalog load_catalog(const Options& o) {
  Catalog c = Catalog::builtin();
  for (const auto& f : o.catalogs) c.merge_file(f);
  return c;
}

std::string run_estimate(const Options& o) {
  check_format(o.format);
  const Catalog cat = load_catalog(o);

  Report r;
  r.explain = o.explain;
  r.quant_requested = o.quant;
  r.quant = find_quant_preset(o.quant);
  if (!r.quant)
    throw InputError("--quant: unknown quantization '" + o.quant + "'" + did_you_mean(o.quant, quant_names()) +
                     "; see llmsize quants");

  RunConfig& c = r.config;
  c.quant = r.quant;
  c.kv.n_ctx = static_cast<uint32_t>(parse_int("--ctx", o.ctx, 1, 16u << 20));
  c.kv.n_seq = static_cast<uint32_t>(parse_int("--batch", o.batch, 1, 65536));
  c.kv.n_ubatch = static_cast<uint32_t>(parse_int("--ubatch", o.ubatch, 1, 65536));
  c.kv.type_k = c.kv.type_v = parse_kv_type(o.kv_quant);
  if (o.flash_attn != "on" && o.flash_attn != "off")
    throw InputError("--flash-attn: expected on or off, got '" + o.flash_attn + "'");
  c.flash_attn = o.flash_attn == "on";
  if (traits(c.kv.type_v).quantized && !c.flash_attn)
    throw InputError("--kv-quant " + o.kv_quant +
                     " with --flash-attn off: llama.cpp requires flash attention for a quantized V cache");
  c.headroom = parse_real("--headroom", o.headroom, 0.0, 1.0);
  c.overhead_per_gpu_bytes = static_cast<uint64_t>(parse_real("--overhead-mib", o.overhead_mib, 0, 65536) * kMiB);
  const uint32_t gpus_requested = o.gpus.empty() ? 0 : static_cast<uint32_t>(parse_int("--gpus", o.gpus, 1, 1024));

  const CatalogGpu* gpu = nullptr;
  if (!o.gpu.empty()) {
    gpu = cat.find_gpu(o.gpu);
    if (!gpu) throw InputError("--gpu: unknown GPU '" + o.gpu + "'" + did_you_mean(o.gpu, cat.gpu_names()) + "; see llmsize gpus");
  }

  r.model = resolve_model(o.model, cat);
  const ModelSpec& m = r.model.spec;

  // First pass on one GPU to size the split, then the estimate for the GPUs it runs on.
  c.n_gpus = gpus_requested ? gpus_requested : 1;
  const Weights* exact = r.model.exact_weights ? &*r.model.exact_weights : nullptr;
  Estimate base = estimate(m, c, exact);
  for (uint32_t cls : kClasses) r.classes.push_back({cls, gpus_needed(base, c, uint64_t{cls} * kGiB)});
  if (gpu) {
    GpuPlan p;
    p.gpu = gpu->spec;
    p.count_requested = gpus_requested;
    p.count_needed = gpus_needed(base, c, p.gpu.usable_bytes());
    p.count = gpus_requested ? gpus_requested : std::max<uint32_t>(1, p.count_needed);
    p.per_gpu_bytes = per_gpu_bytes(base, c, p.count);
    p.fits = p.count_needed != 0 && p.per_gpu_bytes <= p.gpu.usable_bytes();
    c.n_gpus = p.count;
    if (p.gpu.unified_memory)
      r.warnings.push_back(fmt::format("{} shares memory with the CPU: {:.0f}% of {:.0f} GiB is counted as usable by the GPU",
                                       p.gpu.name, p.gpu.memory_fraction * 100, static_cast<double>(p.gpu.memory_bytes) / kGiB));
    if (!p.fits) {
      if (p.count_needed == 0) r.warnings.push_back(p.gpu.name + " cannot hold this model at any count up to 1024");
      else r.warnings.push_back(fmt::format("{} × {} is not enough: {} are needed", p.count, p.gpu.name, p.count_needed));
    }
    r.gpu = p;
  }
  r.estimate = estimate(m, c, exact);
  if (!r.model.assumption.empty()) r.warnings.insert(r.warnings.begin(), "assumed: " + r.model.assumption);
  for (const auto& w : r.estimate.warnings) r.warnings.push_back(w);
  if (r.quant_requested != r.quant->id)
    r.warnings.push_back("quantization \"" + r.quant_requested + "\" means " + r.quant->id);
  if (!r.quant->gguf)
    r.warnings.push_back(std::string(r.quant->id) +
                         " is a checkpoint format of vLLM/transformers: every weight is counted on the GPU, and KV cache "
                         "and buffers follow llama.cpp's rules until engine profiles land");

  if (o.format == "json") return render_json(r);
  if (o.format == "csv") return render_csv(r);
  if (o.format == "markdown") return render_markdown(r);
  return render_table(r);
}

}  // namespace

void setup_app(CLI::App& app, Options& o) {
  app.description(
      "llmsize: size the hardware to run a large language model on premises.\n"
      "MODEL is a catalog id or alias (llmsize models), a size (70b, 8x7b) or a config.json path.");
  app.require_subcommand(0, 1);
  app.add_option("MODEL", o.model, "catalog id or alias, size shorthand (70b), or path to config.json");
  app.add_option("-q,--quant", o.quant, "weights quantization: q4_k_m, q8_0, f16, fp8, gptq-4bit, ... (llmsize quants); q4 = q4_k_m")
      ->capture_default_str();
  app.add_option("-c,--ctx,--n-ctx", o.ctx, "context length per sequence, tokens")->type_name("N")->capture_default_str();
  app.add_option("-b,--batch,--n-seq", o.batch, "concurrent sequences, each with its own KV cache")->type_name("N")->capture_default_str();
  app.add_option("--ubatch,--n-ubatch", o.ubatch, "micro-batch (llama.cpp n_ubatch): sizes the compute buffer")->type_name("N")->capture_default_str();
  app.add_option("--kv-quant,--cache-type", o.kv_quant, "KV cache type: f16, bf16, q8_0, q5_0, q4_0, ...")->capture_default_str();
  app.add_option("--flash-attn,--fa", o.flash_attn, "flash attention: on or off")->capture_default_str();
  app.add_option("-g,--gpu", o.gpu, "GPU from the catalog (llmsize gpus): how many hold the model")->type_name("NAME");
  app.add_option("-n,--gpus", o.gpus, "number of GPUs you have: is it enough?")->type_name("N");
  app.add_option("--headroom", o.headroom, "fraction added on top of the sum, 0 to 1")->type_name("F")->capture_default_str();
  app.add_option("--overhead-mib", o.overhead_mib, "runtime overhead per GPU, MiB")->type_name("MIB")->capture_default_str();
  app.add_option("--catalog", o.catalogs, "JSON catalog file adding or overriding models/GPUs (repeatable)")->type_name("FILE");
  app.add_option("-f,--format", o.format, "output: table, json, csv or markdown")->type_name("FORMAT")->capture_default_str();
  app.add_flag("--explain", o.explain, "print every formula with its numbers");

  auto* models = app.add_subcommand("models", "list the model catalog");
  auto* gpus = app.add_subcommand("gpus", "list the GPU catalog");
  auto* quants = app.add_subcommand("quants", "list quantization presets and tensor types");
  for (auto* sc : {models, gpus, quants}) {
    sc->add_option("-f,--format", o.format, "output: table, json or csv")->capture_default_str();
    sc->add_option("--catalog", o.catalogs, "JSON catalog file adding or overriding entries (repeatable)");
    sc->callback([&o, sc] { o.command = sc->get_name(); });
  }
}

void run(const Options& o, std::string& out) {
  if (o.command == "models" || o.command == "gpus" || o.command == "quants") {
    if (o.format != "table" && o.format != "json" && o.format != "csv")
      throw InputError("--format: expected table, json or csv, got '" + o.format + "'");
    if (o.command == "quants") {
      out = render_quants(o.format);
      return;
    }
    const Catalog cat = load_catalog(o);
    out = o.command == "models" ? render_models(cat, o.format) : render_gpus(cat, o.format);
    return;
  }
  out = run_estimate(o);
}

}  // namespace llmsize::cli
