#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include <set>

#include "llmsize/io/error.hpp"
#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/model/tensors.hpp"
#include "llmsize/serving/speed.hpp"
#include "test_util.hpp"

using namespace llmsize;

TEST_CASE("every built-in model loads, validates and estimates", "[catalog]") {
  const auto& models = test::catalog().models();
  CHECK(models.size() >= 38);
  std::set<std::string> names;
  for (const auto& cm : models) {
    INFO(cm.spec.id);
    CHECK(validate(cm.spec).empty());
    CHECK_FALSE(cm.source.empty());
    // Its trained context, where --ctx max stops (#23: six Qwen3.5 rows had none).
    CHECK(cm.spec.n_ctx_train > 0);
    RunConfig c;
    c.quant = find_quant_preset("q4_k_m");
    const auto e = estimate(cm.spec, c);
    CHECK(e.total_bytes() > e.weights_bytes);
    for (const auto& n : std::vector<std::string>{cm.spec.id}) CHECK(names.insert(n).second);
    for (const auto& a : cm.aliases) CHECK(names.insert(a).second);
  }
  for (const char* id : {"llama-3.1-70b", "qwen2.5-72b", "mixtral-8x7b", "deepseek-v3"})
    CHECK(test::catalog().find_model(id) != nullptr);
  CHECK(test::catalog().find_model("LLAMA-3.1-70B") != nullptr);
}

TEST_CASE("the 2025-2026 models are in the catalog or staged, each with its source", "[catalog]") {
  // data/models_pending.json stages entries whose config.json the reader cannot parse yet; together
  // with data/models.json they must hold every model the 2026 catalog issue names, each once, each
  // with the public source of its config and, where a count is given, the source of that count.
  const auto built_in = test::data_file("../../data/models.json");
  const auto pending = test::data_file("../../data/models_pending.json");
  std::set<std::string> names;
  size_t n = 0;
  for (const auto* doc : {&built_in, &pending}) {
    for (const auto& e : (*doc)["models"]) {
      const std::string id = e["id"].get<std::string>();
      INFO(id);
      ++n;
      CHECK(names.insert(id).second);
      for (const auto& a : e["aliases"]) CHECK(names.insert(a.get<std::string>()).second);
      REQUIRE(e.contains("source"));
      CHECK_FALSE(e["source"].get<std::string>().empty());
      CHECK(e.contains("source_kind"));
      CHECK(e["config"].contains("model_type"));
      if (!e["params_official"].is_null()) {
        CHECK(e["params_official"].get<double>() > 0);
        CHECK_FALSE(e["params_source"].get<std::string>().empty());
      }
      if (e.contains("task"))
        CHECK((e["task"] == "embedding" || e["task"] == "rerank" || e["task"] == "generation"));
    }
  }
  // 38 models from the 2024 reference set plus at least 45 new ones.
  CHECK(n >= 38 + 45);
  for (const char* id :
       {"gpt-oss-20b", "gpt-oss-120b", "qwen3.5-35b-a3b", "qwen3.6-27b", "gemma-4-31b",
        "qwen3-next-80b-a3b", "nemotron-3-nano-30b-a3b", "llama-4-scout", "kimi-k2.5", "kimi-k2",
        "glm-5.1", "glm-4.7-flash", "minimax-m2.7", "deepseek-v4-flash"}) {
    INFO(id);
    CHECK(names.count(id) == 1);
  }
  // The ids the issue's acceptance commands use that the reader already sizes are built in.
  for (const char* id : {"gpt-oss-120b", "qwen3-next-80b-a3b", "nemotron-3-nano-30b-a3b",
                         "llama-4-scout", "kimi-k2.5"}) {
    INFO(id);
    CHECK(test::catalog().find_model(id) != nullptr);
  }
  // The staged file is not embedded: only data/models.json entries are built in.
  for (const auto& e : pending["models"])
    CHECK(test::catalog().find_model(e["id"].get<std::string>()) == nullptr);
}

