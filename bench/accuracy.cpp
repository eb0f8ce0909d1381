// The accuracy benchmark: llmsize's predictions against every public measurement shipped in
// tests/data (GGUF file sizes, llama.cpp KV and compute buffers, decode speeds), with the rules of
// thumb other calculators use on the same rows. `--check` compares the errors with
// bench/accuracy_thresholds.json and exits 1 when one grew: accuracy can only improve.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "llmsize/io/catalog.hpp"
#include "llmsize/memory/compute_buffer.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/serving/serving.hpp"
#include "llmsize/serving/speculative.hpp"
#include "llmsize/serving/speed.hpp"
#include "llmsize/units.hpp"
#include "measured_cases.hpp"
#include "probe_models.hpp"
#include "serving_cases.hpp"

using json = nlohmann::json;
using namespace llmsize;
using test::measured_gpu_id;
using test::measured_model_id;

namespace {

json load(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "accuracy: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

struct Row {
  std::string label;
  double predicted, measured;
  double err() const { return std::abs(predicted - measured) / measured; }
};

struct Category {
  std::string name;
  std::vector<Row> rows;
  std::map<std::string, std::vector<Row>> peers;  // rule of thumb -> same rows
};

struct Stats {
  size_t n = 0;
  double median = 0, p90 = 0, max = 0;
  std::string worst;
};

Stats stats(const std::vector<Row>& rows) {
  Stats s;
  std::vector<double> e;
  for (const auto& r : rows) e.push_back(r.err());
  s.n = e.size();
  if (e.empty()) return s;
  std::vector<double> sorted = e;
  std::sort(sorted.begin(), sorted.end());
  s.median = sorted.size() % 2 ? sorted[sorted.size() / 2]
                               : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  s.p90 = sorted[std::min(
      sorted.size() - 1,
      static_cast<size_t>(std::ceil(0.9 * static_cast<double>(sorted.size()))) - 1)];
  s.max = sorted.back();
  const auto it = std::max_element(rows.begin(), rows.end(),
                                   [](const Row& a, const Row& b) { return a.err() < b.err(); });
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s: predicted %.4g, measured %.4g", it->label.c_str(),
                it->predicted, it->measured);
  s.worst = buf;
  return s;
}

// Nominal bits other calculators assume for a file type ("Q4" = 4 bits).
double nominal_bits(const std::string& q) {
  if (q.rfind("f16", 0) == 0 || q.rfind("bf16", 0) == 0) return 16;
  if (q.rfind("f32", 0) == 0) return 32;
  for (char c : q)
    if (c >= '1' && c <= '8') return c - '0';
  return 16;
}

double unit_bytes(const std::string& unit) {
  if (unit == "GiB" || unit.rfind("GB as printed (matches llama.cpp GiB", 0) == 0)
    return static_cast<double>(kGiB);
  if (unit == "bytes") return 1;
  return 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  bool check = false;
  std::string rows_of;  // --rows PREFIX: every row of the categories named so, predicted / measured
  std::string data = LLMSIZE_TEST_DATA, thresholds_path = LLMSIZE_THRESHOLDS;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check")
      check = true;
    else if (a == "--data" && i + 1 < argc)
      data = argv[++i];
    else if (a == "--rows" && i + 1 < argc)
      rows_of = argv[++i];
    else {
      std::fprintf(stderr, "usage: llmsize_accuracy [--check] [--data DIR] [--rows PREFIX]\n");
      return 2;
    }
  }
  const Catalog cat = Catalog::builtin();
  std::vector<Category> cats;
  std::vector<std::string> excluded;

