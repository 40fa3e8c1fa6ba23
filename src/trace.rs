//! Observability. `SPBLK_LOG=1` writes one line per API call to stderr (or to the file named by
//! `SPBLK_LOG_FILE`): the function, the backend, the method that ran and why (the algorithm
//! asked for, or the statistic that made the default choose), the kernels launched with their
//! counts, and the operands' sizes. `SPBLK_LOG=2` adds the call's host time and, on CUDA, its
//! GPU time from events (which waits for the call's work to finish). Unset or 0: nothing is
//! recorded, and each hook costs one thread-local check.
//!
//! Tests read the same records without the environment through [`capture`].

use std::cell::{Cell, RefCell};
use std::fmt::{Display, Write as _};
use std::io::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// What one API call did.
#[derive(Debug, Clone, Default)]
pub struct Record {
    pub function: &'static str,
    pub backend: String,
    /// The method that ran (empty when the call chose none: descriptors, queries).
    pub method: String,
    /// Why that method: the algorithm asked for, or the default's deciding statistic.
    pub reason: String,
    /// Notes the backend added on how it ran the method (lanes per row, paths taken).
    pub notes: Vec<String>,
    /// Kernel names (or host steps) in launch order, each with how many times it ran.
    pub kernels: Vec<(String, u32)>,
    pub sizes: String,
    pub status: u32,
    /// The failure message, for calls that failed.
    pub message: String,
    pub host_us: f64,
    pub gpu_ms: Option<f64>,
}

impl Record {
    /// How many times kernels whose names start with `prefix` ran in this call.
    pub fn launches(&self, prefix: &str) -> u32 {
        self.kernels.iter().filter(|(k, _)| k.starts_with(prefix)).map(|(_, n)| n).sum()
    }
}

struct Config {
    level: u8,
    file: Option<Mutex<std::fs::File>>,
}

fn config() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(|| {
        let level = std::env::var("SPBLK_LOG").ok().and_then(|v| v.trim().parse::<u8>().ok()).unwrap_or(0);
        let file = std::env::var_os("SPBLK_LOG_FILE")
            .filter(|_| level > 0)
            .and_then(|path| std::fs::OpenOptions::new().create(true).append(true).open(path).ok())
            .map(Mutex::new);
        Config { level, file }
    })
}

/// The log level from `SPBLK_LOG` (0 when unset); level 2 asks for timings.
pub fn level() -> u8 {
    config().level
}

thread_local! {
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    static CAPTURED: RefCell<Vec<Record>> = const { RefCell::new(Vec::new()) };
    static CURRENT: RefCell<Option<(Record, Instant)>> = const { RefCell::new(None) };
}

/// Whether this thread's calls are recorded (logging on, or a test capturing).
fn recording() -> bool {
    config().level > 0 || CAPTURING.with(Cell::get) || crate::logger::active()
}

/// Starts the record of an API call; false when nothing is recorded (or a call is already
/// being recorded on this thread), in which case [`finish`] must not be called for it.
pub fn begin(function: &'static str) -> bool {
    if !recording() {
        return false;
    }
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_some() {
            return false;
        }
        *c = Some((Record { function, ..Default::default() }, Instant::now()));
        true
    })
}

/// Ends the record begun by [`begin`]: writes the log line and keeps it for [`capture`].
/// `message` is the failure's message (empty on success).
pub fn finish(status: u32, status_name: &str, message: &str) {
    let Some((mut r, start)) = CURRENT.with(|c| c.borrow_mut().take()) else { return };
    r.status = status;
    r.message = message.to_string();
    r.host_us = start.elapsed().as_secs_f64() * 1e6;
    let cfg = config();
    if cfg.level > 0 {
        let line = format_line(&r, status_name, cfg.level);
        match &cfg.file {
            Some(f) => {
                let _ = writeln!(f.lock().unwrap_or_else(|p| p.into_inner()), "{line}");
            }
            None => eprintln!("{line}"),
        }
    }
    if crate::logger::active() {
        deliver(&r, status_name);
    }
    if CAPTURING.with(Cell::get) {
        CAPTURED.with(|c| c.borrow_mut().push(r));
    }
}

