#include "llmsize/io/hf_config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "io/json_input.hpp"
#include "io/json_readers.hpp"
#include "llmsize/checked.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/input.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize {
namespace {

using json = nlohmann::json;
using io::describe_json;

// Plausible ranges of config.json integers, by key: each bound is the largest value in a published
// config times a margin, so a hostile file cannot make llmsize materialise millions of layers or
// experts, or wrap a product, while the next model generation still fits. A key not listed here may
// hold up to 2^31 - 1. The README's "Hostile input" section lists these bounds.
struct KeyBound {
  const char* key;
  uint32_t max;
};
// Layers: 126 in Llama 3.1 405B, the deepest published decoder; x 32.
constexpr uint32_t kLayers = 4096;
// MTP / next-n layers kept after the main ones: published configs give 1 (DeepSeek-V3,
// GLM-4.5, Qwen3.5); x 16. 1,000,000 once cost 7 s, 1 GB and printed 243 trillion parameters.
constexpr uint32_t kNextnLayers = 16;
// Hidden sizes: 25,600 the widest published; x 40.
constexpr uint32_t kWidth = 1u << 20;
// FFN widths: 53,248 in Llama 3.1 405B; x 78.
constexpr uint32_t kFfn = 1u << 22;
// Attention, KV, delta-net and Mamba head counts and groups: 128 in DeepSeek-V3 and Llama 3.1
// 405B; x 32.
constexpr uint32_t kHeadCount = 4096;
// Head sizes and low-rank widths (head_dim, kv_lora_rank, qk_rope_head_dim, ...): 1,536 in
// DeepSeek-V3 (q_lora_rank; kv_lora_rank 512); x 42.
constexpr uint32_t kHeadSize = 1u << 16;
// Routed experts: 512 in Qwen3-Next and Qwen3.5-397B-A17B; x 8.
constexpr uint32_t kExperts = 4096;
// Experts per token: 10 in Qwen3-Next; x 25.
constexpr uint32_t kExpertsUsed = 256;
// Shared experts: 2 in DeepSeek-V2; x 32.
constexpr uint32_t kSharedExperts = 64;
// Vocabulary: 262,400 in Gemma 3n; x 64.
constexpr uint32_t kVocab = 1u << 24;
// Contexts and windows: 10,485,760 in Llama 4 Scout; x 25.
constexpr uint32_t kPositions = 1u << 28;
const KeyBound kKeyBounds[] = {
    {"num_hidden_layers", kLayers},
    {"n_layer", kLayers},
    {"mtp_num_hidden_layers", kNextnLayers},
    {"num_nextn_predict_layers", kNextnLayers},
    {"first_k_dense_replace", kLayers},
    {"num_dense_layers", kLayers},
    {"moe_layer_start_index", kLayers},
    {"num_kv_shared_layers", kLayers},
    {"num_hash_layers", kLayers},
    {"full_attention_interval", kLayers},
    {"interleave_moe_layer_step", kLayers},
    {"moe_layer_interval", kLayers},
    {"sliding_window_pattern", kLayers},
    {"hidden_size", kWidth},
    {"n_embd", kWidth},
    {"hidden_size_per_layer_input", kWidth},
    {"num_attention_heads", kHeadCount},
    {"n_head", kHeadCount},
    {"num_key_value_heads", kHeadCount},
    {"num_kv_heads", kHeadCount},
    {"num_global_key_value_heads", kHeadCount},
    {"linear_num_key_heads", kHeadCount},
    {"linear_num_value_heads", kHeadCount},
    {"mamba_num_heads", kHeadCount},
    {"mamba_n_heads", kHeadCount},
    {"n_groups", kHeadCount},
    {"mamba_n_groups", kHeadCount},
    {"index_n_heads", kHeadCount},
    {"num_heads", kHeadCount},
    {"head_dim", kHeadSize},
    {"attention_head_dim", kHeadSize},
    {"global_head_dim", kHeadSize},
    {"linear_key_head_dim", kHeadSize},
    {"linear_value_head_dim", kHeadSize},
    {"mamba_head_dim", kHeadSize},
    {"mamba_d_head", kHeadSize},
    {"index_head_dim", kHeadSize},
    {"q_lora_rank", kHeadSize},
    {"kv_lora_rank", kHeadSize},
    {"o_lora_rank", kHeadSize},
    {"qk_rope_head_dim", kHeadSize},
    {"qk_nope_head_dim", kHeadSize},
    {"v_head_dim", kHeadSize},
    {"vocab_size", kVocab},
    {"vocab_size_per_layer_input", kVocab},
    {"max_position_embeddings", kPositions},
    {"n_positions", kPositions},
    {"seq_length", kPositions},
    {"sliding_window", kPositions},
    {"attention_chunk_size", kPositions},
    {"intermediate_size", kFfn},
    {"intermediate_size_mlp", kFfn},
    {"n_inner", kFfn},
    {"ffn_hidden_size", kFfn},
    {"block_ff_dim", kFfn},
    {"moe_intermediate_size", kFfn},
    {"expert_intermediate_size", kFfn},
    {"shared_expert_intermediate_size", kFfn},
    {"moe_shared_expert_intermediate_size", kFfn},
    {"shared_intermediate_size", kFfn},
    {"num_local_experts", kExperts},
    {"num_experts", kExperts},
    {"n_routed_experts", kExperts},
    {"moe_num_experts", kExperts},
    {"num_experts_per_tok", kExpertsUsed},
    {"experts_per_token", kExpertsUsed},
    {"top_k_experts", kExpertsUsed},
    {"moe_k", kExpertsUsed},
    {"moe_topk", kExpertsUsed},
    {"n_shared_experts", kSharedExperts},
    {"moe_num_shared_experts", kSharedExperts},
    {"num_shared_expert", kSharedExperts},
};

uint32_t key_max(const std::string& key) {
  for (const auto& b : kKeyBounds)
    if (key == b.key) return b.max;
  return 2147483647u;
}

class Reader {
 public:
  Reader(const json& j, std::string where, std::string path)
      : j_(j), where_(std::move(where)), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(where_ + ": " + path_ + "/" + io::pointer_token(key) + ": " + what);
  }
  bool has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }

  // A non-negative integer field within the key's plausible range (kKeyBounds).
  uint32_t u32(const std::string& key, bool required = true, uint32_t dflt = 0) const {
    return count(key, 0, key_max(key), required, dflt);
  }
  // An integer field in [lo, hi]; "<where>: /key: out of range: 5000000 (at most 4096)".
  uint32_t count(const std::string& key, uint32_t lo, uint32_t hi, bool required = true,
                 uint32_t dflt = 0) const {
    if (!has(key)) {
      if (required) fail(key, "missing (expected a positive integer)");
      return dflt;
    }
    const json& v = j_.at(key);
    if (!v.is_number_integer() &&
        !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
      fail(key, "expected an integer, got " + describe_json(v));
    const double d = v.get<double>();
    if (!(d >= lo))
      fail(key, "out of range: " + describe_json(v) +
                    (lo > 0 ? " (at least " + std::to_string(lo) + ")" : ""));
    if (!(d <= hi))
      fail(key, "out of range: " + describe_json(v) + " (at most " + std::to_string(hi) + ")");
    return static_cast<uint32_t>(d);
  }
  bool boolean(const std::string& key, bool dflt) const {
    if (!has(key)) return dflt;
    const json& v = j_.at(key);
    if (!v.is_boolean()) fail(key, "expected true or false, got " + describe_json(v));
    return v.get<bool>();
  }
  std::string str(const std::string& key) const {
    if (!has(key)) fail(key, "missing (expected a string)");
    const json& v = j_.at(key);
    if (!v.is_string()) fail(key, "expected a string, got " + describe_json(v));
    return v.get<std::string>();
  }
  // The first present key of several synonyms.
  uint32_t u32_any(std::initializer_list<const char*> keys, bool required,
                   uint32_t dflt = 0) const {
    for (const char* k : keys)
      if (has(k)) return u32(k);
    if (required) fail(*keys.begin(), "missing (expected a positive integer)");
    return dflt;
  }
  // The first of several synonyms the config holds, else nullptr.
  const char* first_present(std::initializer_list<const char*> keys) const {
    for (const char* k : keys)
      if (has(k)) return k;
    return nullptr;
  }
  // A field whose 0 would change the architecture rather than size it (kv_lora_rank 0 is not MLA,
  // attention_chunk_size 0 no chunk): at least 1, with `why` saying what it is.
  uint32_t positive(const std::string& key, const std::string& why, bool required = true,
                    uint32_t dflt = 1) const {
    const uint32_t v = u32(key, required, dflt);
    if (v == 0 && has(key)) fail(key, "0 (expected at least 1: " + why + ")");
    return v;
  }
  const json* get(const std::string& key) const { return has(key) ? &j_.at(key) : nullptr; }
  // A list of strings (layer_types); empty when absent.
  std::vector<std::string> strings(const std::string& key) const {
    std::vector<std::string> out;
    const json* v = get(key);
    if (!v) return out;
    if (!v->is_array()) fail(key, "expected a list of strings");
    check_list_size(key, *v);
    for (size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_string())
        fail(key + "/" + std::to_string(i), "expected a string, got " + (*v)[i].dump());
      out.push_back((*v)[i].get<std::string>());
    }
    return out;
  }
  // A list of non-negative integers; empty when absent.
  std::vector<uint32_t> u32s(const std::string& key) const {
    std::vector<uint32_t> out;
    const json* v = get(key);
    if (!v) return out;
    if (!v->is_array()) fail(key, "expected a list of integers");
    check_list_size(key, *v);
    const uint32_t hi = key_max(key);
    for (size_t i = 0; i < v->size(); ++i) {
      const json& e = (*v)[i];
      if (!e.is_number_integer() || e.get<int64_t>() < 0)
        fail(key + "/" + std::to_string(i), "expected a non-negative integer, got " + e.dump());
      if (e.get<int64_t>() > hi)
        fail(key + "/" + std::to_string(i),
             "out of range: " + e.dump() + " (at most " + std::to_string(hi) + ")");
      out.push_back(static_cast<uint32_t>(e.get<int64_t>()));
    }
    return out;
  }
  // An integer or the first of a per-layer list of integers (Hunyuan's moe_topk).
  uint32_t u32_or_first(const std::string& key, bool required, uint32_t dflt = 0) const {
    const json* v = get(key);
    if (v && v->is_array()) {
      const auto l = u32s(key);
      if (l.empty()) fail(key, "empty list");
      return l.front();
    }
    return u32(key, required, dflt);
  }
  const std::string& where() const { return where_; }
  const std::string& path() const { return path_; }

 private:
  // Per-layer lists (layer_types, no_rope_layers, compress_ratios, ...) hold at most one entry per
  // layer: checked before a longer one is walked.
  void check_list_size(const std::string& key, const json& v) const {
    if (v.size() > kLayers)
      fail(key, std::to_string(v.size()) + " entries (at most " + std::to_string(kLayers) +
                    ", one per layer)");
  }

  const json& j_;
  std::string where_, path_;
};

