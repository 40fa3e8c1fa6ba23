// Probe: how fast can an H100 stream (index, value) pairs and gather x[index] from a
// 4 MB vector?  Upper bound for SpMV on uniform random columns (row structure ignored).
// Standalone (not part of the library or the benchmark); on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o gather bench/probes/gather.cu
//   ./gather 1048576 33554432 0   # x length, entries, mode (0 uniform, 1 sequential, 2 skewed)
// docs/spmv.md ("The gather floor") has the results.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

template <int U>
__global__ void scalar_gather(long n, const int* __restrict__ idx, const float* __restrict__ val,
                              const float* __restrict__ x, float* out) {
    long t = blockIdx.x * (long)blockDim.x + threadIdx.x, S = (long)gridDim.x * blockDim.x;
    float s = 0;
    for (long p = t; p < n; p += S * U) {
#pragma unroll
        for (int u = 0; u < U; ++u) { long q = p + u * S; if (q < n) s += __ldcs(val + q) * __ldg(x + __ldcs(idx + q)); }
    }
    out[t] = s;
}
// 16-byte loads: each thread 4 consecutive entries per step
template <int U>
__global__ void vec_gather(long n4, const int4* __restrict__ idx, const float4* __restrict__ val,
                           const float* __restrict__ x, float* out) {
    long t = blockIdx.x * (long)blockDim.x + threadIdx.x, S = (long)gridDim.x * blockDim.x;
    float s = 0;
    for (long p = t; p < n4; p += S * U) {
        int4 i[U]; float4 v[U];
#pragma unroll
        for (int u = 0; u < U; ++u) { long q = p + u * S; if (q < n4) { i[u] = __ldcs(idx + q); v[u] = __ldcs(val + q); } else { i[u] = make_int4(0,0,0,0); v[u] = make_float4(0,0,0,0);} }
#pragma unroll
        for (int u = 0; u < U; ++u)
            s += v[u].x * __ldg(x + i[u].x) + v[u].y * __ldg(x + i[u].y) + v[u].z * __ldg(x + i[u].z) + v[u].w * __ldg(x + i[u].w);
    }
    out[t] = s;
}
// Pure stream, no gather (copy-bandwidth reference for the same bytes).
__global__ void vec_stream(long n4, const int4* __restrict__ idx, const float4* __restrict__ val, float* out) {
    long t = blockIdx.x * (long)blockDim.x + threadIdx.x, S = (long)gridDim.x * blockDim.x;
    float s = 0;
    for (long p = t; p < n4; p += S) { int4 i = __ldcs(idx + p); float4 v = __ldcs(val + p); s += v.x * i.x + v.y * i.y + v.z * i.z + v.w * i.w; }
    out[t] = s;
}

template <class F> float timeit(F f) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> ts;
    for (int r = 0; r < 25; ++r) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 5) ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); return ts[ts.size() / 2];
}

int main(int argc, char** argv) {
    long nx = argc > 1 ? atol(argv[1]) : (1 << 20);
    long nnz = argc > 2 ? atol(argv[2]) : 32L << 20;
    int mode = argc > 3 ? atoi(argv[3]) : 0;  // 0 uniform random, 1 sequential, 2 R-MAT-like skew (x^3)
    std::vector<int> hi(nnz); std::vector<float> hv(nnz, 1.0f);
    unsigned long long s = 88172645463325252ull;
    for (long p = 0; p < nnz; ++p) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        double u = (s >> 11) * (1.0 / 9007199254740992.0);
        hi[p] = mode == 1 ? (int)(p % nx) : mode == 2 ? (int)(u * u * u * nx) : (int)(u * nx);
    }
    int* di; float *dv, *dx, *dout;
    CK(cudaMalloc(&di, nnz * 4)); CK(cudaMalloc(&dv, nnz * 4)); CK(cudaMalloc(&dx, nx * 4)); CK(cudaMalloc(&dout, 64 << 20));
    CK(cudaMemcpy(di, hi.data(), nnz * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dv, hv.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(dx, 0, nx * 4));
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    double bytes = nnz * 8.0;
    printf("nx %ld nnz %ld mode %d: stream bytes %.0f MB\n", nx, nnz, mode, bytes / 1e6);
    for (int bps : {8, 16, 32}) {
        int grid = sms * bps, blk = 256;
        float t1 = timeit([&] { scalar_gather<4><<<grid, blk>>>(nnz, di, dv, dx, dout); });
        float t2 = timeit([&] { vec_gather<1><<<grid, blk>>>(nnz / 4, (int4*)di, (float4*)dv, dx, dout); });
        float t3 = timeit([&] { vec_gather<2><<<grid, blk>>>(nnz / 4, (int4*)di, (float4*)dv, dx, dout); });
        float t4 = timeit([&] { vec_stream<<<grid, blk>>>(nnz / 4, (int4*)di, (float4*)dv, dout); });
        printf("blocks/SM %2d: scalar-u4 %.1f us (%.2f TB/s)  vec-u1 %.1f us (%.2f)  vec-u2 %.1f us (%.2f)  stream-only %.1f us (%.2f)\n",
               bps, t1 * 1e3, bytes / t1 / 1e9, t2 * 1e3, bytes / t2 / 1e9, t3 * 1e3, bytes / t3 / 1e9, t4 * 1e3, bytes / t4 / 1e9);
    }
    CK(cudaGetLastError());
    return 0;
}
