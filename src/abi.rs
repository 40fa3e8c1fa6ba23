//! The C ABI's values: status codes and enum constants, numbered exactly as cuSPARSE's
//! (`cusparse.h`, CUDA 13.0) and `cudaDataType` from `library_types.h`; spblk's own additions
//! are marked. A leaf module: every layer may use these numbers, and `capi::types`
//! re-exports them for cbindgen and C, so nothing below the C boundary imports `capi`.
//!
//! Enums that C passes *in* are plain `u32` typedefs with constants, never Rust enums: a C
//! caller can pass any integer, and an out-of-range Rust enum would be undefined behaviour.
//! They are decoded with checked conversions in `crate::types`.
#![allow(non_camel_case_types)]

/// Return status of every function.
pub type spblkStatus_t = u32;
pub const SPBLK_STATUS_SUCCESS: spblkStatus_t = 0;
pub const SPBLK_STATUS_NOT_INITIALIZED: spblkStatus_t = 1;
pub const SPBLK_STATUS_ALLOC_FAILED: spblkStatus_t = 2;
pub const SPBLK_STATUS_INVALID_VALUE: spblkStatus_t = 3;
pub const SPBLK_STATUS_ARCH_MISMATCH: spblkStatus_t = 4;
pub const SPBLK_STATUS_MAPPING_ERROR: spblkStatus_t = 5;
pub const SPBLK_STATUS_EXECUTION_FAILED: spblkStatus_t = 6;
pub const SPBLK_STATUS_INTERNAL_ERROR: spblkStatus_t = 7;
pub const SPBLK_STATUS_MATRIX_TYPE_NOT_SUPPORTED: spblkStatus_t = 8;
pub const SPBLK_STATUS_ZERO_PIVOT: spblkStatus_t = 9;
pub const SPBLK_STATUS_NOT_SUPPORTED: spblkStatus_t = 10;
pub const SPBLK_STATUS_INSUFFICIENT_RESOURCES: spblkStatus_t = 11;

/// Where alpha and beta live: host memory or the handle's (device) memory.
pub type spblkPointerMode_t = u32;
pub const SPBLK_POINTER_MODE_HOST: spblkPointerMode_t = 0;
pub const SPBLK_POINTER_MODE_DEVICE: spblkPointerMode_t = 1;

pub type spblkIndexBase_t = u32;
pub const SPBLK_INDEX_BASE_ZERO: spblkIndexBase_t = 0;
pub const SPBLK_INDEX_BASE_ONE: spblkIndexBase_t = 1;

pub type spblkOperation_t = u32;
pub const SPBLK_OPERATION_NON_TRANSPOSE: spblkOperation_t = 0;
pub const SPBLK_OPERATION_TRANSPOSE: spblkOperation_t = 1;
pub const SPBLK_OPERATION_CONJUGATE_TRANSPOSE: spblkOperation_t = 2;

pub type spblkIndexType_t = u32;
pub const SPBLK_INDEX_16U: spblkIndexType_t = 1;
pub const SPBLK_INDEX_32I: spblkIndexType_t = 2;
pub const SPBLK_INDEX_64I: spblkIndexType_t = 3;

pub type spblkOrder_t = u32;
pub const SPBLK_ORDER_COL: spblkOrder_t = 1;
pub const SPBLK_ORDER_ROW: spblkOrder_t = 2;

pub type spblkFormat_t = u32;
pub const SPBLK_FORMAT_CSR: spblkFormat_t = 1;
pub const SPBLK_FORMAT_CSC: spblkFormat_t = 2;
pub const SPBLK_FORMAT_COO: spblkFormat_t = 3;
pub const SPBLK_FORMAT_BLOCKED_ELL: spblkFormat_t = 5;
pub const SPBLK_FORMAT_BSR: spblkFormat_t = 6;
pub const SPBLK_FORMAT_SLICED_ELLPACK: spblkFormat_t = 7;

