// Triangular solves (SpSV) held by one thread block, level by level (docs/spsv.md, session 31).
//
// On a small matrix whose levels are many for its rows (a chain of FEM rows, a banded matrix),
// the sync-free solve (sync_free.cu) pays a hop through L2 or a round of its warp loop for
// every level: about a microsecond, as NVIDIA's solve does. Here one block of 512 threads
// takes the levels in order: the published values live in shared memory, and so, when they
// fit, do the triangle, its diagonal, x by position and the levels' starts (staged at the
// start); a run of levels of up to 32 rows is taken by the first warp alone (a warp barrier
// between them), a wider level by the whole block (block barriers); each lane loads its next
// row while it solves the current one (session 32). Each row's sum is the sync-free kernels'
// own: storage order for a row of up to 32 entries in the thread kernel, the warp's
// lane-strided sum and tree otherwise, so the bits are the same whichever runs. The analysis
// picks (spblk_spsv_solve_mode), and SpSV's solve is one launch that runs either (spsv_once).
#include "spsv/grid.cuh"

#define SPSV_BLOCK_THREADS 512

__device__ __forceinline__ u64 spsv_round16(u64 bytes) { return (bytes + 15) & ~(u64)15; }

// Shared memory the block kernel takes: its published values and what it stages by row (x by
// position and the diagonal, `vec` each; offsets and rows, `words` each; the levels' starts),
// then the entries (values, columns).
struct SpsvStaged {
    u64 vec, words, starts, rows, entries;
    __device__ SpsvStaged(u32 n, u32 levels, u32 kept, u32 value_bytes)
        : vec(spsv_round16((u64)n * value_bytes)), words(spsv_round16((u64)(n + 1) * 4)),
          starts(spsv_round16((u64)(levels + 1) * 4)), rows(3 * vec + 2 * words + starts),
          entries(spsv_round16((u64)kept * value_bytes) + spsv_round16((u64)kept * 4)) {}
};

// Copies `bytes` (a multiple of 4) to shared memory at dst (16-byte aligned): asynchronously in
// 16-byte pieces where the source is aligned too, the rest word by word. The caller waits
// (cp.async.wait_all) and synchronizes the block.
__device__ __forceinline__ void spsv_stage(void* dst, const void* src, u64 bytes) {
    const char* from = static_cast<const char*>(src);
    char* to = static_cast<char*>(dst);
    u64 head = 0;
    if (((uintptr_t)from & 15) == 0) {
        head = bytes & ~(u64)15;
        for (u64 o = (u64)threadIdx.x * 16; o < head; o += (u64)blockDim.x * 16)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((u32)__cvta_generic_to_shared(to + o)),
                         "l"(from + o)
                         : "memory");
    }
    for (u64 o = head + (u64)threadIdx.x * 4; o < bytes; o += (u64)blockDim.x * 4)
        *reinterpret_cast<u32*>(to + o) = *reinterpret_cast<const u32*>(from + o);
}

