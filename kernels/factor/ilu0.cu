// Incomplete LU without fill (csrilu02; docs/factor.md), in place on A's values, a warp per
// row: for each entry (i, k) below the diagonal, in column order, once row k is done:
// l = a(i, k) / u(k, k), then a(i, j) -= l * u(k, j) for every j > k that both rows hold. Each
// a(i, j) is updated by one lane, k ascending, rounded as the host reference rounds: the same
// bits as the host, every run. A missing u(k, k) reads as one (and row k subtracts nothing,
// as NVIDIA's library does); a zero pivot u(i, i) is recorded (the first row), unless the
// numeric boost replaces it.
#include "factor/rows.cuh"

// Row k's entries (k, j), j > k, scanned by the warp 32 at a time; the lane owning a(i, j)
// subtracts l * u(k, j) where the columns match.
template <class T>
__device__ __forceinline__ void ilu0_update(u32 q, u32 s, u32 e, u32 ks, u32 ke, T l, const int* col, int base, T* val) {
    const int lane = threadIdx.x & 31;
    for (u32 c0 = ks; c0 < ke; c0 += 32) {
        u32 cj;
        T uv;
        factor_segment(c0 + lane, ke, col, base, val, cj, uv);
        const u32 count = min(32u, ke - c0);
        // The lane's own entries of row i after q (lane t owns s + t, s + t + 32, ...).
        for (u32 p0 = s; p0 < e; p0 += 32) {
            const u32 p = p0 + lane;
            const bool mine = p > q && p < e;
            const u32 j = mine ? (u32)(col[p] - base) : FACTOR_NONE - 1;
            for (u32 t = 0; t < count; ++t) {
                const u32 ct = __shfl_sync(SPBLK_FULL_MASK, cj, t);
                const T vt = __shfl_sync(SPBLK_FULL_MASK, uv, t);
                if (j == ct) val[p] = add_rn(val[p], -mul_rn(l, vt));
            }
        }
    }
}

template <class T>
__device__ void ilu0_rows(u32 n, const int* ptr, const int* col, int base, T* val, const u32* diag, const u32* split,
                          const u32* order, u32* done, u32* counters, int boost, double tol, T boost_value) {
    const int lane = threadIdx.x & 31;
    for (u32 t = factor_ticket(counters); t < n; t = factor_ticket(counters)) {
        const u32 i = order[t];
        const u32 s = (u32)(ptr[i] - base), e = (u32)(ptr[i + 1] - base);
        for (u32 q = s; q < split[i]; ++q) {
            const u32 k = (u32)(col[q] - base);
            factor_wait(done, k);
            const u32 dk = diag[k];
            const T ukk = dk == FACTOR_NONE ? T(1) : factor_read(val + dk);
            const int owner = (int)((q - s) % 32);
            T l = T(0);
            if (lane == owner) {
                l = val[q] / ukk;
                val[q] = l;
            }
            l = __shfl_sync(SPBLK_FULL_MASK, l, owner);
            // A row without a diagonal entry has no U part to subtract (as NVIDIA's).
            const u32 ke = (u32)(ptr[k + 1] - base), ks = dk == FACTOR_NONE ? ke : dk + 1;
            ilu0_update(q, s, e, ks, ke, l, col, base, val);
        }
        const u32 di = diag[i];
        if (di != FACTOR_NONE && lane == (int)((di - s) % 32)) {
            const T u = val[di];
            if (boost && fabs((double)u) <= tol) {
                val[di] = boost_value;
            } else if (u == T(0)) {
                atomicMin(&counters[1], i);
            }
        }
        factor_publish(done, i);
    }
}

#define ILU0_ENTRY(T, tval)                                                                                      \
    extern "C" __global__ void __launch_bounds__(128)                                                            \
        spblk_ilu0_##tval(u32 n, const int* ptr, const int* col, int base, T* val, const u32* diag,              \
                          const u32* split, const u32* order, u32* done, u32* counters, int boost, double tol,  \
                          T boost_value) {                                                                       \
        ilu0_rows<T>(n, ptr, col, base, val, diag, split, order, done, counters, boost, tol, boost_value);       \
    }

ILU0_ENTRY(float, f32)
ILU0_ENTRY(double, f64)
