// libFuzzer target: safetensors headers (llmsize::parse_safetensors) and the weights added up
// from them, without and with an MoE architecture; and, on the same bytes,
// model.safetensors.index.json (llmsize::parse_safetensors_index).
// Anything but InputError escaping, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string_view>

#include "llmsize/io/error.hpp"
#include "llmsize/io/model_file.hpp"
#include "llmsize/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const std::vector<llmsize::SafetensorsFile> files{
        llmsize::parse_safetensors(bytes, "fuzz.safetensors")};
    llmsize::ModelSpec moe;
    moe.n_expert = 4;
    moe.n_expert_used = 2;
    const auto a = llmsize::model_file_from_safetensors(files, std::nullopt, "fuzz.safetensors");
    const auto b = llmsize::model_file_from_safetensors(files, moe, "fuzz.safetensors");
    (void)a;
    (void)b;
  } catch (const llmsize::InputError&) {
  }
  try {
    const auto ix = llmsize::parse_safetensors_index(bytes, "fuzz.index.json");
    (void)ix;
  } catch (const llmsize::InputError&) {
  }
  return 0;
}
