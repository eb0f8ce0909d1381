#include "llmsize/serving/serving.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/model/tensors.hpp"
#include "llmsize/serving/speed.hpp"
#include "llmsize/units.hpp"

namespace llmsize {
namespace {

// Calibration per engine (docs/formulas.md §14, bench/accuracy "serving").
const ServingCalibration kCalibrations[] = {
    // engine, e_bw, e_kv, e_fl, m_half, t_iter, t_seq, t_layer, overlap, allreduce latency, e_link,
    // e_pp,
    // ep_imbalance, matvec_reread, errors (median, worst), request overhead (s): vLLM's from the
    // InferenceMAX gpt-oss-120b rows at concurrency 4 (H100 TP2, H200 and B200 TP8: measured mean
    // TTFT less the modelled prefill and first wave, 22-35 ms), SGLang's front end taken as vLLM's
    // (the same tokenizer / detokenizer processes around the scheduler; no low-load row),
    // TensorRT-LLM's from the NIM rows at concurrency 1 (4-8 ms).
    {Engine::llama_cpp, 0.70, 0.55, 0.45, 64, 1.5e-3, 20e-6, 0, false, 25e-6, 0.7, 0.95, 1.6, 0.2,
     0.25, 0.5, 0,
     "llama.cpp batched-bench on Apple M2 Ultra (3 rows, B = 1-4); other GPUs share the "
     "single-stream calibration of speed.cpp"},
    {Engine::ollama, 0.70, 0.55, 0.45, 64, 2.0e-3, 20e-6, 0, false, 25e-6, 0.7, 0.95, 1.6, 0.2, 0.3,
     0.6, 0, "llama.cpp's factors (Ollama runs llama.cpp) with its HTTP/runner overhead"},
    {Engine::vllm, 0.80, 0.60, 0.50, 64, 1.0e-3, 25e-6, 25e-6, true, 12e-6, 0.7, 0.95, 1.6, 0, 0.25,
     0.6, 20e-3,
     "TensorRT-LLM's kernel factors; vLLM's scheduler overlaps the GPU's step (async scheduling, "
     "on by default since vllm-project/vllm PR 27614, late 2025); InferenceMAX and MLPerf rows of "
     "2025-26 in bench/accuracy"},
    {Engine::sglang, 0.80, 0.60, 0.50, 64, 1.0e-3, 25e-6, 25e-6, true, 12e-6, 0.7, 0.95, 1.6, 0,
     0.25, 0.6, 20e-3,
     "TensorRT-LLM's kernel factors with SGLang's overlap scheduler; no fixed-length SGLang rows "
     "shipped"},
    {Engine::trt_llm, 0.80, 0.60, 0.55, 64, 2.0e-3, 25e-6, 25e-6, true, 10e-6, 0.7, 0.95, 1.6, 0,
     0.13, 1.15, 5e-3,
     "TensorRT-LLM perf-overview (trtllm-bench, offline): Llama-3.1-8B/3.3-70B/3.1-405B, "
     "Qwen3-30B-A3B/235B-A22B on H100/H200/B200/RTX PRO 6000"},
    {Engine::transformers, 0.60, 0.40, 0.35, 64, 8.0e-3, 50e-6, 25e-6, false, 30e-6, 0.6, 0.8, 1.6,
     0, 0.4, 1.0, 0,
     "transformers generate(): no serving rows shipped; eager kernels, static batches"},
};

// Fitted on the perf-overview rows of each family (docs/formulas.md §14); families without rows
// keep Hopper's factors and the wider error of their engine.
const FamilyFactor kFamilies[] = {
    {"hopper", 1.0, 1.0, "H100 SXM / H200 rows (the engine factors)"},
    {"blackwell", 0.8, 0.7,
     "B200 rows: Llama-3.3-70B / 3.1-405B / Qwen3 FP4, median ratio 1.5 at Hopper factors"},
    {"blackwell-workstation", 1.0, 1.0, "RTX PRO 6000 rows"},
    {"cdna3", 0.5, 0.7,
     "MI300X / MI325X rows of 2025-26 (bench/accuracy serving 2026: SGLang DeepSeek-R1, vLLM "
     "Llama-2/3.1-70B and Mixtral; InferenceMAX, MLPerf v5.1): 1.3-2.8x too fast at Hopper "
     "factors, the ROCm kernels reaching less of the datasheet"},
    {"other", 1.0, 1.0, "no serving rows: Hopper factors"},
};

double peak_tflops(const ServingGpu& g, ComputeDtype c) {
  return tensor_rate(g, c).tflops;
}

// Expected distinct experts that m tokens activate in one layer when each picks k of n uniformly.
double distinct_experts(uint32_t n, uint32_t k, double m) {
  if (n == 0) return 0;
  return n * (1 - std::pow(1 - static_cast<double>(k) / n, m));
}

// Ring all-reduce of `bytes` on `n` GPUs: 2 (n - 1) / n x bytes over the link, plus latency.
double allreduce_s(double bytes, uint32_t n, double link_gb_per_s, double latency_s) {
  if (n <= 1) return 0;
  return latency_s + 2.0 * (n - 1) / n * bytes / (link_gb_per_s * 1e9);
}

}  // namespace

const char* compute_dtype_name(ComputeDtype c) {
  switch (c) {
    case ComputeDtype::bf16:
      return "BF16";
    case ComputeDtype::fp8:
      return "FP8";
    case ComputeDtype::fp4:
      return "FP4";
    case ComputeDtype::int8:
      return "INT8";
    case ComputeDtype::mxfp4:
      return "MXFP4";
  }
  return "BF16";
}

namespace {
// Whether a GPU of architecture `a` has tensor cores for `c` (the makers' architecture papers:
// FP8 from Ada, Hopper, CDNA 3 and RDNA 4; FP4 from Blackwell and CDNA 4); an unrecorded
// architecture may have them.
bool has_dtype(const std::string& a, ComputeDtype c) {
  if (a.empty() || c == ComputeDtype::bf16 || c == ComputeDtype::int8) return true;
  const bool blackwell = a == "blackwell" || a == "blackwell-ultra" || a == "rtx-blackwell";
  if (c == ComputeDtype::fp4 || c == ComputeDtype::mxfp4) return blackwell || a == "cdna4";
  return blackwell || a == "hopper" || a == "ada" || a == "cdna3" || a == "cdna4" || a == "rdna4";
}
}  // namespace

TensorRate tensor_rate(const ServingGpu& g, ComputeDtype c) {
  TensorRate r;
  auto own = [&](ComputeDtype d) {
    switch (d) {
      case ComputeDtype::fp8:
        return g.fp8_tflops;
      case ComputeDtype::fp4:
      case ComputeDtype::mxfp4:
        return g.fp4_tflops;
      case ComputeDtype::int8:
        return g.int8_tops;
      case ComputeDtype::bf16:
        return g.bf16_tflops;
    }
    return 0.0;
  };
  for (ComputeDtype d = c;;) {
    if (own(d) > 0) {
      r.tflops = own(d);
      r.used = d;
      break;
    }
    if (has_dtype(g.architecture, d)) r.missing = true;
    if (d == ComputeDtype::bf16) {
      r.tflops = kAssumedTflops;
      r.assumed = true;
      break;
    }
    d = d == ComputeDtype::fp4 ? ComputeDtype::fp8 : ComputeDtype::bf16;  // MXFP4 -> BF16
  }
  return r;
}

ComputeDtype compute_dtype(const QuantPreset& q) {
  switch (q.ftype) {
    case Ftype::HF_FP8:
    case Ftype::HF_FP8_MXFP4_EXPERTS:  // FP8 activations; vLLM dequantizes the FP4 experts
      return ComputeDtype::fp8;
    case Ftype::HF_NVFP4:
      return ComputeDtype::fp4;
    case Ftype::HF_INT8:
      return ComputeDtype::int8;
    case Ftype::HF_MXFP4_EXPERTS:
    case Ftype::MXFP4_MOE:
      return ComputeDtype::mxfp4;
    default:
      return ComputeDtype::bf16;
  }
}

namespace {
// What each serving engine's MXFP4 MoE kernel multiplies gpt-oss's FP4 experts with, on datacenter
// Blackwell (SM100 / SM103) and on every other GPU. Engines not listed keep compute_dtype().
// The environment a kernel needs is set by the launch files (LaunchPlan::environment).
struct Mxfp4MoeKernel {
  Engine engine;
  ComputeDtype blackwell, other;
  const char* blackwell_environment;  // "NAME=value", or ""
  const char* source;
};
const Mxfp4MoeKernel kMxfp4MoeKernels[] = {
    {Engine::vllm, ComputeDtype::fp8, ComputeDtype::bf16, "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1",
     "vllm-project/vllm@afdb4a4 vllm/model_executor/layers/quantization/mxfp4.py "
     "get_mxfp4_backend: FlashInfer MXFP4 x MXFP8 on SM100 with "
     "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1 (as InferenceMAX/InferenceMAX@cc9bed4 "
     "benchmarks/gptoss_fp4_b200_docker.sh runs it; MXFP4 x BF16 without), Triton or Marlin "
     "(BF16) on Hopper and ROCm"},
    {Engine::sglang, ComputeDtype::fp8, ComputeDtype::bf16, "",
     "sgl-project/sglang@0043c43 python/sglang/srt/layers/quantization/mxfp4.py "
     "Mxfp4MoEMethod.apply: FlashInfer trtllm-gen MoE with mxfp8_quantize(x) unless the BF16 "
     "precision is chosen; triton_kernels (BF16) otherwise"},
    {Engine::trt_llm, ComputeDtype::fp8, ComputeDtype::bf16, "",
     "NVIDIA/TensorRT-LLM@0ee4114 examples/models/core/gpt_oss/README.md MoE support matrix: "
     "activations MXFP8 on Blackwell, BF16 on Hopper"},
};

const Mxfp4MoeKernel* mxfp4_moe_kernel(const QuantPreset& q, Engine engine) {
  if (compute_dtype(q) != ComputeDtype::mxfp4) return nullptr;
  for (const Mxfp4MoeKernel& k : kMxfp4MoeKernels)
    if (k.engine == engine) return &k;
  return nullptr;
}

bool datacenter_blackwell(const std::string& arch) {
  return arch == "blackwell" || arch == "blackwell-ultra";
}
}  // namespace

ComputeDtype moe_compute_dtype(const QuantPreset& q, Engine engine, const std::string& arch) {
  const Mxfp4MoeKernel* k = mxfp4_moe_kernel(q, engine);
  return !k ? compute_dtype(q) : datacenter_blackwell(arch) ? k->blackwell : k->other;
}

std::string moe_kernel_environment(const QuantPreset& q, Engine engine, const std::string& arch) {
  const Mxfp4MoeKernel* k = mxfp4_moe_kernel(q, engine);
  return k && datacenter_blackwell(arch) ? k->blackwell_environment : "";
}

const char* limit_name(Limit l) {
  switch (l) {
    case Limit::memory:
      return "memory";
    case Limit::compute:
      return "compute";
    case Limit::bandwidth:
      return "bandwidth";
    case Limit::link:
      return "link";
    case Limit::host:
      return "host";
    case Limit::batch:
      return "batch";
    case Limit::ttft:
      return "ttft";
    case Limit::tpot:
      return "tpot";
    case Limit::overload:
      return "overload";
  }
  return "bandwidth";
}

ServingModel serving_model(const ModelSpec& m, const QuantPreset& q, const Weights& w,
                           uint64_t activation_bytes, KvDtype kv) {
  ServingModel s;
  // The MTP layers vLLM does not load are left out; its kernels' padding of the experts is in.
  s.weight_bytes = w.bytes - w.nextn_bytes_not_loaded + w.layout_padding_bytes;
  s.n_layer = m.n_layer;
  s.n_embd = m.n_embd;
  s.n_head = m.n_head;
  s.n_head_kv = m.is_mla() ? 1 : m.n_head_kv;
  s.head_dim = m.n_embd_head_k;
  s.n_expert = m.is_moe() ? m.n_expert : 0;
  s.n_expert_used = m.is_moe() ? m.n_expert_used : 0;
  // gpt-oss's checkpoint keeps all but the routed experts in BF16.
  s.expert_compute = compute_dtype(q);
  s.compute = q.ftype == Ftype::HF_MXFP4_EXPERTS ? ComputeDtype::bf16 : s.expert_compute;
  s.activation_bytes = activation_bytes;
  // Routed experts and the embedding table, tensor by tensor under q (the same assignment
  // compute_weights makes); scaled to w when the weights came from a file.
  const auto tensors = model_tensors(m);
  const auto types = assign_tensor_types(m, tensors, q);
  uint64_t experts = 0, embd = 0, total = 0, embd_params = 0, nextn = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    const uint64_t b = tensor_bytes(types[i], t.ne[0], t.n_elements());
    total += b;
    // Next-n (MTP) layers, when loaded, are the speculative draft's: not read by the main step.
    if (t.layer >= 0 && static_cast<uint32_t>(t.layer) >= m.n_layer) {
      nextn += b;
      continue;
    }
    if (t.role == TensorRole::ffn_gate_exps || t.role == TensorRole::ffn_up_exps ||
        t.role == TensorRole::ffn_down_exps)
      experts += b;
    if (t.role == TensorRole::token_embd) embd += b, embd_params += t.n_elements();
  }
  const double scale = total ? static_cast<double>(w.bytes) / static_cast<double>(total) : 1;
  experts = static_cast<uint64_t>(static_cast<double>(experts) * scale);
  embd = static_cast<uint64_t>(static_cast<double>(embd) * scale);
  nextn = w.nextn_bytes_not_loaded ? 0 : static_cast<uint64_t>(static_cast<double>(nextn) * scale);
  for (uint32_t il = 0; il < m.n_layer; ++il) s.n_layer_moe += m.is_moe_layer(il) ? 1 : 0;
  if (s.n_expert && s.n_layer_moe) s.expert_bytes = experts / s.n_expert / s.n_layer_moe;
  // Each step reads everything but the routed experts and the embedding table (one row per
  // token); a tied output head is the embedding table, read whole.
  // (The experts' padding, Weights::layout_padding_bytes, is memory: the speed factors calibrated
  // on the engines' measured throughput already carry their kernels' layout.)
  const uint64_t dense =
      w.bytes - w.nextn_bytes_not_loaded - nextn - experts - (m.tied_embeddings ? 0 : embd);
  s.dense_read_bytes = dense;
  const uint64_t active = w.active_params ? w.active_params : w.params;
  s.matmul_params = active > embd_params && !m.tied_embeddings ? active - embd_params : active;

