/*
 * backend.h: what spblk's example solvers share: error checks, the choice of backend (the GPU
 * when there is one, else the CPU; SPBLK_BACKEND=host|cuda forces it) and memory the chosen
 * backend reads (device memory through cuda_memory.h, or host memory). Header-only.
 */
#ifndef SPBLK_EXAMPLE_BACKEND_H
#define SPBLK_EXAMPLE_BACKEND_H

#include <spblk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_memory.h"

#define CHECK(call)                                                                                 \
    do {                                                                                            \
        spblkStatus_t status_ = (call);                                                             \
        if (status_ != SPBLK_STATUS_SUCCESS) {                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, spblkGetErrorName(status_), last_error()); \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

static const char *last_error(void) {
    static char message[512];
    size_t len;
    if (spblkGetLastErrorMessage(message, sizeof message, &len) != SPBLK_STATUS_SUCCESS) return "?";
    return message;
}

/* Memory that the handle's backend reads: GPU memory for CUDA, host memory for the host. */
static int on_gpu;

/* The program's name, for its messages (set by main). */
static const char *example_name = "example";

static void die(const char *what) {
    fprintf(stderr, "%s: %s\n", example_name, what);
    exit(1);
}

static void *backend_alloc(size_t bytes) {
    void *p = on_gpu ? cuda_malloc(bytes) : malloc(bytes);
    if (p == NULL) die("out of memory");
    return p;
}

static void backend_free(void *p) {
    if (on_gpu)
        cuda_free(p);
    else
        free(p);
}

static void upload(void *dst, const void *src, size_t bytes) {
    if (!on_gpu)
        memcpy(dst, src, bytes);
    else if (cuda_upload(dst, src, bytes) != 0)
        die("copy to the GPU failed");
}

static void download(void *dst, const void *src, size_t bytes) {
    if (!on_gpu)
        memcpy(dst, src, bytes);
    else if (cuda_download(dst, src, bytes) != 0)
        die("copy from the GPU failed");
}

/* The GPU when there is one and spblk has its CUDA backend, else the CPU. */
static spblkHandle_t pick_backend(void) {
    spblkHandle_t handle;
    spblkBackend_t backend;
    char why[600] = "", no_gpu[600] = "";
    /* First the GPU's context (cuda_memory_device's), so that a CUDA handle is made on it. */
    int have_gpu = cuda_memory_init(no_gpu, sizeof no_gpu) == 0;
    if (getenv("SPBLK_BACKEND") != NULL) {
        CHECK(spblkCreate(&handle)); /* SPBLK_BACKEND=host|cuda decides */
    } else if (have_gpu && spblkCreateWithBackend(&handle, SPBLK_BACKEND_CUDA) == SPBLK_STATUS_SUCCESS) {
        /* a GPU, and spblk can use it */
    } else {
        if (!have_gpu)
            snprintf(why, sizeof why, "%s", no_gpu);
        else
            snprintf(why, sizeof why, "the CUDA backend is unavailable: %s", last_error());
        CHECK(spblkCreateWithBackend(&handle, SPBLK_BACKEND_HOST));
    }
    CHECK(spblkGetBackend(handle, &backend));
    on_gpu = backend == SPBLK_BACKEND_CUDA;
    if (on_gpu && !have_gpu) {
        fprintf(stderr, "%s: CUDA backend, but no GPU memory: %s\n", example_name, no_gpu);
        exit(1);
    }
    if (on_gpu)
        printf("%s: running on the GPU (CUDA backend)\n", example_name);
    else
        printf("%s: running on the CPU (host backend): %s\n", example_name, why[0] ? why : "chosen by SPBLK_BACKEND");
    return handle;
}

static inline double dot(const double *a, const double *b, int n) {
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

#endif
