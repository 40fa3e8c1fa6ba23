//! The two libraries behind one interface. `Api` is a thin shim over each library's C
//! functions (spblk's `spblk*`, cuSPARSE's `cusparse*`: same signatures, same enum values);
//! the plans and the SpGEMM protocol below are written once on top of it, so both libraries
//! get exactly the same calls, arguments and buffers.
//!
//! Fixed choices: 32-bit indices, zero-based, `op = N`, α = 1 and β = 0 in host memory,
//! default algorithms, compute type = value type.

use std::ffi::c_void;

use crate::gpu::{DevAlloc, DevBuf, Gpu, Res};

/// A library descriptor (sparse or dense matrix, vector, SpGEMM state), untyped.
pub type D = *mut c_void;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dt {
    F32,
    F64,
}

impl Dt {
    pub fn size(self) -> usize {
        match self {
            Dt::F32 => 4,
            Dt::F64 => 8,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Dt::F32 => "f32",
            Dt::F64 => "f64",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Row,
    Col,
}

/// The orders of an operation's two dense operands: SpMM's (B, C), SDDMM's (A, B).
pub type Layout = (Order, Order);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpgemmAlg {
    /// `*_SPGEMM_DEFAULT` (cuSPARSE: ALG1).
    Default,
    /// `ALG2` (less memory; needs `estimateMemory`).
    Alg2,
    /// `ALG3` (in chunks: `estimateMemory` with chunk_fraction 0.2, as NVIDIA's sample).
    Alg3,
    /// spblk's `SPBLK_SPGEMM_ALG_ESC` (the seed's binned ESC method); cuSPARSE runs its default.
    Esc,
}

impl SpgemmAlg {
    /// The `--spgemm-alg` names.
    pub const NAMES: [(&'static str, SpgemmAlg); 4] = [
        ("default", SpgemmAlg::Default),
        ("alg2", SpgemmAlg::Alg2),
        ("alg3", SpgemmAlg::Alg3),
        ("esc", SpgemmAlg::Esc),
    ];
    /// Whether the protocol has the `estimateMemory` step (ALG2, ALG3).
    pub fn estimates_memory(self) -> bool {
        matches!(self, SpgemmAlg::Alg2 | SpgemmAlg::Alg3)
    }
    /// ALG3's chunk_fraction (NVIDIA's `spgemm_mem` sample).
    pub const CHUNK_FRACTION: f32 = 0.2;
}

/// One library's C functions. Each returns `Err` with the library's status name and, for
/// spblk, its last error message.
///
/// # Safety
/// Every method is a direct FFI call: pointers must be valid as the C API requires.
#[allow(clippy::too_many_arguments)]
pub trait Api {
    fn name(&self) -> &'static str;
    /// The SpMV algorithm of the following SpMV calls (spblk's `--spmv-algs`; cuSPARSE keeps
    /// its default).
    fn set_spmv_alg(&self, _alg: u32) {}
    /// The SpMM algorithm of the following SpMM calls (spblk's `--spmm-alg`).
    fn set_spmm_alg(&self, _alg: u32) {}
    /// The SDDMM algorithm of the following SDDMM calls (spblk's `--sddmm-alg`).
    fn set_sddmm_alg(&self, _alg: u32) {}
    /// Wall time of the last SpMM or SDDMM preprocess since the algorithm was set (spblk, which
    /// reports plans' costs), if timed.
    fn last_preprocess_ms(&self) -> Option<f64> {
        None
    }
    unsafe fn csr(&self, rows: i64, cols: i64, nnz: i64, ptr: u64, col: u64, val: u64, dt: Dt) -> Res<D>;
    unsafe fn destroy_sp_mat(&self, d: D);
    unsafe fn dn_vec(&self, size: i64, values: u64, dt: Dt) -> Res<D>;
    unsafe fn destroy_dn_vec(&self, d: D);
    unsafe fn dn_mat(&self, rows: i64, cols: i64, ld: i64, values: u64, dt: Dt, order: Order) -> Res<D>;
    unsafe fn destroy_dn_mat(&self, d: D);
    unsafe fn sp_mat_nnz(&self, d: D) -> Res<i64>;
    unsafe fn csr_set_pointers(&self, d: D, ptr: u64, col: u64, val: u64) -> Res<()>;

    unsafe fn spmv_buffer_size(&self, al: *const c_void, a: D, x: D, be: *const c_void, y: D, dt: Dt) -> Res<usize>;
    unsafe fn spmv_preprocess(
        &self,
        al: *const c_void,
        a: D,
        x: D,
        be: *const c_void,
        y: D,
        dt: Dt,
        buf: u64,
    ) -> Res<()>;
    unsafe fn spmv(&self, al: *const c_void, a: D, x: D, be: *const c_void, y: D, dt: Dt, buf: u64) -> Res<()>;

    unsafe fn spmm_buffer_size(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, dt: Dt) -> Res<usize>;
    unsafe fn spmm_preprocess(
        &self,
        al: *const c_void,
        a: D,
        b: D,
        be: *const c_void,
        c: D,
        dt: Dt,
        buf: u64,
    ) -> Res<()>;
    unsafe fn spmm(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, dt: Dt, buf: u64) -> Res<()>;

    unsafe fn sddmm_buffer_size(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, dt: Dt) -> Res<usize>;
    unsafe fn sddmm_preprocess(
        &self,
        al: *const c_void,
        a: D,
        b: D,
        be: *const c_void,
        c: D,
        dt: Dt,
        buf: u64,
    ) -> Res<()>;
    unsafe fn sddmm(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, dt: Dt, buf: u64) -> Res<()>;

    unsafe fn csr2csc_buffer_size(&self, a: &DevCsr, out: &DevCsc) -> Res<usize>;
    unsafe fn csr2csc(&self, a: &DevCsr, out: &DevCsc, buf: u64) -> Res<()>;

    unsafe fn spgemm_create(&self) -> Res<D>;
    unsafe fn spgemm_destroy(&self, g: D);
    unsafe fn spgemm_work_estimation(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()>;
    unsafe fn spgemm_compute(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()>;
    unsafe fn spgemm_copy(&self, s: &SpgemmCall) -> Res<()>;
    /// The reuse path (`SpGEMMreuse_*`; A, B and C only from `s`, no alpha or beta but in
    /// `reuse_compute`).
    unsafe fn spgemm_reuse_work_estimation(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()>;
    unsafe fn spgemm_reuse_nnz(&self, s: &SpgemmCall, sizes: &mut [usize; 3], bufs: [u64; 3]) -> Res<()>;
    unsafe fn spgemm_reuse_copy(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()>;
    unsafe fn spgemm_reuse_compute(&self, s: &SpgemmCall) -> Res<()>;
    /// ALG2's and ALG3's step (`estimateMemory`).
    unsafe fn spgemm_estimate_memory(
        &self,
        _s: &SpgemmCall,
        _size3: &mut usize,
        _buf3: u64,
        _size2: *mut usize,
    ) -> Res<()> {
        Err(format!("{}: SpGEMM estimateMemory is not available", self.name()))
    }
}

/// The arguments every SpGEMM call of one product repeats.
pub struct SpgemmCall {
    pub alpha: *const c_void,
    pub beta: *const c_void,
    pub a: D,
    pub b: D,
    pub c: D,
    pub dt: Dt,
    pub alg: SpgemmAlg,
    pub g: D,
}

/// A CSR matrix on the device: 32-bit zero-based indices.
#[derive(Clone, Copy, Debug)]
pub struct DevCsr {
    pub rows: i64,
    pub cols: i64,
    pub nnz: i64,
    pub ptr: u64,
    pub col: u64,
    pub val: u64,
    pub dt: Dt,
}

/// The CSC output of csr2csc.
#[derive(Clone, Copy, Debug)]
pub struct DevCsc {
    pub col_ptr: u64,
    pub row_ind: u64,
    pub val: u64,
}

/// α = 1, β = 0 in both precisions, at a stable address.
#[derive(Default)]
struct Scalars {
    a32: f32,
    b32: f32,
    a64: f64,
    b64: f64,
}

impl Scalars {
    fn new() -> Box<Scalars> {
        Box::new(Scalars { a32: 1.0, b32: 0.0, a64: 1.0, b64: 0.0 })
    }
    fn get(&self, dt: Dt) -> (*const c_void, *const c_void) {
        match dt {
            Dt::F32 => (&self.a32 as *const f32 as *const c_void, &self.b32 as *const f32 as *const c_void),
            Dt::F64 => (&self.a64 as *const f64 as *const c_void, &self.b64 as *const f64 as *const c_void),
        }
    }
}

/// One prepared call: descriptors and workspace made once, `run` queues the operation.
pub trait Plan {
    fn run(&mut self) -> Res<()>;
    /// Workspace bytes the library asked for.
    fn buffer_bytes(&self) -> usize;
}

enum Kind {
    Spmv,
    Spmm,
    Sddmm,
}

/// SpMV, SpMM or SDDMM: three descriptors and a buffer.
struct ProductPlan<'a, A: Api + ?Sized> {
    api: &'a A,
    kind: Kind,
    // SpMV: (A, x, y); SpMM: (A, B, C); SDDMM: (A, B, C) with C sparse.
    d: [D; 3],
    dt: Dt,
    buf: DevBuf,
    s: Box<Scalars>,
}

impl<A: Api + ?Sized> Plan for ProductPlan<'_, A> {
    fn run(&mut self) -> Res<()> {
        let (al, be) = self.s.get(self.dt);
        let [a, b, c] = self.d;
        // SAFETY: descriptors and buffer made for exactly this call in `product`.
        unsafe {
            match self.kind {
                Kind::Spmv => self.api.spmv(al, a, b, be, c, self.dt, self.buf.ptr),
                Kind::Spmm => self.api.spmm(al, a, b, be, c, self.dt, self.buf.ptr),
                Kind::Sddmm => self.api.sddmm(al, a, b, be, c, self.dt, self.buf.ptr),
            }
        }
    }
    fn buffer_bytes(&self) -> usize {
        self.buf.bytes
    }
}

impl<A: Api + ?Sized> Drop for ProductPlan<'_, A> {
    fn drop(&mut self) {
        let [a, b, c] = self.d;
        // SAFETY: our descriptors, destroyed once.
        unsafe {
            match self.kind {
                Kind::Spmv => {
                    self.api.destroy_sp_mat(a);
                    self.api.destroy_dn_vec(b);
                    self.api.destroy_dn_vec(c);
                }
                Kind::Spmm => {
                    self.api.destroy_sp_mat(a);
                    self.api.destroy_dn_mat(b);
                    self.api.destroy_dn_mat(c);
                }
                Kind::Sddmm => {
                    self.api.destroy_dn_mat(a);
                    self.api.destroy_dn_mat(b);
                    self.api.destroy_sp_mat(c);
                }
            }
        }
    }
}

fn product<'a, A: Api + ?Sized>(
    api: &'a A,
    gpu: &Gpu,
    kind: Kind,
    d: [D; 3],
    dt: Dt,
    preprocess: bool,
) -> Res<Box<dyn Plan + 'a>> {
    let s = Scalars::new();
    let (al, be) = s.get(dt);
    let [a, b, c] = d;
    // The plan owns the descriptors from here on, so an error below still destroys them.
    let mut plan = ProductPlan { api, kind, d, dt, buf: gpu.alloc(0)?, s };
    // SAFETY: valid descriptors; the buffer is allocated at the size asked for.
    unsafe {
        let size = match plan.kind {
            Kind::Spmv => api.spmv_buffer_size(al, a, b, be, c, dt)?,
            Kind::Spmm => api.spmm_buffer_size(al, a, b, be, c, dt)?,
            Kind::Sddmm => api.sddmm_buffer_size(al, a, b, be, c, dt)?,
        };
        plan.buf = gpu.alloc(size)?;
        if preprocess {
            let buf = plan.buf.ptr;
            match plan.kind {
                Kind::Spmv => api.spmv_preprocess(al, a, b, be, c, dt, buf)?,
                Kind::Spmm => api.spmm_preprocess(al, a, b, be, c, dt, buf)?,
                Kind::Sddmm => api.sddmm_preprocess(al, a, b, be, c, dt, buf)?,
            }
        }
    }
    Ok(Box::new(plan))
}

/// y = A·x (x: `a.cols` values, y: `a.rows`).
pub fn spmv<'a, A: Api + ?Sized>(
    api: &'a A,
    gpu: &Gpu,
    a: DevCsr,
    x: u64,
    y: u64,
    preprocess: bool,
) -> Res<Box<dyn Plan + 'a>> {
    // SAFETY: device arrays of the sizes the descriptors state (caller).
    let d = unsafe {
        let da = api.csr(a.rows, a.cols, a.nnz, a.ptr, a.col, a.val, a.dt)?;
        let dx = api.dn_vec(a.cols, x, a.dt).inspect_err(|_| api.destroy_sp_mat(da))?;
        let dy = api.dn_vec(a.rows, y, a.dt).inspect_err(|_| {
            api.destroy_sp_mat(da);
            api.destroy_dn_vec(dx)
        })?;
        [da, dx, dy]
    };
    product(api, gpu, Kind::Spmv, d, a.dt, preprocess)
}