  KvCacheConfig c;
  c.n_ctx = 1;
  c.n_seq = 1;
  c.padding = 1;
  c.type_k = c.type_v = kv_tensor_type(kv);
  const KvCache k = kv_cache(m, c);
  const uint64_t per_token = k.total_bytes();
  const uint32_t n_layers = std::max<uint32_t>(1, k.n_layer_full + k.n_layer_swa);
  s.kv_bytes_per_token_swa = per_token * k.n_layer_swa / n_layers;
  s.kv_bytes_per_token = per_token - s.kv_bytes_per_token_swa;
  s.n_swa = m.n_swa;
  return s;
}

ServingModel serving_model(const ModelSpec& m, const QuantPreset& q, const Weights& w,
                           const ComputeBuffer& activations, uint32_t profile_tokens, KvDtype kv) {
  if (!activations.torch || activations.summed || !profile_tokens)
    return serving_model(m, q, w, activations.bytes(), kv);
  ServingModel s =
      serving_model(m, q, w, std::max(activations.ffn_bytes, activations.attention_bytes), kv);
  s.profile_tokens = profile_tokens;
  s.hidden_bytes_per_token = 2 * uint64_t{m.n_embd};
  s.sampler_bytes_per_row = checked_mul(uint64_t{m.n_vocab}, kVllmSamplerBytesPerLogit);
  // An encoder samples nothing (the profile's output is its hidden states alone).
  if (m.task != Task::generation) s.sampler_bytes_per_row = 0;
  return s;
}

