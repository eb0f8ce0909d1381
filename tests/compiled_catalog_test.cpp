// The catalog compiled at build time (#25) against data/*.json read by the runtime reader, as
// --catalog files are: every field of every entry, every lookup and every "did you mean" list
// must agree, so no answer can tell the two apart.
#include <stdlib.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "llmsize/io/catalog.hpp"
#include "llmsize/io/catalog_fields.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/platform_catalog.hpp"

using namespace llmsize;

namespace {

std::string source_file(const std::string& name) {
  std::ifstream in(std::string(LLMSIZE_TEST_DATA) + "/../../" + name, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

// Every field as "path=value" lines, walking catalog_fields.hpp's list; doubles to 17 digits.
struct Dump {
  std::string prefix;
  std::string out;

  template <class T>
  void value(const std::string& path, T& v) {
    if constexpr (std::is_same_v<T, std::string>) {
      out += path + "=\"" + v + "\"\n";
    } else if constexpr (std::is_enum_v<T>) {
      out += path + "=" + std::to_string(static_cast<long long>(v)) + "\n";
    } else if constexpr (std::is_floating_point_v<T>) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      out += path + "=" + buf + "\n";
    } else if constexpr (std::is_arithmetic_v<T>) {
      out += path + "=" + std::to_string(v) + "\n";
    } else if constexpr (is_optional<T>::value) {
      out += path + ".has=" + std::to_string(v.has_value()) + "\n";
      if (v) value(path, *v);
    } else if constexpr (is_vector<T>::value) {
      out += path + ".size=" + std::to_string(v.size()) + "\n";
      for (size_t i = 0; i < v.size(); ++i) value(path + "[" + std::to_string(i) + "]", v[i]);
    } else {
      Dump inner{path + ".", {}};
      catalog_fields::fields(inner, v);
      out += inner.out;
    }
  }
  template <class T>
  void operator()(const char* name, T& v) {
    value(prefix + name, v);
  }
};

template <class T>
std::string dump(T v) {
  Dump d;
  d.value("", v);
  return d.out;
}

Catalog read_json_catalog() {
  Catalog c;  // no compiled tables: the reader --catalog files go through
  c.merge_json(source_file("data/models.json"), "data/models.json");
  c.merge_json(source_file("data/gpus.json"), "data/gpus.json");
  return c;
}

}  // namespace

TEST_CASE("The compiled catalog holds data/*.json field for field as the reader reads it",
          "[catalog][compiled]") {
  const Catalog json = read_json_catalog();
  const Catalog compiled = Catalog::builtin();
  REQUIRE(compiled.models().size() == json.models().size());
  for (size_t i = 0; i < json.models().size(); ++i) {
    CatalogModel expected = json.models()[i];
    expected.origin = "built-in";
    INFO(expected.spec.id);
    CHECK(dump(compiled.models()[i]) == dump(expected));
  }
  REQUIRE(compiled.gpus().size() == json.gpus().size());
  for (size_t i = 0; i < json.gpus().size(); ++i) {
    CatalogGpu expected = json.gpus()[i];
    expected.origin = "built-in";
    INFO(expected.spec.id);
    CHECK(dump(compiled.gpus()[i]) == dump(expected));
  }
  const auto platforms = read_platforms(source_file("data/platforms.json"), "data/platforms.json");
  REQUIRE(compiled.platforms().size() == platforms.size());
  REQUIRE(builtin_platforms().size() == platforms.size());
  for (size_t i = 0; i < platforms.size(); ++i) {
    INFO(platforms[i].id);
    CHECK(dump(compiled.platforms()[i]) == dump(platforms[i]));
    CHECK(dump(builtin_platforms()[i]) == dump(platforms[i]));
  }
}

TEST_CASE("Compiled lookups find what the reader's do, before and after the entries are built",
          "[catalog][compiled]") {
  const Catalog json = read_json_catalog();
  std::vector<std::string> names = json.model_names(), gpus = json.gpu_names();
  for (const auto& m : json.models())
    names.insert(names.end(), m.shorthand.begin(), m.shorthand.end());
  // Case, unknown names and near misses too.
  for (const char* extra : {"LLAMA-3.1-8B", "70B", "H100-SXM", "no-such-model", "", "rtx-409"}) {
    names.push_back(extra);
    gpus.push_back(extra);
  }
  for (const bool built_first : {false, true}) {
    const Catalog c = Catalog::builtin();  // a fresh one: nothing built yet
    if (built_first) {
      c.models();
      c.gpus();
    }
    INFO("entries built before the lookups: " << built_first);
    CHECK(c.model_names() == json.model_names());
    CHECK(c.gpu_names() == json.gpu_names());
    for (const auto& n : names) {
      INFO(n);
      const auto* a = c.find_model(n);
      const auto* b = json.find_model(n);
      CHECK((a ? a->spec.id : "-") == (b ? b->spec.id : "-"));
      const auto* s = c.find_model_by_shorthand(n);
      const auto* t = json.find_model_by_shorthand(n);
      CHECK((s ? s->spec.id : "-") == (t ? t->spec.id : "-"));
      CHECK(c.suggest_model(n) == json.suggest_model(n));
    }
    for (const auto& n : gpus) {
      INFO(n);
      const auto* a = c.find_gpu(n);
      const auto* b = json.find_gpu(n);
      CHECK((a ? a->spec.id : "-") == (b ? b->spec.id : "-"));
      CHECK(c.suggest_gpu(n) == json.suggest_gpu(n));
    }
  }
}

TEST_CASE("A file merged over the compiled catalog replaces and adds by id as before",
          "[catalog][compiled]") {
  Catalog c = Catalog::builtin();
  const CatalogGpu* before = c.find_gpu("rtx-4090");
  REQUIRE(before);
  const size_t n = c.gpus().size();
  c.merge_json(R"({"gpus": [{"id": "rtx-4090", "name": "Mine", "vendor": "nvidia",
      "memory_gib": 48, "bandwidth_gb_per_s": 1008},
      {"id": "my-npu", "name": "NPU", "vendor": "nvidia", "memory_gib": 16,
      "bandwidth_gb_per_s": 200, "aliases": ["npu"]}]})",
               "mine.json");
  REQUIRE(c.gpus().size() == n + 1);
  CHECK(c.find_gpu("rtx-4090")->spec.name == "Mine");
  CHECK(c.find_gpu("rtx-4090")->origin == "mine.json");
  CHECK(c.find_gpu("npu")->spec.id == "my-npu");
  // Entries the file did not name are still the compiled ones, found by alias too.
  CHECK(c.find_gpu("h100")->origin == "built-in");
  CHECK(c.find_model("llama-3.1-8b")->spec.n_layer == 32);
  CHECK(c.platforms().size() == builtin_platforms().size());
}

