//! Every operation on the host backend, through the C API, against an independent dense f64
//! reference: random matrices of every kind (empty rows, a dense row, power-law rows, nnz = 0,
//! rectangular), every format, index width, index base, transpose, order, precision and
//! pointer mode, beta = 0 on NaN-filled outputs, and the matrices in ../shared/matrices.

mod common;

use common::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use spblk::capi::dense::*;
use spblk::capi::handle::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::spgemm::*;
use spblk::capi::types::*;
use std::ffi::c_void;

const PRECISIONS: [(spblkDataType_t, spblkDataType_t, spblkDataType_t); 6] = [
    (SPBLK_R_32F, SPBLK_R_32F, SPBLK_R_32F),
    (SPBLK_R_64F, SPBLK_R_64F, SPBLK_R_64F),
    (SPBLK_R_16F, SPBLK_R_32F, SPBLK_R_32F),
    (SPBLK_R_16BF, SPBLK_R_32F, SPBLK_R_32F),
    (SPBLK_R_16F, SPBLK_R_16F, SPBLK_R_32F),
    (SPBLK_R_16BF, SPBLK_R_16BF, SPBLK_R_32F),
];
const SHAPES: [(usize, usize); 8] = [(0, 0), (1, 1), (0, 7), (7, 0), (17, 17), (33, 9), (9, 40), (130, 70)];

/// alpha or beta stored in the compute type.
struct Scalar {
    bytes: [u8; 8],
}
impl Scalar {
    fn new(compute: spblkDataType_t, v: f64) -> (Self, f64) {
        let mut bytes = [0u8; 8];
        if compute == SPBLK_R_64F {
            bytes.copy_from_slice(&v.to_ne_bytes());
            (Scalar { bytes }, v)
        } else {
            bytes[..4].copy_from_slice(&(v as f32).to_ne_bytes());
            (Scalar { bytes }, v as f32 as f64)
        }
    }
    fn ptr(&self) -> *const c_void {
        self.bytes.as_ptr() as *const c_void
    }
}

/// A random case description shared by SpMV and SpMM.
struct Setup {
    format: spblkFormat_t,
    ity: spblkIndexType_t,
    base: spblkIndexBase_t,
    op_a: spblkOperation_t,
    prec: (spblkDataType_t, spblkDataType_t, spblkDataType_t),
    mode: spblkPointerMode_t,
    alpha: f64,
    beta: f64,
}

fn setup(r: &mut StdRng) -> Setup {
    Setup {
        format: *[SPBLK_FORMAT_CSR, SPBLK_FORMAT_CSC, SPBLK_FORMAT_COO].choose(r).unwrap(),
        ity: *[SPBLK_INDEX_32I, SPBLK_INDEX_64I].choose(r).unwrap(),
        base: *[SPBLK_INDEX_BASE_ZERO, SPBLK_INDEX_BASE_ONE].choose(r).unwrap(),
        op_a: *[SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_OPERATION_TRANSPOSE].choose(r).unwrap(),
        prec: *PRECISIONS.choose(r).unwrap(),
        mode: *[SPBLK_POINTER_MODE_HOST, SPBLK_POINTER_MODE_DEVICE].choose(r).unwrap(),
        alpha: *[1.0, -0.75, 2.5].choose(r).unwrap(),
        beta: *[0.0, 0.0, 1.0, -0.5].choose(r).unwrap(),
    }
}

/// op(A) as row lists.
fn op_sparse(a: &Triplets, vty: spblkDataType_t, op: spblkOperation_t) -> Vec<Vec<(usize, f64)>> {
    op_rows(a, vty, op != SPBLK_OPERATION_NON_TRANSPOSE)
}

