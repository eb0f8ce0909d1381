#include "cli/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli/app.hpp"
#include "cli/report.hpp"
#include "cli/request.hpp"
#include "cli/words.hpp"
#include "llmsize/compare.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

std::string group(uint64_t v) {
  return group_digits(v);
}
std::string usd(double v) {
  return "$" + group_digits(static_cast<uint64_t>(std::llround(v)));
}
std::string watts(double w) {
  return group_digits(static_cast<uint64_t>(std::llround(w))) + " W";
}

// "rtx-4090x2", "2xrtx-4090" or "rtx-4090*2": the name and the count (0 when none is given).
std::pair<std::string, uint32_t> split_count(const std::string& item) {
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 4 &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c); });
  };
  for (const char sep : {'*', 'x'}) {
    const auto at = item.rfind(sep);
    if (at != std::string::npos && at > 0 && digits(item.substr(at + 1)))
      return {item.substr(0, at), static_cast<uint32_t>(std::stoul(item.substr(at + 1)))};
    const auto lead = item.find(sep);
    if (lead != std::string::npos && lead > 0 && digits(item.substr(0, lead)))
      return {item.substr(lead + 1), static_cast<uint32_t>(std::stoul(item.substr(0, lead)))};
  }
  return {item, 0};
}

// One --compare entry: a catalog GPU (a discrete card or a unified computer's SoC) or a platform
// id (its GPU, and for a baseboard server its GPU count).
CompareSystem resolve_entry(const std::string& item, const Catalog& cat,
                            const std::vector<PlatformModel>& platforms) {
  const auto [name, count] = split_count(item);
  if (count > 1024)
    throw InputError("--compare: " + sanitize(item) + ": expected a count from 1 to 1024");
  if (const PlatformModel* p = find_platform(platforms, name)) {
    if (p->gpu_ids.empty())
      throw InputError("--compare: platform '" + p->id +
                       "' is sold with any PCIe GPU: name the GPU instead (e.g. rtx-4090x2)");
    return {p->gpu_ids.front(),
            count ? count : (p->platform_class == PlatformClass::unified ? 0 : p->max_gpus()),
            p->id};
  }
  const auto* g = cat.find_gpu(name);
  if (!g)
    throw InputError("--compare: unknown GPU or platform '" + sanitize(name) + "'" +
                     cat.suggest_gpu(name) + "; see llmsize gpus and data/platforms.json");
  return {g->spec.id, count, ""};
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
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
    return fmt::format("{} × {} ({})", n, p.gpu->gpu.name, m.id);
  }
  return fmt::format("{} × {}", n, p.gpu->gpu.name);
}

std::string num_or_dash(double v, const char* f) {
  return v > 0 ? fmt::format(fmt::runtime(f), v) : std::string("-");
}

