#!/usr/bin/env node
// Measure what llama.cpp allocates (model, KV cache, recurrent state, compute
// buffers) for an architecture, on a sparse shape-only GGUF.
//
//   node probe.mjs write    MODEL_ID OUT.gguf     write the GGUF (discovering the tensor list)
//   node probe.mjs run      MODEL_ID OUT.json     write + load + create every context setting
//   node probe.mjs merge    OUT.json RESULTS...   merge per-model results into one file
//
// Needs the npm package node-llama-cpp (its prebuilt CPU llama.cpp) installed
// somewhere on NODE_PATH or in a node_modules above the working directory; see README.md.
//
// The tensor list is not hand-written: llama.cpp's own loader is asked. The
// file starts with the metadata only; each load attempt that fails with
// "tensor 'X' not found" adds X, and "tensor 'X' has wrong shape; expected A"
// fixes its shape, until the model loads. Optional tensors that a real
// checkpoint carries (untied output, fused QKV, ...) are named in the spec's
// extra_tensors and get their shape the same way.

import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeGguf, tensorBytes } from "./gguf.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const MiB = 1024 * 1024;

// ---------------------------------------------------------------- spec -> kv
const FLOAT_KEY = /(epsilon|freq_base|freq_base_swa|scaling\.factor|attn_factor|weights_scale|logit_scale|residual_scale|embedding_scale|attention\.scale|softcapping|yarn_log_multiplier|temperature_scale|swiglu_clamp_exp|swiglu_clamp_shexp|yarn_beta_fast|yarn_beta_slow)$/;

function kvFor(spec) {
  const a = spec.arch;
  const kv = [
    ["general.architecture", { t: "str", v: a }],
    ["general.name", { t: "str", v: `shape-only ${spec.id}` }],
    ["general.alignment", { t: "u32", v: 32 }],
    ["tokenizer.ggml.model", { t: "str", v: "none" }],
    [`${a}.vocab_size`, { t: "u32", v: spec.vocab_size }],
  ];
  for (const [k0, v] of Object.entries(spec.hparams)) {
    const k = `${a}.${k0}`;
    if (typeof v === "boolean") kv.push([k, { t: "bool", v }]);
    else if (typeof v === "string") kv.push([k, { t: "str", v }]);
    else if (Array.isArray(v)) {
      if (typeof v[0] === "boolean") kv.push([k, { t: "arr", et: "bool", v }]);
      else if (FLOAT_KEY.test(k)) kv.push([k, { t: "arr", et: "f32", v }]);
      else kv.push([k, { t: "arr", et: "i32", v }]);
    } else if (FLOAT_KEY.test(k)) kv.push([k, { t: "f32", v }]);
    else kv.push([k, { t: "u32", v }]);
  }
  return kv;
}

// Weight type of a tensor: norms, biases, SSM scalars, sinks F32 (as
// llama-quantize keeps them); matrices the spec's weight_type when ne0 allows,
// else F16.
function typeFor(spec, name, shape) {
  const f32 = /(norm|bias|sinks|ssm_a|ssm_d$|ssm_d\.|ssm_dt|ssm_conv1d|shortconv\.conv|exp_probs_b|_scale$|rope_freqs)/;
  if (shape.length === 1 || f32.test(name)) return "F32";
  for (const [re, ty] of spec.type_overrides ?? []) {
    if (new RegExp(re).test(name) && shape[0] % 32 === 0) return ty;
  }
  const wt = spec.weight_type ?? "Q8_0";
  if (shape[0] % 32 === 0) return wt;
  return "F16";
}

function expandExtras(spec) {
  const n = spec.hparams.block_count;
  const out = [];
  // an entry is a name, or [name, JS condition on the layer index i]
  for (const e0 of spec.extra_tensors ?? []) {
    const [e, cond] = Array.isArray(e0) ? e0 : [e0, "true"];
    const keep = new Function("i", `return (${cond});`);
    if (e.includes("{i}")) {
      for (let i = 0; i < n; i++) if (keep(i)) out.push(e.replace("{i}", String(i)));
    } else out.push(e);
  }
  return out;
}