  // 1. Weights from architecture + preset vs published GGUF sizes.
  Category w{"weights (GGUF file size)", {}, {}};
  Category w26{"weights (GGUF file size, 2025-2026 models)", {}, {}};  // the rows naming catalog_id
  const json sizes = load(data + "/gguf_sizes.json");
  for (const auto& r : sizes["rows"]) {
    const std::string model = r["model"], unit = r["unit"], q = r["quant"];
    // 2025-2026 rows name their catalog model; the older ones are matched by name.
    const std::string id =
        r.contains("catalog_id") ? r["catalog_id"].get<std::string>() : measured_model_id(model);
    const auto* preset = find_quant_preset(q);
    std::string label = model + " " + q + " (" + r["source"].get<std::string>().substr(0, 40) + ")";
    if (id.empty() || !preset) {
      excluded.push_back(label + ": no catalog architecture or llama.cpp file type (e.g. Q4_K_L)");
      continue;
    }
    if (model.find("GGML v3") != std::string::npos) {
      excluded.push_back(label + ": GGML v3 file, not GGUF (older quantization rules)");
      continue;
    }
    if (model.rfind("LLaMA/Llama-2 7B", 0) == 0 && q == "F16") {
      excluded.push_back(
          label +
          ": inconsistent unit: the same table's Q4_0 (3.82) is decimal GB, but 12.63 is neither "
          "the "
          "GB (13.48) nor the GiB (12.55, llama.cpp PR 3084) of a LLaMA-7B F16 file");
      continue;
    }
    if (unit.find("Size/GB") != std::string::npos) {
      excluded.push_back(
          label + ": 'Size/GB' column rounded up, 1-4% above the exact listing of the same files");
      continue;
    }
    const double measured = r["size_as_printed"].get<double>() * unit_bytes(unit);
    ModelSpec m = cat.find_model(id)->spec;
    // A file converted before llama.cpp exported the MTP layers holds none (gguf_nextn_layers 0).
    if (r.contains("gguf_nextn_layers")) m.n_layer_nextn = r["gguf_nextn_layers"].get<uint32_t>();
    const auto wts = compute_weights(m, *preset);
    // The text GGUF only: a vision tower is its own mmproj file.
    w.rows.push_back({label, static_cast<double>(wts.bytes - wts.vision_bytes), measured});
    if (r.contains("catalog_id")) w26.rows.push_back(w.rows.back());
    const double params = static_cast<double>(wts.params), bits = nominal_bits(preset->id);
    w.peers["params x bits / 8 x 1.2"].push_back({label, params * bits / 8 * 1.2, measured});
    w.peers["params x bits / 8 (Q4 = 0.5 B/param)"].push_back({label, params * bits / 8, measured});
  }
  cats.push_back(w);
  cats.push_back(w26);

  // 2. KV cache and 3. compute buffers vs llama.cpp logs.
  Category kv{"KV cache (llama.cpp log)", {}, {}},
      cb{"compute buffer (llama.cpp CUDA log)", {}, {}},
      mb{"GPU model buffer (llama.cpp log)", {}, {}};
  const json memory = load(data + "/measured_memory.json");
  for (const auto& rec : memory["records"]) {
    const std::string id = rec["id"];
    const auto& meas = rec["measurements_mib"];
    const auto& m = cat.find_model("llama-2-7b")->spec;
    KvCacheConfig c;
    c.n_ctx = rec["n_ctx"].get<uint32_t>();
    const auto kvc = kv_cache(m, c);
    double logged = 0;
    if (meas.contains("kv_buffer")) {
      if (meas["kv_buffer"].is_object()) {
        for (const auto& [dev, v] : meas["kv_buffer"].items())
          if (dev == "CUDA0" || dev == "CPU") logged = v.get<double>();
      } else {
        logged = meas["kv_buffer"].get<double>();
      }
    }
    if (logged > 0) {
      kv.rows.push_back({id, static_cast<double>(kvc.total_bytes()) / kMiB, logged});
      // Peers that ignore GQA and padding still get this MHA model right; a 2 x n_layer x n_embd x
      // ctx rule:
      kv.peers["2 x n_layer x n_embd x ctx x 2 B"].push_back(
          {id, 2.0 * m.n_layer * m.n_embd * c.n_ctx * 2 / kMiB, logged});
    }
    // Weights on the GPU: llama.cpp's "CUDA0 model buffer" (token_embd stays in the CPU buffer).
    if (meas.contains("model_buffer") && meas["model_buffer"].is_object() &&
        meas["model_buffer"].contains("CUDA0") && rec.contains("quant")) {
      std::string q = rec["quant"].get<std::string>();
      q = q.substr(0, q.find(' '));
      if (const auto* preset = find_quant_preset(q)) {
        const auto wts = compute_weights(m, *preset);
        const double logged_mb = meas["model_buffer"]["CUDA0"].get<double>();
        mb.rows.push_back({id, static_cast<double>(wts.vram_bytes) / kMiB, logged_mb});
        mb.peers["params x bits / 8"].push_back(
            {id, static_cast<double>(wts.params) * nominal_bits(preset->id) / 8 / kMiB, logged_mb});
      }
    }
    if (meas.contains("compute_buffer") && meas["compute_buffer"].is_object() &&
        meas["compute_buffer"].contains("CUDA0")) {
      const auto buf = compute_buffer(m, pad_to(c.n_ctx, kKvPadding), 512, false);
      cb.rows.push_back({id, static_cast<double>(buf.bytes()) / kMiB,
                         meas["compute_buffer"]["CUDA0"].get<double>()});
    }
  }
  cats.push_back(kv);
  cats.push_back(mb);
  cats.push_back(cb);

