#include "cli/report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "llmsize/quant.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

using ojson = nlohmann::ordered_json;

constexpr int kSchemaVersion = 1;

double gib_of(uint64_t b) { return static_cast<double>(b) / static_cast<double>(kGiB); }

std::string group(uint64_t v) {
  std::string s = std::to_string(v), r;
  int k = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it, ++k) {
    if (k && k % 3 == 0) r.push_back(',');
    r.push_back(*it);
  }
  return {r.rbegin(), r.rend()};
}

std::string billions(uint64_t p) { return fmt::format("{:.2f} B", static_cast<double>(p) / 1e9); }

std::string quant_line(const Report& r) {
  std::string q = r.quant->id;
  if (r.quant_requested != r.quant->id) q += fmt::format(" (\"{}\" expands to {})", r.quant_requested, r.quant->id);
  return q;
}

std::string settings_line(const Report& r) {
  const auto& c = r.config;
  return fmt::format("{} · {:.2f} bits/weight · context {} × {} sequence{} · KV {} · n_ubatch {} · flash attention {}",
                     quant_line(r), r.estimate.weights.bits_per_weight(), group(c.kv.n_ctx), c.kv.n_seq,
                     c.kv.n_seq == 1 ? "" : "s", traits(c.kv.type_k).name, c.kv.n_ubatch, c.flash_attn ? "on" : "off");
}

std::string model_line(const Report& r) {
  const auto& m = r.model.spec;
  std::string s = m.name;
  if (!m.id.empty()) s += " (" + m.id + ")";
  s += fmt::format(" · {} · {} params", arch_name(m.arch), billions(r.estimate.weights.params));
  if (m.is_moe()) s += fmt::format(", {} active", billions(r.estimate.weights.active_params));
  s += fmt::format(" · {} layers", m.n_layer);
  return s;
}

struct Row {
  std::string part;
  uint64_t bytes;
  std::string how;
};

std::vector<Row> memory_rows(const Report& r) {
  const auto& e = r.estimate;
  const auto& m = r.model.spec;
  const auto& c = r.config;
  std::vector<Row> rows;
  std::string w = fmt::format("{} params at {:.2f} bits/weight", billions(e.weights.params), e.weights.bits_per_weight());
  if (e.weights.host_bytes)
    w += fmt::format("; token_embd {:.2f} GiB kept in host RAM{}", gib_of(e.weights.host_bytes),
                     m.tied_embeddings ? " (copied to the GPU as the tied output)" : "");
  rows.push_back({"weights", e.weights_bytes, w});
  std::string kv = fmt::format("{} cells × {} layers × {} B/cell", group(e.kv.cells_full), e.kv.n_layer_full,
                               e.kv.k_bytes_per_cell_layer + e.kv.v_bytes_per_cell_layer);
  if (e.kv.n_layer_swa) kv += fmt::format(" + {} SWA layers × {} cells", e.kv.n_layer_swa, group(e.kv.cells_swa));
  if (c.kv.n_seq > 1) kv += fmt::format(", × {} sequences", c.kv.n_seq);
  if (m.is_mla()) kv += " (MLA latent)";
  rows.push_back({"KV cache", e.kv_cache_bytes, kv});
  rows.push_back({"compute buffers", e.activations_bytes,
                  fmt::format("{:.0f} MiB per GPU × {} (peak: {})", static_cast<double>(e.compute.bytes()) / kMiB,
                              e.n_gpus, e.compute.peak())});
  rows.push_back({"runtime overhead", e.overhead_bytes,
                  fmt::format("{:.0f} MiB per GPU × {}", static_cast<double>(c.overhead_per_gpu_bytes) / kMiB, e.n_gpus)});
  rows.push_back({fmt::format("headroom ({:.0f}%)", c.headroom * 100), e.headroom_bytes, "on the sum above"});
  return rows;
}

std::string interconnect_advice(const GpuPlan& p) {
  if (p.count <= 1) return "single GPU";
  if (p.gpu.interconnect != "none" && !p.gpu.interconnect.empty())
    return fmt::format("{} ({:.0f} GB/s)", p.gpu.interconnect, p.gpu.interconnect_gb_per_s);
  return p.gpu.pcie_gen ? fmt::format("PCIe {}.0 x{}", p.gpu.pcie_gen, p.gpu.pcie_lanes ? p.gpu.pcie_lanes : 16)
                        : "PCIe";
}

