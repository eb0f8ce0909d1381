// Benchmark tools' own result files (#27 `llmsize verify`), read into BenchRun:
//   - vllm bench serve --save-result (and benchmarks/benchmark_serving.py): one JSON object, or
//     several on lines of their own (--append-result, wrappers that concatenate them);
//     vllm-project/vllm@009e6d4 vllm/benchmarks/serve.py: output_throughput (tok/s),
//     mean_ttft_ms, mean_tpot_ms, max_concurrency, completed, total_input_tokens,
//     total_output_tokens, request_rate (a number or "inf");
//   - SGLang's bench_serving --output-file: JSON lines with the same keys (total_throughput for
//     total_token_throughput) and request_rate written as the bare token Infinity;
//   - trtllm-bench --report_json: performance.system_output_throughput_tok_s,
//     streaming_metrics.avg_ttft_ms / avg_tpot_ms, request_info (NVIDIA/TensorRT-LLM@0249976
//     tensorrt_llm/bench/dataclasses/reporting.py get_statistics_dict);
//   - llama-bench -o json (an array) or -o jsonl: per test n_prompt, n_gen, n_depth, avg_ts
//     (ggml-org/llama.cpp@0104b15 tools/llama-bench/llama-bench.cpp).
// Keys vary with the tools' versions: a file is read by the keys it has, every other key ignored.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "llmsize/io/input.hpp"
#include "llmsize/plan/acceptance.hpp"

namespace llmsize::io {

// A benchmark result: a few KB; with per-request arrays a few MB.
inline constexpr InputKind kBenchResultInput{"benchmark result", 64 * kMiB};

// The runs of `text` (the file `where`). Throws InputError "<where>: ..." for text that is no JSON
// (with its line and byte), or a JSON value no tool above writes (naming what was expected).
std::vector<BenchRun> parse_bench_results(std::string_view text, const std::string& where);
std::vector<BenchRun> read_bench_results(const std::string& path);

}  // namespace llmsize::io
