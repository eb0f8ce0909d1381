#include "cli/commands/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "cli/commands/estimate.hpp"
#include "cli/options/request.hpp"
#include "cli/render/plot.hpp"
#include "cli/render/report.hpp"
#include "cli/render/system_report.hpp"
#include "io/json_input.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/input.hpp"
#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;
using io::describe_json;

enum class Kind { string, integer, number, boolean, object };

// A plan field: its JSON type and the command-line option it fills (the main command's request
// builder, resolve_request(), reads the plan's Options as it reads the flags: one set of rules).
// `flag` is the option's name in the builder's errors, rewritten to the field's JSON pointer;
// `set` fills the option (null: read by check itself). Integers arrive range-free here: one past
// 2^32 is refused before it could wrap, the option's own range is the builder's.
struct Field {
  const char* name;
  Kind kind;
  const char* flag = nullptr;
  void (*set)(Options&, const json&) = nullptr;
  // The option reads 0 as "not given": a plan's 0 is refused, not taken for the default.
  bool zero_unset = false;
};

uint32_t u32(const json& v) {
  return static_cast<uint32_t>(v.get<uint64_t>());
}
std::string str(const json& v) {
  return v.get<std::string>();
}

// A number field whose option has no "not given" value to leave to the request builder (a
// negative headroom or a 0 share reads as the engine's): its range is checked here.
double ranged(const char* flag, const json& v, double lo, double hi) {
  const double x = v.get<double>();
  return real_in_range(flag, x, fmt::format("{:.6g}", x), lo, hi);
}

