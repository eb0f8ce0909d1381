#include "cli/commands/verify.hpp"

#include <optional>

#include "cli/commands/check.hpp"
#include "cli/options/request.hpp"
#include "cli/render/plot.hpp"
#include "cli/render/verify_report.hpp"
#include "llmsize/io/bench_result.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/plan/acceptance.hpp"

namespace llmsize::cli {

int run_verify(const Options& o, std::string& out) {
  const PlanningOptions& p = o.planning;
  if (o.format != "table" && o.format != "json")
    throw InputError("--format: expected table or json, got '" + o.format + "'");
  const Catalog cat = load_catalog(o.catalogs);
  // The plan: the one of the file, or the one named.
  std::optional<PlanRequest> request;
  std::string chosen;
  std::vector<std::string> names;
  each_file_plan(p.verify_plan, cat,
                 [&](const std::string& name, const std::string& ptr, const ResolvedRequest& rq) {
                   names.push_back(name);
                   if (!p.verify_name.empty() && name != p.verify_name) return;
                   if (request && !p.verify_name.empty())
                     throw InputError(p.verify_plan + ": two plans are named \"" + name +
                                      "\"; name them apart to verify one");
                   request = rq.request;
                   chosen = name + " (" + p.verify_plan + "#" + ptr + ")";
                 });
  if (!p.verify_name.empty() && !request)
    throw InputError("--name " + p.verify_name + ": no plan of " + p.verify_plan +
                     " has that name (" + or_list(names) + ")");
  if (p.verify_name.empty() && names.size() > 1)
    throw InputError(p.verify_plan + ": holds " + std::to_string(names.size()) +
                     " plans: name the one the machine was bought on with --name (" +
                     or_list(names) + ")");
  // Every result file read before anything is planned: a bad one is reported, nothing else.
  std::vector<BenchRun> runs;
  for (const auto& f : p.verify_results)
    for (auto& r : io::read_bench_results(f)) runs.push_back(std::move(r));
  const Plan planned = plan(*request);
  VerifyResult result;
  result.plan = chosen;
  for (const auto& r : runs) result.runs.push_back(verify_run(*request, planned, r));
  if (!p.junit.empty()) write_text_file("--junit", p.junit, render_verify_junit(result));
  out = o.format == "json" ? render_verify_json(result) : render_verify_table(result);
  return result.pass() ? 0 : 1;
}

}  // namespace llmsize::cli
