#include "cli/render/verify_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/render/plot.hpp"
#include "cli/render/words.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/serving/launch.hpp"

namespace llmsize::cli {

size_t VerifyResult::compared() const {
  return static_cast<size_t>(std::count_if(
      runs.begin(), runs.end(), [](const AcceptanceVerdict& v) { return v.compared(); }));
}

size_t VerifyResult::failed() const {
  return static_cast<size_t>(
      std::count_if(runs.begin(), runs.end(),
                    [](const AcceptanceVerdict& v) { return v.compared() && !v.pass(); }));
}

namespace {

// "1.30 s" for a latency, "3,711 tok/s" for a rate.
std::string value_words(const AcceptanceFigure& f, double v) {
  if (!f.higher_is_better) return fmt::format("{:.2f} s", v);
  return v >= 100 ? group_whole(v) + " tok/s" : fmt::format("{:.1f} tok/s", v);
}

std::string figure_words(const AcceptanceFigure& f) {
  const std::string range =
      f.higher_is_better
          ? fmt::format("{}–{}", f.low >= 100 ? group_whole(f.low) : fmt::format("{:.1f}", f.low),
                        value_words(f, f.high))
          : fmt::format("{:.2f}–{}", f.low, value_words(f, f.high));
  if (f.pass)
    return fmt::format("{} {} (plan {}, {}: {:.2f}x)", f.name, value_words(f, f.measured),
                       value_words(f, f.predicted), range, f.ratio());
  return fmt::format(
      "{} {} {} the plan's {} {} (plan {}: {:.2f}x)", f.name, value_words(f, f.measured),
      f.higher_is_better ? "below" : "above", f.higher_is_better ? "lowest" : "highest",
      value_words(f, f.higher_is_better ? f.low : f.high), value_words(f, f.predicted), f.ratio());
}

std::string run_line(const AcceptanceVerdict& v) {
  std::string head = fmt::format("{} {} ({}",
                                 !v.compared() ? "SKIP"
                                 : v.pass()    ? "PASS"
                                               : "FAIL",
                                 v.where, bench_tool_name(v.tool));
  if (!v.load.empty()) head += "; " + v.load;
  head += "): ";
  if (!v.compared())
    return head + "not compared with the plan: " +
           (v.not_comparable.empty() ? std::string("no figure in common") : v.not_comparable);
  std::vector<std::string> parts;
  // A failure names the figures that missed first.
  for (bool missed : {true, false})
    for (const auto& f : v.figures)
      if (f.pass != missed) parts.push_back(figure_words(f));
  return head + fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::string render_verify_table(const VerifyResult& r) {
  std::string s = "plan " + r.plan + "\n";
  for (const auto& v : r.runs) s += run_line(v) + "\n";
  s += fmt::format("{} of {} run{} compared: {} passed, {} failed{}\n", r.compared(), r.runs.size(),
                   r.runs.size() == 1 ? "" : "s", r.compared() - r.failed(), r.failed(),
                   r.compared() ? "" : " (nothing to hold the plan to: FAIL)");
  return s;
}

std::string render_verify_json(const VerifyResult& r) {
  using ojson = nlohmann::ordered_json;
  ojson doc;
  doc["plan"] = r.plan;
  doc["pass"] = r.pass();
  doc["compared"] = r.compared();
  doc["passed"] = r.compared() - r.failed();
  doc["failed"] = r.failed();
  doc["skipped"] = r.runs.size() - r.compared();
  doc["runs"] = ojson::array();
  for (const auto& v : r.runs) {
    ojson run;
    run["where"] = v.where;
    run["tool"] = bench_tool_name(v.tool);
    run["verdict"] = !v.compared() ? "skip" : v.pass() ? "pass" : "fail";
    run["load"] = v.load.empty() ? ojson() : ojson(v.load);
    run["not_comparable"] = v.not_comparable.empty() ? ojson() : ojson(v.not_comparable);
    run["figures"] = ojson::array();
    for (const auto& f : v.figures)
      run["figures"].push_back({{"figure", f.key},
                                {"predicted", f.predicted},
                                {"low", f.low},
                                {"high", f.high},
                                {"measured", f.measured},
                                {"ratio", f.ratio()},
                                {"higher_is_better", f.higher_is_better},
                                {"pass", f.pass}});
    doc["runs"].push_back(std::move(run));
  }
  return doc.dump(2) + "\n";
}

std::string render_verify_junit(const VerifyResult& r) {
  const size_t failed = r.failed(), skipped = r.runs.size() - r.compared();
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format(
      "<testsuites name=\"llmsize verify\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
      r.runs.size(), failed);
  s += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
      xml_escape(r.plan), r.runs.size(), failed, skipped);
  for (const auto& v : r.runs) {
    s += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\">\n", xml_escape(r.plan),
                     xml_escape(v.where));
    if (!v.compared())
      s += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(run_line(v)));
    else if (v.pass())
      s += fmt::format("      <system-out>{}</system-out>\n", xml_escape(run_line(v)));
    else
      s +=
          fmt::format("      <failure type=\"figure\" message=\"{}\"/>\n", xml_escape(run_line(v)));
    s += "    </testcase>\n";
  }
  s += "  </testsuite>\n</testsuites>\n";
  return s;
}

}  // namespace llmsize::cli