  // 3b. The 2025-2026 architectures: every run llama.cpp itself made on shape-only GGUFs of them
  // (tests/data/llamacpp_measured_2026.json, the CPU build of llama.cpp de3ff815), KV cache,
  // recurrent state and compute buffer apart.
  Category pkv{"KV cache (llama.cpp probe, 2026 architectures)", {}, {}},
      prs{"recurrent state (llama.cpp probe, 2026 architectures)", {}, {}},
      pcb{"compute buffer (llama.cpp CPU probe, 2026 architectures)", {}, {}};
  const json probe = load(data + "/llamacpp_measured_2026.json");
  for (const auto& entry : probe["models"]) {
    const std::string id = entry["id"];
    const auto m = test::probe_model(entry);
    if (!m || !test::probe_mismatch(entry, *m).empty()) {
      excluded.push_back(id + " (llama.cpp probe): no llmsize description of this shape");
      continue;
    }
    for (const auto& r : entry["runs"]) {
      if (!r["ok"].get<bool>()) continue;
      const auto p = test::probe_run(*m, id, r);
      // llama.cpp prints MiB with 2 decimals: KV and state are compared as printed.
      const auto printed = [](uint64_t b) {
        return std::round(static_cast<double>(b) / kMiB * 100) / 100;
      };
      if (p.kv_mib > 0) {
        pkv.rows.push_back({p.label, printed(p.kv.total_bytes()), p.kv_mib});
        // Peer: full-attention KV of every layer (no SWA, no recurrent layers, no MLA latent).
        pkv.peers["2 x n_layer x n_head_kv x head_dim x ctx x bytes"].push_back(
            {p.label,
             2.0 * m->n_layer * m->n_head_kv * m->n_embd_head_k * p.n_ctx *
                 (p.kv_type == TensorType::Q8_0 ? 34.0 / 32 : 2) / kMiB,
             p.kv_mib});
      }
      if (p.rs_mib > 0) prs.rows.push_back({p.label, printed(p.rs.total_bytes()), p.rs_mib});
      pcb.rows.push_back({p.label, static_cast<double>(p.compute.bytes()) / kMiB, p.compute_mib});
      pcb.peers["legacy formula (n_kv = full cells)"].push_back(
          {p.label,
           static_cast<double>(
               compute_buffer(*m, p.kv.cells_full, std::min(512u, p.n_ctx), p.flash_attn).bytes()) /
               kMiB,
           p.compute_mib});
    }
  }
  cats.push_back(pkv);
  cats.push_back(prs);
  cats.push_back(pcb);

  // 3b'. The same build's compute buffers reserved without allocating (compute_grid: contexts
  // 4096 to 131072, 1 and 4 sequences, f16 / q8_0 KV, flash attention on / off, n_ubatch 512 and
  // 2048, and 1024 for the hybrids), from bench/llamacpp_probe/graph_reserve.cpp.
  Category pgrid{"compute buffer (llama.cpp CPU reserve grid, n_ubatch 512-2048)", {}, {}};
  std::map<std::string, std::optional<ModelSpec>> grid_models;
  for (const auto& entry : probe["models"]) {
    auto m = test::probe_model(entry);
    if (m && !test::probe_mismatch(entry, *m).empty()) m.reset();
    grid_models[entry["id"].get<std::string>()] = m;
  }
  // One category from a reserve grid of the data file ([id, n_ctx, n_seq, kv, fa, n_ubatch, MiB]).
  const auto grid_rows = [&](const char* key, Category& c) {
    for (const auto& g : probe[key]) {
      const auto it = grid_models.find(g[0].get<std::string>());
      if (it == grid_models.end() || !it->second) continue;
      const test::ProbeRun p = test::probe_grid_run(*it->second, g);
      c.rows.push_back({p.label, static_cast<double>(p.compute.bytes()) / kMiB, p.compute_mib});
    }
  };
  grid_rows("compute_grid", pgrid);
  cats.push_back(pgrid);
  // 3b''. The same tool and grid at n_ubatch 4096 (gpt-oss-20b, the Mamba2, delta-net and
  // short-conv hybrids); for LFM2-1.2B, n_tokens = n_embd_r at 1 sequence changes ggml-alloc's
  // layout (src/memory/compute_buffer.cpp, output_mask_hole).
  Category pgrid4k{"compute buffer (llama.cpp CPU reserve grid, n_ubatch 4096)", {}, {}};
  grid_rows("compute_grid_ubatch_4096", pgrid4k);
  cats.push_back(pgrid4k);

