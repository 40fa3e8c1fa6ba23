//! cuBLAS (libcublas, loaded at run time through cudarc's bindings, like cuSPARSE): the
//! dense baseline of `--vbr`, C = A·B with the whole sparse matrix stored dense.

use std::ffi::c_void;

use cudarc::cublas::sys as cb;

use crate::dynlib;
use crate::gpu::{DevBuf, Gpu, Res};

/// Workspace handed to cuBLAS (NVIDIA recommends 32 MiB on Hopper), so that no call
/// allocates.
const WORKSPACE: usize = 32 << 20;

pub struct Cublas {
    h: cb::cublasHandle_t,
    pub version: i32,
    /// Where the library was found.
    pub origin: String,
    /// Whether our workspace was accepted (else cuBLAS uses its own).
    pub workspace_set: bool,
    ws: DevBuf,
}

/// A cuBLAS failure: the status and whether it means "this combination is not supported".
#[derive(Debug, Clone)]
pub struct CublasError {
    pub not_supported: bool,
    pub msg: String,
}

fn ok(st: cb::cublasStatus_t, what: &str) -> Result<(), CublasError> {
    if st == cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        return Ok(());
    }
    // SAFETY: returns a static string.
    let text = unsafe { std::ffi::CStr::from_ptr(cb::cublasGetStatusString(st)) }.to_string_lossy().into_owned();
    Err(CublasError {
        not_supported: st == cb::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
        msg: format!("cuBLAS {what}: {st:?} ({}): {text}", st as u32),
    })
}

/// Makes libcublas loadable (with the libcublasLt beside it, which it needs).
pub fn locate(explicit: Option<&str>) -> Res<String> {
    let wanted = dynlib::Wanted {
        stem: "libcublas.so",
        companions: &["libcublasLt.so."],
        // SAFETY: only tries to open the library by its usual names.
        present: || unsafe { cb::is_culib_present() },
        display: "libcublas.so.13 (or .12)",
        flag: "--cublas-lib",
    };
    dynlib::locate(&wanted, explicit)
}

/// Value types of a GEMM operand (numbered as CUDA's `cudaDataType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmType {
    F16,
    BF16,
    F32,
}

fn data_type(t: GemmType) -> cb::cudaDataType {
    match t {
        GemmType::F16 => cb::cudaDataType::CUDA_R_16F,
        GemmType::BF16 => cb::cudaDataType::CUDA_R_16BF,
        GemmType::F32 => cb::cudaDataType::CUDA_R_32F,
    }
}

/// cuBLAS compute types used here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compute {
    /// `CUBLAS_COMPUTE_32F`: f32 arithmetic (f16/bf16 inputs on tensor cores with f32
    /// accumulation; f32 inputs on the FP32 units, no TF32).
    F32,
    /// `CUBLAS_COMPUTE_32F_FAST_TF32`: f32 inputs rounded to TF32 on tensor cores.
    F32FastTf32,
}

impl Compute {
    pub fn name(self) -> &'static str {
        match self {
            Compute::F32 => "COMPUTE_32F",
            Compute::F32FastTf32 => "COMPUTE_32F_FAST_TF32",
        }
    }
    fn raw(self) -> cb::cublasComputeType_t {
        match self {
            Compute::F32 => cb::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            Compute::F32FastTf32 => cb::cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32,
        }
    }
}

impl Cublas {
    pub fn new(gpu: &Gpu, explicit: Option<&str>) -> Res<Cublas> {
        let origin = locate(explicit)?;
        let ws = gpu.alloc(WORKSPACE)?;
        let mut h: cb::cublasHandle_t = std::ptr::null_mut();
        let e = |x: CublasError| x.msg;
        // SAFETY: out-pointers to locals; the library is loaded (locate). The handle is
        // destroyed on drop, including on the error paths below (it is owned by `c` from
        // the moment it exists).
        unsafe { ok(cb::cublasCreate_v2(&mut h), "cublasCreate").map_err(e)? };
        let mut c = Cublas { h, version: 0, origin, workspace_set: false, ws };
        // SAFETY: live handle; the stream belongs to `gpu`, which outlives every call (the
        // benchmark drops the libraries before the GPU).
        unsafe {
            ok(cb::cublasSetStream_v2(h, gpu.stream as cb::cudaStream_t), "cublasSetStream").map_err(e)?;
            // Default math: COMPUTE_32F stays f32 (TF32 only where asked for by compute type).
            ok(cb::cublasSetMathMode(h, cb::cublasMath_t::CUBLAS_DEFAULT_MATH), "cublasSetMathMode").map_err(e)?;
            ok(cb::cublasGetVersion_v2(h, &mut c.version), "cublasGetVersion").map_err(e)?;
            c.workspace_set =
                ok(cb::cublasSetWorkspace_v2(h, c.ws.ptr as *mut c_void, WORKSPACE), "cublasSetWorkspace").is_ok();
        }
        gpu.make_current()?;
        Ok(c)
    }

    /// Row-major C (m × n) = A (m × k) · B (k × n), all row-major with leading dimensions k,
    /// n and n; α = 1, β = 0 (f32 scalars, the compute type's). cuBLAS is column-major, so
    /// this computes Cᵀ = Bᵀ·Aᵀ: the row-major arrays read as column-major are exactly Bᵀ
    /// (n × k, ld n), Aᵀ (k × m, ld k) and Cᵀ (n × m, ld n).
    ///
    /// # Safety
    /// `a`, `b` and `c` must be device arrays of the stated shapes and types.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn gemm_row_major(
        &self,
        m: i64,
        n: i64,
        k: i64,
        a: u64,
        b: u64,
        c: u64,
        input: GemmType,
        output: GemmType,
        compute: Compute,
    ) -> Result<(), CublasError> {
        let int = |x: i64, what: &str| {
            i32::try_from(x).map_err(|_| CublasError {
                not_supported: true,
                msg: format!("cublasGemmEx: {what} = {x} does not fit a 32-bit int"),
            })
        };
        let (mi, ni, ki) = (int(m, "m")?, int(n, "n")?, int(k, "k")?);
        let (alpha, beta) = (1.0f32, 0.0f32);
        ok(
            cb::cublasGemmEx(
                self.h,
                cb::cublasOperation_t::CUBLAS_OP_N,
                cb::cublasOperation_t::CUBLAS_OP_N,
                ni,
                mi,
                ki,
                &alpha as *const f32 as *const c_void,
                b as *const c_void,
                data_type(input),
                ni,
                a as *const c_void,
                data_type(input),
                ki,
                &beta as *const f32 as *const c_void,
                c as *mut c_void,
                data_type(output),
                ni,
                compute.raw(),
                cb::cublasGemmAlgo_t::CUBLAS_GEMM_DFALT,
            ),
            "cublasGemmEx",
        )
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        // SAFETY: our handle, destroyed once.
        unsafe { cb::cublasDestroy_v2(self.h) };
    }
}
