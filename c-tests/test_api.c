/* The API around the operations: versions, status names, the last-error message, stream,
 * pointer mode and backend of a handle, descriptor getters and setters, object lifetimes,
 * the statuses of invalid sizes and unsupported requests, and spblkAnalyze's plan lifecycle. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static int starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static void versions(spblkHandle_t h) {
    int version = -1, major = -1, minor = -1, patch = -1;
    test_case("versions");
    CHECK(spblkGetVersion(h, &version));
    EXPECT(version == SPBLK_VERSION, "spblkGetVersion gives %d, the header says %d", version, SPBLK_VERSION);
    CHECK(spblkGetProperty(SPBLK_MAJOR_VERSION, &major));
    CHECK(spblkGetProperty(SPBLK_MINOR_VERSION, &minor));
    CHECK(spblkGetProperty(SPBLK_PATCH_LEVEL, &patch));
    EXPECT(major == SPBLK_VERSION_MAJOR && minor == SPBLK_VERSION_MINOR && patch == SPBLK_VERSION_PATCH,
           "properties give %d.%d.%d", major, minor, patch);
}

static void status_texts(void) {
    static const char *names[] = {
        "SPBLK_STATUS_SUCCESS", "SPBLK_STATUS_NOT_INITIALIZED", "SPBLK_STATUS_ALLOC_FAILED",
        "SPBLK_STATUS_INVALID_VALUE", "SPBLK_STATUS_ARCH_MISMATCH", "SPBLK_STATUS_MAPPING_ERROR",
        "SPBLK_STATUS_EXECUTION_FAILED", "SPBLK_STATUS_INTERNAL_ERROR", "SPBLK_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
        "SPBLK_STATUS_ZERO_PIVOT", "SPBLK_STATUS_NOT_SUPPORTED", "SPBLK_STATUS_INSUFFICIENT_RESOURCES"};
    spblkStatus_t s;
    test_case("status names and strings");
    for (s = 0; s <= SPBLK_STATUS_INSUFFICIENT_RESOURCES; s++) {
        const char *text = spblkGetErrorString(s);
        EXPECT(strcmp(spblkGetErrorName(s), names[s]) == 0, "name of status %u is %s", s, spblkGetErrorName(s));
        EXPECT(text != NULL && strlen(text) > 5, "status %u has no description", s);
    }
    EXPECT(spblkGetErrorName(99) != NULL && strstr(spblkGetErrorName(99), "UNKNOWN") != NULL,
           "status 99 is named %s", spblkGetErrorName(99));
    EXPECT(spblkGetErrorString(99) != NULL, "status 99 has no description");
}

static void last_error_message(void) {
    char full[512], small[8];
    size_t len = 0, written = 12345;
    int version = 0;
    test_case("spblkGetLastErrorMessage");
    EXPECT_STATUS(spblkGetVersion(NULL, &version), SPBLK_STATUS_NOT_INITIALIZED);
    CHECK(spblkGetLastErrorMessage(NULL, 0, &len)); /* size query */
    CHECK(spblkGetLastErrorMessage(full, sizeof full, &written));
    EXPECT(written == len && strlen(full) == len, "size query says %zu bytes, the message has %zu", len, strlen(full));
    EXPECT(starts_with(full, "spblkGetVersion: ") && strstr(full, "'handle'") != NULL,
           "message '%s' does not name the function and the argument", full);
    CHECK(spblkGetLastErrorMessage(small, sizeof small, &written)); /* truncated */
    EXPECT(written == sizeof small - 1 && strncmp(small, full, sizeof small - 1) == 0 && small[7] == '\0',
           "truncated message is '%s' (%zu bytes)", small, written);
    written = 12345;
    EXPECT_STATUS(spblkGetLastErrorMessage(small, 0, &written), SPBLK_STATUS_INVALID_VALUE);
    EXPECT_STATUS(spblkGetLastErrorMessage(NULL, 4, &written), SPBLK_STATUS_INVALID_VALUE);
    EXPECT_STATUS(spblkGetLastErrorMessage(small, sizeof small, NULL), SPBLK_STATUS_INVALID_VALUE);
    EXPECT(written == 12345, "a failed spblkGetLastErrorMessage wrote its out-parameter");
    EXPECT(strcmp(last_error(), full) == 0, "its own failures replaced the message: '%s'", last_error());
}

