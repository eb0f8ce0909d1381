// End-to-end tests of model files: the real llmsize binary reads GGUF and safetensors files that
// the tests write (tests/model_file_writer.hpp), good ones and hostile ones.
#include <catch2/catch.hpp>
#include "run_binary.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../model_file_writer.hpp"

using json = nlohmann::json;
using namespace llmsize::test;

namespace {

using llmsize::cli_test::Result;
using llmsize::cli_test::run;

json run_json(const std::string& args) {
  const auto r = run(args + " --format json");
  INFO(args << "\n" << r.err);
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

// Expects exit 2, nothing on stdout and exactly "llmsize: error: <message>" on stderr.
void expect_error(const std::string& args, const std::string& message) {
  const auto r = run(args);
  INFO(args);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "llmsize: error: " + message + "\n");
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A Llama config.json matching tiny_llama's shapes (n_embd 256, 8 heads, 2 KV heads, n_ff 512).
const char* kTinyConfig = R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256,
  "intermediate_size": 512, "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1024,
  "max_position_embeddings": 4096, "_name_or_path": "tiny/llama-st"})";

}  // namespace

// ---- GGUF ----

TEST_CASE("a GGUF's weights are its tensors' exact bytes and its params their elements", "[file]") {
  TempDir d;
  const auto w = tiny_llama(2, kQ4_K, kQ6_K);
  w.write(d / "tiny.gguf");
  // Per layer: q 256x256 + k,v 256x64 + o 256x256 + gate,up 256x512 = 425,984 Q4_K elements
  //   = 1,664 blocks of 256 x 144 B = 239,616 B; ffn_down 512x256 = 131,072 Q6_K = 512 blocks x 210
  //   = 107,520 B; 2 norms x 256 F32 = 512 elements, 2,048 B. Layer: 557,568 elements, 349,184 B.
  // Global: token_embd 256x1024 Q4_K = 147,456 B; output 256x1024 Q6_K = 215,040 B; norm 1,024 B:
  //   524,544 elements, 363,520 B.
  // Two layers: 1,115,136 + 524,544 = 1,639,680 elements; 698,368 + 363,520 = 1,061,888 B.
  REQUIRE(w.n_elements() == 1639680);
  REQUIRE(w.data_bytes() == 1061888);
  const auto j = run_json(d / "tiny.gguf");
  CHECK(j["model"]["source"] == "gguf");
  CHECK(j["model"]["name"] == "tiny-llama");
  CHECK(j["model"]["params"] == 1639680);
  CHECK(j["model"]["weights_bytes"] == 1061888);
  CHECK(j["model"]["n_layer"] == 2);
  CHECK(j["model"]["n_head_kv"] == 2);
  CHECK(j["model"]["n_ctx_train"] == 8192);
  CHECK(j["settings"]["quant"] == "q4_k_m");  // general.file_type 15
  // llama.cpp keeps token_embd (147,456 B) in host memory; output.weight exists, so no copy.
  CHECK(j["vram"]["weights_host_bytes"] == 147456);
  CHECK(j["vram"]["weights_bytes"] == 1061888 - 147456);
  // KV: 2 layers x 4096 cells x 2 KV heads x 32 x 2 (K, V) x 2 B (f16) = 2 MiB.
  CHECK(j["vram"]["kv_cache_bytes"] == 2 * 4096 * 2 * 32 * 2 * 2);
}

TEST_CASE("a tied GGUF counts token_embd again as the output layer on the GPU", "[file]") {
  TempDir d;
  tiny_llama(1, kQ8_0, kQ8_0, true).write(d / "tied.gguf");
  const auto j = run_json(d / "tied.gguf");
  // No output.weight: the GPU holds every tensor plus token_embd's copy; the host keeps token_embd.
  CHECK(j["vram"]["weights_host_bytes"] == 147456);
  CHECK(j["vram"]["weights_bytes"] == j["model"]["weights_bytes"]);
}

TEST_CASE("a sparse multi-GB GGUF is answered from its header", "[file]") {
  TempDir d;
  GgufWriter w = tiny_llama(1, kQ4_K, kQ6_K);
  // 32768 x 262144 Q4_K = 8,589,934,592 elements = 33,554,432 blocks x 144 B = 4,831,838,208 B.
  w.tensor("blk.0.extra.weight", kQ4_K, {32768, 262144});
  w.write(d / "big.gguf");
  const auto t0 = std::chrono::steady_clock::now();
  const auto j = run_json(d / "big.gguf");
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(j["model"]["weights_bytes"] == w.data_bytes());
  CHECK(w.data_bytes() == 4831838208ull + 215040 + 1024 + 147456 + 349184);
  CHECK(j["model"]["params"] == w.n_elements());
  CHECK(ms < 2000);  // reading 4.8 GB would take far longer
}

