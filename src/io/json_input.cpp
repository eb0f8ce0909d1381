#include "io/json_input.hpp"

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
  size_t held = 0;   // values inside, at any depth
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
struct TooMany {
  std::string pointer;
};

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

namespace {

// nlohmann's SAX interface building the document linearly (its callback parser rescans a parent
// container at every object end: quadratic on [{}, {}, ...]), with the nesting limit, duplicate
// keys refused and `keep` asked about each finished value.
class Builder {
 public:
  explicit Builder(const JsonKeep& keep) : keep_(keep) {}
  json root;

  bool null() { return scalar(json(nullptr)); }
  bool boolean(bool v) { return scalar(json(v)); }
  bool number_integer(json::number_integer_t v) { return scalar(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(json(v)); }
  bool number_float(json::number_float_t v, const std::string&) { return scalar(json(v)); }
  bool string(std::string& v) { return scalar(json(std::move(v))); }
  bool binary(json::binary_t&) { return scalar(json()); }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool key(std::string& k) {
    Frame& f = st_.back();
    f.key = k;
    if (!f.add(f.key)) throw DuplicateKey{pointer_of(st_), f.key};
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    throw ex;  // parse_error (with its byte) or out_of_range (number overflow), as json::parse
  }

 private:
  bool open(bool array) {
    if (st_.size() >= static_cast<size_t>(kMaxJsonDepth)) throw TooDeep{};
    begin_element();
    st_.emplace_back();
    st_.back().array = array;
    values_.push_back(array ? json::array() : json::object());
    return true;
  }
  bool close() {
    json v = std::move(values_.back());
    values_.pop_back();
    const size_t held = st_.back().held;
    st_.pop_back();
    deliver(std::move(v), held);
    return true;
  }
  bool scalar(json v) {
    begin_element();
    deliver(std::move(v), 0);
    return true;
  }
  void begin_element() {
    if (!st_.empty() && st_.back().array) ++st_.back().index;
  }
  // A finished value holding `held` others: offered to keep_, then put in its parent (or made the
  // root). A dropped container gives back what it held.
  void deliver(json v, size_t held) {
    const int depth = static_cast<int>(st_.size());
    const bool in_array = !st_.empty() && st_.back().array;
    static const std::string kNone;
    const std::string& key = st_.empty() || in_array ? kNone : st_.back().key;
    const std::string& top = st_.empty() ? kNone : st_.size() == 1 ? key : st_.front().key;
    if (keep_) {
      JsonValue e{depth, in_array, top, key, v};
      if (!keep_(e)) {
        live_ -= held;
        return;
      }
    }
    if (++live_ > kMaxJsonValues) throw TooMany{pointer_of(st_)};
    if (!st_.empty()) st_.back().held += 1 + held;
    if (st_.empty())
      root = std::move(v);
    else if (in_array)
      values_.back().push_back(std::move(v));
    else
      values_.back()[key] = std::move(v);
  }

  const JsonKeep& keep_;
  size_t live_ = 0;  // values held in the document being built
  std::vector<Frame> st_;
  std::vector<json> values_;  // the containers being built, outermost first
};

}  // namespace

json parse_json(std::string_view text, const std::string& where, const JsonKeep& keep) {
  // nlohmann's lexer takes a NUL byte outside a string for the end of the input, so whatever
  // followed it would be ignored: refused instead (JSON text never holds one, RFC 8259 §2).
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw InputError(where + ": not valid JSON: a NUL byte (at byte " + std::to_string(nul) + ")");
  Builder b(keep);
  try {
    json::sax_parse(text.begin(), text.end(), &b);
    return std::move(b.root);
  } catch (const TooDeep&) {
    throw InputError(where + ": not valid JSON: nesting deeper than " +
                     std::to_string(kMaxJsonDepth) + " levels (at byte " +
                     std::to_string(too_deep_at(text, kMaxJsonDepth)) + ")");
  } catch (const TooMany& t) {
    throw InputError(where + ": " + (t.pointer.empty() ? "/" : t.pointer) + ": more than " +
                     std::to_string(kMaxJsonValues) + " JSON values held at once");
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
