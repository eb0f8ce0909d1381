#include "cli/options/request.hpp"

#include <fmt/format.h>
#include <algorithm>

#include <sys/stat.h>

#include <cmath>

#include "llmsize/engine.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/machine/load_time.hpp"
#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/serving/serving_capacity.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> quant_names() {
  std::vector<std::string> v;
  for (const auto& p : all_quant_presets()) v.push_back(p.id);
  for (const auto& a : quant_aliases()) v.push_back(a.alias);
  return v;
}

// A number flag's value, range checked ("--mains: expected a number from 100 to 240, got '90'").
double real(const char* flag, double v, double lo, double hi) {
  if (v >= lo && v <= hi) return v;  // the message's text only for a value out of range
  return real_in_range(flag, v, fmt::format("{}", v), lo, hi);
}

// --- serving at scale (#10) ------------------------------------------------------------------

Engine serving_engine_of(const std::string& where, const std::string& text) {
  if (const auto e = engine_from_name(lower(text))) return *e;
  std::vector<std::string> names(engine_names().begin(), engine_names().end());
  check_choice(where, text, names);
  return Engine::llama_cpp;  // not reached: check_choice throws
}

// vLLM, SGLang, TensorRT-LLM: a pool under a share of memory, not slots of a context each.
bool is_serving_engine(Engine e) {
  return engine_profile(e).memory_rule != MemoryRule::fixed_slots;
}

// The engine of --engine, else of --emit (llama-server = llama.cpp), else llama.cpp.
Engine chosen_engine(const Options& o) {
  if (o.engine_given || o.emit.empty() || o.emit == "k8s" || o.emit == "acceptance")
    return serving_engine_of("--engine", o.engine);
  check_choice("--emit", o.emit, emit_engines());
  return *engine_from_name(o.emit);
}

}  // namespace

// The serving engines' weights default to the checkpoint's own dtype (vLLM, SGLang and
// TensorRT-LLM load the safetensors as published: BF16 for the catalog's base checkpoints; an FP8
// or FP4 checkpoint is asked for with --quant), never a GGUF preset.
std::string serving_quant_text(const Options& o) {
  // "mxfp4" on a checkpoint engine is the MXFP4 serving checkpoint (gpt-oss: routed experts in
  // MXFP4, the rest BF16), not llama.cpp's GGUF mix of that name.
  if (o.quant_given && lower(o.quant) == "mxfp4" && o.mode == "inference" &&
      engine_profile(chosen_engine(o)).checkpoint_weights)
    return "mxfp4-experts";
  if (o.quant_given || o.model.empty()) return o.quant;
  // Fine-tuning reads the checkpoint as published (BF16; QLoRA quantizes it to NF4 as it loads):
  // that is the file downloaded and held in RAM, not a GGUF.
  if (o.mode != "inference") return "bf16";
  const Engine e = chosen_engine(o);
  return engine_profile(e).checkpoint_weights ? "bf16" : o.quant;
}

