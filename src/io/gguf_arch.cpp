#include "llmsize/io/gguf_arch.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "byte_reader.hpp"
#include "llmsize/io/error.hpp"

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
  a.known = known.has_value();
  ModelSpec& m = a.spec;
  m.arch = known.value_or(Arch::llama);
  if (!a.known)
    a.notes.push_back("architecture '" + a.arch +
                      "' is not one llmsize knows: weights are exact, KV cache and "
                      "buffers use the generic llama formula from the head counts");
  if (const GgufValue* n = f.find("general.name"); n && n->as_string() && !n->str.empty())
    m.name = n->str;
  else {
    const auto slash = f.path.find_last_of('/');
    m.name = slash == std::string::npos ? f.path : f.path.substr(slash + 1);
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

  // Vocabulary: the tokenizer's token list, else the embedding's rows.
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

  for (const auto& p : validate(m))
    throw InputError(f.path + ": the GGUF metadata of architecture '" + a.arch +
                     "' gives an invalid model: " + p);
  return a;
}

}  // namespace llmsize
