// The compute (activation) buffer llama.cpp reserves on each GPU for the worst-case graph:
// n_ubatch tokens, all of them producing logits, attending over the full KV cache
// (llama-context.cpp graph_reserve(n_tokens, n_seqs, n_outputs = n_tokens)).
//
// APPROXIMATION: ggml-alloc reuses memory, so the buffer is the peak of the live tensors at one
// point of the graph. We take the largest of three peaks, each counted in F32 (4 bytes):
//   output:    logits n_vocab x n_ubatch + the final hidden state n_embd x n_ubatch
//   attention: without flash attention the KQ scores n_kv x n_ubatch x n_head plus
//              kAttnResidentRows x n_embd x n_ubatch of surrounding activations;
//              with flash attention only Q, K, V and the output (no n_kv term)
//   ffn:       gate and up outputs (n_ff, or routed experts x n_ff_exp + shared) + 2 x n_embd
// Calibrated on llama.cpp CUDA logs (tests/data/measured_memory.json): LLaMA-7B 77.55 MiB at
// n_ctx 512 and 171.60 MiB at 2048; Llama-3-8B 258.50 MiB at 512 and 560 MiB at 8192.
#pragma once

#include <cstdint>

#include "llmsize/kv_cache.hpp"
#include "llmsize/model_spec.hpp"
#include "llmsize/tensor_type.hpp"

