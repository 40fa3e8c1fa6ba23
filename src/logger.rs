//! cuSPARSE's logger (`spblkLogger*`, cuSPARSE's `cusparseLogger*`): the records of
//! `crate::trace` delivered by category to a callback, a C `FILE*`, a file, or stderr.
//! Categories, as cuSPARSE numbers them: 1 error (a call failed: its message), 2 trace (a call
//! launched kernels or host steps: their names), 3 hints (spblk gives none), 4 info (the
//! method a call ran and why), 5 API trace (every call's whole line). A level n turns on
//! categories 1..=n; a mask turns on category k with bit k-1. Off until a level or mask is set,
//! by the functions or, as with cuSPARSE, by `CUSPARSE_LOG_LEVEL` / `CUSPARSE_LOG_MASK` and
//! `CUSPARSE_LOG_FILE` (a path, `stdout` or `stderr`), read at the first call;
//! `spblkLoggerForceDisable` turns it off for the rest of the process.

use std::ffi::{c_char, c_int, c_void, CString};
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The callback type (`spblkLoggerCallback_t`).
pub type Callback = unsafe extern "C" fn(c_int, *const c_char, *const c_char);

/// Where lines go.
pub enum Sink {
    Stderr,
    Stdout,
    /// A C stream the caller opened (`spblkLoggerSetFile`); written with `fputs`.
    CFile(*mut c_void),
    File(std::fs::File),
    Callback(Callback),
}

// SAFETY: the C stream is only written under the logger's mutex; its owner promises it stays
// open while it is the logger's sink.
unsafe impl Send for Sink {}

struct State {
    mask: u32,
    sink: Sink,
}

static ACTIVE: AtomicBool = AtomicBool::new(false);
static FROM_ENV: std::sync::Once = std::sync::Once::new();
static DISABLED: AtomicBool = AtomicBool::new(false);
static STATE: Mutex<State> = Mutex::new(State { mask: 0, sink: Sink::Stderr });

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether any category is on (checked on every call: after the first, two atomic loads).
pub fn active() -> bool {
    FROM_ENV.call_once(from_env);
    ACTIVE.load(Ordering::Relaxed)
}

/// cuSPARSE's environment variables, for programs that switched from cuSPARSE: the mask wins
/// over the level; values out of range are ignored, and a file that cannot be opened leaves
/// the lines on stderr.
fn from_env() {
    let int = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse::<u32>().ok());
    let mask = match (int("CUSPARSE_LOG_MASK"), int("CUSPARSE_LOG_LEVEL")) {
        (Some(m), _) if m < 32 => m,
        (_, Some(l)) if l <= 5 => (1u32 << l) - 1,
        _ => return,
    };
    let mut s = state();
    if let Some(file) = std::env::var_os("CUSPARSE_LOG_FILE") {
        s.sink = match file.to_str() {
            Some("stdout") => Sink::Stdout,
            Some("stderr") => Sink::Stderr,
            _ => std::fs::OpenOptions::new().create(true).append(true).open(&file).map_or(Sink::Stderr, Sink::File),
        };
    }
    s.mask = mask;
    ACTIVE.store(mask != 0, Ordering::Relaxed);
}

/// The categories on: bit k-1 for category k (0..=31).
pub fn set_mask(mask: u32) {
    FROM_ENV.call_once(from_env); // the functions' settings win over the environment's
    let mut s = state();
    s.mask = if DISABLED.load(Ordering::Relaxed) { 0 } else { mask };
    ACTIVE.store(s.mask != 0, Ordering::Relaxed);
}

/// Categories 1..=level (0..=5).
pub fn set_level(level: u32) {
    set_mask((1u32 << level) - 1);
}

pub fn set_sink(sink: Sink) {
    FROM_ENV.call_once(from_env);
    state().sink = sink;
}

/// Off for the rest of the process, whatever is set later.
pub fn force_disable() {
    DISABLED.store(true, Ordering::Relaxed);
    set_mask(0);
}

extern "C" {
    fn fputs(s: *const c_char, stream: *mut c_void) -> c_int;
    fn fflush(stream: *mut c_void) -> c_int;
}

/// Delivers one message of `category` (1..=5) about `function`, if that category is on.
pub fn log(category: u32, function: &str, message: &str) {
    if !active() {
        return;
    }
    let s = state();
    if s.mask & (1 << (category - 1)) == 0 {
        return;
    }
    if let Sink::Callback(cb) = s.sink {
        // Called without the lock: a callback may call spblk, whose calls log in turn.
        drop(s);
        let f = CString::new(function.replace('\0', " ")).unwrap_or_default();
        let m = CString::new(message.replace('\0', " ")).unwrap_or_default();
        // SAFETY: the caller's callback; the strings live across the call.
        unsafe { cb(category as c_int, f.as_ptr(), m.as_ptr()) };
        return;
    }
    const NAMES: [&str; 5] = ["Error", "Trace", "Hint", "Info", "Api"];
    let line = format!("[spblk][{}][{function}] {message}\n", NAMES[category as usize - 1]);
    match &s.sink {
        Sink::Stderr => {
            let _ = std::io::stderr().write_all(line.as_bytes());
        }
        Sink::Stdout => {
            let _ = std::io::stdout().write_all(line.as_bytes());
        }
        Sink::File(f) => {
            let _ = (&*f).write_all(line.as_bytes());
        }
        Sink::CFile(stream) => {
            let text = CString::new(line.replace('\0', " ")).unwrap_or_default();
            // SAFETY: the caller's open stream (`spblkLoggerSetFile`), written under the lock.
            unsafe {
                fputs(text.as_ptr(), *stream);
                fflush(*stream);
            }
        }
        Sink::Callback(_) => {}
    }
}
