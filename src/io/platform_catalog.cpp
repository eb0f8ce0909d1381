#include "llmsize/io/platform_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "embedded_catalogs.hpp"
#include "llmsize/io/error.hpp"

namespace llmsize {
namespace {

using json = nlohmann::json;

// The largest ATX PSU sold (W): the ceiling of a desktop's supply.
constexpr double kLargestAtxPsuW = 1600;

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// Reads fields of one object, every error naming the file and the JSON path.
struct Reader {
  std::string where;
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(where + ": " + path + ": " + what);
  }
  const json* get(const json& o, const char* key) const {
    if (!o.contains(key) || o[key].is_null()) return nullptr;
    return &o[key];
  }
  const json& object(const json& o, const std::string& path, const char* key) const {
    const json* v = get(o, key);
    if (!v) fail(path + "/" + key, "missing (expected an object)");
    if (!v->is_object()) fail(path + "/" + key, "expected an object, got " + v->dump());
    return *v;
  }
  std::string str(const json& o, const std::string& path, const char* key, bool required) const {
    const json* v = get(o, key);
    if (!v) {
      if (required) fail(path + "/" + key, "missing (expected a string)");
      return {};
    }
    if (!v->is_string()) fail(path + "/" + key, "expected a string, got " + v->dump());
    return v->get<std::string>();
  }
  double num(const json& o, const std::string& path, const char* key, bool required, double lo,
             double hi) const {
    const json* v = get(o, key);
    if (!v) {
      if (required) fail(path + "/" + key, "missing (expected a number)");
      return 0;
    }
    if (!v->is_number()) fail(path + "/" + key, "expected a number, got " + v->dump());
    const double d = v->get<double>();
    if (!(d >= lo && d <= hi))
      fail(path + "/" + key,
           "out of range: " + v->dump() + " (expected " + fmt(lo) + " to " + fmt(hi) + ")");
    return d;
  }
  uint32_t count(const json& o, const std::string& path, const char* key, bool required,
                 uint32_t hi) const {
    const double d = num(o, path, key, required, 0, hi);
    if (d != std::floor(d)) fail(path + "/" + key, "expected a whole number, got " + fmt(d));
    return static_cast<uint32_t>(d);
  }
  bool flag(const json& o, const std::string& path, const char* key) const {
    const json* v = get(o, key);
    if (!v) return false;
    if (!v->is_boolean()) fail(path + "/" + key, "expected true or false, got " + v->dump());
    return v->get<bool>();
  }
  // "sources" may be a string or an object of strings: joined for the BOM's provenance.
  std::string sources(const json& o, const std::string& path) const {
    const json* v = get(o, "sources");
    if (!v) v = get(o, "source");
    if (!v) fail(path + "/sources", "missing (every platform names where its facts were read)");
    if (v->is_string()) return v->get<std::string>();
    if (!v->is_object()) fail(path + "/sources", "expected a string or an object of strings");
    std::string r;
    for (const auto& [k, s] : v->items()) {
      if (!s.is_string()) fail(path + "/sources/" + k, "expected a string");
      if (!r.empty()) r += " ; ";
      r += k + ": " + s.get<std::string>();
    }
    return r;
  }
  static std::string fmt(double d) {
    std::ostringstream s;
    s << d;
    return s.str();
  }
};

PlatformClass parse_class(const Reader& r, const std::string& path, const std::string& s) {
  if (s == "desktop") return PlatformClass::desktop;
  if (s == "workstation") return PlatformClass::workstation;
  if (s == "server") return PlatformClass::server;
  if (s == "unified") return PlatformClass::unified;
  r.fail(path, "unknown class \"" + s + "\" (expected desktop, workstation, server or unified)");
}

// gpu.form_factor of the catalog: sxm-baseboard | oam-baseboard | superchip | superchip-tray |
// pcie | soc.
GpuMount parse_mount(const Reader& r, const std::string& path, const std::string& s) {
  if (s == "pcie") return GpuMount::pcie;
  if (s == "sxm-baseboard") return GpuMount::sxm;
  if (s == "oam-baseboard") return GpuMount::oam;
  if (s == "superchip" || s == "superchip-tray") return GpuMount::superchip;
  if (s == "soc") return GpuMount::integrated;
  r.fail(path, "unknown form_factor \"" + s +
                   "\" (expected pcie, sxm-baseboard, oam-baseboard, superchip, superchip-tray or "
                   "soc)");
}

// Maximum power of the catalog's CPU models where the row gives none (cpu.tdp_w), by the model
// string: vendor specification pages. Desktop sockets take their top SKU's limit.
struct CpuTdp {
  const char* model;  // a substring of cpu.model
  double tdp_w;
  const char* source;
};
const CpuTdp kCpuTdp[] = {
    {"Xeon Platinum 8480", 350, "Intel ARK: Xeon Platinum 8480+ 350 W TDP"},
    {"Xeon Platinum 8570", 350, "Intel ARK: Xeon Platinum 8570 350 W TDP"},
    {"Xeon Platinum 8568Y+", 350, "Intel ARK: Xeon Platinum 8568Y+ 350 W TDP"},
    {"Xeon Platinum 8468", 350, "Intel ARK: Xeon Platinum 8468 350 W TDP"},
    {"Xeon 6979P", 500, "Intel ARK: Xeon 6979P 500 W TDP"},
    {"Xeon Gold 5416S", 150, "Intel ARK: Xeon Gold 5416S 150 W TDP"},
    {"EPYC 7742", 225, "AMD EPYC 7742 product page: 225 W default TDP"},
    {"EPYC 9575F", 400, "AMD EPYC 9575F product page: 400 W default TDP"},
    {"EPYC 9655", 400, "AMD EPYC 9655 product page: 400 W default TDP"},
    {"EPYC 9475F", 400, "AMD EPYC 9475F product page: 400 W default TDP"},
    {"EPYC 9965", 500, "AMD EPYC 9965 product page: 500 W default TDP"},
    {"Ryzen 7000/9000 (AM5)", 170, "AMD Ryzen 9 7950X / 9950X product pages: 170 W TDP"},
    {"Core Ultra 200S", 250, "Intel ARK: Core Ultra 9 285K 250 W maximum turbo power"},
};

// Class values where the CPU model has no TDP on file: the platform-class CPUs of host.cpp
// (desktop 170 W, workstation 350 W, server 360 W), per socket.
double class_tdp_w(PlatformClass c) {
  return c == PlatformClass::desktop ? 170 : c == PlatformClass::workstation ? 350 : 360;
}

// A measurement given as a number or as {"low": a, "high": b}: the number, or the midpoint.
double measured(const Reader& r, const json& o, const std::string& path, const char* key) {
  const json* v = r.get(o, key);
  if (!v) return 0;
  if (v->is_number()) return r.num(o, path, key, false, 0, 1e6);
  if (v->is_object()) {
    const std::string p = path + "/" + key;
    return (r.num(*v, p, "low", true, 0, 1e6) + r.num(*v, p, "high", true, 0, 1e6)) / 2;
  }
  r.fail(path + "/" + key, "expected a number or {\"low\", \"high\"}, got " + v->dump());
}

// Counts NICs in the catalog's nics_shipped text ("1x Intel X710 10GbE + 8x ConnectX-7
// 400GbE/NDR"): each "+"-separated part that starts with "Nx"; >= 400 Gb/s (or a ConnectX-7/8
// without a speed) is a GPU-fabric NIC, a BlueField without ConnectX a DPU, the rest other NICs.
void count_nics(const std::string& text, PlatformModel& p) {
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find('+', at);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(at, end - at);
    at = end + 1;
    size_t i = part.find_first_not_of(' ');
    if (i == std::string::npos || !std::isdigit(static_cast<unsigned char>(part[i]))) continue;
    uint32_t n = 0;
    while (i < part.size() && std::isdigit(static_cast<unsigned char>(part[i])))
      n = n * 10 + static_cast<uint32_t>(part[i++] - '0');
    if (i >= part.size() || part[i] != 'x' || n == 0 || n > 64) continue;
    uint32_t gbit = 0;
    for (size_t k = i + 1; k < part.size(); ++k) {
      if (!std::isdigit(static_cast<unsigned char>(part[k]))) continue;
      uint32_t v = 0;
      size_t j = k;
      while (j < part.size() && std::isdigit(static_cast<unsigned char>(part[j])))
        v = v * 10 + static_cast<uint32_t>(part[j++] - '0');
      while (j < part.size() && part[j] == ' ') ++j;
      if (j < part.size() && part[j] == 'G') {
        gbit = v;
        break;
      }
      k = j;
    }
    const bool connectx = part.find("ConnectX-7") != std::string::npos ||
                          part.find("ConnectX-8") != std::string::npos;
    if (part.find("BlueField") != std::string::npos && !connectx)
      p.dpus_shipped += n;
    else if (gbit >= 400 || (gbit == 0 && connectx))
      p.nics_400g_shipped += n;
    else
      p.nics_other_shipped += n;
  }
}