namespace {

// --kv-quant for a serving plan: fp8 (= fp8_e4m3), fp8_e4m3, fp8_e5m2 on the serving engines;
// llama.cpp's own types on llama.cpp and Ollama; "f16" untyped = the engine's default.
KvDtype serving_kv(const Options& o, const EngineProfile& p) {
  std::string t = lower(o.kv_quant);
  const bool fp8 = t == "fp8" || t == "fp8_e4m3" || t == "fp8_e5m2";
  if (fp8 && !supports_kv_dtype(p, KvDtype::fp8_e4m3))
    throw InputError("--kv-quant " + sanitize(o.kv_quant) + ": " + p.name +
                     " has no FP8 KV cache (its types: f16, bf16, q8_0, q4_0, ...); use q8_0, or "
                     "--engine vllm, sglang or trt-llm");
  if (t == "fp8") t = "fp8_e4m3";
  if (t == "fp16") t = "f16";
  if (t == "q8") t = "q8_0";
  if (t == "q4") t = "q4_0";
  if (t == "f16" && p.memory_engine != Engine::llama_cpp) return p.kv_dtypes.front();
  const auto k = kv_dtype_from_name(t);
  if (k && supports_kv_dtype(p, *k)) return *k;
  std::string list;
  for (size_t i = 0; i < p.kv_dtypes.size(); ++i)
    list += std::string(i ? ", " : "") + kv_dtype_name(p.kv_dtypes[i]);
  throw InputError("--kv-quant: " + std::string(p.name) + " stores its KV cache as " + list +
                   (p.memory_engine == Engine::llama_cpp ? "" : " (fp8 = fp8_e4m3)") + ", got '" +
                   sanitize(o.kv_quant) + "'");
}

// --prefill-gpus N [--prefill-tp T]: disaggregated prefill and decode on the --gpus given.
void resolve_prefill(const Options& o, const EngineProfile& p, ServingRequest& s) {
  if (o.prefill_tp && !o.prefill_gpus) throw InputError("--prefill-tp: needs --prefill-gpus N");
  if ((o.prefill_auto || o.prefill_gpus) && p.default_split != SplitMode::tensor)
    throw InputError(std::string("--prefill-gpus: ") + p.name +
                     " does not split prefill from decode; use --engine vllm, sglang or trt-llm");
  if (o.prefill_auto) {
    if (o.gpus < 2)
      throw InputError("--prefill-gpus auto: needs --gpus N (N >= 2): the split of the GPUs given");
    if (o.tp || o.pp || o.ep)
      throw InputError(
          "--prefill-gpus auto: searches the layout with the split; drop --tp, --pp "
          "and --ep, or give --prefill-gpus N");
    s.prefill_auto = true;
    return;
  }
  if (o.prefill_gpus) {
    if (!o.gpus || o.prefill_gpus >= o.gpus)
      throw InputError(
          fmt::format("--prefill-gpus {}: needs --gpus N with GPUs left for decoding (N > {})",
                      o.prefill_gpus, o.prefill_gpus));
    if (o.prefill_tp && o.prefill_gpus % o.prefill_tp)
      throw InputError(
          fmt::format("--prefill-tp {}: a worker of {} GPUs does not divide "
                      "--prefill-gpus {}",
                      o.prefill_tp, o.prefill_tp, o.prefill_gpus));
    s.prefill_gpus = o.prefill_gpus;
    s.prefill_tp = o.prefill_tp;
  }
}

// --redundancy n+k: k spare machines on top of what the users need, which a capacity search sizes
// (--users N, no --gpus: the GPUs given are the deployment, a rate or --users max no head count).
uint32_t spare_machines(const Options& o) {
  if (o.redundancy.empty()) return 0;
  check_choice("--redundancy", o.redundancy, {"n", "n+1", "n+2"});
  const uint32_t k = o.redundancy == "n" ? 0 : o.redundancy == "n+1" ? 1 : 2;
  if (!k) return 0;
  if (o.gpus)
    throw InputError("--redundancy " + o.redundancy + ": sizes the machines for --users N with " +
                     std::to_string(k) + " of them down; --gpus " + std::to_string(o.gpus) +
                     " fixes the count instead: drop --gpus");
  if (o.rate > 0 || o.users_max || o.users == 0)
    throw InputError("--redundancy " + o.redundancy +
                     ": needs --users N, the people the deployment serves with " +
                     std::to_string(k) + (k == 1 ? " machine" : " machines") + " down");
  return k;
}

// A serving plan when the engine is a serving engine or any serving flag is given.
void resolve_serving(const Options& o, PlanRequest& q) {
  const Engine e = chosen_engine(o);
  if (!o.emit.empty()) {
    check_choice("--emit", o.emit, emit_engines());
    if (o.emit != "k8s" && o.emit != "acceptance" && *engine_from_name(o.emit) != e)
      throw InputError("--emit " + o.emit + ": the plan is for --engine " + o.engine +
                       "; emit that engine's command, or drop --engine");
  }
  const bool asked = is_serving_engine(e) || o.users > 1 || o.isl || o.osl || o.rate > 0 ||
                     o.requests_per_user >= 0 || o.tp || o.pp || o.ep || !o.spec.empty() ||
                     o.prefill_gpus || o.prefill_auto || o.prefill_tp ||
                     !o.slo_percentile.empty() || o.ttft_ms > 0 || o.tpot_ms > 0 || o.users_max ||
                     !o.emit.empty() || o.memory_fraction > 0 || !o.redundancy.empty();
  if (!asked) return;
  if (o.rate > 0 && (o.users || o.users_max))
    throw InputError("--rate: give either --rate R or --users N|max, not both");
  ServingRequest s;
  s.engine = e;
  const EngineProfile& p = engine_profile(e);
  s.kv = serving_kv(o, p);
  s.users_max = o.users_max;
  Workload& w = s.workload;
  // The ranges the flags' parsers check, checked again for Options filled in code (a plan file).
  if (o.isl) w.isl = count_in_range("--isl", o.isl, 1, kMaxContextTokens);
  if (o.osl) w.osl = count_in_range("--osl", o.osl, 1, kMaxContextTokens);
  if (o.rate > 0) real("--rate", o.rate, 0.0001, 1e6);
  if (o.ep && o.tp && o.tp != o.ep)
    throw InputError(fmt::format(
        "--ep {}: expert parallelism spans each replica's tensor-parallel group, so --tp {} "
        "would be --tp {}; drop --tp",
        o.ep, o.tp, o.ep));
  for (const auto& [flag, v] :
       {std::pair{"--tp", o.tp}, std::pair{"--pp", o.pp}, std::pair{"--ep", o.ep}}) {
    if (!v) continue;
    if (p.default_split != SplitMode::tensor)
      throw InputError(std::string(flag) + ": " + p.name +
                       " splits layers over its GPUs; --tp and --pp are vllm, sglang and trt-llm "
                       "layouts");
    if (!o.gpus)
      throw InputError(std::string(flag) +
                       ": needs --gpus N (the layout of the GPUs given; without it the capacity "
                       "search picks the GPUs and their layout)");
    count_in_range(flag, v, 1, 1024);
  }
  const uint32_t tp = o.ep ? o.ep : o.tp;
  // Disaggregated: the layout is the decode workers', on the GPUs prefill leaves.
  const uint32_t decode_gpus =
      o.prefill_gpus && o.prefill_gpus < o.gpus ? o.gpus - o.prefill_gpus : o.gpus;
  if (o.gpus && (tp || o.pp)) {
    const uint32_t span = std::max<uint32_t>(1, tp) * std::max<uint32_t>(1, o.pp);
    if (decode_gpus % span) {
      const std::string given =
          (tp ? fmt::format("--{} {}", o.ep ? "ep" : "tp", tp) : std::string()) +
          (tp && o.pp ? " " : "") + (o.pp ? fmt::format("--pp {}", o.pp) : std::string());
      throw InputError(fmt::format(
          "{}: a replica of {} GPU{} does not divide {}", given, span, span == 1 ? "" : "s",
          decode_gpus == o.gpus ? fmt::format("--gpus {}", o.gpus)
                                : fmt::format("the {} decode GPUs", decode_gpus)));
    }
  }
  s.tp = tp;
  s.pp = o.pp;
  s.expert_parallel = o.ep > 0;
  resolve_prefill(o, p, s);
  if (o.requests_per_user >= 0) {
    if (o.rate > 0)
      throw InputError(
          "--requests-per-user: a --rate's requests arrive at random, not in a closed loop of "
          "users; drop one of them");
    w.requests_per_user = count_in_range("--requests-per-user",
                                         static_cast<uint64_t>(o.requests_per_user), 0, 1000000);
  }
  if (o.ttft_ms > 0) real("--ttft-ms", o.ttft_ms, 0.1, 1e7);
  if (o.tpot_ms > 0) real("--tpot-ms", o.tpot_ms, 0.01, 1e6);
  if (o.memory_fraction > 0) {
    // Slot engines size their KV by slots (-np x context), not by a share of the GPU.
    if (p.memory_rule == MemoryRule::fixed_slots)
      throw InputError(std::string("--gpu-memory-utilization: ") + p.name +
                       " sizes its KV cache by slots, not by a share of the GPU; use --headroom");
    if (o.headroom >= 0)
      throw InputError(
          "--headroom: give either --headroom or --gpu-memory-utilization, not both (the engine's "
          "share F is a headroom of 1/F - 1)");
    s.memory_fraction = real("--gpu-memory-utilization", o.memory_fraction, 0.05, 0.99);
  } else if (o.headroom >= 0 && p.memory_rule != MemoryRule::fixed_slots) {
    // --headroom h on an engine that takes a share of each GPU is that share, 1 / (1 + h) (#23:
    // the serving plan read the engine's 0.9 whatever was asked): what the plan, the capacity
    // search and --emit use.
    s.memory_fraction = std::min(1.0, 1 / (1 + real("--headroom", o.headroom, 0.0, 1.0)));
  }
  // A request's tokens are one sequence's context: the bound --ctx has holds for their sum.
  const uint64_t sum = uint64_t{w.isl} + w.osl;
  if (sum > kMaxContextTokens)
    throw InputError(fmt::format(
        "--isl + --osl: {} + {} = {} tokens per request, past the {} a context may hold (--ctx)",
        w.isl, w.osl, sum, kMaxContextTokens));
  w.rate_per_s = o.rate;
  w.ttft_slo_s = seconds_of_ms(o.ttft_ms);
  w.tpot_slo_s = seconds_of_ms(o.tpot_ms);
  if (!o.slo_percentile.empty()) {
    check_choice("--slo-percentile", o.slo_percentile, {"mean", "90", "99"});
    if (o.ttft_ms <= 0 && o.tpot_ms <= 0)
      throw InputError("--slo-percentile " + o.slo_percentile +
                       ": bounds --ttft-ms or --tpot-ms; give one of them");
    w.slo_percentile = o.slo_percentile == "mean" ? 0 : o.slo_percentile == "90" ? 90 : 99;
  }
  s.spare_machines = spare_machines(o);
  if (o.ctx_given && !o.ctx_max) {
    if (o.ctx < w.request_tokens())
      throw InputError("--ctx " + std::to_string(o.ctx) + ": shorter than --isl + --osl (" +
                       std::to_string(w.request_tokens()) + " tokens per request)");
    s.max_model_len = o.ctx;
  }
  q.serving = std::move(s);
}

// --isl + --osl given past the model's trained context: refused (a prompt and its answer the
// model was never trained to attend over); --ctx past it stays a warning, as it sizes memory only.
void check_request_tokens(const Options& o, const ModelSpec& m, const Workload& w) {
  if ((!o.isl && !o.osl) || !m.n_ctx_train || w.request_tokens() <= m.n_ctx_train) return;
  throw InputError(fmt::format(
      "--isl + --osl: {} + {} = {} tokens per request, past {}'s trained context of {} tokens",
      w.isl, w.osl, w.request_tokens(), sanitize(m.id.empty() ? m.name : m.id), m.n_ctx_train));
}

// The directory of a model path: the path itself when it is one, else the part before the last
// '/' ("." for a bare file name).
std::string model_directory(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return path;
  const size_t slash = path.find_last_not_of('/') == std::string::npos
                           ? std::string::npos
                           : path.rfind('/', path.find_last_not_of('/'));
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The last component of a path, without trailing slashes ("model" when there is none).
std::string base_name(const std::string& path) {
  const size_t end = path.find_last_not_of('/');
  if (end == std::string::npos) return "model";
  const size_t slash = path.rfind('/', end);
  const std::string b = path.substr(slash == std::string::npos ? 0 : slash + 1,
                                    end - (slash == std::string::npos ? 0 : slash + 1) + 1);
  return b == "." || b == ".." ? "model" : b;
}

// What the launch command loads: for the serving engines the Hugging Face repo of `cm` (the
// catalog entry; null for a file), or the checkpoint directory a config.json or safetensors file
// is in (vLLM, SGLang and TensorRT-LLM load a directory, not its config.json); for llama.cpp /
// Ollama a GGUF file: the one given, else the GGUF of that repo or directory at the quantization,
// named as GGUF repos name their files. A generic size names no checkpoint: empty. A relative
// path that starts with '-' gets "./" so the engine cannot read it as an option.
std::string launch_target(const Options& o, const CatalogModel* cm, const ResolvedRequest& out,
                          bool gguf_engine) {
  const ResolvedModel& rm = out.model;
  if (rm.source == "generic") return "";
  std::string quant = out.request.config.quant->id;
  for (auto& ch : quant) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::string t;
  if (rm.source == "catalog" || rm.source == "shorthand") {
    const std::string repo = cm && !cm->hf_repo.empty() ? cm->hf_repo : rm.spec.id;
    t = gguf_engine ? repo.substr(repo.rfind('/') + 1) + "-" + quant + ".gguf" : repo;
  } else if (rm.source == "gguf") {
    t = o.model;
  } else {
    // config.json, or safetensors: the checkpoint's directory.
    const std::string dir = model_directory(o.model);
    t = gguf_engine ? (dir == "." ? "" : dir + (dir.back() == '/' ? "" : "/")) + base_name(dir) +
                          "-" + quant + ".gguf"
                    : dir;
  }
  if (!t.empty() && t[0] == '-') t = "./" + t;
  return t;
}

// What the launch command loads, and whether the engine runs on the GPU.
void resolve_serving_target(const Options& o, const Catalog& cat, ResolvedRequest& out) {
  ServingRequest& s = *out.request.serving;
  const bool gguf_engine =
      engine_profile(s.engine).memory_engine == Engine::llama_cpp || s.engine == Engine::ollama;
  const ResolvedModel& rm = out.model;
  // The catalog entry, looked up once: its repo names the checkpoint, its guide the flags.
  const CatalogModel* cm =
      rm.source == "catalog" || rm.source == "shorthand" ? cat.find_model(rm.spec.id) : nullptr;
  s.launch_model = launch_target(o, cm, out, gguf_engine);
  if (cm && cm->serving) s.guide = *cm->serving;
  // A reasoning model thinks at length before it answers: a paged engine is launched at the
  // model's own trained context, as vLLM and SGLang launch it without --max-model-len /
  // --context-length, unless --ctx bounds it (#21); isl + osl would cut its thinking off.
  if (s.guide.reasoning && !o.ctx_given && !o.ctx_max &&
      engine_profile(s.engine).memory_rule != MemoryRule::fixed_slots &&
      rm.spec.n_ctx_train > std::max(s.max_model_len, s.workload.request_tokens()))
    s.max_model_len = rm.spec.n_ctx_train;
  const auto& g = out.request.gpu;
  if (s.engine == Engine::trt_llm && g && g->vendor != GpuVendor::nvidia)
    throw InputError("--engine trt-llm: TensorRT-LLM runs on NVIDIA GPUs only, and " + g->id +
                     " is " +
                     (g->vendor == GpuVendor::other ? std::string("another maker")
                                                    : std::string(to_string(g->vendor))) +
                     "'s; use --engine vllm or sglang");
}

// Memory and the engine's rules: quant, context, sequences, KV cache, flash attention, headroom.
// The numbers were range-checked when parsed; checked again for Options filled in code.
void resolve_config(const Options& o, ResolvedRequest& out) {
  PlanRequest& q = out.request;
  RunConfig& c = q.config;
  c.quant = &resolve_quant("--quant", serving_quant_text(o));
  out.quant_requested = serving_quant_text(o);
  c.kv.n_ctx = count_in_range("--ctx", o.ctx, 1, kMaxContextTokens);
  q.users = o.users ? count_in_range("--users", o.users, 1, 100000) : 0;
  c.kv.n_seq = o.batch ? count_in_range("--batch", o.batch, 1, 65536) : q.users ? q.users : 1;
  c.kv.n_ubatch = count_in_range("--ubatch", o.ubatch, 1, 65536);
  resolve_serving(o, q);
  if (q.serving && q.serving->kv != KvDtype::q8_0 && q.serving->kv != KvDtype::q4_0 &&
      engine_profile(q.serving->engine).memory_engine != Engine::llama_cpp)
    c.kv.type_k = c.kv.type_v = kv_tensor_type(q.serving->kv);
  else
    c.kv.type_k = c.kv.type_v = resolve_kv_type("--kv-quant", o.kv_quant);
  c.engine = engine_profile(q.serving ? q.serving->engine : chosen_engine(o)).memory_engine;
  if (q.serving && !o.ctx_given && !o.ctx_max) {
    c.kv.n_ctx = std::max(q.serving->max_model_len, q.serving->workload.request_tokens());
    // A slot engine's slot is the context it is launched with (llama-server -c / -np): the
    // request's tokens when --isl / --osl give them, else the main command's default context
    // (as without --users) unless the default request needs more.
    if (engine_profile(q.serving->engine).memory_rule == MemoryRule::fixed_slots && !o.isl &&
        !o.osl) {
      c.kv.n_ctx = std::max(c.kv.n_ctx, o.ctx);
      q.serving->max_model_len = c.kv.n_ctx;
    }
  }
  const EngineProfile& ep = engine_profile(c.engine);
  if (!o.flash_attn.empty()) check_choice("--flash-attn", o.flash_attn, {"on", "off"});
  c.flash_attn = o.flash_attn.empty() ? ep.flash_attn_default : o.flash_attn == "on";
  if (o.kv_unified && c.engine != Engine::llama_cpp)
    throw InputError(std::string("--kv-unified: llama.cpp's choice (llama-server --kv-unified); ") +
                     ep.name +
                     (c.engine == Engine::ollama ? " always shares one KV stream between its slots"
                                                 : " pages its KV cache in blocks"));
  c.kv_unified = o.kv_unified;
  if (traits(c.kv.type_v).quantized && !c.flash_attn)
    throw InputError("--flash-attn: off with --kv-quant " + sanitize(o.kv_quant) +
                     ": llama.cpp requires flash attention for a quantized V cache");
  c.headroom = o.headroom < 0 ? ep.headroom_default : real("--headroom", o.headroom, 0.0, 1.0);
  // The engine's share F of each GPU: the memory table's sum is F of the GPU, as the plan's pool.
  if (q.serving && q.serving->memory_fraction > 0) c.headroom = 1 / q.serving->memory_fraction - 1;
  c.overhead_per_gpu_bytes = o.overhead_mib < 0
                                 ? ep.overhead_per_gpu_bytes
                                 : bytes_of_mib(real("--overhead-mib", o.overhead_mib, 0, 65536));
}

// The platform catalog (built-in and --catalog files), --platform and --storage.
void resolve_machine(const Options& o, const Catalog& cat, PlanRequest& q) {
  q.platforms = &cat.platforms();
  if (!o.machine_class.empty())
    check_choice("--class", o.machine_class, {"desktop", "workstation", "server"});
  if (!o.platform.empty()) {
    const PlatformModel* p = find_platform(*q.platforms, o.platform);
    if (!p)
      throw InputError("--platform: unknown platform '" + sanitize(o.platform) + "'" +
                       suggest_platform(*q.platforms, o.platform) +
                       "; the catalog's ids are in data/platforms.json");
    q.platform_override = p->id;
  }
  const auto st = storage_from_name(o.storage);
  if (!st) {
    std::vector<std::string> names;
    for (const char* n : storage_names()) names.emplace_back(n);
    check_choice("--storage", o.storage, names);
  }
  q.storage = *st;
}

// GPUs, speed, host, power and cost.
void resolve_hardware(const Options& o, const Catalog& cat, PlanRequest& q) {
  q.gpus_requested = o.gpus ? count_in_range("--gpus", o.gpus, 1, kMaxGpus) : 0;
  q.target_tokens_per_s = o.target_tps > 0 ? real("--target-tps", o.target_tps, 0.1, 100000) : 0;
  q.min_tokens_per_s = real("--min-tps", o.min_tps, 0, 100000);
  check_choice("--optimize", o.optimize, {"price", "gpus", "power", "tco"});
  for (const Objective g : {Objective::price, Objective::gpus, Objective::power, Objective::tco})
    if (o.optimize == to_string(g)) q.objective = g;
  if (q.target_tokens_per_s > 0 && q.users == 0)
    throw InputError("--target-tps: needs --users N (how many people share the GPUs)");
  check_choice("--split", o.split, {"layer", "tensor"});
  q.split = o.split == "tensor" ? Split::tensor : Split::layer;
  q.top = count_in_range("--top", o.top, 1, 100);
  q.prompt_tokens = count_in_range("--prompt", o.prompt, 1, kMaxContextTokens);
  q.ram_mts = count_in_range("--ram-mts", o.ram_mts, 400, 20000);
  q.ram_channels = o.ram_channels ? count_in_range("--ram-channels", o.ram_channels, 1, 24) : 0;
  q.keep_models = count_in_range("--keep-models", o.keep_models, 1, 1000);
  // Decimal GB as typed, to bytes (<= 1e7 GB = 1e16 bytes: no overflow).
  q.dataset_bytes = bytes_of_gb(real("--dataset-gb", o.dataset_gb, 0, 1e7));
  q.power.power_limit = parse_power_limit(o.power_limit);
  q.power.mains_v = real("--mains", o.mains, 100, 240);
  q.power.duty_cycle = real("--duty-cycle", o.duty_cycle, 0, 1);
  q.cost.kwh_price_usd = real("--kwh-price", o.kwh_price, 0, 10);
  q.cost.years = real("--years", o.years, 0.25, 20);
  // Cost per token divides by the tokens generated: no share of the year generating has no
  // cost per token (a 1% floor, 3.65 days a year).
  q.cost.utilization = real("--utilization", o.utilization, 0.01, 1);
  q.cost.cloud_price_per_mtok =
      o.cloud_price > 0 ? real("--cloud-price", o.cloud_price, 0.0001, 10000) : 0;
  q.rent_usd_per_gpu_hour = o.rent_price > 0 ? real("--rent-price", o.rent_price, 0.01, 1000) : 0;
  q.cost.colo_usd_per_kw_month =
      o.colo_price > 0 ? real("--colo-usd-per-kw-month", o.colo_price, 0, 100000) : 0;
  resolve_machine(o, cat, q);
}

// Whether some platform of `platforms` takes `g` at one of the counts it ships (power aside).
bool takes(const std::vector<PlatformModel>& platforms, const GpuSpec& g) {
  for (const auto& p : platforms)
    for (uint32_t c : p.gpu_counts)
      if (platform_blockers(p, g, c, 0).empty()) return true;
  return false;
}

// --class, or the policy a shared service gets (#21): a vLLM, SGLang or TensorRT-LLM service of
// more than 4 users (or a request rate) runs on a workstation or server, which carry ECC memory,
// a BMC and redundant PSUs that a desktop lacks. A platform named with --platform wins; a GPU
// that no machine of the policy's classes takes (a 3-slot consumer card) keeps every class.
void apply_class_policy(const Options& o, const Catalog& cat, PlanRequest& q) {
  if (!o.platform.empty()) return;
  if (!o.machine_class.empty()) {
    q.least_class = o.machine_class == "server"        ? PlatformClass::server
                    : o.machine_class == "workstation" ? PlatformClass::workstation
                                                       : PlatformClass::desktop;
  } else if (q.serving && is_serving_engine(q.serving->engine) &&
             (q.users > 4 || q.serving->workload.rate_per_s > 0)) {
    q.least_class = PlatformClass::workstation;
    q.least_class_by_policy = true;
  }
  if (q.least_class == PlatformClass::desktop) return;
  const auto& from = cat.platforms_from(q.least_class);
  if (q.gpu && !q.gpu->unified_memory && !takes(from, *q.gpu)) {
    if (!q.least_class_by_policy)
      throw InputError(
          "--class: no catalog platform of class " + o.machine_class + " takes " + q.gpu->id +
          (q.gpu->gpu_class == GpuClass::consumer ? " (a consumer card goes in no rack server)"
                                                  : "") +
          "; use a lower class or another GPU");
    q.least_class = PlatformClass::desktop;
    q.least_class_by_policy = false;
    return;
  }
  q.platforms = &from;
}

void resolve_training(const Options& o, PlanRequest& q) {
  check_choice("--mode", o.mode, {"inference", "lora", "qlora", "full"});
  TrainConfig t;
  t.mode = o.mode == "full"    ? TrainMode::full
           : o.mode == "qlora" ? TrainMode::qlora
                               : TrainMode::lora;
  t.seq = count_in_range("--seq", o.seq, 1, kMaxContextTokens);
  check_choice("--optimizer", o.optimizer, {"adamw", "adamw-8bit"});
  t.optimizer = o.optimizer == "adamw" ? Optimizer::adamw : Optimizer::adamw_8bit;
  t.lora_rank = count_in_range("--lora-rank", o.lora_rank, 1, 4096);
  check_choice("--checkpointing", o.checkpointing, {"on", "off"});
  t.checkpointing = o.checkpointing == "on";
  t.batch = o.batch ? q.config.kv.n_seq : 1;
  if (o.mode != "inference") q.train = t;
}

}  // namespace

void check_choice(const std::string& flag, const std::string& v,
                  const std::vector<std::string>& choices) {
  if (std::find(choices.begin(), choices.end(), v) != choices.end()) return;
  throw InputError(flag + ": expected " + or_list(choices) + ", got '" + sanitize(v) + "'" +
                   did_you_mean(v, choices));
}

double parse_power_limit(const std::string& text) {
  const std::string msg =
      "--power-limit: expected a percentage from 10% to 100% (or a fraction 0.1 to 1), got '" +
      sanitize(text) + "'";
  std::string t = text;
  const bool pct = !t.empty() && t.back() == '%';
  if (pct) t.pop_back();
  // Decimal only: strtod would also take hex (0x50), " 80" and "inf".
  if (t.empty() || t.find_first_not_of("0123456789.eE+") != std::string::npos)
    throw InputError(msg);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !std::isfinite(v)) throw InputError(msg);
  if (pct || v > 1) v /= 100;
  if (!(v >= 0.1 && v <= 1.0)) throw InputError(msg);
  return v;
}

