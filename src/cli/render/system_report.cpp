#include "cli/render/system_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cli/render/plot.hpp"
#include "cli/render/report.hpp"
#include "cli/render/row_writer.hpp"
#include "cli/render/words.hpp"
#include "llmsize/sanitize.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

const SystemPlan* machine(const Plan& p) {
  return p.system && p.system->platform ? &*p.system : nullptr;
}

const char* reason_words(PlatformReason r) {
  switch (r) {
    case PlatformReason::mount_mismatch:
      return "the GPU mounts differently";
    case PlatformReason::gpu_not_offered:
      return "not sold with this GPU";
    case PlatformReason::count_not_offered:
      return "not sold with this GPU count";
    case PlatformReason::too_wide:
      return "the card is too wide for its slots";
    case PlatformReason::slot_widths:
      return "the cards do not fit along the board";
    case PlatformReason::pcie_lanes:
      return "fewer than x8 lanes per GPU";
    case PlatformReason::gpu_power:
      return "a GPU position cannot deliver the GPU's power";
    case PlatformReason::passive_cooling:
      return "passive card without server airflow";
    case PlatformReason::consumer_in_server:
      return "a consumer card in a rack server (its cooler and its driver licence are not for a "
             "datacenter; --platform to insist)";
    case PlatformReason::psu_capacity:
      return "PSUs too small without their spares";
    case PlatformReason::psu_unrated:
      return "its PSU rating is not published: capacity not checked";
    case PlatformReason::reduced_lanes:
      return "GPUs run below x16";
    case PlatformReason::slot_width_unknown:
      return "card width unpublished: 2 slots assumed";
    case PlatformReason::rounded_up:
      return "rounded up to a GPU count that is sold";
    case PlatformReason::multi_node:
      return "more GPUs than one machine holds";
    case PlatformReason::separate_units:
      return "separate units, each its own machine, linked over the network (not one chassis)";
    case PlatformReason::units_not_linked:
      return "more units than the maker supports linking together (DGX Spark: two): buyable, "
             "but an unsupported setup that needs a switch";
    case PlatformReason::override_name:
      return "chosen with --platform";
    case PlatformReason::smallest_class:
      return "the smallest class that takes the GPUs";
    case PlatformReason::cheapest:
      return "the cheapest of those that fit";
    default:
      return to_string(r);
  }
}

std::string reasons_text(const std::vector<PlatformReason>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : "; ") + std::string(reason_words(x));
  return s;
}

// The machines turned down on fit, nearest class first (choose_platform orders them), at most
// four; those only not sold with the GPU (every other GPU box of its mount) are counted, not
// listed: --format json has each.
std::string rejection_lines(const SystemPlan& s) {
  constexpr size_t kShown = 4;
  std::string o;
  size_t shown = 0, more = 0, unsold = 0;
  for (const auto& x : s.choice.rejected) {
    if (x.only_not_sold()) {
      ++unsold;
      continue;
    }
    if (shown == kShown) {
      ++more;
      continue;
    }
    ++shown;
    std::string why;
    for (auto y : x.reasons) {
      why += (why.empty() ? "" : "; ") + std::string(reason_words(y));
      // Say how wide: "too wide" alone leaves the reader to look the card up.
      if (y == PlatformReason::too_wide && s.gpu.slot_width > 0)
        why += fmt::format(" (a {:g}-slot card)", s.gpu.slot_width);
    }
    o += fmt::format("  not {:<30} {}\n", x.platform_id, why);
  }
  if (more || unsold) {
    std::string rest;
    if (more) rest = fmt::format("{} more turned down on fit", more);
    if (unsold)
      rest += fmt::format("{}{} not sold with this GPU", rest.empty() ? "" : ", ", unsold);
    o += fmt::format("  others          {} (--format json lists each)\n", rest);
  }
  return o;
}

// A form factor or mount as a buyer names it.
std::string mount_words(const std::string& v) {
  if (v == "sxm") return "SXM";
  if (v == "oam") return "OAM";
  if (v == "pcie") return "PCIe";
  return v;
}

// Host decisions as the table words them (the JSON keeps the codes).
constexpr std::pair<HostReason, const char*> kHostReasonWords[] = {
    {HostReason::ram_two_x_weights, "sized by the 2 x weights rule"},
    {HostReason::ram_platform_class, "sized by what the machine ships"},
    {HostReason::ram_platform_max, "capped at the machine's maximum"},
    {HostReason::nic_per_gpu, "GPU fabric, one per GPU"},
    {HostReason::nic_stage_link, "pipeline stage link"},
    {HostReason::nic_stage_and_frontend, "dual-port: stage link and storage/front end"},
    {HostReason::nic_storage_frontend, "storage/front end"},
    {HostReason::unit_link, "the units' own link"},
};

