// Writes GGUF and safetensors files with chosen tensors, for the tests and the benchmark. Tensor
// data is never written: the file is extended with ftruncate, so a 100 GB file is sparse and costs
// no disk. Layouts: ggml-org/ggml docs/gguf.md, huggingface/safetensors README.
// Byte sizes come from this file's own table, not from llmsize, so tests check one against the
// other.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmsize::test {

// Little-endian bytes.
class ByteWriter {
 public:
  std::string buf;
  ByteWriter& u8(uint8_t v) { return put(v, 1); }
  ByteWriter& u16(uint16_t v) { return put(v, 2); }
  ByteWriter& u32(uint32_t v) { return put(v, 4); }
  ByteWriter& u64(uint64_t v) { return put(v, 8); }
  ByteWriter& f32(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return u32(b);
  }
  // A GGUF string: uint64 length, then the bytes.
  ByteWriter& str(std::string_view s) {
    u64(s.size());
    return raw(s);
  }
  ByteWriter& raw(std::string_view s) {
    buf.append(s.data(), s.size());
    return *this;
  }

 private:
  ByteWriter& put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) buf.push_back(static_cast<char>(v >> (8 * i) & 0xff));
    return *this;
  }
};

// Writes `head`, then extends the file to `size` bytes without writing them (a sparse hole).
inline void write_sparse(const std::string& path, const std::string& head, uint64_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create " + path);
  size_t done = 0;
  while (done < head.size()) {
    const ssize_t n = ::write(fd, head.data() + done, head.size() - done);
    if (n <= 0) throw std::runtime_error("cannot write " + path);
    done += static_cast<size_t>(n);
  }
  if (size > head.size() && ::ftruncate(fd, static_cast<off_t>(size)) != 0)
    throw std::runtime_error("ftruncate " + path);
  ::close(fd);
}

// ggml type ids and their blocks (ggml.h, ggml.c type_traits): elements per block, bytes per block.
struct GgmlBlock {
  uint32_t id;
  uint64_t block, size;
};
constexpr GgmlBlock kF32{0, 1, 4}, kF16{1, 1, 2}, kQ4_0{2, 32, 18}, kQ8_0{8, 32, 34},
    kQ4_K{12, 256, 144}, kQ6_K{14, 256, 210}, kBF16{30, 1, 2};

class GgufWriter {
 public:
  // gguf_metadata_value_type
  enum Type : uint32_t { U8 = 0, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 };

  uint32_t version = 3;
  uint32_t alignment = 32;
  std::optional<uint64_t> tensor_count;  // header counts, when a test wants them to lie
  std::optional<uint64_t> kv_count;

  GgufWriter& kv(const std::string& key, Type t, const std::string& value_bytes) {
    ByteWriter b;
    b.str(key).u32(t).raw(value_bytes);
    kv_.push_back(b.buf);
    return *this;
  }
  GgufWriter& u32(const std::string& key, uint32_t v) {
    return kv(key, U32, ByteWriter().u32(v).buf);
  }
  GgufWriter& u16(const std::string& key, uint16_t v) {
    return kv(key, U16, ByteWriter().u16(v).buf);
  }
  GgufWriter& i32(const std::string& key, int32_t v) {
    return kv(key, I32, ByteWriter().u32(static_cast<uint32_t>(v)).buf);
  }
  GgufWriter& f32(const std::string& key, float v) { return kv(key, F32, ByteWriter().f32(v).buf); }
  GgufWriter& str(const std::string& key, const std::string& v) {
    return kv(key, STRING, ByteWriter().str(v).buf);
  }
  GgufWriter& u32s(const std::string& key, const std::vector<uint32_t>& v) {
    ByteWriter b;
    b.u32(U32).u64(v.size());
    for (uint32_t x : v) b.u32(x);
    return kv(key, ARRAY, b.buf);
  }
  GgufWriter& strs(const std::string& key, const std::vector<std::string>& v) {
    ByteWriter b;
    b.u32(STRING).u64(v.size());
    for (const auto& x : v) b.str(x);
    return kv(key, ARRAY, b.buf);
  }
  // A vocabulary of n tokens "t0", "t1", ... as tokenizer.ggml.tokens.
  GgufWriter& vocab(uint32_t n) {
    std::vector<std::string> v;
    for (uint32_t i = 0; i < n; ++i) v.push_back("t" + std::to_string(i));
    return strs("tokenizer.ggml.tokens", v);
  }