// validate() names llama.cpp's fields; a config.json reader names the key each came from: the
// first of its config keys the file holds (the families read each field from one of them), else
// the first. gpt_bigcode's n_layer is its own key; Qwen's experts are num_experts, DeepSeek's
// n_routed_experts, Mixtral's num_local_experts.
struct FieldKeys {
  const char* field;
  const char* keys[6];
};
const FieldKeys kFieldKeys[] = {
    {"n_layer_dense_lead", {"first_k_dense_replace", "num_dense_layers", "moe_layer_start_index"}},
    {"n_embd_head_k", {"head_dim", "attention_head_dim", "qk_nope_head_dim"}},
    {"n_embd_head_v", {"head_dim", "attention_head_dim", "v_head_dim"}},
    {"n_expert_used",
     {"num_experts_per_tok", "experts_per_token", "top_k_experts", "moe_k", "moe_topk"}},
    {"n_head_kv", {"num_key_value_heads", "num_kv_heads"}},
    {"n_ff_exp", {"moe_intermediate_size", "expert_intermediate_size", "intermediate_size"}},
    {"n_ctx_train", {"max_position_embeddings", "seq_length", "n_positions"}},
    {"swa_pattern", {"sliding_window_pattern"}},
    {"n_expert", {"num_experts", "n_routed_experts", "num_local_experts", "moe_num_experts"}},
    {"n_layer", {"num_hidden_layers", "n_layer"}},
    {"n_embd", {"hidden_size", "n_embd"}},
    {"n_head", {"num_attention_heads", "n_head"}},
    {"n_vocab", {"vocab_size_per_layer_input", "vocab_size"}},
    {"n_swa", {"attention_chunk_size", "sliding_window"}},
    {"n_rot", {"qk_rope_head_dim"}},
    {"n_ff",
     {"intermediate_size_mlp", "block_ff_dim", "ffn_hidden_size", "n_inner",
      "shared_intermediate_size", "intermediate_size"}},
};

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The config key `field` (a llama.cpp name) was read from, or nullptr when it has none.
const char* config_key(const Reader& r, const std::string& field) {
  for (const auto& f : kFieldKeys) {
    if (field != f.field) continue;
    for (const char* k : f.keys)
      if (k && r.has(k)) return k;
    return f.keys[0];
  }
  return nullptr;
}

// A validate() problem with each llama.cpp field name replaced by its config key.
std::string in_config_keys(const Reader& r, const std::string& problem) {
  std::string out;
  size_t i = 0;
  while (i < problem.size()) {
    if (word_char(problem[i]) && (i == 0 || !word_char(problem[i - 1]))) {
      size_t j = i;
      while (j < problem.size() && word_char(problem[j])) ++j;
      const std::string w = problem.substr(i, j - i);
      const char* key = config_key(r, w);
      out += key ? key : w;
      i = j;
    } else {
      out += problem[i++];
    }
  }
  return out;
}

const std::vector<std::string> kTypes = {
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma2", "gemma3",
    "gemma3_text", "phi3", "deepseek_v2", "deepseek_v3", "cohere", "falcon", "gpt_bigcode",
    // 2025-2026 (transformers model_type names; *_text sub-types of multimodal configs too)
    "gpt_oss", "qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text",
    "qwen3_vl", "qwen3_vl_text", "gemma4", "gemma4_text", "llama4", "llama4_text", "kimi_k2",
    "kimi_k25", "glm4_moe_lite", "deepseek_v32", "glm_moe_dsa", "glm4_moe", "minimax_m2",
    "nemotron_h", "granitemoehybrid", "lfm2", "lfm2_moe", "falcon_h1", "cohere2", "olmo2", "olmo3",
    "smollm3", "seed_oss", "ernie4_5_moe", "hunyuan_v1_moe", "ministral3", "deepseek_v4",
    "mistral3", "qwen3_vl_moe", "qwen3_vl_moe_text", "hunyuan", "bert", "xlm-roberta",
    "gemma4_unified", "gemma4_unified_text", "gemma3n", "gemma3n_text"};

// quantization_config -> the checkpoint preset it stores (quant.cpp), or, for one llmsize does not
// size, what it is (ModelSpec::stored_quant_unread), so that the answer says so instead of sizing
// the checkpoint in BF16 without a word.
// - fp8 (block-128 scales), mxfp4 (gpt-oss experts), modelopt / nvfp4;
// - gptq (AutoGPTQ, GPTQModel, optimum; transformers GPTQConfig: bits, group_size, default 128),
//   awq (AutoAWQ: bits or w_bit, group_size or q_group_size, default 128) and AutoRound (its
//   packing_format names the GPTQ or AWQ layout it writes) at 4 or 8 bits, group 128: int32-packed
//   weights with fp16 scales and zero points per group, the gptq4/gptq8/awq4 tensor types;
// - compressed-tensors (config_groups.*.weights): INT4 group 32 (the Kimi-K2.5 experts), INT4
//   symmetric group 128 (W4A16), 4-bit float (NVFP4), 8-bit float (FP8) or int (INT8).
struct StoredQuant {
  std::string preset;
  std::string unread;
};

