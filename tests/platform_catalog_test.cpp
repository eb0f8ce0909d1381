#include "llmsize/io/platform_catalog.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "llmsize/io/error.hpp"
#include "llmsize/machine/power_model.hpp"

using namespace llmsize;

namespace {

// A minimal valid platform in data/platforms.json's schema; tests break one field at a time.
std::string doc(const std::string& gpu,
                const std::string& psu = R"({"bays": 6, "watts": 3300, "redundancy": "4+2"})",
                const std::string& extra = "", const std::string& array = "platforms") {
  return R"({")" + array + R"(": [{"id": "hgx", "name": "HGX box", "vendor": "v", "class": "server",
    "gpu": )" +
         gpu + R"(,
    "cpu": {"sockets": 2, "model": "Intel Xeon Platinum 8480C", "cores_per_socket": 56},
    "memory": {"channels_per_socket": 8, "dimm_slots": 32},
    "psu": )" +
         psu + extra + R"(, "sources": {"all": "datasheet"}}]})";
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
  CHECK(dgx->gpu_ids == std::vector<std::string>{"h100-sxm"});
  CHECK(dgx->cpu_sockets == 2);
  CHECK(dgx->cpu_cores_per_socket == 56);
  CHECK(dgx->cpu_tdp_w == 350);
  CHECK(dgx->ram_shipped_gib == 2048);
  CHECK(dgx->psu.bays == 6);
  CHECK(dgx->psu.watts == 3300);
  CHECK(dgx->psu.redundancy == Redundancy{4, 2});
  CHECK_FALSE(dgx->psu.atx);
  CHECK(dgx->max_power_w == 10200);
  CHECK(dgx->nics_400g_shipped == 8);
  CHECK(dgx->nvme_shipped == 10);
  // Source objects are joined "key: text ; key: text" (keys in JSON object order: sorted).
  CHECK(dgx->source.find("power: NVIDIA DGX H100/H200 User Guide") != std::string::npos);
  CHECK(dgx->source.find("host: MLPerf") == 0);
  // PCIe machines list slots: counts 1..slots.
  const PlatformModel* ws = find_platform(v, "wrx90-workstation");
  REQUIRE(ws);
  CHECK(ws->gpu_counts == std::vector<uint32_t>{1, 2, 3, 4});
  CHECK(ws->psu.redundancy == Redundancy{2, 0});  // two PSUs sharing, no spare
  // A desktop's single PSU is an ATX supply bought to fit, up to its rating.
  const PlatformModel* desk = find_platform(v, "am5-desktop");
  REQUIRE(desk);
  CHECK(desk->psu.atx);
  CHECK(desk->psu.watts == 1600);
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
      {"{}", "p.json: /platforms: missing (expected an array of platforms)"},
      {doc(R"({"mount": "sxm", "counts": [6]})"),
       "p.json: /platforms/0/gpu/counts: SXM/OAM baseboards hold 4 or 8 GPUs, got 6"},
      {doc(R"({"mount": "nvl", "counts": [8]})"),
       "p.json: /platforms/0/gpu/mount: unknown mount \"nvl\" (expected pcie, sxm, oam, superchip "
       "or integrated)"},
      {doc(R"({"mount": "pcie", "slots": 8, "width_max": 2, "widths_total": 16})"),
       "p.json: /platforms/0/gpu/lanes_total: missing (expected a number)"},
      {doc(kSxm, R"({"bays": 4, "watts": 3300, "redundancy": "4+2"})"),
       "p.json: /platforms/0/psu/redundancy: expected \"N+R\" with N+R = bays (4), \"N+1\", "
       "\"N+N\" or \"none\", got \"4+2\""},
      {doc(kSxm, R"({"bays": 6, "watts": "3.3 kW", "redundancy": "4+2"})"),
       "p.json: /platforms/0/psu/watts: expected a number, got \"3.3 kW\""},
      {doc(kSxm, R"({"bays": 6})", R"(, "price_usd": 300000)"),
       "p.json: /platforms/0/price_source: missing (expected a string)"},
      {doc(kSxm, R"({"bays": 6})", R"(, "measured_power_w": {"measured_peak_w": {"low": 1}})"),
       "p.json: /platforms/0/measured_power_w/measured_peak_w/high: missing (expected a number)"},
      {doc(R"({"mount": "integrated", "counts": [1]})"),
       "p.json: /platforms/0/gpu/mount: class unified goes with mount integrated, and only it"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK_THROWS_MATCHES(read_platforms(c.text, "p.json"), InputError,
                         Catch::Matchers::Message(c.message));
  }
  CHECK_THROWS_AS(read_platforms("{", "p.json"), InputError);
  // Two rows with one id.
  const std::string one = doc(kSxm);
  const std::string row = one.substr(one.find('[') + 1, one.rfind(']') - one.find('[') - 1);
  CHECK_THROWS_MATCHES(read_platforms("{\"platforms\": [" + row + "," + row + "]}", "p.json"),
                       InputError,
                       Catch::Matchers::Message("p.json: /platforms/1/id: duplicate id \"hgx\""));
}

