// Launch commands that realise a serving plan, as text: vllm serve, sglang launch_server,
// trtllm-serve, llama-server, Ollama (environment + Modelfile). Past one node, the engine's own
// distributed runtime: Ray for vLLM, --nnodes/--node-rank for SGLang, mpirun +
// trtllm-llmapi-launch for TensorRT-LLM. llmsize plans for these engines; it runs none of them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "llmsize/engine.hpp"
#include "llmsize/serving/speculative.hpp"

namespace llmsize {

// What a model's own deployment guide passes one engine (#21), from the model catalog's
// "serving" object with its source: vLLM recipes, SGLang's cookbook, the model card.
struct EngineFlags {
  bool trust_remote_code = false;  // --trust-remote-code: the checkpoint's own Python code
  std::string tool_call_parser;    // vLLM adds --enable-auto-tool-choice with it
  std::string reasoning_parser;
  // The guide's chat template for tool calls, a file of the engine's source tree
  // ("examples/tool_chat_template_deepseekr1.jinja"): named in a comment, as an installed
  // engine does not carry it.
  std::string tool_chat_template;
  std::vector<std::string> args;  // further flags with their values (--tokenizer-mode mistral)
};

struct ModelServingGuide {
  bool reasoning = false;  // thinks before it answers: long outputs, so the model's own context
  EngineFlags vllm, sglang;
  std::string source;
};

// The flags of `guide` for `engine` (vLLM's for transformers, whose launch is vLLM's); none for
// an engine the guides do not cover.
const EngineFlags& guide_flags(const ModelServingGuide& guide, Engine engine);

// Why `flag` cannot be a further flag of a guide for `engine`, or "" when it can: the launch
// commands print only flags their engine documents (tests/launch_test.cpp).
std::string guide_flag_problem(std::string_view flag, Engine engine);

struct LaunchPlan {
  Engine engine = Engine::vllm;
  std::string model;  // Hugging Face repo id or local path (a .gguf file for llama.cpp/Ollama)
  uint32_t tp = 1, pp = 1, replicas = 1;
  uint32_t gpus_per_node = 8;
  bool attention_dp = false;   // MoE: attention data parallel + expert parallel
  uint32_t max_model_len = 0;  // tokens per sequence; 0 = the model's default
  double memory_fraction = 0;  // 0 = the engine's default
  uint32_t max_num_seqs = 0;   // 0 = the engine's default
  uint32_t max_num_batched_tokens = 0;
  KvDtype kv = KvDtype::bf16;  // bf16/f16 = the engine's "auto" (the model's dtype)
  std::string quantization;    // "" = read from the checkpoint's quantization_config
  std::string host = "0.0.0.0";
  uint32_t port = 8000;
  std::string head_address = "HEAD_NODE_IP";  // first node, for multi-node layouts
  // llama.cpp / Ollama: layers per GPU for --tensor-split (empty = one GPU or even split).
  std::vector<uint32_t> layers_per_gpu;
  bool flash_attn = true;
  // llama-server: --n-cpu-moe N (kAllBlocks: --cpu-moe), the experts kept in system RAM.
  uint32_t n_cpu_moe = 0;
  bool kv_unified = false;  // llama-server -kvu: the slots share one KV stream
  std::string draft;        // llama-server -md: the draft model's GGUF; empty: none
  // Disaggregated prefill and decode (Deployment::prefill_workers): workers of prefill_tp GPUs
  // before the decode replicas (tp, pp, replicas above); 0: none.
  uint32_t prefill_workers = 0, prefill_tp = 1;
  // Speculative decoding (--spec): the draft, its tokens per step and the repository of an
  // EAGLE-3 head or draft model (empty for mtp: the checkpoint's own layers).
  SpecMethod spec = SpecMethod::none;
  uint32_t spec_tokens = 0;
  std::string spec_model;
  // The variable that gives each replica its own devices (device_selection_variable).
  std::string devices_variable = "CUDA_VISIBLE_DEVICES";
  EngineFlags flags;  // the model's deployment guide for this engine
  // "NAME=value" the engine's processes run with: the kernels the plan's speed assumes
  // (moe_kernel_environment).
  std::vector<std::string> environment;
  uint32_t nodes() const {
    const uint32_t span = tp * pp;
    return span > gpus_per_node ? (span + gpus_per_node - 1) / gpus_per_node : 1;
  }
};

// The launch plan of a deployment: its degrees, replicas, KV dtype and limits; max_model_len
// from the deployment (else isl + osl); llama.cpp/Ollama slots = users per replica and layers
// split evenly over tp x pp GPUs (-ts). The wiring's one mapping from a plan to --emit.
struct Deployment;
struct Workload;
LaunchPlan launch_plan(const Deployment& d, const Workload& w, uint32_t n_layer,
                       uint32_t gpus_per_node, const std::string& model);

// The environment variable that selects a process's devices on a GPU of these software stacks
// (GpuSpec::backends, the first one the GPU's own): CUDA_VISIBLE_DEVICES (NVIDIA CUDA),
// HIP_VISIBLE_DEVICES (AMD ROCm, ROCm docs "GPU isolation techniques"),
// HABANA_VISIBLE_MODULES (Intel Gaudi, Gaudi docs "Multiple Tenants on HPU"), ZE_AFFINITY_MASK
// (Intel GPUs through Level Zero / SYCL); "" where none applies (Apple's one GPU).
const char* device_selection_variable(const std::vector<std::string>& backends);

// The commands, one per line, with the replicas' GPU assignment and, past one node, what to run
// on each node. REQUIRES: p.tp, p.pp, p.replicas > 0, p.model non-empty.
std::string launch_script(const LaunchPlan& p);

// A Kubernetes manifest that runs the plan on a cluster (#21), for vLLM and SGLang (transformers:
// vLLM's): replicas that fit one machine as a Deployment of pods of TP x PP GPUs each; a replica
// spanning machines as a LeaderWorkerSet (kubernetes-sigs/lws) of one group per replica and one
// pod per machine, launched by the engine's own multi-node runtime (vLLM --nnodes / --node-rank /
// --master-addr, workers --headless; SGLang --dist-init-addr / --nnodes / --node-rank); a Service
// in front of the pods that serve HTTP. REQUIRES: kubernetes_problem(p) is empty.
std::string kubernetes_manifest(const LaunchPlan& p);

// Why the plan has no manifest, or "": an engine without a Kubernetes launch here (TensorRT-LLM,
// llama.cpp, Ollama), a device without a known image and device plugin resource, attention data
// parallel across machines (vLLM's data-parallel ranks take their own addresses).
std::string kubernetes_problem(const LaunchPlan& p);

// `s` as one POSIX shell word: inside single quotes, each quote written '\'' (POSIX.1-2017
// Shell Command Language 2.2.3: nothing inside single quotes is special). Every value of a launch
// command that comes from input (paths, repo ids) is printed through it.
std::string shell_quote(std::string_view s);

// Why `value` (a model path or repo id) cannot be printed into a launch command for `engine` as
// the same name, or "" when it can: it is empty; it holds a character that would reach the
// terminal unseen or that no quoting carries (a control, invisible or non-UTF-8 character: a
// newline would also end Ollama's heredoc and Modelfile line); it starts with '-' (an option to
// the engine); for Ollama, it holds a character the Modelfile parser drops.
std::string launch_value_problem(std::string_view value, Engine engine);

// An option token (starting with "-") the script passes to a command ("vllm", "ray",
// "sglang.launch_server", "trtllm-serve", "mpirun", "llama-server", "ollama"), "=value" cut off;
// heredoc bodies (config files) are skipped.
struct LaunchFlag {
  std::string command;
  std::string flag;
};
std::vector<LaunchFlag> launch_flags(const std::string& script);

}  // namespace llmsize
