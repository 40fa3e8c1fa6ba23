/* spblkCsr2cscEx2 against the reference transpose: shape x value type (moved as opaque bytes:
 * f16, f32, f64, c64) x index base x action (NUMERIC, or SYMBOLIC which must leave the values
 * alone) x eight random sizes. Row indices must come out sorted within each column; with m = 0
 * or n = 0 nothing is written; with nnz = 0 the index and value arrays are NULL. */
#include "checks.h"

static const spblkDataType_t types[] = {SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F, SPBLK_C_64F};

int main(void) {
    spblkHandle_t h = test_init("test_csr2csc");
    int code;
    for (code = 0; code < SHAPE_COUNT * 4 * 2 * 2 * 8; code++) {
        int digits = code;
        shape_t shape = (shape_t)pick(&digits, SHAPE_COUNT);
        spblkDataType_t t = types[pick(&digits, 4)];
        spblkIndexBase_t base = (spblkIndexBase_t)pick(&digits, 2);
        spblkAction_t action = pick(&digits, 2) ? SPBLK_ACTION_SYMBOLIC : SPBLK_ACTION_NUMERIC;
        rng_t r = rng_seed(5000 + (uint64_t)code);
        int64_t m = test_dim(&r), n = test_dim(&r);
        csr_t a = csr_generate(&r, shape, m, n, t == SPBLK_C_64F ? SPBLK_R_64F : t);
        test_case("csr2csc #%d: %s %lldx%lld nnz %lld, %s, base %d, %s", code, shape_name(shape), (long long)m,
                  (long long)n, (long long)a.nnz, type_name(t), base, action == SPBLK_ACTION_NUMERIC ? "NUMERIC" : "SYMBOLIC");
        check_csr2csc(h, &a, t, base, action);
        csr_free(&a);
    }
    return test_finish(h);
}
