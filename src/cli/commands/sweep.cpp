#include "cli/commands/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "cli/commands/estimate.hpp"
#include "cli/options/request.hpp"
#include "cli/render/fields.hpp"
#include "cli/render/plot.hpp"
#include "cli/render/words.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/error.hpp"
#include "llmsize/units.hpp"

namespace llmsize::cli {
namespace {

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

// Everything plan_checklist() reads of a row of one group: the GPU and its count, the machine
// (its platform, GPUs per machine, maximum, heat and typical draw; the circuits follow from the
// maximum and the platform), the class-rule power plan when there is no machine, and the link
// advice.
struct ChecklistKey {
  size_t gpu = 0;
  uint32_t count = 0;
  const PlatformModel* platform = nullptr;
  uint32_t gpus_per_node = 0;
  double max_wall_w = 0, max_heat = 0, typical_w = 0;
  bool power = false;
  double wall_w = 0, heat = 0;
  double amps = 0;
  CircuitPlan circuit;
  LinkReason link_reason{};
  Row::LinkKey link;  // what the link advice is worded from (the GPU is `gpu`)
  bool operator==(const ChecklistKey& o) const {
    return gpu == o.gpu && count == o.count && platform == o.platform &&
           gpus_per_node == o.gpus_per_node && max_wall_w == o.max_wall_w &&
           max_heat == o.max_heat && typical_w == o.typical_w && power == o.power &&
           wall_w == o.wall_w && heat == o.heat && amps == o.amps && circuit == o.circuit &&
           link_reason == o.link_reason && link == o.link;
  }
};
struct ChecklistKeyHash {
  size_t operator()(const ChecklistKey& k) const {
    return KeyMix()
        .add(uint64_t{k.gpu})
        .add(uint64_t{k.count})
        .add(uint64_t{reinterpret_cast<uintptr_t>(k.platform)})
        .add(k.max_wall_w)
        .add(k.typical_w)
        .add(uint64_t{k.gpus_per_node})
        .add(k.wall_w)
        .add(k.heat)
        .add(k.amps)
        .add(uint64_t{k.circuit.count})
        .add(hash_key(k.link))
        .h;
  }
};

// A list cell worded once: its items, and the cell as the sweep's writer encodes it.
struct Words {
  std::vector<std::string> items;
  std::string encoded;
};

// One model x quantization: what its rows' words need.
struct Group {
  size_t model = 0;  // index into Impl::models, the resolved model
  size_t planner_model = 0;
  const QuantPreset* quant = nullptr;
  std::string quant_requested, quant_ignored;
};

}  // namespace

struct Sweep::Impl {
  Options base;
  std::vector<std::string> model_names, quants;
  std::vector<uint32_t> ctxs, counts;
  std::vector<ResolvedModel> models;
  std::vector<Group> groups;  // [model][quant]
  ResolvedRequest rq;         // the first row's request: every flag, validated
  std::unique_ptr<Planner> planner;
  bool only_fits = false;
  bool verify = false;
  RowFormat format = RowFormat::csv;
  RowWriter csv{RowFormat::csv, report_columns()};
  RowWriter jsonl{RowFormat::jsonl, report_columns()};
  SweepPlotData plot;
  // Per-row scratch, reused.
  Row row;
  std::vector<std::string> warnings;
  WarningsMemo warnings_memo;
  ChecklistKey key;
  // The checklists of the rows, worded and encoded once each.
  std::unordered_map<ChecklistKey, Words, ChecklistKeyHash> checklists;
  size_t checklist_col = 0;

  RowWriter& writer() { return format == RowFormat::csv ? csv : jsonl; }

  size_t gpus = 0;  // the GPUs of the sweep (Planner indices 0..gpus-1)

  uint64_t size() const {
    uint64_t n = 1;
    for (uint64_t k : {model_names.size(), quants.size(), ctxs.size(), gpus, counts.size()})
      n = checked_mul(n, k);
    return n;
  }

  void decode(uint64_t index, size_t& gi_group, size_t& ci, size_t& gi, size_t& ni) const {
    ni = static_cast<size_t>(index % counts.size());
    index /= counts.size();
    gi = static_cast<size_t>(index % gpus);
    index /= gpus;
    ci = static_cast<size_t>(index % ctxs.size());
    gi_group = static_cast<size_t>(index / ctxs.size());
  }

