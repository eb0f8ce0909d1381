#include "llmsize/serving/speculative.hpp"

#include <algorithm>
#include <cmath>

#include "llmsize/checked.hpp"
#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/model/tensor_type.hpp"
#include "llmsize/model/tensors.hpp"
#include "llmsize/serving/serving.hpp"

namespace llmsize {

const char* spec_method_name(SpecMethod m) {
  switch (m) {
    case SpecMethod::none:
      return "none";
    case SpecMethod::mtp:
      return "mtp";
    case SpecMethod::eagle3:
      return "eagle3";
    case SpecMethod::draft:
      return "draft";
  }
  return "none";
}

double tokens_per_step(double a, uint32_t k) {
  a = std::clamp(a, 0.0, 1.0);
  double sum = 1, term = 1;
  for (uint32_t i = 0; i < k; ++i) sum += term *= a;
  return sum;
}

double acceptance_rate(double tau, uint32_t k) {
  if (k == 0 || tau <= 1) return 0;
  if (tau >= k + 1.0) return 1;
  double lo = 0, hi = 1;  // tokens_per_step grows with a
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (tokens_per_step(mid, k) < tau ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double SpecAcceptance::rate() const {
  return acceptance_rate(acceptance_length, draft_tokens);
}

// Published acceptance lengths (the mean tokens a verification step emits, its own included;
// chain drafting), several per model where the depth was swept: a plan takes the row of its
// model measured nearest its own draft tokens.
namespace {

constexpr std::string_view kInferenceXGolden =
    "github:SemiAnalysisAI/InferenceX @843c6254ff69b567f772f6a5fd97675af3d04431 "
    "golden_al_distribution/ (vLLM on B300, SPEED-Bench coding, thinking on: \"AL = 1 + (delta "
    "accepted draft tokens / delta verification drafts)\")";
constexpr std::string_view kTrtR1Blog =
    "github:NVIDIA/TensorRT-LLM docs/source/blogs/tech_blog/"
    "blog1_Pushing_Latency_Boundaries_Optimizing_DeepSeek-R1_Performance_on_NVIDIA_B200_GPUs.md "
    "@01c4ece911eb569e72cf4177f83238a0520641c2 (8 x B200, batch 1; the MTP table's column "
    "\"Acceptance Rate\" holds acceptance lengths: 1.92 / 2.58 / 2.82 for 1 / 2 / 3 layers)";

}  // namespace

const std::vector<SpecAcceptance>& spec_acceptances() {
  static const std::vector<SpecAcceptance> rows = {
      {SpecMethod::mtp, "deepseek-r1", 1.92, 1, "1k/2k real dataset", "TensorRT-LLM", kTrtR1Blog},
      {SpecMethod::mtp, "deepseek-r1", 2.58, 2, "1k/2k real dataset", "TensorRT-LLM", kTrtR1Blog},
      {SpecMethod::mtp, "deepseek-r1", 2.82, 3, "1k/2k real dataset", "TensorRT-LLM", kTrtR1Blog},
      {SpecMethod::mtp, "deepseek-v3", 1.875, 1, "various generation topics", "DeepSeek",
       "DeepSeek-V3 Technical Report, arXiv:2412.19437 section 5.4.3 (\"the acceptance rate of "
       "the second token prediction ranges between 85% and 90%\"; the midpoint)"},
      {SpecMethod::mtp, "deepseek-v4", 1.79, 1, "SPEED-Bench coding", "vLLM", kInferenceXGolden},
      {SpecMethod::mtp, "deepseek-v4", 2.27, 2, "SPEED-Bench coding", "vLLM", kInferenceXGolden},
      {SpecMethod::mtp, "deepseek-v4", 2.49, 3, "SPEED-Bench coding", "vLLM", kInferenceXGolden},
      {SpecMethod::mtp, "qwen3.5", 1.93, 1, "SPEED-Bench coding", "vLLM", kInferenceXGolden},
      {SpecMethod::mtp, "qwen3.5", 2.73, 2, "SPEED-Bench coding", "vLLM", kInferenceXGolden},
      {SpecMethod::mtp, "qwen3.5", 3.39, 3, "SPEED-Bench coding", "vLLM", kInferenceXGolden},
      // Measured on GLM-5.2, the family's latest.
      {SpecMethod::mtp, "glm-5", 1.84, 1, "SPEED-Bench coding", "vLLM", kInferenceXGolden},
      {SpecMethod::mtp, "glm-5", 2.50, 2, "SPEED-Bench coding", "vLLM", kInferenceXGolden},
      {SpecMethod::mtp, "glm-5", 2.99, 3, "SPEED-Bench coding", "vLLM", kInferenceXGolden},
      {SpecMethod::eagle3, "llama-3.3-70b", 2.88, 7, "MT-Bench, temperature 1", "vLLM",
       "https://huggingface.co/nebius/EAGLE3-Llama-3.3-70B-Instruct "
       "(RedHatAI/Llama-3.3-70B-Instruct-speculator.eagle3: MT-bench 2.88 at K = 7)"},
      {SpecMethod::eagle3, "gpt-oss-120b", 2.41, 3, "MT-Bench, temperature 0.7", "SGLang",
       "https://huggingface.co/Dogacel/specdrift-gpt-oss-120b-eagle3 (its baseline EAGLE-3 "
       "head, steps 3 / topk 1 / 4 draft tokens on an H100: acceptance length 2.41 at batch 1 "
       "and 8, 2.43 at 64)"},
  };
  return rows;
}

SpecAcceptanceMatch spec_acceptance(SpecMethod m, std::string_view model_id, uint32_t k) {
  auto gap = [&](const SpecAcceptance& r) {
    return r.draft_tokens > k ? r.draft_tokens - k : k - r.draft_tokens;
  };
  auto pick = [&](std::string_view id) {
    const SpecAcceptance* best = nullptr;
    for (const SpecAcceptance& r : spec_acceptances()) {
      if (r.method != m || id.substr(0, r.model.size()) != r.model) continue;
      if (!best || r.model.size() > best->model.size() ||
          (r.model.size() == best->model.size() && gap(r) < gap(*best)))
        best = &r;
    }
    return best;
  };
  if (const SpecAcceptance* own = pick(model_id)) return {own, true};
  // DeepSeek-R1's rows stand in for an MTP model without its own: the one-layer next-n module
  // the other MTP checkpoints carry too.
  if (m == SpecMethod::mtp) return {pick("deepseek-r1"), false};
  return {};
}

uint32_t default_draft_tokens(SpecMethod) {
  // SGLang's documented defaults (docs/advanced_features/speculative_decoding.md @067ad4d: 3
  // steps, topk 1, 4 draft tokens for most models and for STANDALONE drafts;
  // docs/basic_usage/deepseek_v3.md: the same for DeepSeek's MTP); TensorRT-LLM's DeepSeek-R1
  // blog finds 3 MTP layers fastest at batch 1.
  return 3;
}

const std::vector<Eagle3Head>& eagle3_heads() {
  static const std::vector<Eagle3Head> heads = {
      {"llama-3.3-70b", "RedHatAI/Llama-3.3-70B-Instruct-speculator.eagle3", "", "", 28672, 32000,
       "github:sgl-project/SpecForge configs/llama3-70B-ealge3.json "
       "@82b62f6ebe950866925384d4c90f62aa3594934f (hidden_size 8192, intermediate_size 28672, "
       "num_hidden_layers 1, draft_vocab_size 32000)"},
      {"gpt-oss-120b", "RedHatAI/gpt-oss-120b-speculator.eagle3", "lmsys/EAGLE3-gpt-oss-120b-bf16",
       "nvidia/gpt-oss-120b-Eagle3", 17280, 32000,
       "SpecForge configs/gpt-oss-120B-eagle3.json (hidden_size 2880, intermediate_size 17280, "
       "num_hidden_layers 1, draft_vocab_size 32000), the shape of SGLang's head; the "
       "repositories each engine's guide launches: vLLM "
       "https://huggingface.co/RedHatAI/gpt-oss-120b-speculator.eagle3, SGLang "
       "docs/basic_usage/gpt_oss.md (--speculative-draft-model-path "
       "lmsys/EAGLE3-gpt-oss-120b-bf16), TensorRT-LLM docs/source/blogs/tech_blog/"
       "blog11_GPT_OSS_Eagle3.md @2772a81b730f15d1bd0f8fe2163e3e50c98d99c7"},

  };
  return heads;
}

const Eagle3Head* eagle3_head(std::string_view model_id) {
  const Eagle3Head* best = nullptr;
  for (const Eagle3Head& h : eagle3_heads())
    if (model_id.substr(0, h.model.size()) == h.model &&
        (!best || h.model.size() > best->model.size()))
      best = &h;
  return best;
}

namespace {

// KV bytes one token keeps in one of m's full-attention layers at kv.
uint64_t kv_bytes_per_layer_token(const ModelSpec& m, KvDtype kv) {
  KvCacheConfig c;
  c.n_ctx = 1;
  c.n_seq = 1;
  c.padding = 1;
  c.type_k = c.type_v = kv_tensor_type(kv);
  return kv_cache(m, c).bytes_per_cell_layer();
}

// The checkpoint's next-n layers as one draft pass runs them: each layer's tensors (its routed
// experts as the target's are, n_expert_used of them per token) and the output head it shares
// with the target (vLLM's DeepSeekMTP and Glm4MoeMTP compute their logits with the target's
// lm_head: read each pass, held once).
ServingModel mtp_draft(const ModelSpec& m, const QuantPreset& q, KvDtype kv) {
  ServingModel d;
  const auto tensors = model_tensors(m);
  const auto types = assign_tensor_types(m, tensors, q);
  uint64_t experts = 0, held = 0, embd = 0, head = 0, head_params = 0, dense_params = 0;
  bool own_head = false;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorDesc& t = tensors[i];
    const uint64_t b = tensor_bytes(types[i], t.ne[0], t.n_elements());
    if (t.role == TensorRole::output) head = b, head_params = t.n_elements();
    if (t.layer < 0 || static_cast<uint32_t>(t.layer) < m.n_layer) continue;
    held = checked_add(held, b, "MTP bytes");
    if (is_routed_expert(t.role)) {
      experts = checked_add(experts, b, "MTP expert bytes");
    } else if (t.role == TensorRole::nextn_embed_tokens) {
      embd = checked_add(embd, b, "MTP embedding bytes");  // one row per token
    } else {
      dense_params += t.n_elements();
      own_head = own_head || t.role == TensorRole::nextn_shared_head_head;
    }
  }
  d.weight_bytes = held;
  d.n_layer = m.n_layer_nextn;
  d.n_embd = m.n_embd;
  d.n_head = m.n_head;
  d.n_head_kv = m.is_mla() ? 1 : m.n_head_kv;
  d.head_dim = m.n_embd_head_k;
  d.compute = d.expert_compute = compute_dtype(q);
  if (m.is_moe() && experts) {
    d.n_expert = m.n_expert;
    d.n_expert_used = m.n_expert_used;
    d.n_layer_moe = m.n_layer_nextn;
    d.expert_bytes = experts / m.n_expert / m.n_layer_nextn;
  }
  // A layer with its own output head (GLM-4.5's shared_head.head) reads that one.
  d.dense_read_bytes = checked_add(held - experts - embd, own_head ? 0 : head, "MTP bytes read");
  const uint64_t expert_params =
      m.is_moe() ? uint64_t{3} * m.n_embd * m.n_ff_exp * m.n_expert_used * m.n_layer_nextn : 0;
  d.matmul_params = dense_params + expert_params + (own_head ? 0 : head_params);
  d.kv_bytes_per_token = kv_bytes_per_layer_token(m, kv) * m.n_layer_nextn;
  return d;
}

// A published EAGLE-3 head in BF16 (as its repository ships it): fc [3 n_embd -> n_embd] over
// three of the target's hidden states; one decoder layer whose q/k/v read the token's embedding
// and that fused state side by side (2 n_embd wide), the target's head counts; a SwiGLU FFN of
// the head's n_ff; its own output head over n_vocab_draft tokens (vLLM
// vllm/model_executor/models/llama_eagle3.py LlamaDecoderLayer with qkv_proj input 2 x hidden,
// Eagle3LlamaForCausalLM fc and lm_head of draft_vocab_size). The embedding is the target's.
ServingModel eagle3_draft(const ModelSpec& m, const Eagle3Head& h, KvDtype kv) {
  ServingModel d;
  const uint64_t e = m.n_embd, hd = m.n_embd_head_k ? m.n_embd_head_k : e / m.n_head;
  const uint64_t q = uint64_t{m.n_head} * hd, kv_w = uint64_t{m.n_head_kv} * hd;
  const uint64_t params = 3 * e * e + 2 * e * (q + 2 * kv_w) + q * e + 3 * e * uint64_t{h.n_ff} +
                          e * uint64_t{h.n_vocab_draft};
  d.weight_bytes = checked_mul(params, 2, "EAGLE-3 head bytes");
  d.dense_read_bytes = d.weight_bytes;
  d.matmul_params = params;
  d.n_layer = 1;
  d.n_embd = m.n_embd;
  d.n_head = m.n_head;
  d.n_head_kv = m.n_head_kv;
  d.head_dim = static_cast<uint32_t>(hd);
  d.compute = d.expert_compute = ComputeDtype::bf16;
  ModelSpec dense = m;
  dense.n_layer_nextn = 0;
  d.kv_bytes_per_token = kv_bytes_per_layer_token(dense, kv);
  return d;
}

}  // namespace

Speculation make_speculation(SpecMethod method, uint32_t k, double acceptance, const ModelSpec& m,
                             const QuantPreset& q, KvDtype kv, const DraftModel* draft,
                             bool nextn_in_target) {
  Speculation s;
  if (method == SpecMethod::none) return s;
  s.method = method;
  s.draft_tokens = k ? k : default_draft_tokens(method);
  if (acceptance > 0) {
    s.acceptance = acceptance;
  } else if (const SpecAcceptanceMatch a = spec_acceptance(method, m.id, s.draft_tokens); a.row) {
    s.acceptance = a.row->rate();
    s.measured = a.row;
    s.measured_own = a.own;
  }
  s.draft = spec_draft_model(method, m, q, kv, eagle3_head(m.id), draft);
  if (method == SpecMethod::mtp && nextn_in_target) s.draft.weight_bytes = 0;
  return s;
}

ServingModel spec_draft_model(SpecMethod method, const ModelSpec& m, const QuantPreset& q,
                              KvDtype kv, const Eagle3Head* head, const DraftModel* draft) {
  switch (method) {
    case SpecMethod::mtp:
      return mtp_draft(m, q, kv);
    case SpecMethod::eagle3:
      return head ? eagle3_draft(m, *head, kv) : ServingModel{};
    case SpecMethod::draft: {
      if (!draft) return {};
      const QuantPreset& dq = draft->quant ? *draft->quant : q;
      const Weights w = draft->exact_weights ? *draft->exact_weights
                                             : compute_weights(draft->spec, dq, false, false);
      ServingModel d = serving_model(draft->spec, dq, w, 0, kv);
      d.weight_bytes = w.vram_bytes ? w.vram_bytes : w.bytes;
      return d;
    }
    case SpecMethod::none:
      break;
  }
  return {};
}

}  // namespace llmsize
