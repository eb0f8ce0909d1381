#include "llmsize/io/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>

#include "compiled_catalog.hpp"
#include "io/json_input.hpp"
#include "io/json_readers.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/input.hpp"
#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize {
namespace {

// The calibrated vendor `v` is a misspelling of (another case, or 1-2 edits away at 4+
// letters), or null when v is one of them or unlike any. The calibrated vendors are gpu.hpp's
// words after "other".
const char* misspelt_vendor(const std::string& v) {
  std::string low = v;
  for (auto& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (size_t i = 1; i < std::size(kGpuVendorWords); ++i) {
    const char* k = kGpuVendorWords[i];
    if (v == k) return nullptr;
    if (low == k || (v.size() >= 4 && edit_distance(low, k) <= 2)) return k;
  }
  return nullptr;
}

using json = nlohmann::json;
using io::describe_json;

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// An id is typed on command lines: printable ASCII without spaces, at most 128 bytes.
bool plain_id(const std::string& id) {
  if (id.size() > 128) return false;
  for (const char ch : id)
    if (static_cast<unsigned char>(ch) <= 0x20 || static_cast<unsigned char>(ch) >= 0x7f)
      return false;
  return true;
}

// Entries of one list in one catalog file: reading takes about 10 us of CPU an entry here
// (nlohmann's lexer and object, then the field checks), so 65,536 stay within the 1 s every
// input is held to (131,072 took 1.2-1.3 s on the 2-core machine CI runs on); a real catalog
// holds a hundred.
constexpr size_t kMaxCatalogEntries = 1 << 16;
// Platforms in one catalog file: data/platforms.json holds 24 machines, and one row takes a
// hundred lookups to read (131,072 of them took 2 s); 4,096 is a whole vendor line-up many times.
constexpr size_t kMaxCatalogPlatforms = 1 << 12;

struct Ctx {
  std::string where;
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(where + (path.empty() ? "" : ": " + path) + ": " + what);
  }
  // The field `key` of `o`, or nullptr when absent or null: one lookup.
  static const json* field(const json& o, const char* key) {
    const auto it = o.find(key);
    return it == o.end() || it->is_null() ? nullptr : &*it;
  }
  std::string str(const json& o, const std::string& path, const char* key,
                  bool required = true) const {
    const json* v = field(o, key);
    if (!v) {
      if (required) fail(path + "/" + key, "missing (expected a string)");
      return {};
    }
    if (!v->is_string()) fail(path + "/" + key, "expected a string, got " + describe_json(*v));
    // Names, vendors and sources are printed in tables: escaped like any untrusted text.
    return std::string(key) == "id" ? v->get<std::string>() : sanitize(v->get<std::string>(), 512);
  }
  double num(const json& o, const std::string& path, const char* key, bool required, double lo = 0,
             double hi = 1e12) const {
    const json* v = field(o, key);
    if (!v) {
      if (required) fail(path + "/" + key, "missing (expected a number)");
      return 0;
    }
    if (!v->is_number()) fail(path + "/" + key, "expected a number, got " + describe_json(*v));
    const double d = v->get<double>();
    if (!(d >= lo && d <= hi)) {
      // The bounds as a person writes them: 24576, 0.01, 1000000.
      const auto text = [](double x) {
        std::ostringstream os;
        os.precision(15);
        os << x;
        return os.str();
      };
      fail(path + "/" + key, "out of range: " + describe_json(*v) +
                                 (hi >= 1e12 ? " (expected at least " + text(lo) + ")"
                                             : " (expected " + text(lo) + " to " + text(hi) + ")"));
    }
    return d;
  }
  // An optional rate that divides (bandwidth, TFLOPS): absent is 0 (unknown), present must be > 0.
  double rate(const json& o, const std::string& path, const char* key, double hi) const {
    const double v = num(o, path, key, false, 0, hi);
    if (field(o, key) && !(v > 0))
      fail(path + "/" + key, "expected a number above 0, got " + describe_json(*field(o, key)) +
                                 " (leave it out if unknown)");
    return v;
  }
  std::vector<std::string> strs(const json& o, const std::string& path, const char* key) const {
    std::vector<std::string> v;
    if (!o.contains(key) || o[key].is_null()) return v;
    if (!o[key].is_array()) fail(path + "/" + key, "expected an array of strings");
    for (size_t i = 0; i < o[key].size(); ++i) {
      if (!o[key][i].is_string())
        fail(path + "/" + key + "/" + std::to_string(i), "expected a string");
      v.push_back(sanitize(lower(o[key][i].get<std::string>()), 512));
    }
    return v;
  }
};

// `o` is an object whose fields are all in `keys`; else the error names the first other one and
// lists them ("expected a, b or c").
void known_fields(const json& o, const std::string& path, const Ctx& c,
                  std::initializer_list<std::string_view> keys) {
  if (!o.is_object()) c.fail(path, "expected an object");
  for (const auto& [key, value] : o.items()) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) continue;
    c.fail(
        path + "/" + sanitize(key, 64),
        "unknown field; expected " + or_list(std::vector<std::string>(keys.begin(), keys.end())));
  }
}

