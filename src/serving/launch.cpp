#include "llmsize/serving/launch.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>

#include "llmsize/sanitize.hpp"
#include "llmsize/serving/placement.hpp"
#include "llmsize/serving/serving.hpp"

namespace llmsize {
namespace {

// Ollama's Modelfile value (parser/parser.go at 00dc3af8, ParseFile + unquote): the rest of the
// line, trimmed; a value opening with """ and closing with """ loses them, one opening and closing
// with a double quote loses those. So a value that starts or ends with a space or starts with a
// quote is written inside """ ... """, which unquote() strips whatever the value holds between.
// A relative path starting with '~' gets "./": expandPath() reads "~user" as a home directory.
std::string modelfile_value(const std::string& s) {
  const std::string v = s.front() == '~' ? "./" + s : s;
  const bool plain = v.front() != '"' && v.front() != ' ' && v.back() != ' ';
  return plain ? v : "\"\"\"" + v + "\"\"\"";
}

std::string num(double v, const char* fmt = "%.2f") {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string u(uint64_t v) {
  return std::to_string(v);
}

// `s` as a JSON string, which YAML also reads as a double-quoted scalar: '"' and '\' escaped
// (launch_value_problem keeps control characters out of every value).
std::string json_quote(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

// A value from a catalog or the command line as one shell word: as it is when the shell reads
// it so (letters, digits and _ . , / : = @ % + -, not opening with '-' or empty), else through
// shell_quote. The catalog reader admits only such words; this holds the command to it whatever
// filled the plan.
std::string shell_word(std::string_view s) {
  const bool plain = !s.empty() && s.front() != '-' && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_.,/:=@%+-", c) != nullptr;
  });
  return plain ? std::string(s) : shell_quote(s);
}

}  // namespace

const EngineFlags& guide_flags(const ModelServingGuide& guide, Engine engine) {
  static const EngineFlags kNone;
  switch (engine) {
    case Engine::vllm:
    case Engine::transformers:
      return guide.vllm;
    case Engine::sglang:
      return guide.sglang;
    case Engine::trt_llm:
    case Engine::llama_cpp:
    case Engine::ollama:
      break;
  }
  return kNone;
}

std::string guide_flag_problem(std::string_view flag, Engine engine) {
  // vLLM EngineArgs (vllm/engine/arg_utils.py): the tokenizer, config and weight formats Mistral's
  // and DeepSeek's guides set. SGLang's guides set nothing beyond their parsers.
  static constexpr std::string_view kVllm[] = {"--tokenizer-mode", "--config-format",
                                               "--load-format"};
  if (engine == Engine::vllm)
    for (const auto f : kVllm)
      if (flag == f) return "";
  return std::string("is not a flag llmsize passes to ") +
         (engine == Engine::vllm ? "vllm serve (--tokenizer-mode, --config-format, "
                                   "--load-format)"
                                 : "this engine");
}

const char* device_selection_variable(const std::vector<std::string>& backends) {
  static const struct {
    const char* backend;
    const char* variable;
  } kVariables[] = {{"cuda", "CUDA_VISIBLE_DEVICES"},
                    {"rocm", "HIP_VISIBLE_DEVICES"},
                    {"habana", "HABANA_VISIBLE_MODULES"},
                    {"sycl", "ZE_AFFINITY_MASK"},
                    {"metal", ""}};
  if (backends.empty()) return "CUDA_VISIBLE_DEVICES";
  for (const auto& v : kVariables)
    if (backends.front() == v.backend) return v.variable;
  return "CUDA_VISIBLE_DEVICES";
}

namespace {

// "0,1,2,3": the GPUs of replica r when each takes `span` GPUs and a node has `per_node`.
std::string devices(uint32_t r, uint32_t span, uint32_t per_node) {
  const uint32_t per = span <= per_node ? per_node / span : 1;
  const uint32_t first = (r % per) * span;
  std::string s;
  for (uint32_t i = 0; i < std::min(span, per_node); ++i) s += (i ? "," : "") + u(first + i);
  return s;
}

uint32_t node_of(uint32_t r, uint32_t span, uint32_t per_node) {
  if (span >= per_node) return r * ((span + per_node - 1) / per_node);
  return r / (per_node / span);
}

// The model's deployment guide (EngineFlags): its own code, tool-call and reasoning parsers (vLLM:
// docs.vllm.ai "Tool Calling" --enable-auto-tool-choice --tool-call-parser, "Reasoning Outputs"
// --reasoning-parser; SGLang server_arguments.md --tool-call-parser / --reasoning-parser), and
// further flags the catalog reader checked against guide_flag_problem().
void guide(const EngineFlags& f, std::ostringstream& o, bool vllm_flags) {
  if (f.trust_remote_code) o << " --trust-remote-code";
  if (!f.tool_call_parser.empty())
    o << (vllm_flags ? " --enable-auto-tool-choice" : "") << " --tool-call-parser "
      << shell_word(f.tool_call_parser);
  if (!f.reasoning_parser.empty()) o << " --reasoning-parser " << shell_word(f.reasoning_parser);
  // Flags and values alternate; a flag prints as it is only when the engine documents it.
  const Engine engine = vllm_flags ? Engine::vllm : Engine::sglang;
  for (size_t i = 0; i < f.args.size(); ++i)
    o << " "
      << (i % 2 == 0 && guide_flag_problem(f.args[i], engine).empty() ? f.args[i]
                                                                      : shell_word(f.args[i]));
}

// A chat template the guide takes from the engine's source tree: named, as a pip-installed engine
// does not ship its examples/ directory.
void template_comment(const EngineFlags& f, const char* engine, std::ostringstream& o) {
  if (f.tool_chat_template.empty() || f.tool_call_parser.empty()) return;
  o << "# tool calls as the model's guide runs them: add --chat-template with " << engine << "'s "
    << shell_word(f.tool_chat_template) << " (in its source tree, not in the installed package)\n";
}

// Replicas that fit in a node share it, each on its own GPUs and port.
template <class F>
void per_replica(const LaunchPlan& p, std::ostringstream& o, F line) {
  const uint32_t span = p.tp * p.pp;
  for (uint32_t r = 0; r < p.replicas; ++r) {
    if (p.replicas > 1) {
      o << "# replica " << r + 1 << " of " << p.replicas << ", node "
        << node_of(r, span, p.gpus_per_node) << "\n";
      if (!p.devices_variable.empty())
        o << p.devices_variable << "=" << devices(r, span, p.gpus_per_node) << " ";
    }
    line(p.port + (p.replicas > 1 && span < p.gpus_per_node ? r % (p.gpus_per_node / span) : 0));
    o << (p.replicas > 1 ? " &\n" : "\n");
  }
}

// The FP8 KV cache and the load-time quantization, flags vLLM and SGLang spell alike
// (--kv-cache-dtype fp8_e4m3 | fp8_e5m2, --quantization METHOD).
void kv_dtype_and_quantization(const LaunchPlan& p, std::ostringstream& o) {
  if (p.kv == KvDtype::fp8_e4m3) o << " --kv-cache-dtype fp8_e4m3";
  if (p.kv == KvDtype::fp8_e5m2) o << " --kv-cache-dtype fp8_e5m2";
  if (!p.quantization.empty()) o << " --quantization " << shell_word(p.quantization);
}

// vllm serve's engine flags for the plan (docs.vllm.ai serve CLI, vllm/engine/arg_utils.py
// EngineArgs), after the model and before the distributed and network flags.
void vllm_flags(const LaunchPlan& p, std::ostringstream& o) {
  // Attention data parallel with the experts split: one attention rank per GPU
  // (docs.vllm.ai expert parallel deployment: -tp 1 --data-parallel-size N
  // --enable-expert-parallel).
  o << " --tensor-parallel-size " << (p.attention_dp ? 1 : p.tp);
  if (p.attention_dp) o << " --data-parallel-size " << p.tp << " --enable-expert-parallel";
  if (p.pp > 1) o << " --pipeline-parallel-size " << p.pp;
}

// Speculative decoding as vLLM takes it (docs.vllm.ai features/spec_decode,
// vllm/config/speculative.py SpeculativeConfig: method eagle3 | mtp | draft_model, model,
// num_speculative_tokens), one JSON word.
void vllm_spec(const LaunchPlan& p, std::ostringstream& o) {
  if (p.spec == SpecMethod::none || !p.spec_tokens) return;
  const char* method = p.spec == SpecMethod::mtp      ? "mtp"
                       : p.spec == SpecMethod::eagle3 ? "eagle3"
                                                      : "draft_model";
  std::string cfg = std::string("{\"method\": \"") + method + "\"";
  if (!p.spec_model.empty()) cfg += ", \"model\": " + json_quote(p.spec_model);
  cfg += ", \"num_speculative_tokens\": " + u(p.spec_tokens) + "}";
  o << " --speculative-config " << shell_quote(cfg);
}

// SGLang's (docs/advanced_features/speculative_decoding.md, server_args.py): EAGLE over a
// checkpoint's next-n layers (its MTP), EAGLE3 with a head, STANDALONE with a draft model; a
// chain of k steps (topk 1, k + 1 draft tokens verified).
void sglang_spec(const LaunchPlan& p, std::ostringstream& o) {
  if (p.spec == SpecMethod::none || !p.spec_tokens) return;
  o << " --speculative-algorithm "
    << shell_word(p.spec == SpecMethod::mtp      ? "EAGLE"
                  : p.spec == SpecMethod::eagle3 ? "EAGLE3"
                                                 : "STANDALONE");
  if (!p.spec_model.empty()) o << " --speculative-draft-model-path " << shell_quote(p.spec_model);
  o << " --speculative-num-steps " << p.spec_tokens << " --speculative-eagle-topk 1"
    << " --speculative-num-draft-tokens " << p.spec_tokens + 1;
}

void vllm_limits(const LaunchPlan& p, std::ostringstream& o) {
  if (p.max_model_len) o << " --max-model-len " << p.max_model_len;
  if (p.memory_fraction > 0) o << " --gpu-memory-utilization " << num(p.memory_fraction);
  if (p.max_num_seqs) o << " --max-num-seqs " << p.max_num_seqs;
  if (p.max_num_batched_tokens) o << " --max-num-batched-tokens " << p.max_num_batched_tokens;
  kv_dtype_and_quantization(p, o);
  vllm_spec(p, o);
  guide(p.flags, o, true);
}

// vllm serve; Ray past one node (docs: "multi-node serving": ray start --head / --address,
// --distributed-executor-backend ray).
std::string vllm(const LaunchPlan& p) {
  std::ostringstream o;
  template_comment(p.flags, "vLLM", o);
  const bool multi = p.nodes() > 1;
  if (multi) {
    o << "# " << p.nodes() << " nodes of " << p.gpus_per_node
      << " GPUs, one Ray cluster per replica\n";
    o << "# node 0 (head):\nray start --head --port=6379\n";
    o << "# nodes 1-" << p.nodes() - 1 << ":\nray start --address=" << shell_word(p.head_address)
      << ":6379\n# then on the head node:\n";
  }
  per_replica(p, o, [&](uint32_t port) {
    o << "vllm serve " << shell_quote(p.model);
    vllm_flags(p, o);
    if (multi) o << " --distributed-executor-backend ray";
    vllm_limits(p, o);
    o << " --host " << shell_word(p.host) << " --port " << port;
  });
  return o.str();
}

// python -m sglang.launch_server's flags for the plan (docs/advanced_features/server_arguments.md)
// after the model: its parallel degrees, then (after the distributed flags) its limits.
void sglang_flags(const LaunchPlan& p, std::ostringstream& o) {
  o << " --tp-size " << p.tp;
  if (p.pp > 1) o << " --pp-size " << p.pp;
  if (p.attention_dp) o << " --dp-size " << p.tp << " --enable-dp-attention --ep-size " << p.tp;
}

void sglang_limits(const LaunchPlan& p, std::ostringstream& o) {
  if (p.max_model_len) o << " --context-length " << p.max_model_len;
  if (p.memory_fraction > 0) o << " --mem-fraction-static " << num(p.memory_fraction, "%.3f");
  if (p.max_num_seqs) o << " --max-running-requests " << p.max_num_seqs;
  if (p.max_num_batched_tokens) o << " --chunked-prefill-size " << p.max_num_batched_tokens;
  kv_dtype_and_quantization(p, o);
  sglang_spec(p, o);
  guide(p.flags, o, false);
}

// SGLang's PD mode (docs/advanced_features/pd_disaggregation.md): prefill workers
// (--disaggregation-mode prefill), then the decode replicas (--disaggregation-mode decode), each on
// its own GPUs and port where the machines were bought for it (place_units), and sglang_router's
// PD router in front of them. REQUIRES: every worker within one node.
std::string sglang_pd(const LaunchPlan& p) {
  std::ostringstream o;
  template_comment(p.flags, "SGLang", o);
  LaunchPlan pre = p;
  pre.tp = p.prefill_tp;
  pre.pp = 1;
  pre.attention_dp = false;
  const GpuUnits units{p.tp * p.pp, p.prefill_tp, p.prefill_workers};
  const Placement placed =
      place_units(p.tp * p.pp * p.replicas + units.prefill_gpus(), p.gpus_per_node, units);
  const bool one_node = placed.machines <= 1;
  std::string prefills, decodes;
  auto worker = [&](const LaunchPlan& w, const char* mode, const UnitPlace& at, uint32_t i,
                    uint32_t n, uint32_t port) {
    const uint32_t span = w.tp * w.pp;
    const uint32_t node = at.node;
    o << "# " << mode << " worker " << i + 1 << " of " << n << ", node " << node << "\n";
    if (!p.devices_variable.empty()) {
      o << p.devices_variable << "=";
      for (uint32_t g = 0; g < span; ++g) o << (g ? "," : "") << (at.first_gpu + g);
      o << " ";
    }
    o << "python3 -m sglang.launch_server --model-path " << shell_quote(p.model)
      << " --disaggregation-mode " << shell_word(mode);
    sglang_flags(w, o);
    sglang_limits(w, o);
    o << " --host " << shell_word(p.host) << " --port " << port << " &\n";
    const std::string host = one_node ? "127.0.0.1" : "NODE" + u(node) + "_IP";
    (std::string(mode) == "prefill" ? prefills : decodes) +=
        std::string(" --") + mode + " " + shell_word("http://" + host + ":" + u(port));
  };
  for (uint32_t i = 0; i < p.prefill_workers; ++i)
    worker(pre, "prefill", placed.prefill[i], i, p.prefill_workers, 30000 + i);
  for (uint32_t i = 0; i < p.replicas; ++i)
    worker(p, "decode", placed.decode[i], i, p.replicas, 30100 + i);
  o << "python3 -m sglang_router.launch_router --pd-disaggregation" << prefills << decodes
    << " --host " << shell_word(p.host) << " --port " << p.port << "\n";
  return o.str();
}

// python -m sglang.launch_server; past one node --nnodes / --node-rank / --dist-init-addr on
// every node.
std::string sglang(const LaunchPlan& p) {
  if (p.prefill_workers) return sglang_pd(p);
  std::ostringstream o;
  template_comment(p.flags, "SGLang", o);
  const uint32_t nodes = p.nodes();
  auto cmd = [&](uint32_t port, uint32_t rank) {
    o << "python3 -m sglang.launch_server --model-path " << shell_quote(p.model);
    sglang_flags(p, o);
    if (nodes > 1)
      o << " --nnodes " << nodes << " --node-rank " << rank << " --dist-init-addr "
        << shell_word(p.head_address) << ":5000";
    sglang_limits(p, o);
    o << " --host " << shell_word(p.host) << " --port " << port;
  };
  if (nodes > 1) {
    for (uint32_t r = 0; r < p.replicas; ++r)
      for (uint32_t n = 0; n < nodes; ++n) {
        o << "# replica " << r + 1 << ", node " << r * nodes + n << " (rank " << n << ")\n";
        cmd(p.port, n);
        o << "\n";
      }
    return o.str();
  }
  per_replica(p, o, [&](uint32_t port) { cmd(port, 0); });
  return o.str();
}

// trtllm-serve (docs/source/commands/trtllm-serve), options the CLI lacks in
// --extra_llm_api_options YAML (tensorrt_llm/llmapi/llm_args.py: kv_cache_config.dtype,
// enable_attention_dp); past one node mpirun + trtllm-llmapi-launch.
std::string trtllm(const LaunchPlan& p) {
  std::ostringstream o;
  const bool fp8 = p.kv == KvDtype::fp8_e4m3 || p.kv == KvDtype::fp8_e5m2;
  const bool spec = p.spec != SpecMethod::none && p.spec_tokens;
  const bool yaml = fp8 || p.attention_dp || spec;
  if (yaml) {
    o << "cat > extra_llm_api_options.yaml <<'EOF'\n";
    if (fp8) o << "kv_cache_config:\n  dtype: fp8\n";
    if (p.attention_dp) o << "enable_attention_dp: true\n";
    // tensorrt_llm/llmapi/llm_args.py MTPDecodingConfig (num_nextn_predict_layers),
    // EagleDecodingConfig (max_draft_len, speculative_model_dir, eagle3_one_model),
    // DraftTargetDecodingConfig.
    if (spec && p.spec == SpecMethod::mtp)
      o << "speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: "
        << p.spec_tokens << "\n";
    if (spec && p.spec != SpecMethod::mtp)
      o << "speculative_config:\n  decoding_type: "
        << (p.spec == SpecMethod::eagle3 ? "Eagle" : "DraftTarget")
        << "\n  max_draft_len: " << p.spec_tokens
        << "\n  speculative_model_dir: " << json_quote(p.spec_model) << "\n"
        << (p.spec == SpecMethod::eagle3 ? "  eagle3_one_model: true\n" : "");
    o << "EOF\n";
  }
  const uint32_t nodes = p.nodes(), span = p.tp * p.pp;
  per_replica(p, o, [&](uint32_t port) {
    if (nodes > 1) {
      o << "mpirun -np " << span << " -H ";
      for (uint32_t n = 0; n < nodes; ++n)
        o << (n ? "," : "") << (n ? "NODE" + u(n) + "_IP" : shell_word(p.head_address)) << ":"
          << p.gpus_per_node;
      o << " trtllm-llmapi-launch ";
    }
    o << "trtllm-serve " << shell_quote(p.model) << " --backend pytorch --tp_size " << p.tp;
    if (p.pp > 1) o << " --pp_size " << p.pp;
    if (p.attention_dp) o << " --ep_size " << p.tp;
    if (p.max_num_seqs) o << " --max_batch_size " << p.max_num_seqs;
    if (p.max_num_batched_tokens) o << " --max_num_tokens " << p.max_num_batched_tokens;
    if (p.max_model_len) o << " --max_seq_len " << p.max_model_len;
    if (p.memory_fraction > 0)
      o << " --kv_cache_free_gpu_memory_fraction " << num(p.memory_fraction);
    if (yaml) o << " --extra_llm_api_options extra_llm_api_options.yaml";
    o << " --host " << shell_word(p.host) << " --port " << port;
  });
  return o.str();
}

// llama-server (tools/server/README.md): -c is the whole context, split over -np slots.
std::string llama_server(const LaunchPlan& p) {
  std::ostringstream o;
  const uint32_t slots = std::max<uint32_t>(1, p.max_num_seqs);
  per_replica(p, o, [&](uint32_t port) {
    o << "llama-server -m " << shell_quote(p.model) << " -ngl 999";
    if (!p.draft.empty()) o << " -md " << shell_quote(p.draft) << " -ngld 999";
    if (p.layers_per_gpu.size() > 1) {
      o << " -sm layer -ts ";
      for (size_t i = 0; i < p.layers_per_gpu.size(); ++i)
        o << (i ? "," : "") << p.layers_per_gpu[i];
    }
    if (p.n_cpu_moe == kAllBlocks)
      o << " --cpu-moe";
    else if (p.n_cpu_moe)
      o << " --n-cpu-moe " << p.n_cpu_moe;
    if (p.max_model_len) o << " -c " << uint64_t{p.max_model_len} * slots;
    o << " -np " << slots;
    if (p.kv_unified) o << " -kvu";
    o << " -fa " << (p.flash_attn ? "on" : "off");
    if (p.kv != KvDtype::f16 && p.kv != KvDtype::fp8_e4m3 && p.kv != KvDtype::fp8_e5m2)
      o << " -ctk " << kv_dtype_name(p.kv) << " -ctv " << kv_dtype_name(p.kv);
    if (p.max_num_batched_tokens) o << " -b " << p.max_num_batched_tokens;
    o << " --host " << shell_word(p.host) << " --port " << port;
  });
  return o.str();
}

// Ollama (docs/faq.md environment variables; docs/modelfile.md PARAMETER num_ctx / num_gpu): KV
// for num_ctx x OLLAMA_NUM_PARALLEL, quantized KV only with flash attention.
std::string ollama(const LaunchPlan& p) {
  std::ostringstream o;
  const uint32_t slots = std::max<uint32_t>(1, p.max_num_seqs);
  o << "OLLAMA_NUM_PARALLEL=" << slots;
  if (p.flash_attn) o << " OLLAMA_FLASH_ATTENTION=1";
  if (p.flash_attn && (p.kv == KvDtype::q8_0 || p.kv == KvDtype::q4_0))
    o << " OLLAMA_KV_CACHE_TYPE=" << kv_dtype_name(p.kv);
  if (p.layers_per_gpu.size() > 1) o << " OLLAMA_SCHED_SPREAD=1";
  if (p.max_model_len) o << " OLLAMA_CONTEXT_LENGTH=" << p.max_model_len;
  o << " OLLAMA_HOST=" << shell_word(p.host) << ":" << (p.port == 8000 ? 11434 : p.port)
    << " ollama serve &\n";
  o << "cat > Modelfile <<'EOF'\nFROM " << modelfile_value(p.model) << "\n";
  if (p.max_model_len) o << "PARAMETER num_ctx " << p.max_model_len << "\n";
  o << "PARAMETER num_gpu 999\nEOF\n";
  o << "ollama create llmsize-plan -f Modelfile\n";
  return o.str();
}

// The words of one script line as the shell reads them (quotes removed), each with whether any part
// of it was quoted (a quoted "&" is a word, not an operator).
struct Word {
  std::string text;
  bool quoted = false;
};
std::vector<Word> shell_words(const std::string& line) {
  std::vector<Word> out;
  Word w;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\'') {
      const size_t end = line.find('\'', i + 1);
      const size_t stop = end == std::string::npos ? line.size() : end;
      w.text.append(line, i + 1, stop - i - 1);
      w.quoted = in_word = true;
      i = stop;
    } else if (c == '\\' && i + 1 < line.size()) {
      w.text += line[++i];
      w.quoted = in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(std::move(w));
      w = Word{};
      in_word = false;
    } else {
      w.text += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(std::move(w));
  return out;
}

// A code point Ollama's Modelfile parser drops from a value (strconv.IsPrint is false) that
// needs_sanitizing() lets through: the space separators (Zs) other than U+0020, the format
// characters (Cf) that are not default-ignorable, and the private-use planes. Unassigned code
// points, which Go drops too, are not listed.
bool ollama_drops(uint32_t cp) {
  static constexpr uint32_t kRanges[][2] = {
      {0x00A0, 0x00A0},   {0x0600, 0x0605},   {0x06DD, 0x06DD},   {0x070F, 0x070F},
      {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x1680, 0x1680},   {0x2000, 0x200A},
      {0x202F, 0x202F},   {0x205F, 0x205F},   {0x3000, 0x3000},   {0xE000, 0xF8FF},
      {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0xF0000, 0x10FFFF}};
  for (const auto& r : kRanges)
    if (cp >= r[0] && cp <= r[1]) return true;
  return false;
}

}  // namespace

namespace {

// What a pod of the engine runs in and asks the device plugin for, by the variable that selects
// the GPU's devices: NVIDIA's device plugin resource nvidia.com/gpu, AMD's amd.com/gpu
// (ROCm/k8s-device-plugin); images as the engines' deployment docs name them (docs.vllm.ai
// "Using Docker": vllm/vllm-openai; ROCm docs "vLLM inference": rocm/vllm; SGLang docs
// "Install": lmsysorg/sglang).
struct PodKind {
  const char* resource;
  const char* image;
};
std::optional<PodKind> pod_kind(const LaunchPlan& p) {
  const bool sglang = p.engine == Engine::sglang;
  if (p.devices_variable == "CUDA_VISIBLE_DEVICES")
    return PodKind{"nvidia.com/gpu", sglang ? "lmsysorg/sglang:latest" : "vllm/vllm-openai:latest"};
  if (p.devices_variable == "HIP_VISIBLE_DEVICES" && !sglang)
    return PodKind{"amd.com/gpu", "rocm/vllm:latest"};
  return std::nullopt;
}

// A DNS-1123 name for the manifest's objects: "llmsize-" and the model's last path component,
// lowercased, every other character a '-', at most 40 characters.
std::string object_name(const std::string& model) {
  const size_t end = model.find_last_not_of('/');
  const size_t slash = end == std::string::npos ? std::string::npos : model.rfind('/', end);
  std::string base = model.substr(slash == std::string::npos ? 0 : slash + 1);
  std::string n = "llmsize-";
  for (const char ch : base) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok || n.back() != '-') n += ok ? c : '-';
    if (n.size() >= 40) break;
  }
  while (n.back() == '-') n.pop_back();
  return n;
}

