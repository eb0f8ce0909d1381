#include "cli/render/platform_listing.hpp"

#include "cli/render/words.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

using ojson = nlohmann::ordered_json;

ojson num_or_null(double v) {
  return v > 0 ? ojson(v) : ojson();
}

// "8", "4, 8", "1-8" (a PCIe machine takes any count up to its slots).
std::string counts_text(const PlatformModel& p) {
  const auto& c = p.gpu_counts;
  if (c.empty()) return "-";
  bool run = c.size() > 2;
  for (size_t i = 1; i < c.size() && run; ++i) run = c[i] == c[i - 1] + 1;
  if (run) return fmt::format("{}-{}", c.front(), c.back());
  return fmt::format("{}", fmt::join(c, ", "));
}

// The PSUs as the catalog states them; what no source gave is said to be unpublished.
std::string psu_text(const PlatformModel& p) {
  if (p.gpu_mount == GpuMount::integrated)
    return p.psu.watts > 0 ? fmt::format("{:.0f} W supply", p.psu.watts) : "built in";
  if (p.psu.atx) return fmt::format("1 ATX, up to {:.0f} W", p.psu.watts);
  if (!p.psu.bays_published) return "not published";
  // Bays without a published rating say so rather than "2 × ? W".
  if (!(p.psu.watts > 0))
    return fmt::format("{} bays; rating{} unpublished", p.psu.bays,
                       p.psu.redundancy_published ? "" : ", scheme");
  std::string s =
      fmt::format("{} × {} W", p.psu.bays, group_digits(static_cast<uint64_t>(p.psu.watts)));
  s += p.psu.redundancy_published ? ", " + to_string(p.psu.redundancy) : ", scheme not published";
  return s;
}

ojson entry(const PlatformModel& p) {
  const bool psu_count = p.psu.bays_published && p.gpu_mount != GpuMount::integrated;
  return {
      {"id", p.id},
      {"name", p.name},
      {"vendor", p.vendor},
      {"class", to_string(p.platform_class)},
      {"form_factor", p.form_factor},
      {"rack_units", p.rack_units ? ojson(p.rack_units) : ojson()},
      {"gpu_mount", to_string(p.gpu_mount)},
      {"gpu_counts", p.gpu_counts},
      {"gpu_ids", p.gpu_ids},
      {"cpu_sockets", p.cpu_sockets},
      {"cpu_model", p.cpu_model},
      {"cpu_cores_per_socket", p.cpu_cores_per_socket ? ojson(p.cpu_cores_per_socket) : ojson()},
      {"cpu_tdp_w", num_or_null(p.cpu_tdp_w)},
      {"cpu_tdp_assumed", p.cpu_tdp_assumed},
      {"memory_channels_per_socket",
       p.memory_channels_per_socket ? ojson(p.memory_channels_per_socket) : ojson()},
      {"dimm_slots", p.dimm_slots ? ojson(p.dimm_slots) : ojson()},
      {"ram_shipped_gib", p.ram_shipped_gib ? ojson(p.ram_shipped_gib) : ojson()},
      // x16 slots for NICs beside the GPU positions; null where no source gives the layout.
      {"nic_slots", p.nic_slots_published ? ojson(p.nic_slots) : ojson()},
      {"psu_count", psu_count ? ojson(p.psu.bays) : ojson()},
      {"psu_watts", num_or_null(p.psu.watts)},
      {"psu_redundancy",
       psu_count && p.psu.redundancy_published ? ojson(to_string(p.psu.redundancy)) : ojson()},
      {"psu_atx", p.psu.atx},
      {"max_power_w", num_or_null(p.max_power_w)},
      {"typical_power_w", num_or_null(p.typical_power_w)},
      {"idle_power_w", num_or_null(p.idle_power_w)},
      {"price_usd", num_or_null(p.price_usd)},
      {"price_source", p.price_usd > 0 ? ojson(p.price_source) : ojson()},
      {"generic", p.generic},
      {"basis", p.generic ? ojson(p.basis) : ojson()},
      {"source", p.source}};
}

std::string csv_cell(const ojson& v) {
  std::string s;
  if (v.is_null()) return "";
  if (v.is_string()) {
    s = v.get<std::string>();
  } else if (v.is_array()) {
    for (const auto& x : v)
      s += (s.empty() ? "" : ";") + (x.is_string() ? x.get<std::string>() : x.dump());
  } else {
    s = v.dump();
  }
  return v.is_string() || v.is_array() ? csv_text_cell(s) : s;
}

}  // namespace

std::string render_platforms(const std::vector<PlatformModel>& catalog, const std::string& format) {
  ojson arr = ojson::array();
  for (const auto& p : catalog) arr.push_back(entry(p));
  if (format == "json") return ojson({{"schema_version", 1}, {"platforms", arr}}).dump(2) + "\n";
  if (format == "csv") {
    std::string o;
    if (arr.empty()) return o;
    for (const auto& [k, v] : arr.front().items()) o += (o.empty() ? "" : ",") + k;
    o += "\n";
    for (const auto& e : arr) {
      std::string row;
      bool first = true;
      for (const auto& [k, v] : e.items()) {
        row += (first ? "" : ",") + csv_cell(v);
        first = false;
      }
      o += row + "\n";
    }
    return o;
  }
  std::string o = fmt::format("{:<36} {:<11} {:<10} {:>6}  {:<30} {:<34} {:>8} {:>9}\n", "id",
                              "class", "mount", "GPUs", "CPU", "PSUs", "max W", "price");
  for (const auto& p : catalog) {
    const std::string cpu =
        p.gpu_mount == GpuMount::integrated
            ? p.cpu_model
            : fmt::format("{} × {}", p.cpu_sockets, p.cpu_model.empty() ? "?" : p.cpu_model);
    o += fmt::format("{:<36} {:<11} {:<10} {:>6}  {:<30} {:<34} {:>8} {:>9}\n", p.id,
                     to_string(p.platform_class), to_string(p.gpu_mount), counts_text(p),
                     cpu.size() > 30 ? cpu.substr(0, 27) + "..." : cpu, psu_text(p),
                     p.max_power_w > 0 ? group_whole(p.max_power_w) : std::string("-"),
                     p.price_usd > 0 ? usd_words(p.price_usd) : std::string("-"));
  }
  o += "\n  PSUs: count × rating, redundancy (carrying + spares) as the vendor states them; \"not "
       "published\": no source in the catalog gives them (never guessed).\n  max W: the vendor's "
       "published maximum at the wall; price: a list or street price where published. "
       "--platform ID picks one.\n  generic-*: no vendor's machine but the class a GPU no "
       "sourced row takes falls back to (--format json: basis).\n";
  return o;
}

}  // namespace llmsize::cli
