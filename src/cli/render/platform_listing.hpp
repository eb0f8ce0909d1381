// llmsize platforms: the platform catalog (data/platforms.json) listed, every fact as the catalog
// has it and what it lacks said to be unpublished.
#pragma once

#include <string>
#include <vector>

#include "llmsize/machine/platform.hpp"

namespace llmsize::cli {

// table, json or csv. REQUIRES: format is one of them.
std::string render_platforms(const std::vector<PlatformModel>& catalog, const std::string& format);

}  // namespace llmsize::cli
