/* Bad arguments, systematically (as rocSPARSE's auto_testing_bad_arg): every function of
 * spblk.h is called first with valid arguments (must succeed), then with each pointer argument
 * in turn NULL, destroyed ("stale") and an object of the wrong kind ("foreign"), and each enum
 * argument in turn out of range. Each failure must return the documented status
 * (NOT_INITIALIZED for NULL/destroyed handles and any destroyed or foreign object,
 * INVALID_VALUE otherwise), leave every out-parameter untouched, and leave a message from
 * spblkGetLastErrorMessage that starts with the function and names the argument. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum { PLAIN, HANDLE, SPMAT, DNMAT, DNVEC, SPGEMM, MATDESCR, SPVEC, SPSV, SPSM, CSRIC, CSRILU, KINDS }; /* what a pointer argument points to */

typedef struct {
    const char *name;      /* the parameter's name in spblk.h (cuSPARSE's) */
    void *value;           /* a valid value */
    spblkStatus_t if_null; /* the status when it is NULL */
    int kind;
    size_t out; /* > 0: an out-parameter of this many bytes */
} ptr_arg;

typedef struct {
    const char *name;
    uint32_t value;        /* a valid value */
    spblkStatus_t if_bad;  /* the status when out of range */
} enum_arg;

#define MAX_PTRS 16
#define MAX_ENUMS 5
#define MAX_CASES 200 /* rows of the table: one per function of spblk.h */
typedef struct {
    const char *function;
    spblkStatus_t (*call)(void *const *p, const uint32_t *e);
    ptr_arg p[MAX_PTRS];
    enum_arg e[MAX_ENUMS];
    void (*cleanup)(void *const *p); /* after a successful call: destroy what it created */
    int keeps_message;               /* spblkGetLastErrorMessage: failures leave the message alone */
} fn_case;

#define NI SPBLK_STATUS_NOT_INITIALIZED
#define IV SPBLK_STATUS_INVALID_VALUE
#define OK SPBLK_STATUS_SUCCESS
#define IN(name, value, if_null, kind) {name, (void *)(value), if_null, kind, 0}
#define OUT(name, var) {name, (void *)&(var), IV, PLAIN, sizeof(var)}
#define E(name, value) {name, value, IV}

/* ---- the objects the valid calls use ---------------------------------------------------------- */

static struct {
    spblkHandle_t h;
    spblkSpMatDescr_t a, coo, csc, analyzed, c_sddmm, c_gemm, out_spmat;
    spblkConstSpMatDescr_t out_const_spmat;
    spblkConstDnMatDescr_t out_const_dnmat;
    spblkConstDnVecDescr_t out_const_dnvec;
    spblkAnalysisParams params;
    spblkAnalysisInfo info;
    int64_t perm[4];
    const void *const_values;
    spblkDnVecDescr_t x, y, out_dnvec;
    spblkDnMatDescr_t b, c, da, db, out_dnmat;
    spblkSpGEMMDescr_t gemm, gemm_reuse, out_gemm;
    spblkSpSVDescr_t spsv, out_spsv; /* analysed for A (lower, non-unit) with op N */
    void *spsv_buf;
    size_t spsv_size;
    spblkSpSMDescr_t spsm, out_spsm; /* the same, with B and C */
    void *spsm_buf;
    size_t spsm_size;
    /* csric02/csrilu02 on [[4, 1], [1, 4]] (every diagonal present: zeroPivot answers success),
       analysed; values of both precisions (the factorizations overwrite them). */
    spblkCsric02Info_t ic, out_ic;
    spblkCsrilu02Info_t ilu, out_ilu;
    void *fac_ptr, *fac_col, *fac_val_s, *fac_val_d, *ic_buf, *ilu_buf;
    int ic_size, ilu_size, isize, pivot;
    double tol, boost_d;
    float boost_s;
    spblkMatDescr_t mat_descr, out_mat_descr;
    spblkSpVecDescr_t xs, out_spvec; /* X: size 4, entries at 0 and 3 */
    spblkConstSpVecDescr_t out_const_spvec;
    void *xs_idx, *xs_val, *spvv_buf;
    size_t spvv_size;
    float result;
    const void *const_indices;
    spblkDnMatDescr_t dense_a;  /* A as a 4 x 4 row-major dense matrix */
    spblkSpMatDescr_t d2s_b;    /* CSR made from it */
    void *dense_a_val, *d2s_arrays[3], *d2s_buf;
    size_t d2s_size;
    void *perm4, *coo_rows32, *sort_rows, *sort_cols, *sort_p, *sort_buf, *offsets5;
    size_t sort_size;
    void *geam_off, *geam_col, *geam_val, *geam_dval_a, *geam_dval_c, *geam_buf; /* C = A + A */
    size_t geam_size;
    void *bsr_in_d, *bsr_out_d; /* 8 doubles each: x or B (4 x 2), y or C */
    spblkSpMatDescr_t bsr, bell; /* A as BSR with blocks of 1; a 4 x 4 Blocked-ELL with blocks of 2 */
    int64_t block, ell_cols;
    int geam_total;
    double done;
    spblkMatDescr_t sort_descr; /* zero-based (the setter rows change mat_descr's base) */
    spblkSpMatDescr_t c_reuse;
    void *reuse_arrays[8];
    size_t size3, size4;
    spblkHandle_t out_handle;
    dev_sparse_t a_arrays, coo_arrays, csc_arrays, c_arrays;
    dev_dense_t x_d, y_d, b_d, c_d, da_d, db_d;
    void *gemm_arrays[5], *csr2csc[7], *spmv_buf, *spmm_buf, *sddmm_buf;
    size_t spmv_size, spmm_size, sddmm_size, size;
    float one, zero;
    int64_t rows, cols, nnz, ld;
    void *values;
    spblkIndexType_t itype, itype2;
    spblkIndexBase_t base;
    spblkDataType_t vtype;
    spblkFormat_t format;
    spblkFillMode_t fill, fill_value;
    spblkOrder_t order;
    spblkStream_t stream;
    spblkPointerMode_t mode;
    spblkBackend_t backend;
    int version, property, batch_count;
    int64_t batch_stride;
    char message[64];
    size_t written;
    void *stale[KINDS], *foreign[KINDS];
} F;

static char fresh_marker;
#define FRESH ((void *)&fresh_marker) /* Destroy*: make a new object to destroy */

static const spblkOperation_t N = SPBLK_OPERATION_NON_TRANSPOSE;
static const spblkIndexType_t I32 = SPBLK_INDEX_32I;
static const spblkIndexBase_t BASE0 = SPBLK_INDEX_BASE_ZERO;
static const spblkDataType_t F32 = SPBLK_R_32F;

