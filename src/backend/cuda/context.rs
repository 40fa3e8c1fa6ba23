//! The CUDA driver, the device and its primary context.
//!
//! The backend uses the device's primary context, the one the CUDA runtime uses, so memory
//! from `cudaMalloc` and streams from `cudaStreamCreate` work as they are. The driver library
//! is loaded at run time; without it every request fails with a message instead of the panic
//! that cudarc raises when the library is missing.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::result::DriverError;
use cudarc::driver::sys;

use super::module::Module;
use crate::abi::SPBLK_STATUS_NOT_INITIALIZED;
use crate::error::{Error, Result};

/// Turns a driver status into `EXECUTION_FAILED` naming the call and the driver's error.
pub fn check(r: sys::CUresult, what: &str) -> Result<()> {
    if r == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    Err(Error::execution_failed(format!("CUDA {what} failed: {}", describe(r))))
}

/// "CUDA_ERROR_X (text)" for a driver status.
pub fn describe(r: sys::CUresult) -> String {
    let e = DriverError(r);
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{r:?}"));
    match e.error_string() {
        Ok(text) => format!("{name} ({})", text.to_string_lossy()),
        Err(_) => name,
    }
}

fn not_initialized(why: String) -> Error {
    Error::new(SPBLK_STATUS_NOT_INITIALIZED, why)
}

/// Loads libcuda and runs `cuInit` once per process; the outcome is remembered.
fn driver() -> Result<()> {
    static INIT: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| {
        // cudarc panics when a driver symbol or the library is missing; keep that inside.
        std::panic::catch_unwind(|| {
            // SAFETY: only probes whether the library can be opened.
            if !unsafe { sys::is_culib_present() } {
                return Err("no CUDA driver library (libcuda.so) could be loaded on this machine; \
                            use the host backend (SPBLK_BACKEND_HOST, or SPBLK_BACKEND=host for spblkCreate)"
                    .to_string());
            }
            // SAFETY: cuInit has no preconditions.
            let r = unsafe { sys::cuInit(0) };
            if r != sys::CUresult::CUDA_SUCCESS {
                return Err(format!(
                    "the CUDA driver failed to initialize: {}; use the host backend (SPBLK_BACKEND_HOST)",
                    describe(r)
                ));
            }
            Ok(())
        })
        .unwrap_or_else(|_| Err("loading the CUDA driver failed (panic in the driver bindings)".to_string()))
    })
    .clone()
    .map_err(not_initialized)
}

/// One GPU: its primary context, the kernels loaded into it, and the figures that size grids.
/// Every use of it from an API call goes through [`Device::enter`].
pub struct Device {
    pub ordinal: i32,
    ctx: sys::CUcontext,
    pub sm_count: u32,
    /// Compute capability's major number (9 and up: thread-block clusters).
    pub cc_major: i32,
    /// Shared memory a block may take when its kernel opts in (bytes).
    pub shared_optin: u32,
    pub module: Module,
    /// Occupancy answers by (kernel, dynamic shared memory, cluster size): blocks per SM for
    /// cluster size 1, else clusters on the whole GPU. They never change for a device.
    pub occupancy: Mutex<HashMap<(String, u32, u32), u32>>,
}

// SAFETY: a CUcontext is a driver handle usable from any thread (the driver synchronizes
// internally); the module's handles likewise.
unsafe impl Send for Device {}
unsafe impl Sync for Device {}

impl Device {
    /// Makes this device's primary context current for the guard's lifetime, and restores the
    /// caller's current context (another device's, one the caller created, or none) after:
    /// a guest in the caller's process leaves its CUDA state as it found it.
    pub fn enter(&self) -> Result<ContextGuard> {
        ContextGuard::enter(self.ctx)
    }
}

/// While alive, a context is current on this thread; dropping it restores the previous one.
pub struct ContextGuard {
    pushed: bool,
    /// The push is per thread: the guard must be dropped on the thread that made it.
    _not_send: std::marker::PhantomData<*const ()>,
}

