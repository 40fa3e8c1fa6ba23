//! Test support: handles on either backend, memory on either side, random matrices, and the
//! C API calls shared by the comparison tests.

#![allow(dead_code)]

use std::ffi::c_void;

use cudarc::driver::sys;
use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use spblk::capi::handle::*;
use spblk::capi::types::*;

/// The random stream of a test; `SPBLK_TEST_SEED=n` shifts every test to other inputs.
pub fn rng(seed: u64) -> StdRng {
    let shift: u64 = std::env::var("SPBLK_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    StdRng::seed_from_u64(seed.wrapping_add(shift.wrapping_mul(1_000_003)))
}

/// Panics with the library's message when a call fails.
#[track_caller]
pub fn ok(status: spblkStatus_t, what: &str) {
    if status != SPBLK_STATUS_SUCCESS {
        panic!("{what} failed with status {status}: {}", last_message());
    }
}

pub fn last_message() -> String {
    let mut buf = vec![0u8; 1024];
    let mut n = 0usize;
    spblkGetLastErrorMessage(buf.as_mut_ptr() as *mut _, buf.len(), &mut n);
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// Whether the CUDA backend can run here; prints a visible SKIPPED line when not. The line
/// is written to stderr directly: libtest captures `eprintln!` of passing tests.
pub fn gpu(test: &str) -> bool {
    if harness_on_host() {
        return true;
    }
    let mut h: spblkHandle_t = std::ptr::null_mut();
    let status = spblkCreateWithBackend(&mut h, SPBLK_BACKEND_CUDA);
    if status != SPBLK_STATUS_SUCCESS {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: no usable CUDA backend ({})", last_message());
        return false;
    }
    ok(spblkDestroy(h), "spblkDestroy");
    true
}

/// `SPBLK_TEST_HARNESS_ON_HOST=1` runs the "CUDA" side on the host backend too: a check of
/// the tests themselves (case generation, protocol, tolerances) that needs no GPU.
pub fn harness_on_host() -> bool {
    std::env::var_os("SPBLK_TEST_HARNESS_ON_HOST").is_some()
}

/// Makes device 0's primary context current on this thread (tests allocate memory
/// themselves; spblk uses the same context).
fn make_current() {
    // SAFETY: driver calls with out-pointers to locals; the driver was initialized by spblk.
    unsafe {
        let mut dev = 0;
        assert_eq!(sys::cuDeviceGet(&mut dev, 0), sys::CUresult::CUDA_SUCCESS);
        let mut ctx = std::ptr::null_mut();
        assert_eq!(sys::cuDevicePrimaryCtxRetain(&mut ctx, dev), sys::CUresult::CUDA_SUCCESS);
        assert_eq!(sys::cuCtxSetCurrent(ctx), sys::CUresult::CUDA_SUCCESS);
    }
}

/// Device 0's compute capability, major number (a CUDA backend exists: `gpu` said so).
pub fn compute_capability_major() -> i32 {
    make_current();
    let mut major = 0;
    // SAFETY: out-pointer to a local; the driver is initialized.
    let r = unsafe {
        sys::cuDeviceGetAttribute(&mut major, sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0)
    };
    assert_eq!(r, sys::CUresult::CUDA_SUCCESS);
    major
}

/// The backends a test compares: the host, and CUDA where a GPU is present.
pub fn sides(test: &str) -> Vec<Kind> {
    if gpu(test) {
        vec![Kind::Host, Kind::Cuda]
    } else {
        vec![Kind::Host]
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Host,
    Cuda,
}

/// A handle and the memory of one side of a comparison. Memory stays alive (and device
/// memory allocated) until the side is dropped.
pub struct Side {
    pub kind: Kind,
    pub handle: spblkHandle_t,
    host: Vec<Vec<u64>>,
    dev: Vec<u64>,
}

impl Side {
    pub fn new(kind: Kind) -> Side {
        let kind = if harness_on_host() { Kind::Host } else { kind };
        let mut h: spblkHandle_t = std::ptr::null_mut();
        let b = match kind {
            Kind::Host => SPBLK_BACKEND_HOST,
            Kind::Cuda => SPBLK_BACKEND_CUDA,
        };
        ok(spblkCreateWithBackend(&mut h, b), "spblkCreateWithBackend");
        if kind == Kind::Cuda {
            make_current();
        }
        Side { kind, handle: h, host: Vec::new(), dev: Vec::new() }
    }

    /// Memory holding `bytes` (at least 16 bytes, so pointers are never NULL).
    pub fn put(&mut self, bytes: &[u8]) -> *mut c_void {
        let len = bytes.len().max(16);
        match self.kind {
            Kind::Host => {
                let mut v = vec![0u64; len.div_ceil(8)];
                // SAFETY: v holds at least bytes.len() bytes.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr() as *mut u8, bytes.len()) };
                let p = v.as_mut_ptr() as *mut c_void;
                self.host.push(v);
                p
            }
            Kind::Cuda => {
                let mut p = 0;
                // SAFETY: driver calls on the current context; sizes match.
                unsafe {
                    assert_eq!(sys::cuMemAlloc_v2(&mut p, len), sys::CUresult::CUDA_SUCCESS);
                    if !bytes.is_empty() {
                        assert_eq!(
                            sys::cuMemcpyHtoD_v2(p, bytes.as_ptr() as *const c_void, bytes.len()),
                            sys::CUresult::CUDA_SUCCESS
                        );
                    }
                }
                self.dev.push(p);
                p as *mut c_void
            }
        }
    }

    /// A workspace of `size` bytes filled with 0xFF garbage (NULL when size is 0).
    pub fn buffer(&mut self, size: usize) -> *mut c_void {
        if size == 0 {
            return std::ptr::null_mut();
        }
        self.put(&vec![0xFFu8; size])
    }

    /// Overwrites `len` bytes at `p` (from `put` or `buffer`) with 0xFF garbage: memory the
    /// library must no longer read.
    pub fn overwrite(&mut self, p: *mut c_void, len: usize) {
        let bytes = vec![0xFFu8; len];
        match self.kind {
            // SAFETY: p came from `put` with at least len bytes.
            Kind::Host => unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, len) },
            Kind::Cuda => {
                // SAFETY: as above, device memory.
                let r = unsafe { sys::cuMemcpyHtoD_v2(p as u64, bytes.as_ptr() as *const c_void, len) };
                assert_eq!(r, sys::CUresult::CUDA_SUCCESS, "cuMemcpyHtoD failed");
            }
        }
    }

    pub fn get(&self, p: *const c_void, len: usize) -> Vec<u8> {
        let mut out = vec![0u8; len];
        if len == 0 {
            return out;
        }
        match self.kind {
            // SAFETY: p came from `put` with at least len bytes.
            Kind::Host => unsafe { std::ptr::copy_nonoverlapping(p as *const u8, out.as_mut_ptr(), len) },
            Kind::Cuda => {
                // SAFETY: as above, device memory; the copy waits for the legacy stream.
                let r = unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, p as u64, len) };
                assert_eq!(r, sys::CUresult::CUDA_SUCCESS, "cuMemcpyDtoH failed: a kernel may have faulted");
            }
        }
        out
    }

    pub fn set_pointer_mode(&self, device: bool) {
        let mode = if device { SPBLK_POINTER_MODE_DEVICE } else { SPBLK_POINTER_MODE_HOST };
        ok(spblkSetPointerMode(self.handle, mode), "spblkSetPointerMode");
    }

    /// alpha/beta for the current pointer mode: host memory, or this side's memory.
    pub fn scalar(&mut self, device: bool, bytes: &[u8]) -> *const c_void {
        if device {
            self.put(bytes)
        } else {
            let v: Vec<u64> = vec![u64::from_le_bytes(pad8(bytes))];
            self.host.push(v);
            self.host.last().unwrap().as_ptr() as *const c_void
        }
    }

    pub fn sync(&self) {
        if self.kind == Kind::Cuda {
            // The legacy default stream, not the context: a context-wide wait would also wait
            // on (and invalidate) another test thread's stream that is being captured into a
            // graph (spmv_is_capturable_in_a_cuda_graph, on a non-blocking stream).
            // SAFETY: plain driver call.
            assert_eq!(
                unsafe { sys::cuStreamSynchronize(std::ptr::null_mut()) },
                sys::CUresult::CUDA_SUCCESS,
                "a kernel failed"
            );
        }
    }
}

