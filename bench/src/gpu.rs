//! The CUDA driver through cudarc's raw bindings (loaded at run time): the device's primary
//! context (the one spblk and cuSPARSE use), one stream shared by both libraries, device
//! buffers, copies, events and memory queries.

use std::ffi::c_void;

use cudarc::driver::sys;

pub type Res<T> = Result<T, String>;

/// "what failed: CUDA_ERROR_X" for a failed driver call.
pub fn ck(r: sys::CUresult, what: &str) -> Res<()> {
    if r == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed: {r:?}"))
    }
}

/// One GPU, its primary context made current on the calling thread, and the stream every
/// measured call is queued on.
pub struct Gpu {
    pub stream: sys::CUstream,
    pub name: String,
    pub cc: (i32, i32),
    pub sms: i32,
    pub l2_bytes: usize,
    pub total_mem: usize,
    pub driver_version: i32,
    /// From the memory clock and bus width the driver reports (bytes/s); a datasheet-style
    /// figure, not a measurement.
    pub nominal_bw: f64,
    ctx: sys::CUcontext,
}

impl Gpu {
    /// Opens device `ordinal`. `Err` says why there is no usable GPU.
    pub fn open(ordinal: i32) -> Res<Gpu> {
        // cudarc panics when a symbol or the library is missing; keep that inside.
        let probe = std::panic::catch_unwind(|| {
            // SAFETY: only probes whether libcuda can be opened.
            if !unsafe { sys::is_culib_present() } {
                return Err("no CUDA driver library (libcuda.so) could be loaded".to_string());
            }
            // SAFETY: no preconditions.
            ck(unsafe { sys::cuInit(0) }, "cuInit")?;
            let mut count = 0;
            // SAFETY: out-pointer to a local.
            ck(unsafe { sys::cuDeviceGetCount(&mut count) }, "cuDeviceGetCount")?;
            if count == 0 {
                return Err("the CUDA driver reports no GPU".to_string());
            }
            if ordinal >= count {
                return Err(format!("GPU {ordinal} requested but the driver reports {count}"));
            }
            Ok(())
        });
        probe.unwrap_or_else(|_| Err("loading the CUDA driver failed (panic in the driver bindings)".into()))?;

        let mut dev: sys::CUdevice = 0;
        let mut ctx: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: out-pointers to locals; the driver is initialized. The primary context is
        // retained for the life of the process, as spblk does.
        unsafe {
            ck(sys::cuDeviceGet(&mut dev, ordinal), "cuDeviceGet")?;
            ck(sys::cuDevicePrimaryCtxRetain(&mut ctx, dev), "cuDevicePrimaryCtxRetain")?;
            ck(sys::cuCtxSetCurrent(ctx), "cuCtxSetCurrent")?;
        }
        let attr = |a: sys::CUdevice_attribute| -> Res<i32> {
            let mut v = 0;
            // SAFETY: out-pointer to a local.
            ck(unsafe { sys::cuDeviceGetAttribute(&mut v, a, dev) }, "cuDeviceGetAttribute")?;
            Ok(v)
        };
        use sys::CUdevice_attribute as A;
        let cc = (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let sms = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        let l2_bytes = attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize;
        let mem_khz = attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)? as f64;
        let bus_bits = attr(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)? as f64;
        let mut name = [0 as std::ffi::c_char; 256];
        let mut total_mem = 0usize;
        let mut driver_version = 0;
        let mut stream: sys::CUstream = std::ptr::null_mut();
        // SAFETY: out-pointers to locals, lengths as given.
        unsafe {
            ck(sys::cuDeviceGetName(name.as_mut_ptr(), name.len() as i32, dev), "cuDeviceGetName")?;
            ck(sys::cuDeviceTotalMem_v2(&mut total_mem, dev), "cuDeviceTotalMem")?;
            ck(sys::cuDriverGetVersion(&mut driver_version), "cuDriverGetVersion")?;
            // A blocking stream (flags 0): it orders after the legacy default stream, which the
            // synchronous uploads below use.
            ck(sys::cuStreamCreate(&mut stream, 0), "cuStreamCreate")?;
        }
        // SAFETY: the driver wrote a NUL-terminated name.
        let name = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }.to_string_lossy().into_owned();
        Ok(Gpu {
            stream,
            name,
            cc,
            sms,
            l2_bytes,
            total_mem,
            driver_version,
            nominal_bw: 2.0 * mem_khz * 1e3 * bus_bits / 8.0,
            ctx,
        })
    }

    /// Makes the context current on this thread (spblk does this itself on every call).
    pub fn make_current(&self) -> Res<()> {
        // SAFETY: retained context.
        ck(unsafe { sys::cuCtxSetCurrent(self.ctx) }, "cuCtxSetCurrent")
    }

    pub fn alloc(&self, bytes: usize) -> Res<DevBuf> {
        let mut ptr = 0;
        if bytes > 0 {
            // SAFETY: out-pointer to a local.
            ck(unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) }, &format!("cuMemAlloc({bytes} bytes)"))?;
        }
        Ok(DevBuf { ptr, bytes })
    }

    /// A device copy of `data` (synchronous).
    pub fn upload<T: Copy>(&self, data: &[T]) -> Res<DevBuf> {
        let bytes = std::mem::size_of_val(data);
        let b = self.alloc(bytes)?;
        if bytes > 0 {
            self.sync()?;
            // SAFETY: b holds `bytes` bytes; data is a live slice of that size.
            ck(unsafe { sys::cuMemcpyHtoD_v2(b.ptr, data.as_ptr() as *const c_void, bytes) }, "cuMemcpyHtoD")?;
            // SAFETY: no preconditions.
            ck(unsafe { sys::cuCtxSynchronize() }, "cuCtxSynchronize")?;
        }
        Ok(b)
    }

    /// Reads `len` elements at device address `src` after the stream's work finishes.
    pub fn download<T: Copy + Default>(&self, src: u64, len: usize) -> Res<Vec<T>> {
        let mut v = vec![T::default(); len];
        if len > 0 {
            self.sync()?;
            // SAFETY: v holds len elements; src holds at least as many by the caller's word.
            ck(
                unsafe { sys::cuMemcpyDtoH_v2(v.as_mut_ptr() as *mut c_void, src, len * std::mem::size_of::<T>()) },
                "cuMemcpyDtoH",
            )?;
        }
        Ok(v)
    }

    /// Queues a device-to-device copy on the stream.
    pub fn copy(&self, dst: u64, src: u64, bytes: usize) -> Res<()> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: both ranges are device allocations of at least `bytes` (caller).
        ck(unsafe { sys::cuMemcpyDtoDAsync_v2(dst, src, bytes, self.stream) }, "cuMemcpyDtoDAsync")
    }

    /// Queues a fill of `count` 32-bit words with `value` (0xFFFF_FFFF is NaN for f32 and
    /// f64, and −1 for indices: the poison written before a checked run).
    pub fn fill_u32(&self, dst: u64, value: u32, count: usize) -> Res<()> {
        if count == 0 {
            return Ok(());
        }
        // SAFETY: dst holds count words (caller).
        ck(unsafe { sys::cuMemsetD32Async(dst, value, count, self.stream) }, "cuMemsetD32Async")
    }

    pub fn sync(&self) -> Res<()> {
        // SAFETY: our stream.
        ck(unsafe { sys::cuStreamSynchronize(self.stream) }, "cuStreamSynchronize")
    }

    /// (free, total) device memory.
    pub fn mem_info(&self) -> Res<(usize, usize)> {
        let (mut free, mut total) = (0, 0);
        // SAFETY: out-pointers to locals.
        ck(unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) }, "cuMemGetInfo")?;
        Ok((free, total))
    }

    pub fn event(&self) -> Res<Event> {
        let mut e: sys::CUevent = std::ptr::null_mut();
        // SAFETY: out-pointer to a local.
        ck(unsafe { sys::cuEventCreate(&mut e, 0) }, "cuEventCreate")?;
        Ok(Event(e))
    }

    pub fn record(&self, e: &Event) -> Res<()> {
        // SAFETY: live event, our stream.
        ck(unsafe { sys::cuEventRecord(e.0, self.stream) }, "cuEventRecord")
    }

    /// Milliseconds between two recorded events (both must have completed).
    pub fn elapsed_ms(&self, start: &Event, stop: &Event) -> Res<f64> {
        let mut ms = 0f32;
        // SAFETY: live events.
        unsafe {
            ck(sys::cuEventSynchronize(stop.0), "cuEventSynchronize")?;
            ck(sys::cuEventElapsedTime_v2(&mut ms, start.0, stop.0), "cuEventElapsedTime")?;
        }
        Ok(ms as f64)
    }

    /// Device-to-device copy bandwidth in bytes/s, counting bytes read plus bytes written:
    /// the median of 10 timed copies of up to 1 GiB after 3 warm-ups.
    pub fn copy_bandwidth(&self) -> Res<(f64, usize)> {
        let (free, _) = self.mem_info()?;
        let bytes = (1usize << 30).min(free / 8) & !0xfff;
        let a = self.alloc(bytes)?;
        let b = self.alloc(bytes)?;
        self.fill_u32(a.ptr, 0x3f80_0000, bytes / 4)?;
        for _ in 0..3 {
            self.copy(b.ptr, a.ptr, bytes)?;
        }
        let mut times = Vec::new();
        for i in 0..10 {
            let (s, e) = (self.event()?, self.event()?);
            self.record(&s)?;
            if i % 2 == 0 {
                self.copy(b.ptr, a.ptr, bytes)?;
            } else {
                self.copy(a.ptr, b.ptr, bytes)?;
            }
            self.record(&e)?;
            times.push(self.elapsed_ms(&s, &e)?);
        }
        let t = crate::stats::median(&times);
        Ok((2.0 * bytes as f64 / (t * 1e-3), bytes))
    }
}

