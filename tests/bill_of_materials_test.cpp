#include "llmsize/machine/bom.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/units.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

const PlatformModel& platform(const std::string& id) {
  static const auto v = read_platforms_file(std::string(LLMSIZE_TEST_FIXTURES) + "/platforms.json");
  return *find_platform(v, id);
}

const BomLine* line(const std::vector<BomLine>& v, BomComponent c) {
  for (const auto& l : v)
    if (l.component == c) return &l;
  return nullptr;
}

std::string spec(const BomLine& l, const std::string& key) {
  for (const auto& [k, v] : l.spec)
    if (k == key) return v;
  return "";
}

BomInput input(const std::string& pid, const std::string& gid, uint32_t per_node, uint32_t nodes,
               uint64_t weights_bytes) {
  BomInput in;
  in.platform = &platform(pid);
  in.gpu = test::catalog().find_gpu(gid)->spec;
  in.gpus_per_node = per_node;
  in.nodes = nodes;
  HostNeeds n;
  n.gpus = per_node;
  n.nodes = nodes;
  n.weights_bytes = weights_bytes;
  in.host = size_host(*in.platform, n);
  const double wall = max_system_power(*in.platform, in.gpu, in.host.load).wall_w;
  in.psus = plan_psus(*in.platform, wall);
  in.racks = plan_racks(*in.platform, nodes, wall);
  return in;
}

}  // namespace

TEST_CASE("An HGX plan lists the machine, its GPUs, host parts, NICs, PSUs and PDUs", "[bom]") {
  // Two DGX H100 for 16 GPUs: NICs for the fabric, PDUs for the rack.
  const auto v = bill_of_materials(input("dgx-h100", "h100-sxm", 8, 2, 405 * kGB));
  const BomLine* pl = line(v, BomComponent::platform);
  REQUIRE(pl);
  CHECK(pl->part == "dgx-h100");
  CHECK(pl->qty == 2);
  CHECK(pl->reason == BomReason::chosen_platform);
  CHECK(spec(*pl, "class") == "server");
  CHECK(spec(*pl, "rack_units") == "8");
  const BomLine* g = line(v, BomComponent::gpu);
  REQUIRE(g);
  CHECK(g->qty == 16);
  CHECK(g->reason == BomReason::model_memory);
  const BomLine* cpu = line(v, BomComponent::cpu);
  REQUIRE(cpu);
  CHECK(cpu->qty == 4);  // 2 sockets x 2 nodes
  CHECK(cpu->included);
  CHECK(spec(*cpu, "cores") == "112");
  const BomLine* ram = line(v, BomComponent::memory);
  REQUIRE(ram);
  CHECK(ram->qty == 64);  // 32 x 64 GiB per node, as shipped
  CHECK(spec(*ram, "total_gib") == "2048");
  CHECK(spec(*ram, "rule_gib") == "754");  // 810 GB = 754.4 GiB
  CHECK(spec(*ram, "why") == "ram_platform_class");
  CHECK(ram->unit_price_usd == Approx(450));  // a 64 GB DDR5 RDIMM, Q4 2025 (Counterpoint)
  const BomLine* nic = line(v, BomComponent::nic);
  REQUIRE(nic);
  CHECK(nic->qty == 16);
  CHECK(nic->reason == BomReason::gpu_fabric);
  CHECK(nic->included);  // a DGX H100 ships its 8 ConnectX-7
  const BomLine* psu = line(v, BomComponent::psu);
  REQUIRE(psu);
  CHECK(psu->qty == 12);
  CHECK(spec(*psu, "redundancy") == "4+2");
  CHECK(spec(*psu, "watts") == "3300");
  const BomLine* pdu = line(v, BomComponent::pdu);
  REQUIRE(pdu);
  // 2 x 10.3 kW in one 40 kW rack: 20.6 kW > 17.7 kW per PDU -> 2 per feed, 4.
  CHECK(pdu->qty == 4);
  // Every quantity is whole and positive.
  for (const auto& l : v) CHECK(l.qty > 0);
}

