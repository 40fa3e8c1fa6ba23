/* A cuSPARSE program for the GPU machine (scripts/gpu-compat-check.sh): compiled and linked
 * once against NVIDIA's cusparse.h and libcusparse.so.12, then run twice: on NVIDIA's library,
 * and on spblk's with its lib/spblk/cusparse first on LD_LIBRARY_PATH. It prints which library
 * served it and one line of results per operation (integers exactly, sums of values to 9
 * digits), and compare-runs.py checks that the two runs agree. The operations are generic-API
 * calls that spblk implements: SpMV (f32; f64 transposed), SpMM (f32, column-major), SDDMM,
 * strided-batch SpMM and SDDMM, Csr2cscEx2, SpGEMM (ALG1 protocol), sparse vectors,
 * dense<->sparse, the legacy csrgeam2, bsrmv and bsrmm, and the BSR, Blocked-ELL and
 * Sliced-ELL formats (SpMV, SpMM, DenseToSparse), with bufferSize/preprocess as
 * cuSPARSE's samples do.
 *   cc gpu_program.c -I$CUDA/include -L$CUDA/lib64 -lcusparse -lcudart -ldl -lm */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#define CUDA(call)                                                                              \
    do {                                                                                        \
        cudaError_t e_ = (call);                                                                \
        if (e_ != cudaSuccess) {                                                                \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));       \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)
#define SPARSE(call)                                                                            \
    do {                                                                                        \
        cusparseStatus_t s_ = (call);                                                           \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                                    \
            printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cusparseGetErrorName(s_));     \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

static uint64_t seed = 12345;
static double uniform(void) { /* [-1, 1) */
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(seed >> 11) / 4503599627370496.0 - 1.0;
}

typedef struct {
    int rows, cols, nnz;
    int *ptr, *col; /* host */
    float *val;
} csr_t;

static csr_t random_csr(int rows, int cols, int per_row) {
    csr_t a;
    int i, k;
    a.rows = rows, a.cols = cols, a.nnz = 0;
    a.ptr = malloc(sizeof(int) * (rows + 1));
    a.col = malloc(sizeof(int) * rows * per_row);
    a.val = malloc(sizeof(float) * rows * per_row);
    a.ptr[0] = 0;
    for (i = 0; i < rows; ++i) {
        int c = (int)((uniform() + 1.0) * 7.0); /* ascending columns with random gaps */
        for (k = 0; k < per_row && c < cols; ++k) {
            a.col[a.nnz] = c;
            a.val[a.nnz++] = (float)uniform();
            c += 1 + (int)((uniform() + 1.0) * (double)cols / (2.0 * per_row));
        }
        a.ptr[i + 1] = a.nnz;
    }
    return a;
}

static void *to_device(const void *host, size_t bytes) {
    void *d = NULL;
    CUDA(cudaMalloc(&d, bytes ? bytes : 1));
    if (bytes) CUDA(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

static void *from_device(const void *d, size_t bytes) {
    void *h = malloc(bytes ? bytes : 1);
    if (bytes) CUDA(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    return h;
}

static void *buffer(size_t bytes) {
    void *d = NULL;
    CUDA(cudaMalloc(&d, bytes ? bytes : 1));
    return d;
}

/* Sum, position-weighted sum and sum of magnitudes (the comparison's scale) of n values. */
static void print_f64(const char *what, const double *v, int n) {
    double s = 0, w = 0, a = 0;
    int i;
    for (i = 0; i < n; ++i) s += v[i], w += v[i] * (double)(i % 97 + 1), a += fabs(v[i]);
    printf("%s n=%d sum=%.9e wsum=%.9e asum=%.9e\n", what, n, s, w, a);
}
static void print_f32(const char *what, const float *v, int n) {
    double *d = malloc(sizeof(double) * (n ? n : 1));
    int i;
    for (i = 0; i < n; ++i) d[i] = v[i];
    print_f64(what, d, n);
    free(d);
}
static void print_int(const char *what, const int *v, int n) {
    long long s = 0, w = 0;
    int i;
    for (i = 0; i < n; ++i) s += v[i], w += (long long)v[i] * (i % 97 + 1);
    printf("%s n=%d isum=%lld iwsum=%lld\n", what, n, s, w);
}

/* Sparse vectors: X with 30000 entries of a vector of 100000, Y dense; each result printed. */
static void sparse_vectors(cusparseHandle_t h) {
    enum { SIZE = 100000, NNZ = 30000 };
    int *idx = malloc(sizeof(int) * NNZ), *d_idx, i;
    float *xv = malloc(sizeof(float) * NNZ), *yv = malloc(sizeof(float) * SIZE), *d_x, *d_y, *d_z, *got;
    float alpha = 0.75f, beta = -1.25f, c = 0.6f, s = 0.8f, dot = 0.0f, *d_dot;
    cusparseSpVecDescr_t vx;
    cusparseDnVecDescr_t vy, vz;
    size_t size = 0;
    void *buf;
    for (i = 0; i < NNZ; ++i) idx[i] = 3 * i + (i & 1), xv[i] = (float)uniform();
    for (i = 0; i < SIZE; ++i) yv[i] = (float)uniform();
    d_idx = to_device(idx, sizeof(int) * NNZ), d_x = to_device(xv, sizeof(float) * NNZ);
    d_y = to_device(yv, sizeof(float) * SIZE), d_z = to_device(yv, sizeof(float) * SIZE);
    SPARSE(cusparseCreateSpVec(&vx, SIZE, NNZ, d_idx, d_x, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPARSE(cusparseCreateDnVec(&vy, SIZE, d_y, CUDA_R_32F));
    SPARSE(cusparseCreateDnVec(&vz, SIZE, d_z, CUDA_R_32F));
    SPARSE(cusparseSpVV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, vx, vy, &dot, CUDA_R_32F, &size));
    buf = buffer(size);
    SPARSE(cusparseSpVV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, vx, vy, &dot, CUDA_R_32F, buf));
    print_f32("spvv_host_result", &dot, 1);
    SPARSE(cusparseAxpby(h, &alpha, vx, &beta, vy));
    got = from_device(d_y, sizeof(float) * SIZE);
    print_f32("axpby_y", got, SIZE);
    free(got);
    SPARSE(cusparseRot(h, &c, &s, vx, vy));
    got = from_device(d_x, sizeof(float) * NNZ);
    print_f32("rot_x", got, NNZ);
    free(got);
    got = from_device(d_y, sizeof(float) * SIZE);
    print_f32("rot_y", got, SIZE);
    free(got);
    SPARSE(cusparseScatter(h, vx, vz));
    got = from_device(d_z, sizeof(float) * SIZE);
    print_f32("scatter_z", got, SIZE);
    free(got);
    SPARSE(cusparseGather(h, vy, vx));
    got = from_device(d_x, sizeof(float) * NNZ);
    print_f32("gather_x", got, NNZ);
    free(got);
    d_dot = buffer(sizeof(float));
    SPARSE(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_DEVICE));
    SPARSE(cusparseSpVV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, vx, vz, d_dot, CUDA_R_32F, buf));
    SPARSE(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_HOST));
    got = from_device(d_dot, sizeof(float));
    print_f32("spvv_device_result", got, 1);
    free(got);
    SPARSE(cusparseDestroySpVec(vx));
    SPARSE(cusparseDestroyDnVec(vy));
    SPARSE(cusparseDestroyDnVec(vz));
    CUDA(cudaFree(buf));
    CUDA(cudaFree(d_dot));
    CUDA(cudaFree(d_idx));
    CUDA(cudaFree(d_x));
    CUDA(cudaFree(d_y));
    CUDA(cudaFree(d_z));
    free(idx), free(xv), free(yv);
}

