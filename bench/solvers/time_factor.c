/* IC0/ILU0: spblk (CUDA backend) against NVIDIA's csric02/csrilu02 in one process, f64.
 * Analysis: wall time + device synchronize on a fresh info object, median of 5. Factorization:
 * CUDA events around the call alone (A's values restored by a copy before each), 2 warm-ups,
 * median of 9. The two factors are compared (largest difference relative to max |value|).
 *   cc time_factor.c -I<spblk include> -I$CUDA/include -L<spblk lib> -lspblk -lcusparse -lcudart -lm
 *   ./time_factor [quick] [file.mtx ...]
 * "quick": smaller built-in matrices. Each .mtx argument (square, coordinate; see read_mtx in
 * common.h) adds two cases after the built-in ones, named by the file's base name:
 *   IC0 on S = (A + A^T) / 2 made diagonally dominant (make_dominant), passed whole as the
 *       built-in IC0 cases pass theirs (csric02 reads its lower triangle). For a symmetric file
 *       S is A itself; for a non-symmetric one the pattern is symmetrized (the union of A's and
 *       A^T's) and the case is named "<base> (A+A^T)/2": IC0 runs on every file, none skipped.
 *   ILU0 on A made diagonally dominant.
 * The dominant diagonal (1 + sum of |off-diagonal| of the row) keeps both factorizations free of
 * zero and tiny pivots. */
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

