// Transpose of a square compressed pattern that is structurally symmetric, with strictly
// ascending indices in every row (stencils, finite elements, undirected graphs): the
// transpose has the same offsets and the same indices, so only the values move. Entry k, in
// row j at index i, becomes the transpose's entry (j, i), whose value is A(i, j): found in row
// i (read whole when short, else binary-searched). One read of the pattern and a gather of the
// values, where the radix sort moves every entry three times.
//
// The kernel checks what it relies on as it goes: an index that is not above the one before
// it in its row, or a row i without j, sets `*failed` and the conversion's sort chain (whose
// kernels take `failed` as their `needed` word, types.cuh) does the whole work instead,
// overwriting what this kernel wrote. Where the pattern qualifies, the result is exactly the
// sort's: within a column the rows ascend, each value from its own entry. Blocks first check a
// sample of rows and then look at `*failed` before each tile, so an unsymmetric matrix costs
// little more than a launch.
#include "common/types.cuh"
#include "convert/elem.cuh"
#include "convert/rows.cuh"

// Where row i holds j: rows of up to 8 entries are read whole (one round trip), longer ones
// binary-searched, ROWS_ITEMS searches in lockstep so that their loads are in flight together.
// pos[k] = the position, or ~0u where the row does not hold it.
#define MIRROR_SCAN 8
template <class I>
__device__ __forceinline__ void find_mirrors(const I* idx, i64 base, u32 (&lo)[ROWS_ITEMS], u32 (&hi)[ROWS_ITEMS],
                                             const u32 (&want)[ROWS_ITEMS], u32 (&pos)[ROWS_ITEMS]) {
    u32 end_of[ROWS_ITEMS];
#pragma unroll
    for (int k = 0; k < ROWS_ITEMS; ++k) {
        pos[k] = ~0u;
        end_of[k] = hi[k];
        if (hi[k] - lo[k] <= MIRROR_SCAN) {
#pragma unroll
            for (int m = 0; m < MIRROR_SCAN; ++m)
                if (lo[k] + m < hi[k] && (u64)((i64)__ldg(idx + lo[k] + m) - base) == want[k]) pos[k] = lo[k] + m;
            lo[k] = hi[k];
        }
    }
    for (;;) {
        bool more = false;
#pragma unroll
        for (int k = 0; k < ROWS_ITEMS; ++k) {
            if (lo[k] < hi[k]) {
                const u32 mid = lo[k] + ((hi[k] - lo[k]) >> 1);
                if ((u64)((i64)__ldg(idx + mid) - base) < want[k]) lo[k] = mid + 1;
                else hi[k] = mid;
                more |= lo[k] < hi[k];
                if (lo[k] == hi[k] && lo[k] < end_of[k] && (u64)((i64)__ldg(idx + lo[k]) - base) == want[k])
                    pos[k] = lo[k];
            }
        }
        if (!more) break;
    }
}

// Before its tiles, every thread checks one row's first entry (rows spread evenly over the
// grid): a pattern that is not symmetric almost always fails there, in a few round trips
// (~16 µs on R-MAT, whose hub rows take 16 search steps), and its blocks return before any tile.
template <class I> __device__ bool sampled_row_fails(const I* ptr, const I* idx, i64 n, i64 base) {
    // Every block samples (rows again, where there are fewer rows than threads), so that each
    // block of an unsymmetric pattern stops on its own sample, not on another block's word.
    const u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x, threads = (u64)gridDim.x * blockDim.x;
    const u64 r = threads < (u64)n ? g * (u64)n / threads : g % (u64)n;
    const i64 s = (i64)ptr[r] - base, e = (i64)ptr[r + 1] - base;
    if (e <= s) return false;
    const i64 c = (i64)idx[s] - base;
    if (c < 0 || c >= n || (e - s > 1 && (i64)idx[s + 1] - base <= c)) return true;
    i64 lo = (i64)ptr[c] - base, hi = (i64)ptr[c + 1] - base;
    const i64 end = hi;
    while (lo < hi) {
        const i64 mid = (lo + hi) >> 1;
        if ((i64)idx[mid] - base < (i64)r) lo = mid + 1;
        else hi = mid;
    }
    return lo >= end || (i64)idx[lo] - base != (i64)r;
}