StoredQuant stored_quant_of(const json& root) {
  const json* q = nullptr;
  if (root.contains("quantization_config") && root["quantization_config"].is_object())
    q = &root["quantization_config"];
  else if (root.contains("text_config") && root["text_config"].is_object() &&
           root["text_config"].contains("quantization_config") &&
           root["text_config"]["quantization_config"].is_object())
    q = &root["text_config"]["quantization_config"];
  if (!q) return {};
  const auto str = [](const json& o, const char* k) {
    std::string v = o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
    for (auto& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return v;
  };
  // An integer field, or `absent` when missing, null or not an integer.
  const auto num = [](const json& o, const char* k, int64_t absent) {
    return o.contains(k) && o[k].is_number_integer() ? o[k].get<int64_t>() : absent;
  };
  const std::string method = str(*q, "quant_method"), format = str(*q, "format");
  const auto unread = [](const std::string& what) { return StoredQuant{"", what}; };
  // DeepSeek-V4's config names fp8 (its attention and shared experts) while the checkpoint keeps
  // the routed experts in FP4, two per int8 byte with a float8_e8m0 scale per 32
  // (DeepSeek-V4-Flash: 148.66 GiB in 46 files for 290.9 B parameters; an "expert_dtype": "fp4"
  // field says so where the config carries it).
  if (method == "fp8")
    return {str(root, "model_type") == "deepseek_v4" || str(root, "expert_dtype") == "fp4"
                ? "fp8-mxfp4-experts"
                : "fp8",
            ""};
  if (method == "mxfp4") return {"mxfp4-experts", ""};
  if (method == "modelopt" || format.find("nvfp4") != std::string::npos) return {"nvfp4", ""};
  const int64_t bits = num(*q, "bits", num(*q, "w_bit", -1));
  const int64_t group = num(*q, "group_size", num(*q, "q_group_size", 128));
  const std::string shape =
      std::to_string(bits) + "-bit, group " + (group < 0 ? "per channel" : std::to_string(group));
  const bool auto_round =
      method == "auto-round" || method == "auto_round" || method == "intel/auto-round";
  if (method == "gptq" || method == "awq" || auto_round) {
    const std::string packing = str(*q, "packing_format") + str(*q, "backend");
    const bool awq = method == "awq" || (auto_round && packing.find("awq") != std::string::npos);
    if (group == 128 && bits == 4) return {awq ? "awq-4bit" : "gptq-4bit", ""};
    if (group == 128 && bits == 8 && !awq) return {"gptq-8bit", ""};
    return unread((method == "gptq" ? "GPTQ " : awq ? "AWQ " : "AutoRound ") + shape);
  }
  if (method == "compressed-tensors" || format == "pack-quantized") {
    if (q->contains("config_groups") && (*q)["config_groups"].is_object())
      for (const auto& g : (*q)["config_groups"].items()) {
        if (!g.value().is_object() || !g.value().contains("weights")) continue;
        const json& w = g.value()["weights"];
        if (!w.is_object()) continue;
        const int64_t b = num(w, "num_bits", -1), gs = num(w, "group_size", -1);
        const bool is_float = str(w, "type") == "float";
        const bool symmetric = !w.contains("symmetric") || w["symmetric"] != false;
        if (b == 4 && gs == 32 && !is_float) return {"int4-g32", ""};
        if (b == 4 && is_float) return {"nvfp4", ""};
        if (b == 4 && gs == 128 && symmetric) return {"int4-g128", ""};
        if (b == 8) return {is_float ? "fp8" : "int8", ""};
        return unread("compressed-tensors " + std::string(is_float ? "float " : "int ") +
                      std::to_string(b) + "-bit, group " +
                      (gs < 0 ? "per channel" : std::to_string(gs)) +
                      (symmetric ? "" : ", asymmetric"));
      }
    return unread("compressed-tensors without config_groups weights");
  }
  if (method == "bitsandbytes")
    return unread(q->value("load_in_4bit", false) == true
                      ? "bitsandbytes 4-bit (" +
                            (str(*q, "bnb_4bit_quant_type").empty()
                                 ? std::string("nf4")
                                 : str(*q, "bnb_4bit_quant_type")) +
                            ")"
                      : "bitsandbytes 8-bit");
  return unread(method.empty() ? "no quant_method" : "quant_method " + method);
}

// Reads a config's family-specific fields into the model, whose common fields (n_layer, n_embd,
// heads, vocab, head size, tied embeddings) are already read. One member function per family,
// named by model_type in kFamilies: a new architecture is a row there and its reader here.
// Per-layer families (model_spec.hpp LayerKind, 2025-2026) are read the way llama.cpp's
// convert_hf_to_gguf.py maps the config (commit 00395eb2).
class Family {
 public:
  // Checks n_layer and layer_types for every family (a dense config's layer_types too).
  Family(const Reader& reader, ModelSpec& model, const std::string& model_type,
         const std::string& family_name)
      : r(reader), m(model), mt(model_type), family(family_name), n(model.n_layer) {
    // layer_types, when given, must name every layer.
    types = r.strings("layer_types");
    // An empty list would read as absent: the family's default pattern, not what the file says.
    if (types.empty() && r.has("layer_types"))
      r.fail("layer_types", "empty (expected one entry per layer, " + std::to_string(n) +
                                " for num_hidden_layers)");
    if (!types.empty() && types.size() != n)
      r.fail("layer_types", std::to_string(types.size()) + " entries for " + std::to_string(n) +
                                " layers (num_hidden_layers)");
  }

  void gpt_oss();
  void qwen3_next();
  void gemma4();
  void gemma3n();
  void llama4();
  void deepseek_dsa();
  void glm4_moe();
  void minimax_m2();
  void nemotron_h();
  void granite_hybrid();
  void lfm2();
  void falcon_h1();
  void sliding_every_few();
  void llama_shaped();
  void deepseek_v4();
  void ernie_hunyuan_moe();
  void qwen3_vl();
  void qwen3_vl_moe();
  void llama();
  void qwen2();
  void qwen3();
  void gemma();
  void phi3();
  void deepseek();
  void bert();
  void cohere();
  void falcon();

 private:
  // Products of two config integers, kept below 2^31 like every other field.
  uint32_t mul(uint64_t a, uint64_t b, const char* key) const {
    const uint64_t p = a * b;  // both below 2^31: no 64-bit overflow
    if (p > 2147483647u)
      r.fail(key, std::to_string(a) + " x " + std::to_string(b) + " is too large");
    return static_cast<uint32_t>(p);
  }
  // A layer of attention kind `a` with the model's heads.
  LayerKind attn(AttnKind a) const {
    LayerKind k;
    k.attn = a;
    k.n_head = m.n_head;
    k.n_head_kv = m.n_head_kv;
    k.n_embd_head_k = m.n_embd_head_k;
    k.n_embd_head_v = m.n_embd_head_v;
    return k;
  }
  bool type_is(uint32_t il, std::initializer_list<const char*> names) const {
    for (const char* x : names)
      if (types[il] == x) return true;
    return false;
  }
  void check_types(std::initializer_list<const char*> names) const {
    for (uint32_t il = 0; il < types.size(); ++il)
      if (!type_is(il, names)) {
        std::string list;
        for (const char* x : names) list += (list.empty() ? "" : ", ") + std::string(x);
        r.fail("layer_types/" + std::to_string(il),
               "unknown layer type \"" + types[il] + "\"; expected one of " + list);
      }
  }
  // DeepSeek-style experts: intermediate_size dense layers for the first first_k_dense_replace,
  // n_routed_experts of moe_intermediate_size and n_shared_experts (default `n_shared`) of it.
  void deepseek_experts(uint32_t n_shared) {
    m.n_ff = r.u32("intermediate_size");
    moe_common({"n_routed_experts", "num_experts"});
    m.n_ff_exp = r.u32("moe_intermediate_size");
    m.n_expert_shared = r.u32("n_shared_experts", false, n_shared);
    m.n_ff_shexp = mul(m.n_ff_exp, m.n_expert_shared, "n_shared_experts");
    m.n_layer_dense_lead = r.u32("first_k_dense_replace", false, 0);
  }
  // n_layer_dense_lead dense layers (n_ff wide), then MoE layers, all with the attention of `k`.
  void dense_lead_then_moe(const LayerKind& k) {
    const uint32_t lead = std::min(m.n_layer_dense_lead, n);
    auto kind = [&](bool moe_layer) {
      LayerKind x = k;
      x.ffn = moe_layer ? FfnKind::moe : FfnKind::dense;
      x.n_ff = moe_layer ? 0 : m.n_ff;
      return x;
    };
    append_layers(m, 0, lead, 1, [&](uint32_t) { return kind(false); });
    append_layers(m, lead, n, 1, [&](uint32_t) { return kind(true); });
  }
  // MLA's latent and head sizes (llama.cpp deepseek2): a kv_lora_rank of 0 would not be MLA and
  // size a full-head KV cache (71 x DeepSeek-V3's), a rope part of 0 no rope at all.
  void mla_heads() {
    m.kv_lora_rank = r.positive("kv_lora_rank",
                                "MLA caches a latent of kv_lora_rank + "
                                "qk_rope_head_dim per token and layer");
    m.n_rot = r.positive("qk_rope_head_dim", "the rope part of each MLA key");
    m.n_embd_head_k = r.u32("qk_nope_head_dim") + m.n_rot;
    m.n_embd_head_v = r.positive("v_head_dim", "the MLA value head size");
  }
  // Granite-4.0-H's and Falcon-H1's Mamba2 fields (mamba_d_conv, ...).
  void mamba_heads() {
    m.ssm.d_conv = r.positive("mamba_d_conv", "Mamba2's convolution taps");
    m.ssm.d_state = r.positive("mamba_d_state", "Mamba2's state size");
    m.ssm.n_group = r.positive("mamba_n_groups", "Mamba2's groups");
    m.ssm.dt_rank = r.positive("mamba_n_heads", "Mamba2's heads");
  }
  // The experts and the experts each token uses, under any of their names.
  // On a mixture-of-experts model_type: at least 2 experts (0 or 1 would size a dense model) and
  // 1 to that many per token, each named by the key the config gives it under.
  void moe_common(std::initializer_list<const char*> n_expert_keys) {
    const char* ek = r.first_present(n_expert_keys);
    if (!ek) r.fail(*n_expert_keys.begin(), "missing (expected a positive integer)");
    m.n_expert = r.u32(ek);
    if (m.n_expert < 2)
      r.fail(ek, std::to_string(m.n_expert) + " on a mixture-of-experts model (model_type " + mt +
                     "): expected at least 2 experts");
    const char* uk = r.first_present(
        {"num_experts_per_tok", "experts_per_token", "top_k_experts", "moe_k", "moe_topk"});
    if (!uk) r.fail("num_experts_per_tok", "missing (expected a positive integer)");
    m.n_expert_used = r.u32_or_first(uk, true);  // Hunyuan gives one value per layer
    if (m.n_expert_used == 0) r.fail(uk, "0 (expected at least 1 expert per token)");
    if (m.n_expert_used > m.n_expert)
      r.fail(uk, std::to_string(m.n_expert_used) + " exceeds " + ek + " (" +
                     std::to_string(m.n_expert) + ")");
  }

  const Reader& r;
  ModelSpec& m;
  const std::string& mt;           // the config's model_type
  const std::string& family;       // what it reads as (family_of)
  const uint32_t n;                // n_layer
  std::vector<std::string> types;  // layer_types (per-layer families); empty when absent
};

// gpt-oss (llama.cpp LLM_ARCH_OPENAI_MOE): sliding 128 / full alternating, sinks, biases,
// every layer MoE of intermediate_size-wide experts.
void Family::gpt_oss() {
  m.arch = Arch::gpt_oss;
  moe_common({"num_local_experts", "num_experts"});
  m.n_ff_exp = r.u32("intermediate_size");
  m.n_swa = r.positive("sliding_window", "the sliding layers' window in tokens");
  m.qkv_bias = r.boolean("attention_bias", true);
  if (!types.empty()) check_types({"sliding_attention", "full_attention"});
  append_layers(m, 0, n, types.empty() ? 2 : 0, [&](uint32_t il) {
    // Without layer_types: llama.cpp set_swa_pattern(2), even layers sliding.
    const bool swa = types.empty() ? il % 2 == 0 : types[il] == "sliding_attention";
    LayerKind k = attn(swa ? AttnKind::swa : AttnKind::full);
    k.n_swa = swa ? m.n_swa : 0;
    k.sinks = true;
    k.ffn = FfnKind::moe;
    return k;
  });
}

// Gated delta-net + gated full attention (llama.cpp qwen3next / qwen35 / qwen35moe):
// ssm_d_conv = linear_conv_kernel_dim, ssm_d_state = linear_key_head_dim, ssm_n_group =
// linear_num_key_heads, ssm_dt_rank = linear_num_value_heads, ssm_d_inner = value heads x
// linear_value_head_dim.
void Family::qwen3_next() {
  const bool moe = family != "qwen3_5";
  m.arch = family == "qwen3_next" ? Arch::qwen3next : moe ? Arch::qwen35moe : Arch::qwen35;
  m.ssm.d_conv = r.positive("linear_conv_kernel_dim", "the delta-net's convolution taps");
  m.ssm.d_state = r.positive("linear_key_head_dim", "the delta-net's key head size");
  m.ssm.n_group = r.positive("linear_num_key_heads", "the delta-net's key heads");
  m.ssm.dt_rank = r.positive("linear_num_value_heads", "the delta-net's value heads");
  // Each key head serves a whole group of value heads (llama.cpp's delta-net repeats q and k
  // linear_num_value_heads / linear_num_key_heads times).
  if (m.ssm.dt_rank % m.ssm.n_group != 0)
    r.fail("linear_num_value_heads",
           std::to_string(m.ssm.dt_rank) + " is not a multiple of linear_num_key_heads (" +
               std::to_string(m.ssm.n_group) + "): value heads must group evenly over key heads");
  const uint32_t v_dim = r.u32("linear_value_head_dim");
  if (v_dim != m.ssm.d_state)
    r.fail("linear_value_head_dim", std::to_string(v_dim) + " differs from linear_key_head_dim " +
                                        std::to_string(m.ssm.d_state) +
                                        ", which llama.cpp's delta-net requires");
  m.ssm.d_inner = mul(m.ssm.dt_rank, v_dim, "linear_value_head_dim");
  if (moe) {
    moe_common({"num_experts", "num_local_experts"});
    m.n_ff_exp = r.u32("moe_intermediate_size");
    m.n_ff_shexp = r.u32("shared_expert_intermediate_size", false, 0);
    m.n_expert_shared = m.n_ff_shexp ? 1 : 0;
    if (!r.u32s("mlp_only_layers").empty())
      r.fail("mlp_only_layers", "dense layers among MoE layers are not supported");
  } else {
    m.n_ff = r.u32("intermediate_size");
  }
  // Qwen3.5/3.6 keep their MTP block (mtp.*) in the GGUF as the next-n layer
  // (convert_hf_to_gguf.py Qwen3_5*Model, llama.cpp qwen35 / qwen35moe n_layer_nextn).
  if (family != "qwen3_next") m.n_layer_nextn = r.u32("mtp_num_hidden_layers", false, 0);
  const uint32_t interval = r.u32("full_attention_interval", false, 4);
  if (interval == 0) r.fail("full_attention_interval", "must be positive");
  if (!types.empty()) check_types({"linear_attention", "full_attention"});
  const bool gated = r.boolean("attn_output_gate", true);
  append_layers(m, 0, n, types.empty() ? interval : 0, [&](uint32_t il) {
    const bool full = types.empty() ? (il + 1) % interval == 0 : types[il] == "full_attention";
    LayerKind k = full ? attn(AttnKind::full) : LayerKind{};
    if (full) {
      k.gated_q = gated;
    } else {
      k.attn = AttnKind::none;
      k.state = StateKind::gated_delta_net;
    }
    k.ffn = moe ? FfnKind::moe : FfnKind::dense;
    k.n_ff = moe ? 0 : m.n_ff;
    return k;
  });
}

// Gemma 4 (llama.cpp gemma4, src/models/gemma4.cpp): sliding layers num_key_value_heads x
// head_dim, global layers num_global_key_value_heads x global_head_dim with K = V
// (attention_k_eq_v: no attn_v; llama.cpp still allocates a V cache of n_embd_v_gqa(il)).
void Family::gemma4() {
  m.arch = Arch::gemma4;
  m.tied_embeddings = r.boolean("tie_word_embeddings", true);
  m.n_ff = r.u32("intermediate_size");
  m.n_swa = r.positive("sliding_window", "the sliding layers' window in tokens");
  m.swa_pattern = 0;
  m.n_embd_per_layer = r.u32("hidden_size_per_layer_input", false, 0);
  const uint32_t g_kv = r.u32("num_global_key_value_heads", false, m.n_head_kv);
  const uint32_t g_dim = r.u32("global_head_dim", false, m.n_embd_head_k);
  const bool k_eq_v = r.boolean("attention_k_eq_v", false);
  const uint32_t shared = r.u32("num_kv_shared_layers", false, 0);
  if (shared >= n) r.fail("num_kv_shared_layers", "must be below num_hidden_layers");
  const bool wide = r.boolean("use_double_wide_mlp", false);
  const bool moe = r.boolean("enable_moe_block", false);
  if (moe) {
    moe_common({"num_experts", "num_local_experts"});
    m.n_ff_exp = r.u32_any({"moe_intermediate_size", "expert_intermediate_size"}, true);
  }
  if (types.empty()) r.fail("layer_types", "missing (Gemma 4 names each layer's attention)");
  check_types({"sliding_attention", "full_attention"});
  append_layers(m, 0, n, 0, [&](uint32_t il) {
    const bool swa = types[il] == "sliding_attention";
    LayerKind k = attn(swa ? AttnKind::swa : AttnKind::full);
    k.n_swa = swa ? m.n_swa : 0;
    if (!swa) {
      k.n_head_kv = g_kv;
      k.n_embd_head_k = k.n_embd_head_v = g_dim;
      k.k_eq_v = k_eq_v;
    }
    k.kv_shared = il >= n - shared;
    k.ffn = moe ? FfnKind::moe : FfnKind::dense;
    k.n_ff = mul(m.n_ff, wide && k.kv_shared ? 2 : 1, "intermediate_size");
    return k;
  });
}

// Gemma 3n (Gemma3nForConditionalGeneration's text_config, llama.cpp gemma3n:
// src/models/gemma3n.cpp load_arch_hparams / load_arch_tensors as read in the 2026 tree): sliding
// window on 4 of 5 layers (set_swa_pattern(5), or layer_types), AltUp streams (altup_num_inputs)
// and LAuReL (laurel_rank), per-layer embeddings (hidden_size_per_layer_input), and the last
// num_kv_shared_layers layers reusing the KV of earlier ones (llama.cpp n_layer_kv_from_start 20
// for both E2B and E4B). The GGUF's vocabulary is the per-layer table's: token_embd and
// per_layer_token_embd are both {.., n_vocab} in llama.cpp, so the 262,400-row embed_tokens of the
// checkpoint (its last rows are the audio / vision soft tokens) becomes vocab_size_per_layer_input
// rows (an assumption: 0.05% of the E2B weights).
void Family::gemma3n() {
  m.arch = Arch::gemma3n;
  m.tied_embeddings = r.boolean("tie_word_embeddings", true);
  std::vector<uint32_t> ffs;
  if (const json* v = r.get("intermediate_size"); v && v->is_array())
    ffs = r.u32s("intermediate_size");
  else
    ffs.assign(n, r.u32("intermediate_size"));
  if (ffs.size() == 1 && n > 1) ffs.assign(n, ffs.front());
  if (ffs.size() != n)
    r.fail("intermediate_size",
           std::to_string(ffs.size()) + " entries for " + std::to_string(n) + " layers");
  m.n_ff = *std::max_element(ffs.begin(), ffs.end());
  m.n_swa = r.positive("sliding_window", "the sliding layers' window in tokens");
  m.n_embd_per_layer = r.u32("hidden_size_per_layer_input");
  m.n_vocab = r.u32("vocab_size_per_layer_input", false, m.n_vocab);
  m.n_altup = r.count("altup_num_inputs", 2, 64, false, 4);
  m.laurel_rank = r.count("laurel_rank", 1, kHeadSize, false, 64);
  const uint32_t shared = r.u32("num_kv_shared_layers", false, 0);
  if (shared >= n) r.fail("num_kv_shared_layers", "must be below num_hidden_layers");
  if (!types.empty()) check_types({"sliding_attention", "full_attention"});
  append_layers(m, 0, n, 0, [&](uint32_t il) {
    const bool swa = types.empty() ? il % 5 < 4 : types[il] == "sliding_attention";
    LayerKind k = attn(swa ? AttnKind::swa : AttnKind::full);
    k.n_swa = swa ? m.n_swa : 0;
    k.kv_shared = il >= n - shared;
    k.ffn = FfnKind::dense;
    k.n_ff = ffs[il];
    return k;
  });
}

// Llama 4 (llama.cpp llama4): chunked attention (attention_chunk_size) on 3 of 4 layers, the
// 4th global without rope; MoE every interleave_moe_layer_step-th layer with one shared
// expert of the expert width, dense layers of intermediate_size_mlp.
void Family::llama4() {
  m.arch = Arch::llama4;
  m.n_swa = r.positive("attention_chunk_size",
                       "Llama 4's chunked layers attend within chunks of this many tokens");
  moe_common({"num_local_experts", "num_experts"});
  m.n_ff_exp = r.u32("intermediate_size");
  m.n_ff_shexp = m.n_ff_exp;
  m.n_expert_shared = 1;
  m.n_ff = r.u32("intermediate_size_mlp", false, m.n_ff_exp);
  const uint32_t step = r.u32("interleave_moe_layer_step", false, 1);
  if (step == 0) r.fail("interleave_moe_layer_step", "must be positive");
  const auto no_rope = r.u32s("no_rope_layers");  // 1: rope, 0: NoPE (transformers)
  if (!no_rope.empty() && no_rope.size() != n)
    r.fail("no_rope_layers",
           std::to_string(no_rope.size()) + " entries for " + std::to_string(n) + " layers");
  // Periodic in 4 x step layers; a step beyond the model leaves only the 4-layer pattern.
  const uint32_t period = step <= n / 4 ? 4 * step : 4;
  append_layers(m, 0, n, no_rope.empty() ? period : 0, [&](uint32_t il) {
    const bool global = no_rope.empty() ? (il + 1) % 4 == 0 : no_rope[il] == 0;
    LayerKind k = attn(global ? AttnKind::full : AttnKind::chunked);
    k.n_swa = global ? 0 : m.n_swa;
    k.nope = global;
    const bool moe_layer = (il + 1) % step == 0;
    k.ffn = moe_layer ? FfnKind::moe : FfnKind::dense;
    k.n_ff = moe_layer ? 0 : m.n_ff;
    return k;
  });
}

// MLA + DSA lightning indexer (llama.cpp deepseek32 / glm-dsa): index_head_dim-wide keys
// cached per token per layer beside the MLA latent.
void Family::deepseek_dsa() {
  m.arch = family == "glm_moe_dsa" ? Arch::glm_dsa : Arch::deepseek32;
  deepseek_experts(0);
  m.q_lora_rank = r.u32("q_lora_rank");
  mla_heads();
  m.n_indexer_head = r.u32("index_n_heads");
  m.n_indexer_head_dim = r.u32("index_head_dim");
  // GLM-5 keeps its MTP layer in the GGUF (convert_hf_to_gguf.py GlmMoeDsaModel).
  // DeepSeek-V3.2 carries it in the checkpoint like V3 (model.layers.61).
  m.n_layer_nextn = r.u32("num_nextn_predict_layers", false, 0);
  LayerKind k = attn(AttnKind::mla);
  k.n_indexer_k = m.n_indexer_head_dim;
  dense_lead_then_moe(k);
}

// GLM-4.5/4.6/4.7 (llama.cpp glm4moe): leading dense layers, MoE with one shared expert and
// expert-bias routing, biased q/k/v, and the MTP layer(s) kept in the GGUF.
void Family::glm4_moe() {
  m.arch = Arch::glm4moe;
  deepseek_experts(1);
  m.qkv_bias = r.boolean("attention_bias", false);
  m.qk_norm = r.boolean("use_qk_norm", false);
  m.n_layer_nextn = r.u32("num_nextn_predict_layers", false, 0);
  // GLM-4.5 / 4.5-Air / 4.7 store the MTP layer's own embed_tokens and shared_head.head: their
  // HF totals are exactly 2 x vocab_size x hidden_size above the layers (GLM-4.5 358,337,791,296
  // = 356,785,898,816 + 2 x 151,552 x 5,120); convert_hf_to_gguf.py keeps them as
  // blk.N.nextn.embed_tokens / nextn.shared_head_head.
  m.nextn_embeddings = m.n_layer_nextn > 0;
  dense_lead_then_moe(attn(AttnKind::full));
}

// MiniMax-M2 (llama.cpp minimax-m2): full attention with q/k norms over all heads, MoE
// without shared experts, routing bias.
void Family::minimax_m2() {
  m.arch = Arch::minimax_m2;
  moe_common({"num_local_experts", "num_experts"});
  m.n_ff_exp = r.u32("intermediate_size");
  append_layers(m, 0, n, 1, [&](uint32_t) {
    LayerKind k = attn(AttnKind::full);
    k.ffn = FfnKind::moe;
    return k;
  });
}

// Nemotron-H (llama.cpp nemotron_h / nemotron_h_moe): hybrid_override_pattern names each
// layer: M Mamba2, * attention, - MLP (relu^2, up + down), E MoE.
void Family::nemotron_h() {
  const std::string pat = r.str("hybrid_override_pattern");
  if (pat.size() != n)
    r.fail("hybrid_override_pattern",
           std::to_string(pat.size()) + " characters for " + std::to_string(n) + " layers");
  const bool moe = pat.find('E') != std::string::npos;
  m.arch = moe ? Arch::nemotron_h_moe : Arch::nemotron_h;
  m.ssm.d_conv = r.positive("conv_kernel", "Mamba2's convolution taps");
  m.ssm.d_state = r.positive("ssm_state_size", "Mamba2's state size");
  m.ssm.n_group = r.positive("n_groups", "Mamba2's groups");
  m.ssm.dt_rank = r.positive("mamba_num_heads", "Mamba2's heads");
  m.ssm.d_inner =
      mul(m.ssm.dt_rank, r.positive("mamba_head_dim", "Mamba2's head size"), "mamba_head_dim");
  m.n_ff = r.u32("intermediate_size", !moe, 0);
  if (moe) {
    moe_common({"n_routed_experts", "num_experts"});
    m.n_ff_exp = r.u32("moe_intermediate_size");
    m.n_expert_shared = r.u32("n_shared_experts", false, 1);
    m.n_ff_shexp = mul(r.u32("moe_shared_expert_intermediate_size", false, 0), m.n_expert_shared,
                       "n_shared_experts");
  }
  append_layers(m, 0, n, 0, [&](uint32_t il) {
    LayerKind k;
    k.attn = AttnKind::none;
    k.ffn = FfnKind::none;
    switch (pat[il]) {
      case 'M':
        k.state = StateKind::mamba2;
        break;
      case '*':
        k = attn(AttnKind::full);
        k.ffn = FfnKind::none;
        break;
      case '-':
        k.ffn = FfnKind::dense;
        k.n_ff = m.n_ff;
        break;
      case 'E':
        k.ffn = FfnKind::moe;
        break;
      default:
        r.fail("hybrid_override_pattern", std::string("unknown layer '") + pat[il] + "' at " +
                                              std::to_string(il) + " (expected M, *, - or E)");
    }
    return k;
  });
}

// Granite-4.0-H (llama.cpp granitehybrid): Mamba2 or attention layers, each with an MoE
// (+ shared expert) or, without experts, a dense shared MLP of shared_intermediate_size.
void Family::granite_hybrid() {
  m.arch = Arch::granitehybrid;
  mamba_heads();
  m.ssm.d_inner =
      mul(m.ssm.dt_rank, r.positive("mamba_d_head", "Mamba2's head size"), "mamba_d_head");
  const uint32_t ne = r.u32_any({"num_local_experts", "num_experts"}, false, 0);
  const uint32_t shared = r.u32("shared_intermediate_size", false, 0);
  if (ne > 1) {
    moe_common({"num_local_experts", "num_experts"});
    m.n_ff_exp = r.u32("intermediate_size");
    m.n_ff_shexp = shared;
    m.n_expert_shared = shared ? 1 : 0;
  } else {
    m.n_ff = shared ? shared : r.u32("intermediate_size");
  }
  if (types.empty()) r.fail("layer_types", "missing (Granite hybrid names each layer)");
  check_types({"mamba", "attention"});
  append_layers(m, 0, n, 0, [&](uint32_t il) {
    LayerKind k = attn(AttnKind::full);
    if (types[il] == "mamba") {
      k = LayerKind{};
      k.attn = AttnKind::none;
      k.state = StateKind::mamba2;
    }
    k.ffn = ne > 1 ? FfnKind::moe : FfnKind::dense;
    k.n_ff = ne > 1 ? 0 : m.n_ff;
    return k;
  });
}

// LFM2 (llama.cpp lfm2 / lfm2moe): short-convolution layers (conv_L_cache taps) and
// attention layers with q/k norms; tied embeddings.
void Family::lfm2() {
  const bool moe = family == "lfm2_moe";
  m.arch = moe ? Arch::lfm2moe : Arch::lfm2;
  m.tied_embeddings = r.boolean("tie_word_embeddings", true);
  m.ssm.l_cache = r.positive("conv_L_cache", "the short convolution's taps");
  uint32_t ff = r.u32_any({"block_ff_dim", "intermediate_size"}, true);
  if (!moe && r.boolean("block_auto_adjust_ff_dim", false)) {
    // LFM2 modeling: ff = 2 ff / 3, times block_ffn_dim_multiplier, rounded up to
    // block_multiple_of (convert_hf_to_gguf.py LFM2Model does the same).
    ff = 2 * ff / 3;
    if (const json* mult = r.get("block_ffn_dim_multiplier"); mult && mult->is_number())
      ff = static_cast<uint32_t>(mult->get<double>() * ff);
    const uint32_t mo = r.u32("block_multiple_of", false, 256);
    if (mo) ff = (ff + mo - 1) / mo * mo;
  }
  m.n_ff = ff;
  uint32_t lead = 0;
  if (moe) {
    moe_common({"num_experts", "num_local_experts"});
    m.n_ff_exp = r.u32("moe_intermediate_size");
    lead = std::min(r.u32("num_dense_layers", false, 0), n);
    m.n_layer_dense_lead = lead;
  }
  // Older LFM2 configs list the attention layers in full_attn_idxs instead of layer_types
  // (convert_hf_to_gguf.py LFM2Model reads either).
  std::vector<bool> is_attn(n, false);
  if (!types.empty()) {
    check_types({"conv", "full_attention"});
    for (uint32_t il = 0; il < n; ++il) is_attn[il] = types[il] == "full_attention";
  } else if (r.has("full_attn_idxs")) {
    const auto idx = r.u32s("full_attn_idxs");
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] >= n)
        r.fail("full_attn_idxs/" + std::to_string(i), "layer " + std::to_string(idx[i]) + " of " +
                                                          std::to_string(n) +
                                                          " (num_hidden_layers)");
      is_attn[idx[i]] = true;
    }
  } else {
    r.fail("layer_types", "missing (LFM2 names each layer, or lists full_attn_idxs)");
  }
  append_layers(m, 0, n, 0, [&](uint32_t il) {
    LayerKind k = attn(AttnKind::full);
    if (!is_attn[il]) {
      k = LayerKind{};
      k.attn = AttnKind::none;
      k.state = StateKind::short_conv;
    }
    const bool moe_layer = moe && il >= lead;
    k.ffn = moe_layer ? FfnKind::moe : FfnKind::dense;
    k.n_ff = moe_layer ? 0 : m.n_ff;
    return k;
  });
}