TEST_CASE("a split GGUF reads every shard, whichever is named", "[file]") {
  TempDir d;
  // Shard 1 holds the metadata and the globals, shards 2 and 3 a layer each.
  GgufWriter a;
  a.str("general.architecture", "llama")
      .str("general.name", "split-llama")
      .u32("general.file_type", 15);
  a.u32("llama.block_count", 2)
      .u32("llama.context_length", 8192)
      .u32("llama.embedding_length", 256);
  a.u32("llama.feed_forward_length", 512)
      .u32("llama.attention.head_count", 8)
      .u32("llama.attention.head_count_kv", 2);
  a.vocab(1024).u16("split.no", 0).u16("split.count", 3).i32("split.tensors.count", 4);
  a.tensor("token_embd.weight", kQ4_K, {256, 1024}).tensor("output.weight", kQ6_K, {256, 1024});
  GgufWriter b, c;
  b.u16("split.no", 1).u16("split.count", 3).tensor("blk.0.ffn_down.weight", kQ6_K, {512, 256});
  c.u16("split.no", 2).u16("split.count", 3).tensor("blk.1.ffn_down.weight", kQ6_K, {512, 256});
  a.write(d / "m-00001-of-00003.gguf");
  b.write(d / "m-00002-of-00003.gguf");
  c.write(d / "m-00003-of-00003.gguf");
  const uint64_t bytes = a.data_bytes() + b.data_bytes() + c.data_bytes();
  // 147,456 + 215,040 + 2 x 107,520
  REQUIRE(bytes == 577536);
  for (const char* name : {"m-00001-of-00003.gguf", "m-00003-of-00003.gguf"}) {
    const auto j = run_json(d / name);
    CHECK(j["model"]["weights_bytes"] == bytes);
    CHECK(j["model"]["params"] == a.n_elements() + b.n_elements() + c.n_elements());
  }
  const auto i = run_json("inspect " + (d / "m-00002-of-00003.gguf"));
  CHECK(i["files"].size() == 3);
  CHECK(i["tensor_count"] == 4);

  std::remove((d / "m-00002-of-00003.gguf").c_str());
  expect_error(
      d / "m-00001-of-00003.gguf",
      d / "m-00002-of-00003.gguf" + ": cannot open (No such file or directory) [shard 2 of 3]");
  b.write(d / "m-00002-of-00003.gguf");
  GgufWriter wrong;
  wrong.u16("split.no", 1).u16("split.count", 4).tensor("blk.1.ffn_down.weight", kQ6_K, {512, 256});
  wrong.write(d / "m-00003-of-00003.gguf");
  // split.count's value: header 24 + split.no (key 8 + 8, type 4, value 2) + key (8 + 11) + type 4
  // = 69.
  expect_error(
      d / "m-00001-of-00003.gguf",
      d / "m-00003-of-00003.gguf" + ": split.count is 4, the file name says 3 (at byte 69)");
}

