#include "llmsize/io/safetensors.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "byte_reader.hpp"
#include "io/json_input.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/input.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize {
namespace {

using json = nlohmann::json;

struct Dtype {
  const char* name;
  uint32_t bytes;  // per element
  TensorType type;
};

// huggingface/safetensors safetensors/src/tensor.rs enum Dtype, each counted as the llmsize type of
// the same width. Sub-byte dtypes (F4, F6_*) are not supported.
const Dtype kDtypes[] = {
    {"F64", 8, TensorType::F64},
    {"F32", 4, TensorType::F32},
    {"F16", 2, TensorType::F16},
    {"BF16", 2, TensorType::BF16},
    {"F8_E4M3", 1, TensorType::FP8_E4M3},
    {"F8_E5M2", 1, TensorType::FP8_E4M3},
    {"F8_E8M0", 1, TensorType::I8},
    {"I64", 8, TensorType::I64},
    {"U64", 8, TensorType::I64},
    {"I32", 4, TensorType::I32},
    {"U32", 4, TensorType::I32},
    {"I16", 2, TensorType::I16},
    {"U16", 2, TensorType::I16},
    {"I8", 1, TensorType::INT8},
    {"U8", 1, TensorType::I8},
    {"BOOL", 1, TensorType::I8},
};

const Dtype* find_dtype(std::string_view name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

std::string dtype_list() {
  std::string s;
  for (const auto& d : kDtypes) s += (s.empty() ? "" : ", ") + std::string(d.name);
  return s;
}

std::string shape_str(const std::vector<uint64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool as_u64(const json& v, uint64_t& out) {
  if (v.is_number_unsigned()) {
    out = v.get<uint64_t>();
    return true;
  }
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    out = static_cast<uint64_t>(v.get<int64_t>());
    return true;
  }
  return false;
}

// Bounds of a header's JSON: a tensor has dtype, shape and data_offsets (a few more fields are
// tolerated); a shape has at most a handful of dimensions (torch allows 64).
constexpr uint64_t kMaxFields = 16;
constexpr uint64_t kMaxDims = 64;
// __metadata__: real files hold one ({"format": "pt"}) to a few entries. The first 256 are kept
// (their keys and values cut at 64 KiB), all are counted, more than 65,536 is refused.
constexpr size_t kMaxMetadataKept = 256;
constexpr size_t kMaxMetadataText = 64 << 10;
constexpr uint64_t kMaxMetadata = 1 << 16;
// Tensor names: real ones are under 128 bytes ("model.layers.0.mlp.experts.0.gate_proj.weight");
// each is held a few times over, so length and total are capped.
constexpr size_t kMaxTensorName = 1024;
constexpr uint64_t kMaxTensorNameBytes = 16 << 20;
// Tensors in one file (a shard of the largest checkpoints holds a few thousand; a whole MoE model
// in one file tens of thousands), and dimensions over all of them (2 to 5 each in real files).
constexpr size_t kMaxTensorsPerFile = 1 << 17;
constexpr uint64_t kMaxDimsPerFile = 1 << 20;

// The header's bytes [begin, begin + n) of a source, read forward through a 1 MiB window: memory
// and page faults stay flat whatever the header's size (reading 100 MB into fresh memory cost 0.4 s
// of system time in page faults alone).
class HeaderBytes {
 public:
  HeaderBytes(const io::ByteSource& src, uint64_t begin, uint64_t n)
      : src_(src), begin_(begin), n_(n), buf_(new char[kWindow]) {}
  uint64_t size() const { return n_; }
  // The byte at i. REQUIRES: i < size().
  char operator[](uint64_t i) { return i - base_ < len_ ? buf_[i - base_] : *from(i).data(); }
  // The bytes from i to the end of the window holding it (at least one). REQUIRES: i < size().
  std::string_view from(uint64_t i) {
    if (i < base_ || i - base_ >= len_) {
      base_ = i > kBack ? i - kBack : 0;  // a few bytes behind stay readable
      len_ = static_cast<size_t>(std::min<uint64_t>(kWindow, n_ - base_));
      src_.read(begin_ + base_, buf_.get(), len_);
    }
    return std::string_view(buf_.get() + (i - base_), len_ - static_cast<size_t>(i - base_));
  }
  // Whether the bytes at i are `s`.
  bool starts(uint64_t i, std::string_view s) {
    for (size_t k = 0; k < s.size(); ++k)
      if (i + k >= n_ || (*this)[i + k] != s[k]) return false;
    return true;
  }

 private:
  static constexpr size_t kWindow = 1 << 20, kBack = 64;
  const io::ByteSource& src_;
  const uint64_t begin_, n_;
  std::unique_ptr<char[]> buf_;
  uint64_t base_ = 0;  // the header byte buf_[0] holds
  size_t len_ = 0;
};

// The header's JSON, read in one pass by a parser of its own that keeps only what a tensor needs
// (name, dtype, shape, offsets) and the first __metadata__ entries: any other string, number or
// field is checked and skipped without a copy, so a header of the format's full 100 MB costs its
// own bytes and what is kept. (nlohmann's parser held a string three times over — its token text,
// its token buffer and the value — and a 99 MB metadata string cost 3.4 s and 490 MB.) Errors
// name the file's own byte; JSON as RFC 8259, nesting as deep as a header needs.
class HeaderParser {
 public:
  HeaderParser(SafetensorsFile& f, HeaderBytes& header) : f_(f), h_(header) {}

  void parse() {
    if (h_.size() == 0 || h_[0] != '{')
      fail("the JSON header must start with '{' (the safetensors format)", 0);
    std::set<std::string> names;
    members(kMaxTensorName + 1, [&](const std::string& name, uint64_t len, uint64_t at) {
      if (len > kMaxTensorName)
        fail("tensor name of " + std::to_string(len) + " bytes (" + cut_quoted(name, len) +
                 ") is longer than " + std::to_string(kMaxTensorName),
             at);
      if ((name_bytes_ += len) > kMaxTensorNameBytes)
        fail("tensor names add up to more than " + std::to_string(kMaxTensorNameBytes) + " bytes",
             at);
      // The format disallows duplicate keys.
      if (!names.insert(name).second) fail("duplicate tensor name " + sanitize_quoted(name), at);
      if (name == "__metadata__") return metadata(at);
      if (f_.tensors.size() >= kMaxTensorsPerFile)
        fail("more than " + std::to_string(kMaxTensorsPerFile) + " tensors in one file", at);
      f_.tensors.push_back(tensor(name, at));
    });
    if (peek() >= 0) unexpected("the end of the header");
    check_offsets();
  }

 private:
  // Containers nest at most as deep as {name: {field: [n]}}.
  static constexpr int kMaxDepth = 3;
  enum class Kind { string, number, literal, object, array };

  // "<file>: <what> (at byte N)", N counted from the file's start (the header starts at byte 8).
  [[noreturn]] void fail(const std::string& what, uint64_t at) const {
    io::fail_at(f_.path, what, 8 + at);
  }
  // The same at a byte counted from the file's start (the tensor data's).
  [[noreturn]] void fail_file(const std::string& what, uint64_t file_byte) const {
    io::fail_at(f_.path, what, file_byte);
  }
  [[noreturn]] void syntax(const std::string& what, uint64_t at) const {
    fail("the JSON header is not valid JSON: " + what, at);
  }
  static bool space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  // The next byte after whitespace, or -1 at the end.
  int peek() {
    while (i_ < h_.size()) {
      const std::string_view v = h_.from(i_);
      size_t k = 0;
      while (k < v.size() && space(v[k])) ++k;
      i_ += k;
      if (k < v.size()) return static_cast<unsigned char>(v[k]);
    }
    return -1;
  }
  [[noreturn]] void unexpected(const std::string& expected) {
    const int c = peek();
    if (c < 0) syntax("unexpected end of input; expected " + expected, i_);
    if (c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n' ||
        c == '{' || c == '[' || c == '}' || c == ']' || c == ',' || c == ':')
      syntax("unexpected " + what_starts(c) + "; expected " + expected, i_);
    syntax("invalid literal", i_);
  }
  static std::string what_starts(int c) {
    if (c == '"') return "a string";
    if (c == '-' || (c >= '0' && c <= '9')) return "a number";
    if (c == 't' || c == 'f' || c == 'n') return "a literal";
    return std::string("'") + static_cast<char>(c) + "'";
  }
  // A name cut for a message, with the length of the whole (of which `s` is the start).
  static std::string cut_quoted(const std::string& s, uint64_t len) {
    std::string q = sanitize(s, 40);
    const auto p = q.rfind("... (");
    if (len > s.size() && p != std::string::npos)
      q = q.substr(0, p) + "... (" + std::to_string(len) + " bytes)";
    return "\"" + q + "\"";
  }

  // The members of the object at i_: each key (its first `key_cap` decoded bytes, its length and
  // its offset), then `member` reads the value.
  template <class F>
  void members(size_t key_cap, F member) {
    ++i_;  // '{'
    if (peek() == '}') {
      ++i_;
      return;
    }
    for (;;) {
      if (peek() != '"') unexpected("a string key");
      const uint64_t at = i_;
      std::string key;
      const uint64_t len = string(&key, key_cap);
      if (peek() != ':') unexpected("':'");
      ++i_;
      member(key, len, at);
      const int c = peek();
      ++i_;
      if (c == ',') continue;
      if (c == '}') return;
      --i_;
      unexpected("',' or '}'");
    }
  }
  // The elements of the array at i_, each read by `element`.
  template <class F>
  void elements(F element) {
    ++i_;  // '['
    if (peek() == ']') {
      ++i_;
      return;
    }
    for (;;) {
      element();
      const int c = peek();
      ++i_;
      if (c == ',') continue;
      if (c == ']') return;
      --i_;
      unexpected("',' or ']'");
    }
  }

  // The string at i_ ('"'), checked (escapes, UTF-8, no raw control byte); its first `cap`
  // decoded bytes appended to *out when out is given. Returns the decoded length.
  uint64_t string(std::string* out, size_t cap) {
    ++i_;  // '"'
    uint64_t len = 0;
    auto put = [&](const char* p, size_t n) {
      if (out && out->size() < cap) out->append(p, std::min(n, cap - out->size()));
      len += n;
    };
    for (;;) {
      if (i_ >= h_.size()) syntax("invalid string: missing closing quote", i_);
      const std::string_view v = h_.from(i_);
      size_t k = 0;
      while (k < v.size()) {
        const auto c = static_cast<unsigned char>(v[k]);
        if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) break;
        ++k;
      }
      put(v.data(), k);
      i_ += k;
      if (k == v.size()) continue;  // the window's end
      const auto c = static_cast<unsigned char>(v[k]);
      if (c == '"') {
        ++i_;
        return len;
      }
      if (c < 0x20)
        syntax("invalid string: control character U+00" +
                   std::string(1, "0123456789ABCDEF"[c >> 4]) + "0123456789ABCDEF"[c & 15] +
                   " must be escaped",
               i_);
      char utf8[4];
      const size_t n = c == '\\' ? escape(utf8) : utf8_char(utf8);
      put(utf8, n);
    }
  }
  // The escape at i_ ('\'), as UTF-8 in `buf`; returns its length.
  size_t escape(char* buf) {
    const uint64_t at = i_++;
    if (i_ >= h_.size()) syntax("invalid string: missing closing quote", i_);
    const char e = h_[i_++];
    const char* simple = strchr("\"\\/bfnrt", e);
    if (e && simple) {
      buf[0] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
      return 1;
    }
    if (e != 'u') syntax("invalid string: forbidden character after backslash", at);
    uint32_t cp = hex4(at);
    if (cp >= 0xDC00 && cp <= 0xDFFF)
      syntax("invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF", at);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (!h_.starts(i_, "\\u"))
        syntax("invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF", at);
      i_ += 2;
      const uint32_t lo = hex4(at);
      if (lo < 0xDC00 || lo > 0xDFFF)
        syntax("invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF", at);
      cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    if (cp < 0x80) {
      buf[0] = static_cast<char>(cp);
      return 1;
    }
    if (cp < 0x800) {
      buf[0] = static_cast<char>(0xC0 | (cp >> 6));
      buf[1] = static_cast<char>(0x80 | (cp & 0x3F));
      return 2;
    }
    if (cp < 0x10000) {
      buf[0] = static_cast<char>(0xE0 | (cp >> 12));
      buf[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      buf[2] = static_cast<char>(0x80 | (cp & 0x3F));
      return 3;
    }
    buf[0] = static_cast<char>(0xF0 | (cp >> 18));
    buf[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    buf[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    buf[3] = static_cast<char>(0x80 | (cp & 0x3F));
    return 4;
  }
  uint32_t hex4(uint64_t at) {
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
      const char x = i_ < h_.size() ? h_[i_] : '\0';
      const int d = x >= '0' && x <= '9'   ? x - '0'
                    : x >= 'a' && x <= 'f' ? x - 'a' + 10
                    : x >= 'A' && x <= 'F' ? x - 'A' + 10
                                           : -1;
      if (d < 0) syntax("invalid string: '\\u' must be followed by 4 hex digits", at);
      v = v << 4 | static_cast<uint32_t>(d);
    }
    return v;
  }
  // The UTF-8 character at i_ (a byte >= 0x80), well-formed as RFC 3629 table 3-7 says, copied
  // to `buf`; returns its length.
  size_t utf8_char(char* buf) {
    const auto b = [&](size_t k) {
      return i_ + k < h_.size() ? static_cast<unsigned char>(h_[i_ + k]) : 0u;
    };
    const unsigned c = b(0);
    size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;  // the second byte's range
    if (c >= 0xC2 && c <= 0xDF)
      n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
      n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
      n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    if (n == 0) syntax("invalid string: ill-formed UTF-8 byte", i_);
    for (size_t k = 1; k < n; ++k) {
      const unsigned x = b(k);
      if (x < (k == 1 ? lo : 0x80) || x > (k == 1 ? hi : 0xBF))
        syntax("invalid string: ill-formed UTF-8 byte", i_ + k);
    }
    for (size_t k = 0; k < n; ++k) buf[k] = h_[i_ + k];
    i_ += n;
    return n;
  }
  // The number at i_, checked against JSON's grammar; its text, cut after 41 bytes.
  std::string number() {
    const size_t s = i_;
    auto digits = [&](const char* what) {
      if (i_ >= h_.size() || !std::isdigit(static_cast<unsigned char>(h_[i_])))
        syntax(std::string("invalid number; expected digit ") + what, i_);
      while (i_ < h_.size() && std::isdigit(static_cast<unsigned char>(h_[i_]))) ++i_;
    };
    if (i_ < h_.size() && h_[i_] == '-') ++i_;
    if (i_ < h_.size() && h_[i_] == '0')
      ++i_;
    else
      digits("after '-'");
    if (i_ < h_.size() && h_[i_] == '.') {
      ++i_;
      digits("after '.'");
    }
    if (i_ < h_.size() && (h_[i_] == 'e' || h_[i_] == 'E')) {
      ++i_;
      if (i_ < h_.size() && (h_[i_] == '+' || h_[i_] == '-')) ++i_;
      digits("after exponent");
    }
    std::string t;
    for (uint64_t k = s; k < i_ && t.size() < 41; ++k) t += h_[k];
    return t;
  }
  // A number's text as a uint64_t: false unless it is a plain non-negative integer that fits.
  static bool plain_u64(std::string_view t, uint64_t& v) {
    if (t.empty() || t.size() > 20) return false;
    v = 0;
    for (const char ch : t)
      if (!std::isdigit(static_cast<unsigned char>(ch)) || __builtin_mul_overflow(v, 10, &v) ||
          __builtin_add_overflow(v, static_cast<uint64_t>(ch - '0'), &v))
        return false;
    return true;
  }
  // Any value at i_ (containers while `depth` <= kMaxDepth), skipped; its kind. `text` gets a
  // scalar's first 64 bytes (a string's decoded, quoted) for messages.
  Kind value(int depth, std::string* text = nullptr) {
    const int c = peek();
    if (c == '{' || c == '[') {
      if (depth > kMaxDepth) fail("the JSON header nests deeper than a safetensors header", i_);
      if (c == '{')
        members(0, [&](const std::string&, uint64_t, uint64_t) { value(depth + 1); });
      else
        elements([&] { value(depth + 1); });
      return c == '{' ? Kind::object : Kind::array;
    }
    if (c == '"') {
      std::string s;
      string(text ? &s : nullptr, 64);
      if (text) *text = sanitize_quoted(s, 40);
      return Kind::string;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      const std::string t = number();
      if (text) *text = t.size() > 40 ? std::string(t.substr(0, 40)) + "..." : std::string(t);
      return Kind::number;
    }
    for (const char* lit : {"true", "false", "null"})
      if (h_.starts(i_, lit)) {
        i_ += strlen(lit);
        if (text) *text = lit;
        return Kind::literal;
      }
    unexpected("'[', '{', or a literal");
  }
  // A value read for a message: "1", "\"x\"", "an object", "an array".
  std::string describe(Kind k, const std::string& text) const {
    return k == Kind::object ? "an object" : k == Kind::array ? "an array" : text;
  }

  // __metadata__'s entries, none kept as JSON: string values only, counted and the first
  // kMaxMetadataKept stored (keys and values cut at kMaxMetadataText bytes).
  void metadata(uint64_t at) {
    if (peek() != '{') {
      value(2);
      fail("__metadata__ must be an object of strings", at);
    }
    // The format disallows duplicate keys here too: each whole key's hash is kept (8 bytes an
    // entry, not the keys themselves, which may reach the header's 100 MB).
    std::set<size_t> seen;
    members(kMaxMetadataText, [&](const std::string& key, uint64_t, uint64_t key_at) {
      if (key.size() < kMaxMetadataText && !seen.insert(std::hash<std::string>{}(key)).second)
        fail("__metadata__: duplicate key " + sanitize_quoted(key), key_at);
      if (const int c = peek(); c != '"') {
        std::string text;
        const Kind k = c == '{' ? Kind::object : c == '[' ? Kind::array : value(kMaxDepth, &text);
        fail("__metadata__." + sanitize(key) + " must be a string, got " + describe(k, text),
             key_at);
      }
      if (++f_.metadata_count > kMaxMetadata)
        fail("__metadata__ has more than " + std::to_string(kMaxMetadata) + " entries", at);
      const bool keep = f_.metadata.size() < kMaxMetadataKept;
      std::string v;
      string(keep ? &v : nullptr, kMaxMetadataText);
      if (keep) f_.metadata[key] = std::move(v);
    });
  }

  // One tensor's object: dtype, shape and data_offsets kept, other fields skipped; checked as a
  // whole at its end.
  SafetensorsTensor tensor(const std::string& name, uint64_t at) {
    const std::string q = sanitize_quoted(name);
    if (peek() != '{') {
      value(2);  // a syntax error first, as a JSON parser would say
      fail("tensor " + q + " must be an object with dtype, shape and data_offsets", at);
    }
    SafetensorsTensor t;
    t.name = name;
    bool dtype = false, shape = false, offsets = false, offsets_ok = true;
    std::vector<uint64_t> off;
    uint64_t fields = 0;
    // Numbers of a shape or data_offsets: non-negative integers, bounded per array and per file.
    auto numbers = [&](std::vector<uint64_t>& v, bool& ok, const char* what) {
      elements([&] {
        if (++dims_ > kMaxDimsPerFile)
          fail("the tensors' shapes and offsets hold more than " + std::to_string(kMaxDimsPerFile) +
                   " numbers in all",
               at);
        std::string text;
        const Kind k = value(kMaxDepth + 1, &text);
        uint64_t n = 0;
        if (k != Kind::number || !plain_u64(text, n)) {
          if (!what) return void(ok = false);
          fail("tensor " + q + ": " + what + " holds " + describe(k, text) +
                   ", not a non-negative integer",
               at);
        }
        if (v.size() >= kMaxDims)
          fail("tensor " + q + " has an array of more than " + std::to_string(kMaxDims) + " values",
               at);
        v.push_back(n);
      });
    };
    members(32, [&](const std::string& key, uint64_t len, size_t) {
      if (++fields > kMaxFields)
        fail("tensor " + q + " has more than " + std::to_string(kMaxFields) + " fields", at);
      const bool known =
          len == key.size() && (key == "dtype" || key == "shape" || key == "data_offsets");
      if (known && ((key == "dtype" && dtype) || (key == "shape" && shape) ||
                    (key == "data_offsets" && offsets)))
        fail("tensor " + q + ": duplicate key " + sanitize_quoted(key), at);
      if (known && key == "dtype") {
        dtype = true;
        if (peek() != '"') {
          value(3);
          fail("tensor " + q + ": dtype missing or not a string", at);
        }
        string(&t.dtype, 64);
      } else if (known && key == "shape") {
        shape = true;
        if (peek() != '[') {
          value(3);
          fail("tensor " + q + ": shape missing or not an array", at);
        }
        bool ok = true;
        numbers(t.shape, ok, "shape");
      } else if (known && key == "data_offsets") {
        offsets = true;
        if (peek() == '[')
          numbers(off, offsets_ok, nullptr);
        else
          offsets_ok = false, value(3);
      } else {
        value(3);
      }
    });
    if (!dtype) fail("tensor " + q + ": dtype missing or not a string", at);
    const Dtype* d = find_dtype(t.dtype);
    if (!d)
      fail("tensor " + q + " has unknown or unsupported dtype " + sanitize_quoted(t.dtype) +
               " (supported: " + dtype_list() + ")",
           at);
    t.type = d->type;
    if (!shape) fail("tensor " + q + ": shape missing or not an array", at);
    t.n_elements = 1;
    for (uint64_t n : t.shape)
      if (__builtin_mul_overflow(t.n_elements, n, &t.n_elements))
        fail("tensor " + q + " shape " + shape_str(t.shape) +
                 " has more elements than fit in 64 bits",
             at);
    uint64_t need = 0;
    if (__builtin_mul_overflow(t.n_elements, d->bytes, &need))
      fail("tensor " + q + " shape " + shape_str(t.shape) + " in " + t.dtype +
               " has more bytes than fit in 64 bits",
           at);
    if (!offsets || !offsets_ok || off.size() != 2)
      fail("tensor " + q + ": data_offsets must be [begin, end], two non-negative integers", at);
    t.begin = off[0];
    t.end = off[1];
    const std::string range = "[" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "]";
    if (t.end < t.begin)
      fail("tensor " + q + ": data_offsets " + range + " end before they begin", at);
    if (t.end - t.begin != need)
      fail("tensor " + q + ": data_offsets " + range + " hold " + std::to_string(t.end - t.begin) +
               " bytes, but " + t.dtype + " " + shape_str(t.shape) + " needs " +
               std::to_string(need),
           at);
    return t;
  }

  // The byte buffer must be covered exactly: no data past the end, no overlap, no hole
  // (the README: "The byte buffer needs to be entirely indexed, and cannot contain holes").
  void check_offsets() {
    auto& ts = f_.tensors;
    std::sort(ts.begin(), ts.end(), [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    const uint64_t buffer = f_.file_size - f_.data_offset;
    uint64_t expect = 0;
    const SafetensorsTensor* prev = nullptr;
    for (const auto& t : ts) {
      const std::string q = sanitize_quoted(t.name);
      if (t.end > buffer)
        fail_file("tensor " + q + " data [" + std::to_string(t.begin) + ", " +
                      std::to_string(t.end) +
                      ") runs past the end of the file (the byte buffer holds " +
                      std::to_string(buffer) + " bytes)",
                  checked_add(f_.data_offset, std::min(t.begin, buffer)));
      if (t.begin < expect)
        fail_file("tensor " + q + " data [" + std::to_string(t.begin) + ", " +
                      std::to_string(t.end) + ") overlaps tensor " + sanitize_quoted(prev->name) +
                      " [" + std::to_string(prev->begin) + ", " + std::to_string(prev->end) + ")",
                  f_.data_offset + t.begin);
      if (t.begin > expect)
        fail_file("the byte buffer has a hole of " + std::to_string(t.begin - expect) +
                      " bytes before tensor " + q,
                  f_.data_offset + expect);
      expect = t.end;
      prev = &t;
    }
    if (expect != buffer)
      fail_file(std::to_string(buffer - expect) +
                    " bytes after the last tensor's data are not indexed by the header",
                f_.data_offset + expect);
  }

  SafetensorsFile& f_;
  HeaderBytes& h_;
  uint64_t i_ = 0;  // the next byte of the header
  uint64_t name_bytes_ = 0;
  uint64_t dims_ = 0;
};

SafetensorsFile parse(const io::ByteSource& src, const std::string& where) {
  SafetensorsFile f;
  f.path = where;
  f.file_size = src.size();
  io::Cursor c(src, where);
  if (c.size() < 8)
    c.fail("truncated: " + std::to_string(c.size()) +
               " bytes cannot hold the 8-byte header length of a safetensors file",
           0);
  f.header_size = c.u64("header length");
  if (f.header_size > kSafetensorsMaxHeader)
    c.fail("header length " + std::to_string(f.header_size) + " exceeds the format's limit of " +
               std::to_string(kSafetensorsMaxHeader) + " bytes",
           0);
  if (f.header_size > c.remaining())
    c.fail("header length " + std::to_string(f.header_size) + " runs past the end of the file (" +
               std::to_string(c.remaining()) + " bytes follow)",
           0);
  f.data_offset = 8 + f.header_size;
  HeaderBytes header(src, 8, f.header_size);
  HeaderParser(f, header).parse();
  return f;
}

}  // namespace

std::optional<TensorType> tensor_type_from_safetensors_dtype(std::string_view dtype) {
  if (const Dtype* d = find_dtype(dtype)) return d->type;
  return std::nullopt;
}

uint64_t SafetensorsFile::tensor_bytes() const {
  uint64_t s = 0;
  for (const auto& t : tensors) s = checked_add(s, t.bytes());
  return s;
}

SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& where) {
  const io::MemorySource src(bytes);
  return parse(src, where);
}

SafetensorsFile read_safetensors_file(const std::string& path) {
  const io::FileSource src(path);
  return parse(src, path);
}

SafetensorsIndex parse_safetensors_index(std::string_view text, const std::string& where) {
  SafetensorsIndex ix;
  ix.path = where;
  json j;
  std::set<std::string> seen;
  // weight_map entries are checked and stored as they are parsed; none is kept as JSON.
  const io::JsonKeep keep = [&](io::JsonValue& e) {
    // Only weight_map entries and metadata.total_size are read; the rest is dropped as it ends.
    if (e.top_key == "metadata") return e.depth <= 1 || (e.depth == 2 && e.key == "total_size");
    if (e.top_key != "weight_map") return e.depth == 0;
    if (e.depth != 2 || e.in_array) return e.depth <= 1;
    if (ix.weight_map.size() >= kSafetensorsMaxTensors)
      throw InputError(where + ": /weight_map: more than " +
                       std::to_string(kSafetensorsMaxTensors) + " tensors");
    const std::string& tensor = e.key;
    const json& parsed = e.value;
    const std::string ptr = "/weight_map/" + io::pointer_token(tensor);
    if (!parsed.is_string())
      throw InputError(where + ": " + ptr + ": expected a shard file name, got " +
                       io::describe_json(parsed));
    const std::string s = parsed.get<std::string>();
    // Shards live beside the index: no absolute paths, no way out of the directory.
    if (s.empty() || s[0] == '/' || s == ".." || s.rfind("../", 0) == 0 ||
        s.find("/../") != std::string::npos ||
        (s.size() >= 3 && s.compare(s.size() - 3, 3, "/..") == 0))
      throw InputError(where + ": " + ptr + ": shard " + sanitize_quoted(s) +
                       " is not a file beside the index");
    if (seen.insert(s).second) ix.shards.push_back(s);
    ix.weight_map[tensor] = s;
    return false;
  };
  try {
    j = io::parse_json(text, where, keep);
  } catch (const json::parse_error& e) {
    io::fail_at(where, "not valid JSON", e.byte ? e.byte - 1 : 0);
  } catch (const json::exception& e) {
    throw InputError(where + ": not valid JSON (" + json_reason(e) + ")");
  }
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    throw InputError(where +
                     ": /weight_map: missing (expected an object of tensor name -> shard file)");
  if (j.contains("metadata") && j["metadata"].is_object() && j["metadata"].contains("total_size")) {
    const json& ts = j["metadata"]["total_size"];
    if (!as_u64(ts, ix.total_size) && !(ts.is_number_float() && ts.get<double>() >= 0))
      throw InputError(where + ": /metadata/total_size: expected a byte count, got " +
                       io::describe_json(ts));
  }
  if (ix.shards.empty()) throw InputError(where + ": /weight_map: names no tensor");
  return ix;
}

SafetensorsIndex read_safetensors_index(const std::string& path) {
  return parse_safetensors_index(io::read_text_input(path, io::kSafetensorsIndexInput), path);
}

}  // namespace llmsize
