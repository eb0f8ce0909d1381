// Throughput: decode is memory-bandwidth bound, prefill compute bound.
//
// Decode, one step of B sequences (APPROXIMATION, calibrated):
//   t_step = bytes_read / (e_bw x bandwidth) + n_layer x t_layer
//   bytes_read = active weights on the GPUs + KV cache read at the current context x B
// e_bw and t_layer per GPU family, fitted to llama.cpp measurements
// (tests/data/measured_speed.json, docs/formulas.md): the t_layer term is the per-layer
// kernel-launch and synchronisation cost that dominates small models on fast GPUs. Layer split
// (llama.cpp) runs the GPUs one after another, so bandwidth does not add up; tensor parallelism
// divides bytes_read by the degree at kTpEfficiency.
//
// Prefill: t = (2 x active params + attention 4 x n_layer x n_ctx x n_head x head_dim) FLOPs per
// token / (e_fl x dense FP16 TFLOPS).
#pragma once

#include <cstdint>
#include <string>

#include "llmsize/gpu.hpp"
#include "llmsize/memory/estimate.hpp"

namespace llmsize {

struct SpeedCalibration {
  const char* family;    // "nvidia-consumer", "nvidia-datacenter", "apple", "other"
  double bw_efficiency;  // e_bw
  double t_layer_s;      // per-layer fixed cost per decode step
  double flops_efficiency_16bit;
  double flops_efficiency_quant;
  double decode_error;  // p90 relative error of the calibration: the +/- range printed
  double prefill_error;
  const char* basis;  // what it was fitted on
};

// The calibration that applies to a GPU (by vendor and class).
const SpeedCalibration& speed_calibration(const GpuSpec& g);

// Tensor parallelism: each extra GPU adds this share of its bandwidth (all-reduce per layer).
constexpr double kTpEfficiency = 0.85;

// Offloaded layers read their weights and KV from system RAM at this share of its bandwidth
// (APPROXIMATION: llama.cpp CPU layers run on the host's cores, not at the DIMMs' peak).
constexpr double kOffloadRamEfficiency = 0.6;

struct SpeedInput {
  uint32_t n_gpus = 1;
  bool tensor_parallel = false;   // else layer split
  uint32_t n_seq = 1;             // sequences decoded together
  uint32_t n_ctx = 4096;          // context at which the KV cache is read (tokens per sequence)
  uint32_t prompt_tokens = 1024;  // for time to first token
  // Layers whose weights and KV live in system RAM (offload), read at ram_bandwidth_gb_per_s.
  uint32_t n_layer_cpu = 0;
  double ram_bandwidth_gb_per_s = 0;
  // Routed experts in system RAM (--n-cpu-moe): the bytes of them each token reads there, at
  // ram_bandwidth_gb_per_s; the rest of the active weights stay on the GPUs.
  uint64_t ram_read_bytes_per_token = 0;
  // Weights in system RAM that each prompt micro-batch of n_ubatch tokens copies to the GPU
  // (op offload), at kOffloadCopyFraction of the GPU's PCIe link, pcie_gb_per_s.
  uint64_t copy_bytes_per_ubatch = 0;
  uint32_t n_ubatch = 512;
  double pcie_gb_per_s = 0;
};

// Host-to-device copies of weights in system RAM (llama.cpp's mmap'd CPU_Mapped buffer, pageable)
// as a share of the PCIe link, one direction: the prompt rates published for gpt-oss-120b with
// every expert in RAM on PCIe 4.0 x16 (31.5 GB/s) copy the experts at 15.9 GB/s (60.8 GB per
// 512-token batch at 134 tok/s, a 14900K, gokawiil.com/article/74814) and 21.9 GB/s (27 blocks'
// 45.6 GB at 246 tok/s, RTX 3090 on EPYC 7343, hardware-corner.net/gpt-oss-offloading-moe-
// layers): 0.50 and 0.70 of the link. APPROXIMATION: their mean.
constexpr double kOffloadCopyFraction = 0.6;

struct Speed {
  double decode_tokens_per_s = 0;  // per sequence
  double decode_low = 0, decode_high = 0;
  double aggregate_tokens_per_s = 0;  // all sequences together
  double prefill_tokens_per_s = 0;
  double prefill_low = 0, prefill_high = 0;
  double time_to_first_token_s = 0;
  // Embedding / rerank (ModelSpec::task): documents of SpeedInput::n_ctx tokens encoded per
  // second from the prefill rate, and the time of one batch of n_seq documents; 0 otherwise.
  double documents_per_s = 0;
  double documents_low = 0, documents_high = 0;
  double batch_s = 0;
  double step_s = 0;
  uint64_t bytes_per_step = 0;
  // The GPUs' decode bandwidth: e_bw x bandwidth, x (1 + (n - 1) x kTpEfficiency) under tensor
  // parallelism; and the prefill's e_fl (16-bit or quantized weights).
  double decode_bandwidth_gb_per_s = 0;
  double flops_efficiency = 0;
  // The dense 16-bit TFLOPS the prefill was computed at: the catalog's FP16 (else BF16) figure,
  // or kAssumedTflops where it has neither (tflops_assumed).
  double tflops = 0;
  bool tflops_assumed = false;
  const SpeedCalibration* calibration = nullptr;
};

// A GPU without a published dense 16-bit figure is estimated at this (conservative) rate.
constexpr double kAssumedTflops = 10;

// REQUIRES: in.n_gpus > 0, in.n_seq > 0, g.bandwidth_gb_per_s > 0.
Speed estimate_speed(const ModelSpec& m, const Estimate& e, const GpuSpec& g, const SpeedInput& in);

// KV bytes one sequence reads per decode step at context n_ctx (only the filled cells).
uint64_t kv_read_bytes_per_seq(const ModelSpec& m, const KvCache& kv, uint32_t n_ctx);

// DDR bandwidth of `channels` at mt_per_s: channels x MT/s x 8 bytes, decimal GB/s.
double ram_bandwidth_gb_per_s(uint32_t channels, uint32_t mt_per_s);

}  // namespace llmsize
