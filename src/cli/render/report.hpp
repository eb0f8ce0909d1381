// Rendering of results: table, JSON, CSV, Markdown. Formatting lives here and nowhere else.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/render/report_data.hpp"
#include "llmsize/io/catalog.hpp"

namespace llmsize::cli {

// A titled block of the answer: label and value lines that the table, Markdown and HTML print
// alike, so every format shows the same figures.
struct Block {
  std::string title;
  std::vector<std::pair<std::string, std::string>> rows;
};
// The speed of the plan: a serving deployment and its step model's speed, else the single box's
// (llama.cpp), else an encoder's documents per second; empty without a GPU.
std::vector<Block> speed_blocks(const Report& r);
// The reported cost (the machine's BOM, else the class rules), per token over the aggregate
// speed_blocks() prints; empty when the plan has no cost.
std::optional<Block> cost_block(const Report& r);
// The answer in a few lines, first in the table, Markdown and HTML (#21): the GPUs and machines
// bought, the speed the users get, what it costs and draws, and the fit; every figure one the
// sections show. Empty for a fine-tuning plan (its memory is the answer) or without a GPU.
std::vector<std::string> answer_lines(const Report& r);
// speed_blocks() then cost_block(): what Markdown and HTML print of the answer.
std::vector<Block> answer_blocks(const Report& r);
// "\nTitle\n" and a line "  label           value" per row (the table's layout).
std::string table_block(const Block& b);

// Columns a text takes on a terminal: its UTF-8 code points.
size_t display_width(std::string_view s);
// `text` as lines of at most `width` columns, broken at spaces (only those after `after`, such as
// ',', when given); a piece longer than the width keeps a line of its own.
std::vector<std::string> column_lines(std::string_view text, size_t width, char after = 0);
// The table, its lines wrapped at `width` columns (0: not wrapped).
std::string render_table(const Report& r, size_t width = 120);
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
