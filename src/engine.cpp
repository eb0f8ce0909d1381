#include "llmsize/engine.hpp"

#include "llmsize/units.hpp"

namespace llmsize {
namespace {

const EngineProfile kProfiles[] = {
    {Engine::llama_cpp, "llama.cpp", 256, true, true, 512 * kMiB, 0.2, 0, 0,
     "llama.cpp: GGML_PAD(n_ctx, 256) (llama-context.cpp), token_embd on the CPU "
     "(llama-model.cpp), "
     "flash attention auto-enabled on CUDA/Metal since 2025"},
    {Engine::vllm, "vllm", 16, false, true, 1 * kGiB, 1.0 / 0.9 - 1, 8192, 256,
     "vLLM: PagedAttention blocks of 16 tokens, gpu_memory_utilization 0.9 of total memory, "
     "profiling run "
     "of max_num_batched_tokens (8192) and max_num_seqs (256); non-torch memory + CUDA graphs ~1 "
     "GiB"},
    {Engine::transformers, "transformers", 1, false, true, 512 * kMiB, 0.2, 0, 0,
     "transformers: DynamicCache grows token by token (no preallocation, no padding); prefill "
     "activations scale with the prompt"},
    {Engine::ollama, "ollama", 256, true, false, 512 * kMiB, 0.2, 0, 0,
     "Ollama runs llama.cpp: KV for num_ctx x OLLAMA_NUM_PARALLEL slots, flash attention off "
     "unless "
     "OLLAMA_FLASH_ATTENTION=1"},
};

}  // namespace

const EngineProfile& engine_profile(Engine e) {
  return kProfiles[static_cast<int>(e)];
}

std::optional<Engine> engine_from_name(std::string_view name) {
  for (const auto& p : kProfiles)
    if (name == p.name) return p.engine;
  if (name == "llamacpp" || name == "llama-cpp") return Engine::llama_cpp;
  if (name == "hf" || name == "huggingface") return Engine::transformers;
  return std::nullopt;
}

const std::vector<const char*>& engine_names() {
  static const std::vector<const char*> v = {"llama.cpp", "vllm", "transformers", "ollama"};
  return v;
}

}  // namespace llmsize
