#include "llmsize/io/safetensors.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "byte_reader.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/input.hpp"
#include "llmsize/io/json_input.hpp"
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
// __metadata__: real files hold one ({"format": "pt"}) to a few entries. The first 256 are kept,
// all are counted, more than 65,536 is refused (parsing millions takes seconds).
constexpr size_t kMaxMetadataKept = 256;
constexpr uint64_t kMaxMetadata = 1 << 16;
// Tensor names: real ones are under 128 bytes ("model.layers.0.mlp.experts.0.gate_proj.weight");
// each is held a few times over, so length and total are capped.
constexpr size_t kMaxTensorName = 1024;
constexpr uint64_t kMaxTensorNameBytes = 16 << 20;
// Tensors in one file (a shard of the largest checkpoints holds a few thousand; a whole MoE model
// in one file tens of thousands), and dimensions over all of them (2 to 5 each in real files).
constexpr size_t kMaxTensorsPerFile = 1 << 17;
constexpr uint64_t kMaxDimsPerFile = 1 << 20;

// The header's bytes as nlohmann reads them, with every run of kLongRun or more JSON whitespace
// bytes outside strings given as one space. nlohmann's lexer appends each byte it reads to its
// token text until the next string, number or literal, so 66 MB of whitespace before a '}' (valid
// JSON, and the format pads headers with spaces) cost 66 MB more and a second; collapsed, they cost
// a memchr-like scan. The JSON is the same; `runs` maps a byte nlohmann reports back to the file.
constexpr size_t kLongRun = 4096;
struct CollapsedRuns {
  // (position in the collapsed text just after a run, bytes dropped up to there)
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  // The header byte of a collapsed position.
  uint64_t original(uint64_t collapsed) const {
    uint64_t dropped = 0;
    for (const auto& [at, d] : runs) {
      if (at > collapsed) break;
      dropped = d;
    }
    return collapsed + dropped;
  }
};
class CollapsingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CollapsingIterator(const char* p, const char* end, CollapsedRuns* runs)
      : p_(p), end_(end), runs_(runs) {
    settle();
  }
  const char& operator*() const { return *p_; }
  CollapsingIterator& operator++() {
    ++out_;
    const char c = *p_++;
    if (escape_) {
      escape_ = false;
    } else if (in_string_) {
      if (c == '\\') escape_ = true;
      if (c == '"') in_string_ = false;
    } else if (c == '"') {
      in_string_ = true;
    }
    settle();
    return *this;
  }
  bool operator==(const CollapsingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const CollapsingIterator& o) const { return p_ != o.p_; }

 private:
  static bool space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  // At a long whitespace run outside a string: move to its last byte (read as the one space).
  void settle() {
    if (in_string_ || !runs_ || p_ == end_ || !space(*p_)) return;
    const char* q = p_;
    while (q != end_ && space(*q)) ++q;
    const auto n = static_cast<uint64_t>(q - p_);
    if (n < kLongRun) return;
    dropped_ += n - 1;
    p_ = q - 1;
    runs_->runs.emplace_back(out_ + 1, dropped_);
  }

  const char* p_;
  const char* end_;
  CollapsedRuns* runs_;
  uint64_t out_ = 0;      // bytes handed out so far
  uint64_t dropped_ = 0;  // whitespace bytes skipped so far
  bool in_string_ = false, escape_ = false;
};

class HeaderParser {
 public:
  HeaderParser(SafetensorsFile& f, std::string_view header) : f_(f), header_(header) {}

  [[noreturn]] void fail(const std::string& what, uint64_t at) const {
    io::fail_at(f_.path, what, at);
  }
  // Searching the header for the key costs a pass over it: done only for the error message.
  [[noreturn]] void fail_tensor(const std::string& name, const std::string& what) const {
    fail(what, key_pos(name));
  }

  // The file byte where `name` appears as a JSON key in the header, else the header's start.
  uint64_t key_pos(const std::string& name) const {
    const std::string needle = json(name).dump();  // a string: flat, bounded by the header
    const auto p = header_.find(needle);
    return 8 + (p == std::string_view::npos ? 0 : p);
  }