std::string gpu_verdict(const GpuPlan& p) {
  if (p.count_needed == 0) return fmt::format("{} cannot hold this model even with 1024 GPUs", p.gpu.name);
  std::string s = fmt::format("{} × {} needed ({:.0f} GiB usable each)", p.count_needed, p.gpu.name,
                              gib_of(p.gpu.usable_bytes()));
  if (p.count_requested) {
    s += p.fits ? fmt::format("; --gpus {} is enough", p.count_requested)
                : fmt::format("; --gpus {} is NOT enough: each would need {:.2f} GiB", p.count_requested,
                              gib_of(p.per_gpu_bytes));
  }
  return s;
}

}  // namespace

std::string render_table(const Report& r) {
  std::string o;
  const auto& e = r.estimate;
  o += fmt::format("Model     {}\n", model_line(r));
  if (!r.model.assumption.empty()) o += fmt::format("Assumed   {}\n", r.model.assumption);
  o += fmt::format("Settings  {}\n\n", settings_line(r));
  o += fmt::format("{:<18} {:>10}  {}\n", "VRAM", "GiB", "how");
  for (const auto& row : memory_rows(r)) o += fmt::format("{:<18} {:>10.2f}  {}\n", row.part, gib_of(row.bytes), row.how);
  o += fmt::format("{:<18} {:>10.2f}  {} GPU{} (GiB = 2^30 bytes)\n", "total", gib_of(e.total_bytes()), e.n_gpus,
                   e.n_gpus == 1 ? "" : "s");
  o += fmt::format("\nWeights file {:.2f} GiB ({:.2f} GB) · rule of thumb 1.2 × weights = {:.2f} GiB\n",
                   gib_of(e.weights.bytes), static_cast<double>(e.weights.bytes) / kGB, gib_of(e.naive_rule_bytes));
  o += "\nGPUs needed (layer split; each GPU holds its share plus its own compute buffer, overhead and headroom)\n";
  for (const auto& c : r.classes)
    o += c.count ? fmt::format("  {:>3} GiB class  {:>3} GPU{}\n", c.memory_gib, c.count, c.count == 1 ? "" : "s")
                 : fmt::format("  {:>3} GiB class  does not fit\n", c.memory_gib);
  if (r.gpu) {
    const auto& p = *r.gpu;
    o += fmt::format("\nGPU       {}\n", gpu_verdict(p));
    if (p.count_needed)
      o += fmt::format("          {} × {}: {:.2f} GiB per GPU of {:.2f} usable · link: {}\n", p.count, p.gpu.id,
                       gib_of(p.per_gpu_bytes), gib_of(p.gpu.usable_bytes()), interconnect_advice(p));
  }
  if (!r.warnings.empty()) {
    o += "\nWarnings\n";
    for (const auto& w : r.warnings) o += "  - " + w + "\n";
  }
  if (r.explain) {
    o += "\nHow each figure is computed\n";
    for (const auto& d : e.derivations) o += fmt::format("  {}\n      = {}\n      = {}\n", d.quantity, d.formula, d.result);
  }
  return o;
}

std::string render_markdown(const Report& r) {
  std::string o;
  const auto& e = r.estimate;
  o += fmt::format("## {}\n\n", model_line(r));
  if (!r.model.assumption.empty()) o += fmt::format("*Assumed:* {}\n\n", r.model.assumption);
  o += fmt::format("*Settings:* {}\n\n", settings_line(r));
  o += "| VRAM part | GiB | how |\n|---|---:|---|\n";
  for (const auto& row : memory_rows(r)) o += fmt::format("| {} | {:.2f} | {} |\n", row.part, gib_of(row.bytes), row.how);
  o += fmt::format("| **total** | **{:.2f}** | {} GPU(s) |\n\n", gib_of(e.total_bytes()), e.n_gpus);
  o += "| GPU class | GPUs needed |\n|---|---:|\n";
  for (const auto& c : r.classes) o += fmt::format("| {} GiB | {} |\n", c.memory_gib, c.count ? std::to_string(c.count) : "does not fit");
  if (r.gpu) o += fmt::format("\n**GPU:** {}\n", gpu_verdict(*r.gpu));
  if (!r.warnings.empty()) {
    o += "\n**Warnings**\n\n";
    for (const auto& w : r.warnings) o += "- " + w + "\n";
  }
  if (r.explain) {
    o += "\n**How each figure is computed**\n\n";
    for (const auto& d : e.derivations) o += fmt::format("- **{}** = {} = {}\n", d.quantity, d.formula, d.result);
  }
  return o;
}

