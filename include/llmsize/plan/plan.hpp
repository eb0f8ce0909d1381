// One configuration planned end to end: the estimate, the GPUs that hold it, capacity, offload,
// speed, host, power, cost and fine-tuning, from a request of resolved, typed values.
//
//   read (flags, plan files) -> resolve -> PlanRequest -> plan() -> Plan -> render
//
// plan() is pure: no parsing, no names looked up, no prose. What a renderer words (warnings,
// advice) is in Plan::notes as a kind and the numbers it needs. Planner serves many
// configurations of one request (sweep, fit, --ctx max) with the weights computed once per model
// and the estimates cached per context and GPU count; its plans equal plan()'s field for field
// (tests/plan_test.cpp checks a large random sample).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "llmsize/gpu.hpp"
#include "llmsize/machine/cost.hpp"
#include "llmsize/machine/platform.hpp"
#include "llmsize/machine/power.hpp"
#include "llmsize/machine/system_plan.hpp"
#include "llmsize/memory/estimate.hpp"
#include "llmsize/memory/finetune.hpp"
#include "llmsize/memory/fit_verdict.hpp"
#include "llmsize/plan/capacity.hpp"
#include "llmsize/plan/gpu_plan.hpp"
#include "llmsize/serving/launch.hpp"
#include "llmsize/serving/serving_capacity.hpp"
#include "llmsize/serving/speed.hpp"

