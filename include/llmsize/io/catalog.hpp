// The catalogs of models, GPUs and platforms: data/*.json compiled into the binary at build time
// (src/io/compile_catalogs.cpp) plus user files given with --catalog, whose entries add to or
// replace the built-in ones by id.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "llmsize/gpu.hpp"
#include "llmsize/machine/platform.hpp"
#include "llmsize/model/model_spec.hpp"
#include "llmsize/serving/launch.hpp"

namespace llmsize {

struct CatalogModel {
  ModelSpec spec;
  std::vector<std::string> aliases;
  std::vector<std::string> shorthand;  // size shorthands this model stands for ("70b")
  std::string hf_repo;
  std::string source;
  std::string origin;  // "built-in" or the catalog file it came from
  // What its deployment guides pass vLLM and SGLang; absent for most (an empty slot costs
  // nothing to make, as the compiled catalog makes one per model at start).
  std::optional<ModelServingGuide> serving;
};

struct CatalogGpu {
  GpuSpec spec;
  std::vector<std::string> aliases;
  std::string source;  // the memory/bandwidth sources, joined
  std::string origin;
};

struct CompiledCatalog;

class Catalog {
 public:
  // The catalogs compiled into the binary: nothing is parsed, and an entry is built the first
  // time a lookup or a listing reads it (the build validated every one). Not for use from
  // several threads at once until everything has been read once (models(), gpus(), platforms()).
  static Catalog builtin();
  // Adds or replaces entries from a JSON file with "models", "gpus" and/or "platforms" arrays in
  // the built-in format (at most io::kCatalogInput bytes, a regular file). Throws InputError naming
  // the file and the JSON path of a bad field; an id given twice in one file is an error, an id of
  // an earlier catalog is replaced.
  void merge_file(const std::string& path);
  // Same, from text already read; `where` names it in errors.
  void merge_json(std::string_view text, const std::string& where);

  const std::vector<CatalogModel>& models() const;
  const std::vector<CatalogGpu>& gpus() const;
  // data/platforms.json's platforms, then those of the --catalog files (added or replacing by id).
  const std::vector<PlatformModel>& platforms() const;
  // The platforms of class `least` and above (workstation: workstations and servers), with the
  // unified-memory computers (which take only their own GPU): a buyer's class policy (#21).
  // Built once per class and kept until the catalog changes.
  const std::vector<PlatformModel>& platforms_from(PlatformClass least) const;

  // By id or alias, case-insensitively; nullptr when absent.
  const CatalogModel* find_model(std::string_view name) const;
  const CatalogModel* find_model_by_shorthand(std::string_view shorthand) const;
  const CatalogGpu* find_gpu(std::string_view name) const;
  // Every id and alias, for "did you mean".
  std::vector<std::string> model_names() const;
  std::vector<std::string> gpu_names() const;
  // " (did you mean a, b?)" naming up to three distinct ids whose id or alias is close; or "".
  std::string suggest_model(std::string_view name) const;
  std::string suggest_gpu(std::string_view name) const;

 private:
  // Builds entry i of the compiled tables when it is not built yet.
  const CatalogModel& model_at(size_t i) const;
  const CatalogGpu& gpu_at(size_t i) const;
  // Builds every entry and the id indexes, and leaves the compiled tables: before a merge.
  void build_all();

  // The build's tables while no file has been merged (builtin()); nullptr afterwards.
  const CompiledCatalog* compiled_ = nullptr;
  // With compiled_: one slot per entry, default-constructed until built (*_built_ says which;
  // emptied once all are).
  mutable std::vector<CatalogModel> models_;
  mutable std::vector<CatalogGpu> gpus_;
  mutable std::vector<PlatformModel> platforms_;
  mutable std::vector<bool> model_built_, gpu_built_;
  mutable size_t models_unbuilt_ = 0, gpus_unbuilt_ = 0;
  mutable bool platforms_unbuilt_ = false;
  mutable std::unordered_map<int, std::vector<PlatformModel>> platforms_from_;
  std::unordered_map<std::string, size_t> model_index_, gpu_index_, platform_index_;  // id -> pos
};

}  // namespace llmsize
