//! Triangular solves (`spblkSpSV_*`): each backend against a dense reference with a proven
//! error bound, the CUDA row-per-thread kernel bit for bit against the host, the behaviour
//! NVIDIA's library showed on the device (docs/spsv.md, probes), determinism, graph capture,
//! and the protocol's errors.
//!
//! The bound: a substitution computes ŷ with (T + ΔT) ŷ = b, |ΔT| <= γ_k |T| (k: the longest
//! row plus one; Higham, Accuracy and Stability, Thm 8.5), so |y - ŷ| <= γ_k M(T)⁻¹ (|b| +
//! |T| |ŷ|) with M(T) the comparison matrix (|diagonal|, minus |off-diagonal|), whose inverse
//! bounds |T⁻¹|. The reference computes that vector by a second substitution in f64.

use std::ffi::c_void;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use spblk::capi::dense::*;
use spblk::capi::sp_mat::*;
use spblk::capi::spsv::*;
use spblk::capi::types::*;

use super::support::*;

pub(super) const N: spblkOperation_t = SPBLK_OPERATION_NON_TRANSPOSE;
pub(super) const T: spblkOperation_t = SPBLK_OPERATION_TRANSPOSE;
pub(super) const L: spblkFillMode_t = SPBLK_FILL_MODE_LOWER;
pub(super) const U: spblkFillMode_t = SPBLK_FILL_MODE_UPPER;
pub(super) const NON_UNIT: spblkDiagType_t = SPBLK_DIAG_TYPE_NON_UNIT;
pub(super) const UNIT: spblkDiagType_t = SPBLK_DIAG_TYPE_UNIT;

/// A square matrix with entries in both triangles (in row order, columns shuffled), some rows
/// without a diagonal entry; each stored diagonal entry outweighs its row and its column, so
/// the triangle of A and of Aᵀ are both well conditioned.
pub(super) fn square(r: &mut StdRng, n: usize, avg: usize, missing: f64) -> (Vec<(usize, usize)>, Vec<f64>) {
    square_with_long_rows(r, n, avg, missing, 0)
}

/// [`square`] with every 97th row `long` entries long (when `long` > 0).
pub(super) fn square_with_long_rows(
    r: &mut StdRng,
    n: usize,
    avg: usize,
    missing: f64,
    long: usize,
) -> (Vec<(usize, usize)>, Vec<f64>) {
    let mut rows: Vec<Vec<usize>> = Vec::with_capacity(n);
    for i in 0..n {
        let len = if long > 0 && i % 97 == 0 { long } else { r.gen_range(0..=2 * avg) };
        let len = len.min(n.saturating_sub(1));
        let mut set = std::collections::BTreeSet::new();
        while set.len() < len {
            let j = r.gen_range(0..n);
            if j != i {
                set.insert(j);
            }
        }
        let mut cols: Vec<usize> = set.into_iter().collect();
        if !r.gen_bool(missing) {
            cols.push(i);
        }
        cols.shuffle(r);
        rows.push(cols);
    }
    weighted(r, &rows)
}

/// Values for the pattern `rows` (each row's columns, its diagonal among them where stored):
/// each diagonal entry outweighs its row and its column.
fn weighted(r: &mut StdRng, rows: &[Vec<usize>]) -> (Vec<(usize, usize)>, Vec<f64>) {
    let n = rows.len();
    let mut weight = vec![1.0; n];
    for (i, cols) in rows.iter().enumerate() {
        for &j in cols.iter().filter(|&&j| j != i) {
            weight[i] += 1.0;
            weight[j] += 1.0;
        }
    }
    let (mut e, mut v) = (Vec::new(), Vec::new());
    for (i, cols) in rows.iter().enumerate() {
        for &j in cols {
            let x: f64 = r.gen_range(-1.0..1.0);
            v.push(if i == j { x.signum() * (weight[i] + x.abs()) } else { x });
            e.push((i, j));
        }
    }
    (e, v)
}

/// The request of one solve.
#[derive(Clone, Copy, Debug)]
pub(super) struct Solve {
    pub op: spblkOperation_t,
    pub fill: spblkFillMode_t,
    pub diag: spblkDiagType_t,
    pub vt: spblkDataType_t,
    pub alpha: f64,
}

