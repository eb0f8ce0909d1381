#include "llmsize/io/model_file.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "llmsize/io/error.hpp"
#include "llmsize/io/gguf.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/safetensors.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize {
namespace {

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

// *.safetensors in a directory, sorted by name.
std::vector<std::string> safetensors_in(const std::string& dir) {
  std::vector<std::string> v;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (ends_with(n, ".safetensors") && is_file(join(dir, n))) v.push_back(join(dir, n));
    }
    ::closedir(d);
  }
  std::sort(v.begin(), v.end());
  return v;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Routed-expert tensors: GGUF "blk.N.ffn_up_exps.weight", Hugging Face "...mlp.experts.7.up_proj".
bool is_routed_expert(const std::string& name, bool gguf) {
  return gguf ? name.find("_exps.") != std::string::npos
              : name.find(".experts.") != std::string::npos;
}

void add_up_unchecked(ModelFile& f, bool gguf);

// A GGUF tensor "blk.N.<name>" that llama.cpp's --n-cpu-moe moves (moved_by_cpu_moe) counts to
// block N; a block number past the model's blocks is the file's error, not an allocation.
void add_cpu_moe_tensor(Weights& w, const FileTensor& t, uint32_t n_blocks) {
  constexpr std::string_view kBlock = "blk.";
  if (t.name.compare(0, kBlock.size(), kBlock) != 0 || !moved_by_cpu_moe(t.name)) return;
  uint64_t layer = 0;
  size_t i = kBlock.size();
  for (; i < t.name.size() && i < kBlock.size() + 6 && t.name[i] >= '0' && t.name[i] <= '9'; ++i)
    layer = layer * 10 + static_cast<uint64_t>(t.name[i] - '0');
  if (i == kBlock.size() || i >= t.name.size() || t.name[i] != '.' || layer >= n_blocks) return;
  add_expert_tensor(w.expert_blocks, static_cast<uint32_t>(layer), t.bytes);
}

// Weights tensor by tensor, and the histogram by the file's type names. The sums cannot overflow
// for data that fits in files, but a count is never trusted.
void add_up(ModelFile& f, bool gguf) {
  try {
    add_up_unchecked(f, gguf);
  } catch (const OverflowError&) {
    throw InputError(f.path + ": the tensors' sizes add up to more than 2^64");
  }
}

void add_up_unchecked(ModelFile& f, bool gguf) {
  Weights& w = f.weights;
  const ModelSpec* m = f.spec ? &*f.spec : nullptr;
  const bool moe = m && m->n_expert > 1 && m->n_expert_used > 0;
  uint64_t embd_bytes = 0, embd_row = 0;
  // An encoder (BERT) has no output layer and so no duplicated token_embd on the GPU.
  bool has_output = m && m->is_encoder();
  for (const auto& t : f.tensors) {
    w.params = checked_add(w.params, t.n_elements);
    w.bytes = checked_add(w.bytes, t.bytes);
    uint64_t active = t.n_elements, active_bytes = t.bytes;
    // Per token only n_expert_used of n_expert routed experts run.
    if (moe && is_routed_expert(t.name, gguf)) {
      if (gguf) {
        active = t.n_elements / m->n_expert * m->n_expert_used;
        active_bytes = t.bytes / m->n_expert * m->n_expert_used;
      } else {
        active = 0;  // each HF expert is its own tensor: counted below as a share
        active_bytes = 0;
      }
    }
    w.active_params = checked_add(w.active_params, active);
    w.active_bytes = checked_add(w.active_bytes, active_bytes);
    if (t.name == "token_embd.weight") {
      // One row of ne[0] elements is read per token. A tensor with no elements has no rows.
      embd_bytes = t.bytes;
      const uint64_t rows = t.shape.empty() || t.shape[0] == 0 ? 0 : t.n_elements / t.shape[0];
      embd_row = rows ? t.bytes / rows : 0;
    }
    if (t.name == "output.weight") has_output = true;
    if (gguf && moe) add_cpu_moe_tensor(w, t, m->n_layer + m->n_layer_nextn);

    auto it = std::find_if(w.by_type.begin(), w.by_type.end(),
                           [&](const TypeUsage& u) { return u.type == t.type; });
    if (it == w.by_type.end()) it = w.by_type.insert(w.by_type.end(), TypeUsage{t.type});
    it->n_tensors++;
    it->n_elements += t.n_elements;
    it->bytes += t.bytes;
    auto h = std::find_if(f.histogram.begin(), f.histogram.end(),
                          [&](const FileTypeUsage& u) { return u.type_name == t.type_name; });
    if (h == f.histogram.end())
      h = f.histogram.insert(f.histogram.end(), FileTypeUsage{t.type_name});
    h->n_tensors++;
    h->n_elements += t.n_elements;
    h->bytes += t.bytes;
  }
  if (moe && !gguf) {
    // Hugging Face experts are separate tensors: n_expert_used / n_expert of them run per token.
    uint64_t exp_params = 0, exp_bytes = 0;
    for (const auto& t : f.tensors)
      if (is_routed_expert(t.name, false)) exp_params += t.n_elements, exp_bytes += t.bytes;
    w.active_params += exp_params / m->n_expert * m->n_expert_used;
    w.active_bytes += exp_bytes / m->n_expert * m->n_expert_used;
  }
  auto by_bytes = [](const auto& a, const auto& b) { return a.bytes > b.bytes; };
  std::stable_sort(w.by_type.begin(), w.by_type.end(), by_bytes);
  std::stable_sort(f.histogram.begin(), f.histogram.end(), by_bytes);
  if (gguf) {
    // llama.cpp keeps token_embd in host memory; a tied model duplicates it on the GPU as the
    // output layer (llama-model.cpp TENSOR_DUPLICATED). Per token only one embedding row is read.
    w.host_bytes = embd_bytes;
    w.vram_bytes = w.bytes - embd_bytes + (has_output ? 0 : embd_bytes);
    w.active_bytes = w.active_bytes - embd_bytes + embd_row + (has_output ? 0 : embd_bytes);
  } else {
    w.vram_bytes = w.bytes;  // vLLM / transformers load every tensor on the GPU
  }
}

