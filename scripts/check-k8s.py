#!/usr/bin/env python3
"""`llmsize ... --emit k8s` writes Kubernetes manifests a cluster accepts: each is parsed as YAML
(python3-yaml, scripts/install-deps.sh) and checked against the plan it realises (the plan's JSON
from the same binary): the objects' kinds, one pod per machine in a LeaderWorkerSet group of
`nodes` pods, the replicas, the GPUs each pod asks for, the engine's multi-node flags, and a
model name that Kubernetes' $(VAR) expansion and the shell both leave as it is.

    python3 scripts/check-k8s.py BUILD_DIR
"""
import json
import subprocess
import sys

import yaml

BIN = sys.argv[1] + "/llmsize"

CASES = [
    # (plan, kinds, pods per group or 0 for a Deployment)
    ("llama-3.1-405b --engine vllm --gpu h100-sxm --gpus 16", ["LeaderWorkerSet", "Service"], 2),
    ("llama-3.1-8b --engine vllm --gpu h100-sxm --gpus 8", ["Deployment", "Service"], 0),
    ("qwen3-32b --engine sglang --gpu h100-sxm --users 200", ["Deployment", "Service"], 0),
    ("deepseek-r1 --engine sglang --gpu h100-sxm --gpus 16 --tp 16",
     ["LeaderWorkerSet", "Service"], 2),
    ("llama-3.3-70b --engine vllm --gpu mi300x --gpus 8 --tp 2", ["Deployment", "Service"], 0),
]


def run(args):
    r = subprocess.run([BIN] + args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"check-k8s: llmsize {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r.stdout


def containers(obj):
    if obj["kind"] == "Deployment":
        return [("pod", obj["spec"]["template"]["spec"]["containers"][0])]
    t = obj["spec"]["leaderWorkerTemplate"]
    return [("leader", t["leaderTemplate"]["spec"]["containers"][0]),
            ("worker", t["workerTemplate"]["spec"]["containers"][0])]


def check(plan, kinds, group):
    args = plan.split()
    docs = [d for d in yaml.safe_load_all(run(args + ["--emit", "k8s"])) if d]
    t = json.loads(run(args + ["-f", "json"]))["throughput"]
    got = [d["kind"] for d in docs]
    assert got == kinds, f"{plan}: kinds {got}, expected {kinds}"
    main = docs[0]
    assert main["spec"]["replicas"] == t["replicas"], f"{plan}: replicas"
    span = t["tensor_parallel"] * t["pipeline_parallel"]
    for role, c in containers(main):
        limits = c["resources"]["limits"]
        gpus = int(next(v for k, v in limits.items() if k.endswith("/gpu")))
        cmd = c["args"][0]
        if group:
            assert main["spec"]["leaderWorkerTemplate"]["size"] == group, f"{plan}: group size"
            assert gpus * group == span, f"{plan}: {gpus} GPUs x {group} pods for TP x PP {span}"
            assert "$(LWS_GROUP_SIZE)" in cmd and "$(LWS_LEADER_ADDRESS)" in cmd, cmd
            if "vllm serve" in cmd:
                assert ("--headless" in cmd) == (role == "worker"), cmd
        else:
            assert gpus == span, f"{plan}: {gpus} GPUs a pod for TP x PP {span}"
        assert "--port 8000" in cmd, cmd
    svc = docs[-1]
    assert svc["spec"]["ports"][0]["port"] == 8000, f"{plan}: service port"


for plan, kinds, group in CASES:
    check(plan, kinds, group)

# A model path with '$(...)' and a quote: Kubernetes expands $(VAR) in args, so each '$' is
# doubled; what the shell then reads is the path as given, one word.
cfg = sys.argv[1] + "/k8s-check"
subprocess.run(["mkdir", "-p", cfg + "/it's $(HOME)"], check=True)
with open(cfg + "/it's $(HOME)/config.json", "w") as f:
    json.dump({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256,
               "intermediate_size": 512, "num_attention_heads": 4, "vocab_size": 1000}, f)
doc = next(yaml.safe_load_all(run([cfg + "/it's $(HOME)/config.json", "--engine", "vllm",
                                   "--gpu", "l4", "--emit", "k8s"])))
cmd = containers(doc)[0][1]["args"][0]
expanded = cmd.replace("$$", "$")  # what Kubernetes passes to sh -c
assert "'" + cfg + "/it'\\''s $(HOME)' " in expanded, cmd
print(f"check-k8s: {len(CASES) + 1} manifests parse and realise their plans")
