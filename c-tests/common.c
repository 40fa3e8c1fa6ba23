/* Shared helpers of spblk's C tests; see common.h. */
#include "common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_memory.h"

#ifndef SPBLK_MATRIX_DIR
#define SPBLK_MATRIX_DIR ""
#endif

/* ---- checks ------------------------------------------------------------------------------ */

static const char *test_name = "test";
static long long failures, cases;
static char current_case[512];
static int case_reported;

void test_case(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(current_case, sizeof current_case, fmt, ap);
    va_end(ap);
    case_reported = 0;
    cases++;
}

void test_fail(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    if (++failures > 60) return; /* counted, no longer printed */
    if (current_case[0] && !case_reported) {
        fprintf(stderr, "in case: %s\n", current_case);
        case_reported = 1;
    }
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

const char *last_error(void) {
    static char buf[1024];
    size_t written = 0;
    if (spblkGetLastErrorMessage(buf, sizeof buf, &written) != SPBLK_STATUS_SUCCESS) return "(no message)";
    return buf;
}

int expect_status(spblkStatus_t got, spblkStatus_t want, const char *expr, const char *file, int line) {
    if (got == want) return 1;
    test_fail(file, line, "%s returned %s, want %s%s%s", expr, spblkGetErrorName(got), spblkGetErrorName(want),
              got == SPBLK_STATUS_SUCCESS ? "" : ": ", got == SPBLK_STATUS_SUCCESS ? "" : last_error());
    return 0;
}

int pick(int *code, int n) {
    int digit = *code % n;
    *code /= n;
    return digit;
}

void test_skip(const char *why) {
    printf("%s: SKIPPED: %s\n", test_name, why);
    exit(77);
}

/* ---- memory of the backend under test -------------------------------------------------------- */

static int use_gpu;

int on_gpu(void) { return use_gpu; }

spblkHandle_t test_init(const char *name) {
    spblkHandle_t h = NULL;
    spblkBackend_t backend = 0;
    const char *device = getenv("SPBLK_TEST_DEVICE");
    char why[1200];
    test_name = name;
    use_gpu = device != NULL && strcmp(device, "gpu") == 0;
    if (use_gpu) {
        if (cuda_memory_init(why, sizeof why) != 0) test_skip(why);
        if (spblkCreateWithBackend(&h, SPBLK_BACKEND_CUDA) != SPBLK_STATUS_SUCCESS) {
            snprintf(why, sizeof why, "a GPU is present but the CUDA backend is not usable: %s", last_error());
            if (getenv("SPBLK_TEST_REQUIRE_GPU") == NULL) test_skip(why);
            fprintf(stderr, "%s: FAIL: %s (SPBLK_TEST_REQUIRE_GPU is set)\n", name, why);
            exit(1);
        }
    } else if (getenv("SPBLK_BACKEND") != NULL) {
        if (!CHECK(spblkCreate(&h))) exit(1); /* honours SPBLK_BACKEND=host */
    } else if (!CHECK(spblkCreateWithBackend(&h, SPBLK_BACKEND_HOST))) {
        exit(1);
    }
    CHECK(spblkGetBackend(h, &backend));
    EXPECT(backend == (use_gpu ? SPBLK_BACKEND_CUDA : SPBLK_BACKEND_HOST), "handle is on backend %u", backend);
    printf("%s: %s backend, %s memory\n", name, use_gpu ? "CUDA" : "host", use_gpu ? "GPU" : "host");
    return h;
}

int test_finish(spblkHandle_t handle) {
    current_case[0] = '\0';
    CHECK(spblkDestroy(handle));
    printf("%s: %lld cases, %lld failures%s\n", test_name, cases, failures, failures > 60 ? " (first 60 shown)" : "");
    return failures ? 1 : 0;
}

void *dev_alloc(size_t bytes) {
    void *p = use_gpu ? cuda_malloc(bytes) : malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "%s: out of %s memory (%zu bytes)\n", test_name, use_gpu ? "GPU" : "host", bytes);
        exit(1);
    }
    return p;
}

