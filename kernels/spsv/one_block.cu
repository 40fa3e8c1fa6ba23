// Triangular solves (SpSV) held by one thread block, level by level (docs/spsv.md, session 31).
//
// On a small matrix whose levels are many for its rows (a chain of FEM rows, a banded matrix),
// the sync-free solve (sync_free.cu) pays a hop through L2 or a round of its warp loop for
// every level: about a microsecond, as NVIDIA's solve does. Here one block of 512 threads
// takes the levels in order: the published values live in shared memory, and so, when they
// fit, do the triangle, its diagonal, x by position and the levels' starts (staged at the
// start); a run of levels of up to 32 rows is taken by the first warp alone (a warp barrier
// between them), a wider level by the whole block (block barriers). Each row's sum is the
// sync-free kernels' own: storage order for a row of up to 32 entries in the thread kernel, the
// warp's lane-strided sum and tree otherwise, so the bits are the same whichever runs. The
// analysis picks (spblk_spsv_solve_mode).
#include "spsv/solve.cuh"

#define SPSV_BLOCK_THREADS 512

// level_start[L] = the first position of level L + 1 (levels count from 1, positions sorted by
// level), level_start[levels] = n; tickets[3] = the number of levels.
extern "C" __global__ void __launch_bounds__(256)
    spblk_spsv_level_starts(i64 n, const u32* level, const u32* order, u32* level_start, u32* tickets) {
    GRID_STRIDE(s, n) {
        const u32 l = level[order[s]];
        if (s == 0 || level[order[s - 1]] != l) level_start[l - 1] = (u32)s;
        if (s == n - 1) {
            level_start[l] = (u32)n;
            tickets[3] = l;
        }
    }
}

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
// session 31): on the grid a fixed cost and a hop through L2 per level; in one block a fixed
// cost, a run of narrow levels at the first warp's pace, and a round of the block's rows
// (`per_round`: threads, or warps for warp rows) for each part of a wider level, both cheaper
// when the triangle is staged in shared memory (a round of warp rows costs as a narrow level).
// `shared_bytes`: the block kernel's shared memory (0: the published values do not fit one
// block). One block of 256 threads, after the analysis placed `ptr`.
#define SPSV_GRID_FIXED_NS 12000u
#define SPSV_GRID_LEVEL_NS 1400u
#define SPSV_BLOCK_FIXED_NS 8000u
#define SPSV_BLOCK_NARROW_NS 400u
#define SPSV_BLOCK_ROUND_NS 1500u
#define SPSV_BLOCK_NARROW_UNSTAGED_NS 700u
#define SPSV_BLOCK_ROUND_UNSTAGED_NS 2500u
extern "C" __global__ void __launch_bounds__(256)
    spblk_spsv_solve_mode(u32 n, const u32* level_start, const u32* ptr, u32 shared_bytes, u32 value_bytes,
                          int warp_rows, u32 per_round, u32* tickets) {
    __shared__ unsigned long long counts[2];  // narrow levels, rounds of wide ones
    if (threadIdx.x == 0) counts[0] = counts[1] = 0;
    __syncthreads();
    const u32 levels = tickets[3];
    unsigned long long narrow = 0, rounds = 0;
    for (u32 l = threadIdx.x; shared_bytes && l < levels; l += blockDim.x) {
        const u32 w = level_start[l + 1] - level_start[l];
        if (warp_rows ? w == 1 : w <= 32) {
            ++narrow;
        } else {
            rounds += (w + per_round - 1) / per_round;
        }
    }
    atomicAdd(&counts[0], narrow);
    atomicAdd(&counts[1], rounds);
    __syncthreads();
    if (threadIdx.x != 0) return;
    const SpsvStaged staged(n, levels, ptr[n], value_bytes);
    const bool all = staged.rows + staged.entries <= shared_bytes;
    const u64 grid = SPSV_GRID_FIXED_NS + (u64)levels * SPSV_GRID_LEVEL_NS;
    const u64 narrow_ns = all ? SPSV_BLOCK_NARROW_NS : SPSV_BLOCK_NARROW_UNSTAGED_NS;
    const u64 round_ns = warp_rows ? narrow_ns : all ? SPSV_BLOCK_ROUND_NS : SPSV_BLOCK_ROUND_UNSTAGED_NS;
    const u64 block = SPSV_BLOCK_FIXED_NS + counts[0] * narrow_ns + counts[1] * round_ns;
    tickets[2] = shared_bytes && block < grid ? SPSV_SOLVE_BLOCK : SPSV_SOLVE_GRID;
}

