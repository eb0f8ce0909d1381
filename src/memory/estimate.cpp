#include "llmsize/memory/estimate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "llmsize/checked.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

void add_expert_tensor(std::vector<ExpertBlock>& blocks, uint32_t layer, uint64_t bytes) {
  if (blocks.size() <= layer) blocks.resize(layer + 1);
  ExpertBlock& b = blocks[layer];
  b.bytes = checked_add(b.bytes, bytes, "expert bytes");
  b.largest_bytes = std::max(b.largest_bytes, bytes);
}

CpuExperts cpu_experts(const ModelSpec& m, const Weights& w, uint32_t n) {
  CpuExperts x;
  x.n_blocks = std::min<uint32_t>(n, m.n_layer + m.n_layer_nextn);
  const size_t end = std::min<size_t>(x.n_blocks, w.expert_blocks.size());
  for (size_t i = 0; i < end; ++i) {
    const ExpertBlock& b = w.expert_blocks[i];
    if (!b.bytes) continue;
    ++x.n_moved;
    x.bytes = checked_add(x.bytes, b.bytes, "expert bytes");
    x.largest_bytes = std::max(x.largest_bytes, b.largest_bytes);
  }
  if (m.n_expert)
    x.read_bytes_per_token =
        static_cast<uint64_t>(static_cast<double>(x.bytes) / m.n_expert * m.n_expert_used);
  return x;
}

bool engine_loads_nextn(Engine e) {
  return e != Engine::vllm;
}

bool loads_nextn(const RunConfig& c) {
  return c.load_nextn || engine_loads_nextn(c.engine);
}

Weights compute_weights(const ModelSpec& m, const QuantPreset& q, bool embeddings_on_host,
                        bool loads_nextn) {
  // A checkpoint (not a GGUF) whose MTP layers the engine skips: the file's bytes stay, memory
  // and the bytes read per token are those of the main layers.
  if (!loads_nextn && !q.gguf && m.n_layer_nextn) {
    ModelSpec main_only = m;
    main_only.n_layer_nextn = 0;
    Weights w = compute_weights(m, q, embeddings_on_host, true);
    const Weights wm = compute_weights(main_only, q, embeddings_on_host, true);
    w.nextn_bytes_not_loaded = w.bytes - wm.bytes;
    w.vram_bytes = wm.vram_bytes;
    w.active_bytes = wm.active_bytes;
    return w;
  }
  auto tensors = model_tensors(m);
  Weights w;
  w.params = count_params(m, tensors).total;
  // A GGUF converted from a checkpoint whose MTP layers convert_hf_to_gguf.py skips
  // (ModelSpec::gguf_drops_nextn) holds only the main layers: the parameters stay the
  // checkpoint's, the bytes are the file's.
  // llama-quantize then sees a block count without them (its ffn counters use n_layer).
  ModelSpec main_only;
  const bool drop = q.gguf && m.gguf_drops_nextn && m.n_layer_nextn;
  if (drop) {
    main_only = m;
    main_only.n_layer_nextn = 0;
    tensors = model_tensors(main_only);
    w.params_not_in_file = w.params - count_params(main_only, tensors).total;
  }
  const auto types = assign_tensor_types(drop ? main_only : m, tensors, q);
  const ParamCount pc = count_params(m, tensors);
  w.active_params = pc.active;
  uint64_t embd_bytes = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& t = tensors[i];
    const uint64_t b = tensor_bytes(types[i], t.ne[0], t.n_elements());
    w.bytes = checked_add(w.bytes, b, "weight bytes");
    if (t.role == TensorRole::token_embd) {
      embd_bytes = b;  // the input lookup reads one row per token: left out (< 0.0001%)
    } else if (is_routed_expert(t.role)) {
      w.active_bytes =
          checked_add(w.active_bytes, b / m.n_expert * m.n_expert_used, "active weight bytes");
    } else {
      w.active_bytes = checked_add(w.active_bytes, b, "active weight bytes");
    }
    if (q.gguf && t.layer >= 0 && moved_by_cpu_moe(t.role))
      add_expert_tensor(w.expert_blocks, static_cast<uint32_t>(t.layer), b);
    auto it = std::find_if(w.by_type.begin(), w.by_type.end(),
                           [&](const TypeUsage& u) { return u.type == types[i]; });
    if (it == w.by_type.end()) it = w.by_type.insert(w.by_type.end(), TypeUsage{types[i]});
    it->n_tensors++;
    it->n_elements += t.n_elements();
    it->bytes += b;
  }
  // A tied model's output layer is token_embd itself (llama-model.cpp loads it again as
  // TENSOR_DUPLICATED): the logits read all of it every token, as io/model_file.cpp counts a
  // GGUF without output.weight.
  if (m.tied_embeddings)
    w.active_bytes = checked_add(w.active_bytes, embd_bytes, "active weight bytes");
  std::sort(w.by_type.begin(), w.by_type.end(),
            [](const TypeUsage& a, const TypeUsage& b) { return a.bytes > b.bytes; });
  if (q.gguf && embeddings_on_host) {
    w.host_bytes = embd_bytes;
    w.vram_bytes = w.bytes - embd_bytes + (m.tied_embeddings ? embd_bytes : 0);
  } else {
    w.vram_bytes = w.bytes;
  }
  w.vision_params = vision_tower_params(m.vision);
  if (w.vision_params) {
    w.vision_bytes = checked_mul(w.vision_params, 2, "vision tower bytes");
    w.params = checked_add(w.params, w.vision_params, "parameters");
    w.bytes = checked_add(w.bytes, w.vision_bytes, "weight bytes");
    w.vram_bytes = checked_add(w.vram_bytes, w.vision_bytes, "weight bytes in VRAM");
  }
  return w;
}

