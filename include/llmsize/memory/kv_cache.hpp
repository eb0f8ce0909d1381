// KV cache size as llama.cpp allocates it (src/llama-kv-cache.cpp, llama-kv-cache-iswa.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "llmsize/checked.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/model/model_spec.hpp"
#include "llmsize/model/tensor_type.hpp"

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
  // llama.cpp without flash attention stores V transposed, each layer's V row padded to the
  // model's widest (llama-kv-cache.cpp TAG_V_CACHE_VARIABLE); only llama.cpp engines set false.
  bool flash_attn = true;
  // One stream of n_seq x n_ctx cells that every sequence shares (llama.cpp's unified KV cache:
  // Ollama's, llama-server's --kv-unified), instead of a stream per sequence.
  bool unified = false;
};

// The cache of the layers of one kind (full, SWA, chunked, MLA) with the same cells and rows.
// Indexer parts are the DSA lightning indexer's key cache beside an MLA cache (indexer = true).
struct KvPart {
  AttnKind attn = AttnKind::full;
  bool indexer = false;
  uint64_t n_layer = 0;
  uint64_t cells = 0;           // per sequence
  uint32_t n_head_kv = 0;       // 1 for MLA and the indexer
  uint32_t n_embd_k = 0;        // elements per cell per layer (n_embd_k_gqa(il))
  uint32_t n_embd_v = 0;        // 0: no V tensor (MLA, indexer)
  uint32_t n_swa = 0;           // window or chunk (swa, chunked)
  uint32_t compress_ratio = 0;  // DeepSeek-V4 compressed cache: cells = n_ctx / ratio
  uint64_t k_row_bytes = 0;     // ggml_row_size(type_k, n_embd_k)
  uint64_t v_row_bytes = 0;
  uint64_t bytes = 0;  // n_seq x cells x n_layer x (K row + V row)
  // Elements per KV head of a cell's K and V rows (0 when there is no head).
  uint32_t head_dim_k() const { return n_head_kv ? n_embd_k / n_head_kv : 0; }
  uint32_t head_dim_v() const { return n_head_kv ? n_embd_v / n_head_kv : 0; }
};

struct KvCache {
  uint64_t cells_full = 0;  // cells per stream in full-attention layers (padded n_ctx)
  uint64_t cells_swa = 0;   // cells per stream in sliding-window layers
  uint32_t n_stream = 1;    // streams: one per sequence, or one shared (KvCacheConfig::unified)
  uint32_t n_layer_full = 0;
  uint32_t n_layer_swa = 0;
  uint64_t k_bytes_per_cell_layer = 0;  // ggml_row_size(type_k, n_embd_k_gqa)
  uint64_t v_bytes_per_cell_layer = 0;  // ggml_row_size(type_v, n_embd_v_gqa)
  // K + V of one cell in one layer.
  uint64_t bytes_per_cell_layer() const {
    return checked_add(k_bytes_per_cell_layer, v_bytes_per_cell_layer, "KV bytes per cell");
  }
  uint64_t k_bytes = 0;
  uint64_t v_bytes = 0;
  std::vector<KvPart> parts;  // by layer kind, in order of first appearance
  uint64_t total_bytes() const { return checked_add(k_bytes, v_bytes, "KV cache bytes (K + V)"); }
  // Bytes of the parts of one attention kind (the indexer counted apart).
  uint64_t bytes_of(AttnKind a, bool indexer = false) const;
};

// A K or V cache row the KV type cannot store: a quantized type holds whole blocks of block_size
// elements (ggml_row_size requires ne % blck_size == 0), so each row (n_head_kv x head size, for
// every per-layer KV head count; MLA: the latent width) must be a multiple of it.
struct KvRowMismatch {
  bool v = false;  // the V row; false: the K row
  TensorType type = TensorType::F16;
  uint64_t row = 0;  // elements
  bool mla = false;  // the MLA latent row (no heads)
  uint32_t n_head_kv = 0, head_dim = 0;
};
// The first row of m that type_k (then type_v) cannot store; nullopt when every row fits.
std::optional<KvRowMismatch> kv_row_mismatch(const ModelSpec& m, TensorType type_k,
                                             TensorType type_v);

// Computed once per distinct layer kind and multiplied by its layer count (layers.hpp).
// Layers without attention (recurrent, FFN-only) and layers that share an earlier layer's KV
// (Gemma 3n/4 E-models, llama.cpp hparams.has_kv(il)) hold no cache.
// REQUIRES: validate(m) is empty; n_ctx, n_seq, n_ubatch > 0.
KvCache kv_cache(const ModelSpec& m, const KvCacheConfig& c);
// The same with m's layer_groups() already made (an estimate makes them once for every part).
KvCache kv_cache(const ModelSpec& m, const KvCacheConfig& c, const std::vector<LayerGroup>& groups);

}  // namespace llmsize