// What the block reads while it solves: the triangle in solve order, its diagonal, the rows,
// where the levels start, and x by position (x[row_of[s]]; null: read x through row_of). Staged
// in shared memory behind the published values when they fit (the entries only if they fit
// too): a level's work is then a chain of shared-memory loads and arithmetic, where from L1/L2
// it was a chain of global loads (about 1.1k cycles a level on olm1000, session 31's profile).
template <class T> struct SpsvBlockArrays {
    const u32 *level_start, *ptr, *col, *row_of;
    const T *val, *diag, *xs;
};

template <class T>
__device__ SpsvBlockArrays<T> spsv_block_arrays(u32 n, u32 levels, u32 kept, const u32* level_start, const u32* ptr,
                                                const u32* col, const T* val, const T* diag, const u32* row_of,
                                                const T* x, unsigned char* shared, u64 shared_bytes) {
    SpsvBlockArrays<T> m = {level_start, ptr, col, row_of, val, diag, nullptr};
    const SpsvStaged z(n, levels, kept, sizeof(T));
    if (z.rows > shared_bytes) return m;
    unsigned char* at = shared + z.vec;
    T* xs = reinterpret_cast<T*>(at);
    T* d = reinterpret_cast<T*>(at += z.vec);
    u32* p = reinterpret_cast<u32*>(at += z.vec);
    u32* r = reinterpret_cast<u32*>(at += z.words);
    u32* ls = reinterpret_cast<u32*>(at += z.words);
    at += z.starts;
    spsv_stage(d, diag, (u64)n * sizeof(T));
    spsv_stage(p, ptr, (u64)(n + 1) * 4);
    spsv_stage(r, row_of, (u64)n * 4);
    spsv_stage(ls, level_start, (u64)(levels + 1) * 4);
    m = {ls, p, col, r, val, d, xs};
    if (z.rows + z.entries <= shared_bytes) {
        T* v = reinterpret_cast<T*>(at);
        u32* c = reinterpret_cast<u32*>(at + spsv_round16((u64)kept * sizeof(T)));
        spsv_stage(v, val, (u64)kept * sizeof(T));
        spsv_stage(c, col, (u64)kept * 4);
        m.val = v;
        m.col = c;
    }
    for (u32 s = threadIdx.x; s < n; s += blockDim.x) xs[s] = x[row_of[s]];
    asm volatile("cp.async.wait_all;" ::: "memory");
    return m;
}

// The rows at positions [a, b) of one level by `threads` threads (t: this thread's rank among
// them; whole warps): a thread's row of up to SPSV_LONG_ROW entries summed in storage order,
// the longer ones by their thread's whole warp (spsv_warp_row) one after another: the sync-free
// kernels' sums, bit for bit.
template <class T>
__device__ __forceinline__ void spsv_level_rows(u32 a, u32 b, u32 t, u32 threads, const SpsvBlockArrays<T>& m,
                                                int unit, const SpsvColumns<T, false>& xy, T* held, T alpha) {
    const u32 lane = threadIdx.x & 31;
    for (u32 first = a; first < b; first += threads) {
        const u32 s = first + t;
        bool long_row = false;
        if (s < b) {
            const u32 p = m.ptr[s], e = m.ptr[s + 1];
            long_row = e - p > SPSV_LONG_ROW;
            if (!long_row) {
                const u32 row = m.row_of[s];
                const T xr = m.xs ? m.xs[s] : xy.x_of(row), d = m.diag[s];
                T sum = T(0);
                for (u32 q = p; q < e; ++q) sum = add_rn(sum, mul_rn(m.val[q], held[m.col[q]]));
                spsv_publish<T, ReadyShared<T>, false>(s, row, sum, alpha, xr, d, unit, xy, held);
            }
        }
        for (u32 longs = __ballot_sync(SPBLK_FULL_MASK, long_row); longs; longs &= longs - 1)
            spsv_warp_row<T, ReadyShared<T>, false>(s - lane + (u32)(__ffs(longs) - 1), m.ptr, m.col, m.val, m.diag,
                                                    m.row_of, unit, xy, held, alpha);
    }
}

// The row at position s by the whole warp: lane t adds entries t, t + 32, ... in order, then the
// fixed tree (spsv_warp_row's sum, bit for bit).
template <class T>
__device__ __forceinline__ void spsv_lanes_row(u32 s, const SpsvBlockArrays<T>& m, int unit,
                                               const SpsvColumns<T, false>& xy, T* held, T alpha) {
    const u32 lane = threadIdx.x & 31, e = m.ptr[s + 1];
    T sum = T(0);
    for (u32 q = m.ptr[s] + lane; q < e; q += 32) sum = add_rn(sum, mul_rn(m.val[q], held[m.col[q]]));
    for (int o = 16; o > 0; o >>= 1) sum = add_rn(sum, __shfl_down_sync(SPBLK_FULL_MASK, sum, o));
    if (lane == 0) {
        const u32 row = m.row_of[s];
        const T xr = m.xs ? m.xs[s] : xy.x_of(row);
        spsv_publish<T, ReadyShared<T>, false>(s, row, sum, alpha, xr, m.diag[s], unit, xy, held);
    }
}