static void handle_state(spblkHandle_t h) {
    spblkStream_t stream = (spblkStream_t)&stream;
    spblkPointerMode_t mode = 99;
    spblkHandle_t other = (spblkHandle_t)&other, cuda;
    spblkBackend_t backend = 0;
    spblkStatus_t s;
    test_case("stream, pointer mode and backend of a handle");
    CHECK(spblkGetStream(h, &stream));
    EXPECT(stream == NULL, "a new handle's stream is not the default stream");
    CHECK(spblkSetStream(h, (spblkStream_t)&mode)); /* any value: nothing runs on it here */
    CHECK(spblkGetStream(h, &stream));
    EXPECT(stream == (spblkStream_t)&mode, "spblkGetStream does not give back what was set");
    CHECK(spblkSetStream(h, NULL));
    CHECK(spblkGetPointerMode(h, &mode));
    EXPECT(mode == SPBLK_POINTER_MODE_HOST, "a new handle's pointer mode is %u", mode);
    CHECK(spblkSetPointerMode(h, SPBLK_POINTER_MODE_DEVICE));
    CHECK(spblkGetPointerMode(h, &mode));
    EXPECT(mode == SPBLK_POINTER_MODE_DEVICE, "pointer mode is %u after setting DEVICE", mode);
    CHECK(spblkSetPointerMode(h, SPBLK_POINTER_MODE_HOST));

    CHECK(spblkCreateWithBackend(&other, SPBLK_BACKEND_HOST));
    CHECK(spblkGetBackend(other, &backend));
    EXPECT(backend == SPBLK_BACKEND_HOST, "explicit host handle reports backend %u", backend);
    CHECK(spblkDestroy(other));
    /* A destroyed or foreign handle is refused, not dereferenced. */
    EXPECT_STATUS(spblkGetBackend(other, &backend), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkDestroy(other), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkDestroy(NULL), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkGetBackend((spblkHandle_t)&backend, &backend), SPBLK_STATUS_NOT_INITIALIZED);

    /* The CUDA backend: there or not, never a silent fallback, and a reason when not. */
    cuda = (spblkHandle_t)&cuda;
    s = spblkCreateWithBackend(&cuda, SPBLK_BACKEND_CUDA);
    if (s == SPBLK_STATUS_SUCCESS) {
        CHECK(spblkGetBackend(cuda, &backend));
        EXPECT(backend == SPBLK_BACKEND_CUDA, "CUDA handle reports backend %u", backend);
        CHECK(spblkDestroy(cuda));
    } else {
        EXPECT(cuda == (spblkHandle_t)&cuda, "failed spblkCreateWithBackend wrote its out-parameter");
        EXPECT(strlen(last_error()) > 20, "no reason given for the missing CUDA backend");
        printf("test_api: no CUDA backend here (%s): %s\n", spblkGetErrorName(s), last_error());
    }
}

static void environment_backend(void) {
    spblkHandle_t h = (spblkHandle_t)&h;
    spblkBackend_t backend = 0;
    const char *saved = getenv("SPBLK_BACKEND");
    char *copy = saved ? strcpy(malloc(strlen(saved) + 1), saved) : NULL;
    test_case("spblkCreate and SPBLK_BACKEND");
    setenv("SPBLK_BACKEND", "cpu-please", 1);
    EXPECT_STATUS(spblkCreate(&h), SPBLK_STATUS_INVALID_VALUE);
    EXPECT(strstr(last_error(), "SPBLK_BACKEND") != NULL, "message '%s' does not name SPBLK_BACKEND", last_error());
    EXPECT(h == (spblkHandle_t)&h, "failed spblkCreate wrote its out-parameter");
    setenv("SPBLK_BACKEND", "HOST", 1);
    if (CHECK(spblkCreate(&h))) {
        CHECK(spblkGetBackend(h, &backend));
        EXPECT(backend == SPBLK_BACKEND_HOST, "SPBLK_BACKEND=HOST gives backend %u", backend);
        CHECK(spblkDestroy(h));
    }
    if (copy) {
        setenv("SPBLK_BACKEND", copy, 1);
        free(copy);
    } else {
        unsetenv("SPBLK_BACKEND");
    }
}

