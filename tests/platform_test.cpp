#include "llmsize/machine/platform.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/machine/host_model.hpp"
#include "llmsize/machine/power_model.hpp"
#include "test_util.hpp"

using namespace llmsize;

namespace {

const std::vector<PlatformModel>& fixture() {
  static const auto v = read_platforms_file(std::string(LLMSIZE_TEST_FIXTURES) + "/platforms.json");
  return v;
}

const GpuSpec& gpu(const std::string& id) {
  const auto* g = test::catalog().find_gpu(id);
  if (!g) throw std::runtime_error("test GPU not in catalog: " + id);
  return g->spec;
}

std::string chosen(const PlatformChoice& c) {
  return c.index < 0 ? "none" : fixture()[static_cast<size_t>(c.index)].id;
}

bool has(const std::vector<PlatformReason>& v, PlatformReason r) {
  return std::find(v.begin(), v.end(), r) != v.end();
}

const PlatformRejection* rejection(const PlatformChoice& c, const std::string& id) {
  for (const auto& r : c.rejected)
    if (r.platform_id == id) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("GPU mount follows the catalog form factor", "[platform]") {
  CHECK(gpu_mount(gpu("h100-sxm")) == GpuMount::sxm);
  CHECK(gpu_mount(gpu("gh200")) == GpuMount::superchip);
  CHECK(gpu_mount(gpu("mi300x")) == GpuMount::oam);
  CHECK(gpu_mount(gpu("rtx-4090")) == GpuMount::pcie);
  CHECK(gpu_mount(gpu("m2-ultra")) == GpuMount::integrated);
  // Passive: datacenter PCIe cards only.
  CHECK(gpu_is_passive(gpu("l40s")));
  CHECK(gpu_is_passive(gpu("h100-pcie")));
  CHECK_FALSE(gpu_is_passive(gpu("rtx-6000-ada")));
  CHECK_FALSE(gpu_is_passive(gpu("h100-sxm")));
}

TEST_CASE("PSU redundancy schemes parse against the bays", "[platform]") {
  struct Case {
    const char* text;
    uint32_t bays;
    bool ok;
    uint32_t n, r;
    const char* label;
  };
  const Case cases[] = {
      {"4+2", 6, true, 4, 2, "4+2"},  // DGX H100
      {"5+1", 6, true, 5, 1, "5+1"},  // DGX B200
      {"N+1", 4, true, 3, 1, "3+1"},   {"N+N", 4, true, 2, 2, "2+2"},
      {"none", 1, true, 1, 0, "none"}, {"4+2", 4, false, 0, 0, ""},  // 6 PSUs named, 4 bays
      {"N+N", 3, false, 0, 0, ""},  // odd bays cannot split in halves
      {"4-2", 6, false, 0, 0, ""},     {"+2", 2, false, 0, 0, ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text, c.bays);
    Redundancy r;
    REQUIRE(parse_redundancy(c.text, c.bays, &r) == c.ok);
    if (!c.ok) continue;
    CHECK(r.n == c.n);
    CHECK(r.r == c.r);
    CHECK(to_string(r) == c.label);
  }
}

TEST_CASE("Platforms are chosen where the GPUs really fit", "[platform]") {
  struct Case {
    const char* gpu;
    uint32_t n;
    const char* platform;
    uint32_t per_node, nodes;
  };
  const Case cases[] = {
      // HGX H100 8-GPU boards only: 8 is one DGX H100; 6 and 2 round up to the board of 8; 12
      // takes two boards.
      {"h100-sxm", 8, "dgx-h100", 8, 1},
      {"h100-sxm", 6, "dgx-h100", 8, 1},
      {"h100-sxm", 2, "dgx-h100", 8, 1},
      {"h100-sxm", 12, "dgx-h100", 8, 2},
      {"b200", 3, "dgx-b200", 8, 1},
      // One or two consumer cards on a desktop (x16, or x8/x8); a third needs another machine:
      // the 3-slot RTX 3090 is too wide for the workstation's and server's double-width bays, so
      // two desktops of two (the same count in each, one more card than asked).
      {"rtx-4090", 1, "am5-desktop", 1, 1},
      {"rtx-3090", 2, "am5-desktop", 2, 1},
      {"rtx-3090", 3, "am5-desktop", 2, 2},
      // Four double-width cards: a workstation (the desktop holds 2).
      {"rtx-a6000", 4, "wrx90-workstation", 4, 1},
      // Passive datacenter cards need server airflow even one at a time.
      {"l40s", 1, "epyc-8gpu-pcie", 1, 1},
      {"h100-pcie", 8, "epyc-8gpu-pcie", 8, 1},
      {"h100-pcie", 9, "epyc-8gpu-pcie", 5, 2},  // two machines, fewest GPUs: 2 x 5, not 2 x 8
      // Unified-memory computers are whole machines: two are two nodes.
      {"m2-ultra", 1, "mac-studio-m2-ultra", 1, 1},
      {"m2-ultra", 2, "mac-studio-m2-ultra", 1, 2},
  };
  for (const auto& c : cases) {
    CAPTURE(c.gpu, c.n);
    const auto ch = choose_platform(fixture(), gpu(c.gpu), c.n);
    CHECK(chosen(ch) == c.platform);
    CHECK(ch.gpus_per_node == c.per_node);
    CHECK(ch.nodes == c.nodes);
    CHECK(ch.gpus_total() >= c.n);
    CHECK(has(ch.reasons, PlatformReason::rounded_up) == (ch.gpus_total() > c.n));
    CHECK(has(ch.reasons, PlatformReason::multi_node) == (c.nodes > 1));
  }
}

TEST_CASE("A platform says why it was taken and why others were not", "[platform]") {
  // 2 x RTX 3090 on AM5: 16 lanes to the GPU slots -> x8 each, below the card's x16.
  const auto two = choose_platform(fixture(), gpu("rtx-3090"), 2);
  CHECK(two.lanes_per_gpu == 8);
  CHECK(has(two.reasons, PlatformReason::reduced_lanes));
  CHECK(has(two.reasons, PlatformReason::smallest_class));
  // The 3-slot card in 2-slot server bays.
  const auto* srv = rejection(two, "epyc-8gpu-pcie");
  REQUIRE(srv);
  CHECK(has(srv->reasons, PlatformReason::too_wide));

  // L40S: passive, so the desktop and the workstation are turned down for cooling.
  const auto l40s = choose_platform(fixture(), gpu("l40s"), 1);
  for (const char* id : {"am5-desktop", "wrx90-workstation"}) {
    const auto* r = rejection(l40s, id);
    REQUIRE(r);
    CHECK(has(r->reasons, PlatformReason::passive_cooling));
  }
  // SXM on an HGX board: the board of 8 rejects nothing at 6, it rounds up; a DGX B200 is
  // turned down because NVIDIA sells it with B200s only.
  const auto six = choose_platform(fixture(), gpu("h100-sxm"), 6);
  const auto* b200 = rejection(six, "dgx-b200");
  REQUIRE(b200);
  CHECK(has(b200->reasons, PlatformReason::gpu_not_offered));
  CHECK(rejection(six, "am5-desktop") == nullptr);  // another mount: not a candidate at all
}

TEST_CASE("A platform named with --platform is still checked", "[platform]") {
  const auto ok = choose_platform(fixture(), gpu("rtx-4090"), 2, "wrx90-workstation");
  // The 3-slot 4090 in double-width workstation bays.
  CHECK(ok.index < 0);
  REQUIRE(ok.rejected.size() == 1);
  CHECK(has(ok.rejected[0].reasons, PlatformReason::too_wide));

  const auto ws = choose_platform(fixture(), gpu("rtx-a6000"), 2, "wrx90-workstation");
  CHECK(chosen(ws) == "wrx90-workstation");
  CHECK(has(ws.reasons, PlatformReason::override_name));
  CHECK(ws.lanes_per_gpu == 16);

  const auto mismatch = choose_platform(fixture(), gpu("rtx-4090"), 1, "dgx-h100");
  CHECK(mismatch.index < 0);
  REQUIRE(mismatch.rejected.size() == 1);
  CHECK(mismatch.rejected[0].reasons ==
        std::vector<PlatformReason>{PlatformReason::mount_mismatch});

  const auto unknown = choose_platform(fixture(), gpu("rtx-4090"), 1, "no-such-box");
  CHECK(unknown.index < 0);
  CHECK(unknown.rejected.empty());
}

TEST_CASE("PSU capacity turns a platform down", "[platform]") {
  // Two 2-slot cards of 800 W on the desktop: DC = 1600 (GPUs) + 170 (CPU) + 4 x 5 (DIMMs)
  // + 2 x 8 (NVMe) + 0.02 x 1770 (fans) + 50 (board) = 1891.4 W > the 1600 W ATX PSU.
  GpuSpec hot = gpu("rtx-5090");
  hot.id = "hot";
  hot.board_power_w = 800;
  hot.slot_width = 2;
  const auto& desk = *find_platform(fixture(), "am5-desktop");
  const double wall = max_system_wall_w(desk, hot, 2);
  CHECK(wall * desk.psu.efficiency == Approx(1891.4));
  CHECK(has(platform_blockers(desk, hot, 2, wall), PlatformReason::psu_capacity));
  // 800 W also exceeds the 600 W a 12V-2x6 connector delivers.
  CHECK(has(platform_blockers(desk, hot, 1, 0), PlatformReason::gpu_power));
  // Two RTX 5090s: 1150 + 170 + 20 + 16 + 0.02 x 1320 + 50 = 1432.4 W DC: fits.
  CHECK(platform_blockers(desk, gpu("rtx-5090"), 2, max_system_wall_w(desk, gpu("rtx-5090"), 2))
            .empty());
}

namespace {

// Every catalog GPU at 1-16: the choice is buyable (a count the platform ships, the cards fit
// its bays, lanes and PSUs; modules in 4 or 8), never fewer GPUs than asked and never a whole
// machine more than needed; a GPU no platform takes gets none, and every consumer card has one.
void walk_catalog(const std::vector<PlatformModel>& cat) {
  uint32_t pcie_server_pipelines = 0;  // plans the NIC-slot check below saw
  for (const auto& cg : test::catalog().gpus()) {
    const GpuSpec& g = cg.spec;
    for (uint32_t n = 1; n <= 16; ++n) {
      CAPTURE(g.id, n);
      const auto ch = choose_platform(cat, g, n);
      if (ch.index < 0) {
        // No platform takes this GPU at any count.
        for (const auto& p : cat)
          for (uint32_t c : p.gpu_counts)
            CHECK_FALSE(platform_blockers(p, g, c, max_system_wall_w(p, g, c)).empty());
        CHECK(g.gpu_class != GpuClass::consumer);
        continue;
      }
      const PlatformModel& p = cat[static_cast<size_t>(ch.index)];
      CHECK(p.gpu_mount == gpu_mount(g));
      CHECK(std::find(p.gpu_counts.begin(), p.gpu_counts.end(), ch.gpus_per_node) !=
            p.gpu_counts.end());
      CHECK(ch.gpus_total() >= n);
      CHECK(ch.nodes == (n + ch.gpus_per_node - 1) / ch.gpus_per_node);
      CHECK(ch.gpus_total() - n < ch.gpus_per_node);  // no idle machine
      // A vendor's baseboard lists its modules; a generic one (no sourced machine takes the GPU)
      // takes any of its mount, and only when no sourced row does.
      if (p.gpu_mount != GpuMount::pcie && !p.generic)
        CHECK(std::find(p.gpu_ids.begin(), p.gpu_ids.end(), g.id) != p.gpu_ids.end());
      if (p.generic)
        for (const auto& q : cat)
          if (!q.generic)
            for (uint32_t c : q.gpu_counts)
              CHECK_FALSE(platform_blockers(q, g, c, max_system_wall_w(q, g, c)).empty());
      if (p.gpu_mount == GpuMount::sxm || p.gpu_mount == GpuMount::oam)
        CHECK((ch.gpus_per_node == 4 || ch.gpus_per_node == 8));
      if (p.gpu_mount == GpuMount::integrated) CHECK(ch.gpus_per_node == 1);
      if (p.gpu_mount == GpuMount::pcie) {
        const double w = g.slot_width > 0 ? g.slot_width : 2;
        CHECK(w <= p.gpu_width_max);
        CHECK(w * ch.gpus_per_node <= p.gpu_widths_total);
        CHECK(ch.lanes_per_gpu >= 8);
        CHECK(ch.lanes_per_gpu * ch.gpus_per_node <= p.gpu_lanes_total);
        if (gpu_is_passive(g)) CHECK(p.server_airflow);
      }
      if (p.gpu_mount != GpuMount::integrated) {
        const double wall = max_system_wall_w(p, g, ch.gpus_per_node);
        const PsuPlan psu = plan_psus(p, wall);
        CHECK(psu.count <= std::max<uint32_t>(1, p.psu.bays));
        CHECK(psu.count == psu.redundancy.total());
        // Rated PSUs carry the maximum; unrated ones are said to be.
        if (p.psu.watts > 0)
          CHECK(psu.sufficient);
        else
          CHECK(has(ch.reasons, PlatformReason::psu_unrated));
        // Wall circuits (machines that plug in their own cords): a circuit offered carries at
        // least one whole cord's share of the maximum, never a fraction of one.
        if (p.platform_class != PlatformClass::server && psu.count > 0)
          for (const auto& c : plan_circuits(wall, ch.nodes, psu.redundancy.n, p.platform_class,
                                             psu.redundancy.r > 0))
            if (c.circuits) CHECK(c.continuous_w >= wall / psu.redundancy.n);
      }
      // A NIC bought for a desktop or tower across machines has a slot width left beside the
      // GPUs (two 3-slot cards on a 6-width board buy none).
      if (p.gpu_mount == GpuMount::pcie && p.platform_class != PlatformClass::server &&
          ch.nodes > 1) {
        HostNeeds hn;
        hn.gpus = ch.gpus_per_node;
        hn.nodes = ch.nodes;
        hn.weights_bytes = 1ull << 30;
        hn.gpu_slot_widths = (g.slot_width > 0 ? g.slot_width : 2) * ch.gpus_per_node;
        if (!size_host(p, hn).nics.empty())
          CHECK(hn.gpu_slot_widths + 1 <= p.gpu_widths_total + 1e-9);
      }
      // A PCIe server across machines buys no more NIC cards than the x16 slots left beside its
      // GPUs where those are known, and one NIC per machine for the stage link, never one per GPU.
      if (p.gpu_mount == GpuMount::pcie && p.platform_class == PlatformClass::server &&
          ch.nodes > 1) {
        HostNeeds hn;
        hn.gpus = ch.gpus_per_node;
        hn.nodes = ch.nodes;
        hn.weights_bytes = 1ull << 30;
        const HostSizing h = size_host(p, hn);
        ++pcie_server_pipelines;
        uint32_t cards = 0;
        for (const auto& nic : h.nics) {
          CHECK(nic.reason != HostReason::nic_per_gpu);
          CHECK(nic.count == 1);
          cards += nic.count;
        }
        CHECK(cards == h.nic_slots.used);
        if (h.nic_slots.known) CHECK(cards <= h.nic_slots.free);
      }
    }
  }
  CHECK(pcie_server_pipelines > 0);
}

}  // namespace

TEST_CASE("Every catalog GPU at 1-16 GPUs gets a buyable configuration (fixture)", "[platform]") {
  walk_catalog(fixture());
}

TEST_CASE("Every catalog GPU at 1-16 GPUs gets a buyable configuration (built-in platforms)",
          "[platform]") {
  walk_catalog(builtin_platforms());
}

TEST_CASE("Built-in platforms: the reference systems come out as they ship", "[platform]") {
  const auto& cat = builtin_platforms();
  struct Case {
    const char* gpu;
    uint32_t n;
    const char* platform;
    uint32_t sockets;
  };
  const Case cases[] = {
      {"h100-sxm", 8, "nvidia-dgx-h100", 2},
      {"h100-sxm", 6, "nvidia-dgx-h100", 2},  // rounded up to the board of 8
      {"b200", 8, "nvidia-dgx-b200", 2},
      {"mi300x", 8, "dell-poweredge-xe9680-mi300x", 2},
      {"mi300x", 1, "dell-poweredge-xe9680-mi300x", 2},    // one OAM module: the board of 8
      {"h200", 4, "lenovo-thinksystem-sr675-v3-hgx4", 2},  // the HGX 4-GPU board
      {"h100-sxm", 4, "dell-poweredge-xe8640", 2},         // HGX H100 4-GPU, not a DGX of 8
      {"a100-80gb-sxm", 4, "dell-poweredge-xe8545", 2},    // HGX A100 4-GPU
      {"a100-80gb-sxm", 8, "dell-poweredge-xe9680", 2},    // 8: the 8-GPU board, one machine
      {"h200", 8, "nvidia-dgx-h200", 2},
      {"a100-40gb-sxm", 8, "nvidia-dgx-a100", 2},
      {"rtx-3090", 2, "am5-desktop", 1},
      {"l40s", 4, "asus-esc8000a-e13p", 2},  // passive: a server
      {"m3-ultra", 1, "apple-mac-studio-m3-ultra", 1},
      {"dgx-spark", 2, "nvidia-dgx-spark", 1},  // two Sparks, two nodes
      {"ryzen-ai-max-395", 1, "framework-desktop-ryzen-ai-max-395", 1},
  };
  for (const auto& c : cases) {
    CAPTURE(c.gpu, c.n);
    const auto ch = choose_platform(cat, gpu(c.gpu), c.n);
    REQUIRE(ch.index >= 0);
    const auto& p = cat[static_cast<size_t>(ch.index)];
    CHECK(p.id == c.platform);
    CHECK(p.cpu_sockets == c.sockets);
  }
  // A GH200 is not a GB300: the DGX Station GB300 does not take it; the generic superchip server
  // stands in (#20: no plan falls back to the class rules).
  const auto gh = choose_platform(cat, gpu("gh200"), 1);
  REQUIRE(gh.index >= 0);
  CHECK(cat[static_cast<size_t>(gh.index)].id == "generic-superchip-server");
  // Every catalog GPU but the unified computers gets a platform at 1 to 16: none falls back to the
  // class rules. The modules no vendor row lists go to the generic baseboards.
  for (const auto& cg : test::catalog().gpus()) {
    const GpuSpec& g = cg.spec;
    if (g.unified_memory) continue;
    for (uint32_t n = 1; n <= 16; ++n) {
      CAPTURE(g.id, n);
      CHECK(choose_platform(cat, g, n).index >= 0);
    }
  }
  for (const char* id : {"h20", "v100-32gb"})
    CHECK(cat[static_cast<size_t>(choose_platform(cat, gpu(id), 8).index)].id ==
          "generic-sxm-baseboard-server");
  for (const char* id : {"mi250x", "mi350x", "mi355x", "gaudi3"})
    CHECK(cat[static_cast<size_t>(choose_platform(cat, gpu(id), 8).index)].id ==
          "generic-oam-baseboard-server");
}

TEST_CASE("Built-in workstations: pro cards go four to a vendor's tower, 3-slot cards do not",
          "[platform]") {
  const auto& cat = builtin_platforms();
  auto pick = [&](const char* g, uint32_t n) {
    const auto ch = choose_platform(cat, gpu(g), n);
    REQUIRE(ch.index >= 0);
    return std::make_pair(ch, &cat[static_cast<size_t>(ch.index)]);
  };
  // Four double-width 300 W workstation cards: one Lenovo ThinkStation PX (4 positions of 2 slot
  // widths, 300 W each in its cited configuration), not the generic WRX90 platform row.
  for (const char* g : {"rtx-6000-ada", "rtx-a6000", "rtx-pro-6000-max-q"}) {
    CAPTURE(g);
    const auto [ch, p] = pick(g, 4);
    CHECK(p->id == "lenovo-thinkstation-px");
    CHECK(p->platform_class == PlatformClass::workstation);
    CHECK(ch.nodes == 1);
    CHECK(ch.gpus_per_node == 4);
    CHECK(ch.lanes_per_gpu == 16);                        // 64 lanes / 4
    CHECK(has(ch.reasons, PlatformReason::psu_unrated));  // two bays, rating not published
  }
  // The 600 W RTX PRO 6000 Workstation Edition draws more than the PX's positions are cited at.
  const auto [pro, pro_p] = pick("rtx-pro-6000", 4);
  CHECK(pro_p->platform_class == PlatformClass::workstation);
  CHECK(pro_p->id != "lenovo-thinkstation-px");
  REQUIRE(rejection(pro, "lenovo-thinkstation-px"));
  CHECK(rejection(pro, "lenovo-thinkstation-px")->reasons ==
        std::vector<PlatformReason>{PlatformReason::gpu_power});
  // Lenovo ThinkStation P8: three positions and one published 1400 W supply; three 600 W cards
  // (1800 W of GPUs alone) exceed it; one (600 + 350 + 16 + 10.5 + 50 = 1026.5 W DC) does not.
  const PlatformModel& p8 = *find_platform(cat, "lenovo-thinkstation-p8");
  const GpuSpec& g600 = gpu("rtx-pro-6000");
  CHECK(has(platform_blockers(p8, g600, 3, max_system_wall_w(p8, g600, 3)),
            PlatformReason::psu_capacity));
  CHECK(platform_blockers(p8, g600, 1, max_system_wall_w(p8, g600, 1)).empty());
  // Three 300 W cards, as Lenovo sells the P8 (three RTX 6000 Ada with a 350 W Threadripper PRO
  // 7000 WX on the 1400 W supply): 900 + 350 + 2 x 8 (client M.2, as shipped: no DIMM count
  // published) + 0.03 x 350 (fans) + 50 (board) = 1326.5 W DC fits. It was 1412.5 W (two 25 W
  // enterprise drives, fans at 3% of 1250 W, a 75 W board): turned down.
  const GpuSpec& g300 = gpu("rtx-6000-ada");
  CHECK(max_system_wall_w(p8, g300, 3) * p8.psu.efficiency == Approx(1326.5));
  CHECK(platform_blockers(p8, g300, 3, max_system_wall_w(p8, g300, 3)).empty());
  // 3-slot consumer cards: no workstation takes one (every tower's positions are double-width),
  // so four RTX 4090 are two desktops of two, and the towers say why.
  const auto [c4090, p4090] = pick("rtx-4090", 4);
  CHECK(p4090->platform_class == PlatformClass::desktop);
  CHECK(c4090.nodes == 2);
  CHECK(c4090.gpus_per_node == 2);
  for (const char* ws :
       {"lenovo-thinkstation-px", "hp-z8-fury-g5", "lenovo-thinkstation-p8", "wrx90-workstation"}) {
    CAPTURE(ws);
    REQUIRE(rejection(c4090, ws));
    CHECK(has(rejection(c4090, ws)->reasons, PlatformReason::too_wide));
  }
  // The towers come first among the rejections (the class next to the desktop chosen), the
  // servers after them.
  REQUIRE(c4090.rejected.size() >= 5);
  CHECK(find_platform(cat, c4090.rejected.front().platform_id)->platform_class ==
        PlatformClass::workstation);
  CHECK(find_platform(cat, c4090.rejected.back().platform_id)->platform_class ==
        PlatformClass::server);
  // Ten double-width cards: one Supermicro SYS-421GE-TNRT (ten positions), not two 8-GPU boxes.
  const auto [ten, ten_p] = pick("rtx-pro-6000", 10);
  CHECK(ten_p->id == "supermicro-sys-421ge-tnrt");
  CHECK(ten.nodes == 1);
}

TEST_CASE("Among equals, a machine whose PSUs are published is taken before one whose are not",
          "[platform]") {
  // Two workstations alike but for the PSUs; the unrated one is listed first.
  auto tower = [](const char* id, double psu_w, bool bays) {
    PlatformModel p;
    p.id = id;
    p.platform_class = PlatformClass::workstation;
    p.gpu_mount = GpuMount::pcie;
    p.gpu_counts = {1, 2, 3, 4};
    p.gpu_width_max = 2;
    p.gpu_widths_total = 8;
    p.gpu_lanes_total = 64;
    p.psu.watts = psu_w;
    p.psu.bays = 1;
    p.psu.bays_published = bays;
    return p;
  };
  const std::vector<PlatformModel> cat = {tower("unrated", 0, false), tower("rated", 2000, true)};
  const auto none = [](const PlatformModel&, const GpuSpec&, uint32_t) { return 1000.0; };
  const auto ch = choose_platform(cat, gpu("rtx-a6000"), 2, "", none);
  REQUIRE(ch.index == 1);
  // Decided by the PSUs, not by price: the reason is the class, not "cheapest".
  CHECK(has(ch.reasons, PlatformReason::smallest_class));
  CHECK_FALSE(has(ch.reasons, PlatformReason::cheapest));
  CHECK_FALSE(has(ch.reasons, PlatformReason::psu_unrated));
  // Both unrated: the catalog's order decides.
  const std::vector<PlatformModel> both = {tower("a", 0, false), tower("b", 0, false)};
  CHECK(choose_platform(both, gpu("rtx-a6000"), 2, "", none).index == 0);
}

TEST_CASE("The choice carries the slot widths its cards take in one machine", "[platform]") {
  // Two 3-slot RTX 4090 per AM5 desktop: 6 slot widths; a card without a catalog width takes 2
  // (the RTX 5060 Ti 16GB); modules take none.
  const auto& cat = builtin_platforms();
  const auto d = choose_platform(cat, gpu("rtx-4090"), 4);
  REQUIRE(d.index >= 0);
  CHECK(d.gpus_per_node == 2);
  CHECK(d.slot_widths_per_node == 6);
  CHECK(card_slot_width(gpu("rtx-5060-ti-16gb")) == 2);
  CHECK(card_slot_width(gpu("rtx-4090")) == 3);
  const auto h = choose_platform(cat, gpu("h100-sxm"), 8);
  REQUIRE(h.index >= 0);
  CHECK(h.slot_widths_per_node == 0);
}

TEST_CASE("Machines for a deployment keep each replica inside one machine where it fits",
          "[platform]") {
  auto [gpus, per_node, unit, machines] = GENERATE(table<uint32_t, uint32_t, uint32_t, uint32_t>({
      {20, 10, 0, 2},  // one instance: ceil(20 / 10)
      {20, 10, 4, 3},  // 5 replicas of 4, two to a machine: ceil(5 / 2)
      {20, 8, 4, 3},   // the same at 8 per machine
      {64, 10, 8, 8},  // 8 replicas of 8: one to a 10-GPU machine (not ceil(64 / 10) = 7)
      {32, 8, 16, 4},  // 2 replicas of 16 over 8-GPU machines: 2 machines each
      {8, 2, 8, 4},    // one replica of 8 (TP 2 x PP 4) on 2-GPU desktops: ceil(8 / 2)
      {6, 8, 2, 1},    // 3 replicas of 2 in one 8-GPU machine
  }));
  CHECK(machines_for(gpus, per_node, GpuUnits{unit}) == machines);
  // The same pieces placed one by one (place_units) take the same machines.
  CHECK(place_units(gpus, per_node, GpuUnits{unit}).machines == machines);
}

TEST_CASE("Disaggregated workers fill what the replicas leave in the machines bought",
          "[platform][serving]") {
  struct Case {
    uint32_t gpus, per_node, unit, prefill_tp, prefill_workers, machines;
  };
  const Case cases[] = {
      // 144 GB200 in 72-GPU racks: 7 decode replicas of 16 go 4 + 3 (8 and 24 GPUs left), the
      // four 8-GPU prefill workers fill 1 + 3 of those gaps: 2 racks (placed in order, prefill
      // first, it took 3).
      {144, 72, 16, 8, 4, 2},
      // 16 H100 in DGX nodes of 8: 3 decode replicas of 4 and one 4-GPU prefill worker: 2 nodes.
      {16, 8, 4, 4, 1, 2},
      // One decode instance of 6 and two 1-GPU prefill workers: one 8-GPU node.
      {8, 8, 0, 1, 2, 1},
      // Decode replicas of 6 (3 of them) leave 2 GPUs in each of 3 nodes; 2-GPU prefill workers
      // (3) take them: 3 nodes for 24 GPUs.
      {24, 8, 6, 2, 3, 3},
      // A decode replica of 16 on 8-GPU nodes takes two whole nodes; the 8 prefill GPUs a third.
      {24, 8, 16, 8, 1, 3},
  };
  for (const auto& c : cases) {
    CAPTURE(c.gpus, c.per_node, c.unit, c.prefill_tp, c.prefill_workers);
    const GpuUnits u{c.unit, c.prefill_tp, c.prefill_workers};
    const Placement p = place_units(c.gpus, c.per_node, u);
    CHECK(p.machines == c.machines);
    CHECK(machines_for(c.gpus, c.per_node, u) == c.machines);
    // Every piece inside one machine, no two on the same GPU.
    std::vector<std::vector<int>> taken(p.machines, std::vector<int>(c.per_node, 0));
    const auto mark = [&](const UnitPlace& at, uint32_t size) {
      if (size > c.per_node) return;  // whole machines of its own
      REQUIRE(at.node < p.machines);
      REQUIRE(at.first_gpu + size <= c.per_node);
      for (uint32_t g = 0; g < size; ++g) CHECK(++taken[at.node][at.first_gpu + g] == 1);
    };
    for (const auto& at : p.prefill) mark(at, c.prefill_tp);
    const uint32_t decode = c.gpus - c.prefill_tp * c.prefill_workers;
    for (const auto& at : p.decode) mark(at, c.unit && c.unit < decode ? c.unit : decode);
  }
}

// #27: a deployment with spares runs on at least its machines (GpuUnits::min_machines): 8 GPUs
// of TP 2 replicas on 4-GPU machines are 2 machines; asked for 3 (its spares on machines of their
// own), 3; a floor below the packing changes nothing.
TEST_CASE("A machine floor keeps spare replicas on machines of their own", "[platform]") {
  CHECK(machines_for(8, 4, GpuUnits{2}) == 2);
  CHECK(machines_for(8, 4, GpuUnits{2, 0, 0, 3}) == 3);
  CHECK(machines_for(8, 4, GpuUnits{2, 0, 0, 1}) == 2);
  CHECK(place_units(8, 4, GpuUnits{2, 0, 0, 3}).machines == 3);
  CHECK(machines_for(8, 4, GpuUnits{0, 0, 0, 3}) == 3);
}
