// CSR SDDMM, C = alpha*(op(A)*op(B)) o spy(C) + beta*C: the streaming method.
//
// A warp takes a run of `per_warp` consecutive stored entries as S = 32/G groups of G lanes
// (G = k/8 rounded up to a power of two, 4..32); group s takes entries s, s+S, ... of the run.
// Lane l of a group owns elements 8l .. 8l+7 of every 8G-wide slice of k (two 4-element loads
// when the layout allows). The first slice of op(A)'s current row stays in registers until the
// group's entries move to another row, so A is read once per row and group; later slices
// (k > 256) are read with each entry. The row of the run's first entry is found by one 32-way
// search of the whole warp; each group then steps along the offsets. The column index of the next entry is
// loaded before the current dot product, so a group has its next B address ready when it needs
// it. Each dot product is reduced with shuffles in a fixed order: deterministic. The common
// layout with k <= 8G and long enough rows takes a leaner path (`sddmm_csr_fast`, below).
//
// op(A)(i, l) is at A[i*lda + l] when `a_row` is set, else A[i + l*lda]; op(B)(l, j) is at
// B[l*ldb + j] when `b_row` is set, else B[l + j*ldb]. `a_vec` / `b_vec`: op(A)'s rows /
// op(B)'s columns are contiguous with 4-element-aligned starts (ld % 4 == 0, aligned base).
#include "sddmm/dot.cuh"

template <bool VEC, class In, class Out, class I>
__device__ void sddmm_csr(i64 m, i64 k, i64 nnz, const I* __restrict__ ptr, const I* __restrict__ col, i64 base,
                          const In* __restrict__ A, i64 lda, int a_row, const In* __restrict__ B, i64 ldb,
                          int b_row, Out* __restrict__ C, const typename ComputeOf<In>::type* alpha_dev,
                          typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                          typename ComputeOf<In>::type beta_h, int G, i64 per_warp) {
    typedef typename ComputeOf<In>::type T;
    const int lane = threadIdx.x & 31;
    const int glane = lane & (G - 1);
    const int S = 32 / G, sub = lane / G;
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    // Element (r, l) of op(A) at A[r*a_r + l*a_l]; of op(B) at (l, j): B[j*b_j + l*b_l].
    const i64 a_r = a_row ? lda : 1, a_l = a_row ? 1 : lda;
    const i64 b_j = b_row ? 1 : ldb, b_l = b_row ? ldb : 1;
    const i64 l_first = (i64)glane * SDDMM_E, slice = (i64)G * SDDMM_E;
    for (i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * per_warp < nnz; w += warps) {
        const i64 p0 = w * per_warp;
        const i64 p1 = p0 + per_warp < nnz ? p0 + per_warp : nnz;
        const i64 row0 = warp_row_of(ptr, m, base, p0);  // every lane: the loop is warp-uniform
        i64 p = p0 + sub;
        if (p >= p1) continue;
        i64 row = row0, row_end = (i64)ptr[row + 1] - base;
        bool reload = true;
        T areg[SDDMM_E];
        i64 j = (i64)col[p] - base;
        for (; p < p1; p += S) {
            while (p >= row_end) {
                row_end = (i64)ptr[++row + 1] - base;
                reload = true;
            }
            const In* a = A + row * a_r;
            if (reload) {
                sddmm_load8<VEC, In, T>(a, a_l, l_first, k, areg);
                reload = false;
            }
            const i64 j_next = p + S < p1 ? (i64)col[p + S] - base : 0;
            const In* bj = B + j * b_j;
            T b[SDDMM_E];
            sddmm_load8<VEC, In, T>(bj, b_l, l_first, k, b);
            T dot = dot8(areg, b, T(0));
            for (i64 l0 = l_first + slice; l0 < k; l0 += slice) {
                T ai[SDDMM_E];
                sddmm_load8<VEC, In, T>(a, a_l, l0, k, ai);
                sddmm_load8<VEC, In, T>(bj, b_l, l0, k, b);
                dot = dot8(ai, b, dot);
            }
            dot = group_sum(dot, G, group_mask(G));
            if (glane == 0) sddmm_store(&C[p], dot, scalar_arg(alpha_dev, alpha_h), scalar_arg(beta_dev, beta_h));
            j = j_next;
        }
    }
}