// Falcon-H1 (llama.cpp falcon-h1): attention and Mamba2 side by side in every layer.
void Family::falcon_h1() {
  m.arch = Arch::falcon_h1;
  m.n_ff = r.u32("intermediate_size");
  mamba_heads();
  m.ssm.d_inner = r.positive(
      "mamba_d_ssm", "Mamba2's inner width", false,
      mul(m.ssm.dt_rank, r.positive("mamba_d_head", "Mamba2's head size"), "mamba_d_head"));
  append_layers(m, 0, n, 1, [&](uint32_t) {
    LayerKind k = attn(AttnKind::full);
    k.state = StateKind::mamba2;
    k.n_ff = m.n_ff;
    return k;
  });
}

// Command R7B / Command A (llama.cpp cohere2, set_swa_pattern(4)); OLMo 2 (all full) and
// OLMo 3 (layer_types, 3 sliding : 1 full), both llama.cpp olmo2.
void Family::sliding_every_few() {
  m.arch = family == "cohere2" ? Arch::cohere2 : Arch::olmo2;
  m.n_ff = r.u32("intermediate_size");
  if (family == "cohere2") m.tied_embeddings = r.boolean("tie_word_embeddings", true);
  const uint32_t win = r.u32("sliding_window", false, 0);
  m.n_swa = win;
  const uint32_t pattern = r.u32("sliding_window_pattern", false, family == "cohere2" ? 4 : 0);
  if (!types.empty()) check_types({"sliding_attention", "full_attention"});
  const bool any_swa = win > 0 && (!types.empty() || pattern > 0);
  append_layers(m, 0, n,
                !types.empty()           ? 0
                : pattern > 1 && any_swa ? pattern
                                         : 1,
                [&](uint32_t il) {
                  const bool swa =
                      any_swa && (!types.empty() ? types[il] == "sliding_attention"
                                                 : pattern == 1 || il % pattern < pattern - 1);
                  LayerKind k = attn(swa ? AttnKind::swa : AttnKind::full);
                  k.n_swa = swa ? win : 0;
                  k.n_ff = m.n_ff;
                  return k;
                });
}