static void run(const char *name, csr_t *m, int ic) {
    int n = m->n, nnz = (int)m->nnz, r, bs = 0, sbs = 0, zn = -2, zs = -2;
    size_t vb = sizeof(double) * m->nnz;
    void *ptr = dev(m->ptr, sizeof(int) * (n + 1)), *col = dev(m->col, sizeof(int) * nnz);
    void *orig = dev(m->val, vb), *v1 = dev(m->val, vb), *v2 = dev(m->val, vb), *buf, *sbuf;
    double *r1 = malloc(vb), *r2 = malloc(vb), diff = 0, big = 0;
    cusparseHandle_t h;
    spblkHandle_t sh;
    cusparseMatDescr_t md;
    spblkMatDescr_t smd;
    float ta[5], tb[5], fa[9], fb[9];
    cudaEvent_t e0, e1;
    long i;
    CK(cusparseCreate(&h));
    CK(spblkCreateWithBackend(&sh, SPBLK_BACKEND_CUDA));
    CK(cusparseCreateMatDescr(&md));
    CK(spblkCreateMatDescr(&smd));
    cudaEventCreate(&e0), cudaEventCreate(&e1);
    csric02Info_t ni = NULL;
    csrilu02Info_t nl = NULL;
    spblkCsric02Info_t si = NULL;
    spblkCsrilu02Info_t sl = NULL;
    const cusparseSolvePolicy_t P = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
    if (ic) {
        CK(cusparseCreateCsric02Info(&ni)); CK(spblkCreateCsric02Info(&si));
        CK(cusparseDcsric02_bufferSize(h, n, nnz, md, v1, ptr, col, ni, &bs));
        CK(spblkDcsric02_bufferSize(sh, n, nnz, smd, v2, ptr, col, si, &sbs));
    } else {
        CK(cusparseCreateCsrilu02Info(&nl)); CK(spblkCreateCsrilu02Info(&sl));
        CK(cusparseDcsrilu02_bufferSize(h, n, nnz, md, v1, ptr, col, nl, &bs));
        CK(spblkDcsrilu02_bufferSize(sh, n, nnz, smd, v2, ptr, col, sl, &sbs));
    }
    buf = dev(NULL, bs), sbuf = dev(NULL, sbs);
    for (r = 0; r < 5; r++) {
        double t0;
        CK(cudaDeviceSynchronize()); t0 = now();
        if (ic) { cusparseDestroyCsric02Info(ni); CK(cusparseCreateCsric02Info(&ni)); CK(cusparseDcsric02_analysis(h, n, nnz, md, v1, ptr, col, ni, P, buf)); }
        else { cusparseDestroyCsrilu02Info(nl); CK(cusparseCreateCsrilu02Info(&nl)); CK(cusparseDcsrilu02_analysis(h, n, nnz, md, v1, ptr, col, nl, P, buf)); }
        CK(cudaDeviceSynchronize()); ta[r] = (float)(now() - t0);
        t0 = now();
        if (ic) { spblkDestroyCsric02Info(si); CK(spblkCreateCsric02Info(&si)); CK(spblkDcsric02_analysis(sh, n, nnz, smd, v2, ptr, col, si, P, sbuf)); }
        else { spblkDestroyCsrilu02Info(sl); CK(spblkCreateCsrilu02Info(&sl)); CK(spblkDcsrilu02_analysis(sh, n, nnz, smd, v2, ptr, col, sl, P, sbuf)); }
        CK(cudaDeviceSynchronize()); tb[r] = (float)(now() - t0);
    }
    for (r = 0; r < 11; r++) {
        CK(cudaMemcpy(v1, orig, vb, cudaMemcpyDeviceToDevice));
        CK(cudaMemcpy(v2, orig, vb, cudaMemcpyDeviceToDevice));
        cudaEventRecord(e0, 0);
        if (ic) CK(cusparseDcsric02(h, n, nnz, md, v1, ptr, col, ni, P, buf));
        else CK(cusparseDcsrilu02(h, n, nnz, md, v1, ptr, col, nl, P, buf));
        cudaEventRecord(e1, 0); cudaEventSynchronize(e1);
        if (r >= 2) cudaEventElapsedTime(&fa[r - 2], e0, e1);
        cudaEventRecord(e0, 0);
        if (ic) CK(spblkDcsric02(sh, n, nnz, smd, v2, ptr, col, si, P, sbuf));
        else CK(spblkDcsrilu02(sh, n, nnz, smd, v2, ptr, col, sl, P, sbuf));
        cudaEventRecord(e1, 0); cudaEventSynchronize(e1);
        if (r >= 2) cudaEventElapsedTime(&fb[r - 2], e0, e1);
    }
    if (ic) { cusparseXcsric02_zeroPivot(h, ni, &zn); spblkXcsric02_zeroPivot(sh, si, &zs); }
    else { cusparseXcsrilu02_zeroPivot(h, nl, &zn); spblkXcsrilu02_zeroPivot(sh, sl, &zs); }
    CK(cudaMemcpy(r1, v1, vb, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(r2, v2, vb, cudaMemcpyDeviceToHost));
    for (i = 0; i < nnz; i++) {
        double p = r1[i], q = r2[i];
        if (fabs(p - q) > diff || isnan(p) != isnan(q)) diff = isnan(p) != isnan(q) ? INFINITY : fabs(p - q);
        if (fabs(p) > big) big = fabs(p);
    }
    {
        float an = med(ta, 5), as = med(tb, 5), fn = med(fa, 9), fs = med(fb, 9);
        printf("%-20s %s n=%d nnz=%d | buffer MB nv %.1f spblk %.1f | analysis ms nv %.3f spblk %.3f (x%.2f) | "
               "factor ms nv %.3f spblk %.3f (x%.2f) | zero pivot nv %d spblk %d | max diff/max %.1e\n",
               name, ic ? "IC0 " : "ILU0", n, nnz, bs / 1e6, sbs / 1e6, an, as, an / as, fn, fs, fn / fs, zn, zs, diff / big);
        fflush(stdout);
    }
    if (ic) { cusparseDestroyCsric02Info(ni); spblkDestroyCsric02Info(si); }
    else { cusparseDestroyCsrilu02Info(nl); spblkDestroyCsrilu02Info(sl); }
    cusparseDestroyMatDescr(md), spblkDestroyMatDescr(smd);
    cusparseDestroy(h), spblkDestroy(sh);
    cudaFree(ptr), cudaFree(col), cudaFree(orig), cudaFree(v1), cudaFree(v2), cudaFree(buf), cudaFree(sbuf);
    free(r1), free(r2);
}

/* (A + A^T) / 2 on the union of the two patterns (rows' columns ascending, as read_mtx gives them). */
static csr_t symmetrize(const csr_t *a) {
    int n = a->n, i;
    long k, o = 0;
    csr_t t, s;
    /* A^T by counting: rows of A visited in order, so A^T's rows come out ascending. */
    t.n = n, t.nnz = a->nnz;
    t.ptr = calloc((size_t)n + 1, sizeof(int)), t.col = malloc(sizeof(int) * (size_t)a->nnz + 1);
    t.val = malloc(sizeof(double) * (size_t)a->nnz + 1);
    s.n = n;
    s.ptr = malloc(sizeof(int) * ((size_t)n + 1)), s.col = malloc(sizeof(int) * (size_t)a->nnz * 2 + 1);
    s.val = malloc(sizeof(double) * (size_t)a->nnz * 2 + 1);
    if (!t.ptr || !t.col || !t.val || !s.ptr || !s.col || !s.val) { printf("symmetrize: out of memory\n"); exit(1); }
    for (k = 0; k < a->nnz; k++) t.ptr[a->col[k] + 1]++;
    for (i = 0; i < n; i++) t.ptr[i + 1] += t.ptr[i];
    {
        int *next = malloc(sizeof(int) * ((size_t)n + 1));
        if (!next) { printf("symmetrize: out of memory\n"); exit(1); }
        memcpy(next, t.ptr, sizeof(int) * ((size_t)n + 1));
        for (i = 0; i < n; i++)
            for (k = a->ptr[i]; k < a->ptr[i + 1]; k++) t.col[next[a->col[k]]] = i, t.val[next[a->col[k]]++] = a->val[k];
        free(next);
    }
    s.ptr[0] = 0;
    for (i = 0; i < n; i++) { /* merge row i of A and of A^T */
        long p = a->ptr[i], pe = a->ptr[i + 1], q = t.ptr[i], qe = t.ptr[i + 1];
        while (p < pe || q < qe) {
            int cp = p < pe ? a->col[p] : n, cq = q < qe ? t.col[q] : n;
            double v = 0.0;
            if (cp <= cq) v += a->val[p++];
            if (cq <= cp) v += t.val[q++];
            s.col[o] = cp < cq ? cp : cq, s.val[o++] = 0.5 * v;
        }
        s.ptr[i + 1] = (int)o;
    }
    s.nnz = o;
    free_csr(&t);
    return s;
}

static int same_csr(const csr_t *a, const csr_t *b) {
    return a->n == b->n && a->nnz == b->nnz && !memcmp(a->ptr, b->ptr, sizeof(int) * ((size_t)a->n + 1)) &&
           !memcmp(a->col, b->col, sizeof(int) * (size_t)a->nnz) && !memcmp(a->val, b->val, sizeof(double) * (size_t)a->nnz);
}

int main(int argc, char **argv) {
    int quick = 0, f;
    for (f = 1; f < argc; f++) /* the first argument that is not a .mtx file */
        if (!is_mtx_arg(argv[f])) { quick = !strcmp(argv[f], "quick"); break; }
    csr_t p3 = laplace(quick ? 64 : 128, quick ? 64 : 128, 0), p2 = laplace(quick ? 512 : 2048, 1, 0);
    csr_t pl = power_law_full(quick ? 200000 : 1000000, 8);
    run("poisson3d", &p3, 1);
    run("poisson3d", &p3, 0);
    run("poisson2d", &p2, 1);
    run("poisson2d", &p2, 0);
    run("power-law", &pl, 0);
    run("power-law", &pl, 1);
    /* Extra cases: the arguments that end in .mtx, in order. */
    for (f = 1; f < argc; f++) {
        char base[200], name[256];
        csr_t a, sym;
        if (!is_mtx_arg(argv[f])) continue;
        mtx_case_name(argv[f], base, sizeof base);
        if (read_mtx(argv[f], &a)) {
            printf("%-20s skipped: not read (see stderr)\n", base);
            fflush(stdout);
            continue;
        }
        make_dominant(&a);
        sym = symmetrize(&a);
        make_dominant(&sym);
        if (same_csr(&sym, &a)) snprintf(name, sizeof name, "%s", base);
        else snprintf(name, sizeof name, "%s (A+A^T)/2", base);
        run(name, &sym, 1);
        free_csr(&sym);
        run(base, &a, 0);
        free_csr(&a);
    }
    return 0;
}
