// safetensors files (Hugging Face): the 8-byte header length and the JSON header, never tensor
// data. Format: huggingface/safetensors README ("Format"). Sharded checkpoints are listed by a
// model.safetensors.index.json {"weight_map": {tensor: shard file}}.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llmsize/model/tensor_type.hpp"

namespace llmsize {

// The format's own limit on the header (safetensors crate MAX_HEADER_SIZE).
constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;
// Tensors accepted in one model (an index's weight_map, all shards): about twice the largest
// published checkpoint (Kimi K2, ~140,000 tensors with their FP8 scales), so a hostile header
// cannot make millions. One file holds at most half as many.
constexpr size_t kSafetensorsMaxTensors = 1u << 18;

struct SafetensorsTensor {
  std::string name;
  std::string dtype;            // as written: "BF16", "F8_E4M3", "I32", ...
  TensorType type;              // llmsize's storage type of the same width
  std::vector<uint64_t> shape;  // as written (row-major: the last dimension is the row)
  uint64_t begin = 0;           // data_offsets, from the start of the byte buffer
  uint64_t end = 0;
  uint64_t n_elements = 0;
  uint64_t bytes() const { return end - begin; }
};

struct SafetensorsFile {
  std::string path;
  uint64_t file_size = 0;
  uint64_t header_size = 0;                     // N: the JSON header's length
  uint64_t data_offset = 0;                     // 8 + N
  std::map<std::string, std::string> metadata;  // "__metadata__": the first 256 entries
  uint64_t metadata_count = 0;                  // "__metadata__" entries, all counted
  std::vector<SafetensorsTensor> tensors;       // in data order

  uint64_t tensor_bytes() const;
};

// The storage type llmsize counts a safetensors dtype as (same bytes per element), or nullopt.
std::optional<TensorType> tensor_type_from_safetensors_dtype(std::string_view dtype);

// Parses a whole safetensors image held in memory (fuzzing, tests): tensor data is not looked at,
// only the header and the file size. Throws InputError "<where>: <what> (at byte N)".
SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& where);

// Reads one file's header: 8 bytes plus the JSON header, whatever the data's size.
SafetensorsFile read_safetensors_file(const std::string& path);

// The shard files named by a model.safetensors.index.json, relative to its directory, in the
// order first named, and each tensor's shard.
struct SafetensorsIndex {
  std::string path;
  std::vector<std::string> shards;                // paths as given in the index
  std::map<std::string, std::string> weight_map;  // tensor -> shard
  uint64_t total_size = 0;                        // metadata.total_size, 0 when absent
};
SafetensorsIndex parse_safetensors_index(std::string_view text, const std::string& where);
SafetensorsIndex read_safetensors_index(const std::string& path);

}  // namespace llmsize
