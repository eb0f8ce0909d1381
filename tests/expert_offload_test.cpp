// llama.cpp's --n-cpu-moe: which tensors move, how many bytes, what the GPU keeps, and the speed
// of the experts read from system RAM.
#include <catch2/catch.hpp>

#include "llmsize/model/tensors.hpp"
#include "llmsize/plan/capacity.hpp"
#include "llmsize/serving/speed.hpp"
#include "test_util.hpp"

using namespace llmsize;

TEST_CASE("n-cpu-moe moves the tensors LLM_FFN_EXPS_REGEX matches, by name", "[offload]") {
  // common/common.h: "\\.ffn_(up|down|gate|gate_up)_(ch|)exps", searched in the tensor's name.
  struct Row {
    const char* name;
    bool moved;
  };
  const Row rows[] = {
      {"blk.0.ffn_up_exps.weight", true},
      {"blk.12.ffn_down_exps.weight", true},
      {"blk.3.ffn_gate_exps.weight", true},
      {"blk.3.ffn_gate_up_exps.weight", true},  // Gemma 4's fused experts
      {"blk.1.ffn_down_chexps.weight", true},
      {"blk.0.ffn_gate_exps.bias", true},     // gpt-oss's expert biases
      {"blk.0.ffn_down_exps.scale", true},    // Gemma 4's per-expert scale
      {"blk.0.ffn_up_shexp.weight", false},   // a shared expert stays on the GPU
      {"blk.0.ffn_gate_inp.weight", false},   // the router
      {"blk.0.ffn_up.weight", false},         // a dense FFN
      {"blk.0.ffn_norm_exps.weight", false},  // no such kind
      {"token_embd.weight", false},
  };
  for (const auto& r : rows) {
    INFO(r.name);
    CHECK(moved_by_cpu_moe(std::string_view(r.name)) == r.moved);
  }
}

TEST_CASE("n-cpu-moe N keeps the experts of blocks 0..N-1 in RAM: bytes derived by hand",
          "[offload]") {
  // Qwen3-30B-A3B: 48 blocks, each with 128 experts of gate and up [2048 x 768] and down
  // [768 x 2048], at Q8_0 under q8_0 (34 bytes per 32 weights). One tensor: 128 x 2048 x 768 =
  // 201,326,592 weights = 213,909,504 bytes; a block's three: 641,728,512 bytes.
  const ModelSpec& m = test::model("qwen3-30b-a3b");
  RunConfig c;
  c.quant = find_quant_preset("q8_0");
  const Estimate all_gpu = estimate(m, c);
  REQUIRE(all_gpu.weights.expert_blocks.size() == 48);
  CHECK(all_gpu.weights.expert_blocks[0].bytes == 641728512);
  CHECK(all_gpu.weights.expert_blocks[47].largest_bytes == 213909504);

  c.n_cpu_moe = 10;
  const Estimate e = estimate(m, c);
  // 10 blocks x 641,728,512 = 6,417,285,120 bytes, of which 8 of 128 experts are read per token:
  // 401,080,320 bytes.
  CHECK(e.cpu_experts.n_blocks == 10);
  CHECK(e.cpu_experts.n_moved == 10);
  CHECK(e.cpu_experts.bytes == 6417285120);
  CHECK(e.cpu_experts.read_bytes_per_token == 401080320);
  CHECK(e.weights.vram_bytes == all_gpu.weights.vram_bytes - 6417285120);
  CHECK(e.weights.host_bytes == all_gpu.weights.host_bytes + 6417285120);
  // A 512-token micro-batch runs each moved tensor's matmul on the GPU with a copy of it: the
  // compute buffer grows by one tensor, 213,909,504 bytes.
  CHECK(e.compute.weight_copy_bytes == 213909504);
  CHECK(e.compute.bytes() == all_gpu.compute.bytes() + 213909504);
  // Below 32 tokens the CPU multiplies them itself: no copy.
  c.kv.n_ubatch = 16;
  CHECK(estimate(m, c).compute.weight_copy_bytes == 0);
  // --cpu-moe: every block; a count past the blocks is every block too.
  c.kv.n_ubatch = 512;
  c.n_cpu_moe = kAllBlocks;
  const Estimate every = estimate(m, c);
  CHECK(every.cpu_experts.n_blocks == 48);
  CHECK(every.cpu_experts.bytes == uint64_t{48} * 641728512);
  // Other engines load every weight on the GPUs.
  c.engine = Engine::vllm;
  c.quant = find_quant_preset("bf16");
  CHECK(estimate(m, c).cpu_experts.bytes == 0);
}

TEST_CASE("n-cpu-moe counts only the blocks that have experts (DeepSeek's dense first three)",
          "[offload]") {
  // DeepSeek-V3: blocks 0-2 are dense (first_k_dense_replace 3), so --n-cpu-moe 5 moves two.
  RunConfig c;
  c.quant = find_quant_preset("q4_k_m");
  c.n_cpu_moe = 5;
  const Estimate e = estimate(test::model("deepseek-v3"), c);
  CHECK(e.cpu_experts.n_blocks == 5);
  CHECK(e.cpu_experts.n_moved == 2);
}