void dev_free(void *p) {
    if (use_gpu)
        cuda_free(p);
    else
        free(p);
}

void to_dev(void *dst, const void *src, size_t bytes) {
    if (!use_gpu) {
        if (bytes) memcpy(dst, src, bytes);
    } else if (cuda_upload(dst, src, bytes) != 0) {
        fprintf(stderr, "%s: cuMemcpyHtoD failed\n", test_name);
        exit(1);
    }
}

void from_dev(void *dst, const void *src, size_t bytes) {
    if (!use_gpu) {
        if (bytes) memcpy(dst, src, bytes);
    } else if (cuda_download(dst, src, bytes) != 0) {
        fprintf(stderr, "%s: cuMemcpyDtoH failed (a kernel may have faulted)\n", test_name);
        exit(1);
    }
}

void *dev_copy(const void *src, size_t bytes) {
    void *p = dev_alloc(bytes);
    to_dev(p, src, bytes);
    return p;
}

scalar_t scalar_make(double value, spblkDataType_t type, spblkPointerMode_t mode) {
    unsigned char bytes[16];
    scalar_t s;
    pack_values(bytes, &value, 1, type);
    s.on_device = mode == SPBLK_POINTER_MODE_DEVICE;
    if (s.on_device) {
        s.ptr = dev_copy(bytes, type_size(type));
    } else {
        s.ptr = malloc(type_size(type));
        memcpy(s.ptr, bytes, type_size(type));
    }
    return s;
}

void scalar_free(scalar_t *s) {
    if (s->on_device)
        dev_free(s->ptr);
    else
        free(s->ptr);
    s->ptr = NULL;
}

/* ---- values and indices -------------------------------------------------------------------- */

size_t type_size(spblkDataType_t t) {
    switch (t) {
    case SPBLK_R_16F: return 2;
    case SPBLK_R_32F: return 4;
    case SPBLK_R_64F: return 8;
    case SPBLK_C_64F: return 16;
    default: fprintf(stderr, "type_size: type %u not used by the tests\n", t); exit(1);
    }
}

size_t index_size(spblkIndexType_t t) { return t == SPBLK_INDEX_64I ? 8 : 4; }

const char *type_name(spblkDataType_t t) {
    switch (t) {
    case SPBLK_R_16F: return "f16";
    case SPBLK_R_32F: return "f32";
    case SPBLK_R_64F: return "f64";
    case SPBLK_C_64F: return "c64";
    default: return "?";
    }
}

uint16_t half_from_double(double x) {
    float f = (float)x;
    uint32_t u, sign, man, half, rem, mid;
    int e, shift;
    memcpy(&u, &f, sizeof u);
    sign = (u >> 16) & 0x8000u;
    man = u & 0x7fffffu;
    if (((u >> 23) & 0xffu) == 0xffu) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0u)); /* inf, NaN */
    e = (int)((u >> 23) & 0xffu) - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) { /* subnormal half: man * 2^-24 */
        if (e < -10) return (uint16_t)sign;
        man |= 0x800000u;
        shift = 14 - e;
    } else {
        shift = 13;
    }
    half = man >> shift;
    rem = man & ((1u << shift) - 1u);
    mid = 1u << (shift - 1);
    if (e > 0) half = ((uint32_t)e << 10) | (half & 0x3ffu);
    if (rem > mid || (rem == mid && (half & 1u))) half++; /* a carry rounds up into the exponent */
    return (uint16_t)(sign | half);
}

double half_to_double(uint16_t h) {
    int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    double v = exp == 0 ? ldexp(man, -24) : exp == 31 ? (man ? NAN : INFINITY) : ldexp(man + 1024, exp - 25);
    return (h & 0x8000) ? -v : v;
}

