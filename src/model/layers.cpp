#include "llmsize/model/layers.hpp"

#include <algorithm>
#include <stdexcept>

#include "llmsize/units.hpp"

namespace llmsize {
namespace {

// Appends layers of kind `kind` to a run list, merging with the last run.
void push_run(std::vector<LayerRun>& runs, uint32_t kind, uint32_t count) {
  if (count == 0) return;
  if (!runs.empty() && runs.back().kind == kind)
    runs.back().count += count;
  else
    runs.push_back({kind, count});
}

bool same_runs(const std::vector<LayerRun>& r, size_t a, size_t b, size_t q) {
  for (size_t i = 0; i < q; ++i)
    if (r[a + i].kind != r[b + i].kind || r[a + i].count != r[b + i].count) return false;
  return true;
}

// Groups a run list into segments: the longest repeated period of up to kMaxPeriod runs at each
// point, else loose runs gathered in one segment.
constexpr size_t kMaxPeriod = 16;
std::vector<LayerSegment> compress_runs(const std::vector<LayerRun>& runs) {
  std::vector<LayerSegment> out;
  size_t i = 0;
  while (i < runs.size()) {
    size_t best_q = 0, best_r = 1;
    for (size_t q = 1; q <= kMaxPeriod && i + 2 * q <= runs.size(); ++q) {
      size_t r = 1;
      while (i + (r + 1) * q <= runs.size() && same_runs(runs, i, i + r * q, q)) ++r;
      if (r >= 2 && q * r > best_q * best_r) best_q = q, best_r = r;
    }
    if (best_q) {
      out.push_back({{runs.begin() + static_cast<std::ptrdiff_t>(i),
                      runs.begin() + static_cast<std::ptrdiff_t>(i + best_q)},
                     static_cast<uint32_t>(best_r)});
      i += best_q * best_r;
    } else {
      if (out.empty() || out.back().repeat != 1) out.push_back({{}, 1});
      push_run(out.back().runs, runs[i].kind, runs[i].count);
      ++i;
    }
  }
  return out;
}

// Appends a segment; loose runs (repeat 1) join a loose segment before them, so the same layers
// give the same segments however they were appended.
void push_segment(std::vector<LayerSegment>& segs, LayerSegment s) {
  if (s.repeat == 1 && s.runs.size() == 1 && s.runs[0].count > 0 && !segs.empty() &&
      segs.back().repeat > 1 && segs.back().runs.size() == 1 &&
      segs.back().runs[0].kind == s.runs[0].kind) {
    // One kind repeated is just a longer run.
    segs.back().runs[0].count = segs.back().runs[0].count * segs.back().repeat + s.runs[0].count;
    segs.back().repeat = 1;
    return;
  }
  if (s.repeat == 1 && !segs.empty() && segs.back().repeat == 1) {
    for (const auto& r : s.runs) push_run(segs.back().runs, r.kind, r.count);
    return;
  }
  segs.push_back(std::move(s));
}

uint32_t kind_index(std::vector<LayerKind>& kinds, const LayerKind& k) {
  for (size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] == k) return static_cast<uint32_t>(i);
  kinds.push_back(k);
  return static_cast<uint32_t>(kinds.size() - 1);
}

// The kind of layer il of a model described by its uniform scalars.
LayerKind legacy_kind(const ModelSpec& m, uint32_t il) {
  LayerKind k;
  const bool swa = m.is_swa_layer(il);
  k.attn = swa ? AttnKind::swa : m.is_mla() ? AttnKind::mla : AttnKind::full;
  k.n_swa = swa ? m.n_swa : 0;
  k.n_head = m.n_head;
  k.n_head_kv =
      il < m.n_head_kv_per_layer.size() && !m.is_mla() ? m.n_head_kv_per_layer[il] : m.n_head_kv;
  k.n_embd_head_k = m.n_embd_head_k;
  k.n_embd_head_v = m.n_embd_head_v;
  k.ffn = m.is_moe_layer(il) ? FfnKind::moe : FfnKind::dense;
  k.n_ff = k.ffn == FfnKind::dense ? m.n_ff : 0;
  return k;
}

// Appends layers [a, b) to `segs`: kind(il) is periodic in il with `period` (0: not periodic,
// every layer is walked). At most one period plus a partial head and tail are walked; the whole
// periods in between are counted, not walked.
void append_range(std::vector<LayerKind>& kinds, std::vector<LayerSegment>& segs, uint32_t a,
                  uint32_t b, uint32_t period, const std::function<LayerKind(uint32_t)>& kind) {
  if (a >= b) return;
  auto walk = [&](uint32_t from, uint32_t to, std::vector<LayerRun>& runs) {
    for (uint32_t il = from; il < to; ++il) push_run(runs, kind_index(kinds, kind(il)), 1);
  };
  auto flush = [&](std::vector<LayerRun>& runs) {
    for (auto& s : compress_runs(runs)) push_segment(segs, std::move(s));
    runs.clear();
  };
  std::vector<LayerRun> runs;
  if (period <= 1 || b - a < 2 * uint64_t{period}) {
    if (period == 1)
      push_run(runs, kind_index(kinds, kind(a)), b - a);  // every layer alike
    else
      walk(a, b, runs);
    flush(runs);
    return;
  }
  const uint32_t h = std::min(b, (a + period - 1) / period * period);
  walk(a, h, runs);
  flush(runs);
  const uint32_t n_period = (b - h) / period;
  if (n_period > 0) {
    std::vector<LayerRun> one;
    walk(h, h + period, one);
    push_segment(segs, {one, n_period});
  }
  walk(h + n_period * period, b, runs);
  flush(runs);
}

void legacy_range(const ModelSpec& m, std::vector<LayerKind>& kinds,
                  std::vector<LayerSegment>& segs, uint32_t a, uint32_t b) {
  const uint32_t p = !m.n_head_kv_per_layer.empty()     ? 0
                     : m.n_swa > 0 && m.swa_pattern > 1 ? m.swa_pattern
                                                        : 1;
  append_range(kinds, segs, a, b, p, [&](uint32_t il) { return legacy_kind(m, il); });
}

}  // namespace