/// Value types, numbered as CUDA's `cudaDataType`.
pub type spblkDataType_t = u32;
pub const SPBLK_R_32F: spblkDataType_t = 0;
pub const SPBLK_R_64F: spblkDataType_t = 1;
pub const SPBLK_R_16F: spblkDataType_t = 2;
pub const SPBLK_R_8I: spblkDataType_t = 3;
pub const SPBLK_C_32F: spblkDataType_t = 4;
pub const SPBLK_C_64F: spblkDataType_t = 5;
pub const SPBLK_C_16F: spblkDataType_t = 6;
pub const SPBLK_R_32I: spblkDataType_t = 10;
pub const SPBLK_R_16BF: spblkDataType_t = 14;
pub const SPBLK_C_16BF: spblkDataType_t = 15;

/// `libraryPropertyType`.
pub type spblkLibraryPropertyType_t = u32;
pub const SPBLK_MAJOR_VERSION: spblkLibraryPropertyType_t = 0;
pub const SPBLK_MINOR_VERSION: spblkLibraryPropertyType_t = 1;
pub const SPBLK_PATCH_LEVEL: spblkLibraryPropertyType_t = 2;

/// SpMV algorithms. spblk runs the default and every cuSPARSE CSR and COO value with its
/// deterministic merge-tile method on CSR of op(A) (CSC, COO and transposes converted, once per
/// plan); CSR values need CSR or CSC, COO values COO, else `SPBLK_STATUS_NOT_SUPPORTED`.
/// `SPBLK_LOG=1` names what ran.
pub type spblkSpMVAlg_t = u32;
pub const SPBLK_SPMV_ALG_DEFAULT: spblkSpMVAlg_t = 0;
pub const SPBLK_SPMV_COO_ALG1: spblkSpMVAlg_t = 1;
pub const SPBLK_SPMV_CSR_ALG1: spblkSpMVAlg_t = 2;
pub const SPBLK_SPMV_CSR_ALG2: spblkSpMVAlg_t = 3;
pub const SPBLK_SPMV_COO_ALG2: spblkSpMVAlg_t = 4;
/// Sliced-ELL matrices only (as is the default on them): op N as stored, op T through CSR.
pub const SPBLK_SPMV_SELL_ALG1: spblkSpMVAlg_t = 5;
/// BSR matrices only (as is the default on them), op N.
pub const SPBLK_SPMV_BSR_ALG1: spblkSpMVAlg_t = 6;
/// spblk addition: one thread per row (the textbook "CSR scalar" kernel; a baseline). CSR or
/// CSC matrices (`SPBLK_STATUS_NOT_SUPPORTED` for COO).
pub const SPBLK_SPMV_ALG_CSR_SCALAR: spblkSpMVAlg_t = 100;
/// spblk addition: one warp per row (the textbook "CSR vector" kernel; a baseline). CSR or CSC.
pub const SPBLK_SPMV_ALG_CSR_VECTOR: spblkSpMVAlg_t = 101;
/// spblk addition: the row method: a group of 2..32 lanes per row sized from the average row
/// length, long rows split into chunks. `SPBLK_SPMV_ALG_DEFAULT` and the CSR/COO values run it
/// for rows of 256 or more entries on average, and for matrices under 2^19 entries unless a
/// preprocess found skewed rows (longest >= 128 and >= 16x the average). CSR or CSC.
pub const SPBLK_SPMV_ALG_CSR_ROWS: spblkSpMVAlg_t = 102;
/// spblk addition: merge-path tiles of rows + entries, balanced whatever the row lengths,
/// deterministic; its plan comes from `spblkSpMV_preprocess`. `SPBLK_SPMV_ALG_DEFAULT` and the
/// CSR/COO values run it for the other matrices (docs/spmv.md). CSR or CSC.
pub const SPBLK_SPMV_ALG_CSR_MERGE: spblkSpMVAlg_t = 103;

