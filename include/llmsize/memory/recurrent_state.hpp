// The recurrent state of linear-attention and state-space layers as llama.cpp allocates it
// (src/llama-memory-recurrent.cpp, llama_hparams::n_embd_r / n_embd_s in src/llama-hparams.cpp):
// per recurrent layer an r tensor (the convolution state) of n_embd_r() x mem_size and an s tensor
// (the SSM / delta-net state) of n_embd_s() x mem_size, mem_size = max(1, n_seq_max) cells,
// F32 by default (llama-model.cpp create_memory passes GGML_TYPE_F32 for both). It does not grow
// with the context.
#pragma once

#include <cstdint>
#include <vector>

#include "llmsize/model/layers.hpp"
#include "llmsize/model/model_spec.hpp"
#include "llmsize/units.hpp"

namespace llmsize {

struct RecurrentPart {
  StateKind kind = StateKind::none;
  uint64_t n_layer = 0;
  uint64_t n_embd_r = 0;  // conv-state elements per sequence per layer
  uint64_t n_embd_s = 0;  // ssm-state elements per sequence per layer
  uint64_t bytes = 0;     // n_seq x n_layer x 4 x (n_embd_r + n_embd_s)
  // One sequence's share: n_layer x 4 B (F32) x (n_embd_r + n_embd_s).
  uint64_t bytes_per_seq() const {
    return checked_mul(checked_mul(n_layer, 4), checked_add(n_embd_r, n_embd_s));
  }
};

struct RecurrentState {
  uint32_t n_seq = 0;  // cells: one per sequence
  std::vector<RecurrentPart> parts;
  uint64_t r_bytes = 0;
  uint64_t s_bytes = 0;
  uint64_t total_bytes() const { return r_bytes + s_bytes; }
};

// Elements of the two state tensors per sequence for one layer of kind k (llama_hparams):
//   short conv (LFM2):   r = n_embd x (l_cache - 1),                          s = 0
//   mamba2, delta-net:   r = (d_conv - 1) x (d_inner + 2 x n_group x d_state), s = d_state x
//   d_inner
uint64_t n_embd_r(const ModelSpec& m, StateKind k);
uint64_t n_embd_s(const ModelSpec& m, StateKind k);

// REQUIRES: n_seq > 0.
RecurrentState recurrent_state(const ModelSpec& m, uint32_t n_seq);
// The same with m's layer_groups() already made.
RecurrentState recurrent_state(const ModelSpec& m, uint32_t n_seq,
                               const std::vector<LayerGroup>& groups);

}  // namespace llmsize
