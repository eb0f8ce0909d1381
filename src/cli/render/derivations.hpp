// --explain's memory lines: each part of the estimate as a formula with its inputs put in.
#pragma once

#include <string>
#include <vector>

#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/model_spec.hpp"

namespace llmsize::cli {

// One formula with its inputs put in.
struct Derivation {
  std::string quantity;
  std::string formula;
  std::string result;
};

// The weights, KV cache, recurrent state, compute buffer, overhead, headroom and total of `e`,
// the estimate of model m under c (c.n_gpus the GPUs it was made for, as Plan::config holds it).
std::vector<Derivation> derivations(const Estimate& e, const ModelSpec& m, const RunConfig& c);

}  // namespace llmsize::cli
