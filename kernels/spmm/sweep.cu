// CSR SpMM in column slabs (SPBLK_SPMM_ALG_CSR_SWEEP, docs/spmm.md "Column sweep").
//
// Where op(B) is many times the L2 and A's columns are spread over all of it (uniform rows of
// 128 entries over 1 M columns), the row kernel reads nearly every B row from DRAM: the rows in
// flight sit at unrelated columns. Here a warp keeps SWEEP_ROWS rows' accumulators in registers
// and walks its rows' entries slab by slab (slab s: columns [s*slab_cols, (s+1)*slab_cols)), and
// the host launches one band of rows at a time, sized to the warps that fit: every warp of a band
// starts at slab 0 together and they move through the slabs at about the same pace, so the B
// rows in use at any time are one slab's, which the L2 holds.
//
// Each lane adds its four columns' products in the row's storage order (slabs follow the
// positions `spblk_spmm_sweep_slabs` found, in storage order), so the sums are the row
// kernel's, bit for bit, and deterministic; long rows go through the row method's own path.
#include "common/vec.cuh"
#include "common/warp.cuh"

// Rows per warp: 4 rows x 4 columns of accumulators per lane keep 4 blocks of 256 threads per
// SM (H100 prototype: 4 rows 13.3 ms against 8 rows 14.3 ms on uniform deg 128, N = 128).
#define SWEEP_ROWS 4
#define SWEEP_MIN_BLOCKS(In) (sizeof(In) == 8 ? 2 : 4)

// off[(s - 1) * rows + i] = the position, from row i's start, where slab s begins: the first
// entry at or after slab s-1's start whose column is at least s * slab_cols. Positions only
// grow, so the slabs cover the row whatever its column order (sorted rows: exactly the columns
// of the slab).
template <class I>
__device__ void sweep_slabs(i64 rows, const I* __restrict__ ptr, const I* __restrict__ col, i64 base, int slabs,
                            i64 slab_cols, u32* __restrict__ off) {
    GRID_STRIDE(i, rows) {
        const i64 start = (i64)ptr[i] - base, end = (i64)ptr[i + 1] - base;
        i64 p = start;
        for (int s = 1; s < slabs; ++s) {
            const i64 limit = (i64)s * slab_cols;
            while (p < end && (i64)col[p] - base < limit) ++p;
            off[(i64)(s - 1) * rows + i] = (u32)(p - start);
        }
    }
}

// The lane's four elements of op(B) row k (row-major, ld ldb) from column j0: one vector load
// when `vec`, else element by element with columns past n read as 0.
template <class In, class T>
__device__ __forceinline__ void load_b4(const In* __restrict__ B, i64 ldb, i64 k, i64 j0, i64 n, bool vec, T* b) {
    if (vec) {
        Load4<In, T>::run(B + k * ldb + j0, b);
    } else {
#pragma unroll
        for (int v = 0; v < 4; ++v) b[v] = j0 + v < n ? to_compute(B[k * ldb + j0 + v]) : T(0);
    }
}

// acc += the entries t .. t+3 (below cnt) of the window (column kc, value a on lane t): a row's
// four B loads go out before any is used.
template <class In, class T, class I>
__device__ __forceinline__ void sweep_quad(const In* __restrict__ B, i64 ldb, i64 j0, i64 n, bool vec, I kc, T a,
                                           int t, int cnt, T* acc) {
    I k[4];
    T av[4], b[4][4];
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int src = t + q < cnt ? t + q : (cnt > 0 ? cnt - 1 : 0);
        k[q] = __shfl_sync(SPBLK_FULL_MASK, kc, src);
        av[q] = __shfl_sync(SPBLK_FULL_MASK, a, src);
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) load_b4<In, T>(B, ldb, (i64)k[q], j0, n, vec, b[q]);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        if (t + q < cnt) {
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[v] += av[q] * b[q][v];
        }
    }
}

