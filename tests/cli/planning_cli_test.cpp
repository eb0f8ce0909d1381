// End-to-end tests of the planning and CI commands (check, fit, --ctx max, sweep, --plot,
// completions, man): they run the real llmsize binary and check its output and exit codes.
#include <algorithm>
#include <catch2/catch.hpp>
#include "run_binary.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "png_reader.hpp"

using json = nlohmann::json;

namespace {

const std::string kBin = LLMSIZE_BIN;
const std::string kSource = LLMSIZE_SOURCE_DIR;

using llmsize::cli_test::parse_csv;
using llmsize::cli_test::Result;
using llmsize::cli_test::run;
using llmsize::cli_test::sh;

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string temp_dir() {
  char tmpl[] = "/tmp/llmsize_planning_XXXXXX";
  return mkdtemp(tmpl);
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

std::map<std::string, std::string> csv_row(const std::vector<std::vector<std::string>>& rows,
                                           size_t i) {
  std::map<std::string, std::string> m;
  for (size_t c = 0; c < rows[0].size(); ++c) m[rows[0][c]] = rows[i][c];
  return m;
}

// Expects exit 2, nothing on stdout and exactly "llmsize: error: <message>" on stderr.
void expect_error(const std::string& args, const std::string& message,
                  const std::string& cwd = "") {
  const auto r = run(args, cwd);
  INFO(args);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "llmsize: error: " + message + "\n");
}

// A one-plan file in `dir`, with `fields` (JSON object members) added to a passing 8B plan.
std::string plan_file(const std::string& dir, const std::string& name, const std::string& fields) {
  const std::string path = dir + "/" + name;
  write(path, "{\"plans\": [{\"name\": \"p\", \"model\": \"llama-3.1-8b\", \"gpu\": \"rtx-4090\"" +
                  (fields.empty() ? "" : ", " + fields) + "}]}\n");
  return path;
}

}  // namespace

// --- check ---------------------------------------------------------------------------------------

TEST_CASE("check: the passing sample plan exits 0 with one PASS line per plan",
          "[planning][check]") {
  const auto r = run("check examples/plan-pass.json", kSource);
  INFO(r.err);
  CHECK(r.code == 0);
  // chat-8b: 4 users on llama.cpp are llama-server's 4 slots (#20): 4 slots of 8192 f16 KV cells x
  // 32 layers x 2 x 8 x 128 x 2 B = 4 GiB of KV beside 4.30 GiB of weights and 1.03 GiB of
  // compute buffer and runtime, x 1.2 (the 20% rule) = 11.2 GiB; each user at the step model's
  // 66.9 tok/s (the main command's Answer for the same flags). Schema 2's machine model (the AM5
  // desktop's BOM and its machine.max_power_parts_dc_watts): peak 708 W = 450 W GPU + 170 W CPU +
  // 10 W memory + 16 W drives + 12 W fans + 50 W board; RAM needed 32 GiB (what the desktop ships
  // per GPU, over 2 x weights); at least $3,679 = $1,500 (the desktop's assumed price) + $1,599 GPU
  // + 2 x $64 DDR5 16 GiB + 2 x $80 1 TB NVMe (OS + data), a floor as the CPU and PSU lines have no
  // price. rag-70b: h100-pcie in the 8x PCIe server, $15,000 (the server's assumed price) + $25,000
  // GPU
  // + 2 x $64 + ... = $40,614 of priced lines.
  const auto got = lines(r.out);
  REQUIRE(got.size() == 3);
  CHECK(std::vector<std::string>(got.begin(), got.begin() + 2) ==
        std::vector<std::string>{
            "PASS chat-8b (examples/plan-pass.json#/plans/0): llama-3.1-8b q4_k_m "
            "ctx 8192 × 4 on 1 × rtx-4090: 11.2 of 24 "
            "GiB per GPU, peak 708 W, 32 GiB RAM, at least $3,679 (a BOM line is "
            "unpriced), 66.9 tok/s per user",
            "PASS rag-70b (examples/plan-pass.json#/plans/1): llama-3.1-70b q4_k_m "
            "ctx 16384 × 2 on 1 × h100-pcie: 59.8 of "
            "80 GiB per GPU, at least $42,500 (a BOM line is unpriced)"});
  // serve-gpt-oss: a vLLM serving plan, its context isl + osl = 2,500 tokens, its TTFT and each
  // user's speed the main command's for the same flags.
  const json m = json::parse(run("gpt-oss-120b --engine vllm --users 50 --isl 2000 --osl 500 "
                                 "--ttft-ms 2000 --gpu h100-sxm --gpus 2 --target-tps 20 -f json")
                                 .out);
  char tail[96];
  std::snprintf(tail, sizeof tail, "TTFT %.0f ms, %.1f tok/s per user",
                m["throughput"]["time_to_first_token_s"].get<double>() * 1000,
                m["throughput"]["per_user_tokens_per_s"].get<double>());
  CHECK(got[2].rfind("PASS serve-gpt-oss (examples/plan-pass.json#/plans/2): gpt-oss-120b "
                     "mxfp4-experts ctx 2500 × 50 on 2 × h100-sxm: ",
                     0) == 0);
  CHECK(got[2].size() > std::strlen(tail));
  CHECK(got[2].substr(got[2].size() - std::strlen(tail)) == tail);
}

TEST_CASE("check: the failing sample plan exits 1 with its reason in numbers",
          "[planning][check]") {
  const auto r = run("check examples/plan-fail.json", kSource);
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  // KV: 32768 cells x 80 layers x (8 x 128 x 2 B) x 2 (K and V) = 10 GiB exactly; Q8_0 weights
  // 69.8 GiB + KV 10 + compute 0.5 + overhead 0.5 = 80.8, x 1.2 = 97 GiB... per GPU on one H100
  // 95.4 GiB (token_embd stays in host RAM) > 80 GiB; two H100s hold it.
  CHECK(r.out ==
        "FAIL chat-70b-32k (examples/plan-fail.json#/plans/0): needs 2 × h100-sxm, plan has 1: "
        "95.4 GiB > 80 GiB; "
        "KV cache at ctx 32768 adds 10.0 GiB\n");
}

TEST_CASE("check: a broken plan file exits 2 naming the file and the JSON path",
          "[planning][check]") {
  const std::string message =
      "examples/plan-broken.json: /plans/0/contxt: unknown field (did you mean context?); "
      "the fields are name, description, "
      "model, quant, context, batch, users, kv_quant, flash_attn, ubatch, n_cpu_moe, cpu_experts, "
      "kv_unified, draft, engine, "
      "headroom, gpu, gpus, gpu_memory_limit_gib, gpu_price_usd, prices, budget, "
      "target_tokens_per_s, isl, osl, rate, tp, pp, ep, prefill_gpus, prefill_tp, spec, "
      "spec_tokens, spec_acceptance, "
      "slo_percentile, redundancy, requests_per_user, "
      "gpu_memory_utilization, "
      "ttft_ms, "
      "tpot_ms, platform, "
      "storage, class, min_tps, mode, "
      "seq, optimizer, lora_rank, checkpointing";
  expect_error("check examples/plan-broken.json", message, kSource);
  // Nothing is printed for the good files either: the whole run is refused.
  expect_error("check examples/plan-pass.json examples/plan-broken.json", message, kSource);
}

TEST_CASE("check: the CI step of docs/guide.md works verbatim on the sample plans",
          "[planning][check][docs]") {
  // The `run:` line of the guide's GitHub Actions step that calls llmsize check.
  std::string step;
  for (const auto& l : lines(read(kSource + "/docs/guide.md"))) {
    const auto at = l.find("run: llmsize check ");
    if (at != std::string::npos) step = l.substr(at + 5);
  }
  REQUIRE_FALSE(step.empty());
  const std::string bin_dir = kBin.substr(0, kBin.rfind('/'));
  struct Case {
    const char* sample;
    int code;
  };
  for (const Case c :
       {Case{"plan-pass.json", 0}, Case{"plan-fail.json", 1}, Case{"plan-broken.json", 2}}) {
    const std::string dir = temp_dir();
    REQUIRE(sh("mkdir -p '" + dir + "/plans' && cp '" + kSource + "/examples/" + c.sample + "' '" +
               dir + "/plans/'")
                .code == 0);
    const auto r = sh("PATH='" + bin_dir + "':\"$PATH\" " + step, dir);
    INFO(c.sample << ": " << step << "\n" << r.out << r.err);
    CHECK(r.code == c.code);
    if (c.code == 1)
      CHECK(r.out.find("FAIL chat-70b-32k (plans/plan-fail.json#/plans/0): needs 2 × h100-sxm") ==
            0);
    if (c.code == 2)
      CHECK(r.err.find("llmsize: error: plans/plan-broken.json: /plans/0/contxt: unknown field") ==
            0);
    // The JUnit report is written whenever the plans could be read.
    const std::string junit = dir + "/llmsize-check.xml";
    CHECK(exists(junit) == (c.code != 2));
    if (c.code != 2) {
      const std::string x = read(junit);
      CHECK(x.find("<testsuites name=\"llmsize check\"") != std::string::npos);
      CHECK(x.find(c.code == 0 ? "failures=\"0\"" : "failures=\"1\"") != std::string::npos);
      if (c.code == 1)
        CHECK(x.find("<failure type=\"memory\" message=\"needs 2 × h100-sxm, plan has 1: 95.4 GiB "
                     "&gt; 80 GiB; KV cache at ctx 32768 adds "
                     "10.0 GiB\">") != std::string::npos);
    }
    sh("rm -rf '" + dir + "'");
  }
}

TEST_CASE("check: the sample runs of docs/guide.md print what the guide shows",
          "[planning][check][docs]") {
  // Every "$ llmsize check examples/..." line of the guide, run from the source directory; the
  // lines after it up to the next "$ " are its output (stdout and stderr).
  const auto doc = lines(read(kSource + "/docs/guide.md"));
  int seen = 0;
  for (size_t i = 0; i < doc.size(); ++i) {
    if (doc[i].rfind("$ llmsize check examples/", 0) != 0) continue;
    ++seen;
    std::string expected;
    for (size_t k = i + 1; k < doc.size() && doc[k].rfind("$ ", 0) != 0 && doc[k] != "```"; ++k)
      expected += doc[k] + "\n";
    const auto r = run(doc[i].substr(10), kSource);
    INFO(doc[i]);
    CHECK(r.out + r.err == expected);
  }
  CHECK(seen >= 3);
}