TEST_CASE("the embedding model is built in and marked as such", "[catalog]") {
  const auto doc = test::data_file("../../data/models.json");
  bool found = false;
  for (const auto& e : doc["models"])
    if (e["id"] == "qwen3-embedding-0.6b") {
      found = true;
      CHECK(e["task"] == "embedding");
    }
  CHECK(found);
  // Qwen3-Embedding-0.6B: embeddings 151669 x 1024 = 155,309,056 (tied); per layer q 1024x2048 +
  // k,v 2 x 1024x1024 + o 2048x1024 = 6,291,456, q/k norms 256, FFN 3 x 1024 x 3072 = 9,437,184,
  // 2 norms 2,048 -> 15,730,944 x 28 = 440,466,432; output norm 1,024 -> 595,776,512, the HF total.
  const auto& m = test::model("qwen3-embedding-0.6b");
  CHECK(count_params(m, model_tensors(m)).total == 595'776'512ull);
}

TEST_CASE("every built-in GPU has memory, bandwidth and power, each with a source", "[catalog]") {
  // The sources as data/gpus.json gives them (the compiled catalog keeps the memory and bandwidth
  // sources joined in CatalogGpu::source; power's is the file's).
  const nlohmann::json file = test::data_file("../../data/gpus.json");
  for (const auto& row : file.at("gpus")) {
    INFO(row.value("id", std::string("?")));
    for (const char* fact : {"memory", "bandwidth", "power"}) {
      INFO(fact);
      CHECK(row.contains("sources"));
      CHECK(!row["sources"].value(fact, std::string()).empty());
    }
  }
  const auto& gpus = test::catalog().gpus();
  std::set<std::string> names;
  for (const auto& g : gpus) {
    INFO(g.spec.id);
    CHECK(g.spec.memory_bytes >= (4ull << 30));
    CHECK(g.spec.bandwidth_gb_per_s > 100);
    CHECK(g.spec.board_power_w > 0);
    CHECK(g.spec.memory_fraction > 0.5);
    CHECK(g.spec.memory_fraction <= 1.0);
    CHECK_FALSE(g.source.empty());
    CHECK(names.insert(g.spec.id).second);
    for (const auto& a : g.aliases) CHECK(names.insert(a).second);
  }
  // The list the catalog issue asks for.
  for (const char* id : {"rtx-3060-12gb",
                         "rtx-3070",
                         "rtx-3080",
                         "rtx-3080-ti",
                         "rtx-3090",
                         "rtx-3090-ti",
                         "rtx-4060-ti-16gb",
                         "rtx-4070-ti",
                         "rtx-4070-ti-super",
                         "rtx-4080",
                         "rtx-4080-super",
                         "rtx-4090",
                         "rtx-5090",
                         "rtx-a4000",
                         "rtx-a5000",
                         "rtx-a6000",
                         "rtx-4000-ada",
                         "rtx-5000-ada",
                         "rtx-6000-ada",
                         "rtx-pro-6000",
                         "t4",
                         "l4",
                         "l40s",
                         "a10",
                         "a100-40gb-pcie",
                         "a100-40gb-sxm",
                         "a100-80gb-pcie",
                         "a100-80gb-sxm",
                         "h100-pcie",
                         "h100-sxm",
                         "h100-nvl",
                         "h200",
                         "b200",
                         "gh200",
                         "v100-16gb",
                         "v100-32gb",
                         "rx-6700-xt",
                         "rx-6800-xt",
                         "rx-7900-xt",
                         "rx-7900-xtx",
                         "w7900",
                         "mi210",
                         "mi250x",
                         "mi300x",
                         "mi325x",
                         "arc-a770",
                         "gaudi3",
                         "m1-max",
                         "m2-max",
                         "m3-max",
                         "m4-max",
                         "m1-ultra",
                         "m2-ultra"}) {
    INFO(id);
    CHECK(test::catalog().find_gpu(id) != nullptr);
  }
  // Datasheet figures: RTX 4090 24 GiB, 1008 GB/s, 450 W; H100 SXM 80 GiB, 3350 GB/s.
  const auto* g = test::catalog().find_gpu("rtx-4090");
  REQUIRE(g);
  CHECK(g->spec.memory_bytes == 24ull << 30);
  CHECK(g->spec.bandwidth_gb_per_s == 1008);
  CHECK(g->spec.board_power_w == 450);
  const auto* h = test::catalog().find_gpu("h100-sxm");
  REQUIRE(h);
  CHECK(h->spec.memory_bytes == 80ull << 30);
  CHECK(h->spec.bandwidth_gb_per_s == 3350);
  CHECK(test::catalog().find_gpu("m2-ultra")->spec.unified_memory);
}

