// Serving at scale (#10) from the command line: the real binary plans a deployment (GPUs, TP,
// replicas, KV dtype, memory fraction, aggregate and per-user tokens/s, TTFT) and prints its
// launch command with --emit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "refused.hpp"
#include "run_binary.hpp"

using json = nlohmann::json;
using llmsize::cli_test::check_refused;
using llmsize::cli_test::parse_csv;
using llmsize::cli_test::run;

namespace {

// The headline load: 50 users, 5000 tokens in, 500 out, 16 tokens/s each.
const std::string kLoad = " --users 50 --isl 5000 --osl 500 --target-tps 16";

json throughput(const std::string& args) {
  const auto r = run(args + " -f json");
  INFO(args << "\n" << r.err);
  REQUIRE(r.code == 0);
  return json::parse(r.out)["throughput"];
}

// What every capacity plan must satisfy, whatever the engine and GPU.
void check_capacity(const json& t, const std::string& engine) {
  CHECK(t["engine"] == engine);
  CHECK(t["fits"] == true);
  CHECK(t["serving_capacity_found"] == true);
  const uint64_t tp = t["tensor_parallel"], pp = t["pipeline_parallel"], reps = t["replicas"];
  CHECK(t["gpus"] == tp * pp * reps);
  CHECK(t["serving_capacity_gpus"] == t["gpus"]);
  // Headroom = replicas x users per replica - users.
  CHECK(t["serving_capacity_user_headroom"].get<uint64_t>() ==
        reps * t["serving_capacity_users_per_replica"].get<uint64_t>() - 50);
  // The target is met, and the aggregate is the users' decode speeds (less the steps that carry
  // prompt chunks): 50 x per-user >= aggregate >= 0.9 x 50 x per-user.
  const double per_user = t["per_user_tokens_per_s"], agg = t["output_tokens_per_s"];
  CHECK(per_user >= 16);
  CHECK(agg <= 50 * per_user * 1.001);
  CHECK(agg >= 0.9 * 50 * per_user);
  CHECK(t["output_tokens_per_s_low"].get<double>() < agg);
  CHECK(t["output_tokens_per_s_high"].get<double>() > agg);
  CHECK(t["ttft_s"].get<double>() > 0);
  CHECK(t["ttft_p90_s"].get<double>() > 0);
  CHECK(t["itl_s"].get<double>() == Approx(1 / per_user).epsilon(0.01));
  CHECK(t["max_model_len"] == 5500);  // isl + osl
  CHECK(t["isl"] == 5000);
  CHECK(t["osl"] == 500);
  CHECK(!t["serving_calibration"].get<std::string>().empty());
}

}  // namespace

TEST_CASE("vLLM plans 70B FP8 for 50 users on H100 and emits its launch command",
          "[cli][serving]") {
  const std::string h = "llama-3.3-70b --quant fp8 --engine vllm --gpu h100-sxm" + kLoad;
  const json t = throughput(h);
  check_capacity(t, "vllm");
  // Within one step of what served it (NIM: 2 x H100 at TP2; the step model: 2 x TP2).
  CHECK(t["gpus"].get<uint64_t>() >= 2);
  CHECK(t["gpus"].get<uint64_t>() <= 4);
  CHECK(t["memory_fraction"] == 0.9);  // vLLM gpu_memory_utilization default
  CHECK(t["kv_dtype"] == "bf16");      // "auto": the model's dtype
  CHECK(t["kv_charged"] == "planning");
  // KV per token: 80 layers x 8 KV heads x 128 x (K + V) x 2 bytes = 327,680 B; planning holds
  // isl + osl / 2 = 5250 tokens, in 16-token blocks 5264; the guarantee 5500 -> 5504.
  CHECK(t["kv_bytes_per_seq_planning"] == uint64_t{327680} * 5264);
  CHECK(t["kv_bytes_per_seq_guarantee"] == uint64_t{327680} * 5504);
  CHECK(t["max_num_seqs"] == 1024);  // vLLM get_batch_defaults, >= 70 GiB
  CHECK(t["max_num_batched_tokens"] == 8192);

  const auto table = run(h);
  REQUIRE(table.code == 0);
  CHECK(table.out.find("Serving (vllm: " + std::to_string(t["gpus"].get<uint64_t>()) +
                       " GPUs = TP " + std::to_string(t["tensor_parallel"].get<uint64_t>())) !=
        std::string::npos);
  CHECK(table.out.find("vllm-calibrated") != std::string::npos);
  CHECK(table.out.find("llama.cpp-calibrated") == std::string::npos);
  CHECK(table.out.find("binding limit") != std::string::npos);

  const auto e = run(h + " --emit vllm");
  INFO(e.err);
  REQUIRE(e.code == 0);
  CHECK(e.err.empty());
  CHECK(e.out.find("vllm serve 'meta-llama/Llama-3.3-70B-Instruct' --tensor-parallel-size " +
                   std::to_string(t["tensor_parallel"].get<uint64_t>()) +
                   " --max-model-len 5500 --gpu-memory-utilization 0.90") != std::string::npos);
  CHECK(e.out.find("--quantization fp8") != std::string::npos);  // FP8 from the BF16 checkpoint
  CHECK(e.out.find("Bill of materials") == std::string::npos);   // the command only
}

TEST_CASE("SGLang and TensorRT-LLM plan the same load on H100, H200, B200 and MI300X",
          "[cli][serving]") {
  for (const std::string gpu : {"h100-sxm", "h200", "b200", "mi300x"}) {
    for (const std::string engine : {"sglang", "trt-llm"}) {
      const std::string h =
          "llama-3.3-70b --quant fp8 --engine " + engine + " --gpu " + gpu + kLoad;
      INFO(h);
      if (engine == "trt-llm" && gpu == "mi300x") {
        const auto r = run(h);
        CHECK(r.code == 2);
        CHECK(r.out.empty());
        CHECK(r.err.find("TensorRT-LLM runs on NVIDIA GPUs only") != std::string::npos);
        continue;
      }
      const json t = throughput(h);
      check_capacity(t, engine);
      // Memory alone needs 1 (141-192 GiB) or 2 (80 GiB) GPUs for 70 GB of FP8 weights; speed
      // needs at most 4.
      CHECK(t["gpus"].get<uint64_t>() <= 4);
      CHECK(t["gpus"].get<uint64_t>() >= t["serving_capacity_memory_min_gpus"].get<uint64_t>());
      CHECK(t["kv_charged"] == (engine == "sglang" ? "planning" : "guarantee"));
      const auto e = run(h + " --emit " + engine);
      REQUIRE(e.code == 0);
      const std::string tp = std::to_string(t["tensor_parallel"].get<uint64_t>());
      if (engine == "sglang") {
        CHECK(e.out.find("python3 -m sglang.launch_server --model-path "
                         "'meta-llama/Llama-3.3-70B-Instruct' --tp-size " +
                         tp + " --context-length 5500") != std::string::npos);
      } else {
        CHECK(e.out.find("trtllm-serve 'meta-llama/Llama-3.3-70B-Instruct' --backend pytorch "
                         "--tp_size " +
                         tp) != std::string::npos);
        CHECK(e.out.find("--kv_cache_free_gpu_memory_fraction 0.90") != std::string::npos);
      }
    }
  }
}

TEST_CASE("llama.cpp serves from a consumer GPU and Apple silicon, with llama-server's command",
          "[cli][serving]") {
  {
    // 70B Q4_K_M (42.5 GB) on RTX 4090s: layer split, a slot per user. Two cards (48 GiB) hold
    // the weights and 2 slots of 2,300 tokens only without the 20% headroom (fits tight, 12.9%):
    // three hold them, whose slots fill at most 1 / 1.2 of each card.
    const std::string h = "llama-3.3-70b --gpu rtx-4090 --users 2 --isl 2000 --osl 300";
    const json three = throughput(h + " --gpus 3");
    CHECK(three["engine"] == "llama.cpp");
    CHECK(three["fits"] == true);
    CHECK(three["tensor_parallel"] == 1);  // layer split
    CHECK(three["pipeline_parallel"] == 3);
    CHECK(three["max_num_seqs"] == 2);
    CHECK(three["kv_charged"] == "guarantee");
    const auto e = run(h + " --gpus 3 --emit llama-server");
    REQUIRE(e.code == 0);
    CHECK(e.out.find("llama-server -m 'Llama-3.3-70B-Instruct-Q4_K_M.gguf' -ngl 999 -sm layer -ts "
                     "27,27,26 -c 4600 -np 2 -fa on") != std::string::npos);  // -c: 2 x 2300
    // There the two slots decode below the usable speed (10 tok/s): without a count the plan
    // gives the users replicas until each reaches it (#21), a slot per user each, at the 20% rule.
    const json t = throughput(h);
    CHECK(three["per_user_tokens_per_s"].get<double>() < 10);
    CHECK(t["per_user_tokens_per_s"].get<double>() >= 10);
    CHECK(t["serving_capacity_found"] == true);
    CHECK(t["max_num_seqs"].get<uint64_t>() * t["replicas"].get<uint64_t>() >= 2);
    CHECK(t["memory_fraction"] == Approx(1 / 1.2).margin(0.001));
    // On the two cards given, the slots fill what llama.cpp would: tight, and it runs.
    const json two = throughput(h + " --gpus 2");
    CHECK(two["pipeline_parallel"] == 2);
    CHECK(two["per_user_tokens_per_s"].get<double>() > 0);
    CHECK(json::parse(run(h + " --gpus 2 -f json").out)["gpu"]["fit"] == "tight");
  }
  {
    const std::string h = "llama-3.1-8b --gpu m3-max --users 2 --isl 1000 --osl 200";
    const json t = throughput(h);
    CHECK(t["engine"] == "llama.cpp");
    CHECK(t["gpus"] == 1);
    CHECK(t["concurrency"] == 2);
    CHECK(t["per_user_tokens_per_s"].get<double>() > 0);
    const auto e = run(h + " --emit llama-server");
    REQUIRE(e.code == 0);
    CHECK(e.out ==
          "llama-server -m 'Llama-3.1-8B-Q4_K_M.gguf' -ngl 999 -c 2400 -np 2 -fa on --host "
          "0.0.0.0 --port 8000\n");
  }
}

TEST_CASE("Serving flags: FP8 KV, --users max, --rate, --power-limit", "[cli][serving]") {
  const std::string h =
      "llama-3.3-70b --quant fp8 --engine vllm --gpu h100-sxm --gpus 2 "
      "--isl 5000 --osl 500";
  // FP8 KV: one byte per element, half of BF16's 327,680 B per token.
  const json f = throughput(h + " --users 8 --kv-quant fp8");
  CHECK(f["kv_dtype"] == "fp8_e4m3");
  CHECK(f["kv_bytes_per_seq_planning"] == uint64_t{163840} * 5264);
  CHECK(throughput(h + " --users 8 --kv-quant fp8_e5m2")["kv_dtype"] == "fp8_e5m2");
  // --users max: as many as the pool admits run at once.
  const json m = throughput(h + " --users max");
  CHECK(m["concurrency"] == m["max_concurrency"]);
  CHECK(m["limited_by"] == "memory");
  // --rate: requests completed per second equal the arrival rate (Little's law).
  const json r = throughput(h + " --rate 1");
  CHECK(r["requests_per_s"] == Approx(1.0));
  CHECK(r["output_tokens_per_s"] == Approx(500.0));  // 1 request/s x 500 tokens out
  // --power-limit 50%: the calibrated curve's point 300 W of 600 W keeps 597.02 / 625.55.
  const json base = throughput(h + " --users 8");
  const json pl = throughput(h + " --users 8 --power-limit 50%");
  CHECK(pl["power_scale"] == Approx(0.954));
  CHECK(pl["output_tokens_per_s"].get<double>() < base["output_tokens_per_s"].get<double>());
  // --requests-per-user: the first wave's share of TTFT is the difference from the steady
  // state (0), and shrinks as each user sends more requests (1/N of the same extra wait).
  const std::string loop = h + " --users 32";
  const json w0 = throughput(loop + " --requests-per-user 0");
  const json w10 = throughput(loop);
  const json w20 = throughput(loop + " --requests-per-user 20");
  CHECK(w0["ttft_first_wave_s"] == 0.0);
  CHECK(w10["requests_per_user"] == 10);
  CHECK(w10["ttft_first_wave_s"].get<double>() > 0);
  CHECK(w10["ttft_s"].get<double>() ==
        Approx(w0["ttft_s"].get<double>() + w10["ttft_first_wave_s"].get<double>()).margin(0.002));
  CHECK(w20["ttft_first_wave_s"].get<double>() ==
        Approx(w10["ttft_first_wave_s"].get<double>() / 2).margin(0.001));
  CHECK(r["requests_per_user"].is_null());
  // No serving flag, llama.cpp: the serving fields are null and the old ones unchanged.
  const json plain = throughput("llama-3.1-8b --gpu rtx-4090");
  CHECK(plain["engine"].is_null());
  CHECK(plain["output_tokens_per_s"].is_null());
  CHECK(plain["decode_tokens_per_s"].is_number());
}

