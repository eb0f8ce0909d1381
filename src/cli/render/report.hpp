// Rendering of results: table, JSON, CSV, Markdown. Formatting lives here and nowhere else.
#pragma once

#include <string>
#include <vector>

#include "cli/render/report_data.hpp"
#include "llmsize/io/catalog.hpp"

namespace llmsize::cli {

std::string render_table(const Report& r);
// The "How each figure is computed" section of the table (--explain); src/cli/render/explain.cpp.
std::string render_explain(const Report& r);
std::string render_markdown(const Report& r);
std::string render_json(const Report& r);
std::string render_csv(const Report& r);

// The listings. Models and presets come with the figures the listings command worked out:
// parameter counts (model_params) and bits per weight on the reference shape.
struct ModelListing {
  const CatalogModel* model = nullptr;
  uint64_t params = 0, active_params = 0;
};
struct QuantListing {
  const QuantPreset* preset = nullptr;
  double reference_bits_per_weight = 0;  // reference_bits_per_weight(*preset)
};
std::string render_models(const std::vector<ModelListing>& models, const std::string& format);
std::string render_gpus(const Catalog& c, const std::string& format);
std::string render_quants(const std::vector<QuantListing>& presets, const std::string& format);

}  // namespace llmsize::cli
