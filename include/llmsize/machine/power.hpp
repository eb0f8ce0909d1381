// Power, circuits and cooling.
#pragma once

#include <cstdint>
#include <string>

namespace llmsize {

// What a request says of power: the GPUs' cap, the site's mains and how busy the machine is.
struct PowerInput {
  double power_limit = 1.0;  // fraction of board power the GPUs are capped at (--power-limit)
  double mains_v = 230;      // 120 or 230 (and 100-240 in between)
  double duty_cycle = 0.5;   // share of the year busy, for energy
};

// North American mains (120 V outlets, 208/240 V circuits) below 180 V; 230 V and 400 V 3-phase
// elsewhere.
inline bool north_american_mains(double mains_v) {
  return mains_v < 180;
}

// The branch circuit the wall draw needs (worded by the CLI: src/cli/render/words.cpp).
enum class CircuitKind : uint8_t {
  outlet,              // one ordinary outlet: 15 A at 120 V, 10 A at 230 V
  circuit,             // 230 V: a 16 A circuit, not a 10 A outlet
  dedicated_circuit,   // 120 V: a dedicated 20 A circuit
  dedicated_circuits,  // `count` dedicated circuits: 30 A 208/240 V in North America, 32 A else
};

struct CircuitPlan {
  CircuitKind kind = CircuitKind::outlet;
  double rating_a = 0;         // of one outlet or circuit
  double continuous_a = 0;     // rating_a x kContinuousDerate
  double outlet_a = 0;         // the ordinary outlet's rating (15 A or 10 A)
  uint32_t count = 1;          // how many circuits
  bool north_america = false;  // mains below 180 V: 120 V outlets, 208/240 V circuits
  uint32_t feeds = 1;          // 2: a redundant machine on A and B feeds, `count` on each
  bool operator==(const CircuitPlan& o) const {
    return kind == o.kind && rating_a == o.rating_a && continuous_a == o.continuous_a &&
           outlet_a == o.outlet_a && count == o.count && north_america == o.north_america &&
           feeds == o.feeds;
  }
};

struct PowerPlan {
  double gpu_w = 0, cpu_w = 0, ram_w = 0, drives_w = 0, board_fans_w = 0;
  double peak_w = 0;  // DC load at full tilt
  double psu_w = 0;   // PSU rating so peak <= 80% of it, rounded to a sold size (per PSU)
  uint32_t psus = 1;  // servers: N+1 redundant
  double wall_w = 0;  // AC draw at peak: peak / PSU efficiency
  double amps = 0;    // at mains_v
  double mains_v = 0;
  double outlet_continuous_a = 0;  // what one ordinary outlet carries continuously
  bool fits_outlet = false;
  CircuitPlan circuit;
  double heat_btu_per_h = 0;        // wall_w x 3.412
  bool needs_room_cooling = false;  // wall_w above kOfficeCoolingW
  double energy_kwh_per_year = 0;
};

// 80 PLUS Platinum: >= 92% efficient at 50% load at 230 V (80 PLUS program), used for wall draw.
constexpr double kPsuEfficiency = 0.92;
// Continuous load on a branch circuit is limited to 80% of its rating (NEC 210.19(A), 210.20(A)).
constexpr double kContinuousDerate = 0.8;

// A DDR5 DIMM draws ~3-6 W under load (Micron DDR5 power calculator): 5 W each.
constexpr double kDimmWatts = 5.0;
// An NVMe drive draws ~6-9 W reading (Samsung 990 PRO datasheet): 8 W each.
constexpr double kNvmeWatts = 8.0;
// The PSU's peak load is at most this share of its rating (80%, the usual sizing margin).
constexpr double kPsuMaxLoad = 0.8;
// Heat above which an office's air conditioning no longer keeps up and a server room or rack
// cooling is planned (an assumption of llmsize's advice, as the checklist words it).
constexpr double kOfficeCoolingW = 1500;
// 1 W = 3.412 BTU/h.
constexpr double kBtuPerHourPerWatt = 3.412;

// From p.wall_w at mains_v: amps, whether one ordinary outlet carries it (120 V 15 A or 230 V
// 10 A at 80% continuous), the circuit advice and the heat in BTU/h.
// feeds = 2: a redundant machine on A and B feeds, each sized for the whole load.
void mains_draw(PowerPlan& p, double mains_v, uint32_t feeds = 1);

}  // namespace llmsize
