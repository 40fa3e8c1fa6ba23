//! The calls `--vbr` times, each prepared once (descriptors, workspace, `*_preprocess`) and
//! then run as often as needed: spblk's SpMM with any algorithm (VBR, VBR_TF32, CSR_ALG1,
//! DEFAULT) on its C API, cuSPARSE's SpMM with other value types than the `Api` shim's, and
//! cuBLAS's dense GEMM; plus the 1-SA analysis and cuSPARSE's sparse-to-dense conversion that
//! feeds cuBLAS.
//!
//! Memory comes from an [`Alloc`], so the spblk calls also run on spblk's host backend with
//! host memory (the unit tests at the end do that, without a GPU).

use std::any::Any;
use std::ffi::c_void;
use std::time::Instant;

use cudarc::cusparse::sys as cs;
use spblk::capi::analyze::*;
use spblk::capi::dense::*;
use spblk::capi::handle::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::types::*;

use crate::cublas::{Compute, Cublas, GemmType};
use crate::gpu::{DevBuf, Gpu};

/// Why a call did not run.
#[derive(Clone, Debug, PartialEq)]
pub enum Fail {
    /// The library refuses this combination (`*_STATUS_NOT_SUPPORTED`): printed as "n/a".
    NotSupported(String),
    /// Out of device memory: the case is skipped.
    NoMemory(String),
    /// Anything else: an error.
    Error(String),
}

impl Fail {
    pub fn msg(&self) -> &str {
        match self {
            Fail::NotSupported(m) | Fail::NoMemory(m) | Fail::Error(m) => m,
        }
    }
}

impl From<String> for Fail {
    /// A driver or harness error; running out of memory is recognized by its status name.
    fn from(m: String) -> Fail {
        if m.contains("OUT_OF_MEMORY") {
            Fail::NoMemory(m)
        } else {
            Fail::Error(m)
        }
    }
}

pub type R<T> = Result<T, Fail>;

/// Value types of A, B and C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Vt {
    F16,
    BF16,
    F32,
}

impl Vt {
    pub fn size(self) -> usize {
        match self {
            Vt::F16 | Vt::BF16 => 2,
            Vt::F32 => 4,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Vt::F16 => "f16",
            Vt::BF16 => "bf16",
            Vt::F32 => "f32",
        }
    }
    pub fn spblk(self) -> spblkDataType_t {
        match self {
            Vt::F16 => SPBLK_R_16F,
            Vt::BF16 => SPBLK_R_16BF,
            Vt::F32 => SPBLK_R_32F,
        }
    }
    pub fn cusparse(self) -> cs::cudaDataType {
        match self {
            Vt::F16 => cs::cudaDataType::CUDA_R_16F,
            Vt::BF16 => cs::cudaDataType::CUDA_R_16BF,
            Vt::F32 => cs::cudaDataType::CUDA_R_32F,
        }
    }
    pub fn gemm(self) -> GemmType {
        match self {
            Vt::F16 => GemmType::F16,
            Vt::BF16 => GemmType::BF16,
            Vt::F32 => GemmType::F32,
        }
    }
    /// `x` rounded to this type (to nearest even), as an f64: the value the device sees.
    pub fn round(self, x: f64) -> f64 {
        match self {
            Vt::F16 => half::f16::from_f64(x).to_f64(),
            Vt::BF16 => half::bf16::from_f64(x).to_f64(),
            Vt::F32 => x as f32 as f64,
        }
    }
    /// The bytes of `v` (already rounded, or rounded here) in this type.
    pub fn encode(self, v: &[f64]) -> Vec<u8> {
        use rayon::prelude::*;
        let mut out = vec![0u8; v.len() * self.size()];
        match self {
            Vt::F16 => out
                .par_chunks_mut(2)
                .zip(v.par_iter())
                .for_each(|(o, &x)| o.copy_from_slice(&half::f16::from_f64(x).to_bits().to_ne_bytes())),
            Vt::BF16 => out
                .par_chunks_mut(2)
                .zip(v.par_iter())
                .for_each(|(o, &x)| o.copy_from_slice(&half::bf16::from_f64(x).to_bits().to_ne_bytes())),
            Vt::F32 => {
                out.par_chunks_mut(4).zip(v.par_iter()).for_each(|(o, &x)| o.copy_from_slice(&(x as f32).to_ne_bytes()))
            }
        }
        out
    }
    /// Values of this type from their bytes, as f64.
    pub fn decode(self, bytes: &[u8]) -> Vec<f64> {
        match self {
            Vt::F16 => {
                bytes.chunks_exact(2).map(|c| half::f16::from_bits(u16::from_ne_bytes([c[0], c[1]])).to_f64()).collect()
            }
            Vt::BF16 => bytes
                .chunks_exact(2)
                .map(|c| half::bf16::from_bits(u16::from_ne_bytes([c[0], c[1]])).to_f64())
                .collect(),
            Vt::F32 => bytes.chunks_exact(4).map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]) as f64).collect(),
        }
    }
}

