#!/usr/bin/env python3
"""Plot `spblk-bench --vbr` results: speed-up of spblk's VBR SpMM over another library
against the in-block density rho (log x), one curve per (theta, N), one panel per
(n, precision). Python 3 standard library only; writes an SVG.

    python3 scripts/plot-vbr.py OUT/vbr.csv                 # -> OUT/vbr-speedup-cusparse.svg
    python3 scripts/plot-vbr.py OUT/vbr.csv --vs csr -o x.svg
    python3 scripts/plot-vbr.py A/vbr.csv B/vbr.csv -o all.svg   # several runs together

--vs: cusparse (default; cuSPARSE time / VBR time), csr (spblk CSR_ALG1 / VBR), cublas
(cuBLAS dense GEMM / VBR) or default (spblk ALG_DEFAULT / VBR). Only the synthetic
A(Delta, theta, rho) rows are plotted (Matrix Market rows have no theta/rho). Points where
either time is missing (VBR n/a before its kernel exists, skipped, failed) are left out; a
panel without any point says so.
"""

import argparse
import csv
import math
import os
import sys
from collections import defaultdict

COLUMN = {
    "cusparse": ("speedup_vs_cusparse", "cuSPARSE CSR SpMM"),
    "csr": ("speedup_vs_csr", "spblk CSR_ALG1"),
    "cublas": ("speedup_vs_cublas", "cuBLAS dense GEMM"),
    "default": (None, "spblk ALG_DEFAULT"),
}

# Colour per theta (colour-blind-safe Okabe-Ito), dash per N.
COLOURS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]
DASHES = ["", "6,3", "2,3", "8,3,2,3", "1,2"]
MARKERS = ["circle", "square", "triangle", "diamond", "circle"]

PANEL_W, PANEL_H = 360, 260
MARGIN_L, MARGIN_R, MARGIN_T, MARGIN_B = 62, 16, 34, 48


def num(s):
    try:
        x = float(s)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fmt_tick(v):
    if v >= 1 and abs(v - round(v)) < 1e-9:
        return str(int(round(v)))
    return ("%g" % v)


def log_ticks(lo, hi, dense):
    """Ticks 1, 2, 5 × 10^k (or only 10^k) within [lo, hi]."""
    out = []
    k = math.floor(math.log10(lo)) - 1
    while 10 ** k <= hi * 1.0001:
        for m in ((1, 2, 5) if dense else (1,)):
            v = m * 10 ** k
            if lo * 0.9999 <= v <= hi * 1.0001:
                out.append(v)
        k += 1
    return out


def speedup(row, vs):
    col, _ = COLUMN[vs]
    if col:
        return num(row.get(col))
    d, v = num(row.get("default_ms")), num(row.get("vbr_ms"))
    return d / v if d and v else None


def load(paths, vs):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            part = list(csv.DictReader(f))
        if part and "speedup_vs_cusparse" not in part[0]:
            sys.exit(f"{path}: not a spblk-bench --vbr CSV (no speedup_vs_cusparse column)")
        rows.extend(part)
    panels = defaultdict(lambda: defaultdict(list))  # (n, prec) -> (theta, N) -> [(rho, s)]
    all_synthetic = 0
    for r in rows:
        theta, rho = num(r.get("theta")), num(r.get("rho"))
        if theta is None or rho is None:
            continue
        all_synthetic += 1
        key = (int(r["rows"]), r["precision"])
        curve = panels[key][(theta, int(r["N"]))]
        s = speedup(r, vs)
        if s is not None and s > 0:
            curve.append((rho, s))
    return panels, all_synthetic, len(rows)


