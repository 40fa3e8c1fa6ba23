// Probe: what keeps a warp-per-row CSR SpMV below cuSPARSE on long rows (block matrices of
// ~1000 entries per row reach 85 % of copy bandwidth against cuSPARSE's 97 %)? Kernel variants
// on one matrix (f32, rows of `len` entries with columns in `blocks` runs of 32, x of `cols`
// elements), timed beside cuSPARSE's SpMV in the same process, L2 flushed before each run
// (NOFLUSH=1: back to back).
//   nvcc -O3 -std=c++17 -arch=sm_90a -o spmv_long_rows bench/probes/spmv_long_rows.cu -lcusparse
//   ./spmv_long_rows [rows=65536] [len=1000] [cols=65536] [shape=0: fixed, 1: ragged, 2: bench's blocks]
// docs/spmv.md has the results. Not used by the library.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cusparse.h>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)
#define CS(x) do { cusparseStatus_t e = (x); if (e) { printf("%s: %d\n", #x, (int)e); exit(1);} } while (0)

__device__ __forceinline__ float wsum(float s) {
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    return s;
}

// V0: a warp per row, one entry per lane and round, 4 rounds unrolled (the library's row groups).
__global__ void v0(int m, const int* ptr, const int* col, const float* val, const float* x, float* y) {
    const int lane = threadIdx.x & 31, warps = gridDim.x * blockDim.x / 32;
    for (int i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < m; i += warps) {
        const int s = ptr[i], e = ptr[i + 1];
        float sum = 0;
#pragma unroll 4
        for (int p = s + lane; p < e; p += 32) sum += val[p] * x[col[p]];
        sum = wsum(sum);
        if (lane == 0) y[i] = sum;
    }
}

// V0 as the library writes it (kernels/spmv/csr.cu): 64-bit loop counters, base and stride
// arithmetic per entry, alpha/beta at the store.
__global__ void v0_lib(long long m, const int* __restrict__ ptr, const int* __restrict__ col,
                       const float* __restrict__ val, long long base, const float* __restrict__ x, long long incx,
                       float* __restrict__ y, long long incy, float alpha, float beta) {
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) / 32;
    for (long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; i < m; i += warps) {
        const long long s = (long long)ptr[i] - base, e = (long long)ptr[i + 1] - base;
        float sum = 0;
#pragma unroll 4
        for (long long p = s + lane; p < e; p += 32) sum += val[p] * x[((long long)col[p] - base) * incx];
        sum = wsum(sum);
        if (lane == 0) y[i * incy] = beta == 0.f ? alpha * sum : alpha * sum + beta * y[i * incy];
    }
}

// V1: a warp per row, 16-byte loads (4 entries per lane and round), U rounds in flight.
template <int U>
__global__ void v1(int m, const int* ptr, const int* col, const float* val, const float* x, float* y) {
    const int lane = threadIdx.x & 31, warps = gridDim.x * blockDim.x / 32;
    for (int i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < m; i += warps) {
        const int s = ptr[i], e = ptr[i + 1];
        const int a = min(e, (s + 3) & ~3), b = a + ((e - a) & ~3);
        float sum = 0;
        if (s + lane < a) sum += val[s + lane] * __ldg(x + col[s + lane]);
        int p = a + 4 * lane;
        for (; p + 128 * (U - 1) < b; p += 128 * U) {
            float4 v[U];
            int4 c[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                v[u] = __ldcs((const float4*)(val + p + 128 * u));
                c[u] = __ldcs((const int4*)(col + p + 128 * u));
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
                sum += v[u].x * __ldg(x + c[u].x) + v[u].y * __ldg(x + c[u].y) + v[u].z * __ldg(x + c[u].z) +
                       v[u].w * __ldg(x + c[u].w);
        }
        for (; p < b; p += 128) {
            const float4 v = __ldcs((const float4*)(val + p));
            const int4 c = __ldcs((const int4*)(col + p));
            sum += v.x * __ldg(x + c.x) + v.y * __ldg(x + c.y) + v.z * __ldg(x + c.z) + v.w * __ldg(x + c.w);
        }
        if (b + lane < e) sum += val[b + lane] * __ldg(x + col[b + lane]);
        sum = wsum(sum);
        if (lane == 0) y[i] = sum;
    }
}

// V2: entries cut into fixed chunks of 32 * 4 * K per warp whatever the rows (merge-like): a
// warp streams its chunk with 16-byte loads, all K rounds issued first; the row of each lane's
// 4 entries from a binary search of the chunk's rows (long rows: at most 2 rows per chunk).
// Each round's sums per row are added to y with atomics: speed only, not deterministic.
template <int K>
__global__ void v2(int m, long long nnz, const int* ptr, const int* col, const float* val, const float* x, float* y) {
    const int lane = threadIdx.x & 31;
    const long long chunk = 128LL * K, chunks = (nnz + chunk - 1) / chunk;
    const long long warps = (long long)gridDim.x * blockDim.x / 32;
    for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32; w < chunks; w += warps) {
        const long long c0 = w * chunk;
        float4 v[K];
        int4 c[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const long long p = min(c0 + 128 * k + 4 * lane, nnz - 4);
            v[k] = __ldcs((const float4*)(val + p));
            c[k] = __ldcs((const int4*)(col + p));
        }
        // Row of the chunk's first entry (lane 0 searches; rows are long).
        int lo = 0, hi = m - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (ptr[mid] <= c0) lo = mid; else hi = mid - 1;
        }
        int row = lo;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const long long p = c0 + 128 * k + 4 * lane;
            const float t = p + 3 < nnz ? v[k].x * __ldg(x + c[k].x) + v[k].y * __ldg(x + c[k].y) +
                                              v[k].z * __ldg(x + c[k].z) + v[k].w * __ldg(x + c[k].w)
                                        : 0.f;
            // Rows of lengths divisible by 4 keep a lane's 4 entries in one row.
            while (row + 1 < m && ptr[row + 1] <= p) ++row;
            const int r0 = __shfl_sync(0xffffffffu, row, 0), r31 = __shfl_sync(0xffffffffu, row, 31);
            for (int r = r0; r <= r31; ++r) {
                const float part = wsum(row == r ? t : 0.f);
                if (lane == 0 && part != 0.f) atomicAdd(y + r, part);
            }
        }
    }
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

