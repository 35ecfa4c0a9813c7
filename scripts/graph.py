#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""make graph: the kernel files of dm-ressd, what each owns, and who calls whom.

For each kernel source file: its line count and the first sentence of its
opening essay; then the call graph between the files (an edge a -> b when a
calls a function defined in b, with those functions named), the include
graph, and whether either graph has a cycle.  Exits 1 on a cycle.

It reads the sources as text: a function belongs to the file that defines it
at the start of a line (kernel style), and a call is its name followed by
"(" outside comments and strings.  Functions defined inline in a header
belong to the header.
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ["dm-ressd.c", "dm-ressd-log.c", "dm-ressd-mover.c", "dm-ressd-meta.c",
         "dm-ressd-format.c", "dm-ressd-rbtree.c", "dm-ressd-plan.c",
         "dm-ressd-csum.c"]
HEADERS = ["dm-ressd.h", "dm-ressd-codec.h", "dm-ressd-index.h", "dm-ressd-format.h",
           "dm-ressd-limits.h", "dm-ressd-plan.h", "compat.h"]


def strip(text):
    """The text with comments, strings and character constants blanked."""
    out = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    out = re.sub(r"//[^\n]*", "", out)
    out = re.sub(r'"(\\.|[^"\\\n])*"', '""', out)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", out)


DEF = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;{]*?\)\s*(?:__\w+\([^)]*\)\s*)?\{", re.M | re.S)
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined"}


def essay(text):
    """The first sentence of the file's opening comment."""
    m = re.search(r"/\*\n((?: \*.*\n)+?) \*(?:/|\n)", text)
    if not m:
        return ""
    words = " ".join(l.lstrip(" *") for l in m.group(1).splitlines()).split()
    sentence = " ".join(words)
    end = re.search(r"\.(\s|$)", sentence)
    return sentence[:end.start() + 1] if end else sentence


def main():
    src = {f: open(os.path.join(TOP, f)).read() for f in FILES}
    code = {f: strip(t) for f, t in src.items()}
    owner = {}
    for f in FILES:
        for m in DEF.finditer(code[f]):
            name = m.group(1)
            if name not in KEYWORDS:
                owner.setdefault(name, f)
    calls = {f: {} for f in FILES}
    for f in FILES:
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", code[f]):
            g = owner.get(m.group(1))
            if g and g != f:
                calls[f].setdefault(g, set()).add(m.group(1))
    includes = {}
    for f in FILES + HEADERS:
        text = open(os.path.join(TOP, f)).read()
        includes[f] = [i for i in re.findall(r'#include "([^"]+)"', text)]

    print("kernel files (lines, what each owns):")
    for f in FILES + HEADERS:
        text = open(os.path.join(TOP, f)).read()
        print(f"  {f:20} {text.count(chr(10)):5}  {essay(text)}")
    print("\ncalls between files (a -> b: a calls these functions of b):")
    for f in FILES:
        for g in sorted(calls[f], key=FILES.index):
            names = sorted(calls[f][g])
            shown = ", ".join(names[:6]) + (f", ... ({len(names)})" if len(names) > 6 else "")
            print(f"  {f:18} -> {g:18} {shown}")
    print("\nincludes:")
    for f in FILES + HEADERS:
        if includes[f]:
            print(f"  {f:18} -> {', '.join(includes[f])}")

    bad = 0
    for name, graph in (("call", {f: set(calls[f]) for f in FILES}),
                        ("include", {f: set(includes[f]) for f in includes})):
        cycle = find_cycle(graph)
        if cycle:
            print(f"\n{name} graph: CYCLE {' -> '.join(cycle)}")
            bad = 1
        else:
            print(f"\n{name} graph: no cycle")
    # The one upcall the design allows: the mode latch, in dm-ressd.c.
    up = {f: calls[f].get("dm-ressd.c", set()) for f in FILES if f != "dm-ressd.c"}
    for f, names in up.items():
        extra = names - {"ressd_set_mode"}
        if extra:
            print(f"upcall from {f} into dm-ressd.c beyond the mode latch: {', '.join(sorted(extra))}")
            bad = 1
    return bad


def find_cycle(graph, ignore_upcall=True):
    """A cycle in @graph (a list of nodes), or None.  The mode latch
    (ressd_set_mode, any file -> dm-ressd.c) is the allowed upcall and is
    left out when @ignore_upcall."""
    g = {a: set(b) for a, b in graph.items()}
    if ignore_upcall:
        for a in g:
            if a != "dm-ressd.c":
                g[a].discard("dm-ressd.c")
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(g.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if not state.get(m):
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(g):
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None


if __name__ == "__main__":
    sys.exit(main())