namespace {

struct ExpertPaddingRow {
  Engine engine;
  const char* architecture;
  ExpertPadding padding;
};

// vLLM's MXFP4 MoE (vllm/model_executor/layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights
// at commit 007d5005, the checkpoint's gpt-oss experts): the backend is chosen by compute
// capability (get_mxfp4_backend); FlashInfer on sm_100 pads n_embd and n_ff_exp to multiples of
// 256, the Marlin MoE kernel (n % 256 and k % 128 of each linear) n_embd to 256 and n_ff_exp to
// 128, the Triton kernels n_ff_exp to 64 (gpt-oss's 2,880 already is).
//   blackwell(-ultra) FlashInfer's (sm_100 with FlashInfer, vLLM's default install);
//   rtx-blackwell     Marlin's (sm_120 is outside the Triton kernels' 9.0-11.0 range).
// Hopper is left at the checkpoint's shapes: its backend depends on the install (Triton where
// triton_kernels is present, else Marlin) and the H100 logs disagree. gpt-oss-20b loading 13.47
// GiB for a 12.82 GiB checkpoint (llm-d's vLLM memory analysis) and gpt-oss-120b leaving 1.71
// GiB of KV at utilization 0.95 (vllm-project/vllm#27508) fit Marlin's padding; gpt-oss-120b
// serving 1,000 users on one H100 at 0.9 and max_model_len 32,768 (GPUStack's performance lab,
// vLLM 0.10.2) does not. Ampere and Ada load the checkpoint's shapes too: gpt-oss-20b took
// 12.88 GiB on an RTX 3090 (vllm-project/vllm#22331, the gpt-oss release image).
constexpr ExpertPaddingRow kExpertPaddings[] = {
    {Engine::vllm, "blackwell", {TensorType::MXFP4, 256, 256}},
    {Engine::vllm, "blackwell-ultra", {TensorType::MXFP4, 256, 256}},
    {Engine::vllm, "rtx-blackwell", {TensorType::MXFP4, 256, 128}},
};

// The layout of an install that differs from the planned one (a plan's note gives its cost):
// vLLM on Hopper without triton_kernels takes Marlin (get_mxfp4_backend), as the H100 logs above
// that fit its padding show.
constexpr ExpertPaddingRow kExpertPaddingsOtherwise[] = {
    {Engine::vllm, "hopper", {TensorType::MXFP4, 256, 128}},
};

ExpertPadding padding_in(const ExpertPaddingRow* rows, size_t n, Engine e,
                         std::string_view gpu_architecture) {
  for (size_t i = 0; i < n; ++i)
    if (rows[i].engine == e && gpu_architecture == rows[i].architecture) return rows[i].padding;
  return {};
}

}  // namespace

