// The catalog ids behind the names public measurement tables use (tests/data), shared by the unit
// tests and the accuracy benchmark so both read the same rows the same way.
#pragma once

#include <string>
#include <utility>

namespace llmsize::test {

// A GPU named in a measurement row ("RTX 4090 24GB", "Apple M3 Max (40-core GPU) 64GB"), or "".
inline std::string measured_gpu_id(const std::string& name) {
  const std::pair<const char*, const char*> k[] = {{"RTX 3070", "rtx-3070"},
                                                   {"RTX 3080 10GB", "rtx-3080"},
                                                   {"RTX 3080 Ti", "rtx-3080-ti"},
                                                   {"RTX 4070 Ti", "rtx-4070-ti"},
                                                   {"RTX 4080", "rtx-4080"},
                                                   {"RTX 3090", "rtx-3090"},
                                                   {"RTX 4090", "rtx-4090"},
                                                   {"A100 80GB", "a100-80gb-pcie"},
                                                   {"M3 Max", "m3-max"},
                                                   {"M2 Ultra", "m2-ultra"},
                                                   {"M1 Max", "m1-max"}};
  for (const auto& [n, id] : k)
    if (name.find(n) != std::string::npos) return id;
  return "";
}

// The catalog model with the same tensor shapes as a measured model name, or "".
inline std::string measured_model_id(const std::string& name) {
  const auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
  if (starts("Llama-3.1-8B") || starts("Meta-Llama-3-8B") || starts("Meta-Llama-3 8B") ||
      starts("llama 8B"))
    return "llama-3.1-8b";
  if (name.find("Qwen2.5") != std::string::npos && name.find("7B") != std::string::npos)
    return "qwen2.5-7b";
  if (starts("LLaMA 7B") || starts("open_llama_7b") || starts("Llama-2-7B") ||
      starts("LLaMA/Llama-2 7B"))
    return "llama-2-7b";
  if (name == "Meta-Llama-3-70B") return "llama-3.1-70b";
  if (name == "Llama-2-70B") return "llama-2-70b";
  return "";
}

}  // namespace llmsize::test
