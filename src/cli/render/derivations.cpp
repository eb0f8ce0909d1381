// --explain: the memory estimate's formulas with their numbers put in, worded here from the
// estimate's structured parts (Estimate, KvCache, RecurrentState, ComputeBuffer) and the engine's
// rules (engine_profile), not in the library.
#include "cli/render/derivations.hpp"

#include <cstdio>

#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

std::string num(uint64_t v) {
  return group_digits(v);
}

std::string mib_str(uint64_t b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f MiB", mib_of(b));
  return buf;
}

std::string gib_str(uint64_t b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GiB", gib_of(b));
  return buf;
}

std::string bytes_str(uint64_t b) {
  return num(b) + " B = " + (b >= kGiB ? gib_str(b) : mib_str(b));
}

// --explain: the weights, by tensor type, and what stays in host memory.
void derive_weights(const Estimate& e, const ModelSpec& m, const RunConfig&, const EngineProfile&,
                    std::vector<Derivation>& d) {
  {
    std::string mix;
    for (const auto& u : e.weights.by_type) {
      if (!mix.empty()) mix += " + ";
      mix += num(u.n_elements) + " x " + traits(u.type).name;
    }
    std::string f = "sum over tensors of elements x bytes per block / block size (" + mix + ")";
    if (e.weights.vision_bytes)
      f += " + vision tower " + num(e.weights.vision_params) +
           " params x 2 B (F16 mmproj) = " + num(e.weights.bytes - e.weights.vision_bytes) + " + " +
           num(e.weights.vision_bytes);
    d.push_back({"weights", f, bytes_str(e.weights.bytes)});
    if (e.weights.host_bytes)
      d.push_back({"weights in VRAM",
                   std::string("weights - token_embd kept in host memory by llama.cpp") +
                       (m.tied_embeddings ? " + its copy as the tied output layer" : "") + " = " +
                       num(e.weights.bytes) + " - " + num(e.weights.host_bytes) +
                       (m.tied_embeddings ? " + " + num(e.weights.host_bytes) : ""),
                   bytes_str(e.weights_bytes)});
    if (e.weights.nextn_bytes_not_loaded)
      d.push_back({"weights in VRAM",
                   "weights - the " + std::to_string(m.n_layer_nextn) +
                       " MTP layer(s) vLLM does not load = " + num(e.weights.bytes) + " - " +
                       num(e.weights.nextn_bytes_not_loaded),
                   bytes_str(e.weights_bytes)});
  }
}