// The plan format; docs/plan.schema.json describes the same fields (a test keeps them in step).
const Field kTopFields[] = {{"$schema", Kind::string}, {"plans", Kind::object}};
const Field kPlanFields[] = {
    {"name", Kind::string},
    {"description", Kind::string},
    {"model", Kind::string, "MODEL", [](Options& o, const json& v) { o.model = str(v); }},
    {"quant", Kind::string, "--quant",
     [](Options& o, const json& v) {
       o.quant = str(v);
       o.quant_given = true;
     }},
    {"context", Kind::integer, "--ctx",
     [](Options& o, const json& v) {
       o.ctx = u32(v);
       o.ctx_given = true;
     }},
    {"batch", Kind::integer, "--batch", [](Options& o, const json& v) { o.batch = u32(v); }, true},
    {"users", Kind::integer, "--users", [](Options& o, const json& v) { o.users = u32(v); }, true},
    {"kv_quant", Kind::string, "--kv-quant",
     [](Options& o, const json& v) { o.kv_quant = str(v); }},
    {"flash_attn", Kind::boolean, "--flash-attn",
     [](Options& o, const json& v) { o.flash_attn = v.get<bool>() ? "on" : "off"; }},
    {"ubatch", Kind::integer, "--ubatch", [](Options& o, const json& v) { o.ubatch = u32(v); }},
    {"n_cpu_moe", Kind::integer, "--n-cpu-moe",
     [](Options& o, const json& v) { o.n_cpu_moe = u32(v); }},
    {"cpu_experts", Kind::boolean, "--cpu-experts",
     [](Options& o, const json& v) { o.cpu_experts = v.get<bool>(); }},
    {"kv_unified", Kind::boolean, "--kv-unified",
     [](Options& o, const json& v) { o.kv_unified = v.get<bool>(); }},
    {"draft", Kind::string, "--draft", [](Options& o, const json& v) { o.draft = str(v); }},
    {"engine", Kind::string, "--engine",
     [](Options& o, const json& v) {
       o.engine = str(v);
       o.engine_given = true;
     }},
    {"headroom", Kind::number, "--headroom",
     [](Options& o, const json& v) { o.headroom = ranged("--headroom", v, 0, 1); }},
    {"gpu", Kind::string, "--gpu", [](Options& o, const json& v) { o.gpu = str(v); }},
    {"gpus", Kind::integer, "--gpus", [](Options& o, const json& v) { o.gpus = u32(v); }, true},
    {"gpu_memory_limit_gib", Kind::number, "--gpu-memory-limit",
     [](Options& o, const json& v) {
       o.gpu_memory_limit_gib = ranged("--gpu-memory-limit", v, 1, 1048576);
     }},
    {"gpu_price_usd", Kind::number},
    {"prices", Kind::object, "--price",
     [](Options& o, const json& v) {
       // {"NAME": USD}: --price NAME=USD for each, a GPU's or a machine's.
       for (const auto& item : v.items()) {
         if (!item.value().is_number() || item.key().find('=') != std::string::npos)
           throw InputError("--price: expected {\"GPU or platform id\": US dollars}, got \"" +
                            sanitize(item.key(), 64) + "\": " + describe_json(item.value()));
         const double usd = item.value().get<double>();
         if (!(usd >= 1 && usd <= 1e8))
           throw InputError(
               fmt::format("--price: expected US dollars from 1 to 1e+08 for \"{}\", got {}",
                           sanitize(item.key(), 64), item.value().dump()));
         o.prices.push_back(item.key() + "=" + fmt::format("{:.17g}", usd));
       }
     }},
    {"budget", Kind::object},
    {"target_tokens_per_s", Kind::number, "--target-tps"},
    {"isl", Kind::integer, "--isl", [](Options& o, const json& v) { o.isl = u32(v); }, true},
    {"osl", Kind::integer, "--osl", [](Options& o, const json& v) { o.osl = u32(v); }, true},
    {"rate", Kind::number, "--rate", [](Options& o, const json& v) { o.rate = v.get<double>(); },
     true},
    {"tp", Kind::integer, "--tp", [](Options& o, const json& v) { o.tp = u32(v); }, true},
    {"pp", Kind::integer, "--pp", [](Options& o, const json& v) { o.pp = u32(v); }, true},
    {"ep", Kind::integer, "--ep", [](Options& o, const json& v) { o.ep = u32(v); }, true},
    {"prefill_gpus", Kind::integer, "--prefill-gpus",
     [](Options& o, const json& v) { o.prefill_gpus = u32(v); }, true},
    {"prefill_tp", Kind::integer, "--prefill-tp",
     [](Options& o, const json& v) { o.prefill_tp = u32(v); }, true},
    {"spec", Kind::string, "--spec", [](Options& o, const json& v) { o.spec = str(v); }},
    {"spec_tokens", Kind::integer, "--spec-tokens",
     [](Options& o, const json& v) { o.spec_tokens = u32(v); }, true},
    {"spec_acceptance", Kind::number, "--spec-acceptance",
     [](Options& o, const json& v) {
       o.spec_acceptance = ranged("--spec-acceptance", v, 0.01, 0.99);
     }},
    {"slo_percentile", Kind::string, "--slo-percentile",
     [](Options& o, const json& v) { o.slo_percentile = str(v); }},
    {"redundancy", Kind::string, "--redundancy",
     [](Options& o, const json& v) { o.redundancy = str(v); }},
    {"requests_per_user", Kind::integer, "--requests-per-user",
     [](Options& o, const json& v) { o.requests_per_user = static_cast<int64_t>(u32(v)); }},
    {"gpu_memory_utilization", Kind::number, "--gpu-memory-utilization",
     [](Options& o, const json& v) {
       o.memory_fraction = ranged("--gpu-memory-utilization", v, 0.05, 0.99);
     }},
    {"ttft_ms", Kind::number, "--ttft-ms",
     [](Options& o, const json& v) { o.ttft_ms = v.get<double>(); }, true},
    {"tpot_ms", Kind::number, "--tpot-ms",
     [](Options& o, const json& v) { o.tpot_ms = v.get<double>(); }, true},
    {"platform", Kind::string, "--platform",
     [](Options& o, const json& v) { o.platform = str(v); }},
    {"storage", Kind::string, "--storage", [](Options& o, const json& v) { o.storage = str(v); }},
    {"class", Kind::string, "--class", [](Options& o, const json& v) { o.machine_class = str(v); }},
    {"min_tps", Kind::number, "--min-tps",
     [](Options& o, const json& v) { o.min_tps = ranged("--min-tps", v, 0, 100000); }},
    {"mode", Kind::string, "--mode", [](Options& o, const json& v) { o.mode = str(v); }},
    {"seq", Kind::integer, "--seq", [](Options& o, const json& v) { o.seq = u32(v); }},
    {"optimizer", Kind::string, "--optimizer",
     [](Options& o, const json& v) { o.optimizer = str(v); }},
    {"lora_rank", Kind::integer, "--lora-rank",
     [](Options& o, const json& v) { o.lora_rank = u32(v); }},
    {"checkpointing", Kind::boolean, "--checkpointing",
     [](Options& o, const json& v) { o.checkpointing = v.get<bool>() ? "on" : "off"; }},
};
const Field kBudgetFields[] = {
    {"power_watts", Kind::number}, {"ram_gib", Kind::number}, {"price_usd", Kind::number}};

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
    const std::string& key = item.key();
    const json& v = item.value();
    const std::string_view k = key;
    const Field* f = std::find_if(std::begin(fields), std::end(fields),
                                  [&](const Field& x) { return k == x.name; });
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
        if (ok && v.template get<uint64_t>() > UINT32_MAX)
          throw InputError(file + ": " + ptr + "/" + key +
                           ": expected an integer from 0 to 4294967295, got " + v.dump());
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
  // The plan as written, each field but name and description (nlohmann objects iterate sorted):
  // plans with the same key have the same request and the same result.
  std::string key;
  std::string model_text;               // the plan's "model" as written (the cache's model key)
  std::unique_ptr<ResolvedRequest> rq;  // held by pointer; null when a plan with its key came first
  json budget;                          // object or null
  double target_tps = 0;
};

