// A long row staged in shared memory (ilu0.cu, ic0.cu; docs/factor.md, session 30). A row longer
// than a lane takes (rows.cuh) is a warp's ticket. Its dependencies (the rows k its lower
// entries name) are taken 32 at a time, and their entries walked as one run (common/row_run.cuh):
// where each entry of row k meets row i is found in the staged columns, and its value loaded,
// for a window of entries at once, before the warp applies the dependencies one after another.
// Only the values of rows not yet published are polled again then. (Until session 29 the warp
// found row k's entries beyond the first four one dependency at a time, by binary searches in
// global memory, a round trip or more per dependency: chains of dense rows, as bcsstk13's or
// n1024-l1's, took 15-20 µs a row against NVIDIA's 2-3.)
#pragma once
#include "common/row_run.cuh"
#include "factor/rows.cuh"

// Rows of at most this many staged entries (ILU0: the row; IC0: its lower part) take the staged
// path; longer ones the global one. Entries of the dependencies' rows staged per window.
#define FACTOR_STAGE_ROW 128
#define FACTOR_STAGE_ITEMS 64

template <class T> struct FactorStage {
    u32 col[FACTOR_STAGE_ROW];  // row i's columns, zero-based
    T val[FACTOR_STAGE_ROW];    // row i's values as the factorization goes
    u32 pos[FACTOR_STAGE_ITEMS];  // where a window entry's column sits in row i (FACTOR_NONE: not)
    u32 at[FACTOR_STAGE_ITEMS];   // the entry's position in A
    typename Ready<T>::Bits bits[FACTOR_STAGE_ITEMS];  // its value as first loaded
    T prod[FACTOR_STAGE_ITEMS];  // IC0: a dependency's products, compacted in column order

    // Stages row i's `len` entries from `s`, the values from the work copy.
    __device__ __forceinline__ void load(u32 s, u32 len, const int* c, int base, const T* work) {
        for (u32 x = threadIdx.x & 31; x < len; x += 32) {
            col[x] = (u32)(c[s + x] - base);
            val[x] = work[s + x];
        }
        __syncwarp();
    }

    // The staged position of column j in [lo, hi), or FACTOR_NONE (columns ascend).
    __device__ __forceinline__ u32 find(u32 lo, u32 hi, u32 j) const {
        const u32 end = hi;
        while (lo < hi) {
            const u32 mid = (lo + hi) / 2;
            if (col[mid] < j) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < end && col[lo] == j ? lo : FACTOR_NONE;
    }

    // Window entry x's value: as first loaded, or polled if its row was not yet published.
    __device__ __forceinline__ T value(u32 x, const T* out) const {
        return Ready<T>::none(bits[x]) ? factor_poll(out + at[x]) : Ready<T>::value(bits[x]);
    }
};

// A batch's dependency, held by its lane: row k (the staged column at the lane's position), its
// diagonal's position and value as first loaded, and the part [from, from + items) of row k the
// row reads (`part(k, dk, from, items)`: ILU0 its U part, IC0 its lower part).
template <class T> struct StagedDep {
    u32 dk = FACTOR_NONE, from = 0, items = 0;
    typename Ready<T>::Bits key = 0;

    template <class Part>
    __device__ __forceinline__ StagedDep(const FactorStage<T>& st, u32 q0, u32 count, const u32* diag, const T* out,
                                         Part part) {
        const u32 lane = threadIdx.x & 31;
        if (lane < count) {
            const u32 k = st.col[q0 + lane];
            dk = diag[k];
            part(k, dk, from, items);
            if (dk != FACTOR_NONE) key = Ready<T>::load(out + dk);
        }
    }

    // Row k's diagonal value (a missing one reads as one), polled if not yet published.
    __device__ __forceinline__ T pivot(const T* out) const {
        return dk == FACTOR_NONE ? T(1) : Ready<T>::none(key) ? factor_poll(out + dk) : Ready<T>::value(key);
    }
};

// One batch of up to 32 dependencies, staged positions q0 + t for t < count; the lane t < count
// gives its dependency's entries [from, from + items) of A. `find(q, j)`: where column j meets
// row i for the dependency at staged position q. `piece(t, x0, x1, first, last)` applies
// dependency t's window entries [x0, x1) (window positions); it is called for t ascending,
// every dependency at least once (first: its first call; last: its last), by the whole warp.
template <class T, class Find, class Piece>
__device__ __forceinline__ void factor_staged_batch(FactorStage<T>& st, u32 q0, u32 count, u32 from, u32 items,
                                                    const int* col, int base, const T* out, Find find, Piece piece) {
    const u32 lane = threadIdx.x & 31;
    const RowRun run = row_run(from, items, (int)lane);
    u32 t = 0;
    for (u32 w0 = 0;; w0 += FACTOR_STAGE_ITEMS) {
        const u32 w_end = min(w0 + FACTOR_STAGE_ITEMS, run.total);
        // Every entry of the window: where it meets row i, and its value, loads all in flight.
        for (u32 xb = w0; xb < w_end; xb += 32) {
            const u32 x = xb + lane;
            const int owner = row_run_owner(run, x);
            const u32 p = row_run_entry(run, owner, x);
            if (x < w_end) {
                const u32 at = find(q0 + (u32)owner, (u32)(col[p] - base));
                st.pos[x - w0] = at;
                st.at[x - w0] = p;
                st.bits[x - w0] = at != FACTOR_NONE ? Ready<T>::load(out + p) : typename Ready<T>::Bits(0);
            }
        }
        __syncwarp();
        // The dependencies in order, as far as this window holds their entries.
        for (; t < count; ++t) {
            const u32 b = __shfl_sync(SPBLK_FULL_MASK, run.excl, (int)t);
            const u32 e = __shfl_sync(SPBLK_FULL_MASK, run.incl, (int)t);
            if (b >= w_end && w_end < run.total) break;
            piece(t, max(b, w0) - w0, min(e, w_end) - w0, b >= w0, e <= w_end);
            if (e > w_end) break;
        }
        if (w_end == run.total) return;
        __syncwarp();
    }
}

// The warp's ordered sum of the products its lanes hold where `hit`, in lane order, added to
// `sum`: the same sum in every lane (IC0's sums are added one term at a time in column order).
template <class T> __device__ __forceinline__ T factor_ordered_sum(T sum, T prod, bool hit) {
    for (u32 m = __ballot_sync(SPBLK_FULL_MASK, hit); m; m &= m - 1) {
        sum = add_rn(sum, __shfl_sync(SPBLK_FULL_MASK, prod, __ffs(m) - 1));
    }
    return sum;
}
