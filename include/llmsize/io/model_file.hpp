// A model's weights files read header-only, whatever the format: GGUF (one file or a split set),
// a safetensors file, a model.safetensors.index.json, or a directory holding config.json and
// safetensors shards. Gives the tensors, the exact weights they hold and the architecture.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llmsize/io/gguf.hpp"
#include "llmsize/io/gguf_arch.hpp"
#include "llmsize/io/safetensors.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/model_spec.hpp"
#include "llmsize/model/tensor_type.hpp"

namespace llmsize {

struct FileTensor {
  std::string name;
  std::string type_name;        // as the file names it: ggml's "q4_K", safetensors' "BF16"
  TensorType type;              // llmsize's storage type of the same size
  std::vector<uint64_t> shape;  // GGUF: ggml order (ne[0] first); safetensors: as written
  uint64_t n_elements = 0;
  uint64_t bytes = 0;
};

// Tensors and bytes per type, as the file names its types.
struct FileTypeUsage {
  std::string type_name;
  uint32_t n_tensors = 0;
  uint64_t n_elements = 0;
  uint64_t bytes = 0;
};

struct ModelFile {
  std::string path;                // as given
  std::string format;              // "gguf" | "safetensors"
  uint32_t version = 0;            // GGUF version; 0 for safetensors
  std::vector<std::string> files;  // every file whose header was read, config.json last
  uint64_t file_bytes = 0;         // sizes of the weight files, added up
  uint64_t header_bytes = 0;       // bytes before the tensor data, added up over files
  uint64_t n_metadata = 0;         // GGUF key/values, safetensors __metadata__ entries

  std::optional<ModelSpec> spec;    // the architecture, when the files say it
  std::string spec_missing_reason;  // why not, when they do not
  std::string arch;                 // as the file names it: general.architecture, or llmsize's name
  bool arch_known = false;

  std::vector<FileTensor> tensors;
  std::vector<FileTypeUsage> histogram;  // bytes descending
  Weights weights;                       // exact, tensor by tensor

  std::string file_quant;  // the quant preset id that describes the file ("q4_k_m", "hf-bf16")
  std::string file_type;   // how the file says it ("Q4_K_M (general.file_type 15)")
  std::vector<std::string> notes;  // assumptions and caveats
};

// Whether `path` names something read_model_file reads: *.gguf, *.safetensors,
// *.safetensors.index.json, or a directory holding *.safetensors.
bool is_model_file_path(const std::string& path);

// Why a directory is no model llmsize reads, for the message: "DIR: directory holds 3 GGUF files
// (m-00001-of-00003.gguf, ...): give one .gguf file (a split model's first shard) as MODEL", or
// "DIR: directory holds no config.json, *.safetensors or *.gguf file".
std::string not_a_model_directory(const std::string& dir);

// Reads the headers only. Throws InputError naming the file, what is wrong and the byte offset.
ModelFile read_model_file(const std::string& path);

// The halves of read_model_file after the files are parsed (the fuzzers' entry points): GGUF
// shards in order; safetensors files with the architecture of their config.json, if any.
ModelFile model_file_from_gguf(const std::vector<GgufFile>& shards, const std::string& path);
ModelFile model_file_from_safetensors(const std::vector<SafetensorsFile>& files,
                                      const std::optional<ModelSpec>& spec,
                                      const std::string& path);

}  // namespace llmsize