// ---------------------------------------------------------------- llama.cpp
// Where the node-llama-cpp package is: $NODE_LLAMA_CPP_DIR, else ./node_modules/node-llama-cpp
const pkgDir = process.env.NODE_LLAMA_CPP_DIR ?? path.resolve("node_modules", "node-llama-cpp");
let llamaMod = null;
async function getLlamaInstance(sink) {
  if (!llamaMod) llamaMod = await import(pathToFileURL(path.join(pkgDir, "dist", "index.js")).href);
  const { getLlama, LlamaLogLevel } = llamaMod;
  const llama = await getLlama({
    gpu: false,
    build: "never",
    logLevel: LlamaLogLevel.info,
    logger: (level, message) => sink(level, message),
  });
  return llama;
}

function buildInfo(llama) {
  const pkgPath = path.join(pkgDir, "package.json");
  const pkg = JSON.parse(fs.readFileSync(pkgPath, "utf8"));
  const info = JSON.parse(fs.readFileSync(path.join(path.dirname(pkgPath), "llama", "llama.cpp.info.json"), "utf8"));
  return {
    node_llama_cpp_version: pkg.version,
    llama_cpp_repo: info.llamaCppGithubRepo,
    llama_cpp_release: info.tag,
    llama_cpp_commit: process.env.LLAMA_CPP_COMMIT ?? null,
    backend: "CPU (prebuilt linux-x64 binary of node-llama-cpp, no GPU)",
    gpu: llama.gpu,
  };
}

