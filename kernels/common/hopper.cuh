// Hopper (sm_90a) primitives of the kernels that load tiles with the tensor-memory
// accelerator and multiply with wgmma: the TMA descriptor parameter, mbarriers, 2-D TMA
// loads, and wgmma's shared-memory matrix descriptor for 128-byte-swizzled tiles. Used by
// kernels/spmm/vbr_wgmma.cu (f16/bf16) and vbr_wgmma_f32.cu (split TF32).
#pragma once
#include "common/types.cuh"

// Only the sm_90a pass has these instructions; other passes compile the kernels' bodies out.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SPBLK_SM90A 1
#endif

namespace hopper {

// The driver's CUtensorMap (an opaque 128-byte TMA descriptor), by value as a
// __grid_constant__ parameter: TMA instructions take its address in parameter space.
struct alignas(64) TensorMap {
    u64 opaque[16];
};

constexpr int SWIZZLE = 1024;  // the 128-byte swizzle repeats every 8 rows of 128 bytes

#ifdef SPBLK_SM90A
__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(unsigned bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_expect(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned phase) {
    unsigned done = 0;
    while (!done)
        asm volatile(
            "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
            : "=r"(done)
            : "r"(bar), "r"(phase)
            : "memory");
}
// The barriers' initialisation made visible to the asynchronous proxy (TMA), by the thread
// that initialised them.
__device__ __forceinline__ void mbar_init_fence() {
    asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;" ::: "memory");
}
// A box of the 2-D tensor `map` at (inner c0, outer c1) into shared memory at `dst`.
__device__ __forceinline__ void tma_load(unsigned dst, const TensorMap* map, int c0, int c1, unsigned bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            dst),
        "l"((u64)map), "r"(c0), "r"(c1), "r"(bar)
        : "memory");
}

// The kernel's dynamic shared memory from `raw` up to the next swizzle period (128-byte
// swizzled tiles must start there). Traps when the launch gave less than `needed` bytes in all:
// the host's size and the kernel's layout disagree.
__device__ __forceinline__ unsigned char* swizzle_aligned(unsigned char* raw, unsigned needed) {
    unsigned given;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(given));
    if (given < needed) __trap();
    const unsigned at = smem_addr(raw);
    return raw + ((SWIZZLE - at % SWIZZLE) % SWIZZLE);
}

// wgmma's shared-memory matrix descriptor, 128-byte swizzle: start address, leading and
// stride byte offsets (all in 16-byte units).
__device__ __forceinline__ u64 desc(unsigned addr, unsigned lead, unsigned stride) {
    return (u64)((addr & 0x3FFFF) >> 4) | (u64)(lead >> 4) << 16 | (u64)(stride >> 4) << 32 | 1ull << 62;
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
// Commits the warpgroup's issued wgmma as one group.
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
// Waits for all of the warpgroup's committed groups.
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
// Both.
__device__ __forceinline__ void wgmma_commit_wait() {
    wgmma_commit();
    wgmma_wait();
}
#endif

}  // namespace hopper
