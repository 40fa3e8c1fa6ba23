/*
 * SpMM with spblk: C = alpha * A * B + beta * C, with A sparse (CSR) and B, C dense.
 * The calls are cuSPARSE's generic API with cusparse -> spblk.
 *
 * The data lives in host memory, so the handle is on the host backend; with the CUDA backend
 * the same calls take device pointers (see cg.c).
 */
#include <math.h>
#include <spblk.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                 \
    do {                                                                                            \
        spblkStatus_t status_ = (call);                                                             \
        if (status_ != SPBLK_STATUS_SUCCESS) {                                                      \
            char why_[512];                                                                         \
            size_t len_;                                                                            \
            spblkGetLastErrorMessage(why_, sizeof why_, &len_);                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, spblkGetErrorName(status_), why_); \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

enum { M = 3, K = 4, N = 2, NNZ = 6 };

int main(void) {
    /* A = [1 0 2 0]
     *     [0 3 0 0]
     *     [4 0 5 6]  (3 x 4) in CSR, zero-based */
    int row_offsets[M + 1] = {0, 2, 3, 6};
    int columns[NNZ] = {0, 2, 1, 0, 2, 3};
    float values[NNZ] = {1, 2, 3, 4, 5, 6};
    float B[K * N] = {1, 2, 3, 4, 5, 6, 7, 8}; /* 4 x 2, column-major */
    float C[M * N];                            /* 3 x 2, column-major; not read since beta = 0 */
    float alpha = 1.0f, beta = 0.0f, expected, max_error = 0.0f;
    spblkHandle_t handle;
    spblkSpMatDescr_t matA;
    spblkDnMatDescr_t matB, matC;
    size_t buffer_size = 0;
    void *buffer = NULL;
    int i, j, p;

    CHECK(spblkCreateWithBackend(&handle, SPBLK_BACKEND_HOST));
    CHECK(spblkCreateCsr(&matA, M, K, NNZ, row_offsets, columns, values, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                         SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F));
    CHECK(spblkCreateDnMat(&matB, K, N, K, B, SPBLK_R_32F, SPBLK_ORDER_COL));
    CHECK(spblkCreateDnMat(&matC, M, N, M, C, SPBLK_R_32F, SPBLK_ORDER_COL));

    CHECK(spblkSpMM_bufferSize(handle, SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_OPERATION_NON_TRANSPOSE, &alpha, matA,
                               matB, &beta, matC, SPBLK_R_32F, SPBLK_SPMM_ALG_DEFAULT, &buffer_size));
    if (buffer_size > 0) buffer = malloc(buffer_size);
    CHECK(spblkSpMM(handle, SPBLK_OPERATION_NON_TRANSPOSE, SPBLK_OPERATION_NON_TRANSPOSE, &alpha, matA, matB, &beta,
                    matC, SPBLK_R_32F, SPBLK_SPMM_ALG_DEFAULT, buffer));

    CHECK(spblkDestroySpMat(matA));
    CHECK(spblkDestroyDnMat(matB));
    CHECK(spblkDestroyDnMat(matC));
    CHECK(spblkDestroy(handle));
    free(buffer);

    printf("spmm: C = A * B =\n");
    for (i = 0; i < M; i++) {
        for (j = 0; j < N; j++) {
            expected = 0.0f; /* the same product, by hand */
            for (p = row_offsets[i]; p < row_offsets[i + 1]; p++) expected += values[p] * B[columns[p] + j * K];
            if (fabsf(C[i + j * M] - expected) > max_error) max_error = fabsf(C[i + j * M] - expected);
            printf(" %6.1f", C[i + j * M]);
        }
        printf("\n");
    }
    printf("check against a plain loop: max error %g: %s\n", max_error, max_error == 0.0f ? "PASSED" : "FAILED");
    return max_error == 0.0f ? 0 : 1;
}
