// The llmsize command: options, their binding to flags, and running them.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/resolve.hpp"

namespace llmsize::cli {

struct Options {
  // main job
  std::string model;
  std::string quant = "q4_k_m";
  std::string ctx = "4096";
  std::string batch = "1";
  std::string ubatch = "512";
  std::string kv_quant = "f16";
  std::string flash_attn = "on";
  std::string gpu;
  std::string gpus;
  std::string headroom = "0.2";
  std::string overhead_mib = "512";
  std::vector<std::string> catalogs;
  std::string format = "table";
  bool explain = false;
  // which command ran
  std::string command = "estimate";  // estimate | models | gpus | quants
};

// Binds every flag of `o` to `app`, with subcommands models, gpus and quants.
void setup_app(CLI::App& app, Options& o);

// Runs the parsed options; writes the result to `out`. Throws InputError on bad input (nothing
// written to out in that case).
void run(const Options& o, std::string& out);

}  // namespace llmsize::cli
