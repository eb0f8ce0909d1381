#include <catch2/catch.hpp>

#include "llmsize/memory/compute_buffer.hpp"
#include "llmsize/memory/estimate.hpp"
#include "test_util.hpp"

using namespace llmsize;

TEST_CASE("compute buffers are within 8% of llama.cpp's CUDA logs", "[compute_buffer]") {
  // (model, n_ctx, logged CUDA0 compute buffer MiB, source). Flash attention off, n_ubatch 512.
  // Predicted 72, 168, 168 and 552 MiB: -7.2%, -2.1%, +2.4% and -1.4%. A relative bound only,
  // so every row can fail (an absolute floor of 64 MiB would cover the first three whole).
  auto [id, n_ctx, logged_mib, source] =
      GENERATE(table<std::string, uint32_t, double, std::string>({
          {"llama-2-7b", 512, 77.55, "ggml-org/ci V100 open_llama_7b_v2 tg-q4_0 log"},
          {"llama-2-7b", 2048, 171.60, "ggml-org/ci V100 open_llama_7b_v2 perplexity log"},
          {"llama-2-7b", 2048, 164.01, "utilityai/llama-cpp-rs README example output"},
          {"llama-3.1-8b", 8192, 560.0,
           "shared reference README: Llama-3-8B, n_ctx 8192, n_ubatch 512"},
      }));
  const auto cb = compute_buffer(test::model(id), n_ctx, 512, false);
  const double got = static_cast<double>(cb.bytes()) / test::kMiBd;
  INFO(id << " n_ctx " << n_ctx << ": predicted " << got << " MiB, logged " << logged_mib
          << " MiB (" << source << ")");
  CHECK(std::abs(got - logged_mib) / logged_mib <= 0.08);
}

TEST_CASE("compute buffer peaks are computed from the formula", "[compute_buffer]") {
  const auto& m = test::model("llama-3.1-8b");
  // Flash attention off at n_ctx 8192: KQ 8192 x 512 x 32 x 4 B = 536,870,912 B (512 MiB) plus
  // 5 x 4096 x 512 x 4 B = 41,943,040 B (40 MiB) = 578,813,952 B.
  const auto off = compute_buffer(m, 8192, 512, false);
  CHECK(off.attention_bytes == 578813952);
  CHECK(std::string(off.peak()) == "attention");
  // Flash attention on: the logits dominate, 4 x 512 x (128,256 + 4,096) B = 2,048 x 132,352 B =
  // 271,056,896 B = 258.5 MiB.
  const auto on = compute_buffer(m, 8192, 512, true);
  CHECK(on.output_bytes == 271056896);
  CHECK(on.bytes() == on.output_bytes);
}

TEST_CASE("Ollama's slots share one KV stream, and its graph attends over all of it",
          "[compute_buffer][kv]") {
  // ollama/ollama#9221: deepseek-r1:32b (Qwen2.5-32B's shapes: 64 layers, 8 KV heads of 128) at
  // OLLAMA_NUM_PARALLEL 4 x 16,384 tokens, flash attention off, CUDA: "kv_size = 65536",
  // "KV buffer size = 16384.00 MiB", "CUDA0 compute buffer size = 5288.00 MiB".
  RunConfig c;
  c.quant = find_quant_preset("q4_k_m");
  c.engine = Engine::ollama;
  c.flash_attn = false;
  c.kv.n_ctx = 16384;
  c.kv.n_seq = 4;
  const Estimate e = estimate(test::model("qwen2.5-32b"), c);
  CHECK(e.kv.n_stream == 1);
  CHECK(e.kv.cells_full == 65536);
  // 65,536 cells x 64 layers x (1,024 + 1,024 elements x 2 B) = 17,179,869,184 B = 16,384 MiB.
  CHECK(e.kv_cache_bytes == 17179869184ull);
  CHECK(static_cast<double>(e.compute.bytes()) / (1 << 20) == Approx(5288.0).epsilon(0.05));
  // llama.cpp gives each sequence its own stream (llama-server -np 4 without --kv-unified): the
  // same bytes, and a graph that attends over one sequence's 16,384 cells.
  c.engine = Engine::llama_cpp;
  const Estimate s = estimate(test::model("qwen2.5-32b"), c);
  CHECK(s.kv.n_stream == 4);
  CHECK(s.kv.cells_full == 16384);
  CHECK(s.kv_cache_bytes == 17179869184ull);
  CHECK(s.compute.bytes() < e.compute.bytes() / 3);
  // llama-server --kv-unified shares one stream as Ollama does: the same cache and graph.
  c.kv_unified = true;
  const Estimate u = estimate(test::model("qwen2.5-32b"), c);
  CHECK(u.kv.n_stream == 1);
  CHECK(u.kv_cache_bytes == e.kv_cache_bytes);
  CHECK(u.compute.bytes() == e.compute.bytes());
}
