#!/usr/bin/env python3
"""Regenerates the blocks of README.md and docs/*.md that show real output, so the docs stay true.

Blocks, each closed by <!-- end -->:
    <!-- run: ARGS -->     the output of `llmsize ARGS` in a code fence, after a `$ llmsize ARGS` line
                           (no such line for `--help`)
    <!-- sh: CMD ;; CMD --> each shell command (pipes allowed, run from the repository root with
                           the build's llmsize first on PATH) after its `$ CMD` line, in one fence;
                           an error's stderr is shown as the terminal would
    <!-- fields -->        the JSON and CSV field list (`llmsize fields`: the one field table)
    <!-- bench: accuracy --> the accuracy benchmark's table
    <!-- bench: accuracy brief --> its llmsize rows only: category, n, median, p90 and max error
Usage: python3 scripts/update-readme.py [--check] [BUILD_DIR]   (default build)
  --check  changes nothing; exits 1 and prints a diff naming each file that is not current (a ctest)
"""
import difflib, os, re, subprocess, sys, pathlib

args = [a for a in sys.argv[1:] if a != "--check"]
check = "--check" in sys.argv[1:]
root = pathlib.Path(__file__).resolve().parent.parent
build = pathlib.Path(args[0]).resolve() if args else root / "build"
docs = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
env = dict(os.environ, PATH=f"{build}{os.pathsep}{os.environ.get('PATH', '')}", LC_ALL="C.UTF-8")
cache = {}

def once(key, make):
    if key not in cache:
        cache[key] = make()
    return cache[key]

def run(args):
    def make():
        out = subprocess.run([str(build / "llmsize")] + args.split(), capture_output=True,
                             text=True, cwd=root)
        return out.stdout.rstrip() or out.stderr.rstrip()
    return once(("run", args), make)

def shell(cmd):
    def make():
        out = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True,
                             text=True, cwd=root, env=env)
        return (out.stdout + out.stderr).rstrip()
    return once(("sh", cmd), make)

def accuracy_rows():
    def make():
        out = subprocess.run([str(build / "bench" / "llmsize_accuracy")], capture_output=True,
                             text=True).stdout
        return [l for l in out.splitlines() if l.startswith("|")]
    return once(("bench",), make)

def repl_run(m):
    args = m.group(1)
    shown = f"$ llmsize {args}\n" if not args.startswith("--help") else ""
    return f"<!-- run: {args} -->\n```\n{shown}{run(args)}\n```\n<!-- end -->"

def repl_sh(m):
    body = ""
    for cmd in (c.strip() for c in m.group(1).split(";;")):
        out = shell(cmd)
        body += f"$ {cmd}\n" + (out + "\n" if out else "")
    return f"<!-- sh: {m.group(1)} -->\n```\n{body}```\n<!-- end -->"

def repl_fields(m):
    return f"<!-- fields -->\n{run('fields')}\n<!-- end -->"

def repl_bench(m):
    rows = accuracy_rows()
    brief = m.group(1) or ""
    if not brief:
        table = rows
    else:
        # category | method | n | median | p90 | max | worst row: the llmsize rows, without the
        # method and the worst row.
        def cells(l):
            return [c.strip() for c in l.strip().strip("|").split("|")]
        table = ["| what | n | median error | p90 | max |", "|---|---:|---:|---:|---:|"]
        for l in rows[2:]:
            c = cells(l)
            if len(c) >= 6 and c[1] == "**llmsize**":
                table.append(f"| {c[0]} | {c[2]} | {c[3]} | {c[4]} | {c[5]} |")
    body = "\n".join(table)
    return f"<!-- bench: accuracy{brief} -->\n{body}\n<!-- end -->"

def regenerate(text):
    new = re.sub(r"<!-- run: (.*?) -->\n.*?<!-- end -->", repl_run, text, flags=re.S)
    new = re.sub(r"<!-- sh: (.*?) -->\n.*?<!-- end -->", repl_sh, new, flags=re.S)
    new = re.sub(r"<!-- fields -->\n.*?<!-- end -->", repl_fields, new, flags=re.S)
    new = re.sub(r"<!-- bench: accuracy( brief)? -->\n.*?<!-- end -->", repl_bench, new,
                 flags=re.S)
    return new

stale = []
for path in docs:
    name = str(path.relative_to(root))
    text = path.read_text()
    new = regenerate(text)
    if new == text:
        continue
    if check:
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                   name, f"{name} (from the binary)"))
        stale.append(name)
    else:
        path.write_text(new)
if stale:
    print(f"not current: {', '.join(stale)}: run python3 scripts/update-readme.py BUILD_DIR")
    sys.exit(1)