TEST_CASE("A desktop BOM prices its own parts, a Mac is one line plus its GPU", "[bom]") {
  const auto v = bill_of_materials(input("am5-desktop", "rtx-3090", 2, 1, 40 * kGiB));
  const BomLine* g = line(v, BomComponent::gpu);
  REQUIRE(g);
  CHECK(g->qty == 2);
  CHECK_FALSE(g->included);
  CHECK(g->unit_price_usd == test::catalog().find_gpu("rtx-3090")->spec.price_usd);
  const BomLine* ram = line(v, BomComponent::memory);
  REQUIRE(ram);
  CHECK(ram->part == "ddr5-udimm-48gib");
  CHECK(ram->qty == 2);
  CHECK_FALSE(ram->included);
  CHECK(line(v, BomComponent::pdu) == nullptr);
  CHECK(line(v, BomComponent::nic) == nullptr);
  // The platform publishes no price: the desktop class's assumed $1,500, said to be assumed.
  const BomLine* pl = line(v, BomComponent::platform);
  REQUIRE(pl);
  CHECK(pl->unit_price_usd == 1500);
  CHECK(pl->price_source ==
        "assumed desktop price, 2025 (board, CPU, chassis and PSUs; not a quote)");
  // Total: the platform's $1,500 + 2 GPUs + 2 x 48 GiB at the June 2026 desktop DDR5 street
  // price ($679.99 per 64 GB: $10.62 a GiB, $510 a 48 GiB DIMM) + 1 TB OS at $80 + data drive(s)
  // at $80/TB.
  CHECK(ram->unit_price_usd == Approx(509.9925));
  double expected = 1500 + 2 * g->unit_price_usd + 2 * 509.9925 + 80;
  const BomLine* data = line(v, BomComponent::data_drive);
  REQUIRE(data);
  expected += data->qty * data->unit_price_usd;
  CHECK(bom_total_usd(v) == Approx(expected));

  const auto mac = bill_of_materials(input("mac-studio-m2-ultra", "m2-ultra", 1, 1, 100 * kGB));
  REQUIRE(mac.size() == 2);
  CHECK(mac[0].component == BomComponent::platform);
  CHECK(mac[1].component == BomComponent::gpu);
  CHECK(mac[1].included);
}

TEST_CASE("The BOM's cost: GPUs priced apart, the rest, and whether it is complete", "[bom]") {
  auto l = [](BomComponent c, uint32_t qty, double usd, bool included) {
    BomLine b{c, "x", {}, qty, usd, "", BomReason::chosen_platform, included};
    return b;
  };
  struct Case {
    std::vector<BomLine> lines;
    double gpus, rest;
    bool priced, complete;
  };
  const Case cases[] = {
      // A desktop: 2 x $1,499 GPUs; 2 x $192 DIMMs + $80 + $80 drives = $544; the unpriced board.
      {{l(BomComponent::platform, 1, 0, false), l(BomComponent::gpu, 2, 1499, false),
        l(BomComponent::memory, 2, 192, false), l(BomComponent::os_drive, 1, 80, false),
        l(BomComponent::data_drive, 1, 80, false)},
       2998,
       544,
       true,
       false},
      // A unified computer priced whole: the $3,999 platform includes its GPU.
      {{l(BomComponent::platform, 1, 3999, false), l(BomComponent::gpu, 1, 3999, true)},
       0,
       3999,
       true,
       true},
      // Three units: 3 x $1,999.
      {{l(BomComponent::platform, 3, 1999, false), l(BomComponent::gpu, 3, 0, true)},
       0,
       5997,
       true,
       true},
      // A DGX without a price: its modules are in it, nothing priced.
      {{l(BomComponent::platform, 1, 0, false), l(BomComponent::gpu, 8, 0, true),
        l(BomComponent::data_drive, 2, 307.2, false)},
       0,
       614.4,
       false,
       false},
  };
  for (const auto& c : cases) {
    const BomCost b = bom_cost(c.lines);
    CHECK(b.gpus_usd == Approx(c.gpus));
    CHECK(b.rest_usd == Approx(c.rest));
    CHECK(b.gpus_priced == c.priced);
    CHECK(b.complete == c.complete);
    CHECK(b.total_usd() == Approx(bom_total_usd(c.lines)));
  }
}