// What a NIC is for, as the table says it.
const char* nic_role_words(HostReason r) {
  for (const auto& [reason, words] : kHostReasonWords)
    if (reason == r) return words;
  return to_string(r);
}

// A host decision's code (bom[].spec.why) in words.
std::string host_reason_words(const std::string& code) {
  for (const auto& [reason, words] : kHostReasonWords)
    if (code == to_string(reason)) return words;
  return code;
}

// A spec value with its whole number grouped as the table prints numbers ("1,400"); other text
// as it is.
std::string grouped(const std::string& v) {
  const bool whole = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
  return whole ? group_whole(std::stod(v)) : v;
}

// A BOM line's spec as a buyer reads it ("NVIDIA B300 ..., 268 GiB, 1400 W, SXM"); the JSON's
// bom[].spec keeps the keys and codes.
std::string spec_text(const BomLine& l) {
  // "{}" stands for the value; a key not listed prints as "key value".
  static const std::pair<const char*, const char*> kWords[] = {
      {"name", "{}"},
      {"vendor", "{}"},
      {"class", "{} class"},
      {"rack_units", "{}U"},
      {"memory_gib", "{} GiB"},
      {"board_power_w", "{} W"},
      {"cores", "{} cores"},
      {"tdp_w", "{} W TDP"},
      {"tdp_w_assumed", "{} W TDP (assumed)"},
      {"dimm_gib", "{} GiB DIMMs"},
      {"dimms_per_channel", "{} per channel"},
      {"channels", "{} channels"},
      {"total_gib", "{} GiB in all"},
      {"rule_gib", "2 x weights = {} GiB"},
      {"platform_gib", "shipped {} GiB"},
      {"capacity_tb", "{} TB"},
      {"required_tb", "{} TB needed"},
      {"gbit_per_s", "{} Gb/s"},
      {"x16_slots_free", "free x16 slots: {}"},
      {"capacity_w", "{} W capacity"},
      {"ports", "{} ports"},
      {"racks", "racks: {}"},
      {"volts", "{} V"},
      {"phases", "{}-phase"},
      {"breaker_a", "{} A breakers"},
  };
  std::string s;
  for (const auto& kv : l.spec) {
    // Named, not a structured binding: clang 14 cannot capture bindings in a lambda.
    const std::string& k = kv.first;
    const std::string& v = kv.second;
    std::string w;
    if (k == "form_factor" || k == "gpu_mount") {
      w = mount_words(v) + (k == "gpu_mount" ? " mount" : "");
    } else if (k == "sockets") {
      w = v + (v == "1" ? " socket" : " sockets");
    } else if (k == "why") {
      w = host_reason_words(v);
    } else if (k == "raid") {
      w = v == "none" ? "no RAID" : "RAID " + v;
    } else if (k == "watts" || k == "count" || k == "redundancy") {
      const char* what = k == "watts" ? "W each" : k == "count" ? "PSUs" : "redundancy";
      w = v == "not published" ? std::string(k == "watts" ? "rating" : k) + " not published"
          : v == "none"        ? "no redundancy"
                               : grouped(v) + " " + what;
    } else if (k == "to") {
      w = "to " + v;
    } else if (k == "rack_units" && s.find(v + "U") != std::string::npos) {
      continue;  // the form factor said it ("10U rackmount")
    } else {
      const auto it = std::find_if(std::begin(kWords), std::end(kWords),
                                   [&](const auto& e) { return k == e.first; });
      w = it == std::end(kWords) ? k + " " + v : fmt::format(fmt::runtime(it->second), grouped(v));
    }
    s += (s.empty() ? "" : ", ") + w;
  }
  return s;
}

// `text` broken after its ", " separators into lines of at most `width` columns (a longer item
// keeps its line), each line after the first indented by `indent` spaces.
std::string wrap_at_commas(const std::string& text, size_t width, size_t indent) {
  const std::vector<std::string> lines = column_lines(text, width, ',');
  std::string out = lines.front();
  for (size_t i = 1; i < lines.size(); ++i) out += "\n" + std::string(indent, ' ') + lines[i];
  return out;
}

