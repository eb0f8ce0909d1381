// The machine of a plan through the real binary: platform, host, PSUs, maximum and typical power,
// the three-level fit verdict, bom[] and --format bom-csv, --platform and --storage, check
// --strict, and the HTML procurement report rendered by headless Chromium.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "png_reader.hpp"
#include "run_binary.hpp"

using json = nlohmann::json;
using llmsize::cli_test::run;
using llmsize::cli_test::sh;

namespace {

json run_json(const std::string& args) {
  const auto r = run(args + " -f json");
  INFO(args << "\n" << r.err);
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string temp_dir() {
  char t[] = "/tmp/llmsize-machine-XXXXXX";
  REQUIRE(mkdtemp(t) != nullptr);
  return t;
}

}  // namespace

TEST_CASE("405B fp8 on 8 x H100 SXM is an HGX H100 8-GPU server as vendors ship it",
          "[cli][machine]") {
  const std::string args = "llama-3.1-405b --quant fp8 --gpu h100-sxm --gpus 8";
  const auto j = run_json(args);
  // The DGX H100 (NVIDIA's HGX H100 8-GPU system, data/platforms.json): 2 x Xeon Platinum 8480C
  // (56 cores each), 2 TiB = 32 x 64 GiB, 6 x 3.3 kW PSUs 4+2, 10.2 kW published maximum.
  CHECK(j["system"]["platform"] == "server");
  CHECK(j["system"]["platform_name"] == "NVIDIA DGX H100");
  CHECK(j["system"]["cpu_sockets"] == 2);
  CHECK(j["system"]["cpu_cores"] == 112);
  CHECK(j["system"]["ram_bytes"] == 2048ull << 30);
  CHECK(j["system"]["ram_dimms"] == 32);
  CHECK(j["power"]["psu_count"] == 6);
  CHECK(j["power"]["psu_watts"] == 3300.0);
  CHECK(j["power"]["psu_redundancy"] == "4+2");
  // Maximum within 15% of the vendor's 10,200 W; the typical draw is below it.
  const double max_w = j["power"]["max_wall_watts"].get<double>();
  CHECK(max_w > 10200 * 0.85);
  CHECK(max_w < 10200 * 1.15);
  const double typ_w = j["power"]["typical_wall_watts"].get<double>();
  CHECK(typ_w > 0);
  CHECK(typ_w < max_w);
  CHECK(j["machine"]["published_max_watts"] == 10200.0);
  // 8 x 80 GiB hold 405B fp8 with the 20% rule.
  CHECK(j["gpu"]["fit"] == "fits");
  CHECK(j["gpu"]["headroom_fraction"].get<double>() > 0.2);
  // bom[]: one line per component; the modules are 8 (an HGX board), the PSUs come with it.
  bool gpus = false, psus = false, memory = false;
  for (const auto& l : j["bom"]) {
    REQUIRE(l.contains("component"));
    REQUIRE(l.contains("spec"));
    REQUIRE(l.contains("qty"));
    REQUIRE(l.contains("unit_price_usd"));
    REQUIRE(l.contains("price_source"));
    REQUIRE(l.contains("why"));
    if (l["component"] == "gpu") gpus = l["qty"] == 8;
    if (l["component"] == "psu") psus = l["qty"] == 6 && l["included_in"] == "platform";
    if (l["component"] == "memory") memory = l["qty"] == 32;
  }
  CHECK(gpus);
  CHECK(psus);
  CHECK(memory);
  const auto t = run(args);
  REQUIRE(t.code == 0);
  for (const char* s :
       {"Machine   NVIDIA DGX H100", "2 sockets × Intel Xeon Platinum 8480C, 112 cores",
        "32 × 64 GiB = 2048 GiB", "400 Gb/s", "6 × 3,300 W, 4+2 redundancy",
        "the vendor publishes 10,200 W", "typical ", "circuit ", "Cold start from local-nvme-gen4",
        "read weights", "copy to GPUs", "fits with"}) {
    INFO(s);
    CHECK(has(t.out, s));
  }
}

TEST_CASE("70B Q4_K_M on 2 x RTX 3090 at ctx 8192 fits tight, with its headroom",
          "[cli][machine]") {
  const std::string args = "llama-3.1-70b --quant q4_k_m --gpu rtx-3090 --gpus 2 --ctx 8192";
  const auto j = run_json(args);
  // Per GPU without headroom 21.63 GiB of 24 GiB: (24 - 21.63) / 21.63 = 11.0%, below 20%
  // (fit_verdict_test.cpp: the second GPU's pipelined compute buffer, 380,157,952 B, in a
  // need of 23,219,970,048 B; 21.53 GiB and 11.5% with the one-GPU buffer before).
  CHECK(j["gpu"]["fit"] == "tight");
  const double h = j["gpu"]["headroom_fraction"].get<double>();
  CHECK(h > 0.10);
  CHECK(h < 0.13);
  // gpu.fits keeps its meaning: held with the requested headroom.
  CHECK(j["gpu"]["fits"] == false);
  // Tight is held: nothing spills to system RAM.
  CHECK(j["gpu"]["offload_layers_cpu"].is_null());
  CHECK(j["system"]["platform"] == "desktop");
  CHECK(j["power"]["psu_count"] == 1);
  CHECK(j["power"]["psu_redundancy"] == "none");
  CHECK(j["power"]["typical_wall_watts"].get<double>() <
        j["power"]["max_wall_watts"].get<double>());
  const auto t = run(args);
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "fits tight with 11.0% headroom, below the 20% rule"));
  CHECK(!has(t.out, "is NOT enough"));
}

TEST_CASE("unified-memory computers are whole machines of class unified", "[cli][machine]") {
  const auto j = run_json("llama-3.1-8b -q q4_k_m --gpu gb10");
  CHECK(j["system"]["platform"] == "unified");
  CHECK(j["power"]["max_wall_watts"].get<double>() > 0);
}

TEST_CASE("the --platform flag picks by id and an unknown one exits 2 naming the closest",
          "[cli][machine]") {
  const auto bad = run("llama-3.1-70b --gpu h100-sxm --platform dgx-h10");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(has(bad.err, "--platform: unknown platform 'dgx-h10' (did you mean nvidia-dgx-h100"));
  const auto j = run_json("llama-3.1-70b --gpu h100-sxm --gpus 8 --platform nvidia-dgx-h100");
  CHECK(j["system"]["platform_id"] == "nvidia-dgx-h100");
  bool named = false;
  for (const auto& x : j["machine"]["reasons"]) named = named || x == "override_name";
  CHECK(named);
}

TEST_CASE("the --storage flag changes the cold start and a bad class exits 2 with the list",
          "[cli][machine]") {
  const auto nvme = run_json("llama-3.1-8b -q q8_0 --gpu rtx-4090");
  const auto nfs = run_json("llama-3.1-8b -q q8_0 --gpu rtx-4090 --storage nfs");
  // NFS over 10 GbE reads far slower than a local PCIe 4.0 NVMe drive.
  CHECK(nfs["system"]["cold_start_s"].get<double>() > nvme["system"]["cold_start_s"].get<double>());
  CHECK(nfs["machine"]["cold_start"]["storage"] == "nfs");
  const auto bad = run("llama-3.1-8b --storage floppy");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(has(bad.err, "--storage: expected hdd, sata-ssd, "));
}

