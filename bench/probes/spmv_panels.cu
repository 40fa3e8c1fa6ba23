// Probe: can SpMV on random columns beat the L2 random-gather floor (bench/probes/gather.cu,
// ~118 G gathers/s on an H100) by staging x in shared memory a column panel at a time?
// A preprocess (on the host here) reorders A by (row block, column panel); a thread block
// owns a row block, keeps its partial y in shared memory, and for each panel loads that
// slice of x (coalesced, from L2) and adds its entries (16-bit local row and column, f32
// value: 8 bytes an entry, as CSR). x is read from L2 once per row block (rows/R times in
// all) instead of once per entry. Compared with a CSR kernel (8 lanes per row, x by __ldg)
// on the same matrix. Not used by the library; the shared-memory atomics make it
// nondeterministic (a real kernel would sort each panel's entries by row).
//   nvcc -O3 -std=c++17 -arch=sm_90a -o spmv_panels bench/probes/spmv_panels.cu
//   ./spmv_panels [rows=2^20] [deg=32] [R=8192] [W=8192]
// docs/spmv.md has the results.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cmath>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

__global__ void csr_g8(int m, const int* ptr, const int* col, const float* val, const float* x, float* y) {
    const int g = (blockIdx.x * blockDim.x + threadIdx.x) >> 3, l = threadIdx.x & 7;
    if (g >= m) return;
    float s = 0;
    for (int p = ptr[g] + l; p < ptr[g + 1]; p += 8) s += val[p] * __ldg(x + col[p]);
    for (int o = 4; o; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o, 8);
    if (l == 0) y[g] = s;
}

