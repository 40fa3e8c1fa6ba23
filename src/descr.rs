//! Descriptors: validated Rust views of what the C caller described. They store the user's
//! pointers and copy no data (as cuSPARSE's descriptors do); invariants on sizes, types and
//! pointers are checked once, at creation or when the pointers change.

use std::ffi::c_void;
use std::sync::Arc;

use crate::ensure;
use crate::error::Result;
use crate::plan::PlanSlot;
use crate::types::{DataType, DiagType, FillMode, Format, IndexBase, IndexType, MatrixType, Order};

/// The index arrays of a sparse matrix, by format.
#[derive(Debug, Clone, Copy)]
pub enum SparsePattern {
    /// `row_offsets` has rows+1 entries, `col_ind` nnz.
    Csr { row_offsets: *mut c_void, col_ind: *mut c_void },
    /// `col_offsets` has cols+1 entries, `row_ind` nnz.
    Csc { col_offsets: *mut c_void, row_ind: *mut c_void },
    /// Both arrays have nnz entries.
    Coo { row_ind: *mut c_void, col_ind: *mut c_void },
    /// Square blocks of `block` x `block` values (`rows / block` block rows): `row_offsets` has
    /// block rows + 1 entries, `col_ind` one block column per block (nnz / block² of them);
    /// the values block after block, each block row- or column-major (`order`).
    Bsr { row_offsets: *mut c_void, col_ind: *mut c_void, block: i64, order: Order },
    /// Blocked-ELL: `col_ind` holds `rows / block` x `ell_cols / block` block columns (-1: no
    /// block there), the values `rows` x `ell_cols`, row-major (nnz = rows · ell_cols).
    BlockedEll { col_ind: *mut c_void, block: i64, ell_cols: i64 },
    /// Sliced-ELL: slices of `slice_size` rows; `slice_offsets` (slices + 1) index the
    /// `values_size` slots of `col_ind` and the values, column-major within a slice (-1:
    /// padding). nnz counts the slots that are not padding.
    SlicedEll { slice_offsets: *mut c_void, col_ind: *mut c_void, slice_size: i64, values_size: i64 },
}

/// A strided batch of sparse matrices (`spblkCsrSetStridedBatch`, `spblkCooSetStridedBatch`):
/// batch i's arrays start `i * stride` elements after batch 0's. A stride of 0 shares the array
/// among all batches (cuSPARSE's broadcast). One matrix: `count` 1, strides 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpBatch {
    pub count: i32,
    /// CSR: the row offsets; COO: the row indices.
    pub first_stride: i64,
    /// CSR and COO: the column indices and the values; BSR: the block columns.
    pub entries_stride: i64,
    /// The values (CSR and COO: `entries_stride`).
    pub values_stride: i64,
}

impl Default for SpBatch {
    fn default() -> Self {
        SpBatch { count: 1, first_stride: 0, entries_stride: 0, values_stride: 0 }
    }
}

/// A strided batch of dense matrices (`spblkDnMatSetStridedBatch`), as [`SpBatch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DnBatch {
    pub count: i32,
    pub stride: i64,
}

impl Default for DnBatch {
    fn default() -> Self {
        DnBatch { count: 1, stride: 0 }
    }
}

/// `p` moved by `elements` of `bytes` each (the caller checked that the batch fits its arrays).
fn advance(p: *mut c_void, elements: i64, bytes: usize) -> *mut c_void {
    if p.is_null() {
        return p;
    }
    (p as *mut u8).wrapping_offset(elements as isize * bytes as isize) as *mut c_void
}

/// A sparse matrix descriptor (`spblkSpMatDescr_t`).
#[derive(Debug, Clone)]
pub struct SpMat {
    pub rows: i64,
    pub cols: i64,
    pub nnz: i64,
    pub pattern: SparsePattern,
    pub values: *mut c_void,
    /// CSR/CSC offsets type (for COO: the index type).
    pub offsets_type: IndexType,
    /// Column (CSR, COO) or row (CSC) index type.
    pub indices_type: IndexType,
    pub base: IndexBase,
    pub value_type: DataType,
    /// `SPBLK_SPMAT_FILL_MODE` and `SPBLK_SPMAT_DIAG_TYPE` (read by triangular solves only).
    pub fill_mode: FillMode,
    pub diag_type: DiagType,
    pub batch: SpBatch,
    /// The plans of `spblkAnalyze` and `*_preprocess`, shared by every copy of this
    /// descriptor that a call takes (see `crate::plan`).
    pub plans: Arc<PlanSlot>,
}

