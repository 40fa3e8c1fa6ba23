/*
 * One call of each spblk operation, checked against the reference. The grid tests
 * (test_spmv.c, ...) and test_matrices.c differ only in the inputs they hand these.
 * Failures are reported under the current test_case().
 */
#ifndef SPBLK_TEST_CHECKS_H
#define SPBLK_TEST_CHECKS_H

#include "common.h"

/* How a call is made. Fields an operation does not use are ignored. */
typedef struct {
    layout_t layout;         /* of the sparse operand (its value type is the input type) */
    precision_t prec;        /* output and compute type */
    spblkOperation_t op_a, op_b;
    spblkOrder_t order_a, order_b, order_c; /* of the dense operands */
    spblkPointerMode_t mode; /* where alpha and beta live */
    double alpha, beta;      /* beta = 0: the output starts as NaN (it must not be read) */
    spblkSpMVAlg_t spmv_alg;
    spblkSpMMAlg_t spmm_alg; /* SPBLK_SPMM_ALG_VBR needs `analysis` */
    int analysis;            /* SpMM: spblkAnalyze(1-SA) first; 1 = default params, 2 = others */
    int preprocess;          /* call *_preprocess before the operation */
} call_t;

/* y = alpha op(A) x + beta y; x and y random. */
void check_spmv(spblkHandle_t h, rng_t *r, const csr_t *a, const call_t *c);
/* C = alpha op(A) op(B) + beta C with n columns in C; B and C random. */
void check_spmm(spblkHandle_t h, rng_t *r, const csr_t *a, int64_t n, const call_t *c);
/* C = alpha (op(A) op(B)) .* spy(C) + beta C on the pattern of `c` (its values are C's),
 * with op(A) of `inner` columns; A and B random. */
void check_sddmm(spblkHandle_t h, rng_t *r, const csr_t *c, int64_t inner, const call_t *call);
/* C = alpha A B through the whole SpGEMM protocol; C's offsets are given to spblkCreateCsr
 * or left NULL until spblkCsrSetPointers. */
void check_spgemm(spblkHandle_t h, const csr_t *a, const csr_t *b, const call_t *c, int offsets_at_create);
/* spblkCsr2cscEx2 of A with values of type t (moved as opaque bytes). */
void check_csr2csc(spblkHandle_t h, const csr_t *a, spblkDataType_t t, spblkIndexBase_t base, spblkAction_t action);

#endif /* SPBLK_TEST_CHECKS_H */
