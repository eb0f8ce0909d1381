#include "llmsize/io/resolve.hpp"

#include <sys/stat.h>

#include <cmath>
#include <optional>
#include <string>

#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/model_file.hpp"
#include "llmsize/model/generic_model.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize {
namespace {

bool is_regular_file(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_directory(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

ModelSpec read_config_json(const std::string& path) {
  return read_hf_config_file(path);
}

// A model file read header-only: the architecture and the exact per-tensor weights.
ResolvedModel resolve_model_file(const std::string& path) {
  ModelFile f = read_model_file(path);
  if (!f.spec) throw InputError(sanitize(path, 256) + ": " + f.spec_missing_reason);
  ResolvedModel r;
  r.spec = *f.spec;
  r.source = f.format;
  r.exact_weights = f.weights;
  r.file_quant = f.file_quant;
  for (const auto& n : f.notes) r.assumption += (r.assumption.empty() ? "" : "; ") + n;
  return r;
}

// A size shorthand, lowercase: [E "x"] B "b", E 1-4 digits (experts), B 1-5 digits with an
// optional "." and 1-3 more: "70b", "0.5b", "8x7b".
struct SizeShorthand {
  bool experts = false;  // "8x7b"
  std::string billions;  // "7"
};

std::optional<SizeShorthand> parse_size_shorthand(const std::string& s) {
  const auto digits = [&](size_t at) {
    size_t n = 0;
    while (at + n < s.size() && s[at + n] >= '0' && s[at + n] <= '9') ++n;
    return n;
  };
  SizeShorthand r;
  size_t at = 0;
  size_t n = digits(at);
  if (n >= 1 && n <= 4 && at + n < s.size() && s[at + n] == 'x') {
    r.experts = true;
    at += n + 1;
    n = digits(at);
  }
  if (n < 1 || n > 5) return std::nullopt;
  size_t end = at + n;
  if (end < s.size() && s[end] == '.') {
    const size_t frac = digits(end + 1);
    if (frac < 1 || frac > 3) return std::nullopt;
    end += 1 + frac;
  }
  if (end + 1 != s.size() || s[end] != 'b') return std::nullopt;
  r.billions = s.substr(at, end - at);
  return r;
}

}  // namespace

ResolvedModel resolve_model(const std::string& text, const Catalog& cat, const std::string& where) {
  ResolvedModel r;
  if (text.empty())
    throw InputError(
        where +
        ": missing (a catalog id such as llama-3.1-8b, a size such as 70b, or a config.json)");
  if (const auto* cm = cat.find_model(text)) {
    r.spec = cm->spec;
    r.source = "catalog";
    return r;
  }
  // Files: config.json (or a directory holding one).
  const bool looks_like_path = text.find('/') != std::string::npos || ends_with(text, ".json") ||
                               ends_with(text, ".gguf") || ends_with(text, ".safetensors");
  if (is_directory(text)) {
    if (is_model_file_path(text)) return resolve_model_file(text);
    const std::string cfg = text + "/config.json";
    if (!is_regular_file(cfg)) throw InputError(not_a_model_directory(text));
    r.spec = read_config_json(cfg);
    r.source = "config.json";
    return r;
  }
  if (is_model_file_path(text)) return resolve_model_file(text);
  if (is_regular_file(text)) {
    r.spec = read_config_json(text);
    r.source = "config.json";
    return r;
  }
  struct stat st {};
  if (::stat(text.c_str(), &st) == 0) {
    // A FIFO, a device: the reader refuses it, saying what it is ("not a regular file (a FIFO)").
    r.spec = read_config_json(text);
    r.source = "config.json";
    return r;
  }
  if (looks_like_path) throw InputError(sanitize(text, 256) + ": no such file");

  // Size shorthands: 70b, 0.5b, 8x7b.
  std::string lower = text;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (const auto size = parse_size_shorthand(lower)) {
    if (const auto* cm = cat.find_model_by_shorthand(lower)) {
      r.spec = cm->spec;
      r.source = "shorthand";
      r.assumption =
          "\"" + text + "\" is the catalog's reference model of that size, " + cm->spec.id;
      return r;
    }
    if (size->experts)
      throw InputError(where + ": no catalog model of size " + text +
                       "; name an MoE model (llmsize models) or pass its config.json");
    const double b = std::stod(size->billions);
    if (b < 0.05 || b > 5000)
      throw InputError(where + ": size " + sanitize(text) + " is outside 0.05b to 5000b");
    r.spec = generic_dense_model(b * 1e9);
    r.spec.name = "generic " + size->billions + "B dense";
    r.source = "generic";
    r.assumption = "no catalog model is the reference for \"" + text +
                   "\": a generic dense Llama-3-like architecture of that size (" +
                   std::to_string(r.spec.n_layer) + " layers, n_embd " +
                   std::to_string(r.spec.n_embd) + ", GQA 8 KV heads of 128, vocab 128256)";
    return r;
  }
  throw InputError(where + ": unknown model '" + sanitize(text) + "'" + cat.suggest_model(text) +
                   "; see llmsize models");
}

}  // namespace llmsize
