/*
 * Conjugate gradient for the 2-D Poisson equation (5-point Laplacian on an n x n grid), with
 * spblk doing the sparse matrix-vector products and plain loops doing the vector updates.
 *
 *   ./cg [n]        (default n = 128, i.e. 16384 unknowns)
 *
 * It runs on the GPU when there is one (CUDA backend, matrix and vectors in device memory)
 * and on the CPU otherwise (host backend), and says which. SPBLK_BACKEND=host|cuda in the
 * environment forces the choice.
 */
#include <math.h>
#include <spblk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

int main(int argc, char **argv) {
    int grid = argc > 1 ? atoi(argv[1]) : 128, n, nnz = 0, i, j, it;
    const int max_iterations = 10000;
    const double tolerance = 1e-10;
    int *row_offsets, *columns;
    double *values, *b, *x, *r, *p, *Ap, alpha = 1.0, beta = 0.0, rr, rr_new, residual, norm_b;
    void *d_offsets, *d_columns, *d_values, *d_p, *d_Ap, *buffer = NULL;
    spblkHandle_t handle;
    spblkSpMatDescr_t A;
    spblkDnVecDescr_t vec_p, vec_Ap;
    size_t buffer_size = 0;

    if (grid < 2) grid = 2;
    n = grid * grid;
    example_name = "cg";
    handle = pick_backend();

    /* The 5-point Laplacian: 4 on the diagonal, -1 for each grid neighbour. */
    row_offsets = malloc((size_t)(n + 1) * sizeof *row_offsets);
    columns = malloc((size_t)5 * n * sizeof *columns);
    values = malloc((size_t)5 * n * sizeof *values);
    for (i = 0; i < grid; i++) {
        for (j = 0; j < grid; j++) {
            int row = i * grid + j;
            row_offsets[row] = nnz;
            int neighbours[5] = {row - grid, row - 1, row, row + 1, row + grid}, k;
            int present[5] = {i > 0, j > 0, 1, j < grid - 1, i < grid - 1};
            for (k = 0; k < 5; k++) { /* columns in increasing order */
                if (!present[k]) continue;
                columns[nnz] = neighbours[k];
                values[nnz++] = k == 2 ? 4.0 : -1.0;
            }
        }
    }
    row_offsets[n] = nnz;
    printf("cg: 2-D Poisson, %d x %d grid: %d unknowns, %d nonzeros\n", grid, grid, n, nnz);

    /* The matrix and the two vectors spblk touches live in the backend's memory. */
    d_offsets = backend_alloc((size_t)(n + 1) * sizeof(int));
    d_columns = backend_alloc((size_t)nnz * sizeof(int));
    d_values = backend_alloc((size_t)nnz * sizeof(double));
    d_p = backend_alloc((size_t)n * sizeof(double));
    d_Ap = backend_alloc((size_t)n * sizeof(double));
    upload(d_offsets, row_offsets, (size_t)(n + 1) * sizeof(int));
    upload(d_columns, columns, (size_t)nnz * sizeof(int));
    upload(d_values, values, (size_t)nnz * sizeof(double));
    CHECK(spblkCreateCsr(&A, n, n, nnz, d_offsets, d_columns, d_values, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                         SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
    CHECK(spblkCreateDnVec(&vec_p, n, d_p, SPBLK_R_64F));
    CHECK(spblkCreateDnVec(&vec_Ap, n, d_Ap, SPBLK_R_64F));
    CHECK(spblkSpMV_bufferSize(handle, SPBLK_OPERATION_NON_TRANSPOSE, &alpha, A, vec_p, &beta, vec_Ap, SPBLK_R_64F,
                               SPBLK_SPMV_ALG_DEFAULT, &buffer_size));
    if (buffer_size > 0) buffer = backend_alloc(buffer_size);

    /* Solve A x = b for b = 1, from x = 0. */
    b = malloc((size_t)n * sizeof *b);
    x = calloc((size_t)n, sizeof *x);
    r = malloc((size_t)n * sizeof *r);
    p = malloc((size_t)n * sizeof *p);
    Ap = malloc((size_t)n * sizeof *Ap);
    for (i = 0; i < n; i++) b[i] = r[i] = p[i] = 1.0;
    norm_b = sqrt(dot(b, b, n));
    rr = dot(r, r, n);
    for (it = 0; it < max_iterations && sqrt(rr) > tolerance * norm_b; it++) {
        double step;
        upload(d_p, p, (size_t)n * sizeof(double)); /* Ap = A p */
        CHECK(spblkSpMV(handle, SPBLK_OPERATION_NON_TRANSPOSE, &alpha, A, vec_p, &beta, vec_Ap, SPBLK_R_64F,
                        SPBLK_SPMV_ALG_DEFAULT, buffer));
        download(Ap, d_Ap, (size_t)n * sizeof(double));
        step = rr / dot(p, Ap, n);
        for (i = 0; i < n; i++) {
            x[i] += step * p[i];
            r[i] -= step * Ap[i];
        }
        rr_new = dot(r, r, n);
        for (i = 0; i < n; i++) p[i] = r[i] + rr_new / rr * p[i];
        rr = rr_new;
    }

    /* Check: the true residual |b - A x| / |b|, with one more SpMV. */
    upload(d_p, x, (size_t)n * sizeof(double));
    CHECK(spblkSpMV(handle, SPBLK_OPERATION_NON_TRANSPOSE, &alpha, A, vec_p, &beta, vec_Ap, SPBLK_R_64F,
                    SPBLK_SPMV_ALG_DEFAULT, buffer));
    download(Ap, d_Ap, (size_t)n * sizeof(double));
    for (i = 0; i < n; i++) r[i] = b[i] - Ap[i];
    residual = sqrt(dot(r, r, n)) / norm_b;
    printf("cg: %d iterations, relative residual |b - A x| / |b| = %.3e\n", it, residual);
    printf("check: converged below %.0e: %s\n", 1e-8, residual < 1e-8 ? "PASSED" : "FAILED");

    CHECK(spblkDestroySpMat(A));
    CHECK(spblkDestroyDnVec(vec_p));
    CHECK(spblkDestroyDnVec(vec_Ap));
    CHECK(spblkDestroy(handle));
    backend_free(d_offsets);
    backend_free(d_columns);
    backend_free(d_values);
    backend_free(d_p);
    backend_free(d_Ap);
    if (buffer) backend_free(buffer);
    free(row_offsets);
    free(columns);
    free(values);
    free(b);
    free(x);
    free(r);
    free(p);
    free(Ap);
    return residual < 1e-8 ? 0 : 1;
}
