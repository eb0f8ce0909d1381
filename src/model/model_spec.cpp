#include "llmsize/model/model_spec.hpp"
#include "llmsize/checked.hpp"

#include <string>

namespace llmsize {
namespace {
struct ArchName {
  Arch arch;
  const char* name;
};
// llama.cpp src/llama-arch.cpp LLM_ARCH_NAMES.
const ArchName kArchNames[] = {
    {Arch::llama, "llama"},
    {Arch::qwen2, "qwen2"},
    {Arch::qwen2moe, "qwen2moe"},
    {Arch::qwen3, "qwen3"},
    {Arch::qwen3moe, "qwen3moe"},
    {Arch::gemma2, "gemma2"},
    {Arch::gemma3, "gemma3"},
    {Arch::phi3, "phi3"},
    {Arch::deepseek2, "deepseek2"},
    {Arch::command_r, "command-r"},
    {Arch::falcon, "falcon"},
    {Arch::starcoder, "starcoder"},
    // llama.cpp src/llama-arch.cpp LLM_ARCH_NAMES at commit 00395eb2.
    {Arch::gpt_oss, "gpt-oss"},
    {Arch::qwen3next, "qwen3next"},
    {Arch::qwen35, "qwen35"},
    {Arch::qwen35moe, "qwen35moe"},
    {Arch::qwen3vl, "qwen3vl"},
    {Arch::gemma4, "gemma4"},
    {Arch::llama4, "llama4"},
    {Arch::deepseek32, "deepseek32"},
    {Arch::glm_dsa, "glm-dsa"},
    {Arch::glm4moe, "glm4moe"},
    {Arch::minimax_m2, "minimax-m2"},
    {Arch::nemotron_h, "nemotron_h"},
    {Arch::nemotron_h_moe, "nemotron_h_moe"},
    {Arch::granitehybrid, "granitehybrid"},
    {Arch::lfm2, "lfm2"},
    {Arch::lfm2moe, "lfm2moe"},
    {Arch::falcon_h1, "falcon-h1"},
    {Arch::cohere2, "cohere2"},
    {Arch::olmo2, "olmo2"},
    {Arch::smollm3, "smollm3"},
    {Arch::seed_oss, "seed_oss"},
    {Arch::ernie4_5_moe, "ernie4_5-moe"},
    {Arch::hunyuan_moe, "hunyuan-moe"},
    {Arch::mistral3, "mistral3"},
    {Arch::deepseek4, "deepseek4"},
    {Arch::bert, "bert"},
    {Arch::gemma3n, "gemma3n"},
};
}  // namespace

const char* task_name(Task t) {
  switch (t) {
    case Task::generation:
      return "generation";
    case Task::embedding:
      return "embedding";
    case Task::rerank:
      return "rerank";
  }
  return "?";
}

void set_task(ModelSpec& m, Task t) {
  m.task = t;
  if (t == Task::rerank && m.arch == Arch::qwen3 && !m.n_cls_out) {
    m.n_cls_out = 2;
    // No output.weight: src/models/qwen3.cpp loads token_embd again as the output
    // (TENSOR_DUPLICATED) and the graph still computes the logits through it, as a tied model.
    m.tied_embeddings = true;
  }
}

std::optional<Task> task_from_name(std::string_view name) {
  for (Task t : {Task::generation, Task::embedding, Task::rerank})
    if (name == task_name(t)) return t;
  return std::nullopt;
}

const char* arch_name(Arch a) {
  for (const auto& an : kArchNames)
    if (an.arch == a) return an.name;
  return "?";
}

std::optional<Arch> arch_from_name(std::string_view name) {
  for (const auto& an : kArchNames)
    if (name == an.name) return an.arch;
  return std::nullopt;
}

uint64_t ModelSpec::n_embd_k_gqa() const {
  // MLA (llama.cpp deepseek2 with MLA): K cache holds kv_lora_rank + n_rot per token per layer.
  if (is_mla()) return uint64_t{kv_lora_rank} + n_rot;
  return uint64_t{n_embd_head_k} * n_head_kv;
}

uint64_t ModelSpec::n_embd_v_gqa() const {
  // MLA: V is a view of the latent in the K cache; nothing extra is stored.
  if (is_mla()) return 0;
  return uint64_t{n_embd_head_v} * n_head_kv;
}

std::vector<std::string> validate(const ModelSpec& m) {
  std::vector<std::string> p;
  auto need = [&](uint32_t v, const char* field) {
    if (v == 0) p.push_back(std::string(field) + " must be a positive integer");
  };
  need(m.n_layer, "n_layer");
  need(m.n_embd, "n_embd");
  need(m.n_head, "n_head");
  need(m.n_head_kv, "n_head_kv");
  need(m.n_embd_head_k, "n_embd_head_k");
  need(m.n_embd_head_v, "n_embd_head_v");
  need(m.n_vocab, "n_vocab");
  if (m.layer_kinds.empty() && (!m.is_moe() || m.n_layer_dense_lead > 0)) need(m.n_ff, "n_ff");
  if (!m.layer_kinds.empty()) {
    // The per-layer description: runs name existing kinds and cover n_layer exactly.
    uint64_t covered = 0;
    bool bad_kind = false;
    for (const auto& seg : m.layer_segments) {
      uint64_t per = 0;
      for (const auto& r : seg.runs) {
        if (r.kind >= m.layer_kinds.size()) bad_kind = true;
        per += r.count;
      }
      covered += per * seg.repeat;
      if (covered > (uint64_t{1} << 40)) break;
    }
    if (bad_kind) p.push_back("layer_segments name a layer kind that does not exist");
    if (covered != m.n_layer)
      p.push_back("the layer pattern covers " + std::to_string(covered) + " layers, n_layer is " +
                  std::to_string(m.n_layer));
    for (const auto& k : m.layer_kinds) {
      if (k.ffn == FfnKind::dense && k.n_ff == 0) p.push_back("a dense layer has n_ff 0");
      if (k.ffn == FfnKind::moe && !m.is_moe())
        p.push_back("an MoE layer in a model without experts");
      if ((k.attn == AttnKind::swa || k.attn == AttnKind::chunked) && k.n_swa == 0)
        p.push_back("a sliding-window layer has n_swa 0");
      if (k.attn != AttnKind::none && k.attn != AttnKind::mla &&
          (k.n_head == 0 || k.n_embd_head_k == 0 || k.n_embd_head_v == 0))
        p.push_back("an attention layer has no heads or head size");
      if (k.state == StateKind::short_conv && m.ssm.l_cache == 0)
        p.push_back("ssm.l_cache must be set for short-conv layers");
      if ((k.state == StateKind::mamba2 || k.state == StateKind::gated_delta_net) &&
          (m.ssm.d_conv == 0 || m.ssm.d_inner == 0 || m.ssm.d_state == 0 || m.ssm.n_group == 0 ||
           m.ssm.dt_rank == 0))
        p.push_back("ssm d_conv, d_inner, d_state, n_group and dt_rank must be set for " +
                    std::string(state_kind_name(k.state)) + " layers");
    }
  }
  if (m.n_head && m.n_head_kv && m.n_head % m.n_head_kv != 0)
    p.push_back("n_head (" + std::to_string(m.n_head) + ") is not divisible by n_head_kv (" +
                std::to_string(m.n_head_kv) + ")");
  if (m.n_head_kv > m.n_head)
    p.push_back("n_head_kv (" + std::to_string(m.n_head_kv) + ") exceeds n_head (" +
                std::to_string(m.n_head) + ")");
  if (m.n_expert == 1) p.push_back("n_expert is 1: use 0 for a dense model");
  if (m.is_moe()) {
    need(m.n_ff_exp, "n_ff_exp");
    need(m.n_expert_used, "n_expert_used");
    if (m.n_expert_used > m.n_expert)
      p.push_back("n_expert_used (" + std::to_string(m.n_expert_used) + ") exceeds n_expert (" +
                  std::to_string(m.n_expert) + ")");
    if (m.n_layer_dense_lead > m.n_layer) p.push_back("n_layer_dense_lead exceeds n_layer");
  }
  if (m.n_swa > 0 && m.swa_pattern == 0 && m.layer_kinds.empty())
    p.push_back("swa_pattern must be set when n_swa is");
  if (m.is_mla() && m.n_rot == 0) p.push_back("n_rot (qk_rope_head_dim) must be set for MLA");
  // Guard against absurd sizes that would only come from a broken file (2^24 = 16M).
  const uint32_t kMax = 1u << 24;
  for (auto [v, f] : {std::pair{m.n_layer, "n_layer"},
                      {m.n_embd, "n_embd"},
                      {m.n_ff, "n_ff"},
                      {m.n_head, "n_head"},
                      {m.n_vocab, "n_vocab"},
                      {m.n_expert, "n_expert"}})
    if (v > kMax) p.push_back(std::string(f) + " (" + std::to_string(v) + ") is implausibly large");
  return p;
}

}  // namespace llmsize