// --explain: the KV cache, one line per layer kind when there are several.
void derive_kv(const Estimate& e, const ModelSpec& m, const RunConfig& c, const EngineProfile& ep,
               std::vector<Derivation>& d) {
  {
    const bool unified = e.kv.n_stream != c.kv.n_seq;
    std::string f = std::string(unified ? "streams" : "n_seq") +
                    " x (cells x layers) x (K row + V row): " + std::to_string(e.kv.n_stream) +
                    " x (" + num(e.kv.cells_full) + " x " + std::to_string(e.kv.n_layer_full);
    if (e.kv.n_layer_swa)
      f += " + " + num(e.kv.cells_swa) + " x " + std::to_string(e.kv.n_layer_swa) + " SWA";
    f += ") x (" + num(e.kv.k_bytes_per_cell_layer) + " + " + num(e.kv.v_bytes_per_cell_layer) +
         " B)";
    f += "; cells = n_ctx " + std::to_string(c.kv.n_ctx) +
         (unified ? " x " + std::to_string(c.kv.n_seq) + " sequences in one shared stream" : "") +
         " padded to " + std::to_string(ep.kv_cell_padding) + " (" + ep.name + ")";
    if (e.kv.n_layer_swa)
      f += ", SWA cells = pad(min(cells, n_swa " + std::to_string(m.n_swa) +
           (unified ? " x " + std::to_string(c.kv.n_seq) : "") + " + n_ubatch " +
           std::to_string(c.kv.n_ubatch) + "), " + std::to_string(ep.kv_cell_padding) + ")";
    if (m.is_mla())
      f += "; MLA caches kv_lora_rank + n_rot = " + num(m.n_embd_k_gqa()) + " per token";
    else
      f += "; K row = n_head_kv " + std::to_string(m.n_head_kv) + " x n_embd_head_k " +
           std::to_string(m.n_embd_head_k) + " in " + traits(c.kv.type_k).name;
    const bool by_kind =
        e.kv.parts.size() > 1 || (e.kv.parts.size() == 1 && e.kv.parts[0].attn != AttnKind::full &&
                                  e.kv.parts[0].attn != AttnKind::mla);
    if (by_kind) {
      // One line per layer kind: n_seq x cells x layers x (K row + V row).
      for (const auto& p : e.kv.parts) {
        std::string q = std::string("KV cache, ") +
                        (p.indexer ? "indexer keys" : attn_kind_name(p.attn)) + " layers" +
                        (p.compress_ratio ? ", compressed 1/" + num(p.compress_ratio) : "");
        std::string pf = std::to_string(e.kv.n_stream) + " x " + num(p.cells) + " cells x " +
                         num(p.n_layer) + " layers x (" + num(p.k_row_bytes) + " + " +
                         num(p.v_row_bytes) + " B)";
        if (p.attn == AttnKind::swa || p.attn == AttnKind::chunked)
          pf += "; cells = pad(min(" + num(e.kv.cells_full) + ", n_swa " + num(p.n_swa) +
                (unified ? " x " + std::to_string(c.kv.n_seq) : "") + " + n_ubatch " +
                std::to_string(c.kv.n_ubatch) + "), " + std::to_string(ep.kv_cell_padding) + ")";
        if (p.indexer)
          pf += "; K row = indexer head dim " + num(p.n_embd_k) + " in " + traits(c.kv.type_k).name;
        else if (p.attn == AttnKind::mla)
          pf += "; K row = kv_lora_rank + n_rot = " + num(p.n_embd_k) + " in " +
                traits(c.kv.type_k).name + ", no V";
        else
          pf += "; K row = " + num(p.n_head_kv) + " KV heads x " + num(p.head_dim_k()) + " in " +
                traits(c.kv.type_k).name + ", V row = " + num(p.n_head_kv) + " x " +
                num(p.head_dim_v()) + " in " + traits(c.kv.type_v).name;
        d.push_back({q, pf, bytes_str(p.bytes)});
      }
    }
    const bool encode_only = m.task != Task::generation;
    if (m.is_encoder())
      f = std::string(
              "none: an encoder attends over its own ubatch and keeps no cache (llama.cpp "
              "creates no memory for ") +
          arch_name(m.arch) + ")";
    else if (encode_only)
      f = "the batch's own tokens only, nothing generated: " + f;
    d.push_back(
        {"KV cache", by_kind ? "sum of the layer kinds above" : f, bytes_str(e.kv_cache_bytes)});
    if (encode_only) {
      d.push_back({std::string(task_name(m.task)) + " batch",
                   std::to_string(c.kv.n_seq) + " documents x " + std::to_string(c.kv.n_ctx) +
                       " tokens, one pass; n_ubatch = min(max(n_ubatch " +
                       std::to_string(c.kv.n_ubatch) +
                       ", document length), tokens) = " + std::to_string(e.ubatch_tokens) +
                       " (a document is pooled within one ubatch)" +
                       (m.is_encoder() ? "; output width n_embd, no vocabulary logits" : ""),
                   num(e.batch_tokens) + " tokens"});
    }
  }
}

// --explain: the recurrent state of SSM and short-convolution layers.
void derive_state(const Estimate& e, const ModelSpec& m, const RunConfig&, const EngineProfile&,
                  std::vector<Derivation>& d) {
  for (const auto& p : e.rs.parts) {
    const bool conv_only = p.kind == StateKind::short_conv;
    std::string f = "n_seq x layers x 4 B (F32) x (r + s) = " + std::to_string(e.rs.n_seq) + " x " +
                    num(p.n_layer) + " x 4 x (" + num(p.n_embd_r) + " + " + num(p.n_embd_s) + ")";
    if (conv_only)
      f += "; r = n_embd " + num(m.n_embd) + " x (l_cache " + num(m.ssm.l_cache) + " - 1)";
    else
      f += "; r = (d_conv " + num(m.ssm.d_conv) + " - 1) x (d_inner " + num(m.ssm.d_inner) +
           " + 2 x n_group " + num(m.ssm.n_group) + " x d_state " + num(m.ssm.d_state) +
           "), s = d_state x d_inner";
    d.push_back({std::string("recurrent state, ") + state_kind_name(p.kind) + " layers", f,
                 bytes_str(p.bytes)});
  }
}