fn spmm_case(h: spblkHandle_t, r: &mut StdRng, a_m: &Triplets, n: usize, label: &str) {
    let s = setup(r);
    let (in_t, out_t, comp) = s.prec;
    assert_eq!(spblkSetPointerMode(h, s.mode), SPBLK_STATUS_SUCCESS);
    let op_b = *[SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_OPERATION_TRANSPOSE].choose(r).unwrap();
    let opa = op_sparse(a_m, in_t, s.op_a);
    let (m, k) = (opa.len(), if s.op_a == SPBLK_OPERATION_NON_TRANSPOSE { a_m.cols } else { a_m.rows });
    let mut a = SparseArrays::new(a_m, s.format, s.ity, s.base, in_t);
    let (br, bc) = if op_b == SPBLK_OPERATION_NON_TRANSPOSE { (k, n) } else { (n, k) };
    let order = || *[SPBLK_ORDER_ROW, SPBLK_ORDER_COL].choose(&mut rand::thread_rng()).unwrap();
    let pad = r.gen_range(0..3);
    let mut b = Dense::new(r, br, bc, order(), in_t, pad, None);
    let fill = if s.beta == 0.0 { Some(f64::NAN) } else { None };
    let mut c = Dense::new(r, m, n, order(), out_t, pad, fill);
    let (bv, c0) = (b.to_f64(), c.to_f64());
    let (alpha, av) = Scalar::new(comp, s.alpha);
    let (beta, bev) = Scalar::new(comp, s.beta);
    let (da, db, dc) = (a.descr(), b.descr(), c.descr());
    let mut size = usize::MAX;
    let alg = SPBLK_SPMM_ALG_DEFAULT;
    let st = spblkSpMM_bufferSize(h, s.op_a, op_b, alpha.ptr(), da, db, beta.ptr(), dc, comp, alg, &mut size);
    assert_eq!(st, SPBLK_STATUS_SUCCESS, "{label}: {}", last_error());
    let mut work = vec![0u8; size.max(1)];
    let wp = work.as_mut_ptr() as *mut c_void;
    assert_eq!(spblkSpMM_preprocess(h, s.op_a, op_b, alpha.ptr(), da, db, beta.ptr(), dc, comp, alg, wp), 0);
    let st = spblkSpMM(h, s.op_a, op_b, alpha.ptr(), da, db, beta.ptr(), dc, comp, alg, wp);
    assert_eq!(st, SPBLK_STATUS_SUCCESS, "{label}: {}", last_error());
    let got_all = c.to_f64();
    let (mut got, mut want, mut scale) = (vec![], vec![], vec![]);
    for (i, row) in opa.iter().enumerate() {
        for j in 0..n {
            let (mut sum, mut abs) = (0.0, 0.0);
            for &(kk, aik) in row {
                let bkj = if op_b == SPBLK_OPERATION_NON_TRANSPOSE { b.get(&bv, kk, j) } else { b.get(&bv, j, kk) };
                sum += aik * bkj;
                abs += (aik * bkj).abs();
            }
            let old = if bev == 0.0 { 0.0 } else { c.get(&c0, i, j) };
            got.push(c.get(&got_all, i, j));
            want.push(av * sum + bev * old);
            scale.push(av.abs() * abs + bev.abs() * old.abs());
        }
    }
    let what = format!(
        "{label} SpMM fmt {} ity {} base {} opA {} opB {op_b} prec {:?} beta {}",
        s.format, s.ity, s.base, s.op_a, s.prec, s.beta
    );
    assert_close(&got, &want, &scale, compute_tolerance(comp), out_t, &what);
    // Padding between rows/columns (ld > extent) must be left alone.
    for idx in 0..got_all.len() {
        let inside = if c.order == SPBLK_ORDER_ROW { idx % c.ld < n } else { idx % c.ld < m };
        if !inside {
            assert!(
                got_all[idx].is_nan() == c0[idx].is_nan() && (c0[idx].is_nan() || got_all[idx] == c0[idx]),
                "{what}: padding written"
            );
        }
    }
    spblkDestroySpMat(da);
    spblkDestroyDnMat(db);
    spblkDestroyDnMat(dc);
}

fn spmv_case(h: spblkHandle_t, r: &mut StdRng, a_m: &Triplets, label: &str) {
    let s = setup(r);
    let (in_t, out_t, comp) = s.prec;
    assert_eq!(spblkSetPointerMode(h, s.mode), SPBLK_STATUS_SUCCESS);
    let opa = op_sparse(a_m, in_t, s.op_a);
    let (m, k) = (opa.len(), if s.op_a == SPBLK_OPERATION_NON_TRANSPOSE { a_m.cols } else { a_m.rows });
    let mut a = SparseArrays::new(a_m, s.format, s.ity, s.base, in_t);
    let xs: Vec<f64> = (0..k).map(|_| quantize(in_t, value(r))).collect();
    let ys: Vec<f64> = (0..m).map(|_| if s.beta == 0.0 { f64::NAN } else { quantize(out_t, value(r)) }).collect();
    let (mut xb, mut yb) = (values_buf(in_t, &xs), values_buf(out_t, &ys));
    let (mut dx, mut dy) = (std::ptr::null_mut(), std::ptr::null_mut());
    assert_eq!(spblkCreateDnVec(&mut dx, k as i64, xb.ptr(), in_t), 0);
    assert_eq!(spblkCreateDnVec(&mut dy, m as i64, yb.ptr(), out_t), 0);
    let (alpha, av) = Scalar::new(comp, s.alpha);
    let (beta, bev) = Scalar::new(comp, s.beta);
    let da = a.descr();
    let mut size = usize::MAX;
    // DEFAULT or an algorithm of the matrix's format family (others are NOT_SUPPORTED).
    let family = if s.format == SPBLK_FORMAT_COO {
        [SPBLK_SPMV_COO_ALG1, SPBLK_SPMV_COO_ALG2]
    } else {
        [SPBLK_SPMV_CSR_ALG1, SPBLK_SPMV_CSR_ALG2]
    };
    let alg = *[SPBLK_SPMV_ALG_DEFAULT, family[0], family[1]].choose(r).unwrap();
    let st = spblkSpMV_bufferSize(h, s.op_a, alpha.ptr(), da, dx, beta.ptr(), dy, comp, alg, &mut size);
    assert_eq!(st, SPBLK_STATUS_SUCCESS, "{label}: {}", last_error());
    let mut work = vec![0u8; size.max(1)];
    let wp = work.as_mut_ptr() as *mut c_void;
    assert_eq!(spblkSpMV_preprocess(h, s.op_a, alpha.ptr(), da, dx, beta.ptr(), dy, comp, alg, wp), 0);
    let st = spblkSpMV(h, s.op_a, alpha.ptr(), da, dx, beta.ptr(), dy, comp, alg, wp);
    assert_eq!(st, SPBLK_STATUS_SUCCESS, "{label}: {}", last_error());
    let got = read_values(out_t, &yb);
    let (mut want, mut scale) = (vec![], vec![]);
    for i in 0..m {
        let sum: f64 = opa[i].iter().map(|&(k, a)| a * xs[k]).sum();
        let abs: f64 = opa[i].iter().map(|&(k, a)| (a * xs[k]).abs()).sum();
        let old = if bev == 0.0 { 0.0 } else { ys[i] };
        want.push(av * sum + bev * old);
        scale.push(av.abs() * abs + bev.abs() * old.abs());
    }
    let what = format!(
        "{label} SpMV fmt {} ity {} base {} opA {} prec {:?} beta {}",
        s.format, s.ity, s.base, s.op_a, s.prec, s.beta
    );
    assert_close(&got, &want, &scale, compute_tolerance(comp), out_t, &what);
    spblkDestroySpMat(da);
    spblkDestroyDnVec(dx);
    spblkDestroyDnVec(dy);
}