TEST_CASE("Serving flags refuse what the engines do not do, exit 2, nothing on stdout",
          "[cli][serving]") {
  struct Case {
    std::string args, message;
  };
  for (const auto& c : std::vector<Case>{
           {"llama-3.1-8b --engine vlm",
            "--engine: expected llama.cpp, ollama, vllm, sglang, trt-llm or transformers, got "
            "'vlm' (did you mean vllm?)"},
           {"llama-3.1-8b --kv-quant fp8 --isl 100", "llama.cpp has no FP8 KV cache"},
           {"llama-3.1-8b --engine vllm --kv-quant q4_0", "vllm stores its KV cache as"},
           {"llama-3.1-8b --engine vllm --rate 1 --users 4", "--rate: give either"},
           {"llama-3.1-8b --engine vllm --rate 1 --requests-per-user 3",
            "--requests-per-user: a --rate's requests arrive at random"},
           {"llama-3.1-8b --engine vllm --users 4 --requests-per-user -1",
            "--requests-per-user: expected an integer from 0 to 1000000, got '-1'"},
           {"llama-3.1-8b --engine vllm --emit sglang", "--emit sglang: the plan is for"},
           {"llama-3.1-8b --emit vlm", "--emit: expected vllm, sglang, llama-server"},
           {"llama-3.1-8b --engine vllm --isl 5000 --osl 500 --ctx 4096",
            "--ctx 4096: shorter than --isl + --osl (5500"},
           {"llama-3.1-8b --engine vllm --users max --target-tps 10", "--target-tps: needs"},
           {"qwen3-embedding-8b --engine vllm --docs 256 --emit vllm",
            "--emit vllm: an embedding model generates nothing: llmsize sizes its encoder"},
           // Llama 3.1 405B in BF16 (810 GB) on one 24 GiB card.
           {"llama-3.1-405b --engine vllm --gpu rtx-4090 --gpus 1 --emit vllm",
            "--emit vllm: the weights and one sequence do not fit the engine's KV pool on 1 GPU;"},
       })
    check_refused(c.args, c.message);
}

TEST_CASE("sweep carries the serving plan per row, equal to the main command's (--verify)",
          "[cli][serving][sweep]") {
  const auto r =
      run("sweep --models llama-3.1-8b,llama-3.3-70b --quants fp8,bf16 --ctx 8192 --gpu "
          "h100-sxm,mi300x --gpus 1,2 --engine sglang --isl 2000 --osl 500 --users 16 --verify -f "
          "jsonl");
  INFO(r.err.substr(0, 2000));
  REQUIRE(r.code == 0);
  size_t rows = 0;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line); ++rows) {
    const json j = json::parse(line);
    CHECK(j["throughput"]["engine"] == "sglang");
    CHECK(j["throughput"]["gpus"] == j["gpu"]["count"]);  // --gpus fixes the deployment
    CHECK(j["throughput"]["isl"] == 2000);
  }
  CHECK(rows == 2 * 2 * 2 * 2);
}

