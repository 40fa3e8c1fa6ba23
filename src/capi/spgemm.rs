//! SpGEMM with cuSPARSE's protocols: `workEstimation` ×2, `compute` ×2 (a NULL buffer asks
//! for its size), read nnz(C) with `spblkSpMatGetSize`, allocate, `spblkCsrSetPointers`,
//! then `copy`; or the reuse path: `reuse_workEstimation` ×2, `reuse_nnz` ×2, allocate and
//! set C's arrays, `reuse_copy` ×2, then `reuse_compute` as often as A's and B's values
//! change.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write, Kind};
use super::sp_mat::sp_mat;
use super::types::*;
use crate::backend::{SpgemmArgs, SpgemmMethod, SpgemmStage, SpgemmState};
use crate::descr::SpMat;
use crate::error::{Error, Result};
use crate::ops;
use crate::types::PointerMode;

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

/// Everything a SpGEMM call needs, looked up and checked: `make` builds the call's arguments
/// from the operands (copies, so that A may equal B).
#[allow(clippy::too_many_arguments)]
fn with_operands<R>(
    handle: spblkHandle_t,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstSpMatDescr_t,
    matC: spblkSpMatDescr_t,
    spgemmDescr: spblkSpGEMMDescr_t,
    make: impl for<'a> FnOnce(PointerMode, &'a SpMat, &'a SpMat, &'a SpMat) -> Result<SpgemmArgs<'a>>,
    body: impl FnOnce(&super::handle::Handle, &SpgemmArgs, &mut SpgemmState) -> Result<R>,
) -> Result<R> {
    // SAFETY (lookups): registry-checked.
    let h = unsafe { boundary::handle(handle)? };
    let a = unsafe { sp_mat(matA, "matA")? }.clone();
    let b = unsafe { sp_mat(matB, "matB")? }.clone();
    let c = unsafe { sp_mat(matC, "matC")? }.clone();
    let st = unsafe { state(spgemmDescr)? };
    let args = make(h.pointer_mode, &a, &b, &c)?;
    body(h, &args, st)
}

/// `with_operands` for the calls that take alpha, beta and a compute type.
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
    with_operands(
        handle,
        matA,
        matB,
        matC,
        spgemmDescr,
        |mode, a, b, c| ops::spgemm_args(mode, opA, opB, alpha, a, b, beta, c, computeType, alg),
        body,
    )
}

/// `with_operands` for the reuse path's set-up calls (no alpha, beta or compute type).
fn with_pattern<R>(
    handle: spblkHandle_t,
    (opA, opB): (spblkOperation_t, spblkOperation_t),
    (matA, matB, matC): (spblkConstSpMatDescr_t, spblkConstSpMatDescr_t, spblkSpMatDescr_t),
    alg: spblkSpGEMMAlg_t,
    spgemmDescr: spblkSpGEMMDescr_t,
    body: impl FnOnce(&super::handle::Handle, &SpgemmArgs, &mut SpgemmState) -> Result<R>,
) -> Result<R> {
    with_operands(
        handle,
        matA,
        matB,
        matC,
        spgemmDescr,
        |_, a, b, c| ops::spgemm_pattern_args(opA, opB, a, b, c, alg),
        body,
    )
}

/// The descriptor must have reached `stage` (and the operands match the work estimation's).
fn require(st: &SpgemmState, args: &SpgemmArgs, stage: SpgemmStage, what: &str) -> Result<()> {
    // The reuse path's copy may run again once done; compute and copy need their own path.
    let reached = match stage {
        SpgemmStage::WorkEstimated | SpgemmStage::ReuseCounted => st.stage >= stage,
        _ => st.stage == stage,
    };
    if !reached {
        return Err(Error::invalid("spgemmDescr", format!("is not ready: {what}")));
    }
    ops::spgemm_same_shape(args, st.shape)
}

/// Records nnz(C) on the caller's descriptor (not the copy the call used).
fn publish_nnz(matC: spblkSpMatDescr_t, nnz: Option<i64>) -> Result<()> {
    if let Some(nnz) = nnz {
        // SAFETY: registry-checked.
        unsafe { sp_mat(matC, "matC")? }.nnz = nnz;
    }
    Ok(())
}