double round_to(spblkDataType_t t, double x) {
    switch (t) {
    case SPBLK_R_16F: return half_to_double(half_from_double(x));
    case SPBLK_R_32F: return (double)(float)x;
    default: return x;
    }
}

void pack_values(void *dst, const double *src, size_t n, spblkDataType_t t) {
    size_t i;
    unsigned char *out = dst;
    for (i = 0; i < n; i++) {
        if (t == SPBLK_R_16F) {
            uint16_t h = half_from_double(src[i]);
            memcpy(out + 2 * i, &h, 2);
        } else if (t == SPBLK_R_32F) {
            float f = (float)src[i];
            memcpy(out + 4 * i, &f, 4);
        } else if (t == SPBLK_R_64F) {
            memcpy(out + 8 * i, &src[i], 8);
        } else { /* C_64F: the value as the real part, the negated value as the imaginary part */
            double c[2];
            c[0] = src[i];
            c[1] = -src[i];
            memcpy(out + 16 * i, c, 16);
        }
    }
}

void unpack_values(double *dst, const void *src, size_t n, spblkDataType_t t) {
    size_t i;
    const unsigned char *in = src;
    for (i = 0; i < n; i++) {
        if (t == SPBLK_R_16F) {
            uint16_t h;
            memcpy(&h, in + 2 * i, 2);
            dst[i] = half_to_double(h);
        } else if (t == SPBLK_R_32F) {
            float f;
            memcpy(&f, in + 4 * i, 4);
            dst[i] = f;
        } else if (t == SPBLK_R_64F) {
            memcpy(&dst[i], in + 8 * i, 8);
        } else {
            double c[2];
            memcpy(c, in + 16 * i, 16);
            dst[i] = c[1] == -c[0] ? c[0] : NAN;
        }
    }
}

void pack_indices(void *dst, const int64_t *src, size_t n, spblkIndexType_t t, int64_t add) {
    size_t i;
    for (i = 0; i < n; i++) {
        if (t == SPBLK_INDEX_64I)
            ((int64_t *)dst)[i] = src[i] + add;
        else
            ((int32_t *)dst)[i] = (int32_t)(src[i] + add);
    }
}

void unpack_indices(int64_t *dst, const void *src, size_t n, spblkIndexType_t t, int64_t add) {
    size_t i;
    for (i = 0; i < n; i++)
        dst[i] = (t == SPBLK_INDEX_64I ? ((const int64_t *)src)[i] : ((const int32_t *)src)[i]) + add;
}

/* ---- random numbers (splitmix64) ----------------------------------------------------------- */

rng_t rng_seed(uint64_t seed) {
    rng_t r;
    r.state = seed;
    return r;
}