// The whole solve in one block when the analysis chose it; else the grid kernel's resets.
// WARP: every row by a warp (matrices whose rows are long on average, as the warp kernel).
template <class T, bool WARP>
__device__ void spsv_block(u32 n, const u32* __restrict__ level_start, const u32* __restrict__ ptr,
                           const u32* __restrict__ col, const T* __restrict__ val, const T* __restrict__ diag,
                           const u32* __restrict__ row_of, int unit, const T* x, T* y, u32* tickets, T* ready,
                           u32 shared_bytes, const T* alpha_dev, T alpha_h) {
    typedef typename Ready<T>::Bits Bits;
    if (tickets[2] != SPSV_SOLVE_BLOCK) {
        for (u32 i = threadIdx.x; i < n; i += blockDim.x) reinterpret_cast<Bits*>(ready)[i] = ~Bits(0);
        if (threadIdx.x == 0) tickets[0] = 0;
        return;
    }
    extern __shared__ __align__(16) unsigned char spsv_shared[];
    T* held = reinterpret_cast<T*>(spsv_shared);
    const u32 levels = tickets[3];
    const SpsvBlockArrays<T> m =
        spsv_block_arrays<T>(n, levels, ptr[n], level_start, ptr, col, val, diag, row_of, x, spsv_shared, shared_bytes);
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const SpsvColumns<T, false> xy = {x, y, 1, 0, 1, 0, 1};
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    // Where the first warp's run of narrow levels ended.
    __shared__ u32 resume;
    u32 l = 0;
    bool synced = false;
    while (l < levels) {
        if (!synced) __syncthreads();  // every earlier row published (and the staging done)
        synced = false;
        u32 a = m.level_start[l], b = m.level_start[l + 1];
        if (WARP ? b - a == 1 : b - a <= 32) {
            // A run of narrow levels by the first warp alone, a warp barrier between levels; the
            // other warps wait at the block barrier after it (looping over its levels, they took
            // the warp's issue slots: 2.7k instructions a level on olm1000).
            if (warp == 0) {
                for (;;) {
                    if (WARP) {
                        spsv_lanes_row<T>(a, m, unit, xy, held, alpha);
                    } else {
                        spsv_level_rows<T>(a, b, lane, 32, m, unit, xy, held, alpha);
                    }
                    __syncwarp();
                    if (++l == levels) break;
                    a = b;
                    b = m.level_start[l + 1];
                    if (WARP ? b - a != 1 : b - a > 32) break;
                }
                if (lane == 0) resume = l;
            }
            __syncthreads();
            l = resume;
            synced = true;
            continue;
        }
        if (WARP) {
            for (u32 s = a + warp; s < b; s += warps) spsv_lanes_row<T>(s, m, unit, xy, held, alpha);
        } else {
            spsv_level_rows<T>(a, b, threadIdx.x, blockDim.x, m, unit, xy, held, alpha);
        }
        ++l;
    }
}

// `spblk_spsv_block_{rows,warp}_{f32,f64}`: one block of SPSV_BLOCK_THREADS threads with n
// values of dynamic shared memory, launched before the grid kernel of every SpSV solve whose
// values fit it.
#define SPSV_BLOCK_ENTRY(T, tval)                                                                                  \
    extern "C" __global__ void __launch_bounds__(SPSV_BLOCK_THREADS, 1) spblk_spsv_block_rows_##tval(              \
        u32 n, const u32* level_start, const u32* ptr, const u32* col, const T* val, const T* diag,                \
        const u32* row_of, int unit, const T* x, T* y, u32* tickets, T* ready, u32 shared_bytes,                 \
        const T* alpha_dev, T alpha) {                                                                             \
        spsv_block<T, false>(n, level_start, ptr, col, val, diag, row_of, unit, x, y, tickets, ready, shared_bytes, \
                             alpha_dev, alpha);                                                                    \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(SPSV_BLOCK_THREADS, 1) spblk_spsv_block_warp_##tval(              \
        u32 n, const u32* level_start, const u32* ptr, const u32* col, const T* val, const T* diag,                \
        const u32* row_of, int unit, const T* x, T* y, u32* tickets, T* ready, u32 shared_bytes,                 \
        const T* alpha_dev, T alpha) {                                                                             \
        spsv_block<T, true>(n, level_start, ptr, col, val, diag, row_of, unit, x, y, tickets, ready, shared_bytes,  \
                            alpha_dev, alpha);                                                                     \
    }

SPSV_BLOCK_ENTRY(float, f32)
SPSV_BLOCK_ENTRY(double, f64)
