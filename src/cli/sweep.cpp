#include "cli/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "cli/plot.hpp"
#include "cli/report.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {

const std::vector<std::string>& report_columns() {
  static const std::vector<std::string> kColumns = {"schema_version",
                                                    "model.name",
                                                    "model.id",
                                                    "model.source",
                                                    "model.assumed",
                                                    "model.arch",
                                                    "model.params",
                                                    "model.active_params",
                                                    "model.weights_bytes",
                                                    "model.bits_per_weight",
                                                    "model.n_layer",
                                                    "model.n_embd",
                                                    "model.n_head",
                                                    "model.n_head_kv",
                                                    "model.n_ctx_train",
                                                    "settings.quant",
                                                    "settings.quant_requested",
                                                    "settings.kv_quant",
                                                    "settings.context",
                                                    "settings.batch",
                                                    "settings.ubatch",
                                                    "settings.flash_attn",
                                                    "settings.headroom",
                                                    "settings.overhead_bytes_per_gpu",
                                                    "settings.engine",
                                                    "vram.weights_bytes",
                                                    "vram.weights_host_bytes",
                                                    "vram.kv_cache_bytes",
                                                    "vram.activations_bytes",
                                                    "vram.overhead_bytes",
                                                    "vram.headroom_bytes",
                                                    "vram.total_bytes",
                                                    "vram.total_bytes_low",
                                                    "vram.total_bytes_high",
                                                    "vram.kv_cells",
                                                    "vram.kv_cells_swa",
                                                    "vram.compute_buffer_bytes_per_gpu",
                                                    "vram.kv_available_bytes",
                                                    "vram.gpus",
                                                    "vram.rule_of_thumb_bytes",
                                                    "gpu.name",
                                                    "gpu.id",
                                                    "gpu.recommended",
                                                    "gpu.count",
                                                    "gpu.count_needed",
                                                    "gpu.memory_bytes_each",
                                                    "gpu.usable_bytes_each",
                                                    "gpu.per_gpu_bytes",
                                                    "gpu.fits",
                                                    "gpu.split",
                                                    "gpu.tp_degree",
                                                    "gpu.nodes",
                                                    "gpu.interconnect",
                                                    "gpu.price_usd_each",
                                                    "gpu.offload_layers_gpu",
                                                    "gpu.offload_layers_cpu",
                                                    "gpu.offload_ram_bytes",
                                                    "gpu.count_24gib",
                                                    "gpu.count_48gib",
                                                    "gpu.count_80gib",
                                                    "system.platform",
                                                    "system.ram_bytes",
                                                    "system.ram_required_bytes",
                                                    "system.ram_dimms",
                                                    "system.ram_dimm_gib",
                                                    "system.storage_bytes",
                                                    "system.data_drive_bytes",
                                                    "system.data_drives",
                                                    "system.os_drive_bytes",
                                                    "system.load_time_s",
                                                    "system.load_time_s_hdd_7200_rpm",
                                                    "system.load_time_s_sata_ssd",
                                                    "system.load_time_s_nvme_pcie_3_0",
                                                    "system.load_time_s_nvme_pcie_4_0",
                                                    "system.load_time_s_nvme_pcie_5_0",
                                                    "system.cpu_cores",
                                                    "system.pcie_lanes",
                                                    "system.ram_bandwidth_gb_per_s",
                                                    "power.peak_watts",
                                                    "power.psu_watts",
                                                    "power.psu_count",
                                                    "power.wall_watts",
                                                    "power.mains_volts",
                                                    "power.circuit_amps",
                                                    "power.fits_ordinary_outlet",
                                                    "power.circuit",
                                                    "power.heat_watts",
                                                    "power.heat_btu_per_hour",
                                                    "power.energy_kwh_per_year",
                                                    "throughput.decode_tokens_per_s",
                                                    "throughput.decode_tokens_per_s_low",
                                                    "throughput.decode_tokens_per_s_high",
                                                    "throughput.aggregate_tokens_per_s",
                                                    "throughput.prefill_tokens_per_s",
                                                    "throughput.prefill_tokens_per_s_low",
                                                    "throughput.prefill_tokens_per_s_high",
                                                    "throughput.time_to_first_token_s",
                                                    "throughput.prompt_tokens",
                                                    "throughput.max_concurrent_sequences",
                                                    "throughput.calibration",
                                                    "throughput.users",
                                                    "throughput.target_tokens_per_s",
                                                    "throughput.capacity_gpus",
                                                    "throughput.capacity_tp_degree",
                                                    "throughput.capacity_replicas",
                                                    "throughput.capacity_limited_by",
                                                    "cost.hardware_usd",
                                                    "cost.gpus_usd",
                                                    "cost.host_usd",
                                                    "cost.energy_usd_per_year",
                                                    "cost.usd_per_million_tokens",
                                                    "cost.cloud_usd_per_million_tokens",
                                                    "cost.breakeven_months",
                                                    "cost.years",
                                                    "cost.utilization",
                                                    "cost.kwh_price_usd",
                                                    "checklist",
                                                    "warnings"};
  return kColumns;
}