TEST_CASE("check: budgets and the target speed fail with their numbers", "[planning][check]") {
  const std::string dir = temp_dir();
  // llama-3.1-8b q4_k_m at 4096 on one RTX 4090: peak 708 W (the schema-2 machine model: 450 GPU +
  // 170 CPU + 10 memory + 16 drives + 12 fans + 50 board), 32 GiB system RAM needed (what the
  // desktop ships per GPU, over 2 x 4.58 GiB weights + 0.28 GiB token_embd), at least $3,679 (the
  // BOM's priced lines: the desktop's assumed $1,500 + $1,599 GPU + 2 x $64 DIMMs + 2 x $80 NVMe;
  // CPU and PSU unpriced), decode 118.5 tok/s.
  const auto power =
      run("check " + plan_file(dir, "power.json", "\"budget\": {\"power_watts\": 600}"));
  CHECK(power.code == 1);
  CHECK(power.out == "FAIL p (" + dir + "/power.json#/plans/0): peak power 708 W > budget 600 W\n");
  const auto ram = run("check " + plan_file(dir, "ram.json", "\"budget\": {\"ram_gib\": 8}"));
  CHECK(ram.out ==
        "FAIL p (" + dir + "/ram.json#/plans/0): system RAM 32 GiB needed > budget 8 GiB\n");
  const auto price =
      run("check " + plan_file(dir, "price.json", "\"budget\": {\"price_usd\": 1500}"));
  CHECK(price.out == "FAIL p (" + dir +
                         "/price.json#/plans/0): hardware at least $3,679 > budget "
                         "$1,500\n");
  const auto speed = run("check " + plan_file(dir, "speed.json", "\"target_tokens_per_s\": 200"));
  CHECK(speed.out == "FAIL p (" + dir +
                         "/speed.json#/plans/0): decode 118.5 tok/s per sequence < target 200 "
                         "tok/s (1 sequence at ctx 4096)\n");
  // All of them at once: one line, the reasons in order.
  const auto all =
      run("check " +
          plan_file(dir, "all.json",
                    "\"context\": 131072, \"batch\": 4, \"budget\": {\"power_watts\": 600}"));
  CHECK(all.code == 1);
  // KV: 4 sequences x 131072 cells x 32 layers x 2 x 8 x 128 x 2 B = 64 GiB.
  CHECK(all.out == "FAIL p (" + dir +
                       "/all.json#/plans/0): needs 4 × rtx-4090, plan has 1: 82.9 GiB > 24 GiB; KV "
                       "cache at ctx 131072 adds "
                       "64.0 GiB for 4 sequences; peak power 708 W > budget 600 W\n");
  // A price budget needs a price: one mi325x is planned on the QuantaGrid D74A-7U, its 8-module
  // baseboard server, and neither the module nor that machine has a published price. That plan
  // fails as unknown (value null); the plan after it is still checked.
  write(dir + "/noprice.json",
        "{\"plans\": [{\"model\": \"llama-3.1-8b\", \"gpu\": \"mi325x\", \"budget\": "
        "{\"price_usd\": 30000}}, {\"model\": \"llama-3.1-8b\", \"gpu\": \"rtx-4090\"}]}");
  const auto noprice = run("check " + dir + "/noprice.json");
  CHECK(noprice.code == 1);
  CHECK(noprice.err.empty());
  CHECK(noprice.out.rfind("FAIL llama-3.1-8b (" + dir +
                              "/noprice.json#/plans/0): price unknown: neither mi325x nor "
                              "QuantaGrid D74A-7U (8x AMD Instinct MI325X OAM), the machine "
                              "planned for it, has a published price (cost.hardware_usd is "
                              "null)\nPASS llama-3.1-8b (",
                          0) == 0);
  const json noprice_json = json::parse(run("check " + dir + "/noprice.json -f json").out);
  CHECK(noprice_json["failed"] == 1);
  CHECK(noprice_json["plans"][0]["failures"][0]["check"] == "price");
  CHECK(noprice_json["plans"][0]["failures"][0]["value"].is_null());
  CHECK(noprice_json["plans"][0]["failures"][0]["limit"] == 30000);
  // The plan's own "prices" (as --price NAME=USD) give the machine a price: the verdict is the
  // main command's with the same --price, and a plan after it still reads the catalog's (none).
  write(dir + "/priced.json",
        "{\"plans\": [{\"model\": \"llama-3.1-8b\", \"gpu\": \"mi325x\", \"prices\": "
        "{\"quanta-quantagrid-d74a-7u\": 180000}, \"budget\": {\"price_usd\": 300000}}, "
        "{\"model\": \"llama-3.1-8b\", \"gpu\": \"mi325x\", \"budget\": {\"price_usd\": "
        "300000}}]}");
  const json priced = json::parse(run("check " + dir + "/priced.json -f json").out);
  const json main_priced = json::parse(
      run("llama-3.1-8b --gpu mi325x --price quanta-quantagrid-d74a-7u=180000 -f json").out);
  CHECK(priced["plans"][0]["pass"] == true);
  CHECK(priced["plans"][0]["report"]["cost"]["hardware_usd"] ==
        main_priced["cost"]["hardware_usd"]);
  CHECK(main_priced["cost"]["hardware_usd"].get<double>() >= 180000);
  CHECK(priced["plans"][1]["pass"] == false);
  CHECK(priced["plans"][1]["report"]["cost"]["hardware_usd"].is_null());
  expect_error("check " + plan_file(dir, "badprice.json",
                                    "\"prices\": {\"dell-poweredge-xe8640\": \"a lot\"}"),
               dir +
                   "/badprice.json: /plans/0/prices: expected {\"GPU or platform id\": "
                   "US dollars}, got \"dell-poweredge-xe8640\": \"a lot\"");
  expect_error("check " + plan_file(dir, "lowprice.json", "\"prices\": {\"rtx-4090\": 0.5}"),
               dir +
                   "/lowprice.json: /plans/0/prices: expected US dollars from 1 to 1e+08 for "
                   "\"rtx-4090\", got 0.5");
  expect_error("check " + plan_file(dir, "typo.json", "\"prices\": {\"dell-poweredge-xe864\": 5}"),
               dir +
                   "/typo.json: /plans/0/prices: unknown GPU or platform 'dell-poweredge-xe864' "
                   "(did you mean dell-poweredge-xe8640, dell-poweredge-xe8545, "
                   "dell-poweredge-xe9680?); see llmsize gpus and llmsize platforms");
  write(dir + "/price.json",
        "{\"plans\": [{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100-pcie\", \"gpu_price_usd\": "
        "25000, "
        "\"budget\": {\"price_usd\": 50000}}]}");
  // $25,000 + the 8x PCIe server's priced RAM and drive lines (~$600), within $50,000.
  CHECK(run("check " + dir + "/price.json").code == 0);
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("fit -f csv quotes names that hold commas: every row has the header's 9 columns",
          "[planning][fit]") {
  const auto r = run("fit --gpu h100-sxm --gpus 2 --ctx 4096 -f csv");
  REQUIRE(r.code == 0);
  const auto rows = parse_csv(r.out);
  REQUIRE(rows.size() > 1);
  CHECK(rows[0].size() == 9);
  bool command_r = false;
  for (size_t i = 1; i < rows.size(); ++i) {
    CHECK(rows[i].size() == 9);
    if (rows[i][0] == "command-r-v01") {
      command_r = true;
      CHECK(rows[i][1] == "Command-R (v01, 35B)");  // was two cells: "Command-R (v01" and " 35B)"
    }
  }
  CHECK(command_r);
}

TEST_CASE("check: every plan field is validated at its own JSON pointer, not as a flag",
          "[planning][check]") {
  const std::string dir = temp_dir();
  // The price is the plan's own field (the flag --price NAME=USD is not involved).
  expect_error("check " + plan_file(dir, "a.json", "\"gpu_price_usd\": 0.5"),
               dir +
                   "/a.json: /plans/0/gpu_price_usd: expected a number from 1 to 1e+08, got "
                   "'0.5'");
  expect_error("check " + plan_file(dir, "b.json", "\"kv_quant\": \"q4_0\", \"flash_attn\": false"),
               dir +
                   "/b.json: /plans/0/flash_attn: off with kv_quant q4_0: llama.cpp requires flash "
                   "attention for a quantized V cache");
  expect_error("check " + plan_file(dir, "c.json", "\"gpus\": 2000"),
               dir + "/c.json: /plans/0/gpus: expected an integer from 1 to 1024, got '2000'");
  expect_error("check " + plan_file(dir, "d.json", "\"engine\": \"vlm\""),
               dir +
                   "/d.json: /plans/0/engine: expected llama.cpp, ollama, vllm, sglang, trt-llm "
                   "or transformers, got 'vlm' (did you mean vllm?)");
  sh("rm -rf '" + dir + "'");
}

// One request builder (#20): a plan file's fields fill the options the flags fill, so check's
// verdict and report are the main command's for the same settings, on every engine, with the
// serving fields. Each row: the plan's fields and the same settings as flags.
TEST_CASE("check gives the main command's verdict for the same settings, on every engine",
          "[planning][check]") {
  struct Row {
    const char* fields;
    const char* flags;
  };
  const Row rows[] = {
      {R"("model": "gpt-oss-120b", "engine": "vllm", "users": 50, "target_tokens_per_s": 20, )"
       R"("gpu": "h100-sxm", "gpus": 2)",
       "gpt-oss-120b --engine vllm --users 50 --target-tps 20 --gpu h100-sxm --gpus 2"},
      {R"("model": "llama-3.1-8b", "engine": "sglang", "users": 64, "isl": 2000, "osl": 500, )"
       R"("ttft_ms": 800, "target_tokens_per_s": 30, "gpu": "l40s")",
       "llama-3.1-8b --engine sglang --users 64 --isl 2000 --osl 500 --ttft-ms 800 "
       "--target-tps 30 --gpu l40s --gpus 1"},
      {R"("model": "llama-3.1-70b", "engine": "trt-llm", "quant": "fp8", "rate": 2, )"
       R"("tpot_ms": 50, "gpu": "h100-sxm", "gpus": 4, "target_tokens_per_s": 25)",
       "llama-3.1-70b --engine trt-llm --quant fp8 --rate 2 --tpot-ms 50 --gpu h100-sxm "
       "--gpus 4"},
      {R"("model": "qwen3-30b-a3b", "engine": "llama.cpp", "users": 4, "isl": 4000, )"
       R"("osl": 1000, "target_tokens_per_s": 10, "gpu": "rtx-4090")",
       "qwen3-30b-a3b --engine llama.cpp --users 4 --isl 4000 --osl 1000 --target-tps 10 "
       "--gpu rtx-4090 --gpus 1"},
      {R"("model": "llama-3.1-8b", "engine": "ollama", "users": 8, "osl": 300, )"
       R"("platform": "am5-desktop", "gpu": "rtx-4090")",
       "llama-3.1-8b --engine ollama --users 8 --osl 300 --platform am5-desktop "
       "--gpu rtx-4090 --gpus 1"},
  };
  const std::string dir = temp_dir();
  for (const Row& row : rows) {
    INFO(row.flags);
    write(dir + "/p.json", std::string(R"({"plans": [{"name": "p", )") + row.fields + "}]}\n");
    const Result c = run("check -f json " + dir + "/p.json");
    REQUIRE(c.err.empty());
    const json plan = json::parse(c.out)["plans"][0];
    const Result m = run(std::string(row.flags) + " -f json");
    REQUIRE(m.code == 0);
    const json main = json::parse(m.out);
    const json& report = plan["report"];
    // The same request planned the same way: settings, GPUs, serving layout, speed, machine.
    for (const char* block : {"settings", "gpu", "throughput", "system", "power", "cost"}) {
      INFO(block);
      CHECK(report[block] == main[block]);
    }
    // The verdict reads the main command's figures: the fit, and each user's speed (a serving
    // plan's step model) against the target.
    const json fields = json::parse(std::string("{") + row.fields + "}");
    const json& t = main["throughput"];
    REQUIRE(!t["per_user_tokens_per_s"].is_null());
    const double per_user = t["per_user_tokens_per_s"].get<double>();
    const bool fast = !fields.contains("target_tokens_per_s") ||
                      per_user >= fields["target_tokens_per_s"].get<double>();
    CHECK(plan["pass"] == (main["gpu"]["fits"].get<bool>() && fast));
    char words[64];
    std::snprintf(words, sizeof words, "%.1f tok/s per user", per_user);
    if (fields.contains("target_tokens_per_s"))
      CHECK(plan["line"].get<std::string>().find(words) != std::string::npos);
  }
  sh("rm -rf '" + dir + "'");
}

// Plans that differ only in where the experts live or in the unified GPU's limit are planned
// apart (check shares one planner between plans that vary only its cache key).
TEST_CASE("check plans --n-cpu-moe and --gpu-memory-limit as the main command does",
          "[planning][check]") {
  const std::string dir = temp_dir();
  write(dir + "/p.json",
        R"({"plans": [)"
        R"({"name": "a", "model": "gpt-oss-120b", "gpu": "rtx-4090", "context": 32768},)"
        R"({"name": "b", "model": "gpt-oss-120b", "gpu": "rtx-4090", "context": 32768, )"
        R"("n_cpu_moe": 36},)"
        R"({"name": "c", "model": "llama-4-scout", "quant": "q8_0", "gpu": "ryzen-ai-max-395"},)"
        R"({"name": "d", "model": "llama-4-scout", "quant": "q8_0", "gpu": "ryzen-ai-max-395", )"
        R"("gpu_memory_limit_gib": 124}]})"
        "\n");
  const Result c = run("check -f json " + dir + "/p.json");
  REQUIRE(c.err.empty());
  const json plans = json::parse(c.out)["plans"];
  const char* flags[] = {
      "gpt-oss-120b --gpu rtx-4090 --ctx 32768 --gpus 1",
      "gpt-oss-120b --gpu rtx-4090 --ctx 32768 --gpus 1 --n-cpu-moe 36",
      "llama-4-scout --quant q8_0 --gpu ryzen-ai-max-395 --gpus 1",
      "llama-4-scout --quant q8_0 --gpu ryzen-ai-max-395 --gpus 1 --gpu-memory-limit 124",
  };
  for (size_t i = 0; i < 4; ++i) {
    INFO(flags[i]);
    const Result m = run(std::string(flags[i]) + " -f json");
    REQUIRE(m.code == 0);
    const json main = json::parse(m.out);
    CHECK(plans[i]["report"]["gpu"] == main["gpu"]);
    CHECK(plans[i]["report"]["vram"] == main["vram"]);
  }
  CHECK(plans[0]["pass"] == false);  // 58 GiB of weights on one 24 GiB card
  CHECK(plans[1]["pass"] == true);   // the experts in RAM
  sh("rm -rf '" + dir + "'");
}

// A serving plan's SLOs and request rate are checks of their own, judged as the main command's
// Serving section judges them (its ServingEstimate: meets_ttft, meets_tpot, overloaded).
TEST_CASE("check fails a serving plan that misses its SLOs or cannot keep up with its rate",
          "[planning][check]") {
  const std::string dir = temp_dir();
  write(dir + "/s.json",
        R"({"plans": [{"name": "slo", "model": "llama-3.1-70b", "engine": "vllm", "users": 64, )"
        R"("isl": 8000, "ttft_ms": 100, "tpot_ms": 10, "gpu": "h100-sxm", "gpus": 4}, )"
        R"({"name": "rate", "model": "llama-3.1-8b", "engine": "vllm", "rate": 500, )"
        R"("gpu": "l40s"}]})");
  const Result c = run("check -f json " + dir + "/s.json");
  CHECK(c.code == 1);
  const json j = json::parse(c.out);
  const json& slo = j["plans"][0];
  REQUIRE(slo["failures"].size() == 2);
  const json& t = slo["report"]["throughput"];
  CHECK(slo["failures"][0]["check"] == "ttft");
  // The report rounds its figures (TTFT to the ms, speeds to 0.1 tok/s): the same within that.
  CHECK(slo["failures"][0]["value"].get<double>() ==
        Approx(t["time_to_first_token_s"].get<double>()).margin(0.0005));
  CHECK(slo["failures"][0]["limit"] == Approx(0.1));
  CHECK(slo["failures"][1]["check"] == "tpot");
  CHECK(slo["failures"][1]["limit"] == Approx(0.01));
  // 1 / ITL is the per-user speed: the TPOT failure's value is its inverse.
  CHECK(slo["failures"][1]["value"].get<double>() ==
        Approx(1 / t["per_user_tokens_per_s"].get<double>()).epsilon(0.001));
  const json& rate = j["plans"][1];
  REQUIRE(rate["failures"].size() == 1);
  CHECK(rate["failures"][0]["check"] == "rate");
  CHECK(rate["failures"][0]["value"] == 500);
  CHECK(rate["failures"][0]["unit"] == "requests/s");
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("check: plan errors name the file and the field", "[planning][check]") {
  const std::string dir = temp_dir();
  expect_error("check " + plan_file(dir, "a.json", "\"context\": \"8192\""),
               dir + "/a.json: /plans/0/context: expected an integer, got \"8192\"");
  expect_error("check " + plan_file(dir, "b.json", "\"context\": 0"),
               dir + "/b.json: /plans/0/context: expected an integer from 1 to 16777216, got '0'");
  expect_error("check " + plan_file(dir, "t.json", "\"target_tokens_per_s\": 1e308"),
               dir +
                   "/t.json: /plans/0/target_tokens_per_s: expected a number from 0.1 to "
                   "100000, got 1e+308");
  expect_error("check " + plan_file(dir, "c.json", "\"quant\": \"q4_k_x\""),
               dir +
                   "/c.json: /plans/0/quant: unknown quantization 'q4_k_x' (did you mean q4_k_m, "
                   "q4_k_s, q5_k_m?); see llmsize quants");
  expect_error("check " + plan_file(dir, "d.json", "\"budget\": {\"watts\": 500}"),
               dir +
                   "/d.json: /plans/0/budget/watts: unknown field (did you mean power_watts?); the "
                   "fields are power_watts, ram_gib, price_usd");
  // A field with a unit suffix of its own: "budget" is its prefix, four edits away.
  expect_error("check " + plan_file(dir, "s.json", "\"budget\": {\"price_usd_total\": 1}"),
               dir +
                   "/s.json: /plans/0/budget/price_usd_total: unknown field (did you mean "
                   "price_usd?); the fields are power_watts, ram_gib, price_usd");
  write(dir + "/e.json", "{\"plans\": [{\"model\": \"llama-3.1-8b\"}]}");
  expect_error("check " + dir + "/e.json", dir + "/e.json: /plans/0: missing field \"gpu\"");
  write(dir + "/f.json", "{\"plans\": [\n  {\"model\": \"llama-3.1-8b\",, }\n]}");
  const auto bad_json = run("check " + dir + "/f.json");
  CHECK(bad_json.code == 2);
  CHECK(bad_json.err.rfind("llmsize: error: " + dir +
                               "/f.json: invalid JSON: parse error at line 2, column 28: syntax "
                               "error while parsing object key",
                           0) == 0);
  expect_error("check " + dir + "/missing.json",
               dir + "/missing.json: cannot read: No such file or directory");
  write(dir + "/g.json", "{\"plans\": [{\"model\": \"llama-3.1-70\", \"gpu\": \"rtx-4090\"}]}");
  const auto model = run("check " + dir + "/g.json");
  CHECK(model.code == 2);
  CHECK(model.err.rfind("llmsize: error: " + dir +
                            "/g.json: /plans/0/model: unknown model 'llama-3.1-70' (did you mean",
                        0) == 0);
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("check: the JSON Schema in docs/ lists exactly the fields check accepts",
          "[planning][check]") {
  const json schema = json::parse(read(kSource + "/docs/plan.schema.json"));
  std::set<std::string> plan_fields, budget_fields;
  for (const auto& [k, v] : schema["$defs"]["plan"]["properties"].items()) plan_fields.insert(k);
  for (const auto& [k, v] : schema["$defs"]["plan"]["properties"]["budget"]["properties"].items())
    budget_fields.insert(k);
  // check names its fields when it meets an unknown one.
  const std::string dir = temp_dir();
  const auto fields_of = [](const std::string& err) {
    std::set<std::string> s;
    std::string list = err.substr(err.find("the fields are ") + 15);
    list.pop_back();  // newline
    for (size_t a = 0, b; a <= list.size(); a = b + 2) {
      b = list.find(", ", a);
      if (b == std::string::npos) b = list.size();
      s.insert(list.substr(a, b - a));
    }
    return s;
  };
  CHECK(fields_of(run("check " + plan_file(dir, "x.json", "\"zzz\": 1")).err) == plan_fields);
  CHECK(fields_of(run("check " + plan_file(dir, "y.json", "\"budget\": {\"zzz\": 1}")).err) ==
        budget_fields);
  CHECK(schema["$defs"]["plan"]["required"] == json({"model", "gpu"}));
  // The samples follow the schema's shape: every field they use is in it.
  // The parsed document is named: a range-for over json::parse(...)["plans"] iterates a member of
  // a temporary destroyed before the loop body (a heap-use-after-free under ASan).
  for (const char* sample : {"plan-pass.json", "plan-fail.json"}) {
    const json doc = json::parse(read(kSource + "/examples/" + sample));
    for (const auto& p : doc["plans"])
      for (const auto& [k, v] : p.items()) CHECK(plan_fields.count(k) == 1);
  }
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("check --format json is a machine report with each failure's numbers",
          "[planning][check]") {
  const auto r =
      run("check examples/plan-pass.json examples/plan-fail.json --format json", kSource);
  CHECK(r.code == 1);
  const json j = json::parse(r.out);
  CHECK(j["schema_version"] == 1);
  CHECK(j["passed"] == 3);
  CHECK(j["failed"] == 1);
  REQUIRE(j["plans"].size() == 4);
  const auto& f = j["plans"][3];
  CHECK(f["name"] == "chat-70b-32k");
  CHECK(f["pointer"] == "/plans/0");
  CHECK(f["pass"] == false);
  CHECK(f["failures"][0]["check"] == "memory");
  CHECK(f["failures"][0]["unit"] == "bytes");
  CHECK(f["failures"][0]["limit"] == 85899345920.0);  // 80 GiB
  CHECK(f["failures"][0]["value"] == f["report"]["gpu"]["per_gpu_bytes"].get<double>());
  CHECK(f["report"]["vram"]["kv_cache_bytes"] == 10737418240ull);  // 10 GiB, as the reason says
}

// --- --ctx max -----------------------------------------------------------------------------------

namespace {

json main_json(const std::string& args) {
  const auto r = run(args + " --format json");
  INFO(args << "\n" << r.err);
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

// The main command's fit at a context, on --gpus (default 1, as for --ctx max).
bool fits_at(const std::string& config, uint64_t ctx) {
  const std::string gpus = config.find("--gpus") == std::string::npos ? " --gpus 1" : "";
  return main_json(config + gpus + " --ctx " + std::to_string(ctx))["gpu"]["fits"].get<bool>();
}

}  // namespace

TEST_CASE("ctx max finds the exact largest context: it fits and one more token does not",
          "[planning][ctx-max]") {
  // Padding to 256 cells, sliding-window layers (gemma-3), several sequences, other engines.
  for (const std::string config :
       {"llama-3.1-8b -q q4_k_m --gpu rtx-4090", "gemma-3-27b -q q4_k_m --gpu rtx-4090",
        "qwen2.5-32b -q q4_k_m --gpu rtx-3090 --gpus 2",
        "llama-3.1-8b -q q8_0 --gpu rtx-4090 --batch 3",
        "llama-3.1-8b -q f16 --gpu rtx-4090 --engine transformers",
        "qwen2.5-7b -q q8_0 --gpu rtx-3080 --fa off"}) {
    INFO(config);
    const json j = main_json(config + " --ctx max");
    const uint64_t ctx = j["settings"]["context"];
    CHECK(j["gpu"]["fits"] == true);
    CHECK(fits_at(config, ctx));
    CHECK_FALSE(fits_at(config, ctx + 1));
    CHECK(j["warnings"][0].get<std::string>().rfind(
              "--ctx max: " + std::to_string(ctx / 1000) + ",", 0) == 0);
    CHECK(j["warnings"][0].get<std::string>().find("is the largest context that fits") !=
          std::string::npos);
  }
  // llama.cpp pads to 256 cells: the answer is a whole number of them.
  CHECK(main_json("llama-3.1-8b -q q4_k_m --gpu rtx-4090 --ctx max")["settings"]["context"]
                .get<uint64_t>() %
            256 ==
        0);
}

TEST_CASE("ctx max stops at the model's trained context and says so", "[planning][ctx-max]") {
  const json j = main_json("llama-3.2-1b -q q4_k_m --gpu h100-sxm --ctx max");
  CHECK(j["settings"]["context"] == 131072);
  CHECK(j["warnings"][0].get<std::string>().rfind(
            "--ctx max: 131,072, the model's trained context, fits 1 × h100-sxm (", 0) == 0);
}

TEST_CASE("ctx max errors: no GPU or nothing fits", "[planning][ctx-max]") {
  expect_error(
      "llama-3.1-8b --ctx max",
      "--ctx max: needs --gpu NAME (and --gpus N, default 1): the largest context those GPUs hold");
  expect_error("llama-3.1-70b --ctx max --gpu rtx-4090",
               "--ctx max: llama-3.1-70b q4_k_m does not fit 1 × rtx-4090 even at context 1 (47.55 "
               "GiB per GPU > 24.00 GiB usable)");
}

// --- fit -----------------------------------------------------------------------------------------

TEST_CASE("fit lists what fits best quality first with each model's exact largest context",
          "[planning][fit]") {
  const auto r = run("fit --gpu rtx-4090 --format json");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["gpu"]["id"] == "rtx-4090");
  CHECK(j["gpu"]["count"] == 1);
  CHECK(j["context"] == 4096);
  const auto& fits = j["fits"];
  REQUIRE(fits.size() > 10);
  // Order: presets of 4+ bits first, then more parameters, then more bits per weight.
  for (size_t i = 1; i < fits.size(); ++i) {
    const auto &a = fits[i - 1], &b = fits[i];
    INFO(a.dump() << "\n" << b.dump());
    CHECK(a["lossy"].get<bool>() <= b["lossy"].get<bool>());
    if (a["lossy"] == b["lossy"]) CHECK(a["params"].get<uint64_t>() >= b["params"].get<uint64_t>());
  }
  // One row per model, its best preset; models too large are listed as such.
  std::set<std::string> ids;
  for (const auto& f : fits) CHECK(ids.insert(f["model"].get<std::string>()).second);
  CHECK(std::find(j["left_out_no_fit"].begin(), j["left_out_no_fit"].end(), "llama-3.1-70b") !=
        j["left_out_no_fit"].end());
  // Llama-3.1-8B fits in F16 (16.0 GiB of weights); its largest context is exact.
  const auto it = std::find_if(fits.begin(), fits.end(),
                               [](const json& f) { return f["model"] == "llama-3.1-8b"; });
  REQUIRE(it != fits.end());
  CHECK((*it)["quant"] == "f16");
  const uint64_t max = (*it)["max_context"];
  CHECK(fits_at("llama-3.1-8b -q f16 --gpu rtx-4090", max));
  CHECK_FALSE(fits_at("llama-3.1-8b -q f16 --gpu rtx-4090", max + 1));
  CHECK(main_json("llama-3.1-8b -q f16 --gpu rtx-4090 --ctx max")["settings"]["context"] == max);
}

TEST_CASE("fit under a serving engine tries its formats and its own largest max_model_len",
          "[planning][fit]") {
  // vLLM serves BF16, FP8, GPTQ and AWQ checkpoints, not GGUF mixes; a model fits when one
  // sequence of the context asked fits its KV pool, and the largest context is the largest
  // max_model_len whose one sequence the pool holds (vLLM refuses to start past it): the main
  // command's throughput.max_concurrency_guarantee is 1 there and 0 one token later.
  // Llama-3.1-70B in FP8 (67.7 GiB) leaves no pool on one H100 after vLLM's profile run (the
  // sampler's 1,024 rows x 128,256 x 38 B = 4.65 GiB): AWQ 4-bit is its best format.
  const auto r = run("fit --gpu h100-sxm --engine vllm --format json");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  CHECK(j["engine"] == "vllm");
  const std::set<std::string> formats = {"bf16", "fp8", "gptq-8bit", "awq-4bit"};
  REQUIRE(j["fits"].size() > 5);
  for (const auto& f : j["fits"]) CHECK(formats.count(f["quant"].get<std::string>()) == 1);
  const auto it = std::find_if(j["fits"].begin(), j["fits"].end(),
                               [](const json& f) { return f["model"] == "llama-3.1-70b"; });
  REQUIRE(it != j["fits"].end());
  CHECK((*it)["quant"] == "awq-4bit");
  const uint64_t max = (*it)["max_context"];
  CHECK(max >= 4096);
  const std::string a =
      "llama-3.1-70b --engine vllm --quant awq-4bit --gpu h100-sxm --gpus 1 --ctx ";
  CHECK(main_json(a + std::to_string(max))["throughput"]["max_concurrency_guarantee"] == 1);
  CHECK(main_json(a + std::to_string(max + 1))["throughput"]["max_concurrency_guarantee"] == 0);
  // The same alias names the same ladder; llama.cpp keeps the GGUF one.
  CHECK(json::parse(run("fit --gpu h100-sxm --engine trtllm --format json").out)["engine"] ==
        "trt-llm");
  CHECK(run("fit --gpu h100-sxm").out.find("under llama.cpp") != std::string::npos);
}

TEST_CASE("fit --all lists every preset that fits and the table says how it orders",
          "[planning][fit]") {
  const json all =
      json::parse(run("fit --gpu h100-sxm --gpus 2 --ctx 32768 --all --format json").out);
  size_t llama70 = 0;
  for (const auto& f : all["fits"]) llama70 += f["model"] == "llama-3.1-70b";
  // Q2_K to Q8_0; F16's 131 GiB of weights + 10 GiB of KV at 32k need 85 GiB on each of the two.
  CHECK(llama70 == 6);
  const auto table = run("fit --gpu rtx-4090 --ctx 8192");
  CHECK(table.code == 0);
  CHECK(table.out.rfind(
            "Fits 1 × rtx-4090 (24.0 GiB usable each) at context 8,192 under llama.cpp — best "
            "quality first\n",
            0) == 0);
  CHECK(table.out.find("Order: presets of 4+ bits per weight first") != std::string::npos);
  expect_error("fit --gpu rtx-4090 --ctx 0",
               "--ctx: expected an integer from 1 to 16777216, got '0'");
}

// --- sweep ---------------------------------------------------------------------------------------

TEST_CASE("sweep rows equal the main command's CSV for the same configuration",
          "[planning][sweep]") {
  const auto sweep =
      run("sweep --models llama-3.1-8b,70b,gemma-3-27b --quants q4,q8_0 --ctx 4096,32768 --gpu "
          "rtx-4090,m3-max,h100-sxm "
          "--gpus 1,3 --split tensor --price h100-sxm=30000");
  INFO(sweep.err);
  REQUIRE(sweep.code == 0);
  const auto rows = parse_csv(sweep.out);
  REQUIRE(rows.size() == 1 + 3 * 2 * 2 * 3 * 2);
  // Rows nest model, quant, context, GPU, count in that order; check a spread of them.
  const std::vector<std::string> models = {"llama-3.1-8b", "70b", "gemma-3-27b"},
                                 quants = {"q4", "q8_0"}, ctxs = {"4096", "32768"},
                                 gpus = {"rtx-4090", "m3-max", "h100-sxm"}, counts = {"1", "3"};
  for (size_t i = 0; i + 1 < rows.size(); i += 5) {
    size_t k = i;
    const auto& n = counts[k % 2];
    k /= 2;
    const auto& g = gpus[k % 3];
    k /= 3;
    const auto& c = ctxs[k % 2];
    k /= 2;
    const auto& q = quants[k % 2];
    const auto& m = models[k / 2];
    const std::string config = m + " --quant " + q + " --ctx " + c + " --gpu " + g + " --gpus " +
                               n + " --split tensor --price h100-sxm=30000";
    const auto main = run(config + " --format csv");
    REQUIRE(main.code == 0);
    const auto mrows = parse_csv(main.out);
    const auto want = csv_row(mrows, 1), got = csv_row(rows, i + 1);
    INFO(config);
    for (const auto& [col, v] : want) {
      INFO(col);
      CHECK(got.at(col) == v);
    }
    // Columns the main command leaves out for this GPU (Apple: no host) are empty in the sweep.
    for (const auto& [col, v] : got)
      if (!want.count(col)) CHECK(v.empty());
  }
}

TEST_CASE("sweep JSON Lines rows equal the main command's JSON without its arrays",
          "[planning][sweep]") {
  const auto r =
      run("sweep --models llama-3.1-8b --quants q4_k_m --ctx 8192 --gpu rtx-4090,m3-max --gpus 1 "
          "-f jsonl --kv-quant q8_0");
  REQUIRE(r.code == 0);
  const auto ls = lines(r.out);
  REQUIRE(ls.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    json want = main_json(
        std::string("llama-3.1-8b --quant q4_k_m --ctx 8192 --gpus 1 --kv-quant q8_0 --gpu ") +
        (i ? "m3-max" : "rtx-4090"));
    for (const char* k :
         {"gpu_options", "gpu_options_fewest_cards", "explain", "finetune", "bom", "machine"})
      want.erase(k);
    want["model"].erase("tensor_types");
    CHECK(json::parse(ls[i]) == want);
  }
}

TEST_CASE("sweep --verify checks every fast row against the main command's computation",
          "[planning][sweep]") {
  for (const std::string extra :
       {"", "-f jsonl --engine vllm", "--batch 4 --kv-quant q4_0 --ram-channels 2 --mains 120",
        "--users 16 --fa off --headroom 0.1 --cloud-price 1"}) {
    const auto r =
        run("sweep --models llama-3.1-8b,deepseek-v3,mixtral-8x7b --quants q4_k_m,iq2_xs,fp8 --ctx "
            "1,2048,65536 "
            "--gpu rtx-3090,mi300x,m2-ultra,gaudi3 --gpus 1,2,8 --verify " +
            extra);
    INFO(extra << "\n" << r.err.substr(0, 2000));
    CHECK(r.code == 0);
    CHECK(lines(r.out).size() ==
          3 * 3 * 3 * 4 * 3 + (extra.find("jsonl") == std::string::npos ? 1 : 0));
  }
}

// One request builder (#20): a sweep row without --quants or --ctx is the main command's plan
// for the same flags: a checkpoint engine loads the weights as stored (gpt-oss's MXFP4 experts,
// Llama's BF16) and a serving plan's context is isl + osl; its speed is the serving step model's.
TEST_CASE("sweep rows take the main command's defaults under a serving engine",
          "[planning][sweep]") {
  const auto r =
      run("sweep --models gpt-oss-120b,llama-3.1-8b --gpu h100-sxm --gpus 1,2 --engine "
          "vllm --users 50 -f jsonl");
  REQUIRE(r.code == 0);
  const auto rows = lines(r.out);
  REQUIRE(rows.size() == 4);
  for (const auto& row : rows) {
    const json s = json::parse(row);
    const std::string args = s["model"]["id"].get<std::string>() + " --gpu h100-sxm --gpus " +
                             std::to_string(s["gpu"]["count"].get<int>()) +
                             " --engine vllm --users 50 -f json";
    INFO(args);
    const json m = json::parse(run(args).out);
    CHECK(s["settings"]["quant"] == m["settings"]["quant"]);
    CHECK(s["settings"]["context"] == m["settings"]["context"]);
    CHECK(s["throughput"]["per_user_tokens_per_s"] == m["throughput"]["per_user_tokens_per_s"]);
    CHECK(s["throughput"]["aggregate_tokens_per_s"] == m["throughput"]["aggregate_tokens_per_s"]);
  }
  CHECK(json::parse(rows[0])["settings"]["quant"] == "mxfp4-experts");
  CHECK(json::parse(rows[2])["settings"]["quant"] == "bf16");
  CHECK(json::parse(rows[0])["settings"]["context"] == 2000);
}

TEST_CASE("sweep --only-fits keeps the configurations that fit", "[planning][sweep]") {
  const auto all = parse_csv(run("sweep --models llama-3.1-70b --quants q4_k_m,q8_0 --ctx "
                                 "8192,131072 --gpu rtx-4090 --gpus 1,2,4,8")
                                 .out);
  const auto fit = parse_csv(run("sweep --models llama-3.1-70b --quants q4_k_m,q8_0 --ctx "
                                 "8192,131072 --gpu rtx-4090 --gpus 1,2,4,8 --only-fits")
                                 .out);
  size_t fitting = 0;
  for (size_t i = 1; i < all.size(); ++i) fitting += csv_row(all, i).at("gpu.fits") == "true";
  CHECK(all.size() == 1 + 16);
  CHECK(fit.size() == 1 + fitting);
  CHECK(fitting > 0);
  CHECK(fitting < 16);
  for (size_t i = 1; i < fit.size(); ++i) CHECK(csv_row(fit, i).at("gpu.fits") == "true");
}

TEST_CASE("sweep refuses more rows than --max-rows and bad lists and prints nothing",
          "[planning][sweep]") {
  expect_error(
      "sweep --models 70b --quants q4_k_m --ctx 1024 --gpu rtx-4090,h100-sxm --gpus 1,2,4,8 "
      "--max-rows 5",
      "sweep: 8 configurations (1 models × 1 quants × 1 contexts × 2 GPUs × 4 counts) exceed "
      "--max-rows 5; raise it to run them all");
  // 1001 contexts x 1000 counts: past the default of 1 million.
  std::string ctxs = "1", counts = "1";
  for (int i = 2; i <= 1001; ++i) ctxs += "," + std::to_string(i);
  for (int i = 2; i <= 1000; ++i) counts += "," + std::to_string(i);
  expect_error("sweep --models 8b --ctx " + ctxs + " --gpu rtx-4090 --gpus " + counts,
               "sweep: 1001000 configurations (1 models × 1 quants × 1001 contexts × 1 GPUs × 1000 "
               "counts) exceed --max-rows 1000000; "
               "raise it to run them all");
  expect_error("sweep --models llama-3.1-8b,llama-3.1-80b --gpu rtx-4090",
               "MODEL: unknown model 'llama-3.1-80b' (did you mean llama-3.1-8b, llama-3.1-70b, "
               "llama-3.1-405b?); see llmsize models");
  expect_error("sweep --models llama-3.1-8b --gpu rtx-4090 --ctx 4096,0",
               "--ctx: expected an integer from 1 to 16777216, got '0'");
  expect_error("sweep --models llama-3.1-8b --gpu rtx-4090 -f xml",
               "--format: expected csv or jsonl (JSON Lines), got 'xml'");
}

// --- pictures ------------------------------------------------------------------------------------

namespace {

// Renders an SVG with librsvg (rsvg-convert, from scripts/install-deps.sh) and reads the pixels.
llmsize::test::Image render(const std::string& svg) {
  const std::string png = svg + ".png";
  const auto r = sh("rsvg-convert -f png -o '" + png + "' '" + svg + "'");
  INFO("rsvg-convert (Debian librsvg2-bin, installed by scripts/install-deps.sh): " << r.err);
  REQUIRE(r.code == 0);
  return llmsize::test::read_png(png);
}

size_t count_color(const llmsize::test::Image& img, uint32_t rgb) {
  size_t n = 0;
  for (const auto& p : img.pixels)
    n += p[3] == 255 && p[0] == (rgb >> 16) && p[1] == ((rgb >> 8) & 0xff) && p[2] == (rgb & 0xff);
  return n;
}

double share_not_white(const llmsize::test::Image& img) {
  size_t n = 0;
  for (const auto& p : img.pixels) n += !(p[0] > 245 && p[1] > 245 && p[2] > 245);
  return static_cast<double>(n) / static_cast<double>(img.pixels.size());
}

}  // namespace

TEST_CASE("plot draws the memory breakdown against the GPUs' capacity", "[planning][plot]") {
  const std::string dir = temp_dir();
  const auto r = run("llama-3.1-70b --quant q4_k_m --ctx 32768 --gpu rtx-4090 --gpus 3 --plot " +
                     dir + "/mem.svg");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("Model     Llama-3.1-70B") == 0);  // the report is printed as usual
  const std::string svg = read(dir + "/mem.svg");
  CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
  const auto img = render(dir + "/mem.svg");
  CHECK(img.width == 760);
  CHECK(img.height == 300);
  // The picture drew: the weights (#4e79a7) and KV cache (#f28e2b) bars are large blocks, the
  // capacity line (#c0392b) is there, and a good share of the canvas is not background.
  CHECK(count_color(img, 0x4e79a7) > 5000);
  CHECK(count_color(img, 0xf28e2b) > 1000);
  CHECK(count_color(img, 0xc0392b) > 100);
  CHECK(share_not_white(img) > 0.10);
  // A path that cannot be written is an error before anything is printed.
  expect_error("llama-3.1-8b --plot " + dir + "/no/such/dir/x.svg",
               "--plot: cannot write '" + dir + "/no/such/dir/x.svg': No such file or directory");
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("sweep --plot draws VRAM against context per quantization with capacity lines",
          "[planning][plot]") {
  const std::string dir = temp_dir();
  const auto r =
      run("sweep --models llama-3.1-8b,qwen2.5-32b --quants q4_k_m,q8_0 --ctx "
          "4096,16384,65536,131072 --gpu rtx-4090,h100-sxm "
          "--gpus 1,2 --plot " +
          dir + "/sweep.svg");
  REQUIRE(r.code == 0);
  CHECK(lines(r.out).size() == 1 + 2 * 2 * 4 * 2 * 2);
  const std::string svg = read(dir + "/sweep.svg");
  CHECK(svg.find("llama-3.1-8b q4_k_m") != std::string::npos);
  CHECK(svg.find("2 × h100-sxm (160 GiB)") != std::string::npos);
  const auto img = render(dir + "/sweep.svg");
  CHECK(img.width == 820);
  for (uint32_t series : {0x4e79a7u, 0xf28e2bu, 0x59a14fu, 0xb07aa1u})
    CHECK(count_color(img, series) > 200);  // four lines
  CHECK(count_color(img, 0xc0392b) > 200);  // capacity lines
  CHECK(share_not_white(img) > 0.03);
  sh("rm -rf '" + dir + "'");
}

// --- completions and man -------------------------------------------------------------------------

TEST_CASE("completions are generated from the command line for bash zsh and fish",
          "[planning][completions]") {
  const auto b = run("completions bash");
  REQUIRE(b.code == 0);
  const std::string dir = temp_dir();
  write(dir + "/c.bash", b.out);
  CHECK(sh("bash -n '" + dir + "/c.bash'").code == 0);
  // Every subcommand and the new options are there; GPU names complete --gpu.
  for (const char* s : {"check", "fit", "sweep", "--only-fits", "--max-rows", "--junit", "--plot",
                        "--ctx", "--engine", "rtx-4090"})
    CHECK(b.out.find(s) != std::string::npos);
  // Completing "llmsize sweep --gpu rtx-40" offers the RTX 40 series.
  write(dir + "/t.bash",
        "source '" + dir +
            "/c.bash'\nCOMP_WORDS=(llmsize sweep --gpu rtx-409); COMP_CWORD=3; _llmsize\n"
            "echo \"${COMPREPLY[*]}\"\n");
  const auto c = sh("bash '" + dir + "/t.bash'");
  CHECK(c.out == "rtx-4090\n");
  // --engine offers every engine, --emit every launch command, --format every output.
  auto offers = [&](const std::string& words, const std::string& want) {
    write(dir + "/o.bash", "source '" + dir + "/c.bash'\nCOMP_WORDS=(llmsize " + words +
                               " ''); COMP_CWORD=" +
                               std::to_string(1 + std::count(words.begin(), words.end(), ' ') + 1) +
                               "; _llmsize\necho \"${COMPREPLY[*]}\"\n");
    const auto r = sh("bash '" + dir + "/o.bash'");
    INFO(words << ": " << r.out);
    CHECK(r.out == want + "\n");
  };
  offers("--engine", "llama.cpp ollama vllm sglang trt-llm transformers");
  offers("--emit", "vllm sglang llama-server trt-llm ollama k8s acceptance");
  offers("--format", "table json csv markdown bom-csv html");
  const auto z = run("completions zsh");
  CHECK(z.out.rfind("#compdef llmsize\n", 0) == 0);
  CHECK(z.out.find("'--only-fits[only the configurations whose GPUs hold the model]'") !=
        std::string::npos);
  const auto f = run("completions fish");
  CHECK(f.out.find("complete -c llmsize -n '__fish_seen_subcommand_from check' -l junit -r -F") !=
        std::string::npos);
  expect_error("completions tcsh", "completions: expected bash, zsh or fish, got 'tcsh'");
  // Hidden from --help: they are tools for packaging.
  CHECK(run("--help").out.find("completions") == std::string::npos);
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("the man page documents every command and option and cmake --install installs it all",
          "[planning][completions]") {
  const auto m = run("man");
  REQUIRE(m.code == 0);
  CHECK(m.out.rfind(".TH LLMSIZE 1", 0) == 0);
  for (const char* s :
       {".SS \"llmsize check PLAN\"", ".SS \"llmsize sweep\"", ".SS \"llmsize fit\"",
        "\\fB\\-\\-only\\-fits\\fR", "\\fB\\-\\-ctx\\fR", ".SH EXIT STATUS"})
    CHECK(m.out.find(s) != std::string::npos);
  const std::string dir = temp_dir();
  const auto inst =
      sh("cmake --install '" + std::string(LLMSIZE_BUILD_DIR) + "' --prefix '" + dir + "'");
  INFO(inst.out << inst.err);
  REQUIRE(inst.code == 0);
  for (const char* f :
       {"/bin/llmsize", "/share/bash-completion/completions/llmsize",
        "/share/zsh/vendor-completions/_llmsize", "/share/fish/vendor_completions.d/llmsize.fish",
        "/share/man/man1/llmsize.1"})
    CHECK(exists(dir + f));
  CHECK(read(dir + "/share/man/man1/llmsize.1") == m.out);
  sh("rm -rf '" + dir + "'");
}

namespace {

// The paths of `llmsize fields` (the one field table, as docs/fields.md lists it).
std::set<std::string> field_paths() {
  const auto f = run("fields");
  REQUIRE(f.code == 0);
  std::set<std::string> paths;
  for (const auto& l : lines(f.out))
    if (l.rfind("| `", 0) == 0) paths.insert(l.substr(3, l.find('`', 3) - 3));
  return paths;
}

// A CSV column is a field, or a JSON-only object of one flattened below it ("a.b.c" of "a.b").
bool column_of_table(const std::set<std::string>& paths, std::string column) {
  for (;;) {
    if (paths.count(column)) return true;
    const auto dot = column.rfind('.');
    if (dot == std::string::npos) return false;
    column.resize(dot);
  }
}

// Each key of a plan document is a field, or an object whose keys are "key.subkey" fields; the
// number of fields it holds.
size_t check_keys(const std::set<std::string>& paths, const json& doc) {
  size_t n = 0;
  for (const auto& [k, v] : doc.items()) {
    if (paths.count(k)) {
      ++n;
      continue;
    }
    INFO("JSON " << k);
    REQUIRE(v.is_object());
    for (const auto& [s, x] : v.items()) {
      INFO("JSON " << k << "." << s);
      CHECK(paths.count(k + "." + s) == 1);
      ++n;
    }
  }
  return n;
}

void check_columns(const std::set<std::string>& paths, const std::vector<std::string>& header) {
  for (const auto& col : header) {
    INFO("CSV column " << col);
    CHECK(column_of_table(paths, col));
  }
}

}  // namespace

TEST_CASE("every JSON key and CSV column of a plan and a sweep row is a row of llmsize fields",
          "[cli][fields]") {
  const std::set<std::string> paths = field_paths();
  REQUIRE(paths.size() > 150);
  // Plans that fill different parts of the document: a GPU with --explain, capacity planning,
  // a serving engine, fine-tuning, a catalog machine, no GPU (a recommendation), prices, offload.
  const char* const plans[] = {
      "llama-3.1-8b --gpu rtx-4090 --explain",
      "llama-3.1-70b --gpu h100-sxm --users 50 --target-tps 20",
      "llama-3.3-70b --quant fp8 --gpu h100-sxm --engine vllm --users 50 --isl 5000 --osl 500",
      "llama-3.1-8b --mode lora --gpu h100-sxm",
      "llama-3.1-70b --platform nvidia-dgx-h100",
      "qwen2.5-0.5b",
      "llama-3.1-8b --gpu rtx-4090 --price rtx-4090=1600 --cloud-price 0.5",
      "llama-3.1-405b --gpu rtx-4090 --gpus 2",
  };
  for (const char* p : plans) {
    INFO(p);
    const auto j = run(std::string(p) + " --format json");
    REQUIRE(j.code == 0);
    CHECK(check_keys(paths, json::parse(j.out)) > 50);
    const auto c = run(std::string(p) + " --format csv");
    REQUIRE(c.code == 0);
    const auto rows = parse_csv(c.out);
    REQUIRE(rows.size() == 2);
    check_columns(paths, rows[0]);
  }
  INFO("sweep");
  const auto s = run("sweep --models llama-3.1-8b,qwen2.5-0.5b --ctx 4096,32768 --gpu rtx-4090");
  REQUIRE(s.code == 0);
  const auto rows = parse_csv(s.out);
  REQUIRE(rows.size() == 5);
  check_columns(paths, rows[0]);
  const auto l = run("sweep --models llama-3.1-8b --ctx 4096 --gpu rtx-4090 --format jsonl");
  REQUIRE(l.code == 0);
  CHECK(check_keys(paths, json::parse(lines(l.out).front())) > 50);
}

TEST_CASE("without --gpu, setups their maker does not support rank after those it does",
          "[cli][bom]") {
  // Kimi-K2.5 needs six DGX Sparks, three times the two NVIDIA links: once the cheapest system,
  // it now ranks after every supported one and says why; the recommendation is another GPU.
  const auto r = llmsize::cli_test::run("kimi-k2.5 --engine vllm -f json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["gpu"]["id"] != "dgx-spark");
  const auto t = llmsize::cli_test::run("kimi-k2.5 --engine vllm --top 80 --width 0");
  REQUIRE(t.code == 0);
  CHECK(t.out.find("dgx-spark") != std::string::npos);
  CHECK(t.out.find("more units than the maker links: unsupported") != std::string::npos);
}

TEST_CASE("without --gpu, the engine's GPUs: what it runs on, in one machine first, at its count",
          "[cli][bom]") {
  using llmsize::cli_test::run;
  // TensorRT-LLM runs on CUDA only: every option it lists is a CUDA GPU of the catalog.
  const auto cat = run("gpus -f json");
  REQUIRE(cat.code == 0);
  std::map<std::string, bool> cuda;
  const auto catalog = nlohmann::json::parse(cat.out);
  for (const auto& g : catalog["gpus"]) {
    bool c = false;
    for (const auto& b : g["backends"]) c = c || b == "cuda";
    cuda[g["id"].get<std::string>()] = c;
  }
  const auto t = run("llama-3.1-8b --engine trt-llm --top 80 -f json");
  REQUIRE(t.code == 0);
  const auto tj = nlohmann::json::parse(t.out);
  REQUIRE(tj["gpu_options"].size() > 10);
  for (const auto& o : tj["gpu_options"]) {
    INFO(o["id"]);
    CHECK(cuda.at(o["id"].get<std::string>()));
  }
  // llama.cpp has no Gaudi backend: gaudi3 is no option for it, and is one for vLLM.
  auto lists = [&](const std::string& args, const std::string& id) {
    const auto r = run(args + " --top 80 -f json");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& o : j["gpu_options"])
      if (o["id"] == id) return true;
    return false;
  };
  CHECK_FALSE(lists("llama-3.1-70b", "gaudi3"));
  CHECK(lists("llama-3.1-70b --engine vllm", "gaudi3"));
  // Asked for by name, it is planned with a warning, and the checklist says so.
  const auto g3 = run("llama-3.1-8b --gpu gaudi3 -f json");
  REQUIRE(g3.code == 0);
  const auto g3j = nlohmann::json::parse(g3.out);
  CHECK(g3j["warnings"][0].get<std::string>().rfind(
            "llama.cpp does not run on Intel Gaudi 3 (HL-325L OAM) (habana): it runs on cuda, "
            "rocm, vulkan, sycl, metal",
            0) == 0);
  const auto g3t = run("llama-3.1-8b --gpu gaudi3");
  CHECK(g3t.out.find("supports habana — llama.cpp does not run on it") != std::string::npos);
  const auto v3t = run("llama-3.1-8b --gpu gaudi3 --engine vllm");
  CHECK(v3t.out.find("supports habana — vllm runs on it") != std::string::npos);

  // Kimi-K2.5 on vLLM: the recommendation fits in one machine (a multi-machine pipeline needs an
  // unpriced fabric), at a count vLLM deploys (TP x PP), judged by vLLM's own rule.
  const auto k = run("kimi-k2.5 --engine vllm -f json");
  REQUIRE(k.code == 0);
  const auto kj = nlohmann::json::parse(k.out);
  CHECK(kj["gpu"]["nodes"] == 1);
  const auto& th = kj["throughput"];
  CHECK(kj["gpu"]["count"].get<int>() == th["tensor_parallel"].get<int>() *
                                             th["pipeline_parallel"].get<int>() *
                                             th["replicas"].get<int>());
  CHECK(kj["gpu"]["count_needed"] == kj["gpu"]["count"]);
  CHECK(kj["gpu"]["fits"] == true);
  CHECK(kj["gpu"]["fit"] == "fits");

  // On 24 GiB Arc Pro B60s vLLM needs 29 (TP 1 x PP 29). 28 is TP 4 x PP 7: 553.40 GiB / 28 =
  // 19.76 GiB of weights + the profile run's sampler (256 rows x 163,840 x 38 B = 1.48 GiB,
  // on every rank) + 0.54 GiB non-torch memory and one sequence's KV share > 0.9 x 24 = 21.6
  // GiB; at 29, 19.08 GiB of weights leave 21.14 GiB placed: it fits, and the verdict agrees.
  // The machines that take them hold 10 each: 3 are bought, and the plan runs on all 30.
  const auto a = run("kimi-k2.5 --engine vllm --gpu arc-pro-b60 -f json");
  REQUIRE(a.code == 0);
  const auto aj = nlohmann::json::parse(a.out);
  CHECK(aj["gpu"]["count"] == 30);
  CHECK(aj["gpu"]["count_needed"] == 29);
  CHECK(aj["gpu"]["fits"] == true);
  CHECK(aj["gpu"]["fit"] == "fits");
  const auto a27 = run("kimi-k2.5 --engine vllm --gpu arc-pro-b60 --gpus 27 -f json");
  REQUIRE(a27.code == 0);
  const auto a27j = nlohmann::json::parse(a27.out);
  CHECK(a27j["gpu"]["fits"] == false);
  CHECK(a27j["gpu"]["fit"] == "no");
  // Modules are priced as bought: two Gaudi 3 OAM come on a board of 4 (no catalog machine
  // takes them: after the machines that ship); an MI300X on its board of 8.
  const auto v = run("70b --engine vllm --top 80 -f json");
  REQUIRE(v.code == 0);
  const auto vj = nlohmann::json::parse(v.out);
  for (const auto& o : vj["gpu_options"]) {
    if (o["id"] == "gaudi3") {
      CHECK(o["count"] == 2);
      CHECK(o["bought"] == 4);
      // On their baseboard: the generic OAM server has no price of its own, so the modules are
      // bought at theirs (4 x $15,625 list) and the host at the server class's assumed price.
      CHECK(o["platform_id"] == "generic-oam-baseboard-server");
      CHECK(o["gpus_usd"] == 62500);
      CHECK(o["total_price_usd"].get<double>() > 62500 + 15000);
    }
    if (o["id"] == "mi300x") CHECK(o["bought"] == 8);
  }
  CHECK(vj["gpu_options"][0]["id"] != "gaudi3");
  // Each vLLM option names its deployment, whose degrees multiply to its count.
  for (const auto& o : vj["gpu_options"]) {
    unsigned tp = 0, pp = 0, rep = 0;
    const std::string split = o["split"];
    INFO(split);
    REQUIRE(std::sscanf(split.c_str(), "TP %u × PP %u × %u replica", &tp, &pp, &rep) == 3);
    CHECK(tp * pp * rep == o["count"].get<unsigned>());
  }
  // A capacity target counts each option at what it needs for the users: the count the plan of
  // that GPU buys.
  const auto c = run("70b --quant q4 --ctx 8192 --users 50 --target-tps 20 --top 80 -f json");
  REQUIRE(c.code == 0);
  const auto cj = nlohmann::json::parse(c.out);
  CHECK(cj["gpu_options"][0]["count"] == cj["gpu"]["count"]);
  for (const char* id : {"w7900", "rtx-4090"}) {
    const auto one = run(
        std::string("70b --quant q4 --ctx 8192 --users 50 --target-tps 20 -f json --gpu ") + id);
    REQUIRE(one.code == 0);
    const auto oj = nlohmann::json::parse(one.out);
    for (const auto& o : cj["gpu_options"])
      if (o["id"] == id) CHECK(o["count"] == oj["gpu"]["count"]);
  }
  // --explain derives that count by vLLM's rule.
  const auto x = run("kimi-k2.5 --engine vllm --gpu arc-pro-b60 --explain");
  REQUIRE(x.code == 0);
  CHECK(x.out.find("the machines' (they ship more than the fewest that fit,\n        29) n") !=
        std::string::npos);
  CHECK(x.out.find("(vllm's memory share) → 30 GPUs = TP 2 × PP 15 × 1 replica") !=
        std::string::npos);
  CHECK(x.out.find("smallest t ≥") == std::string::npos);
  // A GPU without a 16-bit TFLOPS figure in the catalog (the Ryzen AI Max+ 395's Radeon 8060S):
  // the prefill says it assumed one, and a warning says so.
  const auto y = run("llama-3.1-8b --gpu ryzen-ai-max-395 --explain");
  REQUIRE(y.code == 0);
  CHECK(y.out.find("10.0 TFLOPS (assumed: the catalog has no dense FP16/BF16 figure)") !=
        std::string::npos);
  CHECK(y.out.find("the catalog has no dense FP16/BF16 TFLOPS for AMD Ryzen AI Max+ 395") !=
        std::string::npos);
  CHECK(x.out.find("(assumed: the catalog has no dense") == std::string::npos);
}

TEST_CASE("the explained load time is the cold start's own steps", "[cli]") {
  // Llama-3.1-8B Q4_K_M: 4.92 GB read by llama.cpp's one mmap reader from a Gen4 drive at its
  // single-stream 2.2 GB/s = 2.2 s, then copied over one x16 4.0 link at 40% of 31.5 GB/s = 12.6.
  const auto r = llmsize::cli_test::run("llama-3.1-8b --gpu rtx-4090 --explain");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("from local-nvme-gen4; read weights 2.2 s at 2.20 GB/s (one mmap reader") !=
        std::string::npos);
  CHECK(r.out.find("copy to GPUs 0.4 s at 12.60 GB/s") != std::string::npos);
  CHECK(r.out.find("drive read GB/s (HDD 0.25") == std::string::npos);
}

TEST_CASE("the explained host is the catalog machine's", "[cli]") {
  // A DGX H100 (the catalog's, from its MLPerf Inference v5.0 system file): two Xeon 8480C of 56
  // cores, 2 TiB; 2 TiB / 8 GPUs = 256 GiB per GPU beats 2 x 382 GiB of FP8 weights.
  const auto r = llmsize::cli_test::run(
      "llama-3.1-405b --quant fp8 --gpu h100-sxm --gpus 8 --explain --width 0");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("= per machine, 2 sockets × Intel Xeon Platinum 8480C, 112 cores: what NVIDIA "
                   "DGX H100 ships (14.0 cores per GPU)") != std::string::npos);
  CHECK(r.out.find("what the class ships per GPU × 8 GPUs 2048 GiB) = 2048 GiB → 32 × 64 GiB, 2 "
                   "per channel on 16 channels") != std::string::npos);
  CHECK(r.out.find("cores max(8, 4 ×") == std::string::npos);
}

TEST_CASE("check's lines are the same with and without the reports, repeated plans included",
          "[cli][check]") {
  // The table skips the machine of a plan without a budget on a discrete GPU (its line reads
  // the GPUs alone) and shares the result of a plan written before; --format json plans every
  // machine and every plan. Their PASS/FAIL lines must agree, over discrete and unified GPUs,
  // budgets, targets, users and engines, each plan written twice.
  const char* models[] = {"llama-3.1-8b", "llama-3.1-70b", "qwen3-30b-a3b"};
  const char* gpus[] = {"rtx-4090", "h100-sxm", "m3-ultra", "dgx-spark", "mi300x"};
  std::string text = "{\"plans\": [";
  for (int i = 0; i < 120; ++i) {
    const int k = i % 60;  // plans 60..119 repeat 0..59 under other names
    text += std::string(i ? ",\n" : "") + "{\"name\": \"p" + std::to_string(i) +
            "\", \"model\": \"" + models[k % 3] + "\", \"gpu\": \"" + gpus[(k / 3) % 5] +
            "\", \"gpus\": " + std::to_string(1 + k % 2) +
            ", \"context\": " + std::to_string(k % 4 == 0 ? 32768 : 4096) +
            (k % 3 == 0 ? ", \"target_tokens_per_s\": 25" : "") +
            (k % 5 == 1 ? ", \"users\": 8" : "") +
            // Budgets on the discrete GPUs (a whole computer has no separate RAM to budget).
            (k % 7 == 2 && (k / 3) % 5 != 2 && (k / 3) % 5 != 3
                 ? ", \"budget\": {\"power_watts\": 1500, \"ram_gib\": 64}"
                 : "") +
            (k % 11 == 3 ? ", \"engine\": \"vllm\"" : "") + "}";
  }
  text += "]}\n";
  const std::string path = "check_lines_test_plans.json";
  std::ofstream(path, std::ios::binary) << text;
  const Result table = run("check " + path);
  const Result doc = run("check " + path + " --format json");
  std::remove(path.c_str());
  INFO(table.err << doc.err);
  REQUIRE(table.code == doc.code);
  const json j = json::parse(doc.out);
  REQUIRE(j["plans"].size() == 120);
  std::istringstream lines(table.out);
  std::string line;
  size_t i = 0, failed = 0;
  while (std::getline(lines, line)) {
    REQUIRE(i < 120);
    INFO(line);
    CHECK(line == j["plans"][i]["line"].get<std::string>());
    failed += line.rfind("FAIL", 0) == 0;
    ++i;
  }
  CHECK(i == 120);
  // Both outcomes are exercised.
  CHECK(failed > 0);
  CHECK(failed < 120);
}

TEST_CASE("The table keeps within 120 columns, or the width asked, without losing a word",
          "[cli][table]") {
  // #21: lines wrap at their separators, continuations indented to the text column, and the GPU
  // table's cells within their columns; --width 0 prints each line whole. The words are the same
  // either way (as a multiset: a table's cells interleave when they wrap).
  const auto words = [](const std::string& s) {
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string w; in >> w;) v.push_back(w);
    std::sort(v.begin(), v.end());
    return v;
  };
  for (const char* args :
       {"llama-3.3-70b --users 50 --ctx 8192", "deepseek-r1 --engine vllm --users 200 --explain",
        "llama-3.1-70b --gpu rtx-4090 --gpus 4", "qwen3-embedding-8b --engine vllm --docs 256"}) {
    INFO(args);
    for (const int width : {120, 80}) {
      const auto r =
          llmsize::cli_test::run(std::string(args) + " --width " + std::to_string(width));
      REQUIRE(r.code == 0);
      std::istringstream lines(r.out);
      size_t longest = 0;
      for (std::string line; std::getline(lines, line);) longest = std::max(longest, line.size());
      CHECK(longest <= static_cast<size_t>(width));
      const auto whole = llmsize::cli_test::run(std::string(args) + " --width 0");
      CHECK(words(r.out) == words(whole.out));
    }
  }
  const auto bad = llmsize::cli_test::run("70b --width 20");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
}

TEST_CASE("Plan files take the machine class and the usable speed as the flags do",
          "[planning][check]") {
  // "class" is --class, "min_tps" --min-tps (#20: one request builder): a consumer card in a
  // server-class plan is refused at the field's pointer, as the flag refuses it.
  char dir[] = "/tmp/llmsize_class_XXXXXX";
  REQUIRE(mkdtemp(dir));
  const std::string path = std::string(dir) + "/plans.json";
  std::ofstream(path) << R"({"plans": [{"name": "a", "model": "llama-3.1-8b", "gpu": "rtx-4090",
      "class": "server"}]})";
  const auto bad = llmsize::cli_test::run("check " + path);
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err.find("/plans/0/class: no catalog platform of class server takes rtx-4090") !=
        std::string::npos);
  std::ofstream(path) << R"({"plans": [{"name": "b", "model": "llama-3.1-8b", "gpu": "l40s",
      "engine": "vllm", "users": 20, "class": "server", "min_tps": 5}]})";
  const auto ok = llmsize::cli_test::run("check " + path + " -f json");
  CHECK(ok.code == 0);
  std::ofstream(path) << R"({"plans": [{"name": "c", "model": "llama-3.1-8b", "gpu": "l40s",
      "min_tps": -1}]})";
  const auto neg = llmsize::cli_test::run("check " + path);
  CHECK(neg.code == 2);
  CHECK(neg.err.find("/plans/0/min_tps") != std::string::npos);
  std::remove(path.c_str());
  ::rmdir(dir);
}

