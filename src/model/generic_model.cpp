#include "llmsize/model/generic_model.hpp"

#include <algorithm>
#include <cmath>

namespace llmsize {

ModelSpec generic_dense_model(double params) {
  // Llama-3 proportions: head_dim 128, 8 KV heads, n_ff = 3.5 x n_embd, vocab 128256, untied;
  // width grows with depth as n_embd ~ 128 x n_layer (Llama-3.1-8B: 32 layers x 4096).
  ModelSpec m;
  m.arch = Arch::llama;
  m.n_vocab = 128256;
  m.n_head_kv = 8;
  m.n_embd_head_k = m.n_embd_head_v = 128;
  m.n_ctx_train = 131072;
  const double per_layer_coeff = 2.0 + 2.0 * 1024 / 4096 + 3 * 3.5;  // at n_embd 4096, ~12.5
  double n_layer = std::cbrt(params / (per_layer_coeff * 128.0 * 128.0));
  n_layer = std::max(4.0, n_layer);
  uint32_t n_embd = static_cast<uint32_t>(std::max(1.0, std::round(128.0 * n_layer / 512.0))) * 512;
  n_embd = std::max<uint32_t>(n_embd, 1024);
  m.n_embd = n_embd;
  m.n_head = n_embd / 128;
  m.n_ff = static_cast<uint32_t>(std::round(3.5 * n_embd / 256.0)) * 256;
  const double e = n_embd;
  const double per_layer = 2 * e * e + 2 * e * 1024 + 3 * e * m.n_ff + 2 * e;
  const double rest = 2.0 * e * m.n_vocab;
  m.n_layer = static_cast<uint32_t>(std::max(1.0, std::round((params - rest) / per_layer)));
  return m;
}

}  // namespace llmsize
