// Gemma 3n (Arch::gemma3n): llama.cpp src/models/gemma3n.cpp (the 2026 tree:
// llama_model_gemma3n::load_arch_hparams sets set_swa_pattern(5) and n_layer_kv_from_start = 20;
// load_arch_tensors adds altup_proj / altup_unembd_proj {n_embd, n_embd, n_altup - 1}, per layer
// altup_correct_coef {n_altup, n_altup}, altup_correct_scale, altup_predict_coef
// {n_altup, n_altup^2}, altup_router {n_embd, n_altup}, altup_router_norm, laurel_l / laurel_r
// (rank laurel_rank), laurel_post_norm, and the per-layer embedding tensors; every layer keeps
// attn_k / attn_v, the KV-sharing ones too).
#include <catch2/catch.hpp>
#include <cstdio>

#include "io/json_readers.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/model_file.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/model/quant.hpp"
#include "model_file_writer.hpp"
#include "test_util.hpp"

using namespace llmsize;
using namespace llmsize::test;

namespace {

KvCache kv_at(const ModelSpec& m, uint32_t n_seq, TensorType t) {
  KvCacheConfig c;
  c.n_ctx = 8192;
  c.n_seq = n_seq;
  c.type_k = c.type_v = t;
  return kv_cache(m, c);
}

}  // namespace

TEST_CASE("Gemma 3n E2B: AltUp, LAuReL and per-layer embeddings in the tensor list", "[gemma3n]") {
  const auto& m = model("gemma-3n-e2b");
  CHECK(m.arch == Arch::gemma3n);
  CHECK(m.n_altup == 4);
  CHECK(m.laurel_rank == 64);
  CHECK(m.n_embd_per_layer == 256);
  CHECK(m.n_vocab == 262144);  // vocab_size_per_layer_input: token_embd and the PLE table alike
  // 20 layers with a cache (4 sliding : 1 full), the last 10 reuse it.
  CHECK(layer_pattern(m).find("shared") != std::string::npos);
  // Global: token_embd 2,048 x 262,144 = 536,870,912; per_layer_token_embd (256 x 30) x 262,144
  // = 2,013,265,920; per_layer_model_proj 2,048 x 7,680 = 15,728,640; per_layer_proj_norm 256;
  // output_norm 2,048; altup_proj and altup_unembd_proj 2 x 2,048 x 2,048 x 3 = 25,165,824.
  // Per layer: 8 norms of 2,048 = 16,384; q/k norms 512; q, o 2 x 2,048 x 2,048 and k, v
  // 2 x 2,048 x 512 = 10,485,760; FFN 3 x 2,048 x 8,192 = 50,331,648; per-layer gate + proj
  // 2 x 2,048 x 256 = 1,048,576; AltUp 16 + 64 + 8,192 = 8,272; LAuReL 2 x 2,048 x 64 = 262,144
  // -> 62,153,296 x 30 = 1,864,598,880. Total 4,455,632,480 (Google's "5B raw, 2B effective":
  // the text model without its two embedding tables is 1.91 B).
  const auto p = count_params(m, model_tensors(m));
  CHECK(p.total == 4455632480ull);
  bool altup = false, laurel = false, shared_k = false;
  for (const auto& t : model_tensors(m)) {
    altup |= t.name() == "altup_unembd_proj.weight" && t.n_dims == 3 && t.ne[2] == 3;
    laurel |= t.name() == "blk.29.laurel_r.weight";
    shared_k |= t.name() == "blk.29.attn_k.weight";  // a KV-sharing layer keeps its attn_k
  }
  CHECK(altup);
  CHECK(laurel);
  CHECK(shared_k);
}