bool LayerKind::operator==(const LayerKind& o) const {
  return attn == o.attn && n_head == o.n_head && n_head_kv == o.n_head_kv &&
         n_embd_head_k == o.n_embd_head_k && n_embd_head_v == o.n_embd_head_v && n_swa == o.n_swa &&
         n_indexer_k == o.n_indexer_k && k_eq_v == o.k_eq_v && sinks == o.sinks && nope == o.nope &&
         kv_shared == o.kv_shared && kv_single == o.kv_single &&
         compress_ratio == o.compress_ratio && gated_q == o.gated_q && state == o.state &&
         ffn == o.ffn && n_ff == o.n_ff;
}

LayerLayout layer_layout(const ModelSpec& m) {
  LayerLayout l;
  if (!m.layer_kinds.empty()) {
    l.kinds = m.layer_kinds;
    l.segments = m.layer_segments;
    return l;
  }
  const uint32_t lead = m.is_moe() ? std::min(m.n_layer_dense_lead, m.n_layer) : 0;
  legacy_range(m, l.kinds, l.segments, 0, lead);
  legacy_range(m, l.kinds, l.segments, lead, m.n_layer);
  return l;
}

uint64_t layer_count(const LayerLayout& l) {
  uint64_t n = 0;
  for (const auto& s : l.segments) {
    uint64_t per = 0;
    for (const auto& r : s.runs) per = checked_add(per, r.count);
    n = checked_add(n, checked_mul(per, s.repeat));
  }
  return n;
}

std::vector<LayerGroup> layer_groups(const ModelSpec& m) {
  return layer_groups(layer_layout(m));
}

std::vector<LayerGroup> layer_groups(const LayerLayout& l) {
  std::vector<uint64_t> count(l.kinds.size(), 0);
  std::vector<uint32_t> order;
  for (const auto& s : l.segments)
    for (const auto& r : s.runs) {
      if (r.kind >= l.kinds.size()) throw std::out_of_range("layer run names an unknown kind");
      if (count[r.kind] == 0 && r.count > 0 && s.repeat > 0) order.push_back(r.kind);
      count[r.kind] = checked_add(count[r.kind], checked_mul(r.count, s.repeat));
    }
  std::vector<LayerGroup> g;
  for (uint32_t k : order) g.push_back({l.kinds[k], count[k]});
  return g;
}

std::vector<LayerGroup> layer_groups(const ModelSpec& m, uint64_t from, uint64_t to) {
  return layer_groups(layer_layout(m), from, to);
}

std::vector<LayerGroup> layer_groups(const LayerLayout& l, uint64_t from, uint64_t to) {
  std::vector<uint64_t> count(l.kinds.size(), 0);
  std::vector<uint32_t> order;
  uint64_t pos = 0;  // first layer of the segment
  for (const auto& s : l.segments) {
    uint64_t period = 0;
    for (const auto& r : s.runs) period = checked_add(period, r.count);
    const uint64_t end = checked_add(pos, checked_mul(period, s.repeat));
    const uint64_t a = std::max(from, pos), b = std::min(to, end);
    if (a < b) {
      // Layers y in [0, x) of the segment with y mod period in [off, off + n): x / period
      // whole periods of n, and the part of the last one.
      const auto below = [&](uint64_t x, uint64_t off, uint64_t n) {
        const uint64_t rem = x % period;
        return x / period * n + (rem > off ? std::min(rem - off, n) : 0);
      };
      uint64_t off = 0;
      for (const auto& r : s.runs) {
        if (r.kind >= l.kinds.size()) throw std::out_of_range("layer run names an unknown kind");
        const uint64_t n = below(b - pos, off, r.count) - below(a - pos, off, r.count);
        if (n && count[r.kind] == 0) order.push_back(r.kind);
        count[r.kind] += n;
        off += r.count;
      }
    }
    pos = end;
  }
  std::vector<LayerGroup> g;
  for (uint32_t k : order) g.push_back({l.kinds[k], count[k]});
  return g;
}

