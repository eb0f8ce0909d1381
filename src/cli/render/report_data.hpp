// What every renderer reads: a plan with what it was made from and its words.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "llmsize/io/catalog.hpp"
#include "llmsize/io/resolve.hpp"
#include "llmsize/machine/cost.hpp"
#include "llmsize/machine/power.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/memory/finetune.hpp"
#include "llmsize/plan/capacity.hpp"
#include "llmsize/plan/gpu_plan.hpp"
#include "llmsize/plan/plan.hpp"
#include "llmsize/serving/speed.hpp"

namespace llmsize::cli {

// A plan with what it was made from, for the renderers.
struct Report : Plan {
  ResolvedModel model;
  const QuantPreset* quant = nullptr;  // the preset used
  std::string quant_requested;         // as typed
  std::string quant_ignored;           // --quant text a weights file's own type replaced
  std::vector<std::string> checklist;  // worded (words.hpp)
  std::vector<std::string> warnings;
  bool explain = false;
  // The request's own priced platforms (ResolvedRequest::platforms), which the plan's machine
  // points into, kept as long as the report.
  std::shared_ptr<const std::vector<PlatformModel>> platforms;
  std::shared_ptr<const DraftModel> draft;  // config.draft's owner (ResolvedRequest::draft)
};

}  // namespace llmsize::cli
