// Inference engines allocate memory differently; a profile holds each one's rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace llmsize {

enum class Engine { llama_cpp, vllm, transformers, ollama };

struct EngineProfile {
  Engine engine;
  const char* name;          // "llama.cpp", "vllm", "transformers", "ollama"
  uint32_t kv_cell_padding;  // llama.cpp pads n_ctx to 256; vLLM allocates 16-token blocks
  bool embeddings_on_host;   // llama.cpp keeps token_embd in host memory
  bool flash_attn_default;
  uint64_t overhead_per_gpu_bytes;  // runtime outside the model's tensors
  double headroom_default;          // the 20% rule; vLLM: 1/0.9 - 1 so the sum is 90% of memory
  uint32_t max_num_batched_tokens;  // vLLM's profiling batch (activations); 0 = not used
  uint32_t max_num_seqs;            // vLLM's sampler batch in the profile run; 0 = not used
  const char* source;
};

const EngineProfile& engine_profile(Engine e);
std::optional<Engine> engine_from_name(std::string_view name);
const std::vector<const char*>& engine_names();

}  // namespace llmsize
