#!/usr/bin/env python3
"""Move entries of data/models_pending.json into data/models.json once llmsize reads them.

An entry is promoted when the built llmsize parses its config (its model_type is supported) and,
where params_official is given, the derived parameter count is within 0.5% of it (the tolerance
tests/tensors_test.cpp asserts). Entries that parse but miss the official count stay pending and
are listed with both numbers. Usage:

    python3 scripts/promote_pending_models.py BUILD_DIR/llmsize [--dry-run]
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "data", "models.json")
PENDING = os.path.join(ROOT, "data", "models_pending.json")
TOLERANCE = 0.005


def derive(binary, entry):
    """Returns (params, None) from `llmsize models --catalog` or (None, error message)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"models": [entry]}, f)
        path = f.name
    try:
        r = subprocess.run([binary, "models", "--catalog", path, "--format", "json"],
                           capture_output=True, text=True)
    finally:
        os.unlink(path)
    if r.returncode != 0:
        lines = r.stderr.strip().splitlines()
        msg = lines[-1].replace(path, "entry") if lines else "exit %d" % r.returncode
        return None, msg.split("; supported:")[0]
    for m in json.loads(r.stdout)["models"]:
        if m["id"] == entry["id"]:
            return m["params"], None
    return None, "not listed"


def write(path, doc):
    with open(path, "w") as f:
        f.write(json.dumps(doc, indent=1))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary, dry = sys.argv[1], "--dry-run" in sys.argv[2:]
    models, pending = json.load(open(MODELS)), json.load(open(PENDING))
    keep = []
    for e in pending["models"]:
        params, err = derive(binary, e)
        official = e.get("params_official")
        if err:
            print("pending   %-30s %s" % (e["id"], err))
            keep.append(e)
            continue
        rel = (params - official) / official if official else None
        if rel is not None and abs(rel) > TOLERANCE:
            print("pending   %-30s derived %d, official %d (%+.2f%%)" % (e["id"], params, official, 100 * rel))
            keep.append(e)
            continue
        print("promoted  %-30s derived %d%s" % (e["id"], params, "" if rel is None else ", official %d (%+.3f%%)" % (official, 100 * rel)))
        models["models"].append(e)
    pending["models"] = keep
    if not dry:
        write(MODELS, models)
        write(PENDING, pending)


if __name__ == "__main__":
    main()
