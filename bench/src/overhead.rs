//! `--overhead`: what one SpMV (or, with `--overhead-op sddmm`, SDDMM) call costs the host in
//! each library, apart from the GPU work.
//!
//! The event-timed cases (`cases.rs`) see GPU time plus whatever gap a library's host code
//! leaves between kernels, and for small matrices that gap can be most of a call. Here the
//! wall clock is read around the library call alone, with nothing synchronized inside the
//! timed section: the time the library takes to check its arguments and queue its work
//! ("host µs"). A second pass times the call plus a stream synchronize ("call+sync µs"): what
//! a caller that waits for every result sees, GPU time and launch latency included.
//!
//! Fixed case: y = A·x, f32, CSR with 32-bit indices, op = N, α = 1, β = 0 in host memory,
//! the default algorithm, `*_preprocess` called once per library; `uniform:n=N,deg=8` for
//! N = 10³ … 10⁶. SDDMM: C = A·B ∘ spy(C) on the same patterns, f32, K = 32, A row-major and
//! B column-major (the benchmark's default layout), α = 1, β = 0, the default algorithm. Both
//! libraries get the same descriptor arguments, the same device arrays and the same stream,
//! and their timed calls are interleaved in blocks.

use std::io::Write as _;
use std::time::Instant;

use crate::cases::{self, Op};
use crate::check::{self, Ref, Verdict};
use crate::gen::{values_f64, Spec};
use crate::gpu::{Gpu, Res};
use crate::libs::{self, Api, DevCsr, Dt, Plan};
use crate::stats;

/// Matrix sizes (rows = columns): from pure overhead (10³ rows, a few µs of GPU work) to
/// bandwidth-bound (10⁶ rows, about 80 MB moved per call).
const ROWS: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];
/// Nonzeros per row, as in a typical finite-element or graph matrix.
const DEG: usize = 8;
/// Untimed calls per library first: lazy initialization, kernel loading, caches, clocks.
const WARMUP: usize = 200;
/// Timed calls per library for the host time.
const HOST_CALLS: usize = 2000;
/// Timed calls per library for call + synchronize.
const WHOLE_CALLS: usize = 1000;
/// Calls queued before the stream is synchronized, outside any timed section, and the size
/// of the blocks in which the libraries alternate. Far below the driver's launch queue
/// (about a thousand entries), so a call never waits for room in it and the host time stays
/// the library's own.
const BLOCK: usize = 64;

/// The call the study times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Call {
    Spmv,
    Sddmm,
}

impl Call {
    pub fn name(self) -> &'static str {
        match self {
            Call::Spmv => "SpMV",
            Call::Sddmm => "SDDMM (K = 32)",
        }
    }
}

/// SDDMM's inner dimension in the study (the benchmark's smaller K).
const SDDMM_K: usize = 32;

/// The study's matrices.
pub fn specs() -> Vec<Spec> {
    ROWS.iter().map(|&n| Spec::Uniform { n, deg: DEG, seed: 1 }).collect()
}

/// One library on one matrix: its prepared call and what was measured.
struct Side<'a> {
    name: &'static str,
    plan: Option<Box<dyn Plan + 'a>>,
    err: Option<String>,
    host_us: Vec<f64>,
    whole_us: Vec<f64>,
}

#[derive(Clone, Copy)]
enum Mode {
    /// Untimed.
    Warm,
    /// Wall time of the call alone (it only queues work).
    Host,
    /// Wall time of the call and a stream synchronize.
    Whole,
}

fn us(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e6
}

/// One call of `s`'s library, timed as `mode` says.
fn call(gpu: &Gpu, s: &mut Side, mode: Mode) -> Res<()> {
    let Some(plan) = s.plan.as_mut() else { return Ok(()) };
    match mode {
        Mode::Warm => plan.run(),
        Mode::Host => {
            // Instant::now is a vDSO clock read (tens of ns), the same for both libraries.
            let t = Instant::now();
            let r = plan.run();
            let dt = us(t);
            r?;
            s.host_us.push(dt);
            Ok(())
        }
        Mode::Whole => {
            let t = Instant::now();
            plan.run()?;
            gpu.sync()?;
            s.whole_us.push(us(t));
            Ok(())
        }
    }
}