// Llama-shaped layers: SmolLM3 (NoPE every no_rope_layer_interval-th layer), Seed-OSS
// (q/k/v biases), Ministral 3 text model.
void Family::llama_shaped() {
  m.arch = family == "smollm3"    ? Arch::smollm3
           : family == "seed_oss" ? Arch::seed_oss
                                  : Arch::mistral3;
  m.n_ff = r.u32("intermediate_size");
  m.qkv_bias = r.boolean("attention_bias", false);
  const auto no_rope = r.u32s("no_rope_layers");
  if (!no_rope.empty() && no_rope.size() != n)
    r.fail("no_rope_layers",
           std::to_string(no_rope.size()) + " entries for " + std::to_string(n) + " layers");
  append_layers(m, 0, n, no_rope.empty() ? 1 : 0, [&](uint32_t il) {
    LayerKind k = attn(AttnKind::full);
    k.nope = !no_rope.empty() && no_rope[il] == 0;
    k.n_ff = m.n_ff;
    return k;
  });
}

// DeepSeek-V4 (llama.cpp deepseek4, src/models/deepseek4.cpp): one shared K/V vector of
// head_dim per token (MQA), a sliding window on every layer, compressed caches on the layers
// whose compress_ratios entry is 4 (with indexer keys) or 128; hash-routed leading layers.
void Family::deepseek_v4() {
  m.arch = Arch::deepseek4;
  m.q_lora_rank = r.u32("q_lora_rank");
  m.o_lora_rank = r.u32("o_lora_rank");
  m.o_groups = r.u32("o_groups");
  m.hc_mult = r.u32("hc_mult");
  m.n_hash_layers = r.u32("num_hash_layers", false, 0);
  moe_common({"n_routed_experts", "num_experts"});
  m.n_ff_exp = r.u32("moe_intermediate_size");
  m.n_expert_shared = r.u32("n_shared_experts", false, 1);
  m.n_ff_shexp = mul(m.n_ff_exp, m.n_expert_shared, "n_shared_experts");
  m.n_swa = r.u32("sliding_window");
  m.n_indexer_head = r.u32("index_n_heads");
  m.n_indexer_head_dim = r.u32("index_head_dim");
  m.n_layer_nextn = r.u32("num_nextn_predict_layers", false, 0);
  m.gguf_drops_nextn = true;  // convert_hf_to_gguf.py DeepseekV4Model skips "mtp.*" tensors
  m.n_head_kv = 1;
  const auto ratios = r.u32s("compress_ratios");
  if (ratios.size() < n)
    r.fail("compress_ratios",
           std::to_string(ratios.size()) + " entries for " + std::to_string(n) + " layers");
  append_layers(m, 0, n, 0, [&](uint32_t il) {
    if (ratios[il] != 0 && ratios[il] != 4 && ratios[il] != 128)
      r.fail("compress_ratios/" + std::to_string(il),
             "ratio " + std::to_string(ratios[il]) + " (llama.cpp supports 0, 4 and 128)");
    LayerKind k = attn(AttnKind::swa);
    k.n_head_kv = 1;
    k.n_swa = m.n_swa;
    k.kv_single = true;
    k.sinks = true;
    k.compress_ratio = ratios[il];
    k.n_indexer_k = ratios[il] == 4 ? m.n_indexer_head_dim : 0;
    k.ffn = FfnKind::moe;
    return k;
  });
}