TEST_CASE("a user catalog adds and overrides entries by id", "[catalog]") {
  Catalog c = Catalog::builtin();
  c.merge_json(
      R"({"gpus": [{"id": "rtx-4090", "name": "RTX 4090 48GB mod", "vendor": "nvidia", "memory_gib": 48,
                   "bandwidth_gb_per_s": 1008, "board_power_w": 450}],
                   "models": [{"id": "tiny", "name": "Tiny", "source": "test",
                   "config": {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256,
                   "intermediate_size": 512, "num_attention_heads": 4, "vocab_size": 1000}}]})",
      "user.json");
  CHECK(c.find_gpu("rtx-4090")->spec.memory_bytes == 48ull << 30);
  CHECK(c.find_model("tiny")->spec.n_layer == 2);
  CHECK(c.gpus().size() == Catalog::builtin().gpus().size());
}

TEST_CASE("a malformed catalog is rejected naming the file and the JSON path", "[catalog]") {
  Catalog c = Catalog::builtin();
  auto [text, message] = GENERATE(table<std::string, std::string>({
      {"{", "user.json: not valid JSON (byte 2)"},
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "v", "memory_gib": "lots"}]})",
       "user.json: /gpus/0/memory_gib: expected a number, got \"lots\""},
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "v"}]})",
       "user.json: /gpus/0/memory_gib: missing (expected a number)"},
      // The runtime's total is at most the nominal memory: 24 GiB = 24,576 MiB.
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "v", "memory_gib": 24,
          "visible_memory_mib": 30000}]})",
       "user.json: /gpus/0/visible_memory_mib: out of range: 30000 (expected 0 to 24576)"},
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "v", "memory_gib": -1}]})",
       "user.json: /gpus/0/memory_gib: out of range: -1 (expected 0.001 to 1000000)"},
      {R"({"models": [{"id": "m", "name": "M", "source": "s", "config": {"model_type": "llama",
          "num_hidden_layers": 2, "hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 32,
          "num_key_value_heads": 5, "vocab_size": 1000}}]})",
       "user.json: /models/0/config: num_attention_heads (32) is not divisible by "
       "num_key_value_heads (5)"},
      {R"({"modles": []})", "user.json: expected a \"models\", \"gpus\" or \"platforms\" array"},
      {R"({"models": [], "extra": 1})",
       "user.json: /extra: unknown field (expected models, gpus, platforms, platforms_incomplete, "
       "platforms_generic, schema_version or note)"},
      {R"({"platforms": {}})", "user.json: /platforms: expected an array"},
  }));
  CHECK_THROWS_MATCHES(c.merge_json(text, "user.json"), InputError, Catch::Message(message));
}

namespace {

// A --catalog platform in data/platforms.json's schema (an 8-GPU SXM server); `field` replaces or
// adds one top-level field.
std::string platform_doc(const std::string& field = R"("rack_units": 6)") {
  return R"({"platforms": [{"id": "my-hgx", "name": "My HGX", "vendor": "acme", "class": "server",
    "gpu": {"mount": "sxm", "counts": [8], "ids": ["h100-sxm"]},
    "cpu": {"sockets": 2, "model": "Intel Xeon Platinum 8480C", "cores_per_socket": 56},
    "memory": {"channels_per_socket": 8, "dimm_slots": 32},
    "psu": {"bays": 6, "watts": 3300, "redundancy": "4+2"},
    "sources": {"all": "the vendor's datasheet"}, )" +
         field + "}]}";
}

}  // namespace