PlatformModel read_one(const json& e, const std::string& path, const Reader& r) {
  if (!e.is_object()) r.fail(path, "expected an object");
  PlatformModel p;
  p.id = r.str(e, path, "id", true);
  if (p.id.empty() || lower(p.id) != p.id)
    r.fail(path + "/id", "expected a lowercase id, got \"" + p.id + "\"");
  p.name = r.str(e, path, "name", true);
  p.vendor = r.str(e, path, "vendor", true);
  p.platform_class = parse_class(r, path + "/class", r.str(e, path, "class", true));
  p.form_factor = r.str(e, path, "form", false);
  p.rack_units = r.count(e, path, "rack_units", false, 64);
  const bool unified = p.platform_class == PlatformClass::unified;

  const std::string gp = path + "/gpu";
  const json& g = r.object(e, path, "gpu");
  p.gpu_mount = parse_mount(r, gp + "/form_factor", r.str(g, gp, "form_factor", true));
  if (unified != (p.gpu_mount == GpuMount::integrated))
    r.fail(gp + "/form_factor", "class unified goes with form_factor soc, and only it");
  const uint32_t count_max = r.count(g, gp, "count_max", true, 128);
  if (count_max == 0) r.fail(gp + "/count_max", "expected at least 1");
  switch (p.gpu_mount) {
    case GpuMount::sxm:
    case GpuMount::oam: {
      // Modules come on baseboards of 4 or 8 only.
      const uint32_t board = r.count(g, gp, "baseboard_gpus", true, 8);
      if (board != 4 && board != 8)
        r.fail(gp + "/baseboard_gpus",
               "SXM/OAM baseboards hold 4 or 8 GPUs, got " + std::to_string(board));
      if (count_max % board)
        r.fail(gp + "/count_max", "expected a multiple of baseboard_gpus (" +
                                      std::to_string(board) + "), got " +
                                      std::to_string(count_max));
      p.gpu_counts = {count_max};
      break;
    }
    case GpuMount::superchip:
      // A deskside station holds its one superchip; a rack of trays is sold whole (NVL72).
      p.gpu_counts = {count_max};
      break;
    case GpuMount::integrated:
      p.gpu_counts = {1};
      break;
    case GpuMount::pcie:
      for (uint32_t i = 1; i <= count_max; ++i) p.gpu_counts.push_back(i);
      break;
  }
  if (const json* ids = r.get(g, "gpus_shipped")) {
    if (!ids->is_array()) r.fail(gp + "/gpus_shipped", "expected an array of catalog GPU ids");
    for (size_t i = 0; i < ids->size(); ++i) {
      if (!(*ids)[i].is_string())
        r.fail(gp + "/gpus_shipped/" + std::to_string(i), "expected a string");
      // PCIe machines list what the cited configurations carried, not a limit.
      if (p.gpu_mount != GpuMount::pcie) p.gpu_ids.push_back(lower((*ids)[i].get<std::string>()));
    }
  }
  p.liquid_cooled = r.str(g, gp, "cooling", false) == "liquid";
  // Servers move air front to back for passive cards; towers and desktops do not.
  p.server_airflow = p.platform_class == PlatformClass::server;
  p.gpu_watts_each_max = r.num(g, gp, "watts_each_max", false, 0, 5000);

  const std::string xp = path + "/pcie";
  const json* pc = r.get(e, "pcie");
  if (p.gpu_mount == GpuMount::pcie) {
    p.gpu_width_max = r.num(g, gp, "slot_width_max", true, 1, 5);
    p.gpu_widths_total = r.num(g, gp, "slot_widths_total", false, 1, 64);
    // Each position takes a card of up to slot_width_max unless the board is narrower overall.
    if (p.gpu_widths_total == 0) p.gpu_widths_total = p.gpu_width_max * count_max;
    // GPU servers and workstations wire x16 to every GPU position (every such catalog row's
    // gpu_lane_split says so); desktops give their x16 to one card or split it x8/x8.
    p.gpu_lanes_each = pc ? r.count(*pc, xp, "gpu_lanes_each", false, 16) : 0;
    if (p.gpu_lanes_each == 0) p.gpu_lanes_each = 16;
    p.gpu_lanes_total = pc ? r.count(*pc, xp, "gpu_lanes_total", false, 2048) : 0;
    if (p.gpu_lanes_total == 0)
      p.gpu_lanes_total = p.platform_class == PlatformClass::desktop ? 16 : 16 * count_max;
  }

  const std::string cp = path + "/cpu";
  const json& c = r.object(e, path, "cpu");
  p.cpu_sockets = r.count(c, cp, "sockets", true, 64);
  if (p.cpu_sockets == 0) r.fail(cp + "/sockets", "expected at least 1");
  p.cpu_model = r.str(c, cp, "model", false);
  p.cpu_cores_per_socket = r.count(c, cp, "cores_per_socket", false, 512);
  p.cpu_tdp_w = r.num(c, cp, "tdp_w", false, 1, 2000);
  if (p.cpu_tdp_w == 0 && !unified) {
    for (const auto& t : kCpuTdp)
      if (p.cpu_model.find(t.model) != std::string::npos) {
        p.cpu_tdp_w = t.tdp_w;
        break;
      }
    if (p.cpu_tdp_w == 0) {
      p.cpu_tdp_w = class_tdp_w(p.platform_class);
      p.cpu_tdp_assumed = true;
    }
  }

  const std::string mp = path + "/memory";
  const json& m = r.object(e, path, "memory");
  p.memory_channels_per_socket = r.count(m, mp, "channels_per_socket", false, 24);
  p.dimm_slots = r.count(m, mp, "dimm_slots", false, 256);
  p.ram_shipped_gib = r.count(m, mp, "installed_gib", unified, 1u << 20);
  p.ram_max_gib = r.count(m, mp, "max_gib", false, 1u << 20);
  p.gpu_memory_fraction = r.num(m, mp, "gpu_memory_fraction", false, 0, 1);

  if (const json* n = r.get(e, "network")) {
    const std::string np = path + "/network";
    if (!n->is_object()) r.fail(np, "expected an object");
    p.nic_slots = r.count(*n, np, "nic_slots", false, 64);
    if (!unified) count_nics(r.str(*n, np, "nics_shipped", false), p);
  }

  const std::string pp = path + "/power";
  const json& pw = r.object(e, path, "power");
  p.psu.bays = r.count(pw, pp, "psu_count", false, 64);
  p.psu.watts = r.num(pw, pp, "psu_rating_w", false, 10, 20000);
  p.psu.efficiency = r.num(pw, pp, "psu_efficiency", false, 0.5, 1);
  if (p.psu.efficiency == 0)
    p.psu.efficiency = p.platform_class == PlatformClass::server ? 0.94 : 0.92;
  // Desktops without a catalog PSU take an ATX supply bought to fit, up to the largest sold.
  if (p.platform_class == PlatformClass::desktop && p.psu.watts == 0) {
    p.psu.atx = true;
    p.psu.bays = 1;
    p.psu.watts = kLargestAtxPsuW;
  }
  if (p.psu.bays == 0) p.psu.bays = 1;
  p.psu.atx = p.psu.atx || (p.psu.bays == 1 && p.platform_class == PlatformClass::desktop);
  const std::string red = r.str(pw, pp, "psu_redundancy", false);
  // "5+1 (or 3+3 fault-tolerant)": the scheme as shipped is the first word.
  const std::string scheme = red.substr(0, red.find(' '));
  if (scheme.empty()) {
    p.psu.redundancy = {p.psu.bays, 0};
  } else if (!parse_redundancy(scheme, p.psu.bays, &p.psu.redundancy)) {
    r.fail(pp + "/psu_redundancy", "expected \"N+R\" with N+R = psu_count (" +
                                       std::to_string(p.psu.bays) +
                                       "), \"N+1\", \"N+N\" or \"none\", got \"" + red + "\"");
  }
  p.max_power_w = r.num(pw, pp, "max_system_w", false, 0, 1e6);
  p.idle_power_w = measured(r, pw, pp, "measured_idle_w");
  p.measured_peak_w = measured(r, pw, pp, "measured_peak_w");
  p.typical_power_w = measured(r, pw, pp, "measured_serving_w");

  if (const json* pr = r.get(e, "price")) {
    const std::string rp = path + "/price";
    if (!pr->is_object()) r.fail(rp, "expected an object");
    p.price_usd = r.num(*pr, rp, "usd", false, 0, 1e8);
    if (p.price_usd > 0) {
      p.price_source = r.str(*pr, rp, "kind", true);
      const std::string date = r.str(*pr, rp, "date", false);
      if (!date.empty()) p.price_source += ", " + date;
    }
  }
  p.source = r.sources(e, path);
  return p;
}

}  // namespace