TEST_CASE("experts read from RAM add their bytes at the host's rate to each decode step",
          "[offload][speed]") {
  RunConfig c;
  c.quant = find_quant_preset("q8_0");
  c.n_cpu_moe = 10;
  const ModelSpec& m = test::model("qwen3-30b-a3b");
  const Estimate e = estimate(m, c);
  const GpuSpec& g = test::catalog().find_gpu("rtx-4090")->spec;
  SpeedInput in;
  in.ram_bandwidth_gb_per_s = 76.8;  // 2 channels x 4800 MT/s x 8 B
  const Speed gpu_only = estimate_speed(m, e, g, in);
  in.ram_read_bytes_per_token = e.cpu_experts.read_bytes_per_token;
  const Speed with_ram = estimate_speed(m, e, g, in);
  // The step loses the RAM bytes from the GPU's stream (at 0.92 x 1,008 GB/s, the consumer
  // calibration) and reads them at 0.6 x 76.8 GB/s:
  // 401,080,320 / 46.08e9 - 401,080,320 / 927.36e9 = 8.7040 ms - 0.4325 ms = 8.2715 ms.
  CHECK(with_ram.step_s - gpu_only.step_s == Approx(8.2715e-3).epsilon(1e-4));

  // A prompt's micro-batches of 512 tokens wait for the 6,417,285,120 moved bytes to cross PCIe
  // 4.0 x16 (31.52 GB/s) at 60%: 0.33932 s each, on top of their compute.
  in.copy_bytes_per_ubatch = e.cpu_experts.bytes;
  in.pcie_gb_per_s = pcie_gb_per_s(g);
  const Speed prompt = estimate_speed(m, e, g, in);
  const double copy_s = 6417285120.0 / (16 * 0.985 * 2 * 1e9 * 0.6);
  CHECK(copy_s == Approx(0.33932).epsilon(1e-4));
  CHECK(prompt.prefill_tokens_per_s ==
        Approx(512 / (512 / with_ram.prefill_tokens_per_s + copy_s)).epsilon(1e-9));
}

TEST_CASE("a MoE model the GPUs given cannot hold gets the fewest blocks of experts in RAM",
          "[offload][plan]") {
  // gpt-oss-120b at 32,768 tokens on one 24 GiB card: every N from the answer up holds it, the
  // one below does not (the bisection's invariant, checked against estimate() directly).
  const ModelSpec& m = test::model("gpt-oss-120b");
  RunConfig c;
  c.quant = find_quant_preset("q4_k_m");
  c.kv.n_ctx = 32768;
  const GpuSpec& g = test::catalog().find_gpu("rtx-4090")->spec;
  const auto o = plan_expert_offload(m, c, nullptr, g.usable_bytes(), 1);
  REQUIRE(o);
  REQUIRE(o->n_cpu_moe > 0);
  REQUIRE(o->n_cpu_moe < 36);
  const auto holds = [&](uint32_t n) {
    RunConfig rc = c;
    rc.n_cpu_moe = n;
    return per_gpu_bytes(estimate(m, rc), rc, 1) <= g.usable_bytes();
  };
  CHECK(holds(o->n_cpu_moe));
  CHECK_FALSE(holds(o->n_cpu_moe - 1));
  CHECK(o->n_layer_cpu == 0);
  // A dense model has no experts to move: whole layers (plan_offload) are its offload.
  RunConfig dense = c;
  CHECK_FALSE(
      plan_expert_offload(test::model("llama-3.1-70b"), dense, nullptr, g.usable_bytes(), 1));
}

TEST_CASE("a draft model (llama-server -md) adds its own weights, KV cache and compute buffer",
          "[draft]") {
  // Llama-3.3-70B with Llama-3.2-1B as its draft, both q4_k_m, 8,192 tokens, one GPU: the draft's
  // part is exactly its own estimate at the same context with an f16 KV cache.
  RunConfig c;
  c.quant = find_quant_preset("q4_k_m");
  c.kv.n_ctx = 8192;
  const ModelSpec& main_m = test::model("llama-3.3-70b");
  const Estimate alone = estimate(main_m, c);
  DraftModel d;
  d.spec = test::model("llama-3.2-1b");
  d.quant = c.quant;
  c.draft = &d;
  const Estimate with = estimate(main_m, c);
  RunConfig dc = c;
  dc.draft = nullptr;
  const Estimate draft = estimate(d.spec, dc);
  CHECK(with.draft_weights_bytes == draft.weights_bytes);
  // Llama-3.2-1B's KV: 8,192 cells x 16 layers x (512 + 512 elements x 2 B) = 268,435,456 B.
  CHECK(with.draft_kv_bytes == 268435456);
  CHECK(with.draft_compute_bytes == draft.activations_bytes);
  CHECK(with.draft_bytes == draft.weights_bytes + 268435456 + draft.activations_bytes);
  CHECK(with.subtotal_bytes() == alone.subtotal_bytes() + with.draft_bytes);
  CHECK(with.weights_bytes == alone.weights_bytes);  // the main model's, unchanged
  // vLLM plans no llama.cpp draft.
  c.engine = Engine::vllm;
  c.quant = find_quant_preset("bf16");
  CHECK(estimate(main_m, c).draft_bytes == 0);
}
