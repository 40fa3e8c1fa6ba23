//! Dense <-> sparse conversions: `spblkSparseToDense` and the three calls of
//! `spblkDenseToSparse` (bufferSize; analysis, which sets B's nnz and offsets; convert).

use std::ffi::c_void;

use super::boundary::{self, entry, out, write};
use super::dense::dn_mat_ref;
use super::sp_mat::{sp_mat, sp_mat_ref};
use super::types::*;
use crate::error::Error;
use crate::ops::{self, dense_sparse::DenseToSparseStage as Stage};

/// Workspace size in bytes for `spblkSparseToDense` (may be 0; then the buffer may be NULL).
#[no_mangle]
pub extern "C" fn spblkSparseToDense_bufferSize(
    handle: spblkHandle_t,
    matA: spblkConstSpMatDescr_t,
    matB: spblkDnMatDescr_t,
    alg: spblkSparseToDenseAlg_t,
    bufferSize: *mut usize,
) -> spblkStatus_t {
    entry("spblkSparseToDense_bufferSize", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let a = unsafe { sp_mat_ref(matA, "matA")? };
        let b = unsafe { dn_mat_ref(matB, "matB")? };
        let args = ops::dense_sparse::sparse_to_dense_args(a, b, alg)?;
        out(bufferSize, "bufferSize")?;
        let needed = h.backend.sparse_to_dense_buffer_size(&args)?;
        // SAFETY: checked non-NULL.
        unsafe { write(bufferSize, needed) };
        Ok(())
    })
}

/// B = A as a dense matrix: A's entries at their positions, zero elsewhere (every element of
/// B is written; A's positions must be distinct).
#[no_mangle]
pub extern "C" fn spblkSparseToDense(
    handle: spblkHandle_t,
    matA: spblkConstSpMatDescr_t,
    matB: spblkDnMatDescr_t,
    alg: spblkSparseToDenseAlg_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkSparseToDense", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let a = unsafe { sp_mat_ref(matA, "matA")? };
        let b = unsafe { dn_mat_ref(matB, "matB")? };
        let args = ops::dense_sparse::sparse_to_dense_args(a, b, alg)?;
        ops::require_buffer(h.backend.sparse_to_dense_buffer_size(&args)?, externalBuffer, "externalBuffer")?;
        h.backend.sparse_to_dense(&h.exec(), &args, externalBuffer)
    })
}

/// Workspace size in bytes for `spblkDenseToSparse_analysis` and `_convert` (the same buffer
/// serves both).
#[no_mangle]
pub extern "C" fn spblkDenseToSparse_bufferSize(
    handle: spblkHandle_t,
    matA: spblkConstDnMatDescr_t,
    matB: spblkSpMatDescr_t,
    alg: spblkDenseToSparseAlg_t,
    bufferSize: *mut usize,
) -> spblkStatus_t {
    entry("spblkDenseToSparse_bufferSize", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let a = unsafe { dn_mat_ref(matA, "matA")? };
        let b = unsafe { sp_mat_ref(matB, "matB")? };
        let args = ops::dense_sparse::dense_to_sparse_args(a, b, alg, Stage::BufferSize)?;
        out(bufferSize, "bufferSize")?;
        let needed = h.backend.dense_to_sparse_buffer_size(&args)?;
        // SAFETY: checked non-NULL.
        unsafe { write(bufferSize, needed) };
        Ok(())
    })
}

/// Counts A's nonzero elements (-0 counts as zero, NaN does not): sets B's nnz (read it with
/// `spblkSpMatGetSize`) and, for CSR and CSC, writes B's offsets. Blocks until done.
#[no_mangle]
pub extern "C" fn spblkDenseToSparse_analysis(
    handle: spblkHandle_t,
    matA: spblkConstDnMatDescr_t,
    matB: spblkSpMatDescr_t,
    alg: spblkDenseToSparseAlg_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkDenseToSparse_analysis", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let a = unsafe { dn_mat_ref(matA, "matA")? };
        let b = unsafe { sp_mat(matB, "matB")? };
        let nnz = {
            let args = ops::dense_sparse::dense_to_sparse_args(a, b, alg, Stage::Analysis)?;
            ops::require_buffer(h.backend.dense_to_sparse_buffer_size(&args)?, externalBuffer, "externalBuffer")?;
            h.backend.dense_to_sparse_analysis(&h.exec(), &args, externalBuffer)?
        };
        let counted = crate::descr::SpMat { nnz, ..b.clone() };
        counted.validate_shape().map_err(|e| Error::new(e.status, format!("matB: {}", e.message)))?;
        b.nnz = nnz;
        b.drop_plans();
        Ok(())
    })
}

/// Writes B's indices and values (row by row for CSR and COO, column by column for CSC, in
/// index order), after `spblkDenseToSparse_analysis` and once B's arrays are set.
#[no_mangle]
pub extern "C" fn spblkDenseToSparse_convert(
    handle: spblkHandle_t,
    matA: spblkConstDnMatDescr_t,
    matB: spblkSpMatDescr_t,
    alg: spblkDenseToSparseAlg_t,
    externalBuffer: *mut c_void,
) -> spblkStatus_t {
    entry("spblkDenseToSparse_convert", || {
        // SAFETY (lookups): registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let a = unsafe { dn_mat_ref(matA, "matA")? };
        let b = unsafe { sp_mat(matB, "matB")? };
        {
            let args = ops::dense_sparse::dense_to_sparse_args(a, b, alg, Stage::Convert)?;
            ops::require_buffer(h.backend.dense_to_sparse_buffer_size(&args)?, externalBuffer, "externalBuffer")?;
            h.backend.dense_to_sparse_convert(&h.exec(), &args, externalBuffer)?;
        }
        // B's values changed: plans describing the old ones are stale.
        b.drop_plans();
        Ok(())
    })
}
