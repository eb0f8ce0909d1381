// libFuzzer target: GGUF headers (llmsize::parse_gguf), the architecture read from them and the
// exact weights added up from the tensors (llmsize::model_file_from_gguf).
// Anything but InputError escaping, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string_view>
#include <vector>

#include "llmsize/io/error.hpp"
#include "llmsize/io/gguf.hpp"
#include "llmsize/io/model_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    std::vector<llmsize::GgufFile> shards;
    shards.push_back(llmsize::parse_gguf(bytes, "fuzz.gguf"));
    const auto f = llmsize::model_file_from_gguf(shards, "fuzz.gguf");
    (void)f;
  } catch (const llmsize::InputError&) {
  }
  return 0;
}
