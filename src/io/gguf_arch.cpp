#include "llmsize/io/gguf_arch.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_set>

#include "byte_reader.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize {

namespace {

class ArchReader {
 public:
  ArchReader(const std::vector<GgufFile>& shards, GgufArch& out)
      : shards_(shards), f_(shards.front()), out_(out) {}

  std::string key(const char* suffix) const { return out_.arch + "." + suffix; }

  [[noreturn]] void fail(const std::string& k, const GgufValue* v, const std::string& what) const {
    if (v) io::fail_at(f_.path, k + ": " + what, v->pos);
    throw InputError(f_.path + ": " + k + ": " + what);
  }

  // A non-negative integer below 2^31, or `dflt` when absent.
  std::optional<uint32_t> u32(const std::string& k) const {
    const GgufValue* v = f_.find(k);
    if (!v) return std::nullopt;
    return to_u32(k, *v);
  }
  uint32_t u32(const std::string& k, uint32_t dflt) const { return u32(k).value_or(dflt); }
  uint32_t required(const std::string& k) const {
    const auto v = u32(k);
    if (!v) fail(k, nullptr, "missing (needed for the architecture)");
    return *v;
  }

  // A scalar, or an array with one value per layer (llama.cpp get_key_or_arr). An array that varies
  // gives its largest value and, when `layers` is given, every value there; else a note says the
  // largest is used for every layer.
  std::optional<uint32_t> per_layer(const std::string& k, uint32_t n_layer,
                                    std::vector<uint32_t>* layers = nullptr) {
    const GgufValue* v = f_.find(k);
    if (!v) return std::nullopt;
    if (v->type != GgufType::ARRAY) return to_u32(k, *v);
    if (v->n != n_layer)
      fail(k, v,
           "array of " + std::to_string(v->n) + " values for " + std::to_string(n_layer) +
               " layers");
    if (v->items.size() != v->n) fail(k, v, "array of " + std::to_string(v->n) + " is too long");
    uint32_t lo = std::numeric_limits<uint32_t>::max(), hi = 0;
    std::vector<uint32_t> all;
    for (const auto& it : v->items) {
      const uint32_t x = to_u32(k, it);
      all.push_back(x);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (v->n == 0) return std::nullopt;
    if (lo != hi) {
      if (layers) {
        *layers = std::move(all);
        out_.notes.push_back(k + " varies by layer from " + std::to_string(lo) + " to " +
                             std::to_string(hi) + ": the KV cache is summed layer by layer");
      } else {
        out_.notes.push_back(k + " varies by layer from " + std::to_string(lo) + " to " +
                             std::to_string(hi) + ": the largest is used for every layer");
      }
    }
    return hi;
  }

  // A per-layer array's values (BOOL, or non-negative integers) when `k` is an array of n_layer
  // entries; empty when `k` is a scalar or absent.
  std::vector<uint32_t> layer_values(const std::string& k, uint32_t n_layer) const {
    std::vector<uint32_t> out;
    const GgufValue* v = f_.find(k);
    if (!v || v->type != GgufType::ARRAY) return out;
    if (v->n != n_layer)
      fail(k, v,
           "array of " + std::to_string(v->n) + " values for " + std::to_string(n_layer) +
               " layers");
    if (v->items.size() != v->n) fail(k, v, "array of " + std::to_string(v->n) + " is too long");
    for (const auto& it : v->items)
      out.push_back(it.type == GgufType::BOOL ? static_cast<uint32_t>(it.bits != 0)
                                              : to_u32(k, it));
    return out;
  }

  const GgufTensor* tensor(const std::string& name) const {
    return find_gguf_tensor(shards_, name);
  }
  const GgufFile& first() const { return f_; }

 private:
  uint32_t to_u32(const std::string& k, const GgufValue& v) const {
    const auto u = v.as_uint();
    if (!u)
      fail(k, &v, std::string("expected a non-negative integer, got a ") + gguf_type_name(v.type));
    if (*u > 0x7fffffffu) fail(k, &v, std::to_string(*u) + " is out of range");
    return static_cast<uint32_t>(*u);
  }

  const std::vector<GgufFile>& shards_;
  const GgufFile& f_;
  GgufArch& out_;
};

// The per-layer architectures: the layer kinds come from llama.cpp's hparams keys and, where
// llama.cpp decides a layer's kind by what it loads, from the tensors present (llama.cpp at commit
// 00395eb2: src/models/*.cpp load_arch_hparams / load_arch_tensors). What the keys and tensors do
// not say is the row's: a new per-layer architecture is a row here.
struct LayeredArch {
  Arch arch;
  StateKind ssm = StateKind::none;  // what layers with ssm_conv1d / ssm_in tensors hold
  bool qk_norm_tensor = false;      // q/k norms as blk.0.attn_q_norm says
  uint32_t swa_pattern = 0;         // set_swa_pattern(n): layers il % n < n - 1 slide
  bool swa_needs_window = false;    // ... only when attention.sliding_window is given
  uint32_t chunk = 0;               // chunked attention of this many tokens (hard-coded in
                                    // llama.cpp), NoPE on the global layers
  uint32_t nope_every = 0;          // every n-th layer without rope (n_no_rope_layer_step)
  bool swa_per_layer = false;       // sliding layers from the per-layer sliding_window_pattern,
                                    // with key_length_swa / value_length_swa heads
  bool moe_with_dense = false;      // MoE layers keep a dense FFN (ffn_up) beside the experts
  uint32_t kv_from_start = 0;       // only the first n layers have a KV cache, the rest reuse it
                                    // (llama.cpp hparams.n_layer_kv_from_start, hard-coded)
};

const LayeredArch kLayeredArchs[] = {
    // arch, ssm state, qk_norm_tensor, swa_pattern, swa_needs_window, chunk, nope_every,
    // swa_per_layer, moe_with_dense
    {Arch::gpt_oss, StateKind::none, false, 2},
    {Arch::qwen3next, StateKind::gated_delta_net},
    {Arch::qwen35, StateKind::gated_delta_net},
    {Arch::qwen35moe, StateKind::gated_delta_net},
    {Arch::gemma4, StateKind::none, false, 0, false, 0, 0, true, true},
    // Gemma 3n: src/models/gemma3n.cpp set_swa_pattern(5), n_layer_kv_from_start = 20.
    {Arch::gemma3n, StateKind::none, false, 5, false, 0, 0, false, false, 20},
    {Arch::llama4, StateKind::none, false, 4, false, 8192},
    {Arch::deepseek32},
    {Arch::glm_dsa, StateKind::none, true},
    {Arch::glm4moe, StateKind::none, true},
    {Arch::minimax_m2, StateKind::none, true},
    {Arch::nemotron_h, StateKind::mamba2},
    {Arch::nemotron_h_moe, StateKind::mamba2},
    {Arch::granitehybrid, StateKind::mamba2},
    {Arch::lfm2},
    {Arch::lfm2moe},
    {Arch::falcon_h1, StateKind::mamba2},
    {Arch::cohere2, StateKind::none, false, 4, true},
    {Arch::olmo2, StateKind::none, false, 4, true},  // OLMo 3: pattern 4
    {Arch::smollm3, StateKind::none, false, 0, false, 0, 4},
    {Arch::seed_oss},
    {Arch::ernie4_5_moe},
    {Arch::hunyuan_moe, StateKind::none, true},
    {Arch::mistral3},
    {Arch::qwen3vl},
};

const LayeredArch* layered_arch(Arch a) {
  for (const auto& l : kLayeredArchs)
    if (l.arch == a) return &l;
  return nullptr;
}

// The layers of a per-layer GGUF, one by one: the per-layer hparams arrays, the tensors each
// block holds, and the architecture's row.
class LayerScan {
 public:
  LayerScan(ArchReader& r, const std::vector<GgufFile>& shards, const LayeredArch& la,
            const ModelSpec& m, uint32_t n_all)
      : r_(r), la_(la), m_(m), n_all_(n_all) {
    const GgufFile& f = shards.front();
    // A real file has tensors in every block: refuse a block count its tensor table cannot hold
    // before walking the layers.
    for (const auto& s : shards)
      for (const auto& t : s.tensors) names_.insert(t.name);
    if (n_all > names_.size())
      throw InputError(f.path + ": " + r.key("block_count") + " is " + std::to_string(n_all) +
                       " but the file holds only " + std::to_string(names_.size()) + " tensors");
    heads_ = r.layer_values(r.key("attention.head_count"), n_all);
    heads_kv_ = r.layer_values(r.key("attention.head_count_kv"), n_all);
    ffs_ = r.layer_values(r.key("feed_forward_length"), n_all);
    swa_arr_ = r.layer_values(r.key("attention.sliding_window_pattern"), n_all);
  }

