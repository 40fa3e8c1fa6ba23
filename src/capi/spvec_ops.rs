//! Operations on a sparse vector X and a dense vector Y of the same size: Axpby, Gather,
//! Scatter, Rot (no workspace) and the dot product SpVV. X's indices must be distinct for the
//! functions that write through them (Axpby, Scatter, Rot), as cuSPARSE requires for a
//! deterministic result; the host backend rejects duplicates.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write};
use super::dense::dn_vec_ref;
use super::sp_vec::sp_vec_ref;
use super::types::*;
use crate::backend::SpvecUpdate;
use crate::error::Result;
use crate::ops::{self, spvec};

/// `Y = alpha X + beta Y`: Y scaled by beta everywhere, alpha X added at X's positions.
/// alpha and beta are of the compute type (`double` for R_64F, `float` otherwise).
#[no_mangle]
pub extern "C" fn spblkAxpby(
    handle: spblkHandle_t,
    alpha: *const c_void,
    vecX: spblkConstSpVecDescr_t,
    beta: *const c_void,
    vecY: spblkDnVecDescr_t,
) -> spblkStatus_t {
    entry("spblkAxpby", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let x = unsafe { sp_vec_ref(vecX, "vecX")? };
        let y = unsafe { dn_vec_ref(vecY, "vecY")? };
        let args = spvec::axpby_args(h.pointer_mode, alpha, x, beta, y)?;
        h.backend.spvec_update(&h.exec(), &args)
    })
}

/// `X[k] = Y[indices[k]]`: X's values from Y at X's positions (any value type).
#[no_mangle]
pub extern "C" fn spblkGather(
    handle: spblkHandle_t,
    vecY: spblkConstDnVecDescr_t,
    vecX: spblkSpVecDescr_t,
) -> spblkStatus_t {
    entry("spblkGather", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let y = unsafe { dn_vec_ref(vecY, "vecY")? };
        let x = unsafe { sp_vec_ref(vecX, "vecX")? };
        let args = spvec::update_args(SpvecUpdate::Gather, x, y)?;
        h.backend.spvec_update(&h.exec(), &args)
    })
}

/// `Y[indices[k]] = X[k]`: X's values into Y at X's positions (any value type); the rest of
/// Y is unchanged.
#[no_mangle]
pub extern "C" fn spblkScatter(
    handle: spblkHandle_t,
    vecX: spblkConstSpVecDescr_t,
    vecY: spblkDnVecDescr_t,
) -> spblkStatus_t {
    entry("spblkScatter", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let x = unsafe { sp_vec_ref(vecX, "vecX")? };
        let y = unsafe { dn_vec_ref(vecY, "vecY")? };
        let args = spvec::update_args(SpvecUpdate::Scatter, x, y)?;
        h.backend.spvec_update(&h.exec(), &args)
    })
}

/// The Givens rotation at X's positions, from the old values of both vectors:
/// `X[k] = c X[k] + s Y[i]`, `Y[i] = c Y[i] - s X[k]` with `i = indices[k]`.
#[no_mangle]
pub extern "C" fn spblkRot(
    handle: spblkHandle_t,
    c_coeff: *const c_void,
    s_coeff: *const c_void,
    vecX: spblkSpVecDescr_t,
    vecY: spblkDnVecDescr_t,
) -> spblkStatus_t {
    entry("spblkRot", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let x = unsafe { sp_vec_ref(vecX, "vecX")? };
        let y = unsafe { dn_vec_ref(vecY, "vecY")? };
        let args = spvec::rot_args(h.pointer_mode, c_coeff, s_coeff, x, y)?;
        h.backend.spvec_update(&h.exec(), &args)
    })
}

/// Workspace size in bytes for `spblkSpVV` (may be 0; then `externalBuffer` may be NULL).
#[no_mangle]
pub extern "C" fn spblkSpVV_bufferSize(
    handle: spblkHandle_t,
    opX: spblkOperation_t,
    vecX: spblkConstSpVecDescr_t,
    vecY: spblkConstDnVecDescr_t,
    result: *const c_void,
    computeType: spblkDataType_t,
    bufferSize: *mut usize,
) -> spblkStatus_t {
    entry("spblkSpVV_bufferSize", || {
        spvv(handle, opX, vecX, vecY, result as *mut c_void, computeType, |h, args| {
            out(bufferSize, "bufferSize")?;
            let needed = h.backend.spvv_buffer_size(args)?;
            // SAFETY: checked non-NULL.
            unsafe { write(bufferSize, needed) };
            Ok(())
        })
    })
}

/// `result = op(X) · Y`, a value of the compute type in host memory (pointer mode host: the
/// call returns once it is written) or device memory (pointer mode device: asynchronous).
/// The partial sums are added in a fixed order: the same inputs give the same bits.
#[no_mangle]
pub extern "C" fn spblkSpVV(
    handle: spblkHandle_t,
    opX: spblkOperation_t,
    vecX: spblkConstSpVecDescr_t,
    vecY: spblkConstDnVecDescr_t,
    result: *mut c_void,
    computeType: spblkDataType_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpVV", || {
        spvv(handle, opX, vecX, vecY, result, computeType, |h, args| {
            ops::require_buffer(h.backend.spvv_buffer_size(args)?, externalBuffer, "externalBuffer")?;
            h.backend.spvv(&h.exec(), args, externalBuffer)
        })
    })
}

fn spvv(
    handle: spblkHandle_t,
    op_x: spblkOperation_t,
    vec_x: spblkConstSpVecDescr_t,
    vec_y: spblkConstDnVecDescr_t,
    result: *mut c_void,
    compute: spblkDataType_t,
    stage: impl FnOnce(&super::handle::Handle, &crate::backend::SpvvArgs) -> Result<()>,
) -> Result<()> {
    // SAFETY (lookups): registry-checked.
    let h = unsafe { boundary::handle(handle)? };
    let x = unsafe { sp_vec_ref(vec_x, "vecX")? };
    let y = unsafe { dn_vec_ref(vec_y, "vecY")? };
    let args = spvec::spvv_args(h.pointer_mode, op_x, x, y, result, compute)?;
    stage(h, &args)
}
