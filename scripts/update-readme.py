#!/usr/bin/env python3
"""Regenerates the README blocks that show real output, so the README stays true.

A block is delimited by
    <!-- run: ARGS -->        (the output of `llmsize ARGS`, in a code fence, with a `$` line)
    <!-- end -->
and <!-- bench: accuracy --> ... <!-- end --> holds the accuracy benchmark's table.
Usage: python3 scripts/update-readme.py [BUILD_DIR]   (default build)
"""
import re, subprocess, sys, pathlib

root = pathlib.Path(__file__).resolve().parent.parent
build = root / (sys.argv[1] if len(sys.argv) > 1 else "build")
readme = root / "README.md"
text = readme.read_text()

def run(args):
    out = subprocess.run([str(build / "llmsize")] + args.split(), capture_output=True, text=True)
    return out.stdout.rstrip() or out.stderr.rstrip()

def repl_run(m):
    args = m.group(1)
    shown = f"$ llmsize {args}\n" if not args.startswith("--help") else ""
    return f"<!-- run: {args} -->\n```\n{shown}{run(args)}\n```\n<!-- end -->"

def repl_bench(m):
    out = subprocess.run([str(build / "bench" / "llmsize_accuracy")], capture_output=True, text=True).stdout
    table = "\n".join(l for l in out.splitlines() if l.startswith("|"))
    return f"<!-- bench: accuracy -->\n{table}\n<!-- end -->"

text = re.sub(r"<!-- run: (.*?) -->\n.*?<!-- end -->", repl_run, text, flags=re.S)
text = re.sub(r"<!-- bench: accuracy -->\n.*?<!-- end -->", repl_bench, text, flags=re.S)
readme.write_text(text)
