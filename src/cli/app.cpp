#include "cli/app.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "cli/inspect.hpp"
#include "cli/planning.hpp"
#include "cli/report.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/quant.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

// Memory classes the table always answers for (GiB).
constexpr uint32_t kClasses[] = {24, 48, 80};

const std::vector<std::string> kFormats = {"table", "json", "csv", "markdown"};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void check_choice(const std::string& flag, const std::string& v,
                  const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), v) != choices.end()) return;
  std::string list;
  for (size_t i = 0; i < choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  throw InputError(flag + ": expected " + list + ", got '" + sanitize(v) + "'" +
                   did_you_mean(v, choices));
}

TensorType parse_kv_type(const std::string& text) {
  static const std::vector<std::string> kKv = {"f32",  "f16",  "bf16", "q8_0",  "q5_1",
                                               "q5_0", "q4_1", "q4_0", "iq4_nl"};
  std::string t = lower(text);
  if (t == "fp16") t = "f16";
  if (t == "q8") t = "q8_0";
  if (t == "q4") t = "q4_0";
  if (std::find(kKv.begin(), kKv.end(), t) == kKv.end())
    throw InputError("--kv-quant: unknown KV cache type '" + sanitize(text) + "'" +
                     did_you_mean(text, kKv) +
                     "; llama.cpp accepts f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl");
  return *tensor_type_from_name(t);
}

// A quantized KV type stores each K and V row in whole blocks (ggml_row_size asserts
// ne % blck_size == 0; llama.cpp refuses the context otherwise): "--kv-quant: q4_0 stores rows in
// blocks of 32 elements, but this model's K row is 72 elements (1 KV heads x head size 72)".
void check_kv_rows(const ModelSpec& m, TensorType type_k, TensorType type_v) {
  std::vector<uint64_t> heads = {m.n_head_kv};
  for (const uint32_t h : m.n_head_kv_per_layer)
    if (std::find(heads.begin(), heads.end(), h) == heads.end()) heads.push_back(h);
  for (const auto& [kind, type, head] :
       {std::tuple{"K", type_k, m.n_embd_head_k}, std::tuple{"V", type_v, m.n_embd_head_v}}) {
    const auto& tt = traits(type);
    if (tt.block_size <= 1) continue;
    const bool mla = m.is_mla();
    for (const uint64_t h : heads) {
      const uint64_t row = mla ? (kind[0] == 'K' ? m.n_embd_k_gqa() : m.n_embd_v_gqa()) : h * head;
      if (row == 0 || row % tt.block_size == 0) continue;
      throw InputError(
          std::string("--kv-quant: ") + tt.name + " stores rows in blocks of " +
          std::to_string(tt.block_size) + " elements, but this model's " + kind + " row is " +
          std::to_string(row) + " elements" +
          (mla ? std::string(" (MLA latent)")
               : " (" + std::to_string(h) + " KV heads x head size " + std::to_string(head) + ")") +
          "; use f16, bf16 or a type whose block divides it");
    }
  }
}

// "80%", "80" (percent) or "0.8" (fraction) -> 0.8, within 10%..100%.
double parse_power_limit(const std::string& text) {
  const std::string msg =
      "--power-limit: expected a percentage from 10% to 100% (or a fraction 0.1 to 1), got '" +
      text + "'";
  std::string t = text;
  const bool pct = !t.empty() && t.back() == '%';
  if (pct) t.pop_back();
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v)) throw InputError(msg);
  if (pct || v > 1) v /= 100;
  if (!(v >= 0.1 && v <= 1.0)) throw InputError(msg);
  return v;
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

// --price NAME=USD overrides a catalog price.
void apply_prices(const Options& o, Catalog& cat, std::vector<GpuSpec>& gpus) {
  for (const auto& p : o.prices) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--price: expected NAME=USD, got '" + sanitize(p) + "'");
    const std::string name = p.substr(0, eq);
    const double usd = parse_real("--price " + name, p.substr(eq + 1), 1, 1e8);
    const auto* g = cat.find_gpu(name);
    if (!g)
      throw InputError("--price: unknown GPU '" + sanitize(name) + "'" + cat.suggest_gpu(name));
    for (auto& s : gpus)
      if (s.id == g->spec.id) {
        s.price_usd = usd;
        s.price_date = "given with --price";
        s.price_kind = "user";
      }
  }
}