TEST_CASE("A prices-only BOM has the lines' quantities and prices, without their text", "[bom]") {
  // The cost model reads BomDetail::prices (a sweep never makes the text): line by line it must
  // be the full BOM less part, spec and price source, so the sums cannot differ.
  const BomInput cases[] = {input("dgx-h100", "h100-sxm", 8, 2, 405 * kGB),
                            input("am5-desktop", "rtx-3090", 2, 1, 40 * kGiB)};
  for (const BomInput& in : cases) {
    const auto full = bill_of_materials(in);
    const auto prices = bill_of_materials(in, BomDetail::prices);
    REQUIRE(full.size() == prices.size());
    for (size_t i = 0; i < full.size(); ++i) {
      CHECK(prices[i].component == full[i].component);
      CHECK(prices[i].qty == full[i].qty);
      CHECK(prices[i].unit_price_usd == full[i].unit_price_usd);
      CHECK(prices[i].included == full[i].included);
      CHECK(prices[i].reason == full[i].reason);
      CHECK(prices[i].part.empty());
      CHECK(prices[i].spec.empty());
      CHECK(prices[i].price_source.empty());
    }
    CHECK(bom_total_usd(prices) == bom_total_usd(full));
    CHECK(bom_cost(prices).total_usd() == bom_cost(full).total_usd());
    CHECK(bom_cost(prices).complete == bom_cost(full).complete);
  }
}

TEST_CASE("A unified computer larger than the row's priced configuration stays unpriced", "[bom]") {
  // The fixture's Mac Studio M2 Ultra priced as a 96 GB configuration at $3,999: the catalog's
  // m2-ultra is the 192 GB chip, which that price does not buy.
  PlatformModel p = platform("mac-studio-m2-ultra");
  p.price_usd = 3999;
  p.price_source = "a 96 GB configuration's list price";
  p.ram_shipped_gib = 96;
  BomInput in = input("mac-studio-m2-ultra", "m2-ultra", 1, 1, 100 * kGB);
  in.platform = &p;
  const auto v = bill_of_materials(in);
  const BomLine* pl = line(v, BomComponent::platform);
  REQUIRE(pl);
  CHECK(pl->unit_price_usd == 0);
  CHECK(pl->price_source.find("not in the catalog for 192 GB") == 0);
  CHECK(pl->price_source.find("96 GB configuration") != std::string::npos);
  CHECK_FALSE(bom_cost(v).complete);
  // Priced as the 192 GB configuration it holds, the price stands.
  p.ram_shipped_gib = 192;
  const auto w = bill_of_materials(in);
  const BomLine* whole = line(w, BomComponent::platform);
  REQUIRE(whole);
  CHECK(whole->unit_price_usd == 3999);
}

TEST_CASE("Machines that cannot all be cabled to each other get a switch line", "[bom]") {
  // Two DGX H100: 8 fabric NICs each, 16 ports of 400 Gb/s on the switch (or fabric) between
  // them; unpriced, so the total is a floor.
  const auto v = bill_of_materials(input("dgx-h100", "h100-sxm", 8, 2, 405 * kGB));
  const BomLine* sw = line(v, BomComponent::network_switch);
  REQUIRE(sw);
  CHECK(std::string(to_string(sw->component)) == "switch");
  CHECK(sw->qty == 1);
  CHECK(spec(*sw, "ports") == "16");
  CHECK(spec(*sw, "gbit_per_s") == "400");
  CHECK(sw->reason == BomReason::gpu_fabric);
  CHECK(sw->unit_price_usd == 0);
  CHECK_FALSE(sw->included);
  // One machine: no switch.
  const auto one = bill_of_materials(input("dgx-h100", "h100-sxm", 8, 1, 405 * kGB));
  CHECK(line(one, BomComponent::network_switch) == nullptr);
}

TEST_CASE("A system's spare shipped 400 Gb/s NICs serve storage and the front end", "[bom]") {
  // The built-in DGX H100 ships 10 x 400 Gb/s ConnectX-7 (MLPerf's configuration): across two
  // nodes 8 go to the GPU fabric, and the 2 left cover the storage/front-end NIC the host sizing
  // adds, so it is not bought again (it was an unpriced 200 Gb/s line).
  BomInput in = input("dgx-h100", "h100-sxm", 8, 2, 405 * kGB);
  in.platform = find_platform(builtin_platforms(), "nvidia-dgx-h100");
  REQUIRE(in.platform);
  REQUIRE(in.platform->nics_400g_shipped == 10);
  const auto v = bill_of_materials(in);
  int storage = 0;
  for (const auto& l : v)
    if (l.component == BomComponent::nic && l.reason == BomReason::storage_frontend) {
      ++storage;
      CHECK(l.included);
    }
  CHECK(storage == 1);
}

