#include "llmsize/plan/plan.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <limits>
#include <unordered_map>

#include "llmsize/units.hpp"

namespace llmsize {
namespace {

// What plan() computes that a Planner caches: the same functions, with or without a memory.
class Memo {
 public:
  virtual ~Memo() = default;
  virtual const Estimate& estimate(const ModelSpec& m, const RunConfig& c, const Weights* w) = 0;
  // plan_gpus() into `out`, whose storage is reused.
  virtual void gpus(const ModelSpec& m, const Estimate& e, const RunConfig& c, const GpuSpec& gpu,
                    uint32_t count, GpuPlan& out) = 0;
  virtual std::shared_ptr<const SystemPlan> system(const SystemRequest& in) = 0;
  // The GPUs of each memory class (kMemoryClassesGib) that hold `base`, the estimate of config c.
  virtual const std::vector<ClassFit>& classes(const Estimate& base, const RunConfig& c) = 0;
};

std::vector<ClassFit> class_fits(const Estimate& base, const RunConfig& c) {
  std::vector<ClassFit> v;
  for (uint32_t cls : kMemoryClassesGib)
    v.push_back({cls, gpus_needed(base, c, uint64_t{cls} * kGiB)});
  return v;
}

// RAM channels where no machine is planned (yet): a desktop's two, the slowest a machine offers.
constexpr uint32_t kChannelsWithoutMachine = 2;

// A serving setup of the request's model with its --n-cpu-moe experts in system RAM: read there
// at --ram-channels (else a desktop's two: the serving plan is made before its machine) x
// --ram-mts, at the CPU's share of that bandwidth.
ServingSetup placed_serving_setup(const PlanRequest& req, const ModelSpec& m, const Weights* w,
                                  const GpuSpec& gpu, uint32_t gpus_per_node) {
  const ServingRequest& sr = *req.serving;
  ServingSetup s =
      serving_setup(m, *req.config.quant, gpu, sr.engine, sr.kv, 1, 1, 1, gpus_per_node, w,
                    req.config.n_cpu_moe, req.config.draft, req.config.load_nextn);
  if (s.model.host_expert_bytes)
    s.model.host_read_gb_per_s =
        ram_bandwidth_gb_per_s(req.ram_channels ? req.ram_channels : kChannelsWithoutMachine,
                               req.ram_mts) *
        kOffloadRamEfficiency;
  s.deployment.spec =
      make_speculation(sr.spec, sr.spec_tokens, sr.spec_acceptance, m, *req.config.quant, sr.kv,
                       sr.spec_draft.get(), req.config.load_nextn);
  return s;
}

// plan()'s: computes every time, keeps the results for the references it hands out.
class NoMemo final : public Memo {
 public:
  const Estimate& estimate(const ModelSpec& m, const RunConfig& c, const Weights* w) override {
    // One plan estimates one model at several GPU counts: the weights tensor by tensor once per
    // preset and engine rule (what estimate() would derive again each time).
    if (!w) {
      const bool on_host = engine_profile(c.engine).embeddings_on_host;
      const bool nextn = loads_nextn(c);
      if (!weights_ || weights_model_ != &m || weights_quant_ != c.quant ||
          weights_on_host_ != on_host || weights_nextn_ != nextn) {
        weights_ = compute_weights(m, *c.quant, on_host, nextn);
        weights_model_ = &m;
        weights_quant_ = c.quant;
        weights_on_host_ = on_host;
        weights_nextn_ = nextn;
      }
      w = &*weights_;
    }
    return estimates_.emplace_back(llmsize::estimate(m, c, w));
  }
  void gpus(const ModelSpec& m, const Estimate& e, const RunConfig& c, const GpuSpec& gpu,
            uint32_t count, GpuPlan& out) override {
    out = plan_gpus(m, e, c, gpu, count);
  }
  std::shared_ptr<const SystemPlan> system(const SystemRequest& in) override {
    return std::make_shared<const SystemPlan>(plan_system(in));
  }
  const std::vector<ClassFit>& classes(const Estimate& base, const RunConfig& c) override {
    return classes_.emplace_back(class_fits(base, c));
  }

