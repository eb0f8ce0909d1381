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

#include "llmsize/model_spec.hpp"

namespace llmsize {

// Activations of n_embd width alive next to KQ (Q, K, V views, residual, norm output); fitted to
// the LLaMA-7B and Llama-3-8B logs above.
constexpr uint64_t kAttnResidentRows = 5;

struct ComputeBuffer {
  uint64_t output_bytes = 0;
  uint64_t attention_bytes = 0;
  uint64_t ffn_bytes = 0;
  bool summed = false;  // PyTorch engines: the parts add up instead of sharing one arena
  uint64_t bytes() const;
  const char* peak() const;  // "output", "attention" or "ffn"
};

// n_kv: KV cells per sequence of the largest (full-attention) layer; n_ubatch: micro-batch.
ComputeBuffer compute_buffer(const ModelSpec& m, uint64_t n_kv, uint32_t n_ubatch, bool flash_attn);

// PyTorch engines (vLLM, transformers) with fused flash attention, BF16 activations
// (APPROXIMATION): a forward pass over `tokens` keeps the MLP's gate and up outputs and a few
// hidden-state copies alive, plus FP32 logits for `logit_rows` sampled positions:
//   ffn       = 2 B x tokens x (2 x n_ff + 4 x n_embd)   (MoE: n_ff = routed x n_ff_exp + shared)
//   attention = 2 B x tokens x (q + k + v widths + n_embd)
//   output    = 4 B x logit_rows x n_vocab
// the buffer is their sum (PyTorch's caching allocator does not overlap them the way ggml does).
ComputeBuffer torch_activations(const ModelSpec& m, uint64_t tokens, uint64_t logit_rows);

}  // namespace llmsize
