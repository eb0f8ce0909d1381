#include "llmsize/memory/compute_buffer.hpp"

#include <algorithm>
#include <cstdint>

#include "llmsize/checked.hpp"
#include "llmsize/memory/recurrent_state.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

uint64_t ComputeBuffer::peak_bytes() const {
  return summed ? checked_add(checked_add(output_bytes, attention_bytes, "compute buffer bytes"),
                              ffn_bytes, "compute buffer bytes")
                : std::max({output_bytes, attention_bytes, ffn_bytes, recurrent_bytes});
}

uint64_t ComputeBuffer::bytes() const {
  return checked_add(checked_add(inputs_bytes, peak_bytes(), "compute buffer bytes"),
                     weight_copy_bytes, "compute buffer bytes");
}

const char* ComputeBuffer::peak() const {
  if (summed) return "sum";
  const uint64_t b = peak_bytes();
  if (b == 0) return "none";
  return b == attention_bytes ? "attention"
         : b == output_bytes  ? "output"
         : b == ffn_bytes     ? "ffn"
                              : "recurrent";
}

ComputeBuffer compute_buffer(const ModelSpec& m, uint64_t n_kv, uint32_t n_ubatch,
                             bool flash_attn) {
  constexpr uint64_t kF32 = 4;
  const uint64_t ub = n_ubatch;
  const uint64_t n_embd = m.n_embd;
  ComputeBuffer c;
  c.output_bytes = checked_mul(kF32 * ub, uint64_t{m.n_vocab} + n_embd);
  if (flash_attn) {
    const uint64_t qkv = uint64_t{m.n_head} * m.n_embd_head_k + m.n_embd_k_gqa() + m.n_embd_v_gqa();
    c.attention_bytes = checked_mul(kF32 * ub, qkv + n_embd);
  } else {
    const uint64_t kq = checked_mul(checked_mul(n_kv, ub), m.n_head);
    c.attention_bytes = checked_mul(kF32, checked_add(kq, kAttnResidentRows * n_embd * ub));
  }
  uint64_t n_ff = m.n_ff;
  if (m.is_moe())
    n_ff = std::max<uint64_t>(n_ff, uint64_t{m.n_ff_exp} * m.n_expert_used + m.n_ff_shexp);
  c.ffn_bytes = checked_mul(kF32 * ub, 2 * n_ff + 2 * n_embd);
  return c;
}

