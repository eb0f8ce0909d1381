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

#include <cstddef>
#include <cstdint>
#include <vector>

#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/model/model_spec.hpp"
#include "llmsize/model/tensor_type.hpp"

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
  bool summed = false;             // the parts add up instead of sharing one arena (transformers)
  bool torch = false;              // PyTorch's caching allocator (its error, not ggml's)
  // A device of a pipelined layer split (compute_buffers_by_device): the n_copies copies of the
  // graph inputs it reads, kept below the parts and never freed.
  uint64_t inputs_bytes = 0;
  // A weight kept in system RAM (--n-cpu-moe) that a prompt batch's matmul runs on the GPU
  // with: ggml-backend.cpp's scheduler gives each split input from another backend a copy that
  // "is allocated by ggml-alloc at the start of the split", and starts a new split at each such
  // weight so the copies reuse one block (ggml_backend_sched_split_graph); the CUDA and Vulkan
  // backends offload an op from 32 tokens up (offload_op min_batch_size). The largest such
  // weight, added to the first GPU's buffer (the scheduler's first backend that takes the op).
  uint64_t weight_copy_bytes = 0;
  uint64_t peak_bytes() const;  // the largest part (the sum, when summed)
  uint64_t bytes() const;       // inputs_bytes + peak_bytes() + weight_copy_bytes
  const char* peak() const;     // "output", "attention", "ffn", "recurrent" or "none" (no layers)
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
// flash-attention scratch in the CUDA pool rather than in the compute buffer. Several GPUs in a
// layer split: compute_buffers_by_device below.
struct ComputeConfig {
  uint32_t n_ubatch = 512;  // tokens of the reserved micro-batch (min(n_ubatch, n_ctx total))
  uint32_t n_seq = 1;       // sequences (streams) the micro-batch is split into
  bool flash_attn = true;
  TensorType type_k = TensorType::F16;
};
ComputeBuffer compute_buffer(const ModelSpec& m, const KvCache& kv, const ComputeConfig& c);
// The same with m's layer_groups() already made (an estimate makes them once for every part).
ComputeBuffer compute_buffer(const ModelSpec& m, const KvCache& kv, const ComputeConfig& c,
                             const std::vector<LayerGroup>& groups);

// llama.cpp's copies of each split input (ggml-backend.cpp GGML_SCHED_MAX_COPIES).
constexpr uint32_t kSchedMaxCopies = 4;

// One device of a layer split and its compute buffer.
struct DeviceCompute {
  uint32_t first_layer = 0;  // it holds layers [first_layer, first_layer + n_layer) of the
  uint32_t n_layer = 0;      // n_layer + n_layer_nextn blocks (MTP layers are held, not computed)
  bool output = false;       // the output layer: output norm, lm_head and the logits
  ComputeBuffer buffer;
};
struct LayerSplitCompute {
  uint32_t n_copies = 1;  // copies of each split input (4 with pipeline parallelism)
  std::vector<DeviceCompute> devices;
  size_t largest() const;  // index of the device with the largest buffer (the first of equals)
  // Index of the device holding the output layer: the last one, unless there are more devices
  // than layers + 1 (the devices after it then hold nothing).
  size_t output_device() const;
  uint64_t total_bytes() const;
};