// seg[b * panels + p] .. seg[b * panels + p + 1]: entries of row block b in panel p.
__global__ void panels_kernel(int m, int n, int R, int W, int panels, const long long* seg,
                              const unsigned* rc, const float* val, const float* x, float* y) {
    extern __shared__ float sm[];
    float* ys = sm;          // R partial sums
    float* xs = sm + R;      // W values of x
    const int b = blockIdx.x;
    for (int i = threadIdx.x; i < R; i += blockDim.x) ys[i] = 0;
    for (int p = 0; p < panels; ++p) {
        __syncthreads();
        const int c0 = p * W, cw = min(W, n - c0);
        for (int i = threadIdx.x * 4; i < cw; i += blockDim.x * 4) {
            if (i + 4 <= cw) *(float4*)(xs + i) = __ldg((const float4*)(x + c0 + i));
            else for (int k = i; k < cw; ++k) xs[k] = x[c0 + k];
        }
        __syncthreads();
        const long long s = seg[(long long)b * panels + p], e = seg[(long long)b * panels + p + 1];
        for (long long q = s + threadIdx.x; q < e; q += blockDim.x) {
            const unsigned v = __ldcs(rc + q);
            atomicAdd(&ys[v >> 16], __ldcs(val + q) * xs[v & 0xffffu]);
        }
    }
    __syncthreads();
    const int r0 = b * R;
    for (int i = threadIdx.x; i < R && r0 + i < m; i += blockDim.x) y[r0 + i] = ys[i];
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main(int argc, char** argv) {
    const int m = argc > 1 ? atoi(argv[1]) : (1 << 20), deg = argc > 2 ? atoi(argv[2]) : 32;
    const int R = argc > 3 ? atoi(argv[3]) : 8192, W = argc > 4 ? atoi(argv[4]) : 8192;
    const int n = m;
    const long long nnz = (long long)m * deg;
    std::vector<int> ptr(m + 1), col(nnz);
    std::vector<float> val(nnz), x(n);
    unsigned long long st = 12345;
    auto rnd = [&]() { st = st * 6364136223846793005ull + 1442695040888963407ull; return (unsigned)(st >> 33); };
    for (int i = 0; i <= m; ++i) ptr[i] = (int)((long long)i * deg);
    for (long long p = 0; p < nnz; ++p) { col[p] = rnd() % n; val[p] = (rnd() % 1000) / 1000.0f; }
    for (int i = 0; i < m; ++i) std::sort(col.begin() + ptr[i], col.begin() + ptr[i + 1]);
    for (int j = 0; j < n; ++j) x[j] = (rnd() % 1000) / 1000.0f;
    // Reorder by (row block, panel, row).
    const int blocks = (m + R - 1) / R, panels = (n + W - 1) / W;
    std::vector<long long> seg((size_t)blocks * panels + 1, 0);
    for (int i = 0; i < m; ++i)
        for (int p = ptr[i]; p < ptr[i + 1]; ++p) seg[(size_t)(i / R) * panels + col[p] / W + 1]++;
    for (size_t k = 1; k < seg.size(); ++k) seg[k] += seg[k - 1];
    std::vector<long long> fill(seg.begin(), seg.end() - 1);
    std::vector<unsigned> rc(nnz);
    std::vector<float> pval(nnz);
    for (int i = 0; i < m; ++i)
        for (int p = ptr[i]; p < ptr[i + 1]; ++p) {
            const long long q = fill[(size_t)(i / R) * panels + col[p] / W]++;
            rc[q] = ((unsigned)(i % R) << 16) | (unsigned)(col[p] % W);
            pval[q] = val[p];
        }
    int *dptr, *dcol; float *dval, *dx, *dy, *dy2, *dpval; unsigned* drc; long long* dseg;
    CK(cudaMalloc(&dptr, (m + 1) * 4)); CK(cudaMalloc(&dcol, nnz * 4)); CK(cudaMalloc(&dval, nnz * 4));
    CK(cudaMalloc(&dx, n * 4)); CK(cudaMalloc(&dy, m * 4)); CK(cudaMalloc(&dy2, m * 4));
    CK(cudaMalloc(&drc, nnz * 4)); CK(cudaMalloc(&dpval, nnz * 4)); CK(cudaMalloc(&dseg, seg.size() * 8));
    CK(cudaMemcpy(dptr, ptr.data(), (m + 1) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dcol, col.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dval, val.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(drc, rc.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dpval, pval.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dseg, seg.data(), seg.size() * 8, cudaMemcpyHostToDevice));
    const int shared = (R + W) * 4;
    CK(cudaFuncSetAttribute(panels_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
    // A buffer larger than L2 to flush it between runs.
    char* flush; const size_t fb = 256ull << 20; CK(cudaMalloc(&flush, fb));
    cudaEvent_t a, bev; cudaEventCreate(&a); cudaEventCreate(&bev);
    std::vector<float> t1, t2;
    for (int rep = 0; rep < 25; ++rep) {
        float ms;
        CK(cudaMemsetAsync(flush, rep, fb));
        cudaEventRecord(a);
        csr_g8<<<(m * 8 + 255) / 256, 256>>>(m, dptr, dcol, dval, dx, dy);
        cudaEventRecord(bev); cudaEventSynchronize(bev); cudaEventElapsedTime(&ms, a, bev);
        if (rep >= 5) t1.push_back(ms * 1000);
        CK(cudaMemsetAsync(flush, rep, fb));
        cudaEventRecord(a);
        panels_kernel<<<blocks, 1024, shared>>>(m, n, R, W, panels, dseg, drc, dpval, dx, dy2);
        cudaEventRecord(bev); cudaEventSynchronize(bev); cudaEventElapsedTime(&ms, a, bev);
        if (rep >= 5) t2.push_back(ms * 1000);
    }
    CK(cudaGetLastError());
    std::vector<float> y1(m), y2(m);
    CK(cudaMemcpy(y1.data(), dy, m * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y2.data(), dy2, m * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < m; ++i) worst = std::max(worst, (double)fabsf(y1[i] - y2[i]) / (1e-6 + fabsf(y1[i])));
    const double bytes = nnz * 8.0 + (m + 1) * 4.0 + n * 4.0 + m * 4.0;
    printf("rows %d deg %d (nnz %lld), R %d W %d: %d row blocks x %d panels, %d B shared\n", m, deg, nnz, R, W,
           blocks, panels, shared);
    printf("  CSR, 8 lanes per row, x by __ldg: %8.1f us (%.0f GB/s by the fewest bytes)\n", median(t1),
           bytes / median(t1) / 1e3);
    printf("  panels, x in shared memory:       %8.1f us (%.0f GB/s); x read %.0f MB from L2; worst rel diff %.2e\n",
           median(t2), bytes / median(t2) / 1e3, (double)blocks * n * 4 / 1e6, worst);
    return 0;
}