/// nnz(C) must fit C's offsets.
fn check_nnz_fits(args: &SpgemmArgs, nnz: i64) -> Result<()> {
    let limit = args.c.offsets_type.max_value() - args.c.base.offset();
    if nnz > limit {
        return Err(Error::insufficient_resources(format!(
            "nnz(C) = {nnz} does not fit matC's {:?} indices (use 64-bit indices)",
            args.c.offsets_type
        )));
    }
    Ok(())
}

/// Size query (buffer NULL: `*size` set, None) or check of a provided buffer of `*size`
/// bytes (Some(its size)).
fn sized_buffer(size: *mut usize, buffer: *mut c_void, needed: usize, arg: &str) -> Result<Option<usize>> {
    out(size, arg)?;
    if buffer.is_null() {
        // SAFETY: checked non-NULL.
        unsafe { write(size, needed.max(1)) };
        return Ok(None);
    }
    // SAFETY: checked non-NULL; the caller's in/out size.
    let given = unsafe { std::ptr::read_unaligned(size) };
    if given < needed {
        return Err(Error::insufficient_resources(format!(
            "argument '{arg}' gives {given} bytes but {needed} are required"
        )));
    }
    Ok(Some(given))
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
            work_estimation(h, args, st, bufferSize1, externalBuffer1)
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
                require(st, args, SpgemmStage::WorkEstimated, "call spblkSpGEMM_workEstimation with a buffer first")?;
                if args.method == SpgemmMethod::BinnedHashInChunks && st.chunk_fraction.is_none() {
                    return Err(Error::invalid(
                        "spgemmDescr",
                        "has no chunk_fraction: with SPBLK_SPGEMM_ALG3 call spblkSpGEMM_estimateMemory with buffer 3 first",
                    ));
                }
                let needed = h.backend.spgemm_compute_size(args, st)?;
                let Some(given) = sized_buffer(bufferSize2, externalBuffer2, needed, "bufferSize2")? else {
                    return Ok(None);
                };
                st.stage = SpgemmStage::WorkEstimated;
                let nnz = h.backend.spgemm_compute(&h.exec(), args, st, externalBuffer2, given)?;
                check_nnz_fits(args, nnz)?;
                st.stage = SpgemmStage::Computed;
                st.c_nnz = Some(nnz);
                Ok(Some(nnz))
            },
        )?;
        publish_nnz(matC, nnz)
    })
}

/// Phase 3: writes C's row offsets, column indices (sorted within rows) and values into the
/// arrays set with `spblkCsrSetPointers`. The values are computed here, from A's and B's
/// values as they are when `copy` runs (cuSPARSE computes them in `compute`; A and B must not
/// change in between either way).
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
            require(st, args, SpgemmStage::Computed, "call spblkSpGEMM_compute with a buffer first")?;
            ops::spgemm_output_ready(args.c, st.c_nnz.unwrap_or(0))?;
            h.backend.spgemm_copy(&h.exec(), args, st)
        })
    })
}

/// The work estimation of either protocol: a size query, or the estimation in `buffer`.
fn work_estimation(
    h: &super::handle::Handle,
    args: &SpgemmArgs,
    st: &mut SpgemmState,
    size: *mut usize,
    buffer: *mut c_void,
) -> Result<()> {
    let needed = h.backend.spgemm_work_estimation_size(args)?;
    let Some(given) = sized_buffer(size, buffer, needed, "bufferSize1")? else {
        return Ok(());
    };
    st.stage = SpgemmStage::Created;
    st.c_nnz = None;
    st.num_products = None;
    st.chunk_fraction = None;
    h.backend.spgemm_work_estimation(&h.exec(), args, st, buffer, given)?;
    st.shape = Some(ops::spgemm_shape(args));
    st.stage = SpgemmStage::WorkEstimated;
    Ok(())
}

