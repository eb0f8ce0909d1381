// Tensor storage types: ggml's types as written into GGUF files, plus the formats of other
// engines (FP8, INT8, GPTQ/AWQ, NVFP4). Each stores its block size and bytes per block; bits per
// weight is derived.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace llmsize {

// Values below 1000 are ggml_type ids (ggml/include/ggml.h); ids ggml removed are never reused.
// Values from 1000 on are llmsize's own ids for non-ggml formats.
enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  // 4, 5: Q4_2, Q4_3 (removed from ggml)
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  // 31-33: Q4_0_4_4, Q4_0_4_8, Q4_0_8_8 (removed); 36-38: IQ4_NL_4_4/4_8/8_8 (removed)
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
  // Non-ggml formats.
  FP8_E4M3 = 1000,
  INT8 = 1001,
  GPTQ4_G128 = 1002,
  GPTQ8_G128 = 1003,
  AWQ4_G128 = 1004,
  NVFP4 = 1005,
  INT4_G32 = 1006,   // compressed-tensors pack-quantized INT4, group 32 (Kimi-K2.5 experts)
  INT4_G128 = 1007,  // compressed-tensors pack-quantized INT4, group 128 (W4A16 checkpoints)
};

struct TensorTypeTraits {
  TensorType type;
  const char* name;     // as ggml_type_name prints it ("q4_K"), or ours for non-ggml formats
  uint32_t block_size;  // elements per block
  uint32_t type_size;   // bytes per block
  bool quantized;
  const char* layout;  // what a block holds, and the source
  double bits_per_weight() const { return 8.0 * type_size / block_size; }
};

// Every known type, ggml types first in id order.
const std::vector<TensorTypeTraits>& all_tensor_types();
// REQUIRES: t is a value of the enum.
const TensorTypeTraits& traits(TensorType t);
// Case-insensitive lookup by name ("q4_k", "Q4_K", "bf16", "fp8").
std::optional<TensorType> tensor_type_from_name(std::string_view name);
// Lookup of a ggml_type id as found in a GGUF tensor info; nullopt for unknown or removed ids.
std::optional<TensorType> tensor_type_from_ggml_id(uint32_t id);

// Bytes of one row of ne0 elements (ggml_row_size). Throws std::invalid_argument when ne0 is not a
// multiple of the block size.
uint64_t row_size(TensorType t, uint64_t ne0);
// Bytes of a tensor of n elements whose rows are ne0 long; overflow-checked.
uint64_t tensor_bytes(TensorType t, uint64_t ne0, uint64_t n_elements);

}  // namespace llmsize
