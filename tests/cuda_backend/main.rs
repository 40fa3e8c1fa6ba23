//! The CUDA backend against the host backend, through the C API, on random inputs: every
//! precision combination, both index widths and bases, CSR/CSC/COO, opA/opB N and T, row-
//! and column-major dense operands with padded leading dimensions, host and device pointer
//! modes, beta = 0 with NaN-filled outputs, and matrices with empty rows, a dense row,
//! power-law rows and no entries. Without a GPU each test prints `SKIPPED: <reason>` and
//! passes.
#![cfg(feature = "cuda")]

mod aspt_spmm;
mod batches;
mod bsr;
mod capture;
mod dense_sparse;
mod determinism;
mod ell;
mod factor;
mod geam;
mod guest;
mod index_arrays;
mod plans;
mod problem;
mod sddmm;
mod spgemm_chunks;
mod spgemm_esc;
mod spgemm_reuse;
mod spmv_algs;
mod spsm;
mod spsv;
mod spvec;
mod support;
mod vbr;

use std::ffi::c_void;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use spblk::capi::convert::*;
use spblk::capi::dense::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::spgemm::*;
use spblk::capi::types::*;
use support::*;

const N: spblkOperation_t = SPBLK_OPERATION_NON_TRANSPOSE;
const T: spblkOperation_t = SPBLK_OPERATION_TRANSPOSE;

/// Entries per row of op(A).
fn terms(entries: &[(usize, usize)], op: spblkOperation_t) -> usize {
    let mut count = std::collections::HashMap::new();
    for &(i, j) in entries {
        *count.entry(if op == N { i } else { j }).or_insert(0usize) += 1;
    }
    count.values().copied().max().unwrap_or(0)
}

fn shapes(k: usize) -> Shape {
    match k % 5 {
        0 => Shape::Uniform(3),
        1 => Shape::EmptyRows(6),
        2 => Shape::DenseRow,
        3 => Shape::PowerLaw,
        _ => Shape::Empty,
    }
}

// ------------------------------------------------------------------------------------------
// SpMV

struct SpmvCase {
    op: spblkOperation_t,
    a: Sp,
    x: Vec<u8>,
    y: Vec<u8>,
    alpha: f64,
    beta: f64,
    out: spblkDataType_t,
    compute: spblkDataType_t,
    device_scalars: bool,
    preprocess: bool,
    exact: bool,
    alg: spblkSpMVAlg_t,
}

impl SpmvCase {
    fn abs(&self) -> SpmvCase {
        SpmvCase {
            a: self.a.with_abs_values(),
            x: abs_bytes(&self.x, self.a.vt),
            y: abs_bytes(&self.y, self.out),
            alpha: self.alpha.abs(),
            beta: self.beta.abs(),
            ..*self
        }
    }
}

impl Clone for SpmvCase {
    fn clone(&self) -> Self {
        SpmvCase { a: self.a.clone(), x: self.x.clone(), y: self.y.clone(), ..*self }
    }
}

fn dn_vec(side: &mut Side, bytes: &[u8], t: spblkDataType_t) -> (spblkDnVecDescr_t, *mut c_void) {
    let p = side.put(bytes);
    let mut d = std::ptr::null_mut();
    ok(spblkCreateDnVec(&mut d, (bytes.len() / vsize(t)) as i64, p, t), "spblkCreateDnVec");
    (d, p)
}

fn run_spmv(side: &mut Side, c: &SpmvCase) -> Vec<u8> {
    side.set_pointer_mode(c.device_scalars);
    let a = c.a.descr(side);
    let (x, _) = dn_vec(side, &c.x, c.a.vt);
    let (y, yp) = dn_vec(side, &c.y, c.out);
    let alpha = side.scalar(c.device_scalars, &scalar_bytes(c.alpha, c.compute));
    let beta = side.scalar(c.device_scalars, &scalar_bytes(c.beta, c.compute));
    let h = side.handle;
    let alg = c.alg;
    let mut size = 0usize;
    ok(spblkSpMV_bufferSize(h, c.op, alpha, a, x, beta, y, c.compute, alg, &mut size), "spblkSpMV_bufferSize");
    let buf = side.buffer(size);
    if c.preprocess {
        ok(spblkSpMV_preprocess(h, c.op, alpha, a, x, beta, y, c.compute, alg, buf), "spblkSpMV_preprocess");
    }
    ok(spblkSpMV(h, c.op, alpha, a, x, beta, y, c.compute, alg, buf), "spblkSpMV");
    let out = side.get(yp, c.y.len());
    spblkDestroySpMat(a);
    spblkDestroyDnVec(x);
    spblkDestroyDnVec(y);
    out
}

fn check_spmv(what: &str, c: &SpmvCase, entries: &[(usize, usize)]) {
    let mut host = Side::new(Kind::Host);
    let mut gpu = Side::new(Kind::Cuda);
    let want = decode(&run_spmv(&mut host, c), c.out);
    let got = decode(&run_spmv(&mut gpu, c), c.out);
    let scale = decode(&run_spmv(&mut host, &c.abs()), c.out);
    compare(what, &got, &want, &scale, terms(entries, c.op), c.out, c.compute, c.exact);
}

#[allow(clippy::too_many_arguments)]
fn spmv_case(
    r: &mut rand::rngs::StdRng,
    format: spblkFormat_t,
    op: spblkOperation_t,
    m: usize,
    n: usize,
    shape: Shape,
    ity: spblkIndexType_t,
    base: spblkIndexBase_t,
    prec: (spblkDataType_t, spblkDataType_t, spblkDataType_t),
    beta_zero: bool,
    device_scalars: bool,
    exact: bool,
) -> (SpmvCase, Vec<(usize, usize)>) {
    let (vin, out, compute) = prec;
    let entries = pattern(r, m, n, shape);
    let vals = some_values(r, entries.len(), exact);
    let a = Sp::new(r, format, m, n, &entries, &vals, ity, base, vin);
    let (xl, yl) = if op == N { (n, m) } else { (m, n) };
    let x = encode(&some_values(r, xl, exact), vin);
    let y = if beta_zero { encode(&vec![f64::NAN; yl], out) } else { encode(&some_values(r, yl, exact), out) };
    let case = SpmvCase {
        op,
        a,
        x,
        y,
        alpha: some_scalar(r, 0.5, 2.0, exact),
        beta: if beta_zero { 0.0 } else { some_scalar(r, -1.0, 1.0, exact) },
        out,
        compute,
        device_scalars,
        preprocess: r.gen_bool(0.5),
        exact,
        alg: SPBLK_SPMV_ALG_DEFAULT,
    };
    (case, entries)
}

#[test]
fn spmv_matches_host() {
    if !gpu("spmv_matches_host") {
        return;
    }
    let mut r = rng(1);
    let mut k = 0usize;
    for prec in PRECISIONS {
        for format in [SPBLK_FORMAT_CSR, SPBLK_FORMAT_CSC, SPBLK_FORMAT_COO] {
            for op in [N, T] {
                for ity in [SPBLK_INDEX_32I, SPBLK_INDEX_64I] {
                    k += 1;
                    let (m, n) =
                        if k % 7 == 0 { (0, r.gen_range(0..9)) } else { (r.gen_range(1..70), r.gen_range(1..70)) };
                    let shape = shapes(k);
                    let (c, e) = spmv_case(
                        &mut r,
                        format,
                        op,
                        m,
                        n,
                        shape,
                        ity,
                        (k % 2) as u32,
                        prec,
                        k % 3 == 0,
                        k % 4 < 2,
                        k % 5 < 2,
                    );
                    if quick_skip(k) {
                        continue;
                    }
                    check_spmv(
                        &format!("spmv case {k} {prec:?} fmt {format} op {op} idx {ity} {m}x{n} {shape:?}"),
                        &c,
                        &e,
                    );
                }
            }
        }
    }
}

