// libFuzzer target: safetensors headers (llmsize::parse_safetensors) and, on the same bytes,
// model.safetensors.index.json (llmsize::parse_safetensors_index).
// Anything but InputError escaping, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string_view>

#include "llmsize/io/error.hpp"
#include "llmsize/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const auto f = llmsize::parse_safetensors(bytes, "fuzz.safetensors");
    (void)f;
  } catch (const llmsize::InputError&) {
  }
  try {
    const auto ix = llmsize::parse_safetensors_index(bytes, "fuzz.index.json");
    (void)ix;
  } catch (const llmsize::InputError&) {
  }
  return 0;
}
