#include "llmsize/memory/recurrent_state.hpp"

#include <algorithm>

#include "llmsize/model/layers.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

uint64_t n_embd_r(const ModelSpec& m, StateKind k) {
  const SsmSpec& s = m.ssm;
  switch (k) {
    case StateKind::none:
      return 0;
    case StateKind::short_conv:
      return checked_mul(m.n_embd, s.l_cache > 0 ? s.l_cache - 1 : 0);
    case StateKind::mamba2:
    case StateKind::gated_delta_net:
      // The first column of the conv state is shifted out each step, so d_conv - 1 are kept.
      return checked_mul(s.d_conv > 0 ? s.d_conv - 1 : 0,
                         checked_add(s.d_inner, checked_mul(2ull * s.n_group, s.d_state)));
  }
  return 0;
}

uint64_t n_embd_s(const ModelSpec& m, StateKind k) {
  if (k == StateKind::none || k == StateKind::short_conv) return 0;
  return checked_mul(m.ssm.d_state, m.ssm.d_inner);
}

RecurrentState recurrent_state(const ModelSpec& m, uint32_t n_seq) {
  return recurrent_state(m, n_seq, layer_groups(m));
}

RecurrentState recurrent_state(const ModelSpec& m, uint32_t n_seq,
                               const std::vector<LayerGroup>& groups) {
  RecurrentState r;
  r.n_seq = std::max<uint32_t>(1, n_seq);
  constexpr uint64_t kF32 = 4;
  for (const auto& g : groups) {
    if (g.kind.state == StateKind::none) continue;
    auto it = std::find_if(r.parts.begin(), r.parts.end(),
                           [&](const RecurrentPart& p) { return p.kind == g.kind.state; });
    if (it == r.parts.end()) {
      RecurrentPart p;
      p.kind = g.kind.state;
      p.n_embd_r = n_embd_r(m, p.kind);
      p.n_embd_s = n_embd_s(m, p.kind);
      it = r.parts.insert(r.parts.end(), p);
    }
    it->n_layer = checked_add(it->n_layer, g.n_layer);
  }
  for (auto& p : r.parts) {
    const uint64_t per = checked_mul(checked_mul(p.n_layer, r.n_seq), kF32);
    const uint64_t rb = checked_mul(per, p.n_embd_r), sb = checked_mul(per, p.n_embd_s);
    p.bytes = checked_add(rb, sb);
    r.r_bytes = checked_add(r.r_bytes, rb);
    r.s_bytes = checked_add(r.s_bytes, sb);
  }
  return r;
}

}  // namespace llmsize
