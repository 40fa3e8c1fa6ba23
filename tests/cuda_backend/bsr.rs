//! The legacy BSR products `spblk{S,D}bsrmv` and `spblk{S,D}bsrmm` on the host backend and
//! (with a GPU) the CUDA backend, against a reference written here: block sizes 1 to 16, blocks
//! stored by row and by column, op(B) = B and Bᵀ with padded leading dimensions, both index
//! bases and pointer modes, beta = 0 over a C of NaN, f32 and f64. Values must be the
//! reference's bit for bit (each product and addition rounded, in storage order).

use super::*;
use spblk::capi::bsr::*;
use spblk::capi::mat_descr::*;

/// A random BSR matrix: per block row, distinct block columns in random order.
struct Bsr {
    mb: usize,
    kb: usize,
    b: usize,
    offsets: Vec<i64>,
    columns: Vec<i64>,
    values: Vec<f64>,
}

fn random_bsr(r: &mut StdRng, mb: usize, kb: usize, b: usize, per_row: usize, exact: bool) -> Bsr {
    let (mut offsets, mut columns) = (vec![0i64], Vec::new());
    for _ in 0..mb {
        let mut cols: Vec<i64> = (0..kb as i64).collect();
        cols.shuffle(r);
        let len = if kb == 0 { 0 } else { r.gen_range(0..=per_row.min(kb)) };
        columns.extend_from_slice(&cols[..len]);
        offsets.push(columns.len() as i64);
    }
    let values = some_values(r, columns.len() * b * b, exact);
    Bsr { mb, kb, b, offsets, columns, values }
}

/// `C = alpha A op(B) + beta C` in the value type's arithmetic, as both backends compute it.
#[allow(clippy::too_many_arguments)]
fn reference(
    a: &Bsr,
    by_column: bool,
    dense_b: &[f64],
    (ldb, b_trans): (usize, bool),
    c: &[f64],
    ldc: usize,
    n: usize,
    (alpha, beta): (f64, f64),
    f64_values: bool,
) -> Vec<f64> {
    let round = |x: f64| if f64_values { x } else { x as f32 as f64 };
    let b = a.b;
    let mut out = c.to_vec();
    for col in 0..n {
        for i in 0..a.mb * b {
            let (r, ii) = (i / b, i % b);
            let mut acc = 0.0;
            for k in a.offsets[r] as usize..a.offsets[r + 1] as usize {
                let bc = a.columns[k] as usize;
                for j in 0..b {
                    let v = a.values[k * b * b + if by_column { j * b + ii } else { ii * b + j }];
                    let row_b = bc * b + j;
                    let x = if b_trans { dense_b[col + row_b * ldb] } else { dense_b[row_b + col * ldb] };
                    acc = round(acc + round(round(v) * round(x)));
                }
            }
            let mut v = round(round(alpha) * acc);
            if beta != 0.0 {
                v = round(v + round(round(beta) * round(c[i + col * ldc])));
            }
            out[i + col * ldc] = v;
        }
    }
    out
}

/// (mb, kb, block, blocks per block row at most, n).
const SHAPES: [(usize, usize, usize, usize, usize); 7] = [
    (0, 0, 1, 0, 1),
    (1, 1, 1, 1, 1),
    (3, 4, 2, 0, 3),
    (20, 15, 3, 4, 5),
    (40, 40, 5, 6, 1),
    (300, 500, 4, 12, 9),
    (30, 20, 16, 5, 17),
];