std::vector<std::string> checklist(const Report& r) {
  std::vector<std::string> c;
  if (r.power) {
    c.push_back(fmt::format("Circuit: {}", r.power->circuit));
    c.push_back(fmt::format(
        "Cooling: remove {:.0f} W = {:.0f} BTU/h at full load{}", r.power->wall_w,
        r.power->heat_btu_per_h,
        r.power->wall_w > 1500
            ? " (more than an office's air conditioning: plan a server room or rack cooling)"
            : ""));
  }
  if (r.gpu) {
    const auto& p = *r.gpu;
    c.push_back(fmt::format("Links: {} — {}", p.link, p.link_reason));
    const uint32_t room =
        max_gpus_per_node(p.gpu) > p.count ? max_gpus_per_node(p.gpu) - p.count : 0;
    c.push_back(room ? fmt::format("Growth: the chassis class holds {} more {} (up to {} per node)",
                                   room, p.gpu.id, max_gpus_per_node(p.gpu))
                     : "Growth: the node is full; more capacity means another node");
    std::string backends;
    for (const auto& b : p.gpu.backends) backends += (backends.empty() ? "" : ", ") + b;
    const bool cuda =
        std::find(p.gpu.backends.begin(), p.gpu.backends.end(), "cuda") != p.gpu.backends.end();
    c.push_back(fmt::format(
        "Software: {} supports {}{}", p.gpu.name, backends.empty() ? "(unknown)" : backends,
        cuda ? " — llama.cpp, vLLM, TensorRT-LLM and transformers all run on CUDA"
             : " — check your engine: vLLM and TensorRT-LLM are CUDA-first"));
    c.push_back(
        p.gpu.gpu_class == "consumer"
            ? "Maintenance: consumer cards have no ECC memory on most models, blower-less coolers "
              "need "
              "open-air spacing, and the GeForce driver licence restricts datacenter deployment"
            : "Maintenance: datacenter/workstation cards carry ECC and vendor support; budget a "
              "spare and "
              "firmware updates");
  }
  return c;
}

}  // namespace

// sweep.cpp mirrors the --gpu/--gpus path of this function for speed; `sweep --verify` and
// tests/cli/planning_cli_test.cpp check that its rows equal this function's.
std::vector<std::string> quant_warnings(const Report& r) {
  std::vector<std::string> w;
  if (r.quant_requested != r.quant->id)
    w.push_back("quantization \"" + r.quant_requested + "\" means " + r.quant->id);
  const Engine e = r.config.engine;
  if (!r.quant->gguf && (e == Engine::llama_cpp || e == Engine::ollama))
    w.push_back(std::string(r.quant->id) + " is a checkpoint format of vLLM/transformers: every " +
                "weight is counted on the GPU, and KV cache and buffers follow " +
                engine_profile(e).name + "'s rules; --engine vllm or transformers applies theirs");
  return w;
}