/// The leading dimension of a dense `rows` × `cols` matrix stored densely in `order`.
fn ld(rows: i64, cols: i64, order: Order) -> i64 {
    if order == Order::Row {
        cols
    } else {
        rows
    }
}

/// C = A·B with B (`a.cols` × n) and C (`a.rows` × n) in the orders `layout` = (B's, C's),
/// stored densely (ld = n row by row, the row count column by column).
#[allow(clippy::too_many_arguments)]
pub fn spmm<'a, A: Api + ?Sized>(
    api: &'a A,
    gpu: &Gpu,
    a: DevCsr,
    b: u64,
    c: u64,
    n: i64,
    layout: Layout,
    preprocess: bool,
) -> Res<Box<dyn Plan + 'a>> {
    let (ob, oc) = layout;
    // SAFETY: as for spmv.
    let d = unsafe {
        let da = api.csr(a.rows, a.cols, a.nnz, a.ptr, a.col, a.val, a.dt)?;
        let db = api.dn_mat(a.cols, n, ld(a.cols, n, ob), b, a.dt, ob).inspect_err(|_| api.destroy_sp_mat(da))?;
        let dc = api.dn_mat(a.rows, n, ld(a.rows, n, oc), c, a.dt, oc).inspect_err(|_| {
            api.destroy_sp_mat(da);
            api.destroy_dn_mat(db)
        })?;
        [da, db, dc]
    };
    product(api, gpu, Kind::Spmm, d, a.dt, preprocess)
}

