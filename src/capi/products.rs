//! SpMV, SpMM and SDDMM: each with `_bufferSize`, `_preprocess` and the compute call, all
//! taking the same parameters as cuSPARSE's.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write};
use super::dense::{dn_mat_ref, dn_vec_ref};
use super::sp_mat::sp_mat_ref;
use super::types::*;
use crate::error::Result;
use crate::ops;

/// Which of the three calls of an operation is running.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    BufferSize(*mut usize),
    Preprocess(*mut c_void),
    Compute(*mut c_void),
}

#[allow(clippy::too_many_arguments)]
fn spmv(
    stage: Stage,
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    vecX: spblkConstDnVecDescr_t,
    beta: *const c_void,
    vecY: spblkDnVecDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpMVAlg_t,
) -> Result<()> {
    // SAFETY (lookups): registry-checked; shared references, since one descriptor may be
    // passed as several arguments.
    let h = unsafe { boundary::handle(handle)? };
    let a = unsafe { sp_mat_ref(matA, "matA")? };
    let x = unsafe { dn_vec_ref(vecX, "vecX")? };
    let y = unsafe { dn_vec_ref(vecY, "vecY")? };
    let args = ops::spmv_args(h.pointer_mode, opA, alpha, a, x, beta, y, computeType, alg)?;
    let needed = ops::spmv_buffer_size(h.backend.as_ref(), &args, alg)?;
    match stage {
        Stage::BufferSize(size) => {
            out(size, "bufferSize")?;
            // SAFETY: checked non-NULL.
            unsafe { write(size, needed) };
            Ok(())
        }
        Stage::Preprocess(buffer) => {
            ops::require_buffer(needed, buffer, "externalBuffer")?;
            ops::spmv_preprocess(h.backend.as_ref(), &h.exec(), &args, alg, buffer)
        }
        Stage::Compute(buffer) => {
            ops::require_buffer(needed, buffer, "externalBuffer")?;
            h.backend.spmv(&h.exec(), &args, buffer)
        }
    }
}

/// Workspace size in bytes for `spblkSpMV` (may be 0; then `externalBuffer` may be NULL).
#[no_mangle]
pub extern "C" fn spblkSpMV_bufferSize(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    vecX: spblkConstDnVecDescr_t,
    beta: *const c_void,
    vecY: spblkDnVecDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpMVAlg_t,
    bufferSize: *mut usize,
) -> spblkStatus_t {
    entry("spblkSpMV_bufferSize", || {
        spmv(Stage::BufferSize(bufferSize), handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg)
    })
}

/// Optional analysis for repeated `spblkSpMV` calls with the same matrix and opA: builds the
/// matrix's plan (for CSC, COO or transposed A the converted pattern, once; and its longest
/// row), owned by `matA` and used by every later call with the same opA. Plans hold no values:
/// values changed in place are read by the next call. `spblkCsrSetPointers`,
/// `spblkSpMatSetValues` and `spblkDestroySpMat` drop the plan. On CUDA it allocates device
/// memory and waits for its work (so it is not graph-capturable; `spblkSpMV` is).
#[no_mangle]
pub extern "C" fn spblkSpMV_preprocess(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    vecX: spblkConstDnVecDescr_t,
    beta: *const c_void,
    vecY: spblkDnVecDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpMVAlg_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpMV_preprocess", || {
        spmv(Stage::Preprocess(externalBuffer), handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg)
    })
}

/// `Y = alpha op(A) X + beta Y`; with beta = 0, Y is not read.
#[no_mangle]
pub extern "C" fn spblkSpMV(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    vecX: spblkConstDnVecDescr_t,
    beta: *const c_void,
    vecY: spblkDnVecDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpMVAlg_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpMV", || {
        spmv(Stage::Compute(externalBuffer), handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg)
    })
}

#[allow(clippy::too_many_arguments)]
fn spmm(
    stage: Stage,
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    beta: *const c_void,
    matC: spblkDnMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpMMAlg_t,
) -> Result<()> {
    // SAFETY (lookups): registry-checked; shared as in spmv.
    let h = unsafe { boundary::handle(handle)? };
    let a = unsafe { sp_mat_ref(matA, "matA")? };
    let b = unsafe { dn_mat_ref(matB, "matB")? };
    let c = unsafe { dn_mat_ref(matC, "matC")? };
    let batched = a.batch.count > 1;
    ops::batch::spmm_alg(alg, a)?;
    for (a, b, c) in ops::batch::spmm(a, b, c)? {
        let (a, b, c) = (&a, &b, &c);
        let mut args = ops::spmm_args(h.pointer_mode, opA, opB, alpha, a, b, beta, c, computeType, alg)?;
        let needed = ops::spmm_workspace(h.backend.as_ref(), &mut args, alg)?;
        match stage {
            // Every batch has the same shape, and runs in the same workspace.
            Stage::BufferSize(size) => {
                out(size, "bufferSize")?;
                // SAFETY: checked non-NULL.
                unsafe { write(size, needed) };
                return Ok(());
            }
            // A batched matA runs without plans: there is nothing to prepare.
            Stage::Preprocess(buffer) => {
                ops::require_buffer(needed, buffer, "externalBuffer")?;
                if !batched {
                    ops::spmm_preprocess(h.backend.as_ref(), &h.exec(), &args, alg, buffer)?;
                }
                return Ok(());
            }
            Stage::Compute(buffer) => {
                ops::require_buffer(needed, buffer, "externalBuffer")?;
                h.backend.spmm(&h.exec(), &args, buffer)?;
            }
        }
    }
    Ok(())
}

