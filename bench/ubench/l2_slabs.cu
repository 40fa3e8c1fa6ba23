// L2 -> shared memory bandwidth for the VBR kernel's B access pattern (docs/vbr.md, "Bounds"):
// every thread block copies slabs of 64 rows x W columns (f16) at random 64-row offsets of an
// L2-resident matrix into shared memory with cp.async (STAGES in flight), and does nothing else.
// Build and run on the GPU: nvcc -O3 -arch=sm_90 -o l2_slabs bench/ubench/l2_slabs.cu && ./l2_slabs
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

__device__ __forceinline__ void cp16(void* d, const void* s) {
    unsigned a = (unsigned)__cvta_generic_to_shared(d);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(a), "l"(s));
}
template <int W, int STAGES, int THREADS>
__global__ void __launch_bounds__(THREADS) slabs(const unsigned short* B, int kblocks, const int* order, int per_cta, int* sink) {
    extern __shared__ __align__(16) unsigned short sm[];
    constexpr int SLAB = 64 * W;           // elements
    constexpr int CH = SLAB / 8;           // 16-byte chunks
    const int* o = order + (size_t)blockIdx.x * per_cta;
    auto load = [&](int i, int st) {
        const unsigned short* src = B + (size_t)o[i] * SLAB;
        unsigned short* dst = sm + st * SLAB;
        for (int c = threadIdx.x; c < CH; c += THREADS) cp16(dst + c * 8, src + c * 8);
    };
    for (int s = 0; s < STAGES - 1; ++s) { if (s < per_cta) load(s, s); asm volatile("cp.async.commit_group;\n"); }
    int acc = 0;
    for (int i = 0; i < per_cta; ++i) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads();
        if (i + STAGES - 1 < per_cta) load(i + STAGES - 1, (i + STAGES - 1) % STAGES);
        asm volatile("cp.async.commit_group;\n");
        acc += sm[(i % STAGES) * SLAB + threadIdx.x];
    }
    asm volatile("cp.async.wait_group 0;\n");
    if (acc == 0x7fffffff) *sink = acc;
}

template <int W, int STAGES, int THREADS>
void run(int ctas_per_sm, int sms) {
    const int kblocks = 512;  // 32768 rows
    const size_t elems = (size_t)kblocks * 64 * W;
    unsigned short* B; cudaMalloc(&B, elems * 2); cudaMemset(B, 0, elems * 2);
    const int ctas = sms * ctas_per_sm, per_cta = 256;
    std::vector<int> h((size_t)ctas * per_cta);
    srand(7); for (auto& x : h) x = rand() % kblocks;
    int *order, *sink; cudaMalloc(&order, h.size() * 4); cudaMalloc(&sink, 4);
    cudaMemcpy(order, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
    const int smem = STAGES * 64 * W * 2;
    auto k = slabs<W, STAGES, THREADS>;
    cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> ts;
    for (int r = 0; r < 15; ++r) {
        cudaEventRecord(a);
        k<<<ctas, THREADS, smem>>>(B, kblocks, order, per_cta, sink);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 3) ts.push_back(ms);
    }
    std::sort(ts.begin(), ts.end());
    const double bytes = (double)ctas * per_cta * 64 * W * 2;
    printf("slab 64x%d f16 (%5d KB), B %3zu MB, %d stages, %d threads, %d CTA/SM: %.3f ms, %.2f TB/s  (%s)\n", W, 64 * W * 2 / 1024,
           elems * 2 >> 20, STAGES, THREADS, ctas_per_sm, ts[ts.size() / 2], bytes / ts[ts.size() / 2] / 1e9,
           cudaGetErrorString(cudaGetLastError()));
    cudaFree(B); cudaFree(order); cudaFree(sink);
}

int main() {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
    printf("%s, %d SMs, L2 %d MB\n", p.name, sms, p.l2CacheSize >> 20);
    run<128, 4, 128>(1, sms); run<128, 4, 128>(2, sms); run<128, 4, 128>(4, sms);
    run<128, 6, 256>(2, sms); run<128, 8, 256>(1, sms);
    run<256, 4, 128>(1, sms); run<256, 4, 256>(1, sms); run<256, 3, 256>(2, sms); run<256, 5, 256>(1, sms);
    return 0;
}
