// A generic dense architecture of a given size, for size shorthands the catalog has no reference
// model for ("13b" without a catalog 13B): Llama-3 proportions, stated as an assumption.
#pragma once

#include "llmsize/model/model_spec.hpp"

namespace llmsize {

// A generic dense Llama-3-like architecture of about `params` parameters. REQUIRES: params > 0.
ModelSpec generic_dense_model(double params);

}  // namespace llmsize