/// Memory for workspaces: device memory on the GPU, host memory for spblk's host backend.
pub struct Mem {
    pub ptr: u64,
    pub bytes: usize,
    _owner: Box<dyn Any>,
}

pub trait Alloc {
    fn alloc(&self, bytes: usize) -> R<Mem>;
}

impl Alloc for Gpu {
    fn alloc(&self, bytes: usize) -> R<Mem> {
        let b: DevBuf = Gpu::alloc(self, bytes)?;
        Ok(Mem { ptr: b.ptr, bytes, _owner: Box::new(b) })
    }
}

/// Host memory (8-byte aligned), for spblk's host backend.
#[cfg(test)]
pub struct HostAlloc;

#[cfg(test)]
impl Alloc for HostAlloc {
    fn alloc(&self, bytes: usize) -> R<Mem> {
        let v = vec![0u64; bytes.div_ceil(8).max(1)];
        Ok(Mem { ptr: v.as_ptr() as u64, bytes, _owner: Box::new(v) })
    }
}

/// One prepared call.
pub trait Call {
    fn run(&mut self) -> R<()>;
    /// Workspace bytes the library asked for.
    fn buffer_bytes(&self) -> usize {
        0
    }
}

/// α = 1, β = 0 as f32 (the compute type of every call here), at a stable address.
struct Scalars {
    alpha: f32,
    beta: f32,
}

fn scalars() -> Box<Scalars> {
    Box::new(Scalars { alpha: 1.0, beta: 0.0 })
}

// ---------------------------------------------------------------------------------------
// spblk

/// A spblk status as a [`Fail`], with the library's last message.
pub fn spblk_ok(st: spblkStatus_t, what: &str) -> R<()> {
    if st == SPBLK_STATUS_SUCCESS {
        return Ok(());
    }
    // SAFETY: static NUL-terminated string.
    let name = unsafe { std::ffi::CStr::from_ptr(spblkGetErrorName(st)) }.to_string_lossy().into_owned();
    let mut buf = vec![0u8; 2048];
    let mut written = 0usize;
    let msg = if spblkGetLastErrorMessage(buf.as_mut_ptr() as *mut _, buf.len(), &mut written) == SPBLK_STATUS_SUCCESS {
        String::from_utf8_lossy(&buf[..written.min(buf.len())]).into_owned()
    } else {
        String::new()
    };
    let text = format!("spblk {what}: {name} ({st}): {msg}");
    Err(match st {
        SPBLK_STATUS_NOT_SUPPORTED => Fail::NotSupported(text),
        SPBLK_STATUS_ALLOC_FAILED | SPBLK_STATUS_INSUFFICIENT_RESOURCES => Fail::NoMemory(text),
        _ => Fail::Error(text),
    })
}

/// A spblk CSR descriptor (32-bit indices, base 0), destroyed on drop.
pub struct SpbCsr {
    pub d: spblkSpMatDescr_t,
    pub vt: Vt,
}

impl SpbCsr {
    /// # Safety
    /// `ptr`, `col`, `val` must be arrays of the handle's memory kind of the stated sizes that
    /// outlive the descriptor.
    pub unsafe fn new(rows: i64, cols: i64, nnz: i64, ptr: u64, col: u64, val: u64, vt: Vt) -> R<SpbCsr> {
        let mut d: spblkSpMatDescr_t = std::ptr::null_mut();
        spblk_ok(
            spblkCreateCsr(
                &mut d,
                rows,
                cols,
                nnz,
                ptr as *mut c_void,
                col as *mut c_void,
                val as *mut c_void,
                SPBLK_INDEX_32I,
                SPBLK_INDEX_32I,
                SPBLK_INDEX_BASE_ZERO,
                vt.spblk(),
            ),
            "spblkCreateCsr",
        )?;
        Ok(SpbCsr { d, vt })
    }
}

