//! The legacy matrix addition `C = alpha A + beta B` (CSR, 32-bit indices, columns ascending
//! within rows): `spblk{S,D}csrgeam2_bufferSizeExt`, `spblkXcsrgeam2Nnz` (C's offsets and
//! nnz), `spblk{S,D}csrgeam2` (C's columns and values). C's pattern is the union of A's and
//! B's, whatever alpha and beta are. The protocol is cuSPARSE's: size the workspace, count,
//! allocate C, fill; a caller who knows C's offsets may skip the count.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write};
use super::mat_descr::mat_descr_arg;
use super::types::*;
use crate::backend::GeamArgs;
use crate::error::Result;
use crate::ops::geam::{geam_args, geam_values, Input, Output, Step};
use crate::ops::require_buffer;
use crate::types::DataType;

/// One input matrix's C arguments.
type Matrix<V> = (spblkMatDescr_t, i32, *const V, *const i32, *const i32);

/// # Safety
/// `d` is registry-checked here; the pointers are only carried.
unsafe fn input<V>((d, nnz, values, offsets, columns): Matrix<V>, name: &str) -> Result<Input> {
    // SAFETY: registry-checked.
    let descr = unsafe { mat_descr_arg(d, &format!("descr{name}"))? } as *const _;
    Ok(Input { descr, nnz, offsets, columns, values: values.cast() })
}

/// C's descriptor, values, offsets, columns and the count's total.
type Target = (spblkMatDescr_t, *mut c_void, *mut i32, *mut i32, *mut i32);

/// # Safety
/// As [`input`].
unsafe fn checked(
    m: i32,
    n: i32,
    a: Input,
    b: Input,
    (d, values, offsets, columns, total): Target,
    step: Step,
) -> Result<GeamArgs> {
    // SAFETY: registry-checked.
    let descr = unsafe { mat_descr_arg(d, "descrC")? } as *const _;
    // SAFETY: the descriptors were just checked.
    unsafe { geam_args(m, n, &a, &b, &Output { descr, offsets, columns, values, total }, step) }
}

#[allow(clippy::too_many_arguments)]
fn buffer_size<V>(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    a: Matrix<V>,
    b: Matrix<V>,
    c: spblkMatDescr_t,
    size: *mut usize,
) -> Result<()> {
    // SAFETY (lookups): registry-checked.
    let h = unsafe { boundary::handle(handle)? };
    let (a, b) = unsafe { (input(a, "A")?, input(b, "B")?) };
    let none = std::ptr::null_mut::<i32>();
    let target = (c, none.cast(), none, none, none);
    // SAFETY: as above.
    let args = unsafe { checked(m, n, a, b, target, Step::Size)? };
    out(size, "pBufferSizeInBytes")?;
    let needed = h.backend.geam_buffer_size(&args)?;
    // SAFETY: checked non-NULL.
    unsafe { write(size, needed) };
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn fill<V>(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    (alpha, beta): (*const V, *const V),
    a: Matrix<V>,
    b: Matrix<V>,
    c: Target,
    value_type: DataType,
) -> Result<()> {
    // SAFETY (lookups): registry-checked.
    let h = unsafe { boundary::handle(handle)? };
    let (a, b) = unsafe { (input(a, "A")?, input(b, "B")?) };
    // SAFETY: as above.
    let args = unsafe { checked(m, n, a, b, c, Step::Fill)? };
    let values = geam_values(h.pointer_mode, alpha.cast(), beta.cast(), value_type)?;
    h.backend.geam(&h.exec(), &args, &values)
}

/// Workspace of `spblkXcsrgeam2Nnz` and `spblkScsrgeam2` in bytes. C's columns and values
/// are not read (they are allocated after the count).
#[no_mangle]
pub extern "C" fn spblkScsrgeam2_bufferSizeExt(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    alpha: *const f32,
    descrA: spblkMatDescr_t,
    nnzA: i32,
    csrSortedValA: *const f32,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    beta: *const f32,
    descrB: spblkMatDescr_t,
    nnzB: i32,
    csrSortedValB: *const f32,
    csrSortedRowPtrB: *const i32,
    csrSortedColIndB: *const i32,
    descrC: spblkMatDescr_t,
    csrSortedValC: *const f32,
    csrSortedRowPtrC: *const i32,
    csrSortedColIndC: *const i32,
    pBufferSizeInBytes: *mut usize,
) -> spblkStatus_t {
    let _ = (alpha, beta, csrSortedValC, csrSortedRowPtrC, csrSortedColIndC);
    entry("spblkScsrgeam2_bufferSizeExt", || {
        let a = (descrA, nnzA, csrSortedValA, csrSortedRowPtrA, csrSortedColIndA);
        let b = (descrB, nnzB, csrSortedValB, csrSortedRowPtrB, csrSortedColIndB);
        buffer_size(handle, m, n, a, b, descrC, pBufferSizeInBytes)
    })
}

/// Workspace of `spblkXcsrgeam2Nnz` and `spblkDcsrgeam2` in bytes (as the single-precision one).
#[no_mangle]
pub extern "C" fn spblkDcsrgeam2_bufferSizeExt(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    alpha: *const f64,
    descrA: spblkMatDescr_t,
    nnzA: i32,
    csrSortedValA: *const f64,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    beta: *const f64,
    descrB: spblkMatDescr_t,
    nnzB: i32,
    csrSortedValB: *const f64,
    csrSortedRowPtrB: *const i32,
    csrSortedColIndB: *const i32,
    descrC: spblkMatDescr_t,
    csrSortedValC: *const f64,
    csrSortedRowPtrC: *const i32,
    csrSortedColIndC: *const i32,
    pBufferSizeInBytes: *mut usize,
) -> spblkStatus_t {
    let _ = (alpha, beta, csrSortedValC, csrSortedRowPtrC, csrSortedColIndC);
    entry("spblkDcsrgeam2_bufferSizeExt", || {
        let a = (descrA, nnzA, csrSortedValA, csrSortedRowPtrA, csrSortedColIndA);
        let b = (descrB, nnzB, csrSortedValB, csrSortedRowPtrB, csrSortedColIndB);
        buffer_size(handle, m, n, a, b, descrC, pBufferSizeInBytes)
    })
}

/// C's m + 1 row offsets (counted from descrC's base) for `C = alpha A + beta B`, and, unless
/// `nnzTotalDevHostPtr` is NULL, nnz(C) there (host memory in pointer mode host, where the
/// call blocks; device memory in pointer mode device).
#[no_mangle]
pub extern "C" fn spblkXcsrgeam2Nnz(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    descrA: spblkMatDescr_t,
    nnzA: i32,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    descrB: spblkMatDescr_t,
    nnzB: i32,
    csrSortedRowPtrB: *const i32,
    csrSortedColIndB: *const i32,
    descrC: spblkMatDescr_t,
    csrSortedRowPtrC: *mut i32,
    nnzTotalDevHostPtr: *mut i32,
    workspace: *mut c_void,
) -> spblkStatus_t {
    entry("spblkXcsrgeam2Nnz", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let none = std::ptr::null::<u8>();
        let a = unsafe { input((descrA, nnzA, none, csrSortedRowPtrA, csrSortedColIndA), "A")? };
        let b = unsafe { input((descrB, nnzB, none, csrSortedRowPtrB, csrSortedColIndB), "B")? };
        let c = (descrC, std::ptr::null_mut(), csrSortedRowPtrC, std::ptr::null_mut(), nnzTotalDevHostPtr);
        // SAFETY: as above.
        let args = unsafe { checked(m, n, a, b, c, Step::Count)? };
        require_buffer(h.backend.geam_buffer_size(&args)?, workspace, "workspace")?;
        h.backend.geam_nnz(&h.exec(), &args, workspace)
    })
}