// #24: flags outside what a command does are refused, not ignored: sweep checks --ram-channels
// against each GPU's machine before its first row; fit plans no machine, launch or comparison.
TEST_CASE("sweep and fit refuse the flags they cannot honour", "[planning][fit][sweep]") {
  const auto s =
      run("sweep --models llama-3.1-70b --gpu rtx-4090 --gpus 1 --ram-channels 24 "
          "--ctx 4096");
  CHECK(s.code == 2);
  CHECK(s.out.empty());
  CHECK(s.err ==
        "llmsize: error: --ram-channels 24: the am5-desktop planned for 1 × rtx-4090 has 2 memory "
        "channels; give 1 to 2\n");
  CHECK(run("sweep --models llama-3.1-70b --gpu rtx-4090 --gpus 1 --ram-channels 2 --ctx 4096")
            .code == 0);
  for (const std::string f : {"--emit vllm", "--compare rtx-4090", "--ram-channels 24"}) {
    INFO(f);
    const auto r = run("fit --gpu rtx-4090 " + f);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("llmsize: error: " + f.substr(0, f.find(' ')) + ": fit ", 0) == 0);
  }
}

// #27: llmsize verify holds published benchmark runs to a plan file's plan. The fixtures are
// real result files (tests/data/bench_results/SOURCES.md): vllm bench serve of Qwen3-32B on
// 8 x H100 SXM and 8 x B200 (TP8, 100 users, 1,024 tokens in / 128 out, one request each), and
// llama-bench of gpt-oss-20b on one RX 7900 XTX.
TEST_CASE("verify: published benchmark runs against the plan they ran", "[planning][verify]") {
  const std::string dir = temp_dir();
  const std::string data = std::string(LLMSIZE_SOURCE_DIR) + "/tests/data/bench_results/";
  const std::string h100 = data + "vllm_bench_serve_h100sxm8_qwen3-32b_tp8_in1024_out128_c100.json";
  const std::string b200 = data + "vllm_bench_serve_b200x8_qwen3-32b_tp8_in1024_out128_c100.json";
  const std::string serving =
      R"("model": "qwen3-32b", "quant": "bf16", "engine": "vllm", "gpus": 8, "tp": 8, )"
      R"("users": 100, "isl": 1024, "osl": 128, "requests_per_user": 1)";
  write(dir + "/p.json", "{\"plans\": [{\"name\": \"h100\", \"gpu\": \"h100-sxm\", " + serving +
                             "}, {\"name\": \"b200\", \"gpu\": \"b200\", " + serving + "}]}");
  // Each delivery against its own plan: every figure within the plan's range, exit 0.
  for (const auto& [name, file] : {std::pair{"h100", h100}, std::pair{"b200", b200}}) {
    const Result r =
        run("verify --plan " + dir + "/p.json --name " + name + " " + file + " -f json");
    INFO(name << "\n" << r.err);
    CHECK(r.code == 0);
    const json j = json::parse(r.out);
    CHECK(j["pass"] == true);
    const json& f = j["runs"][0]["figures"];
    REQUIRE(f.size() == 3);
    CHECK(f[0]["figure"] == "output_tokens_per_s");
    CHECK(f[2]["figure"] == "mean_ttft_s");
    // The measured figures are the file's (output_throughput, mean_ttft_ms).
    CHECK(f[0]["measured"].get<double>() ==
          Approx(name == std::string("h100") ? 3710.63 : 5367.9).epsilon(0.001));
    CHECK(f[0]["measured"].get<double>() >= f[0]["low"].get<double>());
    CHECK(f[2]["measured"].get<double>() <= f[2]["high"].get<double>());
  }
  // A plan with its own prices (the request points into what the reader resolved for it).
  write(dir + "/priced.json", "{\"plans\": [{\"name\": \"h100\", \"gpu\": \"h100-sxm\", " +
                                  serving + ", \"prices\": {\"h100-sxm\": 20000}}]}");
  CHECK(run("verify --plan " + dir + "/priced.json " + h100).code == 0);
  // The H100 delivery held to the B200 plan: its 3,711 output tok/s is below that plan's range.
  const Result miss = run("verify --plan " + dir + "/p.json --name b200 " + h100);
  CHECK(miss.code == 1);
  CHECK(miss.out.find("FAIL ") != std::string::npos);
  CHECK(miss.out.find("output 3,711 tok/s below the plan's lowest") != std::string::npos);
  // JUnit as check writes it.
  const Result ju =
      run("verify --plan " + dir + "/p.json --name b200 " + h100 + " --junit " + dir + "/v.xml");
  CHECK(ju.code == 1);
  const std::string xml = read(dir + "/v.xml");
  CHECK(xml.find("<testsuites name=\"llmsize verify\" tests=\"1\" failures=\"1\"") !=
        std::string::npos);
  // A run of another model is skipped, and nothing compared is a failure.
  write(dir + "/o.json",
        "{\"plans\": [{\"name\": \"l\", \"model\": \"llama-3.1-8b\", \"gpu\": "
        "\"h100-sxm\", \"engine\": \"vllm\", \"users\": 100}]}");
  const Result other = run("verify --plan " + dir + "/o.json " + h100);
  CHECK(other.code == 1);
  CHECK(other.out.find("SKIP ") != std::string::npos);
  CHECK(other.out.find("a run of /workspace/qwen3-32b, not the plan's") != std::string::npos);
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("verify: llama-bench tests against a llama.cpp plan, and bad input",
          "[planning][verify]") {
  const std::string dir = temp_dir();
  const std::string data = std::string(LLMSIZE_SOURCE_DIR) + "/tests/data/bench_results/";
  const std::string h100 = data + "vllm_bench_serve_h100sxm8_qwen3-32b_tp8_in1024_out128_c100.json";
  write(dir + "/p.json",
        R"({"plans": [{"name": "h100", "gpu": "h100-sxm", "model": "qwen3-32b", "engine": "vllm", )"
        R"("users": 100}, {"name": "b200", "gpu": "b200", "model": "qwen3-32b", "engine": "vllm", )"
        R"("users": 100}]})");
  // llama-bench on one RX 7900 XTX: its decode tests within the plan's range, its prompt tests at
  // 128-8,192 tokens far below it (737-2,766 tok/s against the plan's ~9,000: a finding of the
  // acceptance test), the prompt tests after a prefilled context skipped.
  write(dir + "/l.json",
        R"({"plans": [{"name": "x", "model": "gpt-oss-20b", "quant": "mxfp4_moe", )"
        R"("gpu": "rx-7900-xtx", "context": 16384, "kv_quant": "q8_0"}]})");
  const Result lb = run("verify --plan " + dir + "/l.json " + data +
                        "llama_bench_rx7900xtx_rocm712_gpt-oss-20b.json -f json");
  CHECK(lb.code == 1);
  const json lj = json::parse(lb.out);
  size_t decode_pass = 0, prompt_fail = 0, skipped = 0;
  for (const auto& r : lj["runs"]) {
    if (r["verdict"] == "skip") ++skipped;
    if (r["figures"].empty()) continue;
    if (r["figures"][0]["figure"] == "decode_tokens_per_s" && r["verdict"] == "pass") ++decode_pass;
    if (r["figures"][0]["figure"] == "prefill_tokens_per_s" && r["verdict"] == "fail")
      ++prompt_fail;
  }
  CHECK(decode_pass >= 7);
  CHECK(prompt_fail == 7);
  CHECK(skipped == 35);  // prompt tests at depths 512-8,192: 7 lengths x 5 depths
  // Bad input: exit 2, nothing on stdout, the file and the reason.
  write(dir + "/bad.json", "{\"output_throughput\": \"fast\"}");
  const Result bad = run("verify --plan " + dir + "/p.json --name h100 " + dir + "/bad.json");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(
      bad.err.find("bad.json: output_throughput: expected a number of at least 0, got \"fast\"") !=
      std::string::npos);
  const Result two = run("verify --plan " + dir + "/p.json " + h100);
  CHECK(two.code == 2);
  CHECK(two.out.empty());
  CHECK(two.err.find("holds 2 plans: name the one the machine was bought on with --name (h100 or "
                     "b200)") != std::string::npos);
  sh("rm -rf '" + dir + "'");
}

namespace {

// The flags of a command line (words starting with -), and whether each is one its tool
// documents. The lists are the tools' own, at the commits read:
//   vllm bench serve: vllm-project/vllm@009e6d4 vllm/benchmarks/serve.py add_cli_args and
//     @0056b87 vllm/benchmarks/datasets.py add_dataset_parser;
//   python3 -m sglang.bench_serving: sgl-project/sglang@0033168 python/sglang/bench_serving.py;
//   trtllm-bench: NVIDIA/TensorRT-LLM@0c9a37d tensorrt_llm/commands/bench.py, @000a01d
//     tensorrt_llm/bench/benchmark/throughput.py, @0c8de69 tensorrt_llm/bench/dataset/
//     prepare_dataset.py;
//   llama-bench: ggml-org/llama.cpp@0104b15 tools/llama-bench/llama-bench.cpp print_usage.
void check_tool_flags(const std::string& line, const std::vector<std::string>& documented) {
  std::istringstream in(line);
  for (std::string w; in >> w;) {
    if (w.size() < 2 || w[0] != '-' || (w[1] >= '0' && w[1] <= '9')) continue;
    INFO(line << "\n" << w);
    CHECK(std::find(documented.begin(), documented.end(), w) != documented.end());
  }
}

std::string line_starting(const std::string& text, const std::string& start) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.rfind(start, 0) == 0) return l;
  return "";
}