ServingGpu serving_gpu(const GpuSpec& g, uint32_t gpus_per_node) {
  ServingGpu s;
  s.id = g.id;
  s.vendor = g.vendor;
  s.gpu_class = g.gpu_class;
  s.memory_bytes = g.usable_bytes();
  s.bandwidth_gb_per_s = g.bandwidth_gb_per_s;
  s.bf16_tflops = g.bf16_tflops_dense > 0 ? g.bf16_tflops_dense : g.fp16_tflops_dense;
  s.board_power_w = g.board_power_w;
  s.gpus_per_node = std::max<uint32_t>(1, gpus_per_node);
  s.fp8_tflops = g.fp8_tflops_dense;
  s.fp4_tflops = g.fp4_tflops_dense;
  s.int8_tops = g.int8_tops_dense;
  s.architecture = g.architecture;
  s.small_batch_defaults = vllm_small_batch_defaults(g);
  s.pcie_gb_per_s = pcie_gb_per_s(g);
  // The catalog's interconnect figure is the total of both directions (H100 NVLink 900 GB/s).
  if (g.interconnect == GpuInterconnect::nvlink || g.interconnect == GpuInterconnect::xgmi ||
      g.interconnect == GpuInterconnect::infinity_fabric) {
    s.link = g.interconnect == GpuInterconnect::nvlink ? LinkKind::nvlink : LinkKind::xgmi;
    s.link_gb_per_s = g.interconnect_gb_per_s / 2;
    s.link_group = g.link_domain_gpus ? g.link_domain_gpus : 8;
  } else if (g.interconnect == GpuInterconnect::nvlink_bridge) {
    s.link = LinkKind::nvlink;
    s.link_gb_per_s = g.interconnect_gb_per_s / 2;
    s.link_group = 2;
  } else {
    s.link = g.unified_memory ? LinkKind::none : LinkKind::pcie;
    s.link_gb_per_s = s.pcie_gb_per_s;
    s.link_group = s.gpus_per_node;
  }
  return s;
}

const FamilyFactor& family_factor(const ServingGpu& g) {
  const std::string& a = g.architecture;
  if (a == "hopper") return kFamilies[0];
  if (datacenter_blackwell(a)) return kFamilies[1];
  if (a == "rtx-blackwell") return kFamilies[2];
  if (a == "cdna3") return kFamilies[3];
  return kFamilies[4];
}

const ServingCalibration& serving_calibration(Engine e) {
  return kCalibrations[static_cast<int>(e)];
}

namespace {

// What one step moves and for whom: the step's shape and the bytes each GPU streams.
struct StepShape {
  uint32_t pp = 1, tp = 1;
  // Pipeline engines (vLLM, SGLang, TensorRT-LLM) keep pp micro-batches of decode / pp sequences
  // in flight; layer-split engines (llama.cpp) run the whole batch through the GPUs in turn.
  bool layer_split = false;
  double mb = 1;              // micro-batches per step
  double seqs = 0;            // decoding sequences per micro-batch
  double dm = 0, pm = 0;      // decode rows (seqs x the positions each verifies) and prompt tokens
  double tokens = 0;          // dm + pm
  double stage = 1;           // share of the layers per stage
  bool adp = false;           // attention data parallel
  double imbalance = 1;       // the busiest expert-parallel rank over the mean
  double weights = 0;         // weight bytes each GPU streams per micro-batch
  double expert_weights = 0;  // of which routed experts'
  double expert_rows = 0;     // decode rows each active expert multiplies, on average
  double kv = 0;              // KV bytes each GPU reads and writes per micro-batch
  double bw = 0;              // the GPU's memory bandwidth, bytes/s, family-scaled
  double flops_scale = 1;     // the GPU family's compute factor
  bool matvec = false;        // decode rows through matrix-vector kernels
};

// Seconds to stream the step's weights: once through GEMMs; through matrix-vector kernels again
// for matvec_reread of each extra row a matrix multiplies: every decode row for the dense
// matrices, the rows routed to it for an expert (mul_mat_id: an expert sees only its tokens).
double weight_stream_s(const ServingCalibration& cal, const StepShape& h) {
  auto reread = [&](double rows) {
    return h.matvec ? 1 + cal.matvec_reread * (std::max(1.0, rows) - 1) : 1;
  };
  const double dense = h.weights - h.expert_weights;
  return (dense * reread(h.dm) + h.expert_weights * reread(h.expert_rows)) /
         (cal.bw_efficiency * h.bw);
}

// The kernels of a step, as engines run them: the linear layers as GEMMs over all d + p tokens
// (weights streamed once, compute at the weights' precision), decode attention reading each
// decoding sequence's KV (memory bound), prefill attention over the prompt chunks (compute
// bound, causal: half the prompt on average). Fills s.bytes_per_gpu and s.memory_s.
StepShape step_shape(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                     uint32_t decode, double ctx, uint32_t prefill, StepTime& s) {
  const ServingCalibration& cal = serving_calibration(d.engine);
  const EngineProfile& prof = engine_profile(d.engine);
  StepShape h;
  h.pp = std::max<uint32_t>(1, d.pp);
  h.tp = std::max<uint32_t>(1, d.tp);
  h.layer_split = prof.default_split == SplitMode::layer;
  h.mb = h.layer_split ? 1 : h.pp;
  // Speculative decoding: every decoding sequence puts its k drafted positions through the
  // target beside its own token (rows through the GEMMs and attention), its KV read once.
  h.seqs = static_cast<double>(decode) / h.mb;
  h.dm = h.seqs * d.spec.rows_per_seq();
  h.pm = static_cast<double>(prefill) / h.mb;
  h.tokens = h.dm + h.pm;
  h.stage = 1.0 / h.pp;
  const uint32_t tp = h.tp;
  h.adp = d.attention_dp && m.n_expert && tp > 1;
  double experts = 0;
  if (m.n_expert) {
    const double active = distinct_experts(m.n_expert, m.n_expert_used, std::max(1.0, h.tokens));
    experts = active * static_cast<double>(m.expert_bytes) * m.n_layer_moe;
  }
  // Attention DP: each rank reads the dense weights whole, its 1/tp of the experts and its own
  // sequences' KV.
  const double dense_gpu = static_cast<double>(m.dense_read_bytes) / (h.adp ? 1 : tp);
  // Expert parallel: the busiest rank sets the pace (routing is not uniform; ep_imbalance is the
  // max / mean expert load of a rank, fitted on the attention-DP rows).
  h.imbalance = h.adp ? cal.ep_imbalance : 1.0;
  // Experts in system RAM are read there (serving_step's ram_s), not streamed by the GPUs.
  if (m.n_layer_moe) experts *= 1 - static_cast<double>(m.n_layer_moe_host) / m.n_layer_moe;
  h.weights = (dense_gpu + experts / tp * h.imbalance) * h.stage;
  h.expert_weights = experts / tp * h.imbalance * h.stage;
  h.expert_rows = m.n_expert
                      ? std::max(1.0, h.dm) * m.n_expert_used /
                            distinct_experts(m.n_expert, m.n_expert_used, std::max(1.0, h.dm))
                      : 0;
  const double kv_split = h.adp ? tp : std::min<double>(tp, std::max<uint32_t>(1, m.n_head_kv));
  const double ctx_swa = m.n_swa ? std::min<double>(ctx, m.n_swa) : ctx;
  const double kv_seq = static_cast<double>(m.kv_bytes_per_token) * ctx +
                        static_cast<double>(m.kv_bytes_per_token_swa) * ctx_swa +
                        static_cast<double>(m.state_bytes_per_seq);
  const double kv_write =
      static_cast<double>(m.kv_bytes_per_token + m.kv_bytes_per_token_swa) * (h.dm + h.pm);
  h.kv = (kv_seq * h.seqs + kv_write) * h.stage / kv_split;
  s.bytes_per_gpu = static_cast<uint64_t>(h.weights + h.kv);
  const FamilyFactor& fam = family_factor(g);
  h.bw = g.bandwidth_gb_per_s * 1e9 * fam.bw_scale;
  h.flops_scale = fam.flops_scale;
  // Matrix-vector kernels (llama.cpp mul_mv for batches up to 8 rows) stream the weights again
  // for part of every extra row; serving_step() keeps them only where they beat the GEMMs.
  // Prompt tokens go through the GEMM path in their own ubatches.
  h.matvec = cal.matvec_reread > 0 && h.dm <= 8;
  s.memory_s = weight_stream_s(cal, h);
  return h;
}

// The GEMMs and attention of a step: fills s.flops_per_gpu, s.compute_s and s.attention_s;
// returns the GEMMs' time, each kind of step at its roofline.
double step_compute(const ServingModel& m, const ServingGpu& g, const Deployment& d, double ctx,
                    uint32_t isl, const StepShape& h, StepTime& s) {
  const ServingCalibration& cal = serving_calibration(d.engine);
  const EngineProfile& prof = engine_profile(d.engine);
  const double dm = h.dm, pm = h.pm, stage = h.stage;
  const uint32_t tp = h.tp;
  const bool matvec = h.matvec;
  // GEMM efficiency grows with the rows it multiplies: m / (m + m_half) of the fitted factor
  // (tile quantization); routed experts see rows x n_expert_used / active experts each. Decode
  // rows run at the batch's size; prompt rows in chunks of min(isl, token budget) (+ the decode
  // rows sharing the step), however thinly they are spread over steps on average.
  auto gemm_eff = [&](double rows) { return rows / (rows + cal.gemm_m_half); };
  const double moe_share =
      m.n_expert && m.matmul_params
          ? std::min(1.0, static_cast<double>(m.expert_bytes) * m.n_expert_used * m.n_layer_moe /
                              std::max(1.0, static_cast<double>(m.weight_bytes)))
          : 0;
  auto rows_eff = [&](double rows) {
    rows = std::max(1.0, rows);
    double per_expert = rows;
    if (m.n_expert)
      per_expert = rows * m.n_expert_used / distinct_experts(m.n_expert, m.n_expert_used, rows);
    return (1 - moe_share) * gemm_eff(rows) + moe_share * gemm_eff(per_expert);
  };
  const double budget = d.limits.max_num_batched_tokens && prof.chunked_prefill
                            ? static_cast<double>(d.limits.max_num_batched_tokens)
                            : static_cast<double>(isl);
  const double chunk_rows = std::min<double>(isl, budget) + (matvec ? 0 : dm);
  const double matmul = 2.0 * static_cast<double>(m.matmul_params) * h.tokens;
  const double attn_decode = 4.0 * m.n_head * m.head_dim * m.n_layer * dm * ctx;
  const double attn_prefill = 4.0 * m.n_head * m.head_dim * m.n_layer * pm * isl / 2.0;
  s.flops_per_gpu = (matmul + attn_decode + attn_prefill) * stage / tp;
  const double eff = cal.flops_efficiency * h.flops_scale;
  // The dense layers at their rate, the routed experts (the busiest rank's) at theirs.
  const double per_token = 2.0 * static_cast<double>(m.matmul_params) * stage / tp / (1e12 * eff) *
                           ((1 - moe_share) / peak_tflops(g, m.compute) +
                            moe_share * h.imbalance / peak_tflops(g, m.expert_compute));
  // A share f of the steps carries a prompt chunk (rows = decode + chunk), the rest decode only:
  // each kind is its own roofline, averaged.
  const double chunk_tokens = chunk_rows - (matvec ? 0 : dm);
  const double f = pm > 0 ? std::min(1.0, pm / chunk_tokens) : 0;
  const double decode_only = matvec ? 0 : per_token * dm / rows_eff(dm);
  const double with_chunk =
      f < 1 ? per_token * (matvec ? chunk_tokens : dm + chunk_tokens) / rows_eff(chunk_rows)
            : per_token * (matvec ? pm : dm + pm) / rows_eff(matvec ? pm : dm + pm);
  s.compute_s = f * with_chunk + (1 - f) * decode_only;
  const double gemm_s =
      f * std::max(s.memory_s, with_chunk) + (1 - f) * std::max(s.memory_s, decode_only);
  const double f16 = peak_tflops(g, ComputeDtype::bf16) * 1e12 * eff;
  s.attention_s = std::max(h.kv / (cal.kv_bw_efficiency * h.bw), attn_decode * stage / tp / f16) +
                  attn_prefill * stage / tp / f16;
  return gemm_s;
}

// The collectives of a step: tensor-parallel all-reduces and the pipeline's hand-offs, seconds.
double step_link(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                 const StepShape& h) {
  const ServingCalibration& cal = serving_calibration(d.engine);
  const uint32_t tp = h.tp, pp = h.pp;
  // Tensor parallel: 2 all-reduces per layer of tokens x n_embd x 2 bytes. Within one NVLink
  // group at its speed, else PCIe; past one node the network carries pipeline stages only (the
  // search keeps tp within a node).
  double link_gb = g.link_gb_per_s, latency = cal.allreduce_latency_s;
  if (tp > g.link_group || g.link == LinkKind::pcie) link_gb = g.pcie_gb_per_s, latency *= 3;
  if (tp > g.gpus_per_node) link_gb = g.network_gb_per_s, latency *= 6;
  const double msg = h.tokens * m.n_embd * 2.0;
  // Attention DP exchanges each token once per MoE layer (dispatch + combine ~ one all-reduce).
  const double collectives = h.adp ? m.n_layer_moe : 2.0 * m.n_layer;
  double link_s = collectives * h.stage *
                  allreduce_s(msg, tp, std::max(1.0, link_gb * cal.link_efficiency), latency);
  // Pipeline: activations handed to the next stage (network when stages span nodes).
  if (pp > 1) {
    const bool cross = tp * pp > g.gpus_per_node;
    const double p2p_gb = cross ? g.network_gb_per_s : std::max(g.link_gb_per_s, g.pcie_gb_per_s);
    link_s += (cross ? 6 : 1) * cal.allreduce_latency_s + msg / (p2p_gb * 1e9);
  }
  return link_s;
}

// The draft's share of a speculative step (serving/speculative.hpp), as vLLM's EAGLE / MTP proposer
// runs it (vllm/v1/spec_decode/eagle.py propose: one forward over the tokens the target just
// processed, its verified tokens and prompt chunks, then k - 1 forwards of one token per
// sequence): steps of the draft model on the same GPUs and layout, without the host's work (the
// engine's step carries it).
double draft_time(const Deployment& d, const ServingGpu& g, uint32_t decode, double ctx,
                  uint32_t prefill, uint32_t isl) {
  if (!d.spec.active()) return 0;
  Deployment dd = d;
  dd.spec = {};
  double t = serving_step(d.spec.draft, g, dd, decode, ctx, prefill, isl).gpu_s;
  if (decode && d.spec.draft_tokens > 1)
    t += (d.spec.draft_tokens - 1) * serving_step(d.spec.draft, g, dd, decode, ctx, 0, isl).gpu_s;
  return t;
}

}  // namespace