// A request builder's error about option FLAG, worded for the plan: the leading option becomes
// "FILE: POINTER/field", the others their field's name ("--isl + --osl: ..." reads
// "plans.json: /plans/0/isl + osl: ..."). A model file's own errors already name that file.
std::string plan_words(const std::string& message, const std::string& file,
                       const std::string& ptr) {
  const auto flag_at = [&](size_t i) -> const Field* {
    const Field* best = nullptr;
    for (const auto& f : kPlanFields) {
      if (!f.flag || message.compare(i, std::strlen(f.flag), f.flag) != 0) continue;
      const size_t end = i + std::strlen(f.flag);
      const char c = end < message.size() ? message[end] : ' ';
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') continue;
      if (!best || std::strlen(f.flag) > std::strlen(best->flag)) best = &f;
    }
    return best;
  };
  std::string out;
  size_t i = 0;
  if (const Field* f = flag_at(0)) {
    out = file + ": " + ptr + "/" + f->name;
    i = std::strlen(f->flag);
  } else if (message.rfind(file + ": ", 0) != 0) {
    out = file + ": " + ptr + ": ";
  }
  while (i < message.size()) {
    const Field* f = message[i] == '-' && (i == 0 || message[i - 1] == ' ') ? flag_at(i) : nullptr;
    if (f && f->flag[0] == '-') {
      out += f->name;
      i += std::strlen(f->flag);
    } else {
      out += message[i++];
    }
  }
  return out;
}

// The plan's request: its fields set the options they stand for, over the main command's
// defaults, and the main command's request builder reads them (flags and plans are one set of
// rules). A plan names a deployment: "gpus" defaults to 1, not to the count the model needs
// (a plan with "redundancy" and no "gpus" is sized, as --redundancy sizes it).
// `gpus`: the catalog's, priced once for the whole read. Each error names the file and the
// field's JSON pointer.
void plan_request(const std::string& file, const std::string& ptr, const json& p,
                  const Catalog& cat, const std::vector<GpuSpec>& gpus, ResolvedRequest& rq) {
  Options o;
  // With spare machines the plan is a capacity: the GPUs its users need and the spares, as the
  // main command's --redundancy sizes them (a count given is refused there too).
  o.gpus = p.contains("redundancy") && !p.contains("gpus") ? 0 : 1;
  for (const auto& f : kPlanFields) {
    if (!f.set || !p.contains(f.name)) continue;
    const json& v = p.at(f.name);
    if (f.zero_unset && v.get<double>() <= 0)
      throw InputError(file + ": " + ptr + "/" + f.name + ": expected " +
                       (f.kind == Kind::integer ? "an integer of at least 1" : "a number above 0") +
                       ", got " + v.dump());
    try {
      f.set(o, v);
    } catch (const InputError& e) {
      throw InputError(plan_words(e.what(), file, ptr));
    }
  }
  // A capacity target needs the people it is for; without "users" the target is the speed of
  // the plan's sequences, checked by check itself.
  if (p.contains("target_tokens_per_s") && p.contains("users"))
    o.target_tps = p.at("target_tokens_per_s").get<double>();
  try {
    resolve_request(o, cat, rq, &gpus);
    if (p.contains("gpu_price_usd")) {
      const double v = p.at("gpu_price_usd").get<double>();
      GpuSpec& g = *rq.request.gpu;
      g.price_usd =
          real_in_range(file + ": " + ptr + "/gpu_price_usd", v, fmt::format("{:.6g}", v), 1, 1e8);
      g.price_date = "given in the plan";
      g.price_kind = "user";
    }
  } catch (const InputError& e) {
    throw InputError(plan_words(e.what(), file, ptr));
  }
}

// What one read of plan files shares: the catalog's GPUs (priced once, not per plan), and which
// plans were resolved before (`seen`: a plan whose key it holds gets no request of its own).
struct PlanReading {
  const Catalog& cat;
  std::vector<GpuSpec> gpus;
  std::function<bool(const std::string& key)> seen;
  // Whether every plan needs its machine (the platform, BOM, power and price): the reports of
  // --format json show it. Else only a plan with a budget, or on a unified-memory computer
  // (whose usable memory is its platform's), is planned with the platform catalog.
  bool machine = true;
};

