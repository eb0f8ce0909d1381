#include "llmsize/model_spec.hpp"

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
};
}  // namespace

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

const std::vector<Arch>& all_archs() {
  static const std::vector<Arch> v = [] {
    std::vector<Arch> r;
    for (const auto& an : kArchNames) r.push_back(an.arch);
    return r;
  }();
  return v;
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
