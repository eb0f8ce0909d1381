// MODEL as the user names it: catalog ids and aliases, size shorthands, a generic size.
#include <catch2/catch.hpp>

#include "llmsize/io/error.hpp"
#include "llmsize/io/resolve.hpp"
#include "llmsize/model/generic_model.hpp"
#include "test_util.hpp"

using namespace llmsize;

TEST_CASE("a generic dense model has Llama-3 proportions at the size asked", "[resolve]") {
  const ModelSpec m = generic_dense_model(123e9);
  // n_layer0 = cbrt(123e9 / (12.5 x 128 x 128)) = 84.37 -> n_embd = round(128 x 84.37 / 512) x 512
  // = 21 x 512 = 10752; n_head = 10752 / 128 = 84; n_ff = round(3.5 x 10752 / 256) x 256 = 37632.
  CHECK(m.n_embd == 10752);
  CHECK(m.n_head == 84);
  CHECK(m.n_head_kv == 8);
  CHECK(m.n_ff == 37632);
  // per layer 2e^2 + 2e x 1024 + 3e x n_ff + 2e = 1,467,116,544; embeddings 2e x 128256 =
  // 2,758,017,024; n_layer = round((123e9 - 2,758,017,024) / 1,467,116,544) = round(81.96) = 82.
  CHECK(m.n_layer == 82);
}

TEST_CASE("MODEL resolves catalog names, shorthands and generic sizes", "[resolve]") {
  const Catalog& cat = test::catalog();
  const ResolvedModel id = resolve_model("LLAMA-3.1-8B", cat);  // ids are case-insensitive
  CHECK(id.spec.id == "llama-3.1-8b");
  CHECK(id.source == "catalog");
  CHECK(id.assumption.empty());
  const ResolvedModel shorthand = resolve_model("70b", cat);
  CHECK(shorthand.spec.id == "llama-3.1-70b");
  CHECK(shorthand.source == "shorthand");
  CHECK(shorthand.assumption ==
        "\"70b\" is the catalog's reference model of that size, "
        "llama-3.1-70b");
  const ResolvedModel generic = resolve_model("123b", cat);
  CHECK(generic.source == "generic");
  CHECK(generic.spec.n_layer == 82);  // generic_dense_model(123e9), above
  CHECK(generic.spec.name == "generic 123B dense");
  CHECK_THROWS_MATCHES(resolve_model("llama-3.1-80b", cat, "plans.json: /plans/0/model"),
                       InputError,
                       Catch::Message("plans.json: /plans/0/model: unknown model 'llama-3.1-80b' "
                                      "(did you mean llama-3.1-8b, llama-3.1-70b, "
                                      "llama-3.1-405b?); see llmsize models"));
  CHECK_THROWS_MATCHES(resolve_model("9000b", cat), InputError,
                       Catch::Message("MODEL: size 9000b is outside 0.05b to 5000b"));
}

TEST_CASE("Size shorthands follow one grammar: [1-4 digits x] 1-5 digits [. 1-3 digits] b",
          "[resolve]") {
  const Catalog& cat = test::catalog();
  struct Case {
    const char* text;
    const char* source;  // resolve_model's source, or "" when it is refused
  };
  const Case cases[] = {
      {"70B", "shorthand"},
      {"8x7b", "shorthand"},
      {"0.5b", "shorthand"},
      {"12.125b", "generic"},
      {"99999b", ""},  // 5 digits read, then outside 0.05-5000b
      {"123456b", ""},
      {"1.2345b", ""},
      {"12345x7b", ""},
      {"x7b", ""},
      {"7x3b", ""},  // no catalog MoE of that size
      {"b", ""},
      {"70bb", ""},
      {"70", ""},
      {"7.b", ""},
      {".5b", ""},
      {"70b ", ""},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    if (*c.source) {
      CHECK(resolve_model(c.text, cat).source == c.source);
    } else {
      CHECK_THROWS_AS(resolve_model(c.text, cat), InputError);
    }
  }
}
