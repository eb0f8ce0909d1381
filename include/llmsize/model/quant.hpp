// Quantization presets as llama-quantize applies them: a file type (Q4_K_M) is a per-tensor mix of
// tensor types, chosen tensor by tensor (llama.cpp src/llama-quant.cpp llama_tensor_get_type).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsize/model/model_spec.hpp"
#include "llmsize/model/tensor_type.hpp"
#include "llmsize/model/tensors.hpp"

namespace llmsize {

// llama.cpp's llama_ftype ids (include/llama.h); GGUF general.file_type holds them.
enum class Ftype : uint32_t {
  ALL_F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q8_0 = 7,
  Q5_0 = 8,
  Q5_1 = 9,
  Q2_K = 10,
  Q3_K_S = 11,
  Q3_K_M = 12,
  Q3_K_L = 13,
  Q4_K_S = 14,
  Q4_K_M = 15,
  Q5_K_S = 16,
  Q5_K_M = 17,
  Q6_K = 18,
  IQ2_XXS = 19,
  IQ2_XS = 20,
  Q2_K_S = 21,
  IQ3_XS = 22,
  IQ3_XXS = 23,
  IQ1_S = 24,
  IQ4_NL = 25,
  IQ3_S = 26,
  IQ3_M = 27,
  IQ2_S = 28,
  IQ2_M = 29,
  IQ4_XS = 30,
  IQ1_M = 31,
  BF16 = 32,
  TQ1_0 = 36,
  TQ2_0 = 37,
  MXFP4_MOE = 38,
  // Not llama.cpp file types: checkpoints of other engines (vLLM, transformers, TensorRT-LLM).
  HF_FP8 = 1000,
  HF_INT8,
  HF_GPTQ4,
  HF_GPTQ8,
  HF_AWQ4,
  HF_NVFP4,
  HF_F16,
  HF_BF16,
  HF_F32,
  HF_INT4_G32_EXPERTS,  // routed experts INT4 group 32, the rest BF16 (Kimi-K2.5)
  HF_MXFP4_EXPERTS,     // routed experts MXFP4, the rest BF16 (gpt-oss as published)
  HF_INT4_G128,         // linear layers INT4 group 128, the rest BF16 (compressed-tensors W4A16)
  // Routed experts FP4 in the MXFP4 layout, the other linear layers FP8 with block scales, the
  // rest BF16 (DeepSeek-V4 as published).
  HF_FP8_MXFP4_EXPERTS,
};

struct QuantPreset {
  const char* id;  // "q4_k_m"
  Ftype ftype;
  TensorType default_type;  // the body's type before per-tensor adjustments
  bool gguf;                // a llama.cpp file type (else a checkpoint format of other engines)
  const char* description;
};

const std::vector<QuantPreset>& all_quant_presets();

// Short forms users type and what they stand for: q4 -> q4_k_m, q8 -> q8_0, fp16 -> f16, ...
struct QuantAlias {
  const char* alias;
  const char* id;
};
const std::vector<QuantAlias>& quant_aliases();

// Finds a preset by id or alias, case-insensitively.
const QuantPreset* find_quant_preset(std::string_view name);
const QuantPreset* find_quant_preset(Ftype f);

// Whether an importance matrix is assumed: llama.cpp requires one for IQ1/IQ2 and IQ3_XXS files are
// published with one; for other types it only changes the Q4_0/Q5_0/IQ4 first-ffn_down choice.
bool assumes_imatrix(const QuantPreset& p);

// The storage type of each tensor under preset p, in the order of `tensors`.
std::vector<TensorType> assign_tensor_types(const ModelSpec& m,
                                            const std::vector<TensorDesc>& tensors,
                                            const QuantPreset& p);

}  // namespace llmsize
