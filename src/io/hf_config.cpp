#include "llmsize/io/hf_config.hpp"

#include <cctype>
#include <cmath>

#include "llmsize/checked.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/input.hpp"
#include "llmsize/io/json_input.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize {
namespace {

using json = nlohmann::json;
using io::describe_json;

// Plausible ranges of config.json integers, by key: generous bounds (tens of times the largest
// published model: 126 layers, hidden 25,600, 384 experts, 262,144 vocabulary, 10 M context) that
// stop a hostile file from making llmsize materialise millions of layers or wrap a product. A key
// not listed here may hold up to 2^31 - 1.
struct KeyBound {
  const char* key;
  uint32_t max;
};
constexpr uint32_t kWidth = 1u << 20;      // hidden sizes
constexpr uint32_t kFfn = 1u << 22;        // FFN widths
constexpr uint32_t kHeads = 1u << 16;      // heads, head sizes, ranks
constexpr uint32_t kPositions = 1u << 28;  // contexts and windows
const KeyBound kKeyBounds[] = {
    {"num_hidden_layers", 4096},
    {"n_layer", 4096},
    {"hidden_size", kWidth},
    {"n_embd", kWidth},
    {"num_attention_heads", kHeads},
    {"n_head", kHeads},
    {"num_key_value_heads", kHeads},
    {"num_kv_heads", kHeads},
    {"head_dim", kHeads},
    {"vocab_size", 1u << 24},
    {"max_position_embeddings", kPositions},
    {"n_positions", kPositions},
    {"seq_length", kPositions},
    {"intermediate_size", kFfn},
    {"n_inner", kFfn},
    {"ffn_hidden_size", kFfn},
    {"moe_intermediate_size", kFfn},
    {"shared_expert_intermediate_size", kFfn},
    {"num_local_experts", kHeads},
    {"num_experts", kHeads},
    {"n_routed_experts", kHeads},
    {"num_experts_per_tok", kHeads},
    {"n_shared_experts", 1024},
    {"first_k_dense_replace", 4096},
    {"q_lora_rank", kHeads},
    {"kv_lora_rank", kHeads},
    {"qk_rope_head_dim", kHeads},
    {"qk_nope_head_dim", kHeads},
    {"v_head_dim", kHeads},
    {"sliding_window", kPositions},
    {"sliding_window_pattern", 4096},
};

uint32_t key_max(const std::string& key) {
  for (const auto& b : kKeyBounds)
    if (key == b.key) return b.max;
  return 2147483647u;
}

// validate() names llama.cpp's fields; a config.json reader names the keys they came from.
const std::pair<const char*, const char*> kFieldKeys[] = {
    {"n_layer_dense_lead", "first_k_dense_replace"},
    {"n_embd_head_k", "head_dim"},
    {"n_embd_head_v", "head_dim"},
    {"n_expert_used", "num_experts_per_tok"},
    {"n_head_kv", "num_key_value_heads"},
    {"n_ff_exp", "moe_intermediate_size"},
    {"n_ctx_train", "max_position_embeddings"},
    {"swa_pattern", "sliding_window_pattern"},
    {"n_expert", "num_local_experts"},
    {"n_layer", "num_hidden_layers"},
    {"n_embd", "hidden_size"},
    {"n_head", "num_attention_heads"},
    {"n_vocab", "vocab_size"},
    {"n_swa", "sliding_window"},
    {"n_rot", "qk_rope_head_dim"},
    {"n_ff", "intermediate_size"},
};

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A validate() problem with each llama.cpp field name replaced by its config key.
std::string in_config_keys(const std::string& problem) {
  std::string r;
  size_t i = 0;
  while (i < problem.size()) {
    if (word_char(problem[i]) && (i == 0 || !word_char(problem[i - 1]))) {
      size_t j = i;
      while (j < problem.size() && word_char(problem[j])) ++j;
      const std::string w = problem.substr(i, j - i);
      const char* key = nullptr;
      for (const auto& [field, k] : kFieldKeys)
        if (w == field) key = k;
      r += key ? key : w;
      i = j;
    } else {
      r += problem[i++];
    }
  }
  return r;
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
    if (!(d >= lo)) fail(key, "out of range: " + describe_json(v));
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
  const std::string& where() const { return where_; }
  const std::string& path() const { return path_; }

 private:
  const json& j_;
  std::string where_, path_;
};

const std::vector<std::string> kTypes = {"llama",       "mistral",     "mixtral",   "qwen2",
                                         "qwen2_moe",   "qwen3",       "qwen3_moe", "gemma2",
                                         "gemma3",      "gemma3_text", "phi3",      "deepseek_v2",
                                         "deepseek_v3", "cohere",      "falcon",    "gpt_bigcode"};

}  // namespace

const std::vector<std::string>& supported_model_types() {
  return kTypes;
}

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

