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
use crate::capi::types::SPBLK_STATUS_NOT_INITIALIZED;
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
pub struct Device {
    pub ordinal: i32,
    ctx: sys::CUcontext,
    pub sm_count: u32,
    pub module: Module,
}

// SAFETY: a CUcontext is a driver handle usable from any thread (the driver synchronizes
// internally); the module's handles likewise.
unsafe impl Send for Device {}
unsafe impl Sync for Device {}

impl Device {
    /// Makes the primary context current on the calling thread (every entry point does this,
    /// since the caller's thread may be new or may have another context current).
    pub fn make_current(&self) -> Result<()> {
        // SAFETY: ctx is a retained primary context that is never released.
        check(unsafe { sys::cuCtxSetCurrent(self.ctx) }, "cuCtxSetCurrent")
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
    // SAFETY: ctx was just retained.
    check(unsafe { sys::cuCtxSetCurrent(ctx) }, "cuCtxSetCurrent")?;
    let mut major = 0;
    let mut sms = 0;
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
    }
    if major < 8 {
        return Err(Error::new(
            crate::capi::types::SPBLK_STATUS_ARCH_MISMATCH,
            format!("GPU {ordinal} has compute capability {major}.x; spblk's kernels need 8.0 or newer"),
        ));
    }
    let module = Module::load()?;
    Ok(Device { ordinal, ctx, sm_count: sms.max(1) as u32, module })
}
