#include "llmsize/power.hpp"

#include <algorithm>
#include <cmath>

namespace llmsize {
namespace {
// ATX PSU ratings sold (W); server PSU modules come in 1600/2000/2400/2700/3000/3200 W.
const double kAtxPsuW[] = {550, 650, 750, 850, 1000, 1200, 1300, 1500, 1600};
const double kServerPsuW[] = {1600, 2000, 2400, 2700, 3000, 3200};
}  // namespace

void mains_draw(PowerPlan& p, double mains_v, uint32_t feeds) {
  p.amps = p.wall_w / mains_v;
  // Ordinary outlets: North America 120 V / 15 A -> 12 A continuous; 230 V Europe 16 A Schuko ->
  // 12.8 A continuous, 10 A (IEC C13, UK fused plugs 13 A) -> 8 A.
  const bool na = mains_v < 180;
  p.outlet_continuous_a = (na ? 15.0 : 10.0) * kContinuousDerate;
  p.fits_outlet = p.amps <= p.outlet_continuous_a;
  p.mains_v = mains_v;
  CircuitPlan& c = p.circuit;
  c.north_america = na;
  c.outlet_a = na ? 15.0 : 10.0;
  const auto pick = [&](CircuitKind kind, double rating_a) {
    c.kind = kind;
    c.rating_a = rating_a;
    c.continuous_a = rating_a * kContinuousDerate;
  };
  if (p.fits_outlet) {
    pick(CircuitKind::outlet, c.outlet_a);
  } else if (!na && p.amps <= 16.0 * kContinuousDerate) {
    pick(CircuitKind::circuit, 16.0);
  } else if (na && p.amps <= 20.0 * kContinuousDerate) {
    pick(CircuitKind::dedicated_circuit, 20.0);
  } else {
    pick(CircuitKind::dedicated_circuits, na ? 30.0 : 32.0);
    c.count = static_cast<uint32_t>(std::ceil(p.amps / c.continuous_a));
  }
  p.heat_btu_per_h = p.wall_w * kBtuPerHourPerWatt;
  p.needs_room_cooling = p.wall_w > kOfficeCoolingW;
  p.circuit.feeds = feeds;
}

PowerPlan plan_power(const PowerInput& in) {
  PowerPlan p;
  p.gpu_w = in.gpu_board_w * in.n_gpus * in.power_limit;
  p.cpu_w = platform_spec(in.platform).cpu_watts;
  p.ram_w = kDimmWatts * in.dimms;
  p.drives_w = kNvmeWatts * in.nvme_drives;
  p.board_fans_w = in.platform == Platform::server        ? 150.0
                   : in.platform == Platform::workstation ? 100.0
                                                          : 60.0;
  p.peak_w = p.gpu_w + p.cpu_w + p.ram_w + p.drives_w + p.board_fans_w;

  const double rating = p.peak_w / kPsuMaxLoad;
  p.psu_rating_w = rating;
  if (in.platform == Platform::server) {
    // Redundant modules: N modules carry the load, one more for redundancy (N+1).
    double module = kServerPsuW[sizeof kServerPsuW / sizeof kServerPsuW[0] - 1];
    for (double w : kServerPsuW)
      if (w * 2 >= rating || w >= 3000) {
        module = w;
        break;
      }
    const uint32_t n = static_cast<uint32_t>(std::ceil(rating / module));
    p.psu_w = module;
    p.psus = n + 1;
  } else {
    p.psus = 1;
    p.psu_w = 0;
    for (double w : kAtxPsuW)
      if (w >= rating) {
        p.psu_w = w;
        break;
      }
    if (p.psu_w == 0) {  // above 1600 W: two PSUs (or a server)
      p.psus = static_cast<uint32_t>(std::ceil(rating / 1600));
      p.psu_w = 1600;
    }
  }
  p.wall_w = p.peak_w / kPsuEfficiency;
  mains_draw(p, in.mains_v);
  p.energy_kwh_per_year = p.wall_w * in.duty_cycle * 8760 / 1000;
  return p;
}

}  // namespace llmsize