#[test]
fn bsrmv_and_bsrmm_match_the_reference() {
    for kind in sides("bsrmv_and_bsrmm_match_the_reference") {
        let mut r = rng(83);
        for (s, &(mb, kb, b, per_row, n)) in SHAPES.iter().enumerate() {
            for variant in 0..4 {
                let exact = s % 2 == 0;
                let a = random_bsr(&mut r, mb, kb, b, per_row, exact);
                let case = Case {
                    f64_values: variant % 2 == 1,
                    by_column: (s + variant) % 2 == 1,
                    device_mode: variant >= 2,
                    base: ((s + variant / 2) % 2) as i64,
                    b_trans: variant == 1 || variant == 2,
                    beta_zero: variant == 3,
                    // bsrmv for n = 1 on the first two variants.
                    mv: n == 1 && variant < 2,
                };
                let alpha = some_scalar(&mut r, -2.0, 2.0, exact);
                let beta = if case.beta_zero { 0.0 } else { some_scalar(&mut r, -2.0, 2.0, exact) };
                run_case(kind, &a, n, &case, (alpha, beta), &mut r, &format!("{kind:?} shape {s} variant {variant}"));
            }
        }
    }
}

struct Case {
    f64_values: bool,
    by_column: bool,
    device_mode: bool,
    base: i64,
    b_trans: bool,
    beta_zero: bool,
    mv: bool,
}

fn run_case(kind: Kind, a: &Bsr, n: usize, case: &Case, (alpha, beta): (f64, f64), r: &mut StdRng, label: &str) {
    let t = if case.f64_values { SPBLK_R_64F } else { SPBLK_R_32F };
    let (m, k) = (a.mb * a.b, a.kb * a.b);
    let b_trans = case.b_trans && !case.mv;
    let (b_rows, b_cols) = if b_trans { (n, k) } else { (k, n) };
    let (ldb, ldc) = if case.mv { (k.max(1), m.max(1)) } else { (b_rows + 3, m + 2) };
    let dense_b = values(r, ldb * b_cols);
    let c0: Vec<f64> = if case.beta_zero { vec![f64::NAN; ldc * n] } else { values(r, ldc * n) };
    let what = format!(
        "{label} ({} x {} blocks of {}, nnzb {}, n {n}, f64 {}, by column {}, device mode {}, base {}, Bᵀ {b_trans}, mv {})",
        a.mb,
        a.kb,
        a.b,
        a.columns.len(),
        case.f64_values,
        case.by_column,
        case.device_mode,
        case.base,
        case.mv
    );
    let mut side = Side::new(kind);
    side.set_pointer_mode(case.device_mode);
    let h = side.handle;
    let mut d: spblkMatDescr_t = std::ptr::null_mut();
    ok(spblkCreateMatDescr(&mut d), "spblkCreateMatDescr");
    ok(spblkSetMatIndexBase(d, case.base as u32), "spblkSetMatIndexBase");
    let shift = |v: &[i64]| idx_bytes(&v.iter().map(|x| x + case.base).collect::<Vec<_>>(), SPBLK_INDEX_32I);
    let op = side.put(&shift(&a.offsets)) as *const i32;
    let cp = side.put(&shift(&a.columns)) as *const i32;
    let vp = side.put(&encode(&a.values, t));
    let bp = side.put(&encode(&dense_b, t));
    let c = side.put(&encode(&c0, t));
    let sa = side.scalar(case.device_mode, &encode(&[alpha], t));
    let sb = side.scalar(case.device_mode, &encode(&[beta], t));
    let dir = if case.by_column { SPBLK_DIRECTION_COLUMN } else { SPBLK_DIRECTION_ROW };
    let nn = SPBLK_OPERATION_NON_TRANSPOSE;
    let tb = if b_trans { SPBLK_OPERATION_TRANSPOSE } else { nn };
    let (mb, kb, nnzb, bs) = (a.mb as i32, a.kb as i32, a.columns.len() as i32, a.b as i32);
    let (ni, lb, lc) = (n as i32, ldb as i32, ldc as i32);
    let st = match (case.mv, case.f64_values) {
        (true, false) => {
            spblkSbsrmv(h, dir, nn, mb, kb, nnzb, sa.cast(), d, vp.cast(), op, cp, bs, bp.cast(), sb.cast(), c.cast())
        }
        (true, true) => {
            spblkDbsrmv(h, dir, nn, mb, kb, nnzb, sa.cast(), d, vp.cast(), op, cp, bs, bp.cast(), sb.cast(), c.cast())
        }
        (false, false) => spblkSbsrmm(
            h,
            dir,
            nn,
            tb,
            mb,
            ni,
            kb,
            nnzb,
            sa.cast(),
            d,
            vp.cast(),
            op,
            cp,
            bs,
            bp.cast(),
            lb,
            sb.cast(),
            c.cast(),
            lc,
        ),
        (false, true) => spblkDbsrmm(
            h,
            dir,
            nn,
            tb,
            mb,
            ni,
            kb,
            nnzb,
            sa.cast(),
            d,
            vp.cast(),
            op,
            cp,
            bs,
            bp.cast(),
            lb,
            sb.cast(),
            c.cast(),
            lc,
        ),
    };
    ok(st, &what);
    side.sync();
    let got = side.get(c, ldc * n * vsize(t));
    let mut want = reference(a, case.by_column, &dense_b, (ldb, b_trans), &c0, ldc, n, (alpha, beta), case.f64_values);
    // The padding rows of C (beyond m) keep what they held.
    for col in 0..n {
        for i in m..ldc {
            want[i + col * ldc] = c0[i + col * ldc];
        }
    }
    let (got_v, want_b) = (decode(&got, t), encode(&want, t));
    assert!(got == want_b, "{what}: C differs from the reference; first difference at {:?}", {
        let at = got.chunks(vsize(t)).zip(want_b.chunks(vsize(t))).position(|(x, y)| x != y);
        at.map(|i| (i, got_v[i], want[i]))
    });
    ok(spblkDestroyMatDescr(d), "spblkDestroyMatDescr");
}

