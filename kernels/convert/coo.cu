// The legacy index-array helpers spblkXcsr2coo and spblkXcoo2csr (32-bit indices; the
// identity permutation is spblk_iota_u32). Both read what they are given without checking
// it (the host backend checks); an offset or index out of range is skipped, never used to
// address memory outside the arrays.
#include "common/types.cuh"

// rows[p] = r + base for the entries p of row r: one warp per row.
extern "C" __global__ void __launch_bounds__(256)
    spblk_csr2coo_rows(const int* ptr, i64 m, i64 base, i64 nnz, int* rows) {
    const int lane = threadIdx.x & 31;
    for (i64 r = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < m; r += (i64)gridDim.x * (blockDim.x >> 5)) {
        const i64 end = min((i64)ptr[r + 1] - base, nnz);
        for (i64 p = max((i64)ptr[r] - base, (i64)0) + lane; p < end; p += 32) rows[p] = (int)(r + base);
    }
}

// ptr[r] = base + the number of entries whose row is below r, for r = 0 ..= m, by binary
// search in the sorted row indices.
extern "C" __global__ void __launch_bounds__(256)
    spblk_coo2csr_offsets(const int* rows, i64 nnz, i64 m, i64 base, int* ptr) {
    GRID_STRIDE(r, (u64)m + 1) {
        i64 lo = 0, hi = nnz;
        while (lo < hi) {
            const i64 mid = (lo + hi) >> 1;
            if ((i64)rows[mid] - base < (i64)r) lo = mid + 1; else hi = mid;
        }
        ptr[r] = (int)(lo + base);
    }
}
