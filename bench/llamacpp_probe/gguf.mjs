// Minimal GGUF v3 writer for shape-only (sparse) model files.
//
// Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
// The tensor data section is never written: the file is extended with
// ftruncate, so every tensor is a hole that reads as zeros and costs no disk.

import fs from "node:fs";

const GGUF_TYPE = {
  u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9, u64: 10, i64: 11, f64: 12,
};

// ggml_type ids and block geometry (ggml/include/ggml.h, ggml/src/ggml.c type_traits).
export const GGML_TYPES = {
  F32: { id: 0, blck: 1, bytes: 4 },
  F16: { id: 1, blck: 1, bytes: 2 },
  Q4_0: { id: 2, blck: 32, bytes: 18 },
  Q8_0: { id: 8, blck: 32, bytes: 34 },
  Q4_K: { id: 12, blck: 256, bytes: 144 },
  Q6_K: { id: 14, blck: 256, bytes: 210 },
  BF16: { id: 30, blck: 1, bytes: 2 },
  MXFP4: { id: 39, blck: 32, bytes: 17 },
};

export function tensorBytes(type, shape) {
  const t = GGML_TYPES[type];
  if (!t) throw new Error(`unknown ggml type ${type}`);
  if (shape[0] % t.blck !== 0) throw new Error(`ne0=${shape[0]} not a multiple of ${t.blck} for ${type}`);
  let n = BigInt(shape[0] / t.blck) * BigInt(t.bytes);
  for (let i = 1; i < shape.length; i++) n *= BigInt(shape[i]);
  return n;
}

class Buf {
  constructor() { this.parts = []; this.len = 0; }
  push(b) { this.parts.push(b); this.len += b.length; }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); this.push(b); }
  i32(v) { const b = Buffer.alloc(4); b.writeInt32LE(v); this.push(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.push(b); }
  f32(v) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.push(b); }
  u8(v) { const b = Buffer.alloc(1); b.writeUInt8(v); this.push(b); }
  str(s) { const e = Buffer.from(s, "utf8"); this.u64(e.length); this.push(e); }
  concat() { return Buffer.concat(this.parts, this.len); }
}

// A metadata value is {t: "u32"|"i32"|"f32"|"bool"|"str"|"u64", v} or
// {t: "arr", et: element type, v: [...]}.
function writeValue(b, val) {
  switch (val.t) {
    case "u32": b.u32(val.v); break;
    case "i32": b.i32(val.v); break;
    case "u64": b.u64(val.v); break;
    case "f32": b.f32(val.v); break;
    case "bool": b.u8(val.v ? 1 : 0); break;
    case "str": b.str(val.v); break;
    case "arr":
      b.u32(GGUF_TYPE[val.et]);
      b.u64(val.v.length);
      for (const x of val.v) writeValue(b, { t: val.et, v: x });
      break;
    default: throw new Error(`bad metadata type ${val.t}`);
  }
}

// kv: array of [key, value]; tensors: array of {name, shape (ne0 first), type}.
// Returns {path, data_bytes, file_bytes}.
export function writeGguf(path, kv, tensors, alignment = 32) {
  const b = new Buf();
  b.push(Buffer.from("GGUF", "ascii"));
  b.u32(3);
  b.u64(tensors.length);
  b.u64(kv.length);
  for (const [k, v] of kv) {
    b.str(k);
    b.u32(GGUF_TYPE[v.t]);
    writeValue(b, v);
  }
  let off = 0n;
  const al = BigInt(alignment);
  for (const t of tensors) {
    b.str(t.name);
    b.u32(t.shape.length);
    for (const d of t.shape) b.u64(d);
    b.u32(GGML_TYPES[t.type].id);
    b.u64(off);
    off += tensorBytes(t.type, t.shape);
    off = ((off + al - 1n) / al) * al;
  }
  let head = b.concat();
  const pad = (alignment - (head.length % alignment)) % alignment;
  head = Buffer.concat([head, Buffer.alloc(pad)]);
  const total = BigInt(head.length) + off;
  const fd = fs.openSync(path, "w");
  try {
    fs.writeSync(fd, head, 0, head.length, 0);
    fs.ftruncateSync(fd, Number(total));
  } finally {
    fs.closeSync(fd);
  }
  return { path, data_bytes: off, file_bytes: total };
}
