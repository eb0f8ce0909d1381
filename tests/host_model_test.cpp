#include "llmsize/machine/host_model.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/units.hpp"

using namespace llmsize;

namespace {

const PlatformModel& platform(const std::string& id) {
  static const auto v = read_platforms_file(std::string(LLMSIZE_TEST_FIXTURES) + "/platforms.json");
  const auto* p = find_platform(v, id);
  if (!p) throw std::runtime_error("fixture platform missing: " + id);
  return *p;
}

}  // namespace

TEST_CASE("An HGX server is sized like the DGX it is", "[host_model]") {
  // Llama-3.1-405B in FP8: ~405 GB of weights. 2 x weights = 810 GB = 754.4 GiB, below the
  // 2 TiB a DGX H100 ships for 8 GPUs (256 GiB per GPU): kept as shipped, 32 x 64 GiB on 16
  // channels (2 per channel).
  HostNeeds n;
  n.gpus = 8;
  n.weights_bytes = 405 * kGB;
  const auto h = size_host(platform("dgx-h100"), n);
  CHECK(h.cpu_sockets == 2);
  CHECK(h.cpu_cores == 112);
  CHECK(h.cores_per_gpu == 14);
  CHECK(h.ram.rule_bytes == 810 * kGB);
  CHECK(h.ram.platform_bytes == 2048 * kGiB);
  CHECK(h.ram.required_bytes == 2048 * kGiB);
  CHECK(h.ram.reason == HostReason::ram_platform_class);
  CHECK(h.ram.channels == 16);
  CHECK(h.ram.dimms == 32);
  CHECK(h.ram.dimm_gib == 64);
  CHECK(h.ram.dimms_per_channel == 2);
  CHECK(h.ram.installed_bytes == 2048 * kGiB);
  // One node, not networked: no NIC lines of its own.
  CHECK(h.nics.empty());
  // OS mirror of 1.92 TB; data: 405 GB x 2 (room for a second copy) = 810 GB -> a mirrored
  // pair of 1.92 TB.
  CHECK(h.storage.os_drives == 2);
  CHECK(h.storage.os_drive_bytes == 1920 * kGB);
  CHECK(h.storage.data_drives == 2);
  CHECK(h.storage.data_drive_bytes == 1920 * kGB);
  CHECK(h.load.nvme_drives == 4);
  CHECK(h.load.dimms == 32);
}

TEST_CASE("RAM is the larger of 2 x weights and what the class ships, both stated",
          "[host_model]") {
  struct Case {
    const char* platform;
    uint32_t gpus;
    uint64_t weights_bytes;
    uint64_t rule_gib, platform_gib, installed_gib;
    uint32_t dimms, dimm_gib;
    HostReason reason;
  };
  const Case cases[] = {
      // 2 x RTX 3090 with 40 GiB of weights: 80 GiB > 2 x 32 GiB; 2 channels -> 2 x 48 GiB.
      {"am5-desktop", 2, 40 * kGiB, 80, 64, 96, 2, 48, HostReason::ram_two_x_weights},
      // One card, 8 GiB of weights: 16 GiB < 32 GiB per GPU -> 2 x 16 GiB.
      {"am5-desktop", 1, 8 * kGiB, 16, 32, 32, 2, 16, HostReason::ram_platform_class},
      // 200 GiB of weights on AM5: 400 GiB capped at the platform's 192 GiB: 2 DIMMs per channel
      // of 48 GiB.
      {"am5-desktop", 1, 200 * kGiB, 400, 32, 192, 4, 48, HostReason::ram_platform_max},
      // 4 GPUs on the workstation: 4 x 64 = 256 GiB > 2 x 60; 8 channels x 32 GiB.
      {"wrx90-workstation", 4, 60 * kGiB, 120, 256, 256, 8, 32, HostReason::ram_platform_class},
      // 8 PCIe GPUs: 8 x 128 = 1 TiB on 24 channels -> 24 x 48 GiB = 1152 GiB.
      {"epyc-8gpu-pcie", 8, 100 * kGiB, 200, 1024, 1152, 24, 48, HostReason::ram_platform_class},
  };
  for (const auto& c : cases) {
    CAPTURE(c.platform, c.gpus, c.weights_bytes);
    HostNeeds n;
    n.gpus = c.gpus;
    n.weights_bytes = c.weights_bytes;
    const auto h = size_host(platform(c.platform), n);
    CHECK(h.ram.rule_bytes == c.rule_gib * kGiB);
    CHECK(h.ram.platform_bytes == c.platform_gib * kGiB);
    CHECK(h.ram.installed_bytes == c.installed_gib * kGiB);
    CHECK(h.ram.dimms == c.dimms);
    CHECK(h.ram.dimm_gib == c.dimm_gib);
    CHECK(h.ram.reason == c.reason);
  }
}

