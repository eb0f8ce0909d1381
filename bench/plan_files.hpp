// The plan files the check benchmarks read: n plans cycling through 8 models x 5 GPUs x 6 contexts
// x 2 quantizations x 4 GPU counts (1,920 configurations), a third with a decode-speed target; or,
// `distinct`, every plan with its own context.
#pragma once

#include <string>

namespace llmsize::bench {

inline const char* const kModels[] = {"llama-3.1-8b", "llama-3.1-70b",  "qwen2.5-32b",
                                      "mixtral-8x7b", "gemma-2-9b",     "qwen3-30b-a3b",
                                      "deepseek-v3",  "mistral-7b-v0.3"};
inline const char* const kGpus[] = {"rtx-4090", "h100-sxm", "a100-80gb-sxm", "rtx-3090", "l40s"};
inline const unsigned kCtxs[] = {2048, 4096, 8192, 16384, 32768, 65536};
inline const char* const kQuants[] = {"q4_k_m", "q8_0"};

// n plans; `distinct`: each plan's context differs (no two configurations alike).
inline std::string plan_file(size_t n, bool distinct) {
  std::string s = "{\"plans\": [\n";
  for (size_t i = 0; i < n; ++i) {
    const char* m = kModels[i % 8];
    const char* g = kGpus[(i / 8) % 5];
    const unsigned ctx = distinct ? 1024 + static_cast<unsigned>(i) : kCtxs[(i / 40) % 6];
    const char* q = kQuants[(i / 240) % 2];
    s += (i ? ",\n" : "") + std::string("{\"name\": \"p") + std::to_string(i) +
         "\", \"model\": \"" + m + "\", \"gpu\": \"" + g +
         "\", \"gpus\": " + std::to_string(1 + (i / 480) % 4) +
         ", \"context\": " + std::to_string(ctx) + ", \"quant\": \"" + q + "\"" +
         (i % 3 == 0 ? ", \"target_tokens_per_s\": " + std::to_string(10 + i % 50) : "") + "}";
  }
  return s + "\n]}\n";
}

}  // namespace llmsize::bench
