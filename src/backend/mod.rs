//! The two implementations behind the API. `ops` validates a call, decodes its algorithm into
//! the method to run, and hands a backend arguments whose sizes, types and pointers are
//! already checked; a backend only computes, and `match`es every method exhaustively, so a
//! method it lacks is `NOT_SUPPORTED` there, never silently another one.

use std::any::Any;
use std::ffi::c_void;
use std::sync::Arc;

use crate::analysis::OneSaPlan;
use crate::descr::{DnMat, DnVec, SpMat, SpVec};
use crate::error::Result;
use crate::plan::{AsptSpmmShape, VbrArrays};
use crate::types::{Action, BackendKind, DataType, IndexType, Operation, PointerMode, Precision};

/// The SpMV methods spblk implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpmvMethod {
    /// CSR of op(A) (CSC, COO and transposes converted, once per plan) cut into merge-path
    /// tiles of rows + entries; short rows whole per tile, long rows by partial sums added in
    /// tile order: deterministic, balanced whatever the row lengths (docs/spmv.md).
    CsrMerge,
    /// CSR of op(A), a group of lanes per row sized from the average row length, long rows
    /// split into chunks reduced in order: deterministic.
    CsrRows,
    /// CSR of op(A), one thread per row.
    CsrScalar,
    /// CSR of op(A), one warp per row.
    CsrVector,
    /// A BSR matrix as stored (op N): a thread per row, blocks in storage order.
    Bsr,
    /// A Sliced-ELL matrix: op N as stored, a thread per row walking its slots in order; op T
    /// through CSR of A (each row's entries in slot order), then `CsrRows` on its transpose.
    Sell,
}

/// The SpMM methods spblk implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpmmMethod {
    /// As [`SpmvMethod::CsrRows`], over tiles of C's columns.
    CsrRows,
    /// The variable-row blocks of a 1-SA plan times op(B) (`SPBLK_SPMM_ALG_VBR`): f32 inputs
    /// f32-accurate.
    Vbr,
    /// As [`SpmmMethod::Vbr`] with f32 inputs rounded to TF32 (`SPBLK_SPMM_ALG_VBR_TF32`).
    VbrTf32,
    /// RoDe's row decomposition (`SPBLK_SPMM_ALG_RODE`): the rows' block parts in segments of
    /// at most 512 entries, then per row its segments' sums in order and its residual entries:
    /// deterministic. Needs the plan of a preprocess or `spblkAnalyze`.
    Rode,
    /// ASpT's panels of similar rows (`SPBLK_SPMM_ALG_ASPT`, CSR, op(A) = A): the op(B) rows of
    /// the columns that two or more of a panel's rows use are staged in shared memory; each row
    /// sums those entries, then the others, each part in column order: deterministic. Needs the
    /// plan of a preprocess or `spblkAnalyze`.
    Aspt,
    /// The row method's sums in column slabs of op(B), bands of rows at a time
    /// (`SPBLK_SPMM_ALG_CSR_SWEEP`): for an op(B) far larger than the L2. Needs the plan of a
    /// preprocess (each row's slab boundaries).
    CsrSweep,
    /// A BSR matrix as stored (op N): a thread per element of C, blocks in storage order.
    Bsr,
    /// A Blocked-ELL matrix as stored (op N): blocks of a multiple of 16 rows on tensor cores
    /// (f16/bf16: mma.sync m16n8k16; f32: three TF32 products, about f32 accuracy; f32
    /// accumulation); otherwise a thread per element of C, blocks in storage order.
    BlockedEll,
}

/// The SDDMM methods spblk implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SddmmMethod {
    /// One dot product per stored entry of C, a group of lanes per entry.
    CsrEntries,
    /// ASpT's panels of similar rows, entries taken column by column with the panel's rows of
    /// op(A) staged (`SPBLK_SDDMM_ALG_ASPT`); each dot product summed as `CsrEntries` sums it.
    /// Needs the plan of a preprocess or `spblkAnalyze`.
    Aspt,
}