  bool has(uint32_t il, const char* t) const {
    return names_.count("blk." + std::to_string(il) + "." + t) > 0;
  }
  uint64_t ne(uint32_t il, const char* t, int dim) const {
    const GgufTensor* x = r_.tensor("blk." + std::to_string(il) + "." + t);
    return x ? x->ne[static_cast<size_t>(dim)] : 0;
  }

  // Read after the model-wide keys (head sizes of sliding layers, shared KV, the window).
  void read_keys(uint32_t hk_swa, uint32_t hv_swa, uint32_t shared_kv, uint32_t window) {
    hk_swa_ = hk_swa;
    hv_swa_ = hv_swa;
    shared_kv_ = shared_kv;
    window_ = window;
  }

  LayerKind kind(uint32_t il) const {
    const ModelSpec& m = m_;
    const bool gdn = la_.ssm == StateKind::gated_delta_net;
    LayerKind k;
    k.n_head = at(heads_, il, m.n_head);
    k.n_head_kv = at(heads_kv_, il, m.n_head_kv);
    k.n_embd_head_k = m.n_embd_head_k;
    k.n_embd_head_v = m.n_embd_head_v;
    const bool attn = has(il, "attn_q.weight") || (has(il, "attn_qkv.weight") && !gdn) ||
                      has(il, "attn_q_a.weight") || has(il, "attn_kv_a_mqa.weight");
    if (!attn || (k.n_head_kv == 0 && !m.is_mla())) {
      k.attn = AttnKind::none;
      k.n_head = k.n_head_kv = k.n_embd_head_k = k.n_embd_head_v = 0;
    } else if (m.is_mla()) {
      k.attn = AttnKind::mla;
      k.n_indexer_k = m.n_indexer_head_dim;
    } else {
      attention(il, k);
    }
    if (has(il, "shortconv.conv.weight"))
      k.state = StateKind::short_conv;
    else if (has(il, "ssm_conv1d.weight") || has(il, "ssm_in.weight"))
      k.state = la_.ssm;
    if (has(il, "ffn_gate_inp.weight")) {
      k.ffn = FfnKind::moe;
      k.n_ff = la_.moe_with_dense ? static_cast<uint32_t>(ne(il, "ffn_up.weight", 1)) : 0;
    } else if (has(il, "ffn_up.weight") || has(il, "ffn_down.weight")) {
      k.ffn = FfnKind::dense;
      const uint64_t w = ne(il, "ffn_up.weight", 1);
      k.n_ff = w && w <= 0x7fffffffu ? static_cast<uint32_t>(w) : at(ffs_, il, m.n_ff);
    } else {
      k.ffn = FfnKind::none;
    }
    return k;
  }

