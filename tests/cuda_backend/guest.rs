//! spblk as a guest in the caller's process: the caller's current CUDA context is the same
//! after every call as before it (a context the caller created, or none at all). That
//! destroying descriptors gives their plans' device memory back is tests/cuda_plan_memory.rs.

use cudarc::driver::sys;
use spblk::capi::analyze::spblkAnalyze;
use spblk::capi::handle::*;
use spblk::capi::sp_mat::*;
use spblk::capi::types::*;

use crate::problem::{ints, Problem, Spmv};
use crate::support::*;

fn current() -> sys::CUcontext {
    let mut c = std::ptr::null_mut();
    // SAFETY: out-pointer to a local.
    assert_eq!(unsafe { sys::cuCtxGetCurrent(&mut c) }, sys::CUresult::CUDA_SUCCESS);
    c
}

/// A context of the caller's own on device 0, made current (pushed).
fn create_context() -> sys::CUcontext {
    let mut ctx = std::ptr::null_mut();
    // SAFETY: out-pointers to locals; NULL creation parameters are the defaults.
    let r = unsafe { sys::cuCtxCreate_v4(&mut ctx, std::ptr::null_mut(), 0, 0) };
    assert_eq!(r, sys::CUresult::CUDA_SUCCESS, "cuCtxCreate");
    ctx
}

/// Runs `f` and checks that the current context is the same after it.
#[track_caller]
fn unchanged(what: &str, f: impl FnOnce() -> spblkStatus_t) {
    let before = current();
    let st = f();
    assert_eq!(st, SPBLK_STATUS_SUCCESS, "{what}: {}", last_message());
    assert_eq!(current(), before, "{what} changed the caller's current context");
}

#[test]
fn the_callers_context_is_left_as_found() {
    if !gpu("the_callers_context_is_left_as_found") || harness_on_host() {
        return;
    }
    // Data in device 0's primary context (the runtime's, where cudaMalloc puts it).
    let p = Problem::new(71, 200, 150);
    let mut side = Side::new(Kind::Cuda);
    let sp = p.sp(72, SPBLK_FORMAT_COO);
    let x = ints(&mut rng(73), p.k);
    let call = Spmv::new(&mut side, &sp, SPBLK_OPERATION_NON_TRANSPOSE, &x);
    let (h, op, alg) = (side.handle, SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_SPMV_ALG_DEFAULT);
    let (st, size) = call.size(h, op, alg);
    ok(st, "bufferSize");
    let buf = side.buffer(size);
    let csr = p.sp(74, SPBLK_FORMAT_CSR);
    let c = csr.descr(&mut side);

    // The caller switches to a context of its own, then calls spblk.
    let mine = create_context();
    assert_eq!(current(), mine);
    unchanged("spblkSpMV_bufferSize", || call.size(h, op, alg).0);
    unchanged("spblkSpMV_preprocess", || {
        call.preprocess(h, op, alg, buf);
        SPBLK_STATUS_SUCCESS
    });
    unchanged("spblkSpMV", || call.run(h, op, alg, buf));
    unchanged("spblkAnalyze", || spblkAnalyze(h, c, SPBLK_ANALYSIS_1SA, std::ptr::null()));
    unchanged("spblkDestroySpMat (frees the plan)", || spblkDestroySpMat(c));
    unchanged("spblkCreateWithBackend + spblkDestroy", || {
        let mut h2: spblkHandle_t = std::ptr::null_mut();
        let st = spblkCreateWithBackend(&mut h2, SPBLK_BACKEND_CUDA);
        if st != SPBLK_STATUS_SUCCESS {
            return st;
        }
        spblkDestroy(h2)
    });
    // No context current at all: spblk must not leave its own behind.
    let mut popped = std::ptr::null_mut();
    // SAFETY: pops `mine`, pushed by cuCtxCreate on this thread.
    assert_eq!(unsafe { sys::cuCtxPopCurrent_v2(&mut popped) }, sys::CUresult::CUDA_SUCCESS);
    // SAFETY: plain driver call.
    assert_eq!(unsafe { sys::cuCtxSetCurrent(std::ptr::null_mut()) }, sys::CUresult::CUDA_SUCCESS);
    assert!(current().is_null());
    unchanged("spblkSpMV with no current context", || call.run(h, op, alg, buf));
    // SAFETY: our own context, no longer current.
    assert_eq!(unsafe { sys::cuCtxDestroy_v2(mine) }, sys::CUresult::CUDA_SUCCESS);

    // The calls computed what they should (read back in the primary context).
    let primary = Side::new(Kind::Cuda);
    drop(primary);
    assert_eq!(call.result(&side), p.apply(SPBLK_OPERATION_NON_TRANSPOSE, &p.vals, &x));
}