ExpertPadding engine_expert_padding(Engine e, std::string_view gpu_architecture) {
  return padding_in(kExpertPaddings, std::size(kExpertPaddings), e, gpu_architecture);
}

ExpertPadding engine_expert_padding_otherwise(Engine e, std::string_view gpu_architecture) {
  return padding_in(kExpertPaddingsOtherwise, std::size(kExpertPaddingsOtherwise), e,
                    gpu_architecture);
}

uint64_t expert_padding_bytes(const ModelSpec& m, const QuantPreset& q, const ExpertPadding& pad) {
  if (!pad.any() || q.gguf || !m.is_moe()) return 0;
  auto up = [](uint64_t n, uint32_t k) { return k > 1 ? (n + k - 1) / k * k : n; };
  const auto tensors = model_tensors(m);
  const auto types = assign_tensor_types(m, tensors, q);
  uint64_t extra = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorDesc& t = tensors[i];
    if (t.bias || !is_routed_expert(t.role) || types[i] != pad.type) continue;
    // ggml order: gate / up [n_embd, n_ff_exp, n_expert] (gate_up: 2 x n_ff_exp, each half
    // padded), down [n_ff_exp, n_embd, n_expert].
    std::array<uint64_t, 3> ne = t.ne;
    if (t.role == TensorRole::ffn_down_exps) {
      ne[0] = up(ne[0], pad.n_ff_multiple);
      ne[1] = up(ne[1], pad.n_embd_multiple);
    } else {
      ne[0] = up(ne[0], pad.n_embd_multiple);
      ne[1] = t.role == TensorRole::ffn_gate_up_exps ? 2 * up(ne[1] / 2, pad.n_ff_multiple)
                                                     : up(ne[1], pad.n_ff_multiple);
    }
    const uint64_t n = checked_mul(checked_mul(ne[0], ne[1], "padded expert"), ne[2]);
    const uint64_t padded = tensor_bytes(types[i], ne[0], n);
    const uint64_t plain = tensor_bytes(types[i], t.ne[0], t.n_elements());
    extra = checked_add(extra, padded - std::min(padded, plain), "expert padding bytes");
  }
  return extra;
}

double reference_bits_per_weight(const QuantPreset& p) {
  ModelSpec ref;
  ref.arch = Arch::llama;
  ref.n_layer = 32;
  ref.n_embd = 4096;
  ref.n_ff = 14336;
  ref.n_head = 32;
  ref.n_head_kv = 8;
  ref.n_embd_head_k = ref.n_embd_head_v = 128;
  ref.n_vocab = 128256;
  return compute_weights(ref, p).bits_per_weight();
}

ModelParams model_params(const ModelSpec& m) {
  const Weights w = compute_weights(m, *find_quant_preset("f16"));
  return {w.params, w.active_params};
}

