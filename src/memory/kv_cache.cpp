#include "llmsize/memory/kv_cache.hpp"

#include <algorithm>

#include "llmsize/model/layers.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

uint64_t KvCache::bytes_of(AttnKind a, bool indexer) const {
  uint64_t b = 0;
  for (const auto& p : parts)
    if (p.attn == a && p.indexer == indexer) b = checked_add(b, p.bytes);
  return b;
}

// llama.cpp at commit 00395eb2: src/llama-kv-cache.cpp allocates per layer il with
// has_kv(il) a K tensor of n_embd_k_gqa(il) x kv_size x n_stream and, unless MLA, a V tensor of
// n_embd_v_gqa(il) x kv_size x n_stream; src/llama-kv-cache-iswa.cpp splits the layers into a
// base cache (non-SWA layers, kv_size = n_ctx padded) and an SWA cache (swa_layers, both
// LLAMA_SWA_TYPE_STANDARD and _CHUNKED) of GGML_PAD(min(size_base, n_swa + n_ubatch), 256) cells.
std::optional<KvRowMismatch> kv_row_mismatch(const ModelSpec& m, TensorType type_k,
                                             TensorType type_v) {
  std::vector<uint32_t> heads = {m.n_head_kv};
  for (const uint32_t h : m.n_head_kv_per_layer)
    if (std::find(heads.begin(), heads.end(), h) == heads.end()) heads.push_back(h);
  const bool mla = m.is_mla();
  for (const bool v : {false, true}) {
    const TensorType type = v ? type_v : type_k;
    const uint32_t head = v ? m.n_embd_head_v : m.n_embd_head_k;
    const uint32_t block = traits(type).block_size;
    if (block <= 1) continue;
    for (const uint32_t h : heads) {
      const uint64_t row = mla ? (v ? m.n_embd_v_gqa() : m.n_embd_k_gqa()) : uint64_t{h} * head;
      if (row != 0 && row % block != 0) return KvRowMismatch{v, type, row, mla, h, head};
    }
  }
  return std::nullopt;
}

KvCache kv_cache(const ModelSpec& m, const KvCacheConfig& c) {
  return kv_cache(m, c, layer_groups(m));
}

