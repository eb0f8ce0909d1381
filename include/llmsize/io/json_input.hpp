// Untrusted JSON: parsed with a nesting limit and duplicate keys refused, and described in error
// messages by type and a bounded, escaped excerpt, never by json::dump() (which recurses once per
// nesting level and copies the whole value).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace llmsize::io {

// Deepest nesting accepted: config.json, indexes, catalogs and plans nest 5 levels at most.
constexpr int kMaxJsonDepth = 64;

// Parses `text`; `where` names it in errors. Throws InputError
//   "<where>: not valid JSON: nesting deeper than 64 levels (at byte N)"   (N counted from 0)
//   "<where>: /path: duplicate key \"k\" (at byte N)"
// and lets nlohmann's syntax and number errors through (json::exception): each reader words them
// (with json_reason(), which drops the input's own bytes). `keep`, when given, is called for every
// event after those checks, as nlohmann's parser callback (return false to drop a value already
// used, so memory stays bounded by what is kept).
nlohmann::json parse_json(std::string_view text, const std::string& where,
                          const nlohmann::json::parser_callback_t& keep = nullptr);

// A bad value for a message, bounded whatever it holds: a scalar as JSON would write it
// ("\"abc\"", 1.5, true, null; strings sanitized and cut at 48 bytes), a container by its size
// ("an array of 3 values", "an object of 2 fields"), never expanded.
std::string describe_json(const nlohmann::json& v);

// The JSON pointer token for an object key: "~" -> "~0", "/" -> "~1", sanitized and cut.
std::string pointer_token(std::string_view key);

}  // namespace llmsize::io