TEST_CASE("GGUF metadata sets the architecture: per-layer KV heads, experts, sliding window",
          "[file]") {
  TempDir d;
  SECTION("a per-layer head_count_kv array sizes the KV cache layer by layer") {
    GgufWriter w;
    w.str("general.architecture", "llama")
        .u32("llama.block_count", 2)
        .u32("llama.embedding_length", 256);
    w.u32("llama.feed_forward_length", 512).u32("llama.attention.head_count", 8);
    w.u32s("llama.attention.head_count_kv", {2, 4}).vocab(16);
    w.tensor("token_embd.weight", kF16, {256, 16});
    w.write(d / "arr.gguf");
    const auto j = run_json(d / "arr.gguf");
    CHECK(j["model"]["n_head_kv"] == 4);  // the widest layer
    CHECK(j["model"]["assumed"] ==
          "llama.attention.head_count_kv varies by layer from 2 to 4: the KV cache is summed "
          "layer by layer");
    // 4096 cells x (2 + 4) heads x 32 (256 / 8) x 2 (K, V) x 2 B (f16) = 3 MiB, not 2 x 4 heads' 4
    // MiB.
    CHECK(j["vram"]["kv_cache_bytes"] == 4096 * (2 + 4) * 32 * 2 * 2);
  }
  SECTION("gemma3's sliding window shrinks the cache of 5 of every 6 layers") {
    GgufWriter w;
    w.str("general.architecture", "gemma3")
        .u32("gemma3.block_count", 6)
        .u32("gemma3.embedding_length", 256);
    w.u32("gemma3.feed_forward_length", 512)
        .u32("gemma3.attention.head_count", 8)
        .u32("gemma3.attention.head_count_kv", 4);
    w.u32("gemma3.attention.key_length", 64).u32("gemma3.attention.value_length", 64);
    w.u32("gemma3.attention.sliding_window", 512).u32("gemma3.context_length", 32768).vocab(16);
    w.tensor("token_embd.weight", kF16, {256, 16});
    w.write(d / "g.gguf");
    const auto j = run_json(d / "g.gguf" + " --ctx 8192");
    // 1 full layer x 8192 cells + 5 SWA layers x pad(512 + 512, 256) = 1024 cells;
    // per cell-layer 4 heads x 64 x 2 (K, V) x 2 B = 1024 B.
    CHECK(j["vram"]["kv_cache_bytes"] == (8192 + 5 * 1024) * 1024);
    CHECK(j["vram"]["kv_cells_swa"] == 1024);
  }
  SECTION("an MoE takes n_ff_exp from the expert tensors and counts active params") {
    GgufWriter w;
    w.str("general.architecture", "qwen3moe")
        .u32("qwen3moe.block_count", 1)
        .u32("qwen3moe.embedding_length", 256);
    w.u32("qwen3moe.attention.head_count", 8).u32("qwen3moe.attention.head_count_kv", 2);
    w.u32("qwen3moe.expert_count", 8).u32("qwen3moe.expert_used_count", 2).vocab(16);
    w.tensor("token_embd.weight", kF16, {256, 16})
        .tensor("blk.0.ffn_up_exps.weight", kQ8_0, {256, 128, 8});
    w.write(d / "moe.gguf");
    const auto i = run_json("inspect " + (d / "moe.gguf"));
    CHECK(i["architecture"]["n_ff_exp"] == 128);
    CHECK(i["architecture"]["n_expert"] == 8);
    // 4,096 + 262,144 x 2/8 = 69,632 active.
    CHECK(i["params"] == 4096 + 262144);
    CHECK(i["active_params"] == 4096 + 65536);
  }
  SECTION("an unknown architecture still gives exact weights, and says so") {
    GgufWriter w;
    w.str("general.architecture", "mystery")
        .u32("mystery.block_count", 1)
        .u32("mystery.embedding_length", 256);
    w.u32("mystery.feed_forward_length", 512).u32("mystery.attention.head_count", 8).vocab(16);
    w.tensor("token_embd.weight", kF16, {256, 16}).tensor("blk.0.x.weight", kBF16, {256, 256});
    w.write(d / "u.gguf");
    const auto j = run_json(d / "u.gguf");
    CHECK(j["model"]["weights_bytes"] == 8192 + 131072);
    CHECK(j["model"]["arch"] == "llama");
    CHECK(j["warnings"][0].get<std::string>().find(
              "architecture 'mystery' is not one llmsize knows") != std::string::npos);
  }
}

TEST_CASE("the file's type replaces --quant, with a warning when one was given", "[file]") {
  TempDir d;
  tiny_llama(1, kQ4_K, kQ6_K).write(d / "t.gguf");
  const auto j = run_json(d / "t.gguf" + " --quant q8_0");
  CHECK(j["settings"]["quant"] == "q4_k_m");
  bool warned = false;
  for (const auto& w : j["warnings"])
    warned |= w.get<std::string>() ==
              "--quant q8_0 is ignored: the file's tensors give the weights (q4_k_m)";
  CHECK(warned);
  const auto table = run(d / "t.gguf");
  CHECK(table.code == 0);
  CHECK(table.out.find("q4_k_m") != std::string::npos);
}

TEST_CASE("a weights file refuses --no-mtp: its tensors are what llama.cpp loads", "[file]") {
  TempDir d;
  tiny_llama(1, kQ4_K, kQ6_K).write(d / "t.gguf");
  expect_error(d / "t.gguf" + " --no-mtp",
               "--no-mtp: " + (d / "t.gguf") +
                   " is a weights file, sized by its own tensors (llama.cpp loads the MTP layers "
                   "a GGUF holds); the option applies to a catalog model or a config.json");
}

