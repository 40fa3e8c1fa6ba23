//! The ELL formats on the host backend and (with a GPU) the CUDA backend, against references
//! written here: SpMM on Blocked-ELL descriptors (block sizes 1 to 32, padding slots whose
//! values are garbage, every precision, both index widths and bases, B and C in either order,
//! op(B) = B or Bᵀ; on the GPU f16/bf16/f32 with blocks of 16 and 32 rows must run on tensor
//! cores),
//! SpMV on Sliced-ELL descriptors (op(A) = A and Aᵀ, slice sizes 1 to 32, padding inside and
//! after rows; with and without the preprocess's plan), and DenseToSparse into Blocked-ELL (every element width, byte for byte). Values
//! are multiples of 1/4, so every summation order gives the same bits: results are compared
//! exactly. Then what the formats refuse.

use super::dense_sparse::element;
use super::*;
use spblk::capi::dense::*;
use spblk::capi::dense_sparse::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::sp_mat_blocked::*;

const N: spblkOperation_t = SPBLK_OPERATION_NON_TRANSPOSE;
const T: spblkOperation_t = SPBLK_OPERATION_TRANSPOSE;

/// A random Blocked-ELL matrix: `mb` block rows of `slots` slots, each a distinct block column
/// or padding (-1); values row-major `mb * b` x `slots * b`, garbage under padding.
struct Bell {
    columns: Vec<i64>,
    values: Vec<f64>,
}

fn random_bell(r: &mut StdRng, mb: usize, kb: usize, b: usize, slots: usize) -> Bell {
    let mut columns = Vec::with_capacity(mb * slots);
    for _ in 0..mb {
        let mut cols: Vec<i64> = (0..kb as i64).collect();
        cols.shuffle(r);
        cols.truncate(slots);
        cols.resize(slots, -1);
        for c in cols.iter_mut() {
            if r.gen_bool(0.2) {
                *c = -1;
            }
        }
        cols.shuffle(r);
        columns.extend(cols);
    }
    Bell { columns, values: exact_values(r, mb * b * slots * b) }
}

/// (block rows, block columns, block size, slots, n).
const BELL_SHAPES: [(usize, usize, usize, usize, usize); 7] = [
    (1, 1, 1, 1, 1),
    (2, 3, 2, 2, 3),
    (20, 15, 3, 4, 5),
    (6, 8, 16, 3, 17),
    (5, 6, 32, 2, 40),
    (3, 4, 16, 4, 64),
    (30, 40, 4, 6, 9),
];

/// (input, output) types; the compute type follows (f64 for f64, else f32).
const TYPES: [(spblkDataType_t, spblkDataType_t); 6] = [
    (SPBLK_R_32F, SPBLK_R_32F),
    (SPBLK_R_64F, SPBLK_R_64F),
    (SPBLK_R_16F, SPBLK_R_32F),
    (SPBLK_R_16F, SPBLK_R_16F),
    (SPBLK_R_16BF, SPBLK_R_32F),
    (SPBLK_R_16BF, SPBLK_R_16BF),
];

fn compute_of(t: spblkDataType_t) -> spblkDataType_t {
    if t == SPBLK_R_64F {
        SPBLK_R_64F
    } else {
        SPBLK_R_32F
    }
}

/// A dense operand: `rows` x `cols` stored in `order` with a padded leading dimension.
struct Dense {
    rows: usize,
    cols: usize,
    ld: usize,
    order: spblkOrder_t,
    values: Vec<f64>,
}

impl Dense {
    fn new(r: &mut StdRng, rows: usize, cols: usize, row_major: bool, pad: usize) -> Dense {
        let (order, ld, lines) =
            if row_major { (SPBLK_ORDER_ROW, cols + pad, rows) } else { (SPBLK_ORDER_COL, rows + pad, cols) };
        Dense { rows, cols, ld, order, values: exact_values(r, ld.max(1) * lines) }
    }
    fn pos(&self, i: usize, j: usize) -> usize {
        if self.order == SPBLK_ORDER_ROW {
            i * self.ld + j
        } else {
            i + j * self.ld
        }
    }
    fn descr(&self, p: *mut c_void, t: spblkDataType_t) -> spblkDnMatDescr_t {
        let mut d = std::ptr::null_mut();
        ok(
            spblkCreateDnMat(&mut d, self.rows as i64, self.cols as i64, self.ld.max(1) as i64, p, t, self.order),
            "DnMat",
        );
        d
    }
}