  // 3c. Public llama.cpp logs of 2025-2026 models (tests/data/measured_memory_2026.json): the
  // recurrent state of a Qwen3.6-27B-shaped delta-net hybrid at 3 sequences (PR 23792) and of
  // Qwen3.5-9B at 1 sequence (llama-cpp-python issue 78).
  Category pub{"recurrent state (public llama.cpp logs, 2026)", {}, {}};
  const json pub26 = load(data + "/measured_memory_2026.json");
  for (const auto& rec : pub26["records"]) {
    const auto& meas = rec["measurements_mib"];
    if (!meas.contains("rs_total") || rec["n_seq"].is_null()) continue;
    // The record's catalog model; PR 23792's unnamed model has the Qwen3.6-27B shape.
    const auto& m = cat.find_model(rec.contains("catalog_id") ? rec["catalog_id"].get<std::string>()
                                                              : std::string("qwen3.6-27b"))
                        ->spec;
    const auto rs = recurrent_state(m, rec["n_seq"].get<uint32_t>());
    pub.rows.push_back(
        {rec["id"].get<std::string>() + " (" + rec["source"].get<std::string>() + ")",
         std::round(static_cast<double>(rs.total_bytes()) / kMiB * 100) / 100,
         meas["rs_total"].get<double>()});
  }
  cats.push_back(pub);

  // 3d. The parameter count llama.cpp prints for a 2025-2026 GGUF (print_info: model params, 2
  // decimals in B), against llmsize's tensors of the text file (no vision tower: a separate
  // mmproj file; no MTP layer where the converter drops it or the file predates its export).
  Category prm{"parameters (llama.cpp print_info, public logs, 2026)", {}, {}};
  for (const auto& rec : pub26["records"]) {
    if (!rec.contains("model_params_b") || !rec.contains("catalog_id")) continue;
    ModelSpec m = cat.find_model(rec["catalog_id"].get<std::string>())->spec;
    if (rec.contains("gguf_nextn_layers"))
      m.n_layer_nextn = rec["gguf_nextn_layers"].get<uint32_t>();
    const auto wts = compute_weights(m, *find_quant_preset("f16"));
    const double in_file =
        static_cast<double>(wts.params - wts.params_not_in_file - wts.vision_params);
    prm.rows.push_back(
        {rec["id"].get<std::string>() + " (" + rec["source"].get<std::string>() + ")",
         std::round(in_file / 1e7) / 100, rec["model_params_b"].get<double>()});
  }
  cats.push_back(prm);

  // 4. Decode speed vs llama.cpp measurements.
  Category sp{"decode speed (llama.cpp tg)", {}, {}};
  const json speeds = load(data + "/measured_speed.json");
  for (const auto& r : speeds["rows"]) {
    const std::string test = r["test"];
    if (test.rfind("tg", 0) != 0 || r["gpu"].is_null()) continue;
    const std::string label = r["gpu"].get<std::string>() + " " + r["model"].get<std::string>() +
                              " " + r["quant"].get<std::string>() + " x" +
                              std::to_string(r["n_gpus"].get<int>());
    const auto sc = test::speed_case(cat, r);
    if (!sc) {
      excluded.push_back(label + ": GPU or model not in the catalog");
      continue;
    }
    const double measured = r["tokens_per_s"].get<double>();
    sp.rows.push_back({label, sc->predict().decode_tokens_per_s, measured});
    sp.peers["bandwidth / file size"].push_back(
        {label, sc->gpu->bandwidth_gb_per_s * 1e9 / static_cast<double>(sc->estimate.weights.bytes),
         measured});
  }
  cats.push_back(sp);