// Where the solve runs (tickets[2]), by estimates in ns fitted on the H200 (docs/spsv.md,
// sessions 31-32): on the grid a fixed cost and a hop through L2 per level; in one block a fixed
// cost, then for each narrow level (taken by the first warp alone) and each round of a wider
// one (`per_round` rows: threads, or warps for warp rows) a cost, plus the entries a lane adds
// one after another in it (the level's average row; a warp row's lanes share it), each cheaper
// when the entries are staged in shared memory. `shared_bytes`: the block kernel's shared
// memory (0: the published values do not fit one block). One block of 256 threads, after the
// analysis placed `ptr`.
#define SPSV_GRID_FIXED_NS 12000u
#define SPSV_GRID_LEVEL_NS 1400u
#define SPSV_BLOCK_FIXED_NS 13000u
#define SPSV_BLOCK_NARROW_NS 320u
#define SPSV_BLOCK_ROUND_NS 410u
#define SPSV_BLOCK_ENTRY_NS 4u
#define SPSV_BLOCK_NARROW_UNSTAGED_NS 260u
#define SPSV_BLOCK_ROUND_UNSTAGED_NS 430u
#define SPSV_BLOCK_ENTRY_UNSTAGED_NS 150u
extern "C" __global__ void __launch_bounds__(256)
    spblk_spsv_solve_mode(u32 n, const u32* level_start, const u32* ptr, u32 shared_bytes, u32 value_bytes,
                          int warp_rows, u32 per_round, u32* tickets) {
    __shared__ unsigned long long counts[3];  // narrow levels, rounds of wide ones, entries in a row
    if (threadIdx.x < 3) counts[threadIdx.x] = 0;
    __syncthreads();
    const u32 levels = tickets[3];
    unsigned long long narrow = 0, rounds = 0, entries = 0;
    for (u32 l = threadIdx.x; shared_bytes && l < levels; l += blockDim.x) {
        const u32 a = level_start[l], b = level_start[l + 1], w = b - a;
        const bool thin = warp_rows ? w == 1 : w <= 32;
        const u32 r = thin ? 1u : (w + per_round - 1) / per_round;
        const u64 e = ptr[b] - ptr[a], lane_rows = warp_rows ? 32ull * w : w;
        narrow += thin;
        rounds += thin ? 0u : r;
        entries += r * ((e + lane_rows - 1) / lane_rows);
    }
    atomicAdd(&counts[0], narrow);
    atomicAdd(&counts[1], rounds);
    atomicAdd(&counts[2], entries);
    __syncthreads();
    if (threadIdx.x != 0) return;
    const SpsvStaged staged(n, levels, ptr[n], value_bytes);
    const bool all = staged.rows + staged.entries <= shared_bytes;
    const u64 grid = SPSV_GRID_FIXED_NS + (u64)levels * SPSV_GRID_LEVEL_NS;
    const u64 block = SPSV_BLOCK_FIXED_NS +
                      counts[0] * (all ? SPSV_BLOCK_NARROW_NS : SPSV_BLOCK_NARROW_UNSTAGED_NS) +
                      counts[1] * (all ? SPSV_BLOCK_ROUND_NS : SPSV_BLOCK_ROUND_UNSTAGED_NS) +
                      counts[2] * (all ? SPSV_BLOCK_ENTRY_NS : SPSV_BLOCK_ENTRY_UNSTAGED_NS);
    tickets[2] = shared_bytes && block < grid ? SPSV_SOLVE_BLOCK : SPSV_SOLVE_GRID;
}

// The block's dynamic shared memory: its published values, then what it stages (SpsvStaged).
extern __shared__ __align__(16) unsigned char spsv_shared[];

// What the block reads while it solves: the triangle in solve order, its diagonal, the rows,
// where the levels start, and x by position (x[row_of[s]]). Staged in shared memory behind the
// published values when they fit (STAGED 1: all but the entries; 2: the entries too): a level's
// work is then a chain of shared-memory loads and arithmetic, where from L1/L2 it was a chain
// of global loads (about 1.1k cycles a level on olm1000, session 31's profile). The pointers
// of a staged array are formed from spsv_shared where the solve reads them, so that the
// compiler knows them shared (LDS, 32-bit addresses).
template <class T, int STAGED> struct SpsvBlockArrays {
    static constexpr int staged = STAGED;
    u32 n, levels;
    const u32 *level_start, *ptr, *col, *row_of;
    const T *val, *diag, *xs;  // xs: staged only
};