namespace llmsize {

// How several GPUs share the model for the speed estimate: llama.cpp's layer split (default) or
// tensor parallelism.
enum class Split { layer, tensor };

// What the recommendation minimises among the options at the usable speed (#21): the system's
// price (default), its GPU count, its maximum power at the wall, or the price plus the energy of
// the amortisation years at that maximum and the duty cycle (an upper bound of the energy).
enum class Objective { price, gpus, power, tco };
const char* to_string(Objective o);

// The largest context a request may ask for, tokens (16 Mi).
constexpr uint32_t kMaxContextTokens = 16u << 20;

// The largest context --ctx max and fit search up to: the model's trained context, at most
// kMaxContextTokens (all of it when the model states none).
inline uint32_t context_search_limit(const ModelSpec& m) {
  return m.n_ctx_train ? std::min(m.n_ctx_train, kMaxContextTokens) : kMaxContextTokens;
}

// Memory classes the plan always answers "how many GPUs of this size" for (GiB).
constexpr uint32_t kMemoryClassesGib[] = {24, 48, 80};

// GPUs of a catalog the recommendation may choose are those that hold the model in this many.
constexpr uint32_t kMaxRecommendedGpus = 64;

// Fine-tuning keeps this many checkpoints of the weights on disk (the last and the best).
constexpr uint64_t kCheckpointCopies = 2;

// --- serving at scale (#10): the request's and the plan's serving blocks ---------------------

// A serving workload on a serving engine's rules (serving.hpp): set, plan() adds a
// ServingEstimate (and a ServingCapacity when users and target_tokens_per_s ask for one).
struct ServingRequest {
  Engine engine = Engine::vllm;
  KvDtype kv = KvDtype::bf16;  // the KV cache's element type
  // isl, osl, rate, SLOs as given; users is taken from PlanRequest::users (0 there: 1, or as
  // many as fit when users_max, or by Little's law when rate_per_s > 0).
  Workload workload;
  bool users_max = false;      // --users max: the largest batch that fits (offline throughput)
  uint32_t max_model_len = 0;  // the guarantee's tokens per sequence; 0: isl + osl
  std::string launch_model;    // the model the launch command names (a repo id or a path)
  std::string launch_draft;    // llama-server -md: the draft model's GGUF; empty: none
  ModelServingGuide guide;     // the catalog model's deployment guide (--emit's flags)
  // --gpu-memory-utilization / --mem-fraction-static: the engine's share of each GPU for
  // weights, activations and KV pool; 0 = its own default (EngineLimits::memory_fraction).
  double memory_fraction = 0;
  // --tp / --pp: the layout pinned on the GPUs given (0: searched); replicas fill the rest.
  uint32_t tp = 0, pp = 0;
  // --ep: the MoE's experts split over each replica's tp GPUs, attention data parallel.
  bool expert_parallel = false;
  // --prefill-gpus / --prefill-tp: disaggregated prefill and decode (Deployment::prefill_workers)
  // on that many of the GPUs given; prefill_tp 0: the largest valid degree.
  uint32_t prefill_gpus = 0, prefill_tp = 0;
  bool prefill_auto = false;  // --prefill-gpus auto: the split searched with the layout
  // --redundancy n+k: the capacity search's users still served at its targets with any k of the
  // machines down; the BOM buys the spares.
  uint32_t spare_machines = 0;
  // --spec (serving/speculative.hpp): the draft, its tokens per step (0: the method's documented
  // default), the per-token acceptance (0: the published one for the model), the draft model
  // (spec == draft) and the repository the launch names for the draft (an EAGLE-3 head or the
  // draft model; empty for mtp).
  SpecMethod spec = SpecMethod::none;
  uint32_t spec_tokens = 0;
  double spec_acceptance = 0;
  std::shared_ptr<const DraftModel> spec_draft;
  std::string spec_launch_model;
};

// What plan() made of a ServingRequest.
struct ServingPlan {
  Deployment deployment;  // tp, pp, replicas, KV type, limits, power limit
  Workload workload;      // as estimated (users resolved)
  ServingEstimate estimate;
  std::optional<ServingCapacity> capacity;  // --users N --target-tps T
  // The KV each sequence is charged: the tokens it holds on average (isl + osl / 2, on-demand
  // paged engines) or its whole reservation (isl + osl or the context: slot engines, TRT-LLM).
  bool kv_charged_guarantee = false;
  uint32_t gpus_per_node = 8;
  // --users N without a target or a GPU count: the deployment was sized (capacity, found) to run
  // all N at once at the usable speed (serving_target()); false when nothing up to kMaxGpus does,
  // and the fewest GPUs that hold one sequence are planned instead.
  bool users_sized = false;
  double capacity_target_tokens_per_s = 0;  // the per-user speed the capacity search held
  LaunchPlan launch;                        // launch_plan() of the deployment
  // A tensor-parallel engine on a given GPU count (#22): the layouts (TP x PP x replicas) it
  // estimated, and the second best with its estimate (none when only one layout exists).
  uint32_t layouts_searched = 0;
  std::optional<Deployment> runner_up;
  ServingEstimate runner_up_estimate;
  // Speculative decoding (deployment.spec active): the same deployment's estimate without a
  // draft (what the draft gains or costs at this load).
  std::optional<ServingEstimate> without_spec;
  // The fewest GPUs that serve it (0: the plan is on those): the machine is sold with more (a
  // DGX's 8 for 5 needed), so the deployment was searched again on all of them (#21).
  uint32_t gpus_needed_before_machine = 0;
  // --redundancy n+k (capacity->spare_replicas): the machines the deployment runs on at least,
  // those its needed replicas fill and k more (0: no floor); what the spares add to the bill
  // (spare_usd_complete false: a floor, a line unpriced; 0 unpriced); the replicas left with the
  // k fullest machines of the placement down (capacity->replicas_needed or more when it holds).
  uint32_t spare_machines = 0;
  uint32_t min_machines = 0;
  double spare_usd = 0;
  bool spare_usd_complete = true;
  uint32_t replicas_surviving = 0;
  // The targets still met with the k machines down: the replicas left hold the users at them.
  bool degraded_meets() const {
    return capacity && capacity->degraded_meets && replicas_surviving >= capacity->replicas_needed;
  }
  // The pieces the deployment places: its replicas and prefill workers.
  GpuUnits units() const {
    return {deployment.tp * deployment.pp, deployment.prefill_tp, deployment.prefill_workers,
            min_machines};
  }
  // Machines the deployment runs on at gpus_per_node: a replica or worker that fits one stays
  // inside it (machines_for; the capacity search counts them the same way).
  uint32_t nodes() const { return machines_for(deployment.gpus(), gpus_per_node, units()); }
};

struct PlanRequest {
  ModelSpec model;  // REQUIRES: validate(model) is empty
  // A weights file's own tensors (GGUF, safetensors): replace the weights of model x quant.
  std::optional<Weights> exact_weights;
  // Quantization, KV cache, engine rules, headroom, overhead. n_gpus is planned, not read.
  RunConfig config;
  // The GPU to plan for, prices applied; empty: the cheapest system among `candidates`.
  std::optional<GpuSpec> gpu;
  const std::vector<GpuSpec>* candidates = nullptr;  // not owned; may be null when gpu is set
  uint32_t top = 5;                                  // ranked options kept, >= 1
  uint32_t gpus_requested = 0;                       // 0: as many as needed
  Split split = Split::layer;
  // --n-cpu-moe / --cpu-experts given (config.n_cpu_moe, 0 included): the plan keeps that
  // placement and searches none of its own.
  bool experts_placed = false;
  // --gpu-memory-limit given: gpu->memory_fraction is the OS limit the buyer sets, not the default.
  bool gpu_memory_limited = false;
  uint32_t users = 0;  // people served at once; 0: not given
  // --rent-price: USD per GPU-hour of the same GPU rented (0: the catalog's published median).
  double rent_usd_per_gpu_hour = 0;
  double target_tokens_per_s = 0;  // > 0 plans capacity. REQUIRES: users > 0 then
  // The usable speed (#21): each user's decode tokens/s below which a recommendation is not
  // made while a faster option exists, and a plan says it is below; 0: no floor.
  double min_tokens_per_s = 10;
  Objective objective = Objective::price;
  uint32_t prompt_tokens = 1024;     // for time to first token
  uint32_t ram_channels = 0;         // 0: the platform's
  uint32_t ram_mts = 4800;           // DIMM speed, MT/s
  uint32_t keep_models = 3;          // models kept on disk
  uint64_t dataset_bytes = 0;        // datasets kept on disk
  PowerInput power;                  // power_limit, mains_v and duty_cycle are read
  CostInput cost;                    // kwh_price_usd, years, utilization, cloud_price_per_mtok
  std::optional<TrainConfig> train;  // fine-tuning instead of inference
  // The machine as vendors ship it (system_plan.hpp): the platform catalog (not owned; null: no
  // system plan), --platform (catalog id, "" = choose) and --storage for the cold start.
  const std::vector<PlatformModel>* platforms = nullptr;
  std::string platform_override;
  // The least machine class `platforms` holds (#21: --class, or a shared service's policy);
  // desktop: every class. Said in the plan's notes when it is not desktop.
  PlatformClass least_class = PlatformClass::desktop;
  bool least_class_by_policy = false;
  StorageClass storage = StorageClass::local_nvme_gen4;
  double rack_budget_kw = 40;  // power and cooling a rack gets, kW