TEST_CASE("inspect describes a GGUF: format, architecture, histogram, file type", "[file]") {
  TempDir d;
  tiny_llama(2, kQ4_K, kQ6_K).write(d / "tiny.gguf");
  const auto j = run_json("inspect " + (d / "tiny.gguf"));
  CHECK(j["format"] == "gguf");
  CHECK(j["version"] == 3);
  CHECK(j["tensor_count"] == 3 + 2 * 9);
  CHECK(j["metadata_count"] == 11);
  CHECK(j["params"] == 1639680);
  CHECK(j["weights_bytes"] == 1061888);
  CHECK(j["file_type"]["quant"] == "q4_k_m");
  CHECK(j["file_type"]["description"] == "Q4_K_M (general.file_type 15)");
  CHECK(j["n_ctx_train"] == 8192);
  CHECK(j["architecture"]["n_vocab"] == 1024);
  // 8 x 1,061,888 / 1,639,680 = 5.1810 bits per weight.
  CHECK(j["bits_per_weight"] == Approx(5.1810).margin(1e-4));
  // q4_K: 2 x 425,984 + 262,144 (token_embd) elements, 2 x 239,616 + 147,456 bytes.
  CHECK(j["tensor_types"][0] == json({{"type", "q4_K"},
                                      {"tensors", 13},
                                      {"elements", 1114112},
                                      {"bytes", 626688},
                                      {"bits_per_weight", 4.5}}));
  CHECK(j["tensor_types"][1]["type"] == "q6_K");
  CHECK(j["tensor_types"][1]["tensors"] == 3);
  CHECK(j["tensor_types"][2]["type"] == "f32");
  const auto t = run("inspect " + (d / "tiny.gguf"));
  CHECK(t.code == 0);
  for (const char* s : {"GGUF v3", "Q4_K_M (general.file_type 15)", "n_layer 2",
                        "8,192 tokens trained", "q4_K", "q6_K"}) {
    INFO(s);
    CHECK(t.out.find(s) != std::string::npos);
  }
}

// ---- safetensors ----

TEST_CASE("a safetensors directory: config.json for the architecture, headers for the weights",
          "[file]") {
  TempDir d;
  write_file(d / "config.json", kTinyConfig);
  SafetensorsWriter s1, s2;
  s1.tensor("model.embed_tokens.weight", "BF16", {1024, 256})
      .tensor("model.norm.weight", "F32", {256});
  s2.tensor("model.layers.0.self_attn.q_proj.weight", "F8_E4M3", {256, 256})
      .tensor("model.layers.0.self_attn.q_proj.weight_scale", "F32", {})
      .tensor("lm_head.weight", "BF16", {1024, 256});
  s1.write(d / "model-00001-of-00002.safetensors");
  s2.write(d / "model-00002-of-00002.safetensors");
  // 262,144 x 2 + 256 x 4 = 525,312 B; 65,536 x 1 + 4 + 262,144 x 2 = 589,828 B.
  const uint64_t bytes = 525312 + 589828;
  REQUIRE(s1.data_bytes() + s2.data_bytes() == bytes);
  const uint64_t params = s1.n_elements() + s2.n_elements();  // 262,400 + 327,681
  CHECK(params == 590081);
  const auto j = run_json(d.path());
  CHECK(j["model"]["source"] == "safetensors");
  CHECK(j["model"]["name"] == "tiny/llama-st");
  CHECK(j["model"]["weights_bytes"] == bytes);
  CHECK(j["model"]["params"] == params);
  CHECK(j["vram"]["weights_host_bytes"] == 0);
  CHECK(j["vram"]["weights_bytes"] == bytes);  // vLLM/transformers: every weight on the GPU
  CHECK(j["settings"]["quant"] == "hf-bf16");
  CHECK(j["model"]["n_ctx_train"] == 4096);

  write_file(d / "model.safetensors.index.json",
             R"({"metadata": {"total_size": 1115140}, "weight_map": {
               "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
               "model.norm.weight": "model-00001-of-00002.safetensors",
               "model.layers.0.self_attn.q_proj.weight": "model-00002-of-00002.safetensors",
               "model.layers.0.self_attn.q_proj.weight_scale": "model-00002-of-00002.safetensors",
               "lm_head.weight": "model-00002-of-00002.safetensors"}})");
  const auto ix = run_json(d / "model.safetensors.index.json");
  CHECK(ix["model"]["weights_bytes"] == bytes);
  CHECK(ix["model"]["params"] == params);
  const auto i = run_json("inspect " + (d / "model.safetensors.index.json"));
  CHECK(i["files"].size() == 4);  // index, two shards, config.json
  CHECK(i["tensor_types"][0]["type"] == "BF16");
  CHECK(i["tensor_types"][1]["type"] == "F8_E4M3");
  CHECK(i["tensor_types"][1]["bytes"] == 65536);
  CHECK(i["architecture"]["n_layer"] == 2);

  write_file(
      d / "model.safetensors.index.json",
      R"({"weight_map": {"model.embed_tokens.weight": "model-00002-of-00002.safetensors"}})");
  expect_error(d / "model.safetensors.index.json",
               d / "model.safetensors.index.json" +
                   ": /weight_map/model.embed_tokens.weight names "
                   "model-00002-of-00002.safetensors, which holds no such tensor");
}

