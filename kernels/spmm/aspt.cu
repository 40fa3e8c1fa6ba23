// ASpT SpMM (SPBLK_SPMM_ALG_ASPT, docs/aspt-spmm.md), after Hong et al., PPoPP'19: the rows
// are in panels of 32 similar rows (the ASpT plan of kernels/sddmm/aspt.cu); in each panel the
// columns that two or more of its rows use are *dense*. A thread block takes one panel and one
// tile of C's columns; it stages the op(B) rows of the panel's dense columns in shared memory a
// chunk at a time (cp.async, two buffers, the next chunk loading while this one is used), so
// each such row comes from L2 once per panel instead of once per entry. Each warp has four of
// the panel's rows, summed by lane groups of 8, 16 or 32 lanes (the tile's width / 4): first
// over the dense entries, taken from a window of 32 listed entries kept in shared memory, then
// over the sparse entries with op(B) read from memory.
//
// Every row's sum runs in the plan's order (dense entries by column, then sparse entries by
// column), whatever the column tile: results are deterministic, and the host reference
// (src/backend/host/aspt.rs) sums in the same order.
//
// The plan's SpMM arrays are derived on the device from the base plan's panel lists (entries by
// panel, then column): aspt_spmm_marks finds the dense columns and the sort keys (2 * row rank,
// + 1 for sparse entries), a scan numbers the dense columns, aspt_spmm_columns lists them, a
// stable radix sort puts each row's entries together, aspt_spmm_entries and
// aspt_spmm_half_ptr write the rows' lists and bounds.
#include "common/mma.cuh"
#include "common/vec.cuh"
#include "common/warp.cuh"

// An entry key's low bits are its row's slot in the panel (AsptPlan::SLOT_BITS, PANEL).
#define ASPT_SPMM_SLOT_BITS 5
#define ASPT_SPMM_PANEL 32
// Shared memory of one chunk of staged op(B) rows; two chunks per block (3 blocks per SM).
#define ASPT_STAGE_BYTES 32768
#define ASPT_ROWS_PER_WARP 4
#define ASPT_U 4
// Blocks per SM the registers must allow: three (the shared memory's limit), two for f64.
#define ASPT_MIN_BLOCKS(In) (sizeof(In) == 8 ? 2 : 3)

// The panel of listed entry e: the last p with panel_ptr[p] <= e.
__device__ __forceinline__ u64 aspt_panel_of(const u32* __restrict__ panel_ptr, u64 panels, u64 e) {
    u64 lo = 0, hi = panels;  // panel_ptr[lo] <= e < panel_ptr[hi]
    while (hi - lo > 1) {
        const u64 mid = (lo + hi) >> 1;
        if (panel_ptr[mid] <= e) lo = mid; else hi = mid;
    }
    return lo;
}

// start[e] = 1 where a dense column's run begins; key[e] = 2 * row rank (+1 when sparse);
// val[e] = e; *dense_entries += the dense entries.
extern "C" __global__ void spblk_aspt_spmm_marks(u64 nnz, u64 panels, const u32* panel_ptr, const u32* ent_key,
                                                 u32* start, u32* key, u32* val, unsigned long long* dense_entries) {
    GRID_STRIDE(e, nnz) {
        const u64 p = aspt_panel_of(panel_ptr, panels, e);
        const u64 ps = panel_ptr[p], pe = panel_ptr[p + 1];
        const u32 col = ent_key[e] >> ASPT_SPMM_SLOT_BITS;
        const bool same_prev = e > ps && (ent_key[e - 1] >> ASPT_SPMM_SLOT_BITS) == col;
        const bool same_next = e + 1 < pe && (ent_key[e + 1] >> ASPT_SPMM_SLOT_BITS) == col;
        const bool dense = same_prev || same_next;
        const u64 rank = p * ASPT_SPMM_PANEL + (ent_key[e] & (ASPT_SPMM_PANEL - 1));
        start[e] = dense && !same_prev;
        key[e] = (u32)(2 * rank + !dense);
        val[e] = (u32)e;
        const unsigned votes = __ballot_sync(__activemask(), dense);
        if ((threadIdx.x & 31) == __ffs(__activemask()) - 1 && votes) atomicAdd(dense_entries, __popc(votes));
    }
}

