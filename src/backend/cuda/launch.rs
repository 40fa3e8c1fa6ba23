//! Kernel launches on the caller's stream: argument packing, grid sizing, stream-ordered
//! memsets and the workspace carved out of the caller's buffer.

use std::ffi::c_void;

use cudarc::driver::sys;

use super::context::{check, ContextGuard, Device};
use crate::backend::{Exec, ScalarArg};
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{DataType, PointerMode};

pub(crate) const BLOCK: u32 = 256;

/// Kernel arguments, each in its own slot, large enough for a TMA descriptor (`CUtensorMap`,
/// 128 bytes). Scalars and pointers use a slot's first 8 bytes; parameters of 4 bytes (int,
/// float) read its first 4, which on little-endian x86-64/aarch64 hold the value.
#[derive(Default, Clone)]
pub struct Args {
    slots: Vec<[u64; 16]>,
}

impl Args {
    pub fn new() -> Self {
        Self::default()
    }
    fn word(mut self, v: u64) -> Self {
        let mut slot = [0; 16];
        slot[0] = v;
        self.slots.push(slot);
        self
    }
    /// A device address (a user pointer or a workspace slice); 0 is NULL.
    pub fn ptr(self, p: u64) -> Self {
        self.word(p)
    }
    pub fn i64(self, v: i64) -> Self {
        self.word(v as u64)
    }
    pub fn u64(self, v: u64) -> Self {
        self.word(v)
    }
    pub fn i32(self, v: i32) -> Self {
        self.word(v as u32 as u64)
    }
    pub fn u32(self, v: u32) -> Self {
        self.word(v as u64)
    }
    /// alpha or beta: the device pointer (pointer mode device) then the value (host mode).
    pub fn scalar(self, s: Scalar) -> Self {
        self.word(s.dev).word(s.bits)
    }
    /// The driver's parameter array: one pointer per slot (the slots must outlive the launch).
    fn params(&self) -> Vec<*mut c_void> {
        self.slots.iter().map(|s| s.as_ptr() as *mut c_void).collect()
    }
    /// A TMA descriptor, passed by value (a `__grid_constant__` parameter).
    pub fn tensor_map(mut self, m: &sys::CUtensorMap) -> Self {
        self.slots.push(m.opaque);
        self
    }
}

/// alpha/beta as the kernels take them: `dev` non-zero means "read it there".
#[derive(Clone, Copy, Debug)]
pub struct Scalar {
    pub dev: u64,
    pub bits: u64,
}

impl Scalar {
    /// Reads a host-mode scalar now (by value, so the caller's variable may change after the
    /// call returns, as with cuSPARSE); keeps a device-mode pointer for the kernel to read.
    pub fn new(s: &ScalarArg, compute: DataType, what: &str) -> Result<Scalar> {
        if s.ptr.is_null() {
            return Err(Error::invalid(what, "is NULL"));
        }
        match s.mode {
            PointerMode::Device => Ok(Scalar { dev: s.ptr as u64, bits: 0 }),
            // SAFETY: host pointer mode: a readable value of the compute type (unaligned read
            // tolerates any host address).
            PointerMode::Host => Ok(Scalar {
                dev: 0,
                bits: match compute {
                    DataType::F64 => unsafe { std::ptr::read_unaligned(s.ptr as *const f64) }.to_bits(),
                    _ => unsafe { std::ptr::read_unaligned(s.ptr as *const f32) }.to_bits() as u64,
                },
            }),
        }
    }

    /// Whether this is a host-mode 1 of the compute type (a device-mode value is unknown here).
    pub fn is_host_one(&self, compute: DataType) -> bool {
        self.dev == 0
            && match compute {
                DataType::F64 => self.bits == 1f64.to_bits(),
                _ => self.bits == 1f32.to_bits() as u64,
            }
    }
}

/// Launches kernels of one call on the handle's stream, with the device's context current
/// (the caller's is restored when the launcher is dropped).
pub struct Launcher<'a> {
    pub dev: &'a Device,
    pub stream: sys::CUstream,
    /// With `SPBLK_LOG=2`: events around the call's work, for its GPU time.
    timer: Option<(sys::CUevent, sys::CUevent)>,
    _context: ContextGuard,
}

impl<'a> Launcher<'a> {
    /// Enters the device's context and targets the handle's stream (NULL = legacy default
    /// stream).
    pub fn new(dev: &'a Device, exec: &Exec) -> Result<Self> {
        let context = dev.enter()?;
        let stream = exec.stream as sys::CUstream;
        let timer = if trace::level() >= 2 && trace::on() { start_timer(stream) } else { None };
        Ok(Launcher { dev, stream, timer, _context: context })
    }

