//! The C boundary's machinery: the panic-catching entry wrapper, the registry of live
//! objects (so that a NULL, destroyed or foreign pointer is an error, never a dereference),
//! and out-parameter helpers.

use std::collections::HashMap;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock};

use super::types::*;
use crate::error::{set_last_message, Error, Result};
use crate::trace;

/// Runs the body of an exported function: `Ok` → SUCCESS; `Err` → its status, with the
/// message stored for `spblkGetLastErrorMessage`; a panic → INTERNAL_ERROR, never unwinding
/// into C. With `SPBLK_LOG` set, the call's record becomes one log line (`crate::trace`).
pub fn entry(function: &'static str, body: impl FnOnce() -> Result<()>) -> spblkStatus_t {
    let traced = trace::begin(function);
    let status = run(function, body);
    if traced {
        let message = if status == SPBLK_STATUS_SUCCESS { String::new() } else { crate::error::last_message() };
        trace::finish(status, crate::error::status_name(status), &message);
    }
    status
}

/// [`entry`] for the legacy getters, which return their value and no status: on failure they
/// return `failed` (not a valid value of the enum) and leave the message as `entry` does.
pub fn entry_value<T: Copy>(function: &'static str, failed: T, body: impl FnOnce() -> Result<T>) -> T {
    let mut value = failed;
    entry(function, || {
        value = body()?;
        Ok(())
    });
    value
}

fn run(function: &str, body: impl FnOnce() -> Result<()>) -> spblkStatus_t {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => SPBLK_STATUS_SUCCESS,
        Ok(Err(e)) => {
            set_last_message(format!("{function}: {}", e.message));
            e.status
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            set_last_message(format!("{function}: internal error (panic: {what})"));
            SPBLK_STATUS_INTERNAL_ERROR
        }
    }
}

/// The kinds of objects C holds pointers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Handle,
    SpMat,
    DnMat,
    DnVec,
    SpVec,
    SpGemm,
    SpSv,
    SpSm,
    Csric02Info,
    Csrilu02Info,
    MatDescr,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Handle => "handle",
            Kind::SpMat => "sparse matrix descriptor",
            Kind::DnMat => "dense matrix descriptor",
            Kind::DnVec => "dense vector descriptor",
            Kind::SpVec => "sparse vector descriptor",
            Kind::SpGemm => "SpGEMM descriptor",
            Kind::SpSv => "SpSV descriptor",
            Kind::SpSm => "SpSM descriptor",
            Kind::Csric02Info => "csric02 info object",
            Kind::Csrilu02Info => "csrilu02 info object",
            Kind::MatDescr => "legacy matrix descriptor",
        }
    }
}

fn live() -> &'static Mutex<HashMap<usize, Kind>> {
    static LIVE: OnceLock<Mutex<HashMap<usize, Kind>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
}

fn live_kind(p: usize) -> Option<Kind> {
    live().lock().unwrap_or_else(|e| e.into_inner()).get(&p).copied()
}

/// Hands a new object to C.
pub fn register<T>(object: T, kind: Kind) -> *mut c_void {
    let p = Box::into_raw(Box::new(object)) as *mut c_void;
    live().lock().unwrap_or_else(|e| e.into_inner()).insert(p as usize, kind);
    p
}

/// Looks up a live object. A NULL pointer is `null_status`; a pointer that is not a live
/// object of this kind (destroyed, never created, another kind) is NOT_INITIALIZED.
///
/// # Safety
/// The returned reference must not outlive the object (C must not destroy it concurrently).
pub unsafe fn lookup<'a, T>(p: *const c_void, kind: Kind, arg: &str, null_status: spblkStatus_t) -> Result<&'a mut T> {
    // SAFETY: registered by `register::<T>` for this kind and not yet released.
    checked::<T>(p, kind, arg, null_status).map(|p| unsafe { &mut *p })
}

/// The object behind a C pointer, checked against the registry, not yet dereferenced.
fn checked<T>(p: *const c_void, kind: Kind, arg: &str, null_status: spblkStatus_t) -> Result<*mut T> {
    if p.is_null() {
        return Err(Error::new(null_status, format!("argument '{arg}' is NULL")));
    }
    match live_kind(p as usize) {
        Some(k) if k == kind => Ok(p as *mut T),
        Some(other) => Err(Error::not_initialized(arg, format!("is a {}, not a {}", other.name(), kind.name()))),
        None => Err(Error::not_initialized(arg, format!("is not a live {} (destroyed or never created)", kind.name()))),
    }
}

/// A handle: NULL and stale handles are NOT_INITIALIZED.
///
/// # Safety
/// As for [`lookup`].
pub unsafe fn handle<'a>(h: spblkHandle_t) -> Result<&'a mut super::handle::Handle> {
    // SAFETY: forwarded.
    let h: &mut super::handle::Handle =
        unsafe { lookup(h as *const c_void, Kind::Handle, "handle", SPBLK_STATUS_NOT_INITIALIZED)? };
    if trace::on() {
        trace::backend(format_args!("{:?}", h.backend.kind()));
    }
    Ok(h)
}

