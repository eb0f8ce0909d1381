// The model architecture of a GGUF file, mapped from llama.cpp's metadata keys and tensor names
// to a ModelSpec (llama.cpp src/llama-model.cpp load_hparams / the per-model load_arch_hparams in
// src/models/*.cpp, at commit 00395eb2).
#pragma once

#include <string>
#include <vector>

#include "llmsize/io/gguf.hpp"
#include "llmsize/model/model_spec.hpp"

namespace llmsize {

// The architecture as llama.cpp reads it from the metadata of the first shard
// ("{arch}.block_count", "{arch}.attention.head_count_kv", ...) and the tensors of all shards.
struct GgufArch {
  std::string arch;    // general.architecture as written
  bool known = false;  // maps to an llmsize::Arch; otherwise spec uses llama's rules
  ModelSpec spec;
  std::vector<std::string> notes;  // assumptions made (unknown arch, per-layer arrays, ...)
};
// Throws InputError naming the first shard and the key when a needed key is missing or invalid.
GgufArch gguf_arch(const std::vector<GgufFile>& shards);

}  // namespace llmsize