impl Drop for SpbCsr {
    fn drop(&mut self) {
        spblkDestroySpMat(self.d as spblkConstSpMatDescr_t);
    }
}

/// What `spblkAnalysisGetInfo` reports, plus the wall time of the `spblkAnalyze` call.
#[derive(Clone, Copy, Debug, Default)]
pub struct Analysis {
    pub groups: i64,
    pub blocks: i64,
    /// ΔH': rows per non-empty group.
    pub dh: f64,
    /// ρ': nonzeros / stored block entries.
    pub rho: f64,
    /// Stored block entries (with padding) / nonzeros.
    pub fill: f64,
    /// Stored block entries: `fill · nnz`.
    pub stored: f64,
    /// Host wall clock around `spblkAnalyze` (the stream idle before).
    pub wall_s: f64,
    /// `analysisSeconds` as the library measured it.
    pub lib_s: f64,
}

/// The analysis parameters: spblk's defaults.
pub fn analysis_params() -> R<spblkAnalysisParams> {
    let mut p = std::mem::MaybeUninit::<spblkAnalysisParams>::zeroed();
    spblk_ok(
        spblkAnalysisParamsInit(p.as_mut_ptr(), std::mem::size_of::<spblkAnalysisParams>()),
        "spblkAnalysisParamsInit",
    )?;
    // SAFETY: zero-initialized (valid for this plain C struct) and then filled by the init call.
    Ok(unsafe { p.assume_init() })
}

/// A one-line description of the parameters.
pub fn params_text(p: &spblkAnalysisParams) -> String {
    format!(
        "blockWidth {}, tau {}, similarity {}, mergeRule {}, maxGroupHeight {}, candidateBudget {}, halfCopies {}",
        p.blockWidth,
        p.tau,
        if p.similarity == SPBLK_SIMILARITY_JACCARD { "Jaccard" } else { "cosine" },
        if p.mergeRule == SPBLK_MERGE_TWO_STEP { "two-step" } else { "plain" },
        p.maxGroupHeight,
        if p.candidateBudget < 0 { "auto".to_string() } else { p.candidateBudget.to_string() },
        p.halfCopies
    )
}

/// `spblkAnalyze(…, SPBLK_ANALYSIS_1SA, params)` on `a`, timed on the host, then its info.
/// The caller makes sure no work is queued (the wall time is the analysis alone).
pub fn analyze(h: spblkHandle_t, a: &SpbCsr, params: &spblkAnalysisParams) -> R<Analysis> {
    let t = Instant::now();
    spblk_ok(spblkAnalyze(h, a.d, SPBLK_ANALYSIS_1SA, params), "spblkAnalyze(1SA)")?;
    let wall_s = t.elapsed().as_secs_f64();
    let mut info = spblkAnalysisInfo { structSize: std::mem::size_of::<spblkAnalysisInfo>(), ..Default::default() };
    spblk_ok(spblkAnalysisGetInfo(a.d as spblkConstSpMatDescr_t, &mut info), "spblkAnalysisGetInfo")?;
    let mut nnz = 0i64;
    let (mut r, mut c) = (0i64, 0i64);
    spblk_ok(spblkSpMatGetSize(a.d as spblkConstSpMatDescr_t, &mut r, &mut c, &mut nnz), "spblkSpMatGetSize")?;
    Ok(Analysis {
        groups: info.groups,
        blocks: info.nonzeroBlocks,
        dh: info.avgBlockHeight,
        rho: info.inBlockDensity,
        fill: info.fillInRatio,
        stored: info.fillInRatio * nnz as f64,
        wall_s,
        lib_s: info.analysisSeconds,
    })
}

/// The shapes of one product: C (rows × n) = A (rows × cols) · B (cols × n), B and C
/// row-major with leading dimension n.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub rows: i64,
    pub cols: i64,
    pub n: i64,
}

/// spblk SpMM with algorithm `alg`, prepared: dense descriptors, workspace, preprocess.
pub struct SpbSpmm<'m> {
    h: spblkHandle_t,
    a: &'m SpbCsr,
    b: spblkDnMatDescr_t,
    c: spblkDnMatDescr_t,
    alg: spblkSpMMAlg_t,
    buf: Mem,
    s: Box<Scalars>,
}