TEST_CASE(
    "a single safetensors file needs a config.json beside it for the estimate, not for inspect",
    "[file]") {
  TempDir d;
  SafetensorsWriter s;
  s.tensor("w", "F16", {4, 8});
  s.write(d / "model.safetensors");
  expect_error(d / "model.safetensors", d / "model.safetensors" +
                                            ": no config.json beside it: safetensors headers hold "
                                            "the tensors, not the architecture (layers, heads) "
                                            "that the KV cache needs");
  const auto i = run_json("inspect " + (d / "model.safetensors"));
  CHECK(i["params"] == 32);
  CHECK(i["weights_bytes"] == 64);
  CHECK(i["architecture"].is_null());
}

// ---- hostile files: exit 2 with the file, what is wrong and the byte offset ----

TEST_CASE("hostile GGUF headers exit 2 naming the file, the fault and the byte",
          "[file][hostile]") {
  TempDir d;
  const std::string p = d / "h.gguf";
  // Header layout (gguf.md): magic 0-3, version 4-7, tensor count 8-15, metadata count 16-23,
  // then key/values from byte 24.
  SECTION("truncated inside the version") {
    write_sparse(p, std::string("GGUF\x03\x00", 6), 6);
    expect_error(p, p + ": truncated: version needs 4 bytes, 2 remain (at byte 4)");
  }
  SECTION("truncated inside a key") {
    GgufWriter w;
    w.str("general.architecture", "llama");
    write_sparse(p, w.header().substr(0, 42), 42);
    // The key's length (20) at byte 24 is more than the 10 bytes after it.
    expect_error(
        p, p + ": key length 20 runs past the end of the file (10 bytes remain) (at byte 24)");
  }
  SECTION("not a GGUF file") {
    write_sparse(p, "GGML\x01\x00\x00\x00", 8);
    expect_error(p, p + ": not a GGUF file: starts with 47 47 4d 4c, expected 47 47 55 46 "
                        "(\"GGUF\") (at byte 0)");
  }
  SECTION("version 1") {
    GgufWriter w;
    w.version = 1;
    w.write(p);
    expect_error(p, p + ": GGUF version 1 is not supported (versions 2 and 3 are) (at byte 4)");
  }
  SECTION("a tensor count larger than the file could hold") {
    GgufWriter w;
    w.tensor_count = 1000000;
    w.write(p);  // 24 bytes of header padded to 32: 8 bytes remain after the counts
    expect_error(p, p + ": tensor count 1000000 needs at least 24000000 bytes of tensor infos, "
                        "only 8 remain (at byte 8)");
  }
  SECTION("a metadata count larger than the file could hold") {
    GgufWriter w;
    w.kv_count = 1ull << 40;
    w.write(p);
    // Each key/value takes at least 13 bytes: 2^40 x 13 = 14,293,651,161,088.
    expect_error(p, p + ": metadata count 1099511627776 needs at least 14293651161088 bytes, only "
                        "8 remain (at byte 16)");
  }
  SECTION("a string length of 2^63") {
    GgufWriter w;
    w.kv("general.name", GgufWriter::STRING, ByteWriter().u64(1ull << 63).buf);
    w.write(p);
    // Key at 24 (8 + 12 bytes), type at 44, the value's length at 48; the file is padded to 64.
    expect_error(p, p + ": string value length 9223372036854775808 runs past the end of the file "
                        "(8 bytes remain) (at byte 48)");
  }
  SECTION("an array claiming 2^62 elements") {
    GgufWriter w;
    w.kv("tokenizer.ggml.tokens", GgufWriter::ARRAY,
         ByteWriter().u32(GgufWriter::STRING).u64(1ull << 62).buf);
    w.write(p);
    // Key at 24 (8 + 21), type at 53, element type at 57, length at 61; file padded to 96.
    expect_error(p, p + ": array 'tokenizer.ggml.tokens' of 4611686018427387904 string needs at "
                        "least more than 2^64 "
                        "bytes, only 27 remain (at byte 61)");
  }
  SECTION("tensor data past the end of the file") {
    GgufWriter w;
    w.tensor("w", kF32, {1024});
    w.write(p, w.file_size() - 4);
    // Infos end at 24 + 8 + 1 + 4 + 8 + 4 + 8 = 57, padded to 64; 4,096 data bytes; 4 cut off.
    expect_error(p, p + ": tensor 'w' data (4096 bytes at offset 0 after byte 64) runs past the "
                        "end of the file (4156 bytes) (at byte 24)");
  }
  SECTION("an offset past the end of the file") {
    GgufWriter w;
    w.tensor("w", kF32, {8}, 1ull << 40);
    w.write(p, 96);
    expect_error(p, p + ": tensor 'w' data (32 bytes at offset 1099511627776 after byte 64) runs "
                        "past the end of the file (96 bytes) (at byte 24)");
  }
  SECTION("overlapping tensors") {
    GgufWriter w;
    w.tensor("a", kF32, {64}).tensor("b", kF32, {64}, 128);
    w.write(p);
    // 'b' info starts at 24 + 33 = 57.
    expect_error(
        p,
        p + ": tensor 'b' data at offset 128 overlaps tensor 'a' (offsets 0 to 256) (at byte 57)");
  }
  SECTION("an unknown ggml type id") {
    GgufWriter w;
    w.raw_tensor("w", 77, {32}, 0);
    w.write(p, 256);
    // Name at 24 (8 + 1), n_dims at 33, one dimension 37-44, type at 45.
    expect_error(p, p + ": tensor 'w' has unknown ggml type id 77 (at byte 45)");
  }
  SECTION("a removed ggml type id") {
    GgufWriter w;
    w.raw_tensor("w", 4, {32}, 0);  // Q4_2, removed from ggml
    w.write(p, 256);
    expect_error(p, p + ": tensor 'w' has unknown ggml type id 4 (at byte 45)");
  }
  SECTION("dimensions whose product overflows 64 bits") {
    GgufWriter w;
    w.raw_tensor("big", 0, {1ull << 32, 1ull << 32}, 0);
    w.write(p, 256);
    // n_dims at 24 + 8 + 3 = 35, the dimensions from 39.
    expect_error(p, p + ": tensor 'big' shape 4294967296 x 4294967296 has more elements than fit "
                        "in 63 bits (at byte 39)");
  }
  SECTION("a size in bytes that overflows 64 bits") {
    GgufWriter w;
    w.raw_tensor("big", 0, {1ull << 31, 1ull << 31}, 0);  // 2^62 F32 elements = 2^64 bytes
    w.write(p, 256);
    expect_error(p, p + ": tensor 'big' shape 2147483648 x 2147483648 in f32 has more bytes than "
                        "fit in 64 bits (at byte 39)");
  }
  SECTION("a non-UTF-8 tensor name") {
    GgufWriter w;
    w.raw_tensor("bad\xff", 0, {8}, 0);
    w.write(p, 256);
    // The name's bytes start at 32; 0xff is the fourth.
    expect_error(p, p + ": tensor name 'bad\\xff' is not valid UTF-8 (at byte 35)");
  }
  SECTION("a non-UTF-8 key") {
    GgufWriter w;
    w.kv("general.\xc0name", GgufWriter::U32, ByteWriter().u32(1).buf);
    w.write(p);
    expect_error(p, p + ": metadata key 'general.\\xc0name' is not valid UTF-8 (at byte 40)");
  }
  SECTION("a duplicate tensor name") {
    GgufWriter w;
    w.tensor("a", kF32, {8}).tensor("a", kF32, {8});
    w.write(p);
    expect_error(p, p + ": duplicate tensor name 'a' (at byte 57)");
  }
  SECTION("an alignment that is not a power of two") {
    GgufWriter w;
    w.u32("general.alignment", 48);
    w.write(p);
    // Key at 24 (8 + 17), type at 49, value at 53.
    expect_error(p, p + ": general.alignment 48 is not a power of two (at byte 53)");
  }
  SECTION("a misaligned tensor offset") {
    GgufWriter w;
    w.tensor("a", kF32, {8}, 4);
    w.write(p, 256);
    // Offset field after name (24 + 9), n_dims, one dimension and the type: byte 49.
    expect_error(p, p + ": tensor 'a' offset 4 is not a multiple of the alignment 32 (at byte 49)");
  }
  SECTION("a row that is not a whole number of blocks") {
    GgufWriter w;
    w.raw_tensor("q", 12, {100, 2}, 0);  // Q4_K blocks hold 256
    w.write(p, 256);
    expect_error(p, p + ": tensor 'q' rows of 100 elements are not a multiple of the q4_K block "
                        "size 256 (at byte 37)");
  }
  SECTION("arrays nested too deep") {
    ByteWriter b;
    for (int i = 0; i < 6; ++i) b.u32(GgufWriter::ARRAY).u64(1);
    b.u32(GgufWriter::U8).u64(0);
    GgufWriter w;
    w.kv("x", GgufWriter::ARRAY, b.buf);
    w.write(p);
    // Key at 24 (8 + 1), type at 33; the fifth nested array starts at 37 + 4 x 12 = 85.
    expect_error(p, p + ": arrays nested deeper than 4 in key 'x' (at byte 85)");
  }
}

