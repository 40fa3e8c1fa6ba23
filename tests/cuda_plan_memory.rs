//! Destroying descriptors gives their plans' device memory back. Its own test binary: the
//! check reads the device's free memory, which tests running beside it in one process would
//! change (cargo runs a binary's tests on parallel threads; gpu-check.sh runs binaries one
//! after another). Without a GPU the test prints `SKIPPED: <reason>` and passes.
#![cfg(feature = "cuda")]

#[path = "cuda_backend/problem.rs"]
mod problem;
#[path = "cuda_backend/support.rs"]
mod support;

use std::ffi::c_void;

use cudarc::driver::sys;
use spblk::capi::analyze::spblkAnalyze;
use spblk::capi::products::spblkSpMV_preprocess;
use spblk::capi::sp_mat::*;
use spblk::capi::types::*;

use problem::{ints, Problem, Spmv};
use support::*;

/// Device memory of one of a matrix's three arrays (a fresh copy in the side's memory).
fn side_ptr(sp: &Sp, side: &mut Side, which: usize) -> *mut c_void {
    side.put([&sp.a, &sp.b, &sp.v][which])
}

fn free_device_memory() -> usize {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: out-pointers to locals; a context is current (Side::new made it so).
    assert_eq!(unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) }, sys::CUresult::CUDA_SUCCESS);
    free
}

/// 10^4 cycles of create, preprocess (an operand plan in device memory), analyze (the 1-SA
/// plan uploaded) and destroy leave the device's free memory where it was.
#[test]
fn destroyed_descriptors_free_their_plans() {
    if !gpu("destroyed_descriptors_free_their_plans") || harness_on_host() {
        return;
    }
    let p = Problem::new(81, 256, 256);
    let mut side = Side::new(Kind::Cuda);
    let coo = p.sp(82, SPBLK_FORMAT_COO);
    let csr = p.sp(83, SPBLK_FORMAT_CSR);
    let x = ints(&mut rng(84), p.k);
    let (coo_arrays, csr_arrays) =
        ([0, 1, 2].map(|i| side_ptr(&coo, &mut side, i)), [0, 1, 2].map(|i| side_ptr(&csr, &mut side, i)));
    let probe = Spmv::new(&mut side, &coo, SPBLK_OPERATION_NON_TRANSPOSE, &x);
    let (h, op, alg) = (side.handle, SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_SPMV_ALG_DEFAULT);
    let (st, size) = probe.size(h, op, alg);
    ok(st, "bufferSize");
    let buf = side.buffer(size);
    let cycle = || {
        let a = coo.descr_at(coo_arrays[0], coo_arrays[1], coo_arrays[2]);
        let st = spblkSpMV_preprocess(h, op, probe.alpha, a, probe.x, probe.beta, probe.y, SPBLK_R_64F, alg, buf);
        ok(st, "spblkSpMV_preprocess");
        let c = csr.descr_at(csr_arrays[0], csr_arrays[1], csr_arrays[2]);
        ok(spblkAnalyze(h, c, SPBLK_ANALYSIS_1SA, std::ptr::null()), "spblkAnalyze");
        ok(spblkDestroySpMat(a), "destroy");
        ok(spblkDestroySpMat(c), "destroy");
    };
    for _ in 0..100 {
        cycle();
    }
    side.sync();
    let before = free_device_memory();
    // Under compute-sanitizer (SPBLK_TEST_QUICK) a few hundred cycles keep the run short.
    let cycles = if std::env::var_os("SPBLK_TEST_QUICK").is_some() { 300 } else { 10_000 };
    for _ in 0..cycles {
        cycle();
    }
    side.sync();
    let after = free_device_memory();
    // A leak of even one plan per cycle would be 10^4 allocations (≥ 2 MiB each page).
    assert!(after + (4 << 20) >= before, "device memory leaked: {} bytes free before, {} after", before, after);
}