impl Drop for Side {
    fn drop(&mut self) {
        spblkDestroy(self.handle);
        for &p in &self.dev {
            // SAFETY: our allocations.
            unsafe { sys::cuMemFree_v2(p) };
        }
    }
}

fn pad8(b: &[u8]) -> [u8; 8] {
    let mut a = [0u8; 8];
    a[..b.len()].copy_from_slice(b);
    a
}

// ---------------------------------------------------------------------------------------
// Values of every type as bytes.

pub fn vsize(t: spblkDataType_t) -> usize {
    match t {
        SPBLK_R_64F | SPBLK_C_32F => 8,
        SPBLK_R_16F | SPBLK_R_16BF => 2,
        SPBLK_R_8I => 1,
        SPBLK_C_64F => 16,
        _ => 4,
    }
}

pub fn encode(v: &[f64], t: spblkDataType_t) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * vsize(t));
    for &x in v {
        match t {
            SPBLK_R_32F => out.extend((x as f32).to_le_bytes()),
            SPBLK_R_64F => out.extend(x.to_le_bytes()),
            SPBLK_R_16F => out.extend(f16::from_f64(x).to_le_bytes()),
            SPBLK_R_16BF => out.extend(bf16::from_f64(x).to_le_bytes()),
            _ => panic!("encode: type {t}"),
        }
    }
    out
}

