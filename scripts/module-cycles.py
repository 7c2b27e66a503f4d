#!/usr/bin/env python3
"""Module graph of src/domain/contradiction and its cycles.

Reads each top-level module file (foo.rs; a foo/ folder's files belong to foo), drops
`#[cfg(test)]` items and blocks, and records every `super::X` and `use super::{X, ...}`
reference to a sibling module. Prints the graph and its strongly connected components;
exits 1 when any cycle spans two or more files.
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "domain", "contradiction"))


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    out = []
    for line in src.splitlines():
        # Drop // comments (a crude scan that respects string literals).
        in_str = False
        i = 0
        cut = len(line)
        while i < len(line):
            c = line[i]
            if c == "\\" and in_str:
                i += 2
                continue
            if c == '"':
                in_str = not in_str
            elif not in_str and line.startswith("//", i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


def strip_strings(src):
    src = re.sub(r'r#*"(?:.|\n)*?"#*', '""', src)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', src)


def drop_cfg_test(src):
    """Remove every item that follows `#[cfg(test)]`: up to its `;` or its matching `}`."""
    out = []
    i = 0
    pat = re.compile(r"#\[cfg\(test\)\]")
    while True:
        m = pat.search(src, i)
        if not m:
            out.append(src[i:])
            break
        out.append(src[i:m.start()])
        j = m.end()
        depth = 0
        while j < len(src):
            c = src[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif c == ";" and depth == 0:
                j += 1
                break
            j += 1
        i = j
    return "".join(out)


def modules():
    mods = {}
    for name in sorted(os.listdir(ROOT)):
        path = os.path.join(ROOT, name)
        if name.endswith(".rs") and name != "mod.rs":
            mods.setdefault(name[:-3], []).append(path)
    for name in sorted(os.listdir(ROOT)):
        path = os.path.join(ROOT, name)
        if os.path.isdir(path) and name in mods:
            for dirpath, _, files in os.walk(path):
                for f in sorted(files):
                    if f.endswith(".rs"):
                        mods[name].append(os.path.join(dirpath, f))
    return mods


def references(text, names, nested):
    """Sibling modules named in `text`: `super::X` from a top-level file, `super::super::X`
    from a file in a module's folder, and `crate::domain::contradiction::X` from either."""
    text = drop_cfg_test(strip_strings(strip_comments(text)))
    prefix = r"(?:\bsuper::super::|\bcrate::domain::contradiction::)" if nested else \
        r"(?:(?<!::)\bsuper::|\bcrate::domain::contradiction::)"
    found = set()
    for m in re.finditer(prefix + r"(\w+)", text):
        found.add(m.group(1))
    for m in re.finditer(prefix + r"\{([^}]*)\}", text):
        for part in m.group(1).split(","):
            head = part.strip().split("::")[0].strip()
            if head:
                found.add(head)
    return {n for n in found if n in names}


def is_test_file(path):
    base = os.path.basename(path)
    return base == "tests.rs" or base.startswith("tests_")


def sccs(graph):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    mods = modules()
    names = {m for m in mods if not m.startswith("tests")}
    graph = {}
    for name in sorted(names):
        refs = set()
        for path in mods[name]:
            if is_test_file(path):
                continue
            with open(path, encoding="utf-8") as f:
                nested = os.path.dirname(path) != os.path.normpath(ROOT)
                refs |= references(f.read(), names, nested)
        refs.discard(name)
        graph[name] = refs
    for name in sorted(graph):
        deps = " ".join(sorted(graph[name])) or "(none)"
        print(f"{name} -> {deps}")
    cycles = [c for c in sccs(graph) if len(c) > 1]
    if cycles:
        print("cycles:")
        for c in sorted(cycles, key=lambda c: (-len(c), c)):
            print("  {" + ", ".join(c) + "}")
        return 1
    print("cycles: none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
