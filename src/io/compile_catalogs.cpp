// The build's catalog compiler: reads data/models.json, data/gpus.json and data/platforms.json
// with the reader `--catalog` files go through (Catalog::merge_json, read_platforms), so a bad
// row stops the build with the message that reader gives ("data/gpus.json: /gpus/3/vendor: ..."),
// then writes them as C++ (build/generated/compiled_catalog.cpp): one function per entry that
// makes it field by field, and sorted name tables. The binary then starts without parsing JSON
// and builds only the entries an answer reads (#25).
//
//   llmsize_compile_catalogs MODELS.json GPUS.json PLATFORMS.json OUT.cpp
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "llmsize/io/catalog.hpp"
#include "llmsize/io/catalog_fields.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/platform_catalog.hpp"

namespace llmsize {
namespace {

// A C++ string literal of s: printable ASCII as is, everything else as a 3-digit octal escape
// (never swallows the next character, as a hex escape would).
std::string literal(const std::string& s) {
  std::string r = "\"";
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      r += '\\';
      r += ch;
    } else if (u >= 0x20 && u < 0x7f && ch != '?') {
      r += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", static_cast<unsigned>(u));
      r += buf;
    }
  }
  return r + "\"";
}

// The shortest text that reads back as exactly d, with a decimal point so it is a double.
std::string double_literal(double d) {
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
std::string scalar_literal(const std::string& path, const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return literal(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_enum_v<T>) {
    return "static_cast<decltype(" + path + ")>(" +
           std::to_string(static_cast<long long>(static_cast<std::underlying_type_t<T>>(v))) + ")";
  } else if constexpr (std::is_floating_point_v<T>) {
    return double_literal(v);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return std::to_string(v) + "ULL";
  } else {
    static_assert(std::is_same_v<T, uint32_t>, "a field type the compiler does not write");
    return std::to_string(v) + "u";
  }
}

// The statements that set every field of an object, one per scalar: "m.spec.n_layer = 80u;".
struct Statements {
  std::string prefix;  // "m." or "m.spec.layer_kinds[2]."
  std::vector<std::string> out;

  template <class T>
  void operator()(const char* name, T& value) {
    const std::string path = prefix + name;
    if constexpr (std::is_same_v<T, std::string>) {
      out.push_back(path + ".assign(" + literal(value) + ", " + std::to_string(value.size()) +
                    ");");
    } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) {
      out.push_back(path + " = " + scalar_literal(path, value) + ";");
    } else if constexpr (is_optional<T>::value) {
      if (value) {
        out.push_back(path + ".emplace();");
        Statements inner{path + "->", {}};
        catalog_fields::fields(inner, *value);
        for (auto& s : inner.out) out.push_back(std::move(s));
      }
    } else if constexpr (is_vector<T>::value) {
      using E = typename T::value_type;
      if constexpr (std::is_class_v<E> && !std::is_same_v<E, std::string>) {
        out.push_back(path + ".resize(" + std::to_string(value.size()) + ");");
        for (size_t i = 0; i < value.size(); ++i)
          for (auto& s : changed(path + "[" + std::to_string(i) + "].", value[i]))
            out.push_back(std::move(s));
      } else {
        std::string list;
        for (const auto& e : value) list += (list.empty() ? "" : ", ") + scalar_literal(path, e);
        out.push_back(path + " = {" + list + "};");
      }
    } else {
      Statements inner{path + ".", {}};
      catalog_fields::fields(inner, value);
      for (auto& s : inner.out) out.push_back(std::move(s));
    }
  }

  // The statements of `obj` that a default-constructed T does not already satisfy.
  template <class T>
  static std::vector<std::string> changed(const std::string& prefix, T& obj) {
    Statements mine{prefix, {}}, defaults{prefix, {}};
    catalog_fields::fields(mine, obj);
    T fresh{};
    catalog_fields::fields(defaults, fresh);
    std::sort(defaults.out.begin(), defaults.out.end());
    std::vector<std::string> keep;
    for (auto& s : mine.out)
      if (!std::binary_search(defaults.out.begin(), defaults.out.end(), s))
        keep.push_back(std::move(s));
    return keep;
  }
};

template <class T>
void write_builders(std::ostream& os, const char* type, const char* fn, std::vector<T>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    os << type << " " << fn << "_" << i << "() {\n  " << type << " e;\n";
    for (const auto& s : Statements::changed("e.", items[i])) os << "  " << s << "\n";
    os << "  return e;\n}\n";
  }
  os << "constexpr " << type << " (*k_" << fn << "[])() = {";
  for (size_t i = 0; i < items.size(); ++i) os << (i ? ", " : "") << fn << "_" << i;
  os << "};\n" << type << " build_" << fn << "(size_t i) { return k_" << fn << "[i](); }\n\n";
}

