//! 1-SA blocking curves on the paper's synthetic matrices A(Δ, θ, ρ), plus optional speed
//! comparisons of the fast grouping against the serial baselines and 2^20-row runs.
//!
//! ```text
//! spblk-1sa-curves [--out DIR] [--n N] [--delta D] [--theta T] [--budget K]
//!                  [--similarity jaccard|cosine] [--speed] [--big] [--big-exact]
//!                  [--no-curves] [--big-case NAME]... [--big-tau T]... [--big-repeat N]
//!                  [--big-fingerprint]
//! ```
//! Writes `DIR/one-sa-curves.csv` and `DIR/one-sa-curves.svg` (ΔH' against ρ', one curve
//! per ρ, τ = 0.1 … 1.0 along each curve; solid: [`group_rows`] with the candidate budget,
//! dashed: the exact grouping). `--speed`: the 8192 table (serial Algorithm 2 on rows, the
//! compressed reference, exact fast, budgeted fast). `--big`: 2^20-row block-structured,
//! power-law and R-MAT matrices at τ = 0.3, 0.5, 0.9 (`--big-exact` adds the exact grouping
//! at τ = 0.9).

use spblk::analysis::one_sa::gen;
use spblk::analysis::one_sa::*;
use std::fmt::Write as _;
use std::time::Instant;

/// `--budget` value meaning "the automatic budget of `group_rows`" (the default).
const AUTO: usize = usize::MAX;

fn run_budget(p: &CsrPattern, prm: &OneSaParams, budget: usize) -> (Grouping, SearchStats) {
    if budget == AUTO {
        group_rows_auto_with_stats(p, prm)
    } else {
        group_rows_with_stats(p, prm, budget)
    }
}

fn budget_name(b: usize) -> String {
    if b == AUTO {
        "auto".into()
    } else {
        b.to_string()
    }
}

const RHOS: [f64; 6] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5];
const COLORS: [&str; 6] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];

