/* SpSM: spblk (CUDA backend) against NVIDIA's cuSPARSE in one process, k right-hand sides,
 * opB N or T, B and C row- or column-major. Analysis: wall time + device synchronize on a fresh
 * descriptor, median of 5; solve: CUDA events, 3 warm-ups, median of 11. The two results are
 * compared (largest difference relative to max |C|).
 *   cc time_spsm.c -I<spblk include> -I$CUDA/include -L<spblk lib> -lspblk -lcusparse -lcudart -lm */
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

/* op(A) C = op(B), A's lower triangle (fill L), f64. */
static void run(const char *name, csr_t *m, cusparseOperation_t opA, int k, cusparseOperation_t opB,
                cusparseOrder_t ob, cusparseOrder_t oc) {
    const double one = 1.0;
    const cudaDataType t = CUDA_R_64F;
    int n = m->n, i, r;
    long bl = (long)n * k;
    cusparseFillMode_t fill = CUSPARSE_FILL_MODE_LOWER;
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    void *ptr = dev(m->ptr, sizeof(int) * (n + 1)), *col = dev(m->col, sizeof(int) * m->nnz);
    void *val = dev(m->val, sizeof(double) * m->nnz);
    double *hb = malloc(sizeof(double) * bl), *r1 = malloc(sizeof(double) * bl), *r2 = malloc(sizeof(double) * bl);
    for (i = 0; i < bl; i++) hb[i] = u() - 0.5;
    void *b = dev(hb, sizeof(double) * bl), *c1 = dev(NULL, sizeof(double) * bl), *c2 = dev(NULL, sizeof(double) * bl);
    /* B is n x k (op N) or k x n (op T); its leading dimension is the packed one. */
    long brows = opB == CUSPARSE_OPERATION_NON_TRANSPOSE ? n : k, bcols = opB == CUSPARSE_OPERATION_NON_TRANSPOSE ? k : n;
    long ldb = ob == CUSPARSE_ORDER_COL ? brows : bcols, ldc = oc == CUSPARSE_ORDER_COL ? n : k;
    cusparseHandle_t h;
    spblkHandle_t sh;
    cusparseSpMatDescr_t a;
    spblkSpMatDescr_t sa;
    cusparseDnMatDescr_t db, dc;
    spblkDnMatDescr_t sdb, sdc;
    cusparseSpSMDescr_t d;
    spblkSpSMDescr_t sd;
    size_t bs = 0, sbs = 0;
    void *buf, *sbuf;
    float ta[5], tb[5], sa_[11], sb_[11];
    cudaEvent_t e0, e1;
    double diff = 0, big = 0;
    CK(cusparseCreate(&h));
    CK(spblkCreateWithBackend(&sh, SPBLK_BACKEND_CUDA));
    CK(cusparseCreateCsr(&a, n, n, m->nnz, ptr, col, val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, t));
    CK(spblkCreateCsr(&sa, n, n, m->nnz, ptr, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_64F));
    CK(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    CK(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    CK(spblkSpMatSetAttribute(sa, SPBLK_SPMAT_FILL_MODE, &fill, sizeof fill));
    CK(spblkSpMatSetAttribute(sa, SPBLK_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    CK(cusparseCreateDnMat(&db, brows, bcols, ldb, b, t, ob));
    CK(cusparseCreateDnMat(&dc, n, k, ldc, c1, t, oc));
    CK(spblkCreateDnMat(&sdb, brows, bcols, ldb, b, SPBLK_R_64F, (spblkOrder_t)ob));
    CK(spblkCreateDnMat(&sdc, n, k, ldc, c2, SPBLK_R_64F, (spblkOrder_t)oc));
    CK(cusparseSpSM_createDescr(&d));
    CK(spblkSpSM_createDescr(&sd));
    CK(cusparseSpSM_bufferSize(h, opA, opB, &one, a, db, dc, t, CUSPARSE_SPSM_ALG_DEFAULT, d, &bs));
    CK(spblkSpSM_bufferSize(sh, opA, opB, &one, sa, sdb, sdc, SPBLK_R_64F, 0, sd, &sbs));
    buf = dev(NULL, bs), sbuf = dev(NULL, sbs);
    for (r = 0; r < 5; r++) {
        double t0;
        cusparseSpSM_destroyDescr(d);
        CK(cusparseSpSM_createDescr(&d));
        CK(cudaDeviceSynchronize()); t0 = now();
        CK(cusparseSpSM_analysis(h, opA, opB, &one, a, db, dc, t, CUSPARSE_SPSM_ALG_DEFAULT, d, buf));
        CK(cudaDeviceSynchronize()); ta[r] = (float)(now() - t0);
        spblkSpSM_destroyDescr(sd);
        CK(spblkSpSM_createDescr(&sd));
        CK(cudaDeviceSynchronize()); t0 = now();
        CK(spblkSpSM_analysis(sh, opA, opB, &one, sa, sdb, sdc, SPBLK_R_64F, 0, sd, sbuf));
        CK(cudaDeviceSynchronize()); tb[r] = (float)(now() - t0);
    }
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    for (r = 0; r < 14; r++) {
        cudaEventRecord(e0, 0);
        CK(cusparseSpSM_solve(h, opA, opB, &one, a, db, dc, t, CUSPARSE_SPSM_ALG_DEFAULT, d));
        cudaEventRecord(e1, 0); cudaEventSynchronize(e1);
        if (r >= 3) cudaEventElapsedTime(&sa_[r - 3], e0, e1);
        cudaEventRecord(e0, 0);
        CK(spblkSpSM_solve(sh, opA, opB, &one, sa, sdb, sdc, SPBLK_R_64F, 0, sd));
        cudaEventRecord(e1, 0); cudaEventSynchronize(e1);
        if (r >= 3) cudaEventElapsedTime(&sb_[r - 3], e0, e1);
    }
    CK(cudaMemcpy(r1, c1, sizeof(double) * bl, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(r2, c2, sizeof(double) * bl, cudaMemcpyDeviceToHost));
    for (i = 0; i < bl; i++) {
        double p = r1[i], q = r2[i];
        if (fabs(p - q) > diff || isnan(q) || isnan(p)) diff = (isnan(q) || isnan(p)) ? INFINITY : fabs(p - q);
        if (fabs(p) > big) big = fabs(p);
    }
    {
        float an = med(ta, 5), as = med(tb, 5), sn = med(sa_, 11), ss = med(sb_, 11);
        printf("%-22s op %s k=%-3d opB %s B %s C %s n=%d | buffer MB nv %.1f spblk %.1f | analysis ms nv %.3f spblk %.3f (x%.2f) | "
               "solve ms nv %.3f spblk %.3f (x%.2f) | max diff/max|C| %.1e\n",
               name, opA == CUSPARSE_OPERATION_NON_TRANSPOSE ? "N" : "T", k, opB == CUSPARSE_OPERATION_NON_TRANSPOSE ? "N" : "T",
               ob == CUSPARSE_ORDER_COL ? "col" : "row", oc == CUSPARSE_ORDER_COL ? "col" : "row", n, bs / 1e6, sbs / 1e6,
               an, as, an / as, sn, ss, sn / ss, diff / big);
        fflush(stdout);
    }
    cusparseSpSM_destroyDescr(d), spblkSpSM_destroyDescr(sd);
    cusparseDestroyDnMat(db), cusparseDestroyDnMat(dc), spblkDestroyDnMat(sdb), spblkDestroyDnMat(sdc);
    cusparseDestroySpMat(a), spblkDestroySpMat(sa);
    cusparseDestroy(h), spblkDestroy(sh);
    cudaFree(ptr), cudaFree(col), cudaFree(val), cudaFree(b), cudaFree(c1), cudaFree(c2), cudaFree(buf), cudaFree(sbuf);
    free(hb), free(r1), free(r2);
}

int main(int argc, char **argv) {
    int quick = argc > 1 && !strcmp(argv[1], "quick");
    csr_t p3l = laplace(quick ? 64 : 128, quick ? 64 : 128, 1), pl = power_law(quick ? 200000 : 1000000, 8);
    const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE, T = CUSPARSE_OPERATION_TRANSPOSE;
    const cusparseOrder_t C = CUSPARSE_ORDER_COL, R = CUSPARSE_ORDER_ROW;
    /* Layouts first (small k, correctness against NVIDIA), then the right-hand sides' count. */
    run("poisson3d lower", &p3l, N, 3, N, C, C);
    run("poisson3d lower", &p3l, N, 3, N, R, R);
    run("poisson3d lower", &p3l, N, 3, T, R, C);
    run("poisson3d lower", &p3l, N, 3, T, C, R);
    run("poisson3d lower", &p3l, T, 3, N, C, C);
    run("poisson3d lower", &p3l, N, 1, N, C, C);
    run("poisson3d lower", &p3l, N, 8, N, C, C);
    run("poisson3d lower", &p3l, N, 32, N, C, C);
    run("power-law lower", &pl, N, 8, N, C, C);
    run("power-law lower", &pl, T, 8, N, C, C);
    return 0;
}
