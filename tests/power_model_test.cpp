#include "llmsize/machine/power_model.hpp"

#include <catch2/catch.hpp>
#include <cmath>

#include "llmsize/io/platform_catalog.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

const PlatformModel& platform(const std::string& id) {
  static const auto v = read_platforms_file(std::string(LLMSIZE_TEST_FIXTURES) + "/platforms.json");
  const auto* p = find_platform(v, id);
  if (!p) throw std::runtime_error("fixture platform missing: " + id);
  return *p;
}

const GpuSpec& gpu(const std::string& id) {
  return test::catalog().find_gpu(id)->spec;
}

}  // namespace

TEST_CASE("Maximum power of reference systems is within 15% of the vendor's", "[power_model]") {
  struct Case {
    const char* platform;
    const char* gpu;
    double power_limit;
    double expected_wall_w;  // the model, derived below
    double published_w;      // vendor maximum or measured peak
  };
  const Case cases[] = {
      // DGX H100 as shipped: 8 x 700 + 0.44 x 5600 (baseboard) + 2 x 350 (CPUs) + 32 x 10 (RDIMMs)
      // + 10 x 25 (NVMe) + 10 x 25 (ConnectX-7) + 100 (board) = 9684 W DC / 0.94 = 10302.1 W;
      // NVIDIA: 10.2 kW (+1.0%).
      {"dgx-h100", "h100-sxm", 1.0, 9684 / 0.94, 10200},
      // DGX B200: 8 x 1000 + 3520 + 700 + 320 + 250 + 8 x 25 + 2 x 150 (BlueField-3) + 100 =
      // 13390 W DC / 0.94 = 14244.7 W; NVIDIA: 14.3 kW (-0.4%).
      {"dgx-b200", "b200", 1.0, 13390 / 0.94, 14300},
      // Not calibrated on: DGX A100 (8 x 400 W, 1 TB = 16 x 64 GB, 2 + 4 NVMe, 8 + 1 ConnectX-6):
      // 3200 x 1.44 + 2 x 225 + 16 x 10 + 6 x 25 + 9 x 25 + 100 = 5693 W DC / 0.94 = 6056.4 W;
      // NVIDIA: 6.5 kW (-6.8%).
      {"dgx-a100", "a100-80gb-sxm", 1.0, 5693 / 0.94, 6500},
      // Not calibrated on: Puget's 4 x RTX 3090 capped at 300 W, 1,717 W measured peak at the
      // wall. Model on the workstation: 4 x 300 + 350 + 8 x 10 (DIMMs of unknown size: the 64 GB
      // figure) + 2 x 8 (client M.2) + 0.03 x 350 (fans: the CPU's heat; the blower cards' fans
      // are in their board power) + 50 (board) = 1706.5 W DC / 0.92 = 1854.9 W (+8%: the model
      // is the rating, the benchmark a peak). It was 1801.5 W DC / 0.92 = 1958.2 W (+14%) with
      // enterprise drives at 25 W, fans at 3% of GPUs + CPU and a 75 W board.
      {"wrx90-workstation", "rtx-3090", 300.0 / 350.0, 1706.5 / 0.92, 1717},
  };
  for (const auto& c : cases) {
    CAPTURE(c.platform);
    MachineLoad l;
    const std::string id = c.platform;
    l.gpus = id[0] == 'w' ? 4 : 8;
    // NVMe as shipped: DGX H100/B200 2 OS + 8 U.2, DGX A100 2 + 4; the workstation 2.
    l.nvme_drives = id == "dgx-a100" ? 6 : id[0] == 'w' ? 2 : 10;
    if (id == "dgx-a100") l.dimms = 16;  // the 1 TB configuration
    l.power_limit = c.power_limit;
    const MaxPower m = max_system_power(platform(c.platform), gpu(c.gpu), l);
    CHECK(m.wall_w == Approx(c.expected_wall_w).epsilon(1e-9));
    CHECK(std::fabs(m.wall_w / c.published_w - 1) <= 0.15);
  }
}

