/* One checked call of each operation; see checks.h. */
#include "checks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int transposed(spblkOperation_t op) { return op != SPBLK_OPERATION_NON_TRANSPOSE; }

/* Random dense matrix holding op(M) = rows x cols, i.e. stored transposed under T. */
static dense_t random_operand(rng_t *r, spblkOperation_t op, int64_t rows, int64_t cols, spblkOrder_t order,
                              spblkDataType_t t) {
    return transposed(op) ? dense_random(r, cols, rows, order, t) : dense_random(r, rows, cols, order, t);
}

/* The output operand: NaN when beta = 0 (it must not be read), else random; random padding. */
static dense_t output_operand(rng_t *r, int64_t rows, int64_t cols, spblkOrder_t order, const call_t *c) {
    return c->beta == 0.0 ? dense_make(rows, cols, order, rng_int(r, 3)) : dense_random(r, rows, cols, order, c->prec.out);
}

void check_spmv(spblkHandle_t h, rng_t *r, const csr_t *a, const call_t *c) {
    int64_t m = transposed(c->op_a) ? a->cols : a->rows, k = transposed(c->op_a) ? a->rows : a->cols;
    spblkDataType_t in = c->layout.values;
    /* Vectors as n x 1 column-major matrices; their padding (NaN past the end) must stay. */
    dense_t x = dense_random(r, k, 1, SPBLK_ORDER_COL, in), y = output_operand(r, m, 1, SPBLK_ORDER_COL, c);
    dense_t want = dense_clone(&y), got = dense_clone(&y), tol;
    scalar_t alpha = scalar_make(c->alpha, c->prec.compute, c->mode), beta = scalar_make(c->beta, c->prec.compute, c->mode);
    dev_sparse_t da = sparse_upload(a, c->layout);
    dev_dense_t dx = vector_upload(&x, in), dy = vector_upload(&y, c->prec.out);
    size_t size = 0;
    void *buffer = NULL;

    ref_spmm(c->op_a, SPBLK_OPERATION_NON_TRANSPOSE, c->alpha, a, &x, c->beta, &want, &tol, c->prec);
    CHECK(spblkSetPointerMode(h, c->mode));
    CHECK(spblkSpMV_bufferSize(h, c->op_a, alpha.ptr, da.descr, dx.vec, beta.ptr, dy.vec, c->prec.compute, c->spmv_alg,
                               &size));
    if (size > 0) buffer = dev_alloc(size);
    if (c->preprocess)
        CHECK(spblkSpMV_preprocess(h, c->op_a, alpha.ptr, da.descr, dx.vec, beta.ptr, dy.vec, c->prec.compute,
                                   c->spmv_alg, buffer));
    if (CHECK(spblkSpMV(h, c->op_a, alpha.ptr, da.descr, dx.vec, beta.ptr, dy.vec, c->prec.compute, c->spmv_alg,
                        buffer))) {
        dense_download(&got, &dy);
        compare("y", got.val, want.val, tol.val, dense_len(&got));
    }

    if (buffer) dev_free(buffer);
    sparse_free(&da);
    dev_dense_free(&dx);
    dev_dense_free(&dy);
    scalar_free(&alpha);
    scalar_free(&beta);
    dense_free(&x);
    dense_free(&y);
    dense_free(&want);
    dense_free(&got);
    dense_free(&tol);
}

/* spblkAnalyze (1-SA) of A, with the default parameters (kind 1) or non-default ones (2),
 * and a check that the plan's permutation is one. */
static void analyze(spblkHandle_t h, const dev_sparse_t *a, int64_t rows, int kind) {
    spblkAnalysisParams params;
    spblkAnalysisInfo info;
    int64_t *perm = malloc((size_t)(rows ? rows : 1) * sizeof *perm), i;
    char *seen = calloc((size_t)(rows ? rows : 1), 1);
    int is_permutation = 1;
    CHECK(spblkAnalysisParamsInit(&params, sizeof params));
    if (kind == 2) {
        params.blockWidth = 4;
        params.tau = 0.3;
        params.similarity = SPBLK_SIMILARITY_COSINE;
        params.mergeRule = SPBLK_MERGE_PLAIN;
        params.maxGroupHeight = 3;
    }
    CHECK(spblkAnalyze(h, a->descr, SPBLK_ANALYSIS_1SA, kind == 2 ? &params : NULL));
    info.structSize = sizeof info;
    CHECK(spblkAnalysisGetInfo(a->descr, &info));
    EXPECT(info.alg == SPBLK_ANALYSIS_1SA && info.groups >= (rows > 0) && info.groups <= rows,
           "analysis info: alg %u, %lld groups for %lld rows", info.alg, (long long)info.groups, (long long)rows);
    CHECK(spblkAnalysisGetPermutation(a->descr, perm));
    for (i = 0; i < rows; i++) {
        if (perm[i] < 0 || perm[i] >= rows || seen[perm[i]]++) is_permutation = 0;
    }
    EXPECT(is_permutation, "spblkAnalysisGetPermutation does not give a permutation of the %lld rows", (long long)rows);
    free(perm);
    free(seen);
}