  // #10: serving at scale; empty: not asked
  std::optional<ServingRequest> serving;
};

// Unified memory left to the OS when its GPU limit is raised: the kyuz0 Strix Halo toolboxes give
// the GPU 124 of 128 GiB (amdgpu.gttsize=126976, ttm.pages_limit=32505856: "124GB GPU, 4GB OS").
constexpr uint64_t kUnifiedOsReserveBytes = 4ull << 30;

struct ClassFit {
  uint32_t memory_gib = 0;
  uint32_t count = 0;  // 0: does not fit even in 1024
};

// Something the reader should know, worded by the renderer. The numbers each kind carries:
enum class NoteKind : uint8_t {
  no_catalog_gpu,        // no catalog GPU holds the model in kMaxRecommendedGpus cards
  capacity_unreachable,  // the capacity target cannot be met (Plan::capacity says why)
  // the GPU shares memory with the CPU (memory_fraction of memory); n[0] 1: --gpu-memory-limit
  // set it; n[1] > 0: the bytes the OS limit must allow for the plan to fit
  unified_memory,
  gpu_cannot_hold,  // no count up to 1024 holds it
  gpu_not_enough,   // n[0] GPUs given, n[1] needed
  // n[0] GPUs hold it without the requested headroom, n[1] with it; x the headroom it has, y the
  // headroom requested (fractions, Plan::fit)
  gpu_tight,
  tensor_split_indivisible,  // n[0] GPUs, n[1] n_head, n[2] n_head_kv, n[3] the valid degree
  no_price,                  // the GPU has no price: no hardware cost
  whole_computer,            // unified memory: no host, power or storage plan
  no_platform,               // no catalog platform takes n[0] GPUs (system->choice says why)
  // machines of class n[0] (PlatformClass) and above only; n[1] 1: the shared-service policy
  // for n[2] users (else --class)
  class_policy,
  // n[0] users on a slot engine (llama.cpp, Ollama): more than a handful; a batching engine
  // (continuous batching, paged KV) serves them with fewer GPUs or faster (#21)
  batching_engine_suggested,
  engine_not_on_gpu,  // the engine does not run on the GPU's software stacks (runs_on)
  // No catalog option serves n[0] users under engine n[1] (Engine) at the usable speed y
  // (--min-tps); the fastest runs at x tok/s each: none is recommended (#21).
  none_at_usable_speed,
  // Worded after the estimate's own warnings:
  offload,  // n[0] layers in RAM of n[1], n[2] bytes in RAM, x GB/s of RAM bandwidth
  // The routed experts of n[0] of n[1] blocks in RAM (--n-cpu-moe n[0]), n[2] bytes, read at x
  // GB/s; n[3] 1: the request's placement, 0: what the GPUs given would need
  experts_in_ram,
  // A draft model (--draft) is planned: its memory counts, the speed is the main model's alone.
  draft_speed,
  // The engine's kernels would pad the routed experts on another install (vLLM on Hopper without
  // triton_kernels: Marlin's layout): n[0] bytes more per GPU, leaving an n[1]-byte KV pool per
  // GPU; n[2] 1: a max_model_len request (n[3] tokens) still fits, 0: the engine does not start.
  kernel_padding_otherwise,
  // The weights the engine keeps in system RAM, n[0] bytes, are more than the n[1] bytes the
  // planned machine takes at most (its RAM capped at the platform's maximum).
  ram_too_small,
  uncalibrated_speed,  // the GPU's speed family is not calibrated
  assumed_tflops,      // the catalog has no dense 16-bit TFLOPS for the GPU: x the rate assumed
  // The serving step model needs the GPU's dense rate for the weights' type n[0] (ComputeDtype)
  // and the catalog lacks it: it computes at type n[1]'s rate, x TFLOPS (n[2] 1: assumed).
  rate_missing,
  below_usable_speed,  // x tok/s per user (or sequence) < y, the usable speed (--min-tps);
                       // n[0] 1 when the plan was recommended (no catalog option reaches y)
  // The request keeps the routed experts of n[2] of n[1] blocks in RAM where the GPUs hold the
  // model with those of n[0] (the fewest; n[3] bytes in RAM): each token would read x GiB from
  // RAM instead of y GiB.
  fewer_experts_in_ram,
};

// True for the kinds worded after the estimate's warnings.
constexpr bool after_estimate_warnings(NoteKind k) {
  return k >= NoteKind::offload;
}

struct Note {
  NoteKind kind;
  uint64_t n[4] = {0, 0, 0, 0};
  double x = 0, y = 0;
  bool operator==(const Note& o) const {
    return kind == o.kind && n[0] == o.n[0] && n[1] == o.n[1] && n[2] == o.n[2] && n[3] == o.n[3] &&
           x == o.x && y == o.y;
  }
};

struct Plan {
  RunConfig config;  // as planned: config.n_gpus is the final count
  Estimate estimate;
  std::vector<ClassFit> classes;  // one per kMemoryClassesGib

