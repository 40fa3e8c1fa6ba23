//! SpGEMM with cuSPARSE's protocol: `workEstimation` ×2, `compute` ×2 (a NULL buffer asks
//! for its size), read nnz(C) with `spblkSpMatGetSize`, allocate, `spblkCsrSetPointers`,
//! then `copy`.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write, Kind};
use super::sp_mat::sp_mat;
use super::types::*;
use crate::backend::{SpgemmArgs, SpgemmStage, SpgemmState};
use crate::error::{Error, Result};
use crate::ops;

/// # Safety
/// Registry-checked; see `boundary::descr`.
unsafe fn state<'a>(d: spblkSpGEMMDescr_t) -> Result<&'a mut SpgemmState> {
    // SAFETY: forwarded.
    unsafe { boundary::descr(d as *const c_void, Kind::SpGemm, "spgemmDescr") }
}

/// Creates the state object that carries a product through the protocol.
#[no_mangle]
pub extern "C" fn spblkSpGEMM_createDescr(descr: *mut spblkSpGEMMDescr_t) -> spblkStatus_t {
    entry("spblkSpGEMM_createDescr", || {
        out(descr, "descr")?;
        let p = boundary::register(SpgemmState::default(), Kind::SpGemm) as spblkSpGEMMDescr_t;
        // SAFETY: checked non-NULL.
        unsafe { write(descr, p) };
        Ok(())
    })
}

/// Destroys the SpGEMM state (and any product it still holds); NULL is a no-op.
#[no_mangle]
pub extern "C" fn spblkSpGEMM_destroyDescr(descr: spblkSpGEMMDescr_t) -> spblkStatus_t {
    entry("spblkSpGEMM_destroyDescr", || {
        // SAFETY: registry-checked; C must not use it afterwards.
        unsafe { boundary::release::<SpgemmState>(descr as *const c_void, Kind::SpGemm, "descr")? };
        Ok(())
    })
}

/// Everything a SpGEMM call needs, looked up and checked.
#[allow(clippy::too_many_arguments)]
fn with_call<R>(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstSpMatDescr_t,
    beta: *const c_void,
    matC: spblkSpMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpGEMMAlg_t,
    spgemmDescr: spblkSpGEMMDescr_t,
    body: impl FnOnce(&super::handle::Handle, &SpgemmArgs, &mut SpgemmState) -> Result<R>,
) -> Result<R> {
    // SAFETY (lookups): registry-checked; copies so that A may equal B.
    let h = unsafe { boundary::handle(handle)? };
    let a = unsafe { sp_mat(matA, "matA")? }.clone();
    let b = unsafe { sp_mat(matB, "matB")? }.clone();
    let c = unsafe { sp_mat(matC, "matC")? }.clone();
    let st = unsafe { state(spgemmDescr)? };
    let args = ops::spgemm_args(h.pointer_mode, opA, opB, alpha, &a, &b, beta, &c, computeType, alg)?;
    body(h, &args, st)
}

/// Size query (buffer NULL) or check of a provided buffer of `*size` bytes.
fn sized_buffer(size: *mut usize, buffer: *mut c_void, needed: usize, arg: &str) -> Result<bool> {
    out(size, arg)?;
    if buffer.is_null() {
        // SAFETY: checked non-NULL.
        unsafe { write(size, needed.max(1)) };
        return Ok(false);
    }
    // SAFETY: checked non-NULL; the caller's in/out size.
    let given = unsafe { std::ptr::read_unaligned(size) };
    if given < needed {
        return Err(Error::insufficient_resources(format!(
            "argument '{arg}' gives {given} bytes but {needed} are required"
        )));
    }
    Ok(true)
}