namespace llmsize {

// Activations of n_embd width alive next to KQ (Q, K, V views, residual, norm output); fitted to
// the LLaMA-7B and Llama-3-8B logs above.
constexpr uint64_t kAttnResidentRows = 5;

struct ComputeBuffer {
  uint64_t output_bytes = 0;
  uint64_t attention_bytes = 0;
  uint64_t ffn_bytes = 0;
  uint64_t recurrent_bytes = 0;    // Mamba2 in-projection and scan (per-layer model only)
  uint64_t mask_bytes = 0;         // KQ masks, live through every layer (per-layer model only)
  uint64_t output_hole_bytes = 0;  // of output_bytes: the free block left under the logits
                                   // (per-layer model only)
  bool summed = false;             // PyTorch engines: the parts add up instead of sharing one arena
  uint64_t bytes() const;
  const char* peak() const;  // "output", "attention", "ffn" or "recurrent"
};

// n_kv: KV cells per sequence of the largest (full-attention) layer; n_ubatch: micro-batch.
ComputeBuffer compute_buffer(const ModelSpec& m, uint64_t n_kv, uint32_t n_ubatch, bool flash_attn);

// The per-layer model of llama.cpp's graph reserve (CPU backend, ggml-alloc), for models with a
// per-layer description (ModelSpec::layer_kinds: the 2025-2026 architectures) or with MLA
// (deepseek2: GLM-4.7-Flash, Kimi-K2, DeepSeek-V3); the other models get the formula above with
// n_kv = kv.cells_full, unchanged.
//
// How llama.cpp sizes it (ggml-org/llama.cpp at de3ff815, the build the probe measured):
// llama-context.cpp sched_reserve() reserves the graph of n_tokens = min(n_ctx, n_ubatch)
// tokens in n_seq_max equal sequences with n_outputs = n_tokens (n_outputs_max defaults to
// n_batch) over the full KV cache (init_full: n_kv = every cell of a stream), and the buffer is
// the peak of ggml-alloc.c's greedy best-fit allocator over that graph. In ggml-alloc.c the graph
// inputs are allocated first, at the bottom of the buffer, and an input is freed only after its
// last consumer: the KQ masks (llama-graph.cpp build_attn_inp_kv: [n_kv, n_tokens / n_stream,
// 1, n_stream], F16 with flash attention, F32 without, one per cache of an iSWA model) stay live
// through every layer and are freed after the last attention layer. The peak is the largest of:
//   output:    logits 4 x n_tokens x n_vocab + 3 n_embd rows (inp_embd, result_norm, the last
//              residual) + 3/8 of the masks: the hole the freed masks leave below the live rows
//              is refilled or not depending on the allocation order (measured: 0 to all of it,
//              tests/data/llamacpp_measured_2026.json); 3/8 keeps both ends within 15% or
//              64 MiB up to 128 MiB of masks (flash attention, 128k cells). In the delta-net
//              and short-conv hybrids the hole is known refilled, and counted 0, when a layer
//              follows the last attention layer (LFM2) or when the masks are at least the last
//              layer's MoE down projection (4 x n_tokens x n_expert_used x n_embd): the rows
//              live under the logits then land in the hole (compute_buffer.cpp)
//   attention: without flash attention, for the layer kind with the largest KQ:
//              KQ 4 x n_head x n_kv x n_tokens (n_kv per stream: n_ctx padded, the SWA / chunk
//              cells) + masks + Q (4 x n_tokens x n_head x head_dim; gated Q: x 3) + V row
//              indices (8 B x n_tokens x n_embd_v_gqa per cache: V is stored transposed) +
//              2 n_embd rows; MLA adds the transposed copy of the latent (v_cont, n_kv x
//              kv_lora_rank per stream in the cache type) and the absorbed q_nope (4 x n_tokens x
//              n_head x kv_lora_rank, concatenated with the rope part into Q of n_head x
//              (kv_lora_rank + rope), freed below KQ).
//              With flash attention: masks + 2 Q + 2 n_embd rows (no n_kv term)
//   ffn:       masks + gate, up and their product (3 x 4 x n_tokens x n_ff) + 2 n_embd rows;
//              MoE: masks + 4 x n_tokens x n_expert_used x max(3 n_ff_exp, n_ff_exp + n_embd)
//              (gate/up/act, or act + the down projection of every used expert) + the router's
//              argsort (4 x n_tokens x n_expert) + 3 n_embd rows
//   recurrent: Mamba2 layers: masks + 4 x n_tokens x (in-projection 2 d_inner + 2 n_group d_state
//              + n_head, conv output d_inner + 2 n_group d_state, scan output and y 2 d_inner) +
//              the scan's state 4 x d_state x d_inner x n_seq + 2 n_embd rows
// Gated delta-net and short-conv layers peak below their FFN at n_ubatch up to 2048 (measured)
// and are not modelled. Checked against llama.cpp (CPU) on every probe run in
// tests/data/llamacpp_measured_2026.json and on its reserve grid at n_ubatch 512 and 2048 (and 1024
// for the recurrent and hybrid models): within 15% or 64 MiB; and at n_ubatch 4096
// (compute_grid_ubatch_4096: gpt-oss-20b, qwen3-next, qwen3.5, qwen3.6, granite-4.0-h,
// nemotron-h, lfm2) in 237 of 238 settings. There lfm2-1.2b at 1 sequence has n_tokens =
// n_embd_r, where a 0-byte tensor leaves an empty block in ggml-alloc's free list and the last
// layer's FFN rows (or the freed masks) stay under the logits: counted (compute_buffer.cpp,
// output_mask_hole), but at 131072 cells with q8_0 KV the masks' hole is refilled (+38%). A
// CUDA build reserves the same
// graph per device, with the inputs' host copies in a separate CUDA_Host buffer and cuBLAS /
// flash-attention scratch in the CUDA pool rather than in the compute buffer. NOT MODELLED:
// with several GPUs in a layer split and every layer offloaded, llama.cpp turns on pipeline
// parallelism (llama-context.cpp at de3ff815: n_devices > 1, n_gpu_layers > n_layer, split mode
// layer, offload_kqv, no tensor overrides, devices with async compute and events), and the
// scheduler then keeps GGML_SCHED_MAX_COPIES = 4 copies of each split input on each device (the
// masks, positions, KV indices and the hidden state passed between devices), marked input and
// output so that ggml-alloc never frees them (ggml-backend.cpp ggml_backend_sched_split_graph);
// each GPU is counted here with the single-device buffer, logits included.
struct ComputeConfig {
  uint32_t n_ubatch = 512;  // tokens of the reserved micro-batch (min(n_ubatch, n_ctx total))
  uint32_t n_seq = 1;       // sequences (streams) the micro-batch is split into
  bool flash_attn = true;
  TensorType type_k = TensorType::F16;
};
ComputeBuffer compute_buffer(const ModelSpec& m, const KvCache& kv, const ComputeConfig& c);

// PyTorch engines (vLLM, transformers) with fused flash attention, BF16 activations
// (APPROXIMATION): a forward pass over `tokens` keeps the MLP's gate and up outputs and a few
// hidden-state copies alive, plus FP32 logits for `logit_rows` sampled positions:
//   ffn       = 2 B x tokens x (2 x n_ff + 4 x n_embd)   (MoE: n_ff = routed x n_ff_exp + shared)
//   attention = 2 B x tokens x (q + k + v widths + n_embd)
//   output    = 4 B x logit_rows x n_vocab
// the buffer is their sum (PyTorch's caching allocator does not overlap them the way ggml does).
ComputeBuffer torch_activations(const ModelSpec& m, uint64_t tokens, uint64_t logit_rows);

}  // namespace llmsize