TEST_CASE("a serving deployment's headroom is the engine's memory share, and its verdict holds it",
          "[cli][serving]") {
  // Llama-3.1-70B BF16 on 2 x H100 under vLLM: each GPU places 71.33 GiB (its weight shard,
  // the profile run's peak: the sampler's 1,024 rows x 128,256 x 38 B, runtime, one sequence's
  // KV) of the 79.21 GiB its CUDA runtime reports (81,106 MiB, data/gpus.json). vLLM's own
  // 0.9 share (71.28 GiB) is 0.05 GiB short: 79.21 / 71.33 - 1 = 11.0% headroom, below the
  // 1 / 0.9 - 1 = 11.1% the share leaves, and vLLM would not start. A 30% headroom (utilization
  // 1 / 1.3 = 0.769) is further from it (71.33 x 1.3 = 92.73 GiB); a 10% headroom (0.909,
  // 72.01 GiB) holds it.
  const auto r = llmsize::cli_test::run(
      "llama-3.1-70b --engine vllm --gpu h100-sxm --gpus 2 --headroom 0.3 -f json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["gpu"]["fit"] == "no");
  CHECK(j["gpu"]["fits"] == false);
  CHECK(j["gpu"]["headroom_fraction"].get<double>() == Approx(0.1104).margin(1e-4));
  CHECK(j["gpu"]["per_gpu_bytes"].get<double>() / (1ull << 30) == Approx(92.73).margin(0.01));
  CHECK(j["throughput"]["fits"] == false);  // at utilization 0.769 vLLM does not start
  CHECK(j["throughput"]["memory_fraction"] == 0.769);
  const json ten = nlohmann::json::parse(
      llmsize::cli_test::run("llama-3.1-70b --engine vllm --gpu h100-sxm --gpus 2 --headroom 0.1 "
                             "-f json")
          .out);
  CHECK(ten["gpu"]["fit"] == "fits");
  CHECK(ten["throughput"]["fits"] == true);
  const auto d = llmsize::cli_test::run("llama-3.1-70b --engine vllm --gpu h100-sxm --gpus 2");
  REQUIRE(d.code == 0);
  CHECK(d.out.find("does not fit: 11.0% headroom, below the 11.1% the engine's memory share "
                   "leaves") != std::string::npos);
}

TEST_CASE("a serving deployment keeps tensor parallelism inside the machine it is bought in",
          "[cli][serving]") {
  // 4 x RTX 4090 (a 3-slot card) for Llama-3.1-70B FP8 under vLLM: the catalog machine that takes
  // it is the AM5 desktop of two, so the largest TP degree <= 2 dividing 4 GPUs, 64 heads and 8
  // KV heads is 2, and the two desktops are pipeline stages: TP 2 x PP 2 (not TP 4 across two
  // desktops' Ethernet).
  const auto r = llmsize::cli_test::run(
      "llama-3.1-70b --quant fp8 --engine vllm --gpu rtx-4090 --gpus 4 -f json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["throughput"]["tensor_parallel"] == 2);
  CHECK(j["throughput"]["pipeline_parallel"] == 2);
  CHECK(j["system"]["nodes"] == 2);
}

namespace {

// The value of the table's line "  label           value" ("" when there is none).
std::string table_value(const std::string& table, const std::string& label) {
  std::istringstream in(table);
  std::string line;
  const std::string head = "  " + label;
  while (std::getline(in, line))
    if (line.rfind(head, 0) == 0 && line.size() > 18 && line[head.size()] == ' ')
      return line.substr(18);
  return "";
}

}  // namespace

TEST_CASE("One throughput: cost per token and every format read the aggregate the table prints",
          "[cli][serving][answer]") {
  for (const std::string& args : std::vector<std::string>{
           "gpt-oss-120b --engine vllm --users 50 --target-tps 20",
           "llama-3.1-8b --engine sglang --gpu h100-sxm --users 32 --isl 2000 --osl 500",
           "llama-3.3-70b --quant fp8 --engine trt-llm --gpu h100-sxm" + kLoad,
           "llama-3.1-8b --gpu rtx-4090 --users 4 --isl 1000 --osl 200",
       }) {
    INFO(args);
    const auto j = run(args + " -f json");
    REQUIRE(j.code == 0);
    const json doc = json::parse(j.out);
    const json& t = doc["throughput"];
    // One aggregate: the serving step model's, which cost divides by.
    CHECK(t["aggregate_tokens_per_s"] == t["output_tokens_per_s"]);
    CHECK(t["time_to_first_token_s"] == t["ttft_s"]);
    const json& c = doc["cost"];
    if (!c["usd_per_million_tokens"].is_null()) {
      // (hardware / years + energy per year) / (aggregate x utilization x 8,760 h x 3,600 s)
      // x 10^6; the JSON rounds dollars to whole and the aggregate to 0.01 tok/s.
      const double per_year = c["hardware_usd"].get<double>() / c["years"].get<double>() +
                              c["energy_usd_per_year"].get<double>();
      const double tokens =
          t["aggregate_tokens_per_s"].get<double>() * c["utilization"].get<double>() * 8760 * 3600;
      CHECK(c["usd_per_million_tokens"].get<double>() ==
            Approx(per_year / tokens * 1e6).epsilon(0.002));
    }
    // The table, Markdown and HTML print the same aggregate, per-user speed and first token.
    const auto table = run(args);
    const auto md = run(args + " -f markdown");
    const auto html = run(args + " -f html");
    REQUIRE(table.code == 0);
    // An unpriced machine (no H100 server price in the catalog) has the energy line alone.
    const bool priced = !c["usd_per_million_tokens"].is_null();
    for (const std::string label :
         {"aggregate", "per user", "first token", priced ? "per 1M tokens" : "energy"}) {
      const bool cost_line = label == "energy" || label == "per 1M tokens";
      const size_t cost_at = table.out.find("\nCost\n");
      const std::string v = table_value(
          cost_line && cost_at != std::string::npos ? table.out.substr(cost_at) : table.out, label);
      INFO(label << ": " << v);
      CHECK(!v.empty());
      CHECK(md.out.find("| " + label + " | " + v + " |") != std::string::npos);
      CHECK(html.out.find("<th>" + label + "</th><td>" + v + "</td>") != std::string::npos);
    }
  }
}

TEST_CASE("One count of machines: gpu, system, deployment and --emit agree, replicas share no link",
          "[cli][serving][answer]") {
  struct Case {
    std::string args;
    uint64_t nodes;  // derived below
  };
  for (const Case& c : std::vector<Case>{
           // 8 replicas of TP 8 (64 L40S): one replica per 8-GPU server, 8 servers (it bought 7
           // ten-GPU servers, 70 cards, with replicas straddling two of them).
           {"llama-3.3-70b --engine sglang --users 200 --target-tps 20 --gpu l40s", 8},
           // 4 replicas of TP 4 (16 RTX 5090), each at vLLM's 256 sequences for a card under 70
           // GiB (1000 / 256 rounds up to 4) at 31 tokens/s: a consumer card goes in no rack
           // server (#21), so one replica to a 4-GPU workstation, 4 workstations.
           {"gpt-oss-120b --engine vllm --users 1000 --target-tps 30 --gpu rtx-5090", 4},
           // One replica of TP 2 x PP 4 on RTX 4090s: two to an AM5 desktop, 8 / 2 = 4.
           {"llama-3.3-70b --engine vllm --users 500 --target-tps 20 --gpu rtx-4090", 4},
       }) {
    INFO(c.args);
    const auto j = run(c.args + " -f json");
    REQUIRE(j.code == 0);
    const json doc = json::parse(j.out);
    CHECK(doc["gpu"]["nodes"] == c.nodes);
    CHECK(doc["system"]["nodes"] == c.nodes);
    // The GPU plan reads the deployment: its TP degree, and replicas that share no link.
    CHECK(doc["gpu"]["tp_degree"] == doc["throughput"]["tensor_parallel"]);
    if (doc["throughput"]["replicas"] > 1)
      CHECK(doc["gpu"]["split"].get<std::string>().find(" replicas") != std::string::npos);
    CHECK(doc["throughput"]["nodes"] == c.nodes);
    const uint64_t reps = doc["throughput"]["replicas"];
    const auto bom = run(c.args + " -f bom-csv");
    REQUIRE(bom.code == 0);
    if (reps > 1) {
      // Independent replicas, each inside one machine: no stage link, GPU fabric or switch.
      CHECK(bom.out.find("stage_link") == std::string::npos);
      CHECK(bom.out.find("gpu_fabric") == std::string::npos);
      CHECK(bom.out.find("\nswitch,") == std::string::npos);
      // And the words say so: no network carries a layer split between them.
      const auto table = run(c.args);
      CHECK(table.out.find("a network carries the layer split") == std::string::npos);
      CHECK(table.out.find("one machine, no fabric") == std::string::npos);
      CHECK(table.out.find("only requests travel between them") != std::string::npos);
      // --emit starts each replica on the machine the plan counts: nodes 0 .. nodes - 1.
      const std::string engine = doc["throughput"]["engine"];
      const auto e = run(c.args + " --emit " + engine);
      REQUIRE(e.code == 0);
      std::set<std::string> nodes;
      std::istringstream in(e.out);
      for (std::string line; std::getline(in, line);)
        if (line.rfind("# replica", 0) == 0) nodes.insert(line.substr(line.rfind("node ")));
      CHECK(nodes.size() == c.nodes);
    }
  }
}

TEST_CASE("An embedding model under a serving engine is sized as an encoder, not a generation plan",
          "[cli][serving][answer]") {
  for (const std::string engine : {"vllm", "sglang", "llama.cpp"}) {
    INFO(engine);
    const auto r = run("qwen3-embedding-8b --engine " + engine + " --docs 256 -f json");
    REQUIRE(r.code == 0);
    const json t = json::parse(r.out)["throughput"];
    CHECK(t["documents_per_s"].get<double>() > 0);
    CHECK(t["engine"].is_null());
    CHECK(t["output_tokens_per_s"].is_null());
    CHECK(t["aggregate_tokens_per_s"].is_null());
    const auto table = run("qwen3-embedding-8b --engine " + engine + " --docs 256");
    CHECK(table.out.find("\nEmbedding (") != std::string::npos);
    CHECK(table.out.find("\nServing (") == std::string::npos);
  }
}

TEST_CASE("a --rate past what the GPUs sustain is an overload verdict, not a TTFT of hours",
          "[cli][serving]") {
  // Llama 3.1 8B BF16 under vLLM on one RTX 4090, 1000 in / 1000 out: the KV pool runs 29
  // sequences at ~36 ms a token, about 0.80 requests/s. 100 requests/s reported a mean TTFT of
  // 7,854 s (2.2 hours) and 4,416 requests queued.
  const std::string h = "llama-3.1-8b --gpu rtx-4090 --engine vllm";
  const json over = throughput(h + " --rate 100");
  CHECK(over["overloaded"] == true);
  CHECK(over["limited_by"] == "overload");
  CHECK(over["ttft_s"].is_null());
  CHECK(over["ttft_p90_s"].is_null());
  CHECK(over["queued"].is_null());
  const double x = over["sustainable_requests_per_s"];
  CHECK(x == Approx(0.80).margin(0.05));
  // What comes out is that rate: requests/s x 1000 tokens each.
  CHECK(over["requests_per_s"].get<double>() == Approx(x).margin(0.001));
  CHECK(over["output_tokens_per_s"].get<double>() == Approx(x * 1000).epsilon(0.01));
  // Under it, a steady state with its TTFT; no sustainable figure.
  const json under = throughput(h + " --rate 0.5");
  CHECK(under["overloaded"] == false);
  CHECK(under["ttft_s"].get<double>() > 0);
  CHECK(under["sustainable_requests_per_s"].is_null());
  // Without --rate nothing is offered beyond the users: never overloaded.
  CHECK(throughput(h + " --users 8")["overloaded"] == false);
  // The table says so in words.
  const auto r = run(h + " --rate 100");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("  overloaded      the offered rate exceeds what 1 GPU sustains: 0.8") !=
        std::string::npos);
  CHECK(r.out.find("  first token     ") == std::string::npos);
}

TEST_CASE("A capacity found meets the TPOT it was given, with the TTFT and the per-user speed",
          "[cli][serving]") {
  // 20 users at 20 tokens/s (ITL <= 50 ms) on H100: one GPU runs them at an ITL of 10.4 ms, and
  // was reported found beside "TPOT missed" for --tpot-ms 10. Now the plan meets it.
  const std::string h = "llama-3.1-8b --gpu h100-sxm --engine vllm --users 20 --target-tps 20";
  for (const double tpot_ms : {50.0, 10.0, 5.0}) {
    const json t = throughput(h + " --tpot-ms " + std::to_string(tpot_ms) + " --ttft-ms 2000");
    INFO("--tpot-ms " << tpot_ms);
    CHECK(t["serving_capacity_found"] == true);
    CHECK(t["meets_tpot"] == true);
    CHECK(t["meets_ttft"] == true);
    CHECK(t["itl_s"].get<double>() * 1000 <= tpot_ms);
    CHECK(t["per_user_tokens_per_s"].get<double>() >= 20);
  }
  CHECK(throughput(h + " --tpot-ms 10")["serving_capacity_binding"] == "tpot");
}

TEST_CASE("a launch command is printed only for a plan that fits, whatever the engine",
          "[cli][serving]") {
  struct Case {
    std::string args, message;
  };
  for (const auto& c : std::vector<Case>{
           // Llama 3.1 70B Q4_K_M is 40 GiB of weights: one 24 GiB card holds it with no engine.
           {"llama-3.1-70b --gpu rtx-4090 --gpus 1 --emit llama-server",
            "--emit llama-server: the weights and one sequence do not fit the engine's KV pool on "
            "1 GPU; give more --gpus or drop --gpus to let llmsize plan them"},
           {"llama-3.1-70b --gpu rtx-4090 --gpus 1 --emit ollama",
            "--emit ollama: the weights and one sequence do not fit the engine's KV pool on 1 "
            "GPU; give more --gpus or drop --gpus to let llmsize plan them"},
           // Two hold it at 2,000 tokens, not at 131,072 (16 GiB of F16 KV on top).
           {"llama-3.1-70b --gpu rtx-4090 --gpus 2 --ctx 131072 --emit llama-server",
            "--emit llama-server: the weights and one sequence do not fit the engine's KV pool on "
            "2 GPUs; give more --gpus or drop --gpus to let llmsize plan them"},
           // BF16 70B is 141 GB: one 80 GB H100 is too few for vLLM.
           {"llama-3.1-70b --gpu h100-sxm --gpus 1 --emit vllm",
            "--emit vllm: the weights and one sequence do not fit the engine's KV pool on 1 GPU; "
            "give more --gpus or drop --gpus to let llmsize plan them"},
       }) {
    const auto r = run(c.args);
    INFO(c.args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "llmsize: error: " + c.message + "\n");
  }
  // 64 users at 32,768 tokens each: the 8B's KV is 4 GiB a slot and the 4090's pool holds 4 of
  // them (the plan runs 4 and queues 60). llama-server reserves -c = slots x context at start, so
  // -np 64 (-c 2097152, 256 GiB of KV) would not start: the command has the 4 slots that fit.
  const auto r =
      run("llama-3.1-8b --gpu rtx-4090 --gpus 1 --users 64 --ctx 32768 --emit llama-server");
  REQUIRE(r.code == 0);
  CHECK(r.out.find(" -c 131072 -np 4 ") != std::string::npos);
}

namespace {

// The JSON value at a dotted CSV column ("gpu.count"); null when a part is missing.
json at_path(const json& doc, const std::string& column) {
  const json* v = &doc;
  size_t a = 0;
  while (a <= column.size()) {
    size_t b = column.find('.', a);
    if (b == std::string::npos) b = column.size();
    const std::string key = column.substr(a, b - a);
    if (!v->is_object() || !v->contains(key)) return json();
    v = &(*v)[key];
    a = b + 1;
  }
  return *v;
}

// The number a table line "Machine   NAME (...) × N, K GPUs each" gives after the last `after`.
uint64_t number_after(const std::string& line, const std::string& after) {
  const size_t at = line.rfind(after);
  return at == std::string::npos ? 0 : std::stoull(line.substr(at + after.size()));
}

}  // namespace

// #20 "The same figures in every format": one plan rendered as JSON, CSV, the table, Markdown,
// HTML and bom-csv, across engines, a recommendation, fine-tuning, an embedding model and a
// generic machine; each figure a buyer acts on is compared between the formats that carry it.
// Every contradiction found is a failure (the issue counted about 30 before).
TEST_CASE("One plan in every format: no figure contradicts another", "[cli][serving][answer]") {
  size_t compared = 0;
  for (const std::string& args : std::vector<std::string>{
           "gpt-oss-120b --engine vllm --users 50 --target-tps 20",
           "llama-3.3-70b --engine sglang --users 200 --target-tps 20 --gpu l40s",
           "llama-3.1-70b --quant q4 --ctx 8192",
           "llama-3.1-8b --gpu rtx-4090 --users 4",
           "llama-3.1-70b --mode full --seq 4096 --gpu h100-sxm",
           "llama-3.1-8b --mode qlora --gpu rtx-4090",
           "llama-3.1-8b --gpu h20 --gpus 8",
           "bge-m3 --docs 64 --gpu l4",
           "qwen3-30b-a3b --engine llama.cpp --users 8 --gpu rtx-3090 --gpus 2",
           "llama-3.3-70b --users 50 --ctx 8192",
           "llama-3.1-8b --engine ollama --users 6 --gpu rtx-4090",
           "llama-3.1-8b --engine trt-llm --gpu h100-sxm --users 64",
           "gpt-oss-120b --engine vllm --gpu h100-sxm --gpus 2 --rate 3",
           "llama-3.1-70b --quant q4 --ctx 8192 --gpu m3-ultra",
           "llama-3.1-8b --mode lora --gpu rtx-4090",
       }) {
    INFO(args);
    const auto j = run(args + " -f json");
    REQUIRE(j.code == 0);
    const json doc = json::parse(j.out);
    // CSV: every column is the JSON's field (one field table).
    const auto c = parse_csv(run(args + " -f csv").out);
    REQUIRE(c.size() == 2);
    REQUIRE(c[0].size() == c[1].size());
    for (size_t i = 0; i < c[0].size(); ++i) {
      const json v = at_path(doc, c[0][i]);
      INFO(c[0][i] << " = '" << c[1][i] << "' vs " << v.dump());
      if (v.is_null()) {
        CHECK(c[1][i].empty());
      } else if (v.is_number()) {
        CHECK(std::stod(c[1][i]) == Approx(v.get<double>()).epsilon(1e-6));
      } else if (v.is_boolean()) {
        CHECK(c[1][i] == (v.get<bool>() ? "true" : "false"));
      } else if (v.is_string()) {
        CHECK((c[1][i] == v.get<std::string>() || c[1][i] == "'" + v.get<std::string>()));
      }
      ++compared;
    }
    // One layout: the GPU plan's tensor-parallel degree and split are the serving deployment's.
    const json& t = doc["throughput"];
    if (!t["tensor_parallel"].is_null()) {
      CHECK(doc["gpu"]["tp_degree"] == t["tensor_parallel"]);
      CHECK(doc["gpu"]["split"] ==
            "TP " + t["tensor_parallel"].dump() + " × PP " + t["pipeline_parallel"].dump() + " × " +
                t["replicas"].dump() + (t["replicas"] == 1 ? " replica" : " replicas"));
      CHECK(doc["gpu"]["count"] == t["gpus"]);
    }
    const auto table = run(args);
    REQUIRE(table.code == 0);
    const auto md = run(args + " -f markdown").out;
    const auto html = run(args + " -f html").out;
    // The answer: every speed and cost line of the table, as Markdown and HTML print it.
    for (const std::string label : {"aggregate", "per user", "first token", "decode", "documents",
                                    "hardware", "energy", "per 1M tokens", "break-even"}) {
      // The cost lines from the Cost block (the power block has an energy line of its own).
      const bool cost_line = label == "hardware" || label == "energy" || label == "per 1M tokens" ||
                             label == "break-even";
      const size_t cost_at = table.out.find("\nCost\n");
      if (cost_line && cost_at == std::string::npos) continue;
      const std::string v = table_value(cost_line ? table.out.substr(cost_at) : table.out, label);
      if (v.empty()) continue;
      INFO(label << ": " << v);
      CHECK(md.find("| " + label + " | " + v + " |") != std::string::npos);
      CHECK(html.find("<th>" + label + "</th><td>" + v + "</td>") != std::string::npos);
      ++compared;
    }
    // The machines and GPUs bought: the table's Machine line, the JSON and the BOM.
    const json& sys = doc["system"];
    if (sys["platform_id"].is_null()) continue;
    std::string machine;
    std::istringstream in(table.out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("Machine   ", 0) == 0) machine = line;
    REQUIRE(!machine.empty());
    const uint64_t nodes = sys["nodes"];
    CHECK(number_after(machine, ") × ") == nodes);
    CHECK(doc["gpu"]["nodes"] == nodes);
    if (!doc["throughput"]["nodes"].is_null()) CHECK(doc["throughput"]["nodes"] == nodes);
    const uint64_t per_node = number_after(machine, ", ");
    const auto bom = parse_csv(run(args + " -f bom-csv").out);
    REQUIRE(bom.size() > 2);
    double priced = 0;
    for (size_t i = 1; i < bom.size(); ++i) {
      const auto& l = bom[i];
      INFO(l[0] << " " << l[1]);
      const uint64_t qty = std::stoull(l[3]);
      if (l[0] == "platform") CHECK(qty == nodes);
      if (l[0] == "gpu") CHECK(qty == nodes * per_node);
      if (l[0] == "memory")
        CHECK(qty * std::stoull(l[2]) * (1ull << 30) ==  // the spec starts "N GiB DIMMs"
              nodes * sys["ram_bytes"].get<uint64_t>());
      if (l[6].empty() && !l[4].empty()) priced += static_cast<double>(qty) * std::stod(l[4]);
    }
    CHECK(priced == Approx(sys["bom_total_usd"].get<double>()).margin(1));
    if (!doc["cost"]["hardware_usd"].is_null())
      CHECK(doc["cost"]["hardware_usd"].get<double>() ==
            Approx(sys["bom_total_usd"].get<double>()).margin(1));
    // Markdown's bill counts the same machines and RAM (a unified computer is its GPU line).
    if (sys["platform"] != "unified")
      CHECK(md.find(std::to_string(sys["ram_bytes"].get<uint64_t>() >> 30) +
                    " GiB per machine) | ") != std::string::npos);
    if (sys["platform"] != "unified")
      CHECK(md.find(" | needs " +
                    std::to_string(std::llround(sys["ram_required_bytes"].get<double>() /
                                                static_cast<double>(1ull << 30))) +
                    " GiB: ") != std::string::npos);
    if (sys["platform"] != "unified")
      CHECK(md.find(" (" + sys["platform"].get<std::string>() + ") | " + std::to_string(nodes) +
                    " |") != std::string::npos);
    compared += 6;
  }
  CHECK(compared > 1500);
}

// One memory figure per serving plan (#20): the memory table is one replica's (its TP x PP GPUs
// and the sequences it runs at once), the engine is the serving engine everywhere, the KV memory
// and the sequences that fit are the engine's pool's, the per-GPU figure is the one the options
// rank by, and the single stream decodes on one replica at least as fast as a user of many.
TEST_CASE("A serving plan has one memory figure: one replica's table, the engine's pool and rule",
          "[cli][serving][answer]") {
  for (const std::string& args : std::vector<std::string>{
           "llama-3.3-70b --engine sglang --users 200 --target-tps 20 --gpu l40s",
           "gpt-oss-120b --engine vllm --users 50 --target-tps 20",
           "llama-3.1-8b --engine trt-llm --gpu h100-sxm --users 64",
           "qwen3-30b-a3b --engine llama.cpp --users 8 --gpu rtx-3090 --gpus 2 --isl 1000",
       }) {
    INFO(args);
    const auto j = run(args + " -f json");
    REQUIRE(j.code == 0);
    const json doc = json::parse(j.out);
    const json& t = doc["throughput"];
    const json& v = doc["vram"];
    REQUIRE(!t["replicas"].is_null());
    CHECK(doc["settings"]["engine"] == t["engine"]);
    CHECK(v["gpus"].get<uint64_t>() ==
          t["tensor_parallel"].get<uint64_t>() * t["pipeline_parallel"].get<uint64_t>());
    CHECK(v["replicas"] == t["replicas"]);
    CHECK(v["gpus"].get<uint64_t>() * v["replicas"].get<uint64_t>() == doc["gpu"]["count"]);
    CHECK(v["kv_available_bytes"].get<uint64_t>() ==
          t["kv_pool_bytes_per_gpu"].get<uint64_t>() * t["gpus"].get<uint64_t>());
    CHECK(t["max_concurrent_sequences"].get<uint64_t>() ==
          t["max_concurrency_guarantee"].get<uint64_t>() * t["replicas"].get<uint64_t>());
    // The headroom the table adds is the rule the fit holds the plan to.
    CHECK(doc["settings"]["headroom"].get<double>() >=
          doc["gpu"]["engine_margin_fraction"].get<double>() - 1e-4);
    CHECK(t["decode_tokens_per_s"].get<double>() >= t["per_user_tokens_per_s"].get<double>());
    CHECK(t["prompt_tokens"] == t["isl"]);
    for (const auto& o : doc["gpu_options"])
      if (o["id"] == doc["gpu"]["id"] && o["count"] == doc["gpu"]["count"])
        CHECK(o["per_gpu_bytes"] == doc["gpu"]["per_gpu_bytes"]);
    // The table says whose memory it is.
    const auto table = run(args);
    REQUIRE(table.code == 0);
    if (t["replicas"] > 1)
      CHECK(table.out.find("one replica: " + v["gpus"].dump() + " GPU") != std::string::npos);
  }
}

// llama.cpp's small batches run through matrix-vector kernels that re-read the weights per row
// (an expert only for the rows routed to it), the larger through GEMMs; llama.cpp takes the
// faster, so a step never gets shorter as users are added: each user's speed falls and the
// aggregate rises with the users. It did not: Qwen3-30B-A3B on 2 x RTX 3090 ran 8 users at 24.2
// tok/s each (193 tok/s in all, less than 4 users' 209) and 16 at 36.5.
TEST_CASE("A slot engine's per-user speed falls and its aggregate rises as users are added",
          "[cli][serving]") {
  for (const std::string& base :
       {std::string("qwen3-30b-a3b --engine llama.cpp --gpu rtx-3090 --gpus 2"),
        std::string("llama-3.1-8b --engine llama.cpp --gpu rtx-4090"),
        std::string("llama-3.1-8b --engine ollama --gpu rtx-4090")}) {
    double per_user = 1e9, aggregate = 0;
    for (const int users : {1, 2, 4, 8, 9, 16, 32}) {
      const json t = throughput(base + " --isl 200 --osl 500 --users " + std::to_string(users));
      INFO(base << " --users " << users);
      CHECK(t["per_user_tokens_per_s"].get<double>() <= per_user);
      CHECK(t["aggregate_tokens_per_s"].get<double>() >= aggregate);
      per_user = t["per_user_tokens_per_s"];
      aggregate = t["aggregate_tokens_per_s"];
    }
  }
}

// llama-server slots are concurrent sequences too (#20): --users N on llama.cpp is a serving plan
// of N slots (llama-server -np N), whose step model is the plan's only aggregate; llmsize sizes
// the GPUs to hold every slot under the 20% rule, and the slot is the main command's context.
// It was a layer split whose aggregate was N x one sequence's speed (777 tok/s for 8 users of
// Qwen3-30B-A3B on 2 x RTX 3090, and 193 with --isl 1000 given: two models, one plan).
TEST_CASE("Users on llama.cpp are llama-server's slots, sized to hold them all",
          "[cli][serving][answer]") {
  {
    const json doc = json::parse(run("llama-3.3-70b --users 50 --ctx 8192 -f json").out);
    const json& t = doc["throughput"];
    CHECK(t["engine"] == "llama.cpp");
    CHECK(t["aggregate_tokens_per_s"] == t["output_tokens_per_s"]);
    CHECK(t["queued"] == 0);
    CHECK(t["concurrency"].get<uint64_t>() * t["replicas"].get<uint64_t>() == 50);
    CHECK(t["max_model_len"] == 8192);
    CHECK(doc["settings"]["context"] == 8192);
    CHECK(doc["gpu"]["fit"] == "fits");
    // Each replica's slots: -c is its users x 8,192 tokens, -np its users.
    CHECK(t["per_user_tokens_per_s"].get<double>() >= 10);
    const uint64_t each = t["max_num_seqs"];
    const auto e = run("llama-3.3-70b --users 50 --ctx 8192 --emit llama-server");
    REQUIRE(e.code == 0);
    CHECK(e.out.find(" -c " + std::to_string(each * 8192) + " -np " + std::to_string(each) + " ") !=
          std::string::npos);
  }
  {
    // A llama-server process stays in one machine (a layer split across machines needs llama.cpp's
    // RPC backend): 50 users of 8,192 tokens on RTX 5090s (32 GB), in workstations of 4, run as
    // replicas of at most 4 cards, each on its own machine's devices, every user at the usable
    // speed: 39.6 GiB of Q4_K_M weights + slots of 8,192 x 320 KiB = 2.5 GiB each.
    const std::string a = "llama-3.3-70b --users 50 --ctx 8192 --gpu rtx-5090";
    const json t = json::parse(run(a + " -f json").out)["throughput"];
    const uint64_t span =
        t["tensor_parallel"].get<uint64_t>() * t["pipeline_parallel"].get<uint64_t>();
    CHECK(span <= 4);
    CHECK(t["per_user_tokens_per_s"].get<double>() >= 10);
    CHECK(t["concurrency"].get<uint64_t>() * t["replicas"].get<uint64_t>() >= 50);
    const auto e = run(a + " --emit llama-server");
    REQUIRE(e.code == 0);
    const uint64_t reps = t["replicas"];
    CHECK(e.out.find("# replica " + std::to_string(reps) + " of " + std::to_string(reps)) !=
          std::string::npos);
    CHECK(e.out.find(" -c " + std::to_string(t["max_num_seqs"].get<uint64_t>() * 8192) + " -np " +
                     std::to_string(t["max_num_seqs"].get<uint64_t>()) + " ") != std::string::npos);
    // Eight cards given run as two replicas of 25 slots on 4 cards each, one per workstation:
    // 39.6 GiB of Q4_K_M weights + 25 x 8,192 x 320 KiB = 62.5 GiB of KV a replica, not one
    // layer split across the two machines.
    const json g = json::parse(run(a + " --gpus 8 -f json").out)["throughput"];
    CHECK(g["replicas"] == 2);
    CHECK(g["pipeline_parallel"] == 4);
    CHECK(g["concurrency"] == 25);
    CHECK(g["nodes"] == 2);
    const auto ge = run(a + " --gpus 8 --emit llama-server");
    REQUIRE(ge.code == 0);
    CHECK(ge.out.find("# replica 2 of 2, node 1\nCUDA_VISIBLE_DEVICES=0,1,2,3 llama-server") !=
          std::string::npos);
    CHECK(ge.out.find(" -ts 20,20,20,20 -c 204800 -np 25 ") != std::string::npos);
  }
  {
    // Without --ctx, --isl or --osl the slot is the main command's 4,096-token context.
    const json doc = json::parse(run("llama-3.1-8b --users 4 --gpu rtx-4090 -f json").out);
    CHECK(doc["throughput"]["engine"] == "llama.cpp");
    CHECK(doc["settings"]["context"] == 4096);
    CHECK(doc["throughput"]["max_num_seqs"] == 4);
  }
}

// --compare reads the one throughput (#20): under a serving engine each row's per-user speed,
// aggregate and TTFT are the main command's for that system, not the single stream's decode.
TEST_CASE("The compare table of a serving plan shows each system's per-user speed and aggregate",
          "[cli][serving][answer]") {
  const std::string base = "gpt-oss-120b --engine vllm --users 50";
  const auto c = run(base + " --compare rtx-pro-6000,h200x2");
  REQUIRE(c.code == 0);
  CHECK(c.out.find("per user   aggregate    TTFT") != std::string::npos);
  for (const std::string gpu : {"--gpu rtx-pro-6000", "--gpu h200 --gpus 2"}) {
    const auto j = run(base + " " + gpu + " -f json");
    REQUIRE(j.code == 0);
    const json t = json::parse(j.out)["throughput"];
    // The cells right-align to their column: a run of spaces between them.
    char per_user[48], aggregate[48];
    std::snprintf(per_user, sizeof per_user, "%.1f tok/s ",
                  t["per_user_tokens_per_s"].get<double>());
    std::snprintf(aggregate, sizeof aggregate, "%.0f tok/s ",
                  t["aggregate_tokens_per_s"].get<double>());
    INFO(gpu << ": " << per_user << "| " << aggregate << "\n" << c.out);
    size_t at = c.out.find(per_user);
    REQUIRE(at != std::string::npos);
    at = c.out.find_first_not_of(' ', at + std::strlen(per_user));
    REQUIRE(c.out.compare(at, std::strlen(aggregate), aggregate) == 0);
    // The TTFT cell rounds the plan's own figure to 10 ms; the JSON's is rounded to 1 ms first.
    const double ttft = std::stod(c.out.substr(at + std::strlen(aggregate)));
    CHECK(std::abs(ttft - t["ttft_s"].get<double>()) <= 0.0051);
  }
}

// --explain derives the figures the table shows (#20): a serving plan's per-user speed,
// aggregate and first token, from its step, with the same numbers as the JSON.
TEST_CASE("explain derives a serving plan's per-user speed, aggregate and first token",
          "[cli][serving][answer]") {
  const std::string args = "gpt-oss-120b --engine vllm --users 50 --gpu h100-sxm";
  const auto x = run(args + " --explain");
  REQUIRE(x.code == 0);
  const json t = json::parse(run(args + " -f json").out)["throughput"];
  char per_user[64], aggregate[64], ttft[64], cycle[96];
  std::snprintf(per_user, sizeof per_user, "  per user\n      = 1 / ITL");
  std::snprintf(aggregate, sizeof aggregate, "      = %.0f output tok/s",
                t["aggregate_tokens_per_s"].get<double>());
  std::snprintf(ttft, sizeof ttft, "      = %.3f s (first wave", t["ttft_s"].get<double>());
  // aggregate = running x replicas x osl / cycle: 50 x 1 x 1000 / (50,000 / aggregate) s.
  std::snprintf(cycle, sizeof cycle, "= 50 × 1 × 1000 / %.2f s",
                50.0 * 1000 / t["aggregate_tokens_per_s"].get<double>());
  INFO(x.out);
  CHECK(x.out.find(per_user) != std::string::npos);
  std::snprintf(per_user, sizeof per_user, "      = %.1f tok/s\n",
                t["per_user_tokens_per_s"].get<double>());
  CHECK(x.out.find(per_user) != std::string::npos);
  CHECK(x.out.find(aggregate) != std::string::npos);
  CHECK(x.out.find(cycle) != std::string::npos);
  CHECK(x.out.find(ttft) != std::string::npos);
  // Not the single stream's decode, which the table of a serving plan does not print.
  CHECK(x.out.find("tok/s per sequence") == std::string::npos);
}

TEST_CASE(
    "The engine's memory share (--gpu-memory-utilization) sets the pool, the table and --emit",
    "[cli][serving]") {
  // vLLM's KV pool is F x the GPU's memory less what the profile run charges (weights, activation
  // peak, non-torch memory), none of which depends on F: between F = 0.9 and F = 0.5 the pool
  // of one H100 (the 81,106 MiB = 85,045,805,056 B its CUDA runtime reports, data/gpus.json
  // visible_memory_mib) shrinks by 0.4 x 85,045,805,056 = 34,018,322,022.4 B.
  const std::string base = "llama-3.1-8b --engine vllm --gpu h100-sxm";
  const auto at = [&](const std::string& f) {
    const auto r = run(base + " --gpu-memory-utilization " + f + " -f json");
    REQUIRE(r.code == 0);
    return json::parse(r.out);
  };
  const json nine = at("0.9"), half = at("0.5");
  CHECK(half["throughput"]["memory_fraction"] == 0.5);
  const double shrink = nine["throughput"]["kv_pool_bytes_per_gpu"].get<double>() -
                        half["throughput"]["kv_pool_bytes_per_gpu"].get<double>();
  CHECK(std::abs(shrink - 34018322022.4) < 16);
  // The default is vLLM's own 0.9: the same plan as F = 0.9.
  const auto def = json::parse(run(base + " -f json").out);
  CHECK(def["throughput"]["kv_pool_bytes_per_gpu"] == nine["throughput"]["kv_pool_bytes_per_gpu"]);
  // The memory table sums to F of the GPU: its headroom is 1/F - 1 (1 at F = 0.5), so its total
  // is twice the parts.
  const json& v = half["vram"];
  const double parts = v["weights_bytes"].get<double>() + v["kv_cache_bytes"].get<double>() +
                       v["activations_bytes"].get<double>() + v["overhead_bytes"].get<double>() +
                       v["recurrent_state_bytes"].get<double>();
  CHECK(std::abs(v["total_bytes"].get<double>() / parts - 2) < 1e-6);
  // The launch command carries it; SGLang takes the same flag as --mem-fraction-static.
  CHECK(run(base + " --gpu-memory-utilization 0.5 --emit vllm")
            .out.find("--gpu-memory-utilization 0.50") != std::string::npos);
  const auto sg =
      run("llama-3.1-8b --engine sglang --gpu h100-sxm --mem-fraction-static 0.8 "
          "--emit sglang");
  CHECK(sg.out.find("--mem-fraction-static 0.800") != std::string::npos);
  // Refused where it means nothing or says twice what --headroom says.
  const auto slots = run("llama-3.1-8b --gpu-memory-utilization 0.5");
  CHECK(slots.code == 2);
  CHECK(slots.out.empty());
  CHECK(slots.err ==
        "llmsize: error: --gpu-memory-utilization: llama.cpp sizes its KV cache by slots, not by "
        "a share of the GPU; use --headroom\n");
  CHECK(run(base + " --headroom 0.2 --gpu-memory-utilization 0.5").code == 2);
  CHECK(run(base + " --gpu-memory-utilization 1.5").code == 2);
}

TEST_CASE("The table opens with the answer, in the figures the sections and the JSON give",
          "[cli][serving][answer]") {
  // #21: the GPUs and machines bought, the users' speed, the price and power, and the fit, before
  // the memory table; each figure is the JSON's (rounded as printed).
  const std::string args = "llama-3.1-8b --engine vllm --users 20 --gpu l40s";
  const auto t = run(args);
  REQUIRE(t.code == 0);
  const json j = json::parse(run(args + " -f json").out);
  const size_t at = t.out.find("\nAnswer    ");
  REQUIRE(at != std::string::npos);
  CHECK(at < t.out.find("\nVRAM"));  // before the parts
  const std::string answer = t.out.substr(at, t.out.find("\n\n", at) - at);
  const auto& th = j["throughput"];
  CHECK(answer.find(std::to_string(j["gpu"]["count"].get<int>()) + " × NVIDIA L40S in " +
                    std::to_string(j["system"]["nodes"].get<int>()) + " × ") != std::string::npos);
  char speed[128];
  std::snprintf(speed, sizeof speed,
                "20 users at %.1f tok/s each (%.0f tok/s in all), first token %.2f s",
                th["per_user_tokens_per_s"].get<double>(),
                th["aggregate_tokens_per_s"].get<double>(), th["ttft_s"].get<double>());
  CHECK(answer.find(speed) != std::string::npos);
  CHECK(answer.find("at the wall at most") != std::string::npos);
  CHECK(answer.find("fits with") != std::string::npos);
  // Markdown and HTML open with the same lines.
  const std::string md = run(args + " -f markdown").out, html = run(args + " -f html").out;
  CHECK(md.find("**Answer**\n\n- " + std::to_string(j["gpu"]["count"].get<int>()) +
                " × NVIDIA L40S in ") != std::string::npos);
  CHECK(md.find("- " + std::string(speed)) != std::string::npos);
  CHECK(html.find("<h2>Answer</h2>") != std::string::npos);
  CHECK(html.find("<li>" + std::string(speed) + "</li>") != std::string::npos);
  // A fine-tuning plan answers with the job (#20: sized as itself): the GPUs and machine it
  // buys, what the job holds and each GPU's share, as the JSON's gpu.count, finetune.total_bytes
  // and gpu.per_gpu_bytes give them. 8B LoRA: 19.66e9 B = 18 GiB; 24.23e9 B = 22.6 GiB per GPU.
  const json lora = json::parse(run("llama-3.1-8b --mode lora --gpu h100-sxm -f json").out);
  CHECK(lora["gpu"]["count"] == 1);
  CHECK(lora["finetune"]["total_bytes"] == 19655041024);
  CHECK(lora["gpu"]["per_gpu_bytes"] == 24230294324);
  const auto lt = run("llama-3.1-8b --mode lora --gpu h100-sxm --width 0").out;
  CHECK(lt.find("\nAnswer    1 × NVIDIA H100 SXM5 80GB in ") != std::string::npos);
  CHECK(lt.find("LoRA fine-tuning: the job holds 18 GiB; 22.6 GiB per GPU\n") != std::string::npos);
}

TEST_CASE("users N on a batching engine: all N planned at once at the usable speed",
          "[cli][serving]") {
  // Llama-3.3-70B BF16 on H100 SXM, 50 users at 32k context (1,000 in, 1,000 out): --users means
  // people served at once, so without --gpus the plan takes the capacity search at the usable
  // speed (--min-tps, 10 by default): 4 GPUs run all 50, none queued, each above 10 tok/s.
  const std::string a = "llama-3.3-70b --engine vllm --users 50 --ctx 32768 --gpu h100-sxm";
  const json t = throughput(a);
  CHECK(t["gpus"] == 4);
  CHECK(t["concurrency"] == 50);
  CHECK(t["queued"] == 0);
  CHECK(t["per_user_tokens_per_s"].get<double>() >= 10);
  CHECK(t["serving_capacity_found"] == true);
  // Two GPUs given are judged as given: each holds 65.7 GiB of weights and the profile run's
  // 4.65 GiB peak, and the 0.9 share leaves about 1 GiB a GPU, short of one 32,768-token
  // request (10 GiB): vLLM would refuse to start (check_enough_kv_cache_memory).
  const json two = throughput(a + " --gpus 2");
  CHECK(two["gpus"] == 2);
  CHECK(two["fits"] == false);
  CHECK(two["max_concurrency_guarantee"] == 0);
  CHECK(two["concurrency"] == 0);
  CHECK(two["serving_capacity_found"].is_null());
  // The answer says so instead of a speed of 0.
  const auto t2 = run(a + " --gpus 2 --width 0");
  CHECK(t2.out.find("vllm does not start here: its KV pool (") != std::string::npos);
  CHECK(t2.out.find("holds no 32,768-token request") != std::string::npos);
  CHECK(t2.out.find("at 0.0 tok/s") == std::string::npos);
  // The table says how the count was sized.
  CHECK(run(a + " --width 0").out.find("sized for all 50 users at once at ≥ 10 tok/s each") !=
        std::string::npos);
  // A slot engine too: its users get replicas until each decodes at the usable speed.
  CHECK(throughput("llama-3.3-70b --gpu rtx-4090 --users 2 --isl 2000 --osl 300")
            ["serving_capacity_found"] == true);
}

TEST_CASE("one layout, one speed: a given count and a capacity search agree", "[cli][serving]") {
  // gpt-oss-120b (MoE) on four Arc Pro B60 (PCIe, no GPU link) under SGLang: both the count given
  // and the capacity search run attention data parallel (default_attention_dp), so the same TP 4
  // deployment gives the same per-user speed.
  const std::string a = "gpt-oss-120b --engine sglang --users 50 --gpu arc-pro-b60";
  const json given = throughput(a + " --gpus 4");
  const json searched = throughput(a + " --target-tps 10");
  REQUIRE(searched["gpus"] == 4);
  CHECK(given["per_user_tokens_per_s"] == searched["per_user_tokens_per_s"]);
  CHECK(given["itl_s"] == searched["itl_s"]);
}

// #21: no launch command for an engine the GPU does not run (it would not start): exit 2 with
// the engine's platforms and their source; the GPU's own runtime selects a replica's devices.
TEST_CASE("The launch command is refused for an engine the GPU does not run", "[cli][serving]") {
  for (const std::string args :
       {"llama-3.1-8b --gpu gaudi3 --engine sglang --emit sglang",
        "llama-3.1-8b --gpu gaudi3 --engine llama.cpp --emit llama-server"}) {
    INFO(args);
    const auto r = run(args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("does not run on Intel Gaudi 3 (HL-325L OAM) (habana): it runs on ") !=
          std::string::npos);
    CHECK(r.err.find("pick an engine that runs on it (--engine) or another --gpu") !=
          std::string::npos);
  }
  const auto ok =
      run("llama-3.1-8b --gpu gaudi3 --engine vllm --users 400 --target-tps 20 "
          "--emit vllm");
  CHECK(ok.code == 0);
  CHECK(ok.out.find("HABANA_VISIBLE_MODULES=0 vllm serve") != std::string::npos);
  CHECK(ok.out.find("CUDA_VISIBLE_DEVICES") == std::string::npos);
}

// #23: vLLM's KV cache in its own words, held to two published start-up logs (within 5%; the
// pool is total x utilization - weights - the profile run's peak - non-torch memory):
// - Qwen2-7B-Instruct, 2 x A100 40GB, TP 2, utilization 0.5, max_model_len 16,384 (vLLM
//   0.10.1.1): "GPU KV cache size: 412,944 tokens", "Maximum concurrency for 16,384 tokens per
//   request: 25.20x" (github.com/dennislee22/vLLM-benchmarking @b474d1e0,
//   log/vllm-7B-2gpuA10040GB-0.5GRAM-diff-nodes.log); the catalog's Qwen2.5-7B has its shapes.
// - Mistral-Small-3.2-24B, 1 x H100, utilization 0.95, max_model_len 16,000: 184,832 tokens,
//   11.55x (llm-d/llm-d-benchmark @4f4d4494 config_explorer/empirical-vllm-memory-results.md),
//   within 7%: its log's profile peak, 2.12 GiB, is below the 4.75 GiB of vLLM's native sampler
//   that llmsize charges (1,024 rows x 131,072 x 38 B; the two other H100 runs of that analysis
//   show it), and the catalog model has no Pixtral vision tower (0.85 GiB of the 44.76 GiB
//   logged): llmsize gives 172,800 tokens (-6.5%).
TEST_CASE("vLLM's KV cache tokens and concurrency as its start-up log prints them",
          "[cli][serving]") {
  struct Row {
    const char* args;
    double tokens, concurrency, within;
  };
  for (const Row& row : {Row{"qwen2.5-7b --engine vllm --gpu a100-40gb-sxm --gpus 2 --tp 2 "
                             "--gpu-memory-utilization 0.5 --ctx 16384",
                             412944, 25.20, 0.05},
                         Row{"mistral-small-3.2-24b --engine vllm --gpu h100-sxm --gpus 1 "
                             "--gpu-memory-utilization 0.95 --ctx 16000",
                             184832, 11.55, 0.07}}) {
    INFO(row.args);
    const json t = throughput(row.args);
    CHECK(t["kv_cache_tokens"].get<double>() == Approx(row.tokens).epsilon(row.within));
    CHECK(t["max_concurrency_at_max_model_len"].get<double>() ==
          Approx(row.concurrency).epsilon(row.within));
    // The table says it in the log's words.
    const auto r = run(std::string(row.args) + " --width 0");
    CHECK(r.out.find("maximum concurrency for ") != std::string::npos);
    CHECK(r.out.find(" tokens per request: ") != std::string::npos);
  }
}

// #23: --headroom h on an engine that takes a share of each GPU is that share, 1 / (1 + h): the
// pool, the concurrency and the launch command read it as they read --gpu-memory-utilization.
TEST_CASE("A headroom on vLLM or SGLang is the engine's memory share", "[cli][serving]") {
  const std::string a = "llama-3.1-8b --engine vllm --gpu h100-sxm";
  const json h = throughput(a + " --headroom 1");
  const json u = throughput(a + " --gpu-memory-utilization 0.5");
  CHECK(h["memory_fraction"] == 0.5);
  CHECK(h["kv_pool_bytes_per_gpu"] == u["kv_pool_bytes_per_gpu"]);
  CHECK(h["max_concurrency"] == u["max_concurrency"]);
  CHECK(h["max_concurrency"].get<int>() < throughput(a)["max_concurrency"].get<int>());
  CHECK(run(a + " --headroom 1 --emit vllm").out.find("--gpu-memory-utilization 0.50 ") !=
        std::string::npos);
  // SGLang's mem_fraction_static: 1 / 1.25 = 0.8.
  CHECK(run("llama-3.1-8b --engine sglang --gpu h100-sxm --headroom 0.25 --emit sglang")
            .out.find("--mem-fraction-static 0.800 ") != std::string::npos);
}

// #22: the layouts searched on the GPUs given run on the machines those GPUs fill. 144 GB200 are
// two NVL72 racks of 72; replicas that fit a rack stay inside one, so 9 replicas of TP 16 (4 to a
// rack, 8 GPUs idle in each) would need a third rack: such a layout is not a layout of the GPUs
// the buyer has. Of the 42 layouts of 144 GPUs, 32 place their replicas in 2 racks.
TEST_CASE("The serving layouts of --gpus N fit the machines N GPUs fill", "[cli][serving]") {
  const json j = json::parse(
      run("deepseek-r1 --engine sglang --gpu gb200 --gpus 144 --users 2048 --format json").out);
  CHECK(j["system"]["nodes"] == 2);
  CHECK(j["gpu"]["count"] == 144);
  const json& t = j["throughput"];
  const uint32_t span =
      t["tensor_parallel"].get<uint32_t>() * t["pipeline_parallel"].get<uint32_t>();
  const uint32_t replicas = t["replicas"].get<uint32_t>();
  CHECK(span * replicas == 144);
  CHECK((72 / span) * 2 >= replicas);
  CHECK(t["layouts_searched"] == 32);
  // Disaggregated: 7 decode replicas of TP 16 go 4 + 3 to the racks, leaving 8 and 24 GPUs that
  // the four 8-GPU prefill workers fill; the launch script places them where they were bought.
  const std::string pd =
      "deepseek-r1 --engine sglang --gpu gb200 --gpus 144 --users 2048 --prefill-gpus auto";
  const json d = json::parse(run(pd + " --format json").out);
  CHECK(d["system"]["nodes"] == 2);
  CHECK(d["throughput"]["prefill_workers"] == 4);
  CHECK(d["throughput"]["prefill_tp"] == 8);
  CHECK(d["throughput"]["replicas"] == 7);
  const std::string script = run(pd + " --emit sglang").out;
  CHECK(script.find("# prefill worker 1 of 4, node 0\n") != std::string::npos);
  CHECK(script.find("# prefill worker 4 of 4, node 1\n") != std::string::npos);
  CHECK(script.find("# decode worker 7 of 7, node 1\n") != std::string::npos);
  CHECK(script.find("node 2") == std::string::npos);
}

// #22: on the GPUs given, a tensor-parallel engine runs the layout (TP x PP x replicas) that
// serves the workload best, names the runner-up, and --emit launches it; --tp / --pp pin it.
TEST_CASE("On the GPUs given, the serving layout is searched, the runner-up named, --tp pins it",
          "[cli][serving]") {
  // TensorRT-LLM's perf-overview runs Llama-3.3-70B FP8 on H200 at TP 1: 2,909 output tok/s per
  // GPU at 1,000 in / 1,000 out, offline; on 8 GPUs 8 x 2,909 = 23,272. The search takes TP 1 x 8
  // replicas (FP8 KV: the ModelOpt checkpoint's), within 20% of it.
  const std::string a =
      "llama-3.3-70b --quant fp8 --engine trt-llm --gpu h200 --gpus 8 --users max --isl 1000 "
      "--osl 1000";
  const json t = throughput(a);
  CHECK(t["tensor_parallel"] == 1);
  CHECK(t["pipeline_parallel"] == 1);
  CHECK(t["replicas"] == 8);
  CHECK(t["kv_dtype"] == "fp8_e4m3");
  CHECK(t["output_tokens_per_s"].get<double>() == Approx(23272).epsilon(0.2));
  // 8 GPUs: TP 8, 4 and 2 with PP 1, 2, 4, 8 as they divide, and TP 1 with PP 1, 2, 4, 8: 10.
  CHECK(t["layouts_searched"] == 10);
  REQUIRE(t["runner_up_layout"].is_string());
  CHECK(t["runner_up_output_tokens_per_s"].get<double>() <= t["output_tokens_per_s"].get<double>());
  const auto table = run(a + " --width 0");
  CHECK(table.out.find("the best of 10 layouts of 8 GPUs for this workload") != std::string::npos);
  // --emit launches the chosen layout: eight TP 1 servers.
  const auto e = run(a + " --emit trt-llm");
  REQUIRE(e.code == 0);
  CHECK(e.out.find("# replica 8 of 8") != std::string::npos);
  CHECK(e.out.find("--tp_size 1 ") != std::string::npos);
  // --tp 8 pins one replica of all 8 GPUs (PP 1 is then the only layout).
  const json p = throughput(a + " --tp 8");
  CHECK(p["tensor_parallel"] == 8);
  CHECK(p["replicas"] == 1);
  CHECK(p["layouts_searched"] == 1);
  CHECK(p["runner_up_layout"].is_null());
  CHECK(p["output_tokens_per_s"].get<double>() < t["output_tokens_per_s"].get<double>());
  // Refused: a layout that does not divide the GPUs, heads a degree does not split, no --gpus,
  // a layer-split engine.
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"llama-3.3-70b --engine vllm --gpu h200 --gpus 8 --tp 3",
            "--tp 3: a replica of 3 GPUs does not divide --gpus 8"},
           {"llama-3.1-8b --engine vllm --gpu h200 --gpus 6 --tp 3",
            "--tp 3: llama-3.1-8b has 32 attention heads and 8 KV heads, which 3 GPUs do not "
            "split evenly"},
           {"llama-3.3-70b --engine vllm --gpu h200 --tp 2", "--tp: needs --gpus N"},
           {"llama-3.3-70b --gpu h200 --gpus 2 --pp 2", "--pp: llama.cpp splits layers"},
       })
    check_refused(args, message);
}

