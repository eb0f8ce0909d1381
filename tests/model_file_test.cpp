// The header parsers on images in memory (GGUF, safetensors, the index), and every fuzzing
// corpus input, including the regressions of past findings, replayed through its parser.
#include <catch2/catch.hpp>

#include <dirent.h>

#include <fstream>
#include <sstream>

#include "llmsize/io/bench_result.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/gguf.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/model_file.hpp"
#include "llmsize/io/safetensors.hpp"
#include "model_file_writer.hpp"

using namespace llmsize;
using namespace llmsize::test;

namespace {

// The whole file: header and zeroed tensor data.
std::string image(const GgufWriter& w) {
  std::string s = w.header();
  s.resize(w.file_size(), '\0');
  return s;
}

std::string st_image(const SafetensorsWriter& w) {
  ByteWriter b;
  b.u64(w.header_json().size()).raw(w.header_json());
  b.buf.resize(b.buf.size() + w.data_bytes(), '\0');
  return b.buf;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> v;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') v.push_back(dir + "/" + e->d_name);
    ::closedir(d);
  }
  return v;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("GGUF metadata values keep their types, tensor infos their shapes and offsets",
          "[gguf]") {
  GgufWriter w;
  w.version = 2;
  w.alignment = 64;
  w.u32("general.alignment", 64).i32("x.neg", -5).f32("x.eps", 0.5f).str("general.name", "m");
  w.u32s("x.arr", {1, 2, 3});
  w.tensor("a", kQ8_0, {64, 2}).tensor("b", kF16, {3});
  const GgufFile f = parse_gguf(image(w), "mem.gguf");
  CHECK(f.version == 2);
  CHECK(f.alignment == 64);
  CHECK(f.data_offset % 64 == 0);
  CHECK(f.find("x.neg")->as_int() == -5);
  CHECK_FALSE(f.find("x.neg")->as_uint());
  CHECK(f.find("x.eps")->as_real() == 0.5);
  CHECK(*f.find("general.name")->as_string() == "m");
  CHECK(f.find("x.arr")->n == 3);
  CHECK(f.find("x.arr")->items[2].as_uint() == 3u);
  CHECK(f.find("missing") == nullptr);
  REQUIRE(f.tensors.size() == 2);
  // a: 2 rows of 64 Q8_0 = 2 blocks x 34 B each = 136 B; b follows at the next multiple of 64.
  CHECK(f.tensors[0].bytes == 136);
  CHECK(f.tensors[0].type == TensorType::Q8_0);
  CHECK(f.tensors[1].offset == 192);
  CHECK(f.tensors[1].bytes == 6);
  CHECK(f.tensor_bytes() == 142);
}

TEST_CASE("GGUF split names list every shard, other names only themselves", "[gguf]") {
  CHECK(gguf_split_paths("/m/x-00002-of-00003.gguf") ==
        std::vector<std::string>{"/m/x-00001-of-00003.gguf", "/m/x-00002-of-00003.gguf",
                                 "/m/x-00003-of-00003.gguf"});
  CHECK(gguf_split_paths("x.gguf") == std::vector<std::string>{"x.gguf"});
  CHECK(gguf_split_paths("x-00004-of-00003.gguf") ==
        std::vector<std::string>{"x-00004-of-00003.gguf"});
}

TEST_CASE("the GGUF architecture comes from {arch}.* keys and the tensors", "[gguf]") {
  GgufWriter w;
  w.str("general.architecture", "deepseek2")
      .u32("deepseek2.block_count", 2)
      .u32("deepseek2.embedding_length", 256);
  w.u32("deepseek2.feed_forward_length", 512).u32("deepseek2.attention.head_count", 8);
  w.u32("deepseek2.attention.kv_lora_rank", 64).u32("deepseek2.rope.dimension_count", 16);
  w.u32("deepseek2.attention.key_length", 80)
      .u32("deepseek2.attention.value_length", 64);  // latent sizes
  w.u32("deepseek2.attention.key_length_mla", 48).u32("deepseek2.attention.value_length_mla", 32);
  w.u32("deepseek2.leading_dense_block_count", 1)
      .u32("deepseek2.expert_count", 4)
      .u32("deepseek2.expert_used_count", 2);
  w.u32("deepseek2.expert_shared_count", 1).u32("deepseek2.context_length", 4096).vocab(32);
  w.tensor("token_embd.weight", kF16, {256, 32})
      .tensor("blk.1.ffn_up_exps.weight", kQ8_0, {256, 96, 4});
  w.tensor("blk.1.ffn_up_shexp.weight", kQ8_0, {256, 96});
  const auto a = gguf_arch({parse_gguf(image(w), "ds.gguf")});
  CHECK(a.known);
  CHECK(a.spec.arch == Arch::deepseek2);
  CHECK(a.spec.kv_lora_rank == 64);
  CHECK(a.spec.n_rot == 16);
  CHECK(a.spec.n_embd_head_k == 48);
  CHECK(a.spec.n_embd_head_v == 32);
  CHECK(a.spec.n_ff_exp == 96);    // from blk.1.ffn_up_exps ne[1]
  CHECK(a.spec.n_ff_shexp == 96);  // from blk.1.ffn_up_shexp ne[1]
  CHECK(a.spec.n_vocab == 32);
  CHECK(a.spec.tied_embeddings);
  CHECK(a.spec.n_embd_k_gqa() == 64 + 16);  // MLA caches the latent and the rope part
}

TEST_CASE("GGUF architecture faults name the file and the key", "[gguf]") {
  GgufWriter w;
  w.str("general.architecture", "llama").u32("llama.embedding_length", 256);
  CHECK_THROWS_MATCHES(
      gguf_arch({parse_gguf(image(w), "a.gguf")}), InputError,
      Catch::Message("a.gguf: llama.block_count: missing (needed for the architecture)"));
  GgufWriter s;
  s.str("general.architecture", "llama").str("llama.block_count", "two");
  // block_count's value follows the header (24), architecture (8 + 20 + 4 + 8 + 5) and its key
  // (8 + 17) and type (4): byte 98.
  CHECK_THROWS_MATCHES(
      gguf_arch({parse_gguf(image(s), "b.gguf")}), InputError,
      Catch::Message(
          "b.gguf: llama.block_count: expected a non-negative integer, got a string (at byte 98)"));
  GgufWriter n;
  CHECK_THROWS_MATCHES(gguf_arch({parse_gguf(image(n), "c.gguf")}), InputError,
                       Catch::Message("c.gguf: general.architecture: missing (the GGUF metadata "
                                      "does not say which model this is)"));
}

TEST_CASE("safetensors headers give dtypes, shapes and metadata, the buffer is covered exactly",
          "[safetensors]") {
  SafetensorsWriter w;
  w.metadata("format", "pt")
      .tensor("e", "BF16", {4, 8})
      .tensor("s", "F32", {})
      .tensor("z", "I8", {0, 3});
  w.tensor("q", "F8_E5M2", {16});
  const SafetensorsFile f = parse_safetensors(st_image(w), "m.safetensors");
  CHECK(f.metadata.at("format") == "pt");
  REQUIRE(f.tensors.size() == 4);
  CHECK(f.tensors[0].name == "e");
  CHECK(f.tensors[0].type == TensorType::BF16);
  CHECK(f.tensors[0].bytes() == 64);
  CHECK(f.tensors[1].n_elements == 1);  // a scalar: shape []
  CHECK(f.tensor_bytes() == 64 + 4 + 0 + 16);
  CHECK(tensor_type_from_safetensors_dtype("F8_E5M2") == TensorType::FP8_E4M3);  // both 1 byte
  CHECK_FALSE(tensor_type_from_safetensors_dtype("F4"));
}

TEST_CASE("long whitespace runs in a safetensors header keep its JSON and its byte offsets",
          "[safetensors]") {
  auto st = [](const std::string& h) { return ByteWriter().u64(h.size()).raw(h).buf + "12345678"; };
  const std::string run(5000, ' '), t = R"("a": {"dtype": "F16", "shape": [2, 2], )";
  // Whitespace outside strings is skipped; inside a string it is the string's own.
  const SafetensorsFile f =
      parse_safetensors(st("{" + run + R"("__metadata__": {"pad": ")" + run + R"("},)" + run + t +
                           "\n\t" + run + R"("data_offsets": [0, 8]})" + run + "}"),
                        "m.safetensors");
  REQUIRE(f.tensors.size() == 1);
  CHECK(f.tensors[0].end == 8);
  CHECK(f.metadata.at("pad") == run);
  // An error after runs names the file's own byte: 8 (the length) + 1 ("{") + 10,000 spaces =
  // 10009.
  CHECK_THROWS_MATCHES(parse_safetensors(st("{" + run + run + "x}"), "m.safetensors"), InputError,
                       Catch::Message("m.safetensors: the JSON header is not valid JSON: invalid "
                                      "literal (at byte 10009)"));
}

TEST_CASE("memory stays proportional to the file: hostile shapes are refused early",
          "[safetensors][gguf]") {
  auto st = [](const std::string& h) { return ByteWriter().u64(h.size()).raw(h).buf; };
  CHECK_THROWS_MATCHES(
      parse_safetensors(st(R"({"a":{"shape":[[1]]}})"), "m.safetensors"), InputError,
      // The inner '[' is header byte 15, file byte 23.
      Catch::Message(
          "m.safetensors: the JSON header nests deeper than a safetensors header (at byte 23)"));
  std::string dims = "[1";
  for (int i = 0; i < 64; ++i) dims += ",1";
  CHECK_THROWS_MATCHES(
      parse_safetensors(st(R"({"a":{"dtype":"F32","shape":)" + dims + "]}}"), "m.safetensors"),
      InputError,
      Catch::Message(
          "m.safetensors: tensor \"a\" has an array of more than 64 values (at byte 9)"));
  // 70,000 key/values would fit in the 1 MB that follows (13 bytes each at least), but no model
  // has more than tens: refused before any is stored.
  GgufWriter w;
  w.kv_count = 70000;
  std::string img = w.header();
  img.resize(1 << 20, '\0');
  CHECK_THROWS_MATCHES(parse_gguf(img, "k.gguf"), InputError,
                       Catch::Message("k.gguf: metadata count 70000 is more than the 65536 llmsize "
                                      "reads (models have tens) (at byte 16)"));
}

TEST_CASE("an index maps tensors to shard files beside it, and nowhere else", "[safetensors]") {
  const auto ix = parse_safetensors_index(
      R"({"metadata": {"total_size": 10}, "weight_map": {"a": "s1.safetensors", "b": "s2.safetensors", "c": "s1.safetensors"}})",
      "i.json");
  CHECK(ix.shards == std::vector<std::string>{"s1.safetensors", "s2.safetensors"});
  CHECK(ix.total_size == 10);
  CHECK_THROWS_MATCHES(
      parse_safetensors_index(R"({"weight_map": {"a": "../../etc/passwd"}})", "i.json"), InputError,
      Catch::Message(
          "i.json: /weight_map/a: shard \"../../etc/passwd\" is not a file beside the index"));
  CHECK_THROWS_MATCHES(
      parse_safetensors_index(R"({"weight_map": 3})", "i.json"), InputError,
      Catch::Message(
          "i.json: /weight_map: missing (expected an object of tensor name -> shard file)"));
}

TEST_CASE("a number beyond a double is a JSON error, not a crash (fuzzing finding)",
          "[hf_config]") {
  // nlohmann throws out_of_range 406, not parse_error, for "1e432"; found by fuzz_hf_config.
  CHECK_THROWS_MATCHES(
      parse_hf_config(R"({"model_type": "llama", "hidden_size": 1e432})", "config.json"),
      InputError, Catch::Message("config.json: not valid JSON (number overflow parsing '1e432')"));
  CHECK_THROWS_MATCHES(parse_safetensors_index(R"({"weight_map": {"a": 1e999}})", "i.json"),
                       InputError,
                       Catch::Message("i.json: not valid JSON (number overflow parsing '1e999')"));
  // The safetensors header has a parser of its own: 1e400 is valid JSON, but not a dimension.
  const std::string h = R"({"a":{"dtype":"F32","shape":[1e400],"data_offsets":[0,4]}})";
  CHECK_THROWS_MATCHES(parse_safetensors(ByteWriter().u64(h.size()).raw(h).buf, "m.safetensors"),
                       InputError,
                       Catch::Message("m.safetensors: tensor \"a\": shape holds 1e400, not a "
                                      "non-negative integer (at byte 9)"));
}

TEST_CASE("a token_embd with no rows adds up without dividing by zero (review finding)", "[gguf]") {
  GgufWriter w;
  w.str("general.architecture", "llama")
      .u32("llama.block_count", 1)
      .u32("llama.embedding_length", 64);
  w.u32("llama.feed_forward_length", 128).u32("llama.attention.head_count", 4).vocab(4);
  w.tensor("token_embd.weight", kF16, {64, 0});
  const ModelFile f = model_file_from_gguf({parse_gguf(image(w), "e.gguf")}, "e.gguf");
  CHECK(f.weights.bytes == 0);
  CHECK(f.weights.host_bytes == 0);
  CHECK(f.weights.active_bytes == 0);
}

TEST_CASE("every fuzzing corpus input parses or fails with InputError", "[fuzz]") {
  // fuzz/corpus/<target>/ holds the seeds and, as regression-*, each input a fuzzer found.
  const std::string corpus = LLMSIZE_FUZZ_CORPUS;
  size_t n = 0;
  for (const auto& path : files_in(corpus + "/gguf")) {
    INFO(path);
    const std::string bytes = slurp(path);
    try {
      (void)model_file_from_gguf({parse_gguf(bytes, path)}, path);
    } catch (const InputError&) {
    }
    ++n;
  }
  for (const auto& path : files_in(corpus + "/safetensors")) {
    INFO(path);
    const std::string bytes = slurp(path);
    try {
      (void)parse_safetensors(bytes, path);
    } catch (const InputError&) {
    }
    try {
      (void)parse_safetensors_index(bytes, path);
    } catch (const InputError&) {
    }
    ++n;
  }
  for (const auto& path : files_in(corpus + "/hf_config")) {
    INFO(path);
    try {
      (void)parse_hf_config(slurp(path), path);
    } catch (const InputError&) {
    }
    ++n;
  }
  for (const auto& path : files_in(corpus + "/bench_result")) {
    INFO(path);
    try {
      (void)io::parse_bench_results(slurp(path), path);
    } catch (const InputError&) {
    }
    ++n;
  }
  // Catalogs (odd first byte); plan files are replayed by the fuzz.plan_catalog_corpus test.
  for (const auto& path : files_in(corpus + "/plan_catalog")) {
    INFO(path);
    const std::string bytes = slurp(path);
    if (bytes.empty() || !(bytes[0] & 1)) continue;
    Catalog c;
    try {
      c.merge_json(std::string_view(bytes).substr(1), path);
    } catch (const InputError&) {
    }
    ++n;
  }
  CHECK(n >= 15);
}
