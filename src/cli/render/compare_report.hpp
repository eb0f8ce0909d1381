// --compare's table: one row per system (units, memory, fit, speed, price, idle/typical/max
// power, energy), from the library's comparisons; nothing is computed here.
#pragma once

#include <string>
#include <vector>

#include "cli/render/report_data.hpp"
#include "llmsize/plan/compare.hpp"

namespace llmsize::cli {

// REQUIRES: v non-empty; `first` is the report of v.front() (model, quant, context).
std::string render_compare_table(const std::vector<Comparison>& v, const Report& first);

}  // namespace llmsize::cli