// #22: --ep N splits a MoE's experts over each replica's N GPUs with attention data parallel:
// each GPU keeps its own sequences' KV whole instead of a copy of every MLA latent per rank.
TEST_CASE("Expert parallel (--ep) runs a MoE with attention data parallel", "[cli][serving]") {
  const std::string a = "deepseek-r1 --engine sglang --gpu h200 --gpus 8 --users 256";
  const json tp = json::parse(run(a + " -f json").out);
  const json ep = json::parse(run(a + " --ep 8 -f json").out);
  CHECK(ep["throughput"]["tensor_parallel"] == 8);
  CHECK(ep["throughput"]["replicas"] == 1);
  CHECK(ep["gpu"]["split"] == "TP 8 × PP 1 × 1 replica, EP 8 with attention data parallel");
  // DeepSeek-R1's MLA cache: 61 layers x (512 + 64) x 2 B = 70,272 B per token; a sequence holds
  // isl + osl / 2 = 1,500 tokens: 105,408,000 B under attention DP, 8 x that replicated on the
  // 8 tensor-parallel ranks (one latent "head").
  CHECK(ep["throughput"]["kv_bytes_per_seq_planning"] == uint64_t{70272} * 1500);
  CHECK(tp["throughput"]["kv_bytes_per_seq_planning"] == uint64_t{70272} * 1500 * 8);
  const auto e = run(a + " --ep 8 --emit sglang");
  REQUIRE(e.code == 0);
  CHECK(e.out.find(" --tp-size 8 --dp-size 8 --enable-dp-attention --ep-size 8 ") !=
        std::string::npos);
  // The FP8 checkpoint is read as it is stored: no --quantization flag.
  CHECK(e.out.find("--quantization") == std::string::npos);
  const auto v =
      run("deepseek-r1 --engine vllm --gpu h200 --gpus 8 --users 256 --ep 8 --emit vllm");
  REQUIRE(v.code == 0);
  CHECK(v.out.find(" --tensor-parallel-size 1 --data-parallel-size 8 --enable-expert-parallel ") !=
        std::string::npos);
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"llama-3.1-8b --engine vllm --gpu h200 --gpus 8 --ep 8",
            "--ep: llama-3.1-8b has no experts to split"},
           {"deepseek-r1 --engine vllm --gpu h200 --gpus 8 --ep 8 --tp 4",
            "--ep 8: expert parallelism spans each replica's tensor-parallel group"},
           {"deepseek-r1 --engine vllm --gpu h200 --ep 8", "--ep: needs --gpus N"},
           {"deepseek-r1 --engine vllm --gpu h200 --gpus 12 --ep 8",
            "--ep 8: a replica of 8 GPUs does not divide --gpus 12"},
       })
    check_refused(args, message);
}

