// llmsize models | gpus | quants | platforms: the catalogs and the quantization presets, listed.
#pragma once

#include <string>

#include "cli/options/options.hpp"

namespace llmsize::cli {

// o.command is models, gpus, quants or platforms; table, json or csv.
std::string run_listing(const Options& o);

}  // namespace llmsize::cli