/* A (m x k, CSR) to a column-major dense matrix with ld m + 3, and that back to CSR. */
static void dense_sparse(cusparseHandle_t h, const csr_t *a, int m, int k) {
    const int64_t ld = m + 3;
    int *d_ptr = to_device(a->ptr, sizeof(int) * (m + 1)), *d_col = to_device(a->col, sizeof(int) * a->nnz);
    float *d_val = to_device(a->val, sizeof(float) * a->nnz), *d_dense = buffer(sizeof(float) * ld * k), *got;
    int *d_ptr2 = buffer(sizeof(int) * (m + 1)), *d_col2;
    float *d_val2;
    int64_t rows, cols, nnz;
    cusparseSpMatDescr_t ma, mb;
    cusparseDnMatDescr_t dn;
    size_t size = 0;
    void *buf;
    CUDA(cudaMemset(d_dense, 0xEE, sizeof(float) * ld * k)); /* the padding must survive */
    SPARSE(cusparseCreateCsr(&ma, m, k, a->nnz, d_ptr, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPARSE(cusparseCreateDnMat(&dn, m, k, ld, d_dense, CUDA_R_32F, CUSPARSE_ORDER_COL));
    SPARSE(cusparseSparseToDense_bufferSize(h, ma, dn, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, &size));
    buf = buffer(size);
    SPARSE(cusparseSparseToDense(h, ma, dn, CUSPARSE_SPARSETODENSE_ALG_DEFAULT, buf));
    CUDA(cudaFree(buf));
    got = from_device(d_dense, sizeof(float) * ld * k);
    { /* the elements, then the padding's bytes (0xEE each) */
        float *elements = malloc(sizeof(float) * m * k);
        int64_t i, j, pad_ok = 1;
        for (j = 0; j < k; ++j)
            for (i = 0; i < ld; ++i) {
                if (i < m) elements[i + j * m] = got[i + j * ld];
                else pad_ok &= memcmp(&got[i + j * ld], "\xEE\xEE\xEE\xEE", 4) == 0;
            }
        print_f32("sparse_to_dense", elements, m * k);
        printf("sparse_to_dense padding %s\n", pad_ok ? "kept" : "overwritten");
        free(elements);
    }
    free(got);
    SPARSE(cusparseCreateCsr(&mb, m, k, 0, d_ptr2, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPARSE(cusparseDenseToSparse_bufferSize(h, dn, mb, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &size));
    buf = buffer(size);
    SPARSE(cusparseDenseToSparse_analysis(h, dn, mb, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buf));
    SPARSE(cusparseSpMatGetSize(mb, &rows, &cols, &nnz));
    printf("dense_to_sparse size %lld x %lld nnz %lld\n", (long long)rows, (long long)cols, (long long)nnz);
    d_col2 = buffer(sizeof(int) * nnz), d_val2 = buffer(sizeof(float) * nnz);
    SPARSE(cusparseCsrSetPointers(mb, d_ptr2, d_col2, d_val2));
    SPARSE(cusparseDenseToSparse_convert(h, dn, mb, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buf));
    {
        /* The order of entries within a row is the library's choice (spblk: ascending columns;
           the note line says which this run gave): rows are compared sorted. */
        int *ptr = from_device(d_ptr2, sizeof(int) * (m + 1)), *col = from_device(d_col2, sizeof(int) * nnz);
        float *val = from_device(d_val2, sizeof(float) * nnz);
        int r, p, q, sorted = 1;
        for (r = 0; r < m; ++r)
            for (p = ptr[r] + 1; p < ptr[r + 1]; ++p) {
                int c = col[p];
                float v = val[p];
                sorted &= col[p - 1] < c;
                for (q = p; q > ptr[r] && col[q - 1] > c; --q) col[q] = col[q - 1], val[q] = val[q - 1];
                col[q] = c, val[q] = v;
            }
        printf("note: dense_to_sparse columns ascending within rows: %s\n", sorted ? "yes" : "no");
        print_int("dense_to_sparse_offsets", ptr, m + 1);
        print_int("dense_to_sparse_columns", col, (int)nnz);
        print_f32("dense_to_sparse_values", val, (int)nnz);
        free(ptr), free(col), free(val);
    }
    SPARSE(cusparseDestroySpMat(ma));
    SPARSE(cusparseDestroySpMat(mb));
    SPARSE(cusparseDestroyDnMat(dn));
    CUDA(cudaFree(buf));
    CUDA(cudaFree(d_ptr));
    CUDA(cudaFree(d_col));
    CUDA(cudaFree(d_val));
    CUDA(cudaFree(d_dense));
    CUDA(cudaFree(d_ptr2));
    CUDA(cudaFree(d_col2));
    CUDA(cudaFree(d_val2));
}

/* The legacy matrix addition: C = 1.5 A - 0.5 B with csrgeam2 (f32, scalars on the host),
   B random of A's shape; C's offsets, columns and values printed. */
static void legacy_add(cusparseHandle_t h, const csr_t *a) {
    csr_t b = random_csr(a->rows, a->cols, 5);
    const int m = a->rows, n = a->cols;
    const float alpha = 1.5f, beta = -0.5f;
    int *da_ptr = to_device(a->ptr, sizeof(int) * (m + 1)), *da_col = to_device(a->col, sizeof(int) * a->nnz);
    int *db_ptr = to_device(b.ptr, sizeof(int) * (m + 1)), *db_col = to_device(b.col, sizeof(int) * b.nnz);
    float *da_val = to_device(a->val, sizeof(float) * a->nnz), *db_val = to_device(b.val, sizeof(float) * b.nnz);
    int *dc_ptr = buffer(sizeof(int) * (m + 1)), *dc_col, *ptr, *col, nnz = -1;
    float *dc_val, *val;
    cusparseMatDescr_t d;
    size_t size = 0;
    void *buf;
    SPARSE(cusparseCreateMatDescr(&d));
    SPARSE(cusparseScsrgeam2_bufferSizeExt(h, m, n, &alpha, d, a->nnz, da_val, da_ptr, da_col, &beta, d, b.nnz,
                                           db_val, db_ptr, db_col, d, NULL, dc_ptr, NULL, &size));
    buf = buffer(size);
    SPARSE(cusparseXcsrgeam2Nnz(h, m, n, d, a->nnz, da_ptr, da_col, d, b.nnz, db_ptr, db_col, d, dc_ptr, &nnz, buf));
    printf("csrgeam2 nnz %d\n", nnz);
    dc_col = buffer(sizeof(int) * nnz), dc_val = buffer(sizeof(float) * nnz);
    SPARSE(cusparseScsrgeam2(h, m, n, &alpha, d, a->nnz, da_val, da_ptr, da_col, &beta, d, b.nnz, db_val, db_ptr,
                             db_col, d, dc_val, dc_ptr, dc_col, buf));
    ptr = from_device(dc_ptr, sizeof(int) * (m + 1)), col = from_device(dc_col, sizeof(int) * nnz);
    val = from_device(dc_val, sizeof(float) * nnz);
    print_int("csrgeam2_offsets", ptr, m + 1);
    print_int("csrgeam2_columns", col, nnz);
    print_f32("csrgeam2_values", val, nnz);
    SPARSE(cusparseDestroyMatDescr(d));
    free(ptr), free(col), free(val), free(b.ptr), free(b.col), free(b.val);
    CUDA(cudaFree(buf));
    CUDA(cudaFree(da_ptr));
    CUDA(cudaFree(da_col));
    CUDA(cudaFree(da_val));
    CUDA(cudaFree(db_ptr));
    CUDA(cudaFree(db_col));
    CUDA(cudaFree(db_val));
    CUDA(cudaFree(dc_ptr));
    CUDA(cudaFree(dc_col));
    CUDA(cudaFree(dc_val));
}

/* The legacy BSR products: A = a random CSR pattern of 300 x 200 blocks of 3 x 3 (columns as
   block columns), bsrmv (f32, blocks by row) and bsrmm (f64, blocks by column, op(B) = Bᵀ); then
   SpMV and SpMM (row-major B and C) on the same f32 A through a BSR descriptor. */
static void legacy_bsr(cusparseHandle_t h) {
    const int mb_ = 300, kb = 200, bs = 3, n = 5, m = mb_ * bs, k = kb * bs, ldb = n + 2, ldc = m + 1;
    csr_t p = random_csr(mb_, kb, 6);
    const int values = p.nnz * bs * bs;
    float *val = malloc(sizeof(float) * values), *x = malloc(sizeof(float) * k), *y;
    double *dval = malloc(sizeof(double) * values), *b = malloc(sizeof(double) * ldb * k), *c;
    const float alpha = 1.25f, beta = 0.0f;
    const double dalpha = -0.75, dbeta = 0.5;
    int i;
    int *d_ptr, *d_col;
    float *d_val, *d_x, *d_y;
    double *d_dval, *d_b, *d_c;
    cusparseMatDescr_t d;
    for (i = 0; i < values; ++i) val[i] = (float)uniform(), dval[i] = uniform();
    for (i = 0; i < k; ++i) x[i] = (float)uniform();
    for (i = 0; i < ldb * k; ++i) b[i] = uniform();
    c = malloc(sizeof(double) * ldc * n);
    for (i = 0; i < ldc * n; ++i) c[i] = uniform();
    d_ptr = to_device(p.ptr, sizeof(int) * (mb_ + 1)), d_col = to_device(p.col, sizeof(int) * p.nnz);
    d_val = to_device(val, sizeof(float) * values), d_x = to_device(x, sizeof(float) * k);
    d_y = buffer(sizeof(float) * m);
    d_dval = to_device(dval, sizeof(double) * values), d_b = to_device(b, sizeof(double) * ldb * k);
    d_c = to_device(c, sizeof(double) * ldc * n);
    SPARSE(cusparseCreateMatDescr(&d));
    SPARSE(cusparseSbsrmv(h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, mb_, kb, p.nnz, &alpha, d, d_val,
                          d_ptr, d_col, bs, d_x, &beta, d_y));
    SPARSE(cusparseDbsrmm(h, CUSPARSE_DIRECTION_COLUMN, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE,
                          mb_, n, kb, p.nnz, &dalpha, d, d_dval, d_ptr, d_col, bs, d_b, ldb, &dbeta, d_c, ldc));
    y = from_device(d_y, sizeof(float) * m);
    free(c);
    c = from_device(d_c, sizeof(double) * ldc * n);
    print_f32("bsrmv", y, m);
    print_f64("bsrmm", c, ldc * n);
    { /* The same A (f32, blocks by row) as a generic BSR descriptor: SpMV, and SpMM with a
         row-major B and C (BSR_ALG1). */
        cusparseSpMatDescr_t ma;
        cusparseDnVecDescr_t vx, vy;
        cusparseDnMatDescr_t mb, mc;
        float *d_b, *d_c, *got;
        size_t size = 0;
        void *buf;
        int j;
        float *bf = malloc(sizeof(float) * k * n);
        for (j = 0; j < k * n; ++j) bf[j] = (float)uniform();
        d_b = to_device(bf, sizeof(float) * k * n), d_c = buffer(sizeof(float) * m * n);
        SPARSE(cusparseCreateBsr(&ma, mb_, kb, p.nnz, bs, bs, d_ptr, d_col, d_val, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F, CUSPARSE_ORDER_ROW));
        SPARSE(cusparseCreateDnVec(&vx, k, d_x, CUDA_R_32F));
        SPARSE(cusparseCreateDnVec(&vy, m, d_y, CUDA_R_32F));
        SPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, ma, vx, &beta, vy, CUDA_R_32F,
                                       CUSPARSE_SPMV_ALG_DEFAULT, &size));
        buf = buffer(size);
        SPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, ma, vx, &beta, vy, CUDA_R_32F,
                            CUSPARSE_SPMV_ALG_DEFAULT, buf));
        CUDA(cudaFree(buf));
        got = from_device(d_y, sizeof(float) * m);
        print_f32("spmv_bsr", got, m);
        free(got);
        SPARSE(cusparseCreateDnMat(&mb, k, n, n, d_b, CUDA_R_32F, CUSPARSE_ORDER_ROW));
        SPARSE(cusparseCreateDnMat(&mc, m, n, n, d_c, CUDA_R_32F, CUSPARSE_ORDER_ROW));
        SPARSE(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                       ma, mb, &beta, mc, CUDA_R_32F, CUSPARSE_SPMM_BSR_ALG1, &size));
        buf = buffer(size);
        SPARSE(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, ma, mb, &beta,
                            mc, CUDA_R_32F, CUSPARSE_SPMM_BSR_ALG1, buf));
        CUDA(cudaFree(buf));
        got = from_device(d_c, sizeof(float) * m * n);
        print_f32("spmm_bsr", got, m * n);
        free(got), free(bf);
        SPARSE(cusparseDestroySpMat(ma));
        SPARSE(cusparseDestroyDnVec(vx));
        SPARSE(cusparseDestroyDnVec(vy));
        SPARSE(cusparseDestroyDnMat(mb));
        SPARSE(cusparseDestroyDnMat(mc));
        CUDA(cudaFree(d_b));
        CUDA(cudaFree(d_c));
    }
    SPARSE(cusparseDestroyMatDescr(d));
    free(val), free(x), free(y), free(dval), free(b), free(c), free(p.ptr), free(p.col), free(p.val);
    CUDA(cudaFree(d_ptr));
    CUDA(cudaFree(d_col));
    CUDA(cudaFree(d_val));
    CUDA(cudaFree(d_x));
    CUDA(cudaFree(d_y));
    CUDA(cudaFree(d_dval));
    CUDA(cudaFree(d_b));
    CUDA(cudaFree(d_c));
}