uint64_t rng_next(rng_t *r) {
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int64_t rng_int(rng_t *r, int64_t n) { return n > 0 ? (int64_t)(rng_next(r) % (uint64_t)n) : 0; }

double rng_value(rng_t *r, spblkDataType_t t) {
    return round_to(t, ldexp((double)(rng_next(r) >> 11), -52) - 1.0);
}

int64_t test_dim(rng_t *r) {
    int64_t kind = rng_int(r, 16);
    return kind == 0 ? 0 : kind <= 2 ? 100 + rng_int(r, 300) : 1 + rng_int(r, 44);
}

/* ---- host matrices ------------------------------------------------------------------------- */

static void *xmalloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static csr_t csr_alloc(int64_t rows, int64_t cols, int64_t nnz) {
    csr_t a;
    a.rows = rows;
    a.cols = cols;
    a.nnz = nnz;
    a.ptr = xmalloc((size_t)(rows + 1) * sizeof *a.ptr);
    a.col = xmalloc((size_t)nnz * sizeof *a.col);
    a.val = xmalloc((size_t)nnz * sizeof *a.val);
    return a;
}

void csr_free(csr_t *a) {
    free(a->ptr);
    free(a->col);
    free(a->val);
    a->ptr = a->col = NULL;
    a->val = NULL;
}

const char *shape_name(shape_t s) {
    static const char *names[] = {"random", "empty-rows", "dense-row", "power-law", "no-entries"};
    return names[s];
}

/* How many of a row's `cols` columns a shape fills. */
static int64_t row_length(rng_t *r, shape_t shape, int64_t i, int64_t rows, int64_t cols) {
    int64_t n = 0, j;
    int percent = 0;
    switch (shape) {
    case SHAPE_RANDOM: percent = 20; break;
    case SHAPE_EMPTY_ROWS: percent = (i % 2 == 0 || i == rows - 1) ? 0 : 30; break;
    case SHAPE_DENSE_ROW: percent = i == rows / 2 ? 100 : 5; break;
    case SHAPE_POWER_LAW: return cols / (i + 1);
    default: return 0;
    }
    for (j = 0; j < cols; j++) n += rng_int(r, 100) < percent;
    return n;
}

csr_t csr_generate(rng_t *r, shape_t shape, int64_t rows, int64_t cols, spblkDataType_t t) {
    int64_t *lengths = xmalloc((size_t)rows * sizeof *lengths), *perm = xmalloc((size_t)cols * sizeof *perm);
    int64_t i, j, nnz = 0;
    csr_t a;
    for (i = 0; i < rows; i++) nnz += lengths[i] = row_length(r, shape, i, rows, cols);
    a = csr_alloc(rows, cols, nnz);
    a.ptr[0] = 0;
    for (i = 0; i < rows; i++) {
        /* The first lengths[i] columns of a random permutation: distinct, unsorted. */
        for (j = 0; j < cols; j++) perm[j] = j;
        for (j = 0; j < lengths[i]; j++) {
            int64_t k = j + rng_int(r, cols - j), tmp = perm[j];
            perm[j] = perm[k];
            perm[k] = tmp;
            a.col[a.ptr[i] + j] = perm[j];
            a.val[a.ptr[i] + j] = rng_value(r, t);
        }
        a.ptr[i + 1] = a.ptr[i] + lengths[i];
    }
    free(lengths);
    free(perm);
    return a;
}

csr_t csr_transpose(const csr_t *a) {
    csr_t t = csr_alloc(a->cols, a->rows, a->nnz);
    int64_t i, p, *next = xmalloc((size_t)(a->cols + 1) * sizeof *next);
    memset(t.ptr, 0, (size_t)(a->cols + 1) * sizeof *t.ptr);
    for (p = 0; p < a->nnz; p++) t.ptr[a->col[p] + 1]++;
    for (i = 0; i < a->cols; i++) t.ptr[i + 1] += t.ptr[i];
    memcpy(next, t.ptr, (size_t)(a->cols + 1) * sizeof *next);
    for (i = 0; i < a->rows; i++) {
        for (p = a->ptr[i]; p < a->ptr[i + 1]; p++) {
            int64_t q = next[a->col[p]]++;
            t.col[q] = i;
            t.val[q] = a->val[p];
        }
    }
    free(next);
    return t;
}

int64_t csr_max_row(const csr_t *a) {
    int64_t i, m = 0;
    for (i = 0; i < a->rows; i++)
        if (a->ptr[i + 1] - a->ptr[i] > m) m = a->ptr[i + 1] - a->ptr[i];
    return m;
}

typedef struct {
    int64_t row, col;
    double val;
} entry_t;

static int entry_order(const void *x, const void *y) {
    const entry_t *a = x, *b = y;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    return a->col < b->col ? -1 : a->col > b->col;
}

int mm_read(const char *path, csr_t *out, char *why, size_t why_len) {
    char line[1024], field[32] = "", symmetry[32] = "";
    long long rows, cols, stored, k, i, j;
    entry_t *e;
    int64_t n = 0, p;
    int pattern, mirror;
    double sign;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(why, why_len, "cannot open %s", path);
        return -1;
    }
    if (!fgets(line, sizeof line, f) || sscanf(line, "%%%%MatrixMarket matrix coordinate %31s %31s", field, symmetry) != 2 ||
        (strcmp(field, "real") && strcmp(field, "integer") && strcmp(field, "pattern")) ||
        (strcmp(symmetry, "general") && strcmp(symmetry, "symmetric") && strcmp(symmetry, "skew-symmetric"))) {
        snprintf(why, why_len, "%s: unsupported header (need coordinate real|integer|pattern, "
                 "general|symmetric|skew-symmetric)", path);
        fclose(f);
        return -1;
    }
    do {
        if (!fgets(line, sizeof line, f)) line[0] = '\0';
    } while (line[0] == '%');
    if (sscanf(line, "%lld %lld %lld", &rows, &cols, &stored) != 3) {
        snprintf(why, why_len, "%s: bad size line", path);
        fclose(f);
        return -1;
    }
    pattern = strcmp(field, "pattern") == 0;
    mirror = strcmp(symmetry, "general") != 0;
    sign = strcmp(symmetry, "skew-symmetric") == 0 ? -1.0 : 1.0;
    e = xmalloc((size_t)stored * (mirror ? 2 : 1) * sizeof *e);
    for (k = 0; k < stored; k++) {
        double v = 0.0;
        if (fscanf(f, "%lld %lld", &i, &j) != 2 || (!pattern && fscanf(f, "%lf", &v) != 1) || i < 1 || j < 1 ||
            i > rows || j > cols) {
            snprintf(why, why_len, "%s: bad entry %lld", path, k + 1);
            free(e);
            fclose(f);
            return -1;
        }
        if (pattern) v = 0.25 * (double)(1 + (i * 7 + j * 13) % 8); /* in [0.25, 2], exact in f16 */
        e[n].row = i - 1;
        e[n].col = j - 1;
        e[n++].val = v;
        if (mirror && i != j) {
            e[n].row = j - 1;
            e[n].col = i - 1;
            e[n++].val = sign * v;
        }
    }
    fclose(f);
    qsort(e, (size_t)n, sizeof *e, entry_order);
    *out = csr_alloc(rows, cols, n);
    memset(out->ptr, 0, (size_t)(rows + 1) * sizeof *out->ptr);
    for (p = 0, k = 0; p < n; p++) { /* duplicates are summed */
        if (k > 0 && e[p].row == e[k - 1].row && e[p].col == e[k - 1].col) {
            out->val[k - 1] += e[p].val;
            continue;
        }
        out->col[k] = e[p].col;
        out->val[k] = e[p].val;
        out->ptr[e[p].row + 1]++;
        k++;
    }
    out->nnz = k;
    for (i = 0; i < rows; i++) out->ptr[i + 1] += out->ptr[i];
    free(e);
    return 0;
}