  // 4b. Prefill speed (pp512, prompt eval) vs the same tables: no accuracy target, shown for
  // honesty.
  Category pp{"prefill speed (llama.cpp pp)", {}, {}};
  for (const auto& r : speeds["rows"]) {
    const std::string test = r["test"];
    if (test.rfind("pp", 0) != 0) continue;
    const auto sc = test::speed_case(cat, r);
    if (!sc) continue;
    const std::string label = r["gpu"].get<std::string>() + " " + r["model"].get<std::string>() +
                              " " + r["quant"].get<std::string>() + " " + test;
    const double measured = r["tokens_per_s"].get<double>();
    pp.rows.push_back({label, sc->predict().prefill_tokens_per_s, measured});
    pp.peers["dense FP16 TFLOPS / (2 x params)"].push_back(
        {label,
         sc->gpu->fp16_tflops_dense * 1e12 /
             (2.0 * static_cast<double>(sc->estimate.weights.params)),
         measured});
  }
  cats.push_back(pp);

  // 5. Engine profiles: vLLM's KV pool and Ollama's graph against their logs.
  Category vpool{"vLLM KV cache pool (vLLM log)", {}, {}},
      ograph{"Ollama graph (Ollama log)", {}, {}};
  const json engines = load(data + "/engine_measurements.json");
  for (const auto& r : engines["vllm"]) {
    const auto v = test::vllm_case(cat, r);
    vpool.rows.push_back({r["id"].get<std::string>(), v.pool_gib(), v.logged_pool_gib});
    // Peer: "0.9 x memory - weights" ignores activations and the runtime.
    vpool.peers["0.9 x memory - weights"].push_back(
        {r["id"].get<std::string>(),
         (static_cast<double>(v.total_bytes_each) * 0.9 * v.tp -
          static_cast<double>(v.estimate.weights_bytes)) /
             kGiB / v.tp,
         v.logged_pool_gib});
  }
  for (const auto& r : engines["ollama"]) {
    const auto& m = cat.find_model(r["model"].get<std::string>())->spec;
    RunConfig c;
    c.engine = Engine::ollama;
    c.quant = find_quant_preset("q4_0");
    c.flash_attn = false;
    c.kv.n_ctx = r["num_ctx"].get<uint32_t>();
    const auto e = estimate(m, c);
    ograph.rows.push_back({r["id"].get<std::string>(),
                           static_cast<double>(e.compute.bytes()) / kMiB,
                           r["graph_full_mib"].get<double>()});
  }
  cats.push_back(vpool);
  cats.push_back(ograph);

  // 5b. vLLM V1 (2025-26): the serving plan's KV pool per GPU (its profile run at the GPU's batch
  // defaults, non-torch memory) against "Available KV cache memory"; SGLang's K + V sizes.
  Category v1pool{"KV cache pool, serving plan (vLLM V1 and SGLang logs)", {}, {}},
      v1weights{"weights per GPU, serving plan (vLLM V1 and SGLang logs)", {}, {}};
  for (const auto& r : engines["vllm_v1"]) {
    const auto& m = cat.find_model(r["model"].get<std::string>())->spec;
    const auto& g = cat.find_gpu(r["gpu"].get<std::string>())->spec;
    // The checkpoint as published: its stored quantization (gpt-oss MXFP4), else BF16.
    const QuantPreset& q = *find_quant_preset(m.stored_quant.empty() ? "bf16" : m.stored_quant);
    const Engine engine =
        r.value("engine", std::string("vllm")) == "sglang" ? Engine::sglang : Engine::vllm;
    ServingSetup s = serving_setup(m, q, g, engine, KvDtype::bf16, r["tp"].get<uint32_t>(),
                                   r["pp"].get<uint32_t>(), 1, 8);
    s.deployment.limits.memory_fraction = r["gpu_memory_utilization"].get<double>();
    s.deployment.max_model_len = r["max_model_len"].get<uint32_t>();
    const ServingEstimate e = estimate_serving(s.model, s.gpu, s.deployment, Workload());
    const std::string id = r["id"].get<std::string>();
    // "Model loading took" (SGLang: "mem usage") per GPU against the plan's resident weights.
    if (r.contains("weights_gib"))
      v1weights.rows.push_back({id,
                                static_cast<double>(s.model.resident_weight_bytes()) /
                                    (s.deployment.tp * s.deployment.pp) / kGiB,
                                r["weights_gib"].get<double>()});
    if (!r.contains("available_kv_gib")) continue;
    const double logged = r["available_kv_gib"].get<double>();
    v1pool.rows.push_back({id, static_cast<double>(e.kv_pool_bytes_per_gpu) / kGiB, logged});
    v1pool.peers["0.9 x memory - weights"].push_back(
        {id,
         (static_cast<double>(g.memory_bytes) * s.deployment.limits.memory_fraction -
          static_cast<double>(s.model.weight_bytes) / (s.deployment.tp * s.deployment.pp)) /
             kGiB,
         logged});
  }
  cats.push_back(v1pool);
  cats.push_back(v1weights);