Report build_report(const Options& o, const Catalog& catalog) {
  Catalog cat = catalog;
  std::vector<GpuSpec> gpus;
  for (const auto& g : cat.gpus()) gpus.push_back(g.spec);
  apply_prices(o, cat, gpus);

  Report r;
  r.explain = o.explain;
  r.quant_requested = o.quant;
  r.quant = find_quant_preset(o.quant);
  if (!r.quant)
    throw InputError("--quant: unknown quantization '" + sanitize(o.quant) + "'" +
                     did_you_mean(o.quant, quant_names()) + "; see llmsize quants");

  // Every flag is validated before any work, so a typo never yields half a result.
  RunConfig& c = r.config;
  c.quant = r.quant;
  c.kv.n_ctx = static_cast<uint32_t>(parse_int("--ctx", o.ctx, 1, 16u << 20));
  const uint32_t users =
      o.users.empty() ? 0 : static_cast<uint32_t>(parse_int("--users", o.users, 1, 100000));
  c.kv.n_seq = !o.batch.empty() ? static_cast<uint32_t>(parse_int("--batch", o.batch, 1, 65536))
               : users          ? users
                                : 1;
  c.kv.n_ubatch = static_cast<uint32_t>(parse_int("--ubatch", o.ubatch, 1, 65536));
  c.kv.type_k = c.kv.type_v = parse_kv_type(o.kv_quant);
  {
    const auto eng = engine_from_name(o.engine);
    if (!eng) {
      std::vector<std::string> names(engine_names().begin(), engine_names().end());
      check_choice("--engine", o.engine, names);
    }
    c.engine = *eng;
  }
  const EngineProfile& ep = engine_profile(c.engine);
  if (!o.flash_attn.empty()) check_choice("--flash-attn", o.flash_attn, {"on", "off"});
  c.flash_attn = o.flash_attn.empty() ? ep.flash_attn_default : o.flash_attn == "on";
  if (traits(c.kv.type_v).quantized && !c.flash_attn)
    throw InputError(
        "--kv-quant " + o.kv_quant +
        " with --flash-attn off: llama.cpp requires flash attention for a quantized V cache");
  c.headroom =
      o.headroom.empty() ? ep.headroom_default : parse_real("--headroom", o.headroom, 0.0, 1.0);
  c.overhead_per_gpu_bytes =
      o.overhead_mib.empty()
          ? ep.overhead_per_gpu_bytes
          : static_cast<uint64_t>(parse_real("--overhead-mib", o.overhead_mib, 0, 65536) * kMiB);
  const uint32_t gpus_requested =
      o.gpus.empty() ? 0 : static_cast<uint32_t>(parse_int("--gpus", o.gpus, 1, 1024));
  const double target_tps =
      o.target_tps.empty() ? 0 : parse_real("--target-tps", o.target_tps, 0.1, 100000);
  if (target_tps > 0 && users == 0)
    throw InputError("--target-tps: needs --users N (how many people share the GPUs)");
  check_choice("--split", o.split, {"layer", "tensor"});
  const uint32_t top = static_cast<uint32_t>(parse_int("--top", o.top, 1, 100));
  r.speed_input.prompt_tokens =
      static_cast<uint32_t>(parse_int("--prompt", o.prompt, 1, 16u << 20));
  const uint32_t ram_mts = static_cast<uint32_t>(parse_int("--ram-mts", o.ram_mts, 400, 20000));
  const uint32_t ram_channels_flag =
      o.ram_channels.empty()
          ? 0
          : static_cast<uint32_t>(parse_int("--ram-channels", o.ram_channels, 1, 24));
  const uint32_t keep_models =
      static_cast<uint32_t>(parse_int("--keep-models", o.keep_models, 1, 1000));
  const double dataset_gb = parse_real("--dataset-gb", o.dataset_gb, 0, 1e7);
  r.power_input.power_limit = parse_power_limit(o.power_limit);
  r.power_input.mains_v = parse_real("--mains", o.mains, 100, 240);
  r.power_input.duty_cycle = parse_real("--duty-cycle", o.duty_cycle, 0, 1);
  r.cost_input.kwh_price_usd = parse_real("--kwh-price", o.kwh_price, 0, 10);
  r.cost_input.years = parse_real("--years", o.years, 0.25, 20);
  r.cost_input.utilization = parse_real("--utilization", o.utilization, 0, 1);
  r.cost_input.cloud_price_per_mtok =
      o.cloud_price.empty() ? 0 : parse_real("--cloud-price", o.cloud_price, 0.0001, 10000);
  check_choice("--mode", o.mode, {"inference", "lora", "qlora", "full"});
  const bool training = o.mode != "inference";
  r.train_config.mode = o.mode == "full"    ? TrainMode::full
                        : o.mode == "qlora" ? TrainMode::qlora
                                            : TrainMode::lora;
  r.train_config.seq = static_cast<uint32_t>(parse_int("--seq", o.seq, 1, 16u << 20));
  check_choice("--optimizer", o.optimizer, {"adamw", "adamw-8bit"});
  r.train_config.optimizer = o.optimizer == "adamw" ? Optimizer::adamw : Optimizer::adamw_8bit;
  r.train_config.lora_rank = static_cast<uint32_t>(parse_int("--lora-rank", o.lora_rank, 1, 4096));
  check_choice("--checkpointing", o.checkpointing, {"on", "off"});
  r.train_config.checkpointing = o.checkpointing == "on";
  r.train_config.batch = o.batch.empty() ? 1 : c.kv.n_seq;

  const GpuSpec* gpu = nullptr;
  if (!o.gpu.empty()) {
    const auto* cg = cat.find_gpu(o.gpu);
    if (!cg)
      throw InputError("--gpu: unknown GPU '" + sanitize(o.gpu) + "'" + cat.suggest_gpu(o.gpu) +
                       "; see llmsize gpus");
    gpu = &*std::find_if(gpus.begin(), gpus.end(),
                         [&](const GpuSpec& g) { return g.id == cg->spec.id; });
  }

  r.model = resolve_model(o.model, cat);
  // A weights file has its own type: --quant does not apply, the report names the file's type.
  if (r.model.exact_weights) {
    if (const QuantPreset* fq = find_quant_preset(r.model.file_quant)) {
      if (lower(o.quant) != "q4_k_m" && find_quant_preset(o.quant) != fq)
        r.warnings.push_back("--quant " + sanitize(o.quant) +
                             " is ignored: the file's tensors give the weights (" + fq->id + ")");
      r.quant = c.quant = fq;
      r.quant_requested = fq->id;
    }
  }
  const ModelSpec& m = r.model.spec;
  const Weights* exact = r.model.exact_weights ? &*r.model.exact_weights : nullptr;
  check_kv_rows(m, c.kv.type_k, c.kv.type_v);

  // First pass on one GPU (or the count given) to size the split.
  c.n_gpus = gpus_requested ? gpus_requested : 1;
  const Estimate base = estimate(m, c, exact);
  for (uint32_t cls : kClasses)
    r.classes.push_back({cls, gpus_needed(base, c, uint64_t{cls} * kGiB)});

  if (!gpu) {
    r.options = rank_gpus(m, base, c, gpus);
    r.fewest = r.options;
    std::stable_sort(r.fewest.begin(), r.fewest.end(), [](const GpuOption& a, const GpuOption& b) {
      return a.plan.count < b.plan.count;  // stable: equal counts stay cheapest first
    });
    if (r.options.size() > top) r.options.resize(top);
    if (r.fewest.size() > top) r.fewest.resize(top);
    if (!r.options.empty()) {
      gpu = &*std::find_if(gpus.begin(), gpus.end(),
                           [&](const GpuSpec& g) { return g.id == r.options.front().plan.gpu.id; });
      r.gpu_recommended = true;
    } else {
      r.warnings.push_back("no catalog GPU holds this model in up to 64 cards");
    }
  }

  uint32_t count = gpus_requested;
  if (gpu && users && target_tps > 0) {
    r.capacity = plan_capacity(m, c, *gpu, users, target_tps, exact);
    if (r.capacity->gpus && !gpus_requested) count = r.capacity->gpus;
    if (!r.capacity->gpus) r.warnings.push_back("capacity: " + r.capacity->limited_by);
  }
  if (gpu) {
    GpuPlan p = plan_gpus(m, base, c, *gpu, count);
    if (r.capacity && r.capacity->gpus && !gpus_requested) {
      p.split = r.capacity->replicas > 1 ? fmt::format("{} replicas × tensor parallel {}",
                                                       r.capacity->replicas, r.capacity->tp_degree)
                                         : fmt::format("tensor parallel {}", r.capacity->tp_degree);
    }
    c.n_gpus = p.count;
    r.gpu = p;
  }
  r.estimate = estimate(m, c, exact);
  if (r.gpu) {
    // Re-plan on the final estimate (compute buffers and overhead counted on every GPU).
    const std::string split = r.gpu->split;
    const bool capacity_split = r.capacity && r.capacity->gpus && !gpus_requested;
    r.gpu = plan_gpus(m, r.estimate, c, *gpu, r.gpu->count);
    r.gpu->count_requested = gpus_requested;
    if (capacity_split) {
      r.gpu->split = split;
      // Each replica holds its own users' KV caches: check memory per replica.
      r.gpu->per_gpu_bytes = r.capacity->per_gpu_bytes;
      r.gpu->fits = r.capacity->per_gpu_bytes <= gpu->usable_bytes();
    }
    const auto& p = *r.gpu;
    if (p.gpu.unified_memory)
      r.warnings.push_back(fmt::format(
          "{} shares memory with the CPU: {:.0f}% of {:.0f} GiB is counted as usable by the GPU",
          p.gpu.name, p.gpu.memory_fraction * 100, static_cast<double>(p.gpu.memory_bytes) / kGiB));
    if (!p.fits) {
      if (p.count_needed == 0)
        r.warnings.push_back(p.gpu.name + " cannot hold this model at any count up to 1024");
      else
        r.warnings.push_back(fmt::format("{} × {} is not enough: {} are needed", p.count,
                                         p.gpu.name, p.count_needed));
      r.offload = plan_offload(m, r.estimate, c, p.gpu.usable_bytes(), p.count);
    }
    // Sequences that fit beside the weights: free memory / KV per sequence.
    const uint64_t usable = p.gpu.usable_bytes() * p.count;
    const uint64_t fixed = fraction_of(
        r.estimate.weights_bytes + r.estimate.activations_bytes + r.estimate.overhead_bytes,
        1 + c.headroom);
    const uint64_t kv_seq = r.estimate.kv_cache_bytes / std::max<uint32_t>(1, c.kv.n_seq);
    const uint64_t kv_seq_h = fraction_of(kv_seq, 1 + c.headroom);
    r.kv_available_bytes = available_kv_bytes(r.estimate, c, p.gpu.usable_bytes(), p.count);
    r.max_concurrent_sequences =
        usable > fixed && kv_seq_h
            ? static_cast<uint32_t>(std::min<uint64_t>((usable - fixed) / kv_seq_h, 1u << 30))
            : 0;
  }

  // Host: RAM channels for offload speed.
  if (r.gpu) {
    const auto& p = *r.gpu;
    HostInput hi;
    hi.n_gpus = p.count;
    hi.gpu_slot_width = p.gpu.slot_width;
    hi.gpu_is_module = p.gpu.is_module();
    hi.weights_bytes = r.estimate.weights.bytes;
    hi.host_weights_bytes = r.estimate.weights.host_bytes + (r.offload ? r.offload->ram_bytes : 0);
    hi.keep_models = keep_models;
    r.host_keep_models = keep_models;
    hi.dataset_bytes = static_cast<uint64_t>(dataset_gb * 1e9);
    hi.fine_tuning = training;
    hi.checkpoint_bytes = training ? r.estimate.weights.bytes * 2 : 0;
    hi.nics = p.nodes > 1 ? 1 : 0;
    if (!p.gpu.unified_memory) r.host = plan_host(hi);
    r.ram_channels = ram_channels_flag ? ram_channels_flag
                     : r.host          ? platform_spec(r.host->platform).memory_channels
                                       : 2;
    r.ram_mts = ram_mts;
    r.ram_bandwidth_gb_per_s = p.gpu.unified_memory
                                   ? p.gpu.bandwidth_gb_per_s
                                   : ram_bandwidth_gb_per_s(r.ram_channels, ram_mts);

    SpeedInput& si = r.speed_input;
    si.n_gpus = p.count;
    si.tensor_parallel = (r.capacity && r.capacity->gpus && !gpus_requested) || o.split == "tensor";
    si.n_seq = c.kv.n_seq;
    if (r.capacity && r.capacity->gpus && !gpus_requested) {
      si.n_gpus = r.capacity->tp_degree;
      si.n_seq = r.capacity->users_per_replica;
    }
    si.n_ctx = c.kv.n_ctx;
    if (r.offload) {
      si.n_layer_cpu = r.offload->n_layer_cpu;
      si.ram_bandwidth_gb_per_s = r.ram_bandwidth_gb_per_s;
    }
    if (o.split == "tensor" && p.count > 1 && p.tp_degree != p.count)
      r.warnings.push_back(fmt::format(
          "--split tensor: {} GPUs do not divide the {} attention heads and {} KV heads; "
          "valid degrees start at {}",
          p.count, m.n_head, m.n_head_kv, p.tp_degree));
    Speed s = estimate_speed(m, r.estimate, p.gpu, si);
    if (r.capacity && r.capacity->replicas > 1) s.aggregate_tokens_per_s *= r.capacity->replicas;
    r.speed = s;

    if (r.host) {
      r.power_input.n_gpus = p.count;
      r.power_input.gpu_board_w = p.gpu.board_power_w;
      r.power_input.platform = r.host->platform;
      r.power_input.dimms = r.host->ram.dimms;
      r.power_input.nvme_drives = r.host->storage.data_drives + 1;
      PowerPlan pw = plan_power(r.power_input);
      r.power = pw;
      r.cost_input.gpu_price_usd = p.gpu.price_usd;
      r.cost_input.n_gpus = p.count;
      r.cost_input.host_usd =
          host_base_usd(static_cast<int>(r.host->platform)) +
          kRamUsdPerGib * static_cast<double>(r.host->ram.installed_bytes) / kGiB +
          kNvmeUsdPerTb *
              (static_cast<double>(r.host->storage.drive_bytes) * r.host->storage.data_drives +
               static_cast<double>(r.host->storage.os_drive_bytes)) /
              1e12;
      r.cost_input.kwh_per_year = pw.energy_kwh_per_year;
      r.cost_input.aggregate_tokens_per_s = s.aggregate_tokens_per_s;
      r.cost = plan_cost(r.cost_input);
      if (!r.cost->priced)
        r.warnings.push_back(p.gpu.name +
                             " has no public price in the catalog: give one with --price " +
                             p.gpu.id + "=USD");
    } else if (p.gpu.unified_memory) {
      r.warnings.push_back(
          p.gpu.name +
          " is a whole computer (unified memory): host, power and storage sections are left out");
    }
  }

  if (training) {
    r.train = train_memory(m, r.estimate.weights.params, r.train_config);
    if (r.gpu) {
      // FSDP/ZeRO-3 shards weights, gradients and optimizer states; activations stay per GPU.
      const uint64_t usable = r.gpu->gpu.usable_bytes();
      const uint64_t shardable =
          r.train->weights_bytes + r.train->gradients_bytes + r.train->optimizer_bytes;
      for (uint32_t n = 1; n <= 1024; ++n) {
        const uint64_t each = fraction_of(
            shardable / n + r.train->activations_bytes + c.overhead_per_gpu_bytes, 1 + c.headroom);
        if (each <= usable) {
          r.train_gpus = n;
          break;
        }
      }
    }
  }

  if (!r.model.assumption.empty())
    r.warnings.insert(r.warnings.begin(), "assumed: " + r.model.assumption);
  for (const auto& w : r.estimate.warnings) r.warnings.push_back(w);
  for (auto& w : quant_warnings(r)) r.warnings.push_back(std::move(w));
  if (r.offload)
    r.warnings.push_back(
        fmt::format("{} of {} layers do not fit on the GPUs and run from system RAM ({:.1f} GiB at "
                    "{:.0f} GB/s)",
                    r.offload->n_layer_cpu, m.n_layer,
                    static_cast<double>(r.offload->ram_bytes) / kGiB, r.ram_bandwidth_gb_per_s));
  if (r.speed && r.speed->calibration && std::string(r.speed->calibration->family) == "other")
    r.warnings.push_back("speed for " + r.gpu->gpu.name +
                         " is not calibrated against measurements: wide range");
  r.checklist = checklist(r);
  return r;
}