// A command for a container's args, in which Kubernetes expands $(VAR) before the shell sees it
// (Kubernetes API, Container.args): each '$' doubled so it stays itself.
std::string k8s_escaped(const std::string& s) {
  std::string r;
  for (const char c : s) r += c == '$' ? std::string("$$") : std::string(1, c);
  return r;
}

// One container of the engine, running `command` through sh -c, with the GPUs of one pod; the
// pods that serve HTTP have the engines' /health as their readiness probe.
void k8s_container(std::ostringstream& o, const std::string& indent, const std::string& name,
                   const PodKind& kind, const std::string& command, uint32_t gpus, bool serves,
                   const LaunchPlan& p) {
  o << indent << "- name: " << name << "\n"
    << indent << "  image: " << kind.image << "\n"
    << indent << "  command: [\"sh\", \"-c\"]\n"
    << indent << "  args:\n"
    << indent << "    - |\n"
    << indent << "      " << command << "\n";
  if (!p.environment.empty()) o << indent << "  env:\n";
  for (const std::string& e : p.environment) {
    const size_t eq = e.find('=');
    o << indent << "    - {name: " << e.substr(0, eq) << ", value: " << json_quote(e.substr(eq + 1))
      << "}\n";
  }
  const uint32_t port = p.port;
  if (serves)
    o << indent << "  ports:\n"
      << indent << "    - containerPort: " << port << "\n"
      << indent << "  readinessProbe:\n"
      << indent << "    httpGet: {path: /health, port: " << port << "}\n"
      << indent << "    periodSeconds: 10\n";
  o << indent << "  resources:\n"
    << indent << "    limits:\n"
    << indent << "      " << kind.resource << ": \"" << gpus << "\"\n"
    << indent << "  volumeMounts:\n"
    << indent << "    - {name: dshm, mountPath: /dev/shm}\n";
}

