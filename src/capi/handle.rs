//! Handle, version, stream, pointer mode, backend choice and error reporting.

use std::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

use super::boundary::{self, entry, out, write, Kind};
use super::types::*;
use crate::backend::{self, Backend, Exec};
use crate::error::{self, Error, Result};
use crate::types::{BackendKind, PointerMode};

/// What a `spblkHandle_t` points to.
pub struct Handle {
    pub backend: Arc<dyn Backend>,
    pub stream: *mut c_void,
    pub pointer_mode: PointerMode,
}

impl Handle {
    pub fn exec(&self) -> Exec {
        Exec { stream: self.stream, pointer_mode: self.pointer_mode }
    }
}

pub(crate) const VERSION_MAJOR: c_int = 0;
pub(crate) const VERSION_MINOR: c_int = 1;
pub(crate) const VERSION_PATCH: c_int = 0;

/// The backend `spblkCreate` picks: CUDA unless `SPBLK_BACKEND=host` (or `cuda`) says so.
fn backend_from_env() -> Result<BackendKind> {
    match std::env::var("SPBLK_BACKEND") {
        Err(_) => Ok(BackendKind::Cuda),
        Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
            "" | "cuda" => Ok(BackendKind::Cuda),
            "host" => Ok(BackendKind::Host),
            other => {
                Err(Error::invalid("SPBLK_BACKEND (environment)", format!("is '{other}'; expected 'cuda' or 'host'")))
            }
        },
    }
}

fn create(handle: *mut spblkHandle_t, kind: BackendKind) -> Result<()> {
    out(handle, "handle")?;
    let backend = backend::create(kind)?;
    let h = Handle { backend, stream: std::ptr::null_mut(), pointer_mode: PointerMode::Host };
    let p = boundary::register(h, Kind::Handle) as spblkHandle_t;
    // SAFETY: checked non-NULL above.
    unsafe { write(handle, p) };
    Ok(())
}

/// Creates a handle on the CUDA backend, or on the host backend when the environment
/// variable `SPBLK_BACKEND=host`. Never falls back silently: without a usable GPU the CUDA
/// backend fails and `spblkGetLastErrorMessage` says why.
#[no_mangle]
pub extern "C" fn spblkCreate(handle: *mut spblkHandle_t) -> spblkStatus_t {
    entry("spblkCreate", || create(handle, backend_from_env()?))
}

/// Creates a handle on an explicitly chosen backend (`SPBLK_BACKEND_CUDA` or `SPBLK_BACKEND_HOST`).
#[no_mangle]
pub extern "C" fn spblkCreateWithBackend(handle: *mut spblkHandle_t, backend: spblkBackend_t) -> spblkStatus_t {
    entry("spblkCreateWithBackend", || {
        out(handle, "handle")?;
        create(handle, BackendKind::decode(backend, "backend")?)
    })
}

/// Destroys a handle. Work already queued on its stream is not waited for (descriptors and
/// buffers belong to the caller).
#[no_mangle]
pub extern "C" fn spblkDestroy(handle: spblkHandle_t) -> spblkStatus_t {
    entry("spblkDestroy", || {
        if handle.is_null() {
            return Err(Error::not_initialized("handle", "is NULL"));
        }
        // SAFETY: the registry guarantees a live handle; C must not use it afterwards.
        unsafe { boundary::release::<Handle>(handle as *const c_void, Kind::Handle, "handle")? };
        Ok(())
    })
}

/// Reports which backend a handle runs on.
#[no_mangle]
pub extern "C" fn spblkGetBackend(handle: spblkHandle_t, backend: *mut spblkBackend_t) -> spblkStatus_t {
    entry("spblkGetBackend", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        out(backend, "backend")?;
        // SAFETY: checked non-NULL.
        unsafe { write(backend, h.backend.kind().to_c()) };
        Ok(())
    })
}

/// Sets the stream the handle's work is queued on (NULL = legacy default stream).
#[no_mangle]
pub extern "C" fn spblkSetStream(handle: spblkHandle_t, streamId: spblkStream_t) -> spblkStatus_t {
    entry("spblkSetStream", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        h.stream = streamId as *mut c_void;
        Ok(())
    })
}

/// Reads the handle's stream.
#[no_mangle]
pub extern "C" fn spblkGetStream(handle: spblkHandle_t, streamId: *mut spblkStream_t) -> spblkStatus_t {
    entry("spblkGetStream", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        out(streamId, "streamId")?;
        // SAFETY: checked non-NULL.
        unsafe { write(streamId, h.stream as spblkStream_t) };
        Ok(())
    })
}

