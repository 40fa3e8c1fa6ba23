/*
 * Conjugate gradient preconditioned by an incomplete Cholesky factor (IC0), for the Poisson
 * equation on a 2-D (5-point) or 3-D (7-point) grid: spblk factors A (spblkDcsric02) and
 * applies the preconditioner z = (L Lᵀ)⁻¹ r with two triangular solves (spblkSpSV_solve with
 * op N, then op T, on the same factor), and does the products A p; plain loops do the vector
 * updates. It first counts the iterations plain CG needs, then checks that IC0 cuts them.
 *
 *   ./pcg [2d|3d] [grid]       (default: 2d 128, i.e. 16384 unknowns; 3d 32: 32768)
 *
 * The GPU when there is one (CUDA backend), the CPU otherwise; SPBLK_BACKEND=host|cuda forces it.
 */
#include <math.h>
#include <spblk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* The Poisson matrix: 2·dims on the diagonal, -1 per grid neighbour; columns ascending. */
static int poisson(int grid, int dims, int **offsets, int **columns, double **values) {
    int n = dims == 3 ? grid * grid * grid : grid * grid, nnz = 0, i, k;
    *offsets = malloc((size_t)(n + 1) * sizeof **offsets);
    *columns = malloc((size_t)7 * n * sizeof **columns);
    *values = malloc((size_t)7 * n * sizeof **values);
    if (!*offsets || !*columns || !*values) die("out of memory");
    for (i = 0; i < n; i++) {
        int x = i % grid, y = (i / grid) % grid, z = i / (grid * grid);
        int plane = dims == 3 ? grid * grid : 0;
        int neighbours[7] = {i - plane, i - grid, i - 1, i, i + 1, i + grid, i + plane};
        int present[7] = {dims == 3 && z > 0, y > 0, x > 0, 1, x < grid - 1, y < grid - 1, dims == 3 && z < grid - 1};
        (*offsets)[i] = nnz;
        for (k = 0; k < 7; k++) {
            if (!present[k]) continue;
            (*columns)[nnz] = neighbours[k];
            (*values)[nnz++] = k == 3 ? 2.0 * dims : -1.0;
        }
    }
    (*offsets)[n] = nnz;
    return n;
}

/* Applies A (spblkSpMV) or the preconditioner (two spblkSpSV solves) to vectors in host
 * memory, through the backend's memory. */
typedef struct {
    spblkHandle_t handle;
    int n;
    spblkSpMatDescr_t A, L;
    spblkDnVecDescr_t in, mid, out;
    void *d_in, *d_mid, *d_out, *spmv_buffer;
    spblkSpSVDescr_t solve_L, solve_Lt;
} operators;

static const double one = 1.0, zero = 0.0;

static void apply_A(operators *o, const double *p, double *Ap) {
    upload(o->d_in, p, (size_t)o->n * sizeof(double));
    CHECK(spblkSpMV(o->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o->A, o->in, &zero, o->out, SPBLK_R_64F,
                    SPBLK_SPMV_ALG_DEFAULT, o->spmv_buffer));
    download(Ap, o->d_out, (size_t)o->n * sizeof(double));
}

/* z = (L Lᵀ)⁻¹ r: L y = r, then Lᵀ z = y. */
static void apply_M(operators *o, const double *r, double *z) {
    upload(o->d_in, r, (size_t)o->n * sizeof(double));
    CHECK(spblkSpSV_solve(o->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o->L, o->in, o->mid, SPBLK_R_64F,
                          SPBLK_SPSV_ALG_DEFAULT, o->solve_L));
    CHECK(spblkSpSV_solve(o->handle, SPBLK_OPERATION_TRANSPOSE, &one, o->L, o->mid, o->out, SPBLK_R_64F,
                          SPBLK_SPSV_ALG_DEFAULT, o->solve_Lt));
    download(z, o->d_out, (size_t)o->n * sizeof(double));
}