/// The record to the cuSPARSE-style logger, by category (`crate::logger`).
fn deliver(r: &Record, status_name: &str) {
    use crate::logger::log;
    if !r.message.is_empty() {
        log(1, r.function, &format!("{status_name}: {}", r.message));
    }
    if !r.kernels.is_empty() {
        let k: Vec<String> = r.kernels.iter().map(|(k, n)| format!("{k} x{n}")).collect();
        log(2, r.function, &format!("ran {}", k.join(", ")));
    }
    if !r.method.is_empty() {
        log(4, r.function, &format!("method {} ({})", r.method, r.reason));
    }
    log(5, r.function, &format_line(r, status_name, 1));
}

fn format_line(r: &Record, status_name: &str, level: u8) -> String {
    let mut s = format!("spblk: {}", r.function);
    if !r.backend.is_empty() {
        let _ = write!(s, " backend={}", r.backend);
    }
    if !r.method.is_empty() {
        let _ = write!(s, " method={} ({})", r.method, r.reason);
    }
    if !r.notes.is_empty() {
        let _ = write!(s, " [{}]", r.notes.join("; "));
    }
    if !r.kernels.is_empty() {
        let k: Vec<String> =
            r.kernels.iter().map(|(k, n)| if *n > 1 { format!("{k}x{n}") } else { k.clone() }).collect();
        let _ = write!(s, " kernels={}", k.join(","));
    }
    if !r.sizes.is_empty() {
        let _ = write!(s, " {}", r.sizes);
    }
    let _ = write!(s, " -> {status_name}");
    if !r.message.is_empty() {
        let _ = write!(s, ": {}", r.message);
    }
    if level >= 2 {
        let _ = write!(s, " host={:.1}us", r.host_us);
        if let Some(ms) = r.gpu_ms {
            let _ = write!(s, " gpu={:.3}ms", ms);
        }
    }
    s
}

fn with_current(f: impl FnOnce(&mut Record)) {
    CURRENT.with(|c| {
        if let Some((r, _)) = c.borrow_mut().as_mut() {
            f(r)
        }
    });
}

/// Whether the current call is being recorded (to skip building costly notes).
pub fn on() -> bool {
    CURRENT.with(|c| c.borrow().is_some())
}

pub fn backend(name: impl Display) {
    with_current(|r| r.backend = name.to_string());
}

/// The method that runs and why.
pub fn choice(method: impl Display, reason: impl Display) {
    with_current(|r| {
        r.method = method.to_string();
        r.reason = reason.to_string();
    });
}

/// A detail of how the backend ran the method.
pub fn note(text: impl Display) {
    with_current(|r| r.notes.push(text.to_string()));
}

/// A kernel launch (or a host step), counted by name.
pub fn kernel(name: &str) {
    with_current(|r| match r.kernels.iter_mut().find(|(k, _)| k == name) {
        Some((_, n)) => *n += 1,
        None => r.kernels.push((name.to_string(), 1)),
    });
}

pub fn sizes(text: impl Display) {
    with_current(|r| r.sizes = text.to_string());
}

/// GPU time of part of the call's work; a call with several launch sequences adds them up.
pub fn gpu_ms(ms: f64) {
    with_current(|r| r.gpu_ms = Some(r.gpu_ms.unwrap_or(0.0) + ms));
}

/// Runs `f` with this thread's calls recorded, and returns their records.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, Vec<Record>) {
    let was = CAPTURING.with(|c| c.replace(true));
    let out = f();
    CAPTURING.with(|c| c.set(was));
    let records = CAPTURED.with(|c| std::mem::take(&mut *c.borrow_mut()));
    (out, records)
}