// #22: --slo-percentile 99 holds --ttft-ms to the 99th percentile (MLPerf's limits are p99): a
// closed loop's first wave sits in that tail, so the same SLO that the mean meets can fail, and a
// capacity search buys the GPUs that meet it.
TEST_CASE("SLOs bound a percentile with --slo-percentile, the capacity search included",
          "[cli][serving]") {
  const std::string a = "gpt-oss-120b --engine vllm --gpu h200 --users 64 --ttft-ms 500";
  const json mean = throughput(a + " --gpus 1");
  const json p99 = throughput(a + " --gpus 1 --slo-percentile 99");
  CHECK(mean["ttft_s"].get<double>() <= 0.5);
  CHECK(mean["meets_ttft"] == true);
  REQUIRE(p99["ttft_p99_s"].get<double>() > 0.5);
  CHECK(p99["meets_ttft"] == false);
  CHECK(p99["ttft_p99_s"].get<double>() >= p99["ttft_p90_s"].get<double>());
  // Sized for the p99: more GPUs than for the mean, every replica's p99 under 500 ms.
  const json sm = json::parse(run(a + " --target-tps 20 -f json").out);
  const json s99 = json::parse(run(a + " --target-tps 20 --slo-percentile 99 -f json").out);
  CHECK(s99["gpu"]["count"].get<int>() > sm["gpu"]["count"].get<int>());
  CHECK(s99["throughput"]["ttft_p99_s"].get<double>() <= 0.5);
  CHECK(s99["throughput"]["meets_ttft"] == true);
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"gpt-oss-120b --engine vllm --gpu h200 --users 64 --slo-percentile 99",
            "--slo-percentile 99: bounds --ttft-ms or --tpot-ms; give one of them"},
           {a + " --slo-percentile 95",
            "--slo-percentile: expected mean, 90 or 99, got '95' (did you mean 90, 99?)"},
       })
    check_refused(args, message);
}