namespace {

using ojson = nlohmann::ordered_json;

// The memory classes of the main command's "GPUs needed" (app.cpp kClasses).
constexpr uint32_t kClassesGib[] = {24, 48, 80};

double r2(double v) {
  return std::round(v * 100) / 100;
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Items of a comma-separated list flag (CLI11 splits on commas; spaces trimmed, empties refused).
std::vector<std::string> list_items(const std::string& flag, const std::vector<std::string>& given,
                                    const std::vector<std::string>& fallback) {
  const auto& src = given.empty() ? fallback : given;
  std::vector<std::string> out;
  for (auto s : src) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    s = b == std::string::npos ? "" : s.substr(b, e - b + 1);
    if (s.empty()) throw InputError(flag + ": empty item in the list");
    out.push_back(s);
  }
  if (out.empty()) throw InputError(flag + ": needs at least one value");
  return out;
}

// Writes one value of the main command's JSON (parsed back) into the writer.
void write_json_value(RowWriter& w, const ojson* v) {
  if (!v) return w.skip();
  switch (v->type()) {
    case ojson::value_t::null:
      return w.null();
    case ojson::value_t::boolean:
      return w.boolean(v->get<bool>());
    case ojson::value_t::number_unsigned:
      return w.u64(v->get<uint64_t>());
    case ojson::value_t::number_integer: {
      const auto i = v->get<int64_t>();
      if (i >= 0) return w.u64(static_cast<uint64_t>(i));
      return w.number_text(v->dump());  // kept exact
    }
    case ojson::value_t::number_float:
      return w.f64(v->get<double>());
    case ojson::value_t::string:
      return w.str(v->get_ref<const std::string&>());
    case ojson::value_t::array: {
      std::vector<std::string> items;
      for (const auto& x : *v) items.push_back(x.is_string() ? x.get<std::string>() : x.dump());
      std::vector<std::string_view> views(items.begin(), items.end());
      return w.strs(views.data(), views.size());
    }
    default:
      return w.number_text(v->dump());
  }
}

// A report written as a row through its JSON: the reference for the fast path. `marks`, when
// given, receives the output offset at which each column starts (and the end).
void write_report_row(const Report& r, RowWriter& w, std::string& out,
                      std::vector<size_t>* marks = nullptr) {
  const ojson j = ojson::parse(render_json(r));
  w.begin(out);
  for (const auto& c : w.columns()) {
    if (marks) marks->push_back(out.size());
    const auto dot = c.find('.');
    const ojson* v = nullptr;
    if (dot == std::string::npos) {
      if (j.contains(c)) v = &j.at(c);
    } else {
      const std::string g = c.substr(0, dot), k = c.substr(dot + 1);
      if (j.contains(g) && j.at(g).contains(k)) v = &j.at(g).at(k);
    }
    write_json_value(w, v);
  }
  if (marks) marks->push_back(out.size());
  w.end();
}

struct GpuEntry {
  GpuSpec spec;  // with --price applied
  std::string id_given;
  std::string unified_warning;
  std::string whole_computer_warning;
  std::string no_price_warning;
  std::string calibration_warning;
};

// Everything of a row that depends on the GPU, its count, the tensor-parallel degree and what
// the host keeps in RAM, computed once: plan text, host, power, checklist, and their columns.
struct HostEntry {
  std::string split, link;
  uint32_t nodes = 1;
  bool has_host = false;
  HostPlan host;
  uint32_t ram_channels = 0;
  double ram_bw = 0;
  bool has_power = false;
  PowerPlan power;
  double host_usd = 0;
  std::string seg_system_a;   // system.platform and system.ram_bytes, written
  std::string seg_system_b;   // system.ram_dimms to the last power.* column, written
  std::string seg_checklist;  // the checklist column, written
};

// What a HostEntry depends on: system.ram_required_bytes varies with the RAM the host holds for
// offloaded layers and is written per row; the DIMM population it leads to is part of the key.
struct HostKey {
  uint32_t gpu, count, tp, dimms, dimm_gib;
  bool operator==(const HostKey& o) const {
    return gpu == o.gpu && count == o.count && tp == o.tp && dimms == o.dimms &&
           dimm_gib == o.dimm_gib;
  }
};
struct HostKeyHash {
  size_t operator()(const HostKey& k) const {
    uint64_t h = (uint64_t{k.gpu} << 48) ^ (uint64_t{k.count} << 32) ^ (uint64_t{k.tp} << 24) ^
                 (uint64_t{k.dimms} << 16) ^ k.dimm_gib;
    h *= 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// One model x quantization.
struct Group {
  std::string model_given, quant_given;
  Report ref;          // build_report() of the group's first configuration
  std::string prefix;  // written columns before settings.context
  std::string middle;  // written columns after settings.context, before vram.*
  std::vector<std::string>
      lead_warnings;  // before the GPU's: "assumed: ...", "--quant ... is ignored"
  std::vector<std::string> tail_warnings;  // after the estimate's: quant alias, checkpoint format
  std::vector<std::optional<Estimate>> estimates;  // [ctx][count], made on first use
  std::vector<std::optional<HostPlan>>
      base_hosts;  // [gpu][count] without offload, made on first use
  std::unordered_map<HostKey, HostEntry, HostKeyHash> hosts;
};

// The computed values of one row.
struct RowState {
  const Estimate* e = nullptr;
  RunConfig c;
  uint32_t ctx = 0, count = 0;
  uint32_t classes[3] = {0, 0, 0};
  uint32_t count_needed = 0, tp = 0;
  uint64_t per_gpu = 0;
  bool fits = false;
  bool has_offload = false;
  Offload offload;
  uint32_t max_sequences = 0;
  uint64_t kv_available = 0;
  HostPlan row_host;                    // the host of a row that offloads layers
  const HostPlan* host_plan = nullptr;  // null without a host (unified memory)
  const HostEntry* host = nullptr;
  Speed speed;
  bool has_cost = false;
  CostPlan cost;
  CostInput cost_input;
};

}  // namespace

struct Sweep::Impl {
  Options base;
  Catalog cat;
  std::vector<std::string> models, quants;
  std::vector<uint32_t> ctxs, counts;
  std::vector<GpuEntry> gpus;
  std::vector<Group> groups;  // [model][quant]
  bool only_fits = false;
  bool fast = true;
  RowFormat format = RowFormat::csv;
  bool tensor_split = false;
  uint32_t keep_models = 3;
  double dataset_gb = 0;
  uint32_t ram_channels_flag = 0;
  uint32_t ram_mts = 4800;
  RowWriter csv{RowFormat::csv, report_columns()};
  RowWriter jsonl{RowFormat::jsonl, report_columns()};
  size_t col_ctx = 0, col_vram = 0, col_system = 0, col_throughput = 0, col_checklist = 0;
  SweepPlotData plot;
  std::vector<std::string_view> warning_items;