/// The SpGEMM methods spblk implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpgemmMethod {
    /// Rows binned by product count, hash accumulators, columns sorted: deterministic.
    BinnedHash,
    /// `BinnedHash` with all its working memory in buffer 2 (ALG2's protocol: the size comes
    /// from `spblkSpGEMM_estimateMemory`, bounded from the work estimation): nothing is
    /// allocated inside `compute` or `copy`.
    BinnedHashInBuffer,
    /// `BinnedHashInBuffer` in passes (ALG3's protocol): the rows that need global tables run
    /// a window at a time, each window `chunk_fraction` of their memory (at least one row's),
    /// so buffer 2 shrinks with the fraction.
    BinnedHashInChunks,
    /// The seed's binned ESC method (`SPBLK_SPGEMM_ALG_ESC`): each row's products expanded
    /// into as many slots, sorted by column and summed; long rows in sorted chunks, merged.
    Esc,
}

pub mod factor;
pub mod host;
pub mod spsv;

pub use factor::{Boost, FactorAnalysis, FactorArgs, FactorKind, FactorShape, FactorState};
pub use spsv::{Columns, SpsvAnalysis, SpsvArgs, SpsvShape, SpsvState};

#[cfg(feature = "cuda")]
pub mod cuda;

/// Where a call runs: the handle's stream and pointer mode.
#[derive(Debug, Clone, Copy)]
pub struct Exec {
    /// A `CUstream` (NULL = legacy default stream); ignored by the host backend.
    pub stream: *mut c_void,
    pub pointer_mode: PointerMode,
}

/// alpha or beta as the caller passed it: a pointer to a value of the compute type, in host
/// memory or (pointer mode device) in the backend's memory.
#[derive(Debug, Clone, Copy)]
pub struct ScalarArg {
    pub ptr: *const c_void,
    pub mode: PointerMode,
}

/// `Y = alpha op(A) X + beta Y`.
#[derive(Clone, Copy)]
pub struct SpmvArgs<'a> {
    pub op_a: Operation,
    pub alpha: ScalarArg,
    pub a: &'a SpMat,
    pub x: &'a DnVec,
    pub beta: ScalarArg,
    pub y: &'a DnVec,
    pub precision: Precision,
    pub method: SpmvMethod,
}

/// `C = alpha op(A) op(B) + beta C`, A sparse.
#[derive(Clone, Copy)]
pub struct SpmmArgs<'a> {
    pub op_a: Operation,
    pub op_b: Operation,
    pub alpha: ScalarArg,
    pub a: &'a SpMat,
    pub b: &'a DnMat,
    pub beta: ScalarArg,
    pub c: &'a DnMat,
    pub precision: Precision,
    pub method: SpmmMethod,
}

/// `C = alpha (op(A) op(B)) ∘ spy(C) + beta C`, C sparse (CSR).
pub struct SddmmArgs<'a> {
    pub op_a: Operation,
    pub op_b: Operation,
    pub alpha: ScalarArg,
    pub a: &'a DnMat,
    pub b: &'a DnMat,
    pub beta: ScalarArg,
    pub c: &'a SpMat,
    pub precision: Precision,
    pub method: SddmmMethod,
}

impl SddmmArgs<'_> {
    /// k: the columns of op(A).
    pub fn inner_dim(&self) -> i64 {
        if self.op_a == Operation::Transpose {
            self.a.rows
        } else {
            self.a.cols
        }
    }
}

/// `C = alpha A B + beta C`, all CSR (opA = opB = N).
pub struct SpgemmArgs<'a> {
    pub alpha: ScalarArg,
    pub a: &'a SpMat,
    pub b: &'a SpMat,
    pub beta: ScalarArg,
    pub c: &'a SpMat,
    pub compute: DataType,
    pub method: SpgemmMethod,
}

/// CSR → CSC with 32-bit indices (`spblkCsr2cscEx2`).
pub struct Csr2CscArgs {
    pub m: i64,
    pub n: i64,
    pub nnz: i64,
    pub csr_val: *const c_void,
    pub csr_row_ptr: *const i32,
    pub csr_col_ind: *const i32,
    pub csc_val: *mut c_void,
    pub csc_col_ptr: *mut i32,
    pub csc_row_ind: *mut i32,
    pub value_type: DataType,
    pub action: Action,
    pub base: crate::types::IndexBase,
}

