//! `spblkAnalyze` with 1-SA through the C API on the host backend: the plan's statistics and
//! permutation, `SPBLK_SPMM_ALG_VBR` against CSR SpMM, the plan's lifetime (dropped by
//! `spblkCsrSetPointers`), and the versioned parameter struct.

mod common;

use common::*;
use rand::Rng;
use spblk::capi::analyze::*;
use spblk::capi::dense::*;
use spblk::capi::handle::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::types::*;
use std::ffi::c_void;
use std::ptr::null_mut;

/// A scrambled block-structured matrix: 8×8 blocks, half of them present, dense inside.
fn blocky(r: &mut rand::rngs::StdRng, blocks: usize) -> Triplets {
    let n = blocks * 8;
    let perm = rand::seq::index::sample(r, n, n).into_vec();
    let mut entries = Vec::new();
    for bi in 0..blocks {
        for bj in 0..blocks {
            if r.gen_bool(0.5) {
                for i in 0..8 {
                    for j in 0..8 {
                        entries.push((perm[bi * 8 + i], bj * 8 + j, value(r)));
                    }
                }
            }
        }
    }
    Triplets { rows: n, cols: n, entries }
}

fn params(block_width: i64, tau: f64) -> spblkAnalysisParams {
    // SAFETY-free zeroed start; the init function fills every field.
    let mut p = spblkAnalysisParams {
        structSize: 0,
        blockWidth: 0,
        tau: 0.0,
        similarity: 9,
        mergeRule: 9,
        maxGroupHeight: -1,
        halfCopies: 9,
        candidateBudget: 7,
    };
    assert_eq!(spblkAnalysisParamsInit(&mut p, std::mem::size_of::<spblkAnalysisParams>()), SPBLK_STATUS_SUCCESS);
    assert_eq!((p.blockWidth, p.mergeRule, p.maxGroupHeight, p.halfCopies), (64, SPBLK_MERGE_TWO_STEP, 0, 0));
    assert_eq!(p.candidateBudget, -1, "automatic candidate budget by default");
    p.blockWidth = block_width;
    p.tau = tau;
    p
}

fn info(d: spblkSpMatDescr_t) -> Result<spblkAnalysisInfo, u32> {
    let mut i = spblkAnalysisInfo { structSize: std::mem::size_of::<spblkAnalysisInfo>(), ..Default::default() };
    match spblkAnalysisGetInfo(d, &mut i) {
        0 => Ok(i),
        st => Err(st),
    }
}

/// C = A·op(B) with the given algorithm; returns C's values.
fn spmm(
    h: spblkHandle_t,
    a: spblkSpMatDescr_t,
    b: &mut Dense,
    c: &mut Dense,
    op_b: u32,
    comp: u32,
    alg: u32,
) -> Vec<f64> {
    let (alpha, beta) =
        (if comp == SPBLK_R_64F { 1.5f64.to_ne_bytes().to_vec() } else { 1.5f32.to_ne_bytes().to_vec() }, vec![0u8; 8]);
    let (db, dc) = (b.descr(), c.descr());
    let st = spblkSpMM(
        h,
        0,
        op_b,
        alpha.as_ptr() as *const c_void,
        a,
        db,
        beta.as_ptr() as *const c_void,
        dc,
        comp,
        alg,
        null_mut(),
    );
    assert_eq!(st, SPBLK_STATUS_SUCCESS, "{}", last_error());
    spblkDestroyDnMat(db);
    spblkDestroyDnMat(dc);
    c.to_f64()
}

#[test]
fn vbr_spmm_equals_csr_spmm_for_every_precision() {
    let h = host_handle();
    let mut r = rng(21);
    let m = blocky(&mut r, 12);
    for (in_t, out_t, comp) in [
        (SPBLK_R_32F, SPBLK_R_32F, SPBLK_R_32F),
        (SPBLK_R_64F, SPBLK_R_64F, SPBLK_R_64F),
        (SPBLK_R_16F, SPBLK_R_32F, SPBLK_R_32F),
        (SPBLK_R_16BF, SPBLK_R_16BF, SPBLK_R_32F),
    ] {
        for op_b in [SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_OPERATION_TRANSPOSE] {
            let mut a = SparseArrays::new(&m, SPBLK_FORMAT_CSR, SPBLK_INDEX_64I, 1, in_t);
            let da = a.descr();
            let p = params(8, 1.0);
            assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, &p), SPBLK_STATUS_SUCCESS, "{}", last_error());
            let st = info(da).unwrap();
            // With tau = 1 only rows of identical block patterns merge: the scrambled 8-row
            // blocks are recovered (groups of >= 8 rows, fully dense blocks).
            assert!(st.avgBlockHeight >= 7.9 && st.inBlockDensity > 0.99, "{st:?}");
            let mut perm = vec![-1i64; m.rows];
            assert_eq!(spblkAnalysisGetPermutation(da, perm.as_mut_ptr()), 0);
            let mut seen = perm.clone();
            seen.sort_unstable();
            assert_eq!(seen, (0..m.rows as i64).collect::<Vec<_>>(), "a permutation");
            let n = 7;
            let (br, bc) = if op_b == 0 { (m.cols, n) } else { (n, m.cols) };
            let mut b = Dense::new(&mut r, br, bc, SPBLK_ORDER_COL, in_t, 1, None);
            let mut c1 = Dense::new(&mut r, m.rows, n, SPBLK_ORDER_ROW, out_t, 0, Some(f64::NAN));
            let mut c2 = Dense::new(&mut r, m.rows, n, SPBLK_ORDER_ROW, out_t, 0, Some(f64::NAN));
            let vbr = spmm(h, da, &mut b, &mut c1, op_b, comp, SPBLK_SPMM_ALG_VBR);
            let csr = spmm(h, da, &mut b, &mut c2, op_b, comp, SPBLK_SPMM_ALG_DEFAULT);
            // Same products summed in another order: equal up to rounding.
            let scale: Vec<f64> = csr.iter().map(|x| 1.5 * 8.0 * 12.0 * x.abs().max(1.0)).collect();
            assert_close(&vbr, &csr, &scale, compute_tolerance(comp), out_t, &format!("VBR vs CSR {in_t} {op_b}"));
            assert_eq!(spblkDestroySpMat(da), 0);
        }
    }
    spblkDestroy(h);
}

