#include "llmsize/kv_cache.hpp"

#include <algorithm>

#include "llmsize/units.hpp"

namespace llmsize {

KvCache kv_cache(const ModelSpec& m, const KvCacheConfig& c) {
  KvCache r;
  // Non-unified cache: each sequence is a stream of GGML_PAD(n_ctx_seq, 256) cells.
  r.cells_full = pad_to(c.n_ctx, c.padding);
  // iSWA cache: size_swa = GGML_PAD(min(size_base, n_swa + n_ubatch), 256) per stream
  // (llama-kv-cache-iswa.cpp, with swa_full = false as llama-cli/llama-server set it).
  if (m.n_swa > 0)
    r.cells_swa =
        pad_to(std::min<uint64_t>(r.cells_full, uint64_t{m.n_swa} + c.n_ubatch), c.padding);
  for (uint32_t il = 0; il < m.n_layer; ++il)
    (m.is_swa_layer(il) ? r.n_layer_swa : r.n_layer_full)++;

  r.k_bytes_per_cell_layer = row_size(c.type_k, m.n_embd_k_gqa());
  r.v_bytes_per_cell_layer = m.n_embd_v_gqa() ? row_size(c.type_v, m.n_embd_v_gqa()) : 0;
  // Bytes = cells x layers x row bytes, summed over the full and the windowed layers, x streams.
  const uint64_t cell_layers = checked_add(checked_mul(r.cells_full, r.n_layer_full),
                                           checked_mul(r.cells_swa, r.n_layer_swa));
  r.k_bytes = checked_mul(checked_mul(cell_layers, r.k_bytes_per_cell_layer), c.n_seq);
  r.v_bytes = checked_mul(checked_mul(cell_layers, r.v_bytes_per_cell_layer), c.n_seq);
  if (!m.n_head_kv_per_layer.empty() && !m.is_mla()) {
    // KV heads vary by layer: sum cells(il) x row_size(type, n_head_kv(il) x head size) layer by
    // layer (llama-kv-cache.cpp sizes each layer with n_embd_k_gqa(il)); the per-cell figures
    // above stay those of the widest layer.
    uint64_t k = 0, v = 0;
    for (uint32_t il = 0; il < m.n_layer && il < m.n_head_kv_per_layer.size(); ++il) {
      const uint64_t cells = m.is_swa_layer(il) ? r.cells_swa : r.cells_full;
      const uint64_t heads = m.n_head_kv_per_layer[il];
      k = checked_add(k, checked_mul(cells, row_size(c.type_k, heads * m.n_embd_head_k)));
      v = checked_add(v, checked_mul(cells, row_size(c.type_v, heads * m.n_embd_head_v)));
    }
    r.k_bytes = checked_mul(k, c.n_seq);
    r.v_bytes = checked_mul(v, c.n_seq);
  }
  return r;
}

}  // namespace llmsize
