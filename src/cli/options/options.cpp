#include "cli/options/options.hpp"

#include <CLI/CLI.hpp>

#include "cli/options/number_text.hpp"
#include "cli/options/request.hpp"
#include "llmsize/engine.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/plan/plan.hpp"

namespace llmsize::cli {

CLI::Validator integer_from(uint64_t lo, uint64_t hi) {
  return CLI::Validator([lo, hi](std::string& v) { return integer_problem(v, lo, hi); }, "");
}

CLI::Validator number_from(double lo, double hi) {
  return CLI::Validator([lo, hi](std::string& v) { return number_problem(v, lo, hi); }, "");
}

CLI::Option* add_catalog_option(CLI::App& app, Options& o) {
  return app
      .add_option("--catalog", o.catalogs,
                  "JSON catalog file adding or overriding models/GPUs/platforms (repeatable)")
      ->type_name("FILE");
}

CLI::Option* add_ctx_option(CLI::App& app, const std::string& names, Options& o,
                            const std::string& help) {
  return app
      .add_option_function<std::string>(
          names,
          [&o](const std::string& v) {
            o.ctx_max = v == "max";
            o.ctx_given = true;
            if (!o.ctx_max) o.ctx = static_cast<uint32_t>(std::stoul(v));
          },
          help)
      ->check(CLI::Validator(
          [](std::string& v) {
            return v == "max" ? std::string() : integer_problem(v, 1, kMaxContextTokens);
          },
          ""))
      ->default_str(std::to_string(o.ctx));
}

namespace {

// --engine's help: every engine of the profile table, and those that make a serving plan.
std::string engine_help() {
  std::vector<std::string> all, serving;
  for (const char* name : engine_names()) {
    all.push_back(name);
    if (engine_profile(*engine_from_name(name)).memory_rule != MemoryRule::fixed_slots)
      serving.push_back(name);
  }
  std::string s;
  for (const auto& e : serving) s += (s.empty() ? "" : ", ") + e;
  return "engine whose rules apply: " + or_list(all) + " (" + s + ": a serving plan)";
}

// --emit's help: each engine's launch command, and k8s.
std::string emit_help() {
  std::vector<std::string> engines;
  for (const auto& e : emit_engines())
    if (e != "k8s" && e != "acceptance") engines.push_back(e);
  return "print the launch command of the plan: " + or_list(engines) +
         "; k8s: a Kubernetes manifest of the --engine vllm or sglang plan (LeaderWorkerSet past "
         "one machine); acceptance: the benchmark to run on the delivered machine and the "
         "llmsize verify that holds it to the plan";
}

// Model and memory: quantization, context, sequences, KV cache, engine rules.
void setup_memory(CLI::App& app, Options& o) {
  auto* mem = "Model and memory";
  app.add_option("-q,--quant", o.quant,
                 "weights quantization: q4_k_m, q8_0, f16, fp8, gptq-4bit, ... (llmsize quants); "
                 "q4 = q4_k_m")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.quant_given = true; })
      ->group(mem);
  add_ctx_option(app, "-c,--ctx,--n-ctx", o,
                 "context length per sequence, tokens (max: the largest the GPUs hold)")
      ->type_name("N")
      ->group(mem);
  app.add_option("-b,--batch,--n-seq", o.batch,
                 "concurrent sequences, each with its own KV cache (default: --users, else 1)")
      ->check(integer_from(1, 65536))
      ->type_name("N")
      ->group(mem);
  app.add_option("--task", o.task,
                 "what the model runs: generation, embedding or rerank (default: the model's)")
      ->type_name("TASK")
      ->group(mem);
  app.add_option("--docs", o.docs,
                 "embedding / rerank: documents encoded together in one batch (= --batch)")
      ->check(integer_from(1, 65536))
      ->type_name("N")
      ->group(mem);
  app.add_option("--doc-len", o.doc_len,
                 "embedding / rerank: tokens per document (= --ctx; default 512)")
      ->check(integer_from(1, kMaxContextTokens))
      ->type_name("N")
      ->group(mem);
  app.add_option("--ubatch,--n-ubatch", o.ubatch,
                 "micro-batch (llama.cpp n_ubatch): sizes the compute buffer")
      ->check(integer_from(1, 65536))
      ->capture_default_str()
      ->type_name("N")
      ->group(mem);
  app.add_option("--kv-quant,--cache-type", o.kv_quant,
                 "KV cache type: f16, bf16, q8_0, q5_0, q4_0, ...")
      ->capture_default_str()
      ->group(mem);
  app.add_flag("--no-mtp", o.no_mtp,
               "size the GGUF without the model's MTP (next-token prediction) layers, as files "
               "converted before llama.cpp exported them")
      ->group(mem);
  app.add_option("--n-cpu-moe", o.n_cpu_moe,
                 "llama.cpp: keep the routed experts of the first N blocks in system RAM (its "
                 "--n-cpu-moe); without it, a MoE model the GPUs cannot hold gets the fewest")
      ->check(integer_from(0, 4096))
      ->type_name("N")
      ->group(mem);
  app.add_flag("--cpu-experts,--cpu-moe", o.cpu_experts,
               "llama.cpp: keep every block's routed experts in system RAM (its --cpu-moe)")
      ->group(mem);
  app.add_option("--draft,--model-draft", o.draft,
                 "llama.cpp: a draft model for speculative decoding (llama-server -md), a catalog "
                 "model at --quant or a GGUF file: its weights, KV cache and compute buffer")
      ->type_name("MODEL")
      ->group(mem);
  app.add_flag("--kv-unified,--kvu", o.kv_unified,
               "llama.cpp: the sequences share one KV cache of batch x ctx cells (llama-server "
               "--kv-unified; Ollama always does)")
      ->group(mem);
  app.add_option("--flash-attn,--fa", o.flash_attn,
                 "flash attention: on or off (default: the engine's)")
      ->group(mem);
  app.add_option(
         "--headroom", o.headroom,
         "fraction added on top of the sum, 0 to 1 (default 0.2); on vllm, sglang and trt-llm "
         "their memory share 1 / (1 + F) (vllm's default 0.111 = 90% utilization)")
      ->check(number_from(0.0, 1.0))
      ->type_name("F")
      ->group(mem);
  app.add_option("--overhead-mib", o.overhead_mib,
                 "runtime overhead per GPU, MiB (default 512; vllm 1024)")
      ->check(number_from(0, 65536))
      ->type_name("MIB")
      ->group(mem);
  app.add_option("-e,--engine", o.engine, engine_help())
      ->capture_default_str()
      ->each([&o](const std::string&) { o.engine_given = true; })
      ->group(mem);
  add_catalog_option(app, o)->group(mem);
}

