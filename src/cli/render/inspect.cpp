#include "cli/render/inspect.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "llmsize/io/model_file.hpp"
#include "llmsize/model/layers.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

using ojson = nlohmann::ordered_json;

constexpr int kSchemaVersion = 1;

std::string group(uint64_t v) {
  return group_digits(v);
}

double round4(double x) {
  return std::round(x * 10000) / 10000;
}

std::string format_line(const ModelFile& f) {
  std::string s = f.format == "gguf" ? fmt::format("GGUF v{}", f.version) : "safetensors";
  size_t weight_files = f.files.size();
  for (const auto& p : f.files)
    if (p.size() >= 5 && p.compare(p.size() - 5, 5, ".json") == 0) --weight_files;
  if (weight_files > 1) s += fmt::format(", {} files", weight_files);
  return s + fmt::format(" · {:.2f} GiB on disk · header {} bytes", gib_of(f.file_bytes),
                         group(f.header_bytes));
}

std::string arch_line(const ModelSpec& m) {
  std::string s = fmt::format(
      "n_layer {} · n_embd {} · n_ff {} · n_head {} · n_head_kv {} · head {}/{} · n_vocab {}",
      m.n_layer, m.n_embd, m.n_ff, m.n_head, m.n_head_kv, m.n_embd_head_k, m.n_embd_head_v,
      group(m.n_vocab));
  if (m.is_moe())
    s += fmt::format(" · experts {} ({} used, {} shared, n_ff_exp {})", m.n_expert, m.n_expert_used,
                     m.n_expert_shared, m.n_ff_exp);
  if (m.n_swa) s += fmt::format(" · sliding window {} (pattern {})", m.n_swa, m.swa_pattern);
  if (m.is_mla()) s += fmt::format(" · MLA kv_lora_rank {} + n_rot {}", m.kv_lora_rank, m.n_rot);
  if (m.tied_embeddings) s += " · tied embeddings";
  return s;
}

}  // namespace

std::string render_model_file_table(const ModelFile& f) {
  std::string o;
  const Weights& w = f.weights;
  o += fmt::format("File          {}\n", sanitize(f.path, 256));
  o += fmt::format("Format        {}\n", format_line(f));
  if (f.spec) {
    o += fmt::format("Model         {} · {}{}\n", f.spec->name, f.arch,
                     f.arch_known ? "" : " (unknown to llmsize: llama rules)");
    o += fmt::format("Architecture  {}\n", arch_line(*f.spec));
    if (!f.spec->layer_kinds.empty())
      o += fmt::format("Layers        {}\n", layer_pattern(*f.spec));
    o += fmt::format("Context       {} tokens trained\n",
                     f.spec->n_ctx_train ? group(f.spec->n_ctx_train) : "unknown");
  } else {
    o += fmt::format("Architecture  unknown: {}\n", f.spec_missing_reason);
  }
  o += fmt::format("Parameters    {} ({:.2f} B)", group(w.params), billions_of(w.params));
  if (w.active_params != w.params)
    o += fmt::format(", {} active per token", group(w.active_params));
  o += "\n";
  o += fmt::format("Tensors       {} · metadata {} entries\n", f.tensors.size(), f.n_metadata);
  o += fmt::format("File type     {} · {:.2f} bits per weight\n", f.file_type, w.bits_per_weight());
  o += fmt::format("Weights       {} bytes = {:.2f} GiB ({:.2f} GB)", group(w.bytes),
                   gib_of(w.bytes), gb_of(w.bytes));
  if (w.host_bytes)
    o +=
        fmt::format(" · token_embd {:.2f} GiB kept in host RAM by llama.cpp", gib_of(w.host_bytes));
  o += "\n\n";
  o += fmt::format("{:<10} {:>8} {:>16} {:>18} {:>9} {:>6} {:>6}\n", "type", "tensors", "elements",
                   "bytes", "GiB", "bpw", "share");
  for (const auto& u : f.histogram)
    o += fmt::format("{:<10} {:>8} {:>16} {:>18} {:>9.2f} {:>6.2f} {:>5.1f}%\n", u.type_name,
                     u.n_tensors, group(u.n_elements), group(u.bytes), gib_of(u.bytes),
                     bits_per_element(u.bytes, u.n_elements),
                     percent_of(share_of(u.bytes, w.bytes)));
  if (!f.notes.empty()) {
    o += "\nNotes\n";
    for (const auto& n : f.notes) o += "  - " + n + "\n";
  }
  return o;
}

std::string render_model_file_json(const ModelFile& f) {
  const Weights& w = f.weights;
  ojson j;
  j["schema_version"] = kSchemaVersion;
  j["path"] = f.path;
  j["format"] = f.format;
  j["version"] = f.version ? ojson(f.version) : ojson();
  j["files"] = f.files;
  j["file_bytes"] = f.file_bytes;
  j["header_bytes"] = f.header_bytes;
  j["metadata_count"] = f.n_metadata;
  j["tensor_count"] = f.tensors.size();
  j["file_type"] = {{"quant", f.file_quant}, {"description", f.file_type}};
  j["params"] = w.params;
  j["active_params"] = w.active_params;
  j["weights_bytes"] = w.bytes;
  j["weights_host_bytes"] = w.host_bytes;
  j["weights_vram_bytes"] = w.vram_bytes;
  j["bits_per_weight"] = round4(w.bits_per_weight());
  ojson a;
  if (f.spec) {
    const ModelSpec& m = *f.spec;
    a = {{"name", m.name},
         {"arch", f.arch},
         {"known", f.arch_known},
         {"n_layer", m.n_layer},
         {"n_embd", m.n_embd},
         {"n_ff", m.n_ff},
         {"n_head", m.n_head},
         {"n_head_kv", m.n_head_kv},
         {"n_embd_head_k", m.n_embd_head_k},
         {"n_embd_head_v", m.n_embd_head_v},
         {"n_vocab", m.n_vocab},
         {"n_ctx_train", m.n_ctx_train},
         {"n_expert", m.n_expert},
         {"n_expert_used", m.n_expert_used},
         {"n_expert_shared", m.n_expert_shared},
         {"n_ff_exp", m.n_ff_exp},
         {"n_swa", m.n_swa},
         {"swa_pattern", m.swa_pattern},
         {"kv_lora_rank", m.kv_lora_rank},
         {"n_rot", m.n_rot},
         {"tied_embeddings", m.tied_embeddings},
         {"layer_pattern", layer_pattern(m)}};
  }
  j["architecture"] = a;
  j["n_ctx_train"] = f.spec && f.spec->n_ctx_train ? ojson(f.spec->n_ctx_train) : ojson();
  ojson types = ojson::array();
  for (const auto& u : f.histogram)
    types.push_back({{"type", u.type_name},
                     {"tensors", u.n_tensors},
                     {"elements", u.n_elements},
                     {"bytes", u.bytes},
                     {"bits_per_weight", round4(bits_per_element(u.bytes, u.n_elements))}});
  j["tensor_types"] = types;
  j["notes"] = f.notes;
  return j.dump(2) + "\n";
}

}  // namespace llmsize::cli
