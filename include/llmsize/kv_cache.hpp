// KV cache size as llama.cpp allocates it (src/llama-kv-cache.cpp, llama-kv-cache-iswa.cpp).
#pragma once

#include <cstdint>

#include "llmsize/checked.hpp"
#include "llmsize/model_spec.hpp"
#include "llmsize/tensor_type.hpp"

namespace llmsize {

// llama.cpp pads the context to 256 cells (llama-context.cpp: GGML_PAD(n_ctx, 256) since PR
// #17046; older builds used 256 with flash attention and 32 without).
constexpr uint32_t kKvPadding = 256;

struct KvCacheConfig {
  uint32_t n_ctx = 4096;    // context per sequence, in tokens
  uint32_t n_seq = 1;       // concurrent sequences, each with its own stream of cells
  uint32_t n_ubatch = 512;  // micro-batch: the SWA cache keeps n_swa + n_ubatch cells
  TensorType type_k = TensorType::F16;
  TensorType type_v = TensorType::F16;
  uint32_t padding =
      kKvPadding;  // cell granularity: 256 (llama.cpp), 16 (vLLM block), 1 (transformers)
};

struct KvCache {
  uint64_t cells_full = 0;  // cells per sequence in full-attention layers (padded n_ctx)
  uint64_t cells_swa = 0;   // cells per sequence in sliding-window layers
  uint32_t n_layer_full = 0;
  uint32_t n_layer_swa = 0;
  uint64_t k_bytes_per_cell_layer = 0;  // ggml_row_size(type_k, n_embd_k_gqa)
  uint64_t v_bytes_per_cell_layer = 0;  // ggml_row_size(type_v, n_embd_v_gqa)
  uint64_t k_bytes = 0;
  uint64_t v_bytes = 0;
  uint64_t total_bytes() const { return checked_add(k_bytes, v_bytes, "KV cache bytes (K + V)"); }
};

// REQUIRES: validate(m) is empty; n_ctx, n_seq, n_ubatch > 0.
KvCache kv_cache(const ModelSpec& m, const KvCacheConfig& c);

}  // namespace llmsize
