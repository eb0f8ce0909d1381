// Every field of the catalog structs, once: the build's catalog compiler writes the compiled
// catalog from this list (src/io/compile_catalogs.cpp), and the test that compares the compiled
// catalog with data/*.json read at run time walks the same list. A visitor `v` is called as
// v("name", member) for each member in declaration order; nested structs and vectors of them are
// visited again through these functions.
//
// A struct that grows a member without a line here would be left out of the compiled catalog
// silently: the size checks at the end stop the build instead (update the list, then the size).
#pragma once

#include "llmsize/gpu.hpp"
#include "llmsize/io/catalog.hpp"
#include "llmsize/machine/platform.hpp"
#include "llmsize/model/model_spec.hpp"

namespace llmsize::catalog_fields {

template <class V>
void fields(V& v, LayerKind& k) {
  v("attn", k.attn);
  v("n_head", k.n_head);
  v("n_head_kv", k.n_head_kv);
  v("n_embd_head_k", k.n_embd_head_k);
  v("n_embd_head_v", k.n_embd_head_v);
  v("n_swa", k.n_swa);
  v("n_indexer_k", k.n_indexer_k);
  v("k_eq_v", k.k_eq_v);
  v("sinks", k.sinks);
  v("nope", k.nope);
  v("kv_shared", k.kv_shared);
  v("gated_q", k.gated_q);
  v("kv_single", k.kv_single);
  v("compress_ratio", k.compress_ratio);
  v("state", k.state);
  v("ffn", k.ffn);
  v("n_ff", k.n_ff);
}

template <class V>
void fields(V& v, LayerRun& r) {
  v("kind", r.kind);
  v("count", r.count);
}

template <class V>
void fields(V& v, LayerSegment& s) {
  v("runs", s.runs);
  v("repeat", s.repeat);
}

template <class V>
void fields(V& v, SsmSpec& s) {
  v("d_conv", s.d_conv);
  v("d_inner", s.d_inner);
  v("d_state", s.d_state);
  v("n_group", s.n_group);
  v("dt_rank", s.dt_rank);
  v("l_cache", s.l_cache);
}

template <class V>
void fields(V& v, VisionTower& t) {
  v("kind", t.kind);
  v("depth", t.depth);
  v("hidden", t.hidden);
  v("n_ff", t.n_ff);
  v("n_head", t.n_head);
  v("head_dim", t.head_dim);
  v("patch", t.patch);
  v("temporal_patch", t.temporal_patch);
  v("in_channels", t.in_channels);
  v("n_pos", t.n_pos);
  v("merge", t.merge);
  v("out_hidden", t.out_hidden);
  v("n_deepstack", t.n_deepstack);
}

template <class V>
void fields(V& v, ModelSpec& m) {
  v("id", m.id);
  v("name", m.name);
  v("arch", m.arch);
  v("n_layer", m.n_layer);
  v("n_embd", m.n_embd);
  v("n_ff", m.n_ff);
  v("n_head", m.n_head);
  v("n_head_kv", m.n_head_kv);
  v("n_head_kv_per_layer", m.n_head_kv_per_layer);
  v("n_embd_head_k", m.n_embd_head_k);
  v("n_embd_head_v", m.n_embd_head_v);
  v("n_vocab", m.n_vocab);
  v("n_ctx_train", m.n_ctx_train);
  v("tied_embeddings", m.tied_embeddings);
  v("qkv_bias", m.qkv_bias);
  v("n_expert", m.n_expert);
  v("n_expert_used", m.n_expert_used);
  v("n_expert_shared", m.n_expert_shared);
  v("n_ff_exp", m.n_ff_exp);
  v("n_ff_shexp", m.n_ff_shexp);
  v("n_layer_dense_lead", m.n_layer_dense_lead);
  v("n_swa", m.n_swa);
  v("swa_pattern", m.swa_pattern);
  v("q_lora_rank", m.q_lora_rank);
  v("kv_lora_rank", m.kv_lora_rank);
  v("n_rot", m.n_rot);
  v("layer_kinds", m.layer_kinds);
  v("layer_segments", m.layer_segments);
  v("ssm", m.ssm);
  v("n_layer_nextn", m.n_layer_nextn);
  v("gguf_drops_nextn", m.gguf_drops_nextn);
  v("nextn_embeddings", m.nextn_embeddings);
  v("n_embd_per_layer", m.n_embd_per_layer);
  v("n_altup", m.n_altup);
  v("laurel_rank", m.laurel_rank);
  v("n_indexer_head", m.n_indexer_head);
  v("n_indexer_head_dim", m.n_indexer_head_dim);
  v("o_lora_rank", m.o_lora_rank);
  v("o_groups", m.o_groups);
  v("hc_mult", m.hc_mult);
  v("n_hash_layers", m.n_hash_layers);
  v("vision", m.vision);
  v("qk_norm", m.qk_norm);
  v("task", m.task);
  v("n_token_types", m.n_token_types);
  v("n_cls_out", m.n_cls_out);
  v("stored_quant", m.stored_quant);
  v("stored_quant_unread", m.stored_quant_unread);
  v("params_official", m.params_official);
  v("params_source", m.params_source);
}

template <class V>
void fields(V& v, EngineFlags& f) {
  v("trust_remote_code", f.trust_remote_code);
  v("tool_call_parser", f.tool_call_parser);
  v("reasoning_parser", f.reasoning_parser);
  v("tool_chat_template", f.tool_chat_template);
  v("args", f.args);
}

template <class V>
void fields(V& v, ModelServingGuide& g) {
  v("reasoning", g.reasoning);
  v("vllm", g.vllm);
  v("sglang", g.sglang);
  v("source", g.source);
}

template <class V>
void fields(V& v, CatalogModel& m) {
  v("spec", m.spec);
  v("aliases", m.aliases);
  v("shorthand", m.shorthand);
  v("hf_repo", m.hf_repo);
  v("source", m.source);
  v("origin", m.origin);
  v("serving", m.serving);
}

template <class V>
void fields(V& v, GpuSpec& g) {
  v("id", g.id);
  v("name", g.name);
  v("vendor", g.vendor);
  v("gpu_class", g.gpu_class);
  v("memory_bytes", g.memory_bytes);
  v("memory_fraction", g.memory_fraction);
  v("visible_memory_bytes", g.visible_memory_bytes);
  v("memory_type", g.memory_type);
  v("bandwidth_gb_per_s", g.bandwidth_gb_per_s);
  v("board_power_w", g.board_power_w);
  v("fp16_tflops_dense", g.fp16_tflops_dense);
  v("bf16_tflops_dense", g.bf16_tflops_dense);
  v("fp8_tflops_dense", g.fp8_tflops_dense);
  v("fp4_tflops_dense", g.fp4_tflops_dense);
  v("int8_tops_dense", g.int8_tops_dense);
  v("architecture", g.architecture);
  v("interconnect", g.interconnect);
  v("interconnect_gb_per_s", g.interconnect_gb_per_s);
  v("link_domain_gpus", g.link_domain_gpus);
  v("pcie_gen", g.pcie_gen);
  v("pcie_lanes", g.pcie_lanes);
  v("slot_width", g.slot_width);
  v("form_factor", g.form_factor);
  v("unified_memory", g.unified_memory);
  v("backends", g.backends);
  v("price_usd", g.price_usd);
  v("price_date", g.price_date);
  v("price_kind", g.price_kind);
  v("rent_usd_per_gpu_hour", g.rent_usd_per_gpu_hour);
  v("rent_low_usd_per_gpu_hour", g.rent_low_usd_per_gpu_hour);
  v("rent_high_usd_per_gpu_hour", g.rent_high_usd_per_gpu_hour);
  v("rent_providers", g.rent_providers);
  v("rent_date", g.rent_date);
  v("market", g.market);
}

template <class V>
void fields(V& v, CatalogGpu& g) {
  v("spec", g.spec);
  v("aliases", g.aliases);
  v("source", g.source);
  v("origin", g.origin);
}

template <class V>
void fields(V& v, Redundancy& r) {
  v("n", r.n);
  v("r", r.r);
}

template <class V>
void fields(V& v, PsuSpec& p) {
  v("bays", p.bays);
  v("watts", p.watts);
  v("atx", p.atx);
  v("redundancy", p.redundancy);
  v("efficiency", p.efficiency);
  v("bays_published", p.bays_published);
  v("redundancy_published", p.redundancy_published);
}

template <class V>
void fields(V& v, PlatformModel& p) {
  v("id", p.id);
  v("name", p.name);
  v("vendor", p.vendor);
  v("platform_class", p.platform_class);
  v("form_factor", p.form_factor);
  v("rack_units", p.rack_units);
  v("gpu_mount", p.gpu_mount);
  v("gpu_counts", p.gpu_counts);
  v("gpu_ids", p.gpu_ids);
  v("gpu_width_max", p.gpu_width_max);
  v("gpu_widths_total", p.gpu_widths_total);
  v("gpu_lanes_total", p.gpu_lanes_total);
  v("gpu_lanes_each", p.gpu_lanes_each);
  v("gpu_watts_each_max", p.gpu_watts_each_max);
  v("server_airflow", p.server_airflow);
  v("liquid_cooled", p.liquid_cooled);
  v("cpu_sockets", p.cpu_sockets);
  v("cpu_model", p.cpu_model);
  v("cpu_cores_per_socket", p.cpu_cores_per_socket);
  v("cpu_tdp_w", p.cpu_tdp_w);
  v("cpu_tdp_assumed", p.cpu_tdp_assumed);
  v("memory_channels_per_socket", p.memory_channels_per_socket);
  v("memory_type", p.memory_type);
  v("dimm_slots", p.dimm_slots);
  v("ram_shipped_gib", p.ram_shipped_gib);
  v("ram_max_gib", p.ram_max_gib);
  v("nic_slots", p.nic_slots);
  v("nic_slots_published", p.nic_slots_published);
  v("nvme_shipped", p.nvme_shipped);
  v("nics_400g_shipped", p.nics_400g_shipped);
  v("nics_other_shipped", p.nics_other_shipped);
  v("dpus_shipped", p.dpus_shipped);
  v("psu", p.psu);
  v("max_power_w", p.max_power_w);
  v("typical_power_w", p.typical_power_w);
  v("idle_power_w", p.idle_power_w);
  v("measured_peak_w", p.measured_peak_w);
  v("gpu_memory_fraction", p.gpu_memory_fraction);
  v("units_linked_max", p.units_linked_max);
  v("unit_link", p.unit_link);
  v("unit_link_gbit_per_s", p.unit_link_gbit_per_s);
  v("generic", p.generic);
  v("basis", p.basis);
  v("price_usd", p.price_usd);
  v("price_source", p.price_source);
  v("source", p.source);
}

// The sizes of the structs as this list knows them, on the platform the build runs on (x86-64
// with libstdc++): a member added to a struct changes its size and stops the build here.
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(LayerKind) == 48, "LayerKind changed: update its fields() above");
static_assert(sizeof(LayerRun) == 8, "LayerRun changed: update its fields() above");
static_assert(sizeof(LayerSegment) == 32, "LayerSegment changed: update its fields() above");
static_assert(sizeof(SsmSpec) == 24, "SsmSpec changed: update its fields() above");
static_assert(sizeof(VisionTower) == 52, "VisionTower changed: update its fields() above");
static_assert(sizeof(ModelSpec) == 464, "ModelSpec changed: update its fields() above");
static_assert(sizeof(EngineFlags) == 128, "EngineFlags changed: update its fields() above");
static_assert(sizeof(ModelServingGuide) == 296,
              "ModelServingGuide changed: update its fields() above");
static_assert(sizeof(CatalogModel) == 912, "CatalogModel changed: update its fields() above");
static_assert(sizeof(GpuSpec) == 456, "GpuSpec changed: update its fields() above");
static_assert(sizeof(CatalogGpu) == 544, "CatalogGpu changed: update its fields() above");
static_assert(sizeof(Redundancy) == 8, "Redundancy changed: update its fields() above");
static_assert(sizeof(PsuSpec) == 48, "PsuSpec changed: update its fields() above");
static_assert(sizeof(PlatformModel) == 600, "PlatformModel changed: update its fields() above");
#endif

}  // namespace llmsize::catalog_fields
