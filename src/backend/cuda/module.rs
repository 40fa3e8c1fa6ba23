//! The kernels: one fatbin built by build.rs and embedded in the library, loaded once per
//! device, with every registered entry point looked up at load time (so a missing kernel is
//! an error when the handle is created, not in the middle of an operation).

use std::collections::HashMap;
use std::ffi::CString;

use cudarc::driver::sys;

use super::context::check;
use super::kernels;
use crate::error::{Error, Result};

/// The fatbin nvcc produced for this build.
pub static FATBIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/spblk.fatbin"));

pub struct Module {
    _module: sys::CUmodule,
    functions: HashMap<String, sys::CUfunction>,
}

/// Lets `f` take up to the device's opt-in maximum of shared memory per block (the default
/// stops at 48 KB), less what its static shared variables use.
fn allow_large_shared(f: sys::CUfunction, name: &str) -> Result<()> {
    let (mut dev, mut max, mut fixed) = (0, 0, 0);
    // SAFETY: out-pointers to locals; a context is current (Module::load's caller).
    unsafe {
        check(sys::cuCtxGetDevice(&mut dev), "cuCtxGetDevice")?;
        check(
            sys::cuDeviceGetAttribute(
                &mut max,
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                dev,
            ),
            "cuDeviceGetAttribute",
        )?;
        check(
            sys::cuFuncGetAttribute(&mut fixed, sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f),
            "cuFuncGetAttribute",
        )?;
        check(
            sys::cuFuncSetAttribute(
                f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                max - fixed,
            ),
            &format!("cuFuncSetAttribute (shared memory of {name})"),
        )
    }
}

impl Module {
    /// Loads the fatbin into the current context.
    pub fn load() -> Result<Module> {
        // cuModuleLoadData wants an aligned image; include_bytes! guarantees no alignment.
        let mut image = vec![0u64; FATBIN.len().div_ceil(8)];
        // SAFETY: the destination holds at least FATBIN.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(FATBIN.as_ptr(), image.as_mut_ptr() as *mut u8, FATBIN.len()) };
        let mut module: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: a context is current (the caller made it so); the image is a fatbin.
        check(
            unsafe { sys::cuModuleLoadData(&mut module, image.as_ptr() as *const _) },
            "cuModuleLoadData (spblk kernels)",
        )?;
        let mut functions = HashMap::new();
        for name in kernels::all() {
            let cname = CString::new(name.clone()).expect("kernel names have no NUL");
            let mut f: sys::CUfunction = std::ptr::null_mut();
            // SAFETY: module was loaded above; out-pointer to a local.
            let r = unsafe { sys::cuModuleGetFunction(&mut f, module, cname.as_ptr()) };
            if r != sys::CUresult::CUDA_SUCCESS {
                return Err(Error::internal(format!(
                    "kernel '{name}' is registered but missing from the embedded fatbin: {}",
                    super::context::describe(r)
                )));
            }
            if kernels::LARGE_SHARED.iter().any(|p| name.starts_with(p)) {
                allow_large_shared(f, &name)?;
            }
            functions.insert(name, f);
        }
        Ok(Module { _module: module, functions })
    }

    pub fn function(&self, name: &str) -> Result<sys::CUfunction> {
        self.functions
            .get(name)
            .copied()
            .ok_or_else(|| Error::internal(format!("kernel '{name}' is not in spblk's kernel registry")))
    }

    /// How many kernels were looked up (all of the registry's).
    pub fn kernel_count(&self) -> usize {
        self.functions.len()
    }
}