impl<'m> SpbSpmm<'m> {
    /// # Safety
    /// `b` and `c` must be arrays of the handle's memory kind holding `cols × n` values of
    /// `a.vt` and `rows × n` of `out`, alive as long as the call.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn new(
        h: spblkHandle_t,
        mem: &dyn Alloc,
        a: &'m SpbCsr,
        b: u64,
        c: u64,
        s: Shape,
        out: Vt,
        alg: spblkSpMMAlg_t,
    ) -> R<SpbSpmm<'m>> {
        let mut call =
            SpbSpmm { h, a, b: std::ptr::null_mut(), c: std::ptr::null_mut(), alg, buf: mem.alloc(0)?, s: scalars() };
        spblk_ok(
            spblkCreateDnMat(&mut call.b, s.cols, s.n, s.n, b as *mut c_void, a.vt.spblk(), SPBLK_ORDER_ROW),
            "spblkCreateDnMat(B)",
        )?;
        spblk_ok(
            spblkCreateDnMat(&mut call.c, s.rows, s.n, s.n, c as *mut c_void, out.spblk(), SPBLK_ORDER_ROW),
            "spblkCreateDnMat(C)",
        )?;
        let (al, be) = call.scalars();
        let mut size = 0usize;
        spblk_ok(
            spblkSpMM_bufferSize(
                h,
                SPBLK_OPERATION_NON_TRANSPOSE,
                SPBLK_OPERATION_NON_TRANSPOSE,
                al,
                a.d as spblkConstSpMatDescr_t,
                call.b as spblkConstDnMatDescr_t,
                be,
                call.c,
                SPBLK_R_32F,
                alg,
                &mut size,
            ),
            "spblkSpMM_bufferSize",
        )?;
        call.buf = mem.alloc(size)?;
        spblk_ok(
            spblkSpMM_preprocess(
                h,
                SPBLK_OPERATION_NON_TRANSPOSE,
                SPBLK_OPERATION_NON_TRANSPOSE,
                al,
                a.d as spblkConstSpMatDescr_t,
                call.b as spblkConstDnMatDescr_t,
                be,
                call.c,
                SPBLK_R_32F,
                alg,
                call.buf.ptr as *mut c_void,
            ),
            "spblkSpMM_preprocess",
        )?;
        Ok(call)
    }

    fn scalars(&self) -> (*const c_void, *const c_void) {
        (&self.s.alpha as *const f32 as *const c_void, &self.s.beta as *const f32 as *const c_void)
    }
}

impl Call for SpbSpmm<'_> {
    fn run(&mut self) -> R<()> {
        let (al, be) = self.scalars();
        spblk_ok(
            spblkSpMM(
                self.h,
                SPBLK_OPERATION_NON_TRANSPOSE,
                SPBLK_OPERATION_NON_TRANSPOSE,
                al,
                self.a.d as spblkConstSpMatDescr_t,
                self.b as spblkConstDnMatDescr_t,
                be,
                self.c,
                SPBLK_R_32F,
                self.alg,
                self.buf.ptr as *mut c_void,
            ),
            "spblkSpMM",
        )
    }
    fn buffer_bytes(&self) -> usize {
        self.buf.bytes
    }
}

impl Drop for SpbSpmm<'_> {
    fn drop(&mut self) {
        // NULL is a no-op for both.
        spblkDestroyDnMat(self.b as spblkConstDnMatDescr_t);
        spblkDestroyDnMat(self.c as spblkConstDnMatDescr_t);
    }
}

/// The method a spblk call ran, from spblk's own trace of the calls made inside `f`
/// (`spblk::trace::capture`; the same record `SPBLK_LOG=1` prints): e.g. `CsrRows`, `Vbr`.
pub fn spblk_method<T>(f: impl FnOnce() -> T) -> (T, Option<String>) {
    let (out, records) = spblk::trace::capture(f);
    let method =
        records.iter().rev().find(|r| r.function == "spblkSpMM" && !r.method.is_empty()).map(|r| r.method.clone());
    (out, method)
}

