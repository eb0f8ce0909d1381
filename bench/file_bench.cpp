// Time to answer for big model files, cold process included: runs the llmsize binary on
//   - a sparse 100 GB GGUF of 993 tensors (110 Llama blocks, n_embd 8192, Q8_0, 128,256 tokens),
//   - a model.safetensors.index.json over 30 BF16 shards (a 70B-like checkpoint, 141 GB),
// and checks that each answer's weights_bytes and params are the files' exact sums.
// The files are sparse (tests/model_file_writer.hpp): they cost no disk and no time to write.
//
//   llmsize_file_bench [--runs N] [--drop-caches] [--smoke] [--keep]
// --drop-caches (root) empties the page cache before each run, so the header comes from disk.
// --smoke writes small files and only checks the answers (what ctest runs).
// --keep leaves the files in /tmp/llmsize_bench_files for other tools.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "model_file_writer.hpp"

extern char** environ;

namespace {

using namespace llmsize::test;

struct Run {
  double ms = 0;
  std::string out;
  int code = -1;
};

// Runs LLMSIZE_BIN with args, stdout to a file, and times it from spawn to exit.
Run run_llmsize(const std::vector<std::string>& args, const std::string& out_path) {
  std::vector<std::string> argv_s = {LLMSIZE_BIN};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  Run r;
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) {
    std::perror("posix_spawn");
    std::exit(1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  posix_spawn_file_actions_destroy(&fa);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(out_path);
  std::stringstream ss;
  ss << in.rdbuf();
  r.out = ss.str();
  return r;
}

void drop_caches() {
  ::sync();
  std::ofstream("/proc/sys/vm/drop_caches") << "3\n";
}

struct Case {
  std::string name;
  std::string path;
  uint64_t bytes = 0;
  uint64_t params = 0;
  size_t tensors = 0;
};

// n_layer Llama blocks of n_embd 8192, n_ff 28672, 8 KV heads of 128, in Q8_0; 128,256 tokens.
Case make_gguf(const TempDir& d, uint32_t n_layer, uint32_t n_vocab) {
  LlamaShape s;
  s.name = "bench-llama";
  s.file_type = 7;
  s.n_layer = n_layer, s.n_ctx = 131072, s.n_embd = 8192, s.n_ff = 28672, s.n_head = 64;
  s.n_head_kv = 8, s.n_vocab = n_vocab;
  const GgufWriter w = llama_gguf(s, [](const std::string&, int) { return kQ8_0; });
  Case c{"GGUF", d / "bench-llama-q8_0.gguf", w.data_bytes(), w.n_elements(),
         3 + 9 * size_t{n_layer}};
  w.write(c.path);
  return c;
}

// A BF16 Llama checkpoint of n_layer blocks split over n_shards files, with its index and config.
Case make_safetensors(const TempDir& d, uint32_t n_layer, uint32_t n_shards) {
  struct T {
    std::string name;
    std::vector<uint64_t> shape;
  };
  std::vector<T> ts = {{"model.embed_tokens.weight", {128256, 8192}},
                       {"model.norm.weight", {8192}},
                       {"lm_head.weight", {128256, 8192}}};
  for (uint32_t i = 0; i < n_layer; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    for (const T& t : std::vector<T>{{"input_layernorm.weight", {8192}},
                                     {"post_attention_layernorm.weight", {8192}},
                                     {"self_attn.q_proj.weight", {8192, 8192}},
                                     {"self_attn.k_proj.weight", {1024, 8192}},
                                     {"self_attn.v_proj.weight", {1024, 8192}},
                                     {"self_attn.o_proj.weight", {8192, 8192}},
                                     {"mlp.gate_proj.weight", {28672, 8192}},
                                     {"mlp.up_proj.weight", {28672, 8192}},
                                     {"mlp.down_proj.weight", {8192, 28672}}})
      ts.push_back({p + t.name, t.shape});
  }
  Case c{"safetensors", d / "model.safetensors.index.json", 0, 0, ts.size()};
  std::string map;
  const size_t per = (ts.size() + n_shards - 1) / n_shards;
  for (uint32_t s = 0; s < n_shards; ++s) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05u-of-%05u.safetensors", s + 1, n_shards);
    SafetensorsWriter w;
    w.metadata("format", "pt");
    for (size_t i = s * per; i < std::min(ts.size(), (s + 1) * per); ++i) {
      w.tensor(ts[i].name, "BF16", ts[i].shape);
      map += std::string(map.empty() ? "" : ",\n") + "\"" + ts[i].name + "\": \"" + name + "\"";
    }
    w.write(d / name);
    c.bytes += w.data_bytes();
    c.params += w.n_elements();
  }
  std::ofstream(c.path) << "{\"metadata\": {\"total_size\": " << c.bytes << "},\n\"weight_map\": {"
                        << map << "}}\n";
  std::ofstream(d / "config.json")
      << R"({"model_type": "llama", "num_hidden_layers": )" << n_layer
      << R"(, "hidden_size": 8192, "intermediate_size": 28672, "num_attention_heads": 64,
    "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072})";
  return c;
}

bool check(const Case& c, const Run& r) {
  if (r.code != 0) {
    std::fprintf(stderr, "%s: llmsize exited %d\n", c.name.c_str(), r.code);
    return false;
  }
  const auto j = nlohmann::json::parse(r.out);
  const uint64_t bytes = j["model"]["weights_bytes"], params = j["model"]["params"];
  if (bytes != c.bytes || params != c.params) {
    std::fprintf(stderr, "%s: weights_bytes %llu params %llu, expected %llu and %llu\n",
                 c.name.c_str(), static_cast<unsigned long long>(bytes),
                 static_cast<unsigned long long>(params), static_cast<unsigned long long>(c.bytes),
                 static_cast<unsigned long long>(c.params));
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool smoke = false, drop = false, keep = false;
  int runs = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--smoke"))
      smoke = true;
    else if (!std::strcmp(argv[i], "--drop-caches"))
      drop = true;
    else if (!std::strcmp(argv[i], "--keep"))
      keep = true;
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--runs N] [--drop-caches] [--smoke] [--keep]\n", argv[0]);
      return 2;
    }
  }
  TempDir d(keep ? "/tmp/llmsize_bench_files" : "");
  const std::vector<Case> cases =
      smoke ? std::vector<Case>{make_gguf(d, 2, 128256), make_safetensors(d, 2, 3)}
            : std::vector<Case>{make_gguf(d, 110, 128256), make_safetensors(d, 80, 30)};
  const std::string out = d / "out.json";
  bool ok = true;
  for (const auto& c : cases) {
    std::vector<double> ms;
    for (int i = 0; i < (smoke ? 1 : runs); ++i) {
      if (drop) drop_caches();
      const Run r = run_llmsize({c.path, "--format", "json"}, out);
      ok = check(c, r) && ok;
      ms.push_back(r.ms);
    }
    std::sort(ms.begin(), ms.end());
    std::printf(
        "%-12s %6.1f GB in %zu tensors: median %.1f ms, min %.1f, max %.1f over %zu runs%s\n",
        c.name.c_str(), static_cast<double>(c.bytes) / 1e9, c.tensors, ms[ms.size() / 2],
        ms.front(), ms.back(), ms.size(), drop ? " (page cache dropped before each)" : "");
  }
  std::printf("%s\n", ok ? "answers exact" : "WRONG ANSWERS");
  return ok ? 0 : 1;
}
