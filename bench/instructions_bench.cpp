// What an answer costs the process, in instructions (valgrind's callgrind, which counts the same
// whatever else the machine runs) and in CPU time, each against `llmsize --version` (loading the
// binary and its libraries):
//   - the main job, `70b --quant q4 --ctx 8192`, as the table and as JSON;
//   - a GGUF answer, `FILE --ctx 8192 --format json` on a Llama-3.1-8B-shaped Q4_K_M file
//     (sparse: shapes only);
//   - a sweep row: the difference of two grids of 2,048 and 10,240 CSV rows, per row;
//   - check per plan: the difference of two plan files of 2,000 and 10,000 plans, per plan, and
//     the CPU time of 100,000 (bench/plan_files.hpp, repeating and all distinct).
//
//   llmsize_instructions_bench            instructions and CPU time (Release build)
//   llmsize_instructions_bench --check    ctest: instructions only; exit 1 over a limit: the
//                                         goals of #25 where they are met (main job 12 M, GGUF
//                                         answer 15 M), today's figure + 10% where they are not
//                                         yet (a sweep row 19,400 for a goal of 10,000; check
//                                         per plan 68,600), so neither can grow unnoticed
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model_file_writer.hpp"
#include "plan_files.hpp"

namespace {

using namespace llmsize::test;

struct Cost {
  double instructions = 0;  // 0: not counted (no valgrind)
  double cpu_s = 0;
};

// Runs argv with stdout and stderr to files; returns the exit status and CPU time of the child.
int spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err,
          double* cpu_s) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, 1);
    ::dup2(e, 2);
    std::vector<char*> v;
    for (const auto& a : args) v.push_back(const_cast<char*>(a.c_str()));
    v.push_back(nullptr);
    ::execvp(v[0], v.data());
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  if (cpu_s)
    *cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool have_valgrind() {
  return std::system("valgrind --version >/dev/null 2>&1") == 0;
}

// Instructions of `llmsize ARGS` under callgrind ("Collected : N" on its stderr), or 0.
double instructions(const std::vector<std::string>& args, const TempDir& d) {
  std::vector<std::string> v = {"valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                                LLMSIZE_BIN};
  v.insert(v.end(), args.begin(), args.end());
  const int code = spawn(v, d / "out", d / "err", nullptr);
  const std::string err = slurp(d / "err");
  const size_t at = err.find("Collected : ");
  if (code > 2 || at == std::string::npos) {
    std::fprintf(stderr, "callgrind failed (exit %d): %s\n", code, err.c_str());
    std::exit(1);
  }
  return std::strtod(err.c_str() + at + 12, nullptr);
}

// The least CPU time of `runs` runs (the others met a busy machine).
double cpu_time(const std::vector<std::string>& args, const TempDir& d, int runs) {
  std::vector<std::string> v = {LLMSIZE_BIN};
  v.insert(v.end(), args.begin(), args.end());
  double best = 1e9;
  for (int i = 0; i < runs; ++i) {
    double s = 0;
    spawn(v, d / "out", d / "err", &s);
    best = std::min(best, s);
  }
  return best;
}

// A GGUF of Llama-3.1-8B's shapes in llama.cpp's Q4_K_M mix (Q6_K for output, and for attn_v and
// ffn_down of half the layers; the rest Q4_K), with its 128,256-token vocabulary.
std::string write_8b_gguf(const TempDir& d) {
  LlamaShape s;
  s.name = "bench-llama-3.1-8b";
  s.n_layer = 32, s.n_ctx = 131072, s.n_embd = 4096, s.n_ff = 14336, s.n_head = 32;
  s.n_head_kv = 8, s.n_vocab = 128256;
  const GgufWriter w = llama_gguf(s, [](const std::string& t, int layer) {
    if (t == "output") return kQ6_K;
    if (t == "attn_v" || t == "ffn_down") return layer % 2 == 0 ? kQ6_K : kQ4_K;
    return kQ4_K;
  });
  const std::string path = d / "bench-llama-3.1-8b-q4_k_m.gguf";
  w.write(path);
  return path;
}

// A sweep grid of 4 models x 2 quantizations x n_ctx contexts x 8 GPUs x 8 counts (512 n_ctx rows).
std::vector<std::string> sweep_grid(int n_ctx) {
  std::string ctx;
  for (int i = 1; i <= n_ctx; ++i) ctx += (i > 1 ? "," : "") + std::to_string(1024 * i);
  return {"sweep",
          "--models",
          "llama-3.1-8b,llama-3.1-70b,qwen2.5-32b,mixtral-8x7b",
          "--quants",
          "q4_k_m,q8_0",
          "--ctx",
          ctx,
          "--gpu",
          "rtx-3090,rtx-4090,rtx-5090,l40s,a100-80gb-sxm,h100-sxm,h200,mi300x",
          "--gpus",
          "1,2,3,4,5,6,7,8"};
}

struct Job {
  const char* name;
  std::vector<std::string> small, large;  // large empty: one run; else the per-unit difference
  double units = 1;                       // rows or plans between small and large
  double goal = 0;                        // instructions (#25); 0: none
  double limit = 0;  // what --check allows: the goal, or today's figure + 10% until it is met
};

}  // namespace

