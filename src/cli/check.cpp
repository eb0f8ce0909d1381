#include "cli/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "cli/plot.hpp"
#include "cli/report.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/input.hpp"
#include "llmsize/io/json_input.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;
using io::describe_json;

enum class Kind { string, integer, number, boolean, object };

struct Field {
  const char* name;
  Kind kind;
};

// The plan format; docs/plan.schema.json describes the same fields (a test keeps them in step).
const Field kTopFields[] = {{"$schema", Kind::string}, {"plans", Kind::object}};
const Field kPlanFields[] = {{"name", Kind::string},
                             {"description", Kind::string},
                             {"model", Kind::string},
                             {"quant", Kind::string},
                             {"context", Kind::integer},
                             {"batch", Kind::integer},
                             {"users", Kind::integer},
                             {"kv_quant", Kind::string},
                             {"flash_attn", Kind::boolean},
                             {"ubatch", Kind::integer},
                             {"engine", Kind::string},
                             {"headroom", Kind::number},
                             {"gpu", Kind::string},
                             {"gpus", Kind::integer},
                             {"gpu_price_usd", Kind::number},
                             {"budget", Kind::object},
                             {"target_tokens_per_s", Kind::number}};
const Field kBudgetFields[] = {
    {"power_watts", Kind::number}, {"ram_gib", Kind::number}, {"price_usd", Kind::number}};

// A flag named at the start of build_report()'s messages, and the plan field it comes from.
const std::pair<const char*, const char*> kFlagFields[] = {{"MODEL: ", "model"},
                                                           {"--quant: ", "quant"},
                                                           {"--ctx: ", "context"},
                                                           {"--batch: ", "batch"},
                                                           {"--users: ", "users"},
                                                           {"--kv-quant: ", "kv_quant"},
                                                           {"--flash-attn: ", "flash_attn"},
                                                           {"--ubatch: ", "ubatch"},
                                                           {"--engine: ", "engine"},
                                                           {"--headroom: ", "headroom"},
                                                           {"--gpu: ", "gpu"},
                                                           {"--gpus: ", "gpus"},
                                                           {"--price: ", "gpu_price_usd"}};

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::string:
      return "a string";
    case Kind::integer:
      return "an integer";
    case Kind::number:
      return "a number";
    case Kind::boolean:
      return "true or false";
    case Kind::object:
      return "an object";
  }
  return "?";
}

