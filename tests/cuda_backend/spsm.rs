//! Triangular solves with several right-hand sides (`spblkSpSM_*`): every column within the
//! error bound of the dense reference (see spsv.rs) and bit for bit what `spblkSpSV_solve`
//! gives for that column alone, on every layout of op(B) and C; in place; the updates; graph
//! capture; the protocol's errors.

use std::ffi::c_void;

use rand::Rng;
use spblk::capi::dense::*;
use spblk::capi::sp_mat::*;
use spblk::capi::spsm::*;
use spblk::capi::types::*;

use super::spsv::{
    chain_or_arrow, no_change, reference, run as run_spsv, run_keeping_buffer, same_bits, square,
    square_with_long_rows, within, Solve, L, N, NON_UNIT, T, U, UNIT,
};
use super::support::*;

const ROW: spblkOrder_t = SPBLK_ORDER_ROW;
const COL: spblkOrder_t = SPBLK_ORDER_COL;

/// The right-hand sides: the columns of op(B), each n values.
fn rhs_columns(b: &Dn, op_b: spblkOperation_t) -> Vec<Vec<f64>> {
    let (v, pos) = (decode(&b.data, b.vt), b.positions());
    let at = |r: usize, c: usize| v[pos[r * b.cols as usize + c]];
    let (n, k) = if op_b == T { (b.cols, b.rows) } else { (b.rows, b.cols) };
    (0..k as usize).map(|j| (0..n as usize).map(|i| if op_b == T { at(j, i) } else { at(i, j) }).collect()).collect()
}

/// C's columns.
fn columns_of(c: &Dn, bytes: &[u8]) -> Vec<Vec<f64>> {
    let (v, pos) = (decode(bytes, c.vt), c.positions());
    (0..c.cols as usize).map(|j| (0..c.rows as usize).map(|i| v[pos[i * c.cols as usize + j]]).collect()).collect()
}

/// One SpSM request: op(A), op(B) and C's layout (`None`: in place, C is B).
#[derive(Clone, Copy, Debug)]
struct Many {
    s: Solve,
    op_b: spblkOperation_t,
    c_order: Option<spblkOrder_t>,
}

/// Runs the protocol on one side: bufferSize, analysis, `between`, `solves` solves (C's
/// columns after each), destroy.
fn run(
    side: &mut Side,
    sp: &Sp,
    m: Many,
    b: &Dn,
    solves: usize,
    between: impl FnOnce(&mut Side, spblkSpSMDescr_t),
) -> Vec<Vec<Vec<f64>>> {
    let (h, s) = (side.handle, m.s);
    let n = sp.rows as usize;
    let a = sp.descr(side);
    let (mut fill, mut diag) = (s.fill, s.diag);
    ok(spblkSpMatSetAttribute(a, SPBLK_SPMAT_FILL_MODE, &mut fill as *mut u32 as *mut c_void, 4), "fill");
    ok(spblkSpMatSetAttribute(a, SPBLK_SPMAT_DIAG_TYPE, &mut diag as *mut u32 as *mut c_void, 4), "diag");
    let bp = side.put(&b.data);
    let k = if m.op_b == T { b.rows } else { b.cols } as usize;
    let c = match m.c_order {
        Some(order) => Dn::random(&mut rng(k as u64), n, k, order, s.vt, false).nan_like(),
        None => b.clone(),
    };
    let cp = if m.c_order.is_some() { side.put(&c.data) } else { bp };
    let (db, dc) = (b.descr(bp), c.descr(cp));
    let alpha = side.scalar(false, &scalar_bytes(s.alpha, s.vt));
    let mut d = std::ptr::null_mut();
    ok(spblkSpSM_createDescr(&mut d), "createDescr");
    let (op_a, op_b, vt, alg) = (s.op, m.op_b, s.vt, SPBLK_SPSM_ALG_DEFAULT);
    let mut size = 0usize;
    ok(spblkSpSM_bufferSize(h, op_a, op_b, alpha, a, db, dc, vt, alg, d, &mut size), "bufferSize");
    let buf = side.buffer(size);
    ok(spblkSpSM_analysis(h, op_a, op_b, alpha, a, db, dc, vt, alg, d, buf), "analysis");
    between(side, d);
    let mut out = Vec::new();
    for _ in 0..solves {
        if m.c_order.is_some() {
            // NaN: a solve that writes nothing does not pass for the one before it.
            side.overwrite(cp, c.data.len());
        }
        ok(spblkSpSM_solve(h, op_a, op_b, alpha, a, db, dc, vt, alg, d), "solve");
        side.sync();
        out.push(columns_of(&c, &side.get(cp, c.data.len())));
    }
    ok(spblkSpSM_destroyDescr(d), "destroyDescr");
    for dn in [db, dc] {
        ok(spblkDestroyDnMat(dn), "dense");
    }
    ok(spblkDestroySpMat(a), "A");
    out
}

