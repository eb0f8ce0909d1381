#!/usr/bin/env python3
"""Lengths of the C++ function definitions under the given folders (default: src).

A function is a body in braces whose header is a parameter list at namespace or class scope
(free functions, members, constructors, operators); lambdas and local classes count towards the
function they stand in, and initialised tables (`const Field kFields[] = {...}`) are data, not
functions. Length is the number of lines from the header's first line to the closing brace.

  scripts/function_lengths.py [--max N] [--allow FILE] [--list] [DIR ...]

--list prints every function, longest first. With --max, it prints the functions longer than N
lines that FILE (default scripts/function_lengths_allow.txt) does not name and exits 1 when there
are any; an allowlist entry that names no long function is an error too (it would hide the next
one), so the list stays the set of upstream mirrors it claims to be.
"""

import argparse
import os
import re
import signal
import sys

KEYWORDS_NOT_FUNCTIONS = ("namespace", "struct", "class", "union", "enum", "extern")
CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignof"}


def strip(text):
    """The text with comments, string and character literals blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2 : j]))
            i = j
        elif c in "\"'":
            if c == "'" and i and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")  # a digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * max(0, j - i - 2) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(header):
    """The name of the function a header declares, or None when it declares none."""
    h = " ".join(header.split())
    if not h or h.startswith("#"):
        return None
    first = re.match(r"[A-Za-z_]\w*", h)
    if first and first.group(0) in KEYWORDS_NOT_FUNCTIONS:
        return None
    if h.startswith("template") and re.match(r"template\s*<.*>\s*(struct|class|union)\b", h):
        return None
    # The parameter list: the first '(' at angle-bracket depth 0 that follows a name.
    depth = 0
    for k, ch in enumerate(h):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif ch == "=" and depth == 0 and not h.startswith("operator", max(0, k - 9)):
            if not re.search(r"operator\s*[=!<>+\-*/%&|^]*$", h[:k + 1]):
                return None  # an initialised variable or table
        elif ch == "(" and depth == 0:
            m = re.search(r"((?:[A-Za-z_]\w*\s*::\s*)*~?\s*(?:operator\s*[^\s(]+|operator\s*\(\s*\)|[A-Za-z_]\w*))\s*$", h[:k])
            if not m:
                return None
            name = re.sub(r"\s+", "", m.group(1))
            if name.split("::")[-1] in CONTROL:
                return None
            return name
    return None


def functions(path):
    text = open(path, encoding="utf-8").read()
    s = strip(text)
    line_of = []  # line number at each offset, computed lazily by counting
    found = []
    stack = []  # per open brace: None (scope) or (name, start offset) for a function body
    header_start = 0
    i, n = 0, len(s)
    in_function = 0
    while i < n:
        c = s[i]
        if c == "#" and (i == 0 or s[i - 1] == "\n" or s[:i].rstrip(" \t").endswith("\n")):
            j = i
            while True:  # a preprocessor line, with continuations
                e = s.find("\n", j)
                if e < 0:
                    e = n
                    break
                if s[e - 1] == "\\":
                    j = e + 1
                    continue
                break
            i = e
            if not in_function:
                header_start = i
            continue
        if c == "{":
            if in_function:
                stack.append(None)
            else:
                header = s[header_start:i]
                name = function_name(header)
                if name:
                    off = header_start + (len(header) - len(header.lstrip()))
                    stack.append((name, off))
                    in_function += 1
                else:
                    stack.append(None)
                    header_start = i + 1
        elif c == "}":
            top = stack.pop() if stack else None
            if top is not None:
                in_function -= 1
                name, off = top
                start = s.count("\n", 0, off) + 1
                end = s.count("\n", 0, i) + 1
                found.append((end - start + 1, name, start))
            if not in_function:
                header_start = i + 1
        elif c == ";" and not in_function:
            header_start = i + 1
        elif c == ":" and not in_function and re.search(r"\b(public|private|protected)\s*$", s[header_start:i]):
            header_start = i + 1
        i += 1
    return found


def sources(dirs):
    for d in dirs:
        if os.path.isfile(d):
            yield d
            continue
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if f.endswith((".cpp", ".hpp", ".cc", ".h")):
                    yield os.path.join(root, f)


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # | head
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", default=["src"])
    ap.add_argument("--max", type=int)
    ap.add_argument("--allow", default=os.path.join(os.path.dirname(__file__), "function_lengths_allow.txt"))
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    rows = []
    for p in sources(a.dirs):
        for length, name, line in functions(p):
            rows.append((length, os.path.relpath(p), name, line))
    rows.sort(key=lambda r: (-r[0], r[1], r[3]))
    if a.list or a.max is None:
        for length, p, name, line in rows:
            print(f"{length:5d}  {p}:{line}  {name}")
        return 0
    allowed = {}
    if os.path.exists(a.allow):
        for raw in open(a.allow, encoding="utf-8"):
            entry = raw.split("#", 1)[0].strip()
            if entry:
                allowed[entry] = raw.strip()
    long_ones = [r for r in rows if r[0] > a.max]
    bad = [r for r in long_ones if f"{r[1]}:{r[2]}" not in allowed]
    used = {f"{r[1]}:{r[2]}" for r in long_ones}
    stale = [e for e in allowed if e not in used]
    for length, p, name, line in bad:
        print(f"{p}:{line}: {name} is {length} lines, over {a.max} (split it by meaning, or, if it "
              f"mirrors an upstream function branch for branch, list it in {os.path.relpath(a.allow)} "
              "with the upstream commit)")
    for e in stale:
        print(f"{os.path.relpath(a.allow)}: {e} names no function over {a.max} lines: remove it")
    if not bad and not stale:
        print(f"{len(rows)} functions, none over {a.max} lines outside {len(allowed)} upstream mirror(s)")
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
