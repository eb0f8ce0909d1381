#include "llmsize/model/tensor_type.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>

#include "llmsize/units.hpp"

namespace llmsize {
namespace {

// QK_K = 256 elements per k-quant super-block (ggml-common.h).
constexpr uint32_t kQK = 256;

// Block sizes and bytes per block from ggml's type_traits (ggml/src/ggml.c) and the block structs
// in ggml/src/ggml-common.h; each size is asserted below from its struct layout.
const std::vector<TensorTypeTraits> kTypes = {
    {TensorType::F32, "f32", 1, 4, false, "float"},
    {TensorType::F16, "f16", 1, 2, false, "IEEE half"},
    {TensorType::Q4_0, "q4_0", 32, 18, true, "block_q4_0: half d + 16 B of 4-bit quants"},
    {TensorType::Q4_1, "q4_1", 32, 20, true, "block_q4_1: half d, m + 16 B"},
    {TensorType::Q5_0, "q5_0", 32, 22, true, "block_q5_0: half d + 4 B high bits + 16 B"},
    {TensorType::Q5_1, "q5_1", 32, 24, true, "block_q5_1: half d, m + 4 B + 16 B"},
    {TensorType::Q8_0, "q8_0", 32, 34, true, "block_q8_0: half d + 32 int8"},
    {TensorType::Q8_1, "q8_1", 32, 36, true, "block_q8_1: half d, s + 32 int8"},
    {TensorType::Q2_K, "q2_K", kQK, 84, true, "block_q2_K: 16 B scales + 64 B quants + 2 half"},
    {TensorType::Q3_K, "q3_K", kQK, 110, true,
     "block_q3_K: 32 B hmask + 64 B + 12 B scales + half"},
    {TensorType::Q4_K, "q4_K", kQK, 144, true, "block_q4_K: 2 half + 12 B scales + 128 B"},
    {TensorType::Q5_K, "q5_K", kQK, 176, true, "block_q5_K: 2 half + 12 B + 32 B qh + 128 B"},
    {TensorType::Q6_K, "q6_K", kQK, 210, true,
     "block_q6_K: 128 B ql + 64 B qh + 16 B scales + half"},
    {TensorType::Q8_K, "q8_K", kQK, 292, true, "block_q8_K: float d + 256 int8 + 16 int16 bsums"},
    {TensorType::IQ2_XXS, "iq2_xxs", kQK, 66, true, "block_iq2_xxs: half d + 32 uint16"},
    {TensorType::IQ2_XS, "iq2_xs", kQK, 74, true, "block_iq2_xs: half d + 32 uint16 + 8 B scales"},
    {TensorType::IQ3_XXS, "iq3_xxs", kQK, 98, true, "block_iq3_xxs: half d + 96 B"},
    {TensorType::IQ1_S, "iq1_s", kQK, 50, true, "block_iq1_s: half d + 32 B qs + 8 uint16 qh"},
    {TensorType::IQ4_NL, "iq4_nl", 32, 18, true, "block_iq4_nl: half d + 16 B"},
    {TensorType::IQ3_S, "iq3_s", kQK, 110, true,
     "block_iq3_s: half d + 64 B + 8 B + 32 B signs + 4 B"},
    {TensorType::IQ2_S, "iq2_s", kQK, 82, true, "block_iq2_s: half d + 64 B + 8 B qh + 8 B scales"},
    {TensorType::IQ4_XS, "iq4_xs", kQK, 136, true, "block_iq4_xs: half d + uint16 + 4 B + 128 B"},
    {TensorType::I8, "i8", 1, 1, false, "int8"},
    {TensorType::I16, "i16", 1, 2, false, "int16"},
    {TensorType::I32, "i32", 1, 4, false, "int32"},
    {TensorType::I64, "i64", 1, 8, false, "int64"},
    {TensorType::F64, "f64", 1, 8, false, "double"},
    {TensorType::IQ1_M, "iq1_m", kQK, 56, true, "block_iq1_m: 32 B qs + 16 B qh + 8 B scales"},
    {TensorType::BF16, "bf16", 1, 2, false, "bfloat16"},
    {TensorType::TQ1_0, "tq1_0", kQK, 54, true, "block_tq1_0: 48 B qs + 4 B qh + half d"},
    {TensorType::TQ2_0, "tq2_0", kQK, 66, true, "block_tq2_0: 64 B qs + half d"},
    {TensorType::MXFP4, "mxfp4", 32, 17, true, "block_mxfp4: E8M0 scale + 16 B of FP4 (E2M1)"},
    // Non-ggml formats, counted the way their checkpoints store them.
    {TensorType::FP8_E4M3, "fp8", 1, 1, true,
     "FP8 E4M3, 1 byte per weight; per-tensor scales negligible (vLLM fp8 checkpoints)"},
    {TensorType::INT8, "int8", 1, 1, true,
     "int8 weight, 1 byte; per-row scales (<0.1%) not counted (LLM.int8 / W8A16)"},
    {TensorType::GPTQ4_G128, "gptq4_g128", 256, 133, true,
     "GPTQ 4-bit, group 128: 128 B qweight + 2 x fp16 scale + 2 x 4-bit qzero per 256 weights"},
    {TensorType::GPTQ8_G128, "gptq8_g128", 128, 131, true,
     "GPTQ 8-bit, group 128: 128 B qweight + fp16 scale + 8-bit qzero per 128 weights"},
    {TensorType::AWQ4_G128, "awq4_g128", 256, 133, true,
     "AWQ 4-bit GEMM, group 128: 128 B qweight + 2 x fp16 scale + 2 x 4-bit qzero per 256"},
    {TensorType::NVFP4, "nvfp4", 16, 9, true,
     "NVFP4: 16 x E2M1 (8 B) + one FP8 E4M3 scale per 16 weights (NVIDIA Blackwell)"},
    {TensorType::INT4_G32, "int4_g32", 32, 18, true,
     "compressed-tensors pack-quantized INT4, symmetric group 32: 16 B packed (8 per int32) + "
     "bf16 scale per 32 weights"},
    {TensorType::INT4_G128, "int4_g128", 128, 66, true,
     "compressed-tensors pack-quantized INT4, symmetric group 128 (W4A16): 64 B packed (8 per "
     "int32) + bf16 scale per 128 weights"},
};

// Struct layouts from ggml-common.h, re-derived (2 = sizeof(ggml_half)).
static_assert(2 + 32 / 2 == 18, "block_q4_0");
static_assert(2 * 2 + 32 / 2 == 20, "block_q4_1");
static_assert(2 + 4 + 32 / 2 == 22, "block_q5_0");
static_assert(2 * 2 + 4 + 32 / 2 == 24, "block_q5_1");
static_assert(2 + 32 == 34, "block_q8_0");
static_assert(kQK / 16 + kQK / 4 + 2 * 2 == 84, "block_q2_K");
static_assert(kQK / 8 + kQK / 4 + 12 + 2 == 110, "block_q3_K");
static_assert(2 * 2 + 12 + kQK / 2 == 144, "block_q4_K");
static_assert(2 * 2 + 12 + kQK / 8 + kQK / 2 == 176, "block_q5_K");
static_assert(kQK / 2 + kQK / 4 + kQK / 16 + 2 == 210, "block_q6_K");
static_assert(4 + kQK + kQK / 16 * 2 == 292, "block_q8_K");
static_assert(2 + kQK / 8 * 2 == 66, "block_iq2_xxs");
static_assert(2 + kQK / 8 * 2 + kQK / 32 == 74, "block_iq2_xs");
static_assert(2 + kQK / 4 + kQK / 32 + kQK / 32 == 82, "block_iq2_s");
static_assert(2 + 3 * kQK / 8 == 98, "block_iq3_xxs");
static_assert(2 + kQK / 4 + kQK / 32 + kQK / 8 + kQK / 64 == 110, "block_iq3_s");
static_assert(2 + kQK / 8 + kQK / 32 * 2 == 50, "block_iq1_s");
static_assert(kQK / 8 + kQK / 16 + kQK / 32 == 56, "block_iq1_m");
static_assert(2 + 2 + kQK / 64 + kQK / 2 == 136, "block_iq4_xs");
static_assert((kQK - 4 * kQK / 64) / 5 + kQK / 64 + 2 == 54, "block_tq1_0");
static_assert(kQK / 4 + 2 == 66, "block_tq2_0");
static_assert(1 + 32 / 2 == 17, "block_mxfp4");
static_assert(2 * 128 / 2 + 2 * 2 + 1 == 133, "gptq 4-bit, two groups of 128");
static_assert(16 / 2 + 1 == 9, "nvfp4 block of 16");

std::string lower(std::string_view s) {
  std::string r(s);
  std::transform(r.begin(), r.end(), r.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return r;
}

}  // namespace

const std::vector<TensorTypeTraits>& all_tensor_types() {
  return kTypes;
}

const TensorTypeTraits& traits(TensorType t) {
  for (const auto& tt : kTypes)
    if (tt.type == t) return tt;
  throw std::invalid_argument("unknown tensor type id " + std::to_string(static_cast<uint32_t>(t)));
}

std::optional<TensorType> tensor_type_from_name(std::string_view name) {
  const std::string n = lower(name);
  for (const auto& tt : kTypes)
    if (lower(tt.name) == n) return tt.type;
  return std::nullopt;
}

std::optional<TensorType> tensor_type_from_ggml_id(uint32_t id) {
  if (id >= 1000) return std::nullopt;
  for (const auto& tt : kTypes)
    if (static_cast<uint32_t>(tt.type) == id) return tt.type;
  return std::nullopt;
}

uint64_t row_size(TensorType t, uint64_t ne0) {
  const auto& tt = traits(t);
  if (ne0 % tt.block_size != 0)
    throw std::invalid_argument(std::string("row of ") + std::to_string(ne0) +
                                " elements is not a multiple of the " + tt.name + " block size " +
                                std::to_string(tt.block_size));
  return checked_mul(ne0 / tt.block_size, tt.type_size);
}

uint64_t tensor_bytes(TensorType t, uint64_t ne0, uint64_t n_elements) {
  if (ne0 == 0) return 0;
  return checked_mul(row_size(t, ne0), n_elements / ne0);
}

}  // namespace llmsize