namespace {

// llama.cpp's and Ollama's compute buffers of a decoder (ggml-alloc's reserve, compute_buffer.hpp)
// on one GPU and on each GPU of a layer split, with the copy of a RAM expert (--n-cpu-moe).
void ggml_compute(const ModelSpec& m, const RunConfig& c, const std::vector<LayerGroup>& groups,
                  const LayerLayout& layout, uint64_t ubatch, Estimate& e) {
  const ComputeConfig cc{static_cast<uint32_t>(ubatch), e.kv.n_stream, c.flash_attn, c.kv.type_k};
  // A layer split over several GPUs, every layer offloaded: llama.cpp pipelines it (n_copies 4),
  // Ollama's scheduler does not (compute_buffer.hpp); nor does llama.cpp with tensor overrides
  // (llama-context.cpp: pipeline_parallel needs !model.has_tensor_overrides(), which
  // --n-cpu-moe adds).
  const bool moved = e.cpu_experts.bytes > 0;
  const uint32_t copies = c.engine == Engine::llama_cpp && !moved ? kSchedMaxCopies : 1;
  const uint64_t copy = moved && ubatch >= kOpOffloadMinBatch ? e.cpu_experts.largest_bytes : 0;
  e.compute = compute_buffer(m, e.kv, cc, groups);
  e.compute.weight_copy_bytes = copy;
  e.compute_one_gpu_bytes = e.compute.bytes();
  ComputeBuffer any = compute_buffer_any_split(m, e.kv, cc, copies, groups);
  any.weight_copy_bytes = copy;
  e.compute_any_split_bytes = any.bytes();
  if (c.n_gpus > 1) {
    e.compute_split = compute_buffers_by_device(m, e.kv, cc, c.n_gpus, copies, layout);
    e.compute_split.devices.front().buffer.weight_copy_bytes = copy;
    e.compute = e.compute_split.devices[e.compute_split.largest()].buffer;
  }
}

// --n-cpu-moe: the experts' buffer type is the CPU's, so llama.cpp loads them into host memory
// (CPU_Mapped with mmap) whatever -ngl says.
void move_experts(const ModelSpec& m, const RunConfig& c, Estimate& e) {
  if (!c.n_cpu_moe || !m.is_moe() || (c.engine != Engine::llama_cpp && c.engine != Engine::ollama))
    return;
  e.cpu_experts = cpu_experts(m, e.weights, c.n_cpu_moe);
  e.weights.vram_bytes -= std::min(e.weights.vram_bytes, e.cpu_experts.bytes);
  e.weights.host_bytes = checked_add(e.weights.host_bytes, e.cpu_experts.bytes, "host bytes");
}

// llama-server -md: the draft model in a context of its own beside the main one, at the same
// context and sequences (tools/server: the draft's n_ctx follows the slot's unless -cd is given),
// its KV cache f16 (-ctkd / -ctvd default), every layer on the GPUs (-ngld), split over the same
// devices.
void add_draft(const RunConfig& c, Estimate& e) {
  if (!c.draft || (c.engine != Engine::llama_cpp && c.engine != Engine::ollama)) return;
  RunConfig dc = c;
  dc.draft = nullptr;
  dc.quant = c.draft->quant ? c.draft->quant : c.quant;
  dc.n_cpu_moe = 0;
  dc.kv.type_k = dc.kv.type_v = TensorType::F16;
  const Estimate d = estimate(c.draft->spec, dc, c.draft->exact_weights);
  e.draft_weights_bytes = d.weights_bytes;
  e.draft_kv_bytes = checked_add(d.kv_cache_bytes, d.recurrent_state_bytes, "draft KV bytes");
  e.draft_compute_bytes = d.activations_bytes;
  e.draft_bytes = checked_add(checked_add(e.draft_weights_bytes, e.draft_kv_bytes, "draft bytes"),
                              e.draft_compute_bytes, "draft bytes");
}

// The engine's padding of the experts (RunConfig::expert_padding) is memory, not file: in
// vram_bytes. The bytes read per token stay the checkpoint's (the speed factors, calibrated on
// measured throughput, carry the kernels' layout).
void pad_experts(const ModelSpec& m, const RunConfig& c, Weights& w) {
  const uint64_t pad = expert_padding_bytes(m, *c.quant, c.expert_padding);
  if (!pad) return;
  w.layout_padding_bytes = pad;
  w.vram_bytes = checked_add(w.vram_bytes, pad, "weight bytes in VRAM");
}

}  // namespace