// The plan file the script writes between its heredoc markers.
std::string heredoc_plan(const std::string& script) {
  const std::string open = "<<'LLMSIZE_PLAN'\n";
  const size_t a = script.find(open);
  const size_t b = script.find("LLMSIZE_PLAN\n", a + open.size());
  return a == std::string::npos || b == std::string::npos
             ? std::string()
             : script.substr(a + open.size(), b - a - open.size());
}

}  // namespace

TEST_CASE("emit acceptance: each engine's benchmark with the flags its tool documents",
          "[planning][verify]") {
  const std::string base = "llama-3.3-70b --quant fp8 --gpu h100-sxm --users 64 --emit acceptance";
  const Result v = run(base + " --engine vllm");
  REQUIRE(v.code == 0);
  check_tool_flags(
      line_starting(v.out, "vllm bench serve "),
      {"--backend", "--model", "--host", "--port", "--dataset-name", "--random-input-len",
       "--random-output-len", "--num-prompts", "--max-concurrency", "--request-rate",
       "--ignore-eos", "--percentile-metrics", "--save-result", "--result-filename"});
  const Result s = run(base + " --engine sglang");
  REQUIRE(s.code == 0);
  check_tool_flags(line_starting(s.out, "python3 -m sglang.bench_serving "),
                   {"-m", "--backend", "--host", "--port", "--model", "--dataset-name",
                    "--random-input-len", "--random-output-len", "--random-range-ratio",
                    "--num-prompts", "--max-concurrency", "--request-rate", "--output-file"});
  const Result t = run(base + " --engine trt-llm");
  REQUIRE(t.code == 0);
  check_tool_flags(line_starting(t.out, "trtllm-bench --model ") +
                       line_starting(t.out.substr(t.out.find("throughput")), "trtllm-bench"),
                   {"--model", "--output", "--num-requests", "--input-mean", "--input-stdev",
                    "--output-mean", "--output-stdev", "--dataset", "--backend", "--tp", "--pp",
                    "--concurrency", "--streaming", "--report_json"});
  CHECK(t.out.find(" throughput --dataset llmsize-dataset.jsonl ") != std::string::npos);
  const Result l = run("llama-3.1-8b --gpu rtx-4090 --ctx 8192 --kv-quant q8_0 --emit acceptance");
  REQUIRE(l.code == 0);
  check_tool_flags(line_starting(l.out, "llama-bench "),
                   {"-m", "-ngl", "-p", "-n", "-d", "-r", "-o", "-ctk", "-ctv"});
  CHECK(l.out.find("-p 0 -n 128 -d 8128 -r 5 -o jsonl >> llmsize-acceptance.json") !=
        std::string::npos);
  // Nothing to benchmark: refused, nothing on stdout.
  const Result none = run("llama-3.3-70b --engine vllm --gpu rtx-4090 --gpus 1 --emit acceptance");
  CHECK(none.code == 2);
  CHECK(none.out.empty());
  CHECK(none.err.find("--emit acceptance: the plan's GPUs do not hold the model") !=
        std::string::npos);
}

