/*
 * Shared helpers of spblk's C tests: checks, where the data lives (host or GPU), values of
 * every type held as doubles, random and adversarial matrices, a Matrix Market reader, and
 * the naive CPU reference every result is compared with.
 *
 * The reference works on zero-based CSR and dense matrices of doubles (csr_t, dense_t);
 * *_upload() turns them into what spblk sees: the tested format, index type, index base and
 * value type, in host or device memory, behind a descriptor.
 */
#ifndef SPBLK_TEST_COMMON_H
#define SPBLK_TEST_COMMON_H

#include <spblk.h>
#include <stddef.h>
#include <stdint.h>

/* ---- checks: failures are counted and the test goes on ------------------------------------ */

void test_fail(const char *file, int line, const char *fmt, ...);
#define FAIL(...) test_fail(__FILE__, __LINE__, __VA_ARGS__)
#define EXPECT(cond, ...) ((cond) ? 1 : (FAIL(__VA_ARGS__), 0))
/* A call that must return `want`; a mismatch prints both statuses and the library's message. */
#define EXPECT_STATUS(call, want) expect_status((call), (want), #call, __FILE__, __LINE__)
#define CHECK(call) EXPECT_STATUS(call, SPBLK_STATUS_SUCCESS)
int expect_status(spblkStatus_t got, spblkStatus_t want, const char *expr, const char *file, int line);

/* Names the case the following checks belong to (printed once, before its first failure). */
void test_case(const char *fmt, ...);
/* The message of this thread's last failed spblk call (static buffer). */
const char *last_error(void);

/* Creates the handle the test runs on: SPBLK_TEST_DEVICE=gpu asks for the CUDA backend and
 * GPU memory and exits 77 (skipped) without them; otherwise the host backend and host memory. */
spblkHandle_t test_init(const char *name);
/* Destroys the handle, prints the summary and returns the exit code. */
int test_finish(spblkHandle_t handle);
/* Exits 77 (CTest: skipped) with the reason. */
void test_skip(const char *why);

/* Test grids: case number -> one choice per dimension. pick() takes the next mixed-radix digit
 * (0 <= digit < n) off *code. */
int pick(int *code, int n);

/* ---- memory of the backend under test (malloc or cuMemAlloc) ------------------------------- */

int on_gpu(void);
void *dev_alloc(size_t bytes);
void dev_free(void *p);
void to_dev(void *dst, const void *src, size_t bytes);
void from_dev(void *dst, const void *src, size_t bytes);
void *dev_copy(const void *src, size_t bytes); /* allocate and upload */

/* alpha or beta as a pointer of the compute type, in host memory or (pointer mode device) in
 * the backend's memory. */
typedef struct {
    void *ptr;
    int on_device;
} scalar_t;
scalar_t scalar_make(double value, spblkDataType_t type, spblkPointerMode_t mode);
void scalar_free(scalar_t *s);

/* ---- values and indices of every type, held as doubles and int64 -------------------------- */

size_t type_size(spblkDataType_t t);
size_t index_size(spblkIndexType_t t);
const char *type_name(spblkDataType_t t);
uint16_t half_from_double(double x); /* IEEE binary16, round to nearest even */
double half_to_double(uint16_t h);
double round_to(spblkDataType_t t, double x); /* the value the type stores for x */
void pack_values(void *dst, const double *src, size_t n, spblkDataType_t t);
void unpack_values(double *dst, const void *src, size_t n, spblkDataType_t t);
/* dst[i] = src[i] + add, in the index type. */
void pack_indices(void *dst, const int64_t *src, size_t n, spblkIndexType_t t, int64_t add);
void unpack_indices(int64_t *dst, const void *src, size_t n, spblkIndexType_t t, int64_t add);

/* ---- deterministic random numbers ------------------------------------------------------------ */

typedef struct {
    uint64_t state;
} rng_t;
rng_t rng_seed(uint64_t seed);
uint64_t rng_next(rng_t *r);
int64_t rng_int(rng_t *r, int64_t n); /* [0, n) */
double rng_value(rng_t *r, spblkDataType_t t); /* in [-1, 1), exactly representable in t */
/* A matrix dimension: mostly 1..44, one in 8 large enough (100..399) for multithreaded paths,
 * one in 16 zero. */
int64_t test_dim(rng_t *r);

/* ---- matrices on the host, as the reference sees them ------------------------------------- */

/* Zero-based CSR with double values; columns need not be sorted within a row. */
typedef struct {
    int64_t rows, cols, nnz;
    int64_t *ptr, *col;
    double *val;
} csr_t;

