// plan() and the Planner: the formulas plan() owns, and "a Planner's plan equals plan()'s" over a
// large random sample of configurations, compared on every field of the JSON contract.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

#include "cli/commands/check.hpp"
#include "cli/render/fields.hpp"
#include "cli/render/words.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/io/platform_catalog.hpp"
#include "llmsize/machine/host_model.hpp"
#include "llmsize/model/quant.hpp"
#include "llmsize/plan/plan.hpp"
#include "llmsize/units.hpp"

using namespace llmsize;
using namespace llmsize::cli;

TEST_CASE("max concurrent sequences: free memory over KV per sequence, headroom on both",
          "[plan]") {
  Estimate e;
  e.weights_bytes = 10 * kGiB;
  e.activations_bytes = kGiB;
  e.overhead_bytes = kGiB / 2;
  e.kv_cache_bytes = 4 * kGiB;  // 4 sequences
  RunConfig c;
  c.kv.n_seq = 4;
  c.headroom = 0.2;
  // fixed = ceil(11.5 GiB x 1.2) = ceil(14,817,637,171.2) = 14,817,637,172;
  // per sequence ceil(1 GiB x 1.2) = 1,288,490,189; (24 GiB - fixed) / that = 10,952,166,604 /
  // 1,288,490,189 = 8.4999 -> 8
  CHECK(max_concurrent_sequences(e, c, 24 * kGiB, 1) == 8);
  // Two cards: (48 GiB - fixed) / 1,288,490,189 = 36,721,970,380 / 1,288,490,189 = 28.5 -> 28
  CHECK(max_concurrent_sequences(e, c, 24 * kGiB, 2) == 28);
  // Weights alone above the memory: none.
  CHECK(max_concurrent_sequences(e, c, 8 * kGiB, 1) == 0);
}

TEST_CASE("FSDP shards weights, gradients and optimizer states, activations stay per GPU",
          "[plan]") {
  TrainMemory t;
  t.weights_bytes = 20 * kGiB;
  t.gradients_bytes = 20 * kGiB;
  t.optimizer_bytes = 60 * kGiB;
  t.activations_bytes = 4 * kGiB;
  // n = 1: (100 + 4 + 0.5) GiB x 1.2 = 125.4 GiB > 80; n = 2: (50 + 4.5) x 1.2 = 65.4 GiB <= 80
  CHECK(fsdp_gpus(t, kGiB / 2, 0.2, 80 * kGiB) == 2);
  // 24 GiB cards: (100 / n + 4.5) x 1.2 <= 24 -> 100 / n <= 15.5 -> n = 7 (14.29 + 4.5 = 18.79,
  // x 1.2 = 22.5); n = 6 gives (16.67 + 4.5) x 1.2 = 25.4 > 24
  CHECK(fsdp_gpus(t, kGiB / 2, 0.2, 24 * kGiB) == 7);
  // Activations alone above the card: none.
  CHECK(fsdp_gpus(t, kGiB / 2, 0.2, 4 * kGiB) == 0);
}

TEST_CASE("a training job is bought in powers of two in a machine, whole machines past one",
          "[plan]") {
  struct Row {
    uint32_t fewest, per_node, bought;
  };
  const Row rows[] = {{0, 8, 0},  {1, 8, 1},   {2, 8, 2},  {3, 8, 4},   {5, 8, 8},    {8, 8, 8},
                      {9, 8, 16}, {19, 8, 24}, {3, 10, 4}, {9, 10, 10}, {11, 10, 20}, {2, 1, 2}};
  for (const Row& r : rows) {
    INFO(r.fewest << " on " << r.per_node << " per machine");
    CHECK(training_gpu_count(r.fewest, r.per_node) == r.bought);
  }
}

namespace {

// The JSON of a plan of `m` at `quant`, through the one field table: every field, the --explain
// derivations included.
std::string plan_json(const ResolvedModel& m, const QuantPreset& quant, const Plan& p) {
  PlanWords w;
  w.model = &m;
  w.quant = &quant;
  w.quant_requested = quant.id;
  const std::vector<std::string> warnings = plan_warnings(w, p), checklist = plan_checklist(p);
  Row row;
  row.model = &m;
  row.quant = &quant;
  row.quant_requested = quant.id;
  set_plan(row, p);
  row.warnings = &warnings;
  row.checklist = &checklist;
  row.explain = true;
  return report_json(row).dump();
}

// A request on a random engine with that engine's defaults (flash attention on where it is the
// default, else at random; its headroom and overhead).
template <typename Pick>
PlanRequest random_engine_request(Pick& pick) {
  PlanRequest base;
  // The four engines whose allocation rules the memory table applies (memory_engine).
  static constexpr Engine kMemoryEngines[] = {Engine::llama_cpp, Engine::vllm, Engine::transformers,
                                              Engine::ollama};
  base.config.engine = kMemoryEngines[pick(4)];
  const EngineProfile& ep = engine_profile(base.config.engine);
  base.config.flash_attn = ep.flash_attn_default || pick(2);
  base.config.headroom = ep.headroom_default;
  base.config.overhead_per_gpu_bytes = ep.overhead_per_gpu_bytes;
  return base;
}

}  // namespace

