/* A cuSPARSE program, written with cuSPARSE's own names only, built against spblk's
 * compatibility header and library (issue 13). Compiled as C and as C++ (test_compat.cpp),
 * with -Wall -Wextra -Wpedantic -Werror. Runs on the host backend (SPBLK_BACKEND=host, so all
 * memory is host memory): SpMV, SpMM and a strided-batch SpMM on a small CSR matrix against a
 * naive reference, a legacy matrix descriptor, the version the header declares, cuSPARSE's status names, an argument error
 * from spblk's checks, and a function spblk does not implement. Prints PASSED and exits 0, or names what
 * failed and exits 1. */
#include <cusparse.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            printf("%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond);                \
            failures++;                                                              \
        }                                                                            \
    } while (0)
#define CHECK_STATUS(call, want)                                                      \
    do {                                                                              \
        cusparseStatus_t got_ = (call);                                               \
        if (got_ != (want)) {                                                         \
            printf("%s:%d: FAILED: %s returned %s (%d), expected %s\n", __FILE__, __LINE__, \
                   #call, cusparseGetErrorName(got_), (int)got_, #want);              \
            failures++;                                                               \
        }                                                                             \
    } while (0)

/* A 5x4 matrix in CSR, one-based in the second test. */
enum { M = 5, K = 4, NNZ = 9, N = 3 };
static const int offsets[M + 1] = {0, 2, 3, 5, 5, 9};
static const int columns[NNZ] = {0, 3, 1, 0, 2, 0, 1, 2, 3};
static const double values[NNZ] = {1.5, -2.0, 3.0, 0.5, 4.0, -1.0, 2.5, 1.0, -3.5};

static double dense_a(int i, int j) {
    int p;
    for (p = offsets[i]; p < offsets[i + 1]; ++p)
        if (columns[p] == j) return values[p];
    return 0.0;
}

static void spmv_f32(cusparseHandle_t handle, cusparseIndexBase_t base) {
    float val[NNZ], x[K], y[M], want[M];
    int ptr[M + 1], col[NNZ];
    const float alpha = 2.0f, beta = -1.0f;
    cusparseSpMatDescr_t a;
    cusparseDnVecDescr_t vx, vy;
    size_t size = 1;
    void *buffer;
    int i, j;
    for (i = 0; i <= M; ++i) ptr[i] = offsets[i] + (int)base;
    for (i = 0; i < NNZ; ++i) {
        col[i] = columns[i] + (int)base;
        val[i] = (float)values[i];
    }
    for (j = 0; j < K; ++j) x[j] = 1.0f + 0.25f * (float)j;
    for (i = 0; i < M; ++i) {
        double sum = 0.0;
        y[i] = (float)(i - 2);
        for (j = 0; j < K; ++j) sum += dense_a(i, j) * x[j];
        want[i] = (float)(alpha * sum + beta * y[i]);
    }
    CHECK_STATUS(cusparseCreateCsr(&a, M, K, NNZ, ptr, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, base,
                                   CUDA_R_32F),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateDnVec(&vx, K, x, CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateDnVec(&vy, M, y, CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy,
                                         CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &size),
                 CUSPARSE_STATUS_SUCCESS);
    buffer = size ? malloc(size) : NULL;
    CHECK(size == 0 || buffer != NULL);
    CHECK_STATUS(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F,
                              CUSPARSE_SPMV_ALG_DEFAULT, buffer),
                 CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < M; ++i) CHECK(fabsf(y[i] - want[i]) <= 1e-5f * (1.0f + fabsf(want[i])));
    /* An argument error comes from spblk's checks with cuSPARSE's status value. */
    CHECK_STATUS(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, NULL, vx, &beta, vy, CUDA_R_32F,
                              CUSPARSE_SPMV_ALG_DEFAULT, buffer),
                 CUSPARSE_STATUS_INVALID_VALUE);
    free(buffer);
    CHECK_STATUS(cusparseDestroyDnVec(vx), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroyDnVec(vy), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroySpMat(a), CUSPARSE_STATUS_SUCCESS);
}

