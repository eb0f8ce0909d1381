#include "cli/commands/listings.hpp"

#include "cli/options/request.hpp"
#include "cli/render/platform_listing.hpp"
#include "cli/render/report.hpp"
#include "llmsize/io/platform_catalog.hpp"

namespace llmsize::cli {

std::string run_listing(const Options& o) {
  check_choice("--format", o.format, {"table", "json", "csv"});
  if (o.command == "platforms") return render_platforms(builtin_platforms(), o.format);
  // Read for quants too: its --catalog files are checked, not silently ignored.
  const Catalog cat = load_catalog(o.catalogs);
  if (o.command == "quants") return render_quants(o.format);
  return o.command == "models" ? render_models(cat, o.format) : render_gpus(cat, o.format);
}

}  // namespace llmsize::cli
