// ASpT SDDMM (SPBLK_SDDMM_ALG_ASPT; after Hong et al., PPoPP'19; docs/sddmm.md), and the
// kernels that build its plan (src/backend/cuda/aspt.rs).
//
// The plan orders the rows by a similarity key (a min-hash of their 32-column blocks, so rows
// with the same blocks sit together), cuts that order into panels of 32 rows, and lists each
// panel's entries sorted by column. The product stages the panel's rows of op(A) in shared
// memory once per block; the entries of one column follow each other, so the groups that read
// that column of op(B) in one pass hit the same cache lines: a column comes from L2 about once
// per panel instead of once per entry. Each dot product is summed exactly as the streaming
// kernel sums it (csr.cu, same G): the results are bitwise those of the default.
#include "sddmm/dot.cuh"

#define ASPT_SLOT_BITS 5                  // an entry key's low bits: its row's slot in the panel
#define ASPT_PANEL (1 << ASPT_SLOT_BITS)  // rows per panel
#define ASPT_COARSE 5                     // the row key hashes columns in blocks of 2^5
#define ASPT_THREADS 256

// A 32-bit mixer (the murmur3 finalizer's structure): distinct blocks get unrelated hashes.
__device__ __forceinline__ u32 aspt_mix(u32 x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

// Four min-hashes of row r's column blocks: two rows of different blocks agree on one with
// probability J (the Jaccard index of their block sets), so on all four with J^4 (a pair of
// the benchmark's block rows, J ~ 0.03: 1e-6; with two hashes, 1e-3, and a block row then
// shared its panels with another about every other time). keys[r]: a hash of h2..h4;
// first[r]: h1 (0xffffffff for both on an empty row); rows[r] = r. Sorting by keys, then
// stably by first, puts rows with one h1 together and, among them, rows with all four equal.
// A warp per row.
template <class I>
__device__ void aspt_row_keys(i64 m, const I* __restrict__ ptr, const I* __restrict__ col, i64 base, u32* keys,
                              u32* first, u32* rows) {
    const int lane = threadIdx.x & 31;
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 r = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < m; r += warps) {
        u32 h[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
        const i64 p1 = (i64)ptr[r + 1] - base;
        for (i64 p = (i64)ptr[r] - base + lane; p < p1; p += 32) {
            const u32 block = (u32)(((i64)col[p] - base) >> ASPT_COARSE);
#pragma unroll
            for (int t = 0; t < 4; ++t) h[t] = min(h[t], aspt_mix(block * 4u + (u32)t));
        }
#pragma unroll
        for (int t = 0; t < 4; ++t)
            for (int off = 16; off > 0; off >>= 1) h[t] = min(h[t], __shfl_xor_sync(SPBLK_FULL_MASK, h[t], off));
        if (lane == 0) {
            const bool empty = h[0] == 0xffffffffu;
            keys[r] = empty ? 0xffffffffu : aspt_mix(h[1] ^ aspt_mix(h[2] ^ aspt_mix(h[3])));
            first[r] = h[0];
            rows[r] = (u32)r;
        }
    }
}

// keys[i] = first[rows[i]]: the second sort's keys, in the first sort's order.
extern "C" __global__ void spblk_aspt_first_keys(u64 m, const u32* __restrict__ rows, const u32* __restrict__ first,
                                                 u32* keys) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)gridDim.x * blockDim.x)
        keys[i] = first[rows[i]];
}

// rank[order[i]] = i: each row's place in the sorted order (panel = rank / 32).
extern "C" __global__ void spblk_aspt_ranks(u64 m, const u32* __restrict__ order, u32* rank) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)gridDim.x * blockDim.x)
        rank[order[i]] = (u32)i;
}

