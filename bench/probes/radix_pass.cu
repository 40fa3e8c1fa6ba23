// Probe: time the radix sort's passes (kernels/common/radix.cu) alone on 16.8 M keys, with
// one or two payload words, for tuning its constants without rebuilding the library:
//   nvcc -O3 -std=c++17 -arch=sm_90a -I kernels [-DRADIX_BLOCKS_PER_SM=4 ...] -o radix_pass bench/probes/radix_pass.cu
//   ./radix_pass            # prints µs per pass for uniform and stencil-like keys
#include <cstdio>
#include <vector>
#include <algorithm>
#include "common/radix.cu"
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1;} } while (0)

__global__ void make_keys(u32* k, u32* v, u32* v2, u64 n, int kind, u32 bits) {
    GRID_STRIDE(i, n) {
        u32 key;
        if (kind == 0) {  // uniform random
            u32 h = (u32)i * 2654435761u;
            h ^= h >> 15; h *= 2246822519u; h ^= h >> 13;
            key = h;
        } else {  // 7-point stencil on a 128^3 grid, in CSR order
            const i64 row = i / 7, off[7] = {-16384, -128, -1, 0, 1, 128, 16384};
            i64 c = row + off[i % 7];
            key = (u32)(c < 0 ? 0 : c);
        }
        k[i] = key & ((1u << bits) - 1u);
        v[i] = (u32)i;
        v2[i] = (u32)i * 3u;
    }
}

int main() {
    const u64 n = 1ull << 24;
    const u32 bits = 21, passes = 3;
    u32 *k[2], *v[2], *v2[2], *state;
    for (int i = 0; i < 2; ++i) { CK(cudaMalloc(&k[i], n * 4)); CK(cudaMalloc(&v[i], n * 4)); CK(cudaMalloc(&v2[i], n * 4)); }
    const u64 max_tiles = n / 1024 + 1;
    const size_t state_words = RADIX_STATE_HEAD + 512 * max_tiles;
    CK(cudaMalloc(&state, state_words * 4));
    cudaEvent_t ev[5];
    for (auto& e : ev) cudaEventCreate(&e);
    for (int kind = 0; kind < 2; ++kind) {
        for (int W = 1; W <= 2; ++W) {
            const u64 tile = W == 1 ? Tile<1>::SIZE : Tile<2>::SIZE, tiles = (n + tile - 1) / tile;
            const int shared = (int)(tile * (1 + W) * 4);
            cudaFuncSetAttribute(spblk_radix_pass_pairs_w1, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000);
            cudaFuncSetAttribute(spblk_radix_pass_pairs_w2, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000);
            std::vector<float> t[4];
            for (int rep = 0; rep < 12; ++rep) {
                make_keys<<<1024, 256>>>(k[0], v[0], v2[0], n, kind, bits);
                cudaMemset(state, 0, state_words * 4);
                cudaEventRecord(ev[0]);
                spblk_radix_counts_pairs<<<132 * 8, 256>>>(k[0], n, passes, state, nullptr);
                cudaEventRecord(ev[1]);
                int cur = 0;
                for (u32 p = 0; p < passes; ++p) {
                    if (W == 1)
                        spblk_radix_pass_pairs_w1<<<132 * 32, 256, shared>>>(k[cur], v[cur], v2[cur], n, 8 * p, p + 1, state, tiles,
                                                                    k[1 - cur], v[1 - cur], v2[1 - cur], nullptr, 0, 4, nullptr, 4, nullptr);
                    else
                        spblk_radix_pass_pairs_w2<<<132 * 32, 256, shared>>>(k[cur], v[cur], v2[cur], n, 8 * p, p + 1, state, tiles,
                                                                    k[1 - cur], v[1 - cur], v2[1 - cur], nullptr, 0, 4, nullptr, 4, nullptr);
                    cur = 1 - cur;
                    cudaEventRecord(ev[2 + p]);
                }
                cudaEventSynchronize(ev[4]);
                if (rep < 2) continue;
                for (int p = 0; p < 4; ++p) { float ms; cudaEventElapsedTime(&ms, ev[p], ev[p + 1]); t[p].push_back(ms * 1000); }
            }
            CK(cudaGetLastError());
            // check: sorted by the low 24 bits, stable
            std::vector<u32> hk(n), hv(n);
            cudaMemcpy(hk.data(), k[1], n * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(hv.data(), v[1], n * 4, cudaMemcpyDeviceToHost);
            u64 bad = 0;
            for (u64 i = 1; i < n; ++i) bad += hk[i - 1] > hk[i] || (hk[i - 1] == hk[i] && hv[i - 1] > hv[i]);
            printf("%s W=%d:", kind ? "stencil" : "uniform", W);
            const char* name[4] = {"counts", "pass1", "pass2", "pass3"};
            for (int p = 0; p < 4; ++p) { std::sort(t[p].begin(), t[p].end()); printf("  %s %.1f", name[p], t[p][t[p].size() / 2]); }
            printf("  us; %s\n", bad ? "NOT SORTED" : "sorted");
        }
    }
    return 0;
}