StepTime serving_step(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                      uint32_t decode, double ctx, uint32_t prefill, uint32_t isl) {
  const ServingCalibration& cal = serving_calibration(d.engine);
  const EngineProfile& prof = engine_profile(d.engine);
  StepTime s;
  s.decode_tokens = decode;
  s.prefill_tokens = prefill;
  StepShape h = step_shape(m, g, d, decode, ctx, prefill, s);
  double gemm_s = step_compute(m, g, d, ctx, isl, h, s);
  if (h.matvec) {
    // llama.cpp takes matrix-vector kernels for small batches because they are the faster
    // there; where the GEMM roofline is faster (a wide MoE batch, a slow re-read), the step is
    // the GEMMs'. Either way the step grows with the batch.
    StepTime t = s;
    StepShape gh = h;
    gh.matvec = false;
    t.memory_s = weight_stream_s(cal, gh);
    const double gemm_t = step_compute(m, g, d, ctx, isl, gh, t);
    if (gemm_t < gemm_s) {
      s = t;
      h = gh;
      gemm_s = gemm_t;
    }
  }
  s.link_s = step_link(m, g, d, h);
  // Experts in RAM (--n-cpu-moe): llama.cpp's CPU computes a decode token's, reading the experts
  // it routes to at the host's rate; each prompt micro-batch of host_copy_tokens copies every
  // one of them to the GPU instead (op offload), that copy's share charged to the step.
  if (m.host_expert_bytes) {
    const double read = h.dm > 0 ? distinct_experts(m.n_expert, m.n_expert_used, h.dm) *
                                       static_cast<double>(m.expert_bytes) * m.n_layer_moe_host
                                 : 0;
    s.ram_s = read / (std::max(1.0, m.host_read_gb_per_s) * 1e9);
    const double chunk =
        std::max<double>(kOpOffloadMinBatch, std::min<double>(isl, m.host_copy_tokens));
    if (h.pm > 0)
      s.ram_s += h.pm / chunk * static_cast<double>(m.host_expert_bytes) /
                 (std::max(1.0, m.host_copy_gb_per_s) * 1e9);
  }
  s.stage_s = gemm_s + s.attention_s + s.link_s + s.ram_s * h.stage;
  // Per-layer kernel tails and launches (graphs keep them short, eager launches add 20 us).
  s.stage_s += m.n_layer * h.stage * (cal.layer_overhead_s + (prof.cuda_graphs ? 0 : 20e-6));
  // Bound: what the step spends most on (weights or KV streaming vs GEMM or prefill math).
  const double attn_mem = h.kv / (cal.kv_bw_efficiency * h.bw);
  const double bw_time = (s.compute_s > s.memory_s ? 0 : s.memory_s) + attn_mem;
  const double fl_time = (s.compute_s > s.memory_s ? s.compute_s : 0) + s.attention_s - attn_mem;
  s.bound = fl_time > bw_time ? Limit::compute : Limit::bandwidth;
  if (s.link_s > std::max(bw_time, fl_time)) s.bound = Limit::link;
  // Pipeline stalls: micro-batches of unequal work (one carries a prompt chunk) hold the others;
  // pp_efficiency per extra stage, fitted on the RTX PRO 6000 PP1-PP8 rows.
  const double bubble = h.layer_split ? 1.0 : std::pow(cal.pp_efficiency, h.pp - 1.0);
  s.gpu_s = h.pp * s.stage_s / bubble;
  s.draft_s = draft_time(d, g, decode, ctx, prefill, isl);
  s.gpu_s += s.draft_s;
  s.tokens_per_seq = d.spec.tokens_per_step();
  // Host: one iteration per micro-batch; attention-DP ranks each run their own scheduler.
  s.host_s = h.mb * cal.step_overhead_s + cal.seq_overhead_s * decode / (h.adp ? h.tp : 1);
  s.step_s = cal.overlap_host ? std::max(s.gpu_s, s.host_s) : s.gpu_s + s.host_s;
  if (cal.overlap_host && s.host_s > s.gpu_s) s.bound = Limit::host;
  return s;
}