  // 6. Serving throughput, one category per engine: the step model (serving.hpp) against
  // published serving benchmarks (tests/data/serving_throughput.json). Peer: the memory
  // roofline alone (B sequences / ((weights + B x KV at the mean context) / bandwidth)), the
  // bandwidth-only rule that ignores compute, prefill and the host.
  const json serving = load(data + "/serving_throughput.json");
  auto roofline = [](const test::ServingCase& c, double users) {
    const auto& m = c.setup.model;
    const auto& d = c.setup.deployment;
    const double ctx = c.workload.isl + c.workload.osl / 2.0;
    const double bytes = static_cast<double>(m.dense_read_bytes) +
                         static_cast<double>(m.expert_bytes) * m.n_expert_used * m.n_layer_moe +
                         users * ctx * static_cast<double>(m.kv_bytes_per_token);
    return users * c.setup.gpu.bandwidth_gb_per_s * 1e9 * d.tp * d.pp / bytes;
  };
  Category trt{"serving throughput (TensorRT-LLM perf-overview)", {}, {}};
  for (const auto& r : serving["rows"]) {
    const auto c = test::serving_case(cat, r);
    if (!c) {
      excluded.push_back(r["id"].get<std::string>() + ": model or GPU not in the catalog");
      continue;
    }
    const auto p = c->predict();
    trt.rows.push_back({c->id, p.output_tokens_per_s.value, c->measured_tokens_per_s});
    trt.peers["memory roofline only"].push_back(
        {c->id, roofline(*c, p.concurrency), c->measured_tokens_per_s});
  }
  cats.push_back(trt);
  Category lcpp{"serving throughput (llama.cpp batched-bench)", {}, {}};
  const ModelSpec gemma = test::data_model(serving, "gemma-3-4b");
  for (const auto& r : serving["llama_cpp_rows"]) {
    const auto c = test::serving_case(cat, r, &gemma);
    if (!c) continue;
    const auto p = c->predict();
    lcpp.rows.push_back({c->id, p.output_tokens_per_s.value, c->measured_tokens_per_s});
    lcpp.peers["memory roofline only"].push_back(
        {c->id, roofline(*c, p.concurrency), c->measured_tokens_per_s});
  }
  cats.push_back(lcpp);
  Category srv{"serving throughput (NIM fixed concurrency)", {}, {}},
      srv_ttft{"serving TTFT (NIM fixed concurrency)", {}, {}},
      srv_itl{"serving ITL (NIM fixed concurrency)", {}, {}};
  for (const auto& r : serving["server_rows"]) {
    const auto c = test::serving_case(cat, r);
    if (!c) continue;
    const auto p = c->predict();
    srv.rows.push_back({c->id, p.output_tokens_per_s.value, c->measured_tokens_per_s});
    srv.peers["memory roofline only"].push_back(
        {c->id, roofline(*c, p.concurrency), c->measured_tokens_per_s});
    srv_ttft.rows.push_back({c->id, p.ttft_s.value * 1e3, r["ttft_ms"].get<double>()});
    srv_itl.rows.push_back({c->id, p.itl_s.value * 1e3, r["itl_ms"].get<double>()});
  }
  cats.push_back(srv);
  cats.push_back(srv_ttft);
  cats.push_back(srv_itl);
  Category vl{"serving speed (vLLM sweep)", {}, {}};
  {
    const auto one = test::serving_case(cat, serving["vllm_rows"][0]);
    const auto eight = test::serving_case(cat, serving["vllm_rows"][1]);
    if (one && eight) {
      const auto p1 = one->predict(), p8 = eight->predict();
      vl.rows.push_back({one->id, p1.per_user_tokens_per_s.value, one->measured_tokens_per_s});
      vl.rows.push_back({eight->id, p8.output_tokens_per_s.value / p1.output_tokens_per_s.value,
                         eight->measured_tokens_per_s});
      vl.peers["memory roofline only"].push_back(
          {one->id, roofline(*one, 1), one->measured_tokens_per_s});
      vl.peers["memory roofline only"].push_back(
          {eight->id, roofline(*eight, 8) / roofline(*one, 1), eight->measured_tokens_per_s});
    }
  }
  cats.push_back(vl);