/// C = (A·B) ∘ spy(C) with A (`c.rows` × k) and B (k × `c.cols`) in the orders `layout` =
/// (A's, B's), stored densely. The usual case, (row, column), has each row of A and each column
/// of B contiguous, as in Q·Kᵀ.
#[allow(clippy::too_many_arguments)]
pub fn sddmm<'a, A: Api + ?Sized>(
    api: &'a A,
    gpu: &Gpu,
    a: u64,
    b: u64,
    k: i64,
    c: DevCsr,
    layout: Layout,
    preprocess: bool,
) -> Res<Box<dyn Plan + 'a>> {
    let (oa, ob) = layout;
    // SAFETY: as for spmv.
    let d = unsafe {
        let da = api.dn_mat(c.rows, k, ld(c.rows, k, oa), a, c.dt, oa)?;
        let db = api.dn_mat(k, c.cols, ld(k, c.cols, ob), b, c.dt, ob).inspect_err(|_| api.destroy_dn_mat(da))?;
        let dc = api.csr(c.rows, c.cols, c.nnz, c.ptr, c.col, c.val, c.dt).inspect_err(|_| {
            api.destroy_dn_mat(da);
            api.destroy_dn_mat(db)
        })?;
        [da, db, dc]
    };
    product(api, gpu, Kind::Sddmm, d, c.dt, preprocess)
}