/// SpMM algorithms. The CSR and COO values run spblk's deterministic row method (format rules
/// as for SpMV); `SPBLK_SPMM_BSR_ALG1` and `SPBLK_SPMM_BLOCKED_ELL_ALG1` run on their formats
/// only (as does the default on them; Blocked-ELL blocks of a multiple of 16 rows on
/// tensor cores); `SPBLK_SPMM_ALG_RODE` and `SPBLK_SPMM_ALG_ASPT` need their plans;
/// `SPBLK_SPMM_ALG_VBR` and `SPBLK_SPMM_ALG_VBR_TF32` run the 1-SA blocks on tensor cores
/// (host backend: the reference); `SPBLK_SPMM_ALG_CSR_SWEEP` needs its plan. No value ever runs
/// another method.
pub type spblkSpMMAlg_t = u32;
pub const SPBLK_SPMM_ALG_DEFAULT: spblkSpMMAlg_t = 0;
pub const SPBLK_SPMM_COO_ALG1: spblkSpMMAlg_t = 1;
pub const SPBLK_SPMM_COO_ALG2: spblkSpMMAlg_t = 2;
pub const SPBLK_SPMM_COO_ALG3: spblkSpMMAlg_t = 3;
pub const SPBLK_SPMM_CSR_ALG1: spblkSpMMAlg_t = 4;
pub const SPBLK_SPMM_COO_ALG4: spblkSpMMAlg_t = 5;
pub const SPBLK_SPMM_CSR_ALG2: spblkSpMMAlg_t = 6;
pub const SPBLK_SPMM_CSR_ALG3: spblkSpMMAlg_t = 12;
pub const SPBLK_SPMM_BLOCKED_ELL_ALG1: spblkSpMMAlg_t = 13;
pub const SPBLK_SPMM_BSR_ALG1: spblkSpMMAlg_t = 14;
/// spblk addition: RoDe row decomposition (Pang et al., PPoPP'24): the rows' first multiples of
/// 32 entries cut into balanced segments, each row's segment sums and remaining entries added
/// in a fixed order (deterministic). Needs a plan for the call's opA, built by
/// `spblkSpMM_preprocess` with this value (any format) or by `spblkAnalyze` with
/// `SPBLK_ANALYSIS_RODE` (CSR, opA = N); without one the call returns `INVALID_VALUE`. The
/// workspace holds one row of C per segment: `bufferSize` reports up to nnz/32 of them.
pub const SPBLK_SPMM_ALG_RODE: spblkSpMMAlg_t = 100;
/// spblk addition: ASpT tiling (after Hong et al., PPoPP'19), CSR with opA = N only
/// (`NOT_SUPPORTED` otherwise): A's rows ordered so that rows with the same column blocks are
/// neighbours and cut into panels of 32; in each panel the columns two or more rows use have
/// their rows of op(B) staged in shared memory, so each is read about once per panel; each row
/// sums those entries, then its others, each part by column (deterministic). Needs a plan on
/// matA, built by `spblkSpMM_preprocess` with this value or by `spblkAnalyze` with
/// `SPBLK_ANALYSIS_ASPT` (without one the call returns `INVALID_VALUE`); the plan holds about
/// 8 bytes per entry and 12 per row besides the ASpT plan SDDMM uses (12 per entry, 4 per row).
/// Fast where rows share columns (block-structured matrices); on patterns whose rows share
/// almost nothing it is the row method without its long-row handling. With such a plan,
/// `SPBLK_SPMM_ALG_DEFAULT` runs it where the plan predicts a gain (N >= 64 and rows that share
/// most of their columns); the default's own preprocess builds one where an estimate from
/// sampled panels predicts that (N >= 64, 2^20 entries or more).
pub const SPBLK_SPMM_ALG_ASPT: spblkSpMMAlg_t = 101;
/// spblk addition: 1-SA variable-row blocks (needs `spblkAnalyze` with `SPBLK_ANALYSIS_1SA`).
/// On CUDA: f16/bf16 inputs on f16/bf16 tensor cores with f32 accumulation; f32 inputs
/// f32-accurate through split TF32 (three TF32 products per term, error about that of f32
/// FMA); f64 is `NOT_SUPPORTED` on CUDA (host backend only).
pub const SPBLK_SPMM_ALG_VBR: spblkSpMMAlg_t = 102;
/// spblk addition: as `SPBLK_SPMM_ALG_VBR` for f32 inputs, with one TF32 product per term:
/// faster, relative error about 1e-3 of sum |a||b|. f32 inputs only (`NOT_SUPPORTED` otherwise).
pub const SPBLK_SPMM_ALG_VBR_TF32: spblkSpMMAlg_t = 103;
/// spblk addition: the row method's sums (each row's entries in storage order, bit for bit the
/// same results), scheduled for an op(B) many times larger than the GPU's L2 cache: a warp keeps
/// four rows of C in registers and walks their entries in slabs of op(B)'s rows, one band of rows
/// at a time, so that the rows of op(B) in use at once fit in the L2 (rows far longer than the
/// average take the row method's long-row path, as there). Needs a plan for the
/// call's opA (each row's slab boundaries, 4 bytes per row and slab), built by
/// `spblkSpMM_preprocess` with this value (any format); without one the call returns
/// `INVALID_VALUE`. `SPBLK_SPMM_ALG_DEFAULT`'s preprocess builds and runs it for f32 with
/// N >= 128 when op(B) is at least 256 MB and the rows are long (>= 64 entries on average) and
/// even (the longest at most 4x the average). Host backend: the row method's sums.
pub const SPBLK_SPMM_ALG_CSR_SWEEP: spblkSpMMAlg_t = 104;