// After the exclusive scan of start (nnz + 1 words, the total last): each panel's first dense
// column, and the dense columns.
extern "C" __global__ void spblk_aspt_spmm_columns(u64 nnz, u64 panels, const u32* panel_ptr, const u32* ent_key,
                                                   const u32* scanned, u32* dcol_ptr, u32* dcols) {
    GRID_STRIDE(i, nnz + panels + 1) {
        if (i < nnz) {
            if (scanned[i + 1] != scanned[i]) dcols[scanned[i]] = ent_key[i] >> ASPT_SPMM_SLOT_BITS;
        } else {
            dcol_ptr[i - nnz] = scanned[panel_ptr[i - nnz]];
        }
    }
}

// Entry i of the rows' lists (sorted by key, carrying the listed entry e): its position in A's
// values and its index (a dense entry's column number in its panel, else its column).
extern "C" __global__ void spblk_aspt_spmm_entries(u64 nnz, const u32* key, const u32* val, const u32* base_pos,
                                                   const u32* base_key, const u32* scanned, const u32* dcol_ptr,
                                                   u32* ent_pos, u32* ent_idx) {
    GRID_STRIDE(i, nnz) {
        const u32 e = val[i];
        ent_pos[i] = base_pos[e];
        if (key[i] & 1) {
            ent_idx[i] = base_key[e] >> ASPT_SPMM_SLOT_BITS;
        } else {
            // The dense run holding e: runs begun at or before it, less one.
            const u32 run = scanned[e + 1] - 1;
            ent_idx[i] = run - dcol_ptr[(key[i] >> 1) / ASPT_SPMM_PANEL];
        }
    }
}

// half_ptr[h] = the first i with key[i] >= h, for h in [0, halves].
extern "C" __global__ void spblk_aspt_spmm_half_ptr(u64 nnz, u64 halves, const u32* key, u32* half_ptr) {
    GRID_STRIDE(i, nnz + 1) {
        const u64 lo = i == 0 ? 0 : (u64)key[i - 1] + 1;
        const u64 hi = i == nnz ? halves : (u64)key[i];
        for (u64 h = lo; h <= hi; ++h) half_ptr[h] = (u32)i;
    }
}