 private:
  std::deque<std::vector<ClassFit>> classes_;
  std::deque<Estimate> estimates_;
  std::optional<Weights> weights_;
  const ModelSpec* weights_model_ = nullptr;
  const QuantPreset* weights_quant_ = nullptr;
  bool weights_on_host_ = false, weights_nextn_ = false;
};

void note(Plan& p, NoteKind k, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0,
          double x = 0, double y = 0) {
  Note n{k};
  n.n[0] = a;
  n.n[1] = b;
  n.n[2] = c;
  n.n[3] = d;
  n.x = x;
  n.y = y;
  p.notes.push_back(n);
}

// A serving plan whose engine pads the experts on another install of it (vLLM's Marlin MXFP4
// kernels on Hopper): what that costs each GPU and whether the engine still starts.
void note_padding_otherwise(const PlanRequest& req, const ModelSpec& m, Plan& p) {
  if (!p.serving || !p.gpu || !req.config.quant) return;
  const Deployment& d = p.serving->deployment;
  const ExpertPadding alt = engine_expert_padding_otherwise(engine_profile(d.engine).memory_engine,
                                                            p.gpu->gpu.architecture);
  const uint64_t pad = expert_padding_bytes(m, *req.config.quant, alt);
  if (!pad) return;
  const uint32_t shards = std::max<uint32_t>(1, d.tp * d.pp);
  const uint64_t pad_gpu = (pad + shards - 1) / shards;
  const ServingEstimate& e = p.serving->estimate;
  const uint64_t pool = e.kv_pool_bytes_per_gpu > pad_gpu ? e.kv_pool_bytes_per_gpu - pad_gpu : 0;
  const bool starts =
      static_cast<double>(pool) * shards >= static_cast<double>(e.kv_bytes_per_seq_guarantee);
  note(p, NoteKind::kernel_padding_otherwise, pad_gpu, pool, starts ? 1 : 0, d.max_model_len);
}

// A unified-memory GPU's share of the memory, and what the OS limit must be for the plan to fit
// when the default (or given) one is short but the memory is not: the limit can be raised to
// all but the OS's own share.
void note_unified_memory(const PlanRequest& req, double headroom, Plan& p) {
  const GpuPlan& g = *p.gpu;
  if (!g.gpu.unified_memory || !p.fit) return;
  const uint64_t most = g.gpu.memory_bytes - std::min(g.gpu.memory_bytes, kUnifiedOsReserveBytes);
  const bool raise = !g.fits && p.fit->need_bytes <= most;
  // The need with the headroom where the memory allows it, else the need alone (tight).
  const uint64_t want = std::min(fraction_of(p.fit->need_bytes, 1 + headroom), most);
  note(p, NoteKind::unified_memory, req.gpu_memory_limited ? 1 : 0, raise ? want : 0);
}

uint32_t fewest_serving_gpus(const PlanRequest& req, const ModelSpec& m, const Weights* w,
                             const GpuSpec& gpu);

// GPUs of `gpu` one machine holds for a serving deployment (the tensor-parallel degree stays
// within it): the most a catalog machine takes of it (choose_platform of many: the fewest machines
// of the largest count), else the class rule's chassis. An RTX 4090 goes two to an AM5 desktop,
// an Arc Pro B60 ten to a Supermicro SYS-421GE-TNRT.
uint32_t serving_gpus_per_node(const PlanRequest& req, const GpuSpec& gpu) {
  if (req.platforms && !gpu.unified_memory) {
    const PlatformChoice ch = choose_platform(*req.platforms, gpu, kMaxRecommendedGpus);
    if (ch.index >= 0 && ch.gpus_per_node) return ch.gpus_per_node;
  }
  return max_gpus_per_node(gpu);
}

// Whether the plan is a serving deployment (the step model, KV pool, replicas): a serving request
// of a generation model. An embedding or rerank model generates nothing: under any engine it is
// its encoder's memory and documents per second (#20), not a generation deployment.
bool serves(const PlanRequest& req, const ModelSpec& m) {
  return req.serving.has_value() && m.task == Task::generation;
}

// The engine that serves the plan: the serving engine, else the memory engine's.
const EngineProfile& plan_engine(const PlanRequest& req, const RunConfig& c) {
  return req.serving ? engine_profile(req.serving->engine) : engine_profile(c.engine);
}

// The usable speed (#21): each option's decode speed per user (a serving deployment's step
// model, else llama.cpp's per sequence at the plan's batch and context); options below
// req.min_tokens_per_s move after every option that reaches it (stable: the ranking stays
// within each group), so a faster system is recommended over a cheaper one too slow to use. A
// capacity target already sets the speed; training and encoders decode nothing.
void rank_by_usable_speed(const PlanRequest& req, const ModelSpec& m, const Estimate& base,
                          const RunConfig& c, std::vector<GpuOption>& options) {
  if (req.min_tokens_per_s <= 0 || req.target_tokens_per_s > 0 || req.train ||
      m.task != Task::generation)
    return;
  for (auto& o : options) {
    if (!serves(req, m)) {
      SpeedInput si;
      si.n_gpus = o.plan.count;
      si.tensor_parallel = req.split == Split::tensor;
      si.n_seq = c.kv.n_seq;
      si.n_ctx = c.kv.n_ctx;
      si.prompt_tokens = req.prompt_tokens;
      o.tokens_per_s = estimate_speed(m, base, o.plan.gpu, si).decode_tokens_per_s;
    }
    o.below_usable_speed = o.tokens_per_s < req.min_tokens_per_s;
  }
  std::stable_partition(options.begin(), options.end(),
                        [](const GpuOption& o) { return !o.below_usable_speed; });
}

// The options at the usable speed (and, apart, those below it) in the order of the objective,
// those a sourced machine carries before a generic class row's; the price order (rank_gpus')
// breaks ties, and under it stays as it is.
void rank_by_objective(Objective objective, std::vector<GpuOption>& options) {
  if (objective == Objective::price) return;
  auto key = [objective](const GpuOption& o) {
    switch (objective) {
      case Objective::gpus:
        return static_cast<double>(o.plan.count);
      case Objective::power:  // a machine without a power figure last
        return o.max_wall_w > 0 ? o.max_wall_w : std::numeric_limits<double>::infinity();
      case Objective::tco:  // unpriced last
        return o.tco_usd > 0 ? o.tco_usd : std::numeric_limits<double>::infinity();
      case Objective::price:
        break;
    }
    return 0.0;
  };
  stable_sort_moving_once(options, [&](const GpuOption& a, const GpuOption& b) {
    if (a.below_usable_speed != b.below_usable_speed) return b.below_usable_speed;
    if (a.generic_machine != b.generic_machine) return b.generic_machine;
    return key(a) < key(b);
  });
}

// The machine request of `count` GPUs of `gpu` (units: a serving deployment's replicas and
// prefill workers; offload_ram_bytes: layers held in RAM; n_seq: the batch the power model
// decodes).
SystemRequest machine_request(const PlanRequest& req, const ModelSpec& m, const Estimate& e,
                              const GpuSpec& gpu, uint32_t count, const GpuUnits& units,
                              uint64_t offload_ram_bytes, uint32_t n_seq, Engine engine);

// What one GPU of a serving deployment holds under its engine's rule for the sequences each
// replica runs at once (at least one): its weight shard, what the engine keeps outside the KV
// pool, and its share of those sequences' KV (the tokens each holds on average); the engine's
// margin for it, and the headroom the plan asks (the requested one, no laxer than the engine's
// share: vLLM's 0.9 is 1 / 0.9 - 1). The fit verdict, each GPU's figure and the options' read it.
struct ServingNeed {
  uint64_t need_bytes = 0;
  double margin = 0, requested = 0;
};
ServingNeed serving_need(const ServingPlan& s, double headroom) {
  const ServingEstimate& se = s.estimate;
  const Deployment& d = s.deployment;
  const uint32_t shards = d.tp * d.pp;
  const uint64_t kv_each = (se.kv_bytes_per_seq + shards - 1) / shards;
  const uint64_t running = std::max<uint32_t>(1, se.concurrency);
  // The KV the running sequences hold; an engine that refuses to start without room for one
  // max_model_len request needs that much at least (vLLM's check_enough_kv_cache_memory).
  uint64_t kv_need = checked_mul(kv_each, running);
  if (engine_profile(d.engine).needs_one_full_request)
    kv_need = std::max(kv_need, (se.kv_bytes_per_seq_guarantee + shards - 1) / shards);
  ServingNeed n;
  n.need_bytes =
      checked_add(se.need_bytes_per_gpu - std::min(se.need_bytes_per_gpu, kv_each), kv_need);
  n.margin = margin_fraction(engine_margin(d.engine, d.limits), n.need_bytes, kv_need, 0);
  n.requested = std::max(headroom, n.margin);
  return n;
}

// A serving plan as a GPU option counts it: its GPUs and degrees, each user's speed (users beyond
// what the replicas run at once wait, and each then gets its share of the output), and what each
// GPU holds with the headroom, as the plan's per_gpu_bytes (plan_memory).
EngineCount serving_count(const ServingPlan& sp, double headroom) {
  const Deployment& d = sp.deployment;
  const ServingEstimate& se = sp.estimate;
  EngineCount n;
  n.gpus = d.gpus();
  n.tp = d.tp;
  n.pp = d.pp;
  n.replicas = d.replicas;
  n.attention_dp = d.attention_dp && d.tp > 1;
  n.min_machines = sp.min_machines;
  n.tokens_per_s = !se.fits ? 0
                   : se.queued
                       ? se.output_tokens_per_s.value / std::max<uint32_t>(1, sp.workload.users)
                       : se.per_user_tokens_per_s.value;
  const ServingNeed sn = serving_need(sp, headroom);
  n.per_gpu_bytes = fraction_of(sn.need_bytes, 1 + sn.requested);
  return n;
}

// The options in the order the recommendation reads them (the usable speed, the objective), the
// fewest-cards list beside them, each cut to req.top; false (with the note that says why) when
// none is recommended: no catalog GPU holds the model, or a head count no option serves at the
// usable speed (#21: never a system too slow to use; the options then stay listed, fastest
// first, with the speed each gives).
bool settle_options(const PlanRequest& req, const ModelSpec& m, const Estimate& base,
                    const RunConfig& c, Plan& p) {
  rank_by_usable_speed(req, m, base, c, p.options);
  rank_by_objective(req.objective, p.options);
  {
    // The top options by GPU count (stable: equal counts stay cheapest first), copied alone.
    std::vector<uint32_t> idx(p.options.size());
    for (uint32_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
      return p.options[a].plan.count < p.options[b].plan.count;
    });
    p.fewest.clear();
    for (size_t i = 0; i < idx.size() && i < req.top; ++i) p.fewest.push_back(p.options[idx[i]]);
  }
  const bool none_usable = serves(req, m) && req.users > 1 && req.min_tokens_per_s > 0 &&
                           req.target_tokens_per_s <= 0 && !p.options.empty() &&
                           p.options.front().below_usable_speed;
  if (none_usable)
    stable_sort_moving_once(p.options, [](const GpuOption& a, const GpuOption& b) {
      return a.tokens_per_s > b.tokens_per_s;
    });
  if (p.options.size() > req.top) p.options.resize(req.top);
  if (p.fewest.size() > req.top) p.fewest.resize(req.top);
  if (p.options.empty()) {
    note(p, NoteKind::no_catalog_gpu);
    return false;
  }
  if (none_usable) {
    note(p, NoteKind::none_at_usable_speed, req.users, static_cast<uint64_t>(req.serving->engine),
         0, 0, p.options.front().tokens_per_s, req.min_tokens_per_s);
    return false;
  }
  return true;
}

// The GPU of the plan: the requested one, else the cheapest system of the candidates the engine
// runs on; a serving engine counts each GPU by its own deployment search.
const GpuSpec* choose_gpu(const PlanRequest& req, const ModelSpec& m, const Weights* w,
                          const Estimate& base, const RunConfig& c, const GpuSpec* gpu, Plan& p) {
  if (gpu) return gpu;
  const EngineProfile& engine = plan_engine(req, c);
  const bool target = req.users && req.target_tokens_per_s > 0;
  // Each GPU at the count the plan would buy of it: the capacity target's replicas, a serving
  // engine's own deployment, else (no hook) the layer split.
  const EngineGpuCount count_of = [&](const GpuSpec& g) {
    EngineCount n;
    // A shared service (the class policy, #21) is offered no consumer card: no ECC on its
    // memory, and NVIDIA's GeForce licence bars datacenter deployment (--class or --gpu to
    // choose one anyway).
    if (req.least_class_by_policy && g.is_consumer()) return n;
    if (serves(req, m)) {
      // The deployment plan_serving makes of g, at the count it searches (a capacity target's
      // replicas, else the fewest that hold one sequence); each GPU holds its shard, activations,
      // runtime and the KV of the sequences it runs, plus the headroom.
      // A capacity search (a target, or --users N sized at the usable speed) that finds nothing
      // without a target leaves no capacity: then, as there, the fewest that hold one sequence.
      ServingPlan sp;
      const uint32_t gpn = serving_gpus_per_node(req, g);
      const bool sized = serving_target(req, 0) > 0;
      if (sized) sp = plan_serving(req, m, w, g, 0, gpn);
      const bool searched = sp.capacity && sp.capacity->found;
      if (target && !searched) return n;
      // A head count no count reaches the usable speed with: the deployment plan_serving falls
      // back to, the one the plan of this GPU would run (a slot engine's replicas for every slot).
      if (!searched && !sized) {
        const uint32_t fewest = fewest_serving_gpus(req, m, w, g);
        if (!fewest) return n;
        sp = plan_serving(req, m, w, g, fewest, gpn);
      }
      n = serving_count(sp, c.headroom);
    } else {
      // The weights do not change with the count: computed once, in `base`.
      const CapacityPlan cp =
          plan_capacity(m, c, g, req.users, req.target_tokens_per_s, w ? w : &base.weights);
      n.gpus = cp.gpus;
      n.per_gpu_bytes = cp.per_gpu_bytes;
    }
    return n;
  };
  // A training job: each GPU at the count its sharded state needs, bought as sold.
  const EngineGpuCount training_count = [&](const GpuSpec& g) {
    EngineCount n;
    n.data_parallel = true;
    const uint32_t fewest =
        fsdp_gpus(*p.train, c.overhead_per_gpu_bytes, c.headroom, g.usable_bytes());
    n.gpus = training_gpu_count(fewest, serving_gpus_per_node(req, g));
    if (n.gpus)
      n.per_gpu_bytes = fsdp_per_gpu_bytes(*p.train, c.overhead_per_gpu_bytes, c.headroom, n.gpus);
    return n;
  };
  // Each option's machine and price as plan_machine() and plan_cost() would buy it (#20: the
  // options list and the chosen plan read one hardware model).
  const OptionPricer price = [&](GpuOption& o) {
    const GpuSpec& g = o.plan.gpu;
    o.gpus_usd = g.price_usd > 0 ? g.price_usd * o.plan.count : 0;
    o.no_machine = true;
    if (!req.platforms) {
      o.total_price_usd = o.gpus_usd;
      o.price_complete = false;
      return;
    }
    const GpuUnits units{o.replicas > 1 ? o.tp * o.pp : 0, 0, 0, o.min_machines};
    const MachinePrice s = price_machine(
        machine_request(req, m, base, g, o.plan.count, units, 0, c.kv.n_seq, c.engine));
    const PlatformChoice& ch = s.choice;
    o.units_not_linked = std::find(ch.reasons.begin(), ch.reasons.end(),
                                   PlatformReason::units_not_linked) != ch.reasons.end();
    if (!s.platform) return;
    o.no_machine = false;
    o.platform = to_string(s.platform->platform_class);
    o.platform_id = s.platform->id;
    o.generic_machine = s.platform->generic;
    o.machines = ch.nodes;
    o.needs_fabric = ch.nodes > 1 && !(o.replicas > 1 && o.tp * o.pp <= ch.gpus_per_node);
    o.bought = std::max(o.plan.count, ch.gpus_total());
    const BomCost& bc = s.cost;
    o.gpus_usd = bc.gpus_usd;
    o.host_usd = bc.rest_usd;
    o.total_price_usd = bc.gpus_priced ? bc.total_usd() : 0;
    o.price_complete = bc.complete;
    o.max_wall_w = s.max_wall_w;
    if (o.total_price_usd > 0)
      o.tco_usd = o.total_price_usd + o.max_wall_w / 1000 * req.power.duty_cycle * kHoursPerYear *
                                          req.cost.years * req.cost.kwh_price_usd;
  };
  p.options = rank_gpus(m, base, c, *req.candidates, price, &engine,
                        p.train                    ? &training_count
                        : serves(req, m) || target ? &count_of
                                                   : nullptr);
  if (!settle_options(req, m, base, c, p)) return nullptr;
  p.gpu_recommended = true;
  const auto it =
      std::find_if(req.candidates->begin(), req.candidates->end(),
                   [&](const GpuSpec& g) { return g.id == p.options.front().plan.gpu.id; });
  return &*it;
}

// A fine-tuning job's GPUs (#20): sized by the training total (weights, gradients, optimizer
// states, activations; FSDP / ZeRO-3 sharding, finetune.hpp), not by an inference of the model.
// The count is the fewest that hold the sharded state, bought as sold (training_gpu_count: 19 on
// 8-GPU machines is 24); --gpus N is checked as given. The split fields describe the count's
// layout (one machine or several); the inference estimate is kept at that count for the parts
// the host plan reads (weights on disk and in RAM).
void plan_training_gpus(const PlanRequest& req, const ModelSpec& m, const Weights* w,
                        const GpuSpec& gpu, Memo& memo, Plan& p) {
  RunConfig& c = p.config;
  const TrainMemory& t = *p.train;
  const uint64_t overhead = c.overhead_per_gpu_bytes;
  const uint32_t fewest = fsdp_gpus(t, overhead, c.headroom, gpu.usable_bytes());
  const uint32_t needed = training_gpu_count(fewest, serving_gpus_per_node(req, gpu));
  const uint32_t count = req.gpus_requested ? req.gpus_requested : needed ? needed : 1;
  p.train_gpus = needed;
  p.train_gpus_fewest = fewest;
  c.n_gpus = count;
  p.estimate = memo.estimate(m, c, w);
  if (!p.gpu) p.gpu.emplace();
  memo.gpus(m, p.estimate, c, gpu, count, *p.gpu);
  GpuPlan& g = *p.gpu;
  g.count = count;
  g.count_requested = req.gpus_requested;
  g.count_needed = needed;
  if (count > 1) {
    // Data-parallel ranks, not a model split: the link describe_split() chose carries FSDP's
    // collectives (the network between machines, else the GPUs' own link, else PCIe).
    g.split = GpuSplit::data_parallel;
    g.link_reason = LinkReason::fsdp_collectives;
  }
  g.per_gpu_bytes = fsdp_per_gpu_bytes(t, overhead, c.headroom, count);
  // No engine margin: the requested headroom is the only slack.
  p.fit = fit_verdict(fsdp_per_gpu_bytes(t, overhead, 0, count), gpu.usable_bytes(), c.headroom, 0);
  g.fits = p.fit->fit == Fit::fits;
  note_unified_memory(req, c.headroom, p);
  if (g.fits) return;
  if (needed == 0)
    note(p, NoteKind::gpu_cannot_hold);
  else if (p.fit->fit == Fit::tight)
    note(p, NoteKind::gpu_tight, g.count, needed, 0, 0, p.fit->headroom_fraction,
         p.fit->requested_headroom);
  else
    note(p, NoteKind::gpu_not_enough, g.count, needed);
}

// The GPU plan of a serving deployment reads its layout (#20, one answer): the machines it runs
// on, its tensor-parallel degree, the link one replica's TP x PP uses (describe_split on its
// span) and the split: independent replicas share no link.
void describe_serving_layout(const ServingPlan& s, GpuPlan& g) {
  const Deployment& d = s.deployment;
  g.nodes = s.nodes();
  g.tp_degree = d.tp;
  GpuPlan one = g;
  one.count = d.tp * d.pp;
  one.nodes = machines_for(one.count, s.gpus_per_node);
  one.gpus_per_node = s.gpus_per_node;
  describe_split(one);
  g.split = d.replicas > 1 ? GpuSplit::replicas : one.split;
  g.link = one.link;
  g.link_reason = one.link_reason;
  g.pcie_gen = one.pcie_gen;
  g.pcie_lanes = one.pcie_lanes;
  g.link_gb_per_s = one.link_gb_per_s;
  // Tensor parallel over PCIe: describe_split names a card without a GPU link's split a layer
  // split; the serving engine all-reduces over PCIe instead.
  if (d.tp > 1 && one.split == GpuSplit::layer) {
    if (d.replicas == 1) g.split = GpuSplit::tensor_parallel;
    g.link_reason = LinkReason::tensor_over_pcie;
  }
}

// One memory figure for a serving deployment (#20): its replicas each hold the weights, so the
// memory table is one replica's (its TP x PP GPUs, each with its compute buffer and runtime, and
// the sequences it runs at once), with the engine's headroom rule as the fit verdict's; the KV
// memory and the sequences that fit are the engine's KV pool's (all replicas), not a layer split
// of every GPU.
void plan_replica_memory(const ModelSpec& m, const Weights* w, double headroom, Memo& memo,
                         Plan& p) {
  const ServingPlan& s = *p.serving;
  const Deployment& d = s.deployment;
  RunConfig& c = p.config;
  c.headroom = headroom;
  // vLLM's profile run at the GPU's batch limits, as the KV pool was sized.
  if (engine_profile(d.engine).profile_run) {
    c.profile_tokens = d.limits.max_num_batched_tokens;
    c.profile_seqs = d.limits.max_num_seqs;
  }
  RunConfig replica = c;
  replica.n_gpus = d.tp * d.pp;
  replica.kv.n_seq = std::max<uint32_t>(1, s.estimate.concurrency);
  // Each running sequence holds the KV its engine reserves (isl + osl / 2 on average under a paged
  // scheduler), as the plan charged it, not a whole context: the table and the fit read one KV.
  replica.kv.n_ctx = std::max<uint32_t>(
      1, kv_tokens_held(engine_profile(d.engine).reservation, s.workload, d.max_model_len));
  p.estimate = memo.estimate(m, replica, w);
  p.kv_available_bytes = checked_mul(s.estimate.kv_pool_bytes_per_gpu, d.gpus());
  p.max_concurrent_sequences = static_cast<uint32_t>(std::min<uint64_t>(
      static_cast<uint64_t>(s.estimate.max_concurrency_guarantee) * d.replicas, 1u << 30));
}

// The estimate on the final count and the GPU plan that holds it: fit, offload, sequences.
// The estimate's warnings a serving plan answers: MTP speculative decoding loads the next-n
// layers the engine otherwise skips (RunConfig::load_nextn), so none are left out.
void drop_answered_warnings(Plan& p) {
  if (!p.serving || p.serving->deployment.spec.method != SpecMethod::mtp) return;
  auto& v = p.estimate.warnings;
  v.erase(std::remove_if(v.begin(), v.end(),
                         [](const EstimateWarning& x) {
                           return x.kind == EstimateWarningKind::mtp_not_loaded;
                         }),
          v.end());
}

void plan_memory(const PlanRequest& req, const ModelSpec& m, const Weights* w, const GpuSpec* gpu,
                 const Estimate& base, Memo& memo, Plan& p) {
  RunConfig& c = p.config;
  uint32_t count = req.gpus_requested;
  // #10: a serving request plans its own deployment; the GPUs of the bill are its GPUs.
  if (gpu && serves(req, m)) {
    p.serving = plan_serving(req, m, w, *gpu, req.gpus_requested, serving_gpus_per_node(req, *gpu));
    if (!req.gpus_requested && p.serving->deployment.gpus()) count = p.serving->deployment.gpus();
    if (p.serving->capacity && !p.serving->capacity->found) note(p, NoteKind::capacity_unreachable);
  } else if (gpu && req.users && req.target_tokens_per_s > 0) {
    p.capacity = plan_capacity(m, c, *gpu, req.users, req.target_tokens_per_s, w);
    if (p.capacity->gpus && !req.gpus_requested) count = p.capacity->gpus;
    if (!p.capacity->gpus) note(p, NoteKind::capacity_unreachable);
  }
  p.capacity_split = p.capacity && p.capacity->gpus && !req.gpus_requested;
  if (gpu && p.train) return plan_training_gpus(req, m, w, *gpu, memo, p);
  if (!gpu) {
    p.estimate = memo.estimate(m, c, w);
    p.gpu.reset();
    return;
  }
  if (!p.gpu) p.gpu.emplace();
  const uint32_t first_n_gpus = c.n_gpus;
  memo.gpus(m, base, c, *gpu, count, *p.gpu);
  c.n_gpus = p.gpu->count;
  const Estimate& e = memo.estimate(m, c, w);
  p.estimate = e;
  // Re-plan on the final estimate (compute buffers and overhead counted on every GPU), unless
  // it is the same call (a memory's same estimate, the same count).
  if (!(&e == &base && c.n_gpus == first_n_gpus && c.n_gpus == count))
    memo.gpus(m, e, c, *gpu, c.n_gpus, *p.gpu);
  GpuPlan& g = *p.gpu;
  g.count_requested = req.gpus_requested;
  if (p.capacity_split) {
    // Each replica holds its own users' KV caches: check memory per replica.
    g.per_gpu_bytes = p.capacity->per_gpu_bytes;
    g.fits = p.capacity->per_gpu_bytes <= gpu->usable_bytes();
  }
  // Three levels: with the requested headroom; tight (without it, but inside the engine's own
  // margin: engine_margin() of the engine that serves it, plus the estimate's measured error at
  // its high end, (total_high - total) / total, where the engine's rule does not already bound
  // it; capped at the headroom); or not at all. A capacity plan's replicas are judged by their
  // own per-GPU need.
  const double estimate_error = e.total_bytes()
                                    ? std::max(0.0, (static_cast<double>(e.total_high_bytes) -
                                                     static_cast<double>(e.total_bytes())) /
                                                        static_cast<double>(e.total_bytes()))
                                    : 0.0;
  const EngineMargin em =
      p.serving ? engine_margin(p.serving->deployment.engine, p.serving->deployment.limits)
                : engine_margin(c.engine);
  RunConfig bare = c;
  bare.headroom = 0;
  // A serving deployment is judged by its engine's own rule (paged KV for the tokens the
  // sequences hold, not n_seq full contexts): what one GPU places under it
  // (ServingEstimate::need_bytes_per_gpu), the engine's share as the margin, and a requested
  // headroom no laxer than that share (vLLM's default rule is its 0.9: 1 / 0.9 - 1).
  const bool engine_rule = p.serving && p.serving->deployment.gpus() == g.count;
  uint64_t need = 0, kv_each = 0;
  double requested = c.headroom, margin = 0;
  if (engine_rule) {
    const ServingNeed sn = serving_need(*p.serving, c.headroom);
    need = sn.need_bytes;
    margin = sn.margin;
    requested = sn.requested;
  } else {
    need = p.capacity_split ? fraction_of(p.capacity->per_gpu_bytes, 1.0 / (1 + c.headroom))
                            : per_gpu_bytes(e, bare, g.count ? g.count : 1);
    kv_each = (e.kv_cache_bytes + e.recurrent_state_bytes) / std::max<uint32_t>(1, g.count);
    margin = margin_fraction(em, need, kv_each, estimate_error);
  }
  margin = std::min(requested, margin);
  // A serving engine's rule is held against the memory its runtime reports (engine_visible_bytes).
  const uint64_t usable = engine_rule ? engine_memory_bytes(p.serving->deployment.engine, g.gpu)
                          : p.capacity_split ? gpu->usable_bytes()
                                             : g.gpu.usable_bytes();
  p.fit = fit_verdict(need, usable, requested, margin);
  p.fit->engine_margin = margin;
  p.fit->margin_source = em.source;
  if (engine_rule) {
    // Held with the requested headroom, as a layer split's fits, and what each GPU then holds;
    // the engine's own search found the fewest GPUs it deploys on: those are needed when they
    // keep the rule.
    g.fits = p.fit->fit == Fit::fits;
    g.per_gpu_bytes = fraction_of(need, 1 + requested);
    if (!req.gpus_requested && g.fits) g.count_needed = g.count;
  }
  note_unified_memory(req, requested, p);
  if (!g.fits && p.fit->fit == Fit::tight) {
    // Held without the headroom: nothing spills to RAM; the reader is told how tight.
    note(p, NoteKind::gpu_tight, g.count, g.count_needed, 0, 0, p.fit->headroom_fraction,
         p.fit->requested_headroom);
  } else if (!g.fits) {
    if (g.count_needed == 0)
      note(p, NoteKind::gpu_cannot_hold);
    else
      note(p, NoteKind::gpu_not_enough, g.count, g.count_needed);
    // A MoE model under llama.cpp keeps its routed experts in RAM before whole layers: each
    // token reads n_expert_used of n_expert of them there, where a layer's attention and KV
    // would be read whole (--n-cpu-moe); a placement the request gave is kept as it is.
    std::optional<Offload> experts;
    if (!req.experts_placed && !p.serving)
      experts = plan_expert_offload(m, c, w, g.gpu.usable_bytes(), g.count);
    p.offload = experts ? *experts : plan_offload(m, e, c, g.gpu.usable_bytes(), g.count);
    // The request's own experts in RAM stay there beside the layers that do not fit either.
    if (e.cpu_experts.bytes) p.offload = expert_offload(m, e, *p.offload);
  } else if (e.cpu_experts.bytes) {
    p.offload = expert_offload(m, e);  // the request's own --n-cpu-moe, held on the GPUs
  }
  p.kv_available_bytes = available_kv_bytes(e, c, g.gpu.usable_bytes(), g.count);
  p.max_concurrent_sequences = max_concurrent_sequences(e, c, g.gpu.usable_bytes(), g.count);
  if (engine_rule) plan_replica_memory(m, w, requested, memo, p);
}

// The RAM bandwidth offloaded layers are read at: --ram-channels, else the planned machine's
// channels (every socket's), else a desktop's two (kChannelsWithoutMachine); a unified-memory
// computer reads them from its own memory.

void plan_ram(const PlanRequest& req, Plan& p) {
  const GpuPlan& g = *p.gpu;
  const PlatformModel* machine = p.system ? p.system->platform : nullptr;
  p.host_keep_models = req.keep_models;
  p.ram_channels =
      req.ram_channels ? req.ram_channels
      : machine && machine->memory_channels_per_socket
          ? machine->memory_channels_per_socket * std::max<uint32_t>(1, machine->cpu_sockets)
          : kChannelsWithoutMachine;
  p.ram_mts = req.ram_mts;
  p.ram_bandwidth_gb_per_s = g.gpu.unified_memory
                                 ? g.gpu.bandwidth_gb_per_s
                                 : ram_bandwidth_gb_per_s(p.ram_channels, req.ram_mts);
}

// The speed input of the plan's deployment (the machine's power reads its batch): the GPUs one
// sequence runs on and the sequences decoded together.
void plan_speed_input(const PlanRequest& req, Plan& p) {
  const GpuPlan& g = *p.gpu;
  SpeedInput& si = p.speed_input;
  si.prompt_tokens = req.prompt_tokens;
  si.n_gpus = g.count;
  si.tensor_parallel = p.capacity_split || req.split == Split::tensor;
  si.n_seq = p.config.kv.n_seq;
  if (p.capacity_split) {
    si.n_gpus = p.capacity->tp_degree;
    si.n_seq = p.capacity->users_per_replica;
  }
  si.n_ctx = p.config.kv.n_ctx;
  // A serving deployment's aggregate, per-user speed and first token are its step model's
  // (plan_speed); the speed model gives the single stream on one replica: one sequence alone on
  // its TP x PP GPUs, a prompt of isl tokens.
  if (p.serving && p.serving->deployment.gpus() == g.count) {
    const Deployment& d = p.serving->deployment;
    si.n_gpus = d.tp * d.pp;
    si.tensor_parallel = d.tp > 1;
    si.n_seq = 1;
    si.prompt_tokens = p.serving->workload.isl;
  }
}

void plan_speed(const PlanRequest& req, const ModelSpec& m, Plan& p) {
  const GpuPlan& g = *p.gpu;
  SpeedInput& si = p.speed_input;
  if (p.offload) {
    si.n_layer_cpu = p.offload->n_layer_cpu;
    si.ram_bandwidth_gb_per_s = p.ram_bandwidth_gb_per_s;
    si.ram_read_bytes_per_token = p.offload->ram_read_bytes_per_token;
    si.copy_bytes_per_ubatch = p.offload->copy_bytes_per_ubatch;
    si.n_ubatch = p.config.kv.n_ubatch;
    si.pcie_gb_per_s = pcie_gb_per_s(g.gpu);
  }
  if (req.split == Split::tensor && g.count > 1 && g.tp_degree != g.count)
    note(p, NoteKind::tensor_split_indivisible, g.count, m.n_head, m.n_head_kv, g.tp_degree);
  p.speed = estimate_speed(m, p.estimate, g.gpu, si);
  // Replicas decode side by side: their tokens add up.
  if (p.capacity && p.capacity->replicas > 1)
    p.speed->aggregate_tokens_per_s *= p.capacity->replicas;
  // One throughput (#20): a serving deployment's step model is the plan's aggregate and time to
  // first token, the figures its Serving section prints, so cost per token, JSON, CSV, Markdown
  // and HTML read those numbers. decode_tokens_per_s stays the single stream's (llama.cpp's
  // model, one sequence alone); an embedding plan keeps its documents per second.
  if (p.serving && m.task == Task::generation) {
    const ServingEstimate& se = p.serving->estimate;
    p.speed->aggregate_tokens_per_s = se.fits ? se.output_tokens_per_s.value : 0;
    p.speed->time_to_first_token_s = se.fits ? se.ttft_s.value : 0;
  }
}

// The machine as vendors ship it around the GPU plan: platform_catalog's choice, host, power as
// rated and as drawn, PSUs, circuits, racks, cold start and BOM lines (system_plan.hpp).
SystemRequest machine_request(const PlanRequest& req, const ModelSpec& m, const Estimate& e,
                              const GpuSpec& gpu, uint32_t count, const GpuUnits& units,
                              uint64_t offload_ram_bytes, uint32_t n_seq, Engine engine) {
  SystemRequest sr;
  sr.catalog = req.platforms;
  sr.gpu = &gpu;
  sr.n_gpus = count;
  sr.units = units;
  sr.platform_override = req.platform_override;
  HostNeeds& n = sr.needs;
  n.weights_bytes = e.weights.bytes;
  n.host_weights_bytes = checked_add(e.weights.host_bytes, offload_ram_bytes);
  n.model_set_bytes = checked_mul(e.weights.bytes, std::max<uint32_t>(1, req.keep_models));
  n.dataset_bytes = req.dataset_bytes;
  n.checkpoint_bytes = req.train ? checked_mul(e.weights.bytes, kCheckpointCopies) : 0;
  n.fine_tuning = req.train.has_value();
  n.networked = req.storage == StorageClass::nfs || req.storage == StorageClass::s3 ||
                req.storage == StorageClass::ebs_gp3 || req.storage == StorageClass::ebs_io2;
  PowerWorkload& w = sr.workload;
  // Decode at the plan's batch (a capacity plan's replica serves its users), weights as read.
  w.decode_batch = std::max<uint32_t>(1, n_seq);
  w.busy_share = req.power.duty_cycle;
  w.power_limit = req.power.power_limit;
  if (e.weights.params)
    w.bytes_per_weight =
        static_cast<double>(e.weights.bytes) / static_cast<double>(e.weights.params);
  if (m.is_moe() && m.n_expert_used)
    w.routed_share = static_cast<double>(m.n_expert_used) / static_cast<double>(m.n_expert);
  sr.power_limit = req.power.power_limit;
  ColdStartInput& ci = sr.cold_start;
  ci.storage = req.storage;
  ci.engine = engine;
  ci.loader = default_loader(engine);
  ci.rocm = gpu.vendor == GpuVendor::amd;
  sr.rack_budget_kw = req.rack_budget_kw;
  sr.mains_v = req.power.mains_v;
  return sr;
}

// --redundancy (ServingCapacity::spare_replicas): what the spares add to the bill, the machine
// `sr` buys against the one it would buy for the needed replicas alone, and the replicas left with
// the k fullest machines of the placement down.
void price_spares(const SystemRequest& sr, const SystemPlan& sys, ServingPlan& sp) {
  if (!sp.capacity || !sp.capacity->spare_replicas || !sys.platform) return;
  const ServingCapacity& c = *sp.capacity;
  const Deployment& d = sp.deployment;
  const uint32_t span = d.tp * d.pp;
  SystemRequest bare = sr;
  bare.n_gpus = c.replicas_needed * span;
  bare.units = GpuUnits{c.replicas_needed > 1 ? span : 0};
  const MachinePrice without = price_machine(bare);
  if (without.platform && without.cost.gpus_priced && sys.bom_cost.gpus_priced) {
    sp.spare_usd = sys.bom_cost.total_usd() - without.cost.total_usd();
    sp.spare_usd_complete = sys.bom_cost.complete && without.cost.complete;
  }
  const Placement at = place_units(d.gpus(), sys.choice.gpus_per_node, sp.units());
  std::vector<uint32_t> per_machine(std::max<uint32_t>(at.machines, 1), 0);
  for (const UnitPlace& u : at.decode)
    ++per_machine[std::min<size_t>(u.node, per_machine.size() - 1)];
  std::sort(per_machine.begin(), per_machine.end(), std::greater<>());
  uint32_t lost = 0;
  for (uint32_t i = 0; i < sp.spare_machines && i < per_machine.size(); ++i) lost += per_machine[i];
  sp.replicas_surviving = d.replicas > lost ? d.replicas - lost : 0;
}

void plan_machine(const PlanRequest& req, const ModelSpec& m, Memo& memo, Plan& p) {
  const GpuPlan& g = *p.gpu;
  // A serving deployment's replicas and prefill workers: each stays inside one machine where it
  // fits one.
  const bool deployed = p.serving && p.serving->deployment.gpus() == g.count;
  const SystemRequest sr = machine_request(
      req, m, p.estimate, g.gpu, g.count, deployed ? p.serving->units() : GpuUnits{},
      // Layers in RAM, and experts unless the estimate holds them there already
      // (its own --n-cpu-moe, in the weights' host bytes).
      p.offload ? checked_add(p.offload->ram_bytes,
                              p.estimate.cpu_experts.bytes ? 0 : p.offload->expert_ram_bytes)
                : 0,
      deployed ? p.serving->estimate.concurrency : p.speed_input.n_seq, p.config.engine);
  p.system = memo.system(sr);
  // Weights held in RAM (token_embd, experts or layers offloaded) must fit what the machine takes,
  // whatever the 2 x weights rule asked.
  if (p.system->platform && sr.needs.host_weights_bytes > p.system->host.ram.installed_bytes &&
      p.system->platform->platform_class != PlatformClass::unified)
    note(p, NoteKind::ram_too_small, sr.needs.host_weights_bytes,
         p.system->host.ram.installed_bytes);
  if (req.least_class != PlatformClass::desktop && req.platform_override.empty())
    note(p, NoteKind::class_policy, static_cast<uint64_t>(req.least_class),
         req.least_class_by_policy ? 1 : 0, req.users);
  // Empty when no source gave the scheme (the JSON's null), never a made-up "none".
  p.psu_redundancy =
      p.system->psus.redundancy_known ? to_string(p.system->psus.redundancy) : std::string();
  if (!p.system->platform) {
    note(p, NoteKind::no_platform, g.count);
    return;
  }
  // One count of machines (#20): what the BOM buys is what gpu.nodes, the link words and the
  // serving deployment count.
  p.gpu->nodes = p.system->choice.nodes;
  if (deployed) price_spares(sr, *p.system, *p.serving);
  // The machine's own power (schema_version 2: the JSON's power fields): the rated model for
  // peak, wall, circuits and heat, the typical draw (busy at the duty cycle, idle the rest) for
  // energy. A unified-memory computer is a whole system here too; one whose maker publishes no
  // power figure has none (not zero watts).
  if (p.system->max_wall_w_total > 0) p.power = rated_power_plan(*p.system, req.power.mains_v);
}

// What the machine costs to own and per token: its BOM (GPUs and the rest), the energy of its
// typical draw and the plan's aggregate (cost.hpp). No machine, no cost: a GPU no catalog
// platform takes has no host to price.
void plan_cost(const PlanRequest& req, Plan& p) {
  const GpuPlan& g = *p.gpu;
  if (p.system && p.system->platform) {
    const BomCost& bc = p.system->bom_cost;
    CostInput& co = p.cost_input;
    co = req.cost;
    co.kwh_per_year = p.power ? p.power->energy_kwh_per_year : 0;
    co.aggregate_tokens_per_s = p.speed ? p.speed->aggregate_tokens_per_s : 0;
    const uint32_t bought = p.system->choice.gpus_total();
    co.n_gpus = bought;
    co.gpu_price_usd = bc.gpus_usd > 0 && bought ? bc.gpus_usd / bought : 0;
    co.gpus_included = bc.gpus_usd == 0 && bc.gpus_priced;
    co.host_usd = bc.rest_usd;
    co.complete = bc.complete;
    // Rent: the GPUs the plan runs, at the catalog's (or --rent-price's) price per GPU-hour.
    co.rent_usd_per_gpu_hour =
        req.rent_usd_per_gpu_hour > 0 ? req.rent_usd_per_gpu_hour : g.gpu.rent_usd_per_gpu_hour;
    co.rent_price_given = req.rent_usd_per_gpu_hour > 0;
    co.rent_gpus = g.count;
    co.max_wall_kw = p.system->max_wall_w_total / 1000;
    p.cost = llmsize::plan_cost(co);
  }
  if (g.gpu.price_usd <= 0 && !(p.cost && p.cost->priced)) note(p, NoteKind::no_price);
}

// Users beyond which a slot engine's plan suggests a batching engine (#21 "more than a handful"):
// llama-server's default of 4 slots, doubled.
constexpr uint32_t kHandfulOfUsers = 8;

// A plan whose users (or sequences) decode below the usable speed says so (#21); a capacity
// target plans its own speed.
void note_usable_speed(const PlanRequest& req, const ModelSpec& m, Plan& p) {
  if (req.min_tokens_per_s <= 0 || req.target_tokens_per_s > 0 || !p.speed ||
      m.task != Task::generation)
    return;
  const double v =
      p.serving ? (p.serving->estimate.fits ? p.serving->estimate.per_user_tokens_per_s.value : 0)
                : p.speed->decode_tokens_per_s;
  if (v > 0 && v < req.min_tokens_per_s)
    note(p, NoteKind::below_usable_speed, p.gpu_recommended ? 1 : 0, 0, 0, 0, v,
         req.min_tokens_per_s);
}

void plan_on_bought(const PlanRequest& req, const ModelSpec& m, const Weights* w, Memo& memo,
                    Plan& p);

// A request that keeps more blocks' routed experts in RAM than its GPUs need (#23: --n-cpu-moe,
// --cpu-experts): the fewest that hold the model with the headroom, and what a token then reads
// from RAM.
void note_fewer_experts_in_ram(const ModelSpec& m, const Weights* w, Plan& p) {
  const Estimate& e = p.estimate;
  if (!p.gpu || !p.gpu->fits || !e.cpu_experts.bytes || p.serving) return;
  const auto fewest = fewest_expert_blocks(m, p.config, w, p.gpu->gpu.usable_bytes(), p.gpu->count);
  if (fewest && fewest->blocks < e.cpu_experts.n_blocks)
    note(p, NoteKind::fewer_experts_in_ram, fewest->blocks, m.n_layer + m.n_layer_nextn,
         e.cpu_experts.n_blocks, fewest->estimate.cpu_experts.bytes,
         gib_of(fewest->estimate.cpu_experts.read_bytes_per_token),
         gib_of(e.cpu_experts.read_bytes_per_token));
}

void plan_into(const PlanRequest& req, const ModelSpec& m, const Weights* w, const GpuSpec* gpu,
               Memo& memo, Plan& p) {
  // Every field is assigned or reset below; the storage of a reused Plan is kept (a Planner's
  // rows reuse one).
  p.config = req.config;
  p.notes.clear();
  p.classes.clear();
  p.options.clear();
  p.objective = req.objective;
  p.fewest.clear();
  p.gpu_recommended = false;
  p.capacity.reset();
  p.capacity_split = false;
  p.offload.reset();
  p.max_concurrent_sequences = 0;
  p.kv_available_bytes = 0;
  p.speed_input = SpeedInput();
  p.speed_input.prompt_tokens = req.prompt_tokens;
  p.ram_bandwidth_gb_per_s = 0;
  p.ram_channels = p.ram_mts = 0;
  p.host_keep_models = 1;
  p.power_input = req.power;
  p.cost_input = req.cost;
  p.system.reset();
  p.psu_redundancy.clear();
  p.storage = req.storage;
  p.fit.reset();
  p.train.reset();
  p.train_config = req.train ? *req.train : TrainConfig();
  p.train_gpus = p.train_gpus_fewest = 0;
  p.serving.reset();

  // First pass on one GPU (or the count given) to size the split.
  RunConfig& c = p.config;
  c.n_gpus = req.gpus_requested ? req.gpus_requested : 1;
  const Estimate& base = memo.estimate(m, c, w);
  p.classes = memo.classes(base, c);
  if (req.train) p.train = train_memory(m, base.weights.params, *req.train);
  gpu = choose_gpu(req, m, w, base, c, gpu, p);
  // The engine's layout of the experts on the GPU chosen (vLLM's MXFP4 kernels pad them).
  if (gpu) c.expert_padding = engine_expert_padding(c.engine, gpu->architecture);
  plan_memory(req, m, w, gpu, base, memo, p);
  drop_answered_warnings(p);
  if (gpu && !runs_on(plan_engine(req, c), gpu->backends)) note(p, NoteKind::engine_not_on_gpu);
  if (p.serving && p.gpu) {
    const ComputeDtype want = compute_dtype(*c.quant);
    const TensorRate rate = tensor_rate(serving_gpu(p.gpu->gpu, 1), want);
    if (rate.missing)
      note(p, NoteKind::rate_missing, static_cast<uint64_t>(want), static_cast<uint64_t>(rate.used),
           rate.assumed ? 1 : 0, 0, rate.tflops);
  }
  if (p.gpu && p.serving && p.serving->deployment.gpus() == p.gpu->count)
    describe_serving_layout(*p.serving, *p.gpu);
  p.speed.reset();
  p.power.reset();
  p.cost.reset();
  if (p.gpu) {
    // A training job generates no tokens to serve: no inference speed, and no cost per token.
    if (!p.train) plan_speed_input(req, p);
    if (p.gpu->gpu.unified_memory) note(p, NoteKind::whole_computer);
    // The machine first: its power reads the batch, the offload its RAM channels, the cost the
    // aggregate the speed gives.
    if (req.platforms) plan_machine(req, m, memo, p);
    plan_ram(req, p);
    if (!p.train) plan_speed(req, m, p);
    plan_cost(req, p);
  }
  if (p.offload && p.offload->n_cpu_moe)
    note(p, NoteKind::experts_in_ram, p.offload->n_cpu_moe, m.n_layer + m.n_layer_nextn,
         p.offload->expert_ram_bytes, p.estimate.cpu_experts.bytes ? 1 : 0,
         p.ram_bandwidth_gb_per_s);
  note_fewer_experts_in_ram(m, w, p);
  if (p.offload && p.offload->n_layer_cpu)
    note(p, NoteKind::offload, p.offload->n_layer_cpu, m.n_layer, p.offload->ram_bytes, 0,
         p.ram_bandwidth_gb_per_s);
  if (c.draft) note(p, NoteKind::draft_speed);
  note_padding_otherwise(req, m, p);
  if (p.speed && p.speed->calibration && std::strcmp(p.speed->calibration->family, "other") == 0)
    note(p, NoteKind::uncalibrated_speed);
  if (p.speed && p.speed->tflops_assumed)
    note(p, NoteKind::assumed_tflops, 0, 0, 0, 0, p.speed->tflops);
  note_usable_speed(req, m, p);
  // More than a handful of users on llama.cpp or Ollama: a batching engine serves them better.
  const bool slot_engine =
      req.serving ? engine_profile(req.serving->engine).memory_rule == MemoryRule::fixed_slots
                  : req.config.engine == Engine::llama_cpp || req.config.engine == Engine::ollama;
  if (req.users > kHandfulOfUsers && m.task == Task::generation && !req.train && slot_engine)
    note(p, NoteKind::batching_engine_suggested, req.users);
  plan_on_bought(req, m, w, memo, p);
}

// The GPUs a machine is sold with serve (#21): a serving deployment on fewer GPUs than the
// machine bought for it ships (5 H200 of a DGX H200's 8, as TP 1 x PP 5) is planned again on all
// of them, its layout searched as on --gpus N, since the buyer pays for them; a capacity search's
// deployment is kept (its spare GPUs are growth). Kept when it still fits; the
// options and the fewest-cards list stay the first pass's, with the chosen GPU's line brought to
// the deployment it now runs. Not for slot engines (llama.cpp and Ollama split layers: more GPUs
// add memory, not speed) nor a count or layout the request gives.
void plan_on_bought(const PlanRequest& req, const ModelSpec& m, const Weights* w, Memo& memo,
                    Plan& p) {
  if (!p.serving || !p.gpu || !p.system || !p.fit || p.fit->fit != Fit::fits ||
      req.gpus_requested || req.train || p.gpu->gpu.unified_memory)
    return;
  // A capacity search's deployment is what its users need, and its figures (users a replica
  // carries, the headroom) describe that deployment: its GPUs beyond it stay spare capacity.
  if (p.serving->capacity && p.serving->capacity->found) return;
  const Deployment& d = p.serving->deployment;
  if (engine_profile(d.engine).memory_rule == MemoryRule::fixed_slots) return;
  const uint32_t bought = p.system->choice.gpus_total();
  if (bought <= d.gpus() || d.gpus() != p.gpu->count || bought > kMaxGpus) return;
  PlanRequest again = req;
  again.gpus_requested = bought;
  again.gpu = p.gpu->gpu;
  Plan q;
  plan_into(again, m, w, &*again.gpu, memo, q);
  if (!q.serving || !q.gpu || !q.fit || q.fit->fit != Fit::fits || q.gpu->count != bought) return;
  q.serving->gpus_needed_before_machine = d.gpus();
  q.gpu->count_requested = 0;
  q.options = std::move(p.options);
  q.fewest = std::move(p.fewest);
  q.gpu_recommended = p.gpu_recommended;
  const EngineCount n = serving_count(*q.serving, q.config.headroom);
  for (GpuOption& o : q.options)
    if (o.plan.gpu.id == q.gpu->gpu.id) {
      o.plan.count = n.gpus;
      o.plan.per_gpu_bytes = n.per_gpu_bytes;
      o.tp = n.tp;
      o.pp = n.pp;
      o.replicas = n.replicas;
      o.attention_dp = n.attention_dp;
      o.tokens_per_s = n.tokens_per_s;
    }
  p = std::move(q);
}

// Hashing of the plain inputs a Planner caches by: every field, bit for bit, a 64-bit word at a
// time (multiply and fold).
struct Hasher {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  template <typename T>
  Hasher& add(const T& v) {
    static_assert(sizeof(T) <= 8, "one word at a time");
    uint64_t x = 0;
    std::memcpy(&x, &v, sizeof(T));
    h = (h ^ x) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    return *this;
  }
};

// An exact key of up to four words.
struct Key {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  bool operator==(const Key& o) const { return a == o.a && b == o.b && c == o.c && d == o.d; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    return static_cast<size_t>(Hasher().add(k.a).add(k.b).add(k.c).add(k.d).h);
  }
};

// --- serving at scale (#10) ------------------------------------------------------------------

// One replica of tp x pp GPUs (replica_deployment); slot engines get a slot per user
// (llama-server -np, OLLAMA_NUM_PARALLEL).
Deployment deployment_at(const ServingModel& sm, const ServingGpu& sg, const Deployment& base,
                         const Workload& wl, uint32_t tp, uint32_t pp) {
  Deployment d = replica_deployment(sm, sg, base, tp, pp);
  if (engine_profile(d.engine).memory_rule == MemoryRule::fixed_slots && wl.users)
    d.limits.max_num_seqs = wl.users;
  return d;
}

// Whether serving estimate `a` serves the workload better than `b`: it fits; it meets the SLOs;
// under a rate it keeps up (then the shorter request latency; both overloaded, the higher rate
// sustained); otherwise the more output tokens/s (with users given, the faster each user).
bool better_layout(const ServingEstimate& a, const ServingEstimate& b, const Workload& wl) {
  if (a.fits != b.fits) return a.fits;
  const bool sa = a.meets_ttft && a.meets_tpot, sb = b.meets_ttft && b.meets_tpot;
  if (sa != sb) return sa;
  if (wl.rate_per_s > 0) {
    if (a.overloaded != b.overloaded) return !a.overloaded;
    if (a.overloaded) return a.sustainable_requests_per_s > b.sustainable_requests_per_s;
    const double la = a.ttft_s.value + (wl.osl - 1.0) * a.itl_s.value;
    const double lb = b.ttft_s.value + (wl.osl - 1.0) * b.itl_s.value;
    return la < lb;
  }
  return a.output_tokens_per_s.value > b.output_tokens_per_s.value;
}

// The layouts a tensor-parallel engine may run `count` GPUs as (#22): a valid tensor-parallel
// degree within a node, pipeline stages, replicas for the rest; each estimated under the
// workload, the best kept and the runner-up named. Enumerated widest TP first, so a tie keeps
// the engine's default split.
struct LayoutSearch {
  Deployment best, runner_up;
  ServingEstimate best_estimate, runner_up_estimate;
  uint32_t layouts = 0;
};
// One more layout estimated: kept as the best or the runner-up when it serves better.
void consider(LayoutSearch& s, const Deployment& d, const ServingEstimate& e, const Workload& wl) {
  ++s.layouts;
  if (s.layouts == 1 || better_layout(e, s.best_estimate, wl)) {
    if (s.layouts > 1) {
      s.runner_up = s.best;
      s.runner_up_estimate = s.best_estimate;
    }
    s.best = d;
    s.best_estimate = e;
  } else if (s.layouts == 2 || better_layout(e, s.runner_up_estimate, wl)) {
    s.runner_up = d;
    s.runner_up_estimate = e;
  }
}

// The widest tensor-parallel degree of n GPUs within a node that divides n and the heads.
uint32_t widest_tp(const ServingModel& sm, uint32_t n, uint32_t gpn) {
  for (uint32_t t = std::min(n, gpn); t >= 1; --t)
    if (n % t == 0 && valid_tp(sm, t)) return t;
  return 1;
}

LayoutSearch search_layouts(const ServingModel& sm, const ServingGpu& sg, const Deployment& base,
                            const Workload& wl, uint32_t count, uint32_t gpn, uint32_t tp_pinned,
                            uint32_t pp_pinned, bool expert_parallel) {
  // The layouts run on the machines `count` GPUs fill. Replicas that fit a machine stay inside
  // one (machines_for, as the machine is chosen), so a replica size that strands GPUs in every
  // machine needs more machines than the GPUs given: 9 replicas of 16 GPUs on 144 GPUs in 72-GPU
  // racks fit 4 to a rack, 3 racks. Those are searched only when no layout fits the machines.
  const uint32_t prefill = base.prefill_workers * base.prefill_tp;
  const uint32_t machines = machines_for(count + prefill, gpn);
  LayoutSearch s;
  for (const bool any_placement : {false, true}) {
    for (uint32_t tp = tp_pinned ? tp_pinned : std::min(count, gpn); tp >= 1; --tp) {
      if (tp_pinned && tp != tp_pinned) break;
      if (count % tp || (!tp_pinned && !valid_tp(sm, tp))) continue;
      for (uint32_t pp = 1; pp <= count / tp && pp <= std::max<uint32_t>(1, sm.n_layer); ++pp) {
        if ((count / tp) % pp || (pp_pinned && pp != pp_pinned)) continue;
        const uint32_t replicas = count / (tp * pp);
        const GpuUnits units{tp * pp, base.prefill_tp, base.prefill_workers};
        if (!any_placement && machines_for(count + prefill, gpn, units) > machines) continue;
        Deployment d = deployment_at(sm, sg, base, wl, tp, pp);
        d.replicas = replicas;
        if (expert_parallel) d.attention_dp = true;
        consider(s, d, estimate_serving(sm, sg, d, wl), wl);
      }
    }
    if (s.layouts) break;
  }
  return s;
}

// --prefill-gpus auto: the layouts of `count` GPUs aggregated and split into P prefill GPUs
// (workers of each valid TP up to a node, P a multiple of it) and a decode layout searched on the
// rest; the best and the runner-up of all.
LayoutSearch search_disaggregation(const ServingModel& sm, const ServingGpu& sg,
                                   const Deployment& base, const Workload& wl, uint32_t count,
                                   uint32_t gpn) {
  LayoutSearch all = search_layouts(sm, sg, base, wl, count, gpn, 0, 0, false);
  for (uint32_t ptp = 1; ptp <= std::min(gpn, count - 1); ptp *= 2) {
    if (!valid_tp(sm, ptp)) continue;
    for (uint32_t p = ptp; p < count; p += ptp) {
      Deployment b = base;
      b.prefill_tp = ptp;
      b.prefill_workers = p / ptp;
      const LayoutSearch ls = search_layouts(sm, sg, b, wl, count - p, gpn, 0, 0, false);
      if (!ls.layouts) continue;
      // Its best and runner-up compete with the others; its other layouts count as searched.
      consider(all, ls.best, ls.best_estimate, wl);
      if (ls.layouts > 1) consider(all, ls.runner_up, ls.runner_up_estimate, wl);
      all.layouts += ls.layouts - std::min<uint32_t>(ls.layouts, 2);
    }
  }
  return all;
}

// The deployment of `count` GPUs (0: the fewest, up to max_count, that hold the weights and one
// sequence; else one GPU, which does not) under the engine's default split: tensor parallel within
// a node (the largest valid degree dividing the count), pipeline stages across nodes; llama.cpp /
// Ollama split layers (pp) only.
Deployment serving_deployment(const ServingModel& sm, const ServingGpu& sg, const Deployment& base,
                              const Workload& wl, uint32_t count, uint32_t gpn,
                              uint32_t max_count = kMaxGpus) {
  const bool tensor = engine_profile(base.engine).default_split == SplitMode::tensor;
  auto with = [&](uint32_t tp, uint32_t pp) { return deployment_at(sm, sg, base, wl, tp, pp); };
  auto split = [&](uint32_t n) {
    const uint32_t tp = tensor ? widest_tp(sm, n, gpn) : 1;
    return with(tp, n / tp);
  };
  Workload one = wl;
  one.users = 1;
  one.rate_per_s = 0;
  const bool slots = engine_profile(base.engine).memory_rule == MemoryRule::fixed_slots;
  if (count) {
    // llama-server and Ollama run in one machine (below): a count past one machine's GPUs runs as
    // replicas that each fit one, the fewest whose slots hold their share of the users.
    if (slots && count > gpn)
      for (uint32_t r = (count + gpn - 1) / gpn; r <= count; ++r) {
        if (count % r) continue;
        Deployment d = split(count / r);
        const uint32_t share = (std::max<uint32_t>(1, wl.users) + r - 1) / r;
        const ServingEstimate e = estimate_serving(sm, sg, d, one);
        if (!e.fits || e.max_concurrency < share) continue;
        d.replicas = r;
        d.limits.max_num_seqs = share;
        return d;
      }
    return split(count);
  }
  // No fewer GPUs than the weights need at the engine's whole memory share.
  const uint64_t budget = std::max<uint64_t>(1, sg.memory_bytes);
  const uint64_t first = std::max<uint64_t>(1, sm.resident_weight_bytes() / budget);
  // A slot engine reserves a slot per user (-np N): the fewest GPUs whose pool holds all N, when
  // any up to max_count does; else (and for the other engines) the fewest that hold one.
  const uint32_t want = slots ? std::max<uint32_t>(1, wl.users) : 1;
  auto fewest = [&](uint32_t sequences, uint32_t most) -> std::optional<Deployment> {
    for (uint64_t n = first; n <= most; ++n) {
      const Deployment d = split(static_cast<uint32_t>(n));
      if (d.tp * d.pp != n) continue;
      const ServingEstimate e = estimate_serving(sm, sg, d, one);
      if (e.fits && e.max_concurrency >= sequences) return d;
    }
    return std::nullopt;
  };
  // llama-server and Ollama run in one machine (a layer split across machines needs llama.cpp's
  // RPC backend, which their commands do not set up): past one machine's GPUs, the users' slots
  // go to replicas that each fit one machine, the fewest replicas first.
  if (slots && want > 1 && gpn < max_count) {
    if (auto d = fewest(want, gpn)) return *d;
    for (uint32_t r = 2; r <= want && r <= max_count; ++r) {
      const uint32_t share = (want + r - 1) / r;
      if (auto d = fewest(share, std::min(gpn, max_count / r))) {
        d->replicas = r;
        d->limits.max_num_seqs = share;
        return *d;
      }
    }
  }
  if (auto d = fewest(want, max_count)) return *d;
  if (want > 1)
    if (auto d = fewest(1, max_count)) return *d;
  return split(1);
}

// The deployment every layout of the request starts from: the engine's limits for the GPU, the
// request's max_model_len, power limit and memory share. A slot engine (llama.cpp, Ollama) planned
// by llmsize (`sized`: no GPU count given) fills what the plan's headroom rule leaves (1 / (1 +
// headroom) of each GPU), so the GPUs and slots it picks are ones the fit verdict holds; on a
// count given it fills what the engine itself would (the verdict then says how tight).
Deployment serving_base(const PlanRequest& req, const ServingSetup& s, bool sized) {
  const ServingRequest& sr = *req.serving;
  Deployment base = s.deployment;
  base.max_model_len = sr.max_model_len;
  base.power_limit = req.power.power_limit;
  base.memory_fraction_given = sr.memory_fraction;
  if (sized && !(sr.memory_fraction > 0) &&
      engine_profile(sr.engine).memory_rule == MemoryRule::fixed_slots)
    base.memory_fraction_given = 1 / (1 + req.config.headroom);
  return base;
}

// The fewest GPUs of `gpu`, up to 64 (what the options list), the serving engine deploys the
// model on under its default split and memory rule, for one sequence (a slot engine: for a slot
// per user where 64 hold them); 0 when none holds one.
uint32_t fewest_serving_gpus(const PlanRequest& req, const ModelSpec& m, const Weights* w,
                             const GpuSpec& gpu) {
  const ServingRequest& sr = *req.serving;
  const uint32_t gpn = serving_gpus_per_node(req, gpu);
  const ServingSetup s = placed_serving_setup(req, m, w, gpu, gpn);
  const Deployment base = serving_base(req, s, true);
  Workload wl = sr.workload;
  wl.users = req.users;  // a slot engine's slots, one per user
  const Deployment d = serving_deployment(s.model, s.gpu, base, wl, 0, gpn, 64);
  Workload one = sr.workload;
  one.users = 1;
  one.rate_per_s = 0;
  return estimate_serving(s.model, s.gpu, d, one).fits ? d.gpus() : 0;
}

// --redundancy n+k: the machines the users' replicas fill, as the catalog would buy them for
// those replicas alone, and k more of them, each full of replicas (spare_replicas_for at that
// machine's GPU count): any k machines down leave the replicas the users need. The capacity
// search ranked its layouts with the spares of gpus_per_node machines; the plan holds the machine
// count (GpuUnits::min_machines) so that the spares are not packed into the machines the others
// fill.
void add_spare_machines(const PlanRequest& req, const GpuSpec& gpu, const ServingSetup& s,
                        const Workload& wl, const CapacityTarget& t, ServingPlan& out) {
  const uint32_t k = req.serving->spare_machines;
  ServingCapacity& c = *out.capacity;
  Deployment& d = c.deployment;
  const uint32_t span = d.tp * d.pp;
  const GpuUnits needed_units{c.replicas_needed > 1 ? span : 0};
  uint32_t per_node = out.gpus_per_node;
  uint32_t machines = machines_for(c.replicas_needed * span, per_node, needed_units);
  if (req.platforms && !gpu.unified_memory) {
    const PlatformChoice ch = choose_platform(*req.platforms, gpu, c.replicas_needed * span,
                                              req.platform_override, nullptr, needed_units);
    if (ch.index >= 0 && ch.gpus_per_node) {
      per_node = ch.gpus_per_node;
      machines = ch.nodes;
    }
  }
  c.spare_replicas = spare_replicas_for(k, span, per_node);
  d.replicas = c.replicas_needed + c.spare_replicas;
  c.gpus = d.gpus();
  out.min_machines = machines + k * (span > per_node ? (span + per_node - 1) / per_node : 1);
  out.spare_machines = k;
  c.nodes = out.min_machines;
  Workload x = wl;
  x.rate_per_s = 0;
  c.estimate = estimate_serving(s.model, s.gpu, d, x);
  Deployment down = d;
  down.replicas = c.replicas_needed;
  c.degraded = estimate_serving(s.model, s.gpu, down, x);
  c.degraded_meets = meets_target(c.degraded, t);
  out.replicas_surviving = c.replicas_needed;  // price_spares() reads the machines bought
}

}  // namespace