void check_spmm(spblkHandle_t h, rng_t *r, const csr_t *a, int64_t n, const call_t *c) {
    int64_t m = transposed(c->op_a) ? a->cols : a->rows, k = transposed(c->op_a) ? a->rows : a->cols;
    spblkDataType_t in = c->layout.values;
    dense_t b = random_operand(r, c->op_b, k, n, c->order_b, in), cc = output_operand(r, m, n, c->order_c, c);
    dense_t want = dense_clone(&cc), got = dense_clone(&cc), tol;
    scalar_t alpha = scalar_make(c->alpha, c->prec.compute, c->mode), beta = scalar_make(c->beta, c->prec.compute, c->mode);
    dev_sparse_t da = sparse_upload(a, c->layout);
    dev_dense_t db = dense_upload(&b, in), dc = dense_upload(&cc, c->prec.out);
    size_t size = 0;
    void *buffer = NULL;

    ref_spmm(c->op_a, c->op_b, c->alpha, a, &b, c->beta, &want, &tol, c->prec);
    if (c->analysis) analyze(h, &da, a->rows, c->analysis);
    CHECK(spblkSetPointerMode(h, c->mode));
    if (c->spmm_alg == SPBLK_SPMM_ALG_VBR && on_gpu() && in == SPBLK_R_64F) {
        /* The CUDA backend has no f64 tensor-core path: it must refuse, never run another method. */
        EXPECT_STATUS(spblkSpMM_bufferSize(h, c->op_a, c->op_b, alpha.ptr, da.descr, db.mat, beta.ptr, dc.mat,
                                           c->prec.compute, c->spmm_alg, &size),
                      SPBLK_STATUS_NOT_SUPPORTED);
        EXPECT_STATUS(spblkSpMM(h, c->op_a, c->op_b, alpha.ptr, da.descr, db.mat, beta.ptr, dc.mat, c->prec.compute,
                                c->spmm_alg, NULL),
                      SPBLK_STATUS_NOT_SUPPORTED);
        goto done;
    }
    CHECK(spblkSpMM_bufferSize(h, c->op_a, c->op_b, alpha.ptr, da.descr, db.mat, beta.ptr, dc.mat, c->prec.compute,
                               c->spmm_alg, &size));
    if (size > 0) buffer = dev_alloc(size);
    if (c->preprocess)
        CHECK(spblkSpMM_preprocess(h, c->op_a, c->op_b, alpha.ptr, da.descr, db.mat, beta.ptr, dc.mat,
                                   c->prec.compute, c->spmm_alg, buffer));
    if (CHECK(spblkSpMM(h, c->op_a, c->op_b, alpha.ptr, da.descr, db.mat, beta.ptr, dc.mat, c->prec.compute,
                        c->spmm_alg, buffer))) {
        dense_download(&got, &dc);
        compare("C", got.val, want.val, tol.val, dense_len(&got));
    }

done:
    if (buffer) dev_free(buffer);
    sparse_free(&da);
    dev_dense_free(&db);
    dev_dense_free(&dc);
    scalar_free(&alpha);
    scalar_free(&beta);
    dense_free(&b);
    dense_free(&cc);
    dense_free(&want);
    dense_free(&got);
    dense_free(&tol);
}