TEST_CASE("Baseboard servers across nodes get a 400G NIC per GPU and a storage/front-end NIC",
          "[host_model]") {
  // The HGX/DGX reference design: one ConnectX-7 per GPU, 8 for the fixture's DGX H100, and one
  // dual-port storage/front-end NIC.
  HostNeeds n;
  n.gpus = 8;
  n.nodes = 2;
  n.weights_bytes = 800 * kGB;
  const auto h = size_host(platform("dgx-h100"), n);
  REQUIRE(h.nics.size() == 2);
  CHECK(h.nics[0].count == 8);
  CHECK(h.nics[0].gbit_per_s == 400);
  CHECK(h.nics[0].reason == HostReason::nic_per_gpu);
  CHECK(h.nics[1].count == 1);
  CHECK(h.nics[1].ports == 2);
  CHECK(h.nics[1].reason == HostReason::nic_storage_frontend);
  CHECK(h.load.nics_400g == 8);
  CHECK(h.load.nics_other == 1);
}

TEST_CASE("PCIe servers across nodes get one stage-link NIC per machine, within their free slots",
          "[host_model]") {
  // A PCIe server plan across machines is a layer (pipeline) split: only a stage boundary's
  // activations cross between machines, so one 200 Gb/s NIC per machine carries them, beside
  // the dual-port storage/front-end NIC. It was 8 x 400 Gb/s (one per GPU) + 1 before: 9 cards
  // in a server whose 8 GPU positions are full. The fixture's epyc-8gpu-pcie has 8 positions and
  // no nic_slots: with 8 GPUs nothing says how many x16 slots are left, so both cards are bought
  // and the slots reported unknown; with 6 GPUs the 2 empty positions are 2 known slots.
  struct Case {
    uint32_t gpus;
    uint32_t nic_slots;  // catalog nic_slots; published when has_slots
    bool has_slots;
    bool known;
    uint32_t free;
    std::vector<HostReason> nics;  // the NIC lines, in order
    bool onboard;
  };
  const Case cases[] = {
      // 8 of 8 positions, no slot layout: both cards, unchecked.
      {8,
       0,
       false,
       false,
       0,
       {HostReason::nic_stage_link, HostReason::nic_storage_frontend},
       false},
      // 6 of 8: the 2 empty positions hold both.
      {6, 0, false, true, 2, {HostReason::nic_stage_link, HostReason::nic_storage_frontend}, false},
      // 7 of 8: one empty position: one dual-port card, a port for each role.
      {7, 0, false, true, 1, {HostReason::nic_stage_and_frontend}, false},
      // 8 of 8 with 1 published slot (the AS-4125GS-TNRT: 9 x16 slots, 8 for GPUs): one card.
      {8, 1, true, true, 1, {HostReason::nic_stage_and_frontend}, false},
      // 8 of 8 with 0 published slots: nothing goes in; the board's own network links the stages.
      {8, 0, true, true, 0, {}, true},
      // 8 of 8 with 4 published slots: both, 2 slots left over.
      {8, 4, true, true, 4, {HostReason::nic_stage_link, HostReason::nic_storage_frontend}, false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.gpus, c.nic_slots, c.has_slots);
    PlatformModel p = platform("epyc-8gpu-pcie");
    p.nic_slots = c.nic_slots;
    p.nic_slots_published = c.has_slots;
    HostNeeds n;
    n.gpus = c.gpus;
    n.nodes = 2;
    n.weights_bytes = 800 * kGB;
    const auto h = size_host(p, n);
    CHECK(h.nic_slots.known == c.known);
    if (c.known) CHECK(h.nic_slots.free == c.free);
    CHECK(h.nic_slots.used == c.nics.size());
    REQUIRE(h.nics.size() == c.nics.size());
    for (size_t i = 0; i < c.nics.size(); ++i) {
      CHECK(h.nics[i].reason == c.nics[i]);
      CHECK(h.nics[i].count == 1);
      CHECK(h.nics[i].gbit_per_s == 200);
    }
    if (!c.nics.empty()) CHECK(h.nics[0].ports == (c.nics.size() == 1 ? 2u : 1u));
    CHECK(h.load.nics_400g == 0);
    CHECK(h.load.nics_other == c.nics.size());
    const bool onboard =
        std::find(h.reasons.begin(), h.reasons.end(), HostReason::nic_onboard) != h.reasons.end();
    CHECK(onboard == c.onboard);
  }
  // One networked PCIe server: the storage/front-end NIC alone, in a slot it has.
  HostNeeds one;
  one.gpus = 8;
  one.networked = true;
  one.weights_bytes = 100 * kGB;
  PlatformModel p = platform("epyc-8gpu-pcie");
  p.nic_slots = 1;
  p.nic_slots_published = true;
  const auto h1 = size_host(p, one);
  REQUIRE(h1.nics.size() == 1);
  CHECK(h1.nics[0].reason == HostReason::nic_storage_frontend);
  CHECK(h1.nics[0].ports == 2);
}