// One plan object at `ptr` of `file`: its request and what check compares it with.
PlanInput read_plan(const std::string& file, const std::string& ptr, const json& p,
                    const PlanReading& reading) {
  if (!p.is_object())
    throw InputError(file + ": " + ptr + ": expected a plan object, got " + describe_json(p));
  PlanInput in;
  in.file = file;
  in.pointer = ptr;
  for (const auto& item : p.items()) {
    if (item.key() == "name" || item.key() == "description") continue;
    in.key += item.key();
    in.key += '\x1f';
    in.key += item.value().dump();
    in.key += '\x1e';
  }
  // The same fields as a plan before: checked and resolved then (the first would have thrown);
  // only the name and description are its own.
  const bool seen = reading.seen && reading.seen(in.key);
  const auto is_text = [&](const char* k) { return !p.contains(k) || p.at(k).is_string(); };
  if (!seen || !is_text("name") || !is_text("description")) check_fields(file, ptr, p, kPlanFields);
  // The name is printed in PASS/FAIL lines and JUnit: escaped like any untrusted text.
  const auto name = [&] {
    return sanitize(p.contains("name") ? p.at("name").get<std::string>()
                                       : p.at("model").get<std::string>());
  };
  if (seen) {
    in.name = name();
    return in;
  }
  for (const char* req : {"model", "gpu"})
    if (!p.contains(req)) throw InputError(file + ": " + ptr + ": missing field \"" + req + "\"");
  in.model_text = p.at("model").get<std::string>();
  in.rq = std::make_unique<ResolvedRequest>();
  plan_request(file, ptr, p, reading.cat, reading.gpus, *in.rq);
  // No system plan where the line reads the GPUs alone: the machine is needed for a budget, a
  // unified-memory computer (its usable memory is the platform's), a serving plan (GPUs per
  // node) and a named platform.
  const PlanRequest& q = in.rq->request;
  if (!reading.machine && !p.contains("budget") && !q.gpu->unified_memory && !q.serving &&
      q.platform_override.empty())
    in.rq->request.platforms = nullptr;
  in.name = name();
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
    // The range --target-tps takes: a target of 1e308 tok/s is no plan's.
    if (!(in.target_tps >= 0.1 && in.target_tps <= 100000))
      throw InputError(file + ": " + ptr +
                       "/target_tokens_per_s: expected a number from 0.1 to 100000, got " +
                       describe_json(p.at("target_tokens_per_s")));
  }
  return in;
}

