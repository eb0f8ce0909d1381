// Runs the real llmsize binary (or any shell command line) for the CLI tests, capturing stdout,
// stderr and the exit code.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace llmsize::cli_test {

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs a shell command line (in `cwd` when given).
inline Result sh(const std::string& cmdline, const std::string& cwd = "") {
  char errpath[] = "/tmp/llmsize_cli_err_XXXXXX";
  const int fd = mkstemp(errpath);
  close(fd);
  const std::string cmd =
      (cwd.empty() ? "" : "cd '" + cwd + "' && ") + "{ " + cmdline + " ; } 2>" + errpath;
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(errpath);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::remove(errpath);
  return r;
}

// Runs `llmsize ARGS` (LLMSIZE_BIN is the built binary's path, set by CMake).
inline Result run(const std::string& args, const std::string& cwd = "") {
  return sh(std::string(LLMSIZE_BIN) + " " + args, cwd);
}

}  // namespace llmsize::cli_test
