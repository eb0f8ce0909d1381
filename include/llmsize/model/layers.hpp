// The layers of a model as runs of layer kinds (model_spec.hpp LayerKind): built, walked and
// counted without one entry per layer, so a model of a million layers costs a few runs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "llmsize/model/model_spec.hpp"

namespace llmsize {

struct LayerLayout {
  std::vector<LayerKind> kinds;
  std::vector<LayerSegment> segments;
};

// The kinds and segments of m: m.layer_kinds / m.layer_segments when given, else derived from the
// uniform scalars (n_swa + swa_pattern, n_layer_dense_lead, n_head_kv_per_layer), which gives the
// numbers of the architectures of 2024 unchanged.
LayerLayout layer_layout(const ModelSpec& m);

// A distinct layer kind and how many layers have it.
struct LayerGroup {
  LayerKind kind;
  uint64_t n_layer = 0;
};
// One group per distinct kind, in order of first appearance; counts are multiplied out from the
// segments (no per-layer walk).
std::vector<LayerGroup> layer_groups(const ModelSpec& m);
// The same for layers [from, to) only (a device's share of a layer split); counted from the
// segments' periods, without a per-layer walk. Layers beyond the segments count nothing.
std::vector<LayerGroup> layer_groups(const ModelSpec& m, uint64_t from, uint64_t to);
// The same of a layout already built (a caller asking for several ranges builds it once).
std::vector<LayerGroup> layer_groups(const LayerLayout& l);
std::vector<LayerGroup> layer_groups(const LayerLayout& l, uint64_t from, uint64_t to);

// Calls f(il, kind) for every layer in order.
void for_each_layer(const LayerLayout& l, const std::function<void(uint32_t, const LayerKind&)>& f);

// Layers the segments cover, checked against overflow.
uint64_t layer_count(const LayerLayout& l);

// Index of `k` in m.layer_kinds, appending it when new.
uint32_t add_layer_kind(ModelSpec& m, const LayerKind& k);

// Appends layers [from, to) to m's description; kind(il) must be periodic in il with `period`
// (1: every layer alike; 0: no period, each layer is asked). Walks at most one period plus a
// partial head and tail, whatever the layer count.
void append_layers(ModelSpec& m, uint32_t from, uint32_t to, uint32_t period,
                   const std::function<LayerKind(uint32_t)>& kind);

// Compresses a per-layer list of kind indices (e.g. from a config's layer_types) into segments:
// repeated periods of up to 16 runs become one segment with a repeat count.
std::vector<LayerSegment> compress_layers(const std::vector<uint32_t>& kind_of_layer);

// "10 × (3 × gated delta-net + 1 × full attention)" for `llmsize inspect` and the table.
std::string layer_pattern(const ModelSpec& m);
// A layer kind in words: "sliding window 128 (8 KV heads × 64)", "gated delta-net", ...
std::string layer_kind_name(const LayerKind& k, const ModelSpec& m);

}  // namespace llmsize