/// `calls` calls of every library in blocks of `BLOCK`, the libraries alternating block by
/// block and the order reversed every round (A B, B A, ...), so that clock or boost drift
/// over the run falls on both alike. The stream is synchronized after every block, outside
/// the timed sections. A library whose call fails stops there (its error is kept).
fn interleaved(gpu: &Gpu, sides: &mut [Side], calls: usize, mode: Mode) {
    let mut done = 0;
    let mut round = 0;
    while done < calls {
        let n = BLOCK.min(calls - done);
        let mut order: Vec<usize> = (0..sides.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for si in order {
            let s = &mut sides[si];
            for _ in 0..n {
                if s.err.is_some() {
                    break;
                }
                if let Err(e) = call(gpu, s, mode) {
                    s.err = Some(e);
                }
            }
            if let Err(e) = gpu.sync() {
                // A failed kernel of this library shows up here.
                s.err.get_or_insert(e);
            }
        }
        done += n;
        round += 1;
    }
}

/// One call of each library on a NaN-poisoned output of `len` f32 at `out`, read back for
/// the check: a call that returned without computing would make its timings meaningless.
fn checked_outputs(gpu: &Gpu, sides: &mut [Side], out: u64, len: usize) -> Vec<Option<Vec<f64>>> {
    sides
        .iter_mut()
        .map(|s| {
            let plan = s.plan.as_mut()?;
            let r =
                gpu.fill_u32(out, u32::MAX, len).and_then(|_| plan.run()).and_then(|_| gpu.download::<f32>(out, len));
            match r {
                Ok(v) => Some(v.into_iter().map(f64::from).collect()),
                Err(e) => {
                    s.err = Some(e);
                    None
                }
            }
        })
        .collect()
}

/// One library's figures on one matrix (NaN where it failed).
struct Fig {
    name: &'static str,
    err: Option<String>,
    /// Host µs per call: 10th percentile, median, 90th percentile.
    host: [f64; 3],
    /// Call + synchronize, median µs.
    whole: f64,
}

impl Fig {
    fn of(s: &Side) -> Fig {
        if s.err.is_some() {
            return Fig { name: s.name, err: s.err.clone(), host: [f64::NAN; 3], whole: f64::NAN };
        }
        let h = &s.host_us;
        Fig {
            name: s.name,
            err: None,
            host: [stats::percentile(h, 0.1), stats::median(h), stats::percentile(h, 0.9)],
            whole: stats::median(&s.whole_us),
        }
    }
}

/// One matrix's results.
struct Row {
    matrix: String,
    rows: usize,
    nnz: usize,
    figs: Vec<Fig>,
    verdict: Verdict,
    /// Set when the matrix could not be set up at all (generation, upload).
    error: Option<String>,
}

impl Row {
    fn fig(&self, name: &str) -> Option<&Fig> {
        self.figs.iter().find(|f| f.name == name && f.err.is_none())
    }
    /// (host, call+sync) ratios cuSPARSE / spblk of the medians (> 1: spblk is cheaper).
    fn ratios(&self) -> (f64, f64) {
        match (self.fig("spblk"), self.fig("cuSPARSE")) {
            (Some(s), Some(c)) => (c.host[1] / s.host[1], c.whole / s.whole),
            _ => (f64::NAN, f64::NAN),
        }
    }
    fn failed(&self) -> bool {
        self.error.is_some() || self.figs.iter().any(|f| f.err.is_some())
    }
}

/// A library's side with its prepared call, or the error that prevented it.
fn side<'a>(name: &'static str, plan: Res<Box<dyn Plan + 'a>>) -> Side<'a> {
    let (plan, err) = match plan {
        Ok(p) => (Some(p), None),
        Err(e) => (None, Some(e)),
    };
    Side { name, plan, err, host_us: Vec::new(), whole_us: Vec::new() }
}

/// Uploads the matrix, prepares both libraries' calls on the same arrays, checks one call
/// of each, then warms up and times them.
fn measure(gpu: &Gpu, libs: &[&dyn Api], spec: &Spec, seed: u64, tol: f64, call: Call) -> Res<Row> {
    let p = spec.build()?;
    let (rows, cols, nnz) = (p.rows, p.cols, p.nnz());
    let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    let a = cases::rounded(values_f64(nnz, seed, cases::stream(Op::Spmv, 0)), Dt::F32);
    let (ptr, col, val) = (gpu.upload(&p.ptr)?, gpu.upload(&p.col)?, gpu.upload(&f32s(&a))?);
    let csr = DevCsr {
        rows: rows as i64,
        cols: cols as i64,
        nnz: nnz as i64,
        ptr: ptr.ptr,
        col: col.ptr,
        val: val.ptr,
        dt: Dt::F32,
    };
    let named = |sides: &[Side], outs: &[Option<Vec<f64>>]| -> Vec<(&'static str, Vec<f64>)> {
        sides.iter().zip(outs).filter_map(|(s, o)| o.clone().map(|v| (s.name, v))).collect()
    };
    let (mut sides, verdict, _keep) = match call {
        Call::Spmv => {
            let x = cases::rounded(values_f64(cols, seed, cases::stream(Op::Spmv, 1)), Dt::F32);
            let (xd, yd) = (gpu.upload(&f32s(&x))?, gpu.alloc(4 * rows)?);
            let mut sides: Vec<Side> =
                libs.iter().map(|&api| side(api.name(), libs::spmv(api, gpu, csr, xd.ptr, yd.ptr, true))).collect();
            let outs = checked_outputs(gpu, &mut sides, yd.ptr, rows);
            let named = named(&sides, &outs);
            let refs: Vec<(&str, &[f64])> = named.iter().map(|(n, v)| (*n, v.as_slice())).collect();
            let verdict = if refs.is_empty() {
                Verdict::skipped("no library ran")
            } else {
                cases::spmv_verdict(&p, &a, &x, &refs, tol, seed)
            };
            (sides, verdict, [xd, yd])
        }
        Call::Sddmm => {
            let k = SDDMM_K;
            // A (rows × K) row by row, B (K × cols) column by column: row j of `bt` is B's column j.
            let da = cases::rounded(values_f64(rows * k, seed, cases::stream(Op::Sddmm, 0)), Dt::F32);
            let bt = cases::rounded(values_f64(cols * k, seed, cases::stream(Op::Sddmm, 1)), Dt::F32);
            let (ad, bd) = (gpu.upload(&f32s(&da))?, gpu.upload(&f32s(&bt))?);
            let layout = cases::DEFAULT_SDDMM_LAYOUT;
            let mut sides: Vec<Side> = libs
                .iter()
                .map(|&api| side(api.name(), libs::sddmm(api, gpu, ad.ptr, bd.ptr, k as i64, csr, layout, true)))
                .collect();
            let outs = checked_outputs(gpu, &mut sides, val.ptr, nnz);
            let named = named(&sides, &outs);
            let outs: Vec<(&str, &[f64])> = named.iter().map(|(n, v)| (*n, v.as_slice())).collect();
            let dot = |i: usize, j: usize| -> f64 { (0..k).map(|l| da[i * k + l] * bt[j * k + l]).sum() };
            let mag = |i: usize, j: usize| -> f64 { (0..k).map(|l| (da[i * k + l] * bt[j * k + l]).abs()).sum() };
            let mut refs: Vec<Ref> = Vec::new();
            for i in check::sample_rows(rows, |i| p.row_len(i), 64, seed) {
                for e in p.ptr[i] as usize..p.ptr[i + 1] as usize {
                    refs.push((i, e, dot(i, p.col[e] as usize)));
                }
            }
            let verdict = if outs.is_empty() {
                Verdict::skipped("no library ran")
            } else {
                check::compare(
                    &outs,
                    rows,
                    &|i| p.ptr[i] as usize..p.ptr[i + 1] as usize,
                    &|i, e| tol * check::len_factor(k) * mag(i, p.col[e] as usize),
                    &refs,
                )
            };
            (sides, verdict, [ad, bd])
        }
    };
    interleaved(gpu, &mut sides, WARMUP, Mode::Warm);
    interleaved(gpu, &mut sides, HOST_CALLS, Mode::Host);
    interleaved(gpu, &mut sides, WHOLE_CALLS, Mode::Whole);
    Ok(Row { matrix: spec.name(), rows, nnz, figs: sides.iter().map(Fig::of).collect(), verdict, error: None })
}

/// "12.34", or "-" for NaN.
fn num(x: f64, width: usize, prec: usize) -> String {
    if x.is_finite() {
        format!("{x:>width$.prec$}")
    } else {
        format!("{:>width$}", "-")
    }
}

fn lib_line(f: &Fig) -> String {
    match &f.err {
        Some(e) => format!("{:<10} ERROR: {e}", f.name),
        None => format!(
            "{:<10} {} ({} / {})   {}",
            f.name,
            num(f.host[1], 9, 2),
            num(f.host[0], 7, 2),
            num(f.host[2], 7, 2),
            num(f.whole, 14, 2)
        ),
    }
}

/// The matrix, rows and nnz columns.
fn lead(matrix: &str, rows: &str, nnz: &str) -> String {
    format!("{matrix:26} {rows:>8} {nnz:>9}  ")
}

fn column_names() -> String {
    format!(
        "{}{:<10} {:>9} ({:>7} / {:>7})   {:>14}\n",
        lead("matrix", "rows", "nnz"),
        "library",
        "host µs",
        "p10",
        "p90",
        "call+sync µs"
    )
}

/// One matrix: a line per library, then the ratios and the check.
fn row_lines(r: &Row) -> String {
    let first = lead(&r.matrix, &r.rows.to_string(), &r.nnz.to_string());
    if let Some(e) = &r.error {
        return format!("{first}ERROR: {e}\n");
    }
    let pad = " ".repeat(first.chars().count());
    let mut t = String::new();
    for (i, f) in r.figs.iter().enumerate() {
        t.push_str(if i == 0 { &first } else { &pad });
        t.push_str(&lib_line(f));
        t.push('\n');
    }
    let (h, w) = r.ratios();
    let check = if r.verdict.ok { r.verdict.msg.clone() } else { format!("MISMATCH: {}", r.verdict.msg) };
    // The ratios sit under the medians: 23 columns of " (p10 / p90)   " between them.
    t.push_str(&format!("{pad}{:<10} {}{:23}{}   check: {check}\n", "ratio", num(h, 9, 2), "", num(w, 14, 2)));
    t
}

/// What the columns mean.
fn method() -> String {
    format!(
        "host µs: wall time of the call alone (it only queues work): median (p10 / p90) of {HOST_CALLS} calls \
         after {WARMUP} warm-up calls,\n  the stream synchronized every {BLOCK} calls outside the timed section.\n\
         call+sync µs: call + cuStreamSynchronize, median of {WHOLE_CALLS} calls.\n\
         The libraries alternate in blocks of {BLOCK} calls, order reversed every round.\n\
         ratio = cuSPARSE / spblk of the medians (> 1: spblk is cheaper).\n"
    )
}

/// The table: a line per library and a ratio line per matrix.
fn table(head: &str, rows: &[Row]) -> String {
    let mut t = format!("{head}\n{}\n{}", method(), column_names());
    for r in rows {
        t.push_str(&row_lines(r));
    }
    t
}

/// The host's CPU model, from /proc/cpuinfo (host time depends on it more than on the GPU).
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("model name")).map(|l| l.to_string()))
        .and_then(|l| l.split_once(':').map(|(_, v)| v.trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

/// Runs the study on `libs` (spblk first when present) and prints the table (also to
/// `out`/overhead.txt). `head`: lines naming the run, device and libraries. Returns the exit
/// status: 0 all ran and agreed, 1 an output disagreed, 3 something failed.
pub fn run(gpu: &Gpu, libs: &[&dyn Api], head: &str, seed: u64, tol: f64, out: Option<&str>, call: Call) -> i32 {
    let mut rows = Vec::new();
    print!("\n{}", column_names());
    for spec in specs() {
        let row = measure(gpu, libs, &spec, seed, tol, call).unwrap_or_else(|e| Row {
            matrix: spec.name(),
            rows: 0,
            nnz: 0,
            figs: Vec::new(),
            verdict: Verdict::skipped("not run"),
            error: Some(e),
        });
        // As it comes, so that a run cut short still shows the matrices done.
        print!("{}", row_lines(&row));
        let _ = std::io::stdout().flush();
        rows.push(row);
    }
    let t = table(head, &rows);
    println!("\n{t}");
    let mut failed = rows.iter().any(Row::failed);
    if let Some(dir) = out {
        let path = format!("{dir}/overhead.txt");
        match std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, &t)) {
            Ok(()) => println!("table written to {path}"),
            Err(e) => {
                eprintln!("spblk-bench: writing {path}: {e}");
                failed = true;
            }
        }
    }
    if rows.iter().any(|r| !r.verdict.ok) {
        println!("RESULT: MISMATCH (see the check column)");
        1
    } else if failed {
        println!("RESULT: ERROR (see the ERROR lines)");
        3
    } else {
        println!("RESULT: OK");
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(name: &'static str, host: [f64; 3], whole: f64) -> Fig {
        Fig { name, err: None, host, whole }
    }

    #[test]
    fn table_has_ratios_under_the_medians() {
        let ok = Verdict { ok: true, max_err: 0.0, msg: "ok".into() };
        let rows = vec![
            Row {
                matrix: "uniform-1000-deg8".into(),
                rows: 1000,
                nnz: 8000,
                figs: vec![fig("spblk", [1.9, 2.0, 2.5], 8.0), fig("cuSPARSE", [2.8, 3.0, 3.6], 10.0)],
                verdict: ok.clone(),
                error: None,
            },
            Row {
                matrix: "uniform-10000-deg8".into(),
                rows: 10000,
                nnz: 80000,
                figs: vec![
                    Fig { name: "spblk", err: Some("boom".into()), host: [f64::NAN; 3], whole: f64::NAN },
                    fig("cuSPARSE", [2.8, 3.0, 3.6], 10.0),
                ],
                verdict: ok,
                error: None,
            },
        ];
        assert_eq!(rows[0].ratios(), (1.5, 1.25));
        assert!(rows[1].ratios().0.is_nan() && rows[1].failed() && !rows[0].failed());
        let t = table("head\n", &rows);
        println!("{t}");
        let lines: Vec<&str> = t.lines().collect();
        let lib = lines.iter().find(|l| l.contains("cuSPARSE") && l.contains("3.00")).unwrap();
        let ratio = lines.iter().find(|l| l.contains("ratio") && l.contains("1.50")).unwrap();
        // Same column ends for the host median and the call+sync median.
        let end = |l: &str, pat: &str| l.find(pat).unwrap() + pat.len();
        assert_eq!(end(lib, "3.00"), end(ratio, "1.50"));
        assert_eq!(end(lib, "10.00"), end(ratio, "1.25"));
        assert!(t.contains("ERROR: boom"));
    }
}
