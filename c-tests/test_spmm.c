/* SpMM, C = alpha op(A) op(B) + beta C, against the reference over the grid: shape of A x
 * value type (f32, f64, f16 inputs with f32 compute) x format x opA x opB x order of B x order
 * of C x index type x index base x pointer mode x beta (0 with a NaN-filled C, or not) x
 * preprocess x algorithm (DEFAULT, or SPBLK_SPMM_ALG_VBR after spblkAnalyze with default or
 * other 1-SA parameters: CSR with opA = N only). Sizes are random: rectangular, sometimes 0,
 * sometimes large. */
#include <string.h>

#include "checks.h"

static const spblkDataType_t inputs[] = {SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F};
static const spblkDataType_t computes[] = {SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_32F};
static const spblkFormat_t formats[] = {SPBLK_FORMAT_CSR, SPBLK_FORMAT_CSC, SPBLK_FORMAT_COO};
static const spblkIndexType_t indices[] = {SPBLK_INDEX_32I, SPBLK_INDEX_64I};

/* Case number -> call; 0 once the grid is exhausted. */
static int decode(int code, shape_t *shape, call_t *c) {
    int type;
    memset(c, 0, sizeof *c);
    *shape = (shape_t)pick(&code, SHAPE_COUNT);
    type = pick(&code, 3);
    c->layout.values = inputs[type];
    c->prec.out = c->prec.compute = computes[type];
    c->layout.format = formats[pick(&code, 3)];
    c->op_a = (spblkOperation_t)pick(&code, 2);
    c->op_b = (spblkOperation_t)pick(&code, 2);
    c->order_b = pick(&code, 2) ? SPBLK_ORDER_ROW : SPBLK_ORDER_COL;
    c->order_c = pick(&code, 2) ? SPBLK_ORDER_ROW : SPBLK_ORDER_COL;
    c->layout.index = indices[pick(&code, 2)];
    c->layout.base = (spblkIndexBase_t)pick(&code, 2);
    c->mode = (spblkPointerMode_t)pick(&code, 2);
    c->alpha = 1.5;
    c->beta = pick(&code, 2) ? -0.75 : 0.0;
    c->preprocess = pick(&code, 2);
    c->analysis = pick(&code, 3);
    c->spmm_alg = c->analysis ? SPBLK_SPMM_ALG_VBR : SPBLK_SPMM_ALG_DEFAULT;
    return code == 0;
}

int main(void) {
    spblkHandle_t h = test_init("test_spmm");
    shape_t shape;
    call_t c;
    int code;
    for (code = 0; decode(code, &shape, &c); code++) {
        rng_t r = rng_seed(1000 + (uint64_t)code);
        if (c.analysis && (c.layout.format != SPBLK_FORMAT_CSR || c.op_a != SPBLK_OPERATION_NON_TRANSPOSE)) continue;
        int64_t rows = test_dim(&r), cols = test_dim(&r), n = 1 + rng_int(&r, 6);
        csr_t a = csr_generate(&r, shape, rows, cols, c.layout.values);
        test_case("SpMM #%d: A %s %lldx%lld nnz %lld %s %s i%d base %d, op(A) %c op(B) %c, B %s-major, C %s-major "
                  "with %lld columns, pointer mode %s, beta %g%s%s",
                  code, shape_name(shape), (long long)rows, (long long)cols, (long long)a.nnz,
                  format_name(c.layout.format), type_name(c.layout.values), c.layout.index == SPBLK_INDEX_64I ? 64 : 32,
                  c.layout.base, "NT"[c.op_a], "NT"[c.op_b], c.order_b == SPBLK_ORDER_ROW ? "row" : "col",
                  c.order_c == SPBLK_ORDER_ROW ? "row" : "col", (long long)n, c.mode ? "device" : "host", c.beta,
                  c.preprocess ? ", preprocessed" : "",
                  c.analysis ? (c.analysis == 1 ? ", VBR (default 1-SA)" : ", VBR (1-SA cosine, width 4)") : "");
        check_spmm(h, &r, &a, n, &c);
        csr_free(&a);
    }
    return test_finish(h);
}
