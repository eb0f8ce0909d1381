// Shared helpers for the unit tests: catalog models and the copied reference data.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "llmsize/io/catalog.hpp"

namespace llmsize::test {

inline const Catalog& catalog() {
  static const Catalog c = Catalog::builtin();
  return c;
}

inline const ModelSpec& model(const std::string& id) {
  const auto* m = catalog().find_model(id);
  if (!m) throw std::runtime_error("test model not in catalog: " + id);
  return m->spec;
}

inline nlohmann::json data_file(const std::string& name) {
  std::ifstream in(std::string(LLMSIZE_TEST_DATA) + "/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

constexpr double kMiBd = 1024.0 * 1024.0;
constexpr double kGiBd = 1024.0 * 1024.0 * 1024.0;

}  // namespace llmsize::test