double serving_target(const PlanRequest& req, uint32_t count) {
  if (!req.serving || !req.users) return 0;
  if (req.target_tokens_per_s > 0) return req.target_tokens_per_s;
  // --users N (people served at once) without a target or a count: all N at once, each at the
  // usable speed (any speed with --min-tps 0); a rate or --users max is not a head count. A slot
  // engine (llama.cpp, Ollama) too: a slot per user (-np N) holds them, and replicas make them
  // fast enough to use; a batching engine is suggested beside it for more than a handful (#21).
  if (count || (req.users < 2 && !req.serving->spare_machines) || req.serving->users_max ||
      req.serving->workload.rate_per_s > 0)
    return 0;
  return req.min_tokens_per_s > 0 ? req.min_tokens_per_s : kAnyUsableSpeed;
}

ServingPlan plan_serving(const PlanRequest& req, const ModelSpec& m, const Weights* exact,
                         const GpuSpec& gpu, uint32_t count, uint32_t gpus_per_node) {
  const ServingRequest& sr = *req.serving;
  const uint32_t gpn = std::max<uint32_t>(1, gpus_per_node);
  const ServingSetup s = placed_serving_setup(req, m, exact, gpu, gpn);
  ServingPlan out;
  out.gpus_per_node = gpn;
  out.workload = sr.workload;
  Workload& wl = out.workload;
  wl.users = req.users ? req.users : (sr.users_max || wl.rate_per_s > 0) ? 0 : 1;
  Deployment base = serving_base(req, s, req.gpus_requested == 0);
  if (sr.prefill_gpus && count > sr.prefill_gpus) {
    // Disaggregated: prefill workers on prefill_gpus of the GPUs, the layout searched on the rest.
    base.prefill_tp = sr.prefill_tp ? sr.prefill_tp : widest_tp(s.model, sr.prefill_gpus, gpn);
    base.prefill_workers = sr.prefill_gpus / base.prefill_tp;
    count -= sr.prefill_gpus;
  }
  // Experts in system RAM (--n-cpu-moe): one llama-server serves the users from its slots;
  // replicas would share the host's memory bandwidth, which the step model does not divide.
  const double target = s.model.host_expert_bytes ? 0 : serving_target(req, count);
  CapacityTarget target_of;
  if (target > 0) {
    CapacityTarget& t = target_of;
    t.users = req.users;
    t.per_user_tokens_per_s = target;
    out.capacity_target_tokens_per_s = target;
    t.ttft_slo_s = wl.ttft_slo_s;
    t.tpot_slo_s = wl.tpot_slo_s;
    t.slo_percentile = wl.slo_percentile;
    t.spare_machines = sr.spare_machines;
    out.capacity = plan_serving_capacity(s.model, s.gpu, base, wl, t);
  }
  // Sized for its users when no target was given: a search that finds nothing leaves the
  // fewest GPUs that hold one sequence (the users then queue, as the estimate says).
  out.users_sized = target > 0 && req.target_tokens_per_s <= 0;
  if (out.users_sized && !out.capacity->found) {
    out.capacity.reset();
    out.users_sized = false;
  }
  if (out.capacity && out.capacity->found && !count) {
    if (sr.spare_machines) add_spare_machines(req, gpu, s, wl, target_of, out);
    out.deployment = out.capacity->deployment;
    out.estimate = out.capacity->estimate;
    // A slot engine's replicas each reserve a slot per user they carry (llama-server -np).
    if (engine_profile(sr.engine).memory_rule == MemoryRule::fixed_slots && wl.users)
      out.deployment.limits.max_num_seqs =
          (wl.users + out.deployment.replicas - 1) / std::max<uint32_t>(1, out.deployment.replicas);
  } else if (count && engine_profile(sr.engine).default_split == SplitMode::tensor) {
    // The GPUs are given: the layout that serves the workload best on them, and the next.
    const LayoutSearch ls = sr.prefill_auto
                                ? search_disaggregation(s.model, s.gpu, base, wl, count, gpn)
                                : search_layouts(s.model, s.gpu, base, wl, count, gpn, sr.tp, sr.pp,
                                                 sr.expert_parallel);
    out.deployment = ls.best;
    out.estimate = ls.best_estimate;
    out.layouts_searched = ls.layouts;
    if (ls.layouts > 1) {
      out.runner_up = ls.runner_up;
      out.runner_up_estimate = ls.runner_up_estimate;
    }
  } else {
    out.deployment = serving_deployment(s.model, s.gpu, base, wl, count, gpn);
    out.estimate = estimate_serving(s.model, s.gpu, out.deployment, wl);
  }
  if (out.deployment.spec.active()) {
    Deployment plain = out.deployment;
    plain.spec = {};
    out.without_spec = estimate_serving(s.model, s.gpu, plain, wl);
  }
  out.kv_charged_guarantee = engine_profile(sr.engine).reservation != KvReservation::on_demand;
  out.launch = launch_plan(out.deployment, wl, m.n_layer, gpn, sr.launch_model);
  out.launch.devices_variable = device_selection_variable(gpu.backends);
  out.launch.flags = guide_flags(sr.guide, out.deployment.engine);
  if (std::string env = moe_kernel_environment(*req.config.quant, sr.engine, gpu.architecture);
      !env.empty())
    out.launch.environment.push_back(std::move(env));
  out.launch.n_cpu_moe = req.config.n_cpu_moe;
  out.launch.kv_unified = req.config.kv_unified;
  out.launch.draft = sr.launch_draft;
  out.launch.spec = out.deployment.spec.method;
  out.launch.spec_tokens = out.deployment.spec.draft_tokens;
  out.launch.spec_model = sr.spec_launch_model;
  // A slot engine reserves -np slots of max_model_len at start: no more than the KV pool holds,
  // the slots the plan runs (the other users queue), else the printed command would not start.
  if (engine_profile(sr.engine).memory_rule == MemoryRule::fixed_slots && out.estimate.fits &&
      out.estimate.max_concurrency < out.launch.max_num_seqs)
    out.launch.max_num_seqs = out.estimate.max_concurrency;
  // FP8 weights from a 16-bit checkpoint: vLLM and SGLang quantize it when loading
  // (--quantization fp8, dynamic per-tensor scales); TensorRT-LLM needs an FP8 checkpoint. A
  // checkpoint stored in FP8 (DeepSeek-V3/R1) is read as it is: no flag.
  if (std::strcmp(req.config.quant->id, "fp8") == 0 && m.stored_quant != "fp8" &&
      (sr.engine == Engine::vllm || sr.engine == Engine::sglang))
    out.launch.quantization = "fp8";
  return out;
}

