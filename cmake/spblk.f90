! spblk for Fortran 2003: the iso_c_binding module `spblk`, GENERATED from spblk.h by
! scripts/gen-fortran-module.py (do not edit; rerun it when the header changes).
!
! Handles, descriptors, streams and memory are type(c_ptr), passed by value: give c_loc(array)
! for host memory on the host backend, or a device address for the CUDA backend. alpha and
! beta are pointers too (c_loc of a variable of the compute type). Enums are integer(c_int32_t).
! Indices inside the arrays follow the descriptor's index base (SPBLK_INDEX_BASE_ONE suits
! Fortran). spblk_last_error() returns the reason of this thread's last failed call.
module spblk
  use, intrinsic :: iso_c_binding
  implicit none

  integer(c_int32_t), parameter :: SPBLK_VERSION_MAJOR = 0
  integer(c_int32_t), parameter :: SPBLK_VERSION_MINOR = 1
  integer(c_int32_t), parameter :: SPBLK_VERSION_PATCH = 0
  integer(c_int32_t), parameter :: SPBLK_VERSION = (SPBLK_VERSION_MAJOR * 1000 + SPBLK_VERSION_MINOR * 100 + SPBLK_VERSION_PATCH)
  integer(c_int32_t), parameter :: SPBLK_VBR_COPY_F16 = 1
  integer(c_int32_t), parameter :: SPBLK_VBR_COPY_BF16 = 2
  integer(c_int32_t), parameter :: SPBLK_MAT_DESCR_INVALID = 2147483647
  integer(c_int32_t), parameter :: SPBLK_STATUS_SUCCESS = 0
  integer(c_int32_t), parameter :: SPBLK_STATUS_NOT_INITIALIZED = 1
  integer(c_int32_t), parameter :: SPBLK_STATUS_ALLOC_FAILED = 2
  integer(c_int32_t), parameter :: SPBLK_STATUS_INVALID_VALUE = 3
  integer(c_int32_t), parameter :: SPBLK_STATUS_ARCH_MISMATCH = 4
  integer(c_int32_t), parameter :: SPBLK_STATUS_MAPPING_ERROR = 5
  integer(c_int32_t), parameter :: SPBLK_STATUS_EXECUTION_FAILED = 6
  integer(c_int32_t), parameter :: SPBLK_STATUS_INTERNAL_ERROR = 7
  integer(c_int32_t), parameter :: SPBLK_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8
  integer(c_int32_t), parameter :: SPBLK_STATUS_ZERO_PIVOT = 9
  integer(c_int32_t), parameter :: SPBLK_STATUS_NOT_SUPPORTED = 10
  integer(c_int32_t), parameter :: SPBLK_STATUS_INSUFFICIENT_RESOURCES = 11
  integer(c_int32_t), parameter :: SPBLK_POINTER_MODE_HOST = 0
  integer(c_int32_t), parameter :: SPBLK_POINTER_MODE_DEVICE = 1
  integer(c_int32_t), parameter :: SPBLK_INDEX_BASE_ZERO = 0
  integer(c_int32_t), parameter :: SPBLK_INDEX_BASE_ONE = 1
  integer(c_int32_t), parameter :: SPBLK_OPERATION_NON_TRANSPOSE = 0
  integer(c_int32_t), parameter :: SPBLK_OPERATION_TRANSPOSE = 1
  integer(c_int32_t), parameter :: SPBLK_OPERATION_CONJUGATE_TRANSPOSE = 2
  integer(c_int32_t), parameter :: SPBLK_INDEX_16U = 1
  integer(c_int32_t), parameter :: SPBLK_INDEX_32I = 2
  integer(c_int32_t), parameter :: SPBLK_INDEX_64I = 3
  integer(c_int32_t), parameter :: SPBLK_ORDER_COL = 1
  integer(c_int32_t), parameter :: SPBLK_ORDER_ROW = 2
  integer(c_int32_t), parameter :: SPBLK_FORMAT_CSR = 1
  integer(c_int32_t), parameter :: SPBLK_FORMAT_CSC = 2
  integer(c_int32_t), parameter :: SPBLK_FORMAT_COO = 3
  integer(c_int32_t), parameter :: SPBLK_FORMAT_BLOCKED_ELL = 5
  integer(c_int32_t), parameter :: SPBLK_FORMAT_BSR = 6
  integer(c_int32_t), parameter :: SPBLK_FORMAT_SLICED_ELLPACK = 7
  integer(c_int32_t), parameter :: SPBLK_R_32F = 0
  integer(c_int32_t), parameter :: SPBLK_R_64F = 1
  integer(c_int32_t), parameter :: SPBLK_R_16F = 2
  integer(c_int32_t), parameter :: SPBLK_R_8I = 3
  integer(c_int32_t), parameter :: SPBLK_C_32F = 4
  integer(c_int32_t), parameter :: SPBLK_C_64F = 5
  integer(c_int32_t), parameter :: SPBLK_C_16F = 6
  integer(c_int32_t), parameter :: SPBLK_R_32I = 10
  integer(c_int32_t), parameter :: SPBLK_R_16BF = 14
  integer(c_int32_t), parameter :: SPBLK_C_16BF = 15
  integer(c_int32_t), parameter :: SPBLK_MAJOR_VERSION = 0
  integer(c_int32_t), parameter :: SPBLK_MINOR_VERSION = 1
  integer(c_int32_t), parameter :: SPBLK_PATCH_LEVEL = 2
  integer(c_int32_t), parameter :: SPBLK_SPMV_ALG_DEFAULT = 0
  integer(c_int32_t), parameter :: SPBLK_SPMV_COO_ALG1 = 1
  integer(c_int32_t), parameter :: SPBLK_SPMV_CSR_ALG1 = 2
  integer(c_int32_t), parameter :: SPBLK_SPMV_CSR_ALG2 = 3
  integer(c_int32_t), parameter :: SPBLK_SPMV_COO_ALG2 = 4
  integer(c_int32_t), parameter :: SPBLK_SPMV_SELL_ALG1 = 5
  integer(c_int32_t), parameter :: SPBLK_SPMV_BSR_ALG1 = 6
  integer(c_int32_t), parameter :: SPBLK_SPMV_ALG_CSR_SCALAR = 100
  integer(c_int32_t), parameter :: SPBLK_SPMV_ALG_CSR_VECTOR = 101
  integer(c_int32_t), parameter :: SPBLK_SPMV_ALG_CSR_ROWS = 102
  integer(c_int32_t), parameter :: SPBLK_SPMV_ALG_CSR_MERGE = 103
  integer(c_int32_t), parameter :: SPBLK_SPMM_ALG_DEFAULT = 0
  integer(c_int32_t), parameter :: SPBLK_SPMM_COO_ALG1 = 1
  integer(c_int32_t), parameter :: SPBLK_SPMM_COO_ALG2 = 2
  integer(c_int32_t), parameter :: SPBLK_SPMM_COO_ALG3 = 3
  integer(c_int32_t), parameter :: SPBLK_SPMM_CSR_ALG1 = 4
  integer(c_int32_t), parameter :: SPBLK_SPMM_COO_ALG4 = 5
  integer(c_int32_t), parameter :: SPBLK_SPMM_CSR_ALG2 = 6
  integer(c_int32_t), parameter :: SPBLK_SPMM_CSR_ALG3 = 12
  integer(c_int32_t), parameter :: SPBLK_SPMM_BLOCKED_ELL_ALG1 = 13
  integer(c_int32_t), parameter :: SPBLK_SPMM_BSR_ALG1 = 14
  integer(c_int32_t), parameter :: SPBLK_SPMM_ALG_RODE = 100
  integer(c_int32_t), parameter :: SPBLK_SPMM_ALG_ASPT = 101
  integer(c_int32_t), parameter :: SPBLK_SPMM_ALG_VBR = 102
  integer(c_int32_t), parameter :: SPBLK_SPMM_ALG_VBR_TF32 = 103
  integer(c_int32_t), parameter :: SPBLK_SPMM_ALG_CSR_SWEEP = 104
  integer(c_int32_t), parameter :: SPBLK_SDDMM_ALG_DEFAULT = 0
  integer(c_int32_t), parameter :: SPBLK_SDDMM_ALG_ASPT = 101
  integer(c_int32_t), parameter :: SPBLK_SPGEMM_DEFAULT = 0
  integer(c_int32_t), parameter :: SPBLK_SPGEMM_CSR_ALG_DETERMINITIC = 1
  integer(c_int32_t), parameter :: SPBLK_SPGEMM_CSR_ALG_NONDETERMINITIC = 2
  integer(c_int32_t), parameter :: SPBLK_SPGEMM_ALG1 = 3
  integer(c_int32_t), parameter :: SPBLK_SPGEMM_ALG2 = 4
  integer(c_int32_t), parameter :: SPBLK_SPGEMM_ALG3 = 5
  integer(c_int32_t), parameter :: SPBLK_SPGEMM_ALG_ESC = 100
  integer(c_int32_t), parameter :: SPBLK_SPSV_ALG_DEFAULT = 0
  integer(c_int32_t), parameter :: SPBLK_SPSV_UPDATE_GENERAL = 0
  integer(c_int32_t), parameter :: SPBLK_SPSV_UPDATE_DIAGONAL = 1
  integer(c_int32_t), parameter :: SPBLK_SOLVE_POLICY_NO_LEVEL = 0
  integer(c_int32_t), parameter :: SPBLK_SOLVE_POLICY_USE_LEVEL = 1
  integer(c_int32_t), parameter :: SPBLK_SPSM_ALG_DEFAULT = 0
  integer(c_int32_t), parameter :: SPBLK_SPSM_UPDATE_GENERAL = 0
  integer(c_int32_t), parameter :: SPBLK_SPSM_UPDATE_DIAGONAL = 1
  integer(c_int32_t), parameter :: SPBLK_SPMAT_FILL_MODE = 0
  integer(c_int32_t), parameter :: SPBLK_SPMAT_DIAG_TYPE = 1
  integer(c_int32_t), parameter :: SPBLK_FILL_MODE_LOWER = 0
  integer(c_int32_t), parameter :: SPBLK_FILL_MODE_UPPER = 1
  integer(c_int32_t), parameter :: SPBLK_DIAG_TYPE_NON_UNIT = 0
  integer(c_int32_t), parameter :: SPBLK_DIAG_TYPE_UNIT = 1
  integer(c_int32_t), parameter :: SPBLK_MATRIX_TYPE_GENERAL = 0
  integer(c_int32_t), parameter :: SPBLK_MATRIX_TYPE_SYMMETRIC = 1
  integer(c_int32_t), parameter :: SPBLK_MATRIX_TYPE_HERMITIAN = 2
  integer(c_int32_t), parameter :: SPBLK_MATRIX_TYPE_TRIANGULAR = 3
  integer(c_int32_t), parameter :: SPBLK_DIRECTION_ROW = 0
  integer(c_int32_t), parameter :: SPBLK_DIRECTION_COLUMN = 1
  integer(c_int32_t), parameter :: SPBLK_ACTION_SYMBOLIC = 0
  integer(c_int32_t), parameter :: SPBLK_ACTION_NUMERIC = 1
  integer(c_int32_t), parameter :: SPBLK_CSR2CSC_ALG_DEFAULT = 1
  integer(c_int32_t), parameter :: SPBLK_CSR2CSC_ALG1 = 1
  integer(c_int32_t), parameter :: SPBLK_SPARSETODENSE_ALG_DEFAULT = 0
  integer(c_int32_t), parameter :: SPBLK_DENSETOSPARSE_ALG_DEFAULT = 0
  integer(c_int32_t), parameter :: SPBLK_BACKEND_CUDA = 1
  integer(c_int32_t), parameter :: SPBLK_BACKEND_HOST = 2
  integer(c_int32_t), parameter :: SPBLK_ANALYSIS_1SA = 1
  integer(c_int32_t), parameter :: SPBLK_ANALYSIS_ASPT = 2
  integer(c_int32_t), parameter :: SPBLK_ANALYSIS_RODE = 3
  integer(c_int32_t), parameter :: SPBLK_SIMILARITY_JACCARD = 0
  integer(c_int32_t), parameter :: SPBLK_SIMILARITY_COSINE = 1
  integer(c_int32_t), parameter :: SPBLK_MERGE_PLAIN = 0
  integer(c_int32_t), parameter :: SPBLK_MERGE_TWO_STEP = 1

  type, bind(C) :: spblkAnalysisParams
    integer(c_size_t) :: structSize
    integer(c_int64_t) :: blockWidth
    real(c_double) :: tau
    integer(c_int32_t) :: similarity
    integer(c_int32_t) :: mergeRule
    integer(c_int64_t) :: maxGroupHeight
    integer(c_int32_t) :: halfCopies
    integer(c_int64_t) :: candidateBudget
  end type spblkAnalysisParams

  type, bind(C) :: spblkAnalysisInfo
    integer(c_size_t) :: structSize
    integer(c_int32_t) :: alg
    integer(c_int64_t) :: groups
    integer(c_int64_t) :: nonzeroBlocks
    real(c_double) :: avgBlockHeight
    real(c_double) :: inBlockDensity
    real(c_double) :: fillInRatio
    real(c_double) :: analysisSeconds
  end type spblkAnalysisInfo

  interface
    ! Fills `params` with the defaults; `structSize` is `sizeof(spblkAnalysisParams)` as the
    ! caller sees it.
    function spblkAnalysisParamsInit(params, structSize) bind(C, name="spblkAnalysisParamsInit")
      import
      integer(c_int32_t) :: spblkAnalysisParamsInit
      type(spblkAnalysisParams), intent(inout) :: params
      integer(c_size_t), value :: structSize
    end function spblkAnalysisParamsInit
    ! Analyses `matA` (CSR; host or device memory per the handle's backend) and stores the plan
    ! in the descriptor, replacing any earlier one. `params` may be NULL for the defaults. The
    ! plan is dropped by `spblkCsrSetPointers`, `spblkSpMatSetValues` and `spblkDestroySpMat`.
    ! The 1-SA plan copies the values into its blocks: after changing values in place, call
    ! `spblkAnalyze` again.
    function spblkAnalyze(handle, matA, alg, params) bind(C, name="spblkAnalyze")
      import
      integer(c_int32_t) :: spblkAnalyze
      type(c_ptr), value :: handle
      type(c_ptr), value :: matA
      integer(c_int32_t), value :: alg
      type(spblkAnalysisParams), intent(in) :: params
    end function spblkAnalyze
    ! Reads the statistics of the descriptor's analysis; `info->structSize` must be set.
    function spblkAnalysisGetInfo(matA, info) bind(C, name="spblkAnalysisGetInfo")
      import
      integer(c_int32_t) :: spblkAnalysisGetInfo
      type(c_ptr), value :: matA
      type(spblkAnalysisInfo), intent(inout) :: info
    end function spblkAnalysisGetInfo
    ! Writes the analysis' row permutation: `perm[k]` is the original (zero-based) row placed at
    ! position k. `perm` must hold `rows` int64 values in host memory.
    function spblkAnalysisGetPermutation(matA, perm) bind(C, name="spblkAnalysisGetPermutation")
      import
      integer(c_int32_t) :: spblkAnalysisGetPermutation
      type(c_ptr), value :: matA
      integer(c_int64_t), dimension(*), intent(inout) :: perm
    end function spblkAnalysisGetPermutation
    ! Makes a CSR descriptor a batch of `batchCount` matrices of the same shape and nnz: batch
    ! i's row offsets start `i * offsetsBatchStride` elements after batch 0's, its column
    ! indices and values `i * columnsValuesBatchStride`. A stride of 0 shares that array among
    ! all batches.
    function spblkCsrSetStridedBatch(spMatDescr, batchCount, offsetsBatchStride, &
        columnsValuesBatchStride) bind(C, name="spblkCsrSetStridedBatch")
      import
      integer(c_int32_t) :: spblkCsrSetStridedBatch
      type(c_ptr), value :: spMatDescr
      integer(c_int), value :: batchCount
      integer(c_int64_t), value :: offsetsBatchStride
      integer(c_int64_t), value :: columnsValuesBatchStride
    end function spblkCsrSetStridedBatch
    ! Makes a COO descriptor a batch: batch i's row indices, column indices and values start `i
    ! * batchStride` elements after batch 0's (0: shared).
    function spblkCooSetStridedBatch(spMatDescr, batchCount, batchStride) bind(C, &
        name="spblkCooSetStridedBatch")
      import
      integer(c_int32_t) :: spblkCooSetStridedBatch
      type(c_ptr), value :: spMatDescr
      integer(c_int), value :: batchCount
      integer(c_int64_t), value :: batchStride
    end function spblkCooSetStridedBatch
    ! Makes a BSR descriptor a batch: batch i's block-row offsets start `i * offsetsBatchStride`
    ! elements after batch 0's, its block columns `i * columnsBatchStride`, its values `i *
    ! ValuesBatchStride` (0: shared).
    function spblkBsrSetStridedBatch(spMatDescr, batchCount, offsetsBatchStride, &
        columnsBatchStride, ValuesBatchStride) bind(C, name="spblkBsrSetStridedBatch")
      import
      integer(c_int32_t) :: spblkBsrSetStridedBatch
      type(c_ptr), value :: spMatDescr
      integer(c_int), value :: batchCount
      integer(c_int64_t), value :: offsetsBatchStride
      integer(c_int64_t), value :: columnsBatchStride
      integer(c_int64_t), value :: ValuesBatchStride
    end function spblkBsrSetStridedBatch
    ! The number of batches of a sparse matrix (1 unless set).
    function spblkSpMatGetStridedBatch(spMatDescr, batchCount) bind(C, &
        name="spblkSpMatGetStridedBatch")
      import
      integer(c_int32_t) :: spblkSpMatGetStridedBatch
      type(c_ptr), value :: spMatDescr
      integer(c_int), intent(out) :: batchCount
    end function spblkSpMatGetStridedBatch
    ! Makes a dense matrix a batch: batch i starts `i * batchStride` elements after batch 0; the
    ! stride is 0 (shared) or at least `ld * cols` (column-major) or `ld * rows` (row-major).
    function spblkDnMatSetStridedBatch(dnMatDescr, batchCount, batchStride) bind(C, &
        name="spblkDnMatSetStridedBatch")
      import
      integer(c_int32_t) :: spblkDnMatSetStridedBatch
      type(c_ptr), value :: dnMatDescr
      integer(c_int), value :: batchCount
      integer(c_int64_t), value :: batchStride
    end function spblkDnMatSetStridedBatch
    ! The number of batches and the stride of a dense matrix (1 and 0 unless set).
    function spblkDnMatGetStridedBatch(dnMatDescr, batchCount, batchStride) bind(C, &
        name="spblkDnMatGetStridedBatch")
      import
      integer(c_int32_t) :: spblkDnMatGetStridedBatch
      type(c_ptr), value :: dnMatDescr
      integer(c_int), intent(out) :: batchCount
      integer(c_int64_t), intent(out) :: batchStride
    end function spblkDnMatGetStridedBatch
    ! `y = alpha A x + beta y`, A in BSR with 32-bit indices (single precision).
    function spblkSbsrmv(handle, dirA, transA, mb, nb, nnzb, alpha, descrA, bsrSortedValA, &
        bsrSortedRowPtrA, bsrSortedColIndA, blockDim, x, beta, y) bind(C, name="spblkSbsrmv")
      import
      integer(c_int32_t) :: spblkSbsrmv
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: dirA
      integer(c_int32_t), value :: transA
      integer(c_int32_t), value :: mb
      integer(c_int32_t), value :: nb
      integer(c_int32_t), value :: nnzb
      real(c_float), intent(out) :: alpha
      type(c_ptr), value :: descrA
      real(c_float), intent(out) :: bsrSortedValA
      type(c_ptr), value :: bsrSortedRowPtrA
      type(c_ptr), value :: bsrSortedColIndA
      integer(c_int32_t), value :: blockDim
      real(c_float), intent(out) :: x
      real(c_float), intent(out) :: beta
      real(c_float), intent(out) :: y
    end function spblkSbsrmv
    ! `y = alpha A x + beta y` in double precision (as `spblkSbsrmv`).
    function spblkDbsrmv(handle, dirA, transA, mb, nb, nnzb, alpha, descrA, bsrSortedValA, &
        bsrSortedRowPtrA, bsrSortedColIndA, blockDim, x, beta, y) bind(C, name="spblkDbsrmv")
      import
      integer(c_int32_t) :: spblkDbsrmv
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: dirA
      integer(c_int32_t), value :: transA
      integer(c_int32_t), value :: mb
      integer(c_int32_t), value :: nb
      integer(c_int32_t), value :: nnzb
      real(c_double), intent(out) :: alpha
      type(c_ptr), value :: descrA
      real(c_double), intent(out) :: bsrSortedValA
      type(c_ptr), value :: bsrSortedRowPtrA
      type(c_ptr), value :: bsrSortedColIndA
      integer(c_int32_t), value :: blockDim
      real(c_double), intent(out) :: x
      real(c_double), intent(out) :: beta
      real(c_double), intent(out) :: y
    end function spblkDbsrmv
    ! `C = alpha A op(B) + beta C`, A in BSR (mb x kb blocks), op(B) (kb blockSize) x n and C
    ! (mb blockSize) x n column-major with leading dimensions ldb and ldc (single precision).
    function spblkSbsrmm(handle, dirA, transA, transB, mb, n, kb, nnzb, alpha, descrA, &
        bsrSortedValA, bsrSortedRowPtrA, bsrSortedColIndA, blockSize, B, ldb, beta, C, ldc) bind(C, &
        name="spblkSbsrmm")
      import
      integer(c_int32_t) :: spblkSbsrmm
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: dirA
      integer(c_int32_t), value :: transA
      integer(c_int32_t), value :: transB
      integer(c_int32_t), value :: mb
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: kb
      integer(c_int32_t), value :: nnzb
      real(c_float), intent(out) :: alpha
      type(c_ptr), value :: descrA
      real(c_float), intent(out) :: bsrSortedValA
      type(c_ptr), value :: bsrSortedRowPtrA
      type(c_ptr), value :: bsrSortedColIndA
      integer(c_int32_t), value :: blockSize
      real(c_float), intent(out) :: B
      integer(c_int32_t), value :: ldb
      real(c_float), intent(out) :: beta
      real(c_float), intent(out) :: C
      integer(c_int32_t), value :: ldc
    end function spblkSbsrmm
    ! `C = alpha A op(B) + beta C` in double precision (as `spblkSbsrmm`).
    function spblkDbsrmm(handle, dirA, transA, transB, mb, n, kb, nnzb, alpha, descrA, &
        bsrSortedValA, bsrSortedRowPtrA, bsrSortedColIndA, blockSize, B, ldb, beta, C, ldc) bind(C, &
        name="spblkDbsrmm")
      import
      integer(c_int32_t) :: spblkDbsrmm
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: dirA
      integer(c_int32_t), value :: transA
      integer(c_int32_t), value :: transB
      integer(c_int32_t), value :: mb
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: kb
      integer(c_int32_t), value :: nnzb
      real(c_double), intent(out) :: alpha
      type(c_ptr), value :: descrA
      real(c_double), intent(out) :: bsrSortedValA
      type(c_ptr), value :: bsrSortedRowPtrA
      type(c_ptr), value :: bsrSortedColIndA
      integer(c_int32_t), value :: blockSize
      real(c_double), intent(out) :: B
      integer(c_int32_t), value :: ldb
      real(c_double), intent(out) :: beta
      real(c_double), intent(out) :: C
      integer(c_int32_t), value :: ldc
    end function spblkDbsrmm
    ! For the cuSPARSE compatibility library: reports that `function`, a cuSPARSE function name
    ! ("cusparse" followed by letters, digits and underscores, at most 128 bytes), is not
    ! implemented by spblk. Records "<function>: not implemented by spblk" as this thread's last
    ! error message, logs the call with `SPBLK_LOG`, writes the same line on stderr once per
    ! function and process (cuSPARSE programs' error macros print only the status, whose text is
    ! generic), and returns SPBLK_STATUS_NOT_SUPPORTED. SPBLK_STATUS_INVALID_VALUE if `function`
    ! is NULL or not such a name.
    function spblkCompatNotSupported(function) bind(C, name="spblkCompatNotSupported")
      import
      integer(c_int32_t) :: spblkCompatNotSupported
      character(kind=c_char), dimension(*), intent(in) :: function
    end function spblkCompatNotSupported
    ! Workspace size for `spblkCsr2cscEx2` (at least 1 byte).
    function spblkCsr2cscEx2_bufferSize(handle, m, n, nnz, csrVal, csrRowPtr, csrColInd, cscVal, &
        cscColPtr, cscRowInd, valType, copyValues, idxBase, alg, bufferSize) bind(C, &
        name="spblkCsr2cscEx2_bufferSize")
      import
      integer(c_int32_t) :: spblkCsr2cscEx2_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: csrVal
      type(c_ptr), value :: csrRowPtr
      type(c_ptr), value :: csrColInd
      type(c_ptr), value :: cscVal
      type(c_ptr), value :: cscColPtr
      type(c_ptr), value :: cscRowInd
      integer(c_int32_t), value :: valType
      integer(c_int32_t), value :: copyValues
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: alg
      integer(c_size_t), intent(inout) :: bufferSize
    end function spblkCsr2cscEx2_bufferSize
    ! CSR (m × n, 32-bit indices) to CSC; row indices come out sorted within each column. With
    ! `SPBLK_ACTION_SYMBOLIC` the values are not touched.
    function spblkCsr2cscEx2(handle, m, n, nnz, csrVal, csrRowPtr, csrColInd, cscVal, cscColPtr, &
        cscRowInd, valType, copyValues, idxBase, alg, buffer) bind(C, name="spblkCsr2cscEx2")
      import
      integer(c_int32_t) :: spblkCsr2cscEx2
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: csrVal
      type(c_ptr), value :: csrRowPtr
      type(c_ptr), value :: csrColInd
      type(c_ptr), value :: cscVal
      type(c_ptr), value :: cscColPtr
      type(c_ptr), value :: cscRowInd
      integer(c_int32_t), value :: valType
      integer(c_int32_t), value :: copyValues
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: buffer
    end function spblkCsr2cscEx2
    ! Creates a dense matrix descriptor; `ld` is at least rows (column-major) or cols (row-
    ! major).
    function spblkCreateDnMat(dnMatDescr, rows, cols, ld, values, valueType, order) bind(C, &
        name="spblkCreateDnMat")
      import
      integer(c_int32_t) :: spblkCreateDnMat
      type(c_ptr), intent(out) :: dnMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: ld
      type(c_ptr), value :: values
      integer(c_int32_t), value :: valueType
      integer(c_int32_t), value :: order
    end function spblkCreateDnMat
    ! Destroys a dense matrix descriptor; NULL is a no-op.
    function spblkDestroyDnMat(dnMatDescr) bind(C, name="spblkDestroyDnMat")
      import
      integer(c_int32_t) :: spblkDestroyDnMat
      type(c_ptr), value :: dnMatDescr
    end function spblkDestroyDnMat
    ! Reads everything a dense matrix descriptor holds.
    function spblkDnMatGet(dnMatDescr, rows, cols, ld, values, type_, order) bind(C, &
        name="spblkDnMatGet")
      import
      integer(c_int32_t) :: spblkDnMatGet
      type(c_ptr), value :: dnMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: ld
      type(c_ptr), intent(out) :: values
      integer(c_int32_t), intent(out) :: type_
      integer(c_int32_t), intent(out) :: order
    end function spblkDnMatGet
    ! `spblkDnMatGet` for a read-only descriptor.
    function spblkConstDnMatGet(dnMatDescr, rows, cols, ld, values, type_, order) bind(C, &
        name="spblkConstDnMatGet")
      import
      integer(c_int32_t) :: spblkConstDnMatGet
      type(c_ptr), value :: dnMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: ld
      type(c_ptr), intent(out) :: values
      integer(c_int32_t), intent(out) :: type_
      integer(c_int32_t), intent(out) :: order
    end function spblkConstDnMatGet
    ! Reads the values pointer of a dense matrix.
    function spblkDnMatGetValues(dnMatDescr, values) bind(C, name="spblkDnMatGetValues")
      import
      integer(c_int32_t) :: spblkDnMatGetValues
      type(c_ptr), value :: dnMatDescr
      type(c_ptr), intent(out) :: values
    end function spblkDnMatGetValues
    ! Replaces the values pointer of a dense matrix.
    function spblkDnMatSetValues(dnMatDescr, values) bind(C, name="spblkDnMatSetValues")
      import
      integer(c_int32_t) :: spblkDnMatSetValues
      type(c_ptr), value :: dnMatDescr
      type(c_ptr), value :: values
    end function spblkDnMatSetValues
    ! Creates a dense vector descriptor.
    function spblkCreateDnVec(dnVecDescr, size, values, valueType) bind(C, name="spblkCreateDnVec")
      import
      integer(c_int32_t) :: spblkCreateDnVec
      type(c_ptr), intent(out) :: dnVecDescr
      integer(c_int64_t), value :: size
      type(c_ptr), value :: values
      integer(c_int32_t), value :: valueType
    end function spblkCreateDnVec
    ! Destroys a dense vector descriptor; NULL is a no-op.
    function spblkDestroyDnVec(dnVecDescr) bind(C, name="spblkDestroyDnVec")
      import
      integer(c_int32_t) :: spblkDestroyDnVec
      type(c_ptr), value :: dnVecDescr
    end function spblkDestroyDnVec
    ! Reads everything a dense vector descriptor holds.
    function spblkDnVecGet(dnVecDescr, size, values, valueType) bind(C, name="spblkDnVecGet")
      import
      integer(c_int32_t) :: spblkDnVecGet
      type(c_ptr), value :: dnVecDescr
      integer(c_int64_t), intent(out) :: size
      type(c_ptr), intent(out) :: values
      integer(c_int32_t), intent(out) :: valueType
    end function spblkDnVecGet
    ! `spblkDnVecGet` for a read-only descriptor.
    function spblkConstDnVecGet(dnVecDescr, size, values, valueType) bind(C, &
        name="spblkConstDnVecGet")
      import
      integer(c_int32_t) :: spblkConstDnVecGet
      type(c_ptr), value :: dnVecDescr
      integer(c_int64_t), intent(out) :: size
      type(c_ptr), intent(out) :: values
      integer(c_int32_t), intent(out) :: valueType
    end function spblkConstDnVecGet
    ! Reads the values pointer of a dense vector.
    function spblkDnVecGetValues(dnVecDescr, values) bind(C, name="spblkDnVecGetValues")
      import
      integer(c_int32_t) :: spblkDnVecGetValues
      type(c_ptr), value :: dnVecDescr
      type(c_ptr), intent(out) :: values
    end function spblkDnVecGetValues
    ! Replaces the values pointer of a dense vector.
    function spblkDnVecSetValues(dnVecDescr, values) bind(C, name="spblkDnVecSetValues")
      import
      integer(c_int32_t) :: spblkDnVecSetValues
      type(c_ptr), value :: dnVecDescr
      type(c_ptr), value :: values
    end function spblkDnVecSetValues
    ! `spblkCreateDnMat` for read-only data.
    function spblkCreateConstDnMat(dnMatDescr, rows, cols, ld, values, valueType, order) bind(C, &
        name="spblkCreateConstDnMat")
      import
      integer(c_int32_t) :: spblkCreateConstDnMat
      type(c_ptr), intent(out) :: dnMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: ld
      type(c_ptr), value :: values
      integer(c_int32_t), value :: valueType
      integer(c_int32_t), value :: order
    end function spblkCreateConstDnMat
    ! `spblkCreateDnVec` for read-only data.
    function spblkCreateConstDnVec(dnVecDescr, size, values, valueType) bind(C, &
        name="spblkCreateConstDnVec")
      import
      integer(c_int32_t) :: spblkCreateConstDnVec
      type(c_ptr), intent(out) :: dnVecDescr
      integer(c_int64_t), value :: size
      type(c_ptr), value :: values
      integer(c_int32_t), value :: valueType
    end function spblkCreateConstDnVec
    ! Reads the values pointer of a read-only dense matrix.
    function spblkConstDnMatGetValues(dnMatDescr, values) bind(C, name="spblkConstDnMatGetValues")
      import
      integer(c_int32_t) :: spblkConstDnMatGetValues
      type(c_ptr), value :: dnMatDescr
      type(c_ptr), intent(out) :: values
    end function spblkConstDnMatGetValues
    ! Reads the values pointer of a read-only dense vector.
    function spblkConstDnVecGetValues(dnVecDescr, values) bind(C, name="spblkConstDnVecGetValues")
      import
      integer(c_int32_t) :: spblkConstDnVecGetValues
      type(c_ptr), value :: dnVecDescr
      type(c_ptr), intent(out) :: values
    end function spblkConstDnVecGetValues
    ! Workspace size in bytes for `spblkSparseToDense` (may be 0; then the buffer may be NULL).
    function spblkSparseToDense_bufferSize(handle, matA, matB, alg, bufferSize) bind(C, &
        name="spblkSparseToDense_bufferSize")
      import
      integer(c_int32_t) :: spblkSparseToDense_bufferSize
      type(c_ptr), value :: handle
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      integer(c_int32_t), value :: alg
      integer(c_size_t), intent(inout) :: bufferSize
    end function spblkSparseToDense_bufferSize
    ! B = A as a dense matrix: A's entries at their positions, zero elsewhere (every element of
    ! B is written; A's positions must be distinct).
    function spblkSparseToDense(handle, matA, matB, alg, externalBuffer) bind(C, &
        name="spblkSparseToDense")
      import
      integer(c_int32_t) :: spblkSparseToDense
      type(c_ptr), value :: handle
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: externalBuffer
    end function spblkSparseToDense
    ! Workspace size in bytes for `spblkDenseToSparse_analysis` and `_convert` (the same buffer
    ! serves both).
    function spblkDenseToSparse_bufferSize(handle, matA, matB, alg, bufferSize) bind(C, &
        name="spblkDenseToSparse_bufferSize")
      import
      integer(c_int32_t) :: spblkDenseToSparse_bufferSize
      type(c_ptr), value :: handle
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      integer(c_int32_t), value :: alg
      integer(c_size_t), intent(inout) :: bufferSize
    end function spblkDenseToSparse_bufferSize
    ! Counts A's nonzero elements (-0 counts as zero, NaN does not): sets B's nnz (read it with
    ! `spblkSpMatGetSize`) and, for CSR and CSC, writes B's offsets. Blocks until done.
    function spblkDenseToSparse_analysis(handle, matA, matB, alg, externalBuffer) bind(C, &
        name="spblkDenseToSparse_analysis")
      import
      integer(c_int32_t) :: spblkDenseToSparse_analysis
      type(c_ptr), value :: handle
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: externalBuffer
    end function spblkDenseToSparse_analysis
    ! Writes B's indices and values (row by row for CSR and COO, column by column for CSC, in
    ! index order), after `spblkDenseToSparse_analysis` and once B's arrays are set.
    function spblkDenseToSparse_convert(handle, matA, matB, alg, externalBuffer) bind(C, &
        name="spblkDenseToSparse_convert")
      import
      integer(c_int32_t) :: spblkDenseToSparse_convert
      type(c_ptr), value :: handle
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: externalBuffer
    end function spblkDenseToSparse_convert
    ! Creates an IC0 info object (cuSPARSE's `csric02Info_t`).
    function spblkCreateCsric02Info(info) bind(C, name="spblkCreateCsric02Info")
      import
      integer(c_int32_t) :: spblkCreateCsric02Info
      type(c_ptr), intent(out) :: info
    end function spblkCreateCsric02Info
    ! Destroys an IC0 info object (the analysis' buffer stays the caller's); NULL is a no-op.
    function spblkDestroyCsric02Info(info) bind(C, name="spblkDestroyCsric02Info")
      import
      integer(c_int32_t) :: spblkDestroyCsric02Info
      type(c_ptr), value :: info
    end function spblkDestroyCsric02Info
    ! Creates an ILU0 info object (cuSPARSE's `csrilu02Info_t`).
    function spblkCreateCsrilu02Info(info) bind(C, name="spblkCreateCsrilu02Info")
      import
      integer(c_int32_t) :: spblkCreateCsrilu02Info
      type(c_ptr), intent(out) :: info
    end function spblkCreateCsrilu02Info
    ! Destroys an ILU0 info object (the analysis' buffer stays the caller's); NULL is a no-op.
    function spblkDestroyCsrilu02Info(info) bind(C, name="spblkDestroyCsrilu02Info")
      import
      integer(c_int32_t) :: spblkDestroyCsrilu02Info
      type(c_ptr), value :: info
    end function spblkDestroyCsrilu02Info
    ! Size in bytes of the buffer `spblkScsric02_analysis` keeps its analysis in (values
    ! unread).
    function spblkScsric02_bufferSize(handle, m, nnz, descrA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, info, pBufferSizeInBytes) bind(C, name="spblkScsric02_bufferSize")
      import
      integer(c_int32_t) :: spblkScsric02_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_float), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      type(c_ptr), value :: pBufferSizeInBytes
    end function spblkScsric02_bufferSize
    ! Size in bytes of the buffer `spblkDcsric02_analysis` keeps its analysis in (values
    ! unread).
    function spblkDcsric02_bufferSize(handle, m, nnz, descrA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, info, pBufferSizeInBytes) bind(C, name="spblkDcsric02_bufferSize")
      import
      integer(c_int32_t) :: spblkDcsric02_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_double), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      type(c_ptr), value :: pBufferSizeInBytes
    end function spblkDcsric02_bufferSize
    ! Analyses A's pattern for `spblkScsric02` into `pBuffer` (which must live until the last
    ! factorization): afterwards `spblkXcsric02_zeroPivot` knows the first row without a
    ! diagonal entry. On the host backend a row whose columns do not ascend is `INVALID_VALUE`.
    function spblkScsric02_analysis(handle, m, nnz, descrA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, info, policy, pBuffer) bind(C, name="spblkScsric02_analysis")
      import
      integer(c_int32_t) :: spblkScsric02_analysis
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_float), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      integer(c_int32_t), value :: policy
      type(c_ptr), value :: pBuffer
    end function spblkScsric02_analysis
    ! As `spblkScsric02_analysis`, for `spblkDcsric02`.
    function spblkDcsric02_analysis(handle, m, nnz, descrA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, info, policy, pBuffer) bind(C, name="spblkDcsric02_analysis")
      import
      integer(c_int32_t) :: spblkDcsric02_analysis
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_double), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      integer(c_int32_t), value :: policy
      type(c_ptr), value :: pBuffer
    end function spblkDcsric02_analysis
    ! The incomplete Cholesky factor L of A (A ≈ L Lᵀ, L in A's lower pattern), written over A's
    ! lower triangle (entries above the diagonal untouched); deterministic. A missing diagonal
    ! entry reads as one; a pivot a(i, i) - Σ l(i, j)² <= 0 stores the square root of its
    ! magnitude and is reported by `spblkXcsric02_zeroPivot`. Both policies give the same
    ! factor.
    function spblkScsric02(handle, m, nnz, descrA, csrSortedValA_valM, csrSortedRowPtrA, &
        csrSortedColIndA, info, policy, pBuffer) bind(C, name="spblkScsric02")
      import
      integer(c_int32_t) :: spblkScsric02
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_float), intent(out) :: csrSortedValA_valM
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      integer(c_int32_t), value :: policy
      type(c_ptr), value :: pBuffer
    end function spblkScsric02
    ! As `spblkScsric02`, in double precision.
    function spblkDcsric02(handle, m, nnz, descrA, csrSortedValA_valM, csrSortedRowPtrA, &
        csrSortedColIndA, info, policy, pBuffer) bind(C, name="spblkDcsric02")
      import
      integer(c_int32_t) :: spblkDcsric02
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_double), intent(out) :: csrSortedValA_valM
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      integer(c_int32_t), value :: policy
      type(c_ptr), value :: pBuffer
    end function spblkDcsric02
    ! Blocks until the last analysis or factorization with `info` is done, then writes to
    ! `position` (host or device memory per the pointer mode) the first row (with the matrix's
    ! base) whose pivot is missing or zero and returns `SPBLK_STATUS_ZERO_PIVOT`, or writes -1
    ! and returns success.
    function spblkXcsric02_zeroPivot(handle, info, position) bind(C, name="spblkXcsric02_zeroPivot")
      import
      integer(c_int32_t) :: spblkXcsric02_zeroPivot
      type(c_ptr), value :: handle
      type(c_ptr), value :: info
      type(c_ptr), value :: position
    end function spblkXcsric02_zeroPivot
    ! Size in bytes of the buffer `spblkScsrilu02_analysis` keeps its analysis in (values
    ! unread).
    function spblkScsrilu02_bufferSize(handle, m, nnz, descrA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, info, pBufferSizeInBytes) bind(C, name="spblkScsrilu02_bufferSize")
      import
      integer(c_int32_t) :: spblkScsrilu02_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_float), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      type(c_ptr), value :: pBufferSizeInBytes
    end function spblkScsrilu02_bufferSize
    ! Size in bytes of the buffer `spblkDcsrilu02_analysis` keeps its analysis in (values
    ! unread).
    function spblkDcsrilu02_bufferSize(handle, m, nnz, descrA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, info, pBufferSizeInBytes) bind(C, name="spblkDcsrilu02_bufferSize")
      import
      integer(c_int32_t) :: spblkDcsrilu02_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_double), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      type(c_ptr), value :: pBufferSizeInBytes
    end function spblkDcsrilu02_bufferSize
    ! Analyses A's pattern for `spblkScsrilu02` into `pBuffer` (which must live until the last
    ! factorization): afterwards `spblkXcsrilu02_zeroPivot` knows the first row without a
    ! diagonal entry. On the host backend a row whose columns do not ascend is `INVALID_VALUE`.
    function spblkScsrilu02_analysis(handle, m, nnz, descrA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, info, policy, pBuffer) bind(C, name="spblkScsrilu02_analysis")
      import
      integer(c_int32_t) :: spblkScsrilu02_analysis
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_float), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      integer(c_int32_t), value :: policy
      type(c_ptr), value :: pBuffer
    end function spblkScsrilu02_analysis
    ! As `spblkScsrilu02_analysis`, for `spblkDcsrilu02`.
    function spblkDcsrilu02_analysis(handle, m, nnz, descrA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, info, policy, pBuffer) bind(C, name="spblkDcsrilu02_analysis")
      import
      integer(c_int32_t) :: spblkDcsrilu02_analysis
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_double), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      integer(c_int32_t), value :: policy
      type(c_ptr), value :: pBuffer
    end function spblkDcsrilu02_analysis
    ! The incomplete LU factors of A in A's pattern, written over A: L's entries below the
    ! diagonal (its unit diagonal not stored), U's on and above it; deterministic. A missing
    ! diagonal entry reads as one; a zero pivot is reported by `spblkXcsrilu02_zeroPivot` (or
    ! replaced, see `spblkScsrilu02_numericBoost`). Both policies give the same factors.
    function spblkScsrilu02(handle, m, nnz, descrA, csrSortedValA_valM, csrSortedRowPtrA, &
        csrSortedColIndA, info, policy, pBuffer) bind(C, name="spblkScsrilu02")
      import
      integer(c_int32_t) :: spblkScsrilu02
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_float), intent(out) :: csrSortedValA_valM
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      integer(c_int32_t), value :: policy
      type(c_ptr), value :: pBuffer
    end function spblkScsrilu02
    ! As `spblkScsrilu02`, in double precision.
    function spblkDcsrilu02(handle, m, nnz, descrA, csrSortedValA_valM, csrSortedRowPtrA, &
        csrSortedColIndA, info, policy, pBuffer) bind(C, name="spblkDcsrilu02")
      import
      integer(c_int32_t) :: spblkDcsrilu02
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      real(c_double), intent(out) :: csrSortedValA_valM
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: info
      integer(c_int32_t), value :: policy
      type(c_ptr), value :: pBuffer
    end function spblkDcsrilu02
    ! As `spblkXcsric02_zeroPivot`, for ILU0 (a boosted pivot is not reported).
    function spblkXcsrilu02_zeroPivot(handle, info, position) bind(C, &
        name="spblkXcsrilu02_zeroPivot")
      import
      integer(c_int32_t) :: spblkXcsrilu02_zeroPivot
      type(c_ptr), value :: handle
      type(c_ptr), value :: info
      type(c_ptr), value :: position
    end function spblkXcsrilu02_zeroPivot
    ! With `enable_boost` non-zero, later `spblkScsrilu02` calls with `info` replace a pivot of
    ! magnitude at most `*tol` by `*boost_val` (both read during this call, from host or device
    ! memory per the pointer mode); with zero they stop (the pointers are then not read).
    function spblkScsrilu02_numericBoost(handle, info, enable_boost, tol, boost_val) bind(C, &
        name="spblkScsrilu02_numericBoost")
      import
      integer(c_int32_t) :: spblkScsrilu02_numericBoost
      type(c_ptr), value :: handle
      type(c_ptr), value :: info
      integer(c_int32_t), value :: enable_boost
      real(c_double), intent(out) :: tol
      real(c_float), intent(out) :: boost_val
    end function spblkScsrilu02_numericBoost
    ! As `spblkScsrilu02_numericBoost`, for `spblkDcsrilu02`.
    function spblkDcsrilu02_numericBoost(handle, info, enable_boost, tol, boost_val) bind(C, &
        name="spblkDcsrilu02_numericBoost")
      import
      integer(c_int32_t) :: spblkDcsrilu02_numericBoost
      type(c_ptr), value :: handle
      type(c_ptr), value :: info
      integer(c_int32_t), value :: enable_boost
      real(c_double), intent(out) :: tol
      real(c_double), intent(out) :: boost_val
    end function spblkDcsrilu02_numericBoost
    ! Workspace of `spblkXcsrgeam2Nnz` and `spblkScsrgeam2` in bytes. C's columns and values are
    ! not read (they are allocated after the count).
    function spblkScsrgeam2_bufferSizeExt(handle, m, n, alpha, descrA, nnzA, csrSortedValA, &
        csrSortedRowPtrA, csrSortedColIndA, beta, descrB, nnzB, csrSortedValB, csrSortedRowPtrB, &
        csrSortedColIndB, descrC, csrSortedValC, csrSortedRowPtrC, csrSortedColIndC, &
        pBufferSizeInBytes) bind(C, name="spblkScsrgeam2_bufferSizeExt")
      import
      integer(c_int32_t) :: spblkScsrgeam2_bufferSizeExt
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      real(c_float), intent(out) :: alpha
      type(c_ptr), value :: descrA
      integer(c_int32_t), value :: nnzA
      real(c_float), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      real(c_float), intent(out) :: beta
      type(c_ptr), value :: descrB
      integer(c_int32_t), value :: nnzB
      real(c_float), intent(out) :: csrSortedValB
      type(c_ptr), value :: csrSortedRowPtrB
      type(c_ptr), value :: csrSortedColIndB
      type(c_ptr), value :: descrC
      real(c_float), intent(out) :: csrSortedValC
      type(c_ptr), value :: csrSortedRowPtrC
      type(c_ptr), value :: csrSortedColIndC
      integer(c_size_t), intent(inout) :: pBufferSizeInBytes
    end function spblkScsrgeam2_bufferSizeExt
    ! Workspace of `spblkXcsrgeam2Nnz` and `spblkDcsrgeam2` in bytes (as the single-precision
    ! one).
    function spblkDcsrgeam2_bufferSizeExt(handle, m, n, alpha, descrA, nnzA, csrSortedValA, &
        csrSortedRowPtrA, csrSortedColIndA, beta, descrB, nnzB, csrSortedValB, csrSortedRowPtrB, &
        csrSortedColIndB, descrC, csrSortedValC, csrSortedRowPtrC, csrSortedColIndC, &
        pBufferSizeInBytes) bind(C, name="spblkDcsrgeam2_bufferSizeExt")
      import
      integer(c_int32_t) :: spblkDcsrgeam2_bufferSizeExt
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      real(c_double), intent(out) :: alpha
      type(c_ptr), value :: descrA
      integer(c_int32_t), value :: nnzA
      real(c_double), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      real(c_double), intent(out) :: beta
      type(c_ptr), value :: descrB
      integer(c_int32_t), value :: nnzB
      real(c_double), intent(out) :: csrSortedValB
      type(c_ptr), value :: csrSortedRowPtrB
      type(c_ptr), value :: csrSortedColIndB
      type(c_ptr), value :: descrC
      real(c_double), intent(out) :: csrSortedValC
      type(c_ptr), value :: csrSortedRowPtrC
      type(c_ptr), value :: csrSortedColIndC
      integer(c_size_t), intent(inout) :: pBufferSizeInBytes
    end function spblkDcsrgeam2_bufferSizeExt
    ! C's m + 1 row offsets (counted from descrC's base) for `C = alpha A + beta B`, and, unless
    ! `nnzTotalDevHostPtr` is NULL, nnz(C) there (host memory in pointer mode host, where the
    ! call blocks; device memory in pointer mode device).
    function spblkXcsrgeam2Nnz(handle, m, n, descrA, nnzA, csrSortedRowPtrA, csrSortedColIndA, &
        descrB, nnzB, csrSortedRowPtrB, csrSortedColIndB, descrC, csrSortedRowPtrC, &
        nnzTotalDevHostPtr, workspace) bind(C, name="spblkXcsrgeam2Nnz")
      import
      integer(c_int32_t) :: spblkXcsrgeam2Nnz
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      type(c_ptr), value :: descrA
      integer(c_int32_t), value :: nnzA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      type(c_ptr), value :: descrB
      integer(c_int32_t), value :: nnzB
      type(c_ptr), value :: csrSortedRowPtrB
      type(c_ptr), value :: csrSortedColIndB
      type(c_ptr), value :: descrC
      type(c_ptr), value :: csrSortedRowPtrC
      type(c_ptr), value :: nnzTotalDevHostPtr
      type(c_ptr), value :: workspace
    end function spblkXcsrgeam2Nnz
    ! `C = alpha A + beta B` into the rows C's offsets describe (from `spblkXcsrgeam2Nnz`, or
    ! known to the caller): C's columns ascending, a column repeated within a row of A or B
    ! summed into one entry. alpha and beta in host or device memory per the pointer mode.
    function spblkScsrgeam2(handle, m, n, alpha, descrA, nnzA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, beta, descrB, nnzB, csrSortedValB, csrSortedRowPtrB, csrSortedColIndB, &
        descrC, csrSortedValC, csrSortedRowPtrC, csrSortedColIndC, pBuffer) bind(C, &
        name="spblkScsrgeam2")
      import
      integer(c_int32_t) :: spblkScsrgeam2
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      real(c_float), intent(out) :: alpha
      type(c_ptr), value :: descrA
      integer(c_int32_t), value :: nnzA
      real(c_float), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      real(c_float), intent(out) :: beta
      type(c_ptr), value :: descrB
      integer(c_int32_t), value :: nnzB
      real(c_float), intent(out) :: csrSortedValB
      type(c_ptr), value :: csrSortedRowPtrB
      type(c_ptr), value :: csrSortedColIndB
      type(c_ptr), value :: descrC
      real(c_float), intent(out) :: csrSortedValC
      type(c_ptr), value :: csrSortedRowPtrC
      type(c_ptr), value :: csrSortedColIndC
      type(c_ptr), value :: pBuffer
    end function spblkScsrgeam2
    ! `C = alpha A + beta B` in double precision (as `spblkScsrgeam2`).
    function spblkDcsrgeam2(handle, m, n, alpha, descrA, nnzA, csrSortedValA, csrSortedRowPtrA, &
        csrSortedColIndA, beta, descrB, nnzB, csrSortedValB, csrSortedRowPtrB, csrSortedColIndB, &
        descrC, csrSortedValC, csrSortedRowPtrC, csrSortedColIndC, pBuffer) bind(C, &
        name="spblkDcsrgeam2")
      import
      integer(c_int32_t) :: spblkDcsrgeam2
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      real(c_double), intent(out) :: alpha
      type(c_ptr), value :: descrA
      integer(c_int32_t), value :: nnzA
      real(c_double), intent(out) :: csrSortedValA
      type(c_ptr), value :: csrSortedRowPtrA
      type(c_ptr), value :: csrSortedColIndA
      real(c_double), intent(out) :: beta
      type(c_ptr), value :: descrB
      integer(c_int32_t), value :: nnzB
      real(c_double), intent(out) :: csrSortedValB
      type(c_ptr), value :: csrSortedRowPtrB
      type(c_ptr), value :: csrSortedColIndB
      type(c_ptr), value :: descrC
      real(c_double), intent(out) :: csrSortedValC
      type(c_ptr), value :: csrSortedRowPtrC
      type(c_ptr), value :: csrSortedColIndC
      type(c_ptr), value :: pBuffer
    end function spblkDcsrgeam2
    ! Creates a handle on the CUDA backend, or on the host backend when the environment variable
    ! `SPBLK_BACKEND=host`. Never falls back silently: without a usable GPU the CUDA backend
    ! fails and `spblkGetLastErrorMessage` says why.
    function spblkCreate(handle) bind(C, name="spblkCreate")
      import
      integer(c_int32_t) :: spblkCreate
      type(c_ptr), intent(out) :: handle
    end function spblkCreate
    ! Creates a handle on an explicitly chosen backend (`SPBLK_BACKEND_CUDA` or
    ! `SPBLK_BACKEND_HOST`).
    function spblkCreateWithBackend(handle, backend) bind(C, name="spblkCreateWithBackend")
      import
      integer(c_int32_t) :: spblkCreateWithBackend
      type(c_ptr), intent(out) :: handle
      integer(c_int32_t), value :: backend
    end function spblkCreateWithBackend
    ! Destroys a handle. Work already queued on its stream is not waited for (descriptors and
    ! buffers belong to the caller).
    function spblkDestroy(handle) bind(C, name="spblkDestroy")
      import
      integer(c_int32_t) :: spblkDestroy
      type(c_ptr), value :: handle
    end function spblkDestroy
    ! Reports which backend a handle runs on.
    function spblkGetBackend(handle, backend) bind(C, name="spblkGetBackend")
      import
      integer(c_int32_t) :: spblkGetBackend
      type(c_ptr), value :: handle
      integer(c_int32_t), intent(out) :: backend
    end function spblkGetBackend
    ! Sets the stream the handle's work is queued on (NULL = legacy default stream).
    function spblkSetStream(handle, streamId) bind(C, name="spblkSetStream")
      import
      integer(c_int32_t) :: spblkSetStream
      type(c_ptr), value :: handle
      type(c_ptr), value :: streamId
    end function spblkSetStream
    ! Reads the handle's stream.
    function spblkGetStream(handle, streamId) bind(C, name="spblkGetStream")
      import
      integer(c_int32_t) :: spblkGetStream
      type(c_ptr), value :: handle
      type(c_ptr), intent(out) :: streamId
    end function spblkGetStream
    ! Library version as MAJOR*1000 + MINOR*100 + PATCH (cuSPARSE's encoding).
    function spblkGetVersion(handle, version) bind(C, name="spblkGetVersion")
      import
      integer(c_int32_t) :: spblkGetVersion
      type(c_ptr), value :: handle
      integer(c_int), intent(out) :: version
    end function spblkGetVersion
    ! One part of the version: `SPBLK_MAJOR_VERSION`, `SPBLK_MINOR_VERSION` or
    ! `SPBLK_PATCH_LEVEL`.
    function spblkGetProperty(type_, value) bind(C, name="spblkGetProperty")
      import
      integer(c_int32_t) :: spblkGetProperty
      integer(c_int32_t), value :: type_
      integer(c_int), intent(out) :: value
    end function spblkGetProperty
    ! The status's constant name, e.g. "SPBLK_STATUS_INVALID_VALUE" (static; never NULL).
    function spblkGetErrorName(status) bind(C, name="spblkGetErrorName")
      import
      type(c_ptr) :: spblkGetErrorName
      integer(c_int32_t), value :: status
    end function spblkGetErrorName
    ! A one-sentence description of the status (static; never NULL). For the reason a call
    ! failed, see `spblkGetLastErrorMessage`.
    function spblkGetErrorString(status) bind(C, name="spblkGetErrorString")
      import
      type(c_ptr) :: spblkGetErrorString
      integer(c_int32_t), value :: status
    end function spblkGetErrorString
    ! Copies this thread's last failure message ("function: argument 'x' violated condition")
    ! into `buf` (at most `len` bytes including the terminating NUL, truncated if needed) and
    ! stores in `*written` the number of bytes written, without the NUL. With `buf` NULL and
    ! `len` 0 it stores the full length. Failures of this call do not replace the message.
    function spblkGetLastErrorMessage(buf, len, written) bind(C, name="spblkGetLastErrorMessage")
      import
      integer(c_int32_t) :: spblkGetLastErrorMessage
      character(kind=c_char), dimension(*), intent(out) :: buf
      integer(c_size_t), value :: len
      integer(c_size_t), intent(inout) :: written
    end function spblkGetLastErrorMessage
    ! Sets whether alpha and beta are read from host memory or the handle's memory.
    function spblkSetPointerMode(handle, mode) bind(C, name="spblkSetPointerMode")
      import
      integer(c_int32_t) :: spblkSetPointerMode
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: mode
    end function spblkSetPointerMode
    ! Reads the pointer mode.
    function spblkGetPointerMode(handle, mode) bind(C, name="spblkGetPointerMode")
      import
      integer(c_int32_t) :: spblkGetPointerMode
      type(c_ptr), value :: handle
      integer(c_int32_t), intent(out) :: mode
    end function spblkGetPointerMode
    ! `p[i] = i` for `0 <= i < n` (the starting permutation of the sort helpers).
    function spblkCreateIdentityPermutation(handle, n, p) bind(C, &
        name="spblkCreateIdentityPermutation")
      import
      integer(c_int32_t) :: spblkCreateIdentityPermutation
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: n
      type(c_ptr), value :: p
    end function spblkCreateIdentityPermutation
    ! CSR row offsets (m + 1 of them, counted from `idxBase`) expanded into the row index of
    ! each of the nnz entries (also counted from `idxBase`).
    function spblkXcsr2coo(handle, csrSortedRowPtr, nnz, m, cooRowInd, idxBase) bind(C, &
        name="spblkXcsr2coo")
      import
      integer(c_int32_t) :: spblkXcsr2coo
      type(c_ptr), value :: handle
      type(c_ptr), value :: csrSortedRowPtr
      integer(c_int32_t), value :: nnz
      integer(c_int32_t), value :: m
      type(c_ptr), value :: cooRowInd
      integer(c_int32_t), value :: idxBase
    end function spblkXcsr2coo
    ! Row indices sorted ascending (counted from `idxBase`) compressed into the m + 1 CSR row
    ! offsets (counted from `idxBase`).
    function spblkXcoo2csr(handle, cooRowInd, nnz, m, csrSortedRowPtr, idxBase) bind(C, &
        name="spblkXcoo2csr")
      import
      integer(c_int32_t) :: spblkXcoo2csr
      type(c_ptr), value :: handle
      type(c_ptr), value :: cooRowInd
      integer(c_int32_t), value :: nnz
      integer(c_int32_t), value :: m
      type(c_ptr), value :: csrSortedRowPtr
      integer(c_int32_t), value :: idxBase
    end function spblkXcoo2csr
    ! Sends the log lines to `callback` (category, function, message); NULL goes back to stderr.
    function spblkLoggerSetCallback(callback) bind(C, name="spblkLoggerSetCallback")
      import
      integer(c_int32_t) :: spblkLoggerSetCallback
      type(c_funptr), value :: callback
    end function spblkLoggerSetCallback
    ! Writes the log lines to an open C stream, which must stay open while it is the sink.
    function spblkLoggerSetFile(file) bind(C, name="spblkLoggerSetFile")
      import
      integer(c_int32_t) :: spblkLoggerSetFile
      type(c_ptr), value :: file
    end function spblkLoggerSetFile
    ! Appends the log lines to the file at `logFile` (created if needed).
    function spblkLoggerOpenFile(logFile) bind(C, name="spblkLoggerOpenFile")
      import
      integer(c_int32_t) :: spblkLoggerOpenFile
      character(kind=c_char), dimension(*), intent(in) :: logFile
    end function spblkLoggerOpenFile
    ! Turns on categories 1 to `level` (0: off; 1 error, 2 trace, 3 hints, 4 info, 5 API trace).
    function spblkLoggerSetLevel(level) bind(C, name="spblkLoggerSetLevel")
      import
      integer(c_int32_t) :: spblkLoggerSetLevel
      integer(c_int), value :: level
    end function spblkLoggerSetLevel
    ! Turns on the categories whose bits are set (bit 0 error ... bit 4 API trace).
    function spblkLoggerSetMask(mask) bind(C, name="spblkLoggerSetMask")
      import
      integer(c_int32_t) :: spblkLoggerSetMask
      integer(c_int), value :: mask
    end function spblkLoggerSetMask
    ! Turns the logger off for the rest of the process.
    function spblkLoggerForceDisable() bind(C, name="spblkLoggerForceDisable")
      import
      integer(c_int32_t) :: spblkLoggerForceDisable
    end function spblkLoggerForceDisable
    ! Creates a legacy matrix descriptor: general, zero-based, fill mode LOWER, diagonal
    ! NON_UNIT.
    function spblkCreateMatDescr(descrA) bind(C, name="spblkCreateMatDescr")
      import
      integer(c_int32_t) :: spblkCreateMatDescr
      type(c_ptr), intent(out) :: descrA
    end function spblkCreateMatDescr
    ! Destroys a legacy matrix descriptor; NULL is a no-op.
    function spblkDestroyMatDescr(descrA) bind(C, name="spblkDestroyMatDescr")
      import
      integer(c_int32_t) :: spblkDestroyMatDescr
      type(c_ptr), value :: descrA
    end function spblkDestroyMatDescr
    ! Sets the matrix type.
    function spblkSetMatType(descrA, type_) bind(C, name="spblkSetMatType")
      import
      integer(c_int32_t) :: spblkSetMatType
      type(c_ptr), value :: descrA
      integer(c_int32_t), value :: type_
    end function spblkSetMatType
    ! The matrix type, or `SPBLK_MAT_DESCR_INVALID` (with a message) for a NULL or dead
    ! descriptor.
    function spblkGetMatType(descrA) bind(C, name="spblkGetMatType")
      import
      integer(c_int32_t) :: spblkGetMatType
      type(c_ptr), value :: descrA
    end function spblkGetMatType
    ! Sets the fill mode.
    function spblkSetMatFillMode(descrA, fillMode) bind(C, name="spblkSetMatFillMode")
      import
      integer(c_int32_t) :: spblkSetMatFillMode
      type(c_ptr), value :: descrA
      integer(c_int32_t), value :: fillMode
    end function spblkSetMatFillMode
    ! The fill mode, or `SPBLK_MAT_DESCR_INVALID` (with a message) for a NULL or dead
    ! descriptor.
    function spblkGetMatFillMode(descrA) bind(C, name="spblkGetMatFillMode")
      import
      integer(c_int32_t) :: spblkGetMatFillMode
      type(c_ptr), value :: descrA
    end function spblkGetMatFillMode
    ! Sets the diagonal type.
    function spblkSetMatDiagType(descrA, diagType) bind(C, name="spblkSetMatDiagType")
      import
      integer(c_int32_t) :: spblkSetMatDiagType
      type(c_ptr), value :: descrA
      integer(c_int32_t), value :: diagType
    end function spblkSetMatDiagType
    ! The diagonal type, or `SPBLK_MAT_DESCR_INVALID` (with a message) for a NULL or dead
    ! descriptor.
    function spblkGetMatDiagType(descrA) bind(C, name="spblkGetMatDiagType")
      import
      integer(c_int32_t) :: spblkGetMatDiagType
      type(c_ptr), value :: descrA
    end function spblkGetMatDiagType
    ! Sets the index base.
    function spblkSetMatIndexBase(descrA, base) bind(C, name="spblkSetMatIndexBase")
      import
      integer(c_int32_t) :: spblkSetMatIndexBase
      type(c_ptr), value :: descrA
      integer(c_int32_t), value :: base
    end function spblkSetMatIndexBase
    ! The index base, or `SPBLK_MAT_DESCR_INVALID` (with a message) for a NULL or dead
    ! descriptor.
    function spblkGetMatIndexBase(descrA) bind(C, name="spblkGetMatIndexBase")
      import
      integer(c_int32_t) :: spblkGetMatIndexBase
      type(c_ptr), value :: descrA
    end function spblkGetMatIndexBase
    ! Workspace size in bytes for `spblkSpMV` (may be 0; then `externalBuffer` may be NULL).
    function spblkSpMV_bufferSize(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg, &
        bufferSize) bind(C, name="spblkSpMV_bufferSize")
      import
      integer(c_int32_t) :: spblkSpMV_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: vecX
      type(c_ptr), value :: beta
      type(c_ptr), value :: vecY
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      integer(c_size_t), intent(inout) :: bufferSize
    end function spblkSpMV_bufferSize
    ! Optional analysis for repeated `spblkSpMV` calls with the same matrix and opA: builds the
    ! matrix's plan (for CSC, COO or transposed A the converted pattern, once; and its longest
    ! row), owned by `matA` and used by every later call with the same opA. Plans hold no
    ! values: values changed in place are read by the next call. `spblkCsrSetPointers`,
    ! `spblkSpMatSetValues` and `spblkDestroySpMat` drop the plan. On CUDA it allocates device
    ! memory and waits for its work (so it is not graph-capturable; `spblkSpMV` is).
    function spblkSpMV_preprocess(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg, &
        externalBuffer) bind(C, name="spblkSpMV_preprocess")
      import
      integer(c_int32_t) :: spblkSpMV_preprocess
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: vecX
      type(c_ptr), value :: beta
      type(c_ptr), value :: vecY
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: externalBuffer
    end function spblkSpMV_preprocess
    ! `Y = alpha op(A) X + beta Y`; with beta = 0, Y is not read.
    function spblkSpMV(handle, opA, alpha, matA, vecX, beta, vecY, computeType, alg, &
        externalBuffer) bind(C, name="spblkSpMV")
      import
      integer(c_int32_t) :: spblkSpMV
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: vecX
      type(c_ptr), value :: beta
      type(c_ptr), value :: vecY
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: externalBuffer
    end function spblkSpMV
    ! Workspace size in bytes for `spblkSpMM`.
    function spblkSpMM_bufferSize(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, &
        alg, bufferSize) bind(C, name="spblkSpMM_bufferSize")
      import
      integer(c_int32_t) :: spblkSpMM_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      integer(c_size_t), intent(inout) :: bufferSize
    end function spblkSpMM_bufferSize
    ! Optional analysis for repeated `spblkSpMM` calls with the same matrix and opA; the plan is
    ! `spblkSpMV_preprocess`'s (shared by both operations) and follows the same rules.
    function spblkSpMM_preprocess(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, &
        alg, externalBuffer) bind(C, name="spblkSpMM_preprocess")
      import
      integer(c_int32_t) :: spblkSpMM_preprocess
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: externalBuffer
    end function spblkSpMM_preprocess
    ! `C = alpha op(A) op(B) + beta C` (A sparse; B, C dense); with beta = 0, C is not read.
    function spblkSpMM(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, &
        externalBuffer) bind(C, name="spblkSpMM")
      import
      integer(c_int32_t) :: spblkSpMM
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: externalBuffer
    end function spblkSpMM
    ! Workspace size in bytes for `spblkSDDMM`.
    function spblkSDDMM_bufferSize(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, &
        alg, bufferSize) bind(C, name="spblkSDDMM_bufferSize")
      import
      integer(c_int32_t) :: spblkSDDMM_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      integer(c_size_t), intent(inout) :: bufferSize
    end function spblkSDDMM_bufferSize
    ! Analysis for repeated `spblkSDDMM` calls with the same pattern: with
    ! `SPBLK_SDDMM_ALG_ASPT` it builds the ASpT plan the product needs. With the default, on
    ! CUDA, it builds what makes later calls faster: ASpT's plan where an estimate predicts its
    ! tensor-core tiles faster (f32), and for matrices of up to 131 072 entries each entry's row
    ! (small calls read it instead of searching the offsets). The default needs neither: without
    ! this call it streams.
    function spblkSDDMM_preprocess(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, &
        alg, externalBuffer) bind(C, name="spblkSDDMM_preprocess")
      import
      integer(c_int32_t) :: spblkSDDMM_preprocess
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: externalBuffer
    end function spblkSDDMM_preprocess
    ! `C = alpha (op(A) op(B)) ∘ spy(C) + beta C` (A, B dense; C sparse CSR).
    function spblkSDDMM(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, &
        externalBuffer) bind(C, name="spblkSDDMM")
      import
      integer(c_int32_t) :: spblkSDDMM
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: externalBuffer
    end function spblkSDDMM
    ! Workspace of `spblkXcsrsort` in bytes.
    function spblkXcsrsort_bufferSizeExt(handle, m, n, nnz, csrRowPtrA, csrColIndA, &
        pBufferSizeInBytes) bind(C, name="spblkXcsrsort_bufferSizeExt")
      import
      integer(c_int32_t) :: spblkXcsrsort_bufferSizeExt
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: csrRowPtrA
      type(c_ptr), value :: csrColIndA
      integer(c_size_t), intent(inout) :: pBufferSizeInBytes
    end function spblkXcsrsort_bufferSizeExt
    ! Sorts the column indices within each row of a CSR matrix (index base from `descrA`).
    function spblkXcsrsort(handle, m, n, nnz, descrA, csrRowPtrA, csrColIndA, P, pBuffer) bind(C, &
        name="spblkXcsrsort")
      import
      integer(c_int32_t) :: spblkXcsrsort
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      type(c_ptr), value :: csrRowPtrA
      type(c_ptr), value :: csrColIndA
      type(c_ptr), value :: P
      type(c_ptr), value :: pBuffer
    end function spblkXcsrsort
    ! Workspace of `spblkXcscsort` in bytes.
    function spblkXcscsort_bufferSizeExt(handle, m, n, nnz, cscColPtrA, cscRowIndA, &
        pBufferSizeInBytes) bind(C, name="spblkXcscsort_bufferSizeExt")
      import
      integer(c_int32_t) :: spblkXcscsort_bufferSizeExt
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: cscColPtrA
      type(c_ptr), value :: cscRowIndA
      integer(c_size_t), intent(inout) :: pBufferSizeInBytes
    end function spblkXcscsort_bufferSizeExt
    ! Sorts the row indices within each column of a CSC matrix (index base from `descrA`).
    function spblkXcscsort(handle, m, n, nnz, descrA, cscColPtrA, cscRowIndA, P, pBuffer) bind(C, &
        name="spblkXcscsort")
      import
      integer(c_int32_t) :: spblkXcscsort
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: descrA
      type(c_ptr), value :: cscColPtrA
      type(c_ptr), value :: cscRowIndA
      type(c_ptr), value :: P
      type(c_ptr), value :: pBuffer
    end function spblkXcscsort
    ! Workspace of `spblkXcoosortByRow` and `spblkXcoosortByColumn` in bytes.
    function spblkXcoosort_bufferSizeExt(handle, m, n, nnz, cooRowsA, cooColsA, &
        pBufferSizeInBytes) bind(C, name="spblkXcoosort_bufferSizeExt")
      import
      integer(c_int32_t) :: spblkXcoosort_bufferSizeExt
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: cooRowsA
      type(c_ptr), value :: cooColsA
      integer(c_size_t), intent(inout) :: pBufferSizeInBytes
    end function spblkXcoosort_bufferSizeExt
    ! Sorts COO entries by row, then by column (indices compared as stored, either base).
    function spblkXcoosortByRow(handle, m, n, nnz, cooRowsA, cooColsA, P, pBuffer) bind(C, &
        name="spblkXcoosortByRow")
      import
      integer(c_int32_t) :: spblkXcoosortByRow
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: cooRowsA
      type(c_ptr), value :: cooColsA
      type(c_ptr), value :: P
      type(c_ptr), value :: pBuffer
    end function spblkXcoosortByRow
    ! Sorts COO entries by column, then by row (indices compared as stored, either base).
    function spblkXcoosortByColumn(handle, m, n, nnz, cooRowsA, cooColsA, P, pBuffer) bind(C, &
        name="spblkXcoosortByColumn")
      import
      integer(c_int32_t) :: spblkXcoosortByColumn
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: m
      integer(c_int32_t), value :: n
      integer(c_int32_t), value :: nnz
      type(c_ptr), value :: cooRowsA
      type(c_ptr), value :: cooColsA
      type(c_ptr), value :: P
      type(c_ptr), value :: pBuffer
    end function spblkXcoosortByColumn
    ! Creates a CSR descriptor. It stores the pointers, copies nothing; offsets may be NULL
    ! until set (e.g. the output of SpGEMM), column indices and values may be NULL when nnz = 0.
    function spblkCreateCsr(spMatDescr, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues, &
        csrRowOffsetsType, csrColIndType, idxBase, valueType) bind(C, name="spblkCreateCsr")
      import
      integer(c_int32_t) :: spblkCreateCsr
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: nnz
      type(c_ptr), value :: csrRowOffsets
      type(c_ptr), value :: csrColInd
      type(c_ptr), value :: csrValues
      integer(c_int32_t), value :: csrRowOffsetsType
      integer(c_int32_t), value :: csrColIndType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateCsr
    ! `spblkCreateCsr` for read-only data.
    function spblkCreateConstCsr(spMatDescr, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues, &
        csrRowOffsetsType, csrColIndType, idxBase, valueType) bind(C, name="spblkCreateConstCsr")
      import
      integer(c_int32_t) :: spblkCreateConstCsr
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: nnz
      type(c_ptr), value :: csrRowOffsets
      type(c_ptr), value :: csrColInd
      type(c_ptr), value :: csrValues
      integer(c_int32_t), value :: csrRowOffsetsType
      integer(c_int32_t), value :: csrColIndType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateConstCsr
    ! Creates a CSC descriptor.
    function spblkCreateCsc(spMatDescr, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues, &
        cscColOffsetsType, cscRowIndType, idxBase, valueType) bind(C, name="spblkCreateCsc")
      import
      integer(c_int32_t) :: spblkCreateCsc
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: nnz
      type(c_ptr), value :: cscColOffsets
      type(c_ptr), value :: cscRowInd
      type(c_ptr), value :: cscValues
      integer(c_int32_t), value :: cscColOffsetsType
      integer(c_int32_t), value :: cscRowIndType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateCsc
    ! Creates a COO descriptor (row and column index arrays of nnz entries each).
    function spblkCreateCoo(spMatDescr, rows, cols, nnz, cooRowInd, cooColInd, cooValues, &
        cooIdxType, idxBase, valueType) bind(C, name="spblkCreateCoo")
      import
      integer(c_int32_t) :: spblkCreateCoo
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: nnz
      type(c_ptr), value :: cooRowInd
      type(c_ptr), value :: cooColInd
      type(c_ptr), value :: cooValues
      integer(c_int32_t), value :: cooIdxType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateCoo
    ! Destroys a sparse descriptor and frees its plans (analysis and preprocess results); NULL
    ! is a no-op.
    function spblkDestroySpMat(spMatDescr) bind(C, name="spblkDestroySpMat")
      import
      integer(c_int32_t) :: spblkDestroySpMat
      type(c_ptr), value :: spMatDescr
    end function spblkDestroySpMat
    ! Reads rows, columns and nnz (nnz of a SpGEMM output is known after `spblkSpGEMM_compute`).
    function spblkSpMatGetSize(spMatDescr, rows, cols, nnz) bind(C, name="spblkSpMatGetSize")
      import
      integer(c_int32_t) :: spblkSpMatGetSize
      type(c_ptr), value :: spMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: nnz
    end function spblkSpMatGetSize
    ! Reads the storage format.
    function spblkSpMatGetFormat(spMatDescr, format) bind(C, name="spblkSpMatGetFormat")
      import
      integer(c_int32_t) :: spblkSpMatGetFormat
      type(c_ptr), value :: spMatDescr
      integer(c_int32_t), intent(out) :: format
    end function spblkSpMatGetFormat
    ! Reads the index base.
    function spblkSpMatGetIndexBase(spMatDescr, idxBase) bind(C, name="spblkSpMatGetIndexBase")
      import
      integer(c_int32_t) :: spblkSpMatGetIndexBase
      type(c_ptr), value :: spMatDescr
      integer(c_int32_t), intent(out) :: idxBase
    end function spblkSpMatGetIndexBase
    ! Reads the values pointer.
    function spblkSpMatGetValues(spMatDescr, values) bind(C, name="spblkSpMatGetValues")
      import
      integer(c_int32_t) :: spblkSpMatGetValues
      type(c_ptr), value :: spMatDescr
      type(c_ptr), intent(out) :: values
    end function spblkSpMatGetValues
    ! Reads an attribute (fill mode or diagonal type) into `data`, `dataSize` bytes (4).
    function spblkSpMatGetAttribute(spMatDescr, attribute, data, dataSize) bind(C, &
        name="spblkSpMatGetAttribute")
      import
      integer(c_int32_t) :: spblkSpMatGetAttribute
      type(c_ptr), value :: spMatDescr
      integer(c_int32_t), value :: attribute
      type(c_ptr), value :: data
      integer(c_size_t), value :: dataSize
    end function spblkSpMatGetAttribute
    ! Sets an attribute from `data`, `dataSize` bytes (4): `SPBLK_SPMAT_FILL_MODE` takes a
    ! `spblkFillMode_t`, `SPBLK_SPMAT_DIAG_TYPE` a `spblkDiagType_t`. The descriptor's plans
    ! stay: no plan depends on these.
    function spblkSpMatSetAttribute(spMatDescr, attribute, data, dataSize) bind(C, &
        name="spblkSpMatSetAttribute")
      import
      integer(c_int32_t) :: spblkSpMatSetAttribute
      type(c_ptr), value :: spMatDescr
      integer(c_int32_t), value :: attribute
      type(c_ptr), value :: data
      integer(c_size_t), value :: dataSize
    end function spblkSpMatSetAttribute
    ! Replaces the values pointer and drops the descriptor's plans (from `spblkAnalyze` and the
    ! `*_preprocess` functions): the 1-SA plan holds copies of the old values, and a new
    ! preprocess rebuilds the others. Values changed in place, through the same pointer, are
    ! read by every call; only a 1-SA plan needs `spblkAnalyze` again then.
    function spblkSpMatSetValues(spMatDescr, values) bind(C, name="spblkSpMatSetValues")
      import
      integer(c_int32_t) :: spblkSpMatSetValues
      type(c_ptr), value :: spMatDescr
      type(c_ptr), value :: values
    end function spblkSpMatSetValues
    ! Replaces a CSR descriptor's arrays (after `spblkSpGEMM_compute`, for example). Any plans
    ! of the old pattern are dropped.
    function spblkCsrSetPointers(spMatDescr, csrRowOffsets, csrColInd, csrValues) bind(C, &
        name="spblkCsrSetPointers")
      import
      integer(c_int32_t) :: spblkCsrSetPointers
      type(c_ptr), value :: spMatDescr
      type(c_ptr), value :: csrRowOffsets
      type(c_ptr), value :: csrColInd
      type(c_ptr), value :: csrValues
    end function spblkCsrSetPointers
    ! `spblkCreateCsc` for read-only data.
    function spblkCreateConstCsc(spMatDescr, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues, &
        cscColOffsetsType, cscRowIndType, idxBase, valueType) bind(C, name="spblkCreateConstCsc")
      import
      integer(c_int32_t) :: spblkCreateConstCsc
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: nnz
      type(c_ptr), value :: cscColOffsets
      type(c_ptr), value :: cscRowInd
      type(c_ptr), value :: cscValues
      integer(c_int32_t), value :: cscColOffsetsType
      integer(c_int32_t), value :: cscRowIndType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateConstCsc
    ! `spblkCreateCoo` for read-only data.
    function spblkCreateConstCoo(spMatDescr, rows, cols, nnz, cooRowInd, cooColInd, cooValues, &
        cooIdxType, idxBase, valueType) bind(C, name="spblkCreateConstCoo")
      import
      integer(c_int32_t) :: spblkCreateConstCoo
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: nnz
      type(c_ptr), value :: cooRowInd
      type(c_ptr), value :: cooColInd
      type(c_ptr), value :: cooValues
      integer(c_int32_t), value :: cooIdxType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateConstCoo
    ! Reads the values pointer of a read-only descriptor.
    function spblkConstSpMatGetValues(spMatDescr, values) bind(C, name="spblkConstSpMatGetValues")
      import
      integer(c_int32_t) :: spblkConstSpMatGetValues
      type(c_ptr), value :: spMatDescr
      type(c_ptr), intent(out) :: values
    end function spblkConstSpMatGetValues
    ! Replaces a CSC descriptor's arrays.
    function spblkCscSetPointers(spMatDescr, cscColOffsets, cscRowInd, cscValues) bind(C, &
        name="spblkCscSetPointers")
      import
      integer(c_int32_t) :: spblkCscSetPointers
      type(c_ptr), value :: spMatDescr
      type(c_ptr), value :: cscColOffsets
      type(c_ptr), value :: cscRowInd
      type(c_ptr), value :: cscValues
    end function spblkCscSetPointers
    ! Replaces a COO descriptor's arrays.
    function spblkCooSetPointers(spMatDescr, cooRows, cooColumns, cooValues) bind(C, &
        name="spblkCooSetPointers")
      import
      integer(c_int32_t) :: spblkCooSetPointers
      type(c_ptr), value :: spMatDescr
      type(c_ptr), value :: cooRows
      type(c_ptr), value :: cooColumns
      type(c_ptr), value :: cooValues
    end function spblkCooSetPointers
    ! Creates a BSR descriptor: `brows` x `bcols` blocks of `rowBlockSize` x `colBlockSize`
    ! values (square, as cuSPARSE requires), `bnnz` of them; `bsrRowOffsets` has brows + 1
    ! entries, `bsrColInd` bnnz, `bsrValues` bnnz blocks, each row- or column-major (`order`).
    function spblkCreateBsr(spMatDescr, brows, bcols, bnnz, rowBlockSize, colBlockSize, &
        bsrRowOffsets, bsrColInd, bsrValues, bsrRowOffsetsType, bsrColIndType, idxBase, valueType, &
        order) bind(C, name="spblkCreateBsr")
      import
      integer(c_int32_t) :: spblkCreateBsr
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: brows
      integer(c_int64_t), value :: bcols
      integer(c_int64_t), value :: bnnz
      integer(c_int64_t), value :: rowBlockSize
      integer(c_int64_t), value :: colBlockSize
      type(c_ptr), value :: bsrRowOffsets
      type(c_ptr), value :: bsrColInd
      type(c_ptr), value :: bsrValues
      integer(c_int32_t), value :: bsrRowOffsetsType
      integer(c_int32_t), value :: bsrColIndType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
      integer(c_int32_t), value :: order
    end function spblkCreateBsr
    ! `spblkCreateBsr` for read-only data.
    function spblkCreateConstBsr(spMatDescr, brows, bcols, bnnz, rowBlockDim, colBlockDim, &
        bsrRowOffsets, bsrColInd, bsrValues, bsrRowOffsetsType, bsrColIndType, idxBase, valueType, &
        order) bind(C, name="spblkCreateConstBsr")
      import
      integer(c_int32_t) :: spblkCreateConstBsr
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: brows
      integer(c_int64_t), value :: bcols
      integer(c_int64_t), value :: bnnz
      integer(c_int64_t), value :: rowBlockDim
      integer(c_int64_t), value :: colBlockDim
      type(c_ptr), value :: bsrRowOffsets
      type(c_ptr), value :: bsrColInd
      type(c_ptr), value :: bsrValues
      integer(c_int32_t), value :: bsrRowOffsetsType
      integer(c_int32_t), value :: bsrColIndType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
      integer(c_int32_t), value :: order
    end function spblkCreateConstBsr
    ! Creates a Blocked-ELL descriptor: `rows` x `cols`, each `ellBlockSize`-row block row
    ! holding `ellCols / ellBlockSize` blocks; `ellColInd` their block columns (-1: none),
    ! `ellValue` the `rows` x `ellCols` values row-major.
    function spblkCreateBlockedEll(spMatDescr, rows, cols, ellBlockSize, ellCols, ellColInd, &
        ellValue, ellIdxType, idxBase, valueType) bind(C, name="spblkCreateBlockedEll")
      import
      integer(c_int32_t) :: spblkCreateBlockedEll
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: ellBlockSize
      integer(c_int64_t), value :: ellCols
      type(c_ptr), value :: ellColInd
      type(c_ptr), value :: ellValue
      integer(c_int32_t), value :: ellIdxType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateBlockedEll
    ! `spblkCreateBlockedEll` for read-only data.
    function spblkCreateConstBlockedEll(spMatDescr, rows, cols, ellBlockSize, ellCols, ellColInd, &
        ellValue, ellIdxType, idxBase, valueType) bind(C, name="spblkCreateConstBlockedEll")
      import
      integer(c_int32_t) :: spblkCreateConstBlockedEll
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: ellBlockSize
      integer(c_int64_t), value :: ellCols
      type(c_ptr), value :: ellColInd
      type(c_ptr), value :: ellValue
      integer(c_int32_t), value :: ellIdxType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateConstBlockedEll
    ! Creates a Sliced-ELL descriptor: slices of `sliceSize` rows, `sellSliceOffsets` (one per
    ! slice, + 1) into the `sellValuesSize` slots of `sellColInd` and `sellValues`, each slice
    ! column-major, padding slots with column -1; `nnz` counts the other slots.
    function spblkCreateSlicedEll(spMatDescr, rows, cols, nnz, sellValuesSize, sliceSize, &
        sellSliceOffsets, sellColInd, sellValues, sellSliceOffsetsType, sellColIndType, idxBase, &
        valueType) bind(C, name="spblkCreateSlicedEll")
      import
      integer(c_int32_t) :: spblkCreateSlicedEll
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: nnz
      integer(c_int64_t), value :: sellValuesSize
      integer(c_int64_t), value :: sliceSize
      type(c_ptr), value :: sellSliceOffsets
      type(c_ptr), value :: sellColInd
      type(c_ptr), value :: sellValues
      integer(c_int32_t), value :: sellSliceOffsetsType
      integer(c_int32_t), value :: sellColIndType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateSlicedEll
    ! `spblkCreateSlicedEll` for read-only data.
    function spblkCreateConstSlicedEll(spMatDescr, rows, cols, nnz, sellValuesSize, sliceSize, &
        sellSliceOffsets, sellColInd, sellValues, sellSliceOffsetsType, sellColIndType, idxBase, &
        valueType) bind(C, name="spblkCreateConstSlicedEll")
      import
      integer(c_int32_t) :: spblkCreateConstSlicedEll
      type(c_ptr), intent(out) :: spMatDescr
      integer(c_int64_t), value :: rows
      integer(c_int64_t), value :: cols
      integer(c_int64_t), value :: nnz
      integer(c_int64_t), value :: sellValuesSize
      integer(c_int64_t), value :: sliceSize
      type(c_ptr), value :: sellSliceOffsets
      type(c_ptr), value :: sellColInd
      type(c_ptr), value :: sellValues
      integer(c_int32_t), value :: sellSliceOffsetsType
      integer(c_int32_t), value :: sellColIndType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateConstSlicedEll
    ! Reads everything a Blocked-ELL descriptor holds.
    function spblkBlockedEllGet(spMatDescr, rows, cols, ellBlockSize, ellCols, ellColInd, ellValue, &
        ellIdxType, idxBase, valueType) bind(C, name="spblkBlockedEllGet")
      import
      integer(c_int32_t) :: spblkBlockedEllGet
      type(c_ptr), value :: spMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: ellBlockSize
      integer(c_int64_t), intent(out) :: ellCols
      type(c_ptr), intent(out) :: ellColInd
      type(c_ptr), intent(out) :: ellValue
      integer(c_int32_t), intent(out) :: ellIdxType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkBlockedEllGet
    ! `spblkBlockedEllGet` for a read-only descriptor.
    function spblkConstBlockedEllGet(spMatDescr, rows, cols, ellBlockSize, ellCols, ellColInd, &
        ellValue, ellIdxType, idxBase, valueType) bind(C, name="spblkConstBlockedEllGet")
      import
      integer(c_int32_t) :: spblkConstBlockedEllGet
      type(c_ptr), value :: spMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: ellBlockSize
      integer(c_int64_t), intent(out) :: ellCols
      type(c_ptr), intent(out) :: ellColInd
      type(c_ptr), intent(out) :: ellValue
      integer(c_int32_t), intent(out) :: ellIdxType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkConstBlockedEllGet
    ! Reads everything a CSR descriptor holds.
    function spblkCsrGet(spMatDescr, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues, &
        csrRowOffsetsType, csrColIndType, idxBase, valueType) bind(C, name="spblkCsrGet")
      import
      integer(c_int32_t) :: spblkCsrGet
      type(c_ptr), value :: spMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: nnz
      type(c_ptr), intent(out) :: csrRowOffsets
      type(c_ptr), intent(out) :: csrColInd
      type(c_ptr), intent(out) :: csrValues
      integer(c_int32_t), intent(out) :: csrRowOffsetsType
      integer(c_int32_t), intent(out) :: csrColIndType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkCsrGet
    ! `spblkCsrGet` for a read-only descriptor.
    function spblkConstCsrGet(spMatDescr, rows, cols, nnz, csrRowOffsets, csrColInd, csrValues, &
        csrRowOffsetsType, csrColIndType, idxBase, valueType) bind(C, name="spblkConstCsrGet")
      import
      integer(c_int32_t) :: spblkConstCsrGet
      type(c_ptr), value :: spMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: nnz
      type(c_ptr), intent(out) :: csrRowOffsets
      type(c_ptr), intent(out) :: csrColInd
      type(c_ptr), intent(out) :: csrValues
      integer(c_int32_t), intent(out) :: csrRowOffsetsType
      integer(c_int32_t), intent(out) :: csrColIndType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkConstCsrGet
    ! Reads everything a CSC descriptor holds.
    function spblkCscGet(spMatDescr, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues, &
        cscColOffsetsType, cscRowIndType, idxBase, valueType) bind(C, name="spblkCscGet")
      import
      integer(c_int32_t) :: spblkCscGet
      type(c_ptr), value :: spMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: nnz
      type(c_ptr), intent(out) :: cscColOffsets
      type(c_ptr), intent(out) :: cscRowInd
      type(c_ptr), intent(out) :: cscValues
      integer(c_int32_t), intent(out) :: cscColOffsetsType
      integer(c_int32_t), intent(out) :: cscRowIndType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkCscGet
    ! `spblkCscGet` for a read-only descriptor.
    function spblkConstCscGet(spMatDescr, rows, cols, nnz, cscColOffsets, cscRowInd, cscValues, &
        cscColOffsetsType, cscRowIndType, idxBase, valueType) bind(C, name="spblkConstCscGet")
      import
      integer(c_int32_t) :: spblkConstCscGet
      type(c_ptr), value :: spMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: nnz
      type(c_ptr), intent(out) :: cscColOffsets
      type(c_ptr), intent(out) :: cscRowInd
      type(c_ptr), intent(out) :: cscValues
      integer(c_int32_t), intent(out) :: cscColOffsetsType
      integer(c_int32_t), intent(out) :: cscRowIndType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkConstCscGet
    ! Reads everything a COO descriptor holds.
    function spblkCooGet(spMatDescr, rows, cols, nnz, cooRowInd, cooColInd, cooValues, idxType, &
        idxBase, valueType) bind(C, name="spblkCooGet")
      import
      integer(c_int32_t) :: spblkCooGet
      type(c_ptr), value :: spMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: nnz
      type(c_ptr), intent(out) :: cooRowInd
      type(c_ptr), intent(out) :: cooColInd
      type(c_ptr), intent(out) :: cooValues
      integer(c_int32_t), intent(out) :: idxType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkCooGet
    ! `spblkCooGet` for a read-only descriptor.
    function spblkConstCooGet(spMatDescr, rows, cols, nnz, cooRowInd, cooColInd, cooValues, &
        idxType, idxBase, valueType) bind(C, name="spblkConstCooGet")
      import
      integer(c_int32_t) :: spblkConstCooGet
      type(c_ptr), value :: spMatDescr
      integer(c_int64_t), intent(out) :: rows
      integer(c_int64_t), intent(out) :: cols
      integer(c_int64_t), intent(out) :: nnz
      type(c_ptr), intent(out) :: cooRowInd
      type(c_ptr), intent(out) :: cooColInd
      type(c_ptr), intent(out) :: cooValues
      integer(c_int32_t), intent(out) :: idxType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkConstCooGet
    ! Creates a sparse vector of `size` elements with `nnz` stored entries: `values[k]` at
    ! position `indices[k]` (minus the index base). The arrays may be NULL only when nnz is 0.
    function spblkCreateSpVec(spVecDescr, size, nnz, indices, values, idxType, idxBase, &
        valueType) bind(C, name="spblkCreateSpVec")
      import
      integer(c_int32_t) :: spblkCreateSpVec
      type(c_ptr), intent(out) :: spVecDescr
      integer(c_int64_t), value :: size
      integer(c_int64_t), value :: nnz
      type(c_ptr), value :: indices
      type(c_ptr), value :: values
      integer(c_int32_t), value :: idxType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateSpVec
    ! `spblkCreateSpVec` for a vector that operations only read.
    function spblkCreateConstSpVec(spVecDescr, size, nnz, indices, values, idxType, idxBase, &
        valueType) bind(C, name="spblkCreateConstSpVec")
      import
      integer(c_int32_t) :: spblkCreateConstSpVec
      type(c_ptr), intent(out) :: spVecDescr
      integer(c_int64_t), value :: size
      integer(c_int64_t), value :: nnz
      type(c_ptr), value :: indices
      type(c_ptr), value :: values
      integer(c_int32_t), value :: idxType
      integer(c_int32_t), value :: idxBase
      integer(c_int32_t), value :: valueType
    end function spblkCreateConstSpVec
    ! Destroys a sparse vector descriptor; NULL is a no-op.
    function spblkDestroySpVec(spVecDescr) bind(C, name="spblkDestroySpVec")
      import
      integer(c_int32_t) :: spblkDestroySpVec
      type(c_ptr), value :: spVecDescr
    end function spblkDestroySpVec
    ! Reads everything a sparse vector descriptor holds.
    function spblkSpVecGet(spVecDescr, size, nnz, indices, values, idxType, idxBase, &
        valueType) bind(C, name="spblkSpVecGet")
      import
      integer(c_int32_t) :: spblkSpVecGet
      type(c_ptr), value :: spVecDescr
      integer(c_int64_t), intent(out) :: size
      integer(c_int64_t), intent(out) :: nnz
      type(c_ptr), intent(out) :: indices
      type(c_ptr), intent(out) :: values
      integer(c_int32_t), intent(out) :: idxType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkSpVecGet
    ! `spblkSpVecGet` for a read-only descriptor.
    function spblkConstSpVecGet(spVecDescr, size, nnz, indices, values, idxType, idxBase, &
        valueType) bind(C, name="spblkConstSpVecGet")
      import
      integer(c_int32_t) :: spblkConstSpVecGet
      type(c_ptr), value :: spVecDescr
      integer(c_int64_t), intent(out) :: size
      integer(c_int64_t), intent(out) :: nnz
      type(c_ptr), intent(out) :: indices
      type(c_ptr), intent(out) :: values
      integer(c_int32_t), intent(out) :: idxType
      integer(c_int32_t), intent(out) :: idxBase
      integer(c_int32_t), intent(out) :: valueType
    end function spblkConstSpVecGet
    ! Reads the index base of a sparse vector.
    function spblkSpVecGetIndexBase(spVecDescr, idxBase) bind(C, name="spblkSpVecGetIndexBase")
      import
      integer(c_int32_t) :: spblkSpVecGetIndexBase
      type(c_ptr), value :: spVecDescr
      integer(c_int32_t), intent(out) :: idxBase
    end function spblkSpVecGetIndexBase
    ! Reads the values pointer of a sparse vector.
    function spblkSpVecGetValues(spVecDescr, values) bind(C, name="spblkSpVecGetValues")
      import
      integer(c_int32_t) :: spblkSpVecGetValues
      type(c_ptr), value :: spVecDescr
      type(c_ptr), intent(out) :: values
    end function spblkSpVecGetValues
    ! `spblkSpVecGetValues` for a read-only descriptor.
    function spblkConstSpVecGetValues(spVecDescr, values) bind(C, name="spblkConstSpVecGetValues")
      import
      integer(c_int32_t) :: spblkConstSpVecGetValues
      type(c_ptr), value :: spVecDescr
      type(c_ptr), intent(out) :: values
    end function spblkConstSpVecGetValues
    ! Replaces the values pointer of a sparse vector (NULL only when it has no entries).
    function spblkSpVecSetValues(spVecDescr, values) bind(C, name="spblkSpVecSetValues")
      import
      integer(c_int32_t) :: spblkSpVecSetValues
      type(c_ptr), value :: spVecDescr
      type(c_ptr), value :: values
    end function spblkSpVecSetValues
    ! Creates the state object that carries a product through the protocol.
    function spblkSpGEMM_createDescr(descr) bind(C, name="spblkSpGEMM_createDescr")
      import
      integer(c_int32_t) :: spblkSpGEMM_createDescr
      type(c_ptr), intent(out) :: descr
    end function spblkSpGEMM_createDescr
    ! Destroys the SpGEMM state (and any product it still holds); NULL is a no-op.
    function spblkSpGEMM_destroyDescr(descr) bind(C, name="spblkSpGEMM_destroyDescr")
      import
      integer(c_int32_t) :: spblkSpGEMM_destroyDescr
      type(c_ptr), value :: descr
    end function spblkSpGEMM_destroyDescr
    ! Phase 1: with `externalBuffer1` NULL, stores the required size in `*bufferSize1`;
    ! otherwise analyses A and B using the buffer.
    function spblkSpGEMM_workEstimation(handle, opA, opB, alpha, matA, matB, beta, matC, &
        computeType, alg, spgemmDescr, bufferSize1, externalBuffer1) bind(C, &
        name="spblkSpGEMM_workEstimation")
      import
      integer(c_int32_t) :: spblkSpGEMM_workEstimation
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spgemmDescr
      integer(c_size_t), intent(inout) :: bufferSize1
      type(c_ptr), value :: externalBuffer1
    end function spblkSpGEMM_workEstimation
    ! Phase 2: with `externalBuffer2` NULL, stores an upper bound of the size it needs;
    ! otherwise computes C, after which `spblkSpMatGetSize(matC)` reports nnz(C). Blocks until
    ! nnz(C) is known on the host.
    function spblkSpGEMM_compute(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, &
        spgemmDescr, bufferSize2, externalBuffer2) bind(C, name="spblkSpGEMM_compute")
      import
      integer(c_int32_t) :: spblkSpGEMM_compute
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spgemmDescr
      integer(c_size_t), intent(inout) :: bufferSize2
      type(c_ptr), value :: externalBuffer2
    end function spblkSpGEMM_compute
    ! Phase 3: writes C's row offsets, column indices (sorted within rows) and values into the
    ! arrays set with `spblkCsrSetPointers`. The values are computed here, from A's and B's
    ! values as they are when `copy` runs (cuSPARSE computes them in `compute`; A and B must not
    ! change in between either way).
    function spblkSpGEMM_copy(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, &
        spgemmDescr) bind(C, name="spblkSpGEMM_copy")
      import
      integer(c_int32_t) :: spblkSpGEMM_copy
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spgemmDescr
    end function spblkSpGEMM_copy
    ! The number of scalar products of A·B, known once `spblkSpGEMM_workEstimation` (or
    ! `spblkSpGEMMreuse_workEstimation`) has run with a buffer.
    function spblkSpGEMM_getNumProducts(spgemmDescr, num_prods) bind(C, &
        name="spblkSpGEMM_getNumProducts")
      import
      integer(c_int32_t) :: spblkSpGEMM_getNumProducts
      type(c_ptr), value :: spgemmDescr
      integer(c_int64_t), intent(out) :: num_prods
    end function spblkSpGEMM_getNumProducts
    ! ALG2's and ALG3's protocol, after the work estimation: with `externalBuffer3` NULL, stores
    ! the size of buffer 3 in `*bufferSize3`; otherwise stores in `*bufferSize2` the size
    ! `compute` needs, which then holds all of the product's working memory (buffer 3 may be
    ! freed afterwards). `chunk_fraction` (in (0, 1]) is ALG3's: the rows that need global
    ! tables run in passes of that fraction of their memory (at least one row's); ALG2 checks
    ! and ignores it.
    function spblkSpGEMM_estimateMemory(handle, opA, opB, alpha, matA, matB, beta, matC, &
        computeType, alg, spgemmDescr, chunk_fraction, bufferSize3, externalBuffer3, &
        bufferSize2) bind(C, name="spblkSpGEMM_estimateMemory")
      import
      integer(c_int32_t) :: spblkSpGEMM_estimateMemory
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spgemmDescr
      real(c_float), value :: chunk_fraction
      integer(c_size_t), intent(inout) :: bufferSize3
      type(c_ptr), value :: externalBuffer3
      integer(c_size_t), intent(inout) :: bufferSize2
    end function spblkSpGEMM_estimateMemory
    ! Reuse path, phase 1: as `spblkSpGEMM_workEstimation`, for a product whose structure is
    ! computed once (`reuse_nnz`, `reuse_copy`) and whose values are recomputed by
    ! `reuse_compute` as often as A's and B's values change.
    function spblkSpGEMMreuse_workEstimation(handle, opA, opB, matA, matB, matC, alg, spgemmDescr, &
        bufferSize1, externalBuffer1) bind(C, name="spblkSpGEMMreuse_workEstimation")
      import
      integer(c_int32_t) :: spblkSpGEMMreuse_workEstimation
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spgemmDescr
      integer(c_size_t), intent(inout) :: bufferSize1
      type(c_ptr), value :: externalBuffer1
    end function spblkSpGEMMreuse_workEstimation
    ! Reuse path, phase 2: with all three buffers NULL, stores their sizes; otherwise computes
    ! C's structure, after which `spblkSpMatGetSize(matC)` reports nnz(C) (blocks until it is
    ! known). Buffers 1 and 2 may then be freed; buffer 3 must live until `reuse_copy` has run,
    ! buffer 4 until the last `reuse_compute`.
    function spblkSpGEMMreuse_nnz(handle, opA, opB, matA, matB, matC, alg, spgemmDescr, &
        bufferSize2, externalBuffer2, bufferSize3, externalBuffer3, bufferSize4, &
        externalBuffer4) bind(C, name="spblkSpGEMMreuse_nnz")
      import
      integer(c_int32_t) :: spblkSpGEMMreuse_nnz
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spgemmDescr
      integer(c_size_t), intent(inout) :: bufferSize2
      type(c_ptr), value :: externalBuffer2
      integer(c_size_t), intent(inout) :: bufferSize3
      type(c_ptr), value :: externalBuffer3
      integer(c_size_t), intent(inout) :: bufferSize4
      type(c_ptr), value :: externalBuffer4
    end function spblkSpGEMMreuse_nnz
    ! Reuse path, phase 3: with `externalBuffer5` NULL, stores its size in `*bufferSize5`;
    ! otherwise writes C's row offsets and sorted column indices (not its values) into the
    ! arrays set with `spblkCsrSetPointers`, and prepares `reuse_compute`. Buffer 5 must live
    ! until the last `reuse_compute`.
    function spblkSpGEMMreuse_copy(handle, opA, opB, matA, matB, matC, alg, spgemmDescr, &
        bufferSize5, externalBuffer5) bind(C, name="spblkSpGEMMreuse_copy")
      import
      integer(c_int32_t) :: spblkSpGEMMreuse_copy
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spgemmDescr
      integer(c_size_t), intent(inout) :: bufferSize5
      type(c_ptr), value :: externalBuffer5
    end function spblkSpGEMMreuse_copy
    ! Reuse path, phase 4: C = alpha·A·B + beta·C with A's and B's values as they are now (the
    ! structure set up by the previous phases); any number of times, asynchronously.
    function spblkSpGEMMreuse_compute(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, &
        alg, spgemmDescr) bind(C, name="spblkSpGEMMreuse_compute")
      import
      integer(c_int32_t) :: spblkSpGEMMreuse_compute
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: beta
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spgemmDescr
    end function spblkSpGEMMreuse_compute
    ! Creates an SpSM descriptor, which holds one analysis at a time.
    function spblkSpSM_createDescr(descr) bind(C, name="spblkSpSM_createDescr")
      import
      integer(c_int32_t) :: spblkSpSM_createDescr
      type(c_ptr), intent(out) :: descr
    end function spblkSpSM_createDescr
    ! Destroys an SpSM descriptor (the analysis' buffer stays the caller's); NULL is a no-op.
    function spblkSpSM_destroyDescr(descr) bind(C, name="spblkSpSM_destroyDescr")
      import
      integer(c_int32_t) :: spblkSpSM_destroyDescr
      type(c_ptr), value :: descr
    end function spblkSpSM_destroyDescr
    ! Size in bytes of the buffer `spblkSpSM_analysis` keeps its analysis in (it grows with the
    ! number of right-hand sides).
    function spblkSpSM_bufferSize(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, &
        spsmDescr, bufferSize) bind(C, name="spblkSpSM_bufferSize")
      import
      integer(c_int32_t) :: spblkSpSM_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spsmDescr
      integer(c_size_t), intent(inout) :: bufferSize
    end function spblkSpSM_bufferSize
    ! Analyses op(A) for `spblkSpSM_solve` as `spblkSpSV_analysis` does; the solves must have as
    ! many right-hand sides as matC has columns here.
    function spblkSpSM_analysis(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, &
        spsmDescr, externalBuffer) bind(C, name="spblkSpSM_analysis")
      import
      integer(c_int32_t) :: spblkSpSM_analysis
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spsmDescr
      type(c_ptr), value :: externalBuffer
    end function spblkSpSM_analysis
    ! Solves `op(A) C = alpha op(B)` with the descriptor's analysis (B and C may be one matrix
    ! when op(B) = B and both have the same order and leading dimension). Each column's bits are
    ! those `spblkSpSV_solve` gives for it.
    function spblkSpSM_solve(handle, opA, opB, alpha, matA, matB, matC, computeType, alg, &
        spsmDescr) bind(C, name="spblkSpSM_solve")
      import
      integer(c_int32_t) :: spblkSpSM_solve
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      integer(c_int32_t), value :: opB
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: matB
      type(c_ptr), value :: matC
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spsmDescr
    end function spblkSpSM_solve
    ! Replaces the analysed values, as `spblkSpSV_updateMatrix`.
    function spblkSpSM_updateMatrix(handle, spsmDescr, newValues, updatePart) bind(C, &
        name="spblkSpSM_updateMatrix")
      import
      integer(c_int32_t) :: spblkSpSM_updateMatrix
      type(c_ptr), value :: handle
      type(c_ptr), value :: spsmDescr
      type(c_ptr), value :: newValues
      integer(c_int32_t), value :: updatePart
    end function spblkSpSM_updateMatrix
    ! Creates an SpSV descriptor, which holds one analysis at a time.
    function spblkSpSV_createDescr(descr) bind(C, name="spblkSpSV_createDescr")
      import
      integer(c_int32_t) :: spblkSpSV_createDescr
      type(c_ptr), intent(out) :: descr
    end function spblkSpSV_createDescr
    ! Destroys an SpSV descriptor (the analysis' buffer stays the caller's); NULL is a no-op.
    function spblkSpSV_destroyDescr(descr) bind(C, name="spblkSpSV_destroyDescr")
      import
      integer(c_int32_t) :: spblkSpSV_destroyDescr
      type(c_ptr), value :: descr
    end function spblkSpSV_destroyDescr
    ! Size in bytes of the buffer `spblkSpSV_analysis` keeps its analysis in.
    function spblkSpSV_bufferSize(handle, opA, alpha, matA, vecX, vecY, computeType, alg, &
        spsvDescr, bufferSize) bind(C, name="spblkSpSV_bufferSize")
      import
      integer(c_int32_t) :: spblkSpSV_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: vecX
      type(c_ptr), value :: vecY
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spsvDescr
      integer(c_size_t), intent(inout) :: bufferSize
    end function spblkSpSV_bufferSize
    ! Analyses op(A) for `spblkSpSV_solve`: the triangle the fill mode names (entries of the
    ! other are ignored) and the diagonal (a missing entry reads as one), with a copy of their
    ! values, in `externalBuffer`, which must stay allocated while the descriptor is used. A
    ! later change of A's values is seen only after `spblkSpSV_updateMatrix` or a new analysis.
    ! On CUDA it runs on the stream without waiting (graph-capturable).
    function spblkSpSV_analysis(handle, opA, alpha, matA, vecX, vecY, computeType, alg, spsvDescr, &
        externalBuffer) bind(C, name="spblkSpSV_analysis")
      import
      integer(c_int32_t) :: spblkSpSV_analysis
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: vecX
      type(c_ptr), value :: vecY
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spsvDescr
      type(c_ptr), value :: externalBuffer
    end function spblkSpSV_analysis
    ! Solves `op(A) y = alpha x` with the descriptor's analysis (x and y may be one vector).
    ! Deterministic: the same inputs give the same bits every run. A zero on the diagonal gives
    ! inf or NaN, as cuSPARSE's does; nothing is reported.
    function spblkSpSV_solve(handle, opA, alpha, matA, vecX, vecY, computeType, alg, &
        spsvDescr) bind(C, name="spblkSpSV_solve")
      import
      integer(c_int32_t) :: spblkSpSV_solve
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opA
      type(c_ptr), value :: alpha
      type(c_ptr), value :: matA
      type(c_ptr), value :: vecX
      type(c_ptr), value :: vecY
      integer(c_int32_t), value :: computeType
      integer(c_int32_t), value :: alg
      type(c_ptr), value :: spsvDescr
    end function spblkSpSV_solve
    ! Replaces the analysed values: all of A's (`SPBLK_SPSV_UPDATE_GENERAL`, nnz values in A's
    ! storage order) or its diagonal (`SPBLK_SPSV_UPDATE_DIAGONAL`, one per row). The values are
    ! copied; `newValues` may be reused once the call's stream reaches it.
    function spblkSpSV_updateMatrix(handle, spsvDescr, newValues, updatePart) bind(C, &
        name="spblkSpSV_updateMatrix")
      import
      integer(c_int32_t) :: spblkSpSV_updateMatrix
      type(c_ptr), value :: handle
      type(c_ptr), value :: spsvDescr
      type(c_ptr), value :: newValues
      integer(c_int32_t), value :: updatePart
    end function spblkSpSV_updateMatrix
    ! `Y = alpha X + beta Y`: Y scaled by beta everywhere, alpha X added at X's positions. alpha
    ! and beta are of the compute type (`double` for R_64F, `float` otherwise).
    function spblkAxpby(handle, alpha, vecX, beta, vecY) bind(C, name="spblkAxpby")
      import
      integer(c_int32_t) :: spblkAxpby
      type(c_ptr), value :: handle
      type(c_ptr), value :: alpha
      type(c_ptr), value :: vecX
      type(c_ptr), value :: beta
      type(c_ptr), value :: vecY
    end function spblkAxpby
    ! `X[k] = Y[indices[k]]`: X's values from Y at X's positions (any value type).
    function spblkGather(handle, vecY, vecX) bind(C, name="spblkGather")
      import
      integer(c_int32_t) :: spblkGather
      type(c_ptr), value :: handle
      type(c_ptr), value :: vecY
      type(c_ptr), value :: vecX
    end function spblkGather
    ! `Y[indices[k]] = X[k]`: X's values into Y at X's positions (any value type); the rest of Y
    ! is unchanged.
    function spblkScatter(handle, vecX, vecY) bind(C, name="spblkScatter")
      import
      integer(c_int32_t) :: spblkScatter
      type(c_ptr), value :: handle
      type(c_ptr), value :: vecX
      type(c_ptr), value :: vecY
    end function spblkScatter
    ! The Givens rotation at X's positions, from the old values of both vectors: `X[k] = c X[k]
    ! + s Y[i]`, `Y[i] = c Y[i] - s X[k]` with `i = indices[k]`.
    function spblkRot(handle, c_coeff, s_coeff, vecX, vecY) bind(C, name="spblkRot")
      import
      integer(c_int32_t) :: spblkRot
      type(c_ptr), value :: handle
      type(c_ptr), value :: c_coeff
      type(c_ptr), value :: s_coeff
      type(c_ptr), value :: vecX
      type(c_ptr), value :: vecY
    end function spblkRot
    ! Workspace size in bytes for `spblkSpVV` (may be 0; then `externalBuffer` may be NULL).
    function spblkSpVV_bufferSize(handle, opX, vecX, vecY, result, computeType, bufferSize) bind(C, &
        name="spblkSpVV_bufferSize")
      import
      integer(c_int32_t) :: spblkSpVV_bufferSize
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opX
      type(c_ptr), value :: vecX
      type(c_ptr), value :: vecY
      type(c_ptr), value :: result
      integer(c_int32_t), value :: computeType
      integer(c_size_t), intent(inout) :: bufferSize
    end function spblkSpVV_bufferSize
    ! `result = op(X) · Y`, a value of the compute type in host memory (pointer mode host: the
    ! call returns once it is written) or device memory (pointer mode device: asynchronous). The
    ! partial sums are added in a fixed order: the same inputs give the same bits.
    function spblkSpVV(handle, opX, vecX, vecY, result, computeType, externalBuffer) bind(C, &
        name="spblkSpVV")
      import
      integer(c_int32_t) :: spblkSpVV
      type(c_ptr), value :: handle
      integer(c_int32_t), value :: opX
      type(c_ptr), value :: vecX
      type(c_ptr), value :: vecY
      type(c_ptr), value :: result
      integer(c_int32_t), value :: computeType
      type(c_ptr), value :: externalBuffer
    end function spblkSpVV
  end interface

contains

  ! The message of this thread's last failed spblk call, e.g.
  ! "spblkSpMV: argument 'vecY' has size 3 but op(A) has 4 rows".
  function spblk_last_error() result(message)
    character(len=:), allocatable :: message
    character(kind=c_char) :: buf(1024)
    integer(c_size_t) :: written
    integer :: i
    written = 0
    if (spblkGetLastErrorMessage(buf, int(size(buf), c_size_t), written) /= SPBLK_STATUS_SUCCESS) written = 0
    allocate(character(len=written) :: message)
    do i = 1, int(written)
      message(i:i) = buf(i)
    end do
  end function spblk_last_error
end module spblk
