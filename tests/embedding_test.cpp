// Embedding and rerank models (ModelSpec::task): the BERT / XLM-RoBERTa encoder layout of
// llama.cpp (src/models/bert.cpp llama_model_bert::load_arch_tensors, read at ggml-org/llama.cpp
// master of 2026; convert_hf_to_gguf.py BertModel / XLMRobertaModel), its config.json and GGUF
// readers, and an embedding batch's memory: no cache for an encoder (llama_model::create_memory
// returns nullptr for LLM_ARCH_BERT), only the batch's own tokens for a decoder-based embedder.
#include <catch2/catch.hpp>
#include <cstdio>

#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/model_file.hpp"
#include "llmsize/memory/compute_buffer.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/quant.hpp"
#include "model_file_writer.hpp"
#include "test_util.hpp"

using namespace llmsize;
using namespace llmsize::test;

namespace {

RunConfig embedding_config(uint32_t docs, uint32_t doc_len, const char* quant = "f16") {
  RunConfig c;
  c.quant = find_quant_preset(quant);
  c.kv.n_seq = docs;
  c.kv.n_ctx = doc_len;
  return c;
}

// A BERT GGUF with llama.cpp's keys (llama-arch.cpp LLM_KV_*) and the tensors llmsize lists for
// llama.cpp, in the types an f16 conversion gives them.
GgufWriter bert_gguf(const ModelSpec& m, uint32_t pooling) {
  GgufWriter w;
  w.str("general.architecture", "bert").str("general.name", "test");
  w.u32("bert.block_count", m.n_layer).u32("bert.embedding_length", m.n_embd);
  w.u32("bert.context_length", m.n_ctx_train).u32("bert.feed_forward_length", m.n_ff);
  w.u32("bert.attention.head_count", m.n_head).u32("bert.pooling_type", pooling);
  const auto tensors = model_tensors(m);
  const auto types = assign_tensor_types(m, tensors, *find_quant_preset("f16"));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    w.tensor(t.name(), types[i] == TensorType::F32 ? kF32 : kF16,
             std::vector<uint64_t>(t.ne.begin(), t.ne.begin() + t.n_dims));
  }
  return w;
}

}  // namespace

TEST_CASE("BERT / XLM-RoBERTa encoders list llama.cpp's bert tensors", "[embedding]") {
  const auto& m = model("bge-m3");
  CHECK(m.arch == Arch::bert);
  CHECK(m.task == Task::embedding);
  CHECK(m.is_encoder());
  // XLMRobertaModel._position_offset = pad_token_id 1 + 1: 8,194 position rows - 2 = 8,192.
  CHECK(m.n_ctx_train == 8192);
  CHECK(m.n_token_types == 1);
  CHECK(m.n_cls_out == 0);
  const auto p = count_params(m, model_tensors(m));
  // token_embd 250,002 x 1,024 = 256,002,048; token_types 1,024 x 1; position_embd 1,024 x 8,192
  // = 8,388,608; token_embd_norm weight + bias 2,048; per layer q, k, v, o 4 x (1,024^2 + 1,024)
  // = 4,198,400, two LayerNorms 4,096, ffn_up 1,024 x 4,096 + 4,096 = 4,198,400, ffn_down
  // 4,096 x 1,024 + 1,024 = 4,195,328 -> 12,596,224 x 24 = 302,309,376. The HF total 567,754,752
  // also holds the pooler (1,049,600) and the two padding positions (2,048) the GGUF drops.
  CHECK(p.total == 566703104);
  CHECK(static_cast<double>(p.total) == Approx(567754752.0).epsilon(0.002));

  const auto& rr = model("bge-reranker-v2-m3");
  CHECK(rr.task == Task::rerank);
  CHECK(rr.n_cls_out == 1);  // id2label {"0": "LABEL_0"}
  // + cls 1,024 x 1,024 + 1,024 = 1,049,600 and cls.output 1,024 x 1 + 1 = 1,025.
  CHECK(count_params(rr, model_tensors(rr)).total == 566703104ull + 1049600 + 1025);
  bool cls = false, cls_out = false, output = false;
  for (const auto& t : model_tensors(rr)) {
    cls |= t.name() == "cls.weight";
    cls_out |= t.name() == "cls.output.bias";
    output |= t.name() == "output.weight";
  }
  CHECK(cls);
  CHECK(cls_out);
  CHECK_FALSE(output);
}