TEST_CASE("A bad catalog row stops the build with the reader's message and writes nothing",
          "[catalog][compiled]") {
  // llmsize_compile_catalogs is the build step that turns data/*.json into C++; it is run here as
  // CMake runs it, on a copy of the real files with one bad field.
  char dir[] = "/tmp/llmsize_compile_XXXXXX";
  REQUIRE(mkdtemp(dir));
  const std::string d = dir;
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(d + "/" + name, std::ios::binary) << text;
  };
  write("models.json", source_file("data/models.json"));
  write("platforms.json", source_file("data/platforms.json"));
  write("gpus.json",
        R"({"gpus": [{"id": "x1", "name": "X1", "vendor": "nvida", "memory_gib": 8}]})");
  const std::string cmd = std::string(LLMSIZE_CATALOG_COMPILER) + " " + d + "/models.json " + d +
                          "/gpus.json " + d + "/platforms.json " + d + "/out.cpp 2>" + d + "/err";
  const int status = std::system(cmd.c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  std::ifstream err(d + "/err");
  std::stringstream ss;
  ss << err.rdbuf();
  CHECK(ss.str() ==
        "error: data/gpus.json: /gpus/0/vendor: expected nvidia, amd, intel or apple (or another "
        "maker's name), got \"nvida\" (did you mean nvidia?)\n");
  CHECK_FALSE(std::ifstream(d + "/out.cpp").good());
  std::system(("rm -rf " + d).c_str());
}

TEST_CASE(
    "A copy of data/platforms.json merges as --catalog, its three lists as the build reads them",
    "[catalog][compiled]") {
  // platforms, platforms_incomplete (rows that lack what the selection needs left out) and
  // platforms_generic: the same machines, field for field, as the compiled catalog's.
  Catalog c = Catalog::builtin();
  const auto before = c.platforms();
  c.merge_json(source_file("data/platforms.json"), "platforms.json");
  REQUIRE(c.platforms().size() == before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    INFO(before[i].id);
    CHECK(dump(c.platforms()[i]) == dump(before[i]));
  }
  // A generic row must say so; an id twice names both places.
  const std::string row = R"({"id": "my-box", "name": "Box", "vendor": "x", "class": "desktop",
      "form_factor": "tower", "gpu_mount": "pcie", "gpu_counts": [1]})";
  Catalog d = Catalog::builtin();
  CHECK_THROWS_WITH(d.merge_json(R"({"platforms_generic": [)" + row + "]}", "g.json"),
                    Catch::Contains("g.json: /platforms_generic/0"));
}