/// What a sparse-vector update does with X (sparse) and Y (dense, of X's size). X's indices
/// are distinct (cuSPARSE's contract for a deterministic result; the host backend checks it).
#[derive(Debug, Clone, Copy)]
pub enum SpvecUpdate {
    /// `Y = alpha X + beta Y` (`spblkAxpby`): Y scaled by beta everywhere, then alpha X added
    /// at X's positions.
    Axpby { alpha: ScalarArg, beta: ScalarArg },
    /// `X[k] = Y[pos k]` (`spblkGather`), any value type (elements copied as bytes).
    Gather,
    /// `Y[pos k] = X[k]` (`spblkScatter`), any value type.
    Scatter,
    /// The Givens rotation (`spblkRot`), from the old values of both:
    /// `X[k] = c X[k] + s Y[pos k]`, `Y[pos k] = c Y[pos k] - s X[k]`.
    Rot { c: ScalarArg, s: ScalarArg },
}

/// A sparse-vector update. `precision` has X's value type as input and output; its compute
/// type (of the scalars) is f64 for f64 and f32 otherwise; Gather and Scatter ignore it.
pub struct SpvecArgs<'a> {
    pub update: SpvecUpdate,
    pub x: &'a SpVec,
    pub y: &'a DnVec,
    pub precision: Precision,
}

/// `result = op(X) · Y` (`spblkSpVV`); opX is N (or C, the same for real types). `result` is
/// a value of the compute type in host memory (pointer mode host) or the backend's memory.
pub struct SpvvArgs<'a> {
    pub x: &'a SpVec,
    pub y: &'a DnVec,
    pub result: *mut c_void,
    pub result_mode: PointerMode,
    pub precision: Precision,
}

/// `spblkSparseToDense`: B = A, zero where A has no entry. A is CSR, CSC or COO (one matrix,
/// its positions distinct); A and B have one value type, copied as bytes.
pub struct SparseToDenseArgs<'a> {
    pub a: &'a SpMat,
    pub b: &'a DnMat,
}

/// `spblkDenseToSparse_*`: B holds A's elements that are not zero (-0 counts as zero, NaN does
/// not): row by row for CSR and COO, column by column for CSC, each line in index order.
pub struct DenseToSparseArgs<'a> {
    pub a: &'a DnMat,
    pub b: &'a SpMat,
}

/// The legacy index-array helpers, on 32-bit indices (checked by `ops::index_arrays`).
#[derive(Debug, Clone, Copy)]
pub enum IndexArrays {
    /// `p[i] = i` for `i < n` (`spblkCreateIdentityPermutation`).
    Identity { n: i64, p: *mut i32 },
    /// CSR offsets (m + 1, with the base) expanded into the row index of each of the nnz
    /// entries (`spblkXcsr2coo`).
    CsrToCoo { m: i64, nnz: i64, offsets: *const i32, rows: *mut i32, base: i64 },
    /// Row indices sorted ascending compressed into CSR offsets (`spblkXcoo2csr`).
    CooToCsr { m: i64, nnz: i64, rows: *const i32, offsets: *mut i32, base: i64 },
}

/// Where a sort finds each entry's line (the primary key).
#[derive(Debug, Clone, Copy)]
pub enum SortLines {
    /// CSR or CSC offsets (lines + 1, with the base): the entries are grouped by line.
    Offsets(*const i32),
    /// COO: an index array, rewritten in sorted order.
    Indices(*mut i32),
}

/// The legacy sorts (`spblkXcsrsort`, `spblkXcscsort`, `spblkXcoosortByRow`/`ByColumn`) as
/// one request: the entries ordered by line, then by their index within the line, stably;
/// the index arrays and the permutation `perm` (NULL: not kept) rewritten in that order
/// (`perm[k]` becomes the old `perm` of the entry now at k).
#[derive(Debug, Clone, Copy)]
pub struct SortArgs {
    pub lines: i64,
    /// The bound of the indices within a line (columns for CSR and by-row COO).
    pub len: i64,
    pub nnz: i64,
    pub line_of: SortLines,
    pub minor: *mut i32,
    pub perm: *mut i32,
    /// Subtracted from every index (COO: 0, the values are compared as they are).
    pub base: i64,
    /// The C names of the line array (offsets, or COO indices) and of `minor`, for messages.
    pub names: (&'static str, &'static str),
}

