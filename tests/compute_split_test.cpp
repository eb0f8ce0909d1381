// llama.cpp's compute buffers per device of a layer split (compute_buffers_by_device), derived
// by hand from ggml-org/llama.cpp at de3ff815: src/llama-model.cpp load_tensors (which device
// holds which layer), src/llama-context.cpp (pipeline parallelism, sched_reserve),
// ggml/src/ggml-backend.cpp ggml_backend_sched_split_graph (split inputs copied n_copies = 4
// times, marked input and output), ggml/src/ggml-alloc.c (leafs first, outputs never freed).
// The CPU build of bench/llamacpp_probe has one device: these are not measured.
#include <catch2/catch.hpp>

#include "llmsize/memory/compute_buffer.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/model/layers.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

KvCache kv_at(const ModelSpec& m, uint32_t n_ctx, uint32_t n_seq = 1, bool flash_attn = true) {
  KvCacheConfig k;
  k.n_ctx = n_ctx;
  k.n_seq = n_seq;
  k.flash_attn = flash_attn;
  return kv_cache(m, k);
}

uint64_t count_of(const std::vector<LayerGroup>& g, StateKind s) {
  uint64_t n = 0;
  for (const auto& x : g)
    if (x.kind.state == s) n += x.n_layer;
  return n;
}

}  // namespace

TEST_CASE("layer groups of a layer range count each kind without a walk", "[compute_split]") {
  // Qwen3.5-35B-A3B: {[3 x gated delta-net, 1 x full attention], 10}; layers 5..21 hold the
  // full-attention layers 7, 11, 15, 19 (il % 4 == 3): 4 of 17.
  const auto& m = test::model("qwen3.5-35b-a3b");
  const auto g = layer_groups(m, 5, 22);
  CHECK(count_of(g, StateKind::gated_delta_net) == 13);
  CHECK(count_of(g, StateKind::none) == 4);
  // The whole range is layer_groups(m); an empty or out-of-range one is empty.
  const auto all = layer_groups(m, 0, 40);
  const auto whole = layer_groups(m);
  REQUIRE(all.size() == whole.size());
  for (size_t i = 0; i < all.size(); ++i) CHECK(all[i].n_layer == whole[i].n_layer);
  CHECK(layer_groups(m, 40, 41).empty());
  CHECK(layer_groups(m, 7, 7).empty());
  // One layer: layer 3 is full attention.
  const auto one = layer_groups(m, 3, 4);
  REQUIRE(one.size() == 1);
  CHECK(one[0].kind.attn == AttnKind::full);
}

TEST_CASE("a pipelined layer split of Llama-3.1-8B: inputs x 4, logits on the last device",
          "[compute_split]") {
  const auto& m = test::model("llama-3.1-8b");
  const KvCache kv = kv_at(m, 8192);
  const ComputeConfig c{512, 1, true, TensorType::F16};
  const auto s = compute_buffers_by_device(m, kv, c, 2, kSchedMaxCopies);
  REQUIRE(s.devices.size() == 2);
  CHECK(s.n_copies == 4);
  // 32 layers, no MTP: n_layer_all + 1 = 33 slots; device 0 holds il with il x 2 / 33 < 1:
  // il 0..16 (17 layers), device 1 il 17..31 and the output layer (il 32).
  CHECK(s.devices[0].first_layer == 0);
  CHECK(s.devices[0].n_layer == 17);
  CHECK(!s.devices[0].output);
  CHECK(s.devices[1].first_layer == 17);
  CHECK(s.devices[1].n_layer == 15);
  CHECK(s.devices[1].output);
  // Inputs per copy, n_tokens 512 (one F32 row = 2,048 B): hidden state 2,048 x 4,096 =
  // 8,388,608; KQ mask F16 8,192 cells x 512 x 2 = 8,388,608; K and V indices 8 x 512 each =
  // 8,192; positions 2,048: 16,787,456 B, x 4 = 67,149,824. The last device adds the output ids
  // 2,048: 16,789,504 x 4 = 67,158,016.
  CHECK(s.devices[0].buffer.inputs_bytes == 67149824);
  CHECK(s.devices[1].buffer.inputs_bytes == 67158016);
  // The 2024 formula's parts (flash attention): ffn 2,048 x (2 x 14,336 + 2 x 4,096) =
  // 75,497,472; output 2,048 x (128,256 + 4,096) = 271,056,896, on the last device only.
  CHECK(s.devices[0].buffer.output_bytes == 0);
  CHECK(s.devices[0].buffer.bytes() == 67149824ull + 75497472);
  CHECK(s.devices[1].buffer.bytes() == 67158016ull + 271056896);
  CHECK(s.largest() == 1);
  CHECK(s.total_bytes() == 67149824ull + 75497472 + 67158016 + 271056896);
  // One GPU: unchanged, the logits alone (compute_buffer_test).
  const auto one = compute_buffers_by_device(m, kv, c, 1, kSchedMaxCopies);
  REQUIRE(one.devices.size() == 1);
  CHECK(one.devices[0].buffer.bytes() == 271056896);
  CHECK(one.devices[0].buffer.inputs_bytes == 0);
}