TEST_CASE("the bom-csv format writes one row per BOM line", "[cli][machine]") {
  const std::string args = "llama-3.1-405b --quant fp8 --gpu h100-sxm --gpus 8";
  const auto j = run_json(args);
  const auto c = run(args + " -f bom-csv");
  REQUIRE(c.code == 0);
  std::istringstream in(c.out);
  std::string line;
  std::getline(in, line);
  CHECK(line == "component,part,spec,qty,unit_price_usd,price_source,included_in,why");
  size_t rows = 0;
  bool gpu_row = false;
  while (std::getline(in, line)) {
    ++rows;
    gpu_row = gpu_row || line.rfind("gpu,h100-sxm,", 0) == 0;
  }
  CHECK(rows == j["bom"].size());
  CHECK(gpu_row);
}

TEST_CASE("check --strict fails tight plans, the default passes them with a note",
          "[cli][machine][check]") {
  const std::string dir = temp_dir();
  {
    std::ofstream f(dir + "/tight.json");
    f << "{\"plans\": [{\"name\": \"t\", \"model\": \"llama-3.1-70b\", \"quant\": \"q4_k_m\", "
         "\"gpu\": \"rtx-3090\", \"gpus\": 2, \"context\": 8192}]}";
  }
  const auto loose = run("check " + dir + "/tight.json");
  INFO(loose.out << loose.err);
  CHECK(loose.code == 0);
  CHECK(has(loose.out, "PASS t"));
  CHECK(has(loose.out, "tight"));
  const auto strict = run("check --strict " + dir + "/tight.json");
  INFO(strict.out << strict.err);
  CHECK(strict.code == 1);
  CHECK(has(strict.out, "FAIL t"));
  // Held to the rule: the headroom rule's failure, as without the three levels. 23,219,970,048
  // B per GPU (fit_verdict_test.cpp, the pipelined compute buffer of the second GPU) x 1.2 =
  // 25.95 GiB, and 11.0% headroom (25.8 GiB and 11.5% with the one-GPU buffer before).
  CHECK(has(strict.out, "needs 3 × rtx-3090, plan has 2: 26.0 GiB > 24 GiB"));
  CHECK(has(loose.out, "fits tight with 11.0% headroom, below the 20% rule"));
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("the html format is a self-contained procurement report Chromium renders",
          "[cli][machine][html]") {
  const std::string dir = temp_dir();
  const auto h = run("llama-3.1-405b --quant fp8 --gpu h100-sxm --gpus 8 -f html");
  REQUIRE(h.code == 0);
  for (const char* s : {"<!DOCTYPE html>", "Bill of materials", "<svg", "Power", "Checklist",
                        "Sources of the catalog facts", "NVIDIA DGX H100", "Cold start"}) {
    INFO(s);
    CHECK(has(h.out, s));
  }
  // Self-contained: no scripts, no external references.
  CHECK(!has(h.out, "<script"));
  CHECK(!has(h.out, "src=\"http"));
  CHECK(!has(h.out, "href=\"http"));
  {
    std::ofstream f(dir + "/report.html");
    f << h.out;
  }
  if (sh("command -v chromium").code != 0) {
    WARN(
        "SKIPPED: Debian's chromium is not installed (bash scripts/install-deps.sh installs it); "
        "the HTML report was not rendered");
    sh("rm -rf '" + dir + "'");
    return;
  }
  const std::string png = dir + "/report.png";
  const auto r =
      sh("chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
         "--disable-component-update --disable-sync --no-first-run --user-data-dir='" +
         dir + "/profile' --window-size=1200,1600 --screenshot='" + png + "' 'file://" + dir +
         "/report.html' 2>&1");
  INFO("chromium: " << r.out << r.err);
  REQUIRE(r.code == 0);
  const auto img = llmsize::test::read_png(png);
  REQUIRE(img.width == 1200);
  REQUIRE(img.height == 1600);
  // Not blank: a good share of pixels is not the white page, and several colours are drawn
  // (text, table headers, the charts' bars).
  size_t ink = 0, blue = 0;
  for (const auto& p : img.pixels) {
    ink += p[0] < 200 || p[1] < 200 || p[2] < 200;
    blue += p[2] > p[0] + 40 && p[2] > 120;  // the #4e79a7 bars and heading rules
  }
  CHECK(ink > img.pixels.size() / 100);
  CHECK(blue > 100);
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("schema 2: the power, cost and load fields come from the machine model",
          "[cli][machine]") {
  const auto j = run_json("llama-3.1-405b --quant fp8 --gpu h100-sxm --gpus 8");
  CHECK(j["schema_version"] == 2);
  // One source of truth: the AC draw at peak is the rated maximum at the wall, the DC peak the
  // rated model's DC maximum (9,534 W, tests/system_plan_test.cpp), the heat and the current
  // follow from it: 10,143 W x 3.412 = 34,606 BTU/h; 10,143 W / 230 V = 44.1 A.
  CHECK(j["power"]["wall_watts"] == j["power"]["max_wall_watts"]);
  CHECK(j["power"]["peak_watts"] == 9534.0);
  CHECK(j["power"]["heat_watts"] == j["power"]["max_wall_watts"]);
  CHECK(j["power"]["heat_btu_per_hour"].get<double>() ==
        Approx(j["power"]["max_wall_watts"].get<double>() * 3.412).epsilon(0.001));
  CHECK(j["power"]["circuit_amps"].get<double>() ==
        Approx(j["power"]["max_wall_watts"].get<double>() / 230).epsilon(0.001));
  // A redundant server is fed twice (A and B).
  CHECK(has(j["power"]["circuit"].get<std::string>(), "A and B feeds"));
  // Energy from the typical draw: typical W x 8,760 h / 1000.
  CHECK(j["power"]["energy_kwh_per_year"].get<double>() ==
        Approx(j["power"]["typical_wall_watts"].get<double>() * 8.76).epsilon(0.001));
  // The load time is the cold start's load (read + copy by the engine's loader), not the drive's
  // sequential read: 405 GB at ~7 GB/s would be ~58 s.
  CHECK(j["system"]["load_time_s"] == j["machine"]["cold_start"]["load_s"]);
  CHECK(j["system"]["load_time_s"].get<double>() > 100);
  CHECK(j["system"]["load_time_s_hdd_7200_rpm"].get<double>() >
        j["system"]["load_time_s_nvme_pcie_5_0"].get<double>());
  // The text no longer repeats the class rules or the sequential drive table.
  const auto t = run("llama-3.1-405b --quant fp8 --gpu h100-sxm --gpus 8");
  REQUIRE(t.code == 0);
  CHECK(!has(t.out, "Sizing by class rules"));
  CHECK(!has(t.out, "GB/s  "));
  CHECK(has(t.out, "read + copy to the GPUs"));
}

TEST_CASE("the hardware cost is the bill of materials", "[cli][machine]") {
  const auto j = run_json("llama-3.1-70b --quant q4_k_m --gpu rtx-3090 --gpus 2 --ctx 8192");
  // 2 x $1,499 GPUs + 2 x 48 GiB x $4 + two 1 TB drives at $80 = $3,542; the AM5 board, CPU and
  // PSU have no public price: a floor, and said so.
  CHECK(j["cost"]["hardware_usd"] == j["system"]["bom_total_usd"]);
  CHECK(j["cost"]["gpus_usd"] == 2 * 1499.0);
  CHECK(j["cost"]["hardware_complete"] == false);
  // A unified computer priced whole: the DGX Spark's $4,699 (its 2026 list price, raised from
  // the $3,999 launch price; data/platforms.json price_source) is the hardware.
  const auto s = run_json("llama-3.1-8b -q q4_k_m --gpu dgx-spark");
  CHECK(s["cost"]["hardware_usd"] == 4699.0);
  CHECK(s["power"]["max_wall_watts"] == 240.0);
  // A Mac Studio M3 Ultra with 512 GB is priced as that configuration ($9,499 at launch), not
  // as the $3,999 96 GB base (a larger unit than a row's priced one stays unpriced: [bom] test).
  const auto m = run_json("llama-3.1-8b -q q4_k_m --gpu m3-ultra");
  CHECK(m["cost"]["hardware_usd"] == 9499.0);
  for (const auto& l : m["bom"])
    if (l["component"] == "platform") {
      CHECK(l["unit_price_usd"] == 9499.0);
      CHECK(has(l["price_source"].get<std::string>(), "512 GB configuration"));
    }
  // Its power is Apple's: 270 W maximum, 9 W idle at the wall.
  CHECK(m["power"]["max_wall_watts"] == 270.0);
}

TEST_CASE("compare puts unified computers beside GPU towers", "[cli][machine][compare]") {
  const auto t = run("llama-3.1-70b --quant q4_k_m --compare");
  INFO(t.err);
  REQUIRE(t.code == 0);
  for (const char* s :
       {"NVIDIA DGX Spark", "Apple Mac Studio (2025) with M3 Ultra", "Framework Desktop", "memory",
        "fit", "decode", "TTFT", "price", "idle", "typical", "max", "kWh/yr"})
    CHECK(has(t.out, s));
  // JSON: an array of plan documents, one per system.
  const auto r = run("llama-3.1-70b --quant q4_k_m --compare dgx-spark,rtx-4090x2 -f json");
  REQUIRE(r.code == 0);
  const json a = json::parse(r.out);
  REQUIRE(a.is_array());
  REQUIRE(a.size() == 2);
  CHECK(a[0]["gpu"]["id"] == "dgx-spark");
  CHECK(a[0]["system"]["platform"] == "unified");
  CHECK(a[1]["gpu"]["count"] == 2);
  CHECK(a[1]["gpu"]["id"] == "rtx-4090");
  for (const auto& p : a) CHECK(p["schema_version"] == 2);
  // CSV: one header and one row per system.
  const auto c = run("llama-3.1-70b --quant q4_k_m --compare dgx-spark,2xrtx-4090 -f csv");
  REQUIRE(c.code == 0);
  CHECK(std::count(c.out.begin(), c.out.end(), '\n') == 3);
  // Bad entries exit 2 naming the flag and the entry.
  const auto bad = run("llama-3.1-70b --compare dgx-sprak");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(has(bad.err, "--compare: unknown GPU or platform 'dgx-sprak'"));
  const auto both = run("llama-3.1-70b --compare --gpu rtx-4090");
  CHECK(both.code == 2);
  CHECK(has(both.err, "--compare: plans each system itself"));
}

TEST_CASE("two unified units are two machines on a network, said so", "[cli][machine]") {
  const auto j = run_json("llama-3.1-405b -q q4_k_m --gpu ryzen-ai-max-395");
  CHECK(j["system"]["nodes"] == 3);
  CHECK(j["gpu"]["nodes"] == 3);
  bool separate = false;
  for (const auto& x : j["machine"]["reasons"]) separate = separate || x == "separate_units";
  CHECK(separate);
  const auto t = run("llama-3.1-405b -q q4_k_m --gpu ryzen-ai-max-395");
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "separate units, each its own machine"));
  // DGX Spark: NVIDIA links two; three are said to be beyond the maker's support.
  const auto s = run("llama-3.1-405b -q q4_k_m --gpu dgx-spark");
  REQUIRE(s.code == 0);
  CHECK(has(s.out, "more units than the maker supports linking together"));
}