TEST_CASE("Maximum power is a breakdown by part", "[power_model]") {
  MachineLoad l;
  l.gpus = 8;
  l.nvme_drives = 10;
  const MaxPower m = max_system_power(platform("dgx-h100"), gpu("h100-sxm"), l);
  CHECK(m.parts.gpus_w == 5600);
  CHECK(m.parts.baseboard_w == Approx(2464));
  CHECK(m.parts.cpus_w == 700);
  CHECK(m.parts.memory_w == 320);
  CHECK(m.parts.drives_w == 250);
  CHECK(m.parts.nics_w == 250);
  CHECK(m.parts.fans_w == 0);  // in the baseboard term on HGX
  CHECK(m.published_w == 10200);
  CHECK(m.dc_w == Approx(m.parts.total()));
  // A power cap scales the GPUs and the baseboard: 8 x 350 x 1.44 + 1620 = 5652 W DC.
  l.power_limit = 0.5;
  CHECK(max_system_power(platform("dgx-h100"), gpu("h100-sxm"), l).dc_w == Approx(5652));
  // Unified computers are rated whole: Apple's 295 W maximum.
  l = {};
  l.gpus = 1;
  CHECK(max_system_power(platform("mac-studio-m2-ultra"), gpu("m2-ultra"), l).wall_w == 295);
}

TEST_CASE("A workstation sold with three 300 W cards fits its supply at its own maximum",
          "[power_model]") {
  // Lenovo sells the ThinkStation P8 with three RTX 6000 Ada (300 W) and a 350 W Threadripper PRO
  // 7000 WX on one 1400 W supply. As the host sizing fills it for three cards (8 x 32 GiB RDIMMs,
  // an OS and a data M.2 drive): 900 + 350 + 8 x 6 (x8 RDIMMs below 64 GB) + 2 x 8 (client M.2)
  // + 0.03 x 350 (fans) + 50 (board) = 1374.5 W DC, within 1400 W. With 64 GB modules it is
  // 8 x 10: 1406.5 W, over: the module size counts.
  const PlatformModel* p8 = find_platform(builtin_platforms(), "lenovo-thinkstation-p8");
  REQUIRE(p8);
  MachineLoad l;
  l.gpus = 3;
  l.dimms = 8;
  l.dimm_gib = 32;
  l.nvme_drives = 2;
  const MaxPower m = max_system_power(*p8, gpu("rtx-6000-ada"), l);
  CHECK(m.parts.memory_w == 48);
  CHECK(m.parts.drives_w == 16);
  CHECK(m.parts.fans_w == Approx(10.5));
  CHECK(m.parts.board_w == 50);
  CHECK(m.dc_w == Approx(1374.5));
  CHECK(plan_psus(*p8, m.wall_w).sufficient);
  l.dimm_gib = 64;
  CHECK(max_system_power(*p8, gpu("rtx-6000-ada"), l).dc_w == Approx(1406.5));
  // Servers keep enterprise drives at 25 W and their fans on the GPUs' heat too.
  MachineLoad s;
  s.gpus = 8;
  s.nvme_drives = 4;
  const MaxPower e = max_system_power(platform("epyc-8gpu-pcie"), gpu("l40s"), s);
  CHECK(e.parts.drives_w == 100);
  CHECK(e.parts.fans_w == Approx(0.10 * (8 * 350 + 2 * 280)));
}

TEST_CASE("PSUs follow the platform's bays and redundancy", "[power_model]") {
  // DGX H100: 6 x 3300 W, 4+2, 13.2 kW without the spares for a 9.7 kW DC maximum.
  const auto dgx = plan_psus(platform("dgx-h100"), 9684 / 0.94);
  CHECK(dgx.count == 6);
  CHECK(dgx.watts == 3300);
  CHECK(to_string(dgx.redundancy) == "4+2");
  CHECK(dgx.capacity_w == 13200);
  CHECK(dgx.sufficient);
  CHECK(to_string(plan_psus(platform("dgx-b200"), 14300).redundancy) == "5+1");
  // A desktop's ATX supply is sized to the load: 1 x RTX 4090 = 450 + 170 + 4 x 5 + 2 x 8
  // + 0.02 x 620 + 50 = 718.4 W DC; / 0.8 = 898 W -> the 1000 W size.
  const auto& desk = platform("am5-desktop");
  const double wall = max_system_wall_w(desk, gpu("rtx-4090"), 1);
  CHECK(wall * desk.psu.efficiency == Approx(718.4));
  const auto atx = plan_psus(desk, wall);
  CHECK(atx.count == 1);
  CHECK(atx.watts == 1000);
  CHECK(to_string(atx.redundancy) == "none");
  CHECK(atx.sufficient);
}

