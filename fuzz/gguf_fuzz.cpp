// libFuzzer target: GGUF headers (llmsize::parse_gguf) and the architecture read from them.
// Anything but InputError escaping, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string_view>
#include <vector>

#include "llmsize/io/error.hpp"
#include "llmsize/io/gguf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    std::vector<llmsize::GgufFile> shards;
    shards.push_back(llmsize::parse_gguf(bytes, "fuzz.gguf"));
    const auto arch = llmsize::gguf_arch(shards);
    (void)arch;
  } catch (const llmsize::InputError&) {
  }
  return 0;
}