  // 7. Serving results of 2025-26 (tests/data/serving_2026.json): InferenceMAX sweeps, MLPerf
  // Offline / Server / Interactive, GPUStack bursts, AMD's table, each at its published layout
  // and load. Aggregate output tokens/s, one user's tokens/s and the mean time to first token.
  const json s26 = load(data + "/serving_2026.json");
  std::map<std::string, std::array<std::vector<Row>, 3>> s26_groups;  // aggregate, per user, TTFT
  Category s26_out{"serving 2026: aggregate output tokens/s", {}, {}},
      s26_user{"serving 2026: per-user tokens/s", {}, {}},
      s26_ttft{"serving 2026: mean TTFT", {}, {}};
  for (const auto& r : s26["rows"]) {
    const auto c = test::published_serving(cat, r);
    if (!c) {
      excluded.push_back(
          r["id"].get<std::string>() + ": " +
          r.value("not_expressible", std::string("model or GPU not in the catalog")));
      continue;
    }
    const auto p = c->c.predict();
    const std::string id = c->c.id + " " + r["model"].get<std::string>() + " " +
                           r["engine"].get<std::string>() + " " + r["gpu"].get<std::string>() +
                           " " + c->scenario;
    const double out = p.overloaded ? p.sustainable_requests_per_s * c->c.workload.osl
                                    : p.output_tokens_per_s.value;
    // The groups the error is reported by (#22): engine, vendor and model family.
    const std::string model = r["model"].get<std::string>();
    const std::string groups[] = {
        "engine " + r["engine"].get<std::string>(),
        std::string("vendor ") + to_string(cat.find_gpu(r["gpu"].get<std::string>())->spec.vendor),
        "family " + model.substr(0, model.find('-', model.find('-') + 1))};
    auto add = [&](Category& whole, size_t metric, const Row& row) {
      whole.rows.push_back(row);
      for (const auto& g : groups) s26_groups[g][metric].push_back(row);
    };
    add(s26_out, 0, {id, out, c->c.measured_tokens_per_s});
    if (c->per_user_tps > 0) add(s26_user, 1, {id, p.per_user_tokens_per_s.value, c->per_user_tps});
    if (c->ttft_ms > 0) add(s26_ttft, 2, {id, p.ttft_s.value * 1e3, c->ttft_ms});
  }
  cats.push_back(s26_out);
  cats.push_back(s26_user);
  cats.push_back(s26_ttft);