TEST_CASE("a platform whose PSUs no source gives reports them unknown, not as one PSU",
          "[cli][machine]") {
  // The DGX B300 row (data/platforms.json) has no published PSU count, rating or scheme.
  const std::string args = "llama-3.1-8b --gpu b300 --gpus 8";
  const auto j = run_json(args);
  CHECK(j["system"]["platform_id"] == "nvidia-dgx-b300");
  CHECK(j["power"]["psu_count"].is_null());
  CHECK(j["power"]["psu_watts"].is_null());
  CHECK(j["power"]["psu_redundancy"].is_null());
  const auto& reasons = j["machine"]["reasons"];
  CHECK(std::find(reasons.begin(), reasons.end(), "psu_unrated") != reasons.end());
  bool psu_line = false;
  for (const auto& l : j["bom"])
    if (l["component"] == "psu") {
      psu_line = true;
      CHECK(l["part"] == "psu-as-shipped");
      CHECK(l["spec"]["count"] == "not published");
      CHECK(l["spec"]["redundancy"] == "not published");
    }
  CHECK(psu_line);
  const auto t = run(args);
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "PSUs            count, rating and redundancy not published for this platform"));
  CHECK(!has(t.out, "no redundancy"));
}

TEST_CASE("4 x H100 SXM is a 4-GPU HGX server, not an 8-GPU DGX", "[cli][machine]") {
  // Dell PowerEdge XE8640 (data/platforms.json, MLPerf Inference v4.1 configuration): 4 x H100 SXM
  // on the HGX 4-GPU board, 2 x Xeon Platinum 8468 (48 cores each), 1 TiB = 16 x 64 GiB.
  const std::string args = "llama-3.1-70b --gpu h100-sxm --gpus 4";
  const auto j = run_json(args);
  CHECK(j["system"]["platform"] == "server");
  CHECK(j["system"]["platform_id"] == "dell-poweredge-xe8640");
  CHECK(j["system"]["nodes"] == 1);
  CHECK(j["system"]["cpu_sockets"] == 2);
  CHECK(j["system"]["cpu_cores"] == 96);
  CHECK(j["system"]["ram_bytes"] == 1024ull << 30);
  CHECK(j["machine"]["gpus_per_node"] == 4);
  const auto& reasons = j["machine"]["reasons"];
  CHECK(std::find(reasons.begin(), reasons.end(), "rounded_up") == reasons.end());
  for (const auto& l : j["bom"])
    if (l["component"] == "gpu") CHECK(l["qty"] == 4);
  // Its maximum: 4 x 700 W x 1.44 (GPUs and the HGX baseboard) + 2 x 350 W + 16 x 10 W DIMMs
  // + 4 x 25 W NVMe + 4 x 25 W ConnectX-7 + 100 W board = 5,192 W DC / 0.94 = 5,523 W at the wall.
  CHECK(j["power"]["max_wall_watts"] == 5523.0);
  // Its PSUs are not published: said, not guessed.
  CHECK(j["power"]["psu_count"].is_null());
  // The HGX A100 4-GPU server of the same vendor takes DDR4 (EPYC 7763): the BOM's DIMMs say so.
  const auto a = run_json("llama-3.1-70b --gpu a100-80gb-sxm --gpus 4");
  CHECK(a["system"]["platform_id"] == "dell-poweredge-xe8545");
  bool ddr4 = false;
  for (const auto& l : a["bom"])
    if (l["component"] == "memory")
      ddr4 = l["part"].get<std::string>().rfind("ddr4-rdimm-", 0) == 0;
  CHECK(ddr4);
  // Four 2,400 W PSUs (MLPerf v1.1 psu_details "4x2400W"), their scheme unpublished.
  CHECK(a["power"]["psu_count"] == 4);
  CHECK(a["power"]["psu_watts"] == 2400.0);
  CHECK(a["power"]["psu_redundancy"].is_null());
}