pub type spblkSDDMMAlg_t = u32;
pub const SPBLK_SDDMM_ALG_DEFAULT: spblkSDDMMAlg_t = 0;
/// spblk addition: ASpT tiling (after Hong et al., PPoPP'19): C's rows ordered so that rows
/// with the same column blocks are neighbours, cut into panels of 32 rows whose entries are
/// taken column by column, with the panel's rows of op(A) staged in shared memory: each
/// column of op(B) is read about once per panel. CUDA, f32: the panel's rows times 64 or 128
/// of its columns at a time on tensor cores (split TF32, three products: about f32 accuracy,
/// not the streaming kernel's bits), each entry picking its product; other types: each
/// entry's dot product summed as the streaming default sums it. Deterministic. Needs a plan
/// on matC, built by `spblkSDDMM_preprocess` with this value or by `spblkAnalyze` with
/// `SPBLK_ANALYSIS_ASPT` (without one the call returns `INVALID_VALUE`); the plan holds 12
/// bytes per entry, 4 per row and 4 per distinct (panel, column) pair. CUDA: k at most 256
/// (128 for f64), else `NOT_SUPPORTED`; the tiles need every row of C sorted by column (else
/// the dot products).
/// `SPBLK_SDDMM_ALG_DEFAULT` runs the tiles (f32, CUDA) where its preprocess estimates 6 or
/// more entries per panel column in a C of 2^20 entries or more (it then builds the plan):
/// slower than streaming below that on the H200.
pub const SPBLK_SDDMM_ALG_ASPT: spblkSDDMMAlg_t = 101;