TEST_CASE("an encoder's weights: F32 positions and token types, token_embd in host memory",
          "[embedding]") {
  const auto& m = model("bge-m3");
  const Weights w = compute_weights(m, *find_quant_preset("f16"));
  // convert_hf_to_gguf.py writes POS_EMBD and TOKEN_TYPES in F32 ("Some tensor types are always
  // in float32"), 1-D tensors in F32, the rest F16: positions 8,388,608 x 4 = 33,554,432; token
  // types 4,096; token_embd_norm 8,192; per layer 13,312 biases and norms x 4 B = 53,248 (x 24 =
  // 1,277,952); token_embd 512,004,096; per layer 12,582,912 matrix values x 2 B = 25,165,824
  // (x 24 = 603,979,776). Sum 1,150,828,544.
  CHECK(w.bytes == 1150828544);
  // llama.cpp keeps token_embd on the host and has no output layer to duplicate it as.
  CHECK(w.host_bytes == 512004096);
  CHECK(w.vram_bytes == 1150828544 - 512004096);
  // llama-quantize leaves position_embd and token_types alone (llama-quant.cpp) at any preset.
  const auto tensors = model_tensors(m);
  const auto types = assign_tensor_types(m, tensors, *find_quant_preset("q4_k_m"));
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].role == TensorRole::position_embd || tensors[i].role == TensorRole::token_types)
      CHECK(types[i] == TensorType::F32);
}

TEST_CASE("an embedding batch: no KV for an encoder, the batch's tokens for a decoder",
          "[embedding]") {
  struct Row {
    const char* id;
    uint32_t docs;
    TensorType kv;
    uint64_t kv_bytes;
  };
  const Row rows[] = {
      // Encoders keep no cache, whatever the batch.
      {"bge-m3", 1, TensorType::F16, 0},
      {"bge-m3", 4, TensorType::Q8_0, 0},
      {"bge-reranker-v2-m3", 4, TensorType::F16, 0},
      // Qwen3-Embedding-8B: 36 layers x 8 KV heads x 128; 512 tokens per document (a multiple of
      // the 256-cell padding). f16: (2,048 + 2,048 B) x 36 x 512 = 75,497,472 B per document.
      {"qwen3-embedding-8b", 1, TensorType::F16, 75497472},
      {"qwen3-embedding-8b", 4, TensorType::F16, 4 * 75497472ull},
      // q8_0: 1,024 values = 32 blocks x 34 B = 1,088 B per row: (1,088 + 1,088) x 36 x 512.
      {"qwen3-embedding-8b", 1, TensorType::Q8_0, 40108032},
      {"qwen3-embedding-8b", 4, TensorType::Q8_0, 4 * 40108032ull},
  };
  for (const auto& r : rows) {
    INFO(r.id << " x " << r.docs);
    RunConfig c = embedding_config(r.docs, 512);
    c.kv.type_k = c.kv.type_v = r.kv;
    const Estimate e = estimate(model(r.id), c);
    CHECK(e.kv_cache_bytes == r.kv_bytes);
    CHECK(e.recurrent_state_bytes == 0);
  }
}