TEST_CASE("Facts the catalog lacks are looked up, flagged or left unrated", "[platform_catalog]") {
  // No cpu/tdp_w: the Xeon Platinum 8480C's 350 W from the table (Intel ARK, 8480+). No PSU
  // rating: unrated (0), not guessed.
  const auto v = read_platforms(doc(kSxm, R"({"bays": 6})"), "p.json");
  REQUIRE(v.size() == 1);
  CHECK(v[0].cpu_tdp_w == 350);
  CHECK_FALSE(v[0].cpu_tdp_assumed);
  CHECK(v[0].psu.watts == 0);
  // An unknown CPU model: the class's 360 W, flagged as assumed.
  std::string d = doc(kSxm);
  d.replace(d.find("Intel Xeon Platinum 8480C"), 25, "Some future CPU");
  const auto a = read_platforms(d, "p.json");
  CHECK(a[0].cpu_tdp_w == 360);
  CHECK(a[0].cpu_tdp_assumed);
  // "platforms_incomplete" rows are used when they give what selection needs, else skipped with
  // the reason.
  std::vector<std::string> skipped;
  const auto inc = read_platforms(
      R"({"platforms": [], )" + doc(kSxm, R"({"bays": 6})", "", "platforms_incomplete").substr(1),
      "p.json", &skipped);
  CHECK(inc.size() == 1);
  CHECK(skipped.empty());
  const auto bad =
      read_platforms(R"({"platforms": [], )" + doc(R"({"mount": "pcie", "slots": 2})",
                                                   R"({"bays": 1})", "", "platforms_incomplete")
                                                   .substr(1),
                     "p.json", &skipped);
  CHECK(bad.empty());
  REQUIRE(skipped.size() == 1);
  CHECK(skipped[0] == "p.json: /platforms_incomplete/0/gpu/width_max: missing (expected a number)");
}

TEST_CASE("The built-in platform catalog reads and every row is usable", "[platform_catalog]") {
  std::vector<std::string> skipped;
  const auto v =
      read_platforms(std::string(R"({"platforms": []})"), "x");  // the empty catalog is valid
  CHECK(v.empty());
  const auto& b = builtin_platforms();
  REQUIRE(b.size() >= 15);
  for (const auto& p : b) {
    CAPTURE(p.id);
    CHECK_FALSE(p.gpu_counts.empty());
    CHECK(p.cpu_sockets >= 1);
    CHECK_FALSE(p.source.empty());
    if (p.gpu_mount == GpuMount::sxm || p.gpu_mount == GpuMount::oam)
      CHECK((p.gpu_counts.front() == 4 || p.gpu_counts.front() == 8));
  }
  const PlatformModel* dgx = find_platform(b, "nvidia-dgx-h100");
  REQUIRE(dgx);
  CHECK(dgx->psu.redundancy == Redundancy{4, 2});
  CHECK(dgx->nics_400g_shipped == 10);
  CHECK(find_platform(b, "am5-desktop"));  // an incomplete row made usable
}

TEST_CASE("PSUs no source gave are unknown, not one PSU without redundancy", "[platform_catalog]") {
  // No psu object: the reader keeps one bay and no spare as placeholders and says they are not
  // published; plan_psus reports count 0 (unknown), no rating, the scheme unknown.
  const char* hgx = R"({"mount": "sxm", "counts": [8], "ids": ["h100-sxm"]})";
  const auto none = read_platforms(doc(hgx, R"({})"), "p.json");
  REQUIRE(none.size() == 1);
  CHECK_FALSE(none[0].psu.bays_published);
  CHECK_FALSE(none[0].psu.redundancy_published);
  const PsuPlan u = plan_psus(none[0], 10000);
  CHECK(u.count == 0);
  CHECK(u.watts == 0);
  CHECK_FALSE(u.redundancy_known);
  CHECK_FALSE(u.sufficient);
  // Bays published, rating and scheme not (Lenovo ThinkStation PX: two bays): the count is the
  // bays, the scheme unknown.
  const auto bays = read_platforms(doc(hgx, R"({"bays": 2})"), "p.json");
  const PsuPlan b = plan_psus(bays[0], 1000);
  CHECK(b.count == 2);
  CHECK_FALSE(b.redundancy_known);
  // Everything published: as the vendor states it.
  const auto all = read_platforms(doc(hgx), "p.json");
  CHECK(all[0].psu.bays_published);
  CHECK(all[0].psu.redundancy_published);
  const PsuPlan a = plan_psus(all[0], 10000);
  CHECK(a.count == 6);
  CHECK(a.redundancy_known);
  CHECK(to_string(a.redundancy) == "4+2");
  // A 4+2 rating unstated does not turn the machine down for capacity (nothing to check it
  // against) and the choice says the PSUs are unrated.
  GpuSpec g;
  g.id = "h100-sxm";
  g.form_factor = FormFactor::sxm;
  g.board_power_w = 700;
  CHECK(platform_blockers(none[0], g, 8, 1e6).empty());
  const auto ch = choose_platform(
      none, g, 8, "", [](const PlatformModel&, const GpuSpec&, uint32_t) { return 1e6; });
  REQUIRE(ch.index == 0);
  CHECK(std::find(ch.reasons.begin(), ch.reasons.end(), PlatformReason::psu_unrated) !=
        ch.reasons.end());
}