static void descriptors(void) {
    int32_t ptr[4] = {0, 2, 2, 3}, ptr2[4] = {0, 1, 2, 3}, col[3] = {0, 2, 1};
    int64_t rows = 0, cols = 0, nnz = 0, ld = 0, size = 0;
    float val[3] = {1, 2, 3}, val2[3] = {4, 5, 6}, dense[12];
    void *p1 = NULL, *p2 = NULL, *p3 = NULL, *values = NULL;
    spblkIndexType_t it1 = 0, it2 = 0;
    spblkIndexBase_t base = 9;
    spblkDataType_t type = 99;
    spblkFormat_t format = 0;
    spblkOrder_t order = 0;
    spblkSpMatDescr_t csr = NULL, csc = NULL, coo = NULL;
    spblkConstSpMatDescr_t const_csr = NULL;
    spblkDnMatDescr_t mat = NULL;
    spblkDnVecDescr_t vec = NULL;
    spblkSpGEMMDescr_t gemm = NULL;

    test_case("sparse descriptors");
    CHECK(spblkCreateCsr(&csr, 3, 4, 3, ptr, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ONE,
                         SPBLK_R_32F));
    CHECK(spblkCsrGet(csr, &rows, &cols, &nnz, &p1, &p2, &p3, &it1, &it2, &base, &type));
    EXPECT(rows == 3 && cols == 4 && nnz == 3 && p1 == ptr && p2 == col && p3 == val && it1 == SPBLK_INDEX_32I &&
               it2 == SPBLK_INDEX_32I && base == SPBLK_INDEX_BASE_ONE && type == SPBLK_R_32F,
           "spblkCsrGet does not give back what spblkCreateCsr got");
    CHECK(spblkSpMatGetSize(csr, &rows, &cols, &nnz));
    CHECK(spblkSpMatGetFormat(csr, &format));
    CHECK(spblkSpMatGetIndexBase(csr, &base));
    EXPECT(rows == 3 && cols == 4 && nnz == 3 && format == SPBLK_FORMAT_CSR && base == SPBLK_INDEX_BASE_ONE,
           "size/format/base getters disagree");
    CHECK(spblkSpMatSetValues(csr, val2));
    CHECK(spblkSpMatGetValues(csr, &values));
    EXPECT(values == val2, "spblkSpMatGetValues after SetValues");
    CHECK(spblkCsrSetPointers(csr, ptr2, col, val));
    CHECK(spblkCsrGet(csr, &rows, &cols, &nnz, &p1, &p2, &p3, &it1, &it2, &base, &type));
    EXPECT(p1 == ptr2 && p2 == col && p3 == val, "spblkCsrSetPointers did not replace the arrays");
    EXPECT_STATUS(spblkCooGet(csr, &rows, &cols, &nnz, &p1, &p2, &p3, &it1, &base, &type), SPBLK_STATUS_INVALID_VALUE);

    CHECK(spblkCreateConstCsr(&const_csr, 3, 4, 3, ptr, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                              SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F));
    CHECK(spblkSpMatGetFormat(const_csr, &format));
    EXPECT(format == SPBLK_FORMAT_CSR, "const CSR has format %u", format);
    CHECK(spblkCreateCsc(&csc, 4, 3, 3, ptr, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO,
                         SPBLK_R_32F));
    CHECK(spblkSpMatGetFormat(csc, &format));
    EXPECT(format == SPBLK_FORMAT_CSC, "CSC has format %u", format);
    EXPECT_STATUS(spblkCsrGet(csc, &rows, &cols, &nnz, &p1, &p2, &p3, &it1, &it2, &base, &type),
                  SPBLK_STATUS_INVALID_VALUE);
    CHECK(spblkCreateCoo(&coo, 3, 4, 3, ptr2, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F));
    CHECK(spblkCooGet(coo, &rows, &cols, &nnz, &p1, &p2, &p3, &it1, &base, &type));
    EXPECT(p1 == ptr2 && p2 == col && p3 == val && nnz == 3 && it1 == SPBLK_INDEX_32I, "spblkCooGet round trip");
    EXPECT_STATUS(spblkCsrSetPointers(coo, ptr, col, val), SPBLK_STATUS_INVALID_VALUE);

    test_case("CSC, COO and read-only descriptors");
    {
        spblkSpMatDescr_t csc2 = NULL, coo2 = NULL;
        spblkConstSpMatDescr_t ccsc = NULL, ccoo = NULL;
        const void *cvalues = NULL;
        CHECK(spblkCreateCsc(&csc2, 4, 3, 3, ptr, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ONE,
                             SPBLK_R_32F));
        CHECK(spblkCscSetPointers(csc2, ptr2, col, val2));
        CHECK(spblkCscGet(csc2, &rows, &cols, &nnz, &p1, &p2, &p3, &it1, &it2, &base, &type));
        EXPECT(rows == 4 && cols == 3 && nnz == 3 && p1 == ptr2 && p2 == col && p3 == val2 &&
                   base == SPBLK_INDEX_BASE_ONE,
               "spblkCscGet after spblkCscSetPointers");
        EXPECT_STATUS(spblkCsrSetPointers(csc2, ptr, col, val), SPBLK_STATUS_INVALID_VALUE);
        CHECK(spblkCreateCoo(&coo2, 3, 4, 3, ptr2, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F));
        CHECK(spblkCooSetPointers(coo2, col, ptr2, val2));
        CHECK(spblkCooGet(coo2, &rows, &cols, &nnz, &p1, &p2, &p3, &it1, &base, &type));
        EXPECT(p1 == col && p2 == ptr2 && p3 == val2, "spblkCooGet after spblkCooSetPointers");
        CHECK(spblkCreateConstCsc(&ccsc, 4, 3, 3, ptr, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                                  SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F));
        CHECK(spblkCreateConstCoo(&ccoo, 3, 4, 3, ptr2, col, val, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F));
        CHECK(spblkSpMatGetFormat(ccsc, &format));
        EXPECT(format == SPBLK_FORMAT_CSC, "const CSC has format %u", format);
        CHECK(spblkSpMatGetFormat(ccoo, &format));
        EXPECT(format == SPBLK_FORMAT_COO, "const COO has format %u", format);
        CHECK(spblkConstSpMatGetValues(ccoo, &cvalues));
        EXPECT(cvalues == val, "spblkConstSpMatGetValues");
        CHECK(spblkDestroySpMat(csc2));
        CHECK(spblkDestroySpMat(coo2));
        CHECK(spblkDestroySpMat(ccsc));
        CHECK(spblkDestroySpMat(ccoo));
    }

    test_case("dense descriptors");
    CHECK(spblkCreateDnMat(&mat, 3, 4, 3, dense, SPBLK_R_32F, SPBLK_ORDER_COL));
    CHECK(spblkDnMatGet(mat, &rows, &cols, &ld, &values, &type, &order));
    EXPECT(rows == 3 && cols == 4 && ld == 3 && values == dense && type == SPBLK_R_32F && order == SPBLK_ORDER_COL,
           "spblkDnMatGet round trip");
    CHECK(spblkDnMatSetValues(mat, dense + 1));
    CHECK(spblkDnMatGetValues(mat, &values));
    EXPECT(values == dense + 1, "spblkDnMatGetValues after SetValues");
    CHECK(spblkCreateDnVec(&vec, 12, dense, SPBLK_R_64F));
    CHECK(spblkDnVecGet(vec, &size, &values, &type));
    EXPECT(size == 12 && values == dense && type == SPBLK_R_64F, "spblkDnVecGet round trip");
    CHECK(spblkDnVecSetValues(vec, dense + 2));
    CHECK(spblkDnVecGetValues(vec, &values));
    EXPECT(values == dense + 2, "spblkDnVecGetValues after SetValues");

    {
        spblkConstDnMatDescr_t cmat = NULL;
        spblkConstDnVecDescr_t cvec = NULL;
        const void *cvalues = NULL;
        CHECK(spblkCreateConstDnMat(&cmat, 2, 2, 2, dense, SPBLK_R_32F, SPBLK_ORDER_ROW));
        CHECK(spblkConstDnMatGetValues(cmat, &cvalues));
        EXPECT(cvalues == dense, "spblkConstDnMatGetValues");
        CHECK(spblkCreateConstDnVec(&cvec, 3, dense + 3, SPBLK_R_32F));
        CHECK(spblkConstDnVecGetValues(cvec, &cvalues));
        EXPECT(cvalues == dense + 3, "spblkConstDnVecGetValues");
        CHECK(spblkDestroyDnMat(cmat));
        CHECK(spblkDestroyDnVec(cvec));
    }

    test_case("lifetimes: NULL is a no-op, destroyed and foreign objects are refused");
    CHECK(spblkSpGEMM_createDescr(&gemm));
    CHECK(spblkDestroySpMat(NULL));
    CHECK(spblkDestroyDnMat(NULL));
    CHECK(spblkDestroyDnVec(NULL));
    CHECK(spblkSpGEMM_destroyDescr(NULL));
    EXPECT_STATUS(spblkDestroySpMat((spblkConstSpMatDescr_t)vec), SPBLK_STATUS_NOT_INITIALIZED); /* wrong kind */
    EXPECT_STATUS(spblkSpMatGetFormat((spblkConstSpMatDescr_t)mat, &format), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkDnVecGetValues((spblkDnVecDescr_t)gemm, &values), SPBLK_STATUS_NOT_INITIALIZED);
    CHECK(spblkDestroySpMat(csr));
    CHECK(spblkDestroySpMat(const_csr));
    CHECK(spblkDestroySpMat(csc));
    CHECK(spblkDestroySpMat(coo));
    CHECK(spblkDestroyDnMat(mat));
    CHECK(spblkDestroyDnVec(vec));
    CHECK(spblkSpGEMM_destroyDescr(gemm));
    EXPECT_STATUS(spblkSpMatGetFormat(csr, &format), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkDestroySpMat(csr), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkDnMatGetValues(mat, &values), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkDestroyDnMat(mat), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkDnVecGetValues(vec, &values), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkDestroyDnVec(vec), SPBLK_STATUS_NOT_INITIALIZED);
    EXPECT_STATUS(spblkSpGEMM_destroyDescr(gemm), SPBLK_STATUS_NOT_INITIALIZED);
}