  // The GPUs of the bill: the requested one, else the first of `options`.
  std::optional<GpuPlan> gpu;
  bool gpu_recommended = false;
  std::vector<GpuOption> options;  // ranked alternatives when no GPU was given, cheapest first
  Objective objective = Objective::price;  // the order of `options` (PlanRequest::objective)
  std::vector<GpuOption> fewest;           // the same ranked by fewest cards
  std::optional<CapacityPlan> capacity;
  // The capacity plan chose the count (no --gpus): tensor parallel x replicas.
  bool capacity_split = false;
  std::optional<Offload> offload;
  uint32_t max_concurrent_sequences = 0;  // sequences of n_ctx that fit beside the weights
  uint64_t kv_available_bytes = 0;        // KV memory left on the GPUs (vLLM's KV pool)

  std::optional<Speed> speed;
  SpeedInput speed_input;
  double ram_bandwidth_gb_per_s = 0;
  uint32_t ram_channels = 0;
  uint32_t ram_mts = 0;

  uint32_t host_keep_models = 1;  // models kept on the machine's drives
  PowerInput power_input;         // as requested: power limit, mains, duty cycle

  // The machine to buy: platform with its reasons, host, maximum and typical power, PSUs,
  // circuits, racks, cold start and BOM lines (set when the request has a platform catalog and a
  // GPU). system->platform is null when no catalog platform takes the GPUs.
  // Shared: a Planner hands the same machine to every row that asks for it (read-only).
  std::shared_ptr<const SystemPlan> system;
  std::string psu_redundancy;  // to_string(system->psus.redundancy): "4+2", "none"
  // The machine's power and cost, the only ones a plan has (schema_version 2's power.* and cost.*,
  // the BOM, check's budgets): rated_power_plan() of the system (none for a whole computer whose
  // maker publishes no power figure), and the cost of its BOM with the energy of the typical draw
  // and the plan's aggregate. Both null without a machine (no platform takes the GPUs).
  std::optional<PowerPlan> power;
  std::optional<CostPlan> cost;
  CostInput cost_input;                                  // the inputs of `cost`
  StorageClass storage = StorageClass::local_nvme_gen4;  // the weights are read from
  // The three-level verdict of the GPU plan (fits, tight, no) with its headroom.
  std::optional<FitVerdict> fit;
  // The memory one GPU may use, as the verdict held it: a serving engine's share is of what the
  // runtime reports (engine_memory_bytes), the other plans' the GPU's usable memory.
  uint64_t usable_bytes_each() const {
    return fit ? fit->capacity_bytes : gpu ? gpu->gpu.usable_bytes() : 0;
  }