// For every entry p of row r: keys[p] = its column, vals[p] = p, ent_rank[p] = rank[r]; a row
// whose columns decrease somewhere sets *unsorted.
template <class I>
__device__ void aspt_entry_keys(i64 m, const I* __restrict__ ptr, const I* __restrict__ col, i64 base,
                                const u32* __restrict__ rank, u32* keys, u32* vals, u32* ent_rank, u32* unsorted) {
    const int lane = threadIdx.x & 31;
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    bool down = false;
    for (i64 r = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < m; r += warps) {
        const u32 rk = rank[r];
        const i64 p1 = (i64)ptr[r + 1] - base;
        for (i64 p = (i64)ptr[r] - base + lane; p < p1; p += 32) {
            keys[p] = (u32)((i64)col[p] - base);
            vals[p] = (u32)p;
            ent_rank[p] = rk;
            down |= p + 1 < p1 && col[p + 1] < col[p];
        }
    }
    if (down) atomicOr(unsorted, 1u);
}

// After the sort by column: keys[i] = the panel of entry vals[i].
extern "C" __global__ void spblk_aspt_panel_keys(u64 nnz, const u32* __restrict__ vals,
                                                 const u32* __restrict__ ent_rank, u32* keys) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < nnz; i += (u64)gridDim.x * blockDim.x)
        keys[i] = ent_rank[vals[i]] / ASPT_PANEL;
}

// After the stable sort by panel (entries of a panel by column, then position): the plan's
// entry arrays, the panels' first entries (panel_ptr, panels + 1), whether each entry starts a
// run (a distinct (panel, column) pair: run_flag, nnz words) and the count of runs added to
// *runs.
template <class I>
__device__ void aspt_entries(u64 nnz, u64 panels, const u32* __restrict__ panel, const u32* __restrict__ vals,
                             const I* __restrict__ col, i64 base, const u32* __restrict__ ent_rank, u32* ent_pos,
                             u32* ent_key, u32* panel_ptr, u32* run_flag, unsigned long long* runs) {
    u32 local = 0;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < nnz; i += (u64)gridDim.x * blockDim.x) {
        const u32 p = vals[i], q = panel[i];
        const u32 c = (u32)((i64)col[p] - base);
        ent_pos[i] = p;
        ent_key[i] = (c << ASPT_SLOT_BITS) | (ent_rank[p] % ASPT_PANEL);
        const u32 q_prev = i > 0 ? panel[i - 1] : 0u;
        if (i == 0) {
            for (u32 t = 0; t <= q; ++t) panel_ptr[t] = 0;
        } else if (q_prev != q) {
            for (u32 t = q_prev + 1; t <= q; ++t) panel_ptr[t] = (u32)i;
        }
        if (i + 1 == nnz)
            for (u64 t = (u64)q + 1; t <= panels; ++t) panel_ptr[t] = (u32)nnz;
        const u32 starts = (i == 0 || q_prev != q || (u32)((i64)col[vals[i - 1]] - base) != c) ? 1u : 0u;
        run_flag[i] = starts;
        local += starts;
    }
    local = warp_sum(local);
    if ((threadIdx.x & 31) == 0 && local) atomicAdd(runs, (unsigned long long)local);
}

// After the exclusive scan of the run flags (run_index, nnz + 1 words, the last = the runs):
// each run's column, each entry's run by its position in C (ent_run), and each panel's first
// run (run_ptr, panels + 1; a panel starts a run, or is empty).
extern "C" __global__ void spblk_aspt_runs(u64 nnz, u64 panels, const u32* __restrict__ run_index,
                                           const u32* __restrict__ ent_key, const u32* __restrict__ ent_pos,
                                           const u32* __restrict__ panel_ptr, u32* run_col, u32* ent_run,
                                           u32* run_ptr) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i <= max(nnz, panels); i += (u64)gridDim.x * blockDim.x) {
        if (i < nnz) {
            const u32 run = run_index[i + 1] - 1;  // runs begun at or before i, less one
            if (run_index[i] == run) run_col[run] = ent_key[i] >> ASPT_SLOT_BITS;  // i begins it
            ent_run[ent_pos[i]] = run;
        }
        if (i <= panels) run_ptr[i] = run_index[panel_ptr[i]];
    }
}