int main(int argc, char** argv) {
    const int m = argc > 1 ? atoi(argv[1]) : 65536, len = argc > 2 ? atoi(argv[2]) : 1000;
    const int n = argc > 3 ? atoi(argv[3]) : 65536;
    // shape 0: rows of `len`; 1: lengths uniform in [len/2, 3len/2], multiples of 4; 2: the bench's
    // block generator (blocks of 32, each block nonzero with probability len / n, entries of a
    // nonzero block with probability 0.3, rows scrambled; lengths not multiples of 4: v2 is off).
    const int shape = argc > 4 ? atoi(argv[4]) : 0;
    const bool ragged = shape == 1;
    unsigned long long st = 7;
    auto rnd = [&]() { st = st * 6364136223846793005ull + 1442695040888963407ull; return (unsigned)(st >> 33); };
    std::vector<int> ptr(m + 1, 0);
    std::vector<std::vector<int>> block_rows;
    if (shape == 2) {
        const int nb = n / 32;
        std::vector<std::vector<int>> bcols(m / 32 + 1);
        for (auto& b : bcols)
            for (int j = 0; j < nb; ++j)
                if (rnd() % 1000000 < (unsigned)(1e6 * len / (0.3 * n))) b.push_back(j);
        std::vector<int> perm(m);
        for (int i = 0; i < m; ++i) perm[i] = i;
        for (int i = m - 1; i > 0; --i) std::swap(perm[i], perm[rnd() % (i + 1)]);
        block_rows.resize(m);
        for (int i = 0; i < m; ++i)
            for (int bc : bcols[perm[i] / 32])
                for (int j = bc * 32; j < bc * 32 + 32; ++j)
                    if (rnd() % 1000 < 300) block_rows[i].push_back(j);
        for (int i = 0; i < m; ++i) ptr[i + 1] = ptr[i] + (int)block_rows[i].size();
    } else {
        for (int i = 0; i < m; ++i) ptr[i + 1] = ptr[i] + (ragged ? (len / 2 + (int)(rnd() % (len + 1))) / 4 * 4 : len);
    }
    const long long nnz = ptr[m];
    std::vector<int> col(nnz);
    std::vector<float> val(nnz), x(n);
    for (int i = 0; i < m && shape == 2; ++i) std::copy(block_rows[i].begin(), block_rows[i].end(), col.begin() + ptr[i]);
    for (int i = 0; i < m && shape != 2; ++i) {
        std::vector<int> c;
        const int li = ptr[i + 1] - ptr[i];
        while ((int)c.size() < li) {
            const int b0 = (rnd() % (n / 32)) * 32;
            for (int k = 0; k < 32 && (int)c.size() < li; ++k) c.push_back(b0 + k);
        }
        std::sort(c.begin(), c.end());
        std::copy(c.begin(), c.end(), col.begin() + ptr[i]);
    }
    for (auto& v : val) v = (rnd() % 1000) / 1000.f;
    for (auto& v : x) v = (rnd() % 1000) / 1000.f;
    int *dptr, *dcol; float *dval, *dx, *dy;
    CK(cudaMalloc(&dptr, (m + 1) * 4)); CK(cudaMalloc(&dcol, nnz * 4)); CK(cudaMalloc(&dval, nnz * 4));
    CK(cudaMalloc(&dx, n * 4)); CK(cudaMalloc(&dy, m * 4));
    CK(cudaMemcpy(dptr, ptr.data(), (m + 1) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dcol, col.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dval, val.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
    cusparseHandle_t h; CS(cusparseCreate(&h));
    cusparseSpMatDescr_t A; cusparseDnVecDescr_t X, Y;
    CS(cusparseCreateCsr(&A, m, n, nnz, dptr, dcol, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CS(cusparseCreateDnVec(&X, n, dx, CUDA_R_32F)); CS(cusparseCreateDnVec(&Y, m, dy, CUDA_R_32F));
    float one = 1, zero = 0; size_t bs = 0;
    CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F,
                               CUSPARSE_SPMV_ALG_DEFAULT, &bs));
    void* buf; CK(cudaMalloc(&buf, bs + 16));
    char* flush; const size_t fb = 256ull << 20; CK(cudaMalloc(&flush, fb));
    // NOFLUSH=1: back to back, as spblk-bench times (the matrix is larger than L2 either way).
    const bool flush_l2 = getenv("NOFLUSH") == nullptr;
    std::vector<float> ref(m);
    const double bytes = nnz * 8.0 + (m + 1) * 4.0 + n * 4.0 + m * 4.0;
    auto time = [&](const char* name, auto launch) {
        std::vector<float> t;
        cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
        for (int r = 0; r < 25; ++r) {
            if (flush_l2) CK(cudaMemsetAsync(flush, r, fb));
            CK(cudaMemsetAsync(dy, 0, m * 4));
            cudaEventRecord(a); launch(); cudaEventRecord(b); cudaEventSynchronize(b);
            float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 5) t.push_back(ms * 1000);
        }
        CK(cudaGetLastError());
        std::vector<float> got(m); CK(cudaMemcpy(got.data(), dy, m * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (int i = 0; i < m; ++i) worst = std::max(worst, (double)fabsf(got[i] - ref[i]) / (1e-3 + fabsf(ref[i])));
        printf("  %-34s %8.1f us  %6.0f GB/s  worst rel %.1e\n", name, median(t), bytes / median(t) / 1e3, worst);
    };
    // Reference first (cuSPARSE), then the variants.
    CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
    CK(cudaMemcpy(ref.data(), dy, m * 4, cudaMemcpyDeviceToHost));
    printf("rows %d (shape %d), %s%d entries each (runs of 32 columns), %d columns: %.0f MB by the fewest bytes\n", m,
           shape, shape ? "about " : "", len, n, bytes / 1e6);
    time("cuSPARSE SpMV (default)", [&] {
        cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
    });
    time("v0 warp per row (library)", [&] { v0<<<132 * 32, 256>>>(m, dptr, dcol, dval, dx, dy); });
    time("v0 as the library writes it", [&] { v0_lib<<<132 * 32, 256>>>(m, dptr, dcol, dval, 0, dx, 1, dy, 1, 1.f, 0.f); });
    time("v1 16-byte loads, 1 round", [&] { v1<1><<<132 * 32, 256>>>(m, dptr, dcol, dval, dx, dy); });
    time("v1 16-byte loads, 2 rounds", [&] { v1<2><<<132 * 32, 256>>>(m, dptr, dcol, dval, dx, dy); });
    time("v1 16-byte loads, 4 rounds", [&] { v1<4><<<132 * 32, 256>>>(m, dptr, dcol, dval, dx, dy); });
    if (shape != 2) {
        time("v2 chunks of 512, atomics", [&] { v2<4><<<132 * 32, 256>>>(m, nnz, dptr, dcol, dval, dx, dy); });
        time("v2 chunks of 1024, atomics", [&] { v2<8><<<132 * 32, 256>>>(m, nnz, dptr, dcol, dval, dx, dy); });
    }
    CK(cudaMemsetAsync(flush, 0, fb));
    std::vector<float> t;
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int r = 0; r < 25; ++r) {
        CK(cudaMemsetAsync(flush, r, fb));
        cudaEventRecord(a); CK(cudaMemcpyAsync(dcol, dval, nnz * 4, cudaMemcpyDeviceToDevice)); cudaEventRecord(b);
        cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 5) t.push_back(ms * 1000);
    }
    printf("  copy of the values (read+write %.0f MB): %.1f us, %.0f GB/s\n", nnz * 8.0 / 1e6, median(t),
           nnz * 8.0 / median(t) / 1e3);
    return 0;
}
