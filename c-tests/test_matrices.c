/* Every Matrix Market file of the corpus (SPBLK_MATRIX_DIR; skipped when absent): SpMV (N and
 * T, f64 and f32, CSR/COO/CSC), SpMM (also with 1-SA analysis and SPBLK_SPMM_ALG_VBR), SDDMM
 * on the matrix's pattern, csr2csc, and SpGEMM A*A
 * (A*A^T for rectangular A) when it needs at most MAX_PRODUCTS products. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"

#define MAX_PRODUCTS 6000000

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The .mtx files of `dir`, sorted; NULL when the directory cannot be read. */
static char **list_matrices(const char *dir, int *count) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    int n = 0;
    if (d == NULL) return NULL;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".mtx") == 0) {
            names = realloc(names, (size_t)(n + 1) * sizeof *names);
            names[n] = malloc(len + 1);
            memcpy(names[n++], e->d_name, len + 1);
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    *count = n;
    return names;
}

static call_t call(spblkFormat_t format, spblkIndexType_t index, spblkIndexBase_t base, spblkDataType_t type) {
    call_t c;
    memset(&c, 0, sizeof c);
    c.layout.format = format;
    c.layout.index = index;
    c.layout.base = base;
    c.layout.values = c.prec.out = c.prec.compute = type;
    c.alpha = 1.0;
    c.spmm_alg = SPBLK_SPMM_ALG_DEFAULT;
    c.order_a = c.order_b = c.order_c = SPBLK_ORDER_COL;
    return c;
}

static void check_matrix(spblkHandle_t h, const char *name, const csr_t *a) {
    rng_t r = rng_seed(6000);
    call_t c;
    int64_t products;
    const spblkIndexType_t I32 = SPBLK_INDEX_32I, I64 = SPBLK_INDEX_64I;
    const spblkIndexBase_t ZERO = SPBLK_INDEX_BASE_ZERO, ONE = SPBLK_INDEX_BASE_ONE;

    test_case("%s: SpMV f64 CSR i32 one-based", name);
    c = call(SPBLK_FORMAT_CSR, I32, ONE, SPBLK_R_64F);
    check_spmv(h, &r, a, &c);
    test_case("%s: SpMV^T f64 COO i64, beta 0.5", name);
    c = call(SPBLK_FORMAT_COO, I64, ZERO, SPBLK_R_64F);
    c.op_a = SPBLK_OPERATION_TRANSPOSE;
    c.beta = 0.5;
    check_spmv(h, &r, a, &c);
    test_case("%s: SpMV f32 CSC i32, preprocessed", name);
    c = call(SPBLK_FORMAT_CSC, I32, ZERO, SPBLK_R_32F);
    c.preprocess = 1;
    {
        csr_t a32 = *a; /* values rounded to f32 first, as the reference must see them */
        int64_t p;
        a32.val = malloc((size_t)(a->nnz ? a->nnz : 1) * sizeof *a32.val);
        for (p = 0; p < a->nnz; p++) a32.val[p] = round_to(SPBLK_R_32F, a->val[p]);
        check_spmv(h, &r, &a32, &c);
        free(a32.val);
    }
    test_case("%s: SpMM f64 CSR i64 one-based, 4 row-major columns, beta -1", name);
    c = call(SPBLK_FORMAT_CSR, I64, ONE, SPBLK_R_64F);
    c.order_b = c.order_c = SPBLK_ORDER_ROW;
    c.beta = -1.0;
    check_spmm(h, &r, a, 4, &c);
    test_case("%s: SpMM f64 CSR with SPBLK_SPMM_ALG_VBR after spblkAnalyze (1-SA), 8 columns", name);
    c = call(SPBLK_FORMAT_CSR, I32, ZERO, SPBLK_R_64F);
    c.spmm_alg = SPBLK_SPMM_ALG_VBR;
    c.analysis = 1;
    c.order_b = SPBLK_ORDER_ROW;
    check_spmm(h, &r, a, 8, &c);
    test_case("%s: SDDMM f64 on its pattern, inner 4", name);
    c = call(SPBLK_FORMAT_CSR, I32, ZERO, SPBLK_R_64F);
    c.order_a = SPBLK_ORDER_ROW;
    c.beta = 0.25;
    check_sddmm(h, &r, a, 4, &c);
    test_case("%s: csr2csc f64 one-based", name);
    check_csr2csc(h, a, SPBLK_R_64F, ONE, SPBLK_ACTION_NUMERIC);

    if (a->rows == a->cols) {
        products = spgemm_products(a, a);
        test_case("%s: SpGEMM A*A f64 i32 (%lld products)", name, (long long)products);
        c = call(SPBLK_FORMAT_CSR, I32, ZERO, SPBLK_R_64F);
        if (products <= MAX_PRODUCTS) check_spgemm(h, a, a, &c, 1);
    } else {
        csr_t at = csr_transpose(a);
        products = spgemm_products(a, &at);
        test_case("%s: SpGEMM A*A^T f64 i64 one-based (%lld products)", name, (long long)products);
        c = call(SPBLK_FORMAT_CSR, I64, ONE, SPBLK_R_64F);
        if (products <= MAX_PRODUCTS) check_spgemm(h, a, &at, &c, 0);
        csr_free(&at);
    }
    if (products > MAX_PRODUCTS)
        printf("  %s: SpGEMM left out: %lld products > %d\n", name, (long long)products, MAX_PRODUCTS);
}

int main(void) {
    spblkHandle_t h = test_init("test_matrices");
    const char *dir = matrix_dir();
    char **names, path[4096], why[4400];
    int count = 0, i;

    names = list_matrices(dir, &count);
    if (names == NULL || count == 0) {
        snprintf(why, sizeof why, "no Matrix Market files in '%s' (set SPBLK_MATRIX_DIR)", dir);
        spblkDestroy(h);
        test_skip(why);
    }
    printf("test_matrices: %d files in %s\n", count, dir);
    for (i = 0; i < count; i++) {
        csr_t a;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        test_case("reading %s", names[i]);
        if (EXPECT(mm_read(path, &a, why, sizeof why) == 0, "%s", why)) {
            printf("  %-32s %7lld x %-7lld nnz %8lld, longest row %lld\n", names[i], (long long)a.rows,
                   (long long)a.cols, (long long)a.nnz, (long long)csr_max_row(&a));
            check_matrix(h, names[i], &a);
            csr_free(&a);
        }
        free(names[i]);
    }
    free(names);
    return test_finish(h);
}
