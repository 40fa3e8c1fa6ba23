/* Helpers shared by the solver benchmarks of bench/solvers (time_spsv.c, time_spsm.c,
 * time_factor.c, pcg_cusparse.c): the error check, the random generator, timing, device
 * copies, the test matrices (Laplacians, power-law rows) and a Matrix Market reader.
 *
 * Every function is `static inline` so that a program that uses only some of them compiles
 * without unused-function warnings; the bodies are those the programs had, unchanged (the same
 * generator, seed and call order, so that results stay comparable with earlier runs).
 * Include it after defining _POSIX_C_SOURCE (clock_gettime). It needs the CUDA runtime only
 * (no cuSPARSE, no spblk). */
#ifndef SPBLK_BENCH_SOLVERS_COMMON_H
#define SPBLK_BENCH_SOLVERS_COMMON_H

#include <ctype.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { int e_ = (int)(x); if (e_) { printf("%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, e_); exit(1); } } while (0)

/* xorshift64, uniform in [0, 1) with 53 bits. */
static unsigned long long rng_state = 88172645463325252ull;
static inline double u(void) { rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17; return (double)(rng_state >> 11) / 9007199254740992.0; }
static inline int cmpf(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }
/* The median (upper one for even n); sorts t. */
static inline float med(float *t, int n) { qsort(t, n, sizeof(float), cmpf); return t[n / 2]; }
/* Wall clock, ms. */
static inline double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec * 1e-6; }
/* A device copy of h (bytes; h NULL: uninitialized); never a zero-byte allocation. */
static inline void *dev(const void *h, size_t bytes) { void *d; CK(cudaMalloc(&d, bytes ? bytes : 1)); if (h && bytes) CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)); return d; }

/* A square CSR matrix, 0-based, rows' columns ascending (all constructors below). */
typedef struct { int n; long nnz; int *ptr, *col; double *val; } csr_t;

static inline void free_csr(csr_t *a) {
    free(a->ptr), free(a->col), free(a->val);
    a->ptr = a->col = NULL, a->val = NULL, a->n = 0, a->nnz = 0;
}

/* The 7-point 3-D (or 5-point 2-D, g3 = 1) Laplacian; lower: only its lower triangle. */
static inline csr_t laplace(int g, int g3, int lower) {
    csr_t a;
    int n = g * g * g3, i, k;
    a.n = n;
    a.ptr = malloc(sizeof(int) * (n + 1));
    a.col = malloc(sizeof(int) * (size_t)n * 7);
    a.val = malloc(sizeof(double) * (size_t)n * 7);
    a.nnz = 0;
    a.ptr[0] = 0;
    for (i = 0; i < n; i++) {
        int x = i % g, y = (i / g) % g, z = i / (g * g);
        int nb[7] = {i - g * g, i - g, i - 1, i, i + 1, i + g, i + g * g};
        int okk[7] = {z > 0, y > 0, x > 0, 1, x < g - 1, y < g - 1, z < g3 - 1};
        for (k = 0; k < 7; k++) {
            if (!okk[k] || (lower && nb[k] > i)) continue;
            a.col[a.nnz] = nb[k];
            a.val[a.nnz] = nb[k] == i ? (g3 > 1 ? 6.0 : 4.0) : -1.0;
            a.nnz++;
        }
        a.ptr[i + 1] = (int)a.nnz;
    }
    return a;
}

/* An empty n-row CSR matrix with room for cap entries. */
static inline csr_t csr_alloc(int n, long cap) {
    csr_t a;
    a.n = n;
    a.ptr = malloc(sizeof(int) * (n + 1));
    a.col = malloc(sizeof(int) * cap);
    a.val = malloc(sizeof(double) * cap);
    a.nnz = 0;
    a.ptr[0] = 0;
    return a;
}

/* A lower-triangular matrix with power-law row lengths (about avg per row, some rows of
 * thousands), columns uniform below the diagonal, a dominant diagonal last in each row.
 * (Columns within a row are neither sorted nor unique.) */
static inline csr_t power_law(int n, int avg) {
    long cap = (long)n * avg * 3 + n, k;
    csr_t a = csr_alloc(n, cap);
    int i;
    for (i = 0; i < n; i++) {
        double r = u();
        long len = (long)(avg * 0.5 / pow(1.0 - r * 0.999999, 0.6));
        if (len > i) len = i;
        if (a.nnz + len + 1 > cap) len = cap - a.nnz - 1;
        for (k = 0; k < len; k++) {
            a.col[a.nnz] = (int)(u() * i);
            a.val[a.nnz] = u() - 0.5;
            a.nnz++;
        }
        a.col[a.nnz] = i;
        a.val[a.nnz] = 1.0 + 0.5 * (double)len;
        a.nnz++;
        a.ptr[i + 1] = (int)a.nnz;
    }
    return a;
}

/* A non-symmetric matrix: about avg entries per row at power-law lengths, columns uniform,
 * sorted, a dominant diagonal. */