TEST_CASE("a module no vendor's machine lists goes to a generic baseboard, said to be",
          "[cli][machine]") {
  // No sourced platform in data/platforms.json is sold with the H20: the generic SXM baseboard
  // server stands in (#20: one hardware model, no class rules), and every output says so.
  const std::string args = "llama-3.1-8b --gpu h20 --gpus 8";
  const auto j = run_json(args);
  CHECK(j["system"]["platform_id"] == "generic-sxm-baseboard-server");
  CHECK(j["system"]["platform_generic"] == true);
  CHECK(has(j["system"]["platform_basis"].get<std::string>(), "one AMD EPYC 9004 socket"));
  CHECK(j["power"]["basis"] == "generic");
  CHECK(j["cost"]["basis"] == "generic");
  const auto t = run(args);
  REQUIRE(t.code == 0);
  CHECK(has(t.out,
            "  generic         no sourced catalog machine takes h20: the 4- or 8-module "
            "HGX baseboard"));
  CHECK(!has(t.out, "class rules"));
  // A catalog machine's figures are the machine's.
  const auto m = run_json("llama-3.1-70b --gpu h100-sxm --gpus 8");
  CHECK(m["power"]["basis"] == "machine");
  CHECK(m["system"]["platform_generic"] == false);
  // check's budgets say which figures they held the plan to.
  const std::string dir = temp_dir();
  {
    std::ofstream f(dir + "/p.json");
    f << R"({"plans": [{"model": "llama-3.1-8b", "gpu": "h20", "gpus": 8, )"
      << R"("budget": {"power_watts": 100000}}]})";
  }
  const auto c = run("check " + dir + "/p.json");
  CHECK(c.code == 0);
  CHECK(has(c.out, "(a generic machine: no sourced catalog machine takes the GPUs)"));
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("no platform at all takes the GPUs: no host, power or cost is made up",
          "[cli][machine]") {
  // A --catalog card five slots wide fits no platform row, sourced or generic: the plan has no
  // machine, so no host, power or cost (null in JSON, said in words), and nothing stands in.
  const std::string dir = temp_dir();
  {
    std::ofstream f(dir + "/g.json");
    f << R"({"gpus": [{"id": "wide-card", "name": "Wide Card", "vendor": "nvidia", )"
      << R"("class": "workstation", "memory_gib": 48, "bandwidth_gb_per_s": 900, )"
      << R"("board_power_w": 300, "fp16_tflops_dense": 100, "slot_width": 5, "price_usd": 4000, )"
      << R"("form_factor": "pcie", "backends": ["cuda"]}]})";
  }
  const std::string args = "llama-3.1-8b --gpu wide-card --gpus 2 --catalog " + dir + "/g.json";
  const auto j = run_json(args);
  CHECK(j["system"]["platform_id"].is_null());
  CHECK(j["system"]["platform"].is_null());
  CHECK(j["system"]["ram_bytes"].is_null());
  CHECK(j["power"]["basis"].is_null());
  CHECK(j["power"]["peak_watts"].is_null());
  CHECK(j["cost"]["basis"].is_null());
  CHECK(j["cost"]["hardware_usd"].is_null());
  bool said = false;
  for (const auto& w : j["warnings"])
    said = said || (has(w.get<std::string>(), "no platform in the catalog takes 2 × Wide Card") &&
                    has(w.get<std::string>(), "no host, power or cost is planned"));
  CHECK(said);
  const auto t = run(args + " --width 0");
  REQUIRE(t.code == 0);
  CHECK(!has(t.out, "class rule"));
  CHECK(!has(t.out, "Power and cooling"));
  CHECK(has(t.out, "GPU        Wide Card"));
  // check: a budget on what the plan does not have fails that plan as unknown, with the reason.
  {
    std::ofstream f(dir + "/plan.json");
    f << R"({"plans": [{"model": "llama-3.1-8b", "gpu": "wide-card", "gpus": 2, )"
      << R"("budget": {"power_watts": 5000, "price_usd": 100000}}]})";
  }
  const auto c = run("check " + dir + "/plan.json --catalog " + dir + "/g.json");
  CHECK(c.code == 1);
  CHECK(has(c.out, "power unknown: no catalog platform takes 2 × wide-card"));
  CHECK(has(c.out, "price unknown: no catalog platform takes 2 × wide-card"));
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("compare words a floor price as check does and labels the GPUs bought",
          "[cli][machine][compare]") {
  // 2 x RTX 4090 on the AM5 desktop: its board, CPU and PSU are unpriced, so the BOM's sum is a
  // floor, worded "at least $..." as in check (never a bare "+").
  const auto t = run("llama-3.1-70b --compare rtx-4090x2,h100-sxm");
  INFO(t.err);
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "at least $"));
  CHECK(!has(t.out, "+ "));
  CHECK(has(t.out, "(\"at least\": some lines unpriced)"));
  // One H100 SXM is needed, the HGX board holds 4: the row is the 4-GPU machine it prices.
  CHECK(has(t.out, "4 × NVIDIA H100 SXM5 80GB (dell-poweredge-xe8640, 1 needed)"));
  CHECK(has(t.out, "4 GPUs"));
  // check says the same floor the same way.
  const auto j = run_json("llama-3.1-70b --gpu rtx-4090 --gpus 2");
  CHECK(j["cost"]["hardware_complete"] == false);
}

TEST_CASE("a unified computer's typical draw says which figures are measured", "[cli][machine]") {
  // Framework Desktop: a measured 133 W busy (a 70B model decoding), no published idle: the idle
  // is 6% of its 400 W supply = 24 W. Mac Studio M3 Ultra: Apple's 9 W idle, no serving figure.
  const auto f = run("llama-3.1-70b --gpu ryzen-ai-max-395");
  REQUIRE(f.code == 0);
  CHECK(has(f.out, "(busy 133 W, idle 24 W; busy as measured, idle scaled from the maximum)"));
  const auto m = run("llama-3.1-70b --gpu m3-ultra");
  REQUIRE(m.code == 0);
  CHECK(has(m.out, "idle 9 W; idle as measured, busy scaled from the maximum)"));
  CHECK(has(m.out, "maximum         270 W at the wall"));
}

TEST_CASE("a rack's PDUs follow the site's mains", "[cli][machine]") {
  // 230 V mains (the default): 3-phase 400 V 32 A PDUs; --mains 120 (North America): 3-phase
  // 208 V 60 A, the 3-phase service there.
  for (const auto& [args, part] :
       {std::pair<std::string, std::string>{"", "pdu-3ph-400v-32a"},
        std::pair<std::string, std::string>{" --mains 120", "pdu-3ph-208v-60a"}}) {
    CAPTURE(args);
    const auto j = run_json("llama-3.1-405b --quant fp8 --gpu h100-sxm --gpus 8" + args);
    bool pdu = false;
    for (const auto& l : j["bom"])
      if (l["component"] == "pdu") {
        pdu = true;
        CHECK(l["part"] == part);
      }
    CHECK(pdu);
  }
}

