#include "llmsize/io/gguf.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <unordered_set>

#include "byte_reader.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize {
namespace {

using io::Cursor;

// Layout and limits from ggml-org/ggml docs/gguf.md and ggml/src/gguf.cpp
// (gguf_init_from_file_impl).
constexpr uint32_t kMagic = 0x46554747;            // "GGUF" read as a little-endian uint32
constexpr uint32_t kMaxDims = 4;                   // GGML_MAX_DIMS
constexpr uint64_t kMaxTensorName = 63;            // GGML_MAX_NAME 64, including the NUL
constexpr uint64_t kMaxKey = 65535;                // gguf.md: keys are at most 2^16 - 1 bytes
constexpr uint64_t kMinKvBytes = 8 + 4 + 1;        // key length, value type, smallest value
constexpr uint64_t kMinInfoBytes = 8 + 4 + 4 + 8;  // name length, n_dims, type, offset
constexpr int kMaxArrayDepth = 4;                  // arrays of arrays: none deeper in any real file
// Elements of an array of strings or arrays are read one by one; more than this is no tokenizer.
constexpr uint64_t kMaxVarItems = 1ull << 24;
// Tensor infos reserved ahead; beyond this the vector grows as infos are actually read.
constexpr size_t kReserve = 1 << 12;
// Real files hold tens of key/values; a stored value costs ~100 bytes, so a cap keeps memory to a
// small multiple of the header whatever it claims.
constexpr uint64_t kMaxKv = 1 << 16;
// Array elements stored over the whole file for other keys (tokenizer scores and the like); past
// this, arrays keep only their length. The per-layer hyperparameters of the file's own
// architecture are kept per key (up to kGgufKeptItems each), whatever came before them.
constexpr uint64_t kKeptItemsBudget = 1 << 16;
// The keys llama.cpp reads per layer (llama-model.cpp get_key_or_arr), after "<arch>.".
const char* const kPerLayerKeys[] = {"attention.head_count", "attention.head_count_kv",
                                     "feed_forward_length", "attention.sliding_window_pattern"};

const char* const kTypeNames[] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                  "int32",  "float32", "bool",   "string", "array",
                                  "uint64", "int64",   "float64"};

// Size of a fixed-size value, 0 for string and array.
uint64_t fixed_size(GgufType t) {
  switch (t) {
    case GgufType::UINT8:
    case GgufType::INT8:
    case GgufType::BOOL:
      return 1;
    case GgufType::UINT16:
    case GgufType::INT16:
      return 2;
    case GgufType::UINT32:
    case GgufType::INT32:
    case GgufType::FLOAT32:
      return 4;
    case GgufType::UINT64:
    case GgufType::INT64:
    case GgufType::FLOAT64:
      return 8;
    default:
      return 0;
  }
}

// The fewest bytes one value of type t occupies.
uint64_t min_size(GgufType t) {
  if (t == GgufType::STRING) return 8;
  if (t == GgufType::ARRAY) return 4 + 8;
  return fixed_size(t);
}

std::string quoted(const std::string& s) {
  std::string r = "'";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\'')
      r += static_cast<char>(c);
    else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      r += b;
    }
  }
  return r + "'";
}

class Parser {
 public:
  Parser(const io::ByteSource& src, const std::string& where) : c_(src, where) {}