TEST_CASE("A reasoning model is emitted as its guide serves it, at its own context",
          "[cli][serving]") {
  // DeepSeek-R1 thinks before it answers: vLLM launched without --max-model-len takes the model's
  // max_position_embeddings, 163,840, and the plan must hold one such request (vLLM's
  // check_enough_kv_cache_memory) - not isl + osl = 2,000, which would cut its thinking off.
  const std::string r1 = "deepseek-r1 --engine vllm --gpu h200 --users 100";
  const json t = throughput(r1);
  CHECK(t["max_model_len"] == 163840);
  // MLA latent KV: 61 layers x (512 + 64) x 2 bytes = 70,272 B per token; 163,840 tokens (a
  // whole number of 16-token blocks): 11,513,364,480 B, held whole by each tensor-parallel rank
  // (one latent "head" is not split), so x TP over the replica.
  CHECK(t["kv_bytes_per_seq_guarantee"] ==
        uint64_t{70272} * 163840 * t["tensor_parallel"].get<uint64_t>());
  CHECK(t["max_concurrency_at_max_model_len"].get<double>() >= 1);
  const auto e = run(r1 + " --emit vllm");
  INFO(e.err);
  REQUIRE(e.code == 0);
  CHECK(e.out.find("--max-model-len 163840") != std::string::npos);
  CHECK(e.out.find(" --trust-remote-code --enable-auto-tool-choice --tool-call-parser "
                   "deepseek_v3 --reasoning-parser deepseek_r1 ") != std::string::npos);
  CHECK(e.out.find("# tool calls as the model's guide runs them") == 0);
  // --ctx bounds it, as --max-model-len would.
  CHECK(throughput(r1 + " --ctx 32768")["max_model_len"] == 32768);
  // SGLang's names for the same parsers; a model without a guide gets neither.
  const auto s = run("deepseek-r1 --engine sglang --gpu h200 --users 100 --emit sglang");
  REQUIRE(s.code == 0);
  CHECK(s.out.find(" --tool-call-parser deepseekv3 --reasoning-parser deepseek-r1 ") !=
        std::string::npos);
  const auto l = run("llama-2-7b --engine vllm --gpu l40s --users 10 --emit vllm");
  REQUIRE(l.code == 0);
  CHECK(l.out.find("parser") == std::string::npos);
  CHECK(l.out.find("--max-model-len 2000") != std::string::npos);  // not a reasoning model
}

