// Incomplete LU without fill (csrilu02; docs/factor.md), in place on A's values, a warp per
// row: for each entry (i, k) below the diagonal, in column order, once row k is done:
// l = a(i, k) / u(k, k), then a(i, j) -= l * u(k, j) for every j > k that both rows hold. Each
// a(i, j) is updated by one lane, k ascending, rounded as the host reference rounds: the same
// bits as the host, every run. A missing u(k, k) reads as one (and row k subtracts nothing,
// as NVIDIA's library does); a zero pivot u(i, i) is recorded (the first row), unless the
// numeric boost replaces it.
#include "factor/rows.cuh"

// Row k's entries (k, j), j > k (the segment of `d`), scanned by the warp 32 at a time; the
// lane owning a(i, j) subtracts l * u(k, j) where the columns match. The first chunk's column
// and value come loaded.
template <class T>
__device__ __forceinline__ void ilu0_update(u32 q, u32 s, u32 e, const FactorDep& d, T first_value, T l,
                                            const int* col, int base, T* val) {
    const int lane = threadIdx.x & 31;
    for (u32 c0 = d.from; c0 < d.to; c0 += 32) {
        const bool first = c0 == d.from;
        const u32 cj = first ? d.first_col : factor_column(c0 + lane, d.to, col, base);
        const T uv = first ? first_value : factor_value(c0 + lane, d.to, val);
        const u32 count = min(32u, d.to - c0);
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
        const u32 lower_end = split[i];
        for (u32 q = s; q < lower_end; ++q) {
            FactorDep d;
            d.k = (u32)(col[q] - base);
            d.dk = diag[d.k];
            // A row without a diagonal entry has no U part to subtract (as NVIDIA's).
            d.to = (u32)(ptr[d.k + 1] - base);
            d.from = d.dk == FACTOR_NONE ? d.to : d.dk + 1;
            d.first_col = factor_column(d.from + lane, d.to, col, base);
            factor_wait(done, d.k);
            const T ukk = d.dk == FACTOR_NONE ? T(1) : factor_read(val + d.dk);
            const T first_value = factor_value(d.from + lane, d.to, val);
            const int owner = (int)((q - s) % 32);
            T l = T(0);
            if (lane == owner) {
                l = val[q] / ukk;
                val[q] = l;
            }
            l = __shfl_sync(SPBLK_FULL_MASK, l, owner);
            ilu0_update(q, s, e, d, first_value, l, col, base, val);
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