void check_sddmm(spblkHandle_t h, rng_t *r, const csr_t *c, int64_t inner, const call_t *call) {
    spblkDataType_t in = call->layout.values, out = call->prec.out;
    layout_t layout = call->layout;
    size_t nnz = (size_t)c->nnz, size = 0, i;
    dense_t a = random_operand(r, call->op_a, c->rows, inner, call->order_a, in);
    dense_t b = random_operand(r, call->op_b, inner, c->cols, call->order_b, in);
    csr_t start = *c, want = *c; /* C's pattern; values: NaN (beta = 0) or c's */
    double *tol = malloc((nnz ? nnz : 1) * sizeof *tol), *got = malloc((nnz ? nnz : 1) * sizeof *got);
    scalar_t alpha = scalar_make(call->alpha, call->prec.compute, call->mode);
    scalar_t beta = scalar_make(call->beta, call->prec.compute, call->mode);
    dev_sparse_t dc;
    dev_dense_t da = dense_upload(&a, in), db = dense_upload(&b, in);
    void *buffer = NULL;

    start.val = malloc((nnz ? nnz : 1) * sizeof *start.val);
    want.val = malloc((nnz ? nnz : 1) * sizeof *want.val);
    for (i = 0; i < nnz; i++) start.val[i] = want.val[i] = call->beta == 0.0 ? NAN : round_to(out, c->val[i]);
    layout.values = out; /* C holds the output type */
    dc = sparse_upload(&start, layout);
    ref_sddmm(call->op_a, call->op_b, call->alpha, &a, &b, call->beta, &want, tol, call->prec);
    CHECK(spblkSetPointerMode(h, call->mode));
    CHECK(spblkSDDMM_bufferSize(h, call->op_a, call->op_b, alpha.ptr, da.mat, db.mat, beta.ptr, dc.descr,
                                call->prec.compute, SPBLK_SDDMM_ALG_DEFAULT, &size));
    if (size > 0) buffer = dev_alloc(size);
    if (call->preprocess)
        CHECK(spblkSDDMM_preprocess(h, call->op_a, call->op_b, alpha.ptr, da.mat, db.mat, beta.ptr, dc.descr,
                                    call->prec.compute, SPBLK_SDDMM_ALG_DEFAULT, buffer));
    if (CHECK(spblkSDDMM(h, call->op_a, call->op_b, alpha.ptr, da.mat, db.mat, beta.ptr, dc.descr, call->prec.compute,
                         SPBLK_SDDMM_ALG_DEFAULT, buffer)) &&
        nnz > 0) {
        void *host = malloc(nnz * type_size(out));
        from_dev(host, dc.val, nnz * type_size(out));
        unpack_values(got, host, nnz, out);
        compare("C values", got, want.val, tol, nnz);
        free(host);
    }

    if (buffer) dev_free(buffer);
    sparse_free(&dc);
    dev_dense_free(&da);
    dev_dense_free(&db);
    scalar_free(&alpha);
    scalar_free(&beta);
    dense_free(&a);
    dense_free(&b);
    free(start.val);
    free(want.val);
    free(tol);
    free(got);
}

/* Compares C's arrays in backend memory with the reference: structure exactly (so columns
 * must be sorted), values within tolerance. */
static void check_product(const csr_t *want, const double *tol, void *offsets, void *cols, void *vals, layout_t l) {
    int64_t add = -(int64_t)(l.base == SPBLK_INDEX_BASE_ONE), p, bad = 0;
    size_t isz = index_size(l.index), vsz = type_size(l.values), nnz = (size_t)want->nnz;
    size_t n = (size_t)want->rows + 1 + nnz;
    void *host = malloc(n * (isz > vsz ? isz : vsz));
    int64_t *idx = malloc(n * sizeof *idx);
    double *got = malloc((nnz ? nnz : 1) * sizeof *got);

    from_dev(host, offsets, ((size_t)want->rows + 1) * isz);
    unpack_indices(idx, host, (size_t)want->rows + 1, l.index, add);
    for (p = 0; p <= want->rows; p++) bad += idx[p] != want->ptr[p];
    EXPECT(bad == 0, "C's row offsets differ from the reference in %lld places", (long long)bad);
    if (nnz > 0) {
        from_dev(host, cols, nnz * isz);
        unpack_indices(idx, host, nnz, l.index, add);
        for (p = 0, bad = 0; p < want->nnz; p++) bad += idx[p] != want->col[p];
        EXPECT(bad == 0, "C's column indices differ from the (sorted) reference in %lld places", (long long)bad);
        from_dev(host, vals, nnz * vsz);
        unpack_values(got, host, nnz, l.values);
        compare("C values", got, want->val, tol, nnz);
    }
    free(host);
    free(idx);
    free(got);
}