  Words encoded(std::vector<std::string> items, size_t col) {
    Words w;
    w.items = std::move(items);
    std::vector<std::string_view> v(w.items.begin(), w.items.end());
    w.encoded = writer().encode_strs(col, v.data(), v.size());
    return w;
  }

  // REQUIRES: set_plan(row, p) done.
  const Words& checklist(size_t gi, const Plan& p) {
    key.gpu = gi;
    key.count = p.gpu ? p.gpu->count : 0;
    const SystemPlan* sy = p.system && p.system->platform ? p.system.get() : nullptr;
    key.platform = sy ? sy->platform : nullptr;
    key.gpus_per_node = sy ? sy->choice.gpus_per_node : 0;
    key.max_wall_w = sy ? sy->max_wall_w_total : 0;
    key.max_heat = sy ? sy->heat_btu_per_h_total : 0;
    key.typical_w = sy ? sy->typical_wall_w_total : 0;
    key.power = p.power.has_value();
    key.wall_w = p.power ? p.power->wall_w : 0;
    key.heat = p.power ? p.power->heat_btu_per_h : 0;
    key.amps = p.power ? p.power->amps : 0;
    key.circuit = p.power ? p.power->circuit : CircuitPlan();
    key.link_reason = p.gpu ? p.gpu->link_reason : LinkReason{};
    key.link = row.link_key;
    auto it = checklists.find(key);
    if (it == checklists.end())
      it = checklists.emplace(key, encoded(plan_checklist(p), checklist_col)).first;
    return it->second;
  }

  // Writes the row of `p` (a plan of group g on GPU gi) to `out`. `cached`: the checklist and
  // the warnings' words may come from the caches (off for the rows of plan() that --verify
  // compares).
  void write(size_t group, size_t gi, const Plan& p, std::string& out, bool cached) {
    const Group& g = groups[group];
    // The checklists are kept by what they are worded from; a bound keeps a long sweep's memory
    // flat.
    if (checklists.size() > 4096) checklists.clear();
    PlanWords w;
    w.model = &models[g.model];
    w.quant = g.quant;
    w.quant_requested = g.quant_requested;
    w.quant_ignored = g.quant_ignored;
    // The rows --verify compares are worded without the memo, as plan()'s renderers word them.
    w.memo = cached ? &warnings_memo : nullptr;
    w.gpu_key = gi + 1;
    row.model = w.model;
    row.quant = g.quant;
    row.quant_requested = g.quant_requested;
    set_plan(row, p);
    if (cached) {
      const Words& c = checklist(gi, p);
      row.checklist = &c.items;
      row.checklist_encoded = c.encoded;
    } else {
      plan_checklist(p, checklist_scratch);
      row.checklist = &checklist_scratch;
      row.checklist_encoded = {};
    }
    plan_warnings(w, p, warnings);
    row.warnings = &warnings;
    // The previous cached row's run and GPU segments are this row's when it had the same group
    // (model x quantization) and GPU; the rows of plan() neither use nor keep them.
    Reuse reuse = Reuse::off;
    if (cached) {
      reuse = group != last_group ? Reuse::fresh
              : gi != last_gpu    ? Reuse::same_run
                                  : Reuse::same_gpu;
      last_group = group;
      last_gpu = gi;
    }
    write_row(row, writer(), out, reuse);
  }
  size_t last_group = SIZE_MAX, last_gpu = SIZE_MAX;
  std::vector<std::string> checklist_scratch;

