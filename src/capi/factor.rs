//! The legacy incomplete factorizations, cuSPARSE's protocol (docs/factor.md): an info object,
//! `_bufferSize`, `_analysis` (its buffer holds the analysis and must live until the last
//! factorization), the factorization in place on A's values, `zeroPivot` for the first row
//! whose pivot is missing (known after the analysis) or zero (after the factorization).
//! IC0 (`spblk{S,D}csric02*`) reads and writes A's lower triangle; ILU0 (`csrilu02`) all of A.
//! A is CSR with `int` indices, columns ascending within rows, descrA GENERAL (its base counts).

use std::ffi::c_void;

use super::boundary::{self, entry, out, write, Kind};
use super::handle::Handle;
use super::mat_descr::mat_descr_arg;
use super::types::*;
use crate::backend::{FactorArgs, FactorKind, FactorState};
use crate::error::Result;
use crate::ops::factor::{self as ops, Csr};
use crate::types::DataType;

fn kind_of(k: FactorKind) -> Kind {
    match k {
        FactorKind::Ic0 => Kind::Csric02Info,
        FactorKind::Ilu0 => Kind::Csrilu02Info,
    }
}

/// # Safety
/// Registry-checked; see `boundary::descr`.
unsafe fn state<'a>(info: *const c_void, k: FactorKind) -> Result<&'a mut FactorState> {
    // SAFETY: forwarded.
    unsafe { boundary::descr(info, kind_of(k), "info") }
}

/// The arguments every call but zeroPivot shares.
type Call = (spblkHandle_t, i32, i32, spblkMatDescr_t, *mut c_void, *const i32, *const i32);

/// Looks up a call's objects and checks its matrix, then runs `body`.
fn with_call<R>(
    k: FactorKind,
    (handle, m, nnz, descr, values, offsets, columns): Call,
    info: *const c_void,
    value_type: DataType,
    body: impl FnOnce(&Handle, &FactorArgs, &mut FactorState) -> Result<R>,
) -> Result<R> {
    // SAFETY (lookups): registry-checked.
    let h = unsafe { boundary::handle(handle)? };
    let d = unsafe { mat_descr_arg(descr, "descrA")? };
    let st = unsafe { state(info, k)? };
    let args = ops::factor_args(k, d, &Csr { m, nnz, values, offsets, columns }, value_type)?;
    body(h, &args, st)
}

fn buffer_size(k: FactorKind, call: Call, info: *const c_void, vt: DataType, size: *mut i32) -> Result<()> {
    with_call(k, call, info, vt, |h, args, _| {
        out(size, "pBufferSizeInBytes")?;
        let needed = ops::buffer_size(h.backend.as_ref(), args)?;
        // SAFETY: checked non-NULL.
        unsafe { write(size, needed) };
        Ok(())
    })
}

fn analysis(
    k: FactorKind,
    call: Call,
    info: *const c_void,
    vt: DataType,
    policy: spblkSolvePolicy_t,
    buffer: *mut c_void,
) -> Result<()> {
    with_call(k, call, info, vt, |h, args, st| ops::analysis(h.backend.as_ref(), &h.exec(), args, st, policy, buffer))
}

fn factor(k: FactorKind, call: Call, info: *const c_void, vt: DataType, policy: spblkSolvePolicy_t) -> Result<()> {
    with_call(k, call, info, vt, |h, args, st| ops::factor(h.backend.as_ref(), &h.exec(), args, st, policy))
}

fn zero_pivot(k: FactorKind, handle: spblkHandle_t, info: *const c_void, position: *mut i32) -> Result<()> {
    // SAFETY (lookups): registry-checked.
    let h = unsafe { boundary::handle(handle)? };
    let st = unsafe { state(info, k)? };
    ops::zero_pivot(h.backend.as_ref(), &h.exec(), h.pointer_mode, st, position)
}

fn create<D>(name: &'static str, info: *mut *mut D, k: FactorKind) -> spblkStatus_t {
    entry(name, || {
        out(info, "info")?;
        let p = boundary::register(FactorState::new(k), kind_of(k)) as *mut D;
        // SAFETY: checked non-NULL.
        unsafe { write(info, p) };
        Ok(())
    })
}