void check_spgemm(spblkHandle_t h, const csr_t *a, const csr_t *b, const call_t *c, int offsets_at_create) {
    const spblkOperation_t N = SPBLK_OPERATION_NON_TRANSPOSE;
    const spblkSpGEMMAlg_t alg = SPBLK_SPGEMM_DEFAULT;
    layout_t l = c->layout;
    spblkDataType_t compute = c->prec.compute;
    size_t isz = index_size(l.index), size1 = 0, size2 = 0;
    int64_t m = a->rows, n = b->cols, rows = -1, cols = -1, nnz = -1;
    double *tol;
    csr_t want = ref_spgemm(c->alpha, a, b, &tol, c->prec);
    scalar_t alpha = scalar_make(c->alpha, compute, c->mode), beta = scalar_make(0.0, compute, c->mode);
    dev_sparse_t da = sparse_upload(a, l), db = sparse_upload(b, l);
    spblkSpMatDescr_t mc = NULL;
    spblkSpGEMMDescr_t op = NULL;
    void *buf1 = NULL, *buf2 = NULL, *offsets = NULL, *cols_c = NULL, *vals_c = NULL;

    if (offsets_at_create) offsets = dev_alloc(((size_t)m + 1) * isz);
    CHECK(spblkCreateCsr(&mc, m, n, 0, offsets, NULL, NULL, l.index, l.index, l.base, l.values));
    CHECK(spblkSpGEMM_createDescr(&op));
    CHECK(spblkSetPointerMode(h, c->mode));

    CHECK(spblkSpGEMM_workEstimation(h, N, N, alpha.ptr, da.descr, db.descr, beta.ptr, mc, compute, alg, op, &size1,
                                     NULL));
    EXPECT(size1 >= 1, "workEstimation asks for %zu bytes (at least 1 expected)", size1);
    buf1 = dev_alloc(size1);
    CHECK(spblkSpGEMM_workEstimation(h, N, N, alpha.ptr, da.descr, db.descr, beta.ptr, mc, compute, alg, op, &size1,
                                     buf1));
    CHECK(spblkSpGEMM_compute(h, N, N, alpha.ptr, da.descr, db.descr, beta.ptr, mc, compute, alg, op, &size2, NULL));
    EXPECT(size2 >= 1, "compute asks for %zu bytes (at least 1 expected)", size2);
    buf2 = dev_alloc(size2);
    CHECK(spblkSpGEMM_compute(h, N, N, alpha.ptr, da.descr, db.descr, beta.ptr, mc, compute, alg, op, &size2, buf2));

    CHECK(spblkSpMatGetSize(mc, &rows, &cols, &nnz));
    EXPECT(rows == m && cols == n && nnz == want.nnz,
           "spblkSpMatGetSize(C) gives %lldx%lld nnz %lld, want %lldx%lld nnz %lld", (long long)rows, (long long)cols,
           (long long)nnz, (long long)m, (long long)n, (long long)want.nnz);
    if (nnz == want.nnz) {
        if (!offsets) offsets = dev_alloc(((size_t)m + 1) * isz);
        if (nnz > 0) { /* with nnz(C) = 0 the arrays stay NULL */
            double *nan = malloc((size_t)nnz * sizeof *nan);
            void *host = malloc((size_t)nnz * type_size(l.values));
            int64_t p;
            for (p = 0; p < nnz; p++) nan[p] = NAN; /* beta = 0: C's old values must not be read */
            pack_values(host, nan, (size_t)nnz, l.values);
            cols_c = dev_alloc((size_t)nnz * isz);
            vals_c = dev_copy(host, (size_t)nnz * type_size(l.values));
            free(nan);
            free(host);
        }
        CHECK(spblkCsrSetPointers(mc, offsets, cols_c, vals_c));
        if (CHECK(spblkSpGEMM_copy(h, N, N, alpha.ptr, da.descr, db.descr, beta.ptr, mc, compute, alg, op)))
            check_product(&want, tol, offsets, cols_c, vals_c, l);
    }

    CHECK(spblkSpGEMM_destroyDescr(op));
    CHECK(spblkDestroySpMat(mc));
    dev_free(buf1);
    dev_free(buf2);
    if (offsets) dev_free(offsets);
    if (cols_c) dev_free(cols_c);
    if (vals_c) dev_free(vals_c);
    sparse_free(&da);
    sparse_free(&db);
    scalar_free(&alpha);
    scalar_free(&beta);
    csr_free(&want);
    free(tol);
}

/* Backend memory holding `bytes` copies of `fill`; NULL when there is nothing to hold. */
static void *filled(size_t bytes, int fill) {
    void *host, *dev;
    if (bytes == 0) return NULL;
    host = malloc(bytes);
    memset(host, fill, bytes);
    dev = dev_copy(host, bytes);
    free(host);
    return dev;
}