// GPUs, speed and capacity.
void setup_hardware(CLI::App& app, Options& o) {
  auto* hw = "GPUs and speed";
  app.add_option("-g,--gpu", o.gpu,
                 "GPU from the catalog (llmsize gpus); without it llmsize recommends one")
      ->type_name("NAME")
      ->group(hw);
  app.add_option("-n,--gpus", o.gpus, "number of GPUs you have: is it enough? what spills to RAM?")
      ->check(integer_from(1, kMaxGpus))
      ->type_name("N")
      ->group(hw);
  app.add_option("--gpu-memory-limit", o.gpu_memory_limit_gib,
                 "unified memory (Apple, Ryzen AI Max): the GPU's share the OS allows, GiB "
                 "(macOS iogpu.wired_limit_mb, Linux GTT); default: the OS's")
      ->check(number_from(1, 1048576))
      ->type_name("GIB")
      ->group(hw);
  app.add_option("--price", o.prices,
                 "override a GPU's or a machine's catalog price, e.g. rtx-4090=1800 or "
                 "nvidia-dgx-h100=300000 (repeatable)")
      ->type_name("NAME=USD")
      ->group(hw);
  app.add_option("--split", o.split,
                 "multi-GPU split for the speed estimate: layer (llama.cpp default) or tensor")
      ->capture_default_str()
      ->group(hw);
  app.add_option("--top", o.top, "how many GPU options to list when llmsize recommends")
      ->check(integer_from(1, 100))
      ->capture_default_str()
      ->type_name("N")
      ->group(hw);
  app.add_option_function<std::string>(
         "-u,--users",
         [&o](const std::string& v) {
           o.users_max = v == "max";
           o.users = o.users_max ? 0 : static_cast<uint32_t>(std::stoul(v));
         },
         "people served at once (concurrent sequences); max: the largest batch that fits")
      ->check(CLI::Validator(
          [](std::string& v) { return v == "max" ? std::string() : integer_problem(v, 1, 100000); },
          ""))
      ->type_name("N")
      ->group(hw);
  app.add_option("--target-tps", o.target_tps,
                 "tokens/s each user must get: plans the GPU count (tensor parallel + replicas)")
      ->check(number_from(0.1, 100000))
      ->type_name("T")
      ->group(hw);
  app.add_option("--class", o.machine_class,
                 "the least machine class: desktop, workstation or server (default: workstation "
                 "and no consumer card for a vllm/sglang/trt-llm service of more than 4 users, "
                 "else any)")
      ->type_name("CLASS")
      ->group(hw);
  app.add_option("--min-tps", o.min_tps,
                 "usable speed: tok/s each user needs; a slower system is not recommended while "
                 "a faster one holds the model, and a plan below it says so (0: no floor)")
      ->check(number_from(0, 100000))
      ->capture_default_str()
      ->type_name("T")
      ->group(hw);
  app.add_option("--optimize", o.optimize,
                 "what the recommendation minimises among the systems at the usable speed: price "
                 "(the bill of materials), gpus (fewest cards), power (maximum at the wall) or tco "
                 "(price + energy over --years at that maximum and --duty-cycle)")
      ->capture_default_str()
      ->type_name("GOAL")
      ->group(hw);
  app.add_option("--prompt", o.prompt, "prompt length for time to first token, tokens")
      ->check(integer_from(1, 16u << 20))
      ->capture_default_str()
      ->type_name("N")
      ->group(hw);
}