// The compute buffer of each of n_devices GPUs alike in llama.cpp's layer split (--split-mode
// layer, the default), every layer offloaded (ggml-org/llama.cpp at de3ff815).
//
// Which layers: llama-model.cpp load_tensors assigns layer il of n_layer_all (the GGUF's block
// count, MTP layers included) and the output layer (il = n_layer_all) to the device
// upper_bound(splits, il / (n_layer_all + 1)), splits being the cumulative shares of the free
// memory of each device (tensor_split when given): for n devices alike, device d holds the il
// with d <= il x n / (n_layer_all + 1) < d + 1, and the last device holds the output layer. The
// token embeddings stay on the CPU (dev_input), so the first device's input is a copy of the
// CPU's get_rows output (CUDA's offload_op never offloads GET_ROWS: batch size 0).
// (common/fit.cpp, on by default in llama-server and llama-cli, keeps this split when every
// device keeps its 1 GiB margin, and moves layers otherwise: not modelled.)
//
// Which ops run where: an op goes to the device of its weights, "norm" and "l_last" of layer il
// are forced to il's device (llama-context.cpp graph_get_cb, full offload), and the ops between
// follow (ggml-backend.cpp ggml_backend_sched_split_graph passes 1-4). Each device computes its
// layers' part of the per-layer model above (compute_buffer(m, kv, c) restricted to the layer
// kinds it holds), and only the device of the output layer the output part (logits). The 2024
// architectures without a per-layer description keep the formula of compute_buffer(m, n_kv, ...):
// its attention and ffn parts on each device holding layers, its output part on the output
// device, plus the input copies (APPROXIMATION: that formula has no mask term of its own; without
// flash attention its fitted rows may already hold one copy of the mask).
//
// Pipeline parallelism (n_copies > 1): llama-context.cpp turns it on when n_devices > 1,
// n_gpu_layers > n_layer_all (every layer and the output on the GPUs), split mode layer,
// offload_kqv and no tensor overrides, on devices with async compute and events (CUDA, ROCm);
// the scheduler then has n_copies = GGML_SCHED_MAX_COPIES = 4 (ggml_backend_sched_new). In
// ggml_backend_sched_split_graph a tensor a split reads from another backend is copied to the
// split's backend once per (tensor, backend), n_copies times, and with n_copies > 1 each copy is
// marked input and output "to prevent ggml-alloc from overwriting the tensor": ggml-alloc.c
// allocates the leafs first and never frees an output, so they sit at the bottom of the device's
// buffer for the whole graph. The graph inputs (ggml_set_input: masks, positions, indices) are
// assigned to the CPU backend (pass 1, "1.inp") and copied to each device whose layers read
// them. Counted per device, x n_copies (inputs_bytes):
//   hidden state in: 4 x n_tokens x n_embd (the CPU's token embeddings, or the previous
//                    device's last residual)
//   per cache its layers read: KQ mask (cells x n_tokens, F16 with flash attention, F32
//                    without), K indices 8 x n_tokens, V indices 8 x n_tokens (flash
//                    attention) or 8 x n_tokens x n_embd_v_gqa (V transposed)
//   positions:       4 x n_tokens x n_pos_per_embd (4 with M-RoPE: qwen3vl, qwen35,
//                    qwen35moe), when it holds an attention layer
//   state copy ids:  4 x n_seq, when it holds a recurrent layer
//   output ids:      4 x n_tokens, on the device of the last layer (the get_rows of the outputs)
// and its parts then count no masks or V indices of their own (they are the persistent copies)
// and no freed masks' hole under the logits. The per-GPU figure of the plan is the largest
// device's (the last device's logits, usually); the total is their sum.
// Without pipeline parallelism (n_copies = 1: a partial offload, or Ollama, whose ggml backend
// creates its scheduler with parallel = false: ollama/ollama ml/backend/ggml/ggml.go
// ggml_backend_sched_new_ext) the copies are ordinary tensors freed after their last use, and
// each device has the parts of its layers, masks live through them as on one device.
// NOT MODELLED: the attention rotation matrices of a quantized KV cache (attn_inp_k_rot /
// v_rot, F32 nrot x nrot, at most 256 KiB each), Gemma 3n / Gemma 4's per-layer inputs and
// AltUp streams crossing devices, the KV a shared layer reads from another device; the
// CUDA_Host buffer that holds the inputs' n_copies host copies.
// NOT MEASURED: the CPU build the probe uses (bench/llamacpp_probe) has one device and never
// turns pipeline parallelism on, so these figures follow the code, not a measurement.
LayerSplitCompute compute_buffers_by_device(const ModelSpec& m, const KvCache& kv,
                                            const ComputeConfig& c, uint32_t n_devices,
                                            uint32_t n_copies);
// The same with m's layer_layout() already made.
LayerSplitCompute compute_buffers_by_device(const ModelSpec& m, const KvCache& kv,
                                            const ComputeConfig& c, uint32_t n_devices,
                                            uint32_t n_copies, const LayerLayout& layout);

// A device holding every layer kind and the output layer of a split with n_copies: at least the
// largest device of any split over 2 or more GPUs (the per-GPU figure when the GPU count is not
// yet known).
ComputeBuffer compute_buffer_any_split(const ModelSpec& m, const KvCache& kv,
                                       const ComputeConfig& c, uint32_t n_copies);
// The same with m's layer_groups() already made.
ComputeBuffer compute_buffer_any_split(const ModelSpec& m, const KvCache& kv,
                                       const ComputeConfig& c, uint32_t n_copies,
                                       const std::vector<LayerGroup>& groups);

// PyTorch engines (vLLM, transformers) with fused flash attention, BF16 activations
// (APPROXIMATION): a forward pass over `tokens` keeps the MLP's gate and up outputs and a few
// hidden-state copies alive, plus FP32 logits for `logit_rows` sampled positions:
//   ffn       = 2 B x tokens x (2 x n_ff + 4 x n_embd)   (MoE: n_ff = routed x n_ff_exp + shared)
//   attention = 2 B x tokens x (q + k + v widths + n_embd)
//   output    = 4 B x logit_rows x n_vocab
// the buffer is their sum (PyTorch's caching allocator does not overlap them the way ggml does).
ComputeBuffer torch_activations(const ModelSpec& m, uint64_t tokens, uint64_t logit_rows);

// The bytes vLLM's profile run holds per sampled row and vocabulary entry (the native top-k /
// top-p sampler, vllm/v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p, which the profile's
// dummy sampler run drives with top-k and top-p set): the BF16 logits 2 + their FP32 copy 4 +
// the sorted FP32 values 4 and int64 indices 8 + the sort's own copies of keys and indices 12 +
// the radix sort's double buffer, about 8 = 38. The two H100 logs that print the profile's
// peak agree: gpt-oss-20b 7.38 GiB over 1,024 rows x 201,088 entries (38.5 B) and Qwen3-32B at
// TP 2 5.64 GiB over 1,024 x 151,936 (38.9 B; llm-d's vLLM memory analysis). FlashInfer's
// sampler, where installed and able to compile, holds about the logits alone: this is the
// native path every install has.
constexpr uint64_t kVllmSamplerBytesPerLogit = 38;

// vLLM's profile run (vllm/v1/worker/gpu_model_runner.py profile_run): a forward pass of
// `tokens` (max_num_batched_tokens), then the sampler over min(`rows`, tokens) rows
// (max_num_seqs) of the last hidden states. The peak is the larger of the forward's
// (torch_activations' ffn and attention, freed layer by layer) and the sampler's
// (rows x n_vocab x kVllmSamplerBytesPerLogit + the kept hidden states, 2 B x tokens x n_embd),
// not their sum: the forward's temporaries are free when the sampler runs.
ComputeBuffer vllm_profile_peak(const ModelSpec& m, uint64_t tokens, uint64_t rows);

}  // namespace llmsize
