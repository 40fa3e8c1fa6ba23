#!/usr/bin/env python3
"""Joins spblk-bench's results.csv with the peers' CSV (op,matrix,width,peer,median_ms,min_ms,
preprocess_ms,status; one line per case, from the peers' own code built outside the tree) and
prints, per operation and width, the geomean of peer time / spblk time (> 1: spblk faster),
cuSPARSE time / spblk time on the same cases, and the worst cases.

    scripts/peers-compare.py results.csv peers.csv [--cases]
"""
import csv
import math
import re
import sys
from collections import defaultdict


def spblk_rows(path):
    """(op, matrix, width) -> (spblk ms, cuSPARSE ms), f32 row-major cases only."""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            m = re.fullmatch(r"f32 [NK]=(\d+)", r["variant"].strip())
            if not m or not r["spblk_ms"] or not r["cusparse_ms"]:
                continue
            out[(r["op"], r["matrix"], int(m.group(1)))] = (float(r["spblk_ms"]), float(r["cusparse_ms"]))
    return out


def peer_rows(path):
    """(op, matrix, width, peer) -> (median ms, preprocess ms), cases whose check passed."""
    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok" and r["median_ms"]:
                pre = float(r["preprocess_ms"]) if r["preprocess_ms"] else float("nan")
                out[(r["op"], r["matrix"], int(r["width"]), r["peer"])] = (float(r["median_ms"]), pre)
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    ours, peers = spblk_rows(args[0]), peer_rows(args[1])
    groups = defaultdict(list)
    for (op, mat, w, peer), (ms, pre) in peers.items():
        if (op, mat, w) in ours:
            s, c = ours[(op, mat, w)]
            groups[(op, w, peer)].append((mat, ms / s, c / s, ms, s, pre))
    print(f"{'op':6} {'width':>5} {'peer':5} {'cases':>5} {'peer/spblk':>10} {'cuSPARSE/spblk':>14}  worst (peer/spblk)")
    for key in sorted(groups):
        rows = groups[key]
        worst = ", ".join(f"{m} {r:.2f}" for m, r, *_ in sorted(rows, key=lambda x: x[1])[:3])
        print(
            f"{key[0]:6} {key[1]:5} {key[2]:5} {len(rows):5} {geomean([r[1] for r in rows]):10.2f} "
            f"{geomean([r[2] for r in rows]):14.2f}  {worst}"
        )
    missing = sorted({k[:3] for k in peers} - set(ours))
    if missing:
        print(f"{len(missing)} peer cases without a spblk case, e.g. {missing[:3]}")
    if "--cases" in sys.argv:
        print()
        print(f"{'op':6} {'width':>5} {'peer':5} {'matrix':28} {'peer ms':>9} {'spblk ms':>9} {'ratio':>6} {'peer pre ms':>11}")
        for key in sorted(groups):
            for mat, r, _, ms, s, pre in sorted(groups[key]):
                print(f"{key[0]:6} {key[1]:5} {key[2]:5} {mat:28} {ms:9.4f} {s:9.4f} {r:6.2f} {pre:11.3f}")


if __name__ == "__main__":
    main()
