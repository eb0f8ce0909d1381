#include "llmsize/io/platform_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "llmsize/io/error.hpp"

namespace llmsize {
namespace {

using json = nlohmann::json;

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

GpuMount parse_mount(const Reader& r, const std::string& path, const std::string& s) {
  if (s == "pcie") return GpuMount::pcie;
  if (s == "sxm") return GpuMount::sxm;
  if (s == "oam") return GpuMount::oam;
  if (s == "integrated") return GpuMount::integrated;
  r.fail(path, "unknown mount \"" + s + "\" (expected pcie, sxm, oam or integrated)");
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
  p.form_factor = r.str(e, path, "form_factor", false);
  p.rack_units = r.count(e, path, "rack_units", false, 64);

  const std::string gp = path + "/gpu";
  const json& g = r.object(e, path, "gpu");
  p.gpu_mount = parse_mount(r, gp + "/mount", r.str(g, gp, "mount", true));
  if (const json* counts = r.get(g, "counts")) {
    if (!counts->is_array() || counts->empty())
      r.fail(gp + "/counts", "expected a non-empty array of GPU counts");
    for (size_t i = 0; i < counts->size(); ++i) {
      const auto& c = (*counts)[i];
      if (!c.is_number_unsigned() || c.get<uint64_t>() == 0 || c.get<uint64_t>() > 64)
        r.fail(gp + "/counts/" + std::to_string(i), "expected a GPU count 1-64, got " + c.dump());
      p.gpu_counts.push_back(c.get<uint32_t>());
    }
    std::sort(p.gpu_counts.begin(), p.gpu_counts.end());
    p.gpu_counts.erase(std::unique(p.gpu_counts.begin(), p.gpu_counts.end()), p.gpu_counts.end());
  } else {
    // PCIe machines: any count up to the slots.
    const uint32_t slots = r.count(g, gp, "slots", true, 64);
    if (slots == 0) r.fail(gp + "/slots", "expected at least 1");
    for (uint32_t i = 1; i <= slots; ++i) p.gpu_counts.push_back(i);
  }
  if ((p.gpu_mount == GpuMount::sxm || p.gpu_mount == GpuMount::oam))
    for (uint32_t c : p.gpu_counts)
      if (c != 4 && c != 8)
        r.fail(gp + "/counts", "SXM/OAM baseboards hold 4 or 8 GPUs, got " + std::to_string(c));
  if (const json* ids = r.get(g, "ids")) {
    if (!ids->is_array()) r.fail(gp + "/ids", "expected an array of catalog GPU ids");
    for (size_t i = 0; i < ids->size(); ++i) {
      if (!(*ids)[i].is_string()) r.fail(gp + "/ids/" + std::to_string(i), "expected a string");
      p.gpu_ids.push_back(lower((*ids)[i].get<std::string>()));
    }
  }
  const bool pcie = p.gpu_mount == GpuMount::pcie;
  p.gpu_width_max = r.num(g, gp, "width_max", pcie, 0, 5);
  p.gpu_widths_total = r.num(g, gp, "widths_total", pcie, 0, 64);
  p.gpu_lanes_total = r.count(g, gp, "lanes_total", pcie, 1024);
  p.gpu_lanes_each = r.count(g, gp, "lanes_each", false, 16);
  if (p.gpu_lanes_each == 0) p.gpu_lanes_each = 16;
  p.gpu_watts_each_max = r.num(g, gp, "watts_each_max", false, 0, 5000);
  p.server_airflow = r.flag(g, gp, "server_airflow");
  p.liquid_cooled = r.flag(g, gp, "liquid_cooled");

  const bool unified = p.platform_class == PlatformClass::unified;
  if (unified != (p.gpu_mount == GpuMount::integrated))
    r.fail(gp + "/mount", "class unified goes with mount integrated, and only it");
  if (!unified) {
    const std::string cp = path + "/cpu";
    const json& c = r.object(e, path, "cpu");
    p.cpu_sockets = r.count(c, cp, "sockets", true, 8);
    if (p.cpu_sockets == 0) r.fail(cp + "/sockets", "expected at least 1");
    p.cpu_model = r.str(c, cp, "model", false);
    p.cpu_cores_per_socket = r.count(c, cp, "cores_per_socket", true, 512);
    p.cpu_tdp_w = r.num(c, cp, "tdp_w", true, 1, 2000);
  }
  if (const json* m = r.get(e, "memory")) {
    const std::string mp = path + "/memory";
    if (!m->is_object()) r.fail(mp, "expected an object");
    p.memory_channels_per_socket = r.count(*m, mp, "channels_per_socket", !unified, 24);
    p.dimm_slots = r.count(*m, mp, "dimm_slots", !unified, 128);
    p.ram_shipped_gib = r.count(*m, mp, "shipped_gib", unified, 1u << 20);
    p.ram_max_gib = r.count(*m, mp, "max_gib", false, 1u << 20);
  } else if (!unified) {
    r.fail(path + "/memory", "missing (expected an object)");
  }
  p.nic_slots = r.count(e, path, "nic_slots", false, 64);
  p.drive_bays = r.count(e, path, "drive_bays", false, 256);
  if (const json* s = r.get(e, "shipped")) {
    const std::string sp = path + "/shipped";
    if (!s->is_object()) r.fail(sp, "expected an object");
    p.nvme_shipped = r.count(*s, sp, "nvme", false, 256);
    p.nics_400g_shipped = r.count(*s, sp, "nics_400g", false, 64);
    p.nics_other_shipped = r.count(*s, sp, "nics_other", false, 64);
    p.dpus_shipped = r.count(*s, sp, "dpus", false, 64);
  }

  const std::string pp = path + "/psu";
  const json& ps = r.object(e, path, "psu");
  p.psu.bays = r.count(ps, pp, "bays", true, 32);
  if (p.psu.bays == 0) r.fail(pp + "/bays", "expected at least 1");
  p.psu.watts = r.num(ps, pp, "watts", true, 10, 20000);
  p.psu.watts_120v = r.num(ps, pp, "watts_120v", false, 0, 20000);
  p.psu.efficiency = r.num(ps, pp, "efficiency", false, 0.5, 1);
  if (p.psu.efficiency == 0) p.psu.efficiency = 0.94;
  const std::string red = r.str(ps, pp, "redundancy", true);
  if (!parse_redundancy(red, p.psu.bays, &p.psu.redundancy))
    r.fail(pp + "/redundancy", "expected \"N+R\" with N+R = bays (" + std::to_string(p.psu.bays) +
                                   "), \"N+1\", \"N+N\" or \"none\", got \"" + red + "\"");

  p.max_power_w = r.num(e, path, "max_power_w", false, 0, 200000);
  p.typical_power_w = r.num(e, path, "typical_power_w", false, 0, 200000);
  p.idle_power_w = r.num(e, path, "idle_power_w", false, 0, 200000);
  p.gpu_memory_fraction = r.num(e, path, "gpu_memory_fraction", false, 0, 1);
  p.price_usd = r.num(e, path, "price_usd", false, 0, 1e8);
  p.price_source = r.str(e, path, "price_source", p.price_usd > 0);
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