// A BOM line's component in words, for the table and the HTML (bom[].component and bom-csv keep
// the code).
const char* bom_component_words(BomComponent c) {
  switch (c) {
    case BomComponent::platform:
      return "machine";
    case BomComponent::gpu:
      return "GPU";
    case BomComponent::cpu:
      return "CPU";
    case BomComponent::memory:
      return "memory";
    case BomComponent::os_drive:
      return "OS drive";
    case BomComponent::data_drive:
      return "data drive";
    case BomComponent::nic:
      return "NIC";
    case BomComponent::network_switch:
      return "switch";
    case BomComponent::psu:
      return "PSU";
    case BomComponent::pdu:
      return "PDU";
  }
  return "?";
}

const char* bom_reason_words(BomReason r);

// Why this line is there, in words: a desktop's one OS drive is not a mirror.
const char* bom_line_why(const BomLine& l) {
  if (l.reason == BomReason::os_mirror)
    for (const auto& [k, v] : l.spec)
      if (k == "raid" && v == "none") return "the OS drive";
  return bom_reason_words(l.reason);
}

// Why a BOM line is there, in words (bom[].why keeps the code).
const char* bom_reason_words(BomReason r) {
  switch (r) {
    case BomReason::chosen_platform:
      return "the machine chosen";
    case BomReason::model_memory:
      return "hold the model";
    case BomReason::shipped_with_platform:
      return "ships with the machine";
    case BomReason::ram_rule:
      return "the RAM the host needs";
    case BomReason::os_mirror:
      return "mirrored OS drives";
    case BomReason::model_storage:
      return "model and data storage";
    case BomReason::gpu_fabric:
      return "GPU fabric across machines";
    case BomReason::storage_frontend:
      return "storage and front-end network";
    case BomReason::rack_power:
      return "rack power distribution";
    case BomReason::unit_link:
      return "links the units";
    case BomReason::stage_link:
      return "pipeline link between machines";
  }
  return to_string(r);
}

std::string html_escape(const std::string& s) {
  return xml_escape(s);
}

std::string circuit_text(const CircuitOption& c) {
  return fmt::format("{} × {:.0f} V{} {:.0f} A ({} continuous each){}", c.circuits, c.volts,
                     c.phases == 3 ? " 3-phase" : "", c.breaker_a, watts_words(c.continuous_w),
                     c.outlet ? ", an ordinary outlet" : "");
}

// The PSUs as far as a source gives them: "6 × 3,300 W, 4+2"; what is unpublished is said to be.
std::string psu_short(const SystemPlan& s, const Plan& r) {
  const PsuPlan& u = s.psus;
  const std::string scheme = !u.redundancy_known ? "redundancy not published"
                             : u.redundancy.r    ? r.psu_redundancy + " redundancy"
                                                 : std::string("no redundancy");
  if (u.count && u.watts > 0)
    return fmt::format("{} × {}, {}", u.count, watts_words(u.watts), scheme);
  if (u.count) return fmt::format("{} bays, rating not published, {}", u.count, scheme);
  return "count, rating and redundancy not published for this platform";
}

std::string psu_words(const SystemPlan& s, const Plan& r) {
  const PsuPlan& u = s.psus;
  if (u.count && u.watts > 0)
    return fmt::format("  PSUs            {} ({} {}){}\n", psu_short(s, r),
                       watts_words(u.capacity_w),
                       u.redundancy_known ? "without the spares" : "if none is a spare",
                       u.sufficient ? "" : " — NOT sufficient");
  return "  PSUs            " + psu_short(s, r) + ": capacity not checked\n";
}