uint32_t max_concurrent_sequences(const Estimate& e, const RunConfig& c, uint64_t usable_each,
                                  uint32_t n) {
  const uint64_t usable = checked_mul(usable_each, n);
  const uint64_t fixed = fraction_of(
      checked_add(checked_add(checked_add(e.weights_bytes, e.activations_bytes), e.overhead_bytes),
                  e.draft_bytes),
      1 + c.headroom);
  // Each sequence's KV cache and recurrent state.
  const uint64_t kv_seq =
      (e.kv_cache_bytes + e.recurrent_state_bytes) / std::max<uint32_t>(1, c.kv.n_seq);
  const uint64_t kv_seq_h = fraction_of(kv_seq, 1 + c.headroom);
  if (usable <= fixed || kv_seq_h == 0) return 0;
  return static_cast<uint32_t>(std::min<uint64_t>((usable - fixed) / kv_seq_h, 1u << 30));
}

const char* to_string(Objective o) {
  switch (o) {
    case Objective::price:
      return "price";
    case Objective::gpus:
      return "gpus";
    case Objective::power:
      return "power";
    case Objective::tco:
      return "tco";
  }
  return "?";
}

const char* to_string(FigureBasis b) {
  switch (b) {
    case FigureBasis::none:
      return "none";
    case FigureBasis::machine:
      return "machine";
    case FigureBasis::generic:
      return "generic";
  }
  return "?";
}
namespace {
FigureBasis machine_basis(const Plan& p) {
  return p.system && p.system->platform && p.system->platform->generic ? FigureBasis::generic
                                                                       : FigureBasis::machine;
}
}  // namespace