// ---- GGUF ----

}  // namespace

ModelFile model_file_from_gguf(const std::vector<GgufFile>& shards, const std::string& path) {
  if (shards.empty()) throw InputError(path + ": no GGUF file");
  ModelFile f;
  f.path = path;
  f.format = "gguf";
  f.version = shards.front().version;
  for (const auto& s : shards) {
    f.files.push_back(s.path);
    f.file_bytes += s.file_size;
    f.header_bytes += s.data_offset;
    for (const auto& t : s.tensors) {
      FileTensor ft;
      ft.name = t.name;
      ft.type_name = traits(t.type).name;
      ft.type = t.type;
      ft.shape.assign(t.ne.begin(), t.ne.begin() + t.n_dims);
      ft.n_elements = t.n_elements;
      ft.bytes = t.bytes;
      f.tensors.push_back(std::move(ft));
    }
  }
  const GgufFile& first = shards.front();
  f.n_metadata = first.metadata.size();
  GgufArch a = gguf_arch(shards);
  f.arch = a.arch;
  f.arch_known = a.known;
  f.spec = a.spec;
  f.notes = a.notes;
  add_up(f, true);

  // The file type: general.file_type (a llama_ftype), else the largest tensor type's preset.
  const GgufValue* ft = first.find("general.file_type");
  const QuantPreset* p = nullptr;
  if (ft && ft->as_uint() && *ft->as_uint() <= 0xffffffffu) {
    const auto id = static_cast<uint32_t>(*ft->as_uint());
    p = find_quant_preset(static_cast<Ftype>(id));
    if (p && p->gguf) {
      f.file_type = upper(p->id) + " (general.file_type " + std::to_string(id) + ")";
    } else {
      p = nullptr;
      f.notes.push_back("general.file_type " + std::to_string(id) +
                        " is not a llama.cpp file type llmsize knows");
    }
  }
  if (!p) {
    const TensorType body =
        f.weights.by_type.empty() ? TensorType::F16 : f.weights.by_type.front().type;
    for (const auto& q : all_quant_presets())
      if (q.gguf && q.default_type == body) {
        p = &q;
        break;
      }
    if (!p) p = find_quant_preset("f16");
    f.file_type =
        upper(p->id) + " (guessed from the largest tensor type, " + traits(body).name + ")";
  }
  f.file_quant = p->id;
  return f;
}

namespace {

// ---- safetensors ----

void finish_safetensors(ModelFile& f);

void add_safetensors(ModelFile& f, const SafetensorsFile& s, std::set<std::string>& names) {
  f.files.push_back(s.path);
  f.file_bytes += s.file_size;
  f.header_bytes += s.data_offset;
  f.n_metadata += s.metadata_count;
  if (f.tensors.size() + s.tensors.size() > kSafetensorsMaxTensors)
    throw InputError(s.path + ": the shards hold more than " +
                     std::to_string(kSafetensorsMaxTensors) + " tensors in all (at byte 8)");
  for (const auto& t : s.tensors) {
    if (!names.insert(t.name).second)
      throw InputError(s.path + ": tensor " + sanitize_quoted(t.name) +
                       " also appears in another shard (at byte 8)");
    f.tensors.push_back({t.name, t.dtype, t.type, t.shape, t.n_elements, t.bytes()});
  }
}

ModelFile read_safetensors_model(const std::string& path) {
  ModelFile f;
  f.path = path;
  f.format = "safetensors";
  std::set<std::string> names;
  std::string dir;
  if (is_dir(path)) {
    dir = path;
    const std::string index = join(dir, "model.safetensors.index.json");
    if (is_file(index)) return read_safetensors_model(index);
    const auto files = safetensors_in(dir);
    if (files.empty()) throw InputError(path + ": directory holds no *.safetensors file");
    for (const auto& file : files) add_safetensors(f, read_safetensors_file(file), names);
  } else if (ends_with(path, ".json")) {
    dir = dir_of(path);
    const SafetensorsIndex ix = read_safetensors_index(path);
    std::map<std::string, std::vector<std::string>> listed;  // shard -> tensors it should hold
    for (const auto& [tensor, shard] : ix.weight_map) listed[shard].push_back(tensor);
    for (const auto& shard : ix.shards) {
      const SafetensorsFile s = read_safetensors_file(join(dir, shard));
      std::set<std::string> held;
      for (const auto& t : s.tensors) held.insert(t.name);
      for (const auto& t : listed[shard])
        if (!held.count(t))
          throw InputError(sanitize(path, 256) + ": /weight_map/" + sanitize(t) + " names " +
                           sanitize(shard) + ", which holds no such tensor");
      for (const auto& t : s.tensors)
        if (!ix.weight_map.count(t.name) || ix.weight_map.at(t.name) != shard)
          throw InputError(s.path + ": tensor " + sanitize_quoted(t.name) +
                           " is not listed for this shard in " + sanitize(path, 256));
      add_safetensors(f, s, names);
    }
    f.files.insert(f.files.begin(), path);
    uint64_t data_bytes = 0;
    for (const auto& t : f.tensors) data_bytes += t.bytes;
    if (ix.total_size && ix.total_size != data_bytes)
      f.notes.push_back("the index's metadata.total_size (" + std::to_string(ix.total_size) +
                        ") differs from the tensors' bytes");
  } else {
    dir = dir_of(path);
    add_safetensors(f, read_safetensors_file(path), names);
  }

  const std::string cfg = join(dir, "config.json");
  if (is_file(cfg)) {
    f.spec = read_hf_config_file(cfg);
    f.files.push_back(cfg);
  }
  finish_safetensors(f);
  return f;
}

}  // namespace