#[test]
fn spmv_random_matrices_match_reference() {
    let h = host_handle();
    let mut r = rng(1);
    for round in 0..6 {
        for &(m, k) in &SHAPES {
            for kind in KINDS {
                let a = random_matrix(&mut r, m, k, kind);
                spmv_case(h, &mut r, &a, &format!("round {round} {m}x{k} {kind:?}"));
            }
        }
    }
    spblkDestroy(h);
}

#[test]
fn spmm_random_matrices_match_reference() {
    let h = host_handle();
    let mut r = rng(2);
    for round in 0..4 {
        for &(m, k) in &SHAPES {
            for kind in KINDS {
                let a = random_matrix(&mut r, m, k, kind);
                let n = *[1usize, 3, 8, 19].choose(&mut r).unwrap();
                spmm_case(h, &mut r, &a, n, &format!("round {round} {m}x{k} n {n} {kind:?}"));
            }
        }
    }
    spblkDestroy(h);
}

#[test]
fn sddmm_random_matrices_match_reference() {
    let h = host_handle();
    let mut r = rng(3);
    for round in 0..5 {
        for &(m, n) in &SHAPES {
            for kind in KINDS {
                let pattern = random_matrix(&mut r, m, n, kind);
                let s = setup(&mut r);
                sddmm_case(h, &mut r, &pattern, &s, &format!("round {round} {m}x{n} {kind:?}"));
            }
        }
    }
    spblkDestroy(h);
}

fn sddmm_case(h: spblkHandle_t, r: &mut StdRng, pattern: &Triplets, s: &Setup, label: &str) {
    let (in_t, out_t, comp) = s.prec;
    assert_eq!(spblkSetPointerMode(h, s.mode), SPBLK_STATUS_SUCCESS);
    let (m, n) = (pattern.rows, pattern.cols);
    let kdim = *[1usize, 4, 13].choose(r).unwrap();
    let op_a = *[SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_OPERATION_TRANSPOSE].choose(r).unwrap();
    let op_b = *[SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_OPERATION_TRANSPOSE].choose(r).unwrap();
    let shape = |op, r0, c0| if op == SPBLK_OPERATION_NON_TRANSPOSE { (r0, c0) } else { (c0, r0) };
    let (ar, ac) = shape(op_a, m, kdim);
    let (br, bc) = shape(op_b, kdim, n);
    let (oa, ob) = (
        *[SPBLK_ORDER_ROW, SPBLK_ORDER_COL].choose(r).unwrap(),
        *[SPBLK_ORDER_ROW, SPBLK_ORDER_COL].choose(r).unwrap(),
    );
    let (pa, pb) = (r.gen_range(0..2), r.gen_range(0..2));
    let mut a = Dense::new(r, ar, ac, oa, in_t, pa, None);
    let mut b = Dense::new(r, br, bc, ob, in_t, pb, None);
    // C's old values: NaN when beta = 0 (must not be read).
    let mut c_m = pattern.clone();
    for e in &mut c_m.entries {
        e.2 = if s.beta == 0.0 { f64::NAN } else { quantize(out_t, e.2) };
    }
    let mut c = SparseArrays::new(&c_m, SPBLK_FORMAT_CSR, s.ity, s.base, out_t);
    let c_old = read_values(out_t, &c.values);
    let (av_, bv_) = (a.to_f64(), b.to_f64());
    let (alpha, av) = Scalar::new(comp, s.alpha);
    let (beta, bev) = Scalar::new(comp, s.beta);
    let (da, db, dc) = (a.descr(), b.descr(), c.descr());
    let at =
        |i: usize, l: usize| if op_a == SPBLK_OPERATION_NON_TRANSPOSE { a.get(&av_, i, l) } else { a.get(&av_, l, i) };
    let bt =
        |l: usize, j: usize| if op_b == SPBLK_OPERATION_NON_TRANSPOSE { b.get(&bv_, l, j) } else { b.get(&bv_, j, l) };
    let mut size = usize::MAX;
    let st = spblk::capi::products::spblkSDDMM_bufferSize(
        h,
        op_a,
        op_b,
        alpha.ptr(),
        da,
        db,
        beta.ptr(),
        dc,
        comp,
        0,
        &mut size,
    );
    assert_eq!(st, SPBLK_STATUS_SUCCESS, "{label}: {}", last_error());
    let mut work = vec![0u8; size.max(1)];
    let wp = work.as_mut_ptr() as *mut c_void;
    assert_eq!(spblkSDDMM_preprocess(h, op_a, op_b, alpha.ptr(), da, db, beta.ptr(), dc, comp, 0, wp), 0);
    let st = spblkSDDMM(h, op_a, op_b, alpha.ptr(), da, db, beta.ptr(), dc, comp, 0, wp);
    assert_eq!(st, SPBLK_STATUS_SUCCESS, "{label}: {}", last_error());
    let got = read_values(out_t, &c.values);
    // Entries in CSR storage order: row-sorted, stable.
    let mut entries = c_m.entries.clone();
    entries.sort_by_key(|e| e.0);
    let (mut want, mut scale) = (vec![], vec![]);
    for (p, &(i, j, _)) in entries.iter().enumerate() {
        let dot: f64 = (0..kdim).map(|l| at(i, l) * bt(l, j)).sum();
        let abs: f64 = (0..kdim).map(|l| (at(i, l) * bt(l, j)).abs()).sum();
        let old = if bev == 0.0 { 0.0 } else { c_old[p] };
        want.push(av * dot + bev * old);
        scale.push(av.abs() * abs + bev.abs() * old.abs());
    }
    let what =
        format!("{label} SDDMM ity {} base {} opA {op_a} opB {op_b} prec {:?} beta {}", s.ity, s.base, s.prec, s.beta);
    assert_close(&got, &want, &scale, compute_tolerance(comp), out_t, &what);
    spblkDestroyDnMat(da);
    spblkDestroyDnMat(db);
    spblkDestroySpMat(dc);
}

