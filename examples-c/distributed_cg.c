/*
 * Conjugate gradient on a matrix distributed over MPI ranks by blocks of rows, with spblk as each
 * rank's engine (one rank per GPU, or per CPU socket on the host backend): distributed.h holds
 * the interior/halo split and the product that hides the halo exchange behind the interior SpMV;
 * the vector updates are spblkAxpby and the dot products spblkSpVV (a sparse vector holding every
 * index), summed over the ranks with MPI_Allreduce.
 *
 *   mpirun -np 2 ./distributed_cg [matrix] [options]
 *   matrix:   --poisson NX[,NY,NZ]   3-D Poisson, 7-point (default 24; with --weak NZ grows by ranks)
 *             --powerlaw N           a symmetric power-law graph matrix, N rows
 *             --mtx FILE             a Matrix Market file (CG assumes it is positive definite)
 *   options:  --precond none|jacobi|ic0   (default jacobi; ic0: block Jacobi, IC0 of each
 *                                          rank's interior block)
 *             --tol T (1e-10)  --maxit K (10000)  --uneven (rank r gets r+1 shares of the rows)
 *             --check     rank 0 also solves on its own (MPI_COMM_SELF) and compares the product
 *                         A b and the CG's iterations and solution (exit status 1 if they differ)
 *             --bench R   times R products of each kind and a second solve; the split of the
 *                         time into compute, exposed exchange and reductions
 *             --host-staging  never give MPI device memory, even if it takes it
 *
 * GPU when there is one (rank i on GPU i modulo the node's GPUs), else the host backend;
 * SPBLK_BACKEND=host|cuda forces it.
 */
#include <math.h>
#include <spblk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "distributed.h"
#include "distributed_matrices.h"

enum { PRECOND_NONE, PRECOND_JACOBI, PRECOND_IC0 };

/* The preconditioner z = M⁻¹ r: the inverse diagonal as a diagonal CSR matrix (Jacobi), or
 * the IC0 factor of the rank's interior block with its two triangular solves (block Jacobi). */
typedef struct {
    int kind;
    spblkSpMatDescr_t M; /* Jacobi: D⁻¹; IC0: L */
    void *d_ptr, *d_col, *d_val, *buffer, *d_mid, *buffer_t, *ic_buffer;
    spblkDnVecDescr_t mid;
    spblkSpSVDescr_t solve, solve_t;
    spblkMatDescr_t legacy;
    spblkCsric02Info_t info;
} precond;

/* A rank's CG vectors in the handle's memory, each as a dense vector and (for Axpby and SpVV) as
 * a sparse one listing every index. */
enum { V_X, V_B, V_R, V_Z, V_P, V_Q, VECTORS };
typedef struct {
    dist_matrix *A;
    precond P;
    double *d[VECTORS], *d_dots;
    void *d_every, *dot_buffer;
    spblkDnVecDescr_t dn[VECTORS];
    spblkSpVecDescr_t sp[VECTORS];
    double reduce_s; /* host time in MPI_Allreduce */
} solver;

static const double one = 1.0;