namespace {

// The KV cells per stream a layer of kind k attends over: the SWA / chunk cache's or the base's.
uint64_t cells_of(const LayerKind& k, const KvCache& kv) {
  if (k.attn == AttnKind::swa || k.attn == AttnKind::chunked) {
    for (const auto& p : kv.parts)
      if (p.attn == k.attn && p.n_swa == k.n_swa && !p.indexer) return p.cells;
    return kv.cells_swa ? kv.cells_swa : kv.cells_full;
  }
  return kv.cells_full;
}

// The part of the freed masks' hole left below the logits (see compute_buffer.hpp, output).
// ggml-alloc.c (de3ff815) places the logits, larger than any free block, at the end of the
// highest live tensor; live then are inp_embd, result_norm and the last layer's residual (kept
// as the MTP hook h_nextn by qwen3next / qwen35 / qwen35moe, src/models/*.cpp), and the
// residual is an in-place add on the FFN output, so the hole stays under the logits when that
// output was placed above the masks. For the delta-net and short-conv hybrids (replayed with
// bench/llamacpp_probe/graph_reserve.cpp at n_ubatch 512 and 2048):
//   - a layer after the last attention layer (LFM2: the last layers are short-conv) runs its
//     whole block after the masks are freed, and its activations refill the hole: 0;
//   - the last attention layer's MoE: its down projection (n_expert_used rows, the largest
//     tensor of the block) lands in the hole when it fits, and the rows after it follow: the
//     hole is refilled when masks >= n_expert_used x 4 x n_tokens x n_embd, kept below that;
//   - otherwise (a dense FFN's down projection, one row, reuses a freed row above the masks or
//     not, depending on the KV type and the context: measured both at n_ubatch 512) the hole
//     is kept or refilled, and 3/8 of it is counted, as for the other architectures.
// One exception after a last short-conv layer: the recurrent memory's copy of the states of the
// cells outside the ubatch (llama-graph.cpp build_rs: ggml_get_rows over n_rs - n_seqs = 0 rows)
// is a 0-byte tensor. When the copy of the ubatch's conv states just before it (n_seq x
// n_embd_r x 4 B) fills the freed token ids (4 B x n_tokens at offset 0, the first input)
// exactly, the 0-byte tensor lands at the start of the next free block, right above rs_s_copy;
// rs_s_copy is freed first, moving that block's start down, and freeing the 0-byte tensor then
// inserts an empty free block inside it (ggml-alloc.c ggml_dyn_tallocr_free_bytes merges only
// with a block it touches). The empty block sits between the lower free blocks and the buffer's
// tail from then on, so a freed tensor merges into the block below it and no longer into the
// tail: the last layer's gate, up and product (3 x n_ff rows, allocated at the tail) stay a free
// block under the logits, and so do the freed masks when they are larger (less the 2 rows
// placed in their hole). Replayed with bench/llamacpp_probe/graph_reserve.cpp at n_ubatch 1024
// to 8192 for LFM2-1.2B (n_embd 2048, l_cache 3) and two variants with n_embd 1024 and 1536, 1
// and 2 sequences: it happens exactly when n_tokens = n_seq x n_embd_r (4096 for LFM2-1.2B at 1
// sequence, 8192 at 2), and then the buffer is logits + 3 n_embd rows + max(3 n_ff rows, masks
// - 2 n_embd rows) to -4.1%..+1.2% (LFM2-1.2B at 4096 tokens: 1504-1568 MiB at contexts 4096 to
// 65536, 2080 MiB at 131072 with F16 KV), but for LFM2-1.2B at 131072 cells with q8_0 KV, where
// the masks' hole is refilled (1504.14 MiB measured, 2080 predicted: +38%). The layout is the
// CPU backend's: in a single-GPU CUDA reserve the token ids stay in the CUDA_Host buffer (the
// get_rows of token_embd runs on the CPU) and the device buffer starts with the split's input
// copies (ggml-backend.cpp ggml_backend_sched_split_graph, n_copies 1), so whether the same
// exact fit happens there is not verified.
uint64_t output_mask_hole(const ModelSpec& m, uint64_t masks, uint64_t row, uint64_t t,
                          uint64_t n_seq) {
  bool hybrid = false;
  for (const auto& k : m.layer_kinds)
    hybrid = hybrid || k.state == StateKind::gated_delta_net || k.state == StateKind::short_conv;
  if (!hybrid) return masks / 8 * 3;
  // The last layer, from the runs (no per-layer walk: this runs for every planned row).
  const LayerKind* last = nullptr;
  for (auto s = m.layer_segments.rbegin(); s != m.layer_segments.rend() && !last; ++s) {
    if (!s->repeat) continue;
    for (auto r = s->runs.rbegin(); r != s->runs.rend() && !last; ++r)
      if (r->count && r->kind < m.layer_kinds.size()) last = &m.layer_kinds[r->kind];
  }
  if (!last) return 0;
  if (last->attn == AttnKind::none) {  // a layer after the last attention layer refills the hole
    if (last->state == StateKind::short_conv && last->ffn == FfnKind::dense &&
        t == checked_mul(n_seq, n_embd_r(m, last->state))) {
      // The 0-byte block keeps the FFN rows, or the masks' hole less the 2 rows placed in it.
      const uint64_t ffn = checked_mul(row, 3ull * last->n_ff);
      const uint64_t in_hole = checked_mul(2 * row, m.n_embd);
      return std::max(ffn, masks > in_hole ? masks - in_hole : 0);
    }
    return 0;
  }
  if (last->ffn == FfnKind::moe &&
      masks >= checked_mul(checked_mul(row, m.n_embd), m.n_expert_used))
    return 0;
  return masks / 8 * 3;
}

}  // namespace

