// #27: benchmark tools' result files read into BenchRun (io/bench_result.hpp): the fixtures are
// real published files (tests/data/bench_results/SOURCES.md); each figure asserted is the file's.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "llmsize/io/bench_result.hpp"
#include "llmsize/io/error.hpp"

using namespace llmsize;

namespace {
std::string fixture(const std::string& name) {
  return std::string(LLMSIZE_TEST_DATA) + "/bench_results/" + name;
}
}  // namespace

TEST_CASE("vllm bench serve's result: its throughput, TTFT, TPOT and load", "[verify]") {
  const auto runs = io::read_bench_results(
      fixture("vllm_bench_serve_h100sxm8_qwen3-32b_tp8_in1024_out128_c100.json"));
  REQUIRE(runs.size() == 1);
  const BenchRun& r = runs[0];
  CHECK(r.tool == BenchTool::vllm_serve);
  CHECK(r.model == "/workspace/qwen3-32b");
  CHECK(r.output_tokens_per_s == Approx(3710.6277296760586));
  CHECK(r.mean_ttft_s == Approx(1.2964654911800608));
  CHECK(r.p99_ttft_s == Approx(2.246774505400499));
  CHECK(r.mean_tpot_s == Approx(0.016539995006535282));
  CHECK(r.concurrency == 100);
  CHECK(r.requests == 100);
  // 102,400 and 12,800 tokens over 100 requests.
  CHECK(r.mean_input_tokens == Approx(1024));
  CHECK(r.mean_output_tokens == Approx(128));
  CHECK_FALSE(r.rate_limited);  // "request_rate": "inf"
}

TEST_CASE("SGLang's bench_serving line, with its Infinity request rate", "[verify]") {
  const auto runs = io::read_bench_results(
      fixture("sglang_bench_serving_h100sxm8_gpt-oss-120b_tp8_in1024_out128_c100_details.jsonl"));
  REQUIRE(runs.size() == 1);
  const BenchRun& r = runs[0];
  CHECK(r.tool == BenchTool::sglang_serving);
  CHECK(r.concurrency == 100);
  CHECK(r.requests == 100);
  CHECK_FALSE(r.rate_limited);
  // 50,561 prompt tokens over 100 requests: SGLang's range ratio 0.0 draws 1 to 1,024.
  CHECK(r.mean_input_tokens == Approx(505.61));
  CHECK(r.output_tokens_per_s > 0);
  CHECK(r.mean_ttft_s > 0);
  // Infinity inside a string stays text; a bare one is no JSON number.
  const auto s = io::parse_bench_results(
      R"({"output_throughput": 10, "completed": 1, "model_id": "Infinity", "request_rate": Infinity})",
      "x.json");
  REQUIRE(s.size() == 1);
  CHECK(s[0].model == "Infinity");
  // NaN (three bytes, shorter than null: a fuzzer's find) and -Infinity read as absent.
  const auto n = io::parse_bench_results(
      R"({"output_throughput": 7, "p99_ttft_ms": NaN, "mean_tpot_ms": -Infinity})", "n.json");
  REQUIRE(n.size() == 1);
  CHECK(n[0].output_tokens_per_s == 7);
  CHECK(n[0].p99_ttft_s == 0);
  CHECK(n[0].mean_tpot_s == 0);
}

TEST_CASE("llama-bench's tests: prompt and generation at each depth", "[verify]") {
  const auto runs =
      io::read_bench_results(fixture("llama_bench_rx7900xtx_rocm712_gpt-oss-20b.json"));
  REQUIRE(runs.size() == 84);
  CHECK(runs[0].tool == BenchTool::llama_bench);
  CHECK(runs[0].n_prompt == 128);
  CHECK(runs[0].n_gen == 0);
  CHECK(runs[0].n_depth == 0);
  CHECK(runs[0].tokens_per_s == Approx(737.300172));
  CHECK(runs[0].model_params == 20914757184ull);
  CHECK(runs[0].where.find(": [0]") != std::string::npos);
  // -o jsonl: a test a line.
  const auto l = io::parse_bench_results(
      "{\"n_prompt\": 0, \"n_gen\": 128, \"n_depth\": 4096, \"avg_ts\": 40.5}\n"
      "{\"n_prompt\": 512, \"n_gen\": 0, \"n_depth\": 0, \"avg_ts\": 900}\n",
      "b.jsonl");
  REQUIRE(l.size() == 2);
  CHECK(l[0].n_depth == 4096);
  CHECK(l[1].where == "b.jsonl: line 2");
}

TEST_CASE("A file no benchmark tool writes is refused with where and why", "[verify]") {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "r.json: empty: no benchmark result in it"},
           {"[]", "r.json: an empty array: no benchmark result in it"},
           {"{\"a\": 1}",
            "r.json: not a result of vllm bench serve, SGLang bench_serving, trtllm-bench or "
            "llama-bench (it has none of output_throughput, performance or avg_ts)"},
           {"{\"output_throughput\": -5}",
            "r.json: output_throughput: expected a number of at least 0, got -5"},
           {"{\"output_throughput\": \"fast\"}",
            "r.json: output_throughput: expected a number of at least 0, got \"fast\""},
           {"{\"output_throughput\": 1}\n{oops\n", "r.json: line 2: not valid JSON"},
           {"[1, 2]", "r.json: [0]: expected a benchmark result object, got 1"},
           {"{\"avg_ts\": 5, \"n_prompt\": 0, \"n_gen\": 0}",
            "r.json: a llama-bench test of no prompt and no generated tokens"},
           {"{\"performance\": [1]}", "r.json: performance: expected an object"},
       }) {
    INFO(c.text);
    try {
      io::parse_bench_results(c.text, "r.json");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(c.message) != std::string::npos);
    }
  }
}
