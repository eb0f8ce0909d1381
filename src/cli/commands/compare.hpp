// --compare: unified-memory computers beside GPU towers for one model and context, side by side
// (table, JSON array of plan documents, CSV rows). The plans are the library's (compare.hpp);
// the table is render/compare_report.
#pragma once

#include <cstddef>
#include <string>

#include "cli/options/options.hpp"

namespace llmsize {
class Catalog;
}

namespace llmsize::cli {

// The most entries one --compare LIST may name: each is a whole plan, held and rendered side by
// side (about 100 KB apiece; 10,000 took 976 MB).
constexpr size_t kMaxCompareEntries = 64;

// REQUIRES: o.compare_given. Throws InputError naming --compare and the entry on a bad list.
std::string run_compare(const Options& o, const Catalog& cat);

}  // namespace llmsize::cli