/// Library version as MAJOR*1000 + MINOR*100 + PATCH (cuSPARSE's encoding).
#[no_mangle]
pub extern "C" fn spblkGetVersion(handle: spblkHandle_t, version: *mut c_int) -> spblkStatus_t {
    entry("spblkGetVersion", || {
        // SAFETY: registry-checked handle.
        unsafe { boundary::handle(handle)? };
        out(version, "version")?;
        // SAFETY: checked non-NULL.
        unsafe { write(version, VERSION_MAJOR * 1000 + VERSION_MINOR * 100 + VERSION_PATCH) };
        Ok(())
    })
}

/// One part of the version: `SPBLK_MAJOR_VERSION`, `SPBLK_MINOR_VERSION` or `SPBLK_PATCH_LEVEL`.
#[no_mangle]
pub extern "C" fn spblkGetProperty(type_: spblkLibraryPropertyType_t, value: *mut c_int) -> spblkStatus_t {
    entry("spblkGetProperty", || {
        let v = match type_ {
            SPBLK_MAJOR_VERSION => VERSION_MAJOR,
            SPBLK_MINOR_VERSION => VERSION_MINOR,
            SPBLK_PATCH_LEVEL => VERSION_PATCH,
            other => {
                return Err(Error::invalid("type", format!("has out-of-range value {other} for libraryPropertyType")))
            }
        };
        out(value, "value")?;
        // SAFETY: checked non-NULL.
        unsafe { write(value, v) };
        Ok(())
    })
}

/// The status's constant name, e.g. "SPBLK_STATUS_INVALID_VALUE" (static; never NULL).
#[no_mangle]
pub extern "C" fn spblkGetErrorName(status: spblkStatus_t) -> *const c_char {
    error::status_texts(status).0.as_ptr()
}

/// A one-sentence description of the status (static; never NULL). For the reason a call
/// failed, see `spblkGetLastErrorMessage`.
#[no_mangle]
pub extern "C" fn spblkGetErrorString(status: spblkStatus_t) -> *const c_char {
    error::status_texts(status).1.as_ptr()
}

/// Copies this thread's last failure message ("function: argument 'x' violated condition")
/// into `buf` (at most `len` bytes including the terminating NUL, truncated if needed) and
/// stores in `*written` the number of bytes written, without the NUL. With `buf` NULL and
/// `len` 0 it stores the full length. Failures of this call do not replace the message.
#[no_mangle]
pub extern "C" fn spblkGetLastErrorMessage(buf: *mut c_char, len: usize, written: *mut usize) -> spblkStatus_t {
    let result = std::panic::catch_unwind(|| {
        if written.is_null() || (buf.is_null() && len != 0) {
            return SPBLK_STATUS_INVALID_VALUE;
        }
        let msg = error::last_message();
        if buf.is_null() {
            // SAFETY: checked non-NULL.
            unsafe { write(written, msg.len()) };
            return SPBLK_STATUS_SUCCESS;
        }
        if len == 0 {
            return SPBLK_STATUS_INVALID_VALUE;
        }
        let n = msg.len().min(len - 1);
        // SAFETY: `buf` holds `len` bytes by the caller's promise; n + 1 <= len.
        unsafe {
            std::ptr::copy_nonoverlapping(msg.as_ptr(), buf as *mut u8, n);
            *buf.add(n) = 0;
            write(written, n);
        }
        SPBLK_STATUS_SUCCESS
    });
    result.unwrap_or(SPBLK_STATUS_INTERNAL_ERROR)
}

/// Sets whether alpha and beta are read from host memory or the handle's memory.
#[no_mangle]
pub extern "C" fn spblkSetPointerMode(handle: spblkHandle_t, mode: spblkPointerMode_t) -> spblkStatus_t {
    entry("spblkSetPointerMode", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        h.pointer_mode = PointerMode::decode(mode, "mode")?;
        Ok(())
    })
}

/// Reads the pointer mode.
#[no_mangle]
pub extern "C" fn spblkGetPointerMode(handle: spblkHandle_t, mode: *mut spblkPointerMode_t) -> spblkStatus_t {
    entry("spblkGetPointerMode", || {
        // SAFETY: registry-checked handle.
        let h = unsafe { boundary::handle(handle)? };
        out(mode, "mode")?;
        // SAFETY: checked non-NULL.
        unsafe { write(mode, h.pointer_mode.to_c()) };
        Ok(())
    })
}