// The optional boolean field `key` of `o` (absent: false).
bool boolean(const json& o, const std::string& path, const char* key, const Ctx& c) {
  const json* v = Ctx::field(o, key);
  if (!v) return false;
  if (!v->is_boolean())
    c.fail(path + "/" + key, "expected true or false, got " + describe_json(*v));
  return v->get<bool>();
}

// A parser or format name as the engines spell them: lowercase letters, digits, '_', '-', '.'.
bool engine_word(const std::string& s) {
  if (s.empty() || s.size() > 64 || s.front() == '-') return false;
  for (const char ch : s)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
          ch == '.'))
      return false;
  return true;
}

// "serving"/"vllm" or "serving"/"sglang": what the model's deployment guide passes that engine.
// Every value reaches a pasted launch command: parsers and formats are plain words, a further
// flag one the engine documents (guide_flag_problem), the chat template a relative path.
EngineFlags read_engine_flags(const json& o, const std::string& path, Engine engine, const Ctx& c) {
  known_fields(
      o, path, c,
      {"trust_remote_code", "tool_call_parser", "reasoning_parser", "tool_chat_template", "args"});
  EngineFlags f;
  f.trust_remote_code = boolean(o, path, "trust_remote_code", c);
  auto word = [&](const char* key) {
    std::string w = c.str(o, path, key, false);
    if (!w.empty() && !engine_word(w))
      c.fail(path + "/" + key, "expected a parser name (lowercase letters, digits, _ - .), got " +
                                   sanitize_quoted(w));
    return w;
  };
  f.tool_call_parser = word("tool_call_parser");
  f.reasoning_parser = word("reasoning_parser");
  f.tool_chat_template = c.str(o, path, "tool_chat_template", false);
  const std::string& tpl = f.tool_chat_template;
  const bool relative = tpl.empty() || (tpl.front() != '/' && tpl.find("..") == std::string::npos &&
                                        std::all_of(tpl.begin(), tpl.end(), [](char ch) {
                                          return ch == '/' || engine_word(std::string(1, ch));
                                        }));
  if (!relative)
    c.fail(path + "/tool_chat_template",
           "expected a relative path in the engine's source tree, got " + sanitize_quoted(tpl));
  f.args = c.strs(o, path, "args");
  for (size_t i = 0; i < f.args.size(); i += 2) {
    const std::string at = path + "/args/" + std::to_string(i);
    if (const std::string why = guide_flag_problem(f.args[i], engine); !why.empty())
      c.fail(at, sanitize_quoted(f.args[i]) + " " + why);
    if (i + 1 >= f.args.size() || !engine_word(f.args[i + 1]))
      c.fail(path + "/args/" + std::to_string(i + 1),
             "expected the value of " + f.args[i] + " (a plain word)");
  }
  return f;
}

ModelServingGuide read_serving(const json& o, const std::string& path, const Ctx& c) {
  known_fields(o, path, c, {"reasoning", "vllm", "sglang", "source"});
  ModelServingGuide g;
  g.reasoning = boolean(o, path, "reasoning", c);
  if (const json* v = Ctx::field(o, "vllm"))
    g.vllm = read_engine_flags(*v, path + "/vllm", Engine::vllm, c);
  if (const json* v = Ctx::field(o, "sglang"))
    g.sglang = read_engine_flags(*v, path + "/sglang", Engine::sglang, c);
  g.source = c.str(o, path, "source", true);
  return g;
}