/// The number of scalar products of A·B, known once `spblkSpGEMM_workEstimation` (or
/// `spblkSpGEMMreuse_workEstimation`) has run with a buffer.
#[no_mangle]
pub extern "C" fn spblkSpGEMM_getNumProducts(spgemmDescr: spblkSpGEMMDescr_t, num_prods: *mut i64) -> spblkStatus_t {
    entry("spblkSpGEMM_getNumProducts", || {
        // SAFETY: registry-checked.
        let st = unsafe { state(spgemmDescr)? };
        out(num_prods, "num_prods")?;
        let Some(n) = st.num_products.filter(|_| st.stage >= SpgemmStage::WorkEstimated) else {
            return Err(Error::invalid(
                "spgemmDescr",
                "has no work estimation (call spblkSpGEMM_workEstimation with a buffer first)",
            ));
        };
        // SAFETY: checked non-NULL.
        unsafe { write(num_prods, n) };
        Ok(())
    })
}

/// ALG2's and ALG3's protocol, after the work estimation: with `externalBuffer3` NULL, stores
/// the size of buffer 3 in `*bufferSize3`; otherwise stores in `*bufferSize2` the size
/// `compute` needs, which then holds all of the product's working memory (buffer 3 may be
/// freed afterwards). `chunk_fraction` (in (0, 1]) is ALG3's: the rows that need global
/// tables run in passes of that fraction of their memory (at least one row's); ALG2 checks
/// and ignores it.
#[no_mangle]
pub extern "C" fn spblkSpGEMM_estimateMemory(
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
    chunk_fraction: f32,
    bufferSize3: *mut usize,
    externalBuffer3: *mut c_void,
    bufferSize2: *mut usize,
) -> spblkStatus_t {
    entry("spblkSpGEMM_estimateMemory", || {
        with_call(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, spgemmDescr, |h, args, st| {
            let chunked = args.method == SpgemmMethod::BinnedHashInChunks;
            if args.method != SpgemmMethod::BinnedHashInBuffer && !chunked {
                return Err(Error::invalid("alg", "must be SPBLK_SPGEMM_ALG2 or ALG3 for spblkSpGEMM_estimateMemory"));
            }
            if !(chunk_fraction > 0.0 && chunk_fraction <= 1.0) {
                return Err(Error::invalid("chunk_fraction", format!("is {chunk_fraction}; it must be in (0, 1]")));
            }
            require(st, args, SpgemmStage::WorkEstimated, "call spblkSpGEMM_workEstimation with a buffer first")?;
            if sized_buffer(bufferSize3, externalBuffer3, 1, "bufferSize3")?.is_none() {
                return Ok(());
            }
            out(bufferSize2, "bufferSize2")?;
            let before = st.chunk_fraction;
            if chunked {
                st.chunk_fraction = Some(chunk_fraction);
            }
            let needed = h.backend.spgemm_compute_size(args, st).inspect_err(|_| st.chunk_fraction = before)?;
            // SAFETY: checked non-NULL.
            unsafe { write(bufferSize2, needed.max(1)) };
            Ok(())
        })
    })
}

/// Reuse path, phase 1: as `spblkSpGEMM_workEstimation`, for a product whose structure is
/// computed once (`reuse_nnz`, `reuse_copy`) and whose values are recomputed by
/// `reuse_compute` as often as A's and B's values change.
#[no_mangle]
pub extern "C" fn spblkSpGEMMreuse_workEstimation(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstSpMatDescr_t,
    matC: spblkSpMatDescr_t,
    alg: spblkSpGEMMAlg_t,
    spgemmDescr: spblkSpGEMMDescr_t,
    bufferSize1: *mut usize,
    externalBuffer1: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpGEMMreuse_workEstimation", || {
        with_pattern(handle, (opA, opB), (matA, matB, matC), alg, spgemmDescr, |h, args, st| {
            work_estimation(h, args, st, bufferSize1, externalBuffer1)
        })
    })
}