/// Workspace size in bytes for `spblkSpMM`.
#[no_mangle]
pub extern "C" fn spblkSpMM_bufferSize(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    beta: *const c_void,
    matC: spblkDnMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpMMAlg_t,
    bufferSize: *mut usize,
) -> spblkStatus_t {
    entry("spblkSpMM_bufferSize", || {
        spmm(Stage::BufferSize(bufferSize), handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg)
    })
}

/// Optional analysis for repeated `spblkSpMM` calls with the same matrix and opA; the plan is
/// `spblkSpMV_preprocess`'s (shared by both operations) and follows the same rules.
#[no_mangle]
pub extern "C" fn spblkSpMM_preprocess(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    beta: *const c_void,
    matC: spblkDnMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpMMAlg_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpMM_preprocess", || {
        spmm(Stage::Preprocess(externalBuffer), handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg)
    })
}

/// `C = alpha op(A) op(B) + beta C` (A sparse; B, C dense); with beta = 0, C is not read.
#[no_mangle]
pub extern "C" fn spblkSpMM(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    beta: *const c_void,
    matC: spblkDnMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSpMMAlg_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpMM", || {
        spmm(Stage::Compute(externalBuffer), handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg)
    })
}

#[allow(clippy::too_many_arguments)]
fn sddmm(
    stage: Stage,
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstDnMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    beta: *const c_void,
    matC: spblkSpMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSDDMMAlg_t,
) -> Result<()> {
    // SAFETY (lookups): registry-checked; shared as in spmv.
    let h = unsafe { boundary::handle(handle)? };
    let a = unsafe { dn_mat_ref(matA, "matA")? };
    let b = unsafe { dn_mat_ref(matB, "matB")? };
    let c = unsafe { sp_mat_ref(matC, "matC")? };
    let batched = c.batch.count > 1;
    ops::batch::sddmm_alg(alg, c)?;
    for (a, b, c) in ops::batch::sddmm(a, b, c)? {
        let (a, b, c) = (&a, &b, &c);
        let args = ops::sddmm_args(h.pointer_mode, opA, opB, alpha, a, b, beta, c, computeType, alg)?;
        let needed = h.backend.sddmm_buffer_size(&args)?;
        match stage {
            Stage::BufferSize(size) => {
                out(size, "bufferSize")?;
                // SAFETY: checked non-NULL.
                unsafe { write(size, needed) };
                return Ok(());
            }
            Stage::Preprocess(buffer) => {
                ops::require_buffer(needed, buffer, "externalBuffer")?;
                if !batched {
                    ops::sddmm_preprocess(h.backend.as_ref(), &h.exec(), &args, alg, buffer)?;
                }
                return Ok(());
            }
            Stage::Compute(buffer) => {
                ops::require_buffer(needed, buffer, "externalBuffer")?;
                h.backend.sddmm(&h.exec(), &args, buffer)?;
            }
        }
    }
    Ok(())
}

/// Workspace size in bytes for `spblkSDDMM`.
#[no_mangle]
pub extern "C" fn spblkSDDMM_bufferSize(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstDnMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    beta: *const c_void,
    matC: spblkSpMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSDDMMAlg_t,
    bufferSize: *mut usize,
) -> spblkStatus_t {
    entry("spblkSDDMM_bufferSize", || {
        sddmm(Stage::BufferSize(bufferSize), handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg)
    })
}

/// Analysis for repeated `spblkSDDMM` calls with the same pattern: with
/// `SPBLK_SDDMM_ALG_ASPT` it builds the ASpT plan the product needs. With the default, on CUDA,
/// it builds what makes later calls faster: ASpT's plan where an estimate predicts its
/// tensor-core tiles faster (f32), and for matrices of up to 131 072 entries each entry's row
/// (small calls read it instead of searching the offsets). The default needs neither: without
/// this call it streams.
#[no_mangle]
pub extern "C" fn spblkSDDMM_preprocess(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstDnMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    beta: *const c_void,
    matC: spblkSpMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSDDMMAlg_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSDDMM_preprocess", || {
        sddmm(Stage::Preprocess(externalBuffer), handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg)
    })
}

/// `C = alpha (op(A) op(B)) ∘ spy(C) + beta C` (A, B dense; C sparse CSR).
#[no_mangle]
pub extern "C" fn spblkSDDMM(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    alpha: *const c_void,
    matA: spblkConstDnMatDescr_t,
    matB: spblkConstDnMatDescr_t,
    beta: *const c_void,
    matC: spblkSpMatDescr_t,
    computeType: spblkDataType_t,
    alg: spblkSDDMMAlg_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSDDMM", || {
        sddmm(Stage::Compute(externalBuffer), handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg)
    })
}
