/*
 * BiCGStab preconditioned by an incomplete LU factorization (ILU0), for a non-symmetric
 * system: a 2-D convection-diffusion problem (upwind differences), or a square matrix read from
 * a Matrix Market file. spblk factors A (spblkDcsrilu02: L unit lower and U upper, in A's
 * pattern), applies the preconditioner z = U⁻¹ L⁻¹ r with two spblkSpSV solves on the same
 * arrays (fill mode LOWER and diagonal UNIT, then UPPER and NON_UNIT), and does the products;
 * plain loops do the vector updates. It first counts the iterations BiCGStab needs without the
 * preconditioner, then checks that ILU0 cuts them.
 *
 *   ./bicgstab [grid]          (default 128: 16384 unknowns)
 *   ./bicgstab file.mtx        (coordinate, real or integer, general or symmetric)
 *
 * The GPU when there is one (CUDA backend), the CPU otherwise; SPBLK_BACKEND=host|cuda forces it.
 */
#include <math.h>
#include <spblk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

typedef struct {
    int n, nnz;
    int *offsets, *columns;
    double *values;
} csr;

/* -Δu + 20 ∂u/∂x on a grid x grid mesh, upwind: a non-symmetric M-matrix. */
static csr convection_diffusion(int grid) {
    csr a;
    int i, k;
    a.n = grid * grid;
    a.offsets = malloc((size_t)(a.n + 1) * sizeof(int));
    a.columns = malloc((size_t)5 * a.n * sizeof(int));
    a.values = malloc((size_t)5 * a.n * sizeof(double));
    if (!a.offsets || !a.columns || !a.values) die("out of memory");
    a.nnz = 0;
    for (i = 0; i < a.n; i++) {
        int x = i % grid, y = i / grid;
        double c = 20.0 / grid; /* the convection term times the mesh width */
        int neighbours[5] = {i - grid, i - 1, i, i + 1, i + grid};
        int present[5] = {y > 0, x > 0, 1, x < grid - 1, y < grid - 1};
        double weights[5] = {-1.0, -1.0 - c, 4.0 + c, -1.0, -1.0};
        a.offsets[i] = a.nnz;
        for (k = 0; k < 5; k++) {
            if (!present[k]) continue;
            a.columns[a.nnz] = neighbours[k];
            a.values[a.nnz++] = weights[k];
        }
    }
    a.offsets[a.n] = a.nnz;
    return a;
}

typedef struct {
    int row, col;
    double value;
} entry;

static int by_position(const void *p, const void *q) {
    const entry *a = p, *b = q;
    return a->row != b->row ? (a->row > b->row) - (a->row < b->row) : (a->col > b->col) - (a->col < b->col);
}

/* A square Matrix Market matrix as CSR with ascending columns (repeated entries summed). */
static csr read_matrix_market(const char *path) {
    char line[1024];
    int rows, cols, count, i, symmetric, k = 0;
    entry *e;
    csr a;
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open the matrix file");
    if (!fgets(line, sizeof line, f) || strncmp(line, "%%MatrixMarket matrix coordinate", 32) != 0 ||
        strstr(line, "complex") || strstr(line, "pattern"))
        die("the file is not a real coordinate Matrix Market matrix");
    symmetric = strstr(line, "symmetric") != NULL;
    do {
        if (!fgets(line, sizeof line, f)) die("the file ends before its size line");
    } while (line[0] == '%');
    if (sscanf(line, "%d %d %d", &rows, &cols, &count) != 3 || rows != cols) die("the matrix is not square");
    e = malloc((size_t)(symmetric ? 2 : 1) * count * sizeof *e);
    if (!e) die("out of memory");
    for (i = 0; i < count; i++) {
        int r, c;
        double v;
        if (fscanf(f, "%d %d %lf", &r, &c, &v) != 3) die("the file ends early");
        e[k++] = (entry){r - 1, c - 1, v};
        if (symmetric && r != c) e[k++] = (entry){c - 1, r - 1, v};
    }
    fclose(f);
    qsort(e, (size_t)k, sizeof *e, by_position);
    a.n = rows;
    a.offsets = calloc((size_t)rows + 1, sizeof(int));
    a.columns = malloc((size_t)k * sizeof(int));
    a.values = malloc((size_t)k * sizeof(double));
    if (!a.offsets || !a.columns || !a.values) die("out of memory");
    a.nnz = 0;
    for (i = 0; i < k; i++) {
        if (a.nnz > 0 && i > 0 && e[i].row == e[i - 1].row && e[i].col == e[i - 1].col) {
            a.values[a.nnz - 1] += e[i].value;
            continue;
        }
        a.columns[a.nnz] = e[i].col;
        a.values[a.nnz++] = e[i].value;
        a.offsets[e[i].row + 1] = a.nnz;
    }
    for (i = 0; i < rows; i++)
        if (a.offsets[i + 1] < a.offsets[i]) a.offsets[i + 1] = a.offsets[i]; /* empty rows */
    free(e);
    return a;
}