/// Reuse path, phase 2: with all three buffers NULL, stores their sizes; otherwise computes
/// C's structure, after which `spblkSpMatGetSize(matC)` reports nnz(C) (blocks until it is
/// known). Buffers 1 and 2 may then be freed; buffer 3 must live until `reuse_copy` has run,
/// buffer 4 until the last `reuse_compute`.
#[no_mangle]
pub extern "C" fn spblkSpGEMMreuse_nnz(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstSpMatDescr_t,
    matC: spblkSpMatDescr_t,
    alg: spblkSpGEMMAlg_t,
    spgemmDescr: spblkSpGEMMDescr_t,
    bufferSize2: *mut usize,
    externalBuffer2: *mut c_void,
    bufferSize3: *mut usize,
    externalBuffer3: *mut c_void,
    bufferSize4: *mut usize,
    externalBuffer4: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpGEMMreuse_nnz", || {
        let nnz = with_pattern(handle, (opA, opB), (matA, matB, matC), alg, spgemmDescr, |h, args, st| {
            require(st, args, SpgemmStage::WorkEstimated, "call spblkSpGEMMreuse_workEstimation with a buffer first")?;
            let sizes = [(bufferSize2, "bufferSize2"), (bufferSize3, "bufferSize3"), (bufferSize4, "bufferSize4")];
            for (p, arg) in sizes {
                out(p, arg)?;
            }
            let buffers = [externalBuffer2, externalBuffer3, externalBuffer4];
            let needed = h.backend.spgemm_reuse_nnz_sizes(args, st)?;
            if buffers.iter().all(|b| b.is_null()) {
                for ((p, _), n) in sizes.iter().zip(needed) {
                    // SAFETY: checked non-NULL.
                    unsafe { write(*p, n.max(1)) };
                }
                return Ok(None);
            }
            for (((p, arg), b), n) in sizes.iter().zip(buffers).zip(needed) {
                let buf_arg = arg.replace("bufferSize", "externalBuffer");
                if b.is_null() {
                    return Err(Error::invalid(
                        &buf_arg,
                        "is NULL while another buffer is not (all NULL asks for the sizes)",
                    ));
                }
                sized_buffer(*p, b, n, arg)?;
            }
            st.stage = SpgemmStage::WorkEstimated;
            let nnz = h.backend.spgemm_reuse_nnz(&h.exec(), args, st, buffers)?;
            check_nnz_fits(args, nnz)?;
            st.stage = SpgemmStage::ReuseCounted;
            st.c_nnz = Some(nnz);
            Ok(Some(nnz))
        })?;
        publish_nnz(matC, nnz)
    })
}

/// Reuse path, phase 3: with `externalBuffer5` NULL, stores its size in `*bufferSize5`;
/// otherwise writes C's row offsets and sorted column indices (not its values) into the
/// arrays set with `spblkCsrSetPointers`, and prepares `reuse_compute`. Buffer 5 must live
/// until the last `reuse_compute`.
#[no_mangle]
pub extern "C" fn spblkSpGEMMreuse_copy(
    handle: spblkHandle_t,
    opA: spblkOperation_t,
    opB: spblkOperation_t,
    matA: spblkConstSpMatDescr_t,
    matB: spblkConstSpMatDescr_t,
    matC: spblkSpMatDescr_t,
    alg: spblkSpGEMMAlg_t,
    spgemmDescr: spblkSpGEMMDescr_t,
    bufferSize5: *mut usize,
    externalBuffer5: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSpGEMMreuse_copy", || {
        with_pattern(handle, (opA, opB), (matA, matB, matC), alg, spgemmDescr, |h, args, st| {
            require(st, args, SpgemmStage::ReuseCounted, "call spblkSpGEMMreuse_nnz with buffers first")?;
            let needed = h.backend.spgemm_reuse_copy_size(args, st)?;
            if sized_buffer(bufferSize5, externalBuffer5, needed, "bufferSize5")?.is_none() {
                return Ok(());
            }
            ops::spgemm_output_ready(args.c, st.c_nnz.unwrap_or(0))?;
            h.backend.spgemm_reuse_copy(&h.exec(), args, st, externalBuffer5)?;
            st.stage = SpgemmStage::ReuseCopied;
            Ok(())
        })
    })
}

/// Reuse path, phase 4: C = alpha·A·B + beta·C with A's and B's values as they are now (the
/// structure set up by the previous phases); any number of times, asynchronously.
#[no_mangle]
pub extern "C" fn spblkSpGEMMreuse_compute(
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
    entry("spblkSpGEMMreuse_compute", || {
        with_call(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, spgemmDescr, |h, args, st| {
            require(st, args, SpgemmStage::ReuseCopied, "call spblkSpGEMMreuse_copy with a buffer first")?;
            ops::spgemm_output_ready(args.c, st.c_nnz.unwrap_or(0))?;
            h.backend.spgemm_reuse_compute(&h.exec(), args, st)
        })
    })
}