// ERNIE-4.5-MoE (llama.cpp ernie4_5-moe): dense layers before moe_layer_start_index, MoE
// every moe_layer_interval-th layer after, shared experts; Hunyuan-A13B (hunyuan-moe): every
// layer MoE with num_shared_expert shared experts and q/k norms.
void Family::ernie_hunyuan_moe() {
  const bool ernie = family == "ernie4_5_moe";
  m.arch = ernie ? Arch::ernie4_5_moe : Arch::hunyuan_moe;
  m.n_ff = r.u32("intermediate_size");
  moe_common({"moe_num_experts", "num_experts"});
  m.n_ff_exp = r.u32_or_first("moe_intermediate_size", true);
  m.n_expert_shared = ernie ? r.u32("moe_num_shared_experts", false, 0)
                            : r.u32_or_first("num_shared_expert", false, 1);
  m.n_ff_shexp = mul(ernie ? m.n_ff_exp : m.n_ff, m.n_expert_shared, "num_shared_expert");
  m.qk_norm = !ernie && r.boolean("use_qk_norm", true);
  if (ernie) m.tied_embeddings = r.boolean("tie_word_embeddings", true);
  const uint32_t start = ernie ? std::min(r.u32("moe_layer_start_index", false, 0), n) : 0;
  const uint32_t every = ernie ? r.u32("moe_layer_interval", false, 1) : 1;
  if (every == 0) r.fail("moe_layer_interval", "must be positive");
  m.n_layer_dense_lead = start;
  auto kind = [&](uint32_t il) {
    LayerKind k = attn(AttnKind::full);
    const bool moe_layer = il >= start && (il - start) % every == 0;
    k.ffn = moe_layer ? FfnKind::moe : FfnKind::dense;
    k.n_ff = moe_layer ? 0 : m.n_ff;
    return k;
  };
  append_layers(m, 0, start, 1, kind);
  append_layers(m, start, n, every, [&](uint32_t il) { return kind(il); });
}

// Qwen3-VL's language model: qwen3 layers (llama.cpp qwen3vl; the vision tower and its
// deepstack mergers go to the mmproj file).
void Family::qwen3_vl() {
  m.arch = Arch::qwen3vl;
  m.n_ff = r.u32("intermediate_size");
}

// Qwen3-VL-MoE's language model: qwen3moe layers (llama.cpp qwen3vlmoe loads the tensors of
// qwen3moe; the deepstack embeddings arrive from the mmproj).
void Family::qwen3_vl_moe() {
  m.arch = Arch::qwen3moe;
  moe_common({"num_experts", "num_local_experts"});
  m.n_ff_exp = r.u32("moe_intermediate_size");
  if (!r.u32s("mlp_only_layers").empty())
    r.fail("mlp_only_layers", "dense layers among MoE layers are not supported");
}

void Family::llama() {
  m.arch = Arch::llama;
  m.n_ff = r.u32("intermediate_size");
  // Mixtral is a mixture of experts by its model_type; a llama config may carry experts too.
  const uint32_t ne = r.u32_any({"num_local_experts", "num_experts"}, false, 0);
  if (mt == "mixtral" || ne > 1) {
    moe_common({"num_local_experts", "num_experts"});
    m.n_ff_exp = m.n_ff;
  }
  // Mistral-7B-v0.1 used a 4096 sliding window on every layer; later configs set it to null.
  if (mt == "mistral" && r.has("sliding_window")) {
    m.n_swa = r.u32("sliding_window");
    m.swa_pattern = 1;
  }
}

void Family::qwen2() {
  m.arch = mt == "qwen2" ? Arch::qwen2 : Arch::qwen2moe;
  m.qkv_bias = true;
  m.n_ff = r.u32("intermediate_size", mt == "qwen2");
  if (mt == "qwen2_moe") {
    moe_common({"num_experts"});
    m.n_ff_exp = r.u32("moe_intermediate_size");
    m.n_ff_shexp = r.u32("shared_expert_intermediate_size", false, 0);
    m.n_expert_shared = m.n_ff_shexp ? 1 : 0;
  }
  // Qwen2.5 configs carry sliding_window but use_sliding_window: false.
  if (r.boolean("use_sliding_window", false)) {
    m.n_swa = r.u32("sliding_window");
    m.swa_pattern = 1;
  }
}

void Family::qwen3() {
  m.arch = mt == "qwen3" ? Arch::qwen3 : Arch::qwen3moe;
  m.n_ff = r.u32("intermediate_size", mt == "qwen3");
  if (mt == "qwen3_moe") {
    // transformers 5 renames num_experts to num_local_experts.
    moe_common({"num_experts", "num_local_experts"});
    m.n_ff_exp = r.u32("moe_intermediate_size");
  }
}

void Family::gemma() {
  m.arch = mt == "gemma2" ? Arch::gemma2 : Arch::gemma3;
  m.n_ff = r.u32("intermediate_size");
  m.tied_embeddings = r.boolean("tie_word_embeddings", true);
  m.n_swa = r.positive("sliding_window", "the sliding layers' window in tokens", false,
                       m.arch == Arch::gemma2 ? 4096 : 0);
  // llama.cpp: gemma2 set_swa_pattern(2); gemma3 set_swa_pattern(6).
  m.swa_pattern = r.u32("sliding_window_pattern", false, m.arch == Arch::gemma2 ? 2 : 6);
}