Estimate estimate(const ModelSpec& m, const RunConfig& c, const Weights* exact_weights) {
  Estimate e;
  e.n_gpus = c.n_gpus;
  e.n_seq = c.kv.n_seq;
  const EngineProfile& ep = engine_profile(c.engine);
  e.weights = exact_weights ? *exact_weights
                            : compute_weights(m, *c.quant, ep.embeddings_on_host, loads_nextn(c));
  if (!ep.embeddings_on_host &&
      e.weights.host_bytes) {  // a GGUF's weights, loaded whole on the GPU
    e.weights.vram_bytes = e.weights.bytes;
    e.weights.host_bytes = 0;
  }
  pad_experts(m, c, e.weights);
  move_experts(m, c, e);
  KvCacheConfig kvc = c.kv;
  kvc.padding = ep.kv_cell_padding;
  kvc.flash_attn = c.flash_attn || ep.activations != ActivationRule::ggml_graph;
  // Ollama's slots (OLLAMA_NUM_PARALLEL) share one KV cache of n_seq x num_ctx cells: its log
  // prints "kv_size = 65536" and "n_ctx_per_seq = 16384" for 4 slots of 16k (ollama/ollama#9221),
  // and its graph attends over all of them (the compute buffer grows with n_seq x n_ctx).
  kvc.unified = c.kv.n_seq > 1 &&
                (c.engine == Engine::ollama || (c.engine == Engine::llama_cpp && c.kv_unified));
  // Embedding and rerank runs: n_seq documents of n_ctx tokens each, encoded in one pass and
  // nothing generated. An encoder (BERT) keeps no cache at all (llama.cpp creates no memory for
  // it); a decoder-based embedder (Qwen3-Embedding) caches only the batch's own tokens.
  const bool encode_only = m.task != Task::generation;
  // The layers' kinds, made once for the KV cache, the recurrent state and the compute buffers.
  const LayerLayout layout = layer_layout(m);
  const std::vector<LayerGroup> groups = layer_groups(layout);
  if (!m.is_encoder()) e.kv = kv_cache(m, kvc, groups);
  e.rs = recurrent_state(m, c.kv.n_seq, groups);
  const uint64_t tokens_total = uint64_t{c.kv.n_ctx} * c.kv.n_seq;
  // llama.cpp pools a sequence within one ubatch (non-causal attention needs the whole
  // document: llama-context.cpp rejects n_ubatch < n_tokens), so an embedding ubatch holds at
  // least one document.
  const uint64_t ubatch = std::min<uint64_t>(
      encode_only ? std::max(c.kv.n_ubatch, c.kv.n_ctx) : c.kv.n_ubatch, tokens_total);
  e.batch_tokens = tokens_total;
  e.ubatch_tokens = ubatch;
  // APPROXIMATION: an encoder's graph ends in the hidden states (n_embd per token, the pooled
  // vectors or the rerank head after them), not in vocabulary logits: sized as a model whose
  // output width is n_embd, its attention over the ubatch itself.
  ModelSpec out_m;
  if (m.is_encoder()) {
    out_m = m;
    out_m.n_vocab = m.n_embd;
  }
  const ModelSpec& cm = m.is_encoder() ? out_m : m;
  switch (ep.activations) {
    case ActivationRule::ggml_graph:
      if (m.is_encoder()) {
        e.compute = compute_buffer(cm, ubatch, static_cast<uint32_t>(ubatch), c.flash_attn);
        break;
      }
      ggml_compute(m, c, groups, layout, ubatch, e);
      break;
    // The profiling run: max_num_batched_tokens through the model, max_num_seqs sampled (a
    // pooling model samples nothing). vLLM's own profile run at the GPU's batch limits when the
    // plan gives them (RunConfig::profile_*); else (SGLang's and TensorRT-LLM's borrowed rule)
    // the summed activations.
    case ActivationRule::batch_peak:
      e.compute =
          c.profile_tokens
              ? vllm_profile_peak(cm, c.profile_tokens, encode_only ? 0 : c.profile_seqs)
              : torch_activations(cm, ep.max_num_batched_tokens, encode_only ? 0 : ep.max_num_seqs);
      break;
    // Prefill of the whole context, last-token logits per sequence.
    case ActivationRule::whole_prompt:
      e.compute = torch_activations(cm, tokens_total, encode_only ? 0 : c.kv.n_seq);
      break;
  }
  e.weights_bytes = e.weights.vram_bytes;
  e.kv_cache_bytes = e.kv.total_bytes();
  e.recurrent_state_bytes = e.rs.total_bytes();
  e.activations_bytes = e.compute_split.devices.empty() ? checked_mul(e.compute.bytes(), c.n_gpus)
                                                        : e.compute_split.total_bytes();
  e.overhead_bytes = checked_mul(c.overhead_per_gpu_bytes, c.n_gpus);
  add_draft(c, e);
  e.headroom_bytes = fraction_of(e.subtotal_bytes(), c.headroom);
  e.naive_rule_bytes = fraction_of(e.weights.bytes, 1.2);
  {
    const double act_err = e.compute.torch ? kTorchActivationError : kComputeError;
    const auto bound = [&](double sign) {
      const double sum = static_cast<double>(e.weights_bytes) * (1 + sign * kWeightsError) +
                         static_cast<double>(e.kv_cache_bytes) +
                         static_cast<double>(e.recurrent_state_bytes) +
                         static_cast<double>(e.activations_bytes) * (1 + sign * act_err) +
                         static_cast<double>(e.overhead_bytes) * (1 + sign * kOverheadError) +
                         static_cast<double>(e.draft_bytes);
      return static_cast<uint64_t>(std::llround(sum * (1 + c.headroom)));
    };
    e.total_low_bytes = bound(-1);
    e.total_high_bytes = bound(+1);
  }

  // Worth a warning when a buyer following the rule of thumb would fall well short: the estimate
  // beyond it by more than a fifth (its headroom and a few GiB of compute and overhead take every
  // plan a little beyond it; #21: a warning on every run was noise).
  if (static_cast<double>(e.total_bytes()) > 1.2 * static_cast<double>(e.naive_rule_bytes))
    e.warnings.push_back(
        {EstimateWarningKind::beyond_naive_rule,
         {e.naive_rule_bytes, e.total_bytes(), e.total_bytes() - e.naive_rule_bytes}});
  if (m.arch == Arch::deepseek4)
    e.warnings.push_back({EstimateWarningKind::deepseek4_kv_approximate});
  if (m.n_ctx_train && c.kv.n_ctx > m.n_ctx_train)
    e.warnings.push_back(
        {EstimateWarningKind::beyond_trained_context, {c.kv.n_ctx, m.n_ctx_train}});
  if (e.weights.params_not_in_file)
    e.warnings.push_back(
        {EstimateWarningKind::mtp_not_in_gguf, {m.n_layer_nextn, e.weights.params_not_in_file}});
  if (e.weights.nextn_bytes_not_loaded)
    e.warnings.push_back(
        {EstimateWarningKind::mtp_not_loaded, {m.n_layer_nextn, e.weights.nextn_bytes_not_loaded}});
  return e;
}