TEST_CASE("Circuits at 120/208/230/400 V with A/B feeds for redundant servers", "[power_model]") {
  // DGX H100 at 10302 W, x 2 for the A and B feeds: 208 V 30 A single phase carries
  // 0.8 x 30 x 208 = 4992 W -> 3 x 2 = 6; 230 V 32 A 5888 W -> 2 x 2 = 4; 208 V 3-phase 30 A
  // 0.8 x 30 x 208 x sqrt(3) = 8646 W -> 2 x 2 = 4; 400 V 3-phase 32 A 17734 W -> 1 x 2 = 2.
  const auto srv = plan_circuits(9684 / 0.94, PlatformClass::server, true);
  REQUIRE(srv.size() == 4);
  CHECK(srv[0].volts == 208);
  CHECK(srv[0].circuits == 6);
  CHECK(srv[2].phases == 3);
  CHECK(srv[2].continuous_w == Approx(0.8 * 30 * 208 * std::sqrt(3.0)));
  CHECK(srv[2].circuits == 4);
  CHECK(srv[3].volts == 400);
  CHECK(srv[3].circuits == 2);
  CHECK(srv[1].circuits == 4);
  // A desktop at 781 W: one ordinary 120 V 15 A outlet (1440 W continuous).
  const auto desk = plan_circuits(718.4 / 0.92, PlatformClass::desktop, false);
  CHECK(desk[0].volts == 120);
  CHECK(desk[0].outlet);
  CHECK(desk[0].continuous_w == Approx(1440));
  CHECK(desk[0].circuits == 1);
}

TEST_CASE("Racks by space and power, two 3-phase PDUs per rack", "[power_model]") {
  // 4 DGX H100 of 10.3 kW in 40 kW racks: floor(40000 / 10302) = 3 per rack (space allows
  // 38 / 8 = 4), 2 racks, 30.9 kW each; 30.9 / 17.73 kW -> 2 PDUs per feed -> 8.
  const auto r = plan_racks(platform("dgx-h100"), 4, 9684 / 0.94);
  CHECK(r.nodes_per_rack == 3);
  CHECK(r.racks == 2);
  CHECK(r.rack_units == 32);
  CHECK(r.kw_per_rack == Approx(3 * 9684 / 0.94 / 1000));
  CHECK(r.pdus == 8);
  CHECK(r.pdu_volts == 400);
  CHECK(r.pdu_amps == 32);
  // On North America's 120 V mains the 3-phase service is 208 V: 60 A PDUs, 0.8 x 208 x 60 x
  // sqrt(3) = 17.29 kW continuous each; 30.9 kW -> 2 per feed -> 8 as well.
  const auto us = plan_racks(platform("dgx-h100"), 4, 9684 / 0.94, 40, 120);
  CHECK(us.pdu_volts == 208);
  CHECK(us.pdu_amps == 60);
  CHECK(us.pdus == 8);
  // Not rack-mounted: no rack plan.
  CHECK(plan_racks(platform("am5-desktop"), 1, 780).racks == 0);
  // A rack server of unknown height: by power alone, 3 of 10.3 kW per 40 kW rack.
  PlatformModel tall = platform("dgx-h100");
  tall.rack_units = 0;
  const auto u = plan_racks(tall, 4, 9684 / 0.94);
  CHECK(u.nodes_per_rack == 3);
  CHECK(u.racks == 2);
  CHECK(u.rack_units == 0);
}

