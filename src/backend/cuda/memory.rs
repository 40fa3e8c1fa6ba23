//! Device memory that the backend itself allocates and owns (never the caller's pointers):
//! SpGEMM's results between `compute` and `copy`, and uploads such as the VBR arrays of
//! `spblkAnalyze`.

use std::sync::Arc;

use cudarc::driver::sys;

use super::context::{check, describe, Device};
use super::launch::Launcher;
use crate::abi::SPBLK_STATUS_ALLOC_FAILED;
use crate::error::{Error, Result};
use crate::plan::Buffer;

/// A device allocation, freed on drop. `ptr` is 0 for an empty allocation.
pub struct DeviceAlloc {
    pub ptr: u64,
    pub bytes: usize,
    dev: Arc<Device>,
}

impl DeviceAlloc {
    /// Allocates `bytes` bytes on `dev` (whose context the caller made current).
    pub fn new(dev: &Arc<Device>, bytes: usize, what: &str) -> Result<DeviceAlloc> {
        let mut ptr = 0;
        if bytes > 0 {
            // SAFETY: out-pointer to a local; the context is current (Launcher::new).
            let r = unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) };
            if r != sys::CUresult::CUDA_SUCCESS {
                return Err(Error::new(
                    SPBLK_STATUS_ALLOC_FAILED,
                    format!("{what}: could not allocate {bytes} bytes of device memory: {}", describe(r)),
                ));
            }
        }
        Ok(DeviceAlloc { ptr, bytes, dev: dev.clone() })
    }

    /// A copy of `data` in device memory, complete when this returns (the copy is ordered on
    /// the handle's stream, which is then waited for, so `data` may be dropped).
    pub fn upload(l: &Launcher, dev: &Arc<Device>, data: &[u8]) -> Result<DeviceAlloc> {
        let a = DeviceAlloc::new(dev, data.len(), "upload")?;
        if !data.is_empty() {
            // SAFETY: a.ptr holds data.len() bytes; the source slice outlives the wait below.
            unsafe {
                check(
                    sys::cuMemcpyHtoDAsync_v2(a.ptr, data.as_ptr() as *const _, data.len(), l.stream),
                    "cuMemcpyHtoDAsync",
                )?;
                check(sys::cuStreamSynchronize(l.stream), "cuStreamSynchronize")?;
            }
        }
        Ok(a)
    }
}

impl DeviceAlloc {
    /// The allocation as a plan's buffer, which frees it when the plan is dropped.
    pub fn into_buffer(self) -> Buffer {
        let (addr, bytes) = (self.ptr, self.bytes);
        Buffer::new(addr, bytes, Box::new(self))
    }
}

impl Drop for DeviceAlloc {
    fn drop(&mut self) {
        let guard = if self.ptr != 0 { self.dev.enter().ok() } else { None };
        if guard.is_some() {
            // SAFETY: our own allocation. cuMemFree does not release memory that queued work
            // (a `copy` on a stream the caller may have destroyed since) still uses: it waits
            // for it. No explicit context-wide wait: that would also wait on, and invalidate,
            // another thread's stream being captured into a graph. Errors cannot be reported
            // from a destructor.
            unsafe {
                sys::cuMemFree_v2(self.ptr);
            }
        }
    }
}