  const Plan& fast_plan(size_t group, size_t ci, size_t gi, size_t ni) {
    return planner->plan(groups[group].planner_model, ctxs[ci], gi, counts[ni]);
  }
  Plan slow_plan(size_t group, size_t ci, size_t gi, size_t ni) const {
    return llmsize::plan(planner->request(groups[group].planner_model, ctxs[ci], gi, counts[ni]));
  }
};

Sweep::Sweep(const Options& o, const Catalog& cat) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.base = o;
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
  s.model_names = list_items("--models", p.models, {});
  // Without --quants or --ctx each row takes the main command's defaults for its engine (one
  // request builder, #20): a checkpoint engine's stored weights, a serving plan's isl + osl.
  Options defaults = o;
  defaults.model = p.models.front();
  s.quants = list_items("--quants", p.quants, {serving_quant_text(defaults)});
  const bool ctx_listed = !p.ctxs.empty();
  for (const auto& c : list_items("--ctx", p.ctxs, {"4096"}))
    s.ctxs.push_back(static_cast<uint32_t>(parse_int("--ctx", c, 1, kMaxContextTokens)));
  for (const auto& c : list_items("--gpus", p.counts, {"1"}))
    s.counts.push_back(static_cast<uint32_t>(parse_int("--gpus", c, 1, 1024)));
  const std::vector<std::string> gpu_names = list_items("--gpu", p.gpu_list, {});
  const uint64_t max_rows = parse_int("--max-rows", p.max_rows, 1, 1'000'000'000'000ull);
  s.only_fits = p.only_fits;
  s.verify = p.verify;
  {
    uint64_t n = 1;
    for (uint64_t k : {s.model_names.size(), s.quants.size(), s.ctxs.size(), gpu_names.size(),
                       s.counts.size()}) {
      if (__builtin_mul_overflow(n, k, &n)) n = UINT64_MAX;
    }
    if (n > max_rows)
      throw InputError(
          fmt::format("sweep: {} configurations ({} models × {} quants × {} contexts × {} GPUs × "
                      "{} counts) exceed "
                      "--max-rows {}; raise it to run them all",
                      n, s.model_names.size(), s.quants.size(), s.ctxs.size(), gpu_names.size(),
                      s.counts.size(), max_rows));
  }
  // The first row's request validates every flag; then each GPU, quantization and model once:
  // every name is checked before the first row is written.
  Options first = o;
  first.model = s.model_names.front();
  first.quant = s.quants.front();
  first.ctx = ctx_listed ? s.ctxs.front() : o.ctx;
  first.ctx_max = false;
  first.gpu = gpu_names.front();
  first.gpus = s.counts.front();
  first.explain = false;
  resolve_request(first, cat, s.rq);
  if (!ctx_listed) s.ctxs = {s.rq.request.config.kv.n_ctx};
  s.planner = std::make_unique<Planner>(s.rq.request);
  for (const auto& name : gpu_names) s.planner->add_gpu(resolve_gpu("--gpu", name, cat, s.rq.gpus));
  s.gpus = gpu_names.size();
  for (const auto& q : s.quants) resolve_quant("--quant", q);
  for (size_t mi = 0; mi < s.model_names.size(); ++mi) {
    s.models.push_back(mi == 0 ? s.rq.model : resolve_model(s.model_names[mi], cat));
    const ResolvedModel& m = s.models.back();
    check_kv_rows("--kv-quant", m.spec, s.rq.request.config.kv.type_k,
                  s.rq.request.config.kv.type_v);
    for (const auto& q : s.quants) {
      Group g;
      g.model = mi;
      const bool given = !p.quants.empty() || o.quant_given;
      g.quant = &model_quant("--quant", m, q, given, g.quant_requested, g.quant_ignored);
      // A checkpoint stored quantized (gpt-oss's MXFP4 experts) loads as stored, as the main
      // command's.
      if (const QuantPreset* sq = stored_quant(m, s.rq.request.config.engine, given)) {
        g.quant = sq;
        g.quant_requested = sq->id;
      }
      g.planner_model = s.planner->add_model(m.spec, g.quant, m.exact_weights);
      s.groups.push_back(std::move(g));
    }
  }
  s.plot.n_gpus = s.counts.front();
  s.checklist_col = s.writer().index("checklist");
  // --ram-channels past what a row's machine has is refused as the main command refuses it
  // (#24), before the first row: each GPU at each count, on the first model and context (the
  // machine a count of a GPU is planned on). A unified-memory computer in the list has no DIMM
  // channels: the flag is not its (its rows read the GPU's own memory).
  if (o.ram_channels)
    for (size_t gi = 0; gi < s.gpus; ++gi)
      for (size_t ni = 0; ni < s.counts.size(); ++ni) {
        const Plan& row = s.fast_plan(0, 0, gi, ni);
        if (!(row.gpu && row.gpu->gpu.unified_memory)) check_ram_channels(o, row);
      }
}

Sweep::~Sweep() = default;

uint64_t Sweep::size() const {
  return impl_->size();
}
const SweepPlotData& Sweep::plot_data() const {
  return impl_->plot;
}

std::string Sweep::header() const {
  return impl_->writer().header();
}

std::string Sweep::slow_row(uint64_t index) const {
  Impl& s = *impl_;
  size_t g, ci, gi, ni;
  s.decode(index, g, ci, gi, ni);
  const Plan p = s.slow_plan(g, ci, gi, ni);
  std::string out;
  s.write(g, gi, p, out, false);
  return out;
}