TEST_CASE("an embedding ubatch holds a whole document, its output is n_embd wide", "[embedding]") {
  // 2 documents of 2,048 tokens with the default n_ubatch 512: llama.cpp needs each document in
  // one ubatch (non-causal attention, pooling), so the graph is reserved for 2,048 tokens. The
  // output part is the hidden states 4 B x 2,048 x (n_embd 1,024 + n_embd 1,024) = 16,777,216 B,
  // not vocabulary logits (4 x 2,048 x 250,002 would be 1.9 GiB).
  const auto& m = model("bge-m3");
  const Estimate e = estimate(m, embedding_config(2, 2048));
  CHECK(e.compute.output_bytes == 16777216);
  ModelSpec out = m;
  out.n_vocab = m.n_embd;
  CHECK(e.compute.bytes() == compute_buffer(out, 2048, 2048, true).bytes());
  // A generating model keeps n_ubatch as given.
  const auto& g = model("qwen3-8b");
  RunConfig c = embedding_config(2, 2048);
  const Estimate eg = estimate(g, c);
  CHECK(eg.compute.bytes() == compute_buffer(g, eg.kv.cells_full, 512, true).bytes());
}

TEST_CASE("config.json of BERT and XLM-RoBERTa models", "[embedding]") {
  const auto m = parse_hf_config(R"({"architectures": ["BertModel"], "model_type": "bert",
      "hidden_size": 384, "num_hidden_layers": 12, "num_attention_heads": 12,
      "intermediate_size": 1536, "vocab_size": 30522, "max_position_embeddings": 512})",
                                 "bge-small.json");
  CHECK(m.arch == Arch::bert);
  CHECK(m.task == Task::embedding);
  CHECK(m.n_ctx_train == 512);   // BERT: no padding offset
  CHECK(m.n_token_types == 2);   // BertConfig's default type_vocab_size
  CHECK(m.n_embd_head_k == 32);  // 384 / 12
  // bge-small-en-v1.5's dims: token_embd 11,720,448 + types 768 + positions 196,608 + norm 768
  // + 12 x 1,774,464 = 33,212,160 in the GGUF. Its HF total 33,360,512 adds the pooler 147,840
  // and the 512 position_ids of the checkpoint.
  CHECK(count_params(m, model_tensors(m)).total == 33212160);

  const auto rr = parse_hf_config(R"({"architectures": ["XLMRobertaForSequenceClassification"],
      "model_type": "xlm-roberta", "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
      "max_position_embeddings": 514, "pad_token_id": 1, "type_vocab_size": 1})",
                                  "rr.json");
  CHECK(rr.task == Task::rerank);
  CHECK(rr.n_cls_out == 2);  // PretrainedConfig's num_labels without id2label
  CHECK(rr.n_ctx_train == 512);

  CHECK_THROWS_WITH(
      parse_hf_config(R"({"model_type": "bert", "hidden_size": 64, "num_hidden_layers": 2,
          "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100,
          "position_embedding_type": "relative_key"})",
                      "c.json"),
      "c.json: /position_embedding_type: \"relative_key\" is not supported (llama.cpp bert has "
      "learned absolute positions)");
  CHECK_THROWS_WITH(
      parse_hf_config(R"({"model_type": "xlm-roberta", "hidden_size": 64,
          "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
          "vocab_size": 100, "max_position_embeddings": 2, "pad_token_id": 1})",
                      "c.json"),
      "c.json: /max_position_embeddings: 2 leaves no position after the 2 padding rows "
      "(pad_token_id + 1)");
}