TEST_CASE("Typical draw follows the decode batch and the power cap", "[power_model]") {
  GpuSpec g = gpu("rtx-4090");
  const auto& desk = platform("am5-desktop");
  MachineLoad l;
  l.gpus = 1;
  PowerWorkload w;
  w.decode_batch = 1;
  w.prefill_share = 0;
  w.busy_share = 1;
  // Single-stream decode: 246 of 450 W (the calibration row P05).
  auto t = typical_power(desk, g, l, w);
  CHECK(t.gpu_decode_fraction == Approx(246.0 / 450));
  CHECK(t.gpus_busy_w == Approx(246));
  // A GPU of 100 TFLOPS and 1000 GB/s: ridge 100 FLOP/byte -> batch 100 for 2-byte weights; at
  // batch 50.5 the fraction is halfway: 0.5467 + 0.4533 x 49.5 / 99 = 0.7733.
  g.bf16_tflops_dense = 100;
  g.bandwidth_gb_per_s = 1000;
  w.decode_batch = 50;
  t = typical_power(desk, g, l, w);
  CHECK(t.gpu_decode_fraction ==
        Approx(kDecodeSingleStreamFraction + (1 - kDecodeSingleStreamFraction) * 49.0 / 99));
  w.decode_batch = 400;
  CHECK(typical_power(desk, g, l, w).gpu_decode_fraction == Approx(1));
  // MoE with 8 of 128 experts routed: batch 400 acts as 1 + 399 x 8 / 128 = 25.94 on the experts:
  // 0.5467 + 0.4533 x 24.94 / 99.
  w.routed_share = 8.0 / 128;
  CHECK(typical_power(desk, g, l, w).gpu_decode_fraction ==
        Approx(kDecodeSingleStreamFraction +
               (1 - kDecodeSingleStreamFraction) * (399.0 * 8 / 128) / 99));
  w.routed_share = 1;
  // A 70% cap bounds decode and prefill alike.
  w.power_limit = 0.7;
  w.prefill_share = 0.5;
  t = typical_power(desk, g, l, w);
  CHECK(t.gpu_decode_fraction == Approx(0.7));
  CHECK(t.gpus_busy_w == Approx(0.7 * 450));
  // Idle half the time: typical is the mean of busy and idle.
  w.busy_share = 0.5;
  t = typical_power(desk, g, l, w);
  CHECK(t.typical_wall_w == Approx((t.busy_wall_w + t.idle_wall_w) / 2));
  CHECK(t.typical_wall_w < max_system_power(desk, g, l).wall_w);
}

TEST_CASE("Energy and cost per token come from the typical draw", "[power_model]") {
  // 1000 W typical all year = 8760 kWh, $1314 at $0.15; 100 tok/s half the time = 1.5768e9
  // tokens: $0.8333 and 5555.6 Wh per million tokens.
  const auto e = energy_cost(1000, 0.5, 100, 0.15);
  CHECK(e.kwh_per_year == Approx(8760));
  CHECK(e.usd_per_year == Approx(1314));
  CHECK(e.tokens_per_year == Approx(1.5768e9));
  CHECK(e.usd_energy_per_mtok == Approx(1314 / 1576.8));
  CHECK(e.wh_per_mtok == Approx(8.76e6 / 1576.8));
  CHECK(energy_cost(1000, 0.5, 0, 0.15).usd_energy_per_mtok == 0);
}

TEST_CASE("Rack-scale NVL72: the model within 1% of NVIDIA's rack figures", "[power_model]") {
  struct Case {
    const char* platform;
    const char* gpu;
    double expected_wall_w;  // the model, derived below
    double published_w;
  };
  const Case cases[] = {
      // GB200 NVL72: 72 x 1200 x (1 + 0.11) (GPUs and the switch trays, boards and pumps) +
      // 36 x 250 (Grace) + 2 x 25 (no drives published: the default two) + 72 x 25 (ConnectX-7)
      // + 36 x 150 (BlueField-3) + 100 (board) = 112,254 W DC / 0.94 = 119,419 W; NVIDIA: 120 kW
      // at full load (-0.5%).
      {"nvidia-gb200-nvl72", "gb200", 112254 / 0.94, 120000},
      // GB300 NVL72: 72 x 1400 x 1.11 + 36 x 500 + 90 x 25 (1 M.2 + 4 E1.S per tray) + 72 x 25
      // (ConnectX-8) + 100 = 134,038 W DC / 0.94 = 142,594 W; NVIDIA: up to 142 kW (+0.4%).
      {"nvidia-gb300-nvl72", "gb300", 134038 / 0.94, 142000},
  };
  for (const auto& c : cases) {
    CAPTURE(c.platform);
    const PlatformModel* p = find_platform(builtin_platforms(), c.platform);
    REQUIRE(p != nullptr);
    const double w = max_system_wall_w(*p, gpu(c.gpu), 72);
    CHECK(w == Approx(c.expected_wall_w).epsilon(1e-9));
    CHECK(std::fabs(w / c.published_w - 1) <= 0.01);
  }
}