TEST_CASE("Built-in rows read with the PSUs and slots their sources give", "[platform_catalog]") {
  const auto& b = builtin_platforms();
  struct Case {
    const char* id;
    PlatformClass cls;
    uint32_t max_gpus;
    uint32_t psu_bays;  // 0: not published
    double psu_w;       // 0: not published
    bool scheme_published;
  };
  const Case cases[] = {
      // SMBIOS of one unit: four Delta 3200 W supplies; no scheme in SMBIOS.
      {"asus-esc8000a-e13p", PlatformClass::server, 8, 4, 3200, false},
      // A secondary procurement table (DOUBTFUL in the catalog), without the schemes.
      {"supermicro-sys-821ge-tnhr", PlatformClass::server, 8, 6, 3000, false},
      {"lenovo-thinksystem-sr675-v3-hgx4", PlatformClass::server, 4, 4, 2600, false},
      {"supermicro-sys-421ge-tnrt", PlatformClass::server, 10, 4, 2700, false},
      {"gigabyte-g493-sb0", PlatformClass::server, 8, 4, 3000, false},
      {"supermicro-as-4125gs-tnrt", PlatformClass::server, 8, 4, 2000, false},
      {"asus-esc8000a-e12", PlatformClass::server, 8, 4, 3000, false},
      // Workstations: Lenovo's P8 names one 1400 W supply; the PX two bays, no rating; HP's Z8
      // Fury G5 no PSU at all.
      {"lenovo-thinkstation-p8", PlatformClass::workstation, 3, 1, 1400, true},
      {"lenovo-thinkstation-px", PlatformClass::workstation, 4, 2, 0, false},
      {"hp-z8-fury-g5", PlatformClass::workstation, 4, 0, 0, false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.id);
    const PlatformModel* p = find_platform(b, c.id);
    REQUIRE(p);
    CHECK(p->platform_class == c.cls);
    CHECK(p->max_gpus() == c.max_gpus);
    CHECK(p->psu.bays_published == (c.psu_bays > 0));
    if (c.psu_bays) CHECK(p->psu.bays == c.psu_bays);
    CHECK(p->psu.watts == c.psu_w);
    CHECK(p->psu.redundancy_published == c.scheme_published);
    if (p->gpu_mount == GpuMount::pcie) {
      CHECK(p->gpu_width_max == 2);                  // double-width positions
      CHECK(p->gpu_widths_total == 2 * c.max_gpus);  // each position 2 slot widths
      CHECK(p->gpu_lanes_total == 16 * c.max_gpus);  // x16 each
    }
  }
  // The ESC8000A-E13P's DIMMs as one unit reports them: 24, one per channel of 12 per socket.
  const PlatformModel* asus = find_platform(b, "asus-esc8000a-e13p");
  CHECK(asus->dimm_slots == 24);
  CHECK(asus->memory_channels_per_socket == 12);
  // A workstation whose channels no source gives (HP's Z8 Fury G5) takes 4 per socket, the
  // fewest of current workstation sockets, not the 2 the host sizing fell back to (512 GiB on
  // two 256 GiB RDIMMs); one that gives them keeps its own (the PX's 8).
  CHECK(find_platform(b, "hp-z8-fury-g5")->memory_channels_per_socket == 4);
  CHECK(find_platform(b, "lenovo-thinkstation-px")->memory_channels_per_socket == 8);
  // x16 slots for NICs beside the GPUs: the AS-4125GS-TNRT's 9 FHFL slots less its 8 GPU
  // positions = 1 (StorageReview); the SYS-421GE-TNRT's layout is unpublished: not a 0.
  const PlatformModel* as4125 = find_platform(b, "supermicro-as-4125gs-tnrt");
  REQUIRE(as4125);
  CHECK(as4125->nic_slots_published);
  CHECK(as4125->nic_slots == 1);
  const PlatformModel* s421 = find_platform(b, "supermicro-sys-421ge-tnrt");
  REQUIRE(s421);
  CHECK_FALSE(s421->nic_slots_published);
  // The DGX Station GB300 reads as a superchip machine that offers no catalog GPU yet.
  const PlatformModel* station = find_platform(b, "nvidia-dgx-station-gb300");
  REQUIRE(station);
  CHECK(station->gpu_mount == GpuMount::superchip);
  CHECK(station->gpu_ids.empty());
}
