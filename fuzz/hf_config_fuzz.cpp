// libFuzzer target: Hugging Face config.json (llmsize::parse_hf_config).
// Anything but InputError escaping, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string_view>

#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto m = llmsize::parse_hf_config(text, "config.json");
    (void)m;
  } catch (const llmsize::InputError&) {
  }
  return 0;
}