const char *matrix_dir(void) {
    const char *env = getenv("SPBLK_MATRIX_DIR");
    return env && env[0] ? env : SPBLK_MATRIX_DIR;
}

dense_t dense_make(int64_t rows, int64_t cols, spblkOrder_t order, int64_t padding) {
    dense_t d;
    size_t i, n;
    d.rows = rows;
    d.cols = cols;
    d.order = order;
    d.ld = (order == SPBLK_ORDER_COL ? rows : cols) + padding;
    if (d.ld < 1) d.ld = 1;
    n = dense_len(&d);
    d.val = xmalloc(n * sizeof *d.val);
    for (i = 0; i < n; i++) d.val[i] = NAN;
    return d;
}

dense_t dense_random(rng_t *r, int64_t rows, int64_t cols, spblkOrder_t order, spblkDataType_t t) {
    dense_t d = dense_make(rows, cols, order, rng_int(r, 3));
    int64_t i, j;
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++) *dense_at(&d, i, j) = rng_value(r, t);
    return d;
}

dense_t dense_clone(const dense_t *d) {
    dense_t c = *d;
    c.val = xmalloc(dense_len(d) * sizeof *c.val);
    memcpy(c.val, d->val, dense_len(d) * sizeof *c.val);
    return c;
}

size_t dense_len(const dense_t *d) { return (size_t)d->ld * (size_t)(d->order == SPBLK_ORDER_COL ? d->cols : d->rows); }