TEST_CASE(
    "platforms of a --catalog file add to and replace the built-in ones, read as "
    "data/platforms.json",
    "[catalog]") {
  Catalog c = Catalog::builtin();
  const size_t builtin = c.platforms().size();
  REQUIRE(builtin > 10);
  REQUIRE(find_platform(c.platforms(), "nvidia-dgx-h100") != nullptr);
  c.merge_json(platform_doc(), "user.json");
  REQUIRE(c.platforms().size() == builtin + 1);
  const PlatformModel* p = find_platform(c.platforms(), "my-hgx");
  REQUIRE(p);
  CHECK(p->gpu_mount == GpuMount::sxm);
  CHECK(p->gpu_counts == std::vector<uint32_t>{8});
  CHECK(p->psu.bays == 6);
  CHECK(p->rack_units == 6);
  // A built-in id is replaced in place, as a GPU or model id is.
  const std::string dgx = platform_doc(R"("rack_units": 8)");
  c.merge_json(std::string(dgx).replace(dgx.find("my-hgx"), 6, "nvidia-dgx-h100"), "user2.json");
  CHECK(c.platforms().size() == builtin + 1);
  CHECK(find_platform(c.platforms(), "nvidia-dgx-h100")->name == "My HGX");
}

TEST_CASE("bad --catalog platforms are refused naming the file and the JSON path", "[catalog]") {
  Catalog c = Catalog::builtin();
  auto [text, message] = GENERATE(table<std::string, std::string>({
      {platform_doc(R"("class": "mainframe")"),
       "user.json: /platforms/0: duplicate key \"class\" (at byte 411)"},
      {std::string(
           R"({"platforms": [{"id": "x", "name": "X", "vendor": "v", "class": "mainframe"}]})"),
       "user.json: /platforms/0/class: unknown class \"mainframe\" (expected desktop, "
       "workstation, server or unified)"},
      {std::string(R"({"platforms": [{"id": "My Box"}]})"),
       "user.json: /platforms/0/id: expected a lowercase id, got \"My Box\""},
      {std::string(R"({"platforms": [7]})"), "user.json: /platforms/0: expected an object"},
      {platform_doc(R"("price_usd": 250000)"),
       "user.json: /platforms/0/price_source: missing (expected a string)"},
      {platform_doc(R"("nic_slots": 1000)"),
       "user.json: /platforms/0/nic_slots: out of range: 1000 (expected 0 to 64)"},
      {std::string(R"({"platforms": [{"id": "x", "name": "X\u001b[2J", "vendor": "v",
         "class": "server", "gpu": {"mount": "sxm", "counts": [6]}}]})"),
       "user.json: /platforms/0/gpu/counts: SXM/OAM baseboards hold 4 or 8 GPUs, got 6"},
  }));
  CHECK_THROWS_MATCHES(c.merge_json(text, "user.json"), InputError, Catch::Message(message));
}

TEST_CASE("a --catalog platform id given twice in one file is refused", "[catalog]") {
  Catalog c = Catalog::builtin();
  const std::string one = platform_doc();
  const std::string entry = one.substr(15, one.size() - 17);  // {"id": "my-hgx", ...}
  CHECK_THROWS_MATCHES(c.merge_json(R"({"platforms": [)" + entry + ", " + entry + "]}", "u.json"),
                       InputError,
                       Catch::Message("u.json: /platforms/1/id: duplicate id \"my-hgx\" (also "
                                      "/platforms/0)"));
}

TEST_CASE("data/quants.json is exactly what llmsize quants --format json derives", "[catalog]") {
  // The quantization catalog in data/ is generated from the code's tables (ggml type traits and
  // llama.cpp's per-tensor rules) so it can be read without the binary; it must never drift.
  const auto doc = test::data_file("../../data/quants.json");
  REQUIRE(doc["tensor_types"].size() == all_tensor_types().size());
  for (size_t i = 0; i < all_tensor_types().size(); ++i) {
    const auto& t = all_tensor_types()[i];
    const auto& j = doc["tensor_types"][i];
    INFO(t.name);
    CHECK(j["name"] == t.name);
    CHECK(j["block_size"] == t.block_size);
    CHECK(j["bytes_per_block"] == t.type_size);
  }
  REQUIRE(doc["presets"].size() == all_quant_presets().size());
  for (size_t i = 0; i < all_quant_presets().size(); ++i) {
    const auto& p = all_quant_presets()[i];
    const auto& j = doc["presets"][i];
    INFO(p.id);
    CHECK(j["id"] == p.id);
    CHECK(j["base_type"] == traits(p.default_type).name);
    // bits per weight on Llama-3.1-8B shapes, derived per tensor, rounded to 3 decimals
    const auto w = compute_weights(test::model("llama-3.1-8b"), p);
    CHECK(j["bits_per_weight_llama_3_1_8b"].get<double>() ==
          Approx(std::round(w.bits_per_weight() * 1000) / 1000));
  }
}