/* A's products and the preconditioner's two solves, on vectors in host memory. */
typedef struct {
    spblkHandle_t handle;
    int n;
    spblkSpMatDescr_t A, L, U;
    spblkDnVecDescr_t in, mid, out;
    void *d_in, *d_mid, *d_out, *spmv_buffer;
    spblkSpSVDescr_t solve_L, solve_U;
} operators;

static const double one = 1.0, zero = 0.0;

static void apply_A(operators *o, const double *p, double *Ap) {
    upload(o->d_in, p, (size_t)o->n * sizeof(double));
    CHECK(spblkSpMV(o->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o->A, o->in, &zero, o->out, SPBLK_R_64F,
                    SPBLK_SPMV_ALG_DEFAULT, o->spmv_buffer));
    download(Ap, o->d_out, (size_t)o->n * sizeof(double));
}

/* z = M⁻¹ r (or z = r without the preconditioner): L y = r, then U z = y. */
static void apply_M(operators *o, const double *r, double *z, int preconditioned) {
    if (!preconditioned) {
        memcpy(z, r, (size_t)o->n * sizeof *z);
        return;
    }
    upload(o->d_in, r, (size_t)o->n * sizeof(double));
    CHECK(spblkSpSV_solve(o->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o->L, o->in, o->mid, SPBLK_R_64F,
                          SPBLK_SPSV_ALG_DEFAULT, o->solve_L));
    CHECK(spblkSpSV_solve(o->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o->U, o->mid, o->out, SPBLK_R_64F,
                          SPBLK_SPSV_ALG_DEFAULT, o->solve_U));
    download(z, o->d_out, (size_t)o->n * sizeof(double));
}

/* Right-preconditioned BiCGStab from x = 0 to |r| <= 1e-10 |b|; the iterations (-1: broke down
 * or did not converge). */
static int bicgstab(operators *o, const double *b, double *x, int preconditioned) {
    int n = o->n, i, it, limit = 4 * n + 100;
    size_t bytes = (size_t)n * sizeof(double);
    double *r = malloc(bytes), *r0 = malloc(bytes), *p = malloc(bytes), *v = malloc(bytes), *s = malloc(bytes);
    double *t = malloc(bytes), *ph = malloc(bytes), *sh = malloc(bytes);
    double rho = 1.0, alpha = 1.0, omega = 1.0, norm_b = sqrt(dot(b, b, n));
    if (!r || !r0 || !p || !v || !s || !t || !ph || !sh) die("out of memory");
    memset(x, 0, bytes), memset(p, 0, bytes), memset(v, 0, bytes);
    memcpy(r, b, bytes), memcpy(r0, b, bytes);
    for (it = 0; it < limit && !(sqrt(dot(r, r, n)) <= 1e-10 * norm_b); it++) { /* NaN: go on */
        double rho_new = dot(r0, r, n), beta = rho_new / rho * (alpha / omega);
        if (rho_new == 0.0 || omega == 0.0) break;
        for (i = 0; i < n; i++) p[i] = r[i] + beta * (p[i] - omega * v[i]);
        apply_M(o, p, ph, preconditioned);
        apply_A(o, ph, v);
        alpha = rho_new / dot(r0, v, n);
        for (i = 0; i < n; i++) s[i] = r[i] - alpha * v[i];
        apply_M(o, s, sh, preconditioned);
        apply_A(o, sh, t);
        omega = dot(t, s, n) / dot(t, t, n);
        for (i = 0; i < n; i++) {
            x[i] += alpha * ph[i] + omega * sh[i];
            r[i] = s[i] - omega * t[i];
        }
        rho = rho_new;
    }
    if (!(sqrt(dot(r, r, n)) <= 1e-10 * norm_b)) it = -1;
    free(r), free(r0), free(p), free(v), free(s), free(t), free(ph), free(sh);
    return it;
}

