/* SpSV: spblk (CUDA backend, through spblk.h) against NVIDIA's cuSPARSE, in one process, on
 * the legacy default stream. Analysis: wall time of the call plus a device synchronize, on a
 * fresh descriptor, median of 5. Solve: CUDA events, 5 warm-ups, median of 21. The two
 * results are compared (largest difference relative to max |y|).
 *   cc time_spsv.c -I<spblk include> -I$CUDA/include -L<spblk lib> -lspblk -lcusparse -lcudart -lm
 *   ./time_spsv [quick|full [case]] [file.mtx ...]
 * "quick": smaller built-in matrices; case: run only that case (1-based; the built-in ones are
 * 1-7, then two per .mtx file). Each .mtx argument (square, coordinate; see read_mtx in common.h)
 * is made diagonally dominant (make_dominant) and its lower triangle solved with op N and op T
 * (f64, fill L, non-unit), named by the file's base name; these cases run after the built-in
 * ones, so that the built-in cases' random vectors do not change. */
#define _POSIX_C_SOURCE 199309L
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <math.h>
#include <spblk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

typedef struct {
    int n;
    cusparseHandle_t h;
    cusparseSpMatDescr_t a;
    cusparseDnVecDescr_t x, y;
    cusparseSpSVDescr_t d;
    spblkHandle_t sh;
    spblkSpMatDescr_t sa;
    spblkDnVecDescr_t sx, sy;
    spblkSpSVDescr_t sd;
    cusparseOperation_t op;
    cudaDataType t;
    void *buf, *sbuf;
} ctx_t;
static const double one_d = 1.0;
static const float one_f = 1.0f;
static const void *one(ctx_t *c) { return c->t == CUDA_R_64F ? (const void *)&one_d : (const void *)&one_f; }
static void nv_solve(ctx_t *c) { CK(cusparseSpSV_solve(c->h, c->op, one(c), c->a, c->x, c->y, c->t, CUSPARSE_SPSV_ALG_DEFAULT, c->d)); }
static void sp_solve(ctx_t *c) { CK(spblkSpSV_solve(c->sh, c->op, one(c), c->sa, c->sx, c->sy, c->t, SPBLK_SPSV_ALG_DEFAULT, c->sd)); }
static void nv_analysis(ctx_t *c) {
    if (c->d) cusparseSpSV_destroyDescr(c->d);
    CK(cusparseSpSV_createDescr(&c->d));
    CK(cusparseSpSV_analysis(c->h, c->op, one(c), c->a, c->x, c->y, c->t, CUSPARSE_SPSV_ALG_DEFAULT, c->d, c->buf));
}
static void sp_analysis(ctx_t *c) {
    if (c->sd) spblkSpSV_destroyDescr(c->sd);
    CK(spblkSpSV_createDescr(&c->sd));
    CK(spblkSpSV_analysis(c->sh, c->op, one(c), c->sa, c->sx, c->sy, c->t, SPBLK_SPSV_ALG_DEFAULT, c->sd, c->sbuf));
}
typedef void (*fn)(ctx_t *);
/* The median of 21 solves between events (ms). Also, in *host_us, the median time the call takes
 * on the host (it returns before the GPU is done), and in *queued_ms the time per solve of 20
 * queued back to back (the GPU's own time where the host keeps ahead). */
static float median_solve(fn f, ctx_t *c, float *host_us, float *queued_ms) {
    float t[21], h[21], q;
    cudaEvent_t a, b;
    int i;
    cudaEventCreate(&a), cudaEventCreate(&b);
    for (i = 0; i < 5; ++i) f(c);
    for (i = 0; i < 21; ++i) {
        double t0;
        cudaEventRecord(a, 0);
        t0 = now();
        f(c);
        h[i] = (float)((now() - t0) * 1e3);
        cudaEventRecord(b, 0);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&t[i], a, b);
    }
    cudaEventRecord(a, 0);
    for (i = 0; i < 20; ++i) f(c);
    cudaEventRecord(b, 0);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&q, a, b);
    qsort(t, 21, sizeof(float), cmpf);
    qsort(h, 21, sizeof(float), cmpf);
    *host_us = h[10];
    *queued_ms = q / 20;
    return t[10];
}
static float median_analysis(fn f, ctx_t *c) {
    float t[5];
    int i;
    f(c);
    CK(cudaDeviceSynchronize());
    for (i = 0; i < 5; ++i) {
        double t0 = now();
        f(c);
        CK(cudaDeviceSynchronize());
        t[i] = (float)(now() - t0);
    }
    qsort(t, 5, sizeof(float), cmpf);
    return t[2];
}

