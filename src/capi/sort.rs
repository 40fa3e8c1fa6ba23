//! The legacy sort helpers: `spblkXcsrsort`, `spblkXcscsort`, `spblkXcoosortByRow`,
//! `spblkXcoosortByColumn` and their `_bufferSizeExt`. Each orders the entries by line, then
//! by index within the line, stably, and carries the permutation `P` along (NULL: not kept);
//! the values are then gathered by the caller (`spblkGather` with `P`).

use std::ffi::c_void;

use super::boundary::{self, entry, out, write};
use super::mat_descr::mat_descr;
use super::types::*;
use crate::error::Result;
use crate::ops::index_arrays::{sort, SortKind};
use crate::ops::require_buffer;

type Names = (&'static str, &'static str);
const CSR: Names = ("csrRowPtrA", "csrColIndA");
const CSC: Names = ("cscColPtrA", "cscRowIndA");
const COO_ROW: Names = ("cooRowsA", "cooColsA");
const COO_COLUMN: Names = ("cooColsA", "cooRowsA");

fn buffer_size(
    handle: spblkHandle_t,
    kind: SortKind,
    dims: (i32, i32, i32),
    (first, second): (*const i32, *const i32),
    names: Names,
    size: *mut usize,
) -> Result<()> {
    // SAFETY: registry-checked handle.
    let h = unsafe { boundary::handle(handle)? };
    let (offsets, major) = match kind {
        SortKind::Csr | SortKind::Csc => (first, std::ptr::null_mut()),
        _ => (std::ptr::null(), first as *mut i32),
    };
    let args = sort(kind, dims, offsets, major, second as *mut i32, std::ptr::null_mut(), 0, names)?;
    out(size, "pBufferSizeInBytes")?;
    let needed = h.backend.sort_buffer_size(&args)?;
    // SAFETY: checked non-NULL.
    unsafe { write(size, needed) };
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn run(
    handle: spblkHandle_t,
    kind: SortKind,
    dims: (i32, i32, i32),
    descr: Option<spblkMatDescr_t>,
    (first, second): (*mut i32, *mut i32),
    perm: *mut i32,
    buffer: *mut c_void,
    names: Names,
) -> Result<()> {
    // SAFETY: registry-checked handle and descriptor.
    let h = unsafe { boundary::handle(handle)? };
    let base = match descr {
        Some(d) => unsafe { mat_descr(d)? }.base.offset(),
        None => 0,
    };
    let (offsets, major) = match kind {
        SortKind::Csr | SortKind::Csc => (first as *const i32, std::ptr::null_mut()),
        _ => (std::ptr::null(), first),
    };
    let args = sort(kind, dims, offsets, major, second, perm, base, names)?;
    require_buffer(h.backend.sort_buffer_size(&args)?, buffer, "pBuffer")?;
    h.backend.sort(&h.exec(), &args, buffer)
}

/// Workspace of `spblkXcsrsort` in bytes.
#[no_mangle]
pub extern "C" fn spblkXcsrsort_bufferSizeExt(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    nnz: i32,
    csrRowPtrA: *const i32,
    csrColIndA: *const i32,
    pBufferSizeInBytes: *mut usize,
) -> spblkStatus_t {
    entry("spblkXcsrsort_bufferSizeExt", || {
        buffer_size(handle, SortKind::Csr, (m, n, nnz), (csrRowPtrA, csrColIndA), CSR, pBufferSizeInBytes)
    })
}

/// Sorts the column indices within each row of a CSR matrix (index base from `descrA`).
#[no_mangle]
pub extern "C" fn spblkXcsrsort(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    csrRowPtrA: *const i32,
    csrColIndA: *mut i32,
    P: *mut i32,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkXcsrsort", || {
        let arrays = (csrRowPtrA as *mut i32, csrColIndA);
        run(handle, SortKind::Csr, (m, n, nnz), Some(descrA), arrays, P, pBuffer, CSR)
    })
}

/// Workspace of `spblkXcscsort` in bytes.
#[no_mangle]
pub extern "C" fn spblkXcscsort_bufferSizeExt(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    nnz: i32,
    cscColPtrA: *const i32,
    cscRowIndA: *const i32,
    pBufferSizeInBytes: *mut usize,
) -> spblkStatus_t {
    entry("spblkXcscsort_bufferSizeExt", || {
        buffer_size(handle, SortKind::Csc, (m, n, nnz), (cscColPtrA, cscRowIndA), CSC, pBufferSizeInBytes)
    })
}

/// Sorts the row indices within each column of a CSC matrix (index base from `descrA`).
#[no_mangle]
pub extern "C" fn spblkXcscsort(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    nnz: i32,
    descrA: spblkMatDescr_t,
    cscColPtrA: *const i32,
    cscRowIndA: *mut i32,
    P: *mut i32,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkXcscsort", || {
        let arrays = (cscColPtrA as *mut i32, cscRowIndA);
        run(handle, SortKind::Csc, (m, n, nnz), Some(descrA), arrays, P, pBuffer, CSC)
    })
}

/// Workspace of `spblkXcoosortByRow` and `spblkXcoosortByColumn` in bytes.
#[no_mangle]
pub extern "C" fn spblkXcoosort_bufferSizeExt(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    nnz: i32,
    cooRowsA: *const i32,
    cooColsA: *const i32,
    pBufferSizeInBytes: *mut usize,
) -> spblkStatus_t {
    entry("spblkXcoosort_bufferSizeExt", || {
        buffer_size(handle, SortKind::CooByRow, (m, n, nnz), (cooRowsA, cooColsA), COO_ROW, pBufferSizeInBytes)
    })
}

/// Sorts COO entries by row, then by column (indices compared as stored, either base).
#[no_mangle]
pub extern "C" fn spblkXcoosortByRow(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    nnz: i32,
    cooRowsA: *mut i32,
    cooColsA: *mut i32,
    P: *mut i32,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkXcoosortByRow", || {
        run(handle, SortKind::CooByRow, (m, n, nnz), None, (cooRowsA, cooColsA), P, pBuffer, COO_ROW)
    })
}

/// Sorts COO entries by column, then by row (indices compared as stored, either base).
#[no_mangle]
pub extern "C" fn spblkXcoosortByColumn(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    nnz: i32,
    cooRowsA: *mut i32,
    cooColsA: *mut i32,
    P: *mut i32,
    pBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkXcoosortByColumn", || {
        run(handle, SortKind::CooByColumn, (m, n, nnz), None, (cooColsA, cooRowsA), P, pBuffer, COO_COLUMN)
    })
}
