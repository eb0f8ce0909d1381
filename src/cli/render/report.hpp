// Rendering of results: table, JSON, CSV, Markdown. Formatting lives here and nowhere else.
#pragma once

#include <string>

#include "cli/render/report_data.hpp"
#include "llmsize/io/catalog.hpp"

namespace llmsize::cli {

std::string render_table(const Report& r);
// The "How each figure is computed" section of the table (--explain); src/cli/render/explain.cpp.
std::string render_explain(const Report& r);
std::string render_markdown(const Report& r);
std::string render_json(const Report& r);
std::string render_csv(const Report& r);

std::string render_models(const Catalog& c, const std::string& format);
std::string render_gpus(const Catalog& c, const std::string& format);
std::string render_quants(const std::string& format);

}  // namespace llmsize::cli
