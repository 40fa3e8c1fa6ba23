//! 1-SA blocking curves on the paper's synthetic matrices A(Δ, θ, ρ), plus an optional
//! speed comparison of the fast grouping against the serial reference.
//!
//! ```text
//! spblk-1sa-curves [--out DIR] [--n N] [--delta D] [--theta T]
//!                  [--similarity jaccard|cosine] [--speed]
//! ```
//! Writes `DIR/one-sa-curves.csv` and `DIR/one-sa-curves.svg` (ΔH' against ρ', one curve
//! per ρ, τ = 0.1 … 1.0 along each curve).

use spblk::analysis::one_sa::gen;
use spblk::analysis::one_sa::*;
use std::fmt::Write as _;
use std::time::Instant;

const RHOS: [f64; 6] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5];
const COLORS: [&str; 6] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];

struct Args {
    out: String,
    n: usize,
    delta: usize,
    theta: f64,
    similarity: Similarity,
    speed: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args { out: ".".into(), n: 8192, delta: 64, theta: 0.1, similarity: Similarity::Jaccard, speed: false };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--out" => a.out = val()?,
            "--n" => a.n = val()?.parse().map_err(|e| format!("--n: {e}"))?,
            "--delta" => a.delta = val()?.parse().map_err(|e| format!("--delta: {e}"))?,
            "--theta" => a.theta = val()?.parse().map_err(|e| format!("--theta: {e}"))?,
            "--similarity" => {
                a.similarity = match val()?.as_str() {
                    "jaccard" => Similarity::Jaccard,
                    "cosine" => Similarity::Cosine,
                    s => return Err(format!("unknown similarity {s}")),
                }
            }
            "--speed" => a.speed = true,
            "-h" | "--help" => {
                println!(
                    "usage: spblk-1sa-curves [--out DIR] [--n N] [--delta D] [--theta T] \
                     [--similarity jaccard|cosine] [--speed]"
                );
                std::process::exit(0);
            }
            f => return Err(format!("unknown flag {f}")),
        }
    }
    if a.n == 0 || a.delta == 0 || !(a.theta > 0.0 && a.theta <= 1.0) {
        return Err("need n >= 1, delta >= 1, 0 < theta <= 1".into());
    }
    Ok(a)
}

struct Point {
    rho: f64,
    tau: f64,
    groups: usize,
    dh: f64,
    rho_p: f64,
    secs: f64,
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    std::fs::create_dir_all(&args.out).expect("create --out");
    println!(
        "# 1-SA on A(Δ={}, θ={}, ρ), n = {}, ΔW = {}, {:?}, TwoStep, rows scrambled, {} threads",
        args.delta,
        args.theta,
        args.n,
        args.delta,
        args.similarity,
        rayon::current_num_threads()
    );
    println!("{:>6} {:>5} {:>7} {:>8} {:>8} {:>7} {:>9}", "rho", "tau", "groups", "dH'", "rho'", "rho'/rho", "time_s");
    let mut pts = Vec::new();
    for (ri, &rho) in RHOS.iter().enumerate() {
        let (rp, ci) = gen::block_structured(args.n, args.delta, args.theta, rho, 1000 + ri as u64);
        let p = CsrPattern { rows: args.n, cols: args.n, row_ptr: &rp, col_idx: &ci };
        let vals = vec![1.0f32; ci.len()];
        for t in 1..=10 {
            let tau = t as f64 / 10.0;
            let prm = OneSaParams { block_width: args.delta, tau, similarity: args.similarity, ..Default::default() };
            let s = analyze(&p, &vals, &prm).stats;
            println!(
                "{:>6} {:>5.1} {:>7} {:>8.2} {:>8.4} {:>7.3} {:>9.4}",
                rho,
                tau,
                s.groups,
                s.avg_block_height,
                s.in_block_density,
                s.in_block_density / rho,
                s.analysis_seconds
            );
            pts.push(Point {
                rho,
                tau,
                groups: s.groups,
                dh: s.avg_block_height,
                rho_p: s.in_block_density,
                secs: s.analysis_seconds,
            });
        }
    }
    let mut csv = String::from("rho,tau,groups,avg_block_height,in_block_density,density_ratio,seconds\n");
    for p in &pts {
        let _ = writeln!(
            csv,
            "{},{:.1},{},{:.4},{:.6},{:.4},{:.6}",
            p.rho,
            p.tau,
            p.groups,
            p.dh,
            p.rho_p,
            p.rho_p / p.rho,
            p.secs
        );
    }
    let csv_path = format!("{}/one-sa-curves.csv", args.out);
    std::fs::write(&csv_path, csv).expect("write csv");
    let svg_path = format!("{}/one-sa-curves.svg", args.out);
    std::fs::write(&svg_path, svg(&pts, &args)).expect("write svg");
    println!("wrote {csv_path} and {svg_path}");
    if args.speed {
        speed(&args);
    }
}

fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..reps {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    (best, last.unwrap())
}

fn speed(args: &Args) {
    println!(
        "\n# speed: group_rows (fast, {} threads) vs group_rows_reference (serial), best of runs",
        rayon::current_num_threads()
    );
    println!(
        "{:>6} {:>5} {:>8} {:>7} {:>11} {:>11} {:>9}",
        "rho", "tau", "classes", "groups", "ref_s", "fast_s", "speedup"
    );
    for &rho in &[0.2, 0.01] {
        let (rp, ci) = gen::block_structured(args.n, args.delta, args.theta, rho, 7);
        let p = CsrPattern { rows: args.n, cols: args.n, row_ptr: &rp, col_idx: &ci };
        for &tau in &[0.3, 0.5, 0.9] {
            let prm = OneSaParams { block_width: args.delta, tau, similarity: args.similarity, ..Default::default() };
            let (tr, gr) = best_of(2, || group_rows_reference(&p, &prm));
            let (tf, gf) = best_of(5, || group_rows(&p, &prm));
            assert_eq!(gr, gf, "fast and reference groupings differ");
            // Number of distinct quotient rows, for context.
            let mut q: Vec<Vec<usize>> = (0..p.rows)
                .map(|i| {
                    let mut v: Vec<usize> = ci[rp[i]..rp[i + 1]].iter().map(|&c| c / args.delta).collect();
                    v.dedup();
                    v
                })
                .collect();
            q.sort_unstable();
            q.dedup();
            println!(
                "{:>6} {:>5.1} {:>8} {:>7} {:>11.5} {:>11.5} {:>8.1}x",
                rho,
                tau,
                q.len(),
                gf.groups(),
                tr,
                tf,
                tr / tf
            );
        }
    }
    // 2^20 rows, ~2^24 nonzeros. (a) block-structured A(64, θ, ρ) with θ = 1/4096 and
    // ρ = 1/16 (about 16 nonzeros per row); (b) the power-law generator (hub columns plus
    // local windows), the hard case for the exact candidate filter, run at τ = 0.9 only.
    let rows = 1usize << 20;
    let cases: [(&str, f64); 2] = [("block-structured", 0.0), ("power-law", 0.9)];
    for (name, alpha) in cases {
        let t = Instant::now();
        let (rp, ci) = if alpha == 0.0 {
            gen::block_structured(rows, 64, 1.0 / 4096.0, 1.0 / 16.0, 98)
        } else {
            gen::power_law(rows, rows, 1 << 24, alpha, 99)
        };
        let tg = t.elapsed().as_secs_f64();
        let p = CsrPattern { rows, cols: rows, row_ptr: &rp, col_idx: &ci };
        println!("\n# {name} matrix: {rows} x {rows}, {} nnz (generated in {tg:.2} s)", ci.len());
        let vals = vec![1.0f32; ci.len()];
        let taus: &[f64] = if alpha == 0.0 { &[0.3, 0.5, 0.9] } else { &[0.9] };
        for &tau in taus {
            let prm = OneSaParams { block_width: args.delta, tau, similarity: args.similarity, ..Default::default() };
            let (tf, g) = best_of(1, || group_rows(&p, &prm));
            let (tb, v) = best_of(1, || build_vbr(&p, &vals, &g, &prm));
            println!(
                "tau {:.1}: group_rows {:.3} s + build_vbr {:.3} s = {:.3} s; groups {}, dH' {:.2}, rho' {:.4}",
                tau,
                tf,
                tb,
                tf + tb,
                g.groups(),
                v.stats.avg_block_height,
                v.stats.in_block_density
            );
        }
    }
}