static inline int cmpi(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
static inline csr_t power_law_full(int n, int avg) {
    long cap = (long)n * avg * 3 + n, k;
    csr_t a = csr_alloc(n, cap);
    int i;
    for (i = 0; i < n; i++) {
        double r = u();
        long len = (long)(avg * 0.5 / pow(1.0 - r * 0.999999, 0.6)), s = a.nnz, w = 0;
        if (len > n - 1) len = n - 1;
        if (a.nnz + len + 1 > cap) len = cap - a.nnz - 1;
        a.col[a.nnz++] = i;
        for (k = 0; k < len; k++) a.col[a.nnz++] = (int)(u() * n);
        qsort(a.col + s, a.nnz - s, sizeof(int), cmpi);
        for (k = s; k < a.nnz; k++) { /* drop repeats */
            if (w > 0 && a.col[s + w - 1] == a.col[k]) continue;
            a.col[s + w++] = a.col[k];
        }
        a.nnz = s + w;
        for (k = s; k < a.nnz; k++) a.val[k] = a.col[k] == i ? 1.0 + 0.5 * (double)w : u() - 0.5;
        a.ptr[i + 1] = (int)a.nnz;
    }
    return a;
}

/* ---- Matrix Market files ---- */

typedef struct { int r, c; double v; } mtx_entry_t;
static inline int mtx_entry_cmp(const void *a, const void *b) {
    const mtx_entry_t *x = a, *y = b;
    if (x->r != y->r) return (x->r > y->r) - (x->r < y->r);
    return (x->c > y->c) - (x->c < y->c);
}
/* One line into buf (NUL-terminated, newline kept if it fitted); the rest of a longer line is
 * skipped. 0 at end of file. */
static inline int mtx_line(FILE *f, char *buf, int cap) {
    size_t len;
    int ch;
    if (!fgets(buf, cap, f)) return 0;
    len = strlen(buf);
    if (len > 0 && buf[len - 1] != '\n')
        while ((ch = getc(f)) != EOF && ch != '\n') {}
    return 1;
}
static inline void mtx_lower(char *w) { for (; *w; w++) *w = (char)tolower((unsigned char)*w); }

/* Reads a Matrix Market file: `coordinate` `real|integer|pattern` `general|symmetric`, square.
 * Symmetric files are expanded to both triangles, pattern entries are 1; each row's columns come
 * out ascending with repeated entries summed; 0-based indices. Returns 0, or nonzero with a
 * message on stderr (unreadable or malformed file, another kind of matrix, not square). */
static inline int read_mtx(const char *path, csr_t *a) {
    FILE *f = fopen(path, "r");
    char line[1024], obj[64], fmt[64], field[64], sym[64];
    long m = 0, n = 0, nz = 0, k, cnt = 0, o;
    int pattern, symmetric, i;
    mtx_entry_t *e;
    memset(a, 0, sizeof *a);
    if (!f) { fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno)); return 1; }
    if (!mtx_line(f, line, sizeof line) || sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym) != 4) {
        fprintf(stderr, "%s: no %%%%MatrixMarket banner\n", path);
        fclose(f);
        return 1;
    }
    mtx_lower(obj), mtx_lower(fmt), mtx_lower(field), mtx_lower(sym);
    pattern = !strcmp(field, "pattern");
    symmetric = !strcmp(sym, "symmetric");
    if (strcmp(obj, "matrix") || strcmp(fmt, "coordinate") ||
        (!pattern && strcmp(field, "real") && strcmp(field, "integer")) || (!symmetric && strcmp(sym, "general"))) {
        fprintf(stderr, "%s: '%s %s %s %s' is not read (coordinate real|integer|pattern general|symmetric only)\n", path,
                obj, fmt, field, sym);
        fclose(f);
        return 1;
    }
    for (;;) { /* comments and blank lines, then the size line */
        char *p = line;
        if (!mtx_line(f, line, sizeof line)) { fprintf(stderr, "%s: no size line\n", path); fclose(f); return 1; }
        while (isspace((unsigned char)*p)) p++;
        if (*p == '%' || *p == '\0') continue;
        if (sscanf(p, "%ld %ld %ld", &m, &n, &nz) != 3 || m < 0 || n < 0 || nz < 0) {
            fprintf(stderr, "%s: bad size line '%s'\n", path, p);
            fclose(f);
            return 1;
        }
        break;
    }
    if (m != n) { fprintf(stderr, "%s: not square (%ld x %ld)\n", path, m, n); fclose(f); return 1; }
    if (n >= INT_MAX || nz > (symmetric ? INT_MAX / 2 : INT_MAX)) {
        fprintf(stderr, "%s: too large for 32-bit indices (n %ld, %ld entries)\n", path, n, nz);
        fclose(f);
        return 1;
    }
    e = malloc(sizeof(mtx_entry_t) * (size_t)(symmetric ? 2 * nz : nz) + 1);
    if (!e) { fprintf(stderr, "%s: out of memory\n", path); fclose(f); return 1; }
    for (k = 0; k < nz; k++) {
        long r, c;
        double v = 1.0;
        if (fscanf(f, "%ld %ld", &r, &c) != 2 || (!pattern && fscanf(f, "%lf", &v) != 1)) {
            fprintf(stderr, "%s: entry %ld of %ld missing or malformed\n", path, k + 1, nz);
            free(e), fclose(f);
            return 1;
        }
        if (r < 1 || r > n || c < 1 || c > n) {
            fprintf(stderr, "%s: entry %ld (%ld, %ld) outside %ld x %ld\n", path, k + 1, r, c, n, n);
            free(e), fclose(f);
            return 1;
        }
        e[cnt].r = (int)(r - 1), e[cnt].c = (int)(c - 1), e[cnt].v = v, cnt++;
        if (symmetric && r != c) e[cnt].r = (int)(c - 1), e[cnt].c = (int)(r - 1), e[cnt].v = v, cnt++;
    }
    fclose(f);
    qsort(e, (size_t)cnt, sizeof(mtx_entry_t), mtx_entry_cmp);
    for (k = 0, o = 0; k < cnt; k++) { /* sum repeats in place */
        if (o > 0 && e[o - 1].r == e[k].r && e[o - 1].c == e[k].c) e[o - 1].v += e[k].v;
        else e[o++] = e[k];
    }
    a->n = (int)n;
    a->nnz = o;
    a->ptr = malloc(sizeof(int) * ((size_t)n + 1));
    a->col = malloc(sizeof(int) * (size_t)o + 1);
    a->val = malloc(sizeof(double) * (size_t)o + 1);
    if (!a->ptr || !a->col || !a->val) { fprintf(stderr, "%s: out of memory\n", path); free(e), free_csr(a); return 1; }
    for (i = 0; i <= (int)n; i++) a->ptr[i] = 0;
    for (k = 0; k < o; k++) a->ptr[e[k].r + 1]++, a->col[k] = e[k].c, a->val[k] = e[k].v;
    for (i = 0; i < (int)n; i++) a->ptr[i + 1] += a->ptr[i];
    free(e);
    return 0;
}