  Impl(const Options& o, const Catalog& c) : base(o), cat(c) {}

  RowWriter& writer(RowFormat f) { return f == RowFormat::csv ? csv : jsonl; }

  Options row_options(size_t mi, size_t qi, size_t ci, size_t gi, size_t ni) const {
    Options r = base;
    r.model = models[mi];
    r.quant = quants[qi];
    r.ctx = std::to_string(ctxs[ci]);
    r.gpu = gpus[gi].id_given;
    r.gpus = std::to_string(counts[ni]);
    return r;
  }

  uint64_t size() const {
    uint64_t n = 1;
    for (uint64_t k : {models.size(), quants.size(), ctxs.size(), gpus.size(), counts.size()})
      n = checked_mul(n, k);
    return n;
  }

  void decode(uint64_t index, size_t& mi, size_t& qi, size_t& ci, size_t& gi, size_t& ni) const {
    ni = static_cast<size_t>(index % counts.size());
    index /= counts.size();
    gi = static_cast<size_t>(index % gpus.size());
    index /= gpus.size();
    ci = static_cast<size_t>(index % ctxs.size());
    index /= ctxs.size();
    qi = static_cast<size_t>(index % quants.size());
    mi = static_cast<size_t>(index / quants.size());
  }

  Group& group(size_t mi, size_t qi) { return groups[mi * quants.size() + qi]; }

  void setup_group(Group& g, size_t mi, size_t qi) {
    g.model_given = models[mi];
    g.quant_given = quants[qi];
    g.ref = build_report(row_options(mi, qi, 0, 0, 0), cat);
    const Report& r = g.ref;
    // The model and settings columns are the reference's own (constant over the group).
    std::string text;
    std::vector<size_t> marks;
    write_report_row(r, csv, text, &marks);
    if (format == RowFormat::jsonl) {
      text.clear();
      marks.clear();
      write_report_row(r, jsonl, text, &marks);
    }
    g.prefix = text.substr(0, marks[col_ctx]);
    g.middle = text.substr(marks[col_ctx + 1], marks[col_vram] - marks[col_ctx + 1]);
    // Warnings in build_report()'s order.
    if (!r.model.assumption.empty()) g.lead_warnings.push_back("assumed: " + r.model.assumption);
    if (r.model.exact_weights) {
      const QuantPreset* fq = find_quant_preset(r.model.file_quant);
      if (fq && lower(quants[qi]) != "q4_k_m" && find_quant_preset(quants[qi]) != fq)
        g.lead_warnings.push_back("--quant " + quants[qi] +
                                  " is ignored: the file's tensors give the weights (" + fq->id +
                                  ")");
    }
    for (auto& w : quant_warnings(r)) g.tail_warnings.push_back(std::move(w));
    g.estimates.assign(ctxs.size() * counts.size(), std::nullopt);
    g.base_hosts.assign(gpus.size() * counts.size(), std::nullopt);
  }

  const Estimate& estimate_at(Group& g, size_t ci, size_t ni) {
    auto& slot = g.estimates[ci * counts.size() + ni];
    if (!slot) {
      RunConfig c = g.ref.config;
      c.kv.n_ctx = ctxs[ci];
      c.n_gpus = counts[ni];
      slot = estimate(g.ref.model.spec, c, &g.ref.estimate.weights, /*derivations=*/false);
    }
    return *slot;
  }