pub fn spblk_alg_name(alg: spblkSpMMAlg_t) -> &'static str {
    match alg {
        SPBLK_SPMM_ALG_VBR => "SPBLK_SPMM_ALG_VBR",
        SPBLK_SPMM_ALG_VBR_TF32 => "SPBLK_SPMM_ALG_VBR_TF32",
        SPBLK_SPMM_CSR_ALG1 => "SPBLK_SPMM_CSR_ALG1",
        SPBLK_SPMM_ALG_DEFAULT => "SPBLK_SPMM_ALG_DEFAULT",
        _ => "?",
    }
}

// ---------------------------------------------------------------------------------------
// cuSPARSE

fn cs_ok(st: cs::cusparseStatus_t, what: &str) -> R<()> {
    if st == cs::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        return Ok(());
    }
    // SAFETY: returns a static string.
    let text = unsafe { std::ffi::CStr::from_ptr(cs::cusparseGetErrorString(st)) }.to_string_lossy().into_owned();
    let msg = format!("cuSPARSE {what}: {st:?} ({}): {text}", st as u32);
    Err(match st {
        cs::cusparseStatus_t::CUSPARSE_STATUS_NOT_SUPPORTED => Fail::NotSupported(msg),
        cs::cusparseStatus_t::CUSPARSE_STATUS_ALLOC_FAILED
        | cs::cusparseStatus_t::CUSPARSE_STATUS_INSUFFICIENT_RESOURCES => Fail::NoMemory(msg),
        _ => Fail::Error(msg),
    })
}

/// A cuSPARSE CSR descriptor (32-bit indices, base 0), destroyed on drop.
pub struct CsCsr {
    d: cs::cusparseSpMatDescr_t,
    pub vt: Vt,
}

impl CsCsr {
    /// # Safety
    /// Device arrays of the stated sizes that outlive the descriptor.
    pub unsafe fn new(rows: i64, cols: i64, nnz: i64, ptr: u64, col: u64, val: u64, vt: Vt) -> R<CsCsr> {
        let mut d: cs::cusparseSpMatDescr_t = std::ptr::null_mut();
        cs_ok(
            cs::cusparseCreateCsr(
                &mut d,
                rows,
                cols,
                nnz,
                ptr as *mut c_void,
                col as *mut c_void,
                val as *mut c_void,
                cs::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                cs::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                cs::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                vt.cusparse(),
            ),
            "cusparseCreateCsr",
        )?;
        Ok(CsCsr { d, vt })
    }
}

impl Drop for CsCsr {
    fn drop(&mut self) {
        // SAFETY: our descriptor, destroyed once.
        unsafe { cs::cusparseDestroySpMat(self.d as _) };
    }
}

/// cuSPARSE SpMM algorithms tried, in order, until one accepts the types.
pub const CUSPARSE_ALGS: &[(cs::cusparseSpMMAlg_t, &str)] = &[
    (cs::cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG2, "CUSPARSE_SPMM_CSR_ALG2"),
    (cs::cusparseSpMMAlg_t::CUSPARSE_SPMM_ALG_DEFAULT, "CUSPARSE_SPMM_ALG_DEFAULT"),
    (cs::cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG3, "CUSPARSE_SPMM_CSR_ALG3"),
];

/// cuSPARSE SpMM, prepared (dense descriptors, workspace, preprocess).
pub struct CsSpmm<'m> {
    h: cs::cusparseHandle_t,
    a: &'m CsCsr,
    b: cs::cusparseDnMatDescr_t,
    c: cs::cusparseDnMatDescr_t,
    alg: cs::cusparseSpMMAlg_t,
    pub alg_name: &'static str,
    buf: Mem,
    s: Box<Scalars>,
}

const CS_N: cs::cusparseOperation_t = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
const CS_F32: cs::cudaDataType = cs::cudaDataType::CUDA_R_32F;