std::vector<PlatformModel> read_platforms(std::string_view text, const std::string& where) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(where + ": not valid JSON (at byte " + std::to_string(e.byte) + ")");
  }
  Reader r{where};
  if (!doc.is_object() || !doc.contains("platforms") || !doc["platforms"].is_array())
    r.fail("/platforms", "missing (expected an array of platforms)");
  std::vector<PlatformModel> out;
  std::set<std::string> seen;
  const json& arr = doc["platforms"];
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string path = "/platforms/" + std::to_string(i);
    PlatformModel p = read_one(arr[i], path, r);
    if (!seen.insert(p.id).second) r.fail(path + "/id", "duplicate id \"" + p.id + "\"");
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<PlatformModel> read_platforms_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(path + ": cannot open");
  std::ostringstream ss;
  ss << f.rdbuf();
  return read_platforms(ss.str(), path);
}

const std::vector<PlatformModel>& builtin_platforms() {
  static const std::vector<PlatformModel> v =
      read_platforms(embedded::kPlatformsJson, "built-in data/platforms.json");
  return v;
}

const PlatformModel* find_platform(const std::vector<PlatformModel>& catalog, std::string_view id) {
  const std::string l = lower(id);
  for (const auto& p : catalog)
    if (p.id == l) return &p;
  return nullptr;
}

std::string suggest_platform(const std::vector<PlatformModel>& catalog, std::string_view id) {
  std::vector<std::string> ids;
  for (const auto& p : catalog) ids.push_back(p.id);
  const auto c = closest_names(id, ids);
  if (c.empty()) return "";
  std::string s = " (did you mean ";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? ", " : "") + c[i];
  return s + "?)";
}

}  // namespace llmsize
