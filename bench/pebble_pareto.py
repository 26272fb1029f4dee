#!/usr/bin/env python3
"""The Pareto picture of the pebble mesher's element count against its quality: elements per
pebble (bulk) against the worst Nek5000 scaled Jacobian and against the largest aspect ratio,
one point per flag set, the swept layers and --contact-layers one apart, as meshed and after
the optimizer. Reads a CSV of measured points (bench/data/pebble_pareto_pb67.csv: how each was
measured is in its header) and writes a PNG (matplotlib).

  python3 bench/pebble_pareto.py [CSV] [PNG]
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

src = sys.argv[1] if len(sys.argv) > 1 else "bench/data/pebble_pareto_pb67.csv"
dst = sys.argv[2] if len(sys.argv) > 2 else "docs/img/pebble-pareto.png"
with open(src) as f:
    rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
fig, ax = plt.subplots(1, 2, figsize=(11, 4.6))
style = {("swept", "meshed"): ("o", "none", "C0"), ("one", "meshed"): ("s", "none", "C3"),
         ("swept", "optimized"): ("o", "C0", "C0"), ("one", "optimized"): ("s", "C3", "C3")}
label = {"swept": "swept layers", "one": "--contact-layers one"}
seen = set()
for r in rows:
    key = (r["topology"], r["state"])
    m, face, edge = style[key]
    lab = None if key in seen else f"{label[key[0]]}, {key[1]}"
    seen.add(key)
    x = float(r["per_pebble"])
    for k, (col, logy) in enumerate((("sj_min", False), ("aspect_max", True))):
        ax[k].plot(x, float(r[col]), m, mfc=face, mec=edge, ms=8, mew=1.5, label=lab if k == 0 else None)
        ax[k].annotate(r["flags"].replace("--", ""), (x, float(r[col])), fontsize=6.5, xytext=(4, 3),
                       textcoords="offset points", color="0.35")
for k, (goal, name) in enumerate(((0.3, "min Nek scaled Jacobian (goal >= 0.3)"), (20, "max aspect ratio (goal <= 20)"))):
    ax[k].axhline(goal, color="0.5", ls="--", lw=1)
    for lim in (450, 600):
        ax[k].axvline(lim, color="0.7", ls=":", lw=1)
    ax[k].set_xlabel("elements per pebble (bulk; goals 450 on 300+ beds, 600 on pb67)")
    ax[k].set_ylabel(name)
    ax[k].set_xscale("log")
    ax[k].grid(alpha=0.3, which="both")
ax[1].set_yscale("log")
ax[0].legend(fontsize=7, loc="lower right")
fig.suptitle("pb67 in its cylinder at N = 7: element count against quality", fontsize=10)
fig.tight_layout()
fig.savefig(dst, dpi=110)
print("wrote", dst)