TEST_CASE("the 2025-2026 GPUs and unified-memory systems are in the catalog as vendors rate them",
          "[catalog]") {
  const auto& cat = test::catalog();
  for (const char* id : {"rtx-5060-ti-16gb",
                         "rtx-5070",
                         "rtx-5070-ti",
                         "rtx-5080",
                         "rtx-pro-4000",
                         "rtx-pro-4500",
                         "rtx-pro-5000",
                         "rtx-pro-5000-72gb",
                         "rtx-pro-6000-max-q",
                         "b300",
                         "h20",
                         "l20",
                         "mi350x",
                         "mi355x",
                         "radeon-ai-pro-r9700",
                         "arc-pro-b60",
                         "m3-ultra",
                         "m4-pro",
                         "dgx-spark",
                         "ryzen-ai-max-395",
                         "jetson-agx-thor"}) {
    INFO(id);
    CHECK(cat.find_gpu(id) != nullptr);
  }
  // Every unified-memory system is class "soc" and flagged, whoever makes it.
  for (const auto& g : cat.gpus()) {
    INFO(g.spec.id);
    CHECK((g.spec.gpu_class == GpuClass::soc) == g.spec.unified_memory);
  }
  // A GB10 is NVIDIA's, not Apple's: 128 GiB of LPDDR5x at 273 GB/s, of which llama.cpp found
  // 120,194,492 kB available to CUDA (0.90 of 128 GiB), and it is not fitted like a GDDR card.
  const auto& spark = cat.find_gpu("gb10")->spec;
  CHECK(spark.id == "dgx-spark");
  CHECK(spark.vendor == GpuVendor::nvidia);
  CHECK(spark.gpu_class == GpuClass::soc);
  CHECK(spark.unified_memory);
  CHECK(spark.memory_bytes == 128ull << 30);
  CHECK(spark.bandwidth_gb_per_s == 273);
  CHECK(spark.usable_bytes() == static_cast<uint64_t>(0.9 * (128ull << 30)));
  CHECK(std::string(speed_calibration(spark).family) == "other");
  CHECK(std::string(speed_calibration(cat.find_gpu("rtx-5080")->spec).family) == "nvidia-consumer");
  CHECK(std::string(speed_calibration(cat.find_gpu("m3-ultra")->spec).family) == "apple");
  // Strix Halo: the driver dedicates up to 96 of 128 GB to the GPU (0.75).
  const auto& halo = cat.find_gpu("strix-halo")->spec;
  CHECK(halo.vendor == GpuVendor::amd);
  CHECK(halo.usable_bytes() == 96ull << 30);
  // Datasheet-table figures: M3 Ultra 512 GB at 819 GB/s; MI355X 288 GiB (ROCm) at 8 TB/s, 1400 W,
  // 2500 dense FP16; H20 96 GB HBM3 at 4.0 TB/s, 148 dense FP16, 400 W.
  const auto& m3u = cat.find_gpu("m3-ultra")->spec;
  CHECK(m3u.memory_bytes == 512ull << 30);
  CHECK(m3u.bandwidth_gb_per_s == 819);
  const auto& mi355 = cat.find_gpu("mi355x")->spec;
  CHECK(mi355.memory_bytes == 288ull << 30);
  CHECK(mi355.bandwidth_gb_per_s == 8000);
  CHECK(mi355.board_power_w == 1400);
  CHECK(mi355.fp16_tflops_dense == 2500);
  const auto& h20 = cat.find_gpu("h20")->spec;
  CHECK(h20.bandwidth_gb_per_s == 4000);
  CHECK(h20.fp16_tflops_dense == 148);
  CHECK(h20.board_power_w == 400);
}

