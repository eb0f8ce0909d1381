#include "cli/render/check_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>

#include "cli/render/plot.hpp"

namespace llmsize::cli {
namespace {

using ojson = nlohmann::ordered_json;

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

std::string render_check_table(const std::vector<PlanResult>& results) {
  std::string s;
  for (const auto& r : results) s += r.line() + "\n";
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
