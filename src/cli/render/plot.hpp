// Pictures as self-contained SVG, drawn here (no plotting library): the main command's memory
// breakdown against the GPUs' capacity, and a sweep's VRAM against context per quantization.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llmsize::cli {

// A linear axis of a picture: values 0..top onto pixels px0..px1 (px1 < px0 for a y axis drawn
// upwards). It only places the plan's quantities (bytes, watts, GiB) on the page; none is computed.
struct Axis {
  double px0, px1, top;
  // An axis whose top is the largest value x `room` (1.08: 8% beyond it), or 1 without values.
  static Axis over(double px0, double px1, double largest, double room) {
    return {px0, px1, largest > 0 ? largest * room : 1.0};
  }
  double at(double v) const { return px0 + (px1 - px0) * v / top; }
  double length(double v) const { return (px1 - px0) * v / top; }
};

struct Report;

// A series of the sweep's picture: one model x quantization, total VRAM at the first GPU count.
struct SweepSeries {
  std::string label;                  // "llama-3.1-8b q4_k_m"
  std::vector<uint32_t> ctx;          // x, ascending as given
  std::vector<uint64_t> total_bytes;  // y
};
struct SweepCapacity {
  std::string label;          // "2 × rtx-4090"
  uint64_t usable_bytes = 0;  // count x usable per GPU
};
struct SweepPlotData {
  uint32_t n_gpus = 1;  // the series' GPU count (the first of --gpus)
  std::vector<SweepSeries> series;
  std::vector<SweepCapacity> capacity;
};

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
