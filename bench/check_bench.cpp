// Speed and memory of `llmsize check` on large plan files, cold process included: 100,000 plans
// cycling through 8 models x 5 GPUs x 6 contexts x 2 quantizations (480 settings, x 4 GPU counts =
// 1,920 distinct configurations), a third with a decode-speed target; and 100,000 plans that are
// all distinct (every context differs); each in table form and with --format json (every plan's
// full report, ~16 KB each, streamed). Prints wall time, CPU time (user + system), plans per
// second of CPU and peak RSS (wait4): on a shared machine the CPU time is the figure to compare.
//
//   llmsize_check_bench            the timings (Release build)
//   llmsize_check_bench --smoke    ctest: 2,000 plans, every line PASS/FAIL in order, the FAIL
//                                  count as llmsize's exit code says; no timing goal
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "plan_files.hpp"

namespace {

using llmsize::bench::plan_file;

struct Run {
  int code = -1;
  double seconds = 0;
  double cpu_seconds = 0;
  long max_rss_kb = 0;
  uint64_t out_bytes = 0;
  std::string out;
};

// `llmsize check PATH [--format json]`, stdout to a temporary file (kept in `out` when `keep`).
Run check(const std::string& path, bool json = false, bool keep = true) {
  char out_path[] = "/tmp/llmsize_check_bench_XXXXXX";
  const int fd = ::mkstemp(out_path);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fd, 1);
    if (json)
      ::execl(LLMSIZE_BIN, "llmsize", "check", path.c_str(), "--format", "json",
              static_cast<char*>(nullptr));
    else
      ::execl(LLMSIZE_BIN, "llmsize", "check", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.max_rss_kb = ru.ru_maxrss;
  r.cpu_seconds = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                  static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  r.out_bytes = static_cast<uint64_t>(::lseek(fd, 0, SEEK_END));
  ::close(fd);
  if (keep) {
    std::ifstream in(out_path);
    std::stringstream ss;
    ss << in.rdbuf();
    r.out = ss.str();
  }
  std::remove(out_path);
  return r;
}

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/llmsize_check_plans_XXXXXX";
  const int fd = ::mkstemp(path);
  ::close(fd);
  std::ofstream(path) << text;
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  const bool smoke = argc > 1 && std::strcmp(argv[1], "--smoke") == 0;
  if (smoke) {
    const size_t n = 2000;
    const std::string path = write_temp(plan_file(n, false));
    const Run r = check(path);
    // --format json streams the same plans, in order, with the same exit code.
    const Run j = check(path, true);
    std::remove(path.c_str());
    size_t in_order = 0;
    for (size_t at = 0, i = 0; i < n; ++i) {
      at = j.out.find("\"pointer\": \"/plans/" + std::to_string(i) + "\"", at);
      if (at == std::string::npos) break;
      ++in_order;
    }
    size_t lines = 0, fails = 0, pos = 0;
    bool ordered = true;
    while (pos < r.out.size()) {
      const size_t nl = r.out.find('\n', pos);
      const std::string line = r.out.substr(pos, nl - pos);
      const std::string label = "p" + std::to_string(lines) + " (";
      ordered =
          ordered && (line.rfind("PASS " + label, 0) == 0 || line.rfind("FAIL " + label, 0) == 0);
      fails += line.rfind("FAIL ", 0) == 0;
      ++lines;
      pos = nl == std::string::npos ? r.out.size() : nl + 1;
    }
    const bool ok = lines == n && ordered && (r.code == (fails ? 1 : 0)) && in_order == n &&
                    j.code == r.code && j.out.size() > 7 &&
                    j.out.compare(j.out.size() - 7, 7, "\n  ]\n}\n") == 0;
    std::printf(
        "check smoke: %zu lines, %zu FAIL, exit %d; json: %zu plans in order, exit %d: %s\n", lines,
        fails, r.code, in_order, j.code, ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
  }
  for (const bool distinct : {false, true}) {
    const size_t n = 100000;
    const std::string path = write_temp(plan_file(n, distinct));
    for (const bool json : {false, true}) {
      const Run r = check(path, json, false);
      std::printf(
          "%s, %s: %zu plans in %.2f s wall, %.2f s CPU (%.0f plans/s of CPU), peak RSS %.0f MB, "
          "%.0f MB out, exit %d\n",
          distinct ? "all distinct" : "1,920 settings", json ? "--format json" : "table", n,
          r.seconds, r.cpu_seconds, static_cast<double>(n) / r.cpu_seconds,
          static_cast<double>(r.max_rss_kb) / 1024.0, static_cast<double>(r.out_bytes) / 1e6,
          r.code);
    }
    std::remove(path.c_str());
  }
  return 0;
}