    pub fn launch(&self, name: &str, grid: u32, block: u32, shared: u32, args: Args) -> Result<()> {
        trace::kernel(name);
        let f = self.dev.module.function(name)?;
        let mut params = args.params();
        // SAFETY: `f` comes from the loaded module; `params` point to live slots that
        // outlive the call (the driver copies them at launch); the argument list matches the
        // kernel's signature by construction of each call site.
        let r = unsafe {
            sys::cuLaunchKernel(
                f,
                grid.max(1),
                1,
                1,
                block,
                1,
                1,
                shared,
                self.stream,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        // The message is formatted only on failure (a launch is a few µs of host time).
        if r == sys::CUresult::CUDA_SUCCESS {
            return Ok(());
        }
        check(r, &format!("launch of {name}"))
    }

    /// `launch` in clusters of `cluster` consecutive thread blocks (sm_90 and newer; `grid`
    /// a multiple of `cluster`).
    pub fn launch_cluster(
        &self,
        name: &str,
        grid: u32,
        block: u32,
        shared: u32,
        cluster: u32,
        args: Args,
    ) -> Result<()> {
        if cluster <= 1 {
            return self.launch(name, grid, block, shared, args);
        }
        trace::kernel(name);
        let f = self.dev.module.function(name)?;
        let mut params = args.params();
        let mut attr = cluster_attribute(cluster);
        let config = self.config(grid, block, shared, &mut attr);
        // SAFETY: as in `launch`; `config` and `attr` outlive the call.
        let r = unsafe { sys::cuLaunchKernelEx(&config, f, params.as_mut_ptr(), std::ptr::null_mut()) };
        if r == sys::CUresult::CUDA_SUCCESS {
            return Ok(());
        }
        check(r, &format!("launch of {name} (clusters of {cluster})"))
    }

    fn config(&self, grid: u32, block: u32, shared: u32, attr: &mut sys::CUlaunchAttribute) -> sys::CUlaunchConfig {
        sys::CUlaunchConfig {
            gridDimX: grid,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: block,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: shared,
            hStream: self.stream,
            attrs: attr,
            numAttrs: 1,
        }
    }

    /// How many thread blocks of `name` (`cluster` 1) fit on one SM at once, or how many
    /// clusters of `cluster` blocks the whole GPU runs at once (clusters must fit inside one
    /// GPC, so this can be below SMs x blocks per SM / cluster); cached per device.
    pub fn occupancy(&self, name: &str, block: u32, shared: u32, cluster: u32) -> Result<u32> {
        let key = (name.to_string(), shared, cluster);
        if let Some(&n) = self.dev.occupancy.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(n);
        }
        let f = self.dev.module.function(name)?;
        let mut n = 0;
        if cluster <= 1 {
            // SAFETY: out-pointer to a local; `f` comes from the loaded module.
            check(
                unsafe { sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, block as i32, shared as usize) },
                "cuOccupancyMaxActiveBlocksPerMultiprocessor",
            )?;
        } else {
            let mut attr = cluster_attribute(cluster);
            let config = self.config(cluster, block, shared, &mut attr);
            // SAFETY: out-pointer to a local; `config` and `attr` outlive the call.
            check(unsafe { sys::cuOccupancyMaxActiveClusters(&mut n, f, &config) }, "cuOccupancyMaxActiveClusters")?;
        }
        let n = n.max(0) as u32;
        self.dev.occupancy.lock().unwrap_or_else(|e| e.into_inner()).insert(key, n);
        Ok(n)
    }

    /// Blocks for a grid-stride kernel over `work` items at `per_block` items per block,
    /// capped at 32 blocks per SM (the loops cover the rest).
    pub fn grid(&self, work: u64, per_block: u64) -> u32 {
        let cap = self.dev.sm_count as u64 * 32;
        work.div_ceil(per_block.max(1)).clamp(1, cap) as u32
    }

    /// The blocks of `name` (`BLOCK` threads, no dynamic shared memory) that run at once on the
    /// GPU: one wave of a kernel that walks its work in waves (kernels/spmm/segment.cuh,
    /// `WaveWalk`).
    pub fn wave_blocks(&self, name: &str) -> Result<u32> {
        Ok(self.occupancy(name, BLOCK, 0, 1)?.max(1) * self.dev.sm_count)
    }

    /// Blocks for a kernel whose blocks loop over `work` items (`per_block` each at a time) and
    /// that keeps `per_sm` blocks resident on every SM: no more blocks than run at once.
    pub fn resident_grid(&self, work: u64, per_block: u64, per_sm: u32) -> u32 {
        let cap = self.dev.sm_count as u64 * per_sm as u64;
        work.div_ceil(per_block.max(1)).clamp(1, cap) as u32
    }