impl<'m> CsSpmm<'m> {
    /// The first algorithm of [`CUSPARSE_ALGS`] that accepts the call (NOT_SUPPORTED moves on
    /// to the next; any other failure stops).
    ///
    /// # Safety
    /// As for [`SpbSpmm::new`], device memory.
    pub unsafe fn new(
        h: cs::cusparseHandle_t,
        mem: &dyn Alloc,
        a: &'m CsCsr,
        b: u64,
        c: u64,
        s: Shape,
        out: Vt,
    ) -> R<CsSpmm<'m>> {
        let mut refused = Vec::new();
        for &(alg, alg_name) in CUSPARSE_ALGS {
            match Self::with_alg(h, mem, a, b, c, s, out, alg, alg_name) {
                Ok(call) => return Ok(call),
                Err(Fail::NotSupported(m)) => refused.push(format!("{alg_name}: {m}")),
                Err(e) => return Err(e),
            }
        }
        Err(Fail::NotSupported(refused.join("; ")))
    }

    #[allow(clippy::too_many_arguments)]
    unsafe fn with_alg(
        h: cs::cusparseHandle_t,
        mem: &dyn Alloc,
        a: &'m CsCsr,
        b: u64,
        c: u64,
        s: Shape,
        out: Vt,
        alg: cs::cusparseSpMMAlg_t,
        alg_name: &'static str,
    ) -> R<CsSpmm<'m>> {
        let row = cs::cusparseOrder_t::CUSPARSE_ORDER_ROW;
        let mut call = CsSpmm {
            h,
            a,
            b: std::ptr::null_mut(),
            c: std::ptr::null_mut(),
            alg,
            alg_name,
            buf: mem.alloc(0)?,
            s: scalars(),
        };
        cs_ok(
            cs::cusparseCreateDnMat(&mut call.b, s.cols, s.n, s.n, b as *mut c_void, a.vt.cusparse(), row),
            "cusparseCreateDnMat(B)",
        )?;
        cs_ok(
            cs::cusparseCreateDnMat(&mut call.c, s.rows, s.n, s.n, c as *mut c_void, out.cusparse(), row),
            "cusparseCreateDnMat(C)",
        )?;
        let (al, be) = call.scalars();
        let mut size = 0usize;
        cs_ok(
            cs::cusparseSpMM_bufferSize(h, CS_N, CS_N, al, a.d as _, call.b as _, be, call.c, CS_F32, alg, &mut size),
            "cusparseSpMM_bufferSize",
        )?;
        call.buf = mem.alloc(size)?;
        cs_ok(
            cs::cusparseSpMM_preprocess(
                h,
                CS_N,
                CS_N,
                al,
                a.d as _,
                call.b as _,
                be,
                call.c,
                CS_F32,
                alg,
                call.buf.ptr as *mut c_void,
            ),
            "cusparseSpMM_preprocess",
        )?;
        Ok(call)
    }

    fn scalars(&self) -> (*const c_void, *const c_void) {
        (&self.s.alpha as *const f32 as *const c_void, &self.s.beta as *const f32 as *const c_void)
    }
}

impl Call for CsSpmm<'_> {
    fn run(&mut self) -> R<()> {
        let (al, be) = self.scalars();
        // SAFETY: descriptors and workspace made for exactly this call in `new`.
        unsafe {
            cs_ok(
                cs::cusparseSpMM(
                    self.h,
                    CS_N,
                    CS_N,
                    al,
                    self.a.d as _,
                    self.b as _,
                    be,
                    self.c,
                    CS_F32,
                    self.alg,
                    self.buf.ptr as *mut c_void,
                ),
                "cusparseSpMM",
            )
        }
    }
    fn buffer_bytes(&self) -> usize {
        self.buf.bytes
    }
}

impl Drop for CsSpmm<'_> {
    fn drop(&mut self) {
        // SAFETY: our descriptors (NULL when never created: skipped).
        unsafe {
            if !self.b.is_null() {
                cs::cusparseDestroyDnMat(self.b as _);
            }
            if !self.c.is_null() {
                cs::cusparseDestroyDnMat(self.c as _);
            }
        }
    }
}

/// Writes A as a dense row-major `rows × cols` array at `dense` (`cusparseSparseToDense`),
/// queued on the handle's stream.
///
/// # Safety
/// `dense` must hold `rows × cols` values of `a.vt`.
pub unsafe fn cs_to_dense(h: cs::cusparseHandle_t, gpu: &Gpu, a: &CsCsr, rows: i64, cols: i64, dense: u64) -> R<()> {
    let mut d: cs::cusparseDnMatDescr_t = std::ptr::null_mut();
    cs_ok(
        cs::cusparseCreateDnMat(
            &mut d,
            rows,
            cols,
            cols,
            dense as *mut c_void,
            a.vt.cusparse(),
            cs::cusparseOrder_t::CUSPARSE_ORDER_ROW,
        ),
        "cusparseCreateDnMat(dense A)",
    )?;
    let alg = cs::cusparseSparseToDenseAlg_t::CUSPARSE_SPARSETODENSE_ALG_DEFAULT;
    let result = (|| -> R<()> {
        let mut size = 0usize;
        cs_ok(
            cs::cusparseSparseToDense_bufferSize(h, a.d as _, d, alg, &mut size),
            "cusparseSparseToDense_bufferSize",
        )?;
        let buf = Alloc::alloc(gpu, size)?;
        cs_ok(cs::cusparseSparseToDense(h, a.d as _, d, alg, buf.ptr as *mut c_void), "cusparseSparseToDense")?;
        // The workspace is freed below (cuMemFree waits for the work using it).
        gpu.sync()?;
        Ok(())
    })();
    cs::cusparseDestroyDnMat(d as _);
    result
}

