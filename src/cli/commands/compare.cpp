#include "cli/commands/compare.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "cli/commands/estimate.hpp"
#include "cli/options/request.hpp"
#include "cli/render/compare_report.hpp"
#include "cli/render/report.hpp"
#include "llmsize/compare.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize::cli {
namespace {

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
  if (count > kMaxGpus)
    throw InputError("--compare: " + sanitize(item) + ": expected a count from 1 to " +
                     std::to_string(kMaxGpus));
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
