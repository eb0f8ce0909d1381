// Rendering of results: table, JSON, CSV, Markdown. Formatting lives here and nowhere else.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/resolve.hpp"
#include "llmsize/capacity.hpp"
#include "llmsize/cost.hpp"
#include "llmsize/estimate.hpp"
#include "llmsize/finetune.hpp"
#include "llmsize/gpu_plan.hpp"
#include "llmsize/host.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/plan.hpp"
#include "llmsize/power.hpp"
#include "llmsize/speed.hpp"

namespace llmsize::cli {

// A plan with what it was made from, for the renderers.
struct Report : Plan {
  ResolvedModel model;
  const QuantPreset* quant = nullptr;  // the preset used
  std::string quant_requested;         // as typed
  std::string quant_ignored;           // --quant text a weights file's own type replaced
  std::vector<std::string> checklist;  // worded (words.hpp)
  std::vector<std::string> warnings;
  bool explain = false;
};

// One CSV cell: quoted (quotes doubled) when it holds a comma, a quote or a newline.
std::string csv_cell(const std::string& s);

std::string render_table(const Report& r);
// The "How each figure is computed" section of the table (--explain); src/cli/explain.cpp.
std::string render_explain(const Report& r);
std::string render_markdown(const Report& r);
std::string render_json(const Report& r);
std::string render_csv(const Report& r);

std::string render_models(const Catalog& c, const std::string& format);
std::string render_gpus(const Catalog& c, const std::string& format);
std::string render_quants(const std::string& format);

}  // namespace llmsize::cli