#[test]
fn plan_lifetime_and_parameter_versions() {
    let h = host_handle();
    let mut r = rng(22);
    let m = blocky(&mut r, 6);
    let mut a = SparseArrays::new(&m, SPBLK_FORMAT_CSR, SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    let da = a.descr();
    assert_eq!(info(da).unwrap_err(), SPBLK_STATUS_INVALID_VALUE, "no plan yet");
    // NULL params: defaults.
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, std::ptr::null()), 0, "{}", last_error());
    assert!(info(da).unwrap().groups > 0);
    // An older, shorter struct (only structSize and blockWidth) gets defaults for the rest.
    #[repr(C)]
    struct V0 {
        size: usize,
        block_width: i64,
    }
    let old = V0 { size: std::mem::size_of::<V0>(), block_width: 8 };
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, &old as *const V0 as *const _), 0, "{}", last_error());
    let i = info(da).unwrap();
    assert!(i.avgBlockHeight >= 7.9, "{i:?}");
    // Bad parameters name themselves.
    let mut p = params(8, 1.5);
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, &p), SPBLK_STATUS_INVALID_VALUE);
    assert!(last_error().contains("params"), "{}", last_error());
    p.tau = 0.5;
    p.structSize = 0;
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, &p), SPBLK_STATUS_INVALID_VALUE);
    p.structSize = std::mem::size_of::<spblkAnalysisParams>();
    assert_eq!(spblkAnalyze(h, da, 42, &p), SPBLK_STATUS_INVALID_VALUE);
    assert!(info(da).is_ok(), "a failed analyze keeps the previous plan");
    // An ASpT analysis is another plan beside the 1-SA one.
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_ASPT, &p), SPBLK_STATUS_SUCCESS, "{}", last_error());
    assert!(info(da).is_ok(), "an ASpT analysis keeps the 1-SA plan");
    // New pointers invalidate the plan; VBR then refuses to run.
    let (off, col, val) = (a.major.ptr(), a.minor.ptr(), a.values.ptr());
    assert_eq!(spblkCsrSetPointers(da, off, col, val), 0);
    assert_eq!(info(da).unwrap_err(), SPBLK_STATUS_INVALID_VALUE);
    let mut b = Dense::new(&mut r, m.cols, 3, SPBLK_ORDER_ROW, SPBLK_R_32F, 0, None);
    let mut c = Dense::new(&mut r, m.rows, 3, SPBLK_ORDER_ROW, SPBLK_R_32F, 0, None);
    let (db, dc) = (b.descr(), c.descr());
    let one = 1.0f32;
    let st = spblkSpMM(
        h,
        0,
        0,
        &one as *const f32 as *const _,
        da,
        db,
        &one as *const f32 as *const _,
        dc,
        0,
        SPBLK_SPMM_ALG_VBR,
        null_mut(),
    );
    assert_eq!(st, SPBLK_STATUS_INVALID_VALUE);
    assert!(last_error().contains("spblkAnalyze"), "{}", last_error());
    // Half copies on request.
    p.halfCopies = SPBLK_VBR_COPY_F16 | SPBLK_VBR_COPY_BF16;
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, &p), 0, "{}", last_error());
    p.halfCopies = 8;
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, &p), SPBLK_STATUS_INVALID_VALUE);
    p.halfCopies = 0;
    // Exact search (budget 0) and the automatic budget agree where the budget is not hit.
    p.candidateBudget = 0;
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, &p), 0, "{}", last_error());
    let exact = info(da).unwrap();
    p.candidateBudget = -1;
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, &p), 0, "{}", last_error());
    let auto = info(da).unwrap();
    assert_eq!((exact.groups, exact.nonzeroBlocks), (auto.groups, auto.nonzeroBlocks));
    p.candidateBudget = -2;
    assert_eq!(spblkAnalyze(h, da, SPBLK_ANALYSIS_1SA, &p), SPBLK_STATUS_INVALID_VALUE);
    for d in [db, dc] {
        spblkDestroyDnMat(d);
    }
    assert_eq!(spblkDestroySpMat(da), 0);
    assert_eq!(spblkDestroy(h), 0);
}