TEST_CASE("hostile safetensors headers exit 2 naming the file, the fault and the byte",
          "[file][hostile]") {
  TempDir d;
  const std::string p = d / "h.safetensors";
  // Layout (safetensors README): 8-byte little-endian header length N, N bytes of JSON, then data.
  SECTION("truncated before the header length") {
    write_sparse(p, "abc", 3);
    expect_error(p, p + ": truncated: 3 bytes cannot hold the 8-byte header length of a "
                        "safetensors file (at byte 0)");
  }
  SECTION("a header claiming 2^60 bytes") {
    write_sparse(p, ByteWriter().u64(1ull << 60).raw("{}").buf, 10);
    expect_error(p, p + ": header length 1152921504606846976 exceeds the format's limit of "
                        "100000000 bytes (at byte 0)");
  }
  SECTION("a header longer than the file") {
    write_sparse(p, ByteWriter().u64(4096).raw("{}").buf, 10);
    expect_error(
        p, p + ": header length 4096 runs past the end of the file (2 bytes follow) (at byte 0)");
  }
  SECTION("a non-UTF-8 tensor name") {
    SafetensorsWriter::write_raw(
        p, "{\"a\xff\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[0,2]}}", 2);
    expect_error(p, p + ": the JSON header is not valid JSON: invalid string: ill-formed UTF-8 "
                        "byte (at byte 11)");
  }
  SECTION("not JSON") {
    SafetensorsWriter::write_raw(p, "{\"a\": ", 0);
    // The 6-byte header ends at byte 14, where a value was expected.
    expect_error(p, p + ": the JSON header is not valid JSON: unexpected end of input; expected "
                        "'[', '{', or a literal (at byte 14)");
  }
  SECTION("data offsets past the end") {
    SafetensorsWriter::write_raw(p, R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                                 8);
    // Header of 55 bytes: data from byte 63, 8 bytes of it.
    expect_error(p, p + ": tensor \"w\" data [0, 16) runs past the end of the file (the byte "
                        "buffer holds 8 bytes) (at byte 63)");
  }
  SECTION("overlapping tensors") {
    SafetensorsWriter::write_raw(
        p,
        R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},"b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
        16);
    expect_error(p, p + ": tensor \"b\" data [8, 16) overlaps tensor \"a\" [0, 16) (at byte 125)");
  }
  SECTION("a hole in the byte buffer") {
    SafetensorsWriter::write_raw(p, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                                 16);
    expect_error(p, p + ": the byte buffer has a hole of 8 bytes before tensor \"a\" (at byte 63)");
  }
  SECTION("offsets that disagree with dtype and shape") {
    SafetensorsWriter::write_raw(p, R"({"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,6]}})",
                                 6);
    expect_error(
        p,
        p + ": tensor \"a\": data_offsets [0, 6] hold 6 bytes, but BF16 [4] needs 8 (at byte 9)");
  }
  SECTION("dimensions whose product overflows 64 bits") {
    SafetensorsWriter::write_raw(
        p, R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", 0);
    expect_error(p, p + ": tensor \"a\" shape [4294967296, 4294967296] has more elements than fit "
                        "in 64 bits (at byte 9)");
  }
  SECTION("an unknown dtype") {
    SafetensorsWriter::write_raw(p, R"({"a":{"dtype":"Q4","shape":[4],"data_offsets":[0,2]}})", 2);
    expect_error(p,
                 p + ": tensor \"a\" has unknown or unsupported dtype \"Q4\" (supported: F64, F32, "
                     "F16, BF16, F8_E4M3, "
                     "F8_E5M2, F8_E8M0, I64, U64, I32, U32, I16, U16, I8, U8, BOOL) (at byte 9)");
  }
  SECTION("a duplicate tensor name") {
    SafetensorsWriter::write_raw(
        p,
        R"({"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[],"data_offsets":[4,8]}})",
        8);
    // The second "a", header byte 53.
    expect_error(p, p + ": duplicate tensor name \"a\" (at byte 61)");
  }
  SECTION("a duplicate __metadata__ key") {
    SafetensorsWriter::write_raw(
        p,
        R"({"__metadata__":{"format":"pt","format":"x"},"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})",
        4);
    // The second "format", header byte 31 (after the 8-byte length).
    expect_error(p, p + ": __metadata__: duplicate key \"format\" (at byte 39)");
  }
}

