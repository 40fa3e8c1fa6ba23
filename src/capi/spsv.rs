//! Triangular solves with cuSPARSE's protocol: `spblkSpSV_createDescr`, `_bufferSize`,
//! `_analysis` (the buffer it is given holds the analysis and must live until the last
//! solve), `_solve` as often as needed, `_updateMatrix` for new values, `_destroyDescr`.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write, Kind};
use super::dense::dn_vec_ref;
use super::sp_mat::sp_mat_ref;
use super::types::*;
use crate::backend::{SpsvArgs, SpsvState};
use crate::error::Result;
use crate::ops;
use crate::ops::spsv::Solver;

/// # Safety
/// Registry-checked; see `boundary::descr`.
unsafe fn state<'a>(d: spblkSpSVDescr_t) -> Result<&'a mut SpsvState> {
    // SAFETY: forwarded.
    unsafe { boundary::descr(d as *const c_void, Kind::SpSv, "spsvDescr") }
}

/// A new descriptor of `kind` (SpSV or SpSM) in `*descr`.
pub(super) fn create<D>(name: &'static str, descr: *mut *mut D, kind: Kind) -> spblkStatus_t {
    entry(name, || {
        out(descr, "descr")?;
        let p = boundary::register(SpsvState::default(), kind) as *mut D;
        // SAFETY: checked non-NULL.
        unsafe { write(descr, p) };
        Ok(())
    })
}

/// Destroys a descriptor of `kind` (the analysis' buffer stays the caller's); NULL is a no-op.
pub(super) fn destroy(name: &'static str, descr: *const c_void, kind: Kind) -> spblkStatus_t {
    entry(name, || {
        // SAFETY: registry-checked; C must not use it afterwards.
        unsafe { boundary::release::<SpsvState>(descr, kind, "descr")? };
        Ok(())
    })
}

/// Creates an SpSV descriptor, which holds one analysis at a time.
#[no_mangle]
pub extern "C" fn spblkSpSV_createDescr(descr: *mut spblkSpSVDescr_t) -> spblkStatus_t {
    create("spblkSpSV_createDescr", descr, Kind::SpSv)
}

/// Destroys an SpSV descriptor (the analysis' buffer stays the caller's); NULL is a no-op.
#[no_mangle]
pub extern "C" fn spblkSpSV_destroyDescr(descr: spblkSpSVDescr_t) -> spblkStatus_t {
    destroy("spblkSpSV_destroyDescr", descr as *const c_void, Kind::SpSv)
}

/// Looks up a call's objects and checks its arguments, then runs `body`.
#[allow(clippy::too_many_arguments)]
fn with_call<R>(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    vecX: spblkConstDnVecDescr_t,
    vecY: spblkDnVecDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpSVAlg_t,
    spsvDescr: spblkSpSVDescr_t,
    body: impl FnOnce(&super::handle::Handle, &SpsvArgs, &mut SpsvState) -> Result<R>,
) -> Result<R> {
    // SAFETY (lookups): registry-checked; shared references, since one vector may be passed
    // as both x and y (an in-place solve).
    let h = unsafe { boundary::handle(handle)? };
    let a = unsafe { sp_mat_ref(matA, "matA")? };
    let x = unsafe { dn_vec_ref(vecX, "vecX")? };
    let y = unsafe { dn_vec_ref(vecY, "vecY")? };
    let st = unsafe { state(spsvDescr)? };
    let args = ops::spsv::spsv_args(h.pointer_mode, opA, alpha, a, x, y, computeType, alg)?;
    body(h, &args, st)
}

/// Size in bytes of the buffer `spblkSpSV_analysis` keeps its analysis in.
#[no_mangle]
pub extern "C" fn spblkSpSV_bufferSize(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    vecX: spblkConstDnVecDescr_t,
    vecY: spblkDnVecDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpSVAlg_t,
    spsvDescr: spblkSpSVDescr_t,
    bufferSize: *mut usize,
) -> spblkStatus_t {
    entry("spblkSpSV_bufferSize", || {
        with_call(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr, |h, args, _| {
            out(bufferSize, "bufferSize")?;
            let needed = h.backend.spsv_buffer_size(args)?;
            // SAFETY: checked non-NULL.
            unsafe { write(bufferSize, needed) };
            Ok(())
        })
    })
}

/// Analyses op(A) for `spblkSpSV_solve`: the triangle the fill mode names (entries of the
/// other are ignored) and the diagonal (a missing entry reads as one), with a copy of their
/// values, in `externalBuffer`, which must stay allocated while the descriptor is used. A
/// later change of A's values is seen only after `spblkSpSV_updateMatrix` or a new analysis.
/// On CUDA it runs on the stream without waiting (graph-capturable).
#[no_mangle]
pub extern "C" fn spblkSpSV_analysis(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    vecX: spblkConstDnVecDescr_t,
    vecY: spblkDnVecDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpSVAlg_t,
    spsvDescr: spblkSpSVDescr_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpSV_analysis", || {
        with_call(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr, |h, args, st| {
            ops::spsv::analysis(h.backend.as_ref(), &h.exec(), args, st, externalBuffer)
        })
    })
}

/// Solves `op(A) y = alpha x` with the descriptor's analysis (x and y may be one vector).
/// Deterministic: the same inputs give the same bits every run. A zero on the diagonal gives
/// inf or NaN, as cuSPARSE's does; nothing is reported.
#[no_mangle]
pub extern "C" fn spblkSpSV_solve(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    vecX: spblkConstDnVecDescr_t,
    vecY: spblkDnVecDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpSVAlg_t,
    spsvDescr: spblkSpSVDescr_t,
) -> spblkStatus_t {
    entry("spblkSpSV_solve", || {
        with_call(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr, |h, args, st| {
            ops::spsv::solve(h.backend.as_ref(), &h.exec(), args, st, Solver::Sv)
        })
    })
}

/// Replaces the analysed values: all of A's (`SPBLK_SPSV_UPDATE_GENERAL`, nnz values in A's
/// storage order) or its diagonal (`SPBLK_SPSV_UPDATE_DIAGONAL`, one per row). The values are
/// copied; `newValues` may be reused once the call's stream reaches it.
#[no_mangle]
pub extern "C" fn spblkSpSV_updateMatrix(
    handle: spblkHandle_t,
    spsvDescr: spblkSpSVDescr_t,
    newValues: *mut c_void,
    updatePart: spblkSpSVUpdate_t,
) -> spblkStatus_t {
    entry("spblkSpSV_updateMatrix", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let st = unsafe { state(spsvDescr)? };
        ops::spsv::update(h.backend.as_ref(), &h.exec(), st, newValues, updatePart, Solver::Sv)
    })
}