KvCache kv_cache(const ModelSpec& m, const KvCacheConfig& c,
                 const std::vector<LayerGroup>& groups) {
  KvCache r;
  // Non-unified cache: each sequence is a stream of GGML_PAD(n_ctx_seq, 256) cells. Unified: one
  // stream of GGML_PAD(n_ctx, 256) cells, n_ctx = n_seq x the context per sequence, and the SWA
  // layers keep n_swa cells of every sequence (llama-kv-cache-iswa.cpp: size_swa =
  // GGML_PAD(min(size_base, n_swa * (unified ? n_seq_max : 1) + n_ubatch), n_pad)).
  const uint32_t per_stream = c.unified ? c.n_seq : 1;
  r.n_stream = c.unified ? 1 : c.n_seq;
  r.cells_full = pad_to(checked_mul(c.n_ctx, per_stream), c.padding);
  const auto swa_cells = [&](uint32_t n_swa) {
    return pad_to(std::min<uint64_t>(r.cells_full, uint64_t{n_swa} * per_stream + c.n_ubatch),
                  c.padding);
  };
  if (m.n_swa > 0) r.cells_swa = swa_cells(m.n_swa);

  r.k_bytes_per_cell_layer = row_size(c.type_k, m.n_embd_k_gqa());
  r.v_bytes_per_cell_layer = m.n_embd_v_gqa() ? row_size(c.type_v, m.n_embd_v_gqa()) : 0;

  auto add = [&](KvPart p, uint64_t n_layer) {
    p.k_row_bytes = row_size(c.type_k, p.n_embd_k);
    p.v_row_bytes = p.n_embd_v ? row_size(c.type_v, p.n_embd_v) : 0;
    for (auto& q : r.parts)
      if (q.attn == p.attn && q.indexer == p.indexer && q.cells == p.cells &&
          q.compress_ratio == p.compress_ratio && q.n_embd_k == p.n_embd_k &&
          q.n_embd_v == p.n_embd_v && q.n_head_kv == p.n_head_kv) {
        q.n_layer = checked_add(q.n_layer, n_layer);
        return;
      }
    p.n_layer = n_layer;
    r.parts.push_back(p);
  };
  for (const auto& g : groups) {
    const LayerKind& k = g.kind;
    if (!k.has_kv()) continue;
    KvPart p;
    p.attn = k.attn;
    if (k.attn == AttnKind::swa || k.attn == AttnKind::chunked) {
      p.cells = swa_cells(k.n_swa);
      p.n_swa = k.n_swa;
      r.cells_swa = std::max(r.cells_swa, p.cells);
      r.n_layer_swa += static_cast<uint32_t>(g.n_layer);
    } else {
      p.cells = r.cells_full;
      r.n_layer_full += static_cast<uint32_t>(g.n_layer);
    }
    if (k.attn == AttnKind::mla) {
      // MLA (llama.cpp deepseek2 is_mla()): K holds the latent kv_lora_rank + the rope part n_rot
      // for one "head"; V is a view of it and is not allocated.
      p.n_head_kv = 1;
      p.n_embd_k = m.kv_lora_rank + m.n_rot;
    } else {
      p.n_head_kv = k.n_head_kv;
      p.n_embd_k = k.n_head_kv * k.n_embd_head_k;
      p.n_embd_v = k.kv_single ? 0 : k.n_head_kv * k.n_embd_head_v;
    }
    add(p, g.n_layer);
    if (k.compress_ratio) {
      // APPROXIMATION (DeepSeek-V4, llama.cpp llama-kv-cache-dsv4): beside the window, one
      // compressed entry per compress_ratio tokens of the context, of the head size; ratio-4
      // layers also keep compressed indexer keys. Compressor state is not counted.
      KvPart cp;
      cp.attn = AttnKind::full;
      cp.compress_ratio = k.compress_ratio;
      cp.cells = (r.cells_full + k.compress_ratio - 1) / k.compress_ratio;
      cp.n_head_kv = 1;
      cp.n_embd_k = k.n_embd_head_k;
      add(cp, g.n_layer);
      if (k.n_indexer_k) {
        KvPart ci = cp;
        ci.indexer = true;
        ci.n_embd_k = k.n_indexer_k;
        add(ci, g.n_layer);
      }
    }
    if (k.n_indexer_k && !k.compress_ratio) {
      // DSA lightning indexer (DeepSeek-V3.2, GLM-5): one n_indexer_k-wide key per token per
      // layer, cached beside the MLA latent with the K cache's type.
      KvPart ix;
      ix.attn = k.attn;
      ix.indexer = true;
      ix.cells = p.cells;
      ix.n_head_kv = 1;
      ix.n_embd_k = k.n_indexer_k;
      add(ix, g.n_layer);
    }
  }
  // Without flash attention V is stored transposed and every layer's V row is the widest of the
  // model (llama.cpp de3ff815 src/llama-kv-cache.cpp [TAG_V_CACHE_VARIABLE]: n_embd_v_gqa =
  // v_trans ? hparams.n_embd_v_gqa_max() : n_embd_v_gqa(il)): Gemma 4's global layers (4 x 512)
  // get the 16 x 256 of its SWA layers.
  if (!c.flash_attn) {
    uint32_t v_max = 0;
    for (const auto& p : r.parts)
      if (!p.indexer && !p.compress_ratio) v_max = std::max(v_max, p.n_embd_v);
    for (auto& p : r.parts)
      if (p.n_embd_v && p.n_embd_v != v_max && !p.indexer && !p.compress_ratio) {
        p.n_embd_v = v_max;
        p.v_row_bytes = row_size(c.type_v, v_max);
      }
  }
  // Bytes = streams x cells x layers x (K row + V row), per part.
  for (auto& p : r.parts) {
    const uint64_t cell_layers = checked_mul(p.cells, p.n_layer);
    const uint64_t k = checked_mul(checked_mul(cell_layers, p.k_row_bytes), r.n_stream);
    const uint64_t v = checked_mul(checked_mul(cell_layers, p.v_row_bytes), r.n_stream);
    p.bytes = checked_add(k, v);
    r.k_bytes = checked_add(r.k_bytes, k);
    r.v_bytes = checked_add(r.v_bytes, v);
  }
  return r;
}

}  // namespace llmsize
