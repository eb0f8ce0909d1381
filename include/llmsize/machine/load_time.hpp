// Load and cold-start time, step by step: read the weights from a storage class, deserialize and
// copy them to the GPUs, start the runtime, capture graphs and compile.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "llmsize/engine.hpp"

namespace llmsize {

// --storage: where the weights are read from.
enum class StorageClass {
  hdd,
  sata_ssd,
  local_nvme_gen3,
  local_nvme_gen4,
  local_nvme_gen5,
  nfs,      // NFS over 10 GbE
  s3,       // Amazon S3 (object storage), many parallel ranged GETs
  ebs_gp3,  // AWS EBS gp3 at its provisioned maximum
  ebs_io2,  // AWS EBS io2 Block Express
};

struct StorageSpec {
  StorageClass storage;
  const char* name;                  // "ebs-gp3", the --storage spelling
  double read_gb_per_s;              // sequential/parallel throughput, decimal GB/s
  double single_stream_gb_per_s;     // one reader faulting in pages (mmap, readahead), decimal GB/s
  const char* source;                // of read_gb_per_s
  const char* single_stream_source;  // of single_stream_gb_per_s
};
const StorageSpec& storage_spec(StorageClass s);
std::optional<StorageClass> storage_from_name(std::string_view name);
const std::vector<const char*>& storage_names();

// How the engine reads the file.
enum class Loader {
  safetensors,  // Hugging Face safetensors through mmap, tensor by tensor (vLLM's default)
  gguf_mmap,    // llama.cpp: mmap the GGUF file, copy tensors to the device
  streaming,    // parallel readers straight into pinned buffers (Run:ai Model Streamer)
};
const char* to_string(Loader l);
// The engine's default loader: llama.cpp/ollama gguf_mmap, vLLM/transformers safetensors.
Loader default_loader(Engine e);

// Step of a cold start. Codes, stable in JSON.
enum class StartStep {
  read_weights,
  copy_to_gpu,
  runtime_init,
  memory_profile,
  graph_capture,
  compile
};
const char* to_string(StartStep s);

struct StartStepTime {
  StartStep step;
  double seconds = 0;
  double rate_gb_per_s = 0;  // for read/copy steps; 0 for fixed steps
  const char* source = "";   // where the rate or time comes from
};

struct ColdStart {
  std::vector<StartStepTime> steps;
  double load_s = 0;   // read + copy: what loader benchmarks time
  double total_s = 0;  // every step: process start to serving
};

struct ColdStartInput {
  uint64_t weights_bytes = 0;
  StorageClass storage = StorageClass::local_nvme_gen4;
  Engine engine = Engine::llama_cpp;
  Loader loader = Loader::gguf_mmap;
  uint32_t n_gpus = 1;
  bool rocm = false;          // AMD: ROCm init instead of CUDA
  bool cuda_graphs = true;    // vLLM captures CUDA graphs unless --enforce-eager
  bool torch_compile = true;  // vLLM V1 compiles with torch.compile (cached after the first run)
  bool compile_cached = false;
  bool page_cached = false;        // the file is already in the page cache (a warm restart)
  double network_gbit_per_s = 25;  // instance network for s3 reads
  double pcie_gb_per_s = 31.5;     // host link per GPU, per direction (PCIe 4.0 x16)
  // CPU and GPU share one memory (Apple M-series, GB10, Ryzen AI Max): what was read is where
  // the GPU reads it, no host-to-device copy.
  bool unified_memory = false;
};

ColdStart cold_start(const ColdStartInput& in);

}  // namespace llmsize