// Serving at scale (#10): workload, SLOs, the launch command.
void setup_serving(CLI::App& app, Options& o) {
  auto* serve = "Serving at scale (vllm, sglang, trt-llm; any engine with these flags)";
  app.add_option("--isl", o.isl, "tokens in per request (default 1000)")
      ->check(integer_from(1, 16u << 20))
      ->type_name("N")
      ->group(serve);
  app.add_option("--osl", o.osl, "tokens out per request (default 1000)")
      ->check(integer_from(1, 16u << 20))
      ->type_name("N")
      ->group(serve);
  app.add_option("--rate", o.rate, "requests per second instead of --users (Little's law)")
      ->check(number_from(0.0001, 1e6))
      ->type_name("R")
      ->group(serve);
  app.add_option("--tp", o.tp,
                 "tensor-parallel degree of each replica on the --gpus given (default: the layout "
                 "that serves the workload best is searched)")
      ->check(integer_from(1, 1024))
      ->type_name("N")
      ->group(serve);
  app.add_option("--pp", o.pp,
                 "pipeline stages of each replica on the --gpus given (default: searched)")
      ->check(integer_from(1, 1024))
      ->type_name("N")
      ->group(serve);
  app.add_option("--ep", o.ep,
                 "a MoE model's experts split over N GPUs of each replica, each GPU running "
                 "attention for its own sequences (expert parallel + attention data parallel: "
                 "SGLang --enable-dp-attention, vLLM --data-parallel-size with "
                 "--enable-expert-parallel, TensorRT-LLM enable_attention_dp)")
      ->check(integer_from(2, 1024))
      ->type_name("N")
      ->group(serve);
  app.add_option_function<std::string>(
         "--prefill-gpus",
         [&o](const std::string& v) {
           if (v == "auto") {
             o.prefill_auto = true;
             return;
           }
           o.prefill_gpus = static_cast<uint32_t>(std::stoul(v));
         },
         "disaggregated prefill and decode: N of the --gpus run prefill workers and hand "
         "each request's KV to decode workers on the rest (SGLang's PD mode, Dynamo, llm-d); "
         "auto: the split that serves the workload best, searched with the layout (aggregated "
         "included)")
      ->check(CLI::IsMember({"auto"}) | integer_from(1, 1024))
      ->type_name("N|auto")
      ->group(serve);
  app.add_option("--prefill-tp", o.prefill_tp,
                 "tensor-parallel degree of each prefill worker (default: the largest that "
                 "divides --prefill-gpus and the heads within a node)")
      ->check(integer_from(1, 1024))
      ->type_name("N")
      ->group(serve);
  app.add_option("--spec", o.spec,
                 "speculative decoding: mtp (the checkpoint's multi-token-prediction layers), "
                 "eagle3 (the model's published EAGLE-3 head) or draft:MODEL (a small model of "
                 "the same family); vllm, sglang and trt-llm")
      ->type_name("METHOD")
      ->group(serve);
  app.add_option("--spec-tokens", o.spec_tokens,
                 "draft tokens proposed per step (default: the engines' documented recipe, 3; "
                 "1 for mtp)")
      ->check(integer_from(1, 16))
      ->type_name("K")
      ->group(serve);
  app.add_option("--spec-acceptance", o.spec_acceptance,
                 "the share of draft tokens accepted, each given the ones before it were, as "
                 "measured on your own traffic (default: the published rate for the model)")
      ->check(number_from(0.01, 0.99))
      ->type_name("A")
      ->group(serve);
  app.add_option("--redundancy", o.redundancy,
                 "n+1 or n+2: the users still served at the targets with any 1 or 2 machines "
                 "down; the plan buys the spare machines and says what they cost (default n)")
      ->type_name("N+K")
      ->group(serve);
  app.add_option("--slo-percentile", o.slo_percentile,
                 "what --ttft-ms and --tpot-ms bound: mean (default), 90 or 99 (MLPerf's limits "
                 "are the 99th percentile)")
      ->type_name("P")
      ->group(serve);
  app.add_option("--requests-per-user", o.requests_per_user,
                 "requests each of --users sends one after another, all users starting at once "
                 "as fixed-concurrency benchmarks do: their first wave's wait counts once in N "
                 "(default 10, InferenceMAX's; 0: the steady state alone)")
      ->check(integer_from(0, 1000000))
      ->type_name("N")
      ->group(serve);
  app.add_option("--gpu-memory-utilization,--mem-fraction-static", o.memory_fraction,
                 "the serving engine's share of each GPU's memory: vLLM's "
                 "--gpu-memory-utilization, SGLang's --mem-fraction-static, TensorRT-LLM's free "
                 "memory fraction (default: the engine's)")
      ->check(number_from(0.05, 0.99))
      ->type_name("F")
      ->group(serve);
  app.add_option("--ttft-ms", o.ttft_ms, "time-to-first-token SLO, ms (mean)")
      ->check(number_from(0.1, 1e7))
      ->type_name("X")
      ->group(serve);
  app.add_option("--tpot-ms", o.tpot_ms, "time-per-output-token SLO, ms (mean)")
      ->check(number_from(0.01, 1e6))
      ->type_name("X")
      ->group(serve);
  app.add_option("--emit", o.emit, emit_help())->type_name("TARGET")->group(serve);
}