template <size_t N>
std::string field_list(const Field (&fields)[N]) {
  std::string s;
  for (const auto& f : fields) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

// Every key of `j` is one of `fields` and has its type; InputError "FILE: POINTER/key: ..." else.
template <size_t N>
void check_fields(const std::string& file, const std::string& ptr, const json& j,
                  const Field (&fields)[N]) {
  for (const auto& item : j.items()) {
    // Named copies, not a structured binding: clang 14 cannot capture bindings in a lambda.
    const std::string key = item.key();
    const json& v = item.value();
    const Field* f = std::find_if(std::begin(fields), std::end(fields),
                                  [&](const Field& x) { return key == x.name; });
    if (f == std::end(fields)) {
      std::vector<std::string> names;
      for (const auto& x : fields) names.push_back(x.name);
      throw InputError(file + ": " + ptr + "/" + io::pointer_token(key) + ": unknown field" +
                       did_you_mean(key, names) + "; the fields are " + field_list(fields));
    }
    bool ok = false;
    switch (f->kind) {
      case Kind::string:
        ok = v.is_string();
        break;
      case Kind::integer:
        ok = v.is_number_unsigned() || (v.is_number_integer() && v.template get<int64_t>() >= 0);
        break;
      case Kind::number:
        ok = v.is_number();
        break;
      case Kind::boolean:
        ok = v.is_boolean();
        break;
      case Kind::object:
        ok = key == std::string("plans") ? v.is_array() : v.is_object();
        break;
    }
    if (!ok)
      throw InputError(file + ": " + ptr + "/" + key + ": expected " +
                       (key == std::string("plans") ? "an array of plans" : kind_name(f->kind)) +
                       ", got " + describe_json(v));
  }
}

std::string num(double v) {
  std::string s = fmt::format("{:.6g}", v);
  return s;
}

// A number as a flag's text: integers without a decimal point.
std::string flag_text(const json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return v.dump();
  return num(v.get<double>());
}

std::string usd(double v) {
  const auto n = static_cast<uint64_t>(std::llround(v));
  std::string s = std::to_string(n), r;
  int k = 0;
  for (auto it = s.rbegin(); it != s.rend(); ++it, ++k) {
    if (k && k % 3 == 0) r.push_back(',');
    r.push_back(*it);
  }
  return "$" + std::string(r.rbegin(), r.rend());
}

// GiB with one decimal, without ".0" on whole numbers (80 GiB, 23.5 GiB).
std::string gib_short(uint64_t b) {
  const double g = static_cast<double>(b) / static_cast<double>(kGiB);
  const std::string s = fmt::format("{:.1f}", g);
  return s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0 ? s.substr(0, s.size() - 2) : s;
}

std::string gib1(uint64_t b) {
  return fmt::format("{:.1f}", static_cast<double>(b) / static_cast<double>(kGiB));
}

// A plan file's text (io::read_text_input: a regular file of at most 64 MiB), an unopenable one
// worded "FILE: cannot read: <reason>" as check always has.
std::string read_file(const std::string& path) {
  try {
    return io::read_text_input(path, io::kPlanInput);
  } catch (const io::OpenError& e) {
    throw InputError(sanitize(path, 256) + ": cannot read: " + e.reason());
  }
}

struct PlanInput {
  std::string file, pointer, name;
  Options options;
  json budget;  // object or null
  double target_tps = 0;
};

// One plan object at `ptr` of `file` as the options of a build_report() call.
PlanInput read_plan(const std::string& file, const std::string& ptr, const json& p,
                    const Options& base) {
  if (!p.is_object())
    throw InputError(file + ": " + ptr + ": expected a plan object, got " + describe_json(p));
  check_fields(file, ptr, p, kPlanFields);
  for (const char* req : {"model", "gpu"})
    if (!p.contains(req)) throw InputError(file + ": " + ptr + ": missing field \"" + req + "\"");
  PlanInput in;
  in.file = file;
  in.pointer = ptr;
  Options& o = in.options;
  o = base;
  o.planning = PlanningOptions();
  o.format = "json";
  o.model = p.at("model").get<std::string>();
  o.gpu = p.at("gpu").get<std::string>();
  o.gpus = p.contains("gpus") ? flag_text(p.at("gpus")) : "1";
  if (p.contains("quant")) o.quant = p.at("quant").get<std::string>();
  if (p.contains("context")) o.ctx = flag_text(p.at("context"));
  if (p.contains("batch")) o.batch = flag_text(p.at("batch"));
  if (p.contains("users")) o.users = flag_text(p.at("users"));
  if (p.contains("kv_quant")) o.kv_quant = p.at("kv_quant").get<std::string>();
  if (p.contains("flash_attn")) o.flash_attn = p.at("flash_attn").get<bool>() ? "on" : "off";
  if (p.contains("ubatch")) o.ubatch = flag_text(p.at("ubatch"));
  if (p.contains("engine")) o.engine = p.at("engine").get<std::string>();
  if (p.contains("headroom")) o.headroom = flag_text(p.at("headroom"));
  if (p.contains("gpu_price_usd"))
    o.prices.push_back(o.gpu + "=" + flag_text(p.at("gpu_price_usd")));
  // The name is printed in PASS/FAIL lines and JUnit: escaped like any untrusted text.
  in.name = sanitize(p.contains("name") ? p.at("name").get<std::string>() : o.model);
  if (p.contains("budget")) {
    in.budget = p.at("budget");
    check_fields(file, ptr + "/budget", in.budget, kBudgetFields);
    for (const auto& item : in.budget.items())
      if (!(item.value().get<double>() > 0))
        throw InputError(file + ": " + ptr + "/budget/" + item.key() +
                         ": expected a number above 0, got " + describe_json(item.value()));
  }
  if (p.contains("target_tokens_per_s")) {
    in.target_tps = p.at("target_tokens_per_s").get<double>();
    if (!(in.target_tps > 0))
      throw InputError(file + ": " + ptr + "/target_tokens_per_s: expected a number above 0, got " +
                       describe_json(p.at("target_tokens_per_s")));
  }
  return in;
}

// Streams the plans of `text` (the file `file`) to `sink` as the parser finishes each one; the
// plan's JSON is then dropped, so memory holds one plan at a time whatever the file's length.
void read_plan_text(std::string_view text, const std::string& file, const Options& base,
                    const std::function<void(const PlanInput&)>& sink) {
  size_t n_plans = 0;
  const io::JsonKeep keep = [&](io::JsonValue& e) {
    if (e.depth != 2 || !e.in_array || e.top_key != "plans") return true;
    const std::string ptr = "/plans/" + std::to_string(n_plans++);
    sink(read_plan(file, ptr, e.value, base));
    return false;
  };
  json doc;
  try {
    doc = io::parse_json(text, file, keep);
  } catch (const json::exception& e) {  // parse errors, and out_of_range for numbers like 1e432
    throw InputError(file + ": invalid JSON: " + json_reason(e));
  }
  if (!doc.is_object())
    throw InputError(file + ": expected an object with \"plans\": [...], got " +
                     std::string(doc.type_name()));
  check_fields(file, "", doc, kTopFields);
  if (!doc.contains("plans"))
    throw InputError(file + ": missing field \"plans\" (an array of plans)");
  if (n_plans == 0) throw InputError(file + ": /plans: no plans in the array");
}

void read_plan_file(const std::string& path, const Options& base,
                    const std::function<void(const PlanInput&)>& sink) {
  read_plan_text(read_file(path), sanitize(path, 256), base, sink);
}

// build_report() for a plan, its errors pointed at the plan's fields.
Report plan_report(const PlanInput& in, const Catalog& cat) {
  try {
    return build_report(in.options, cat);
  } catch (const InputError& e) {
    const std::string m = e.what();
    for (const auto& [flag, field] : kFlagFields) {
      const std::string f = flag;
      if (m.rfind(f, 0) == 0)
        throw InputError(in.file + ": " + in.pointer + "/" + field + ": " + m.substr(f.size()));
    }
    throw InputError(in.file + ": " + in.pointer + ": " + m);
  }
}

// The options a plan's report depends on, as one key: plans that differ only in name, budget or
// target share a report.
std::string report_key(const Options& o) {
  std::string k;
  for (const std::string* f : {&o.model, &o.quant, &o.ctx, &o.batch, &o.users, &o.kv_quant,
                               &o.flash_attn, &o.ubatch, &o.engine, &o.headroom, &o.gpu, &o.gpus})
    k += *f + '\x1f';
  for (const auto& p : o.prices) k += p + '\x1e';
  return k;
}

// What check reads of a plan's report: a few numbers and names (and the report's JSON for
// --format json), so recent configurations can be kept without keeping their reports.
struct PlanFacts {
  std::string model, quant, gpu_id, gpu_name;
  uint64_t n_ctx = 0, n_seq = 0, count = 0, count_needed = 0;
  bool fits = false;
  uint64_t per_gpu_bytes = 0, usable_bytes = 0, kv_cache_bytes = 0;
  std::optional<double> peak_w;
  std::optional<uint64_t> ram_required_bytes;
  std::optional<double> capex_usd;  // when priced
  double decode_tokens_per_s = 0;
  std::string report_json;
};

PlanFacts facts_of(const Report& r, bool with_report) {
  PlanFacts f;
  const GpuPlan& p = *r.gpu;
  f.model = r.model.spec.id.empty() ? r.model.spec.name : r.model.spec.id;
  f.quant = r.quant->id;
  f.gpu_id = p.gpu.id;
  f.gpu_name = p.gpu.name;
  f.n_ctx = r.config.kv.n_ctx;
  f.n_seq = r.config.kv.n_seq;
  f.count = p.count;
  f.count_needed = p.count_needed;
  f.fits = p.fits;
  f.per_gpu_bytes = p.per_gpu_bytes;
  f.usable_bytes = p.gpu.usable_bytes();
  f.kv_cache_bytes = r.estimate.kv_cache_bytes;
  if (r.power) f.peak_w = r.power->peak_w;
  if (r.host) f.ram_required_bytes = r.host->ram.required_bytes;
  if (r.cost && r.cost->priced) f.capex_usd = r.cost->capex_usd;
  if (r.speed) f.decode_tokens_per_s = r.speed->decode_tokens_per_s;
  if (with_report) f.report_json = render_json(r);
  return f;
}

// The facts of recent distinct configurations: a CI file of 100,000 plans repeats a few thousand
// model x GPU x context settings. Bounded (a few MB): cleared when full.
class FactsCache {
 public:
  explicit FactsCache(bool with_report) : with_report_(with_report) {}
  const PlanFacts& get(const PlanInput& in, const Catalog& cat) {
    const std::string key = report_key(in.options);
    if (const auto it = map_.find(key); it != map_.end()) return it->second;
    if (map_.size() >= (with_report_ ? kMaxWithReport : kMax)) map_.clear();
    return map_.emplace(key, facts_of(plan_report(in, cat), with_report_)).first->second;
  }

 private:
  static constexpr size_t kMax = 8192;           // ~400 bytes each
  static constexpr size_t kMaxWithReport = 512;  // + the report's JSON, ~10 KB
  bool with_report_;
  std::unordered_map<std::string, PlanFacts> map_;
};

PlanResult check_plan(const PlanInput& in, const Catalog& cat, FactsCache& cache) {
  const PlanFacts& r = cache.get(in, cat);
  PlanResult res;
  res.file = in.file;
  res.pointer = in.pointer;
  res.name = in.name;
  res.report_json = r.report_json;
  const std::string usable = gib_short(r.usable_bytes);
  res.summary = fmt::format("{} {} ctx {} × {} on {} × {}: {} of {} GiB per GPU", r.model, r.quant,
                            r.n_ctx, r.n_seq, r.count, r.gpu_id, gib1(r.per_gpu_bytes), usable);

  if (!r.fits) {
    PlanFailure f;
    f.check = "memory";
    f.value = static_cast<double>(r.per_gpu_bytes);
    f.limit = static_cast<double>(r.usable_bytes);
    f.unit = "bytes";
    f.message =
        r.count_needed == 0
            ? fmt::format("{} cannot hold it at any count up to 1024: {} GiB per GPU > {} GiB",
                          r.gpu_id, gib1(r.per_gpu_bytes), usable)
            : fmt::format("needs {} × {}, plan has {}: {} GiB > {} GiB", r.count_needed, r.gpu_id,
                          r.count, gib1(r.per_gpu_bytes), usable);
    f.detail = fmt::format("KV cache at ctx {} adds {} GiB", r.n_ctx, gib1(r.kv_cache_bytes));
    if (r.n_seq > 1) f.detail += fmt::format(" for {} sequences", r.n_seq);
    res.failures.push_back(f);
  }
  const std::string budget_ptr = in.file + ": " + in.pointer + "/budget/";
  if (in.budget.is_object()) {
    if (in.budget.contains("power_watts")) {
      const double b = in.budget.at("power_watts").get<double>();
      if (!r.peak_w)
        throw InputError(budget_ptr + "power_watts: " + r.gpu_name +
                         " is a whole computer: llmsize has no power figure to check");
      res.summary += fmt::format(", peak {:.0f} W", *r.peak_w);
      if (*r.peak_w > b)
        res.failures.push_back({"power",
                                fmt::format("peak power {:.0f} W > budget {} W", *r.peak_w, num(b)),
                                "", *r.peak_w, b, "W"});
    }
    if (in.budget.contains("ram_gib")) {
      const double b = in.budget.at("ram_gib").get<double>();
      if (!r.ram_required_bytes)
        throw InputError(budget_ptr + "ram_gib: " + r.gpu_name +
                         " is a whole computer: llmsize plans no separate system RAM");
      const uint64_t ram = *r.ram_required_bytes;
      const double need = static_cast<double>(ram) / static_cast<double>(kGiB);
      res.summary += fmt::format(", {} GiB RAM", gib_short(ram));
      if (need > b)
        res.failures.push_back(
            {"ram", fmt::format("system RAM {} GiB needed > budget {} GiB", gib_short(ram), num(b)),
             "", static_cast<double>(ram), b * static_cast<double>(kGiB), "bytes"});
    }
    if (in.budget.contains("price_usd")) {
      const double b = in.budget.at("price_usd").get<double>();
      if (!r.capex_usd)
        throw InputError(budget_ptr + "price_usd: " + r.gpu_id +
                         " has no catalog price; give one with \"gpu_price_usd\"");
      res.summary += fmt::format(", {}", usd(*r.capex_usd));
      if (*r.capex_usd > b)
        res.failures.push_back({"price",
                                fmt::format("hardware {} > budget {}", usd(*r.capex_usd), usd(b)),
                                "", *r.capex_usd, b, "USD"});
    }
  }
  if (in.target_tps > 0) {
    const double d = r.decode_tokens_per_s;
    res.summary += fmt::format(", {:.1f} tok/s per sequence", d);
    if (d < in.target_tps)
      res.failures.push_back(
          {"speed",
           fmt::format(
               "decode {:.1f} tok/s per sequence < target {} tok/s ({} sequence{} at ctx {})", d,
               num(in.target_tps), r.n_seq, r.n_seq == 1 ? "" : "s", r.n_ctx),
           "", d, in.target_tps, "tokens/s"});
  }
  return res;
}

std::vector<std::string> reasons(const PlanResult& r) {
  std::vector<std::string> v;
  for (const auto& f : r.failures) {
    v.push_back(f.message);
    if (!f.detail.empty()) v.push_back(f.detail);
  }
  return v;
}

}  // namespace