// The common case on its own path, with fewer live values and instructions per entry: op(A)'s
// rows and op(B)'s columns contiguous and aligned (`vec`), k <= 8G (one slice, all of op(A)'s
// row slice in registers), G a compile-time constant. The group walks its entries row by row:
// no row check per entry, and two entries (two B columns in flight) per step.
template <int G, class In, class Out, class I>
__device__ void sddmm_csr_fast(i64 m, i64 k, i64 nnz, const I* __restrict__ ptr, const I* __restrict__ col,
                               i64 base, const In* __restrict__ A, i64 lda, const In* __restrict__ B, i64 ldb,
                               Out* __restrict__ C, const typename ComputeOf<In>::type* alpha_dev,
                               typename ComputeOf<In>::type alpha_h,
                               const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h,
                               i64 per_warp) {
    typedef typename ComputeOf<In>::type T;
    constexpr int S = 32 / G;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int lane = threadIdx.x & 31;
    const int glane = lane & (G - 1), sub = lane / G;
    const unsigned gmask = group_mask(G);
    const i64 l0 = (i64)glane * SDDMM_E;
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * per_warp < nnz; w += warps) {
        const i64 p0 = w * per_warp;
        const i64 p1 = p0 + per_warp < nnz ? p0 + per_warp : nnz;
        const i64 row0 = warp_row_of(ptr, m, base, p0);  // every lane: the loop is warp-uniform
        i64 p = p0 + sub;
        if (p >= p1) continue;
        i64 row = row0, row_end = (i64)ptr[row + 1] - base;
        for (;;) {
            while (p >= row_end) row_end = (i64)ptr[++row + 1] - base;
            T areg[SDDMM_E];
            sddmm_load8<true, In, T>(A + row * lda, 1, l0, k, areg);
            const int n = (int)(((row_end < p1 ? row_end : p1) - p + S - 1) / S);
            const I* cp = col + p;
            Out* cq = C + p;
            int e = 0;
            for (; e + 2 <= n; e += 2) {
                T b0[SDDMM_E], b1[SDDMM_E];
                sddmm_load8<true, In, T>(B + ((i64)cp[e * S] - base) * ldb, 1, l0, k, b0);
                sddmm_load8<true, In, T>(B + ((i64)cp[(e + 1) * S] - base) * ldb, 1, l0, k, b1);
                const T d0 = group_sum(dot8(areg, b0, T(0)), G, gmask);
                const T d1 = group_sum(dot8(areg, b1, T(0)), G, gmask);
                if (glane == 0) {
                    sddmm_store(&cq[e * S], d0, alpha, beta);
                    sddmm_store(&cq[(e + 1) * S], d1, alpha, beta);
                }
            }
            if (e < n) {
                T b0[SDDMM_E];
                sddmm_load8<true, In, T>(B + ((i64)cp[e * S] - base) * ldb, 1, l0, k, b0);
                const T d0 = group_sum(dot8(areg, b0, T(0)), G, gmask);
                if (glane == 0) sddmm_store(&cq[e * S], d0, alpha, beta);
            }
            p += (i64)n * S;
            if (p >= p1) break;
        }
    }
}

// Small calls with every entry's row at hand (the preprocess's entry rows, src/plan.rs
// `EntryRows`) and one entry per group: no row search and no stepping along the offsets. A
// group loads its entry's row and column together, then the A and B slices: two dependent
// round trips before the store instead of four or five. The fast path's layout and
// conditions, and its products and sums (the same bits).
template <int G, class In, class Out, class I>
__device__ void sddmm_csr_entries(i64 k, i64 nnz, const u32* __restrict__ rows, const I* __restrict__ col, i64 base,
                                  const In* __restrict__ A, i64 lda, const In* __restrict__ B, i64 ldb,
                                  Out* __restrict__ C, const typename ComputeOf<In>::type* alpha_dev,
                                  typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                                  typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int glane = threadIdx.x & (G - 1);
    const unsigned gmask = group_mask(G);
    const i64 l0 = (i64)glane * SDDMM_E;
    const i64 groups = (i64)gridDim.x * blockDim.x / G;
    for (i64 p = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / G; p < nnz; p += groups) {
        const i64 row = rows[p], j = (i64)col[p] - base;
        T a[SDDMM_E], b[SDDMM_E];
        sddmm_load8<true, In, T>(A + row * lda, 1, l0, k, a);
        sddmm_load8<true, In, T>(B + j * ldb, 1, l0, k, b);
        const T d = group_sum(dot8(a, b, T(0)), G, gmask);
        if (glane == 0) sddmm_store(&C[p], d, alpha, beta);
    }
}

