/* SDDMM, C = alpha (op(A) op(B)) .* spy(C) + beta C with C in CSR, against the reference over
 * the grid: shape of C x value type (f32, f64, f16 inputs with f32 compute and output) x opA x
 * opB x order of A x order of B x index type x index base x pointer mode x beta (0 with NaN
 * values in C, or not) x preprocess. */
#include <string.h>

#include "checks.h"

static const spblkDataType_t inputs[] = {SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F};
static const spblkDataType_t computes[] = {SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_32F};
static const spblkIndexType_t indices[] = {SPBLK_INDEX_32I, SPBLK_INDEX_64I};

static int decode(int code, shape_t *shape, call_t *c) {
    int type;
    memset(c, 0, sizeof *c);
    *shape = (shape_t)pick(&code, SHAPE_COUNT);
    type = pick(&code, 3);
    c->layout.format = SPBLK_FORMAT_CSR;
    c->layout.values = inputs[type];
    c->prec.out = c->prec.compute = computes[type];
    c->op_a = (spblkOperation_t)pick(&code, 2);
    c->op_b = (spblkOperation_t)pick(&code, 2);
    c->order_a = pick(&code, 2) ? SPBLK_ORDER_ROW : SPBLK_ORDER_COL;
    c->order_b = pick(&code, 2) ? SPBLK_ORDER_ROW : SPBLK_ORDER_COL;
    c->layout.index = indices[pick(&code, 2)];
    c->layout.base = (spblkIndexBase_t)pick(&code, 2);
    c->mode = (spblkPointerMode_t)pick(&code, 2);
    c->alpha = 0.5;
    c->beta = pick(&code, 2) ? 2.0 : 0.0;
    c->preprocess = pick(&code, 2);
    return code == 0;
}

int main(void) {
    spblkHandle_t h = test_init("test_sddmm");
    shape_t shape;
    call_t c;
    int code;
    for (code = 0; decode(code, &shape, &c); code++) {
        rng_t r = rng_seed(3000 + (uint64_t)code);
        int64_t m = test_dim(&r), n = test_dim(&r), inner = 1 + rng_int(&r, 8);
        csr_t pattern = csr_generate(&r, shape, m, n, c.prec.out);
        test_case("SDDMM #%d: C %s %lldx%lld nnz %lld i%d base %d, inner %lld, %s, op(A) %c %s-major, op(B) %c "
                  "%s-major, pointer mode %s, beta %g%s",
                  code, shape_name(shape), (long long)m, (long long)n, (long long)pattern.nnz,
                  c.layout.index == SPBLK_INDEX_64I ? 64 : 32, c.layout.base, (long long)inner,
                  type_name(c.layout.values), "NT"[c.op_a], c.order_a == SPBLK_ORDER_ROW ? "row" : "col", "NT"[c.op_b],
                  c.order_b == SPBLK_ORDER_ROW ? "row" : "col", c.mode ? "device" : "host", c.beta,
                  c.preprocess ? ", preprocessed" : "");
        check_sddmm(h, &r, &pattern, inner, &c);
        csr_free(&pattern);
    }
    return test_finish(h);
}
