//! What spblk's cuSPARSE compatibility library (`libcusparse.so.12`, generated from
//! compat/cusparse; docs/drop-in.md) needs from the core beyond the `spblk*` functions it
//! forwards to: one way to fail clearly for the cuSPARSE functions spblk does not implement.

use std::collections::HashSet;
use std::ffi::{c_char, CStr};
use std::io::Write;
use std::sync::{Mutex, OnceLock};

use super::boundary::entry;
use super::types::*;
use crate::error::{set_last_message, Error};

/// For the cuSPARSE compatibility library: reports that `function`, a cuSPARSE function name
/// ("cusparse" followed by letters, digits and underscores, at most 128 bytes), is not
/// implemented by spblk.
/// Records "<function>: not implemented by spblk" as this thread's last error message, logs
/// the call with `SPBLK_LOG`, writes the same line on stderr once per function and process
/// (cuSPARSE programs' error macros print only the status, whose text is generic), and
/// returns SPBLK_STATUS_NOT_SUPPORTED. SPBLK_STATUS_INVALID_VALUE if `function` is NULL or
/// not such a name.
#[no_mangle]
pub extern "C" fn spblkCompatNotSupported(function: *const c_char) -> spblkStatus_t {
    let mut name = String::new();
    let status = entry("spblkCompatNotSupported", || {
        if function.is_null() {
            return Err(Error::invalid("function", "is NULL"));
        }
        // SAFETY: non-NULL; NUL-terminated by the caller's contract (the generated shim passes
        // string literals).
        let bytes = unsafe { CStr::from_ptr(function) }.to_bytes();
        let valid = bytes.len() <= 128
            && bytes.starts_with(b"cusparse")
            && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_');
        if !valid {
            return Err(Error::invalid("function", "is not a cuSPARSE function name (cusparse[A-Za-z0-9_]*)"));
        }
        name = String::from_utf8_lossy(bytes).into_owned();
        Err(Error::not_supported(format!("{name}: not implemented by spblk")))
    });
    if status == SPBLK_STATUS_NOT_SUPPORTED {
        let line = format!("{name}: not implemented by spblk (it returns CUSPARSE_STATUS_NOT_SUPPORTED)");
        static PRINTED: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
        let first = PRINTED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner()).insert(name);
        if first {
            // Best effort: a closed stderr must not fail (or panic) the call.
            let _ = writeln!(std::io::stderr(), "spblk: {line}");
        }
        set_last_message(line);
    }
    status
}