void check_kv_rows(const std::string& where, const ModelSpec& m, TensorType type_k,
                   TensorType type_v) {
  const auto bad = kv_row_mismatch(m, type_k, type_v);
  if (!bad) return;
  const auto& tt = traits(bad->type);
  throw InputError(where + ": " + tt.name + " stores rows in blocks of " +
                   std::to_string(tt.block_size) + " elements, but this model's " +
                   (bad->v ? "V" : "K") + " row is " + std::to_string(bad->row) + " elements" +
                   (bad->mla ? std::string(" (MLA latent)")
                             : " (" + std::to_string(bad->n_head_kv) + " KV heads x head size " +
                                   std::to_string(bad->head_dim) + ")") +
                   "; use f16, bf16 or a type whose block divides it");
}

uint32_t count_in_range(const std::string& where, uint64_t v, uint64_t lo, uint64_t hi) {
  if (v < lo || v > hi)
    throw InputError(where + ": expected an integer from " + std::to_string(lo) + " to " +
                     std::to_string(hi) + ", got '" + std::to_string(v) + "'");
  return static_cast<uint32_t>(v);
}

double real_in_range(const std::string& where, double v, const std::string& text, double lo,
                     double hi) {
  if (!(v >= lo && v <= hi)) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "expected a number from %g to %g", lo, hi);
    throw InputError(where + ": " + buf + ", got '" + text + "'");
  }
  return v;
}