struct ConvertPlan<'a, A: Api + ?Sized> {
    api: &'a A,
    a: DevCsr,
    out: DevCsc,
    buf: DevBuf,
}

impl<A: Api + ?Sized> Plan for ConvertPlan<'_, A> {
    fn run(&mut self) -> Res<()> {
        // SAFETY: arrays of the sizes `a` states (caller of csr2csc).
        unsafe { self.api.csr2csc(&self.a, &self.out, self.buf.ptr) }
    }
    fn buffer_bytes(&self) -> usize {
        self.buf.bytes
    }
}

/// CSR → CSC with values (`Csr2cscEx2`, action NUMERIC).
pub fn csr2csc<'a, A: Api + ?Sized>(api: &'a A, gpu: &Gpu, a: DevCsr, out: DevCsc) -> Res<Box<dyn Plan + 'a>> {
    // SAFETY: as above.
    let size = unsafe { api.csr2csc_buffer_size(&a, &out)? };
    Ok(Box::new(ConvertPlan { api, a, out, buf: gpu.alloc(size)? }))
}

/// Anything kept alive until dropped.
pub trait Keep {}
impl<T> Keep for T {}

/// The product of one SpGEMM protocol run, its output arrays (in the allocator's memory)
/// and what it cost in memory.
pub struct SpgemmOut<'a> {
    pub nnz: i64,
    pub ptr: u64,
    pub col: u64,
    pub val: u64,
    pub buf1: usize,
    pub buf2: usize,
    /// ALG2's buffer 3 (freed before compute in NVIDIA's sample; counted here).
    pub buf3: usize,
    /// Bytes this run took from the allocator (buffers and C's arrays).
    pub own_bytes: usize,
    /// Largest drop of `cuMemGetInfo`'s free memory seen after each step (when probed).
    pub meminfo_peak: Option<usize>,
    _keep: Box<dyn Keep + 'a>,
}

