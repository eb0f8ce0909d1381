// --explain's memory lines, worded by the CLI (src/cli/render/derivations.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/render/derivations.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/memory/estimate.hpp"

using namespace llmsize;

TEST_CASE("explain derivations cover every part with the numbers put in", "[estimate]") {
  const Catalog cat = Catalog::builtin();
  const ModelSpec& m = cat.find_model("llama-3.1-8b")->spec;
  RunConfig c;
  c.quant = find_quant_preset("q8_0");
  c.kv.n_ctx = 4096;
  const auto e = estimate(m, c);
  std::vector<std::string> q;
  for (const auto& d : cli::derivations(e, m, c)) q.push_back(d.quantity);
  for (const char* part : {"weights", "KV cache", "activations", "overhead", "headroom", "total"})
    CHECK(std::find(q.begin(), q.end(), part) != q.end());
}