ServingSetup serving_setup(const ModelSpec& m, const QuantPreset& q, const GpuSpec& gpu,
                           Engine engine, KvDtype kv, uint32_t tp, uint32_t pp, uint32_t replicas,
                           uint32_t gpus_per_node, const Weights* exact, uint32_t n_cpu_moe,
                           const DraftModel* draft, bool load_nextn) {
  const EngineProfile& prof = engine_profile(engine);
  RunConfig c;
  c.engine = prof.memory_engine;
  c.quant = &q;
  c.kv.n_ctx = 4096;
  c.n_cpu_moe = n_cpu_moe;
  c.draft = draft;
  c.load_nextn = load_nextn;
  c.expert_padding = engine_expert_padding(c.engine, gpu.architecture);
  if (prof.profile_run) {
    c.profile_tokens = engine_profile(c.engine).max_num_batched_tokens;
    c.profile_seqs = engine_profile(c.engine).max_num_seqs;
  }
  const Estimate e = estimate(m, c, exact);
  ServingSetup s;
  s.model = serving_model(m, q, e.weights, e.compute, c.profile_tokens, kv);
  s.model.draft_bytes = e.draft_bytes;
  if (e.cpu_experts.bytes) {
    s.model.host_expert_bytes = e.cpu_experts.bytes;
    for (uint32_t il = 0; il < std::min(e.cpu_experts.n_blocks, m.n_layer); ++il)
      s.model.n_layer_moe_host += m.is_moe_layer(il) ? 1 : 0;
    s.model.host_copy_gb_per_s = pcie_gb_per_s(gpu) * kOffloadCopyFraction;
    s.model.host_copy_tokens = c.kv.n_ubatch;
  }
  s.model.expert_compute = moe_compute_dtype(q, engine, gpu.architecture);
  s.gpu = serving_gpu(gpu, gpus_per_node);
  s.gpu.memory_bytes = engine_memory_bytes(engine, gpu);
  s.deployment.engine = engine;
  s.deployment.tp = tp;
  s.deployment.pp = pp;
  s.deployment.replicas = replicas;
  s.deployment.kv = kv;
  s.deployment.limits =
      engine_limits(engine, s.gpu.memory_bytes, s.gpu.small_batch_defaults, tp, pp);
  return s;
}

double power_limit_speed(double f) {
  // (fraction of board power, throughput share): 2 x RTX PRO 6000 (600 W), GLM-4.5-Air FP8,
  // 525.69 / 597.02 / 620.04 / 625.55 tokens/s at 250 / 300 / 360 / 600 W.
  static const double pts[][2] = {
      {250.0 / 600, 525.69 / 625.55},
      {300.0 / 600, 597.02 / 625.55},
      {360.0 / 600, 620.04 / 625.55},
      {1.0, 1.0},
  };
  if (!(f > 0)) return 0;
  if (f >= 1) return 1;
  if (f <= pts[0][0]) return pts[0][1] * f / pts[0][0];
  for (size_t i = 1; i < sizeof pts / sizeof pts[0]; ++i)
    if (f <= pts[i][0]) {
      const double t = (f - pts[i - 1][0]) / (pts[i][0] - pts[i - 1][0]);
      return pts[i - 1][1] + t * (pts[i][1] - pts[i - 1][1]);
    }
  return 1;
}

namespace {

Ranged ranged(double v, double err) {
  return {v, v * (1 - err), v * (1 + err)};
}

struct SteadyState {
  StepTime step;
  double decode = 0;   // tokens per step
  double prefill = 0;  // prompt tokens per step
  double itl_s = 0;
};

// Steady state of B running sequences: each step every decoding sequence emits one token and
// B x isl / osl prompt tokens enter, within the token budget.
SteadyState steady(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                   const Workload& w, uint32_t b, double ctx) {
  const EngineProfile& prof = engine_profile(d.engine);
  SteadyState s;
  double budget = d.limits.max_num_batched_tokens ? d.limits.max_num_batched_tokens : 1e12;
  if (!prof.chunked_prefill) budget = std::max(budget, static_cast<double>(w.isl) + b);
  const double ratio = static_cast<double>(w.isl) / w.osl;
  // Each sequence emits tau tokens per step and puts rows of them through the target (1 and 1
  // without speculative decoding): prompts enter at b x tau x isl / osl tokens per step.
  const double tau = d.spec.tokens_per_step(), rows = d.spec.rows_per_seq();
  double dec = b, pre = b * tau * ratio;
  if (dec * rows + pre > budget) {  // the budget splits between prompts and decode in isl:osl
    dec = std::min<double>(b, budget / (rows + tau * ratio));
    pre = budget - dec * rows;
  }
  if (!prof.continuous_batching || w.decode_only) pre = 0;  // prompts run before decoding
  s.decode = dec;
  s.prefill = pre;
  s.step = serving_step(m, g, d, static_cast<uint32_t>(std::ceil(dec)), ctx,
                        static_cast<uint32_t>(std::ceil(pre)), w.isl);
  s.itl_s = s.step.step_s * b / std::max(1.0, dec) / tau;
  if (!prof.continuous_batching && !w.decode_only) {
    // Static batch: the whole batch's prompts, then osl decode steps.
    const StepTime p = serving_step(m, g, d, 0, 0, b * w.isl, w.isl);
    s.itl_s = s.step.step_s + p.step_s / w.osl;
  }
  return s;
}

}  // namespace