struct SpgemmDescrs<'a, A: Api + ?Sized> {
    api: &'a A,
    a: D,
    b: D,
    c: D,
    g: D,
    _s: Box<Scalars>,
}

impl<A: Api + ?Sized> Drop for SpgemmDescrs<'_, A> {
    fn drop(&mut self) {
        // SAFETY: our descriptors (null ones skipped).
        unsafe {
            for d in [self.a, self.b, self.c] {
                if !d.is_null() {
                    self.api.destroy_sp_mat(d);
                }
            }
            if !self.g.is_null() {
                self.api.spgemm_destroy(self.g);
            }
        }
    }
}

struct Probe<'g> {
    gpu: &'g Gpu,
    start_free: usize,
    min_free: usize,
    on: bool,
}

impl<'g> Probe<'g> {
    fn new(gpu: &'g Gpu, on: bool) -> Res<Probe<'g>> {
        let free = if on {
            gpu.sync()?;
            gpu.mem_info()?.0
        } else {
            0
        };
        Ok(Probe { gpu, start_free: free, min_free: free, on })
    }
    fn step(&mut self) -> Res<()> {
        if self.on {
            self.gpu.sync()?;
            self.min_free = self.min_free.min(self.gpu.mem_info()?.0);
        }
        Ok(())
    }
    fn peak(&self) -> Option<usize> {
        self.on.then(|| self.start_free - self.min_free)
    }
}

/// C = A·A through the whole protocol (cuSPARSE's `spgemm` / `spgemm_mem` samples):
/// createDescr, workEstimation ×2, [ALG2, ALG3: estimateMemory ×2], compute ×2, GetSize,
/// allocate C, CsrSetPointers, copy. Buffers and C come from `mem`. With `probe`, the stream
/// is synchronized after each step and `cuMemGetInfo` read (untimed runs only). With
/// `poison`, C's offsets are filled with 0xFF bytes before the protocol and its columns and
/// values before `copy`.
pub fn spgemm<'a, A: Api + ?Sized>(
    api: &'a A,
    gpu: &Gpu,
    a: DevCsr,
    alg: SpgemmAlg,
    mem: &mut dyn DevAlloc,
    probe: bool,
    poison: bool,
) -> Res<SpgemmOut<'a>> {
    let start_use = mem.in_use();
    let mut pr = Probe::new(gpu, probe)?;
    let null = std::ptr::null_mut();
    let s = Scalars::new();
    let (alpha, beta) = s.get(a.dt);
    let mut k = SpgemmDescrs { api, a: null, b: null, c: null, g: null, _s: s };
    let c_ptr = mem.alloc(4 * (a.rows as usize + 1))?;
    if poison {
        // Before the protocol starts: the library may write C's offsets in any phase.
        gpu.fill_u32(c_ptr, u32::MAX, a.rows as usize + 1)?;
    }
    let (size1, size2, mut size3, nnz);
    let (c_col, c_val);
    // SAFETY: descriptors of device arrays sized as stated; buffers allocated at the sizes
    // the library asked for and kept (in `mem`) until after `copy`.
    unsafe {
        k.a = api.csr(a.rows, a.cols, a.nnz, a.ptr, a.col, a.val, a.dt)?;
        k.b = api.csr(a.rows, a.cols, a.nnz, a.ptr, a.col, a.val, a.dt)?;
        k.c = api.csr(a.rows, a.cols, 0, c_ptr, 0, 0, a.dt)?;
        k.g = api.spgemm_create()?;
        let call = SpgemmCall { alpha, beta, a: k.a, b: k.b, c: k.c, dt: a.dt, alg, g: k.g };
        let mut s1 = 0usize;
        api.spgemm_work_estimation(&call, &mut s1, 0)?;
        let buf1 = mem.alloc(s1)?;
        api.spgemm_work_estimation(&call, &mut s1, buf1)?;
        pr.step()?;
        size1 = s1;
        let mut s2 = 0usize;
        size3 = 0;
        if alg.estimates_memory() {
            let mut s3 = 0usize;
            api.spgemm_estimate_memory(&call, &mut s3, 0, std::ptr::null_mut())?;
            let buf3 = mem.alloc(s3)?;
            api.spgemm_estimate_memory(&call, &mut s3, buf3, &mut s2)?;
            size3 = s3;
            pr.step()?;
        } else {
            api.spgemm_compute(&call, &mut s2, 0)?;
        }
        let buf2 = mem.alloc(s2)?;
        api.spgemm_compute(&call, &mut s2, buf2)?;
        pr.step()?;
        size2 = s2;
        nnz = api.sp_mat_nnz(k.c)?;
        c_col = mem.alloc(4 * nnz as usize)?;
        c_val = mem.alloc(a.dt.size() * nnz as usize)?;
        if poison {
            gpu.fill_u32(c_col, u32::MAX, nnz as usize)?;
            gpu.fill_u32(c_val, u32::MAX, nnz as usize * a.dt.size() / 4)?;
        }
        api.csr_set_pointers(k.c, c_ptr, c_col, c_val)?;
        api.spgemm_copy(&call)?;
        pr.step()?;
    }
    Ok(SpgemmOut {
        nnz,
        ptr: c_ptr,
        col: c_col,
        val: c_val,
        buf1: size1,
        buf2: size2,
        buf3: size3,
        own_bytes: mem.in_use() - start_use,
        meminfo_peak: pr.peak(),
        _keep: Box::new(k),
    })
}