/* Solves A x = b from x = 0 to |r| <= 1e-10 |b|, preconditioned or not; the iterations. */
static int cg(operators *o, const double *b, double *x, int preconditioned) {
    int n = o->n, i, it;
    double *r = malloc((size_t)n * sizeof *r), *z = malloc((size_t)n * sizeof *z);
    double *p = malloc((size_t)n * sizeof *p), *Ap = malloc((size_t)n * sizeof *Ap);
    double rz, rz_new, norm_b = sqrt(dot(b, b, n));
    if (!r || !z || !p || !Ap) die("out of memory");
    memset(x, 0, (size_t)n * sizeof *x);
    memcpy(r, b, (size_t)n * sizeof *r);
    if (preconditioned)
        apply_M(o, r, z);
    else
        memcpy(z, r, (size_t)n * sizeof *z);
    memcpy(p, z, (size_t)n * sizeof *p);
    rz = dot(r, z, n);
    for (it = 0; it < 10 * n && sqrt(dot(r, r, n)) > 1e-10 * norm_b; it++) {
        double step;
        apply_A(o, p, Ap);
        step = rz / dot(p, Ap, n);
        for (i = 0; i < n; i++) {
            x[i] += step * p[i];
            r[i] -= step * Ap[i];
        }
        if (preconditioned)
            apply_M(o, r, z);
        else
            memcpy(z, r, (size_t)n * sizeof *z);
        rz_new = dot(r, z, n);
        for (i = 0; i < n; i++) p[i] = z[i] + rz_new / rz * p[i];
        rz = rz_new;
    }
    free(r), free(z), free(p), free(Ap);
    return it;
}