// Streams the plans of `text` (the file `file`) to `sink` as the parser finishes each one; the
// plan's JSON is then dropped, so memory holds one plan at a time whatever the file's length.
void read_plan_text(std::string_view text, const std::string& file, const PlanReading& reading,
                    const std::function<void(const PlanInput&)>& sink) {
  size_t n_plans = 0;
  const io::JsonKeep keep = [&](io::JsonValue& e) {
    if (e.depth != 2 || !e.in_array || e.top_key != "plans") return true;
    const std::string ptr = "/plans/" + std::to_string(n_plans++);
    sink(read_plan(file, ptr, e.value, reading));
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

void read_plan_file(const std::string& path, const PlanReading& reading,
                    const std::function<void(const PlanInput&)>& sink) {
  read_plan_text(read_file(path), sanitize(path, 256), reading, sink);
}

// Plans of one run that share their settings share the work: a Planner per combination of the
// fields plan_request() sets other than model, context, GPU and count, the model's weights computed
// once per (model, quant) and estimates reused across GPUs and counts. Its plans equal plan()'s
// field for field (plan.hpp; tests/plan_test.cpp compares check's results both ways). Bounded: at
// most kMaxPlanners planners, each forgetting its estimates every kForgetEvery plans.
// Any field plan_request() comes to set must join base_key() (or bypass the cache).
class PlanCache {
 public:
  const Plan& plan(const PlanInput& in) {
    const PlanRequest& q = in.rq->request;
    const std::string key = base_key(q);
    auto it = planners_.find(key);
    if (it == planners_.end()) {
      if (planners_.size() >= kMaxPlanners) planners_.clear();
      PlanRequest base = q;
      base.exact_weights.reset();
      base.gpu.reset();
      it = planners_.emplace(key, std::make_unique<Entry>(std::move(base))).first;
    }
    Entry& e = *it->second;
    if (++e.uses % kForgetEvery == 0) e.planner.forget();
    const std::string mkey = in.model_text + '\x1f' + q.config.quant->id;
    auto m = e.models.find(mkey);
    if (m == e.models.end())
      m = e.models.emplace(mkey, e.planner.add_model(q.model, q.config.quant, q.exact_weights))
              .first;
    const GpuSpec& g = *q.gpu;
    const std::string gkey =
        fmt::format("{}\x1f{:a}\x1f{}\x1f{}", g.id, g.price_usd, g.price_kind, g.price_date);
    auto gi = e.gpus.find(gkey);
    if (gi == e.gpus.end()) gi = e.gpus.emplace(gkey, e.planner.add_gpu(g)).first;
    return e.planner.plan(m->second, q.config.kv.n_ctx, gi->second, q.gpus_requested);
  }

  // check -f json: a plan's report (render_json, ~16 KB, most of check's time) depends only on
  // its request, so plans with the same settings share the text: the key is everything plan()
  // and make_report() read (the planner's settings, the model as written and its quantization as
  // typed, the GPU with its price, context and count). Bounded: forgotten past kMaxReports. Each
  // text rendered gets a new id (> 0): plans with the same id have the same text.
  struct Text {
    std::string json;
    uint64_t id = 0;
  };
  const Text& report(const PlanInput& in, const std::function<std::string()>& render) {
    const PlanRequest& q = in.rq->request;
    const GpuSpec& g = *q.gpu;
    std::string key = fmt::format(
        "{}\x1e{}\x1f{}\x1f{}\x1f{}\x1e{}\x1f{:a}\x1f{}\x1f{}\x1e{}\x1e{}", base_key(q),
        in.model_text, q.config.quant->id, in.rq->quant_requested, in.rq->quant_ignored, g.id,
        g.price_usd, g.price_kind, g.price_date, q.config.kv.n_ctx, q.gpus_requested);
    auto it = reports_.find(key);
    if (it != reports_.end()) return it->second;
    if (reports_.size() >= kMaxReports) reports_.clear();
    return reports_.emplace(std::move(key), Text{render(), ++rendered_}).first->second;
  }
  // An id for a report rendered outside the cache (a plan the planners do not compute).
  uint64_t new_report_id() { return ++rendered_; }

 private:
  static constexpr size_t kMaxReports = 2048;  // ~16 KB each
  std::map<std::string, Text> reports_;
  uint64_t rendered_ = 0;
  static constexpr size_t kMaxPlanners = 64;
  static constexpr uint64_t kForgetEvery = 4096;
  struct Entry {
    explicit Entry(PlanRequest base) : planner(std::move(base)) {}
    Planner planner;
    std::map<std::string, size_t> models, gpus;
    uint64_t uses = 0;
  };
  static std::string base_key(const PlanRequest& q) {
    const RunConfig& c = q.config;
    return fmt::format("{}|{}|{}|{}|{}|{}|{}|{:a}|{}|{}|{}", q.users, c.kv.n_seq, c.kv.n_ubatch,
                       static_cast<uint32_t>(c.kv.type_k), static_cast<uint32_t>(c.kv.type_v),
                       static_cast<int>(c.engine), c.flash_attn, c.headroom,
                       c.overhead_per_gpu_bytes, fmt::ptr(q.platforms), c.kv_unified);
  }
  std::map<std::string, std::unique_ptr<Entry>> planners_;
};

// The plan's budgets, read from the figures the JSON and the BOM print.
void check_budgets(const PlanInput& in, const Report& r, PlanResult& res) {
  const GpuPlan& p = *r.gpu;
  if (in.budget.is_object()) {
    // Budgets read the figures the JSON and the BOM print: the machine's rated power and its BOM
    // cost. Without a machine (no catalog platform takes the GPUs) each is unknown.
    const bool machine = r.system && r.system->platform;
    // Worded only for a plan that has no machine (a budget line per plan: check reads 10^5).
    const auto no_machine = [&] {
      return fmt::format("no catalog platform takes {} × {}", p.count, p.gpu.id);
    };
    if (in.budget.contains("power_watts")) {
      const double b = in.budget.at("power_watts").get<double>();
      const PowerPlan* w = r.power ? &*r.power : nullptr;
      if (!w)
        res.failures.push_back(
            {"power",
             "power unknown: " +
                 (machine
                      ? p.gpu.name + " is a whole computer whose maker publishes no power figure"
                      : no_machine()),
             "", std::numeric_limits<double>::quiet_NaN(), b, "W"});
      else
        res.summary += power_summary_words(w->peak_w);
      if (w && power_basis(r) == FigureBasis::generic) res.summary += generic_machine_words();
      if (w && w->peak_w > b)
        res.failures.push_back({"power", power_failure_words(w->peak_w, b), "", w->peak_w, b, "W"});
    }
    if (in.budget.contains("ram_gib")) {
      const double b = in.budget.at("ram_gib").get<double>();
      if (!machine || p.gpu.unified_memory) {
        res.failures.push_back(
            {"ram",
             "RAM unknown: " +
                 (p.gpu.unified_memory
                      ? p.gpu.name + " is a whole computer: llmsize plans no separate system RAM"
                      : no_machine()),
             "", std::numeric_limits<double>::quiet_NaN(), static_cast<double>(bytes_of_gib(b)),
             "bytes"});
      } else {
        const uint64_t need = r.system->host.ram.required_bytes, budget = bytes_of_gib(b);
        res.summary += ram_summary_words(need);
        if (need > budget)
          res.failures.push_back({"ram", ram_failure_words(need, b), "", static_cast<double>(need),
                                  static_cast<double>(budget), "bytes"});
      }
    }
    if (in.budget.contains("price_usd")) {
      double b = in.budget.at("price_usd").get<double>();
      const CostPlan* cost = r.cost ? &*r.cost : nullptr;
      // No price to hold to the budget: that plan fails as unknown (value null), the others
      // are still checked.
      if (!cost || !cost->priced) {
        // What has no price: the GPU, the machine (its BOM line, which carries the class's
        // assumed price where the BOM gives one), or both.
        const PlatformModel* pm = machine ? r.system->platform : nullptr;
        bool machine_priced = false;
        if (pm)
          for (const BomLine& l : r.system->bom())
            if (l.component == BomComponent::platform && l.unit_price_usd > 0)
              machine_priced = true;
        const bool gpu_priced = p.gpu.price_usd > 0;
        const std::string null_words = " (cost.hardware_usd is null)";
        const std::string why =
            !pm ? no_machine()
            : machine_priced && !gpu_priced
                ? "the GPU " + p.gpu.id + " has no published price" + null_words
            : !gpu_priced ? "neither " + p.gpu.id + " nor " + pm->name +
                                ", the machine planned for it, has a published price" + null_words
                          : pm->name + ", the machine planned for " + p.gpu.id +
                                ", has no published price" + null_words;
        res.failures.push_back({"price", "price unknown: " + why, "",
                                std::numeric_limits<double>::quiet_NaN(), b, "USD"});
        b = -1;
      }
      // An unpriced BOM line makes the sum a floor (cost.hardware_complete false): over budget
      // is certain, within it is not, and the line says so.
      if (b >= 0) res.summary += price_summary_words(*cost);
      if (b >= 0 && cost_basis(r) == FigureBasis::generic) res.summary += generic_machine_words();
      if (b >= 0 && cost->capex_usd > b)
        res.failures.push_back(
            {"price", price_failure_words(*cost, b), "", cost->capex_usd, b, "USD"});
    }
  }
}

// The serving SLOs, the request rate and the target speed.
void check_speed(const PlanInput& in, const Report& r, PlanResult& res) {
  if (r.serving && r.serving->estimate.fits) {
    // The serving SLOs and the request rate, as the main command's Serving section judges them.
    const ServingEstimate& e = r.serving->estimate;
    const Workload& w = r.serving->workload;
    if (e.overloaded)
      res.failures.push_back({"rate",
                              rate_failure_words(w.rate_per_s, e.sustainable_requests_per_s), "",
                              w.rate_per_s, e.sustainable_requests_per_s, "requests/s"});
    if (w.ttft_slo_s > 0 && !e.overloaded) res.summary += slo_summary_words("TTFT", e.ttft_s.value);
    if (w.ttft_slo_s > 0 && !e.overloaded && !e.meets_ttft)
      res.failures.push_back({"ttft", slo_failure_words("TTFT", e.ttft_s.value, w.ttft_slo_s), "",
                              e.ttft_s.value, w.ttft_slo_s, "s"});
    if (w.tpot_slo_s > 0) res.summary += slo_summary_words("TPOT", e.itl_s.value);
    if (w.tpot_slo_s > 0 && !e.meets_tpot)
      res.failures.push_back({"tpot", slo_failure_words("TPOT", e.itl_s.value, w.tpot_slo_s), "",
                              e.itl_s.value, w.tpot_slo_s, "s"});
    // --redundancy: the users' targets with the spare machines down, as the Serving section says.
    if (const ServingPlan& sp = *r.serving;
        sp.spare_machines && sp.capacity && sp.capacity->found) {
      const double down = sp.capacity->degraded.per_user_tokens_per_s.value;
      res.summary += fmt::format(", n+{}", sp.spare_machines);
      if (!sp.degraded_meets())
        res.failures.push_back(
            {"redundancy",
             fmt::format("with {} machine{} down: {:.1f} tok/s per user, under the target {:g}",
                         sp.spare_machines, sp.spare_machines == 1 ? "" : "s", down,
                         sp.capacity_target_tokens_per_s),
             "", down, sp.capacity_target_tokens_per_s, "tokens/s"});
    }
  }
  if (in.target_tps > 0 && !r.speed) {
    // A fine-tuning job (or GPUs that hold nothing) decodes no tokens: no speed to hold.
    res.failures.push_back({"speed",
                            "speed unknown: " + std::string(r.train ? "a fine-tuning plan decodes "
                                                                      "no tokens"
                                                                    : "the plan has no speed"),
                            "", std::numeric_limits<double>::quiet_NaN(), in.target_tps,
                            "tokens/s"});
  } else if (in.target_tps > 0) {
    // The speed the main command prints for the plan: each user's under a serving deployment
    // (its step model, the same figure as throughput.per_user_tokens_per_s), else each sequence's
    // decode.
    const bool serving = r.serving && r.serving->estimate.fits;
    const double d =
        serving ? r.serving->estimate.per_user_tokens_per_s.value : r.speed->decode_tokens_per_s;
    res.summary += serving ? user_speed_summary_words(d) : speed_summary_words(d);
    if (d < in.target_tps)
      res.failures.push_back({"speed",
                              serving ? user_speed_failure_words(r, in.target_tps)
                                      : speed_failure_words(r, in.target_tps),
                              "", d, in.target_tps, "tokens/s"});
  }
}

// Whether the planner cache computes this request's plan: it varies only the fields base_key()
// holds, with the serving, training, capacity and machine settings at the main command's
// defaults, the catalog's machine prices, no expert placement (--n-cpu-moe) and the catalog's
// GPU memory share; a plan that sets any of those is planned by plan() itself.
bool cacheable(const ResolvedRequest& rq) {
  const PlanRequest& q = rq.request;
  return !rq.platforms && !q.serving && !q.train && q.target_tokens_per_s == 0 &&
         q.platform_override.empty() && q.storage == PlanRequest().storage && !q.experts_placed &&
         !q.gpu_memory_limited && !q.config.draft;
}

PlanResult check_plan(const PlanInput& in, bool with_report, bool strict, PlanCache* cache) {
  const bool shared = cache && cacheable(*in.rq);
  // The warnings and checklist are only in the report's JSON.
  const Report r =
      make_report(*in.rq, shared ? cache->plan(in) : plan(in.rq->request), false, with_report);
  PlanResult res;
  res.file = in.file;
  res.pointer = in.pointer;
  res.name = in.name;
  if (with_report && shared) {
    const auto& t = cache->report(in, [&] { return render_json(r); });
    res.report_json = t.json;
    res.report_id = t.id;
  } else if (with_report) {
    res.report_json = render_json(r);
    // Its own id: a plan written again shares the result, and its report by that id.
    if (cache) res.report_id = cache->new_report_id();
  }
  const GpuPlan& p = *r.gpu;
  res.summary = check_summary_words(r);

  // Three levels (Plan::fit): a tight plan holds the model without the requested headroom, inside
  // the estimate's own error margin; it passes with a note, unless --strict holds it to the rule.
  const bool tight = !p.fits && r.fit && r.fit->fit == Fit::tight;
  if (tight && !strict) {
    res.summary += "; " + fit_words(r);
  } else if (!p.fits) {
    PlanFailure f;
    f.check = "memory";
    f.value = static_cast<double>(p.per_gpu_bytes);
    f.limit = static_cast<double>(p.gpu.usable_bytes());
    f.unit = "bytes";
    f.message = memory_failure_words(r);
    f.detail = memory_failure_detail(r);
    res.failures.push_back(f);
  }
  check_budgets(in, r, res);
  check_speed(in, r, res);
  return res;
}

}  // namespace

void each_file_plan(const std::string& path, const Catalog& cat,
                    const std::function<void(const std::string&, const std::string&,
                                             const ResolvedRequest&)>& sink) {
  read_plan_file(path, PlanReading{cat, priced_gpus({}, cat), nullptr},
                 [&](const PlanInput& in) { sink(in.name, in.pointer, *in.rq); });
}

size_t read_plans(std::string_view text, const std::string& where, const Catalog& cat) {
  size_t n = 0;
  read_plan_text(text, where, PlanReading{cat, priced_gpus({}, cat), nullptr},
                 [&](const PlanInput&) { ++n; });
  return n;
}

namespace {

// `cached`: plans with the same settings share the planner's work, and a plan written as one
// before (the same key: the same request, budgets and target) shares its whole result, read and
// planned once. `report_text`: a shared result carries its report's JSON (~16 KB); else only its
// report_id (stream_check_json holds each text once, by id). Bounded: forgotten past kMaxResults
// (a few hundred bytes each; 1,024 with their reports), more than bench/make_plans.py's 4,480.
void check_plans_each(const Options& o, const Catalog& cat, bool cached, bool report_text,
                      const std::function<void(PlanResult&&)>& sink) {
  const size_t kMaxResults = report_text && o.format == "json" ? 1024 : 16384;
  const bool with_report = o.format == "json";
  PlanCache cache;
  std::unordered_map<std::string, PlanResult> results;
  PlanReading reading{cat, priced_gpus({}, cat), nullptr, with_report};
  const PlanResult* hit = nullptr;  // the result of the plan `seen` last found
  if (cached)
    reading.seen = [&](const std::string& key) {
      const auto it = results.find(key);
      hit = it == results.end() ? nullptr : &it->second;
      return hit != nullptr;
    };
  for (const auto& f : o.planning.plan_files)
    read_plan_file(f, reading, [&](const PlanInput& in) {
      if (!in.rq) {
        PlanResult r = *hit;
        r.file = in.file;
        r.pointer = in.pointer;
        r.name = in.name;
        return sink(std::move(r));
      }
      PlanResult r = check_plan(in, with_report, o.planning.strict, cached ? &cache : nullptr);
      if (cached) {
        if (results.size() >= kMaxResults) results.clear();
        std::string text;
        if (!report_text) text.swap(r.report_json);  // not copied into the memo
        results.emplace(in.key, r);
        if (!report_text) text.swap(r.report_json);
      }
      sink(std::move(r));
    });
}

}  // namespace

std::vector<PlanResult> check_plans(const Options& o, const Catalog& cat, bool cached) {
  std::vector<PlanResult> out;
  check_plans_each(o, cat, cached, true, [&](PlanResult&& r) { out.push_back(std::move(r)); });
  return out;
}

namespace {

[[noreturn]] void stdout_failed() {
  const int e = errno ? errno : EIO;
  throw InputError(std::string("cannot write to standard output (") + std::strerror(e) + ")");
}

void write_stdout(std::string_view t) {
  if (std::fwrite(t.data(), 1, t.size(), stdout) != t.size()) stdout_failed();
}

// check -f json without holding the reports: each plan's report (~10 KB of JSON) goes to an
// unnamed temporary file as the plan is checked and only its small result stays in memory; once
// every plan is checked (any error before this point leaves stdout empty) the document is written
// to stdout, head with the counts first, the reports copied back from the file. Memory is a few
// hundred bytes per plan, whatever the reports weigh. Without a temporary directory the reports
// are held in memory instead.
// `before_output` runs between the two (the --junit file, so that an unwritable one is an error
// before anything reaches stdout).
void stream_check_json(const Options& o, const Catalog& cat, std::vector<PlanResult>& results,
                       const std::function<void()>& before_output) {
  struct Spool {
    std::FILE* f = std::tmpfile();
    std::string mem;  // when no temporary file could be made
    ~Spool() {
      if (f) std::fclose(f);
    }
  } spool;
  const auto spool_failed = [](const char* what) {
    throw InputError(std::string("check: cannot ") + what + " a temporary file (" +
                     std::strerror(errno ? errno : EIO) + ")");
  };
  // Each plan's report as it goes in the document (indented), stored once per rendered text:
  // plans with the same settings (the report cache's hits, same report_id) point at the same bytes.
  std::vector<std::pair<uint64_t, uint64_t>> at;                     // each plan's: offset, length
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> seen;  // report_id -> its bytes
  uint64_t size = 0;
  std::string text;
  check_plans_each(o, cat, true, false, [&](PlanResult&& r) {
    auto it = r.report_id ? seen.find(r.report_id) : seen.end();
    if (it == seen.end()) {
      text.clear();
      check_json_report(r.report_json, [&](std::string_view t) { text += t; });
      if (spool.f) {
        if (std::fwrite(text.data(), 1, text.size(), spool.f) != text.size()) spool_failed("write");
      } else {
        spool.mem += text;
      }
      it = seen.emplace(r.report_id ? r.report_id : ~uint64_t{0} - at.size(),
                        std::pair{size, uint64_t{text.size()}})
               .first;
      size += text.size();
    }
    at.push_back(it->second);
    std::string().swap(r.report_json);  // frees it (assigning "" would keep the 16 KB buffer)
    results.push_back(std::move(r));
  });
  seen.clear();
  if (spool.f && std::fflush(spool.f) != 0) spool_failed("write");
  before_output();
  size_t failed = 0;
  for (const auto& r : results) failed += !r.pass();
  errno = 0;
  write_stdout(check_json_head(results.size() - failed, failed));
  uint64_t loaded = UINT64_MAX;  // offset of the report in `text`
  for (size_t i = 0; i < results.size(); ++i) {
    const auto [off, len] = at[i];
    if (off != loaded) {
      if (spool.f) {
        text.resize(len);
        if (std::fseek(spool.f, static_cast<long>(off), SEEK_SET) != 0) spool_failed("read back");
        if (std::fread(text.data(), 1, len, spool.f) != len)
          throw InputError("check: a temporary file shrank while being read back");
      } else {
        text.assign(spool.mem, off, len);
      }
      loaded = off;
    }
    write_stdout(check_json_plan_head(results[i], i == 0));
    write_stdout(text);
  }
  write_stdout(check_json_tail(results.empty()));
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) stdout_failed();
}

}  // namespace

int run_check(const Options& o, std::string& out) {
  const std::string& fmt_name = o.format;
  if (fmt_name != "table" && fmt_name != "json")
    throw InputError("--format: expected table or json, got '" + fmt_name + "'");
  const Catalog cat = load_catalog(o.catalogs);
  std::vector<PlanResult> results;
  if (fmt_name == "json") {
    stream_check_json(o, cat, results, [&] {
      if (!o.planning.junit.empty())
        write_text_file("--junit", o.planning.junit, render_check_junit(results));
    });
  } else if (o.planning.junit.empty()) {
    // The table alone needs no result kept: each line is written as its plan is checked.
    bool all = true;
    check_plans_each(o, cat, true, false, [&](PlanResult&& r) {
      r.append_line(out);
      out += '\n';
      all = all && r.pass();
    });
    return all ? 0 : 1;
  } else {
    results = check_plans(o, cat);
    write_text_file("--junit", o.planning.junit, render_check_junit(results));
    out = render_check_table(results);
  }
  const bool all =
      std::all_of(results.begin(), results.end(), [](const PlanResult& r) { return r.pass(); });
  return all ? 0 : 1;
}

}  // namespace llmsize::cli
