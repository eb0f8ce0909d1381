#include "llmsize/serving/speed.hpp"

#include <algorithm>

namespace llmsize {
namespace {

// Fitted by least median relative error over the rows named (llama.cpp, CUDA/Metal, 2023-2024).
const SpeedCalibration kCalibrations[] = {
    {"nvidia-consumer", 0.92, 90e-6, 0.95, 0.80, 0.15, 0.35,
     "llama.cpp CUDA tg512/tg128 on RTX 3070/3080/3080 Ti/3090/4070 Ti/4080/4090, 1-8 GPUs (27 "
     "rows): "
     "median |error| 4.5%, max 14.6%"},
    {"nvidia-datacenter", 0.79, 152e-6, 0.30, 0.20, 0.15, 0.50,
     "llama.cpp CUDA on A100 80GB (3 rows, 2023 build): error under 4%; H100/B200 use the same "
     "factors (no public llama.cpp rows shipped)"},
    {"apple", 0.96, 200e-6, 0.70, 0.60, 0.25, 0.45,
     "llama.cpp Metal on M3 Max and M2 Ultra (8 rows): median 3%; M1 Max measured 10-80% slower "
     "(lower-bin GPU), 70B on a 48 GB M3 Max swaps"},
    {"other", 0.92, 90e-6, 0.80, 0.65, 0.30, 0.50,
     "no measurements shipped: NVIDIA consumer factors, wider range"},
};

}  // namespace

const SpeedCalibration& speed_calibration(const GpuSpec& g) {
  if (g.vendor == GpuVendor::apple) return kCalibrations[2];
  // NVIDIA's unified-memory systems (GB10, Jetson Thor) share LPDDR5x with the CPU: no shipped
  // measurement matches them, so they take the wider "other" range, not the GDDR-card fit.
  if (g.vendor == GpuVendor::nvidia && !g.unified_memory)
    return g.gpu_class == GpuClass::datacenter ? kCalibrations[1] : kCalibrations[0];
  return kCalibrations[3];
}

uint64_t kv_read_bytes_per_seq(const ModelSpec& m, const KvCache& kv, uint32_t n_ctx) {
  const uint64_t per_cell_layer = kv.k_bytes_per_cell_layer + kv.v_bytes_per_cell_layer;
  const uint64_t full = std::min<uint64_t>(n_ctx, kv.cells_full) * kv.n_layer_full;
  const uint64_t swa =
      std::min<uint64_t>({n_ctx, kv.cells_swa, m.n_swa ? m.n_swa : n_ctx}) * kv.n_layer_swa;
  return (full + swa) * per_cell_layer;
}

Speed estimate_speed(const ModelSpec& m, const Estimate& e, const GpuSpec& g,
                     const SpeedInput& in) {
  Speed s;
  const auto& cal = speed_calibration(g);
  s.calibration = &cal;
  const double bw = g.bandwidth_gb_per_s * 1e9 * cal.bw_efficiency;
  const uint64_t weights = e.weights.active_bytes ? e.weights.active_bytes : e.weights.vram_bytes;
  const uint64_t kv = kv_read_bytes_per_seq(m, e.kv, in.n_ctx) * in.n_seq;
  // Experts in RAM are read there, by the CPU, once per step for the batch (APPROXIMATION: each
  // sequence's experts differ, so a batch reads more of them; llama.cpp's slots decode few).
  const uint64_t ram_experts = std::min(in.ram_read_bytes_per_token, weights);
  s.bytes_per_step = weights + kv - ram_experts;

  // Split the bytes between GPU and system RAM by layers when some are offloaded.
  const double cpu_share = m.n_layer ? static_cast<double>(in.n_layer_cpu) / m.n_layer : 0;
  const double gpu_bytes = static_cast<double>(s.bytes_per_step) * (1 - cpu_share);
  const double cpu_bytes = static_cast<double>(s.bytes_per_step) * cpu_share;
  const double tp_scale =
      in.tensor_parallel && in.n_gpus > 1 ? 1 + (in.n_gpus - 1) * kTpEfficiency : 1;
  const double gpu_bw = bw * tp_scale;
  s.decode_bandwidth_gb_per_s = cal.bw_efficiency * g.bandwidth_gb_per_s * tp_scale;
  double t = gpu_bytes / gpu_bw + m.n_layer * cal.t_layer_s;
  if (cpu_bytes > 0 || ram_experts > 0) {
    // CPU layers run at about 60% of DIMM bandwidth (llama.cpp CPU backend, rule of thumb).
    const double ram_bw = std::max(1.0, in.ram_bandwidth_gb_per_s) * 1e9 * kOffloadRamEfficiency;
    t += (cpu_bytes + static_cast<double>(ram_experts)) / ram_bw;
  }
  s.step_s = t;
  s.decode_tokens_per_s = 1.0 / t;
  s.aggregate_tokens_per_s = s.decode_tokens_per_s * in.n_seq;
  s.decode_low = s.decode_tokens_per_s * (1 - cal.decode_error);
  s.decode_high = s.decode_tokens_per_s * (1 + cal.decode_error);

  // Prefill FLOPs per prompt token: 2 x active params (matmuls) + 4 x n_layer x ctx x n_head x
  // head_dim (QK^T and PV over half the prompt on average, causal).
  const bool quantized =
      traits(e.weights.by_type.empty() ? TensorType::F16 : e.weights.by_type.front().type)
          .quantized;
  const double eff = quantized ? cal.flops_efficiency_quant : cal.flops_efficiency_16bit;
  s.flops_efficiency = eff;
  double active_params =
      static_cast<double>(e.weights.active_params ? e.weights.active_params : e.weights.params);
  // An embedding / rerank batch attends over its documents (n_ctx tokens each): causal models
  // over half of it on average, an encoder over all of it, and an encoder's embedding tables
  // (tokens, positions) are looked up, not multiplied (it has no output head).
  const bool encode_only = m.task != Task::generation;
  if (m.is_encoder())
    active_params =
        std::max(0.0, active_params - static_cast<double>(m.n_embd) *
                                          (static_cast<double>(m.n_vocab) + m.n_ctx_train));
  const double span =
      encode_only ? (m.is_encoder() ? in.n_ctx : in.n_ctx / 2.0) : in.prompt_tokens / 2.0;
  const double attn = 4.0 * m.n_layer * span * m.n_head * m.n_embd_head_k;
  const double flops_per_token = 2.0 * active_params + attn;
  double tflops = g.fp16_tflops_dense > 0 ? g.fp16_tflops_dense : g.bf16_tflops_dense;
  s.tflops_assumed = tflops <= 0;
  if (s.tflops_assumed) tflops = kAssumedTflops;
  s.tflops = tflops;
  const double compute = tflops * 1e12 * eff * tp_scale;
  s.prefill_tokens_per_s = compute / flops_per_token;
  if (in.copy_bytes_per_ubatch > 0 && in.prompt_tokens >= kOpOffloadMinBatch) {
    // Each micro-batch of the prompt waits for the weights in RAM to cross PCIe: a batch of
    // n_ubatch tokens takes its compute time plus the copy (one stream: they do not overlap).
    const double ub = std::max<uint32_t>(1, std::min(in.n_ubatch, in.prompt_tokens));
    const double copy_s = static_cast<double>(in.copy_bytes_per_ubatch) /
                          (std::max(1.0, in.pcie_gb_per_s) * 1e9 * kOffloadCopyFraction);
    s.prefill_tokens_per_s = ub / (ub / s.prefill_tokens_per_s + copy_s);
  } else if (cpu_share > 0) {
    s.prefill_tokens_per_s *= (1 - cpu_share) + cpu_share * 0.05;  // CPU layers ~20x slower
  }
  s.prefill_low = s.prefill_tokens_per_s * (1 - cal.prefill_error);
  s.prefill_high = s.prefill_tokens_per_s * (1 + cal.prefill_error);
  s.time_to_first_token_s = in.prompt_tokens / s.prefill_tokens_per_s + s.step_s;
  if (encode_only && in.n_ctx > 0) {
    // Documents of n_ctx tokens through the prefill model, n_seq per batch.
    s.documents_per_s = s.prefill_tokens_per_s / in.n_ctx;
    s.documents_low = s.prefill_low / in.n_ctx;
    s.documents_high = s.prefill_high / in.n_ctx;
    s.batch_s = static_cast<double>(in.n_seq) / s.documents_per_s;
  }
  return s;
}

double ram_bandwidth_gb_per_s(uint32_t channels, uint32_t mt_per_s) {
  return static_cast<double>(channels) * mt_per_s * 8 / 1000.0;
}

}  // namespace llmsize
