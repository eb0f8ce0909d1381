// The llmsize command line: the options, typed, and their binding to flags (setup_app).
#pragma once

#include <string>
#include <vector>

#include "cli/options/planning_options.hpp"

// CLI11's types, declared: only the files that parse the command line include <CLI/CLI.hpp>.
namespace CLI {
class App;
class Option;
class Validator;
}  // namespace CLI

namespace llmsize::cli {

// The command line, typed: numbers are numbers, validated when parsed (setup_app binds each with
// its range, so an error names the flag and the range); words are checked against their choices
// in resolve_request(). "Not given" is 0 (or < 0 where 0 is a value) as each field says.
struct Options {
  // model and memory
  std::string model;
  std::string quant = "q4_k_m";
  bool quant_given = false;  // -q/--quant on the command line (a weights file's type wins else)
  uint32_t ctx = 4096;
  bool ctx_max = false;  // --ctx max: the largest context the GPUs hold
  uint32_t batch = 0;    // concurrent sequences; 0: --users, else 1
  uint32_t ubatch = 512;
  std::string task;      // --task generate | embedding | rerank; empty: the model's
  uint32_t docs = 0;     // --docs: documents per embedding / rerank batch (= --batch)
  uint32_t doc_len = 0;  // --doc-len: tokens per document (= --ctx)
  std::string kv_quant = "f16";
  bool no_mtp = false;       // --no-mtp: the GGUF without the checkpoint's MTP layers
  int64_t n_cpu_moe = -1;    // --n-cpu-moe N: blocks whose experts stay in RAM; < 0: not given
  bool cpu_experts = false;  // --cpu-experts: every block's experts in RAM (llama.cpp --cpu-moe)
  bool kv_unified = false;   // --kv-unified: llama.cpp's sequences share one KV stream
  std::string draft;         // --draft MODEL: llama-server's draft model (-md); empty: none
  std::string flash_attn;    // on | off; empty: the engine's
  double headroom = -1;      // < 0: the engine's (0.2; vLLM 1/0.9 - 1)
  double overhead_mib = -1;  // < 0: the engine's
  std::string engine = "llama.cpp";
  std::vector<std::string> catalogs;
  // hardware
  std::string gpu;
  uint32_t gpus = 0;                // 0: as many as needed
  double gpu_memory_limit_gib = 0;  // unified memory: the GPU's share the OS allows; 0: default
  std::vector<std::string> prices;  // NAME=USD
  std::string split = "layer";
  uint32_t top = 5;
  // speed and capacity
  uint32_t users = 0;              // 0: not given
  double target_tps = 0;           // 0: no capacity target
  double min_tps = 10;             // --min-tps: the usable speed per user; 0: no floor
  std::string optimize = "price";  // --optimize: what the recommendation minimises
  uint32_t prompt = 1024;
  // host, power, cost
  uint32_t ram_channels = 0;  // 0: the platform's
  uint32_t ram_mts = 4800;
  uint32_t keep_models = 3;
  double dataset_gb = 0;
  std::string power_limit = "100%";  // "80%", "80" or "0.8" (validated when parsed)
  double mains = 230;
  double duty_cycle = 0.5;
  double kwh_price = 0.15;
  double years = 3;
  double utilization = 0.5;
  double cloud_price = 0;  // 0: no comparison
  double rent_price = 0;   // --rent-price: USD per GPU-hour rented (0: the catalog's)
  double colo_price = 0;   // --colo-usd-per-kw-month: colocation, USD per kW a month (0: none)
  // the machine (platform catalog)
  std::string platform;                     // --platform ID; empty: llmsize chooses
  std::string storage = "local-nvme-gen4";  // --storage: where the weights are read from
  std::string machine_class;                // --class: the least machine class; empty: policy
  // fine-tuning
  std::string mode = "inference";
  uint32_t seq = 2048;
  std::string optimizer = "adamw";
  uint32_t lora_rank = 16;
  std::string checkpointing = "on";
  // output
  std::string format = "table";
  bool explain = false;
  uint32_t width = 120;              // --width: the table's columns; 0 = lines not wrapped
  std::string command = "estimate";  // estimate | models | gpus | quants
  PlanningOptions planning;          // check, fit, sweep, --plot, completions, man
  // serving at scale (#10); 0 / empty: not given
  bool ctx_given = false;      // -c/--ctx typed: the serving guarantee's tokens per sequence
  bool engine_given = false;   // -e/--engine typed
  bool users_max = false;      // --users max
  uint32_t isl = 0;            // --isl: tokens in per request (default 1000 when serving)
  uint32_t osl = 0;            // --osl: tokens out per request (default 1000 when serving)
  double rate = 0;             // --rate: requests per second
  uint32_t tp = 0, pp = 0;     // --tp / --pp: the serving layout pinned (0: searched)
  uint32_t ep = 0;             // --ep: expert parallel with attention data parallel over N GPUs
  uint32_t prefill_gpus = 0;   // --prefill-gpus N: of --gpus, those running prefill workers
  bool prefill_auto = false;   // --prefill-gpus auto: the split searched with the layout
  uint32_t prefill_tp = 0;     // --prefill-tp: each prefill worker's TP (0: the largest valid)
  std::string spec;            // --spec mtp|eagle3|draft:MODEL: speculative decoding
  uint32_t spec_tokens = 0;    // --spec-tokens: draft tokens per step (0: the method's default)
  double spec_acceptance = 0;  // --spec-acceptance: per draft token (0: the published rate)
  std::string slo_percentile;  // --slo-percentile: mean, 90 or 99 (empty: mean)
  std::string redundancy;      // --redundancy: n, n+1 or n+2 (empty: n)
  // --requests-per-user: each user's requests in a closed loop (first wave shared over them);
  // -1 = not given (Workload's default).
  int64_t requests_per_user = -1;
  // --gpu-memory-utilization / --mem-fraction-static: the serving engine's share of each GPU;
  // 0 = the engine's own default.
  double memory_fraction = 0;
  double ttft_ms = 0;  // --ttft-ms: time-to-first-token SLO
  double tpot_ms = 0;  // --tpot-ms: time-per-output-token SLO
  std::string emit;    // --emit vllm|sglang|llama-server|trt-llm|ollama|k8s
  // --compare [LIST]: systems side by side (empty or "auto": the catalog's unified computers and
  // the recommended towers)
  std::string compare;
  bool compare_given = false;
};

// The values the main command's --format and --emit accept: the lists the parser checks against,
// the help and the shell completions read.
inline const std::vector<std::string>& main_formats() {
  static const std::vector<std::string> k = {"table", "json", "csv", "markdown"};
  return k;
}
// The machine's outputs: the BOM as CSV lines and the procurement report.
inline const std::vector<std::string>& machine_formats() {
  static const std::vector<std::string> k = {"bom-csv", "html"};
  return k;
}
// Each engine's launch commands, and "k8s": a Kubernetes manifest of the --engine's plan.
inline const std::vector<std::string>& emit_engines() {
  static const std::vector<std::string> k = {"vllm",   "sglang", "llama-server", "trt-llm",
                                             "ollama", "k8s",    "acceptance"};
  return k;
}

// Binds every flag of `o` to `app`, with subcommands models, gpus and quants.
void setup_app(CLI::App& app, Options& o);
// Whether `flag` ("--top") was given on the command line that set `o` (false before parsing).
bool flag_given(const Options& o, const char* flag);

// Validators of numeric flags: the message CLI11 puts after "--flag: " ("expected an integer from
// 1 to 65536, got 'x'"), checked on the text before it is converted.
CLI::Validator integer_from(uint64_t lo, uint64_t hi);
CLI::Validator number_from(double lo, double hi);
// --ctx: an integer in range, or "max" (sets o.ctx_max).
CLI::Option* add_ctx_option(CLI::App& app, const std::string& names, Options& o,
                            const std::string& help);
// --catalog FILE (repeatable) into o.catalogs: models and GPUs added or overridden.
CLI::Option* add_catalog_option(CLI::App& app, Options& o);

}  // namespace llmsize::cli
