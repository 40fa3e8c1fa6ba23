//! Format conversions.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write};
use super::types::*;
use crate::ops;

/// Workspace size for `spblkCsr2cscEx2` (at least 1 byte).
#[no_mangle]
pub extern "C" fn spblkCsr2cscEx2_bufferSize(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    nnz: i32,
    csrVal: *const c_void,
    csrRowPtr: *const i32,
    csrColInd: *const i32,
    cscVal: *mut c_void,
    cscColPtr: *mut i32,
    cscRowInd: *mut i32,
    valType: spblkDataType_t,
    copyValues: spblkAction_t,
    idxBase: spblkIndexBase_t,
    alg: spblkCsr2CscAlg_t,
    bufferSize: *mut usize,
) -> spblkStatus_t {
    entry("spblkCsr2cscEx2_bufferSize", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        let args = ops::csr2csc_args(
            m, n, nnz, csrVal, csrRowPtr, csrColInd, cscVal, cscColPtr, cscRowInd, valType, copyValues, idxBase, alg,
        )?;
        out(bufferSize, "bufferSize")?;
        let needed = h.backend.csr2csc_buffer_size(&args)?.max(1);
        // SAFETY: checked non-NULL.
        unsafe { write(bufferSize, needed) };
        Ok(())
    })
}

/// CSR (m × n, 32-bit indices) to CSC; row indices come out sorted within each column. With
/// `SPBLK_ACTION_SYMBOLIC` the values are not touched.
#[no_mangle]
pub extern "C" fn spblkCsr2cscEx2(
    handle: spblkHandle_t,
    m: i32,
    n: i32,
    nnz: i32,
    csrVal: *const c_void,
    csrRowPtr: *const i32,
    csrColInd: *const i32,
    cscVal: *mut c_void,
    cscColPtr: *mut i32,
    cscRowInd: *mut i32,
    valType: spblkDataType_t,
    copyValues: spblkAction_t,
    idxBase: spblkIndexBase_t,
    alg: spblkCsr2CscAlg_t,
    buffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkCsr2cscEx2", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        let args = ops::csr2csc_args(
            m, n, nnz, csrVal, csrRowPtr, csrColInd, cscVal, cscColPtr, cscRowInd, valType, copyValues, idxBase, alg,
        )?;
        if m == 0 || n == 0 {
            // Nothing to convert; cuSPARSE returns success without touching the arrays.
            return Ok(());
        }
        let needed = h.backend.csr2csc_buffer_size(&args)?;
        ops::require_buffer(needed, buffer, "buffer")?;
        h.backend.csr2csc(&h.exec(), &args, buffer)
    })
}