namespace {

// llama-hparams.cpp n_pos_per_embd(): 4 for M-RoPE and interleaved M-RoPE
// (llama-model.cpp llama_model_rope_type: qwen3vl, qwen35, qwen35moe among ours), else 1.
uint64_t positions_per_token(const ModelSpec& m) {
  return m.arch == Arch::qwen3vl || m.arch == Arch::qwen35 || m.arch == Arch::qwen35moe ? 4 : 1;
}

// What the attention and recurrent layers of `groups` read from outside the graph's activations
// (llama-graph.cpp build_attn_inp_kv / build_attn_inp_kv_iswa / build_inp_pos / build_rs at
// de3ff815): per cache, the KQ mask [n_kv, n_tokens / n_stream, 1, n_stream] (F16 with flash
// attention, F32 without), the K row indices (I64 x n_tokens) and the V row indices (I64 x
// n_tokens, or x n_tokens x n_embd_v_gqa when V is stored transposed, without flash
// attention: llama-kv-cache.cpp build_input_v_idxs); the positions (I32 x n_tokens) and the
// recurrent state copy indices (I32 x n_rs).
struct GraphInputs {
  uint64_t masks = 0;
  uint64_t v_idx_transposed = 0;  // the V indices of transposed V caches (no flash attention)
  uint64_t idx = 0;               // every K and V index tensor
  bool attention = false;
  bool recurrent = false;
};

GraphInputs graph_inputs(const std::vector<LayerGroup>& groups, const KvCache& kv,
                         const ComputeConfig& c, uint64_t t) {
  GraphInputs in;
  // Masks: one per distinct cell count of the attention layers (the base cache and the SWA one).
  std::vector<uint64_t> mask_cells;
  std::vector<std::pair<uint64_t, uint64_t>> v_caches;  // (cells, widest n_embd_v_gqa)
  std::vector<uint64_t> k_caches;                       // cells of the caches holding K
  for (const auto& g : groups) {
    const LayerKind& k = g.kind;
    in.recurrent = in.recurrent || k.state != StateKind::none;
    if (k.attn == AttnKind::none) continue;
    in.attention = true;
    const uint64_t cells = cells_of(k, kv);
    if (std::find(mask_cells.begin(), mask_cells.end(), cells) == mask_cells.end())
      mask_cells.push_back(cells);
    if (k.has_kv() && std::find(k_caches.begin(), k_caches.end(), cells) == k_caches.end())
      k_caches.push_back(cells);
    if (k.attn != AttnKind::mla && !k.kv_single && k.has_kv()) {
      const uint64_t w = uint64_t{k.n_head_kv} * k.n_embd_head_v;
      auto it = std::find_if(v_caches.begin(), v_caches.end(),
                             [&](const auto& v) { return v.first == cells; });
      if (it == v_caches.end())
        v_caches.push_back({cells, w});
      else
        it->second = std::max(it->second, w);
    }
  }
  const uint64_t mask_type = c.flash_attn ? 2 : 4;
  for (uint64_t cells : mask_cells)
    in.masks = checked_add(in.masks, checked_mul(checked_mul(cells, t), mask_type));
  if (!c.flash_attn)
    for (const auto& v : v_caches)
      in.v_idx_transposed = checked_add(in.v_idx_transposed, checked_mul(8 * t, v.second));
  in.idx = checked_add(checked_mul(8 * t, k_caches.size()),
                       c.flash_attn ? checked_mul(8 * t, v_caches.size()) : in.v_idx_transposed);
  return in;
}

// The compute buffer of the layers in `groups` (the whole model on one device, or one device's
// share of a layer split) and of the output layer when `output`. With n_copies > 1 (pipeline
// parallelism) the graph inputs the device reads are kept in n_copies copies at the bottom of
// the buffer and never freed (inputs_bytes): the parts then count no masks or V indices of
// their own and the logits no freed masks' hole under them. `persistent` adds what only a
// pipelined device copies in: the hidden state and, on the device of the last layer, the
// output row ids.
ComputeBuffer layer_parts(const ModelSpec& m, const KvCache& kv, const ComputeConfig& c,
                          const std::vector<LayerGroup>& groups, bool output, uint32_t n_copies,
                          bool last_layer) {
  const uint64_t n_seq = std::max<uint32_t>(1, c.n_seq);
  constexpr uint64_t kF32 = 4;
  // graph_reserve rounds n_tokens up to a multiple of n_seqs.
  const uint64_t t = pad_to(std::max<uint32_t>(1, c.n_ubatch), n_seq);
  const uint64_t row = kF32 * t;  // one F32 value per token
  const uint64_t n_embd = m.n_embd;
  const bool pipelined = n_copies > 1;

  const GraphInputs in = graph_inputs(groups, kv, c, t);
  ComputeBuffer cb;
  cb.mask_bytes = in.masks;
  const uint64_t masks = pipelined ? 0 : in.masks;  // live in the parts
  const uint64_t v_idx = pipelined ? 0 : in.v_idx_transposed;
  if (pipelined && (!groups.empty() || output)) {
    // The hidden state the device starts from (the CPU's token embeddings on the first device,
    // the previous device's last residual on the others), positions, masks and indices, the
    // recurrent state copy ids, the output ids (I32 x n_outputs = n_tokens) where the last
    // layer selects the output rows.
    uint64_t one = checked_add(checked_mul(row, n_embd), checked_add(in.masks, in.idx));
    if (in.attention) one = checked_add(one, checked_mul(row, positions_per_token(m)));
    if (in.recurrent) one = checked_add(one, kF32 * n_seq);
    if (last_layer) one = checked_add(one, row);
    cb.inputs_bytes = checked_mul(one, n_copies);
  }

  if (output) {
    cb.output_hole_bytes = pipelined ? 0 : output_mask_hole(m, masks, row, t, n_seq);
    cb.output_bytes = checked_add(checked_mul(row, uint64_t{m.n_vocab} + 3 * n_embd),
                                  cb.output_hole_bytes, "compute buffer bytes");
  }
  for (const auto& g : groups) {
    const LayerKind& k = g.kind;
    if (k.attn != AttnKind::none) {
      const bool mla = k.attn == AttnKind::mla;
      const uint64_t cells = cells_of(k, kv);
      const uint64_t head_k = mla ? uint64_t{m.kv_lora_rank} + m.n_rot : k.n_embd_head_k;
      const uint64_t q = checked_mul(checked_mul(row, k.n_head), head_k) * (k.gated_q ? 3 : 1);
      uint64_t a = checked_add(masks, 2 * n_embd * row);
      if (c.flash_attn) {
        a = checked_add(a, 2 * q);
      } else {
        const uint64_t kq = checked_mul(checked_mul(row, k.n_head), cells);
        a = checked_add(checked_add(a, kq), checked_add(q, v_idx));
        if (mla)  // v_cont, and the hole of the absorbed q_nope (n_head x kv_lora_rank)
          a = checked_add(
              checked_add(a, checked_mul(row_size(c.type_k, m.kv_lora_rank), cells * n_seq)),
              checked_mul(checked_mul(row, k.n_head), m.kv_lora_rank));
      }
      cb.attention_bytes = std::max(cb.attention_bytes, a);
    }
    if (k.ffn == FfnKind::dense && k.n_ff) {
      const uint64_t f = checked_add(masks, checked_mul(row, 3ull * k.n_ff + 2 * n_embd));
      cb.ffn_bytes = std::max(cb.ffn_bytes, f);
    } else if (k.ffn == FfnKind::moe) {
      const uint64_t per = std::max<uint64_t>(3ull * m.n_ff_exp, uint64_t{m.n_ff_exp} + n_embd);
      const uint64_t f = checked_add(
          masks,
          checked_mul(row, checked_mul(uint64_t{m.n_expert_used}, per) + m.n_expert + 3 * n_embd));
      cb.ffn_bytes = std::max(cb.ffn_bytes, f);
    }
    if (k.state == StateKind::mamba2) {
      const SsmSpec& s = m.ssm;
      const uint64_t bc = 2ull * s.n_group * s.d_state;
      const uint64_t cols = 2ull * s.d_inner + bc + s.dt_rank + (uint64_t{s.d_inner} + bc) +
                            2ull * s.d_inner + 2 * n_embd;
      const uint64_t r = checked_add(checked_add(masks, checked_mul(row, cols)),
                                     checked_mul(checked_mul(kF32 * s.d_state, s.d_inner), n_seq));
      cb.recurrent_bytes = std::max(cb.recurrent_bytes, r);
    }
  }
  return cb;
}

bool per_layer_model(const ModelSpec& m) {
  return !m.layer_kinds.empty() || m.is_mla();
}

}  // namespace