fn svg(pts: &[Point], args: &Args) -> String {
    let (w, h) = (760.0, 520.0);
    let (l, r, t, b) = (80.0, 190.0, 50.0, 70.0);
    let pw = w - l - r;
    let ph = h - t - b;
    // x: ρ' on a log10 axis from 0.005 to 1; y: ΔH' on a log2 axis.
    let xmin: f64 = 0.005f64.log10();
    let xmax: f64 = 0.0;
    let ymax_v = pts.iter().map(|p| p.dh).fold(1.0f64, f64::max).max(2.0);
    let ymax = ymax_v.log2().ceil().max(1.0);
    let ymin = 0.0;
    let xs = |x: f64| l + (x.max(1e-9).log10().clamp(xmin, xmax) - xmin) / (xmax - xmin) * pw;
    let ys = |y: f64| t + ph - (y.max(1.0).log2() - ymin) / (ymax - ymin) * ph;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="Helvetica, Arial, sans-serif" font-size="13">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="28" text-anchor="middle" font-size="16">1-SA on A(Δ={}, θ={}, ρ), n={}, ΔW={}, {:?}, TwoStep</text>"#,
        l + pw / 2.0,
        args.delta,
        args.theta,
        args.n,
        args.delta,
        args.similarity
    );
    // Grid and ticks.
    for &xv in &[0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0] {
        let x = xs(xv);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" y1="{t}" x2="{x:.1}" y2="{:.1}" stroke="#ddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{xv}</text>"##,
            t + ph,
            t + ph + 18.0
        );
    }
    let mut e = 0.0;
    while e <= ymax + 1e-9 {
        let yv = 2f64.powf(e);
        let y = ys(yv);
        let _ = writeln!(
            s,
            r##"<line x1="{l}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            l + pw,
            l - 8.0,
            y + 4.0,
            yv
        );
        e += 1.0;
    }
    let _ = writeln!(s, r##"<rect x="{l}" y="{t}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>"##);
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">in-block density ρ' (log scale)</text>"#,
        l + pw / 2.0,
        h - 22.0
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(24,{:.1}) rotate(-90)" text-anchor="middle">average block height ΔH' (log₂ scale)</text>"#,
        t + ph / 2.0
    );
    // Reference line at ΔH' = Δ.
    let yd = ys(args.delta as f64);
    let _ = writeln!(
        s,
        r##"<line x1="{l}" y1="{yd:.1}" x2="{:.1}" y2="{yd:.1}" stroke="#888" stroke-dasharray="5,4"/><text x="{:.1}" y="{:.1}" fill="#666" font-size="11">ΔH' = Δ</text>"##,
        l + pw,
        l + 4.0,
        yd - 4.0
    );
    for (ci, &rho) in RHOS.iter().enumerate() {
        let c = COLORS[ci % COLORS.len()];
        let curve: Vec<&Point> = pts.iter().filter(|p| p.rho == rho).collect();
        let path: Vec<String> = curve.iter().map(|p| format!("{:.1},{:.1}", xs(p.rho_p), ys(p.dh))).collect();
        let _ = writeln!(s, r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="2"/>"#, path.join(" "));
        for p in &curve {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{c}"><title>ρ={} τ={:.1}: ΔH'={:.2}, ρ'={:.4}</title></circle>"#,
                xs(p.rho_p),
                ys(p.dh),
                p.rho,
                p.tau,
                p.dh,
                p.rho_p
            );
        }
        // Label the τ = 0.1 and τ = 1.0 ends.
        for p in curve.iter().filter(|p| p.tau == 0.1 || p.tau == 1.0) {
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="10" fill="#444">τ={:.1}</text>"##,
                xs(p.rho_p) + 5.0,
                ys(p.dh) - 5.0,
                p.tau
            );
        }
        // Vertical marker at ρ (the planted density).
        let _ = writeln!(
            s,
            r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{c}" stroke-width="1" stroke-dasharray="2,3"/>"#,
            t + ph - 10.0,
            t + ph,
            x = xs(rho)
        );
        // Legend.
        let ly = t + 20.0 + ci as f64 * 24.0;
        let lx = l + pw + 20.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{:.1}" y2="{ly}" stroke="{c}" stroke-width="2"/><circle cx="{:.1}" cy="{ly}" r="3.5" fill="{c}"/><text x="{:.1}" y="{:.1}">ρ = {}</text>"#,
            lx + 28.0,
            lx + 14.0,
            lx + 36.0,
            ly + 4.0,
            rho
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#444">points: τ = 0.1 … 1.0</text>"##,
        l + pw + 20.0,
        t + 20.0 + 6.0 * 24.0 + 6.0
    );
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#444">ticks on x axis: planted ρ</text>"##,
        l + pw + 20.0,
        t + 20.0 + 6.0 * 24.0 + 22.0
    );
    s.push_str("</svg>\n");
    s
}