namespace {

// The KV pool each GPU keeps after weights and activations, the KV a sequence holds in it, and
// how many sequences fit: r.kv_pool_bytes_per_gpu, kv_bytes_per_seq(_guarantee),
// max_concurrency(_guarantee) and fits.
void serving_memory(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                    const Workload& w, ServingEstimate& r) {
  const EngineProfile& prof = engine_profile(d.engine);
  const uint32_t shards = d.tp * d.pp;
  // Experts kept in system RAM (--n-cpu-moe) are not on the GPUs.
  // A speculative draft's weights sit beside the target's, split the same way (vLLM loads the
  // EAGLE / MTP drafter with the target's tensor-parallel group).
  const uint64_t spec_weights = d.spec.active() ? d.spec.draft.weight_bytes : 0;
  const uint64_t resident =
      checked_add(checked_add(m.resident_weight_bytes(), m.draft_bytes), spec_weights);
  const uint64_t weights_gpu = resident / shards + (resident % shards ? 1 : 0);
  uint64_t act_gpu = m.activation_bytes / d.tp;
  if (m.profile_tokens) {
    // vLLM's profile run at this deployment's limits: the forward's peak scales with the token
    // budget and splits over the TP ranks; every rank samples the whole vocabulary
    // (logits all-gathered) for min(max_num_seqs, tokens) rows.
    const uint64_t tokens =
        d.limits.max_num_batched_tokens ? d.limits.max_num_batched_tokens : m.profile_tokens;
    const uint64_t rows =
        std::min<uint64_t>(d.limits.max_num_seqs ? d.limits.max_num_seqs : 1, tokens);
    const uint64_t forward =
        static_cast<uint64_t>(static_cast<double>(m.activation_bytes) *
                              static_cast<double>(tokens) / m.profile_tokens / d.tp);
    act_gpu = std::max(forward, checked_add(checked_mul(rows, m.sampler_bytes_per_row),
                                            checked_mul(tokens, m.hidden_bytes_per_token)));
  }
  r.kv_pool_bytes_per_gpu =
      kv_pool_bytes(prof, d.limits, g.memory_bytes, weights_gpu, act_gpu, d.limits.reserved_bytes);

  // KV a sequence holds: on-demand schedulers hold isl + osl/2 on average, TensorRT-LLM reserves
  // isl + osl, slot engines a whole max_model_len slot. Blocks round up; KV heads replicate when
  // tp exceeds them.
  const uint32_t max_len = d.max_model_len ? d.max_model_len : w.request_tokens();
  const uint64_t held = kv_tokens_held(prof.reservation, w, d.max_model_len);
  const uint32_t block = std::max<uint32_t>(1, prof.kv_block_tokens);
  // KV heads replicate when TP exceeds them; under attention data parallel each GPU keeps its own
  // sequences' KV whole (an MLA latent cache is not copied to every rank).
  const double rep =
      d.attention_dp && m.n_expert && d.tp > 1
          ? 1.0
          : std::max(1.0, static_cast<double>(d.tp) / std::max<uint32_t>(1, m.n_head_kv));
  // The draft's own KV layers share the pool (vLLM's KV cache spec holds the drafter's
  // attention layers beside the target's).
  const uint64_t kv_token =
      m.kv_bytes_per_token +
      (d.spec.active() ? d.spec.draft.kv_bytes_per_token + d.spec.draft.kv_bytes_per_token_swa : 0);
  auto seq_bytes = [&](uint64_t tokens) {
    const uint64_t t = pad_to(tokens, block);
    const uint64_t swa = m.n_swa ? pad_to(std::min<uint64_t>(t, m.n_swa), block) : t;
    return static_cast<uint64_t>((static_cast<double>(checked_mul(kv_token, t)) +
                                  static_cast<double>(checked_mul(m.kv_bytes_per_token_swa, swa)) +
                                  static_cast<double>(m.state_bytes_per_seq)) *
                                 rep);
  };
  r.kv_bytes_per_seq = seq_bytes(held);
  r.kv_bytes_per_seq_guarantee = seq_bytes(max_len);
  const double pool = static_cast<double>(r.kv_pool_bytes_per_gpu) * shards;
  r.max_concurrency =
      r.kv_bytes_per_seq
          ? static_cast<uint32_t>(std::min(pool / static_cast<double>(r.kv_bytes_per_seq), 1e9))
          : 0;
  r.max_concurrency_guarantee =
      r.kv_bytes_per_seq_guarantee
          ? static_cast<uint32_t>(
                std::min(pool / static_cast<double>(r.kv_bytes_per_seq_guarantee), 1e9))
          : 0;
  {
    const double per_token = static_cast<double>(kv_token + m.kv_bytes_per_token_swa) * rep;
    r.kv_cache_tokens = per_token > 0 ? static_cast<uint64_t>(pool / per_token) / block * block : 0;
    r.max_concurrency_at_max_model_len =
        r.kv_bytes_per_seq_guarantee ? pool / static_cast<double>(r.kv_bytes_per_seq_guarantee) : 0;
  }
  r.fits =
      r.max_concurrency >= 1 && (!prof.needs_one_full_request || r.max_concurrency_guarantee >= 1);
  const uint64_t outside =
      d.engine == Engine::sglang ? 0 : checked_add(act_gpu, d.limits.reserved_bytes);
  r.need_bytes_per_gpu =
      checked_add(checked_add(weights_gpu, outside), (r.kv_bytes_per_seq + shards - 1) / shards);
}

}  // namespace

uint32_t kv_tokens_held(KvReservation r, const Workload& w, uint32_t max_model_len) {
  switch (r) {
    case KvReservation::on_demand:
      return w.isl + w.osl / 2;
    case KvReservation::full_request:
      return w.request_tokens();
    case KvReservation::full_context:
      break;
  }
  return max_model_len ? max_model_len : w.request_tokens();
}

uint32_t serving_max_model_len(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                               uint32_t limit) {
  auto holds = [&](uint32_t tokens) {
    Deployment x = d;
    x.max_model_len = tokens;
    Workload w;
    w.users = 1;
    w.isl = tokens;
    w.osl = 0;
    ServingEstimate r;
    serving_memory(m, g, x, w, r);
    return r.max_concurrency_guarantee >= 1;
  };
  return limit == 0 || !holds(1) ? 0 : largest_holding(1, limit, holds);
}

namespace {

// One request's life on a slot: TTFT (waiting for the prefill budget + its prompt chunks at the
// running batch's step time) then osl - 1 decode steps. Waiting: M/D/1 on the prefill budget,
// rho = lambda x S / k, Wq = rho S / (2 (1 - rho)), tail ~ exponential; lambda = the replica's
// request rate. An engine that chunks prompts fills every step's budget (vLLM V1's scheduler gives
// the next waiting prompt what the one before left: vllm/v1/core/sched/scheduler.py schedule(),
// num_new_tokens = min(num_new_tokens, token_budget)), so the budget is a server of prompt tokens:
// k = 1, S = isl / chunk steps. One that does not (TensorRT-LLM's default) packs whole prompts:
// k = floor(chunk / isl) of them (at least 1) in S = one step.
struct Cycle {
  SteadyState s;
  double itl = 0, service = 0, wq = 0, rho = 0, cycle = 0, chunk = 0, chunk_step = 0;
  double busy_per_request = 0;  // seconds of the prefill budget one request takes (S / k)
};

// The cycle of one of b slots at the replica's request rate lambda_fixed (0: a closed loop of b
// users), at `mean_context` tokens and the power cap's speed share `power_scale`.
Cycle request_cycle(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                    const Workload& w, double mean_context, double power_scale, uint32_t b,
                    double lambda_fixed) {
  const EngineProfile& prof = engine_profile(d.engine);
  const double budget = d.limits.max_num_batched_tokens ? d.limits.max_num_batched_tokens : w.isl;
  Cycle c;
  c.s = steady(m, g, d, w, std::max<uint32_t>(1, b), mean_context);
  c.itl = c.s.itl_s / power_scale;
  c.chunk = std::max(1.0, (prof.chunked_prefill ? budget : std::max<double>(budget, w.isl)) -
                              c.s.decode * d.spec.rows_per_seq());
  const StepTime with_chunk =
      serving_step(m, g, d, static_cast<uint32_t>(std::ceil(c.s.decode)), mean_context,
                   static_cast<uint32_t>(std::min<double>(c.chunk, w.isl)), w.isl);
  c.chunk_step = with_chunk.step_s / power_scale;
  c.service = std::ceil(w.isl / c.chunk) * c.chunk_step;
  if (w.decode_only) {  // generation measured alone: no prompt in the cycle
    c.cycle = w.osl * c.itl;
    return c;
  }
  const double decode_time = (w.osl - 1.0) * c.itl;
  const double parallel = prof.chunked_prefill ? 1.0 : std::max(1.0, std::floor(c.chunk / w.isl));
  // Chunking fills the budget: a step of a whole chunk serves chunk / isl prompts.
  double occupancy = c.service;
  if (prof.chunked_prefill) {
    const double full_step =
        c.chunk > w.isl ? serving_step(m, g, d, static_cast<uint32_t>(std::ceil(c.s.decode)),
                                       mean_context, static_cast<uint32_t>(c.chunk), w.isl)
                                  .step_s /
                              power_scale
                        : c.chunk_step;
    occupancy = w.isl / c.chunk * full_step;
  }
  c.busy_per_request = occupancy / parallel;
  // A closed loop of b users never queues behind itself: (1 - 1/b) of the arrivals wait.
  const double others = lambda_fixed > 0 || b > 1 ? 1.0 - 1.0 / b : 0.0;
  auto wait = [&](double rho) { return rho * occupancy / (2 * (1 - rho)); };
  auto rho_of = [&](double wq) {
    const double lambda =
        lambda_fixed > 0 ? lambda_fixed : std::max<uint32_t>(1, b) / (c.service + wq + decode_time);
    return std::min(0.99, lambda * c.busy_per_request * others);
  };
  double rho = rho_of(0);
  if (lambda_fixed <= 0) {
    // Closed loop: more waiting slows the arrivals; rho = rho_of(wait(rho)) has one root.
    double lo = 0, hi = rho;
    for (int i = 0; i < 60; ++i) {
      const double mid = (lo + hi) / 2;
      (rho_of(wait(mid)) > mid ? lo : hi) = mid;
    }
    rho = (lo + hi) / 2;
  }
  c.wq = wait(rho);
  c.rho = rho;
  c.cycle = c.service + c.wq + decode_time;
  return c;
}

// The mean wait of a wave of b requests arriving together at an idle replica (a closed loop's
// first requests: fixed-concurrency benchmarks start every client at once), to their first token:
// the scheduler prefills them in arrival order beside the prompts already done decoding (b / 2 on
// average). An engine that chunks prompts fills each step's budget less those decode tokens, so
// the i-th prompt's first token comes after ceil(i x isl / chunk) such steps: b x isl / chunk
// "groups" of one step (at least the steps one prompt takes). One that does not packs
// k = floor(budget / isl) whole prompts (at least 1) to a step: the i-th group of k after i.
struct Wave {
  double unit_s = 0;  // the steps one group of prompts takes
  double groups = 0;  // the i-th group's first tokens after i units
  double mean_s() const { return unit_s * (groups + 1) / 2; }
};
Wave first_wave(const ServingModel& m, const ServingGpu& g, const Deployment& d, const Workload& w,
                double mean_context, double power_scale, uint32_t b) {
  const EngineProfile& prof = engine_profile(d.engine);
  if (w.decode_only || b == 0) return {};
  double budget = d.limits.max_num_batched_tokens ? d.limits.max_num_batched_tokens : w.isl;
  const uint32_t decoding = prof.continuous_batching ? b / 2 : 0;
  if (prof.chunked_prefill) {
    const double chunk = std::max(1.0, budget - decoding * d.spec.rows_per_seq());
    const double tokens = std::min(chunk, static_cast<double>(b) * w.isl);
    const StepTime step =
        serving_step(m, g, d, decoding, mean_context, static_cast<uint32_t>(tokens), w.isl);
    return {step.step_s / power_scale,
            std::max(std::ceil(w.isl / chunk), static_cast<double>(b) * w.isl / chunk)};
  }
  budget = std::max<double>(budget, w.isl);
  const double k = std::clamp(std::floor(budget / w.isl), 1.0, static_cast<double>(b));
  const StepTime step =
      serving_step(m, g, d, decoding, mean_context, static_cast<uint32_t>(k * w.isl), w.isl);
  return {step.step_s / power_scale, std::ceil(b / k)};
}

// The q-quantile of TTFT over a closed loop's requests: a share 1 / R of them (R requests per
// user; none under a rate) in the first wave, spread evenly over its groups, the rest steady:
// base + the M/D/1 wait, P(wait > x) = rho e^(-x / theta) with theta = Wq / rho (exponential
// tail). Bisected on the mixture's survival function.
double ttft_quantile(double q, double base, double wq, double rho, const Wave& wave,
                     double overhead_slot, uint32_t requests_per_user) {
  const double share = requests_per_user && wave.groups > 0 ? 1.0 / requests_per_user : 0.0;
  const double theta = rho > 0 && wq > 0 ? wq / rho : 0;
  auto survival = [&](double t) {
    const double x = t - base;
    const double steady = x < 0 ? 1.0 : theta > 0 ? rho * std::exp(-x / theta) : 0.0;
    double waved = 0;
    if (share > 0) {
      const double done = std::floor((t - overhead_slot) / wave.unit_s);
      waved = std::clamp((wave.groups - done) / wave.groups, 0.0, 1.0);
    }
    return (1 - share) * steady + share * waved;
  };
  double lo = 0, hi = base + 60 * theta + overhead_slot + wave.unit_s * (wave.groups + 1);
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (survival(mid) > 1 - q ? lo : hi) = mid;
  }
  return hi;
}

