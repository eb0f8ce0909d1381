#include "llmsize/io/json_input.hpp"

#include <cstdio>
#include <unordered_set>
#include <vector>

#include "llmsize/io/error.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize::io {
namespace {

using json = nlohmann::json;

// Excerpts of strings in messages.
constexpr size_t kExcerpt = 48;

// The byte where the nesting of `text` first passes `limit` levels (strings skipped).
size_t too_deep_at(std::string_view text, int limit) {
  int depth = 0;
  bool in_str = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_str) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return 0;
}

// The byte of the second appearance of `key` as an object key in `text` (a search: the parser
// callback does not see positions); 0 when the escaped form differs from the text's.
size_t second_key_at(std::string_view text, const std::string& key) {
  const std::string needle = json(key).dump();  // a string: flat, bounded by the text
  const size_t first = text.find(needle);
  if (first == std::string_view::npos) return 0;
  size_t p = first;
  while ((p = text.find(needle, p + 1)) != std::string_view::npos) {
    size_t q = p + needle.size();
    while (q < text.size() &&
           (text[q] == ' ' || text[q] == '\t' || text[q] == '\n' || text[q] == '\r'))
      ++q;
    if (q < text.size() && text[q] == ':') return p;
  }
  return 0;
}

struct Frame {
  bool array = false;
  size_t index = 0;  // arrays: elements begun
  std::string key;   // objects: the last key
  // Keys seen: a short list searched in place (most objects have a few), a set past 16.
  std::vector<std::string> few;
  std::unordered_set<std::string> many;
  bool add(const std::string& k) {
    if (many.empty()) {
      for (const auto& x : few)
        if (x == k) return false;
      few.push_back(k);
      if (few.size() <= 16) return true;
      many.insert(std::make_move_iterator(few.begin()), std::make_move_iterator(few.end()));
      few.clear();
      return true;
    }
    return many.insert(k).second;
  }
};

// The pointer of the innermost container: each outer frame's current key or element.
std::string pointer_of(const std::vector<Frame>& st) {
  std::string s;
  for (size_t i = 0; i + 1 < st.size(); ++i) {
    const Frame& f = st[i];
    if (f.array)
      s += "/" + std::to_string(f.index ? f.index - 1 : 0);
    else
      s += "/" + pointer_token(f.key);
  }
  return s;
}

struct DuplicateKey {
  std::string pointer, key;
};
struct TooDeep {};

}  // namespace

std::string pointer_token(std::string_view key) {
  std::string s;
  for (const char c : key) {
    if (c == '~')
      s += "~0";
    else if (c == '/')
      s += "~1";
    else
      s += c;
  }
  return sanitize(s, 80);
}

json parse_json(std::string_view text, const std::string& where,
                const json::parser_callback_t& keep) {
  std::vector<Frame> st;
  const json::parser_callback_t cb = [&](int depth, json::parse_event_t ev, json& parsed) {
    using E = json::parse_event_t;
    switch (ev) {
      case E::object_start:
      case E::array_start:
        if (depth >= kMaxJsonDepth) throw TooDeep{};
        if (!st.empty() && st.back().array) ++st.back().index;
        st.emplace_back();
        st.back().array = ev == E::array_start;
        break;
      case E::key:
        if (!st.empty()) {
          Frame& f = st.back();
          f.key = parsed.get_ref<const std::string&>();
          if (!f.add(f.key)) throw DuplicateKey{pointer_of(st), f.key};
        }
        break;
      case E::value:
        if (!st.empty() && st.back().array) ++st.back().index;
        break;
      case E::object_end:
      case E::array_end:
        if (!st.empty()) st.pop_back();
        break;
    }
    return keep ? keep(depth, ev, parsed) : true;
  };
  try {
    return json::parse(text.begin(), text.end(), cb);
  } catch (const TooDeep&) {
    throw InputError(where + ": not valid JSON: nesting deeper than " +
                     std::to_string(kMaxJsonDepth) + " levels (at byte " +
                     std::to_string(too_deep_at(text, kMaxJsonDepth)) + ")");
  } catch (const DuplicateKey& d) {
    const size_t at = second_key_at(text, d.key);
    throw InputError(where + ": " + (d.pointer.empty() ? "/" : d.pointer) + ": duplicate key " +
                     sanitize_quoted(d.key, kExcerpt) +
                     (at ? " (at byte " + std::to_string(at) + ")" : std::string()));
  }
  // nlohmann's own errors (syntax, number overflow) pass through: each reader words them as it
  // did, with json_reason() or the byte.
}

std::string describe_json(const json& v) {
  char buf[64];
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case json::value_t::string:
      return sanitize_quoted(v.get_ref<const std::string&>(), kExcerpt);
    case json::value_t::number_integer:
      return std::to_string(v.get<int64_t>());
    case json::value_t::number_unsigned:
      return std::to_string(v.get<uint64_t>());
    case json::value_t::number_float:
      std::snprintf(buf, sizeof buf, "%.15g", v.get<double>());
      return buf;
    case json::value_t::array:
      return "an array of " + std::to_string(v.size()) + (v.size() == 1 ? " value" : " values");
    case json::value_t::object:
      return "an object of " + std::to_string(v.size()) + (v.size() == 1 ? " field" : " fields");
    case json::value_t::binary:
    case json::value_t::discarded:
      break;
  }
  return "a value";
}

}  // namespace llmsize::io
