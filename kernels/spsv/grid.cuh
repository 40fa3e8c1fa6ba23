// SpSV's solve on the whole GPU, synchronization-free (sync_free.cu has the design): the warps'
// ticket draws, a warp's rows (`spsv_rows`), a warp per position (`spsv_warp`). Shared by the
// grid kernels (sync_free.cu) and SpSV's single launch (one_block.cu).
#ifndef SPBLK_SPSV_GRID_CUH
#define SPBLK_SPSV_GRID_CUH

#include "spsv/solve.cuh"

// How a launch's warps draw tickets (a warp at a time: the same value in every lane). RESET =
// false: the counter (tickets[0]) and `ready` were reset before the launch (memsets); draws count
// up. RESET = true (SpSV's single launch, one_block.cu: nothing is reset before it): every warp
// draws until it draws past the last ticket, once, so a launch makes exactly count + warps draws,
// and atomicInc wraps the counter to 0 on the last of them. `ready` then holds two runs of n
// values: a launch publishes into the run of its parity (tickets[4]) and sets the other back to all
// bits set, ticket by ticket, for the next launch; the warp that draws last knows every other warp
// past its tickets, hence every row published and read, and flips the parity.
template <bool RESET> struct SpsvDraws {
    u32* words;
    u32 count;  // the launch's tickets
    u32 parity;
    __device__ __forceinline__ SpsvDraws(u32* tickets, u32 c) : words(tickets), count(c), parity(0) {
        if (RESET) {
            parity = *reinterpret_cast<volatile u32*>(&tickets[4]) & 1u;
            __threadfence();  // read before this warp's first draw, which precedes the flip
        }
    }
    __device__ __forceinline__ u32 last_draw() const { return count + gridDim.x * (blockDim.x / 32) - 1; }
    __device__ __forceinline__ u32 draw() const {
        u32 t = 0;
        if ((threadIdx.x & 31) == 0) t = RESET ? atomicInc(words, last_draw()) : atomicAdd(words, 1u);
        return __shfl_sync(SPBLK_FULL_MASK, t, 0);
    }
    // The run of `ready` this launch publishes into.
    template <class T> __device__ __forceinline__ T* ready(T* all, u32 n) const {
        return RESET ? all + (u64)parity * n : all;
    }
    // Position s of the next launch's run, back to "not published".
    template <class T> __device__ __forceinline__ void clear(T* all, u32 n, u32 s) const {
        typedef typename Ready<T>::Bits Bits;
        if (RESET) reinterpret_cast<Bits*>(all + (u64)(parity ^ 1u) * n)[s] = ~Bits(0);
    }
    // After the warp's draw k past the last ticket.
    __device__ __forceinline__ void finish(u32 k) const {
        if (RESET && k == last_draw() && (threadIdx.x & 31) == 0) {
            __threadfence();
            words[4] = parity ^ 1u;
        }
    }
};

