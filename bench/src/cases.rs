//! One benchmark case = one operation on one matrix: inputs made once on the host, uploaded
//! (in several copies when one copy would sit in L2), a checked run of each library on
//! poisoned outputs, then timed runs with CUDA events, alternating the libraries.

use rayon::prelude::*;

use crate::check::{self, len_factor, Ref, Verdict};
use crate::gen::{values_f64, Pattern, Spec};
use crate::gpu::{Arena, DevAlloc, DevBuf, Gpu, Res, Tracked};
use crate::libs::{self, Api, DevCsc, DevCsr, Dt, Layout, Order, Plan, SpgemmAlg};
use crate::stats;

/// The operations, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    Spmv,
    Spmm,
    Sddmm,
    Spgemm,
    Csr2csc,
}

impl Op {
    pub const ALL: [Op; 5] = [Op::Spmv, Op::Spmm, Op::Sddmm, Op::Spgemm, Op::Csr2csc];

    pub fn name(self) -> &'static str {
        match self {
            Op::Spmv => "spmv",
            Op::Spmm => "spmm",
            Op::Sddmm => "sddmm",
            Op::Spgemm => "spgemm",
            Op::Csr2csc => "csr2csc",
        }
    }

    pub fn parse(s: &str) -> Result<Op, String> {
        Op::ALL
            .into_iter()
            .find(|o| o.name() == s)
            .ok_or_else(|| format!("unknown operation '{s}' (expected spmv, spmm, sddmm, spgemm, csr2csc)"))
    }
}