TEST_CASE("a Planner's plans equal plan()'s on every JSON field over random configurations",
          "[plan][property]") {
  const Catalog cat = Catalog::builtin();
  std::mt19937 rng(20261201);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const auto& presets = all_quant_presets();
  const TensorType kv_types[] = {TensorType::F16, TensorType::Q8_0, TensorType::Q4_0};
  const uint32_t ctxs[] = {1, 512, 4096, 8192, 32768, 131072, 1u << 20};
  size_t compared = 0;
  // Each round: one base request (engine, KV, batch, split, host, capacity or fine-tuning) and a
  // Planner over a few models, quantizations and GPUs, asked in random order.
  for (int round = 0; round < 60; ++round) {
    PlanRequest base = random_engine_request(pick);
    base.config.kv.type_k = base.config.kv.type_v =
        base.config.flash_attn ? kv_types[pick(3)] : TensorType::F16;
    base.config.kv.n_seq = 1 + static_cast<uint32_t>(pick(3) == 0 ? pick(64) : 0);
    base.config.kv.n_ubatch = pick(2) ? 512 : 2048;
    base.split = pick(2) ? Split::tensor : Split::layer;
    base.ram_channels = pick(3) == 0 ? 4 : 0;
    base.keep_models = 1 + static_cast<uint32_t>(pick(4));
    base.dataset_bytes = pick(2) ? 500 * kGB : 0;
    base.power.mains_v = pick(2) ? 120 : 230;
    base.cost.cloud_price_per_mtok = pick(2) ? 1.5 : 0;
    if (pick(6) == 0) {
      base.users = 1 + static_cast<uint32_t>(pick(64));
      base.target_tokens_per_s = 5 + static_cast<double>(pick(40));
    }
    if (pick(8) == 0) base.train = TrainConfig();
    // Half the rounds plan the machine too (platform, power, BOM: plan_system()).
    if (pick(2)) base.platforms = &builtin_platforms();
    Planner planner(base);
    std::vector<ResolvedModel> models;
    std::vector<const QuantPreset*> quants;
    for (int k = 0; k < 3; ++k) {
      ResolvedModel m;
      m.spec = cat.models()[pick(cat.models().size())].spec;
      m.source = "catalog";
      const QuantPreset* q = &presets[pick(presets.size())];
      planner.add_model(m.spec, q);
      models.push_back(m);
      quants.push_back(q);
    }
    for (int k = 0; k < 4; ++k) planner.add_gpu(cat.gpus()[pick(cat.gpus().size())].spec);
    for (int k = 0; k < 40; ++k) {
      const size_t mi = pick(models.size()), gi = pick(4);
      const uint32_t ctx = ctxs[pick(7)];
      const uint32_t count = base.target_tokens_per_s > 0 && pick(2) ? 0 : 1 + uint32_t(pick(8));
      const Plan fast = planner.plan(mi, ctx, gi, count);
      const Plan slow = plan(planner.request(mi, ctx, gi, count));
      const std::string a = plan_json(models[mi], *quants[mi], fast);
      const std::string b = plan_json(models[mi], *quants[mi], slow);
      INFO("round " << round << " model " << models[mi].spec.id << " " << quants[mi]->id << " ctx "
                    << ctx << " gpu " << planner.gpu(gi).id << " x " << count);
      REQUIRE(a == b);
      CHECK(fast.notes == slow.notes);
      ++compared;
    }
  }
  CHECK(compared == 2400);
}

TEST_CASE("byte sums of offload, host RAM and sequences are checked, not wrapped", "[plan]") {
  ModelSpec m;
  m.n_layer = 2;
  Estimate e;
  e.weights_bytes = UINT64_MAX - 5;
  e.kv_cache_bytes = 10;  // weights + KV wraps to 4 without the check
  RunConfig c;
  CHECK_THROWS_AS(plan_offload(m, e, c, 24 * kGiB, 1), OverflowError);
  // The machine's RAM rule: 2 x weights wraps without the check.
  const PlatformModel& server = *find_platform(builtin_platforms(), "generic-sxm-baseboard-server");
  HostNeeds n;
  n.weights_bytes = (1ull << 63) + 1;
  n.gpus = 8;
  CHECK_THROWS_AS(size_host(server, n), OverflowError);
  e.kv_cache_bytes = kGiB;
  e.activations_bytes = 10;  // weights + activations wraps
  CHECK_THROWS_AS(max_concurrent_sequences(e, c, 24 * kGiB, 1), OverflowError);
}

