// Launch commands: every flag emitted is one the engine documents, and the values realise the
// plan.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "llmsize/serving/launch.hpp"
#include "llmsize/serving/serving.hpp"

using namespace llmsize;

namespace {

// The documented flags of each command, with where they are documented.
const std::map<std::string, std::set<std::string>>& documented() {
  static const std::map<std::string, std::set<std::string>> d = {
      // vLLM `vllm serve --help` / docs.vllm.ai/en/latest/cli/serve.html, generated from
      // vllm/engine/arg_utils.py EngineArgs.add_cli_args.
      {"vllm",
       {"--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size",
        "--distributed-executor-backend", "--enable-expert-parallel", "--max-model-len",
        "--gpu-memory-utilization", "--max-num-seqs", "--max-num-batched-tokens",
        "--kv-cache-dtype", "--quantization", "--dtype", "--block-size", "--host", "--port",
        // docs.vllm.ai "Tool Calling" and "Reasoning Outputs"; EngineArgs --trust-remote-code,
        // --tokenizer-mode, --config-format, --load-format.
        "--trust-remote-code", "--enable-auto-tool-choice", "--tool-call-parser",
        "--reasoning-parser", "--tokenizer-mode", "--config-format", "--load-format",
        // Multi-node without Ray (docs.vllm.ai deployment/frameworks/lws: --nnodes, --node-rank,
        // --master-addr; workers --headless).
        "--nnodes", "--node-rank", "--master-addr", "--headless"}},
      // Ray CLI (docs.ray.io ray start), as vLLM's multi-node guide runs it.
      {"ray", {"--head", "--port", "--address"}},
      // SGLang docs/advanced_features/server_arguments.md (python/sglang/srt/server_args.py);
      // --ep-size: docs.sglang.io cookbook server_arguments ("ep: --ep-size, Expert Parallelism").
      {"sglang.launch_server",
       {"--model-path",
        "--tp-size",
        "--pp-size",
        "--dp-size",
        "--enable-dp-attention",
        "--ep-size",
        "--nnodes",
        "--node-rank",
        "--dist-init-addr",
        "--context-length",
        "--mem-fraction-static",
        "--max-running-requests",
        "--chunked-prefill-size",
        "--kv-cache-dtype",
        "--quantization",
        "--cuda-graph-max-bs",
        "--host",
        "--port",
        "--trust-remote-code",
        "--tool-call-parser",
        "--reasoning-parser"}},
      // TensorRT-LLM docs/source/commands/trtllm-serve (trtllm-serve --help).
      {"trtllm-serve",
       {"--backend", "--tp_size", "--pp_size", "--ep_size", "--max_batch_size", "--max_num_tokens",
        "--max_seq_len", "--kv_cache_free_gpu_memory_fraction", "--extra_llm_api_options", "--host",
        "--port"}},
      // Open MPI mpirun(1): -np processes, -H host list; TensorRT-LLM's multi-node guide.
      {"mpirun", {"-np", "-H"}},
      // llama.cpp tools/server/README.md.
      {"llama-server",
       {"-m", "-ngl", "-sm", "-ts", "--n-cpu-moe", "--cpu-moe", "-c", "-np", "-kvu", "-fa", "-ctk",
        "-ctv", "-b", "-ub", "--host", "--port"}},
      // Ollama CLI: ollama create -f (docs/modelfile.md).
      {"ollama", {"-f"}},
  };
  return d;
}

void check_documented(const std::string& script) {
  const auto flags = launch_flags(script);
  REQUIRE_FALSE(flags.empty());
  for (const auto& f : flags) {
    INFO(script << "\ncommand " << f.command << " flag " << f.flag);
    const auto it = documented().find(f.command);
    REQUIRE(it != documented().end());
    CHECK(it->second.count(f.flag) == 1);
  }
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A launch plan of `model` on `engine` over tp x pp GPUs; the rest at LaunchPlan's defaults.
LaunchPlan plan(Engine engine, const std::string& model, uint32_t tp = 1, uint32_t pp = 1) {
  LaunchPlan p;
  p.engine = engine;
  p.model = model;
  p.tp = tp;
  p.pp = pp;
  return p;
}

}  // namespace

TEST_CASE("vllm serve realises a TP plan with FP8 KV and the memory fraction", "[launch]") {
  auto p = plan(Engine::vllm, "nvidia/Llama-3.3-70B-Instruct-FP8", 4);
  p.max_model_len = 5500;
  p.memory_fraction = 0.9;
  p.max_num_seqs = 64;
  p.max_num_batched_tokens = 8192;
  p.kv = KvDtype::fp8_e4m3;
  const auto s = launch_script(p);
  CHECK(s ==
        "vllm serve 'nvidia/Llama-3.3-70B-Instruct-FP8' --tensor-parallel-size 4 --max-model-len "
        "5500 --gpu-memory-utilization 0.90 --max-num-seqs 64 --max-num-batched-tokens 8192 "
        "--kv-cache-dtype fp8_e4m3 --host 0.0.0.0 --port 8000\n");
  check_documented(s);
}

TEST_CASE("Replicas get their own GPUs and ports, past one node vLLM uses Ray", "[launch]") {
  auto p = plan(Engine::vllm, "meta-llama/Llama-3.1-8B-Instruct", 2);
  p.replicas = 4;
  const auto s = launch_script(p);
  CHECK(has(s, "CUDA_VISIBLE_DEVICES=0,1 vllm serve"));
  CHECK(has(s, "CUDA_VISIBLE_DEVICES=6,7 vllm serve"));
  CHECK(has(s, "--port 8003 &"));
  check_documented(s);
  // Each vendor's runtime selects devices by its own variable (#21): ROCm's HIP, Gaudi's modules.
  CHECK(std::string(device_selection_variable({"rocm", "vulkan"})) == "HIP_VISIBLE_DEVICES");
  CHECK(std::string(device_selection_variable({"habana"})) == "HABANA_VISIBLE_MODULES");
  CHECK(std::string(device_selection_variable({"sycl", "vulkan"})) == "ZE_AFFINITY_MASK");
  CHECK(std::string(device_selection_variable({"cuda", "vulkan"})) == "CUDA_VISIBLE_DEVICES");
  p.devices_variable = device_selection_variable({"rocm"});
  CHECK(has(launch_script(p), "HIP_VISIBLE_DEVICES=2,3 vllm serve"));
  CHECK_FALSE(has(launch_script(p), "CUDA_VISIBLE_DEVICES"));
  const auto r = launch_script(plan(Engine::vllm, "meta-llama/Llama-3.1-405B-Instruct", 8, 2));
  CHECK(has(r, "ray start --head --port=6379"));
  CHECK(has(r, "ray start --address=HEAD_NODE_IP:6379"));
  CHECK(has(r, "--pipeline-parallel-size 2 --distributed-executor-backend ray"));
  check_documented(r);
}

TEST_CASE("SGLang: one command per node with --nnodes and --node-rank", "[launch]") {
  auto p = plan(Engine::sglang, "Qwen/Qwen3-235B-A22B-FP8", 8, 2);
  p.memory_fraction = 0.836;
  p.kv = KvDtype::fp8_e5m2;
  p.max_num_batched_tokens = 8192;
  const auto s = launch_script(p);
  CHECK(has(s,
            "--tp-size 8 --pp-size 2 --nnodes 2 --node-rank 0 --dist-init-addr "
            "HEAD_NODE_IP:5000"));
  CHECK(has(s, "--node-rank 1"));
  CHECK(has(s, "--mem-fraction-static 0.836"));
  CHECK(has(s, "--kv-cache-dtype fp8_e5m2"));
  CHECK(has(s, "--chunked-prefill-size 8192"));
  check_documented(s);
  p.pp = 1;
  p.attention_dp = true;
  check_documented(launch_script(p));
}

TEST_CASE("trtllm-serve with the KV dtype in the extra options file, mpirun past one node",
          "[launch]") {
  auto p = plan(Engine::trt_llm, "nvidia/Llama-3.1-405B-Instruct-FP8", 8, 2);
  p.kv = KvDtype::fp8_e4m3;
  p.max_num_seqs = 2048;
  p.max_num_batched_tokens = 8192;
  p.memory_fraction = 0.9;
  const auto s = launch_script(p);
  CHECK(has(s, "kv_cache_config:\n  dtype: fp8\n"));
  CHECK(has(s, "mpirun -np 16 -H HEAD_NODE_IP:8,NODE1_IP:8 trtllm-llmapi-launch trtllm-serve"));
  CHECK(has(s, "--kv_cache_free_gpu_memory_fraction 0.90"));
  CHECK(has(s, "--extra_llm_api_options extra_llm_api_options.yaml"));
  check_documented(s);
}

TEST_CASE("llama-server: layers split by -ts, -c covers every slot, quantized KV", "[launch]") {
  auto p = plan(Engine::llama_cpp, "Llama-3.3-70B-Instruct-Q4_K_M.gguf");
  p.layers_per_gpu = {40, 40};
  p.max_model_len = 8192;
  p.max_num_seqs = 4;
  p.kv = KvDtype::q8_0;
  const auto s = launch_script(p);
  CHECK(s ==
        "llama-server -m 'Llama-3.3-70B-Instruct-Q4_K_M.gguf' -ngl 999 -sm layer -ts 40,40 -c "
        "32768 -np 4 -fa on -ctk q8_0 -ctv q8_0 --host 0.0.0.0 --port 8000\n");
  check_documented(s);
}

TEST_CASE("Ollama: environment, Modelfile and create", "[launch]") {
  auto p = plan(Engine::ollama, "llama3.1:8b");
  p.max_model_len = 8192;
  p.max_num_seqs = 4;
  p.kv = KvDtype::q8_0;
  const auto s = launch_script(p);
  CHECK(has(s,
            "OLLAMA_NUM_PARALLEL=4 OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 "
            "OLLAMA_CONTEXT_LENGTH=8192"));
  CHECK(has(s, "FROM llama3.1:8b\nPARAMETER num_ctx 8192\n"));
  check_documented(s);
}

TEST_CASE("A deployment maps to its launch plan", "[launch]") {
  Deployment d;
  d.engine = Engine::vllm;
  d.tp = 2;
  d.replicas = 2;
  d.kv = KvDtype::fp8_e4m3;
  d.limits = engine_limits(Engine::vllm, 80ull << 30, false, 2, 1);
  Workload w;
  w.isl = 5000;
  w.osl = 500;
  w.users = 50;
  const auto p = launch_plan(d, w, 80, 8, "nvidia/Llama-3.3-70B-Instruct-FP8");
  CHECK(p.max_model_len == 5500);
  CHECK(p.memory_fraction == 0.9);
  CHECK(p.max_num_seqs == 1024);
  const auto s = launch_script(p);
  CHECK(s.find("CUDA_VISIBLE_DEVICES=2,3 vllm serve 'nvidia/Llama-3.3-70B-Instruct-FP8' "
               "--tensor-parallel-size 2 --max-model-len 5500") != std::string::npos);
  check_documented(s);
  // llama.cpp: one slot per user, layers split over the GPUs.
  d.engine = Engine::llama_cpp;
  d.kv = KvDtype::q8_0;
  d.replicas = 1;
  w.users = 4;
  const auto l = launch_plan(d, w, 81, 8, "model.gguf");
  CHECK(l.max_num_seqs == 4);
  CHECK(l.layers_per_gpu == std::vector<uint32_t>{41, 40});
  check_documented(launch_script(l));
}

TEST_CASE("shell_quote makes any byte string one POSIX shell word", "[launch]") {
  auto [in, out] = GENERATE(table<std::string, std::string>({
      // Inside single quotes nothing is special (POSIX.1-2017 2.2.3); a quote is closed, escaped
      // and reopened: ' -> '\''.
      {"meta-llama/Llama-3.1-8B", "'meta-llama/Llama-3.1-8B'"},
      {"m;echo PWNED>>CANARY;x", "'m;echo PWNED>>CANARY;x'"},
      {"$(id) `id` $HOME *", "'$(id) `id` $HOME *'"},
      {"it's", "'it'\\''s'"},
      {"'", "''\\'''"},
      {"", "''"},
  }));
  CHECK(shell_quote(in) == out);
}

TEST_CASE("Every word a launch command takes from its plan is one shell word", "[launch]") {
  // The host, the head node's address and the quantization are plain words in every plan llmsize
  // makes; a LaunchPlan built by other code may carry anything, and the script still runs only
  // the engine.
  for (const Engine e :
       {Engine::vllm, Engine::sglang, Engine::trt_llm, Engine::llama_cpp, Engine::ollama}) {
    auto p = plan(e, "m", 16, 1);
    p.host = "0.0.0.0;touch CANARY";
    p.head_address = "$(touch CANARY)";
    p.quantization = "fp8 && touch CANARY";
    const std::string s = launch_script(p);
    INFO(s);
    for (const auto& f : launch_flags(s)) CHECK(f.flag.find("CANARY") == std::string::npos);
    CHECK_FALSE(has(s, " --host 0.0.0.0;"));
    CHECK_FALSE(has(s, "=0.0.0.0;touch"));
    CHECK_FALSE(has(s, " $(touch"));
    CHECK_FALSE(has(s, "=$(touch"));
    CHECK_FALSE(has(s, " fp8 && touch"));
  }
}

TEST_CASE("A model name no launch command can carry is named with the reason", "[launch]") {
  struct Case {
    std::string value;
    Engine engine;
    std::string problem;  // "" = carried
  };
  const std::string control =
      "holds a control, invisible or non-UTF-8 character (shown escaped), which a pasted command "
      "would carry to the terminal or break on";
  for (const Case& c : std::vector<Case>{
           {"dir/m;echo x/", Engine::vllm, ""},
           {"caf\xc3\xa9", Engine::ollama, ""},
           {"", Engine::vllm, "is empty"},
           {"a\nEOF", Engine::ollama, control},
           {"a\x1b[31m", Engine::vllm, control},
           {"x\xd8\x9c", Engine::sglang, control},  // U+061C ARABIC LETTER MARK
           {"\xff", Engine::llama_cpp, control},
           {"-rf", Engine::vllm, "starts with '-', which the engine would read as an option"},
           // U+00A0 and U+E000: Go's strconv.IsPrint drops them from a Modelfile value.
           {"a\xc2\xa0"
            "b",
            Engine::vllm, ""},
           {"a\xc2\xa0"
            "b",
            Engine::ollama,
            "holds a character Ollama's Modelfile parser drops (a Unicode space other than "
            "U+0020, a format or a private-use character)"},
           {"a\xee\x80\x80", Engine::ollama,
            "holds a character Ollama's Modelfile parser drops (a Unicode space other than "
            "U+0020, a format or a private-use character)"},
       }) {
    INFO(c.value);
    CHECK(launch_value_problem(c.value, c.engine) == c.problem);
  }
}

TEST_CASE("Ollama's FROM is written so its parser reads back the same path", "[launch]") {
  // parser.go unquote(): a value opening and closing with """ loses them; one opening with a
  // quote must close with one; a leading '~' is a home directory to expandPath().
  auto [in, line] = GENERATE(table<std::string, std::string>({
      {"m.gguf", "FROM m.gguf\n"},
      {"a b.gguf", "FROM a b.gguf\n"},
      {"\"q\".gguf", "FROM \"\"\"\"q\".gguf\"\"\"\n"},
      {" lead.gguf", "FROM \"\"\" lead.gguf\"\"\"\n"},
      {"trail.gguf ", "FROM \"\"\"trail.gguf \"\"\"\n"},
      {"x\"\"\"y.gguf", "FROM x\"\"\"y.gguf\n"},
      {"~x/m.gguf", "FROM ./~x/m.gguf\n"},
  }));
  auto p = plan(Engine::ollama, in);
  CHECK(has(launch_script(p), "cat > Modelfile <<'EOF'\n" + line));
}

TEST_CASE("Launch commands pass the model's deployment guide: its code, tool and reasoning parsers",
          "[launch]") {
  // DeepSeek-R1 as vLLM's recipe serves it (vllm-project/recipes DeepSeek-R1.yaml): its code,
  // --enable-auto-tool-choice --tool-call-parser deepseek_v3, --reasoning-parser deepseek_r1;
  // the chat template the recipe takes from vLLM's examples/ is named in a comment.
  auto p = plan(Engine::vllm, "deepseek-ai/DeepSeek-R1", 8);
  p.flags.trust_remote_code = true;
  p.flags.tool_call_parser = "deepseek_v3";
  p.flags.reasoning_parser = "deepseek_r1";
  p.flags.tool_chat_template = "examples/tool_chat_template_deepseekr1.jinja";
  const auto s = launch_script(p);
  CHECK(s ==
        "# tool calls as the model's guide runs them: add --chat-template with vLLM's "
        "examples/tool_chat_template_deepseekr1.jinja (in its source tree, not in the installed "
        "package)\n"
        "vllm serve 'deepseek-ai/DeepSeek-R1' --tensor-parallel-size 8 --trust-remote-code "
        "--enable-auto-tool-choice --tool-call-parser deepseek_v3 --reasoning-parser deepseek_r1 "
        "--host 0.0.0.0 --port 8000\n");
  check_documented(s);
  // SGLang names the same parsers its own way, without --enable-auto-tool-choice.
  auto g = plan(Engine::sglang, "Qwen/Qwen3-32B", 2);
  g.flags.tool_call_parser = "qwen25";
  g.flags.reasoning_parser = "qwen3";
  const auto t = launch_script(g);
  CHECK(has(t, " --tool-call-parser qwen25 --reasoning-parser qwen3 --host"));
  CHECK_FALSE(has(t, "--enable-auto-tool-choice"));
  check_documented(t);
  // Mistral's formats (its model card's vllm serve line).
  auto m = plan(Engine::vllm, "mistralai/Mistral-Small-3.2-24B-Instruct-2506", 2);
  m.flags.args = {"--tokenizer-mode", "mistral",       "--config-format",
                  "mistral",          "--load-format", "mistral"};
  check_documented(launch_script(m));
  // A value that is not a plain word (a plan filled in code, not by the catalog reader) is
  // still one shell word, and a flag the engine does not document is quoted, not run.
  auto h = plan(Engine::vllm, "m", 1);
  h.flags.reasoning_parser = "x; touch pwned";
  h.flags.args = {"--load-format", "$(id)", "--evil", "1"};
  const auto hs = launch_script(h);
  CHECK(has(hs, " --reasoning-parser 'x; touch pwned' --load-format '$(id)' '--evil' 1 "));
  // Only vLLM and SGLang guides exist; the others pass nothing.
  ModelServingGuide guide;
  guide.vllm.tool_call_parser = "hermes";
  CHECK(guide_flags(guide, Engine::transformers).tool_call_parser == "hermes");
  CHECK(guide_flags(guide, Engine::trt_llm).tool_call_parser.empty());
  CHECK(guide_flag_problem("--load-format", Engine::vllm).empty());
  CHECK_FALSE(guide_flag_problem("--load-format", Engine::sglang).empty());
}

TEST_CASE("A Kubernetes manifest runs each replica as the plan lays it out", "[launch]") {
  // 405B on 2 machines of 8 H100: one LeaderWorkerSet group of 2 pods, 8 GPUs each, vLLM's own
  // multi-node launch (the leader rank 0, workers headless at their LWS index).
  auto p = plan(Engine::vllm, "meta-llama/Llama-3.1-405B-Instruct", 8, 2);
  p.gpus_per_node = 8;
  REQUIRE(kubernetes_problem(p).empty());
  const std::string m = kubernetes_manifest(p);
  CHECK(has(m, "kind: LeaderWorkerSet\n"));
  CHECK(has(m, "    size: 2\n"));
  CHECK(has(m, "nvidia.com/gpu: \"8\""));
  CHECK(has(m,
            "--nnodes $(LWS_GROUP_SIZE) --node-rank 0 --master-addr $(LWS_LEADER_ADDRESS) "
            "--host 0.0.0.0"));
  CHECK(has(m, "--node-rank $(LWS_WORKER_INDEX) --master-addr $(LWS_LEADER_ADDRESS) --headless"));
  CHECK(has(m, "leaderworkerset.sigs.k8s.io/name: llmsize-llama-3-1-405b-instruct\n"));
  // Each engine line's flags are ones vLLM documents.
  std::istringstream lines(m);
  for (std::string line; std::getline(lines, line);)
    if (has(line, "vllm serve")) check_documented(line);
  // Replicas inside one machine: a Deployment of pods of TP x PP GPUs.
  auto d = plan(Engine::sglang, "Qwen/Qwen3-32B", 2);
  d.replicas = 4;
  const std::string dm = kubernetes_manifest(d);
  CHECK(has(dm, "kind: Deployment\n"));
  CHECK(has(dm, "  replicas: 4\n"));
  CHECK(has(dm, "nvidia.com/gpu: \"2\""));
  CHECK(has(dm, "image: lmsysorg/sglang:latest"));
  // A '$' of the model's name is doubled: Kubernetes expands $(VAR) in args before the shell.
  CHECK(has(kubernetes_manifest(plan(Engine::vllm, "/m/$(HOME)", 1)), "'/m/$$(HOME)'"));
  // So is one in any other value from the plan; the LWS variables llmsize writes are not.
  auto x = plan(Engine::vllm, "m", 8, 2);
  x.flags.reasoning_parser = "$(id)";
  const std::string xm = kubernetes_manifest(x);
  CHECK(has(xm, " --reasoning-parser '$$(id)' "));
  CHECK(has(xm, "--master-addr $(LWS_LEADER_ADDRESS)"));
  // AMD GPUs: the device plugin's amd.com/gpu and ROCm's vLLM image; no known SGLang one.
  auto a = plan(Engine::vllm, "meta-llama/Llama-3.3-70B-Instruct", 2);
  a.devices_variable = "HIP_VISIBLE_DEVICES";
  CHECK(has(kubernetes_manifest(a), "amd.com/gpu: \"2\""));
  CHECK(has(kubernetes_manifest(a), "image: rocm/vllm:latest"));
  a.engine = Engine::sglang;
  CHECK(has(kubernetes_problem(a), "no SGLang image for ROCm"));
  CHECK(has(kubernetes_problem(plan(Engine::trt_llm, "x", 1)), "vLLM and SGLang"));
}

// #22: the kernels the plan's speed assumes are the ones the launch files start: vLLM's FlashInfer
// MXFP4 x MXFP8 MoE on a B200 needs VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1 in the engine's
// environment (moe_kernel_environment), exported before the commands and set in each pod.
TEST_CASE("The launch files set the environment the plan's kernels need", "[launch]") {
  auto p = plan(Engine::vllm, "openai/gpt-oss-120b", 1);
  p.environment = {"VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1"};
  const std::string s = launch_script(p);
  CHECK(s.rfind("# on every machine that runs the engine, before it starts:\n"
                "export VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1\n"
                "vllm serve 'openai/gpt-oss-120b' --tensor-parallel-size 1",
                0) == 0);
  const std::string m = kubernetes_manifest(p);
  CHECK(
      has(m, "  env:\n            - {name: VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8, value: \"1\"}\n"));
  // None needed: nothing written.
  p.environment.clear();
  CHECK(launch_script(p).rfind("vllm serve", 0) == 0);
  CHECK_FALSE(has(kubernetes_manifest(p), "env:"));
}
