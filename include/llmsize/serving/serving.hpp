// Serving at scale: a step-time model of batched decode and chunked prefill, per engine
// (APPROXIMATION, calibrated on published serving benchmarks; docs/formulas.md §15).
//
// One engine step runs d decode tokens (one per running sequence) and p prompt tokens (chunks
// of waiting prompts), as the engines' kernels run them:
//   GEMMs     max(weights streamed / (e_bw x BW), 2 x matmul params x (d + p) / (e_fl x TFLOPS of
//             the weights' dtype)); MoE streams the experts the step's tokens activate,
//             n_expert x (1 - (1 - n_expert_used / n_expert)^(d + p)) per layer
//   attention decode: every decoding sequence's KV (+ recurrent state) / (e_kv x BW); prefill:
//             4 x n_head x head_dim x n_layer x p x isl / 2 FLOPs
//   link      2 ring all-reduces per layer over NVLink / PCIe / the network
//   pipeline  pp micro-batches, e_pp per extra stage; host work overlapped or added
// Steady state: p = B x isl / osl within max_num_batched_tokens; output tokens/s = d / t_step.
// TTFT = the prompt's chunks at the running batch's step time + M/D/1 queueing for the prefill
// budget. The e_* factors are fitted per engine (tests/data/serving_throughput.json).
#pragma once

#include <cstdint>
#include <string>

#include "llmsize/checked.hpp"
#include "llmsize/engine.hpp"
#include "llmsize/gpu.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/model_spec.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/serving/speculative.hpp"
#include "llmsize/serving/speed.hpp"