uint64_t compute_bytes_per_gpu(const Estimate& e, uint32_t n) {
  if (n == e.n_gpus || !e.compute_one_gpu_bytes) return e.compute.bytes();
  return n <= 1 ? e.compute_one_gpu_bytes : e.compute_any_split_bytes;
}

uint64_t per_gpu_bytes(const Estimate& e, const RunConfig& c, uint32_t n) {
  // The draft model (llama-server -md) split over the same GPUs as the main one.
  const uint64_t shared = checked_add(
      checked_add(checked_add(e.weights_bytes, e.kv_cache_bytes, "weights + KV cache bytes"),
                  e.recurrent_state_bytes, "weights + KV cache + recurrent state bytes"),
      e.draft_bytes, "weights + KV cache + state + draft bytes");
  const uint64_t share = shared / n + (shared % n ? 1 : 0);  // ceil(shared / n), no overflow
  const uint64_t each =
      checked_add(checked_add(share, compute_bytes_per_gpu(e, n), "per-GPU bytes"),
                  c.overhead_per_gpu_bytes, "per-GPU bytes");
  return checked_add(each, fraction_of(each, c.headroom), "per-GPU bytes with headroom");
}

uint64_t available_kv_bytes(const Estimate& e, const RunConfig& c, uint64_t usable_bytes_each,
                            uint32_t n) {
  // budget = floor(usable x n / (1 + headroom)), the headroom in parts per million as in
  // fraction_of, computed in 128 bits (usable x n x 10^6 needs more than 64).
  __extension__ typedef unsigned __int128 u128;
  const auto headroom_ppm = static_cast<u128>(static_cast<uint64_t>(c.headroom * 1e6 + 0.5));
  const u128 budget128 =
      static_cast<u128>(usable_bytes_each) * n * 1000000 / (1000000 + headroom_ppm);
  if (budget128 > std::numeric_limits<uint64_t>::max())
    throw OverflowError("available KV cache bytes: GPU memory x GPUs overflows 64 bits");
  const auto budget = static_cast<uint64_t>(budget128);
  // The compute buffers of the n GPUs: the devices' sum for the estimate's own split.
  const uint64_t compute =
      n == e.n_gpus && !e.compute_split.devices.empty()
          ? e.compute_split.total_bytes()
          : checked_mul(compute_bytes_per_gpu(e, n), n, "compute buffer bytes x GPUs");
  const uint64_t used = checked_add(
      checked_add(
          checked_add(e.weights_bytes, e.recurrent_state_bytes, "weights + recurrent state bytes"),
          e.draft_bytes, "weights + state + draft bytes"),
      checked_add(compute, checked_mul(c.overhead_per_gpu_bytes, n, "overhead bytes x GPUs"),
                  "compute buffer + overhead bytes"),
      "bytes used besides KV");
  return budget > used ? budget - used : 0;
}

