#!/usr/bin/env python3
"""The rules of the source tree (docs/layout.md), checked on the files themselves.

  scripts/check_layout.py [ROOT]

1. The core's stages include one way: model -> memory -> serving -> machine -> plan. A file of a
   stage includes headers of its own stage, of earlier stages and of the shared vocabulary at the
   top of include/llmsize/ (units, checked, gpu, engine, sanitize); the vocabulary includes
   nothing of a stage but model/ (tensor types). No core file includes io/ or a third-party header.
2. include/llmsize/ mirrors src/: each core .cpp has its header at the same path.
3. src/ has at most 12 files at its top level.
4. No header includes CLI11 (only the .cpp files that parse the command line do) and no public
   header includes nlohmann/json (it stays private to the io library).

Prints each breach with its file and exits 1 when there is one.
"""

import glob
import os
import re
import sys

STAGES = ["model", "memory", "serving", "machine", "plan"]
THIRD_PARTY = ("nlohmann/", "fmt/", "CLI/")
MAX_TOP_LEVEL_FILES = 12


def stage_of(path):
    """The stage folder a path of src/ or include/llmsize/ sits in; None for the top level."""
    parts = path.split("/")
    for p in parts[:-1]:
        if p in STAGES or p in ("io", "cli"):
            return p
    return None


def rank(stage):
    return STAGES.index(stage) + 1 if stage in STAGES else 0


def includes(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r'#include\s*[<"]([^>"]+)[>"]', text)


def core_files(root):
    files = glob.glob(os.path.join(root, "src", "*.cpp"))
    files += glob.glob(os.path.join(root, "include", "llmsize", "*.hpp"))
    for s in STAGES:
        files += glob.glob(os.path.join(root, "src", s, "*.cpp"))
        files += glob.glob(os.path.join(root, "include", "llmsize", s, "*.hpp"))
    return sorted(os.path.relpath(f, root) for f in files)


def check_stage_order(root, problems):
    for f in core_files(root):
        here = stage_of(f)
        for inc in includes(os.path.join(root, f)):
            if inc.startswith(THIRD_PARTY):
                problems.append(f"{f}: the core includes the third-party header <{inc}>")
                continue
            if not inc.startswith("llmsize/"):
                continue
            there = stage_of(inc)
            if there == "io":
                problems.append(f"{f}: the core includes {inc} (files are read in io/)")
            elif here is None and there not in (None, "model"):
                problems.append(f"{f}: the shared vocabulary includes {inc} of stage {there}/")
            elif here is not None and rank(there) > rank(here):
                problems.append(f"{f}: stage {here}/ includes {inc} of the later stage {there}/")


def check_mirror(root, problems):
    for f in core_files(root):
        if not f.startswith("src/"):
            continue
        header = "include/llmsize/" + f[len("src/"):-len(".cpp")] + ".hpp"
        if not os.path.exists(os.path.join(root, header)):
            problems.append(f"{f}: no header at {header} (include/llmsize/ mirrors src/)")


def check_top_level(root, problems):
    top = [e for e in os.listdir(os.path.join(root, "src"))
           if os.path.isfile(os.path.join(root, "src", e))]
    if len(top) > MAX_TOP_LEVEL_FILES:
        problems.append(f"src/: {len(top)} files at the top level, at most {MAX_TOP_LEVEL_FILES}: "
                        + ", ".join(sorted(top)))


def check_headers(root, problems):
    for f in glob.glob(os.path.join(root, "src", "**", "*.hpp"), recursive=True) + \
            glob.glob(os.path.join(root, "include", "**", "*.hpp"), recursive=True):
        rel = os.path.relpath(f, root)
        for inc in includes(f):
            if inc.startswith("CLI/"):
                problems.append(f"{rel}: a header includes <{inc}> (CLI11 only where flags are parsed)")
            if inc.startswith("nlohmann/") and rel.startswith("include/"):
                problems.append(f"{rel}: a public header includes <{inc}> (nlohmann stays in src/io/)")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    problems = []
    check_stage_order(root, problems)
    check_mirror(root, problems)
    check_top_level(root, problems)
    check_headers(root, problems)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{len(core_files(root))} core files: the stages include one way, include/llmsize/ "
          "mirrors src/, no header includes CLI11 and no public header nlohmann")
    return 0


if __name__ == "__main__":
    sys.exit(main())
