//! Backend selection through the C API: the host backend always works; the CUDA backend
//! either works (a usable GPU) or fails cleanly with a status and a message, never a crash.

use std::io::Write;

use spblk::capi::handle::*;
use spblk::capi::types::*;

fn last_message() -> String {
    let mut buf = vec![0u8; 1024];
    let mut n = 0usize;
    spblkGetLastErrorMessage(buf.as_mut_ptr() as *mut _, buf.len(), &mut n);
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// Whether this machine can have a working CUDA backend at all (driver library present and
/// the backend compiled in).
fn gpu_possible() -> bool {
    #[cfg(feature = "cuda")]
    {
        // SAFETY: only probes whether the driver library can be opened.
        unsafe { cudarc::driver::sys::is_culib_present() }
    }
    #[cfg(not(feature = "cuda"))]
    {
        false
    }
}

#[test]
fn host_handle_works() {
    let mut h: spblkHandle_t = std::ptr::null_mut();
    assert_eq!(spblkCreateWithBackend(&mut h, SPBLK_BACKEND_HOST), SPBLK_STATUS_SUCCESS, "{}", last_message());
    assert!(!h.is_null());
    let mut b = 0;
    assert_eq!(spblkGetBackend(h, &mut b), SPBLK_STATUS_SUCCESS);
    assert_eq!(b, SPBLK_BACKEND_HOST);
    assert_eq!(spblkDestroy(h), SPBLK_STATUS_SUCCESS);
}

#[test]
fn cuda_handle_works_or_fails_cleanly() {
    let mut h: spblkHandle_t = std::ptr::null_mut();
    let status = spblkCreateWithBackend(&mut h, SPBLK_BACKEND_CUDA);
    if status == SPBLK_STATUS_SUCCESS {
        assert!(gpu_possible(), "a CUDA handle was created without a CUDA driver");
        let mut b = 0;
        assert_eq!(spblkGetBackend(h, &mut b), SPBLK_STATUS_SUCCESS);
        assert_eq!(b, SPBLK_BACKEND_CUDA);
        assert_eq!(spblkDestroy(h), SPBLK_STATUS_SUCCESS);
        let _ = writeln!(std::io::stderr(), "CUDA backend available: created and destroyed a handle");
        return;
    }
    let message = last_message();
    let _ = writeln!(std::io::stderr(), "CUDA backend unavailable (status {status}): {message}");
    assert!(
        status == SPBLK_STATUS_NOT_SUPPORTED || status == SPBLK_STATUS_NOT_INITIALIZED,
        "unexpected status {status}: {message}"
    );
    assert!(h.is_null(), "the handle must not be written on failure");
    assert!(message.starts_with("spblkCreateWithBackend: "), "message names the call: {message}");
    assert!(message.contains("CUDA"), "message says why: {message}");
    if !gpu_possible() {
        // Nothing else is possible here: the failure is the expected outcome.
        assert!(message.to_ascii_lowercase().contains("host"), "message points to the host backend: {message}");
    }
}
