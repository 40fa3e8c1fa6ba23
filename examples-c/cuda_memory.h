/*
 * cuda_memory.h: GPU memory for spblk's examples and tests without the CUDA toolkit.
 *
 * The CUDA driver (libcuda.so.1, part of every NVIDIA driver install) is loaded at run time
 * with dlopen, so programs compile anywhere and simply report "no GPU" where there is none.
 * Memory is allocated in the chosen device's primary context (device 0 unless
 * `cuda_memory_device` says otherwise), the context spblk's CUDA backend uses.
 * Header-only; link with ${CMAKE_DL_LIBS} (-ldl) on glibc older than 2.34.
 */
#ifndef SPBLK_CUDA_MEMORY_H
#define SPBLK_CUDA_MEMORY_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef unsigned long long cuda_deviceptr; /* CUdeviceptr on 64-bit systems */

static struct {
    int (*Init)(unsigned);
    int (*DeviceGetCount)(int *);
    int (*DeviceGet)(int *, int);
    int (*DevicePrimaryCtxRetain)(void **, int);
    int (*CtxSetCurrent)(void *);
    int (*CtxSynchronize)(void);
    int (*MemAlloc)(cuda_deviceptr *, size_t);
    int (*MemFree)(cuda_deviceptr);
    int (*MemcpyHtoD)(cuda_deviceptr, const void *, size_t);
    int (*MemcpyDtoH)(void *, cuda_deviceptr, size_t);
    /* Streams, events, pinned memory and asynchronous copies (the distributed example). */
    int (*StreamCreate)(void **, unsigned);
    int (*StreamDestroy)(void *);
    int (*StreamSynchronize)(void *);
    int (*StreamWaitEvent)(void *, void *, unsigned);
    int (*EventCreate)(void **, unsigned);
    int (*EventDestroy)(void *);
    int (*EventRecord)(void *, void *);
    int (*EventSynchronize)(void *);
    int (*EventElapsedTime)(float *, void *, void *);
    int (*MemAllocHost)(void **, size_t);
    int (*MemFreeHost)(void *);
    int (*MemcpyHtoDAsync)(cuda_deviceptr, const void *, size_t, void *);
    int (*MemcpyDtoHAsync)(void *, cuda_deviceptr, size_t, void *);
    int (*MemcpyDtoDAsync)(cuda_deviceptr, cuda_deviceptr, size_t, void *);
} cuda_api;

/* The GPU cuda_memory_init makes current, modulo the number of GPUs (set it first: one GPU
 * per MPI rank, say); it holds the GPU used afterwards. */
static int cuda_memory_device = 0;

/* dlsym returns an object pointer; copying its bytes into the function pointer is the
 * ISO-C-clean way to convert it. */
static inline int cuda_symbol(void *lib, const char *name, void *fn, size_t fn_size) {
    void *sym = dlsym(lib, name);
    if (sym == NULL) return -1;
    memcpy(fn, &sym, fn_size);
    return 0;
}
#define CUDA_SYMBOL(lib, name, field) cuda_symbol(lib, name, (void *)&cuda_api.field, sizeof cuda_api.field)

/* Loads the driver and makes the primary context of GPU `cuda_memory_device` (0 unless set;
 * modulo the number of GPUs) current. Returns 0, or -1 with the reason in `why`. */