#[test]
fn spmm_on_blocked_ell_descriptors() {
    for kind in sides("spmm_on_blocked_ell_descriptors") {
        let mut r = rng(131);
        for (s, &(mb, kb, b, slots, n)) in BELL_SHAPES.iter().enumerate() {
            for (t, &(tin, tout)) in TYPES.iter().enumerate() {
                let v = s + t;
                let compute = compute_of(tin);
                let ity = if v % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
                let base = (v / 2 % 2) as i64;
                let (b_row, b_trans, c_row) = (v % 3 == 0, v % 4 == 1, v % 5 < 2);
                let alg = if v % 2 == 0 { SPBLK_SPMM_ALG_DEFAULT } else { SPBLK_SPMM_BLOCKED_ELL_ALG1 };
                let what = format!(
                    "{kind:?} shape {s} ({mb} x {kb} blocks of {b}, {slots} slots, n {n}) {tin}->{tout} idx {ity} \
                     base {base} B row {b_row} Bt {b_trans} C row {c_row} alg {alg}"
                );
                let a = random_bell(&mut r, mb, kb, b, slots);
                let (m, k, ell_cols) = (mb * b, kb * b, slots * b);
                let bd = if b_trans { Dense::new(&mut r, n, k, b_row, 1) } else { Dense::new(&mut r, k, n, b_row, 2) };
                let b_at = |i: usize, j: usize| {
                    let p = if b_trans { bd.pos(j, i) } else { bd.pos(i, j) };
                    as_type(bd.values[p], tin)
                };
                let cd = Dense::new(&mut r, m, n, c_row, 3);
                let (alpha, beta) = (1.25, if v % 3 == 1 { 0.0 } else { -0.5 });
                let mut c0 = cd.values.clone();
                if beta == 0.0 {
                    c0.iter_mut().for_each(|x| *x = f64::NAN); // never read
                }
                let mut want: Vec<f64> = c0.iter().map(|&x| as_type(x, tout)).collect();
                for col in 0..n {
                    for i in 0..m {
                        let mut acc = 0.0;
                        for (sl, &bc) in a.columns[i / b * slots..][..slots].iter().enumerate() {
                            if bc < 0 {
                                continue;
                            }
                            for j in 0..b {
                                acc +=
                                    as_type(a.values[i * ell_cols + sl * b + j], tin) * b_at(bc as usize * b + j, col);
                            }
                        }
                        let old = if beta == 0.0 { 0.0 } else { beta * as_type(c0[cd.pos(i, col)], tout) };
                        want[cd.pos(i, col)] = as_type(alpha * acc + old, tout);
                    }
                }
                let mut side = Side::new(kind);
                let h = side.handle;
                let shifted: Vec<i64> = a.columns.iter().map(|&c| if c < 0 { c } else { c + base }).collect();
                let (cp, vp) = (side.put(&idx_bytes(&shifted, ity)), side.put(&encode(&a.values, tin)));
                let mut ma = std::ptr::null_mut();
                let (mi, ki, bi, ei) = (m as i64, k as i64, b as i64, ell_cols as i64);
                ok(spblkCreateBlockedEll(&mut ma, mi, ki, bi, ei, cp, vp, ity, base as u32, tin), &what);
                let db = bd.descr(side.put(&encode(&bd.values, tin)), tin);
                let cbuf = side.put(&encode(&c0, tout));
                let dc = cd.descr(cbuf, tout);
                let sa = side.scalar(false, &encode(&[alpha], compute));
                let sb = side.scalar(false, &encode(&[beta], compute));
                let ob = if b_trans { T } else { N };
                let mut size = 0usize;
                ok(spblkSpMM_bufferSize(h, N, ob, sa, ma, db, sb, dc, compute, alg, &mut size), &what);
                let buf = side.buffer(size);
                ok(spblkSpMM_preprocess(h, N, ob, sa, ma, db, sb, dc, compute, alg, buf), &what);
                let (st, records) =
                    spblk::trace::capture(|| spblkSpMM(h, N, ob, sa, ma, db, sb, dc, compute, alg, buf));
                ok(st, &what);
                side.sync();
                if kind == Kind::Cuda {
                    let tensor_cores = matches!(tin, SPBLK_R_16F | SPBLK_R_16BF | SPBLK_R_32F) && b % 16 == 0;
                    let mma = super::launched(&records, "spblk_blocked_ell_mma_");
                    let rows = super::launched(&records, "spblk_blocked_ell_rows_");
                    assert_eq!(
                        (mma > 0, rows > 0),
                        (tensor_cores, !tensor_cores),
                        "{what}: kernels {mma} mma, {rows} rows"
                    );
                }
                let got = decode(&side.get(cbuf, c0.len() * vsize(tout)), tout);
                for (p, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert!(g.to_bits() == w.to_bits() || g.is_nan() && w.is_nan(), "{what}: C[{p}] = {g}, want {w}");
                }
                // What it refuses: op(A) = Aᵀ, a CSR algorithm, SpMV.
                let st = spblkSpMM(h, T, ob, sa, ma, db, sb, dc, compute, alg, buf);
                assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{what}: op(A) = T");
                let st = spblkSpMM(h, N, ob, sa, ma, db, sb, dc, compute, SPBLK_SPMM_CSR_ALG1, buf);
                assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{what}: a CSR algorithm");
                spblkDestroyDnMat(db);
                spblkDestroyDnMat(dc);
                spblkDestroySpMat(ma);
            }
        }
    }
}