TEST_CASE("A part made for one market is not recommended, but plans when named", "[cli][serving]") {
  // H20 is NVIDIA's part for China: a buyer elsewhere cannot order it.
  const auto r = run("kimi-k2.5 --engine vllm --users 100 -f json");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["gpu"]["id"] != "h20");
  for (const auto& o : j["gpu_options"]) CHECK(o["id"] != "h20");
  const auto named = run("kimi-k2.5 --engine vllm --users 100 --gpu h20 -f json");
  REQUIRE(named.code == 0);
  CHECK(json::parse(named.out)["gpu"]["id"] == "h20");
}

TEST_CASE("A Kubernetes manifest is refused where it would not run", "[cli][serving]") {
  check_refused("qwen3-32b --engine trt-llm --gpu h100-sxm --users 20 --emit k8s",
                "--emit k8s: llmsize writes Kubernetes manifests for vLLM and SGLang");
  check_refused("llama-3.3-70b --engine sglang --gpu mi300x --users 20 --emit k8s",
                "no SGLang image for ROCm is known to llmsize; use --engine vllm (rocm/vllm)");
  check_refused("llama-3.3-70b --engine vllm --gpu gaudi3 --users 20 --emit k8s",
                "no engine image and device plugin resource for this GPU's software stack");
  const auto ok = run("llama-3.3-70b --engine vllm --gpu mi300x --users 20 --emit k8s");
  REQUIRE(ok.code == 0);
  CHECK(ok.out.find("amd.com/gpu") != std::string::npos);
}

TEST_CASE("No system is recommended when none serves the users at the usable speed",
          "[cli][serving]") {
  // Kimi-K2.5 (1.03 T parameters) for 1,000 users under llama.cpp: no catalog GPU reaches 10 tok/s
  // a user within the counts searched. The answer says so, lists the options fastest first, each
  // with its speed, and buys nothing.
  const std::string a = "kimi-k2.5 --engine llama.cpp --users 1000";
  const json j = json::parse(run(a + " -f json").out);
  CHECK(j["gpu"]["recommended"] == false);
  CHECK(j["gpu"]["id"].is_null());
  CHECK(j["cost"]["hardware_usd"].is_null());
  const json& opts = j["gpu_options"];
  REQUIRE(opts.size() >= 2);
  for (size_t i = 0; i < opts.size(); ++i) {
    CHECK(opts[i]["below_usable_speed"] == true);
    if (i)
      CHECK(opts[i - 1]["tokens_per_s"].get<double>() >= opts[i]["tokens_per_s"].get<double>());
  }
  bool said = false;
  for (const auto& w : j["warnings"])
    said = said || w.get<std::string>().find("nothing is recommended") != std::string::npos;
  CHECK(said);
  const auto t = run(a);
  CHECK(t.code == 0);
  CHECK(t.out.find("Answer    none: no catalog system serves 1,000 users at ≥ 10 tok/s each under "
                   "llama.cpp") != std::string::npos);
  // Accepting any speed recommends the cheapest that holds it again.
  CHECK(json::parse(run(a + " --min-tps 0 -f json").out)["gpu"]["recommended"] == true);
}

// #23: where vLLM takes its Marlin MXFP4 kernels on Hopper (no triton_kernels), the experts pad to
// n_embd 3,072 and n_ff 2,944 (mxfp4.py create_weights: 256 and 128). gpt-oss-120b's 36 layers x
// 128 experts: gate and up 2,944 x 3,072 / 32 x 17 B = 4,804,608 B each against 2,880 x 2,880 /
// 32 x 17 = 4,406,400, down the same: 3 x 398,208 = 1,194,624 B per expert, x 4,608 =
// 5,504,827,392 B = 5.13 GiB. On one H100 at utilization 0.95 and max_model_len 131,072 (the
// run of vllm-project/vllm#27508, which printed "Available KV cache memory: 1.71 GiB" and
// failed to start) the pool left (1.88 GiB) holds no full-length request; llmsize's plan, on the
// checkpoint's shapes, says so in a note.
TEST_CASE("A vLLM plan on Hopper notes what Marlin's padding of MXFP4 experts costs",
          "[cli][serving]") {
  const auto r =
      run("gpt-oss-120b --engine vllm --gpu h100-sxm --gpus 1 --ctx 131072 "
          "--gpu-memory-utilization 0.95 --width 0");
  REQUIRE(r.code == 0);
  INFO(r.out);
  CHECK(r.out.find("the experts are padded to its layout: 5.13 GiB more per GPU, a 1.88 GiB KV "
                   "pool that holds no 131,072-token request: vLLM does not start") !=
        std::string::npos);
  // Not on the GPUs whose backend is planned as it is, nor for a model without MXFP4 experts. On a
  // B200 FlashInfer's padding (n_embd and n_ff to 3,072: 3 x 607,104 B per expert, x 4,608 =
  // 8,392,605,696 B) is in the weights, and the memory table says so.
  const auto b200 = run("gpt-oss-120b --engine vllm --gpu b200 --gpus 1 --width 0");
  CHECK(b200.out.find("Marlin") == std::string::npos);
  CHECK(b200.out.find("+ 7.82 GiB of the experts padded to the engine's kernel layout") !=
        std::string::npos);
  CHECK(run("llama-3.1-8b --engine vllm --gpu h100-sxm").out.find("Marlin") == std::string::npos);
}

// #22: speculative decoding (--spec): the draft's acceptance as published, the gain against the
// same deployment without it, and the engines' own flags in --emit.
TEST_CASE("Speculative decoding (--spec) plans the draft and launches it", "[cli][serving]") {
  const std::string r1 = "deepseek-r1 --engine sglang --gpu h200 --gpus 8 --users 64";
  const json t = throughput(r1 + " --spec mtp");
  CHECK(t["spec_method"] == "mtp");
  CHECK(t["spec_draft_tokens"] == 3);
  // TensorRT-LLM's DeepSeek-R1 rows: 2.82 tokens a step at 3 MTP layers.
  CHECK(t["spec_tokens_per_step"].get<double>() == Approx(2.82).epsilon(1e-3));
  CHECK(t["spec_acceptance_measured_on"] == "deepseek-r1");
  CHECK(t["per_user_tokens_per_s"].get<double>() >
        t["per_user_tokens_per_s_without_spec"].get<double>());
  // Without --spec the fields are null, and the plan is the one the "without" fields describe.
  const json plain = throughput(r1);
  CHECK(plain["spec_method"].is_null());
  CHECK(plain["per_user_tokens_per_s"].get<double>() ==
        Approx(t["per_user_tokens_per_s_without_spec"].get<double>()).epsilon(1e-3));
  // A rate measured on your own traffic replaces the published one: 1 + 0.5 + 0.25 + 0.125.
  const json own = throughput(r1 + " --spec mtp --spec-acceptance 0.5");
  CHECK(own["spec_tokens_per_step"].get<double>() == Approx(1.875).epsilon(1e-6));
  CHECK(own["spec_acceptance_measured_on"].is_null());

  struct Emit {
    std::string args, engine, expect;
  };
  for (const Emit& e :
       {Emit{r1 + " --spec mtp", "sglang",
             " --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 "
             "--speculative-num-draft-tokens 4"},
        Emit{"gpt-oss-120b --engine vllm --gpu h200 --gpus 1 --users 16 --spec eagle3", "vllm",
             " --speculative-config '{\"method\": \"eagle3\", \"model\": "
             "\"RedHatAI/gpt-oss-120b-speculator.eagle3\", \"num_speculative_tokens\": 3}'"},
        Emit{"gpt-oss-120b --engine sglang --gpu h200 --gpus 1 --users 16 --spec eagle3", "sglang",
             " --speculative-algorithm EAGLE3 --speculative-draft-model-path "
             "'lmsys/EAGLE3-gpt-oss-120b-bf16' --speculative-num-steps 3"},
        Emit{"deepseek-r1 --engine trt-llm --gpu b200 --gpus 8 --users 64 --spec mtp "
             "--spec-tokens 2",
             "trt-llm",
             "speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 2\n"},
        Emit{"deepseek-r1 --engine vllm --gpu h200 --gpus 8 --users 64 --spec mtp --spec-tokens 1",
             "vllm",
             " --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'"}}) {
    const auto r = run(e.args + " --emit " + e.engine);
    INFO(e.args << "\n" << r.err << "\n" << r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find(e.expect) != std::string::npos);
  }
}