FigureBasis power_basis(const Plan& p) {
  return p.power ? machine_basis(p) : FigureBasis::none;
}
FigureBasis cost_basis(const Plan& p) {
  return p.cost ? machine_basis(p) : FigureBasis::none;
}

bool replicas_within_machines(const Plan& p) {
  if (!p.serving || !p.gpu || !p.system || !p.system->platform) return false;
  const Deployment& d = p.serving->deployment;
  const PlatformChoice& ch = p.system->choice;
  return d.gpus() == p.gpu->count && d.replicas > 1 && ch.nodes > 1 &&
         d.tp * d.pp <= ch.gpus_per_node;
}

Plan plan(const PlanRequest& req) {
  NoMemo memo;
  Plan p;
  plan_into(req, req.model, req.exact_weights ? &*req.exact_weights : nullptr,
            req.gpu ? &*req.gpu : nullptr, memo, p);
  return p;
}

// --- Planner ----------------------------------------------------------------------------------

struct Planner::Impl final : Memo {
  struct Model {
    ModelSpec spec;
    RunConfig config;  // the base config under this model's quant
    Weights weights;
    bool exact = false;
  };
  PlanRequest base;
  std::vector<Model> models;
  std::vector<GpuSpec> gpu_specs;
  Plan out;

  // The call being served: the keys of what it computes.
  size_t cur_model = SIZE_MAX;
  size_t cur_gpu = 0;
  // Estimates by (n_ctx, n_gpus, n_seq, headroom) of the current model.
  std::unordered_map<Key, Estimate, KeyHash> estimates;
  // The system key's bytes and their hash, computed once per row (the key is some 200 bytes).
  struct SystemKey {
    std::string bytes;
    size_t hash = 0;
    bool operator==(const SystemKey& o) const { return hash == o.hash && bytes == o.bytes; }
  };
  struct SystemKeyHash {
    size_t operator()(const SystemKey& k) const { return k.hash; }
  };
  static size_t hash_bytes(std::string_view b) {
    Hasher h;
    size_t i = 0;
    for (; i + 8 <= b.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, b.data() + i, 8);
      h.add(w);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, b.data() + i, b.size() - i);
    return static_cast<size_t>(h.add(tail).add(uint64_t{b.size()}).h);
  }
  std::unordered_map<SystemKey, std::shared_ptr<const SystemPlan>, SystemKeyHash> systems;
  // By the system key without host_weights_bytes, and the RAM population (system()).
  std::unordered_map<SystemKey, std::shared_ptr<const SystemPlan>, SystemKeyHash> siblings;
  std::unordered_map<std::string, PlatformChoice> choices;
  std::unordered_map<Key, std::vector<ClassFit>, KeyHash> class_fits_;  // by ekey, as estimates
  SystemKey key;                                                        // system_key's buffer

  // The headroom too: a serving replica's estimate carries its engine's rule
  // (plan_replica_memory), which differs from the base config's.
  static Key ekey(const RunConfig& c) {
    uint64_t headroom = 0;
    std::memcpy(&headroom, &c.headroom, sizeof headroom);
    // The expert padding follows the GPU's architecture (kExpertPaddings' multiples < 2^16).
    const uint64_t pad = uint64_t{c.expert_padding.n_embd_multiple & 0xffffu} |
                         uint64_t{c.expert_padding.n_ff_multiple & 0xffffu} << 16 |
                         uint64_t{static_cast<uint8_t>(c.expert_padding.type)} << 24;
    return {c.kv.n_ctx | uint64_t{c.profile_tokens} << 32,
            c.n_gpus | uint64_t{c.profile_seqs} << 32, c.kv.n_seq | pad << 32, headroom};
  }

  const Estimate& estimate(const ModelSpec& m, const RunConfig& c, const Weights* w) override {
    auto it = estimates.find(ekey(c));
    if (it != estimates.end()) return it->second;
    static std::atomic<uint64_t> serials{0};
    Estimate e = llmsize::estimate(m, c, w);
    e.memo_serial = ++serials;
    return estimates.emplace(ekey(c), std::move(e)).first->second;
  }
  void gpus(const ModelSpec& m, const Estimate& e, const RunConfig& c, const GpuSpec& gpu,
            uint32_t count, GpuPlan& p) override {
    plan_gpus_numbers(m, e, c, gpu, count, p);
    describe_split(p);  // kinds and numbers only: cheap enough to make per call
  }
  // Every field plan_system() reads, bit for bit; the GPU by its catalog id (unique in a
  // Planner's catalog) with the figures a caller may override (price, memory, board power).
  // Returns the length of its first part, what choose_platform() reads: the catalog, the GPU,
  // the count and the override; *host_weights_at is where needs.host_weights_bytes is.
  static size_t system_key(const SystemRequest& r, std::string& k, size_t* host_weights_at) {
    // Sized once, then filled through a pointer: every value added is a distinct member of r, so
    // they take at most sizeof r, plus the two strings' characters and NULs.
    k.assign(sizeof r + r.gpu->id.size() + r.platform_override.size() + 2, '\0');
    char* o = k.data();
    auto add = [&o](const auto& v) {
      std::memcpy(o, &v, sizeof v);
      o += sizeof v;
    };
    auto text = [&o](const std::string& s) {
      std::memcpy(o, s.data(), s.size());
      o += s.size() + 1;  // and the NUL the string was made with
    };
    add(r.catalog);
    text(r.gpu->id);
    add(r.gpu->price_usd);
    add(r.gpu->memory_bytes);
    add(r.gpu->board_power_w);
    add(r.n_gpus);
    add(r.units.unit), add(r.units.prefill_tp), add(r.units.prefill_workers);
    add(r.units.min_machines);
    text(r.platform_override);
    const auto choice_part = static_cast<size_t>(o - k.data());
    const HostNeeds& n = r.needs;
    add(n.gpus), add(n.nodes), add(n.weights_bytes);
    *host_weights_at = static_cast<size_t>(o - k.data());
    add(n.host_weights_bytes);
    add(n.model_set_bytes), add(n.dataset_bytes), add(n.checkpoint_bytes), add(n.fine_tuning);
    add(n.networked);
    const PowerWorkload& w = r.workload;
    add(w.decode_batch), add(w.prefill_share), add(w.busy_share), add(w.power_limit);
    add(w.bytes_per_weight), add(w.routed_share);
    add(r.power_limit);
    const ColdStartInput& c = r.cold_start;
    add(c.weights_bytes), add(c.storage), add(c.engine), add(c.loader), add(c.n_gpus);
    add(c.rocm), add(c.cuda_graphs), add(c.torch_compile), add(c.compile_cached);
    add(c.page_cached), add(c.network_gbit_per_s), add(c.pcie_gb_per_s);
    add(r.rack_budget_kw);
    add(r.mains_v);
    k.resize(static_cast<size_t>(o - k.data()));
    return choice_part;
  }
  // The platform choice by the first part of the system key. It does not depend on the model:
  // it is kept across models.
  const PlatformChoice& choice(const SystemRequest& in, std::string choice_key) {
    auto it = choices.find(choice_key);
    if (it != choices.end()) return it->second;
    return choices
        .emplace(std::move(choice_key), choose_platform(*in.catalog, *in.gpu, in.n_gpus,
                                                        in.platform_override, nullptr, in.units))
        .first->second;
  }
  std::shared_ptr<const SystemPlan> system(const SystemRequest& in) override {
    // Into the reused buffer: a row that finds its machine allocates nothing.
    size_t host_weights_at = 0;
    const size_t choice_part = system_key(in, key.bytes, &host_weights_at);
    key.hash = hash_bytes(key.bytes);
    auto it = systems.find(key);
    if (it != systems.end()) return it->second;
    const PlatformChoice& c = choice(in, key.bytes.substr(0, choice_part));
    // An offloading plan's machine differs from its neighbours' at other contexts only in the
    // RAM it needs (host_weights_bytes): kept by the rest of the key and the RAM population, it
    // is theirs with this host (with_host).
    SystemKey sib;
    sib.bytes = key.bytes;
    std::memset(sib.bytes.data() + host_weights_at, 0, sizeof in.needs.host_weights_bytes);
    std::optional<HostSizing> host;
    if (c.index >= 0) {
      host = system_host(in, c);
      const RamSizing& r = host->ram;
      for (uint64_t v : {uint64_t{r.dimms}, uint64_t{r.dimm_gib}, r.installed_bytes,
                         uint64_t{r.channels}, uint64_t{r.dimms_per_channel}})
        sib.bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    sib.hash = hash_bytes(sib.bytes);
    std::shared_ptr<const SystemPlan> s;
    const auto found = siblings.find(sib);
    if (found == siblings.end()) {
      s = std::make_shared<const SystemPlan>(plan_system(in, c));
      siblings.emplace(std::move(sib), s);
    } else if (!host) {
      s = found->second;  // no machine: nothing of it depends on the RAM
    } else {
      s = std::make_shared<const SystemPlan>(with_host(*found->second, std::move(*host)));
    }
    return systems.emplace(key, std::move(s)).first->second;
  }
  const std::vector<ClassFit>& classes(const Estimate& e, const RunConfig& c) override {
    auto it = class_fits_.find(ekey(c));
    if (it != class_fits_.end()) return it->second;
    return class_fits_.emplace(ekey(c), class_fits(e, c)).first->second;
  }

  void select(size_t model) {
    if (model == cur_model) return;
    estimates.clear();
    class_fits_.clear();
    systems.clear();
    siblings.clear();
    cur_model = model;
  }
};

