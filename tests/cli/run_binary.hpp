// Runs the real llmsize binary (or any shell command line) for the CLI tests, capturing stdout,
// stderr and the exit code.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// The cells of a CSV text as a spreadsheet reads it (RFC 4180: a quoted cell may hold commas,
// doubled quotes, CR and LF); rows end at an unquoted LF (a CR before it is dropped).
inline std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      if (!cell.empty() && cell.back() == '\r') cell.pop_back();
      row.push_back(cell);
      cell.clear();
      rows.push_back(row);
      row.clear();
    } else {
      cell += c;
    }
  }
  if (!cell.empty() || !row.empty()) {
    row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace llmsize::cli_test