TEST_CASE("llmsize platforms lists the catalog --platform picks from", "[cli][machine]") {
  const auto t = run("platforms");
  REQUIRE(t.code == 0);
  // The DGX H100 as NVIDIA states it; the DGX B300's PSUs, which no source gives, said to be.
  CHECK(has(t.out, "nvidia-dgx-h100"));
  CHECK(has(t.out, "6 × 3,300 W, 4+2"));
  CHECK(has(t.out, "10,200"));
  CHECK(has(t.out, "4 × 2,400 W, scheme not published"));
  // The ThinkStation PX's two bays without a published rating: said so, not "2 × ? W".
  CHECK(has(t.out, "2 bays; rating, scheme unpublished"));
  CHECK(!has(t.out, "? W"));
  const auto j = json::parse(run("platforms -f json").out);
  bool b300 = false, xe8640 = false;
  for (const auto& p : j["platforms"]) {
    if (p["id"] == "supermicro-as-4125gs-tnrt") CHECK(p["nic_slots"] == 1);
    if (p["id"] == "supermicro-sys-421ge-tnrt") CHECK(p["nic_slots"].is_null());
    if (p["id"] == "nvidia-dgx-b300") {
      b300 = true;
      CHECK(p["psu_count"].is_null());
      CHECK(p["psu_redundancy"].is_null());
    }
    if (p["id"] == "dell-poweredge-xe8640") {
      xe8640 = true;
      CHECK(p["gpu_counts"] == json::array({4}));
      CHECK(p["cpu_sockets"] == 2);
    }
  }
  CHECK(b300);
  CHECK(xe8640);
  // CSV: a header and one row per platform.
  const auto c = run("platforms -f csv");
  REQUIRE(c.code == 0);
  CHECK(static_cast<size_t>(std::count(c.out.begin(), c.out.end(), '\n')) ==
        1 + j["platforms"].size());
  CHECK(c.out.rfind("id,name,vendor,class,", 0) == 0);
  const auto bad = run("platforms -f html");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
}

TEST_CASE("watts, kWh and BTU/h in the table and checklist have their thousands grouped",
          "[cli][machine]") {
  // Two AM5 desktops for four RTX 4090 (2 x ~1.3 kW) and an HGX H100 (10.1 kW): every figure of
  // four digits or more before W, kWh or BTU/h is printed "2,592 W", never "2592 W".
  // The H20 has no catalog machine: its class-rule power section and PSU line, too.
  for (const char* args : {"llama-3.1-70b --gpu rtx-4090 --gpus 4 --ctx 8192",
                           "llama-3.1-405b --quant fp8 --gpu h100-sxm --gpus 8",
                           "llama-3.1-405b --gpu h20 --gpus 8"}) {
    CAPTURE(args);
    const auto t = run(args);
    REQUIRE(t.code == 0);
    std::istringstream lines(t.out);
    std::string line;
    int grouped = 0;
    while (std::getline(lines, line)) {
      CAPTURE(line);
      // A run of 4+ digits not inside a grouped number, followed by a unit.
      for (size_t i = 0; i < line.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(line[i]))) continue;
        size_t j = i;
        while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
        const bool after_comma_or_dot = i > 0 && (line[i - 1] == ',' || line[i - 1] == '.');
        const std::string rest = line.substr(j, 7);
        const bool unit =
            rest.rfind(" W", 0) == 0 || rest.rfind(" kWh", 0) == 0 || rest.rfind(" BTU/h", 0) == 0;
        if (unit && j - i >= 4 && !after_comma_or_dot) FAIL_CHECK("ungrouped: " << line);
        if (unit && after_comma_or_dot && line[i - 1] == ',') ++grouped;
        i = j;
      }
    }
    CHECK(grouped >= 5);  // maximum, circuit, heat, energy and the checklist's lines
  }
}

TEST_CASE("a desktop plan names the towers that turned the cards down, and why", "[cli][machine]") {
  // Four 3-slot RTX 4090: two desktops. The first machines named as turned down are the
  // workstations (the next class up), with the card's width; the rest are counted.
  const auto t = run("llama-3.1-70b --gpu rtx-4090 --gpus 4 --ctx 8192 --width 0");
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "Machine   AMD AM5 desktop"));
  // The GPU table's platform line counts the machines bought and what each holds (it said 1
  // platform needing 76 lanes: the four GPUs' lanes in one box that is never bought).
  CHECK(has(t.out,
            "(desktop)                                2  2 GPUs per machine at x8, 6 of its "
            "6 GPU slot widths"));
  CHECK(has(t.out,
            "  not lenovo-thinkstation-px         the card is too wide for its slots (a "
            "3-slot card)"));
  CHECK(has(t.out,
            "  not hp-z8-fury-g5                  the card is too wide for its slots (a "
            "3-slot card)"));
  CHECK(has(t.out, "more turned down on fit (--format json lists each)"));
  // The JSON keeps every rejection, the towers first.
  const auto j = run_json("llama-3.1-70b --gpu rtx-4090 --gpus 4 --ctx 8192");
  const auto& rej = j["machine"]["rejected"];
  REQUIRE(rej.size() >= 8);
  CHECK(rej[0]["platform"] == "lenovo-thinkstation-px");
}

TEST_CASE("a unified computer's checklist speaks of a whole computer, not of cards",
          "[cli][machine]") {
  const auto t = run("llama-3.1-70b --gpu m3-ultra");
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "Maintenance: a whole computer: memory and GPU are soldered"));
  CHECK(!has(t.out, "datacenter/workstation cards carry ECC"));
  // Only the other unified computers turned it down ("not sold with this GPU"): counted.
  CHECK(has(t.out, "not sold with this GPU (--format json lists each)"));
  CHECK(!has(t.out, "  not nvidia-dgx-spark"));
}

TEST_CASE("two desktops whose GPUs fill the board buy no network card", "[cli][machine]") {
  // Two 3-slot RTX 4090 take 6 of an AM5 board's 6 GPU slot widths: no slot for a 100 Gb/s NIC,
  // so none is in the BOM; the text says the onboard Ethernet carries the layer split.
  const std::string args = "llama-3.1-70b --gpu rtx-4090 --gpus 4 --ctx 8192";
  const auto j = run_json(args);
  CHECK(j["system"]["platform_id"] == "am5-desktop");
  for (const auto& l : j["bom"]) CHECK(l["component"] != "nic");
  const auto t = run(args);
  REQUIRE(t.code == 0);
  CHECK(has(t.out,
            "NICs            the board's onboard Ethernet: the GPUs leave no slot for a "
            "network card"));
  // Two 2-slot RTX 3080 on the same desktop (named: a tower would take all four) leave 2 of the
  // 6 slot widths: the NIC is bought.
  const auto k = run_json("llama-3.1-8b --gpu rtx-3080 --gpus 4 --platform am5-desktop");
  CHECK(k["system"]["platform_id"] == "am5-desktop");
  bool nic = false;
  for (const auto& l : k["bom"]) nic = nic || l["component"] == "nic";
  CHECK(nic);
}

TEST_CASE("links between machines are worded for the machines bought", "[cli][machine]") {
  // Two DGX Sparks: two units of one GPU each on a network, not "InfiniBand per GPU for tensor
  // parallelism" of 8-GPU servers.
  const auto s = run("llama-3.1-405b --gpu dgx-spark --gpus 2");
  REQUIRE(s.code == 0);
  CHECK(has(s.out, "Links: 2 units of one GPU each, on a network"));
  CHECK(!has(s.out, "nodes of up to 1 GPUs"));
  // Four RTX 4090 in two desktops: PCIe within each, and a network between the two.
  const auto d = run("llama-3.1-70b --gpu rtx-4090 --gpus 4 --width 0");
  REQUIRE(d.code == 0);
  CHECK(has(d.out, "between the 2 machines a network carries the layer split"));
  // Each desktop runs its two x16 cards at x8: 16 GB/s per direction, said in the checklist.
  CHECK(has(d.out, "this machine gives each card x8 (16 GB/s per direction)"));
  // PCIe servers across nodes split by layers: a stage link per machine, as the BOM buys, not
  // the HGX fabric's 400 Gb/s per GPU, which stays the words for modules.
  const auto l = run("llama-3.1-405b --gpu l40s --gpus 16 --width 0");
  REQUIRE(l.code == 0);
  CHECK(has(l.out, "pass only activations: a 100-200 GbE link per machine at most"));
  CHECK(has(l.out, "nic-200g-1p"));
  CHECK(has(l.out,
            "NICs            1 × 200 Gb/s (pipeline stage link), 1 × 200 Gb/s (storage/front "
            "end); 2 cards in the 2 x16 slots left beside the GPUs"));
  CHECK(!has(l.out, "nic-400g"));
  const auto h = run("deepseek-v3 --gpu h100-sxm --gpus 16");
  REQUIRE(h.code == 0);
  CHECK(has(h.out, "400 Gb/s InfiniBand or RoCE per GPU between the baseboards"));
}