/// One operand of `spblk{S,D}csrgeam2`: a CSR matrix with 32-bit indices, columns ascending
/// within each row (a column repeated in a row is summed into one entry of C).
#[derive(Debug, Clone, Copy)]
pub struct GeamOperand {
    pub nnz: i64,
    pub offsets: *const i32,
    pub columns: *const i32,
    /// NULL for `spblkXcsrgeam2Nnz`, which reads no values.
    pub values: *const c_void,
    pub base: i64,
}

/// `C = alpha A + beta B` on m x n CSR matrices (`spblkXcsrgeam2Nnz`, `spblk{S,D}csrgeam2`):
/// C's pattern is the union of A's and B's, an entry kept even where its sum is zero.
/// `c_offsets` (m + 1, with `c_base`) are written by the count and read by the fill, which
/// writes at most each row's room in C.
#[derive(Debug, Clone, Copy)]
pub struct GeamArgs {
    pub m: i64,
    pub n: i64,
    pub a: GeamOperand,
    pub b: GeamOperand,
    pub c_offsets: *mut i32,
    pub c_columns: *mut i32,
    pub c_values: *mut c_void,
    pub c_base: i64,
    /// Where the count writes nnz(C) (NULL: nowhere), in host or backend memory as the
    /// pointer mode says.
    pub c_total: *mut i32,
}

/// The fill's scalars and value type (R_32F or R_64F; alpha and beta of that type).
#[derive(Debug, Clone, Copy)]
pub struct GeamValues {
    pub alpha: ScalarArg,
    pub beta: ScalarArg,
    pub value_type: DataType,
}

/// A BSR matrix: `mb` x `kb` blocks of `block` x `block` values, `nnzb` blocks, each stored row
/// by row or (`column_major_blocks`) column by column.
#[derive(Debug, Clone, Copy)]
pub struct BsrOperand {
    pub mb: i64,
    pub kb: i64,
    pub nnzb: i64,
    pub block: i64,
    pub offsets: *const c_void,
    pub columns: *const c_void,
    pub values: *const c_void,
    pub index_type: IndexType,
    pub base: i64,
    pub column_major_blocks: bool,
}

/// A dense operand addressed by element strides: element (r, c) at `r * rs + c * cs`.
#[derive(Debug, Clone, Copy)]
pub struct Strided<P> {
    pub ptr: P,
    pub rs: i64,
    pub cs: i64,
}

/// `C = alpha A op(B) + beta C` with A read as stored (BSR, Blocked-ELL): op(B) is
/// (A's columns) x n and C (A's rows) x n, both addressed by element strides.
#[derive(Debug, Clone, Copy)]
pub struct StoredProductArgs<A> {
    pub a: A,
    pub n: i64,
    pub b: Strided<*const c_void>,
    pub c: Strided<*mut c_void>,
    pub alpha: ScalarArg,
    pub beta: ScalarArg,
    pub precision: Precision,
}

/// The legacy `spblk{S,D}bsrmm` and `bsrmv`, and SpMM and SpMV (n = 1) on BSR descriptors.
pub type BsrProductArgs = StoredProductArgs<BsrOperand>;
/// SpMM on Blocked-ELL descriptors (op(A) = A).
pub type BlockedEllProductArgs = StoredProductArgs<BlockedEllOperand>;

impl<A> StoredProductArgs<A> {
    /// SpMM's dense side around `a`: B and C in either order, op(B) either way.
    fn of_spmm_with(a: A, args: &SpmmArgs) -> Self {
        let (rs, cs) = dense_strides(args.b, args.op_b);
        let b = Strided { ptr: args.b.values as *const c_void, rs, cs };
        let (rs, cs) = dense_strides(args.c, Operation::NonTranspose);
        let c = Strided { ptr: args.c.values, rs, cs };
        StoredProductArgs { a, n: args.c.cols, b, c, alpha: args.alpha, beta: args.beta, precision: args.precision }
    }
}

