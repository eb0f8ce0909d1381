#include <catch2/catch.hpp>

#include "llmsize/model/tensor_type.hpp"

using namespace llmsize;

TEST_CASE("ggml tensor types have ggml's block sizes and bytes per block", "[tensor_type]") {
  // (type, block size, bytes per block, bits per weight = 8 x bytes / block), from ggml.c
  // type_traits.
  auto [t, blck, size, bpw] = GENERATE(table<TensorType, uint32_t, uint32_t, double>({
      {TensorType::F32, 1, 4, 32.0},
      {TensorType::F16, 1, 2, 16.0},
      {TensorType::BF16, 1, 2, 16.0},
      {TensorType::Q4_0, 32, 18, 4.5},
      {TensorType::Q4_1, 32, 20, 5.0},
      {TensorType::Q5_0, 32, 22, 5.5},
      {TensorType::Q5_1, 32, 24, 6.0},
      {TensorType::Q8_0, 32, 34, 8.5},
      {TensorType::Q2_K, 256, 84, 2.625},
      {TensorType::Q3_K, 256, 110, 3.4375},
      {TensorType::Q4_K, 256, 144, 4.5},
      {TensorType::Q5_K, 256, 176, 5.5},
      {TensorType::Q6_K, 256, 210, 6.5625},
      {TensorType::Q8_K, 256, 292, 9.125},
      {TensorType::IQ1_S, 256, 50, 1.5625},
      {TensorType::IQ1_M, 256, 56, 1.75},
      {TensorType::IQ2_XXS, 256, 66, 2.0625},
      {TensorType::IQ2_XS, 256, 74, 2.3125},
      {TensorType::IQ2_S, 256, 82, 2.5625},
      {TensorType::IQ3_XXS, 256, 98, 3.0625},
      {TensorType::IQ3_S, 256, 110, 3.4375},
      {TensorType::IQ4_NL, 32, 18, 4.5},
      {TensorType::IQ4_XS, 256, 136, 4.25},
      {TensorType::TQ1_0, 256, 54, 1.6875},
      {TensorType::TQ2_0, 256, 66, 2.0625},
      {TensorType::MXFP4, 32, 17, 4.25},
      // Non-ggml: GPTQ 4-bit g128 = 4 + 16/128 (fp16 scale) + 4/128 (packed zero) = 4.15625.
      {TensorType::GPTQ4_G128, 256, 133, 4.15625},
      {TensorType::AWQ4_G128, 256, 133, 4.15625},
      {TensorType::GPTQ8_G128, 128, 131, 8.1875},
      {TensorType::FP8_E4M3, 1, 1, 8.0},
      {TensorType::NVFP4, 16, 9, 4.5},
  }));
  const auto& tt = traits(t);
  CHECK(tt.block_size == blck);
  CHECK(tt.type_size == size);
  CHECK(tt.bits_per_weight() == Approx(bpw));
}

TEST_CASE("ggml type ids map both ways and removed ids stay unknown", "[tensor_type]") {
  CHECK(tensor_type_from_ggml_id(12) == TensorType::Q4_K);
  CHECK(tensor_type_from_ggml_id(30) == TensorType::BF16);
  CHECK(tensor_type_from_ggml_id(39) == TensorType::MXFP4);
  for (uint32_t removed : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 1000u, 99999u})
    CHECK_FALSE(tensor_type_from_ggml_id(removed).has_value());
  CHECK(tensor_type_from_name("Q4_K") == TensorType::Q4_K);
  CHECK(tensor_type_from_name("iq4_xs") == TensorType::IQ4_XS);
  CHECK_FALSE(tensor_type_from_name("q4_k_m").has_value());  // a preset, not a tensor type
}

TEST_CASE("row sizes follow ggml_row_size and reject partial blocks", "[tensor_type]") {
  CHECK(row_size(TensorType::Q4_K, 4096) == 4096 / 256 * 144);
  CHECK(row_size(TensorType::F16, 896) == 1792);
  CHECK_THROWS_WITH(row_size(TensorType::Q4_K, 896),
                    "row of 896 elements is not a multiple of the q4_K block size 256");
  // 14336 x 4096 Q6_K = 56 blocks x 210 B x 4096 rows.
  CHECK(tensor_bytes(TensorType::Q6_K, 14336, 14336ull * 4096) == 56ull * 210 * 4096);
}
