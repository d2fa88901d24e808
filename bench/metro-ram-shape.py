#!/usr/bin/env python3
"""The benchmark's Metro-scale index map as Metro lays out a RAM bundle, beside an unnested control, and one 50-frame
trace for each (docs/PERFORMANCE.md, "Metro's RAM bundles and segments").

    cargo run --release -p sourcemap-fixtures --bin gen-fixtures -- --sources-content
    python3 bench/metro-ram-shape.py fixtures/generated/metro/bundle.js.map OUT_DIR

Writes OUT_DIR/ram.map (the first 100 sections as the startup code's index map nested in section 0, the other
16,400 as modules placed by x_facebook_offsets), OUT_DIR/plain.map (the same map unnested, written by the same
json.dump so that both escape their strings alike), OUT_DIR/ram50.txt (50 frames `at f (N.js:L:C)` in modules) and
OUT_DIR/plain50.txt (the same 50 at their absolute lines in `bundle.js`).
"""
import json
import os
import random
import sys

source, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
m = json.load(open(source))
sections = m["sections"]
startup = sections[:100]
base = startup[0]["offset"]
nested = {"version": 3, "sections": [
    {"offset": {"line": s["offset"]["line"] - base["line"], "column": s["offset"]["column"]}, "map": s["map"]}
    for s in startup]}
offsets = [None] * len(sections)
for i, s in enumerate(sections[100:]):
    offsets[i] = s["offset"]["line"]
ram = {"version": 3, "sections": [{"offset": base, "map": nested}] + sections[100:], "x_facebook_offsets": offsets}
json.dump(ram, open(os.path.join(out, "ram.map"), "w"), separators=(",", ":"))
json.dump(m, open(os.path.join(out, "plain.map"), "w"), separators=(",", ":"))

random.seed(3)
ids = [i for i, o in enumerate(offsets) if o is not None]
ram_trace, plain_trace = ["Error: x"], ["Error: x"]
for _ in range(50):
    i = random.choice(ids[:-1])
    start, following = offsets[i], offsets[i + 1]
    line, column = random.randint(1, max(1, following - start)), random.randint(1, 60)
    ram_trace.append(f"    at f ({i}.js:{line}:{column})")
    plain_trace.append(f"    at f (bundle.js:{start + line}:{column})")
open(os.path.join(out, "ram50.txt"), "w").write("\n".join(ram_trace) + "\n")
open(os.path.join(out, "plain50.txt"), "w").write("\n".join(plain_trace) + "\n")