// ---------------------------------------------------------------------------------------
// cuBLAS

/// Dense C = A·B through `cublasGemmEx`, A the whole matrix stored dense.
pub struct Gemm<'a> {
    pub cublas: &'a Cublas,
    pub s: Shape,
    pub a: u64,
    pub b: u64,
    pub c: u64,
    pub input: Vt,
    pub output: Vt,
    pub compute: Compute,
}

impl Call for Gemm<'_> {
    fn run(&mut self) -> R<()> {
        // SAFETY: the arrays are the shapes stated (made by the caller for this call).
        unsafe {
            self.cublas.gemm_row_major(
                self.s.rows,
                self.s.n,
                self.s.cols,
                self.a,
                self.b,
                self.c,
                self.input.gemm(),
                self.output.gemm(),
                self.compute,
            )
        }
        .map_err(|e| if e.not_supported { Fail::NotSupported(e.msg) } else { Fail::Error(e.msg) })
    }
}

#[cfg(test)]
mod tests {
    //! spblk's calls on its host backend (host memory, no GPU): the same C API sequence the
    //! GPU run makes, so the arguments (types, algorithms, analysis) are checked here.
    use super::*;
    use crate::gen;
    use crate::vbr::accuracy;

    struct HostHandle(spblkHandle_t);
    impl Drop for HostHandle {
        fn drop(&mut self) {
            spblkDestroy(self.0);
        }
    }

    fn host() -> HostHandle {
        let mut h: spblkHandle_t = std::ptr::null_mut();
        spblk_ok(spblkCreateWithBackend(&mut h, SPBLK_BACKEND_HOST), "create").unwrap();
        HostHandle(h)
    }

    #[test]
    fn values_round_trip_through_bytes() {
        let v = gen::values_f64(1000, 3, 1);
        for vt in [Vt::F16, Vt::BF16, Vt::F32] {
            let r: Vec<f64> = v.iter().map(|&x| vt.round(x)).collect();
            assert_eq!(vt.decode(&vt.encode(&v)), r, "{vt:?}");
            assert_eq!(vt.decode(&vt.encode(&r)), r, "{vt:?}: rounding twice changes nothing");
        }
        assert_eq!(Vt::F16.round(1.0 + 1.0 / 4096.0), 1.0);
        assert_eq!(Vt::BF16.round(1.0 + 1.0 / 512.0), 1.0);
    }

    #[test]
    fn fail_from_driver_errors() {
        assert!(matches!(Fail::from("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY".to_string()), Fail::NoMemory(_)));
        assert!(matches!(Fail::from("x failed: CUDA_ERROR_INVALID_VALUE".to_string()), Fail::Error(_)));
    }