  GgufFile parse() {
    GgufFile f;
    f.path = c_.where();
    f.file_size = c_.size();
    if (c_.size() < 4)
      c_.fail("truncated: " + std::to_string(c_.size()) + " bytes cannot hold the GGUF magic", 0);
    const uint32_t magic = c_.u32("magic");
    if (magic != kMagic) {
      char b[64];
      std::snprintf(b, sizeof b, "%02x %02x %02x %02x", magic & 0xff, magic >> 8 & 0xff,
                    magic >> 16 & 0xff, magic >> 24);
      c_.fail(
          std::string("not a GGUF file: starts with ") + b + ", expected 47 47 55 46 (\"GGUF\")",
          0);
    }
    f.version = c_.u32("version");
    if (f.version == 1) c_.fail("GGUF version 1 is not supported (versions 2 and 3 are)", 4);
    if (f.version != 2 && f.version != 3) {
      if ((f.version & 0xffff) == 0)
        c_.fail(
            "big-endian GGUF (version field " + std::to_string(f.version) + ") is not supported",
            4);
      c_.fail("unsupported GGUF version " + std::to_string(f.version) + " (versions 2 and 3 are)",
              4);
    }
    const uint64_t n_tensors = c_.u64("tensor count");
    const uint64_t n_kv = c_.u64("metadata count");
    // A count is believed only as far as the rest of the file could hold its entries.
    if (n_kv > c_.remaining() / kMinKvBytes)
      c_.fail("metadata count " + std::to_string(n_kv) + " needs at least " +
                  mul_str(n_kv, kMinKvBytes) + " bytes, only " + std::to_string(c_.remaining()) +
                  " remain",
              16);
    if (n_kv > kMaxKv)
      c_.fail("metadata count " + std::to_string(n_kv) + " is more than the " +
                  std::to_string(kMaxKv) + " llmsize reads (models have tens)",
              16);
    read_metadata(f, n_kv);
    if (n_tensors > c_.remaining() / kMinInfoBytes)
      c_.fail("tensor count " + std::to_string(n_tensors) + " needs at least " +
                  mul_str(n_tensors, kMinInfoBytes) + " bytes of tensor infos, only " +
                  std::to_string(c_.remaining()) + " remain",
              8);
    read_tensor_infos(f, n_tensors);
    check_data(f);
    return f;
  }

 private:
  static std::string mul_str(uint64_t a, uint64_t b) {
    uint64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? "more than 2^64" : std::to_string(r);
  }

  // A string whose length is first checked against the file; kept only up to `keep_max` bytes.
  std::string read_string(const char* what, uint64_t keep_max, uint64_t* len_out = nullptr) {
    const uint64_t at = c_.pos();
    const uint64_t len = c_.u64(what);
    if (len > c_.remaining())
      c_.fail(std::string(what) + " length " + std::to_string(len) +
                  " runs past the end of the file (" + std::to_string(c_.remaining()) +
                  " bytes remain)",
              at);
    if (len_out) *len_out = len;
    if (len > keep_max) {
      c_.skip(len, what);
      return {};
    }
    return c_.bytes(len, what);
  }

  GgufType read_type(const char* what, const std::string& key) {
    const uint64_t at = c_.pos();
    const uint32_t t = c_.u32(what);
    if (t > static_cast<uint32_t>(GgufType::FLOAT64))
      c_.fail("unknown metadata value type " + std::to_string(t) + " for key " + quoted(key), at);
    return static_cast<GgufType>(t);
  }

  GgufValue read_value(GgufType t, const std::string& key, int depth, bool keep) {
    GgufValue v;
    v.type = t;
    v.pos = c_.pos();
    switch (t) {
      case GgufType::UINT8:
        v.bits = c_.u8("uint8 value");
        break;
      case GgufType::INT8:
        v.bits = static_cast<uint64_t>(int64_t{static_cast<int8_t>(c_.u8("int8 value"))});
        break;
      case GgufType::UINT16:
        v.bits = c_.u16("uint16 value");
        break;
      case GgufType::INT16:
        v.bits = static_cast<uint64_t>(int64_t{static_cast<int16_t>(c_.u16("int16 value"))});
        break;
      case GgufType::UINT32:
        v.bits = c_.u32("uint32 value");
        break;
      case GgufType::INT32:
        v.bits = static_cast<uint64_t>(int64_t{static_cast<int32_t>(c_.u32("int32 value"))});
        break;
      case GgufType::UINT64:
      case GgufType::INT64:
        v.bits = c_.u64("int64 value");
        break;
      case GgufType::FLOAT32: {
        const uint32_t b = c_.u32("float32 value");
        float x;
        std::memcpy(&x, &b, 4);
        v.real = x;
        break;
      }
      case GgufType::FLOAT64: {
        const uint64_t b = c_.u64("float64 value");
        std::memcpy(&v.real, &b, 8);
        break;
      }
      case GgufType::BOOL: {
        v.bits = c_.u8("bool value");
        // gguf.md: "0 is false and 1 is true. Anything else is invalid."
        if (v.bits > 1)
          c_.fail("bool value " + std::to_string(v.bits) + " of key " + quoted(key) +
                      " is neither 0 nor 1",
                  v.pos);
        break;
      }
      case GgufType::STRING:
        v.str = read_string("string value", keep ? kGgufKeptString : 0, &v.str_len);
        break;
      case GgufType::ARRAY:
        read_array(v, key, depth, keep);
        break;
    }
    return v;
  }

