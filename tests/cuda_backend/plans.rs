//! Plans and honest dispatch, on both backends (the host half runs everywhere, the CUDA half
//! where a GPU is; both are in this binary so that the GPU check runs them together):
//! preprocess builds a plan once and later calls reuse it, replacing pointers or values drops
//! it, destroying the descriptor frees it, and every (operation, algorithm) pair runs the
//! method it names (seen in the call's trace record) and matches the reference, or is
//! NOT_SUPPORTED.
//!
//! Values are small integers in f64, so every summation order gives the same bits and the
//! reference is exact.

use std::ffi::c_void;

use spblk::capi::dense::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::spgemm::*;
use spblk::capi::types::*;
use spblk::trace::{self, Record};

use crate::problem::*;
use crate::support::*;

const N: spblkOperation_t = SPBLK_OPERATION_NON_TRANSPOSE;
const T: spblkOperation_t = SPBLK_OPERATION_TRANSPOSE;
const F64: spblkDataType_t = SPBLK_R_64F;

/// The conversion step of a backend: the offsets kernel that follows the radix sort, or the
/// host's counting sort.
fn conversions(records: &[Record]) -> u32 {
    records.iter().map(|r| r.launches("spblk_convert_offsets") + r.launches("host:convert")).sum()
}

/// Preprocess once, then ten calls: the conversion of a CSC, COO or transposed operand runs
/// once (in the preprocess), each call only gathers the current values; values changed in
/// place are seen by the next call; without a preprocess every call converts.
fn plan_is_reused(kind: Kind) {
    let p = Problem::new(31, 300, 200);
    for (format, op) in [(SPBLK_FORMAT_CSC, N), (SPBLK_FORMAT_COO, N), (SPBLK_FORMAT_CSR, T), (SPBLK_FORMAT_COO, T)] {
        let what = format!("{kind:?} format {format} op {op}");
        let mut side = Side::new(kind);
        let sp = p.sp(32, format);
        let x = ints(&mut rng(33), if op == N { p.k } else { p.m });
        let call = Spmv::new(&mut side, &sp, op, &x);
        let h = side.handle;
        let alg = SPBLK_SPMV_ALG_DEFAULT;
        let (st, size) = call.size(h, op, alg);
        ok(st, "bufferSize");
        let buf = side.buffer(size);
        let ((), records) = trace::capture(|| {
            call.preprocess(h, op, alg, buf);
            for _ in 0..10 {
                ok(call.run(h, op, alg, buf), "spblkSpMV");
            }
        });
        assert_eq!(records.len(), 11, "{what}: one record per call");
        assert_eq!(conversions(&records), 1, "{what}: the conversion must run once over preprocess + 10 calls");
        assert_eq!(conversions(&records[..1]), 1, "{what}: the preprocess converts");
        for r in &records[1..] {
            assert_eq!(r.launches("spblk_convert_values") + r.launches("host:gather_values"), 1, "{what}: {r:?}");
        }
        assert_eq!(call.result(&side), p.apply(op, &p.vals, &x), "{what}: result with the plan");
        // bufferSize does not depend on the plan: the plan may be dropped (SetValues, below)
        // and the next call then needs the whole workspace.
        let (_, planned) = call.size(h, op, alg);
        assert_eq!(planned, size, "{what}: bufferSize with a plan");

        // New values written in place, through the same pointer: the plan holds none.
        let doubled: Vec<f64> = sp_values(&sp).iter().map(|v| 2.0 * v).collect();
        write_back(&side, values_ptr(call.a), &encode(&doubled, F64));
        let vals_now: Vec<f64> = p.vals.iter().map(|v| 2.0 * v).collect();
        ok(call.run(h, op, alg, buf), "spblkSpMV after changing values in place");
        assert_eq!(call.result(&side), p.apply(op, &vals_now, &x), "{what}: values changed in place");

        // Without a preprocess (a fresh descriptor), every call converts.
        let fresh = Spmv::new(&mut side, &sp, op, &x);
        let ((), records) = trace::capture(|| {
            for _ in 0..3 {
                ok(fresh.run(h, op, alg, buf), "spblkSpMV without preprocess");
            }
        });
        assert_eq!(conversions(&records), 3, "{what}: without a plan each call converts");
    }
}

/// The values array of a descriptor as stored (the test's own copy, in storage order).
fn sp_values(sp: &Sp) -> Vec<f64> {
    f64s(&sp.v)
}

/// The descriptor's values pointer.
fn values_ptr(d: spblkSpMatDescr_t) -> *mut c_void {
    let mut v = std::ptr::null_mut();
    ok(spblkSpMatGetValues(d, &mut v), "spblkSpMatGetValues");
    v
}

/// Overwrites memory of the side in place.
fn write_back(side: &Side, p: *mut c_void, bytes: &[u8]) {
    match side.kind {
        // SAFETY: p is the side's allocation of the descriptor's values (bytes.len() bytes).
        Kind::Host => unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, bytes.len()) },
        Kind::Cuda => {
            use cudarc::driver::sys;
            // SAFETY: device allocation of at least bytes.len() bytes.
            let r = unsafe { sys::cuMemcpyHtoD_v2(p as u64, bytes.as_ptr() as *const c_void, bytes.len()) };
            assert_eq!(r, sys::CUresult::CUDA_SUCCESS);
        }
    }
}

/// `spblkSpMatSetValues` and `spblkCsrSetPointers` drop the plan: the next call converts
/// again (and a new preprocess builds a new plan, once).
fn replacing_arrays_drops_the_plan(kind: Kind) {
    let p = Problem::new(41, 120, 90);
    let mut side = Side::new(kind);
    let sp = p.sp(42, SPBLK_FORMAT_CSR);
    let x = ints(&mut rng(43), p.m);
    let call = Spmv::new(&mut side, &sp, T, &x);
    let (h, alg) = (side.handle, SPBLK_SPMV_CSR_ALG2);
    let (st, size) = call.size(h, T, alg);
    ok(st, "bufferSize");
    let buf = side.buffer(size);
    call.preprocess(h, T, alg, buf);
    let converts_next = |call: &Spmv| {
        let (st, records) = trace::capture(|| call.run(h, T, alg, buf));
        ok(st, "spblkSpMV");
        conversions(&records)
    };
    assert_eq!(converts_next(&call), 0, "{kind:?}: the plan serves the call");

    let doubled: Vec<f64> = sp_values(&sp).iter().map(|v| 2.0 * v).collect();
    let v2 = side.put(&encode(&doubled, F64));
    ok(spblkSpMatSetValues(call.a, v2), "spblkSpMatSetValues");
    assert_eq!(converts_next(&call), 1, "{kind:?}: SetValues must drop the plan");
    let want: Vec<f64> = p.vals.iter().map(|v| 2.0 * v).collect();
    assert_eq!(call.result(&side), p.apply(T, &want, &x), "{kind:?}: new values");

    call.preprocess(h, T, alg, buf);
    call.preprocess(h, T, alg, buf);
    assert_eq!(converts_next(&call), 0, "{kind:?}: a new preprocess builds a new plan");

    let (a, b) = (side.put(&sp.a), side.put(&sp.b));
    ok(spblkCsrSetPointers(call.a, a, b, v2), "spblkCsrSetPointers");
    assert_eq!(converts_next(&call), 1, "{kind:?}: CsrSetPointers must drop the plan");
}