// The default preprocess's estimate of the plan (src/ops/mod.rs, aspt_for_default): block b
// takes panel b * stride of the rows' panel order and counts, with its columns hashed into a
// shared-memory table (keys, then counts), out[0] += its entries, out[1] += those in columns it
// uses twice or more, out[2] += those columns. A panel with more distinct columns than the table
// holds well is abandoned and counted all sparse (out[3] += its entries): an underestimate.
#define ASPT_ESTIMATE_BITS 13
#define ASPT_ESTIMATE_SLOTS (1 << ASPT_ESTIMATE_BITS)
#define ASPT_ESTIMATE_PROBES 64
template <class I>
__device__ void aspt_spmm_estimate(u64 m, u64 stride, const u32* __restrict__ order, const I* __restrict__ ptr,
                                   const I* __restrict__ col, i64 base, unsigned long long* out) {
    extern __shared__ u32 table[];
    u32* keys = table;
    u32* counts = table + ASPT_ESTIMATE_SLOTS;
    __shared__ unsigned long long sums[3];
    __shared__ int full;
    for (int s = threadIdx.x; s < ASPT_ESTIMATE_SLOTS; s += blockDim.x) keys[s] = 0xffffffffu, counts[s] = 0;
    if (threadIdx.x < 3) sums[threadIdx.x] = 0;
    if (threadIdx.x == 0) full = 0;
    __syncthreads();
    const u64 first = (u64)blockIdx.x * stride * ASPT_SPMM_PANEL;
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    // A thread stops inserting after its first failure (the table is crowded by then), so an
    // abandoned panel costs each thread one failed probe sequence at most.
    u64 entries = 0;
    bool failed = false;
    for (u64 j = first + (threadIdx.x >> 5); j < min(first + ASPT_SPMM_PANEL, m); j += warps) {
        const u32 r = order[j];
        const i64 p1 = (i64)ptr[r + 1] - base;
        for (i64 p = (i64)ptr[r] - base + lane; p < p1; p += 32) {
            ++entries;
            if (failed) continue;
            const u32 c = (u32)((i64)col[p] - base);
            u32 h = (c * 2654435761u) >> (32 - ASPT_ESTIMATE_BITS);
            int probe = 0;
            for (; probe < ASPT_ESTIMATE_PROBES; ++probe, h = (h + 1) & (ASPT_ESTIMATE_SLOTS - 1)) {
                const u32 k = atomicCAS(&keys[h], 0xffffffffu, c);
                if (k == 0xffffffffu || k == c) break;
            }
            failed = probe == ASPT_ESTIMATE_PROBES;
            if (failed) atomicOr(&full, 1);
            else atomicAdd(&counts[h], 1u);
        }
    }
    atomicAdd(&sums[0], (unsigned long long)entries);
    __syncthreads();
    if (full) {
        if (threadIdx.x == 0) atomicAdd(out, sums[0]), atomicAdd(out + 3, sums[0]);
        return;
    }
    u64 dense = 0, columns = 0;
    for (int s = threadIdx.x; s < ASPT_ESTIMATE_SLOTS; s += blockDim.x)
        if (counts[s] >= 2) dense += counts[s], ++columns;
    atomicAdd(&sums[1], (unsigned long long)dense);
    atomicAdd(&sums[2], (unsigned long long)columns);
    __syncthreads();
    if (threadIdx.x < 3) atomicAdd(out + threadIdx.x, sums[threadIdx.x]);
}
#define ASPT_ESTIMATE_ENTRY(I, tidx)                                                                               \
    extern "C" __global__ void spblk_aspt_spmm_estimate_##tidx(u64 m, u64 stride, const u32* order, const I* ptr, \
                                                               const I* col, i64 base, unsigned long long* out) { \
        aspt_spmm_estimate<I>(m, stride, order, ptr, col, base, out);                                            \
    }
ASPT_ESTIMATE_ENTRY(int, i32)
ASPT_ESTIMATE_ENTRY(long long, i64)

// The rows of chunk c (dense columns [c*dc, c*dc + dc) of the panel) and op(B)'s columns
// [j_lo, j_lo + NT) into `stage` (row-major, NT wide): 16-byte cp.async copies when `cp16`
// (row-major op(B), rows 16-byte aligned), else element loads; columns past n are zero.
template <class In, int NT>
__device__ __forceinline__ void aspt_stage(In* stage, const u32* __restrict__ dcols, u32 first, u32 count, i64 n,
                                           i64 j_lo, const In* __restrict__ B, i64 ldb, int b_row, bool cp16) {
    if (cp16) {
        constexpr int PER = 16 / sizeof(In), VECS = NT / PER;
        for (u32 t = threadIdx.x; t < count * VECS; t += blockDim.x) {
            const u32 d = t / VECS, v = t % VECS;
            const i64 j = j_lo + (i64)v * PER;
            const i64 left = n - j;
            const int bytes = left <= 0 ? 0 : (left >= PER ? 16 : (int)left * (int)sizeof(In));
            const In* src = bytes ? B + (i64)dcols[first + d] * ldb + j : B;
            tc::cp_async16(stage + d * NT + v * PER, src, bytes);
        }
    } else {
        for (u32 t = threadIdx.x; t < count * NT; t += blockDim.x) {
            const u32 d = b_row ? t / NT : t % count, jj = b_row ? t % NT : t / count;
            const i64 j = j_lo + jj, k = dcols[first + d];
            stage[d * NT + jj] = j < n ? (b_row ? B[k * ldb + j] : B[k + j * ldb]) : In(0.0f);
        }
    }
}

