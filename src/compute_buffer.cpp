#include "llmsize/compute_buffer.hpp"

#include <algorithm>

#include "llmsize/checked.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

uint64_t ComputeBuffer::bytes() const {
  return summed ? checked_add(checked_add(output_bytes, attention_bytes, "compute buffer bytes"),
                              ffn_bytes, "compute buffer bytes")
                : std::max({output_bytes, attention_bytes, ffn_bytes});
}

const char* ComputeBuffer::peak() const {
  if (summed) return "sum";
  const uint64_t b = bytes();
  return b == attention_bytes ? "attention" : b == output_bytes ? "output" : "ffn";
}

ComputeBuffer compute_buffer(const ModelSpec& m, uint64_t n_kv, uint32_t n_ubatch,
                             bool flash_attn) {
  constexpr uint64_t kF32 = 4;
  const uint64_t ub = n_ubatch;
  const uint64_t n_embd = m.n_embd;
  ComputeBuffer c;
  c.output_bytes = checked_mul(kF32 * ub, uint64_t{m.n_vocab} + n_embd);
  if (flash_attn) {
    const uint64_t qkv = uint64_t{m.n_head} * m.n_embd_head_k + m.n_embd_k_gqa() + m.n_embd_v_gqa();
    c.attention_bytes = checked_mul(kF32 * ub, qkv + n_embd);
  } else {
    const uint64_t kq = checked_mul(checked_mul(n_kv, ub), m.n_head);
    c.attention_bytes = checked_mul(kF32, checked_add(kq, kAttnResidentRows * n_embd * ub));
  }
  uint64_t n_ff = m.n_ff;
  if (m.is_moe())
    n_ff = std::max<uint64_t>(n_ff, uint64_t{m.n_ff_exp} * m.n_expert_used + m.n_ff_shexp);
  c.ffn_bytes = checked_mul(kF32 * ub, 2 * n_ff + 2 * n_embd);
  return c;
}

ComputeBuffer torch_activations(const ModelSpec& m, uint64_t tokens, uint64_t logit_rows) {
  ComputeBuffer c;
  uint64_t n_ff = m.n_ff;
  if (m.is_moe())
    n_ff = std::max<uint64_t>(n_ff, uint64_t{m.n_ff_exp} * m.n_expert_used + m.n_ff_shexp);
  c.ffn_bytes = checked_mul(2 * tokens, 2 * n_ff + 4 * uint64_t{m.n_embd});
  const uint64_t qkv = uint64_t{m.n_head} * m.n_embd_head_k + m.n_embd_k_gqa() + m.n_embd_v_gqa();
  c.attention_bytes = checked_mul(2 * tokens, qkv + m.n_embd);
  c.output_bytes = checked_mul(4 * logit_rows, m.n_vocab);
  c.summed = true;
  return c;
}

}  // namespace llmsize