static void setup(spblkHandle_t h) {
    /* A: 4 x 4 with 6 entries, also the pattern of SDDMM's C. */
    int64_t ptr[5] = {0, 2, 3, 5, 6}, col[6] = {0, 2, 1, 0, 3, 3};
    double val[6] = {1, 2, 3, 4, 5, 6};
    csr_t a;
    layout_t l = {SPBLK_FORMAT_CSR, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F};
    rng_t r = rng_seed(7);
    dense_t x = dense_random(&r, 4, 1, SPBLK_ORDER_COL, F32), b = dense_random(&r, 4, 2, SPBLK_ORDER_COL, F32);
    dense_t c = dense_random(&r, 4, 2, SPBLK_ORDER_COL, F32), da = dense_random(&r, 4, 3, SPBLK_ORDER_ROW, F32);
    dense_t db = dense_random(&r, 3, 4, SPBLK_ORDER_ROW, F32);
    int32_t row_ptr32[5] = {0, 2, 3, 5, 6}, col32[6] = {0, 2, 1, 0, 3, 3};
    size_t size1 = 0, size2 = 0, size3 = 0, size4 = 0, size5 = 0;
    int64_t nnz_c = 0;

    F.h = h;
    F.one = 1.0f;
    a.rows = a.cols = 4;
    a.nnz = 6;
    a.ptr = ptr;
    a.col = col;
    a.val = val;
    F.a_arrays = sparse_upload(&a, l);
    F.a = F.a_arrays.descr;
    F.c_arrays = sparse_upload(&a, l);
    F.c_sddmm = F.c_arrays.descr;
    l.format = SPBLK_FORMAT_COO;
    F.coo_arrays = sparse_upload(&a, l);
    F.coo = F.coo_arrays.descr;
    l.format = SPBLK_FORMAT_CSC;
    F.csc_arrays = sparse_upload(&a, l);
    F.csc = F.csc_arrays.descr;
    /* A second descriptor of A's arrays for the analysis (setters elsewhere drop plans). */
    CHECK(spblkCreateCsr(&F.analyzed, 4, 4, 6, F.a_arrays.major, F.a_arrays.minor, F.a_arrays.val, I32, I32, BASE0,
                         F32));
    CHECK(spblkAnalyze(h, F.analyzed, SPBLK_ANALYSIS_1SA, NULL));
    F.x_d = vector_upload(&x, F32);
    F.y_d = vector_upload(&x, F32);
    F.x = F.x_d.vec;
    F.y = F.y_d.vec;
    F.b_d = dense_upload(&b, F32);
    F.c_d = dense_upload(&c, F32);
    F.da_d = dense_upload(&da, F32);
    F.db_d = dense_upload(&db, F32);
    F.b = F.b_d.mat;
    F.c = F.c_d.mat;
    F.da = F.da_d.mat;
    F.db = F.db_d.mat;
    dense_free(&x);
    dense_free(&b);
    dense_free(&c);
    dense_free(&da);
    dense_free(&db);

    CHECK(spblkSpMV_bufferSize(h, N, &F.one, F.a, F.x, &F.zero, F.y, F32, 0, &F.spmv_size));
    CHECK(spblkSpMM_bufferSize(h, N, N, &F.one, F.a, F.b, &F.zero, F.c, F32, 0, &F.spmm_size));
    CHECK(spblkSDDMM_bufferSize(h, N, N, &F.one, F.da, F.db, &F.zero, F.c_sddmm, F32, 0, &F.sddmm_size));
    F.spmv_buf = F.spmv_size ? dev_alloc(F.spmv_size) : NULL;
    F.spmm_buf = F.spmm_size ? dev_alloc(F.spmm_size) : NULL;
    F.sddmm_buf = F.sddmm_size ? dev_alloc(F.sddmm_size) : NULL;

    /* SpGEMM C = A A, taken through the protocol up to a finished copy. */
    CHECK(spblkCreateCsr(&F.c_gemm, 4, 4, 0, NULL, NULL, NULL, I32, I32, BASE0, F32));
    CHECK(spblkSpGEMM_createDescr(&F.gemm));
    CHECK(spblkSpGEMM_workEstimation(h, N, N, &F.one, F.a, F.a, &F.zero, F.c_gemm, F32, 0, F.gemm, &size1, NULL));
    F.gemm_arrays[0] = dev_alloc(size1);
    CHECK(spblkSpGEMM_workEstimation(h, N, N, &F.one, F.a, F.a, &F.zero, F.c_gemm, F32, 0, F.gemm, &size1,
                                     F.gemm_arrays[0]));
    CHECK(spblkSpGEMM_compute(h, N, N, &F.one, F.a, F.a, &F.zero, F.c_gemm, F32, 0, F.gemm, &size2, NULL));
    F.gemm_arrays[1] = dev_alloc(size2);
    CHECK(spblkSpGEMM_compute(h, N, N, &F.one, F.a, F.a, &F.zero, F.c_gemm, F32, 0, F.gemm, &size2,
                              F.gemm_arrays[1]));
    CHECK(spblkSpMatGetSize(F.c_gemm, &F.rows, &F.cols, &nnz_c));
    F.gemm_arrays[2] = dev_alloc(5 * 4);
    F.gemm_arrays[3] = dev_alloc((size_t)nnz_c * 4);
    F.gemm_arrays[4] = dev_alloc((size_t)nnz_c * 4);
    CHECK(spblkCsrSetPointers(F.c_gemm, F.gemm_arrays[2], F.gemm_arrays[3], F.gemm_arrays[4]));

    /* The reuse path on a second descriptor, up to a finished reuse_copy. */
    CHECK(spblkCreateCsr(&F.c_reuse, 4, 4, 0, NULL, NULL, NULL, I32, I32, BASE0, F32));
    CHECK(spblkSpGEMM_createDescr(&F.gemm_reuse));
    CHECK(spblkSpGEMMreuse_workEstimation(h, N, N, F.a, F.a, F.c_reuse, 0, F.gemm_reuse, &size1, NULL));
    F.reuse_arrays[0] = dev_alloc(size1);
    CHECK(spblkSpGEMMreuse_workEstimation(h, N, N, F.a, F.a, F.c_reuse, 0, F.gemm_reuse, &size1, F.reuse_arrays[0]));
    CHECK(spblkSpGEMMreuse_nnz(h, N, N, F.a, F.a, F.c_reuse, 0, F.gemm_reuse, &size2, NULL, &size3, NULL, &size4,
                               NULL));
    F.reuse_arrays[1] = dev_alloc(size2);
    F.reuse_arrays[2] = dev_alloc(size3);
    F.reuse_arrays[3] = dev_alloc(size4);
    CHECK(spblkSpGEMMreuse_nnz(h, N, N, F.a, F.a, F.c_reuse, 0, F.gemm_reuse, &size2, F.reuse_arrays[1], &size3,
                               F.reuse_arrays[2], &size4, F.reuse_arrays[3]));
    CHECK(spblkSpMatGetSize(F.c_reuse, &F.rows, &F.cols, &nnz_c));
    F.reuse_arrays[4] = dev_alloc(5 * 4);
    F.reuse_arrays[5] = dev_alloc((size_t)nnz_c * 4);
    F.reuse_arrays[6] = dev_alloc((size_t)nnz_c * 4);
    CHECK(spblkCsrSetPointers(F.c_reuse, F.reuse_arrays[4], F.reuse_arrays[5], F.reuse_arrays[6]));
    CHECK(spblkSpGEMMreuse_copy(h, N, N, F.a, F.a, F.c_reuse, 0, F.gemm_reuse, &size5, NULL));
    F.reuse_arrays[7] = dev_alloc(size5);
    CHECK(spblkSpGEMMreuse_copy(h, N, N, F.a, F.a, F.c_reuse, 0, F.gemm_reuse, &size5, F.reuse_arrays[7]));

    /* csr2csc of A: csrVal, csrRowPtr, csrColInd, cscVal, cscColPtr, cscRowInd, buffer. */
    F.csr2csc[0] = F.a_arrays.val;
    F.csr2csc[1] = dev_copy(row_ptr32, sizeof row_ptr32);
    F.csr2csc[2] = dev_copy(col32, sizeof col32);
    F.csr2csc[3] = dev_alloc(6 * 4);
    F.csr2csc[4] = dev_alloc(5 * 4);
    F.csr2csc[5] = dev_alloc(6 * 4);
    /* The buffer as the library sizes it (the CUDA radix sort needs more than a page). */
    CHECK(spblkCsr2cscEx2_bufferSize(h, 4, 4, 6, F.csr2csc[0], F.csr2csc[1], F.csr2csc[2], F.csr2csc[3],
                                     F.csr2csc[4], F.csr2csc[5], F32, SPBLK_ACTION_NUMERIC, BASE0,
                                     SPBLK_CSR2CSC_ALG1, &F.size));
    F.csr2csc[6] = dev_alloc(F.size);

    /* A sparse vector of F.x's size, and SpVV's workspace. */
    {
        int32_t xs_idx[2] = {0, 3};
        float xs_val[2] = {1, 2};
        F.xs_idx = dev_copy(xs_idx, sizeof xs_idx);
        F.xs_val = dev_copy(xs_val, sizeof xs_val);
        CHECK(spblkCreateSpVec(&F.xs, 4, 2, F.xs_idx, F.xs_val, I32, BASE0, F32));
        CHECK(spblkSpVV_bufferSize(h, N, F.xs, F.y, &F.result, F32, &F.spvv_size));
        F.spvv_buf = F.spvv_size ? dev_alloc(F.spvv_size) : NULL;
    }

    /* Dense <-> sparse: A into a dense matrix, and back into a CSR matrix whose arrays are set. */
    F.dense_a_val = dev_alloc(16 * 4);
    CHECK(spblkCreateDnMat(&F.dense_a, 4, 4, 4, F.dense_a_val, F32, SPBLK_ORDER_ROW));
    CHECK(spblkSparseToDense(h, F.a, F.dense_a, SPBLK_SPARSETODENSE_ALG_DEFAULT, NULL));
    F.d2s_arrays[0] = dev_alloc(5 * 4);
    F.d2s_arrays[1] = dev_alloc(6 * 4);
    F.d2s_arrays[2] = dev_alloc(6 * 4);
    CHECK(spblkCreateCsr(&F.d2s_b, 4, 4, 0, F.d2s_arrays[0], NULL, NULL, I32, I32, BASE0, F32));
    CHECK(spblkDenseToSparse_bufferSize(h, F.dense_a, F.d2s_b, SPBLK_DENSETOSPARSE_ALG_DEFAULT, &F.d2s_size));
    F.d2s_buf = F.d2s_size ? dev_alloc(F.d2s_size) : NULL;
    CHECK(spblkDenseToSparse_analysis(h, F.dense_a, F.d2s_b, SPBLK_DENSETOSPARSE_ALG_DEFAULT, F.d2s_buf));
    CHECK(spblkCsrSetPointers(F.d2s_b, F.d2s_arrays[0], F.d2s_arrays[1], F.d2s_arrays[2]));

    /* The legacy index helpers: 32-bit arrays of A (sorted already, so sorting keeps them). */
    {
        int32_t coo_rows[6] = {0, 0, 1, 2, 2, 3}, perm[6] = {0, 1, 2, 3, 4, 5};
        size_t size = 0;
        F.perm4 = dev_alloc(4 * 4);
        F.coo_rows32 = dev_copy(coo_rows, sizeof coo_rows);
        F.sort_rows = dev_copy(coo_rows, sizeof coo_rows);
        F.sort_cols = dev_copy(col32, sizeof col32);
        F.sort_p = dev_copy(perm, sizeof perm);
        F.offsets5 = dev_alloc(5 * 4);
        CHECK(spblkCreateMatDescr(&F.sort_descr));
        CHECK(spblkXcsrsort_bufferSizeExt(h, 4, 4, 6, F.csr2csc[1], F.sort_cols, &F.sort_size));
        CHECK(spblkXcscsort_bufferSizeExt(h, 4, 4, 6, F.csc_arrays.major, F.csc_arrays.minor, &size));
        F.sort_size = size > F.sort_size ? size : F.sort_size;
        CHECK(spblkXcoosort_bufferSizeExt(h, 4, 4, 6, F.sort_rows, F.sort_cols, &size));
        F.sort_size = size > F.sort_size ? size : F.sort_size;
        F.sort_buf = F.sort_size ? dev_alloc(F.sort_size) : NULL;
    }

    /* csrgeam2: C = A + A (A's 32-bit arrays), C's offsets counted here for the fill's rows. */
    {
        double dval[6] = {1, 2, 3, 4, 5, 6};
        F.done = 1.0;
        F.geam_off = dev_alloc(5 * 4);
        F.geam_col = dev_alloc(6 * 4);
        F.geam_val = dev_alloc(6 * 4);
        F.geam_dval_a = dev_copy(dval, sizeof dval);
        F.geam_dval_c = dev_alloc(6 * 8);
        CHECK(spblkScsrgeam2_bufferSizeExt(h, 4, 4, &F.one, F.sort_descr, 6, F.a_arrays.val, F.csr2csc[1],
                                           F.csr2csc[2], &F.one, F.sort_descr, 6, F.a_arrays.val, F.csr2csc[1],
                                           F.csr2csc[2], F.sort_descr, NULL, F.geam_off, NULL, &F.geam_size));
        F.geam_buf = F.geam_size ? dev_alloc(F.geam_size) : NULL;
        CHECK(spblkXcsrgeam2Nnz(h, 4, 4, F.sort_descr, 6, F.csr2csc[1], F.csr2csc[2], F.sort_descr, 6,
                                F.csr2csc[1], F.csr2csc[2], F.sort_descr, F.geam_off, &F.geam_total, F.geam_buf));
        EXPECT(F.geam_total == 6, "spblkXcsrgeam2Nnz: nnz(A + A) = %d, want 6", F.geam_total);
    }
    {
        double ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        F.bsr_in_d = dev_copy(ones, sizeof ones);
        F.bsr_out_d = dev_copy(ones, sizeof ones);
    }
    CHECK(spblkCreateBsr(&F.bsr, 4, 4, 6, 1, 1, F.a_arrays.major, F.a_arrays.minor, F.a_arrays.val, I32, I32, BASE0,
                         F32, SPBLK_ORDER_ROW));
    CHECK(spblkCreateBlockedEll(&F.bell, 4, 4, 2, 2, F.a_arrays.minor, F.c_d.val, I32, BASE0, F32));

    /* SpSV: A's lower triangle, analysed with op N. */
    CHECK(spblkSpSV_createDescr(&F.spsv));
    CHECK(spblkSpSV_bufferSize(h, N, &F.one, F.a, F.x, F.y, F32, SPBLK_SPSV_ALG_DEFAULT, F.spsv, &F.spsv_size));
    F.spsv_buf = F.spsv_size ? dev_alloc(F.spsv_size) : NULL;
    CHECK(spblkSpSV_analysis(h, N, &F.one, F.a, F.x, F.y, F32, SPBLK_SPSV_ALG_DEFAULT, F.spsv, F.spsv_buf));
    CHECK(spblkSpSM_createDescr(&F.spsm));
    CHECK(spblkSpSM_bufferSize(h, N, N, &F.one, F.a, F.b, F.c, F32, SPBLK_SPSM_ALG_DEFAULT, F.spsm, &F.spsm_size));
    F.spsm_buf = F.spsm_size ? dev_alloc(F.spsm_size) : NULL;
    CHECK(spblkSpSM_analysis(h, N, N, &F.one, F.a, F.b, F.c, F32, SPBLK_SPSM_ALG_DEFAULT, F.spsm, F.spsm_buf));

    {
        int32_t fp[3] = {0, 2, 4}, fc[4] = {0, 1, 0, 1};
        float fs[4] = {4, 1, 1, 4};
        double fd[4] = {4, 1, 1, 4};
        F.fac_ptr = dev_copy(fp, sizeof fp);
        F.fac_col = dev_copy(fc, sizeof fc);
        F.fac_val_s = dev_copy(fs, sizeof fs);
        F.fac_val_d = dev_copy(fd, sizeof fd);
        F.tol = 1e-8, F.boost_d = 1.0, F.boost_s = 1.0f;
        CHECK(spblkCreateCsric02Info(&F.ic));
        CHECK(spblkScsric02_bufferSize(h, 2, 4, F.sort_descr, F.fac_val_s, F.fac_ptr, F.fac_col, F.ic, &F.ic_size));
        F.ic_buf = F.ic_size ? dev_alloc((size_t)F.ic_size) : NULL;
        CHECK(spblkScsric02_analysis(h, 2, 4, F.sort_descr, F.fac_val_s, F.fac_ptr, F.fac_col, F.ic,
                                     SPBLK_SOLVE_POLICY_NO_LEVEL, F.ic_buf));
        CHECK(spblkCreateCsrilu02Info(&F.ilu));
        CHECK(spblkScsrilu02_bufferSize(h, 2, 4, F.sort_descr, F.fac_val_s, F.fac_ptr, F.fac_col, F.ilu, &F.ilu_size));
        F.ilu_buf = F.ilu_size ? dev_alloc((size_t)F.ilu_size) : NULL;
        CHECK(spblkScsrilu02_analysis(h, 2, 4, F.sort_descr, F.fac_val_s, F.fac_ptr, F.fac_col, F.ilu,
                                      SPBLK_SOLVE_POLICY_NO_LEVEL, F.ilu_buf));
    }

    /* Destroyed objects of each kind, and live objects of another kind. */
    CHECK(spblkCreateWithBackend((spblkHandle_t *)&F.stale[HANDLE], SPBLK_BACKEND_HOST));
    CHECK(spblkCreateCsr((spblkSpMatDescr_t *)&F.stale[SPMAT], 1, 1, 0, NULL, NULL, NULL, I32, I32, BASE0, F32));
    CHECK(spblkCreateDnMat((spblkDnMatDescr_t *)&F.stale[DNMAT], 1, 1, 1, &F.one, F32, SPBLK_ORDER_COL));
    CHECK(spblkCreateDnVec((spblkDnVecDescr_t *)&F.stale[DNVEC], 1, &F.one, F32));
    CHECK(spblkSpGEMM_createDescr((spblkSpGEMMDescr_t *)&F.stale[SPGEMM]));
    /* The live descriptor first: created after the stale one, it could take its address. */
    CHECK(spblkCreateMatDescr(&F.mat_descr));
    CHECK(spblkCreateMatDescr((spblkMatDescr_t *)&F.stale[MATDESCR]));
    CHECK(spblkDestroyMatDescr(F.stale[MATDESCR]));
    F.foreign[MATDESCR] = F.a;
    CHECK(spblkCreateSpVec((spblkSpVecDescr_t *)&F.stale[SPVEC], 1, 0, NULL, NULL, I32, BASE0, F32));
    CHECK(spblkDestroySpVec(F.stale[SPVEC]));
    F.foreign[SPVEC] = F.x;
    CHECK(spblkSpSV_createDescr((spblkSpSVDescr_t *)&F.stale[SPSV]));
    CHECK(spblkSpSV_destroyDescr(F.stale[SPSV]));
    F.foreign[SPSV] = F.gemm;
    CHECK(spblkSpSM_createDescr((spblkSpSMDescr_t *)&F.stale[SPSM]));
    CHECK(spblkSpSM_destroyDescr(F.stale[SPSM]));
    F.foreign[SPSM] = F.spsv;
    CHECK(spblkCreateCsric02Info((spblkCsric02Info_t *)&F.stale[CSRIC]));
    CHECK(spblkDestroyCsric02Info(F.stale[CSRIC]));
    F.foreign[CSRIC] = F.ilu;
    CHECK(spblkCreateCsrilu02Info((spblkCsrilu02Info_t *)&F.stale[CSRILU]));
    CHECK(spblkDestroyCsrilu02Info(F.stale[CSRILU]));
    F.foreign[CSRILU] = F.ic;
    CHECK(spblkDestroy(F.stale[HANDLE]));
    CHECK(spblkDestroySpMat(F.stale[SPMAT]));
    CHECK(spblkDestroyDnMat(F.stale[DNMAT]));
    CHECK(spblkDestroyDnVec(F.stale[DNVEC]));
    CHECK(spblkSpGEMM_destroyDescr(F.stale[SPGEMM]));
    F.foreign[HANDLE] = F.a;
    F.foreign[SPMAT] = F.x;
    F.foreign[DNMAT] = F.a;
    F.foreign[DNVEC] = F.b;
    F.foreign[SPGEMM] = F.a;
    F.stale[PLAIN] = F.foreign[PLAIN] = NULL;
}

static void teardown(void) {
    int k;
    CHECK(spblkSpGEMM_destroyDescr(F.gemm));
    CHECK(spblkSpSV_destroyDescr(F.spsv));
    if (F.spsv_buf) dev_free(F.spsv_buf);
    CHECK(spblkSpSM_destroyDescr(F.spsm));
    if (F.spsm_buf) dev_free(F.spsm_buf);
    CHECK(spblkDestroyCsric02Info(F.ic));
    CHECK(spblkDestroyCsrilu02Info(F.ilu));
    if (F.ic_buf) dev_free(F.ic_buf);
    if (F.ilu_buf) dev_free(F.ilu_buf);
    dev_free(F.fac_ptr), dev_free(F.fac_col), dev_free(F.fac_val_s), dev_free(F.fac_val_d);
    CHECK(spblkDestroyMatDescr(F.mat_descr));
    CHECK(spblkDestroySpVec(F.xs));
    dev_free(F.perm4);
    CHECK(spblkDestroyMatDescr(F.sort_descr));
    dev_free(F.coo_rows32);
    dev_free(F.sort_rows);
    dev_free(F.sort_cols);
    dev_free(F.sort_p);
    dev_free(F.offsets5);
    if (F.sort_buf) dev_free(F.sort_buf);
    dev_free(F.geam_off);
    dev_free(F.geam_col);
    dev_free(F.geam_val);
    dev_free(F.geam_dval_a);
    dev_free(F.geam_dval_c);
    if (F.geam_buf) dev_free(F.geam_buf);
    dev_free(F.bsr_in_d);
    CHECK(spblkDestroySpMat(F.bsr));
    CHECK(spblkDestroySpMat(F.bell));
    dev_free(F.bsr_out_d);
    CHECK(spblkDestroyDnMat(F.dense_a));
    CHECK(spblkDestroySpMat(F.d2s_b));
    dev_free(F.dense_a_val);
    for (k = 0; k < 3; k++) dev_free(F.d2s_arrays[k]);
    if (F.d2s_buf) dev_free(F.d2s_buf);
    dev_free(F.xs_idx);
    dev_free(F.xs_val);
    if (F.spvv_buf) dev_free(F.spvv_buf);
    CHECK(spblkDestroySpMat(F.c_gemm));
    CHECK(spblkSpGEMM_destroyDescr(F.gemm_reuse));
    CHECK(spblkDestroySpMat(F.c_reuse));
    for (k = 0; k < 8; k++) dev_free(F.reuse_arrays[k]);
    sparse_free(&F.a_arrays);
    sparse_free(&F.coo_arrays);
    sparse_free(&F.csc_arrays);
    CHECK(spblkDestroySpMat(F.analyzed));
    sparse_free(&F.c_arrays);
    dev_dense_free(&F.x_d);
    dev_dense_free(&F.y_d);
    dev_dense_free(&F.b_d);
    dev_dense_free(&F.c_d);
    dev_dense_free(&F.da_d);
    dev_dense_free(&F.db_d);
    for (k = 0; k < 5; k++) dev_free(F.gemm_arrays[k]);
    for (k = 1; k < 7; k++) dev_free(F.csr2csc[k]);
    if (F.spmv_buf) dev_free(F.spmv_buf);
    if (F.spmm_buf) dev_free(F.spmm_buf);
    if (F.sddmm_buf) dev_free(F.sddmm_buf);
}

/* Fresh objects for the Destroy* calls. */
static void *new_spmat(void) {
    spblkSpMatDescr_t d = NULL;
    CHECK(spblkCreateCsr(&d, 1, 1, 0, NULL, NULL, NULL, I32, I32, BASE0, F32));
    return d;
}
static void *new_dnmat(void) {
    spblkDnMatDescr_t d = NULL;
    CHECK(spblkCreateDnMat(&d, 1, 1, 1, &F.one, F32, SPBLK_ORDER_COL));
    return d;
}
static void *new_dnvec(void) {
    spblkDnVecDescr_t d = NULL;
    CHECK(spblkCreateDnVec(&d, 1, &F.one, F32));
    return d;
}
static void *new_gemm(void) {
    spblkSpGEMMDescr_t d = NULL;
    CHECK(spblkSpGEMM_createDescr(&d));
    return d;
}
static void *new_spsv(void) {
    spblkSpSVDescr_t d = NULL;
    CHECK(spblkSpSV_createDescr(&d));
    return d;
}
static void *new_spsm(void) {
    spblkSpSMDescr_t d = NULL;
    CHECK(spblkSpSM_createDescr(&d));
    return d;
}
static void *new_ic(void) {
    spblkCsric02Info_t d = NULL;
    CHECK(spblkCreateCsric02Info(&d));
    return d;
}
static void *new_ilu(void) {
    spblkCsrilu02Info_t d = NULL;
    CHECK(spblkCreateCsrilu02Info(&d));
    return d;
}
static void *new_handle(void) {
    spblkHandle_t d = NULL;
    CHECK(spblkCreateWithBackend(&d, SPBLK_BACKEND_HOST));
    return d;
}

