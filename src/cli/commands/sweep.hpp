// llmsize sweep: the Cartesian product of models x quantizations x contexts x GPUs x GPU counts,
// one row per configuration with the main command's CSV columns (fields.hpp), streamed as CSV or
// JSON Lines.
//
// Every row is a Planner plan (plan.hpp): per model x quantization the model is resolved and the
// weights computed once, per context x GPU count the estimate once, host and power plans are
// cached; per row only the fit, speed and cost arithmetic runs, and the row is written from the
// field table into one buffer. --verify (hidden, for tests) also makes every row with plan() and
// fails on any difference.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli/options/options.hpp"
#include "cli/render/plot.hpp"
#include "cli/render/row_writer.hpp"

namespace llmsize {
class Catalog;
}

namespace llmsize::cli {

class Sweep {
 public:
  // Validates the lists and every flag (InputError naming the flag), resolves each model, quant
  // and GPU once. Nothing is computed per row yet.
  Sweep(const Options& o, const Catalog& catalog);
  ~Sweep();
  Sweep(const Sweep&) = delete;
  Sweep& operator=(const Sweep&) = delete;

  // Configurations in the product (before --only-fits).
  uint64_t size() const;
  // Writes the header and every row to `sink` in chunks of about `chunk_bytes`.
  // Returns the rows written (after --only-fits).
  uint64_t run(const std::function<void(std::string_view)>& sink, size_t chunk_bytes = 1 << 20);

  // Computes every row without writing it (the benchmark's "configurations computed"); returns
  // how many fit, so the work cannot be optimised away.
  uint64_t compute_only();

  // The header line (CSV; empty for JSON Lines).
  std::string header() const;
  // Row `index` in [0, size()) (model, quant, context, GPU, count nested in that order) from the
  // Planner, and from plan() of the same request, written by the same writer. Equal, or the
  // Planner has a bug.
  std::string fast_row(uint64_t index);
  std::string slow_row(uint64_t index) const;

  // Data for --plot, filled by run().
  const SweepPlotData& plot_data() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs `llmsize sweep`: streams rows to stdout as they are made; writes --plot.
void run_sweep(const Options& o);

}  // namespace llmsize::cli
