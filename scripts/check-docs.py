#!/usr/bin/env python3
"""Checks that README.md and docs/*.md point at things that exist (ctest docs.paths_and_links).

- Every repository path written in backticks outside code fences (`src/io/hf_config.cpp`,
  `data/gpus.json`, `tests/cli/`, `fuzz/*.dict`) exists: a span whose first component is a
  top-level entry of the repository is read as a path into it, and a glob must match something.
  So the file lists of docs/contributing.md go stale loudly when a file moves. A path of another
  project (llama.cpp's src/llama-model.cpp) is written without backticks.
- Every relative link [text](target) and image resolves: the file exists, and an anchor
  (#section) names a heading of the target file (GitHub's rule: lower case, punctuation dropped,
  spaces to hyphens, -1, -2, ... for repeats).

- With BUILD_DIR: every `llmsize ...` line of the README's sh code blocks (the one command per
  task) runs with BUILD_DIR/llmsize and exits 0, from a scratch directory whose plans/ holds
  examples/plan-pass.json (for the `llmsize check plans/*.json` line).

Usage: python3 scripts/check-docs.py [BUILD_DIR]   (exits 1 listing every broken path, link or
command)
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
PATHLIKE = re.compile(r"[A-Za-z0-9_.\-/*]+")


def top_level():
    return {n for n in os.listdir(ROOT) if n not in (".git", "build") and not n.startswith("build")}


def strip_fences(text):
    # Keep the line count, so a message's line number is the file's.
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def slug(heading):
    h = re.sub(r"<[^>]+>", "", heading)
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)  # a link in a heading keeps its text
    h = h.strip().lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen = set(), {}
        text = strip_fences(open(path, encoding="utf-8").read())
        for line in text.splitlines():
            m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
            for a in re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line):
                found.add(a)
        cache[path] = found
    return cache[path]


def check_file(rel, tops, problems):
    path = os.path.join(ROOT, rel)
    text = strip_fences(open(path, encoding="utf-8").read())
    for no, line in enumerate(text.splitlines(), 1):
        for m in SPAN.finditer(line):
            s = m.group(2).strip()
            if not PATHLIKE.fullmatch(s) or s.split("/")[0] not in tops:
                continue
            if not glob.glob(os.path.join(ROOT, s)):
                problems.append(f"{rel}:{no}: `{s}` is not in the repository")
        for m in LINK.finditer(SPAN.sub("", line)):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.\-]*:", target):  # https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part \
                else path
            if not os.path.exists(dest):
                problems.append(f"{rel}:{no}: link {target}: {file_part} does not exist")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append(f"{rel}:{no}: link {target}: no heading #{anchor} in "
                                f"{os.path.relpath(dest, ROOT)}")


def readme_commands():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            if line.startswith("llmsize "):
                yield line


def check_commands(build, problems):
    n = 0
    with tempfile.TemporaryDirectory() as scratch:
        os.mkdir(os.path.join(scratch, "plans"))
        shutil.copy(os.path.join(ROOT, "examples", "plan-pass.json"), os.path.join(scratch, "plans"))
        for name in ("plan-accept.json", "vllm-result.json"):
            shutil.copy(os.path.join(ROOT, "examples", name), scratch)
        env = dict(os.environ, PATH=os.path.abspath(build) + os.pathsep + os.environ.get("PATH", ""))
        for cmd in readme_commands():
            n += 1
            r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=scratch, env=env,
                               capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                problems.append(f"README.md: `{cmd}` exits {r.returncode}: {r.stderr.strip()}")
    if n < 6:
        problems.append(f"README.md: {n} llmsize commands in sh blocks, expected one per task (6)")
    return n


def main():
    tops = top_level()
    files = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                                   for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    problems = []
    for rel in files:
        check_file(rel, tops, problems)
    ran = check_commands(sys.argv[1], problems) if len(sys.argv) > 1 else 0
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} problem(s) in README.md and docs/*.md")
        return 1
    print(f"{len(files)} files: every backticked repository path and relative link resolves"
          + (f"; the README's {ran} llmsize commands run" if ran else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