// A thread per row for tickets of short rows, a warp for a long row's ticket. A thread never
// blocks: it holds up to SPSV_BATCH of its row's entries in registers, polls the rows they wait
// on together, adds the published ones in order, and the warp goes round until all its
// rows are done. A row of the same ticket (always an earlier lane) is read from that lane's
// register once the warp's ballot shows it done: a chain of neighbouring rows costs a round of
// the loop per row, not a trip through L2. A round in which no lane moves sleeps briefly, so
// that waiting warps leave L2 to the rows being published. A long row's entries all wait on
// earlier tickets: the warp sums them lane-strided (a fixed tree), waiting for each.
template <class T, class R, bool MANY, bool RESET>
__device__ void spsv_rows(u32 n, const u32* __restrict__ ticket_pos, const u32* __restrict__ ptr,
                          const u32* __restrict__ col, const T* __restrict__ val, const T* __restrict__ diag,
                          const u32* __restrict__ row_of, int unit, const SpsvColumns<T, MANY> all,
                          u32* counter, u32 tickets, T* ready_all, const T* alpha_dev, T alpha_h) {
    const int lane = threadIdx.x & 31;
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const SpsvDraws<RESET> draws(counter, tickets * all.count());
    u32 k;
    for (k = draws.draw(); k < draws.count; k = draws.draw()) {
        const u32 t = MANY ? k / all.cols : k, j = MANY ? k % all.cols : 0;
        const SpsvColumns<T, MANY> xy = all.at(j);
        T* ready = MANY ? ready_all + (u64)j * n : draws.ready(ready_all, n);
        const u32 first = ticket_pos[t], last = ticket_pos[t + 1];
        if (last - first == 1 && spsv_long(ptr, first)) {
            spsv_warp_row<T, R>(first, ptr, col, val, diag, row_of, unit, xy, ready, alpha);
            if (lane == 0) draws.clear(ready_all, n, first);
            continue;
        }
        const u32 s = first + lane;
        const bool valid = s < last;
        u32 p = 0, e = 0, row = 0;
        T xr = T(0), d = T(1);
        if (valid) {
            p = ptr[s];
            e = ptr[s + 1];
            row = row_of[s];
            xr = xy.x_of(row);
            d = diag[s];
        }
        T sum = T(0), mine = T(0);
        // The batch: entries bp .. bp + SPSV_BATCH (those at or past p are still to add).
        u32 bp = p, c[SPSV_BATCH];
        T v[SPSV_BATCH];
#pragma unroll
        for (int k = 0; k < SPSV_BATCH; ++k) {
            c[k] = bp + k < e ? col[bp + k] : 0;
            v[k] = bp + k < e ? val[bp + k] : T(0);
        }
        u32 done = __ballot_sync(SPBLK_FULL_MASK, !valid);
        while (done != SPBLK_FULL_MASK) {
            const bool active = !((done >> lane) & 1u);
            const u32 before = p;
            int src = lane;
            if (active && p < e) {
                typename R::Bits b[SPSV_BATCH];
#pragma unroll
                for (int k = 0; k < SPSV_BATCH; ++k)
                    if (bp + k >= p && bp + k < e && c[k] < first) b[k] = R::load(&ready[c[k]]);
                bool go = true;
#pragma unroll
                for (int k = 0; k < SPSV_BATCH; ++k) {
                    if (!go || bp + k < p || bp + k >= e) continue;
                    if (c[k] >= first) {
                        src = (int)(c[k] - first);
                        go = false;
                    } else if (R::none(b[k])) {
                        go = false;
                    } else {
                        sum = add_rn(sum, mul_rn(v[k], R::value(b[k])));
                        ++p;
                    }
                }
            }
            const T theirs = __shfl_sync(SPBLK_FULL_MASK, mine, src);
            if (src != lane && ((done >> src) & 1u)) {
                T vp = T(0);
#pragma unroll
                for (int k = 0; k < SPSV_BATCH; ++k)
                    if (bp + k == p) vp = v[k];
                sum = add_rn(sum, mul_rn(vp, theirs));
                ++p;
            }
            if (active && p < e && p == bp + SPSV_BATCH) {
                bp = p;
#pragma unroll
                for (int k = 0; k < SPSV_BATCH; ++k) {
                    c[k] = bp + k < e ? col[bp + k] : 0;
                    v[k] = bp + k < e ? val[bp + k] : T(0);
                }
            }
            if (active && p == e) mine = spsv_publish<T, R>(s, row, sum, alpha, xr, d, unit, xy, ready);
            const u32 now = __ballot_sync(SPBLK_FULL_MASK, !active || p == e);
            if (now == done && !__any_sync(SPBLK_FULL_MASK, p != before)) __nanosleep(32);
            done = now;
        }
        if (valid) draws.clear(ready_all, n, s);
    }
    draws.finish(k);
}

// A warp per position (and column), for matrices whose rows are long on average.
template <class T, class R, bool MANY, bool RESET>
__device__ void spsv_warp(u32 n, const u32* __restrict__ ptr, const u32* __restrict__ col, const T* __restrict__ val,
                          const T* __restrict__ diag, const u32* __restrict__ row_of, int unit,
                          const SpsvColumns<T, MANY> all, u32* counter, T* ready, const T* alpha_dev,
                          T alpha_h) {
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const SpsvDraws<RESET> draws(counter, n * all.count());
    u32 k;
    for (k = draws.draw(); k < draws.count; k = draws.draw()) {
        const u32 s = MANY ? k / all.cols : k, j = MANY ? k % all.cols : 0;
        spsv_warp_row<T, R>(s, ptr, col, val, diag, row_of, unit, all.at(j),
                            MANY ? ready + (u64)j * n : draws.ready(ready, n), alpha);
        if ((threadIdx.x & 31) == 0) draws.clear(ready, n, s);
    }
    draws.finish(k);
}

#endif