/* Makes a (rows' columns ascending, as read_mtx and the generators give them) strictly
 * diagonally dominant: every row gets its diagonal (inserted in order where missing; repeats
 * merged), set to 1 + the sum of |off-diagonal| of the row. IC0/ILU0 and triangular solves are
 * then well defined (no zero pivot, no growth). */
static inline void make_dominant(csr_t *a) {
    int n = a->n, i;
    long k, o = 0;
    int *ptr = malloc(sizeof(int) * ((size_t)n + 1)), *col = malloc(sizeof(int) * ((size_t)a->nnz + n) + 1);
    double *val = malloc(sizeof(double) * ((size_t)a->nnz + n) + 1);
    if (!ptr || !col || !val) { printf("make_dominant: out of memory\n"); exit(1); }
    ptr[0] = 0;
    for (i = 0; i < n; i++) {
        double sum = 0.0;
        long d = -1;
        for (k = a->ptr[i]; k < a->ptr[i + 1]; k++) {
            int c = a->col[k];
            if (c >= i && d < 0) { d = o; col[o] = i; val[o++] = 0.0; }
            if (c == i) continue;
            sum += fabs(a->val[k]);
            col[o] = c, val[o++] = a->val[k];
        }
        if (d < 0) { d = o; col[o] = i; val[o++] = 0.0; }
        val[d] = 1.0 + sum;
        ptr[i + 1] = (int)o;
    }
    free(a->ptr), free(a->col), free(a->val);
    a->ptr = ptr, a->col = col, a->val = val, a->nnz = o;
}

/* The lower triangle of a, diagonal included (what laplace(..., lower = 1) is to the full one). */
static inline csr_t lower_of(const csr_t *a) {
    csr_t l;
    int i;
    long k, o = 0;
    l.n = a->n;
    l.ptr = malloc(sizeof(int) * ((size_t)a->n + 1));
    l.col = malloc(sizeof(int) * (size_t)a->nnz + 1);
    l.val = malloc(sizeof(double) * (size_t)a->nnz + 1);
    if (!l.ptr || !l.col || !l.val) { printf("lower_of: out of memory\n"); exit(1); }
    l.ptr[0] = 0;
    for (i = 0; i < a->n; i++) {
        for (k = a->ptr[i]; k < a->ptr[i + 1]; k++)
            if (a->col[k] <= i) l.col[o] = a->col[k], l.val[o++] = a->val[k];
        l.ptr[i + 1] = (int)o;
    }
    l.nnz = o;
    return l;
}

/* Command-line helpers: whether an argument names a Matrix Market file (ends in .mtx), and a
 * case name from its path (the base name without .mtx). */
static inline int is_mtx_arg(const char *s) {
    size_t len = strlen(s);
    return len > 4 && !strcmp(s + len - 4, ".mtx");
}
static inline void mtx_case_name(const char *path, char *out, size_t cap) {
    const char *b = strrchr(path, '/');
    size_t len;
    b = b ? b + 1 : path;
    len = strlen(b);
    if (len > 4 && !strcmp(b + len - 4, ".mtx")) len -= 4;
    if (len >= cap) len = cap - 1;
    memcpy(out, b, len);
    out[len] = '\0';
}

#endif