// A replica at request rate lambda (Little's law): the users the fixed point N = lambda x
// cycle(min(N, cap)) settles on (past cap they wait for a slot), and whether it falls behind:
// it completes fewer than lambda requests/s, or the prefill budget is busy 99% of the time.
struct RateLoad {
  uint32_t users = 0;
  bool overloaded = false;
};
template <class CycleAt>
RateLoad rate_load(const CycleAt& cycle_at, uint32_t cap, double lambda) {
  double n = 1;
  for (int i = 0; i < 60; ++i) {
    const Cycle c = cycle_at(static_cast<uint32_t>(std::min<double>(std::ceil(n), cap)), lambda);
    n = 0.5 * n + 0.5 * std::max(1.0, lambda * c.cycle);
  }
  RateLoad l;
  l.users = static_cast<uint32_t>(std::ceil(n));
  const uint32_t running = std::min(l.users, cap);
  const Cycle c = cycle_at(running, lambda);
  const double completions = std::min(running / c.cycle, lambda);
  l.overloaded = lambda > completions * 1.001 || lambda * c.busy_per_request >= 0.99;
  return l;
}

}  // namespace

namespace {

// Overloaded at `sustainable` requests/s (all replicas): no steady state, so no mean TTFT; what
// comes out is the sustainable rate, whatever more is offered.
void mark_overloaded(double sustainable, const Workload& w, double err, ServingEstimate& r) {
  r.limited_by = Limit::overload;
  r.overloaded = true;
  r.sustainable_requests_per_s = sustainable;
  r.output_tokens_per_s = ranged(sustainable * w.osl, err);
  r.requests_per_s = sustainable;
  r.ttft_s = {};
  r.ttft_p90_s = r.ttft_p99_s = 0;
}

// The SLO verdicts at the workload's percentile.
void judge_slos(const Workload& w, ServingEstimate& r) {
  r.meets_ttft =
      w.ttft_slo_s <= 0 || (!r.overloaded && r.ttft_at(w.slo_percentile) <= w.ttft_slo_s);
  r.meets_tpot = w.tpot_slo_s <= 0 || r.itl_at(w.slo_percentile) <= w.tpot_slo_s;
}

// Disaggregated prefill and decode (Deployment::prefill_workers), as Dynamo, llm-d and SGLang's
// PD mode run it: the decode replicas run decode steps alone (no prompt chunk shares them); a
// request waits for a prefill worker (M/D/1 over the workers, each serving one prompt in
// budget-sized chunks at a time), its KV then crosses to a decode worker over the link between
// them (NVLink inside one machine or NVLink domain, else the network, per GPU of the smaller
// group), then decodes. A closed loop of users or a rate: the arrival rate is the users over
// their cycle, solved with the prefill wait.
void estimate_disaggregated(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                            const Workload& w, uint32_t cap, ServingEstimate& r) {
  const ServingCalibration& cal = serving_calibration(d.engine);
  // The prefill worker: its own TP, the engine's limits there; a prompt a step of its budget.
  Deployment dp = d;
  dp.tp = std::max<uint32_t>(1, d.prefill_tp);
  dp.pp = 1;
  dp.replicas = 1;
  dp.attention_dp = false;
  dp.limits = engine_limits(d.engine, g.memory_bytes, g.small_batch_defaults, dp.tp, 1);
  dp.prefill_workers = 0;
  {
    // A worker holds the weights, its activations and one prompt's KV.
    Workload one = w;
    one.users = 1;
    one.rate_per_s = 0;
    ServingEstimate pm;
    serving_memory(m, g, dp, one, pm);
    if (!pm.fits) {
      r.fits = false;
      r.limited_by = Limit::memory;
      return;
    }
  }
  const double budget =
      dp.limits.max_num_batched_tokens ? dp.limits.max_num_batched_tokens : double(w.isl);
  const uint32_t chunk = static_cast<uint32_t>(std::min<double>(w.isl, budget));
  const StepTime ps = serving_step(m, g, dp, 0, 0, chunk, w.isl);
  const double service = std::ceil(w.isl / static_cast<double>(chunk)) * ps.step_s / r.power_scale;
  r.prefill_requests_per_s_per_worker = 1 / service;
  // The prompt's KV to the decode worker.
  const double kv = static_cast<double>(m.kv_bytes_per_token) * w.isl +
                    static_cast<double>(m.kv_bytes_per_token_swa) *
                        (m.n_swa ? std::min<double>(w.isl, m.n_swa) : w.isl) +
                    static_cast<double>(m.state_bytes_per_seq);
  const bool one_domain = d.gpus() <= std::max(g.gpus_per_node, g.link_group);
  const double per_gpu_gb =
      one_domain && g.link != LinkKind::pcie ? g.link_gb_per_s : g.network_gb_per_s;
  r.kv_transfer_s = kv / (per_gpu_gb * 1e9 * std::min(dp.tp, d.tp)) +
                    cal.allreduce_latency_s * (one_domain ? 1 : 6);
  // Decode alone.
  Workload wd = w;
  wd.decode_only = true;
  uint32_t users = w.users ? (w.users + d.replicas - 1) / d.replicas : cap;
  const double lambda_rate = w.rate_per_s > 0 ? w.rate_per_s : 0;
  const double workers = d.prefill_workers;
  auto wait = [&](double rho) { return rho * service / (2 * (1 - rho)); };
  double itl = 0, rho = 0, ttft_base = 0;
  for (int pass = 0; pass < 2; ++pass) {  // a rate: users by Little's law from the cycle
    r.concurrency = std::min(users, cap);
    const SteadyState s = steady(m, g, d, wd, std::max<uint32_t>(1, r.concurrency), r.mean_context);
    r.step = s.step;
    itl = s.itl_s / r.power_scale;
    ttft_base = cal.request_overhead_s + service + r.kv_transfer_s + s.step.step_s;
    // Users split over the replicas: no more than there are (1 user on 4 replicas is 1).
    const double total_users = std::min<double>(static_cast<double>(r.concurrency) * d.replicas,
                                                w.users && lambda_rate <= 0 ? w.users : 1e18);
    auto rho_of = [&](double wq) {
      const double lambda =
          lambda_rate > 0 ? lambda_rate : total_users / (ttft_base + wq + (w.osl - 1.0) * itl);
      return std::min(0.99, lambda * service / workers);
    };
    double lo = 0, hi = rho_of(0);
    for (int i = 0; i < 60; ++i) {
      const double mid = (lo + hi) / 2;
      (rho_of(wait(mid)) > mid ? lo : hi) = mid;
    }
    rho = lambda_rate > 0 ? rho_of(0) : (lo + hi) / 2;
    if (lambda_rate <= 0) break;
    const double cycle = ttft_base + wait(rho) + (w.osl - 1.0) * itl;
    users = static_cast<uint32_t>(std::ceil(lambda_rate / d.replicas * cycle));
  }
  r.prefill_utilization = rho;
  r.queue_wait_s = wait(rho);
  r.prefill_service_s = service;
  r.request_overhead_s = cal.request_overhead_s;
  r.queued = users > cap ? users - cap : 0;
  const double ttft = ttft_base + r.queue_wait_s;
  r.cycle_s = ttft + (w.osl - 1.0) * itl;
  const double err = cal.error_median;
  const double lambda = rho * workers / service;
  r.output_tokens_per_s = ranged(lambda * w.osl, err);
  r.requests_per_s = lambda;
  r.per_user_tokens_per_s = ranged(1 / itl, err);
  r.itl_s = {itl, itl * (1 - err), itl * (1 + err)};
  r.itl_p90_s = r.itl_p99_s = itl;  // no prompt chunk shares a decode step
  r.ttft_s = {ttft, ttft * (1 - err), ttft * (1 + cal.error_worst)};
  const double base = ttft_base;
  r.ttft_p90_s = ttft_quantile(0.90, base, r.queue_wait_s, rho, Wave{}, 0, 0);
  r.ttft_p99_s = ttft_quantile(0.99, base, r.queue_wait_s, rho, Wave{}, 0, 0);
  r.limited_by = r.step.bound;
  if (r.concurrency == r.max_concurrency && (w.users == 0 || users > cap))
    r.limited_by = Limit::memory;
  if (lambda_rate > 0 && rho >= 0.99) mark_overloaded(0.99 * workers / service, w, err, r);
  judge_slos(w, r);
}

}  // namespace