/// A random Sliced-ELL matrix of `m` rows, `k` columns, rows of at most `per_row` distinct
/// columns, slices of `ss` rows each padded to its longest row plus `extra` slots.
struct Sell {
    offsets: Vec<i64>,
    columns: Vec<i64>,
    values: Vec<f64>,
    nnz: usize,
    /// (row, column, slot) of every entry.
    entries: Vec<(usize, usize, usize)>,
}

fn random_sell(r: &mut StdRng, m: usize, k: usize, per_row: usize, ss: usize, extra: usize) -> Sell {
    let rows: Vec<Vec<usize>> = (0..m)
        .map(|_| {
            let mut cols: Vec<usize> = (0..k).collect();
            cols.shuffle(r);
            cols.truncate(r.gen_range(0..=per_row.min(k)));
            cols
        })
        .collect();
    let (mut offsets, mut columns, mut entries) = (vec![0i64], Vec::new(), Vec::new());
    for first in (0..m).step_by(ss) {
        let width = rows[first..(first + ss).min(m)].iter().map(Vec::len).max().unwrap_or(0) + extra;
        let start = columns.len();
        columns.resize(start + width * ss, -1);
        for local in 0..ss.min(m - first) {
            // Padding may sit between a row's entries as well as after them.
            let mut slots: Vec<usize> = (0..width).collect();
            slots.shuffle(r);
            let mut slots: Vec<usize> = slots[..rows[first + local].len()].to_vec();
            slots.sort();
            for (&c, &j) in rows[first + local].iter().zip(&slots) {
                let slot = start + j * ss + local;
                columns[slot] = c as i64;
                entries.push((first + local, c, slot));
            }
        }
        offsets.push(columns.len() as i64);
    }
    let values = exact_values(r, columns.len());
    Sell { offsets, nnz: entries.len(), columns, values, entries }
}