/* After a successful create: destroy what p[0] received. */
static void destroy_spmat(void *const *p) { CHECK(spblkDestroySpMat(*(spblkSpMatDescr_t *)p[0])); }
static void destroy_dnmat(void *const *p) { CHECK(spblkDestroyDnMat(*(spblkDnMatDescr_t *)p[0])); }
static void destroy_dnvec(void *const *p) { CHECK(spblkDestroyDnVec(*(spblkDnVecDescr_t *)p[0])); }
static void destroy_gemm(void *const *p) { CHECK(spblkSpGEMM_destroyDescr(*(spblkSpGEMMDescr_t *)p[0])); }
static void destroy_spsv(void *const *p) { CHECK(spblkSpSV_destroyDescr(*(spblkSpSVDescr_t *)p[0])); }
static void destroy_spsm(void *const *p) { CHECK(spblkSpSM_destroyDescr(*(spblkSpSMDescr_t *)p[0])); }
static void destroy_ic(void *const *p) { CHECK(spblkDestroyCsric02Info(*(spblkCsric02Info_t *)p[0])); }
static void destroy_ilu(void *const *p) { CHECK(spblkDestroyCsrilu02Info(*(spblkCsrilu02Info_t *)p[0])); }
static void destroy_handle(void *const *p) { CHECK(spblkDestroy(*(spblkHandle_t *)p[0])); }

/* ---- one wrapper per function: pointer arguments from p, enums from e ------------------------ */

static spblkStatus_t call_Csr2cscEx2_bufferSize(void *const *p, const uint32_t *e) {
    return spblkCsr2cscEx2_bufferSize(p[0], 4, 4, 6, p[1], p[2], p[3], p[4], p[5], p[6], e[0], e[1], e[2], e[3], p[7]);
}
static spblkStatus_t call_Csr2cscEx2(void *const *p, const uint32_t *e) {
    return spblkCsr2cscEx2(p[0], 4, 4, 6, p[1], p[2], p[3], p[4], p[5], p[6], e[0], e[1], e[2], e[3], p[7]);
}
static spblkStatus_t call_CreateDnMat(void *const *p, const uint32_t *e) {
    return spblkCreateDnMat(p[0], 4, 2, 4, p[1], e[0], e[1]);
}
static spblkStatus_t call_DestroyDnMat(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDestroyDnMat(p[0] == FRESH ? new_dnmat() : p[0]);
}
static spblkStatus_t call_DnMatGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDnMatGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
}
static spblkStatus_t call_DnMatGetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDnMatGetValues(p[0], p[1]);
}
static spblkStatus_t call_DnMatSetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDnMatSetValues(p[0], p[1]);
}
static spblkStatus_t call_CreateDnVec(void *const *p, const uint32_t *e) { return spblkCreateDnVec(p[0], 4, p[1], e[0]); }
static spblkStatus_t call_DestroyDnVec(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDestroyDnVec(p[0] == FRESH ? new_dnvec() : p[0]);
}
static spblkStatus_t call_DnVecGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDnVecGet(p[0], p[1], p[2], p[3]);
}
static spblkStatus_t call_DnVecGetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDnVecGetValues(p[0], p[1]);
}
static spblkStatus_t call_DnVecSetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDnVecSetValues(p[0], p[1]);
}
static spblkStatus_t call_Create(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCreate(p[0]);
}
static spblkStatus_t call_CreateWithBackend(void *const *p, const uint32_t *e) {
    return spblkCreateWithBackend(p[0], e[0]);
}
static spblkStatus_t call_Destroy(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDestroy(p[0] == FRESH ? new_handle() : p[0]);
}
static spblkStatus_t call_GetBackend(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkGetBackend(p[0], p[1]);
}
static spblkStatus_t call_SetStream(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSetStream(p[0], p[1]);
}
static spblkStatus_t call_GetStream(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkGetStream(p[0], p[1]);
}
static spblkStatus_t call_GetVersion(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkGetVersion(p[0], p[1]);
}
static spblkStatus_t call_GetProperty(void *const *p, const uint32_t *e) { return spblkGetProperty(e[0], p[0]); }
/* The two functions that cannot fail: "success" is a static, non-NULL text. */
static spblkStatus_t call_GetErrorName(void *const *p, const uint32_t *e) {
    const char *name = spblkGetErrorName(e[0]);
    (void)p;
    return name != NULL && strncmp(name, "SPBLK_STATUS_", 13) == 0 ? OK : SPBLK_STATUS_INTERNAL_ERROR;
}
static spblkStatus_t call_GetErrorString(void *const *p, const uint32_t *e) {
    const char *text = spblkGetErrorString(e[0]);
    (void)p;
    return text != NULL && text[0] != '\0' ? OK : SPBLK_STATUS_INTERNAL_ERROR;
}
/* Its valid call reports NOT_SUPPORTED by design: "success" is that status and its message. */
static spblkStatus_t call_CompatNotSupported(void *const *p, const uint32_t *e) {
    spblkStatus_t status = spblkCompatNotSupported(p[0]);
    (void)e;
    if (status != SPBLK_STATUS_NOT_SUPPORTED) return status;
    return strcmp(last_error(), "cusparseXcsrsort: not implemented by spblk (it returns CUSPARSE_STATUS_NOT_SUPPORTED)") == 0
               ? OK
               : SPBLK_STATUS_INTERNAL_ERROR;
}
static spblkStatus_t call_GetLastErrorMessage(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkGetLastErrorMessage(p[0], sizeof F.message, p[1]);
}
static spblkStatus_t call_SetPointerMode(void *const *p, const uint32_t *e) { return spblkSetPointerMode(p[0], e[0]); }
static spblkStatus_t call_GetPointerMode(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkGetPointerMode(p[0], p[1]);
}
/* SpMV, SpMM, SDDMM: p = handle, alpha, A, B/X, beta, C/Y, bufferSize/externalBuffer;
 * e = opA, [opB,] computeType, alg. */
static spblkStatus_t call_SpMV_bufferSize(void *const *p, const uint32_t *e) {
    return spblkSpMV_bufferSize(p[0], e[0], p[1], p[2], p[3], p[4], p[5], e[1], e[2], p[6]);
}
static spblkStatus_t call_SpMV_preprocess(void *const *p, const uint32_t *e) {
    return spblkSpMV_preprocess(p[0], e[0], p[1], p[2], p[3], p[4], p[5], e[1], e[2], p[6]);
}
static spblkStatus_t call_SpMV(void *const *p, const uint32_t *e) {
    return spblkSpMV(p[0], e[0], p[1], p[2], p[3], p[4], p[5], e[1], e[2], p[6]);
}
static spblkStatus_t call_SpMM_bufferSize(void *const *p, const uint32_t *e) {
    return spblkSpMM_bufferSize(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6]);
}
static spblkStatus_t call_SpMM_preprocess(void *const *p, const uint32_t *e) {
    return spblkSpMM_preprocess(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6]);
}
static spblkStatus_t call_SpMM(void *const *p, const uint32_t *e) {
    return spblkSpMM(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6]);
}
static spblkStatus_t call_SDDMM_bufferSize(void *const *p, const uint32_t *e) {
    return spblkSDDMM_bufferSize(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6]);
}
static spblkStatus_t call_SDDMM_preprocess(void *const *p, const uint32_t *e) {
    return spblkSDDMM_preprocess(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6]);
}
static spblkStatus_t call_SDDMM(void *const *p, const uint32_t *e) {
    return spblkSDDMM(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6]);
}
/* Create{Csr,ConstCsr,Csc}: p = descr, offsets, indices, values; e = offset type, index type,
 * base, value type. */
static spblkStatus_t call_CreateCsr(void *const *p, const uint32_t *e) {
    return spblkCreateCsr(p[0], 4, 4, 6, p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
}
static spblkStatus_t call_CreateConstCsr(void *const *p, const uint32_t *e) {
    return spblkCreateConstCsr(p[0], 4, 4, 6, p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
}
static spblkStatus_t call_CreateCsc(void *const *p, const uint32_t *e) {
    return spblkCreateCsc(p[0], 4, 4, 6, p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
}
static spblkStatus_t call_CreateCoo(void *const *p, const uint32_t *e) {
    return spblkCreateCoo(p[0], 4, 4, 6, p[1], p[2], p[3], e[0], e[1], e[2]);
}
static spblkStatus_t call_DestroySpMat(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDestroySpMat(p[0] == FRESH ? new_spmat() : p[0]);
}
static spblkStatus_t call_SpMatGetSize(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpMatGetSize(p[0], p[1], p[2], p[3]);
}
static spblkStatus_t call_SpMatGetFormat(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpMatGetFormat(p[0], p[1]);
}
static spblkStatus_t call_SpMatGetIndexBase(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpMatGetIndexBase(p[0], p[1]);
}
static spblkStatus_t call_SpMatGetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpMatGetValues(p[0], p[1]);
}
static spblkStatus_t call_SpMatSetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpMatSetValues(p[0], p[1]);
}
static spblkStatus_t call_SpMatGetAttribute(void *const *p, const uint32_t *e) {
    return spblkSpMatGetAttribute(p[0], e[0], p[1], sizeof(spblkFillMode_t));
}
static spblkStatus_t call_SpMatSetAttribute(void *const *p, const uint32_t *e) {
    return spblkSpMatSetAttribute(p[0], e[0], p[1], sizeof(spblkFillMode_t));
}
static spblkStatus_t call_CsrGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCsrGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10]);
}
static spblkStatus_t call_CooGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCooGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]);
}
static spblkStatus_t call_CsrSetPointers(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCsrSetPointers(p[0], p[1], p[2], p[3]);
}
static spblkStatus_t call_SpGEMM_createDescr(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpGEMM_createDescr(p[0]);
}
static spblkStatus_t call_SpGEMM_destroyDescr(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpGEMM_destroyDescr(p[0] == FRESH ? new_gemm() : p[0]);
}
static spblkStatus_t call_SpSV_createDescr(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpSV_createDescr(p[0]);
}
static spblkStatus_t call_SpSV_destroyDescr(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpSV_destroyDescr(p[0] == FRESH ? new_spsv() : p[0]);
}
/* SpSV: p = handle, alpha, A, x, y, spsvDescr[, bufferSize or buffer]; e = opA, computeType, alg. */
static spblkStatus_t call_SpSV_bufferSize(void *const *p, const uint32_t *e) {
    return spblkSpSV_bufferSize(p[0], e[0], p[1], p[2], p[3], p[4], e[1], e[2], p[5], p[6]);
}
static spblkStatus_t call_SpSV_analysis(void *const *p, const uint32_t *e) {
    return spblkSpSV_analysis(p[0], e[0], p[1], p[2], p[3], p[4], e[1], e[2], p[5], p[6]);
}
static spblkStatus_t call_SpSV_solve(void *const *p, const uint32_t *e) {
    return spblkSpSV_solve(p[0], e[0], p[1], p[2], p[3], p[4], e[1], e[2], p[5]);
}
static spblkStatus_t call_SpSV_updateMatrix(void *const *p, const uint32_t *e) {
    return spblkSpSV_updateMatrix(p[0], p[1], p[2], e[0]);
}
static spblkStatus_t call_SpSM_createDescr(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpSM_createDescr(p[0]);
}
static spblkStatus_t call_SpSM_destroyDescr(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpSM_destroyDescr(p[0] == FRESH ? new_spsm() : p[0]);
}
/* SpSM: p = handle, alpha, A, B, C, spsmDescr[, bufferSize or buffer]; e = opA, opB, computeType, alg. */
static spblkStatus_t call_SpSM_bufferSize(void *const *p, const uint32_t *e) {
    return spblkSpSM_bufferSize(p[0], e[0], e[1], p[1], p[2], p[3], p[4], e[2], e[3], p[5], p[6]);
}
static spblkStatus_t call_SpSM_analysis(void *const *p, const uint32_t *e) {
    return spblkSpSM_analysis(p[0], e[0], e[1], p[1], p[2], p[3], p[4], e[2], e[3], p[5], p[6]);
}
static spblkStatus_t call_SpSM_solve(void *const *p, const uint32_t *e) {
    return spblkSpSM_solve(p[0], e[0], e[1], p[1], p[2], p[3], p[4], e[2], e[3], p[5]);
}
static spblkStatus_t call_SpSM_updateMatrix(void *const *p, const uint32_t *e) {
    return spblkSpSM_updateMatrix(p[0], p[1], p[2], e[0]);
}
static spblkStatus_t call_CreateCsric02Info(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCreateCsric02Info(p[0]);
}
static spblkStatus_t call_DestroyCsric02Info(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDestroyCsric02Info(p[0] == FRESH ? new_ic() : p[0]);
}
static spblkStatus_t call_CreateCsrilu02Info(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCreateCsrilu02Info(p[0]);
}
static spblkStatus_t call_DestroyCsrilu02Info(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDestroyCsrilu02Info(p[0] == FRESH ? new_ilu() : p[0]);
}
/* csric02/csrilu02 on 2 x 2 with 4 entries: p = handle, descrA, values, rowPtr, colInd, info[,
   size or buffer]; e = policy. */
#define FAC_ARGS p[0], 2, 4, p[1], p[2], p[3], p[4], p[5]
static spblkStatus_t call_Scsric02_bufferSize(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkScsric02_bufferSize(FAC_ARGS, p[6]);
}
static spblkStatus_t call_Dcsric02_bufferSize(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDcsric02_bufferSize(FAC_ARGS, p[6]);
}
static spblkStatus_t call_Scsric02_analysis(void *const *p, const uint32_t *e) { return spblkScsric02_analysis(FAC_ARGS, e[0], p[6]); }
static spblkStatus_t call_Dcsric02_analysis(void *const *p, const uint32_t *e) { return spblkDcsric02_analysis(FAC_ARGS, e[0], p[6]); }
static spblkStatus_t call_Scsric02(void *const *p, const uint32_t *e) { return spblkScsric02(FAC_ARGS, e[0], p[6]); }
static spblkStatus_t call_Dcsric02(void *const *p, const uint32_t *e) { return spblkDcsric02(FAC_ARGS, e[0], p[6]); }
static spblkStatus_t call_Scsrilu02_bufferSize(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkScsrilu02_bufferSize(FAC_ARGS, p[6]);
}
static spblkStatus_t call_Dcsrilu02_bufferSize(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDcsrilu02_bufferSize(FAC_ARGS, p[6]);
}
static spblkStatus_t call_Scsrilu02_analysis(void *const *p, const uint32_t *e) { return spblkScsrilu02_analysis(FAC_ARGS, e[0], p[6]); }
static spblkStatus_t call_Dcsrilu02_analysis(void *const *p, const uint32_t *e) { return spblkDcsrilu02_analysis(FAC_ARGS, e[0], p[6]); }
static spblkStatus_t call_Scsrilu02(void *const *p, const uint32_t *e) { return spblkScsrilu02(FAC_ARGS, e[0], p[6]); }
static spblkStatus_t call_Dcsrilu02(void *const *p, const uint32_t *e) { return spblkDcsrilu02(FAC_ARGS, e[0], p[6]); }
static spblkStatus_t call_Xcsric02_zeroPivot(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcsric02_zeroPivot(p[0], p[1], p[2]);
}
static spblkStatus_t call_Xcsrilu02_zeroPivot(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcsrilu02_zeroPivot(p[0], p[1], p[2]);
}
static spblkStatus_t call_Scsrilu02_numericBoost(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkScsrilu02_numericBoost(p[0], p[1], 1, p[2], p[3]);
}
static spblkStatus_t call_Dcsrilu02_numericBoost(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDcsrilu02_numericBoost(p[0], p[1], 1, p[2], p[3]);
}
/* SpGEMM: p = handle, alpha, A, B, beta, C, spgemmDescr[, bufferSize, buffer];
 * e = opA, opB, computeType, alg. */