static void precond_create(precond *P, int kind, dist_matrix *A, const row_block *rows, spblkDnVecDescr_t r,
                           spblkDnVecDescr_t z) {
    int m = A->rows, i, k, position;
    size_t size = 0;
    memset(P, 0, sizeof *P);
    P->kind = kind;
    if (kind == PRECOND_JACOBI) {
        int *index = dist_host_alloc((size_t)(m + 1) * sizeof *index);
        double *inverse = dist_host_alloc((size_t)(m > 0 ? m : 1) * sizeof *inverse);
        for (i = 0; i <= m; i++) index[i] = i;
        for (i = 0; i < m; i++) {
            inverse[i] = 0.0;
            for (k = rows->ptr[i]; k < rows->ptr[i + 1]; k++)
                if (rows->col[k] == rows->first + i) inverse[i] = 1.0 / rows->val[k];
            if (inverse[i] == 0.0) die("Jacobi: a diagonal entry is missing or zero");
        }
        P->d_ptr = dist_upload(index, (size_t)(m + 1) * sizeof(int));
        P->d_col = dist_upload(index, (size_t)(m > 0 ? m : 1) * sizeof(int));
        P->d_val = dist_upload(inverse, (size_t)(m > 0 ? m : 1) * sizeof(double));
        free(index), free(inverse);
        CHECK(spblkCreateCsr(&P->M, m, m, m, P->d_ptr, P->d_col, P->d_val, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                             SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
        CHECK(spblkSpMV_bufferSize(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, P->M, r, &dist_zero, z, SPBLK_R_64F,
                                   SPBLK_SPMV_ALG_DEFAULT, &size));
        P->buffer = backend_alloc(size ? size : 1);
    } else if (kind == PRECOND_IC0) {
        spblkFillMode_t lower = SPBLK_FILL_MODE_LOWER;
        spblkDiagType_t non_unit = SPBLK_DIAG_TYPE_NON_UNIT;
        int ic_size = 0, nnz = A->interior_nnz;
        /* IC0 overwrites a copy of the interior block's values with L (lower triangle). */
        P->d_val = backend_alloc((size_t)(nnz ? nnz : 1) * sizeof(double));
        P->d_mid = backend_alloc((size_t)(m ? m : 1) * sizeof(double));
        if (on_gpu)
            cuda_check(cuda_api.MemcpyDtoDAsync((cuda_deviceptr)(uintptr_t)P->d_val,
                                                (cuda_deviceptr)(uintptr_t)A->d_int_val, (size_t)nnz * sizeof(double),
                                                A->main_stream),
                       "cuMemcpyDtoDAsync");
        else
            memcpy(P->d_val, A->d_int_val, (size_t)nnz * sizeof(double));
        CHECK(spblkCreateMatDescr(&P->legacy));
        CHECK(spblkCreateCsric02Info(&P->info));
        CHECK(spblkDcsric02_bufferSize(A->handle, m, nnz, P->legacy, P->d_val, A->d_int_ptr, A->d_int_col, P->info,
                                       &ic_size));
        P->ic_buffer = backend_alloc(ic_size > 0 ? (size_t)ic_size : 1);
        CHECK(spblkDcsric02_analysis(A->handle, m, nnz, P->legacy, P->d_val, A->d_int_ptr, A->d_int_col, P->info,
                                     SPBLK_SOLVE_POLICY_USE_LEVEL, P->ic_buffer));
        CHECK(spblkDcsric02(A->handle, m, nnz, P->legacy, P->d_val, A->d_int_ptr, A->d_int_col, P->info,
                            SPBLK_SOLVE_POLICY_USE_LEVEL, P->ic_buffer));
        if (spblkXcsric02_zeroPivot(A->handle, P->info, &position) == SPBLK_STATUS_ZERO_PIVOT)
            die("IC0: a zero pivot (the interior block is not positive definite enough)");
        CHECK(spblkCreateCsr(&P->M, m, m, nnz, A->d_int_ptr, A->d_int_col, P->d_val, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                             SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
        CHECK(spblkSpMatSetAttribute(P->M, SPBLK_SPMAT_FILL_MODE, &lower, sizeof lower));
        CHECK(spblkSpMatSetAttribute(P->M, SPBLK_SPMAT_DIAG_TYPE, &non_unit, sizeof non_unit));
        CHECK(spblkCreateDnVec(&P->mid, m, P->d_mid, SPBLK_R_64F));
        CHECK(spblkSpSV_createDescr(&P->solve));
        CHECK(spblkSpSV_createDescr(&P->solve_t));
        CHECK(spblkSpSV_bufferSize(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, P->M, r, P->mid, SPBLK_R_64F,
                                   SPBLK_SPSV_ALG_DEFAULT, P->solve, &size));
        P->buffer = backend_alloc(size ? size : 1);
        CHECK(spblkSpSV_analysis(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, P->M, r, P->mid, SPBLK_R_64F,
                                 SPBLK_SPSV_ALG_DEFAULT, P->solve, P->buffer));
        CHECK(spblkSpSV_bufferSize(A->handle, SPBLK_OPERATION_TRANSPOSE, &one, P->M, P->mid, z, SPBLK_R_64F,
                                   SPBLK_SPSV_ALG_DEFAULT, P->solve_t, &size));
        P->buffer_t = backend_alloc(size ? size : 1);
        CHECK(spblkSpSV_analysis(A->handle, SPBLK_OPERATION_TRANSPOSE, &one, P->M, P->mid, z, SPBLK_R_64F,
                                 SPBLK_SPSV_ALG_DEFAULT, P->solve_t, P->buffer_t));
    }
}

static void precond_apply(solver *s) {
    precond *P = &s->P;
    if (P->kind == PRECOND_JACOBI) {
        CHECK(spblkSpMV(s->A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, P->M, s->dn[V_R], &dist_zero, s->dn[V_Z],
                        SPBLK_R_64F, SPBLK_SPMV_ALG_DEFAULT, P->buffer));
    } else if (P->kind == PRECOND_IC0) {
        CHECK(spblkSpSV_solve(s->A->handle, SPBLK_OPERATION_NON_TRANSPOSE, &one, P->M, s->dn[V_R], P->mid, SPBLK_R_64F,
                              SPBLK_SPSV_ALG_DEFAULT, P->solve));
        CHECK(spblkSpSV_solve(s->A->handle, SPBLK_OPERATION_TRANSPOSE, &one, P->M, P->mid, s->dn[V_Z], SPBLK_R_64F,
                              SPBLK_SPSV_ALG_DEFAULT, P->solve_t));
    }
}

static void precond_destroy(precond *P) {
    if (P->kind == PRECOND_NONE) return;
    CHECK(spblkDestroySpMat(P->M));
    backend_free(P->d_val), backend_free(P->buffer);
    if (P->kind == PRECOND_JACOBI) {
        backend_free(P->d_ptr), backend_free(P->d_col);
    } else {
        CHECK(spblkDestroyDnVec(P->mid));
        CHECK(spblkSpSV_destroyDescr(P->solve));
        CHECK(spblkSpSV_destroyDescr(P->solve_t));
        CHECK(spblkDestroyCsric02Info(P->info));
        CHECK(spblkDestroyMatDescr(P->legacy));
        backend_free(P->d_mid), backend_free(P->buffer_t), backend_free(P->ic_buffer);
    }
}

static void solver_create(solver *s, dist_matrix *A, int precond_kind, const row_block *rows) {
    int m = A->rows, v, i, *every = dist_host_alloc((size_t)(m ? m : 1) * sizeof *every);
    size_t size = 0;
    memset(s, 0, sizeof *s);
    s->A = A;
    for (i = 0; i < m; i++) every[i] = i;
    s->d_every = dist_upload(every, (size_t)m * sizeof(int));
    free(every);
    for (v = 0; v < VECTORS; v++) {
        s->d[v] = backend_alloc((size_t)(m ? m : 1) * sizeof(double));
        CHECK(spblkCreateDnVec(&s->dn[v], m, s->d[v], SPBLK_R_64F));
        CHECK(spblkCreateSpVec(&s->sp[v], m, m, s->d_every, s->d[v], SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO,
                               SPBLK_R_64F));
    }
    s->d_dots = backend_alloc(2 * sizeof(double));
    CHECK(spblkSpVV_bufferSize(A->handle, SPBLK_OPERATION_NON_TRANSPOSE, s->sp[V_P], s->dn[V_Q], s->d_dots, SPBLK_R_64F,
                               &size));
    s->dot_buffer = backend_alloc(size ? size : 1);
    precond_create(&s->P, precond_kind, A, rows, s->dn[V_R], s->dn[V_Z]);
}

static void solver_destroy(solver *s) {
    int v;
    precond_destroy(&s->P);
    for (v = 0; v < VECTORS; v++) {
        CHECK(spblkDestroyDnVec(s->dn[v]));
        CHECK(spblkDestroySpVec(s->sp[v]));
        backend_free(s->d[v]);
    }
    backend_free(s->d_every), backend_free(s->d_dots), backend_free(s->dot_buffer);
}

/* out[k] = the sum over the ranks of sp[a[k]] · dn[b[k]], k < count (at most 2): the local dots
 * in the handle's memory (no wait per dot), one copy out, one MPI_Allreduce. */
static void global_dots(solver *s, int count, const int *a, const int *b, double *out) {
    double local[2];
    int k;
    double start;
    CHECK(spblkSetPointerMode(s->A->handle, SPBLK_POINTER_MODE_DEVICE));
    for (k = 0; k < count; k++)
        CHECK(spblkSpVV(s->A->handle, SPBLK_OPERATION_NON_TRANSPOSE, s->sp[a[k]], s->dn[b[k]], s->d_dots + k,
                        SPBLK_R_64F, s->dot_buffer));
    CHECK(spblkSetPointerMode(s->A->handle, SPBLK_POINTER_MODE_HOST));
    download(local, s->d_dots, (size_t)count * sizeof(double));
    start = MPI_Wtime();
    MPI_Allreduce(local, out, count, MPI_DOUBLE, MPI_SUM, s->A->comm);
    s->reduce_s += MPI_Wtime() - start;
}

/* y = alpha X + beta Y on vectors of the solver. */
static void axpby(solver *s, double alpha, int x, double beta, int y) {
    CHECK(spblkAxpby(s->A->handle, &alpha, s->sp[x], &beta, s->dn[y]));
}

/* Solves A x = b from x = 0 until |r| <= tol |b| (r by the recurrence); the iterations, and the
 * final |r| / |b|. b and x are s->d[V_B], s->d[V_X]. */
static int cg(solver *s, double tol, int maxit, double *relative_residual) {
    static const int b_[1] = {V_B}, p_[1] = {V_P}, q_[1] = {V_Q}, r_r[2] = {V_R, V_R}, z_r[2] = {V_Z, V_R};
    int it, plain = s->P.kind == PRECOND_NONE, z = plain ? V_R : V_Z, count = plain ? 1 : 2;
    const int *with = plain ? r_r : z_r; /* r·z, and r·r when z is not r */
    double norm_b, sums[2], rz, rr;
    global_dots(s, 1, b_, b_, sums);
    norm_b = sqrt(sums[0]);
    axpby(s, 0.0, V_B, 0.0, V_X); /* x = 0 */
    axpby(s, 1.0, V_B, 0.0, V_R); /* r = b */
    precond_apply(s);
    axpby(s, 1.0, z, 0.0, V_P); /* p = z */
    global_dots(s, count, r_r, with, sums);
    rz = sums[0], rr = sums[count - 1];
    for (it = 0; it < maxit && sqrt(rr) > tol * norm_b; it++) {
        double pq, alpha;
        dist_spmv(s->A, s->dn[V_P], s->dn[V_Q]);
        global_dots(s, 1, p_, q_, &pq);
        alpha = rz / pq;
        axpby(s, alpha, V_P, 1.0, V_X);
        axpby(s, -alpha, V_Q, 1.0, V_R);
        precond_apply(s);
        global_dots(s, count, r_r, with, sums);
        axpby(s, 1.0, z, sums[0] / rz, V_P); /* p = z + (rz_new / rz) p */
        rz = sums[0], rr = sums[count - 1];
    }
    *relative_residual = norm_b > 0 ? sqrt(rr) / norm_b : 0.0;
    return it;
}

/* b_i = 1 + (i mod 7) / 7 for global row i: the same on every rank count. */
static void fill_b(solver *s, long long first) {
    int i, m = s->A->rows;
    double *b = dist_host_alloc((size_t)(m ? m : 1) * sizeof *b);
    for (i = 0; i < m; i++) b[i] = 1.0 + (double)((first + i) % 7) / 7.0;
    upload(s->d[V_B], b, (size_t)m * sizeof(double));
    free(b);
}
/* ---- measuring -------------------------------------------------------------------------------- */

enum { RUN_INTERIOR, RUN_HALO, RUN_DISTRIBUTED, RUN_MPI, RUNS };

/* The messages of one product alone, between the buffers MPI reads and writes (host clock). */
static double time_messages(dist_matrix *A) {
    int r, requests = 0;
    double t0 = MPI_Wtime();
    for (r = 0; r < A->ranks; r++)
        if (A->recv_count[r] > 0)
            MPI_Irecv(A->h_ghost + A->recv_offset[r], A->recv_count[r], MPI_DOUBLE, r, 0, A->comm,
                      &A->requests[requests++]);
    dist_send(A, &requests);
    MPI_Waitall(requests, A->requests, MPI_STATUSES_IGNORE);
    return MPI_Wtime() - t0;
}

/* Seconds of one product of the given kind: GPU events around it on the handle's stream, or
 * the host clock on the host backend. */
static double time_product(solver *s, int kind) {
    void *start = NULL, *end = NULL;
    float ms = 0.0f;
    double t0 = MPI_Wtime();
    if (kind == RUN_MPI) return time_messages(s->A);
    if (on_gpu) {
        cuda_check(cuda_api.EventCreate(&start, 0), "cuEventCreate");
        cuda_check(cuda_api.EventCreate(&end, 0), "cuEventCreate");
        cuda_check(cuda_api.EventRecord(start, s->A->main_stream), "cuEventRecord");
    }
    if (kind == RUN_INTERIOR) dist_interior_spmv(s->A, s->dn[V_P], s->dn[V_Q]);
    if (kind == RUN_HALO) dist_halo_spmv(s->A, s->dn[V_Q]);
    if (kind == RUN_DISTRIBUTED) dist_spmv(s->A, s->dn[V_P], s->dn[V_Q]);
    if (!on_gpu) return MPI_Wtime() - t0;
    cuda_check(cuda_api.EventRecord(end, s->A->main_stream), "cuEventRecord");
    cuda_check(cuda_api.EventSynchronize(end), "cuEventSynchronize");
    cuda_check(cuda_api.EventElapsedTime(&ms, start, end), "cuEventElapsedTime");
    cuda_api.EventDestroy(start), cuda_api.EventDestroy(end);
    return ms * 1e-3;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median over `reps` products of each kind, the slowest rank's (seconds). */
static void time_products(solver *s, int reps, double out[RUNS]) {
    double *t = dist_host_alloc((size_t)reps * sizeof *t), local[RUNS];
    int kind, k;
    axpby(s, 1.0, V_B, 0.0, V_P);
    for (k = 0; k < 3; k++) dist_spmv(s->A, s->dn[V_P], s->dn[V_Q]); /* warm-up */
    for (kind = 0; kind < RUNS; kind++) {
        MPI_Barrier(s->A->comm);
        for (k = 0; k < reps; k++) t[k] = time_product(s, kind);
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        local[kind] = t[reps / 2];
    }
    MPI_Allreduce(local, out, RUNS, MPI_DOUBLE, MPI_MAX, s->A->comm);
    free(t);
}

/* ---- the check against one rank --------------------------------------------------------------- */

/* The whole of a distributed vector (rows in rank order) on rank 0. */
static double *gather_vector(solver *s, int v) {
    dist_matrix *A = s->A;
    int r, *count = dist_host_alloc((size_t)A->ranks * sizeof *count), *offset = dist_host_alloc((size_t)A->ranks * sizeof *offset);
    double *local = dist_host_alloc((size_t)(A->rows ? A->rows : 1) * sizeof *local), *all = NULL;
    for (r = 0; r < A->ranks; r++) count[r] = (int)(A->first[r + 1] - A->first[r]), offset[r] = (int)A->first[r];
    if (A->rank == 0) all = dist_host_alloc((size_t)A->n * sizeof *all);
    download(local, s->d[v], (size_t)A->rows * sizeof(double));
    MPI_Gatherv(local, A->rows, MPI_DOUBLE, all, count, offset, MPI_DOUBLE, 0, A->comm);
    free(count), free(offset), free(local);
    return all;
}

/* The whole matrix on rank 0 (rows in rank order); the other ranks get an empty block. */
static row_block gather_rows(const dist_matrix *A, const row_block *mine) {
    row_block all = {0, 0, NULL, NULL, NULL};
    int r, i, nnz = mine->ptr[A->rows], *rows = NULL, *row_off = NULL, *nnzs = NULL, *nnz_off = NULL;
    int *lengths = dist_host_alloc((size_t)(A->rows ? A->rows : 1) * sizeof *lengths), *all_lengths = NULL;
    for (i = 0; i < A->rows; i++) lengths[i] = mine->ptr[i + 1] - mine->ptr[i];
    if (A->rank == 0) {
        rows = dist_host_alloc((size_t)A->ranks * sizeof *rows), row_off = dist_host_alloc((size_t)A->ranks * sizeof *row_off);
        nnzs = dist_host_alloc((size_t)A->ranks * sizeof *nnzs), nnz_off = dist_host_alloc((size_t)A->ranks * sizeof *nnz_off);
    }
    MPI_Gather(&nnz, 1, MPI_INT, nnzs, 1, MPI_INT, 0, A->comm);
    if (A->rank == 0) {
        long long total = 0;
        for (r = 0; r < A->ranks; r++) {
            rows[r] = (int)(A->first[r + 1] - A->first[r]), row_off[r] = (int)A->first[r];
            nnz_off[r] = (int)total, total += nnzs[r];
        }
        if (total > 2147483647LL) die("--check: the matrix is too large to gather");
        all.last = A->n;
        all_lengths = dist_host_alloc((size_t)A->n * sizeof *all_lengths);
        all.ptr = dist_host_alloc((size_t)(A->n + 1) * sizeof *all.ptr);
        all.col = dist_host_alloc((size_t)(total ? total : 1) * sizeof *all.col);
        all.val = dist_host_alloc((size_t)(total ? total : 1) * sizeof *all.val);
    }
    MPI_Gatherv(lengths, A->rows, MPI_INT, all_lengths, rows, row_off, MPI_INT, 0, A->comm);
    MPI_Gatherv(mine->col, nnz, MPI_LONG_LONG, all.col, nnzs, nnz_off, MPI_LONG_LONG, 0, A->comm);
    MPI_Gatherv(mine->val, nnz, MPI_DOUBLE, all.val, nnzs, nnz_off, MPI_DOUBLE, 0, A->comm);
    if (A->rank == 0) {
        all.ptr[0] = 0;
        for (i = 0; i < A->n; i++) all.ptr[i + 1] = all.ptr[i] + all_lengths[i];
    }
    free(lengths), free(all_lengths), free(rows), free(row_off), free(nnzs), free(nnz_off);
    return all;
}

/* Largest |a_i - b_i| / scale_i. */
static double max_relative(const double *a, const double *b, const double *scale, long long n) {
    double worst = 0.0;
    long long i;
    for (i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]) / (scale[i] > 0 ? scale[i] : 1.0);
        if (d > worst) worst = d;
    }
    return worst;
}

/* ---- main ------------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    long long nx = 24, ny = 24, nz = 24, n, powerlaw = 0, *first;
    const char *mtx = NULL;
    int precond_kind = PRECOND_JACOBI, maxit = 10000, uneven = 0, check = 0, bench = 0, weak = 0, staging = 0;
    int rank, ranks, local_rank, r, its, a;
    double tol = 1e-10, residual;
    char name[64];
    FILE *mtx_file = NULL;
    int symmetric = 1, pattern = 0, failed = 0;
    void *stream = NULL;
    MPI_Comm node;
    spblkHandle_t handle;
    row_block rows;
    dist_matrix A;
    solver s;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (a = 1; a < argc; a++) {
        const char *arg = argv[a], *next = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(arg, "--poisson") == 0 && next && ++a) {
            int got = sscanf(next, "%lld,%lld,%lld", &nx, &ny, &nz);
            if (got == 1) ny = nz = nx;
            if ((got != 1 && got != 3) || nx < 1 || ny < 1 || nz < 1) die("--poisson NX or NX,NY,NZ");
        } else if (strcmp(arg, "--powerlaw") == 0 && next && ++a) {
            powerlaw = atoll(next);
            if (powerlaw < 2) die("--powerlaw N: N >= 2");
        } else if (strcmp(arg, "--mtx") == 0 && next && ++a) {
            mtx = next;
        } else if (strcmp(arg, "--precond") == 0 && next && ++a) {
            precond_kind = strcmp(next, "none") == 0 ? PRECOND_NONE : strcmp(next, "ic0") == 0 ? PRECOND_IC0 : PRECOND_JACOBI;
            if (precond_kind == PRECOND_JACOBI && strcmp(next, "jacobi") != 0) die("--precond none|jacobi|ic0");
        } else if (strcmp(arg, "--tol") == 0 && next && ++a) {
            tol = atof(next);
        } else if (strcmp(arg, "--maxit") == 0 && next && ++a) {
            maxit = atoi(next);
        } else if (strcmp(arg, "--bench") == 0 && next && ++a) {
            bench = atoi(next);
            if (bench < 1) die("--bench R: R >= 1");
        } else if (strcmp(arg, "--uneven") == 0) {
            uneven = 1;
        } else if (strcmp(arg, "--weak") == 0) {
            weak = 1;
        } else if (strcmp(arg, "--check") == 0) {
            check = 1;
        } else if (strcmp(arg, "--host-staging") == 0) {
            staging = 1;
        } else {
            if (rank == 0) fprintf(stderr, "distributed_cg: unknown or incomplete option %s (see the source's head)\n", arg);
            MPI_Finalize();
            return 2;
        }
    }

    /* One GPU per rank: the rank's number among the ranks of its node picks it. */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    cuda_memory_device = local_rank;
    snprintf(name, sizeof name, "distributed_cg (rank %d of %d)", rank, ranks);
    example_name = name;
    handle = pick_backend();
    if (on_gpu) {
        cuda_check(cuda_api.StreamCreate(&stream, 0), "cuStreamCreate");
        CHECK(spblkSetStream(handle, (spblkStream_t)stream));
        printf("%s: GPU %d\n", name, cuda_memory_device);
    }

    /* The partition: rank r gets a share of the rows (r + 1 shares with --uneven). */
    if (weak) nz *= ranks;
    n = powerlaw ? powerlaw : mtx ? mtx_open(mtx, &mtx_file, &symmetric, &pattern) : nx * ny * nz;
    if (n > 2147483647LL * (long long)ranks) die("too many rows per rank for 32-bit local indices");
    first = dist_host_alloc((size_t)(ranks + 1) * sizeof *first);
    for (r = 0; r <= ranks; r++) {
        long long shares = uneven ? (long long)r * (r + 1) / 2 : r, all = uneven ? (long long)ranks * (ranks + 1) / 2 : ranks;
        first[r] = n / all * shares + n % all * shares / all;
    }
    if (powerlaw)
        rows = powerlaw_rows(n, 3.0, first, MPI_COMM_WORLD);
    else if (mtx)
        rows = mtx_rows(mtx_file, symmetric, pattern, first[rank], first[rank + 1]);
    else
        rows = poisson_rows(nx, ny, nz, first[rank], first[rank + 1]);
    if (mtx && !symmetric && rank == 0) printf("distributed_cg: %s is not symmetric: CG may not converge\n", mtx);

    dist_create(&A, handle, MPI_COMM_WORLD, n, &rows, !staging);
    solver_create(&s, &A, precond_kind, &rows);
    fill_b(&s, rows.first);
    {
        long long nnz = rows.ptr[A.rows], total_nnz = 0, ghosts = A.ghosts, max_ghosts = 0;
        MPI_Reduce(&nnz, &total_nnz, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&ghosts, &max_ghosts, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("distributed_cg: %s, %lld rows, %lld entries, %d ranks (%s rows), up to %lld ghosts a rank; "
                   "MPI %s\n",
                   powerlaw ? "power-law" : mtx ? mtx : "3-D Poisson", n, total_nnz, ranks, uneven ? "uneven" : "even",
                   max_ghosts, !on_gpu ? "on host memory" : A.staged ? "through pinned host memory" : "on device memory");
    }

    its = cg(&s, tol, maxit, &residual);
    if (rank == 0)
        printf("distributed_cg: CG (%s) %d iterations, |r| / |b| = %.3e\n",
               precond_kind == PRECOND_NONE ? "no preconditioner" : precond_kind == PRECOND_JACOBI ? "Jacobi" : "block-Jacobi IC0",
               its, residual);
    if (its >= maxit || !(residual <= tol)) failed = 1;

    if (check) {
        /* The distributed results on rank 0, then the same on one rank. */
        double *x = gather_vector(&s, V_X), *y, *b;
        row_block whole = gather_rows(&A, &rows);
        axpby(&s, 1.0, V_B, 0.0, V_P);
        dist_spmv(&A, s.dn[V_P], s.dn[V_Q]);
        y = gather_vector(&s, V_Q);
        b = gather_vector(&s, V_B);
        if (rank == 0) {
            dist_matrix A1;
            solver s1;
            int its1, i, k;
            double residual1, *x1, *y1, *scale = dist_host_alloc((size_t)n * sizeof *scale), dx, dy, norm_x = 0, diff = 0;
            dist_create(&A1, handle, MPI_COMM_SELF, n, &whole, 0);
            solver_create(&s1, &A1, precond_kind, &whole);
            fill_b(&s1, 0);
            axpby(&s1, 1.0, V_B, 0.0, V_P);
            dist_spmv(&A1, s1.dn[V_P], s1.dn[V_Q]);
            y1 = gather_vector(&s1, V_Q);
            its1 = cg(&s1, tol, maxit, &residual1);
            x1 = gather_vector(&s1, V_X);
            /* A b: equal up to the order of each row's sum (|a_i| · |b| scales the bound). */
            for (i = 0; i < n; i++) {
                scale[i] = 0;
                for (k = whole.ptr[i]; k < whole.ptr[i + 1]; k++) scale[i] += fabs(whole.val[k] * b[whole.col[k]]);
                norm_x += x1[i] * x1[i], diff += (x[i] - x1[i]) * (x[i] - x1[i]);
            }
            dy = max_relative(y, y1, scale, n);
            dx = sqrt(diff / (norm_x > 0 ? norm_x : 1));
            printf("check: one rank: CG %d iterations, |r| / |b| = %.3e\n", its1, residual1);
            printf("check: A b differs by %.2e (relative to |A| |b|, bound 1e-14); x by %.2e (relative, bound %.0e); "
                   "iterations %d vs %d\n",
                   dy, dx, 10 * tol, its, its1);
            if (dy > 1e-14 || dx > 10 * tol || (precond_kind != PRECOND_IC0 && abs(its - its1) > 1)) failed = 1;
            printf("check: %s\n", failed ? "FAILED" : "PASSED (the distributed product and CG match one rank's)");
            solver_destroy(&s1);
            dist_destroy(&A1);
            free(x1), free(y1), free(scale), free_rows(&whole);
        }
        free(x), free(y), free(b);
        MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }

    if (bench) {
        double t[RUNS], start, total, reduce = 0.0, exposed;
        int its2;
        time_products(&s, bench, t);
        MPI_Barrier(MPI_COMM_WORLD);
        s.reduce_s = 0.0;
        start = MPI_Wtime();
        its2 = cg(&s, tol, maxit, &residual); /* ends with a copy out, so the GPU is done */
        total = MPI_Wtime() - start;
        MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&s.reduce_s, &reduce, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        exposed = t[RUN_DISTRIBUTED] - t[RUN_INTERIOR] - t[RUN_HALO];
        if (exposed < 0) exposed = 0;
        if (rank == 0) {
            printf("bench: SpMV (median of %d, slowest rank): interior alone %.1f us, halo alone %.1f us, distributed "
                   "%.1f us = %.3fx the interior alone; its messages alone (MPI, %s) %.1f us\n",
                   bench, t[RUN_INTERIOR] * 1e6, t[RUN_HALO] * 1e6, t[RUN_DISTRIBUTED] * 1e6,
                   t[RUN_DISTRIBUTED] / t[RUN_INTERIOR], A.staged || !on_gpu ? "host memory" : "device memory",
                   t[RUN_MPI] * 1e6);
            printf("bench: CG %d iterations in %.2f ms (%.1f us an iteration): compute %.2f ms, exposed exchange %.2f ms, "
                   "reductions %.2f ms\n",
                   its2, total * 1e3, total * 1e6 / (its2 ? its2 : 1), (total - reduce - its2 * exposed) * 1e3,
                   its2 * exposed * 1e3, reduce * 1e3);
        }
    }

    solver_destroy(&s);
    dist_destroy(&A);
    free_rows(&rows);
    free(first);
    CHECK(spblkDestroy(handle));
    if (stream) cuda_api.StreamDestroy(stream);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return failed;
}
