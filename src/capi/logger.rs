//! cuSPARSE's logger functions (`crate::logger` does the work): what a cuSPARSE program calls
//! to see the library's messages. spblk's own `SPBLK_LOG` is independent of them.

use std::ffi::{c_char, c_int, CStr};

use super::boundary::{entry, non_null};
use super::types::*;
use crate::ensure;
use crate::error::Error;
use crate::logger::{self, Sink};

/// Sends the log lines to `callback` (category, function, message); NULL goes back to stderr.
#[no_mangle]
pub extern "C" fn spblkLoggerSetCallback(callback: spblkLoggerCallback_t) -> spblkStatus_t {
    entry("spblkLoggerSetCallback", || {
        logger::set_sink(callback.map_or(Sink::Stderr, Sink::Callback));
        Ok(())
    })
}

/// Writes the log lines to an open C stream, which must stay open while it is the sink.
#[no_mangle]
pub extern "C" fn spblkLoggerSetFile(file: *mut FILE) -> spblkStatus_t {
    entry("spblkLoggerSetFile", || {
        non_null(file, "file")?;
        logger::set_sink(Sink::CFile(file.cast()));
        Ok(())
    })
}

/// Appends the log lines to the file at `logFile` (created if needed).
#[no_mangle]
pub extern "C" fn spblkLoggerOpenFile(logFile: *const c_char) -> spblkStatus_t {
    entry("spblkLoggerOpenFile", || {
        non_null(logFile, "logFile")?;
        // SAFETY: non-NULL; NUL-terminated by the caller's contract.
        let path = unsafe { CStr::from_ptr(logFile) }.to_string_lossy().into_owned();
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| Error::invalid("logFile", format!("'{path}' cannot be opened: {e}")))?;
        logger::set_sink(Sink::File(file));
        Ok(())
    })
}

/// Turns on categories 1 to `level` (0: off; 1 error, 2 trace, 3 hints, 4 info, 5 API trace).
#[no_mangle]
pub extern "C" fn spblkLoggerSetLevel(level: c_int) -> spblkStatus_t {
    entry("spblkLoggerSetLevel", || {
        ensure!((0..=5).contains(&level), "level", "must be 0 to 5 (got {level})");
        logger::set_level(level as u32);
        Ok(())
    })
}

/// Turns on the categories whose bits are set (bit 0 error ... bit 4 API trace).
#[no_mangle]
pub extern "C" fn spblkLoggerSetMask(mask: c_int) -> spblkStatus_t {
    entry("spblkLoggerSetMask", || {
        ensure!((0..32).contains(&mask), "mask", "must be 0 to 31 (got {mask})");
        logger::set_mask(mask as u32);
        Ok(())
    })
}

/// Turns the logger off for the rest of the process.
#[no_mangle]
pub extern "C" fn spblkLoggerForceDisable() -> spblkStatus_t {
    entry("spblkLoggerForceDisable", || {
        logger::force_disable();
        Ok(())
    })
}
