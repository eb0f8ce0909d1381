// Pictures as self-contained SVG, drawn here (no plotting library): the main command's memory
// breakdown against the GPUs' capacity, and a sweep's VRAM against context per quantization.
#pragma once

#include <string>

namespace llmsize::cli {

struct Report;
struct SweepPlotData;

// A stacked bar of the estimate (weights, KV cache, compute buffers, overhead, headroom) beside
// the capacity of the report's GPUs (count x usable memory, one tick per GPU).
std::string memory_svg(const Report& r);

// Total VRAM against context length (log scale), one line per model x quantization, with a
// horizontal line for each GPU count's capacity.
std::string sweep_svg(const SweepPlotData& d);

// Writes `text` to `path`; InputError naming `flag` and the path when it cannot.
void write_text_file(const std::string& flag, const std::string& path, const std::string& text);

// --plot FILE for the main command.
void write_memory_plot(const std::string& path, const Report& r);

// Escapes &, <, >, " and ' for XML text and attributes (SVG, JUnit reports).
std::string xml_escape(const std::string& s);

}  // namespace llmsize::cli