std::string nic_text(const Report& r) {
  const SystemPlan& s = *r.system;
  const PlatformModel& p = *s.platform;
  std::string t;
  for (const auto& n : s.host.nics)
    t += fmt::format("{}{} × {} Gb/s ({})", t.empty() ? "" : ", ", n.count, n.gbit_per_s,
                     nic_role_words(n.reason));
  // A PCIe server's cards against its free x16 slots (host_model.cpp free_nic_slots).
  const NicSlots& sl = s.host.nic_slots;
  if (!t.empty() && p.platform_class == PlatformClass::server && p.gpu_mount == GpuMount::pcie)
    t += sl.known ? fmt::format("; {} card{} in the {} x16 slot{} left beside the GPUs", sl.used,
                                sl.used == 1 ? "" : "s", sl.free, sl.free == 1 ? "" : "s")
                  : std::string(
                        "; the x16 slots left beside the GPUs are not published: check "
                        "the chassis' slot layout");
  // Replicas each inside one machine exchange nothing but requests.
  const bool apart = replicas_within_machines(r);
  if (t.empty() && s.host.has(HostReason::nic_onboard))
    return s.choice.nodes > 1 && !apart
               ? "the board's onboard Ethernet: the GPUs leave no slot for a network card (a "
                 "layer split passes only activations between the machines)"
               : "the board's onboard Ethernet: the GPUs leave no slot for a network card";
  if (t.empty() && (p.nics_400g_shipped || p.nics_other_shipped || p.dpus_shipped))
    t = fmt::format("as shipped: {} GPU fabric (400 Gb/s or faster), {} storage/front-end, {} DPU",
                    p.nics_400g_shipped, p.nics_other_shipped, p.dpus_shipped);
  if (!t.empty()) return t;
  if (apart)
    return fmt::format(
        "onboard Ethernet only (each of the {} machines holds whole replicas: no fabric)",
        s.choice.nodes);
  return s.choice.nodes > 1 ? "onboard Ethernet only"
                            : "onboard Ethernet only (one machine, no fabric)";
}

// Power as a horizontal bar chart: each DC part of the maximum, the maximum at the wall, the
// published figure and the typical draw.
std::string power_svg(const SystemPlan& s) {
  struct Bar {
    std::string name;
    double w;
    const char* color;
  };
  const auto& pp = s.max_power.parts;
  const std::vector<Bar> bars = {{"GPUs at TDP", pp.gpus_w, "#4e79a7"},
                                 {"baseboard", pp.baseboard_w, "#f28e2b"},
                                 {"CPUs", pp.cpus_w, "#e15759"},
                                 {"memory", pp.memory_w, "#76b7b2"},
                                 {"drives", pp.drives_w, "#59a14f"},
                                 {"NICs", pp.nics_w, "#edc948"},
                                 {"fans", pp.fans_w, "#b07aa1"},
                                 {"board", pp.board_w, "#ff9da7"},
                                 {"max at the wall", s.max_power.wall_w, "#333333"},
                                 {"published max", s.max_power.published_w, "#999999"},
                                 {"typical draw", s.typical.typical_wall_w, "#2ca02c"}};
  const int W = 760, row = 24, x0 = 150, x1 = W - 110;
  const int H = 50 + row * static_cast<int>(bars.size());
  double top = 1;
  for (const auto& b : bars) top = std::max(top, b.w);
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
      "<title>power per machine</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n"
      "<text x=\"10\" y=\"22\" font-size=\"14\" font-weight=\"bold\">Power per machine, W "
      "(parts: DC at the maximum)</text>\n",
      W, H);
  int y = 40;
  for (const auto& b : bars) {
    if (b.w <= 0) continue;
    const double len = Axis{x0, x1, top}.length(b.w);
    o += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><rect x=\"{}\" y=\"{}\" "
        "width=\"{:.1f}\" height=\"16\" fill=\"{}\"/><text x=\"{:.1f}\" y=\"{}\">{:.0f}</text>\n",
        x0 - 8, y + 12, xml_escape(b.name), x0, y, std::max(1.0, len), b.color, x0 + len + 6,
        y + 12, b.w);
    y += row;
  }
  return o + "</svg>\n";
}

}  // namespace

std::string fit_words(const Plan& p) {
  if (!p.fit) return "";
  const FitVerdict& v = *p.fit;
  const double h = percent_of(v.headroom_fraction), rule = percent_of(v.requested_headroom);
  switch (v.fit) {
    case Fit::fits:
      return fmt::format("fits with {:.1f}% headroom (the {:.0f}% rule holds)", h, rule);
    case Fit::tight:
      return fmt::format(
          "fits tight with {:.1f}% headroom, below the {:.0f}% rule (above the {:.1f}% the "
          "engine needs: {})",
          h, rule, percent_of(v.engine_margin), v.margin_source);
    case Fit::no:
      // Held within the memory but not within the share the engine's rule leaves (a serving
      // engine's headroom is its own: it does not start).
      if (h >= 0)
        return fmt::format(
            "does not fit: {:.1f}% headroom, below the {:.1f}% the engine's memory share leaves", h,
            percent_of(v.requested_headroom));
      return fmt::format("does not fit: {:.1f}% short of what each GPU must hold (rule {:.0f}%)",
                         -h, rule);
  }
  return "";
}