static void run(const char *name, csr_t *m, cusparseFillMode_t fill, cusparseOperation_t op, cudaDataType t) {
    ctx_t c;
    size_t vs = t == CUDA_R_64F ? 8 : 4, bs = 0, sbs = 0, i;
    void *ptr = dev(m->ptr, sizeof(int) * (m->n + 1)), *col = dev(m->col, sizeof(int) * m->nnz), *val, *x, *y, *sy;
    void *hv = malloc(vs * m->nnz), *hx = malloc(vs * m->n), *r1 = malloc(vs * m->n), *r2 = malloc(vs * m->n);
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    double diff = 0, big = 0;
    float a_nv, a_sp, s_nv, s_sp, h_nv, h_sp, q_nv, q_sp;
    for (i = 0; i < (size_t)m->nnz; i++) {
        if (vs == 8) ((double *)hv)[i] = m->val[i]; else ((float *)hv)[i] = (float)m->val[i];
    }
    for (i = 0; i < (size_t)m->n; i++) {
        double v = u() - 0.5;
        if (vs == 8) ((double *)hx)[i] = v; else ((float *)hx)[i] = (float)v;
    }
    val = dev(hv, vs * m->nnz);
    x = dev(hx, vs * m->n);
    y = dev(NULL, vs * m->n);
    sy = dev(NULL, vs * m->n);
    memset(&c, 0, sizeof c);
    c.n = m->n, c.op = op, c.t = t;
    CK(cusparseCreate(&c.h));
    CK(spblkCreateWithBackend(&c.sh, SPBLK_BACKEND_CUDA));
    CK(cusparseCreateCsr(&c.a, m->n, m->n, m->nnz, ptr, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, t));
    CK(cusparseSpMatSetAttribute(c.a, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    CK(cusparseSpMatSetAttribute(c.a, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    CK(spblkCreateCsr(&c.sa, m->n, m->n, m->nnz, ptr, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, (spblkDataType_t)t));
    CK(spblkSpMatSetAttribute(c.sa, SPBLK_SPMAT_FILL_MODE, &fill, sizeof fill));
    CK(spblkSpMatSetAttribute(c.sa, SPBLK_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    CK(cusparseCreateDnVec(&c.x, m->n, x, t));
    CK(cusparseCreateDnVec(&c.y, m->n, y, t));
    CK(spblkCreateDnVec(&c.sx, m->n, x, (spblkDataType_t)t));
    CK(spblkCreateDnVec(&c.sy, m->n, sy, (spblkDataType_t)t));
    CK(cusparseSpSV_createDescr(&c.d));
    CK(spblkSpSV_createDescr(&c.sd));
    CK(cusparseSpSV_bufferSize(c.h, op, one(&c), c.a, c.x, c.y, t, CUSPARSE_SPSV_ALG_DEFAULT, c.d, &bs));
    CK(spblkSpSV_bufferSize(c.sh, op, one(&c), c.sa, c.sx, c.sy, (spblkDataType_t)t, SPBLK_SPSV_ALG_DEFAULT, c.sd, &sbs));
    c.buf = dev(NULL, bs);
    c.sbuf = dev(NULL, sbs);
    a_nv = median_analysis(nv_analysis, &c);
    a_sp = median_analysis(sp_analysis, &c);
    s_nv = median_solve(nv_solve, &c, &h_nv, &q_nv);
    s_sp = median_solve(sp_solve, &c, &h_sp, &q_sp);
    CK(cudaMemcpy(r1, y, vs * m->n, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(r2, sy, vs * m->n, cudaMemcpyDeviceToHost));
    for (i = 0; i < (size_t)m->n; i++) {
        double p = vs == 8 ? ((double *)r1)[i] : ((float *)r1)[i], q = vs == 8 ? ((double *)r2)[i] : ((float *)r2)[i];
        if (fabs(p - q) > diff || isnan(q)) diff = isnan(q) ? INFINITY : fabs(p - q);
        if (fabs(p) > big) big = fabs(p);
    }
    printf("%-28s %s op %s n=%d nnz=%ld | buffer MB nv %.1f spblk %.1f | analysis ms nv %.3f spblk %.3f (x%.2f) | "
           "solve ms nv %.3f spblk %.3f (x%.2f) | max diff/max|y| %.1e | solve call on the host us nv %.1f spblk %.1f | "
           "queued ms nv %.3f spblk %.3f\n",
           name, t == CUDA_R_64F ? "f64" : "f32", op == CUSPARSE_OPERATION_NON_TRANSPOSE ? "N" : "T", m->n, m->nnz,
           bs / 1e6, sbs / 1e6, a_nv, a_sp, a_nv / a_sp, s_nv, s_sp, s_nv / s_sp, diff / big, h_nv, h_sp, q_nv, q_sp);
    fflush(stdout);
    cusparseSpSV_destroyDescr(c.d);
    spblkSpSV_destroyDescr(c.sd);
    cusparseDestroySpMat(c.a);
    spblkDestroySpMat(c.sa);
    cusparseDestroyDnVec(c.x), cusparseDestroyDnVec(c.y), spblkDestroyDnVec(c.sx), spblkDestroyDnVec(c.sy);
    cusparseDestroy(c.h);
    spblkDestroy(c.sh);
    cudaFree(ptr), cudaFree(col), cudaFree(val), cudaFree(x), cudaFree(y), cudaFree(sy), cudaFree(c.buf), cudaFree(c.sbuf);
    free(hv), free(hx), free(r1), free(r2);
}

int main(int argc, char **argv) {
    /* Arguments ending in .mtx are extra cases; the others keep their places: [quick] [case]. */
    const char *arg[2] = {"", NULL}, **mtx = malloc(sizeof(char *) * (size_t)argc);
    int na = 0, nm = 0, f;
    for (f = 1; f < argc; f++) {
        if (is_mtx_arg(argv[f])) mtx[nm++] = argv[f];
        else if (na < 2) arg[na++] = argv[f];
    }
    int quick = na > 0 && !strcmp(arg[0], "quick");
    int only = na > 1 ? atoi(arg[1]) : 0, k = 0; /* run only case `only` (1-based) */
    csr_t p3l = laplace(quick ? 64 : 128, quick ? 64 : 128, 1), p3 = laplace(quick ? 64 : 128, quick ? 64 : 128, 0);
    csr_t p2l = laplace(2048, 1, 1), pl = power_law(quick ? 200000 : 2000000, 8);
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE, T = CUSPARSE_OPERATION_TRANSPOSE;
    const cusparseFillMode_t L = CUSPARSE_FILL_MODE_LOWER, U = CUSPARSE_FILL_MODE_UPPER;
    if (!only || ++k == only) run("poisson3d lower", &p3l, L, N, CUDA_R_64F);
    if (!only || ++k == only) run("poisson3d lower", &p3l, L, N, CUDA_R_32F);
    if (!only || ++k == only) run("poisson3d lower (as U^T)", &p3l, L, T, CUDA_R_64F);
    if (!only || ++k == only) run("poisson3d full, upper", &p3, U, N, CUDA_R_64F);
    if (!only || ++k == only) run("poisson2d lower", &p2l, L, N, CUDA_R_64F);
    if (!only || ++k == only) run("power-law lower", &pl, L, N, CUDA_R_64F);
    if (!only || ++k == only) run("power-law lower (as U^T)", &pl, L, T, CUDA_R_64F);
    for (f = 0; f < nm; f++) {
        int want_n = !only || ++k == only, want_t = !only || ++k == only;
        char base[200], name[256];
        csr_t a, l;
        if (!want_n && !want_t) continue;
        mtx_case_name(mtx[f], base, sizeof base);
        if (read_mtx(mtx[f], &a)) {
            printf("%-28s skipped: not read (see stderr)\n", base);
            fflush(stdout);
            continue;
        }
        make_dominant(&a);
        l = lower_of(&a);
        free_csr(&a);
        snprintf(name, sizeof name, "%s lower", base);
        if (want_n) run(name, &l, L, N, CUDA_R_64F);
        snprintf(name, sizeof name, "%s lower (as U^T)", base);
        if (want_t) run(name, &l, L, T, CUDA_R_64F);
        free_csr(&l);
    }
    free(mtx);
    return 0;
}