int main(int argc, char **argv) {
    const int from_file = argc > 1 && strstr(argv[1], ".mtx") != NULL;
    int n, nnz, i, plain, preconditioned, position, ilu_buffer_size = 0;
    double *b, *x, *Ax, residual = 0.0;
    void *d_offsets, *d_columns, *d_values, *d_factor, *ilu_buffer = NULL, *buffer_L = NULL, *buffer_U = NULL;
    size_t size = 0;
    spblkMatDescr_t legacy;
    spblkCsrilu02Info_t info;
    spblkFillMode_t lower = SPBLK_FILL_MODE_LOWER, upper = SPBLK_FILL_MODE_UPPER;
    spblkDiagType_t unit = SPBLK_DIAG_TYPE_UNIT, non_unit = SPBLK_DIAG_TYPE_NON_UNIT;
    spblkStatus_t status;
    operators o;
    csr a;

    example_name = "bicgstab";
    o.handle = pick_backend();
    if (from_file) {
        a = read_matrix_market(argv[1]);
        printf("bicgstab: %s: %d unknowns, %d nonzeros\n", argv[1], a.n, a.nnz);
    } else {
        int grid = argc > 1 ? atoi(argv[1]) : 128;
        a = convection_diffusion(grid < 2 ? 2 : grid);
        printf("bicgstab: 2-D convection-diffusion, grid %d: %d unknowns, %d nonzeros\n", grid, a.n, a.nnz);
    }
    n = o.n = a.n;
    nnz = a.nnz;

    /* A, and a copy of its values that ILU0 overwrites with L and U. */
    d_offsets = backend_alloc((size_t)(n + 1) * sizeof(int));
    d_columns = backend_alloc((size_t)nnz * sizeof(int));
    d_values = backend_alloc((size_t)nnz * sizeof(double));
    d_factor = backend_alloc((size_t)nnz * sizeof(double));
    upload(d_offsets, a.offsets, (size_t)(n + 1) * sizeof(int));
    upload(d_columns, a.columns, (size_t)nnz * sizeof(int));
    upload(d_values, a.values, (size_t)nnz * sizeof(double));
    upload(d_factor, a.values, (size_t)nnz * sizeof(double));

    CHECK(spblkCreateMatDescr(&legacy));
    CHECK(spblkCreateCsrilu02Info(&info));
    CHECK(spblkDcsrilu02_bufferSize(o.handle, n, nnz, legacy, d_factor, d_offsets, d_columns, info, &ilu_buffer_size));
    if (ilu_buffer_size > 0) ilu_buffer = backend_alloc((size_t)ilu_buffer_size);
    CHECK(spblkDcsrilu02_analysis(o.handle, n, nnz, legacy, d_factor, d_offsets, d_columns, info,
                                  SPBLK_SOLVE_POLICY_USE_LEVEL, ilu_buffer));
    status = spblkXcsrilu02_zeroPivot(o.handle, info, &position);
    if (status == SPBLK_STATUS_ZERO_PIVOT) printf("bicgstab: A(%d,%d) is missing\n", position, position);
    CHECK(spblkDcsrilu02(o.handle, n, nnz, legacy, d_factor, d_offsets, d_columns, info, SPBLK_SOLVE_POLICY_USE_LEVEL,
                         ilu_buffer));
    status = spblkXcsrilu02_zeroPivot(o.handle, info, &position);
    if (status == SPBLK_STATUS_ZERO_PIVOT) {
        fprintf(stderr, "bicgstab: U(%d,%d) is zero: ILU0 does not exist for this matrix\n", position, position);
        return 1;
    }

    o.d_in = backend_alloc((size_t)n * sizeof(double));
    o.d_mid = backend_alloc((size_t)n * sizeof(double));
    o.d_out = backend_alloc((size_t)n * sizeof(double));
    CHECK(spblkCreateCsr(&o.A, n, n, nnz, d_offsets, d_columns, d_values, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                         SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
    /* L and U share the factor's arrays; the fill mode and diagonal type pick each. */
    CHECK(spblkCreateCsr(&o.L, n, n, nnz, d_offsets, d_columns, d_factor, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                         SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
    CHECK(spblkSpMatSetAttribute(o.L, SPBLK_SPMAT_FILL_MODE, &lower, sizeof lower));
    CHECK(spblkSpMatSetAttribute(o.L, SPBLK_SPMAT_DIAG_TYPE, &unit, sizeof unit));
    CHECK(spblkCreateCsr(&o.U, n, n, nnz, d_offsets, d_columns, d_factor, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                         SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
    CHECK(spblkSpMatSetAttribute(o.U, SPBLK_SPMAT_FILL_MODE, &upper, sizeof upper));
    CHECK(spblkSpMatSetAttribute(o.U, SPBLK_SPMAT_DIAG_TYPE, &non_unit, sizeof non_unit));
    CHECK(spblkCreateDnVec(&o.in, n, o.d_in, SPBLK_R_64F));
    CHECK(spblkCreateDnVec(&o.mid, n, o.d_mid, SPBLK_R_64F));
    CHECK(spblkCreateDnVec(&o.out, n, o.d_out, SPBLK_R_64F));
    CHECK(spblkSpMV_bufferSize(o.handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o.A, o.in, &zero, o.out, SPBLK_R_64F,
                               SPBLK_SPMV_ALG_DEFAULT, &size));
    o.spmv_buffer = size > 0 ? backend_alloc(size) : NULL;
    CHECK(spblkSpSV_createDescr(&o.solve_L));
    CHECK(spblkSpSV_createDescr(&o.solve_U));
    CHECK(spblkSpSV_bufferSize(o.handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o.L, o.in, o.mid, SPBLK_R_64F,
                               SPBLK_SPSV_ALG_DEFAULT, o.solve_L, &size));
    if (size > 0) buffer_L = backend_alloc(size);
    CHECK(spblkSpSV_analysis(o.handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o.L, o.in, o.mid, SPBLK_R_64F,
                             SPBLK_SPSV_ALG_DEFAULT, o.solve_L, buffer_L));
    CHECK(spblkSpSV_bufferSize(o.handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o.U, o.mid, o.out, SPBLK_R_64F,
                               SPBLK_SPSV_ALG_DEFAULT, o.solve_U, &size));
    if (size > 0) buffer_U = backend_alloc(size);
    CHECK(spblkSpSV_analysis(o.handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, o.U, o.mid, o.out, SPBLK_R_64F,
                             SPBLK_SPSV_ALG_DEFAULT, o.solve_U, buffer_U));

    /* b = A 1, so that the solution is known to be all ones. */
    b = malloc((size_t)n * sizeof *b);
    x = malloc((size_t)n * sizeof *x);
    Ax = malloc((size_t)n * sizeof *Ax);
    if (!b || !x || !Ax) die("out of memory");
    for (i = 0; i < n; i++) x[i] = 1.0;
    apply_A(&o, x, b);
    plain = bicgstab(&o, b, x, 0);
    preconditioned = bicgstab(&o, b, x, 1);
    apply_A(&o, x, Ax);
    for (i = 0; i < n; i++) residual += (b[i] - Ax[i]) * (b[i] - Ax[i]);
    residual = sqrt(residual / dot(b, b, n));
    printf("bicgstab: BiCGStab %d iterations (-1: did not converge), with ILU0 %d iterations, relative residual "
           "|b - A x| / |b| = %.3e\n",
           plain, preconditioned, residual);
    i = preconditioned >= 0 && residual < 1e-8 && (plain < 0 || preconditioned < plain);
    printf("check: converged below 1e-8 in fewer iterations than without ILU0: %s\n", i ? "PASSED" : "FAILED");

    CHECK(spblkSpSV_destroyDescr(o.solve_L));
    CHECK(spblkSpSV_destroyDescr(o.solve_U));
    CHECK(spblkDestroyCsrilu02Info(info));
    CHECK(spblkDestroyMatDescr(legacy));
    CHECK(spblkDestroySpMat(o.A));
    CHECK(spblkDestroySpMat(o.L));
    CHECK(spblkDestroySpMat(o.U));
    CHECK(spblkDestroyDnVec(o.in));
    CHECK(spblkDestroyDnVec(o.mid));
    CHECK(spblkDestroyDnVec(o.out));
    CHECK(spblkDestroy(o.handle));
    backend_free(d_offsets), backend_free(d_columns), backend_free(d_values), backend_free(d_factor);
    backend_free(o.d_in), backend_free(o.d_mid), backend_free(o.d_out);
    if (o.spmv_buffer) backend_free(o.spmv_buffer);
    if (ilu_buffer) backend_free(ilu_buffer);
    if (buffer_L) backend_free(buffer_L);
    if (buffer_U) backend_free(buffer_U);
    free(a.offsets), free(a.columns), free(a.values), free(b), free(x), free(Ax);
    return i ? 0 : 1;
}