/// C as (offsets, columns, values), read back.
type CsrOut = (Vec<i64>, Vec<i64>, Vec<f64>);

/// Runs the full SpGEMM protocol and returns C as (offsets, columns, values).
fn spgemm_run(
    h: spblkHandle_t,
    a: &mut SparseArrays,
    b: &mut SparseArrays,
    alpha: f64,
    comp: spblkDataType_t,
    alg: spblkSpGEMMAlg_t,
) -> CsrOut {
    let (ity, base, vty) = (a.ity, a.base, a.vty);
    let (da, db) = (a.descr(), b.descr());
    let mut offsets = index_buf(ity, &vec![0; a.rows + 1]);
    let mut dc: spblkSpMatDescr_t = std::ptr::null_mut();
    let st = spblkCreateCsr(
        &mut dc,
        a.rows as i64,
        b.cols as i64,
        0,
        offsets.ptr(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        ity,
        ity,
        base,
        vty,
    );
    assert_eq!(st, 0, "{}", last_error());
    let mut g: spblkSpGEMMDescr_t = std::ptr::null_mut();
    assert_eq!(spblkSpGEMM_createDescr(&mut g), 0);
    let (al, _) = Scalar::new(comp, alpha);
    let (be, _) = Scalar::new(comp, 0.0);
    let (n, p) = (SPBLK_OPERATION_NON_TRANSPOSE, std::ptr::null_mut());
    let mut s1 = 0usize;
    assert_eq!(spblkSpGEMM_workEstimation(h, n, n, al.ptr(), da, db, be.ptr(), dc, comp, alg, g, &mut s1, p), 0);
    assert!(s1 >= 1, "sizes must be at least 1");
    let mut buf1 = vec![0u8; s1];
    let st = spblkSpGEMM_workEstimation(
        h,
        n,
        n,
        al.ptr(),
        da,
        db,
        be.ptr(),
        dc,
        comp,
        alg,
        g,
        &mut s1,
        buf1.as_mut_ptr() as *mut _,
    );
    assert_eq!(st, 0, "{}", last_error());
    let mut s2 = 0usize;
    if alg == SPBLK_SPGEMM_ALG3 {
        // ALG3 takes its chunk_fraction, and buffer 2's size, from estimateMemory.
        let st = spblkSpGEMM_compute(h, n, n, al.ptr(), da, db, be.ptr(), dc, comp, alg, g, &mut s2, p);
        assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "ALG3 compute before estimateMemory");
        let (mut s3, mut buf3) = (0usize, vec![0u8; 1]);
        let est = |s3: &mut usize, b3: *mut u8, s2: *mut usize| {
            spblkSpGEMM_estimateMemory(h, n, n, al.ptr(), da, db, be.ptr(), dc, comp, alg, g, 0.25, s3, b3 as _, s2)
        };
        assert_eq!(est(&mut s3, std::ptr::null_mut(), std::ptr::null_mut()), 0, "{}", last_error());
        assert!(s3 >= 1 && s3 <= buf3.len(), "buffer 3: {s3} bytes");
        assert_eq!(est(&mut s3, buf3.as_mut_ptr(), &mut s2), 0, "{}", last_error());
    } else {
        assert_eq!(spblkSpGEMM_compute(h, n, n, al.ptr(), da, db, be.ptr(), dc, comp, alg, g, &mut s2, p), 0);
    }
    assert!(s2 >= 1);
    let mut buf2 = vec![0u8; s2];
    let st = spblkSpGEMM_compute(
        h,
        n,
        n,
        al.ptr(),
        da,
        db,
        be.ptr(),
        dc,
        comp,
        alg,
        g,
        &mut s2,
        buf2.as_mut_ptr() as *mut _,
    );
    assert_eq!(st, 0, "{}", last_error());
    let (mut rows, mut cols, mut nnz) = (0i64, 0i64, -1i64);
    assert_eq!(spblkSpMatGetSize(dc, &mut rows, &mut cols, &mut nnz), 0);
    assert_eq!((rows, cols), (a.rows as i64, b.cols as i64));
    let mut col = index_buf(ity, &vec![-7; nnz as usize]);
    let mut val = values_buf(vty, &vec![f64::NAN; nnz as usize]);
    assert_eq!(spblkCsrSetPointers(dc, offsets.ptr(), col.ptr(), val.ptr()), 0);
    let st = spblkSpGEMM_copy(h, n, n, al.ptr(), da, db, be.ptr(), dc, comp, alg, g);
    assert_eq!(st, 0, "{}", last_error());
    for d in [da, db, dc] {
        assert_eq!(spblkDestroySpMat(d), 0);
    }
    assert_eq!(spblkSpGEMM_destroyDescr(g), 0);
    (read_indices(ity, &offsets), read_indices(ity, &col), read_values(vty, &val))
}