ComputeBuffer compute_buffer(const ModelSpec& m, const KvCache& kv, const ComputeConfig& c) {
  return compute_buffer(m, kv, c, per_layer_model(m) ? layer_groups(m) : std::vector<LayerGroup>{});
}

ComputeBuffer compute_buffer(const ModelSpec& m, const KvCache& kv, const ComputeConfig& c,
                             const std::vector<LayerGroup>& groups) {
  if (!per_layer_model(m)) return compute_buffer(m, kv.cells_full, c.n_ubatch, c.flash_attn);
  return layer_parts(m, kv, c, groups, true, 1, true);
}

size_t LayerSplitCompute::largest() const {
  size_t best = 0;
  for (size_t i = 1; i < devices.size(); ++i)
    if (devices[i].buffer.bytes() > devices[best].buffer.bytes()) best = i;
  return best;
}

size_t LayerSplitCompute::output_device() const {
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices[i].output) return i;
  return devices.empty() ? 0 : devices.size() - 1;
}

uint64_t LayerSplitCompute::total_bytes() const {
  uint64_t sum = 0;
  for (const auto& d : devices) sum = checked_add(sum, d.buffer.bytes(), "compute buffer bytes");
  return sum;
}

namespace {

// One device's buffer: the per-layer model's parts over its layer groups, or the formula of the
// 2024 architectures (the same parts on every device, the output only on the last) plus the
// pipelined copies of the inputs its layers read.
ComputeBuffer device_buffer(const ModelSpec& m, const KvCache& kv, const ComputeConfig& c,
                            const std::vector<LayerGroup>& groups, bool output, uint32_t n_copies,
                            bool last_layer) {
  if (per_layer_model(m)) return layer_parts(m, kv, c, groups, output, n_copies, last_layer);
  ComputeBuffer cb;
  if (!groups.empty() || output) cb = compute_buffer(m, kv.cells_full, c.n_ubatch, c.flash_attn);
  if (groups.empty()) cb.attention_bytes = cb.ffn_bytes = 0;
  if (!output) cb.output_bytes = 0;
  // Only its inputs (the output flag counts the hidden state a device holding only the
  // output layer reads).
  const ComputeBuffer in = layer_parts(m, kv, c, groups, output, n_copies, last_layer);
  cb.inputs_bytes = in.inputs_bytes;
  cb.mask_bytes = in.mask_bytes;
  return cb;
}

}  // namespace