TEST_CASE("three DGX Sparks, one more than NVIDIA links, come with a switch line",
          "[cli][machine]") {
  // The catalog's Spark links two units cabled directly (ConnectX-7 200 GbE): a third needs a
  // switch of 3 ports, in the BOM, unpriced (the total is then a floor).
  const auto j = run_json("llama-3.1-405b --gpu dgx-spark --gpus 3");
  bool sw = false;
  for (const auto& l : j["bom"])
    if (l["component"] == "switch") {
      sw = true;
      CHECK(l["qty"] == 1);
      CHECK(l["spec"]["ports"] == "3");
      CHECK(l["spec"]["gbit_per_s"] == "200");
    }
  CHECK(sw);
  // The units' own port goes to that switch: the NIC line does not say "cabled directly".
  for (const auto& l : j["bom"])
    if (l["component"] == "nic") {
      CHECK(l["part"] == "ConnectX-7 200 GbE");
      CHECK(l["spec"]["to"] == "the switch line");
    }
  // Two are cabled to each other: no switch.
  const auto two = run_json("llama-3.1-405b --gpu dgx-spark --gpus 2");
  for (const auto& l : two["bom"]) CHECK(l["component"] != "switch");
}

TEST_CASE("a tower whose memory channels are unpublished is not filled with two huge DIMMs",
          "[cli][machine]") {
  // HP Z8 Fury G5 for four RTX PRO 6000 (the PX's positions are cited at 300 W): the 265 GiB
  // the 2 x weights rule needs on the 4 channels assumed for an unpublished workstation socket:
  // 4 x 64 = 256 is short, so 4 x 96 GiB = 384 GiB; it was 2 x 256 GiB on 2 channels.
  const auto t = run("qwen3-235b-a22b --gpu rtx-pro-6000 --gpus 4");
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "Machine   HP Z8 Fury G5"));
  CHECK(has(t.out, "System RAM      4 × 96 GiB = 384 GiB"));
}

TEST_CASE("a unified computer's cold start has no copy to the GPU", "[cli][machine]") {
  // The M3 Ultra reads the weights into the memory its GPU uses: the load is the read alone.
  const auto j = run_json("llama-3.1-70b --gpu m3-ultra");
  const auto& cs = j["machine"]["cold_start"];
  CHECK(cs["load_s"].get<double>() > 0);
  const auto t = run("llama-3.1-70b --gpu m3-ultra");
  REQUIRE(t.code == 0);
  CHECK(has(t.out,
            "copy to GPUs        0.0 s (unified memory: the GPU uses the memory the weights "
            "were read into)"));
}

TEST_CASE("the GPU table counts the GPUs the machine is bought with", "[cli][machine]") {
  // One MI300X: OAM modules come on a board of 8 (Dell XE9680), so 8 are bought, as the BOM
  // line says; the GPU table said 1.
  const auto t = run("gpt-oss-120b --gpu mi300x --gpus 1 --width 0");
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "8 bought: the machine ships 8 (7 beyond the plan)"));
  const auto j = run_json("gpt-oss-120b --gpu mi300x --gpus 1");
  for (const auto& l : j["bom"])
    if (l["component"] == "gpu") CHECK(l["qty"] == 8);
}

TEST_CASE("the compare table groups the thousands of its kWh per year", "[cli][machine]") {
  // Two RTX 5090 in a desktop draw ~558 W typical: ~4,900 kWh a year, printed grouped. The
  // kWh/yr column is the token after the last " W" column (max).
  const auto t = run("llama-3.1-70b --compare dgx-spark,rtx-5090");
  REQUIRE(t.code == 0);
  std::istringstream lines(t.out);
  std::string line;
  bool tower = false;
  while (std::getline(lines, line))
    if (has(line, "RTX 5090")) {
      tower = true;
      CAPTURE(line);
      const size_t w = line.rfind(" W ");
      REQUIRE(w != std::string::npos);
      std::istringstream rest(line.substr(w + 3));
      std::string kwh;
      rest >> kwh;
      CHECK(kwh.size() >= 5);                     // four digits and a comma at least
      CHECK(kwh.find(',') != std::string::npos);  // "4,889", not "4889"
    }
  CHECK(tower);
}

TEST_CASE("check sizes a vLLM plan's weights as the checkpoint stores them, as the main command",
          "[cli][machine][check]") {
  // Kimi-K2.5's config.json stores its experts INT4 group 32 (compressed-tensors): vLLM loads
  // that, not a GGUF Q4_K_M; a plan without "quant" gets the main command's int4-g32.
  const std::string dir = temp_dir();
  {
    std::ofstream f(dir + "/k.json");
    f << R"({"plans": [{"name": "k", "model": "kimi-k2.5", "engine": "vllm", )"
      << R"("gpu": "rtx-pro-6000", "gpus": 7}, )"
      << R"({"name": "q", "model": "kimi-k2.5", "engine": "vllm", "quant": "fp8", )"
      << R"("gpu": "b200", "gpus": 8}]})";
  }
  const auto c = run("check " + dir + "/k.json");
  INFO(c.out << c.err);
  // A serving plan's context is its requests' isl + osl (1000 + 1000), as the main command's.
  CHECK(has(c.out, "PASS k (" + dir + "/k.json#/plans/0): kimi-k2.5 int4-g32 ctx 2000"));
  CHECK(has(c.out, "kimi-k2.5 fp8 ctx 2000"));  // a named quantization is kept
  // Kimi-K2.5 FP8 on 8 H200 under vLLM (not this file's plan): the engine's rule fails at the
  // count given, worded as that, not 'needs 8, plan has 8'.
  {
    std::ofstream f(dir + "/h.json");
    f << R"({"plans": [{"model": "kimi-k2.5", "engine": "vllm", "quant": "fp8", )"
      << R"("gpu": "h200", "gpus": 8}]})";
  }
  const auto h = run("check " + dir + "/h.json");
  CHECK(h.code == 1);
  // 139.8 GiB: what the H200's runtime reports (data/gpus.json visible_memory_mib 143,165).
  CHECK(has(h.out, "): does not fit on 8 × h200: 140.6 GiB per GPU > 139.8 GiB"));
  const auto m = run_json("kimi-k2.5 --engine vllm --gpu rtx-pro-6000 --gpus 7");
  CHECK(m["settings"]["quant"] == "int4-g32");
  CHECK(m["settings"]["context"] == 2000);
  sh("rm -rf '" + dir + "'");
}

TEST_CASE("the GPU link counts the machines bought", "[cli][machine]") {
  // 28 Arc Pro B60 (vLLM TP 4 x PP 7) in Supermicro SYS-421GE-TNRT servers of 10 double-width
  // positions: ceil(28 / 10) = 3 machines, 30 cards bought; the class rule's chassis of 8 would
  // have said 4 nodes.
  const auto r = run("kimi-k2.5 --engine vllm --gpu arc-pro-b60");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "× 3, 10 GPUs each"));
  CHECK(has(r.out, "GPU link   3 nodes of up to 10 GPUs: the layers split across them"));
  CHECK(has(r.out, "Links: 3 nodes of up to 10 GPUs"));
}