  // The host plan of build_report() for this GPU, count and RAM-resident weights.
  HostPlan plan_row_host(const Estimate& e, const GpuSpec& gpu, uint32_t count,
                         uint64_t host_weights) const {
    HostInput hi;
    hi.n_gpus = count;
    hi.gpu_slot_width = gpu.slot_width;
    hi.gpu_is_module = gpu.is_module();
    hi.weights_bytes = e.weights.bytes;
    hi.host_weights_bytes = host_weights;
    hi.keep_models = keep_models;
    hi.dataset_bytes = static_cast<uint64_t>(dataset_gb * 1e9);
    hi.fine_tuning = false;
    hi.checkpoint_bytes = 0;
    const uint32_t per_node = max_gpus_per_node(gpu);
    hi.nics = (count + per_node - 1) / per_node > 1 ? 1 : 0;  // GpuPlan::nodes > 1
    return plan_host(hi);
  }

  const HostEntry& host_entry(Group& g, size_t gi, const RowState& s) {
    const HostPlan* hp = s.host_plan;
    const HostKey key{static_cast<uint32_t>(gi), s.count, s.tp, hp ? hp->ram.dimms : 0,
                      hp ? hp->ram.dimm_gib : 0};
    auto it = g.hosts.find(key);
    if (it != g.hosts.end()) return it->second;
    const Report& ref = g.ref;
    const GpuSpec& gpu = gpus[gi].spec;
    HostEntry h;
    const GpuPlan plan = plan_gpus(ref.model.spec, *s.e, s.c, gpu, s.count);
    h.split = plan.split;
    h.link = plan.link;
    h.nodes = plan.nodes;
    h.has_host = hp != nullptr;
    if (h.has_host) h.host = *hp;
    h.ram_channels = ram_channels_flag ? ram_channels_flag
                     : h.has_host      ? platform_spec(h.host.platform).memory_channels
                                       : 2;
    h.ram_bw = gpu.unified_memory ? gpu.bandwidth_gb_per_s
                                  : ram_bandwidth_gb_per_s(h.ram_channels, ram_mts);
    PowerInput pi = ref.power_input;
    if (h.has_host) {
      pi.n_gpus = s.count;
      pi.gpu_board_w = gpu.board_power_w;
      pi.platform = h.host.platform;
      pi.dimms = h.host.ram.dimms;
      pi.nvme_drives = h.host.storage.data_drives + 1;
      h.power = plan_power(pi);
      h.has_power = true;
      h.host_usd =
          host_base_usd(static_cast<int>(h.host.platform)) +
          kRamUsdPerGib * static_cast<double>(h.host.ram.installed_bytes) / kGiB +
          kNvmeUsdPerTb *
              (static_cast<double>(h.host.storage.drive_bytes) * h.host.storage.data_drives +
               static_cast<double>(h.host.storage.os_drive_bytes)) /
              1e12;
    }
    // The system and power columns but system.ram_required_bytes. The writer's state is its column
    // index: start each segment there.
    RowWriter& w = writer(format);
    w.begin(h.seg_system_a);
    w.segment("", col_system);
    if (h.has_host) {
      w.str(platform_name(h.host.platform));
      w.u64(h.host.ram.installed_bytes);
    } else {
      w.null();
      w.null();
    }
    w.begin(h.seg_system_b);
    w.segment("", col_system + 3);
    if (h.has_host) {
      const HostPlan& hh = h.host;
      w.u64(hh.ram.dimms);
      w.u64(hh.ram.dimm_gib);
      w.u64(hh.storage.required_bytes);
      w.u64(hh.storage.drive_bytes);
      w.u64(hh.storage.data_drives);
      w.u64(hh.storage.os_drive_bytes);
      w.f64(r2(hh.load_times[3].seconds));
      for (size_t i = 0; i < 5; ++i) w.f64(r2(hh.load_times[i].seconds));
      w.u64(hh.cpu_cores);
      w.u64(hh.pcie_lanes_needed);
    } else {
      for (int i = 0; i < 6; ++i) w.null();
      w.null();
      for (int i = 0; i < 5; ++i) w.skip();
      w.null();
      w.null();
    }
    h.ram_bw > 0 ? w.f64(r2(h.ram_bw)) : w.null();
    if (h.has_power) {
      const PowerPlan& p = h.power;
      w.f64(std::round(p.peak_w));
      w.f64(p.psu_w);
      w.u64(p.psus);
      w.f64(std::round(p.wall_w));
      w.f64(pi.mains_v);
      w.f64(r2(p.amps));
      w.boolean(p.fits_outlet);
      w.str(p.circuit);
      w.f64(std::round(p.wall_w));
      w.f64(std::round(p.heat_btu_per_h));
      w.f64(std::round(p.energy_kwh_per_year));
    } else {
      for (int i = 0; i < 4; ++i) w.null();
      w.f64(ref.power_input.mains_v);
      for (int i = 0; i < 6; ++i) w.null();
    }
    if (w.col() != col_throughput)
      throw std::logic_error("sweep: system/power columns out of step");
    // The checklist column.
    Report cr;
    cr.gpu = plan;
    if (h.has_power) cr.power = h.power;
    const std::vector<std::string> items = report_checklist(cr);
    std::vector<std::string_view> views(items.begin(), items.end());
    w.begin(h.seg_checklist);
    w.segment("", col_checklist);
    w.strs(views.data(), views.size());
    return g.hosts.emplace(key, std::move(h)).first->second;
  }