fn spgemm_check(h: spblkHandle_t, r: &mut StdRng, a_m: &Triplets, b_m: &Triplets, label: &str) {
    let (ity, base) = (*[SPBLK_INDEX_32I, SPBLK_INDEX_64I].choose(r).unwrap(), *[0, 1].choose(r).unwrap());
    let (vty, comp) = *[(SPBLK_R_32F, SPBLK_R_32F), (SPBLK_R_64F, SPBLK_R_64F)].choose(r).unwrap();
    assert_eq!(spblkSetPointerMode(h, SPBLK_POINTER_MODE_HOST), 0);
    let mut a = SparseArrays::new(a_m, SPBLK_FORMAT_CSR, ity, base, vty);
    let mut b = SparseArrays::new(b_m, SPBLK_FORMAT_CSR, ity, base, vty);
    let alpha = if comp == SPBLK_R_64F { -1.25 } else { 1.5 };
    let (off, col, val) = spgemm_run(h, &mut a, &mut b, alpha, comp, SPBLK_SPGEMM_DEFAULT);
    let (ar, br) = (op_rows(a_m, vty, false), op_rows(b_m, vty, false));
    let b0 = base as i64;
    assert_eq!(off.len(), a_m.rows + 1);
    assert_eq!(off[0], b0, "{label}");
    let mut p = 0usize;
    let al = quantize(comp, alpha);
    for i in 0..a_m.rows {
        // Row i of A·B accumulated in a map: structural entries are every column reachable
        // through A's pattern (products that cancel to 0 stay entries, as in cuSPARSE).
        let mut acc = std::collections::BTreeMap::<usize, (f64, f64)>::new();
        for &(k, a) in &ar[i] {
            for &(j, b) in &br[k] {
                let e = acc.entry(j).or_insert((0.0, 0.0));
                e.0 += a * b;
                e.1 += (a * b).abs();
            }
        }
        let row: Vec<usize> = (off[i] - b0..off[i + 1] - b0).map(|q| q as usize).collect();
        let cols_i: Vec<usize> = row.iter().map(|&q| (col[q] - b0) as usize).collect();
        assert_eq!(cols_i, acc.keys().copied().collect::<Vec<_>>(), "{label}: row {i} columns (sorted, exact)");
        for (&q, (sum, abs)) in row.iter().zip(acc.values()) {
            assert_close(&[val[q]], &[al * sum], &[al.abs() * abs], compute_tolerance(comp), vty, label);
        }
        p += row.len();
    }
    assert_eq!(p, col.len());
}

#[test]
fn spgemm_random_matrices_match_reference() {
    let h = host_handle();
    let mut r = rng(4);
    for round in 0..3 {
        for &(m, k) in &SHAPES {
            for kind in KINDS {
                let n = *[0usize, 1, 9, 31].choose(&mut r).unwrap();
                let a = random_matrix(&mut r, m, k, kind);
                let kind_b = *KINDS.choose(&mut r).unwrap();
                let b = random_matrix(&mut r, k, n, kind_b);
                spgemm_check(h, &mut r, &a, &b, &format!("round {round} {m}x{k}x{n} {kind:?}"));
            }
        }
    }
    spblkDestroy(h);
}

