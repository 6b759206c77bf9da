#!/usr/bin/env python3
"""Which file of src/fs/ (or another folder of src/) calls (or reads data)
defined in which other one, from the object files of a build (nm), and the
strongly connected components of that graph: files that reach each other
through calls must be read together.

usage: scripts/fs-deps.py [BUILD_DIR] [--symbols] [--dir=DIR]
  BUILD_DIR   a CMake build of the core (default: build)
  --symbols   list the symbols behind every edge
  --dir=DIR   the folder of src/ (default: fs; e.g. nand)
"""
import os
import subprocess
import sys

args = [a for a in sys.argv[1:] if not a.startswith("--")]
symbols = "--symbols" in sys.argv[1:]
folder = next((a[len("--dir="):] for a in sys.argv[1:] if a.startswith("--dir=")), "fs")
build = args[0] if args else "build"
objdir = os.path.join(build, "src", "CMakeFiles", "nandkit_core_objects.dir", folder)
if not os.path.isdir(objdir):
    sys.exit("fs-deps: no object files in %s (build the core first)" % objdir)

defined, used = {}, {}
for obj in sorted(os.listdir(objdir)):
    if not obj.endswith((".c.o", ".c.obj")):
        continue
    name = obj[: obj.rindex(".c.") + 2]
    used[name] = set()
    out = subprocess.run(["nm", os.path.join(objdir, obj)], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":
            defined[parts[2]] = name
        elif len(parts) == 2 and parts[0] == "U":
            used[name].add(parts[1])

edges = {n: sorted({defined[s] for s in used[n] if defined.get(s, n) != n}) for n in used}
for n in sorted(edges):
    print("%-14s -> %s" % (n, " ".join(edges[n])))
    if symbols:
        for t in edges[n]:
            print("    %s: %s" % (t, " ".join(sorted(s for s in used[n] if defined.get(s) == t))))
print("edges: %d" % sum(len(v) for v in edges.values()))

# Tarjan's algorithm, iteratively.
index, low, on_stack, stack, components = {}, {}, set(), [], []
for root in sorted(edges):
    if root in index:
        continue
    work = [(root, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = len(index)
            stack.append(v)
            on_stack.add(v)
        for j in range(i, len(edges[v])):
            w = edges[v][j]
            if w not in index:
                work.append((v, j + 1))
                work.append((w, 0))
                break
            if w in on_stack:
                low[v] = min(low[v], index[w])
        else:
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                components.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
for component in sorted(components, key=len, reverse=True):
    if len(component) > 1:
        print("cycle of %d: %s" % (len(component), " ".join(component)))