// check shares work between plans with the same settings (a Planner per setting): every plan's
// line, failures and full JSON report equal those of plan() run on each plan alone. The plans
// repeat and overlap settings (same model on other GPUs and counts, same GPU with a price given,
// other contexts, batch, users, KV types, engine, headroom), in an order that revisits each. (vLLM
// stores no q8_0 KV: those plans keep f16, as the main command requires.)
TEST_CASE("check: cached plans equal plan() for every plan", "[plan][check]") {
  const char* const models[] = {"llama-3.1-8b", "qwen2.5-32b", "mixtral-8x7b", "gemma-2-9b"};
  const char* const gpus[] = {"rtx-4090", "h100-sxm", "l40s"};
  std::string text = "{\"plans\": [\n";
  for (int i = 0; i < 96; ++i) {
    text +=
        (i ? ",\n" : "") + std::string("{\"model\": \"") + models[i % 4] + "\", \"gpu\": \"" +
        gpus[(i / 4) % 3] + "\", \"gpus\": " + std::to_string(1 + (i / 12) % 2) +
        ", \"context\": " + std::to_string(i % 5 == 0 ? 8192 : 4096 + 512 * (i % 3)) +
        (i % 7 == 0 ? ", \"gpu_price_usd\": 1234" : "") + (i % 6 == 1 ? ", \"batch\": 4" : "") +
        (i % 8 == 3 ? ", \"users\": 16" : "") +
        (i % 9 == 2 && i % 10 != 4 ? ", \"kv_quant\": \"q8_0\"" : "") +
        (i % 10 == 4 ? ", \"engine\": \"vllm\", \"quant\": \"fp8\"" : "") +
        (i % 11 == 5 ? ", \"headroom\": 0.25" : "") +
        (i % 3 == 0 ? ", \"target_tokens_per_s\": 30, \"budget\": {\"power_watts\": 900}" : "") +
        "}";
  }
  text += "\n]}\n";
  const std::string path = "check_cache_test_plans.json";
  std::ofstream(path, std::ios::binary) << text;
  cli::Options o;
  o.format = "json";
  o.planning.plan_files = {path};
  const Catalog cat = Catalog::builtin();
  const auto cached = cli::check_plans(o, cat, true);
  const auto alone = cli::check_plans(o, cat, false);
  REQUIRE(cached.size() == 96);
  REQUIRE(alone.size() == 96);
  size_t failed = 0;
  for (size_t i = 0; i < cached.size(); ++i) {
    INFO(alone[i].line());
    CHECK(cached[i].line() == alone[i].line());
    CHECK(cached[i].failures.size() == alone[i].failures.size());
    CHECK(cached[i].report_json == alone[i].report_json);
    failed += !alone[i].pass();
  }
  // Both outcomes are exercised.
  CHECK(failed > 0);
  CHECK(failed < cached.size());
  std::remove(path.c_str());
}

namespace {

// A cell as comparable text: its type and value (views into the row copied).
std::string cell_text(const Cell& c) {
  switch (c.type) {
    case CellType::absent:
      return "absent";
    case CellType::null:
      return "null";
    case CellType::boolean:
      return c.b ? "true" : "false";
    case CellType::u64:
      return "u" + std::to_string(c.u);
    case CellType::f64: {
      char b[40];
      std::snprintf(b, sizeof b, "f%.17g", c.f);
      return b;
    }
    case CellType::str:
      return "s" + std::string(c.s);
    case CellType::list:
      return "list";
  }
  return "?";
}

}  // namespace