/// Settings that shape every case.
#[derive(Clone, Debug)]
pub struct Settings {
    pub repeat: usize,
    pub warmup: usize,
    pub seed: u64,
    pub preprocess: bool,
    pub spmm_n: Vec<i64>,
    pub sddmm_k: Vec<i64>,
    /// Orders of SpMM's (B, C) and SDDMM's (A, B) dense operands to time.
    pub spmm_layouts: Vec<Layout>,
    pub sddmm_layouts: Vec<Layout>,
    pub spmv_types: Vec<Dt>,
    /// spblk's SpMV algorithms to time, each against cuSPARSE's default: (value, label).
    pub spmv_algs: Vec<(u32, &'static str)>,
    /// spblk's SpMM algorithm (`--spmm-alg`): (value, label).
    pub spmm_alg: (u32, &'static str),
    /// spblk's SDDMM algorithm (`--sddmm-alg`): (value, label).
    pub sddmm_alg: (u32, &'static str),
    pub spgemm_max_products: u64,
    /// Also time SpGEMM's reuse path (`--spgemm-reuse`).
    pub spgemm_reuse: bool,
    /// The SpGEMM algorithm both libraries run (`--spgemm-alg`).
    pub spgemm_alg: SpgemmAlg,
    pub tol_f32: f64,
    pub tol_f64: f64,
    /// Rotate among copies until this many bytes are touched per round (a multiple of L2).
    pub l2_bytes: usize,
    pub copy_bw: f64,
}

impl Settings {
    fn tol(&self, dt: Dt) -> f64 {
        match dt {
            Dt::F32 => self.tol_f32,
            Dt::F64 => self.tol_f64,
        }
    }

    /// Input copies to rotate among so that a call does not find its inputs in L2, left there
    /// by the previous call: one when a copy is at least four times the L2, else enough for
    /// four L2s (at least 2, at most 1024).
    pub fn copies(&self, footprint: usize) -> usize {
        if footprint >= 4 * self.l2_bytes {
            1
        } else {
            (4 * self.l2_bytes).div_ceil(footprint.max(1)).clamp(2, 1024)
        }
    }
}

/// A matrix with the operations to run on it.
pub struct Mat {
    pub spec: Spec,
    pub name: String,
    pub p: Pattern,
    pub ops: Vec<Op>,
    pub gen_s: f64,
}

/// One library's figures for one case.
#[derive(Clone, Debug)]
pub struct LibResult {
    pub ran: bool,
    pub error: Option<String>,
    pub times_ms: Vec<f64>,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub buffer_bytes: usize,
    /// SpGEMM: bytes the benchmark allocated for this library's buffers and C.
    pub own_peak_bytes: Option<usize>,
    /// SpGEMM: the largest drop in `cuMemGetInfo` free memory across the protocol's steps.
    pub meminfo_peak_bytes: Option<usize>,
    pub alg: String,
    pub detail: String,
}

impl Default for LibResult {
    /// Did not run: times are NaN (printed as "-" and empty CSV fields).
    fn default() -> Self {
        LibResult {
            ran: false,
            error: None,
            times_ms: Vec::new(),
            median_ms: f64::NAN,
            min_ms: f64::NAN,
            max_ms: f64::NAN,
            buffer_bytes: 0,
            own_peak_bytes: None,
            meminfo_peak_bytes: None,
            alg: String::new(),
            detail: String::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Record {
    pub op: Op,
    pub variant: String,
    pub matrix: String,
    pub family: String,
    pub spec: String,
    pub rows: usize,
    pub cols: usize,
    pub nnz: usize,
    pub flops: f64,
    pub min_bytes: f64,
    pub copies: usize,
    pub reps: usize,
    pub spblk: LibResult,
    pub cusparse: LibResult,
    pub verdict: Verdict,
    pub note: String,
}

impl Record {
    /// cuSPARSE time / spblk time (> 1: spblk is faster).
    pub fn ratio(&self) -> f64 {
        if self.spblk.ran && self.cusparse.ran {
            self.cusparse.median_ms / self.spblk.median_ms
        } else {
            f64::NAN
        }
    }
    pub fn gflops(&self, r: &LibResult) -> f64 {
        if r.ran && self.flops > 0.0 {
            self.flops / (r.median_ms * 1e-3) / 1e9
        } else {
            f64::NAN
        }
    }
    pub fn gbs(&self, r: &LibResult) -> f64 {
        if r.ran {
            self.min_bytes / (r.median_ms * 1e-3) / 1e9
        } else {
            f64::NAN
        }
    }
    pub fn failed(&self) -> bool {
        self.spblk.error.is_some() || self.cusparse.error.is_some()
    }
}

/// Everything a case needs.
pub struct Ctx<'a> {
    pub gpu: &'a Gpu,
    /// The libraries to run, spblk first when present.
    pub libs: Vec<&'a dyn Api>,
    pub set: &'a Settings,
}

// ---------------------------------------------------------------------------------------
// Host data helpers.

/// `v` rounded to the precision that will be uploaded (so host references use exactly the
/// device's inputs).
pub fn rounded(mut v: Vec<f64>, dt: Dt) -> Vec<f64> {
    if dt == Dt::F32 {
        v.par_iter_mut().for_each(|x| *x = *x as f32 as f64);
    }
    v
}

fn upload_vals(gpu: &Gpu, v: &[f64], dt: Dt, copies: usize) -> Res<Vec<DevBuf>> {
    let first = match dt {
        Dt::F32 => gpu.upload(&v.par_iter().map(|&x| x as f32).collect::<Vec<f32>>())?,
        Dt::F64 => gpu.upload(v)?,
    };
    replicate(gpu, first, copies)
}

fn upload_i32(gpu: &Gpu, v: &[i32], copies: usize) -> Res<Vec<DevBuf>> {
    replicate(gpu, gpu.upload(v)?, copies)
}

fn replicate(gpu: &Gpu, first: DevBuf, copies: usize) -> Res<Vec<DevBuf>> {
    let mut out = Vec::with_capacity(copies);
    for _ in 1..copies {
        let b = gpu.alloc(first.bytes)?;
        gpu.copy(b.ptr, first.ptr, first.bytes)?;
        out.push(b);
    }
    gpu.sync()?;
    out.insert(0, first);
    Ok(out)
}

fn download_vals(gpu: &Gpu, ptr: u64, len: usize, dt: Dt) -> Res<Vec<f64>> {
    Ok(match dt {
        Dt::F32 => gpu.download::<f32>(ptr, len)?.into_par_iter().map(|x| x as f64).collect(),
        Dt::F64 => gpu.download::<f64>(ptr, len)?,
    })
}

fn allocs(gpu: &Gpu, bytes: usize, copies: usize) -> Res<Vec<DevBuf>> {
    (0..copies).map(|_| gpu.alloc(bytes)).collect()
}

/// A different value stream for every (operation, input) so inputs are independent.
pub fn stream(op: Op, input: u64) -> u64 {
    ((op as u64) << 8) | input
}

// ---------------------------------------------------------------------------------------
// Running and timing prepared plans.

struct Side<'a> {
    api: &'a dyn Api,
    plans: Vec<Box<dyn Plan + 'a>>,
    err: Option<String>,
    times: Vec<f64>,
}

impl Side<'_> {
    fn ok(&self) -> bool {
        self.err.is_none()
    }
}

fn make_sides<'a>(
    libs: &[&'a dyn Api],
    copies: usize,
    mut mk: impl FnMut(&'a dyn Api, usize) -> Res<Box<dyn Plan + 'a>>,
) -> Vec<Side<'a>> {
    libs.iter()
        .map(|&api| {
            let mut plans = Vec::new();
            let mut err = None;
            for c in 0..copies {
                match mk(api, c) {
                    Ok(p) => plans.push(p),
                    Err(e) => {
                        err = Some(e);
                        break;
                    }
                }
            }
            Side { api, plans, err, times: Vec::new() }
        })
        .collect()
}

/// Checked run: poison the outputs of copy 0, run, and read them back.
fn checked_outputs<T>(
    gpu: &Gpu,
    sides: &mut [Side],
    poison: &dyn Fn() -> Res<()>,
    read: &dyn Fn() -> Res<T>,
) -> Vec<Option<T>> {
    sides
        .iter_mut()
        .map(|s| {
            if !s.ok() {
                return None;
            }
            let r = poison().and_then(|_| s.plans[0].run()).and_then(|_| gpu.sync()).and_then(|_| read());
            match r {
                Ok(v) => Some(v),
                Err(e) => {
                    s.err = Some(e);
                    None
                }
            }
        })
        .collect()
}

/// Warm-up, then `reps` timed calls per library, alternating libraries call by call and
/// rotating copies so that consecutive calls use different copies (when there are several).
fn time_sides(gpu: &Gpu, sides: &mut [Side], warmup: usize, reps: usize) -> Res<()> {
    let k = sides.iter().find(|s| s.ok()).map(|s| s.plans.len()).unwrap_or(1).max(1);
    let n = sides.len();
    for w in 0..warmup {
        for (si, s) in sides.iter_mut().enumerate() {
            if s.ok() {
                if let Err(e) = s.plans[(w * n + si) % k].run() {
                    s.err = Some(e);
                }
            }
        }
    }
    gpu.sync()?;
    let mut events = Vec::with_capacity(reps * n);
    for r in 0..reps {
        for (si, s) in sides.iter_mut().enumerate() {
            if !s.ok() {
                continue;
            }
            let (a, b) = (gpu.event()?, gpu.event()?);
            gpu.record(&a)?;
            let res = s.plans[(r * n + si) % k].run();
            gpu.record(&b)?;
            match res {
                Ok(()) => events.push((si, a, b)),
                Err(e) => s.err = Some(e),
            }
        }
    }
    gpu.sync()?;
    for (si, a, b) in &events {
        if sides[*si].ok() {
            let t = gpu.elapsed_ms(a, b)?;
            sides[*si].times.push(t);
        }
    }
    Ok(())
}

fn result_of(s: Option<&Side>) -> LibResult {
    let Some(s) = s else { return LibResult::default() };
    let ran = s.ok() && !s.times.is_empty();
    LibResult {
        ran,
        error: s.err.clone(),
        median_ms: stats::median(&s.times),
        min_ms: stats::min(&s.times),
        max_ms: stats::max(&s.times),
        times_ms: s.times.clone(),
        buffer_bytes: s.plans.first().map(|p| p.buffer_bytes()).unwrap_or(0),
        ..Default::default()
    }
}

#[allow(clippy::too_many_arguments)]
fn record(
    ctx: &Ctx,
    m: &Mat,
    op: Op,
    variant: String,
    flops: f64,
    bytes: f64,
    copies: usize,
    sides: &[Side],
    verdict: Verdict,
) -> Record {
    let by_name = |n: &str| sides.iter().find(|s| s.api.name() == n);
    let note = if copies > 0 && (copies as f64) * bytes < 2.0 * ctx.set.l2_bytes as f64 {
        format!("inputs may stay in L2: {copies} copies of {:.1} MB", bytes / 1e6)
    } else {
        String::new()
    };
    Record {
        op,
        variant,
        matrix: m.name.clone(),
        family: m.spec.family().to_string(),
        spec: m.spec.text(),
        rows: m.p.rows,
        cols: m.p.cols,
        nnz: m.p.nnz(),
        flops,
        min_bytes: bytes,
        copies,
        reps: ctx.set.repeat,
        spblk: result_of(by_name("spblk")),
        cusparse: result_of(by_name("cuSPARSE")),
        verdict,
        note,
    }
}

/// The verdict when some library failed: comparisons use those that ran.
fn outs_named<'v>(sides: &[Side], outs: &'v [Option<Vec<f64>>]) -> Vec<(&'static str, &'v [f64])> {
    sides.iter().zip(outs).filter_map(|(s, o)| o.as_ref().map(|v| (s.api.name(), v.as_slice()))).collect()
}

// ---------------------------------------------------------------------------------------
// The operations.

/// y = A·x.
pub fn spmv(ctx: &Ctx, m: &Mat, dt: Dt) -> Res<Record> {
    let (gpu, set, p) = (ctx.gpu, ctx.set, &m.p);
    let (rows, cols, nnz, s) = (p.rows, p.cols, p.nnz(), dt.size());
    let a = rounded(values_f64(nnz, set.seed, stream(Op::Spmv, 0)), dt);
    let x = rounded(values_f64(cols, set.seed, stream(Op::Spmv, 1)), dt);
    let bytes = min_bytes(Op::Spmv, p, dt, 1);
    let k = set.copies(bytes);
    let (ptrs, colss, vals, xs, ys) = (
        upload_i32(gpu, &p.ptr, k)?,
        upload_i32(gpu, &p.col, k)?,
        upload_vals(gpu, &a, dt, k)?,
        upload_vals(gpu, &x, dt, k)?,
        allocs(gpu, s * rows, k)?,
    );
    let csr = |c: usize| DevCsr {
        rows: rows as i64,
        cols: cols as i64,
        nnz: nnz as i64,
        ptr: ptrs[c].ptr,
        col: colss[c].ptr,
        val: vals[c].ptr,
        dt,
    };
    let mut sides =
        make_sides(&ctx.libs, k, |api, c| libs::spmv(api, gpu, csr(c), xs[c].ptr, ys[c].ptr, set.preprocess));
    let outs = checked_outputs(gpu, &mut sides, &|| gpu.fill_u32(ys[0].ptr, u32::MAX, rows * s / 4), &|| {
        download_vals(gpu, ys[0].ptr, rows, dt)
    });
    let verdict = spmv_verdict(p, &a, &x, &outs_named(&sides, &outs), set.tol(dt), set.seed);
    time_sides(gpu, &mut sides, set.warmup, set.repeat)?;
    Ok(record(ctx, m, Op::Spmv, dt.name().into(), 2.0 * nnz as f64, bytes as f64, k, &sides, verdict))
}

/// The SpMV check on y = A·x (`a`, `x` the values as uploaded): the libraries' outputs
/// against each other and against exact host sums on sampled rows. Shared with `--overhead`,
/// which checks that the calls it times really compute.
pub fn spmv_verdict(p: &Pattern, a: &[f64], x: &[f64], outs: &[(&str, &[f64])], tol: f64, seed: u64) -> Verdict {
    let rows = p.rows;
    // Σ|a_ik x_k| per row bounds the terms of each sum.
    let absum: Vec<f64> = (0..rows)
        .into_par_iter()
        .map(|i| {
            let r = p.ptr[i] as usize..p.ptr[i + 1] as usize;
            r.map(|e| (a[e] * x[p.col[e] as usize]).abs()).sum()
        })
        .collect();
    let refs: Vec<Ref> = check::sample_rows(rows, |i| p.row_len(i), 64, seed)
        .into_iter()
        .map(|i| {
            let r = p.ptr[i] as usize..p.ptr[i + 1] as usize;
            (i, i, r.map(|e| a[e] * x[p.col[e] as usize]).sum())
        })
        .collect();
    check::compare(outs, rows, &|i| i..i + 1, &|i, _| tol * len_factor(p.row_len(i)) * absum[i], &refs)
}

/// `v`, a `rows` × `cols` matrix stored row by row, stored column by column instead.
fn transposed(v: &[f64], rows: usize, cols: usize) -> Vec<f64> {
    (0..rows * cols).into_par_iter().map(|q| v[(q % rows) * cols + q / rows]).collect()
}

/// `v` (`rows` × `cols`, row by row) as stored in `order`.
fn stored(v: Vec<f64>, rows: usize, cols: usize, order: Order) -> Vec<f64> {
    match order {
        Order::Row => v,
        Order::Col => transposed(&v, rows, cols),
    }
}

/// C = A·B with `n` columns, B and C in the orders `layout` = (B's, C's).
pub fn spmm(ctx: &Ctx, m: &Mat, dt: Dt, n: i64, layout: Layout) -> Res<Record> {
    let (gpu, set, p) = (ctx.gpu, ctx.set, &m.p);
    let (rows, cols, nnz, s, nc) = (p.rows, p.cols, p.nnz(), dt.size(), n as usize);
    let (ob, oc) = layout;
    let a = rounded(values_f64(nnz, set.seed, stream(Op::Spmm, 0)), dt);
    // b: B (cols × n) row by row, for the references; uploaded in B's order.
    let b = rounded(values_f64(cols * nc, set.seed, stream(Op::Spmm, 1)), dt);
    let bytes = min_bytes(Op::Spmm, p, dt, nc);
    let k = set.copies(bytes);
    let (ptrs, colss, vals, bs, cs) = (
        upload_i32(gpu, &p.ptr, k)?,
        upload_i32(gpu, &p.col, k)?,
        upload_vals(gpu, &a, dt, k)?,
        upload_vals(gpu, &stored(b.clone(), cols, nc, ob), dt, k)?,
        allocs(gpu, s * rows * nc, k)?,
    );
    let csr = |c: usize| DevCsr {
        rows: rows as i64,
        cols: cols as i64,
        nnz: nnz as i64,
        ptr: ptrs[c].ptr,
        col: colss[c].ptr,
        val: vals[c].ptr,
        dt,
    };
    let mut sides = make_sides(&ctx.libs, k, |api, c| {
        libs::spmm(api, gpu, csr(c), bs[c].ptr, cs[c].ptr, n, layout, set.preprocess)
    });
    // C read back row by row whatever its order.
    let outs = checked_outputs(gpu, &mut sides, &|| gpu.fill_u32(cs[0].ptr, u32::MAX, rows * nc * s / 4), &|| {
        let c = download_vals(gpu, cs[0].ptr, rows * nc, dt)?;
        Ok(if oc == Order::Col { transposed(&c, nc, rows) } else { c })
    });
    let bmax = b.par_iter().map(|v| v.abs()).reduce(|| 0.0, f64::max);
    let asum: Vec<f64> = (0..rows)
        .into_par_iter()
        .map(|i| (p.ptr[i] as usize..p.ptr[i + 1] as usize).map(|e| a[e].abs()).sum())
        .collect();
    let tol = set.tol(dt);
    let mut refs: Vec<Ref> = Vec::new();
    for i in check::sample_rows(rows, |i| p.row_len(i), 32, set.seed) {
        let mut acc = vec![0f64; nc];
        for e in p.ptr[i] as usize..p.ptr[i + 1] as usize {
            let brow = &b[p.col[e] as usize * nc..][..nc];
            for (o, bv) in acc.iter_mut().zip(brow) {
                *o += a[e] * bv;
            }
        }
        refs.extend(acc.into_iter().enumerate().map(|(j, v)| (i, i * nc + j, v)));
    }
    let verdict = check::compare(
        &outs_named(&sides, &outs),
        rows,
        &|i| i * nc..(i + 1) * nc,
        &|i, _| tol * len_factor(p.row_len(i)) * asum[i] * bmax,
        &refs,
    );
    time_sides(gpu, &mut sides, set.warmup, set.repeat)?;
    let variant = format!("{} N={n}{}", dt.name(), layout_suffix(layout, DEFAULT_SPMM_LAYOUT));
    let mut rec = record(ctx, m, Op::Spmm, variant, 2.0 * nnz as f64 * n as f64, bytes as f64, k, &sides, verdict);
    if let Some(ms) = ctx.libs.iter().find_map(|api| api.last_preprocess_ms()) {
        rec.note = format!("spblk preprocess {ms:.3} ms");
    }
    Ok(rec)
}

/// C = (A·B) ∘ spy(C): A rows×K, B K×cols, in the orders `layout` = (A's, B's).
pub fn sddmm(ctx: &Ctx, m: &Mat, dt: Dt, kdim: i64, layout: Layout) -> Res<Record> {
    let (gpu, set, p) = (ctx.gpu, ctx.set, &m.p);
    let (rows, cols, nnz, s, kk) = (p.rows, p.cols, p.nnz(), dt.size(), kdim as usize);
    let (oa, ob) = layout;
    // da: A row by row; db: Bᵀ (cols × K) row by row, i.e. B column by column. Both uploaded
    // in their operand's order.
    let da = rounded(values_f64(rows * kk, set.seed, stream(Op::Sddmm, 0)), dt);
    let db = rounded(values_f64(cols * kk, set.seed, stream(Op::Sddmm, 1)), dt);
    let b_stored = match ob {
        Order::Col => db.clone(),
        Order::Row => transposed(&db, cols, kk),
    };
    let bytes = min_bytes(Op::Sddmm, p, dt, kk);
    let k = set.copies(bytes);
    let (ptrs, colss, vals, as_, bs) = (
        upload_i32(gpu, &p.ptr, k)?,
        upload_i32(gpu, &p.col, k)?,
        allocs(gpu, s * nnz, k)?,
        upload_vals(gpu, &stored(da.clone(), rows, kk, oa), dt, k)?,
        upload_vals(gpu, &b_stored, dt, k)?,
    );
    let csr = |c: usize| DevCsr {
        rows: rows as i64,
        cols: cols as i64,
        nnz: nnz as i64,
        ptr: ptrs[c].ptr,
        col: colss[c].ptr,
        val: vals[c].ptr,
        dt,
    };
    let mut sides = make_sides(&ctx.libs, k, |api, c| {
        libs::sddmm(api, gpu, as_[c].ptr, bs[c].ptr, kdim, csr(c), layout, set.preprocess)
    });
    let outs = checked_outputs(gpu, &mut sides, &|| gpu.fill_u32(vals[0].ptr, u32::MAX, nnz * s / 4), &|| {
        download_vals(gpu, vals[0].ptr, nnz, dt)
    });
    let norm =
        |v: &[f64]| -> Vec<f64> { v.par_chunks(kk).map(|r| r.iter().map(|x| x * x).sum::<f64>().sqrt()).collect() };
    let (na, nb) = (norm(&da), norm(&db));
    let tol = set.tol(dt) * len_factor(kk);
    let dot =
        |i: usize, j: usize| -> f64 { da[i * kk..][..kk].iter().zip(&db[j * kk..][..kk]).map(|(x, y)| x * y).sum() };
    let mut refs: Vec<Ref> = Vec::new();
    for i in check::sample_rows(rows, |i| p.row_len(i), 64, set.seed) {
        for e in p.ptr[i] as usize..p.ptr[i + 1] as usize {
            refs.push((i, e, dot(i, p.col[e] as usize)));
        }
    }
    let verdict = check::compare(
        &outs_named(&sides, &outs),
        rows,
        &|i| p.ptr[i] as usize..p.ptr[i + 1] as usize,
        &|i, e| tol * na[i] * nb[p.col[e] as usize],
        &refs,
    );
    time_sides(gpu, &mut sides, set.warmup, set.repeat)?;
    let variant = format!("{} K={kdim}{}", dt.name(), layout_suffix(layout, DEFAULT_SDDMM_LAYOUT));
    let mut rec = record(ctx, m, Op::Sddmm, variant, 2.0 * nnz as f64 * kdim as f64, bytes as f64, k, &sides, verdict);
    if let Some(ms) = ctx.libs.iter().find_map(|api| api.last_preprocess_ms()) {
        rec.note = format!("spblk preprocess {ms:.3} ms");
    }
    Ok(rec)
}

/// CSC of the pattern with values: (col_ptr, row_ind, vals), rows ascending in each column.
fn host_csc(p: &Pattern, v: &[f64]) -> (Vec<i32>, Vec<i32>, Vec<f64>) {
    let mut cp = vec![0i32; p.cols + 1];
    for &c in &p.col {
        cp[c as usize + 1] += 1;
    }
    for j in 0..p.cols {
        cp[j + 1] += cp[j];
    }
    let mut next: Vec<i32> = cp[..p.cols].to_vec();
    let mut ri = vec![0i32; p.nnz()];
    let mut cv = vec![0f64; p.nnz()];
    for i in 0..p.rows {
        let r = p.ptr[i] as usize..p.ptr[i + 1] as usize;
        for (&c, &x) in p.col[r.clone()].iter().zip(&v[r]) {
            let d = next[c as usize] as usize;
            next[c as usize] += 1;
            ri[d] = i as i32;
            cv[d] = x;
        }
    }
    (cp, ri, cv)
}

/// A CSC matrix read back: (column offsets, row indices, values).
type Csc32 = (Vec<i32>, Vec<i32>, Vec<f32>);

/// CSR → CSC with values (f32).
pub fn csr2csc(ctx: &Ctx, m: &Mat) -> Res<Record> {
    let (gpu, set, p) = (ctx.gpu, ctx.set, &m.p);
    let dt = Dt::F32;
    let (rows, cols, nnz) = (p.rows, p.cols, p.nnz());
    let a = rounded(values_f64(nnz, set.seed, stream(Op::Csr2csc, 0)), dt);
    let bytes = min_bytes(Op::Csr2csc, p, dt, 0);
    let k = set.copies(bytes);
    let (ptrs, colss, vals, ocp, ori, ov) = (
        upload_i32(gpu, &p.ptr, k)?,
        upload_i32(gpu, &p.col, k)?,
        upload_vals(gpu, &a, dt, k)?,
        allocs(gpu, 4 * (cols + 1), k)?,
        allocs(gpu, 4 * nnz, k)?,
        allocs(gpu, 4 * nnz, k)?,
    );
    let csr = |c: usize| DevCsr {
        rows: rows as i64,
        cols: cols as i64,
        nnz: nnz as i64,
        ptr: ptrs[c].ptr,
        col: colss[c].ptr,
        val: vals[c].ptr,
        dt,
    };
    let csc = |c: usize| DevCsc { col_ptr: ocp[c].ptr, row_ind: ori[c].ptr, val: ov[c].ptr };
    let mut sides = make_sides(&ctx.libs, k, |api, c| libs::csr2csc(api, gpu, csr(c), csc(c)));
    let outs = checked_outputs(
        gpu,
        &mut sides,
        &|| {
            gpu.fill_u32(ocp[0].ptr, u32::MAX, cols + 1)?;
            gpu.fill_u32(ori[0].ptr, u32::MAX, nnz)?;
            gpu.fill_u32(ov[0].ptr, u32::MAX, nnz)
        },
        &|| {
            Ok((
                gpu.download::<i32>(ocp[0].ptr, cols + 1)?,
                gpu.download::<i32>(ori[0].ptr, nnz)?,
                gpu.download::<f32>(ov[0].ptr, nnz)?,
            ))
        },
    );
    let (hcp, hri, hv) = host_csc(p, &a);
    let hv: Vec<i32> = hv.iter().map(|&x| (x as f32).to_bits() as i32).collect();
    let named: Vec<(&str, &Csc32)> =
        sides.iter().zip(&outs).filter_map(|(s, o)| o.as_ref().map(|o| (s.api.name(), o))).collect();
    let bits: Vec<Vec<i32>> = named.iter().map(|(_, o)| o.2.iter().map(|x| x.to_bits() as i32).collect()).collect();
    let mut problems = Vec::new();
    let cps: Vec<(&str, &[i32])> = named.iter().map(|(n, o)| (*n, o.0.as_slice())).collect();
    let ris: Vec<(&str, &[i32])> = named.iter().map(|(n, o)| (*n, o.1.as_slice())).collect();
    let vs: Vec<(&str, &[i32])> = named.iter().zip(&bits).map(|((n, _), b)| (*n, b.as_slice())).collect();
    problems.extend(check::exact_i32("cscColPtr", &cps, Some(&hcp)));
    problems.extend(check::exact_i32("cscRowInd", &ris, Some(&hri)));
    problems.extend(check::exact_i32("cscVal (bits)", &vs, Some(&hv)));
    let verdict = if named.is_empty() {
        Verdict::skipped("no library ran")
    } else if problems.is_empty() {
        Verdict { ok: true, max_err: 0.0, msg: "ok (bit-identical to the host transpose)".into() }
    } else {
        Verdict { ok: false, max_err: f64::INFINITY, msg: problems.join("; ") }
    };
    time_sides(gpu, &mut sides, set.warmup, set.repeat)?;
    Ok(record(ctx, m, Op::Csr2csc, "f32".into(), 0.0, bytes as f64, k, &sides, verdict))
}

/// A CSR matrix read back from the device.
struct HostCsr {
    ptr: Vec<i32>,
    col: Vec<i32>,
    val: Vec<f64>,
}

/// A SpGEMM case's record, before any run, and its products (0 when A is not square).
fn spgemm_record(m: &Mat, variant: &str) -> (Record, u64) {
    let p = &m.p;
    let products = if p.rows == p.cols { p.products_squared() } else { 0 };
    let rec = Record {
        op: Op::Spgemm,
        variant: variant.into(),
        matrix: m.name.clone(),
        family: m.spec.family().into(),
        spec: m.spec.text(),
        rows: p.rows,
        cols: p.cols,
        nnz: p.nnz(),
        flops: 2.0 * products as f64,
        min_bytes: 0.0,
        copies: 1,
        reps: 0,
        spblk: LibResult::default(),
        cusparse: LibResult::default(),
        verdict: Verdict::skipped("not run"),
        note: if p.rows == p.cols { format!("{products} products") } else { String::new() },
    };
    (rec, products)
}

type SpgemmInput = (Vec<f64>, [DevBuf; 3], DevCsr);

/// A (f32) on the device for C = A·A: its values, the arrays (kept alive) and the
/// descriptor; or why the case is skipped.
fn spgemm_input(ctx: &Ctx, m: &Mat, products: u64) -> Res<Result<SpgemmInput, Verdict>> {
    let (gpu, set, p) = (ctx.gpu, ctx.set, &m.p);
    if p.rows != p.cols {
        return Ok(Err(Verdict::skipped("A·A needs a square matrix")));
    }
    if products > set.spgemm_max_products {
        let why = format!("{products} products exceed --spgemm-max-products {}", set.spgemm_max_products);
        return Ok(Err(Verdict::skipped(&why)));
    }
    let dt = Dt::F32;
    let a = rounded(values_f64(p.nnz(), set.seed, stream(Op::Spgemm, 0)), dt);
    let (dptr, dcol, dval) = (gpu.upload(&p.ptr)?, gpu.upload(&p.col)?, upload_vals(gpu, &a, dt, 1)?.remove(0));
    let csr = DevCsr {
        rows: p.rows as i64,
        cols: p.rows as i64,
        nnz: p.nnz() as i64,
        ptr: dptr.ptr,
        col: dcol.ptr,
        val: dval.ptr,
        dt,
    };
    Ok(Ok((a, [dptr, dcol, dval], csr)))
}

/// C = A·A through the whole SpGEMM protocol (f32).
pub fn spgemm(ctx: &Ctx, m: &Mat) -> Res<Record> {
    let (gpu, set, p) = (ctx.gpu, ctx.set, &m.p);
    let dt = Dt::F32;
    let rows = p.rows;
    let (mut rec, products) = spgemm_record(m, "f32 A·A");
    let (a, _arrays, csr) = match spgemm_input(ctx, m, products)? {
        Ok(x) => x,
        Err(v) => {
            rec.verdict = v;
            return Ok(rec);
        }
    };
    // Checked, memory-probed run of each library with real allocations.
    let mut results: Vec<LibResult> = Vec::new();
    let mut outs: Vec<Option<HostCsr>> = Vec::new();
    let mut algs = Vec::new();
    for &api in &ctx.libs {
        let mut r = LibResult::default();
        let mut alg = ctx.set.spgemm_alg;
        let mut run = |alg: SpgemmAlg| -> Res<HostCsr> {
            let mut mem = Tracked::new(gpu);
            let o = libs::spgemm(api, gpu, csr, alg, &mut mem, true, true)?;
            let ptr = gpu.download::<i32>(o.ptr, rows + 1)?;
            let col = gpu.download::<i32>(o.col, o.nnz as usize)?;
            let val = download_vals(gpu, o.val, o.nnz as usize, dt)?;
            r.own_peak_bytes = Some(o.own_bytes);
            r.meminfo_peak_bytes = o.meminfo_peak;
            r.detail = format!("buffer1 {} B, buffer2 {} B, buffer3 {} B, nnz(C) {}", o.buf1, o.buf2, o.buf3, o.nnz);
            Ok(HostCsr { ptr, col, val })
        };
        let mut out = run(alg);
        if let Err(e) = &out {
            // What cuSPARSE users do when ALG1 runs out of resources (cupy, ginkgo).
            let default = matches!(alg, SpgemmAlg::Default | SpgemmAlg::Esc);
            if api.name() == "cuSPARSE" && default && e.contains("INSUFFICIENT_RESOURCES") {
                alg = SpgemmAlg::Alg2;
                out = run(alg).map_err(|e2| format!("{e}; then with ALG2: {e2}"));
            }
        }
        r.alg = match (api.name(), alg) {
            ("cuSPARSE", SpgemmAlg::Default | SpgemmAlg::Esc) => "CUSPARSE_SPGEMM_DEFAULT".into(),
            ("cuSPARSE", SpgemmAlg::Alg2) if ctx.set.spgemm_alg != SpgemmAlg::Alg2 => {
                "CUSPARSE_SPGEMM_ALG2 (ALG1 ran out of resources)".into()
            }
            (name, alg) => {
                format!("{}_SPGEMM_{alg:?}", if name == "cuSPARSE" { "CUSPARSE" } else { "SPBLK" }).to_uppercase()
            }
        };
        match out {
            Ok(h) => outs.push(Some(h)),
            Err(e) => {
                r.error = Some(e);
                outs.push(None);
            }
        }
        results.push(r);
        algs.push(alg);
    }

    // Compare: exact structure, values within tolerance, sampled rows against the host.
    let names: Vec<&str> = ctx.libs.iter().map(|l| l.name()).collect();
    let ran: Vec<(&str, &HostCsr)> = names.iter().zip(&outs).filter_map(|(n, o)| o.as_ref().map(|o| (*n, o))).collect();
    let rowmax: Vec<f64> = (0..rows)
        .into_par_iter()
        .map(|k| (p.ptr[k] as usize..p.ptr[k + 1] as usize).map(|e| a[e].abs()).fold(0.0, f64::max))
        .collect();
    let (scale, prods): (Vec<f64>, Vec<usize>) = (0..rows)
        .into_par_iter()
        .map(|i| {
            let r = p.ptr[i] as usize..p.ptr[i + 1] as usize;
            let s: f64 = r.clone().map(|e| a[e].abs() * rowmax[p.col[e] as usize]).sum();
            (s, r.map(|e| p.row_len(p.col[e] as usize)).sum::<usize>())
        })
        .unzip();
    let tol = set.tol(dt);
    let sample = check::sample_rows(rows, |i| prods[i], 32, set.seed);
    // Exact rows on the host (sorted columns, f64 sums).
    let host_rows: Vec<(usize, Vec<(i32, f64)>)> = sample
        .iter()
        .map(|&i| {
            let mut terms: Vec<(i32, f64)> = Vec::new();
            for e in p.ptr[i] as usize..p.ptr[i + 1] as usize {
                let k = p.col[e] as usize;
                for f in p.ptr[k] as usize..p.ptr[k + 1] as usize {
                    terms.push((p.col[f], a[e] * a[f]));
                }
            }
            terms.sort_by_key(|t| t.0);
            let mut row: Vec<(i32, f64)> = Vec::new();
            for (c, v) in terms {
                match row.last_mut() {
                    Some(l) if l.0 == c => l.1 += v,
                    _ => row.push((c, v)),
                }
            }
            (i, row)
        })
        .collect();
    let mut problems = Vec::new();
    let mut max_err = f64::NAN;
    if ran.len() == 2 {
        problems.extend(check::exact_i32(
            "C row offsets",
            &[(ran[0].0, &ran[0].1.ptr), (ran[1].0, &ran[1].1.ptr)],
            None,
        ));
        if problems.is_empty() {
            problems.extend(check::exact_i32(
                "C columns",
                &[(ran[0].0, &ran[0].1.col), (ran[1].0, &ran[1].1.col)],
                None,
            ));
        }
    }
    for (name, c) in &ran {
        for (i, row) in &host_rows {
            let got = c.ptr.get(*i..*i + 2).map(|w| w[0] as usize..w[1] as usize);
            let ok = got.clone().is_some_and(|g| {
                g.len() == row.len()
                    && c.col.get(g.clone()).is_some_and(|cols| cols.iter().zip(row).all(|(x, y)| *x == y.0))
            });
            if !ok {
                problems.push(format!("{name}: row {i} of C has the wrong structure (host: {} entries)", row.len()));
                break;
            }
        }
    }
    if problems.is_empty() && !ran.is_empty() {
        let vals: Vec<(&str, &[f64])> = ran.iter().map(|(n, c)| (*n, c.val.as_slice())).collect();
        let cptr = &ran[0].1.ptr;
        let mut refs: Vec<Ref> = Vec::new();
        for (i, row) in &host_rows {
            let start = cptr[*i] as usize;
            refs.extend(row.iter().enumerate().map(|(j, (_, v))| (*i, start + j, *v)));
        }
        let v = check::compare(
            &vals,
            rows,
            &|i| cptr[i] as usize..cptr[i + 1] as usize,
            &|i, _| tol * len_factor(prods[i]) * scale[i],
            &refs,
        );
        max_err = v.max_err;
        if !v.ok {
            problems.push(v.msg);
        }
    }
    rec.verdict = if ran.is_empty() {
        Verdict::skipped("no library ran")
    } else if problems.is_empty() {
        let what = if ran.len() == 2 { "same structure, values agree, " } else { "" };
        Verdict { ok: true, max_err, msg: format!("ok ({what}{} sampled rows match the host)", host_rows.len()) }
    } else {
        Verdict { ok: false, max_err: f64::INFINITY, msg: problems.join("; ") }
    };
    if let Some((_, c)) = ran.first() {
        let cnnz = c.col.len();
        rec.min_bytes = (min_bytes(Op::Spgemm, p, dt, 0) + 4 * (rows + 1) + 8 * cnnz) as f64;
        rec.note = format!("{products} products, nnz(C) {cnnz}");
    }

    // Timed runs: buffers and C from a preallocated arena, so that only the libraries' own
    // work (their internal allocations and host synchronizations included) is timed. One
    // untimed round first; its times decide the repeat count (about 2 s per library at most,
    // at least 3 runs, at most --repeat).
    let need = results.iter().filter_map(|r| r.own_peak_bytes).max().unwrap_or(0);
    let mut arena = Arena::new(gpu, need + need / 8 + (16 << 20))?;
    let live: Vec<usize> = (0..ctx.libs.len()).filter(|&i| results[i].error.is_none()).collect();
    let mut round = |results: &mut [LibResult], record: bool| -> Res<f64> {
        let mut slowest = 0f64;
        for &li in &live {
            if results[li].error.is_some() {
                continue;
            }
            arena.reset();
            let (s, e) = (gpu.event()?, gpu.event()?);
            gpu.record(&s)?;
            let out = libs::spgemm(ctx.libs[li], gpu, csr, algs[li], &mut arena, false, false);
            gpu.record(&e)?;
            match out {
                Ok(o) => {
                    let t = gpu.elapsed_ms(&s, &e)?;
                    drop(o);
                    slowest = slowest.max(t);
                    if record {
                        results[li].times_ms.push(t);
                    }
                }
                Err(err) => results[li].error = Some(err),
            }
        }
        Ok(slowest)
    };
    let warm_ms = round(&mut results, false)?;
    let reps = if warm_ms > 0.0 { ((2000.0 / warm_ms) as usize).clamp(3, set.repeat.max(3)) } else { set.repeat };
    rec.reps = reps;
    for _ in 0..reps {
        round(&mut results, true)?;
    }
    gpu.sync()?;
    for r in &mut results {
        r.ran = r.error.is_none() && !r.times_ms.is_empty();
        r.median_ms = stats::median(&r.times_ms);
        r.min_ms = stats::min(&r.times_ms);
        r.max_ms = stats::max(&r.times_ms);
    }
    for (api, r) in ctx.libs.iter().zip(results) {
        match api.name() {
            "spblk" => rec.spblk = r,
            _ => rec.cusparse = r,
        }
    }
    Ok(rec)
}

/// C = A·A recomputed through the reuse path (`reuse_compute`, f32, after one set-up):
/// each library's result against its own full protocol (spblk's bit for bit), both timed
/// (median of CUDA-event times), and spblk's full protocol timed beside it for the note.
pub fn spgemm_reuse(ctx: &Ctx, m: &Mat) -> Res<Record> {
    let (gpu, set) = (ctx.gpu, ctx.set);
    let (mut rec, products) = spgemm_record(m, "f32 A·A reuse_compute");
    let (_, _arrays, csr) = match spgemm_input(ctx, m, products)? {
        Ok(x) => x,
        Err(v) => {
            rec.verdict = v;
            return Ok(rec);
        }
    };
    let mut results = Vec::new();
    let mut problems = Vec::new();
    let mut spblk_full_ms = f64::NAN;
    for &api in &ctx.libs {
        let mut r = LibResult { alg: format!("{}SpGEMMreuse_compute (DEFAULT)", api.name()), ..Default::default() };
        let mut run = || -> Res<()> {
            let mut mem = Tracked::new(gpu);
            let full = libs::spgemm(api, gpu, csr, SpgemmAlg::Default, &mut mem, false, false)?;
            let want = download_vals(gpu, full.val, full.nnz as usize, Dt::F32)?;
            let mut reuse_mem = Tracked::new(gpu);
            let reuse = libs::spgemm_reuse(api, csr, &mut reuse_mem)?;
            reuse.compute()?;
            let got = download_vals(gpu, reuse.val, reuse.nnz as usize, Dt::F32)?;
            let rows = csr.rows as usize + 1;
            let same_structure = reuse.nnz == full.nnz
                && gpu.download::<i32>(reuse.ptr, rows)? == gpu.download::<i32>(full.ptr, rows)?
                && gpu.download::<i32>(reuse.col, reuse.nnz as usize)?
                    == gpu.download::<i32>(full.col, full.nnz as usize)?;
            let scale = want.iter().fold(0f64, |s, v| s.max(v.abs())).max(f64::MIN_POSITIVE);
            let err = got.iter().zip(&want).fold(0f64, |e, (x, y)| e.max((x - y).abs())) / scale;
            let exact = got.iter().zip(&want).all(|(x, y)| x.to_bits() == y.to_bits());
            if !same_structure {
                problems.push(format!("{}: reuse structure differs from the full product's", api.name()));
            } else if api.name() == "spblk" && !exact {
                problems.push(format!("spblk: reuse values differ from the full product's (rel. {err:.2e})"));
            } else if err > set.tol(Dt::F32) {
                problems.push(format!("{}: reuse values off by {err:.2e} of the largest", api.name()));
            }
            r.detail = format!("reuse memory {} B", reuse_mem.in_use());
            let (s, e) = (gpu.event()?, gpu.event()?);
            reuse.compute()?;
            let reps = set.repeat.max(3);
            for _ in 0..reps {
                gpu.record(&s)?;
                reuse.compute()?;
                gpu.record(&e)?;
                r.times_ms.push(gpu.elapsed_ms(&s, &e)?);
            }
            if api.name() == "spblk" {
                drop((full, reuse));
                let need = mem.in_use() + (16 << 20);
                let mut arena = Arena::new(gpu, need + need / 8)?;
                let mut t = Vec::new();
                for _ in 0..reps.min(10) {
                    arena.reset();
                    gpu.record(&s)?;
                    let o = libs::spgemm(api, gpu, csr, SpgemmAlg::Default, &mut arena, false, false)?;
                    gpu.record(&e)?;
                    t.push(gpu.elapsed_ms(&s, &e)?);
                    drop(o);
                }
                spblk_full_ms = stats::median(&t);
            }
            Ok(())
        };
        if let Err(e) = run() {
            r.error = Some(e);
        }
        r.ran = r.error.is_none() && !r.times_ms.is_empty();
        r.median_ms = stats::median(&r.times_ms);
        r.min_ms = stats::min(&r.times_ms);
        r.max_ms = stats::max(&r.times_ms);
        rec.reps = r.times_ms.len();
        results.push(r);
    }
    gpu.sync()?;
    let spblk_reuse = results.iter().zip(&ctx.libs).find(|(_, a)| a.name() == "spblk").map(|(r, _)| r.median_ms);
    if let Some(t) = spblk_reuse {
        rec.note = format!(
            "{products} products; spblk full protocol {spblk_full_ms:.3} ms = {:.1}x its reuse_compute",
            spblk_full_ms / t
        );
    }
    rec.verdict = if problems.is_empty() {
        Verdict { ok: true, max_err: 0.0, msg: "ok (reuse values equal each library's full product)".into() }
    } else {
        Verdict { ok: false, max_err: f64::INFINITY, msg: problems.join("; ") }
    };
    for (api, r) in ctx.libs.iter().zip(results) {
        match api.name() {
            "spblk" => rec.spblk = r,
            _ => rec.cusparse = r,
        }
    }
    Ok(rec)
}

/// SpMM's (B, C) and SDDMM's (A, B) orders when no layout is asked for; their labels carry
/// no suffix (the results before layouts existed are comparable).
pub const DEFAULT_SPMM_LAYOUT: Layout = (Order::Row, Order::Row);
pub const DEFAULT_SDDMM_LAYOUT: Layout = (Order::Row, Order::Col);

/// ":xy" after a label: the two dense operands' orders (r row, c column), nothing for the
/// operation's default layout.
fn layout_suffix(layout: Layout, default: Layout) -> String {
    let c = |o: Order| if o == Order::Row { 'r' } else { 'c' };
    if layout == default {
        String::new()
    } else {
        format!(":{}{}", c(layout.0), c(layout.1))
    }
}

/// The variants of an operation the settings ask for: (value type, N or K, dense layout,
/// label).
pub fn variants(op: Op, set: &Settings) -> Vec<(Dt, usize, Layout, String)> {
    match op {
        // The width slot carries the index of spblk's algorithm in `spmv_algs`.
        Op::Spmv => set
            .spmv_types
            .iter()
            .flat_map(|&dt| {
                set.spmv_algs.iter().enumerate().map(move |(i, &(_, name))| {
                    let label =
                        if name == "default" { dt.name().to_string() } else { format!("{} alg={name}", dt.name()) };
                    (dt, i, DEFAULT_SPMM_LAYOUT, label)
                })
            })
            .collect(),
        Op::Spmm => set
            .spmm_n
            .iter()
            .flat_map(|&n| {
                set.spmm_layouts.iter().map(move |&l| {
                    let alg = if set.spmm_alg.0 == 0 { String::new() } else { format!(" alg={}", set.spmm_alg.1) };
                    (Dt::F32, n as usize, l, format!("f32 N={n}{}{alg}", layout_suffix(l, DEFAULT_SPMM_LAYOUT)))
                })
            })
            .collect(),
        Op::Sddmm => set
            .sddmm_k
            .iter()
            .flat_map(|&k| {
                set.sddmm_layouts.iter().map(move |&l| {
                    let alg = if set.sddmm_alg.0 == 0 { String::new() } else { format!(" alg={}", set.sddmm_alg.1) };
                    (Dt::F32, k as usize, l, format!("f32 K={k}{}{alg}", layout_suffix(l, DEFAULT_SDDMM_LAYOUT)))
                })
            })
            .collect(),
        Op::Spgemm => {
            let mut v = vec![(Dt::F32, 0, DEFAULT_SPMM_LAYOUT, "f32 A·A".to_string())];
            if set.spgemm_reuse {
                v.push((Dt::F32, 1, DEFAULT_SPMM_LAYOUT, "f32 A·A reuse_compute".to_string()));
            }
            v
        }
        Op::Csr2csc => vec![(Dt::F32, 0, DEFAULT_SPMM_LAYOUT, "f32".to_string())],
    }
}

/// The fewest bytes an operation must move through device memory: every input read once,
/// every output written once (β = 0, so outputs are not read). `width` is N for SpMM and K
/// for SDDMM. For SpGEMM this counts A only; C's arrays are added once nnz(C) is known.
pub fn min_bytes(op: Op, p: &Pattern, dt: Dt, width: usize) -> usize {
    let (rows, cols, nnz, s) = (p.rows, p.cols, p.nnz(), dt.size());
    let a = 4 * (rows + 1) + (4 + s) * nnz;
    match op {
        Op::Spmv => a + s * cols + s * rows,
        Op::Spmm => a + s * cols * width + s * rows * width,
        Op::Sddmm => a + s * rows * width + s * width * cols,
        Op::Csr2csc => a + 4 * (cols + 1) + (4 + s) * nnz,
        Op::Spgemm => a,
    }
}

/// Floating-point operations (multiply and add counted separately); 0 for conversions.
pub fn flops(op: Op, p: &Pattern, width: usize) -> f64 {
    let nnz = p.nnz() as f64;
    match op {
        Op::Spmv => 2.0 * nnz,
        Op::Spmm | Op::Sddmm => 2.0 * nnz * width as f64,
        Op::Spgemm if p.rows == p.cols => 2.0 * p.products_squared() as f64,
        Op::Spgemm => 0.0,
        Op::Csr2csc => 0.0,
    }
}

/// Runs every requested operation on one matrix.
pub fn run_matrix(ctx: &Ctx, m: &Mat, mut progress: impl FnMut(&Record)) -> Vec<Record> {
    let mut out = Vec::new();
    for &op in &m.ops {
        for (dt, w, layout, label) in variants(op, ctx.set) {
            let r = match op {
                Op::Spmv => {
                    let (alg, _) = ctx.set.spmv_algs[w];
                    ctx.libs.iter().for_each(|api| api.set_spmv_alg(alg));
                    spmv(ctx, m, dt).map(|mut r| {
                        r.variant = label.clone();
                        r
                    })
                }
                Op::Spmm => {
                    ctx.libs.iter().for_each(|api| api.set_spmm_alg(ctx.set.spmm_alg.0));
                    spmm(ctx, m, dt, w as i64, layout).map(|mut r| {
                        r.variant = label.clone();
                        r
                    })
                }
                Op::Sddmm => {
                    ctx.libs.iter().for_each(|api| api.set_sddmm_alg(ctx.set.sddmm_alg.0));
                    sddmm(ctx, m, dt, w as i64, layout).map(|mut r| {
                        r.variant = label.clone();
                        r
                    })
                }
                Op::Spgemm if w == 1 => spgemm_reuse(ctx, m),
                Op::Spgemm => spgemm(ctx, m),
                Op::Csr2csc => csr2csc(ctx, m),
            };
            let r = r.unwrap_or_else(|e| {
                let mut rec = record(ctx, m, op, label, 0.0, 0.0, 0, &[], Verdict::skipped("case setup failed"));
                rec.spblk.error = Some(format!("case setup failed: {e}"));
                rec.cusparse.error = Some(format!("case setup failed: {e}"));
                rec
            });
            progress(&r);
            out.push(r);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposed_stores_column_by_column() {
        // 2 × 3, row by row: [[0, 1, 2], [3, 4, 5]].
        let v: Vec<f64> = (0..6).map(f64::from).collect();
        assert_eq!(transposed(&v, 2, 3), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        assert_eq!(transposed(&transposed(&v, 2, 3), 3, 2), v);
        assert_eq!(stored(v.clone(), 2, 3, Order::Row), v);
    }

    #[test]
    fn default_layouts_keep_the_old_labels() {
        assert_eq!(layout_suffix(DEFAULT_SPMM_LAYOUT, DEFAULT_SPMM_LAYOUT), "");
        assert_eq!(layout_suffix((Order::Col, Order::Row), DEFAULT_SPMM_LAYOUT), ":cr");
        assert_eq!(layout_suffix((Order::Row, Order::Row), DEFAULT_SDDMM_LAYOUT), ":rr");
    }
}