impl SpMat {
    /// Forgets the plans: the pattern or values they described were replaced. Calls still
    /// holding the old slot finish with it; it is freed with its last holder.
    pub fn drop_plans(&mut self) {
        self.plans = Arc::new(PlanSlot::default());
    }

    pub fn format(&self) -> Format {
        match self.pattern {
            SparsePattern::Csr { .. } => Format::Csr,
            SparsePattern::Csc { .. } => Format::Csc,
            SparsePattern::Coo { .. } => Format::Coo,
            SparsePattern::Bsr { .. } => Format::Bsr,
            SparsePattern::BlockedEll { .. } => Format::BlockedEll,
            SparsePattern::SlicedEll { .. } => Format::SlicedEll,
        }
    }

    /// NOT_SUPPORTED for an operation that does not take this matrix's format (the checks in
    /// `ops` stop it first; backends keep their matches exhaustive with it).
    pub fn unsupported(&self, what: &str) -> crate::error::Error {
        crate::error::Error::not_supported(format!("{what} does not take {} matrices", self.format().name()))
    }

    /// Batch `i` of a batched descriptor as one matrix. A batched descriptor's plans describe
    /// batch 0 only, so each batch gets an empty plan slot of its own (batched products run
    /// without plans); an unbatched descriptor is returned as is, plans shared.
    pub fn batch_item(&self, i: i32) -> SpMat {
        if self.batch.count == 1 {
            return self.clone();
        }
        let i = i as i64;
        let first = |p| advance(p, i * self.batch.first_stride, self.offsets_type.size());
        let second = |p| advance(p, i * self.batch.entries_stride, self.indices_type.size());
        // Only CSR, COO and BSR take batches (their SetStridedBatch functions).
        let pattern = match self.pattern {
            SparsePattern::Csr { row_offsets, col_ind } => {
                SparsePattern::Csr { row_offsets: first(row_offsets), col_ind: second(col_ind) }
            }
            SparsePattern::Csc { col_offsets, row_ind } => {
                SparsePattern::Csc { col_offsets: first(col_offsets), row_ind: second(row_ind) }
            }
            SparsePattern::Coo { row_ind, col_ind } => {
                SparsePattern::Coo { row_ind: first(row_ind), col_ind: second(col_ind) }
            }
            SparsePattern::Bsr { row_offsets, col_ind, block, order } => {
                SparsePattern::Bsr { row_offsets: first(row_offsets), col_ind: second(col_ind), block, order }
            }
            p @ (SparsePattern::BlockedEll { .. } | SparsePattern::SlicedEll { .. }) => p,
        };
        SpMat {
            pattern,
            values: advance(self.values, i * self.batch.values_stride, self.value_type.size()),
            batch: SpBatch::default(),
            plans: Arc::new(PlanSlot::default()),
            ..self.clone()
        }
    }

