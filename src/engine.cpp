#include "llmsize/engine.hpp"

#include <algorithm>
#include <cmath>

#include "llmsize/units.hpp"

namespace llmsize {
namespace {

using K = KvDtype;

const EngineProfile kProfiles[] = {
    {Engine::llama_cpp,
     "llama.cpp",
     Engine::llama_cpp,
     MemoryRule::fixed_slots,
     KvReservation::full_context,
     SplitMode::layer,
     false,
     true,
     false,
     false,
     false,
     false,
     256,
     {K::f16, K::bf16, K::q8_0, K::q4_0},
     "llama.cpp tools/server: -np slots of -c/-np cells (GGML_PAD 256), -sm layer by default, "
     "continuous batching (-cb) on, -ctk/-ctv f16|bf16|q8_0|q4_0 (tools/server/README.md)",
     {"cuda", "rocm", "vulkan", "sycl", "metal"},
     "ggml-org/llama.cpp README.md, Supported backends: Metal, CUDA, HIP (ROCm), Vulkan, SYCL "
     "(no Intel Gaudi backend)",
     256,
     true,
     true,
     512 * kMiB,
     0.2,
     0,
     0,
     "llama.cpp: GGML_PAD(n_ctx, 256) (llama-context.cpp), token_embd on the CPU "
     "(llama-model.cpp), flash attention auto-enabled on CUDA/Metal since 2025",
     ActivationRule::ggml_graph},
    {Engine::ollama,
     "ollama",
     Engine::ollama,
     MemoryRule::fixed_slots,
     KvReservation::full_context,
     SplitMode::layer,
     false,
     true,
     false,
     false,
     false,
     false,
     256,
     {K::f16, K::q8_0, K::q4_0},
     "Ollama runs llama.cpp: OLLAMA_NUM_PARALLEL slots of num_ctx, layers spread over GPUs, "
     "OLLAMA_KV_CACHE_TYPE f16|q8_0|q4_0 with OLLAMA_FLASH_ATTENTION=1 (docs/faq.md)",
     {"cuda", "rocm", "metal"},
     "ollama/ollama docs/gpu.md: NVIDIA (CUDA), AMD Radeon (ROCm), Apple (Metal)",
     256,
     true,
     false,
     512 * kMiB,
     0.2,
     0,
     0,
     "Ollama runs llama.cpp: KV for num_ctx x OLLAMA_NUM_PARALLEL slots, flash attention off "
     "unless OLLAMA_FLASH_ATTENTION=1",
     ActivationRule::ggml_graph},
    {Engine::vllm,
     "vllm",
     Engine::vllm,
     MemoryRule::share_of_total,
     KvReservation::on_demand,
     SplitMode::tensor,
     true,
     true,
     true,
     true,
     true,
     true,
     16,
     {K::bf16, K::f16, K::fp8_e4m3, K::fp8_e5m2},
     "vLLM: KV pool = total x gpu_memory_utilization (0.9) - weights - profiled activation peak - "
     "non-torch memory (vllm/v1/worker/gpu_worker.py determine_available_memory); 16-token "
     "blocks (vllm/config/cache.py block_size); V1 always chunks prefills; --kv-cache-dtype "
     "auto|fp8|fp8_e4m3|fp8_e5m2; CUDA graphs live in the 10% outside the pool (V0 and V1 logs; "
     "V1 >= ~0.10.2 prints their size, tests/data/engine_measurements.json)",
     {"cuda", "rocm", "sycl", "habana", "metal"},
     "vllm-project/vllm docs/getting_started/installation (v0.26.0): GPU variants NVIDIA CUDA, "
     "AMD ROCm, Intel XPU (Intel Data Center GPU, Intel Arc), Apple Silicon; Intel Gaudi as an "
     "accelerator",
     16,
     false,
     true,
     1 * kGiB,
     1.0 / 0.9 - 1,
     8192,
     256,
     "vLLM: PagedAttention blocks of 16 tokens, gpu_memory_utilization 0.9 of total memory, "
     "profiling run of max_num_batched_tokens (8192) and max_num_seqs (256); non-torch memory "
     "+ CUDA graphs ~1 GiB",
     ActivationRule::batch_peak},
    {Engine::sglang,
     "sglang",
     Engine::vllm,
     MemoryRule::share_of_total,
     KvReservation::on_demand,
     SplitMode::tensor,
     true,
     true,
     true,
     true,
     false,
     false,
     1,
     {K::bf16, K::f16, K::fp8_e4m3, K::fp8_e5m2},
     "SGLang: weights + KV pool = total x mem_fraction_static (python/sglang/srt/server_args.py "
     "_handle_gpu_memory_settings, model_runner.py profile_max_num_token); RadixAttention "
     "page_size 1; chunked_prefill_size by GPU memory; --kv-cache-dtype auto|fp8_e5m2|fp8_e4m3",
     {"cuda", "rocm", "sycl"},
     "docs.sglang.io Hardware Platforms: NVIDIA GPUs, AMD GPUs, XPU (Intel), Ascend NPUs, TPU, "
     "CPU",
     16,
     false,
     true,
     1 * kGiB,
     1.0 / 0.9 - 1,
     8192,
     256,
     "SGLang is sized by vLLM's allocation rules in the memory table (memory_engine)",
     ActivationRule::batch_peak},
    {Engine::trt_llm,
     "trt-llm",
     Engine::vllm,
     MemoryRule::share_of_free,
     KvReservation::full_request,
     SplitMode::tensor,
     true,
     true,
     false,
     true,
     false,
     false,
     32,
     {K::bf16, K::f16, K::fp8_e4m3},
     "TensorRT-LLM: KV pool = free_gpu_memory_fraction (0.9) of the memory free after weights "
     "and buffers (tensorrt_llm/llmapi/llm_args.py KvCacheConfig; perf-overview.md: default "
     "0.90, benchmarks 0.95); tokens_per_block 32; GUARANTEED_NO_EVICT capacity scheduler "
     "reserves each request's isl + osl; in-flight batching; FP8 KV from the ModelOpt checkpoint",
     {"cuda"},
     "NVIDIA TensorRT-LLM: NVIDIA GPUs only (CUDA)",
     16,
     false,
     true,
     1 * kGiB,
     1.0 / 0.9 - 1,
     8192,
     256,
     "TensorRT-LLM is sized by vLLM's allocation rules in the memory table (memory_engine)",
     ActivationRule::batch_peak},
    {Engine::transformers,
     "transformers",
     Engine::transformers,
     MemoryRule::fixed_slots,
     KvReservation::full_context,
     SplitMode::layer,
     true,
     false,
     false,
     false,
     false,
     false,
     1,
     {K::bf16, K::f16},
     "transformers generate(): static batches, DynamicCache grows token by token, "
     "device_map='auto' places layers GPU after GPU (accelerate)",
     {"cuda", "rocm", "sycl", "metal", "habana"},
     "PyTorch devices cuda (ROCm builds too), xpu (Intel), mps (Apple); Intel Gaudi through "
     "optimum-habana",
     1,
     false,
     true,
     512 * kMiB,
     0.2,
     0,
     0,
     "transformers: DynamicCache grows token by token (no preallocation, no padding); prefill "
     "activations scale with the prompt",
     ActivationRule::whole_prompt},
};

}  // namespace

const char* kv_dtype_name(KvDtype t) {
  switch (t) {
    case KvDtype::f16:
      return "f16";
    case KvDtype::bf16:
      return "bf16";
    case KvDtype::fp8_e4m3:
      return "fp8_e4m3";
    case KvDtype::fp8_e5m2:
      return "fp8_e5m2";
    case KvDtype::q8_0:
      return "q8_0";
    case KvDtype::q4_0:
      return "q4_0";
  }
  return "f16";
}

std::optional<KvDtype> kv_dtype_from_name(std::string_view name) {
  for (KvDtype t : {KvDtype::f16, KvDtype::bf16, KvDtype::fp8_e4m3, KvDtype::fp8_e5m2,
                    KvDtype::q8_0, KvDtype::q4_0})
    if (name == kv_dtype_name(t)) return t;
  if (name == "fp16" || name == "float16") return KvDtype::f16;
  if (name == "bfloat16") return KvDtype::bf16;
  // vLLM's "fp8" means E4M3 (vllm/config/cache.py CacheDType).
  if (name == "fp8" || name == "e4m3") return KvDtype::fp8_e4m3;
  if (name == "e5m2") return KvDtype::fp8_e5m2;
  return std::nullopt;
}

TensorType kv_tensor_type(KvDtype t) {
  switch (t) {
    case KvDtype::f16:
      return TensorType::F16;
    case KvDtype::bf16:
      return TensorType::BF16;
    case KvDtype::fp8_e4m3:
    case KvDtype::fp8_e5m2:
      return TensorType::FP8_E4M3;  // 1 byte per element either way
    case KvDtype::q8_0:
      return TensorType::Q8_0;
    case KvDtype::q4_0:
      return TensorType::Q4_0;
  }
  return TensorType::F16;
}

const EngineProfile& engine_profile(Engine e) {
  return kProfiles[static_cast<int>(e)];
}

std::optional<Engine> engine_from_name(std::string_view name) {
  for (const auto& p : kProfiles)
    if (name == p.name) return p.engine;
  if (name == "llamacpp" || name == "llama-cpp" || name == "llama-server") return Engine::llama_cpp;
  if (name == "tensorrt-llm" || name == "trtllm" || name == "trt_llm") return Engine::trt_llm;
  if (name == "hf" || name == "huggingface") return Engine::transformers;
  return std::nullopt;
}

const std::vector<const char*>& engine_names() {
  static const std::vector<const char*> v = {"llama.cpp", "ollama",  "vllm",
                                             "sglang",    "trt-llm", "transformers"};
  return v;
}

bool runs_on(const EngineProfile& p, const std::vector<std::string>& gpu_backends) {
  if (gpu_backends.empty()) return true;
  // string_view against string: lengths first, then the bytes (a plan asks this per row).
  for (const std::string& g : gpu_backends)
    for (std::string_view b : p.backends)
      if (g == b) return true;
  return false;
}

bool supports_kv_dtype(const EngineProfile& p, KvDtype t) {
  return std::find(p.kv_dtypes.begin(), p.kv_dtypes.end(), t) != p.kv_dtypes.end();
}

EngineLimits engine_limits(Engine e, uint64_t gpu_memory_bytes, bool small_batch, uint32_t tp,
                           uint32_t pp) {
  EngineLimits l;
  const double mem_mib = static_cast<double>(gpu_memory_bytes) / static_cast<double>(kMiB);
  switch (e) {
    case Engine::vllm:
      // vllm/engine/arg_utils.py EngineArgs.get_batch_defaults (V1, OpenAI API server): GPUs of
      // >= 70 GiB except A100 get max_num_batched_tokens 8192 and max_num_seqs 1024; others
      // 2048 and 256 (PR #17885 keeps A100 on the small budget).
      if (gpu_memory_bytes >= 70 * kGiB && !small_batch) {
        l.max_num_batched_tokens = 8192;
        l.max_num_seqs = 1024;
      } else {
        l.max_num_batched_tokens = 2048;
        l.max_num_seqs = 256;
      }
      l.memory_fraction = 0.9;  // gpu_memory_utilization (vllm/config/cache.py)
      // CUDA graphs captured up to 512 sequences (compilation config max_cudagraph_capture_size).
      l.cuda_graph_max_bs = 512;
      // Non-torch memory (CUDA context, cuBLAS workspaces; NCCL buffers past one GPU): vLLM
      // subtracts it with the profile's peak, and keeps its CUDA graphs outside the budget (in
      // the 1 - gpu_memory_utilization left over). llm-d's H100 logs: 0.13 and 0.14 GiB at TP 1,
      // 0.54 GiB at TP 2, and available = total x utilization - weights - peak - non-torch to
      // the printed 0.01 GiB (gpt-oss-20b 50.28, Mistral-Small-3.2 28.20, Qwen3-32B 34.49).
      l.reserved_bytes = static_cast<uint64_t>((tp * pp > 1 ? 0.54 : 0.14) * kGiB);
      break;
    case Engine::sglang: {
      // server_args.py _handle_gpu_memory_settings: chunked_prefill_size and cuda_graph_max_bs by
      // GPU memory (MiB), then reserved_mem = 512 + max(chunk, 2048) x 1.5 + bs x 2 +
      // tp x pp / 8 x 1024 MiB, at least 10 GiB above 60 GiB of memory;
      // mem_fraction_static = round((mem - reserved) / mem, 3).
      uint32_t chunk = 16384, bs = 512;
      if (mem_mib < 20 * 1024) {
        chunk = 2048, bs = 8;  // T4, 4080
      } else if (mem_mib < 35 * 1024) {
        chunk = 2048, bs = tp < 4 ? 24 : 80;  // A10, 4090, 5090
      } else if (mem_mib < 60 * 1024) {
        chunk = 4096, bs = tp < 4 ? 32 : 160;  // A100 40GB, L40
      } else if (mem_mib < 160 * 1024) {
        chunk = 8192, bs = tp < 4 ? 256 : 512;  // H100, A100 80GB, H200
      }
      double reserved = 512 + std::max<uint32_t>(chunk, 2048) * 1.5 + bs * 2.0 +
                        static_cast<double>(tp) * pp / 8 * 1024;
      if (mem_mib > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024);
      l.max_num_batched_tokens = chunk;
      l.cuda_graph_max_bs = bs;
      // Past a few hundred GPUs (tp x pp / 8 GiB) the reserve outgrows a small card: no share.
      l.memory_fraction = std::max(0.0, std::round((mem_mib - reserved) / mem_mib * 1000) / 1000);
      l.reserved_bytes = static_cast<uint64_t>(reserved) * kMiB;
      // max_running_requests unset: bounded by the request-to-token pool, at most 4096
      // (model_runner.py init_memory_pool).
      l.max_num_seqs = 4096;
      break;
    }
    case Engine::trt_llm:
      // tensorrt_llm/llmapi/llm_args.py: max_batch_size 2048, max_num_tokens 8192,
      // KvCacheConfig.free_gpu_memory_fraction 0.9.
      l.max_num_seqs = 2048;
      l.max_num_batched_tokens = 8192;
      l.memory_fraction = 0.9;
      l.cuda_graph_max_bs = 2048;  // perf-overview's cuda_graph_config batch_sizes up to 8192
      l.reserved_bytes = 1 * kGiB;
      break;
    case Engine::llama_cpp:
    case Engine::ollama:
      // llama-server -np 1, -b 2048 (common/common.h n_batch); OLLAMA_NUM_PARALLEL 1. Runtime
      // outside the tensors: engine.hpp's profile (CUDA context, buffers).
      l.max_num_seqs = 1;
      l.max_num_batched_tokens = 2048;
      l.reserved_bytes = engine_profile(e).overhead_per_gpu_bytes;
      break;
    case Engine::transformers:
      l.max_num_seqs = 1;
      l.max_num_batched_tokens = 0;  // the whole prompt in one forward pass
      l.reserved_bytes = engine_profile(e).overhead_per_gpu_bytes;
      break;
  }
  return l;
}

uint64_t engine_memory_bytes(Engine e, const GpuSpec& g) {
  return engine_profile(e).memory_rule == MemoryRule::fixed_slots ? g.usable_bytes()
                                                                  : g.engine_visible_bytes();
}

namespace {

// In use when SGLang's model runner measures the GPU (CUDA context, NCCL): an L4 whose runtime
// total is 22,478 MiB (21.95 GiB) printed "Load weight begin. avail mem=21.63 GB" at TP 4
// (SGLang 0.4.3, didier-durand/llms-in-clouds docs/sglang.md).
constexpr uint64_t kSglangStartupBytes = 328 * kMiB;  // 0.32 GiB

}  // namespace

uint64_t kv_pool_bytes(const EngineProfile& p, const EngineLimits& l, uint64_t gpu_memory_bytes,
                       uint64_t weights_bytes, uint64_t activations_bytes, uint64_t runtime_bytes) {
  auto minus = [](uint64_t a, uint64_t b) { return a > b ? a - b : 0; };
  switch (p.memory_rule) {
    case MemoryRule::share_of_total: {
      if (p.engine == Engine::sglang) {
        // model_runner.py init_memory_pool: rest = available - total x (1 - mem_fraction_static),
        // where total is the memory free when the model runner starts (the CUDA context and NCCL
        // already in use) and available what is free after the weights: total x fraction -
        // weights. Activations and CUDA graphs live outside the fraction.
        const uint64_t at_start = minus(gpu_memory_bytes, kSglangStartupBytes);
        return minus(fraction_of(at_start, l.memory_fraction), weights_bytes);
      }
      const uint64_t budget = fraction_of(gpu_memory_bytes, l.memory_fraction);
      return minus(budget,
                   checked_add(checked_add(weights_bytes, activations_bytes), runtime_bytes));
    }
    case MemoryRule::share_of_free: {
      const uint64_t free =
          minus(gpu_memory_bytes,
                checked_add(checked_add(weights_bytes, activations_bytes), runtime_bytes));
      return static_cast<uint64_t>(static_cast<double>(free) * l.memory_fraction);
    }
    case MemoryRule::fixed_slots:
      // The slots fill what is left of the share the plan allows (its headroom rule; all of it
      // when no share is set).
      return minus(l.memory_fraction > 0 ? fraction_of(gpu_memory_bytes, l.memory_fraction)
                                         : gpu_memory_bytes,
                   checked_add(checked_add(weights_bytes, activations_bytes), runtime_bytes));
  }
  return 0;
}

}  // namespace llmsize