namespace {

std::string run_estimate(const Options& o) {
  check_choice("--format", o.format, kFormats);
  const Catalog cat = load_catalog(o);
  const Report r = o.ctx == "max" ? build_report_max_context(o, cat) : build_report(o, cat);
  if (!o.planning.plot.empty()) write_memory_plot(o.planning.plot, r);
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
  app.add_option("MODEL", o.model,
                 "catalog id or alias, size shorthand (70b), or path to config.json");
  auto* mem = "Model and memory";
  app.add_option("-q,--quant", o.quant,
                 "weights quantization: q4_k_m, q8_0, f16, fp8, gptq-4bit, ... (llmsize quants); "
                 "q4 = q4_k_m")
      ->capture_default_str()
      ->group(mem);
  app.add_option("-c,--ctx,--n-ctx", o.ctx, "context length per sequence, tokens")
      ->capture_default_str()
      ->type_name("N")
      ->group(mem);
  app.add_option("-b,--batch,--n-seq", o.batch,
                 "concurrent sequences, each with its own KV cache (default: --users, else 1)")
      ->type_name("N")
      ->group(mem);
  app.add_option("--ubatch,--n-ubatch", o.ubatch,
                 "micro-batch (llama.cpp n_ubatch): sizes the compute buffer")
      ->capture_default_str()
      ->type_name("N")
      ->group(mem);
  app.add_option("--kv-quant,--cache-type", o.kv_quant,
                 "KV cache type: f16, bf16, q8_0, q5_0, q4_0, ...")
      ->capture_default_str()
      ->group(mem);
  app.add_option("--flash-attn,--fa", o.flash_attn,
                 "flash attention: on or off (default: the engine's)")
      ->group(mem);
  app.add_option(
         "--headroom", o.headroom,
         "fraction added on top of the sum, 0 to 1 (default 0.2; vllm 0.111 = 90% utilization)")
      ->type_name("F")
      ->group(mem);
  app.add_option("--overhead-mib", o.overhead_mib,
                 "runtime overhead per GPU, MiB (default 512; vllm 1024)")
      ->type_name("MIB")
      ->group(mem);
  app.add_option("-e,--engine", o.engine,
                 "memory rules of: llama.cpp, vllm, transformers or ollama")
      ->capture_default_str()
      ->group(mem);
  app.add_option("--catalog", o.catalogs,
                 "JSON catalog file adding or overriding models/GPUs (repeatable)")
      ->type_name("FILE")
      ->group(mem);

  auto* hw = "GPUs and speed";
  app.add_option("-g,--gpu", o.gpu,
                 "GPU from the catalog (llmsize gpus); without it llmsize recommends one")
      ->type_name("NAME")
      ->group(hw);
  app.add_option("-n,--gpus", o.gpus, "number of GPUs you have: is it enough? what spills to RAM?")
      ->type_name("N")
      ->group(hw);
  app.add_option("--price", o.prices,
                 "override a GPU's catalog price, e.g. rtx-4090=1800 (repeatable)")
      ->type_name("NAME=USD")
      ->group(hw);
  app.add_option("--split", o.split,
                 "multi-GPU split for the speed estimate: layer (llama.cpp default) or tensor")
      ->capture_default_str()
      ->group(hw);
  app.add_option("--top", o.top, "how many GPU options to list when llmsize recommends")
      ->capture_default_str()
      ->type_name("N")
      ->group(hw);
  app.add_option("-u,--users", o.users, "people served at once (concurrent sequences)")
      ->type_name("N")
      ->group(hw);
  app.add_option("--target-tps", o.target_tps,
                 "tokens/s each user must get: plans the GPU count (tensor parallel + replicas)")
      ->type_name("T")
      ->group(hw);
  app.add_option("--prompt", o.prompt, "prompt length for time to first token, tokens")
      ->capture_default_str()
      ->type_name("N")
      ->group(hw);

  auto* host = "Host, power and cost";
  app.add_option("--ram-channels", o.ram_channels,
                 "memory channels populated (default: the platform's)")
      ->type_name("N")
      ->group(host);
  app.add_option("--ram-mts", o.ram_mts,
                 "DIMM speed, MT/s (offload bandwidth = channels x MT/s x 8 B)")
      ->capture_default_str()
      ->type_name("N")
      ->group(host);
  app.add_option("--keep-models", o.keep_models, "models or variants kept on disk")
      ->capture_default_str()
      ->type_name("N")
      ->group(host);
  app.add_option("--dataset-gb", o.dataset_gb, "datasets kept on disk, GB")
      ->capture_default_str()
      ->type_name("GB")
      ->group(host);
  app.add_option("--power-limit", o.power_limit, "GPU power cap, e.g. 80%")
      ->capture_default_str()
      ->type_name("PCT")
      ->group(host);
  app.add_option("--mains", o.mains, "mains voltage: 120 or 230")
      ->capture_default_str()
      ->type_name("V")
      ->group(host);
  app.add_option("--duty-cycle", o.duty_cycle, "share of the year at full load, for energy")
      ->capture_default_str()
      ->type_name("F")
      ->group(host);
  app.add_option("--kwh-price", o.kwh_price, "electricity price, USD per kWh")
      ->capture_default_str()
      ->type_name("USD")
      ->group(host);
  app.add_option("--years", o.years, "amortisation period")
      ->capture_default_str()
      ->type_name("N")
      ->group(host);
  app.add_option("--utilization", o.utilization, "share of the year generating, for cost per token")
      ->capture_default_str()
      ->type_name("F")
      ->group(host);
  app.add_option("--cloud-price", o.cloud_price, "cloud API price, USD per 1M tokens: break-even")
      ->type_name("USD")
      ->group(host);

  auto* ft = "Fine-tuning";
  app.add_option("--mode", o.mode, "inference, lora, qlora or full")
      ->capture_default_str()
      ->group(ft);
  app.add_option("--seq", o.seq, "training sequence length")
      ->capture_default_str()
      ->type_name("N")
      ->group(ft);
  app.add_option("--optimizer", o.optimizer, "adamw or adamw-8bit")
      ->capture_default_str()
      ->group(ft);
  app.add_option("--lora-rank", o.lora_rank, "LoRA rank")
      ->capture_default_str()
      ->type_name("N")
      ->group(ft);
  app.add_option("--checkpointing", o.checkpointing, "activation checkpointing: on or off")
      ->capture_default_str()
      ->group(ft);

  app.add_option("-f,--format", o.format, "output: table, json, csv or markdown")
      ->capture_default_str()
      ->type_name("FORMAT");
  app.add_flag("--explain", o.explain, "print every formula with its numbers");

  auto* models = app.add_subcommand("models", "list the model catalog");
  auto* gpus = app.add_subcommand("gpus", "list the GPU catalog");
  auto* quants = app.add_subcommand("quants", "list quantization presets and tensor types");
  for (auto* sc : {models, gpus, quants}) {
    sc->add_option("-f,--format", o.format, "output: table, json or csv")->capture_default_str();
    sc->add_option("--catalog", o.catalogs,
                   "JSON catalog file adding or overriding entries (repeatable)");
    sc->callback([&o, sc] { o.command = sc->get_name(); });
  }
  auto* inspect =
      app.add_subcommand("inspect", "read a GGUF or safetensors file's headers and describe it");
  inspect
      ->add_option("PATH", o.model,
                   "*.gguf (a split set's shard reads all), *.safetensors, "
                   "model.safetensors.index.json, or a directory")
      ->required();
  inspect->add_option("-f,--format", o.format, "output: table or json")->capture_default_str();
  inspect->callback([&o] { o.command = "inspect"; });
  setup_planning(app, o);
}

int run(const Options& o, std::string& out) {
  if (is_planning_command(o.command)) return run_planning(o, out);
  if (o.command == "models" || o.command == "gpus" || o.command == "quants") {
    check_choice("--format", o.format, {"table", "json", "csv"});
    if (o.command == "quants") {
      out = render_quants(o.format);
      return 0;
    }
    const Catalog cat = load_catalog(o);
    out = o.command == "models" ? render_models(cat, o.format) : render_gpus(cat, o.format);
    return 0;
  }
  if (o.command == "inspect") {
    check_choice("--format", o.format, {"table", "json"});
    out = run_inspect(o.model, o.format);
    return 0;
  }
  out = run_estimate(o);
  return 0;
}

std::vector<std::string> report_checklist(const Report& r) {
  return checklist(r);
}

}  // namespace llmsize::cli