/// Rows longer than the vector kernel's threshold take the chunked path; results must
/// match the host and be bit-identical across runs.
#[test]
fn spmv_long_rows_are_correct_and_deterministic() {
    if !gpu("spmv_long_rows_are_correct_and_deterministic") {
        return;
    }
    let mut r = rng(2);
    let mut i = 0usize;
    for (k, prec) in [PRECISIONS[0], PRECISIONS[1], PRECISIONS[4]].into_iter().enumerate() {
        for (format, op) in [(SPBLK_FORMAT_CSR, N), (SPBLK_FORMAT_CSR, T), (SPBLK_FORMAT_COO, N)] {
            for (m, n, shape) in
                [(300, 9000, Shape::DenseRow), (2000, 6000, Shape::PowerLaw), (40, 3000, Shape::Uniform(1500))]
            {
                i += 1;
                if quick_skip(i) {
                    continue;
                }
                let ity = if k % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
                let (c, e) =
                    spmv_case(&mut r, format, op, m, n, shape, ity, (k % 2) as u32, prec, false, k == 1, i % 2 == 0);
                let what = format!("long rows {prec:?} fmt {format} op {op} {m}x{n} {shape:?}");
                check_spmv(&what, &c, &e);
                let mut gpu = Side::new(Kind::Cuda);
                let first = run_spmv(&mut gpu, &c);
                for _ in 0..3 {
                    assert!(run_spmv(&mut gpu, &c) == first, "{what}: results differ between runs");
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// SpMM

#[derive(Clone)]
struct SpmmCase {
    op_a: spblkOperation_t,
    op_b: spblkOperation_t,
    a: Sp,
    b: Dn,
    c: Dn,
    alpha: f64,
    beta: f64,
    compute: spblkDataType_t,
    device_scalars: bool,
    exact: bool,
    alg: spblkSpMMAlg_t,
    /// Build the plan with spblkAnalyze (its algorithm for `alg`) instead of the preprocess.
    analyze_first: bool,
}

impl SpmmCase {
    /// C = 1.25 A B - 0.5 C with `SPBLK_SPMM_ALG_DEFAULT`, op N, row-major random B and C for
    /// an m x k matrix `a`, host scalars.
    fn default_row_major(
        r: &mut StdRng,
        a: Sp,
        (m, k, n): (usize, usize, usize),
        types: (spblkDataType_t, spblkDataType_t, spblkDataType_t),
    ) -> SpmmCase {
        let (vin, out, compute) = types;
        SpmmCase {
            op_a: N,
            op_b: N,
            a,
            b: Dn::random(r, k, n, SPBLK_ORDER_ROW, vin, false),
            c: Dn::random(r, m, n, SPBLK_ORDER_ROW, out, false),
            alpha: 1.25,
            beta: -0.5,
            compute,
            device_scalars: false,
            exact: false,
            alg: SPBLK_SPMM_ALG_DEFAULT,
            analyze_first: false,
        }
    }
    /// The same case with every value and scalar made non-negative: its result bounds the
    /// rounding error of the original's (`compare`'s scale).
    fn with_abs_values(&self) -> SpmmCase {
        SpmmCase {
            a: self.a.with_abs_values(),
            b: self.b.with_abs_values(),
            c: self.c.with_abs_values(),
            alpha: self.alpha.abs(),
            beta: self.beta.abs(),
            ..self.clone()
        }
    }
}

fn run_spmm(side: &mut Side, c: &SpmmCase) -> Vec<u8> {
    side.set_pointer_mode(c.device_scalars);
    let a = c.a.descr(side);
    let bp = side.put(&c.b.data);
    let b = c.b.descr(bp);
    let cp = side.put(&c.c.data);
    let cd = c.c.descr(cp);
    let alpha = side.scalar(c.device_scalars, &scalar_bytes(c.alpha, c.compute));
    let beta = side.scalar(c.device_scalars, &scalar_bytes(c.beta, c.compute));
    let (h, alg) = (side.handle, c.alg);
    let mut size = 0usize;
    ok(
        spblkSpMM_bufferSize(h, c.op_a, c.op_b, alpha, a, b, beta, cd, c.compute, alg, &mut size),
        "spblkSpMM_bufferSize",
    );
    let buf = side.buffer(size);
    if c.analyze_first {
        let analysis = match alg {
            SPBLK_SPMM_ALG_RODE => SPBLK_ANALYSIS_RODE,
            SPBLK_SPMM_ALG_ASPT => SPBLK_ANALYSIS_ASPT,
            _ => panic!("analyze_first is for RoDe and ASpT"),
        };
        ok(spblk::capi::analyze::spblkAnalyze(h, a, analysis, std::ptr::null()), "spblkAnalyze");
    } else {
        ok(spblkSpMM_preprocess(h, c.op_a, c.op_b, alpha, a, b, beta, cd, c.compute, alg, buf), "spblkSpMM_preprocess");
    }
    ok(spblkSpMM(h, c.op_a, c.op_b, alpha, a, b, beta, cd, c.compute, alg, buf), "spblkSpMM");
    let out = side.get(cp, c.c.data.len());
    spblkDestroySpMat(a);
    spblkDestroyDnMat(b);
    spblkDestroyDnMat(cd);
    out
}

/// The logical elements of C (padding excluded: the kernels must not write it either, which
/// `check_padding` verifies).
fn logical(d: &Dn, bytes: &[u8]) -> Vec<f64> {
    let all = decode(bytes, d.vt);
    d.positions().into_iter().map(|p| all[p]).collect()
}

fn check_padding(what: &str, d: &Dn, got: &[u8]) {
    let inside: std::collections::HashSet<usize> = d.positions().into_iter().collect();
    let s = vsize(d.vt);
    for p in 0..d.data.len() / s {
        if !inside.contains(&p) {
            assert_eq!(
                &got[p * s..(p + 1) * s],
                &d.data[p * s..(p + 1) * s],
                "{what}: padding element {p} was written"
            );
        }
    }
}

#[test]
fn spmm_matches_host() {
    if !gpu("spmm_matches_host") {
        return;
    }
    let mut r = rng(3);
    let mut k = 0usize;
    // 11 widths against 4 layouts: every width meets column-major C (65 and more: computed
    // row-major in the workspace, then transposed out).
    let widths = [1usize, 2, 3, 4, 5, 8, 17, 33, 64, 130, 100];
    for (vin, out, compute) in PRECISIONS {
        for (op_a, op_b) in [(N, N), (N, T), (T, N), (T, T)] {
            for (ob, oc) in [
                (SPBLK_ORDER_ROW, SPBLK_ORDER_ROW),
                (SPBLK_ORDER_ROW, SPBLK_ORDER_COL),
                (SPBLK_ORDER_COL, SPBLK_ORDER_ROW),
                (SPBLK_ORDER_COL, SPBLK_ORDER_COL),
            ] {
                k += 1;
                if quick_skip(k) {
                    continue;
                }
                let exact = k % 5 < 2;
                let format = [SPBLK_FORMAT_CSR, SPBLK_FORMAT_CSC, SPBLK_FORMAT_COO][k % 3];
                let ity = if (k / 3) % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
                let (am, an) = if k % 11 == 0 { (0, 5) } else { (r.gen_range(1..50), r.gen_range(1..50)) };
                let n = widths[k % widths.len()];
                let shape = shapes(k);
                let entries = pattern(&mut r, am, an, shape);
                let vals = some_values(&mut r, entries.len(), exact);
                let a = Sp::new(&mut r, format, am, an, &entries, &vals, ity, (k % 2) as u32, vin);
                let (m, kk) = if op_a == N { (am, an) } else { (an, am) };
                let b = if op_b == N {
                    Dn::random(&mut r, kk, n, ob, vin, exact)
                } else {
                    Dn::random(&mut r, n, kk, ob, vin, exact)
                };
                let beta_zero = k % 3 == 0;
                let mut cm = Dn::random(&mut r, m, n, oc, out, exact);
                if beta_zero {
                    cm = cm.nan_like();
                }
                let case = SpmmCase {
                    op_a,
                    op_b,
                    a,
                    b,
                    c: cm,
                    alpha: some_scalar(&mut r, 0.5, 2.0, exact),
                    beta: if beta_zero { 0.0 } else { some_scalar(&mut r, -1.0, 1.0, exact) },
                    compute,
                    device_scalars: k % 4 < 2,
                    exact,
                    alg: SPBLK_SPMM_ALG_DEFAULT,
                    analyze_first: false,
                };
                let what = format!(
                    "spmm case {k} ({vin},{out}) fmt {format} op {op_a}{op_b} order {ob}{oc} {am}x{an} n {n} {shape:?}"
                );
                let mut host = Side::new(Kind::Host);
                let mut gpu = Side::new(Kind::Cuda);
                let want = run_spmm(&mut host, &case);
                let (got, records) = spblk::trace::capture(|| run_spmm(&mut gpu, &case));
                check_padding(&what, &case.c, &got);
                check_spmm_staging(&what, &records, (ob, op_b), oc, m, n);
                let scale = run_spmm(&mut host, &case.with_abs_values());
                compare(
                    &what,
                    &logical(&case.c, &got),
                    &logical(&case.c, &want),
                    &logical(&case.c, &scale),
                    terms(&entries, op_a),
                    out,
                    compute,
                    case.exact,
                );
            }
        }
    }
}

/// Rows of every length in 0..4 plus, every 50th row, one with nearly every column: far
/// longer than SpMM's long-row threshold (and a chunk), so those take the chunked path.
/// Kernels launched in `records` whose names start with `prefix`.
fn launched(records: &[spblk::trace::Record], prefix: &str) -> u32 {
    records.iter().map(|r| r.launches(prefix)).sum()
}

/// SpMM's workspace staging ran exactly when the layout needs it: op(B) effectively
/// column-major is copied row-major first (n > 1; one column goes through SpMV with a strided
/// x), and a column-major C of 65 columns or more is computed row-major and transposed out.
fn check_spmm_staging(
    what: &str,
    records: &[spblk::trace::Record],
    (ob, op_b): (spblkOrder_t, spblkOperation_t),
    oc: spblkOrder_t,
    m: usize,
    n: usize,
) {
    if harness_on_host() {
        return;
    }
    let b_row = (ob == SPBLK_ORDER_ROW) != (op_b == T);
    assert_eq!(launched(records, "spblk_dense_transpose"), u32::from(!b_row && n > 1 && m > 0), "{what}: transposes");
    let want_out = u32::from(oc == SPBLK_ORDER_COL && n >= 65 && m > 0);
    assert_eq!(launched(records, "spblk_dense_axpby_transpose"), want_out, "{what}: C transposed out");
}

fn skewed_pattern(r: &mut StdRng, m: usize, n: usize) -> Vec<(usize, usize)> {
    let mut e = Vec::new();
    for i in 0..m {
        let mut cols: Vec<usize> = (0..n).collect();
        cols.shuffle(r);
        cols.truncate(if i % 50 == 7 { n - i % 7 } else { r.gen_range(0..4) });
        e.extend(cols.into_iter().map(|j| (i, j)));
    }
    e
}

/// SpMM with rows longer than the row kernel's threshold (chunked partial sums, reduced in
/// chunk order): must match the host in every type and layout and be bit-identical across runs.
#[test]
fn spmm_long_rows_are_correct_and_deterministic() {
    if gpu("spmm_long_rows_are_correct_and_deterministic") {
        long_rows_cases("spmm long rows", SPBLK_SPMM_ALG_DEFAULT, (5, 2500), skewed_pattern, |_, _| {});
    }
}

/// A five-point stencil on a 512 x 512 grid (262 144 rows) at N = 32 and 128, f32 and f64:
/// enough row tiles that the row kernel's capped grid runs in 8-16 waves of resident blocks,
/// each sweeping its own share of the rows (`WaveWalk`, kernels/spmm/segment.cuh). Every row,
/// those at the waves' edges included, matches the host; three runs bit-identical; the row
/// kernel ran.
#[test]
fn spmm_rows_in_waves_match_host() {
    if !gpu("spmm_rows_in_waves_match_host") {
        return;
    }
    let g = 512usize;
    let entries: Vec<(usize, usize)> = (0..g * g)
        .flat_map(|i| {
            let (x, y) = (i % g, i / g);
            let near = [(y > 0, i.wrapping_sub(g)), (x > 0, i.wrapping_sub(1)), (true, i), (x + 1 < g, i + 1)];
            near.into_iter().chain([(y + 1 < g, i + g)]).filter(|&(inside, _)| inside).map(move |(_, j)| (i, j))
        })
        .collect();
    let mut r = rng(131);
    for (vin, out, compute) in [PRECISIONS[0], PRECISIONS[1]] {
        for n in [32usize, 128] {
            let what = format!("spmm stencil {g}x{g} ({vin},{out}) n {n}");
            let vals = some_values(&mut r, entries.len(), false);
            let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, g * g, g * g, &entries, &vals, SPBLK_INDEX_32I, 0, vin);
            let case = SpmmCase::default_row_major(&mut r, a, (g * g, g * g, n), (vin, out, compute));
            spmm_against_host(&what, &case, 5, |records| {
                if !harness_on_host() {
                    assert_eq!(launched(records, "spblk_spmm_csr_v"), 1, "{what}: the row kernel did not run");
                }
            });
        }
    }
}

/// SPBLK_SPMM_ALG_CSR_SWEEP (plan from the preprocess) on rows in random column order, long
/// rows (up to 8800 entries: many past 32 in one slab, the longest through the row method's
/// long-row path) and short ones, in every layout and four precisions: matches the host (the
/// row method's sums), three runs bit-identical, and runs the slab kernel for its plan and the
/// sweep's, never the row kernel.
#[test]
fn spmm_sweep_is_correct_and_deterministic() {
    if gpu("spmm_sweep_is_correct_and_deterministic") {
        long_rows_cases("spmm sweep", SPBLK_SPMM_ALG_CSR_SWEEP, (11, 9000), rode_pattern, |what, records| {
            if harness_on_host() {
                return;
            }
            assert_eq!(launched(records, "spblk_spmm_csr_v"), 0, "{what}: the row kernel ran");
            assert_eq!(launched(records, "spblk_spmm_sweep_slabs_"), 1, "{what}: the plan's slabs");
            assert!(launched(records, "spblk_spmm_sweep_") >= 2, "{what}: the sweep did not run");
            // Rows over the row method's long-row threshold: its chunks and finish, once.
            let chunks = launched(records, "spblk_spmm_csr_long_partial_");
            assert!(chunks <= 1 && launched(records, "spblk_spmm_csr_long_finish_") == chunks, "{what}: long rows");
        });
    }
}

/// Row lengths around RoDe's block (32) and segment lengths, rows of many segments, and one
/// (8800 entries) past RodePlan::MAX_SEGS segments of 32, whose segments are longer; mixed with
/// short rows.
fn rode_pattern(r: &mut StdRng, m: usize, n: usize) -> Vec<(usize, usize)> {
    const LENS: [usize; 15] = [0, 1, 31, 32, 33, 63, 64, 511, 512, 513, 544, 1055, 1600, 2047, 8800];
    let mut e = Vec::new();
    for i in 0..m {
        let mut cols: Vec<usize> = (0..n).collect();
        cols.shuffle(r);
        cols.truncate(if i % 3 == 0 { LENS[(i / 3) % LENS.len()].min(n) } else { r.gen_range(0..40) });
        e.extend(cols.into_iter().map(|j| (i, j)));
    }
    e
}

/// SPBLK_SPMM_ALG_RODE (plan from the preprocess, or from spblkAnalyze for CSR with op(A) =
/// A): matches the host's RoDe in every type and layout, is bit-identical across runs, and
/// runs its own kernels: the segments' kernel once when a row has a block part, the rows'
/// kernel once, nothing of the CSR row method.
#[test]
fn spmm_rode_is_correct_and_deterministic() {
    if gpu("spmm_rode_is_correct_and_deterministic") {
        long_rows_cases("spmm rode", SPBLK_SPMM_ALG_RODE, (7, 9000), rode_pattern, |what, records| {
            if harness_on_host() {
                return;
            }
            assert_eq!(launched(records, "spblk_spmm_csr_"), 0, "{what}: the row method ran");
            // Every case's pattern has rows of 32 entries and more, so segments exist.
            assert_eq!(launched(records, "spblk_spmm_rode_blocks_"), 1, "{what}: segments' kernel");
            assert_eq!(launched(records, "spblk_spmm_rode_rows_"), 1, "{what}: rows' kernel");
        });
    }
}

type PatternFn = fn(&mut StdRng, usize, usize) -> Vec<(usize, usize)>;

/// `case` on the host and on the GPU: C's padding untouched, `check` on the first GPU run's
/// records, two more GPU runs bit-identical, the result within the tolerance of the host's
/// (scaled by the absolute values' product; `terms` entries in the longest row of op(A)).
fn spmm_against_host(what: &str, case: &SpmmCase, terms: usize, check: impl Fn(&[spblk::trace::Record])) {
    let mut host = Side::new(Kind::Host);
    let mut gpu = Side::new(Kind::Cuda);
    let want = run_spmm(&mut host, case);
    let (got, records) = spblk::trace::capture(|| run_spmm(&mut gpu, case));
    check_padding(what, &case.c, &got);
    check(&records);
    for _ in 0..2 {
        assert!(run_spmm(&mut gpu, case) == got, "{what}: results differ between runs");
    }
    let scale = run_spmm(&mut host, &case.with_abs_values());
    compare(
        what,
        &logical(&case.c, &got),
        &logical(&case.c, &want),
        &logical(&case.c, &scale),
        terms,
        case.c.vt,
        case.compute,
        case.exact,
    );
}

/// Cases of `alg` on `pattern`'s rows (about `cols` columns) in every layout and four
/// precisions, against the host (running the same algorithm value), three runs bit-identical;
/// `check` sees the launches of the first CUDA run.
fn long_rows_cases(
    name: &str,
    alg: u32,
    (seed, cols): (u64, usize),
    pattern: PatternFn,
    check: fn(&str, &[spblk::trace::Record]),
) {
    let mut r = rng(seed);
    let mut k = 0usize;
    let widths = [2usize, 8, 33, 130];
    for (vin, out, compute) in [PRECISIONS[0], PRECISIONS[1], PRECISIONS[3], PRECISIONS[4]] {
        for op_b in [N, T] {
            for (ob, oc) in [
                (SPBLK_ORDER_ROW, SPBLK_ORDER_ROW),
                (SPBLK_ORDER_ROW, SPBLK_ORDER_COL),
                (SPBLK_ORDER_COL, SPBLK_ORDER_ROW),
                (SPBLK_ORDER_COL, SPBLK_ORDER_COL),
            ] {
                k += 1;
                if quick_skip(k) {
                    continue;
                }
                let exact = k % 3 == 0;
                // ASpT takes CSR with op(A) = A only.
                let any_a = alg != SPBLK_SPMM_ALG_ASPT;
                let op_a = if any_a && k % 7 == 3 { T } else { N };
                let format = if any_a && k % 5 == 4 { SPBLK_FORMAT_COO } else { SPBLK_FORMAT_CSR };
                let ity = if k % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
                let (am, an) = (120 + k % 40, cols + 37 * (k % 11));
                let n = widths[k % widths.len()];
                let mut entries = pattern(&mut r, am, an);
                if op_a == T {
                    entries = entries.into_iter().map(|(i, j)| (j, i)).collect();
                    entries.sort_by_key(|&(i, _)| i);
                }
                let (am, an) = if op_a == T { (an, am) } else { (am, an) };
                let vals = some_values(&mut r, entries.len(), exact);
                let a = Sp::new(&mut r, format, am, an, &entries, &vals, ity, (k % 2) as u32, vin);
                let (m, kk) = if op_a == N { (am, an) } else { (an, am) };
                let b = if op_b == N {
                    Dn::random(&mut r, kk, n, ob, vin, exact)
                } else {
                    Dn::random(&mut r, n, kk, ob, vin, exact)
                };
                let beta_zero = k % 4 == 0;
                let mut cm = Dn::random(&mut r, m, n, oc, out, exact);
                if beta_zero {
                    cm = cm.nan_like();
                }
                let case = SpmmCase {
                    op_a,
                    op_b,
                    a,
                    b,
                    c: cm,
                    alpha: some_scalar(&mut r, 0.5, 2.0, exact),
                    beta: if beta_zero { 0.0 } else { some_scalar(&mut r, -1.0, 1.0, exact) },
                    compute,
                    device_scalars: k % 4 < 2,
                    exact,
                    alg,
                    analyze_first: matches!(alg, SPBLK_SPMM_ALG_RODE | SPBLK_SPMM_ALG_ASPT)
                        && op_a == N
                        && format == SPBLK_FORMAT_CSR
                        && k % 2 == 0,
                };
                let what = format!("{name} case {k} ({vin},{out}) op {op_a}{op_b} order {ob}{oc} {am}x{an} n {n}");
                spmm_against_host(&what, &case, terms(&entries, op_a), |records| {
                    check_spmm_staging(&what, records, (ob, op_b), oc, m, n);
                    check(&what, records);
                });
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// SpGEMM

struct Product {
    offsets: Vec<i64>,
    cols: Vec<i64>,
    vals: Vec<u8>,
    /// The size of buffer 2 the protocol asked for.
    buffer2: usize,
}

/// The full protocol: workEstimation x2, compute x2 (ALG2, ALG3: estimateMemory x2 with
/// `fraction`, compute x1), GetSize, SetPointers, copy. C's values are filled with
/// `c_init(nnz)` before copy (NaN for beta = 0).
#[allow(clippy::too_many_arguments)]
fn run_spgemm(
    side: &mut Side,
    (alg, fraction): (spblkSpGEMMAlg_t, f32),
    a: &Sp,
    b: &Sp,
    compute: spblkDataType_t,
    alpha: f64,
    beta: f64,
    device: bool,
    c_init: &dyn Fn(usize) -> Vec<u8>,
) -> Product {
    side.set_pointer_mode(device);
    let (ma, mb) = (a.descr(side), b.descr(side));
    let isz = isize_of(a.ity);
    let m = a.rows as usize;
    let c_off = side.put(&vec![0u8; (m + 1) * isz]);
    let mut mc = std::ptr::null_mut();
    ok(
        spblkCreateCsr(
            &mut mc,
            a.rows,
            b.cols,
            0,
            c_off,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            a.ity,
            a.ity,
            a.base,
            a.vt,
        ),
        "spblkCreateCsr(C)",
    );
    let alpha = side.scalar(device, &scalar_bytes(alpha, compute));
    let beta_p = side.scalar(device, &scalar_bytes(beta, compute));
    let mut d = std::ptr::null_mut();
    ok(spblkSpGEMM_createDescr(&mut d), "spblkSpGEMM_createDescr");
    let h = side.handle;
    let mut size1 = 0usize;
    ok(
        spblkSpGEMM_workEstimation(
            h,
            N,
            N,
            alpha,
            ma,
            mb,
            beta_p,
            mc,
            compute,
            alg,
            d,
            &mut size1,
            std::ptr::null_mut(),
        ),
        "workEstimation (size)",
    );
    assert!(size1 >= 1, "buffer 1 size must be at least 1");
    let buf1 = side.buffer(size1);
    ok(
        spblkSpGEMM_workEstimation(h, N, N, alpha, ma, mb, beta_p, mc, compute, alg, d, &mut size1, buf1),
        "workEstimation",
    );
    let mut size2 = 0usize;
    if alg == SPBLK_SPGEMM_ALG2 || alg == SPBLK_SPGEMM_ALG3 {
        let (mut size3, null) = (0usize, std::ptr::null_mut());
        let est = |s3: &mut usize, b3, s2| {
            spblkSpGEMM_estimateMemory(h, N, N, alpha, ma, mb, beta_p, mc, compute, alg, d, fraction, s3, b3, s2)
        };
        ok(est(&mut size3, null, std::ptr::null_mut()), "estimateMemory (size)");
        let buf3 = side.buffer(size3);
        ok(est(&mut size3, buf3, &mut size2), "estimateMemory");
    } else {
        ok(
            spblkSpGEMM_compute(h, N, N, alpha, ma, mb, beta_p, mc, compute, alg, d, &mut size2, std::ptr::null_mut()),
            "compute (size)",
        );
    }
    assert!(size2 >= 1, "buffer 2 size must be at least 1");
    let buf2 = side.buffer(size2);
    ok(spblkSpGEMM_compute(h, N, N, alpha, ma, mb, beta_p, mc, compute, alg, d, &mut size2, buf2), "compute");
    let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
    ok(spblkSpMatGetSize(mc, &mut rows, &mut cols, &mut nnz), "spblkSpMatGetSize");
    let nnz = nnz as usize;
    let c_col = side.put(&vec![0u8; nnz * isz]);
    let c_val = side.put(&c_init(nnz));
    ok(spblkCsrSetPointers(mc, c_off, c_col, c_val), "spblkCsrSetPointers");
    ok(spblkSpGEMM_copy(h, N, N, alpha, ma, mb, beta_p, mc, compute, alg, d), "spblkSpGEMM_copy");
    let p = Product {
        offsets: idx_decode(&side.get(c_off, (m + 1) * isz), a.ity),
        cols: idx_decode(&side.get(c_col, nnz * isz), a.ity),
        vals: side.get(c_val, nnz * vsize(a.vt)),
        buffer2: size2,
    };
    ok(spblkSpGEMM_destroyDescr(d), "spblkSpGEMM_destroyDescr");
    spblkDestroySpMat(ma);
    spblkDestroySpMat(mb);
    spblkDestroySpMat(mc);
    p
}

#[test]
fn spgemm_matches_host_exactly() {
    if !gpu("spgemm_matches_host_exactly") {
        return;
    }
    // (m, k, n, shape of A, shape of B): bins from tiny rows to rows with > 2048 products
    // (a block per row; DenseRow with n = 2000: a bitmap, 300 x 20 products).
    let sizes = [
        (50, 40, 30, Shape::Uniform(2), Shape::Uniform(2)),
        (80, 60, 70, Shape::Uniform(8), Shape::Uniform(8)),
        (40, 200, 300, Shape::Uniform(20), Shape::Uniform(25)),
        (30, 300, 2000, Shape::DenseRow, Shape::Uniform(20)),
        (60, 500, 500, Shape::PowerLaw, Shape::PowerLaw),
        (20, 30, 40, Shape::EmptyRows(3), Shape::Empty),
        (0, 10, 10, Shape::Uniform(2), Shape::Uniform(2)),
        (25, 25, 1, Shape::Uniform(3), Shape::Uniform(1)),
        // Big rows (> 2048 products) by symbolic method: a hash table of keys (n far above
        // the products), and, with n > 2^20 and ~20 000 products, global tables for both
        // phases (nnz over the shared numeric limit and 128 windows: the global sort).
        (3, 200, 400_000, Shape::DenseRow, Shape::Uniform(20)),
        (2, 1000, 1 << 21, Shape::DenseRow, Shape::Uniform(20)),
        // ~18 000 entries over 100 000 columns: too many for a shared hash table, so the
        // numeric phase takes dense windows (8 of 16 384 columns for f32, 16 for f64; with
        // ALG2 and ALG3: DEFAULT takes ESC's long-row path past 4 windows).
        (2, 1000, 100_000, Shape::DenseRow, Shape::Uniform(20)),
        // ~7 500 entries over 60 000 columns: a table of 16 384 slots, so 4 dense windows
        // (f32) rather than a 128 KB shared table; f64 (8 windows) keeps the table (DEFAULT:
        // ESC's long-row path).
        (2, 400, 60_000, Shape::DenseRow, Shape::Uniform(20)),
        // ~250 000 entries from ~700 000 products over 270 000 columns: a global table
        // whatever the algorithm (with DEFAULT too: 2.8 products an entry).
        (1, 3500, 270_000, Shape::DenseRow, Shape::Uniform(200)),
        // Rows of several dense windows (16 for f32), the columns below 200 000: ~13 500
        // entries from a hash table (n = 2^20: symbolic method 0), and ~66 000 from ~80 000
        // products with a global symbolic table (n = 2^21: method 2). Small products: every
        // such row's windows run in blocks of their own (ALG2 and ALG3 on the second).
        (2, 1400, 1 << 20, Shape::DenseRow, Shape::Within(10, 200_000)),
        (1, 4000, 1 << 21, Shape::DenseRow, Shape::Within(20, 200_000)),
        // ~98 000 entries from ~400 000 products over 100 000 columns: 8 windows (f32), each
        // in a block of its own, with DEFAULT too (4 products an entry).
        (1, 4000, 1 << 20, Shape::DenseRow, Shape::Within(100, 100_000)),
        // ~4 000 entries from ~4 000 products over 2^18 columns: a table of 8 192 slots, or, when
        // B's rows are sorted (most of them long enough to search), 16 dense windows (f32).
        (2, 40, 1 << 18, Shape::DenseRow, Shape::Within(100, 1 << 18)),
        // ~5 000 entries from ~6 000 products over 8 000 columns: one dense window, walked by
        // column parts when B's rows are sorted.
        (2, 60, 8000, Shape::DenseRow, Shape::Within(100, 8000)),
        // ~790 000 entries from ~1 000 000 products over 2^21 columns: with DEFAULT, a row over
        // the room of ESC's passes (C's ~6 MB, at least 16 MiB: ~800 000 products) in a pass of
        // its own; then ~24 rows of ~45 000 products each, in two passes or more.
        (1, 4000, 1 << 21, Shape::DenseRow, Shape::Uniform(250)),
        (24, 600, 1 << 21, Shape::Uniform(300), Shape::Uniform(150)),
    ];
    // ALG2 (everything in buffer 2) on a third of the cases, the global-table ones included,
    // ALG3 (in passes) on another (spgemm_alg3_passes takes its global rows). Those two keep
    // every big row on a table. DEFAULT takes the dense rows of over 4096 entries spanning
    // over 4 dense windows on ESC's long-row path (big_numeric_esc), but those of over 2
    // products an entry, in passes of bounded scratch, and runs none of the ESC method's
    // other kernels. Case k (size j of value type t) takes algs[(j + t) % 3], so that each size
    // meets every algorithm whatever the number of sizes.
    let algs = [SPBLK_SPGEMM_DEFAULT, SPBLK_SPGEMM_ALG2, SPBLK_SPGEMM_ALG3];
    let (mut esc_rows, mut global_rows) = ([0u32; 2], [0u32; 2]);
    let per_type = sizes.len();
    spgemm_against_host(
        5,
        &sizes,
        |k| algs[((k - 1) % per_type + (k - 1) / per_type) % 3],
        |what, alg, records| {
            let default = (alg == SPBLK_SPGEMM_DEFAULT) as usize;
            if default == 0 {
                assert_eq!(launched(records, "spblk_spgemm_esc_"), 0, "{what}: ALG2/ALG3 ran ESC kernels");
            }
            for kind in ["stats", "bin_rows", "warp", "block", "long_counts", "copy_short"] {
                let name = format!("spblk_spgemm_esc_{kind}");
                assert_eq!(launched(records, &name), 0, "{what}: the hash method ran {name}");
            }
            // Rows of at most 32 products (all of this case's) take both phases in registers.
            if what.contains(" 50x40x30 ") {
                for phase in ["symbolic", "numeric"] {
                    let name = format!("spblk_spgemm_{phase}_short_");
                    assert!(launched(records, &name) > 0, "{what}: rows of at most 32 products ran no {name}");
                    let table = format!("spblk_spgemm_{phase}_warp_");
                    assert_eq!(launched(records, &table), 0, "{what}: rows of at most 32 products ran {table}");
                }
            }
            // Rows of 33 to 64 products (this case has some) in the kernel that may sort two a lane.
            if what.contains(" 80x60x70 ") {
                let name = "spblk_spgemm_numeric_warp2_";
                assert!(launched(records, name) > 0, "{what}: rows of 33 to 64 products ran no {name}");
            }
            let esc = launched(records, "spblk_spgemm_esc_copy_long_");
            assert_eq!(esc, launched(records, "spblk_spgemm_esc_chunks_"), "{what}: ESC's long rows half run");
            esc_rows[default] += esc;
            global_rows[default] += launched(records, "spblk_spgemm_place_");
            if default == 1 && what.contains(" 1x4000x2097152 DenseRow Uniform(250) ") {
                assert_eq!(esc, 1, "{what}: the row over the passes' room did not take ESC's path");
            }
            if default == 1 && what.contains(" 24x600x2097152 ") {
                assert!(esc >= 2, "{what}: ESC's rows took {esc} pass(es), not two or more");
            }
        },
    );
    if std::env::var_os("SPBLK_TEST_QUICK").is_none() && !harness_on_host() {
        assert!(esc_rows[1] > 0, "DEFAULT never took ESC's long-row path");
        assert!(global_rows[1] > 0, "DEFAULT never kept a global table (a row of 2.8 products an entry)");
        assert!(global_rows[0] > 0, "ALG2/ALG3 never ran a global table");
    }
}

/// SpGEMM cases against the host, bit for bit (values, offsets, sorted columns): each size
/// in every value type, index type and base alternating, alpha and beta random (beta = 0 on
/// a third, with NaN in C); `alg_of(k)` picks case k's algorithm, `check(what, alg,
/// records)` inspects the CUDA side's calls.
pub(crate) fn spgemm_against_host(
    seed: u64,
    sizes: &[(usize, usize, usize, Shape, Shape)],
    alg_of: impl Fn(usize) -> spblkSpGEMMAlg_t,
    mut check: impl FnMut(&str, spblkSpGEMMAlg_t, &[spblk::trace::Record]),
) {
    let mut r = rng(seed);
    let mut k = 0usize;
    for vt in [SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F, SPBLK_R_16BF] {
        let compute = if vt == SPBLK_R_64F { SPBLK_R_64F } else { SPBLK_R_32F };
        for &(m, kk, n, sa, sb) in sizes {
            k += 1;
            if quick_skip(k) {
                continue;
            }
            let ity = if k % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
            let base = ((k / 2) % 2) as u32;
            let ea = pattern(&mut r, m, kk, sa);
            let mut eb = pattern(&mut r, kk, n, sb);
            // B's rows sorted in every other pair of cases (the patterns come shuffled): the
            // dense windows then search B's long rows for their range (walk_routed).
            if (k / 4) % 2 == 0 {
                eb.sort_unstable();
            }
            let b_sorted = eb.windows(2).all(|w| w[0].0 != w[1].0 || w[0].1 < w[1].1);
            let va = values(&mut r, ea.len());
            let vb = values(&mut r, eb.len());
            let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, m, kk, &ea, &va, ity, base, vt);
            let b = Sp::new(&mut r, SPBLK_FORMAT_CSR, kk, n, &eb, &vb, ity, base, vt);
            let beta = if k % 3 == 0 { 0.0 } else { 0.75 };
            let alpha = r.gen_range(0.5..2.0);
            let seed = r.gen::<u64>();
            let c_init = move |nnz: usize| {
                if beta == 0.0 {
                    encode(&vec![f64::NAN; nnz], vt)
                } else {
                    encode(&values(&mut rng(seed), nnz), vt)
                }
            };
            let order = if b_sorted { "sorted" } else { "shuffled" };
            let what =
                format!("spgemm case {k} type {vt} idx {ity} base {base} {m}x{kk}x{n} {sa:?} {sb:?} ({order} B)");
            let device = k % 4 < 2;
            let alg_id = alg_of(k);
            let what = format!("{what} alg {alg_id}");
            let alg = (alg_id, 0.1);
            let want = run_spgemm(&mut Side::new(Kind::Host), alg, &a, &b, compute, alpha, beta, device, &c_init);
            let (got, records) = spblk::trace::capture(|| {
                run_spgemm(&mut Side::new(Kind::Cuda), alg, &a, &b, compute, alpha, beta, device, &c_init)
            });
            check(&what, alg_id, &records);
            if alg_id != SPBLK_SPGEMM_ALG_ESC && m > 0 {
                let noted = records.iter().flat_map(|rec| &rec.notes).any(|note| note.starts_with("B's rows sorted"));
                assert_eq!(noted, b_sorted, "{what}: B's rows sorted is {b_sorted}, noted {noted}");
            }
            assert_eq!(got.offsets, want.offsets, "{what}: row offsets");
            assert_eq!(got.cols, want.cols, "{what}: column indices (sorted within rows)");
            for i in 0..m {
                let row =
                    &got.cols[(got.offsets[i] - base as i64) as usize..(got.offsets[i + 1] - base as i64) as usize];
                assert!(row.windows(2).all(|w| w[0] < w[1]), "{what}: row {i} not sorted");
            }
            let (gv, wv) = (decode(&got.vals, vt), decode(&want.vals, vt));
            for (i, (g, w)) in gv.iter().zip(&wv).enumerate() {
                if g.to_bits() == w.to_bits() {
                    continue;
                }
                let stored = |v: &[f64]| decode(&encode(v, vt), vt);
                let old = decode(&c_init(gv.len()), vt)[i];
                let x = explain_spgemm(
                    &what,
                    i,
                    &want.offsets,
                    &want.cols,
                    base as i64,
                    &ea,
                    &stored(&va),
                    &eb,
                    &stored(&vb),
                    alpha,
                    beta,
                    old,
                    compute,
                );
                panic!("{what}: value {i}: got {g}, want {w}, expansion-order value {x} (sums must match bit for bit)");
            }
        }
    }
}

/// On a SpGEMM value mismatch: prints the row's products and the entry's terms, and returns
/// the entry's value computed in expansion order in the compute type (before rounding to the
/// output type), so a failure says which side left that order.
#[allow(clippy::too_many_arguments)]
fn explain_spgemm(
    what: &str,
    e: usize,
    offsets: &[i64],
    cols: &[i64],
    base: i64,
    ea: &[(usize, usize)],
    va: &[f64],
    eb: &[(usize, usize)],
    vb: &[f64],
    alpha: f64,
    beta: f64,
    old: f64,
    compute: spblkDataType_t,
) -> f64 {
    let i = (0..offsets.len() - 1).find(|&i| offsets[i + 1] - base > e as i64).unwrap();
    let j = (cols[e] - base) as usize;
    let mut products = 0;
    let mut terms = Vec::new();
    for (p, &(ai, k)) in ea.iter().enumerate() {
        if ai != i {
            continue;
        }
        for (q, &(bk, bj)) in eb.iter().enumerate() {
            if bk == k {
                products += 1;
                if bj == j {
                    terms.push(va[p] * vb[q]);
                }
            }
        }
    }
    let r = |x: f64| {
        if compute == SPBLK_R_64F {
            x
        } else {
            x as f32 as f64
        }
    };
    let mut sum = 0.0;
    for &t in &terms {
        sum = r(sum + r(t));
    }
    let v = r(r(alpha) * sum);
    let out = if beta == 0.0 { v } else { r(v + r(r(beta) * old)) };
    eprintln!(
        "{what}: entry {e} (row {i}, col {j}): row has {products} products; {} terms {terms:?}; \
         expansion-order result {out:e} (before output rounding), old C {old}",
        terms.len()
    );
    out
}

// ------------------------------------------------------------------------------------------
// csr2csc

#[test]
fn csr2csc_matches_host_exactly() {
    if !gpu("csr2csc_matches_host_exactly") {
        return;
    }
    let mut r = rng(6);
    let mut k = 0usize;
    for vt in [SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F, SPBLK_R_8I, SPBLK_C_64F] {
        for action in [SPBLK_ACTION_NUMERIC, SPBLK_ACTION_SYMBOLIC] {
            for (m, n, shape) in [
                (70, 50, Shape::Uniform(4)),
                (300, 4000, Shape::PowerLaw),
                (40, 700, Shape::DenseRow),
                (10, 10, Shape::Empty),
                (1, 1, Shape::Uniform(1)),
                // Columns of ~500 and ~10 000 entries: runs of one digit across many of the
                // sort's tiles (4096 or 6144 entries).
                (5000, 40, Shape::Uniform(4)),
                (20000, 4, Shape::Uniform(2)),
                // 2 M entries, 22-bit keys: more tiles than the GPU holds at once (each pass's
                // look-back waits on tiles still being sorted), three passes.
                (100_000, 3_000_000, Shape::Uniform(20)),
            ] {
                k += 1;
                if quick_skip(k) || (m * n > 100_000_000 && vt != SPBLK_R_32F) {
                    continue;
                }
                let base = (k % 2) as u32;
                let e = pattern(&mut r, m, n, shape);
                let nnz = e.len();
                let a =
                    Sp::new(&mut r, SPBLK_FORMAT_CSR, m, n, &e, &vec![0.0; nnz], SPBLK_INDEX_32I, base, SPBLK_R_32F);
                let vals: Vec<u8> = (0..nnz * vsize(vt)).map(|_| r.gen()).collect();
                let what = format!("csr2csc case {k} type {vt} action {action} {m}x{n} {shape:?}");
                check_csr2csc(&what, &a, &vals, vt, action);
            }
        }
    }
}

/// What `spblkCsr2cscEx2` wrote on one side: column offsets, row indices, values, and the
/// first word of the workspace (the mirror transpose's outcome on the CUDA backend: 0 when it
/// applied, 1 when the sort did the work, 0xFFFFFFFF when it was not tried).
struct Csr2CscOut {
    ptr: Vec<u8>,
    idx: Vec<u8>,
    val: Vec<u8>,
    mirror: u32,
}

fn csr2csc_on(side: &mut Side, a: &Sp, vals: &[u8], vt: spblkDataType_t, action: spblkAction_t) -> Csr2CscOut {
    let (m, n, nnz) = (a.rows as usize, a.cols as usize, a.nnz as usize);
    let (rp, ci, cv) = (side.put(&a.a), side.put(&a.b), side.put(vals));
    let sentinel = vec![0xA5u8; nnz * vsize(vt)];
    let (cp, ri, cvo) = (side.put(&vec![0u8; (n + 1) * 4]), side.put(&vec![0u8; nnz * 4]), side.put(&sentinel));
    let mut size = 0usize;
    let (mi, ni, zi) = (m as i32, n as i32, nnz as i32);
    let base = a.base;
    ok(
        spblkCsr2cscEx2_bufferSize(
            side.handle,
            mi,
            ni,
            zi,
            cv,
            rp as *const i32,
            ci as *const i32,
            cvo,
            cp as *mut i32,
            ri as *mut i32,
            vt,
            action,
            base,
            SPBLK_CSR2CSC_ALG1,
            &mut size,
        ),
        "spblkCsr2cscEx2_bufferSize",
    );
    let buf = side.buffer(size);
    ok(
        spblkCsr2cscEx2(
            side.handle,
            mi,
            ni,
            zi,
            cv,
            rp as *const i32,
            ci as *const i32,
            cvo,
            cp as *mut i32,
            ri as *mut i32,
            vt,
            action,
            base,
            SPBLK_CSR2CSC_ALG1,
            buf,
        ),
        "spblkCsr2cscEx2",
    );
    let mirror = if size >= 4 { u32::from_le_bytes(side.get(buf, 4).try_into().unwrap()) } else { u32::MAX };
    let out = Csr2CscOut {
        ptr: side.get(cp, (n + 1) * 4),
        idx: side.get(ri, nnz * 4),
        val: side.get(cvo, nnz * vsize(vt)),
        mirror,
    };
    if action == SPBLK_ACTION_SYMBOLIC {
        assert_eq!(out.val, sentinel, "SYMBOLIC wrote values");
    }
    out
}

/// csr2csc of `a` on both backends, compared exactly; returns the CUDA side's mirror outcome.
fn check_csr2csc(what: &str, a: &Sp, vals: &[u8], vt: spblkDataType_t, action: spblkAction_t) -> u32 {
    let want = csr2csc_on(&mut Side::new(Kind::Host), a, vals, vt, action);
    let got = csr2csc_on(&mut Side::new(Kind::Cuda), a, vals, vt, action);
    assert_eq!(got.ptr, want.ptr, "{what}: column offsets");
    assert_eq!(got.idx, want.idx, "{what}: row indices");
    assert_eq!(got.val, want.val, "{what}: values");
    got.mirror
}

/// A structurally symmetric pattern with ascending columns in every row: a 2-D or 3-D
/// stencil (`side` points per axis), or a random undirected graph with empty rows and a hub.
fn symmetric_pattern(r: &mut StdRng, stencil: Option<(usize, usize)>, n: usize) -> Vec<(usize, usize)> {
    let mut set = std::collections::BTreeSet::new();
    match stencil {
        Some((side, dims)) => {
            let strides: Vec<usize> = (0..dims).map(|d| side.pow(d as u32)).collect();
            for i in 0..n {
                set.insert((i, i));
                for &s in &strides {
                    if (i / s) % side + 1 < side {
                        set.insert((i, i + s));
                        set.insert((i + s, i));
                    }
                }
            }
        }
        None => {
            // Rows 4 mod 5 stay empty.
            let mut node = || loop {
                let v = r.gen_range(0..n);
                if v % 5 != 4 {
                    break v;
                }
            };
            for _ in 0..3 * n {
                let (i, j) = (node(), node());
                set.insert((i, j));
                set.insert((j, i));
            }
            let hub = node();
            for j in (0..n).step_by(3).filter(|j| j % 5 != 4) {
                set.insert((hub, j));
                set.insert((j, hub));
            }
        }
    }
    set.into_iter().collect()
}

/// csr2csc of square, structurally symmetric patterns with ascending columns: the transpose
/// keeps the pattern and only the values move (kernels/convert/mirror.cu). Each case says
/// whether that path must have applied: a pattern that breaks a condition anywhere (an entry
/// without its mirror in the last tile, two columns out of order, a duplicate) must come out
/// of the sort instead, equally exact.
#[test]
fn csr2csc_mirror_matches_host_exactly() {
    if !gpu("csr2csc_mirror_matches_host_exactly") {
        return;
    }
    let mut r = rng(61);
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Break {
        None,
        MissingMirror,
        Unsorted,
        Duplicate,
    }
    let mut k = 0usize;
    for (n, stencil) in
        [(2500, Some((50, 2))), (216_000, Some((60, 3))), (3000, None), (200_000, None), (1, Some((1, 1)))]
    {
        for brk in [Break::None, Break::MissingMirror, Break::Unsorted, Break::Duplicate] {
            let mut e = symmetric_pattern(&mut r, stencil, n);
            if n == 1 && brk != Break::None {
                continue;
            }
            match brk {
                Break::None => {}
                // The last off-diagonal entry loses its mirror: found only in the last tile.
                Break::MissingMirror => {
                    let at = e.iter().rposition(|&(i, j)| i != j).unwrap();
                    let (i, j) = e[at];
                    let mirror = e.iter().position(|&x| x == (j, i)).unwrap();
                    e.remove(mirror.min(at));
                }
                Break::Unsorted => {
                    let at = (e.len() / 2..e.len() - 1).find(|&p| e[p].0 == e[p + 1].0).unwrap();
                    e.swap(at, at + 1);
                }
                Break::Duplicate => {
                    let at = e.len() - 2;
                    e.insert(at, e[at]);
                }
            }
            for (vt, action) in [
                (SPBLK_R_32F, SPBLK_ACTION_NUMERIC),
                (SPBLK_R_64F, SPBLK_ACTION_NUMERIC),
                (SPBLK_C_64F, SPBLK_ACTION_NUMERIC),
                (SPBLK_R_16F, SPBLK_ACTION_SYMBOLIC),
            ] {
                k += 1;
                if quick_skip(k) || (n > 100_000 && vt != SPBLK_R_32F) {
                    continue;
                }
                let base = (k % 2) as u32;
                let nnz = e.len();
                let a =
                    Sp::new(&mut r, SPBLK_FORMAT_CSR, n, n, &e, &vec![0.0; nnz], SPBLK_INDEX_32I, base, SPBLK_R_32F);
                let vals: Vec<u8> = (0..nnz * vsize(vt)).map(|_| r.gen()).collect();
                let what = format!("mirror case {k}: n {n} {stencil:?} {brk:?} type {vt} action {action}");
                let mirror = check_csr2csc(&what, &a, &vals, vt, action);
                let expect = if brk == Break::None { 0 } else { 1 };
                assert_eq!(mirror, expect, "{what}: mirror outcome (0 applied, 1 sorted)");
            }
        }
    }
    // Not square: not tried.
    let e = pattern(&mut r, 300, 200, Shape::Uniform(3));
    let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, 300, 200, &e, &vec![0.0; e.len()], SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    let vals: Vec<u8> = (0..e.len() * 4).map(|_| r.gen()).collect();
    assert_eq!(
        check_csr2csc("300x200", &a, &vals, SPBLK_R_32F, SPBLK_ACTION_NUMERIC),
        u32::MAX,
        "not square: mirror not tried"
    );
}

// ------------------------------------------------------------------------------------------
// spblkAnalyze on the CUDA backend

/// `spblkAnalyze` (1-SA) reads the matrix back from the device (`read_bytes`) and uploads the
/// VBR arrays: the same grouping as on the host (permutation), and `SPBLK_SPMM_ALG_VBR` on
/// CUDA (tensor cores, split TF32 for f32) gives the host's result.
#[test]
fn analyze_reads_device_matrices_and_vbr_runs_on_cuda() {
    if !gpu("analyze_reads_device_matrices_and_vbr_runs_on_cuda") {
        return;
    }
    let mut r = rng(8);
    let (m, kk, n) = (300, 200, 24);
    let entries = pattern(&mut r, m, kk, Shape::EmptyRows(12));
    let vals = exact_values(&mut r, entries.len());
    let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, m, kk, &entries, &vals, SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    let b = Dn::random(&mut r, kk, n, SPBLK_ORDER_ROW, SPBLK_R_32F, true);
    let c = Dn::random(&mut r, m, n, SPBLK_ORDER_COL, SPBLK_R_32F, true).nan_like();
    let run = |side: &mut Side| {
        let ma = a.descr(side);
        ok(spblk::capi::analyze::spblkAnalyze(side.handle, ma, SPBLK_ANALYSIS_1SA, std::ptr::null()), "spblkAnalyze");
        let mut perm = vec![0i64; m];
        ok(spblk::capi::analyze::spblkAnalysisGetPermutation(ma, perm.as_mut_ptr()), "permutation");
        let (bp, cp) = (side.put(&b.data), side.put(&c.data));
        let (mb, mc) = (b.descr(bp), c.descr(cp));
        let one = scalar_bytes(1.0, SPBLK_R_32F);
        let (alpha, beta) = (side.scalar(false, &one), side.scalar(false, &scalar_bytes(0.0, SPBLK_R_32F)));
        let alg = SPBLK_SPMM_ALG_VBR;
        let mut size = 0usize;
        ok(spblkSpMM_bufferSize(side.handle, N, N, alpha, ma, mb, beta, mc, SPBLK_R_32F, alg, &mut size), "size");
        ok(spblkSpMM(side.handle, N, N, alpha, ma, mb, beta, mc, SPBLK_R_32F, alg, std::ptr::null_mut()), "SpMM");
        let out = decode(&side.get(cp, c.data.len()), SPBLK_R_32F);
        spblkDestroySpMat(ma);
        spblkDestroyDnMat(mb);
        spblkDestroyDnMat(mc);
        (perm, out)
    };
    let (host_perm, host_c) = run(&mut Side::new(Kind::Host));
    let (cuda_perm, cuda_c) = run(&mut Side::new(Kind::Cuda));
    assert_eq!(cuda_perm, host_perm, "the analysis of device memory must group rows as on the host");
    // Small integer inputs: every product and sum is exact in f32 and in split TF32.
    assert_eq!(cuda_c, host_c, "VBR on CUDA vs the host");
}

// ------------------------------------------------------------------------------------------
// Kernels and streams

#[test]
fn every_registered_kernel_loads_on_the_gpu() {
    if !gpu("every_registered_kernel_loads_on_the_gpu") || harness_on_host() {
        return;
    }
    let dev = spblk::backend::cuda::context::device_for_this_thread().expect("device");
    assert_eq!(dev.module.kernel_count(), spblk::backend::cuda::kernels::all().len());
    for name in spblk::backend::cuda::kernels::all() {
        dev.module.function(&name).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// SpMV with a transposed operand (so the conversion and its radix sort run) and long rows
/// (the chunked path with its memset) records into a CUDA graph on a non-default stream:
/// no allocation, synchronization or host copy happens inside it. The replayed graph must
/// give the host's result. (SpMM and SDDMM launch single kernels on the same path.)
#[test]
fn spmv_is_capturable_in_a_cuda_graph() {
    if !gpu("spmv_is_capturable_in_a_cuda_graph") || harness_on_host() {
        return;
    }
    let mut r = rng(7);
    let (c, entries) = spmv_case(
        &mut r,
        SPBLK_FORMAT_CSR,
        T,
        3000,
        200,
        Shape::DenseRow,
        SPBLK_INDEX_32I,
        1,
        PRECISIONS[0],
        true,
        true,
        true,
    );
    let want = decode(&run_spmv(&mut Side::new(Kind::Host), &c), c.out);
    let scale = decode(&run_spmv(&mut Side::new(Kind::Host), &c.abs()), c.out);

    let mut gpu = Side::new(Kind::Cuda);
    gpu.set_pointer_mode(true);
    let a = c.a.descr(&mut gpu);
    let (x, _) = dn_vec(&mut gpu, &c.x, c.a.vt);
    let (y, yp) = dn_vec(&mut gpu, &c.y, c.out);
    let alpha = gpu.scalar(true, &scalar_bytes(c.alpha, c.compute));
    let beta = gpu.scalar(true, &scalar_bytes(c.beta, c.compute));
    let mut size = 0usize;
    let h = gpu.handle;
    ok(spblkSpMV_bufferSize(h, c.op, alpha, a, x, beta, y, c.compute, 0, &mut size), "bufferSize");
    let buf = gpu.buffer(size);
    gpu.sync();
    let (status, message) = capture_and_replay(h, || {
        let status = spblkSpMV(h, c.op, alpha, a, x, beta, y, c.compute, 0, buf);
        (status, last_message())
    });
    assert_eq!(status, SPBLK_STATUS_SUCCESS, "spblkSpMV under capture: {message}");
    let got = decode(&gpu.get(yp, c.y.len()), c.out);
    compare("spmv replayed from a graph", &got, &want, &scale, terms(&entries, c.op), c.out, c.compute, c.exact);
    spblkDestroySpMat(a);
    spblkDestroyDnVec(x);
    spblkDestroyDnVec(y);
}