double *dense_at(const dense_t *d, int64_t i, int64_t j) {
    return d->order == SPBLK_ORDER_COL ? &d->val[i + j * d->ld] : &d->val[i * d->ld + j];
}

void dense_free(dense_t *d) {
    free(d->val);
    d->val = NULL;
}

/* ---- the same matrices as spblk sees them ------------------------------------------------ */

const char *format_name(spblkFormat_t f) {
    return f == SPBLK_FORMAT_CSR ? "CSR" : f == SPBLK_FORMAT_CSC ? "CSC" : f == SPBLK_FORMAT_COO ? "COO" : "?";
}

/* Packs host data into a new backend array; NULL when there is nothing (allowed for nnz = 0). */
static void *upload_indices(const int64_t *src, int64_t n, spblkIndexType_t t, int64_t add) {
    void *host, *dev;
    if (n == 0) return NULL;
    host = xmalloc((size_t)n * index_size(t));
    pack_indices(host, src, (size_t)n, t, add);
    dev = dev_copy(host, (size_t)n * index_size(t));
    free(host);
    return dev;
}

static void *upload_values(const double *src, size_t n, spblkDataType_t t) {
    void *host, *dev;
    if (n == 0) return NULL;
    host = xmalloc(n * type_size(t));
    pack_values(host, src, n, t);
    dev = dev_copy(host, n * type_size(t));
    free(host);
    return dev;
}

dev_sparse_t sparse_upload(const csr_t *a, layout_t l) {
    dev_sparse_t s;
    int64_t add = l.base == SPBLK_INDEX_BASE_ONE, i, p;
    if (l.format == SPBLK_FORMAT_CSR) {
        s.major = upload_indices(a->ptr, a->rows + 1, l.index, add);
        s.minor = upload_indices(a->col, a->nnz, l.index, add);
        s.val = upload_values(a->val, (size_t)a->nnz, l.values);
        CHECK(spblkCreateCsr(&s.descr, a->rows, a->cols, a->nnz, s.major, s.minor, s.val, l.index, l.index, l.base,
                             l.values));
    } else if (l.format == SPBLK_FORMAT_CSC) { /* the CSR arrays of the transpose */
        csr_t t = csr_transpose(a);
        s.major = upload_indices(t.ptr, t.rows + 1, l.index, add);
        s.minor = upload_indices(t.col, t.nnz, l.index, add);
        s.val = upload_values(t.val, (size_t)t.nnz, l.values);
        CHECK(spblkCreateCsc(&s.descr, a->rows, a->cols, a->nnz, s.major, s.minor, s.val, l.index, l.index, l.base,
                             l.values));
        csr_free(&t);
    } else {
        int64_t *rows = xmalloc((size_t)a->nnz * sizeof *rows);
        for (i = 0; i < a->rows; i++)
            for (p = a->ptr[i]; p < a->ptr[i + 1]; p++) rows[p] = i;
        s.major = upload_indices(rows, a->nnz, l.index, add);
        s.minor = upload_indices(a->col, a->nnz, l.index, add);
        s.val = upload_values(a->val, (size_t)a->nnz, l.values);
        CHECK(spblkCreateCoo(&s.descr, a->rows, a->cols, a->nnz, s.major, s.minor, s.val, l.index, l.base, l.values));
        free(rows);
    }
    return s;
}

void sparse_free(dev_sparse_t *s) {
    CHECK(spblkDestroySpMat(s->descr));
    if (s->major) dev_free(s->major);
    if (s->minor) dev_free(s->minor);
    if (s->val) dev_free(s->val);
}