    /// Sets `count` u32 words at `dst` to `value`, ordered on the stream (capturable).
    pub fn memset_u32(&self, dst: u64, value: u32, count: usize) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        // SAFETY: dst is a workspace slice of at least `count` words.
        check(unsafe { sys::cuMemsetD32Async(dst, value, count, self.stream) }, "cuMemsetD32Async")
    }

    /// Sets `count` bytes at `dst` to zero, ordered on the stream (capturable).
    pub fn zero_bytes(&self, dst: u64, count: usize) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        // SAFETY: dst is a device allocation of at least `count` bytes.
        check(unsafe { sys::cuMemsetD8Async(dst, 0, count, self.stream) }, "cuMemsetD8Async")
    }

    /// Copies device memory to the host and waits for it (and all earlier work on the stream).
    pub fn read(&self, src: u64, dst: &mut [u8]) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        // SAFETY: the caller guarantees `dst.len()` readable device bytes at `src`.
        unsafe {
            check(
                sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr() as *mut c_void, src, dst.len(), self.stream),
                "cuMemcpyDtoHAsync",
            )?;
            check(sys::cuStreamSynchronize(self.stream), "cuStreamSynchronize")
        }
    }

    /// Waits for the work queued on the stream (preprocess only: never in a product call).
    pub fn sync(&self) -> Result<()> {
        // SAFETY: plain driver call on the handle's stream.
        check(unsafe { sys::cuStreamSynchronize(self.stream) }, "cuStreamSynchronize")
    }

    /// Copies `bytes` bytes between device addresses, ordered on the stream.
    pub fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: both ranges are device memory of at least `bytes` bytes (the caller's).
        check(unsafe { sys::cuMemcpyDtoDAsync_v2(dst, src, bytes, self.stream) }, "cuMemcpyDtoDAsync")
    }

    pub fn read_u64s(&self, src: u64, n: usize) -> Result<Vec<u64>> {
        let mut bytes = vec![0u8; n * 8];
        self.read(src, &mut bytes)?;
        Ok(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect())
    }
}

/// The launch attribute for clusters of `cluster` x 1 x 1 blocks.
fn cluster_attribute(cluster: u32) -> sys::CUlaunchAttribute {
    // SAFETY: plain data; the union's cluster member is the one the attribute id names.
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    attr
}

fn start_timer(stream: sys::CUstream) -> Option<(sys::CUevent, sys::CUevent)> {
    let mut ev = [std::ptr::null_mut(); 2];
    for e in &mut ev {
        // SAFETY: out-pointer to a local; a context is current.
        if unsafe { sys::cuEventCreate(e, 0) } != sys::CUresult::CUDA_SUCCESS {
            return None;
        }
    }
    // SAFETY: a fresh event recorded on the caller's stream.
    unsafe { sys::cuEventRecord(ev[0], stream) };
    Some((ev[0], ev[1]))
}

impl Drop for Launcher<'_> {
    /// Logging level 2 only: waits for the call's work and reports its GPU time.
    fn drop(&mut self) {
        let Some((start, stop)) = self.timer.take() else { return };
        let mut ms = 0f32;
        // SAFETY: events made in `start_timer` on this context, destroyed once here.
        unsafe {
            if sys::cuEventRecord(stop, self.stream) == sys::CUresult::CUDA_SUCCESS
                && sys::cuEventSynchronize(stop) == sys::CUresult::CUDA_SUCCESS
                && sys::cuEventElapsedTime_v2(&mut ms, start, stop) == sys::CUresult::CUDA_SUCCESS
            {
                trace::gpu_ms(ms as f64);
            }
            sys::cuEventDestroy_v2(start);
            sys::cuEventDestroy_v2(stop);
        }
    }
}

/// Hands out 256-byte-aligned slices of a workspace. With base 0 it only measures, so one
/// layout function gives both the buffer size and the pointers.
pub struct Carve {
    base: u64,
    used: usize,
}

impl Carve {
    pub fn new(base: *mut c_void) -> Self {
        Carve { base: base as u64, used: 0 }
    }
    pub fn measure() -> Self {
        Carve { base: 0, used: 0 }
    }
    /// A slice of `bytes` bytes (address 0 when measuring or when `bytes` is 0).
    pub fn take(&mut self, bytes: usize) -> u64 {
        if bytes == 0 {
            return 0;
        }
        self.used = self.used.next_multiple_of(256);
        let p = if self.base == 0 { 0 } else { self.base + self.used as u64 };
        self.used += bytes;
        p
    }
    pub fn size(&self) -> usize {
        self.used
    }
    /// Where the next slice would start (for [`Carve::rewind`]).
    pub fn offset(&self) -> usize {
        self.used
    }
    /// Carves again from `offset` on: slices taken after an earlier `offset()` share that space
    /// with the ones taken before the rewind (for arrays whose lifetimes do not overlap).
    pub fn rewind(&mut self, offset: usize) {
        self.used = offset;
    }
}

/// The smallest power of two >= x, within [lo, hi].
pub fn pow2_clamp(x: u64, lo: u32, hi: u32) -> u32 {
    (x.max(1).next_power_of_two().min(hi as u64) as u32).max(lo)
}