fn destroy(name: &'static str, info: *const c_void, k: FactorKind) -> spblkStatus_t {
    entry(name, || {
        // SAFETY: registry-checked; C must not use it afterwards.
        unsafe { boundary::release::<FactorState>(info, kind_of(k), "info")? };
        Ok(())
    })
}

/// Creates an IC0 info object (cuSPARSE's `csric02Info_t`).
#[no_mangle]
pub extern "C" fn spblkCreateCsric02Info(info: *mut spblkCsric02Info_t) -> spblkStatus_t {
    create("spblkCreateCsric02Info", info, FactorKind::Ic0)
}

/// Destroys an IC0 info object (the analysis' buffer stays the caller's); NULL is a no-op.
#[no_mangle]
pub extern "C" fn spblkDestroyCsric02Info(info: spblkCsric02Info_t) -> spblkStatus_t {
    destroy("spblkDestroyCsric02Info", info as *const c_void, FactorKind::Ic0)
}

/// Creates an ILU0 info object (cuSPARSE's `csrilu02Info_t`).
#[no_mangle]
pub extern "C" fn spblkCreateCsrilu02Info(info: *mut spblkCsrilu02Info_t) -> spblkStatus_t {
    create("spblkCreateCsrilu02Info", info, FactorKind::Ilu0)
}

/// Destroys an ILU0 info object (the analysis' buffer stays the caller's); NULL is a no-op.
#[no_mangle]
pub extern "C" fn spblkDestroyCsrilu02Info(info: spblkCsrilu02Info_t) -> spblkStatus_t {
    destroy("spblkDestroyCsrilu02Info", info as *const c_void, FactorKind::Ilu0)
}

/// Size in bytes of the buffer `spblkScsric02_analysis` keeps its analysis in (values unread).
#[no_mangle]
pub extern "C" fn spblkScsric02_bufferSize(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA: *mut f32,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsric02Info_t,
    pBufferSizeInBytes: *mut i32,
) -> spblkStatus_t {
    entry("spblkScsric02_bufferSize", || {
        let call = (handle, m, nnz, descrA, csrSortedValA.cast(), csrSortedRowPtrA, csrSortedColIndA);
        buffer_size(FactorKind::Ic0, call, info as *const c_void, DataType::F32, pBufferSizeInBytes)
    })
}

/// Size in bytes of the buffer `spblkDcsric02_analysis` keeps its analysis in (values unread).
#[no_mangle]
pub extern "C" fn spblkDcsric02_bufferSize(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA: *mut f64,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsric02Info_t,
    pBufferSizeInBytes: *mut i32,
) -> spblkStatus_t {
    entry("spblkDcsric02_bufferSize", || {
        let call = (handle, m, nnz, descrA, csrSortedValA.cast(), csrSortedRowPtrA, csrSortedColIndA);
        buffer_size(FactorKind::Ic0, call, info as *const c_void, DataType::F64, pBufferSizeInBytes)
    })
}

/// Analyses A's pattern for `spblkScsric02` into `pBuffer` (which must live until the last
/// factorization): afterwards `spblkXcsric02_zeroPivot` knows the first row without a diagonal
/// entry. On the host backend a row whose columns do not ascend is `INVALID_VALUE`.
#[no_mangle]
pub extern "C" fn spblkScsric02_analysis(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA: *const f32,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsric02Info_t,
    policy: spblkSolvePolicy_t,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkScsric02_analysis", || {
        let call = (handle, m, nnz, descrA, csrSortedValA.cast_mut().cast(), csrSortedRowPtrA, csrSortedColIndA);
        analysis(FactorKind::Ic0, call, info as *const c_void, DataType::F32, policy, pBuffer)
    })
}

/// As `spblkScsric02_analysis`, for `spblkDcsric02`.
#[no_mangle]
pub extern "C" fn spblkDcsric02_analysis(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA: *const f64,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsric02Info_t,
    policy: spblkSolvePolicy_t,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkDcsric02_analysis", || {
        let call = (handle, m, nnz, descrA, csrSortedValA.cast_mut().cast(), csrSortedRowPtrA, csrSortedColIndA);
        analysis(FactorKind::Ic0, call, info as *const c_void, DataType::F64, policy, pBuffer)
    })
}