TEST_CASE("Speculative decoding refuses a draft the model or engine does not have",
          "[cli][serving]") {
  const std::string h = " --gpu h100 --gpus 4";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"llama-3.1-8b --engine vllm" + h + " --spec mtp",
            "has no multi-token-prediction layers"},
           {"llama-3.1-8b --engine vllm" + h + " --spec eagle3",
            "no published EAGLE-3 head for llama-3.1-8b"},
           {"llama-3.3-70b --engine trt-llm" + h + " --spec eagle3",
            "in the format trt-llm loads (vLLM's: --engine vllm)"},
           {"llama-3.1-8b --engine vllm" + h + " --spec draft:llama-3.2-1b",
            "no published acceptance rate for this pair"},
           {"llama-3.1-8b --engine vllm" + h + " --spec draft:qwen2.5-0.5b --spec-acceptance 0.7",
            "is not the model's"},
           {"llama-3.1-8b" + h + " --spec mtp", "llama-server's draft model is --draft MODEL"},
           {"llama-3.1-8b --engine vllm" + h + " --spec eagle", "did you mean eagle3?"},
           {"llama-3.1-8b --engine vllm" + h + " --spec-tokens 3", "--spec-tokens: needs --spec"},
           {"deepseek-r1 --engine vllm --gpu h200 --gpus 8 --spec mtp --spec-acceptance 1.5",
            "--spec-acceptance"}}) {
    check_refused(args, message);
  }
}

// #22: disaggregated prefill and decode (--prefill-gpus): the workers in the layout, the JSON,
// SGLang's PD launch, and what cannot be launched as one script.
TEST_CASE("Disaggregated prefill and decode plans and launches SGLang's PD workers",
          "[cli][serving]") {
  const std::string a =
      "llama-3.3-70b --quant fp8 --engine sglang --gpu h200 --gpus 8 --users 256 --isl 4000 "
      "--osl 1000 --prefill-gpus 4";
  const json t = throughput(a);
  CHECK(t["prefill_workers"] == 1);
  CHECK(t["prefill_tp"] == 4);
  CHECK(t["gpus"] == 8);
  CHECK(t["tensor_parallel"].get<uint64_t>() * t["replicas"].get<uint64_t>() == 4);
  CHECK(t["prefill_utilization"].get<double>() > 0);
  CHECK(t["prefill_utilization"].get<double>() < 1);
  CHECK(t["kv_transfer_s"].get<double>() > 0);
  CHECK(throughput(a.substr(0, a.find(" --prefill-gpus")))["prefill_workers"].is_null());
  const auto e = run(a + " --emit sglang");
  INFO(e.err);
  REQUIRE(e.code == 0);
  CHECK(
      e.out.find("CUDA_VISIBLE_DEVICES=0,1,2,3 python3 -m sglang.launch_server --model-path "
                 "'meta-llama/Llama-3.3-70B-Instruct' --disaggregation-mode prefill --tp-size 4") !=
      std::string::npos);
  CHECK(e.out.find("--disaggregation-mode decode") != std::string::npos);
  CHECK(e.out.find("python3 -m sglang_router.launch_router --pd-disaggregation --prefill "
                   "http://127.0.0.1:30000 --decode http://127.0.0.1:30100") != std::string::npos);
  const std::string h = "llama-3.3-70b --quant fp8 --gpu h200 --users 64";
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {h + " --engine sglang --gpus 8 --prefill-gpus 8", "with GPUs left for decoding"},
           {h + " --engine sglang --prefill-gpus 2", "needs --gpus N"},
           {h + " --engine sglang --gpus 8 --prefill-gpus 3 --prefill-tp 2",
            "a worker of 2 GPUs does not divide --prefill-gpus 3"},
           {h + " --engine sglang --gpus 8 --prefill-tp 2", "--prefill-tp: needs --prefill-gpus"},
           {h + " --engine sglang --gpus 8 --prefill-gpus 2 --tp 4",
            "does not divide the 6 decode GPUs"},
           {h + " --gpus 8 --prefill-gpus 2", "llama.cpp does not split prefill from decode"},
           {h + " --engine vllm --gpus 8 --prefill-gpus 4 --emit vllm",
            "runs behind llm-d or Dynamo"},
           {h + " --engine sglang --gpus 8 --prefill-gpus 4 --emit k8s",
            "not wired into this manifest"},
           {h + " --engine sglang --gpus 8 --prefill-gpus auto --tp 2", "drop --tp, --pp and --ep"},
           {h + " --engine sglang --prefill-gpus auto", "needs --gpus N"}}) {
    check_refused(args, message);
  }
  // auto: the split searched with the layout, the aggregated layouts among them (8 GPUs: 10
  // layouts aggregated; P = 1..7 prefill GPUs of TP 1, 2..6 of TP 2, 4 of TP 4, each with the
  // layouts of the rest), the best kept.
  const std::string base =
      "llama-3.3-70b --quant fp8 --engine sglang --gpu h200 --gpus 8 --users 256 --isl 4000 "
      "--osl 1000";
  const json aggregated = throughput(base);
  const json searched = throughput(base + " --prefill-gpus auto");
  CHECK(searched["layouts_searched"].get<uint64_t>() >
        aggregated["layouts_searched"].get<uint64_t>());
  CHECK(searched["output_tokens_per_s"].get<double>() >=
        aggregated["output_tokens_per_s"].get<double>() * 0.999);
  // A prefill worker that cannot hold the weights is no split: DeepSeek-R1 on 2 x H200.
  const json r1 = throughput(
      "deepseek-r1 --engine sglang --gpu h200 --gpus 8 --users 64 "
      "--prefill-gpus 2");
  CHECK(r1["fits"] == false);
}

// #22: "--quant mxfp4" on a checkpoint engine is the MXFP4 serving checkpoint (gpt-oss's routed
// experts), not llama.cpp's GGUF mix of that name; a dense model has no such checkpoint.
TEST_CASE("MXFP4 on a serving engine is the checkpoint's layout, not a GGUF mix",
          "[cli][serving]") {
  const auto r = run("gpt-oss-120b --engine vllm --quant mxfp4 --gpu h100 -f json");
  REQUIRE(r.code == 0);
  const json s = json::parse(r.out)["settings"];
  CHECK(s["quant"] == "mxfp4-experts");
  CHECK(s["quant_requested"] == "mxfp4");
  // llama.cpp keeps its own GGUF type.
  const auto g = run("gpt-oss-120b --quant mxfp4 --gpu h100 -f json");
  REQUIRE(g.code == 0);
  CHECK(json::parse(g.out)["settings"]["quant"] == "mxfp4_moe");
  check_refused("llama-3.3-70b --engine vllm --quant mxfp4 --gpu b200",
                "--quant mxfp4: MXFP4 serving checkpoints quantize a mixture of experts' routed "
                "experts (gpt-oss); llama-3.3-70b is dense");
}

// #22: the plan's speed for gpt-oss on a B200 under vLLM is FlashInfer's MXFP4 x MXFP8 MoE, so
// the launch files set the variable that selects it; on Hopper vLLM's BF16 kernels need none.
TEST_CASE("The launch of a plan sets the environment its MoE kernels need", "[cli][serving]") {
  const auto b = run("gpt-oss-120b --engine vllm --gpu b200 --emit vllm");
  REQUIRE(b.code == 0);
  CHECK(b.out.rfind("# on every machine that runs the engine, before it starts:\n"
                    "export VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1\nvllm serve ",
                    0) == 0);
  const auto k = run("gpt-oss-120b --engine vllm --gpu b200 --emit k8s");
  REQUIRE(k.code == 0);
  CHECK(k.out.find("{name: VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8, value: \"1\"}") !=
        std::string::npos);
  for (const char* other : {"gpt-oss-120b --engine vllm --gpu h100-sxm --emit vllm",
                            "gpt-oss-120b --engine sglang --gpu b200 --emit sglang",
                            "llama-3.3-70b --engine vllm --quant fp8 --gpu b200 --emit vllm"}) {
    const auto r = run(other);
    INFO(other);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("export ") == std::string::npos);
  }
}

// #27: --redundancy n+1 buys one more machine of the kind the users' replicas fill and still meets
// the target with any one machine down. Llama-3.3-70B FP8 for 200 users at 20 tok/s on H100:
// 2 replicas of TP 2 fill one 4-GPU HGX machine; n+1 buys a second with 2 more replicas, n+2 a
// third.
TEST_CASE("Redundancy n+k buys k spare machines and holds the target with them down",
          "[cli][serving]") {
  const std::string base =
      "llama-3.3-70b --quant fp8 --engine vllm --users 200 --target-tps 20 --gpu h100-sxm -f json";
  const auto plain = run(base);
  REQUIRE(plain.code == 0);
  const json p = json::parse(plain.out);
  const uint32_t machines = p["system"]["nodes"];
  const uint32_t gpus = p["gpu"]["count"];
  CHECK(p["throughput"]["redundancy"].is_null());
  for (uint32_t k : {1u, 2u}) {
    const auto r = run(base + " --redundancy n+" + std::to_string(k));
    INFO(k);
    REQUIRE(r.code == 0);
    const json j = json::parse(r.out);
    const json& t = j["throughput"];
    CHECK(j["system"]["nodes"] == machines + k);
    CHECK(t["redundancy"] == "n+" + std::to_string(k));
    // A machine's worth of replicas each: the GPUs the plain plan's machine holds, k times.
    CHECK(t["redundancy_spare_gpus"] == k * gpus / machines);
    CHECK(j["gpu"]["count"] == gpus + k * gpus / machines);
    CHECK(t["redundancy_replicas_surviving"].get<uint32_t>() ==
          p["throughput"]["replicas"].get<uint32_t>());
    CHECK(t["degraded_meets_target"] == true);
    CHECK(t["degraded_per_user_tokens_per_s"].get<double>() >= 20);
    // With everything up the users run faster than on the plain plan.
    CHECK(t["per_user_tokens_per_s"].get<double>() >
          p["throughput"]["per_user_tokens_per_s"].get<double>());
    // The spares' cost is what the bill adds: k machines' worth of the plain plan's.
    CHECK(t["redundancy_spare_usd"].get<double>() ==
          Approx(k * p["system"]["bom_total_usd"].get<double>()).epsilon(0.01));
  }
  const auto table =
      run("llama-3.3-70b --quant fp8 --engine vllm --users 200 --target-tps 20 "
          "--gpu h100-sxm --redundancy n+1");
  REQUIRE(table.code == 0);
  CHECK(table.out.find("n+1: with 1 machine down ") != std::string::npos);
  CHECK(table.out.find("  redundancy      n+1: 2 spare replicas (4 GPUs) on 1 machine of its "
                       "own") != std::string::npos);
  check_refused("llama-3.3-70b --engine vllm --users 200 --redundancy n+3",
                "--redundancy: expected n, n+1 or n+2");
  check_refused("llama-3.3-70b --engine vllm --users 200 --gpus 8 --redundancy n+1",
                "--redundancy n+1: sizes the machines for --users N with 1 of them down; --gpus 8 "
                "fixes the count instead: drop --gpus");
  check_refused("llama-3.3-70b --engine vllm --rate 5 --redundancy n+1",
                "--redundancy n+1: needs --users N");
}