TensorType resolve_kv_type(const std::string& where, const std::string& text) {
  static const std::vector<std::string> kKv = {"f32",  "f16",  "bf16", "q8_0",  "q5_1",
                                               "q5_0", "q4_1", "q4_0", "iq4_nl"};
  std::string t = lower(text);
  if (t == "fp16") t = "f16";
  if (t == "q8") t = "q8_0";
  if (t == "q4") t = "q4_0";
  if (std::find(kKv.begin(), kKv.end(), t) == kKv.end())
    throw InputError(where + ": unknown KV cache type '" + sanitize(text) + "'" +
                     did_you_mean(text, kKv) +
                     "; llama.cpp accepts f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl");
  return *tensor_type_from_name(t);
}

const QuantPreset& resolve_quant(const std::string& where, const std::string& text) {
  const QuantPreset* q = find_quant_preset(text);
  if (!q)
    throw InputError(where + ": unknown quantization '" + sanitize(text) + "'" +
                     did_you_mean(text, quant_names()) + "; see llmsize quants");
  return *q;
}

Catalog load_catalog(const std::vector<std::string>& files) {
  Catalog c = Catalog::builtin();
  for (const auto& f : files) c.merge_file(f);
  return c;
}

std::vector<GpuSpec> priced_gpus(const std::vector<std::string>& prices, const Catalog& cat) {
  std::vector<GpuSpec> gpus;
  for (const auto& g : cat.gpus()) gpus.push_back(g.spec);
  for (const auto& p : prices) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--price: expected NAME=USD, got '" + sanitize(p) + "'");
    const std::string name = p.substr(0, eq);
    const double usd = parse_real("--price " + name, p.substr(eq + 1), 1, 1e8);
    const auto* g = cat.find_gpu(name);
    if (!g && find_platform(cat.platforms(), name)) continue;  // a machine: price_platforms()
    if (!g) {
      std::vector<std::string> ids;
      for (const auto& c : cat.gpus()) ids.push_back(c.spec.id);
      for (const auto& m : cat.platforms()) ids.push_back(m.id);
      throw InputError("--price: unknown GPU or platform '" + sanitize(name) + "'" +
                       did_you_mean(name, ids) + "; see llmsize gpus and llmsize platforms");
    }
    for (auto& s : gpus)
      if (s.id == g->spec.id) {
        s.price_usd = usd;
        s.price_date = "given with --price";
        s.price_kind = "user";
      }
  }
  return gpus;
}

