// The catalogs as the build compiled them (src/io/compile_catalogs.cpp writes the tables from
// data/*.json): a builder per entry, which makes that entry as the JSON reader would, and sorted
// name tables, so a lookup neither parses nor builds the entries it does not return.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "llmsize/io/catalog.hpp"

namespace llmsize {

// One id, alias or shorthand and the position of its entry in catalog order.
struct CatalogName {
  std::string_view name;
  uint32_t index = 0;
};

template <class T>
struct CatalogTable {
  const T* data = nullptr;
  size_t size = 0;
  const T* begin() const { return data; }
  const T* end() const { return data + size; }
};

struct CompiledCatalog {
  size_t n_models = 0, n_gpus = 0, n_platforms = 0;
  // Sorted by name; a name that several entries share keeps the first entry in catalog order.
  CatalogTable<CatalogName> model_ids, model_aliases, model_shorthands, gpu_ids, gpu_aliases;
  // Each entry's id then its aliases, in catalog order (the "did you mean" candidates).
  CatalogTable<std::string_view> model_names, gpu_names;
  CatalogModel (*build_model)(size_t index) = nullptr;
  CatalogGpu (*build_gpu)(size_t index) = nullptr;
  PlatformModel (*build_platform)(size_t index) = nullptr;
};

// Defined by the generated file (build/generated/compiled_catalog.cpp).
const CompiledCatalog& compiled_catalog();

}  // namespace llmsize