int main(int argc, char **argv) {
    int dims = argc > 1 && strcmp(argv[1], "3d") == 0 ? 3 : 2;
    int grid = argc > 2 ? atoi(argv[2]) : (dims == 3 ? 32 : 128), n, nnz, i, plain, preconditioned, position;
    int *offsets, *columns, ic_buffer_size = 0;
    double *values, *b, *x, *Ax, residual = 0.0;
    void *d_offsets, *d_columns, *d_values, *d_factor, *ic_buffer = NULL, *buffer_L = NULL, *buffer_Lt = NULL;
    size_t size = 0;
    spblkMatDescr_t legacy;
    spblkCsric02Info_t info;
    spblkFillMode_t lower = SPBLK_FILL_MODE_LOWER;
    spblkDiagType_t non_unit = SPBLK_DIAG_TYPE_NON_UNIT;
    spblkStatus_t status;
    operators o;

    example_name = "pcg";
    if (grid < 2) grid = 2;
    o.handle = pick_backend();
    n = o.n = poisson(grid, dims, &offsets, &columns, &values);
    nnz = offsets[n];
    printf("pcg: %d-D Poisson, grid %d: %d unknowns, %d nonzeros\n", dims, grid, n, nnz);

    /* A, and a copy of its values that IC0 overwrites with L (above the diagonal untouched). */
    d_offsets = backend_alloc((size_t)(n + 1) * sizeof(int));
    d_columns = backend_alloc((size_t)nnz * sizeof(int));
    d_values = backend_alloc((size_t)nnz * sizeof(double));
    d_factor = backend_alloc((size_t)nnz * sizeof(double));
    upload(d_offsets, offsets, (size_t)(n + 1) * sizeof(int));
    upload(d_columns, columns, (size_t)nnz * sizeof(int));
    upload(d_values, values, (size_t)nnz * sizeof(double));
    upload(d_factor, values, (size_t)nnz * sizeof(double));

    /* IC0: the info object, the analysis (a missing diagonal would show here), the factor. */
    CHECK(spblkCreateMatDescr(&legacy));
    CHECK(spblkCreateCsric02Info(&info));
    CHECK(spblkDcsric02_bufferSize(o.handle, n, nnz, legacy, d_factor, d_offsets, d_columns, info, &ic_buffer_size));
    if (ic_buffer_size > 0) ic_buffer = backend_alloc((size_t)ic_buffer_size);
    CHECK(spblkDcsric02_analysis(o.handle, n, nnz, legacy, d_factor, d_offsets, d_columns, info,
                                 SPBLK_SOLVE_POLICY_USE_LEVEL, ic_buffer));
    status = spblkXcsric02_zeroPivot(o.handle, info, &position);
    if (status == SPBLK_STATUS_ZERO_PIVOT) printf("pcg: A(%d,%d) is missing\n", position, position);
    CHECK(spblkDcsric02(o.handle, n, nnz, legacy, d_factor, d_offsets, d_columns, info, SPBLK_SOLVE_POLICY_USE_LEVEL,
                        ic_buffer));
    status = spblkXcsric02_zeroPivot(o.handle, info, &position);
    if (status == SPBLK_STATUS_ZERO_PIVOT) {
        fprintf(stderr, "pcg: L(%d,%d) is zero: A is not positive definite enough for IC0\n", position, position);
        return 1;
    }

    /* The operators: A for SpMV; L (the factor's lower triangle) for both solves. */
    o.d_in = backend_alloc((size_t)n * sizeof(double));
    o.d_mid = backend_alloc((size_t)n * sizeof(double));
    o.d_out = backend_alloc((size_t)n * sizeof(double));
    CHECK(spblkCreateCsr(&o.A, n, n, nnz, d_offsets, d_columns, d_values, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                         SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
    CHECK(spblkCreateCsr(&o.L, n, n, nnz, d_offsets, d_columns, d_factor, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                         SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
    CHECK(spblkSpMatSetAttribute(o.L, SPBLK_SPMAT_FILL_MODE, &lower, sizeof lower));
    CHECK(spblkSpMatSetAttribute(o.L, SPBLK_SPMAT_DIAG_TYPE, &non_unit, sizeof non_unit));
    CHECK(spblkCreateDnVec(&o.in, n, o.d_in, SPBLK_R_64F));
    CHECK(spblkCreateDnVec(&o.mid, n, o.d_mid, SPBLK_R_64F));
    CHECK(spblkCreateDnVec(&o.out, n, o.d_out, SPBLK_R_64F));
    CHECK(spblkSpMV_bufferSize(o.handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o.A, o.in, &zero, o.out, SPBLK_R_64F,
                               SPBLK_SPMV_ALG_DEFAULT, &size));
    o.spmv_buffer = size > 0 ? backend_alloc(size) : NULL;
    CHECK(spblkSpSV_createDescr(&o.solve_L));
    CHECK(spblkSpSV_createDescr(&o.solve_Lt));
    CHECK(spblkSpSV_bufferSize(o.handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o.L, o.in, o.mid, SPBLK_R_64F,
                               SPBLK_SPSV_ALG_DEFAULT, o.solve_L, &size));
    if (size > 0) buffer_L = backend_alloc(size);
    CHECK(spblkSpSV_analysis(o.handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o.L, o.in, o.mid, SPBLK_R_64F,
                             SPBLK_SPSV_ALG_DEFAULT, o.solve_L, buffer_L));
    CHECK(spblkSpSV_bufferSize(o.handle, SPBLK_OPERATION_TRANSPOSE, &one, o.L, o.mid, o.out, SPBLK_R_64F,
                               SPBLK_SPSV_ALG_DEFAULT, o.solve_Lt, &size));
    if (size > 0) buffer_Lt = backend_alloc(size);
    CHECK(spblkSpSV_analysis(o.handle, SPBLK_OPERATION_TRANSPOSE, &one, o.L, o.mid, o.out, SPBLK_R_64F,
                             SPBLK_SPSV_ALG_DEFAULT, o.solve_Lt, buffer_Lt));

    /* b = 1; plain CG first, then CG with IC0; the true residual of the second. */
    b = malloc((size_t)n * sizeof *b);
    x = malloc((size_t)n * sizeof *x);
    Ax = malloc((size_t)n * sizeof *Ax);
    if (!b || !x || !Ax) die("out of memory");
    for (i = 0; i < n; i++) b[i] = 1.0;
    plain = cg(&o, b, x, 0);
    preconditioned = cg(&o, b, x, 1);
    apply_A(&o, x, Ax);
    for (i = 0; i < n; i++) residual += (b[i] - Ax[i]) * (b[i] - Ax[i]);
    residual = sqrt(residual / dot(b, b, n));
    printf("pcg: CG %d iterations, CG with IC0 %d iterations, relative residual |b - A x| / |b| = %.3e\n", plain,
           preconditioned, residual);
    printf("check: converged below 1e-8 in fewer iterations than plain CG: %s\n",
           residual < 1e-8 && preconditioned < plain ? "PASSED" : "FAILED");

    CHECK(spblkSpSV_destroyDescr(o.solve_L));
    CHECK(spblkSpSV_destroyDescr(o.solve_Lt));
    CHECK(spblkDestroyCsric02Info(info));
    CHECK(spblkDestroyMatDescr(legacy));
    CHECK(spblkDestroySpMat(o.A));
    CHECK(spblkDestroySpMat(o.L));
    CHECK(spblkDestroyDnVec(o.in));
    CHECK(spblkDestroyDnVec(o.mid));
    CHECK(spblkDestroyDnVec(o.out));
    CHECK(spblkDestroy(o.handle));
    backend_free(d_offsets), backend_free(d_columns), backend_free(d_values), backend_free(d_factor);
    backend_free(o.d_in), backend_free(o.d_mid), backend_free(o.d_out);
    if (o.spmv_buffer) backend_free(o.spmv_buffer);
    if (ic_buffer) backend_free(ic_buffer);
    if (buffer_L) backend_free(buffer_L);
    if (buffer_Lt) backend_free(buffer_Lt);
    free(offsets), free(columns), free(values), free(b), free(x), free(Ax);
    return residual < 1e-8 && preconditioned < plain ? 0 : 1;
}