impl ContextGuard {
    fn enter(ctx: sys::CUcontext) -> Result<ContextGuard> {
        let mut current: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: out-pointer to a local.
        check(unsafe { sys::cuCtxGetCurrent(&mut current) }, "cuCtxGetCurrent")?;
        if current == ctx {
            return Ok(ContextGuard { pushed: false, _not_send: std::marker::PhantomData });
        }
        // SAFETY: ctx is a retained primary context that is never released.
        check(unsafe { sys::cuCtxPushCurrent_v2(ctx) }, "cuCtxPushCurrent")?;
        Ok(ContextGuard { pushed: true, _not_send: std::marker::PhantomData })
    }
}

impl Drop for ContextGuard {
    fn drop(&mut self) {
        if self.pushed {
            let mut popped: sys::CUcontext = std::ptr::null_mut();
            // SAFETY: pops the context pushed in `enter` on this thread (guards are not Send,
            // and nest: an inner guard is dropped before an outer one).
            unsafe { sys::cuCtxPopCurrent_v2(&mut popped) };
        }
    }
}

/// The device for a new handle: the device of the context current on this thread (as
/// `cudaSetDevice` leaves it), else device 0. One `Device` per ordinal per process; primary
/// contexts stay retained and modules loaded until the process ends, so handles are cheap.
pub fn device_for_this_thread() -> Result<Arc<Device>> {
    driver()?;
    let ordinal = current_ordinal()?;
    static DEVICES: OnceLock<Mutex<HashMap<i32, Arc<Device>>>> = OnceLock::new();
    let mut devices = DEVICES.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    if let Some(d) = devices.get(&ordinal) {
        return Ok(d.clone());
    }
    let d = Arc::new(open(ordinal)?);
    devices.insert(ordinal, d.clone());
    Ok(d)
}

fn current_ordinal() -> Result<i32> {
    let mut count = 0;
    // SAFETY: out-pointer to a local.
    check(unsafe { sys::cuDeviceGetCount(&mut count) }, "cuDeviceGetCount").map_err(|e| not_initialized(e.message))?;
    if count == 0 {
        return Err(not_initialized(
            "the CUDA driver reports no GPU; use the host backend (SPBLK_BACKEND_HOST)".to_string(),
        ));
    }
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: out-pointer to a local.
    if unsafe { sys::cuCtxGetCurrent(&mut ctx) } == sys::CUresult::CUDA_SUCCESS && !ctx.is_null() {
        let mut dev: sys::CUdevice = 0;
        // SAFETY: a context is current; out-pointer to a local.
        if unsafe { sys::cuCtxGetDevice(&mut dev) } == sys::CUresult::CUDA_SUCCESS {
            return Ok(dev);
        }
    }
    Ok(0)
}

fn open(ordinal: i32) -> Result<Device> {
    let mut dev: sys::CUdevice = 0;
    // SAFETY: out-pointers to locals; the driver is initialized.
    unsafe {
        check(sys::cuDeviceGet(&mut dev, ordinal), "cuDeviceGet")?;
    }
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: as above. The retain is never released: the context lives as long as the
    // process, like the runtime's.
    unsafe { check(sys::cuDevicePrimaryCtxRetain(&mut ctx, dev), "cuDevicePrimaryCtxRetain")? };
    let _current = ContextGuard::enter(ctx)?;
    let (mut major, mut sms, mut shared) = (0, 0, 0);
    // SAFETY: out-pointers to locals.
    unsafe {
        check(
            sys::cuDeviceGetAttribute(
                &mut major,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                dev,
            ),
            "cuDeviceGetAttribute",
        )?;
        check(
            sys::cuDeviceGetAttribute(&mut sms, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
            "cuDeviceGetAttribute",
        )?;
        check(
            sys::cuDeviceGetAttribute(
                &mut shared,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                dev,
            ),
            "cuDeviceGetAttribute",
        )?;
    }
    if major < 8 {
        return Err(Error::new(
            crate::abi::SPBLK_STATUS_ARCH_MISMATCH,
            format!("GPU {ordinal} has compute capability {major}.x; spblk's kernels need 8.0 or newer"),
        ));
    }
    let module = Module::load()?;
    Ok(Device {
        ordinal,
        ctx,
        sm_count: sms.max(1) as u32,
        cc_major: major,
        shared_optin: shared.max(0) as u32,
        module,
        occupancy: Mutex::default(),
    })
}