/* Invalid sizes are INVALID_VALUE naming the argument; valid requests spblk does not
 * implement are NOT_SUPPORTED. */
static void invalid_and_unsupported(spblkHandle_t h) {
    int32_t ptr[3] = {0, 1, 2}, bad_col[2] = {0, 7}, col[2] = {0, 1};
    float v[4] = {1, 2, 3, 4}, alpha = 1, beta = 0;
    double alpha64 = 1;
    spblkSpMatDescr_t a = NULL, a_mixed = NULL, a_bad = NULL, a_csc = NULL, d = (spblkSpMatDescr_t)&d;
    spblkDnVecDescr_t x = NULL, y = NULL, y3 = NULL;
    spblkDnMatDescr_t b = NULL, c = NULL, m = (spblkDnMatDescr_t)&m;
    spblkDnVecDescr_t vd = (spblkDnVecDescr_t)&vd;
    size_t size = 0;
    void *dv = dev_alloc(64);
    const spblkOperation_t N = SPBLK_OPERATION_NON_TRANSPOSE;
    const spblkDataType_t F = SPBLK_R_32F;
    const spblkIndexType_t I = SPBLK_INDEX_32I;
    const spblkIndexBase_t Z = SPBLK_INDEX_BASE_ZERO;

    test_case("invalid sizes");
    EXPECT_STATUS(spblkCreateCsr(&d, -1, 2, 0, ptr, NULL, NULL, I, I, Z, F), SPBLK_STATUS_INVALID_VALUE);
    EXPECT_STATUS(spblkCreateCsr(&d, 2, 2, 5, ptr, col, v, I, I, Z, F), SPBLK_STATUS_INVALID_VALUE); /* nnz > 4 */
    EXPECT_STATUS(spblkCreateCsr(&d, 2, 2, 2, ptr, col, v, SPBLK_INDEX_16U, SPBLK_INDEX_16U, Z, F),
                  SPBLK_STATUS_INVALID_VALUE);
    EXPECT_STATUS(spblkCreateDnMat(&m, 3, 2, 2, v, F, SPBLK_ORDER_COL), SPBLK_STATUS_INVALID_VALUE); /* ld < rows */
    EXPECT(strstr(last_error(), "'ld'") != NULL, "message '%s' does not name 'ld'", last_error());
    EXPECT_STATUS(spblkCreateDnVec(&vd, -3, v, F), SPBLK_STATUS_INVALID_VALUE);
    EXPECT(d == (spblkSpMatDescr_t)&d && m == (spblkDnMatDescr_t)&m && vd == (spblkDnVecDescr_t)&vd,
           "a failed create wrote its out-parameter");

    CHECK(spblkCreateCsr(&a, 2, 2, 2, dv, dv, dv, I, I, Z, F));
    CHECK(spblkCreateDnVec(&x, 2, dv, F));
    CHECK(spblkCreateDnVec(&y, 2, dv, F));
    CHECK(spblkCreateDnVec(&y3, 3, dv, F));
    CHECK(spblkCreateDnMat(&b, 3, 2, 3, dv, F, SPBLK_ORDER_COL));
    CHECK(spblkCreateDnMat(&c, 2, 2, 2, dv, F, SPBLK_ORDER_COL));
    EXPECT_STATUS(spblkSpMV_bufferSize(h, N, &alpha, a, x, &beta, y3, F, 0, &size), SPBLK_STATUS_INVALID_VALUE);
    EXPECT(strstr(last_error(), "'vecY'") != NULL, "message '%s' does not name 'vecY'", last_error());
    EXPECT_STATUS(spblkSpMM_bufferSize(h, N, N, &alpha, a, b, &beta, c, F, 0, &size), SPBLK_STATUS_INVALID_VALUE);
    EXPECT(strstr(last_error(), "'matB'") != NULL, "message '%s' does not name 'matB'", last_error());

    test_case("unsupported requests");
    EXPECT_STATUS(spblkSpMV_bufferSize(h, SPBLK_OPERATION_CONJUGATE_TRANSPOSE, &alpha, a, x, &beta, y, F, 0, &size),
                  SPBLK_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(spblkSpMV_bufferSize(h, N, &alpha64, a, x, &beta, y, SPBLK_R_64F, 0, &size),
                  SPBLK_STATUS_NOT_SUPPORTED); /* f32 data, f64 compute */
    EXPECT_STATUS(spblkSpMV_bufferSize(h, N, &alpha, a, x, &beta, y, F, SPBLK_SPMV_SELL_ALG1, &size),
                  SPBLK_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(spblkSpMM_bufferSize(h, N, N, &alpha, a, b, &beta, c, F, SPBLK_SPMM_BLOCKED_ELL_ALG1, &size),
                  SPBLK_STATUS_NOT_SUPPORTED);
    CHECK(spblkCreateCsr(&a_mixed, 2, 2, 2, dv, dv, dv, SPBLK_INDEX_64I, I, Z, F));
    EXPECT_STATUS(spblkSpMV_bufferSize(h, N, &alpha, a_mixed, x, &beta, y, F, 0, &size), SPBLK_STATUS_NOT_SUPPORTED);
    CHECK(spblkCreateCsc(&a_csc, 2, 2, 2, dv, dv, dv, I, I, Z, F));
    EXPECT_STATUS(spblkSDDMM_bufferSize(h, N, N, &alpha, c, c, &beta, a_csc, F, 0, &size), SPBLK_STATUS_NOT_SUPPORTED);

    if (!on_gpu()) { /* the host backend checks the index arrays it reads */
        float xv[2] = {1, 1}, yv[2] = {0, 0};
        spblkDnVecDescr_t hx = NULL, hy = NULL;
        test_case("out-of-range column index (host backend)");
        CHECK(spblkCreateCsr(&a_bad, 2, 2, 2, ptr, bad_col, v, I, I, Z, F));
        CHECK(spblkCreateDnVec(&hx, 2, xv, F));
        CHECK(spblkCreateDnVec(&hy, 2, yv, F));
        EXPECT_STATUS(spblkSpMV(h, N, &alpha, a_bad, hx, &beta, hy, F, 0, NULL), SPBLK_STATUS_INVALID_VALUE);
        CHECK(spblkDestroyDnVec(hx));
        CHECK(spblkDestroyDnVec(hy));
        CHECK(spblkDestroySpMat(a_bad));
    }

    CHECK(spblkDestroySpMat(a));
    CHECK(spblkDestroySpMat(a_mixed));
    CHECK(spblkDestroySpMat(a_csc));
    CHECK(spblkDestroyDnVec(x));
    CHECK(spblkDestroyDnVec(y));
    CHECK(spblkDestroyDnVec(y3));
    CHECK(spblkDestroyDnMat(b));
    CHECK(spblkDestroyDnMat(c));
    dev_free(dv);
}

/* spblkAnalyze's contract around the plan (the plan's results are checked in test_spmm). */
static void analysis(spblkHandle_t h) {
    rng_t r = rng_seed(11);
    csr_t a = csr_generate(&r, SHAPE_POWER_LAW, 40, 30, SPBLK_R_32F);
    layout_t l = {SPBLK_FORMAT_CSR, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F};
    dev_sparse_t da = sparse_upload(&a, l);
    spblkAnalysisParams params, small;
    spblkAnalysisInfo info;
    int64_t perm[40];
    spblkSpMatDescr_t csc = NULL;
    test_case("spblkAnalyze");
    memset(&params, 0xA5, sizeof params);
    CHECK(spblkAnalysisParamsInit(&params, sizeof params));
    EXPECT(params.structSize == sizeof params && params.blockWidth == 64 && params.tau == 0.5 &&
               params.similarity == SPBLK_SIMILARITY_JACCARD && params.mergeRule == SPBLK_MERGE_TWO_STEP &&
               params.maxGroupHeight == 0 && params.halfCopies == 0,
           "spblkAnalysisParamsInit does not give the documented defaults");
    EXPECT_STATUS(spblkAnalysisParamsInit(&small, 0), SPBLK_STATUS_INVALID_VALUE);
    info.structSize = sizeof info;
    EXPECT_STATUS(spblkAnalysisGetInfo(da.descr, &info), SPBLK_STATUS_INVALID_VALUE); /* no plan yet */
    /* ASpT's tiling (for SDDMM) needs no parameters and is not a 1-SA plan. */
    CHECK(spblkAnalyze(h, da.descr, SPBLK_ANALYSIS_ASPT, NULL));
    EXPECT_STATUS(spblkAnalysisGetInfo(da.descr, &info), SPBLK_STATUS_INVALID_VALUE);
    params.blockWidth = 0;
    EXPECT_STATUS(spblkAnalyze(h, da.descr, SPBLK_ANALYSIS_1SA, &params), SPBLK_STATUS_INVALID_VALUE);
    EXPECT(strstr(last_error(), "'params'") && strstr(last_error(), "blockWidth"), "message '%s'", last_error());
    params.blockWidth = 64;
    params.structSize = 0;
    EXPECT_STATUS(spblkAnalyze(h, da.descr, SPBLK_ANALYSIS_1SA, &params), SPBLK_STATUS_INVALID_VALUE);
    params.structSize = sizeof params;
    CHECK(spblkAnalyze(h, da.descr, SPBLK_ANALYSIS_1SA, &params));
    CHECK(spblkAnalysisGetInfo(da.descr, &info));
    EXPECT(info.groups >= 1 && info.groups <= 40 && info.fillInRatio >= 1.0 && info.inBlockDensity > 0.0 &&
               info.inBlockDensity <= 1.0,
           "analysis info: %lld groups, fill-in %g, density %g", (long long)info.groups, info.fillInRatio,
           info.inBlockDensity);
    CHECK(spblkAnalysisGetPermutation(da.descr, perm));
    CHECK(spblkSpMatSetValues(da.descr, da.val)); /* drops the plan */
    EXPECT_STATUS(spblkAnalysisGetInfo(da.descr, &info), SPBLK_STATUS_INVALID_VALUE);
    CHECK(spblkCreateCsc(&csc, 30, 40, a.nnz, da.major, da.minor, da.val, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                         SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F));
    EXPECT_STATUS(spblkAnalyze(h, csc, SPBLK_ANALYSIS_1SA, NULL), SPBLK_STATUS_NOT_SUPPORTED);
    EXPECT_STATUS(spblkAnalyze(h, csc, SPBLK_ANALYSIS_ASPT, NULL), SPBLK_STATUS_NOT_SUPPORTED);
    EXPECT(strstr(last_error(), "CSR") != NULL, "message '%s'", last_error());
    CHECK(spblkDestroySpMat(csc));
    sparse_free(&da);
    csr_free(&a);
}

/* 10^4 cycles of create, preprocess (an operand plan: COO is converted once), analyze (a
 * 1-SA plan) and destroy: under ASan (LeakSanitizer) a plan that a destroyed descriptor did not
 * free is reported at exit; on the GPU the same cycles run against device memory. */
static void plan_lifetime(spblkHandle_t h) {
    rng_t r = rng_seed(12);
    csr_t a = csr_generate(&r, SHAPE_RANDOM, 64, 48, SPBLK_R_32F);
    layout_t coo = {SPBLK_FORMAT_COO, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F};
    layout_t csr = {SPBLK_FORMAT_CSR, SPBLK_INDEX_32I, SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F};
    dev_sparse_t dc = sparse_upload(&a, coo), dr = sparse_upload(&a, csr);
    dense_t x = dense_random(&r, 48, 1, SPBLK_ORDER_COL, SPBLK_R_32F), y = dense_make(64, 1, SPBLK_ORDER_COL, 0);
    dev_dense_t dx = vector_upload(&x, SPBLK_R_32F), dy = vector_upload(&y, SPBLK_R_32F);
    float alpha = 1.0f, beta = 0.0f;
    size_t size = 0;
    void *buffer = NULL;
    int i;
    test_case("plan lifetime: 10^4 create/preprocess/analyze/destroy cycles");
    CHECK(spblkSetPointerMode(h, SPBLK_POINTER_MODE_HOST));
    CHECK(spblkSpMV_bufferSize(h, SPBLK_OPERATION_NON_TRANSPOSE, &alpha, dc.descr, dx.vec, &beta, dy.vec,
                               SPBLK_R_32F, SPBLK_SPMV_COO_ALG2, &size));
    if (size > 0) buffer = dev_alloc(size);
    for (i = 0; i < 10000; i++) {
        spblkSpMatDescr_t m = NULL, c = NULL;
        if (!CHECK(spblkCreateCoo(&m, 64, 48, a.nnz, dc.major, dc.minor, dc.val, SPBLK_INDEX_32I,
                                  SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F)))
            break;
        CHECK(spblkSpMV_preprocess(h, SPBLK_OPERATION_NON_TRANSPOSE, &alpha, m, dx.vec, &beta, dy.vec, SPBLK_R_32F,
                                   SPBLK_SPMV_COO_ALG2, buffer));
        CHECK(spblkCreateCsr(&c, 64, 48, a.nnz, dr.major, dr.minor, dr.val, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                             SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F));
        CHECK(spblkAnalyze(h, c, SPBLK_ANALYSIS_1SA, NULL));
        CHECK(spblkDestroySpMat(m));
        CHECK(spblkDestroySpMat(c));
    }
    if (buffer) dev_free(buffer);
    dev_dense_free(&dx);
    dev_dense_free(&dy);
    dense_free(&x);
    dense_free(&y);
    sparse_free(&dc);
    sparse_free(&dr);
    csr_free(&a);
}

int main(void) {
    spblkHandle_t h = test_init("test_api");
    versions(h);
    status_texts();
    last_error_message();
    handle_state(h);
    environment_backend();
    descriptors();
    invalid_and_unsupported(h);
    analysis(h);
    plan_lifetime(h);
    return test_finish(h);
}
