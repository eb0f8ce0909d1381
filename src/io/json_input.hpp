// Untrusted JSON: parsed with a nesting limit and duplicate keys refused, and described in error
// messages by type and a bounded, escaped excerpt, never by json::dump() (which recurses once per
// nesting level and copies the whole value).
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace llmsize::io {

// Deepest nesting accepted: config.json, indexes, catalogs and plans nest 5 levels at most.
constexpr int kMaxJsonDepth = 64;
// Values held at once in a document being built (a config.json holds a few thousand; values a
// reader drops as it goes do not count): ~50 MB of nlohmann values.
constexpr size_t kMaxJsonValues = 500'000;

// A value the parser has finished: `depth` containers enclose it (0: the document itself),
// `in_array` says whether its parent is an array, `top_key` is the root object's key it lies under
// (its own key at depth 1; "" for the root), `key` its key in its parent object ("" in an array).
struct JsonValue {
  int depth;
  bool in_array;
  const std::string& top_key;
  const std::string& key;
  nlohmann::json& value;
};
// Returns false to drop the value (already used): memory then holds what is kept, not the file.
using JsonKeep = std::function<bool(JsonValue&)>;

// Parses `text` in one linear pass (nlohmann's SAX interface; its callback parser is quadratic
// on arrays of objects); `where` names it in errors. Throws InputError
//   "<where>: not valid JSON: nesting deeper than 64 levels (at byte N)"   (N counted from 0)
//   "<where>: not valid JSON: a NUL byte (at byte N)"
//   "<where>: /path: duplicate key \"k\" (at byte N)"
//   "<where>: /path: more than 500000 JSON values held at once"
// and lets nlohmann's syntax and number errors through (json::parse_error with its byte,
// json::out_of_range for 1e999): each reader words them (json_reason() drops the input's bytes).
nlohmann::json parse_json(std::string_view text, const std::string& where,
                          const JsonKeep& keep = nullptr);

// A bad value for a message, bounded whatever it holds: a scalar as JSON would write it
// ("\"abc\"", 1.5, true, null; strings sanitized and cut at 48 bytes), a container by its size
// ("an array of 3 values", "an object of 2 fields"), never expanded.
std::string describe_json(const nlohmann::json& v);

// The JSON pointer token for an object key: "~" -> "~0", "/" -> "~1", sanitized and cut.
std::string pointer_token(std::string_view key);

}  // namespace llmsize::io

namespace llmsize {

// The reason of a nlohmann exception without its "[json.exception...]" prefix.
std::string json_reason(const nlohmann::json::exception& e);

}  // namespace llmsize
