#include "cli/resolve.hpp"

#include <sys/stat.h>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/model_file.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize::cli {
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

}  // namespace

ModelSpec generic_dense_model(double params) {
  // Llama-3 proportions: head_dim 128, 8 KV heads, n_ff = 3.5 x n_embd, vocab 128256, untied;
  // width grows with depth as n_embd ~ 128 x n_layer (Llama-3.1-8B: 32 layers x 4096).
  ModelSpec m;
  m.arch = Arch::llama;
  m.n_vocab = 128256;
  m.n_head_kv = 8;
  m.n_embd_head_k = m.n_embd_head_v = 128;
  m.n_ctx_train = 131072;
  const double per_layer_coeff = 2.0 + 2.0 * 1024 / 4096 + 3 * 3.5;  // at n_embd 4096, ~12.5
  double n_layer = std::cbrt(params / (per_layer_coeff * 128.0 * 128.0));
  n_layer = std::max(4.0, n_layer);
  uint32_t n_embd = static_cast<uint32_t>(std::max(1.0, std::round(128.0 * n_layer / 512.0))) * 512;
  n_embd = std::max<uint32_t>(n_embd, 1024);
  m.n_embd = n_embd;
  m.n_head = n_embd / 128;
  m.n_ff = static_cast<uint32_t>(std::round(3.5 * n_embd / 256.0)) * 256;
  const double e = n_embd;
  const double per_layer = 2 * e * e + 2 * e * 1024 + 3 * e * m.n_ff + 2 * e;
  const double rest = 2.0 * e * m.n_vocab;
  m.n_layer = static_cast<uint32_t>(std::max(1.0, std::round((params - rest) / per_layer)));
  return m;
}

std::string integer_problem(const std::string& text, uint64_t lo, uint64_t hi) {
  const std::string problem = "expected an integer from " + std::to_string(lo) + " to " +
                              std::to_string(hi) + ", got '" + sanitize(text) + "'";
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return problem;
  // 19 digits always fit in 64 bits; anything longer is out of range anyway.
  if (text.size() > 19 || std::stoull(text) < lo || std::stoull(text) > hi) return problem;
  return "";
}

std::string number_problem(const std::string& text, double lo, double hi) {
  // Decimal only: strtod would also take hex floats (0x1p-3), "inf" and "nan".
  const bool decimal = text.find_first_not_of("0123456789.eE+-") == std::string::npos;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  char buf[128];
  std::snprintf(buf, sizeof buf, "expected a number from %g to %g", lo, hi);
  if (text.empty() || !decimal || end != text.c_str() + text.size() || !(v >= lo && v <= hi))
    return std::string(buf) + ", got '" + sanitize(text) + "'";
  return "";
}

uint64_t parse_int(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  const std::string problem = integer_problem(text, lo, hi);
  if (!problem.empty()) throw InputError(flag + ": " + problem);
  return std::stoull(text);
}

double parse_real(const std::string& flag, const std::string& text, double lo, double hi) {
  const std::string problem = number_problem(text, lo, hi);
  if (!problem.empty()) throw InputError(flag + ": " + problem);
  return std::strtod(text.c_str(), nullptr);
}

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
  static const std::regex kSize(R"(^(\d{1,4}x)?(\d{1,5}(\.\d{1,3})?)b$)", std::regex::icase);
  std::smatch sm;
  std::string lower = text;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (std::regex_match(lower, sm, kSize)) {
    if (const auto* cm = cat.find_model_by_shorthand(lower)) {
      r.spec = cm->spec;
      r.source = "shorthand";
      r.assumption =
          "\"" + text + "\" is the catalog's reference model of that size, " + cm->spec.id;
      return r;
    }
    if (sm[1].matched)
      throw InputError(where + ": no catalog model of size " + text +
                       "; name an MoE model (llmsize models) or pass its config.json");
    const double b = std::stod(sm[2].str());
    if (b < 0.05 || b > 5000)
      throw InputError(where + ": size " + sanitize(text) + " is outside 0.05b to 5000b");
    r.spec = generic_dense_model(b * 1e9);
    r.spec.name = "generic " + sm[2].str() + "B dense";
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

}  // namespace llmsize::cli
