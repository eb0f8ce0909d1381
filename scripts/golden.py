#!/usr/bin/env python3
"""Byte-for-byte answers: runs every command of tests/golden/commands.txt with BUILD/llmsize (from
the repository root, through the shell, so pipes work) and compares its stdout, stderr and exit
code with tests/golden/expected/NNN.txt. Work that should change no answer (#25: the compiled
catalog, the faster machine choice and GGUF reader) is checked against it; a change meant to alter
answers regenerates the files with --update and shows the difference in review.

  scripts/golden.py BUILD            compare (ctest cli.golden_outputs); exit 1 with the diffs
  scripts/golden.py BUILD --update   rewrite tests/golden/expected/
"""
import difflib
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden")


def commands():
    with open(os.path.join(GOLDEN, "commands.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                yield line


def answer(binary, cmd):
    r = subprocess.run(binary + " " + cmd, shell=True, cwd=ROOT, capture_output=True,
                       env=dict(os.environ, LC_ALL="C", COLUMNS="100"))
    return (f"$ llmsize {cmd}\n--- exit {r.returncode}\n--- stdout\n"
            + r.stdout.decode("utf-8", "replace") + "--- stderr\n"
            + r.stderr.decode("utf-8", "replace"))


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.join(os.path.abspath(sys.argv[1]), "llmsize")
    update = "--update" in sys.argv[2:]
    out_dir = os.path.join(GOLDEN, "expected")
    os.makedirs(out_dir, exist_ok=True)
    bad = 0
    n = 0
    for i, cmd in enumerate(commands()):
        n += 1
        got = answer(binary, cmd)
        path = os.path.join(out_dir, f"{i:03d}.txt")
        if update:
            with open(path, "w", encoding="utf-8") as f:
                f.write(got)
            continue
        try:
            with open(path, encoding="utf-8") as f:
                want = f.read()
        except FileNotFoundError:
            want = ""
        if got != want:
            bad += 1
            sys.stdout.writelines(difflib.unified_diff(
                want.splitlines(True), got.splitlines(True), path, "now", n=1))
    if update:
        for name in os.listdir(out_dir):
            if name.endswith(".txt") and int(name[:3]) >= n:
                os.remove(os.path.join(out_dir, name))
        print(f"golden: {n} answers written")
        return 0
    print(f"golden: {n} commands, {bad} answers differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
