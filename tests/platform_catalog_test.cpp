#include "llmsize/io/platform_catalog.hpp"

#include <catch2/catch.hpp>

#include "llmsize/io/error.hpp"

using namespace llmsize;

namespace {

// A minimal valid platform in data/platforms.json's schema; tests break one field at a time.
std::string doc(
    const std::string& gpu,
    const std::string& power = R"({"psu_count": 6, "psu_rating_w": 3300, "psu_redundancy": "4+2"})",
    const std::string& extra = "") {
  return R"({"platforms": [{"id": "hgx", "name": "HGX box", "vendor": "v", "class": "server",
    "gpu": )" +
         gpu + R"(,
    "cpu": {"sockets": 2, "model": "Intel Xeon Platinum 8480C", "cores_per_socket": 56},
    "memory": {"channels_per_socket": 8, "dimm_slots": 32},
    "power": )" +
         power + extra + R"(, "sources": {"all": "datasheet"}}]})";
}

const char* kSxm = R"({"form_factor": "sxm-baseboard", "count_max": 8, "baseboard_gpus": 8})";

}  // namespace

TEST_CASE("The platform fixture reads with every field", "[platform_catalog]") {
  const auto v = read_platforms_file(std::string(LLMSIZE_TEST_FIXTURES) + "/platforms.json");
  REQUIRE(v.size() == 7);
  const PlatformModel* dgx = find_platform(v, "DGX-H100");  // ids match case-insensitively
  REQUIRE(dgx);
  CHECK(dgx->platform_class == PlatformClass::server);
  CHECK(dgx->gpu_mount == GpuMount::sxm);
  CHECK(dgx->gpu_counts == std::vector<uint32_t>{8});
  CHECK(dgx->gpu_ids == std::vector<std::string>{"h100-sxm"});
  CHECK(dgx->server_airflow);
  CHECK(dgx->cpu_sockets == 2);
  CHECK(dgx->cpu_cores_per_socket == 56);
  CHECK(dgx->ram_shipped_gib == 2048);
  CHECK(dgx->psu.bays == 6);
  CHECK(dgx->psu.watts == 3300);
  CHECK(dgx->psu.redundancy == Redundancy{4, 2});
  CHECK_FALSE(dgx->psu.atx);
  CHECK(dgx->max_power_w == 10200);
  // "8x ConnectX-7 400 Gb/s + 2x dual-port 200 Gb/s" in network.nics_shipped.
  CHECK(dgx->nics_400g_shipped == 8);
  CHECK(dgx->nics_other_shipped == 2);
  // Source objects are joined "key: text ; key: text" (keys in JSON object order: sorted).
  CHECK(dgx->source.find("power: NVIDIA DGX H100/H200 User Guide") != std::string::npos);
  CHECK(dgx->source.find("host: MLPerf") == 0);
  // PCIe machines: any count up to count_max, x16 each unless the row says otherwise.
  const PlatformModel* ws = find_platform(v, "wrx90-workstation");
  REQUIRE(ws);
  CHECK(ws->gpu_counts == std::vector<uint32_t>{1, 2, 3, 4});
  CHECK(ws->gpu_widths_total == 8);  // 4 positions x 2 slots
  CHECK(ws->gpu_lanes_total == 112);
  CHECK(ws->psu.redundancy == Redundancy{2, 0});  // two PSUs sharing, no spare
  // A desktop without a catalog PSU: an ATX supply bought to fit, up to 1600 W.
  const PlatformModel* desk = find_platform(v, "am5-desktop");
  REQUIRE(desk);
  CHECK(desk->psu.atx);
  CHECK(desk->psu.watts == 1600);
  CHECK(desk->gpu_lanes_total == 16);
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
      {doc(R"({"form_factor": "sxm-baseboard", "count_max": 6, "baseboard_gpus": 6})"),
       "p.json: /platforms/0/gpu/baseboard_gpus: SXM/OAM baseboards hold 4 or 8 GPUs, got 6"},
      {doc(R"({"form_factor": "sxm-baseboard", "count_max": 6, "baseboard_gpus": 4})"),
       "p.json: /platforms/0/gpu/count_max: expected a multiple of baseboard_gpus (4), got 6"},
      {doc(R"({"form_factor": "nvl", "count_max": 8})"),
       "p.json: /platforms/0/gpu/form_factor: unknown form_factor \"nvl\" (expected pcie, "
       "sxm-baseboard, oam-baseboard, superchip, superchip-tray or soc)"},
      {doc(R"({"form_factor": "pcie", "count_max": 8})"),
       "p.json: /platforms/0/gpu/slot_width_max: missing (expected a number)"},
      {doc(R"({"form_factor": "sxm-baseboard", "baseboard_gpus": 8})"),
       "p.json: /platforms/0/gpu/count_max: missing (expected a number)"},
      {doc(kSxm, R"({"psu_count": 4, "psu_rating_w": 3300, "psu_redundancy": "4+2"})"),
       "p.json: /platforms/0/power/psu_redundancy: expected \"N+R\" with N+R = psu_count (4), "
       "\"N+1\", \"N+N\" or \"none\", got \"4+2\""},
      {doc(kSxm, R"({"psu_count": 6, "psu_rating_w": "3.3 kW"})"),
       "p.json: /platforms/0/power/psu_rating_w: expected a number, got \"3.3 kW\""},
      {doc(kSxm, R"({"psu_count": 6})", R"(, "price": {"usd": 300000})"),
       "p.json: /platforms/0/price/kind: missing (expected a string)"},
      {doc(kSxm, R"({"measured_idle_w": {"low": 130}})"),
       "p.json: /platforms/0/power/measured_idle_w/high: missing (expected a number)"},
      {doc(R"({"form_factor": "soc", "count_max": 1})"),
       "p.json: /platforms/0/gpu/form_factor: class unified goes with form_factor soc, and only "
       "it"},
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

TEST_CASE("The CPU's TDP comes from the row, the table of models, or the class",
          "[platform_catalog]") {
  // Xeon Platinum 8480C: 350 W (Intel ARK, 8480+), from the table.
  const auto v = read_platforms(doc(kSxm), "p.json");
  CHECK(v[0].cpu_tdp_w == 350);
  CHECK_FALSE(v[0].cpu_tdp_assumed);
  // NIC text: "1x Intel X710 10GbE + 1x NVIDIA BlueField-3 B3220 200GbE/NDR200 + 8x ConnectX-7
  // 400GbE/NDR" -> 1 other, 1 DPU, 8 fabric.
  std::string d = doc(
      kSxm, R"({"psu_count": 6})",
      R"(, "network": {"nics_shipped": "1x Intel X710 10GbE + 1x NVIDIA BlueField-3 B3220 200GbE/NDR200 + 8x ConnectX-7 400GbE/NDR"})");
  const auto n = read_platforms(d, "p.json");
  CHECK(n[0].nics_other_shipped == 1);
  CHECK(n[0].dpus_shipped == 1);
  CHECK(n[0].nics_400g_shipped == 8);
  CHECK(n[0].psu.watts == 0);  // no rating in the row: unrated, not guessed
}

TEST_CASE("The built-in platform catalog reads and every row is usable", "[platform_catalog]") {
  const auto& v = builtin_platforms();
  REQUIRE(v.size() >= 20);
  for (const auto& p : v) {
    CAPTURE(p.id);
    CHECK_FALSE(p.gpu_counts.empty());
    CHECK(p.cpu_sockets >= 1);
    CHECK_FALSE(p.source.empty());
    if (p.gpu_mount == GpuMount::sxm || p.gpu_mount == GpuMount::oam)
      CHECK((p.gpu_counts.front() == 4 || p.gpu_counts.front() == 8));
  }
  const PlatformModel* dgx = find_platform(v, "nvidia-dgx-h100");
  REQUIRE(dgx);
  CHECK(dgx->psu.redundancy == Redundancy{4, 2});
  CHECK(dgx->nics_400g_shipped == 10);  // "10x 400 Gb/s InfiniBand"
}
