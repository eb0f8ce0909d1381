#include "cli/commands/run.hpp"

#include "cli/commands/check.hpp"
#include "cli/commands/estimate.hpp"
#include "cli/commands/fit.hpp"
#include "cli/commands/inspect.hpp"
#include "cli/commands/listings.hpp"
#include "cli/commands/sweep.hpp"
#include "cli/commands/verify.hpp"
#include "cli/options/completions.hpp"
#include "cli/render/fields.hpp"
#include "llmsize/io/error.hpp"

namespace llmsize::cli {

int run(const Options& o, std::string& out) {
  const std::string& c = o.command;
  // --no-mtp changes the tensors of the one model estimated; the commands over many models and
  // over files do not carry it, so it is refused there rather than applied to one row.
  if (o.no_mtp && c != "estimate")
    throw InputError(
        "--no-mtp: applies to the estimate of one model (llmsize MODEL --no-mtp), "
        "not to llmsize " +
        c);
  // Where the experts live is a placement of one MoE model's tensors; fit and sweep go over models
  // that may have none, so it is refused there too.
  if (!o.draft.empty() && (c == "fit" || c == "sweep"))
    throw InputError(
        "--draft: a draft model beside one model's plan (llmsize MODEL --draft "
        "DRAFT), not beside every model llmsize " +
        c + " plans");
  if ((o.n_cpu_moe >= 0 || o.cpu_experts) && (c == "fit" || c == "sweep"))
    throw InputError(std::string(o.cpu_experts ? "--cpu-experts" : "--n-cpu-moe") +
                     ": places one mixture-of-experts model's experts (llmsize MODEL --n-cpu-moe "
                     "N), not those of every model llmsize " +
                     c + " plans");
  if (o.gpu_memory_limit_gib > 0 && c == "sweep")
    throw InputError(
        "--gpu-memory-limit: sets one unified-memory GPU's share (llmsize MODEL --gpu GPU "
        "--gpu-memory-limit GIB, or fit), not that of every GPU a sweep plans");
  if (c == "check") return run_check(o, out);
  if (c == "verify") return run_verify(o, out);
  if (c == "fit") {
    out = run_fit(o);
  } else if (c == "sweep") {
    run_sweep(o);
  } else if (c == "completions") {
    out = completion_script(*o.planning.app, o.planning.shell);
  } else if (c == "fields") {
    out = field_list_markdown();
  } else if (c == "man") {
    out = man_page(*o.planning.app);
  } else if (c == "models" || c == "gpus" || c == "quants" || c == "platforms") {
    out = run_listing(o);
  } else if (c == "inspect") {
    out = run_inspect(o.model, o.format);
  } else {
    out = run_estimate(o);
  }
  return 0;
}

}  // namespace llmsize::cli