 private:
  static uint32_t at(const std::vector<uint32_t>& v, uint32_t il, uint32_t dflt) {
    return il < v.size() ? v[il] : dflt;
  }

  // An attention layer (not MLA): sliding or full, NoPE, sinks, gated Q, K = V, shared KV.
  void attention(uint32_t il, LayerKind& k) const {
    bool swa = false;
    if (la_.swa_per_layer)
      swa = at(swa_arr_, il, 0) != 0;  // per-layer booleans
    else if (la_.swa_pattern)
      swa = (!la_.swa_needs_window || window_) && il % la_.swa_pattern < la_.swa_pattern - 1;
    k.attn = !swa ? AttnKind::full : la_.chunk ? AttnKind::chunked : AttnKind::swa;
    k.n_swa = swa ? m_.n_swa : 0;
    // NoPE layers: llama4's global layers; smollm3 every 4th (llama.cpp n_no_rope_layer_step 4).
    k.nope = (la_.chunk && !swa) || (la_.nope_every && (il + 1) % la_.nope_every == 0);
    if (swa && la_.swa_per_layer) {
      k.n_embd_head_k = hk_swa_;
      k.n_embd_head_v = hv_swa_;
    }
    k.sinks = has(il, "attn_sinks.weight");
    const uint64_t q = ne(il, "attn_q.weight", 1);
    k.gated_q = q && q == 2ull * k.n_head * k.n_embd_head_k;
    k.k_eq_v = has(il, "attn_k.weight") && !has(il, "attn_v.weight");
    k.kv_shared = shared_kv_ && il >= n_all_ - shared_kv_;
  }