// Rows row0 .. row0+rows of C (a band), columns j_tile*128 .. +128: warp w takes rows
// row0 + w*SWEEP_ROWS ...; lane r < SWEEP_ROWS holds row r's bounds. Per slab every row's first
// 32 entries are loaded at once (SWEEP_ROWS loads in flight), then rows go in pairs (eight B
// loads in flight); entries past 32 in one slab (rare where this kernel is chosen) follow one
// quad at a time. op(B) is row-major here (the caller copies a column-major one first).
// Rows longer than long_threshold are left to the row method's long-row path (kernels/spmm/
// csr.cu): listed once (by the launches of column tile 0), neither summed nor stored here, so
// that a hub row does not hold its band's launch open.
template <class In, class Out, class I>
__device__ void spmm_sweep(i64 m, i64 row0, i64 rows, i64 n, i64 j_tile, int slabs, const I* __restrict__ ptr,
                           const u32* __restrict__ off, const I* __restrict__ col, const In* __restrict__ val, i64 base,
                           const In* __restrict__ B, i64 ldb, int b_vec, Out* __restrict__ C, i64 ldc, int c_row,
                           const typename ComputeOf<In>::type* alpha_dev, typename ComputeOf<In>::type alpha_h,
                           const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h,
                           i64 long_threshold, i64* long_list, u32* long_count) {
    typedef typename ComputeOf<In>::type T;
    const int lane = threadIdx.x & 31;
    const i64 first = (((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * SWEEP_ROWS;
    if (first >= rows) return;  // whole warps
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const i64 i0 = row0 + first, j0 = j_tile * 128 + (i64)lane * 4;
    const bool vec = b_vec && j0 + 4 <= n;
    const bool own = lane < SWEEP_ROWS && first + lane < rows;
    const i64 start = own ? (i64)ptr[i0 + lane] - base : 0;
    const i64 own_len = own ? (i64)ptr[i0 + lane + 1] - base - start : 0;
    const bool long_row = long_list && own_len > long_threshold;
    if (long_row && j_tile == 0) long_list[atomicAdd(long_count, 1u)] = i0 + lane;
    const unsigned long_rows = __ballot_sync(SPBLK_FULL_MASK, long_row);
    const bool mine = own && !long_row;
    const u32 len = mine ? (u32)own_len : 0;
    T acc[SWEEP_ROWS][4];
#pragma unroll
    for (int r = 0; r < SWEEP_ROWS; ++r)
#pragma unroll
        for (int v = 0; v < 4; ++v) acc[r][v] = T(0);
    u32 lo = 0;
    for (int s = 0; s < slabs; ++s) {
        const u32 hi = s == slabs - 1 ? len : (mine ? off[(i64)s * m + i0 + lane] : 0);
        i64 at[SWEEP_ROWS];
        int cnt[SWEEP_ROWS];
        I kc[SWEEP_ROWS];
        T a[SWEEP_ROWS];
#pragma unroll
        for (int r = 0; r < SWEEP_ROWS; ++r) {
            at[r] = __shfl_sync(SPBLK_FULL_MASK, start + (i64)lo, r);
            cnt[r] = (int)__shfl_sync(SPBLK_FULL_MASK, hi - lo, r);
            kc[r] = 0;
            a[r] = T(0);
            if (lane < cnt[r]) {
                kc[r] = (I)((i64)col[at[r] + lane] - base);
                a[r] = to_compute(val[at[r] + lane]);
            }
        }
#pragma unroll
        for (int r = 0; r < SWEEP_ROWS; r += 2) {
            const int ca = cnt[r] < 32 ? cnt[r] : 32, cb = cnt[r + 1] < 32 ? cnt[r + 1] : 32;
            for (int t = 0; t < (ca > cb ? ca : cb); t += 4) {  // ca, cb: the same on every lane
                if (t < ca) sweep_quad<In, T, I>(B, ldb, j0, n, vec, kc[r], a[r], t, ca, acc[r]);
                if (t < cb) sweep_quad<In, T, I>(B, ldb, j0, n, vec, kc[r + 1], a[r + 1], t, cb, acc[r + 1]);
            }
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                for (int p0 = 32; p0 < cnt[r + h]; p0 += 32) {
                    const int c = cnt[r + h] - p0 < 32 ? cnt[r + h] - p0 : 32;
                    I k2 = 0;
                    T a2 = T(0);
                    if (lane < c) {
                        k2 = (I)((i64)col[at[r + h] + p0 + lane] - base);
                        a2 = to_compute(val[at[r + h] + p0 + lane]);
                    }
                    for (int t = 0; t < c; t += 4) sweep_quad<In, T, I>(B, ldb, j0, n, vec, k2, a2, t, c, acc[r + h]);
                }
            }
        }
        lo = hi;
    }
#pragma unroll
    for (int r = 0; r < SWEEP_ROWS; ++r) {
        if (first + r < rows && !(long_rows >> r & 1u))
            store_tile<T, Out, 4>(C, ldc, c_row, i0 + r, j0, n, acc[r], alpha, beta);
    }
}

#define SWEEP_SLABS_ENTRY(I, tidx)                                                                          \
    extern "C" __global__ void spblk_spmm_sweep_slabs_##tidx(i64 rows, const I* ptr, const I* col, i64 base, \
                                                            int slabs, i64 slab_cols, u32* off) {          \
        sweep_slabs<I>(rows, ptr, col, base, slabs, slab_cols, off);                                        \
    }
SWEEP_SLABS_ENTRY(int, i32)
SWEEP_SLABS_ENTRY(long long, i64)

#define SWEEP_ENTRY(In, Out, tin, tout, I, tidx)                                                                   \
    extern "C" __global__ void __launch_bounds__(256, SWEEP_MIN_BLOCKS(In)) spblk_spmm_sweep_##tin##_##tout##_##tidx(                 \
        i64 m, i64 row0, i64 rows, i64 n, i64 j_tile, int slabs, const I* ptr, const u32* off, const I* col,       \
        const In* val, i64 base, const In* B, i64 ldb, int b_vec, Out* C, i64 ldc, int c_row,                      \
        const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha, const ComputeOf<In>::type* beta_dev,      \
        ComputeOf<In>::type beta, i64 long_threshold, i64* long_list, u32* long_count) {                           \
        spmm_sweep<In, Out, I>(m, row0, rows, n, j_tile, slabs, ptr, off, col, val, base, B, ldb, b_vec, C, ldc,   \
                               c_row, alpha_dev, alpha, beta_dev, beta, long_threshold, long_list, long_count);    \
    }
SPBLK_FOR_PRECISIONS(SWEEP_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SWEEP_ENTRY, long long, i64)