TEST_CASE("Gemma 3n KV: only the first 20 layers cache, 16 sliding and 4 full", "[gemma3n]") {
  const auto& m = model("gemma-3n-e2b");
  struct Row {
    uint32_t n_seq;
    TensorType t;
    uint64_t bytes;
  };
  // K and V rows of 2 heads x 256: f16 1,024 B each; q8_0 16 blocks x 34 B = 544 B each.
  // Full layers (4, 9, 14, 19): 8,192 cells; sliding: pad(min(8,192, 512 + n_ubatch 512), 256)
  // = 1,024 cells. f16: 4 x 8,192 x 2,048 + 16 x 1,024 x 2,048 = 100,663,296 B per sequence;
  // q8_0: 4 x 8,192 x 1,088 + 16 x 1,024 x 1,088 = 53,477,376 B.
  const Row rows[] = {
      {1, TensorType::F16, 100663296},
      {4, TensorType::F16, 4 * 100663296ull},
      {1, TensorType::Q8_0, 53477376},
      {4, TensorType::Q8_0, 4 * 53477376ull},
  };
  for (const auto& r : rows) {
    INFO(r.n_seq << " " << traits(r.t).name);
    CHECK(kv_at(m, r.n_seq, r.t).total_bytes() == r.bytes);
  }
}

TEST_CASE("A Gemma 3n GGUF reads back with exact weights and the same KV", "[gemma3n]") {
  // 25 layers so that llama.cpp's n_layer_kv_from_start 20 leaves 5 sharing layers.
  std::string layers = "[";
  for (int il = 0; il < 25; ++il)
    layers +=
        std::string(il ? ", " : "") + (il % 5 < 4 ? "\"sliding_attention\"" : "\"full_attention\"");
  layers += "]";
  const ModelSpec m = model_from_hf_config(
      nlohmann::json::parse(R"({"model_type": "gemma3n", "text_config": {"model_type":
          "gemma3n_text", "num_hidden_layers": 25, "hidden_size": 64, "intermediate_size": 128,
          "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
          "vocab_size": 160, "vocab_size_per_layer_input": 128, "hidden_size_per_layer_input": 8,
          "altup_num_inputs": 4, "laurel_rank": 4, "num_kv_shared_layers": 5,
          "sliding_window": 32, "max_position_embeddings": 4096, "layer_types": )" +
                            layers + "}}"),
      "small.json");
  REQUIRE(m.arch == Arch::gemma3n);
  GgufWriter w;
  w.str("general.architecture", "gemma3n").str("general.name", "test");
  w.u32("gemma3n.block_count", 25).u32("gemma3n.embedding_length", 64);
  w.u32("gemma3n.context_length", 4096).u32("gemma3n.feed_forward_length", 128);
  w.u32("gemma3n.attention.head_count", 4).u32("gemma3n.attention.head_count_kv", 2);
  w.u32("gemma3n.attention.key_length", 16).u32("gemma3n.attention.value_length", 16);
  w.u32("gemma3n.attention.sliding_window", 32);
  w.u32("gemma3n.embedding_length_per_layer_input", 8);
  const auto tensors = model_tensors(m);
  const auto types = assign_tensor_types(m, tensors, *find_quant_preset("f16"));
  for (size_t i = 0; i < tensors.size(); ++i)
    w.tensor(
        tensors[i].name(), types[i] == TensorType::F32 ? kF32 : kF16,
        std::vector<uint64_t>(tensors[i].ne.begin(), tensors[i].ne.begin() + tensors[i].n_dims));
  const std::string path = "/tmp/llmsize_gemma3n_test.gguf";
  w.write(path);
  const ModelFile f = read_model_file(path);
  std::remove(path.c_str());
  REQUIRE(f.spec);
  CHECK(f.arch_known);
  const ModelSpec& g = *f.spec;
  CHECK(g.arch == Arch::gemma3n);
  CHECK(g.n_altup == 4);
  CHECK(g.laurel_rank == 4);
  CHECK(g.n_embd_per_layer == 8);
  CHECK(f.weights.bytes == w.data_bytes());
  const Weights cw = compute_weights(g, *find_quant_preset("f16"));
  CHECK(cw.bytes == w.data_bytes());
  CHECK(cw.params == f.weights.params);
  CHECK(layer_pattern(g) == layer_pattern(m));
  for (uint32_t n_seq : {1u, 4u})
    for (TensorType t : {TensorType::F16, TensorType::Q8_0})
      CHECK(kv_at(g, n_seq, t).total_bytes() == kv_at(m, n_seq, t).total_bytes());
}