/// Phase 1: with `externalBuffer1` NULL, stores the required size in `*bufferSize1`;
/// otherwise analyses A and B using the buffer.
#[no_mangle]
pub extern "C" fn spblkSpGEMM_workEstimation(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstSpMatDescr_t,
    beta: *const c_void,
    matC: spblkSpMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpGEMMAlg_t,
    spgemmDescr: spblkSpGEMMDescr_t,
    bufferSize1: *mut usize,
    externalBuffer1: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpGEMM_workEstimation", || {
        with_call(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, spgemmDescr, |h, args, st| {
            let needed = h.backend.spgemm_work_estimation_size(args)?;
            if !sized_buffer(bufferSize1, externalBuffer1, needed, "bufferSize1")? {
                return Ok(());
            }
            // SAFETY: checked non-NULL by sized_buffer.
            let given = unsafe { *bufferSize1 };
            h.backend.spgemm_work_estimation(&h.exec(), args, st, externalBuffer1, given)?;
            st.stage = SpgemmStage::WorkEstimated;
            st.c_nnz = None;
            Ok(())
        })
    })
}

/// Phase 2: with `externalBuffer2` NULL, stores an upper bound of the size it needs;
/// otherwise computes C, after which `spblkSpMatGetSize(matC)` reports nnz(C). Blocks until
/// nnz(C) is known on the host.
#[no_mangle]
pub extern "C" fn spblkSpGEMM_compute(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstSpMatDescr_t,
    beta: *const c_void,
    matC: spblkSpMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpGEMMAlg_t,
    spgemmDescr: spblkSpGEMMDescr_t,
    bufferSize2: *mut usize,
    externalBuffer2: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpGEMM_compute", || {
        let nnz = with_call(
            handle,
            opA,
            opB,
            alpha,
            matA,
            matB,
            beta,
            matC,
            computeType,
            alg,
            spgemmDescr,
            |h, args, st| {
                if st.stage < SpgemmStage::WorkEstimated {
                    return Err(Error::invalid(
                        "spgemmDescr",
                        "has no work estimation (call spblkSpGEMM_workEstimation with a buffer first)",
                    ));
                }
                let needed = h.backend.spgemm_compute_size(args, st)?;
                if !sized_buffer(bufferSize2, externalBuffer2, needed, "bufferSize2")? {
                    return Ok(None);
                }
                // SAFETY: checked non-NULL by sized_buffer.
                let given = unsafe { *bufferSize2 };
                let nnz = h.backend.spgemm_compute(&h.exec(), args, st, externalBuffer2, given)?;
                let limit = args.c.offsets_type.max_value() - args.c.base.offset();
                if nnz > limit {
                    st.stage = SpgemmStage::WorkEstimated;
                    return Err(Error::insufficient_resources(format!(
                        "nnz(C) = {nnz} does not fit matC's {:?} indices (use 64-bit indices)",
                        args.c.offsets_type
                    )));
                }
                st.stage = SpgemmStage::Computed;
                st.c_nnz = Some(nnz);
                Ok(Some(nnz))
            },
        )?;
        if let Some(nnz) = nnz {
            // SAFETY: registry-checked (again: the copy used above is not the descriptor).
            unsafe { sp_mat(matC, "matC")? }.nnz = nnz;
        }
        Ok(())
    })
}

/// Phase 3: writes C's row offsets, column indices (sorted within rows) and values into the
/// arrays set with `spblkCsrSetPointers`.
#[no_mangle]
pub extern "C" fn spblkSpGEMM_copy(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstSpMatDescr_t,
    beta: *const c_void,
    matC: spblkSpMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpGEMMAlg_t,
    spgemmDescr: spblkSpGEMMDescr_t,
) -> spblkStatus_t {
    entry("spblkSpGEMM_copy", || {
        with_call(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, spgemmDescr, |h, args, st| {
            let (SpgemmStage::Computed, Some(nnz)) = (st.stage, st.c_nnz) else {
                return Err(Error::invalid(
                    "spgemmDescr",
                    "holds no computed product (call spblkSpGEMM_compute with a buffer first)",
                ));
            };
            ops::spgemm_output_ready(args.c, nnz)?;
            h.backend.spgemm_copy(&h.exec(), args, st)
        })
    })
}
