// GGUF files (llama.cpp): the header, metadata key/values and tensor infos, never tensor data.
// Format: ggml-org/ggml docs/gguf.md. Versions 2 and 3, little-endian; split sets written by
// llama.cpp's gguf-split ("<prefix>-00001-of-00005.gguf", keys split.no / split.count).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "llmsize/model/model_spec.hpp"
#include "llmsize/model/tensor_type.hpp"

namespace llmsize {

// gguf_metadata_value_type (gguf.md).
enum class GgufType : uint32_t {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
};
const char* gguf_type_name(GgufType t);

struct GgufValue {
  GgufType type = GgufType::UINT8;
  uint64_t bits = 0;  // integers and bools, signed ones sign-extended
  double real = 0;    // FLOAT32, FLOAT64
  std::string str;    // STRING, when at most kGgufKeptString bytes (longer ones are skipped)
  uint64_t str_len = 0;
  GgufType elem_type = GgufType::UINT8;  // ARRAY
  uint64_t n = 0;                        // ARRAY length
  std::vector<GgufValue> items;          // ARRAY elements, kept when n <= kGgufKeptItems
  uint64_t pos = 0;                      // byte of the value in the file

  std::optional<uint64_t> as_uint() const;  // a non-negative integer of any width
  std::optional<int64_t> as_int() const;
  std::optional<double> as_real() const;  // a float or an integer
  const std::string* as_string() const;   // a kept string
};

// Longer string values and longer arrays are skipped, not stored: only counts are kept.
constexpr uint64_t kGgufKeptString = 1 << 16;
constexpr uint64_t kGgufKeptItems = 1 << 12;

struct GgufTensor {
  std::string name;
  uint32_t ggml_type = 0;
  TensorType type = TensorType::F32;
  uint32_t n_dims = 0;
  std::array<uint64_t, 4> ne{1, 1, 1, 1};  // ggml order: ne[0] is the row length
  uint64_t offset = 0;                     // from the start of the file's tensor data
  uint64_t n_elements = 0;
  uint64_t bytes = 0;     // ggml_nbytes: rows x row_size(type, ne[0])
  uint64_t info_pos = 0;  // byte of its tensor info in the file
};

struct GgufFile {
  std::string path;
  uint32_t version = 0;
  uint64_t file_size = 0;
  uint32_t alignment = 32;   // general.alignment, default 32 (GGUF_DEFAULT_ALIGNMENT)
  uint64_t data_offset = 0;  // start of the tensor data: the end of the infos, padded to alignment
  std::vector<std::pair<std::string, GgufValue>> metadata;  // in file order
  std::vector<GgufTensor> tensors;                          // in file order

  const GgufValue* find(std::string_view key) const;
  uint64_t tensor_bytes() const;  // sum over tensors
};

// Parses a whole GGUF image held in memory (fuzzing, tests). `where` names it in errors.
// Throws InputError "<where>: <what> (at byte N)" for anything malformed.
GgufFile parse_gguf(std::string_view bytes, const std::string& where);

// The tensor named `name` ("blk.0.ffn_gate_exps.weight") in any shard, or nullptr.
const GgufTensor* find_gguf_tensor(const std::vector<GgufFile>& shards, std::string_view name);

// Reads one GGUF file's header. Only the header is read, however large the file.
GgufFile read_gguf_file(const std::string& path);

// Reads a GGUF model: one file, or every shard of a split set when `path` names one shard
// ("...-00002-of-00005.gguf" reads 1 to 5). Checks split.no / split.count and that no tensor
// name appears twice across shards. Shards are returned in order.
std::vector<GgufFile> read_gguf(const std::string& path);

// The shard paths of a split set named like llama.cpp's llama_split_path
// ("<prefix>-%05d-of-%05d.gguf"), or just {path} when the name is not a split name.
std::vector<std::string> gguf_split_paths(const std::string& path);

}  // namespace llmsize