/// `v` rounded to type `t`.
pub fn as_type(v: f64, t: spblkDataType_t) -> f64 {
    decode(&encode(&[v], t), t)[0]
}

pub fn decode(b: &[u8], t: spblkDataType_t) -> Vec<f64> {
    b.chunks_exact(vsize(t))
        .map(|c| match t {
            SPBLK_R_32F => f32::from_le_bytes(c.try_into().unwrap()) as f64,
            SPBLK_R_64F => f64::from_le_bytes(c.try_into().unwrap()),
            SPBLK_R_16F => f16::from_le_bytes(c.try_into().unwrap()).to_f64(),
            SPBLK_R_16BF => bf16::from_le_bytes(c.try_into().unwrap()).to_f64(),
            _ => panic!("decode: type {t}"),
        })
        .collect()
}

pub fn abs_bytes(b: &[u8], t: spblkDataType_t) -> Vec<u8> {
    encode(&decode(b, t).iter().map(|x| x.abs()).collect::<Vec<_>>(), t)
}

pub fn idx_bytes(v: &[i64], ity: spblkIndexType_t) -> Vec<u8> {
    let mut out = Vec::new();
    for &x in v {
        match ity {
            SPBLK_INDEX_32I => out.extend((x as i32).to_le_bytes()),
            _ => out.extend(x.to_le_bytes()),
        }
    }
    out
}

pub fn idx_decode(b: &[u8], ity: spblkIndexType_t) -> Vec<i64> {
    match ity {
        SPBLK_INDEX_32I => b.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap()) as i64).collect(),
        _ => b.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect(),
    }
}

pub fn isize_of(ity: spblkIndexType_t) -> usize {
    if ity == SPBLK_INDEX_32I {
        4
    } else {
        8
    }
}

