#include "llmsize/serving/placement.hpp"

#include <algorithm>

namespace llmsize {
namespace {

// The decode replicas: how many, of how many GPUs each.
struct Replicas {
  uint32_t count = 0, size = 0;
};
Replicas decode_replicas(uint32_t n_gpus, const GpuUnits& u) {
  const uint32_t prefill = u.prefill_gpus();
  const uint32_t decode = n_gpus > prefill ? n_gpus - prefill : 0;
  if (decode == 0) return {};
  if (u.unit == 0 || u.unit >= decode) return {1, decode};
  return {(decode + u.unit - 1) / u.unit, u.unit};
}

}  // namespace

Placement place_units(uint32_t n_gpus, uint32_t per_node, const GpuUnits& u) {
  const uint32_t c = std::max<uint32_t>(1, per_node);
  const Replicas r = decode_replicas(n_gpus, u);
  Placement out;
  out.decode.resize(r.count);
  out.prefill.resize(u.prefill_workers);
  // A piece: its size and where its place goes.
  struct Piece {
    uint32_t size;
    UnitPlace* place;
  };
  std::vector<Piece> pieces;
  pieces.reserve(r.count + u.prefill_workers);
  for (auto& p : out.prefill) pieces.push_back({u.prefill_tp, &p});
  for (auto& p : out.decode) pieces.push_back({r.size, &p});
  // Largest first; at equal sizes the prefill workers first, in the order the launch writes them
  // (a stable sort).
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const Piece& a, const Piece& b) { return a.size > b.size; });
  std::vector<uint32_t> used;  // GPUs taken on each machine; a wide piece's machines are full
  for (const Piece& p : pieces) {
    if (p.size > c) {
      *p.place = {static_cast<uint32_t>(used.size()), 0};
      for (uint32_t k = 0; k < (p.size + c - 1) / c; ++k) used.push_back(c);
      continue;
    }
    size_t m = 0;
    while (m < used.size() && used[m] + p.size > c) ++m;
    if (m == used.size()) used.push_back(0);
    *p.place = {static_cast<uint32_t>(m), used[m]};
    used[m] += p.size;
  }
  out.machines = std::max(static_cast<uint32_t>(used.size()), u.min_machines);
  return out;
}

namespace {
// The closed form of place_units for one size of piece.
uint32_t packed_machines(uint32_t n_gpus, uint32_t per_node, const GpuUnits& u) {
  const uint32_t c = std::max<uint32_t>(1, per_node);
  if (u.unit == 0 || u.unit >= n_gpus) return (n_gpus + c - 1) / c;
  const uint32_t replicas = (n_gpus + u.unit - 1) / u.unit;
  if (u.unit <= c) {
    const uint32_t per = c / u.unit;
    return (replicas + per - 1) / per;
  }
  return replicas * ((u.unit + c - 1) / c);
}
}  // namespace

uint32_t machines_for(uint32_t n_gpus, uint32_t per_node, const GpuUnits& u) {
  if (u.prefill_workers) return place_units(n_gpus, per_node, u).machines;
  return std::max(packed_machines(n_gpus, per_node, u), u.min_machines);
}

}  // namespace llmsize