/// The incomplete Cholesky factor L of A (A ≈ L Lᵀ, L in A's lower pattern), written over A's
/// lower triangle (entries above the diagonal untouched); deterministic. A missing diagonal
/// entry reads as one; a pivot a(i, i) - Σ l(i, j)² <= 0 stores the square root of its magnitude
/// and is reported by `spblkXcsric02_zeroPivot`. Both policies give the same factor.
#[no_mangle]
pub extern "C" fn spblkScsric02(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA_valM: *mut f32,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsric02Info_t,
    policy: spblkSolvePolicy_t,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    let _ = pBuffer; // the analysis' buffer, which the info object already knows
    entry("spblkScsric02", || {
        let call = (handle, m, nnz, descrA, csrSortedValA_valM.cast(), csrSortedRowPtrA, csrSortedColIndA);
        factor(FactorKind::Ic0, call, info as *const c_void, DataType::F32, policy)
    })
}

/// As `spblkScsric02`, in double precision.
#[no_mangle]
pub extern "C" fn spblkDcsric02(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA_valM: *mut f64,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsric02Info_t,
    policy: spblkSolvePolicy_t,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    let _ = pBuffer; // the analysis' buffer, which the info object already knows
    entry("spblkDcsric02", || {
        let call = (handle, m, nnz, descrA, csrSortedValA_valM.cast(), csrSortedRowPtrA, csrSortedColIndA);
        factor(FactorKind::Ic0, call, info as *const c_void, DataType::F64, policy)
    })
}

/// Blocks until the last analysis or factorization with `info` is done, then writes to
/// `position` (host or device memory per the pointer mode) the first row (with the matrix's
/// base) whose pivot is missing or zero and returns `SPBLK_STATUS_ZERO_PIVOT`, or writes -1
/// and returns success.
#[no_mangle]
pub extern "C" fn spblkXcsric02_zeroPivot(
    handle: spblkHandle_t,
    info: spblkCsric02Info_t,
    position: *mut i32,
) -> spblkStatus_t {
    entry("spblkXcsric02_zeroPivot", || zero_pivot(FactorKind::Ic0, handle, info as *const c_void, position))
}

/// Size in bytes of the buffer `spblkScsrilu02_analysis` keeps its analysis in (values unread).
#[no_mangle]
pub extern "C" fn spblkScsrilu02_bufferSize(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA: *mut f32,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsrilu02Info_t,
    pBufferSizeInBytes: *mut i32,
) -> spblkStatus_t {
    entry("spblkScsrilu02_bufferSize", || {
        let call = (handle, m, nnz, descrA, csrSortedValA.cast(), csrSortedRowPtrA, csrSortedColIndA);
        buffer_size(FactorKind::Ilu0, call, info as *const c_void, DataType::F32, pBufferSizeInBytes)
    })
}

/// Size in bytes of the buffer `spblkDcsrilu02_analysis` keeps its analysis in (values unread).
#[no_mangle]
pub extern "C" fn spblkDcsrilu02_bufferSize(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA: *mut f64,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsrilu02Info_t,
    pBufferSizeInBytes: *mut i32,
) -> spblkStatus_t {
    entry("spblkDcsrilu02_bufferSize", || {
        let call = (handle, m, nnz, descrA, csrSortedValA.cast(), csrSortedRowPtrA, csrSortedColIndA);
        buffer_size(FactorKind::Ilu0, call, info as *const c_void, DataType::F64, pBufferSizeInBytes)
    })
}

/// Analyses A's pattern for `spblkScsrilu02` into `pBuffer` (which must live until the last
/// factorization): afterwards `spblkXcsrilu02_zeroPivot` knows the first row without a
/// diagonal entry. On the host backend a row whose columns do not ascend is `INVALID_VALUE`.
#[no_mangle]
pub extern "C" fn spblkScsrilu02_analysis(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA: *const f32,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsrilu02Info_t,
    policy: spblkSolvePolicy_t,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkScsrilu02_analysis", || {
        let call = (handle, m, nnz, descrA, csrSortedValA.cast_mut().cast(), csrSortedRowPtrA, csrSortedColIndA);
        analysis(FactorKind::Ilu0, call, info as *const c_void, DataType::F32, policy, pBuffer)
    })
}