    /// Checks the sizes and types that every format shares. Pointers may be NULL here:
    /// clients create outputs with NULL arrays (SpGEMM's C) and set them later.
    pub fn validate_shape(&self) -> Result<()> {
        ensure!(self.rows >= 0, "rows", "must be >= 0 (got {})", self.rows);
        ensure!(self.cols >= 0, "cols", "must be >= 0 (got {})", self.cols);
        ensure!(self.nnz >= 0, "nnz", "must be >= 0 (got {})", self.nnz);
        let dense = (self.rows as i128) * (self.cols as i128);
        ensure!(
            (self.nnz as i128) <= dense.max(0),
            "nnz",
            "({}) exceeds rows*cols ({}x{})",
            self.nnz,
            self.rows,
            self.cols
        );
        // The largest count an offset holds, and the bound of the indices.
        let (off_name, idx_name, offsets_reach, minor) = match self.pattern {
            SparsePattern::Csr { .. } => ("csrRowOffsetsType", "csrColIndType", self.nnz, self.cols),
            SparsePattern::Csc { .. } => ("cscColOffsetsType", "cscRowIndType", self.nnz, self.rows),
            SparsePattern::Coo { .. } => ("cooIdxType", "cooIdxType", self.nnz, self.rows.max(self.cols)),
            SparsePattern::Bsr { block, .. } => {
                ("bsrRowOffsetsType", "bsrColIndType", self.nnz / (block * block).max(1), self.cols / block.max(1))
            }
            SparsePattern::BlockedEll { block, .. } => ("ellIdxType", "ellIdxType", 0, self.cols / block.max(1)),
            SparsePattern::SlicedEll { values_size, .. } => {
                ("sellSliceOffsetsType", "sellColIndType", values_size, self.cols)
            }
        };
        ensure!(
            self.offsets_type != IndexType::U16 && self.indices_type != IndexType::U16,
            off_name,
            "SPBLK_INDEX_16U is not accepted for sparse matrices (use 32I or 64I)"
        );
        let base = self.base.offset();
        ensure!(
            offsets_reach + base <= self.offsets_type.max_value(),
            off_name,
            "cannot hold offsets up to {offsets_reach} with index base {base}"
        );
        ensure!(
            minor + base <= self.indices_type.max_value() || minor == 0,
            idx_name,
            "cannot hold indices up to {} with index base {}",
            minor,
            base
        );
        Ok(())
    }

    /// Checks pointer presence for a matrix that an operation reads or writes.
    pub fn require_arrays(&self, arg: &str) -> Result<()> {
        let (a, b, an, bn, a_needed) = match self.pattern {
            SparsePattern::Csr { row_offsets, col_ind } => {
                (row_offsets, col_ind, "csrRowOffsets", "csrColInd", self.rows > 0)
            }
            SparsePattern::Csc { col_offsets, row_ind } => {
                (col_offsets, row_ind, "cscColOffsets", "cscRowInd", self.cols > 0)
            }
            SparsePattern::Coo { row_ind, col_ind } => (row_ind, col_ind, "cooRowInd", "cooColInd", self.nnz > 0),
            SparsePattern::Bsr { row_offsets, col_ind, .. } => {
                (row_offsets, col_ind, "bsrRowOffsets", "bsrColInd", self.rows > 0)
            }
            SparsePattern::BlockedEll { col_ind, .. } => (col_ind, col_ind, "ellColInd", "ellColInd", self.nnz > 0),
            SparsePattern::SlicedEll { slice_offsets, col_ind, .. } => {
                (slice_offsets, col_ind, "sellSliceOffsets", "sellColInd", self.rows > 0)
            }
        };
        ensure!(!a.is_null() || !a_needed, arg, "has a NULL {an} array");
        ensure!(!b.is_null() || self.nnz == 0, arg, "has a NULL {bn} array with nnz = {}", self.nnz);
        ensure!(!self.values.is_null() || self.nnz == 0, arg, "has a NULL values array with nnz = {}", self.nnz);
        Ok(())
    }

    /// Index type shared by offsets and indices; mixed widths are not supported by operations.
    pub fn uniform_index_type(&self, arg: &str) -> Result<IndexType> {
        if self.offsets_type != self.indices_type {
            return Err(crate::error::Error::not_supported(format!(
                "argument '{arg}': mixed offset/index types ({:?}/{:?}) are not supported",
                self.offsets_type, self.indices_type
            )));
        }
        Ok(self.indices_type)
    }
}

/// A dense matrix descriptor (`spblkDnMatDescr_t`).
#[derive(Debug, Clone)]
pub struct DnMat {
    pub rows: i64,
    pub cols: i64,
    pub ld: i64,
    pub values: *mut c_void,
    pub value_type: DataType,
    pub order: Order,
    pub batch: DnBatch,
}

impl DnMat {
    pub fn validate(&self) -> Result<()> {
        ensure!(self.rows >= 0, "rows", "must be >= 0 (got {})", self.rows);
        ensure!(self.cols >= 0, "cols", "must be >= 0 (got {})", self.cols);
        let min_ld = match self.order {
            Order::Col => self.rows,
            Order::Row => self.cols,
        };
        ensure!(
            self.ld >= min_ld.max(1),
            "ld",
            "({}) must be >= max(1, {}) for {:?}-major order",
            self.ld,
            if self.order == Order::Col { "rows" } else { "cols" },
            self.order
        );
        ensure!(
            !self.values.is_null() || self.rows == 0 || self.cols == 0,
            "values",
            "is NULL for a {}x{} matrix",
            self.rows,
            self.cols
        );
        Ok(())
    }