std::string PlanResult::line() const {
  const std::string label = fmt::format("{} ({}#{})", name, file, pointer);
  if (pass()) return fmt::format("PASS {}: {}", label, summary);
  return fmt::format("FAIL {}: {}", label, fmt::join(reasons(*this), "; "));
}

size_t read_plans(std::string_view text, const std::string& where, const Options& base) {
  size_t n = 0;
  read_plan_text(text, where, base, [&](const PlanInput&) { ++n; });
  return n;
}

std::vector<PlanResult> check_plans(const Options& o, const Catalog& cat) {
  std::vector<PlanResult> out;
  const bool with_report = o.format == "json";
  FactsCache cache(with_report);
  for (const auto& f : o.planning.plan_files)
    read_plan_file(f, o, [&](const PlanInput& in) { out.push_back(check_plan(in, cat, cache)); });
  return out;
}

std::string render_check_table(const std::vector<PlanResult>& results) {
  std::string s;
  for (const auto& r : results) s += r.line() + "\n";
  return s;
}

std::string render_check_json(const std::vector<PlanResult>& results) {
  // Written plan by plan (as dump(2) of the whole would), never holding every plan's tree.
  size_t failed = 0;
  for (const auto& r : results) failed += !r.pass();
  std::string s =
      "{\n  \"schema_version\": 1,\n  \"passed\": " + std::to_string(results.size() - failed) +
      ",\n  \"failed\": " + std::to_string(failed) + ",\n  \"plans\": [";
  bool first = true;
  for (const auto& r : results) {
    ojson f = ojson::array();
    for (const auto& x : r.failures)
      f.push_back({{"check", x.check},
                   {"message", x.message},
                   {"detail", x.detail.empty() ? ojson() : ojson(x.detail)},
                   {"value", x.value},
                   {"limit", x.limit},
                   {"unit", x.unit}});
    const ojson plan = {{"file", r.file},
                        {"pointer", r.pointer},
                        {"name", r.name},
                        {"pass", r.pass()},
                        {"line", r.line()},
                        {"failures", f},
                        {"report", ojson::parse(r.report_json)}};
    std::string text = plan.dump(2);
    s += first ? "\n    " : ",\n    ";
    first = false;
    for (const char c : text) {
      s += c;
      if (c == '\n') s += "    ";
    }
  }
  s += results.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return s;
}