/// Random values in [-1, 1).
pub fn values(r: &mut StdRng, n: usize) -> Vec<f64> {
    (0..n).map(|_| r.gen_range(-1.0..1.0)).collect()
}

/// Multiples of 1/4 in [-1, 1]: exact in every type, and products and sums of them stay
/// exact in f32 for the sizes tested, so any summation order gives the same bits. Cases
/// built from these are compared exactly, which catches a dropped or doubled term that a
/// rounding tolerance on a long row would hide.
pub fn exact_values(r: &mut StdRng, n: usize) -> Vec<f64> {
    (0..n).map(|_| r.gen_range(-4..=4) as f64 / 4.0).collect()
}

/// `exact_values` or `values`.
pub fn some_values(r: &mut StdRng, n: usize, exact: bool) -> Vec<f64> {
    if exact {
        exact_values(r, n)
    } else {
        values(r, n)
    }
}

/// A scalar: exact (a multiple of 1/4) or random in [lo, hi).
pub fn some_scalar(r: &mut StdRng, lo: f64, hi: f64, exact: bool) -> f64 {
    let v = r.gen_range(lo..hi);
    if exact {
        (v * 4.0).round() / 4.0
    } else {
        v
    }
}

/// `SPBLK_TEST_QUICK=1` (used under compute-sanitizer) keeps one case in four.
pub fn quick_skip(k: usize) -> bool {
    std::env::var_os("SPBLK_TEST_QUICK").is_some() && k % 4 != 0
}

// ---------------------------------------------------------------------------------------
// Sparsity patterns.

#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// Row lengths uniform in 0..=2*avg.
    Uniform(usize),
    /// Half the rows empty.
    EmptyRows(usize),
    /// Short rows plus one row with every column.
    DenseRow,
    /// Row lengths with a heavy tail.
    PowerLaw,
    /// No entries at all.
    Empty,
    /// Row lengths uniform in 0..=2*avg, columns below `width` only.
    Within(usize, usize),
}

/// Entries (row, col) of a random m x n pattern, grouped by row, columns shuffled within
/// rows, no duplicates.
pub fn pattern(r: &mut StdRng, m: usize, n: usize, shape: Shape) -> Vec<(usize, usize)> {
    let mut e = Vec::new();
    if n == 0 {
        return e;
    }
    let dense_row = if m > 0 { r.gen_range(0..m) } else { 0 };
    let n = match shape {
        Shape::Within(_, width) => width.clamp(1, n),
        _ => n,
    };
    for i in 0..m {
        let len = match shape {
            Shape::Uniform(avg) | Shape::Within(avg, _) => r.gen_range(0..=2 * avg),
            Shape::EmptyRows(avg) => {
                if r.gen_bool(0.5) {
                    0
                } else {
                    r.gen_range(1..=2 * avg)
                }
            }
            Shape::DenseRow => {
                if i == dense_row {
                    n
                } else {
                    r.gen_range(0..4)
                }
            }
            Shape::PowerLaw => {
                let u: f64 = r.gen_range(0.0..1.0);
                ((n as f64) * u.powi(6)) as usize + r.gen_range(0..2)
            }
            Shape::Empty => 0,
        }
        .min(n);
        let mut cols: Vec<usize> = if len * 3 > n {
            let mut all: Vec<usize> = (0..n).collect();
            all.shuffle(r);
            all.truncate(len);
            all
        } else {
            // A BTreeSet keeps the pattern a function of the seed alone.
            let mut set = std::collections::BTreeSet::new();
            while set.len() < len {
                set.insert(r.gen_range(0..n));
            }
            set.into_iter().collect()
        };
        cols.shuffle(r);
        e.extend(cols.into_iter().map(|j| (i, j)));
    }
    e
}