namespace {

ojson report_json(const Report& r) {
  const auto& e = r.estimate;
  const auto& m = r.model.spec;
  const auto& c = r.config;
  ojson j;
  j["schema_version"] = kSchemaVersion;
  ojson model;
  model["name"] = m.name;
  model["id"] = m.id.empty() ? ojson() : ojson(m.id);
  model["source"] = r.model.source;
  model["assumed"] = r.model.assumption.empty() ? ojson() : ojson(r.model.assumption);
  model["arch"] = arch_name(m.arch);
  model["params"] = e.weights.params;
  model["active_params"] = e.weights.active_params;
  model["weights_bytes"] = e.weights.bytes;
  model["bits_per_weight"] = std::round(e.weights.bits_per_weight() * 10000) / 10000;
  model["n_layer"] = m.n_layer;
  model["n_embd"] = m.n_embd;
  model["n_head"] = m.n_head;
  model["n_head_kv"] = m.n_head_kv;
  model["n_ctx_train"] = m.n_ctx_train;
  ojson types = ojson::array();
  for (const auto& u : e.weights.by_type)
    types.push_back({{"type", traits(u.type).name}, {"tensors", u.n_tensors}, {"elements", u.n_elements}, {"bytes", u.bytes}});
  model["tensor_types"] = types;
  j["model"] = model;

  ojson s;
  s["quant"] = r.quant->id;
  s["quant_requested"] = r.quant_requested;
  s["kv_quant"] = traits(c.kv.type_k).name;
  s["context"] = c.kv.n_ctx;
  s["batch"] = c.kv.n_seq;
  s["ubatch"] = c.kv.n_ubatch;
  s["flash_attn"] = c.flash_attn;
  s["headroom"] = c.headroom;
  s["overhead_bytes_per_gpu"] = c.overhead_per_gpu_bytes;
  s["engine"] = r.quant->gguf ? "llama.cpp" : "llama.cpp rules, all weights on GPU";
  j["settings"] = s;

  ojson v;
  v["weights_bytes"] = e.weights_bytes;
  v["weights_host_bytes"] = e.weights.host_bytes;
  v["kv_cache_bytes"] = e.kv_cache_bytes;
  v["activations_bytes"] = e.activations_bytes;
  v["overhead_bytes"] = e.overhead_bytes;
  v["headroom_bytes"] = e.headroom_bytes;
  v["total_bytes"] = e.total_bytes();
  v["kv_cells"] = e.kv.cells_full;
  v["kv_cells_swa"] = e.kv.cells_swa;
  v["compute_buffer_bytes_per_gpu"] = e.compute.bytes();
  v["gpus"] = e.n_gpus;
  v["rule_of_thumb_bytes"] = e.naive_rule_bytes;
  j["vram"] = v;

  ojson g;
  if (r.gpu) {
    const auto& p = *r.gpu;
    g["name"] = p.gpu.name;
    g["id"] = p.gpu.id;
    g["count"] = p.count;
    g["count_needed"] = p.count_needed;
    g["memory_bytes_each"] = p.gpu.memory_bytes;
    g["usable_bytes_each"] = p.gpu.usable_bytes();
    g["per_gpu_bytes"] = p.per_gpu_bytes;
    g["fits"] = p.fits;
    g["interconnect"] = interconnect_advice(p);
  } else {
    for (const char* k : {"name", "id", "count", "count_needed", "memory_bytes_each", "usable_bytes_each",
                          "per_gpu_bytes", "fits", "interconnect"})
      g[k] = nullptr;
  }
  for (const auto& cl : r.classes) g[fmt::format("count_{}gib", cl.memory_gib)] = cl.count ? ojson(cl.count) : ojson();
  j["gpu"] = g;
  j["warnings"] = r.warnings;
  if (r.explain) {
    ojson ex = ojson::array();
    for (const auto& d : e.derivations) ex.push_back({{"quantity", d.quantity}, {"formula", d.formula}, {"result", d.result}});
    j["explain"] = ex;
  }
  return j;
}

void flatten(const ojson& j, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
    return;
  }
  std::string val;
  if (j.is_null()) val = "";
  else if (j.is_string()) val = j.get<std::string>();
  else if (j.is_array()) {
    for (const auto& x : j) {
      if (!val.empty()) val += "; ";
      val += x.is_string() ? x.get<std::string>() : x.dump();
    }
  } else val = j.dump();
  out.emplace_back(prefix, val);
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char ch : s) {
    if (ch == '"') r += '"';
    r += ch;
  }
  return r + "\"";
}