// --explain: the compute buffer per GPU and the activations of all GPUs.
void derive_compute(const Estimate& e, const ModelSpec& m, const RunConfig& c,
                    const EngineProfile& ep, std::vector<Derivation>& d) {
  {
    const auto& cb = e.compute;
    // A layer split: the figure is its largest device's, its pipelined input copies first.
    std::string pre;
    if (!e.compute_split.devices.empty()) {
      pre = "the largest GPU of the layer split, GPU " +
            std::to_string(e.compute_split.largest() + 1) + ": ";
      if (cb.inputs_bytes)
        pre += "split inputs x " + std::to_string(e.compute_split.n_copies) + " " +
               mib_str(cb.inputs_bytes) + " + ";
    }
    const bool pipelined = cb.inputs_bytes != 0;
    const std::string mk = pipelined ? "" : "masks + ";
    if (cb.torch && !cb.summed) {
      const uint32_t tokens = c.profile_tokens;
      const uint32_t rows = std::min(c.profile_seqs, tokens);
      d.push_back(
          {"compute buffer per GPU",
           std::string(ep.name) +
               " profile run (BF16, flash attention), the larger of: the "
               "sampler " +
               std::to_string(kVllmSamplerBytesPerLogit) + " B x " + std::to_string(rows) +
               " rows (max_num_seqs) x n_vocab + the hidden states 2 x "
               "tokens x n_embd = " +
               mib_str(cb.output_bytes) +
               ", attention 2 x tokens x (q + k + v + n_embd) = " + mib_str(cb.attention_bytes) +
               ", ffn 2 x tokens x (2 n_ff + 4 n_embd) = " + mib_str(cb.ffn_bytes) + "; tokens = " +
               std::to_string(tokens) + " (max_num_batched_tokens); peak: " + cb.peak(),
           bytes_str(cb.bytes())});
    } else if (cb.summed)
      d.push_back(
          {"compute buffer per GPU",
           std::string(ep.name) + " activations (BF16, flash attention): logits 4 x " +
               std::to_string(c.engine == Engine::vllm ? ep.max_num_seqs : c.kv.n_seq) +
               " x n_vocab = " + mib_str(cb.output_bytes) +
               " + attention 2 x tokens x (q + k + v + n_embd) = " + mib_str(cb.attention_bytes) +
               " + ffn 2 x tokens x (2 n_ff + 4 n_embd) = " + mib_str(cb.ffn_bytes) +
               ", tokens = " +
               (c.engine == Engine::vllm
                    ? std::to_string(ep.max_num_batched_tokens) + " (max_num_batched_tokens)"
                    : std::to_string(e.batch_tokens) + " (the whole context)"),
           bytes_str(cb.bytes())});
    else if (!m.layer_kinds.empty() || m.is_mla())
      d.push_back(
          {"compute buffer per GPU",
           pre + "llama.cpp graph reserve (per layer kind, n_tokens = n_ubatch): KQ masks " +
               mib_str(cb.mask_bytes) +
               (pipelined ? " among the input copies; max(output logits 4 x "
                          : " live through the layers; max(output logits 4 x ") +
               "n_tokens x n_vocab + 3 n_embd rows + the free block left under them " +
               mib_str(cb.output_hole_bytes) + " = " + mib_str(cb.output_bytes) + ", attention " +
               (c.flash_attn ? "(flash) " + mk + "2 Q + 2 rows"
                             : "KQ 4 x n_head x n_kv x n_tokens + " + mk + "Q + " +
                                   (pipelined ? "" : "V indices + ") + "2 rows") +
               " = " + mib_str(cb.attention_bytes) + ", ffn " + mk +
               "gate/up/act (MoE: " + "n_expert_used experts) + rows = " + mib_str(cb.ffn_bytes) +
               (cb.recurrent_bytes
                    ? ", Mamba2 in-projection + scan = " + mib_str(cb.recurrent_bytes)
                    : std::string()) +
               "); peak: " + cb.peak(),
           bytes_str(cb.bytes())});
    else
      d.push_back(
          {"compute buffer per GPU",
           pre + "max(output 4 x n_ubatch x (n_vocab + n_embd) = " + mib_str(cb.output_bytes) +
               ", attention " +
               (c.flash_attn ? "(flash) "
                             : "4 x (n_kv x n_ubatch x n_head + 5 x n_embd x n_ubatch) = ") +
               mib_str(cb.attention_bytes) + ", ffn 4 x n_ubatch x (2 n_ff + 2 n_embd) = " +
               mib_str(cb.ffn_bytes) + "); peak: " + cb.peak(),
           bytes_str(cb.bytes())});
    const auto& split = e.compute_split;
    if (split.devices.empty()) {
      d.push_back(
          {"activations",
           "compute buffer x GPUs = " + mib_str(cb.bytes()) + " x " + std::to_string(c.n_gpus),
           bytes_str(e.activations_bytes)});
      return;
    }
    // A layer split: the first and the last device (the largest is the per-GPU figure above).
    const auto device_line = [&](size_t i) {
      const DeviceCompute& dc = split.devices[i];
      const ComputeBuffer& b = dc.buffer;
      const uint64_t end = uint64_t{dc.first_layer} + dc.n_layer;
      std::string f = dc.n_layer == 1 ? "layer " + std::to_string(dc.first_layer)
                                      : "layers " + std::to_string(dc.first_layer) + "-" +
                                            std::to_string(end - (dc.n_layer ? 1 : 0));
      if (!dc.n_layer) f = dc.output ? "the output layer only" : "no layers";
      const uint64_t mtp = std::max<uint64_t>(m.n_layer, dc.first_layer);
      if (dc.n_layer && end > m.n_layer)  // the MTP layers are held, not computed
        f += (end - mtp > 1 ? " (MTP layers " + std::to_string(mtp) + "-" + std::to_string(end - 1)
                            : " (MTP layer " + std::to_string(mtp)) +
             " held, not computed)";
      if (dc.output && dc.n_layer) f += " and the output layer";
      f += ": ";
      if (split.n_copies > 1)
        f += std::to_string(split.n_copies) + " copies of the split inputs (hidden state in, " +
             "KQ masks " + mib_str(b.mask_bytes) +
             ", positions, KV indices) = " + mib_str(b.inputs_bytes) +
             ", kept for pipeline parallelism + ";
      f += std::string("peak ") + b.peak() + " " + mib_str(b.peak_bytes());
      d.push_back({"compute buffer, GPU " + std::to_string(i + 1) + " of " +
                       std::to_string(split.devices.size()),
                   f, bytes_str(b.bytes())});
    };
    device_line(0);
    if (split.output_device() != 0) device_line(split.output_device());
    d.push_back({"activations",
                 "sum over the " + std::to_string(split.devices.size()) +
                     " GPUs of the layer split (llama.cpp: layer il on GPU il x N / (layers + "
                     "1), the output on the last" +
                     (split.n_copies > 1 ? "; pipeline parallelism, " +
                                               std::to_string(split.n_copies) + " input copies)"
                                         : "; no pipeline copies)"),
                 bytes_str(e.activations_bytes)});
  }
}

