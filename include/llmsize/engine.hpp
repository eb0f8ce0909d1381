// Inference engines as data: how each one sizes its KV pool, batches, splits a model and stores KV.
//
// The memory rules (each engine's own code, cited in src/engine.cpp):
//   vLLM      pool = total x gpu_memory_utilization - weights - activation peak - non-torch
//   SGLang    pool = total x mem_fraction_static - weights, mem_fraction_static =
//             (total - reserved) / total with reserved from chunked_prefill_size and
//             cuda_graph_max_bs
//   TRT-LLM   pool = (total - weights - activations - runtime) x free_gpu_memory_fraction
//   llama.cpp / Ollama / transformers: -np slots (OLLAMA_NUM_PARALLEL) of n_ctx cells each, in what
//             the GPU has left.
// One row per engine (src/engine.cpp) holds everything that differs between them: the memory rule,
// the KV types, the backends, the batch defaults (engine_limits) and the allocation rules the
// memory table applies (estimate(): SGLang and TensorRT-LLM are sized by vLLM's, memory_engine).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsize/gpu.hpp"
#include "llmsize/model/tensor_type.hpp"

namespace llmsize {

enum class Engine { llama_cpp, ollama, vllm, sglang, trt_llm, transformers };

// KV cache element types. fp8_e4m3/fp8_e5m2 are the serving engines' FP8 caches (vLLM
// --kv-cache-dtype, SGLang --kv-cache-dtype, TensorRT-LLM kv_cache_config.dtype); q8_0/q4_0 are
// llama.cpp's -ctk/-ctv types.
enum class KvDtype { f16, bf16, fp8_e4m3, fp8_e5m2, q8_0, q4_0 };

const char* kv_dtype_name(KvDtype t);
std::optional<KvDtype> kv_dtype_from_name(std::string_view name);
// The tensor type whose row size gives the cache's bytes (both FP8 kinds store 1 byte).
TensorType kv_tensor_type(KvDtype t);

// Where the KV pool comes from.
enum class MemoryRule {
  share_of_total,  // vLLM gpu_memory_utilization, SGLang mem_fraction_static
  share_of_free,   // TensorRT-LLM free_gpu_memory_fraction, after weights and buffers
  fixed_slots,     // llama.cpp -np x -c, Ollama OLLAMA_NUM_PARALLEL x num_ctx, transformers
};

// What the scheduler reserves for a running request.
enum class KvReservation {
  on_demand,     // blocks as tokens arrive, preempting when full (vLLM, SGLang)
  full_request,  // isl + osl up front (TensorRT-LLM GUARANTEED_NO_EVICT, the default policy)
  full_context,  // a slot of n_ctx cells per sequence (llama.cpp, Ollama, transformers' cache)
};

enum class SplitMode { layer, tensor };

// What sizes the activations (compute buffers) in the memory table.
enum class ActivationRule {
  ggml_graph,    // llama.cpp's worst-case graph, reserved by ggml-alloc (llama.cpp, Ollama)
  batch_peak,    // the peak of a forward at the batch limits (vLLM's profile run; SGLang and
                 // TensorRT-LLM are sized by it through memory_engine)
  whole_prompt,  // PyTorch eager: the whole prompt in one forward pass (transformers)
};

struct EngineProfile {
  Engine engine;
  const char* name;      // "vllm", "sglang", "trt-llm", "llama.cpp", "ollama", "transformers"
  Engine memory_engine;  // estimate()'s allocation rules for weights and activations
  MemoryRule memory_rule;
  KvReservation reservation;
  SplitMode default_split;
  bool checkpoint_weights;   // weights default to the checkpoint's dtype / quantization_config
  bool continuous_batching;  // requests join and leave the running batch every step
  bool chunked_prefill;      // prompts split into max_num_batched_tokens chunks mixed with decode
  bool cuda_graphs;          // decode steps replayed as graphs (no per-kernel launch cost)
  bool profile_run;  // activations sized by a profile run at the GPU's batch limits (vLLM's)
  // Refuses to start when the KV pool cannot hold one max_model_len request (vLLM:
  // vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory raises "To serve at least one
  // request with the models's max seq len ..."); the others start and cap the request.
  bool needs_one_full_request;
  uint32_t kv_block_tokens;        // paged KV granularity (vLLM 16, SGLang page_size 1, TRT-LLM 32)
  std::vector<KvDtype> kv_dtypes;  // accepted KV types, default first
  const char* source;
  // The GPU software stacks it runs on, in the catalog's names (GpuSpec::backends: cuda, rocm,
  // sycl, vulkan, metal, habana), and where that is stated.
  std::vector<std::string_view> backends;
  const char* backends_source;
  // The allocation rules estimate() applies, read through memory_engine (RunConfig::engine):
  uint32_t kv_cell_padding;  // llama.cpp pads n_ctx to 256; vLLM allocates 16-token blocks
  bool embeddings_on_host;   // llama.cpp keeps token_embd in host memory
  bool flash_attn_default;
  uint64_t overhead_per_gpu_bytes;  // runtime outside the model's tensors
  double headroom_default;          // the 20% rule; vLLM: 1/0.9 - 1 so the sum is 90% of memory
  uint32_t max_num_batched_tokens;  // vLLM's profiling batch (activations); 0 = not used
  uint32_t max_num_seqs;            // vLLM's sampler batch in the profile run; 0 = not used
  const char* memory_source;
  ActivationRule activations;
};

const EngineProfile& engine_profile(Engine e);
// By name or alias ("llama-server", "tensorrt-llm", "hf"); the names in --engine's order.
std::optional<Engine> engine_from_name(std::string_view name);
const std::vector<const char*>& engine_names();
bool supports_kv_dtype(const EngineProfile& p, KvDtype t);
// Whether the engine runs on a GPU of these backends (GpuSpec::backends): one in common, or the
// GPU lists none (unknown: not ruled out).
bool runs_on(const EngineProfile& p, const std::vector<std::string>& gpu_backends);

// Batch limits and memory share an engine picks for a GPU when the user sets none.
struct EngineLimits {
  uint32_t max_num_seqs = 0;            // running requests (SGLang max_running_requests, TRT
                                        // max_batch_size, llama.cpp -np)
  uint32_t max_num_batched_tokens = 0;  // tokens per step (SGLang chunked_prefill_size, TRT
                                        // max_num_tokens, llama.cpp -b)
  double memory_fraction = 0;           // gpu_memory_utilization / mem_fraction_static /
                                        // free_gpu_memory_fraction; 0 for fixed slots
  uint32_t cuda_graph_max_bs = 0;       // largest decode batch captured as a graph (0 = none)
  uint64_t reserved_bytes = 0;          // SGLang's reserved_mem; vLLM's non-torch estimate
};

// REQUIRES: gpu_memory_bytes > 0, tp > 0, pp > 0. `small_batch` selects vLLM's A100 exception
// (vllm_small_batch_defaults).
EngineLimits engine_limits(Engine e, uint64_t gpu_memory_bytes, bool small_batch, uint32_t tp,
                           uint32_t pp);

// vLLM keeps a GPU of 70 GiB or more on the small batch defaults when its device name says A100
// (EngineArgs.get_batch_defaults, PR #17885): of the catalog's GPUs, the Ampere datacenter parts
// (GpuSpec::architecture, not the id).
inline bool vllm_small_batch_defaults(const GpuSpec& g) {
  return g.architecture == "ampere" && g.gpu_class == GpuClass::datacenter;
}

// The memory engine e sizes its pool from on GPU g: a share rule's engine (vLLM, SGLang,
// TensorRT-LLM) takes a share of what the CUDA / HIP runtime reports
// (GpuSpec::engine_visible_bytes); the slot engines fill the usable memory under the plan's
// headroom rule.
uint64_t engine_memory_bytes(Engine e, const GpuSpec& g);

// KV pool per GPU under the engine's rule: weights, activations and runtime are per GPU. 0 when
// nothing is left.
uint64_t kv_pool_bytes(const EngineProfile& p, const EngineLimits& l, uint64_t gpu_memory_bytes,
                       uint64_t weights_bytes, uint64_t activations_bytes, uint64_t runtime_bytes);

}  // namespace llmsize