  // 8. Speculative decoding's gain (serving/speculative.hpp): the same deployment with the draft
  // over without, per user, against published gains at a fixed batch (tests/data/spec_gains.json).
  // Peer: the acceptance length alone (tau, the draft and the verified rows free).
  Category spec{"speculative decoding gain (published, fixed batch)", {}, {}};
  const json spec_gains = load(data + "/spec_gains.json");
  for (const auto& r : spec_gains["rows"]) {
    const std::string id = r["id"], model = r["model"], gpu = r["gpu"];
    const CatalogModel* cm = cat.find_model(model);
    const CatalogGpu* cg = cat.find_gpu(gpu);
    const auto engine = engine_from_name(r["engine"].get<std::string>());
    const QuantPreset* q = find_quant_preset(r["quant"].get<std::string>());
    const SpecMethod method = r["method"] == "mtp" ? SpecMethod::mtp : SpecMethod::eagle3;
    if (!cm || !cg || !engine || !q) {
      excluded.push_back(id + ": model, GPU, engine or preset not in the catalog");
      continue;
    }
    const bool mtp = method == SpecMethod::mtp;
    const uint32_t tp = r["tp"], k = r["draft_tokens"];
    Workload wl;
    wl.users = r["users"];
    wl.isl = r["isl"];
    wl.osl = r["osl"];
    auto per_user = [&](bool with) {
      ServingSetup s = serving_setup(cm->spec, *q, cg->spec, *engine, KvDtype::bf16, tp, 1, 1, 8,
                                     nullptr, 0, nullptr, with && mtp);
      if (with)
        s.deployment.spec =
            make_speculation(method, k, 0, cm->spec, *q, KvDtype::bf16, nullptr, mtp);
      return estimate_serving(s.model, s.gpu, s.deployment, wl).per_user_tokens_per_s.value;
    };
    const double gain = per_user(true) / per_user(false);
    spec.rows.push_back({id, gain, r["gain"].get<double>()});
    const SpecAcceptance* a = spec_acceptance(method, cm->spec.id, k).row;
    spec.peers["acceptance length alone"].push_back(
        {id, a ? tokens_per_step(a->rate(), k) : 1.0, r["gain"].get<double>()});
  }
  cats.push_back(spec);

  // Print.
  std::printf("llmsize accuracy against %s\n\n",
              "tests/data (public measurements, sources in each row)");
  std::printf(
      "| category | method | n | median abs error | p90 | max | worst row "
      "|\n|---|---|---:|---:|---:|---:|---|\n");
  std::map<std::string, Stats> ours;
  for (const auto& c : cats) {
    const Stats s = stats(c.rows);
    ours[c.name] = s;
    std::printf("| %s | **llmsize** | %zu | %.2f%% | %.2f%% | %.2f%% | %s |\n", c.name.c_str(), s.n,
                s.median * 100, s.p90 * 100, s.max * 100, s.worst.c_str());
    for (const auto& [rule, rows] : c.peers) {
      const Stats p = stats(rows);
      std::printf("| %s | %s | %zu | %.2f%% | %.2f%% | %.2f%% | %s |\n", c.name.c_str(),
                  rule.c_str(), p.n, p.median * 100, p.p90 * 100, p.max * 100, p.worst.c_str());
    }
  }
  for (const auto& c : cats) {
    if (rows_of.empty() || c.name.compare(0, rows_of.size(), rows_of) != 0) continue;
    std::printf("\n%s: predicted / measured\n", c.name.c_str());
    for (const auto& r : c.rows)
      std::printf("  %6.3f  %-70s %12.4g %12.4g\n", r.predicted / r.measured, r.label.c_str(),
                  r.predicted, r.measured);
  }
  // The 2026 serving rows by group: plain lines (the tables above are the report's).
  std::printf(
      "\nServing 2026 by engine, vendor and model family: median error (rows) of the "
      "aggregate, per-user tokens/s and mean TTFT\n");
  for (const auto& [group, metrics] : s26_groups) {
    std::printf("  %-24s", group.c_str());
    for (const auto& rows : metrics) {
      if (rows.empty()) {
        std::printf("  %14s", "-");
        continue;
      }
      const Stats g = stats(rows);
      std::printf("  %7.1f%% (%3zu)", g.median * 100, g.n);
    }
    std::printf("\n");
  }
  std::printf("\nExcluded rows (%zu):\n", excluded.size());
  for (const auto& e : excluded) std::printf("- %s\n", e.c_str());

  if (!check) return 0;
  // The gate: every category's median and max must stay at or below the committed thresholds.
  const json th = load(thresholds_path);
  int failed = 0;
  for (const auto& [name, s] : ours) {
    if (!th.contains(name)) {
      std::printf("GATE: no threshold for '%s' in %s\n", name.c_str(), thresholds_path.c_str());
      ++failed;
      continue;
    }
    const double med = th[name]["median"].get<double>(), mx = th[name]["max"].get<double>();
    const bool ok = s.median <= med && s.max <= mx;
    std::printf("GATE %s: median %.4f <= %.4f, max %.4f <= %.4f: %s\n", name.c_str(), s.median, med,
                s.max, mx, ok ? "ok" : "FAILED");
    if (!ok) ++failed;
  }
  std::printf("%d passed, %d failed\n", static_cast<int>(ours.size()) - failed, failed);
  return failed ? 1 : 0;
}