LayerSplitCompute compute_buffers_by_device(const ModelSpec& m, const KvCache& kv,
                                            const ComputeConfig& c, uint32_t n_devices,
                                            uint32_t n_copies) {
  return compute_buffers_by_device(m, kv, c, n_devices, n_copies, layer_layout(m));
}

LayerSplitCompute compute_buffers_by_device(const ModelSpec& m, const KvCache& kv,
                                            const ComputeConfig& c, uint32_t n_devices,
                                            uint32_t n_copies, const LayerLayout& layout) {
  LayerSplitCompute s;
  s.n_copies = n_devices > 1 ? std::max<uint32_t>(1, n_copies) : 1;
  const uint32_t n = std::max<uint32_t>(1, n_devices);
  const uint64_t all = uint64_t{m.n_layer} + m.n_layer_nextn;
  const auto u32 = [](uint64_t v) {
    return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX));
  };
  if (n == 1) {
    s.devices.push_back({0, u32(all), true, compute_buffer(m, kv, c)});
    return s;
  }
  // llama-model.cpp load_tensors: layer il of n_layer_all (MTP layers included) and the output
  // layer (il = n_layer_all) go to the device upper_bound(splits, il / (n_layer_all + 1)), the
  // splits being the cumulative shares of free memory, (d + 1) / n for n devices alike: device d
  // holds il with d <= il x n / (n_layer_all + 1) < d + 1. Only the first n_layer are computed.
  const auto first_of = [&](uint64_t d) { return (d * (all + 1) + n - 1) / n; };  // ceil
  s.devices.reserve(n);
  // A device's buffer depends on the kinds of its layers, not their counts (layer_parts): the
  // middle devices of a uniform model share the previous one's.
  std::vector<LayerGroup> prev;
  bool prev_last = false;
  const auto same_kinds = [](const std::vector<LayerGroup>& a, const std::vector<LayerGroup>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a[i].kind == b[i].kind)) return false;
    return true;
  };
  for (uint32_t d = 0; d < n; ++d) {
    const uint64_t a = first_of(d), b = first_of(d + 1);  // [a, b) of [0, all]
    const bool output = a <= all && all < b;
    const uint64_t la = std::min<uint64_t>(a, m.n_layer), lb = std::min<uint64_t>(b, m.n_layer);
    // One kind of layer (the uniform models of 2024): the range is that kind, counted.
    const auto groups = la >= lb ? std::vector<LayerGroup>{}
                        : layout.kinds.size() == 1
                            ? std::vector<LayerGroup>{{layout.kinds[0], lb - la}}
                            : layer_groups(layout, la, lb);
    const bool last_layer = m.n_layer && la < lb && lb == m.n_layer;
    DeviceCompute dc;
    dc.first_layer = u32(std::min(a, all));
    dc.n_layer = u32(std::min(b, all) - std::min(a, all));
    dc.output = output;
    const bool same = !s.devices.empty() && output == s.devices.back().output &&
                      last_layer == prev_last && same_kinds(groups, prev);
    dc.buffer = same ? s.devices.back().buffer
                     : device_buffer(m, kv, c, groups, output, s.n_copies, last_layer);
    s.devices.push_back(dc);
    prev = groups;
    prev_last = last_layer;
  }
  return s;
}

