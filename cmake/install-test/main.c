/* A program linked against the installed spblk: `main shared` or `main static` also checks
 * where spblk's code came from: the library named by its SONAME (SPBLK_SONAME, e.g.
 * "libspblk.so.0", which the dynamic loader opens), or the program itself. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <spblk.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    const char *want = argc > 1 ? argv[1] : "";
    int version = 0;
    float values[2] = {2.0f, 3.0f}, x[2] = {1.0f, 1.0f}, y[2] = {0.0f, 0.0f}, alpha = 1.0f, beta = 0.0f;
    int offsets[3] = {0, 1, 2}, columns[2] = {1, 0};
    spblkHandle_t h;
    spblkSpMatDescr_t a;
    spblkDnVecDescr_t vx, vy;
    Dl_info info;
    const char *from;
    int ok;

    if (spblkCreateWithBackend(&h, SPBLK_BACKEND_HOST) != SPBLK_STATUS_SUCCESS ||
        spblkGetVersion(h, &version) != SPBLK_STATUS_SUCCESS ||
        spblkCreateCsr(&a, 2, 2, 2, offsets, columns, values, SPBLK_INDEX_32I, SPBLK_INDEX_32I,
                       SPBLK_INDEX_BASE_ZERO, SPBLK_R_32F) != SPBLK_STATUS_SUCCESS ||
        spblkCreateDnVec(&vx, 2, x, SPBLK_R_32F) != SPBLK_STATUS_SUCCESS ||
        spblkCreateDnVec(&vy, 2, y, SPBLK_R_32F) != SPBLK_STATUS_SUCCESS ||
        spblkSpMV(h, SPBLK_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, SPBLK_R_32F, SPBLK_SPMV_ALG_DEFAULT,
                  NULL) != SPBLK_STATUS_SUCCESS) {
        printf("spblk call failed\n");
        return 1;
    }
    spblkDestroySpMat(a);
    spblkDestroyDnVec(vx);
    spblkDestroyDnVec(vy);
    spblkDestroy(h);

    /* With glibc, dladdr names the object a function was loaded from. */
    if (dladdr((void *)(size_t)&spblkCreate, &info) == 0 || info.dli_fname == NULL) {
        printf("dladdr failed\n");
        return 1;
    }
    from = strstr(info.dli_fname, "libspblk.so") ? "shared" : "static";
    ok = version == SPBLK_VERSION && y[0] == 2.0f && y[1] == 3.0f && strcmp(from, want) == 0;
    if (strcmp(from, "shared") == 0) {
        size_t n = strlen(info.dli_fname), k = strlen("/" SPBLK_SONAME);
        ok = ok && n > k && strcmp(info.dli_fname + n - k, "/" SPBLK_SONAME) == 0;
    }
    printf("spblk %d (header %d), y = [%g %g], spblkCreate from %s (%s): %s\n", version, SPBLK_VERSION, y[0], y[1],
           info.dli_fname, from, ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