/// A Blocked-ELL matrix: `rows / block` block rows of `ell_cols / block` slots; `columns` the
/// slots' block columns (padding: -1, or anything outside the matrix), `values` row-major
/// `rows` x `ell_cols`.
#[derive(Debug, Clone, Copy)]
pub struct BlockedEllOperand {
    pub rows: i64,
    pub kb: i64,
    pub block: i64,
    pub ell_cols: i64,
    pub columns: *const c_void,
    pub values: *const c_void,
    pub index_type: IndexType,
    pub base: i64,
}

impl BlockedEllProductArgs {
    pub fn of_spmm(args: &SpmmArgs) -> Result<Self> {
        let crate::descr::SparsePattern::BlockedEll { col_ind, block, ell_cols } = args.a.pattern else {
            return Err(crate::error::Error::internal("the Blocked-ELL method needs a Blocked-ELL matrix"));
        };
        let a = BlockedEllOperand {
            rows: args.a.rows,
            kb: args.a.cols / block,
            block,
            ell_cols,
            columns: col_ind,
            values: args.a.values,
            index_type: args.a.indices_type,
            base: args.a.base.offset(),
        };
        Ok(Self::of_spmm_with(a, args))
    }
}

/// Element strides (rows, columns) of op(D) for a dense matrix.
fn dense_strides(d: &DnMat, op: Operation) -> (i64, i64) {
    let (rs, cs) = match d.order {
        crate::types::Order::Col => (1, d.ld),
        crate::types::Order::Row => (d.ld, 1),
    };
    if op.is_transposed() {
        (cs, rs)
    } else {
        (rs, cs)
    }
}

impl BsrOperand {
    /// A BSR descriptor's arrays and sizes.
    fn of(a: &SpMat) -> Result<Self> {
        let crate::descr::SparsePattern::Bsr { row_offsets, col_ind, block, order } = a.pattern else {
            return Err(crate::error::Error::internal("the BSR method needs a BSR matrix"));
        };
        Ok(BsrOperand {
            mb: a.rows / block,
            kb: a.cols / block,
            nnzb: a.nnz / (block * block),
            block,
            offsets: row_offsets,
            columns: col_ind,
            values: a.values,
            index_type: a.indices_type,
            base: a.base.offset(),
            column_major_blocks: order == crate::types::Order::Col,
        })
    }
}

impl BsrProductArgs {
    /// SpMV on a BSR descriptor (op(A) = A): x as a one-column B, y as C.
    pub fn of_spmv(args: &SpmvArgs) -> Result<Self> {
        let b = Strided { ptr: args.x.values as *const c_void, rs: 1, cs: args.x.size.max(1) };
        let c = Strided { ptr: args.y.values, rs: 1, cs: args.y.size.max(1) };
        let (alpha, beta, precision) = (args.alpha, args.beta, args.precision);
        Ok(StoredProductArgs { a: BsrOperand::of(args.a)?, n: 1, b, c, alpha, beta, precision })
    }

    /// SpMM on a BSR descriptor (op(A) = A), B and C in either order, op(B) either way.
    pub fn of_spmm(args: &SpmmArgs) -> Result<Self> {
        Ok(Self::of_spmm_with(BsrOperand::of(args.a)?, args))
    }
}

/// Per-descriptor SpGEMM state between the protocol's calls, owned by `spblkSpGEMMDescr_t`.
#[derive(Default)]
pub struct SpgemmState {
    /// Backend-specific data (the computed product, device buffers, ...).
    pub data: Option<Box<dyn Any + Send>>,
    /// nnz(C), known after `compute` or `reuse_nnz`.
    pub c_nnz: Option<i64>,
    /// The scalar products of A·B, known after the work estimation (`getNumProducts`).
    pub num_products: Option<i64>,
    /// What the work estimation saw of A and B (rows, columns of A and B, nnz of A and B);
    /// later phases must be called with operands of the same shape.
    pub shape: Option<[i64; 5]>,
    /// ALG3's `chunk_fraction`, from `spblkSpGEMM_estimateMemory`.
    pub chunk_fraction: Option<f32>,
    /// Which stage was completed last.
    pub stage: SpgemmStage,
}

