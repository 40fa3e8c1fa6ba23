//! cuSPARSE's logger functions (`spblkLogger*`): categories by level and by mask, the callback
//! and the file sinks, the argument checks, and `spblkLoggerForceDisable`. Its own test binary:
//! the logger is process-wide state, and one test walks through it in order.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::Mutex;

use spblk::capi::dense::*;
use spblk::capi::handle::*;
use spblk::capi::logger::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::types::*;

static SEEN: Mutex<Vec<(i32, String, String)>> = Mutex::new(Vec::new());

unsafe extern "C" fn collect(level: c_int, function: *const c_char, message: *const c_char) {
    // SAFETY: the logger passes NUL-terminated strings that live across the call.
    let (f, m) = unsafe { (CStr::from_ptr(function), CStr::from_ptr(message)) };
    SEEN.lock().unwrap().push((level, f.to_string_lossy().into_owned(), m.to_string_lossy().into_owned()));
}

/// A callback that calls spblk itself (a failing call, which logs in turn): no deadlock.
unsafe extern "C" fn reenter(level: c_int, function: *const c_char, message: *const c_char) {
    thread_local!(static INSIDE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    // SAFETY: forwarded.
    unsafe { collect(level, function, message) };
    if !INSIDE.with(|i| i.replace(true)) {
        assert_eq!(spblkGetVersion(std::ptr::null_mut(), std::ptr::null_mut()), SPBLK_STATUS_NOT_INITIALIZED);
        INSIDE.with(|i| i.set(false));
    }
}

fn take() -> Vec<(i32, String, String)> {
    std::mem::take(&mut *SEEN.lock().unwrap())
}

/// A failing call (NULL out-parameter) and a successful one.
fn fail_and_succeed() {
    let mut one = 1f32;
    assert_eq!(spblkCreateDnVec(std::ptr::null_mut(), 1, &mut one as *mut f32 as *mut c_void, SPBLK_R_32F), 3);
    let mut v: spblkDnVecDescr_t = std::ptr::null_mut();
    assert_eq!(spblkCreateDnVec(&mut v, 1, &mut one as *mut f32 as *mut c_void, SPBLK_R_32F), SPBLK_STATUS_SUCCESS);
    assert_eq!(spblkDestroyDnVec(v), SPBLK_STATUS_SUCCESS);
}

/// A host SpMV: it runs a method and host steps (categories 2 and 4).
fn spmv() {
    let (mut ptr, mut col, mut val) = ([0i32, 1, 2], [0i32, 1], [2f32, 3.0]);
    let (mut x, mut y) = ([1f32; 2], [0f32; 2]);
    let (alpha, beta) = (1f32, 0f32);
    let mut h: spblkHandle_t = std::ptr::null_mut();
    assert_eq!(spblkCreateWithBackend(&mut h, SPBLK_BACKEND_HOST), SPBLK_STATUS_SUCCESS);
    let (mut a, mut dx, mut dy) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
    let p = |v: *mut i32| v as *mut c_void;
    let (i32i, f32t) = (SPBLK_INDEX_32I, SPBLK_R_32F);
    let st = spblkCreateCsr(
        &mut a,
        2,
        2,
        2,
        p(ptr.as_mut_ptr()),
        p(col.as_mut_ptr()),
        val.as_mut_ptr().cast(),
        i32i,
        i32i,
        0,
        f32t,
    );
    assert_eq!(st, SPBLK_STATUS_SUCCESS);
    assert_eq!(spblkCreateDnVec(&mut dx, 2, x.as_mut_ptr().cast(), f32t), SPBLK_STATUS_SUCCESS);
    assert_eq!(spblkCreateDnVec(&mut dy, 2, y.as_mut_ptr().cast(), f32t), SPBLK_STATUS_SUCCESS);
    let (al, be) = (&alpha as *const f32 as *const c_void, &beta as *const f32 as *const c_void);
    assert_eq!(spblkSpMV(h, 0, al, a, dx, be, dy, f32t, 0, std::ptr::null_mut()), SPBLK_STATUS_SUCCESS);
    assert_eq!(y, [2.0, 3.0]);
    spblkDestroySpMat(a);
    spblkDestroyDnVec(dx);
    spblkDestroyDnVec(dy);
    spblkDestroy(h);
}

#[test]
fn logger_delivers_categories_to_its_sinks() {
    // Off by default: nothing reaches the callback.
    assert_eq!(spblkLoggerSetCallback(Some(collect)), SPBLK_STATUS_SUCCESS);
    fail_and_succeed();
    assert!(take().is_empty(), "the logger is off until a level or mask is set");

    // Level 1: errors only, with the function and its message.
    assert_eq!(spblkLoggerSetLevel(1), SPBLK_STATUS_SUCCESS);
    fail_and_succeed();
    let seen = take();
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!((seen[0].0, seen[0].1.as_str()), (1, "spblkCreateDnVec"));
    assert!(seen[0].2.contains("INVALID_VALUE") && seen[0].2.contains("dnVecDescr"), "{}", seen[0].2);

    // Mask 16: the API trace, one line per call.
    assert_eq!(spblkLoggerSetMask(16), SPBLK_STATUS_SUCCESS);
    take(); // the setter's own line: the mask changed before its call ended
    fail_and_succeed();
    let seen = take();
    let names: Vec<&str> = seen.iter().map(|s| s.1.as_str()).collect();
    assert_eq!(names, ["spblkCreateDnVec", "spblkCreateDnVec", "spblkDestroyDnVec"], "{seen:?}");
    assert!(seen.iter().all(|s| s.0 == 5 && s.2.contains(&s.1)), "{seen:?}");

    // Mask 2 | 8: the steps a call ran and the method it chose.
    assert_eq!(spblkLoggerSetMask(2 | 8), SPBLK_STATUS_SUCCESS);
    take();
    spmv();
    let seen = take();
    assert!(seen.iter().any(|s| s.0 == 2 && s.1 == "spblkSpMV" && s.2.starts_with("ran host:")), "{seen:?}");
    assert!(seen.iter().any(|s| s.0 == 4 && s.1 == "spblkSpMV" && s.2.starts_with("method ")), "{seen:?}");
    assert!(seen.iter().all(|s| s.0 == 2 || s.0 == 4), "{seen:?}");

    // A callback that calls spblk: its call is logged too, and nothing deadlocks.
    assert_eq!(spblkLoggerSetCallback(Some(reenter)), SPBLK_STATUS_SUCCESS);
    assert_eq!(spblkLoggerSetLevel(1), SPBLK_STATUS_SUCCESS);
    take();
    fail_and_succeed();
    let names: Vec<String> = take().into_iter().map(|s| s.1).collect();
    assert_eq!(names, ["spblkCreateDnVec", "spblkGetVersion"]);

    // A file: lines appended, the callback no longer called.
    let path = std::env::temp_dir().join(format!("spblk-logger-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let c_path = CString::new(path.to_string_lossy().as_bytes()).unwrap();
    assert_eq!(spblkLoggerOpenFile(c_path.as_ptr()), SPBLK_STATUS_SUCCESS);
    assert_eq!(spblkLoggerSetLevel(5), SPBLK_STATUS_SUCCESS);
    fail_and_succeed();
    assert!(take().is_empty());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("[spblk][Error][spblkCreateDnVec]"), "{text}");
    assert_eq!(text.matches("[spblk][Api][spblkCreateDnVec]").count(), 2, "{text}");
    assert_eq!(text.matches("[spblk][Api][spblkDestroyDnVec]").count(), 1, "{text}");

    // Argument checks leave the settings alone.
    for (status, what) in [
        (spblkLoggerSetLevel(6), "level"),
        (spblkLoggerSetLevel(-1), "level"),
        (spblkLoggerSetMask(32), "mask"),
        (spblkLoggerOpenFile(std::ptr::null()), "logFile"),
        (spblkLoggerSetFile(std::ptr::null_mut()), "file"),
    ] {
        assert_eq!(status, SPBLK_STATUS_INVALID_VALUE, "{what}");
    }
    let missing = CString::new("/nonexistent-spblk-dir/log.txt").unwrap();
    assert_eq!(spblkLoggerOpenFile(missing.as_ptr()), SPBLK_STATUS_INVALID_VALUE);

    // Forced off: nothing more, whatever is set afterwards.
    assert_eq!(spblkLoggerSetCallback(Some(collect)), SPBLK_STATUS_SUCCESS);
    assert_eq!(spblkLoggerForceDisable(), SPBLK_STATUS_SUCCESS);
    take(); // SetCallback's own line went to the callback it set
    assert_eq!(spblkLoggerSetLevel(5), SPBLK_STATUS_SUCCESS);
    fail_and_succeed();
    assert!(take().is_empty(), "logged after spblkLoggerForceDisable");
    let _ = std::fs::remove_file(&path);
}
