// The llmsize command: options, their binding to flags, and running them.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/planning_options.hpp"
#include "cli/resolve.hpp"

namespace llmsize {
class Catalog;
struct Plan;
}  // namespace llmsize

namespace llmsize::cli {

struct Options {
  // model and memory
  std::string model;
  std::string quant = "q4_k_m";
  std::string ctx = "4096";
  std::string batch;  // concurrent sequences; defaults to --users, else 1
  std::string ubatch = "512";
  std::string kv_quant = "f16";
  std::string flash_attn;    // default: the engine's
  std::string headroom;      // default: the engine's (0.2; vLLM 1/0.9 - 1)
  std::string overhead_mib;  // default: the engine's
  std::string engine = "llama.cpp";
  std::vector<std::string> catalogs;
  // hardware
  std::string gpu;
  std::string gpus;
  std::vector<std::string> prices;  // NAME=USD
  std::string split = "layer";
  std::string top = "5";
  // speed and capacity
  std::string users;
  std::string target_tps;
  std::string prompt = "1024";
  // host, power, cost
  std::string ram_channels;  // default: the platform's
  std::string ram_mts = "4800";
  std::string keep_models = "3";
  std::string dataset_gb = "0";
  std::string power_limit = "100%";
  std::string mains = "230";
  std::string duty_cycle = "0.5";
  std::string kwh_price = "0.15";
  std::string years = "3";
  std::string utilization = "0.5";
  std::string cloud_price;
  // fine-tuning
  std::string mode = "inference";
  std::string seq = "2048";
  std::string optimizer = "adamw";
  std::string lora_rank = "16";
  std::string checkpointing = "on";
  // output
  std::string format = "table";
  bool explain = false;
  std::string command = "estimate";  // estimate | models | gpus | quants
  PlanningOptions planning;          // check, fit, sweep, --plot, completions, man
};

// Binds every flag of `o` to `app`, with subcommands models, gpus and quants.
void setup_app(CLI::App& app, Options& o);

struct Report;

// The whole estimate and bill of materials for one configuration, without rendering: validates
// every flag, resolves the model and GPUs in `catalog`, computes. Throws InputError on bad input.
Report build_report(const Options& o, const Catalog& catalog);

struct ResolvedRequest;
// A plan of `rq` with its words, for the renderers.
Report make_report(const ResolvedRequest& rq, Plan p, bool explain);

// Runs the parsed options; writes the result to `out` (sweep streams to stdout itself). Returns the
// exit code: 0, or 1 when `check` finds a plan that fails. Throws InputError on bad input (nothing
// written to out in that case).
int run(const Options& o, std::string& out);

}  // namespace llmsize::cli
