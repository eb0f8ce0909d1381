#include "llmsize/io/platform_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "io/json_input.hpp"
#include "io/json_readers.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/io/hf_config.hpp"
#include "llmsize/io/input.hpp"
#include "llmsize/sanitize.hpp"

namespace llmsize {
namespace {

using json = nlohmann::json;

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// An id is typed on command lines (--platform): printable ASCII without spaces or capitals, at most
// 128 bytes.
bool plain_lowercase_id(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (const char ch : id)
    if (static_cast<unsigned char>(ch) <= 0x20 || static_cast<unsigned char>(ch) >= 0x7f ||
        std::isupper(static_cast<unsigned char>(ch)))
      return false;
  return true;
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
    if (!v->is_object()) fail(path + "/" + key, "expected an object, got " + io::describe_json(*v));
    return *v;
  }
  std::string str(const json& o, const std::string& path, const char* key, bool required) const {
    const json* v = get(o, key);
    if (!v) {
      if (required) fail(path + "/" + key, "missing (expected a string)");
      return {};
    }
    if (!v->is_string()) fail(path + "/" + key, "expected a string, got " + io::describe_json(*v));
    return v->get<std::string>();
  }
  double num(const json& o, const std::string& path, const char* key, bool required, double lo,
             double hi) const {
    const json* v = get(o, key);
    if (!v) {
      if (required) fail(path + "/" + key, "missing (expected a number)");
      return 0;
    }
    if (!v->is_number()) fail(path + "/" + key, "expected a number, got " + io::describe_json(*v));
    const double d = v->get<double>();
    if (!(d >= lo && d <= hi))
      fail(path + "/" + key, "out of range: " + io::describe_json(*v) + " (expected " + fmt(lo) +
                                 " to " + fmt(hi) + ")");
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
    if (!v->is_boolean())
      fail(path + "/" + key, "expected true or false, got " + io::describe_json(*v));
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
  r.fail(path, "unknown class " + sanitize_quoted(s) +
                   " (expected desktop, workstation, server or unified)");
}

GpuMount parse_mount(const Reader& r, const std::string& path, const std::string& s) {
  if (s == "pcie") return GpuMount::pcie;
  if (s == "sxm") return GpuMount::sxm;
  if (s == "oam") return GpuMount::oam;
  if (s == "superchip") return GpuMount::superchip;
  if (s == "integrated") return GpuMount::integrated;
  r.fail(path, "unknown mount " + sanitize_quoted(s) +
                   " (expected pcie, sxm, oam, superchip or integrated)");
}

// Maximum power of the catalog's CPU models where the row gives no cpu/tdp_w, by the model
// string: vendor specification pages. Desktop sockets take their top SKU's limit.
struct CpuTdp {
  const char* model;  // a substring of cpu/model
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
    {"EPYC 7763", 280, "AMD EPYC 7763 product page: 280 W default TDP"},
    {"EPYC 9575F", 400, "AMD EPYC 9575F product page: 400 W default TDP"},
    {"EPYC 9655", 400, "AMD EPYC 9655 product page: 400 W default TDP"},
    {"EPYC 9475F", 400, "AMD EPYC 9475F product page: 400 W default TDP"},
    {"EPYC 9965", 500, "AMD EPYC 9965 product page: 500 W default TDP"},
    {"Ryzen 7000/9000 (AM5)", 170, "AMD Ryzen 9 7950X / 9950X product pages: 170 W TDP"},
    {"Core Ultra 200S", 250, "Intel ARK: Core Ultra 9 285K 250 W maximum turbo power"},
};

// Memory channels per socket where the row gives no memory/channels_per_socket, by CPU family: a
// server is populated across every channel of every socket, so "2 channels" for a dual EPYC is
// not a population anyone ships.
struct CpuChannels {
  const char* model;  // a substring of cpu/model
  uint32_t channels;
  const char* source;
};
const CpuChannels kCpuChannels[] = {
    {"EPYC 9", 12,
     "https://www.hubbry.com/Epyc/encyclopedias (EPYC 9004/9005: 12 DDR5 channels per socket)"},
    {"Xeon Platinum 84", 8,
     "https://www.servethehome.com/lenovo-thinkstation-px-workstation-review-intel-xeon-for-large-"
     "scale-workloads/2 (4th Gen Xeon Scalable: 8 memory channels)"},
    {"Xeon Platinum 85", 8, "5th Gen Xeon Scalable shares the 4th Gen's socket and 8 channels"},
    {"4th Gen Intel Xeon", 8, "as Xeon Platinum 84xx"},
};
// A server socket whose family is not in the table: 8 channels, the fewest of current server
// sockets (Xeon Scalable 4th/5th Gen, Xeon 6700); an assumption, below every EPYC's 12.
constexpr uint32_t kAssumedServerChannels = 8;
// A workstation socket likewise: 4, the fewest of current workstation sockets (Xeon W-2400,
// Threadripper 7000; the Xeon W-3400 and Threadripper PRO have 8); an assumption. Without it the
// host sizing took 2 channels and put 512 GiB on two 256 GiB RDIMMs.
constexpr uint32_t kAssumedWorkstationChannels = 4;

// Where the CPU model has no TDP on file: a class's typical CPU, per socket: desktop 170 W (AMD
// Ryzen 9 9950X on AM5), workstation 350 W (Threadripper PRO 7000 WX), server 360 W (EPYC 9004's
// configurable maximum); vendors' specifications.
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
  r.fail(path + "/" + key,
         "expected a number or {\"low\", \"high\"}, got " + io::describe_json(*v));
}

// GPUs: what selection cannot do without is required.
void read_gpu_facts(const json& e, const std::string& path, const Reader& r, PlatformModel& p) {
  const bool unified = p.platform_class == PlatformClass::unified;
  const std::string gp = path + "/gpu";
  const json& g = r.object(e, path, "gpu");
  p.gpu_mount = parse_mount(r, gp + "/mount", r.str(g, gp, "mount", true));
  if (const json* counts = r.get(g, "counts")) {
    if (!counts->is_array() || counts->empty())
      r.fail(gp + "/counts", "expected a non-empty array of GPU counts");
    for (size_t i = 0; i < counts->size(); ++i) {
      const auto& c = (*counts)[i];
      if (!c.is_number_unsigned() || c.get<uint64_t>() == 0 || c.get<uint64_t>() > 128)
        r.fail(gp + "/counts/" + std::to_string(i),
               "expected a GPU count 1-128, got " + io::describe_json(c));
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
  if (p.gpu_mount == GpuMount::integrated && p.gpu_counts != std::vector<uint32_t>{1})
    r.fail(gp + "/counts", "a unified-memory computer is one GPU: expected [1]");
  const bool pcie = p.gpu_mount == GpuMount::pcie;
  if (const json* ids = r.get(g, "ids")) {
    if (!ids->is_array()) r.fail(gp + "/ids", "expected an array of catalog GPU ids");
    for (size_t i = 0; i < ids->size(); ++i) {
      if (!(*ids)[i].is_string()) r.fail(gp + "/ids/" + std::to_string(i), "expected a string");
      // Baseboards, superchip machines and unified computers are built around the chips they
      // list; PCIe machines list what the cited configurations carried, not a limit.
      if (!pcie) p.gpu_ids.push_back(lower((*ids)[i].get<std::string>()));
    }
  }
  p.gpu_width_max = r.num(g, gp, "width_max", pcie, 0, 5);
  p.gpu_widths_total = r.num(g, gp, "widths_total", pcie, 0, 64);
  p.gpu_lanes_total = r.count(g, gp, "lanes_total", pcie, 2048);
  p.gpu_lanes_each = r.count(g, gp, "lanes_each", false, 16);
  if (p.gpu_lanes_each == 0) p.gpu_lanes_each = 16;
  p.gpu_watts_each_max = r.num(g, gp, "watts_each_max", false, 0, 5000);
  p.server_airflow = r.flag(g, gp, "server_airflow");
  p.liquid_cooled = r.flag(g, gp, "liquid_cooled");
  if (unified != (p.gpu_mount == GpuMount::integrated))
    r.fail(gp + "/mount", "class unified goes with mount integrated, and only it");
}

// Host facts the catalog may lack: the sizing and the power model say what they assumed.
void read_host_facts(const json& e, const std::string& path, const Reader& r, PlatformModel& p) {
  const bool unified = p.platform_class == PlatformClass::unified;
  const std::string cp = path + "/cpu";
  if (const json* c = r.get(e, "cpu")) {
    if (!c->is_object()) r.fail(cp, "expected an object");
    p.cpu_sockets = r.count(*c, cp, "sockets", !unified, 64);
    if (p.cpu_sockets == 0) p.cpu_sockets = 1;
    p.cpu_model = r.str(*c, cp, "model", false);
    p.cpu_cores_per_socket = r.count(*c, cp, "cores_per_socket", false, 512);
    p.cpu_tdp_w = r.num(*c, cp, "tdp_w", false, 1, 2000);
  } else if (!unified) {
    r.fail(cp, "missing (expected an object)");
  }
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
  if (const json* m = r.get(e, "memory")) {
    const std::string mp = path + "/memory";
    if (!m->is_object()) r.fail(mp, "expected an object");
    p.memory_channels_per_socket = r.count(*m, mp, "channels_per_socket", false, 24);
    p.memory_type = r.str(*m, mp, "type", false);
    if (p.memory_channels_per_socket == 0 && (p.platform_class == PlatformClass::server ||
                                              p.platform_class == PlatformClass::workstation)) {
      for (const auto& c : kCpuChannels)
        if (p.cpu_model.find(c.model) != std::string::npos) {
          p.memory_channels_per_socket = c.channels;
          break;
        }
      if (p.memory_channels_per_socket == 0 && p.platform_class == PlatformClass::server)
        p.memory_channels_per_socket = kAssumedServerChannels;
      if (p.memory_channels_per_socket == 0 && p.platform_class == PlatformClass::workstation)
        p.memory_channels_per_socket = kAssumedWorkstationChannels;
    }
    p.dimm_slots = r.count(*m, mp, "dimm_slots", false, 256);
    p.ram_shipped_gib = r.count(*m, mp, "shipped_gib", unified, 1u << 20);
    p.ram_max_gib = r.count(*m, mp, "max_gib", false, 1u << 20);
  } else if (unified) {
    r.fail(path + "/memory", "missing (expected an object)");
  }
  p.nic_slots = r.count(e, path, "nic_slots", false, 64);
  p.nic_slots_published = r.get(e, "nic_slots") != nullptr;
  if (const json* s = r.get(e, "shipped")) {
    const std::string sp = path + "/shipped";
    if (!s->is_object()) r.fail(sp, "expected an object");
    p.nvme_shipped = r.count(*s, sp, "nvme", false, 256);
    p.nics_400g_shipped = r.count(*s, sp, "nics_400g", false, 256);
    p.nics_other_shipped = r.count(*s, sp, "nics_other", false, 64);
    p.dpus_shipped = r.count(*s, sp, "dpus", false, 64);
  }
}

// PSUs: a rating the catalog lacks is left unrated (the choice says psu_unrated); a desktop
// takes an ATX supply bought to fit, up to the largest sold.
void read_psu_facts(const json& e, const std::string& path, const Reader& r, PlatformModel& p) {
  const std::string pp = path + "/psu";
  const json* ps = r.get(e, "psu");
  if (ps && !ps->is_object()) r.fail(pp, "expected an object");
  static const json kEmpty = json::object();
  const json& pj = ps ? *ps : kEmpty;
  p.psu.bays = r.count(pj, pp, "bays", false, 64);
  p.psu.bays_published = p.psu.bays > 0;
  p.psu.watts = r.num(pj, pp, "watts", false, 10, 20000);
  p.psu.efficiency = r.num(pj, pp, "efficiency", false, 0.5, 1);
  if (p.psu.efficiency == 0)
    p.psu.efficiency =
        p.platform_class == PlatformClass::server ? kServerPsuEfficiency : kOtherPsuEfficiency;
  if (p.platform_class == PlatformClass::desktop && (p.psu.watts == 0 || p.psu.bays <= 1)) {
    p.psu.atx = true;
    if (p.psu.watts == 0) p.psu.watts = kLargestAtxPsuW;
    p.psu.bays = 1;
    p.psu.bays_published = true;  // one ATX supply, no spare: what a desktop takes
  }
  if (p.psu.bays == 0) p.psu.bays = 1;
  const std::string red = r.str(pj, pp, "redundancy", false);
  p.psu.redundancy_published = !red.empty() || p.psu.atx;
  if (red.empty()) {
    p.psu.redundancy = {p.psu.bays, 0};
  } else if (!parse_redundancy(red, p.psu.bays, &p.psu.redundancy)) {
    r.fail(pp + "/redundancy", "expected \"N+R\" with N+R = bays (" + std::to_string(p.psu.bays) +
                                   "), \"N+1\", \"N+N\" or \"none\", got " + sanitize_quoted(red));
  }
}

PlatformModel read_one(const json& e, const std::string& path, const Reader& r) {
  if (!e.is_object()) r.fail(path, "expected an object");
  PlatformModel p;
  p.id = r.str(e, path, "id", true);
  if (!plain_lowercase_id(p.id))
    r.fail(path + "/id", "expected a lowercase id, got " + sanitize_quoted(p.id));
  p.name = r.str(e, path, "name", true);
  p.vendor = r.str(e, path, "vendor", true);
  p.platform_class = parse_class(r, path + "/class", r.str(e, path, "class", true));
  p.form_factor = r.str(e, path, "form_factor", false);
  p.rack_units = r.count(e, path, "rack_units", false, 64);
  read_gpu_facts(e, path, r, p);
  read_host_facts(e, path, r, p);
  read_psu_facts(e, path, r, p);

  p.max_power_w = r.num(e, path, "max_power_w", false, 0, 1e6);
  p.typical_power_w = r.num(e, path, "typical_power_w", false, 0, 1e6);
  p.idle_power_w = r.num(e, path, "idle_power_w", false, 0, 1e6);
  if (const json* mw = r.get(e, "measured_power_w")) {
    const std::string wp = path + "/measured_power_w";
    if (!mw->is_object()) r.fail(wp, "expected an object");
    p.measured_peak_w = measured(r, *mw, wp, "measured_peak_w");
    if (p.idle_power_w == 0) p.idle_power_w = measured(r, *mw, wp, "measured_idle_w");
  }
  p.gpu_memory_fraction = r.num(e, path, "gpu_memory_fraction", false, 0, 1);
  if (const json* u = r.get(e, "units")) {
    // Unified computers linked as separate units: {"linked_max", "link", "link_gbit_per_s"}.
    const std::string up = path + "/units";
    if (!u->is_object()) r.fail(up, "expected an object");
    p.units_linked_max = r.count(*u, up, "linked_max", false, 1024);
    p.unit_link = r.str(*u, up, "link", false);
    p.unit_link_gbit_per_s = r.count(*u, up, "link_gbit_per_s", false, 10000);
  }
  p.generic = r.flag(e, path, "generic");
  p.basis = r.str(e, path, "basis", p.generic);
  p.price_usd = r.num(e, path, "price_usd", false, 0, 1e8);
  if (p.price_usd > 0) {
    const std::string kind = r.str(e, path, "price_kind", false);
    const std::string date = r.str(e, path, "price_date", false);
    p.price_source = r.str(e, path, "price_source", true);
    if (!kind.empty())
      p.price_source = kind + (date.empty() ? "" : ", " + date) + ": " + p.price_source;
  }
  p.source = r.sources(e, path);
  // Shown in tables and the BOM: escaped like any untrusted text (a --catalog file's rows).
  for (std::string* t : {&p.name, &p.vendor, &p.form_factor, &p.cpu_model, &p.memory_type,
                         &p.unit_link, &p.price_source, &p.source, &p.basis})
    *t = sanitize(*t, 1 << 16);
  return p;
}

}  // namespace

PlatformModel read_platform(const nlohmann::json& entry, const std::string& path,
                            const std::string& where) {
  return read_one(entry, path, Reader{where});
}

std::vector<PlatformModel> read_platforms(std::string_view text, const std::string& where,
                                          std::vector<std::string>* skipped) {
  json doc;
  try {
    doc = io::parse_json(text, where);
  } catch (const json::parse_error& e) {
    throw InputError(where + ": not valid JSON (at byte " + std::to_string(e.byte) + ")");
  } catch (const json::exception& e) {  // out_of_range 406: a number beyond a double
    throw InputError(where + ": not valid JSON (" + json_reason(e) + ")");
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
    if (!seen.insert(p.id).second) r.fail(path + "/id", "duplicate id " + sanitize_quoted(p.id));
    out.push_back(std::move(p));
  }
  // "platforms_incomplete": rows whose "missing" facts no public source gave. Those that still
  // give what the selection needs (mount, counts, PCIe widths and lanes) are used, their missing
  // host and PSU facts handled as above; the rest are listed in `skipped`.
  if (const json* inc = r.get(doc, "platforms_incomplete")) {
    if (!inc->is_array()) r.fail("/platforms_incomplete", "expected an array of platforms");
    for (size_t i = 0; i < inc->size(); ++i) {
      const std::string path = "/platforms_incomplete/" + std::to_string(i);
      try {
        PlatformModel p = read_one((*inc)[i], path, r);
        if (!seen.insert(p.id).second)
          r.fail(path + "/id", "duplicate id " + sanitize_quoted(p.id));
        out.push_back(std::move(p));
      } catch (const InputError& err) {
        if (skipped) skipped->push_back(err.what());
      }
    }
  }
  // "platforms_generic": the classes a GPU no sourced machine takes falls back to (#20), each
  // flagged "generic": true with the "basis" of its numbers; chosen after every sourced row.
  if (const json* gen = r.get(doc, "platforms_generic")) {
    if (!gen->is_array()) r.fail("/platforms_generic", "expected an array of platforms");
    for (size_t i = 0; i < gen->size(); ++i) {
      const std::string path = "/platforms_generic/" + std::to_string(i);
      PlatformModel p = read_one((*gen)[i], path, r);
      if (!p.generic) r.fail(path + "/generic", "expected true (a row of platforms_generic)");
      if (!seen.insert(p.id).second) r.fail(path + "/id", "duplicate id " + sanitize_quoted(p.id));
      out.push_back(std::move(p));
    }
  }
  return out;
}

std::vector<PlatformModel> read_platforms_file(const std::string& path) {
  return read_platforms(io::read_text_input(path, io::kCatalogInput), sanitize(path, 256));
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