void Family::phi3() {
  m.arch = Arch::phi3;
  m.n_ff = r.u32("intermediate_size");
}

void Family::deepseek() {
  m.arch = Arch::deepseek2;
  m.n_ff = r.u32("intermediate_size");
  moe_common({"n_routed_experts", "num_experts"});
  m.n_ff_exp = r.u32("moe_intermediate_size");
  m.n_expert_shared = r.u32("n_shared_experts", false, 0);
  m.n_ff_shexp = mul(m.n_ff_exp, m.n_expert_shared, "n_shared_experts");
  m.n_layer_dense_lead = r.u32("first_k_dense_replace", false, 0);
  m.q_lora_rank = r.u32("q_lora_rank", false, 0);
  mla_heads();
  // DeepSeek-V3.x: the MTP module(s) (num_nextn_predict_layers) after the main layers.
  if (family == "deepseek_v3" || mt == "glm4_moe_lite")
    m.n_layer_nextn = r.u32("num_nextn_predict_layers", false, 0);
  // convert_hf_to_gguf.py DeepseekV2Model (skip_mtp = True) drops model.layers.<n_layer> from
  // DeepSeek-V3.x GGUFs; Glm4MoeLiteModel (skip_mtp = False) keeps GLM-4.7-Flash's.
  m.gguf_drops_nextn = mt != "glm4_moe_lite";
  // GLM-4.7-Flash's MTP layer 47 stores its own embed_tokens and shared_head.head too (HF total
  // 31,221,488,576 = the layers' 30,587,100,096 + 2 x 154,880 x 2,048).
  m.nextn_embeddings = mt == "glm4_moe_lite" && m.n_layer_nextn > 0;
}

// BertModel / XLMRobertaModel (BGE-M3) and their *ForSequenceClassification (rerankers),
// converted by convert_hf_to_gguf.py BertModel / XLMRobertaModel to llama.cpp bert.
void Family::bert() {
  m.arch = Arch::bert;
  m.n_ff = r.u32("intermediate_size");
  m.qkv_bias = true;
  m.n_token_types = r.count("type_vocab_size", 1, kHeadSize, false, 2);  // BertConfig default 2
  if (r.has("position_embedding_type") && r.str("position_embedding_type") != "absolute")
    r.fail("position_embedding_type",
           sanitize_quoted(r.str("position_embedding_type")) +
               " is not supported (llama.cpp bert has learned absolute positions)");
  m.n_ctx_train = r.u32("max_position_embeddings", false, 512);
  if (mt == "xlm-roberta") {
    // XLMRobertaModel._position_offset = 1 + pad_token_id: the first rows of
    // position_embeddings (the padding positions) are cut, and n_ctx_train with them.
    const uint32_t off = r.u32("pad_token_id", false, 1) + 1;
    if (m.n_ctx_train <= off)
      r.fail("max_position_embeddings", std::to_string(m.n_ctx_train) +
                                            " leaves no position after the " + std::to_string(off) +
                                            " padding rows (pad_token_id + 1)");
    m.n_ctx_train -= off;
  }
  bool classifier = false;
  if (const json* a = r.get("architectures"); a && a->is_array())
    for (const auto& x : *a)
      if (x.is_string() &&
          x.get<std::string>().find("ForSequenceClassification") != std::string::npos)
        classifier = true;
  m.task = classifier ? Task::rerank : Task::embedding;
  if (classifier) {
    // num_labels, else the id2label map's size (PretrainedConfig: 2 when neither is given).
    uint32_t labels = r.u32("num_labels", false, 0);
    if (!labels) {
      const json* l = r.get("id2label");
      labels = l && l->is_object() && !l->empty() ? static_cast<uint32_t>(l->size()) : 2;
    }
    m.n_cls_out = labels;
  }
}

void Family::cohere() {
  m.arch = Arch::command_r;
  m.n_ff = r.u32("intermediate_size");
  m.tied_embeddings = r.boolean("tie_word_embeddings", true);
}

void Family::falcon() {
  m.arch = Arch::falcon;
  m.n_ff = r.u32("ffn_hidden_size", false, 4 * m.n_embd);
  m.tied_embeddings = r.boolean("tie_word_embeddings", true);
  if (!r.boolean("new_decoder_architecture", false))
    m.n_head_kv = r.boolean("multi_query", true) ? 1 : m.n_head;
}

// model_type (as family_of maps it) -> its reader.
struct FamilyRow {
  const char* family;
  void (Family::*read)();
};
const FamilyRow kFamilies[] = {
    {"gpt_oss", &Family::gpt_oss},
    {"qwen3_next", &Family::qwen3_next},
    {"qwen3_5", &Family::qwen3_next},
    {"qwen3_5_moe", &Family::qwen3_next},
    {"gemma4", &Family::gemma4},
    {"gemma3n", &Family::gemma3n},
    {"llama4", &Family::llama4},
    {"deepseek_v32", &Family::deepseek_dsa},
    {"glm_moe_dsa", &Family::deepseek_dsa},
    {"glm4_moe", &Family::glm4_moe},
    {"minimax_m2", &Family::minimax_m2},
    {"nemotron_h", &Family::nemotron_h},
    {"granitemoehybrid", &Family::granite_hybrid},
    {"lfm2", &Family::lfm2},
    {"lfm2_moe", &Family::lfm2},
    {"falcon_h1", &Family::falcon_h1},
    {"cohere2", &Family::sliding_every_few},
    {"olmo3", &Family::sliding_every_few},
    {"olmo2", &Family::sliding_every_few},
    {"smollm3", &Family::llama_shaped},
    {"seed_oss", &Family::llama_shaped},
    {"ministral3", &Family::llama_shaped},
    {"deepseek_v4", &Family::deepseek_v4},
    {"ernie4_5_moe", &Family::ernie_hunyuan_moe},
    {"hunyuan_v1_moe", &Family::ernie_hunyuan_moe},
    {"qwen3_vl", &Family::qwen3_vl},
    {"qwen3_vl_moe", &Family::qwen3_vl_moe},
    {"llama", &Family::llama},
    {"mistral", &Family::llama},
    {"mixtral", &Family::llama},
    {"qwen2", &Family::qwen2},
    {"qwen2_moe", &Family::qwen2},
    {"qwen3", &Family::qwen3},
    {"qwen3_moe", &Family::qwen3},
    {"gemma2", &Family::gemma},
    {"gemma3", &Family::gemma},
    {"gemma3_text", &Family::gemma},
    {"phi3", &Family::phi3},
    {"deepseek_v2", &Family::deepseek},
    {"deepseek_v3", &Family::deepseek},
    {"bert", &Family::bert},
    {"xlm-roberta", &Family::bert},
    {"cohere", &Family::cohere},
    {"falcon", &Family::falcon},
};

// The vision tower of a multimodal config (its vision_config), sized by model_spec.cpp
// vision_tower_params. `text_hidden` is the language model's width the projector maps to.
// Configs of other towers (Kimi's MoonViT, Pixtral behind LLaVA's projector, ...) leave kind none:
// unknown, not guessed.
VisionTower read_vision(const json& root, const std::string& root_type, uint32_t text_hidden,
                        const std::string& where) {
  VisionTower v;
  if (!root.contains("vision_config") || !root["vision_config"].is_object()) return v;
  const json& vc = root["vision_config"];
  const Reader r(vc, where, "/vision_config");
  const std::string vt = vc.contains("model_type") && vc["model_type"].is_string()
                             ? vc["model_type"].get<std::string>()
                             : std::string();
  if (r.has("depth") && r.has("out_hidden_size")) {
    // Qwen3-VL / Qwen3.5 / Qwen3.6 (Qwen3VLVisionConfig).
    v.kind = VisionKind::qwen3_vl;
    v.depth = r.u32("depth");
    v.hidden = r.u32("hidden_size");
    v.n_ff = r.u32("intermediate_size");
    v.n_head = r.u32("num_heads");
    v.patch = r.u32("patch_size");
    v.temporal_patch = r.u32("temporal_patch_size", false, 2);
    v.in_channels = r.u32("in_channels", false, 3);
    v.n_pos = r.u32("num_position_embeddings");
    v.merge = r.u32("spatial_merge_size", false, 2);
    v.out_hidden = r.u32("out_hidden_size");
    v.n_deepstack = static_cast<uint32_t>(r.u32s("deepstack_visual_indexes").size());
  } else if (vt == "siglip_vision_model" && root_type == "gemma3") {
    v.kind = VisionKind::siglip;
    v.depth = r.u32("num_hidden_layers");
    v.hidden = r.u32("hidden_size");
    v.n_ff = r.u32("intermediate_size");
    v.n_head = r.u32("num_attention_heads");
    v.patch = r.count("patch_size", 1, kHeadSize);
    v.in_channels = r.u32("num_channels", false, 3);
    const uint32_t side = r.u32("image_size") / v.patch;
    v.n_pos = side * side;  // both below 2^16
    if (r.boolean("vision_use_head", false))
      r.fail("vision_use_head", "a SigLIP pooling head is not supported");
    v.out_hidden = text_hidden;
  } else if (root_type == "gemma4" && r.has("position_embedding_size") &&
             !r.boolean("use_clipped_linears", false)) {
    v.kind = VisionKind::gemma4;
    v.depth = r.u32("num_hidden_layers");
    v.hidden = r.u32("hidden_size");
    v.n_ff = r.u32("intermediate_size");
    v.n_head = r.u32("num_attention_heads");
    v.head_dim = r.u32("head_dim");
    v.patch = r.u32("patch_size");
    v.n_pos = r.u32("position_embedding_size");
    v.out_hidden = text_hidden;
  } else if (vt == "pixtral" && (root_type == "mistral3" || root_type == "ministral3")) {
    // Mistral3ForConditionalGeneration (Mistral-Small-3.1/3.2, Ministral 3): the Pixtral
    // encoder and Mistral3MultiModalProjector (spatial_merge_size and the bias at the root).
    const Reader top(root, where, "");
    if (top.boolean("multimodal_projector_bias", false))
      top.fail("multimodal_projector_bias", "true is not supported (Mistral 3 has false)");
    v.kind = VisionKind::pixtral;
    v.depth = r.u32("num_hidden_layers");
    v.hidden = r.u32("hidden_size");
    v.n_ff = r.u32("intermediate_size");
    v.n_head = r.count("num_attention_heads", 1, kHeadSize);
    v.head_dim = r.u32("head_dim", false, v.hidden / v.n_head);
    v.patch = r.count("patch_size", 1, kHeadSize);
    v.in_channels = r.u32("num_channels", false, 3);
    v.merge = top.count("spatial_merge_size", 1, 16, false, 2);
    v.out_hidden = text_hidden;
  }
  return v;
}

}  // namespace

