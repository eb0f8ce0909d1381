// The catalogs compiled into the binary (build/generated/compiled_catalog.cpp): kept apart from
// the JSON reader so the build's catalog compiler links the reader without the tables it writes.
#include "compiled_catalog.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/platform_catalog.hpp"

namespace llmsize {

Catalog Catalog::builtin() {
  const CompiledCatalog& t = compiled_catalog();
  Catalog c;
  c.compiled_ = &t;
  c.models_.resize(t.n_models);
  c.model_built_.assign(t.n_models, false);
  c.models_unbuilt_ = t.n_models;
  c.gpus_.resize(t.n_gpus);
  c.gpu_built_.assign(t.n_gpus, false);
  c.gpus_unbuilt_ = t.n_gpus;
  c.platforms_.resize(t.n_platforms);
  c.platforms_unbuilt_ = t.n_platforms > 0;
  return c;
}

const std::vector<PlatformModel>& builtin_platforms() {
  static const std::vector<PlatformModel> v = [] {
    const CompiledCatalog& t = compiled_catalog();
    std::vector<PlatformModel> r;
    r.reserve(t.n_platforms);
    for (size_t i = 0; i < t.n_platforms; ++i) r.push_back(t.build_platform(i));
    return r;
  }();
  return v;
}

}  // namespace llmsize