static dev_dense_t dense_upload_values(const dense_t *d, spblkDataType_t t) {
    dev_dense_t g;
    g.mat = NULL;
    g.vec = NULL;
    g.type = t;
    g.count = dense_len(d);
    g.val = dev_alloc(g.count * type_size(t));
    {
        void *host = xmalloc(g.count * type_size(t));
        pack_values(host, d->val, g.count, t);
        to_dev(g.val, host, g.count * type_size(t));
        free(host);
    }
    return g;
}

dev_dense_t dense_upload(const dense_t *d, spblkDataType_t t) {
    dev_dense_t g = dense_upload_values(d, t);
    CHECK(spblkCreateDnMat(&g.mat, d->rows, d->cols, d->ld, g.val, t, d->order));
    return g;
}

dev_dense_t vector_upload(const dense_t *d, spblkDataType_t t) {
    dev_dense_t g = dense_upload_values(d, t);
    CHECK(spblkCreateDnVec(&g.vec, d->rows, g.val, t));
    return g;
}

void dense_download(dense_t *dst, const dev_dense_t *src) {
    void *host = xmalloc(src->count * type_size(src->type));
    from_dev(host, src->val, src->count * type_size(src->type));
    unpack_values(dst->val, host, src->count, src->type);
    free(host);
}

void dev_dense_free(dev_dense_t *d) {
    if (d->mat) CHECK(spblkDestroyDnMat(d->mat));
    if (d->vec) CHECK(spblkDestroyDnVec(d->vec));
    dev_free(d->val);
}

/* ---- the reference ------------------------------------------------------------------------- */

static double unit_roundoff(spblkDataType_t t) {
    return t == SPBLK_R_16F ? ldexp(1, -11) : t == SPBLK_R_32F ? ldexp(1, -24) : ldexp(1, -53);
}

double tolerance(precision_t p, int64_t terms, double scale) {
    double rel = p.compute == SPBLK_R_64F ? 1e-12 : 1e-5;
    /* Half the spacing of the subnormal numbers: 2^-25 (f16), 2^-150 (f32), 2^-1075 (f64). */
    double subnormal = p.out == SPBLK_R_16F ? ldexp(1, -25) : p.out == SPBLK_R_32F ? ldexp(1, -150) : 0.0;
    return (rel * sqrt((double)terms + 1.0) + unit_roundoff(p.out)) * scale + subnormal;
}

void ref_spmm(spblkOperation_t op_a, spblkOperation_t op_b, double alpha, const csr_t *a, const dense_t *b,
              double beta, dense_t *c, dense_t *tol, precision_t prec) {
    csr_t at;
    const csr_t *opa = a;
    int64_t i, j, p;
    size_t k;
    if (op_a != SPBLK_OPERATION_NON_TRANSPOSE) {
        at = csr_transpose(a);
        opa = &at;
    }
    *tol = dense_clone(c);
    for (k = 0; k < dense_len(tol); k++) tol->val[k] = 0.0; /* padding: must stay as it was */
    for (i = 0; i < c->rows; i++) {
        for (j = 0; j < c->cols; j++) {
            double sum = 0.0, abs_sum = 0.0, old = beta != 0.0 ? *dense_at(c, i, j) : 0.0;
            for (p = opa->ptr[i]; p < opa->ptr[i + 1]; p++) {
                int64_t kk = opa->col[p];
                double term = opa->val[p] * (op_b == SPBLK_OPERATION_NON_TRANSPOSE ? *dense_at(b, kk, j) : *dense_at(b, j, kk));
                sum += term;
                abs_sum += fabs(term);
            }
            *dense_at(c, i, j) = alpha * sum + beta * old;
            *dense_at(tol, i, j) = tolerance(prec, opa->ptr[i + 1] - opa->ptr[i], fabs(alpha) * abs_sum + fabs(beta * old));
        }
    }
    if (opa != a) csr_free(&at);
}

