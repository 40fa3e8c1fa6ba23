#!/usr/bin/env python3
"""Compares two outputs of gpu_program.c (NVIDIA's library, spblk's): every result line must
be present in both, integers equal, sums equal within 1e-5 of the sum of magnitudes (the
weighted sum within 1e-5 of 97 times it: summation orders differ between the libraries).

    python3 compare-runs.py nvidia.txt spblk.txt
"""
import re
import sys


def results(path):
    out = {}
    for line in open(path):
        m = re.match(r"^(\w+) n=(\d+) (.*)$", line.strip())
        if m:
            out[m.group(1)] = (int(m.group(2)), dict(kv.split("=") for kv in m.group(3).split()))
        elif line.startswith(("spgemm size", "cusparseGetVersion", "dense_to_sparse size", "sparse_to_dense padding", "csrgeam2 nnz")):
            out[line.split()[0] + " " + line.split()[1]] = (0, {"line": line.strip()})
    return out


def main():
    a, b = results(sys.argv[1]), results(sys.argv[2])
    bad = []
    if set(a) != set(b) or not a:
        bad.append("different result lines: %s vs %s" % (sorted(a), sorted(b)))
    for name in sorted(set(a) & set(b)):
        (na, va), (nb, vb) = a[name], b[name]
        if na != nb or va.keys() != vb.keys():
            bad.append("%s: n or fields differ" % name)
            continue
        if "asum" in va:
            scale = max(float(va["asum"]), 1e-30)
            for key, factor in (("sum", 1.0), ("wsum", 97.0)):
                if abs(float(va[key]) - float(vb[key])) > 1e-5 * factor * scale:
                    bad.append("%s %s: %s vs %s" % (name, key, va[key], vb[key]))
        elif va != vb:
            bad.append("%s: %s vs %s" % (name, va, vb))
    for line in bad:
        print("DIFFERENT:", line)
    print("%s: %d result lines compared" % ("FAILED" if bad else "SAME", len(a)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