// #21: a consumer card goes into a desktop or workstation, never a rack server (its open-air
// cooler and the GeForce driver licence are not for a datacenter), unless --platform names one.
TEST_CASE("consumer cards go into no rack server unless --platform asks", "[cli][machine]") {
  for (const std::string args : {"gpt-oss-120b --engine vllm --users 1000 --target-tps 30 --gpu "
                                 "rtx-5090",
                                 "llama-3.1-405b --gpu rtx-4090 --gpus 12"}) {
    INFO(args);
    const auto j = run_json(args);
    CHECK(j["system"]["platform"] != "server");
    CHECK(!j["system"]["platform_id"].is_null());
  }
  const auto asked =
      run_json("llama-3.1-70b --gpu rtx-5090 --gpus 4 --platform asus-esc8000a-e13p");
  CHECK(asked["system"]["platform_id"] == "asus-esc8000a-e13p");
  const auto t = run("llama-3.1-70b --gpu rtx-5090 --gpus 8");
  REQUIRE(t.code == 0);
  CHECK(has(t.out, "a consumer card in a rack server"));
}

// #21: a vLLM / SGLang / TensorRT-LLM service of more than 4 users (or a request rate) is planned
// on a workstation or server (ECC memory, a BMC, redundant PSUs), and says so; --class sets the
// least class; a card no machine of the policy's classes takes keeps every class.
TEST_CASE("a shared service is planned on a workstation or server", "[cli][machine]") {
  struct Row {
    std::string flags, platform_class;
  };
  for (const Row& r : std::vector<Row>{{"--users 50", "workstation"},
                                       {"--rate 3", "workstation"},
                                       {"--users 2", "desktop"},
                                       {"--users 50 --class desktop", "desktop"},
                                       {"--users 50 --class server", "server"}}) {
    INFO(r.flags);
    const auto j = run_json("llama-3.1-8b --engine vllm --gpu rtx-pro-6000 " + r.flags);
    CHECK(j["system"]["platform"] == r.platform_class);
  }
  const auto t = run("llama-3.1-8b --engine vllm --gpu rtx-pro-6000 --users 50");
  CHECK(has(t.out, "a shared service of 50 users: planned on a workstation or server"));
  // An RTX 4090 (3 slots wide, consumer) fits no workstation and no server: a desktop still.
  CHECK(run_json("llama-3.1-8b --engine vllm --gpu rtx-4090 --users 50")["system"]["platform"] ==
        "desktop");
  const auto bad = run("llama-3.1-8b --engine vllm --gpu rtx-4090 --users 50 --class server");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(has(bad.err, "--class: no catalog platform of class server takes rtx-4090"));
}

// #21: --price takes a platform id as well as a GPU's: the machine's BOM line and the plan's cost
// read it (a DGX H100's catalog price is a reported $234,500, the buyer's quote replaces it).
TEST_CASE("A price given on the command line prices a machine as well as a GPU", "[cli][machine]") {
  const std::string args = "llama-3.1-70b --gpu h100-sxm --gpus 8";
  CHECK(run_json(args)["cost"]["hardware_usd"].get<double>() < 300000);
  const auto j = run_json(args + " --price nvidia-dgx-h100=300000");
  REQUIRE(j["system"]["platform_id"] == "nvidia-dgx-h100");
  // The platform line plus the priced drives the DGX does not ship: at least $300,000.
  CHECK(j["cost"]["hardware_usd"].get<double>() >= 300000);
  CHECK(j["cost"]["hardware_usd"] == j["system"]["bom_total_usd"]);
  const auto bom = run(args + " --price nvidia-dgx-h100=300000 -f bom-csv");
  REQUIRE(bom.code == 0);
  CHECK(has(bom.out, "platform,nvidia-dgx-h100,"));
  CHECK(has(bom.out, ",1,300000.00,user: given with --price,"));
  const auto bad = run(args + " --price dgx-h1000=5");
  CHECK(bad.code == 2);
  CHECK(has(bad.err, "--price: unknown GPU or platform 'dgx-h1000'"));
}

// #21: the recommendation is never dearer than a deployment the same tool plans on a datacenter
// GPU a buyer would price against, at the usable speed; those alternatives are priced (their
// modules at their reported price where the machine has none), and a deployment of several
// machines whose replicas each fit one machine needs no fabric, so it ranks by its price.
TEST_CASE("The recommendation is no dearer than the priced datacenter alternatives",
          "[cli][machine]") {
  for (const std::string w :
       {"llama-3.3-70b --quant fp8 --engine vllm --users 300 --target-tps 20",
        "deepseek-v3.1 --engine sglang --users 500 --target-tps 25 "
        "--ttft-ms 2000",
        "qwen3-235b-a22b --engine sglang --users 100 --target-tps 20",
        "gpt-oss-120b --engine vllm --users 100", "qwen3-32b --engine vllm --users 200"}) {
    INFO(w);
    const json rec = run_json(w);
    REQUIRE(rec["cost"]["hardware_usd"].is_number());
    const double price = rec["cost"]["hardware_usd"];
    CHECK(rec["throughput"]["per_user_tokens_per_s"].get<double>() >= 10);
    for (const char* g : {"h100-sxm", "h200", "b200", "mi300x", "rtx-pro-6000-server"}) {
      INFO(g);
      const json alt = run_json(w + " --gpu " + g);
      REQUIRE(alt["cost"]["hardware_usd"].is_number());
      if (alt["throughput"]["per_user_tokens_per_s"].get<double>() >= 10)
        CHECK(price <= alt["cost"]["hardware_usd"].get<double>());
    }
  }
  // DeepSeek-V3.1 for 500 users: one DGX B300 of 8 (TP 8: $392,000 of modules at $49,000 + the
  // host) before one DGX B200 at $515,000; 8 MI350X would cost less, but only a generic OAM row
  // takes them (no vendor machine in the catalog), and a machine no one sells by that name is not
  // recommended before one that is. On H200 two HGX servers, each a TP 8 replica: the two
  // machines share nothing but requests, and no fabric is bought.
  const std::string ds_args =
      "deepseek-v3.1 --engine sglang --users 500 --target-tps 25 --ttft-ms 2000";
  const json ds = run_json(ds_args);
  CHECK(ds["gpu"]["id"] == "b300");
  CHECK(ds["gpu"]["count"] == 8);
  CHECK(ds["system"]["nodes"] == 1);
  CHECK(ds["throughput"]["tensor_parallel"] == 8);
  const json h = run_json(ds_args + " --gpu h200");
  CHECK(h["system"]["nodes"] == 2);
  CHECK(h["throughput"]["tensor_parallel"] == 8);
  CHECK(h["throughput"]["replicas"] == 2);
  CHECK(h["cost"]["hardware_usd"].get<double>() > ds["cost"]["hardware_usd"].get<double>());
}