/// y = op(A)⁻¹ alpha x in f64 from A's values in `vt`, by cuSPARSE's rules (the fill mode's
/// triangle of op(A), the first diagonal entry of a row, a missing one read as one), and the
/// error bound of a computation in `vt` (see the module's comment).
pub(super) fn reference(n: usize, e: &[(usize, usize)], v: &[f64], s: Solve, x: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let lower = (s.fill == L) != (s.op == T);
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    let mut diag: Vec<Option<f64>> = vec![None; n];
    for (&(i, j), &val) in e.iter().zip(v) {
        let (r, c) = if s.op == T { (j, i) } else { (i, j) };
        let val = as_type(val, s.vt);
        if r == c {
            diag[r] = diag[r].or(Some(val));
        } else if (c < r) == lower {
            rows[r].push((c, val));
        }
    }
    let d: Vec<f64> = diag.iter().map(|d| if s.diag == UNIT { 1.0 } else { d.unwrap_or(1.0) }).collect();
    let alpha = as_type(s.alpha, s.vt);
    let order: Vec<usize> = if lower { (0..n).collect() } else { (0..n).rev().collect() };
    let (mut y, mut z) = (vec![0.0; n], vec![0.0; n]);
    for &i in &order {
        let b = alpha * as_type(x[i], s.vt);
        y[i] = (b - rows[i].iter().map(|&(c, a)| a * y[c]).sum::<f64>()) / d[i];
    }
    let k = rows.iter().map(Vec::len).max().unwrap_or(0) + 2;
    let gamma = 2.0 * k as f64 * if s.vt == SPBLK_R_64F { 2f64.powi(-53) } else { 2f64.powi(-24) };
    for &i in &order {
        let w =
            (alpha * x[i]).abs() + (d[i] * y[i]).abs() + rows[i].iter().map(|&(c, a)| (a * y[c]).abs()).sum::<f64>();
        z[i] = (w + rows[i].iter().map(|&(c, a)| a.abs() * z[c]).sum::<f64>()) / d[i].abs();
    }
    (y, z.iter().map(|z| gamma * z).collect())
}

/// Runs the protocol on one side: descriptors, attributes, bufferSize, analysis, `solves`
/// solves (each result returned; one when in place), destroy. `between` runs after the analysis (an update, a
/// change of A's values) with the side, the descriptor and A's values pointer.
pub(super) fn run(
    side: &mut Side,
    sp: &Sp,
    s: Solve,
    x: &[f64],
    solves: usize,
    in_place: bool,
    between: impl FnOnce(&mut Side, spblkSpSVDescr_t, *mut c_void),
) -> Vec<Vec<f64>> {
    run_keeping_buffer(side, sp, s, x, solves, in_place, between).0
}

/// [`run`], also returning the analysis' buffer (alive as long as the side).
pub(super) fn run_keeping_buffer(
    side: &mut Side,
    sp: &Sp,
    s: Solve,
    x: &[f64],
    solves: usize,
    in_place: bool,
    between: impl FnOnce(&mut Side, spblkSpSVDescr_t, *mut c_void),
) -> (Vec<Vec<f64>>, *mut c_void) {
    assert!(!in_place || solves == 1);
    let h = side.handle;
    let n = sp.rows as usize;
    let (ap, bp, vp) = (side.put(&sp.a), side.put(&sp.b), side.put(&sp.v));
    let a = sp.descr_at(ap, bp, vp);
    let (mut fill, mut diag) = (s.fill, s.diag);
    ok(spblkSpMatSetAttribute(a, SPBLK_SPMAT_FILL_MODE, &mut fill as *mut u32 as *mut c_void, 4), "fill");
    ok(spblkSpMatSetAttribute(a, SPBLK_SPMAT_DIAG_TYPE, &mut diag as *mut u32 as *mut c_void, 4), "diag");
    let xp = side.put(&encode(x, s.vt));
    let yp = if in_place { xp } else { side.buffer(n * vsize(s.vt)) };
    let (mut vx, mut vy) = (std::ptr::null_mut(), std::ptr::null_mut());
    ok(spblkCreateDnVec(&mut vx, n as i64, xp, s.vt), "x");
    ok(spblkCreateDnVec(&mut vy, n as i64, yp, s.vt), "y");
    let alpha = side.scalar(false, &scalar_bytes(s.alpha, s.vt));
    let mut d = std::ptr::null_mut();
    ok(spblkSpSV_createDescr(&mut d), "createDescr");
    let mut size = 0usize;
    ok(spblkSpSV_bufferSize(h, s.op, alpha, a, vx, vy, s.vt, SPBLK_SPSV_ALG_DEFAULT, d, &mut size), "bufferSize");
    let buf = side.buffer(size);
    ok(spblkSpSV_analysis(h, s.op, alpha, a, vx, vy, s.vt, SPBLK_SPSV_ALG_DEFAULT, d, buf), "analysis");
    between(side, d, vp);
    let mut out = Vec::new();
    for _ in 0..solves {
        if !in_place {
            // NaN: a solve that writes nothing does not pass for the one before it.
            side.overwrite(yp, n * vsize(s.vt));
        }
        ok(spblkSpSV_solve(h, s.op, alpha, a, vx, vy, s.vt, SPBLK_SPSV_ALG_DEFAULT, d), "solve");
        side.sync();
        out.push(decode(&side.get(yp, n * vsize(s.vt)), s.vt));
    }
    ok(spblkSpSV_destroyDescr(d), "destroyDescr");
    ok(spblkDestroyDnVec(vx), "x");
    ok(spblkDestroyDnVec(vy), "y");
    ok(spblkDestroySpMat(a), "A");
    (out, buf)
}

