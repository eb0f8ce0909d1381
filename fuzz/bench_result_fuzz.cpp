// libFuzzer target: benchmark tools' result files (llmsize::io::parse_bench_results: vllm bench
// serve, SGLang bench_serving, trtllm-bench, llama-bench), read by llmsize verify.
// Anything but InputError escaping, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <string_view>

#include "llmsize/io/bench_result.hpp"
#include "llmsize/io/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto runs = llmsize::io::parse_bench_results(text, "result.json");
    (void)runs;
  } catch (const llmsize::InputError&) {
  }
  return 0;
}
