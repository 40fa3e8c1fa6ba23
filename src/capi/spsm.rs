//! Triangular solves with several right-hand sides, cuSPARSE's `SpSM` protocol: as SpSV's
//! (src/capi/spsv.rs), with op(B) and C dense matrices in either order. The analysis is SpSV's;
//! the solve takes every column at once.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write, Kind};
use super::dense::dn_mat_ref;
use super::sp_mat::sp_mat_ref;
use super::spsv::{create, destroy};
use super::types::*;
use crate::backend::{SpsvArgs, SpsvState};
use crate::error::Result;
use crate::ops;
use crate::ops::spsv::Solver;

/// # Safety
/// Registry-checked; see `boundary::descr`.
unsafe fn state<'a>(d: spblkSpSMDescr_t) -> Result<&'a mut SpsvState> {
    // SAFETY: forwarded.
    unsafe { boundary::descr(d as *const c_void, Kind::SpSm, "spsmDescr") }
}

/// Creates an SpSM descriptor, which holds one analysis at a time.
#[no_mangle]
pub extern "C" fn spblkSpSM_createDescr(descr: *mut spblkSpSMDescr_t) -> spblkStatus_t {
    create("spblkSpSM_createDescr", descr, Kind::SpSm)
}

/// Destroys an SpSM descriptor (the analysis' buffer stays the caller's); NULL is a no-op.
#[no_mangle]
pub extern "C" fn spblkSpSM_destroyDescr(descr: spblkSpSMDescr_t) -> spblkStatus_t {
    destroy("spblkSpSM_destroyDescr", descr as *const c_void, Kind::SpSm)
}

/// Looks up a call's objects and checks its arguments, then runs `body`.
#[allow(clippy::too_many_arguments)]
fn with_call<R>(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    matC: spblkDnMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpSMAlg_t,
    spsmDescr: spblkSpSMDescr_t,
    body: impl FnOnce(&super::handle::Handle, &SpsvArgs, &mut SpsvState) -> Result<R>,
) -> Result<R> {
    // SAFETY (lookups): registry-checked; shared references, since B and C may be one matrix
    // (an in-place solve).
    let h = unsafe { boundary::handle(handle)? };
    let a = unsafe { sp_mat_ref(matA, "matA")? };
    let b = unsafe { dn_mat_ref(matB, "matB")? };
    let c = unsafe { dn_mat_ref(matC, "matC")? };
    let st = unsafe { state(spsmDescr)? };
    let args = ops::spsv::spsm_args(h.pointer_mode, opA, opB, alpha, a, b, c, computeType, alg)?;
    body(h, &args, st)
}

/// Size in bytes of the buffer `spblkSpSM_analysis` keeps its analysis in (it grows with the
/// number of right-hand sides).
#[no_mangle]
pub extern "C" fn spblkSpSM_bufferSize(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    matC: spblkDnMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpSMAlg_t,
    spsmDescr: spblkSpSMDescr_t,
    bufferSize: *mut usize,
) -> spblkStatus_t {
    entry("spblkSpSM_bufferSize", || {
        with_call(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, spsmDescr, |h, args, _| {
            out(bufferSize, "bufferSize")?;
            let needed = h.backend.spsv_buffer_size(args)?;
            // SAFETY: checked non-NULL.
            unsafe { write(bufferSize, needed) };
            Ok(())
        })
    })
}

/// Analyses op(A) for `spblkSpSM_solve` as `spblkSpSV_analysis` does; the solves must have as
/// many right-hand sides as matC has columns here.
#[no_mangle]
pub extern "C" fn spblkSpSM_analysis(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    matC: spblkDnMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpSMAlg_t,
    spsmDescr: spblkSpSMDescr_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpSM_analysis", || {
        with_call(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, spsmDescr, |h, args, st| {
            ops::spsv::analysis(h.backend.as_ref(), &h.exec(), args, st, externalBuffer)
        })
    })
}

/// Solves `op(A) C = alpha op(B)` with the descriptor's analysis (B and C may be one matrix
/// when op(B) = B and both have the same order and leading dimension). Each column's bits are
/// those `spblkSpSV_solve` gives for it.
#[no_mangle]
pub extern "C" fn spblkSpSM_solve(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    matC: spblkDnMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpSMAlg_t,
    spsmDescr: spblkSpSMDescr_t,
) -> spblkStatus_t {
    entry("spblkSpSM_solve", || {
        with_call(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, spsmDescr, |h, args, st| {
            ops::spsv::solve(h.backend.as_ref(), &h.exec(), args, st, Solver::Sm)
        })
    })
}

/// Replaces the analysed values, as `spblkSpSV_updateMatrix`.
#[no_mangle]
pub extern "C" fn spblkSpSM_updateMatrix(
    handle: spblkHandle_t,
    spsmDescr: spblkSpSMDescr_t,
    newValues: *mut c_void,
    updatePart: spblkSpSMUpdate_t,
) -> spblkStatus_t {
    entry("spblkSpSM_updateMatrix", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let st = unsafe { state(spsmDescr)? };
        ops::spsv::update(h.backend.as_ref(), &h.exec(), st, newValues, updatePart, Solver::Sm)
    })
}
