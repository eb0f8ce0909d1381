// The CLI tests' check that a command line is refused as the brief asks: exit 2, nothing on
// stdout, the reason on stderr.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "run_binary.hpp"

namespace llmsize::cli_test {

// `args` is refused: exit 2, nothing on stdout, `message` somewhere in stderr.
inline void check_refused(const std::string& args, const std::string& message) {
  const auto r = run(args);
  INFO(args << "\n" << r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find(message) != std::string::npos);
}

}  // namespace llmsize::cli_test