template <class T, int STAGED>
__device__ __forceinline__ SpsvBlockArrays<T, STAGED> spsv_staged_arrays(const SpsvStaged& z, u32 n, u32 levels,
                                                                        u32 kept, const u32* col, const T* val) {
    unsigned char* at = spsv_shared + z.vec;
    SpsvBlockArrays<T, STAGED> m;
    m.n = n;
    m.levels = levels;
    m.xs = reinterpret_cast<const T*>(at);
    m.diag = reinterpret_cast<const T*>(at + z.vec);
    m.ptr = reinterpret_cast<const u32*>(at + 2 * z.vec);
    m.row_of = reinterpret_cast<const u32*>(at + 2 * z.vec + z.words);
    m.level_start = reinterpret_cast<const u32*>(at + 2 * z.vec + 2 * z.words);
    at = spsv_shared + z.rows;
    m.val = STAGED == 2 ? reinterpret_cast<const T*>(at) : val;
    m.col = STAGED == 2 ? reinterpret_cast<const u32*>(at + spsv_round16((u64)kept * sizeof(T))) : col;
    return m;
}

// Stages what fits (by rows, then the entries) and says how much: 0, 1 or 2 (STAGED). The
// caller synchronizes the block.
template <class T>
__device__ int spsv_block_stage(const SpsvStaged& z, u32 n, u32 levels, u32 kept, const u32* level_start,
                                const u32* ptr, const u32* col, const T* val, const T* diag, const u32* row_of,
                                const T* x, u64 shared_bytes) {
    if (z.rows > shared_bytes) return 0;
    const int staged = z.rows + z.entries <= shared_bytes ? 2 : 1;
    const SpsvBlockArrays<T, 2> m = spsv_staged_arrays<T, 2>(z, n, levels, kept, col, val);
    spsv_stage((void*)m.diag, diag, (u64)n * sizeof(T));
    spsv_stage((void*)m.ptr, ptr, (u64)(n + 1) * 4);
    spsv_stage((void*)m.row_of, row_of, (u64)n * 4);
    spsv_stage((void*)m.level_start, level_start, (u64)(levels + 1) * 4);
    if (staged == 2) {
        spsv_stage((void*)m.val, val, (u64)kept * sizeof(T));
        spsv_stage((void*)m.col, col, (u64)kept * 4);
    }
    for (u32 s = threadIdx.x; s < n; s += blockDim.x) const_cast<T*>(m.xs)[s] = x[row_of[s]];
    asm volatile("cp.async.wait_all;" ::: "memory");
    return staged;
}

// A plain store of a published value: in one block, barriers order every read after it.
template <class T> struct HeldPlain : Ready<T> {
    __device__ static __forceinline__ void store(T* p, T v) { *p = v; }
};

// A row's first entries' columns, loaded a round (or a level) before its sum: the sum then waits
// on one load of the published values, where it waited on the chain level start -> offsets ->
// columns -> published values (about 0.4-0.8 us a level in session 31). Thread rows take their
// first SPSV_AHEAD entries (p, p + 1, ...); a warp row's lane its first SPSV_AHEAD_LANES (p + lane,
// p + lane + 32, ...).
#define SPSV_AHEAD 4
#define SPSV_AHEAD_LANES 2
template <class T, bool WARP> struct SpsvAhead {
    static constexpr int K = WARP ? SPSV_AHEAD_LANES : SPSV_AHEAD;
    static constexpr u32 STEP = WARP ? 32u : 1u;
    u32 s, p, e;  // position, the lane's entries p, p + STEP, ... below e (none for a long row)
    bool row, long_row;  // a row to solve here; a thread row left to the whole warp
    u32 c[K];
    u32 row_of;  // the row's index, its x and diagonal
    T x, d;
};