/* C = alpha * A * B + beta * C in f64, B and C column-major. */
static void spmm_f64(cusparseHandle_t handle) {
    double b[K * N], c[M * N], want[M * N];
    const double alpha = -0.5, beta = 2.0;
    cusparseConstSpMatDescr_t a;
    cusparseConstDnMatDescr_t mb;
    cusparseDnMatDescr_t mc;
    int64_t rows = 0, cols = 0, nnz = 0;
    size_t size = 0;
    void *buffer;
    int i, j, k;
    for (k = 0; k < K * N; ++k) b[k] = 0.5 * (double)(k % 7) - 1.0;
    for (i = 0; i < M * N; ++i) c[i] = (double)(i % 5);
    for (j = 0; j < N; ++j)
        for (i = 0; i < M; ++i) {
            double sum = 0.0;
            for (k = 0; k < K; ++k) sum += dense_a(i, k) * b[k + j * K];
            want[i + j * M] = alpha * sum + beta * c[i + j * M];
        }
    CHECK_STATUS(cusparseCreateConstCsr(&a, M, K, NNZ, offsets, columns, values, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpMatGetSize(a, &rows, &cols, &nnz), CUSPARSE_STATUS_SUCCESS);
    CHECK(rows == M && cols == K && nnz == NNZ);
    CHECK_STATUS(cusparseCreateConstDnMat(&mb, K, N, K, b, CUDA_R_64F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateDnMat(&mc, M, N, M, c, CUDA_R_64F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         &alpha, a, mb, &beta, mc, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, &size),
                 CUSPARSE_STATUS_SUCCESS);
    buffer = size ? malloc(size) : NULL;
    CHECK(size == 0 || buffer != NULL);
    CHECK_STATUS(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, mb,
                              &beta, mc, CUDA_R_64F, CUSPARSE_SPMM_ALG_DEFAULT, buffer),
                 CUSPARSE_STATUS_SUCCESS);
    free(buffer);
    for (i = 0; i < M * N; ++i) CHECK(fabs(c[i] - want[i]) <= 1e-12 * (1.0 + fabs(want[i])));
    CHECK_STATUS(cusparseDestroyDnMat(mb), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroyDnMat(mc), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroySpMat(a), CUSPARSE_STATUS_SUCCESS);
}

/* NVIDIA's spmm_csr_batched sample, in short: two matrices sharing row offsets (stride 0),
 * with their own columns and values (stride NNZ), times two B, into two C. */
static void spmm_batched_f32(cusparseHandle_t handle) {
    enum { BATCH = 2 };
    float val[BATCH * NNZ], b[BATCH * K * N], c[BATCH * M * N], want[BATCH * M * N];
    int col[BATCH * NNZ];
    const float alpha = 1.0f, beta = 0.0f;
    cusparseSpMatDescr_t a;
    cusparseDnMatDescr_t mb, mc;
    const void *got_offsets = NULL, *got_columns = NULL, *got_values = NULL;
    int64_t rows = 0, cols = 0, nnz = 0;
    cusparseIndexType_t offsets_type, columns_type;
    cusparseIndexBase_t base;
    cudaDataType value_type;
    int count = 0, p, i, j, k, t;
    size_t size = 0;
    void *buffer;
    for (t = 0; t < BATCH; ++t) {
        for (p = 0; p < NNZ; ++p) {
            col[t * NNZ + p] = t == 0 ? columns[p] : K - 1 - columns[p];
            val[t * NNZ + p] = (float)values[p] * (float)(t + 1);
        }
        for (k = 0; k < K * N; ++k) b[t * K * N + k] = (float)((k + 3 * t) % 5) - 2.0f;
        for (j = 0; j < N; ++j)
            for (i = 0; i < M; ++i) {
                double sum = 0.0;
                for (p = offsets[i]; p < offsets[i + 1]; ++p)
                    sum += (double)val[t * NNZ + p] * b[t * K * N + col[t * NNZ + p] + j * K];
                want[t * M * N + i + j * M] = (float)sum;
                c[t * M * N + i + j * M] = NAN; /* beta = 0: never read */
            }
    }
    CHECK_STATUS(cusparseCreateCsr(&a, M, K, NNZ, (void *)offsets, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCsrSetStridedBatch(a, BATCH, 0, NNZ), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpMatGetStridedBatch(a, &count), CUSPARSE_STATUS_SUCCESS);
    CHECK(count == BATCH);
    CHECK_STATUS(cusparseConstCsrGet(a, &rows, &cols, &nnz, &got_offsets, &got_columns, &got_values, &offsets_type,
                                     &columns_type, &base, &value_type),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK(rows == M && cols == K && nnz == NNZ && got_offsets == (const void *)offsets && got_columns == col &&
          got_values == val && value_type == CUDA_R_32F);
    CHECK_STATUS(cusparseCreateDnMat(&mb, K, N, K, b, CUDA_R_32F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateDnMat(&mc, M, N, M, c, CUDA_R_32F, CUSPARSE_ORDER_COL), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDnMatSetStridedBatch(mb, BATCH, K * N), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDnMatSetStridedBatch(mc, BATCH, M * N), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         &alpha, a, mb, &beta, mc, CUDA_R_32F, CUSPARSE_SPMM_CSR_ALG2, &size),
                 CUSPARSE_STATUS_SUCCESS);
    buffer = size ? malloc(size) : NULL;
    CHECK(size == 0 || buffer != NULL);
    CHECK_STATUS(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, mb,
                              &beta, mc, CUDA_R_32F, CUSPARSE_SPMM_CSR_ALG2, buffer),
                 CUSPARSE_STATUS_SUCCESS);
    free(buffer);
    for (i = 0; i < BATCH * M * N; ++i) CHECK(fabsf(c[i] - want[i]) <= 1e-5f * (1.0f + fabsf(want[i])));
    CHECK_STATUS(cusparseDestroyDnMat(mb), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroyDnMat(mc), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroySpMat(a), CUSPARSE_STATUS_SUCCESS);
}

/* The CUDALibrarySamples' sparse-vector data: X = {1, 2, 3, 4} at {0, 3, 4, 7}, Y = 1..8; every
 * result is exact in f32. */
static void sparse_vectors_f32(cusparseHandle_t handle) {
    int idx[4] = {0, 3, 4, 7};
    float x[4] = {1, 2, 3, 4}, y[8] = {1, 2, 3, 4, 5, 6, 7, 8}, z[8] = {0};
    const float two = 2.0f, three = 3.0f, half = 0.5f;
    const float want_y[8] = {5, 6, 9, 16, 21, 18, 21, 32};
    float dot = 0.0f;
    cusparseSpVecDescr_t vx;
    cusparseDnVecDescr_t vy, vz;
    size_t size = 1;
    int64_t n = 0, nnz = 0;
    void *got_idx = NULL, *got_val = NULL;
    cusparseIndexType_t it;
    cusparseIndexBase_t base;
    cudaDataType vt;
    int i;
    CHECK_STATUS(cusparseCreateSpVec(&vx, 8, 4, idx, x, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpVecGet(vx, &n, &nnz, &got_idx, &got_val, &it, &base, &vt), CUSPARSE_STATUS_SUCCESS);
    CHECK(n == 8 && nnz == 4 && got_idx == (void *)idx && got_val == (void *)x && it == CUSPARSE_INDEX_32I &&
          vt == CUDA_R_32F);
    CHECK_STATUS(cusparseCreateDnVec(&vy, 8, y, CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateDnVec(&vz, 8, z, CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpVV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, vx, vy, &dot, CUDA_R_32F, &size),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpVV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, vx, vy, &dot, CUDA_R_32F, NULL),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK(size == 0 && dot == 56.0f);
    CHECK_STATUS(cusparseAxpby(handle, &two, vx, &three, vy), CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < 8; ++i) CHECK(y[i] == want_y[i]);
    CHECK_STATUS(cusparseScatter(handle, vx, vz), CUSPARSE_STATUS_SUCCESS);
    CHECK(z[0] == 1 && z[1] == 0 && z[3] == 2 && z[4] == 3 && z[7] == 4);
    CHECK_STATUS(cusparseGather(handle, vy, vx), CUSPARSE_STATUS_SUCCESS);
    CHECK(x[0] == 5 && x[1] == 16 && x[2] == 21 && x[3] == 32);
    /* Rot with c = s = 1/2 from X = {5, 16, 21, 32} and Y at X's positions the same values. */
    CHECK_STATUS(cusparseRot(handle, &half, &half, vx, vy), CUSPARSE_STATUS_SUCCESS);
    CHECK(x[0] == 5 && x[3] == 32 && y[0] == 0 && y[7] == 0 && y[1] == 6);
    CHECK_STATUS(cusparseDestroySpVec(vx), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroyDnVec(vy), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroyDnVec(vz), CUSPARSE_STATUS_SUCCESS);
}

/* dense2sparse_csr and sparse2dense_csr as in the CUDALibrarySamples: a 5 x 4 row-major
 * matrix with 11 nonzeros to CSR and back. */
static void dense_sparse_f32(cusparseHandle_t handle) {
    float dense[20] = {1, 0, 2, 3, 0, 4, 0, 0, 5, 0, 6, 7, 0, 8, 0, 9, 0, 10, 11, 0}, back[20];
    const int want_offsets[6] = {0, 3, 4, 7, 9, 11}, want_columns[11] = {0, 2, 3, 1, 0, 2, 3, 1, 3, 1, 2};
    int offsets[6], columns[11], i;
    float values[11];
    int64_t rows = 0, cols = 0, nnz = 0;
    size_t size = 1;
    cusparseDnMatDescr_t a, b;
    cusparseSpMatDescr_t s;
    CHECK_STATUS(cusparseCreateDnMat(&a, 5, 4, 4, dense, CUDA_R_32F, CUSPARSE_ORDER_ROW), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateCsr(&s, 5, 4, 0, offsets, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDenseToSparse_bufferSize(handle, a, s, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &size),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDenseToSparse_analysis(handle, a, s, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, NULL),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpMatGetSize(s, &rows, &cols, &nnz), CUSPARSE_STATUS_SUCCESS);
    CHECK(size == 0 && rows == 5 && cols == 4 && nnz == 11);
    CHECK_STATUS(cusparseCsrSetPointers(s, offsets, columns, values), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDenseToSparse_convert(handle, a, s, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, NULL),
                 CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < 6; ++i) CHECK(offsets[i] == want_offsets[i]);
    for (i = 0; i < 11; ++i) CHECK(columns[i] == want_columns[i] && values[i] == (float)(i + 1));
    for (i = 0; i < 20; ++i) back[i] = -1.0f;
    CHECK_STATUS(cusparseCreateDnMat(&b, 5, 4, 4, back, CUDA_R_32F, CUSPARSE_ORDER_ROW), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSparseToDense_bufferSize(handle, s, b, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &size),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSparseToDense(handle, s, b, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, NULL),
                 CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < 20; ++i) CHECK(back[i] == dense[i]);
    CHECK_STATUS(cusparseDestroyDnMat(a), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroyDnMat(b), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroySpMat(s), CUSPARSE_STATUS_SUCCESS);
}

/* The legacy sort helpers as the coosort sample uses them: sort COO by row carrying the
 * identity permutation, gather the values through it, compress the rows; then csrsort. */
static void sort_helpers(cusparseHandle_t handle) {
    int rows[6] = {2, 0, 1, 0, 2, 1}, cols[6] = {1, 2, 0, 0, 0, 1}, p[6], offsets[4], i;
    float vals[6] = {21, 2, 10, 0, 20, 11}, sorted_vals[6];
    const int want_rows[6] = {0, 0, 1, 1, 2, 2}, want_cols[6] = {0, 2, 0, 1, 0, 1}, want_offsets[4] = {0, 2, 4, 6};
    const float want_vals[6] = {0, 2, 10, 11, 20, 21};
    int csr_cols[6] = {2, 0, 1, 0, 1, 0}, csr_p[6];
    size_t size = 1;
    cusparseSpVecDescr_t sorted;
    cusparseDnVecDescr_t unsorted;
    cusparseMatDescr_t descr = NULL;
    CHECK_STATUS(cusparseXcoosort_bufferSizeExt(handle, 3, 3, 6, rows, cols, &size), CUSPARSE_STATUS_SUCCESS);
    CHECK(size == 0);
    CHECK_STATUS(cusparseCreateIdentityPermutation(handle, 6, p), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseXcoosortByRow(handle, 3, 3, 6, rows, cols, p, NULL), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateSpVec(&sorted, 6, 6, p, sorted_vals, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                     CUDA_R_32F),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateDnVec(&unsorted, 6, vals, CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseGather(handle, unsorted, sorted), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseXcoo2csr(handle, rows, 6, 3, offsets, CUSPARSE_INDEX_BASE_ZERO), CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < 6; ++i) CHECK(rows[i] == want_rows[i] && cols[i] == want_cols[i] && sorted_vals[i] == want_vals[i]);
    for (i = 0; i < 4; ++i) CHECK(offsets[i] == want_offsets[i]);
    /* csrsort of unsorted rows {2, 0 | 1, 0 | 1, 0}. */
    CHECK_STATUS(cusparseCreateMatDescr(&descr), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateIdentityPermutation(handle, 6, csr_p), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseXcsrsort(handle, 3, 3, 6, descr, offsets, csr_cols, csr_p, NULL), CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < 6; ++i) CHECK(csr_cols[i] == (i % 2 == 0 ? 0 : (i == 1 ? 2 : 1)) && csr_p[i] == (i ^ 1));
    CHECK_STATUS(cusparseXcsr2coo(handle, offsets, 6, 3, rows, CUSPARSE_INDEX_BASE_ZERO), CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < 6; ++i) CHECK(rows[i] == want_rows[i]);
    CHECK_STATUS(cusparseDestroyMatDescr(descr), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroySpVec(sorted), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDestroyDnVec(unsorted), CUSPARSE_STATUS_SUCCESS);
}

/* The legacy matrix addition C = 2 A - B (f64), B one entry per row at column i % K. */
static void matrix_add(cusparseHandle_t handle) {
    const int b_off[M + 1] = {0, 1, 2, 3, 4, 5}, b_col[M] = {0, 1, 2, 3, 0};
    const double b_val[M] = {1, 1, 1, 1, 1}, alpha = 2.0, beta = -1.0;
    int c_off[M + 1], c_col[NNZ + M], nnz = -1, i, j, p, union_nnz = 0;
    double c_val[NNZ + M];
    size_t size = 1;
    cusparseMatDescr_t d = NULL;
    CHECK_STATUS(cusparseCreateMatDescr(&d), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDcsrgeam2_bufferSizeExt(handle, M, K, &alpha, d, NNZ, values, offsets, columns, &beta, d, M,
                                                 b_val, b_off, b_col, d, NULL, c_off, NULL, &size),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseXcsrgeam2Nnz(handle, M, K, d, NNZ, offsets, columns, d, M, b_off, b_col, d, c_off, &nnz, NULL),
                 CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < M; ++i)
        for (j = 0; j < K; ++j) union_nnz += dense_a(i, j) != 0.0 || j == i % K;
    CHECK(nnz == union_nnz && c_off[M] == nnz);
    CHECK_STATUS(cusparseDcsrgeam2(handle, M, K, &alpha, d, NNZ, values, offsets, columns, &beta, d, M, b_val, b_off,
                                   b_col, d, c_val, c_off, c_col, NULL),
                 CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < M; ++i)
        for (p = c_off[i]; p < c_off[i + 1]; ++p) {
            j = c_col[p];
            CHECK(p == c_off[i] || c_col[p - 1] < j);
            CHECK(c_val[p] == 2.0 * dense_a(i, j) - (j == i % K ? 1.0 : 0.0));
        }
    /* Only general matrices, as in cuSPARSE. */
    CHECK_STATUS(cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_SYMMETRIC), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseXcsrgeam2Nnz(handle, M, K, d, NNZ, offsets, columns, d, M, b_off, b_col, d, c_off, &nnz, NULL),
                 CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED);
    CHECK_STATUS(cusparseDestroyMatDescr(d), CUSPARSE_STATUS_SUCCESS);
}

/* The legacy BSR product with blocks of 1 x 1 (A itself): y = A x with bsrmv (f64). */
static void bsr_product(cusparseHandle_t handle) {
    const double x[K] = {1, -2, 3, 0.5}, one = 1.0, zero = 0.0;
    double y[M], want;
    int i, j;
    cusparseMatDescr_t d = NULL;
    CHECK_STATUS(cusparseCreateMatDescr(&d), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseDbsrmv(handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, M, K, NNZ, &one, d,
                                values, offsets, columns, 1, x, &zero, y),
                 CUSPARSE_STATUS_SUCCESS);
    for (i = 0; i < M; ++i) {
        for (want = 0, j = 0; j < K; ++j) want += dense_a(i, j) * x[j];
        CHECK(y[i] == want);
    }
    CHECK_STATUS(cusparseDestroyMatDescr(d), CUSPARSE_STATUS_SUCCESS);
}

/* The blocked formats' descriptors: sizes as NVIDIA reports them (BSR, Sliced-ELL), the
   Blocked-ELL getter, and an operation that does not take the format refusing it clearly. */
static void blocked_formats(void) {
    int off[3] = {0, 1, 2}, col[2] = {0, 1}, ell_col[2] = {0, -1}, count = 0;
    float val[8] = {0};
    int64_t rows = 0, cols = 0, nnz = 0, block = 0, ell_cols = 0;
    void *ci = NULL, *v = NULL;
    cusparseIndexType_t it;
    cusparseIndexBase_t base;
    cudaDataType vt;
    cusparseSpMatDescr_t m = NULL;
    CHECK_STATUS(cusparseCreateBsr(&m, 2, 2, 2, 2, 2, off, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F, CUSPARSE_ORDER_ROW),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpMatGetSize(m, &rows, &cols, &nnz), CUSPARSE_STATUS_SUCCESS);
    CHECK(rows == 4 && cols == 4 && nnz == 8);
    CHECK_STATUS(cusparseBsrSetStridedBatch(m, 3, 3, 2, 8), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpMatGetStridedBatch(m, &count), CUSPARSE_STATUS_SUCCESS);
    CHECK(count == 3);
    CHECK_STATUS(cusparseDestroySpMat(m), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateBlockedEll(&m, 4, 4, 2, 2, ell_col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ONE,
                                          CUDA_R_32F),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseBlockedEllGet(m, &rows, &cols, &block, &ell_cols, &ci, &v, &it, &base, &vt),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK(rows == 4 && cols == 4 && block == 2 && ell_cols == 2 && ci == (void *)ell_col && v == (void *)val);
    CHECK(it == CUSPARSE_INDEX_32I && base == CUSPARSE_INDEX_BASE_ONE && vt == CUDA_R_32F);
    CHECK_STATUS(cusparseDestroySpMat(m), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateSlicedEll(&m, 4, 4, 3, 4, 2, off, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
                 CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseSpMatGetSize(m, &rows, &cols, &nnz), CUSPARSE_STATUS_SUCCESS);
    CHECK(rows == 4 && cols == 4 && nnz == 3);
    CHECK_STATUS(cusparseBlockedEllGet(m, &rows, &cols, &block, &ell_cols, &ci, &v, &it, &base, &vt),
                 CUSPARSE_STATUS_INVALID_VALUE);
    CHECK_STATUS(cusparseDestroySpMat(m), CUSPARSE_STATUS_SUCCESS);
}

/* The logger: a callback at level 1 sees a failing call's message. */
static int logged = 0;
static void on_log(int level, const char *function, const char *message) {
    if (level == 1 && function != NULL && message != NULL && strstr(message, "dnVecDescr") != NULL) ++logged;
}
static void logger(void) {
    float one = 1.0f;
    CHECK_STATUS(cusparseLoggerSetCallback(on_log), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseLoggerSetLevel(1), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseCreateDnVec(NULL, 1, &one, CUDA_R_32F), CUSPARSE_STATUS_INVALID_VALUE);
    CHECK(logged == 1);
    CHECK_STATUS(cusparseLoggerSetLevel(0), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseLoggerSetCallback(NULL), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseLoggerSetLevel(6), CUSPARSE_STATUS_INVALID_VALUE);
}

int main(void) {
    cusparseHandle_t handle = NULL;
    int version = 0, major = -1, minor = -1, patch = -1;
    CHECK_STATUS(cusparseCreate(&handle), CUSPARSE_STATUS_SUCCESS);
    if (handle == NULL) {
        printf("FAILED: no handle (is SPBLK_BACKEND=host set?)\n");
        return 1;
    }
    /* The version is the one the header declares, as with NVIDIA's library. */
    CHECK_STATUS(cusparseGetVersion(handle, &version), CUSPARSE_STATUS_SUCCESS);
    CHECK(version == CUSPARSE_VERSION && CUSPARSE_VERSION == 12603);
    CHECK_STATUS(cusparseGetProperty(MAJOR_VERSION, &major), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseGetProperty(MINOR_VERSION, &minor), CUSPARSE_STATUS_SUCCESS);
    CHECK_STATUS(cusparseGetProperty(PATCH_LEVEL, &patch), CUSPARSE_STATUS_SUCCESS);
    CHECK(major == CUSPARSE_VER_MAJOR && minor == CUSPARSE_VER_MINOR && patch == CUSPARSE_VER_PATCH);
    CHECK_STATUS(cusparseGetVersion(NULL, &version), CUSPARSE_STATUS_NOT_INITIALIZED);
    /* Status names are cuSPARSE's. */
    CHECK(strcmp(cusparseGetErrorName(CUSPARSE_STATUS_NOT_SUPPORTED), "CUSPARSE_STATUS_NOT_SUPPORTED") == 0);
    CHECK(strcmp(cusparseGetErrorName(CUSPARSE_STATUS_SUCCESS), "CUSPARSE_STATUS_SUCCESS") == 0);
    CHECK(cusparseGetErrorString(CUSPARSE_STATUS_INVALID_VALUE) != NULL);

    spmv_f32(handle, CUSPARSE_INDEX_BASE_ZERO);
    spmv_f32(handle, CUSPARSE_INDEX_BASE_ONE);
    spmm_f64(handle);
    spmm_batched_f32(handle);
    sparse_vectors_f32(handle);
    dense_sparse_f32(handle);

    { /* The legacy matrix descriptor that cuSOLVER and the legacy calls take. */
        cusparseMatDescr_t descr = NULL;
        CHECK_STATUS(cusparseCreateMatDescr(&descr), CUSPARSE_STATUS_SUCCESS);
        CHECK(cusparseGetMatType(descr) == CUSPARSE_MATRIX_TYPE_GENERAL);
        CHECK(cusparseGetMatIndexBase(descr) == CUSPARSE_INDEX_BASE_ZERO);
        CHECK_STATUS(cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_TRIANGULAR), CUSPARSE_STATUS_SUCCESS);
        CHECK_STATUS(cusparseSetMatFillMode(descr, CUSPARSE_FILL_MODE_UPPER), CUSPARSE_STATUS_SUCCESS);
        CHECK_STATUS(cusparseSetMatDiagType(descr, CUSPARSE_DIAG_TYPE_UNIT), CUSPARSE_STATUS_SUCCESS);
        CHECK_STATUS(cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ONE), CUSPARSE_STATUS_SUCCESS);
        CHECK(cusparseGetMatType(descr) == CUSPARSE_MATRIX_TYPE_TRIANGULAR);
        CHECK(cusparseGetMatFillMode(descr) == CUSPARSE_FILL_MODE_UPPER);
        CHECK(cusparseGetMatDiagType(descr) == CUSPARSE_DIAG_TYPE_UNIT);
        CHECK(cusparseGetMatIndexBase(descr) == CUSPARSE_INDEX_BASE_ONE);
        CHECK_STATUS(cusparseSetMatType(descr, (cusparseMatrixType_t)7), CUSPARSE_STATUS_INVALID_VALUE);
        CHECK_STATUS(cusparseDestroyMatDescr(descr), CUSPARSE_STATUS_SUCCESS);
    }

    sort_helpers(handle);
    matrix_add(handle);
    bsr_product(handle);
    blocked_formats();
    logger();

    /* A function spblk does not implement links, loads and fails clearly. */
    {
        cusparseColorInfo_t info = NULL;
        CHECK_STATUS(cusparseCreateColorInfo(&info), CUSPARSE_STATUS_NOT_SUPPORTED);
        CHECK(info == NULL);
    }
    CHECK_STATUS(cusparseDestroy(handle), CUSPARSE_STATUS_SUCCESS);
    printf("%s: cuSPARSE %d through spblk's compatibility library\n", failures ? "FAILED" : "PASSED", version);
    return failures ? 1 : 0;
}