/// The SpGEMM protocol's stages: `workEstimation` (either protocol), then `compute` →
/// `copy`, or `reuse_nnz` → `reuse_copy` → `reuse_compute` (any number of times).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SpgemmStage {
    #[default]
    Created,
    WorkEstimated,
    Computed,
    ReuseCounted,
    ReuseCopied,
}

/// The operations a backend provides. Buffer sizes are in bytes; a size of 0 means the
/// caller may pass NULL.
pub trait Backend: Send + Sync {
    fn kind(&self) -> BackendKind;

    /// The workspace of `spmv` given the plans the matrix holds now (before a preprocess it
    /// covers converting A; after it, only what each call needs).
    fn spmv_buffer_size(&self, args: &SpmvArgs) -> Result<usize>;
    /// Builds the matrix's plan for the call's method and op(A), once; `buffer` (of
    /// `spmv_buffer_size` bytes) is scratch.
    fn spmv_preprocess(&self, exec: &Exec, args: &SpmvArgs, buffer: *mut c_void) -> Result<()>;
    fn spmv(&self, exec: &Exec, args: &SpmvArgs, buffer: *mut c_void) -> Result<()>;

    fn spmm_buffer_size(&self, args: &SpmmArgs) -> Result<usize>;
    /// The workspace of [`SpmmMethod::Rode`] with this plan (at most `spmm_buffer_size`'s,
    /// which assumes the most segments possible): the default runs RoDe only when it fits in
    /// the row method's workspace.
    fn spmm_rode_workspace(&self, args: &SpmmArgs, plan: &crate::plan::RodePlan) -> Result<usize>;
    fn spmm_preprocess(&self, exec: &Exec, args: &SpmmArgs, buffer: *mut c_void) -> Result<()>;
    fn spmm(&self, exec: &Exec, args: &SpmmArgs, buffer: *mut c_void) -> Result<()>;

    fn sddmm_buffer_size(&self, args: &SddmmArgs) -> Result<usize>;
    fn sddmm_preprocess(&self, exec: &Exec, args: &SddmmArgs, buffer: *mut c_void) -> Result<()>;
    fn sddmm(&self, exec: &Exec, args: &SddmmArgs, buffer: *mut c_void) -> Result<()>;

    /// Size of buffer 1 for `workEstimation` (at least 1).
    fn spgemm_work_estimation_size(&self, args: &SpgemmArgs) -> Result<usize>;
    fn spgemm_work_estimation(
        &self,
        exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        buffer: *mut c_void,
        buffer_size: usize,
    ) -> Result<()>;
    /// Size of buffer 2 for `compute` (at least 1); may depend on the work estimation.
    fn spgemm_compute_size(&self, args: &SpgemmArgs, state: &SpgemmState) -> Result<usize>;
    /// Computes the product's structure and values; returns nnz(C), readable on the host.
    fn spgemm_compute(
        &self,
        exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        buffer: *mut c_void,
        buffer_size: usize,
    ) -> Result<i64>;
    /// Writes C's offsets, columns and values into C's arrays (columns sorted within rows).
    fn spgemm_copy(&self, exec: &Exec, args: &SpgemmArgs, state: &mut SpgemmState) -> Result<()>;

    /// Sizes of the reuse path's buffers 2, 3 and 4 (each at least 1), after the work
    /// estimation: 2 may be freed after `reuse_nnz`, 3 after `reuse_copy`, 4 lives until the
    /// last `reuse_compute`.
    fn spgemm_reuse_nnz_sizes(&self, args: &SpgemmArgs, state: &SpgemmState) -> Result<[usize; 3]>;
    /// C's structure without values; returns nnz(C), readable on the host.
    fn spgemm_reuse_nnz(
        &self,
        exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        buffers: [*mut c_void; 3],
    ) -> Result<i64>;
    /// Size of buffer 5 (at least 1), after `reuse_nnz`; it lives until the last `reuse_compute`.
    fn spgemm_reuse_copy_size(&self, args: &SpgemmArgs, state: &SpgemmState) -> Result<usize>;
    /// Writes C's offsets and columns (not its values) and prepares `reuse_compute`.
    fn spgemm_reuse_copy(
        &self,
        exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        buffer: *mut c_void,
    ) -> Result<()>;
    /// C's values from A's and B's values as they are now (the structure is unchanged).
    fn spgemm_reuse_compute(&self, exec: &Exec, args: &SpgemmArgs, state: &mut SpgemmState) -> Result<()>;