/// Copies `len` bytes from one allocation of a side to another.
fn copy_within(side: &mut Side, src: *mut c_void, dst: *mut c_void, len: usize) {
    let bytes = side.get(src, len);
    match side.kind {
        // SAFETY: both came from `put` with at least len bytes.
        Kind::Host => unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst as *mut u8, len) },
        Kind::Cuda => {
            use cudarc::driver::sys;
            // SAFETY: device allocations of at least len bytes.
            let r = unsafe { sys::cuMemcpyHtoD_v2(dst as u64, bytes.as_ptr() as *const c_void, len) };
            assert_eq!(r, sys::CUresult::CUDA_SUCCESS);
        }
    }
}

pub(super) fn no_change(_: &mut Side, _: spblkSpSVDescr_t, _: *mut c_void) {}

#[track_caller]
pub(super) fn within(what: &str, got: &[f64], want: &[f64], bound: &[f64]) {
    for i in 0..got.len() {
        let err = (got[i] - want[i]).abs();
        assert!(
            got[i].is_finite() && err <= bound[i] + 1e-300,
            "{what}: y[{i}] = {} but the reference is {} (error {err:e} > bound {:e})",
            got[i],
            want[i],
            bound[i]
        );
    }
}

#[track_caller]
pub(super) fn same_bits(what: &str, got: &[f64], want: &[f64]) {
    for i in 0..got.len() {
        assert!(got[i].to_bits() == want[i].to_bits(), "{what}: y[{i}] = {} but {} before", got[i], want[i]);
    }
}