namespace llmsize {

// Tensor by tensor, as transformers defines them (shapes in comments as [out, in]).
uint64_t vision_tower_params(const VisionTower& v) {
  const uint64_t h = v.hidden, ff = v.n_ff, L = v.depth, p = v.patch, c = v.in_channels;
  auto mul = [](uint64_t a, uint64_t b) { return checked_mul(a, b, "vision tower parameters"); };
  auto add = [](uint64_t a, uint64_t b) { return checked_add(a, b, "vision tower parameters"); };
  auto linear = [&](uint64_t in, uint64_t out, bool bias) {
    return add(mul(in, out), bias ? out : 0);
  };
  switch (v.kind) {
    case VisionKind::none:
      return 0;
    case VisionKind::qwen3_vl: {
      // transformers models/qwen3_vl/modeling_qwen3_vl.py (Qwen3.5/3.6 reuse it):
      // patch_embed.proj Conv3d(in_channels, hidden, [temporal_patch, patch, patch]) + bias;
      // pos_embed Embedding(num_position_embeddings, hidden); per block norm1/norm2 LayerNorm
      // (weight + bias), attn.qkv Linear(h, 3h) + bias, attn.proj Linear(h, h) + bias,
      // mlp.linear_fc1 Linear(h, ff) + bias, mlp.linear_fc2 Linear(ff, h) + bias; merger
      // (Qwen3VLVisionPatchMerger, H = h x merge^2): norm LayerNorm(h), linear_fc1 Linear(H, H),
      // linear_fc2 Linear(H, out_hidden), both biased; each deepstack merger the same with a
      // LayerNorm(H) (use_postshuffle_norm).
      const uint64_t patch = add(mul(mul(mul(c, v.temporal_patch), mul(p, p)), h), h);
      const uint64_t block =
          add(add(add(4 * h, linear(h, 3 * h, true)), add(linear(h, h, true), linear(h, ff, true))),
              linear(ff, h, true));
      const uint64_t H = mul(h, uint64_t{v.merge} * v.merge);
      const uint64_t merger_core = add(linear(H, H, true), linear(H, v.out_hidden, true));
      uint64_t n = add(add(patch, mul(v.n_pos, h)), mul(L, block));
      n = add(n, add(2 * h, merger_core));
      return add(n, mul(v.n_deepstack, add(2 * H, merger_core)));
    }
    case VisionKind::siglip: {
      // transformers models/siglip/modeling_siglip.py: patch_embedding Conv2d(c, h, patch) + bias,
      // position_embedding Embedding((image_size / patch)^2, h); per layer layer_norm1/2
      // (weight + bias), q/k/v/out_proj Linear(h, h) + bias, mlp fc1 Linear(h, ff) + bias, fc2
      // Linear(ff, h) + bias; post_layernorm. models/gemma3/modeling_gemma3.py
      // Gemma3MultiModalProjector: mm_input_projection_weight [h, text hidden], mm_soft_emb_norm
      // RMSNorm(h).
      const uint64_t patch = add(mul(mul(c, mul(p, p)), h), h);
      const uint64_t block = add(add(4 * h, mul(4, linear(h, h, true))),
                                 add(linear(h, ff, true), linear(ff, h, true)));
      uint64_t n = add(add(patch, mul(v.n_pos, h)), mul(L, block));
      return add(add(n, 2 * h), add(mul(h, v.out_hidden), h));
    }
    case VisionKind::gemma4: {
      // Gemma 4 vision encoder: patch_embedder.input_proj Linear(c x patch^2, h) without bias,
      // a 2-D position table [2, position_embedding_size, h]; per layer q/k/v/o Linear(h,
      // n_head x head_dim) without bias, q_norm/k_norm RMSNorm(head_dim), four RMSNorm(h)
      // (input, post-attention, pre- and post-feedforward), gate/up/down of a gated MLP
      // without bias; embed_vision.embedding_projection Linear(h, text hidden) after a
      // scale-free RMSNorm.
      const uint64_t attn_w = mul(v.n_head, v.head_dim);
      const uint64_t block = add(add(mul(4, mul(h, attn_w)), 2 * uint64_t{v.head_dim}),
                                 add(4 * h, mul(3, mul(h, ff))));
      uint64_t n = add(mul(mul(c, mul(p, p)), h), mul(2, mul(v.n_pos, h)));
      n = add(n, mul(L, block));
      return add(n, mul(h, v.out_hidden));
    }
    case VisionKind::pixtral: {
      // transformers models/pixtral/modeling_pixtral.py PixtralVisionModel: patch_conv
      // Conv2d(c, h, patch) without bias, ln_pre RMSNorm(h), rotary positions (no weights); per
      // layer attention_norm and ffn_norm RMSNorm(h), q/k/v/o Linear(h, n_head x head_dim)
      // without bias, gate/up/down of a gated MLP without bias. models/mistral3/
      // modeling_mistral3.py Mistral3MultiModalProjector (multimodal_projector_bias false):
      // norm RMSNorm(h), patch_merger.merging_layer Linear(h x merge^2, h), linear_1 Linear(h,
      // text hidden), linear_2 Linear(text hidden, text hidden).
      const uint64_t attn_w = mul(v.n_head, v.head_dim);
      const uint64_t block = add(add(mul(4, mul(h, attn_w)), mul(3, mul(h, ff))), 2 * h);
      uint64_t n = add(add(mul(mul(c, mul(p, p)), h), h), mul(L, block));
      const uint64_t merger = mul(mul(h, uint64_t{v.merge} * v.merge), h);
      n = add(n, add(h, merger));
      return add(n, add(mul(h, v.out_hidden), mul(v.out_hidden, v.out_hidden)));
    }
  }
  return 0;
}

}  // namespace llmsize