TEST_CASE("a GPU's class, form factor, link and unified-memory flag are checked", "[catalog]") {
  Catalog c = Catalog::builtin();
  auto [text, message] = GENERATE(table<std::string, std::string>({
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "nvidia", "class": "unified",
          "memory_gib": 128}]})",
       "user.json: /gpus/0/class: expected consumer, workstation, datacenter or soc, got "
       "\"unified\""},
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "nvidia", "memory_gib": 128,
          "unified_memory": "yes"}]})",
       "user.json: /gpus/0/unified_memory: expected true or false, got \"yes\""},
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "nvidia", "class": "soc",
          "memory_gib": 128}]})",
       "user.json: /gpus/0/unified_memory: class \"soc\" is a unified-memory system: expected "
       "true"},
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "nvidia", "class": "Datacenter",
          "memory_gib": 80}]})",
       "user.json: /gpus/0/class: expected consumer, workstation, datacenter or soc, got "
       "\"Datacenter\" (did you mean datacenter?)"},
      // A form factor and a link kind pick the mount and the link the plan buys: a word the
      // catalog does not use is refused, not planned as a PCIe card or a fast link.
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "nvidia", "memory_gib": 80,
          "form_factor": "mxm"}]})",
       "user.json: /gpus/0/form_factor: expected pcie, sxm, oam, superchip or soc, got \"mxm\" "
       "(did you mean sxm?)"},
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "nvidia", "memory_gib": 80,
          "interconnect": {"kind": "pcie", "bandwidth_gb_per_s": 64}}]})",
       "user.json: /gpus/0/interconnect/kind: expected none, nvlink, nvlink-bridge, "
       "infinity-fabric, xgmi or ethernet-roce, got \"pcie\""},
      {R"({"gpus": [{"id": "x", "name": "X", "vendor": "nvidia", "memory_gib": 80,
          "interconnect": {"kind": "nvlink_bridge", "bandwidth_gb_per_s": 112}}]})",
       "user.json: /gpus/0/interconnect/kind: expected none, nvlink, nvlink-bridge, "
       "infinity-fabric, xgmi or ethernet-roce, got \"nvlink_bridge\" (did you mean "
       "nvlink-bridge?)"},
  }));
  CHECK_THROWS_MATCHES(c.merge_json(text, "user.json"), InputError, Catch::Message(message));
  // A unified-memory system of another maker is accepted as such.
  c.merge_json(R"({"gpus": [{"id": "apu", "name": "APU", "vendor": "amd", "class": "soc",
                   "memory_gib": 64, "unified_memory": true, "gpu_memory_fraction": 0.75}]})",
               "user.json");
  CHECK(c.find_gpu("apu")->spec.unified_memory);
  CHECK(c.find_gpu("apu")->spec.usable_bytes() == 48ull << 30);
}

TEST_CASE("a misspelt GPU vendor is refused, another maker's name accepted", "[catalog]") {
  Catalog c = Catalog::builtin();
  // "nvida" and "NVIDIA" would have fallen to the uncalibrated speed family without a word.
  auto [vendor, known] = GENERATE(table<std::string, std::string>(
      {{"nvida", "nvidia"}, {"NVIDIA", "nvidia"}, {"Intell", "intel"}, {"AMD", "amd"}}));
  CHECK_THROWS_MATCHES(
      c.merge_json(R"({"gpus": [{"id": "x", "name": "X", "vendor": ")" + vendor +
                       R"(", "memory_gib": 24}]})",
                   "user.json"),
      InputError,
      Catch::Message("user.json: /gpus/0/vendor: expected nvidia, amd, intel or apple (or another "
                     "maker's name), got \"" +
                     vendor + "\" (did you mean " + known + "?)"));
  c.merge_json(R"({"gpus": [{"id": "q", "name": "Q", "vendor": "qualcomm", "memory_gib": 24,
                   "bandwidth_gb_per_s": 500}]})",
               "user.json");
  CHECK(std::string(speed_calibration(c.find_gpu("q")->spec).family) == "other");
}

