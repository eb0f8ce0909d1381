// libFuzzer target: the JSON documents a user hands llmsize besides models, --catalog files
// (llmsize::Catalog::merge_json) and check's plan files (llmsize::cli::read_plans). The first byte
// picks the reader, the rest is the document. Anything but InputError escaping, a crash, a
// sanitizer report or a message holding a control character is a bug.
//
// A --catalog file is merged into a small base catalog (a copy per input), not into the whole
// built-in one: copying 94 models and 74 GPUs per input held the target at ~550 executions/s.
// The base keeps the built-in entries of a fixed list of ids (dense, MoE, MLA, sliding-window,
// hybrid, embedding models; consumer, datacenter and unified-memory GPUs) read from the same
// embedded data/*.json, so a fuzzed file still replaces built-in ids (the corpus's rtx-3060-12gb,
// llama-2-7b) and trips the duplicate-id paths. Plan files resolve against the whole built-in
// catalog, which read_plans only reads (no copy).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cli/commands/check.hpp"
#include "embedded_catalogs.hpp"
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

// The built-in entries of `list` ("models"/"gpus") whose id is in `ids`, as a catalog document.
std::string subset(const char* embedded, const char* list, std::initializer_list<const char*> ids) {
  const auto doc = nlohmann::json::parse(embedded);
  nlohmann::json out = nlohmann::json::object();
  out[list] = nlohmann::json::array();
  for (const auto& e : doc.at(list))
    if (std::any_of(ids.begin(), ids.end(), [&](const char* id) { return e.at("id") == id; }))
      out[list].push_back(e);
  if (out[list].size() != ids.size()) std::abort();  // an id left data/*.json: update the list
  return out.dump();
}

llmsize::Catalog make_base() {
  llmsize::Catalog c;
  c.merge_json(subset(llmsize::embedded::kModelsJson, "models",
                      {"llama-2-7b", "llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b",
                       "qwen3-30b-a3b", "deepseek-v3", "gemma-3-27b", "gpt-oss-20b",
                       "granite-4.0-h-small", "qwen3-embedding-0.6b", "qwen3-next-80b-a3b"}),
               "base models");
  c.merge_json(subset(llmsize::embedded::kGpusJson, "gpus",
                      {"rtx-3060-12gb", "rtx-4090", "h100-sxm", "mi300x", "m4-max", "dgx-spark"}),
               "base gpus");
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const llmsize::Catalog builtin = llmsize::Catalog::builtin();
  static const llmsize::Catalog base = make_base();
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] & 1) {
      llmsize::Catalog c = base;
      c.merge_json(text, "user.json");
    } else {
      (void)llmsize::cli::read_plans(text, "plan.json", builtin);
    }
  } catch (const llmsize::InputError& e) {
    check_message(e.what());
  }
  return 0;
}