/// Every format, op, fill mode, diagonal type, value type, index type and base: each side
/// within the bound of the dense reference, repeated solves bit for bit the same, and the
/// CUDA backend's row-per-thread kernel bit for bit the host's result.
#[test]
fn spsv_matches_the_reference_on_every_variant() {
    let sides = sides("spsv_matches_the_reference_on_every_variant");
    let mut r = rng(0x5e5e);
    let mut case = 0;
    for format in [SPBLK_FORMAT_CSR, SPBLK_FORMAT_COO] {
        for op in [N, T] {
            for fill in [L, U] {
                for diag in [NON_UNIT, UNIT] {
                    for vt in [SPBLK_R_32F, SPBLK_R_64F] {
                        for (ity, base) in
                            [(SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO), (SPBLK_INDEX_64I, SPBLK_INDEX_BASE_ONE)]
                        {
                            case += 1;
                            if quick_skip(case) {
                                continue;
                            }
                            let n = [1, 7, 130, 1000][case % 4];
                            let (e, v) = square(&mut r, n, 1 + case % 5, 0.1);
                            let sp = Sp::new(&mut r, format, n, n, &e, &v, ity, base, vt);
                            let x = values(&mut r, n);
                            let s = Solve { op, fill, diag, vt, alpha: some_scalar(&mut r, 0.5, 2.0, false) };
                            let (want, bound) = reference(n, &e, &v, s, &x);
                            let what = format!("case {case}: {format:?} n={n} {s:?} ity {ity:?} base {base:?}");
                            let mut results = Vec::new();
                            for &kind in &sides {
                                let mut side = Side::new(kind);
                                let ys = run(&mut side, &sp, s, &x, 2, false, no_change);
                                within(&format!("{what} {kind:?}"), &ys[0], &want, &bound);
                                same_bits(&format!("{what} {kind:?} second solve"), &ys[1], &ys[0]);
                                results.push(ys[0].clone());
                            }
                            if let [host, cuda] = &results[..] {
                                same_bits(&format!("{what}: CUDA against the host"), cuda, host);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Long rows (a warp per row on CUDA when rows are long on average; else rows of more than 32
/// entries get a warp of their own, lanes' sums in a tree), large level sets (the host runs
/// them in parallel) and many rows waiting on each other across the GPU: within the bound, and
/// the same bits over repeated solves and over a second analysis.
#[test]
fn spsv_long_rows_and_many_rows() {
    let sides = sides("spsv_long_rows_and_many_rows");
    let mut r = rng(0x10ca1);
    let cases = [
        (3000, 40, 0, SPBLK_R_64F),
        (20000, 3, 700, SPBLK_R_32F),
        (60000, 3, 0, SPBLK_R_32F),
        (200000, 2, 0, SPBLK_R_64F),
    ];
    for (n, avg, long, vt) in cases {
        let (e, v) = square_with_long_rows(&mut r, n, avg, 0.0, long);
        let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, n, n, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, vt);
        let x = values(&mut r, n);
        for (op, fill) in [(N, L), (T, L), (N, U)] {
            let s = Solve { op, fill, diag: NON_UNIT, vt, alpha: 1.0 };
            let (want, bound) = reference(n, &e, &v, s, &x);
            for &kind in &sides {
                let mut side = Side::new(kind);
                let what = format!("n={n} avg={avg} long={long} {s:?} {kind:?}");
                let (ys, records) = spblk::trace::capture(|| run(&mut side, &sp, s, &x, 3, false, no_change));
                within(&what, &ys[0], &want, &bound);
                same_bits(&format!("{what}, solve 2"), &ys[1], &ys[0]);
                same_bits(&format!("{what}, solve 3"), &ys[2], &ys[0]);
                let again = run(&mut side, &sp, s, &x, 1, false, no_change);
                same_bits(&format!("{what}, second analysis"), &again[0], &ys[0]);
                if kind == Kind::Cuda && !harness_on_host() {
                    // One column of consecutive values: the kernels without steps; up to 1 MB
                    // of values, one launch that solves in one block or on the grid, else the
                    // grid kernel after memsets.
                    let fits = n * vsize(vt) <= 1 << 20;
                    let name =
                        |k: &str| if fits { format!("spblk_spsv_once_{k}_") } else { format!("spblk_spsv_{k}_one_") };
                    let warp = super::launched(&records, &name("warp"));
                    let rows = super::launched(&records, &name("rows"));
                    let long = sp.nnz / sp.rows >= 16;
                    assert_eq!((warp, rows), if long { (3, 0) } else { (0, 3) }, "{what}: kernels");
                    let solves = records.iter().filter(|r| r.function == "spblkSpSV_solve");
                    let launches: u32 = solves.flat_map(|r| r.kernels.iter().map(|k| k.1)).sum();
                    assert_eq!(launches, 3, "{what}: one launch a solve");
                }
            }
        }
    }
}

/// Rows `i` waiting on the `band` rows before them (levels: one per row) and, with `arrow`, on
/// row 0 only (two levels), with their mirror images above the diagonal.
pub(super) fn chain_or_arrow(r: &mut StdRng, n: usize, band: usize, arrow: bool) -> (Vec<(usize, usize)>, Vec<f64>) {
    let mut rows: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    for i in 1..n {
        let below: Vec<usize> = if arrow { vec![0] } else { (i.saturating_sub(band)..i).collect() };
        for j in below {
            rows[i].push(j);
            rows[j].push(i);
        }
    }
    for cols in &mut rows {
        cols.shuffle(r);
    }
    weighted(r, &rows)
}

/// On CUDA a solve runs in one thread block (its published values in shared memory) when the
/// analysis finds many levels for the rows, else on the whole GPU; either way the bits of the
/// other. The analysis' choice is the buffer's third word (1: one block); every SpSV solve of up
/// to 1 MB of values is one launch of the kernel that runs either (resetting what it used for
/// the next solve: three solves in a row check that), larger ones the grid kernel.
#[test]
fn spsv_runs_in_one_block_or_on_the_grid() {
    let sides = sides("spsv_runs_in_one_block_or_on_the_grid");
    let mut r = rng(0xb10c);
    // (n, band, arrow, values, expected mode: Some(1) one block, Some(0) the grid, both in one
    // launch; None: over 1 MB of values, memsets and the grid kernel).
    let cases = [
        (3000, 2, false, SPBLK_R_64F, Some(1)),
        (1200, 20, false, SPBLK_R_64F, Some(1)),
        (5000, 3, false, SPBLK_R_32F, Some(1)),
        (20000, 0, true, SPBLK_R_32F, Some(0)),
        (30000, 0, true, SPBLK_R_64F, Some(0)),
        (140000, 0, true, SPBLK_R_64F, None),
    ];
    for (n, band, arrow, vt, mode) in cases {
        let (e, v) = chain_or_arrow(&mut r, n, band, arrow);
        let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, n, n, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, vt);
        let x = values(&mut r, n);
        for (op, fill) in [(N, L), (T, L), (N, U)] {
            let s = Solve { op, fill, diag: NON_UNIT, vt, alpha: 1.5 };
            let (want, bound) = reference(n, &e, &v, s, &x);
            for &kind in &sides {
                let mut side = Side::new(kind);
                let what = format!("n={n} band={band} arrow={arrow} {s:?} {kind:?}");
                let ((ys, buf), records) =
                    spblk::trace::capture(|| run_keeping_buffer(&mut side, &sp, s, &x, 3, false, no_change));
                within(&what, &ys[0], &want, &bound);
                same_bits(&format!("{what}, solve 2"), &ys[1], &ys[0]);
                same_bits(&format!("{what}, solve 3"), &ys[2], &ys[0]);
                if kind == Kind::Cuda && !harness_on_host() {
                    let words = side.get(buf, 12);
                    let chosen = u32::from_le_bytes(words[8..12].try_into().unwrap());
                    let once = super::launched(&records, "spblk_spsv_once_");
                    let grids = super::launched(&records, "spblk_spsv_rows_one_")
                        + super::launched(&records, "spblk_spsv_warp_one_");
                    // Up to 8192 rows the sort by level, the offsets and the tickets are one
                    // block each (kernels/spsv/small.cu); beyond, device-wide sorts and scans.
                    let small = super::launched(&records, "spblk_spsv_order_small")
                        + super::launched(&records, "spblk_spsv_arrange_small");
                    let wide = super::launched(&records, "spblk_spsv_order_keys")
                        + super::launched(&records, "spblk_spsv_ticket_place");
                    let expected = if n <= 8192 { (2, 0) } else { (0, 2) };
                    assert_eq!((small, wide), expected, "{what}: the analysis' sort and tickets");
                    match mode {
                        Some(m) => {
                            assert_eq!(chosen, m, "{what}: where the solve runs");
                            assert_eq!((once, grids), (3, 0), "{what}: kernels");
                        }
                        None => assert_eq!((chosen, once, grids), (0, 0, 3), "{what}: too large for one launch"),
                    }
                }
            }
        }
    }
}

/// updateMatrix(DIAGONAL) takes n values in A's row order; the CUDA analysis keeps the diagonal
/// in its solve order (rows sorted by level), so distinct new values on a matrix whose order is
/// not the row order check the gather: each side within the bound of the reference built from
/// the new diagonal.
#[test]
fn spsv_diagonal_update_follows_the_rows() {
    let sides = sides("spsv_diagonal_update_follows_the_rows");
    let mut r = rng(0xd1a9);
    let n = 1000;
    let (e, v) = square(&mut r, n, 3, 0.0);
    let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, n, n, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F);
    let x = values(&mut r, n);
    // Each row's new pivot: its old one times a distinct factor in [1, 2) (still dominant).
    let mut new_diag = vec![0.0; n];
    for (&(i, j), &val) in e.iter().zip(&v) {
        if i == j {
            new_diag[i] = val * (1.0 + i as f64 / n as f64);
        }
    }
    let updated: Vec<f64> = e.iter().zip(&v).map(|(&(i, j), &val)| if i == j { new_diag[i] } else { val }).collect();
    let put_diagonal = |side: &mut Side, d: spblkSpSVDescr_t, _: *mut c_void| {
        let p = side.put(&encode(&new_diag, SPBLK_R_64F));
        ok(spblkSpSV_updateMatrix(side.handle, d, p, SPBLK_SPSV_UPDATE_DIAGONAL), "updateMatrix");
        side.sync();
    };
    for (op, fill) in [(N, L), (T, L), (N, U)] {
        let s = Solve { op, fill, diag: NON_UNIT, vt: SPBLK_R_64F, alpha: 1.0 };
        let (want, bound) = reference(n, &e, &updated, s, &x);
        for &kind in &sides {
            let mut side = Side::new(kind);
            let ys = run(&mut side, &sp, s, &x, 1, false, put_diagonal);
            within(&format!("{s:?} {kind:?}: new diagonal"), &ys[0], &want, &bound);
        }
    }
}

/// What NVIDIA's library did with these 4x4 matrices (probe of 2026-11-27 on an H100,
/// cuSPARSE 12.6.3; docs/spsv.md): the solve reads the values copied at the analysis, the
/// other triangle is ignored, a missing diagonal entry reads as one, of two diagonal entries
/// the first counts, repeated off-diagonal entries add up, a zero pivot gives inf.
#[test]
fn spsv_behaves_as_nvidia_s() {
    let lower =
        [(0, 0, 2.0), (1, 0, 1.0), (1, 1, 3.0), (2, 1, 1.0), (2, 2, 4.0), (3, 0, 1.0), (3, 2, 1.0), (3, 3, 5.0)];
    let x = [1.0, 2.0, 3.0, 4.0];
    let s = Solve { op: N, fill: L, diag: NON_UNIT, vt: SPBLK_R_64F, alpha: 1.0 };
    let doubled = |side: &mut Side, d: spblkSpSVDescr_t, _: *mut c_void| {
        let v: Vec<f64> = lower.iter().map(|e| 2.0 * e.2).collect();
        let p = side.put(&encode(&v, SPBLK_R_64F));
        ok(spblkSpSV_updateMatrix(side.handle, d, p, SPBLK_SPSV_UPDATE_GENERAL), "updateMatrix");
        side.sync();
        side.overwrite(p, 64); // copied: the solve must not read newValues any more
    };
    let changed_in_place = |side: &mut Side, _: spblkSpSVDescr_t, vp: *mut c_void| {
        let v: Vec<f64> = lower.iter().map(|e| 2.0 * e.2).collect();
        let p = side.put(&encode(&v, SPBLK_R_64F));
        copy_within(side, p, vp, 64);
    };
    let diagonal_ten = |side: &mut Side, d: spblkSpSVDescr_t, _: *mut c_void| {
        let p = side.put(&encode(&[10.0; 4], SPBLK_R_64F));
        ok(spblkSpSV_updateMatrix(side.handle, d, p, SPBLK_SPSV_UPDATE_DIAGONAL), "updateMatrix");
    };
    type Between<'a> = &'a dyn Fn(&mut Side, spblkSpSVDescr_t, *mut c_void);
    let none: Between = &no_change;
    /// What, A's entries, the solve, in place, between analysis and solve, NVIDIA's y.
    type Case<'a> = (&'a str, Vec<(usize, usize, f64)>, Solve, bool, Between<'a>, [f64; 4]);
    let cases: Vec<Case> = vec![
        ("lower N", lower.to_vec(), s, false, none, [0.5, 0.5, 0.625, 0.575]),
        ("lower T", lower.to_vec(), Solve { op: T, ..s }, false, none, [-0.141667, 0.483333, 0.55, 0.8]),
        ("lower N unit", lower.to_vec(), Solve { diag: UNIT, ..s }, false, none, [1.0, 1.0, 2.0, 1.0]),
        ("lower N alpha 2", lower.to_vec(), Solve { alpha: 2.0, ..s }, false, none, [1.0, 1.0, 1.25, 1.15]),
        ("lower N in place", lower.to_vec(), s, true, none, [0.5, 0.5, 0.625, 0.575]),
        ("lower read as upper", lower.to_vec(), Solve { fill: U, ..s }, false, none, [0.5, 2.0 / 3.0, 0.75, 0.8]),
        ("values changed after the analysis", lower.to_vec(), s, false, &changed_in_place, [0.5, 0.5, 0.625, 0.575]),
        ("updateMatrix(GENERAL) doubled", lower.to_vec(), s, false, &doubled, [0.25, 0.25, 0.3125, 0.2875]),
        (
            "updateMatrix(GENERAL) doubled, T",
            lower.to_vec(),
            Solve { op: T, ..s },
            false,
            &doubled,
            [-0.0708333, 0.241667, 0.275, 0.4],
        ),
        ("updateMatrix(DIAGONAL) tens", lower.to_vec(), s, false, &diagonal_ten, [0.1, 0.19, 0.281, 0.3619]),
        (
            "updateMatrix(DIAGONAL) tens, T",
            lower.to_vec(),
            Solve { op: T, ..s },
            false,
            &diagonal_ten,
            [0.0426, 0.174, 0.26, 0.4],
        ),
        (
            "an upper entry ignored",
            [&lower[..1], &[(0, 3, 7.0)], &lower[1..]].concat(),
            s,
            false,
            none,
            [0.5, 0.5, 0.625, 0.575],
        ),
        (
            "an upper entry ignored, T",
            [&lower[..1], &[(0, 3, 7.0)], &lower[1..]].concat(),
            Solve { op: T, ..s },
            false,
            none,
            [-0.141667, 0.483333, 0.55, 0.8],
        ),
        (
            "missing diagonal in row 2",
            lower.iter().copied().filter(|e| (e.0, e.1) != (2, 2)).collect(),
            s,
            false,
            none,
            [0.5, 0.5, 2.5, 0.2],
        ),
        (
            "(1,0) stored twice",
            [&lower[..2], &[(1, 0, 0.5)], &lower[2..]].concat(),
            s,
            false,
            none,
            [0.5, 0.416667, 0.645833, 0.570833],
        ),
        (
            "(1,1) stored twice",
            [&lower[..3], &[(1, 1, 2.0)], &lower[3..]].concat(),
            s,
            false,
            none,
            [0.5, 0.5, 0.625, 0.575],
        ),
    ];
    for kind in sides("spsv_behaves_as_nvidia_s") {
        for (what, entries, s, in_place, between, want) in &cases {
            let e: Vec<(usize, usize)> = entries.iter().map(|t| (t.0, t.1)).collect();
            let v: Vec<f64> = entries.iter().map(|t| t.2).collect();
            let sp = Sp::new(&mut rng(1), SPBLK_FORMAT_CSR, 4, 4, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, s.vt);
            let mut side = Side::new(kind);
            let y = run(&mut side, &sp, *s, &x, 1, *in_place, between).remove(0);
            for i in 0..4 {
                // NVIDIA's numbers were printed with six significant digits (within 5e-6).
                assert!(
                    (y[i] - want[i]).abs() <= 5e-6 * want[i].abs(),
                    "{what} ({kind:?}): y = {y:?}, NVIDIA's {want:?}"
                );
            }
        }
        // A zero pivot: inf from row 1 on, as NVIDIA's.
        let zero: Vec<(usize, usize, f64)> =
            lower.iter().map(|&(i, j, v)| (i, j, if (i, j) == (1, 1) { 0.0 } else { v })).collect();
        let e: Vec<(usize, usize)> = zero.iter().map(|t| (t.0, t.1)).collect();
        let v: Vec<f64> = zero.iter().map(|t| t.2).collect();
        let sp = Sp::new(&mut rng(1), SPBLK_FORMAT_CSR, 4, 4, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, s.vt);
        let y = run(&mut Side::new(kind), &sp, s, &x, 1, false, no_change).remove(0);
        assert_eq!(y[0], 0.5);
        assert!(
            y[1] == f64::INFINITY && y[2] == f64::NEG_INFINITY && y[3] == f64::INFINITY,
            "zero pivot ({kind:?}): {y:?}"
        );
    }
}

/// The protocol's errors, with the argument they name.
#[test]
fn spsv_protocol_errors() {
    let mut r = rng(0xe22);
    let (e, v) = square(&mut r, 6, 2, 0.0);
    let all = sides("spsv_protocol_errors");
    for &kind in &all {
        let mut side = Side::new(kind);
        let h = side.handle;
        let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, 6, 6, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F);
        let a = sp.descr(&mut side);
        let (xp, yp) = (side.put(&encode(&[1.0; 6], SPBLK_R_64F)), side.buffer(48));
        let (mut vx, mut vy) = (std::ptr::null_mut(), std::ptr::null_mut());
        ok(spblkCreateDnVec(&mut vx, 6, xp, SPBLK_R_64F), "x");
        ok(spblkCreateDnVec(&mut vy, 6, yp, SPBLK_R_64F), "y");
        let one = 1.0f64;
        let alpha = &one as *const f64 as *const c_void;
        let mut d = std::ptr::null_mut();
        ok(spblkSpSV_createDescr(&mut d), "createDescr");
        let expect = |status: spblkStatus_t, want: spblkStatus_t, words: &str| {
            let message = last_message();
            assert_eq!(status, want, "{kind:?}: {message}");
            assert!(message.contains(words), "{kind:?}: '{message}' lacks '{words}'");
        };
        let f64t = SPBLK_R_64F;
        let alg = SPBLK_SPSV_ALG_DEFAULT;
        expect(spblkSpSV_solve(h, N, alpha, a, vx, vy, f64t, alg, d), SPBLK_STATUS_INVALID_VALUE, "spsvDescr");
        let p = side.put(&[0; 64]);
        expect(spblkSpSV_updateMatrix(h, d, p, SPBLK_SPSV_UPDATE_GENERAL), SPBLK_STATUS_INVALID_VALUE, "spsvDescr");
        let mut size = usize::MAX;
        expect(spblkSpSV_bufferSize(h, N, alpha, a, vx, vy, f64t, 7, d, &mut size), SPBLK_STATUS_INVALID_VALUE, "alg");
        assert_eq!(size, usize::MAX, "bufferSize written on failure");
        expect(
            spblkSpSV_bufferSize(h, N, alpha, a, vx, vy, SPBLK_R_32F, alg, d, &mut size),
            SPBLK_STATUS_INVALID_VALUE,
            "computeType",
        );
        let c = SPBLK_OPERATION_CONJUGATE_TRANSPOSE;
        expect(
            spblkSpSV_bufferSize(h, c, alpha, a, vx, vy, f64t, alg, d, &mut size),
            SPBLK_STATUS_NOT_SUPPORTED,
            "opA",
        );
        ok(spblkSpSV_bufferSize(h, N, alpha, a, vx, vy, f64t, alg, d, &mut size), "bufferSize");
        if size > 0 {
            let null = std::ptr::null_mut();
            expect(
                spblkSpSV_analysis(h, N, alpha, a, vx, vy, f64t, alg, d, null),
                SPBLK_STATUS_INVALID_VALUE,
                "externalBuffer",
            );
        }
        let buf = side.buffer(size);
        ok(spblkSpSV_analysis(h, N, alpha, a, vx, vy, f64t, alg, d, buf), "analysis");
        expect(spblkSpSV_solve(h, T, alpha, a, vx, vy, f64t, alg, d), SPBLK_STATUS_INVALID_VALUE, "analysed for");
        expect(spblkSpSV_updateMatrix(h, d, p, 2), SPBLK_STATUS_INVALID_VALUE, "updatePart");
        let null = std::ptr::null_mut();
        expect(spblkSpSV_updateMatrix(h, d, null, SPBLK_SPSV_UPDATE_DIAGONAL), SPBLK_STATUS_INVALID_VALUE, "newValues");
        ok(spblkSpSV_solve(h, N, alpha, a, vx, vy, f64t, alg, d), "solve");
        // Another backend's handle cannot use this analysis.
        if all.len() == 2 && !harness_on_host() {
            let other = Side::new(if kind == Kind::Host { Kind::Cuda } else { Kind::Host });
            let status = spblkSpSV_solve(other.handle, N, alpha, a, vx, vy, f64t, alg, d);
            expect(status, SPBLK_STATUS_INVALID_VALUE, "another backend");
        }
        // Shapes and types the solve does not take.
        let wide = Sp::new(&mut r, SPBLK_FORMAT_CSR, 6, 7, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, f64t);
        let aw = wide.descr(&mut side);
        expect(
            spblkSpSV_bufferSize(h, N, alpha, aw, vx, vy, f64t, alg, d, &mut size),
            SPBLK_STATUS_INVALID_VALUE,
            "square",
        );
        let csc = Sp::new(&mut r, SPBLK_FORMAT_CSC, 6, 6, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, f64t);
        let ac = csc.descr(&mut side);
        expect(
            spblkSpSV_bufferSize(h, N, alpha, ac, vx, vy, f64t, alg, d, &mut size),
            SPBLK_STATUS_NOT_SUPPORTED,
            "format",
        );
        let half = Sp::new(&mut r, SPBLK_FORMAT_CSR, 6, 6, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_16F);
        let ah = half.descr(&mut side);
        expect(
            spblkSpSV_bufferSize(h, N, alpha, ah, vx, vy, SPBLK_R_32F, alg, d, &mut size),
            SPBLK_STATUS_NOT_SUPPORTED,
            "R_32F and R_64F",
        );
        for m in [a, aw, ac, ah] {
            ok(spblkDestroySpMat(m), "destroy");
        }
        ok(spblkDestroyDnVec(vx), "x");
        ok(spblkDestroyDnVec(vy), "y");
        ok(spblkSpSV_destroyDescr(d), "destroyDescr");
        ok(spblkSpSV_destroyDescr(std::ptr::null_mut()), "destroy NULL");
    }
}

/// The analysis and the solve run on the caller's stream without waiting: captured into a
/// graph and replayed, they give the plain run's bits.
#[test]
fn spsv_is_capturable() {
    if !gpu("spsv_is_capturable") || harness_on_host() {
        return;
    }
    let mut r = rng(0xca9);
    let n = 5000;
    let (e, v) = square(&mut r, n, 4, 0.05);
    let sp = Sp::new(&mut r, SPBLK_FORMAT_COO, n, n, &e, &v, SPBLK_INDEX_64I, SPBLK_INDEX_BASE_ONE, SPBLK_R_32F);
    let x = values(&mut r, n);
    let s = Solve { op: T, fill: U, diag: NON_UNIT, vt: SPBLK_R_32F, alpha: 0.75 };
    let plain = run(&mut Side::new(Kind::Cuda), &sp, s, &x, 1, false, no_change).remove(0);
    let mut side = Side::new(Kind::Cuda);
    let h = side.handle;
    let (ap, bp, vp) = (side.put(&sp.a), side.put(&sp.b), side.put(&sp.v));
    let a = sp.descr_at(ap, bp, vp);
    let mut fill = U;
    ok(spblkSpMatSetAttribute(a, SPBLK_SPMAT_FILL_MODE, &mut fill as *mut u32 as *mut c_void, 4), "fill");
    let (xp, yp) = (side.put(&encode(&x, s.vt)), side.buffer(n * 4));
    let (mut vx, mut vy) = (std::ptr::null_mut(), std::ptr::null_mut());
    ok(spblkCreateDnVec(&mut vx, n as i64, xp, s.vt), "x");
    ok(spblkCreateDnVec(&mut vy, n as i64, yp, s.vt), "y");
    let alpha = 0.75f32;
    let ap_ = &alpha as *const f32 as *const c_void;
    let mut d = std::ptr::null_mut();
    ok(spblkSpSV_createDescr(&mut d), "createDescr");
    let mut size = 0;
    ok(spblkSpSV_bufferSize(h, T, ap_, a, vx, vy, s.vt, 0, d, &mut size), "bufferSize");
    let buf = side.buffer(size);
    let statuses = capture_and_replay(h, || {
        [spblkSpSV_analysis(h, T, ap_, a, vx, vy, s.vt, 0, d, buf), spblkSpSV_solve(h, T, ap_, a, vx, vy, s.vt, 0, d)]
    });
    assert_eq!(statuses, [SPBLK_STATUS_SUCCESS; 2], "{}", last_message());
    same_bits("captured analysis and solve", &decode(&side.get(yp, n * 4), s.vt), &plain);
    // A captured solve alone, replayed after the plain analysis above.
    side.overwrite(yp, n * 4);
    let status = capture_and_replay(h, || spblkSpSV_solve(h, T, ap_, a, vx, vy, s.vt, 0, d));
    assert_eq!(status, SPBLK_STATUS_SUCCESS, "{}", last_message());
    same_bits("captured solve", &decode(&side.get(yp, n * 4), s.vt), &plain);
    ok(spblkSpSV_destroyDescr(d), "destroyDescr");
    ok(spblkDestroyDnVec(vx), "x");
    ok(spblkDestroyDnVec(vy), "y");
    ok(spblkDestroySpMat(a), "A");
}
