//! The legacy index-array helpers that cuSPARSE programs call around the generic API:
//! `spblkCreateIdentityPermutation`, `spblkXcsr2coo`, `spblkXcoo2csr` (32-bit indices).

use super::boundary::{self, entry};
use super::types::*;
use crate::ops::index_arrays;

/// `p[i] = i` for `0 <= i < n` (the starting permutation of the sort helpers).
#[no_mangle]
pub extern "C" fn spblkCreateIdentityPermutation(handle: spblkHandle_t, n: i32, p: *mut i32) -> spblkStatus_t {
    entry("spblkCreateIdentityPermutation", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        h.backend.index_arrays(&h.exec(), &index_arrays::identity(n, p)?)
    })
}

/// CSR row offsets (m + 1 of them, counted from `idxBase`) expanded into the row index of
/// each of the nnz entries (also counted from `idxBase`).
#[no_mangle]
pub extern "C" fn spblkXcsr2coo(
    handle: spblkHandle_t,
    csrSortedRowPtr: *const i32,
    nnz: i32,
    m: i32,
    cooRowInd: *mut i32,
    idxBase: spblkIndexBase_t,
) -> spblkStatus_t {
    entry("spblkXcsr2coo", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        let op = index_arrays::csr_to_coo(csrSortedRowPtr, nnz, m, cooRowInd, idxBase)?;
        h.backend.index_arrays(&h.exec(), &op)
    })
}

/// Row indices sorted ascending (counted from `idxBase`) compressed into the m + 1 CSR row
/// offsets (counted from `idxBase`).
#[no_mangle]
pub extern "C" fn spblkXcoo2csr(
    handle: spblkHandle_t,
    cooRowInd: *const i32,
    nnz: i32,
    m: i32,
    csrSortedRowPtr: *mut i32,
    idxBase: spblkIndexBase_t,
) -> spblkStatus_t {
    entry("spblkXcoo2csr", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        let op = index_arrays::coo_to_csr(cooRowInd, nnz, m, csrSortedRowPtr, idxBase)?;
        h.backend.index_arrays(&h.exec(), &op)
    })
}