// Host, power and cost.
void setup_host(CLI::App& app, Options& o) {
  auto* host = "Host, power and cost";
  app.add_option("--ram-channels", o.ram_channels,
                 "memory channels populated, at most the platform's (default: all of them)")
      ->check(integer_from(1, 24))
      ->type_name("N")
      ->group(host);
  app.add_option("--ram-mts", o.ram_mts,
                 "DIMM speed, MT/s (offload bandwidth = channels x MT/s x 8 B)")
      ->check(integer_from(400, 20000))
      ->capture_default_str()
      ->type_name("N")
      ->group(host);
  app.add_option("--keep-models", o.keep_models, "models or variants kept on disk")
      ->check(integer_from(1, 1000))
      ->capture_default_str()
      ->type_name("N")
      ->group(host);
  app.add_option("--dataset-gb", o.dataset_gb, "datasets kept on disk, GB")
      ->check(number_from(0, 1e7))
      ->capture_default_str()
      ->type_name("GB")
      ->group(host);
  app.add_option("--power-limit", o.power_limit, "GPU power cap, e.g. 80%")
      ->check(CLI::Validator(
          [](std::string& v) {
            try {
              parse_power_limit(v);
              return std::string();
            } catch (const InputError& e) {
              return std::string(e.what()).substr(std::string("--power-limit: ").size());
            }
          },
          ""))
      ->capture_default_str()
      ->type_name("PCT")
      ->group(host);
  app.add_option("--mains", o.mains, "mains voltage: 120 or 230")
      ->check(number_from(100, 240))
      ->capture_default_str()
      ->type_name("V")
      ->group(host);
  app.add_option("--duty-cycle", o.duty_cycle, "share of the year at full load, for energy")
      ->check(number_from(0, 1))
      ->capture_default_str()
      ->type_name("F")
      ->group(host);
  app.add_option("--kwh-price", o.kwh_price, "electricity price, USD per kWh")
      ->check(number_from(0, 10))
      ->capture_default_str()
      ->type_name("USD")
      ->group(host);
  app.add_option("--years", o.years, "amortisation period")
      ->check(number_from(0.25, 20))
      ->capture_default_str()
      ->type_name("N")
      ->group(host);
  app.add_option("--utilization", o.utilization, "share of the year generating, for cost per token")
      ->check(number_from(0, 1))
      ->capture_default_str()
      ->type_name("F")
      ->group(host);
  app.add_option("--platform", o.platform,
                 "the machine by platform catalog id (llmsize platforms); default: the smallest "
                 "that holds the GPUs")
      ->type_name("ID")
      ->group(host);
  app.add_option("--storage", o.storage,
                 "where the weights load from: local-nvme-gen4, nfs, s3, ebs-gp3, ebs-io2, ...")
      ->capture_default_str()
      ->type_name("CLASS")
      ->group(host);
  app.add_option_function<std::string>(
         "--compare",
         [&o](const std::string& v) {
           o.compare_given = true;
           o.compare = v;
         },
         "systems side by side for the model: unified-memory computers and GPU towers (memory, "
         "fit, speed, price, idle/typical/max power, energy); LIST of GPUs or platform ids with "
         "counts (m3-ultra,dgx-spark,rtx-4090x2); without LIST the catalog's unified computers "
         "and the recommended towers")
      ->expected(0, 1)
      ->default_str("auto")
      ->type_name("LIST")
      ->group(host);
  app.add_option("--cloud-price", o.cloud_price, "cloud API price, USD per 1M tokens: break-even")
      ->check(number_from(0.0001, 10000))
      ->type_name("USD")
      ->group(host);
  app.add_option("--rent-price", o.rent_price,
                 "the same GPU rented, USD per GPU-hour: break-even against renting (default: the "
                 "median of the providers' published on-demand prices in the catalog)")
      ->check(number_from(0.01, 1000))
      ->type_name("USD")
      ->group(host);
  app.add_option("--colo-usd-per-kw-month", o.colo_price,
                 "colocation, USD per kW of the machines' maximum draw a month, added to owning's "
                 "running cost (default 0: your own building)")
      ->check(number_from(0, 100000))
      ->type_name("USD")
      ->group(host);
}