#[test]
fn spmv_on_sliced_ell_descriptors() {
    // (rows, columns, longest row, slice size, extra padding per slice)
    let shapes = [(1, 1, 1, 1, 0), (5, 7, 3, 2, 1), (40, 30, 6, 3, 0), (300, 200, 12, 32, 2), (77, 500, 40, 8, 1)];
    for kind in sides("spmv_on_sliced_ell_descriptors") {
        let mut r = rng(137);
        for (s, &(m, k, per_row, ss, extra)) in shapes.iter().enumerate() {
            for (t, &(tin, tout)) in TYPES.iter().enumerate() {
                for op in [N, T] {
                    let v = s + t;
                    let compute = compute_of(tin);
                    let ity = if v % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
                    let base = (v / 2 % 2) as i64;
                    let alg = if v % 3 == 0 { SPBLK_SPMV_ALG_DEFAULT } else { SPBLK_SPMV_SELL_ALG1 };
                    let what = format!(
                        "{kind:?} shape {s} ({m} x {k}, slices of {ss}) {tin}->{tout} idx {ity} base {base} op {op} alg {alg}"
                    );
                    let a = random_sell(&mut r, m, k, per_row, ss, extra);
                    let (xn, yn) = if op == N { (k, m) } else { (m, k) };
                    let x = exact_values(&mut r, xn);
                    let y0 = exact_values(&mut r, yn);
                    let (alpha, beta) = (0.75, if v % 2 == 0 { 0.0 } else { 1.5 });
                    let mut acc = vec![0.0; yn];
                    for &(i, j, slot) in &a.entries {
                        let (out, inp) = if op == N { (i, j) } else { (j, i) };
                        acc[out] += as_type(a.values[slot], tin) * as_type(x[inp], tin);
                    }
                    let want: Vec<f64> = (0..yn)
                        .map(|i| {
                            as_type(alpha * acc[i] + if beta == 0.0 { 0.0 } else { beta * as_type(y0[i], tout) }, tout)
                        })
                        .collect();
                    let mut side = Side::new(kind);
                    let h = side.handle;
                    let shifted: Vec<i64> = a.columns.iter().map(|&c| if c < 0 { c } else { c + base }).collect();
                    let offsets: Vec<i64> = a.offsets.iter().map(|&o| o + base).collect();
                    let (op_, cp) = (side.put(&idx_bytes(&offsets, ity)), side.put(&idx_bytes(&shifted, ity)));
                    let vp = side.put(&encode(&a.values, tin));
                    let mut ma = std::ptr::null_mut();
                    let (mi, ki, nz, slots, ssi) =
                        (m as i64, k as i64, a.nnz as i64, a.columns.len() as i64, ss as i64);
                    let st =
                        spblkCreateSlicedEll(&mut ma, mi, ki, nz, slots, ssi, op_, cp, vp, ity, ity, base as u32, tin);
                    ok(st, &what);
                    let xp = side.put(&encode(&x, tin));
                    // y once without a plan, once after the preprocess (op T: the plan of Aᵀ).
                    let (yp, yp2) = (side.put(&encode(&y0, tout)), side.put(&encode(&y0, tout)));
                    let (mut vx, mut vy, mut vy2) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
                    ok(spblkCreateDnVec(&mut vx, xn as i64, xp, tin), "x");
                    ok(spblkCreateDnVec(&mut vy, yn as i64, yp, tout), "y");
                    ok(spblkCreateDnVec(&mut vy2, yn as i64, yp2, tout), "y");
                    let sa = side.scalar(false, &encode(&[alpha], compute));
                    let sb = side.scalar(false, &encode(&[beta], compute));
                    let mut size = 0usize;
                    ok(spblkSpMV_bufferSize(h, op, sa, ma, vx, sb, vy, compute, alg, &mut size), &what);
                    let buf = side.buffer(size);
                    let (st, unplanned) =
                        spblk::trace::capture(|| spblkSpMV(h, op, sa, ma, vx, sb, vy, compute, alg, buf));
                    ok(st, &what);
                    ok(spblkSpMV_preprocess(h, op, sa, ma, vx, sb, vy2, compute, alg, buf), &what);
                    let (st, planned) =
                        spblk::trace::capture(|| spblkSpMV(h, op, sa, ma, vx, sb, vy2, compute, alg, buf));
                    ok(st, &what);
                    if kind == Kind::Cuda {
                        // op N reads the slots; op T converts per call, or gathers through the plan.
                        let count = |r: &[spblk::trace::Record], k| super::launched(r, k);
                        let (n_before, n_after) =
                            (count(&unplanned, "spblk_sell_spmv_"), count(&planned, "spblk_sell_spmv_"));
                        let convert = (count(&unplanned, "spblk_sell_to_csr_"), count(&planned, "spblk_sell_to_csr_"));
                        let gather = count(&planned, "spblk_convert_values");
                        if op == N {
                            assert_eq!((n_before, n_after, convert), (1, 1, (0, 0)), "{what}: op N kernels");
                        } else {
                            let converts = a.nnz > 0;
                            assert_eq!((n_before, n_after), (0, 0), "{what}: op T ran the op N kernel");
                            assert_eq!(convert, (converts as u32, 0), "{what}: op T conversions (no plan, plan)");
                            assert_eq!(
                                gather, converts as u32,
                                "{what}: op T after the preprocess gathers through the plan"
                            );
                        }
                    }
                    side.sync();
                    for (run, p) in [("without a plan", yp), ("after the preprocess", yp2)] {
                        let got = decode(&side.get(p, yn * vsize(tout)), tout);
                        for (p, (g, w)) in got.iter().zip(&want).enumerate() {
                            assert!(g.to_bits() == w.to_bits(), "{what} {run}: y[{p}] = {g}, want {w}");
                        }
                    }
                    let st = spblkSpMV(h, op, sa, ma, vx, sb, vy, compute, SPBLK_SPMV_CSR_ALG2, buf);
                    assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{what}: a CSR algorithm on Sliced-ELL");
                    spblkDestroyDnVec(vx);
                    spblkDestroyDnVec(vy);
                    spblkDestroyDnVec(vy2);
                    spblkDestroySpMat(ma);
                }
            }
        }
    }
}