// The script's plan file is the replica it benchmarks: check passes it, and verify holds a result
// at the plan's predictions to it (PASS) and one at half its output (FAIL).
TEST_CASE("emit acceptance: its plan file and verify close the loop", "[planning][verify]") {
  const std::string dir = temp_dir();
  const Result e =
      run("llama-3.3-70b --quant fp8 --engine vllm --gpu h100-sxm --users 200 --target-tps 20 "
          "--emit acceptance");
  REQUIRE(e.code == 0);
  const std::string plan = heredoc_plan(e.out);
  REQUIRE_FALSE(plan.empty());
  write(dir + "/plan.json", plan);
  const Result c = run("check " + dir + "/plan.json");
  INFO(c.err);
  CHECK(c.code == 0);
  // The replica benchmarked: TP 2 of the 2 replicas, 100 of the 200 users each.
  const json pj = json::parse(plan)["plans"][0];
  CHECK(pj["gpus"] == 2);
  CHECK(pj["tp"] == 2);
  CHECK(pj["users"] == 100);
  // A result at the plan's own figures, then at half its output.
  const Result f = run("verify --plan " + dir + "/plan.json " + dir + "/none.json -f json");
  CHECK(f.code == 2);  // no result file yet
  auto result = [&](double scale) {
    const Result j =
        run("llama-3.3-70b --quant fp8 --engine vllm --gpu h100-sxm --gpus 2 --tp 2 --users 100 "
            "--requests-per-user 10 -f json");
    REQUIRE(j.code == 0);
    const json t = json::parse(j.out)["throughput"];
    json r;
    r["model_id"] = "meta-llama/Llama-3.3-70B-Instruct";
    r["request_rate"] = "inf";
    r["max_concurrency"] = 100;
    r["completed"] = 1000;
    r["total_input_tokens"] = 1000000;
    r["total_output_tokens"] = 1000000;
    r["output_throughput"] = t["output_tokens_per_s"].get<double>() * scale;
    r["mean_ttft_ms"] = t["ttft_s"].get<double>() * 1000;
    r["mean_tpot_ms"] = 1000 / t["per_user_tokens_per_s"].get<double>();
    return r.dump();
  };
  write(dir + "/ok.json", result(1.0));
  const Result ok = run("verify --plan " + dir + "/plan.json " + dir + "/ok.json");
  INFO(ok.out << ok.err);
  CHECK(ok.code == 0);
  write(dir + "/slow.json", result(0.5));
  const Result slow = run("verify --plan " + dir + "/plan.json " + dir + "/slow.json");
  CHECK(slow.code == 1);
  CHECK(slow.out.find("below the plan's lowest") != std::string::npos);
  sh("rm -rf '" + dir + "'");
}

