//! Strided batches (`*SetStridedBatch`, `*GetStridedBatch`): SpMM and SDDMM run one product
//! per batch (`crate::ops::batch`); the other operations take one matrix.

use std::ffi::c_int;

use super::boundary::{entry, out, write};
use super::dense::{dn_mat, dn_mat_ref};
use super::sp_mat::{sp_mat, sp_mat_ref};
use super::types::*;
use crate::descr::{DnBatch, SpBatch};
use crate::ensure;
use crate::error::{Error, Result};
use crate::types::Format;

fn count(batch_count: c_int) -> Result<i32> {
    ensure!(batch_count >= 1, "batchCount", "must be >= 1 (got {batch_count})");
    Ok(batch_count)
}

/// A stride is 0 (every batch shares the array) or at least one batch's `size` elements.
fn stride(value: i64, size: i64, arg: &str, what: &str) -> Result<i64> {
    ensure!(
        value == 0 || value >= size,
        arg,
        "({value}) must be 0 (shared by every batch) or at least {what} ({size})"
    );
    Ok(value)
}

fn set_sparse(descr: spblkSpMatDescr_t, format: Format, batch: impl FnOnce(i64, i64) -> Result<SpBatch>) -> Result<()> {
    // SAFETY: registry-checked.
    let m = unsafe { sp_mat(descr, "spMatDescr")? };
    if m.format() != format {
        return Err(Error::invalid("spMatDescr", format!("is {}, not {}", m.format().name(), format.name())));
    }
    m.batch = batch(m.rows, m.nnz)?;
    Ok(())
}

/// Makes a CSR descriptor a batch of `batchCount` matrices of the same shape and nnz: batch i's
/// row offsets start `i * offsetsBatchStride` elements after batch 0's, its column indices and
/// values `i * columnsValuesBatchStride`. A stride of 0 shares that array among all batches.
#[no_mangle]
pub extern "C" fn spblkCsrSetStridedBatch(
    spMatDescr: spblkSpMatDescr_t,
    batchCount: c_int,
    offsetsBatchStride: i64,
    columnsValuesBatchStride: i64,
) -> spblkStatus_t {
    entry("spblkCsrSetStridedBatch", || {
        set_sparse(spMatDescr, Format::Csr, |rows, nnz| {
            Ok(SpBatch {
                count: count(batchCount)?,
                first_stride: stride(offsetsBatchStride, rows + 1, "offsetsBatchStride", "rows + 1")?,
                entries_stride: stride(columnsValuesBatchStride, nnz, "columnsValuesBatchStride", "nnz")?,
                values_stride: columnsValuesBatchStride,
            })
        })
    })
}

/// Makes a COO descriptor a batch: batch i's row indices, column indices and values start
/// `i * batchStride` elements after batch 0's (0: shared).
#[no_mangle]
pub extern "C" fn spblkCooSetStridedBatch(
    spMatDescr: spblkSpMatDescr_t,
    batchCount: c_int,
    batchStride: i64,
) -> spblkStatus_t {
    entry("spblkCooSetStridedBatch", || {
        set_sparse(spMatDescr, Format::Coo, |_, nnz| {
            let s = stride(batchStride, nnz, "batchStride", "nnz")?;
            Ok(SpBatch { count: count(batchCount)?, first_stride: s, entries_stride: s, values_stride: s })
        })
    })
}

/// Makes a BSR descriptor a batch: batch i's block-row offsets start
/// `i * offsetsBatchStride` elements after batch 0's, its block columns
/// `i * columnsBatchStride`, its values `i * ValuesBatchStride` (0: shared).
#[no_mangle]
pub extern "C" fn spblkBsrSetStridedBatch(
    spMatDescr: spblkSpMatDescr_t,
    batchCount: c_int,
    offsetsBatchStride: i64,
    columnsBatchStride: i64,
    ValuesBatchStride: i64,
) -> spblkStatus_t {
    entry("spblkBsrSetStridedBatch", || {
        // SAFETY: registry-checked.
        let block = match unsafe { sp_mat(spMatDescr, "spMatDescr")? }.pattern {
            crate::descr::SparsePattern::Bsr { block, .. } => block,
            _ => 1,
        };
        set_sparse(spMatDescr, Format::Bsr, |rows, nnz| {
            let (brows, bnnz) = (rows / block, nnz / (block * block));
            Ok(SpBatch {
                count: count(batchCount)?,
                first_stride: stride(offsetsBatchStride, brows + 1, "offsetsBatchStride", "brows + 1")?,
                entries_stride: stride(columnsBatchStride, bnnz, "columnsBatchStride", "bnnz")?,
                values_stride: stride(ValuesBatchStride, nnz, "ValuesBatchStride", "bnnz * block²")?,
            })
        })
    })
}

/// The number of batches of a sparse matrix (1 unless set).
#[no_mangle]
pub extern "C" fn spblkSpMatGetStridedBatch(
    spMatDescr: spblkConstSpMatDescr_t,
    batchCount: *mut c_int,
) -> spblkStatus_t {
    entry("spblkSpMatGetStridedBatch", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat_ref(spMatDescr, "spMatDescr")? };
        out(batchCount, "batchCount")?;
        // SAFETY: checked non-NULL.
        unsafe { write(batchCount, m.batch.count) };
        Ok(())
    })
}

/// Makes a dense matrix a batch: batch i starts `i * batchStride` elements after batch 0;
/// the stride is 0 (shared) or at least `ld * cols` (column-major) or `ld * rows` (row-major).
#[no_mangle]
pub extern "C" fn spblkDnMatSetStridedBatch(
    dnMatDescr: spblkDnMatDescr_t,
    batchCount: c_int,
    batchStride: i64,
) -> spblkStatus_t {
    entry("spblkDnMatSetStridedBatch", || {
        // SAFETY: registry-checked.
        let m = unsafe { dn_mat(dnMatDescr, "dnMatDescr")? };
        let count = count(batchCount)?;
        let stride = stride(batchStride, m.batch_size(), "batchStride", "one matrix's ld x (cols or rows)")?;
        m.batch = DnBatch { count, stride };
        Ok(())
    })
}

/// The number of batches and the stride of a dense matrix (1 and 0 unless set).
#[no_mangle]
pub extern "C" fn spblkDnMatGetStridedBatch(
    dnMatDescr: spblkConstDnMatDescr_t,
    batchCount: *mut c_int,
    batchStride: *mut i64,
) -> spblkStatus_t {
    entry("spblkDnMatGetStridedBatch", || {
        // SAFETY: registry-checked.
        let m = unsafe { dn_mat_ref(dnMatDescr, "dnMatDescr")? };
        out(batchCount, "batchCount")?;
        out(batchStride, "batchStride")?;
        // SAFETY: both checked non-NULL.
        unsafe {
            write(batchCount, m.batch.count);
            write(batchStride, m.batch.stride);
        }
        Ok(())
    })
}