// llama.cpp's log callback reaches JS asynchronously: wait until it is quiet
async function settleLogs(logs) {
  let n = -1;
  for (let i = 0; i < 100 && n !== logs.length; i++) {
    n = logs.length;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function tryLoad(llama, file, logs, extra = {}) {
  logs.length = 0;
  const m = new llama._bindings.AddonModel(file, {
    addonExports: llama._bindings,
    gpuLayers: 0,
    useMmap: true,
    checkTensors: false,
    ...extra,
  });
  let ok = false;
  try { ok = await m.init(); } catch (e) { logs.push({ level: "error", message: String(e) }); }
  await settleLogs(logs);
  return { model: m, ok };
}

// ---------------------------------------------------------------- discovery
function cachePath(spec) {
  const dir = process.env.PROBE_WORK ?? path.join(os.tmpdir(), "llamacpp_probe");
  fs.mkdirSync(dir, { recursive: true });
  return { dir, tensors: path.join(dir, `${spec.id}.tensors.json`), gguf: path.join(dir, `${spec.id}.gguf`) };
}

function parseShape(s) {
  return s.split(",").map((x) => parseInt(x.trim(), 10));
}

function trimShape(shape) {
  const s = shape.slice();
  while (s.length > 1 && s[s.length - 1] === 1) s.pop();
  return s;
}

async function discover(spec, llama, logs) {
  const cp = cachePath(spec);
  const kv = kvFor(spec);
  let tensors = [];
  if (fs.existsSync(cp.tensors)) {
    const c = JSON.parse(fs.readFileSync(cp.tensors, "utf8"));
    if (JSON.stringify(c.kv) === JSON.stringify(kv)) tensors = c.tensors;
  }
  if (!tensors.length && spec.seed_tensors_from) {
    // start from another model's discovered list (e.g. the trunk of a model whose
    // loader makes the trunk optional when blk.0 is absent, as qwen35moe does for MTP-only files)
    const seed = cachePath({ id: spec.seed_tensors_from }).tensors;
    if (fs.existsSync(seed)) tensors = JSON.parse(fs.readFileSync(seed, "utf8")).tensors;
    else throw new Error(`${spec.id}: run ${spec.seed_tensors_from} first (seed tensor list ${seed} missing)`);
  }
  const byName = new Map(tensors.map((t) => [t.name, t]));
  for (const name of expandExtras(spec)) {
    if (!byName.has(name)) { const t = { name, shape: [32] }; tensors.push(t); byName.set(name, t); }
  }
  const guess = (name) => {
    // same tensor of the previous layer with the same kind, else a dummy
    const m = name.match(/^blk\.(\d+)\.(.*)$/);
    if (m) {
      for (let i = parseInt(m[1], 10) - 1; i >= 0; i--) {
        const p = byName.get(`blk.${i}.${m[2]}`);
        if (p) return p.shape.slice();
      }
    }
    return [32];
  };
  for (let iter = 0; iter < 20000; iter++) {
    const ts = tensors.map((t) => ({ ...t, type: typeFor(spec, t.name, t.shape) }));
    writeGguf(cp.gguf, kv, ts);
    // vocab/hparams/tensors only: metadata pass (no mmap of data yet fails early)
    const { model, ok } = await tryLoad(llama, cp.gguf, logs);
    const text = logs.map((l) => l.message ?? l).join("\n");
    if (ok) {
      fs.writeFileSync(cp.tensors, JSON.stringify({ kv, tensors }, null, 0));
      return { gguf: cp.gguf, tensors: ts, iterations: iter + 1, model, loadLines: logs.map((l) => l.message).join("\n").split("\n").filter((x) => x.length) };
    }
    try { await model.dispose(); } catch { /* not loaded */ }
    let m;
    if ((m = text.match(/tensor '([^']+)' not found/))) {
      const t = { name: m[1], shape: guess(m[1]) };
      tensors.push(t); byName.set(t.name, t);
      if (process.env.PROBE_VERBOSE) process.stderr.write(`add ${t.name} [${t.shape}]\n`);
    } else if ((m = text.match(/tensor '([^']+)' has wrong shape; expected ([^,]+(?:,[^,]+)*?), got/))) {
      const t = byName.get(m[1]);
      t.shape = trimShape(parseShape(m[2]));
      if (process.env.PROBE_VERBOSE) process.stderr.write(`shape ${t.name} [${t.shape}]\n`);
    } else {
      const err = text.split("\n").filter((l) => /error|failed|not found|wrong|invalid|exception|GGML_ASSERT/i.test(l)).join("\n");
      throw new Error(`load failed for ${spec.id} and the error is not a tensor error:\n${err || text.slice(-1500)}`);
    }
  }
  throw new Error("too many iterations");
}

// ---------------------------------------------------------------- parsing
const LINE_RE = /(model buffer size|KV buffer size|RS buffer size|compute buffer size|output buffer size|llama_kv_cache: size|llama_memory_recurrent: size|llama_kv_cache_iswa|n_ctx|n_seq|n_ubatch|n_batch|flash_attn|kv_unified|swa|causal_attn|llama_context|graph nodes|graph splits|failed|error|warn)/i;

function parseLines(lines) {
  const out = { model_buffers: [], kv_buffers: [], rs_buffers: [], compute_buffers: [], output_buffers: [], kv_caches: [], rs_states: [] };
  for (const l of lines) {
    let m;
    if ((m = l.match(/^(\S+):\s+(\S+) model buffer size =\s*([\d.]+) MiB/))) out.model_buffers.push({ fn: m[1], buffer: m[2], mib: +m[3] });
    else if ((m = l.match(/^(\S+):\s+(\S+) KV buffer size =\s*([\d.]+) MiB/))) out.kv_buffers.push({ fn: m[1], buffer: m[2], mib: +m[3] });
    else if ((m = l.match(/^(\S+):\s+(\S+) RS buffer size =\s*([\d.]+) MiB/))) out.rs_buffers.push({ fn: m[1], buffer: m[2], mib: +m[3] });
    else if ((m = l.match(/^(\S+):\s+(\S+) compute buffer size =\s*([\d.]+) MiB/))) out.compute_buffers.push({ fn: m[1], buffer: m[2], mib: +m[3] });
    else if ((m = l.match(/^(\S+):\s+(\S+)\s+output buffer size =\s*([\d.]+) MiB/))) out.output_buffers.push({ fn: m[1], buffer: m[2], mib: +m[3] });
    else if ((m = l.match(/^llama_kv_cache: size =\s*([\d.]+) MiB \(\s*(\d+) cells,\s*(\d+) layers,\s*(\d+)\/(\d+) seqs\), K \((\w+)\):\s*([\d.]+) MiB, V \((\w+)\):\s*([\d.]+) MiB/)))
      out.kv_caches.push({ mib: +m[1], cells: +m[2], layers: +m[3], n_seq_max: +m[4], n_stream: +m[5], type_k: m[6], k_mib: +m[7], type_v: m[8], v_mib: +m[9] });
    else if ((m = l.match(/^llama_memory_recurrent: size =\s*([\d.]+) MiB \(\s*(\d+) cells,\s*(\d+) layers,\s*(\d+) seqs\s+(\d+) rs_seq\), R \((\w+)\):\s*([\d.]+) MiB, S \((\w+)\):\s*([\d.]+) MiB(?:, P \((\w+)\):\s*([\d.]+) MiB)?/)))
      out.rs_states.push({ mib: +m[1], cells: +m[2], layers: +m[3], n_seq: +m[4], rs_seq: +m[5], type_r: m[6], r_mib: +m[7], type_s: m[8], s_mib: +m[9], type_p: m[10] ?? null, p_mib: m[11] != null ? +m[11] : null });
  }
  const sum = (a) => Math.round(a.reduce((s, x) => s + x.mib, 0) * 100) / 100;
  out.total_mib = {
    model: sum(out.model_buffers), kv: sum(out.kv_buffers), rs: sum(out.rs_buffers),
    compute: sum(out.compute_buffers), output: sum(out.output_buffers),
  };
  return out;
}

// ---------------------------------------------------------------- runs
const GGML_TYPE_ID = { f16: 1, q8_0: 8, f32: 0, bf16: 30, q4_0: 2 };

function settingsFor(spec) {
  const ctxs = spec.contexts ?? [4096, 32768, 131072];
  const seqs = spec.sequences ?? [1, 4];
  const kvt = spec.kv_types ?? ["f16", "q8_0"];
  const fas = spec.flash_attn ?? [true, false];
  const out = [];
  for (const n_ctx of ctxs) for (const n_seq of seqs) for (const t of kvt) for (const fa of fas) {
    out.push({ n_ctx, n_seq_max: n_seq, type_k: t, type_v: t, flash_attn: fa, n_batch: 512, n_ubatch: 512, kv_unified: false, swa_full: false });
  }
  return out.filter((s) => !(spec.skip ?? []).some((k) => Object.entries(k).every(([kk, vv]) => s[kk] === vv)));
}

async function runModel(spec, outFile) {
  const logs = [];
  const sink = (level, message) => logs.push({ level, message });
  const llama = await getLlamaInstance(sink);
  const t0 = Date.now();
  const d = await discover(spec, llama, logs);
  const model = d.model;
  const loadLines = d.loadLines;
  const dataBytes = d.tensors.reduce((s, t) => s + tensorBytes(t.type, t.shape), 0n);
  const typeCounts = {};
  for (const t of d.tensors) typeCounts[t.type] = (typeCounts[t.type] ?? 0) + 1;
  const result = {
    id: spec.id, arch: spec.arch, shape_source: spec.shape_source, notes: spec.notes ?? null,
    hparams_written: Object.fromEntries(kvFor(spec).map(([k, v]) => [k, v.v])),
    tensors: { count: d.tensors.length, data_bytes: Number(dataBytes), types: typeCounts, discovery_loads: d.iterations },
    llama_cpp: buildInfo(llama),
    model_load: {
      lines: loadLines.filter((l) => /model buffer size|REPACK|print_info|llama_model_loader: - type|file size|file type/.test(l)),
      parsed: parseLines(loadLines),
    },
    runs: [],
  };
  for (const s of settingsFor(spec)) {
    logs.length = 0;
    const ctx = new llama._bindings.AddonContext(model, {
      contextSize: s.n_ctx, batchSize: s.n_batch, sequences: s.n_seq_max, flashAttention: s.flash_attn,
      kvCacheKeyType: GGML_TYPE_ID[s.type_k], kvCacheValueType: GGML_TYPE_ID[s.type_v], swaFullCache: s.swa_full, threads: 2,
    });
    let ok2 = false, err = null;
    try { ok2 = await ctx.init(); } catch (e) { err = String(e); }
    await settleLogs(logs);
    const lines = logs.map((l) => l.message).join("\n").split("\n").filter((x) => x.length);
    const keep = lines.filter((l) => !/llama_graph_n_input_tensors|: layer +\d+:|, layer +\d+:|graph_reserve: reserving/.test(l) &&
      /buffer size|llama_kv_cache|llama_memory_recurrent|llama_context:|llama_init|sched_reserve|error|failed|warn|requires/i.test(l));
    const run = { settings: s, ok: !!ok2, error: ok2 ? null : (err ?? lines.filter((l) => /error|failed|not supported|requires/i.test(l)).join("\n") ?? "init returned false"), lines: keep, parsed: parseLines(lines) };
    result.runs.push(run);
    process.stderr.write(`${spec.id} ctx=${s.n_ctx} seq=${s.n_seq_max} kv=${s.type_k} fa=${s.flash_attn}: ${ok2 ? "ok" : "FAIL"} kv=${run.parsed.total_mib.kv} rs=${run.parsed.total_mib.rs} compute=${run.parsed.total_mib.compute}\n`);
    try { if (ok2) await ctx.dispose(); } catch { /* ignore */ }
  }
  await model.dispose();
  result.elapsed_s = (Date.now() - t0) / 1000;
  fs.writeFileSync(outFile, JSON.stringify(result, null, 1));
  if (!process.env.PROBE_KEEP_GGUF) fs.rmSync(d.gguf, { force: true });
}

// ---------------------------------------------------------------- merge
const b = (mib) => (mib == null ? null : Math.round(mib * MiB));

function slimRun(r) {
  const p = r.parsed;
  const kv = p.kv_caches;
  const rs = p.rs_states[0] ?? null;
  return {
    settings: r.settings,
    ok: r.ok,
    error: r.error,
    kv_mib: p.total_mib.kv, kv_bytes_from_mib: b(p.total_mib.kv),
    kv_caches: kv,
    rs_mib: p.total_mib.rs, rs_bytes_from_mib: b(p.total_mib.rs),
    rs_state: rs,
    compute_mib: p.total_mib.compute, compute_bytes_from_mib: b(p.total_mib.compute),
    output_mib: p.total_mib.output,
    lines: r.lines.filter((l) => !/attn_rot_|reserving \.\.\.|reserve took|constructing llama_context|freq_(base|scale)|n_outputs_max/.test(l)),
  };
}

function merge(outFile, files) {
  const models = files.map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
  const llama = models[0]?.llama_cpp ?? null;
  const rows = [];
  for (const m of models) {
    for (const r of m.runs) {
      const s = r.settings;
      rows.push([m.id, m.arch, s.n_ctx, s.n_seq_max, s.type_k, s.flash_attn ? "on" : "off",
        r.ok ? r.parsed.total_mib.kv : null, r.ok ? r.parsed.total_mib.rs : null, r.ok ? r.parsed.total_mib.compute : null,
        r.ok ? null : r.error]);
    }
  }
  const out = {
    note: "MEASURED by running llama.cpp itself (the CPU build bundled in the npm package node-llama-cpp) on SYNTHETIC, SHAPE-ONLY GGUF files: the metadata of each model's real hyper-parameters and its full tensor list, with every tensor's data left as a hole of a sparse file (all zeros). These are not public logs and no real weights were involved. Buffer sizes in llama.cpp depend only on shapes, types and context settings, so KV cache, recurrent state and model buffer sizes are those llama.cpp allocates for the real model with the same hyper-parameters and weight types. Compute buffers are the CPU backend's (sched_reserve on the CPU device, ggml-cpu): a CUDA, Metal or Vulkan build reserves a different graph split and can differ; use them to check CPU-side formulas and as a lower-level sanity check for GPU ones.",
    how: "bench/llamacpp_probe/probe.mjs (see its README.md): writes the GGUF with bench/llamacpp_probe/gguf.mjs from bench/llamacpp_probe/models.json, discovers the tensor list by asking llama.cpp's loader (missing tensor / wrong shape errors), loads it with mmap, then creates one llama_context per setting through node-llama-cpp's native addon (llama_init_from_model with n_ctx, n_batch = n_ubatch = 512, n_seq_max, kv_unified = false, swa_full = false, type_k = type_v, flash_attn_type enabled/disabled, 2 threads) and records every buffer line llama.cpp prints at INFO level. Weights are Q8_0 for matrices whose row length is a multiple of 32 (F16 otherwise) and F32 for norms, biases and SSM/conv scalars; Q8_0 is not repacked by the x86 CPU backend, so no CPU_REPACK buffer is created. The MTP / next-n layers some checkpoints carry are left out (no nextn_predict_layers key), except in qwen3.5-35b-a3b-mtp, which has the MTP block in its metadata (block_count 41, nextn_predict_layers 1) as public Qwen3.5/3.6-35B-A3B GGUFs do; llama.cpp skips the MTP block's tensors unless asked to load MTP, and its KV cache and recurrent state come out identical to qwen3.5-35b-a3b's.",
    units: "*_mib: the number llama.cpp printed (MiB = 2^20 bytes, 2 decimals). *_bytes_from_mib: that number times 2^20, rounded; exact only to +-5243 bytes because of the printed rounding. n_ctx is llama_context_params.n_ctx, the TOTAL over sequences (as llama-server -c with -np): with kv_unified = false each of the n_seq_max streams gets n_ctx / n_seq_max cells (printed as n_ctx_seq). error: why llama.cpp refused the setting (quantized V without flash attention is refused by llama_init_from_model).",
    llama_cpp: llama,
    machine: { cpu: "x86-64 AMD EPYC (AVX2, AVX-512), 2 cores given", ram_gib: 24, os: "Linux" },
    date: new Date().toISOString().slice(0, 10),
    summary_columns: ["id", "arch", "n_ctx", "n_seq_max", "kv_type", "flash_attn", "kv_mib", "rs_mib", "compute_mib", "error"],
    summary: rows,
    models: models.map((m) => ({
      id: m.id, arch: m.arch, shape_source: m.shape_source, notes: m.notes,
      hparams_written: m.hparams_written,
      tensors: m.tensors,
      model_load: { lines: m.model_load.lines.filter((l) => /model buffer size|REPACK|file size|file type|- type|n_layer|n_head|n_swa|swa|n_embd_head|n_embd_k_gqa|n_embd_v_gqa|n_ff|n_expert|n_vocab|ssm_|n_rot|model type|model params|causal|pooling/.test(l)),
        model_buffers: m.model_load.parsed.model_buffers, model_mib: m.model_load.parsed.total_mib.model },
      runs: m.runs.map(slimRun),
    })),
  };
  fs.writeFileSync(outFile, JSON.stringify(out, null, 1) + "\n");
  console.log(`wrote ${outFile}: ${models.length} models, ${rows.length} runs`);
}

function loadSpec(id) {
  const specs = JSON.parse(fs.readFileSync(path.join(here, "models.json"), "utf8")).models;
  const s = specs.find((x) => x.id === id);
  if (!s) throw new Error(`unknown model id ${id}; known: ${specs.map((x) => x.id).join(", ")}`);
  return s;
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "write") {
  const spec = loadSpec(args[0]);
  const logs = [];
  const llama = await getLlamaInstance((level, message) => logs.push({ level, message }));
  const d = await discover(spec, llama, logs);
  await d.model.dispose();
  // rename, never copy: a copy would write out every hole
  fs.renameSync(d.gguf, args[1]);
  console.log(`wrote ${args[1]} (sparse): ${d.tensors.length} tensors after ${d.iterations} loads`);
} else if (cmd === "run") {
  await runModel(loadSpec(args[0]), args[1]);
} else if (cmd === "merge") {
  merge(args[0], args.slice(1));
} else {
  console.error("usage: probe.mjs write MODEL_ID OUT.gguf | run MODEL_ID OUT.json | merge OUT.json RUN.json...");
  process.exit(2);
}
process.exit(0);