    fn spvec_update(&self, exec: &Exec, args: &SpvecArgs) -> Result<()>;
    /// Workspace of `spvv`; it depends only on nnz(X) and the types, so the partial sums are
    /// always added in the same order.
    fn spvv_buffer_size(&self, args: &SpvvArgs) -> Result<usize>;
    fn spvv(&self, exec: &Exec, args: &SpvvArgs, buffer: *mut c_void) -> Result<()>;

    fn sparse_to_dense_buffer_size(&self, args: &SparseToDenseArgs) -> Result<usize>;
    fn sparse_to_dense(&self, exec: &Exec, args: &SparseToDenseArgs, buffer: *mut c_void) -> Result<()>;
    /// The workspace of both phases of DenseToSparse.
    fn dense_to_sparse_buffer_size(&self, args: &DenseToSparseArgs) -> Result<usize>;
    /// Counts A's nonzeros, writes B's offsets (CSR, CSC) and returns nnz, readable on the host.
    fn dense_to_sparse_analysis(&self, exec: &Exec, args: &DenseToSparseArgs, buffer: *mut c_void) -> Result<i64>;
    /// Writes B's indices and values: at most B's nnz entries, whatever A holds now (a backend
    /// that can tell reports an A that no longer has B's nnz).
    fn dense_to_sparse_convert(&self, exec: &Exec, args: &DenseToSparseArgs, buffer: *mut c_void) -> Result<()>;

    /// `C = alpha A op(B) + beta C`, A in BSR (no workspace).
    fn bsr_product(&self, exec: &Exec, args: &BsrProductArgs) -> Result<()>;

    /// The workspace of `geam_nnz` (the fill needs none).
    fn geam_buffer_size(&self, args: &GeamArgs) -> Result<usize>;
    /// Writes C's offsets, and nnz(C) to `c_total` unless it is NULL. Fails, writing nothing,
    /// when nnz(C) does not fit an `int`.
    fn geam_nnz(&self, exec: &Exec, args: &GeamArgs, buffer: *mut c_void) -> Result<()>;
    /// Writes C's columns and values into the rows C's offsets describe.
    fn geam(&self, exec: &Exec, args: &GeamArgs, values: &GeamValues) -> Result<()>;

    fn index_arrays(&self, exec: &Exec, op: &IndexArrays) -> Result<()>;
    fn sort_buffer_size(&self, args: &SortArgs) -> Result<usize>;
    fn sort(&self, exec: &Exec, args: &SortArgs, buffer: *mut c_void) -> Result<()>;

    fn csr2csc_buffer_size(&self, args: &Csr2CscArgs) -> Result<usize>;
    fn csr2csc(&self, exec: &Exec, args: &Csr2CscArgs, buffer: *mut c_void) -> Result<()>;

    /// The buffer `spsv_analysis` keeps its analysis in (it must live until the last solve).
    fn spsv_buffer_size(&self, args: &SpsvArgs) -> Result<usize>;
    /// Analyses op(A): its triangle's entries in solve order and a copy of their values and of
    /// the diagonal (a missing diagonal entry reads as one, as cuSPARSE's does).
    fn spsv_analysis(&self, exec: &Exec, args: &SpsvArgs, buffer: *mut c_void) -> Result<Box<SpsvAnalysis>>;
    /// Solves with an analysis this backend made for `args`' shape.
    fn spsv_solve(&self, exec: &Exec, args: &SpsvArgs, analysis: &SpsvAnalysis) -> Result<()>;
    /// Replaces the analysis' copy of A's values (`General`: nnz values in A's storage order)
    /// or of its diagonal (`Diagonal`: one value per row), from `values` in backend memory.
    fn spsv_update(
        &self,
        exec: &Exec,
        analysis: &mut SpsvAnalysis,
        values: *const c_void,
        part: crate::types::SpsvUpdate,
    ) -> Result<()>;