namespace {

// Power and cooling of the machine: maximum (as rated), typical, PSUs, circuits, heat, energy,
// racks.
std::string power_section(const Report& r, const SystemPlan& s, const PlatformModel& p) {
  std::string o;
  const bool unified = p.platform_class == PlatformClass::unified;
  o += "\nPower and cooling, as vendors rate it (maximum) and as it is drawn (typical)\n";
  const auto& pp = s.max_power.parts;
  if (unified)
    o += fmt::format("  maximum         {} at the wall per unit{}\n",
                     watts_words(s.max_power.wall_w),
                     s.max_power.published_w > 0
                         ? std::string(", the maker's published maximum")
                         : std::string(", its power supply's rating (no published maximum)"));
  else
    o += fmt::format(
        "  maximum         {} at the wall per machine{} (GPUs {}, baseboard {}, CPUs {}, memory "
        "{}, drives {}, NICs {}, fans {}, board {} W DC)\n",
        watts_words(s.max_power.wall_w),
        s.max_power.published_w > 0 ? fmt::format("; the vendor publishes {} ({:+.1f}%)",
                                                  watts_words(s.max_power.published_w),
                                                  percent_of(s.max_power.over_published()))
                                    : std::string(),
        group_whole(pp.gpus_w), group_whole(pp.baseboard_w), group_whole(pp.cpus_w),
        group_whole(pp.memory_w), group_whole(pp.drives_w), group_whole(pp.nics_w),
        group_whole(pp.fans_w), group_whole(pp.board_w));
  if (unified) {
    // Busy and idle each as its source gives it: the maker's or a measured figure, else scaled
    // from the maximum.
    const bool busy = p.typical_power_w > 0, idle = p.idle_power_w > 0;
    o += fmt::format("  typical         {} per unit (busy {}, idle {}{})\n",
                     watts_words(s.typical.typical_wall_w), watts_words(s.typical.busy_wall_w),
                     watts_words(s.typical.idle_wall_w),
                     busy && idle ? ", as measured"
                     : busy       ? "; busy as measured, idle scaled from the maximum"
                     : idle       ? "; idle as measured, busy scaled from the maximum"
                                  : ", scaled from the maximum");
  } else {
    o += fmt::format(
        "  typical         {} per machine (busy {}, idle {}; GPUs at {:.0f}% of board power "
        "decoding, {:.0f}% in prefill)\n",
        watts_words(s.typical.typical_wall_w), watts_words(s.typical.busy_wall_w),
        watts_words(s.typical.idle_wall_w), percent_of(s.typical.gpu_decode_fraction),
        percent_of(s.typical.gpu_prefill_fraction));
  }
  if (s.choice.nodes > 1)
    o += fmt::format("  all machines    maximum {}, typical {}\n", watts_words(s.max_wall_w_total),
                     watts_words(s.typical_wall_w_total));
  o += psu_words(s, r);
  for (const CircuitOption* c : circuits_shown(r))
    o += fmt::format("  circuit         {}\n", circuit_text(*c));
  if (p.psu.redundancy.r > 0)
    o += "  feeds           A and B: each feed sized for the whole load\n";
  o += fmt::format("  heat            {} BTU/h at the maximum\n",
                   group_whole(s.heat_btu_per_h_total));
  if (const PowerPlan* pw = r.power ? &*r.power : nullptr)
    o += fmt::format(
        "  energy          {} kWh per year from the typical draw, busy {:.0f}% of "
        "the time\n",
        group_whole(pw->energy_kwh_per_year), percent_of(r.power_input.duty_cycle));
  if (s.racks.racks)
    o += fmt::format("  racks           {} rack{}, {}, {:.1f} kW per rack, {} PDUs\n",
                     s.racks.racks, s.racks.racks == 1 ? "" : "s",
                     s.racks.rack_units ? fmt::format("{}U", s.racks.rack_units)
                                        : std::string("height not in the catalog"),
                     s.racks.kw_per_rack, s.racks.pdus);

  return o;
}

}  // namespace

