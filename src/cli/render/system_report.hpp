// The machine of a plan in words: the three-level fit verdict, the platform and why, host, PSUs,
// maximum and typical power, circuits, racks, cold start, and the BOM lines; as table sections,
// the BOM as CSV (--format bom-csv), and a self-contained HTML procurement report (--format html).
#pragma once

#include <string>

#include "cli/render/report_data.hpp"

namespace llmsize::cli {

// "fits with 64% headroom (the 20% rule holds)", "fits tight with 3.0% headroom, below the 20%
// rule", "does not fit: 12.0% short"; "" without a verdict.
std::string fit_words(const Plan& p);

// The table's sections for the machine ("" when the plan has no system plan).
// `width`: the table's columns (0: no limit, the 120 a terminal keeps).
std::string render_system_table(const Report& r, size_t width = 120);

// One row per BOM line: component, part, spec, qty, unit_price_usd, price_source, included_in,
// why. A header only when the plan has no machine.
std::string render_bom_csv(const Report& r);

// A self-contained HTML document (inline CSS and SVG, no scripts, no external references).
std::string render_html(const Report& r);

}  // namespace llmsize::cli