#define ASPT_PLAN_ENTRY(I, tidx)                                                                                  \
    extern "C" __global__ void spblk_aspt_row_keys_##tidx(i64 m, const I* ptr, const I* col, i64 base, u32* keys, \
                                                          u32* first, u32* rows) {                                \
        aspt_row_keys<I>(m, ptr, col, base, keys, first, rows);                                                   \
    }                                                                                                             \
    extern "C" __global__ void spblk_aspt_entry_keys_##tidx(i64 m, const I* ptr, const I* col, i64 base,         \
                                                            const u32* rank, u32* keys, u32* vals,                \
                                                            u32* ent_rank, u32* unsorted) {                       \
        aspt_entry_keys<I>(m, ptr, col, base, rank, keys, vals, ent_rank, unsorted);                              \
    }                                                                                                             \
    extern "C" __global__ void spblk_aspt_entries_##tidx(u64 nnz, u64 panels, const u32* panel, const u32* vals,  \
                                                         const I* col, i64 base, const u32* ent_rank,             \
                                                         u32* ent_pos, u32* ent_key, u32* panel_ptr,              \
                                                         u32* run_flag, unsigned long long* runs) {               \
        aspt_entries<I>(nnz, panels, panel, vals, col, base, ent_rank, ent_pos, ent_key, panel_ptr, run_flag,     \
                        runs);                                                                                    \
    }
ASPT_PLAN_ENTRY(int, i32)
ASPT_PLAN_ENTRY(long long, i64)

// Eight consecutive compute-type elements from shared memory (16-byte aligned).
template <class T> __device__ __forceinline__ void aspt_load_shared8(const T* s, T* o) {
#pragma unroll
    for (int v = 0; v < SDDMM_E; v += 16 / sizeof(T)) {
        if (sizeof(T) == 4) {
            const float4 x = *reinterpret_cast<const float4*>(s + v);
            o[v] = x.x, o[v + 1] = x.y, o[v + 2] = x.z, o[v + 3] = x.w;
        } else {
            const double2 x = *reinterpret_cast<const double2*>(s + v);
            o[v] = x.x, o[v + 1] = x.y;
        }
    }
}