/// Every SpMV and SpMM algorithm value on every format: the method the dispatch table names
/// runs (its kernels are in the record) and the result is exact, or the status is
/// NOT_SUPPORTED (never success with another method); out-of-range values are INVALID_VALUE.
fn every_algorithm_runs_its_method(kind: Kind) {
    let p = Problem::new(51, 150, 110);
    let formats = [SPBLK_FORMAT_CSR, SPBLK_FORMAT_CSC, SPBLK_FORMAT_COO];
    for format in formats {
        let sp = p.sp(52, format);
        for alg in (0..=7u32).chain(100..=104) {
            let what = format!("{kind:?} SpMV format {format} alg {alg}");
            let mut side = Side::new(kind);
            let x = ints(&mut rng(53), p.k);
            let call = Spmv::new(&mut side, &sp, N, &x);
            let coo = format == SPBLK_FORMAT_COO;
            // (method, its kernel on CUDA)
            let expected = match alg {
                SPBLK_SPMV_ALG_DEFAULT => Some(("CsrRows", "spblk_spmv_csr_vector")),
                SPBLK_SPMV_CSR_ALG1 | SPBLK_SPMV_CSR_ALG2 if !coo => Some(("CsrRows", "spblk_spmv_csr_vector")),
                SPBLK_SPMV_COO_ALG1 | SPBLK_SPMV_COO_ALG2 if coo => Some(("CsrRows", "spblk_spmv_csr_vector")),
                SPBLK_SPMV_ALG_CSR_MERGE if !coo => Some(("CsrMerge", "spblk_spmv_merge_tiles")),
                SPBLK_SPMV_ALG_CSR_SCALAR if !coo => Some(("CsrScalar", "spblk_spmv_csr_scalar")),
                SPBLK_SPMV_ALG_CSR_VECTOR if !coo => Some(("CsrVector", "spblk_spmv_csr_warp")),
                SPBLK_SPMV_ALG_CSR_ROWS if !coo => Some(("CsrRows", "spblk_spmv_csr_vector")),
                _ => None,
            };
            let (st, size) = call.size(side.handle, N, alg);
            let buf = side.buffer(size);
            let (run, records) = trace::capture(|| call.run(side.handle, N, alg, buf));
            match expected {
                Some((method, kernel)) => {
                    ok(st, &what);
                    ok(run, &what);
                    assert_eq!(records[0].method, method, "{what}");
                    let k = records[0].launches(kernel) + records[0].launches("host:spmm_rows");
                    assert_eq!(k, 1, "{what}: the method's kernel must run once: {:?}", records[0]);
                    assert_eq!(call.result(&side), p.apply(N, &p.vals, &x), "{what}");
                }
                None => {
                    let want = if alg <= SPBLK_SPMV_BSR_ALG1
                        || (SPBLK_SPMV_ALG_CSR_SCALAR..=SPBLK_SPMV_ALG_CSR_MERGE).contains(&alg)
                    {
                        SPBLK_STATUS_NOT_SUPPORTED
                    } else {
                        SPBLK_STATUS_INVALID_VALUE
                    };
                    assert_eq!(st, want, "{what}: bufferSize: {}", last_message());
                    assert_eq!(run, want, "{what}: {}", last_message());
                    assert!(records[0].kernels.is_empty(), "{what}: nothing may run: {:?}", records[0]);
                }
            }
        }
    }
    let all_spmm = [0u32, 1, 2, 3, 4, 5, 6, 12, 13, 14, 100, 101, 102, 103, 104, 7, 99];
    for format in formats {
        let sp = p.sp(54, format);
        for alg in all_spmm {
            for analysed in [false, true] {
                let vbr = (SPBLK_SPMM_ALG_VBR..=SPBLK_SPMM_ALG_VBR_TF32).contains(&alg) && format == SPBLK_FORMAT_CSR;
                let planned = [SPBLK_SPMM_ALG_RODE, SPBLK_SPMM_ALG_ASPT, SPBLK_SPMM_ALG_CSR_SWEEP].contains(&alg);
                if analysed && !vbr && !planned {
                    continue;
                }
                spmm_case(kind, &p, &sp, format, alg, analysed);
            }
        }
    }
}