std::string to_csv(const std::vector<std::vector<std::pair<std::string, std::string>>>& rows) {
  std::string o;
  for (size_t i = 0; i < rows.front().size(); ++i) o += (i ? "," : "") + csv_cell(rows.front()[i].first);
  o += "\n";
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) o += (i ? "," : "") + csv_cell(row[i].second);
    o += "\n";
  }
  return o;
}

}  // namespace

std::string render_json(const Report& r) { return report_json(r).dump(2) + "\n"; }

std::string render_csv(const Report& r) {
  ojson j = report_json(r);
  j.erase("explain");
  j["model"].erase("tensor_types");
  std::vector<std::pair<std::string, std::string>> cells;
  flatten(j, "", cells);
  return to_csv({cells});
}

// --- catalog listings -------------------------------------------------------------------------

std::string render_models(const Catalog& c, const std::string& format) {
  ojson arr = ojson::array();
  for (const auto& cm : c.models()) {
    const auto& m = cm.spec;
    const auto w = compute_weights(m, *find_quant_preset("f16"));
    arr.push_back({{"id", m.id}, {"name", m.name}, {"arch", arch_name(m.arch)}, {"params", w.params},
                   {"active_params", w.active_params}, {"params_official", m.params_official ? ojson(m.params_official) : ojson()},
                   {"n_layer", m.n_layer}, {"n_embd", m.n_embd}, {"n_head", m.n_head}, {"n_head_kv", m.n_head_kv},
                   {"n_ctx_train", m.n_ctx_train}, {"aliases", cm.aliases}, {"shorthand", cm.shorthand},
                   {"hf_repo", cm.hf_repo}, {"source", cm.source}, {"origin", cm.origin}});
  }
  if (format == "json") return ojson({{"schema_version", kSchemaVersion}, {"models", arr}}).dump(2) + "\n";
  if (format == "csv") {
    std::vector<std::vector<std::pair<std::string, std::string>>> rows;
    for (const auto& x : arr) {
      std::vector<std::pair<std::string, std::string>> cells;
      flatten(x, "", cells);
      rows.push_back(cells);
    }
    return to_csv(rows);
  }
  std::string o = fmt::format("{:<30} {:<10} {:>10} {:>10} {:>6} {:>9}  {}\n", "id", "arch", "params", "active", "layers",
                              "ctx", "shorthand");
  for (const auto& x : arr)
    o += fmt::format("{:<30} {:<10} {:>10} {:>10} {:>6} {:>9}  {}\n", x["id"].get<std::string>(), x["arch"].get<std::string>(),
                     billions(x["params"].get<uint64_t>()), billions(x["active_params"].get<uint64_t>()),
                     x["n_layer"].get<uint32_t>(), x["n_ctx_train"].get<uint32_t>(),
                     fmt::format("{}", fmt::join(x["shorthand"].get<std::vector<std::string>>(), ",")));
  return o;
}

