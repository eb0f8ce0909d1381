#include <catch2/catch.hpp>

#include "llmsize/memory/kv_cache.hpp"
#include "test_util.hpp"

using namespace llmsize;

TEST_CASE("KV cache equals llama.cpp's logged KV buffers exactly", "[kv_cache]") {
  // Every llama.cpp record in tests/data/measured_memory.json with a KV buffer: bytes =
  // 2 (K and V) x n_layer x n_ctx x n_embd_k_gqa x 2 (f16). LLaMA-7B: 32 x 4096.
  const auto doc = test::data_file("measured_memory.json");
  const auto& m = test::model("llama-2-7b");
  int checked = 0;
  for (const auto& rec : doc["records"]) {
    const auto& meas = rec["measurements_mib"];
    double logged = 0;
    if (meas.contains("kv_buffer") && meas["kv_buffer"].is_object()) {
      for (const auto& [dev, v] : meas["kv_buffer"].items())
        if (dev == "CUDA0" || dev == "CPU") logged = v.get<double>();
    } else if (meas.contains("kv_buffer")) {
      logged = meas["kv_buffer"].get<double>();
    }
    if (logged == 0) continue;
    KvCacheConfig c;
    c.n_ctx = rec["n_ctx"].get<uint32_t>();
    const auto kv = kv_cache(m, c);
    INFO(rec["id"].get<std::string>());
    CHECK(static_cast<double>(kv.total_bytes()) / test::kMiBd == logged);
    ++checked;
  }
  CHECK(checked == 11);
}

TEST_CASE("KV cache follows GQA, padding, sequences, quantized types, SWA and MLA", "[kv_cache]") {
  KvCacheConfig c;
  SECTION("GQA: Llama-3.1-8B keeps 8 KV heads of 128") {
    c.n_ctx = 8192;  // 2 x 32 layers x 8192 x 1024 x 2 B = 1 GiB
    CHECK(kv_cache(test::model("llama-3.1-8b"), c).total_bytes() == 1ull << 30);
  }
  SECTION("cells are padded to 256 and each sequence has its own") {
    c.n_ctx = 1000;  // -> 1024 cells
    c.n_seq = 4;
    CHECK(kv_cache(test::model("llama-3.1-8b"), c).total_bytes() ==
          4ull * 2 * 32 * 1024 * 1024 * 2);
  }
  SECTION("q8_0 KV: 1024 elements = 32 blocks x 34 B per cell per layer, each of K and V") {
    c.n_ctx = 8192;
    c.type_k = c.type_v = TensorType::Q8_0;
    CHECK(kv_cache(test::model("llama-3.1-8b"), c).total_bytes() == 2ull * 32 * 8192 * 32 * 34);
  }
  SECTION("Gemma-2-9B: half of the layers keep only n_swa + n_ubatch cells") {
    // 21 global layers x 8192 cells + 21 SWA layers x pad(4096 + 512, 256) = 4608 cells;
    // K+V per cell per layer = 2 x 8 heads x 256 x 2 B = 8192 B.
    c.n_ctx = 8192;
    const auto kv = kv_cache(test::model("gemma-2-9b"), c);
    CHECK(kv.n_layer_swa == 21);
    CHECK(kv.cells_swa == 4608);
    CHECK(kv.total_bytes() == (21ull * 8192 + 21ull * 4608) * 8192);
  }
  SECTION("Gemma-3-27B: 5 of every 6 layers use the 1024-token window") {
    // 62 layers: global are il % 6 == 5 -> 10; SWA 52 with pad(1024 + 512, 256) = 1536 cells.
    c.n_ctx = 32768;
    const auto kv = kv_cache(test::model("gemma-3-27b"), c);
    CHECK(kv.n_layer_full == 10);
    CHECK(kv.n_layer_swa == 52);
    CHECK(kv.total_bytes() == (10ull * 32768 + 52ull * 1536) * 2 * 16 * 128 * 2);
  }
  SECTION("DeepSeek-V3 MLA caches 512 + 64 values per token per layer, no V") {
    c.n_ctx = 4096;
    CHECK(kv_cache(test::model("deepseek-v3"), c).total_bytes() == 61ull * 4096 * 576 * 2);
  }
  SECTION("Qwen2.5 carries sliding_window but does not use it") {
    c.n_ctx = 32768;
    const auto kv = kv_cache(test::model("qwen2.5-7b"), c);
    CHECK(kv.n_layer_swa == 0);
    CHECK(kv.total_bytes() == 2ull * 28 * 32768 * 512 * 2);
  }
}

TEST_CASE("a quantized KV type must store each K and V row in whole blocks", "[kv_cache]") {
  ModelSpec m = test::model("llama-3.1-8b");  // 8 KV heads x 128: K and V rows of 1,024
  // 1,024 = 32 blocks of q4_0 / q8_0 (32 elements), 4 of q4_K (256): every row fits.
  for (const TensorType t : {TensorType::F16, TensorType::Q8_0, TensorType::Q4_0, TensorType::Q4_K})
    CHECK_FALSE(kv_row_mismatch(m, t, t).has_value());
  // One KV head of 72 (the hostile CLI test's config): 72 is not a multiple of 32.
  m.n_head_kv = 1;
  m.n_embd_head_k = m.n_embd_head_v = 72;
  const auto k = kv_row_mismatch(m, TensorType::Q4_0, TensorType::F16);
  REQUIRE(k.has_value());
  CHECK_FALSE(k->v);
  CHECK(k->type == TensorType::Q4_0);
  CHECK(k->row == 72);
  CHECK(k->n_head_kv == 1);
  CHECK(k->head_dim == 72);
  CHECK_FALSE(k->mla);
  // K at F16 stores anything; the V row of 72 under q8_0 is the one named.
  const auto v = kv_row_mismatch(m, TensorType::F16, TensorType::Q8_0);
  REQUIRE(v.has_value());
  CHECK(v->v);
  CHECK(v->row == 72);
  // Every per-layer KV head count is checked: q4_K blocks are 256 elements; 2 heads x 128 = 256
  // fit, but a layer of 1 head x 128 = 128 does not.
  m.n_head_kv = 2;
  m.n_embd_head_k = m.n_embd_head_v = 128;
  CHECK_FALSE(kv_row_mismatch(m, TensorType::Q4_K, TensorType::Q4_K).has_value());
  m.n_head_kv_per_layer = {2, 1, 2};
  const auto layer = kv_row_mismatch(m, TensorType::Q4_K, TensorType::Q4_K);
  REQUIRE(layer.has_value());
  CHECK(layer->row == 128);
  CHECK(layer->n_head_kv == 1);
}