/// A product set up through the reuse path up to `reuse_copy`: `compute` runs
/// `reuse_compute` (C = A·A with A's values as they are).
pub struct SpgemmReuse<'a> {
    pub nnz: i64,
    pub ptr: u64,
    pub col: u64,
    pub val: u64,
    call: SpgemmCall,
    api: &'a dyn Api,
    _keep: Box<dyn Keep + 'a>,
}

impl SpgemmReuse<'_> {
    pub fn compute(&self) -> Res<()> {
        // SAFETY: the descriptors live in `self`, the buffers in the caller's `mem`.
        unsafe { self.api.spgemm_reuse_compute(&self.call) }
    }
}

/// C = A·A through the reuse protocol (cuSPARSE's `spgemm_reuse` sample) up to `reuse_copy`:
/// reuse_workEstimation ×2, reuse_nnz ×2, GetSize, allocate C, CsrSetPointers,
/// reuse_copy ×2. Buffers and C come from `mem`.
pub fn spgemm_reuse<'a>(api: &'a dyn Api, a: DevCsr, mem: &mut dyn DevAlloc) -> Res<SpgemmReuse<'a>> {
    let null = std::ptr::null_mut();
    let s = Scalars::new();
    let (alpha, beta) = s.get(a.dt);
    let mut k = SpgemmDescrs { api, a: null, b: null, c: null, g: null, _s: s };
    let c_ptr = mem.alloc(4 * (a.rows as usize + 1))?;
    // SAFETY: descriptors of device arrays sized as stated; buffers allocated at the sizes
    // the library asked for and kept (in `mem`) for the life of the result.
    unsafe {
        k.a = api.csr(a.rows, a.cols, a.nnz, a.ptr, a.col, a.val, a.dt)?;
        k.b = api.csr(a.rows, a.cols, a.nnz, a.ptr, a.col, a.val, a.dt)?;
        k.c = api.csr(a.rows, a.cols, 0, c_ptr, 0, 0, a.dt)?;
        k.g = api.spgemm_create()?;
        let call = SpgemmCall { alpha, beta, a: k.a, b: k.b, c: k.c, dt: a.dt, alg: SpgemmAlg::Default, g: k.g };
        let mut s1 = 0usize;
        api.spgemm_reuse_work_estimation(&call, &mut s1, 0)?;
        let buf1 = mem.alloc(s1)?;
        api.spgemm_reuse_work_estimation(&call, &mut s1, buf1)?;
        let mut sizes = [0usize; 3];
        api.spgemm_reuse_nnz(&call, &mut sizes, [0; 3])?;
        let bufs = [mem.alloc(sizes[0])?, mem.alloc(sizes[1])?, mem.alloc(sizes[2])?];
        api.spgemm_reuse_nnz(&call, &mut sizes, bufs)?;
        let nnz = api.sp_mat_nnz(k.c)?;
        let c_col = mem.alloc(4 * nnz as usize)?;
        let c_val = mem.alloc(a.dt.size() * nnz as usize)?;
        api.csr_set_pointers(k.c, c_ptr, c_col, c_val)?;
        let mut s5 = 0usize;
        api.spgemm_reuse_copy(&call, &mut s5, 0)?;
        let buf5 = mem.alloc(s5)?;
        api.spgemm_reuse_copy(&call, &mut s5, buf5)?;
        Ok(SpgemmReuse { nnz, ptr: c_ptr, col: c_col, val: c_val, call, api, _keep: Box::new(k) })
    }
}
