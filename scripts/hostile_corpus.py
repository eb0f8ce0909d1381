#!/usr/bin/env python3
"""A hostile-input corpus for llmsize, run through the real binary (issue 12).

Generates several hundred inputs an attacker or a careless user would try: special files (FIFO,
devices, directory, symlink loop, dangling link, unreadable file, empty path, a path of 5,000
bytes) in every place a file is read; truncated, oversized and corrupted GGUF and safetensors
headers; deep, huge, duplicated, mistyped and out-of-range JSON in every JSON reader (config.json,
safetensors index, --catalog, plan files); control characters, invalid UTF-8, bidi overrides and
100 KB strings in every argument and flag; NaN, infinity, hex, negative and overflowing numbers in
every numeric flag; stdout on /dev/full and closed; every subcommand.

Each case asserts the contract:
  error cases  exit 2, nothing on stdout, one "llmsize: error: ..." message on stderr that names
               the input (the file path, the flag or the argument, escaped as llmsize escapes it),
               holds no control character, no C++ library text (std::, bad_alloc, basic_string)
               and stays under 4.2 KB;
  valid cases  (a mutation that is still a valid file) exit 0 or 1 with output free of control
               characters, or the error contract above;
  every case   no signal, under --max-seconds (1 s) of CPU time (user + system), under
               --max-wall-seconds (1 s) of wall time and --max-rss-mb (200 MB) of peak RSS (wait4's
               rusage), killed and failed after 10 s (a hang). On a loaded machine wall time counts
               the waits for a core: give a larger --max-wall-seconds there (ctest does).

  scripts/hostile_corpus.py BIN                 the full corpus (includes 60-100 MB files)
  scripts/hostile_corpus.py BIN --smoke         the cases without large files
  scripts/hostile_corpus.py BIN --smoke --every 4   one in four of those (ctest)
  scripts/hostile_corpus.py BIN --list          print the case names only
Options: --max-seconds S, --max-wall-seconds S, --max-rss-mb M (sanitizer builds need more),
--keep (keep the temp dir),
--only SUBSTRING (cases whose name contains it), -v (print every case).
Exit 0 when every case holds, 1 otherwise (each failure is printed with its reasons).
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.path.join(ROOT, "fuzz", "corpus")

HANG_S = 10.0
LIBRARY_TEXT = re.compile(r"std::|bad_alloc|basic_string|what\(\)|terminate called|"
                          r"nlohmann|\[json\.exception|Aborted|Segmentation")


FORMAT_CHARS = set(range(0x200B, 0x2010)) | set(range(0x2028, 0x202F)) | \
    set(range(0x2066, 0x206A)) | {0xFEFF}


def escape(s):
    """What llmsize's sanitize() makes of a string: C0 controls as \\n, \\t, \\r or \\xNN, DEL
    as \\x7f, C1 controls and invisible format characters as \\u{XXXX}, bytes that are not
    UTF-8 as \\xNN."""
    if isinstance(s, str):
        s = s.encode("utf-8", "surrogateescape")
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == 0x0A:
            out.append("\\n")
        elif c == 0x09:
            out.append("\\t")
        elif c == 0x0D:
            out.append("\\r")
        elif c < 0x20 or c == 0x7F:
            out.append("\\x%02x" % c)
        elif c < 0x80:
            out.append(chr(c))
        else:
            n = 2 if c >> 5 == 6 else 3 if c >> 4 == 14 else 4 if c >> 3 == 30 else 0
            try:
                if n == 0 or len(s) < i + n:
                    raise ValueError
                ch = s[i:i + n].decode("utf-8")
            except ValueError:
                out.append("\\x%02x" % c)
                i += 1
                continue
            cp = ord(ch)
            out.append("\\u{%04X}" % cp if 0x80 <= cp <= 0x9F or cp in FORMAT_CHARS else ch)
            i += n
            continue
        i += 1
    return "".join(out)


def needle_of(s, n=24):
    """The first characters of `s` as they must appear in a message (escaped)."""
    return escape(s)[:n]


class Case:
    def __init__(self, name, args, expect="error", needles=(), stdin=None, stdout=None,
                 big=False, cwd=None):
        self.name = name
        self.args = args            # list of str/bytes, after the binary
        self.expect = expect        # "error", "any" (valid or error) or "ok" (exit 0/1)
        self.needles = list(needles)  # alternatives: the message must contain one of them
        self.stdout = stdout        # None (a pipe), "full" (/dev/full), "closed"
        self.big = big
        self.cwd = cwd


# ---------------------------------------------------------------------------------------------
# Inputs


def tiny_config(**extra):
    c = {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
         "intermediate_size": 128, "num_attention_heads": 2, "num_key_value_heads": 2,
         "vocab_size": 100, "max_position_embeddings": 4096, "torch_dtype": "bfloat16"}
    c.update(extra)
    return c


def gguf_fields(data):
    """Offsets of the fields of a GGUF v3 header: [(name, offset, size)], for targeted
    corruption. Handles the value types of the seed files."""
    fields = [("version", 4, 4), ("n_tensors", 8, 8), ("n_kv", 16, 8)]
    n_tensors, n_kv = struct.unpack_from("<QQ", data, 8)
    p = 24
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def value(p, t, label):
        if t == 8:
            (n,) = struct.unpack_from("<Q", data, p)
            fields.append((label + ".strlen", p, 8))
            return p + 8 + n
        if t == 9:
            (et, n) = struct.unpack_from("<IQ", data, p)
            fields.append((label + ".arrtype", p, 4))
            fields.append((label + ".arrlen", p + 4, 8))
            p += 12
            for _ in range(n):
                p = value(p, et, label + "[]")
            return p
        return p + sizes[t]

    for k in range(n_kv):
        (klen,) = struct.unpack_from("<Q", data, p)
        fields.append(("kv%d.keylen" % k, p, 8))
        p += 8 + klen
        (t,) = struct.unpack_from("<I", data, p)
        fields.append(("kv%d.type" % k, p, 4))
        p = value(p + 4, t, "kv%d" % k)
    for t in range(n_tensors):
        (nlen,) = struct.unpack_from("<Q", data, p)
        fields.append(("t%d.namelen" % t, p, 8))
        p += 8 + nlen
        (nd,) = struct.unpack_from("<I", data, p)
        fields.append(("t%d.n_dims" % t, p, 4))
        p += 4
        for d in range(nd):
            fields.append(("t%d.dim%d" % (t, d), p, 8))
            p += 8
        fields.append(("t%d.type" % t, p, 4))
        fields.append(("t%d.offset" % t, p + 4, 8))
        p += 12
    return fields, p


def put(data, off, size, value):
    b = bytearray(data)
    b[off:off + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    return bytes(b)


def safetensors(header, payload=b"", raw=False):
    h = header if raw else json.dumps(header).encode()
    if isinstance(h, str):
        h = h.encode("utf-8", "surrogateescape")
    return struct.pack("<Q", len(h)) + h + payload


# ---------------------------------------------------------------------------------------------
# The corpus


def build(tmp):
    cases = []
    P = lambda *a: os.path.join(tmp, *a)  # noqa: E731

    def add(*a, **k):
        cases.append(Case(*a, **k))

    def write(name, data):
        path = P(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape"))
        return path

    def sparse(name, head, size):
        path = write(name, head)
        os.truncate(path, size)
        return path

    plan_ok = json.dumps({"plans": [{"model": "llama-3.1-8b", "gpu": "rtx-4090"}]})
    gpu_ok = {"id": "g-ok", "name": "G", "vendor": "v", "memory_gib": 24,
              "bandwidth_gb_per_s": 1000}

    # --- special files, in every place a file is read -----------------------------------------
    os.mkfifo(P("fifo.gguf"))
    os.mkfifo(P("fifo.json"))
    os.mkfifo(P("fifo.safetensors"))
    os.makedirs(P("fifodir"))
    os.mkfifo(P("fifodir", "config.json"))
    os.makedirs(P("dir.gguf"))
    os.makedirs(P("emptydir"))
    os.symlink(P("loop2.json"), P("loop1.json"))
    os.symlink(P("loop1.json"), P("loop2.json"))
    os.symlink(P("nowhere.json"), P("dangling.json"))
    os.symlink("/dev/zero", P("zero.gguf"))
    os.symlink("/dev/zero", P("zero.json"))
    unreadable = write("unreadable.json", plan_ok)
    os.chmod(unreadable, 0)
    long_path = P("x" * 250, *(["y" * 250] * 20)) + ".json"  # > PATH_MAX
    ctrl_path = write("evil\x1b[2J\x07name.json", "{")
    nl_path = write("new\nline.json", "{")
    utf8_bad = P("bad\udcff.json")  # the byte 0xff in a file name
    with open(utf8_bad.encode("utf-8", "surrogateescape"), "wb") as f:
        f.write(b"{")

    specials = [
        ("fifo", P("fifo.json")), ("fifo-gguf", P("fifo.gguf")),
        ("fifo-safetensors", P("fifo.safetensors")), ("dev-zero", "/dev/zero"),
        ("dev-urandom", "/dev/urandom"), ("dev-null", "/dev/null"),
        ("dev-zero-link", P("zero.json")), ("dev-zero-link-gguf", P("zero.gguf")),
        ("directory", P("emptydir")), ("directory-gguf", P("dir.gguf")),
        ("symlink-loop", P("loop1.json")), ("dangling-symlink", P("dangling.json")),
        ("missing", P("missing.json")), ("long-path", long_path),
        ("control-chars-path", ctrl_path), ("newline-path", nl_path),
        ("invalid-utf8-path", utf8_bad), ("proc-self-mem", "/proc/self/mem"),
        ("dev-stdin", "/dev/stdin"),
    ]
    if os.geteuid() != 0:  # root reads a mode-000 file
        specials.append(("unreadable", unreadable))
    places = [
        ("model", lambda p: [p]),
        ("model-json-format", lambda p: [p, "-f", "json"]),
        ("inspect", lambda p: ["inspect", p]),
        ("check", lambda p: ["check", p]),
        ("check-json", lambda p: ["check", p, "-f", "json"]),
        ("catalog", lambda p: ["llama-3.1-8b", "--catalog", p]),
        ("models-catalog", lambda p: ["models", "--catalog", p]),
        ("gpus-catalog", lambda p: ["gpus", "--catalog", p]),
        ("quants-catalog", lambda p: ["quants", "--catalog", p]),
        ("fit-catalog", lambda p: ["fit", "-g", "rtx-4090", "--catalog", p]),
        ("check-catalog", lambda p: ["check", write("plan-ok.json", plan_ok), "--catalog", p]),
        ("sweep-models", lambda p: ["sweep", "--models", p, "-g", "rtx-4090"]),
        ("sweep-catalog", lambda p: ["sweep", "--models", "8b", "-g", "rtx-4090", "--catalog", p]),
    ]
    for sname, path in specials:
        for pname, argv in places:
            if sname == "dev-stdin" and pname not in ("model", "check", "catalog"):
                continue
            add("special/%s/%s" % (sname, pname), argv(path), needles=[needle_of(path, 40)])
    # Output files that cannot be written.
    for sname, path in [("directory", P("emptydir")), ("dev-full", "/dev/full"),
                        ("missing-dir", P("no", "such", "dir", "x.svg")),
                        ("fifo", P("fifo.json")), ("long-path", long_path)]:
        add("output/plot/%s" % sname, ["llama-3.1-8b", "-g", "rtx-4090", "--plot", path],
            needles=["--plot"])
        add("output/junit/%s" % sname, ["check", write("plan-ok.json", plan_ok), "--junit", path],
            needles=["--junit"])
        add("output/sweep-plot/%s" % sname,
            ["sweep", "--models", "8b", "-g", "rtx-4090", "--plot", path], needles=["--plot"])
    # A model directory without what it needs.
    d = P("shards")
    os.makedirs(d)
    shutil.copy(os.path.join(CORPUS, "gguf", "llama_dense.gguf"), os.path.join(d, "a.gguf"))
    shutil.copy(os.path.join(CORPUS, "gguf", "gemma3_swa.gguf"), os.path.join(d, "b.gguf"))
    add("special/dir-of-unrelated-ggufs", [d], expect="any", needles=[needle_of(d, 40)])
    add("special/fifodir-config", [P("fifodir")], needles=[needle_of(P("fifodir"), 40)])
    add("special/emptydir-model", [P("emptydir")], needles=[needle_of(P("emptydir"), 40)])

    # --- stdout that cannot be written ----------------------------------------------------------
    cfg_ok = write("ok/config.json", json.dumps(tiny_config()))
    for label, argv in [
        ("estimate", ["llama-3.1-8b"]), ("estimate-json", ["llama-3.1-8b", "-f", "json"]),
        ("csv", ["llama-3.1-8b", "-f", "csv"]), ("markdown", ["llama-3.1-8b", "-f", "markdown"]),
        ("explain", ["llama-3.1-8b", "--explain"]), ("models", ["models"]), ("gpus", ["gpus"]),
        ("quants", ["quants"]), ("fit", ["fit", "-g", "rtx-4090"]),
        ("sweep", ["sweep", "--models", "8b,70b", "-g", "rtx-4090"]),
        ("check", ["check", write("plan-ok.json", plan_ok)]),
        ("check-json", ["check", write("plan-ok.json", plan_ok), "-f", "json"]),
        ("inspect", ["inspect", os.path.join(CORPUS, "gguf", "llama_dense.gguf")]),
        ("config", [cfg_ok]), ("recommend", ["llama-3.1-70b"]),
        ("vllm", ["llama-3.1-8b", "-e", "vllm", "-g", "h100-sxm"]),
        ("html", ["llama-3.1-8b", "-g", "rtx-4090", "-f", "html"]),
        ("bom-csv", ["llama-3.1-8b", "-g", "rtx-4090", "-f", "bom-csv"]),
    ]:
        add("stdout/dev-full/" + label, argv, stdout="full", needles=["standard output", "stdout"])
        add("stdout/closed/" + label, argv, stdout="closed", needles=["standard output", "stdout"])

    # --- GGUF headers ---------------------------------------------------------------------------
    for seed in sorted(os.listdir(os.path.join(CORPUS, "gguf"))):
        with open(os.path.join(CORPUS, "gguf", seed), "rb") as f:
            data = f.read()
        base = seed.rsplit(".", 1)[0]
        # Truncated at a spread of offsets: always an error with the offset.
        cuts = sorted({0, 1, 3, 4, 7, 8, 15, 16, 23, 24, 25, 31, 40, 64, 100, 200,
                       len(data) // 3, len(data) // 2, len(data) - 1} & set(range(len(data))))
        try:
            fields, end = gguf_fields(data)
        except Exception:  # a seed of an older version or a regression input: cut it only
            fields, end = [], len(data)
        cuts = [c for c in cuts if c < end]
        for c in cuts:
            path = write("gguf/%s-cut%d.gguf" % (base, c), data[:c])
            add("gguf/truncated/%s@%d" % (base, c), [path], needles=[needle_of(path, 40)])
            add("gguf/truncated-inspect/%s@%d" % (base, c), ["inspect", path],
                needles=[needle_of(path, 40)])
        # Every length, count, type, dimension and offset field set to extreme values.
        if base == "llama_dense" or base == "qwen3moe_arrays":
            extremes = [0, 1, 2**31, 2**32 - 1, 2**63, 2**64 - 1, len(data) + 1, 0xDEADBEEF]
            for fname, off, size in fields:
                for v in extremes:
                    if size == 4 and v >= 2**32:
                        continue
                    mutated = put(data, off, size, v)
                    if mutated == data:
                        continue
                    path = write("gguf/%s-%s-%x.gguf" % (base, fname, v), mutated)
                    add("gguf/field/%s/%s=%#x" % (base, fname, v), [path], expect="any",
                        needles=[needle_of(path, 40)])
    path = write("gguf/magic.gguf", b"GGUG" + b"\0" * 60)
    add("gguf/bad-magic", [path], needles=[needle_of(path, 40)])
    path = write("gguf/empty.gguf", b"")
    add("gguf/empty", [path], needles=[needle_of(path, 40)])
    for v in (0, 1, 2, 4, 0xFFFFFFFF):
        path = write("gguf/version%d.gguf" % v, b"GGUF" + struct.pack("<IQQ", v, 0, 0))
        add("gguf/version/%d" % v, [path], expect="any" if v == 2 else "error",
            needles=[needle_of(path, 40)])
    # Counts that claim terabytes of entries in a tiny file, and key lengths past the end.
    for nt, nk in [(2**63, 0), (0, 2**63), (2**40, 2**40), (2**64 - 1, 2**64 - 1)]:
        path = write("gguf/counts-%x-%x.gguf" % (nt, nk), b"GGUF" + struct.pack("<IQQ", 3, nt, nk))
        add("gguf/counts/%#x-%#x" % (nt, nk), [path], needles=[needle_of(path, 40)])
    # A 1 GiB sparse file of zeros after a valid-looking header (no data read past the header).
    path = sparse("gguf/sparse.gguf", b"GGUF" + struct.pack("<IQQ", 3, 0, 1), 1 << 30)
    add("gguf/sparse-1gib", [path], needles=[needle_of(path, 40)])
    # A key of 64 MB of 'a' (string length within the file).
    path = write("gguf/longkey.gguf", b"GGUF" + struct.pack("<IQQQ", 3, 0, 1, 64 << 20) +
                 b"a" * (64 << 20) + struct.pack("<I", 4) + b"\0" * 4)
    add("gguf/key-64mb", [path], expect="any", needles=[needle_of(path, 40)], big=True)
    # Control characters in general.name / general.architecture reach output escaped.
    def kv_string(k, v):
        kb, vb = k.encode(), v.encode("utf-8", "surrogateescape")
        return struct.pack("<Q", len(kb)) + kb + struct.pack("<IQ", 8, len(vb)) + vb
    for label, v in [("esc", "\x1b[2J\x1b]0;pwned\x07"), ("bidi", "abc\u202edcba"),
                     ("huge", "n" * 200000), ("nul", "a\0b"), ("badutf8", "\udcff\udcfe")]:
        for key in ("general.name", "general.architecture"):
            path = write("gguf/%s-%s.gguf" % (key, label),
                         b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + kv_string(key, v))
            add("gguf/strings/%s/%s" % (key, label), ["inspect", path], expect="any",
                needles=[needle_of(path, 40)])
            add("gguf/strings-estimate/%s/%s" % (key, label), [path], expect="any",
                needles=[needle_of(path, 40)])

    # --- safetensors headers --------------------------------------------------------------------
    t = {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}
    st_cases = {
        "empty": b"",
        "short-len": b"\x10\x00\x00",
        "len-zero": struct.pack("<Q", 0),
        "len-past-end": struct.pack("<Q", 1000) + b"{}",
        "len-2^63": struct.pack("<Q", 2**63) + b"{}",
        "len-2^64-1": struct.pack("<Q", 2**64 - 1) + b"{}",
        "not-json": safetensors(b"hello world", raw=True),
        "array": safetensors([1, 2, 3]),
        "string": safetensors("x"),
        "no-tensors": safetensors({}),
        "dtype-unknown": safetensors({"a": dict(t, dtype="F99")}, b"\0" * 8),
        "dtype-number": safetensors({"a": dict(t, dtype=7)}, b"\0" * 8),
        "shape-negative": safetensors({"a": dict(t, shape=[-2, 2])}, b"\0" * 8),
        "shape-float": safetensors({"a": dict(t, shape=[2.5, 2])}, b"\0" * 8),
        "shape-overflow": safetensors({"a": dict(t, shape=[2**32, 2**32, 2**32])}, b"\0" * 8),
        "shape-2^64": safetensors({"a": dict(t, shape=[2**64])}, b"\0" * 8),
        "shape-deep": safetensors(b'{"a": {"dtype": "F16", "shape": ' + b"[" * 100000 +
                                  b"]" * 100000 + b', "data_offsets": [0, 8]}}', b"\0" * 8, raw=True),
        "offsets-reversed": safetensors({"a": dict(t, data_offsets=[8, 0])}, b"\0" * 8),
        "offsets-past-end": safetensors({"a": dict(t, data_offsets=[0, 2**40])}, b"\0" * 8),
        "offsets-mismatch": safetensors({"a": dict(t, data_offsets=[0, 6])}, b"\0" * 8),
        "offsets-three": safetensors({"a": dict(t, data_offsets=[0, 4, 8])}, b"\0" * 8),
        "offsets-string": safetensors({"a": dict(t, data_offsets="0,8")}, b"\0" * 8),
        "duplicate-tensor": safetensors(b'{"a": ' + json.dumps(t).encode() + b', "a": ' +
                                        json.dumps(t).encode() + b"}", b"\0" * 8, raw=True),
        "metadata-number": safetensors({"__metadata__": {"k": 1}, "a": t}, b"\0" * 8),
        "metadata-deep": safetensors(b'{"__metadata__": {"k": ' + b"[" * 50000 + b"]" * 50000 +
                                     b'}, "a": ' + json.dumps(t).encode() + b"}", b"\0" * 8,
                                     raw=True),
        "tensor-name-esc": safetensors({"\x1b[2J\x07": t}, b"\0" * 8),
        "tensor-name-huge": safetensors({"n" * 300000: t}, b"\0" * 8),
        "nul-in-header": safetensors(b'{"a\x00": ' + json.dumps(t).encode() + b"}", b"\0" * 8,
                                     raw=True),
        "bad-utf8": safetensors(b'{"\xff\xfe": ' + json.dumps(t).encode() + b"}", b"\0" * 8,
                                raw=True),
        "trailing-garbage": safetensors(json.dumps({"a": t}).encode() + b"}}}", b"\0" * 8, raw=True),
        "number-1e400": safetensors(b'{"a": {"dtype": "F16", "shape": [1e400], '
                                    b'"data_offsets": [0, 8]}}', b"\0" * 8, raw=True),
        "many-tensors": safetensors({"t%d" % i: dict(t, data_offsets=[0, 8]) for i in range(50000)},
                                    b"\0" * 8),
    }
    for label, data in st_cases.items():
        path = write("st/%s.safetensors" % label, data)
        exp = "any" if label in ("tensor-name-esc", "tensor-name-huge", "many-tensors", "no-tensors",
                                 "metadata-number", "offsets-mismatch") else "error"
        add("safetensors/%s" % label, [path], expect=exp, needles=[needle_of(path, 40)])
        add("safetensors-inspect/%s" % label, ["inspect", path], expect=exp,
            needles=[needle_of(path, 40)])
    with open(os.path.join(CORPUS, "safetensors", "mixed.safetensors"), "rb") as f:
        mixed = f.read()
    for c in (1, 7, 8, 9, 50, 100, len(mixed) - 1):
        path = write("st/mixed-cut%d.safetensors" % c, mixed[:c])
        add("safetensors/truncated@%d" % c, [path], needles=[needle_of(path, 40)])
    # Big headers: 66 MB of whitespace around one tensor (valid), 99 MB, and a 1 GiB claim.
    big_ws = b'{"a": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}' + \
        b" " * 66_000_000 + b"}"
    path = write("st/ws66.safetensors", safetensors(big_ws, b"\0" * 8, raw=True))
    add("safetensors/whitespace-66mb", ["inspect", path, "-f", "json"], expect="ok", big=True)
    path = write("st/ws99.safetensors",
                 safetensors(big_ws + b" " * 33_000_000, b"\0" * 8, raw=True))
    add("safetensors/whitespace-99mb", ["inspect", path], expect="any",
        needles=[needle_of(path, 40)], big=True)
    path = sparse("st/claim1g.safetensors", struct.pack("<Q", 1 << 30) + b"{", (1 << 30) + 8)
    add("safetensors/header-1gib-sparse", [path], needles=[needle_of(path, 40)])
    # Headers of the format's full 100,000,000 bytes, valid: one string filling it (a metadata
    # value, a tensor's extra field, a field name), a number of 99 MB of digits, 65,000 metadata
    # entries of 1.5 KB, 131,072 tensors (the most one file may hold) padded to 95 MB. nlohmann
    # held a string three times over (3.4 s of CPU and 490 MB). One byte more is refused by the
    # length alone.
    limit = 100_000_000
    t_ = b'"a": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]'
    def fill(head, tail, ch=b"x"):
        return head + ch * (limit - len(head) - len(tail)) + tail
    full = {
        "meta-string-100mb": fill(b'{"__metadata__": {"k": "', b'"}, ' + t_ + b"}}"),
        "field-string-100mb": fill(b"{" + t_ + b', "x": "', b'"}}'),
        "field-name-100mb": fill(b"{" + t_ + b', "', b'": 1}}'),
        "number-100mb": fill(b"{" + t_ + b', "x": 1.', b"}}", b"0"),
        "meta-65000-entries": b'{"__metadata__": {' + b",".join(
            b'"k%d": "%s"' % (i, b"v" * 1480) for i in range(65000)) + b"}, " + t_ + b"}}",
    }
    for label, h in full.items():
        path = write("st/%s.safetensors" % label, safetensors(h, b"\0" * 8, raw=True))
        add("safetensors/%s" % label, ["inspect", path, "-f", "json"], expect="ok", big=True)
    n_t = 131072
    pad = b"y" * 640
    h = b"{" + b",".join(b'"t%d": {"dtype": "U8", "shape": [1], "data_offsets": [%d, %d], '
                         b'"x": "%s"}' % (i, i, i + 1, pad) for i in range(n_t)) + b"}"
    path = write("st/tensors-131072.safetensors", safetensors(h, b"\0" * n_t, raw=True))
    add("safetensors/tensors-131072-95mb", ["inspect", path, "-f", "json"], expect="ok", big=True)
    path = sparse("st/over-limit.safetensors", struct.pack("<Q", limit + 1) + b"{", limit + 9)
    add("safetensors/header-100000001", [path], needles=[needle_of(path, 40)])
    # The index: weight maps that point outside, at devices, at itself; deep and huge.
    os.makedirs(P("idx"))
    idx_cases = {
        "deep": '{"weight_map": ' + "[" * 100000 + "]" * 100000 + "}",
        "not-object": "[1, 2]",
        "map-array": '{"weight_map": []}',
        "map-number": '{"weight_map": {"a": 1}}',
        "escape-dir": '{"weight_map": {"a": "../../../../etc/passwd"}}',
        "absolute": '{"weight_map": {"a": "/etc/passwd"}}',
        "dev-zero": '{"weight_map": {"a": "/dev/zero"}}',
        "itself": '{"weight_map": {"a": "model.safetensors.index.json"}}',
        "fifo": '{"weight_map": {"a": "%s"}}' % P("fifo.safetensors"),
        "empty-name": '{"weight_map": {"a": ""}}',
        "ctrl-name": '{"weight_map": {"a": "x\\u001b[2J.safetensors"}}',
        "duplicate-key": '{"weight_map": {"a": "x.safetensors"}, "weight_map": {}}',
        "empty-map": '{"weight_map": {}}',
        "1e400": '{"metadata": {"total_size": 1e400}, "weight_map": {"a": "x.safetensors"}}',
        "truncated": '{"weight_map": {"a": "x.safe',
        "nul": '{"weight_map": {"a": "x\\u0000y.safetensors"}}',
    }
    for label, text in idx_cases.items():
        d = P("idx", label)
        os.makedirs(d)
        path = write("idx/%s/model.safetensors.index.json" % label, text)
        add("index/%s" % label, [path], needles=[needle_of(d, 40)])
        add("index-dir/%s" % label, [d], needles=[needle_of(d, 40)])

    # --- config.json ----------------------------------------------------------------------------
    cfg = {
        "deep-array": '{"model_type": "llama", "x": ' + "[" * 100000 + "]" * 100000 + "}",
        "deep-object": '{"model_type": "llama", "x": ' + '{"a":' * 100000 + "1" + "}" * 100000 + "}",
        "deep-field": '{"model_type": "llama", "num_hidden_layers": ' + "[" * 100000 +
                      "]" * 100000 + "}",
        "deep-65": '{"a": ' + "[" * 65 + "]" * 65 + "}",
        "not-object": "[1]",
        "string": '"llama"',
        "empty": "",
        "whitespace": "   \n\t ",
        "bom": "\ufeff" + json.dumps(tiny_config()),
        "utf16": json.dumps(tiny_config()).encode("utf-16"),
        "bad-utf8": b'{"model_type": "ll\xff\xfeama"}',
        "nul": '{"model_type": "llama\u0000"}',
        "nan": json.dumps(tiny_config()).replace('"hidden_size": 64', '"hidden_size": NaN'),
        "infinity": json.dumps(tiny_config()).replace('"hidden_size": 64',
                                                      '"hidden_size": Infinity'),
        "1e400": json.dumps(tiny_config()).replace('"hidden_size": 64', '"hidden_size": 1e400'),
        "2^64": json.dumps(tiny_config()).replace('"hidden_size": 64',
                                                  '"hidden_size": 18446744073709551616'),
        "trailing": json.dumps(tiny_config()) + "}",
        "truncated": json.dumps(tiny_config())[:-10],
        "comment": "// hi\n" + json.dumps(tiny_config()),
        "duplicate-key": json.dumps(tiny_config())[:-1] + ', "hidden_size": 128}',
        "model-type-esc": json.dumps(tiny_config(model_type="\x1b[2J\x07llama")),
        "model-type-huge": json.dumps(tiny_config(model_type="l" * 300000)),
        "model-type-number": json.dumps(tiny_config(model_type=7)),
        "model-type-missing": json.dumps({k: v for k, v in tiny_config().items()
                                          if k != "model_type"}),
        "name-or-path-esc": json.dumps(tiny_config(_name_or_path="\x1b]0;pwn\x07\u202e")),
        "huge-array": '{"model_type": "llama", "x": [' + ",".join(["{}"] * 600000) + "]}",
        "huge-string-value": json.dumps(tiny_config(x="s" * 3_000_000)),
        "many-keys": json.dumps(dict(tiny_config(), **{"k%d" % i: i for i in range(100000)})),
        "over-cap": json.dumps(tiny_config(x="s" * 5_000_000)),
    }
    numeric = ["num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads",
               "num_key_value_heads", "vocab_size", "max_position_embeddings", "head_dim",
               "sliding_window", "num_local_experts", "num_experts", "num_experts_per_tok",
               "n_routed_experts", "n_shared_experts", "moe_intermediate_size", "kv_lora_rank",
               "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
               "rope_theta", "tie_word_embeddings", "rms_norm_eps"]
    bad_values = {"neg": -1, "zero": 0, "2^31": 2**31, "2^32": 2**32, "2^63": 2**63,
                  "2^64-1": 2**64 - 1, "float": 2.5, "string": "64", "null": None,
                  "array": [64], "object": {"v": 64}, "true": True, "tiny": 1e-300}
    for key in numeric:
        for label, v in bad_values.items():
            cfg["field/%s=%s" % (key, label)] = json.dumps(tiny_config(**{key: v}))
    cfg["mixtral-wrap"] = json.dumps(tiny_config(
        model_type="mixtral", num_local_experts=1 << 20, num_experts_per_tok=2,
        hidden_size=1 << 16, intermediate_size=1 << 20, num_hidden_layers=1 << 16))
    cfg["shared-experts-2^21"] = json.dumps(tiny_config(
        model_type="deepseek_v3", n_shared_experts=2097152, n_routed_experts=8,
        num_experts_per_tok=2, moe_intermediate_size=64))
    cfg["layers-2^22"] = json.dumps(tiny_config(num_hidden_layers=4194304))
    cfg["layers-2^24"] = json.dumps(tiny_config(num_hidden_layers=1 << 24))
    cfg["layer-types-huge"] = json.dumps(tiny_config(layer_types=["full_attention"] * 500000))
    # Counts and values that change the architecture rather than size it.
    q35 = tiny_config(model_type="qwen3_5_text", num_hidden_layers=4, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=16, linear_conv_kernel_dim=4,
                      linear_key_head_dim=16, linear_num_key_heads=2, linear_num_value_heads=4,
                      linear_value_head_dim=16, mtp_num_hidden_layers=1)
    dsv3 = tiny_config(model_type="deepseek_v3", n_routed_experts=8, num_experts_per_tok=2,
                       moe_intermediate_size=64, kv_lora_rank=16, qk_rope_head_dim=8,
                       qk_nope_head_dim=8, v_head_dim=8, num_nextn_predict_layers=1)
    l4 = tiny_config(model_type="llama4_text", num_local_experts=4, num_experts_per_tok=1,
                     attention_chunk_size=8192)
    q3m = tiny_config(model_type="qwen3_moe", num_experts=8, num_experts_per_tok=2,
                      moe_intermediate_size=64)
    for label, c in [
            ("mtp-layers-1e6", dict(q35, mtp_num_hidden_layers=1000000)),
            ("nextn-layers-1e6", dict(dsv3, num_nextn_predict_layers=1000000)),
            ("linear-value-heads-ungrouped", dict(q35, linear_num_value_heads=3)),
            ("linear-key-heads-0", dict(q35, linear_num_key_heads=0)),
            ("layer-types-empty", dict(q35, layer_types=[])),
            ("layer-types-5000", dict(q35, layer_types=["full_attention"] * 5000)),
            ("kv-lora-rank-0", dict(dsv3, kv_lora_rank=0)),
            ("routed-experts-0", dict(dsv3, n_routed_experts=0)),
            ("experts-0-moe", dict(q3m, num_experts=0)),
            ("experts-1-moe", dict(q3m, num_experts=1)),
            ("experts-5000", dict(q3m, num_experts=5000)),
            ("experts-per-token-over", dict(q3m, num_experts_per_tok=9)),
            ("mixtral-experts-0", tiny_config(model_type="mixtral", num_local_experts=0,
                                              num_experts_per_tok=2)),
            ("chunk-size-0", dict(l4, attention_chunk_size=0))]:
        cfg[label] = json.dumps(c)
    cfg["text-config-deep"] = '{"model_type": "llava", "text_config": ' + '{"text_config": ' * 5000 \
        + "{}" + "}" * 5000 + "}"
    cfg["quant-config-bad"] = json.dumps(tiny_config(quantization_config={"quant_method": 7}))
    cfg["quant-config-deep"] = json.dumps(tiny_config()).rstrip("}") + \
        ', "quantization_config": ' + "[" * 80000 + "]" * 80000 + "}"
    for label, text in cfg.items():
        d = P("cfg", label.replace("/", "_"))
        os.makedirs(d)
        path = os.path.join(d, "config.json")
        with open(path, "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))
        # An unrecognised quantization_config is ignored by design (the weights follow --quant).
        valid = label in ("bom", "deep-65", "quant-config-bad", "name-or-path-esc", "many-keys", "huge-string-value",
                          "layers-2^22", "layer-types-huge") or label.startswith("field/")
        exp = "any" if valid else "error"
        add("config/%s" % label, [path], expect=exp, needles=[needle_of(path, 40)])
        if label.startswith("field/") and not label.endswith(("=neg", "=string")):
            continue
        add("config-dir/%s" % label, [d, "-f", "json"], expect=exp, needles=[needle_of(d, 40)])
        add("config-sweep/%s" % label, ["sweep", "--models", path, "-g", "rtx-4090"],
            expect=exp, needles=[needle_of(path, 40)])

    # --- --catalog files ------------------------------------------------------------------------
    platform_ok = {"id": "p-ok", "name": "P", "vendor": "v", "class": "server",
                   "gpu": {"mount": "sxm", "counts": [8]},
                   "cpu": {"sockets": 2, "model": "Intel Xeon Platinum 8480C"},
                   "psu": {"bays": 6, "watts": 3300, "redundancy": "4+2"},
                   "sources": {"all": "datasheet"}}

    def gpu(**kw):
        g = dict(gpu_ok)
        g.update(kw)
        return g
    cat = {
        "deep": '{"gpus": ' + "[" * 100000 + "]" * 100000 + "}",
        "deep-entry": '{"gpus": [' + '{"a":' * 90000 + "1" + "}" * 90000 + "]}",
        "deep-field": '{"gpus": [{"id": "g", "name": ' + "[" * 90000 + "]" * 90000 + "}]}",
        "empty": "",
        "array": "[]",
        "no-lists": "{}",
        "unknown-top": '{"gpus": [], "extra": 1}',
        "gpus-object": '{"gpus": {}}',
        "duplicate-key": '{"gpus": [], "gpus": []}',
        "duplicate-id": json.dumps({"gpus": [gpu(), gpu()]}),
        "id-esc": json.dumps({"gpus": [gpu(id="a\x1bb")]}),
        "id-huge": json.dumps({"gpus": [gpu(id="g" * 200000)]}),
        "id-empty": json.dumps({"gpus": [gpu(id="")]}),
        "id-upper": json.dumps({"gpus": [gpu(id="RTX")]}),
        "name-esc": json.dumps({"gpus": [gpu(name="\x1b[2J\x07")]}),
        "name-bidi": json.dumps({"gpus": [gpu(name="\u202egpu")]}),
        "name-huge": json.dumps({"gpus": [gpu(name="n" * 300000)]}),
        "alias-collides": json.dumps({"gpus": [gpu(aliases=["4090"])]}),
        "aliases-huge": json.dumps({"gpus": [gpu(aliases=["a%d" % i for i in range(100000)])]}),
        "bandwidth-zero": json.dumps({"gpus": [gpu(bandwidth_gb_per_s=0)]}),
        "bandwidth-neg": json.dumps({"gpus": [gpu(bandwidth_gb_per_s=-5)]}),
        "bandwidth-1e400": json.dumps({"gpus": [gpu()]}).replace("1000", "1e400"),
        "bandwidth-nan": json.dumps({"gpus": [gpu()]}).replace("1000", "NaN"),
        "memory-zero": json.dumps({"gpus": [gpu(memory_gib=0)]}),
        "memory-huge": json.dumps({"gpus": [gpu(memory_gib=2**60)]}),
        "memory-2^64": json.dumps({"gpus": [gpu(memory_gib=2**64 - 1)]}),
        "memory-string": json.dumps({"gpus": [gpu(memory_gib="24")]}),
        "tflops-zero": json.dumps({"gpus": [gpu(fp16_tflops_dense=0)]}),
        "power-neg": json.dumps({"gpus": [gpu(board_power_w=-1)]}),
        "price-neg": json.dumps({"gpus": [gpu(price_usd=-1)]}),
        "class-bad": json.dumps({"gpus": [gpu(**{"class": "quantum"})]}),
        "soc-no-unified": json.dumps({"gpus": [gpu(**{"class": "soc"})]}),
        "interconnect-bad": json.dumps({"gpus": [gpu(interconnect={"kind": 7})]}),
        "too-many": '{"gpus": [' + ",".join('{"id":"g%d","name":"G","vendor":"v","memory_gib":1}'
                                            % i for i in range(65537)) + "]}",
        "model-no-config": json.dumps({"models": [{"id": "m", "name": "M"}]}),
        "model-config-deep": '{"models": [{"id": "m", "name": "M", "config": ' + "[" * 90000 +
                             "]" * 90000 + "}]}",
        "model-config-bad": json.dumps({"models": [{"id": "m", "name": "M",
                                                    "config": tiny_config(hidden_size=-1)}]}),
        "model-layers-huge": json.dumps({"models": [{"id": "m", "name": "M", "config":
                                                     tiny_config(num_hidden_layers=1 << 30)}]}),
        "model-id-esc": json.dumps({"models": [{"id": "m\x1b", "name": "M",
                                                "config": tiny_config()}]}),
        "model-shorthand-bad": json.dumps({"models": [{"id": "m", "name": "M", "shorthand": [7],
                                                       "config": tiny_config()}]}),
        "over-cap": "{" + " " * (65 << 20) + "}",
        "nul": '{"gpus": []}\0',
        "trailing": '{"gpus": []} x',
        # "platforms" entries, read as data/platforms.json's rows.
        "platforms-object": '{"platforms": {}}',
        "platform-class-bad": json.dumps({"platforms": [dict(platform_ok, **{"class": "x"})]}),
        "platform-id-upper": json.dumps({"platforms": [dict(platform_ok, id="My Box")]}),
        "platform-counts-6": json.dumps({"platforms": [dict(platform_ok, gpu={
            "mount": "sxm", "counts": [6]})]}),
        "platform-name-esc": json.dumps({"gpus": [gpu_ok], "platforms": [
            dict(platform_ok, name="\x1b[2J\u202e")]}),
        "platform-duplicate-id": json.dumps({"platforms": [platform_ok, platform_ok]}),
        "platform-too-many": '{"platforms": [' + ",".join(
            json.dumps(dict(platform_ok, id="p%d" % i)) for i in range(4097)) + "]}",
    }
    for label, text in cat.items():
        path = write("cat/%s.json" % label, text)
        big = label in ("over-cap",)
        exp = "any" if label in ("name-esc", "name-bidi", "name-huge", "aliases-huge",
                                 "memory-huge", "price-neg", "alias-collides",
                                 "platform-name-esc") else "error"
        add("catalog/%s" % label, ["llama-3.1-8b", "-g", "g-ok", "--catalog", path], expect=exp,
            needles=[needle_of(path, 40)], big=big)
        add("catalog-gpus/%s" % label, ["gpus", "--catalog", path], expect=exp,
            needles=[needle_of(path, 40)], big=big)
        if label in ("deep", "duplicate-id", "bandwidth-zero", "name-esc", "model-config-deep",
                     "id-huge", "too-many"):
            for sub, argv in [("models", ["models", "-f", "csv"]), ("fit", ["fit", "-g", "g-ok"]),
                              ("check", ["check", write("plan-g.json", json.dumps(
                                  {"plans": [{"model": "8b", "gpu": "g-ok"}]}))]),
                              ("sweep", ["sweep", "--models", "8b", "-g", "g-ok"])]:
                add("catalog-%s/%s" % (sub, label), argv + ["--catalog", path], expect=exp,
                    needles=[needle_of(path, 40)])

    # --- plan files -----------------------------------------------------------------------------
    def plan(**kw):
        p = {"model": "llama-3.1-8b", "gpu": "rtx-4090"}
        p.update(kw)
        return json.dumps({"plans": [p]})
    plans = {
        "deep": '{"plans": ' + "[" * 100000 + "]" * 100000 + "}",
        "deep-plan": '{"plans": [' + '{"a":' * 90000 + "1" + "}" * 90000 + "]}",
        "deep-name": '{"plans": [{"name": ' + "[" * 90000 + "]" * 90000 + "}]}",
        "empty": "",
        "array": "[]",
        "plans-object": '{"plans": {}}',
        "plans-empty": '{"plans": []}',
        "duplicate-key": '{"plans": [], "plans": []}',
        "unknown-field": plan(contxt=8192),
        "field-esc": plan(**{"\x1b[31m": 1}),
        "model-unknown": plan(model="no-such-model"),
        "model-esc": plan(model="\x1b[2J"),
        "model-huge": plan(model="m" * 300000),
        "model-number": plan(model=7),
        "model-path-fifo": plan(model=P("fifo.json")),
        "model-path-zero": plan(model="/dev/zero"),
        "gpu-unknown": plan(gpu="rtx-9999"),
        "gpu-esc": plan(gpu="\x1b]0;x\x07"),
        "context-neg": plan(context=-1),
        "context-zero": plan(context=0),
        "context-huge": plan(context=2**40),
        "context-float": plan(context=2.5),
        "context-1e432": plan().replace('"gpu"', '"context": 1e432, "gpu"'),
        "context-string": plan(context="8k"),
        "context-deep": plan(context=[[[[1]]]]),
        "gpus-huge": plan(gpus=2**40),
        "gpus-zero": plan(gpus=0),
        "users-huge": plan(users=2**40),
        "quant-bad": plan(quant="q99"),
        "quant-esc": plan(quant="q4\x1b"),
        "engine-bad": plan(engine="tensorflow"),
        "headroom-neg": plan(headroom=-0.5),
        "headroom-nan": plan().replace('"gpu"', '"headroom": NaN, "gpu"'),
        "budget-neg": plan(budget={"power_watts": -1}),
        "budget-string": plan(budget={"power_watts": "1000"}),
        "budget-unknown": plan(budget={"watts": 1}),
        "budget-deep": plan(budget={"power_watts": [[[[[1]]]]]}),
        "target-neg": plan(target_tokens_per_s=-1),
        "target-inf": plan().replace('"gpu"', '"target_tokens_per_s": 1e999, "gpu"'),
        "price-neg": plan(gpu_price_usd=-1),
        "kv-bad": plan(kv_quant="q1"),
        "ubatch-zero": plan(ubatch=0),
        "batch-huge": plan(batch=2**62),
        "flash-bad": plan(flash_attn="maybe"),
        "name-esc": plan(name="\x1b[2J\x07x"),
        "name-huge": plan(name="n" * 300000),
        "many-plans": json.dumps({"plans": [{"model": "8b", "gpu": "rtx-4090"}] * 20000}),
        "too-many-values": '{"plans": [{"model": "8b", "gpu": "rtx-4090", "x": [' +
                           ",".join(["{}"] * 600000) + "]}]}",
        "over-cap": "{" + " " * (65 << 20) + "}",
        "trailing": plan_ok + "x",
        "bad-utf8": b'{"plans": [{"model": "\xff\xfe", "gpu": "rtx-4090"}]}',
    }
    for label, text in plans.items():
        path = write("plan/%s.json" % label, text)
        exp = "any" if label in ("name-esc", "name-huge", "many-plans", "plans-empty") else "error"
        big = label in ("over-cap", "many-plans")
        add("plan/%s" % label, ["check", path], expect=exp, needles=[needle_of(path, 40)], big=big)
        add("plan-json/%s" % label, ["check", path, "-f", "json"], expect=exp,
            needles=[needle_of(path, 40)], big=big)
        if label in ("deep", "model-esc", "context-1e432", "quant-bad", "name-esc"):
            add("plan-junit/%s" % label, ["check", path, "--junit", P("junit-%s.xml" % label)],
                expect=exp, needles=[needle_of(path, 40)])
    # Two files, the second bad: the first one's results never reach stdout.
    add("plan/second-file-bad", ["check", write("plan-ok.json", plan_ok), P("plan", "deep.json")],
        needles=[needle_of(P("plan", "deep.json"), 40)])

    # --- arguments and flags --------------------------------------------------------------------
    hostile_strings = {
        "esc": "\x1b[2J\x1b]0;pwned\x07",
        "newline": "a\nb",
        "cr": "abc\rdef",
        "tab": "a\tb",
        "del": "a\x7fb",
        "bidi": "\u202eabc",
        "zero-width": "a\u200bb",
        "c1": "a\u009bb",
        "bad-utf8": "a\udcff\udcfeb",
        "huge": "x" * 100000,  # one argument holds at most 128 KiB
        "huge-esc": "\x1b" * 30000,
        "empty": "",
        "space": " ",
        "dash": "-",
        "dotdot": "..",
        "slash": "/",
        "percent": "%s%n%x",
        "braces": "{}{:>99999999}",
    }
    for label, s in hostile_strings.items():
        model_needles = [needle_of(s, 24) or "MODEL", "MODEL", "model"]
        if label in ("empty", "space", "dotdot", "slash", "dash"):
            model_needles += ["''", "'.'", "' '", "..", "/", "directory"]
        add("arg/model/%s" % label, [s], needles=model_needles)
        add("arg/sweep-models/%s" % label, ["sweep", "--models", s, "-g", "rtx-4090"],
            needles=["--models"] + model_needles)
        add("arg/inspect/%s" % label, ["inspect", s], needles=model_needles + ["inspect"])
        add("arg/check/%s" % label, ["check", s], needles=model_needles + ["check", "plan"])
        for flag, extra in [("--gpu", ["llama-3.1-8b"]), ("-g", ["llama-3.1-8b"]),
                            ("--quant", ["llama-3.1-8b"]), ("--kv-quant", ["llama-3.1-8b"]),
                            ("--engine", ["llama-3.1-8b"]), ("--flash-attn", ["llama-3.1-8b"]),
                            ("--split", ["llama-3.1-8b"]), ("--platform", ["llama-3.1-8b"]),
                            ("--storage", ["llama-3.1-8b"]), ("--mode", ["llama-3.1-8b"]),
                            ("--optimizer", ["llama-3.1-8b"]),
                            ("--checkpointing", ["llama-3.1-8b"]),
                            ("--emit", ["llama-3.1-8b", "-g", "h100-sxm"]),
                            ("--format", ["llama-3.1-8b"]), ("--price", ["llama-3.1-8b"]),
                            ("--catalog", ["llama-3.1-8b"])]:
            if flag == "--catalog" and label in ("dash",):
                continue
            add("flag/%s/%s" % (flag.lstrip("-"), label), extra + [flag, s],
                needles=[flag, flag.lstrip("-")] + model_needles)
        for sub, flag, extra in [("fit", "-g", []), ("fit", "--quants", ["-g", "rtx-4090"]),
                                 ("fit", "--format", ["-g", "rtx-4090"]),
                                 ("sweep", "-g", ["--models", "8b"]),
                                 ("sweep", "--quants", ["--models", "8b", "-g", "rtx-4090"]),
                                 ("sweep", "--format", ["--models", "8b", "-g", "rtx-4090"]),
                                 ("models", "--format", []), ("gpus", "--format", []),
                                 ("quants", "--format", []), ("inspect", "--format",
                                  [os.path.join(CORPUS, "gguf", "llama_dense.gguf")]),
                                 ("check", "--format", [write("plan-ok.json", plan_ok)])]:
            add("flag/%s%s/%s" % (sub, flag, label), [sub] + extra + [flag, s],
                needles=[flag, flag.lstrip("-")] + model_needles)
    numeric_flags = ["--ctx", "--batch", "--ubatch", "--headroom", "--overhead-mib", "--gpus",
                     "--top", "--users", "--target-tps", "--prompt", "--isl", "--osl", "--rate",
                     "--ttft-ms", "--tpot-ms", "--ram-channels", "--ram-mts", "--keep-models",
                     "--dataset-gb", "--power-limit", "--mains", "--duty-cycle", "--kwh-price",
                     "--years", "--utilization", "--cloud-price", "--seq", "--lora-rank"]
    bad_numbers = {"nan": "nan", "NaN": "NaN", "inf": "inf", "-inf": "-inf",
                   "infinity": "Infinity", "hex": "0x10", "hexfloat": "0x1p-3", "neg": "-1",
                   "neg-zero": "-0", "1e999": "1e999", "2^64": "18446744073709551616",
                   "2^63": "9223372036854775808", "huge": "9" * 400, "empty": "",
                   "leading-space": " 1", "trailing-junk": "1x", "esc": "1\x1b[2J",
                   "two": "1 2", "comma": "1,000", "unicode-digit": "\u0661"}
    for flag in numeric_flags:
        for label, v in bad_numbers.items():
            extra = ["llama-3.1-8b", "-g", "rtx-4090"]
            if flag in ("--lora-rank", "--seq"):
                extra += ["--mode", "lora"]
            add("number/%s/%s" % (flag.lstrip("-"), label), extra + [flag, v],
                needles=[flag, flag.lstrip("-")])
    for sub, flag, extra in [("fit", "-n", ["-g", "rtx-4090"]), ("fit", "-c", ["-g", "rtx-4090"]),
                             ("sweep", "-c", ["--models", "8b", "-g", "rtx-4090"]),
                             ("sweep", "-n", ["--models", "8b", "-g", "rtx-4090"]),
                             ("sweep", "--max-rows", ["--models", "8b", "-g", "rtx-4090"])]:
        for label, v in bad_numbers.items():
            # List flags trim spaces around their items by design ("--ctx '4096, 8192'").
            lists = sub == "sweep" and flag != "--max-rows"
            add("number/%s%s/%s" % (sub, flag, label), [sub] + extra + [flag, v],
                expect="any" if lists and label == "leading-space" else "error",
                needles=[flag, flag.lstrip("-"), {"-n": "--gpus", "-c": "--ctx"}.get(flag, flag)])
    for label, v in [("no-eq", "rtx-4090"), ("nan", "rtx-4090=nan"), ("neg", "rtx-4090=-5"),
                     ("inf", "rtx-4090=inf"), ("unknown", "nope=100"), ("empty", "="),
                     ("esc", "\x1b=1"), ("hex", "rtx-4090=0x10")]:
        add("number/price/%s" % label, ["llama-3.1-8b", "-g", "rtx-4090", "--price", v],
            needles=["--price"])
    # Sweeps and flags that ask for too much.
    add("scale/sweep-too-many", ["sweep", "--models", ",".join(["8b"] * 1000), "-g",
                                 ",".join(["rtx-4090"] * 1000), "--max-rows", "100"],
        needles=["--max-rows", "rows", "configurations"])
    add("scale/sweep-list-huge", ["sweep", "--models", ",".join(["8b"] * 10000),
                                  "-g", "rtx-4090"], expect="any", needles=["--models"])
    add("scale/unknown-flag", ["llama-3.1-8b", "--no-such-flag"], needles=["--no-such-flag"])
    add("scale/unknown-flag-esc", ["llama-3.1-8b", "--\x1b[2J"], needles=["--\\x1b"])
    add("scale/unknown-subcommand-esc", ["\x1b[2Jmodels"], needles=["\\x1b[2Jmodels"])
    add("scale/many-args", ["llama-3.1-8b"] + ["--catalog", P("plan-ok.json")] * 2000,
        needles=[needle_of(P("plan-ok.json"), 40)])
    add("scale/ctx-max", ["llama-3.1-8b", "--ctx", "16777216", "-g", "rtx-4090"], expect="any",
        needles=["--ctx"])
    add("scale/gpus-max", ["llama-3.1-405b", "--gpus", "4294967295", "-g", "rtx-4090"],
        expect="any", needles=["--gpus"])
    add("scale/users-max", ["llama-3.1-8b", "--users", "4294967295", "-g", "rtx-4090"],
        expect="any", needles=["--users"])
    # Extremes that are valid one by one but not together, and lists past their cap.
    add("scale/isl-osl-past-ctx", ["llama-3.1-8b", "--isl", "16777216", "--osl", "16777216"],
        needles=["--isl + --osl", "33554432"])
    add("scale/isl-osl-past-trained", ["llama-3.1-8b", "--isl", "131072", "--osl", "1"],
        needles=["--isl + --osl", "131073", "131072"])
    add("scale/ram-channels-past-platform", ["llama-3.1-70b", "-g", "rtx-4090", "-n", "1",
                                             "--ram-channels", "24"],
        needles=["--ram-channels 24", "memory channel"])
    add("scale/compare-10000", ["llama-3.1-8b", "--compare", ",".join(["rtx-4090"] * 10000)],
        needles=["--compare", "10000 entries", "at most 64"])
    add("scale/compare-65-distinct", ["llama-3.1-8b", "--compare",
                                      ",".join("rtx-4090x%d" % n for n in range(1, 66))],
        needles=["--compare", "65 entries"])
    add("scale/compare-count-0", ["llama-3.1-8b", "--compare", "rtx-4090x0"],
        needles=["--compare", "rtx-4090x0"])
    for flag in (["--ctx", "max"], ["--emit", "vllm"], ["--explain"], ["--top", "3"]):
        add("scale/compare-with%s" % flag[0].lstrip("-"),
            ["llama-3.1-8b", "--compare", "rtx-4090"] + flag, needles=["--compare", flag[0]])
    add("scale/rate-overload", ["llama-3.1-8b", "-g", "rtx-4090", "--engine", "vllm", "--rate",
                                "1000000", "-f", "json"], expect="ok", needles=[])
    return cases


# ---------------------------------------------------------------------------------------------
# Running


def run_case(binary, c, max_s, max_wall, max_rss_mb):
    argv = [binary.encode()] + [a.encode("utf-8", "surrogateescape") if isinstance(a, str)
                                else a for a in c.args]
    out_r, out_w = os.pipe() if c.stdout is None else (None, None)
    err_r, err_w = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            devnull = os.open("/dev/null", os.O_RDONLY)
            os.dup2(devnull, 0)
            if c.stdout == "full":
                os.dup2(os.open("/dev/full", os.O_WRONLY), 1)
            elif c.stdout == "closed":
                os.close(1)
            else:
                os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            for fd in (out_r, out_w, err_r, err_w):
                if fd is not None and fd > 2:
                    os.close(fd)
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    if out_w is not None:
        os.close(out_w)
    os.close(err_w)
    out, err = bytearray(), bytearray()
    fds = [f for f in (out_r, err_r) if f is not None]
    for f in fds:
        os.set_blocking(f, False)
    status, ru, hung = None, None, False
    while True:
        for f, buf in ((out_r, out), (err_r, err)):
            if f is None:
                continue
            try:
                while True:
                    chunk = os.read(f, 1 << 16)
                    if not chunk:
                        break
                    buf += chunk
                    if len(buf) > (64 << 20):
                        del buf[32 << 20:]
            except BlockingIOError:
                pass
        wpid, st, r = os.wait4(pid, os.WNOHANG)
        if wpid == pid:
            status, ru = st, r
            break
        if time.monotonic() - t0 > HANG_S:
            os.killpg(pid, signal.SIGKILL)
            _, status, ru = os.wait4(pid, 0)
            hung = True
            break
        time.sleep(0.002)
    secs = time.monotonic() - t0
    for f, buf in ((out_r, out), (err_r, err)):
        if f is None:
            continue
        os.set_blocking(f, True)
        while True:
            chunk = os.read(f, 1 << 16)
            if not chunk:
                break
            buf += chunk
        os.close(f)
    problems = []
    if hung:
        problems.append("hung (killed after %.0f s)" % HANG_S)
    if os.WIFSIGNALED(status):
        problems.append("killed by signal %d" % os.WTERMSIG(status))
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    cpu = ru.ru_utime + ru.ru_stime
    if cpu > max_s:
        problems.append("took %.2f s of CPU (> %.2f s)" % (cpu, max_s))
    if secs > max_wall:
        problems.append("took %.2f s (> %.2f s wall)" % (secs, max_wall))
    rss_mb = ru.ru_maxrss / 1024.0
    if rss_mb > max_rss_mb:
        problems.append("peak RSS %.0f MB (> %.0f MB)" % (rss_mb, max_rss_mb))
    text = err.decode("utf-8", "replace")

    def error_contract():
        p = []
        if code != 2:
            p.append("exit %d, expected 2" % code)
        if out:
            p.append("stdout not empty: %r" % bytes(out[:120]))
        lines = text.split("\n")
        if not text.startswith("llmsize: error: "):
            p.append("stderr does not start with 'llmsize: error: ': %r" % text[:200])
        if not text.endswith("\n"):
            p.append("stderr does not end in a newline")
        body = text[:-1] if text.endswith("\n") else text
        # CLI11 parse errors add one "Run with --help" line.
        body_lines = [x for x in body.split("\n") if x != "Run with --help for the options."]
        if len(body_lines) != 1:
            p.append("message spans %d lines" % len(lines))
        if any((ord(ch) < 0x20 and ch != "\n") or ord(ch) == 0x7F or 0x80 <= ord(ch) <= 0x9F
               for ch in text):
            p.append("control character in the message: %r" % text[:200])
        if LIBRARY_TEXT.search(text):
            p.append("library text in the message: %r" % text[:200])
        if len(err) > 4300:
            p.append("message of %d bytes" % len(err))
        if c.needles and not any(n and n in text for n in c.needles):
            p.append("message names none of %r: %r" % (c.needles[:3], text[:300]))
        return p

    def ok_contract():
        p = []
        if code not in (0, 1):
            p.append("exit %d, expected 0 or 1" % code)
        if any((b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F for b in out):
            p.append("control character on stdout")
        if c.stdout is None and not out:
            p.append("no output")
        return p

    if not hung and not os.WIFSIGNALED(status):
        if c.expect == "error":
            problems += error_contract()
        elif c.expect == "ok":
            problems += ok_contract()
        else:
            problems += error_contract() if code == 2 else ok_contract()
    return problems, secs, cpu, rss_mb, code, text


def run_all(binary, cases, a):
    failed = 0
    slowest = (0.0, "")
    busiest = (0.0, "")
    peak = (0.0, "")
    for c in cases:
        problems, secs, cpu, rss, code, text = run_case(binary, c, a.max_seconds,
                                                        a.max_wall_seconds, a.max_rss_mb)
        slowest = max(slowest, (secs, c.name))
        busiest = max(busiest, (cpu, c.name))
        peak = max(peak, (rss, c.name))
        name = c.name.encode("unicode_escape").decode()
        if problems:
            failed += 1
            print("FAIL %s (exit %d, %.2f s, %.0f MB)" % (name, code, secs, rss))
            for p in problems:
                print("     " + p)
        elif a.verbose:
            print("ok   %s (exit %d, %.3f s, %.0f MB): %s" % (
                name, code, secs, rss, text.strip()[:150].encode("unicode_escape").decode()))
        sys.stdout.flush()
    esc = lambda n: n.encode("unicode_escape").decode()  # noqa: E731
    print("hostile corpus: %d cases, %d failed; most CPU %.3f s (%s), slowest %.3f s wall (%s), "
          "peak RSS %.0f MB (%s)" % (len(cases), failed, busiest[0], esc(busiest[1]), slowest[0],
                                     esc(slowest[1]), peak[0], esc(peak[1])))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--smoke", action="store_true", help="skip the cases with large files")
    ap.add_argument("--every", type=int, default=1,
                    help="run one case of every N (in a fixed order), for a quicker smoke")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--max-seconds", type=float, default=1.0)
    ap.add_argument("--max-wall-seconds", type=float, default=1.0)
    ap.add_argument("--max-rss-mb", type=float, default=200.0)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--run-cases", help=argparse.SUPPRESS)
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    if a.run_cases:
        # The runner: a fresh interpreter that never held the corpus's large strings. A child's
        # peak RSS (wait4) includes the pages of the process it was forked from, so the process
        # that forks must stay small.
        with open(a.run_cases) as f:
            cases = [Case(**c) for c in json.load(f)]
        return run_all(binary, cases, a)
    tmp = tempfile.mkdtemp(prefix="llmsize_hostile_")
    try:
        cases = build(tmp)
        if a.smoke:
            cases = [c for c in cases if not c.big]
        if a.only:
            cases = [c for c in cases if a.only in c.name]
        cases = cases[::max(1, a.every)]
        if a.list:
            for c in cases:
                print(c.name.encode("unicode_escape").decode())
            return 0
        listing = os.path.join(tmp, "cases.json")
        with open(listing, "w") as f:
            json.dump([c.__dict__ for c in cases], f)
        del cases
        argv = [sys.executable, os.path.abspath(__file__), binary, "--run-cases", listing,
                "--max-seconds", str(a.max_seconds), "--max-wall-seconds", str(a.max_wall_seconds),
                "--max-rss-mb", str(a.max_rss_mb)]
        if a.verbose:
            argv.append("-v")
        sys.stdout.flush()
        return subprocess.run(argv).returncode
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept " + tmp, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