CatalogModel read_model(const json& e, const std::string& path, const Ctx& c) {
  if (!e.is_object()) c.fail(path, "expected an object");
  CatalogModel cm;
  const std::string id = c.str(e, path, "id");
  if (id.empty() || lower(id) != id || !plain_id(id))
    c.fail(path + "/id", "expected a lowercase id, got " + sanitize_quoted(id));
  if (!e.contains("config"))
    c.fail(path + "/config", "missing (expected the model's config.json fields)");
  cm.spec = model_from_hf_config(e["config"], c.where + ": " + path + "/config");
  cm.spec.id = id;
  cm.spec.name = c.str(e, path, "name");
  const double p = c.num(e, path, "params_official", false, 0, 1e15);
  cm.spec.params_official = static_cast<uint64_t>(p);
  cm.spec.params_source = c.str(e, path, "params_source", false);
  cm.aliases = c.strs(e, path, "aliases");
  cm.shorthand = c.strs(e, path, "shorthand");
  cm.hf_repo = c.str(e, path, "hf_repo", false);
  // "task": what the model is run for, when its config.json does not say (Qwen3-Embedding is a
  // Qwen3ForCausalLM).
  if (const std::string task = c.str(e, path, "task", false); !task.empty()) {
    const auto t = task_from_name(task);
    if (!t)
      c.fail(path + "/task", "unknown task " + sanitize_quoted(task) +
                                 "; expected generation, embedding or rerank");
    set_task(cm.spec, *t);
  }
  // "mtp_embeddings": false for a checkpoint whose MTP layer shares the model's embedding and
  // output instead of storing its own copies (GLM-4.6: its HF total has none).
  if (e.contains("mtp_embeddings")) {
    if (!e["mtp_embeddings"].is_boolean())
      c.fail(path + "/mtp_embeddings",
             "expected true or false, got " + describe_json(e["mtp_embeddings"]));
    cm.spec.nextn_embeddings = e["mtp_embeddings"].get<bool>() && cm.spec.n_layer_nextn > 0;
  }
  cm.source = c.str(e, path, "source", true);
  cm.origin = c.where;
  if (const json* g = Ctx::field(e, "serving")) cm.serving = read_serving(*g, path + "/serving", c);
  return cm;
}