/// DenseToSparse into Blocked-ELL (the block columns set by the caller): each stored value is
/// A's element under its block, padding slots hold zero, nnz stays rows * ellCols; every element
/// width, both index widths and bases, A row- or column-major with a padded leading dimension.
/// SparseToDense from Blocked-ELL is refused, as in cuSPARSE.
#[test]
fn dense_to_blocked_ell_fills_the_given_blocks() {
    let types = [SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F, SPBLK_R_16BF, SPBLK_R_8I, SPBLK_C_64F];
    for kind in sides("dense_to_blocked_ell_fills_the_given_blocks") {
        let mut r = rng(139);
        for (case, &(mb, kb, b, slots)) in [(1, 1, 1, 1), (3, 4, 2, 2), (10, 7, 4, 3), (4, 9, 16, 5)].iter().enumerate()
        {
            for (t, &vt) in types.iter().enumerate() {
                let v = case + t;
                let (ity, base, row_major) =
                    (if v % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I }, (v / 2 % 2) as i64, v % 3 != 0);
                let what = format!("{kind:?} case {case} type {vt} idx {ity} base {base} row-major A {row_major}");
                let e = vsize(vt);
                let (m, k, ell_cols) = (mb * b, kb * b, slots * b);
                let a = random_bell(&mut r, mb, kb, b, slots);
                let ld = if row_major { k + 1 } else { m + 2 };
                let dense: Vec<Vec<u8>> =
                    (0..ld * if row_major { m } else { k }).map(|_| element(&mut r, vt, 0.2)).collect();
                let pos = |i: usize, j: usize| if row_major { i * ld + j } else { i + j * ld };
                let mut want = vec![0u8; m * ell_cols * e];
                for i in 0..m {
                    for (sl, &bc) in a.columns[i / b * slots..][..slots].iter().enumerate() {
                        for j in 0..b {
                            if bc >= 0 {
                                let at = (i * ell_cols + sl * b + j) * e;
                                want[at..at + e].copy_from_slice(&dense[pos(i, bc as usize * b + j)]);
                            }
                        }
                    }
                }
                let mut side = Side::new(kind);
                let h = side.handle;
                let ap = side.put(&dense.concat());
                let mut da = std::ptr::null_mut();
                let order = if row_major { SPBLK_ORDER_ROW } else { SPBLK_ORDER_COL };
                ok(spblkCreateDnMat(&mut da, m as i64, k as i64, ld as i64, ap, vt, order), &what);
                let shifted: Vec<i64> = a.columns.iter().map(|&c| if c < 0 { c } else { c + base }).collect();
                let cp = side.put(&idx_bytes(&shifted, ity));
                let bp = side.put(&vec![0x5a; m * ell_cols * e]);
                let mut mb_ = std::ptr::null_mut();
                let (mi, ki, bi, ei) = (m as i64, k as i64, b as i64, ell_cols as i64);
                ok(spblkCreateBlockedEll(&mut mb_, mi, ki, bi, ei, cp, bp, ity, base as u32, vt), &what);
                let alg = SPBLK_DENSETOSPARSE_ALG_DEFAULT;
                let mut size = 0usize;
                ok(spblkDenseToSparse_bufferSize(h, da, mb_, alg, &mut size), &what);
                let buf = side.buffer(size);
                ok(spblkDenseToSparse_analysis(h, da, mb_, alg, buf), &what);
                ok(spblkDenseToSparse_convert(h, da, mb_, alg, buf), &what);
                side.sync();
                assert!(side.get(bp, want.len()) == want, "{what}: values differ");
                let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
                ok(spblkSpMatGetSize(mb_, &mut rows, &mut cols, &mut nnz), &what);
                assert_eq!((rows, cols, nnz), (mi, ki, mi * ei), "{what}: size after the conversion");
                let st = spblkSparseToDense(h, mb_, da, SPBLK_SPARSETODENSE_ALG_DEFAULT, buf);
                assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{what}: SparseToDense from Blocked-ELL");
                spblkDestroyDnMat(da);
                spblkDestroySpMat(mb_);
            }
        }
    }
}