  // A tensor of ggml type `b` and dims ne (ne[0] is the row). Offsets follow each other, padded to
  // the alignment, unless given.
  GgufWriter& tensor(const std::string& name, GgmlBlock b, std::vector<uint64_t> ne,
                     std::optional<uint64_t> offset = std::nullopt) {
    uint64_t n = 1;
    for (auto x : ne) n *= x;
    const uint64_t bytes = n / b.block * b.size;
    const uint64_t off = offset ? *offset : next_;
    tensors_.push_back({name, b.id, std::move(ne), off});
    next_ = std::max(next_, pad(off + bytes));
    n_elements_ += n;
    data_bytes_ += bytes;
    return *this;
  }
  // A tensor whose type id and dims are written as given (hostile cases).
  GgufWriter& raw_tensor(const std::string& name, uint32_t type_id, std::vector<uint64_t> ne,
                         uint64_t offset) {
    tensors_.push_back({name, type_id, std::move(ne), offset});
    return *this;
  }

  uint64_t n_elements() const { return n_elements_; }
  uint64_t data_bytes() const { return data_bytes_; }  // tensor bytes, without padding

  // Everything before the tensor data, padded to the alignment.
  std::string header() const {
    ByteWriter b;
    b.raw("GGUF")
        .u32(version)
        .u64(tensor_count.value_or(tensors_.size()))
        .u64(kv_count.value_or(kv_.size()));
    for (const auto& k : kv_) b.raw(k);
    for (const auto& t : tensors_) {
      b.str(t.name).u32(static_cast<uint32_t>(t.ne.size()));
      for (auto x : t.ne) b.u64(x);
      b.u32(t.type).u64(t.offset);
    }
    b.buf.resize(pad(b.buf.size()), '\0');
    return b.buf;
  }
  uint64_t file_size() const { return header().size() + next_; }
  // Writes the header and a sparse data section; `size` overrides the file's length.
  void write(const std::string& path, std::optional<uint64_t> size = std::nullopt) const {
    const std::string h = header();
    write_sparse(path, h, size.value_or(h.size() + next_));
  }

 private:
  struct T {
    std::string name;
    uint32_t type;
    std::vector<uint64_t> ne;
    uint64_t offset;
  };
  uint64_t pad(uint64_t n) const { return (n + alignment - 1) / alignment * alignment; }
  std::vector<std::string> kv_;
  std::vector<T> tensors_;
  uint64_t next_ = 0;
  uint64_t n_elements_ = 0;
  uint64_t data_bytes_ = 0;
};

// The shape of a llama-architecture GGUF (llama_gguf): its metadata and tensor sizes.
struct LlamaShape {
  std::string name;
  uint32_t file_type = 15;
  uint32_t n_layer = 1, n_ctx = 8192, n_embd = 256, n_ff = 512, n_head = 8, n_head_kv = 2;
  uint32_t n_vocab = 1024;
  bool tied = false;  // no output.weight: the head is token_embd
};

// A llama-architecture GGUF with the metadata llama.cpp reads, a vocabulary of n_vocab tokens
// and the tensors of a Llama block, norms F32; `type_of(name, layer)` picks each 2-D tensor's
// type (layer -1 for token_embd and output).
template <class TypeOf>
GgufWriter llama_gguf(const LlamaShape& s, TypeOf type_of) {
  const uint64_t e = s.n_embd, kv = uint64_t{s.n_head_kv} * (s.n_embd / s.n_head), ff = s.n_ff;
  GgufWriter w;
  w.str("general.architecture", "llama")
      .str("general.name", s.name)
      .u32("general.file_type", s.file_type);
  w.u32("llama.block_count", s.n_layer)
      .u32("llama.context_length", s.n_ctx)
      .u32("llama.embedding_length", s.n_embd);
  w.u32("llama.feed_forward_length", s.n_ff)
      .u32("llama.attention.head_count", s.n_head)
      .u32("llama.attention.head_count_kv", s.n_head_kv);
  w.u32("llama.rope.dimension_count", s.n_embd / s.n_head).vocab(s.n_vocab);
  w.tensor("token_embd.weight", type_of("token_embd", -1), {e, s.n_vocab});
  w.tensor("output_norm.weight", kF32, {e});
  if (!s.tied) w.tensor("output.weight", type_of("output", -1), {e, s.n_vocab});
  for (uint32_t i = 0; i < s.n_layer; ++i) {
    const std::string p = "blk." + std::to_string(i) + ".";
    const int l = static_cast<int>(i);
    w.tensor(p + "attn_norm.weight", kF32, {e});
    w.tensor(p + "attn_q.weight", type_of("attn_q", l), {e, e});
    w.tensor(p + "attn_k.weight", type_of("attn_k", l), {e, kv});
    w.tensor(p + "attn_v.weight", type_of("attn_v", l), {e, kv});
    w.tensor(p + "attn_output.weight", type_of("attn_output", l), {e, e});
    w.tensor(p + "ffn_norm.weight", kF32, {e});
    w.tensor(p + "ffn_gate.weight", type_of("ffn_gate", l), {e, ff});
    w.tensor(p + "ffn_up.weight", type_of("ffn_up", l), {e, ff});
    w.tensor(p + "ffn_down.weight", type_of("ffn_down", l), {ff, e});
  }
  return w;
}

