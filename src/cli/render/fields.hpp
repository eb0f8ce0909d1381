// The output schema, written once: every field of the main command's JSON with its path, unit and
// getter. JSON, CSV, JSON Lines (the main command's and sweep's rows) and the README's field list
// are all produced from this table.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/render/row_writer.hpp"
#include "cli/render/words.hpp"
#include "llmsize/io/resolve.hpp"
#include "llmsize/plan/plan.hpp"

namespace llmsize::cli {

constexpr int kSchemaVersion = 1;
// The plan document (the main command's JSON, CSV and JSON Lines rows): 2 since the power, cost
// and load-time fields come from the machine model (README "Schema version 2").
constexpr int kPlanSchemaVersion = 2;

// One plan as the table reads it: the plan, what it was made from, and its words.
struct Row {
  const ResolvedModel* model = nullptr;
  const QuantPreset* quant = nullptr;  // the preset used
  std::string_view quant_requested;    // as typed
  const Plan* plan = nullptr;
  std::string split;                // split_words(plan)
  std::string runner_up;            // layout_words of the serving plan's runner-up; empty: none
  std::string_view link;            // gpu_link_words(*plan->gpu); empty without a GPU
  std::string capacity_limited_by;  // capacity_limit_words(*plan->capacity); empty without one
  std::string_view circuit;         // circuit_words(*plan->power); empty without a power plan
  // What `link` and `circuit` word, and their words (a sweep's rows repeat a few of them).
  struct LinkKey {
    GpuLink link = GpuLink::none;
    uint32_t nodes = 0, pcie_gen = 0, pcie_lanes = 0, max_per_node = 0;
    bool module = false;
    double gb_per_s = 0;
    GpuInterconnect interconnect = GpuInterconnect::none;
    bool operator==(const LinkKey& o) const {
      return link == o.link && nodes == o.nodes && pcie_gen == o.pcie_gen &&
             pcie_lanes == o.pcie_lanes && max_per_node == o.max_per_node && module == o.module &&
             gb_per_s == o.gb_per_s && interconnect == o.interconnect;
    }
  };
  struct CircuitKey {
    double amps = 0, mains_v = 0;
    CircuitPlan plan;
    bool operator==(const CircuitKey& o) const {
      return amps == o.amps && mains_v == o.mains_v && plan == o.plan;
    }
  };
  friend size_t hash_key(const LinkKey& k) {
    return KeyMix()
        .add(uint64_t{static_cast<uint8_t>(k.link)})
        .add(uint64_t{k.nodes})
        .add(uint64_t{k.pcie_gen} << 32 | k.pcie_lanes)
        .add(uint64_t{k.max_per_node} << 1 | (k.module ? 1u : 0u))
        .add(k.gb_per_s)
        .add(uint64_t{static_cast<uint8_t>(k.interconnect)})
        .h;
  }
  friend size_t hash_key(const CircuitKey& k) {
    return KeyMix()
        .add(k.amps)
        .add(k.mains_v)
        .add(uint64_t{k.plan.count})
        .add(uint64_t{k.plan.feeds})
        .h;
  }
  LinkKey link_key;
  CircuitKey circuit_key;
  WordsMemo<LinkKey> link_memo;
  WordsMemo<CircuitKey> circuit_memo;
  const std::vector<std::string>* checklist = nullptr;
  const std::vector<std::string>* warnings = nullptr;
  // The checklist already encoded for the writer write_row() is given (RowWriter::encode_strs,
  // its column's lead included), or empty: a sweep words and encodes a checklist once for the
  // many rows that repeat it.
  std::string_view checklist_encoded;
  bool explain = false;
};

enum class CellType : uint8_t { absent, null, boolean, u64, f64, str, list };

// One value; strings and lists are views into the Row (no allocation per cell). 32 bytes: a
// sweep's writer gets some hundred of them per row.
struct Cell {
  CellType type = CellType::null;
  union {
    bool b;
    uint64_t u = 0;
    double f;
    const std::vector<std::string>* list;
  };
  // str: the text; list: the cell as the row's writer encodes it, if known (else empty)
  std::string_view s;
};

enum class Unit : uint8_t {
  none,
  text,
  boolean,
  count,
  bytes,
  tokens,
  tokens_per_s,
  documents_per_s,
  seconds,
  fraction,
  bits_per_weight,
  gib,
  gb_per_s,
  watts,
  volts,
  amps,
  btu_per_hour,
  kwh_per_year,
  usd,
  usd_per_year,
  usd_per_mtok,
  months,
  years,
  usd_per_kwh,
};
const char* unit_name(Unit u);

// What a cell depends on, so that a writer of many rows may copy it from the previous row instead
// of computing it (a sweep's rows repeat most cells):
// - row: anything of the plan;
// - run: only the model, its quantization and the request's options (every row of a sweep's
//   model x quantization has the same cell);
// - gpu: those and the GPU's catalog entry, not its count or the context;
// - machine: those and the machine the plan buys (the plan's SystemPlan object: platform, host,
//   power, cold start, BOM), nothing else of the plan (rows at other contexts that buy the same
//   machine have the same cell);
// - estimate: those and the plan's memory estimate (a Planner's, by its serial: rows on other
//   GPUs at the same context and count share it);
// - serving, capacity: null in every plan without that block (a serving or a capacity request).
// plan_test holds every field to its scope over random plans.
enum class Scope : uint8_t { row, run, gpu, machine, estimate, serving, capacity };

struct Field {
  const char* path;  // "vram.total_bytes": group.key, or a top-level key
  Unit unit;
  const char* about;  // one line for the README's field list
  Cell (*get)(const Row&) = nullptr;
  // Structured fields (arrays, blocks) are JSON only, not columns of a row; the discarded value
  // leaves the key out.
  nlohmann::ordered_json (*json)(const Row&) = nullptr;
  Scope scope = Scope::row;
  // get's cell written through a row writer (what write_row calls; set with get).
  void (*put)(const Row&, RowWriter&) = nullptr;
};

// Points `row` at `p` and words what the table reads of it (split, link, capacity limit,
// circuit), reusing the row's storage.
void set_plan(Row& row, const Plan& p);

const std::vector<Field>& report_fields();

// The paths of the fields that are columns of a row (CSV, JSON Lines), in order.
const std::vector<std::string>& report_columns();

// The main command's JSON document.
nlohmann::ordered_json report_json(const Row& r);

// What write_row() may take from the rows `w` wrote before with a reuse other than off:
// - off: nothing (every cell computed; nothing kept);
// - fresh: nothing, but it keeps this row's segments of scope run and gpu for the next rows;
// - same_run: the previous such row had the same model, quantization and options (its run
//   segments are copied);
// - same_gpu: and the same GPU (its gpu segments too).
// Null segments of the serving and capacity scopes are kept once and copied whenever the block is
// absent; machine and estimate segments are kept by the plan's machine and estimate and copied
// for the next row with the same one (reuse other than off; fresh forgets them).
enum class Reuse : uint8_t { off, fresh, same_run, same_gpu };

// One row of the columns through `w` (which must have been made with report_columns()).
void write_row(const Row& r, RowWriter& w, std::string& out, Reuse reuse = Reuse::off);

// The README's field list: a Markdown table of path, unit and meaning.
std::string field_list_markdown();

}  // namespace llmsize::cli