// The engine's command in a pod of the manifest: node rank `rank` ("" on one machine; a $(VAR)
// Kubernetes expands), and vLLM's workers headless. Every piece from the plan is escaped against
// that expansion; only the LWS variables written here are left for Kubernetes to fill.
std::string k8s_command(const LaunchPlan& p, const std::string& rank, bool headless) {
  const bool sglang = p.engine == Engine::sglang;
  std::ostringstream head, tail;
  head << (sglang ? "python3 -m sglang.launch_server --model-path " : "vllm serve ")
       << shell_quote(p.model);
  if (sglang) {
    sglang_flags(p, head);
    sglang_limits(p, tail);
  } else {
    vllm_flags(p, head);
    vllm_limits(p, tail);
  }
  std::string distributed;
  if (!rank.empty())
    distributed = sglang
                      ? " --dist-init-addr $(LWS_LEADER_ADDRESS):5000 --nnodes $(LWS_GROUP_SIZE) "
                        "--node-rank " +
                            rank
                      : " --distributed-executor-backend mp --nnodes $(LWS_GROUP_SIZE) "
                        "--node-rank " +
                            rank + " --master-addr $(LWS_LEADER_ADDRESS)" +
                            (headless ? " --headless" : "");
  return k8s_escaped(head.str()) + distributed + k8s_escaped(tail.str()) +
         " --host 0.0.0.0 --port " + u(p.port);
}