// Fine-tuning.
void setup_training(CLI::App& app, Options& o) {
  auto* ft = "Fine-tuning";
  app.add_option("--mode", o.mode, "inference, lora, qlora or full")
      ->capture_default_str()
      ->group(ft);
  app.add_option("--seq", o.seq, "training sequence length")
      ->check(integer_from(1, 16u << 20))
      ->capture_default_str()
      ->type_name("N")
      ->group(ft);
  app.add_option("--optimizer", o.optimizer, "adamw or adamw-8bit")
      ->capture_default_str()
      ->group(ft);
  app.add_option("--lora-rank", o.lora_rank, "LoRA rank")
      ->check(integer_from(1, 4096))
      ->capture_default_str()
      ->type_name("N")
      ->group(ft);
  app.add_option("--checkpointing", o.checkpointing, "activation checkpointing: on or off")
      ->capture_default_str()
      ->group(ft);
}

}  // namespace

bool flag_given(const Options& o, const char* flag) {
  return o.planning.app && o.planning.app->count(flag) > 0;
}

void setup_app(CLI::App& app, Options& o) {
  app.description(
      "llmsize: size the hardware to run a large language model on premises.\n"
      "MODEL is a catalog id or alias (llmsize models), a size (70b, 8x7b) or a config.json path.");
  app.require_subcommand(0, 1);
  app.add_option("MODEL", o.model,
                 "catalog id or alias, size shorthand (70b), or path to config.json");
  setup_memory(app, o);
  setup_hardware(app, o);
  setup_serving(app, o);
  setup_host(app, o);
  setup_training(app, o);
  app.add_option("-f,--format", o.format,
                 "output: table, json, csv, markdown, bom-csv (one row per BOM line) or html (a "
                 "procurement report)")
      ->capture_default_str()
      ->type_name("FORMAT");
  app.add_flag("--explain", o.explain, "print every formula with its numbers");
  app.add_option("--width", o.width,
                 "wrap the table's lines at N columns, 40 or more (default 120; 0: no wrapping)")
      ->check(integer_from(0, 100000))
      ->type_name("N");

  auto* models = app.add_subcommand("models", "list the model catalog");
  auto* gpus = app.add_subcommand("gpus", "list the GPU catalog");
  auto* quants = app.add_subcommand("quants", "list quantization presets and tensor types");
  for (auto* sc : {models, gpus, quants}) {
    sc->add_option("-f,--format", o.format, "output: table, json or csv")->capture_default_str();
    sc->add_option("--catalog", o.catalogs,
                   "JSON catalog file adding or overriding entries (repeatable)");
    sc->callback([&o, sc] { o.command = sc->get_name(); });
  }
  auto* platforms = app.add_subcommand(
      "platforms", "list the platform catalog (the machines --platform picks from)");
  platforms->add_option("-f,--format", o.format, "output: table, json or csv")
      ->capture_default_str();
  platforms->add_option("--catalog", o.catalogs,
                        "JSON catalog file adding or overriding entries (repeatable)");
  platforms->callback([&o] { o.command = "platforms"; });
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

}  // namespace llmsize::cli