/// As `spblkScsrilu02_analysis`, for `spblkDcsrilu02`.
#[no_mangle]
pub extern "C" fn spblkDcsrilu02_analysis(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA: *const f64,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsrilu02Info_t,
    policy: spblkSolvePolicy_t,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkDcsrilu02_analysis", || {
        let call = (handle, m, nnz, descrA, csrSortedValA.cast_mut().cast(), csrSortedRowPtrA, csrSortedColIndA);
        analysis(FactorKind::Ilu0, call, info as *const c_void, DataType::F64, policy, pBuffer)
    })
}

/// The incomplete LU factors of A in A's pattern, written over A: L's entries below the
/// diagonal (its unit diagonal not stored), U's on and above it; deterministic. A missing
/// diagonal entry reads as one; a zero pivot is reported by `spblkXcsrilu02_zeroPivot` (or
/// replaced, see `spblkScsrilu02_numericBoost`). Both policies give the same factors.
#[no_mangle]
pub extern "C" fn spblkScsrilu02(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA_valM: *mut f32,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsrilu02Info_t,
    policy: spblkSolvePolicy_t,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    let _ = pBuffer; // the analysis' buffer, which the info object already knows
    entry("spblkScsrilu02", || {
        let call = (handle, m, nnz, descrA, csrSortedValA_valM.cast(), csrSortedRowPtrA, csrSortedColIndA);
        factor(FactorKind::Ilu0, call, info as *const c_void, DataType::F32, policy)
    })
}

/// As `spblkScsrilu02`, in double precision.
#[no_mangle]
pub extern "C" fn spblkDcsrilu02(
    handle: spblkHandle_t,
    m: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrSortedValA_valM: *mut f64,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    info: spblkCsrilu02Info_t,
    policy: spblkSolvePolicy_t,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    let _ = pBuffer; // the analysis' buffer, which the info object already knows
    entry("spblkDcsrilu02", || {
        let call = (handle, m, nnz, descrA, csrSortedValA_valM.cast(), csrSortedRowPtrA, csrSortedColIndA);
        factor(FactorKind::Ilu0, call, info as *const c_void, DataType::F64, policy)
    })
}

/// As `spblkXcsric02_zeroPivot`, for ILU0 (a boosted pivot is not reported).
#[no_mangle]
pub extern "C" fn spblkXcsrilu02_zeroPivot(
    handle: spblkHandle_t,
    info: spblkCsrilu02Info_t,
    position: *mut i32,
) -> spblkStatus_t {
    entry("spblkXcsrilu02_zeroPivot", || zero_pivot(FactorKind::Ilu0, handle, info as *const c_void, position))
}

/// With `enable_boost` non-zero, later `spblkScsrilu02` calls with `info` replace a pivot of
/// magnitude at most `*tol` by `*boost_val` (both read during this call, from host or device
/// memory per the pointer mode); with zero they stop (the pointers are then not read).
#[no_mangle]
pub extern "C" fn spblkScsrilu02_numericBoost(
    handle: spblkHandle_t,
    info: spblkCsrilu02Info_t,
    enable_boost: i32,
    tol: *mut f64,
    boost_val: *mut f32,
) -> spblkStatus_t {
    entry("spblkScsrilu02_numericBoost", || boost(handle, info, enable_boost, tol, boost_val.cast(), DataType::F32))
}

/// As `spblkScsrilu02_numericBoost`, for `spblkDcsrilu02`.
#[no_mangle]
pub extern "C" fn spblkDcsrilu02_numericBoost(
    handle: spblkHandle_t,
    info: spblkCsrilu02Info_t,
    enable_boost: i32,
    tol: *mut f64,
    boost_val: *mut f64,
) -> spblkStatus_t {
    entry("spblkDcsrilu02_numericBoost", || boost(handle, info, enable_boost, tol, boost_val.cast(), DataType::F64))
}

fn boost(
    handle: spblkHandle_t,
    info: spblkCsrilu02Info_t,
    enable: i32,
    tol: *const f64,
    value: *const c_void,
    vt: DataType,
) -> Result<()> {
    // SAFETY (lookups): registry-checked.
    let h = unsafe { boundary::handle(handle)? };
    let st = unsafe { state(info as *const c_void, FactorKind::Ilu0)? };
    ops::numeric_boost(h.backend.as_ref(), &h.exec(), h.pointer_mode, st, enable, tol, value, vt)
}