/// SpGEMM algorithms: `DEFAULT`, `ALG1` and the two `CSR_ALG_*` run spblk's deterministic
/// binned-hash method, which allocates only for rows too big for shared memory. `ALG2` runs
/// the same method with all its memory in buffer 2 (the `estimateMemory` protocol; nothing is
/// allocated inside `compute` or `copy`); `ALG3` too, with the rows too big for shared memory
/// run in passes of `chunk_fraction` of their memory, so buffer 2 shrinks with the fraction
/// (same C, bit for bit; the reuse path does not take ALG3). All are deterministic.
pub type spblkSpGEMMAlg_t = u32;
pub const SPBLK_SPGEMM_DEFAULT: spblkSpGEMMAlg_t = 0;
pub const SPBLK_SPGEMM_CSR_ALG_DETERMINITIC: spblkSpGEMMAlg_t = 1;
pub const SPBLK_SPGEMM_CSR_ALG_NONDETERMINITIC: spblkSpGEMMAlg_t = 2;
pub const SPBLK_SPGEMM_ALG1: spblkSpGEMMAlg_t = 3;
pub const SPBLK_SPGEMM_ALG2: spblkSpGEMMAlg_t = 4;
pub const SPBLK_SPGEMM_ALG3: spblkSpGEMMAlg_t = 5;
/// spblk addition: the binned ESC method (after bhSPARSE, Liu & Vinter): rows binned by their
/// number of scalar products P, which bounds their entries; each row's products expanded into
/// P slots of buffer 2, sorted by column (a warp per row up to 256 products, a block per row
/// up to 4096, longer rows in sorted chunks of 4096 merged pairwise) and each column's products
/// summed in expansion order: the same bits as the default. `compute` computes the values,
/// `copy` compacts them into C. Buffer 2 holds 4 + sizeof(computeType) bytes per product, plus
/// 16 per product of rows over 4096 (several times the default's); nothing is allocated in the
/// calls. Not for the reuse path (`NOT_SUPPORTED`); the host backend runs its reference, which
/// is the same method row by row.
pub const SPBLK_SPGEMM_ALG_ESC: spblkSpGEMMAlg_t = 100;

/// Triangular-solve algorithms (`spblkSpSV_*`, `spblkSpSM_*`): the default is spblk's
/// synchronization-free solve (deterministic, graph-capturable; see docs/spsv.md).
pub type spblkSpSVAlg_t = u32;
pub const SPBLK_SPSV_ALG_DEFAULT: spblkSpSVAlg_t = 0;
/// What `spblkSpSV_updateMatrix` replaces: every value of A (`newValues` holds nnz values in
/// A's storage order), or its diagonal only (`newValues` holds one value per row).
pub type spblkSpSVUpdate_t = u32;
pub const SPBLK_SPSV_UPDATE_GENERAL: spblkSpSVUpdate_t = 0;
pub const SPBLK_SPSV_UPDATE_DIAGONAL: spblkSpSVUpdate_t = 1;
/// The legacy factorizations' solve policy (`spblk{S,D}csric02*`, `csrilu02*`): both give the
/// same factor (spblk's rows wait for the rows they need, with or without level information).
pub type spblkSolvePolicy_t = u32;
pub const SPBLK_SOLVE_POLICY_NO_LEVEL: spblkSolvePolicy_t = 0;
pub const SPBLK_SOLVE_POLICY_USE_LEVEL: spblkSolvePolicy_t = 1;
/// `spblkSpSM_*`'s algorithm: the SpSV solve over every right-hand side at once.
pub type spblkSpSMAlg_t = u32;
pub const SPBLK_SPSM_ALG_DEFAULT: spblkSpSMAlg_t = 0;
/// What `spblkSpSM_updateMatrix` replaces, as `spblkSpSVUpdate_t`.
pub type spblkSpSMUpdate_t = u32;
pub const SPBLK_SPSM_UPDATE_GENERAL: spblkSpSMUpdate_t = 0;
pub const SPBLK_SPSM_UPDATE_DIAGONAL: spblkSpSMUpdate_t = 1;