struct Args {
    out: String,
    n: usize,
    delta: usize,
    theta: f64,
    similarity: Similarity,
    speed: bool,
    big: bool,
    big_exact: bool,
    curves: bool,
    budget: usize,
    /// `--big` cases and τ values to run (empty: all).
    big_cases: Vec<String>,
    big_taus: Vec<f64>,
    /// `--big-repeat N`: best of N runs for every `--big` timing.
    big_repeat: usize,
    /// `--big-fingerprint`: print a hash of every `analyze` result array (grouping and VBR),
    /// to check that a change to the analysis leaves the plan bit-identical.
    big_fingerprint: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        out: ".".into(),
        n: 8192,
        delta: 64,
        theta: 0.1,
        similarity: Similarity::Jaccard,
        speed: false,
        big: false,
        big_exact: false,
        curves: true,
        budget: AUTO,
        big_cases: vec![],
        big_taus: vec![],
        big_repeat: 1,
        big_fingerprint: false,
    };
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
            "--big" => a.big = true,
            "--big-exact" => a.big_exact = true,
            "--no-curves" => a.curves = false,
            "--big-case" => a.big_cases.push(val()?),
            "--big-tau" => a.big_taus.push(val()?.parse().map_err(|e| format!("--big-tau: {e}"))?),
            "--big-repeat" => a.big_repeat = val()?.parse().map_err(|e| format!("--big-repeat: {e}"))?,
            "--big-fingerprint" => a.big_fingerprint = true,
            "--budget" => a.budget = val()?.parse().map_err(|e| format!("--budget: {e}"))?,
            "-h" | "--help" => {
                println!(
                    "usage: spblk-1sa-curves [--out DIR] [--n N] [--delta D] [--theta T] [--budget K] \
                     [--similarity jaccard|cosine] [--speed] [--big] [--big-exact] [--no-curves] \
                     [--big-case power-law|rmat|block-structured]... [--big-tau T]... [--big-repeat N] [--big-fingerprint]"
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
    /// The same with the exact grouping.
    groups_x: usize,
    dh_x: f64,
    rho_x: f64,
    secs_x: f64,
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
    if args.curves {
        curves(&args);
    }
    if args.speed {
        speed(&args);
    }
    if args.big {
        big(&args);
    }
}

fn curves(args: &Args) {
    println!(
        "# 1-SA on A(Δ={}, θ={}, ρ), n = {}, ΔW = {}, {:?}, TwoStep, rows scrambled, {} threads; \
         budget {} vs exact",
        args.delta,
        args.theta,
        args.n,
        args.delta,
        args.similarity,
        rayon::current_num_threads(),
        budget_name(args.budget)
    );
    println!(
        "{:>6} {:>5} {:>7} {:>8} {:>8} {:>8} {:>9} | {:>7} {:>8} {:>8} {:>9}",
        "rho", "tau", "groups", "dH'", "rho'", "rho'/rho", "time_s", "groups_x", "dH'_x", "rho'_x", "time_x_s"
    );
    let mut pts = Vec::new();
    for (ri, &rho) in RHOS.iter().enumerate() {
        let (rp, ci) = gen::block_structured(args.n, args.delta, args.theta, rho, 1000 + ri as u64);
        let p = CsrPattern { rows: args.n, cols: args.n, row_ptr: &rp, col_idx: &ci };
        let vals = vec![1.0f32; ci.len()];
        for t in 1..=10 {
            let tau = t as f64 / 10.0;
            let prm = OneSaParams { block_width: args.delta, tau, similarity: args.similarity, ..Default::default() };
            let t0 = Instant::now();
            let g = run_budget(&p, &prm, args.budget).0;
            let s = build_vbr(&p, &vals, &g, &prm).stats;
            let secs = t0.elapsed().as_secs_f64();
            let t0 = Instant::now();
            let gx = group_rows_exact(&p, &prm);
            let sx = build_vbr(&p, &vals, &gx, &prm).stats;
            let secs_x = t0.elapsed().as_secs_f64();
            println!(
                "{:>6} {:>5.1} {:>7} {:>8.2} {:>8.4} {:>8.3} {:>9.4} | {:>7} {:>8.2} {:>8.4} {:>9.4}",
                rho,
                tau,
                s.groups,
                s.avg_block_height,
                s.in_block_density,
                s.in_block_density / rho,
                secs,
                sx.groups,
                sx.avg_block_height,
                sx.in_block_density,
                secs_x
            );
            pts.push(Point {
                rho,
                tau,
                groups: s.groups,
                dh: s.avg_block_height,
                rho_p: s.in_block_density,
                secs,
                groups_x: sx.groups,
                dh_x: sx.avg_block_height,
                rho_x: sx.in_block_density,
                secs_x,
            });
        }
    }
    let mut csv = String::from(
        "rho,tau,groups,avg_block_height,in_block_density,density_ratio,seconds,\
         exact_groups,exact_avg_block_height,exact_in_block_density,exact_seconds\n",
    );
    for p in &pts {
        let _ = writeln!(
            csv,
            "{},{:.1},{},{:.4},{:.6},{:.4},{:.6},{},{:.4},{:.6},{:.6}",
            p.rho,
            p.tau,
            p.groups,
            p.dh,
            p.rho_p,
            p.rho_p / p.rho,
            p.secs,
            p.groups_x,
            p.dh_x,
            p.rho_x,
            p.secs_x
        );
    }
    let csv_path = format!("{}/one-sa-curves.csv", args.out);
    std::fs::write(&csv_path, csv).expect("write csv");
    let svg_path = format!("{}/one-sa-curves.svg", args.out);
    std::fs::write(&svg_path, svg(&pts, args)).expect("write svg");
    println!("wrote {csv_path} and {svg_path}");
}

/// Every run's time, sorted, and the last result (the 2^20 runs report median and worst: on a
/// two-core machine one fault storm or compaction moves a single run by a second).
fn times_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (Vec<f64>, T) {
    let mut times = Vec::with_capacity(reps);
    let mut last = None;
    for _ in 0..reps {
        // The previous result (gigabytes for the 2^20 plans) is freed before the clock starts.
        drop(last.take());
        let t = Instant::now();
        let r = f();
        times.push(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    times.sort_by(f64::total_cmp);
    (times, last.unwrap())
}

fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..reps {
        drop(last.take()); // freed outside the timing, as in `times_of`
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(r);
    }
    (best, last.unwrap())
}

fn speed(args: &Args) {
    println!(
        "\n# speed on A(Δ={}, θ={}, ρ), n = {}: serial Algorithm 2 on rows (alg2), compressed serial \
         reference (ref), exact fast, budgeted fast (budget {}; {} threads); best of 3 (alg2, ref: 1)",
        args.delta,
        args.theta,
        args.n,
        budget_name(args.budget),
        rayon::current_num_threads()
    );
    println!(
        "{:>6} {:>5} {:>8} {:>6} {:>7} {:>7} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9}",
        "rho",
        "tau",
        "classes",
        "budget",
        "groups",
        "groups_b",
        "alg2_s",
        "ref_s",
        "exact_s",
        "budget_s",
        "alg2/exact",
        "alg2/budget",
        "ref/budget"
    );
    for &rho in &RHOS {
        let (rp, ci) = gen::block_structured(args.n, args.delta, args.theta, rho, 7);
        let p = CsrPattern { rows: args.n, cols: args.n, row_ptr: &rp, col_idx: &ci };
        for &tau in &[0.3, 0.5, 0.9] {
            let prm = OneSaParams { block_width: args.delta, tau, similarity: args.similarity, ..Default::default() };
            let (ta, _ga) = best_of(1, || group_rows_serial_alg2(&p, &prm));
            let (tr, gr) = best_of(1, || group_rows_reference(&p, &prm));
            let (tx, (gx, st)) = best_of(3, || group_rows_with_stats(&p, &prm, 0));
            let (tb, (gb, sb)) = best_of(3, || run_budget(&p, &prm, args.budget));
            assert_eq!(gr, gx, "exact fast and reference groupings differ");
            println!(
                "{:>6} {:>5.1} {:>8} {:>6} {:>7} {:>7} {:>10.5} {:>10.5} {:>10.5} {:>10.5} {:>9.1}x {:>9.1}x {:>8.1}x",
                rho,
                tau,
                st.classes,
                sb.budget,
                gx.groups(),
                gb.groups(),
                ta,
                tr,
                tx,
                tb,
                ta / tx,
                ta / tb,
                tr / tb
            );
        }
    }
}

/// 2^20 rows, ~2^24 nonzeros: (a) block-structured A(64, θ = 1/4096, ρ = 1/16); (b) the
/// power-law generator (hub columns plus local windows); (c) R-MAT (Graph500 a, b, c).
fn big(args: &Args) {
    let scale = 20u32;
    let rows = 1usize << scale;
    for name in ["block-structured", "power-law", "rmat"] {
        if !args.big_cases.is_empty() && !args.big_cases.iter().any(|c| c == name) {
            continue;
        }
        let t = Instant::now();
        let (rp, ci) = match name {
            "block-structured" => gen::block_structured(rows, 64, 1.0 / 4096.0, 1.0 / 16.0, 98),
            "power-law" => gen::power_law(rows, rows, 1 << 24, 0.9, 99),
            _ => gen::rmat(scale, 1 << 24, 0.57, 0.19, 0.19, 100),
        };
        let tg = t.elapsed().as_secs_f64();
        let p = CsrPattern { rows, cols: rows, row_ptr: &rp, col_idx: &ci };
        println!(
            "\n# {name} matrix: {rows} x {rows}, {} nnz (generated in {tg:.2} s), budget {}, {} threads",
            ci.len(),
            budget_name(args.budget),
            rayon::current_num_threads()
        );
        let vals = vec![1.0f32; ci.len()];
        let taus = if args.big_taus.is_empty() { vec![0.3, 0.5, 0.9] } else { args.big_taus.clone() };
        for &tau in &taus {
            let prm = OneSaParams { block_width: args.delta, tau, similarity: args.similarity, ..Default::default() };
            let mut runs = vec![args.budget];
            if args.big_exact && tau == 0.9 {
                runs.push(0);
            }
            for budget in runs {
                let rep = args.big_repeat.max(1);
                let (tf, (g, st)) = best_of(rep, || run_budget(&p, &prm, budget));
                let (tb, v) = best_of(rep, || build_vbr(&p, &vals, &g, &prm));
                drop(v);
                // `analyze` itself (grouping + build, what `spblkAnalyze` runs) with the same budget.
                let aprm = OneSaParams { candidate_budget: if budget == AUTO { None } else { Some(budget) }, ..prm };
                let (ta, v) = times_of(rep, || analyze(&p, &vals, &aprm));
                println!(
                    "tau {:.1} {}: group_rows {:.3} s + build_vbr {:.3} s = {:.3} s; analyze median {:.3} s, \
                     worst {:.3} s of {rep}; \
                     values {:.2} GB; classes {}, groups {}, dH' {:.3}, rho' {:.4}, scanned {}, tests {} ({} blocks), \
                     cuts {}",
                    tau,
                    if budget == 0 { "exact ".to_string() } else { format!("budget {}", st.budget) },
                    tf,
                    tb,
                    tf + tb,
                    ta[ta.len() / 2],
                    ta[ta.len() - 1],
                    (v.values.len() * std::mem::size_of::<f32>()) as f64 / 1e9,
                    st.classes,
                    g.groups(),
                    v.stats.avg_block_height,
                    v.stats.in_block_density,
                    st.scanned,
                    st.tests,
                    st.test_blocks,
                    st.truncated_lists
                );
                if args.big_fingerprint {
                    println!("fingerprint tau {tau:.1}: {}", fingerprint(&v));
                }
                drop(v);
                // `analyze_layout` (what `spblkAnalyze` runs on the host for the CUDA backend,
                // which fills the values on the device).
                let (tl, l) = times_of(rep, || analyze_layout(&p, &aprm));
                println!(
                    "tau {tau:.1}: analyze_layout median {:.3} s, worst {:.3} s of {rep}; groups {}, blocks {}",
                    tl[tl.len() / 2],
                    tl[tl.len() - 1],
                    l.groups(),
                    l.stats.nonzero_blocks
                );
            }
        }
    }
}

/// Hashes of the arrays of a plan (values by their bits; the statistics without the timing).
fn fingerprint(v: &Vbr<f32>) -> String {
    use rayon::prelude::*;
    fn mix(h: u64, x: u64) -> u64 {
        (h ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
    }
    fn words(xs: &[u64]) -> u64 {
        let parts: Vec<u64> =
            xs.par_chunks(1 << 20).map(|c| c.iter().fold(xs.len() as u64, |h, &x| mix(h, x))).collect();
        parts.iter().fold(0, |h, &x| mix(h, x))
    }
    let us = |xs: &[usize]| words(&xs.iter().map(|&x| x as u64).collect::<Vec<_>>());
    let vals = {
        let parts: Vec<u64> = v
            .values
            .par_chunks(1 << 20)
            .map(|c| c.iter().fold(v.values.len() as u64, |h, x| mix(h, x.to_bits() as u64)))
            .collect();
        parts.iter().fold(0, |h, &x| mix(h, x))
    };
    let s = &v.stats;
    let st = [
        s.groups as u64,
        s.nonzero_blocks as u64,
        s.avg_block_height.to_bits(),
        s.in_block_density.to_bits(),
        s.fill_in_ratio.to_bits(),
    ];
    format!(
        "perm {:016x} group_ptr {:016x} block_ptr {:016x} block_col {:016x} value_offset {:016x} values {:016x} \
         (len {}) stats {:016x}",
        us(&v.perm),
        us(&v.group_ptr),
        us(&v.block_ptr),
        us(&v.block_col),
        us(&v.value_offset),
        vals,
        v.values.len(),
        words(&st)
    )
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
        let path_x: Vec<String> = curve.iter().map(|p| format!("{:.1},{:.1}", xs(p.rho_x), ys(p.dh_x))).collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="1.2" stroke-dasharray="4,3" opacity="0.8"/>"#,
            path_x.join(" ")
        );
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
    let _ = writeln!(
        s,
        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#444">solid: budget {}; dashed: exact</text>"##,
        l + pw + 20.0,
        t + 20.0 + 6.0 * 24.0 + 38.0,
        budget_name(args.budget)
    );
    s.push_str("</svg>\n");
    s
}