/// The reuse protocol on the host: set up once, then `reuse_compute` with A's values as given;
/// returns C's (offsets, columns, values) and the product count.
fn spgemm_reuse_run(
    h: spblkHandle_t,
    a: &mut SparseArrays,
    rounds: &mut [SparseArrays],
    alpha: f64,
    comp: spblkDataType_t,
) -> (i64, Vec<CsrOut>) {
    let (ity, base, vty) = (a.ity, a.base, a.vty);
    let da = a.descr();
    let mut offsets = index_buf(ity, &vec![0; a.rows + 1]);
    let mut dc: spblkSpMatDescr_t = std::ptr::null_mut();
    let null = std::ptr::null_mut();
    let st = spblkCreateCsr(&mut dc, a.rows as i64, a.cols as i64, 0, offsets.ptr(), null, null, ity, ity, base, vty);
    assert_eq!(st, 0, "{}", last_error());
    let mut g: spblkSpGEMMDescr_t = std::ptr::null_mut();
    assert_eq!(spblkSpGEMM_createDescr(&mut g), 0);
    let (n, alg) = (SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_SPGEMM_DEFAULT);
    let mut bufs: Vec<Vec<u8>> = Vec::new();
    let mut s1 = 0usize;
    assert_eq!(spblkSpGEMMreuse_workEstimation(h, n, n, da, da, dc, alg, g, &mut s1, null), 0, "{}", last_error());
    bufs.push(vec![0u8; s1]);
    let b1 = bufs[0].as_mut_ptr() as *mut c_void;
    assert_eq!(spblkSpGEMMreuse_workEstimation(h, n, n, da, da, dc, alg, g, &mut s1, b1), 0, "{}", last_error());
    let mut products = -1i64;
    assert_eq!(spblkSpGEMM_getNumProducts(g, &mut products), 0, "{}", last_error());
    let mut s = [0usize; 3];
    let [s2, s3, s4] = &mut s;
    assert_eq!(spblkSpGEMMreuse_nnz(h, n, n, da, da, dc, alg, g, s2, null, s3, null, s4, null), 0, "{}", last_error());
    let mut b: Vec<Vec<u8>> = s.iter().map(|&z| vec![0u8; z]).collect();
    let [p2, p3, p4] = [0, 1, 2].map(|i| b[i].as_mut_ptr() as *mut c_void);
    let [s2, s3, s4] = &mut s;
    assert_eq!(spblkSpGEMMreuse_nnz(h, n, n, da, da, dc, alg, g, s2, p2, s3, p3, s4, p4), 0, "{}", last_error());
    let (mut rows, mut cols, mut nnz) = (0i64, 0i64, -1i64);
    assert_eq!(spblkSpMatGetSize(dc, &mut rows, &mut cols, &mut nnz), 0);
    let mut col = index_buf(ity, &vec![-7; nnz as usize]);
    let mut val = values_buf(vty, &vec![f64::NAN; nnz as usize]);
    assert_eq!(spblkCsrSetPointers(dc, offsets.ptr(), col.ptr(), val.ptr()), 0);
    let mut s5 = 0usize;
    assert_eq!(spblkSpGEMMreuse_copy(h, n, n, da, da, dc, alg, g, &mut s5, null), 0, "{}", last_error());
    let mut b5 = vec![0u8; s5];
    let p5 = b5.as_mut_ptr() as *mut c_void;
    assert_eq!(spblkSpGEMMreuse_copy(h, n, n, da, da, dc, alg, g, &mut s5, p5), 0, "{}", last_error());
    b.push(b5);
    let (al, _) = Scalar::new(comp, alpha);
    let (be, _) = Scalar::new(comp, 0.0);
    let mut out = Vec::new();
    for r in rounds.iter_mut() {
        let dr = r.descr();
        let st = spblkSpGEMMreuse_compute(h, n, n, al.ptr(), dr, dr, be.ptr(), dc, comp, alg, g);
        assert_eq!(st, 0, "{}", last_error());
        out.push((read_indices(ity, &offsets), read_indices(ity, &col), read_values(vty, &val)));
        assert_eq!(spblkDestroySpMat(dr), 0);
    }
    for d in [da, dc] {
        assert_eq!(spblkDestroySpMat(d), 0);
    }
    assert_eq!(spblkSpGEMM_destroyDescr(g), 0);
    (products, out)
}