std::string render_check_junit(const std::vector<PlanResult>& results) {
  size_t failed = 0;
  for (const auto& r : results) failed += !r.pass();
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s +=
      fmt::format("<testsuites name=\"llmsize check\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
                  results.size(), failed);
  // One suite per plan file, in the order given.
  std::vector<std::string> files;
  for (const auto& r : results)
    if (std::find(files.begin(), files.end(), r.file) == files.end()) files.push_back(r.file);
  for (const auto& file : files) {
    size_t n = 0, nf = 0;
    for (const auto& r : results)
      if (r.file == file) {
        ++n;
        nf += !r.pass();
      }
    s += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
        xml_escape(file), n, nf);
    for (const auto& r : results) {
      if (r.file != file) continue;
      s += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">\n", xml_escape(file),
                       xml_escape(r.name));
      if (r.pass()) {
        s += fmt::format("      <system-out>{}</system-out>\n", xml_escape(r.line()));
      } else {
        const auto v = reasons(r);
        s += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                         xml_escape(r.failures.front().check),
                         xml_escape(fmt::format("{}", fmt::join(v, "; "))), xml_escape(r.line()));
      }
      s += "    </testcase>\n";
    }
    s += "  </testsuite>\n";
  }
  s += "</testsuites>\n";
  return s;
}

int run_check(const Options& o, std::string& out) {
  const std::string& fmt_name = o.format;
  if (fmt_name != "table" && fmt_name != "json")
    throw InputError("--format: expected table or json, got '" + fmt_name + "'");
  Catalog cat = Catalog::builtin();
  for (const auto& f : o.catalogs) cat.merge_file(f);
  const std::vector<PlanResult> results = check_plans(o, cat);
  if (!o.planning.junit.empty())
    write_text_file("--junit", o.planning.junit, render_check_junit(results));
  out = fmt_name == "json" ? render_check_json(results) : render_check_table(results);
  const bool all =
      std::all_of(results.begin(), results.end(), [](const PlanResult& r) { return r.pass(); });
  return all ? 0 : 1;
}

}  // namespace llmsize::cli