fn spmm_case(kind: Kind, p: &Problem, sp: &Sp, format: spblkFormat_t, alg: u32, analysed: bool) {
    let what = format!("{kind:?} SpMM format {format} alg {alg} analysed {analysed}");
    let n = 5usize;
    let mut side = Side::new(kind);
    let h = side.handle;
    let a = sp.descr(&mut side);
    let preprocessed = [SPBLK_SPMM_ALG_RODE, SPBLK_SPMM_ALG_ASPT, SPBLK_SPMM_ALG_CSR_SWEEP].contains(&alg);
    if analysed && !preprocessed {
        ok(spblk::capi::analyze::spblkAnalyze(h, a, SPBLK_ANALYSIS_1SA, std::ptr::null()), "spblkAnalyze");
    }
    let bvals = ints(&mut rng(55), p.k * n);
    let (bp, cp) = (side.put(&encode(&bvals, F64)), side.put(&encode(&vec![f64::NAN; p.m * n], F64)));
    let (mut b, mut c) = (std::ptr::null_mut(), std::ptr::null_mut());
    ok(spblkCreateDnMat(&mut b, p.k as i64, n as i64, n as i64, bp, F64, SPBLK_ORDER_ROW), "B");
    ok(spblkCreateDnMat(&mut c, p.m as i64, n as i64, n as i64, cp, F64, SPBLK_ORDER_ROW), "C");
    let alpha = side.scalar(false, &scalar_bytes(1.0, F64));
    let beta = side.scalar(false, &scalar_bytes(0.0, F64));
    let csr_family = [SPBLK_SPMM_CSR_ALG1, SPBLK_SPMM_CSR_ALG2, SPBLK_SPMM_CSR_ALG3];
    let coo_family = [SPBLK_SPMM_COO_ALG1, SPBLK_SPMM_COO_ALG2, SPBLK_SPMM_COO_ALG3, SPBLK_SPMM_COO_ALG4];
    let expected: Result<&str, spblkStatus_t> = match alg {
        SPBLK_SPMM_ALG_DEFAULT => Ok("CsrRows"),
        a if csr_family.contains(&a) && format != SPBLK_FORMAT_COO => Ok("CsrRows"),
        a if coo_family.contains(&a) && format == SPBLK_FORMAT_COO => Ok("CsrRows"),
        // f64: the host runs VBR; CUDA has no f64 tensor-core path, and TF32 needs f32.
        SPBLK_SPMM_ALG_VBR if analysed && (kind == Kind::Host || harness_on_host()) => Ok("Vbr"),
        SPBLK_SPMM_ALG_VBR | SPBLK_SPMM_ALG_VBR_TF32 if !analysed => Err(SPBLK_STATUS_INVALID_VALUE),
        // Any format; the plan comes from the preprocess (below), and without it the product
        // (not bufferSize) is INVALID_VALUE.
        SPBLK_SPMM_ALG_RODE if analysed => Ok("Rode"),
        SPBLK_SPMM_ALG_RODE => Err(SPBLK_STATUS_INVALID_VALUE),
        // CSR with op(A) = A only; the plan as RoDe's.
        SPBLK_SPMM_ALG_ASPT if format != SPBLK_FORMAT_CSR => Err(SPBLK_STATUS_NOT_SUPPORTED),
        SPBLK_SPMM_ALG_ASPT if analysed => Ok("Aspt"),
        SPBLK_SPMM_ALG_ASPT => Err(SPBLK_STATUS_INVALID_VALUE),
        // Any format, the plan as RoDe's.
        SPBLK_SPMM_ALG_CSR_SWEEP if analysed => Ok("CsrSweep"),
        SPBLK_SPMM_ALG_CSR_SWEEP => Err(SPBLK_STATUS_INVALID_VALUE),
        7 | 99 => Err(SPBLK_STATUS_INVALID_VALUE),
        _ => Err(SPBLK_STATUS_NOT_SUPPORTED),
    };
    let mut size = 0usize;
    let st = spblkSpMM_bufferSize(h, N, N, alpha, a, b, beta, c, F64, alg, &mut size);
    let buf = side.buffer(size);
    if analysed && preprocessed && expected.is_ok() {
        ok(spblkSpMM_preprocess(h, N, N, alpha, a, b, beta, c, F64, alg, buf), "spblkSpMM_preprocess");
    }
    let (run, records) = trace::capture(|| spblkSpMM(h, N, N, alpha, a, b, beta, c, F64, alg, buf));
    match expected {
        Ok(method) => {
            ok(st, &what);
            ok(run, &what);
            assert_eq!(records[0].method, method, "{what}");
            let kernels = if method == "Vbr" {
                records[0].launches("host:vbr_spmm")
            } else if method == "Rode" {
                records[0].launches("spblk_spmm_rode_rows_") + records[0].launches("host:spmm_rode")
            } else if method == "Aspt" {
                records[0].launches("spblk_spmm_aspt_") + records[0].launches("host:spmm_aspt")
            } else if method == "CsrSweep" {
                records[0].launches("spblk_spmm_sweep_") + records[0].launches("host:spmm_rows")
            } else {
                records[0].launches("spblk_spmm_csr_v") + records[0].launches("host:spmm_rows")
            };
            assert_eq!(kernels, 1, "{what}: {:?}", records[0]);
            side.sync();
            let got = f64s(&side.get(cp, p.m * n * 8));
            let mut want = vec![0.0; p.m * n];
            for (&(i, j), v) in p.entries.iter().zip(&p.vals) {
                for l in 0..n {
                    want[i * n + l] += v * bvals[j * n + l];
                }
            }
            assert_eq!(got, want, "{what}");
        }
        Err(status) => {
            let sized =
                if status == SPBLK_STATUS_INVALID_VALUE && preprocessed { SPBLK_STATUS_SUCCESS } else { status };
            assert_eq!(st, sized, "{what}: bufferSize: {}", last_message());
            assert_eq!(run, status, "{what}: {}", last_message());
            assert!(records[0].kernels.is_empty(), "{what}: nothing may run: {:?}", records[0]);
        }
    }
    spblkDestroySpMat(a);
    spblkDestroyDnMat(b);
    spblkDestroyDnMat(c);
}