static spblkStatus_t call_SpGEMM_workEstimation(void *const *p, const uint32_t *e) {
    return spblkSpGEMM_workEstimation(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6], p[7], p[8]);
}
static spblkStatus_t call_SpGEMM_compute(void *const *p, const uint32_t *e) {
    return spblkSpGEMM_compute(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6], p[7], p[8]);
}
static spblkStatus_t call_SpGEMM_copy(void *const *p, const uint32_t *e) {
    return spblkSpGEMM_copy(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6]);
}
static spblkStatus_t call_SpGEMM_estimateMemory(void *const *p, const uint32_t *e) {
    return spblkSpGEMM_estimateMemory(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6], 0.2f, p[7],
                                      p[8], p[9]);
}
static spblkStatus_t call_SpGEMM_getNumProducts(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpGEMM_getNumProducts(p[0], p[1]);
}
/* Reuse path set-up: p = handle, A, B, C, spgemmDescr, then (bufferSize, buffer) pairs;
 * e = opA, opB, alg. reuse_compute takes SpGEMM's arguments (as copy). */
static spblkStatus_t call_SpGEMMreuse_workEstimation(void *const *p, const uint32_t *e) {
    return spblkSpGEMMreuse_workEstimation(p[0], e[0], e[1], p[1], p[2], p[3], e[2], p[4], p[5], p[6]);
}
static spblkStatus_t call_SpGEMMreuse_nnz(void *const *p, const uint32_t *e) {
    return spblkSpGEMMreuse_nnz(p[0], e[0], e[1], p[1], p[2], p[3], e[2], p[4], p[5], p[6], p[7], p[8], p[9], p[10]);
}
static spblkStatus_t call_SpGEMMreuse_copy(void *const *p, const uint32_t *e) {
    return spblkSpGEMMreuse_copy(p[0], e[0], e[1], p[1], p[2], p[3], e[2], p[4], p[5], p[6]);
}
static spblkStatus_t call_SpGEMMreuse_compute(void *const *p, const uint32_t *e) {
    return spblkSpGEMMreuse_compute(p[0], e[0], e[1], p[1], p[2], p[3], p[4], p[5], e[2], e[3], p[6]);
}

static spblkStatus_t call_AnalysisParamsInit(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkAnalysisParamsInit(p[0], sizeof(spblkAnalysisParams));
}
static spblkStatus_t call_Analyze(void *const *p, const uint32_t *e) { return spblkAnalyze(p[0], p[1], e[0], p[2]); }
static spblkStatus_t call_AnalysisGetInfo(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkAnalysisGetInfo(p[0], p[1]);
}
static spblkStatus_t call_AnalysisGetPermutation(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkAnalysisGetPermutation(p[0], p[1]);
}
static spblkStatus_t call_CreateConstDnMat(void *const *p, const uint32_t *e) {
    return spblkCreateConstDnMat(p[0], 4, 2, 4, p[1], e[0], e[1]);
}
static spblkStatus_t call_CreateConstDnVec(void *const *p, const uint32_t *e) {
    return spblkCreateConstDnVec(p[0], 4, p[1], e[0]);
}
static spblkStatus_t call_ConstDnMatGetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstDnMatGetValues(p[0], p[1]);
}
static spblkStatus_t call_ConstDnVecGetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstDnVecGetValues(p[0], p[1]);
}
static spblkStatus_t call_CreateConstCsc(void *const *p, const uint32_t *e) {
    return spblkCreateConstCsc(p[0], 4, 4, 6, p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
}
static spblkStatus_t call_CreateConstCoo(void *const *p, const uint32_t *e) {
    return spblkCreateConstCoo(p[0], 4, 4, 6, p[1], p[2], p[3], e[0], e[1], e[2]);
}
static spblkStatus_t call_ConstSpMatGetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstSpMatGetValues(p[0], p[1]);
}
static spblkStatus_t call_CscGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCscGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10]);
}
static spblkStatus_t call_ConstCsrGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstCsrGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10]);
}
static spblkStatus_t call_ConstCscGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstCscGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10]);
}
static spblkStatus_t call_ConstCooGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstCooGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]);
}
static spblkStatus_t call_ConstDnMatGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstDnMatGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
}
static spblkStatus_t call_ConstDnVecGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstDnVecGet(p[0], p[1], p[2], p[3]);
}
/* One batch with valid strides: the shared objects stay single matrices. */
/* The blocked formats: A's arrays as BSR with blocks of 1, a 4 x 4 Blocked-ELL with blocks of 2
 * and 2 ELL columns, a Sliced-ELL with slices of 2 rows and 6 slots. */
static spblkStatus_t call_CreateBsr(void *const *p, const uint32_t *e) {
    return spblkCreateBsr(p[0], 4, 4, 6, 1, 1, p[1], p[2], p[3], e[0], e[1], e[2], e[3], e[4]);
}
static spblkStatus_t call_CreateConstBsr(void *const *p, const uint32_t *e) {
    return spblkCreateConstBsr(p[0], 4, 4, 6, 1, 1, p[1], p[2], p[3], e[0], e[1], e[2], e[3], e[4]);
}
static spblkStatus_t call_CreateBlockedEll(void *const *p, const uint32_t *e) {
    return spblkCreateBlockedEll(p[0], 4, 4, 2, 2, p[1], p[2], e[0], e[1], e[2]);
}
static spblkStatus_t call_CreateConstBlockedEll(void *const *p, const uint32_t *e) {
    return spblkCreateConstBlockedEll(p[0], 4, 4, 2, 2, p[1], p[2], e[0], e[1], e[2]);
}
static spblkStatus_t call_CreateSlicedEll(void *const *p, const uint32_t *e) {
    return spblkCreateSlicedEll(p[0], 4, 4, 6, 6, 2, p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
}
static spblkStatus_t call_CreateConstSlicedEll(void *const *p, const uint32_t *e) {
    return spblkCreateConstSlicedEll(p[0], 4, 4, 6, 6, 2, p[1], p[2], p[3], e[0], e[1], e[2], e[3]);
}
static spblkStatus_t call_BlockedEllGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkBlockedEllGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]);
}
static spblkStatus_t call_ConstBlockedEllGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstBlockedEllGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9]);
}
static spblkStatus_t call_BsrSetStridedBatch(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkBsrSetStridedBatch(p[0], 2, 5, 6, 6);
}
static spblkStatus_t call_CsrSetStridedBatch(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCsrSetStridedBatch(p[0], 1, 5, 6);
}
static spblkStatus_t call_CooSetStridedBatch(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCooSetStridedBatch(p[0], 1, 6);
}
static spblkStatus_t call_SpMatGetStridedBatch(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpMatGetStridedBatch(p[0], p[1]);
}
static spblkStatus_t call_DnMatSetStridedBatch(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDnMatSetStridedBatch(p[0], 1, 0);
}
static spblkStatus_t call_DnMatGetStridedBatch(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDnMatGetStridedBatch(p[0], p[1], p[2]);
}
/* Legacy matrix descriptors. The getters return a value and no status: SPBLK_MAT_DESCR_INVALID
 * marks a failure, whose status the message tells (NOT_INITIALIZED for a dead descriptor). */
static spblkStatus_t getter_status(uint32_t value, const void *descr) {
    if (value != SPBLK_MAT_DESCR_INVALID) return OK;
    return descr == NULL ? IV : NI;
}
static void destroy_mat_descr(void *const *p) { CHECK(spblkDestroyMatDescr(*(spblkMatDescr_t *)p[0])); }
static void *new_mat_descr(void) {
    spblkMatDescr_t d = NULL;
    CHECK(spblkCreateMatDescr(&d));
    return d;
}
static spblkStatus_t call_CreateMatDescr(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCreateMatDescr(p[0]);
}
static spblkStatus_t call_DestroyMatDescr(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDestroyMatDescr(p[0] == FRESH ? new_mat_descr() : p[0]);
}
static spblkStatus_t call_SetMatType(void *const *p, const uint32_t *e) { return spblkSetMatType(p[0], e[0]); }
static spblkStatus_t call_SetMatFillMode(void *const *p, const uint32_t *e) { return spblkSetMatFillMode(p[0], e[0]); }
static spblkStatus_t call_SetMatDiagType(void *const *p, const uint32_t *e) { return spblkSetMatDiagType(p[0], e[0]); }
static spblkStatus_t call_SetMatIndexBase(void *const *p, const uint32_t *e) {
    return spblkSetMatIndexBase(p[0], e[0]);
}
static spblkStatus_t call_GetMatType(void *const *p, const uint32_t *e) {
    (void)e;
    return getter_status(spblkGetMatType(p[0]), p[0]);
}
static spblkStatus_t call_GetMatFillMode(void *const *p, const uint32_t *e) {
    (void)e;
    return getter_status(spblkGetMatFillMode(p[0]), p[0]);
}
static spblkStatus_t call_GetMatDiagType(void *const *p, const uint32_t *e) {
    (void)e;
    return getter_status(spblkGetMatDiagType(p[0]), p[0]);
}
static spblkStatus_t call_GetMatIndexBase(void *const *p, const uint32_t *e) {
    (void)e;
    return getter_status(spblkGetMatIndexBase(p[0]), p[0]);
}
static spblkStatus_t call_CscSetPointers(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCscSetPointers(p[0], p[1], p[2], p[3]);
}
static spblkStatus_t call_CooSetPointers(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCooSetPointers(p[0], p[1], p[2], p[3]);
}

/* Sparse vectors: X of size 4 with 2 entries. */
static void destroy_spvec(void *const *p) { CHECK(spblkDestroySpVec(*(spblkSpVecDescr_t *)p[0])); }
static void *new_spvec(void) {
    spblkSpVecDescr_t d = NULL;
    CHECK(spblkCreateSpVec(&d, 4, 0, NULL, NULL, I32, BASE0, F32));
    return d;
}
static spblkStatus_t call_CreateSpVec(void *const *p, const uint32_t *e) {
    return spblkCreateSpVec(p[0], 4, 2, p[1], p[2], e[0], e[1], e[2]);
}
static spblkStatus_t call_CreateConstSpVec(void *const *p, const uint32_t *e) {
    return spblkCreateConstSpVec(p[0], 4, 2, p[1], p[2], e[0], e[1], e[2]);
}
static spblkStatus_t call_DestroySpVec(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDestroySpVec(p[0] == FRESH ? new_spvec() : p[0]);
}
static spblkStatus_t call_SpVecGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpVecGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
}
static spblkStatus_t call_ConstSpVecGet(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstSpVecGet(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
}
static spblkStatus_t call_SpVecGetIndexBase(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpVecGetIndexBase(p[0], p[1]);
}
static spblkStatus_t call_SpVecGetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpVecGetValues(p[0], p[1]);
}
static spblkStatus_t call_ConstSpVecGetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkConstSpVecGetValues(p[0], p[1]);
}
static spblkStatus_t call_SpVecSetValues(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkSpVecSetValues(p[0], p[1]);
}
static spblkStatus_t call_Axpby(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkAxpby(p[0], p[1], p[2], p[3], p[4]);
}
static spblkStatus_t call_Gather(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkGather(p[0], p[1], p[2]);
}
static spblkStatus_t call_Scatter(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkScatter(p[0], p[1], p[2]);
}
static spblkStatus_t call_Rot(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkRot(p[0], p[1], p[2], p[3], p[4]);
}
static spblkStatus_t call_SpVV_bufferSize(void *const *p, const uint32_t *e) {
    return spblkSpVV_bufferSize(p[0], e[0], p[1], p[2], p[3], e[1], p[4]);
}
static spblkStatus_t call_SpVV(void *const *p, const uint32_t *e) {
    return spblkSpVV(p[0], e[0], p[1], p[2], p[3], e[1], p[4]);
}

/* Dense <-> sparse. */
static spblkStatus_t call_SparseToDense_bufferSize(void *const *p, const uint32_t *e) {
    return spblkSparseToDense_bufferSize(p[0], p[1], p[2], e[0], p[3]);
}
static spblkStatus_t call_SparseToDense(void *const *p, const uint32_t *e) {
    return spblkSparseToDense(p[0], p[1], p[2], e[0], p[3]);
}
static spblkStatus_t call_DenseToSparse_bufferSize(void *const *p, const uint32_t *e) {
    return spblkDenseToSparse_bufferSize(p[0], p[1], p[2], e[0], p[3]);
}
static spblkStatus_t call_DenseToSparse_analysis(void *const *p, const uint32_t *e) {
    return spblkDenseToSparse_analysis(p[0], p[1], p[2], e[0], p[3]);
}
static spblkStatus_t call_DenseToSparse_convert(void *const *p, const uint32_t *e) {
    return spblkDenseToSparse_convert(p[0], p[1], p[2], e[0], p[3]);
}

/* The legacy index helpers (4 x 4, 6 entries, 32-bit indices). */
static spblkStatus_t call_CreateIdentityPermutation(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkCreateIdentityPermutation(p[0], 4, p[1]);
}
static spblkStatus_t call_Xcsr2coo(void *const *p, const uint32_t *e) {
    return spblkXcsr2coo(p[0], p[1], 6, 4, p[2], e[0]);
}
static spblkStatus_t call_Xcoo2csr(void *const *p, const uint32_t *e) {
    return spblkXcoo2csr(p[0], p[1], 6, 4, p[2], e[0]);
}
static spblkStatus_t call_Xcsrsort_bufferSizeExt(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcsrsort_bufferSizeExt(p[0], 4, 4, 6, p[1], p[2], p[3]);
}
static spblkStatus_t call_Xcsrsort(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcsrsort(p[0], 4, 4, 6, p[1], p[2], p[3], p[4], p[5]);
}
static spblkStatus_t call_Xcscsort_bufferSizeExt(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcscsort_bufferSizeExt(p[0], 4, 4, 6, p[1], p[2], p[3]);
}
static spblkStatus_t call_Xcscsort(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcscsort(p[0], 4, 4, 6, p[1], p[2], p[3], p[4], p[5]);
}
static spblkStatus_t call_Xcoosort_bufferSizeExt(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcoosort_bufferSizeExt(p[0], 4, 4, 6, p[1], p[2], p[3]);
}
static spblkStatus_t call_XcoosortByRow(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcoosortByRow(p[0], 4, 4, 6, p[1], p[2], p[3], p[4]);
}
static spblkStatus_t call_XcoosortByColumn(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcoosortByColumn(p[0], 4, 4, 6, p[1], p[2], p[3], p[4]);
}

/* csrgeam2: p = handle, alpha, descrA, valA, rowPtrA, colIndA, beta, descrB, valB, rowPtrB, colIndB,
 * descrC, valC, rowPtrC, colIndC, then pBufferSizeInBytes or pBuffer (Nnz: without the values
 * and scalars, then nnzTotalDevHostPtr and workspace). A and B have 6 entries of 4 x 4. */
#define GEAM_ARGS(V)                                                                                           \
    p[0], 4, 4, p[1], p[2], 6, (const V *)p[3], p[4], p[5], p[6], p[7], 6, (const V *)p[8], p[9], p[10], p[11], \
        p[12], p[13], p[14]
static spblkStatus_t call_Scsrgeam2_bufferSizeExt(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkScsrgeam2_bufferSizeExt(GEAM_ARGS(float), p[15]);
}
static spblkStatus_t call_Dcsrgeam2_bufferSizeExt(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDcsrgeam2_bufferSizeExt(GEAM_ARGS(double), p[15]);
}
static spblkStatus_t call_Xcsrgeam2Nnz(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkXcsrgeam2Nnz(p[0], 4, 4, p[1], 6, p[2], p[3], p[4], 6, p[5], p[6], p[7], p[8], p[9], p[10]);
}
static spblkStatus_t call_Scsrgeam2(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkScsrgeam2(GEAM_ARGS(float), p[15]);
}
static spblkStatus_t call_Dcsrgeam2(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkDcsrgeam2(GEAM_ARGS(double), p[15]);
}