std::string Sweep::fast_row(uint64_t index) {
  Impl& s = *impl_;
  size_t g, ci, gi, ni;
  s.decode(index, g, ci, gi, ni);
  std::string out;
  s.write(g, gi, s.fast_plan(g, ci, gi, ni), out, true);
  return out;
}

uint64_t Sweep::compute_only() {
  Impl& s = *impl_;
  uint64_t fits = 0;
  for (size_t g = 0; g < s.groups.size(); ++g)
    for (size_t ci = 0; ci < s.ctxs.size(); ++ci)
      for (size_t gi = 0; gi < s.gpus; ++gi)
        for (size_t ni = 0; ni < s.counts.size(); ++ni) {
          const Plan& p = s.fast_plan(g, ci, gi, ni);
          fits += p.gpu && p.gpu->fits;
        }
  return fits;
}

uint64_t Sweep::run(const std::function<void(std::string_view)>& sink, size_t chunk_bytes) {
  Impl& s = *impl_;
  std::string buf;
  buf.reserve(chunk_bytes + (64 << 10));
  buf += s.writer().header();
  uint64_t written = 0, index = 0;
  std::string reference;
  const bool plot = !s.base.planning.plot.empty();
  for (size_t g = 0; g < s.groups.size(); ++g) {
    for (size_t ci = 0; ci < s.ctxs.size(); ++ci)
      for (size_t gi = 0; gi < s.gpus; ++gi)
        for (size_t ni = 0; ni < s.counts.size(); ++ni, ++index) {
          const Plan& p = s.fast_plan(g, ci, gi, ni);
          if (s.only_fits && !(p.gpu && p.gpu->fits)) continue;
          const size_t at = buf.size();
          s.write(g, gi, p, buf, true);
          if (s.verify) {
            reference = slow_row(index);
            if (std::string_view(buf).substr(at) != reference)
              throw std::logic_error("sweep --verify: row " + std::to_string(index) +
                                     " differs from plan():\nPlanner: " + buf.substr(at) +
                                     "plan(): " + reference);
          }
          ++written;
          if (buf.size() >= chunk_bytes) {
            sink(buf);
            buf.clear();
          }
        }
    // The picture: total VRAM against context at the first GPU count.
    if (plot) {
      const Group& grp = s.groups[g];
      SweepSeries ser;
      ser.label = s.model_names[grp.model] + " " + grp.quant->id;
      for (size_t ci = 0; ci < s.ctxs.size(); ++ci) {
        ser.ctx.push_back(s.ctxs[ci]);
        ser.total_bytes.push_back(s.fast_plan(g, ci, 0, 0).estimate.total_bytes());
      }
      s.plot.series.push_back(std::move(ser));
    }
  }
  if (plot) {
    for (size_t gi = 0; gi < s.gpus; ++gi)
      for (uint32_t n : s.counts) {
        const GpuSpec& gpu = s.planner->gpu(gi);
        SweepCapacity cap;
        cap.label = fmt::format("{} × {}", n, gpu.id);
        cap.usable_bytes = gpu.usable_bytes(n);
        if (std::none_of(s.plot.capacity.begin(), s.plot.capacity.end(),
                         [&](const SweepCapacity& x) { return x.label == cap.label; }))
          s.plot.capacity.push_back(cap);
      }
  }
  if (!buf.empty()) sink(buf);
  return written;
}

void run_sweep(const Options& o) {
  const Catalog cat = load_catalog(o.catalogs);
  Sweep sweep(o, cat);
  // An unwritable --plot path is an error before the first row, not after the last.
  if (!o.planning.plot.empty()) write_text_file("--plot", o.planning.plot, "");
  std::FILE* out = stdout;
  // Rows stream (a sweep may have millions): a failed write stops the sweep with main's wording.
  const auto failed = [] {
    const int e = errno ? errno : EIO;
    throw InputError(std::string("cannot write to standard output (") + std::strerror(e) + ")");
  };
  errno = 0;
  sweep.run([out, &failed](std::string_view chunk) {
    if (std::fwrite(chunk.data(), 1, chunk.size(), out) != chunk.size()) failed();
  });
  if (std::fflush(out) != 0 || std::ferror(out)) failed();
  if (!o.planning.plot.empty())
    write_text_file("--plot", o.planning.plot, sweep_svg(sweep.plot_data()));
}

}  // namespace llmsize::cli
