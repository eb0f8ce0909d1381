#include <catch2/catch.hpp>

#include "llmsize/model/tensors.hpp"
#include "test_util.hpp"

using namespace llmsize;

TEST_CASE("Llama-3.1-8B has exactly its official 8,030,261,248 parameters", "[tensors]") {
  // embeddings 2 x 128256 x 4096 = 1,050,673,152
  // per layer: q 4096^2 + k,v 2 x 4096 x 1024 + o 4096^2 = 41,943,040; ffn 3 x 4096 x 14336 =
  // 176,160,768; 2 norms 8,192 -> 218,112,000 x 32 = 6,979,584,000; output_norm 4,096.
  const auto& m = test::model("llama-3.1-8b");
  const auto p = count_params(m, model_tensors(m));
  CHECK(p.total == 8'030'261'248ull);
  CHECK(p.active == p.total);
  CHECK(p.token_embd == 128256ull * 4096);
}

TEST_CASE("every catalog model with an official count matches it within 0.5%", "[tensors]") {
  int checked = 0;
  for (const auto& cm : test::catalog().models()) {
    const auto& m = cm.spec;
    if (!m.params_official) continue;
    auto p = count_params(m, model_tensors(m));
    p.total += vision_tower_params(m.vision);  // the official totals include the vision tower
    INFO(m.id << ": derived " << p.total << ", official " << m.params_official << " ("
              << m.params_source << ")");
    const double err =
        std::abs(static_cast<double>(p.total) - static_cast<double>(m.params_official)) /
        static_cast<double>(m.params_official);
    CHECK(err <= 0.005);
    ++checked;
  }
  CHECK(checked >= 30);
}

TEST_CASE("MoE models count routed experts once per token in active params", "[tensors]") {
  // Mixtral-8x7B: 46.70 B total; active = total - 6 unused experts x 32 layers x 3 x 4096 x 14336.
  const auto& mx = test::model("mixtral-8x7b");
  const auto p = count_params(mx, model_tensors(mx));
  CHECK(p.active == p.total - 6ull * 32 * 3 * 4096 * 14336);
  // DeepSeek-V3: 671 B total, 37 B active in the main model (DeepSeek-V3 technical report), and
  // its MTP module's 11.5 B unique parameters beside them (README_WEIGHTS.md: "11.5B unique
  // parameters, excluding the shared 0.9B Embedding and 0.9B output Head").
  ModelSpec ds = test::model("deepseek-v3");
  const auto with_mtp = count_params(ds, model_tensors(ds));
  ds.n_layer_nextn = 0;
  const auto pd = count_params(ds, model_tensors(ds));
  CHECK(static_cast<double>(pd.total) / 1e9 == Approx(671.0).epsilon(0.005));
  CHECK(static_cast<double>(pd.active) / 1e9 == Approx(37.5).epsilon(0.02));
  CHECK(static_cast<double>(with_mtp.total - pd.total) / 1e9 == Approx(11.5).epsilon(0.02));
}

TEST_CASE("tensor names follow llama.cpp's GGUF names", "[tensors]") {
  const auto& m = test::model("qwen2.5-7b");
  const auto t = model_tensors(m);
  std::vector<std::string> names;
  for (const auto& x : t) names.push_back(x.name());
  CHECK(names[0] == "token_embd.weight");
  CHECK(std::find(names.begin(), names.end(), "blk.0.attn_q.bias") != names.end());
  CHECK(std::find(names.begin(), names.end(), "blk.27.ffn_down.weight") != names.end());
  CHECK(std::find(names.begin(), names.end(), "output.weight") != names.end());
  // Tied models have no output.weight.
  const auto& tied = test::model("qwen2.5-0.5b");
  for (const auto& x : model_tensors(tied)) CHECK(x.name() != "output.weight");
}
