//! Errors inside the library and the thread-local "last error" message that the C API exposes.
//!
//! Every fallible path returns [`Error`], which carries the cuSPARSE-compatible status and a
//! one-line message naming the argument and the violated condition. The C boundary
//! (`capi::boundary`) prefixes the function name and stores it per thread.

use std::cell::RefCell;
use std::ffi::CStr;
use std::fmt;

use crate::abi::*;

/// A failed call: the status reported to C and a human-readable reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub status: spblkStatus_t,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(status: spblkStatus_t, message: impl Into<String>) -> Self {
        Error { status, message: message.into() }
    }
    /// A bad argument: `arg` is the C parameter name, `why` the violated condition.
    pub fn invalid(arg: &str, why: impl fmt::Display) -> Self {
        Self::new(SPBLK_STATUS_INVALID_VALUE, format!("argument '{arg}' {why}"))
    }
    /// A NULL or destroyed handle or descriptor.
    pub fn not_initialized(arg: &str, why: impl fmt::Display) -> Self {
        Self::new(SPBLK_STATUS_NOT_INITIALIZED, format!("argument '{arg}' {why}"))
    }
    /// A valid request the library does not implement (type combination, format, operation).
    pub fn not_supported(why: impl fmt::Display) -> Self {
        Self::new(SPBLK_STATUS_NOT_SUPPORTED, why.to_string())
    }
    pub fn internal(why: impl fmt::Display) -> Self {
        Self::new(SPBLK_STATUS_INTERNAL_ERROR, why.to_string())
    }
    pub fn execution_failed(why: impl fmt::Display) -> Self {
        Self::new(SPBLK_STATUS_EXECUTION_FAILED, why.to_string())
    }
    pub fn insufficient_resources(why: impl fmt::Display) -> Self {
        Self::new(SPBLK_STATUS_INSUFFICIENT_RESOURCES, why.to_string())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, status_name(self.status))
    }
}

impl std::error::Error for Error {}

/// Shorthand for returning an invalid-argument error when a condition fails.
#[macro_export]
macro_rules! ensure {
    ($cond:expr, $arg:expr, $($why:tt)+) => {
        if !$cond {
            return Err($crate::error::Error::invalid($arg, format!($($why)+)));
        }
    };
}

thread_local! {
    static LAST_MESSAGE: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Records the message of the last failed call on this thread.
pub fn set_last_message(message: String) {
    LAST_MESSAGE.with(|m| *m.borrow_mut() = message);
}

/// The message of the last failed call on this thread (empty if none failed yet).
pub fn last_message() -> String {
    LAST_MESSAGE.with(|m| m.borrow().clone())
}

/// The `SPBLK_STATUS_*` name of a status, or a fixed text for unknown values.
pub fn status_name(status: spblkStatus_t) -> &'static str {
    status_texts(status).0.to_str().unwrap_or("SPBLK_STATUS_UNKNOWN")
}

/// (name, description) of a status; both static and NUL-terminated for C.
pub fn status_texts(status: spblkStatus_t) -> (&'static CStr, &'static CStr) {
    match status {
        SPBLK_STATUS_SUCCESS => (c"SPBLK_STATUS_SUCCESS", c"success"),
        SPBLK_STATUS_NOT_INITIALIZED => {
            (c"SPBLK_STATUS_NOT_INITIALIZED", c"the handle or descriptor is NULL, destroyed or was never created")
        }
        SPBLK_STATUS_ALLOC_FAILED => (c"SPBLK_STATUS_ALLOC_FAILED", c"resource allocation failed"),
        SPBLK_STATUS_INVALID_VALUE => (
            c"SPBLK_STATUS_INVALID_VALUE",
            c"an argument is invalid (NULL pointer, bad size, out-of-range enum or mismatched dimensions)",
        ),
        SPBLK_STATUS_ARCH_MISMATCH => {
            (c"SPBLK_STATUS_ARCH_MISMATCH", c"the device does not support the requested feature")
        }
        SPBLK_STATUS_MAPPING_ERROR => (c"SPBLK_STATUS_MAPPING_ERROR", c"access to device memory failed"),
        SPBLK_STATUS_EXECUTION_FAILED => {
            (c"SPBLK_STATUS_EXECUTION_FAILED", c"a kernel or driver call failed to execute")
        }
        SPBLK_STATUS_INTERNAL_ERROR => (
            c"SPBLK_STATUS_INTERNAL_ERROR",
            c"an internal operation failed (a bug in spblk; see spblkGetLastErrorMessage)",
        ),
        SPBLK_STATUS_MATRIX_TYPE_NOT_SUPPORTED => {
            (c"SPBLK_STATUS_MATRIX_TYPE_NOT_SUPPORTED", c"the matrix type is not supported")
        }
        SPBLK_STATUS_ZERO_PIVOT => (c"SPBLK_STATUS_ZERO_PIVOT", c"a zero pivot was found"),
        SPBLK_STATUS_NOT_SUPPORTED => {
            (c"SPBLK_STATUS_NOT_SUPPORTED", c"the operation, type combination, format or backend is not supported")
        }
        SPBLK_STATUS_INSUFFICIENT_RESOURCES => {
            (c"SPBLK_STATUS_INSUFFICIENT_RESOURCES", c"the provided buffer or device resources are insufficient")
        }
        _ => (c"SPBLK_STATUS_UNKNOWN", c"unknown status value"),
    }
}
