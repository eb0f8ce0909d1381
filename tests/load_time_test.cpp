#include "llmsize/machine/load_time.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace llmsize;

namespace {

// Llama-3(.1)-8B in BF16: 16,060,522,496 bytes of tensors (its safetensors index).
constexpr uint64_t kLlama8bBf16 = 16'060'522'496ull;

double step_s(const ColdStart& c, StartStep s) {
  for (const auto& st : c.steps)
    if (st.step == s) return st.seconds;
  return -1;
}

}  // namespace

TEST_CASE("Load times against the published vLLM loader measurements", "[load_time]") {
  struct Case {
    const char* id;
    StorageClass storage;
    Loader loader;
    double expected_s;  // the model, derived below
    double measured_s;
    double tolerance;
  };
  const Case cases[] = {
      // C01 (calibration): safetensors from gp3, one mmap reader at 0.344 GB/s = 46.69 s, then the
      // pageable copy at 0.4 x 31.5 GB/s = 1.27 s: 47.96 s against 47.99 s.
      {"C01", StorageClass::ebs_gp3, Loader::safetensors,
       kLlama8bBf16 / 0.344e9 + kLlama8bBf16 / 12.6e9, 47.99, 0.01},
      // C02 (not calibrated on): the streamer on gp3 reads at the volume's 1,000 MiB/s = 15.33 s;
      // the pinned copy (25.2 GB/s) hides under it: +6.9% against 14.34 s.
      {"C02", StorageClass::ebs_gp3, Loader::streaming, kLlama8bBf16 / 1.048e9, 14.34, 0.10},
      // C03: the streamer on io2, capped by the g5.12xlarge's 16 Gb/s EBS link: 8.03 s, +6.6%
      // against 7.53 s.
      {"C03", StorageClass::ebs_io2, Loader::streaming, kLlama8bBf16 / 2.0e9, 7.53, 0.10},
  };
  for (const auto& c : cases) {
    CAPTURE(c.id);
    ColdStartInput in;
    in.weights_bytes = kLlama8bBf16;
    in.storage = c.storage;
    in.engine = Engine::vllm;
    in.loader = c.loader;
    const auto cs = cold_start(in);
    CHECK(cs.load_s == Approx(c.expected_s).epsilon(1e-9));
    CHECK(std::fabs(cs.load_s / c.measured_s - 1) <= c.tolerance);
  }
}

TEST_CASE("A vLLM cold start shows every step", "[load_time]") {
  ColdStartInput in;
  in.weights_bytes = kLlama8bBf16;
  in.storage = StorageClass::ebs_gp3;
  in.engine = Engine::vllm;
  in.loader = Loader::safetensors;
  const auto cs = cold_start(in);
  REQUIRE(cs.steps.size() == 6);
  CHECK(step_s(cs, StartStep::runtime_init) == 25);
  CHECK(step_s(cs, StartStep::memory_profile) == Approx(9.6));
  CHECK(step_s(cs, StartStep::compile) == Approx(48.89));  // first run, no cache
  CHECK(step_s(cs, StartStep::graph_capture) == 17);
  // 25 + 47.96 + 9.6 + 48.89 + 17 = 148.45 s: "minutes", as the issue reports.
  CHECK(cs.total_s == Approx(25 + cs.load_s + 9.6 + 48.89 + 17));
  // A warm restart: compile from the cache (7.51 s), weights from the page cache at 5.3 GB/s,
  // --enforce-eager skips the graphs.
  in.compile_cached = true;
  in.page_cached = true;
  in.cuda_graphs = false;
  const auto warm = cold_start(in);
  CHECK(step_s(warm, StartStep::compile) == Approx(7.51));
  CHECK(step_s(warm, StartStep::graph_capture) == -1);
  CHECK(step_s(warm, StartStep::read_weights) == Approx(kLlama8bBf16 / 5.3e9));
}

TEST_CASE("llama.cpp reads GGUF through mmap, more GPUs copy in parallel", "[load_time]") {
  // 40 GB from a PCIe 4.0 NVMe: one mmap reader at 2.2 GB/s = 18.18 s; two GPUs take their
  // halves over their own links: 40 / (2 x 12.6) = 1.59 s; CUDA init 2 s.
  ColdStartInput in;
  in.weights_bytes = 40 * 1'000'000'000ull;
  in.storage = StorageClass::local_nvme_gen4;
  in.engine = Engine::llama_cpp;
  in.loader = default_loader(Engine::llama_cpp);
  in.n_gpus = 2;
  const auto cs = cold_start(in);
  CHECK(in.loader == Loader::gguf_mmap);
  REQUIRE(cs.steps.size() == 3);
  CHECK(step_s(cs, StartStep::read_weights) == Approx(40 / 2.2));
  CHECK(step_s(cs, StartStep::copy_to_gpu) == Approx(40 / 25.2));
  CHECK(cs.total_s == Approx(2 + 40 / 2.2 + 40 / 25.2));
  in.rocm = true;
  CHECK(step_s(cold_start(in), StartStep::runtime_init) == 3);
  // S3 with parallel readers: the instance's 25 Gb/s x 0.9 = 2.81 GB/s.
  in.storage = StorageClass::s3;
  in.loader = Loader::streaming;
  CHECK(step_s(cold_start(in), StartStep::read_weights) == Approx(40 / 2.8125));
}

TEST_CASE("Storage classes by their --storage names", "[load_time]") {
  CHECK(storage_from_name("ebs-gp3") == StorageClass::ebs_gp3);
  CHECK(storage_from_name("local-nvme-gen5") == StorageClass::local_nvme_gen5);
  CHECK_FALSE(storage_from_name("floppy"));
  CHECK(storage_names().size() == 9);
  for (const char* n : storage_names()) {
    CAPTURE(n);
    const auto s = storage_from_name(n);
    REQUIRE(s);
    CHECK(std::string(storage_spec(*s).source).size() > 10);
    CHECK(std::string(storage_spec(*s).single_stream_source).size() > 10);
    CHECK(storage_spec(*s).single_stream_gb_per_s > 0);
  }
  CHECK(std::string(to_string(Loader::gguf_mmap)) == "gguf-mmap");
  CHECK(default_loader(Engine::vllm) == Loader::safetensors);
}

TEST_CASE("Unified memory loads without a host-to-device copy", "[load_time]") {
  // 40 GB on a unified-memory computer: the read (40 / 2.2 s) and init; the copy step is there,
  // at 0 s, saying why (the GPU uses the memory the weights were read into).
  ColdStartInput in;
  in.weights_bytes = 40 * 1'000'000'000ull;
  in.loader = default_loader(Engine::llama_cpp);
  in.unified_memory = true;
  const auto cs = cold_start(in);
  REQUIRE(cs.steps.size() == 3);
  CHECK(step_s(cs, StartStep::copy_to_gpu) == 0);
  CHECK(cs.load_s == Approx(40 / 2.2));
  CHECK(cs.total_s == Approx(2 + 40 / 2.2));
}