static inline int cuda_memory_init(char *why, size_t why_len) {
    int count = 0, device = 0, rc;
    void *ctx = NULL;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(why, why_len, "no CUDA driver (dlopen libcuda.so.1: %s)", dlerror());
        return -1;
    }
    if (CUDA_SYMBOL(lib, "cuInit", Init) || CUDA_SYMBOL(lib, "cuDeviceGetCount", DeviceGetCount) ||
        CUDA_SYMBOL(lib, "cuDeviceGet", DeviceGet) ||
        CUDA_SYMBOL(lib, "cuDevicePrimaryCtxRetain", DevicePrimaryCtxRetain) ||
        CUDA_SYMBOL(lib, "cuCtxSetCurrent", CtxSetCurrent) ||
        CUDA_SYMBOL(lib, "cuCtxSynchronize", CtxSynchronize) || CUDA_SYMBOL(lib, "cuMemAlloc_v2", MemAlloc) ||
        CUDA_SYMBOL(lib, "cuMemFree_v2", MemFree) || CUDA_SYMBOL(lib, "cuMemcpyHtoD_v2", MemcpyHtoD) ||
        CUDA_SYMBOL(lib, "cuMemcpyDtoH_v2", MemcpyDtoH) || CUDA_SYMBOL(lib, "cuStreamCreate", StreamCreate) ||
        CUDA_SYMBOL(lib, "cuStreamDestroy_v2", StreamDestroy) ||
        CUDA_SYMBOL(lib, "cuStreamSynchronize", StreamSynchronize) ||
        CUDA_SYMBOL(lib, "cuStreamWaitEvent", StreamWaitEvent) ||
        CUDA_SYMBOL(lib, "cuEventCreate", EventCreate) || CUDA_SYMBOL(lib, "cuEventDestroy_v2", EventDestroy) ||
        CUDA_SYMBOL(lib, "cuEventRecord", EventRecord) || CUDA_SYMBOL(lib, "cuEventSynchronize", EventSynchronize) ||
        CUDA_SYMBOL(lib, "cuEventElapsedTime", EventElapsedTime) ||
        CUDA_SYMBOL(lib, "cuMemAllocHost_v2", MemAllocHost) || CUDA_SYMBOL(lib, "cuMemFreeHost", MemFreeHost) ||
        CUDA_SYMBOL(lib, "cuMemcpyHtoDAsync_v2", MemcpyHtoDAsync) ||
        CUDA_SYMBOL(lib, "cuMemcpyDtoHAsync_v2", MemcpyDtoHAsync) ||
        CUDA_SYMBOL(lib, "cuMemcpyDtoDAsync_v2", MemcpyDtoDAsync)) {
        snprintf(why, why_len, "libcuda.so.1 lacks a driver API function");
        return -1;
    }
    if ((rc = cuda_api.Init(0)) != 0 || (rc = cuda_api.DeviceGetCount(&count)) != 0 || count == 0) {
        snprintf(why, why_len, "no usable GPU (cuInit/cuDeviceGetCount: error %d, %d devices)", rc, count);
        return -1;
    }
    cuda_memory_device %= count;
    if ((rc = cuda_api.DeviceGet(&device, cuda_memory_device)) != 0 || (rc = cuda_api.DevicePrimaryCtxRetain(&ctx, device)) != 0 ||
        (rc = cuda_api.CtxSetCurrent(ctx)) != 0) {
        snprintf(why, why_len, "cannot use GPU %d (driver error %d)", cuda_memory_device, rc);
        return -1;
    }
    return 0;
}

/* cudaMalloc; NULL on failure. A size of 0 allocates 1 byte, so that the result is never NULL. */
static inline void *cuda_malloc(size_t bytes) {
    cuda_deviceptr p = 0;
    if (cuda_api.MemAlloc(&p, bytes ? bytes : 1) != 0) return NULL;
    return (void *)(uintptr_t)p;
}

static inline void cuda_free(void *p) {
    if (p != NULL) cuda_api.MemFree((cuda_deviceptr)(uintptr_t)p);
}

/* Blocking copies; 0 on success. The download first waits for queued work (spblk's calls are
 * asynchronous on the GPU). */
static inline int cuda_upload(void *device_dst, const void *host_src, size_t bytes) {
    return bytes ? cuda_api.MemcpyHtoD((cuda_deviceptr)(uintptr_t)device_dst, host_src, bytes) : 0;
}

static inline int cuda_download(void *host_dst, const void *device_src, size_t bytes) {
    int rc = cuda_api.CtxSynchronize();
    if (rc != 0 || bytes == 0) return rc;
    return cuda_api.MemcpyDtoH(host_dst, (cuda_deviceptr)(uintptr_t)device_src, bytes);
}

#endif /* SPBLK_CUDA_MEMORY_H */