  void compute(Group& g, size_t ci, size_t gi, size_t ni, RowState& s) {
    const ModelSpec& m = g.ref.model.spec;
    const GpuSpec& gpu = gpus[gi].spec;
    s.e = &estimate_at(g, ci, ni);
    const Estimate& e = *s.e;
    s.c = g.ref.config;
    s.ctx = s.c.kv.n_ctx = ctxs[ci];
    s.count = s.c.n_gpus = counts[ni];
    for (size_t k = 0; k < 3; ++k)
      s.classes[k] = gpus_needed(e, s.c, uint64_t{kClassesGib[k]} * kGiB);
    const uint64_t usable_each = gpu.usable_bytes();
    s.count_needed = gpus_needed(e, s.c, usable_each);
    s.per_gpu = per_gpu_bytes(e, s.c, s.count);
    s.fits = s.count_needed != 0 && s.per_gpu <= usable_each;
    s.tp = tensor_parallel_degree(m, std::max<uint32_t>(1, s.count_needed));
    s.has_offload = !s.fits;
    if (s.has_offload) s.offload = plan_offload(m, e, s.c, usable_each, s.count);
    // Sequences that fit beside the weights (build_report()).
    const uint64_t usable = usable_each * s.count;
    const uint64_t fixed =
        fraction_of(e.weights_bytes + e.activations_bytes + e.overhead_bytes, 1 + s.c.headroom);
    const uint64_t kv_seq = e.kv_cache_bytes / std::max<uint32_t>(1, s.c.kv.n_seq);
    const uint64_t kv_seq_h = fraction_of(kv_seq, 1 + s.c.headroom);
    s.kv_available = available_kv_bytes(e, s.c, usable_each, s.count);
    s.max_sequences =
        usable > fixed && kv_seq_h
            ? static_cast<uint32_t>(std::min<uint64_t>((usable - fixed) / kv_seq_h, 1u << 30))
            : 0;
    s.host_plan = nullptr;
    if (!gpu.unified_memory) {
      if (s.has_offload) {
        s.row_host = plan_row_host(e, gpu, s.count, e.weights.host_bytes + s.offload.ram_bytes);
        s.host_plan = &s.row_host;
      } else {
        auto& slot = g.base_hosts[gi * counts.size() + ni];
        if (!slot) slot = plan_row_host(e, gpu, s.count, e.weights.host_bytes);
        s.host_plan = &*slot;
      }
    }
    s.host = &host_entry(g, gi, s);
    SpeedInput si;
    si.prompt_tokens = g.ref.speed_input.prompt_tokens;
    si.n_gpus = s.count;
    si.tensor_parallel = tensor_split;
    si.n_seq = s.c.kv.n_seq;
    si.n_ctx = s.ctx;
    if (s.has_offload) {
      si.n_layer_cpu = s.offload.n_layer_cpu;
      si.ram_bandwidth_gb_per_s = s.host->ram_bw;
    }
    s.speed = estimate_speed(m, e, gpu, si);
    s.has_cost = s.host->has_host;
    if (s.has_cost) {
      s.cost_input = g.ref.cost_input;
      s.cost_input.gpu_price_usd = gpu.price_usd;
      s.cost_input.n_gpus = s.count;
      s.cost_input.host_usd = s.host->host_usd;
      s.cost_input.kwh_per_year = s.host->power.energy_kwh_per_year;
      s.cost_input.aggregate_tokens_per_s = s.speed.aggregate_tokens_per_s;
      s.cost = plan_cost(s.cost_input);
    }
  }