// The GPU enum a catalog word of `table` (gpu.hpp) names; another word fails at `path` with the
// table's words (its empty word, "not recorded", left out) and the nearest of them (another
// case, or at most 2 edits; the fewest edits first).
template <class E, size_t N>
E gpu_word(const std::string& got, const char* const (&table)[N], const std::string& path,
           const Ctx& c) {
  if (const auto v = gpu_word_value<E>(table, got)) return *v;
  std::string low = got;
  for (auto& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::vector<std::string> words;
  const char* best = nullptr;
  size_t best_edits = 3;
  for (const char* w : table) {
    if (!*w) continue;
    words.push_back(w);
    if (const size_t edits = edit_distance(low, w); edits < best_edits)
      best = w, best_edits = edits;
  }
  c.fail(path, "expected " + or_list(words) + ", got " + sanitize_quoted(got) +
                   (best ? std::string(" (did you mean ") + best + "?)" : ""));
}

CatalogGpu read_gpu(const json& e, const std::string& path, const Ctx& c) {
  if (!e.is_object()) c.fail(path, "expected an object");
  CatalogGpu g;
  GpuSpec& s = g.spec;
  s.id = c.str(e, path, "id");
  if (s.id.empty() || lower(s.id) != s.id || !plain_id(s.id))
    c.fail(path + "/id", "expected a lowercase id, got " + sanitize_quoted(s.id));
  s.name = c.str(e, path, "name");
  const std::string vendor = c.str(e, path, "vendor");
  // The vendor picks the speed calibration (speed.cpp): a misspelt known vendor ("nvida",
  // "NVIDIA") would silently pick the uncalibrated family, so it is refused; another maker's
  // name is accepted (GpuVendor::other: its speed is reported as uncalibrated).
  if (const char* known = misspelt_vendor(vendor))
    c.fail(path + "/vendor",
           "expected nvidia, amd, intel or apple (or another maker's name), got " +
               sanitize_quoted(vendor) + " (did you mean " + known + "?)");
  s.vendor = gpu_vendor_from_name(vendor);
  s.gpu_class =
      gpu_word<GpuClass>(c.str(e, path, "class", false), kGpuClassWords, path + "/class", c);
  const double mem_gib = c.num(e, path, "memory_gib", true, 0.001, 1e6);
  s.memory_bytes = static_cast<uint64_t>(mem_gib * static_cast<double>(kGiB));
  s.memory_fraction = c.num(e, path, "gpu_memory_fraction", false, 0.01, 1.0);
  if (s.memory_fraction == 0) s.memory_fraction = 1.0;
  // The runtime's total (MiB, as deviceQuery and nvidia-smi print it): below the nominal memory.
  const double visible_mib = c.num(e, path, "visible_memory_mib", false, 0, mem_gib * 1024);
  s.visible_memory_bytes = static_cast<uint64_t>(visible_mib) * kMiB;
  s.memory_type = c.str(e, path, "memory_type", false);
  s.bandwidth_gb_per_s = c.rate(e, path, "bandwidth_gb_per_s", 1e6);
  s.board_power_w = c.num(e, path, "board_power_w", false, 0, 1e5);
  s.fp16_tflops_dense = c.rate(e, path, "fp16_tflops_dense", 1e6);
  s.bf16_tflops_dense = c.rate(e, path, "bf16_tflops_dense", 1e6);
  s.fp8_tflops_dense = c.rate(e, path, "fp8_tflops_dense", 1e6);
  s.fp4_tflops_dense = c.rate(e, path, "fp4_tflops_dense", 1e6);
  s.int8_tops_dense = c.rate(e, path, "int8_tops_dense", 1e6);
  s.architecture = c.str(e, path, "architecture", false);
  if (!s.architecture.empty() && !known_architecture(s.architecture))
    c.fail(
        path + "/architecture",
        "expected volta, turing, ampere, ada, hopper, blackwell, blackwell-ultra, rtx-blackwell, "
        "rdna2, rdna3, rdna4, cdna2, cdna3 or cdna4, got " +
            sanitize_quoted(s.architecture));
  s.market = c.str(e, path, "market", false);
  if (!s.market.empty() && s.market != "china")
    c.fail(path + "/market",
           "expected china (a part made for one market) or no field (sold worldwide), got " +
               sanitize_quoted(s.market));
  if (e.contains("interconnect") && e["interconnect"].is_object()) {
    const std::string kind = c.str(e["interconnect"], path + "/interconnect", "kind", false);
    s.interconnect = gpu_word<GpuInterconnect>(kind.empty() ? "none" : kind, kInterconnectWords,
                                               path + "/interconnect/kind", c);
    s.interconnect_gb_per_s =
        c.num(e["interconnect"], path + "/interconnect", "bandwidth_gb_per_s", false, 0, 1e6);
    // A rack-scale NVLink domain (NVL72): the GPUs its switches join.
    s.link_domain_gpus = static_cast<uint32_t>(
        c.num(e["interconnect"], path + "/interconnect", "domain_gpus", false, 0, 576));
  } else if (e.contains("interconnect") && !e["interconnect"].is_null()) {
    c.fail(path + "/interconnect", "expected an object {kind, bandwidth_gb_per_s}");
  }
  s.pcie_gen = static_cast<uint32_t>(c.num(e, path, "pcie_gen", false, 0, 10));
  s.pcie_lanes = static_cast<uint32_t>(c.num(e, path, "pcie_lanes", false, 0, 32));
  s.slot_width = c.num(e, path, "slot_width", false, 0, 8);
  s.form_factor = gpu_word<FormFactor>(c.str(e, path, "form_factor", false), kFormFactorWords,
                                       path + "/form_factor", c);
  if (e.contains("unified_memory") && !e["unified_memory"].is_null()) {
    if (!e["unified_memory"].is_boolean())
      c.fail(path + "/unified_memory",
             "expected true or false, got " + describe_json(e["unified_memory"]));
    s.unified_memory = e["unified_memory"].get<bool>();
  }
  // A unified-memory system (class "soc": Apple M-series, NVIDIA GB10, AMD Ryzen AI Max) is a
  // whole computer; without the flag it would be planned as a card in a host.
  if (s.gpu_class == GpuClass::soc && !s.unified_memory)
    c.fail(path + "/unified_memory", "class \"soc\" is a unified-memory system: expected true");
  s.backends = c.strs(e, path, "backends");
  s.price_usd = c.num(e, path, "price_usd", false, 0, 1e8);
  s.price_date = c.str(e, path, "price_date", false);
  s.price_kind = c.str(e, path, "price_kind", false);
  s.rent_usd_per_gpu_hour = c.num(e, path, "rent_usd_per_gpu_hour", false, 0, 1e4);
  s.rent_low_usd_per_gpu_hour = c.num(e, path, "rent_low_usd_per_gpu_hour", false, 0, 1e4);
  s.rent_high_usd_per_gpu_hour = c.num(e, path, "rent_high_usd_per_gpu_hour", false, 0, 1e4);
  s.rent_providers = static_cast<uint32_t>(c.num(e, path, "rent_providers", false, 0, 1000));
  s.rent_date = c.str(e, path, "rent_date", false);
  if (s.rent_usd_per_gpu_hour > 0 && !(s.rent_low_usd_per_gpu_hour <= s.rent_usd_per_gpu_hour &&
                                       s.rent_usd_per_gpu_hour <= s.rent_high_usd_per_gpu_hour))
    c.fail(path + "/rent_usd_per_gpu_hour",
           "expected a price within rent_low_usd_per_gpu_hour and rent_high_usd_per_gpu_hour");
  g.aliases = c.strs(e, path, "aliases");
  if (e.contains("sources") && e["sources"].is_object()) {
    for (const char* k : {"memory", "bandwidth"})
      if (e["sources"].contains(k) && e["sources"][k].is_string()) {
        if (!g.source.empty()) g.source += "; ";
        g.source += sanitize(e["sources"][k].get<std::string>(), 512);
      }
  }
  g.origin = c.where;
  return g;
}

// Adds or replaces by id through the id -> position index: linear in the entries merged. Returns
// the item's position.
template <class T>
size_t upsert(std::vector<T>& v, std::unordered_map<std::string, size_t>& index, T item) {
  const auto [it, added] = index.emplace(item.spec.id, v.size());
  if (added)
    v.push_back(std::move(item));
  else
    v[it->second] = std::move(item);
  return it->second;
}

}  // namespace