  void read_array(GgufValue& v, const std::string& key, int depth, bool keep) {
    if (depth >= kMaxArrayDepth)
      c_.fail(
          "arrays nested deeper than " + std::to_string(kMaxArrayDepth) + " in key " + quoted(key),
          v.pos);
    v.elem_type = read_type("array element type", key);
    const uint64_t at = c_.pos();
    v.n = c_.u64("array length");
    const uint64_t each = min_size(v.elem_type);
    if (v.n > c_.remaining() / each)
      c_.fail("array " + quoted(key) + " of " + std::to_string(v.n) + " " +
                  gguf_type_name(v.elem_type) + " needs at least " + mul_str(v.n, each) +
                  " bytes, only " + std::to_string(c_.remaining()) + " remain",
              at);
    // Only flat arrays are kept (per-layer values); nested ones are read and skipped.
    const bool per_layer = depth == 0 && is_per_layer_key(key);
    const bool keep_items = keep && v.n <= kGgufKeptItems && v.elem_type != GgufType::ARRAY &&
                            (per_layer || v.n <= kept_budget_);
    if (keep_items && !per_layer) kept_budget_ -= v.n;
    if (fixed_size(v.elem_type) && !keep_items) {
      c_.skip(v.n * each, "array");  // bounded by the check above
      return;
    }
    if (!fixed_size(v.elem_type) && v.n > kMaxVarItems)
      c_.fail("array " + quoted(key) + " has " + std::to_string(v.n) + " elements of type " +
                  gguf_type_name(v.elem_type) + ", more than the " + std::to_string(kMaxVarItems) +
                  " any model uses",
              at);
    if (v.elem_type == GgufType::STRING && !keep_items) {
      // A vocabulary (tokenizer.ggml.tokens, merges: 10^5 strings) is only stepped over: each
      // length is checked against the file as read_string() checks it, nothing is copied.
      if (c_.skip_strings(v.n, "string value") < v.n) {
        const uint64_t len_at = c_.pos();
        const uint64_t len = c_.u64("string value");  // fails itself when truncated
        c_.fail("string value length " + std::to_string(len) + " runs past the end of the file (" +
                    std::to_string(c_.remaining()) + " bytes remain)",
                len_at);
      }
      return;
    }
    if (keep_items) v.items.reserve(static_cast<size_t>(v.n));
    for (uint64_t i = 0; i < v.n; ++i) {
      GgufValue item = read_value(v.elem_type, key, depth + 1, keep_items);
      if (keep_items) v.items.push_back(std::move(item));
    }
  }

  void read_metadata(GgufFile& f, uint64_t n_kv) {
    std::unordered_set<std::string> seen;
    f.metadata.reserve(static_cast<size_t>(std::min<uint64_t>(n_kv, kReserve)));
    for (uint64_t i = 0; i < n_kv; ++i) {
      const uint64_t at = c_.pos();
      uint64_t len = 0;
      std::string key = read_string("key", kMaxKey, &len);
      if (len > kMaxKey)
        c_.fail("metadata key " + std::to_string(i) + " is " + std::to_string(len) +
                    " bytes long, more than 65535",
                at);
      if (key.empty()) c_.fail("metadata key " + std::to_string(i) + " is empty", at);
      size_t bad = 0;
      if (!io::valid_utf8(key, &bad))
        c_.fail("metadata key " + quoted(key) + " is not valid UTF-8", at + 8 + bad);
      if (!seen.insert(key).second) c_.fail("duplicate metadata key " + quoted(key), at);
      const GgufType t = read_type("value type", key);
      GgufValue v = read_value(t, key, 0, true);
      if (t == GgufType::STRING && !v.str.empty()) {
        if (!io::valid_utf8(v.str, &bad))
          c_.fail("string value of key " + quoted(key) + " is not valid UTF-8", v.pos + 8 + bad);
      }
      if (key == "general.architecture" && t == GgufType::STRING && !v.str.empty())
        arch_prefix_ = v.str + ".";
      if (key == "general.alignment") {
        // gguf.cpp: general.alignment must be a uint32 power of two.
        if (t != GgufType::UINT32)
          c_.fail("general.alignment must be a uint32, got " + std::string(gguf_type_name(t)),
                  v.pos);
        if (v.bits == 0 || (v.bits & (v.bits - 1)) != 0)
          c_.fail("general.alignment " + std::to_string(v.bits) + " is not a power of two", v.pos);
        f.alignment = static_cast<uint32_t>(v.bits);
      }
      f.metadata.emplace_back(std::move(key), std::move(v));
    }
  }

