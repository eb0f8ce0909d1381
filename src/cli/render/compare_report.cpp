#include "cli/render/compare_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cli/render/words.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

std::string group(uint64_t v) {
  return group_digits(v);
}

std::string label(const Comparison& c) {
  const Plan& p = c.plan;
  if (!p.gpu) return c.system.gpu_id;
  const uint32_t n = p.gpu->count;
  if (p.system && p.system->platform) {
    const PlatformModel& m = *p.system->platform;
    if (c.unified)
      return (p.system->choice.nodes > 1 ? fmt::format("{} × ", p.system->choice.nodes)
                                         : std::string()) +
             m.name;
    // The GPUs bought: a board of 4 for one SXM module needed, two desktops of 2 for 3 cards;
    // the price and power columns are theirs.
    const uint32_t bought = p.system->choice.gpus_total();
    const uint32_t nodes = p.system->choice.nodes;
    return fmt::format("{} × {} ({}{}{})", bought, p.gpu->gpu.name, m.id,
                       nodes > 1 ? fmt::format(" × {}", nodes) : std::string(),
                       bought > n ? fmt::format(", {} needed", n) : std::string());
  }
  return fmt::format("{} × {}", n, p.gpu->gpu.name);
}

// The GPUs of the machines planned (what the price and power columns are for), else the plan's.
uint32_t gpus_bought(const Plan& p) {
  return p.system && p.system->platform ? p.system->choice.gpus_total() : p.gpu->count;
}

}  // namespace

std::string render_compare_table(const std::vector<Comparison>& v, const Report& first) {
  std::string o = fmt::format(
      "Compare   {} at {}, context {}: the same model on each system (--compare)\n\n",
      first.model.spec.name, first.quant ? first.quant->id : "", group(first.config.kv.n_ctx));
  struct Col {
    std::vector<std::string> cells;
  };
  // A serving plan's speed is its step model's (#20, one throughput): each user's tokens/s, the
  // aggregate of all replicas and the TTFT at the workload's prompts; else the single stream's.
  const bool serving = std::any_of(v.begin(), v.end(),
                                   [](const Comparison& c) { return c.plan.serving.has_value(); });
  std::vector<std::string> head = {"system", "units", "memory", "fit"};
  for (const char* h : serving ? std::vector<const char*>{"per user", "aggregate", "TTFT"}
                               : std::vector<const char*>{"decode", "TTFT"})
    head.emplace_back(h);
  for (const char* h : {"price", "idle", "typical", "max", "kWh/yr", "energy/yr"})
    head.emplace_back(h);
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : v) {
    const Plan& p = c.plan;
    std::vector<std::string> r;
    r.push_back(label(c));
    const bool machine = p.system && p.system->platform;
    r.push_back(p.gpu ? (c.unified && machine ? fmt::format("{} unit{}", p.system->choice.nodes,
                                                            p.system->choice.nodes == 1 ? "" : "s")
                                              : fmt::format("{} GPU{}", gpus_bought(p),
                                                            gpus_bought(p) == 1 ? "" : "s"))
                      : "-");
    r.push_back(c.usable_bytes_total ? fmt::format("{:.0f} GiB", gib_of(c.usable_bytes_total))
                                     : "-");
    r.push_back(p.fit ? fmt::format("{} {:+.0f}%", to_string(p.fit->fit),
                                    percent_of(p.fit->headroom_fraction))
                      : "-");
    const bool served = p.serving && p.serving->estimate.fits && p.speed;
    if (serving) {
      r.push_back(served
                      ? fmt::format("{:.1f} tok/s", p.serving->estimate.per_user_tokens_per_s.value)
                      : "-");
      r.push_back(served ? fmt::format("{:.0f} tok/s", p.speed->aggregate_tokens_per_s) : "-");
    } else {
      r.push_back(p.speed ? fmt::format("{:.1f} tok/s", p.speed->decode_tokens_per_s) : "-");
    }
    r.push_back(p.speed && (!serving || served)
                    ? fmt::format("{:.2f} s", p.speed->time_to_first_token_s)
                    : "-");
    const CostPlan* cost = (p.cost ? &*p.cost : nullptr);
    r.push_back(cost && cost->priced ? hardware_price_words(*cost) : "no price");
    // 0 W: the catalog has no power figure for the machine (shown as unknown, not as zero).
    const bool rated = machine && p.system->max_wall_w_total > 0;
    r.push_back(rated ? watts_words(c.idle_wall_w_total) : "-");
    r.push_back(rated ? watts_words(p.system->typical_wall_w_total) : "-");
    r.push_back(rated ? watts_words(p.system->max_wall_w_total) : "-");
    r.push_back(rated && p.power && p.power->energy_kwh_per_year > 0
                    ? group_whole(p.power->energy_kwh_per_year)
                    : "-");
    r.push_back(rated && cost ? usd_words(cost->energy_usd_per_year) : "-");
    rows.push_back(std::move(r));
  }
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto line = [&](const std::vector<std::string>& r) {
    std::string s = " ";
    for (size_t i = 0; i < r.size(); ++i)
      s += i == 0 ? fmt::format(" {:<{}}", r[i], w[i]) : fmt::format("  {:>{}}", r[i], w[i]);
    return s + "\n";
  };
  o += line(head);
  for (const auto& r : rows) o += line(r);
  o += "\n  memory: what the model may use on all units (unified: the share the OS or firmware "
       "gives the GPU);\n  fit: with the requested headroom, tight inside the engine's margin, "
       "or no (its headroom);\n  " +
       (serving && first.serving
            ? fmt::format("per user: each user's decode speed under the serving step model, "
                          "aggregate: output tok/s of all replicas, TTFT: the mean time to first "
                          "token, at {} users of {}-token prompts and {}-token answers",
                          first.serving->workload.users, group(first.serving->workload.isl),
                          group(first.serving->workload.osl))
            : "decode per sequence; TTFT for a " + group(first.speed_input.prompt_tokens) +
                  "-token prompt") +
       ";\n  price: the bill of materials (\"at least\": some lines unpriced);\n  idle, "
       "typical "
       "(the duty cycle's mix) and max at the wall, all units; energy from the typical draw.\n";
  for (const auto& c : v)
    if (c.unified && c.plan.system && c.plan.system->platform && c.plan.system->choice.nodes > 1)
      o += fmt::format(
          "  {}: {} separate machines linked over {}; the layers split across them, not one "
          "chassis{}\n",
          c.plan.system->platform->name, c.plan.system->choice.nodes,
          c.plan.system->platform->unit_link.empty() ? "the network"
                                                     : c.plan.system->platform->unit_link,
          std::find(c.plan.system->choice.reasons.begin(), c.plan.system->choice.reasons.end(),
                    PlatformReason::units_not_linked) != c.plan.system->choice.reasons.end()
              ? fmt::format(" (more than the {} its maker links: an unsupported setup)",
                            c.plan.system->platform->units_linked_max)
              : std::string());
  for (const auto& c : v)
    if (c.plan.gpu && c.plan.system && !c.plan.system->platform)
      o += fmt::format("  {}: no catalog platform takes it: {}\n", label(c),
                       c.plan.system->choice.rejected.empty()
                           ? std::string("no platform for this GPU")
                           : std::string("see llmsize --gpu ") + c.system.gpu_id);
  return o;
}

}  // namespace llmsize::cli