/// A sparse matrix as the C API describes it.
#[derive(Clone)]
pub struct Sp {
    pub format: spblkFormat_t,
    pub rows: i64,
    pub cols: i64,
    pub nnz: i64,
    pub ity: spblkIndexType_t,
    pub base: spblkIndexBase_t,
    pub vt: spblkDataType_t,
    /// CSR: offsets, columns; CSC: offsets, rows; COO: rows, columns.
    pub a: Vec<u8>,
    pub b: Vec<u8>,
    pub v: Vec<u8>,
}

/// Offsets of `major` groups from a sorted-by-major key list.
fn offsets(keys: &[usize], major: usize, base: i64) -> Vec<i64> {
    let mut p = vec![0i64; major + 1];
    for &k in keys {
        p[k + 1] += 1;
    }
    for i in 0..major {
        p[i + 1] += p[i];
    }
    p.iter().map(|x| x + base).collect()
}

impl Sp {
    /// Builds the matrix in `format` from row-grouped entries with values; COO entries are
    /// shuffled (any order is valid), CSC groups by column keeping a random order.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        r: &mut StdRng,
        format: spblkFormat_t,
        rows: usize,
        cols: usize,
        entries: &[(usize, usize)],
        vals: &[f64],
        ity: spblkIndexType_t,
        base: spblkIndexBase_t,
        vt: spblkDataType_t,
    ) -> Sp {
        let b = base as i64;
        let mut order: Vec<usize> = (0..entries.len()).collect();
        match format {
            SPBLK_FORMAT_CSC => {
                order.shuffle(r);
                order.sort_by_key(|&k| entries[k].1);
            }
            SPBLK_FORMAT_COO => order.shuffle(r),
            _ => {}
        }
        let rows_of: Vec<i64> = order.iter().map(|&k| entries[k].0 as i64 + b).collect();
        let cols_of: Vec<i64> = order.iter().map(|&k| entries[k].1 as i64 + b).collect();
        let v: Vec<f64> = order.iter().map(|&k| vals[k]).collect();
        let (a, bb) = match format {
            SPBLK_FORMAT_CSR => {
                let keys: Vec<usize> = order.iter().map(|&k| entries[k].0).collect();
                (offsets(&keys, rows, b), cols_of)
            }
            SPBLK_FORMAT_CSC => {
                let keys: Vec<usize> = order.iter().map(|&k| entries[k].1).collect();
                (offsets(&keys, cols, b), rows_of)
            }
            _ => (rows_of, cols_of),
        };
        Sp {
            format,
            rows: rows as i64,
            cols: cols as i64,
            nnz: entries.len() as i64,
            ity,
            base,
            vt,
            a: idx_bytes(&a, ity),
            b: idx_bytes(&bb, ity),
            v: encode(&v, vt),
        }
    }

    pub fn descr(&self, side: &mut Side) -> spblkSpMatDescr_t {
        let (a, b, v) = (side.put(&self.a), side.put(&self.b), side.put(&self.v));
        self.descr_at(a, b, v)
    }

    pub fn descr_at(&self, a: *mut c_void, b: *mut c_void, v: *mut c_void) -> spblkSpMatDescr_t {
        use spblk::capi::sp_mat::*;
        let mut d: spblkSpMatDescr_t = std::ptr::null_mut();
        let s = match self.format {
            SPBLK_FORMAT_CSR => {
                spblkCreateCsr(&mut d, self.rows, self.cols, self.nnz, a, b, v, self.ity, self.ity, self.base, self.vt)
            }
            SPBLK_FORMAT_CSC => {
                spblkCreateCsc(&mut d, self.rows, self.cols, self.nnz, a, b, v, self.ity, self.ity, self.base, self.vt)
            }
            _ => spblkCreateCoo(&mut d, self.rows, self.cols, self.nnz, a, b, v, self.ity, self.base, self.vt),
        };
        ok(s, "create sparse descriptor");
        d
    }

    pub fn with_abs_values(&self) -> Sp {
        Sp { v: abs_bytes(&self.v, self.vt), ..self.clone() }
    }
}