    /// Batch `i` of a batched descriptor as one matrix.
    pub fn batch_item(&self, i: i32) -> DnMat {
        DnMat {
            values: advance(self.values, i as i64 * self.batch.stride, self.value_type.size()),
            batch: DnBatch::default(),
            ..self.clone()
        }
    }

    /// Elements from one batch to the next at least, so that batches do not overlap.
    pub fn batch_size(&self) -> i64 {
        match self.order {
            Order::Col => self.ld * self.cols,
            Order::Row => self.ld * self.rows,
        }
    }

    /// Number of elements spanned in memory (for bounds of host views).
    pub fn span(&self) -> usize {
        if self.rows == 0 || self.cols == 0 {
            return 0;
        }
        let (outer, inner) = match self.order {
            Order::Col => (self.cols, self.rows),
            Order::Row => (self.rows, self.cols),
        };
        ((outer - 1) * self.ld + inner) as usize
    }
}

/// A dense vector descriptor (`spblkDnVecDescr_t`).
#[derive(Debug, Clone)]
pub struct DnVec {
    pub size: i64,
    pub values: *mut c_void,
    pub value_type: DataType,
}

impl DnVec {
    pub fn validate(&self) -> Result<()> {
        ensure!(self.size >= 0, "size", "must be >= 0 (got {})", self.size);
        ensure!(!self.values.is_null() || self.size == 0, "values", "is NULL for a vector of size {}", self.size);
        Ok(())
    }

    /// The vector as an n×1 column-major dense matrix, so SpMV can share SpMM's code.
    pub fn as_column(&self) -> DnMat {
        DnMat {
            rows: self.size,
            cols: 1,
            ld: self.size.max(1),
            values: self.values,
            value_type: self.value_type,
            order: Order::Col,
            batch: DnBatch::default(),
        }
    }
}

/// A legacy matrix descriptor (`spblkMatDescr_t`, cuSPARSE's `cusparseMatDescr_t`): how the
/// legacy functions read the arrays they are given. cuSPARSE's defaults: general, zero-based;
/// fill mode and diagonal type start as LOWER and NON_UNIT (their value 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatDescr {
    pub matrix_type: MatrixType,
    pub fill_mode: FillMode,
    pub diag_type: DiagType,
    pub base: IndexBase,
}

impl Default for MatDescr {
    fn default() -> Self {
        MatDescr {
            matrix_type: MatrixType::General,
            fill_mode: FillMode::Lower,
            diag_type: DiagType::NonUnit,
            base: IndexBase::Zero,
        }
    }
}

/// A sparse vector descriptor (`spblkSpVecDescr_t`): `nnz` entries of a vector of `size`
/// elements, entry k holding `values[k]` at position `indices[k] - base`.
#[derive(Debug, Clone)]
pub struct SpVec {
    pub size: i64,
    pub nnz: i64,
    pub indices: *mut c_void,
    pub values: *mut c_void,
    pub index_type: IndexType,
    pub base: IndexBase,
    pub value_type: DataType,
}

impl SpVec {
    /// Sizes, index type and pointers; arrays may be NULL only without entries.
    pub fn validate(&self) -> Result<()> {
        ensure!(self.size >= 0, "size", "must be >= 0 (got {})", self.size);
        ensure!(self.nnz >= 0, "nnz", "must be >= 0 (got {})", self.nnz);
        ensure!(self.nnz <= self.size, "nnz", "({}) exceeds size ({})", self.nnz, self.size);
        ensure!(
            self.index_type != IndexType::U16,
            "idxType",
            "SPBLK_INDEX_16U is not accepted for sparse vectors (use 32I or 64I)"
        );
        ensure!(
            self.size + self.base.offset() <= self.index_type.max_value(),
            "idxType",
            "cannot hold indices up to {} with index base {}",
            self.size,
            self.base.offset()
        );
        ensure!(!self.indices.is_null() || self.nnz == 0, "indices", "is NULL with nnz = {}", self.nnz);
        ensure!(!self.values.is_null() || self.nnz == 0, "values", "is NULL with nnz = {}", self.nnz);
        Ok(())
    }
}