namespace {

// The entry of `name` in a sorted table, or -1.
long lookup(const CatalogTable<CatalogName>& t, const std::string& name) {
  const auto it =
      std::lower_bound(t.begin(), t.end(), name,
                       [](const CatalogName& e, const std::string& n) { return e.name < n; });
  return it != t.end() && it->name == name ? static_cast<long>(it->index) : -1;
}

}  // namespace

namespace {

// Entry i of a lazily built list: built by `build` the first time it is read; `built` (one flag
// an entry) is emptied once `unbuilt` reaches 0, so a built list costs one test a read.
template <class T, class Build>
const T& built_at(std::vector<T>& items, std::vector<bool>& built, size_t& unbuilt, size_t i,
                  Build build) {
  if (unbuilt && !built[i]) {
    items[i] = build(i);
    built[i] = true;
    if (--unbuilt == 0) built.clear();
  }
  return items[i];
}

}  // namespace

const CatalogModel& Catalog::model_at(size_t i) const {
  return built_at(models_, model_built_, models_unbuilt_, i,
                  [this](size_t k) { return compiled_->build_model(k); });
}

const CatalogGpu& Catalog::gpu_at(size_t i) const {
  return built_at(gpus_, gpu_built_, gpus_unbuilt_, i,
                  [this](size_t k) { return compiled_->build_gpu(k); });
}

const std::vector<CatalogModel>& Catalog::models() const {
  for (size_t i = 0; models_unbuilt_ && i < models_.size(); ++i) model_at(i);
  return models_;
}

const std::vector<CatalogGpu>& Catalog::gpus() const {
  for (size_t i = 0; gpus_unbuilt_ && i < gpus_.size(); ++i) gpu_at(i);
  return gpus_;
}

const std::vector<PlatformModel>& Catalog::platforms() const {
  if (platforms_unbuilt_) {
    for (size_t i = 0; i < platforms_.size(); ++i) platforms_[i] = compiled_->build_platform(i);
    platforms_unbuilt_ = false;
  }
  return platforms_;
}

void Catalog::build_all() {
  if (!compiled_) return;
  models();
  gpus();
  platforms();
  for (size_t i = 0; i < models_.size(); ++i) model_index_.emplace(models_[i].spec.id, i);
  for (size_t i = 0; i < gpus_.size(); ++i) gpu_index_.emplace(gpus_[i].spec.id, i);
  for (size_t i = 0; i < platforms_.size(); ++i) platform_index_.emplace(platforms_[i].id, i);
  compiled_ = nullptr;
}

