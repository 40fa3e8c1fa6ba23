// Sliced-ELL: slices of `ss` rows; slice s holds the slots [off[s] - base, off[s+1] - base),
// column-major (slot j of the slice's row r at first + j * ss + r), width = slots / ss. A slot
// whose column is -1 (or anything outside the matrix) is padding and skipped.
//
// - spmv: y = alpha A x + beta y, one thread per row walking its slots in order (consecutive
//   threads read consecutive slots), products and additions rounded in the compute type.
// - row_counts / to_csr: CSR of A (zero-based, each row's entries in slot order) for op(A) =
//   Aᵀ, which the CSR path then transposes; the counts are scanned in between. For the plan of
//   Aᵀ the fill writes each entry's slot instead of its value.
#include "common/types.cuh"

// The slots of row r: first slot, width (slots per row of its slice).
template <class I>
__device__ __forceinline__ void sell_row(const I* off, i64 ss, i64 base, i64 slots, i64 r, i64& first, i64& width) {
    const i64 s = r / ss;
    const i64 lo = min(max((i64)off[s] - base, (i64)0), slots), hi = min(max((i64)off[s + 1] - base, lo), slots);
    first = lo + r % ss;
    width = (hi - lo) / ss;
}

template <class In, class Out, class I>
__device__ void sell_spmv(i64 rows, i64 cols, i64 ss, const I* off, const I* col, const In* val, i64 slots, i64 base,
                          const In* x, Out* y, const typename ComputeOf<In>::type* alpha_dev,
                          typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                          typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    GRID_STRIDE(t, (u64)rows) {
        const i64 r = (i64)t;
        i64 first, width;
        sell_row(off, ss, base, slots, r, first, width);
        T acc = T(0);
        for (i64 j = 0; j < width; ++j) {
            const i64 p = first + j * ss;
            const i64 c = (i64)col[p] - base;
            if (c < 0 || c >= cols) continue;
            acc = add_rn(acc, mul_rn(to_compute(val[p]), to_compute(x[c])));
        }
        T out = mul_rn(alpha, acc);
        if (beta != T(0)) out = add_rn(out, mul_rn(beta, to_compute(y[r])));
        y[r] = Store<Out>::from(out);
    }
}

#define SELL_SPMV(In, Out, tin, tout, I, tidx)                                                                 \
    extern "C" __global__ void __launch_bounds__(256) spblk_sell_spmv_##tin##_##tout##_##tidx(                \
        i64 rows, i64 cols, i64 ss, const I* off, const I* col, const In* val, i64 slots, i64 base,            \
        const In* x, Out* y, const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha_h,                \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta_h) {                                     \
        sell_spmv<In, Out, I>(rows, cols, ss, off, col, val, slots, base, x, y, alpha_dev, alpha_h, beta_dev,  \
                              beta_h);                                                                         \
    }

SPBLK_FOR_PRECISIONS(SELL_SPMV, int, i32)
SPBLK_FOR_PRECISIONS(SELL_SPMV, long long, i64)

// counts[r] = row r's entries (slots that are not padding).
template <class I>
__device__ void sell_row_counts(i64 rows, i64 cols, i64 ss, const I* off, const I* col, i64 slots, i64 base,
                                u64* counts) {
    GRID_STRIDE(t, (u64)rows) {
        i64 first, width;
        sell_row(off, ss, base, slots, (i64)t, first, width);
        u64 count = 0;
        for (i64 j = 0; j < width; ++j) {
            const i64 c = (i64)col[first + j * ss] - base;
            count += c >= 0 && c < cols;
        }
        counts[t] = count;
    }
}

// CSR's row offsets from the scanned counts, clamped to nnz, the last one nnz: a CSR matrix
// whatever the slots hold. Where they hold fewer than nnz entries (input the host backend
// rejects), the caller's zeroed tail of the arrays (column 0, value 0) is the last row's.
template <class I> __device__ void sell_csr_offsets(i64 rows, const u64* offsets, i64 nnz, I* ptr) {
    GRID_STRIDE(t, (u64)rows + 1) ptr[t] = (I)((i64)t < rows ? min((i64)offsets[t], nnz) : nnz);
}

// Row r's entries at offsets[r] on (the scanned counts): column (zero-based), and the value word
// (csr_val) or the slot it is stored in (slot_of), whichever is given; never at or past nnz.
template <class W, class I>
__device__ void sell_to_csr(i64 rows, i64 cols, i64 ss, const I* off, const I* col, const W* val, i64 slots, i64 base,
                            const u64* offsets, i64 nnz, I* csr_col, W* csr_val, u32* slot_of) {
    GRID_STRIDE(t, (u64)rows) {
        i64 first, width;
        sell_row(off, ss, base, slots, (i64)t, first, width);
        u64 pos = offsets[t];
        for (i64 j = 0; j < width; ++j) {
            const i64 p = first + j * ss;
            const i64 c = (i64)col[p] - base;
            if (c < 0 || c >= cols) continue;
            if (pos >= (u64)nnz) break;
            csr_col[pos] = (I)c;
            if (csr_val) csr_val[pos] = val[p];
            if (slot_of) slot_of[pos] = (u32)p;
            ++pos;
        }
    }
}

#define SELL_CSR(I, tidx)                                                                                      \
    extern "C" __global__ void __launch_bounds__(256) spblk_sell_row_counts_##tidx(                           \
        i64 rows, i64 cols, i64 ss, const I* off, const I* col, i64 slots, i64 base, u64* counts) {            \
        sell_row_counts<I>(rows, cols, ss, off, col, slots, base, counts);                                     \
    }                                                                                                          \
    extern "C" __global__ void __launch_bounds__(256)                                                          \
        spblk_sell_csr_offsets_##tidx(i64 rows, const u64* offsets, i64 nnz, I* ptr) {                         \
        sell_csr_offsets<I>(rows, offsets, nnz, ptr);                                                          \
    }                                                                                                          \
    SELL_TO_CSR(unsigned short, b16, I, tidx)                                                                  \
    SELL_TO_CSR(unsigned, b32, I, tidx)                                                                        \
    SELL_TO_CSR(u64, b64, I, tidx)

#define SELL_TO_CSR(W, tw, I, tidx)                                                                              \
    extern "C" __global__ void __launch_bounds__(256) spblk_sell_to_csr_##tw##_##tidx(                          \
        i64 rows, i64 cols, i64 ss, const I* off, const I* col, const W* val, i64 slots, i64 base,               \
        const u64* offsets, i64 nnz, I* csr_col, W* csr_val, u32* slot_of) {                                     \
        sell_to_csr<W, I>(rows, cols, ss, off, col, val, slots, base, offsets, nnz, csr_col, csr_val, slot_of);  \
    }

SELL_CSR(int, i32)
SELL_CSR(long long, i64)
