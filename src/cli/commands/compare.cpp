#include "cli/commands/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands/estimate.hpp"
#include "cli/options/request.hpp"
#include "cli/render/compare_report.hpp"
#include "cli/render/report.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/plan/compare.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize::cli {
namespace {

// "rtx-4090x2", "2xrtx-4090" or "rtx-4090*2": the name and the count (none when none is given).
std::pair<std::string, std::optional<uint32_t>> split_count(const std::string& item) {
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
  return {item, std::nullopt};
}

// One --compare entry: a catalog GPU (a discrete card or a unified computer's SoC) or a platform
// id (its GPU, and for a baseboard server its GPU count).
CompareSystem resolve_entry(const std::string& item, const Catalog& cat,
                            const std::vector<PlatformModel>& platforms) {
  const auto [name, given] = split_count(item);
  if (given && (*given == 0 || *given > kMaxGpus))
    throw InputError("--compare: " + sanitize(item) + ": expected a count from 1 to " +
                     std::to_string(kMaxGpus) + ", got " + std::to_string(*given));
  const uint32_t count = given.value_or(0);
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

// What --compare does not apply is refused rather than dropped: one launch command, the largest
// context of one set of GPUs, the formulas of one plan, one plot, and the recommendation list.
void check_compare_flags(const Options& o) {
  const auto refuse = [](const std::string& flag, const std::string& why) {
    throw InputError("--compare: " + flag + " does not apply (" + why + "); drop it");
  };
  if (!o.emit.empty()) refuse("--emit", "it prints the launch command of one plan");
  if (o.ctx_max)
    refuse("--ctx max", "it finds the largest context of one set of GPUs; give --ctx N");
  if (o.explain) refuse("--explain", "it prints the formulas of one plan");
  if (!o.planning.plot.empty()) refuse("--plot", "it draws one plan");
  if (flag_given(o, "--top"))
    refuse("--top", "the comparison lists each system once");
}

}  // namespace

std::string run_compare(const Options& o, const Catalog& cat) {
  check_compare_flags(o);
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
    if (items.size() > kMaxCompareEntries)
      throw InputError(
          fmt::format("--compare: {} entries, at most {}", items.size(), kMaxCompareEntries));
    // An entry named twice (rtx-4090x2,2xrtx-4090) is planned once, where it first appears.
    for (const auto& it : items) {
      CompareSystem s = resolve_entry(it, cat, *base.platforms);
      const bool seen = std::any_of(systems.begin(), systems.end(), [&](const CompareSystem& x) {
        return x.gpu_id == s.gpu_id && x.count == s.count && x.platform_id == s.platform_id;
      });
      if (!seen) systems.push_back(std::move(s));
    }
  }
  if (systems.empty())
    throw InputError(
        "--compare: no system to compare (no unified computer in the catalog and "
        "no GPU holds the model)");
  std::vector<Comparison> v = compare_systems(base, systems);
  // Entries that plan the same system (rtx-4090 and rtx-4090x1 when one card holds the model)
  // are one row, where the first appears.
  const auto same = [](const Comparison& a, const Comparison& b) {
    const auto id = [](const Plan& p) {
      return p.system && p.system->platform ? p.system->platform->id : std::string();
    };
    return a.plan.gpu && b.plan.gpu && a.plan.gpu->gpu.id == b.plan.gpu->gpu.id &&
           a.plan.gpu->count == b.plan.gpu->count && id(a.plan) == id(b.plan);
  };
  for (size_t i = 1; i < v.size();) {
    if (std::any_of(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i),
                    [&](const Comparison& x) { return same(x, v[i]); }))
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
    else
      ++i;
  }
  std::vector<Report> reports;
  for (const auto& c : v) check_ram_channels(o, c.plan);
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
  return render_compare_table(v, reports.front());
}

}  // namespace llmsize::cli