ModelSpec model_from_hf_config(const json& cfg_in, const std::string& where) {
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
  if (std::find(kTypes.begin(), kTypes.end(), mt) == kTypes.end()) {
    std::string list;
    for (const auto& t : kTypes) list += (list.empty() ? "" : ", ") + t;
    r.fail("model_type", "unsupported " + sanitize_quoted(mt) + did_you_mean(mt, kTypes) +
                             "; supported: " + list);
  }

  ModelSpec m;
  if (mt == "gpt_bigcode") {
    // GPTBigCodeConfig (StarCoder, OctoCoder) uses GPT-2 key names.
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
    for (const auto& p : validate(m)) throw InputError(where + ": " + in_config_keys(p));
    return m;
  }
  m.n_layer = r.u32("num_hidden_layers");
  m.n_embd = r.u32("hidden_size");
  m.n_head = r.u32("num_attention_heads");
  m.n_vocab = r.u32("vocab_size");
  m.n_ctx_train = r.u32_any({"max_position_embeddings", "seq_length"}, false, 0);
  m.n_head_kv = r.u32_any({"num_key_value_heads", "num_kv_heads"}, false, m.n_head);
  const uint32_t head_dim = r.u32("head_dim", false, m.n_head ? m.n_embd / m.n_head : 0);
  m.n_embd_head_k = m.n_embd_head_v = head_dim;
  m.tied_embeddings = r.boolean("tie_word_embeddings", false);

  if (mt == "llama" || mt == "mistral" || mt == "mixtral") {
    m.arch = Arch::llama;
    m.n_ff = r.u32("intermediate_size");
    const uint32_t ne = r.u32_any({"num_local_experts", "num_experts"}, mt == "mixtral", 0);
    if (ne > 1) {
      m.n_expert = ne;
      m.n_expert_used = r.u32("num_experts_per_tok");
      m.n_ff_exp = m.n_ff;
    }
    // Mistral-7B-v0.1 used a 4096 sliding window on every layer; later configs set it to null.
    if (mt == "mistral" && r.has("sliding_window")) {
      m.n_swa = r.u32("sliding_window");
      m.swa_pattern = 1;
    }
  } else if (mt == "qwen2" || mt == "qwen2_moe") {
    m.arch = mt == "qwen2" ? Arch::qwen2 : Arch::qwen2moe;
    m.qkv_bias = true;
    m.n_ff = r.u32("intermediate_size", mt == "qwen2");
    if (mt == "qwen2_moe") {
      m.n_expert = r.u32("num_experts");
      m.n_expert_used = r.u32("num_experts_per_tok");
      m.n_ff_exp = r.u32("moe_intermediate_size");
      m.n_ff_shexp = r.u32("shared_expert_intermediate_size", false, 0);
      m.n_expert_shared = m.n_ff_shexp ? 1 : 0;
    }
    // Qwen2.5 configs carry sliding_window but use_sliding_window: false.
    if (r.boolean("use_sliding_window", false)) {
      m.n_swa = r.u32("sliding_window");
      m.swa_pattern = 1;
    }
  } else if (mt == "qwen3" || mt == "qwen3_moe") {
    m.arch = mt == "qwen3" ? Arch::qwen3 : Arch::qwen3moe;
    m.n_ff = r.u32("intermediate_size", mt == "qwen3");
    if (mt == "qwen3_moe") {
      m.n_expert = r.u32("num_experts");
      m.n_expert_used = r.u32("num_experts_per_tok");
      m.n_ff_exp = r.u32("moe_intermediate_size");
    }
  } else if (mt == "gemma2" || mt == "gemma3" || mt == "gemma3_text") {
    m.arch = mt == "gemma2" ? Arch::gemma2 : Arch::gemma3;
    m.n_ff = r.u32("intermediate_size");
    m.tied_embeddings = r.boolean("tie_word_embeddings", true);
    m.n_swa = r.u32("sliding_window", false, m.arch == Arch::gemma2 ? 4096 : 0);
    // llama.cpp: gemma2 set_swa_pattern(2); gemma3 set_swa_pattern(6).
    m.swa_pattern = r.u32("sliding_window_pattern", false, m.arch == Arch::gemma2 ? 2 : 6);
  } else if (mt == "phi3") {
    m.arch = Arch::phi3;
    m.n_ff = r.u32("intermediate_size");
  } else if (mt == "deepseek_v2" || mt == "deepseek_v3") {
    m.arch = Arch::deepseek2;
    m.n_ff = r.u32("intermediate_size");
    m.n_expert = r.u32_any({"n_routed_experts", "num_experts"}, true);
    m.n_expert_used = r.u32("num_experts_per_tok");
    m.n_ff_exp = r.u32("moe_intermediate_size");
    m.n_expert_shared = r.u32("n_shared_experts", false, 0);
    m.n_ff_shexp = checked_u32(uint64_t{m.n_ff_exp} * m.n_expert_shared,
                               "moe_intermediate_size x n_shared_experts");
    m.n_layer_dense_lead = r.u32("first_k_dense_replace", false, 0);
    m.q_lora_rank = r.u32("q_lora_rank", false, 0);
    m.kv_lora_rank = r.u32("kv_lora_rank");
    m.n_rot = r.u32("qk_rope_head_dim");
    m.n_embd_head_k = r.u32("qk_nope_head_dim") + m.n_rot;
    m.n_embd_head_v = r.u32("v_head_dim");
  } else if (mt == "cohere") {
    m.arch = Arch::command_r;
    m.n_ff = r.u32("intermediate_size");
    m.tied_embeddings = r.boolean("tie_word_embeddings", true);
  } else if (mt == "falcon") {
    m.arch = Arch::falcon;
    m.n_ff = r.u32("ffn_hidden_size", false, 4 * m.n_embd);
    m.tied_embeddings = r.boolean("tie_word_embeddings", true);
    if (!r.boolean("new_decoder_architecture", false))
      m.n_head_kv = r.boolean("multi_query", true) ? 1 : m.n_head;
  }
  // The expert FFN width is the expert's own; n_ff stays the dense width.
  for (const auto& p : validate(m))
    throw InputError(where + (path.empty() ? "" : ": " + path) + ": " + in_config_keys(p));
  if (m.n_embd % m.n_head != 0 && !r.has("head_dim"))
    r.fail("num_attention_heads", "hidden_size " + std::to_string(m.n_embd) +
                                      " is not divisible by " + std::to_string(m.n_head) +
                                      " heads and no head_dim is given");
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
