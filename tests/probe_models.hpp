// The models of tests/data/llamacpp_measured_2026.json (llama.cpp run on shape-only GGUFs of
// their published configs, bench/llamacpp_probe) as llmsize describes them: a catalog entry or a
// copied config.json, checked against the hyper-parameters the probe wrote into the GGUF. Shared
// by the tests and the accuracy benchmark.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "llmsize/io/hf_config.hpp"
#include "llmsize/memory/compute_buffer.hpp"
#include "llmsize/memory/kv_cache.hpp"
#include "llmsize/memory/recurrent_state.hpp"
#include "test_util.hpp"

namespace llmsize::test {

// The spec for a probe model id, or nullopt when llmsize has no description of it.
inline std::optional<ModelSpec> probe_model(const nlohmann::json& entry) {
  const std::string id = entry.at("id");
  const std::string fixtures = std::string(LLMSIZE_TEST_DATA) + "/../fixtures/configs_2026/";
  auto from_catalog = [&](const std::string& cid) -> std::optional<ModelSpec> {
    if (const auto* m = catalog().find_model(cid)) return m->spec;
    return std::nullopt;
  };
  std::optional<ModelSpec> m;
  if (id == "glm-4.7-flash")
    m = read_hf_config_file(fixtures + "glm-4.7-flash.json");
  else if (id == "llama-4-scout-17b-16e")
    m = from_catalog("llama-4-scout");
  else if (id == "qwen3.5-35b-a3b-mtp")  // the same trunk; llama.cpp skips the MTP block
    m = from_catalog("qwen3.5-35b-a3b");
  else if (id == "kimi-k2-32e") {
    // Kimi-K2 with its 384 experts cut to the 32 the probe wrote (expert_count), to fit a sparse
    // file on the probe machine; KV and compute do not depend on the expert count beyond the
    // router's argsort.
    m = from_catalog("kimi-k2");
    if (m) m->n_expert = entry.at("hparams_written").at("deepseek2.expert_count").get<uint32_t>();
  } else {
    m = from_catalog(id);
  }
  return m;
}

// The hyper-parameters of the GGUF the probe wrote that llmsize's spec must share, as
// "key: written vs spec" for the first that differs, or empty.
inline std::string probe_mismatch(const nlohmann::json& entry, const ModelSpec& m) {
  const auto& h = entry.at("hparams_written");
  const std::string a = entry.at("arch");
  auto check = [&](const std::string& key, uint64_t have) -> std::string {
    const auto it = h.find(a + "." + key);
    if (it == h.end() || !it->is_number_unsigned()) return {};
    const uint64_t want = it->get<uint64_t>();
    return want == have ? std::string{}
                        : key + ": " + std::to_string(want) + " written vs " + std::to_string(have);
  };
  // MTP / next-n blocks the file declares beyond the trunk (block_count includes them).
  const auto nextn = h.find(a + ".nextn_predict_layers");
  const uint64_t n_nextn = nextn == h.end() ? 0 : nextn->get<uint64_t>();
  for (const auto& r :
       {check("block_count", m.n_layer + n_nextn), check("embedding_length", m.n_embd),
        check("attention.head_count", m.n_head)})
    if (!r.empty()) return r;
  // The vocabulary may differ by the padding rows of the embedding (Gemma 3: 262208 in its
  // config.json, 262144 tokens): 0.1% of the logits at most.
  const auto v = h.find(a + ".vocab_size");
  if (v != h.end() && std::abs(v->get<double>() / m.n_vocab - 1) > 0.001)
    return "vocab_size: " + v->dump() + " written vs " + std::to_string(m.n_vocab);
  return {};
}

// One successful probe run, and llmsize's numbers for its settings. The probe's n_ctx is the
// total over n_seq_max streams (kv_unified = false), each of n_ctx / n_seq cells.
struct ProbeRun {
  std::string label;
  uint32_t n_ctx = 0, n_seq = 0;
  bool flash_attn = false;
  TensorType kv_type = TensorType::F16;
  double kv_mib = 0, rs_mib = 0, compute_mib = 0;  // measured
  KvCache kv;
  RecurrentState rs;
  ComputeBuffer compute;
};

// llmsize's numbers for one probe setting (the measured fields left at 0).
inline ProbeRun probe_setting(const ModelSpec& m, const std::string& id, uint32_t n_ctx,
                              uint32_t n_seq, uint32_t n_ubatch, bool flash_attn,
                              TensorType kv_type) {
  ProbeRun p;
  p.n_ctx = n_ctx;
  p.n_seq = n_seq;
  p.flash_attn = flash_attn;
  p.kv_type = kv_type;
  p.label = id + " n_ctx " + std::to_string(p.n_ctx) + " x" + std::to_string(p.n_seq) + " " +
            (p.kv_type == TensorType::Q8_0 ? "q8_0" : "f16") + " fa " +
            (p.flash_attn ? "on" : "off");
  KvCacheConfig c;
  c.n_ctx = p.n_ctx / p.n_seq;
  c.n_seq = p.n_seq;
  c.n_ubatch = n_ubatch;
  c.type_k = c.type_v = p.kv_type;
  c.flash_attn = p.flash_attn;
  p.kv = kv_cache(m, c);
  p.rs = recurrent_state(m, p.n_seq);
  // sched_reserve: n_tokens = min(n_ctx, n_ubatch) for the whole context (all streams).
  p.compute = compute_buffer(
      m, p.kv, ComputeConfig{std::min(n_ubatch, p.n_ctx), p.n_seq, p.flash_attn, p.kv_type});
  return p;
}

inline ProbeRun probe_run(const ModelSpec& m, const std::string& id, const nlohmann::json& r) {
  const auto& s = r.at("settings");
  ProbeRun p =
      probe_setting(m, id, s.at("n_ctx"), s.at("n_seq_max"), s.at("n_ubatch"), s.at("flash_attn"),
                    s.at("type_k") == "q8_0" ? TensorType::Q8_0 : TensorType::F16);
  p.kv_mib = r.at("kv_mib");
  p.rs_mib = r.at("rs_mib");
  p.compute_mib = r.at("compute_mib");
  return p;
}

// A compute_grid row [id, n_ctx, n_seq, kv type, "on"/"off", n_ubatch, measured compute MiB]:
// llmsize's numbers for it, the measured compute buffer in compute_mib, the ubatch in the label.
inline ProbeRun probe_grid_run(const ModelSpec& m, const nlohmann::json& g) {
  const uint32_t n_ubatch = g[5];
  ProbeRun p = probe_setting(m, g[0], g[1], g[2], n_ubatch, g[4] == "on",
                             g[3] == "q8_0" ? TensorType::Q8_0 : TensorType::F16);
  p.label += " ubatch " + std::to_string(n_ubatch);
  p.compute_mib = g[6];
  return p;
}

}  // namespace llmsize::test
