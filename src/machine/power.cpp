#include "llmsize/machine/power.hpp"

#include <algorithm>
#include <cmath>

namespace llmsize {
void mains_draw(PowerPlan& p, double mains_v, uint32_t feeds) {
  p.amps = p.wall_w / mains_v;
  // Ordinary outlets: North America 120 V / 15 A -> 12 A continuous; 230 V Europe 16 A Schuko ->
  // 12.8 A continuous, 10 A (IEC C13, UK fused plugs 13 A) -> 8 A.
  const bool na = north_american_mains(mains_v);
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

}  // namespace llmsize