/// `C = alpha A + beta B` into the rows C's offsets describe (from `spblkXcsrgeam2Nnz`, or
/// known to the caller): C's columns ascending, a column repeated within a row of A or B
/// summed into one entry. alpha and beta in host or device memory per the pointer mode.
#[no_mangle]
pub extern "C" fn spblkScsrgeam2(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    alpha: *const f32,
    descrA: spblkMatDescr_t,
    nnzA: i32,
    csrSortedValA: *const f32,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    beta: *const f32,
    descrB: spblkMatDescr_t,
    nnzB: i32,
    csrSortedValB: *const f32,
    csrSortedRowPtrB: *const i32,
    csrSortedColIndB: *const i32,
    descrC: spblkMatDescr_t,
    csrSortedValC: *mut f32,
    csrSortedRowPtrC: *mut i32,
    csrSortedColIndC: *mut i32,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    let _ = pBuffer;
    entry("spblkScsrgeam2", || {
        let a = (descrA, nnzA, csrSortedValA, csrSortedRowPtrA, csrSortedColIndA);
        let b = (descrB, nnzB, csrSortedValB, csrSortedRowPtrB, csrSortedColIndB);
        let c = (descrC, csrSortedValC.cast(), csrSortedRowPtrC, csrSortedColIndC, std::ptr::null_mut());
        fill(handle, m, n, (alpha, beta), a, b, c, DataType::F32)
    })
}

/// `C = alpha A + beta B` in double precision (as `spblkScsrgeam2`).
#[no_mangle]
pub extern "C" fn spblkDcsrgeam2(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    alpha: *const f64,
    descrA: spblkMatDescr_t,
    nnzA: i32,
    csrSortedValA: *const f64,
    csrSortedRowPtrA: *const i32,
    csrSortedColIndA: *const i32,
    beta: *const f64,
    descrB: spblkMatDescr_t,
    nnzB: i32,
    csrSortedValB: *const f64,
    csrSortedRowPtrB: *const i32,
    csrSortedColIndB: *const i32,
    descrC: spblkMatDescr_t,
    csrSortedValC: *mut f64,
    csrSortedRowPtrC: *mut i32,
    csrSortedColIndC: *mut i32,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    let _ = pBuffer;
    entry("spblkDcsrgeam2", || {
        let a = (descrA, nnzA, csrSortedValA, csrSortedRowPtrA, csrSortedColIndA);
        let b = (descrB, nnzB, csrSortedValB, csrSortedRowPtrB, csrSortedColIndB);
        let c = (descrC, csrSortedValC.cast(), csrSortedRowPtrC, csrSortedColIndC, std::ptr::null_mut());
        fill(handle, m, n, (alpha, beta), a, b, c, DataType::F64)
    })
}