/// The reuse path, ALG2 and ALG3 give the full protocol's C bit for bit (new values each round
/// for reuse_compute), and getNumProducts counts A·A's products.
#[test]
fn spgemm_reuse_alg2_and_alg3_equal_the_full_protocol() {
    let h = host_handle();
    let mut r = rng(41);
    for &(m, _) in &SHAPES {
        for kind in KINDS {
            let (ity, base) =
                (*[SPBLK_INDEX_32I, SPBLK_INDEX_64I].choose(&mut r).unwrap(), *[0, 1].choose(&mut r).unwrap());
            let (vty, comp) = *[(SPBLK_R_32F, SPBLK_R_32F), (SPBLK_R_64F, SPBLK_R_64F)].choose(&mut r).unwrap();
            let a_m = random_matrix(&mut r, m, m, kind);
            let label = format!("{m}x{m} {kind:?} ity {ity} base {base} vty {vty}");
            let mut versions: Vec<Triplets> = (0..2)
                .map(|_| Triplets {
                    entries: a_m.entries.iter().map(|&(i, j, _)| (i, j, value(&mut r))).collect(),
                    ..a_m.clone()
                })
                .collect();
            versions.insert(0, a_m.clone());
            let arrays = |t: &Triplets| SparseArrays::new(t, SPBLK_FORMAT_CSR, ity, base, vty);
            let mut a = arrays(&a_m);
            let mut rounds: Vec<SparseArrays> = versions.iter().map(arrays).collect();
            let (products, got) = spgemm_reuse_run(h, &mut a, &mut rounds, 1.5, comp);
            let mut row_len = vec![0i64; m];
            a_m.entries.iter().for_each(|&(i, _, _)| row_len[i] += 1);
            let want_products: i64 = a_m.entries.iter().map(|&(_, j, _)| row_len[j]).sum();
            assert_eq!(products, want_products, "{label}: getNumProducts");
            for (v, (t, g)) in versions.iter().zip(&got).enumerate() {
                let (mut x, mut y) = (arrays(t), arrays(t));
                let want = spgemm_run(h, &mut x, &mut y, 1.5, comp, SPBLK_SPGEMM_DEFAULT);
                assert_eq!((&g.0, &g.1), (&want.0, &want.1), "{label}: reuse round {v}: structure");
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&g.2), bits(&want.2), "{label}: reuse round {v}: values");
                let alg2 = spgemm_run(h, &mut x, &mut y, 1.5, comp, SPBLK_SPGEMM_ALG2);
                assert_eq!((&alg2.0, &alg2.1, bits(&alg2.2)), (&want.0, &want.1, bits(&want.2)), "{label}: ALG2");
                let alg3 = spgemm_run(h, &mut x, &mut y, 1.5, comp, SPBLK_SPGEMM_ALG3);
                assert_eq!((&alg3.0, &alg3.1, bits(&alg3.2)), (&want.0, &want.1, bits(&want.2)), "{label}: ALG3");
                let esc = spgemm_run(h, &mut x, &mut y, 1.5, comp, SPBLK_SPGEMM_ALG_ESC);
                assert_eq!((&esc.0, &esc.1, bits(&esc.2)), (&want.0, &want.1, bits(&want.2)), "{label}: ALG_ESC");
            }
        }
    }
    spblkDestroy(h);
}

