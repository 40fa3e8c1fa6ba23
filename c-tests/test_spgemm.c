/* SpGEMM, C = alpha A B, through cuSPARSE's whole protocol (size queries with NULL buffers,
 * sizes >= 1, nnz(C) from spblkSpMatGetSize, spblkCsrSetPointers, copy) against the reference:
 * shapes of A and B x value type (f32, f64, f16 with f32 compute) x index type x index base x
 * pointer mode x C's offsets given at creation or NULL. C's structure (sorted columns) must
 * match exactly; the protocol's errors are checked too. */
#include <string.h>

#include "checks.h"

static const spblkDataType_t types[] = {SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F};
static const spblkDataType_t computes[] = {SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_32F};
static const spblkIndexType_t indices[] = {SPBLK_INDEX_32I, SPBLK_INDEX_64I};
static const spblkOperation_t N = SPBLK_OPERATION_NON_TRANSPOSE;
static const spblkSpGEMMAlg_t ALG = SPBLK_SPGEMM_DEFAULT;

static int decode(int code, shape_t *shape_a, shape_t *shape_b, int *offsets_at_create, call_t *c) {
    int type;
    memset(c, 0, sizeof *c);
    *shape_a = (shape_t)pick(&code, SHAPE_COUNT);
    *shape_b = (shape_t)pick(&code, SHAPE_COUNT);
    type = pick(&code, 3);
    c->layout.format = SPBLK_FORMAT_CSR;
    c->layout.values = c->prec.out = types[type];
    c->prec.compute = computes[type];
    c->layout.index = indices[pick(&code, 2)];
    c->layout.base = (spblkIndexBase_t)pick(&code, 2);
    c->mode = (spblkPointerMode_t)pick(&code, 2);
    c->alpha = 1.25;
    *offsets_at_create = pick(&code, 2);
    return code == 0;
}

/* The protocol's errors: out-of-order calls, buffers smaller than asked for, transposes. */
static void protocol_errors(spblkHandle_t h) {
    rng_t r = rng_seed(99);
    csr_t a = csr_generate(&r, SHAPE_RANDOM, 12, 12, SPBLK_R_32F);
    layout_t l = {SPBLK_FORMAT_CSR, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F};
    dev_sparse_t da = sparse_upload(&a, l);
    float alpha = 1.0f, beta = 0.0f;
    spblkSpMatDescr_t c = NULL;
    spblkSpGEMMDescr_t op = NULL;
    size_t size1 = 0, size2 = 0, small;
    void *buf1, *buf2;
    const spblkDataType_t F = SPBLK_R_32F;

    test_case("SpGEMM protocol errors");
    CHECK(spblkSetPointerMode(h, SPBLK_POINTER_MODE_HOST));
    CHECK(spblkCreateCsr(&c, 12, 12, 0, NULL, NULL, NULL, l.index, l.index, l.base, F));
    CHECK(spblkSpGEMM_createDescr(&op));
    EXPECT_STATUS(spblkSpGEMM_compute(h, N, N, &alpha, da.descr, da.descr, &beta, c, F, ALG, op, &size2, NULL),
                  SPBLK_STATUS_INVALID_VALUE); /* before workEstimation */
    EXPECT_STATUS(spblkSpGEMM_copy(h, N, N, &alpha, da.descr, da.descr, &beta, c, F, ALG, op),
                  SPBLK_STATUS_INVALID_VALUE); /* before compute */
    EXPECT_STATUS(spblkSpGEMM_workEstimation(h, SPBLK_OPERATION_TRANSPOSE, N, &alpha, da.descr, da.descr, &beta, c,
                                             F, ALG, op, &size1, NULL),
                  SPBLK_STATUS_NOT_SUPPORTED);
    CHECK(spblkSpGEMM_workEstimation(h, N, N, &alpha, da.descr, da.descr, &beta, c, F, ALG, op, &size1, NULL));
    buf1 = dev_alloc(size1);
    small = size1 - 1;
    EXPECT_STATUS(spblkSpGEMM_workEstimation(h, N, N, &alpha, da.descr, da.descr, &beta, c, F, ALG, op, &small, buf1),
                  SPBLK_STATUS_INSUFFICIENT_RESOURCES);
    CHECK(spblkSpGEMM_workEstimation(h, N, N, &alpha, da.descr, da.descr, &beta, c, F, ALG, op, &size1, buf1));
    CHECK(spblkSpGEMM_compute(h, N, N, &alpha, da.descr, da.descr, &beta, c, F, ALG, op, &size2, NULL));
    buf2 = dev_alloc(size2);
    small = size2 - 1;
    EXPECT_STATUS(spblkSpGEMM_compute(h, N, N, &alpha, da.descr, da.descr, &beta, c, F, ALG, op, &small, buf2),
                  SPBLK_STATUS_INSUFFICIENT_RESOURCES);
    CHECK(spblkSpGEMM_compute(h, N, N, &alpha, da.descr, da.descr, &beta, c, F, ALG, op, &size2, buf2));
    /* C's arrays are not set yet: copy must refuse rather than write through NULL. */
    EXPECT_STATUS(spblkSpGEMM_copy(h, N, N, &alpha, da.descr, da.descr, &beta, c, F, ALG, op),
                  SPBLK_STATUS_INVALID_VALUE);

    CHECK(spblkSpGEMM_destroyDescr(op));
    CHECK(spblkDestroySpMat(c));
    dev_free(buf1);
    dev_free(buf2);
    sparse_free(&da);
    csr_free(&a);
}

int main(void) {
    spblkHandle_t h = test_init("test_spgemm");
    shape_t shape_a, shape_b;
    int code, offsets_at_create;
    call_t c;
    protocol_errors(h);
    for (code = 0; decode(code, &shape_a, &shape_b, &offsets_at_create, &c); code++) {
        rng_t r = rng_seed(4000 + (uint64_t)code);
        int64_t m = test_dim(&r), inner = test_dim(&r), n = test_dim(&r);
        csr_t a = csr_generate(&r, shape_a, m, inner, c.layout.values);
        csr_t b = csr_generate(&r, shape_b, inner, n, c.layout.values);
        test_case("SpGEMM #%d: A %s %lldx%lld nnz %lld, B %s %lldx%lld nnz %lld, %s i%d base %d, pointer mode %s, "
                  "C's offsets %s at creation",
                  code, shape_name(shape_a), (long long)m, (long long)inner, (long long)a.nnz, shape_name(shape_b),
                  (long long)inner, (long long)n, (long long)b.nnz, type_name(c.layout.values),
                  c.layout.index == SPBLK_INDEX_64I ? 64 : 32, c.layout.base, c.mode ? "device" : "host",
                  offsets_at_create ? "given" : "NULL");
        check_spgemm(h, &a, &b, &c, offsets_at_create);
        csr_free(&a);
        csr_free(&b);
    }
    return test_finish(h);
}