// VEC elements of the compute type from `p` (shared memory): the lane's columns.
template <class In, class T, int VEC>
__device__ __forceinline__ void aspt_row_part(const In* p, T* b) {
    if (VEC == 4) {
        Load4<In, T>::run(p, b);
    } else {
        b[0] = to_compute(p[0]);
    }
}

// A listed entry in a row's window: its value, and where its column's staged op(B) row starts
// (bytes from the first buffer: the buffer of its chunk, then its row there), so that the
// multiply reads it with one shared load and adds the lane's offset.
template <class T> struct AsptEntry {
    T a;
    u32 at;
};
// Entries per row window (32) plus one, so that the windows of a warp's rows start in
// different banks.
#define ASPT_WINDOW_STRIDE 33

// Lanes of G per row (VEC columns each: a tile of NT = G * VEC columns). A warp has
// ASPT_ROWS_PER_WARP rows; each of its 32 / G lane groups owns P = G / 8 of them and takes
// them one after another, so every per-row array below has a compile-time index.
template <class In, class Out, int VEC, int G>
__device__ void aspt_spmm(i64 m, i64 n, u64 panels, const u32* __restrict__ order, const u32* __restrict__ half_ptr,
                          const u32* __restrict__ ent_pos, const u32* __restrict__ ent_idx,
                          const u32* __restrict__ dcol_ptr, const u32* __restrict__ dcols, const In* __restrict__ val,
                          const In* __restrict__ B, i64 ldb, int b_row, int cp16, Out* __restrict__ C, i64 ldc,
                          int c_row, const typename ComputeOf<In>::type* alpha_dev,
                          typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                          typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    constexpr int NT = G * VEC;
    constexpr u32 ROW_BYTES = NT * sizeof(In);
    constexpr u32 DC = ASPT_STAGE_BYTES / ROW_BYTES;  // staged rows per chunk (a power of two)
    constexpr int P = ASPT_ROWS_PER_WARP * G / 32;     // rows per lane group
    constexpr int J = 32 / G;                           // window entries per lane
    constexpr int U = G == 32 ? 2 : ASPT_U;             // staged rows in flight (registers)
    extern __shared__ __align__(16) unsigned char aspt_smem[];
    // Chunk c uses buffer c & 1; the rows' windows follow the two buffers.
    auto buffer = [&](u32 c) { return reinterpret_cast<In*>(aspt_smem + (c & 1) * ASPT_STAGE_BYTES); };
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int grp = lane / G, gl = lane % G;
    const unsigned gmask = group_mask(G);
    // Row s of this group is the warp's row grp * P + s.
    AsptEntry<T>* windows = reinterpret_cast<AsptEntry<T>*>(aspt_smem + 2 * ASPT_STAGE_BYTES) +
                            (warp * ASPT_ROWS_PER_WARP + grp * P) * ASPT_WINDOW_STRIDE;
    // Consecutive blocks take consecutive panels of one column tile.
    const u64 p = blockIdx.x % panels;
    const i64 j_lo = (i64)(blockIdx.x / panels) * NT;
    const i64 j0 = j_lo + (i64)gl * VEC;
    const i64 rank0 = (i64)p * ASPT_SPMM_PANEL + warp * ASPT_ROWS_PER_WARP + grp * P;
    const u32 d0 = dcol_ptr[p], dense = dcol_ptr[p + 1] - d0;
    const u32 chunks = (dense + DC - 1) / DC;
    if (chunks > 0) {
        aspt_stage<In, NT>(buffer(0), dcols, d0, dense < DC ? dense : DC, n, j_lo, B, ldb, b_row, cp16);
        tc::cp_async_commit();
    }

    // Per row s (uniform in the group): its next dense entry, the end of its dense entries and
    // its window's first entry; per lane the column indices of window entries gl + j * G
    // (~0 past the dense entries: indices ascend, so a chunk's entries are a prefix), and the
    // index and position of the same entries of the next window, loaded ahead so that a
    // reload waits for the values' gather alone.
    u32 cur[P], dend[P], wbase[P], widx[P][J], nidx[P][J], npos[P][J];
    auto prefetch = [&](int s, u32 at) {
#pragma unroll
        for (int j = 0; j < J; ++j) {
            const u32 e = at + gl + j * G;
            nidx[s][j] = 0xffffffffu;
            npos[s][j] = 0;
            if (e < dend[s]) {
                nidx[s][j] = ent_idx[e];
                npos[s][j] = ent_pos[e];
            }
        }
    };
    // The window at `at` from the prefetched entries, then the next one's prefetch.
    auto load_window = [&](int s, u32 at) {
        wbase[s] = at;
#pragma unroll
        for (int j = 0; j < J; ++j) {
            const u32 idx = nidx[s][j];
            widx[s][j] = idx;
            if (idx != 0xffffffffu) {
                AsptEntry<T> w;
                w.a = to_compute(val[npos[s][j]]);
                w.at = ((idx / DC) & 1) * ASPT_STAGE_BYTES + (idx % DC) * ROW_BYTES;
                windows[s * ASPT_WINDOW_STRIDE + gl + j * G] = w;
            }
        }
        __syncwarp(gmask);
        prefetch(s, at + 32);
    };
#pragma unroll
    for (int s = 0; s < P; ++s) {
        cur[s] = dend[s] = 0;
        if (rank0 + s < m) {
            cur[s] = half_ptr[2 * (rank0 + s)];
            dend[s] = half_ptr[2 * (rank0 + s) + 1];
        }
        prefetch(s, cur[s]);
        load_window(s, cur[s]);
    }
    T acc[P][VEC];
#pragma unroll
    for (int s = 0; s < P; ++s) {
#pragma unroll
        for (int v = 0; v < VEC; ++v) acc[s][v] = T(0);
    }
    const unsigned char* lane_b = aspt_smem + gl * VEC * sizeof(In);

    for (u32 c = 0; c < chunks; ++c) {
        if (c + 1 < chunks) {
            const u32 first = (c + 1) * DC, count = dense - first < DC ? dense - first : DC;
            aspt_stage<In, NT>(buffer(c + 1), dcols, d0 + first, count, n, j_lo, B, ldb, b_row, cp16);
            tc::cp_async_commit();
            tc::cp_async_wait<1>();
        } else {
            tc::cp_async_wait<0>();
        }
        __syncthreads();
        const u32 hi = (c + 1) * DC;
#pragma unroll
        for (int s = 0; s < P; ++s) {
            while (cur[s] < dend[s]) {
                // The window's entries of this chunk (a prefix of it).
                u32 k = 0;
#pragma unroll
                for (int j = 0; j < J; ++j) k += __popc(__ballot_sync(gmask, widx[s][j] < hi));
                const u32 stop = wbase[s] + k < dend[s] ? wbase[s] + k : dend[s];
                const AsptEntry<T>* w = windows + s * ASPT_WINDOW_STRIDE - wbase[s];
                u32 t = cur[s];
                for (; t + U <= stop; t += U) {
                    AsptEntry<T> e[U];
                    T b[U][VEC];
#pragma unroll
                    for (int u = 0; u < U; ++u) e[u] = w[t + u];
#pragma unroll
                    for (int u = 0; u < U; ++u)
                        aspt_row_part<In, T, VEC>(reinterpret_cast<const In*>(lane_b + e[u].at), b[u]);
#pragma unroll
                    for (int u = 0; u < U; ++u) {
#pragma unroll
                        for (int v = 0; v < VEC; ++v) acc[s][v] += e[u].a * b[u][v];
                    }
                }
                for (; t < stop; ++t) {
                    const AsptEntry<T> e = w[t];
                    T b[VEC];
                    aspt_row_part<In, T, VEC>(reinterpret_cast<const In*>(lane_b + e.at), b);
#pragma unroll
                    for (int v = 0; v < VEC; ++v) acc[s][v] += e.a * b[v];
                }
                cur[s] = stop;
                if (k < 32 || stop >= dend[s]) break;
                __syncwarp(gmask);  // the window is read before it is replaced
                load_window(s, stop);
            }
        }
        __syncthreads();  // the buffer is refilled by the next round's copies
    }

    // The sparse entries: op(B)'s rows from memory, G at a time per group, ASPT_U in flight.
    const bool vec = VEC == 4 && b_row && j0 + VEC <= n;
#pragma unroll
    for (int s = 0; s < P; ++s) {
        const u32 e1 = rank0 + s < m ? half_ptr[2 * (rank0 + s) + 2] : 0;
        for (u32 w = dend[s]; w < e1; w += G) {
            u32 kc = 0;
            T av = T(0);
            if (w + gl < e1) {
                kc = ent_idx[w + gl];
                av = to_compute(val[ent_pos[w + gl]]);
            }
            const int cnt = e1 - w < (u32)G ? (int)(e1 - w) : G;
            for (int t = 0; t < cnt; t += ASPT_U) {
                T b[ASPT_U][VEC], a[ASPT_U];
#pragma unroll
                for (int u = 0; u < ASPT_U; ++u) {
                    const int src = t + u < cnt ? t + u : cnt - 1;
                    const i64 k = __shfl_sync(gmask, kc, src, G);
                    a[u] = __shfl_sync(gmask, av, src, G);
                    if (vec) {
                        Load4<In, T>::run(B + k * ldb + j0, b[u]);
                    } else {
#pragma unroll
                        for (int v = 0; v < VEC; ++v) {
                            const i64 j = j0 + v;
                            b[u][v] = j < n ? to_compute(b_row ? B[k * ldb + j] : B[k + j * ldb]) : T(0);
                        }
                    }
                }
#pragma unroll
                for (int u = 0; u < ASPT_U; ++u) {
                    if (t + u < cnt) {
#pragma unroll
                        for (int v = 0; v < VEC; ++v) acc[s][v] += a[u] * b[u][v];
                    }
                }
            }
        }
    }

    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
#pragma unroll
    for (int s = 0; s < P; ++s) {
        if (rank0 + s < m) store_tile<T, Out, VEC>(C, ldc, c_row, (i64)order[rank0 + s], j0, n, acc[s], alpha, beta);
    }
}