/// The ELL operations need no answer on the host, so they can be captured into a CUDA graph
/// (issue 13): SpMM on Blocked-ELL (f16 blocks of 16 on tensor cores; f32 blocks of 3), SpMV on
/// Sliced-ELL with op N and op T (its CSR conversion in the workspace), and DenseToSparse's
/// analysis and convert into Blocked-ELL. Each must succeed under capture, and the replayed
/// graph must write what the same calls write on a plain stream, bit for bit.
#[test]
fn ell_operations_are_capturable() {
    if !gpu("ell_operations_are_capturable") || harness_on_host() {
        return;
    }
    struct Run {
        side: Side,
        descrs: Vec<spblkSpMatDescr_t>,
        dense: Vec<spblkDnMatDescr_t>,
        vecs: Vec<spblkDnVecDescr_t>,
        outputs: Vec<(*mut c_void, usize)>,
        buffer: *mut c_void,
        scalars: (*const c_void, *const c_void),
    }
    // Everything is built from the same seed, so the plain and captured runs see equal inputs.
    let build = || {
        let mut r = rng(149);
        let mut side = Side::new(Kind::Cuda);
        let (mut descrs, mut dense, mut vecs, mut outputs) = (vec![], vec![], vec![], vec![]);
        for (t, b) in [(SPBLK_R_16F, 16usize), (SPBLK_R_32F, 3)] {
            let (mb, kb, slots, n) = (6, 7, 3, 24);
            let a = random_bell(&mut r, mb, kb, b, slots);
            let (cp, vp) = (side.put(&idx_bytes(&a.columns, SPBLK_INDEX_32I)), side.put(&encode(&a.values, t)));
            let mut d = std::ptr::null_mut();
            let (m, k) = ((mb * b) as i64, (kb * b) as i64);
            ok(spblkCreateBlockedEll(&mut d, m, k, b as i64, (slots * b) as i64, cp, vp, SPBLK_INDEX_32I, 0, t), "ell");
            descrs.push(d);
            let bd = Dense::new(&mut r, k as usize, n, false, 1);
            dense.push(bd.descr(side.put(&encode(&bd.values, t)), t));
            let cd = Dense::new(&mut r, m as usize, n, true, 0);
            let cp = side.put(&encode(&cd.values, SPBLK_R_32F));
            dense.push(cd.descr(cp, SPBLK_R_32F));
            outputs.push((cp, cd.values.len() * 4));
        }
        let a = random_sell(&mut r, 90, 70, 5, 8, 1);
        let (op_, cp) =
            (side.put(&idx_bytes(&a.offsets, SPBLK_INDEX_32I)), side.put(&idx_bytes(&a.columns, SPBLK_INDEX_32I)));
        let vp = side.put(&encode(&a.values, SPBLK_R_32F));
        let mut d = std::ptr::null_mut();
        let (nz, slots) = (a.nnz as i64, a.columns.len() as i64);
        let st = spblkCreateSlicedEll(
            &mut d,
            90,
            70,
            nz,
            slots,
            8,
            op_,
            cp,
            vp,
            SPBLK_INDEX_32I,
            SPBLK_INDEX_32I,
            0,
            SPBLK_R_32F,
        );
        ok(st, "sell");
        descrs.push(d);
        for len in [70usize, 90, 90, 70] {
            let p = side.put(&encode(&exact_values(&mut r, len), SPBLK_R_32F));
            let mut v = std::ptr::null_mut();
            ok(spblkCreateDnVec(&mut v, len as i64, p, SPBLK_R_32F), "vec");
            vecs.push(v);
            outputs.push((p, len * 4));
        }
        // DenseToSparse: a 48 x 64 f32 matrix into Blocked-ELL with blocks of 16.
        let a = random_bell(&mut r, 3, 4, 16, 2);
        let dp = side.put(&encode(&exact_values(&mut r, 48 * 64), SPBLK_R_32F));
        let mut dd = std::ptr::null_mut();
        ok(spblkCreateDnMat(&mut dd, 48, 64, 64, dp, SPBLK_R_32F, SPBLK_ORDER_ROW), "dense");
        dense.push(dd);
        let (cp, vp) = (side.put(&idx_bytes(&a.columns, SPBLK_INDEX_32I)), side.put(&vec![0x5a; 48 * 32 * 4]));
        let mut d = std::ptr::null_mut();
        ok(spblkCreateBlockedEll(&mut d, 48, 64, 16, 32, cp, vp, SPBLK_INDEX_32I, 0, SPBLK_R_32F), "target");
        descrs.push(d);
        outputs.push((vp, 48 * 32 * 4));
        let buffer = side.buffer(1 << 20);
        let scalars =
            (side.scalar(false, &encode(&[1.25], SPBLK_R_32F)), side.scalar(false, &encode(&[-0.5], SPBLK_R_32F)));
        side.sync();
        Run { side, descrs, dense, vecs, outputs, buffer, scalars }
    };
    let calls = |x: &Run| -> Vec<(&'static str, u32, String)> {
        let (h, (sa, sb), buf) = (x.side.handle, x.scalars, x.buffer);
        let (d, dn, v) = (&x.descrs, &x.dense, &x.vecs);
        let f32t = SPBLK_R_32F;
        let mut size = 0usize;
        for (i, op) in [(0, N), (2, T)] {
            ok(spblkSpMV_bufferSize(h, op, sa, d[2], v[i], sb, v[i + 1], f32t, 0, &mut size), "SpMV bufferSize");
            assert!(size <= 1 << 20, "SpMV on Sliced-ELL wants {size} bytes");
        }
        let st = |name, s| (name, s, last_message());
        vec![
            st("SpMM Blocked-ELL f16", spblkSpMM(h, N, N, sa, d[0], dn[0], sb, dn[1], f32t, 0, buf)),
            st("SpMM Blocked-ELL f32", spblkSpMM(h, N, N, sa, d[1], dn[2], sb, dn[3], f32t, 0, buf)),
            st("SpMV Sliced-ELL N", spblkSpMV(h, N, sa, d[2], v[0], sb, v[1], f32t, 0, buf)),
            st("SpMV Sliced-ELL T", spblkSpMV(h, T, sa, d[2], v[2], sb, v[3], f32t, 0, buf)),
            st("DenseToSparse_analysis", spblkDenseToSparse_analysis(h, dn[4], d[3], 0, buf)),
            st("DenseToSparse_convert", spblkDenseToSparse_convert(h, dn[4], d[3], 0, buf)),
        ]
    };
    let read = |x: &Run| -> Vec<Vec<u8>> {
        x.side.sync();
        x.outputs.iter().map(|&(p, len)| x.side.get(p, len)).collect()
    };
    let plain = build();
    for (name, status, message) in calls(&plain) {
        assert_eq!(status, SPBLK_STATUS_SUCCESS, "{name} on a plain stream: {message}");
    }
    let want = read(&plain);
    let captured = build();
    for (name, status, message) in capture_and_replay(captured.side.handle, || calls(&captured)) {
        assert_eq!(status, SPBLK_STATUS_SUCCESS, "{name} under capture: {message}");
    }
    let got = read(&captured);
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert!(w == g, "output {i}: the replayed graph wrote other bytes than the plain run");
    }
    for x in [&plain, &captured] {
        for &d in &x.descrs {
            spblkDestroySpMat(d);
        }
        for &d in &x.dense {
            spblkDestroyDnMat(d);
        }
        for &v in &x.vecs {
            spblkDestroyDnVec(v);
        }
    }
}
