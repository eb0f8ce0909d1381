#include "cli/commands/listings.hpp"

#include "cli/options/request.hpp"
#include "cli/render/report.hpp"

namespace llmsize::cli {

std::string run_listing(const Options& o) {
  check_choice("--format", o.format, {"table", "json", "csv"});
  if (o.command == "quants") return render_quants(o.format);
  const Catalog cat = load_catalog(o.catalogs);
  return o.command == "models" ? render_models(cat, o.format) : render_gpus(cat, o.format);
}

}  // namespace llmsize::cli
