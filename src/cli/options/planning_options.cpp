#include "cli/options/planning_options.hpp"

#include <CLI/CLI.hpp>

#include "cli/options/options.hpp"
#include "llmsize/gpu.hpp"

namespace llmsize::cli {

namespace {

// verify RESULT... --plan PLAN.json [--name NAME] (#27: the delivery's benchmark against its plan).
void add_verify(CLI::App& app, Options& o) {
  PlanningOptions& p = o.planning;
  auto* verify = app.add_subcommand(
      "verify",
      "hold the benchmark of a delivered machine to its plan: each run of vllm bench serve, "
      "SGLang's bench_serving, trtllm-bench or llama-bench against the plan's figures at the "
      "run's load, PASS or FAIL, exit 1 if any fails");
  verify
      ->add_option("RESULT", p.verify_results,
                   "the tools' own result files (vllm bench serve --save-result, sglang "
                   "bench_serving --output-file, trtllm-bench --report_json, llama-bench -o "
                   "json|jsonl)")
      ->required()
      ->type_name("RESULT.json");
  verify->add_option("--plan", p.verify_plan, "the plan file the machine was bought on (check's)")
      ->required()
      ->type_name("PLAN.json");
  verify->add_option("--name", p.verify_name, "the plan's name, when the file holds several")
      ->type_name("NAME");
  verify->add_option("-f,--format", o.format, "output: table or json")->capture_default_str();
  verify->add_option("--junit", p.junit, "also write a JUnit XML report (CI systems display it)")
      ->type_name("FILE");
  add_catalog_option(*verify, o);
  verify->callback([&o] { o.command = "verify"; });
}

}  // namespace

void setup_planning(CLI::App& app, Options& o) {
  PlanningOptions& p = o.planning;
  p.app = &app;
  app.add_option("--plot", p.plot,
                 "also draw the memory breakdown against the GPUs' capacity as an SVG file")
      ->type_name("FILE.svg");

  auto* check = app.add_subcommand("check",
                                   "validate planned deployments for CI: PASS or FAIL per plan "
                                   "with the reason, exit 1 if any fails");
  check->add_option("PLAN", p.plan_files, "plan files (JSON; format: docs/plan.schema.json)")
      ->required()
      ->type_name("PLAN.json");
  check->add_option("-f,--format", o.format, "output: table or json")->capture_default_str();
  check->add_option("--junit", p.junit, "also write a JUnit XML report (CI systems display it)")
      ->type_name("FILE");
  add_catalog_option(*check, o);
  check->add_flag("--strict", p.strict,
                  "fail plans that fit only tight (below the headroom rule, inside the engine's "
                  "margins); by default they pass with a note");
  check->callback([&o] { o.command = "check"; });

  add_verify(app, o);

  auto* fit = app.add_subcommand("fit",
                                 "which catalog models and quantizations fit the GPUs, best "
                                 "quality first, with the largest context each holds");
  fit->add_option("-g,--gpu", o.gpu, "GPU from the catalog (llmsize gpus)")
      ->required()
      ->type_name("NAME");
  fit->add_option("-n,--gpus", o.gpus, "how many of them (default 1)")
      ->check(integer_from(1, kMaxGpus))
      ->type_name("N");
  add_ctx_option(*fit, "-c,--ctx", o, "context each must hold, tokens")->type_name("N");
  fit->add_option(
         "--quants", p.fit_quants,
         "quantizations to try, comma-separated (default: f16,q8_0,q6_k,q5_k_m,q4_k_m,q3_k_m,q2_k)")
      ->delimiter(',')
      ->type_name("LIST");
  fit->add_flag("--all", p.fit_all,
                "list every quantization that fits, not only each model's best");
  fit->add_option("-f,--format", o.format, "output: table, json or csv")->capture_default_str();
  add_catalog_option(*fit, o);
  fit->fallthrough();  // the main command's memory options (--engine, --kv-quant, --batch, ...)
                       // apply
  fit->callback([&o] { o.command = "fit"; });

  auto* sweep = app.add_subcommand("sweep",
                                   "every combination of models, quantizations, contexts, GPUs and "
                                   "counts, one CSV or JSON Lines row each");
  sweep
      ->add_option("--models", p.models,
                   "models, comma-separated (ids, sizes or config.json paths)")
      ->delimiter(',')
      ->required()
      ->type_name("LIST");
  sweep->add_option("-q,--quants", p.quants, "quantizations, comma-separated (default: --quant)")
      ->delimiter(',')
      ->type_name("LIST");
  sweep->add_option("-c,--ctx", p.ctxs, "contexts, comma-separated (default 4096)")
      ->delimiter(',')
      ->type_name("LIST");
  sweep->add_option("-g,--gpu", p.gpu_list, "GPUs, comma-separated")
      ->delimiter(',')
      ->required()
      ->type_name("LIST");
  sweep->add_option("-n,--gpus", p.counts, "GPU counts, comma-separated (default 1)")
      ->delimiter(',')
      ->type_name("LIST");
  sweep->add_flag("--only-fits", p.only_fits, "only the configurations whose GPUs hold the model");
  sweep->add_option("--max-rows", p.max_rows, "refuse sweeps of more configurations than this")
      ->capture_default_str()
      ->type_name("N");
  sweep->add_option("-f,--format", p.sweep_format, "output: csv or jsonl (JSON Lines)")
      ->capture_default_str();
  sweep
      ->add_option("--plot", p.plot,
                   "also draw VRAM against context per quantization, with the GPUs' capacity, as "
                   "an SVG file")
      ->type_name("FILE.svg");
  sweep
      ->add_flag("--verify", p.verify,
                 "check every row against the main command's computation (slow; for tests)")
      ->group("");
  add_catalog_option(*sweep, o);
  sweep->fallthrough();  // the main command's options (--engine, --kv-quant, --batch, --price, ...)
                         // apply to every row
  sweep->callback([&o] { o.command = "sweep"; });

  auto* completions =
      app.add_subcommand("completions", "print a shell completion script: bash, zsh or fish")
          ->group("");
  completions->add_option("SHELL", p.shell, "bash, zsh or fish")->required();
  completions->callback([&o] { o.command = "completions"; });
  auto* man = app.add_subcommand("man", "print the man page (roff)")->group("");
  man->callback([&o] { o.command = "man"; });
  auto* fields =
      app.add_subcommand("fields", "print the JSON and CSV fields as a Markdown table (README)")
          ->group("");
  fields->callback([&o] { o.command = "fields"; });
}

}  // namespace llmsize::cli