Planner::Planner(PlanRequest base) : impl_(std::make_unique<Impl>()) {
  impl_->base = std::move(base);
  impl_->base.model = ModelSpec();
  impl_->base.exact_weights.reset();
  impl_->base.gpu.reset();
}

Planner::~Planner() = default;

size_t Planner::add_model(ModelSpec m, const QuantPreset* quant, std::optional<Weights> exact) {
  Impl::Model x;
  x.config = impl_->base.config;
  x.config.quant = quant;
  x.exact = exact.has_value();
  x.weights = exact ? std::move(*exact)
                    : compute_weights(m, *quant, engine_profile(x.config.engine).embeddings_on_host,
                                      loads_nextn(x.config));
  x.spec = std::move(m);
  impl_->models.push_back(std::move(x));
  return impl_->models.size() - 1;
}

size_t Planner::add_gpu(GpuSpec g) {
  impl_->gpu_specs.push_back(std::move(g));
  return impl_->gpu_specs.size() - 1;
}

const Plan& Planner::plan(size_t model, uint32_t n_ctx, size_t gpu, uint32_t count) {
  Impl& s = *impl_;
  s.select(model);
  s.cur_gpu = gpu;
  const Impl::Model& m = s.models[model];
  PlanRequest& r = s.base;
  r.config = m.config;
  r.config.kv.n_ctx = n_ctx;
  r.gpus_requested = count;
  plan_into(r, m.spec, &m.weights, &s.gpu_specs[gpu], s, s.out);
  return s.out;
}

PlanRequest Planner::request(size_t model, uint32_t n_ctx, size_t gpu, uint32_t count) const {
  const Impl& s = *impl_;
  const Impl::Model& m = s.models[model];
  PlanRequest r = s.base;
  r.model = m.spec;
  if (m.exact) r.exact_weights = m.weights;
  r.config = m.config;
  r.config.kv.n_ctx = n_ctx;
  r.gpu = s.gpu_specs[gpu];
  r.gpus_requested = count;
  return r;
}

const ModelSpec& Planner::model(size_t i) const {
  return impl_->models[i].spec;
}
const Weights& Planner::weights(size_t i) const {
  return impl_->models[i].weights;
}
const RunConfig& Planner::config(size_t i) const {
  return impl_->models[i].config;
}
const GpuSpec& Planner::gpu(size_t i) const {
  return impl_->gpu_specs[i];
}

void Planner::forget() {
  impl_->estimates.clear();
  impl_->class_fits_.clear();
  impl_->cur_model = SIZE_MAX;
}

}  // namespace llmsize