int main(int argc, char** argv) {
  const bool check = argc > 1 && std::strcmp(argv[1], "--check") == 0;
  const int runs = 5;
  TempDir d;
  const std::string gguf = write_8b_gguf(d);
  const std::string plans_small = d / "plans-2000.json", plans_large = d / "plans-10000.json";
  std::ofstream(plans_small) << llmsize::bench::plan_file(2000, false);
  std::ofstream(plans_large) << llmsize::bench::plan_file(10000, false);
  const std::vector<Job> jobs = {
      {"llmsize --version", {"--version"}, {}, 1, 0},
      {"main job, table (70b --quant q4 --ctx 8192)",
       {"70b", "--quant", "q4", "--ctx", "8192"},
       {},
       1,
       12e6},
      {"main job, --format json",
       {"70b", "--quant", "q4", "--ctx", "8192", "--format", "json"},
       {},
       1,
       12e6,
       12e6},
      {"GGUF answer (8B Q4_K_M, --ctx 8192 --format json)",
       {gguf, "--ctx", "8192", "--format", "json"},
       {},
       1,
       15e6,
       15e6},
      {"sweep, per CSV row (10,240 - 2,048 rows)", sweep_grid(4), sweep_grid(20), 8192, 10000,
       19400},
      {"check, per plan (10,000 - 2,000 plans)",
       {"check", plans_small},
       {"check", plans_large},
       8000,
       0,
       68600},
  };
  const bool counted = have_valgrind();
  if (!counted) {
    std::printf("valgrind not found: instructions not counted\n");
    if (check) return 1;
  }
  bool over = false;
  std::printf("%-52s %14s %12s\n", "job", "instructions", "CPU");
  for (const Job& j : jobs) {
    Cost c;
    if (counted) {
      c.instructions = instructions(j.small, d);
      if (!j.large.empty()) c.instructions = (instructions(j.large, d) - c.instructions) / j.units;
    }
    if (!check) {
      c.cpu_s = cpu_time(j.small, d, runs);
      if (!j.large.empty()) c.cpu_s = (cpu_time(j.large, d, runs) - c.cpu_s) / j.units;
    }
    const bool bad = j.limit > 0 && c.instructions > j.limit;
    over = over || bad;
    char cpu[32] = "-";
    if (!check)
      std::snprintf(cpu, sizeof cpu, j.large.empty() ? "%.1f ms" : "%.2f us",
                    j.large.empty() ? c.cpu_s * 1e3 : c.cpu_s * 1e6);
    std::string verdict;
    if (j.limit > 0 && bad)
      verdict = "  OVER the limit " + std::to_string(static_cast<long long>(j.limit));
    else if (j.goal > 0)
      verdict = c.instructions <= j.goal
                    ? "  within the goal"
                    : "  goal " + std::to_string(static_cast<long long>(j.goal)) + ": not yet";
    std::printf("%-52s %14.0f %12s%s\n", j.name, c.instructions, cpu, verdict.c_str());
  }
  if (!check) {
    // check of 100,000 plans, the figure #25 states in CPU seconds.
    for (const bool distinct : {false, true}) {
      const std::string path = d / "plans-100000.json";
      std::ofstream(path) << llmsize::bench::plan_file(100000, distinct);
      std::printf("check of 100,000 plans (%s): %.2f s CPU\n",
                  distinct ? "all distinct" : "1,920 settings", cpu_time({"check", path}, d, 3));
    }
  }
  return over ? 1 : 0;
}