typedef enum {
    SHAPE_RANDOM,     /* about 20% of the entries */
    SHAPE_EMPTY_ROWS, /* every other row empty, and the first and last */
    SHAPE_DENSE_ROW,  /* one full row among very sparse ones */
    SHAPE_POWER_LAW,  /* row i has about cols / (i + 1) entries */
    SHAPE_NO_ENTRIES, /* nnz = 0 */
    SHAPE_COUNT
} shape_t;
const char *shape_name(shape_t s);

/* Columns in random order within each row; values exact in `t`. */
csr_t csr_generate(rng_t *r, shape_t shape, int64_t rows, int64_t cols, spblkDataType_t t);
csr_t csr_transpose(const csr_t *a); /* columns of the result sorted within rows */
void csr_free(csr_t *a);
int64_t csr_max_row(const csr_t *a);
/* Reads a Matrix Market file (coordinate real|integer|pattern, general|symmetric|
 * skew-symmetric; pattern entries get small deterministic values). 0, or -1 with `why`. */
int mm_read(const char *path, csr_t *out, char *why, size_t why_len);
/* The directory of the Matrix Market files: $SPBLK_MATRIX_DIR, else the one CMake gave. */
const char *matrix_dir(void);

/* Dense, `ld` >= the minimum; the padding between columns (rows) holds NaN. */
typedef struct {
    int64_t rows, cols, ld;
    spblkOrder_t order;
    double *val; /* dense_len() entries */
} dense_t;
dense_t dense_make(int64_t rows, int64_t cols, spblkOrder_t order, int64_t padding); /* all NaN */
dense_t dense_random(rng_t *r, int64_t rows, int64_t cols, spblkOrder_t order, spblkDataType_t t);
dense_t dense_clone(const dense_t *d);
size_t dense_len(const dense_t *d);
double *dense_at(const dense_t *d, int64_t i, int64_t j);
void dense_free(dense_t *d);

/* ---- the same matrices as spblk sees them ----------------------------------------------------- */

typedef struct {
    spblkFormat_t format; /* CSR, CSC or COO */
    spblkIndexType_t index;
    spblkIndexBase_t base;
    spblkDataType_t values;
} layout_t;
const char *format_name(spblkFormat_t f);

typedef struct {
    spblkSpMatDescr_t descr;
    void *major; /* CSR row offsets, CSC column offsets, COO row indices */
    void *minor; /* CSR column indices, CSC row indices, COO column indices */
    void *val;
} dev_sparse_t;
dev_sparse_t sparse_upload(const csr_t *a, layout_t l);
void sparse_free(dev_sparse_t *s);

/* A dense matrix (or, when made by vector_upload, a vector) in backend memory. */
typedef struct {
    spblkDnMatDescr_t mat;
    spblkDnVecDescr_t vec;
    void *val;
    size_t count; /* elements, padding included */
    spblkDataType_t type;
} dev_dense_t;
dev_dense_t dense_upload(const dense_t *d, spblkDataType_t t);
dev_dense_t vector_upload(const dense_t *d, spblkDataType_t t); /* d is n x 1 */
void dense_download(dense_t *dst, const dev_dense_t *src);       /* padding included */
void dev_dense_free(dev_dense_t *d);

/* ---- the reference ------------------------------------------------------------------------- */

/* Output and compute type of a call: they set how far a result may be from the reference. */
typedef struct {
    spblkDataType_t out, compute;
} precision_t;
/* Allowed error of a result made of `terms` products whose absolute values sum to `scale`:
 * 1e-5 (f32 compute) or 1e-12 (f64) times sqrt(terms + 1) for the summation, plus the output
 * type's rounding (relative, and absolute below its smallest normal number). */
double tolerance(precision_t p, int64_t terms, double scale);

/* C = alpha op(A) op(B) + beta C, C dense (beta = 0: C is not read). `tol` gets C's layout
 * and the allowed error of every entry. */
void ref_spmm(spblkOperation_t op_a, spblkOperation_t op_b, double alpha, const csr_t *a, const dense_t *b,
              double beta, dense_t *c, dense_t *tol, precision_t p);
/* C = alpha (op(A) op(B)) .* spy(C) + beta C, C sparse; tol[p] for entry p. */
void ref_sddmm(spblkOperation_t op_a, spblkOperation_t op_b, double alpha, const dense_t *a, const dense_t *b,
               double beta, csr_t *c, double *tol, precision_t p);
/* alpha A B with sorted columns (every structural product kept, as cuSPARSE does);
 * *tol gets the allowed error of each entry (caller frees). */
csr_t ref_spgemm(double alpha, const csr_t *a, const csr_t *b, double **tol, precision_t p);
/* Number of products A B needs (to keep large cases out). */
int64_t spgemm_products(const csr_t *a, const csr_t *b);

/* Counts entries with |got - want| > tol (NaN wanted: NaN required); prints the first few. */
int64_t compare(const char *what, const double *got, const double *want, const double *tol, size_t n);

#endif /* SPBLK_TEST_COMMON_H */