/// A descriptor argument: NULL is INVALID_VALUE, stale is NOT_INITIALIZED.
///
/// # Safety
/// As for [`lookup`].
pub unsafe fn descr<'a, T>(p: *const c_void, kind: Kind, arg: &str) -> Result<&'a mut T> {
    // SAFETY: forwarded.
    unsafe { lookup(p, kind, arg, SPBLK_STATUS_INVALID_VALUE) }
}

/// A descriptor argument that the call only reads: several arguments may name the same
/// descriptor, so operations take shared references (plans change behind their own lock).
///
/// # Safety
/// As for [`lookup`].
pub unsafe fn descr_ref<'a, T>(p: *const c_void, kind: Kind, arg: &str) -> Result<&'a T> {
    // SAFETY: registered by `register::<T>` for this kind and not yet released.
    checked::<T>(p, kind, arg, SPBLK_STATUS_INVALID_VALUE).map(|p| unsafe { &*p })
}

/// Takes an object back from C for destruction; NULL is a no-op (`Ok(None)`).
///
/// # Safety
/// C must not use the pointer afterwards (later uses are detected as stale).
pub unsafe fn release<T>(p: *const c_void, kind: Kind, arg: &str) -> Result<Option<Box<T>>> {
    if p.is_null() {
        return Ok(None);
    }
    let mut map = live().lock().unwrap_or_else(|e| e.into_inner());
    match map.get(&(p as usize)) {
        Some(k) if *k == kind => {
            map.remove(&(p as usize));
            // SAFETY: registered by `register::<T>` and removed from the registry just now, so
            // this is the only owner.
            Ok(Some(unsafe { Box::from_raw(p as *mut T) }))
        }
        _ => Err(Error::not_initialized(arg, format!("is not a live {} (destroyed twice?)", kind.name()))),
    }
}

/// Checks an out-parameter before any work, so that failures leave everything untouched.
pub fn out<T>(p: *mut T, arg: &str) -> Result<()> {
    if p.is_null() {
        return Err(Error::invalid(arg, "is NULL (output pointer required)"));
    }
    Ok(())
}

/// Writes an out-parameter checked with [`out`].
///
/// # Safety
/// `p` must be valid for a write of `T` (the C caller's promise).
pub unsafe fn write<T>(p: *mut T, value: T) {
    // SAFETY: non-null (checked by `out`), valid by the caller; unaligned-tolerant.
    unsafe { std::ptr::write_unaligned(p, value) }
}

/// Requires a non-NULL input pointer.
pub fn non_null<T>(p: *const T, arg: &str) -> Result<()> {
    if p.is_null() {
        return Err(Error::invalid(arg, "is NULL"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_internal_error_with_a_message() {
        let st = entry("spblkTest", || panic!("deliberate"));
        assert_eq!(st, SPBLK_STATUS_INTERNAL_ERROR);
        let msg = crate::error::last_message();
        assert!(msg.starts_with("spblkTest:") && msg.contains("deliberate"), "{msg}");
    }

    #[test]
    fn errors_set_the_message_and_success_keeps_it() {
        assert_eq!(entry("spblkA", || Err(Error::invalid("x", "is bad"))), SPBLK_STATUS_INVALID_VALUE);
        assert_eq!(crate::error::last_message(), "spblkA: argument 'x' is bad");
        assert_eq!(entry("spblkB", || Ok(())), SPBLK_STATUS_SUCCESS);
        assert_eq!(crate::error::last_message(), "spblkA: argument 'x' is bad");
    }

    #[test]
    fn registry_rejects_stale_and_foreign_pointers() {
        let p = register(5u32, Kind::DnVec);
        // SAFETY: registered above as a u32 DnVec.
        assert_eq!(unsafe { *lookup::<u32>(p, Kind::DnVec, "v", SPBLK_STATUS_INVALID_VALUE).unwrap() }, 5);
        // SAFETY: lookups never dereference unregistered pointers.
        let wrong = unsafe { lookup::<u32>(p, Kind::SpMat, "m", SPBLK_STATUS_INVALID_VALUE) };
        assert_eq!(wrong.unwrap_err().status, SPBLK_STATUS_NOT_INITIALIZED);
        // SAFETY: released once; the second release and lookup see a stale pointer.
        unsafe {
            assert!(release::<u32>(p, Kind::DnVec, "v").unwrap().is_some());
            assert_eq!(release::<u32>(p, Kind::DnVec, "v").unwrap_err().status, SPBLK_STATUS_NOT_INITIALIZED);
            assert!(lookup::<u32>(p, Kind::DnVec, "v", SPBLK_STATUS_INVALID_VALUE).is_err());
        }
    }
}