/// A value of type `t` as the library reads it (rounded to the type), in f64.
/// SpMV and SpMM on BSR descriptors (`spblkCreateBsr`) on both backends, against the same
/// reference: f32, f64, f16 inputs with f32 and f16 outputs, 32- and 64-bit indices, both bases
/// and block orders, B and C in either order with op(B) = B or Bᵀ, the default and the BSR
/// algorithms; bit for bit. Then what they refuse: op(A) = Aᵀ, another format's algorithm.
#[test]
fn spmv_and_spmm_on_bsr_descriptors() {
    use spblk::capi::dense::*;
    use spblk::capi::products::*;
    use spblk::capi::sp_mat::spblkDestroySpMat;
    use spblk::capi::sp_mat_blocked::*;
    // (input, output, compute) types.
    let types = [
        (SPBLK_R_32F, SPBLK_R_32F),
        (SPBLK_R_64F, SPBLK_R_64F),
        (SPBLK_R_16F, SPBLK_R_32F),
        (SPBLK_R_16F, SPBLK_R_16F),
    ];
    for kind in sides("spmv_and_spmm_on_bsr_descriptors") {
        let mut r = rng(89);
        for (s, &(mb, kb, b, per_row, n)) in SHAPES.iter().enumerate().skip(1) {
            for variant in 0..4 {
                let (tin, tout) = types[(s + variant) % 4];
                let compute = if tin == SPBLK_R_64F { SPBLK_R_64F } else { SPBLK_R_32F };
                let round_c = |x: f64| if compute == SPBLK_R_64F { x } else { x as f32 as f64 };
                let a = random_bsr(&mut r, mb, kb, b, per_row, true);
                let ity = if variant % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
                let base = ((s + variant / 2) % 2) as i64;
                let by_column = (s + variant) % 3 == 0;
                let spmv = variant == 3;
                let (b_row, c_row, b_trans) = (variant == 1, variant == 2, variant == 2 || variant == 0 && s % 2 == 1);
                let alg = variant % 2; // 0: default; 1: the BSR algorithm
                let what = format!(
                    "{kind:?} shape {s} variant {variant} ({mb} x {kb} blocks of {b}, {tin}->{tout}, idx {ity}, base \
                     {base}, by column {by_column}, spmv {spmv}, B row {b_row} Bt {b_trans}, C row {c_row})"
                );
                let (m, k) = (mb * b, kb * b);
                let n = if spmv { 1 } else { n };
                // op(B): k x n; stored as B (k x n) or Bᵀ (n x k), row- or column-major.
                let (sb_rows, sb_cols) = if b_trans && !spmv { (n, k) } else { (k, n) };
                let b_order = if b_row && !spmv { SPBLK_ORDER_ROW } else { SPBLK_ORDER_COL };
                let ldb = if b_order == SPBLK_ORDER_ROW { sb_cols + 1 } else { sb_rows + 2 };
                let b_vals = exact_values(&mut r, ldb * if b_order == SPBLK_ORDER_ROW { sb_rows } else { sb_cols });
                let b_at = |row: usize, col: usize| {
                    let (i, j) = if b_trans && !spmv { (col, row) } else { (row, col) };
                    let p = if b_order == SPBLK_ORDER_ROW { i * ldb + j } else { i + j * ldb };
                    as_type(b_vals[p], tin)
                };
                let c_order = if c_row && !spmv { SPBLK_ORDER_ROW } else { SPBLK_ORDER_COL };
                let ldc = if spmv {
                    m.max(1)
                } else if c_order == SPBLK_ORDER_ROW {
                    n + 3
                } else {
                    m + 1
                };
                let c_len = ldc * if c_order == SPBLK_ORDER_ROW { m } else { n };
                let c0 = exact_values(&mut r, c_len);
                let c_pos = |i: usize, j: usize| if c_order == SPBLK_ORDER_ROW { i * ldc + j } else { i + j * ldc };
                let (alpha, beta) = (1.25, if variant == 1 { 0.0 } else { -0.5 });
                // The reference, in the compute type.
                let mut want: Vec<f64> = c0.iter().map(|&v| as_type(v, tout)).collect();
                for col in 0..n {
                    for i in 0..m {
                        let (rr, ii) = (i / b, i % b);
                        let mut acc = 0.0;
                        for blk in a.offsets[rr] as usize..a.offsets[rr + 1] as usize {
                            let bc = a.columns[blk] as usize;
                            for j in 0..b {
                                let v = a.values[blk * b * b + if by_column { j * b + ii } else { ii * b + j }];
                                acc = round_c(acc + round_c(as_type(v, tin) * b_at(bc * b + j, col)));
                            }
                        }
                        let mut out = round_c(alpha * acc);
                        if beta != 0.0 {
                            out = round_c(out + round_c(beta * as_type(c0[c_pos(i, col)], tout)));
                        }
                        want[c_pos(i, col)] = as_type(out, tout);
                    }
                }
                let mut side = Side::new(kind);
                let h = side.handle;
                let shift = |v: &[i64]| idx_bytes(&v.iter().map(|x| x + base).collect::<Vec<_>>(), ity);
                let (op, cp, vp) =
                    (side.put(&shift(&a.offsets)), side.put(&shift(&a.columns)), side.put(&encode(&a.values, tin)));
                let mut ma = std::ptr::null_mut();
                let order = if by_column { SPBLK_ORDER_COL } else { SPBLK_ORDER_ROW };
                let (bi, bj, bz, bb) = (mb as i64, kb as i64, a.columns.len() as i64, b as i64);
                ok(spblkCreateBsr(&mut ma, bi, bj, bz, bb, bb, op, cp, vp, ity, ity, base as u32, tin, order), &what);
                let bp = side.put(&encode(&b_vals, tin));
                let cbuf = side.put(&encode(&c0, tout));
                let sa = side.scalar(false, &encode(&[alpha], compute));
                let sb = side.scalar(false, &encode(&[beta], compute));
                let nn = SPBLK_OPERATION_NON_TRANSPOSE;
                let mut size = 0usize;
                if spmv {
                    let (mut vx, mut vy) = (std::ptr::null_mut(), std::ptr::null_mut());
                    ok(spblkCreateDnVec(&mut vx, k as i64, bp, tin), "x");
                    ok(spblkCreateDnVec(&mut vy, m as i64, cbuf, tout), "y");
                    let alg = if alg == 1 { SPBLK_SPMV_BSR_ALG1 } else { SPBLK_SPMV_ALG_DEFAULT };
                    ok(spblkSpMV_bufferSize(h, nn, sa, ma, vx, sb, vy, compute, alg, &mut size), &what);
                    let buf = side.buffer(size);
                    ok(spblkSpMV_preprocess(h, nn, sa, ma, vx, sb, vy, compute, alg, buf), &what);
                    ok(spblkSpMV(h, nn, sa, ma, vx, sb, vy, compute, alg, buf), &what);
                    let tr = SPBLK_OPERATION_TRANSPOSE;
                    assert_eq!(spblkSpMV(h, tr, sa, ma, vy, sb, vx, compute, alg, buf), SPBLK_STATUS_NOT_SUPPORTED);
                    let st = spblkSpMV(h, nn, sa, ma, vx, sb, vy, compute, SPBLK_SPMV_CSR_ALG1, buf);
                    assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{what}: a CSR algorithm on BSR");
                    spblkDestroyDnVec(vx);
                    spblkDestroyDnVec(vy);
                } else {
                    let (mut db, mut dc) = (std::ptr::null_mut(), std::ptr::null_mut());
                    let (sr, sc) = (sb_rows as i64, sb_cols as i64);
                    ok(spblkCreateDnMat(&mut db, sr, sc, ldb as i64, bp, tin, b_order), "B");
                    ok(spblkCreateDnMat(&mut dc, m as i64, n as i64, ldc as i64, cbuf, tout, c_order), "C");
                    let ob = if b_trans { SPBLK_OPERATION_TRANSPOSE } else { nn };
                    let alg = if alg == 1 { SPBLK_SPMM_BSR_ALG1 } else { SPBLK_SPMM_ALG_DEFAULT };
                    ok(spblkSpMM_bufferSize(h, nn, ob, sa, ma, db, sb, dc, compute, alg, &mut size), &what);
                    let buf = side.buffer(size);
                    ok(spblkSpMM_preprocess(h, nn, ob, sa, ma, db, sb, dc, compute, alg, buf), &what);
                    ok(spblkSpMM(h, nn, ob, sa, ma, db, sb, dc, compute, alg, buf), &what);
                    let st = spblkSpMM(h, nn, ob, sa, ma, db, sb, dc, compute, SPBLK_SPMM_CSR_ALG2, buf);
                    assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{what}: a CSR algorithm on BSR");
                    spblkDestroyDnMat(db);
                    spblkDestroyDnMat(dc);
                }
                side.sync();
                let got = side.get(cbuf, c_len * vsize(tout));
                let want_b = encode(&want, tout);
                assert!(got == want_b, "{what}: C differs; first at {:?}", {
                    let vs = vsize(tout);
                    got.chunks(vs)
                        .zip(want_b.chunks(vs))
                        .position(|(x, y)| x != y)
                        .map(|p| (p, decode(&got, tout)[p], want[p]))
                });
                spblkDestroySpMat(ma);
            }
        }
    }
}