/// SDDMM's and SpGEMM's algorithm values: SDDMM DEFAULT (no preprocess) streams, ASPT is
/// INVALID_VALUE without its plan and runs ASpT after its preprocess, both exact; other values
/// INVALID_VALUE. SpGEMM DEFAULT, ALG1 and the CSR_ALG values run the binned-hash method,
/// ALG2 it in buffer 2, ALG3 in passes (buffer 2 from estimateMemory), all giving A·A exactly;
/// out-of-range values INVALID_VALUE.
fn sddmm_and_spgemm_algorithms(kind: Kind) {
    let p = Problem::new(61, 90, 90);
    let sp = p.sp(62, SPBLK_FORMAT_CSR);
    for alg in [SPBLK_SDDMM_ALG_DEFAULT, 1, 9, SPBLK_SDDMM_ALG_ASPT] {
        let what = format!("{kind:?} SDDMM alg {alg}");
        let mut side = Side::new(kind);
        let h = side.handle;
        let kk = 7usize;
        let c = sp.descr(&mut side);
        let (av, bv) = (ints(&mut rng(63), p.m * kk), ints(&mut rng(64), kk * p.k));
        let (ap, bp) = (side.put(&encode(&av, F64)), side.put(&encode(&bv, F64)));
        let (mut a, mut b) = (std::ptr::null_mut(), std::ptr::null_mut());
        ok(spblkCreateDnMat(&mut a, p.m as i64, kk as i64, kk as i64, ap, F64, SPBLK_ORDER_ROW), "A");
        ok(spblkCreateDnMat(&mut b, kk as i64, p.k as i64, p.k as i64, bp, F64, SPBLK_ORDER_ROW), "B");
        let alpha = side.scalar(false, &scalar_bytes(1.0, F64));
        let beta = side.scalar(false, &scalar_bytes(0.0, F64));
        // B row-major: the CUDA backend copies it column-major into the buffer first.
        let mut size = 0usize;
        let sized = spblkSDDMM_bufferSize(h, N, N, alpha, a, b, beta, c, F64, alg, &mut size);
        let buf = side.buffer(if sized == SPBLK_STATUS_SUCCESS { size } else { 0 });
        let call = || trace::capture(|| spblkSDDMM(h, N, N, alpha, a, b, beta, c, F64, alg, buf));
        let (mut st, mut records) = call();
        if alg == SPBLK_SDDMM_ALG_ASPT {
            assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "{what}: without a plan");
            assert!(last_message().contains("no ASpT plan"), "{what}: {}", last_message());
            ok(spblkSDDMM_preprocess(h, N, N, alpha, a, b, beta, c, F64, alg, buf), &what);
            (st, records) = call();
        }
        if alg == SPBLK_SDDMM_ALG_DEFAULT || alg == SPBLK_SDDMM_ALG_ASPT {
            ok(st, &what);
            let (method, kernels) = if alg == SPBLK_SDDMM_ALG_DEFAULT {
                ("CsrEntries", ["spblk_sddmm_csr", "host:sddmm_entries"])
            } else {
                ("Aspt", ["spblk_sddmm_aspt", "host:sddmm_aspt"])
            };
            assert_eq!(records[0].method, method, "{what}");
            let k = records[0].launches(kernels[0]) + records[0].launches(kernels[1]);
            assert_eq!(k, 1, "{what}: {:?}", records[0]);
            side.sync();
            let got = f64s(&side.get(values_ptr(c), p.entries.len() * 8));
            // Row-grouped entries: CSR stores them in `entries` order.
            let want: Vec<f64> =
                p.entries.iter().map(|&(i, j)| (0..kk).map(|l| av[i * kk + l] * bv[l * p.k + j]).sum()).collect();
            assert_eq!(got, want, "{what}");
        } else {
            assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "{what}: {}", last_message());
        }
        spblkDestroySpMat(c);
        spblkDestroyDnMat(a);
        spblkDestroyDnMat(b);
    }
    for alg in 0..=6u32 {
        let what = format!("{kind:?} SpGEMM alg {alg}");
        let mut side = Side::new(kind);
        let h = side.handle;
        let a = sp.descr(&mut side);
        let c_off = side.put(&vec![0u8; (p.m + 1) * 4]);
        let mut c = std::ptr::null_mut();
        let null = std::ptr::null_mut();
        let st = spblkCreateCsr(
            &mut c,
            p.m as i64,
            p.k as i64,
            0,
            c_off,
            null,
            null,
            SPBLK_INDEX_32I,
            SPBLK_INDEX_32I,
            0,
            F64,
        );
        ok(st, "C");
        let alpha = side.scalar(false, &scalar_bytes(1.0, F64));
        let beta = side.scalar(false, &scalar_bytes(0.0, F64));
        let mut d = std::ptr::null_mut();
        ok(spblkSpGEMM_createDescr(&mut d), "createDescr");
        let mut s1 = 0usize;
        let (st, records) =
            trace::capture(|| spblkSpGEMM_workEstimation(h, N, N, alpha, a, a, beta, c, F64, alg, d, &mut s1, null));
        let want = if alg <= 5 { SPBLK_STATUS_SUCCESS } else { SPBLK_STATUS_INVALID_VALUE };
        assert_eq!(st, want, "{what}: {}", last_message());
        if want == SPBLK_STATUS_SUCCESS {
            let method = match alg {
                SPBLK_SPGEMM_ALG2 => "BinnedHashInBuffer",
                SPBLK_SPGEMM_ALG3 => "BinnedHashInChunks",
                _ => "BinnedHash",
            };
            assert_eq!(records[0].method, method, "{what}");
            let b1 = side.buffer(s1);
            ok(spblkSpGEMM_workEstimation(h, N, N, alpha, a, a, beta, c, F64, alg, d, &mut s1, b1), &what);
            let mut s2 = 0usize;
            if alg == SPBLK_SPGEMM_ALG3 {
                let (mut s3, b3) = (1usize, side.buffer(1));
                let st =
                    spblkSpGEMM_estimateMemory(h, N, N, alpha, a, a, beta, c, F64, alg, d, 0.5, &mut s3, b3, &mut s2);
                ok(st, &what);
            } else {
                ok(spblkSpGEMM_compute(h, N, N, alpha, a, a, beta, c, F64, alg, d, &mut s2, null), &what);
            }
            let b2 = side.buffer(s2);
            ok(spblkSpGEMM_compute(h, N, N, alpha, a, a, beta, c, F64, alg, d, &mut s2, b2), &what);
            let (mut rr, mut cc, mut nnz) = (0, 0, 0);
            ok(spblkSpMatGetSize(c, &mut rr, &mut cc, &mut nnz), "size");
            let (cols, vals) = (side.put(&vec![0u8; nnz as usize * 4]), side.put(&vec![0u8; nnz as usize * 8]));
            ok(spblkCsrSetPointers(c, c_off, cols, vals), "set");
            ok(spblkSpGEMM_copy(h, N, N, alpha, a, a, beta, c, F64, alg, d), &what);
            side.sync();
            let off = idx_decode(&side.get(c_off, (p.m + 1) * 4), SPBLK_INDEX_32I);
            let col = idx_decode(&side.get(cols, nnz as usize * 4), SPBLK_INDEX_32I);
            let val = f64s(&side.get(vals, nnz as usize * 8));
            let mut dense = vec![0.0; p.m * p.k];
            for i in 0..p.m {
                for q in off[i] as usize..off[i + 1] as usize {
                    dense[i * p.k + col[q] as usize] += val[q];
                }
            }
            let mut want = vec![0.0; p.m * p.k];
            for (&(i, l), v) in p.entries.iter().zip(&p.vals) {
                for (&(l2, j), w) in p.entries.iter().zip(&p.vals) {
                    if l2 == l {
                        want[i * p.k + j] += v * w;
                    }
                }
            }
            assert_eq!(dense, want, "{what}");
        }
        ok(spblkSpGEMM_destroyDescr(d), "destroyDescr");
        spblkDestroySpMat(a);
        spblkDestroySpMat(c);
    }
}

