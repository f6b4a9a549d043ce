#!/usr/bin/env python3
# Vendored from the shared reference tools (shared/tools/module_cycles.py), so that CI runs
# the same check on a clean clone; run by tests/run.sh (stage "architecture").
"""List import cycles between the source files of Rust crates.

Usage: module_cycles.py [--max-lines N] CRATE_SRC_DIR...
       (e.g. module_cycles.py --max-lines 800 fmu-runtime/src model-compiler/src)

A file is a node; an edge A -> B is a `use crate::x::y` / `crate::x::y` path or a
`super::`/`self::` path in A that names B's module (tests excluded: `#[cfg(test)]`
modules and files named tests*.rs). Prints every strongly connected component of two
or more files, and the largest files counted without their `#[cfg(test)]` code;
exits 1 if there is a cycle or, with --max-lines, a file longer than N such lines.
"""
import os, re, sys

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")

def modules(src):
    files = {}
    for root, _, names in os.walk(src):
        for n in names:
            if not n.endswith(".rs") or n.startswith("tests") or n == "build.rs":
                continue
            p = os.path.join(root, n)
            rel = os.path.relpath(p, src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            files[tuple(rel)] = p
    return files

def strip_tests(text):
    out, skip, depth = [], False, 0
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        l = lines[i]
        if not skip and l.strip().startswith("#[cfg(test)]"):
            skip, depth, opened = True, 0, False
            i += 1
            continue
        if skip:
            depth += l.count("{") - l.count("}")
            if "{" in l:
                opened = True
            if (opened and depth <= 0) or (not opened and l.strip().endswith(";")):
                skip = False
            i += 1
            continue
        out.append(l)
        i += 1
    return "\n".join(out)

def resolve(mods, here, kind, segs):
    if kind == "crate":
        base = []
    elif kind == "self":
        base = list(here)
    else:
        base = list(here[:-1])
    path = base + segs
    while path:
        if tuple(path) in mods:
            return tuple(path)
        path = path[:-1]
    return None

def graph(src):
    mods = modules(src)
    edges = {m: set() for m in mods}
    for m, p in mods.items():
        text = strip_tests(open(p, encoding="utf-8", errors="replace").read())
        text = re.sub(r"//[^\n]*", "", text)
        # `use a::{b, c::d}` groups: expand the first level of braces
        for g in re.finditer(r"\b(crate|super|self)((?:::[A-Za-z_]\w*)*)::\{([^{}]*)\}", text):
            for item in g.group(3).split(","):
                item = item.strip().split(" as ")[0].strip()
                if not item or item == "self":
                    continue
                segs = [s for s in (g.group(2) + "::" + item).split("::") if s]
                t = resolve(mods, m, g.group(1), segs)
                if t and t != m:
                    edges[m].add(t)
        for u in PATH.finditer(text):
            segs = [s for s in u.group(2).split("::") if s]
            t = resolve(mods, m, u.group(1), segs)
            if t and t != m:
                edges[m].add(t)
    return mods, edges

def sccs(edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1
        stack.append(v); on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)
    for v in edges:
        if v not in index:
            visit(v)
    return out

def code_lines(p):
    return len(strip_tests(open(p, encoding="utf-8", errors="replace").read()).splitlines())

def main():
    args, limit = sys.argv[1:], None
    if args[:1] == ["--max-lines"]:
        limit, args = int(args[1]), args[2:]
    found, long = 0, 0
    for src in args or ["."]:
        mods, edges = graph(src)
        for comp in sccs(edges):
            found += 1
            names = sorted("/".join(c) or "lib" for c in comp)
            print(f"{src}: cycle of {len(comp)} files: " + ", ".join(names))
        sizes = sorted(((code_lines(p), p) for p in mods.values()), reverse=True)
        print(f"{src}: largest files (non-test lines): " + ", ".join(f"{os.path.relpath(p, src)} {n}" for n, p in sizes[:5]))
        if limit is not None:
            over = [(n, p) for n, p in sizes if n > limit]
            long += len(over)
            for n, p in over:
                print(f"{src}: over {limit} lines: {os.path.relpath(p, src)} {n}")
    print(f"{found} import cycle(s)" + (f", {long} file(s) over {limit} lines" if limit is not None else ""))
    sys.exit(1 if found or long else 0)

if __name__ == "__main__":
    main()
