//! cuSPARSE's logging environment variables: a program that switched from cuSPARSE and sets
//! `CUSPARSE_LOG_LEVEL` and `CUSPARSE_LOG_FILE` gets spblk's log lines there. Its own test
//! binary: the variables are read once per process, at the first call.

use std::ffi::c_void;

use spblk::capi::dense::*;
use spblk::capi::logger::*;
use spblk::capi::types::*;

#[test]
fn cusparse_log_variables_turn_the_logger_on() {
    let path = std::env::temp_dir().join(format!("spblk-cusparse-log-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    std::env::set_var("CUSPARSE_LOG_LEVEL", "1");
    std::env::set_var("CUSPARSE_LOG_FILE", &path);
    let mut one = 1f32;
    let st = spblkCreateDnVec(std::ptr::null_mut(), 1, &mut one as *mut f32 as *mut c_void, SPBLK_R_32F);
    assert_eq!(st, SPBLK_STATUS_INVALID_VALUE);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(text.contains("[spblk][Error][spblkCreateDnVec]") && text.contains("dnVecDescr"), "{text}");
    assert_eq!(text.lines().count(), 1, "level 1 logs errors only: {text}");
    // The functions win over the environment.
    assert_eq!(spblkLoggerSetLevel(0), SPBLK_STATUS_SUCCESS);
    let st = spblkCreateDnVec(std::ptr::null_mut(), 1, &mut one as *mut f32 as *mut c_void, SPBLK_R_32F);
    assert_eq!(st, SPBLK_STATUS_INVALID_VALUE);
    assert_eq!(std::fs::read_to_string(&path).unwrap_or_default().lines().count(), 1);
    let _ = std::fs::remove_file(&path);
}