/// C = A B with `SPBLK_SPMM_ALG_DEFAULT` (f64 unless told, row-major, alpha 1, beta 0) for the
/// default's choices: every call's result is checked exactly and its record returned.
struct DefaultSpmm {
    side: Side,
    what: String,
    vt: spblkDataType_t,
    a: spblkSpMatDescr_t,
    b: spblkDnMatDescr_t,
    c: spblkDnMatDescr_t,
    cp: *mut c_void,
    scalars: (*const c_void, *const c_void),
    buf: *mut c_void,
    want: Vec<f64>,
}

impl DefaultSpmm {
    fn new(kind: Kind, p: &Problem, n: usize, seed: u64, what: String) -> Self {
        Self::of_type(kind, p, n, seed, what, F64)
    }
    /// With values, computation and results of type `vt` (small integers: exact in any type).
    fn of_type(kind: Kind, p: &Problem, n: usize, seed: u64, what: String, vt: spblkDataType_t) -> Self {
        let mut side = Side::new(kind);
        let a = p.sp_of(seed, SPBLK_FORMAT_CSR, vt).descr(&mut side);
        let bvals = ints(&mut rng(seed + 1), p.k * n);
        let (bp, cp) = (side.put(&encode(&bvals, vt)), side.put(&encode(&vec![0.0; p.m * n], vt)));
        let (mut b, mut c) = (std::ptr::null_mut(), std::ptr::null_mut());
        ok(spblkCreateDnMat(&mut b, p.k as i64, n as i64, n as i64, bp, vt, SPBLK_ORDER_ROW), "B");
        ok(spblkCreateDnMat(&mut c, p.m as i64, n as i64, n as i64, cp, vt, SPBLK_ORDER_ROW), "C");
        let scalars = (side.scalar(false, &scalar_bytes(1.0, vt)), side.scalar(false, &scalar_bytes(0.0, vt)));
        let mut want = vec![0.0; p.m * n];
        for (&(i, j), v) in p.entries.iter().zip(&p.vals) {
            for l in 0..n {
                want[i * n + l] += v * bvals[j * n + l];
            }
        }
        let mut f = DefaultSpmm { side, what, vt, a, b, c, cp, scalars, buf: std::ptr::null_mut(), want };
        let size = f.size();
        f.buf = f.side.buffer(size);
        f
    }
    fn size(&self) -> usize {
        let mut size = 0usize;
        let (alpha, beta) = self.scalars;
        let (h, alg, vt) = (self.side.handle, SPBLK_SPMM_ALG_DEFAULT, self.vt);
        ok(spblkSpMM_bufferSize(h, N, N, alpha, self.a, self.b, beta, self.c, vt, alg, &mut size), "bufferSize");
        size
    }
    fn preprocess(&self) -> Record {
        let (alpha, beta) = self.scalars;
        let (h, alg, vt) = (self.side.handle, SPBLK_SPMM_ALG_DEFAULT, self.vt);
        let (a, b, c, buf) = (self.a, self.b, self.c, self.buf);
        let (st, mut records) = trace::capture(|| spblkSpMM_preprocess(h, N, N, alpha, a, b, beta, c, vt, alg, buf));
        ok(st, "preprocess");
        records.remove(0)
    }
    fn run(&mut self, stage: &str) -> Record {
        let (alpha, beta) = self.scalars;
        let (h, alg, vt) = (self.side.handle, SPBLK_SPMM_ALG_DEFAULT, self.vt);
        let (a, b, c, buf) = (self.a, self.b, self.c, self.buf);
        let (st, mut records) = trace::capture(|| spblkSpMM(h, N, N, alpha, a, b, beta, c, vt, alg, buf));
        ok(st, &self.what);
        self.side.sync();
        let got = decode(&self.side.get(self.cp, self.want.len() * vsize(vt)), vt);
        assert_eq!(got, self.want, "{} {stage}", self.what);
        records.remove(0)
    }
}

impl Drop for DefaultSpmm {
    fn drop(&mut self) {
        spblkDestroySpMat(self.a);
        spblkDestroyDnMat(self.b);
        spblkDestroyDnMat(self.c);
    }
}

/// `SPBLK_SPMM_ALG_DEFAULT` on a small matrix with rows over 256 entries: without a
/// preprocess the row method runs; the preprocess builds a RoDe plan, after which the default
/// runs RoDe (same bufferSize, exact result). With one row long enough to need more than 64
/// segments (an arrow), the default keeps the row method even after the preprocess.
fn default_takes_rode_where_predicted(kind: Kind) {
    for (long_len, rode) in [(600usize, true), (5000, false)] {
        let what = format!("{kind:?} default SpMM, longest row {long_len}");
        let (m, k, n) = (300usize, 6000usize, 8usize);
        let mut r = rng(71);
        let mut entries = Vec::new();
        for i in 0..m {
            let len = if i % 97 == 5 { long_len } else { i % 9 };
            let step = k / len.max(1);
            entries.extend((0..len).map(|q| (i, q * step + i % step.max(1))));
        }
        let vals = (0..entries.len()).map(|_| rand::Rng::gen_range(&mut r, -4..=4) as f64).collect();
        let p = Problem { m, k, entries, vals };
        let mut f = DefaultSpmm::new(kind, &p, n, 72, what.clone());
        let before = f.size();
        assert_eq!(f.run("before the preprocess").method, "CsrRows", "{what}: no plan, no RoDe");
        f.preprocess();
        assert_eq!(f.size(), before, "{what}: bufferSize must not depend on the plan");
        let method = f.run("after the preprocess").method;
        assert_eq!(method, if rode { "Rode" } else { "CsrRows" }, "{what}");
    }
}

/// (dense entries, entries, dense columns) from a note "... D of E entries in C dense columns ...".
fn aspt_counts(record: &Record, prefix: &str) -> Option<(u64, u64, u64)> {
    let note = record.notes.iter().find(|n| n.starts_with(prefix))?;
    let words: Vec<&str> = note.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let w = words.windows(4).position(|x| x[1] == "of" && x[3] == "entries")?;
    let num = |i: usize| words[i].parse::<u64>().ok();
    Some((num(w)?, num(w + 2)?, num(w + 5)?))
}