/// A dense matrix with a random leading dimension padding.
#[derive(Clone)]
pub struct Dn {
    pub rows: i64,
    pub cols: i64,
    pub ld: i64,
    pub order: spblkOrder_t,
    pub vt: spblkDataType_t,
    pub data: Vec<u8>,
}

impl Dn {
    pub fn random(
        r: &mut StdRng,
        rows: usize,
        cols: usize,
        order: spblkOrder_t,
        vt: spblkDataType_t,
        exact: bool,
    ) -> Dn {
        Dn::random_ld_multiple(r, rows, cols, order, vt, exact, 1)
    }

    /// `random` with the leading dimension a multiple of `multiple` elements.
    pub fn random_ld_multiple(
        r: &mut StdRng,
        rows: usize,
        cols: usize,
        order: spblkOrder_t,
        vt: spblkDataType_t,
        exact: bool,
        multiple: usize,
    ) -> Dn {
        let inner = if order == SPBLK_ORDER_ROW { cols } else { rows };
        let outer = if order == SPBLK_ORDER_ROW { rows } else { cols };
        let ld = (inner.max(1) + if r.gen_bool(0.5) { 0 } else { r.gen_range(1..5) }).next_multiple_of(multiple);
        let data = encode(&some_values(r, ld * outer.max(1), exact), vt);
        Dn { rows: rows as i64, cols: cols as i64, ld: ld as i64, order, vt, data }
    }

    /// Same layout filled with NaN (an output that beta = 0 must not read).
    pub fn nan_like(&self) -> Dn {
        let n = self.data.len() / vsize(self.vt);
        Dn { data: encode(&vec![f64::NAN; n], self.vt), ..self.clone() }
    }

    pub fn with_abs_values(&self) -> Dn {
        Dn { data: abs_bytes(&self.data, self.vt), ..self.clone() }
    }

    pub fn descr(&self, p: *mut c_void) -> spblkDnMatDescr_t {
        let mut d = std::ptr::null_mut();
        ok(
            spblk::capi::dense::spblkCreateDnMat(&mut d, self.rows, self.cols, self.ld, p, self.vt, self.order),
            "spblkCreateDnMat",
        );
        d
    }

    /// Offsets of the logical elements (in row-major logical order).
    pub fn positions(&self) -> Vec<usize> {
        let mut v = Vec::new();
        for i in 0..self.rows as usize {
            for j in 0..self.cols as usize {
                v.push(if self.order == SPBLK_ORDER_ROW { i * self.ld as usize + j } else { i + j * self.ld as usize });
            }
        }
        v
    }
}

pub fn scalar_bytes(x: f64, compute: spblkDataType_t) -> Vec<u8> {
    encode(&[x], compute)
}

/// Checks `got` against the host's `want`: |got - want| <= tol * (terms + 1) * scale +
/// out_tol * |want|, where `scale` bounds the magnitude of the summed terms (the same
/// operation on absolute values). tol is 1e-6 (f32 compute) or 1e-14 (f64): about ten times
/// the worst-case rounding of two sums of `terms` products in any order, and within the
/// issue's 1e-5 / 1e-12 per row entry; f16/bf16 outputs may also differ by their own
/// rounding (out_tol = 2 ulp). With `exact` the bits must match. NaN or infinity never passes.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn compare(
    what: &str,
    got: &[f64],
    want: &[f64],
    scale: &[f64],
    terms: usize,
    out: spblkDataType_t,
    compute: spblkDataType_t,
    exact: bool,
) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if exact {
        for i in 0..got.len() {
            assert!(got[i].is_finite(), "{what}: element {i} is {}", got[i]);
            assert!(
                got[i].to_bits() == want[i].to_bits(),
                "{what}: element {i}: got {}, want {} (exact inputs)",
                got[i],
                want[i]
            );
        }
        return;
    }
    let tol = if compute == SPBLK_R_64F { 1e-14 } else { 1e-6 };
    let out_tol = match out {
        SPBLK_R_16F => 2f64.powi(-9),
        SPBLK_R_16BF => 2f64.powi(-6),
        _ => 0.0,
    };
    for i in 0..got.len() {
        let (g, w) = (got[i], want[i]);
        assert!(g.is_finite(), "{what}: element {i} is {g} (want {w})");
        assert!(w.is_finite(), "{what}: host reference element {i} is {w}");
        let bound = tol * (terms as f64 + 1.0) * scale[i].abs().max(1e-30) + out_tol * w.abs() + 1e-300;
        let err = (g - w).abs();
        assert!(err <= bound, "{what}: element {i}: got {g}, want {w} (error {err:e} > bound {bound:e})");
    }
}