void k8s_dshm(std::ostringstream& o, const std::string& indent) {
  o << indent << "volumes:\n"
    << indent << "  - name: dshm\n"
    << indent << "    emptyDir: {medium: Memory}\n";
}

}  // namespace

std::string kubernetes_problem(const LaunchPlan& p) {
  if (p.prefill_workers)
    return "disaggregated prefill and decode workers are not wired into this manifest (llm-d or "
           "Dynamo deploy them); --emit sglang prints SGLang's PD workers and router";
  if (p.engine != Engine::vllm && p.engine != Engine::sglang && p.engine != Engine::transformers)
    return "llmsize writes Kubernetes manifests for vLLM and SGLang (--engine vllm or sglang)";
  if (!pod_kind(p))
    return p.devices_variable == "HIP_VISIBLE_DEVICES"
               ? "no SGLang image for ROCm is known to llmsize; use --engine vllm (rocm/vllm)"
               : "no engine image and device plugin resource for this GPU's software stack are "
                 "known to llmsize (NVIDIA CUDA and AMD ROCm are)";
  if (p.attention_dp && p.nodes() > 1)
    return "attention data parallel across machines gives each rank its own address, which "
           "this manifest does not wire; plan it on one machine (--gpus) or without --ep";
  return "";
}

std::string kubernetes_manifest(const LaunchPlan& plan) {
  LaunchPlan p = plan;
  if (p.engine == Engine::transformers) p.engine = Engine::vllm;
  const PodKind kind = *pod_kind(p);
  const std::string name = object_name(p.model);
  const char* engine = p.engine == Engine::sglang ? "sglang" : "vllm";
  const uint32_t nodes = p.nodes();
  std::ostringstream o;
  o << "# llmsize plan: " << p.replicas << " replica" << (p.replicas == 1 ? "" : "s") << " of TP "
    << p.tp << " x PP " << p.pp << " under " << engine << "; gated models need an HF_TOKEN env\n"
    << "# (a Secret) and a local checkpoint path a volume mounted at that path\n";
  template_comment(p.flags, p.engine == Engine::sglang ? "SGLang" : "vLLM", o);
  if (nodes > 1) {
    const uint32_t per_pod = p.gpus_per_node;
    o << "# one LeaderWorkerSet group per replica, one pod per machine (" << nodes << " x "
      << per_pod << " GPUs); needs LeaderWorkerSet installed (github.com/kubernetes-sigs/lws)\n"
      << "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: "
      << name << "\nspec:\n  replicas: " << p.replicas
      << "\n  leaderWorkerTemplate:\n    size: " << nodes
      << "\n    restartPolicy: RecreateGroupOnPodRestart\n    leaderTemplate:\n"
      << "      metadata:\n        labels:\n          role: leader\n      spec:\n"
      << "        containers:\n";
    k8s_container(o, "          ", std::string(engine) + "-leader", kind,
                  k8s_command(p, "0", false), per_pod, true, p);
    k8s_dshm(o, "        ");
    o << "    workerTemplate:\n      spec:\n        containers:\n";
    k8s_container(o, "          ", std::string(engine) + "-worker", kind,
                  k8s_command(p, "$(LWS_WORKER_INDEX)", true), per_pod, false, p);
    k8s_dshm(o, "        ");
    o << "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: " << name
      << "\nspec:\n  selector:\n    leaderworkerset.sigs.k8s.io/name: " << name
      << "\n    role: leader\n";
  } else {
    o << "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " << name
      << "\nspec:\n  replicas: " << p.replicas << "\n  selector:\n    matchLabels:\n"
      << "      app: " << name
      << "\n  template:\n    metadata:\n      labels:\n        app: " << name
      << "\n    spec:\n      containers:\n";
    k8s_container(o, "        ", engine, kind, k8s_command(p, "", false), p.tp * p.pp, true, p);
    k8s_dshm(o, "      ");
    o << "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: " << name
      << "\nspec:\n  selector:\n    app: " << name << "\n";
  }
  o << "  ports:\n    - port: " << p.port << "\n      targetPort: " << p.port << "\n";
  return o.str();
}