/* The BSR products, A as 4 x 4 blocks of 1: p = handle, alpha, descrA, val, rowPtr, colInd, x or
 * B, beta, y or C; e = dirA, transA(, transB). */
#define BSR_A(V) p[1], p[2], (const V *)p[3], p[4], p[5], 1
static spblkStatus_t call_Sbsrmv(void *const *p, const uint32_t *e) {
    return spblkSbsrmv(p[0], e[0], e[1], 4, 4, 6, BSR_A(float), p[6], p[7], p[8]);
}
static spblkStatus_t call_Dbsrmv(void *const *p, const uint32_t *e) {
    return spblkDbsrmv(p[0], e[0], e[1], 4, 4, 6, BSR_A(double), p[6], p[7], p[8]);
}
static spblkStatus_t call_Sbsrmm(void *const *p, const uint32_t *e) {
    return spblkSbsrmm(p[0], e[0], e[1], e[2], 4, 2, 4, 6, BSR_A(float), p[6], 4, p[7], p[8], 4);
}
static spblkStatus_t call_Dbsrmm(void *const *p, const uint32_t *e) {
    return spblkDbsrmm(p[0], e[0], e[1], e[2], 4, 2, 4, 6, BSR_A(double), p[6], 4, p[7], p[8], 4);
}

/* cuSPARSE's logger. The valid calls leave it off (level and mask 0) until ForceDisable. */
static spblkStatus_t call_LoggerSetCallback(void *const *p, const uint32_t *e) {
    (void)p, (void)e;
    return spblkLoggerSetCallback(NULL); /* NULL: back to stderr */
}
static spblkStatus_t call_LoggerSetFile(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkLoggerSetFile(p[0]);
}
static spblkStatus_t call_LoggerOpenFile(void *const *p, const uint32_t *e) {
    (void)e;
    return spblkLoggerOpenFile(p[0]);
}
static spblkStatus_t call_LoggerSetLevel(void *const *p, const uint32_t *e) {
    (void)p;
    return spblkLoggerSetLevel((int)e[0]);
}
static spblkStatus_t call_LoggerSetMask(void *const *p, const uint32_t *e) {
    (void)p;
    return spblkLoggerSetMask((int)e[0]);
}
static spblkStatus_t call_LoggerForceDisable(void *const *p, const uint32_t *e) {
    (void)p, (void)e;
    return spblkLoggerForceDisable();
}

/* ---- the table -------------------------------------------------------------------------------- */

static int build_cases(fn_case *t) {
    int n = 0;
    const spblkStatus_t spmv_null = F.spmv_size ? IV : OK, spmm_null = F.spmm_size ? IV : OK;
    const spblkStatus_t sddmm_null = F.sddmm_size ? IV : OK;
    void *const *cc = F.csr2csc;
    void *a_off = F.a_arrays.major, *a_col = F.a_arrays.minor, *a_val = F.a_arrays.val;
#define ROW(name, fn, ...)                                                                   \
    do {                                                                                     \
        if (n == MAX_CASES) {                                                                \
            fprintf(stderr, "test_bad_args: more than MAX_CASES (%d) rows\n", MAX_CASES);    \
            exit(1);                                                                         \
        }                                                                                    \
        t[n++] = (fn_case){.function = name, .call = fn, __VA_ARGS__};                       \
    } while (0)
#define HANDLE_ARG IN("handle", F.h, NI, HANDLE)
#define CSR2CSC_PTRS                                                                                      \
    HANDLE_ARG, IN("csrVal", cc[0], IV, PLAIN), IN("csrRowPtr", cc[1], IV, PLAIN),                       \
        IN("csrColInd", cc[2], IV, PLAIN), IN("cscVal", cc[3], IV, PLAIN), IN("cscColPtr", cc[4], IV, PLAIN), \
        IN("cscRowInd", cc[5], IV, PLAIN)
#define CSR2CSC_ENUMS                                                                                     \
    { E("valType", F32), E("copyValues", SPBLK_ACTION_NUMERIC), E("idxBase", BASE0), E("alg", SPBLK_CSR2CSC_ALG1) }
#define SPMV_ENUMS {E("opA", N), E("computeType", F32), E("alg", 0)}
#define OP2_ENUMS {E("opA", N), E("opB", N), E("computeType", F32), E("alg", 0)}
#define SPGEMM_PTRS                                                                                        \
    HANDLE_ARG, IN("alpha", &F.one, IV, PLAIN), IN("matA", F.a, IV, SPMAT), IN("matB", F.a, IV, SPMAT),   \
        IN("beta", &F.zero, IV, PLAIN), IN("matC", F.c_gemm, IV, SPMAT), IN("spgemmDescr", F.gemm, IV, SPGEMM)
#define SPGEMM_ENUMS {E("opA", N), E("opB", N), E("computeType", F32), E("alg", SPBLK_SPGEMM_DEFAULT)}

    ROW("spblkCsr2cscEx2_bufferSize", call_Csr2cscEx2_bufferSize,
        .p = {CSR2CSC_PTRS, OUT("bufferSize", F.size)},
        .e = CSR2CSC_ENUMS);
    ROW("spblkCsr2cscEx2", call_Csr2cscEx2, .p = {CSR2CSC_PTRS, IN("buffer", cc[6], IV, PLAIN)}, .e = CSR2CSC_ENUMS);
    ROW("spblkCreateDnMat", call_CreateDnMat,
        .p = {OUT("dnMatDescr", F.out_dnmat), IN("values", F.b_d.val, IV, PLAIN)},
        .e = {E("valueType", F32), E("order", SPBLK_ORDER_COL)},
        .cleanup = destroy_dnmat);
    ROW("spblkDestroyDnMat", call_DestroyDnMat, .p = {IN("dnMatDescr", FRESH, OK, DNMAT)});
    ROW("spblkDnMatGet", call_DnMatGet,
        .p = {IN("dnMatDescr", F.b, IV, DNMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("ld", F.ld),
         OUT("values", F.values), OUT("type", F.vtype), OUT("order", F.order)});
    ROW("spblkDnMatGetValues", call_DnMatGetValues, .p = {IN("dnMatDescr", F.b, IV, DNMAT), OUT("values", F.values)});
    ROW("spblkDnMatSetValues", call_DnMatSetValues,
        .p = {IN("dnMatDescr", F.b, IV, DNMAT), IN("values", F.b_d.val, IV, PLAIN)});
    ROW("spblkCreateDnVec", call_CreateDnVec,
        .p = {OUT("dnVecDescr", F.out_dnvec), IN("values", F.x_d.val, IV, PLAIN)},
        .e = {E("valueType", F32)},
        .cleanup = destroy_dnvec);
    ROW("spblkDestroyDnVec", call_DestroyDnVec, .p = {IN("dnVecDescr", FRESH, OK, DNVEC)});
    ROW("spblkDnVecGet", call_DnVecGet,
        .p = {IN("dnVecDescr", F.x, IV, DNVEC), OUT("size", F.rows), OUT("values", F.values), OUT("valueType", F.vtype)});
    ROW("spblkDnVecGetValues", call_DnVecGetValues, .p = {IN("dnVecDescr", F.x, IV, DNVEC), OUT("values", F.values)});
    ROW("spblkDnVecSetValues", call_DnVecSetValues,
        .p = {IN("dnVecDescr", F.x, IV, DNVEC), IN("values", F.x_d.val, IV, PLAIN)});
    ROW("spblkCreate", call_Create, .p = {OUT("handle", F.out_handle)}, .cleanup = destroy_handle);
    ROW("spblkCreateWithBackend", call_CreateWithBackend,
        .p = {OUT("handle", F.out_handle)},
        .e = {E("backend", on_gpu() ? SPBLK_BACKEND_CUDA : SPBLK_BACKEND_HOST)},
        .cleanup = destroy_handle);
    ROW("spblkDestroy", call_Destroy, .p = {IN("handle", FRESH, NI, HANDLE)});
    ROW("spblkGetBackend", call_GetBackend, .p = {HANDLE_ARG, OUT("backend", F.backend)});
    ROW("spblkSetStream", call_SetStream, .p = {HANDLE_ARG, IN("streamId", NULL, OK, PLAIN)});
    ROW("spblkGetStream", call_GetStream, .p = {HANDLE_ARG, OUT("streamId", F.stream)});
    ROW("spblkGetVersion", call_GetVersion, .p = {HANDLE_ARG, OUT("version", F.version)});
    ROW("spblkGetProperty", call_GetProperty, .p = {OUT("value", F.property)}, .e = {E("type", SPBLK_MAJOR_VERSION)});
    ROW("spblkGetErrorName", call_GetErrorName, .e = {{"status", 3, OK}});
    ROW("spblkGetErrorString", call_GetErrorString, .e = {{"status", 3, OK}});
    ROW("spblkCompatNotSupported", call_CompatNotSupported, .p = {IN("function", "cusparseXcsrsort", IV, PLAIN)});
    ROW("spblkGetLastErrorMessage", call_GetLastErrorMessage,
        .p = {IN("buf", F.message, IV, PLAIN), OUT("written", F.written)},
        .keeps_message = 1);
    ROW("spblkSetPointerMode", call_SetPointerMode, .p = {HANDLE_ARG}, .e = {E("mode", SPBLK_POINTER_MODE_HOST)});
    ROW("spblkGetPointerMode", call_GetPointerMode, .p = {HANDLE_ARG, OUT("mode", F.mode)});

#define SPMV_PTRS                                                                                         \
    HANDLE_ARG, IN("alpha", &F.one, IV, PLAIN), IN("matA", F.a, IV, SPMAT), IN("vecX", F.x, IV, DNVEC),   \
        IN("beta", &F.zero, IV, PLAIN), IN("vecY", F.y, IV, DNVEC)
    ROW("spblkSpMV_bufferSize", call_SpMV_bufferSize, .p = {SPMV_PTRS, OUT("bufferSize", F.size)}, .e = SPMV_ENUMS);
    ROW("spblkSpMV_preprocess", call_SpMV_preprocess,
        .p = {SPMV_PTRS, IN("externalBuffer", F.spmv_buf, spmv_null, PLAIN)},
        .e = SPMV_ENUMS);
    ROW("spblkSpMV", call_SpMV,
        .p = {SPMV_PTRS, IN("externalBuffer", F.spmv_buf, spmv_null, PLAIN)},
        .e = SPMV_ENUMS);
    /* spblk's SpMV algorithms: the same rules with each value (matA is CSR; its workspace is as
       small as the default's). */
    ROW("spblkSpMV", call_SpMV,
        .p = {SPMV_PTRS, IN("externalBuffer", F.spmv_buf, spmv_null, PLAIN)},
        .e = {E("opA", N), E("computeType", F32), E("alg", SPBLK_SPMV_ALG_CSR_SCALAR)});
    ROW("spblkSpMV", call_SpMV,
        .p = {SPMV_PTRS, IN("externalBuffer", F.spmv_buf, spmv_null, PLAIN)},
        .e = {E("opA", N), E("computeType", F32), E("alg", SPBLK_SPMV_ALG_CSR_VECTOR)});
    ROW("spblkSpMV_bufferSize", call_SpMV_bufferSize, .p = {SPMV_PTRS, OUT("bufferSize", F.size)},
        .e = {E("opA", N), E("computeType", F32), E("alg", SPBLK_SPMV_ALG_CSR_ROWS)});
    ROW("spblkSpMV", call_SpMV,
        .p = {SPMV_PTRS, IN("externalBuffer", F.spmv_buf, spmv_null, PLAIN)},
        .e = {E("opA", N), E("computeType", F32), E("alg", SPBLK_SPMV_ALG_CSR_MERGE)});
#define SPMM_PTRS                                                                                         \
    HANDLE_ARG, IN("alpha", &F.one, IV, PLAIN), IN("matA", F.a, IV, SPMAT), IN("matB", F.b, IV, DNMAT),   \
        IN("beta", &F.zero, IV, PLAIN), IN("matC", F.c, IV, DNMAT)
    ROW("spblkSpMM_bufferSize", call_SpMM_bufferSize, .p = {SPMM_PTRS, OUT("bufferSize", F.size)}, .e = OP2_ENUMS);
    ROW("spblkSpMM_preprocess", call_SpMM_preprocess,
        .p = {SPMM_PTRS, IN("externalBuffer", F.spmm_buf, spmm_null, PLAIN)},
        .e = OP2_ENUMS);
    ROW("spblkSpMM", call_SpMM, .p = {SPMM_PTRS, IN("externalBuffer", F.spmm_buf, spmm_null, PLAIN)}, .e = OP2_ENUMS);
#define SDDMM_PTRS                                                                                        \
    HANDLE_ARG, IN("alpha", &F.one, IV, PLAIN), IN("matA", F.da, IV, DNMAT), IN("matB", F.db, IV, DNMAT), \
        IN("beta", &F.zero, IV, PLAIN), IN("matC", F.c_sddmm, IV, SPMAT)
    ROW("spblkSDDMM_bufferSize", call_SDDMM_bufferSize, .p = {SDDMM_PTRS, OUT("bufferSize", F.size)}, .e = OP2_ENUMS);
    ROW("spblkSDDMM_preprocess", call_SDDMM_preprocess,
        .p = {SDDMM_PTRS, IN("externalBuffer", F.sddmm_buf, sddmm_null, PLAIN)},
        .e = OP2_ENUMS);
    ROW("spblkSDDMM", call_SDDMM,
        .p = {SDDMM_PTRS, IN("externalBuffer", F.sddmm_buf, sddmm_null, PLAIN)},
        .e = OP2_ENUMS);

    /* Offsets may be NULL until set (SpGEMM's C); indices and values not with nnz > 0. */
#define CREATE_ENUMS(off, idx) {E(off, I32), E(idx, I32), E("idxBase", BASE0), E("valueType", F32)}
    ROW("spblkCreateCsr", call_CreateCsr,
        .p = {OUT("spMatDescr", F.out_spmat), IN("csrRowOffsets", a_off, OK, PLAIN), IN("csrColInd", a_col, IV, PLAIN),
         IN("csrValues", a_val, IV, PLAIN)},
        .e = CREATE_ENUMS("csrRowOffsetsType", "csrColIndType"),
        .cleanup = destroy_spmat);
    ROW("spblkCreateConstCsr", call_CreateConstCsr,
        .p = {OUT("spMatDescr", F.out_spmat), IN("csrRowOffsets", a_off, OK, PLAIN), IN("csrColInd", a_col, IV, PLAIN),
         IN("csrValues", a_val, IV, PLAIN)},
        .e = CREATE_ENUMS("csrRowOffsetsType", "csrColIndType"),
        .cleanup = destroy_spmat);
    ROW("spblkCreateCsc", call_CreateCsc,
        .p = {OUT("spMatDescr", F.out_spmat), IN("cscColOffsets", a_off, OK, PLAIN), IN("cscRowInd", a_col, IV, PLAIN),
         IN("cscValues", a_val, IV, PLAIN)},
        .e = CREATE_ENUMS("cscColOffsetsType", "cscRowIndType"),
        .cleanup = destroy_spmat);
    ROW("spblkCreateCoo", call_CreateCoo,
        .p = {OUT("spMatDescr", F.out_spmat), IN("cooRowInd", F.coo_arrays.major, IV, PLAIN),
         IN("cooColInd", F.coo_arrays.minor, IV, PLAIN), IN("cooValues", F.coo_arrays.val, IV, PLAIN)},
        .e = {E("cooIdxType", I32), E("idxBase", BASE0), E("valueType", F32)},
        .cleanup = destroy_spmat);
    ROW("spblkDestroySpMat", call_DestroySpMat, .p = {IN("spMatDescr", FRESH, OK, SPMAT)});
#define BSR_CREATE_ENUMS                                                                                       \
    {E("bsrRowOffsetsType", I32), E("bsrColIndType", I32), E("idxBase", BASE0), E("valueType", F32),             \
     E("order", SPBLK_ORDER_ROW)}
#define BSR_CREATE_PTRS(out)                                                                                   \
    {OUT("spMatDescr", out), IN("bsrRowOffsets", a_off, IV, PLAIN), IN("bsrColInd", a_col, IV, PLAIN),           \
     IN("bsrValues", a_val, IV, PLAIN)}
    ROW("spblkCreateBsr", call_CreateBsr, .p = BSR_CREATE_PTRS(F.out_spmat), .e = BSR_CREATE_ENUMS,
        .cleanup = destroy_spmat);
    ROW("spblkCreateConstBsr", call_CreateConstBsr, .p = BSR_CREATE_PTRS(F.out_const_spmat), .e = BSR_CREATE_ENUMS,
        .cleanup = destroy_spmat);
#define ELL_CREATE_PTRS(out)                                                                                   \
    {OUT("spMatDescr", out), IN("ellColInd", a_col, IV, PLAIN), IN("ellValue", F.c_d.val, IV, PLAIN)}
#define ELL_CREATE_ENUMS {E("ellIdxType", I32), E("idxBase", BASE0), E("valueType", F32)}
    ROW("spblkCreateBlockedEll", call_CreateBlockedEll, .p = ELL_CREATE_PTRS(F.out_spmat), .e = ELL_CREATE_ENUMS,
        .cleanup = destroy_spmat);
    ROW("spblkCreateConstBlockedEll", call_CreateConstBlockedEll, .p = ELL_CREATE_PTRS(F.out_const_spmat),
        .e = ELL_CREATE_ENUMS, .cleanup = destroy_spmat);
#define SELL_CREATE_PTRS(out)                                                                                  \
    {OUT("spMatDescr", out), IN("sellSliceOffsets", a_off, IV, PLAIN), IN("sellColInd", a_col, IV, PLAIN),       \
     IN("sellValues", a_val, IV, PLAIN)}
#define SELL_CREATE_ENUMS                                                                                      \
    {E("sellSliceOffsetsType", I32), E("sellColIndType", I32), E("idxBase", BASE0), E("valueType", F32)}
    ROW("spblkCreateSlicedEll", call_CreateSlicedEll, .p = SELL_CREATE_PTRS(F.out_spmat), .e = SELL_CREATE_ENUMS,
        .cleanup = destroy_spmat);
    ROW("spblkCreateConstSlicedEll", call_CreateConstSlicedEll, .p = SELL_CREATE_PTRS(F.out_const_spmat),
        .e = SELL_CREATE_ENUMS, .cleanup = destroy_spmat);
#define ELL_GET_PTRS                                                                                           \
    IN("spMatDescr", F.bell, IV, SPMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("ellBlockSize", F.block),  \
        OUT("ellCols", F.ell_cols), OUT("ellColInd", F.values), OUT("ellValue", F.values),                        \
        OUT("ellIdxType", F.itype), OUT("idxBase", F.base), OUT("valueType", F.vtype)
    ROW("spblkBlockedEllGet", call_BlockedEllGet, .p = {ELL_GET_PTRS});
    ROW("spblkConstBlockedEllGet", call_ConstBlockedEllGet, .p = {ELL_GET_PTRS});
    ROW("spblkSpMatGetSize", call_SpMatGetSize,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("nnz", F.nnz)});
    ROW("spblkSpMatGetFormat", call_SpMatGetFormat, .p = {IN("spMatDescr", F.a, IV, SPMAT), OUT("format", F.format)});
    ROW("spblkSpMatGetIndexBase", call_SpMatGetIndexBase,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), OUT("idxBase", F.base)});
    ROW("spblkSpMatGetValues", call_SpMatGetValues, .p = {IN("spMatDescr", F.a, IV, SPMAT), OUT("values", F.values)});
    ROW("spblkSpMatSetValues", call_SpMatSetValues,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), IN("values", a_val, IV, PLAIN)});
    ROW("spblkSpMatGetAttribute", call_SpMatGetAttribute,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), OUT("data", F.fill)}, .e = {E("attribute", SPBLK_SPMAT_FILL_MODE)});
    F.fill_value = SPBLK_FILL_MODE_UPPER;
    ROW("spblkSpMatSetAttribute", call_SpMatSetAttribute,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), IN("data", &F.fill_value, IV, PLAIN)},
        .e = {E("attribute", SPBLK_SPMAT_FILL_MODE)});
    ROW("spblkCsrGet", call_CsrGet,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("nnz", F.nnz),
         OUT("csrRowOffsets", F.values), OUT("csrColInd", F.values), OUT("csrValues", F.values),
         OUT("csrRowOffsetsType", F.itype), OUT("csrColIndType", F.itype2), OUT("idxBase", F.base),
         OUT("valueType", F.vtype)});
    ROW("spblkCooGet", call_CooGet,
        .p = {IN("spMatDescr", F.coo, IV, SPMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("nnz", F.nnz),
         OUT("cooRowInd", F.values), OUT("cooColInd", F.values), OUT("cooValues", F.values), OUT("idxType", F.itype),
         OUT("idxBase", F.base), OUT("valueType", F.vtype)});
    ROW("spblkCsrSetPointers", call_CsrSetPointers,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), IN("csrRowOffsets", a_off, IV, PLAIN), IN("csrColInd", a_col, IV, PLAIN),
         IN("csrValues", a_val, IV, PLAIN)});