  ArchReader& r_;
  const LayeredArch& la_;
  const ModelSpec& m_;
  const uint32_t n_all_;
  std::unordered_set<std::string> names_;
  std::vector<uint32_t> heads_, heads_kv_, ffs_, swa_arr_;
  uint32_t hk_swa_ = 0, hv_swa_ = 0, shared_kv_ = 0, window_ = 0;
};

void read_layers(ArchReader& r, const std::vector<GgufFile>& shards, const LayeredArch& la,
                 GgufArch& a) {
  ModelSpec& m = a.spec;
  const GgufFile& f = shards.front();
  // MTP layers count in block_count; the main stack is the rest (llama.cpp n_layer_nextn).
  m.n_layer_nextn = r.u32(r.key("nextn_predict_layers"), 0);
  if (m.n_layer_nextn >= m.n_layer)
    throw InputError(f.path + ": " + r.key("nextn_predict_layers") + ": " +
                     std::to_string(m.n_layer_nextn) + " of " + std::to_string(m.n_layer) +
                     " blocks");
  const uint32_t n_all = m.n_layer;
  m.n_layer -= m.n_layer_nextn;
  m.nextn_embeddings = m.n_layer_nextn &&
                       r.tensor("blk." + std::to_string(m.n_layer) + ".nextn.embed_tokens.weight");
  LayerScan scan(r, shards, la, m, n_all);
  m.ssm.d_conv = r.u32(r.key("ssm.conv_kernel"), 0);
  m.ssm.d_inner = r.u32(r.key("ssm.inner_size"), 0);
  m.ssm.d_state = r.u32(r.key("ssm.state_size"), 0);
  m.ssm.dt_rank = r.u32(r.key("ssm.time_step_rank"), 0);
  m.ssm.n_group = r.u32(r.key("ssm.group_count"), 0);
  m.ssm.l_cache = r.u32(r.key("shortconv.l_cache"), 0);
  m.n_embd_per_layer = r.u32(r.key("embedding_length_per_layer_input"), 0);
  m.n_indexer_head = r.u32(r.key("attention.indexer.head_count"), 0);
  m.n_indexer_head_dim = r.u32(r.key("attention.indexer.key_length"), 0);
  const uint32_t hk_swa = r.u32(r.key("attention.key_length_swa"), m.n_embd_head_k);
  const uint32_t hv_swa = r.u32(r.key("attention.value_length_swa"), m.n_embd_head_v);
  const uint32_t shared_kv = la.kv_from_start ? n_all - std::min(la.kv_from_start, n_all)
                                              : r.u32(r.key("attention.shared_kv_layers"), 0);
  if (m.arch == Arch::gemma3n) {
    // AltUp streams and LAuReL rank from the tensors (llama.cpp keeps them as hparams defaults:
    // n_altup 4, laurel_rank 64), the per-layer width from per_layer_proj_norm when unkeyed.
    if (const GgufTensor* t = r.tensor("altup_proj.weight"); t && t->ne[2] < 64)
      m.n_altup = static_cast<uint32_t>(t->ne[2]) + 1;
    if (const GgufTensor* t = r.tensor("blk.0.laurel_l.weight"); t && t->ne[1] <= 0x7fffffffu)
      m.laurel_rank = static_cast<uint32_t>(t->ne[1]);
    if (const GgufTensor* t = r.tensor("per_layer_proj_norm.weight");
        t && !m.n_embd_per_layer && t->ne[0] <= 0x7fffffffu)
      m.n_embd_per_layer = static_cast<uint32_t>(t->ne[0]);
  }
  const uint32_t window = r.u32(r.key("attention.sliding_window"), 0);
  scan.read_keys(hk_swa, hv_swa, shared_kv, window);
  m.n_swa = la.chunk ? la.chunk : window;
  // Expert widths from the first layer that has experts (hybrids may start with a Mamba layer).
  for (uint32_t il = 0; il < m.n_layer && m.n_expert > 1; ++il) {
    if (!scan.has(il, "ffn_gate_inp.weight")) continue;
    const uint64_t e = scan.ne(il, "ffn_up_exps.weight", 1),
                   sh = scan.ne(il, "ffn_up_shexp.weight", 1);
    if (e && e <= 0x7fffffffu) m.n_ff_exp = static_cast<uint32_t>(e);
    if (sh && sh <= 0x7fffffffu) m.n_ff_shexp = static_cast<uint32_t>(sh);
    if (!sh) m.n_ff_shexp = 0, m.n_expert_shared = 0;
    break;
  }
  uint32_t lead = 0;
  while (lead < m.n_layer && !scan.has(lead, "ffn_gate_inp.weight") && m.n_expert > 1) ++lead;
  if (lead == m.n_layer) lead = 0;
  append_layers(m, 0, m.n_layer, 0, [&](uint32_t il) { return scan.kind(il); });
  if (m.n_layer_dense_lead == 0) m.n_layer_dense_lead = lead;
  if (la.qk_norm_tensor) m.qk_norm = r.tensor("blk.0.attn_q_norm.weight") != nullptr;
  if (m.n_ff == 0)
    for (const auto& k : m.layer_kinds)
      if (k.ffn == FfnKind::dense) m.n_ff = std::max(m.n_ff, k.n_ff);
}

// The vocabulary (the tokenizer's token list, else the embedding's rows), tied embeddings, q/k/v
// biases, and the FFN and expert widths the metadata leaves out, from the tensors.
void read_vocab_and_widths(const ArchReader& r, const GgufFile& f, ModelSpec& m) {
  const GgufTensor* embd = r.tensor("token_embd.weight");
  if (const GgufValue* tok = f.find("tokenizer.ggml.tokens"); tok && tok->type == GgufType::ARRAY) {
    if (tok->n > 0x7fffffffu)
      io::fail_at(f.path, "tokenizer.ggml.tokens has " + std::to_string(tok->n) + " entries",
                  tok->pos);
    m.n_vocab = static_cast<uint32_t>(tok->n);
  } else if (embd && embd->n_dims >= 2 && embd->ne[1] <= 0x7fffffffu) {
    m.n_vocab = static_cast<uint32_t>(embd->ne[1]);
  } else {
    m.n_vocab = r.u32(r.key("vocab_size"), 0);
  }
  m.tied_embeddings = r.tensor("output.weight") == nullptr;
  m.qkv_bias = r.tensor("blk.0.attn_q.bias") != nullptr;

  // Expert widths from the tensors themselves when the metadata does not give them.
  if (m.n_expert > 1) {
    const std::string lead = "blk." + std::to_string(m.n_layer_dense_lead) + ".";
    uint32_t ff_exp = r.u32(r.key("expert_feed_forward_length"), 0);
    if (!ff_exp)
      if (const GgufTensor* t = r.tensor(lead + "ffn_up_exps.weight"); t && t->ne[1] <= 0x7fffffffu)
        ff_exp = static_cast<uint32_t>(t->ne[1]);
    m.n_ff_exp = ff_exp;
    if (const GgufTensor* t = r.tensor(lead + "ffn_up_shexp.weight"); t && t->ne[1] <= 0x7fffffffu)
      m.n_ff_shexp = static_cast<uint32_t>(t->ne[1]);
    else if (m.n_expert_shared)
      m.n_ff_shexp = r.u32(r.key("expert_shared_feed_forward_length"), ff_exp) * m.n_expert_shared;
    if (!m.n_expert_shared && m.n_ff_shexp) m.n_expert_shared = 1;
    if (m.n_ff == 0 && m.n_layer_dense_lead == 0) m.n_ff = m.n_ff_exp;
  } else if (m.n_expert == 1) {
    m.n_expert = 0;  // a single expert is a dense FFN
  }
  if (m.n_ff == 0) {
    if (const GgufTensor* t = r.tensor("blk.0.ffn_up.weight"); t && t->ne[1] <= 0x7fffffffu)
      m.n_ff = static_cast<uint32_t>(t->ne[1]);
  }
}

}  // namespace

GgufArch gguf_arch(const std::vector<GgufFile>& shards) {
  GgufArch a;
  if (shards.empty()) throw InputError("no GGUF file given");
  const GgufFile& f = shards.front();
  const GgufValue* arch = f.find("general.architecture");
  if (!arch || !arch->as_string() || arch->str.empty())
    throw InputError(
        f.path +
        ": general.architecture: missing (the GGUF metadata does not say which model this is)");
  a.arch = arch->str;
  ArchReader r(shards, a);
  const auto known = arch_from_name(a.arch);
  // DeepSeek-V4's compressed caches are read from config.json only: a GGUF of it is sized with
  // the generic rules.
  a.known = known.has_value() && *known != Arch::deepseek4;
  ModelSpec& m = a.spec;
  m.arch = a.known ? *known : Arch::llama;
  if (!a.known)
    a.notes.push_back("architecture '" + sanitize(a.arch) +
                      "' is not one llmsize knows: weights are exact, KV cache and "
                      "buffers use the generic llama formula from the head counts");
  // Names are shown in tables and messages: escaped (a file may hold terminal escapes).
  if (const GgufValue* n = f.find("general.name"); n && n->as_string() && !n->str.empty())
    m.name = sanitize(n->str);
  else {
    const auto slash = f.path.find_last_of('/');
    m.name = sanitize(slash == std::string::npos ? f.path : f.path.substr(slash + 1));
  }

  // Hyperparameters as llama.cpp's llama_model::load_hparams reads them (src/llama-model.cpp).
  m.n_layer = r.required(r.key("block_count"));
  m.n_embd = r.required(r.key("embedding_length"));
  m.n_ctx_train = r.u32(r.key("context_length"), 0);
  m.n_ff = r.per_layer(r.key("feed_forward_length"), m.n_layer).value_or(0);
  m.n_head = r.per_layer(r.key("attention.head_count"), m.n_layer).value_or(0);
  if (m.n_head == 0)
    throw InputError(f.path + ": " + r.key("attention.head_count") +
                     ": missing or 0 (needed for the KV cache)");
  m.n_head_kv = r.per_layer(r.key("attention.head_count_kv"), m.n_layer, &m.n_head_kv_per_layer)
                    .value_or(m.n_head);
  const uint32_t head_dim = m.n_embd / m.n_head;
  m.n_embd_head_k = r.u32(r.key("attention.key_length"), head_dim);
  m.n_embd_head_v = r.u32(r.key("attention.value_length"), head_dim);
  m.n_expert = r.u32(r.key("expert_count"), 0);
  m.n_expert_used = r.u32(r.key("expert_used_count"), 0);
  m.n_expert_shared = r.u32(r.key("expert_shared_count"), 0);
  m.n_layer_dense_lead = r.u32(r.key("leading_dense_block_count"), 0);
  m.q_lora_rank = r.u32(r.key("attention.q_lora_rank"), 0);
  m.kv_lora_rank = r.u32(r.key("attention.kv_lora_rank"), 0);
  m.n_rot = r.u32(r.key("rope.dimension_count"), 0);
  if (m.kv_lora_rank) {
    // Files converted for MLA store the decompressed head sizes as key_length_mla /
    // value_length_mla and the latent sizes as key_length / value_length.
    m.n_embd_head_k = r.u32(r.key("attention.key_length_mla"), m.n_embd_head_k);
    m.n_embd_head_v = r.u32(r.key("attention.value_length_mla"), m.n_embd_head_v);
  }

  // Sliding window: llama.cpp gives gemma2 swa pattern 2 and gemma3 pattern 6; other architectures
  // llmsize knows run full attention on every layer.
  if (m.arch == Arch::gemma2 || m.arch == Arch::gemma3) {
    m.n_swa = r.u32(r.key("attention.sliding_window"), m.arch == Arch::gemma2 ? 4096 : 0);
    m.swa_pattern = m.arch == Arch::gemma2 ? 2 : 6;
    if (const GgufValue* p = f.find(r.key("attention.sliding_window_pattern"));
        p && p->type != GgufType::ARRAY)
      m.swa_pattern = r.u32(r.key("attention.sliding_window_pattern"), m.swa_pattern);
  } else if (f.find(r.key("attention.sliding_window"))) {
    if (!a.known)
      a.notes.push_back(r.key("attention.sliding_window") +
                        " is ignored: every layer is counted with a full cache");
  }

  read_vocab_and_widths(r, f, m);

  // Embedding and rerank models: llama.cpp's {arch}.pooling_type (LLAMA_POOLING_TYPE_MEAN 1,
  // CLS 2, LAST 3, RANK 4), written by convert_hf_to_gguf.py for sentence-transformers models.
  const uint32_t pooling = r.u32(r.key("pooling_type"), 0);
  if (pooling > 0) m.task = pooling == 4 ? Task::rerank : Task::embedding;
  // A decoder reranker (Qwen3-Reranker): convert_hf_to_gguf.py (conversion/qwen.py Qwen3Model at
  // llama.cpp de3ff815) writes lm_head's "yes" / "no" rows as cls.output {n_embd, 2} in place
  // of output.weight (for a tied checkpoint, next to token_embd); src/models/qwen3.cpp loads it
  // as cls_out {n_embd, n_cls_out}.
  if (m.arch != Arch::bert)
    if (const GgufTensor* t = r.tensor("cls.output.weight");
        t && t->n_dims == 2 && t->ne[1] <= 0x7fffffffu) {
      m.n_cls_out = static_cast<uint32_t>(t->ne[1]);
      m.task = Task::rerank;
    }
  if (m.arch == Arch::bert) {
    // llama.cpp src/models/bert.cpp: token_types {n_embd, n_token_types}, the optional
    // classifier cls / cls.output {n_embd, n_cls_out}, and no output layer.
    m.tied_embeddings = false;
    if (const GgufTensor* t = r.tensor("token_types.weight"); t && t->ne[1] <= 0x7fffffffu)
      m.n_token_types = static_cast<uint32_t>(t->ne[1]);
    if (const GgufTensor* t = r.tensor("cls.output.weight"); t && t->ne[1] <= 0x7fffffffu)
      m.n_cls_out = static_cast<uint32_t>(t->n_dims < 2 ? 1 : t->ne[1]);
    m.task = pooling == 4 || m.n_cls_out ? Task::rerank : Task::embedding;
  }

  if (const LayeredArch* la = a.known ? layered_arch(m.arch) : nullptr) {
    read_layers(r, shards, *la, a);
  } else if (!a.known && (r.tensor("blk.0.ssm_in.weight") || r.tensor("blk.0.ssm_conv1d.weight") ||
                          r.tensor("blk.0.shortconv.conv.weight"))) {
    a.notes.push_back(
        "its ssm / short-conv tensors mean a recurrent state llmsize cannot size for '" +
        sanitize(a.arch) + "': it is not counted");
  }

  for (const auto& p : validate(m))
    throw InputError(f.path + ": the GGUF metadata of architecture '" + sanitize(a.arch) +
                     "' gives an invalid model: " + p);
  a.arch = sanitize(a.arch);  // the keys are read: from here on it is only shown
  return a;
}

}  // namespace llmsize