TEST_CASE("a pipelined layer split of gpt-oss-120b, per layer kind", "[compute_split]") {
  const auto& m = test::model("gpt-oss-120b");
  // n_ctx 8,192, flash attention, n_ubatch 512, 1 sequence: full cells 8,192, SWA cells
  // pad(min(8,192, 128 + 512), 256) = 768.
  const KvCache kv = kv_at(m, 8192);
  const ComputeConfig c{512, 1, true, TensorType::F16};
  const auto s = compute_buffers_by_device(m, kv, c, 2, kSchedMaxCopies);
  REQUIRE(s.devices.size() == 2);
  // 36 layers + output = 37 slots: device 0 il 0..18 (il x 2 / 37 < 1), device 1 il 19..35 and
  // the output; both hold SWA and full layers.
  CHECK(s.devices[0].n_layer == 19);
  CHECK(s.devices[1].first_layer == 19);
  CHECK(s.devices[1].n_layer == 17);
  // Inputs per copy (row = 4 x 512 = 2,048 B): hidden 2,048 x 2,880 = 5,898,240; masks F16
  // (8,192 + 768) x 512 x 2 = 9,175,040; K and V indices of 2 caches 4 x 8 x 512 = 16,384;
  // positions 2,048: 15,091,712, x 4 = 60,366,848; the last device + output ids 2,048:
  // 15,093,760 x 4 = 60,375,040.
  CHECK(s.devices[0].buffer.inputs_bytes == 60366848);
  CHECK(s.devices[1].buffer.inputs_bytes == 60375040);
  // Parts without masks (they are the persistent copies): MoE ffn 2,048 x (4 experts x
  // max(3 x 2,880, 2,880 + 2,880) + 128 router + 3 x 2,880) = 2,048 x 43,328 = 88,735,744;
  // attention (flash) 2 x 2,880 rows + 2 Q (2,048 x 64 x 64 = 8,388,608) = 11,796,480 +
  // 16,777,216 = 28,573,696; logits 2,048 x (201,088 + 3 x 2,880) = 429,522,944, no hole.
  CHECK(s.devices[0].buffer.ffn_bytes == 88735744);
  CHECK(s.devices[0].buffer.attention_bytes == 28573696);
  CHECK(s.devices[0].buffer.bytes() == 60366848ull + 88735744);
  CHECK(s.devices[1].buffer.output_bytes == 429522944);
  CHECK(s.devices[1].buffer.output_hole_bytes == 0);
  CHECK(s.devices[1].buffer.bytes() == 60375040ull + 429522944);
  // One GPU: masks live in the parts, 3/8 of them under the logits: 429,522,944 +
  // 9,175,040 / 8 x 3 = 432,963,584.
  const auto one = compute_buffer(m, kv, c);
  CHECK(one.bytes() == 432963584);
  // The any-split bound is the last device here (every kind and the output).
  CHECK(compute_buffer_any_split(m, kv, c, kSchedMaxCopies).bytes() == s.devices[1].buffer.bytes());

  // Ollama's scheduler is not pipelined (n_copies 1): device 0 has its layers' parts with the
  // masks live, ffn 9,175,040 + 88,735,744 = 97,910,784; the last device the one-GPU logits.
  const auto o = compute_buffers_by_device(m, kv, c, 2, 1);
  CHECK(o.n_copies == 1);
  CHECK(o.devices[0].buffer.inputs_bytes == 0);
  CHECK(o.devices[0].buffer.bytes() == 97910784);
  CHECK(o.devices[1].buffer.bytes() == 432963584);
}

