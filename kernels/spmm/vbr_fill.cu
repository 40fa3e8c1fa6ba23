// The 1-SA plan's values filled on the device (spblkAnalyze on the CUDA backend; docs/vbr.md,
// "Values filled on the device"). The host analyses the pattern alone (groups and their block
// lists); the values, mostly zero padding on sparse plans (4 GB for a 2^20-row R-MAT matrix),
// are scattered here from A's CSR into a buffer zeroed just before. A warp takes a permuted
// row: its group by a search of group_ptr, then each entry's block by a search of the group's
// ascending block list. A row whose columns strictly increase has one slot per entry and
// scatters a lane per entry; any other row (duplicates, unsorted columns) is added up by one
// lane in entry order, as the host build adds it, so the values are bitwise the host's.

// slot += v, rounded in V as the host's `V + V` (half: through f32, then to nearest).
template <class V>
__device__ __forceinline__ void vbr_fill_add(V* slot, V v) {
    *slot = Store<V>::from(add_rn(to_compute(*slot), to_compute(v)));
}

template <class V, class I>
__device__ void vbr_fill(u64 rows, const u64* __restrict__ perm, const u64* __restrict__ group_ptr, u64 groups,
                         const u64* __restrict__ block_ptr, const u64* __restrict__ block_col,
                         const u64* __restrict__ value_offset, u64 bw, const I* __restrict__ ptr,
                         const I* __restrict__ col, i64 base, const V* __restrict__ vals, V* out) {
    const int lane = threadIdx.x & 31;
    const u64 warps = ((u64)gridDim.x * blockDim.x) >> 5;
    for (u64 w = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < rows; w += warps) {
        // The last group starting at or before w (empty groups start where the next does).
        u64 lo = 0, hi = groups;  // group_ptr[lo] <= w < group_ptr[hi]
        while (hi - lo > 1) {
            const u64 mid = lo + (hi - lo) / 2;
            if (group_ptr[mid] <= w)
                lo = mid;
            else
                hi = mid;
        }
        const u64 lr = w - group_ptr[lo], b0 = block_ptr[lo], nb = block_ptr[lo + 1] - b0;
        const u64 r = perm[w];
        const i64 p0 = (i64)ptr[r] - base, p1 = (i64)ptr[r + 1] - base;
        bool ordered = true;
        for (i64 p = p0 + lane; p + 1 < p1; p += 32) ordered &= col[p] < col[p + 1];
        ordered = __all_sync(SPBLK_FULL_MASK, ordered);
        if (!ordered && lane != 0) continue;
        const int step = ordered ? 32 : 1;
        for (i64 p = p0 + (ordered ? lane : 0); p < p1; p += step) {
            const u64 c = (u64)((i64)col[p] - base), b = c / bw;
            u64 a = 0, e = nb;  // the first of the group's blocks not below b
            while (a < e) {
                const u64 mid = a + (e - a) / 2;
                if (block_col[b0 + mid] < b)
                    a = mid + 1;
                else
                    e = mid;
            }
            // The analysis put every entry's block in its group's list; a miss would be a
            // plan of another pattern, and is skipped rather than written out of bounds.
            if (a < nb && block_col[b0 + a] == b) vbr_fill_add(out + value_offset[b0 + a] + lr * bw + (c - b * bw), vals[p]);
        }
    }
}

#define VBR_FILL_ENTRY(V, tv, I, ti)                                                                            \
    extern "C" __global__ void spblk_vbr_fill_##tv##_##ti(                                                     \
        u64 rows, const u64* perm, const u64* group_ptr, u64 groups, const u64* block_ptr, const u64* block_col, \
        const u64* value_offset, u64 bw, const I* ptr, const I* col, i64 base, const V* vals, V* out) {         \
        vbr_fill<V, I>(rows, perm, group_ptr, groups, block_ptr, block_col, value_offset, bw, ptr, col, base,   \
                       vals, out);                                                                              \
    }
SPBLK_FOR_VALUES(VBR_FILL_ENTRY, int, i32)
SPBLK_FOR_VALUES(VBR_FILL_ENTRY, long long, i64)