// A sorted name table; a name several entries share keeps the first in catalog order.
void write_names(std::ostream& os, const char* var, std::vector<std::pair<std::string, size_t>> v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  v.erase(std::unique(v.begin(), v.end(),
                      [](const auto& a, const auto& b) { return a.first == b.first; }),
          v.end());
  os << "constexpr CatalogName " << var << "[] = {";
  for (const auto& [name, index] : v) os << "\n    {" << literal(name) << ", " << index << "},";
  if (v.empty()) os << "{}";
  os << "};\nconstexpr size_t " << var << "_size = " << v.size() << ";\n";
}

void write_list(std::ostream& os, const char* var, const std::vector<std::string>& v) {
  os << "constexpr std::string_view " << var << "[] = {";
  for (const auto& s : v) os << "\n    " << literal(s) << ",";
  if (v.empty()) os << "{}";
  os << "};\nconstexpr size_t " << var << "_size = " << v.size() << ";\n";
}

template <class Entry, class Names>
std::vector<std::pair<std::string, size_t>> names_of(const std::vector<Entry>& v, Names names) {
  std::vector<std::pair<std::string, size_t>> r;
  for (size_t i = 0; i < v.size(); ++i)
    for (const auto& n : names(v[i])) r.emplace_back(n, i);
  return r;
}

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(std::string(path) + ": cannot open");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void compile(const char* models_path, const char* gpus_path, const char* platforms_path,
             const char* out_path) {
  Catalog cat;
  cat.merge_json(read_file(models_path), "data/models.json");
  cat.merge_json(read_file(gpus_path), "data/gpus.json");
  std::vector<CatalogModel> models = cat.models();
  std::vector<CatalogGpu> gpus = cat.gpus();
  for (auto& m : models) m.origin = "built-in";
  for (auto& g : gpus) g.origin = "built-in";
  std::vector<PlatformModel> platforms =
      read_platforms(read_file(platforms_path), "data/platforms.json");

  std::ostringstream os;
  os << "// Generated by llmsize_compile_catalogs (src/io/compile_catalogs.cpp) from data/*.json. "
        "Do not edit.\n#include \"compiled_catalog.hpp\"\n\nnamespace llmsize {\nnamespace {\n\n";
  write_builders(os, "CatalogModel", "model", models);
  write_builders(os, "CatalogGpu", "gpu", gpus);
  write_builders(os, "PlatformModel", "platform", platforms);
  const auto id = [](const auto& e) { return std::vector<std::string>{e.spec.id}; };
  write_names(os, "kModelIds", names_of(models, id));
  write_names(os, "kModelAliases",
              names_of(models, [](const CatalogModel& m) { return m.aliases; }));
  write_names(os, "kModelShorthands",
              names_of(models, [](const CatalogModel& m) { return m.shorthand; }));
  write_names(os, "kGpuIds", names_of(gpus, id));
  write_names(os, "kGpuAliases", names_of(gpus, [](const CatalogGpu& g) { return g.aliases; }));
  std::vector<std::string> model_names, gpu_names;
  for (const auto& m : models) {
    model_names.push_back(m.spec.id);
    model_names.insert(model_names.end(), m.aliases.begin(), m.aliases.end());
  }
  for (const auto& g : gpus) {
    gpu_names.push_back(g.spec.id);
    gpu_names.insert(gpu_names.end(), g.aliases.begin(), g.aliases.end());
  }
  write_list(os, "kModelNames", model_names);
  write_list(os, "kGpuNames", gpu_names);
  os << "\nconstexpr CompiledCatalog kCatalog{\n    " << models.size() << ", " << gpus.size()
     << ", " << platforms.size()
     << ",\n    {kModelIds, kModelIds_size}, {kModelAliases, kModelAliases_size},\n"
        "    {kModelShorthands, kModelShorthands_size}, {kGpuIds, kGpuIds_size},\n"
        "    {kGpuAliases, kGpuAliases_size}, {kModelNames, kModelNames_size},\n"
        "    {kGpuNames, kGpuNames_size}, build_model, build_gpu, build_platform};\n\n"
        "}  // namespace\n\nconst CompiledCatalog& compiled_catalog() { return kCatalog; }\n\n"
        "}  // namespace llmsize\n";

  // Written only when it changed, so an unchanged catalog recompiles nothing.
  const std::string text = os.str();
  std::ifstream old(out_path, std::ios::binary);
  if (old) {
    std::ostringstream was;
    was << old.rdbuf();
    if (was.str() == text) return;
  }
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw InputError(std::string(out_path) + ": cannot write");
}

}  // namespace
}  // namespace llmsize

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s MODELS.json GPUS.json PLATFORMS.json OUT.cpp\n", argv[0]);
    return 2;
  }
  try {
    llmsize::compile(argv[1], argv[2], argv[3], argv[4]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
