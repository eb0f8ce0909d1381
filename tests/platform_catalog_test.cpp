#include "llmsize/io/platform_catalog.hpp"

#include <catch2/catch.hpp>

#include "llmsize/io/error.hpp"

using namespace llmsize;

namespace {

// A minimal valid platform; tests break one field at a time.
std::string doc(const std::string& gpu,
                const std::string& psu = R"({"bays": 6, "watts": 3300, "redundancy": "4+2"})",
                const std::string& extra = "") {
  return R"({"platforms": [{"id": "hgx", "name": "HGX box", "vendor": "v", "class": "server",
    "gpu": )" +
         gpu + R"(,
    "cpu": {"sockets": 2, "cores_per_socket": 56, "tdp_w": 350},
    "memory": {"channels_per_socket": 8, "dimm_slots": 32},
    "psu": )" +
         psu + extra + R"(, "sources": "datasheet"}]})";
}

const char* kSxm = R"({"mount": "sxm", "counts": [8]})";

}  // namespace

TEST_CASE("The platform fixture reads with every field", "[platform_catalog]") {
  const auto v = read_platforms_file(std::string(LLMSIZE_TEST_FIXTURES) + "/platforms.json");
  REQUIRE(v.size() == 7);
  const PlatformModel* dgx = find_platform(v, "DGX-H100");  // ids match case-insensitively
  REQUIRE(dgx);
  CHECK(dgx->platform_class == PlatformClass::server);
  CHECK(dgx->gpu_mount == GpuMount::sxm);
  CHECK(dgx->gpu_counts == std::vector<uint32_t>{8});
  CHECK(dgx->cpu_sockets == 2);
  CHECK(dgx->cpu_cores_per_socket == 56);
  CHECK(dgx->ram_shipped_gib == 2048);
  CHECK(dgx->psu.bays == 6);
  CHECK(dgx->psu.watts == 3300);
  CHECK(dgx->psu.redundancy == Redundancy{4, 2});
  CHECK(dgx->max_power_w == 10200);
  CHECK(dgx->nics_400g_shipped == 8);
  // Source objects are joined "key: text ; key: text" (keys in JSON object order: sorted).
  CHECK(dgx->source.find("power: NVIDIA DGX H100/H200 User Guide") != std::string::npos);
  CHECK(dgx->source.find("host: MLPerf") == 0);
  // PCIe machines list slots: counts 1..slots.
  const PlatformModel* ws = find_platform(v, "wrx90-workstation");
  REQUIRE(ws);
  CHECK(ws->gpu_counts == std::vector<uint32_t>{1, 2, 3, 4});
  CHECK(ws->psu.redundancy == Redundancy{2, 0});  // two PSUs sharing, no spare
  CHECK(find_platform(v, "nope") == nullptr);
  CHECK(suggest_platform(v, "dgx-h10") == " (did you mean dgx-h100, dgx-a100?)");
  CHECK(suggest_platform(v, "zzzzzzzz").empty());
}

TEST_CASE("Bad platform fields are named with the file and the JSON path", "[platform_catalog]") {
  struct Case {
    std::string text;
    const char* message;
  };
  const Case cases[] = {
      {"{", "p.json: not valid JSON (at byte 2)"},
      {"{}", "p.json: /platforms: missing (expected an array of platforms)"},
      {doc(R"({"mount": "sxm", "counts": [6]})"),
       "p.json: /platforms/0/gpu/counts: SXM/OAM baseboards hold 4 or 8 GPUs, got 6"},
      {doc(R"({"mount": "nvl", "counts": [8]})"),
       "p.json: /platforms/0/gpu/mount: unknown mount \"nvl\" (expected pcie, sxm, oam or "
       "integrated)"},
      {doc(R"({"mount": "pcie", "slots": 8, "width_max": 2, "widths_total": 16})"),
       "p.json: /platforms/0/gpu/lanes_total: missing (expected a number)"},
      {doc(kSxm, R"({"bays": 4, "watts": 3300, "redundancy": "4+2"})"),
       "p.json: /platforms/0/psu/redundancy: expected \"N+R\" with N+R = bays (4), \"N+1\", "
       "\"N+N\" or \"none\", got \"4+2\""},
      {doc(kSxm, R"({"bays": 6, "watts": "3.3 kW", "redundancy": "4+2"})"),
       "p.json: /platforms/0/psu/watts: expected a number, got \"3.3 kW\""},
      {doc(kSxm, R"({"bays": 6, "watts": 3300, "redundancy": "4+2"})", R"(, "price_usd": 300000)"),
       "p.json: /platforms/0/price_source: missing (expected a string)"},
      {doc(R"({"mount": "integrated", "counts": [1]})"),
       "p.json: /platforms/0/gpu/mount: class unified goes with mount integrated, and only it"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK_THROWS_MATCHES(read_platforms(c.text, "p.json"), InputError,
                         Catch::Matchers::Message(c.message));
  }
  // Two rows with one id.
  const std::string one = doc(kSxm);
  const std::string row = one.substr(one.find('[') + 1, one.rfind(']') - one.find('[') - 1);
  CHECK_THROWS_MATCHES(read_platforms("{\"platforms\": [" + row + "," + row + "]}", "p.json"),
                       InputError,
                       Catch::Matchers::Message("p.json: /platforms/1/id: duplicate id \"hgx\""));
}