// The row at position s if s < end (else none): its entries, their first columns, its x and
// diagonal. Every load but the columns' is unconditional (the last position stands in for
// none) and none waits on end, so that they go out together and none waits at a branch's end.
template <class T, bool WARP, class A>
__device__ __forceinline__ SpsvAhead<T, WARP> spsv_ahead(u32 s, u32 end, const A& m, const SpsvColumns<T, false>& xy) {
    SpsvAhead<T, WARP> r;
    const u32 at = min(s, m.n - 1);
    const u32 p = m.ptr[at], e = m.ptr[at + 1];
    r.row_of = m.row_of[at];
    r.x = A::staged ? m.xs[at] : xy.x[r.row_of];
    r.d = m.diag[at];
    r.s = s;
    r.row = s < end;
    r.long_row = !WARP && r.row && e - p > SPSV_LONG_ROW;
    r.p = p + (WARP ? threadIdx.x & 31 : 0u);
    r.e = r.row && !r.long_row ? e : 0u;
#pragma unroll
    for (int k = 0; k < SpsvAhead<T, WARP>::K; ++k) {
        const u32 q = r.p + SpsvAhead<T, WARP>::STEP * k;
        r.c[k] = q < r.e ? m.col[q] : 0u;
    }
    return r;
}

// The lane's entries of r added in order: those whose columns were loaded ahead first (every
// load, then the additions), then the rest. (Loading the rest K at a time, predicated, cost
// more than it saved: session 32, bench/probes/spsv_block.cu.)
template <class T, bool WARP>
__device__ __forceinline__ T spsv_ahead_sum(const SpsvAhead<T, WARP>& r, const u32* col, const T* val, const T* held) {
    constexpr int K = SpsvAhead<T, WARP>::K;
    constexpr u32 STEP = SpsvAhead<T, WARP>::STEP;
    T h[K], v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const bool in = r.p + STEP * k < r.e;
        h[k] = in ? held[r.c[k]] : T(0);
        v[k] = in ? val[r.p + STEP * k] : T(0);
    }
    T sum = T(0);
#pragma unroll
    for (int k = 0; k < K; ++k)
        if (r.p + STEP * k < r.e) sum = add_rn(sum, mul_rn(v[k], h[k]));
#pragma unroll 4
    for (u32 q = r.p + STEP * K; q < r.e; q += STEP) sum = add_rn(sum, mul_rn(val[q], held[col[q]]));
    return sum;
}

// Solves the row loaded ahead in r by its thread (storage order, as the sync-free thread
// kernel), or by the whole warp: a warp row (lane-strided, the fixed tree), or a thread row of
// more than SPSV_LONG_ROW entries (spsv_warp_row, after the warp's short rows). Every lane of the
// warp calls it.
template <class T, bool WARP, class A>
__device__ __forceinline__ void spsv_ahead_row(const SpsvAhead<T, WARP>& r, const A& m, int unit,
                                               const SpsvColumns<T, false>& xy, T* held, T alpha) {
    const u32 lane = threadIdx.x & 31;
    T sum = spsv_ahead_sum<T, WARP>(r, m.col, m.val, held);
    if constexpr (WARP)
        for (int o = 16; o > 0; o >>= 1) sum = add_rn(sum, __shfl_down_sync(SPBLK_FULL_MASK, sum, o));
    if (r.row && !r.long_row && (!WARP || lane == 0))
        spsv_publish<T, HeldPlain<T>, false>(r.s, r.row_of, sum, alpha, r.x, r.d, unit, xy, held);
    if constexpr (!WARP) {
        for (u32 longs = __ballot_sync(SPBLK_FULL_MASK, r.long_row); longs; longs &= longs - 1) {
            const u32 s = __shfl_sync(SPBLK_FULL_MASK, r.s, __ffs(longs) - 1);
            spsv_warp_row<T, ReadyShared<T>, false>(s, m.ptr, m.col, m.val, m.diag, m.row_of, unit, xy, held, alpha);
        }
    }
}

// A level is narrow when the first warp alone takes it in one round: at most 32 thread rows, or
// one warp row.
template <bool WARP> __device__ __forceinline__ bool spsv_narrow(u32 rows) { return WARP ? rows == 1 : rows <= 32; }