TEST_CASE("A BERT GGUF reads back as an encoder with exact weights", "[embedding]") {
  const std::string path = "/tmp/llmsize_embedding_test.gguf";
  for (const char* id : {"bge-m3", "bge-reranker-v2-m3"}) {
    INFO(id);
    ModelSpec m = model(id);
    // Cut down (4 layers, 512 tokens of vocabulary) to keep the file small; the layout is the
    // catalog model's.
    m.n_layer = 4;
    m.n_vocab = 512;
    const GgufWriter w = bert_gguf(m, m.task == Task::rerank ? 4 : 2);  // RANK / CLS pooling
    w.write(path);
    const ModelFile f = read_model_file(path);
    REQUIRE(f.spec);
    CHECK(f.arch_known);
    const ModelSpec& g = *f.spec;
    CHECK(g.arch == Arch::bert);
    CHECK(g.task == m.task);
    CHECK(g.n_token_types == m.n_token_types);
    CHECK(g.n_cls_out == m.n_cls_out);
    CHECK(g.n_ctx_train == 8192);
    CHECK_FALSE(g.tied_embeddings);
    CHECK(f.weights.bytes == w.data_bytes());
    const Weights cw = compute_weights(g, *find_quant_preset("f16"));
    CHECK(cw.bytes == w.data_bytes());
    CHECK(cw.params == f.weights.params);
    // No output layer: the file's VRAM weights leave token_embd (512 x 1,024 F16) on the host.
    CHECK(f.weights.vram_bytes == w.data_bytes() - 512ull * 1024 * 2);
    CHECK(cw.vram_bytes == f.weights.vram_bytes);
    for (uint32_t docs : {1u, 4u})
      CHECK(estimate(g, embedding_config(docs, 512)).kv_cache_bytes == 0);
  }
  std::remove(path.c_str());
}

TEST_CASE("a decoder GGUF's pooling_type makes it an embedding or rerank model", "[embedding]") {
  const std::string path = "/tmp/llmsize_embedding_pooling.gguf";
  for (uint32_t pooling : {0u, 3u, 4u}) {
    GgufWriter w;
    w.str("general.architecture", "qwen3").u32("qwen3.block_count", 1);
    w.u32("qwen3.embedding_length", 64).u32("qwen3.attention.head_count", 2);
    w.u32("qwen3.feed_forward_length", 128).u32("qwen3.context_length", 1024);
    if (pooling) w.u32("qwen3.pooling_type", pooling);
    w.tensor("token_embd.weight", kF16, {64, 32});
    w.write(path);
    const ModelFile f = read_model_file(path);
    REQUIRE(f.spec);
    CHECK(f.spec->task == (pooling == 0   ? Task::generation
                           : pooling == 4 ? Task::rerank
                                          : Task::embedding));
  }
  std::remove(path.c_str());
}

TEST_CASE("A Qwen3-Reranker GGUF: cls.output in place of the output layer", "[embedding]") {
  // llama.cpp de3ff815 conversion/qwen.py Qwen3Model.modify_tensors (a Qwen3-Reranker): the
  // "yes" and "no" rows of lm_head become cls.output {n_embd, 2} (pooling_type RANK 4) and no
  // output.weight is written; a tied checkpoint (0.6B, 4B) keeps token_embd, an untied one (8B)
  // drops lm_head entirely. src/models/qwen3.cpp loads cls_out {n_embd, n_cls_out}.
  const std::string path = "/tmp/llmsize_qwen3_reranker_test.gguf";
  ModelSpec m = model("qwen3-embedding-0.6b");  // the Qwen3-0.6B body, cut down below
  m.n_layer = 2;
  m.n_vocab = 512;
  m.n_cls_out = 2;
  m.task = Task::rerank;
  GgufWriter w;
  w.str("general.architecture", "qwen3").str("general.name", "test");
  w.u32("qwen3.block_count", m.n_layer).u32("qwen3.embedding_length", m.n_embd);
  w.u32("qwen3.context_length", m.n_ctx_train).u32("qwen3.feed_forward_length", m.n_ff);
  w.u32("qwen3.attention.head_count", m.n_head).u32("qwen3.attention.head_count_kv", m.n_head_kv);
  w.u32("qwen3.attention.key_length", m.n_embd_head_k);
  w.u32("qwen3.attention.value_length", m.n_embd_head_v).u32("qwen3.pooling_type", 4);
  const auto tensors = model_tensors(m);
  bool has_output = false, has_cls = false;
  for (const auto& t : tensors) {
    has_output = has_output || t.name() == "output.weight";
    if (t.name() == "cls.output.weight") has_cls = t.ne[0] == m.n_embd && t.ne[1] == 2;
  }
  CHECK_FALSE(has_output);
  CHECK(has_cls);
  const auto types = assign_tensor_types(m, tensors, *find_quant_preset("f16"));
  for (size_t i = 0; i < tensors.size(); ++i)
    w.tensor(
        tensors[i].name(), types[i] == TensorType::F32 ? kF32 : kF16,
        std::vector<uint64_t>(tensors[i].ne.begin(), tensors[i].ne.begin() + tensors[i].n_dims));
  w.write(path);
  const ModelFile f = read_model_file(path);
  REQUIRE(f.spec);
  const ModelSpec& g = *f.spec;
  CHECK(g.task == Task::rerank);
  CHECK(g.n_cls_out == 2);
  // The file's bytes: cls.output 1,024 x 2 x 2 B = 4,096 among them, and no 512 x 1,024 output.
  CHECK(f.weights.bytes == w.data_bytes());
  const Weights cw = compute_weights(g, *find_quant_preset("f16"));
  CHECK(cw.bytes == w.data_bytes());
  CHECK(cw.params == f.weights.params);
  std::remove(path.c_str());
}