// Tiles are taken grid-stride, so that the tiles in flight are neighbours and the rows their
// searches and gathers touch stay in L2 (contiguous runs per block doubled the DRAM traffic).
// The row holding each tile's first entry is found for 32 tiles at once, a warp per tile.
// Within a tile, entry k of thread t is first + k * 256 + t: consecutive lanes on consecutive
// entries, so that loads and stores coalesce and the gathers of neighbouring lanes share
// sectors (eight consecutive entries per thread made every warp access touch 32 sectors:
// 600 µs on Poisson 2-D, bound by L1 wavefronts).
template <class I>
__device__ void convert_mirror(const I* ptr, const I* idx, i64 n, i64 in_base, u64 nnz, const void* val,
                               int elem_bytes, I* out_ptr, I* out_idx, void* out_val, i64 out_base, u32* perm,
                               u32* failed) {
    __shared__ TileRowsShared sh;
    __shared__ u32 first_rows[32];
    __shared__ u32 stop;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (__syncthreads_or(sampled_row_fails(ptr, idx, n, in_base))) {
        if (threadIdx.x == 0) *(volatile u32*)failed = 1u;
        return;
    }
    const u64 threads = (u64)gridDim.x * blockDim.x;
    for (u64 r = (u64)blockIdx.x * blockDim.x + threadIdx.x; r <= (u64)n; r += threads)
        out_ptr[r] = (I)((i64)ptr[r] - in_base + out_base);
    const u64 tiles = (nnz + ROWS_TILE - 1) / ROWS_TILE;
    for (u64 j = 0;; ++j) {
        const u64 t = blockIdx.x + j * gridDim.x;
        if (t >= tiles) break;
        if (threadIdx.x == 0) stop = *(volatile u32*)failed;
        __syncthreads();
        if (stop) return;
        if (j % 32 == 0) {
            for (int m = warp; m < 32; m += 8) {
                const u64 tt = t + m * gridDim.x;
                if (tt >= tiles) break;
                const i64 r = row_holding(ptr, in_base, tt * ROWS_TILE, n);
                if (lane == 0) first_rows[m] = (u32)r;
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) sh.first_row = first_rows[j % 32];
        const u64 first = t * ROWS_TILE, end = min(nnz, first + ROWS_TILE);
        u32 row[ROWS_ITEMS];
        tile_rows(ptr, n, in_base, first, end, sh, row, false);
        // Back to shared memory in entry order, then read lane-contiguously.
        uint4* rows_out = (uint4*)(sh.row_at + threadIdx.x * ROWS_ITEMS);
        rows_out[0] = make_uint4(row[0], row[1], row[2], row[3]);
        rows_out[1] = make_uint4(row[4], row[5], row[6], row[7]);
        __syncthreads();
        u32 col[ROWS_ITEMS], lo[ROWS_ITEMS], hi[ROWS_ITEMS];
        bool bad = false;
#pragma unroll
        for (int k = 0; k < ROWS_ITEMS; ++k) {
            const u32 at = k * 256 + threadIdx.x;
            const u64 e = min(first + at, end - 1);  // past the end: repeat the tile's last entry
            row[k] = sh.row_at[e - first];
            const i64 c = (i64)__ldg(idx + e) - in_base;
            bad |= c < 0 || c >= n;
            col[k] = (u32)min(max(c, (i64)0), n - 1);
            lo[k] = (u32)((i64)__ldg(ptr + col[k]) - in_base);
            hi[k] = (u32)((i64)__ldg(ptr + col[k] + 1) - in_base);
            // Strictly ascending within the row: the entry before, if it is in the same row (the
            // lane to the left holds it, except at lane 0).
            i64 before = __shfl_up_sync(SPBLK_FULL_MASK, c, 1);
            if (first + at < end && e > 0) {
                const bool same =
                    e > first ? sh.row_at[e - 1 - first] == row[k] : e > (u64)((i64)__ldg(ptr + row[k]) - in_base);
                if (lane == 0) before = (i64)__ldg(idx + e - 1) - in_base;
                bad |= same && before >= c;
            }
        }
        u32 pos[ROWS_ITEMS];
        find_mirrors(idx, in_base, lo, hi, row, pos);
#pragma unroll
        for (int k = 0; k < ROWS_ITEMS; ++k) {
            const u64 e = first + k * 256 + threadIdx.x;
            if (e >= end) break;
            bad |= pos[k] == ~0u;
            if (bad) break;
            out_idx[e] = (I)((i64)col[k] + out_base);
            if (out_val) copy_elem(val, out_val, pos[k], e, elem_bytes);
            if (perm) perm[e] = pos[k];
        }
        if (bad) *(volatile u32*)failed = 1u;
        __syncthreads();  // the shared rows, `first_rows` and `stop` are rewritten for the next tile
    }
}

#define MIRROR_ENTRY(I, tag)                                                                              \
    extern "C" __global__ void __launch_bounds__(256, 4) spblk_convert_mirror_##tag(const I* ptr, const I* idx, i64 n, i64 in_base, \
                                                          u64 nnz, const void* val, int elem_bytes,       \
                                                          I* out_ptr, I* out_idx, void* out_val,          \
                                                          i64 out_base, u32* perm, u32* failed) {         \
        convert_mirror<I>(ptr, idx, n, in_base, nnz, val, elem_bytes, out_ptr, out_idx, out_val, out_base, \
                          perm, failed);                                                                  \
    }
MIRROR_ENTRY(int, i32)
MIRROR_ENTRY(long long, i64)