// `path`: 0 the general path with element loads; 1 the general path with vector loads (op(A)'s
// rows and op(B)'s columns both contiguous with 4-element-aligned starts); 2 the fast path
// (vector loads, k <= 8G, and rows long enough that the groups of a warp seldom diverge: the
// host decides, src/backend/cuda/sddmm.rs). The entries path is a kernel of its own (below).
#define SDDMM_ENTRY(In, Out, tin, tout, I, tidx)                                                            \
    extern "C" __global__ void __launch_bounds__(256, SDDMM_MIN_BLOCKS(In))                                 \
        spblk_sddmm_csr_##tin##_##tout##_##tidx(i64 m, i64 k, i64 nnz, const I* ptr, const I* col, i64 base, \
                                                const In* A, i64 lda, int a_row, const In* B, i64 ldb,      \
                                                int b_row, int path, Out* C,                                \
                                                const ComputeOf<In>::type* alpha_dev,                       \
                                                ComputeOf<In>::type alpha,                                  \
                                                const ComputeOf<In>::type* beta_dev,                        \
                                                ComputeOf<In>::type beta, int G, i64 per_warp) {            \
        if (path == 2) {                                                                                    \
            switch (G) {                                                                                    \
                case 4: SDDMM_FAST(4, In, Out, I); return;                                                  \
                case 8: SDDMM_FAST(8, In, Out, I); return;                                                  \
                case 16: SDDMM_FAST(16, In, Out, I); return;                                                \
                case 32: SDDMM_FAST(32, In, Out, I); return;                                                \
            }                                                                                               \
        }                                                                                                   \
        if (path == 1)                                                                                      \
            sddmm_csr<true, In, Out, I>(m, k, nnz, ptr, col, base, A, lda, a_row, B, ldb, b_row, C,         \
                                        alpha_dev, alpha, beta_dev, beta, G, per_warp);                     \
        else                                                                                                \
            sddmm_csr<false, In, Out, I>(m, k, nnz, ptr, col, base, A, lda, a_row, B, ldb, b_row, C,        \
                                         alpha_dev, alpha, beta_dev, beta, G, per_warp);                    \
    }
#define SDDMM_FAST(GT, In, Out, I) \
    sddmm_csr_fast<GT, In, Out, I>(m, k, nnz, ptr, col, base, A, lda, B, ldb, C, alpha_dev, alpha, beta_dev, beta, per_warp)

SPBLK_FOR_PRECISIONS(SDDMM_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SDDMM_ENTRY, long long, i64)

// The entries path (`sddmm_csr_entries`): G lanes per entry, G = 4 .. 32.
#define SDDMM_ENTRIES_ENTRY(In, Out, tin, tout, I, tidx)                                                      \
    extern "C" __global__ void __launch_bounds__(256)                                                         \
        spblk_sddmm_csr_entries_##tin##_##tout##_##tidx(i64 k, i64 nnz, const u32* rows, const I* col,       \
                                                        i64 base, const In* A, i64 lda, const In* B, i64 ldb, \
                                                        Out* C, const ComputeOf<In>::type* alpha_dev,         \
                                                        ComputeOf<In>::type alpha,                            \
                                                        const ComputeOf<In>::type* beta_dev,                  \
                                                        ComputeOf<In>::type beta, int G) {                    \
        switch (G) {                                                                                          \
            case 4: SDDMM_ENTRIES(4, In, Out, I); break;                                                                  \
            case 8: SDDMM_ENTRIES(8, In, Out, I); break;                                                                  \
            case 16: SDDMM_ENTRIES(16, In, Out, I); break;                                                                \
            default: SDDMM_ENTRIES(32, In, Out, I); break;                                                                \
        }                                                                                                     \
    }
#define SDDMM_ENTRIES(GT, In, Out, I) \
    sddmm_csr_entries<GT, In, Out, I>(k, nnz, rows, col, base, A, lda, B, ldb, C, alpha_dev, alpha, beta_dev, beta)

SPBLK_FOR_PRECISIONS(SDDMM_ENTRIES_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SDDMM_ENTRIES_ENTRY, long long, i64)