// #21: --optimize states what the recommendation minimises among the systems at the usable speed.
TEST_CASE(
    "The objective (--optimize) ranks options by price, GPU count, power or price with energy",
    "[cli][machine]") {
  const std::string w = "deepseek-v3.1 --engine sglang --users 500 --target-tps 25";
  for (const char* goal : {"price", "gpus", "power", "tco"}) {
    INFO(goal);
    const json j = run_json(w + " --optimize " + goal);
    const json& opts = j["gpu_options"];
    REQUIRE(opts.size() >= 3);
    CHECK(j["gpu"]["id"] == opts[0]["id"]);  // the recommendation is the first option
    const std::string key = std::string(goal) == "price"   ? "total_price_usd"
                            : std::string(goal) == "gpus"  ? "count"
                            : std::string(goal) == "power" ? "max_wall_w"
                                                           : "tco_usd";
    // Among the options a vendor's machine carries (a generic class row's come after them).
    for (const auto& o : opts)
      if (!o["below_usable_speed"].get<bool>() && o[key].is_number() &&
          o["platform_id"].get<std::string>().rfind("generic-", 0) != 0)
        CHECK(opts[0][key].get<double>() <= o[key].get<double>());
    // tco = the system's price + its maximum draw over --years (3) at --duty-cycle (0.5) and
    // --kwh-price ($0.15): kW x 0.5 x 8,760 h x 3 x 0.15.
    const double tco = opts[0]["total_price_usd"].get<double>() +
                       opts[0]["max_wall_w"].get<double>() / 1000 * 0.5 * 8760 * 3 * 0.15;
    CHECK(opts[0]["tco_usd"].get<double>() == Approx(tco).epsilon(1e-9));
  }
  const auto bad = run("deepseek-v3.1 --optimize fastest");
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(has(bad.err, "--optimize: expected price, gpus, power or tco, got 'fastest'"));
}

// #21: the answer without noise: a small box lists the ordinary outlet of its mains only, a rack
// the circuits of its mains (230 V single-phase and 400 V 3-phase by default, 120/208 V with
// --mains 120); the rule-of-thumb warning only where the rule falls well short.
TEST_CASE("Circuits for the plan's mains, and the rule of thumb only where it falls short",
          "[cli][machine]") {
  auto circuits = [](const std::string& out) {
    std::vector<std::string> v;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("  circuit ", 0) == 0) v.push_back(line);
    return v;
  };
  // 2 x R9700 in an AM5 desktop, 936 W at most: one 230 V 10 A outlet carries it.
  const auto small = run("70b --quant q4 --ctx 8192 --width 0");
  REQUIRE(small.code == 0);
  CHECK(circuits(small.out) ==
        std::vector<std::string>{
            "  circuit         1 × 230 V 10 A (1,840 W continuous each), an ordinary outlet"});
  CHECK(circuits(run("70b --quant q4 --ctx 8192 --width 0 --mains 120").out) ==
        std::vector<std::string>{
            "  circuit         1 × 120 V 15 A (1,440 W continuous each), an ordinary outlet"});
  // Four DGX H100: 230 V and 400 V 3-phase circuits, no 120 V or 208 V ones.
  const auto rack = circuits(
      run("deepseek-r1 --engine vllm --users 200 --target-tps 20 --gpu h100-sxm --width 0").out);
  REQUIRE(rack.size() >= 2);
  for (const auto& c : rack) {
    INFO(c);
    CHECK(
        (c.find(" 230 V ") != std::string::npos || c.find(" 400 V 3-phase ") != std::string::npos));
  }
  // 51.8 GiB against 1.2 x 39.6 = 47.5 GiB: within a fifth, no warning; an 8B at 131k context
  // needs 25.3 GiB where the rule says 5.5: warned.
  CHECK(small.out.find("the rule of thumb 1.2 x weights") == std::string::npos);
  CHECK(run("llama-3.1-8b --ctx 131072")
            .out.find("the rule of thumb 1.2 x weights (5.49 GiB) would be 19.77 GiB short") !=
        std::string::npos);
}

// #21: a shared service is offered no consumer card (no ECC memory; NVIDIA's GeForce licence bars
// datacenter deployment): 300 users of Llama-3.3-70B FP8 under vLLM had been 24 GeForce RTX 5090
// in six workstations. --class (or --gpu) chooses them anyway.
TEST_CASE("A shared service is offered no consumer card unless asked", "[cli][machine]") {
  std::set<std::string> consumer;
  const json gpus = run_json("gpus");
  for (const auto& g : gpus["gpus"])
    if (g["class"] == "consumer") consumer.insert(g["id"].get<std::string>());
  REQUIRE(consumer.count("rtx-5090") == 1);
  const std::string w = "llama-3.3-70b --quant fp8 --engine vllm --users 300 --target-tps 20";
  const json j = run_json(w + " --top 80");
  CHECK(consumer.count(j["gpu"]["id"].get<std::string>()) == 0);
  for (const auto& o : j["gpu_options"]) CHECK(consumer.count(o["id"].get<std::string>()) == 0);
  bool any = false;
  const json asked = run_json(w + " --top 80 --class workstation");
  for (const auto& o : asked["gpu_options"])
    any = any || consumer.count(o["id"].get<std::string>()) == 1;
  CHECK(any);
}

// #27: buy against rent. 4 x H100 SXM serve Llama-3.3-70B FP8 for 200 users at 20 tok/s in one
// $127,500 machine drawing $3,556 of energy a year; the same 4 GPUs rented around the clock at
// the catalog's median on-demand $3.945 per GPU-hour cost 4 x 3.945 x 8760 / 12 = $11,519 a
// month, so owning costs less after 127,500 / (11,519.4 - 296.3) = 11.36 months.
TEST_CASE("Buy against rent: the same GPUs rented, and the months owning takes to pay",
          "[cli][cost]") {
  const std::string base =
      "llama-3.3-70b --quant fp8 --engine vllm --users 200 --target-tps 20 --gpu h100-sxm";
  const auto r = run(base + " -f json");
  REQUIRE(r.code == 0);
  const json c = json::parse(r.out)["cost"];
  CHECK(c["rent_gpus"] == 4);
  CHECK(c["rent_usd_per_gpu_hour"] == Approx(3.945));
  CHECK(c["rent_usd_per_month"] == Approx(11519));
  CHECK(c["rent_breakeven_months"].get<double>() ==
        Approx(c["hardware_usd"].get<double>() /
               (4 * 3.945 * 8760 / 12 - c["energy_usd_per_year"].get<double>() / 12))
            .epsilon(0.001));
  CHECK(c["colo_usd_per_month"].is_null());
  // Your own rate, and colocation at $150 per kW of the machine's maximum draw.
  const auto o = run(base + " --rent-price 1 --colo-usd-per-kw-month 150 -f json");
  REQUIRE(o.code == 0);
  const json oj = json::parse(o.out);
  const json& oc = oj["cost"];
  CHECK(oc["rent_usd_per_month"] == Approx(2920));  // 4 x 1 x 730
  const double kw = oj["power"]["max_wall_watts"].get<double>() / 1000;
  CHECK(oc["colo_usd_per_month"] == Approx(150 * kw).margin(0.6));
  CHECK(oc["rent_breakeven_months"].get<double>() ==
        Approx(oc["hardware_usd"].get<double>() /
               (2920 - oc["energy_usd_per_year"].get<double>() / 12 - 150 * kw))
            .epsilon(0.01));
  const auto t = run(base + " --colo-usd-per-kw-month 150");
  REQUIRE(t.code == 0);
  CHECK(t.out.find("  rent instead    4 x h100-sxm at $3.94 per GPU-hour (the median on-demand "
                   "price of 12 providers") != std::string::npos);
  CHECK(t.out.find("  colocation      ") != std::string::npos);
  // A GPU no provider rents in the catalog: no rental line, null fields.
  const auto g = run("llama-3.1-8b --gpu rtx-4090 -f json");
  REQUIRE(g.code == 0);
  CHECK(json::parse(g.out)["cost"]["rent_usd_per_month"].is_null());
}