ModelFile model_file_from_safetensors(const std::vector<SafetensorsFile>& files,
                                      const std::optional<ModelSpec>& spec,
                                      const std::string& path) {
  ModelFile f;
  f.path = path;
  f.format = "safetensors";
  std::set<std::string> names;
  for (const auto& s : files) add_safetensors(f, s, names);
  f.spec = spec;
  finish_safetensors(f);
  return f;
}

namespace {

// The architecture's name, the weights and the file type of safetensors files already added.
void finish_safetensors(ModelFile& f) {
  if (f.spec) {
    f.arch = arch_name(f.spec->arch);
    f.arch_known = true;
  } else {
    f.spec_missing_reason =
        "no config.json beside it: safetensors headers hold the tensors, not the architecture "
        "(layers, heads) that the KV cache needs";
  }
  add_up(f, false);
  for (const auto& t : f.tensors)
    if (t.type_name == "I32" && ends_with(t.name, ".qweight")) {
      f.notes.push_back(
          "packed quantized weights (*.qweight in I32) are counted as stored: params count storage "
          "elements, not unpacked weights");
      break;
    }

  // The file type: the dtype holding the most bytes.
  const std::string body = f.histogram.empty() ? "BF16" : f.histogram.front().type_name;
  static const std::map<std::string, std::string> kPreset = {
      {"BF16", "hf-bf16"}, {"F16", "hf-f16"},  {"F32", "hf-f32"},
      {"F8_E4M3", "fp8"},  {"F8_E5M2", "fp8"}, {"I8", "int8"}};
  const auto it = kPreset.find(body);
  f.file_quant = it != kPreset.end() ? it->second : "hf-bf16";
  f.file_type = body + " (the dtype holding the most bytes)";
  if (it == kPreset.end())
    f.notes.push_back("the largest dtype " + body + " is described as hf-bf16 in the report");
}

}  // namespace

std::string not_a_model_directory(const std::string& dir) {
  std::vector<std::string> ggufs;
  size_t n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (!ends_with(name, ".gguf")) continue;
      ++n;
      if (ggufs.size() < 3) ggufs.push_back(name);
    }
    ::closedir(d);
  }
  const std::string where = sanitize(dir, 256) + ": ";
  if (n == 0) return where + "directory holds no config.json, *.safetensors or *.gguf file";
  std::sort(ggufs.begin(), ggufs.end());
  std::string list;
  for (const auto& g : ggufs) list += (list.empty() ? "" : ", ") + sanitize(g, 80);
  if (n > ggufs.size()) list += ", ...";
  return where + "directory holds " + std::to_string(n) + " GGUF file" + (n == 1 ? "" : "s") +
         " (" + list + "): give one .gguf file (a split model's first shard) as MODEL";
}

bool is_model_file_path(const std::string& path) {
  if (ends_with(path, ".gguf") || ends_with(path, ".safetensors") ||
      ends_with(path, ".safetensors.index.json"))
    return true;
  return is_dir(path) &&
         (is_file(join(path, "model.safetensors.index.json")) || !safetensors_in(path).empty());
}

ModelFile read_model_file(const std::string& path) {
  if (ends_with(path, ".gguf")) return model_file_from_gguf(read_gguf(path), path);
  if (is_model_file_path(path)) return read_safetensors_model(path);
  throw InputError(
      path +
      ": not a model file (expected *.gguf, *.safetensors, *.safetensors.index.json or a "
      "directory holding safetensors)");
}

}  // namespace llmsize
