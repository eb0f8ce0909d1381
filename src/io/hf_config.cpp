#include "llmsize/io/hf_config.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "llmsize/io/error.hpp"

namespace llmsize {
namespace {

using json = nlohmann::json;

class Reader {
 public:
  Reader(const json& j, std::string where, std::string path)
      : j_(j), where_(std::move(where)), path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw InputError(where_ + ": " + path_ + "/" + key + ": " + what);
  }
  bool has(const std::string& key) const { return j_.contains(key) && !j_.at(key).is_null(); }

  // A positive integer field (or 0 when allowed), at most 2^31.
  uint32_t u32(const std::string& key, bool required = true, uint32_t dflt = 0) const {
    if (!has(key)) {
      if (required) fail(key, "missing (expected a positive integer)");
      return dflt;
    }
    const json& v = j_.at(key);
    if (!v.is_number_integer() &&
        !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
      fail(key, "expected an integer, got " + v.dump());
    const double d = v.get<double>();
    if (d < 0 || d > 2147483647.0) fail(key, "out of range: " + v.dump());
    return static_cast<uint32_t>(d);
  }
  bool boolean(const std::string& key, bool dflt) const {
    if (!has(key)) return dflt;
    const json& v = j_.at(key);
    if (!v.is_boolean()) fail(key, "expected true or false, got " + v.dump());
    return v.get<bool>();
  }
  std::string str(const std::string& key) const {
    if (!has(key)) fail(key, "missing (expected a string)");
    const json& v = j_.at(key);
    if (!v.is_string()) fail(key, "expected a string, got " + v.dump());
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
  const std::string w = e.what();
  const auto p = w.find("] ");
  return p == std::string::npos ? w : w.substr(p + 2);
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
    r.fail("model_type",
           "unsupported \"" + mt + "\"" + did_you_mean(mt, kTypes) + "; supported: " + list);
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
    for (const auto& p : validate(m)) throw InputError(where + ": " + p);
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
    m.n_ff_shexp = m.n_ff_exp * m.n_expert_shared;
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
    throw InputError(where + (path.empty() ? "" : ": " + path) + ": " + p);
  if (m.n_embd % m.n_head != 0 && !r.has("head_dim"))
    r.fail("num_attention_heads", "hidden_size " + std::to_string(m.n_embd) +
                                      " is not divisible by " + std::to_string(m.n_head) +
                                      " heads and no head_dim is given");
  return m;
}

ModelSpec parse_hf_config(std::string_view text, const std::string& where) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    throw InputError(where + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {
    // out_of_range 406: a number too large for a double ("1e432"); found by fuzzing.
    throw InputError(where + ": not valid JSON (" + json_reason(e) + ")");
  }
  ModelSpec m = model_from_hf_config(j, where);
  m.name = where;
  if (j.is_object() && j.contains("_name_or_path") && j["_name_or_path"].is_string() &&
      !j["_name_or_path"].get<std::string>().empty())
    m.name = j["_name_or_path"].get<std::string>();
  return m;
}

ModelSpec read_hf_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open");
  in.seekg(0, std::ios::end);
  const auto size = in.tellg();
  // A config.json is a few KB; refuse anything that could not be one.
  if (size > (16 << 20))
    throw InputError(path + ": " + std::to_string(size) + " bytes is too large for a config.json");
  in.seekg(0);
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_hf_config(ss.str(), path);
}

}  // namespace llmsize