ServingEstimate estimate_serving(const ServingModel& m, const ServingGpu& g, const Deployment& d,
                                 const Workload& w) {
  const ServingCalibration& cal = serving_calibration(d.engine);
  ServingEstimate r;
  r.calibration = &cal;
  serving_memory(m, g, d, w, r);
  r.power_scale = power_limit_speed(d.power_limit);
  r.mean_context = w.isl + w.osl / 2.0;
  if (!r.fits) {
    r.limited_by = Limit::memory;
    return r;
  }
  const uint32_t seq_cap = d.limits.max_num_seqs ? d.limits.max_num_seqs : r.max_concurrency;
  const uint32_t cap = std::min(r.max_concurrency, seq_cap);
  if (d.disaggregated()) {
    estimate_disaggregated(m, g, d, w, cap, r);
    return r;
  }
  auto cycle_at = [&](uint32_t b, double lambda_fixed) {
    return request_cycle(m, g, d, w, r.mean_context, r.power_scale, b, lambda_fixed);
  };

  // Concurrency per replica: users split evenly, or as many as fit, or Little's law from a rate.
  uint32_t users = 0;
  const double lambda_rate = w.rate_per_s > 0 ? w.rate_per_s / d.replicas : 0;
  RateLoad load;
  if (lambda_rate > 0) {
    load = rate_load(cycle_at, cap, lambda_rate);
    users = load.users;
  } else if (w.users) {
    users = (w.users + d.replicas - 1) / d.replicas;
  } else {
    users = cap;
  }
  r.concurrency = std::min(users, cap);
  r.queued = users > cap ? users - cap : 0;
  const Cycle c = cycle_at(r.concurrency, lambda_rate);
  const SteadyState& s = c.s;
  r.step = s.step;
  const double itl = c.itl;
  // Each slot emits osl tokens per cycle (its prompt's time included); a rate the replica keeps
  // up with comes out as it went in.
  double out_per_replica = r.concurrency * w.osl / c.cycle;
  if (lambda_rate > 0) out_per_replica = std::min(out_per_replica, lambda_rate * w.osl);
  const double err = cal.error_median;
  // Users split over the replicas: ceil(users / replicas) each is estimated, so the deployment
  // carries users / that many replicas' worth (1 user on 4 replicas keeps one busy).
  const double busy = lambda_rate <= 0 && w.users && users
                          ? std::min<double>(d.replicas, static_cast<double>(w.users) / users)
                          : d.replicas;
  r.output_tokens_per_s = ranged(out_per_replica * busy, err);
  r.per_user_tokens_per_s = ranged(1 / itl, err);
  r.itl_s = {itl, itl * (1 - err), itl * (1 + err)};
  r.requests_per_s = r.output_tokens_per_s.value / w.osl;
  const double completions = out_per_replica / w.osl;
  const double slot_wait = r.queued ? r.queued / completions : 0;
  // A closed loop's first requests arrive as one wave: its wait beyond the steady one, shared
  // over each user's requests.
  Wave wave;
  if (lambda_rate <= 0 && w.requests_per_user > 0) {
    wave = first_wave(m, g, d, w, r.mean_context, r.power_scale, r.concurrency);
    r.first_wave_s = std::max(0.0, wave.mean_s() - c.service - c.wq) / w.requests_per_user;
  }
  r.request_overhead_s = cal.request_overhead_s;
  const double ttft = r.request_overhead_s + c.service + c.wq + r.first_wave_s + slot_wait;
  r.cycle_s = c.cycle;
  r.prefill_service_s = c.service;
  r.queue_wait_s = c.wq;
  r.slot_wait_s = slot_wait;
  r.ttft_s = {ttft, ttft * (1 - err), ttft * (1 + cal.error_worst)};
  // Percentiles of the same mixture (the wave's requests spread over its groups).
  const double base = r.request_overhead_s + c.service + slot_wait;
  const uint32_t per_user = lambda_rate > 0 ? 0 : w.requests_per_user;
  r.ttft_p90_s =
      ttft_quantile(0.90, base, c.wq, c.rho, wave, r.request_overhead_s + slot_wait, per_user);
  r.ttft_p99_s =
      ttft_quantile(0.99, base, c.wq, c.rho, wave, r.request_overhead_s + slot_wait, per_user);
  // A step that carries a prompt chunk is the long one; it is the p90 when more than 10% of
  // steps carry one.
  const double chunk_share = std::min(1.0, s.prefill / c.chunk);
  r.itl_p90_s = chunk_share > 0.1 ? std::max(itl, c.chunk_step) : itl;
  r.itl_p99_s = chunk_share > 0.01 ? std::max(itl, c.chunk_step) : itl;

  r.limited_by = r.step.bound;
  if (r.concurrency == r.max_concurrency && (w.users == 0 || users > cap))
    r.limited_by = Limit::memory;
  if (r.concurrency == seq_cap && seq_cap < r.max_concurrency && users >= seq_cap)
    r.limited_by = Limit::batch;
  if (load.overloaded) {
    // Overloaded: no steady state, so no mean TTFT (Little's law would give days); the verdict is
    // the rate the replicas sustain: the highest one rate_load() does not call overloaded,
    // bisected (throughput is not highest at full concurrency: past a point the decode tokens
    // crowd the prompt chunks out of the step budget, so the highest rate is found, not assumed).
    double lo = 0, hi = lambda_rate;
    for (int i = 0; i < 30; ++i) {
      const double mid = (lo + hi) / 2;
      (rate_load(cycle_at, cap, mid).overloaded ? hi : lo) = mid;
    }
    mark_overloaded(lo * static_cast<double>(d.replicas), w, err, r);
  }
  judge_slos(w, r);
  return r;
}

}  // namespace llmsize