// Levels from l on while they are narrow (NARROW: by the first warp, a warp barrier after each;
// rank = the lane, or 0 for warp rows) or wide (by every thread, a block barrier after each;
// rank = the thread, or its warp for warp rows), `workers` rows a round. Each worker's next row
// (the next round's, or the next level's first) is loaded ahead while it solves this one.
// Returns the first level not taken.
template <class T, bool WARP, bool NARROW, class A>
__device__ __forceinline__ u32 spsv_levels(u32 l, u32 rank, u32 workers, const A& m, int unit,
                                           const SpsvColumns<T, false>& xy, T* held, T alpha) {
    // Levels l and l + 1 are [a, b) and [b, b2); the end of level l + 2 is loaded a level ahead.
    u32 a = m.level_start[l], b = m.level_start[l + 1], b2 = m.level_start[min(l + 2, m.levels)];
    SpsvAhead<T, WARP> row = spsv_ahead<T, WARP>(a + rank, b, m, xy);
    for (;;) {
        const u32 b3 = m.level_start[min(l + 3, m.levels)];
        const bool go_on = l + 1 < m.levels && spsv_narrow<WARP>(b2 - b) == NARROW;
        for (u32 first = a;; first += workers) {
            const bool more = !NARROW && first + workers < b;  // a narrow level is one round
            const u32 next_first = more ? first + workers : b, next_end = more ? b : go_on ? b2 : b;
            const SpsvAhead<T, WARP> next = spsv_ahead<T, WARP>(next_first + rank, next_end, m, xy);
            spsv_ahead_row<T, WARP>(row, m, unit, xy, held, alpha);
            row = next;
            if (!more) break;
        }
        if (NARROW) {
            __syncwarp();
        } else {
            __syncthreads();
        }
        ++l;
        if (!go_on) return l;
        a = b;
        b = b2;
        b2 = b3;
    }
}

// The levels in order, by the first warp alone while they are narrow (the other warps wait at
// the block barrier: looping over the narrow levels, they took the first warp's issue slots,
// 2.7k instructions a level on olm1000), by every thread when wide.
template <class T, bool WARP, class A>
__device__ __forceinline__ void spsv_block_levels(const A& m, int unit, const SpsvColumns<T, false>& xy, T* held,
                                                  T alpha) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    __shared__ u32 resume;  // where the first warp's run of narrow levels ended
    u32 l = 0;
    while (l < m.levels) {
        if (spsv_narrow<WARP>(m.level_start[l + 1] - m.level_start[l])) {
            if (warp == 0) {
                const u32 end =
                    spsv_levels<T, WARP, true>(l, WARP ? 0u : lane, WARP ? 1u : 32u, m, unit, xy, held, alpha);
                if (lane == 0) resume = end;
            }
            __syncthreads();
            l = resume;
        } else {
            l = spsv_levels<T, WARP, false>(l, WARP ? warp : threadIdx.x, WARP ? blockDim.x / 32 : blockDim.x, m,
                                            unit, xy, held, alpha);
        }
    }
}

// The whole solve in one block. WARP: every row by a warp (matrices whose rows are long on
// average, as the warp kernel).
template <class T, bool WARP>
__device__ void spsv_block(u32 n, const u32* __restrict__ level_start, const u32* __restrict__ ptr,
                           const u32* __restrict__ col, const T* __restrict__ val, const T* __restrict__ diag,
                           const u32* __restrict__ row_of, int unit, const T* x, T* y, const u32* tickets,
                           u32 shared_bytes, const T* alpha_dev, T alpha_h) {
    T* held = reinterpret_cast<T*>(spsv_shared);
    const u32 levels = tickets[3], kept = ptr[n];
    const SpsvStaged z(n, levels, kept, sizeof(T));
    const int staged =
        spsv_block_stage<T>(z, n, levels, kept, level_start, ptr, col, val, diag, row_of, x, shared_bytes);
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const SpsvColumns<T, false> xy = {x, y, 1, 0, 1, 0, 1};
    __syncthreads();  // the staging done
    if (staged == 2) {
        spsv_block_levels<T, WARP>(spsv_staged_arrays<T, 2>(z, n, levels, kept, col, val), unit, xy, held, alpha);
    } else if (staged == 1) {
        spsv_block_levels<T, WARP>(spsv_staged_arrays<T, 1>(z, n, levels, kept, col, val), unit, xy, held, alpha);
    } else {
        const SpsvBlockArrays<T, 0> m = {n, levels, level_start, ptr, col, row_of, val, diag, nullptr};
        spsv_block_levels<T, WARP>(m, unit, xy, held, alpha);
    }
}