  std::optional<TrainMemory> train;
  TrainConfig train_config;
  // FSDP: GPUs of the plan's kind that hold the sharded state, as bought (training_gpu_count:
  // powers of two in a machine, whole machines past one), and the fewest that hold it.
  uint32_t train_gpus = 0;
  uint32_t train_gpus_fewest = 0;

  std::vector<Note> notes;  // in the order a reader needs them

  std::optional<ServingPlan> serving;  // #10: when the request has a ServingRequest and a GPU
};

// REQUIRES: req.config.quant non-null; req.gpu or req.candidates set.
Plan plan(const PlanRequest& req);

// Where the plan's power and cost come from: a sourced catalog machine's model (its platform,
// power model and BOM), a generic platform row's (no vendor's machine takes the GPUs,
// PlatformModel::generic), or neither (no machine). Stable in JSON as power.basis / cost.basis.
enum class FigureBasis { none, machine, generic };
const char* to_string(FigureBasis b);  // "none", "machine", "generic"
FigureBasis power_basis(const Plan& p);
FigureBasis cost_basis(const Plan& p);

// Whether the plan's machines each hold whole serving replicas that share no traffic (more than
// one machine, a replica's TP x PP GPUs inside one): no network carries the model between them,
// only requests reach each one.
bool replicas_within_machines(const Plan& p);

// The per-user speed a serving request's capacity search holds: --target-tps when given with
// --users; else, for --users N (N > 1, no rate, no --users max) on a batching engine (a slot
// engine reserves a slot per user already) without a GPU count (count 0), the usable speed
// (PlanRequest::min_tokens_per_s, kAnyUsableSpeed when 0): all N run at once. 0: no capacity
// search.
constexpr double kAnyUsableSpeed = 0.01;  // tok/s: memory alone decides
double serving_target(const PlanRequest& req, uint32_t count);

// The serving block of a plan on `gpu` (count GPUs, 0: as many as it needs; gpus_per_node per
// node): the capacity search at serving_target() when that is set, else the deployment of `count`
// GPUs (0: the fewest that hold one sequence) under the engine's default split.
// REQUIRES: req.serving set, req.config.quant non-null.
ServingPlan plan_serving(const PlanRequest& req, const ModelSpec& m, const Weights* exact,
                         const GpuSpec& gpu, uint32_t count, uint32_t gpus_per_node);

// Sequences of c.kv.n_ctx whose KV caches fit on n GPUs of usable_each beside weights, compute
// buffers and overhead, headroom on both: (usable - fixed x (1 + h)) / (kv per sequence x (1 + h)).
uint32_t max_concurrent_sequences(const Estimate& e, const RunConfig& c, uint64_t usable_each,
                                  uint32_t n);

// Many configurations of one request: each call varies the model, context, GPU and count.
class Planner {
 public:
  // `base` holds everything the calls do not vary; its model, exact weights, gpu, n_ctx and
  // gpus_requested are ignored.
  explicit Planner(PlanRequest base);
  ~Planner();
  Planner(const Planner&) = delete;
  Planner& operator=(const Planner&) = delete;

  // A model under `quant` (a weights file: its exact tensors): the weights are computed once.
  // Returns its index.
  size_t add_model(ModelSpec m, const QuantPreset* quant, std::optional<Weights> exact = {});
  // A GPU (prices applied); returns its index.
  size_t add_gpu(GpuSpec g);

  // plan() of the base request with model `model`, context n_ctx, GPU `gpu` and gpus_requested
  // `count` (0: as many as needed). The reference is valid until the next call.
  const Plan& plan(size_t model, uint32_t n_ctx, size_t gpu, uint32_t count);

  // The request plan() would be given for the same arguments.
  PlanRequest request(size_t model, uint32_t n_ctx, size_t gpu, uint32_t count) const;

  const ModelSpec& model(size_t i) const;
  const Weights& weights(size_t i) const;
  const RunConfig& config(size_t model) const;  // the base config under that model's quant
  const GpuSpec& gpu(size_t i) const;

  // Drops the cached estimates and host plans (a long sweep moving to its next model).
  void forget();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llmsize
