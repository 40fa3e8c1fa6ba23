// Probe: how fast does CUB's radix sort (the toolkit's, onesweep on sm_90) sort the (column,
// entry) pairs of a transpose on this GPU?  A ceiling for a radix-sort csr2csc; timed as a
// peer, not used by the library. Standalone; on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o sort_rate bench/probes/sort_rate.cu
//   ./sort_rate 16777216 20     # pairs, key bits
// docs/csr2csc.md has the results.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cub/cub.cuh>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

__global__ void fill(unsigned* k, unsigned* v, long n, int bits, unsigned seed) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
        k[i] = h & ((1u << bits) - 1u);
        v[i] = (unsigned)i;
    }
}

int main(int argc, char** argv) {
    long n = argc > 1 ? atol(argv[1]) : (1l << 24);
    int bits = argc > 2 ? atoi(argv[2]) : 20;
    unsigned *k0, *k1, *v0, *v1;
    CK(cudaMalloc(&k0, n * 4)); CK(cudaMalloc(&k1, n * 4)); CK(cudaMalloc(&v0, n * 4)); CK(cudaMalloc(&v1, n * 4));
    size_t tmp_bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, k0, k1, v0, v1, (int)n, 0, bits);
    void* tmp; CK(cudaMalloc(&tmp, tmp_bytes));
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> ts, cs;
    for (int r = 0; r < 25; ++r) {
        fill<<<1024, 256>>>(k0, v0, n, bits, r * 77u);
        cudaEventRecord(a);
        cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, k0, k1, v0, v1, (int)n, 0, bits);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 5) ts.push_back(ms);
        cudaEventRecord(a);
        CK(cudaMemcpyAsync(k1, k0, n * 4, cudaMemcpyDeviceToDevice));
        CK(cudaMemcpyAsync(v1, v0, n * 4, cudaMemcpyDeviceToDevice));
        cudaEventRecord(b); cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms, a, b); if (r >= 5) cs.push_back(ms);
    }
    std::sort(ts.begin(), ts.end()); std::sort(cs.begin(), cs.end());
    double t = ts[ts.size() / 2], c = cs[cs.size() / 2];
    printf("cub SortPairs n=%ld bits=%d: %.3f ms (%.1f ps/pair); copy of keys+values %.3f ms; tmp %zu B\n", n, bits, t,
           t * 1e9 / n, c, tmp_bytes);
    return 0;
}
