#include "llmsize/machine/load_time.hpp"

#include <algorithm>

namespace llmsize {
namespace {

// read_gb_per_s: what parallel readers get (sequential datasheet rate, provisioned volume or link
// rate). single_stream_gb_per_s: one reader faulting pages in through mmap with the kernel's
// 128 KiB readahead, as the safetensors loader and llama.cpp's mmap do: on local drives
// 128 KiB / QD1 latency (approximation: ~60-80 us for NVMe, ~250 us SATA); on EBS calibrated on
// C01 (vLLM's safetensors loader, Llama-3-8B, 16.06 GB in 47.99 s from gp3, 1.3 s of it the copy
// to the A10G: 0.344 GB/s), which also matches io2's "nearly 6x" slower than the streamer's 7.53 s.
const StorageSpec kStorage[] = {
    {StorageClass::hdd, "hdd", 0.25, 0.25, "Seagate Exos X20 datasheet: 272 MB/s max sustained",
     "sequential at the platter rate: readahead keeps one reader at it"},
    {StorageClass::sata_ssd, "sata-ssd", 0.55, 0.5,
     "Samsung 870 EVO datasheet: 560 MB/s (SATA 6 Gb/s limit)",
     "one mmap reader: 128 KiB readahead per QD1 read latency (approximation)"},
    {StorageClass::local_nvme_gen3, "local-nvme-gen3", 3.5, 1.6,
     "Samsung 970 EVO Plus datasheet: 3,500 MB/s",
     "one mmap reader: 128 KiB readahead per QD1 read latency (approximation)"},
    {StorageClass::local_nvme_gen4, "local-nvme-gen4", 7.0, 2.2,
     "Samsung 990 PRO datasheet: 7,450 MB/s",
     "one mmap reader: 128 KiB readahead per QD1 read latency (approximation)"},
    {StorageClass::local_nvme_gen5, "local-nvme-gen5", 14.0, 2.6,
     "Crucial T705 datasheet: 14,500 MB/s",
     "one mmap reader: 128 KiB readahead per QD1 read latency (approximation)"},
    {StorageClass::nfs, "nfs", 1.1, 0.35,
     "NFS over 10 GbE: 1.25 GB/s line rate less TCP/RPC framing (~1.1 GB/s); one mmap reader "
     "is latency-bound like EBS",
     "one mmap reader over NFS, latency-bound like EBS (approximation)"},
    {StorageClass::s3, "s3", 0, 0.09,
     "Amazon S3 performance guidelines: ~85-90 MB/s per connection, parallel ranged GETs scale to "
     "the instance's network (read rate = network_gbit_per_s / 8 x 0.9)",
     "Amazon S3 performance guidelines: ~85-90 MB/s per connection"},
    {StorageClass::ebs_gp3, "ebs-gp3", 1.048, 0.344,
     "AWS EBS gp3: up to 1,000 MiB/s provisioned (EBS volume types); single stream from C01",
     "C01: vLLM's safetensors loader read 16.06 GB from gp3 in 47.99 s"},
    {StorageClass::ebs_io2, "ebs-io2", 2.0, 0.344,
     "AWS EBS io2 Block Express: 4,000 MiB/s per volume, capped by the instance's EBS bandwidth "
     "(g5.12xlarge: 16 Gb/s = 2.0 GB/s); single stream from C01",
     "C01: vLLM's safetensors loader read 16.06 GB from gp3 in 47.99 s (io2 alike)"},
};

// Reading from the page cache (a warm restart): vLLM logged 3.42 GiB of weights in 0.69 s
// (vllm-project/vllm#20264), 5.3 GB/s.
constexpr double kPageCacheGbPerS = 5.3;
// Host-to-device copies as a fraction of the PCIe rate per direction: pinned buffers ~80% (CUDA
// bandwidthTest on PCIe 4.0 x16: ~25-26 of 31.5 GB/s), pageable ~40% (staged through a bounce
// buffer). Approximation.
constexpr double kPinnedCopyFraction = 0.8;
constexpr double kPageableCopyFraction = 0.4;

// Fixed start-up steps, seconds, as engines log them.
// vLLM (vllm-project/vllm#20264, Llama-3.2 on one GPU): torch.compile 7.51 s from its cache, CUDA
// graph capture 17 s, "init engine (profile, create kv cache, warmup model) took 34.11 s" (so
// ~9.6 s of profiling and KV allocation), and ~25 s of the 59 s to the first response outside the
// logged steps (process start, imports, CUDA init). torch.compile without a cache: 48.89 s
// (noonghunna/club-3090#75, Qwen3.6-27B, vLLM V1).
constexpr double kVllmRuntimeInitS = 25;
constexpr double kVllmProfileS = 9.6;
constexpr double kVllmGraphCaptureS = 17;
constexpr double kVllmCompileColdS = 48.89;
constexpr double kVllmCompileCachedS = 7.51;
// llama.cpp / ollama: CUDA context and cuBLAS handles ~1-2 s, no graph capture at start (CUDA
// graphs are built on the first decode steps); ROCm's HIP runtime init ~3 s. Transformers:
// import torch + from_pretrained set-up ~10 s. Approximations.
constexpr double kCudaInitS = 2;
constexpr double kRocmInitS = 3;
constexpr double kTransformersInitS = 10;

}  // namespace

const StorageSpec& storage_spec(StorageClass s) {
  for (const auto& d : kStorage)
    if (d.storage == s) return d;
  return kStorage[0];
}

std::optional<StorageClass> storage_from_name(std::string_view name) {
  for (const auto& d : kStorage)
    if (name == d.name) return d.storage;
  return std::nullopt;
}

const std::vector<const char*>& storage_names() {
  static const std::vector<const char*> v = [] {
    std::vector<const char*> r;
    for (const auto& d : kStorage) r.push_back(d.name);
    return r;
  }();
  return v;
}

const char* to_string(Loader l) {
  switch (l) {
    case Loader::safetensors:
      return "safetensors";
    case Loader::gguf_mmap:
      return "gguf-mmap";
    case Loader::streaming:
      return "streaming";
  }
  return "?";
}

// An engine that loads the checkpoint's own files reads safetensors; llama.cpp and Ollama map a
// GGUF.
Loader default_loader(Engine e) {
  return engine_profile(e).checkpoint_weights ? Loader::safetensors : Loader::gguf_mmap;
}

const char* to_string(StartStep s) {
  switch (s) {
    case StartStep::read_weights:
      return "read_weights";
    case StartStep::copy_to_gpu:
      return "copy_to_gpu";
    case StartStep::runtime_init:
      return "runtime_init";
    case StartStep::memory_profile:
      return "memory_profile";
    case StartStep::graph_capture:
      return "graph_capture";
    case StartStep::compile:
      return "compile";
  }
  return "?";
}

ColdStart cold_start(const ColdStartInput& in) {
  ColdStart c;
  c.steps.reserve(8);
  const StorageSpec& s = storage_spec(in.storage);
  const double gb = static_cast<double>(in.weights_bytes) / 1e9;
  const uint32_t gpus = std::max<uint32_t>(1, in.n_gpus);

  // Runtime first: the process starts and initialises the GPU runtime before it reads weights.
  double init = in.rocm ? kRocmInitS : kCudaInitS;
  const char* init_src = in.rocm ? "HIP runtime init (approximation)"
                                 : "CUDA context and library handles (approximation)";
  if (in.engine == Engine::vllm) {
    init = kVllmRuntimeInitS;
    init_src = "vllm-project/vllm#20264: ~25 s outside the logged steps";
  } else if (in.engine == Engine::transformers) {
    init = kTransformersInitS;
    init_src = "import torch + from_pretrained set-up (approximation)";
  }
  c.steps.push_back({StartStep::runtime_init, init, 0, init_src});

  double read_rate = in.loader == Loader::streaming ? s.read_gb_per_s : s.single_stream_gb_per_s;
  if (in.storage == StorageClass::s3 && in.loader == Loader::streaming)
    read_rate = in.network_gbit_per_s / 8 * 0.9;
  const char* read_src = in.loader == Loader::streaming ? s.source : s.single_stream_source;
  if (in.page_cached) {
    read_rate = kPageCacheGbPerS;
    read_src = "page cache: vllm-project/vllm#20264 (3.42 GiB in 0.69 s)";
  }
  const double read_s = read_rate > 0 ? gb / read_rate : 0;
  c.steps.push_back({StartStep::read_weights, read_s, read_rate, read_src});

  // Each GPU receives its share over its own link, in parallel. The streaming loader copies
  // from pinned buffers while it reads, so only the part of the copy longer than the read adds.
  const bool pinned = in.loader == Loader::streaming;
  const double copy_rate =
      in.pcie_gb_per_s * (pinned ? kPinnedCopyFraction : kPageableCopyFraction) * gpus;
  double copy_s = copy_rate > 0 ? gb / copy_rate : 0;
  if (pinned) copy_s = std::max(0.0, copy_s - read_s);
  if (in.unified_memory) {
    copy_s = 0;
    c.steps.push_back({StartStep::copy_to_gpu, 0, 0,
                       "unified memory: the GPU uses the memory the weights were read into"});
  } else {
    c.steps.push_back({StartStep::copy_to_gpu, copy_s, copy_rate,
                       pinned ? "pinned host-to-device, overlapped with the read (approximation)"
                              : "pageable host-to-device after each tensor (approximation)"});
  }
  c.load_s = read_s + copy_s;

  if (in.engine == Engine::vllm) {
    c.steps.push_back(
        {StartStep::memory_profile, kVllmProfileS, 0, "vllm-project/vllm#20264 init engine"});
    if (in.torch_compile)
      c.steps.push_back({StartStep::compile,
                         in.compile_cached ? kVllmCompileCachedS : kVllmCompileColdS, 0,
                         in.compile_cached ? "vllm-project/vllm#20264 (from the cache)"
                                           : "noonghunna/club-3090#75 (first run)"});
    if (in.cuda_graphs)
      c.steps.push_back(
          {StartStep::graph_capture, kVllmGraphCaptureS, 0, "vllm-project/vllm#20264"});
  }
  for (const auto& st : c.steps) c.total_s += st.seconds;
  return c;
}

}  // namespace llmsize