/* A multiple of 1/256 in (-1, 1): exact in f16. */
static float quarter_byte(void) { return (float)(int)(uniform() * 256.0) / 256.0f; }

/* The f16 bits of such a value (normal, exactly representable). */
static unsigned short half_bits(float x) {
    unsigned short sign = x < 0 ? 0x8000 : 0;
    int e;
    float m;
    if (x == 0) return sign;
    m = frexpf(fabsf(x), &e); /* |x| = m 2^e, m in [0.5, 1) */
    return (unsigned short)(sign | ((e - 1 + 15) << 10) | (int)((m * 2.0f - 1.0f) * 1024.0f));
}

/* The ELL formats: SpMM on Blocked-ELL (f16 on tensor cores, blocks of 16, column-major B and
   C; f32, blocks of 4, row-major B and C), DenseToSparse into Blocked-ELL (the block columns
   given, values preset to 7), and SpMV on Sliced-ELL (slices of 32 rows, op N and T) built from
   a random CSR matrix. */
static void ell_formats(cusparseHandle_t h) {
    enum { MB = 24, KB = 20, SLOTS = 4, N = 40 };
    const float one = 1.0f, zero = 0.0f, alpha = 0.5f, beta = -1.0f;
    int bs, i, j, s;
    for (bs = 16; bs >= 4; bs -= 12) {
        const int m = MB * bs, k = KB * bs, ell = SLOTS * bs, f16 = bs == 16;
        const cudaDataType vt = f16 ? CUDA_R_16F : CUDA_R_32F;
        const size_t vsz = f16 ? 2 : 4;
        const cusparseOrder_t order = f16 ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW;
        int *cols = malloc(sizeof(int) * MB * SLOTS);
        unsigned char *val = malloc(vsz * m * ell), *bv = malloc(vsz * k * N);
        float *dense = malloc(sizeof(float) * m * k), *c = malloc(sizeof(float) * m * N), *got;
        void *d_cols, *d_val, *d_b, *d_c, *d_dense, *d_bell, *buf;
        size_t size = 0;
        cusparseSpMatDescr_t ma, mbell;
        cusparseDnMatDescr_t mb, mc, md;
        for (i = 0; i < MB; ++i) /* distinct block columns in random order; about one slot in five padding */
            for (s = 0; s < SLOTS; ++s) {
                int bc;
                do {
                    bc = (int)((uniform() + 1.0) * 0.5 * KB);
                    for (j = 0; j < s && cols[i * SLOTS + j] != bc; ++j) {}
                } while (j < s || bc >= KB);
                cols[i * SLOTS + s] = uniform() < -0.6 ? -1 : bc;
            }
        for (i = 0; i < m * ell; ++i) { /* zero under padding, as the format asks (NVIDIA reads them) */
            const float v = cols[i / ell / bs * SLOTS + i % ell / bs] < 0 ? 0.0f : quarter_byte();
            if (f16) ((unsigned short *)val)[i] = half_bits(v); else ((float *)val)[i] = v;
        }
        for (i = 0; i < k * N; ++i) {
            const float v = quarter_byte();
            if (f16) ((unsigned short *)bv)[i] = half_bits(v); else ((float *)bv)[i] = v;
        }
        for (i = 0; i < m * N; ++i) c[i] = (float)uniform();
        for (i = 0; i < m * k; ++i) dense[i] = (float)uniform();
        d_cols = to_device(cols, sizeof(int) * MB * SLOTS), d_val = to_device(val, vsz * m * ell);
        d_b = to_device(bv, vsz * k * N), d_c = to_device(c, sizeof(float) * m * N);
        SPARSE(cusparseCreateBlockedEll(&ma, m, k, bs, ell, d_cols, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                        vt));
        SPARSE(cusparseCreateDnMat(&mb, k, N, f16 ? k : N, d_b, vt, order));
        SPARSE(cusparseCreateDnMat(&mc, m, N, f16 ? m : N, d_c, CUDA_R_32F, order));
        SPARSE(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, ma,
                                       mb, &beta, mc, CUDA_R_32F, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, &size));
        buf = buffer(size);
        SPARSE(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, ma, mb, &beta,
                            mc, CUDA_R_32F, CUSPARSE_SPMM_BLOCKED_ELL_ALG1, buf));
        CUDA(cudaFree(buf));
        got = from_device(d_c, sizeof(float) * m * N);
        print_f32(f16 ? "spmm_blocked_ell_f16" : "spmm_blocked_ell_f32", got, m * N);
        free(got);
        if (!f16) { /* DenseToSparse into the same block columns. */
            float *preset = malloc(sizeof(float) * m * ell);
            for (i = 0; i < m * ell; ++i) preset[i] = 7.0f;
            d_dense = to_device(dense, sizeof(float) * m * k), d_bell = to_device(preset, sizeof(float) * m * ell);
            SPARSE(cusparseCreateDnMat(&md, m, k, k, d_dense, CUDA_R_32F, CUSPARSE_ORDER_ROW));
            SPARSE(cusparseCreateBlockedEll(&mbell, m, k, bs, ell, d_cols, d_bell, CUSPARSE_INDEX_32I,
                                            CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
            SPARSE(cusparseDenseToSparse_bufferSize(h, md, mbell, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, &size));
            buf = buffer(size);
            SPARSE(cusparseDenseToSparse_analysis(h, md, mbell, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buf));
            SPARSE(cusparseDenseToSparse_convert(h, md, mbell, CUSPARSE_DENSETOSPARSE_ALG_DEFAULT, buf));
            CUDA(cudaFree(buf));
            got = from_device(d_bell, sizeof(float) * m * ell);
            print_f32("dense_to_blocked_ell", got, m * ell);
            free(got), free(preset);
            SPARSE(cusparseDestroyDnMat(md));
            SPARSE(cusparseDestroySpMat(mbell));
            CUDA(cudaFree(d_dense));
            CUDA(cudaFree(d_bell));
        }
        SPARSE(cusparseDestroySpMat(ma));
        SPARSE(cusparseDestroyDnMat(mb));
        SPARSE(cusparseDestroyDnMat(mc));
        CUDA(cudaFree(d_cols));
        CUDA(cudaFree(d_val));
        CUDA(cudaFree(d_b));
        CUDA(cudaFree(d_c));
        free(cols), free(val), free(bv), free(dense), free(c);
    }
    { /* Sliced-ELL: slices of 32 rows, each as wide as its longest row, column-major. */
        enum { SS = 32 };
        csr_t a = random_csr(1000, 700, 9);
        const int slices = (a.rows + SS - 1) / SS;
        int *off = malloc(sizeof(int) * (slices + 1)), *col, slots = 0, op;
        float *val, *x = malloc(sizeof(float) * 1000), *got;
        void *d_off, *d_col, *d_sval, *d_x, *d_y, *buf;
        size_t size = 0;
        cusparseSpMatDescr_t ma;
        cusparseDnVecDescr_t vx, vy;
        off[0] = 0;
        for (s = 0; s < slices; ++s) {
            int width = 0;
            for (i = s * SS; i < (s + 1) * SS && i < a.rows; ++i)
                if (a.ptr[i + 1] - a.ptr[i] > width) width = a.ptr[i + 1] - a.ptr[i];
            off[s + 1] = slots += width * SS;
        }
        col = malloc(sizeof(int) * slots), val = malloc(sizeof(float) * slots);
        for (i = 0; i < slots; ++i) col[i] = -1, val[i] = 0.0f;
        for (i = 0; i < a.rows; ++i)
            for (j = a.ptr[i]; j < a.ptr[i + 1]; ++j) {
                const int slot = off[i / SS] + (j - a.ptr[i]) * SS + i % SS;
                col[slot] = a.col[j], val[slot] = a.val[j];
            }
        for (i = 0; i < 1000; ++i) x[i] = (float)uniform();
        d_off = to_device(off, sizeof(int) * (slices + 1)), d_col = to_device(col, sizeof(int) * slots);
        d_sval = to_device(val, sizeof(float) * slots), d_x = to_device(x, sizeof(float) * 1000);
        d_y = buffer(sizeof(float) * 1000);
        SPARSE(cusparseCreateSlicedEll(&ma, a.rows, a.cols, a.nnz, slots, SS, d_off, d_col, d_sval, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        for (op = 0; op < 2; ++op) {
            const cusparseOperation_t o = op ? CUSPARSE_OPERATION_TRANSPOSE : CUSPARSE_OPERATION_NON_TRANSPOSE;
            const int xn = op ? a.rows : a.cols, yn = op ? a.cols : a.rows;
            const cusparseSpMVAlg_t alg = op ? CUSPARSE_SPMV_SELL_ALG1 : CUSPARSE_SPMV_ALG_DEFAULT;
            SPARSE(cusparseCreateDnVec(&vx, xn, d_x, CUDA_R_32F));
            SPARSE(cusparseCreateDnVec(&vy, yn, d_y, CUDA_R_32F));
            SPARSE(cusparseSpMV_bufferSize(h, o, &one, ma, vx, &zero, vy, CUDA_R_32F, alg, &size));
            buf = buffer(size);
            SPARSE(cusparseSpMV(h, o, &one, ma, vx, &zero, vy, CUDA_R_32F, alg, buf));
            CUDA(cudaFree(buf));
            got = from_device(d_y, sizeof(float) * yn);
            print_f32(op ? "spmv_sell_t" : "spmv_sell", got, yn);
            free(got);
            SPARSE(cusparseDestroyDnVec(vx));
            SPARSE(cusparseDestroyDnVec(vy));
        }
        SPARSE(cusparseDestroySpMat(ma));
        CUDA(cudaFree(d_off));
        CUDA(cudaFree(d_col));
        CUDA(cudaFree(d_sval));
        CUDA(cudaFree(d_x));
        CUDA(cudaFree(d_y));
        free(off), free(col), free(val), free(x), free(a.ptr), free(a.col), free(a.val);
    }
}

int main(void) {
    const int m = 3000, k = 2000, n = 16;
    csr_t a = random_csr(m, k, 9), b = random_csr(k, 1500, 6);
    cusparseHandle_t h;
    cusparseSpMatDescr_t ma, mb, mc;
    cusparseDnVecDescr_t vx, vy;
    cusparseDnMatDescr_t dB, dC;
    int *d_ptr = to_device(a.ptr, sizeof(int) * (m + 1)), *d_col = to_device(a.col, sizeof(int) * a.nnz);
    float *d_val = to_device(a.val, sizeof(float) * a.nnz);
    float alpha = 1.5f, beta = -0.5f, one = 1.0f, zero = 0.0f;
    size_t size = 0, size2 = 0;
    void *buf, *buf2;
    int i, version = 0;

    printf("library: %s\n", dlsym(RTLD_DEFAULT, "spblkGetVersion") ? "spblk" : "NVIDIA");
    SPARSE(cusparseCreate(&h));
    SPARSE(cusparseGetVersion(h, &version));
    printf("cusparseGetVersion %d\n", version);
    SPARSE(cusparseCreateCsr(&ma, m, k, a.nnz, d_ptr, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));

    { /* SpMV f32: y = 1.5 A x - 0.5 y */
        float *x = malloc(sizeof(float) * k), *y = malloc(sizeof(float) * m), *d_x, *d_y;
        for (i = 0; i < k; ++i) x[i] = (float)uniform();
        for (i = 0; i < m; ++i) y[i] = (float)uniform();
        d_x = to_device(x, sizeof(float) * k), d_y = to_device(y, sizeof(float) * m);
        SPARSE(cusparseCreateDnVec(&vx, k, d_x, CUDA_R_32F));
        SPARSE(cusparseCreateDnVec(&vy, m, d_y, CUDA_R_32F));
        SPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, ma, vx, &beta, vy, CUDA_R_32F,
                                       CUSPARSE_SPMV_ALG_DEFAULT, &size));
        buf = buffer(size);
        SPARSE(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, ma, vx, &beta, vy, CUDA_R_32F,
                                       CUSPARSE_SPMV_ALG_DEFAULT, buf));
        SPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, ma, vx, &beta, vy, CUDA_R_32F,
                            CUSPARSE_SPMV_ALG_DEFAULT, buf));
        free(y);
        y = from_device(d_y, sizeof(float) * m);
        print_f32("spmv_f32", y, m);
        SPARSE(cusparseDestroyDnVec(vx));
        SPARSE(cusparseDestroyDnVec(vy));
        CUDA(cudaFree(buf));
        CUDA(cudaFree(d_x));
        CUDA(cudaFree(d_y));
        free(x);
        free(y);
    }
    { /* SpMV f64 transposed: y = A^T x (A's values widened to f64) */
        double *v64 = malloc(sizeof(double) * a.nnz), *x = malloc(sizeof(double) * m), *y, *d_v, *d_x, *d_y;
        double one64 = 1.0, zero64 = 0.0;
        cusparseSpMatDescr_t a64;
        for (i = 0; i < a.nnz; ++i) v64[i] = a.val[i];
        for (i = 0; i < m; ++i) x[i] = uniform();
        d_v = to_device(v64, sizeof(double) * a.nnz), d_x = to_device(x, sizeof(double) * m);
        d_y = buffer(sizeof(double) * k);
        SPARSE(cusparseCreateCsr(&a64, m, k, a.nnz, d_ptr, d_col, d_v, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        SPARSE(cusparseCreateDnVec(&vx, m, d_x, CUDA_R_64F));
        SPARSE(cusparseCreateDnVec(&vy, k, d_y, CUDA_R_64F));
        SPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_TRANSPOSE, &one64, a64, vx, &zero64, vy, CUDA_R_64F,
                                       CUSPARSE_SPMV_ALG_DEFAULT, &size));
        buf = buffer(size);
        SPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_TRANSPOSE, &one64, a64, vx, &zero64, vy, CUDA_R_64F,
                            CUSPARSE_SPMV_ALG_DEFAULT, buf));
        y = from_device(d_y, sizeof(double) * k);
        print_f64("spmv_f64_transposed", y, k);
        SPARSE(cusparseDestroyDnVec(vx));
        SPARSE(cusparseDestroyDnVec(vy));
        SPARSE(cusparseDestroySpMat(a64));
        CUDA(cudaFree(buf));
        CUDA(cudaFree(d_v));
        CUDA(cudaFree(d_x));
        CUDA(cudaFree(d_y));
        free(v64), free(x), free(y);
    }
    { /* Strided batches (as NVIDIA's spmm_csr_batched and sddmm_csr_batched samples): two
       * matrices sharing A's row offsets (stride 0), the second with A's columns and twice its
       * values; C_i = A_i B_i, then D_i = (C_i B_i^T) o spy(A_i) */
        const int nb = 2;
        int *d_col2 = buffer(sizeof(int) * 2 * a.nnz);
        float *v2 = malloc(sizeof(float) * 2 * a.nnz), *hb = malloc(sizeof(float) * 2 * k * n), *hc, *d_v2, *d_b,
              *d_c, *d_out;
        cusparseSpMatDescr_t a2, pat2;
        for (i = 0; i < a.nnz; ++i) v2[i] = a.val[i], v2[a.nnz + i] = 2.0f * a.val[i];
        for (i = 0; i < 2 * k * n; ++i) hb[i] = (float)uniform();
        CUDA(cudaMemcpy(d_col2, d_col, sizeof(int) * a.nnz, cudaMemcpyDeviceToDevice));
        CUDA(cudaMemcpy(d_col2 + a.nnz, d_col, sizeof(int) * a.nnz, cudaMemcpyDeviceToDevice));
        d_v2 = to_device(v2, sizeof(float) * 2 * a.nnz), d_b = to_device(hb, sizeof(float) * 2 * k * n);
        d_c = buffer(sizeof(float) * 2 * m * n), d_out = buffer(sizeof(float) * 2 * a.nnz);
        SPARSE(cusparseCreateCsr(&a2, m, k, a.nnz, d_ptr, d_col2, d_v2, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        SPARSE(cusparseCsrSetStridedBatch(a2, nb, 0, a.nnz));
        SPARSE(cusparseCreateDnMat(&dB, k, n, k, d_b, CUDA_R_32F, CUSPARSE_ORDER_COL));
        SPARSE(cusparseCreateDnMat(&dC, m, n, m, d_c, CUDA_R_32F, CUSPARSE_ORDER_COL));
        SPARSE(cusparseDnMatSetStridedBatch(dB, nb, (int64_t)k * n));
        SPARSE(cusparseDnMatSetStridedBatch(dC, nb, (int64_t)m * n));
        SPARSE(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                       a2, dB, &zero, dC, CUDA_R_32F, CUSPARSE_SPMM_CSR_ALG2, &size));
        buf = buffer(size);
        SPARSE(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a2, dB, &zero,
                            dC, CUDA_R_32F, CUSPARSE_SPMM_CSR_ALG2, buf));
        hc = from_device(d_c, sizeof(float) * 2 * m * n);
        print_f32("spmm_batched_f32", hc, 2 * m * n);
        CUDA(cudaFree(buf));
        SPARSE(cusparseCreateCsr(&pat2, m, k, a.nnz, d_ptr, d_col2, d_out, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        SPARSE(cusparseCsrSetStridedBatch(pat2, nb, 0, a.nnz));
        SPARSE(cusparseSDDMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE, &one, dC,
                                        dB, &zero, pat2, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, &size));
        buf = buffer(size);
        SPARSE(cusparseSDDMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_TRANSPOSE, &one, dC, dB, &zero,
                             pat2, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, buf));
        free(hc);
        hc = from_device(d_out, sizeof(float) * 2 * a.nnz);
        print_f32("sddmm_batched_f32", hc, 2 * a.nnz);
        SPARSE(cusparseDestroySpMat(a2));
        SPARSE(cusparseDestroySpMat(pat2));
        SPARSE(cusparseDestroyDnMat(dB));
        SPARSE(cusparseDestroyDnMat(dC));
        CUDA(cudaFree(buf));
        CUDA(cudaFree(d_col2));
        CUDA(cudaFree(d_v2));
        CUDA(cudaFree(d_b));
        CUDA(cudaFree(d_c));
        CUDA(cudaFree(d_out));
        free(v2), free(hb), free(hc);
    }
    { /* SpMM f32, column-major: C = A B */
        float *hb = malloc(sizeof(float) * k * n), *hc, *d_b, *d_c;
        for (i = 0; i < k * n; ++i) hb[i] = (float)uniform();
        d_b = to_device(hb, sizeof(float) * k * n), d_c = buffer(sizeof(float) * m * n);
        SPARSE(cusparseCreateDnMat(&dB, k, n, k, d_b, CUDA_R_32F, CUSPARSE_ORDER_COL));
        SPARSE(cusparseCreateDnMat(&dC, m, n, m, d_c, CUDA_R_32F, CUSPARSE_ORDER_COL));
        SPARSE(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                       ma, dB, &zero, dC, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &size));
        buf = buffer(size);
        SPARSE(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, dB, &zero,
                            dC, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, buf));
        hc = from_device(d_c, sizeof(float) * m * n);
        print_f32("spmm_f32", hc, m * n);
        CUDA(cudaFree(buf));
        { /* SDDMM on A's pattern: A' = (X Y) o spy(A), X = C (m x n), Y = B^T (n x k) */
            cusparseDnMatDescr_t dX, dY;
            float *d_out = buffer(sizeof(float) * a.nnz), *out;
            cusparseSpMatDescr_t pat;
            SPARSE(cusparseCreateCsr(&pat, m, k, a.nnz, d_ptr, d_col, d_out, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
            SPARSE(cusparseCreateDnMat(&dX, m, n, m, d_c, CUDA_R_32F, CUSPARSE_ORDER_COL));
            SPARSE(cusparseCreateDnMat(&dY, n, k, k, d_b, CUDA_R_32F, CUSPARSE_ORDER_ROW));
            SPARSE(cusparseSDDMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                            &one, dX, dY, &zero, pat, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, &size));
            buf = buffer(size);
            SPARSE(cusparseSDDMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                            &one, dX, dY, &zero, pat, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, buf));
            SPARSE(cusparseSDDMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, dX, dY,
                                 &zero, pat, CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, buf));
            out = from_device(d_out, sizeof(float) * a.nnz);
            print_f32("sddmm_f32", out, a.nnz);
            SPARSE(cusparseDestroyDnMat(dX));
            SPARSE(cusparseDestroyDnMat(dY));
            SPARSE(cusparseDestroySpMat(pat));
            CUDA(cudaFree(buf));
            CUDA(cudaFree(d_out));
            free(out);
        }
        SPARSE(cusparseDestroyDnMat(dB));
        SPARSE(cusparseDestroyDnMat(dC));
        CUDA(cudaFree(d_b));
        CUDA(cudaFree(d_c));
        free(hb), free(hc);
    }
    { /* Csr2cscEx2 */
        int *d_cptr = buffer(sizeof(int) * (k + 1)), *d_rind = buffer(sizeof(int) * a.nnz), *cptr, *rind;
        float *d_cval = buffer(sizeof(float) * a.nnz), *cval;
        SPARSE(cusparseCsr2cscEx2_bufferSize(h, m, k, a.nnz, d_val, d_ptr, d_col, d_cval, d_cptr, d_rind, CUDA_R_32F,
                                             CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                             CUSPARSE_CSR2CSC_ALG1, &size));
        buf = buffer(size);
        SPARSE(cusparseCsr2cscEx2(h, m, k, a.nnz, d_val, d_ptr, d_col, d_cval, d_cptr, d_rind, CUDA_R_32F,
                                  CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, buf));
        cptr = from_device(d_cptr, sizeof(int) * (k + 1)), rind = from_device(d_rind, sizeof(int) * a.nnz);
        cval = from_device(d_cval, sizeof(float) * a.nnz);
        print_int("csr2csc_offsets", cptr, k + 1);
        print_int("csr2csc_rows", rind, a.nnz);
        print_f32("csr2csc_values", cval, a.nnz);
        CUDA(cudaFree(buf));
        CUDA(cudaFree(d_cptr));
        CUDA(cudaFree(d_rind));
        CUDA(cudaFree(d_cval));
        free(cptr), free(rind), free(cval);
    }
    { /* SpGEMM, ALG1 protocol: C = A B */
        int *db_ptr = to_device(b.ptr, sizeof(int) * (k + 1)), *db_col = to_device(b.col, sizeof(int) * b.nnz);
        float *db_val = to_device(b.val, sizeof(float) * b.nnz), *d_cv, *cv;
        int *d_cp = buffer(sizeof(int) * (m + 1)), *d_ci, *cp, *ci;
        int64_t cr, cc, cnnz;
        cusparseSpGEMMDescr_t g;
        SPARSE(cusparseCreateCsr(&mb, k, 1500, b.nnz, db_ptr, db_col, db_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        SPARSE(cusparseCreateCsr(&mc, m, 1500, 0, NULL, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        SPARSE(cusparseSpGEMM_createDescr(&g));
        SPARSE(cusparseSpGEMM_workEstimation(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                             &one, ma, mb, &zero, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g, &size,
                                             NULL));
        buf = buffer(size);
        SPARSE(cusparseSpGEMM_workEstimation(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                             &one, ma, mb, &zero, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g, &size,
                                             buf));
        SPARSE(cusparseSpGEMM_compute(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma,
                                      mb, &zero, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g, &size2, NULL));
        buf2 = buffer(size2);
        SPARSE(cusparseSpGEMM_compute(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma,
                                      mb, &zero, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g, &size2, buf2));
        SPARSE(cusparseSpMatGetSize(mc, &cr, &cc, &cnnz));
        d_ci = buffer(sizeof(int) * cnnz), d_cv = buffer(sizeof(float) * cnnz);
        SPARSE(cusparseCsrSetPointers(mc, d_cp, d_ci, d_cv));
        SPARSE(cusparseSpGEMM_copy(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, ma, mb,
                                   &zero, mc, CUDA_R_32F, CUSPARSE_SPGEMM_DEFAULT, g));
        cp = from_device(d_cp, sizeof(int) * (m + 1)), ci = from_device(d_ci, sizeof(int) * cnnz);
        cv = from_device(d_cv, sizeof(float) * cnnz);
        printf("spgemm size %lld x %lld\n", (long long)cr, (long long)cc);
        print_int("spgemm_offsets", cp, m + 1);
        print_int("spgemm_columns", ci, (int)cnnz);
        print_f32("spgemm_values", cv, (int)cnnz);
        SPARSE(cusparseSpGEMM_destroyDescr(g));
        SPARSE(cusparseDestroySpMat(mb));
        SPARSE(cusparseDestroySpMat(mc));
        CUDA(cudaFree(buf));
        CUDA(cudaFree(buf2));
        CUDA(cudaFree(db_ptr));
        CUDA(cudaFree(db_col));
        CUDA(cudaFree(db_val));
        CUDA(cudaFree(d_cp));
        CUDA(cudaFree(d_ci));
        CUDA(cudaFree(d_cv));
        free(cp), free(ci), free(cv);
    }
    sparse_vectors(h);
    dense_sparse(h, &a, m, k);
    legacy_add(h, &a);
    legacy_bsr(h);
    ell_formats(h);
    SPARSE(cusparseDestroySpMat(ma));
    SPARSE(cusparseDestroy(h));
    CUDA(cudaFree(d_ptr));
    CUDA(cudaFree(d_col));
    CUDA(cudaFree(d_val));
    free(a.ptr), free(a.col), free(a.val), free(b.ptr), free(b.col), free(b.val);
    return 0;
}
