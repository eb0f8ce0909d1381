#include "cli/commands/inspect.hpp"

#include "cli/options/request.hpp"
#include "cli/render/inspect.hpp"
#include "llmsize/io/model_file.hpp"

namespace llmsize::cli {

std::string run_inspect(const std::string& path, const std::string& format) {
  check_choice("--format", format, {"table", "json"});
  const ModelFile f = read_model_file(path);
  return format == "json" ? render_model_file_json(f) : render_model_file_table(f);
}

}  // namespace llmsize::cli