std::string json_reason(const nlohmann::json::exception& e) {
  // "[json.exception.out_of_range.406] number overflow parsing '1e432'" -> the part after "] ".
  // The bytes after "; last read: " are the input's own: left out, and the rest sanitized.
  std::string w = e.what();
  auto p = w.find("] ");
  if (p != std::string::npos) w = w.substr(p + 2);
  p = w.find("; last read");
  if (p != std::string::npos) w = w.substr(0, p);
  return sanitize(w, 200);
}

namespace {

// mt among kTypes, else InputError listing them (with the closest).
void check_model_type(const Reader& r, const std::string& mt) {
  if (std::find(kTypes.begin(), kTypes.end(), mt) != kTypes.end()) return;
  // The *_text sub-types read as their family: listed once, under the family's name.
  std::vector<std::string> shown;
  for (const auto& t : kTypes)
    if (t == "gemma3_text" || t.size() < 5 || t.compare(t.size() - 5, 5, "_text") != 0)
      shown.push_back(t);
  std::string list;
  for (const auto& t : shown) list += (list.empty() ? "" : ", ") + t;
  r.fail("model_type",
         "unsupported " + sanitize_quoted(mt) + did_you_mean(mt, shown) + "; supported: " + list);
}

// The family a model_type reads as: sub-types of multimodal configs and renamed families read
// as their text model.
std::string family_of(const Reader& r, const std::string& mt) {
  std::string family = mt;
  if (family.size() > 5 && family.compare(family.size() - 5, 5, "_text") == 0 &&
      family != "gemma3_text")
    family.resize(family.size() - 5);
  if (family == "kimi_k2") family = "deepseek_v3";  // Kimi-K2: DeepseekV3ForCausalLM
  if (family == "hunyuan") {
    // Tencent's own config of Hunyuan-A13B (HunYuanMoEV1ForCausalLM, model_type "hunyuan"):
    // the fields of transformers' hunyuan_v1_moe, with attention_head_dim for head_dim. Its
    // cross-layer attention (use_cla) and MLA (use_mla) variants are a different layout.
    for (const char* k : {"use_cla", "use_mla"})
      if (r.boolean(k, false)) r.fail(k, "true is not supported (Hunyuan-A13B has false)");
    family = "hunyuan_v1_moe";
  }
  // Gemma 4 12B (Gemma4UnifiedForConditionalGeneration): a unified vision/audio front end around
  // a gemma4 text model (its text_config reads as gemma4_text; the front end is not sized).
  if (family == "gemma4_unified") family = "gemma4";
  if (family == "glm4_moe_lite") family = "deepseek_v2";  // GLM-4.7-Flash: MLA, llama.cpp deepseek2
  if (family == "kimi_k25" || family == "mistral3")
    r.fail("text_config", "missing (a " + mt + " config nests its language model there)");
  return family;
}

// GPTBigCodeConfig (StarCoder, OctoCoder) uses GPT-2 key names.
ModelSpec gpt_bigcode_model(const Reader& r, const std::string& where) {
  ModelSpec m;
  m.arch = Arch::starcoder;
  // GPTBigCodeConfig's attribute_map accepts the common names too.
  m.n_layer = r.u32_any({"n_layer", "num_hidden_layers"}, true);
  m.n_embd = r.u32_any({"n_embd", "hidden_size"}, true);
  m.n_head = r.u32_any({"n_head", "num_attention_heads"}, true);
  m.n_vocab = r.u32("vocab_size");
  m.n_ctx_train = r.u32_any({"n_positions", "max_position_embeddings"}, true);
  m.n_ff = r.u32("n_inner", false, 4 * m.n_embd);
  m.n_head_kv = r.boolean("multi_query", true) ? 1 : m.n_head;
  m.n_embd_head_k = m.n_embd_head_v = m.n_head ? m.n_embd / m.n_head : 0;
  m.tied_embeddings = r.boolean("tie_word_embeddings", true);
  for (const auto& p : validate(m)) throw InputError(where + ": " + in_config_keys(r, p));
  return m;
}

ModelSpec text_model_from_hf_config(const json& cfg_in, const std::string& where) {
  if (!cfg_in.is_object()) throw InputError(where + ": expected a JSON object");
  const json* cfg = &cfg_in;
  std::string path;
  // Gemma3ForConditionalGeneration nests the language model in text_config.
  if (cfg->contains("text_config") && (*cfg)["text_config"].is_object() &&
      !cfg->contains("num_hidden_layers")) {
    cfg = &(*cfg)["text_config"];
    path = "/text_config";
  }
  Reader r(*cfg, where, path);
  std::string mt = r.has("model_type") ? r.str("model_type")
                                       : (cfg != &cfg_in && cfg_in.contains("model_type") &&
                                                  cfg_in["model_type"].is_string()
                                              ? cfg_in["model_type"].get<std::string>()
                                              : std::string());
  if (mt.empty()) r.fail("model_type", "missing (expected one of llama, qwen2, gemma2, ...)");
  check_model_type(r, mt);
  const std::string family = family_of(r, mt);
  if (mt == "gpt_bigcode") {
    ModelSpec m = gpt_bigcode_model(r, where);
    const StoredQuant sq = stored_quant_of(cfg_in);
    m.stored_quant = sq.preset;
    m.stored_quant_unread = sanitize(sq.unread, 128);
    return m;
  }
  ModelSpec m;
  const StoredQuant sq = stored_quant_of(cfg_in);
  m.stored_quant = sq.preset;
  m.stored_quant_unread = sanitize(sq.unread, 128);
  m.n_layer = r.u32("num_hidden_layers");
  m.n_embd = r.u32("hidden_size");
  m.n_head = r.u32("num_attention_heads");
  m.n_vocab = r.u32("vocab_size");
  m.n_ctx_train = r.u32_any({"max_position_embeddings", "seq_length"}, false, 0);
  m.n_head_kv = r.u32_any({"num_key_value_heads", "num_kv_heads"}, false, m.n_head);
  const uint32_t head_dim =
      r.u32_any({"head_dim", "attention_head_dim"}, false, m.n_head ? m.n_embd / m.n_head : 0);
  m.n_embd_head_k = m.n_embd_head_v = head_dim;
  m.tied_embeddings = r.boolean("tie_word_embeddings", false);

  Family reader(r, m, mt, family);
  for (const FamilyRow& row : kFamilies)
    if (family == row.family) {
      (reader.*row.read)();
      break;
    }
  // The expert FFN width is the expert's own; n_ff stays the dense width.
  for (const auto& p : validate(m))
    throw InputError(where + (path.empty() ? "" : ": " + path) + ": " + in_config_keys(r, p));
  // MLA models give their head sizes (qk_nope + qk_rope, v_head_dim): hidden_size need not divide.
  if (m.n_embd % m.n_head != 0 && !r.has("head_dim") && !m.is_mla())
    r.fail("num_attention_heads", "hidden_size " + std::to_string(m.n_embd) +
                                      " is not divisible by " + std::to_string(m.n_head) +
                                      " heads and no head_dim is given");
  return m;
}

}  // namespace

ModelSpec model_from_hf_config(const json& cfg_in, const std::string& where) {
  ModelSpec m = text_model_from_hf_config(cfg_in, where);
  const std::string root_type = cfg_in.contains("model_type") && cfg_in["model_type"].is_string()
                                    ? cfg_in["model_type"].get<std::string>()
                                    : std::string();
  m.vision = read_vision(cfg_in, root_type, m.n_embd, where);
  // Qwen3VLMoeForConditionalGeneration holds lm_head at the top level, tied by the top-level
  // tie_word_embeddings (Qwen3-VL-30B-A3B: false there, true in text_config).
  if (root_type == "qwen3_vl_moe" && cfg_in.contains("tie_word_embeddings") &&
      cfg_in["tie_word_embeddings"].is_boolean())
    m.tied_embeddings = cfg_in["tie_word_embeddings"].get<bool>();
  return m;
}

ModelSpec parse_hf_config(std::string_view text, const std::string& where) {
  // A number too large for a double ("1e432", found by fuzzing), nesting deeper than 64 levels and
  // a repeated key are errors too.
  json j;
  try {
    j = io::parse_json(text, where);
  } catch (const json::parse_error& e) {
    throw InputError(where + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {
    throw InputError(where + ": not valid JSON (" + json_reason(e) + ")");
  }
  ModelSpec m = model_from_hf_config(j, where);
  m.name = sanitize(where, 256);
  // The name is shown in tables and messages: escape what a terminal would run.
  if (j.is_object() && j.contains("_name_or_path") && j["_name_or_path"].is_string() &&
      !j["_name_or_path"].get<std::string>().empty())
    m.name = sanitize(j["_name_or_path"].get<std::string>());
  return m;
}

ModelSpec read_hf_config_file(const std::string& path) {
  return parse_hf_config(io::read_text_input(path, io::kConfigJsonInput), path);
}

}  // namespace llmsize