  void parse() {
    if (header_.empty() || header_[0] != '{')
      fail("the JSON header must start with '{' (the safetensors format)", 8);
    // Tensors are read as the parser finishes each one and their JSON discarded, so memory stays
    // proportional to the tensors, not to what a hostile header nests: depth is limited to that of
    // a header ({name: {shape: [n]}}) and arrays to what a shape or data_offsets holds.
    json j;
    std::set<std::string> keys;
    std::string name;
    bool root_object = false;
    uint64_t in_array = 0, in_object = 0;
    const json::parser_callback_t cb = [&](int depth, json::parse_event_t ev, json& parsed) {
      using E = json::parse_event_t;
      if (depth > 3) fail("the JSON header nests deeper than a safetensors header", 8);
      if (depth == 0 && ev == E::object_start) root_object = true;
      if (!root_object || depth == 0) return true;
      if (depth == 1 && ev == E::key) {
        name = parsed.get<std::string>();
        if (name.size() > kMaxTensorName)
          fail("tensor name of " + std::to_string(name.size()) + " bytes (" +
                   sanitize_quoted(name, 40) + ") is longer than " + std::to_string(kMaxTensorName),
               key_pos(name));
        if ((name_bytes_ += name.size()) > kMaxTensorNameBytes)
          fail("tensor names add up to more than " + std::to_string(kMaxTensorNameBytes) + " bytes",
               key_pos(name));
        // The format disallows duplicate keys; nlohmann would keep the last one silently.
        if (!keys.insert(name).second)
          fail("duplicate tensor name " + sanitize_quoted(name), key_pos(name));
        if (name != "__metadata__" && f_.tensors.size() >= kMaxTensorsPerFile)
          fail("more than " + std::to_string(kMaxTensorsPerFile) + " tensors in one file",
               key_pos(name));
        in_object = 0;
      }
      if (name == "__metadata__" && depth >= 2) return metadata_event(depth, ev, parsed);
      if (depth == 2 && ev == E::key && name != "__metadata__" && ++in_object > kMaxFields)
        fail("tensor " + sanitize_quoted(name) + " has more than " + std::to_string(kMaxFields) +
                 " fields",
             key_pos(name));
      if (depth == 2 && ev == E::array_start) in_array = 0;
      if (depth == 3 && ev == E::value && ++dims_ > kMaxDimsPerFile)
        fail("the tensors' shapes and offsets hold more than " + std::to_string(kMaxDimsPerFile) +
                 " numbers in all",
             key_pos(name));
      if (depth == 3 && ev == E::value && ++in_array > kMaxDims)
        fail("tensor " + sanitize_quoted(name) + " has an array of more than " +
                 std::to_string(kMaxDims) + " values",
             key_pos(name));
      const bool done = depth == 1 && (ev == E::object_end || ev == E::array_end || ev == E::value);
      if (!done) return true;
      if (name == "__metadata__")
        read_metadata(parsed);
      else
        f_.tensors.push_back(read_tensor(name, parsed));
      return false;  // read: drop its JSON
    };
    try {
      j = json::parse(CollapsingIterator(header_.data(), header_.data() + header_.size(), &runs_),
                      CollapsingIterator(header_.data() + header_.size(),
                                         header_.data() + header_.size(), nullptr),
                      cb);
    } catch (const json::parse_error& e) {
      // e.byte is 1-based within the header; the header starts at byte 8.
      // nlohmann: "...: syntax error while parsing X - <reason>; last read: '<bytes>'"; the bytes
      // read may be the invalid ones, so only the reason is kept.
      std::string what = e.what();
      const auto dash = what.find(" - ");
      if (dash != std::string::npos) what = what.substr(dash + 3);
      const auto last = what.find("; last read");
      if (last != std::string::npos) what = what.substr(0, last);
      fail("the JSON header is not valid JSON: " + what,
           8 + runs_.original(e.byte ? e.byte - 1 : 0));
    } catch (const json::exception& e) {
      // out_of_range 406: a number beyond a double ("1e432"), no byte position given.
      fail("the JSON header is not valid JSON: " + json_reason(e), 8);
    }
    if (!j.is_object()) fail("the JSON header is not an object", 8);
    check_offsets();
  }