void Catalog::merge_file(const std::string& path) {
  merge_json(io::read_text_input(path, io::kCatalogInput), sanitize(path, 256));
}

namespace {

// The arrays a catalog file may hold: data/*.json's own, so that a copy of any of them merges.
// "platforms_incomplete" rows (facts no source gave, named in "missing") and "platforms_generic"
// rows (the class stand-ins, "generic": true) are read as data/platforms.json's are.
constexpr const char* kCatalogLists[] = {"models", "gpus", "platforms", "platforms_incomplete",
                                         "platforms_generic"};

bool catalog_list(const std::string& key) {
  return std::any_of(std::begin(kCatalogLists), std::end(kCatalogLists),
                     [&](const char* l) { return key == l; });
}

}  // namespace

void Catalog::merge_json(std::string_view text, const std::string& where) {
  build_all();
  Ctx c{where};
  // Entries of the lists are read as the parser finishes each one and their JSON dropped, so
  // memory holds one entry's tree at a time, not the file's.
  // Duplicate ids within this file: what each position of models_/gpus_/platforms_ got from it
  // (the entry's JSON pointer), found through the id index, so no second map of ids.
  std::vector<std::string> model_from(models_.size()), gpu_from(gpus_.size()),
      platform_from(platforms_.size());
  auto check_new = [&](std::vector<std::string>& from, size_t pos, const std::string& path,
                       const std::string& id) {
    if (pos >= from.size()) from.resize(pos + 1);
    if (!from[pos].empty())
      c.fail(path + "/id", "duplicate id " + sanitize_quoted(id) + " (also " + from[pos] + ")");
    from[pos] = path;
  };
  std::unordered_map<std::string, size_t> entries;  // per list
  size_t n_platforms = 0;                           // the three platform lists together
  const io::JsonKeep keep = [&](io::JsonValue& e) {
    if (e.depth != 2 || !e.in_array || !catalog_list(e.top_key)) return true;
    const std::string& list = e.top_key;
    json& parsed = e.value;
    const bool platform = list.rfind("platforms", 0) == 0;
    const size_t entry = entries[list]++;
    const size_t most = platform ? kMaxCatalogPlatforms : kMaxCatalogEntries;
    if ((platform ? n_platforms++ : entry) >= most)
      c.fail("/" + list, "more than " + std::to_string(most) + " entries");
    const std::string path = "/" + list + "/" + std::to_string(entry);
    if (list == "models") {
      CatalogModel m = read_model(parsed, path, c);
      const std::string id = m.spec.id;
      check_new(model_from, upsert(models_, model_index_, std::move(m)), path, id);
    } else if (list == "gpus") {
      CatalogGpu g = read_gpu(parsed, path, c);
      const std::string id = g.spec.id;
      check_new(gpu_from, upsert(gpus_, gpu_index_, std::move(g)), path, id);
    } else {
      // Validated as data/platforms.json's rows are (platform_catalog.cpp read_platforms): a row
      // of platforms_incomplete that lacks what the selection needs is left out, as there.
      PlatformModel p;
      if (list == "platforms_incomplete") {
        try {
          p = read_platform(parsed, path, where);
        } catch (const InputError&) {
          return false;
        }
      } else {
        p = read_platform(parsed, path, where);
      }
      if (list == "platforms_generic" && !p.generic)
        c.fail(path + "/generic", "expected true (a row of platforms_generic)");
      const std::string id = p.id;
      platforms_from_.clear();
      const auto [it, added] = platform_index_.emplace(id, platforms_.size());
      if (added)
        platforms_.push_back(std::move(p));
      else
        platforms_[it->second] = std::move(p);
      check_new(platform_from, it->second, path, id);
    }
    return false;  // read: drop its JSON
  };
  json doc;
  try {
    doc = io::parse_json(text, where, keep);
  } catch (const json::parse_error& e) {
    throw InputError(where + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {  // e.g. out_of_range 406 for a number like 1e432
    throw InputError(where + ": " + json_reason(e));
  }
  if (!doc.is_object())
    c.fail("", "expected a JSON object with \"models\", \"gpus\" and/or \"platforms\"");
  if (std::none_of(std::begin(kCatalogLists), std::end(kCatalogLists),
                   [&](const char* l) { return doc.contains(l); }))
    c.fail("", "expected a \"models\", \"gpus\" or \"platforms\" array");
  for (const auto& item : doc.items())
    if (!catalog_list(item.key()) && item.key() != "schema_version" && item.key() != "note")
      c.fail("/" + io::pointer_token(item.key()),
             "unknown field (expected models, gpus, platforms, platforms_incomplete, "
             "platforms_generic, schema_version or note)");
  for (const char* l : kCatalogLists)
    if (doc.contains(l) && !doc[l].is_array()) c.fail(std::string("/") + l, "expected an array");
}

const CatalogModel* Catalog::find_model(std::string_view name) const {
  const std::string n = lower(name);
  if (compiled_) {
    long i = lookup(compiled_->model_ids, n);
    if (i < 0) i = lookup(compiled_->model_aliases, n);
    return i < 0 ? nullptr : &model_at(static_cast<size_t>(i));
  }
  if (const auto it = model_index_.find(n); it != model_index_.end()) return &models_[it->second];
  for (const auto& m : models_)
    if (std::find(m.aliases.begin(), m.aliases.end(), n) != m.aliases.end()) return &m;
  return nullptr;
}

const CatalogModel* Catalog::find_model_by_shorthand(std::string_view shorthand) const {
  const std::string n = lower(shorthand);
  if (compiled_) {
    const long i = lookup(compiled_->model_shorthands, n);
    return i < 0 ? nullptr : &model_at(static_cast<size_t>(i));
  }
  for (const auto& m : models_)
    if (std::find(m.shorthand.begin(), m.shorthand.end(), n) != m.shorthand.end()) return &m;
  return nullptr;
}

const CatalogGpu* Catalog::find_gpu(std::string_view name) const {
  const std::string n = lower(name);
  if (compiled_) {
    long i = lookup(compiled_->gpu_ids, n);
    if (i < 0) i = lookup(compiled_->gpu_aliases, n);
    return i < 0 ? nullptr : &gpu_at(static_cast<size_t>(i));
  }
  if (const auto it = gpu_index_.find(n); it != gpu_index_.end()) return &gpus_[it->second];
  for (const auto& g : gpus_)
    if (std::find(g.aliases.begin(), g.aliases.end(), n) != g.aliases.end()) return &g;
  return nullptr;
}

std::vector<std::string> Catalog::model_names() const {
  if (compiled_) return {compiled_->model_names.begin(), compiled_->model_names.end()};
  std::vector<std::string> v;
  for (const auto& m : models_) {
    v.push_back(m.spec.id);
    v.insert(v.end(), m.aliases.begin(), m.aliases.end());
  }
  return v;
}

std::vector<std::string> Catalog::gpu_names() const {
  if (compiled_) return {compiled_->gpu_names.begin(), compiled_->gpu_names.end()};
  std::vector<std::string> v;
  for (const auto& g : gpus_) {
    v.push_back(g.spec.id);
    v.insert(v.end(), g.aliases.begin(), g.aliases.end());
  }
  return v;
}

namespace {

template <class Find>
std::string suggest_ids(std::string_view name, const std::vector<std::string>& names, Find find) {
  std::vector<std::string> ids;
  for (const auto& n : closest_names(name, names, 12)) {
    const std::string id = find(n);
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    if (ids.size() == 3) break;
  }
  if (ids.empty()) return "";
  std::string s = " (did you mean ";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? ", " : "") + ids[i];
  return s + "?)";
}

}  // namespace

std::string Catalog::suggest_model(std::string_view name) const {
  return suggest_ids(name, model_names(),
                     [this](const std::string& n) { return find_model(n)->spec.id; });
}

std::string Catalog::suggest_gpu(std::string_view name) const {
  return suggest_ids(name, gpu_names(),
                     [this](const std::string& n) { return find_gpu(n)->spec.id; });
}

const std::vector<PlatformModel>& Catalog::platforms_from(PlatformClass least) const {
  auto it = platforms_from_.find(class_rank(least));
  if (it != platforms_from_.end()) return it->second;
  std::vector<PlatformModel> v;
  for (const auto& p : platforms())
    if (p.platform_class == PlatformClass::unified ||
        class_rank(p.platform_class) >= class_rank(least))
      v.push_back(p);
  return platforms_from_.emplace(class_rank(least), std::move(v)).first->second;
}

}  // namespace llmsize
