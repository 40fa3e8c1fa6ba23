// The SpSV analysis' copy of op(A)'s strict triangle (docs/spsv.md), in the order in which the
// solve (sync_free.cu) takes rows: position s holds the s-th row of the order, its entries name
// the positions of the rows they wait on, so that the solve's loads are one array each,
// coalesced within a wavefront, and a dependency in the same warp is a subtraction away. The
// level pass (order.cu) has counted each row's kept entries and found its diagonal (a missing
// entry reads as one, as cuSPARSE's does); the entries are then placed straight from op(A)'s
// pattern, each with its position in A's values (for updates) and its value.
#include "spsv/rows.cuh"

#define PLACE_BATCH 4  // steps of 32 entries whose loads a warp issues together

// For each position s of the solve order: its row's entry count (to be scanned into the solve
// copy's offsets; counts[n] = 0) and its diagonal's source; and where each level starts
// (level_start[L] = the first position of level L + 1: levels count from 1, positions sorted by
// level; level_start[levels] = n; tickets[3] = the number of levels: one_block.cu). One launch
// for both: on a small matrix the analysis is a chain of launches.
extern "C" __global__ void __launch_bounds__(256)
    spblk_spsv_arrange(i64 n, const u32* order, const u32* kept, const u32* diag_src, u32* counts,
                       u32* solve_diag_src, const u32* level, u32* level_start, u32* tickets) {
    GRID_STRIDE(s, n) {
        counts[s] = spsv_arrange_row(n, s, order, kept, diag_src, solve_diag_src, level, level_start, tickets);
        if (s == n - 1) counts[n] = 0;
    }
}

// Moves each kept entry of op(A) (ptr, col, base; `perm`, NULL: identity, maps its entries to
// A's) to its row's place in solve order, in the row's storage order for a lower triangle and
// reversed for an upper one (a backward solve: the row's nearest neighbours, solved last, then
// come last; the host reference sums in the same order): its column as the position of that
// row, its source in A's values, its value. A warp takes 32 rows at a time and
// walks their entries as one run; an entry's rank among its row's kept entries is the kept
// entries before it in the step (a ballot) plus those of earlier steps (a count per row).
template <class I, class T>
__device__ void spsv_place(u32 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, const T* a_val,
                           const u32* position, const u32* solve_ptr, u32* solve_col, u32* solve_src, T* val) {
    __shared__ u32 placed[8][32];  // per row of the warp's 32 (8 warps: 256 threads): kept entries placed so far
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const u32 below = (1u << lane) - 1;
    const u32 warps = gridDim.x * (blockDim.x / 32);
    for (u32 first = (blockIdx.x * (blockDim.x / 32) + w) * 32u; first < n; first += warps * 32u) {
        const u32 row = first + lane;
        u32 start = 0, len = 0, dest = 0;
        if (row < n) {
            start = (u32)((i64)ptr[row] - base);
            len = (u32)((i64)ptr[row + 1] - base - start);
            // Lower: the row's slots from its first; upper: from its last, backwards.
            dest = lower ? solve_ptr[position[row]] : solve_ptr[position[row] + 1] - 1;
        }
        placed[w][lane] = 0;
        __syncwarp();
        const RowRun run = row_run(start, len, lane);
        for (u32 batch = 0; batch < run.total; batch += 32 * PLACE_BATCH) {
            // The batch's loads first (its columns, then their positions and values): a long row
            // is walked by one warp, one latency per batch rather than two per step.
            int owner[PLACE_BATCH];
            u32 at[PLACE_BATCH], pos[PLACE_BATCH], src[PLACE_BATCH];
            bool keep[PLACE_BATCH];
            T v[PLACE_BATCH];
#pragma unroll
            for (int k = 0; k < PLACE_BATCH; ++k) {
                const u32 item = batch + 32u * k + lane;
                owner[k] = row_run_owner(run, item);
                at[k] = row_run_entry(run, owner[k], item);
                keep[k] = false;
                pos[k] = 0;
                if (item < run.total) {
                    const i64 r = (i64)(first + owner[k]);
                    const i64 c = (i64)col[at[k]] - base;
                    keep[k] = c != r && ((c < r) == (lower != 0));
                    pos[k] = (u32)c;
                }
            }
#pragma unroll
            for (int k = 0; k < PLACE_BATCH; ++k) {
                if (keep[k]) {
                    src[k] = perm ? perm[at[k]] : at[k];
                    pos[k] = position[pos[k]];
                    v[k] = a_val[src[k]];
                }
            }
#pragma unroll
            for (int k = 0; k < PLACE_BATCH; ++k) {
                const u32 item = batch + 32u * k + lane;
                const u32 to = __shfl_sync(SPBLK_FULL_MASK, dest, owner[k]);
                // Items past the total take owner 32: they share no row with a real one.
                const u32 same = __match_any_sync(SPBLK_FULL_MASK, item < run.total ? owner[k] : 32);
                const u32 kept = __ballot_sync(SPBLK_FULL_MASK, keep[k]);
                if (keep[k]) {
                    const u32 rank = placed[w][owner[k]] + __popc(kept & same & below);
                    const u32 q = lower ? to + rank : to - rank;
                    solve_col[q] = pos[k];
                    solve_src[q] = src[k];
                    val[q] = v[k];
                }
                __syncwarp();
                if (item < run.total && (same >> lane) == 1u) placed[w][owner[k]] += __popc(kept & same);  // the row's last lane
                __syncwarp();
            }
        }
    }
}