TEST_CASE("a PCIe card of unpublished width is a card, not a module", "[catalog]") {
  const auto& cat = test::catalog();
  CHECK_FALSE(cat.find_gpu("rtx-5060-ti-16gb")->spec.is_module());  // pcie, slot_width null
  CHECK(cat.find_gpu("rtx-5060-ti-16gb")->spec.slot_width == 0);
  CHECK_FALSE(cat.find_gpu("rtx-4090")->spec.is_module());
  CHECK_FALSE(cat.find_gpu("dgx-spark")->spec.is_module());  // soc
  CHECK(cat.find_gpu("b300")->spec.is_module());             // sxm
  CHECK(cat.find_gpu("mi355x")->spec.is_module());           // oam
  CHECK(cat.find_gpu("gh200")->spec.is_module());            // superchip
  // An entry without a form factor keeps the old reading: no slot width and no unified memory
  // means a module.
  Catalog c = Catalog::builtin();
  c.merge_json(R"({"gpus": [{"id": "m", "name": "M", "vendor": "v", "memory_gib": 64},
                            {"id": "p", "name": "P", "vendor": "v", "memory_gib": 64,
                             "slot_width": 2}]})",
               "user.json");
  CHECK(c.find_gpu("m")->spec.is_module());
  CHECK_FALSE(c.find_gpu("p")->spec.is_module());
}

namespace {

// A --catalog model with a "serving" object (`serving` is its JSON text).
std::string served_model(const std::string& serving) {
  return R"({"models": [{"id": "tiny", "name": "Tiny", "source": "test",
    "config": {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256,
    "intermediate_size": 512, "num_attention_heads": 4, "vocab_size": 1000},
    "serving": )" +
         serving + "}]}";
}

}  // namespace

TEST_CASE("a model's deployment guide is read for --emit, with its source", "[catalog]") {
  // Built in: DeepSeek-R1's vLLM recipe (vllm-project/recipes models/deepseek-ai/DeepSeek-R1.yaml
  // base_args --trust-remote-code, tool calling --tool-call-parser deepseek_v3, reasoning
  // --reasoning-parser deepseek_r1); Mistral's card passes its own formats.
  const Catalog c = Catalog::builtin();
  const auto& r1 = c.find_model("deepseek-r1")->serving;
  REQUIRE(r1.has_value());
  CHECK(r1->reasoning);
  CHECK(r1->vllm.trust_remote_code);
  CHECK(r1->vllm.tool_call_parser == "deepseek_v3");
  CHECK(r1->vllm.reasoning_parser == "deepseek_r1");
  CHECK(r1->sglang.reasoning_parser == "deepseek-r1");
  CHECK(r1->source.find("vllm-project/recipes") != std::string::npos);
  const auto& ms = c.find_model("mistral-small-3.2-24b")->serving;
  REQUIRE(ms.has_value());
  CHECK(ms->vllm.args == std::vector<std::string>{"--tokenizer-mode", "mistral", "--config-format",
                                                  "mistral", "--load-format", "mistral"});
  // Most models have no guide: nothing is passed beyond the plan's own flags.
  CHECK_FALSE(c.find_model("llama-2-7b")->serving.has_value());
  // Every guide names its source and its values are plain words (a pasted command).
  for (const auto& m : c.models()) {
    if (!m.serving) continue;
    INFO(m.spec.id);
    CHECK_FALSE(m.serving->source.empty());
  }
}

TEST_CASE("a --catalog deployment guide that would put anything else in a command is refused",
          "[catalog]") {
  Catalog c = Catalog::builtin();
  auto [serving, message] = GENERATE(table<std::string, std::string>({
      {R"({"vllm": {"tool_call_parser": "hermes; rm -rf ~"}, "source": "s"})",
       "user.json: /models/0/serving/vllm/tool_call_parser: expected a parser name (lowercase "
       "letters, digits, _ - .), got \"hermes; rm -rf ~\""},
      {R"({"vllm": {"args": ["--enforce-eager", "x"]}, "source": "s"})",
       "user.json: /models/0/serving/vllm/args/0: \"--enforce-eager\" is not a flag llmsize passes "
       "to vllm serve (--tokenizer-mode, --config-format, --load-format)"},
      {R"({"vllm": {"args": ["--tokenizer-mode"]}, "source": "s"})",
       "user.json: /models/0/serving/vllm/args/1: expected the value of --tokenizer-mode (a "
       "plain word)"},
      {R"({"sglang": {"tool_chat_template": "/etc/passwd"}, "source": "s"})",
       "user.json: /models/0/serving/sglang/tool_chat_template: expected a relative path in the "
       "engine's source tree, got \"/etc/passwd\""},
      {R"({"vllm": {"trust_remote_code": "yes"}, "source": "s"})",
       "user.json: /models/0/serving/vllm/trust_remote_code: expected true or false, got \"yes\""},
      {R"({"reasoning": true})",
       "user.json: /models/0/serving/source: missing (expected a string)"},
      {R"({"trtllm": {}, "source": "s"})",
       "user.json: /models/0/serving/trtllm: unknown field; expected reasoning, vllm, sglang or "
       "source"},
  }));
  CHECK_THROWS_MATCHES(c.merge_json(served_model(serving), "user.json"), InputError,
                       Catch::Message(message));
}

