#include "llmsize/machine/platform.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "llmsize/machine/power_model.hpp"

namespace llmsize {

const char* to_string(PlatformClass c) {
  switch (c) {
    case PlatformClass::desktop:
      return "desktop";
    case PlatformClass::workstation:
      return "workstation";
    case PlatformClass::server:
      return "server";
    case PlatformClass::unified:
      return "unified";
  }
  return "?";
}

const char* to_string(GpuMount m) {
  switch (m) {
    case GpuMount::pcie:
      return "pcie";
    case GpuMount::sxm:
      return "sxm";
    case GpuMount::oam:
      return "oam";
    case GpuMount::superchip:
      return "superchip";
    case GpuMount::integrated:
      return "integrated";
  }
  return "?";
}

GpuMount gpu_mount(const GpuSpec& g) {
  if (g.unified_memory || g.form_factor == FormFactor::soc) return GpuMount::integrated;
  if (g.form_factor == FormFactor::sxm) return GpuMount::sxm;
  if (g.form_factor == FormFactor::superchip) return GpuMount::superchip;
  if (g.form_factor == FormFactor::oam) return GpuMount::oam;
  return GpuMount::pcie;
}

double card_slot_width(const GpuSpec& g) {
  // A card without a catalog width is taken as double width, the width of most PCIe GPUs.
  return g.slot_width > 0 ? g.slot_width : 2;
}

bool gpu_is_passive(const GpuSpec& g) {
  return g.gpu_class == GpuClass::datacenter && gpu_mount(g) == GpuMount::pcie;
}

std::string to_string(Redundancy r) {
  if (r.r == 0) return "none";
  return std::to_string(r.n) + "+" + std::to_string(r.r);
}

bool parse_redundancy(const std::string& s, uint32_t bays, Redundancy* out) {
  if (s == "none") {
    *out = {bays ? bays : 1, 0};
    return true;
  }
  if (s == "N+1" || s == "n+1") {
    if (bays < 2) return false;
    *out = {bays - 1, 1};
    return true;
  }
  if (s == "N+N" || s == "n+n") {
    if (bays < 2 || bays % 2) return false;
    *out = {bays / 2, bays / 2};
    return true;
  }
  const auto plus = s.find('+');
  if (plus == std::string::npos || plus == 0 || plus + 1 >= s.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != plus && (s[i] < '0' || s[i] > '9')) return false;
  const unsigned long n = std::strtoul(s.substr(0, plus).c_str(), nullptr, 10);
  const unsigned long r = std::strtoul(s.substr(plus + 1).c_str(), nullptr, 10);
  if (n == 0 || n > 64 || r > 64) return false;
  if (bays && n + r != bays) return false;
  *out = {static_cast<uint32_t>(n), static_cast<uint32_t>(r)};
  return true;
}

const char* to_string(PlatformReason r) {
  switch (r) {
    case PlatformReason::mount_mismatch:
      return "mount_mismatch";
    case PlatformReason::gpu_not_offered:
      return "gpu_not_offered";
    case PlatformReason::count_not_offered:
      return "count_not_offered";
    case PlatformReason::too_wide:
      return "too_wide";
    case PlatformReason::slot_widths:
      return "slot_widths";
    case PlatformReason::pcie_lanes:
      return "pcie_lanes";
    case PlatformReason::gpu_power:
      return "gpu_power";
    case PlatformReason::passive_cooling:
      return "passive_cooling";
    case PlatformReason::consumer_in_server:
      return "consumer_in_server";
    case PlatformReason::psu_capacity:
      return "psu_capacity";
    case PlatformReason::units_not_linked:
      return "units_not_linked";
    case PlatformReason::separate_units:
      return "separate_units";
    case PlatformReason::psu_unrated:
      return "psu_unrated";
    case PlatformReason::reduced_lanes:
      return "reduced_lanes";
    case PlatformReason::slot_width_unknown:
      return "slot_width_unknown";
    case PlatformReason::rounded_up:
      return "rounded_up";
    case PlatformReason::multi_node:
      return "multi_node";
    case PlatformReason::override_name:
      return "override_name";
    case PlatformReason::smallest_class:
      return "smallest_class";
    case PlatformReason::cheapest:
      return "cheapest";
  }
  return "?";
}

namespace {

// Below x8 per GPU the host link halves again; no vendor ships GPU slots narrower than x8.
constexpr uint32_t kMinLanesPerGpu = 8;

uint32_t lanes_each(const PlatformModel& p, uint32_t n) {
  if (n == 0) return 0;
  return std::min(p.gpu_lanes_each, p.gpu_lanes_total / n);
}

// The chassis' PSUs are published (count and rating): their capacity can be checked.
bool psu_rated(const PlatformModel& p) {
  return p.gpu_mount == GpuMount::integrated || (p.psu.watts > 0 && p.psu.bays_published);
}

// Rejections a reader weighs first: machines the GPU was turned down by on fit (widths, lanes,
// power, airflow, counts) before those that are simply not sold with it, then the class nearest
// the chosen one (for a desktop plan: the workstations before the servers); catalog order within.
void order_rejections(const std::vector<PlatformModel>& catalog, PlatformChoice& c) {
  if (c.rejected.size() < 2) return;
  const int chosen =
      c.index >= 0 ? class_rank(catalog[static_cast<size_t>(c.index)].platform_class) : -1;
  // Each rejection's key once (the class is looked up by id): (only unsold, class distance).
  std::vector<std::pair<std::pair<bool, int>, size_t>> keys;
  keys.reserve(c.rejected.size());
  for (size_t i = 0; i < c.rejected.size(); ++i) {
    const PlatformRejection& x = c.rejected[i];
    const bool unsold = x.only_not_sold();
    int distance = 0;
    if (chosen >= 0)
      for (const auto& p : catalog)
        if (p.id == x.platform_id) {
          distance = std::abs(class_rank(p.platform_class) - chosen);
          break;
        }
    keys.push_back({{unsold, distance}, i});  // the index keeps catalog order among equals
  }
  std::sort(keys.begin(), keys.end());
  std::vector<PlatformRejection> sorted;
  sorted.reserve(keys.size());
  for (const auto& k : keys) sorted.push_back(std::move(c.rejected[k.second]));
  c.rejected = std::move(sorted);
}

}  // namespace

int class_rank(PlatformClass c) {
  switch (c) {
    case PlatformClass::unified:
      return 0;
    case PlatformClass::desktop:
      return 1;
    case PlatformClass::workstation:
      return 2;
    case PlatformClass::server:
      return 3;
  }
  return 4;
}

bool PlatformRejection::only_not_sold() const {
  return std::all_of(reasons.begin(), reasons.end(), [](PlatformReason r) {
    return r == PlatformReason::gpu_not_offered || r == PlatformReason::mount_mismatch;
  });
}

namespace {

// What the blockers read of a GPU, worked out once per selection rather than per machine and
// count (the selection tries every count of every machine: thousands of checks per plan).
struct GpuFacts {
  const GpuSpec& g;
  GpuMount mount;
  double width;
  bool passive;
  bool consumer;
  explicit GpuFacts(const GpuSpec& gpu)
      : g(gpu),
        mount(gpu_mount(gpu)),
        width(card_slot_width(gpu)),
        passive(gpu_is_passive(gpu)),
        consumer(gpu.is_consumer()) {}
};

// Blockers as bits (1 << PlatformReason), so a check allocates nothing; kBlockerOrder is the order
// they are listed in.
using Blockers = uint32_t;
constexpr Blockers bit(PlatformReason r) {
  return Blockers{1} << static_cast<int>(r);
}
constexpr PlatformReason kBlockerOrder[] = {
    PlatformReason::mount_mismatch,    PlatformReason::gpu_not_offered,
    PlatformReason::count_not_offered, PlatformReason::too_wide,
    PlatformReason::slot_widths,       PlatformReason::pcie_lanes,
    PlatformReason::passive_cooling,   PlatformReason::consumer_in_server,
    PlatformReason::gpu_power,         PlatformReason::psu_capacity,
};

std::vector<PlatformReason> reasons_of(Blockers b) {
  std::vector<PlatformReason> v;
  for (const PlatformReason r : kBlockerOrder)
    if (b & bit(r)) v.push_back(r);
  return v;
}

// Every blocker but the PSU capacity, which needs the machine's power (psu_blocker).
Blockers fit_blockers(const PlatformModel& p, const GpuFacts& f, uint32_t n) {
  if (f.mount != p.gpu_mount) return bit(PlatformReason::mount_mismatch);
  Blockers b = 0;
  // Baseboards, superchip machines and unified computers are built around the chips they list (an
  // empty list offers none); PCIe machines list what was seen in them, not a limit.
  if (!p.generic && (f.mount != GpuMount::pcie || !p.gpu_ids.empty()) &&
      std::find(p.gpu_ids.begin(), p.gpu_ids.end(), f.g.id) == p.gpu_ids.end())
    b |= bit(PlatformReason::gpu_not_offered);
  if (std::find(p.gpu_counts.begin(), p.gpu_counts.end(), n) == p.gpu_counts.end())
    b |= bit(PlatformReason::count_not_offered);
  if (f.mount == GpuMount::pcie) {
    if (f.width > p.gpu_width_max) b |= bit(PlatformReason::too_wide);
    if (f.width * n > p.gpu_widths_total) b |= bit(PlatformReason::slot_widths);
    if (lanes_each(p, n) < kMinLanesPerGpu) b |= bit(PlatformReason::pcie_lanes);
    if (f.passive && !p.server_airflow) b |= bit(PlatformReason::passive_cooling);
    if (f.consumer && p.platform_class == PlatformClass::server)
      b |= bit(PlatformReason::consumer_in_server);
  }
  if (p.gpu_watts_each_max > 0 && f.g.board_power_w > p.gpu_watts_each_max)
    b |= bit(PlatformReason::gpu_power);
  return b;
}

// Whether the PSU capacity is checked at all: it is where the catalog rates the supplies.
bool psu_checked(const PlatformModel& p, const GpuFacts& f) {
  return f.mount == p.gpu_mount && f.mount != GpuMount::integrated && p.psu.watts > 0 &&
         p.psu.bays_published;
}

Blockers psu_blocker(const PlatformModel& p, double max_system_w) {
  // PSUs are rated by their DC output; the spares do not count.
  const double capacity = p.psu.watts * p.psu.redundancy.n;
  return max_system_w > 0 && max_system_w * p.psu.efficiency > capacity
             ? bit(PlatformReason::psu_capacity)
             : 0;
}

}  // namespace

std::vector<PlatformReason> platform_blockers(const PlatformModel& p, const GpuSpec& g, uint32_t n,
                                              double max_system_w) {
  const GpuFacts f(g);
  Blockers b = fit_blockers(p, f, n);
  if (!(b & bit(PlatformReason::mount_mismatch)) && psu_checked(p, f))
    b |= psu_blocker(p, max_system_w);
  return reasons_of(b);
}

PlatformChoice choose_platform(const std::vector<PlatformModel>& catalog, const GpuSpec& g,
                               uint32_t n_gpus, const std::string& override_id,
                               MaxPowerFn max_power, const GpuUnits& units) {
  if (!max_power) max_power = max_system_wall_w;
  PlatformChoice best;
  best.gpus_requested = std::max<uint32_t>(1, n_gpus);
  const uint32_t n = best.gpus_requested;
  // Ranking key, smaller is better: machines, GPUs bought, class, PSUs rated (a machine whose
  // supplies are published, so the BOM can name them and the capacity was checked, before one
  // whose are not), price (unpriced last); the catalog's order last.
  auto better = [&](const PlatformChoice& a, const PlatformChoice& b) {
    if (b.index < 0) return true;
    // A sourced machine before any generic row, whatever the count.
    const bool ga = catalog[static_cast<size_t>(a.index)].generic;
    const bool gb = catalog[static_cast<size_t>(b.index)].generic;
    if (ga != gb) return gb;
    if (a.nodes != b.nodes) return a.nodes < b.nodes;
    if (a.gpus_total() != b.gpus_total()) return a.gpus_total() < b.gpus_total();
    const auto& pa = catalog[static_cast<size_t>(a.index)];
    const auto& pb = catalog[static_cast<size_t>(b.index)];
    if (class_rank(pa.platform_class) != class_rank(pb.platform_class))
      return class_rank(pa.platform_class) < class_rank(pb.platform_class);
    if (psu_rated(pa) != psu_rated(pb)) return psu_rated(pa);
    const double ca = pa.price_usd * a.nodes, cb = pb.price_usd * b.nodes;
    if ((ca > 0) != (cb > 0)) return ca > 0;
    return ca < cb;
  };
  bool tie_on_price = false;
  const GpuFacts facts(g);
  const GpuMount mount = facts.mount;
  // All blockers of c GPUs in p, as a rejection lists them.
  const auto blockers_of = [&](const PlatformModel& p, uint32_t c) {
    Blockers b = fit_blockers(p, facts, c);
    if (psu_checked(p, facts)) b |= psu_blocker(p, max_power(p, g, c));
    if (!override_id.empty()) b &= ~bit(PlatformReason::consumer_in_server);
    return b;
  };
  for (size_t i = 0; i < catalog.size(); ++i) {
    const PlatformModel& p = catalog[i];
    if (!override_id.empty() && p.id != override_id) continue;
    // Another mount takes none of these GPUs at any count, and is not listed as turned down
    // unless named (below): skipped before its power is worked out.
    if (override_id.empty() && p.gpu_mount != mount) continue;
    bool any = false;
    // The count whose blockers the rejection lists: the largest count up to the request, else the
    // first; its blockers are worked out in full only if the machine is turned down.
    uint32_t nearest = 0;
    bool mismatch = false;
    for (uint32_t c : p.gpu_counts) {
      if (c == 0) continue;
      const Blockers fit = fit_blockers(p, facts, c);
      if (fit & bit(PlatformReason::mount_mismatch)) {
        mismatch = true;
        break;
      }
      if (nearest == 0 || c <= n) nearest = c;
      // A platform named with --platform takes a consumer card all the same: the buyer asked.
      const Blockers blocked =
          override_id.empty() ? fit : fit & ~bit(PlatformReason::consumer_in_server);
      // The PSU check (the machine's power) only for a count that fits otherwise.
      if (blocked || (psu_checked(p, facts) && psu_blocker(p, max_power(p, g, c)))) continue;
      PlatformChoice cand;
      cand.index = static_cast<int>(i);
      cand.gpus_requested = n;
      cand.gpus_per_node = c;
      cand.nodes = machines_for(n, c, units);
      any = true;
      cand.lanes_per_gpu = p.gpu_mount == GpuMount::pcie ? lanes_each(p, c) : 0;
      cand.slot_widths_per_node = p.gpu_mount == GpuMount::pcie ? card_slot_width(g) * c : 0;
      if (better(cand, best)) {
        const bool same_rank =
            best.index >= 0 && cand.gpus_total() == best.gpus_total() && cand.nodes == best.nodes &&
            class_rank(p.platform_class) ==
                class_rank(catalog[static_cast<size_t>(best.index)].platform_class) &&
            psu_rated(p) == psu_rated(catalog[static_cast<size_t>(best.index)]);
        tie_on_price = same_rank;
        cand.rejected = std::move(best.rejected);
        best = std::move(cand);
      }
    }
    if (any || (mount != p.gpu_mount && override_id.empty())) continue;
    const Blockers why = mismatch  ? bit(PlatformReason::mount_mismatch)
                         : nearest ? blockers_of(p, nearest)
                                   : 0;
    best.rejected.push_back(
        {p.id,
         why ? reasons_of(why) : std::vector<PlatformReason>{PlatformReason::count_not_offered}});
  }
  order_rejections(catalog, best);
  if (best.index < 0) return best;
  const PlatformModel& p = catalog[static_cast<size_t>(best.index)];
  if (!override_id.empty())
    best.reasons.push_back(PlatformReason::override_name);
  else
    best.reasons.push_back(tie_on_price ? PlatformReason::cheapest
                                        : PlatformReason::smallest_class);
  if (best.gpus_total() > n) best.reasons.push_back(PlatformReason::rounded_up);
  if (best.nodes > 1) best.reasons.push_back(PlatformReason::multi_node);
  if (best.nodes > 1 && p.gpu_mount == GpuMount::integrated) {
    best.reasons.push_back(PlatformReason::separate_units);
    // Beyond what the maker links together (DGX Spark: two): buyable, but an unsupported setup.
    if (p.units_linked_max > 0 && best.nodes > p.units_linked_max)
      best.reasons.push_back(PlatformReason::units_not_linked);
  }
  if ((p.psu.watts <= 0 || !p.psu.bays_published) && p.gpu_mount != GpuMount::integrated)
    best.reasons.push_back(PlatformReason::psu_unrated);
  if (p.gpu_mount == GpuMount::pcie) {
    if (g.slot_width <= 0) best.reasons.push_back(PlatformReason::slot_width_unknown);
    if (g.pcie_lanes && best.lanes_per_gpu < g.pcie_lanes)
      best.reasons.push_back(PlatformReason::reduced_lanes);
  }
  return best;
}

}  // namespace llmsize