// #27: a plan file's redundancy is the flag's: without "gpus" check sizes the GPUs and the spares
// (its machines are the main command's, one more than the 4 GPUs the users need alone) and says
// n+1 in the PASS line.
TEST_CASE("check: a plan with redundancy buys the spares the main command buys",
          "[planning][check]") {
  const std::string dir = temp_dir();
  write(dir + "/r.json",
        R"({"plans": [{"name": "n1", "model": "llama-3.3-70b", "quant": "fp8", "engine": "vllm", )"
        R"("gpu": "h100-sxm", "users": 200, "target_tokens_per_s": 20, "redundancy": "n+1"}, )"
        R"({"name": "n0", "model": "llama-3.3-70b", "quant": "fp8", "engine": "vllm", )"
        R"("gpu": "h100-sxm", "gpus": 4, "users": 200, "target_tokens_per_s": 20}]})");
  const Result c = run("check -f json " + dir + "/r.json");
  INFO(c.err);
  CHECK(c.code == 0);
  const json j = json::parse(c.out);
  const Result m =
      run("llama-3.3-70b --quant fp8 --engine vllm --gpu h100-sxm --users 200 --target-tps 20 "
          "--redundancy n+1 -f json");
  REQUIRE(m.code == 0);
  const json mj = json::parse(m.out);
  CHECK(j["plans"][0]["report"]["system"]["nodes"] == mj["system"]["nodes"]);
  CHECK(j["plans"][0]["report"]["system"]["nodes"].get<int>() ==
        j["plans"][1]["report"]["system"]["nodes"].get<int>() + 1);
  CHECK(j["plans"][0]["report"]["throughput"]["degraded_meets_target"] == true);
  const Result t = run("check " + dir + "/r.json");
  CHECK(t.out.find(", n+1") != std::string::npos);
  sh("rm -rf '" + dir + "'");
}
