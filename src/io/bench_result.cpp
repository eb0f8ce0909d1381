#include "llmsize/io/bench_result.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "io/json_input.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize::io {
namespace {

using json = nlohmann::json;

// SGLang writes an infinite request rate as Python's json.dumps does, the bare token Infinity
// (sgl-project/sglang python/sglang/benchmark/serving.py, `request_rate` a float): not JSON.
// Outside strings Infinity and -Infinity become null padded with spaces to their length (the
// parser's byte offsets stay the file's), NaN null (one byte longer).
std::string without_python_floats(std::string_view text) {
  std::string out(text);
  bool in_string = false;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    for (std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
      if (out.compare(i, token.size(), token) != 0) continue;
      const std::string null = "null" + std::string(token.size() > 4 ? token.size() - 4 : 0, ' ');
      out.replace(i, token.size(), null);
      i += null.size() - 1;
      break;
    }
  }
  return out;
}

// A number field of `o` (0 when absent or null); anything else, or a negative or non-finite
// number, is refused with the field's name.
double number(const json& o, const char* key, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return 0;
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
    throw InputError(where + ": " + key + ": expected a number of at least 0, got " +
                     describe_json(*it));
  return it->get<double>();
}

// A text field of `o` ("" when absent or null), cut and sanitized for messages.
std::string text(const json& o, const char* key, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return "";
  if (!it->is_string())
    throw InputError(where + ": " + key + ": expected a string, got " + describe_json(*it));
  return sanitize(it->get<std::string>(), 200);
}

const json& object_field(const json& o, const char* key, const std::string& where) {
  static const json kEmpty = json::object();
  const auto it = o.find(key);
  if (it == o.end() || it->is_null()) return kEmpty;
  if (!it->is_object())
    throw InputError(where + ": " + key + ": expected an object, got " + describe_json(*it));
  return *it;
}

uint32_t count(double v) {
  return static_cast<uint32_t>(std::min(std::round(v), 4294967295.0));
}

// vllm bench serve and SGLang's bench_serving: the same metric names (SGLang adds
// total_throughput and server_info, vLLM total_token_throughput and endpoint_type).
BenchRun serving_run(const json& o, const std::string& where) {
  BenchRun r;
  r.where = where;
  r.tool = o.contains("total_throughput") || o.contains("server_info") || o.contains("dataset_name")
               ? BenchTool::sglang_serving
               : BenchTool::vllm_serve;
  r.model = text(o, "model_id", where);
  r.output_tokens_per_s = number(o, "output_throughput", where);
  r.requests = count(number(o, "completed", where));
  r.concurrency = count(number(o, "max_concurrency", where));
  if (r.requests) {
    r.mean_input_tokens = number(o, "total_input_tokens", where) / r.requests;
    r.mean_output_tokens = number(o, "total_output_tokens", where) / r.requests;
  }
  // A finite request rate paces the requests; "inf" (vLLM) or Infinity (SGLang, null here) does
  // not.
  if (const auto it = o.find("request_rate"); it != o.end() && it->is_number())
    r.rate_limited = number(o, "request_rate", where) > 0;
  r.mean_ttft_s = number(o, "mean_ttft_ms", where) / 1e3;
  r.p99_ttft_s = number(o, "p99_ttft_ms", where) / 1e3;
  r.mean_tpot_s = number(o, "mean_tpot_ms", where) / 1e3;
  return r;
}

// trtllm-bench --report_json: performance, request_info and (streaming) streaming_metrics; the
// in-flight requests it had on average stand for the concurrency (the report keeps no
// --concurrency).
BenchRun trtllm_run(const json& o, const std::string& where) {
  BenchRun r;
  r.where = where;
  r.tool = BenchTool::trtllm_bench;
  const json& perf = object_field(o, "performance", where);
  const json& req = object_field(o, "request_info", where);
  const json& stream = object_field(o, "streaming_metrics", where);
  r.model = text(object_field(o, "engine", where), "model", where + ": engine");
  r.output_tokens_per_s = number(perf, "system_output_throughput_tok_s", where + ": performance");
  r.requests = count(number(req, "num_requests", where + ": request_info"));
  r.concurrency = count(number(req, "avg_num_concurrent_requests", where + ": request_info"));
  r.mean_input_tokens = number(req, "avg_input_length", where + ": request_info");
  r.mean_output_tokens = number(req, "avg_output_length", where + ": request_info");
  r.mean_ttft_s = number(stream, "avg_ttft_ms", where + ": streaming_metrics") / 1e3;
  r.mean_tpot_s = number(stream, "avg_tpot_ms", where + ": streaming_metrics") / 1e3;
  return r;
}

BenchRun llama_bench_run(const json& o, const std::string& where) {
  BenchRun r;
  r.where = where;
  r.tool = BenchTool::llama_bench;
  r.model = text(o, "model_filename", where);
  r.model_params = static_cast<uint64_t>(number(o, "model_n_params", where));
  r.n_prompt = count(number(o, "n_prompt", where));
  r.n_gen = count(number(o, "n_gen", where));
  r.n_depth = count(number(o, "n_depth", where));
  r.tokens_per_s = number(o, "avg_ts", where);
  if (!r.n_prompt && !r.n_gen)
    throw InputError(where + ": a llama-bench test of no prompt and no generated tokens");
  return r;
}

BenchRun run_of(const json& o, const std::string& where) {
  if (!o.is_object())
    throw InputError(where + ": expected a benchmark result object, got " + describe_json(o));
  if (o.contains("avg_ts")) return llama_bench_run(o, where);
  if (o.contains("performance")) return trtllm_run(o, where);
  if (o.contains("output_throughput")) return serving_run(o, where);
  throw InputError(where +
                   ": not a result of vllm bench serve, SGLang bench_serving, trtllm-bench or "
                   "llama-bench (it has none of output_throughput, performance or avg_ts)");
}

json parse(std::string_view text, const std::string& where) {
  try {
    return parse_json(text, where);
  } catch (const json::exception& e) {
    throw InputError(where + ": not valid JSON: " + json_reason(e));
  }
}

}  // namespace

std::vector<BenchRun> parse_bench_results(std::string_view raw, const std::string& where) {
  const std::string text = without_python_floats(raw);
  std::vector<BenchRun> runs;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw InputError(where + ": empty: no benchmark result in it");
  // One value (an object, or llama-bench -o json's array), else JSON Lines (a value a line:
  // SGLang's --output-file, llama-bench -o jsonl, vLLM's --append-result).
  bool one_value = true;
  json doc;
  try {
    doc = parse_json(text, where);
  } catch (const json::exception&) {
    one_value = false;
  }
  if (one_value) {
    if (doc.is_array()) {
      if (doc.empty()) throw InputError(where + ": an empty array: no benchmark result in it");
      for (size_t i = 0; i < doc.size(); ++i)
        runs.push_back(run_of(doc[i], where + ": [" + std::to_string(i) + "]"));
    } else {
      runs.push_back(run_of(doc, where));
    }
    return runs;
  }
  size_t line_no = 0, at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    ++line_no;
    const std::string_view line(text.data() + at, end - at);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      const std::string here = where + ": line " + std::to_string(line_no);
      runs.push_back(run_of(parse(line, here), here));
    }
    at = end + 1;
  }
  return runs;
}

std::vector<BenchRun> read_bench_results(const std::string& path) {
  return parse_bench_results(read_text_input(path, kBenchResultInput), sanitize(path, 256));
}

}  // namespace llmsize::io
