/* IC0-preconditioned CG on the 7-point Poisson 3-D matrix, written against cuSPARSE and cuBLAS
 * as NVIDIA's cg sample is (csric02 on a copy of A, SpSV with op N and op T on the factor,
 * SpMV, cuBLAS vector updates), everything on the GPU. Run it with NVIDIA's libcusparse.so.12
 * and with spblk's (LD_LIBRARY_PATH): the same program, end to end. It prints the phases'
 * times (wall clock with device synchronization), the iterations and the true residual.
 *   gcc pcg_cusparse.c -I$CUDA/include -L$CUDA/lib64 -lcusparse -lcublas -lcudart -lm
 *   ./pcg_cusparse [grid] [tolerance]   (default 128, 1e-8) */
#define _POSIX_C_SOURCE 199309L
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common.h"

int main(int argc, char **argv) {
    int g = argc > 1 ? atoi(argv[1]) : 128, n = g * g * g, nnz = 0, i, k, it = 0, pos;
    double tol = argc > 2 ? atof(argv[2]) : 1e-8, one = 1.0, zero = 0.0, mone = -1.0;
    int *ptr = malloc(sizeof(int) * (n + 1)), *col = malloc(sizeof(int) * 7 * (size_t)n);
    double *val = malloc(sizeof(double) * 7 * (size_t)n), t0, t_setup, t_factor, t_solve, t_total;
    for (i = 0; i < n; i++) {
        int x = i % g, y = (i / g) % g, z = i / (g * g);
        int nb[7] = {i - g * g, i - g, i - 1, i, i + 1, i + g, i + g * g};
        int ok[7] = {z > 0, y > 0, x > 0, 1, x < g - 1, y < g - 1, z < g - 1};
        ptr[i] = nnz;
        for (k = 0; k < 7; k++)
            if (ok[k]) col[nnz] = nb[k], val[nnz++] = k == 3 ? 6.0 : -1.0;
    }
    ptr[n] = nnz;
    int *dptr, *dcol;
    double *dval, *dl, *dx, *dr, *dz, *dy, *dp, *dq, *dtmp;
    size_t vb = sizeof(double) * (size_t)n;
    CK(cudaMalloc((void **)&dptr, sizeof(int) * (n + 1)));
    CK(cudaMalloc((void **)&dcol, sizeof(int) * nnz));
    CK(cudaMalloc((void **)&dval, sizeof(double) * nnz));
    CK(cudaMalloc((void **)&dl, sizeof(double) * nnz));
    double **vecs[] = {&dx, &dr, &dz, &dy, &dp, &dq};
    for (k = 0; k < 6; k++) CK(cudaMalloc((void **)vecs[k], vb));
    CK(cudaMemcpy(dptr, ptr, sizeof(int) * (n + 1), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dcol, col, sizeof(int) * nnz, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dval, val, sizeof(double) * nnz, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dl, val, sizeof(double) * nnz, cudaMemcpyHostToDevice));
    double *ones = malloc(vb);
    for (i = 0; i < n; i++) ones[i] = 1.0;
    cusparseHandle_t h;
    cublasHandle_t b;
    CK(cusparseCreate(&h));
    CK(cublasCreate(&b));
    CK(cudaDeviceSynchronize());

    /* Setup: descriptors, IC0 (analysis + factor), the two SpSV analyses, SpMV's buffer. */
    t0 = now();
    cusparseMatDescr_t md;
    csric02Info_t info;
    int ic_size;
    void *ic_buf;
    CK(cusparseCreateMatDescr(&md));
    CK(cusparseCreateCsric02Info(&info));
    CK(cusparseDcsric02_bufferSize(h, n, nnz, md, dl, dptr, dcol, info, &ic_size));
    CK(cudaMalloc(&ic_buf, ic_size));
    CK(cusparseDcsric02_analysis(h, n, nnz, md, dl, dptr, dcol, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, ic_buf));
    if (cusparseXcsric02_zeroPivot(h, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) printf("structural zero %d\n", pos);
    double f0 = now();
    CK(cusparseDcsric02(h, n, nnz, md, dl, dptr, dcol, info, CUSPARSE_SOLVE_POLICY_USE_LEVEL, ic_buf));
    if (cusparseXcsric02_zeroPivot(h, info, &pos) == CUSPARSE_STATUS_ZERO_PIVOT) printf("zero pivot %d\n", pos);
    t_factor = now() - f0;
    cusparseSpMatDescr_t A, L;
    cusparseDnVecDescr_t vr, vz, vy, vp, vq;
    cusparseFillMode_t lower = CUSPARSE_FILL_MODE_LOWER;
    cusparseDiagType_t nonunit = CUSPARSE_DIAG_TYPE_NON_UNIT;
    CK(cusparseCreateCsr(&A, n, n, nnz, dptr, dcol, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CK(cusparseCreateCsr(&L, n, n, nnz, dptr, dcol, dl, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CK(cusparseSpMatSetAttribute(L, CUSPARSE_SPMAT_FILL_MODE, &lower, sizeof lower));
    CK(cusparseSpMatSetAttribute(L, CUSPARSE_SPMAT_DIAG_TYPE, &nonunit, sizeof nonunit));
    CK(cusparseCreateDnVec(&vr, n, dr, CUDA_R_64F));
    CK(cusparseCreateDnVec(&vz, n, dz, CUDA_R_64F));
    CK(cusparseCreateDnVec(&vy, n, dy, CUDA_R_64F));
    CK(cusparseCreateDnVec(&vp, n, dp, CUDA_R_64F));
    CK(cusparseCreateDnVec(&vq, n, dq, CUDA_R_64F));
    cusparseSpSVDescr_t sl, slt;
    size_t s1, s2, s3;
    void *b1, *b2, *b3;
    CK(cusparseSpSV_createDescr(&sl));
    CK(cusparseSpSV_createDescr(&slt));
    CK(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, L, vr, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sl, &s1));
    CK(cusparseSpSV_bufferSize(h, CUSPARSE_OPERATION_TRANSPOSE, &one, L, vy, vz, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, slt, &s2));
    CK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vq, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &s3));
    CK(cudaMalloc(&b1, s1 ? s1 : 1));
    CK(cudaMalloc(&b2, s2 ? s2 : 1));
    CK(cudaMalloc(&b3, s3 ? s3 : 1));
    CK(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, L, vr, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sl, b1));
    CK(cusparseSpSV_analysis(h, CUSPARSE_OPERATION_TRANSPOSE, &one, L, vy, vz, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, slt, b2));
    CK(cudaDeviceSynchronize());
    t_setup = now() - t0;

    /* PCG for A x = b with b = 1, x = 0. */
    double t1 = now(), rz, rz_new, pq, nr, nb = sqrt((double)n), alpha, beta;
    CK(cudaMemset(dx, 0, vb));
    CK(cudaMemcpy(dr, ones, vb, cudaMemcpyHostToDevice));
#define PRECONDITION()                                                                                            \
    CK(cusparseSpSV_solve(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, L, vr, vy, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, sl)); \
    CK(cusparseSpSV_solve(h, CUSPARSE_OPERATION_TRANSPOSE, &one, L, vy, vz, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, slt))
    PRECONDITION();
    CK(cublasDcopy(b, n, dz, 1, dp, 1));
    CK(cublasDdot(b, n, dr, 1, dz, 1, &rz));
    CK(cublasDnrm2(b, n, dr, 1, &nr));
    while (nr > tol * nb && it < 2000) {
        CK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vq, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, b3));
        CK(cublasDdot(b, n, dp, 1, dq, 1, &pq));
        alpha = rz / pq;
        CK(cublasDaxpy(b, n, &alpha, dp, 1, dx, 1));
        double malpha = -alpha;
        CK(cublasDaxpy(b, n, &malpha, dq, 1, dr, 1));
        CK(cublasDnrm2(b, n, dr, 1, &nr));
        PRECONDITION();
        CK(cublasDdot(b, n, dr, 1, dz, 1, &rz_new));
        beta = rz_new / rz;
        rz = rz_new;
        CK(cublasDscal(b, n, &beta, dp, 1));
        CK(cublasDaxpy(b, n, &one, dz, 1, dp, 1));
        it++;
    }
    CK(cudaDeviceSynchronize());
    t_solve = now() - t1;
    t_total = now() - t0;
    /* The true residual |b - A x| / |b|. */
    CK(cudaMemcpy(dr, ones, vb, cudaMemcpyHostToDevice));
    CK(cusparseDnVecSetValues(vp, dx));
    CK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &mone, A, vp, &one, vr, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, b3));
    CK(cublasDnrm2(b, n, dr, 1, &nr));
    printf("pcg %d^3 (n=%d nnz=%d): %d iterations, residual %.2e | setup %.2f ms (IC0 factor %.2f ms) solve %.2f ms "
           "(%.3f ms/iteration) total %.2f ms\n", g, n, nnz, it, nr / nb, t_setup, t_factor, t_solve, t_solve / (it + 1),
           t_total);
    (void)dtmp;
    return nr / nb < tol ? 0 : 1;
}