// The analysis' copy of the values, from A's (or an update's) nnz values (`src` NULL: the
// diagonal only); and, at the analysis, the `unset` words of the solve's published values set
// to all bits (not published), for solves that reset them themselves (sync_free.cu).
template <class T>
__device__ void spsv_values(i64 n, const u32* solve_ptr, const u32* src, const u32* diag_src, const T* a_val, T* val,
                            T* diag, u32* ready, i64 unset) {
    if (src) {
        const i64 count = (i64)solve_ptr[n];
        GRID_STRIDE(j, count) val[j] = a_val[src[j]];
    }
    GRID_STRIDE(s, n) {
        const u32 d = diag_src[s];
        diag[s] = d == SPSV_NONE ? T(1) : a_val[d];
    }
    GRID_STRIDE(w, unset) ready[w] = 0xffffffffu;
}

// updateMatrix(DIAGONAL): the n new diagonal values come in row order.
template <class T> __device__ void spsv_diagonal(i64 n, const u32* order, const T* values, T* diag) {
    GRID_STRIDE(s, n) diag[s] = values[order[s]];
}

#define SPSV_PLACE_ENTRY(I, tidx, T, tval)                                                                       \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_place_##tidx##_##tval(                         \
        u32 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, const T* a_val,                 \
        const u32* position, const u32* solve_ptr, u32* solve_col, u32* solve_src, T* val) {                     \
        spsv_place<I, T>(n, ptr, col, base, lower, perm, a_val, position, solve_ptr, solve_col, solve_src, val); \
    }

#define SPSV_VALUES_ENTRY(T, tval)                                                                               \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_values_##tval(                                  \
        i64 n, const u32* solve_ptr, const u32* src, const u32* diag_src, const T* a_val, T* val, T* diag,       \
        u32* ready, i64 unset) {                                                                                 \
        spsv_values<T>(n, solve_ptr, src, diag_src, a_val, val, diag, ready, unset);                              \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_diagonal_##tval(i64 n, const u32* order,        \
                                                                                const T* values, T* diag) {    \
        spsv_diagonal<T>(n, order, values, diag);                                                                 \
    }

SPSV_PLACE_ENTRY(int, i32, float, f32)
SPSV_PLACE_ENTRY(int, i32, double, f64)
SPSV_PLACE_ENTRY(long long, i64, float, f32)
SPSV_PLACE_ENTRY(long long, i64, double, f64)
SPSV_VALUES_ENTRY(float, f32)
SPSV_VALUES_ENTRY(double, f64)