TEST_CASE("MTP layers are held by the last device, not computed", "[compute_split]") {
  // Qwen3.5-35B-A3B: 40 layers + 1 MTP layer kept in the GGUF = 41 blocks, 42 slots with the
  // output; 2 devices: device 0 il 0..20 (21 layers: 5 full, 16 delta-net), device 1 il 21..40
  // (layers 21..39 computed, the MTP layer 40 held) and the output (il 41).
  const auto& m = test::model("qwen3.5-35b-a3b");
  REQUIRE(m.n_layer_nextn == 1);
  const KvCache kv = kv_at(m, 4096);
  const ComputeConfig c{512, 1, true, TensorType::F16};
  const auto s = compute_buffers_by_device(m, kv, c, 2, kSchedMaxCopies);
  CHECK(s.devices[0].n_layer == 21);
  CHECK(s.devices[1].first_layer == 21);
  CHECK(s.devices[1].n_layer == 20);
  CHECK(s.devices[1].output);
  // Inputs per copy (row 2,048 B): hidden 2,048 x 2,048 = 4,194,304; one KQ mask F16 4,096 x 512
  // x 2 = 4,194,304; K and V indices 8,192; positions of interleaved M-RoPE, 4 per token
  // (llama-hparams.cpp n_pos_per_embd), 2,048 x 4 = 8,192; state copy ids 4 x 1 = 4: 8,404,996,
  // x 4 = 33,619,984; the last device + output ids 2,048: 8,407,044 x 4 = 33,628,176.
  CHECK(s.devices[0].buffer.inputs_bytes == 33619984);
  CHECK(s.devices[1].buffer.inputs_bytes == 33628176);
}

TEST_CASE("the estimate counts each device of a llama.cpp split", "[compute_split]") {
  const auto& m = test::model("llama-3.1-8b");
  RunConfig c;
  c.quant = find_quant_preset("q4_k_m");
  c.kv.n_ctx = 8192;
  c.n_gpus = 2;
  const Estimate e = estimate(m, c);
  REQUIRE(e.compute_split.devices.size() == 2);
  // The per-GPU figure is the last device's (above): 67,158,016 + 271,056,896 = 338,214,912;
  // activations the sum of both devices, 142,647,296 + 338,214,912 = 480,862,208.
  CHECK(e.compute.bytes() == 338214912);
  CHECK(e.activations_bytes == 480862208);
  CHECK(compute_bytes_per_gpu(e, 2) == 338214912);
  CHECK(compute_bytes_per_gpu(e, 1) == 271056896);
  CHECK(compute_bytes_per_gpu(e, 3) == 338214912);  // any split: the device with the output
  c.n_gpus = 1;
  const Estimate one = estimate(m, c);
  CHECK(one.compute_split.devices.empty());
  CHECK(one.activations_bytes == 271056896);
  CHECK(compute_bytes_per_gpu(one, 2) == 338214912);
  // Ollama: no pipeline copies; the last device holds the logits, as on one GPU.
  c.n_gpus = 2;
  c.engine = Engine::ollama;
  const Estimate o = estimate(m, c);
  CHECK(o.compute.bytes() == 271056896);
  CHECK(o.activations_bytes == 75497472ull + 271056896);
}

TEST_CASE("more GPUs than layers: the devices after the output layer hold nothing",
          "[compute_split]") {
  // Llama-3.1-8B on 40 GPUs: 33 slots; layer il goes to device floor(il x 40 / 33), the output
  // layer (il 32) to floor(1,280 / 33) = 38; device 39 holds no layer and has no buffer.
  const auto& m = test::model("llama-3.1-8b");
  const KvCache kv = kv_at(m, 4096);
  const auto s = compute_buffers_by_device(m, kv, ComputeConfig{512, 1, true, TensorType::F16}, 40,
                                           kSchedMaxCopies);
  REQUIRE(s.devices.size() == 40);
  CHECK(s.output_device() == 38);
  CHECK(s.devices[38].output);
  CHECK(s.devices[39].n_layer == 0);
  CHECK(s.devices[39].buffer.bytes() == 0);
  CHECK(s.largest() == 38);
  // Every layer is held once.
  uint64_t held = 0;
  for (const auto& d : s.devices) held += d.n_layer;
  CHECK(held == 32);
}