void ref_sddmm(spblkOperation_t op_a, spblkOperation_t op_b, double alpha, const dense_t *a, const dense_t *b,
               double beta, csr_t *c, double *tol, precision_t prec) {
    int64_t i, p, l, k = op_a == SPBLK_OPERATION_NON_TRANSPOSE ? a->cols : a->rows;
    for (i = 0; i < c->rows; i++) {
        for (p = c->ptr[i]; p < c->ptr[i + 1]; p++) {
            int64_t j = c->col[p];
            double dot = 0.0, abs_sum = 0.0, old = beta != 0.0 ? c->val[p] : 0.0;
            for (l = 0; l < k; l++) {
                double x = op_a == SPBLK_OPERATION_NON_TRANSPOSE ? *dense_at(a, i, l) : *dense_at(a, l, i);
                double y = op_b == SPBLK_OPERATION_NON_TRANSPOSE ? *dense_at(b, l, j) : *dense_at(b, j, l);
                dot += x * y;
                abs_sum += fabs(x * y);
            }
            c->val[p] = alpha * dot + beta * old;
            tol[p] = tolerance(prec, k, fabs(alpha) * abs_sum + fabs(beta * old));
        }
    }
}

static int int64_order(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

int64_t spgemm_products(const csr_t *a, const csr_t *b) {
    int64_t p, n = 0;
    for (p = 0; p < a->nnz; p++) n += b->ptr[a->col[p] + 1] - b->ptr[a->col[p]];
    return n;
}

csr_t ref_spgemm(double alpha, const csr_t *a, const csr_t *b, double **tol, precision_t prec) {
    int64_t cap = spgemm_products(a, b), i, p, q, n = 0, start;
    int64_t *mark = xmalloc((size_t)b->cols * sizeof *mark), *count = xmalloc((size_t)b->cols * sizeof *count);
    double *acc = xmalloc((size_t)b->cols * sizeof *acc), *abs_acc = xmalloc((size_t)b->cols * sizeof *abs_acc);
    csr_t c = csr_alloc(a->rows, b->cols, cap);
    *tol = xmalloc((size_t)cap * sizeof **tol);
    for (i = 0; i < b->cols; i++) mark[i] = -1;
    c.ptr[0] = 0;
    for (i = 0; i < a->rows; i++) {
        start = n;
        for (p = a->ptr[i]; p < a->ptr[i + 1]; p++) {
            for (q = b->ptr[a->col[p]]; q < b->ptr[a->col[p] + 1]; q++) {
                int64_t j = b->col[q];
                double term = a->val[p] * b->val[q];
                if (mark[j] != i) {
                    mark[j] = i;
                    c.col[n++] = j;
                    acc[j] = abs_acc[j] = 0.0;
                    count[j] = 0;
                }
                acc[j] += term;
                abs_acc[j] += fabs(term);
                count[j]++;
            }
        }
        qsort(c.col + start, (size_t)(n - start), sizeof *c.col, int64_order);
        for (p = start; p < n; p++) {
            c.val[p] = alpha * acc[c.col[p]];
            (*tol)[p] = tolerance(prec, count[c.col[p]], fabs(alpha) * abs_acc[c.col[p]]);
        }
        c.ptr[i + 1] = n;
    }
    c.nnz = n;
    free(mark);
    free(count);
    free(acc);
    free(abs_acc);
    return c;
}

int64_t compare(const char *what, const double *got, const double *want, const double *tol, size_t n) {
    int64_t bad = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        int ok = isnan(want[i]) ? isnan(got[i]) : fabs(got[i] - want[i]) <= tol[i];
        if (!ok && bad++ < 3)
            FAIL("%s[%zu]: got %.17g, want %.17g (tolerance %.3g)", what, i, got[i], want[i], tol[i]);
    }
    if (bad > 3) FAIL("%s: %lld of %zu entries differ", what, (long long)bad, n);
    return bad;
}