    /// The buffer `factor_analysis` keeps its analysis in (it must live until the last
    /// factorization and zero-pivot query).
    fn factor_buffer_size(&self, args: &FactorArgs) -> Result<usize>;
    /// Analyses A's pattern for an incomplete factorization: each row's diagonal entry, the
    /// first row without one.
    fn factor_analysis(&self, exec: &Exec, args: &FactorArgs, buffer: *mut c_void) -> Result<Box<FactorAnalysis>>;
    /// Factors A in place on its values with an analysis this backend made for it.
    fn factor(&self, exec: &Exec, args: &FactorArgs, analysis: &mut FactorAnalysis, boost: Option<Boost>)
        -> Result<()>;
    /// The first row (zero-based) whose pivot is missing or, after a factorization, zero
    /// (blocking).
    fn factor_zero_pivot(&self, exec: &Exec, analysis: &FactorAnalysis) -> Result<Option<i64>>;
    /// Stores one `int` into backend memory, ordered on the stream.
    fn write_i32(&self, exec: &Exec, dst: *mut i32, value: i32) -> Result<()>;

    /// Copies `dst.len()` bytes from backend memory at `src` into host memory (blocking).
    fn read_bytes(&self, exec: &Exec, src: *const c_void, dst: &mut [u8]) -> Result<()>;

    /// Builds RoDe's decomposition of A (op(A) = A) and keeps it in A's plans
    /// (`spblkAnalyze(SPBLK_ANALYSIS_RODE)`).
    fn analyze_rode(&self, exec: &Exec, a: &SpMat) -> Result<()>;

    /// Builds ASpT's tiling of CSR matrix `c` and keeps it in its plans, unless it has one
    /// (`spblkAnalyze(SPBLK_ANALYSIS_ASPT)`, SDDMM's preprocess with `SPBLK_SDDMM_ALG_ASPT`);
    /// with `spmm`, also the SpMM plan derived from it (`spblkAnalyze`, SpMM's preprocess with
    /// `SPBLK_SPMM_ALG_ASPT`).
    fn analyze_aspt(&self, exec: &Exec, c: &SpMat, spmm: bool) -> Result<()>;

    /// Estimates the counts of CSR matrix `a`'s ASpT SpMM plan without building it, for the
    /// default's preprocess (blocking). `None`: the backend has no estimate cheaper than the
    /// plan, and its default never builds one (the host's).
    fn estimate_aspt_spmm(&self, _exec: &Exec, _a: &SpMat) -> Result<Option<AsptSpmmShape>> {
        Ok(None)
    }

    /// Whether `upload_one_sa` fills the values of a 1-SA plan of the layout alone
    /// (`VbrValues::InBackend`) from the matrix in the backend's memory, for this value type.
    fn fills_vbr_values(&self, _value_type: DataType) -> bool {
        false
    }

    /// Copies a 1-SA plan's VBR arrays into memory the backend's kernels read, laid out as
    /// they read them (freed with the plan); a plan of the layout alone gets its values from
    /// `a`, the matrix it was made for. `None`: the backend computes from the host plan.
    fn upload_one_sa(&self, _exec: &Exec, _plan: &OneSaPlan, _a: &SpMat) -> Result<Option<VbrArrays>> {
        Ok(None)
    }
}

/// Creates the backend for a handle. Never falls back: a CUDA request without a usable GPU
/// is an error that says why.
pub fn create(kind: BackendKind) -> Result<Arc<dyn Backend>> {
    match kind {
        BackendKind::Host => Ok(Arc::new(host::HostBackend)),
        BackendKind::Cuda => create_cuda(),
    }
}

#[cfg(feature = "cuda")]
fn create_cuda() -> Result<Arc<dyn Backend>> {
    cuda::create()
}

#[cfg(not(feature = "cuda"))]
fn create_cuda() -> Result<Arc<dyn Backend>> {
    Err(crate::error::Error::not_supported(
        "the CUDA backend was not compiled into this build of spblk (feature 'cuda' off); \
         use SPBLK_BACKEND_HOST or rebuild with nvcc available",
    ))
}