std::string shell_quote(std::string_view s) {
  std::string r = "'";
  for (char c : s) {
    if (c == '\'')
      r += "'\\''";
    else
      r += c;
  }
  return r + "'";
}

std::string launch_value_problem(std::string_view value, Engine engine) {
  if (value.empty()) return "is empty";
  if (needs_sanitizing(value))
    return "holds a control, invisible or non-UTF-8 character (shown escaped), which a pasted "
           "command would carry to the terminal or break on";
  if (value.front() == '-') return "starts with '-', which the engine would read as an option";
  if (engine == Engine::ollama && any_code_point(value, ollama_drops))
    return "holds a character Ollama's Modelfile parser drops (a Unicode space other than U+0020, "
           "a format or a private-use character)";
  return "";
}

LaunchPlan launch_plan(const Deployment& d, const Workload& w, uint32_t n_layer,
                       uint32_t gpus_per_node, const std::string& model) {
  LaunchPlan p;
  p.engine = d.engine;
  p.model = model;
  p.tp = d.tp;
  p.pp = d.pp;
  p.replicas = d.replicas;
  p.gpus_per_node = gpus_per_node;
  p.attention_dp = d.attention_dp;
  p.prefill_workers = d.prefill_workers;
  p.prefill_tp = d.prefill_tp;
  p.max_model_len = d.max_model_len ? d.max_model_len : w.request_tokens();
  p.kv = d.kv;
  const bool slots = engine_profile(d.engine).memory_rule == MemoryRule::fixed_slots;
  if (slots) {
    // One slot per concurrent user of the replica; the layers split like llama.cpp's even -ts.
    p.max_num_seqs = w.users ? (w.users + d.replicas - 1) / d.replicas : d.limits.max_num_seqs;
    const uint32_t n = d.tp * d.pp;
    if (n > 1)
      for (uint32_t i = 0; i < n; ++i) p.layers_per_gpu.push_back(n_layer / n + (i < n_layer % n));
    p.max_num_batched_tokens = 0;
  } else {
    p.memory_fraction = d.limits.memory_fraction;
    p.max_num_seqs = d.limits.max_num_seqs;
    p.max_num_batched_tokens = d.limits.max_num_batched_tokens;
  }
  return p;
}