// The product. Block b takes entries [b*chunk, (b+1)*chunk) of the plan (grid-stride), panel
// by panel: stage the panel's 32 rows of op(A) (k <= 8G elements, zero-padded to the row
// stride 8G+4, which spreads rows over the banks) in shared memory, then each G-lane group
// computes entries gid, gid + groups, ...: the key's slot picks the staged row, its column the
// column of op(B) (contiguous, `BVEC`: 4-element aligned).
template <int G, bool BVEC, class In, class Out>
__device__ void sddmm_aspt(i64 k, u64 nnz, u64 panels, u64 chunk, u64 m, const u32* __restrict__ order,
                           const u32* __restrict__ panel_ptr, const u32* __restrict__ ent_pos,
                           const u32* __restrict__ ent_key, const In* __restrict__ A, i64 lda,
                           const In* __restrict__ B, i64 ldb, Out* __restrict__ C,
                           const typename ComputeOf<In>::type* alpha_dev, typename ComputeOf<In>::type alpha_h,
                           const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    constexpr int S = 32 / G;
    constexpr int KS = SDDMM_E * G + 16 / (int)sizeof(T);
    extern __shared__ __align__(16) unsigned char aspt_shared[];
    T* As = reinterpret_cast<T*>(aspt_shared);
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int lane = threadIdx.x & 31, glane = lane & (G - 1);
    const u32 gid = (threadIdx.x >> 5) * S + lane / G, groups = (blockDim.x >> 5) * S;
    const unsigned gmask = group_mask(G);
    for (u64 c0 = (u64)blockIdx.x * chunk; c0 < nnz; c0 += (u64)gridDim.x * chunk) {
        const u64 c1 = min(c0 + chunk, nnz);
        // The panel holding entry c0: the last q with panel_ptr[q] <= c0.
        u64 lo = 0, hi = panels;
        while (hi - lo > 1) {
            const u64 mid = (lo + hi) >> 1;
            if (panel_ptr[mid] <= c0) lo = mid; else hi = mid;
        }
        for (u64 q = lo; q < panels && panel_ptr[q] < c1; ++q) {
            const u64 e0 = max((u64)panel_ptr[q], c0), e1 = min((u64)panel_ptr[q + 1], c1);
            if (e0 >= e1) continue;  // an empty panel: the same for every thread
            __syncthreads();         // the previous panel's rows are no longer read
            for (int t = threadIdx.x; t < ASPT_PANEL * KS; t += blockDim.x) {
                const int s = t / KS, l = t % KS;
                const u64 rank = q * ASPT_PANEL + s;
                As[t] = rank < m && l < k ? to_compute(A[(i64)order[rank] * lda + l]) : T(0);
            }
            __syncthreads();
            // Two entries per step (e and e + groups): two chains of dependent loads in flight.
            const T* a_lane = As + glane * SDDMM_E;
            const i64 l0 = (i64)glane * SDDMM_E;
            u32 e = (u32)e0 + gid;
            for (; e + groups < (u32)e1; e += 2 * groups) {
                const u32 key0 = ent_key[e], pos0 = ent_pos[e], key1 = ent_key[e + groups], pos1 = ent_pos[e + groups];
                T a0[SDDMM_E], b0[SDDMM_E], a1[SDDMM_E], b1[SDDMM_E];
                aspt_load_shared8(a_lane + (key0 % ASPT_PANEL) * KS, a0);
                aspt_load_shared8(a_lane + (key1 % ASPT_PANEL) * KS, a1);
                sddmm_load8<BVEC, In, T>(B + (i64)(key0 >> ASPT_SLOT_BITS) * ldb, 1, l0, k, b0);
                sddmm_load8<BVEC, In, T>(B + (i64)(key1 >> ASPT_SLOT_BITS) * ldb, 1, l0, k, b1);
                const T d0 = group_sum(dot8(a0, b0, T(0)), G, gmask);
                const T d1 = group_sum(dot8(a1, b1, T(0)), G, gmask);
                if (glane == 0) {
                    sddmm_store(&C[pos0], d0, alpha, beta);
                    sddmm_store(&C[pos1], d1, alpha, beta);
                }
            }
            if (e < (u32)e1) {
                const u32 key = ent_key[e], pos = ent_pos[e];
                T a[SDDMM_E], b[SDDMM_E];
                aspt_load_shared8(a_lane + (key % ASPT_PANEL) * KS, a);
                sddmm_load8<BVEC, In, T>(B + (i64)(key >> ASPT_SLOT_BITS) * ldb, 1, l0, k, b);
                const T d = group_sum(dot8(a, b, T(0)), G, gmask);
                if (glane == 0) sddmm_store(&C[pos], d, alpha, beta);
            }
        }
    }
}

#define ASPT_CASE(GT, BV, In, Out)                                                                             \
    sddmm_aspt<GT, BV, In, Out>(k, nnz, panels, chunk, m, order, panel_ptr, ent_pos, ent_key, A, lda, B, ldb, C, \
                                alpha_dev, alpha, beta_dev, beta)
#define ASPT_G(BV, In, Out)                              \
    switch (G) {                                         \
        case 4: ASPT_CASE(4, BV, In, Out); return;       \
        case 8: ASPT_CASE(8, BV, In, Out); return;       \
        case 16: ASPT_CASE(16, BV, In, Out); return;     \
        default: ASPT_CASE(32, BV, In, Out); return;     \
    }
#define ASPT_PRODUCT_ENTRY(In, Out, tin, tout, unused)                                                          \
    extern "C" __global__ void __launch_bounds__(ASPT_THREADS, SDDMM_MIN_BLOCKS(In))                            \
        spblk_sddmm_aspt_##tin##_##tout(i64 k, u64 nnz, u64 panels, u64 chunk, u64 m, const u32* order,         \
                                        const u32* panel_ptr, const u32* ent_pos, const u32* ent_key,           \
                                        const In* A, i64 lda, const In* B, i64 ldb, int b_vec, Out* C,          \
                                        const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,        \
                                        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta, int G) { \
        if (b_vec) {                                                                                            \
            ASPT_G(true, In, Out)                                                                               \
        } else {                                                                                                \
            ASPT_G(false, In, Out)                                                                              \
        }                                                                                                       \
    }
SPBLK_FOR_PRECISIONS(ASPT_PRODUCT_ENTRY, 0)