TEST_CASE("a part made for one market is marked so, and only a known market is accepted",
          "[catalog]") {
  // H20 and L20: NVIDIA's parts for China under the US export rules (Tom's Hardware, "New Nvidia
  // AI GPUs designed to get around US export bans come to China: H20, L20 and L2").
  const Catalog c = Catalog::builtin();
  CHECK(c.find_gpu("h20")->spec.market == "china");
  CHECK(c.find_gpu("l20")->spec.market == "china");
  CHECK(c.find_gpu("h100-sxm")->spec.market.empty());
  Catalog u = Catalog::builtin();
  CHECK_THROWS_MATCHES(
      u.merge_json(R"({"gpus": [{"id": "x", "name": "X", "vendor": "nvidia", "memory_gib": 8,
                   "bandwidth_gb_per_s": 100, "board_power_w": 100, "market": "mars"}]})",
                   "user.json"),
      InputError,
      Catch::Message("user.json: /gpus/0/market: expected china (a part made for one market) or "
                     "no field (sold worldwide), got \"mars\""));
}

// #27: a GPU's rental price is the median over providers of each provider's lowest published
// on-demand price at its latest date (data/rental_offers.json, each offer with its source and
// quote), with their range and count: recomputed here from the offers, held to the catalog's.
TEST_CASE("rental prices are the median of the published offers, each with its source",
          "[catalog]") {
  const nlohmann::json offers = test::data_file("../../data/rental_offers.json");
  std::map<std::string, std::map<std::string, std::pair<std::string, double>>> best;
  for (const auto& o : offers.at("offers")) {
    INFO(o.dump());
    for (const char* k : {"source", "quote", "date", "provider"})
      CHECK(!o.value(k, std::string()).empty());
    CHECK(o.at("kind") == "on_demand");
    const double v = o.at("usd_per_gpu_hour").get<double>();
    auto& slot = best[o.at("gpu").get<std::string>()][o.at("provider").get<std::string>()];
    const std::string date = o.at("date").get<std::string>();
    if (slot.first.empty() || date > slot.first)
      slot = {date, v};
    else if (date == slot.first)
      slot.second = std::min(slot.second, v);
  }
  const nlohmann::json gpus = test::data_file("../../data/gpus.json");
  size_t priced = 0;
  for (const auto& row : gpus.at("gpus")) {
    const std::string id = row.at("id");
    if (!row.contains("rent_usd_per_gpu_hour")) continue;
    ++priced;
    INFO(id);
    REQUIRE(best.count(id));
    std::vector<double> v;
    for (const auto& [provider, p] : best[id]) v.push_back(p.second);
    std::sort(v.begin(), v.end());
    REQUIRE(v.size() >= 3);  // a median of three providers at least
    const double median =
        v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    CHECK(row.at("rent_usd_per_gpu_hour").get<double>() == Approx(median).margin(0.0001));
    CHECK(row.at("rent_low_usd_per_gpu_hour").get<double>() == Approx(v.front()));
    CHECK(row.at("rent_high_usd_per_gpu_hour").get<double>() == Approx(v.back()));
    CHECK(row.at("rent_providers") == v.size());
    CHECK(!row.at("sources").value("rent", std::string()).empty());
    // The compiled catalog carries it.
    CHECK(test::catalog().find_gpu(id)->spec.rent_usd_per_gpu_hour ==
          Approx(row.at("rent_usd_per_gpu_hour").get<double>()));
  }
  CHECK(priced >= 9);
}