std::string render_gpus(const Catalog& c, const std::string& format) {
  ojson arr = ojson::array();
  for (const auto& cg : c.gpus()) {
    const auto& g = cg.spec;
    arr.push_back({{"id", g.id}, {"name", g.name}, {"vendor", g.vendor}, {"class", g.gpu_class},
                   {"memory_bytes", g.memory_bytes}, {"usable_bytes", g.usable_bytes()},
                   {"bandwidth_gb_per_s", g.bandwidth_gb_per_s}, {"board_power_w", g.board_power_w},
                   {"fp16_tflops_dense", g.fp16_tflops_dense}, {"interconnect", g.interconnect},
                   {"interconnect_gb_per_s", g.interconnect_gb_per_s}, {"pcie_gen", g.pcie_gen},
                   {"slot_width", g.slot_width}, {"backends", g.backends},
                   {"price_usd", g.price_usd > 0 ? ojson(g.price_usd) : ojson()},
                   {"price_date", g.price_date}, {"aliases", cg.aliases}, {"source", cg.source}, {"origin", cg.origin}});
  }
  if (format == "json") return ojson({{"schema_version", kSchemaVersion}, {"gpus", arr}}).dump(2) + "\n";
  if (format == "csv") {
    std::vector<std::vector<std::pair<std::string, std::string>>> rows;
    for (const auto& x : arr) {
      std::vector<std::pair<std::string, std::string>> cells;
      flatten(x, "", cells);
      rows.push_back(cells);
    }
    return to_csv(rows);
  }
  std::string o = fmt::format("{:<20} {:<40} {:>8} {:>9} {:>7} {:>8}  {}\n", "id", "name", "GiB", "GB/s", "W",
                              "FP16 TF", "link");
  for (const auto& cg : c.gpus()) {
    const auto& g = cg.spec;
    o += fmt::format("{:<20} {:<40} {:>8.1f} {:>9.0f} {:>7.0f} {:>8}  {}\n", g.id, g.name, gib_of(g.memory_bytes),
                     g.bandwidth_gb_per_s, g.board_power_w,
                     g.fp16_tflops_dense > 0 ? fmt::format("{:.1f}", g.fp16_tflops_dense) : "-", g.interconnect);
  }
  return o;
}

std::string render_quants(const std::string& format) {
  ojson arr = ojson::array();
  // Bits per weight of each preset on a reference model (Llama-3.1-8B shapes), derived per tensor.
  ModelSpec ref;
  ref.arch = Arch::llama;
  ref.n_layer = 32; ref.n_embd = 4096; ref.n_ff = 14336; ref.n_head = 32; ref.n_head_kv = 8;
  ref.n_embd_head_k = ref.n_embd_head_v = 128; ref.n_vocab = 128256;
  for (const auto& p : all_quant_presets()) {
    const auto w = compute_weights(ref, p);
    std::vector<std::string> aliases;
    for (const auto& a : quant_aliases())
      if (std::string(a.id) == p.id) aliases.push_back(a.alias);
    arr.push_back({{"id", p.id}, {"format", p.gguf ? "gguf" : "checkpoint"}, {"base_type", traits(p.default_type).name},
                   {"base_type_bits_per_weight", traits(p.default_type).bits_per_weight()},
                   {"bits_per_weight_llama_3_1_8b", std::round(w.bits_per_weight() * 1000) / 1000},
                   {"aliases", aliases}, {"description", p.description},
                   {"source", p.gguf ? "llama.cpp src/llama-quant.cpp llama_tensor_get_type" : traits(p.default_type).layout}});
  }
  ojson types = ojson::array();
  for (const auto& t : all_tensor_types())
    types.push_back({{"name", t.name}, {"ggml_id", static_cast<uint32_t>(t.type) < 1000 ? ojson(static_cast<uint32_t>(t.type)) : ojson()},
                     {"block_size", t.block_size}, {"bytes_per_block", t.type_size},
                     {"bits_per_weight", t.bits_per_weight()}, {"layout", t.layout}});
  if (format == "json") return ojson({{"schema_version", kSchemaVersion}, {"presets", arr}, {"tensor_types", types}}).dump(2) + "\n";
  if (format == "csv") {
    std::vector<std::vector<std::pair<std::string, std::string>>> rows;
    for (const auto& x : arr) {
      std::vector<std::pair<std::string, std::string>> cells;
      flatten(x, "", cells);
      rows.push_back(cells);
    }
    return to_csv(rows);
  }
  std::string o = fmt::format("{:<11} {:<10} {:>9} {:>9}  {:<16} {}\n", "preset", "base", "base bpw", "8B bpw", "aliases", "mix");
  for (const auto& x : arr)
    o += fmt::format("{:<11} {:<10} {:>9.4f} {:>9.3f}  {:<16} {}\n", x["id"].get<std::string>(), x["base_type"].get<std::string>(),
                     x["base_type_bits_per_weight"].get<double>(), x["bits_per_weight_llama_3_1_8b"].get<double>(),
                     fmt::format("{}", fmt::join(x["aliases"].get<std::vector<std::string>>(), ",")),
                     x["description"].get<std::string>());
  o += "\n8B bpw: bits per weight of the whole file for Llama-3.1-8B shapes, derived tensor by tensor.\n";
  return o;
}

}  // namespace llmsize::cli