#define ASPT_SPMM_ENTRY_V(In, Out, tin, tout, VEC, G)                                                         \
    extern "C" __global__ void __launch_bounds__(256, ASPT_MIN_BLOCKS(In)) spblk_spmm_aspt_g##G##v##VEC##_##tin##_##tout( \
        i64 m, i64 n, u64 panels, const u32* order, const u32* half_ptr, const u32* ent_pos, const u32* ent_idx, \
        const u32* dcol_ptr, const u32* dcols, const In* val, const In* B, i64 ldb, int b_row, int cp16,      \
        Out* C, i64 ldc, int c_row, const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,          \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta) {                                      \
        aspt_spmm<In, Out, VEC, G>(m, n, panels, order, half_ptr, ent_pos, ent_idx, dcol_ptr, dcols, val, B,  \
                                   ldb, b_row, cp16, C, ldc, c_row, alpha_dev, alpha, beta_dev, beta);        \
    }
// Tiles of 32, 64 and 128 columns four a lane; 32 columns one a lane (op(B) rows not aligned).
#define ASPT_SPMM_ENTRY(In, Out, tin, tout, _)                                           \
    ASPT_SPMM_ENTRY_V(In, Out, tin, tout, 4, 8) ASPT_SPMM_ENTRY_V(In, Out, tin, tout, 4, 16) \
    ASPT_SPMM_ENTRY_V(In, Out, tin, tout, 4, 32) ASPT_SPMM_ENTRY_V(In, Out, tin, tout, 1, 32)

SPBLK_FOR_PRECISIONS(ASPT_SPMM_ENTRY, _)