 private:
  // __metadata__'s entries as they are parsed, none kept as JSON: string values only, counted
  // and the first kMaxMetadataKept stored.
  bool metadata_event(int depth, json::parse_event_t ev, json& parsed) {
    using E = json::parse_event_t;
    if (depth == 2 && ev == E::key) {
      meta_key_ = parsed.get<std::string>();
      // Dropped: a kept key would hold a slot in the object until the end. nlohmann still calls
      // back with the (scalar) value.
      return false;
    }
    if (depth == 2 && ev == E::value) {
      if (!parsed.is_string())
        fail("__metadata__." + sanitize(meta_key_) + " must be a string, got " +
                 io::describe_json(parsed),
             key_pos(meta_key_));
      if (++f_.metadata_count > kMaxMetadata)
        fail("__metadata__ has more than " + std::to_string(kMaxMetadata) + " entries",
             key_pos("__metadata__"));
      if (f_.metadata.size() < kMaxMetadataKept) f_.metadata[meta_key_] = parsed.get<std::string>();
      return false;
    }
    if (depth == 2 && (ev == E::object_start || ev == E::array_start))
      fail("__metadata__." + sanitize(meta_key_) + " must be a string, got an " +
               (ev == E::object_start ? "object" : "array"),
           key_pos(meta_key_));
    return true;
  }
  void read_metadata(const json& v) {
    if (!v.is_object()) fail("__metadata__ must be an object of strings", key_pos("__metadata__"));
  }

  SafetensorsTensor read_tensor(const std::string& name, const json& v) {
    const std::string q = sanitize_quoted(name);
    if (!v.is_object())
      fail_tensor(name, "tensor " + q + " must be an object with dtype, shape and data_offsets");
    SafetensorsTensor t;
    t.name = name;
    if (!v.contains("dtype") || !v["dtype"].is_string())
      fail_tensor(name, "tensor " + q + ": dtype missing or not a string");
    t.dtype = v["dtype"].get<std::string>();
    const Dtype* d = find_dtype(t.dtype);
    if (!d)
      fail_tensor(name, "tensor " + q + " has unknown or unsupported dtype " +
                            sanitize_quoted(t.dtype) + " (supported: " + dtype_list() + ")");
    t.type = d->type;
    if (!v.contains("shape") || !v["shape"].is_array())
      fail_tensor(name, "tensor " + q + ": shape missing or not an array");
    t.n_elements = 1;
    for (const auto& x : v["shape"]) {
      uint64_t n = 0;
      if (!as_u64(x, n))
        fail_tensor(name, "tensor " + q + ": shape holds " + io::describe_json(x) +
                              ", not a non-negative integer");
      t.shape.push_back(n);
    }
    for (uint64_t n : t.shape)
      if (__builtin_mul_overflow(t.n_elements, n, &t.n_elements))
        fail_tensor(name, "tensor " + q + " shape " + shape_str(t.shape) +
                              " has more elements than fit in 64 bits");
    uint64_t need = 0;
    if (__builtin_mul_overflow(t.n_elements, d->bytes, &need))
      fail_tensor(name, "tensor " + q + " shape " + shape_str(t.shape) + " in " + t.dtype +
                            " has more bytes than fit in 64 bits");
    const json* off = v.contains("data_offsets") ? &v["data_offsets"] : nullptr;
    if (!off || !off->is_array() || off->size() != 2 || !as_u64((*off)[0], t.begin) ||
        !as_u64((*off)[1], t.end))
      fail_tensor(name,
                  "tensor " + q + ": data_offsets must be [begin, end], two non-negative integers");
    if (t.end < t.begin)
      fail_tensor(name, "tensor " + q + ": data_offsets [" + std::to_string(t.begin) + ", " +
                            std::to_string(t.end) + "] end before they begin");
    if (t.end - t.begin != need)
      fail_tensor(name, "tensor " + q + ": data_offsets [" + std::to_string(t.begin) + ", " +
                            std::to_string(t.end) + "] hold " + std::to_string(t.end - t.begin) +
                            " bytes, but " + t.dtype + " " + shape_str(t.shape) + " needs " +
                            std::to_string(need));
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
        fail("tensor " + q + " data [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                 ") runs past the end of the file (the byte buffer holds " +
                 std::to_string(buffer) + " bytes)",
             checked_add(f_.data_offset, std::min(t.begin, buffer)));
      if (t.begin < expect)
        fail("tensor " + q + " data [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                 ") overlaps tensor " + sanitize_quoted(prev->name) + " [" +
                 std::to_string(prev->begin) + ", " + std::to_string(prev->end) + ")",
             f_.data_offset + t.begin);
      if (t.begin > expect)
        fail("the byte buffer has a hole of " + std::to_string(t.begin - expect) +
                 " bytes before tensor " + q,
             f_.data_offset + expect);
      expect = t.end;
      prev = &t;
    }
    if (expect != buffer)
      fail(std::to_string(buffer - expect) +
               " bytes after the last tensor's data are not indexed by the header",
           f_.data_offset + expect);
  }

  SafetensorsFile& f_;
  std::string_view header_;
  CollapsedRuns runs_;
  std::string meta_key_;
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
  const std::string header = c.bytes(f.header_size, "JSON header");
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