const GpuSpec& resolve_gpu(const std::string& flag, const std::string& name, const Catalog& cat,
                           const std::vector<GpuSpec>& gpus) {
  const auto* cg = cat.find_gpu(name);
  if (!cg)
    throw InputError(flag + ": unknown GPU '" + sanitize(name) + "'" + cat.suggest_gpu(name) +
                     "; see llmsize gpus");
  return *std::find_if(gpus.begin(), gpus.end(),
                       [&](const GpuSpec& g) { return g.id == cg->spec.id; });
}

// --task, --docs and --doc-len: an embedding or rerank model encodes --docs documents of
// --doc-len tokens in one batch (the KV and compute sizes of --batch and --ctx) and generates
// nothing. The default task is the model's own (catalog "task", a GGUF's pooling_type, an
// encoder's config.json).
void resolve_task(const Options& o, ModelSpec& m, RunConfig& c) {
  if (!o.task.empty()) {
    const auto t = task_from_name(o.task);
    if (!t) check_choice("--task", o.task, {"generation", "embedding", "rerank"});
    if (*t == Task::generation && m.is_encoder())
      throw InputError("--task generation: " + m.name + " is an encoder (" + arch_name(m.arch) +
                       "): it embeds or scores text and generates none");
    set_task(m, *t);
  }
  if (m.task == Task::generation) {
    if (o.docs) throw InputError("--docs: only for an embedding or rerank model (see --task)");
    if (o.doc_len)
      throw InputError("--doc-len: only for an embedding or rerank model (see --task)");
    return;
  }
  if (o.docs && o.batch && o.docs != o.batch)
    throw InputError("--docs " + std::to_string(o.docs) + " and --batch " +
                     std::to_string(o.batch) + " disagree: give one of them");
  if (o.doc_len && o.ctx_given && o.doc_len != o.ctx)
    throw InputError("--doc-len " + std::to_string(o.doc_len) + " and --ctx " +
                     std::to_string(o.ctx) + " disagree: give one of them");
  if (o.docs) c.kv.n_seq = count_in_range("--docs", o.docs, 1, 65536);
  if (o.doc_len) {
    c.kv.n_ctx = count_in_range("--doc-len", o.doc_len, 1, kMaxContextTokens);
  } else if (!o.ctx_given) {
    // A document of 512 tokens unless the model holds fewer.
    c.kv.n_ctx = m.n_ctx_train ? std::min<uint32_t>(512, m.n_ctx_train) : 512;
  }
  if (m.n_ctx_train && c.kv.n_ctx > m.n_ctx_train && m.is_encoder())
    throw InputError("--doc-len " + std::to_string(c.kv.n_ctx) + ": longer than the " +
                     std::to_string(m.n_ctx_train) + " positions " + m.name +
                     " has (an encoder cannot go past its position table)");
}