/// `SPBLK_SPMM_ALG_DEFAULT` on scrambled 32-row blocks of more than 2^20 entries (each dense
/// column used by about 19 of a panel's rows) and on random rows (a column used by 0.3 rows of
/// a panel). The CUDA default's preprocess estimates the ASpT plan from N = 64 (here from every
/// panel, so exactly the plan's counts), once, and builds the plans where the model predicts a
/// win: the blocks at N = 64, then run by ASpT (same bufferSize, exact results); the host's
/// builds none. After `spblkAnalyze(SPBLK_ANALYSIS_ASPT)` both backends run ASpT there, the
/// row method at N = 32 and on random rows.
fn default_takes_aspt_where_predicted(kind: Kind) {
    for (blocks, n, aspt) in [(true, 64usize, true), (true, 32, false), (false, 64, false)] {
        let what = format!("{kind:?} default SpMM, blocks {blocks}, n {n}");
        let (m, k) = (4096usize, if blocks { 4096usize } else { 32768 });
        let mut r = rng(91);
        let entries = if blocks {
            crate::sddmm::scrambled_blocks(&mut r, (m, k), 32, 16, 0.6, 0)
        } else {
            // 300 random columns of 32768 a row: a column is used by 0.3 rows of a panel.
            let mut e: Vec<(usize, usize)> = (0..m)
                .flat_map(|i| (0..300).map(|_| (i, rand::Rng::gen_range(&mut r, 0..k))).collect::<Vec<_>>())
                .collect();
            e.sort_unstable();
            e.dedup();
            e
        };
        assert!(entries.len() >= 1 << 20, "{what}: {} entries", entries.len());
        let vals = (0..entries.len()).map(|_| rand::Rng::gen_range(&mut r, -4..=4) as f64).collect();
        let p = Problem { m, k, entries, vals };
        let mut f = DefaultSpmm::new(kind, &p, n, 92, what.clone());
        let before = f.size();
        let method = |f: &mut DefaultSpmm, stage: &str| {
            let record = f.run(stage);
            let kernels = record.launches("spblk_spmm_aspt_") + record.launches("host:spmm_aspt");
            assert_eq!(kernels, u32::from(record.method == "Aspt"), "{what} {stage}: {record:?}");
            record.method
        };
        assert_eq!(method(&mut f, "before the preprocess"), "CsrRows", "{what}: no plan, no ASpT");
        let cuda = matches!(kind, Kind::Cuda) && !harness_on_host();
        let record = f.preprocess();
        let (estimated, built) =
            (record.launches("spblk_aspt_spmm_estimate_"), record.launches("spblk_aspt_spmm_marks"));
        assert_eq!(estimated, u32::from(cuda && n >= 64), "{what}: estimates in the preprocess: {record:?}");
        assert_eq!(built, u32::from(cuda && aspt), "{what}: plans built by the preprocess: {record:?}");
        if cuda && aspt {
            let estimate = aspt_counts(&record, "ASpT SpMM estimate:");
            assert_eq!(
                estimate,
                aspt_counts(&record, "ASpT SpMM plan:"),
                "{what}: estimate of every panel: {record:?}"
            );
            assert!(estimate.is_some_and(|(d, e, _)| d > 0 && e == p.entries.len() as u64), "{what}: {record:?}");
        }
        let again = f.preprocess();
        assert_eq!(again.launches("spblk_aspt_"), 0, "{what}: a second preprocess estimates again: {again:?}");
        let after = if cuda && aspt { "Aspt" } else { "CsrRows" };
        assert_eq!(method(&mut f, "after the preprocess"), after, "{what}");
        let h = f.side.handle;
        ok(spblk::capi::analyze::spblkAnalyze(h, f.a, SPBLK_ANALYSIS_ASPT, std::ptr::null()), "spblkAnalyze");
        assert_eq!(f.size(), before, "{what}: bufferSize must not depend on the plan");
        assert_eq!(method(&mut f, "after the analysis"), if aspt { "Aspt" } else { "CsrRows" }, "{what}");
    }
}

#[test]
fn default_takes_aspt_where_predicted_host() {
    default_takes_aspt_where_predicted(Kind::Host);
}

#[test]
fn default_takes_aspt_where_predicted_cuda() {
    if gpu("default_takes_aspt_where_predicted_cuda") {
        default_takes_aspt_where_predicted(Kind::Cuda);
    }
}

/// `SPBLK_SPMM_ALG_DEFAULT` with a 256 MB op(B) (f32, N = 128, 2^19 rows) and even rows of
/// 80 entries: the preprocess builds the column-sweep plan once and the default runs the sweep
/// (same bufferSize, exact results, and on CUDA the sweep's kernel only). At N = 64 (128 MB)
/// or with one row 6x the average, another method runs (RoDe for that row) and no sweep plan
/// is built.
fn default_takes_the_sweep_where_predicted(kind: Kind) {
    for (n, long_row, sweep) in [(128usize, false, true), (64, false, false), (128, true, false)] {
        let what = format!("{kind:?} default SpMM, n {n}, long row {long_row}");
        let (m, k) = (2048usize, 1usize << 19);
        let mut r = rng(95);
        let mut entries = Vec::new();
        for i in 0..m {
            let len = if long_row && i == 7 { 512 } else { 80 };
            let mut cols: Vec<usize> = (0..len).map(|_| rand::Rng::gen_range(&mut r, 0..k)).collect();
            cols.sort_unstable();
            cols.dedup();
            entries.extend(cols.into_iter().map(|j| (i, j)));
        }
        let vals = ints(&mut r, entries.len());
        let p = Problem { m, k, entries, vals };
        let mut f = DefaultSpmm::of_type(kind, &p, n, 96, what.clone(), SPBLK_R_32F);
        let before = f.size();
        let cuda = matches!(kind, Kind::Cuda) && !harness_on_host();
        let method = |f: &mut DefaultSpmm, stage: &str| {
            let record = f.run(stage);
            if cuda {
                let swept = record.launches("spblk_spmm_sweep_") > 0;
                assert_eq!(swept, record.method == "CsrSweep", "{what} {stage}: {record:?}");
                assert!(!swept || record.launches("spblk_spmm_csr_") == 0, "{what} {stage}: {record:?}");
            }
            record.method
        };
        assert_eq!(method(&mut f, "before the preprocess"), "CsrRows", "{what}: no plan, no sweep");
        let record = f.preprocess();
        if cuda {
            assert_eq!(record.launches("spblk_spmm_sweep_slabs_"), u32::from(sweep), "{what}: plan: {record:?}");
            assert_eq!(f.preprocess().launches("spblk_spmm_sweep_slabs_"), 0, "{what}: a second plan");
        }
        // Without the sweep: the row method, or RoDe for the long row.
        let after = method(&mut f, "after the preprocess");
        assert_eq!(after == "CsrSweep", sweep, "{what}: {after}");
        assert_eq!(f.size(), before, "{what}: bufferSize must not depend on the plan");
    }
}