void for_each_layer(const LayerLayout& l,
                    const std::function<void(uint32_t, const LayerKind&)>& f) {
  uint32_t il = 0;
  for (const auto& s : l.segments)
    for (uint32_t rep = 0; rep < s.repeat; ++rep)
      for (const auto& r : s.runs)
        for (uint32_t i = 0; i < r.count; ++i) f(il++, l.kinds.at(r.kind));
}

uint32_t add_layer_kind(ModelSpec& m, const LayerKind& k) {
  return kind_index(m.layer_kinds, k);
}

void append_layers(ModelSpec& m, uint32_t from, uint32_t to, uint32_t period,
                   const std::function<LayerKind(uint32_t)>& kind) {
  append_range(m.layer_kinds, m.layer_segments, from, to, period, kind);
}

std::vector<LayerSegment> compress_layers(const std::vector<uint32_t>& kind_of_layer) {
  std::vector<LayerRun> runs;
  for (uint32_t k : kind_of_layer) push_run(runs, k, 1);
  return compress_runs(runs);
}

const char* attn_kind_name(AttnKind k) {
  switch (k) {
    case AttnKind::full:
      return "full";
    case AttnKind::swa:
      return "swa";
    case AttnKind::chunked:
      return "chunked";
    case AttnKind::mla:
      return "mla";
    case AttnKind::none:
      return "none";
  }
  return "?";
}

const char* state_kind_name(StateKind k) {
  switch (k) {
    case StateKind::none:
      return "none";
    case StateKind::gated_delta_net:
      return "gated delta-net";
    case StateKind::mamba2:
      return "mamba2";
    case StateKind::short_conv:
      return "short conv";
  }
  return "?";
}

std::string layer_kind_name(const LayerKind& k, const ModelSpec& m) {
  const LayerLayout l = layer_layout(m);
  bool shapes_vary = false, ffn_varies = false;
  const LayerKind* first_attn = nullptr;
  for (const auto& o : l.kinds) {
    if (o.ffn != l.kinds.front().ffn) ffn_varies = true;
    if (o.attn == AttnKind::none || o.attn == AttnKind::mla) continue;
    if (!first_attn) first_attn = &o;
    if (o.n_head_kv != first_attn->n_head_kv || o.n_embd_head_k != first_attn->n_embd_head_k)
      shapes_vary = true;
  }
  std::string s;
  switch (k.attn) {
    case AttnKind::full:
      s = "full attention";
      break;
    case AttnKind::swa:
      s = "sliding window " + std::to_string(k.n_swa);
      break;
    case AttnKind::chunked:
      s = "chunked attention " + std::to_string(k.n_swa);
      break;
    case AttnKind::mla:
      s = k.n_indexer_k ? "MLA + indexer" : "MLA";
      break;
    case AttnKind::none:
      break;
  }
  if (k.attn != AttnKind::none && k.attn != AttnKind::mla && shapes_vary)
    s += " (" + std::to_string(k.n_head_kv) + " KV heads × " + std::to_string(k.n_embd_head_k) +
         (k.k_eq_v ? ", K = V" : "") + ")";
  if (k.nope && k.attn != AttnKind::none) s += " NoPE";
  if (k.kv_shared) s += " (shared KV)";
  if (k.compress_ratio) s += " + compressed 1/" + std::to_string(k.compress_ratio);
  if (k.state != StateKind::none)
    s += (s.empty() ? "" : " + ") + std::string(state_kind_name(k.state));
  if (ffn_varies || s.empty()) {
    const char* f = k.ffn == FfnKind::moe ? "MoE" : k.ffn == FfnKind::dense ? "dense FFN" : "";
    if (s.empty())
      s = std::string(f) + (*f ? " only" : "empty");
    else if (*f)
      s += std::string(" + ") + f;
  }
  return s;
}

std::string layer_pattern(const ModelSpec& m) {
  const LayerLayout l = layer_layout(m);
  std::string out;
  for (const auto& seg : l.segments) {
    std::string part;
    for (const auto& r : seg.runs) {
      if (!part.empty()) part += " + ";
      part += std::to_string(r.count) + " × " + layer_kind_name(l.kinds.at(r.kind), m);
    }
    if (seg.repeat > 1) part = std::to_string(seg.repeat) + " × (" + part + ")";
    if (!out.empty()) out += ", ";
    out += part;
  }
  return out;
}

}  // namespace llmsize
