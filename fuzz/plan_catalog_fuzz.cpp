// libFuzzer target: the JSON documents a user hands llmsize besides models, --catalog files
// (llmsize::Catalog::merge_json) and check's plan files (llmsize::cli::read_plans). The first byte
// picks the reader, the rest is the document. Anything but InputError escaping, a crash, a
// sanitizer report or a message holding a control character is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cli/commands/check.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"

namespace {

// Messages are shown on a terminal: every untrusted byte must be escaped already.
void check_message(const char* what) {
  for (const char* p = what; *p; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == 0x7f) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const llmsize::Catalog builtin = llmsize::Catalog::builtin();
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] & 1) {
      llmsize::Catalog c = builtin;
      c.merge_json(text, "user.json");
    } else {
      (void)llmsize::cli::read_plans(text, "plan.json", builtin);
    }
  } catch (const llmsize::InputError& e) {
    check_message(e.what());
  }
  return 0;
}