// --explain: overhead, headroom and the total.
void derive_total(const Estimate& e, const ModelSpec&, const RunConfig& c, const EngineProfile&,
                  std::vector<Derivation>& d) {
  d.push_back({"overhead",
               "runtime per GPU x GPUs = " + mib_str(c.overhead_per_gpu_bytes) + " x " +
                   std::to_string(c.n_gpus),
               bytes_str(e.overhead_bytes)});
  {
    char h[32];
    std::snprintf(h, sizeof h, "%.2f", c.headroom);
    d.push_back({"headroom",
                 std::string(h) + " x (weights + KV + state + activations + overhead) = " + h +
                     " x " + num(e.subtotal_bytes()),
                 bytes_str(e.headroom_bytes)});
  }
  d.push_back({"total", "weights + KV + recurrent state + activations + overhead + headroom",
               bytes_str(e.total_bytes())});
}

}  // namespace

std::vector<Derivation> derivations(const Estimate& e, const ModelSpec& m, const RunConfig& c) {
  std::vector<Derivation> d;
  const EngineProfile& ep = engine_profile(c.engine);
  for (auto* derive : {derive_weights, derive_kv, derive_state, derive_compute, derive_total})
    derive(e, m, c, ep, d);
  return d;
}

}  // namespace llmsize::cli