TEST_CASE("PCIe servers in a pipeline buy one stage link per machine, and a switch beyond two",
          "[bom]") {
  // Three fixture EPYC 8-GPU PCIe servers (L40S, a layer split across them): per machine one
  // 200 Gb/s stage-link NIC and the dual-port storage/front-end NIC, 3 + 3 cards, where one NIC
  // per GPU made 24 x 400 Gb/s. The fixture has no slot layout and all 8 GPU positions are
  // taken: the lines say the slots are unchecked. Three machines in a chain need a switch, one
  // port per stage link: 3 ports of 200 Gb/s.
  const auto v = bill_of_materials(input("epyc-8gpu-pcie", "l40s", 8, 3, 810 * kGB));
  int stage = 0, frontend = 0;
  for (const auto& l : v)
    if (l.component == BomComponent::nic) {
      CHECK(spec(l, "x16_slots_free") == "not published, unchecked");
      CHECK(spec(l, "gbit_per_s") == "200");
      CHECK_FALSE(l.included);
      if (l.reason == BomReason::stage_link) {
        ++stage;
        CHECK(l.qty == 3);
        CHECK(spec(l, "ports") == "1");
        CHECK(spec(l, "why") == "nic_stage_link");
      } else {
        ++frontend;
        CHECK(l.reason == BomReason::storage_frontend);
        CHECK(l.qty == 3);
      }
    }
  CHECK(stage == 1);
  CHECK(frontend == 1);
  const BomLine* sw = line(v, BomComponent::network_switch);
  REQUIRE(sw);
  CHECK(spec(*sw, "ports") == "3");
  CHECK(spec(*sw, "gbit_per_s") == "200");
  CHECK(sw->reason == BomReason::stage_link);
  CHECK(std::string(to_string(sw->reason)) == "stage_link");
  // Two machines cable their stage links to each other: no switch.
  const auto two = bill_of_materials(input("epyc-8gpu-pcie", "l40s", 8, 2, 540 * kGB));
  CHECK(line(two, BomComponent::network_switch) == nullptr);
  // Six GPUs per machine leave two empty x16 positions: the lines say 2 free.
  const auto six = bill_of_materials(input("epyc-8gpu-pcie", "l40s", 6, 3, 600 * kGB));
  for (const auto& l : six)
    if (l.component == BomComponent::nic) CHECK(spec(l, "x16_slots_free") == "2");
}

TEST_CASE("Desktops beyond two on their onboard Ethernet still get a switch port each", "[bom]") {
  // The fixture's AM5 desktop: two cards taking all 7 GPU slot widths leave no slot for a NIC, so
  // the boards' own Ethernet carries the layer split (no NIC line). Two machines are cabled to
  // each other; three in a pipeline need a switch: 3 ports, at the boards' onboard speed.
  for (uint32_t nodes : {2u, 3u}) {
    CAPTURE(nodes);
    BomInput in = input("am5-desktop", "rtx-4090", 2, nodes, 120 * kGB);
    HostNeeds n;
    n.gpus = 2;
    n.nodes = nodes;
    n.weights_bytes = 120 * kGB;
    n.gpu_slot_widths = 7;
    in.host = size_host(*in.platform, n);
    const auto v = bill_of_materials(in);
    CHECK(line(v, BomComponent::nic) == nullptr);
    const BomLine* sw = line(v, BomComponent::network_switch);
    if (nodes == 2) {
      CHECK(sw == nullptr);
      continue;
    }
    REQUIRE(sw);
    CHECK(sw->part == "switch-ethernet-3-ports");
    CHECK(spec(*sw, "ports") == "3");
    CHECK(spec(*sw, "gbit_per_s") == "the boards' onboard");
    CHECK(sw->reason == BomReason::stage_link);
  }
}
