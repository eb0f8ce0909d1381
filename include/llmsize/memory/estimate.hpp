// The estimate: weights, KV cache, compute buffers, runtime overhead and headroom, part by part.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llmsize/checked.hpp"
#include "llmsize/engine.hpp"
#include "llmsize/gpu.hpp"
#include "llmsize/memory/compute_buffer.hpp"
#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/memory/recurrent_state.hpp"
#include "llmsize/model/model_spec.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/model/tensors.hpp"

namespace llmsize {

// Something the estimate's reader should know, worded by the CLI (src/cli/render/words.cpp).
// The numbers each kind carries in EstimateWarning::n:
enum class EstimateWarningKind : uint8_t {
  // The estimate beyond 1.2 x the rule of thumb: n[0] the 1.2 x weights rule's bytes, n[1] this
  // estimate's total bytes, n[2] the rule's shortfall, bytes (n[1] - n[0]).
  beyond_naive_rule,
  deepseek4_kv_approximate,  // none: DeepSeek-V4's compressed KV caches are approximated
  beyond_trained_context,    // n[0] n_ctx, n[1] the model's n_ctx_train
  mtp_not_in_gguf,           // n[0] MTP layers the GGUF conversion drops, n[1] their parameters
  mtp_not_loaded,            // n[0] MTP layers the engine does not load, n[1] their bytes
};

struct EstimateWarning {
  EstimateWarningKind kind;
  uint64_t n[3] = {0, 0, 0};
  bool operator==(const EstimateWarning& o) const {
    return kind == o.kind && n[0] == o.n[0] && n[1] == o.n[1] && n[2] == o.n[2];
  }
};

// Runtime and driver context per GPU (CUDA context, cuBLAS workspace, allocator slack).
// A stated constant, overridable with --overhead-mib: a CUDA context alone takes 300-500 MiB
// depending on GPU and driver (see docs/formulas.md).
constexpr uint64_t kDefaultOverheadPerGpuBytes = 512ull << 20;
constexpr double kDefaultHeadroom = 0.2;

// Measured error bounds per part (bench/accuracy on tests/data): weights from architecture +
// preset, max 1.43% over 84 GGUF files; llama.cpp compute buffers, max 7.2% over 9 CUDA logs;
// PyTorch activations (vLLM, transformers), max ~60% over 4 vLLM logs; runtime overhead, a CUDA
// context of 300-700 MiB against the 512 MiB default.
constexpr double kWeightsError = 0.015;
constexpr double kComputeError = 0.08;
constexpr double kTorchActivationError = 0.6;
constexpr double kOverheadError = 0.4;

struct Weights;

// A draft model for speculative decoding (llama-server -md FILE): its spec, the preset its
// weights take (or the file's own weights). Not owned by the RunConfig that points to it.
struct DraftModel {
  ModelSpec spec;
  const QuantPreset* quant = nullptr;
  const Weights* exact_weights = nullptr;
};

// A serving engine's kernel layout for the routed experts of one tensor type: their hidden
// (n_embd) and expert-FFN (n_ff_exp) dimensions padded up to multiples, as the engine allocates
// them on the planned GPU (engine_expert_padding below). 0 = not padded.
struct ExpertPadding {
  TensorType type = TensorType::F32;
  uint32_t n_embd_multiple = 0;
  uint32_t n_ff_multiple = 0;
  bool any() const { return n_embd_multiple > 1 || n_ff_multiple > 1; }
};

// How engine e lays out routed experts on a GPU of this architecture (GpuSpec::architecture):
// vLLM's MXFP4 MoE kernels pad them (src/memory/estimate.cpp kExpertPaddings cites each row); none
// for the other engines and GPUs.
ExpertPadding engine_expert_padding(Engine e, std::string_view gpu_architecture);
// The layout engine e takes on this architecture with another install where it is not the one
// llmsize plans (vLLM on Hopper: Marlin's, without triton_kernels); none elsewhere.
ExpertPadding engine_expert_padding_otherwise(Engine e, std::string_view gpu_architecture);

struct RunConfig {
  const QuantPreset* quant = nullptr;  // REQUIRES: non-null
  KvCacheConfig kv;
  bool flash_attn = true;
  double headroom = kDefaultHeadroom;  // fraction added on top of the sum
  uint64_t overhead_per_gpu_bytes = kDefaultOverheadPerGpuBytes;
  uint32_t n_gpus = 1;  // each GPU holds its own compute buffer and runtime overhead
  // Whose allocation rules apply: an engine profile's memory_engine (engine.hpp; SGLang and
  // TensorRT-LLM plans carry Engine::vllm here).
  Engine engine = Engine::llama_cpp;
  // vLLM's profile run on the planned GPU (its max_num_batched_tokens and max_num_seqs defaults,
  // engine.hpp engine_limits); 0: the engine profile's.
  uint32_t profile_tokens = 0;
  uint32_t profile_seqs = 0;
  // llama.cpp's --n-cpu-moe N: the routed experts of blocks 0..N-1 stay in system RAM (llama.cpp
  // and Ollama estimates of a GGUF MoE; ignored otherwise). kAllBlocks: --cpu-moe, every block.
  uint32_t n_cpu_moe = 0;
  // llama.cpp's --kv-unified: the n_seq sequences share one KV stream (Ollama's slots always do).
  bool kv_unified = false;
  // llama-server -md: the draft model loaded beside the main one (llama.cpp engines only).
  const DraftModel* draft = nullptr;
  // MTP speculative decoding (--spec mtp): the serving engine loads the checkpoint's next-n
  // layers it otherwise skips (engine_loads_nextn), as the draft.
  bool load_nextn = false;
  // The engine's padded layout of the routed experts on the planned GPU (added to the weights in
  // memory, Weights::layout_padding_bytes); none = the checkpoint's shapes.
  ExpertPadding expert_padding;
};

// --cpu-moe (llmsize --cpu-experts): every block's experts in system RAM.
constexpr uint32_t kAllBlocks = UINT32_MAX;

// What --n-cpu-moe moved (Estimate::cpu_experts).
struct CpuExperts {
  uint32_t n_blocks = 0;  // blocks 0..n_blocks-1 asked for (capped at the model's blocks)
  uint32_t n_moved = 0;   // of them, blocks that have routed experts
  uint64_t bytes = 0;     // moved from the GPUs to system RAM
  // Read from system RAM per generated token: n_expert_used of n_expert of each moved tensor.
  uint64_t read_bytes_per_token = 0;
  // The largest moved tensor: a prompt batch copies each to the first GPU in turn
  // (ComputeBuffer::weight_copy_bytes).
  uint64_t largest_bytes = 0;
};

// Tokens from which the CUDA and Vulkan backends run a CPU-resident weight's matmul on the GPU
// (ggml-cuda.cu ggml_backend_cuda_device_offload_op: min_batch_size = 32).
constexpr uint32_t kOpOffloadMinBatch = 32;

struct TypeUsage {
  TensorType type;
  uint32_t n_tensors = 0;
  uint64_t n_elements = 0;
  uint64_t bytes = 0;
};

// The tensors of one block that llama.cpp's --n-cpu-moe / --cpu-moe keep in system RAM: every
// tensor whose name matches LLM_FFN_EXPS_REGEX "\\.ffn_(up|down|gate|gate_up)_(ch|)exps"
// (common/common.h; common/arg.cpp adds "blk\\.N" + it for each N < --n-cpu-moe), so the routed
// experts with their biases and scales (ggml-org/llama.cpp PR 15077).
struct ExpertBlock {
  uint64_t bytes = 0;          // all of them
  uint64_t largest_bytes = 0;  // the largest one (what op offload copies to the GPU at once)
};

struct Weights {
  uint64_t params = 0;
  uint64_t active_params = 0;
  uint64_t bytes = 0;       // all tensor data: a GGUF file's tensor bytes
  uint64_t host_bytes = 0;  // kept in system RAM by the engine (llama.cpp: token_embd)
  uint64_t vram_bytes = 0;  // bytes - host_bytes, plus a duplicated tied output
  // Bytes read per generated token: every tensor once, routed experts only n_expert_used of
  // n_expert (MoE), token_embd only one row (a lookup). 0 = unknown (then vram_bytes is used).
  uint64_t active_bytes = 0;
  std::vector<TypeUsage> by_type;
  // The vision tower / projector (ModelSpec::vision), included in params, bytes and vram_bytes:
  // llama.cpp loads it from its own mmproj GGUF, F16 as llama.cpp's convert_hf_to_gguf.py
  // --mmproj writes it by default; 2 bytes per parameter for the other engines (BF16).
  uint64_t vision_params = 0;
  uint64_t vision_bytes = 0;
  // Parameters counted in `params` that the file does not hold: the MTP layers a GGUF
  // conversion drops (ModelSpec::gguf_drops_nextn).
  uint64_t params_not_in_file = 0;
  // Bytes counted in `bytes` (the checkpoint on disk, read at load) that the engine does not put
  // in memory: the MTP / next-n layers vLLM's main model never builds (compute_weights
  // loads_nextn = false). Left out of vram_bytes and active_bytes.
  uint64_t nextn_bytes_not_loaded = 0;
  // Bytes the engine adds in memory by padding the routed experts to its kernel's layout
  // (RunConfig::expert_padding): in vram_bytes, not in `bytes` (the file).
  uint64_t layout_padding_bytes = 0;
  // Per block index (MTP blocks included), the routed-expert tensors --n-cpu-moe moves; empty
  // for a dense model or a checkpoint that is not llama.cpp's.
  std::vector<ExpertBlock> expert_blocks;
  // The language model's bits per weight: the vision tower (F16 / BF16 in its own file or
  // checkpoint part) is left out.
  double bits_per_weight() const {
    const uint64_t n = params - params_not_in_file - std::min(vision_params, params);
    return n ? 8.0 * static_cast<double>(bytes - std::min(vision_bytes, bytes)) /
                   static_cast<double>(n)
             : 0;
  }
  // The language model's parameters (without the vision tower).
  uint64_t text_params() const { return params - std::min(vision_params, params); }
};

// Weights of model m under preset q. llama.cpp keeps token_embd in host memory and, for tied
// embeddings, puts a copy on the GPU as the output layer (llama-model.cpp TENSOR_DUPLICATED);
// other engines (non-GGUF presets) keep every weight on the GPU.
// embeddings_on_host = false for engines that load every weight on the GPU (vLLM, transformers).
// loads_nextn = false: the engine builds only the num_hidden_layers main layers and skips the
// checkpoint's MTP layers (vLLM without MTP speculative decoding; engine_loads_nextn()).
Weights compute_weights(const ModelSpec& m, const QuantPreset& q, bool embeddings_on_host = true,
                        bool loads_nextn = true);

// The bytes padding m's routed experts of pad.type under q to pad's multiples adds (0 for a GGUF
// preset: llama.cpp keeps the file's shapes).
uint64_t expert_padding_bytes(const ModelSpec& m, const QuantPreset& q, const ExpertPadding& pad);

// The experts blocks 0..n-1 of w hold (CpuExperts), for a model of n_expert_used of n_expert.
CpuExperts cpu_experts(const ModelSpec& m, const Weights& w, uint32_t n);

// Adds one tensor of `bytes` that --n-cpu-moe moves to block `layer` of `blocks`.
void add_expert_tensor(std::vector<ExpertBlock>& blocks, uint32_t layer, uint64_t bytes);

// Bits per weight of a whole file under preset p for Llama-3.1-8B's tensor shapes (32 layers,
// n_embd 4,096, n_ff 14,336, 32 heads and 8 KV heads of 128, vocabulary 128,256; untied),
// derived tensor by tensor: the figure `llmsize quants` compares presets by.
double reference_bits_per_weight(const QuantPreset& p);

// A model's parameters and those read per token, as `llmsize models` lists them: they do not
// depend on the quantization (compute_weights under F16 gives them).
struct ModelParams {
  uint64_t params = 0, active_params = 0;
};
ModelParams model_params(const ModelSpec& m);

// Whether engine e puts a checkpoint's MTP / next-n layers in memory. vLLM does not: its main
// model has layers 0..num_hidden_layers-1 only and load_weights skips the rest
// (vllm/model_executor/models/deepseek_v2.py DeepseekV2Model.load_weights "skip spec decode
// layers for main model", glm4_moe.py Glm4MoeModel.load_weights skip_spec_layers; vllm-project/
// vllm commit 002d6073aa034d4f5545d45021b0e56d1f3c3593); the MTP draft model loads them only
// with --speculative-config method mtp. llama.cpp loads what the GGUF holds.
bool engine_loads_nextn(Engine e);
// Whether an estimate of c holds the next-n layers: the engine's rule, or MTP speculative
// decoding (RunConfig::load_nextn).
bool loads_nextn(const RunConfig& c);

struct Estimate {
  Weights weights;
  KvCache kv;
  RecurrentState rs;      // recurrent / linear-attention state (hybrid and SSM models)
  ComputeBuffer compute;  // per GPU: with a llama.cpp layer split, the largest device's
  // llama.cpp / Ollama with n_gpus > 1: each device's buffer (compute_buffers_by_device), whose
  // sum is activations_bytes; empty otherwise (every GPU holds `compute`).
  LayerSplitCompute compute_split;
  // llama.cpp / Ollama: the per-GPU compute buffer on one GPU, and on any split of 2 or more
  // (compute_buffer_any_split), for a GPU count other than n_gpus (compute_bytes_per_gpu);
  // 0 for the other engines, whose buffer does not depend on the count.
  uint64_t compute_one_gpu_bytes = 0;
  uint64_t compute_any_split_bytes = 0;
  uint32_t n_gpus = 1;
  uint32_t n_seq = 1;      // the sequences whose KV cache and state it counts
  CpuExperts cpu_experts;  // RunConfig::n_cpu_moe: weights.vram_bytes is without them
  // RunConfig::draft: the draft model's weights, KV cache and compute buffer on the GPUs, in the
  // total as draft_bytes (weights_bytes, kv_cache_bytes and activations_bytes are the main
  // model's).
  uint64_t draft_weights_bytes = 0, draft_kv_bytes = 0, draft_compute_bytes = 0;
  uint64_t draft_bytes = 0;
  uint64_t weights_bytes = 0;  // in VRAM
  uint64_t kv_cache_bytes = 0;
  uint64_t recurrent_state_bytes = 0;  // rs.total_bytes(): per sequence, independent of n_ctx
  uint64_t activations_bytes = 0;      // compute buffer x n_gpus (a split's: the devices' sum)
  uint64_t overhead_bytes = 0;         // overhead x n_gpus
  uint64_t headroom_bytes = 0;
  uint64_t subtotal_bytes() const {
    return checked_add(
        checked_add(
            checked_add(checked_add(weights_bytes, kv_cache_bytes, "weights + KV cache bytes"),
                        recurrent_state_bytes, "weights + KV cache + recurrent state bytes"),
            activations_bytes, "weights + KV cache + state + activations bytes"),
        checked_add(overhead_bytes, draft_bytes, "overhead + draft bytes"), "subtotal bytes");
  }
  uint64_t total_bytes() const {
    return checked_add(subtotal_bytes(), headroom_bytes, "total bytes");
  }
  // weights_bytes split: the vision tower (llama.cpp: its own mmproj file) and the rest.
  uint64_t vision_weights_bytes() const { return std::min(weights.vision_bytes, weights_bytes); }
  uint64_t text_weights_bytes() const { return weights_bytes - vision_weights_bytes(); }
  // Low-high range of the total from each part's measured error (bench/accuracy): weights
  // kWeightsError, KV and recurrent state exact, compute buffers kComputeError (llama.cpp) or
  // kTorchActivationError, overhead kOverheadError; headroom applied to each bound.
  uint64_t total_low_bytes = 0;
  uint64_t total_high_bytes = 0;
  // The bare rule of thumb "VRAM = 1.2 x weights", for comparison.
  uint64_t naive_rule_bytes = 0;
  // The tokens of one pass: n_ctx x n_seq (what transformers prefills, an embedding batch), and
  // the ubatch the compute buffer was reserved for: n_ubatch, or for an embedding / rerank run
  // min(max(n_ubatch, n_ctx), batch_tokens) (llama.cpp pools a document within one ubatch).
  uint64_t batch_tokens = 0;
  uint64_t ubatch_tokens = 0;
  std::vector<EstimateWarning> warnings;
  // Nonzero: the serial a Planner gave this estimate when it kept it (unique in the process); a
  // plan's copy carries it, so plans with the same serial have the same figures (a sweep writes
  // their memory cells once). 0: made elsewhere.
  uint64_t memo_serial = 0;
};

// REQUIRES: validate(m) is empty, c.quant non-null, c.kv fields > 0, c.n_gpus > 0.
// `exact_weights`, when given (a GGUF or safetensors file read tensor by tensor), replaces the
// weights derived from m and c.quant. Numbers only: --explain words them (src/cli/render).
Estimate estimate(const ModelSpec& m, const RunConfig& c, const Weights* exact_weights = nullptr);

// The smallest number of GPUs of `usable_bytes_each` that hold the estimate with a layer split:
// each GPU carries its share of weights and KV cache plus its own compute buffer and overhead, and
// the headroom applies to each GPU's sum. 0 when even max_gpus are not enough.
uint32_t gpus_needed(const Estimate& e, const RunConfig& c, uint64_t usable_bytes_each,
                     uint32_t max_gpus = kMaxGpus);

// The compute buffer each of n GPUs holds (the largest device's, for a split): e.compute for
// n = e.n_gpus, else the one-GPU or any-split figure of a llama.cpp estimate.
uint64_t compute_bytes_per_gpu(const Estimate& e, uint32_t n);

// What one of n GPUs must hold under the same split, headroom included.
uint64_t per_gpu_bytes(const Estimate& e, const RunConfig& c, uint32_t n);

// KV cache memory n GPUs of `usable_bytes_each` have left once weights, compute buffers and
// overhead are placed and the headroom kept: vLLM's "available KV cache memory" when headroom is
// 1/gpu_memory_utilization - 1. 0 when nothing is left.
uint64_t available_kv_bytes(const Estimate& e, const RunConfig& c, uint64_t usable_bytes_each,
                            uint32_t n);

}  // namespace llmsize
