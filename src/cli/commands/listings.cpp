#include "cli/commands/listings.hpp"

#include "cli/options/request.hpp"
#include "cli/render/platform_listing.hpp"
#include "cli/render/report.hpp"
#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/quant.hpp"

namespace llmsize::cli {

std::string run_listing(const Options& o) {
  check_choice("--format", o.format, {"table", "json", "csv"});
  // Read for quants too: its --catalog files are checked, not silently ignored.
  const Catalog cat = load_catalog(o.catalogs);
  if (o.command == "platforms") return render_platforms(cat.platforms(), o.format);
  if (o.command == "quants") {
    std::vector<QuantListing> presets;
    for (const auto& p : all_quant_presets()) presets.push_back({&p, reference_bits_per_weight(p)});
    return render_quants(presets, o.format);
  }
  if (o.command != "models") return render_gpus(cat, o.format);
  std::vector<ModelListing> models;
  for (const auto& cm : cat.models()) {
    const ModelParams p = model_params(cm.spec);
    models.push_back({&cm, p.params, p.active_params});
  }
  return render_models(models, o.format);
}

}  // namespace llmsize::cli