TEST_CASE("Built-in platforms with a published maximum: the model within 15%", "[power_model]") {
  // Rows calibrated on: DGX H100 and DGX B200 (the baseboard fraction). Each row at its GPU
  // count with the GPUs it ships, its shipped NICs, 2 NVMe drives and its DIMM slots full.
  int checked = 0;
  for (const auto& p : builtin_platforms()) {
    if (p.max_power_w <= 0 || p.platform_class == PlatformClass::unified || p.gpu_ids.empty())
      continue;
    const auto* g = test::catalog().find_gpu(p.gpu_ids.front());
    if (!g) continue;
    CAPTURE(p.id);
    const double w = max_system_wall_w(p, g->spec, p.max_gpus());
    CHECK(std::fabs(w / p.max_power_w - 1) <= 0.15);
    ++checked;
  }
  CHECK(checked >= 2);
  // The Puget 4 x RTX 3090 row (1,717 W measured) lacks its GPU bays' widths and lanes, so it is
  // left out of the built-in catalog; the fixture's workstation checks the same measurement.
  CHECK(find_platform(builtin_platforms(), "puget-4x-rtx3090-workstation") == nullptr);
  // Unified computers are their published maximum or PSU rating.
  const auto* mac = find_platform(builtin_platforms(), "apple-mac-studio-m3-ultra");
  REQUIRE(mac);
  // The M3 Ultra Mac Studio: Apple's published 270 W maximum at the wall (its 480 W supply is the
  // ceiling only where no maximum is published).
  CHECK(max_system_wall_w(*mac, gpu("m3-ultra"), 1) == 270);
  const auto* fw = find_platform(builtin_platforms(), "framework-desktop-ryzen-ai-max-395");
  REQUIRE(fw);
  CHECK(max_system_wall_w(*fw, gpu("ryzen-ai-max-395"), 1) == 400);  // its 400 W PSU
}

TEST_CASE("Wall circuits carry whole power cords: a machine's cord is not split over two",
          "[power_model]") {
  // A tower at 3387 W on two carrying PSUs: 1693.5 W per cord. 120 V 15 A (1440 W continuous)
  // carries no cord: no option, where the total alone would say ceil(3387 / 1440) = 3 outlets.
  // 120 V 20 A (1920 W): one cord each, 2 circuits; 230 V 16 A (2944 W): one each, 2; 208 V 30 A
  // (4992 W): two cords, 1.
  const auto t = plan_circuits(3387, 1, 2, PlatformClass::workstation, false);
  REQUIRE(t.size() == 5);
  CHECK(t[0].volts == 120);
  CHECK(t[0].breaker_a == 15);
  CHECK(t[0].circuits == 0);
  CHECK(t[1].circuits == 2);
  CHECK(t[2].circuits == 2);  // 230 V 10 A: 1840 W, one cord each
  CHECK(t[3].circuits == 2);
  CHECK(t[4].circuits == 1);
  // Two ATX desktops of 1296 W, one cord each: 120 V 15 A carries one (2 circuits, as the total
  // 2592 / 1440 gives too); 230 V 16 A carries both (2592 <= 2944): 1.
  const auto d = plan_circuits(1296, 2, 1, PlatformClass::desktop, false);
  CHECK(d[0].circuits == 2);
  CHECK(d[3].circuits == 1);
  // Three desktops of 1500 W: the total fits two 230 V 16 A circuits (4500 / 2944 -> 2) but a
  // circuit carries only one 1500 W cord (2 x 1500 > 2944): 3.
  CHECK(plan_circuits(1500, 3, 1, PlatformClass::desktop, false)[3].circuits == 3);
  // Cords not published: the total alone, as before.
  const auto u = plan_circuits(3387, 1, 0, PlatformClass::workstation, false);
  CHECK(u[0].circuits == 3);
}
