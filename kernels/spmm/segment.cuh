// One group's product of a run of A's entries with op(B): the inner loop that the CSR row
// kernels (spmm/csr.cu) and RoDe's kernels (spmm/rode.cu) share.
#pragma once
#include "common/vec.cuh"
#include "common/warp.cuh"

// A group of G lanes, VEC columns each, in a grid-stride walk over (item, column tile) pairs
// (an item is a row, a chunk or a segment). Consecutive groups take consecutive column tiles of
// one item, so they share its entries through L1.
struct GroupTiles {
    int glane;
    unsigned gmask;
    i64 tile_w, tiles, groups, first;
    __device__ __forceinline__ GroupTiles(int G, int VEC, i64 n)
        : glane(threadIdx.x & (G - 1)),
          gmask(group_mask(G)),
          tile_w((i64)G * VEC),
          tiles((n + (i64)G * VEC - 1) / ((i64)G * VEC)),
          groups(((i64)gridDim.x * blockDim.x) / G),
          first(((i64)blockIdx.x * blockDim.x + threadIdx.x) / G) {}
    // The item of walk position g (one tile, n <= G * VEC, needs no division).
    __device__ __forceinline__ i64 item(i64 g) const { return tiles == 1 ? g : g / tiles; }
    // The lane's first column at walk position g of `item`.
    __device__ __forceinline__ i64 col0(i64 g, i64 item, int VEC) const {
        return (g - item * tiles) * tile_w + (i64)glane * VEC;
    }
};

// The walk of a grid-stride kernel whose grid runs in waves of `wave_blocks` blocks (the blocks
// that fit on the GPU at once): wave v sweeps its own contiguous share of [0, total),
// grid-stride within the wave. The items in flight at any time are then neighbours (rows next
// to each other share B's rows, which come from L2 once; a plain grid-stride walk over more
// blocks than fit makes every wave stride over the whole matrix and read them again), while
// the GPU still balances blocks as earlier ones finish. The group's positions are
// begin, begin + step, ... below end.
struct WaveWalk {
    i64 begin, end, step;
    __device__ __forceinline__ WaveWalk(i64 total, int G, unsigned wave_blocks) {
        const i64 grid = gridDim.x, wave = blockIdx.x / wave_blocks, first = wave * wave_blocks;
        const i64 last = first + wave_blocks < grid ? first + wave_blocks : grid;
        // Wave shares in proportion to their blocks (the last wave may be smaller).
        const i64 lo = total * first / grid, hi = total * last / grid;
        begin = lo + ((i64)(blockIdx.x - first) * blockDim.x + threadIdx.x) / G;
        end = hi;
        step = (last - first) * blockDim.x / G;
    }
};

// acc += A(row segment [s, e)) * op(B)(:, j0 .. j0+VEC), entries in storage order. The
// group loads G entries at a time and broadcasts them; U of their B rows are loaded before
// any is used (positions past the segment load the segment's last B row again and add
// nothing), so U loads per lane are in flight. VEC4: the lane's VEC = 4 elements are one
// aligned vector load (chosen per lane outside the loop, so the loop has no branch).
// PRE: the next G entries' (column, value) are loaded before the current ones are used
// (RoDe's sub-block pipelining: A's loads of step p + 1 overlap B's loads of step p).
// Each lane adds its columns' products in entry order, whatever G, U and PRE.
template <class In, class T, class I, int VEC, int U, bool VEC4, bool PRE>
__device__ __forceinline__ void spmm_segment(i64 s, i64 e, i64 n, const I* __restrict__ col,
                                             const In* __restrict__ val, i64 base, const In* __restrict__ B,
                                             i64 ldb, int b_row, i64 j0, int glane, int G, unsigned gmask,
                                             T* acc) {
    I kc_next = 0;  // zero-based column, in A's index type (one shuffle for 32-bit indices)
    T a_next = 0;
    if (PRE && s + glane < e) {
        kc_next = (I)((i64)col[s + glane] - base);
        a_next = to_compute(val[s + glane]);
    }
    for (i64 p0 = s; p0 < e; p0 += G) {
        I kc = 0;
        T a = 0;
        if (PRE) {
            kc = kc_next;
            a = a_next;
            if (p0 + G + glane < e) {
                kc_next = (I)((i64)col[p0 + G + glane] - base);
                a_next = to_compute(val[p0 + G + glane]);
            }
        } else if (p0 + glane < e) {
            kc = (I)((i64)col[p0 + glane] - base);
            a = to_compute(val[p0 + glane]);
        }
        const int cnt = e - p0 < G ? (int)(e - p0) : G;
        for (int u = 0; u < cnt; u += U) {
            I k[U];
            T av[U], b[U][VEC];
#pragma unroll
            for (int q = 0; q < U; ++q) {
                const int src = u + q < cnt ? u + q : cnt - 1;
                k[q] = __shfl_sync(gmask, kc, src, G);
                av[q] = __shfl_sync(gmask, a, src, G);
            }
#pragma unroll
            for (int q = 0; q < U; ++q) {
                if (VEC4) {
                    Load4<In, T>::run(B + (i64)k[q] * ldb + j0, b[q]);
                } else {
#pragma unroll
                    for (int v = 0; v < VEC; ++v) {
                        const i64 j = j0 + v;
                        b[q][v] = j < n ? to_compute(b_row ? B[(i64)k[q] * ldb + j] : B[(i64)k[q] + j * ldb]) : T(0);
                    }
                }
            }
#pragma unroll
            for (int q = 0; q < U; ++q) {
                if (u + q < cnt) {
#pragma unroll
                    for (int v = 0; v < VEC; ++v) acc[v] += av[q] * b[q][v];
                }
            }
        }
    }
}

// The segment with the lane's vector loads when it can take them.
template <class In, class T, class I, int VEC, int U, bool PRE = false>
__device__ __forceinline__ void spmm_segment_any(i64 s, i64 e, i64 n, const I* __restrict__ col,
                                                 const In* __restrict__ val, i64 base, const In* __restrict__ B,
                                                 i64 ldb, int b_row, i64 j0, bool vec, int glane, int G,
                                                 unsigned gmask, T* acc) {
    if (VEC == 4 && vec)
        spmm_segment<In, T, I, VEC, U, true, PRE>(s, e, n, col, val, base, B, ldb, b_row, j0, glane, G, gmask, acc);
    else
        spmm_segment<In, T, I, VEC, U, false, PRE>(s, e, n, col, val, base, B, ldb, b_row, j0, glane, G, gmask, acc);
}