namespace {

// --no-mtp: the model as a GGUF that holds none of the checkpoint's MTP (next-n) layers, as
// convert_hf_to_gguf.py wrote Qwen3.5 / Qwen3.6 files before it exported "mtp.*" (the published
// Qwen3.5-397B-A17B GGUF of PR 13194 prints 396.35 B params, the text model without its MTP
// layer: tests/data/measured_memory_2026.json). The layer adds only weights (llama.cpp keeps no
// KV or recurrent state for it), so the model is the same with n_layer_nextn = 0.
void drop_mtp_layers(const Options& o, ResolvedRequest& out) {
  if (!o.no_mtp) return;
  PlanRequest& q = out.request;
  if (out.model.exact_weights)
    throw InputError("--no-mtp: " + sanitize(o.model) +
                     " is a weights file, sized by its own tensors (llama.cpp loads the MTP "
                     "layers a GGUF holds); the option applies to a catalog model or a "
                     "config.json");
  const Engine e = q.config.engine;
  if (e != Engine::llama_cpp && e != Engine::ollama)
    throw InputError("--no-mtp: sizes a GGUF (--engine llama.cpp or ollama); " +
                     std::string(engine_profile(e).name) +
                     " loads the checkpoint, whose files carry the MTP layers" +
                     (e == Engine::vllm ? " (and leaves them out of memory already)" : ""));
  if (!q.config.quant->gguf)
    throw InputError("--no-mtp: sizes a GGUF, but --quant " + std::string(q.config.quant->id) +
                     " is a checkpoint format, whose files carry the MTP layers; use a GGUF "
                     "quantization such as q4_k_m");
  out.mtp_layers_dropped = q.model.n_layer_nextn;
  out.model.spec.n_layer_nextn = 0;
  q.model.n_layer_nextn = 0;
}

// --draft MODEL: llama-server's draft model (-md), checked against the main one as llama.cpp's
// common_speculative_are_compatible does (the vocabularies at most SPEC_VOCAB_MAX_SIZE_DIFFERENCE
// = 128 tokens apart); a catalog draft takes the main --quant, a GGUF file its own weights.
void resolve_draft(const Options& o, const Catalog& cat, ResolvedRequest& out) {
  if (o.draft.empty()) return;
  PlanRequest& q = out.request;
  if (q.config.engine != Engine::llama_cpp)
    throw InputError(std::string("--draft: llama-server's draft model (-md); ") +
                     engine_profile(q.config.engine).name +
                     " is not planned with one here (vLLM's and SGLang's speculative decoding "
                     "are their own settings)");
  ResolvedModel rm = resolve_model(o.draft, cat, "--draft");
  if (rm.spec.task != Task::generation)
    throw InputError("--draft " + sanitize_quoted(o.draft) + ": not a text-generation model");
  const uint32_t a = q.model.n_vocab, b = rm.spec.n_vocab;
  if ((a > b ? a - b : b - a) > 128)
    throw InputError(fmt::format(
        "--draft {}: its vocabulary ({} tokens) is not the main model's ({}): llama.cpp needs "
        "the two within 128 tokens of each other (a draft of the same family)",
        sanitize_quoted(o.draft), b, a));
  auto d = std::make_shared<DraftModel>();
  d->spec = rm.spec;
  d->quant = q.config.quant;
  if (rm.exact_weights) {
    auto owned = std::make_shared<Weights>(*rm.exact_weights);
    d->exact_weights = owned.get();
    out.draft_weights = std::move(owned);
    if (const QuantPreset* fq = find_quant_preset(rm.file_quant)) d->quant = fq;
  }
  if (!d->quant->gguf)
    throw InputError("--draft: llama-server loads a GGUF draft; --quant " +
                     std::string(d->quant->id) + " is a checkpoint format");
  if (rm.source == "gguf") {
    out.draft_launch = o.draft;
  } else {
    std::string quant = d->quant->id;
    for (auto& ch : quant) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    const CatalogModel* cm = cat.find_model(rm.spec.id);
    const std::string repo = cm && !cm->hf_repo.empty() ? cm->hf_repo : rm.spec.id;
    out.draft_launch = repo.substr(repo.rfind('/') + 1) + "-" + quant + ".gguf";
  }
  out.draft = d;
  q.config.draft = out.draft.get();
  if (q.serving) q.serving->launch_draft = out.draft_launch;
}

// --spec mtp|eagle3|draft:MODEL with --spec-tokens and --spec-acceptance: speculative decoding
// on a tensor-parallel serving engine, with a draft the model has (its MTP layers, a published
// EAGLE-3 head) or a catalog model of the same vocabulary.
void resolve_spec(const Options& o, const Catalog& cat, ResolvedRequest& out) {
  PlanRequest& q = out.request;
  if (o.spec.empty()) {
    if (o.spec_tokens) throw InputError("--spec-tokens: needs --spec mtp|eagle3|draft:MODEL");
    if (o.spec_acceptance > 0)
      throw InputError("--spec-acceptance: needs --spec mtp|eagle3|draft:MODEL");
    return;
  }
  ServingRequest& sr = *q.serving;  // --spec makes a serving request (resolve_serving)
  if (engine_profile(sr.engine).default_split != SplitMode::tensor)
    throw InputError(
        std::string("--spec: ") + engine_profile(sr.engine).name +
        " is not planned with speculative decoding here; use --engine vllm, "
        "sglang or trt-llm" +
        (sr.engine == Engine::llama_cpp ? " (llama-server's draft model is --draft MODEL)" : ""));
  const std::string id = q.model.id.empty() ? q.model.name : q.model.id;
  const std::string text = lower(o.spec);
  if (text == "mtp") {
    if (!q.model.n_layer_nextn)
      throw InputError("--spec mtp: " + sanitize(id) +
                       "'s checkpoint has no multi-token-prediction layers "
                       "(num_nextn_predict_layers); use --spec " +
                       (eagle3_head(q.model.id) ? "eagle3 or " : "") + "draft:MODEL");
    sr.spec = SpecMethod::mtp;
    q.config.load_nextn = true;
  } else if (text == "eagle3") {
    const Eagle3Head* h = eagle3_head(q.model.id);
    if (!h) {
      std::string known;
      for (const Eagle3Head& x : eagle3_heads())
        known += (known.empty() ? "" : ", ") + std::string(x.model);
      throw InputError("--spec eagle3: no published EAGLE-3 head for " + sanitize(id) +
                       " is known (heads for: " + known + "); use --spec draft:MODEL" +
                       (q.model.n_layer_nextn ? " or mtp" : ""));
    }
    const std::string_view repo = sr.engine == Engine::sglang    ? h->sglang_repo
                                  : sr.engine == Engine::trt_llm ? h->trt_repo
                                                                 : h->vllm_repo;
    if (repo.empty())
      throw InputError("--spec eagle3: no EAGLE-3 head for " + sanitize(id) +
                       " is published in the format " + engine_profile(sr.engine).name + " loads" +
                       (h->vllm_repo.empty() ? "" : " (vLLM's: --engine vllm)"));
    sr.spec = SpecMethod::eagle3;
    sr.spec_launch_model = std::string(repo);
  } else if (text.rfind("draft:", 0) == 0) {
    const std::string name = o.spec.substr(6);
    ResolvedModel rm = resolve_model(name, cat, "--spec draft:");
    if (rm.exact_weights || rm.source == "gguf")
      throw InputError("--spec draft:" + sanitize_quoted(name) +
                       ": the serving engines load a checkpoint; name a catalog model");
    if (rm.spec.task != Task::generation)
      throw InputError("--spec draft:" + sanitize_quoted(name) + ": not a text-generation model");
    if (rm.spec.n_vocab != q.model.n_vocab)
      throw InputError(fmt::format(
          "--spec draft:{}: its vocabulary ({} tokens) is not the model's ({}): the engines "
          "verify the draft's token ids as the target's (a draft of the same family)",
          sanitize_quoted(name), rm.spec.n_vocab, q.model.n_vocab));
    // No engine publishes the acceptance of a small model drafting for a large one of its
    // family (only single-prompt anecdotes), and it varies with the pair and the traffic.
    if (!(o.spec_acceptance > 0))
      throw InputError("--spec draft:" + sanitize_quoted(name) +
                       ": no published acceptance rate for this pair; measure it on your own "
                       "traffic (vLLM's spec_decode metrics, SGLang's accept length) and give "
                       "--spec-acceptance A");
    auto d = std::make_shared<DraftModel>();
    d->spec = rm.spec;
    d->quant = q.config.quant;
    sr.spec = SpecMethod::draft;
    sr.spec_draft = d;
    const CatalogModel* cm = cat.find_model(rm.spec.id);
    sr.spec_launch_model = cm && !cm->hf_repo.empty() ? cm->hf_repo : rm.spec.id;
  } else {
    check_choice("--spec", o.spec, {"mtp", "eagle3", "draft:MODEL"});
  }
  sr.spec_tokens = o.spec_tokens;
  sr.spec_acceptance = o.spec_acceptance;
  if (o.spec_acceptance > 0) real("--spec-acceptance", o.spec_acceptance, 0.01, 0.99);
  if (o.spec_tokens) count_in_range("--spec-tokens", o.spec_tokens, 1, 16);
}

// --gpu-memory-limit GIB: the share of a unified memory the OS lets the GPU map (macOS's
// iogpu.wired_limit_mb, Linux's GTT size), replacing the catalog's default share.
void limit_unified_memory(const Options& o, PlanRequest& q) {
  if (o.gpu_memory_limit_gib <= 0) return;
  if (!q.gpu)
    throw InputError(
        "--gpu-memory-limit: sets a unified-memory GPU's share; name the GPU with --gpu");
  GpuSpec& g = *q.gpu;
  if (!g.unified_memory)
    throw InputError("--gpu-memory-limit: " + g.id +
                     " has memory of its own, not shared with the CPU; --headroom sets the share "
                     "a plan leaves free");
  const double gib = real("--gpu-memory-limit", o.gpu_memory_limit_gib, 1,
                          static_cast<double>(g.memory_bytes) / static_cast<double>(kGiB));
  g.memory_fraction = gib * static_cast<double>(kGiB) / static_cast<double>(g.memory_bytes);
  q.gpu_memory_limited = true;
}

// --n-cpu-moe N / --cpu-experts: llama.cpp's expert placement, checked against the model and
// the engine; RunConfig::n_cpu_moe then moves the experts in the estimate.
void place_experts(const Options& o, ResolvedRequest& out) {
  if (o.n_cpu_moe < 0 && !o.cpu_experts) return;
  const char* flag = o.cpu_experts ? "--cpu-experts" : "--n-cpu-moe";
  if (o.cpu_experts && o.n_cpu_moe >= 0)
    throw InputError(
        "--cpu-experts: keeps every block's experts in RAM; give it or --n-cpu-moe N, not both");
  PlanRequest& q = out.request;
  const std::string name = sanitize(q.model.id.empty() ? q.model.name : q.model.id);
  const Engine e = q.config.engine;
  if (e != Engine::llama_cpp)
    throw InputError(std::string(flag) + ": llama.cpp's placement of the experts (llama-server " +
                     (o.cpu_experts ? "--cpu-moe" : "--n-cpu-moe") + "); " +
                     engine_profile(e).name +
                     (e == Engine::ollama ? " has no such setting; use --engine llama.cpp"
                                          : " keeps every weight on the GPUs"));
  if (!q.model.is_moe())
    throw InputError(std::string(flag) + ": " + name +
                     " has no routed experts to keep in RAM (not a mixture-of-experts model)");
  if (!q.config.quant->gguf)
    throw InputError(std::string(flag) + ": places a GGUF's experts, but " +
                     (out.model.exact_weights ? sanitize(o.model) + " is not a GGUF file"
                                              : "--quant " + std::string(q.config.quant->id) +
                                                    " is a checkpoint format") +
                     "; use a GGUF quantization such as q4_k_m");
  const uint32_t blocks = q.model.n_layer + q.model.n_layer_nextn;
  if (o.n_cpu_moe > blocks)
    throw InputError(fmt::format("--n-cpu-moe {}: {} has {} blocks (0 to {})", o.n_cpu_moe, name,
                                 blocks, blocks));
  if (o.target_tps > 0 && q.serving)
    throw InputError(std::string(flag) +
                     ": with the experts in system RAM one llama-server serves every user from its "
                     "slots (replicas would share the host's memory bandwidth); drop --target-tps "
                     "to see the speed each user gets");
  q.config.n_cpu_moe = o.cpu_experts ? kAllBlocks : static_cast<uint32_t>(o.n_cpu_moe);
  q.experts_placed = true;
}

// The request's machine prices (NAME=USD naming a platform) on its own copy of the platforms it
// plans with, so requests of one catalog (check's plans) each keep their own.
void price_platforms(const std::vector<std::string>& prices, const Catalog& cat,
                     ResolvedRequest& out) {
  PlanRequest& q = out.request;
  std::shared_ptr<std::vector<PlatformModel>> own;
  for (const auto& p : prices) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0 || !q.platforms) continue;
    const std::string name = p.substr(0, eq);
    if (cat.find_gpu(name) || !find_platform(*q.platforms, name)) continue;
    if (!own) {
      own = std::make_shared<std::vector<PlatformModel>>(*q.platforms);
      q.platforms = own.get();
      out.platforms = own;
    }
    const double usd = parse_real("--price " + name, p.substr(eq + 1), 1, 1e8);
    for (auto& m : *own)
      if (m.id == lower(name)) {
        m.price_usd = usd;
        m.price_source = "user: given with --price";
      }
  }
}

}  // namespace

