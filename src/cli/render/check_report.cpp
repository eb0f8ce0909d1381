#include "cli/render/check_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string_view>

#include "cli/render/plot.hpp"
#include "cli/render/report_data.hpp"
#include "cli/render/words.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

using ojson = nlohmann::ordered_json;

std::string num(double v) {
  std::string s = fmt::format("{:.6g}", v);
  return s;
}

// GiB with one decimal, without ".0" on whole numbers (80 GiB, 23.5 GiB).
std::string gib_short(uint64_t b) {
  const double g = gib_of(b);
  const std::string s = fmt::format("{:.1f}", g);
  return s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0 ? s.substr(0, s.size() - 2) : s;
}

std::string gib1(uint64_t b) {
  return fmt::format("{:.1f}", gib_of(b));
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

std::string check_summary_words(const Report& r) {
  const GpuPlan& p = *r.gpu;
  const auto& c = r.config;
  if (r.train)
    return fmt::format("{} {} fine-tuning seq {} × {} on {} × {}: {} of {} GiB per GPU",
                       r.model.spec.id.empty() ? r.model.spec.name : r.model.spec.id,
                       train_mode_name(r.train_config.mode), r.train_config.seq,
                       r.train_config.batch, p.count, p.gpu.id, gib1(p.per_gpu_bytes),
                       gib_short(r.usable_bytes_each()));
  return fmt::format("{} {} ctx {} × {} on {} × {}: {} of {} GiB per GPU",
                     r.model.spec.id.empty() ? r.model.spec.name : r.model.spec.id, r.quant->id,
                     c.kv.n_ctx, c.kv.n_seq, p.count, p.gpu.id, gib1(p.per_gpu_bytes),
                     gib_short(r.usable_bytes_each()));
}

std::string memory_failure_words(const Report& r) {
  const GpuPlan& p = *r.gpu;
  const std::string usable = gib_short(r.usable_bytes_each());
  if (p.count_needed == 0)
    return fmt::format("{} cannot hold it at any count up to {}: {} GiB per GPU > {} GiB", p.gpu.id,
                       kMaxGpus, gib1(p.per_gpu_bytes), usable);
  // A count that is not short but does not hold it either (a serving engine's rule at the count
  // given): no 'needs N, plan has N'.
  if (p.count_needed <= p.count)
    return fmt::format("does not fit on {} × {}: {} GiB per GPU > {} GiB", p.count, p.gpu.id,
                       gib1(p.per_gpu_bytes), usable);
  return fmt::format("needs {} × {}, plan has {}: {} GiB > {} GiB", p.count_needed, p.gpu.id,
                     p.count, gib1(p.per_gpu_bytes), usable);
}

std::string memory_failure_detail(const Report& r) {
  const auto& c = r.config;
  if (r.train)
    return fmt::format("the job holds {} GiB (weights, gradients, optimizer states, activations)",
                       gib1(r.train->total_bytes()));
  std::string d =
      fmt::format("KV cache at ctx {} adds {} GiB", c.kv.n_ctx, gib1(r.estimate.kv_cache_bytes));
  if (c.kv.n_seq > 1) d += fmt::format(" for {} sequences", c.kv.n_seq);
  return d;
}

std::string power_summary_words(double peak_w) {
  return fmt::format(", peak {:.0f} W", peak_w);
}

std::string generic_machine_words() {
  return " (a generic machine: no sourced catalog machine takes the GPUs)";
}

std::string power_failure_words(double peak_w, double budget_w) {
  return fmt::format("peak power {:.0f} W > budget {} W", peak_w, num(budget_w));
}

std::string ram_summary_words(uint64_t need_bytes) {
  return fmt::format(", {} GiB RAM", gib_short(need_bytes));
}

std::string ram_failure_words(uint64_t need_bytes, double budget_gib) {
  return fmt::format("system RAM {} GiB needed > budget {} GiB", gib_short(need_bytes),
                     num(budget_gib));
}

namespace {
std::string price_words(const CostPlan& cost) {
  return hardware_price_words(cost);
}
}  // namespace

std::string price_summary_words(const CostPlan& cost) {
  return ", " + price_words(cost) + (cost.complete ? "" : " (a BOM line is unpriced)");
}

std::string price_failure_words(const CostPlan& cost, double budget_usd) {
  return fmt::format("hardware {} > budget {}", price_words(cost), usd_words(budget_usd));
}

std::string speed_summary_words(double decode_tokens_per_s) {
  return fmt::format(", {:.1f} tok/s per sequence", decode_tokens_per_s);
}

std::string speed_failure_words(const Report& r, double target_tokens_per_s) {
  const auto& c = r.config;
  return fmt::format("decode {:.1f} tok/s per sequence < target {} tok/s ({} sequence{} at ctx {})",
                     r.speed->decode_tokens_per_s, num(target_tokens_per_s), c.kv.n_seq,
                     c.kv.n_seq == 1 ? "" : "s", c.kv.n_ctx);
}

std::string user_speed_summary_words(double per_user_tokens_per_s) {
  return fmt::format(", {:.1f} tok/s per user", per_user_tokens_per_s);
}

std::string user_speed_failure_words(const Report& r, double target_tokens_per_s) {
  const ServingPlan& s = *r.serving;
  const Deployment& d = s.deployment;
  std::string w = fmt::format(
      "{:.1f} tok/s per user < target {} tok/s ({} users on {} × {}, TP {}{}{})",
      s.estimate.per_user_tokens_per_s.value, num(target_tokens_per_s), s.workload.users, d.gpus(),
      r.gpu->gpu.id, d.tp, d.pp > 1 ? fmt::format(" PP {}", d.pp) : "",
      d.replicas > 1 ? fmt::format(", {} replicas", d.replicas) : "");
  if (s.capacity && s.capacity->found && s.capacity->deployment.gpus() > d.gpus())
    w += fmt::format("; the target needs {} GPUs", s.capacity->deployment.gpus());
  return w;
}

std::string slo_summary_words(const char* what, double seconds) {
  return fmt::format(", {} {:.0f} ms", what, seconds * 1000);
}

std::string slo_failure_words(const char* what, double seconds, double slo_seconds) {
  return fmt::format("{} {:.0f} ms > SLO {} ms", what, seconds * 1000, num(slo_seconds * 1000));
}

std::string rate_failure_words(double rate, double sustainable) {
  return fmt::format(
      "overloaded: {} requests/s arrive, the replicas complete at most {:.3g} requests/s (the "
      "queue grows without bound)",
      num(rate), sustainable);
}

void PlanResult::append_line(std::string& out) const {
  auto to = std::back_inserter(out);
  if (pass()) {
    fmt::format_to(to, "PASS {} ({}#{}): {}", name, file, pointer, summary);
    return;
  }
  fmt::format_to(to, "FAIL {} ({}#{}): {}", name, file, pointer, fmt::join(reasons(*this), "; "));
}

std::string PlanResult::line() const {
  std::string s;
  append_line(s);
  return s;
}

std::string render_check_table(const std::vector<PlanResult>& results) {
  // One pass to size the text (a line is ~130 bytes; 100,000 plans grow a string 20 times else).
  size_t n = 0;
  for (const auto& r : results) n += r.name.size() + r.file.size() + r.pointer.size() + 160;
  std::string s;
  s.reserve(n);
  for (const auto& r : results) {
    r.append_line(s);
    s += '\n';
  }
  return s;
}

// The JSON document's head: counts first, then the "plans" array opens.
std::string check_json_head(size_t passed, size_t failed) {
  return "{\n  \"schema_version\": 1,\n  \"passed\": " + std::to_string(passed) +
         ",\n  \"failed\": " + std::to_string(failed) + ",\n  \"plans\": [";
}

std::string check_json_tail(bool no_plans) {
  return no_plans ? "]\n}\n" : "\n  ]\n}\n";
}

// One plan of the "plans" array as dump(2) of the whole document would write it, without its
// report: the text ends where the report's JSON (render_json's text, indented) goes.
std::string check_json_plan_head(const PlanResult& r, bool first) {
  ojson f = ojson::array();
  for (const auto& x : r.failures)
    f.push_back({{"check", x.check},
                 {"message", x.message},
                 {"detail", x.detail.empty() ? ojson() : ojson(x.detail)},
                 {"value", x.value},
                 {"limit", x.limit},
                 {"unit", x.unit}});
  const ojson plan = {{"file", r.file},   {"pointer", r.pointer}, {"name", r.name},
                      {"pass", r.pass()}, {"line", r.line()},     {"failures", f},
                      {"report", ojson()}};
  std::string text = plan.dump(2);
  // ..."report": null\n} -> ..."report":
  text.erase(text.rfind("null"));
  std::string s = first ? "\n    " : ",\n    ";
  for (const char c : text) {
    s += c;
    if (c == '\n') s += "    ";
  }
  return s;
}

// render_json's text (dump(2) + "\n") as the value of "report" at that depth: each line after
// the first indented by 6 more spaces (4 for the array, 2 for the plan object), then the plan's
// closing brace.
void check_json_report(std::string_view report, const std::function<void(std::string_view)>& out) {
  if (!report.empty() && report.back() == '\n') report.remove_suffix(1);
  size_t pos = 0;
  while (pos <= report.size()) {
    const size_t nl = report.find('\n', pos);
    if (pos) out(std::string_view("\n      "));
    out(report.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  out(std::string_view("\n    }"));
}

std::string render_check_json(const std::vector<PlanResult>& results) {
  // Written plan by plan (as dump(2) of the whole would), never holding every plan's tree.
  size_t failed = 0;
  for (const auto& r : results) failed += !r.pass();
  std::string s = check_json_head(results.size() - failed, failed);
  bool first = true;
  for (const auto& r : results) {
    s += check_json_plan_head(r, first);
    first = false;
    check_json_report(r.report_json, [&](std::string_view t) { s += t; });
  }
  return s + check_json_tail(results.empty());
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

}  // namespace llmsize::cli