    /// Analysis and every algorithm and precision `--vbr` uses, on the host backend, checked
    /// with the accuracy measure of the GPU run.
    #[test]
    fn host_backend_runs_every_call_of_the_experiment() {
        let h = host();
        let p = gen::block(256, 16, 0.2, 0.5, 5);
        let (rows, cols, nnz, n) = (p.rows, p.cols, p.nnz(), 24usize);
        let params = analysis_params().unwrap();
        assert_eq!(params.blockWidth, 64);
        let s = Shape { rows: rows as i64, cols: cols as i64, n: n as i64 };
        let sample: Vec<usize> = (0..rows).collect();
        let mut seen_methods = Vec::new();
        for (vt, out) in [(Vt::F16, Vt::F32), (Vt::F16, Vt::F16), (Vt::BF16, Vt::F32), (Vt::F32, Vt::F32)] {
            let a: Vec<f64> = gen::values_f64(nnz, 1, 7).iter().map(|&x| vt.round(x)).collect();
            let b: Vec<f64> = gen::values_f64(cols * n, 1, 8).iter().map(|&x| vt.round(x)).collect();
            let (ab, bb) = (vt.encode(&a), vt.encode(&b));
            let mut cb = vec![0xFFu8; rows * n * out.size()];
            // SAFETY: host arrays of the stated sizes, alive through the calls below.
            let m = unsafe {
                SpbCsr::new(
                    rows as i64,
                    cols as i64,
                    nnz as i64,
                    p.ptr.as_ptr() as u64,
                    p.col.as_ptr() as u64,
                    ab.as_ptr() as u64,
                    vt,
                )
            }
            .unwrap();
            let info = analyze(h.0, &m, &params).unwrap();
            assert!(info.groups > 0 && info.rho > 0.0 && info.rho <= 1.0 && info.fill >= 1.0, "{info:?}");
            assert!((info.stored * info.rho - nnz as f64).abs() < 1e-6 * nnz as f64 + 1.0, "{info:?}");
            let reference = accuracy::reference(&p, &a, &b, n, &sample);
            let mut algs =
                vec![(SPBLK_SPMM_ALG_VBR, 1e-2), (SPBLK_SPMM_CSR_ALG1, 1e-2), (SPBLK_SPMM_ALG_DEFAULT, 1e-2)];
            if vt == Vt::F32 {
                algs = vec![
                    (SPBLK_SPMM_ALG_VBR, 1e-5),
                    (SPBLK_SPMM_ALG_VBR_TF32, 1e-3),
                    (SPBLK_SPMM_CSR_ALG1, 1e-5),
                    (SPBLK_SPMM_ALG_DEFAULT, 1e-5),
                ];
            }
            for (alg, tol) in algs {
                cb.fill(0xFF);
                // SAFETY: as above.
                let mut call = unsafe {
                    SpbSpmm::new(h.0, &HostAlloc, &m, bb.as_ptr() as u64, cb.as_mut_ptr() as u64, s, out, alg)
                }
                .unwrap_or_else(|e| panic!("{vt:?}->{out:?} {}: {e:?}", spblk_alg_name(alg)));
                let (r, method) = spblk_method(|| call.run());
                r.unwrap();
                seen_methods.push(method.clone().unwrap_or_default());
                let c = out.decode(&cb);
                let err = accuracy::max_rel_err(&reference, &c);
                assert!(err <= tol, "{vt:?}->{out:?} {}: error {err:e} > {tol:e}", spblk_alg_name(alg));
                if vt == Vt::F32 && alg == SPBLK_SPMM_ALG_VBR_TF32 {
                    assert!(err > 1e-7, "TF32 rounding should show: {err:e}");
                }
            }
        }
        assert!(seen_methods.iter().any(|m| m == "Vbr"), "{seen_methods:?}");
        assert!(seen_methods.iter().any(|m| m == "CsrRows"), "{seen_methods:?}");
    }

    #[test]
    fn vbr_tf32_with_half_inputs_is_not_supported() {
        let h = host();
        let p = gen::block(64, 16, 0.5, 0.5, 1);
        let a = Vt::F16.encode(&vec![0.5; p.nnz()]);
        let b = Vt::F16.encode(&vec![0.5; p.cols * 8]);
        let mut c = vec![0u8; p.rows * 8 * 4];
        // SAFETY: host arrays of the stated sizes.
        let m = unsafe {
            SpbCsr::new(
                p.rows as i64,
                p.cols as i64,
                p.nnz() as i64,
                p.ptr.as_ptr() as u64,
                p.col.as_ptr() as u64,
                a.as_ptr() as u64,
                Vt::F16,
            )
        }
        .unwrap();
        analyze(h.0, &m, &analysis_params().unwrap()).unwrap();
        let s = Shape { rows: p.rows as i64, cols: p.cols as i64, n: 8 };
        // SAFETY: as above.
        let r = unsafe {
            SpbSpmm::new(
                h.0,
                &HostAlloc,
                &m,
                b.as_ptr() as u64,
                c.as_mut_ptr() as u64,
                s,
                Vt::F32,
                SPBLK_SPMM_ALG_VBR_TF32,
            )
        };
        assert!(matches!(r, Err(Fail::NotSupported(_))), "{:?}", r.err());
    }
}