#define SPSV_PTRS                                                                                          \
    HANDLE_ARG, IN("alpha", &F.one, IV, PLAIN), IN("matA", F.a, IV, SPMAT), IN("vecX", F.x, IV, DNVEC),    \
        IN("vecY", F.y, IV, DNVEC), IN("spsvDescr", F.spsv, IV, SPSV)
#define SPSV_ENUMS {E("opA", N), E("computeType", F32), E("alg", SPBLK_SPSV_ALG_DEFAULT)}
    ROW("spblkSpSV_createDescr", call_SpSV_createDescr, .p = {OUT("descr", F.out_spsv)}, .cleanup = destroy_spsv);
    ROW("spblkSpSV_destroyDescr", call_SpSV_destroyDescr, .p = {IN("descr", FRESH, OK, SPSV)});
    ROW("spblkSpSV_bufferSize", call_SpSV_bufferSize, .p = {SPSV_PTRS, OUT("bufferSize", F.size)}, .e = SPSV_ENUMS);
    ROW("spblkSpSV_analysis", call_SpSV_analysis,
        .p = {SPSV_PTRS, IN("externalBuffer", F.spsv_buf, F.spsv_size ? IV : OK, PLAIN)}, .e = SPSV_ENUMS);
    ROW("spblkSpSV_solve", call_SpSV_solve, .p = {SPSV_PTRS}, .e = SPSV_ENUMS);
    /* newValues: A's 6 values (GENERAL reads nnz of them). */
    ROW("spblkSpSV_updateMatrix", call_SpSV_updateMatrix,
        .p = {HANDLE_ARG, IN("spsvDescr", F.spsv, IV, SPSV), IN("newValues", F.a_arrays.val, IV, PLAIN)},
        .e = {E("updatePart", SPBLK_SPSV_UPDATE_GENERAL)});
#define SPSM_PTRS                                                                                          \
    HANDLE_ARG, IN("alpha", &F.one, IV, PLAIN), IN("matA", F.a, IV, SPMAT), IN("matB", F.b, IV, DNMAT),    \
        IN("matC", F.c, IV, DNMAT), IN("spsmDescr", F.spsm, IV, SPSM)
#define SPSM_ENUMS {E("opA", N), E("opB", N), E("computeType", F32), E("alg", SPBLK_SPSM_ALG_DEFAULT)}
    ROW("spblkSpSM_createDescr", call_SpSM_createDescr, .p = {OUT("descr", F.out_spsm)}, .cleanup = destroy_spsm);
    ROW("spblkSpSM_destroyDescr", call_SpSM_destroyDescr, .p = {IN("descr", FRESH, OK, SPSM)});
    ROW("spblkSpSM_bufferSize", call_SpSM_bufferSize, .p = {SPSM_PTRS, OUT("bufferSize", F.size)}, .e = SPSM_ENUMS);
    ROW("spblkSpSM_analysis", call_SpSM_analysis,
        .p = {SPSM_PTRS, IN("externalBuffer", F.spsm_buf, F.spsm_size ? IV : OK, PLAIN)}, .e = SPSM_ENUMS);
    ROW("spblkSpSM_solve", call_SpSM_solve, .p = {SPSM_PTRS}, .e = SPSM_ENUMS);
    ROW("spblkSpSM_updateMatrix", call_SpSM_updateMatrix,
        .p = {HANDLE_ARG, IN("spsmDescr", F.spsm, IV, SPSM), IN("newValues", F.a_arrays.val, IV, PLAIN)},
        .e = {E("updatePart", SPBLK_SPSM_UPDATE_GENERAL)});
    ROW("spblkSpGEMM_createDescr", call_SpGEMM_createDescr, .p = {OUT("descr", F.out_gemm)}, .cleanup = destroy_gemm);
    ROW("spblkSpGEMM_destroyDescr", call_SpGEMM_destroyDescr, .p = {IN("descr", FRESH, OK, SPGEMM)});
    /* The valid calls are size queries (NULL buffer), which leave the descriptor's state alone. */
    ROW("spblkSpGEMM_workEstimation", call_SpGEMM_workEstimation,
        .p = {SPGEMM_PTRS, OUT("bufferSize1", F.size), IN("externalBuffer1", NULL, OK, PLAIN)},
        .e = SPGEMM_ENUMS);
    ROW("spblkSpGEMM_compute", call_SpGEMM_compute,
        .p = {SPGEMM_PTRS, OUT("bufferSize2", F.size), IN("externalBuffer2", NULL, OK, PLAIN)},
        .e = SPGEMM_ENUMS);
    ROW("spblkSpGEMM_copy", call_SpGEMM_copy, .p = {SPGEMM_PTRS}, .e = SPGEMM_ENUMS);
    /* ALG2's size query (buffer 3 NULL; bufferSize2 is only written with a buffer). */
    ROW("spblkSpGEMM_estimateMemory", call_SpGEMM_estimateMemory,
        .p = {SPGEMM_PTRS, OUT("bufferSize3", F.size3), IN("externalBuffer3", NULL, OK, PLAIN),
              IN("bufferSize2", NULL, OK, PLAIN)},
        .e = {E("opA", N), E("opB", N), E("computeType", F32), E("alg", SPBLK_SPGEMM_ALG2)});
    ROW("spblkSpGEMM_getNumProducts", call_SpGEMM_getNumProducts,
        .p = {IN("spgemmDescr", F.gemm, IV, SPGEMM), OUT("num_prods", F.nnz)});
#define REUSE_PTRS                                                                                      \
    HANDLE_ARG, IN("matA", F.a, IV, SPMAT), IN("matB", F.a, IV, SPMAT), IN("matC", F.c_reuse, IV, SPMAT), \
        IN("spgemmDescr", F.gemm_reuse, IV, SPGEMM)
