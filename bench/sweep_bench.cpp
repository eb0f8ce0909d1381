// Speed of `llmsize sweep` on one core: configurations computed per second (every column's value,
// nothing written) and CSV rows per second, formatted (into the output buffer, then dropped) and
// written (to a temporary file, as `llmsize sweep > FILE`), on a grid of 6 models x 8 quantizations
// x 32 contexts x 10 GPUs x 8 GPU counts = 122,880 configurations, each timing including the
// sweep's setup (the weights once per model x quantization, every name resolved).
//
//   llmsize_sweep_bench            the timings (Release build)
//   llmsize_sweep_bench --smoke    ctest: a small grid, every row of the fast path compared with
//                                  plan() of the same request in CSV and JSON Lines; no timing
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands/sweep.hpp"
#include "cli/options/options.hpp"
#include "llmsize/io/catalog.hpp"

using namespace llmsize;
using namespace llmsize::cli;

namespace {

// CPU time of this thread: on a shared machine the wall clock counts other processes' turns.
double now_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

Options grid(bool smoke) {
  Options o;
  auto& p = o.planning;
  if (smoke) {
    p.models = {"llama-3.1-8b", "70b", "gemma-3-27b", "deepseek-v3"};
    p.quants = {"q4", "q8_0", "fp8"};
    p.ctxs = {"1", "4096", "32768", "131072"};
    p.gpu_list = {"rtx-4090", "h100-sxm", "m3-max", "arc-a770"};
    p.counts = {"1", "3", "8"};
    return o;
  }
  p.models = {"llama-3.1-8b", "llama-3.1-70b", "qwen2.5-32b",
              "mixtral-8x7b", "gemma-3-27b",   "deepseek-v3"};
  p.quants = {"f16", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k", "iq2_xs"};
  for (uint32_t c = 1024; c <= 128 * 1024; c += 4096) p.ctxs.push_back(std::to_string(c));
  p.gpu_list = {"rtx-3090", "rtx-4090", "rtx-5090", "l40s",     "a100-80gb-sxm",
                "h100-sxm", "h200",     "mi300x",   "m2-ultra", "arc-a770"};
  p.counts = {"1", "2", "3", "4", "5", "6", "7", "8"};
  return o;
}

int smoke() {
  const Catalog cat = Catalog::builtin();
  int bad = 0;
  for (const char* format : {"csv", "jsonl"}) {
    Options o = grid(true);
    o.planning.sweep_format = format;
    Sweep s(o, cat);
    for (uint64_t i = 0; i < s.size(); ++i) {
      const std::string fast = s.fast_row(i), slow = s.slow_row(i);
      if (fast != slow) {
        if (bad++ < 3)
          std::fprintf(stderr, "sweep_bench: %s row %llu differs\nPlanner: %splan(): %s", format,
                       static_cast<unsigned long long>(i), fast.c_str(), slow.c_str());
      }
    }
    std::printf("sweep_bench --smoke: %s, %llu rows compared with plan()\n", format,
                static_cast<unsigned long long>(s.size()));
  }
  if (bad) std::fprintf(stderr, "sweep_bench: %d rows differ\n", bad);
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--smoke") == 0) return smoke();
  const Catalog cat = Catalog::builtin();
  const Options o = grid(false);

  // Configurations computed: every value of every column, nothing formatted.
  double best_compute = 1e9;
  uint64_t rows = 0, fits = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = now_s();
    Sweep s(o, cat);
    fits = s.compute_only();
    const double t = now_s() - t0;
    rows = s.size();
    if (t < best_compute) best_compute = t;
  }
  // CSV rows formatted: computed and formatted into the output buffer, which is dropped.
  double best_format = 1e9;
  uint64_t bytes = 0, written = 0;
  for (int rep = 0; rep < 3; ++rep) {
    uint64_t n = 0;
    const double t0 = now_s();
    Sweep s(o, cat);
    written = s.run([&n](std::string_view chunk) { n += chunk.size(); });
    const double t = now_s() - t0;
    bytes = n;
    if (t < best_format) best_format = t;
  }
  // CSV rows written to a file: the same, written to a temporary file (unlinked at once) as
  // `llmsize sweep > FILE` writes them, the kernel's copy into the page cache included in the
  // thread's CPU time.
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/llmsize_sweep_bench_XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    std::perror("sweep_bench: mkstemp");
    return 2;
  }
  unlink(path.c_str());
  std::FILE* file = fdopen(fd, "w");
  double best_write = 1e9;
  for (int rep = 0; rep < 3; ++rep) {
    std::fflush(file);
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
      std::perror("sweep_bench: truncating the output file");
      return 2;
    }
    const double t0 = now_s();
    Sweep s(o, cat);
    s.run([file](std::string_view chunk) {
      if (std::fwrite(chunk.data(), 1, chunk.size(), file) != chunk.size()) {
        std::perror("sweep_bench: writing the output file");
        std::exit(2);
      }
    });
    std::fflush(file);
    const double t = now_s() - t0;
    if (t < best_write) best_write = t;
  }
  std::fclose(file);
  std::printf(
      "grid: 6 models x 8 quants x 32 contexts x 10 GPUs x 8 counts = %llu configurations (%llu "
      "fit)\n",
      static_cast<unsigned long long>(rows), static_cast<unsigned long long>(fits));
  std::printf("computed: %.3f s = %.2f M configurations/s (best of 3, CPU time, setup included)\n",
              best_compute, static_cast<double>(rows) / best_compute / 1e6);
  const auto line = [&](const char* what, double t) {
    std::printf(
        "CSV %s: %llu rows, %.1f MB in %.3f s = %.0f k rows/s, %.0f MB/s (best of 3, CPU "
        "time, setup included)\n",
        what, static_cast<unsigned long long>(written), static_cast<double>(bytes) / 1e6, t,
        static_cast<double>(written) / t / 1e3, static_cast<double>(bytes) / t / 1e6);
  };
  line("formatted", best_format);
  line("written to a file", best_write);
  return 0;
}