// SpSV's solve in one launch, for a single column of up to 1 MB of values (ONCE_BYTES in
// src/backend/cuda/spsv.rs): where the analysis chose one block (the values fit it), block 0
// solves and the others return at once; otherwise every block runs the grid's solve, which
// resets itself for the next launch (grid.cuh). Either way one launch and no memsets: the small
// solves this serves take 10-100 us, of which a second launch was several. Larger solves keep
// the memsets (self-resetting, the grid kernel ran Poisson 3-D f32 1.36x slower: docs/spsv.md).
// A grid of one block per SM.
template <class T, bool WARP>
__device__ void spsv_once(u32 n, const u32* ticket_pos, const u32* level_start, const u32* ptr, const u32* col,
                          const T* val, const T* diag, const u32* row_of, int unit, const T* x, T* y, u32* tickets,
                          T* ready, u32 shared_bytes, const T* alpha_dev, T alpha) {
    if (tickets[2] == SPSV_SOLVE_BLOCK) {
        if (blockIdx.x == 0)
            spsv_block<T, WARP>(n, level_start, ptr, col, val, diag, row_of, unit, x, y, tickets, shared_bytes,
                                alpha_dev, alpha);
        return;
    }
    const SpsvColumns<T, false> xy = {x, y, 1, 0, 1, 0, 1};
    if (WARP)
        spsv_warp<T, Ready<T>, false, true>(n, ptr, col, val, diag, row_of, unit, xy, tickets, ready, alpha_dev, alpha);
    else
        spsv_rows<T, Ready<T>, false, true>(n, ticket_pos, ptr, col, val, diag, row_of, unit, xy, tickets, tickets[1],
                                            ready, alpha_dev, alpha);
}

// `spblk_spsv_once_{rows,warp}_{f32,f64}`: blocks of SPSV_BLOCK_THREADS threads with the block
// solve's dynamic shared memory.
#define SPSV_ONCE_ENTRY(T, tval)                                                                                   \
    extern "C" __global__ void __launch_bounds__(SPSV_BLOCK_THREADS, 1) spblk_spsv_once_rows_##tval(               \
        u32 n, const u32* ticket_pos, const u32* level_start, const u32* ptr, const u32* col, const T* val,        \
        const T* diag, const u32* row_of, int unit, const T* x, T* y, u32* tickets, T* ready, u32 shared_bytes,  \
        const T* alpha_dev, T alpha) {                                                                             \
        spsv_once<T, false>(n, ticket_pos, level_start, ptr, col, val, diag, row_of, unit, x, y, tickets, ready,   \
                            shared_bytes, alpha_dev, alpha);                                                       \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(SPSV_BLOCK_THREADS, 1) spblk_spsv_once_warp_##tval(               \
        u32 n, const u32* ticket_pos, const u32* level_start, const u32* ptr, const u32* col, const T* val,        \
        const T* diag, const u32* row_of, int unit, const T* x, T* y, u32* tickets, T* ready, u32 shared_bytes,  \
        const T* alpha_dev, T alpha) {                                                                             \
        spsv_once<T, true>(n, ticket_pos, level_start, ptr, col, val, diag, row_of, unit, x, y, tickets, ready,    \
                           shared_bytes, alpha_dev, alpha);                                                        \
    }

SPSV_ONCE_ENTRY(float, f32)
SPSV_ONCE_ENTRY(double, f64)
