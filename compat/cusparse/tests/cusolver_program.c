/* T7 (docs/drop-in.md §4): cuSOLVER under the swap (scripts/gpu-compat-check.sh, check 5).
 * cusolverSpDcsrlsvchol on a 1D Laplacian (2 on the diagonal, -1 beside it, n = 1000) with
 * b = ones, its matrix descriptor made by cusparseCreateMatDescr: cuSOLVER reads it through the
 * cusparse getters, which spblk's library serves when it is first on LD_LIBRARY_PATH. Prints
 * the library that served cuSPARSE, the statuses, and the solution's checksums.
 *   cc cusolver_program.c -I$CUDA/include -L$CUDA/lib64 -lcusolver -lcusparse -lcudart -ldl -lm */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <cuda_runtime_api.h>
#include <cusolverSp.h>
#include <cusparse.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    enum { N = 1000 };
    int ptr[N + 1], col[3 * N], nnz = 0, i, singular = -2;
    double val[3 * N], b[N], x[N], sum = 0, wsum = 0;
    int *d_ptr, *d_col;
    double *d_val, *d_b, *d_x;
    cusolverSpHandle_t sh;
    cusparseMatDescr_t d;
    int st;
    printf("library: %s\n", dlsym(RTLD_DEFAULT, "spblkGetVersion") ? "spblk" : "NVIDIA");
    for (i = 0; i < N; ++i) {
        ptr[i] = nnz;
        if (i > 0) col[nnz] = i - 1, val[nnz++] = -1;
        col[nnz] = i, val[nnz++] = 2;
        if (i + 1 < N) col[nnz] = i + 1, val[nnz++] = -1;
        b[i] = 1;
    }
    ptr[N] = nnz;
    cudaMalloc((void **)&d_ptr, sizeof ptr), cudaMalloc((void **)&d_col, sizeof(int) * nnz);
    cudaMalloc((void **)&d_val, sizeof(double) * nnz), cudaMalloc((void **)&d_b, sizeof b), cudaMalloc((void **)&d_x, sizeof x);
    cudaMemcpy(d_ptr, ptr, sizeof ptr, cudaMemcpyHostToDevice);
    cudaMemcpy(d_col, col, sizeof(int) * nnz, cudaMemcpyHostToDevice);
    cudaMemcpy(d_val, val, sizeof(double) * nnz, cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, sizeof b, cudaMemcpyHostToDevice);
    printf("cusolverSpCreate %d\n", (int)cusolverSpCreate(&sh));
    printf("cusparseCreateMatDescr %d\n", (int)cusparseCreateMatDescr(&d));
    printf("cusparseSetMatType %d\n", (int)cusparseSetMatType(d, CUSPARSE_MATRIX_TYPE_GENERAL));
    st = (int)cusolverSpDcsrlsvchol(sh, N, nnz, d, d_val, d_ptr, d_col, d_b, 1e-12, 0, d_x, &singular);
    cudaMemcpy(x, d_x, sizeof x, cudaMemcpyDeviceToHost);
    for (i = 0; i < N; ++i) sum += x[i], wsum += x[i] * (i % 97 + 1);
    printf("cusolverSpDcsrlsvchol status %d singularity %d sum %.9e wsum %.9e x[499] %.9e\n", st, singular, sum, wsum, x[499]);
    return 0;
}