/// Attributes of a sparse matrix descriptor (`spblkSpMatGetAttribute`, `spblkSpMatSetAttribute`):
/// its fill mode (`spblkFillMode_t`, default LOWER) and diagonal type (`spblkDiagType_t`,
/// default NON_UNIT), both 4-byte values. Only triangular solves read them.
pub type spblkSpMatAttribute_t = u32;
pub const SPBLK_SPMAT_FILL_MODE: spblkSpMatAttribute_t = 0;
pub const SPBLK_SPMAT_DIAG_TYPE: spblkSpMatAttribute_t = 1;
pub type spblkFillMode_t = u32;
pub const SPBLK_FILL_MODE_LOWER: spblkFillMode_t = 0;
pub const SPBLK_FILL_MODE_UPPER: spblkFillMode_t = 1;
pub type spblkDiagType_t = u32;
pub const SPBLK_DIAG_TYPE_NON_UNIT: spblkDiagType_t = 0;
pub const SPBLK_DIAG_TYPE_UNIT: spblkDiagType_t = 1;
/// The matrix type of a legacy matrix descriptor (`spblkMatDescr_t`).
pub type spblkMatrixType_t = u32;
pub const SPBLK_MATRIX_TYPE_GENERAL: spblkMatrixType_t = 0;
pub const SPBLK_MATRIX_TYPE_SYMMETRIC: spblkMatrixType_t = 1;
pub const SPBLK_MATRIX_TYPE_HERMITIAN: spblkMatrixType_t = 2;
pub const SPBLK_MATRIX_TYPE_TRIANGULAR: spblkMatrixType_t = 3;
/// How the legacy BSR calls store each block: row by row or column by column.
pub type spblkDirection_t = u32;
pub const SPBLK_DIRECTION_ROW: spblkDirection_t = 0;
pub const SPBLK_DIRECTION_COLUMN: spblkDirection_t = 1;

pub type spblkAction_t = u32;
pub const SPBLK_ACTION_SYMBOLIC: spblkAction_t = 0;
pub const SPBLK_ACTION_NUMERIC: spblkAction_t = 1;

pub type spblkCsr2CscAlg_t = u32;
pub const SPBLK_CSR2CSC_ALG_DEFAULT: spblkCsr2CscAlg_t = 1;
pub const SPBLK_CSR2CSC_ALG1: spblkCsr2CscAlg_t = 1;

pub type spblkSparseToDenseAlg_t = u32;
pub const SPBLK_SPARSETODENSE_ALG_DEFAULT: spblkSparseToDenseAlg_t = 0;

pub type spblkDenseToSparseAlg_t = u32;
pub const SPBLK_DENSETOSPARSE_ALG_DEFAULT: spblkDenseToSparseAlg_t = 0;

/// spblk addition: which implementation runs the calls made with a handle.
pub type spblkBackend_t = u32;
pub const SPBLK_BACKEND_CUDA: spblkBackend_t = 1;
pub const SPBLK_BACKEND_HOST: spblkBackend_t = 2;

/// Which analysis `spblkAnalyze` runs.
pub type spblkAnalysisAlg_t = u32;
/// 1-SA row grouping into variable-row blocks (VBR) for `SPBLK_SPMM_ALG_VBR`.
pub const SPBLK_ANALYSIS_1SA: spblkAnalysisAlg_t = 1;
/// ASpT tiling of a CSR pattern for `SPBLK_SDDMM_ALG_ASPT` and `SPBLK_SPMM_ALG_ASPT` (both
/// plans; built on the GPU on CUDA; the parameters are not used).
pub const SPBLK_ANALYSIS_ASPT: spblkAnalysisAlg_t = 2;
/// RoDe row decomposition for `SPBLK_SPMM_ALG_RODE` (CSR; built on the GPU on CUDA; the
/// parameters are not used). `spblkAnalysisGetInfo` reports the 1-SA analysis only.
pub const SPBLK_ANALYSIS_RODE: spblkAnalysisAlg_t = 3;

/// Similarity of a row's column-block pattern to a group's.
pub type spblkSimilarity_t = u32;
pub const SPBLK_SIMILARITY_JACCARD: spblkSimilarity_t = 0;
pub const SPBLK_SIMILARITY_COSINE: spblkSimilarity_t = 1;

/// When 1-SA merges a row into a group.
pub type spblkMergeRule_t = u32;
/// similarity ≥ tau.
pub const SPBLK_MERGE_PLAIN: spblkMergeRule_t = 0;
/// similarity ≥ tau and the merged pattern has at most λ0/(1−tau/2) blocks (guarantees
/// in-block density ≥ tau/(2·blockWidth)).
pub const SPBLK_MERGE_TWO_STEP: spblkMergeRule_t = 1;

/// Flags for `halfCopies`.
pub const SPBLK_VBR_COPY_F16: u32 = 1;
pub const SPBLK_VBR_COPY_BF16: u32 = 2;