// Whether the checkpoint's own format would decide its weights (stored_quant) but is not one
// llmsize reads.
bool unread_stored_quant(const ResolvedModel& model, Engine engine, bool quant_given) {
  return !model.exact_weights && !quant_given && !model.spec.stored_quant_unread.empty() &&
         (engine == Engine::vllm || engine == Engine::transformers);
}

const QuantPreset* stored_quant(const ResolvedModel& model, Engine engine, bool quant_given) {
  if (model.exact_weights || quant_given || model.spec.stored_quant.empty()) return nullptr;
  if (engine != Engine::vllm && engine != Engine::transformers) return nullptr;
  return find_quant_preset(model.spec.stored_quant);
}

void resolve_request(const Options& o, const Catalog& cat, ResolvedRequest& out,
                     const std::vector<GpuSpec>* priced) {
  // The catalog's GPUs priced once by the caller (check reads 10^5 plans), unless --price applies.
  const bool own = !priced || !o.prices.empty();
  if (own) out.gpus = priced_gpus(o.prices, cat);
  const std::vector<GpuSpec>& gpus = own ? out.gpus : *priced;
  PlanRequest& q = out.request;
  q = PlanRequest();
  resolve_config(o, out);
  resolve_hardware(o, cat, q);
  price_platforms(o.prices, cat, out);
  resolve_training(o, q);
  if (!o.gpu.empty()) q.gpu = resolve_gpu("--gpu", o.gpu, cat, gpus);
  limit_unified_memory(o, q);
  q.candidates = &gpus;
  apply_class_policy(o, cat, q);

  out.model = resolve_model(o.model, cat);
  resolve_task(o, out.model.spec, q.config);
  q.model = out.model.spec;
  if (out.model.exact_weights) q.exact_weights = out.model.exact_weights;
  check_kv_rows("--kv-quant", q.model, q.config.kv.type_k, q.config.kv.type_v);
  q.config.quant = &model_quant("--quant", out.model, serving_quant_text(o), o.quant_given,
                                out.quant_requested, out.quant_ignored);
  if (const QuantPreset* sq = stored_quant(out.model, q.config.engine, o.quant_given)) {
    q.config.quant = sq;
    out.quant_requested = sq->id;
  } else if (unread_stored_quant(out.model, q.config.engine, o.quant_given)) {
    // A checkpoint in a format llmsize does not size is said to be one, not sized in BF16 unseen.
    std::string& a = out.model.assumption;
    a += (a.empty() ? "" : "; ") + std::string("its quantization_config (") +
         out.model.spec.stored_quant_unread +
         ") is not a format llmsize sizes: the weights are sized as " + q.config.quant->id +
         " (name the closest with --quant)";
  }
  // The report says what "mxfp4" was read as on a checkpoint engine.
  if (o.quant_given && q.config.quant->ftype == Ftype::HF_MXFP4_EXPERTS)
    out.quant_requested = o.quant;
  if (q.config.quant->ftype == Ftype::HF_MXFP4_EXPERTS && !q.model.is_moe())
    throw InputError("--quant " + sanitize(out.quant_requested) +
                     ": MXFP4 serving checkpoints quantize a mixture of experts' routed experts "
                     "(gpt-oss); " +
                     sanitize(q.model.id.empty() ? q.model.name : q.model.id) +
                     " is dense: use fp8 or nvfp4, or a GGUF type with --engine llama.cpp");
  drop_mtp_layers(o, out);
  place_experts(o, out);
  resolve_draft(o, cat, out);
  resolve_spec(o, cat, out);
  if (q.serving) {
    // TensorRT-LLM's KV cache follows the checkpoint ("auto"): NVIDIA's ModelOpt FP8 and NVFP4
    // checkpoints quantize it to FP8 (hf_quant_config kv_cache_quant_algo FP8), as its
    // perf-overview runs them; --kv-quant bf16 keeps 16 bits.
    const std::string qid = q.config.quant->id;
    if (q.serving->engine == Engine::trt_llm && lower(o.kv_quant) == "f16" &&
        (qid == "fp8" || qid == "nvfp4")) {
      q.serving->kv = KvDtype::fp8_e4m3;
      q.config.kv.type_k = q.config.kv.type_v = kv_tensor_type(KvDtype::fp8_e4m3);
    }
    if (q.serving->expert_parallel && !q.model.is_moe())
      throw InputError("--ep: " + sanitize(q.model.id.empty() ? q.model.name : q.model.id) +
                       " has no experts to split (not a mixture-of-experts model)");
    if (const uint32_t tp = q.serving->expert_parallel ? 0 : q.serving->tp) {
      // vLLM, SGLang and TensorRT-LLM split the attention heads evenly, the KV heads evenly or
      // each replicated whole (valid_tp_heads, the layout search's own rule).
      if (!valid_tp_heads(q.model.n_head, q.model.n_head_kv, tp))
        throw InputError(fmt::format(
            "--tp {}: {} has {} attention heads and {} KV heads, which {} GPUs do not split evenly",
            tp, sanitize(q.model.id.empty() ? q.model.name : q.model.id), q.model.n_head,
            std::max<uint32_t>(1, q.model.n_head_kv), tp));
    }
    check_request_tokens(o, q.model, q.serving->workload);
    resolve_serving_target(o, cat, out);
  }
}

const QuantPreset& model_quant(const std::string& where, const ResolvedModel& model,
                               const std::string& text, bool given, std::string& requested,
                               std::string& ignored) {
  const QuantPreset& preset = resolve_quant(where, text);
  requested = text;
  ignored.clear();
  // A weights file has its own type: --quant does not apply, the report names the file's type.
  if (!model.exact_weights) return preset;
  const QuantPreset* fq = find_quant_preset(model.file_quant);
  if (!fq) return preset;
  if (given && &preset != fq) ignored = text;
  requested = fq->id;
  return *fq;
}

}  // namespace llmsize::cli
