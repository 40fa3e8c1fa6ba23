/* SpMV, y = alpha op(A) x + beta y, against the reference over the grid: shape of A x value
 * type (f32, f64, f16 inputs with f32 compute) x format x algorithm x opA x index type x index
 * base x pointer mode x beta (0 with a NaN-filled y, or not) x preprocess. */
#include <string.h>

#include "checks.h"

static const spblkDataType_t inputs[] = {SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F};
static const spblkDataType_t computes[] = {SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_32F};
static const spblkFormat_t formats[] = {SPBLK_FORMAT_CSR, SPBLK_FORMAT_CSC, SPBLK_FORMAT_COO};
/* DEFAULT, then ALG1 and ALG2 of the format's family (CSR algorithms for CSC too). */
static const spblkSpMVAlg_t algs[][3] = {
    {SPBLK_SPMV_ALG_DEFAULT, SPBLK_SPMV_CSR_ALG1, SPBLK_SPMV_CSR_ALG2},
    {SPBLK_SPMV_ALG_DEFAULT, SPBLK_SPMV_CSR_ALG1, SPBLK_SPMV_CSR_ALG2},
    {SPBLK_SPMV_ALG_DEFAULT, SPBLK_SPMV_COO_ALG1, SPBLK_SPMV_COO_ALG2},
};
static const spblkIndexType_t indices[] = {SPBLK_INDEX_32I, SPBLK_INDEX_64I};

static int decode(int code, shape_t *shape, call_t *c) {
    int type, format;
    memset(c, 0, sizeof *c);
    *shape = (shape_t)pick(&code, SHAPE_COUNT);
    type = pick(&code, 3);
    c->layout.values = inputs[type];
    c->prec.out = c->prec.compute = computes[type];
    format = pick(&code, 3);
    c->layout.format = formats[format];
    c->spmv_alg = algs[format][pick(&code, 3)];
    c->op_a = (spblkOperation_t)pick(&code, 2);
    c->layout.index = indices[pick(&code, 2)];
    c->layout.base = (spblkIndexBase_t)pick(&code, 2);
    c->mode = (spblkPointerMode_t)pick(&code, 2);
    c->alpha = -2.0;
    c->beta = pick(&code, 2) ? 0.5 : 0.0;
    c->preprocess = pick(&code, 2);
    return code == 0;
}

int main(void) {
    spblkHandle_t h = test_init("test_spmv");
    shape_t shape;
    call_t c;
    int code;
    for (code = 0; decode(code, &shape, &c); code++) {
        rng_t r = rng_seed(2000 + (uint64_t)code);
        int64_t rows = test_dim(&r), cols = test_dim(&r);
        csr_t a = csr_generate(&r, shape, rows, cols, c.layout.values);
        test_case("SpMV #%d: A %s %lldx%lld nnz %lld %s %s i%d base %d, alg %u, op(A) %c, pointer mode %s, beta %g%s",
                  code, shape_name(shape), (long long)rows, (long long)cols, (long long)a.nnz,
                  format_name(c.layout.format), type_name(c.layout.values), c.layout.index == SPBLK_INDEX_64I ? 64 : 32,
                  c.layout.base, c.spmv_alg, "NT"[c.op_a], c.mode ? "device" : "host", c.beta,
                  c.preprocess ? ", preprocessed" : "");
        check_spmv(h, &r, &a, &c);
        csr_free(&a);
    }
    return test_finish(h);
}