/// The spacing of bf16 values at x's magnitude.
pub fn bf16_ulp(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    2f64.powi(x.abs().log2().floor() as i32 - 7)
}

pub fn random_type(r: &mut StdRng) -> spblkDataType_t {
    [SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F, SPBLK_R_16BF][r.gen_range(0..4)]
}

/// (input, output, compute) combinations spblk supports.
pub const PRECISIONS: [(spblkDataType_t, spblkDataType_t, spblkDataType_t); 6] = [
    (SPBLK_R_32F, SPBLK_R_32F, SPBLK_R_32F),
    (SPBLK_R_64F, SPBLK_R_64F, SPBLK_R_64F),
    (SPBLK_R_16F, SPBLK_R_32F, SPBLK_R_32F),
    (SPBLK_R_16BF, SPBLK_R_32F, SPBLK_R_32F),
    (SPBLK_R_16F, SPBLK_R_16F, SPBLK_R_32F),
    (SPBLK_R_16BF, SPBLK_R_16BF, SPBLK_R_32F),
];

/// Runs `calls` on `handle` while a new stream of its own is being captured into a graph
/// (thread-local mode, so other test threads are unaffected), asserts the capture stayed valid,
/// replays the graph once and waits for it; the handle is back on the legacy stream after.
/// Returns what `calls` returned (the caller checks the statuses it made under capture).
pub fn capture_and_replay<R>(handle: spblkHandle_t, calls: impl FnOnce() -> R) -> R {
    use cudarc::driver::sys;
    let mut stream: sys::CUstream = std::ptr::null_mut();
    // SAFETY: out-pointer to a local; the handle's context is current (Side::new).
    let made = unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32) };
    assert_eq!(made, sys::CUresult::CUDA_SUCCESS);
    ok(spblk::capi::handle::spblkSetStream(handle, stream as spblkStream_t), "spblkSetStream");
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    // SAFETY: capture on our own stream.
    let begin =
        unsafe { sys::cuStreamBeginCapture_v2(stream, sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) };
    assert_eq!(begin, sys::CUresult::CUDA_SUCCESS);
    let out = calls();
    // SAFETY: ends the capture begun above.
    let end = unsafe { sys::cuStreamEndCapture(stream, &mut graph) };
    assert_eq!(end, sys::CUresult::CUDA_SUCCESS, "the capture was invalidated");
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    // SAFETY: instantiate and replay the captured graph, wait for it, then free it all.
    unsafe {
        assert_eq!(sys::cuGraphInstantiateWithFlags(&mut exec, graph, 0), sys::CUresult::CUDA_SUCCESS);
        assert_eq!(sys::cuGraphLaunch(exec, stream), sys::CUresult::CUDA_SUCCESS);
        assert_eq!(sys::cuStreamSynchronize(stream), sys::CUresult::CUDA_SUCCESS);
        sys::cuGraphExecDestroy(exec);
        sys::cuGraphDestroy(graph);
    }
    ok(spblk::capi::handle::spblkSetStream(handle, std::ptr::null_mut()), "spblkSetStream");
    // SAFETY: nothing uses the stream any more.
    unsafe { sys::cuStreamDestroy_v2(stream) };
    out
}
