#!/usr/bin/env python3
"""Regenerates the README blocks that show real output, so the README stays true.

Blocks, each closed by <!-- end -->:
    <!-- run: ARGS -->     the output of `llmsize ARGS` in a code fence, after a `$ llmsize ARGS` line
    <!-- sh: CMD ;; CMD --> each shell command (pipes allowed, run from the repository root with
                           the build's llmsize first on PATH) after its `$ CMD` line, in one fence;
                           an error's stderr is shown as the terminal would
    <!-- fields -->        the JSON and CSV field list (`llmsize fields`: the one field table)
    <!-- bench: accuracy --> the accuracy benchmark's table
Usage: python3 scripts/update-readme.py [--check] [BUILD_DIR]   (default build)
  --check  changes nothing; exits 1 and prints a diff when the README is not current (a ctest)
"""
import difflib, os, re, subprocess, sys, pathlib

args = [a for a in sys.argv[1:] if a != "--check"]
check = "--check" in sys.argv[1:]
root = pathlib.Path(__file__).resolve().parent.parent
build = pathlib.Path(args[0]).resolve() if args else root / "build"
readme = root / "README.md"
text = readme.read_text()
env = dict(os.environ, PATH=f"{build}{os.pathsep}{os.environ.get('PATH', '')}", LC_ALL="C.UTF-8")

def run(args):
    out = subprocess.run([str(build / "llmsize")] + args.split(), capture_output=True, text=True,
                         cwd=root)
    return out.stdout.rstrip() or out.stderr.rstrip()

def shell(cmd):
    out = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True,
                         cwd=root, env=env)
    return (out.stdout + out.stderr).rstrip()

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
    out = subprocess.run([str(build / "bench" / "llmsize_accuracy")], capture_output=True, text=True).stdout
    table = "\n".join(l for l in out.splitlines() if l.startswith("|"))
    return f"<!-- bench: accuracy -->\n{table}\n<!-- end -->"

new = re.sub(r"<!-- run: (.*?) -->\n.*?<!-- end -->", repl_run, text, flags=re.S)
new = re.sub(r"<!-- sh: (.*?) -->\n.*?<!-- end -->", repl_sh, new, flags=re.S)
new = re.sub(r"<!-- fields -->\n.*?<!-- end -->", repl_fields, new, flags=re.S)
new = re.sub(r"<!-- bench: accuracy -->\n.*?<!-- end -->", repl_bench, new, flags=re.S)
if check:
    if new != text:
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                   "README.md", "README.md (from the binary)"))
        print("README.md is not current: run python3 scripts/update-readme.py BUILD_DIR")
        sys.exit(1)
    sys.exit(0)
readme.write_text(new)