def render(panels, vs, title):
    prec_order = {"f16": 0, "bf16": 1, "f32": 2, "tf32": 3}
    ns = sorted({k[0] for k in panels})
    precs = sorted({k[1] for k in panels}, key=lambda p: prec_order.get(p, 9))
    thetas = sorted({c[0] for p in panels.values() for c in p})
    widths = sorted({c[1] for p in panels.values() for c in p})
    points = [pt for p in panels.values() for c in p.values() for pt in c]
    all_rho = sorted({x for x, _ in points}) or [0.01, 0.5]
    sps = [y for _, y in points] or [1.0]
    xlo, xhi = min(all_rho) / 1.3, max(all_rho) * 1.3
    # y: log, padded, at half-decade bounds, always showing 1.
    ymin, ymax = min(min(sps), 1.0), max(max(sps), 1.0)
    ylo = 10 ** (math.floor(math.log10(ymin / 1.3) * 2) / 2)
    yhi = 10 ** (math.ceil(math.log10(ymax * 1.3) * 2) / 2)

    cols, rows_ = max(len(precs), 1), max(len(ns), 1)
    legend_h = 28 + 18 * max(len(thetas), len(widths))
    W = cols * PANEL_W + 20
    H = 50 + rows_ * PANEL_H + legend_h
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="12">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{W / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">{esc(title)}</text>',
    ]

    def px(x, x0, pw):
        return x0 + (math.log10(x) - math.log10(xlo)) / (math.log10(xhi) - math.log10(xlo)) * pw

    def py(y, y0, ph):
        return y0 + ph - (math.log10(y) - math.log10(ylo)) / (math.log10(yhi) - math.log10(ylo)) * ph

    xt = [v for v in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0) if xlo <= v <= xhi] or log_ticks(xlo, xhi, True)
    dense_y = math.log10(yhi / ylo) <= 2.5
    yt = log_ticks(ylo, yhi, dense_y)
    for ri, n in enumerate(ns):
        for ci, prec in enumerate(precs):
            ox, oy = 10 + ci * PANEL_W, 40 + ri * PANEL_H
            x0, y0 = ox + MARGIN_L, oy + MARGIN_T
            pw, ph = PANEL_W - MARGIN_L - MARGIN_R, PANEL_H - MARGIN_T - MARGIN_B
            out.append(f'<text x="{x0 + pw / 2}" y="{oy + 20}" text-anchor="middle" font-size="13" '
                       f'font-weight="bold">n = {n}, {esc(prec)}</text>')
            out.append(f'<rect x="{x0}" y="{y0}" width="{pw}" height="{ph}" fill="none" stroke="#444"/>')
            for v in xt:
                X = px(v, x0, pw)
                out.append(f'<line x1="{X:.1f}" y1="{y0}" x2="{X:.1f}" y2="{y0 + ph}" stroke="#e4e4e4"/>')
                out.append(f'<text x="{X:.1f}" y="{y0 + ph + 15}" text-anchor="middle">{fmt_tick(v)}</text>')
            for v in yt:
                Y = py(v, y0, ph)
                out.append(f'<line x1="{x0}" y1="{Y:.1f}" x2="{x0 + pw}" y2="{Y:.1f}" stroke="#e4e4e4"/>')
                out.append(f'<text x="{x0 - 5}" y="{Y + 4:.1f}" text-anchor="end">{fmt_tick(v)}</text>')
            Y1 = py(1.0, y0, ph)
            out.append(f'<line x1="{x0}" y1="{Y1:.1f}" x2="{x0 + pw}" y2="{Y1:.1f}" stroke="#222" '
                       'stroke-width="1.2" stroke-dasharray="3,3"/>')
            out.append(f'<text x="{x0 + pw / 2}" y="{y0 + ph + 34}" text-anchor="middle">'
                       'generator density ρ inside blocks (log)</text>')
            out.append(f'<text transform="translate({ox + 16},{y0 + ph / 2}) rotate(-90)" text-anchor="middle">'
                       'speed-up of VBR (log)</text>')
            curves = panels.get((n, prec), {})
            drawn = 0
            for (theta, N), pts in sorted(curves.items()):
                pts = sorted(pts)
                if not pts:
                    continue
                drawn += 1
                colour = COLOURS[thetas.index(theta) % len(COLOURS)]
                dash = DASHES[widths.index(N) % len(DASHES)]
                coords = " ".join(f"{px(x, x0, pw):.1f},{py(y, y0, ph):.1f}" for x, y in pts)
                da = f' stroke-dasharray="{dash}"' if dash else ""
                out.append(f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"{da}>'
                           f'<title>θ = {theta}, N = {N}</title></polyline>')
                for x, y in pts:
                    out.append(marker(px(x, x0, pw), py(y, y0, ph), widths.index(N), colour,
                                      f"θ = {theta}, N = {N}, ρ = {x}: {y:.3g}×"))
            if drawn == 0:
                out.append(f'<text x="{x0 + pw / 2}" y="{y0 + ph / 4}" text-anchor="middle" fill="#888">'
                           'no VBR timings (n/a, skipped or failed)</text>')

    # Legend: colours = theta, dashes/markers = N.
    ly = 50 + rows_ * PANEL_H
    out.append(f'<text x="20" y="{ly + 14}" font-weight="bold">θ (fraction of nonzero blocks)</text>')
    for i, t in enumerate(thetas):
        y = ly + 32 + 18 * i
        c = COLOURS[i % len(COLOURS)]
        out.append(f'<line x1="20" y1="{y - 4}" x2="52" y2="{y - 4}" stroke="{c}" stroke-width="3"/>')
        out.append(f'<text x="58" y="{y}">θ = {t}</text>')
    lx = 260
    out.append(f'<text x="{lx}" y="{ly + 14}" font-weight="bold">N (columns of B and C)</text>')
    for i, N in enumerate(widths):
        y = ly + 32 + 18 * i
        dash = DASHES[i % len(DASHES)]
        da = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{lx}" y1="{y - 4}" x2="{lx + 32}" y2="{y - 4}" stroke="#333" stroke-width="2"{da}/>')
        out.append(marker(lx + 16, y - 4, i, "#333", f"N = {N}"))
        out.append(f'<text x="{lx + 40}" y="{y}">N = {N}</text>')
    out.append(f'<text x="520" y="{ly + 14}" font-weight="bold">dashed black line: speed-up 1</text>')
    out.append(f'<text x="520" y="{ly + 32}">above it VBR is faster than {esc(COLUMN[vs][1])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def marker(x, y, i, colour, title):
    kind = MARKERS[i % len(MARKERS)]
    t = f"<title>{esc(title)}</title>"
    if kind == "square":
        return f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="{colour}">{t}</rect>'
    if kind == "triangle":
        return (f'<polygon points="{x:.1f},{y - 4.5:.1f} {x - 4.5:.1f},{y + 3.5:.1f} {x + 4.5:.1f},{y + 3.5:.1f}" '
                f'fill="{colour}">{t}</polygon>')
    if kind == "diamond":
        return (f'<polygon points="{x:.1f},{y - 5:.1f} {x + 4.5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x - 4.5:.1f},{y:.1f}" '
                f'fill="{colour}">{t}</polygon>')
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{colour}">{t}</circle>'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", nargs="+", help="vbr.csv written by spblk-bench --vbr --out DIR (one or more)")
    ap.add_argument("--vs", choices=sorted(COLUMN), default="cusparse",
                    help="the library VBR is compared with (default cusparse)")
    ap.add_argument("-o", "--out", help="SVG to write (default: vbr-speedup-VS.svg beside the CSV)")
    ap.add_argument("--title", help="plot title")
    a = ap.parse_args()
    panels, synthetic, total = load(a.csv, a.vs)
    if synthetic == 0:
        sys.exit(f"{', '.join(a.csv)}: {total} rows, none synthetic (no theta/rho): nothing to plot")
    out = a.out or os.path.join(os.path.dirname(os.path.abspath(a.csv[0])), f"vbr-speedup-{a.vs}.svg")
    title = a.title or f"spblk VBR (1-SA) SpMM: speed-up over {COLUMN[a.vs][1]} (time ratio)"
    with open(out, "w") as f:
        f.write(render(panels, a.vs, title))
    points = sum(len(c) for p in panels.values() for c in p.values())
    print(f"{out}: {len(panels)} panels, {points} points from {synthetic} synthetic rows")


if __name__ == "__main__":
    main()