TEST_CASE("a Qwen3 decoder run as a reranker gets llama.cpp's yes/no head", "[embedding]") {
  // conversion/qwen.py Qwen3Model (llama.cpp de3ff815), Qwen3-Reranker: lm_head's "yes" and "no"
  // rows become cls.output {n_embd, 2} and no output.weight is written. An untied body of 2
  // layers, hidden 64, vocabulary 1000: the head shrinks from 64 x 1000 to 64 x 2 parameters.
  const ModelSpec g = parse_hf_config(R"({"model_type": "qwen3", "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
      "intermediate_size": 128, "vocab_size": 1000, "tie_word_embeddings": false,
      "max_position_embeddings": 4096})",
                                      "c.json");
  ModelSpec r = g;
  set_task(r, Task::rerank);
  CHECK(r.task == Task::rerank);
  CHECK(r.n_cls_out == 2);
  CHECK(r.tied_embeddings);  // src/models/qwen3.cpp: output = token_embd, TENSOR_DUPLICATED
  bool output = false, cls = false;
  for (const auto& t : model_tensors(r)) {
    output = output || t.name() == "output.weight";
    cls = cls || (t.name() == "cls.output.weight" && t.ne[0] == 64 && t.ne[1] == 2);
  }
  CHECK_FALSE(output);
  CHECK(cls);
  CHECK(count_params(g, model_tensors(g)).total - count_params(r, model_tensors(r)).total ==
        64ull * 998);
  // Other tasks and architectures are left as they are.
  ModelSpec e = g;
  set_task(e, Task::embedding);
  CHECK(e.n_cls_out == 0);
}

TEST_CASE("Qwen3-Reranker-0.6B is built in as a rerank model", "[embedding][catalog]") {
  // data/models.json, from the published config.json: the Qwen3-0.6B body of Qwen3-Embedding-0.6B
  // (catalog_test.cpp: 595,776,512 parameters) with llama.cpp's yes/no head, cls.output
  // {1,024, 2} (conversion/qwen.py Qwen3Model, de3ff815): 595,776,512 + 2,048 = 595,778,560.
  const auto& m = model("qwen3-reranker-0.6b");
  CHECK(m.task == Task::rerank);
  CHECK(m.n_cls_out == 2);
  CHECK(m.tied_embeddings);
  CHECK(count_params(m, model_tensors(m)).total == 595'778'560ull);
  // One document of 512 tokens: KV of the batch's own tokens, 28 layers x 8 KV heads x 128 x
  // 2 B x (K + V) = 114,688 B per token x 512 = 58,720,256 B.
  const Estimate e = estimate(m, embedding_config(1, 512));
  CHECK(e.kv_cache_bytes == 58'720'256ull);
}