TEST_CASE("A networked desktop gets a front-end NIC", "[host_model]") {
  // A single networked desktop: one dual-port 100 GbE NIC.
  HostNeeds d;
  d.networked = true;
  d.weights_bytes = 5 * kGB;
  const auto dh = size_host(platform("am5-desktop"), d);
  REQUIRE(dh.nics.size() == 1);
  CHECK(dh.nics[0].gbit_per_s == 100);
  // Desktop storage: one 1 TB OS drive; 5 GB x 2 = 10 GB, under the 2 TB-class floor (1.92 TB):
  // one 2 TB data drive, one copy.
  CHECK(dh.storage.os_drives == 1);
  CHECK(dh.storage.data_drives == 1);
  CHECK(dh.storage.data_drive_bytes == 2000 * kGB);
}

TEST_CASE("A workstation gets the client M.2 drives it ships, not a server's mirror",
          "[host_model]") {
  // The fixture's WRX90 tower with 60 GiB of weights: one 1 TB OS drive and, for 2 x 64.4 GB =
  // 128.8 GB, under the 2 TB-class floor (1.92 TB), a mirrored pair of 2 TB client data drives
  // (RAID 1, as a server's data); it was a server's 2 x 1.92 TB OS mirror and enterprise data
  // drives, while the power model counts workstation drives as M.2.
  HostNeeds n;
  n.gpus = 4;
  n.weights_bytes = 60 * kGiB;
  const auto h = size_host(platform("wrx90-workstation"), n);
  CHECK(h.storage.os_drives == 1);
  CHECK(h.storage.os_drive_bytes == 1000 * kGB);
  CHECK(h.storage.data_drives == 2);
  CHECK(h.storage.data_drive_bytes == 2000 * kGB);
  CHECK(h.load.nvme_drives == 3);
  CHECK(std::find(h.reasons.begin(), h.reasons.end(), HostReason::storage_os_mirror) ==
        h.reasons.end());
}

TEST_CASE("Storage holds the model set, datasets and checkpoints", "[host_model]") {
  // 4 TB of models + 6 TB of datasets + 2 TB of checkpoints = 12 TB; x 2 = 24 TB: the largest
  // enterprise drive, 30.72 TB, mirrored.
  HostNeeds n;
  n.gpus = 8;
  n.weights_bytes = 400 * kGB;
  n.model_set_bytes = 4000 * kGB;
  n.dataset_bytes = 6000 * kGB;
  n.checkpoint_bytes = 2000 * kGB;
  const auto h = size_host(platform("dgx-h100"), n);
  CHECK(h.storage.required_bytes == 12000 * kGB);
  CHECK(h.storage.data_drive_bytes == 30720 * kGB);
  CHECK(h.storage.data_drives == 2);
  // 40 TB x 2 = 80 TB: ceil(80 / 30.72) = 3 mirrored pairs.
  n.dataset_bytes = 34000 * kGB;
  CHECK(size_host(platform("dgx-h100"), n).storage.data_drives == 6);
}

TEST_CASE("A unified-memory computer's RAM is its GPU memory", "[host_model]") {
  HostNeeds n;
  n.weights_bytes = 100 * kGB;
  const auto h = size_host(platform("mac-studio-m2-ultra"), n);
  CHECK(h.ram.reason == HostReason::unified_memory);
  CHECK(h.ram.installed_bytes == 192 * kGiB);
  CHECK(h.cpu_sockets == 1);
  CHECK(h.nics.empty());
  CHECK(h.load.nvme_drives == 0);
}

TEST_CASE("A desktop across machines gets a NIC only where the GPUs leave a slot for one",
          "[host_model]") {
  // The fixture's AM5 desktop: 7 slot widths for GPUs. Two 3-slot cards take 6: one width is
  // left, a single-width 100 Gb/s NIC goes in it. Two 3.5-slot cards take all 7: no slot, the
  // board's own Ethernet carries the activations of the layer split, nothing to buy.
  struct Case {
    double gpu_slot_widths;
    bool nic;
  };
  const Case cases[] = {{6, true}, {7, false}, {0, true}};  // 0: widths unknown, as before
  for (const auto& c : cases) {
    CAPTURE(c.gpu_slot_widths);
    HostNeeds n;
    n.gpus = 2;
    n.nodes = 2;
    n.weights_bytes = 40 * kGiB;
    n.gpu_slot_widths = c.gpu_slot_widths;
    const auto h = size_host(platform("am5-desktop"), n);
    const bool onboard =
        std::find(h.reasons.begin(), h.reasons.end(), HostReason::nic_onboard) != h.reasons.end();
    CHECK(onboard == !c.nic);
    CHECK(h.nics.size() == (c.nic ? 1u : 0u));
    if (c.nic) CHECK(h.nics[0].gbit_per_s == 100);
    CHECK(h.load.nics_other == (c.nic ? 1u : 0u));  // the power model counts a bought NIC only
  }
  // A server keeps its fabric NICs whatever the widths: they sit in their own x16 positions.
  HostNeeds s;
  s.gpus = 8;
  s.nodes = 2;
  s.weights_bytes = 400 * kGB;
  s.gpu_slot_widths = 16;
  const auto hs = size_host(platform("dgx-h100"), s);
  CHECK_FALSE(hs.nics.empty());
  CHECK(to_string(HostReason::nic_onboard) == std::string("nic_onboard"));
}