#define REUSE_ENUMS {E("opA", N), E("opB", N), E("alg", SPBLK_SPGEMM_DEFAULT)}
    /* Size queries again, then a real reuse_compute on the descriptor set up above. */
    ROW("spblkSpGEMMreuse_workEstimation", call_SpGEMMreuse_workEstimation,
        .p = {REUSE_PTRS, OUT("bufferSize1", F.size), IN("externalBuffer1", NULL, OK, PLAIN)},
        .e = REUSE_ENUMS);
    ROW("spblkSpGEMMreuse_nnz", call_SpGEMMreuse_nnz,
        .p = {REUSE_PTRS, OUT("bufferSize2", F.size), IN("externalBuffer2", NULL, OK, PLAIN),
              OUT("bufferSize3", F.size3), IN("externalBuffer3", NULL, OK, PLAIN), OUT("bufferSize4", F.size4),
              IN("externalBuffer4", NULL, OK, PLAIN)},
        .e = REUSE_ENUMS);
    ROW("spblkSpGEMMreuse_copy", call_SpGEMMreuse_copy,
        .p = {REUSE_PTRS, OUT("bufferSize5", F.size), IN("externalBuffer5", NULL, OK, PLAIN)},
        .e = REUSE_ENUMS);
    ROW("spblkSpGEMMreuse_compute", call_SpGEMMreuse_compute,
        .p = {HANDLE_ARG, IN("alpha", &F.one, IV, PLAIN), IN("matA", F.a, IV, SPMAT), IN("matB", F.a, IV, SPMAT),
              IN("beta", &F.zero, IV, PLAIN), IN("matC", F.c_reuse, IV, SPMAT),
              IN("spgemmDescr", F.gemm_reuse, IV, SPGEMM)},
        .e = SPGEMM_ENUMS);
    /* Const variants, CSC/COO accessors. */
    ROW("spblkCreateConstDnMat", call_CreateConstDnMat,
        .p = {OUT("dnMatDescr", F.out_const_dnmat), IN("values", F.b_d.val, IV, PLAIN)},
        .e = {E("valueType", F32), E("order", SPBLK_ORDER_COL)},
        .cleanup = destroy_dnmat);
    ROW("spblkCreateConstDnVec", call_CreateConstDnVec,
        .p = {OUT("dnVecDescr", F.out_const_dnvec), IN("values", F.x_d.val, IV, PLAIN)},
        .e = {E("valueType", F32)},
        .cleanup = destroy_dnvec);
    ROW("spblkConstDnMatGetValues", call_ConstDnMatGetValues,
        .p = {IN("dnMatDescr", F.b, IV, DNMAT), OUT("values", F.const_values)});
    ROW("spblkConstDnVecGetValues", call_ConstDnVecGetValues,
        .p = {IN("dnVecDescr", F.x, IV, DNVEC), OUT("values", F.const_values)});
    ROW("spblkCreateConstCsc", call_CreateConstCsc,
        .p = {OUT("spMatDescr", F.out_const_spmat), IN("cscColOffsets", F.csc_arrays.major, OK, PLAIN),
              IN("cscRowInd", F.csc_arrays.minor, IV, PLAIN), IN("cscValues", F.csc_arrays.val, IV, PLAIN)},
        .e = CREATE_ENUMS("cscColOffsetsType", "cscRowIndType"),
        .cleanup = destroy_spmat);
    ROW("spblkCreateConstCoo", call_CreateConstCoo,
        .p = {OUT("spMatDescr", F.out_const_spmat), IN("cooRowInd", F.coo_arrays.major, IV, PLAIN),
              IN("cooColInd", F.coo_arrays.minor, IV, PLAIN), IN("cooValues", F.coo_arrays.val, IV, PLAIN)},
        .e = {E("cooIdxType", I32), E("idxBase", BASE0), E("valueType", F32)},
        .cleanup = destroy_spmat);
    ROW("spblkConstSpMatGetValues", call_ConstSpMatGetValues,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), OUT("values", F.const_values)});
    ROW("spblkCscGet", call_CscGet,
        .p = {IN("spMatDescr", F.csc, IV, SPMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("nnz", F.nnz),
              OUT("cscColOffsets", F.values), OUT("cscRowInd", F.values), OUT("cscValues", F.values),
              OUT("cscColOffsetsType", F.itype), OUT("cscRowIndType", F.itype2), OUT("idxBase", F.base),
              OUT("valueType", F.vtype)});
    ROW("spblkCscSetPointers", call_CscSetPointers,
        .p = {IN("spMatDescr", F.csc, IV, SPMAT), IN("cscColOffsets", F.csc_arrays.major, IV, PLAIN),
              IN("cscRowInd", F.csc_arrays.minor, IV, PLAIN), IN("cscValues", F.csc_arrays.val, IV, PLAIN)});
    ROW("spblkCooSetPointers", call_CooSetPointers,
        .p = {IN("spMatDescr", F.coo, IV, SPMAT), IN("cooRows", F.coo_arrays.major, IV, PLAIN),
              IN("cooColumns", F.coo_arrays.minor, IV, PLAIN), IN("cooValues", F.coo_arrays.val, IV, PLAIN)});
    ROW("spblkConstCsrGet", call_ConstCsrGet,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("nnz", F.nnz),
              OUT("csrRowOffsets", F.const_values), OUT("csrColInd", F.const_values), OUT("csrValues", F.const_values),
              OUT("csrRowOffsetsType", F.itype), OUT("csrColIndType", F.itype2), OUT("idxBase", F.base),
              OUT("valueType", F.vtype)});
    ROW("spblkConstCscGet", call_ConstCscGet,
        .p = {IN("spMatDescr", F.csc, IV, SPMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("nnz", F.nnz),
              OUT("cscColOffsets", F.const_values), OUT("cscRowInd", F.const_values), OUT("cscValues", F.const_values),
              OUT("cscColOffsetsType", F.itype), OUT("cscRowIndType", F.itype2), OUT("idxBase", F.base),
              OUT("valueType", F.vtype)});
    ROW("spblkConstCooGet", call_ConstCooGet,
        .p = {IN("spMatDescr", F.coo, IV, SPMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("nnz", F.nnz),
              OUT("cooRowInd", F.const_values), OUT("cooColInd", F.const_values), OUT("cooValues", F.const_values),
              OUT("idxType", F.itype), OUT("idxBase", F.base), OUT("valueType", F.vtype)});
    ROW("spblkConstDnMatGet", call_ConstDnMatGet,
        .p = {IN("dnMatDescr", F.b, IV, DNMAT), OUT("rows", F.rows), OUT("cols", F.cols), OUT("ld", F.ld),
              OUT("values", F.const_values), OUT("type", F.vtype), OUT("order", F.order)});
    ROW("spblkConstDnVecGet", call_ConstDnVecGet,
        .p = {IN("dnVecDescr", F.x, IV, DNVEC), OUT("size", F.rows), OUT("values", F.const_values),
              OUT("valueType", F.vtype)});
    ROW("spblkCreateMatDescr", call_CreateMatDescr, .p = {OUT("descrA", F.out_mat_descr)},
        .cleanup = destroy_mat_descr);
    ROW("spblkDestroyMatDescr", call_DestroyMatDescr, .p = {IN("descrA", FRESH, OK, MATDESCR)});
    ROW("spblkSetMatType", call_SetMatType, .p = {IN("descrA", F.mat_descr, IV, MATDESCR)},
        .e = {E("type", SPBLK_MATRIX_TYPE_GENERAL)});
    ROW("spblkSetMatFillMode", call_SetMatFillMode, .p = {IN("descrA", F.mat_descr, IV, MATDESCR)},
        .e = {E("fillMode", SPBLK_FILL_MODE_UPPER)});
    ROW("spblkSetMatDiagType", call_SetMatDiagType, .p = {IN("descrA", F.mat_descr, IV, MATDESCR)},
        .e = {E("diagType", SPBLK_DIAG_TYPE_UNIT)});
    ROW("spblkSetMatIndexBase", call_SetMatIndexBase, .p = {IN("descrA", F.mat_descr, IV, MATDESCR)},
        .e = {E("base", SPBLK_INDEX_BASE_ONE)});
    ROW("spblkGetMatType", call_GetMatType, .p = {IN("descrA", F.mat_descr, IV, MATDESCR)});
    ROW("spblkGetMatFillMode", call_GetMatFillMode, .p = {IN("descrA", F.mat_descr, IV, MATDESCR)});
    ROW("spblkGetMatDiagType", call_GetMatDiagType, .p = {IN("descrA", F.mat_descr, IV, MATDESCR)});
    ROW("spblkGetMatIndexBase", call_GetMatIndexBase, .p = {IN("descrA", F.mat_descr, IV, MATDESCR)});
    ROW("spblkCsrSetStridedBatch", call_CsrSetStridedBatch, .p = {IN("spMatDescr", F.a, IV, SPMAT)});
    ROW("spblkBsrSetStridedBatch", call_BsrSetStridedBatch, .p = {IN("spMatDescr", F.bsr, IV, SPMAT)});
    ROW("spblkCooSetStridedBatch", call_CooSetStridedBatch, .p = {IN("spMatDescr", F.coo, IV, SPMAT)});
    ROW("spblkSpMatGetStridedBatch", call_SpMatGetStridedBatch,
        .p = {IN("spMatDescr", F.a, IV, SPMAT), OUT("batchCount", F.batch_count)});
    ROW("spblkDnMatSetStridedBatch", call_DnMatSetStridedBatch, .p = {IN("dnMatDescr", F.b, IV, DNMAT)});
    ROW("spblkDnMatGetStridedBatch", call_DnMatGetStridedBatch,
        .p = {IN("dnMatDescr", F.b, IV, DNMAT), OUT("batchCount", F.batch_count), OUT("batchStride", F.batch_stride)});

    /* Sparse vectors. */
    ROW("spblkCreateSpVec", call_CreateSpVec,
        .p = {OUT("spVecDescr", F.out_spvec), IN("indices", F.xs_idx, IV, PLAIN), IN("values", F.xs_val, IV, PLAIN)},
        .e = {E("idxType", I32), E("idxBase", BASE0), E("valueType", F32)},
        .cleanup = destroy_spvec);
    ROW("spblkCreateConstSpVec", call_CreateConstSpVec,
        .p = {OUT("spVecDescr", F.out_const_spvec), IN("indices", F.xs_idx, IV, PLAIN),
              IN("values", F.xs_val, IV, PLAIN)},
        .e = {E("idxType", I32), E("idxBase", BASE0), E("valueType", F32)},
        .cleanup = destroy_spvec);
    ROW("spblkDestroySpVec", call_DestroySpVec, .p = {IN("spVecDescr", FRESH, OK, SPVEC)});
#define SPVEC_GET_OUTS(indices, values)                                                                  \
    OUT("size", F.rows), OUT("nnz", F.nnz), OUT("indices", indices), OUT("values", values), OUT("idxType", F.itype), \
        OUT("idxBase", F.base), OUT("valueType", F.vtype)
    ROW("spblkSpVecGet", call_SpVecGet, .p = {IN("spVecDescr", F.xs, IV, SPVEC), SPVEC_GET_OUTS(F.values, F.values)});
    ROW("spblkConstSpVecGet", call_ConstSpVecGet,
        .p = {IN("spVecDescr", F.xs, IV, SPVEC), SPVEC_GET_OUTS(F.const_indices, F.const_values)});
    ROW("spblkSpVecGetIndexBase", call_SpVecGetIndexBase, .p = {IN("spVecDescr", F.xs, IV, SPVEC), OUT("idxBase", F.base)});
    ROW("spblkSpVecGetValues", call_SpVecGetValues, .p = {IN("spVecDescr", F.xs, IV, SPVEC), OUT("values", F.values)});
    ROW("spblkConstSpVecGetValues", call_ConstSpVecGetValues,
        .p = {IN("spVecDescr", F.xs, IV, SPVEC), OUT("values", F.const_values)});
    ROW("spblkSpVecSetValues", call_SpVecSetValues,
        .p = {IN("spVecDescr", F.xs, IV, SPVEC), IN("values", F.xs_val, IV, PLAIN)});
    ROW("spblkAxpby", call_Axpby,
        .p = {HANDLE_ARG, IN("alpha", &F.one, IV, PLAIN), IN("vecX", F.xs, IV, SPVEC), IN("beta", &F.one, IV, PLAIN),
              IN("vecY", F.y, IV, DNVEC)});
    ROW("spblkGather", call_Gather, .p = {HANDLE_ARG, IN("vecY", F.y, IV, DNVEC), IN("vecX", F.xs, IV, SPVEC)});
    ROW("spblkScatter", call_Scatter, .p = {HANDLE_ARG, IN("vecX", F.xs, IV, SPVEC), IN("vecY", F.y, IV, DNVEC)});
    ROW("spblkRot", call_Rot,
        .p = {HANDLE_ARG, IN("c_coeff", &F.one, IV, PLAIN), IN("s_coeff", &F.zero, IV, PLAIN),
              IN("vecX", F.xs, IV, SPVEC), IN("vecY", F.y, IV, DNVEC)});
#define SPVV_PTRS HANDLE_ARG, IN("vecX", F.xs, IV, SPVEC), IN("vecY", F.y, IV, DNVEC), IN("result", &F.result, IV, PLAIN)
    ROW("spblkSpVV_bufferSize", call_SpVV_bufferSize, .p = {SPVV_PTRS, OUT("bufferSize", F.size)},
        .e = {E("opX", N), E("computeType", F32)});
    ROW("spblkSpVV", call_SpVV, .p = {SPVV_PTRS, IN("externalBuffer", F.spvv_buf, F.spvv_size ? IV : OK, PLAIN)},
        .e = {E("opX", N), E("computeType", F32)});

    /* Dense <-> sparse. */
#define S2D_PTRS HANDLE_ARG, IN("matA", F.a, IV, SPMAT), IN("matB", F.dense_a, IV, DNMAT)
#define D2S_PTRS HANDLE_ARG, IN("matA", F.dense_a, IV, DNMAT), IN("matB", F.d2s_b, IV, SPMAT)
    ROW("spblkSparseToDense_bufferSize", call_SparseToDense_bufferSize, .p = {S2D_PTRS, OUT("bufferSize", F.size)},
        .e = {E("alg", SPBLK_SPARSETODENSE_ALG_DEFAULT)});
    ROW("spblkSparseToDense", call_SparseToDense, .p = {S2D_PTRS, IN("externalBuffer", NULL, OK, PLAIN)},
        .e = {E("alg", SPBLK_SPARSETODENSE_ALG_DEFAULT)});
    ROW("spblkDenseToSparse_bufferSize", call_DenseToSparse_bufferSize, .p = {D2S_PTRS, OUT("bufferSize", F.size)},
        .e = {E("alg", SPBLK_DENSETOSPARSE_ALG_DEFAULT)});
    ROW("spblkDenseToSparse_analysis", call_DenseToSparse_analysis,
        .p = {D2S_PTRS, IN("externalBuffer", F.d2s_buf, F.d2s_size ? IV : OK, PLAIN)},
        .e = {E("alg", SPBLK_DENSETOSPARSE_ALG_DEFAULT)});
    ROW("spblkDenseToSparse_convert", call_DenseToSparse_convert,
        .p = {D2S_PTRS, IN("externalBuffer", F.d2s_buf, F.d2s_size ? IV : OK, PLAIN)},
        .e = {E("alg", SPBLK_DENSETOSPARSE_ALG_DEFAULT)});

    /* The legacy index helpers. P may be NULL (the permutation is then not kept). */
    ROW("spblkCreateIdentityPermutation", call_CreateIdentityPermutation, .p = {HANDLE_ARG, IN("p", F.perm4, IV, PLAIN)});
    ROW("spblkXcsr2coo", call_Xcsr2coo,
        .p = {HANDLE_ARG, IN("csrSortedRowPtr", cc[1], IV, PLAIN), IN("cooRowInd", F.sort_rows, IV, PLAIN)},
        .e = {E("idxBase", BASE0)});
    ROW("spblkXcoo2csr", call_Xcoo2csr,
        .p = {HANDLE_ARG, IN("cooRowInd", F.coo_rows32, IV, PLAIN), IN("csrSortedRowPtr", F.offsets5, IV, PLAIN)},
        .e = {E("idxBase", BASE0)});
    const spblkStatus_t sort_null = F.sort_size ? IV : OK;
    ROW("spblkXcsrsort_bufferSizeExt", call_Xcsrsort_bufferSizeExt,
        .p = {HANDLE_ARG, IN("csrRowPtrA", cc[1], IV, PLAIN), IN("csrColIndA", F.sort_cols, IV, PLAIN),
              OUT("pBufferSizeInBytes", F.size)});
    ROW("spblkXcsrsort", call_Xcsrsort,
        .p = {HANDLE_ARG, IN("descrA", F.sort_descr, IV, MATDESCR), IN("csrRowPtrA", cc[1], IV, PLAIN),
              IN("csrColIndA", F.sort_cols, IV, PLAIN), IN("P", F.sort_p, OK, PLAIN),
              IN("pBuffer", F.sort_buf, sort_null, PLAIN)});
    ROW("spblkXcscsort_bufferSizeExt", call_Xcscsort_bufferSizeExt,
        .p = {HANDLE_ARG, IN("cscColPtrA", F.csc_arrays.major, IV, PLAIN),
              IN("cscRowIndA", F.csc_arrays.minor, IV, PLAIN), OUT("pBufferSizeInBytes", F.size)});
    ROW("spblkXcscsort", call_Xcscsort,
        .p = {HANDLE_ARG, IN("descrA", F.sort_descr, IV, MATDESCR), IN("cscColPtrA", F.csc_arrays.major, IV, PLAIN),
              IN("cscRowIndA", F.csc_arrays.minor, IV, PLAIN), IN("P", F.sort_p, OK, PLAIN),
              IN("pBuffer", F.sort_buf, sort_null, PLAIN)});
#define COO_SORT_PTRS HANDLE_ARG, IN("cooRowsA", F.sort_rows, IV, PLAIN), IN("cooColsA", F.sort_cols, IV, PLAIN)
    ROW("spblkXcoosort_bufferSizeExt", call_Xcoosort_bufferSizeExt,
        .p = {COO_SORT_PTRS, OUT("pBufferSizeInBytes", F.size)});
    ROW("spblkXcoosortByRow", call_XcoosortByRow,
        .p = {COO_SORT_PTRS, IN("P", F.sort_p, OK, PLAIN), IN("pBuffer", F.sort_buf, sort_null, PLAIN)});
    ROW("spblkXcoosortByColumn", call_XcoosortByColumn,
        .p = {COO_SORT_PTRS, IN("P", F.sort_p, OK, PLAIN), IN("pBuffer", F.sort_buf, sort_null, PLAIN)});

    /* csrgeam2. The workspace size does not read alpha, beta, the values or C's arrays (C is
       allocated after the count); the count's total is optional; the fill takes no workspace. */
    const spblkStatus_t geam_null = F.geam_size ? IV : OK;
#define GEAM_A(val, alpha_null, val_null)                                                                      \
    HANDLE_ARG, IN("alpha", &F.one, alpha_null, PLAIN), IN("descrA", F.sort_descr, IV, MATDESCR),            \
        IN("csrSortedValA", val, val_null, PLAIN), IN("csrSortedRowPtrA", cc[1], IV, PLAIN),                  \
        IN("csrSortedColIndA", cc[2], IV, PLAIN)
#define GEAM_B(val, alpha_null, val_null)                                                                      \
    IN("beta", &F.one, alpha_null, PLAIN), IN("descrB", F.sort_descr, IV, MATDESCR),                         \
        IN("csrSortedValB", val, val_null, PLAIN), IN("csrSortedRowPtrB", cc[1], IV, PLAIN),                  \
        IN("csrSortedColIndB", cc[2], IV, PLAIN), IN("descrC", F.sort_descr, IV, MATDESCR)
#define GEAM_SIZE_PTRS(val)                                                                                    \
    GEAM_A(val, OK, OK), GEAM_B(val, OK, OK), IN("csrSortedValC", NULL, OK, PLAIN),                           \
        IN("csrSortedRowPtrC", F.geam_off, OK, PLAIN), IN("csrSortedColIndC", NULL, OK, PLAIN),               \
        OUT("pBufferSizeInBytes", F.size)
    ROW("spblkScsrgeam2_bufferSizeExt", call_Scsrgeam2_bufferSizeExt, .p = {GEAM_SIZE_PTRS(cc[0])});
    ROW("spblkDcsrgeam2_bufferSizeExt", call_Dcsrgeam2_bufferSizeExt, .p = {GEAM_SIZE_PTRS(F.geam_dval_a)});
    ROW("spblkXcsrgeam2Nnz", call_Xcsrgeam2Nnz,
        .p = {HANDLE_ARG, IN("descrA", F.sort_descr, IV, MATDESCR), IN("csrSortedRowPtrA", cc[1], IV, PLAIN),
              IN("csrSortedColIndA", cc[2], IV, PLAIN), IN("descrB", F.sort_descr, IV, MATDESCR),
              IN("csrSortedRowPtrB", cc[1], IV, PLAIN), IN("csrSortedColIndB", cc[2], IV, PLAIN),
              IN("descrC", F.sort_descr, IV, MATDESCR), IN("csrSortedRowPtrC", F.geam_off, IV, PLAIN),
              {"nnzTotalDevHostPtr", &F.geam_total, OK, PLAIN, sizeof F.geam_total},
              IN("workspace", F.geam_buf, geam_null, PLAIN)});
#define GEAM_FILL_PTRS(val_a, val_c)                                                                           \
    GEAM_A(val_a, IV, IV), GEAM_B(val_a, IV, IV), IN("csrSortedValC", val_c, IV, PLAIN),                      \
        IN("csrSortedRowPtrC", F.geam_off, IV, PLAIN), IN("csrSortedColIndC", F.geam_col, IV, PLAIN),         \
        IN("pBuffer", F.geam_buf, OK, PLAIN)
    ROW("spblkScsrgeam2", call_Scsrgeam2, .p = {GEAM_FILL_PTRS(cc[0], F.geam_val)});
    ROW("spblkDcsrgeam2", call_Dcsrgeam2,
        .p = {HANDLE_ARG, IN("alpha", &F.done, IV, PLAIN), IN("descrA", F.sort_descr, IV, MATDESCR),
              IN("csrSortedValA", F.geam_dval_a, IV, PLAIN), IN("csrSortedRowPtrA", cc[1], IV, PLAIN),
              IN("csrSortedColIndA", cc[2], IV, PLAIN), IN("beta", &F.done, IV, PLAIN),
              IN("descrB", F.sort_descr, IV, MATDESCR), IN("csrSortedValB", F.geam_dval_a, IV, PLAIN),
              IN("csrSortedRowPtrB", cc[1], IV, PLAIN), IN("csrSortedColIndB", cc[2], IV, PLAIN),
              IN("descrC", F.sort_descr, IV, MATDESCR), IN("csrSortedValC", F.geam_dval_c, IV, PLAIN),
              IN("csrSortedRowPtrC", F.geam_off, IV, PLAIN), IN("csrSortedColIndC", F.geam_col, IV, PLAIN),
              IN("pBuffer", F.geam_buf, OK, PLAIN)});

    /* csric02/csrilu02: the values are checked though the size query does not read them; the
       factorizations do not need the buffer again (the info object knows the analysis'). */
#define FAC_PTRS(val, info, info_kind)                                                                          \
    HANDLE_ARG, IN("descrA", F.sort_descr, IV, MATDESCR), IN("csrSortedValA", val, IV, PLAIN),                   \
        IN("csrSortedRowPtrA", F.fac_ptr, IV, PLAIN), IN("csrSortedColIndA", F.fac_col, IV, PLAIN),              \
        IN("info", info, IV, info_kind)
#define FAC_POLICY {E("policy", SPBLK_SOLVE_POLICY_NO_LEVEL)}
    ROW("spblkCreateCsric02Info", call_CreateCsric02Info, .p = {OUT("info", F.out_ic)}, .cleanup = destroy_ic);
    ROW("spblkDestroyCsric02Info", call_DestroyCsric02Info, .p = {IN("info", FRESH, OK, CSRIC)});
    ROW("spblkCreateCsrilu02Info", call_CreateCsrilu02Info, .p = {OUT("info", F.out_ilu)}, .cleanup = destroy_ilu);
    ROW("spblkDestroyCsrilu02Info", call_DestroyCsrilu02Info, .p = {IN("info", FRESH, OK, CSRILU)});
    ROW("spblkScsric02_bufferSize", call_Scsric02_bufferSize,
        .p = {FAC_PTRS(F.fac_val_s, F.ic, CSRIC), OUT("pBufferSizeInBytes", F.isize)});
    ROW("spblkDcsric02_bufferSize", call_Dcsric02_bufferSize,
        .p = {FAC_PTRS(F.fac_val_d, F.ic, CSRIC), OUT("pBufferSizeInBytes", F.isize)});
    ROW("spblkScsrilu02_bufferSize", call_Scsrilu02_bufferSize,
        .p = {FAC_PTRS(F.fac_val_s, F.ilu, CSRILU), OUT("pBufferSizeInBytes", F.isize)});
    ROW("spblkDcsrilu02_bufferSize", call_Dcsrilu02_bufferSize,
        .p = {FAC_PTRS(F.fac_val_d, F.ilu, CSRILU), OUT("pBufferSizeInBytes", F.isize)});
    /* The analyses (each replaces the info object's analysis with an identical one). */
    ROW("spblkScsric02_analysis", call_Scsric02_analysis,
        .p = {FAC_PTRS(F.fac_val_s, F.ic, CSRIC), IN("pBuffer", F.ic_buf, F.ic_size ? IV : OK, PLAIN)},
        .e = FAC_POLICY);
    ROW("spblkScsrilu02_analysis", call_Scsrilu02_analysis,
        .p = {FAC_PTRS(F.fac_val_s, F.ilu, CSRILU), IN("pBuffer", F.ilu_buf, F.ilu_size ? IV : OK, PLAIN)},
        .e = FAC_POLICY);
    ROW("spblkScsric02", call_Scsric02,
        .p = {FAC_PTRS(F.fac_val_s, F.ic, CSRIC), IN("pBuffer", F.ic_buf, OK, PLAIN)}, .e = FAC_POLICY);
    ROW("spblkScsrilu02", call_Scsrilu02,
        .p = {FAC_PTRS(F.fac_val_s, F.ilu, CSRILU), IN("pBuffer", F.ilu_buf, OK, PLAIN)}, .e = FAC_POLICY);
    ROW("spblkXcsric02_zeroPivot", call_Xcsric02_zeroPivot,
        .p = {HANDLE_ARG, IN("info", F.ic, IV, CSRIC), OUT("position", F.pivot)});
    ROW("spblkXcsrilu02_zeroPivot", call_Xcsrilu02_zeroPivot,
        .p = {HANDLE_ARG, IN("info", F.ilu, IV, CSRILU), OUT("position", F.pivot)});
    ROW("spblkScsrilu02_numericBoost", call_Scsrilu02_numericBoost,
        .p = {HANDLE_ARG, IN("info", F.ilu, IV, CSRILU), IN("tol", &F.tol, IV, PLAIN), IN("boost_val", &F.boost_s, IV, PLAIN)});
    /* The double-precision analyses last: the factorizations below need them. */
    ROW("spblkDcsric02_analysis", call_Dcsric02_analysis,
        .p = {FAC_PTRS(F.fac_val_d, F.ic, CSRIC), IN("pBuffer", F.ic_buf, F.ic_size ? IV : OK, PLAIN)},
        .e = FAC_POLICY);
    ROW("spblkDcsrilu02_analysis", call_Dcsrilu02_analysis,
        .p = {FAC_PTRS(F.fac_val_d, F.ilu, CSRILU), IN("pBuffer", F.ilu_buf, F.ilu_size ? IV : OK, PLAIN)},
        .e = FAC_POLICY);
    ROW("spblkDcsric02", call_Dcsric02,
        .p = {FAC_PTRS(F.fac_val_d, F.ic, CSRIC), IN("pBuffer", F.ic_buf, OK, PLAIN)}, .e = FAC_POLICY);
    ROW("spblkDcsrilu02", call_Dcsrilu02,
        .p = {FAC_PTRS(F.fac_val_d, F.ilu, CSRILU), IN("pBuffer", F.ilu_buf, OK, PLAIN)}, .e = FAC_POLICY);
    ROW("spblkDcsrilu02_numericBoost", call_Dcsrilu02_numericBoost,
        .p = {HANDLE_ARG, IN("info", F.ilu, IV, CSRILU), IN("tol", &F.tol, IV, PLAIN), IN("boost_val", &F.boost_d, IV, PLAIN)});

    /* The BSR products. */
#define BSR_PTRS(val, alpha, in, in_name, out, out_name)                                                       \
    HANDLE_ARG, IN("alpha", alpha, IV, PLAIN), IN("descrA", F.sort_descr, IV, MATDESCR),                      \
        IN("bsrSortedValA", val, IV, PLAIN), IN("bsrSortedRowPtrA", cc[1], IV, PLAIN),                        \
        IN("bsrSortedColIndA", cc[2], IV, PLAIN), IN(in_name, in, IV, PLAIN), IN("beta", alpha, IV, PLAIN),     \
        IN(out_name, out, IV, PLAIN)
#define BSR_ENUMS E("dirA", SPBLK_DIRECTION_ROW), E("transA", N)
    ROW("spblkSbsrmv", call_Sbsrmv, .p = {BSR_PTRS(cc[0], &F.one, F.x_d.val, "x", F.y_d.val, "y")}, .e = {BSR_ENUMS});
    ROW("spblkDbsrmv", call_Dbsrmv, .p = {BSR_PTRS(F.geam_dval_a, &F.done, F.bsr_in_d, "x", F.bsr_out_d, "y")},
        .e = {BSR_ENUMS});
    ROW("spblkSbsrmm", call_Sbsrmm, .p = {BSR_PTRS(cc[0], &F.one, F.b_d.val, "B", F.c_d.val, "C")},
        .e = {BSR_ENUMS, E("transB", N)});
    ROW("spblkDbsrmm", call_Dbsrmm, .p = {BSR_PTRS(F.geam_dval_a, &F.done, F.bsr_in_d, "B", F.bsr_out_d, "C")},
        .e = {BSR_ENUMS, E("transB", N)});

    /* cuSPARSE's logger (level and mask as ints: 99 and -1 are out of range). */
    ROW("spblkLoggerSetCallback", call_LoggerSetCallback, .cleanup = NULL);
    ROW("spblkLoggerSetFile", call_LoggerSetFile, .p = {IN("file", stderr, IV, PLAIN)});
    ROW("spblkLoggerOpenFile", call_LoggerOpenFile, .p = {IN("logFile", "/dev/null", IV, PLAIN)});
    ROW("spblkLoggerSetLevel", call_LoggerSetLevel, .e = {E("level", 0)});
    ROW("spblkLoggerSetMask", call_LoggerSetMask, .e = {E("mask", 0)});
    ROW("spblkLoggerForceDisable", call_LoggerForceDisable, .cleanup = NULL);

    /* Analysis: params may be NULL (the defaults); `info` carries its structSize in. */
    ROW("spblkAnalysisParamsInit", call_AnalysisParamsInit, .p = {OUT("params", F.params)});
    ROW("spblkAnalyze", call_Analyze,
        .p = {HANDLE_ARG, IN("matA", F.analyzed, IV, SPMAT), IN("params", NULL, OK, PLAIN)},
        .e = {E("alg", SPBLK_ANALYSIS_1SA)});
    ROW("spblkAnalysisGetInfo", call_AnalysisGetInfo, .p = {IN("matA", F.analyzed, IV, SPMAT), OUT("info", F.info)});
    ROW("spblkAnalysisGetPermutation", call_AnalysisGetPermutation,
        .p = {IN("matA", F.analyzed, IV, SPMAT), OUT("perm", F.perm)});
    return n;
}

/* ---- the driver -------------------------------------------------------------------------------- */

static int count_ptrs(const fn_case *fc) {
    int n = 0;
    while (n < MAX_PTRS && fc->p[n].name) n++;
    return n;
}

static int count_enums(const fn_case *fc) {
    int n = 0;
    while (n < MAX_ENUMS && fc->e[n].name) n++;
    return n;
}

static int attempts;

/* One call; `what` says how it differs from the valid call, `arg` which argument it is about. */
static void attempt(const fn_case *fc, void **p, const uint32_t *e, spblkStatus_t want, const char *what,
                    const char *arg) {
    int np = count_ptrs(fc), i;
    char before[1024];
    const char *message;
    spblkStatus_t got;
    size_t len = strlen(fc->function);

    for (i = 0; i < np; i++) /* out-parameters start as a known pattern */
        if (fc->p[i].out && p[i] == fc->p[i].value) memset(p[i], 0xA5, fc->p[i].out);
    EXPECT_STATUS(spblkGetVersion(NULL, NULL), NI); /* a known last message */
    strcpy(before, last_error());

    got = fc->call(p, e);
    attempts++;
    if (got != want) {
        FAIL("%s with %s: returned %s, want %s (message: '%s')", fc->function, what, spblkGetErrorName(got),
             spblkGetErrorName(want), got == OK ? "" : last_error());
    }
    if (got == OK) {
        if (fc->cleanup && p[0] != NULL) fc->cleanup(p);
        return;
    }
    for (i = 0; i < np; i++) {
        if (fc->p[i].out && p[i] == fc->p[i].value) {
            const unsigned char *bytes = p[i];
            size_t k, changed = 0;
            for (k = 0; k < fc->p[i].out; k++) changed += bytes[k] != 0xA5;
            EXPECT(changed == 0, "%s with %s failed but wrote its out-parameter '%s'", fc->function, what,
                   fc->p[i].name);
        }
    }
    message = last_error();
    if (fc->keeps_message) {
        EXPECT(strcmp(message, before) == 0, "%s with %s replaced the last message: '%s'", fc->function, what, message);
    } else {
        char quoted[128];
        snprintf(quoted, sizeof quoted, "'%s'", arg);
        EXPECT(strncmp(message, fc->function, len) == 0 && message[len] == ':' && strstr(message, quoted) != NULL,
               "%s with %s: message '%s' does not start with the function and name %s", fc->function, what, message,
               quoted);
    }
}

static void run_function(const fn_case *fc) {
    void *p[MAX_PTRS];
    uint32_t e[MAX_ENUMS];
    int np = count_ptrs(fc), ne = count_enums(fc), i, j;
    char what[160];
    static const uint32_t bad_enums[] = {99u, 0xFFFFFFFFu};

    test_case("%s", fc->function);
    for (i = 0; i < np; i++) p[i] = fc->p[i].value;
    for (j = 0; j < ne; j++) e[j] = fc->e[j].value;
    attempt(fc, p, e, OK, "valid arguments", "");

    for (i = 0; i < np; i++) {
        const ptr_arg *a = &fc->p[i];
        snprintf(what, sizeof what, "%s = NULL", a->name);
        p[i] = NULL;
        attempt(fc, p, e, a->if_null, what, a->name);
        if (a->kind != PLAIN) {
            snprintf(what, sizeof what, "a destroyed %s", a->name);
            p[i] = F.stale[a->kind];
            attempt(fc, p, e, NI, what, a->name);
            snprintf(what, sizeof what, "an object of another kind as %s", a->name);
            p[i] = F.foreign[a->kind];
            attempt(fc, p, e, NI, what, a->name);
        }
        p[i] = a->value;
    }
    for (j = 0; j < ne; j++) {
        size_t b;
        for (b = 0; b < sizeof bad_enums / sizeof bad_enums[0]; b++) {
            snprintf(what, sizeof what, "%s = %u", fc->e[j].name, bad_enums[b]);
            e[j] = bad_enums[b];
            attempt(fc, p, e, fc->e[j].if_bad, what, fc->e[j].name);
        }
        e[j] = fc->e[j].value;
    }
}

int main(void) {
    static fn_case table[MAX_CASES];
    spblkHandle_t h;
    int n, i;
    if (getenv("SPBLK_BACKEND") == NULL && getenv("SPBLK_TEST_DEVICE") == NULL)
        setenv("SPBLK_BACKEND", "host", 1); /* so that the valid spblkCreate succeeds without a GPU */
    h = test_init("test_bad_args");
    setup(h);
    n = build_cases(table);
    for (i = 0; i < n; i++) run_function(&table[i]);
    printf("test_bad_args: %d functions, %d calls\n", n, attempts);
    teardown();
    return test_finish(h);
}