/// A device allocation, freed on drop.
pub struct DevBuf {
    pub ptr: u64,
    pub bytes: usize,
}

impl Drop for DevBuf {
    fn drop(&mut self) {
        if self.ptr != 0 {
            // SAFETY: our allocation; cuMemFree waits for work using it. Errors cannot be
            // reported from a destructor.
            unsafe { sys::cuMemFree_v2(self.ptr) };
        }
    }
}

pub struct Event(sys::CUevent);

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: our event.
        unsafe { sys::cuEventDestroy_v2(self.0) };
    }
}

/// Where SpGEMM's buffers and output arrays come from.
pub trait DevAlloc {
    fn alloc(&mut self, bytes: usize) -> Res<u64>;
    /// Bytes handed out since creation or the last reset.
    fn in_use(&self) -> usize;
}

/// Real allocations (cuMemAlloc), kept until dropped: what a user program does, and what
/// `cuMemGetInfo` sees.
pub struct Tracked<'g> {
    gpu: &'g Gpu,
    pub bufs: Vec<DevBuf>,
}

impl<'g> Tracked<'g> {
    pub fn new(gpu: &'g Gpu) -> Self {
        Tracked { gpu, bufs: Vec::new() }
    }
}

impl DevAlloc for Tracked<'_> {
    fn alloc(&mut self, bytes: usize) -> Res<u64> {
        let b = self.gpu.alloc(bytes.max(1))?;
        let p = b.ptr;
        self.bufs.push(b);
        Ok(p)
    }
    fn in_use(&self) -> usize {
        self.bufs.iter().map(|b| b.bytes).sum()
    }
}

/// A bump allocator over one preallocated block, so that timed SpGEMM runs do not time
/// cuMemAlloc calls made by the benchmark itself.
pub struct Arena {
    block: DevBuf,
    used: usize,
}

impl Arena {
    pub fn new(gpu: &Gpu, bytes: usize) -> Res<Arena> {
        Ok(Arena { block: gpu.alloc(bytes.max(256))?, used: 0 })
    }
    pub fn reset(&mut self) {
        self.used = 0;
    }
}

impl DevAlloc for Arena {
    fn alloc(&mut self, bytes: usize) -> Res<u64> {
        let start = self.used.next_multiple_of(256);
        if start + bytes > self.block.bytes {
            return Err(format!("arena of {} bytes exhausted (asked for {bytes} more)", self.block.bytes));
        }
        self.used = start + bytes;
        Ok(self.block.ptr + start as u64)
    }
    fn in_use(&self) -> usize {
        self.used
    }
}
