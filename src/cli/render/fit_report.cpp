#include "cli/render/fit_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/render/row_writer.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
using ojson = nlohmann::ordered_json;

std::string render_fit(const FitResult& r, const std::string& format) {
  if (format == "json" || format == "csv") {
    ojson arr = ojson::array();
    for (const auto& f : r.fits)
      arr.push_back(
          {{"model", f.model_id},
           {"name", f.model_name},
           {"params", f.params},
           {"quant", f.quant},
           {"bits_per_weight", std::round(f.bits_per_weight * 10000) / 10000},
           {"lossy", f.lossy},
           {"per_gpu_bytes", f.per_gpu_bytes},
           {"max_context", f.max_context},
           {"max_context_limited_by", f.max_context_is_trained ? "n_ctx_train" : "memory"}});
    if (format == "json") {
      ojson j = {{"schema_version", 1},
                 {"gpu",
                  {{"id", r.gpu_id},
                   {"name", r.gpu_name},
                   {"count", r.count},
                   {"usable_bytes_each", r.usable_bytes_each}}},
                 {"context", r.context},
                 {"engine", r.engine},
                 {"fits", arr},
                 {"left_out_short_context", r.short_context},
                 {"left_out_no_fit", r.no_fit}};
      return j.dump(2) + "\n";
    }
    std::string out =
        "model,name,params,quant,bits_per_weight,lossy,per_gpu_bytes,max_context,max_context_"
        "limited_by\n";
    for (const auto& x : arr) {
      std::string line;
      for (const auto& [k, v] : x.items())
        line += (line.empty() ? "" : ",") +
                (v.is_string() ? csv_text_cell(v.get<std::string>()) : v.dump());
      out += line + "\n";
    }
    return out;
  }
  std::string out = fmt::format(
      "Fits {} × {} ({:.1f} GiB usable each) at context {} under {} — best quality "
      "first\n\n",
      r.count, r.gpu_id, gib_of(r.usable_bytes_each), group_digits(r.context), r.engine);
  if (r.fits.empty()) {
    out += "  nothing in the catalog fits\n";
  } else {
    out += fmt::format("  {:<30} {:>9}  {:<8} {:>6}  {:>8}  {}\n", "model", "params", "quant",
                       "bits/w", "GiB/GPU", "max context");
    for (const auto& f : r.fits)
      out += fmt::format("  {:<30} {:>7.2f} B  {:<8} {:>6.2f}  {:>8.2f}  {}{}\n", f.model_id,
                         billions_of(f.params), f.quant, f.bits_per_weight, gib_of(f.per_gpu_bytes),
                         group_digits(f.max_context),
                         f.max_context_is_trained ? " (trained maximum)" : "");
  }
  out += fmt::format(
      "\nOrder: presets of {:.0f}+ bits per weight first (below that quality drops steeply), then "
      "more parameters, "
      "then more bits per weight.\nGiB/GPU at context {}, headroom included; max context: the "
      "largest that fits, exactly "
      "(KV padding, sliding windows), up to the model's trained context.\n",
      r.lossy_below_bpw, group_digits(r.context));
  if (!r.no_fit.empty())
    out += fmt::format("Too large at every quantization tried: {}\n", fmt::join(r.no_fit, ", "));
  if (!r.short_context.empty())
    out += fmt::format("Trained context below {}: {}\n", group_digits(r.context),
                       fmt::join(r.short_context, ", "));
  return out;
}

}  // namespace llmsize::cli
