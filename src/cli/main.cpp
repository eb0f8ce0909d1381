// llmsize: parse, compute, render. Errors are reported once, here.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "cli/commands/run.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace {

// Messages are escaped once more here (idempotent) and cut, whatever built them.
constexpr size_t kMessageMax = 4096;

int fail(const std::string& what) {
  const std::string m = llmsize::sanitize(what, kMessageMax);
  std::fprintf(stderr, "llmsize: error: %s\n", m.c_str());
  return 2;
}

// What the command was reading, for errors that do not say (out of memory, a library's own).
std::string inputs(const llmsize::cli::Options& o) {
  std::string s;
  auto add = [&](const std::string& x) {
    s += (s.empty() ? "" : ", ") + llmsize::sanitize(x, 256);
  };
  if (!o.model.empty()) add(o.model);
  for (const auto& f : o.planning.plan_files) add(f);
  for (const auto& f : o.catalogs) add("--catalog " + f);
  return s.empty() ? "the input" : s;
}

// Writes `out` to stdout and closes it: a failed write (a full disk, a closed pipe) is an error.
int write_stdout(const std::string& out) {
  errno = 0;
  const bool ok = std::fwrite(out.data(), 1, out.size(), stdout) == out.size() &&
                  std::fflush(stdout) == 0 && !std::ferror(stdout);
  const int e = errno;
  if (std::fclose(stdout) != 0 || !ok)
    return fail(std::string("cannot write to standard output (") +
                std::strerror(e       ? e
                              : errno ? errno
                                      : EIO) +
                ")");
  return 0;
}

// "--gpu ''" would otherwise read as no --gpu at all: a value given empty is refused by name.
// --catalog keeps its own message for an empty path ("'' (an empty path): cannot open").
std::string empty_value(const CLI::App& app) {
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_type_size() == 0 || opt->get_positional() || opt->get_lnames().empty()) continue;
    const std::string name = "--" + opt->get_lnames().front();
    if (name == "--catalog") continue;
    for (const auto& v : opt->results())
      if (v.empty()) return name + ": expected a value, got ''";
  }
  for (const CLI::App* sub : app.get_subcommands())
    if (std::string m = empty_value(*sub); !m.empty()) return m;
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"", "llmsize"};
  llmsize::cli::Options opts;
  llmsize::cli::setup_app(app, opts);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ValidationError& e) {
    // A flag's value out of its range: "--ctx: expected an integer from 1 to 16777216, got '0'".
    return fail(e.what());
  } catch (const CLI::ParseError& e) {
    const std::string m = llmsize::sanitize(e.what(), kMessageMax);
    std::fprintf(stderr, "llmsize: error: %s\nRun with --help for the options.\n", m.c_str());
    return 2;
  }
  if (const std::string m = empty_value(app); !m.empty()) return fail(m);
  try {
    std::string out;
    const int code = llmsize::cli::run(opts, out);
    if (write_stdout(out) != 0) return 2;
    return code;
  } catch (const llmsize::InputError& e) {
    return fail(e.what());
  } catch (const llmsize::OverflowError& e) {
    return fail(inputs(opts) + ": " + e.what() + " (an input is absurdly large)");
  } catch (const std::bad_alloc&) {
    return fail(inputs(opts) + ": out of memory (an input is too large for the memory available)");
  } catch (const std::exception& e) {
    // A library's own exception (std::invalid_argument, std::out_of_range, ...): a bug to report,
    // still worded with the input it came from.
    return fail(inputs(opts) + ": " + e.what());
  }
}
