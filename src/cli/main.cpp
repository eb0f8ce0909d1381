// llmsize: parse, compute, render. Errors are reported once, here.
#include <cstdio>
#include <string>

#include "cli/app.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/units.hpp"

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
    std::fprintf(stderr, "llmsize: error: %s\n", e.what());
    return 2;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "llmsize: error: %s\nRun with --help for the options.\n", e.what());
    return 2;
  }
  try {
    std::string out;
    const int code = llmsize::cli::run(opts, out);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return code;
  } catch (const llmsize::InputError& e) {
    std::fprintf(stderr, "llmsize: error: %s\n", e.what());
  } catch (const llmsize::OverflowError& e) {
    std::fprintf(stderr, "llmsize: error: %s (an input is absurdly large)\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llmsize: error: %s\n", e.what());
  }
  return 2;
}
