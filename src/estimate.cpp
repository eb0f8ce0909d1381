#include "llmsize/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "llmsize/checked.hpp"
#include "llmsize/layers.hpp"
#include "llmsize/units.hpp"

namespace llmsize {
namespace {

std::string num(uint64_t v) {
  return group_digits(v);
}

std::string mib_str(uint64_t b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(b) / static_cast<double>(kMiB));
  return buf;
}

std::string gib_str(uint64_t b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(b) / static_cast<double>(kGiB));
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
    d.push_back({"weights",
                 "sum over tensors of elements x bytes per block / block size (" + mix + ")",
                 bytes_str(e.weights.bytes)});
    if (e.weights.host_bytes)
      d.push_back({"weights in VRAM",
                   std::string("weights - token_embd kept in host memory by llama.cpp") +
                       (m.tied_embeddings ? " + its copy as the tied output layer" : "") + " = " +
                       num(e.weights.bytes) + " - " + num(e.weights.host_bytes) +
                       (m.tied_embeddings ? " + " + num(e.weights.host_bytes) : ""),
                   bytes_str(e.weights_bytes)});
  }
}

// --explain: the KV cache, one line per layer kind when there are several.
void derive_kv(const Estimate& e, const ModelSpec& m, const RunConfig& c, const EngineProfile& ep,
               std::vector<Derivation>& d) {
  {
    std::string f = "n_seq x (cells x layers) x (K row + V row): " + std::to_string(c.kv.n_seq) +
                    " x (" + num(e.kv.cells_full) + " x " + std::to_string(e.kv.n_layer_full);
    if (e.kv.n_layer_swa)
      f += " + " + num(e.kv.cells_swa) + " x " + std::to_string(e.kv.n_layer_swa) + " SWA";
    f += ") x (" + num(e.kv.k_bytes_per_cell_layer) + " + " + num(e.kv.v_bytes_per_cell_layer) +
         " B)";
    f += "; cells = n_ctx " + std::to_string(c.kv.n_ctx) + " padded to " +
         std::to_string(ep.kv_cell_padding) + " (" + ep.name + ")";
    if (e.kv.n_layer_swa)
      f += ", SWA cells = pad(min(cells, n_swa " + std::to_string(m.n_swa) + " + n_ubatch " +
           std::to_string(c.kv.n_ubatch) + "), 256)";
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
        std::string pf = std::to_string(c.kv.n_seq) + " x " + num(p.cells) + " cells x " +
                         num(p.n_layer) + " layers x (" + num(p.k_row_bytes) + " + " +
                         num(p.v_row_bytes) + " B)";
        if (p.attn == AttnKind::swa || p.attn == AttnKind::chunked)
          pf += "; cells = pad(min(" + num(e.kv.cells_full) + ", n_swa " + num(p.n_swa) +
                " + n_ubatch " + std::to_string(c.kv.n_ubatch) + "), " +
                std::to_string(ep.kv_cell_padding) + ")";
        if (p.indexer)
          pf += "; K row = indexer head dim " + num(p.n_embd_k) + " in " + traits(c.kv.type_k).name;
        else if (p.attn == AttnKind::mla)
          pf += "; K row = kv_lora_rank + n_rot = " + num(p.n_embd_k) + " in " +
                traits(c.kv.type_k).name + ", no V";
        else
          pf += "; K row = " + num(p.n_head_kv) + " KV heads x " +
                num(p.n_head_kv ? p.n_embd_k / p.n_head_kv : 0) + " in " +
                traits(c.kv.type_k).name + ", V row = " + num(p.n_head_kv) + " x " +
                num(p.n_head_kv ? p.n_embd_v / p.n_head_kv : 0) + " in " + traits(c.kv.type_v).name;
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
      // The ubatch estimate() reserved the graph for (a document within one ubatch).
      const uint64_t tokens = uint64_t{c.kv.n_ctx} * c.kv.n_seq;
      const uint64_t ubatch = std::min<uint64_t>(std::max(c.kv.n_ubatch, c.kv.n_ctx), tokens);
      d.push_back({std::string(task_name(m.task)) + " batch",
                   std::to_string(c.kv.n_seq) + " documents x " + std::to_string(c.kv.n_ctx) +
                       " tokens, one pass; n_ubatch = min(max(n_ubatch " +
                       std::to_string(c.kv.n_ubatch) + ", document length), tokens) = " +
                       std::to_string(ubatch) + " (a document is pooled within one ubatch)" +
                       (m.is_encoder() ? "; output width n_embd, no vocabulary logits" : ""),
                   num(tokens) + " tokens"});
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
    if (cb.summed)
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
                    : std::to_string(uint64_t{c.kv.n_ctx} * c.kv.n_seq) + " (the whole context)"),
           bytes_str(cb.bytes())});
    else if (!m.layer_kinds.empty() || m.is_mla())
      d.push_back(
          {"compute buffer per GPU",
           std::string("llama.cpp graph reserve (per layer kind, n_tokens = n_ubatch): KQ masks ") +
               mib_str(cb.mask_bytes) + " live through the layers; max(output logits 4 x " +
               "n_tokens x n_vocab + 3 n_embd rows + 3/8 of the masks = " +
               mib_str(cb.output_bytes) + ", attention " +
               (c.flash_attn ? "(flash) masks + 2 Q + 2 rows"
                             : "KQ 4 x n_head x n_kv x n_tokens + masks + Q + V indices + 2 rows") +
               " = " + mib_str(cb.attention_bytes) + ", ffn masks + gate/up/act (MoE: " +
               "n_expert_used experts) + rows = " + mib_str(cb.ffn_bytes) +
               (cb.recurrent_bytes
                    ? ", Mamba2 in-projection + scan = " + mib_str(cb.recurrent_bytes)
                    : std::string()) +
               "); peak: " + cb.peak(),
           bytes_str(cb.bytes())});
    else
      d.push_back(
          {"compute buffer per GPU",
           std::string("max(output 4 x n_ubatch x (n_vocab + n_embd) = ") +
               mib_str(cb.output_bytes) + ", attention " +
               (c.flash_attn ? "(flash) "
                             : "4 x (n_kv x n_ubatch x n_head + 5 x n_embd x n_ubatch) = ") +
               mib_str(cb.attention_bytes) + ", ffn 4 x n_ubatch x (2 n_ff + 2 n_embd) = " +
               mib_str(cb.ffn_bytes) + "); peak: " + cb.peak(),
           bytes_str(cb.bytes())});
    d.push_back(
        {"activations",
         "compute buffer x GPUs = " + mib_str(cb.bytes()) + " x " + std::to_string(c.n_gpus),
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

Weights compute_weights(const ModelSpec& m, const QuantPreset& q, bool embeddings_on_host) {
  auto tensors = model_tensors(m);
  Weights w;
  w.params = count_params(m, tensors).total;
  // A GGUF converted from a checkpoint whose MTP layers convert_hf_to_gguf.py skips
  // (ModelSpec::gguf_drops_nextn) holds only the main layers: the parameters stay the
  // checkpoint's, the bytes are the file's.
  // llama-quantize then sees a block count without them (its ffn counters use n_layer).
  ModelSpec main_only;
  const bool drop = q.gguf && m.gguf_drops_nextn && m.n_layer_nextn;
  if (drop) {
    main_only = m;
    main_only.n_layer_nextn = 0;
    tensors = model_tensors(main_only);
    w.params_not_in_file = w.params - count_params(main_only, tensors).total;
  }
  const auto types = assign_tensor_types(drop ? main_only : m, tensors, q);
  const ParamCount pc = count_params(m, tensors);
  w.active_params = pc.active;
  uint64_t embd_bytes = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    const uint64_t b = tensor_bytes(types[i], t.ne[0], t.n_elements());
    w.bytes = checked_add(w.bytes, b, "weight bytes");
    if (t.role == TensorRole::token_embd) {
      embd_bytes = b;  // the input lookup reads one row per token: left out (< 0.0001%)
    } else if (is_routed_expert(t.role)) {
      w.active_bytes =
          checked_add(w.active_bytes, b / m.n_expert * m.n_expert_used, "active weight bytes");
    } else {
      w.active_bytes = checked_add(w.active_bytes, b, "active weight bytes");
    }
    auto it = std::find_if(w.by_type.begin(), w.by_type.end(),
                           [&](const TypeUsage& u) { return u.type == types[i]; });
    if (it == w.by_type.end()) it = w.by_type.insert(w.by_type.end(), TypeUsage{types[i]});
    it->n_tensors++;
    it->n_elements += t.n_elements();
    it->bytes += b;
  }
  // A tied model's output layer is token_embd itself (llama-model.cpp loads it again as
  // TENSOR_DUPLICATED): the logits read all of it every token, as io/model_file.cpp counts a
  // GGUF without output.weight.
  if (m.tied_embeddings)
    w.active_bytes = checked_add(w.active_bytes, embd_bytes, "active weight bytes");
  std::sort(w.by_type.begin(), w.by_type.end(),
            [](const TypeUsage& a, const TypeUsage& b) { return a.bytes > b.bytes; });
  if (q.gguf && embeddings_on_host) {
    w.host_bytes = embd_bytes;
    w.vram_bytes = w.bytes - embd_bytes + (m.tied_embeddings ? embd_bytes : 0);
  } else {
    w.vram_bytes = w.bytes;
  }
  w.vision_params = vision_tower_params(m.vision);
  if (w.vision_params) {
    w.vision_bytes = checked_mul(w.vision_params, 2, "vision tower bytes");
    w.params = checked_add(w.params, w.vision_params, "parameters");
    w.bytes = checked_add(w.bytes, w.vision_bytes, "weight bytes");
    w.vram_bytes = checked_add(w.vram_bytes, w.vision_bytes, "weight bytes in VRAM");
  }
  return w;
}

Estimate estimate(const ModelSpec& m, const RunConfig& c, const Weights* exact_weights,
                  bool derivations) {
  Estimate e;
  e.n_gpus = c.n_gpus;
  const EngineProfile& ep = engine_profile(c.engine);
  e.weights = exact_weights ? *exact_weights : compute_weights(m, *c.quant, ep.embeddings_on_host);
  if (!ep.embeddings_on_host &&
      e.weights.host_bytes) {  // a GGUF's weights, loaded whole on the GPU
    e.weights.vram_bytes = e.weights.bytes;
    e.weights.host_bytes = 0;
  }
  KvCacheConfig kvc = c.kv;
  kvc.padding = ep.kv_cell_padding;
  kvc.flash_attn = c.flash_attn || (c.engine != Engine::llama_cpp && c.engine != Engine::ollama);
  // Embedding and rerank runs: n_seq documents of n_ctx tokens each, encoded in one pass and
  // nothing generated. An encoder (BERT) keeps no cache at all (llama.cpp creates no memory for
  // it); a decoder-based embedder (Qwen3-Embedding) caches only the batch's own tokens.
  const bool encode_only = m.task != Task::generation;
  if (!m.is_encoder()) e.kv = kv_cache(m, kvc);
  e.rs = recurrent_state(m, c.kv.n_seq);
  const uint64_t tokens_total = uint64_t{c.kv.n_ctx} * c.kv.n_seq;
  // llama.cpp pools a sequence within one ubatch (non-causal attention needs the whole
  // document: llama-context.cpp rejects n_ubatch < n_tokens), so an embedding ubatch holds at
  // least one document.
  const uint64_t ubatch = std::min<uint64_t>(
      encode_only ? std::max(c.kv.n_ubatch, c.kv.n_ctx) : c.kv.n_ubatch, tokens_total);
  // APPROXIMATION: an encoder's graph ends in the hidden states (n_embd per token, the pooled
  // vectors or the rerank head after them), not in vocabulary logits: sized as a model whose
  // output width is n_embd, its attention over the ubatch itself.
  ModelSpec out_m;
  if (m.is_encoder()) {
    out_m = m;
    out_m.n_vocab = m.n_embd;
  }
  const ModelSpec& cm = m.is_encoder() ? out_m : m;
  switch (c.engine) {
    case Engine::llama_cpp:
    case Engine::ollama:
      e.compute = m.is_encoder()
                      ? compute_buffer(cm, ubatch, static_cast<uint32_t>(ubatch), c.flash_attn)
                      : compute_buffer(m, e.kv,
                                       ComputeConfig{static_cast<uint32_t>(ubatch), c.kv.n_seq,
                                                     c.flash_attn, c.kv.type_k});
      break;
    case Engine::vllm:  // the profiling run: max_num_batched_tokens through the model, max_num_seqs
                        // sampled (a pooling model samples nothing)
      e.compute =
          torch_activations(cm, ep.max_num_batched_tokens, encode_only ? 0 : ep.max_num_seqs);
      break;
    case Engine::transformers:  // prefill of the whole context, last-token logits per sequence
      e.compute = torch_activations(cm, tokens_total, encode_only ? 0 : c.kv.n_seq);
      break;
  }
  e.weights_bytes = e.weights.vram_bytes;
  e.kv_cache_bytes = e.kv.total_bytes();
  e.recurrent_state_bytes = e.rs.total_bytes();
  e.activations_bytes = checked_mul(e.compute.bytes(), c.n_gpus);
  e.overhead_bytes = checked_mul(c.overhead_per_gpu_bytes, c.n_gpus);
  e.headroom_bytes = fraction_of(e.subtotal_bytes(), c.headroom);
  e.naive_rule_bytes = fraction_of(e.weights.bytes, 1.2);
  {
    const double act_err = e.compute.summed ? kTorchActivationError : kComputeError;
    const auto bound = [&](double sign) {
      const double sum = static_cast<double>(e.weights_bytes) * (1 + sign * kWeightsError) +
                         static_cast<double>(e.kv_cache_bytes) +
                         static_cast<double>(e.recurrent_state_bytes) +
                         static_cast<double>(e.activations_bytes) * (1 + sign * act_err) +
                         static_cast<double>(e.overhead_bytes) * (1 + sign * kOverheadError);
      return static_cast<uint64_t>(std::llround(sum * (1 + c.headroom)));
    };
    e.total_low_bytes = bound(-1);
    e.total_high_bytes = bound(+1);
  }

  if (e.total_bytes() > e.naive_rule_bytes)
    e.warnings.push_back(
        {EstimateWarningKind::beyond_naive_rule,
         {e.naive_rule_bytes, e.total_bytes(), e.total_bytes() - e.naive_rule_bytes}});
  if (m.arch == Arch::deepseek4)
    e.warnings.push_back({EstimateWarningKind::deepseek4_kv_approximate});
  if (m.n_ctx_train && c.kv.n_ctx > m.n_ctx_train)
    e.warnings.push_back(
        {EstimateWarningKind::beyond_trained_context, {c.kv.n_ctx, m.n_ctx_train}});
  if (e.weights.params_not_in_file)
    e.warnings.push_back(
        {EstimateWarningKind::mtp_not_in_gguf, {m.n_layer_nextn, e.weights.params_not_in_file}});
  // Sweeps and searches call this millions of times: the text of --explain only when asked.
  if (!derivations) return e;

  for (auto* derive : {derive_weights, derive_kv, derive_state, derive_compute, derive_total})
    derive(e, m, c, ep, e.derivations);
  return e;
}

uint64_t per_gpu_bytes(const Estimate& e, const RunConfig& c, uint32_t n) {
  const uint64_t shared =
      checked_add(checked_add(e.weights_bytes, e.kv_cache_bytes, "weights + KV cache bytes"),
                  e.recurrent_state_bytes, "weights + KV cache + recurrent state bytes");
  const uint64_t share = shared / n + (shared % n ? 1 : 0);  // ceil(shared / n), no overflow
  const uint64_t each = checked_add(checked_add(share, e.compute.bytes(), "per-GPU bytes"),
                                    c.overhead_per_gpu_bytes, "per-GPU bytes");
  return checked_add(each, fraction_of(each, c.headroom), "per-GPU bytes with headroom");
}

uint64_t available_kv_bytes(const Estimate& e, const RunConfig& c, uint64_t usable_bytes_each,
                            uint32_t n) {
  // budget = floor(usable x n / (1 + headroom)), the headroom in parts per million as in
  // fraction_of, computed in 128 bits (usable x n x 10^6 needs more than 64).
  __extension__ typedef unsigned __int128 u128;
  const auto headroom_ppm = static_cast<u128>(static_cast<uint64_t>(c.headroom * 1e6 + 0.5));
  const u128 budget128 =
      static_cast<u128>(usable_bytes_each) * n * 1000000 / (1000000 + headroom_ppm);
  if (budget128 > std::numeric_limits<uint64_t>::max())
    throw OverflowError("available KV cache bytes: GPU memory x GPUs overflows 64 bits");
  const auto budget = static_cast<uint64_t>(budget128);
  const uint64_t each =
      checked_add(e.compute.bytes(), c.overhead_per_gpu_bytes, "compute buffer + overhead bytes");
  const uint64_t used = checked_add(
      checked_add(e.weights_bytes, e.recurrent_state_bytes, "weights + recurrent state bytes"),
      checked_mul(each, n, "compute buffer + overhead bytes x GPUs"), "bytes used besides KV");
  return budget > used ? budget - used : 0;
}

uint32_t gpus_needed(const Estimate& e, const RunConfig& c, uint64_t usable_bytes_each,
                     uint32_t max_gpus) {
  for (uint32_t n = 1; n <= max_gpus; ++n)
    if (per_gpu_bytes(e, c, n) <= usable_bytes_each) return n;
  return 0;
}

}  // namespace llmsize