#[test]
fn default_takes_the_sweep_where_predicted_host() {
    default_takes_the_sweep_where_predicted(Kind::Host);
}

#[test]
fn default_takes_the_sweep_where_predicted_cuda() {
    if gpu("default_takes_the_sweep_where_predicted_cuda") {
        default_takes_the_sweep_where_predicted(Kind::Cuda);
    }
}

/// `SPBLK_SDDMM_ALG_DEFAULT` in f64 streams on rows that share column blocks (where ASpT has the
/// most reuse), whether or not C has an ASpT plan (the tensor-core tiles are f32 only): its
/// preprocess builds none (no ASpT kernel runs; this small C gets its entries' rows, one
/// kernel), and after `spblkAnalyze(SPBLK_ANALYSIS_ASPT)` it
/// still streams, exactly, with the same bufferSize; `SPBLK_SDDMM_ALG_ASPT` then runs on that
/// plan with the same results.
fn default_streams_with_an_aspt_plan(kind: Kind) {
    let what = format!("{kind:?} default SDDMM");
    let (m, n, kk) = (512usize, 512usize, 16usize);
    let mut r = rng(81);
    let entries = crate::sddmm::scrambled_blocks(&mut r, (m, n), 32, 4, 0.5, 2);
    // C's values are outputs (beta = 0).
    let p = Problem { m, k: n, vals: vec![0.0; entries.len()], entries };
    let mut side = Side::new(kind);
    let h = side.handle;
    let c = p.sp(82, SPBLK_FORMAT_CSR).descr(&mut side);
    let (av, bv) = (ints(&mut rng(83), m * kk), ints(&mut rng(84), kk * n));
    let (ap, bp) = (side.put(&encode(&av, F64)), side.put(&encode(&bv, F64)));
    let (mut a, mut b) = (std::ptr::null_mut(), std::ptr::null_mut());
    ok(spblkCreateDnMat(&mut a, m as i64, kk as i64, kk as i64, ap, F64, SPBLK_ORDER_ROW), "A");
    ok(spblkCreateDnMat(&mut b, kk as i64, n as i64, kk as i64, bp, F64, SPBLK_ORDER_COL), "B");
    let alpha = side.scalar(false, &scalar_bytes(1.0, F64));
    let beta = side.scalar(false, &scalar_bytes(0.0, F64));
    let size = || {
        let mut size = 0usize;
        let alg = SPBLK_SDDMM_ALG_DEFAULT;
        ok(spblkSDDMM_bufferSize(h, N, N, alpha, a, b, beta, c, F64, alg, &mut size), "bufferSize");
        size
    };
    let before = size();
    let buf = side.buffer(before);
    let want: Vec<f64> =
        p.entries.iter().map(|&(i, j)| (0..kk).map(|l| av[i * kk + l] * bv[j * kk + l]).sum()).collect();
    let run = |side: &mut Side, alg: u32, stage: &str| {
        let (st, records) = trace::capture(|| spblkSDDMM(h, N, N, alpha, a, b, beta, c, F64, alg, buf));
        ok(st, &what);
        side.sync();
        assert_eq!(f64s(&side.get(values_ptr(c), p.entries.len() * 8)), want, "{what} {stage}");
        records[0].method.clone()
    };
    let alg = SPBLK_SDDMM_ALG_DEFAULT;
    let (st, records) = trace::capture(|| spblkSDDMM_preprocess(h, N, N, alpha, a, b, beta, c, F64, alg, buf));
    ok(st, &what);
    let ran: Vec<&str> = records[0].kernels.iter().map(|(name, _)| name.as_str()).collect();
    let rows_only = if kind == Kind::Host || harness_on_host() {
        ran.is_empty()
    } else {
        ran.len() == 1 && ran[0].starts_with("spblk_convert_rows_")
    };
    assert!(rows_only, "{what}: the default's preprocess ran {ran:?}");
    assert_eq!(run(&mut side, alg, "after the preprocess"), "CsrEntries", "{what}");
    ok(spblk::capi::analyze::spblkAnalyze(h, c, SPBLK_ANALYSIS_ASPT, std::ptr::null()), "spblkAnalyze");
    assert_eq!(size(), before, "{what}: bufferSize must not depend on the plan");
    assert_eq!(run(&mut side, alg, "with an ASpT plan"), "CsrEntries", "{what}");
    assert_eq!(run(&mut side, SPBLK_SDDMM_ALG_ASPT, "ASpT"), "Aspt", "{what}");
    spblkDestroySpMat(c);
    spblkDestroyDnMat(a);
    spblkDestroyDnMat(b);
}

#[test]
fn default_streams_with_an_aspt_plan_host() {
    default_streams_with_an_aspt_plan(Kind::Host);
}

#[test]
fn default_streams_with_an_aspt_plan_cuda() {
    if gpu("default_streams_with_an_aspt_plan_cuda") {
        default_streams_with_an_aspt_plan(Kind::Cuda);
    }
}

#[test]
fn default_takes_rode_where_predicted_host() {
    default_takes_rode_where_predicted(Kind::Host);
}

#[test]
fn default_takes_rode_where_predicted_cuda() {
    if gpu("default_takes_rode_where_predicted_cuda") {
        default_takes_rode_where_predicted(Kind::Cuda);
    }
}

#[test]
fn plan_is_reused_host() {
    plan_is_reused(Kind::Host);
}

#[test]
fn plan_is_reused_cuda() {
    if gpu("plan_is_reused_cuda") {
        plan_is_reused(Kind::Cuda);
    }
}

#[test]
fn replacing_arrays_drops_the_plan_host() {
    replacing_arrays_drops_the_plan(Kind::Host);
}