// A llama-architecture GGUF of `n_layer` blocks: n_embd 256, n_ff 512, 8 heads of 32, 2 KV heads,
// vocab 1024. Attention and gate/up in `body`, ffn_down in `down`, token_embd Q4_K, output Q6_K.
inline GgufWriter tiny_llama(uint32_t n_layer, GgmlBlock body, GgmlBlock down, bool tied = false) {
  LlamaShape s;
  s.name = "tiny-llama";
  s.n_layer = n_layer;
  s.tied = tied;
  return llama_gguf(s, [&](const std::string& t, int) {
    return t == "token_embd" ? kQ4_K : t == "output" ? kQ6_K : t == "ffn_down" ? down : body;
  });
}

// A safetensors file: tensors back to back in the order added.
class SafetensorsWriter {
 public:
  // Bytes per element of the dtypes the tests use (safetensors Dtype::size).
  static uint64_t dtype_size(const std::string& d) {
    static const std::map<std::string, uint64_t> k = {
        {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"F8_E4M3", 1}, {"F8_E5M2", 1},
        {"I8", 1},  {"U8", 1},  {"I32", 4}, {"I64", 8},  {"BOOL", 1}};
    return k.at(d);
  }
  SafetensorsWriter& tensor(const std::string& name, const std::string& dtype,
                            std::vector<uint64_t> shape) {
    uint64_t n = 1;
    for (auto x : shape) n *= x;
    const uint64_t bytes = n * dtype_size(dtype);
    entries_.push_back({name, dtype, std::move(shape), data_bytes_, data_bytes_ + bytes});
    data_bytes_ += bytes;
    n_elements_ += n;
    return *this;
  }
  SafetensorsWriter& metadata(const std::string& k, const std::string& v) {
    meta_[k] = v;
    return *this;
  }
  uint64_t n_elements() const { return n_elements_; }
  uint64_t data_bytes() const { return data_bytes_; }

  std::string header_json() const {
    std::string j = "{";
    if (!meta_.empty()) {
      j += "\"__metadata__\":{";
      bool first = true;
      for (const auto& [k, v] : meta_)
        j += (first ? "" : ",") + quote(k) + ":" + quote(v), first = false;
      j += "}";
    }
    for (const auto& e : entries_) {
      if (j.size() > 1) j += ",";
      j += quote(e.name) + ":{\"dtype\":" + quote(e.dtype) + ",\"shape\":[";
      for (size_t i = 0; i < e.shape.size(); ++i) j += (i ? "," : "") + std::to_string(e.shape[i]);
      j += "],\"data_offsets\":[" + std::to_string(e.begin) + "," + std::to_string(e.end) + "]}";
    }
    j += "}";
    // Padded with spaces to a multiple of 8, as the safetensors writer does.
    j.resize((j.size() + 7) / 8 * 8, ' ');
    return j;
  }
  void write(const std::string& path) const { write_raw(path, header_json(), data_bytes_); }
  // 8-byte length, the header text as given, then `data` sparse bytes.
  static void write_raw(const std::string& path, const std::string& header, uint64_t data) {
    ByteWriter b;
    b.u64(header.size()).raw(header);
    write_sparse(path, b.buf, b.buf.size() + data);
  }

 private:
  static std::string quote(const std::string& s) { return "\"" + s + "\""; }
  struct E {
    std::string name, dtype;
    std::vector<uint64_t> shape;
    uint64_t begin, end;
  };
  std::vector<E> entries_;
  std::map<std::string, std::string> meta_;
  uint64_t data_bytes_ = 0;
  uint64_t n_elements_ = 0;
};

// A temporary directory, removed with its files at the end of the scope.
class TempDir {
 public:
  // A fresh /tmp/llmsize_files_XXXXXX; or, given a path, that directory, created and kept.
  explicit TempDir(const std::string& keep = "") {
    if (!keep.empty()) {
      [[maybe_unused]] const int rc = std::system(("mkdir -p '" + keep + "'").c_str());
      path_ = keep;
      keep_ = true;
      return;
    }
    char t[] = "/tmp/llmsize_files_XXXXXX";
    if (!::mkdtemp(t)) throw std::runtime_error("mkdtemp");
    path_ = t;
  }
  ~TempDir() {
    if (keep_) return;
    [[maybe_unused]] const int rc = std::system(("rm -rf '" + path_ + "'").c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  bool keep_ = false;
};

}  // namespace llmsize::test