  void write(Group& g, size_t gi, const RowState& s, RowWriter& w, std::string& out) {
    const Estimate& e = *s.e;
    const GpuEntry& ge = gpus[gi];
    const GpuSpec& gpu = ge.spec;
    const ModelSpec& m = g.ref.model.spec;
    w.begin(out);
    w.segment(g.prefix, col_ctx);
    w.u64(s.ctx);
    w.segment(g.middle, col_vram - col_ctx - 1);
    // vram
    w.u64(e.weights_bytes);
    w.u64(e.weights.host_bytes);
    w.u64(e.kv_cache_bytes);
    w.u64(e.activations_bytes);
    w.u64(e.overhead_bytes);
    w.u64(e.headroom_bytes);
    w.u64(e.total_bytes());
    w.u64(e.total_low_bytes);
    w.u64(e.total_high_bytes);
    w.u64(e.kv.cells_full);
    w.u64(e.kv.cells_swa);
    w.u64(e.compute.bytes());
    w.u64(s.kv_available);
    w.u64(e.n_gpus);
    w.u64(e.naive_rule_bytes);
    // gpu
    w.str(gpu.name);
    w.str(gpu.id);
    w.boolean(false);
    w.u64(s.count);
    w.u64(s.count_needed);
    w.u64(gpu.memory_bytes);
    w.u64(gpu.usable_bytes());
    w.u64(s.per_gpu);
    w.boolean(s.fits);
    w.str(s.host->split);
    s.tp ? w.u64(s.tp) : w.null();
    w.u64(s.host->nodes);
    w.str(s.host->link);
    gpu.price_usd > 0 ? w.f64(gpu.price_usd) : w.null();
    if (s.has_offload) {
      w.u64(s.offload.n_layer_gpu);
      w.u64(s.offload.n_layer_cpu);
      w.u64(s.offload.ram_bytes);
    } else {
      w.null();
      w.null();
      w.null();
    }
    for (uint32_t n : s.classes) n ? w.u64(n) : w.null();
    // system, power
    w.segment(s.host->seg_system_a, 2);
    s.host_plan ? w.u64(s.host_plan->ram.required_bytes) : w.null();
    w.segment(s.host->seg_system_b, col_throughput - col_system - 3);
    // throughput
    const Speed& sp = s.speed;
    w.f64(r2(sp.decode_tokens_per_s));
    w.f64(r2(sp.decode_low));
    w.f64(r2(sp.decode_high));
    w.f64(r2(sp.aggregate_tokens_per_s));
    w.f64(std::round(sp.prefill_tokens_per_s));
    w.f64(std::round(sp.prefill_low));
    w.f64(std::round(sp.prefill_high));
    w.f64(std::round(sp.time_to_first_token_s * 1000) / 1000);
    w.u64(g.ref.speed_input.prompt_tokens);
    w.u64(s.max_sequences);
    w.str(sp.calibration->family);
    for (int i = 0; i < 6; ++i) w.null();  // users, target and capacity: only with --target-tps
    // cost
    const CostInput& ci = s.has_cost ? s.cost_input : g.ref.cost_input;
    if (s.has_cost && s.cost.priced) {
      w.f64(std::round(s.cost.capex_usd));
      w.f64(std::round(ci.gpu_price_usd * ci.n_gpus));
    } else {
      w.null();
      w.null();
    }
    s.has_cost ? w.f64(std::round(ci.host_usd)) : w.null();
    s.has_cost ? w.f64(std::round(s.cost.energy_usd_per_year)) : w.null();
    s.has_cost&& s.cost.priced&& s.cost.usd_per_mtok > 0
        ? w.f64(std::round(s.cost.usd_per_mtok * 10000) / 10000)
        : w.null();
    ci.cloud_price_per_mtok > 0 ? w.f64(ci.cloud_price_per_mtok) : w.null();
    s.has_cost&& s.cost.breakeven_months > 0 ? w.f64(r2(s.cost.breakeven_months)) : w.null();
    w.f64(ci.years);
    w.f64(ci.utilization);
    w.f64(ci.kwh_price_usd);
    w.segment(s.host->seg_checklist, 1);
    // warnings, in build_report()'s order
    std::vector<std::string_view>& items = warning_items;
    items.clear();
    std::string not_enough, split_warning, offload_warning;
    for (const auto& x : g.lead_warnings) items.push_back(x);
    if (!ge.unified_warning.empty()) items.push_back(ge.unified_warning);
    if (!s.fits) {
      if (s.count_needed == 0) {
        not_enough = gpu.name + " cannot hold this model at any count up to 1024";
      } else {
        not_enough =
            fmt::format("{} × {} is not enough: {} are needed", s.count, gpu.name, s.count_needed);
      }
      items.push_back(not_enough);
    }
    if (tensor_split && s.count > 1 && s.tp != s.count) {
      split_warning = fmt::format(
          "--split tensor: {} GPUs do not divide the {} attention heads and {} KV heads; "
          "valid degrees start at {}",
          s.count, m.n_head, m.n_head_kv, s.tp);
      items.push_back(split_warning);
    }
    if (s.has_cost && !s.cost.priced) items.push_back(ge.no_price_warning);
    if (!s.host->has_host && gpu.unified_memory) items.push_back(ge.whole_computer_warning);
    for (const auto& x : e.warnings) items.push_back(x);
    for (const auto& x : g.tail_warnings) items.push_back(x);
    if (s.has_offload) {
      offload_warning = fmt::format(
          "{} of {} layers do not fit on the GPUs and run from system RAM ({:.1f} GiB at {:.0f} "
          "GB/s)",
          s.offload.n_layer_cpu, m.n_layer, static_cast<double>(s.offload.ram_bytes) / kGiB,
          s.host->ram_bw);
      items.push_back(offload_warning);
    }
    if (!ge.calibration_warning.empty()) items.push_back(ge.calibration_warning);
    w.strs(items.data(), items.size());
    w.end();
  }
};

Sweep::Sweep(const Options& o, const Catalog& catalog) : impl_(std::make_unique<Impl>(o, catalog)) {
  Impl& s = *impl_;
  const PlanningOptions& p = o.planning;
  if (p.sweep_format == "csv")
    s.format = RowFormat::csv;
  else if (p.sweep_format == "jsonl")
    s.format = RowFormat::jsonl;
  else
    throw InputError("--format: expected csv or jsonl (JSON Lines), got '" + p.sweep_format + "'");
  if (p.models.empty())
    throw InputError("--models: needs at least one model (catalog id, size or config.json)");
  if (p.gpu_list.empty()) throw InputError("--gpu: needs at least one GPU (llmsize gpus)");
  s.models = list_items("--models", p.models, {});
  s.quants = list_items("--quants", p.quants, {o.quant});
  for (const auto& c : list_items("--ctx", p.ctxs, {"4096"}))
    s.ctxs.push_back(static_cast<uint32_t>(parse_int("--ctx", c, 1, 16u << 20)));
  for (const auto& c : list_items("--gpus", p.counts, {"1"}))
    s.counts.push_back(static_cast<uint32_t>(parse_int("--gpus", c, 1, 1024)));
  const std::vector<std::string> gpu_names = list_items("--gpu", p.gpu_list, {});
  const uint64_t max_rows = parse_int("--max-rows", p.max_rows, 1, 1'000'000'000'000ull);
  s.only_fits = p.only_fits;
  s.fast = o.target_tps.empty() && o.mode == "inference";
  s.tensor_split = o.split == "tensor";
  s.keep_models = static_cast<uint32_t>(parse_int("--keep-models", o.keep_models, 1, 1000));
  s.dataset_gb = parse_real("--dataset-gb", o.dataset_gb, 0, 1e7);
  s.ram_channels_flag =
      o.ram_channels.empty()
          ? 0
          : static_cast<uint32_t>(parse_int("--ram-channels", o.ram_channels, 1, 24));
  s.ram_mts = static_cast<uint32_t>(parse_int("--ram-mts", o.ram_mts, 400, 20000));
  for (const auto& name : gpu_names) {
    GpuEntry ge;
    ge.id_given = name;
    s.gpus.push_back(ge);
  }
  {
    uint64_t n = 1;
    for (uint64_t k :
         {s.models.size(), s.quants.size(), s.ctxs.size(), s.gpus.size(), s.counts.size()}) {
      if (__builtin_mul_overflow(n, k, &n)) n = UINT64_MAX;
    }
    if (n > max_rows)
      throw InputError(
          fmt::format("sweep: {} configurations ({} models × {} quants × {} contexts × {} GPUs × "
                      "{} counts) exceed "
                      "--max-rows {}; raise it to run them all",
                      n, s.models.size(), s.quants.size(), s.ctxs.size(), s.gpus.size(),
                      s.counts.size(), max_rows));
  }
  const auto& cols = report_columns();
  const auto col = [&](const char* name) {
    return static_cast<size_t>(std::find(cols.begin(), cols.end(), name) - cols.begin());
  };
  s.col_ctx = col("settings.context");
  s.col_vram = col("vram.weights_bytes");
  s.col_system = col("system.platform");
  s.col_throughput = col("throughput.decode_tokens_per_s");
  s.col_checklist = col("checklist");
  // Each GPU once (with the first model), then each model x quant once: every flag and name is
  // checked before the first row is written.
  for (size_t gi = 0; gi < s.gpus.size(); ++gi) {
    const Report r = build_report(s.row_options(0, 0, 0, gi, 0), s.cat);
    GpuEntry& ge = s.gpus[gi];
    ge.spec = r.gpu->gpu;
    const GpuSpec& g = ge.spec;
    if (g.unified_memory) {
      ge.unified_warning = fmt::format(
          "{} shares memory with the CPU: {:.0f}% of {:.0f} GiB is counted as usable by the GPU",
          g.name, g.memory_fraction * 100, static_cast<double>(g.memory_bytes) / kGiB);
      ge.whole_computer_warning =
          g.name +
          " is a whole computer (unified memory): host, power and storage sections are left out";
    }
    ge.no_price_warning =
        g.name + " has no public price in the catalog: give one with --price " + g.id + "=USD";
    if (std::string(speed_calibration(g).family) == "other")
      ge.calibration_warning =
          "speed for " + g.name + " is not calibrated against measurements: wide range";
  }
  s.groups.resize(s.models.size() * s.quants.size());
  for (size_t mi = 0; mi < s.models.size(); ++mi)
    for (size_t qi = 0; qi < s.quants.size(); ++qi) s.setup_group(s.group(mi, qi), mi, qi);
  s.plot.n_gpus = s.counts.front();
}

Sweep::~Sweep() = default;

uint64_t Sweep::size() const {
  return impl_->size();
}
bool Sweep::fast() const {
  return impl_->fast;
}
const SweepPlotData& Sweep::plot_data() const {
  return impl_->plot;
}

std::string Sweep::header() const {
  return impl_->writer(impl_->format).header();
}

std::string Sweep::slow_row(uint64_t index) const {
  size_t mi, qi, ci, gi, ni;
  impl_->decode(index, mi, qi, ci, gi, ni);
  const Report r = build_report(impl_->row_options(mi, qi, ci, gi, ni), impl_->cat);
  std::string out;
  write_report_row(r, impl_->writer(impl_->format), out);
  return out;
}

std::string Sweep::fast_row(uint64_t index) {
  Impl& s = *impl_;
  size_t mi, qi, ci, gi, ni;
  s.decode(index, mi, qi, ci, gi, ni);
  Group& g = s.group(mi, qi);
  RowState st;
  s.compute(g, ci, gi, ni, st);
  std::string out;
  s.write(g, gi, st, s.writer(s.format), out);
  return out;
}

uint64_t Sweep::compute_only() {
  Impl& s = *impl_;
  uint64_t fits = 0;
  RowState st;
  for (size_t mi = 0; mi < s.models.size(); ++mi)
    for (size_t qi = 0; qi < s.quants.size(); ++qi) {
      Group& g = s.group(mi, qi);
      for (size_t ci = 0; ci < s.ctxs.size(); ++ci)
        for (size_t gi = 0; gi < s.gpus.size(); ++gi)
          for (size_t ni = 0; ni < s.counts.size(); ++ni) {
            s.compute(g, ci, gi, ni, st);
            fits += st.fits;
          }
    }
  return fits;
}

uint64_t Sweep::run(const std::function<void(std::string_view)>& sink, size_t chunk_bytes) {
  Impl& s = *impl_;
  RowWriter& w = s.writer(s.format);
  std::string buf;
  buf.reserve(chunk_bytes + (64 << 10));
  buf += w.header();
  uint64_t written = 0, index = 0;
  RowState st;
  std::string reference;
  for (size_t mi = 0; mi < s.models.size(); ++mi)
    for (size_t qi = 0; qi < s.quants.size(); ++qi) {
      Group& g = s.group(mi, qi);
      for (size_t ci = 0; ci < s.ctxs.size(); ++ci)
        for (size_t gi = 0; gi < s.gpus.size(); ++gi)
          for (size_t ni = 0; ni < s.counts.size(); ++ni, ++index) {
            if (s.fast) {
              s.compute(g, ci, gi, ni, st);
              if (s.only_fits && !st.fits) continue;
              const size_t at = buf.size();
              s.write(g, gi, st, w, buf);
              if (s.base.planning.verify) {
                reference = slow_row(index);
                if (std::string_view(buf).substr(at) != reference)
                  throw std::logic_error("sweep --verify: row " + std::to_string(index) +
                                         " differs from the main command:\nfast: " +
                                         buf.substr(at) + "main: " + reference);
              }
            } else {
              const Report r = build_report(s.row_options(mi, qi, ci, gi, ni), s.cat);
              if (s.only_fits && !(r.gpu && r.gpu->fits)) continue;
              write_report_row(r, w, buf);
            }
            ++written;
            if (buf.size() >= chunk_bytes) {
              sink(buf);
              buf.clear();
            }
          }
      // The picture: total VRAM against context at the first GPU count.
      if (!s.base.planning.plot.empty()) {
        SweepSeries ser;
        ser.label = s.models[mi] + " " + g.ref.quant->id;
        for (size_t ci = 0; ci < s.ctxs.size(); ++ci) {
          ser.ctx.push_back(s.ctxs[ci]);
          ser.total_bytes.push_back(s.estimate_at(g, ci, 0).total_bytes());
        }
        s.plot.series.push_back(std::move(ser));
      }
      g.hosts.clear();
      g.estimates.assign(g.estimates.size(), std::nullopt);
      g.base_hosts.assign(g.base_hosts.size(), std::nullopt);
    }
  if (!s.base.planning.plot.empty()) {
    for (const auto& ge : s.gpus)
      for (uint32_t n : s.counts) {
        SweepCapacity cap;
        cap.label = fmt::format("{} × {}", n, ge.spec.id);
        cap.usable_bytes = ge.spec.usable_bytes() * n;
        if (std::none_of(s.plot.capacity.begin(), s.plot.capacity.end(),
                         [&](const SweepCapacity& x) { return x.label == cap.label; }))
          s.plot.capacity.push_back(cap);
      }
  }
  if (!buf.empty()) sink(buf);
  return written;
}

void run_sweep(const Options& o) {
  Catalog cat = Catalog::builtin();
  for (const auto& f : o.catalogs) cat.merge_file(f);
  Sweep sweep(o, cat);
  // An unwritable --plot path is an error before the first row, not after the last.
  if (!o.planning.plot.empty()) write_text_file("--plot", o.planning.plot, "");
  std::FILE* out = stdout;
  sweep.run([out](std::string_view chunk) {
    if (std::fwrite(chunk.data(), 1, chunk.size(), out) != chunk.size())
      throw InputError("sweep: cannot write to stdout");
  });
  std::fflush(out);
  if (!o.planning.plot.empty())
    write_text_file("--plot", o.planning.plot, sweep_svg(sweep.plot_data()));
}

}  // namespace llmsize::cli