uint32_t gpus_needed(const Estimate& e, const RunConfig& c, uint64_t usable_bytes_each,
                     uint32_t max_gpus) {
  // per_gpu_bytes does not grow with n (the shared part is split, the rest is per GPU), so the
  // answer is the scan's from 1: the first n that fits. It starts near the real solution of
  // (shared / n + rest) x (1 + headroom) <= usable and steps to the exact first n from there.
  if (max_gpus == 0 || per_gpu_bytes(e, c, max_gpus) > usable_bytes_each) return 0;
  const double shared =
      static_cast<double>(e.weights_bytes) + static_cast<double>(e.kv_cache_bytes) +
      static_cast<double>(e.recurrent_state_bytes) + static_cast<double>(e.draft_bytes);
  const double room =
      static_cast<double>(usable_bytes_each) / (1 + c.headroom) -
      static_cast<double>(compute_bytes_per_gpu(e, max_gpus) + c.overhead_per_gpu_bytes);
  double guess = room > 0 ? std::ceil(shared / room) : max_gpus;
  if (!(guess >= 1)) guess = 1;
  uint32_t n = guess >= max_gpus ? max_gpus : static_cast<uint32_t>(guess);
  while (n < max_gpus && per_gpu_bytes(e, c, n) > usable_bytes_each) ++n;
  while (n > 1 && per_gpu_bytes(e, c, n - 1) <= usable_bytes_each) --n;
  return n;
}

}  // namespace llmsize