  void read_tensor_infos(GgufFile& f, uint64_t n_tensors) {
    std::unordered_set<std::string> seen;
    f.tensors.reserve(static_cast<size_t>(std::min<uint64_t>(n_tensors, kReserve)));
    for (uint64_t i = 0; i < n_tensors; ++i) {
      GgufTensor t;
      t.info_pos = c_.pos();
      uint64_t len = 0;
      t.name = read_string("tensor name", kMaxTensorName, &len);
      if (len == 0) c_.fail("tensor " + std::to_string(i) + " has an empty name", t.info_pos);
      if (len > kMaxTensorName)
        c_.fail("tensor " + std::to_string(i) + " name is " + std::to_string(len) +
                    " bytes long, more than " + std::to_string(kMaxTensorName) + " (GGML_MAX_NAME)",
                t.info_pos);
      size_t bad = 0;
      if (!io::valid_utf8(t.name, &bad))
        c_.fail("tensor name " + quoted(t.name) + " is not valid UTF-8", t.info_pos + 8 + bad);
      if (!seen.insert(t.name).second)
        c_.fail("duplicate tensor name " + quoted(t.name), t.info_pos);
      const uint64_t dims_at = c_.pos();
      t.n_dims = c_.u32("n_dims");
      if (t.n_dims > kMaxDims)
        c_.fail("tensor " + quoted(t.name) + " has " + std::to_string(t.n_dims) +
                    " dimensions, more than " + std::to_string(kMaxDims),
                dims_at);
      for (uint32_t d = 0; d < t.n_dims; ++d) t.ne[d] = c_.u64("dimension");
      // ggml stores dimensions as int64_t and requires their product to fit (gguf.cpp).
      t.n_elements = 1;
      std::string shape;
      for (uint32_t d = 0; d < t.n_dims; ++d) shape += (d ? " x " : "") + std::to_string(t.ne[d]);
      for (uint32_t d = 0; d < t.n_dims; ++d) {
        if (__builtin_mul_overflow(t.n_elements, t.ne[d], &t.n_elements) ||
            t.n_elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          c_.fail("tensor " + quoted(t.name) + " shape " + shape +
                      " has more elements than fit in 63 bits",
                  dims_at + 4);
      }
      const uint64_t type_at = c_.pos();
      t.ggml_type = c_.u32("tensor type");
      const auto type = tensor_type_from_ggml_id(t.ggml_type);
      if (!type)
        c_.fail(
            "tensor " + quoted(t.name) + " has unknown ggml type id " + std::to_string(t.ggml_type),
            type_at);
      t.type = *type;
      const auto& tt = traits(t.type);
      if (t.ne[0] % tt.block_size != 0)
        c_.fail("tensor " + quoted(t.name) + " rows of " + std::to_string(t.ne[0]) +
                    " elements are not a multiple of the " + tt.name + " block size " +
                    std::to_string(tt.block_size),
                dims_at + 4);
      try {
        t.bytes = tensor_bytes(t.type, t.ne[0], t.n_elements);
      } catch (const OverflowError&) {
        c_.fail("tensor " + quoted(t.name) + " shape " + shape + " in " + tt.name +
                    " has more bytes than fit in 64 bits",
                dims_at + 4);
      }
      const uint64_t off_at = c_.pos();
      t.offset = c_.u64("tensor offset");
      if (t.offset % f.alignment != 0)
        c_.fail("tensor " + quoted(t.name) + " offset " + std::to_string(t.offset) +
                    " is not a multiple of the alignment " + std::to_string(f.alignment),
                off_at);
      f.tensors.push_back(std::move(t));
    }
  }

  // Tensor data must lie inside the file and not overlap; it is never read.
  void check_data(GgufFile& f) {
    const uint64_t end_infos = c_.pos();
    f.data_offset = pad_to(end_infos, f.alignment);  // end_infos <= file size: no overflow
    std::vector<const GgufTensor*> by_offset;
    by_offset.reserve(f.tensors.size());
    for (const auto& t : f.tensors) {
      uint64_t end = 0;
      if (__builtin_add_overflow(f.data_offset, t.offset, &end) ||
          __builtin_add_overflow(end, t.bytes, &end) || end > f.file_size)
        c_.fail("tensor " + quoted(t.name) + " data (" + std::to_string(t.bytes) +
                    " bytes at offset " + std::to_string(t.offset) + " after byte " +
                    std::to_string(f.data_offset) + ") runs past the end of the file (" +
                    std::to_string(f.file_size) + " bytes)",
                t.info_pos);
      if (t.bytes) by_offset.push_back(&t);
    }
    std::sort(by_offset.begin(), by_offset.end(),
              [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < by_offset.size(); ++i) {
      const GgufTensor& a = *by_offset[i - 1];
      const GgufTensor& b = *by_offset[i];
      if (b.offset < a.offset + a.bytes)
        c_.fail("tensor " + quoted(b.name) + " data at offset " + std::to_string(b.offset) +
                    " overlaps tensor " + quoted(a.name) + " (offsets " + std::to_string(a.offset) +
                    " to " + std::to_string(a.offset + a.bytes) + ")",
                b.info_pos);
    }
  }

  // "<general.architecture>.<one of kPerLayerKeys>": the file's own per-layer hyperparameters
  // (at most four keys, as GGUF keys are unique).
  bool is_per_layer_key(const std::string& key) const {
    if (arch_prefix_.empty() || key.compare(0, arch_prefix_.size(), arch_prefix_) != 0)
      return false;
    for (const char* k : kPerLayerKeys)
      if (key.compare(arch_prefix_.size(), std::string::npos, k) == 0) return true;
    return false;
  }

  Cursor c_;
  uint64_t kept_budget_ = kKeptItemsBudget;
  std::string arch_prefix_;  // "llama." once general.architecture is read
};

GgufFile parse(const io::ByteSource& src, const std::string& where) {
  return Parser(src, where).parse();
}

bool parse_split_name(const std::string& path, std::string& prefix, uint32_t& no, uint32_t& count) {
  // llama.cpp llama_split_path: "%s-%05d-of-%05d.gguf".
  const std::string suffix = ".gguf";
  constexpr size_t kTail = 1 + 5 + 4 + 5;  // "-00001-of-00005"
  if (path.size() < suffix.size() + kTail + 1 ||
      path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string tail = path.substr(path.size() - suffix.size() - kTail, kTail);
  auto digits = [](const std::string& s) {
    return s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (tail[0] != '-' || tail.compare(6, 4, "-of-") != 0 || !digits(tail.substr(1, 5)) ||
      !digits(tail.substr(10, 5)))
    return false;
  no = static_cast<uint32_t>(std::stoul(tail.substr(1, 5)));
  count = static_cast<uint32_t>(std::stoul(tail.substr(10, 5)));
  if (no == 0 || count == 0 || no > count) return false;
  prefix = path.substr(0, path.size() - suffix.size() - kTail);
  return true;
}

}  // namespace

const char* gguf_type_name(GgufType t) {
  const auto i = static_cast<uint32_t>(t);
  return i < sizeof kTypeNames / sizeof kTypeNames[0] ? kTypeNames[i] : "?";
}

std::optional<uint64_t> GgufValue::as_uint() const {
  switch (type) {
    case GgufType::UINT8:
    case GgufType::UINT16:
    case GgufType::UINT32:
    case GgufType::UINT64:
      return bits;
    case GgufType::INT8:
    case GgufType::INT16:
    case GgufType::INT32:
    case GgufType::INT64:
      if (static_cast<int64_t>(bits) >= 0) return bits;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

std::optional<int64_t> GgufValue::as_int() const {
  switch (type) {
    case GgufType::UINT8:
    case GgufType::UINT16:
    case GgufType::UINT32:
    case GgufType::UINT64:
      if (bits <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return static_cast<int64_t>(bits);
      return std::nullopt;
    case GgufType::INT8:
    case GgufType::INT16:
    case GgufType::INT32:
    case GgufType::INT64:
      return static_cast<int64_t>(bits);
    default:
      return std::nullopt;
  }
}

std::optional<double> GgufValue::as_real() const {
  if (type == GgufType::FLOAT32 || type == GgufType::FLOAT64) return real;
  if (const auto i = as_int()) return static_cast<double>(*i);
  if (const auto u = as_uint()) return static_cast<double>(*u);
  return std::nullopt;
}

const std::string* GgufValue::as_string() const {
  return type == GgufType::STRING && str.size() == str_len ? &str : nullptr;
}

const GgufValue* GgufFile::find(std::string_view key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

uint64_t GgufFile::tensor_bytes() const {
  uint64_t s = 0;
  for (const auto& t : tensors) s = checked_add(s, t.bytes);
  return s;
}

const GgufTensor* find_gguf_tensor(const std::vector<GgufFile>& shards, std::string_view name) {
  for (const auto& s : shards)
    for (const auto& t : s.tensors)
      if (t.name == name) return &t;
  return nullptr;
}

GgufFile parse_gguf(std::string_view bytes, const std::string& where) {
  const io::MemorySource src(bytes);
  return parse(src, where);
}

GgufFile read_gguf_file(const std::string& path) {
  const io::FileSource src(path);
  return parse(src, path);
}

std::vector<std::string> gguf_split_paths(const std::string& path) {
  std::string prefix;
  uint32_t no = 0, count = 0;
  if (!parse_split_name(path, prefix, no, count)) return {path};
  std::vector<std::string> v;
  for (uint32_t i = 1; i <= count; ++i) {
    char b[32];
    std::snprintf(b, sizeof b, "-%05u-of-%05u.gguf", i, count);
    v.push_back(prefix + b);
  }
  return v;
}

std::vector<GgufFile> read_gguf(const std::string& path) {
  const auto paths = gguf_split_paths(path);
  std::vector<GgufFile> shards;
  shards.reserve(paths.size());
  std::unordered_set<std::string> names;
  for (size_t i = 0; i < paths.size(); ++i) {
    try {
      shards.push_back(read_gguf_file(paths[i]));
    } catch (const InputError& e) {
      if (paths.size() == 1) throw;
      throw InputError(std::string(e.what()) + " [shard " + std::to_string(i + 1) + " of " +
                       std::to_string(paths.size()) + "]");
    }
    const GgufFile& f = shards.back();
    if (paths.size() > 1) {
      // gguf-split writes split.no (0-based) and split.count as uint16 in every shard.
      const GgufValue* no = f.find("split.no");
      const GgufValue* count = f.find("split.count");
      if (!no || !count)
        throw InputError(f.path + ": named as shard " + std::to_string(i + 1) + " of " +
                         std::to_string(paths.size()) +
                         " but has no split.no / split.count metadata");
      if (count->as_uint() != paths.size())
        io::fail_at(f.path,
                    "split.count is " +
                        (count->as_int() ? std::to_string(*count->as_int())
                                         : std::string("not an integer")) +
                        ", the file name says " + std::to_string(paths.size()),
                    count->pos);
      if (no->as_uint() != i)
        io::fail_at(
            f.path,
            "split.no is " +
                (no->as_int() ? std::to_string(*no->as_int()) : std::string("not an integer")) +
                ", expected " + std::to_string(i) + " for shard " + std::to_string(i + 1),
            no->pos);
    }
    for (const auto& t : f.tensors)
      if (!names.insert(t.name).second)
        io::fail_at(f.path, "tensor " + quoted(t.name) + " also appears in an earlier shard",
                    t.info_pos);
  }
  if (paths.size() > 1) {
    if (const GgufValue* total = shards[0].find("split.tensors.count")) {
      if (total->as_uint() != names.size())
        io::fail_at(shards[0].path,
                    "split.tensors.count says " +
                        (total->as_int() ? std::to_string(*total->as_int()) : std::string("?")) +
                        " tensors, the shards hold " + std::to_string(names.size()),
                    total->pos);
    }
  }
  return shards;
}

}  // namespace llmsize
