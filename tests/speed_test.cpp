#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "llmsize/serving/speed.hpp"
#include "measured_cases.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

struct Errors {
  std::vector<double> v;
  double median() {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
  }
};

// Llama-3.1-8B's estimate under `quant` (llama.cpp defaults: 4,096 tokens of context).
Estimate llama_8b(const char* quant) {
  RunConfig c;
  c.quant = find_quant_preset(quant);
  return estimate(test::model("llama-3.1-8b"), c);
}

}  // namespace

TEST_CASE("decode speed is within 25% median of the shipped llama.cpp measurements, per GPU family",
          "[speed]") {
  // tests/data/measured_speed.json: llama-bench tg rows and main's eval rate, context ~256 tokens.
  // Excluded, with reason: M1 Max rows (lower-bin GPU, measured 10-80% below the bandwidth model)
  // and Llama-2-70B on a 48 GB M3 Max (the model does not fit in its GPU working set and swaps).
  const auto doc = test::data_file("measured_speed.json");
  std::map<std::string, Errors> by_family;
  for (const auto& r : doc["rows"]) {
    const std::string test = r["test"];
    if (test.rfind("tg", 0) != 0 || r["gpu"].is_null()) continue;
    const std::string gid = test::measured_gpu_id(r["gpu"]),
                      mid = test::measured_model_id(r["model"]);
    if (gid == "m1-max" || (gid == "m3-max" && mid == "llama-2-70b")) continue;
    const auto sc = test::speed_case(test::catalog(), r);
    if (!sc) continue;
    const auto s = sc->predict();
    const double measured = r["tokens_per_s"].get<double>();
    const double err = std::abs(s.decode_tokens_per_s - measured) / measured;
    INFO(gid << " " << mid << " " << sc->quant->id << " x" << sc->input.n_gpus << ": predicted "
             << s.decode_tokens_per_s << ", measured " << measured << " (" << r["source"] << ")");
    CHECK(err < 0.35);  // no single row far off
    by_family[s.calibration->family].v.push_back(err);
  }
  REQUIRE(by_family.count("nvidia-consumer"));
  REQUIRE(by_family.count("nvidia-datacenter"));
  REQUIRE(by_family.count("apple"));
  for (auto& [family, errs] : by_family) {
    INFO(family << ": " << errs.v.size() << " rows, median |error| " << errs.median());
    CHECK(errs.median() <= 0.25);
  }
  CHECK(by_family["nvidia-consumer"].median() <= 0.08);  // calibration fit: 4.5%
}

TEST_CASE("decode speed follows the bandwidth formula", "[speed]") {
  // RTX 4090: 1008 GB/s x 0.92; Llama-3.1-8B Q4_K_M: 4,617,396,224 B of VRAM weights per token plus
  // KV at 256 tokens: 256 x 32 layers x 4096 B = 33,554,432 B; + 32 layers x 90 us.
  const auto& m = test::model("llama-3.1-8b");
  const auto e = llama_8b("q4_k_m");
  SpeedInput in;
  in.n_ctx = 256;
  const auto s = estimate_speed(m, e, test::catalog().find_gpu("rtx-4090")->spec, in);
  const double t = (4617396224.0 + 33554432.0) / (1008e9 * 0.92) + 32 * 90e-6;
  CHECK(s.bytes_per_step == 4617396224ull + 33554432ull);
  CHECK(s.decode_tokens_per_s == Approx(1 / t));
  CHECK(s.decode_low == Approx(s.decode_tokens_per_s * 0.85));
  // Four sequences read the weights once and four KV caches.
  in.n_seq = 4;
  const auto s4 = estimate_speed(m, e, test::catalog().find_gpu("rtx-4090")->spec, in);
  CHECK(s4.bytes_per_step == 4617396224ull + 4 * 33554432ull);
  CHECK(s4.aggregate_tokens_per_s == Approx(4 * s4.decode_tokens_per_s));
}

TEST_CASE("MoE decode reads only the active experts", "[speed]") {
  // Mixtral-8x7B: 2 of 8 experts per token, so the bytes per token are far below the file size.
  const auto& m = test::model("mixtral-8x7b");
  RunConfig c;
  c.quant = find_quant_preset("q4_k_m");
  const auto e = estimate(m, c);
  CHECK(e.weights.active_bytes < e.weights.bytes / 2);
  CHECK(e.weights.active_bytes > e.weights.bytes / 5);
}

TEST_CASE("decode bandwidth and prefill efficiency are the ones the estimate used", "[speed]") {
  const auto& m = test::model("llama-3.1-8b");
  const Estimate e = llama_8b("q4_k_m");
  GpuSpec g;
  g.vendor = GpuVendor::nvidia;
  g.gpu_class = GpuClass::datacenter;
  g.bandwidth_gb_per_s = 3350;
  g.fp16_tflops_dense = 989;
  SpeedInput in;
  // One GPU: e_bw 0.79 (nvidia-datacenter) x 3,350 GB/s = 2,646.5 GB/s; quantized weights take
  // e_fl 0.20.
  const Speed one = estimate_speed(m, e, g, in);
  CHECK(one.decode_bandwidth_gb_per_s == Approx(2646.5));
  CHECK(one.flops_efficiency == 0.20);
  // Tensor parallel over 4: x (1 + 3 x 0.85) = x 3.55 -> 9,395.075 GB/s; a layer split adds none.
  in.n_gpus = 4;
  in.tensor_parallel = true;
  CHECK(estimate_speed(m, e, g, in).decode_bandwidth_gb_per_s == Approx(9395.075));
  in.tensor_parallel = false;
  CHECK(estimate_speed(m, e, g, in).decode_bandwidth_gb_per_s == Approx(2646.5));
  // 16-bit weights: e_fl 0.30.
  CHECK(estimate_speed(m, llama_8b("f16"), g, in).flops_efficiency == 0.30);
}