// The sweep copies a cell of scope run or gpu from the previous row (write_row's Reuse): every
// plan of one model x quantization under one request must give the same run cells, and of the
// same GPU the same gpu cells; every plan that buys the same machine (SystemPlan object) the same
// machine cells, and every plan of the same estimate (its Planner serial) the same estimate cells;
// serving and capacity cells are null without their block.
TEST_CASE("every field keeps to its scope over random requests, models, GPUs, contexts, counts",
          "[plan][property]") {
  const Catalog cat = Catalog::builtin();
  std::mt19937 rng(20261202);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const auto& presets = all_quant_presets();
  const uint32_t ctxs[] = {1, 4096, 32768, 131072, 1u << 20};
  const uint32_t counts[] = {1, 2, 3, 8};
  const auto& fields = report_fields();
  // A column's cell is written by its putter: every getter has one (the table's CELL macro).
  for (const auto& f : fields) CHECK((f.get == nullptr) == (f.put == nullptr));
  size_t checked = 0, serving_rows = 0, capacity_rows = 0, machine_rows = 0, estimate_rows = 0;
  for (int round = 0; round < 24; ++round) {
    PlanRequest base = random_engine_request(pick);
    base.config.kv.n_seq = pick(3) == 0 ? 4 : 1;
    base.split = pick(2) ? Split::tensor : Split::layer;
    base.power.mains_v = pick(2) ? 120 : 230;
    base.cost.cloud_price_per_mtok = pick(2) ? 1.5 : 0;
    if (round % 4 == 1) {
      base.users = 1 + static_cast<uint32_t>(pick(32));
      base.target_tokens_per_s = 5 + static_cast<double>(pick(30));
    }
    if (round % 4 == 2) base.serving = ServingRequest();
    if (pick(6) == 0) base.train = TrainConfig();
    if (pick(3)) base.platforms = &builtin_platforms();
    Planner planner(base);
    std::vector<ResolvedModel> models;
    for (int k = 0; k < 3; ++k) {
      ResolvedModel m;
      m.spec = cat.models()[pick(cat.models().size())].spec;
      m.source = "catalog";
      planner.add_model(m.spec, &presets[pick(presets.size())]);
      models.push_back(m);
    }
    for (int k = 0; k < 4; ++k) planner.add_gpu(cat.gpus()[pick(cat.gpus().size())].spec);
    for (size_t mi = 0; mi < models.size(); ++mi) {
      const QuantPreset* q = planner.config(mi).quant;
      std::vector<std::string> run_cells;                  // by field, the model's first plan's
      std::vector<std::vector<std::string>> gpu_cells(4);  // by GPU, its first plan's
      // By machine (the plan's SystemPlan object, held), its first plan's.
      std::map<const SystemPlan*,
               std::pair<std::shared_ptr<const SystemPlan>, std::vector<std::string>>>
          machine_cells;
      // By estimate serial (unique in the process), its first plan's.
      std::map<uint64_t, std::vector<std::string>> estimate_cells;
      for (size_t gi = 0; gi < 4; ++gi)
        for (uint32_t ctx : ctxs)
          for (uint32_t count : counts) {
            const Plan& p = planner.plan(mi, ctx, gi, count);
            Row row;
            row.model = &models[mi];
            row.quant = q;
            row.quant_requested = q->id;
            set_plan(row, p);
            const std::vector<std::string> none;
            row.warnings = row.checklist = &none;
            serving_rows += p.serving.has_value();
            capacity_rows += p.capacity.has_value();
            const bool first_run = run_cells.empty(), first_gpu = gpu_cells[gi].empty();
            const bool first_machine =
                p.system &&
                machine_cells
                    .emplace(p.system.get(),
                             std::make_pair(p.system, std::vector<std::string>(fields.size())))
                    .second;
            machine_rows += p.system != nullptr;
            const uint64_t serial = p.estimate.memo_serial;
            const bool first_estimate =
                serial &&
                estimate_cells.emplace(serial, std::vector<std::string>(fields.size())).second;
            estimate_rows += serial != 0;
            for (size_t f = 0; f < fields.size(); ++f) {
              if (!fields[f].get) continue;
              const std::string c = cell_text(fields[f].get(row));
              INFO("round " << round << " " << fields[f].path << " model " << models[mi].spec.id
                            << " " << q->id << " gpu " << planner.gpu(gi).id << " x " << count
                            << " ctx " << ctx);
              switch (fields[f].scope) {
                case Scope::row:
                  break;
                case Scope::run:
                  if (first_run) run_cells.resize(fields.size());
                  if (first_run) run_cells[f] = c;
                  CHECK(c == run_cells[f]);
                  ++checked;
                  break;
                case Scope::gpu:
                  if (first_gpu) gpu_cells[gi].resize(fields.size());
                  if (first_gpu) gpu_cells[gi][f] = c;
                  CHECK(c == gpu_cells[gi][f]);
                  ++checked;
                  break;
                case Scope::machine:
                  if (!p.system) break;
                  if (first_machine) machine_cells[p.system.get()].second[f] = c;
                  CHECK(c == machine_cells[p.system.get()].second[f]);
                  ++checked;
                  break;
                case Scope::estimate:
                  if (!serial) break;
                  if (first_estimate) estimate_cells[serial][f] = c;
                  CHECK(c == estimate_cells[serial][f]);
                  ++checked;
                  break;
                case Scope::serving:
                  if (!p.serving) CHECK(c == "null");
                  ++checked;
                  break;
                case Scope::capacity:
                  if (!p.capacity) CHECK(c == "null");
                  ++checked;
                  break;
              }
            }
          }
    }
  }
  // Each kind of request was met: plans with and without the serving and capacity blocks.
  CHECK(serving_rows > 0);
  CHECK(capacity_rows > 0);
  CHECK(machine_rows > 0);
  CHECK(estimate_rows > 0);
  CHECK(checked > 100000);
}