static int same_bytes(const void *dev, const void *want, size_t bytes) {
    void *host = malloc(bytes ? bytes : 1);
    int same;
    from_dev(host, dev, bytes);
    same = memcmp(host, want, bytes) == 0;
    free(host);
    return same;
}

void check_csr2csc(spblkHandle_t h, const csr_t *a, spblkDataType_t t, spblkIndexBase_t base, spblkAction_t action) {
    int64_t add = base == SPBLK_INDEX_BASE_ONE;
    size_t m = (size_t)a->rows, n = (size_t)a->cols, nnz = (size_t)a->nnz, vsz = type_size(t), size = 0;
    csr_t want = csr_transpose(a);
    int32_t *row_ptr = malloc((m + 1) * 4), *col_ind = malloc(nnz * 4 + 1);
    int32_t *col_ptr = malloc((n + 1) * 4), *row_ind = malloc(nnz * 4 + 1);
    unsigned char *csr_val = malloc(nnz * vsz + 1), *csc_val = malloc(nnz * vsz + 1), *untouched = malloc(nnz * vsz + 1);
    int empty = m == 0 || n == 0;
    void *d_row_ptr, *d_col_ind, *d_val, *d_col_ptr, *d_row_ind, *d_csc_val, *buffer;

    pack_indices(row_ptr, a->ptr, m + 1, SPBLK_INDEX_32I, add);
    pack_indices(col_ind, a->col, nnz, SPBLK_INDEX_32I, add);
    pack_values(csr_val, a->val, nnz, t);
    pack_indices(col_ptr, want.ptr, n + 1, SPBLK_INDEX_32I, add);
    pack_indices(row_ind, want.col, nnz, SPBLK_INDEX_32I, add);
    pack_values(csc_val, want.val, nnz, t);
    memset(untouched, 0x5a, nnz * vsz);
    /* With nnz = 0 the index and value arrays are NULL (allowed). */
    d_row_ptr = dev_copy(row_ptr, (m + 1) * 4);
    d_col_ind = nnz ? dev_copy(col_ind, nnz * 4) : NULL;
    d_val = nnz ? dev_copy(csr_val, nnz * vsz) : NULL;
    d_col_ptr = filled((n + 1) * 4, 0x5a);
    d_row_ind = filled(nnz * 4, 0x5a);
    d_csc_val = filled(nnz * vsz, 0x5a);

    CHECK(spblkCsr2cscEx2_bufferSize(h, (int)m, (int)n, (int)nnz, d_val, d_row_ptr, d_col_ind, d_csc_val, d_col_ptr,
                                     d_row_ind, t, action, base, SPBLK_CSR2CSC_ALG1, &size));
    EXPECT(size >= 1, "bufferSize is %zu (at least 1 expected)", size);
    buffer = dev_alloc(size);
    if (CHECK(spblkCsr2cscEx2(h, (int)m, (int)n, (int)nnz, d_val, d_row_ptr, d_col_ind, d_csc_val, d_col_ptr,
                              d_row_ind, t, action, base, SPBLK_CSR2CSC_ALG1, buffer))) {
        if (empty) memset(col_ptr, 0x5a, (n + 1) * 4); /* m = 0 or n = 0: nothing is written */
        EXPECT(same_bytes(d_col_ptr, col_ptr, (n + 1) * 4), "cscColPtr differs from the reference");
        if (nnz) {
            EXPECT(same_bytes(d_row_ind, row_ind, nnz * 4), "cscRowInd differs from the reference (sorted rows)");
            if (action == SPBLK_ACTION_NUMERIC)
                EXPECT(same_bytes(d_csc_val, csc_val, nnz * vsz), "cscVal differs from the reference");
            else
                EXPECT(same_bytes(d_csc_val, untouched, nnz * vsz), "SYMBOLIC changed cscVal");
        }
        EXPECT(same_bytes(d_row_ptr, row_ptr, (m + 1) * 4), "the input csrRowPtr was changed");
    }

    dev_free(buffer);
    dev_free(d_row_ptr);
    dev_free(d_col_ptr);
    if (nnz) {
        dev_free(d_col_ind);
        dev_free(d_val);
        dev_free(d_row_ind);
        dev_free(d_csc_val);
    }
    free(row_ptr);
    free(col_ind);
    free(col_ptr);
    free(row_ind);
    free(csr_val);
    free(csc_val);
    free(untouched);
    csr_free(&want);
}