namespace llmsize {

// The precision the matmuls run at: W8A8 FP8 and NVFP4 use the GPU's FP8/FP4 tensor cores where
// it has them; weight-only formats (GGUF, GPTQ, AWQ) dequantize and multiply in 16 bits.
// mxfp4: MXFP4 weights (gpt-oss's experts) at the FP4 rate where the chip has one (Blackwell,
// CDNA 4), else BF16; the serving engines' own MoE kernels are in moe_compute_dtype().
enum class ComputeDtype { bf16, fp8, fp4, int8, mxfp4 };
// The checkpoint's low-precision type (what its largest matrices hold).
ComputeDtype compute_dtype(const QuantPreset& q);
// The routed experts' GEMMs under `engine` on a GPU of architecture `arch`: MXFP4 experts are
// multiplied with the activations the engine's MoE kernel keeps (BF16) or quantizes to (MXFP8),
// and tensor cores run a mixed FP4 x FP8 product at the FP8 rate (only FP4 x FP4 doubles it);
// any other preset keeps compute_dtype(q).
ComputeDtype moe_compute_dtype(const QuantPreset& q, Engine engine, const std::string& arch);
// The environment ("NAME=value", or "") the engine needs to run that kernel.
std::string moe_kernel_environment(const QuantPreset& q, Engine engine, const std::string& arch);
const char* compute_dtype_name(ComputeDtype c);  // "BF16", "FP8", "FP4", "INT8"

enum class LinkKind { none, nvlink, xgmi, pcie, network };

// The model's numbers the step model needs (fill with serving_model()).
struct ServingModel {
  uint64_t weight_bytes = 0;      // every weight, resident on the GPUs
  uint64_t dense_read_bytes = 0;  // read by every step: all but routed experts, embd row
  uint64_t expert_bytes = 0;      // one routed expert of one MoE layer
  uint32_t n_expert = 0, n_expert_used = 0, n_layer_moe = 0;
  uint64_t matmul_params = 0;           // params multiplied per token (n_expert_used experts)
  uint64_t kv_bytes_per_token = 0;      // full-attention layers, summed
  uint64_t kv_bytes_per_token_swa = 0;  // sliding-window layers, summed (n_swa tokens at most)
  uint32_t n_swa = 0;
  uint64_t state_bytes_per_seq = 0;  // recurrent state (0 for attention-only models)
  uint64_t activation_bytes = 0;     // engine's activation peak on one GPU at tp = 1
  // vLLM's profile run (vllm_profile_peak), rescaled to the deployment's own batch limits:
  // activation_bytes is then the forward's peak at profile_tokens tokens (divided by tp), and
  // the sampler's rows and kept hidden states are charged in full on every GPU.
  uint32_t profile_tokens = 0;  // 0: activation_bytes is the whole peak
  uint64_t sampler_bytes_per_row = 0;
  uint64_t hidden_bytes_per_token = 0;
  uint32_t n_layer = 0, n_embd = 0, n_head = 0, n_head_kv = 0, head_dim = 0;
  ComputeDtype compute = ComputeDtype::bf16;         // the dense layers' GEMMs
  ComputeDtype expert_compute = ComputeDtype::bf16;  // the routed experts' (moe_compute_dtype)
  // llama.cpp --n-cpu-moe (RunConfig::n_cpu_moe): the routed experts of n_layer_moe_host of the
  // n_layer_moe blocks stay in system RAM (host_expert_bytes, not on the GPUs). A step's decode
  // tokens read the experts they route to there at host_read_gb_per_s; each prompt micro-batch
  // of host_copy_tokens (at least kOpOffloadMinBatch) copies them all to the GPU at
  // host_copy_gb_per_s.
  uint64_t host_expert_bytes = 0;
  uint32_t n_layer_moe_host = 0;
  // llama-server -md: the draft model's weights, KV and compute buffer (Estimate::draft_bytes),
  // on the GPUs beside the main model's.
  uint64_t draft_bytes = 0;
  uint64_t resident_weight_bytes() const {
    return weight_bytes - (host_expert_bytes < weight_bytes ? host_expert_bytes : weight_bytes);
  }
  double host_read_gb_per_s = 0;
  double host_copy_gb_per_s = 0;
  uint32_t host_copy_tokens = 512;  // the micro-batch (n_ubatch) each copy serves
};

// Speculative decoding on a deployment (--spec, serving/speculative.hpp): k draft tokens per
// sequence per step, accepted at `acceptance` each (chain), proposed by `draft` run k times over
// the decoding sequences (and once over each prompt's tokens, to build its own KV).
struct Speculation {
  SpecMethod method = SpecMethod::none;
  uint32_t draft_tokens = 0;
  double acceptance = 0;
  // The published measurement `acceptance` came from (null: given, --spec-acceptance), and
  // whether it was measured on this model (false: another model's stands in).
  const SpecAcceptance* measured = nullptr;
  bool measured_own = false;
  // One draft pass as the step model runs it: what it streams, multiplies and keeps per token.
  // Its weight_bytes are on the GPUs beside the target's (split as the target's are) and its KV
  // per token joins the target's in the pool; an output head or embedding it shares with the
  // target is read by each pass (dense_read_bytes) but not held twice.
  ServingModel draft;
  bool active() const { return method != SpecMethod::none && draft_tokens > 0; }
  // Positions each sequence puts through the target per step: its own token and the k drafted.
  uint32_t rows_per_seq() const { return active() ? 1 + draft_tokens : 1; }
  double tokens_per_step() const {
    return active() ? llmsize::tokens_per_step(acceptance, draft_tokens) : 1.0;
  }
};

// From the estimator's inputs: weights of `q` (or exact ones), KV of `kv`.
ServingModel serving_model(const ModelSpec& m, const QuantPreset& q, const Weights& w,
                           uint64_t activation_bytes, KvDtype kv);
// The same from an estimate's activations: a vLLM profile peak keeps its forward and sampler
// parts apart (ServingModel::profile_tokens).
ServingModel serving_model(const ModelSpec& m, const QuantPreset& q, const Weights& w,
                           const ComputeBuffer& activations, uint32_t profile_tokens, KvDtype kv);

// The draft one speculative pass runs for target m at preset q (Speculation::draft): mtp, the
// checkpoint's next-n layers with the target's output head; eagle3, the published head `head`
// (BF16); draft, the draft model at its own preset. REQUIRES: mtp: m.n_layer_nextn > 0; eagle3:
// head; draft: draft.
ServingModel spec_draft_model(SpecMethod method, const ModelSpec& m, const QuantPreset& q,
                              KvDtype kv, const Eagle3Head* head, const DraftModel* draft);

// Speculative decoding of `method` with k draft tokens (0: the engines' default) for model m at
// preset q: the draft pass (spec_draft_model, the published EAGLE-3 head of m) accepted at
// `acceptance`, else at the published rate nearest k (spec_acceptance; 0 when none).
// nextn_in_target: the target's weights hold the next-n layers already (RunConfig::load_nextn),
// so an MTP draft adds none of its own.
Speculation make_speculation(SpecMethod method, uint32_t k, double acceptance, const ModelSpec& m,
                             const QuantPreset& q, KvDtype kv, const DraftModel* draft,
                             bool nextn_in_target);

// The GPU's numbers (fill with serving_gpu()).
struct ServingGpu {
  std::string id;
  GpuVendor vendor = GpuVendor::other;
  GpuClass gpu_class = GpuClass::unknown;
  uint64_t memory_bytes = 0;
  double bandwidth_gb_per_s = 0;
  double bf16_tflops = 0;  // dense
  double fp8_tflops = 0;   // dense; 0 = no FP8 tensor cores
  double fp4_tflops = 0;   // dense; 0 = no FP4 tensor cores
  double int8_tops = 0;
  LinkKind link = LinkKind::pcie;  // between the GPUs of one node
  double link_gb_per_s = 0;        // one direction, per GPU
  uint32_t link_group = 8;         // GPUs the link joins (NVLink bridge: 2)
  double pcie_gb_per_s = 0;        // one direction
  double network_gb_per_s = 50;    // between nodes, per GPU (one 400 Gb/s NIC per GPU)
  uint32_t gpus_per_node = 8;
  double board_power_w = 0;
  std::string architecture;           // GpuSpec::architecture: picks the family factor
  bool small_batch_defaults = false;  // vllm_small_batch_defaults (vLLM's A100 exception)
};

// REQUIRES: g.bandwidth_gb_per_s > 0. The catalog's dense BF16/FP8/FP4/INT8 rates; a dtype without
// one computes at the next wider rate the GPU has (serving_rate_fallback says which).
ServingGpu serving_gpu(const GpuSpec& g, uint32_t gpus_per_node);

// The dense tensor rate a step computes `c` at: the GPU's own, else the next wider one it has
// (FP4 -> FP8 -> BF16, INT8 -> BF16), else kAssumedTflops (speed.hpp: the single stream's).
// `missing`: the catalog lacks a rate the GPU's architecture has (or an unrecorded architecture may
// have), so the figure is a fallback the plan says it used.
struct TensorRate {
  double tflops = 0;
  ComputeDtype used = ComputeDtype::bf16;
  bool missing = false;  // `c`'s own rate unknown where the chip may have one
  bool assumed = false;  // not even a BF16 rate: kAssumedTflops
};
TensorRate tensor_rate(const ServingGpu& g, ComputeDtype c);

// Fitted per engine; the error is the calibration's relative error on aggregate throughput.
struct ServingCalibration {
  Engine engine;
  double bw_efficiency;        // weights streamed by GEMMs
  double kv_bw_efficiency;     // paged attention reading KV
  double flops_efficiency;     // large GEMMs (prefill, big batches)
  double gemm_m_half;          // GEMM rows at which half of flops_efficiency is reached
  double step_overhead_s;      // host time per executor iteration (scheduling, launch)
  double seq_overhead_s;       // host time per decoding sequence per iteration (sampling, output)
  double layer_overhead_s;     // GPU time per layer per pass outside the roofline (kernel tails)
  bool overlap_host;           // host work of step n+1 overlaps the GPU's step n
  double allreduce_latency_s;  // per all-reduce over NVLink; x3 over PCIe, x6 over the network
  double link_efficiency;      // achieved share of the link's bandwidth in all-reduce
  double pp_efficiency;        // throughput kept per extra pipeline stage (stalls)
  double ep_imbalance;         // busiest expert-parallel rank's load / the mean
  double matvec_reread;        // weights re-streamed per extra row by matrix-vector kernels
  double error_median;         // |predicted/measured - 1| on the calibration rows
  double error_worst;
  // Client-seen time of a request outside the GPU steps: the HTTP front end, tokenization, the
  // hand-off to the scheduler and the first token's way back (detokenized, streamed). 0 where no
  // low-load TTFT was published.
  double request_overhead_s;
  const char* basis;
};
const ServingCalibration& serving_calibration(Engine e);

// What a GPU family achieves of its datasheet bandwidth and FLOPS relative to Hopper, where the
// engine factors were fitted (the same kernels run on every family).
struct FamilyFactor {
  const char* family;  // "hopper", "blackwell", "blackwell-workstation", ...
  double bw_scale;
  double flops_scale;
  const char* basis;
};
const FamilyFactor& family_factor(const ServingGpu& g);

struct Deployment {
  Engine engine = Engine::vllm;
  uint32_t tp = 1, pp = 1, replicas = 1;
  KvDtype kv = KvDtype::bf16;
  // MoE with attention data parallel + expert parallel (TensorRT-LLM enable_attention_dp, SGLang
  // --enable-dp-attention): each rank runs attention for its own sequences with the dense
  // weights whole, experts split over the ranks, one token exchange per MoE layer.
  bool attention_dp = false;
  EngineLimits limits;  // engine_limits() unless the user set them
  // The engine's memory share the user set (--gpu-memory-utilization); 0 = the engine's. Applied
  // over engine_limits() wherever a deployment's limits are made.
  double memory_fraction_given = 0;
  uint32_t max_model_len = 0;  // 0 = isl + osl
  double power_limit = 1.0;    // fraction of board power (--power-limit)
  Speculation spec;            // --spec: none unless asked
  // Disaggregated prefill and decode (--prefill-gpus; Dynamo, llm-d, SGLang's PD mode):
  // prefill_workers of prefill_tp GPUs each run the prompts and hand each request's KV to the
  // decode replicas (tp x pp x replicas above), which then only decode. 0: aggregated.
  uint32_t prefill_workers = 0, prefill_tp = 1;
  bool disaggregated() const { return prefill_workers > 0; }
  uint32_t decode_gpus() const { return tp * pp * replicas; }
  uint32_t gpus() const { return decode_gpus() + prefill_workers * prefill_tp; }
};

struct Workload {
  uint32_t isl = 1000, osl = 1000;  // tokens in and out per request
  uint32_t users = 0;               // concurrent requests; 0 = as many as fit (offline)
  double rate_per_s = 0;            // requests per second instead of users (Little's law)
  // A closed loop of `users` (fixed concurrency) starts every user at once, as fixed-concurrency
  // benchmarks do; each sends this many requests, one after another (InferenceMAX: 10 x the
  // concurrency in all). The first requests arrive as one wave; 0: the steady state alone.
  uint32_t requests_per_user = 10;
  double ttft_slo_s = 0;  // 0 = none
  double tpot_slo_s = 0;
  // What the SLOs bound: the mean (0) or the 90th / 99th percentile (MLPerf's limits are p99).
  uint32_t slo_percentile = 0;
  // Generation speed alone (llama-batched-bench S_TG, llama-bench tg): prompts are not mixed
  // into the decode steps.
  bool decode_only = false;
  // The tokens one request ends with, its prompt and its output: isl + osl (the context a
  // sequence needs). OverflowError past 32 bits.
  uint32_t request_tokens() const { return checked_u32(uint64_t{isl} + osl, "isl + osl tokens"); }
};

enum class Limit { memory, compute, bandwidth, link, host, batch, ttft, tpot, overload };
const char* limit_name(Limit l);

struct StepTime {
  uint32_t decode_tokens = 0, prefill_tokens = 0;  // per step, per replica
  uint64_t bytes_per_gpu = 0;                      // read per stage pass
  double flops_per_gpu = 0;
  double memory_s = 0;     // weights streamed by the GEMMs
  double compute_s = 0;    // the GEMMs' math
  double attention_s = 0;  // decode attention (KV reads) + prefill attention (math)
  double link_s = 0;
  double stage_s = 0;         // one micro-batch through one stage
  double gpu_s = 0;           // every micro-batch through every stage
  double host_s = 0;          // the host's work for the step
  double ram_s = 0;           // experts in system RAM: read there, and copied in for a prompt chunk
  double draft_s = 0;         // speculative decoding: the draft's k passes (and its prompt pass)
  double tokens_per_seq = 1;  // tokens each decoding sequence emits per step (spec: > 1)
  double step_s = 0;  // one verification step: tokens_per_seq tokens for every decoding sequence
  Limit bound = Limit::bandwidth;
};

// A value with the calibration's range.
struct Ranged {
  double value = 0, low = 0, high = 0;
};

struct ServingEstimate {
  bool fits = false;  // weights + one sequence fit in the pool
  // What one GPU must place under the engine's memory rule to serve one sequence: its weight
  // shard, activations and runtime (SGLang keeps those outside mem_fraction_static: not counted)
  // and its share of one sequence's KV (planning tokens). fits <=> the rule holds it
  // (share_of_total: need <= share x memory).
  uint64_t need_bytes_per_gpu = 0;
  uint64_t kv_pool_bytes_per_gpu = 0;
  uint64_t kv_bytes_per_seq = 0;            // planning: the tokens a sequence holds on average
  uint64_t kv_bytes_per_seq_guarantee = 0;  // max_model_len tokens
  uint32_t max_concurrency = 0;             // per replica, planning (what the scheduler admits)
  uint32_t max_concurrency_guarantee = 0;
  // As vLLM's start-up log words them ("GPU KV cache size: N tokens", "Maximum concurrency for L
  // tokens per request: C x"): the tokens one replica's pool holds (whole blocks, every attention
  // layer's KV per token), and the pool over one max_model_len request.
  uint64_t kv_cache_tokens = 0;
  double max_concurrency_at_max_model_len = 0;
  uint32_t concurrency = 0;  // running per replica
  uint32_t queued = 0;       // waiting per replica (users beyond max_concurrency)
  double mean_context = 0;   // tokens a decoding sequence attends to, on average
  StepTime step;
  Ranged output_tokens_per_s;    // all replicas
  Ranged per_user_tokens_per_s;  // 1 / inter-token latency
  Ranged ttft_s;  // zero when overloaded: the queue grows without bound, there is no mean
  double ttft_p90_s = 0, ttft_p99_s = 0;  // percentiles over the requests (first wave included)
  Ranged itl_s;
  double itl_p90_s = 0, itl_p99_s = 0;
  // TTFT and ITL at a Workload::slo_percentile (0: the mean).
  double ttft_at(uint32_t percentile) const {
    return percentile >= 99 ? ttft_p99_s : percentile >= 90 ? ttft_p90_s : ttft_s.value;
  }
  double itl_at(uint32_t percentile) const {
    return percentile >= 99 ? itl_p99_s : percentile >= 90 ? itl_p90_s : itl_s.value;
  }
  double requests_per_s = 0;
  // One request's cycle in a slot (what --explain derives the aggregate and TTFT from): its
  // prompt's chunks, the wait for the prefill budget, the wait for a free slot, then osl - 1
  // inter-token latencies.
  double cycle_s = 0;
  double prefill_service_s = 0;
  double queue_wait_s = 0;
  double slot_wait_s = 0;
  // The first wave's share of the mean TTFT: (the wave's mean wait - the steady one) /
  // requests_per_user; and the engine's request overhead (ServingCalibration).
  double first_wave_s = 0;
  double request_overhead_s = 0;
  // Disaggregated: the prompts a prefill worker completes per second, the share of that the
  // offered requests keep busy, and the seconds each request's KV takes to reach its decode
  // worker over the link between them.
  double prefill_requests_per_s_per_worker = 0;
  double prefill_utilization = 0;
  double kv_transfer_s = 0;
  double power_scale = 1;  // throughput factor of the power limit
  Limit limited_by = Limit::bandwidth;
  bool meets_ttft = true, meets_tpot = true;
  // A --rate beyond what the replicas complete (limited_by overload): requests arrive faster than
  // they finish, so the queue and the wait grow for as long as the rate lasts.
  bool overloaded = false;
  // When overloaded: the most requests/s all replicas keep up with (the highest rate that is not
  // overloaded, bisected to 2^-30 of --rate); what they complete while overloaded.
  double sustainable_requests_per_s = 0;
  const ServingCalibration* calibration = nullptr;
};

// One step of `decode` sequences at mean context `ctx` plus `prefill` prompt tokens of prompts
// `isl` long, on one replica.
StepTime serving_step(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                      uint32_t decode, double ctx, uint32_t prefill, uint32_t isl);

// REQUIRES: d.tp, d.pp, d.replicas > 0; w.isl, w.osl > 0.
ServingEstimate estimate_serving(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                                 const Workload& w);

// Everything estimate_serving needs for model m at preset q on `gpu` under `engine`'s defaults:
// weights and activations from estimate() with the engine's allocation rules, engine_limits()
// for the GPU. exact_weights replaces the preset's weights (a file read tensor by tensor).
struct ServingSetup {
  ServingModel model;
  ServingGpu gpu;
  Deployment deployment;
};
ServingSetup serving_setup(const ModelSpec& m, const QuantPreset& q, const GpuSpec& gpu,
                           Engine engine, KvDtype kv, uint32_t tp, uint32_t pp, uint32_t replicas,
                           uint32_t gpus_per_node, const Weights* exact_weights = nullptr,
                           uint32_t n_cpu_moe = 0, const DraftModel* draft = nullptr,
                           bool load_nextn = false);

// The largest n in [lo, hi] with holds(n), where holds is true up to some n and false past it
// (concurrency against a target, tokens against a pool): bisection, O(log(hi - lo)) calls.
// REQUIRES: lo <= hi, holds(lo).
template <typename Holds>
uint32_t largest_holding(uint32_t lo, uint32_t hi, Holds holds) {
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1) / 2;
    if (holds(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// The largest max_model_len in [1, limit] whose one sequence's KV (the guarantee the engine
// checks at start: vLLM refuses a max_model_len whose KV exceeds the pool) fits d's KV pool; 0
// when not even one token does. Binary search on the same memory rule estimate_serving() uses.
uint32_t serving_max_model_len(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                               uint32_t limit);

// The tokens of KV a running sequence holds under the engine's reservation: on demand (vLLM,
// SGLang) isl + osl / 2 on average, a whole request up front (TensorRT-LLM) isl + osl, a slot
// (llama.cpp, Ollama, transformers) the whole max_model_len (0: isl + osl).
uint32_t kv_tokens_held(KvReservation r, const Workload& w, uint32_t max_model_len);

// Throughput factor at a power cap (fraction of board power), piecewise linear through measured
// points (tests/data/serving_throughput.json power rows): 2 x RTX PRO 6000 GLM-4.5-Air FP8 at
// 250/300/360/600 W of 600 W -> 0.840/0.954/0.991/1; below the lowest point, proportional.
double power_limit_speed(double fraction);

}  // namespace llmsize