std::string render_system_table(const Report& r, size_t width) {
  std::string o;
  if (r.fit)
    o += fmt::format("\nFit       {} — {:.2f} GiB per GPU without headroom, {:.2f} GiB usable\n",
                     fit_words(r), gib_of(r.fit->need_bytes), gib_of(r.fit->capacity_bytes));
  if (!r.system) return o;
  const SystemPlan& s = *r.system;
  if (!s.platform) {
    o += "\nMachine   no platform in the catalog takes these GPUs";
    for (const auto& x : s.choice.rejected)
      o += fmt::format("\n  {:<34} {}", x.platform_id, reasons_text(x.reasons));
    return o + "\n";
  }
  const PlatformModel& p = *s.platform;
  o += fmt::format("\nMachine   {} ({}, {}{}) × {}, {} GPU{} each\n", p.name,
                   to_string(p.platform_class), p.form_factor,
                   p.rack_units && p.form_factor.find('U') == std::string::npos
                       ? fmt::format(", {}U", p.rack_units)
                       : std::string(),
                   s.choice.nodes, s.choice.gpus_per_node, s.choice.gpus_per_node == 1 ? "" : "s");
  o += fmt::format("  why             {}\n", reasons_text(s.choice.reasons));
  if (p.generic)
    o += fmt::format("  generic         no sourced catalog machine takes {}: {}\n", r.gpu->gpu.id,
                     p.basis);
  o += rejection_lines(s);
  const HostSizing& h = s.host;
  o += fmt::format("  CPU             {} socket{} × {}{}\n", h.cpu_sockets,
                   h.cpu_sockets == 1 ? "" : "s", p.cpu_model.empty() ? "CPU" : p.cpu_model,
                   h.cpu_cores ? fmt::format(", {} cores", h.cpu_cores) : std::string());
  const bool unified = p.platform_class == PlatformClass::unified;
  if (unified)
    // One pool for CPU and GPU, soldered: no DIMMs, no drives to buy (built-in SSD).
    o += fmt::format(
        "  memory          {:.0f} GiB unified per unit, the GPU may use {:.0f} GiB; storage built "
        "in\n",
        gib_of(r.gpu ? r.gpu->gpu.memory_bytes : h.ram.installed_bytes),
        gib_of(s.gpu_usable_bytes));
  else if (h.ram.reason == HostReason::ram_soldered)
    o +=
        fmt::format("  System RAM      {:.0f} GiB {}, as shipped (2 × weights{} rule {:.0f} GiB)\n",
                    gib_of(h.ram.installed_bytes), p.memory_type,
                    r.train ? ", × 2 for fine-tuning," : "", gib_of(h.ram.rule_bytes));
  else
    o += fmt::format(
        "  System RAM      {} × {} GiB = {:.0f} GiB, {} per channel (2 × weights{} rule {:.0f} "
        "GiB; the class ships {:.0f} GiB)\n",
        h.ram.dimms, h.ram.dimm_gib, gib_of(h.ram.installed_bytes), h.ram.dimms_per_channel,
        r.train ? ", × 2 for fine-tuning," : "", gib_of(h.ram.rule_bytes),
        gib_of(h.ram.platform_bytes));
  o += fmt::format("  NICs            {}\n", nic_text(r));
  if (!unified)
    o += fmt::format("  OS drive        {}{} × {:.2f} TB; Data storage {} × {:.2f} TB\n",
                     h.storage.os_drives > 1 ? "mirror " : "", h.storage.os_drives,
                     tb_of(h.storage.os_drive_bytes), h.storage.data_drives,
                     tb_of(h.storage.data_drive_bytes));

  o += "\nBill of materials, lines you can buy (--format bom-csv)\n";
  size_t w0 = 9;
  for (const auto& l : s.bom()) w0 = std::max(w0, l.part.size());
  // The spec wraps at its commas to keep the table within the width (120 columns unless asked);
  // where its column would be narrower than 30, it goes under the line, from the part's column.
  const size_t cols = width ? width : 120;
  const size_t beside = 2 + 10 + 2 + w0 + 2 + 4 + 2 + 10 + 2;
  const bool under = beside + 30 > cols;
  const size_t indent = under ? 2 + 10 + 2 : beside;
  const size_t room = cols > indent + 30 ? cols - indent : 30;
  o += fmt::format("  {:<10}  {:<{}}  {:>4}  {:>10}{}spec\n", "component", "part", w0, "qty",
                   "unit", under ? "\n" + std::string(indent, ' ') : "  ");
  for (const auto& l : s.bom())
    o += fmt::format("  {:<10}  {:<{}}  {:>4}  {:>10}{}{}\n", bom_component_words(l.component),
                     l.part, w0, l.qty,
                     l.included             ? "included"
                     : l.unit_price_usd > 0 ? usd_words(l.unit_price_usd)
                                            : "no price",
                     under ? "\n" + std::string(indent, ' ') : "  ",
                     wrap_at_commas(spec_text(l), room, indent));
  o += fmt::format(
      "  total {}{}\n", usd_words(s.bom_total_usd),
      std::any_of(s.bom().begin(), s.bom().end(),
                  [](const BomLine& l) { return !l.included && !(l.unit_price_usd > 0); })
          ? " (a floor: some lines have no public price)"
          : "");

  o += power_section(r, s, p);

  o += fmt::format("\nCold start from {} ({:.1f} s to serving; load {:.1f} s)\n",
                   storage_spec(r.storage).name, s.cold_start.total_s, s.cold_start.load_s);
  for (const auto& st : s.cold_start.steps)
    o += fmt::format(
        "  {:<15} {:>7.1f} s{}\n", step_words(st.step), st.seconds,
        st.rate_gb_per_s > 0 ? fmt::format(" at {:.2f} GB/s", st.rate_gb_per_s)
        : st.step == StartStep::copy_to_gpu
            ? std::string(" (unified memory: the GPU uses the memory the weights were read into)")
            : std::string());
  return o;
}