std::string render_table(const std::vector<Comparison>& v, const Report& first) {
  std::string o = fmt::format(
      "Compare   {} at {}, context {}: the same model on each system (--compare)\n\n",
      first.model.spec.name, first.quant ? first.quant->id : "", group(first.config.kv.n_ctx));
  struct Col {
    std::vector<std::string> cells;
  };
  const std::vector<std::string> head = {"system",  "units", "memory", "fit",
                                         "decode",  "TTFT",  "price",  "idle",
                                         "typical", "max",   "kWh/yr", "energy/yr"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : v) {
    const Plan& p = c.plan;
    std::vector<std::string> r;
    r.push_back(label(c));
    const bool machine = p.system && p.system->platform;
    r.push_back(p.gpu ? (c.unified && machine
                             ? fmt::format("{} unit{}", p.system->choice.nodes,
                                           p.system->choice.nodes == 1 ? "" : "s")
                             : fmt::format("{} GPU{}", p.gpu->count, p.gpu->count == 1 ? "" : "s"))
                      : "-");
    r.push_back(c.usable_bytes_total ? fmt::format("{:.0f} GiB", gib_of(c.usable_bytes_total))
                                     : "-");
    r.push_back(
        p.fit ? fmt::format("{} {:+.0f}%", to_string(p.fit->fit), p.fit->headroom_fraction * 100)
              : "-");
    r.push_back(p.speed ? fmt::format("{:.1f} tok/s", p.speed->decode_tokens_per_s) : "-");
    r.push_back(p.speed ? fmt::format("{:.2f} s", p.speed->time_to_first_token_s) : "-");
    const CostPlan* cost = p.machine_cost ? &*p.machine_cost : p.cost ? &*p.cost : nullptr;
    r.push_back(cost && cost->priced ? usd(cost->capex_usd) + (cost->complete ? "" : "+")
                                     : "no price");
    // 0 W: the catalog has no power figure for the machine (shown as unknown, not as zero).
    const bool rated = machine && p.system->max_wall_w_total > 0;
    r.push_back(rated ? watts(c.idle_wall_w_total) : "-");
    r.push_back(rated ? watts(p.system->typical_wall_w_total) : "-");
    r.push_back(rated ? watts(p.system->max_wall_w_total) : "-");
    r.push_back(rated && p.machine_power
                    ? num_or_dash(p.machine_power->energy_kwh_per_year, "{:.0f}")
                    : "-");
    r.push_back(rated && cost ? usd(cost->energy_usd_per_year) : "-");
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
       "or no (its headroom);\n  decode per sequence; TTFT for a " +
       group(first.speed_input.prompt_tokens) +
       "-token prompt; price: the bill of materials (+: some lines unpriced);\n  idle, typical "
       "(the duty cycle's mix) and max at the wall, all units; energy from the typical draw.\n";
  for (const auto& c : v)
    if (c.unified && c.plan.system && c.plan.system->platform && c.plan.system->choice.nodes > 1)
      o += fmt::format(
          "  {}: {} separate machines linked over {}; the layers split across them, not one "
          "chassis\n",
          c.plan.system->platform->name, c.plan.system->choice.nodes,
          c.plan.system->platform->unit_link.empty() ? "the network"
                                                     : c.plan.system->platform->unit_link);
  for (const auto& c : v)
    if (c.plan.gpu && c.plan.system && !c.plan.system->platform)
      o += fmt::format("  {}: no catalog platform takes it: {}\n", label(c),
                       c.plan.system->choice.rejected.empty()
                           ? std::string("no platform for this GPU")
                           : std::string("see llmsize --gpu ") + c.system.gpu_id);
  return o;
}

}  // namespace

std::string run_compare(const Options& o, const Catalog& cat) {
  if (!o.gpu.empty() || o.gpus)
    throw InputError(
        "--compare: plans each system itself; drop --gpu/--gpus (name them in the "
        "list: --compare m3-ultra,rtx-4090x2)");
  if (!o.platform.empty())
    throw InputError("--compare: drop --platform (name platforms in the list)");
  if (o.format != "table" && o.format != "json" && o.format != "csv")
    throw InputError("--compare: --format table, json or csv, got '" + sanitize(o.format) + "'");
  ResolvedRequest rq;
  resolve_request(o, cat, rq);
  const PlanRequest& base = rq.request;
  std::vector<CompareSystem> systems;
  const auto items = split_list(o.compare);
  if (items.empty() || (items.size() == 1 && items[0] == "auto")) {
    systems = default_comparison(base);
  } else {
    for (const auto& it : items) systems.push_back(resolve_entry(it, cat, *base.platforms));
  }
  if (systems.empty())
    throw InputError(
        "--compare: no system to compare (no unified computer in the catalog and "
        "no GPU holds the model)");
  const std::vector<Comparison> v = compare_systems(base, systems);
  std::vector<Report> reports;
  for (const auto& c : v) reports.push_back(make_report(rq, c.plan, false));
  if (o.format == "json") {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const auto& r : reports) arr.push_back(nlohmann::ordered_json::parse(render_json(r)));
    return arr.dump(2) + "\n";
  }
  if (o.format == "csv") {
    // One header (the first plan's columns) and one row per system.
    std::string out;
    for (size_t i = 0; i < reports.size(); ++i) {
      const std::string c = render_csv(reports[i]);
      const auto nl = c.find('\n');
      out += i == 0 ? c : c.substr(nl + 1);
    }
    return out;
  }
  return render_table(v, reports.front());
}

}  // namespace llmsize::cli