#[test]
fn replacing_arrays_drops_the_plan_cuda() {
    if gpu("replacing_arrays_drops_the_plan_cuda") {
        replacing_arrays_drops_the_plan(Kind::Cuda);
    }
}

#[test]
fn every_algorithm_runs_its_method_host() {
    every_algorithm_runs_its_method(Kind::Host);
    sddmm_and_spgemm_algorithms(Kind::Host);
}

#[test]
fn every_algorithm_runs_its_method_cuda() {
    if gpu("every_algorithm_runs_its_method_cuda") {
        every_algorithm_runs_its_method(Kind::Cuda);
        sddmm_and_spgemm_algorithms(Kind::Cuda);
    }
}

/// `SPBLK_SDDMM_ALG_DEFAULT` in f32, k = 32, on scrambled 32-row blocks of more than 2^20 entries
/// (about 19 entries per panel column) and on as many random entries (about 1): the CUDA
/// default's preprocess estimates ASpT's plan once (a second preprocess launches nothing) and
/// builds it for the blocks only, whose product then runs the tensor-core tiles; the host's
/// builds none. After `spblkAnalyze(SPBLK_ANALYSIS_ASPT)` both backends run ASpT on the blocks
/// and stream the random entries. Small integers: every path's sums are exact.
fn default_takes_aspt_tiles_where_predicted(kind: Kind) {
    const F32: spblkDataType_t = SPBLK_R_32F;
    for blocks in [true, false] {
        let what = format!("{kind:?} default SDDMM f32, blocks {blocks}");
        let (m, n, kk) = (16384usize, 16384usize, 32usize);
        let mut r = rng(95);
        let entries = if blocks {
            crate::sddmm::scrambled_blocks(&mut r, (m, n), 32, 4, 0.6, 0)
        } else {
            let mut e: Vec<(usize, usize)> = (0..m)
                .flat_map(|i| (0..80).map(|_| (i, rand::Rng::gen_range(&mut r, 0..n))).collect::<Vec<_>>())
                .collect();
            e.sort_unstable();
            e.dedup();
            e
        };
        assert!(entries.len() >= 1 << 20, "{what}: {} entries", entries.len());
        let p = Problem { m, k: n, vals: vec![0.0; entries.len()], entries };
        let mut side = Side::new(kind);
        let h = side.handle;
        let c = p.sp_of(96, SPBLK_FORMAT_CSR, F32).descr(&mut side);
        let (av, bv) = (ints(&mut rng(97), m * kk), ints(&mut rng(98), kk * n));
        let (ap, bp) = (side.put(&encode(&av, F32)), side.put(&encode(&bv, F32)));
        let (mut a, mut b) = (std::ptr::null_mut(), std::ptr::null_mut());
        ok(spblkCreateDnMat(&mut a, m as i64, kk as i64, kk as i64, ap, F32, SPBLK_ORDER_ROW), "A");
        ok(spblkCreateDnMat(&mut b, kk as i64, n as i64, kk as i64, bp, F32, SPBLK_ORDER_COL), "B");
        let alpha = side.scalar(false, &scalar_bytes(1.0, F32));
        let beta = side.scalar(false, &scalar_bytes(0.0, F32));
        let alg = SPBLK_SDDMM_ALG_DEFAULT;
        let size = || {
            let mut size = 0usize;
            ok(spblkSDDMM_bufferSize(h, N, N, alpha, a, b, beta, c, F32, alg, &mut size), "bufferSize");
            size
        };
        let before = size();
        let buf = side.buffer(before);
        let want: Vec<f64> =
            p.entries.iter().map(|&(i, j)| (0..kk).map(|l| av[i * kk + l] * bv[j * kk + l]).sum()).collect();
        let run = |side: &mut Side, stage: &str| {
            let (st, records) = trace::capture(|| spblkSDDMM(h, N, N, alpha, a, b, beta, c, F32, alg, buf));
            ok(st, &what);
            side.sync();
            assert_eq!(decode(&side.get(values_ptr(c), p.entries.len() * 4), F32), want, "{what} {stage}");
            let record = &records[0];
            let tiles = record.launches("spblk_sddmm_aspt_tiles_f32_k32_");
            let cuda = matches!(kind, Kind::Cuda) && !harness_on_host();
            assert_eq!(tiles, u32::from(cuda && record.method == "Aspt"), "{what} {stage}: {record:?}");
            record.method.clone()
        };
        let preprocess = || {
            let (st, records) = trace::capture(|| spblkSDDMM_preprocess(h, N, N, alpha, a, b, beta, c, F32, alg, buf));
            ok(st, &what);
            records.into_iter().next().expect("a record")
        };
        assert_eq!(run(&mut side, "before the preprocess"), "CsrEntries", "{what}: no plan");
        let cuda = matches!(kind, Kind::Cuda) && !harness_on_host();
        let record = preprocess();
        let (estimated, built) = (record.launches("spblk_aspt_spmm_estimate_"), record.launches("spblk_aspt_entries_"));
        assert_eq!(estimated, u32::from(cuda), "{what}: estimates in the preprocess: {record:?}");
        assert_eq!(built, u32::from(cuda && blocks), "{what}: plans built by the preprocess: {record:?}");
        assert_eq!(preprocess().launches("spblk_aspt_"), 0, "{what}: a second preprocess launched");
        let after = if cuda && blocks { "Aspt" } else { "CsrEntries" };
        assert_eq!(run(&mut side, "after the preprocess"), after, "{what}");
        ok(spblk::capi::analyze::spblkAnalyze(h, c, SPBLK_ANALYSIS_ASPT, std::ptr::null()), "spblkAnalyze");
        assert_eq!(size(), before, "{what}: bufferSize must not depend on the plan");
        let analysed = if blocks { "Aspt" } else { "CsrEntries" };
        assert_eq!(run(&mut side, "after the analysis"), analysed, "{what}");
        spblkDestroySpMat(c);
        spblkDestroyDnMat(a);
        spblkDestroyDnMat(b);
    }
}

#[test]
fn default_takes_aspt_tiles_where_predicted_host() {
    default_takes_aspt_tiles_where_predicted(Kind::Host);
}

#[test]
fn default_takes_aspt_tiles_where_predicted_cuda() {
    if gpu("default_takes_aspt_tiles_where_predicted_cuda") {
        default_takes_aspt_tiles_where_predicted(Kind::Cuda);
    }
}