/// The reuse path runs the hash method only: ALG3 (no estimateMemory step) and ALG_ESC (values
/// computed with the structure) are refused, and nothing is recorded in the descriptor.
#[test]
fn spgemm_reuse_refuses_alg3_and_esc() {
    let h = host_handle();
    let mut r = rng(13);
    let t = random_matrix(&mut r, 20, 20, KINDS[0]);
    let mut a = SparseArrays::new(&t, SPBLK_FORMAT_CSR, SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    let da = a.descr();
    let mut offsets = index_buf(SPBLK_INDEX_32I, &[0; 21]);
    let (mut dc, null) = (std::ptr::null_mut(), std::ptr::null_mut());
    let st =
        spblkCreateCsr(&mut dc, 20, 20, 0, offsets.ptr(), null, null, SPBLK_INDEX_32I, SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    assert_eq!(st, 0, "{}", last_error());
    let mut g: spblkSpGEMMDescr_t = std::ptr::null_mut();
    assert_eq!(spblkSpGEMM_createDescr(&mut g), 0);
    let n = SPBLK_OPERATION_NON_TRANSPOSE;
    for alg in [SPBLK_SPGEMM_ALG3, SPBLK_SPGEMM_ALG_ESC] {
        let mut s1 = 0usize;
        let st = spblkSpGEMMreuse_workEstimation(h, n, n, da, da, dc, alg, g, &mut s1, null);
        assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "alg {alg}");
        assert_eq!(s1, 0, "alg {alg}: bufferSize1 written on failure");
        assert!(last_error().contains("not ALG3 or ALG_ESC"), "alg {alg}: {}", last_error());
    }
    spblkSpGEMM_destroyDescr(g);
    spblkDestroySpMat(dc);
    spblkDestroySpMat(da);
    spblkDestroy(h);
}

#[test]
fn csr2csc_matches_transpose() {
    use spblk::capi::convert::*;
    let h = host_handle();
    let mut r = rng(5);
    for &(m, n) in &SHAPES {
        for kind in KINDS {
            let a_m = random_matrix(&mut r, m, n, kind);
            for base in [0u32, 1] {
                for action in [SPBLK_ACTION_NUMERIC, SPBLK_ACTION_SYMBOLIC] {
                    let vty = *[SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F].choose(&mut r).unwrap();
                    let mut a = SparseArrays::new(&a_m, SPBLK_FORMAT_CSR, SPBLK_INDEX_32I, base, vty);
                    let want = SparseArrays::new(&a_m, SPBLK_FORMAT_CSC, SPBLK_INDEX_32I, base, vty);
                    let nnz = a.nnz;
                    let mut cp = index_buf(SPBLK_INDEX_32I, &vec![-9; n + 1]);
                    let mut ri = index_buf(SPBLK_INDEX_32I, &vec![-9; nnz]);
                    let sentinel = vec![0.5; nnz];
                    let mut cv = values_buf(vty, &sentinel);
                    let mut size = 0usize;
                    let args = |a: &mut SparseArrays, cv: &mut Buf, cp: &mut Buf, ri: &mut Buf| {
                        (
                            a.values.ptr(),
                            a.major.ptr() as *const i32,
                            a.minor.ptr() as *const i32,
                            cv.ptr(),
                            cp.ptr() as *mut i32,
                            ri.ptr() as *mut i32,
                        )
                    };
                    let (v, rp, ci, cvp, cpp, rip) = args(&mut a, &mut cv, &mut cp, &mut ri);
                    let st = spblkCsr2cscEx2_bufferSize(
                        h, m as i32, n as i32, nnz as i32, v, rp, ci, cvp, cpp, rip, vty, action, base, 1, &mut size,
                    );
                    assert_eq!(st, 0, "{}", last_error());
                    assert!(size >= 1);
                    let mut work = vec![0u8; size];
                    let st = spblkCsr2cscEx2(
                        h,
                        m as i32,
                        n as i32,
                        nnz as i32,
                        v,
                        rp,
                        ci,
                        cvp,
                        cpp,
                        rip,
                        vty,
                        action,
                        base,
                        1,
                        work.as_mut_ptr() as *mut _,
                    );
                    assert_eq!(st, 0, "{}", last_error());
                    if m == 0 || n == 0 {
                        continue;
                    }
                    // The reference CSC (stable sort by column) has rows increasing per column.
                    assert_eq!(
                        read_indices(SPBLK_INDEX_32I, &cp),
                        read_indices(SPBLK_INDEX_32I, &want.major),
                        "{m}x{n} {kind:?} col ptr"
                    );
                    assert_eq!(
                        read_indices(SPBLK_INDEX_32I, &ri),
                        read_indices(SPBLK_INDEX_32I, &want.minor),
                        "{m}x{n} {kind:?} row ind"
                    );
                    let got = read_values(vty, &cv);
                    if action == SPBLK_ACTION_NUMERIC {
                        assert_eq!(got, read_values(vty, &want.values), "{m}x{n} {kind:?} values");
                    } else {
                        assert!(got.iter().all(|&x| x == 0.5), "SYMBOLIC must not write values");
                    }
                }
            }
        }
    }
    spblkDestroy(h);
}

#[test]
fn shared_matrices_all_operations() {
    let Some(dir) = matrices_dir() else {
        eprintln!("SKIPPED: ../shared/matrices not found next to the repository");
        return;
    };
    let h = host_handle();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "mtx"))
        .collect();
    files.sort();
    assert!(files.len() >= 31, "expected the 31 shared matrices, found {}", files.len());
    let mut r = rng(6);
    for (f, path) in files.iter().enumerate() {
        let mut a = read_matrix_market(path, f as u64);
        // Scale to max |a_ij| = 1 so that f16 inputs stay finite (some files hold values > 65504).
        let max = a.entries.iter().fold(0.0f64, |m, e| m.max(e.2.abs()));
        if max > 0.0 {
            a.entries.iter_mut().for_each(|e| e.2 /= max);
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        spmv_case(h, &mut r, &a, &name);
        spmm_case(h, &mut r, &a, 4, &name);
        let s = setup(&mut r);
        sddmm_case(h, &mut r, &a, &s, &name);
        // A·Aᵀ-like product sizes stay modest: multiply by a thin random matrix.
        let b = random_matrix(&mut r, a.cols, 24, Kind::Uniform);
        spgemm_check(h, &mut r, &a, &b, &name);
    }
    spblkDestroy(h);
}

#[test]
fn beta_zero_overwrites_nan_and_alpha_zero_scales() {
    // alpha = 0, beta = 1 leaves C as it was; beta = 0 with NaN in C gives finite results.
    let h = host_handle();
    let mut r = rng(7);
    let a_m = random_matrix(&mut r, 20, 15, Kind::Uniform);
    let mut a = SparseArrays::new(&a_m, SPBLK_FORMAT_CSR, SPBLK_INDEX_32I, 0, SPBLK_R_64F);
    let xs: Vec<f64> = (0..15).map(|_| value(&mut r)).collect();
    let ys: Vec<f64> = (0..20).map(|_| value(&mut r)).collect();
    let (mut xb, mut yb) = (values_buf(SPBLK_R_64F, &xs), values_buf(SPBLK_R_64F, &ys));
    let (mut dx, mut dy) = (std::ptr::null_mut(), std::ptr::null_mut());
    assert_eq!(spblkCreateDnVec(&mut dx, 15, xb.ptr(), SPBLK_R_64F), 0);
    assert_eq!(spblkCreateDnVec(&mut dy, 20, yb.ptr(), SPBLK_R_64F), 0);
    let da = a.descr();
    let (zero, one) = (0.0f64, 1.0f64);
    let st = spblkSpMV(
        h,
        0,
        &zero as *const f64 as *const _,
        da,
        dx,
        &one as *const f64 as *const _,
        dy,
        SPBLK_R_64F,
        0,
        std::ptr::null_mut(),
    );
    assert_eq!(st, 0, "{}", last_error());
    assert_eq!(read_values(SPBLK_R_64F, &yb), ys);
    spblkDestroySpMat(da);
    spblkDestroyDnVec(dx);
    spblkDestroyDnVec(dy);
    spblkDestroy(h);
}