// Issue 9: `llmsize inspect FILE` shows the per-layer pattern compactly, and a GGUF of an
// architecture llmsize does not model gets exact weights and a KV estimate from the generic keys.
TEST_CASE("inspect shows a hybrid GGUF's layer pattern and an unknown one's KV is generic",
          "[file]") {
  TempDir d;
  // Qwen3.5 (llama.cpp de3ff815 src/models/qwen35.cpp load_arch_tensors): 8 blocks, gated
  // delta-net in 3 of every 4 (no attn_q; attn_qkv, attn_gate, ssm_*), full attention in the 4th.
  GgufWriter w;
  w.str("general.architecture", "qwen35").str("general.name", "hybrid").vocab(512);
  w.u32("qwen35.block_count", 8).u32("qwen35.embedding_length", 256);
  w.u32("qwen35.context_length", 4096).u32("qwen35.feed_forward_length", 512);
  w.u32("qwen35.attention.head_count", 4).u32("qwen35.attention.head_count_kv", 1);
  w.u32("qwen35.attention.key_length", 64).u32("qwen35.attention.value_length", 64);
  w.u32("qwen35.full_attention_interval", 4).u32("qwen35.ssm.conv_kernel", 4);
  w.u32("qwen35.ssm.state_size", 32).u32("qwen35.ssm.group_count", 2);
  w.u32("qwen35.ssm.time_step_rank", 4).u32("qwen35.ssm.inner_size", 128);
  w.tensor("token_embd.weight", kF16, {256, 512}).tensor("output_norm.weight", kF32, {256});
  w.tensor("output.weight", kF16, {256, 512});
  for (int il = 0; il < 8; ++il) {
    const std::string p = "blk." + std::to_string(il) + ".";
    w.tensor(p + "attn_norm.weight", kF32, {256})
        .tensor(p + "post_attention_norm.weight", kF32, {256});
    if (il % 4 == 3) {
      w.tensor(p + "attn_q.weight", kF16, {256, 512}).tensor(p + "attn_k.weight", kF16, {256, 64});
      w.tensor(p + "attn_v.weight", kF16, {256, 64})
          .tensor(p + "attn_output.weight", kF16, {256, 256});
      w.tensor(p + "attn_q_norm.weight", kF32, {64}).tensor(p + "attn_k_norm.weight", kF32, {64});
    } else {
      w.tensor(p + "attn_qkv.weight", kF16, {256, 256})
          .tensor(p + "attn_gate.weight", kF16, {256, 128});
      w.tensor(p + "ssm_conv1d.weight", kF32, {4, 256}).tensor(p + "ssm_dt.bias", kF32, {4});
      w.tensor(p + "ssm_a", kF32, {4}).tensor(p + "ssm_beta.weight", kF16, {256, 4});
      w.tensor(p + "ssm_alpha.weight", kF16, {256, 4}).tensor(p + "ssm_norm.weight", kF32, {32});
      w.tensor(p + "ssm_out.weight", kF16, {128, 256});
    }
    w.tensor(p + "ffn_gate.weight", kF16, {256, 512})
        .tensor(p + "ffn_down.weight", kF16, {512, 256});
    w.tensor(p + "ffn_up.weight", kF16, {256, 512});
  }
  w.write(d / "hybrid.gguf");
  const std::string pattern = "2 × (3 × gated delta-net + 1 × full attention)";
  const auto t = run("inspect " + (d / "hybrid.gguf"));
  INFO(t.err);
  REQUIRE(t.code == 0);
  CHECK(t.out.find("Layers        " + pattern) != std::string::npos);
  const auto j = run_json("inspect " + (d / "hybrid.gguf"));
  CHECK(j["architecture"]["layer_pattern"] == pattern);
  CHECK(j["weights_bytes"] == w.data_bytes());
  // The estimate: 2 full layers x 4,096 cells x (1 x 64 K + 1 x 64 V) x 2 B; 6 delta-net layers
  // of r = 3 x (2 x 64 + 128) = 768 and s = 32 x 128 = 4,096 F32 values.
  const auto e = run_json(d / "hybrid.gguf");
  CHECK(e["vram"]["kv_full_bytes"] == 2ull * 4096 * 256);
  CHECK(e["vram"]["recurrent_state_bytes"] == 6ull * (768 + 4096) * 4);

  // An architecture llmsize does not know: 2 blocks, 8 heads, no head_count_kv (llama.cpp's
  // default: as many as the heads), head size 256 / 8 = 32: 2 layers x 4,096 cells x 8 x 32 x
  // (K + V) x 2 B = 8 MiB, and the warning names what is generic.
  GgufWriter u;
  u.str("general.architecture", "mystery2").u32("mystery2.block_count", 2);
  u.u32("mystery2.embedding_length", 256).u32("mystery2.attention.head_count", 8).vocab(16);
  u.u32("mystery2.feed_forward_length", 512);
  u.tensor("token_embd.weight", kF16, {256, 16}).tensor("blk.0.x.weight", kQ8_0, {256, 256});
  u.tensor("blk.1.x.weight", kQ8_0, {256, 256});
  u.write(d / "u2.gguf");
  const auto g = run_json(d / "u2.gguf");
  CHECK(g["model"]["weights_bytes"] == u.data_bytes());
  CHECK(g["vram"]["kv_cache_bytes"] == 2ull * 4096 * 8 * 32 * 2 * 2);
  bool generic = false;
  for (const auto& x : g["warnings"])
    generic |= x.get<std::string>().find("KV cache and buffers use the generic llama formula") !=
               std::string::npos;
  CHECK(generic);
}
