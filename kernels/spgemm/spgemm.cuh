// SpGEMM shared definitions: row bins by intermediate-product count and hash tables.
//
// Bins (products P of a row): 0: P = 0; 1..4: shared-memory hash table per warp of
// BIN_TABLE[b] slots (>= 2P, so probing always terminates); 5: "huge" rows with a table in
// global memory of huge_table_size(P, n) slots. src/backend/cuda/spgemm.rs mirrors these.
#pragma once
#include "common/warp.cuh"

#define SPGEMM_BINS 6
#define SPGEMM_HUGE_BIN 5
#define SPGEMM_EMPTY 0xffffffffu
// stats[] layout written by the work estimation: row counts per bin, then the sum of the
// huge rows' table sizes.
#define SPGEMM_STAT_POOL 6
#define SPGEMM_STATS 8

__device__ __forceinline__ int spgemm_bin(u64 P) {
    if (P == 0) return 0;
    if (P <= 32) return 1;
    if (P <= 256) return 2;
    if (P <= 1024) return 3;
    if (P <= 2048) return 4;
    return SPGEMM_HUGE_BIN;
}

// Global table of a huge row: a power of two >= 2 * (the most distinct columns it can have).
__device__ __forceinline__ u64 huge_table_size(u64 P, u64 n) {
    u64 d = P < n ? P : n;
    u64 s = 64;
    while (s < 2 * d) s <<= 1;
    return s;
}

__device__ __forceinline__ u32 hash_slot(u32 c, u32 mask) { return (c * 2654435761u) & mask; }

// Inserts c (atomically: lanes insert concurrently); returns its slot and sets `inserted`
// when this call added it.
__device__ __forceinline__ u32 hash_insert(u32* keys, u32 mask, u32 c, bool& inserted) {
    u32 h = hash_slot(c, mask);
    while (true) {
        u32 old = atomicCAS(&keys[h], SPGEMM_EMPTY, c);
        if (old == SPGEMM_EMPTY || old == c) {
            inserted = old == SPGEMM_EMPTY;
            return h;
        }
        h = (h + 1) & mask;
    }
}

// Slot of a key known to be present (tables built by the symbolic pass; read-only now).
__device__ __forceinline__ u64 hash_find(const u32* keys, u64 mask, u32 c) {
    u64 h = hash_slot(c, (u32)mask) & mask;
    while (keys[h] != c) h = (h + 1) & mask;
    return h;
}