/// Each column of `got` within the reference's bound, and bit for bit the SpSV solve of that
/// column on the same side.
#[allow(clippy::too_many_arguments)]
fn check_columns(
    what: &str,
    side: &mut Side,
    sp: &Sp,
    e: &[(usize, usize)],
    v: &[f64],
    s: Solve,
    rhs: &[Vec<f64>],
    got: &[Vec<f64>],
) {
    assert_eq!(got.len(), rhs.len(), "{what}: columns");
    for (j, (x, y)) in rhs.iter().zip(got).enumerate() {
        let (want, bound) = reference(sp.rows as usize, e, v, s, x);
        within(&format!("{what}, column {j}"), y, &want, &bound);
        let alone = run_spsv(side, sp, s, x, 1, false, no_change).remove(0);
        same_bits(&format!("{what}, column {j} against SpSV"), y, &alone);
    }
}

/// Every op(A), fill mode, diagonal type, value and index type, with op(B) either way, B and C
/// in either order (padded leading dimensions) and 1 to 33 right-hand sides: each column within
/// the bound and SpSV's bits, a second solve the same bits, CUDA the host's bits.
#[test]
fn spsm_matches_spsv_column_by_column() {
    let sides = sides("spsm_matches_spsv_column_by_column");
    let mut r = rng(0x5e5a);
    let mut case = 0;
    for format in [SPBLK_FORMAT_CSR, SPBLK_FORMAT_COO] {
        for op in [N, T] {
            for fill in [L, U] {
                for diag in [NON_UNIT, UNIT] {
                    for vt in [SPBLK_R_32F, SPBLK_R_64F] {
                        case += 1;
                        if quick_skip(case) {
                            continue;
                        }
                        let (ity, base) =
                            [(SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO), (SPBLK_INDEX_64I, SPBLK_INDEX_BASE_ONE)]
                                [case % 2];
                        let n = [1, 7, 130, 1000][case % 4];
                        let k = [1, 2, 5, 33][(case / 4) % 4];
                        let (e, v) = square(&mut r, n, 1 + case % 5, 0.1);
                        let sp = Sp::new(&mut r, format, n, n, &e, &v, ity, base, vt);
                        let op_b = if r.gen_bool(0.5) { T } else { N };
                        let b_order = if r.gen_bool(0.5) { ROW } else { COL };
                        let c_order = if r.gen_bool(0.5) { ROW } else { COL };
                        let b = if op_b == T {
                            Dn::random(&mut r, k, n, b_order, vt, false)
                        } else {
                            Dn::random(&mut r, n, k, b_order, vt, false)
                        };
                        let s = Solve { op, fill, diag, vt, alpha: some_scalar(&mut r, 0.5, 2.0, false) };
                        let m = Many { s, op_b, c_order: Some(c_order) };
                        let rhs = rhs_columns(&b, op_b);
                        let what = format!("case {case}: {format:?} n={n} k={k} {m:?} B {b_order:?} ity {ity:?}");
                        let mut results = Vec::new();
                        for &kind in &sides {
                            let mut side = Side::new(kind);
                            let cs = run(&mut side, &sp, m, &b, 2, |_, _| {});
                            check_columns(&format!("{what} {kind:?}"), &mut side, &sp, &e, &v, s, &rhs, &cs[0]);
                            for (j, (a, b)) in cs[1].iter().zip(&cs[0]).enumerate() {
                                same_bits(&format!("{what} {kind:?}, second solve, column {j}"), a, b);
                            }
                            results.push(cs[0].clone());
                        }
                        if let [host, cuda] = &results[..] {
                            for (j, (c, h)) in cuda.iter().zip(host).enumerate() {
                                same_bits(&format!("{what}: CUDA against the host, column {j}"), c, h);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Long rows (the warp kernel; long rows' own tickets) and many rows with several right-hand
/// sides: within the bound and each column SpSV's bits.
#[test]
fn spsm_long_rows_and_many_rows() {
    let sides = sides("spsm_long_rows_and_many_rows");
    let mut r = rng(0x10c4);
    for (n, avg, long, vt, k) in
        [(3000, 40, 0, SPBLK_R_64F, 3), (20000, 3, 700, SPBLK_R_32F, 4), (60000, 3, 0, SPBLK_R_64F, 2)]
    {
        let (e, v) = square_with_long_rows(&mut r, n, avg, 0.0, long);
        let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, n, n, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, vt);
        let b = Dn::random(&mut r, n, k, COL, vt, false);
        let rhs = rhs_columns(&b, N);
        for (op, fill, c_order) in [(N, L, ROW), (T, L, COL), (N, U, COL)] {
            let s = Solve { op, fill, diag: NON_UNIT, vt, alpha: 1.0 };
            let m = Many { s, op_b: N, c_order: Some(c_order) };
            for &kind in &sides {
                let mut side = Side::new(kind);
                let what = format!("n={n} avg={avg} long={long} k={k} {m:?} {kind:?}");
                let (cs, records) = spblk::trace::capture(|| run(&mut side, &sp, m, &b, 1, |_, _| {}));
                check_columns(&what, &mut side, &sp, &e, &v, s, &rhs, &cs[0]);
                if kind == Kind::Cuda && !harness_on_host() {
                    let warp = super::launched(&records, "spblk_spsv_warp_many_");
                    let rows = super::launched(&records, "spblk_spsv_rows_many_");
                    assert_eq!((warp, rows), if avg >= 16 { (1, 0) } else { (0, 1) }, "{what}: kernels");
                }
            }
        }
    }
}

/// In place (C is B, either order, padded), after updateMatrix(DIAGONAL): the bits of the same
/// solve into a separate C.
#[test]
fn spsm_in_place_after_a_diagonal_update() {
    let sides = sides("spsm_in_place_after_a_diagonal_update");
    let mut r = rng(0x1b1a);
    let n = 700;
    let (e, v) = square(&mut r, n, 3, 0.0);
    let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, n, n, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F);
    let new_diag: Vec<f64> = (0..n).map(|i| 50.0 + i as f64).collect();
    let updated: Vec<f64> = e.iter().zip(&v).map(|(&(i, j), &x)| if i == j { new_diag[i] } else { x }).collect();
    let put_diagonal = |side: &mut Side, d: spblkSpSMDescr_t| {
        let p = side.put(&encode(&new_diag, SPBLK_R_64F));
        ok(spblkSpSM_updateMatrix(side.handle, d, p, SPBLK_SPSM_UPDATE_DIAGONAL), "updateMatrix");
        side.sync();
    };
    for order in [ROW, COL] {
        let b = Dn::random(&mut r, n, 6, order, SPBLK_R_64F, false);
        let rhs = rhs_columns(&b, N);
        let s = Solve { op: T, fill: U, diag: NON_UNIT, vt: SPBLK_R_64F, alpha: 1.5 };
        for &kind in &sides {
            let what = format!("{order:?} {kind:?}");
            let mut side = Side::new(kind);
            let apart = run(&mut side, &sp, Many { s, op_b: N, c_order: Some(COL) }, &b, 1, put_diagonal).remove(0);
            let in_place = run(&mut side, &sp, Many { s, op_b: N, c_order: None }, &b, 1, put_diagonal).remove(0);
            for (j, x) in rhs.iter().enumerate() {
                let (want, bound) = reference(n, &e, &updated, s, x);
                within(&format!("{what}: column {j}, new diagonal"), &apart[j], &want, &bound);
                same_bits(&format!("{what}: column {j} in place"), &in_place[j], &apart[j]);
            }
        }
    }
}

/// One right-hand side with a stride (B and C row-major, leading dimension 2) runs on the whole
/// GPU (the many-column kernels), while SpSV solves the same column of these chains in one
/// thread block (the analysis' choice, the buffer's third word): the same bits, for thread rows
/// and warp rows (bands of 20 and more), f32 and f64, both ops.
#[test]
fn spsm_strided_column_has_the_one_block_solves_bits() {
    let sides = sides("spsm_strided_column_has_the_one_block_solves_bits");
    let mut r = rng(0x0b1c);
    for (n, band, vt) in
        [(3000, 2, SPBLK_R_64F), (1200, 20, SPBLK_R_64F), (5000, 3, SPBLK_R_32F), (800, 40, SPBLK_R_32F)]
    {
        let (e, v) = chain_or_arrow(&mut r, n, band, false);
        let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, n, n, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, vt);
        let data = encode(&some_values(&mut r, 2 * n, false), vt);
        let b = Dn { rows: n as i64, cols: 1, ld: 2, order: ROW, vt, data };
        let x: Vec<f64> = rhs_columns(&b, N).remove(0);
        for (op, fill) in [(N, L), (T, L), (N, U)] {
            let s = Solve { op, fill, diag: NON_UNIT, vt, alpha: 1.5 };
            let m = Many { s, op_b: N, c_order: None };
            for &kind in &sides {
                let what = format!("n={n} band={band} {s:?} {kind:?}");
                let mut side = Side::new(kind);
                let (many, records) = spblk::trace::capture(|| run(&mut side, &sp, m, &b, 1, |_, _| {}));
                let (alone, buf) = run_keeping_buffer(&mut side, &sp, s, &x, 1, false, no_change);
                same_bits(&format!("{what}: the strided column against SpSV"), &many[0][0], &alone[0]);
                if kind == Kind::Cuda && !harness_on_host() {
                    let words = side.get(buf, 12);
                    assert_eq!(u32::from_le_bytes(words[8..12].try_into().unwrap()), 1, "{what}: SpSV in one block");
                    let grids = super::launched(&records, "spblk_spsv_rows_many_")
                        + super::launched(&records, "spblk_spsv_warp_many_");
                    assert_eq!(
                        (grids, super::launched(&records, "spblk_spsv_once_")),
                        (1, 0),
                        "{what}: SpSM's kernels"
                    );
                }
            }
        }
    }
}

/// One SpSM analysis of one right-hand side, solved with a column-major C (SpSV's kernels, which
/// reset what they use for the next solve themselves: kernels/spsv/grid.cuh), then with B and C
/// row-major of leading dimension 2 (the strided kernels, reset by memsets), and so on in turn:
/// within the bound and the same bits every time, on chains solved in one block, an arrow on
/// the grid after the one-block kernel's choice, and one too large for a block.
#[test]
fn spsm_one_column_alternates_contiguous_and_strided() {
    let sides = sides("spsm_one_column_alternates_contiguous_and_strided");
    let mut r = rng(0xa17e);
    for (n, band, arrow, vt) in
        [(3000, 2, false, SPBLK_R_64F), (20000, 0, true, SPBLK_R_32F), (30000, 0, true, SPBLK_R_64F)]
    {
        let (e, v) = chain_or_arrow(&mut r, n, band, arrow);
        let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, n, n, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, vt);
        let x = some_values(&mut r, n, false);
        let mut spread = vec![0.0; 2 * n];
        (0..n).for_each(|i| spread[2 * i] = x[i]);
        let contiguous = Dn { rows: n as i64, cols: 1, ld: n as i64, order: COL, vt, data: encode(&x, vt) };
        let strided = Dn { rows: n as i64, cols: 1, ld: 2, order: ROW, vt, data: encode(&spread, vt) };
        for (op, fill) in [(N, L), (T, L)] {
            let s = Solve { op, fill, diag: NON_UNIT, vt, alpha: 1.5 };
            let (want, bound) = reference(n, &e, &v, s, &x);
            for &kind in &sides {
                let what = format!("n={n} arrow={arrow} {s:?} {kind:?}");
                let mut side = Side::new(kind);
                let h = side.handle;
                let a = sp.descr(&mut side);
                let (mut fill, mut diag) = (s.fill, s.diag);
                ok(spblkSpMatSetAttribute(a, SPBLK_SPMAT_FILL_MODE, &mut fill as *mut u32 as *mut c_void, 4), "fill");
                ok(spblkSpMatSetAttribute(a, SPBLK_SPMAT_DIAG_TYPE, &mut diag as *mut u32 as *mut c_void, 4), "diag");
                let layouts: Vec<_> = [&contiguous, &strided]
                    .into_iter()
                    .map(|b| {
                        let c = b.nan_like();
                        let (bp, cp) = (side.put(&b.data), side.put(&c.data));
                        (b.descr(bp), c.descr(cp), cp, c)
                    })
                    .collect();
                let alpha = side.scalar(false, &scalar_bytes(s.alpha, vt));
                let (alg, mut d, mut size) = (SPBLK_SPSM_ALG_DEFAULT, std::ptr::null_mut(), 0usize);
                let (db, dc) = (layouts[0].0, layouts[0].1);
                ok(spblkSpSM_createDescr(&mut d), "createDescr");
                ok(spblkSpSM_bufferSize(h, op, N, alpha, a, db, dc, vt, alg, d, &mut size), "bufferSize");
                let buf = side.buffer(size);
                ok(spblkSpSM_analysis(h, op, N, alpha, a, db, dc, vt, alg, d, buf), "analysis");
                let mut first: Option<Vec<f64>> = None;
                for turn in 0..5 {
                    let (db, dc, cp, c) = &layouts[turn % 2];
                    side.overwrite(*cp, c.data.len());
                    ok(spblkSpSM_solve(h, op, N, alpha, a, *db, *dc, vt, alg, d), "solve");
                    side.sync();
                    let y = columns_of(c, &side.get(*cp, c.data.len())).remove(0);
                    match &first {
                        None => within(&what, &y, &want, &bound),
                        Some(y0) => same_bits(&format!("{what}, solve {turn}"), &y, y0),
                    }
                    first.get_or_insert(y);
                }
                ok(spblkSpSM_destroyDescr(d), "destroyDescr");
                for (db, dc, _, _) in layouts {
                    ok(spblkDestroyDnMat(db), "dense");
                    ok(spblkDestroyDnMat(dc), "dense");
                }
                ok(spblkDestroySpMat(a), "A");
            }
        }
    }
}

/// The analysis and the solve captured into a graph and replayed give the plain run's bits.
#[test]
fn spsm_is_capturable() {
    if !gpu("spsm_is_capturable") || harness_on_host() {
        return;
    }
    let mut r = rng(0xca8);
    let n = 4000;
    let (e, v) = square(&mut r, n, 4, 0.05);
    let sp = Sp::new(&mut r, SPBLK_FORMAT_COO, n, n, &e, &v, SPBLK_INDEX_64I, SPBLK_INDEX_BASE_ONE, SPBLK_R_32F);
    let b = Dn::random(&mut r, 3, n, ROW, SPBLK_R_32F, false);
    let s = Solve { op: N, fill: L, diag: UNIT, vt: SPBLK_R_32F, alpha: 0.75 };
    let m = Many { s, op_b: T, c_order: Some(COL) };
    let plain = run(&mut Side::new(Kind::Cuda), &sp, m, &b, 1, |_, _| {}).remove(0);
    let mut side = Side::new(Kind::Cuda);
    let h = side.handle;
    let a = sp.descr(&mut side);
    let mut diag = UNIT;
    ok(spblkSpMatSetAttribute(a, SPBLK_SPMAT_DIAG_TYPE, &mut diag as *mut u32 as *mut c_void, 4), "diag");
    let c = Dn::random(&mut rng(3), n, 3, COL, s.vt, false).nan_like();
    let (bp, cp) = (side.put(&b.data), side.put(&c.data));
    let (db, dc) = (b.descr(bp), c.descr(cp));
    let alpha = 0.75f32;
    let ap = &alpha as *const f32 as *const c_void;
    let mut d = std::ptr::null_mut();
    ok(spblkSpSM_createDescr(&mut d), "createDescr");
    let mut size = 0;
    ok(spblkSpSM_bufferSize(h, N, T, ap, a, db, dc, s.vt, 0, d, &mut size), "bufferSize");
    let buf = side.buffer(size);
    let statuses = capture_and_replay(h, || {
        [
            spblkSpSM_analysis(h, N, T, ap, a, db, dc, s.vt, 0, d, buf),
            spblkSpSM_solve(h, N, T, ap, a, db, dc, s.vt, 0, d),
        ]
    });
    assert_eq!(statuses, [SPBLK_STATUS_SUCCESS; 2], "{}", last_message());
    let got = columns_of(&c, &side.get(cp, c.data.len()));
    for (j, (g, p)) in got.iter().zip(&plain).enumerate() {
        same_bits(&format!("captured, column {j}"), g, p);
    }
    ok(spblkSpSM_destroyDescr(d), "destroyDescr");
    for dn in [db, dc] {
        ok(spblkDestroyDnMat(dn), "dense");
    }
    ok(spblkDestroySpMat(a), "A");
}

/// The protocol's errors, with the argument they name; nothing written on failure.
#[test]
fn spsm_protocol_errors() {
    let mut r = rng(0xe23);
    let (e, v) = square(&mut r, 6, 2, 0.0);
    let all = sides("spsm_protocol_errors");
    for &kind in &all {
        let mut side = Side::new(kind);
        let h = side.handle;
        let f64t = SPBLK_R_64F;
        let sp = Sp::new(&mut r, SPBLK_FORMAT_CSR, 6, 6, &e, &v, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, f64t);
        let a = sp.descr(&mut side);
        let dense = |side: &mut Side, rows: usize, cols: usize, vt| {
            let m = Dn::random(&mut rng(rows as u64), rows, cols, COL, vt, false);
            let p = side.put(&m.data);
            m.descr(p)
        };
        let (b, c) = (dense(&mut side, 6, 2, f64t), dense(&mut side, 6, 2, f64t));
        let (b3, c3) = (dense(&mut side, 6, 3, f64t), dense(&mut side, 6, 3, f64t));
        let (tall, wide) = (dense(&mut side, 7, 2, f64t), dense(&mut side, 6, 4, f64t));
        let c32 = dense(&mut side, 6, 2, SPBLK_R_32F);
        let one = 1.0f64;
        let alpha = &one as *const f64 as *const c_void;
        let mut d = std::ptr::null_mut();
        ok(spblkSpSM_createDescr(&mut d), "createDescr");
        let expect = |status: spblkStatus_t, want: spblkStatus_t, words: &str| {
            let message = last_message();
            assert_eq!(status, want, "{kind:?}: {message}");
            assert!(message.contains(words), "{kind:?}: '{message}' lacks '{words}'");
        };
        let inv = SPBLK_STATUS_INVALID_VALUE;
        let alg = SPBLK_SPSM_ALG_DEFAULT;
        expect(spblkSpSM_solve(h, N, N, alpha, a, b, c, f64t, alg, d), inv, "spsmDescr");
        let p = side.put(&[0; 64]);
        expect(spblkSpSM_updateMatrix(h, d, p, SPBLK_SPSM_UPDATE_GENERAL), inv, "spblkSpSM_analysis");
        let mut size = usize::MAX;
        expect(spblkSpSM_bufferSize(h, N, N, alpha, a, b, c, f64t, 3, d, &mut size), inv, "alg");
        expect(spblkSpSM_bufferSize(h, N, N, alpha, a, tall, c, f64t, alg, d, &mut size), inv, "matB");
        expect(spblkSpSM_bufferSize(h, N, T, alpha, a, b, c, f64t, alg, d, &mut size), inv, "matB");
        expect(spblkSpSM_bufferSize(h, N, N, alpha, a, b, wide, f64t, alg, d, &mut size), inv, "matC");
        expect(spblkSpSM_bufferSize(h, N, N, alpha, a, b, c32, f64t, alg, d, &mut size), inv, "matC");
        let conj = SPBLK_OPERATION_CONJUGATE_TRANSPOSE;
        expect(
            spblkSpSM_bufferSize(h, N, conj, alpha, a, b, c, f64t, alg, d, &mut size),
            SPBLK_STATUS_NOT_SUPPORTED,
            "opB",
        );
        expect(spblkSpSM_bufferSize(h, 9, N, alpha, a, b, c, f64t, alg, d, &mut size), inv, "opA");
        assert_eq!(size, usize::MAX, "bufferSize written on failure");
        ok(spblkSpSM_bufferSize(h, N, N, alpha, a, b, c, f64t, alg, d, &mut size), "bufferSize");
        let buf = side.buffer(size);
        ok(spblkSpSM_analysis(h, N, N, alpha, a, b, c, f64t, alg, d, buf), "analysis");
        expect(spblkSpSM_solve(h, N, N, alpha, a, b3, c3, f64t, alg, d), inv, "right-hand sides");
        expect(spblkSpSM_solve(h, T, N, alpha, a, b, c, f64t, alg, d), inv, "analysed for");
        expect(spblkSpSM_updateMatrix(h, d, p, 2), inv, "updatePart");
        ok(spblkSpSM_solve(h, N, N, alpha, a, b, c, f64t, alg, d), "solve");
        // An SpSV descriptor is not an SpSM one (a descriptor of another kind: NOT_INITIALIZED).
        let mut sv = std::ptr::null_mut();
        ok(spblk::capi::spsv::spblkSpSV_createDescr(&mut sv), "SpSV createDescr");
        let status = spblkSpSM_solve(h, N, N, alpha, a, b, c, f64t, alg, sv as spblkSpSMDescr_t);
        expect(status, SPBLK_STATUS_NOT_INITIALIZED, "not a SpSM descriptor");
        ok(spblk::capi::spsv::spblkSpSV_destroyDescr(sv), "SpSV destroyDescr");
        for m in [b, c, b3, c3, tall, wide, c32] {
            ok(spblkDestroyDnMat(m), "dense");
        }
        ok(spblkDestroySpMat(a), "A");
        ok(spblkSpSM_destroyDescr(d), "destroyDescr");
        ok(spblkSpSM_destroyDescr(std::ptr::null_mut()), "destroy NULL");
    }
}
