#include "cli/commands/verify.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands/check.hpp"
#include "cli/options/request.hpp"
#include "cli/render/plot.hpp"
#include "cli/render/verify_report.hpp"
#include "llmsize/io/bench_result.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/plan/acceptance.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/serving/launch.hpp"

namespace llmsize::cli {

int run_verify(const Options& o, std::string& out) {
  const PlanningOptions& p = o.planning;
  if (o.format != "table" && o.format != "json")
    throw InputError("--format: expected table or json, got '" + o.format + "'");
  const Catalog cat = load_catalog(o.catalogs);
  // The plan: the one of the file, or the one named (a first reading checks the choice).
  std::vector<std::string> names;
  size_t matches = 0;
  each_file_plan(p.verify_plan, cat,
                 [&](const std::string& name, const std::string&, const ResolvedRequest&) {
                   names.push_back(name);
                   matches += p.verify_name.empty() || name == p.verify_name;
                 });
  if (!p.verify_name.empty() && matches == 0)
    throw InputError("--name " + p.verify_name + ": no plan of " + p.verify_plan +
                     " has that name (" + or_list(names) + ")");
  if (!p.verify_name.empty() && matches > 1)
    throw InputError(p.verify_plan + ": " + std::to_string(matches) + " plans are named \"" +
                     p.verify_name + "\"; name them apart to verify one");
  if (p.verify_name.empty() && names.size() > 1)
    throw InputError(p.verify_plan + ": holds " + std::to_string(names.size()) +
                     " plans: name the one the machine was bought on with --name (" +
                     or_list(names) + ")");
  // Every result file read before anything is planned: a bad one is reported, nothing else.
  std::vector<BenchRun> runs;
  for (const auto& f : p.verify_results)
    for (auto& r : io::read_bench_results(f)) runs.push_back(std::move(r));
  // Planned and held to the runs while the plan's request is alive (it points into what the
  // reader resolved: its GPUs, priced platforms and draft).
  VerifyResult result;
  each_file_plan(p.verify_plan, cat,
                 [&](const std::string& name, const std::string& ptr, const ResolvedRequest& rq) {
                   if (!p.verify_name.empty() && name != p.verify_name) return;
                   result.plan = name + " (" + p.verify_plan + "#" + ptr + ")";
                   const Plan planned = plan(rq.request);
                   for (const auto& r : runs)
                     result.runs.push_back(verify_run(rq.request, planned, r));
                 });
  if (!p.junit.empty()) write_text_file("--junit", p.junit, render_verify_junit(result));
  out = o.format == "json" ? render_verify_json(result) : render_verify_table(result);
  return result.pass() ? 0 : 1;
}

namespace {

BenchTool bench_tool_of(Engine e) {
  switch (e) {
    case Engine::sglang:
      return BenchTool::sglang_serving;
    case Engine::trt_llm:
      return BenchTool::trtllm_bench;
    case Engine::llama_cpp:
    case Engine::ollama:
      return BenchTool::llama_bench;
    case Engine::vllm:
    case Engine::transformers:  // a vLLM server of the same checkpoint (launch_script's)
      break;
  }
  return BenchTool::vllm_serve;
}

const char* engine_words(BenchTool t) {
  switch (t) {
    case BenchTool::sglang_serving:
      return "SGLang";
    case BenchTool::trtllm_bench:
      return "TensorRT-LLM";
    case BenchTool::llama_bench:
      return "llama.cpp";
    case BenchTool::vllm_serve:
      break;
  }
  return "vLLM";
}

// The plan file of the replica benchmarked: the fields that set its deployment and load.
std::string plan_file_text(const Options& o, const PlanRequest& q, const Plan& p, Engine engine) {
  nlohmann::ordered_json plan;
  plan["name"] = "acceptance";
  plan["model"] = o.model;
  plan["quant"] = q.config.quant->id;
  plan["engine"] = engine_profile(engine).name;
  plan["gpu"] = p.gpu->gpu.id;
  plan["gpus"] = p.gpu->count;
  if (o.ctx_given) plan["context"] = o.ctx;
  if (o.kv_quant != "f16") plan["kv_quant"] = o.kv_quant;
  // llama-bench runs one sequence: a llama.cpp plan's slots are not its load.
  if (p.serving && engine_profile(engine).memory_rule != MemoryRule::fixed_slots) {
    const Deployment& d = p.serving->deployment;
    if (engine_profile(engine).default_split == SplitMode::tensor && p.gpu->count > 1) {
      if (d.attention_dp)
        plan["ep"] = d.tp;
      else
        plan["tp"] = d.tp;
      if (d.pp > 1) plan["pp"] = d.pp;
    }
    const Workload& w = p.serving->workload;
    plan["users"] = std::max<uint32_t>(1, w.users);
    plan["isl"] = w.isl;
    plan["osl"] = w.osl;
    plan["requests_per_user"] = w.requests_per_user;
  }
  return nlohmann::ordered_json{{"plans", {plan}}}.dump(2) + "\n";
}

}  // namespace

std::string emit_acceptance(const Options& o, const Catalog& cat) {
  ResolvedRequest rq;
  resolve_request(o, cat, rq);
  const Plan whole = plan(rq.request);
  if (!whole.gpu || !whole.gpu->fits)
    throw InputError(
        "--emit acceptance: the plan's GPUs do not hold the model: nothing to "
        "benchmark");
  if (whole.serving && whole.serving->deployment.disaggregated())
    throw InputError(
        "--emit acceptance: a disaggregated deployment is benchmarked behind its "
        "router, which this test does not run; plan it aggregated");
  const Engine engine = whole.serving ? whole.serving->deployment.engine : rq.request.config.engine;
  const PlanRequest one = one_replica_request(rq.request, whole);
  const Plan p = plan(one);
  if (!p.gpu || (p.serving && !p.serving->estimate.fits))
    throw InputError("--emit acceptance: one replica does not hold its share of the load");
  AcceptanceScript s;
  s.tool = bench_tool_of(engine);
  s.engine = engine_words(s.tool);
  const bool slots = s.tool == BenchTool::llama_bench;
  s.model = whole.serving ? whole.serving->launch.model : std::string();
  if (s.model.empty())
    throw InputError("--emit acceptance: " + sanitize_quoted(o.model) +
                     " is a generic size, not a checkpoint a benchmark can load; name a catalog "
                     "model (llmsize models) or pass its file");
  if (const std::string why = launch_value_problem(s.model, engine); !why.empty())
    throw InputError("--emit acceptance: the model " + sanitize_quoted(s.model, 256) + " " + why +
                     "; rename it");
  const uint32_t replicas = whole.serving ? whole.serving->deployment.replicas : 1;
  if (p.serving && !slots) {
    const Deployment& d = p.serving->deployment;
    const Workload& w = p.serving->workload;
    s.port = p.serving->launch.port;
    s.users = std::max<uint32_t>(1, w.users);
    s.isl = w.isl;
    s.osl = w.osl;
    s.requests = s.users * std::max<uint32_t>(1, w.requests_per_user);
    s.tp = d.tp;
    s.pp = d.pp;
    s.what = fmt::format(
        "{} under {}, {} of TP {} x PP {} ({} x {}), {}: {} user{}, {} tokens in / {} out, {} "
        "request{} each",
        s.model, s.engine, replicas > 1 ? "one replica" : "the replica", d.tp, d.pp, p.gpu->count,
        p.gpu->gpu.id,
        replicas > 1 ? fmt::format("of the {} the plan runs, at its share of the load", replicas)
                     : std::string("at the plan's load"),
        s.users, s.users == 1 ? "" : "s", s.isl, s.osl, std::max<uint32_t>(1, w.requests_per_user),
        w.requests_per_user > 1 ? "s" : "");
  } else {
    s.prompt = std::max<uint32_t>(1, p.speed_input.prompt_tokens);
    s.gen = 128;
    s.depth = p.speed_input.n_ctx > s.gen / 2 ? p.speed_input.n_ctx - s.gen / 2 : 0;
    if (o.kv_quant != "f16") s.cache_type = o.kv_quant;
    s.what = fmt::format(
        "{} under llama.cpp on {} x {}: a prompt of {} tokens, then {} tokens "
        "generated at a context of {}",
        s.model, p.gpu->count, p.gpu->gpu.id, s.prompt, s.gen, p.speed_input.n_ctx);
  }
  s.plan_json = plan_file_text(o, one, p, engine);
  for (const BenchRun& r : planned_runs(p, s.tool, s.prompt, s.gen, s.depth)) {
    const AcceptanceVerdict v = verify_run(one, p, r);
    for (const auto& f : v.figures) s.predicted.push_back(f);
  }
  return render_acceptance_script(s);
}

}  // namespace llmsize::cli
