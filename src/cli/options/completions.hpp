// Shell completions (bash, zsh, fish) and a man page, generated from the CLI11 definition itself
// (setup_app + setup_planning), so they list exactly the options the binary accepts. The build
// runs `llmsize completions bash|zsh|fish` and `llmsize man` and `cmake --install` installs them.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace llmsize::cli {

// REQUIRES: shell is bash, zsh or fish (else InputError).
std::string completion_script(const CLI::App& app, const std::string& shell);

// roff source of llmsize(1).
std::string man_page(const CLI::App& app);

}  // namespace llmsize::cli