namespace {
std::string engine_script(const LaunchPlan& p) {
  switch (p.engine) {
    case Engine::vllm:
      return vllm(p);
    case Engine::sglang:
      return sglang(p);
    case Engine::trt_llm:
      return trtllm(p);
    case Engine::llama_cpp:
      return llama_server(p);
    case Engine::ollama:
      return ollama(p);
    case Engine::transformers:
      break;
  }
  // transformers has no server of its own: the nearest launch is a vLLM server of the same
  // checkpoint, which keeps every weight on the GPU the same way.
  LaunchPlan v = p;
  v.engine = Engine::vllm;
  return "# transformers has no serving command; the same checkpoint under vLLM:\n" + vllm(v);
}
}  // namespace

std::string launch_script(const LaunchPlan& p) {
  std::string env;
  for (const std::string& e : p.environment) {
    const size_t eq = e.find('=');
    env += "export " + e.substr(0, eq) + "=" + shell_word(e.substr(eq + 1)) + "\n";
  }
  if (!env.empty()) env = "# on every machine that runs the engine, before it starts:\n" + env;
  return env + engine_script(p);
}

std::vector<LaunchFlag> launch_flags(const std::string& script) {
  std::vector<LaunchFlag> out;
  std::istringstream in(script);
  std::string line;
  bool heredoc = false;
  while (std::getline(in, line)) {
    if (heredoc) {
      if (line == "EOF") heredoc = false;
      continue;
    }
    if (line.find("<<'EOF'") != std::string::npos) heredoc = true;
    if (line.empty() || line[0] == '#') continue;
    std::string cmd;
    bool python_module = false;
    for (const Word& word : shell_words(line)) {
      const std::string& w = word.text;
      if (w == "<<EOF") break;  // the heredoc's <<'EOF'
      if (!word.quoted) {
        if (cmd.empty() && w.find('=') != std::string::npos && w[0] != '-') continue;  // VAR=value
        if (w == "&" || w.rfind(">", 0) == 0) break;
      }
      if (cmd.empty() || w == "trtllm-llmapi-launch" || w == "trtllm-serve") {
        cmd = w;
        continue;
      }
      if (python_module) {
        cmd = w;
        python_module = false;
        continue;
      }
      if (cmd == "python3" && w == "-m") {
        python_module = true;
        continue;
      }
      if (!word.quoted && w.size() > 1 && w[0] == '-' && !(w[1] >= '0' && w[1] <= '9'))
        out.push_back({cmd, w.substr(0, w.find('='))});
    }
  }
  return out;
}

}  // namespace llmsize