ComputeBuffer compute_buffer_any_split(const ModelSpec& m, const KvCache& kv,
                                       const ComputeConfig& c, uint32_t n_copies) {
  return compute_buffer_any_split(m, kv, c, n_copies, layer_groups(m));
}

ComputeBuffer compute_buffer_any_split(const ModelSpec& m, const KvCache& kv,
                                       const ComputeConfig& c, uint32_t n_copies,
                                       const std::vector<LayerGroup>& groups) {
  return device_buffer(m, kv, c, groups, true, std::max<uint32_t>(1, n_copies), true);
}

ComputeBuffer torch_activations(const ModelSpec& m, uint64_t tokens, uint64_t logit_rows) {
  ComputeBuffer c;
  uint64_t n_ff = m.n_ff;
  if (m.is_moe())
    n_ff = std::max<uint64_t>(n_ff, uint64_t{m.n_ff_exp} * m.n_expert_used + m.n_ff_shexp);
  c.ffn_bytes = checked_mul(2 * tokens, 2 * n_ff + 4 * uint64_t{m.n_embd});
  const uint64_t qkv = uint64_t{m.n_head} * m.n_embd_head_k + m.n_embd_k_gqa() + m.n_embd_v_gqa();
  c.attention_bytes = checked_mul(2 * tokens, qkv + m.n_embd);
  c.output_bytes = checked_mul(4 * logit_rows, m.n_vocab);
  c.summed = true;
  c.torch = true;
  return c;
}

ComputeBuffer vllm_profile_peak(const ModelSpec& m, uint64_t tokens, uint64_t rows) {
  ComputeBuffer c = torch_activations(m, tokens, 0);
  c.summed = false;
  c.output_bytes = checked_add(
      checked_mul(checked_mul(std::min(rows, tokens), m.n_vocab), kVllmSamplerBytesPerLogit),
      checked_mul(2 * tokens, m.n_embd));
  return c;
}

}  // namespace llmsize