/// A strided batch of two BSR matrices (`spblkBsrSetStridedBatch`: the pattern shared, the
/// values strided) times one B into a batch of two C: each batch equals the unbatched SpMM of
/// its own descriptor, bit for bit (that product is checked against the reference above).
#[test]
fn spmm_on_a_strided_batch_of_bsr_matrices() {
    use spblk::capi::batch::*;
    use spblk::capi::dense::*;
    use spblk::capi::products::*;
    use spblk::capi::sp_mat::spblkDestroySpMat;
    use spblk::capi::sp_mat_blocked::*;
    let (t, i32i) = (SPBLK_R_32F, SPBLK_INDEX_32I);
    for kind in sides("spmm_on_a_strided_batch_of_bsr_matrices") {
        let mut r = rng(97);
        let (mb, kb, b, n) = (40, 30, 3, 6);
        let a = random_bsr(&mut r, mb, kb, b, 5, false);
        let nnz = a.values.len();
        let second = values(&mut r, nnz);
        let (m, k) = (mb * b, kb * b);
        let mut side = Side::new(kind);
        let h = side.handle;
        let (op, cp) = (side.put(&idx_bytes(&a.offsets, i32i)), side.put(&idx_bytes(&a.columns, i32i)));
        let both: Vec<f64> = a.values.iter().chain(&second).copied().collect();
        let vp = side.put(&encode(&both, t));
        let v2 = side.put(&encode(&second, t));
        let bz = a.columns.len() as i64;
        let create = |v: *mut c_void| {
            let mut d = std::ptr::null_mut();
            let (bi, bj, bb) = (mb as i64, kb as i64, b as i64);
            let st = spblkCreateBsr(&mut d, bi, bj, bz, bb, bb, op, cp, v, i32i, i32i, 0, t, SPBLK_ORDER_ROW);
            ok(st, "spblkCreateBsr");
            d
        };
        let (batched, first, other) = (create(vp), create(vp), create(v2));
        ok(spblkBsrSetStridedBatch(batched, 2, 0, 0, nnz as i64), "spblkBsrSetStridedBatch");
        let bp = side.put(&encode(&values(&mut r, k * n), t));
        let mut db = std::ptr::null_mut();
        ok(spblkCreateDnMat(&mut db, k as i64, n as i64, k as i64, bp, t, SPBLK_ORDER_COL), "B");
        let dense = |side: &mut Side, count: usize| {
            let p = side.put(&vec![0u8; m * n * 4 * count]);
            let mut d = std::ptr::null_mut();
            ok(spblkCreateDnMat(&mut d, m as i64, n as i64, m as i64, p, t, SPBLK_ORDER_COL), "C");
            (d, p)
        };
        let (dc, cp2) = dense(&mut side, 2);
        ok(spblkDnMatSetStridedBatch(dc, 2, (m * n) as i64), "spblkDnMatSetStridedBatch");
        let (c1, p1) = dense(&mut side, 1);
        let (c2, p2) = dense(&mut side, 1);
        let (one, zero) = (side.scalar(false, &encode(&[1.0], t)), side.scalar(false, &encode(&[0.0], t)));
        let nn = SPBLK_OPERATION_NON_TRANSPOSE;
        for (sa, c) in [(batched, dc), (first, c1), (other, c2)] {
            let mut size = 0usize;
            ok(spblkSpMM_bufferSize(h, nn, nn, one, sa, db, zero, c, t, SPBLK_SPMM_BSR_ALG1, &mut size), "size");
            let buf = side.buffer(size);
            ok(spblkSpMM(h, nn, nn, one, sa, db, zero, c, t, SPBLK_SPMM_BSR_ALG1, buf), "spblkSpMM");
        }
        side.sync();
        let got = side.get(cp2, m * n * 8);
        assert_eq!(got[..m * n * 4], side.get(p1, m * n * 4)[..], "{kind:?}: batch 0");
        assert_eq!(got[m * n * 4..], side.get(p2, m * n * 4)[..], "{kind:?}: batch 1");
        assert_ne!(got[..m * n * 4], got[m * n * 4..], "{kind:?}: the two batches have different values");
        for d in [batched, first, other] {
            spblkDestroySpMat(d);
        }
        for d in [db, dc, c1, c2] {
            spblkDestroyDnMat(d);
        }
    }
}