std::string render_bom_csv(const Report& r) {
  std::string o = "component,part,spec,qty,unit_price_usd,price_source,included_in,why\n";
  const SystemPlan* s = machine(r);
  if (!s) return o;
  for (const auto& l : s->bom())
    o += fmt::format("{},{},{},{},{},{},{},{}\n", csv_text_cell(to_string(l.component)),
                     csv_text_cell(l.part), csv_text_cell(spec_text(l)), l.qty,
                     !l.included && l.unit_price_usd > 0 ? fmt::format("{:.2f}", l.unit_price_usd)
                                                         : std::string(),
                     csv_text_cell(l.price_source), l.included ? "platform" : "",
                     csv_text_cell(bom_line_why(l)));
  return o;
}

std::string render_html(const Report& r) {
  const std::string model = r.model.spec.id.empty() ? r.model.spec.name : r.model.spec.id;
  const std::string title =
      fmt::format("llmsize procurement report: {} {}{}", model, r.quant->id,
                  r.gpu ? fmt::format(" on {} × {}", r.gpu->count, r.gpu->gpu.id) : std::string());
  std::string o =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
      html_escape(title) +
      "</title>\n<style>\nbody{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:24px;"
      "color:#222;background:#fff}\nh1{font-size:22px}h2{font-size:17px;border-bottom:2px solid "
      "#4e79a7;padding-bottom:3px;margin-top:28px}\ntable{border-collapse:collapse;font-size:13px}"
      "\ntd,th{border:1px solid #bbb;padding:4px 8px;text-align:left;vertical-align:top}\nth{"
      "background:#e8eef6}\n.fits{color:#1a7f1a}.tight{color:#b36b00}.no{color:#c00}\n.src{font-"
      "size:11px;color:#555;word-break:break-word}\n</style>\n</head>\n<body>\n";
  o += "<h1>" + html_escape(title) + "</h1>\n";
  if (const auto answer = answer_lines(r); !answer.empty()) {
    o += "<h2>Answer</h2>\n<ul>\n";
    for (const auto& a : answer) o += "<li>" + html_escape(a) + "</li>\n";
    o += "</ul>\n";
  }
  if (r.fit)
    o += fmt::format("<p class=\"{}\"><b>Fit:</b> {}</p>\n", to_string(r.fit->fit),
                     html_escape(fit_words(r)));
  const SystemPlan* s = machine(r);
  if (s) {
    const PlatformModel& p = *s->platform;
    o += fmt::format(
        "<h2>Machine</h2>\n<p><b>{}</b> ({}, {}) × {}, {} GPUs each. Why: {}.</p>\n"
        "<p>{} socket(s) {}, {} cores · RAM {} × {} GiB · NICs: {}</p>\n",
        html_escape(p.name), to_string(p.platform_class), html_escape(p.form_factor),
        s->choice.nodes, s->choice.gpus_per_node, html_escape(reasons_text(s->choice.reasons)),
        s->host.cpu_sockets, html_escape(p.cpu_model), s->host.cpu_cores, s->host.ram.dimms,
        s->host.ram.dimm_gib, html_escape(nic_text(r)));
    o += "<h2>Bill of materials</h2>\n<table>\n<tr><th>component</th><th>part</th><th>spec</th>"
         "<th>qty</th><th>unit price</th><th>price source</th><th>why</th></tr>\n";
    for (const auto& l : s->bom())
      o += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"src\">{}</td>"
          "<td>{}</td></tr>\n",
          bom_component_words(l.component), html_escape(l.part), html_escape(spec_text(l)), l.qty,
          l.included             ? "included"
          : l.unit_price_usd > 0 ? usd_words(l.unit_price_usd)
                                 : "no price",
          html_escape(l.price_source), bom_line_why(l));
    o += fmt::format(
        "<tr><th colspan=\"4\">total (priced lines)</th><th>{}</th><th "
        "colspan=\"2\"></th></tr>\n</table>\n",
        usd_words(s->bom_total_usd));
  }
  // The table's serving, speed and cost blocks: users, per-user speed, aggregate, TTFT, cost.
  for (const Block& b : answer_blocks(r)) {
    o += "<h2>" + html_escape(b.title) + "</h2>\n<table>\n";
    for (const auto& [label, value] : b.rows)
      o += "<tr><th>" + html_escape(label) + "</th><td>" + html_escape(value) + "</td></tr>\n";
    o += "</table>\n";
  }
  o += "<h2>Memory</h2>\n";
  std::string svg = memory_svg(r);
  if (svg.rfind("<?xml", 0) == 0) svg = svg.substr(svg.find('\n') + 1);
  o += svg;
  if (s) {
    o += "<h2>Power</h2>\n" + power_svg(*s);
    o += fmt::format("<p>Maximum {} per machine, typical {}; PSUs {}; heat {} BTU/h.</p>\n",
                     watts_words(s->max_power.wall_w), watts_words(s->typical.typical_wall_w),
                     html_escape(psu_short(*s, r)), group_whole(s->heat_btu_per_h_total));
    o += "<table>\n<tr><th>circuit</th></tr>\n";
    for (const CircuitOption* c : circuits_shown(r))
      o += "<tr><td>" + html_escape(circuit_text(*c)) + "</td></tr>\n";
    o += "</table>\n";
    o += fmt::format(
        "<h2>Cold start from {}</h2>\n<table>\n<tr><th>step</th><th>seconds</th>"
        "<th>rate</th><th>source</th></tr>\n",
        storage_spec(r.storage).name);
    for (const auto& st : s->cold_start.steps)
      o += fmt::format(
          "<tr><td>{}</td><td>{:.1f}</td><td>{}</td><td class=\"src\">{}</td></tr>\n",
          step_words(st.step), st.seconds,
          st.rate_gb_per_s > 0 ? fmt::format("{:.2f} GB/s", st.rate_gb_per_s) : std::string(),
          html_escape(st.source));
    o += fmt::format("<tr><th>total</th><th>{:.1f}</th><th colspan=\"2\"></th></tr>\n</table>\n",
                     s->cold_start.total_s);
  }
  o += "<h2>Checklist</h2>\n<ul>\n";
  for (const auto& c : r.checklist) o += "<li>&#9744; " + html_escape(c) + "</li>\n";
  o += "</ul>\n";
  if (!r.warnings.empty()) {
    o += "<h2>Warnings</h2>\n<ul>\n";
    for (const auto& w : r.warnings) o += "<li>" + html_escape(w) + "</li>\n";
    o += "</ul>\n";
  }
  o += "<h2>Sources of the catalog facts</h2>\n<ul class=\"src\">\n";
  if (r.gpu)
    o += fmt::format(
        "<li><b>GPU {}</b>: the GPU catalog (data/gpus.json, each row with its "
        "source){}</li>\n",
        html_escape(r.gpu->gpu.id),
        r.gpu->gpu.price_usd > 0
            ? html_escape(fmt::format("; price {} ({} {})", usd_words(r.gpu->gpu.price_usd),
                                      r.gpu->gpu.price_kind, r.gpu->gpu.price_date))
            : std::string());
  if (s) {
    o += fmt::format("<li><b>platform {}</b>: {}</li>\n", html_escape(s->platform->id),
                     html_escape(source_words(s->platform->source)));
    if (!s->platform->price_source.empty())
      o += fmt::format("<li><b>platform price</b>: {}</li>\n",
                       html_escape(s->platform->price_source));
    for (const auto& l : s->bom())
      if (!l.price_source.empty())
        o += fmt::format("<li><b>{} price</b>: {}</li>\n", html_escape(l.part),
                         html_escape(l.price_source));
    o += fmt::format("<li><b>storage {}</b>: {}</li>\n", storage_spec(r.storage).name,
                     html_escape(storage_spec(r.storage).source));
  }
  o += "</ul>\n<p class=\"src\">Generated by llmsize; formulas in docs/formulas.md.</p>\n"
       "</body>\n</html>\n";
  return o;
}

}  // namespace llmsize::cli