namespace llmsize::cli {
namespace {

std::string prediction_words(const std::vector<AcceptanceFigure>& figures) {
  std::vector<std::string> parts;
  for (const auto& f : figures) {
    const bool rate = f.higher_is_better;
    parts.push_back(
        rate ? fmt::format("{} {} tok/s ({}–{})", f.name,
                           f.predicted >= 100 ? group_whole(f.predicted)
                                              : fmt::format("{:.1f}", f.predicted),
                           f.low >= 100 ? group_whole(f.low) : fmt::format("{:.1f}", f.low),
                           f.high >= 100 ? group_whole(f.high) : fmt::format("{:.1f}", f.high))
             : fmt::format("{} {:.2f} s ({:.2f}–{:.2f} s)", f.name, f.predicted, f.low, f.high));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::string render_acceptance_script(const AcceptanceScript& s) {
  std::string o = "# llmsize acceptance test: " + s.what + "\n";
  const std::string result =
      s.tool == BenchTool::sglang_serving ? "llmsize-acceptance.jsonl" : "llmsize-acceptance.json";
  switch (s.tool) {
    case BenchTool::vllm_serve:
      o += "# 1. Start the engine as --emit vllm prints it; then benchmark one replica's "
           "endpoint:\n";
      o += fmt::format(
          "vllm bench serve --backend vllm --model {} --host 127.0.0.1 --port {} --dataset-name "
          "random --random-input-len {} --random-output-len {} --num-prompts {} "
          "--max-concurrency {} --request-rate inf --ignore-eos --percentile-metrics "
          "ttft,tpot,itl,e2el --save-result --result-filename {}\n",
          shell_quote(s.model), s.port, s.isl, s.osl, s.requests, s.users, result);
      break;
    case BenchTool::sglang_serving:
      o += "# 1. Start the engine as --emit sglang prints it; then benchmark one replica's "
           "endpoint\n#    (--random-range-ratio 1.0: every prompt and answer of the plan's "
           "length):\n";
      o += fmt::format(
          "python3 -m sglang.bench_serving --backend sglang --host 127.0.0.1 --port {} --model {} "
          "--dataset-name random --random-input-len {} --random-output-len {} "
          "--random-range-ratio 1.0 --num-prompts {} --max-concurrency {} --request-rate inf "
          "--output-file {}\n",
          s.port, shell_quote(s.model), s.isl, s.osl, s.requests, s.users, result);
      break;
    case BenchTool::trtllm_bench:
      o += "# 1. With the server stopped (trtllm-bench loads the model on the replica's GPUs "
           "itself):\n";
      o += fmt::format(
          "trtllm-bench --model {} prepare-dataset --output llmsize-dataset.jsonl token-norm-dist "
          "--num-requests {} --input-mean {} --input-stdev 0 --output-mean {} --output-stdev 0\n",
          shell_quote(s.model), s.requests, s.isl, s.osl);
      o += fmt::format(
          "trtllm-bench --model {} throughput --dataset llmsize-dataset.jsonl --backend pytorch "
          "--tp {} --pp {} --concurrency {} --streaming --report_json {}\n",
          shell_quote(s.model), s.tp, s.pp, s.users, result);
      break;
    case BenchTool::llama_bench: {
      const std::string kv =
          s.cache_type.empty() ? "" : " -ctk " + s.cache_type + " -ctv " + s.cache_type;
      o += "# 1. With the server stopped, the prompt speed and the decode speed at the plan's "
           "context:\n";
      o += fmt::format("llama-bench -m {} -ngl 99{} -p {} -n 0 -r 5 -o jsonl > {}\n",
                       shell_quote(s.model), kv, s.prompt, result);
      o += fmt::format("llama-bench -m {} -ngl 99{} -p 0 -n {} -d {} -r 5 -o jsonl >> {}\n",
                       shell_quote(s.model), kv, s.gen, s.depth, result);
      break;
    }
  }
  o += "# 2. Hold the result to the plan (exit 0 when it meets it, 1 when not):\n";
  o += "cat > llmsize-plan.json <<'LLMSIZE_PLAN'\n" + s.plan_json + "LLMSIZE_PLAN\n";
  o += "llmsize verify --plan llmsize-plan.json " + result + "\n";
  if (!s.predicted.empty())
    o += "# The plan predicts at this load: " + prediction_words(s.predicted) + "\n";
  return o;
}

}  // namespace llmsize::cli
