//! cuSPARSE (libcusparse.so.12, loaded at run time through cudarc's bindings): the baseline.

use std::ffi::c_void;

use cudarc::cusparse::sys::{self as cs, cudaDataType as CudaDt};

use crate::dynlib;
use crate::gpu::{Gpu, Res};
use crate::libs::{Api, DevCsc, DevCsr, Dt, Order, SpgemmAlg, SpgemmCall, D};

pub struct Cusparse {
    h: cs::cusparseHandle_t,
    pub version: i32,
    /// Where the library was found ("loader search path" when the system loader found it).
    pub origin: String,
}

fn ok(st: cs::cusparseStatus_t, what: &str) -> Res<()> {
    if st == cs::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        return Ok(());
    }
    // SAFETY: returns a static string.
    let text = unsafe { std::ffi::CStr::from_ptr(cs::cusparseGetErrorString(st)) }.to_string_lossy().into_owned();
    Err(format!("cuSPARSE {what}: {st:?} ({}): {text}", st as u32))
}

fn dt(d: Dt) -> CudaDt {
    match d {
        Dt::F32 => CudaDt::CUDA_R_32F,
        Dt::F64 => CudaDt::CUDA_R_64F,
    }
}

fn order(o: Order) -> cs::cusparseOrder_t {
    match o {
        Order::Row => cs::cusparseOrder_t::CUSPARSE_ORDER_ROW,
        Order::Col => cs::cusparseOrder_t::CUSPARSE_ORDER_COL,
    }
}

fn spgemm_alg(a: SpgemmAlg) -> cs::cusparseSpGEMMAlg_t {
    match a {
        SpgemmAlg::Default | SpgemmAlg::Esc => cs::cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_DEFAULT,
        SpgemmAlg::Alg2 => cs::cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_ALG2,
        SpgemmAlg::Alg3 => cs::cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_ALG3,
    }
}

const N: cs::cusparseOperation_t = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
const I32: cs::cusparseIndexType_t = cs::cusparseIndexType_t::CUSPARSE_INDEX_32I;
const BASE0: cs::cusparseIndexBase_t = cs::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO;
const SPMV_ALG: cs::cusparseSpMVAlg_t = cs::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT;
const SPMM_ALG: cs::cusparseSpMMAlg_t = cs::cusparseSpMMAlg_t::CUSPARSE_SPMM_ALG_DEFAULT;
const SDDMM_ALG: cs::cusparseSDDMMAlg_t = cs::cusparseSDDMMAlg_t::CUSPARSE_SDDMM_ALG_DEFAULT;

/// Makes libcusparse loadable (with the nvJitLink beside it, which it needs): an explicit
/// path, the loader's own search, or the usual toolkit and Python-wheel locations. Returns
/// where it came from.
pub fn locate(explicit: Option<&str>) -> Res<String> {
    let wanted = dynlib::Wanted {
        stem: "libcusparse.so",
        companions: &["libnvJitLink.so."],
        // SAFETY: only tries to open the library by its usual names.
        present: || unsafe { cs::is_culib_present() },
        display: "libcusparse.so.12",
        flag: "--cusparse-lib",
    };
    dynlib::locate(&wanted, explicit)
}

impl Cusparse {
    pub fn new(gpu: &Gpu, explicit: Option<&str>) -> Res<Cusparse> {
        let origin = locate(explicit)?;
        let mut h: cs::cusparseHandle_t = std::ptr::null_mut();
        // SAFETY: out-pointers to locals; the library is loaded (locate).
        let version = unsafe {
            ok(cs::cusparseCreate(&mut h), "cusparseCreate")?;
            ok(cs::cusparseSetStream(h, gpu.stream as cs::cudaStream_t), "cusparseSetStream")?;
            let mut v = 0;
            ok(cs::cusparseGetVersion(h, &mut v), "cusparseGetVersion")?;
            v
        };
        gpu.make_current()?;
        Ok(Cusparse { h, version, origin })
    }

    /// The handle, for calls outside the `Api` shim (`--vbr`: other value types and
    /// algorithms). It queues on the benchmark's stream.
    pub fn raw(&self) -> cs::cusparseHandle_t {
        self.h
    }
}

impl Drop for Cusparse {
    fn drop(&mut self) {
        // SAFETY: our handle.
        unsafe { cs::cusparseDestroy(self.h) };
    }
}

impl Api for Cusparse {
    fn name(&self) -> &'static str {
        "cuSPARSE"
    }

    unsafe fn csr(&self, rows: i64, cols: i64, nnz: i64, ptr: u64, col: u64, val: u64, d: Dt) -> Res<D> {
        let mut m: cs::cusparseSpMatDescr_t = std::ptr::null_mut();
        ok(
            cs::cusparseCreateCsr(
                &mut m,
                rows,
                cols,
                nnz,
                ptr as *mut c_void,
                col as *mut c_void,
                val as *mut c_void,
                I32,
                I32,
                BASE0,
                dt(d),
            ),
            "cusparseCreateCsr",
        )?;
        Ok(m as D)
    }
    unsafe fn destroy_sp_mat(&self, d: D) {
        cs::cusparseDestroySpMat(d as _);
    }
    unsafe fn dn_vec(&self, size: i64, values: u64, d: Dt) -> Res<D> {
        let mut v: cs::cusparseDnVecDescr_t = std::ptr::null_mut();
        ok(cs::cusparseCreateDnVec(&mut v, size, values as *mut c_void, dt(d)), "cusparseCreateDnVec")?;
        Ok(v as D)
    }
    unsafe fn destroy_dn_vec(&self, d: D) {
        cs::cusparseDestroyDnVec(d as _);
    }
    unsafe fn dn_mat(&self, rows: i64, cols: i64, ld: i64, values: u64, d: Dt, o: Order) -> Res<D> {
        let mut m: cs::cusparseDnMatDescr_t = std::ptr::null_mut();
        ok(
            cs::cusparseCreateDnMat(&mut m, rows, cols, ld, values as *mut c_void, dt(d), order(o)),
            "cusparseCreateDnMat",
        )?;
        Ok(m as D)
    }
    unsafe fn destroy_dn_mat(&self, d: D) {
        cs::cusparseDestroyDnMat(d as _);
    }
    unsafe fn sp_mat_nnz(&self, d: D) -> Res<i64> {
        let (mut r, mut c, mut n) = (0, 0, 0);
        ok(cs::cusparseSpMatGetSize(d as _, &mut r, &mut c, &mut n), "cusparseSpMatGetSize")?;
        Ok(n)
    }
    unsafe fn csr_set_pointers(&self, d: D, ptr: u64, col: u64, val: u64) -> Res<()> {
        ok(
            cs::cusparseCsrSetPointers(d as _, ptr as *mut c_void, col as *mut c_void, val as *mut c_void),
            "cusparseCsrSetPointers",
        )
    }

    unsafe fn spmv_buffer_size(&self, al: *const c_void, a: D, x: D, be: *const c_void, y: D, d: Dt) -> Res<usize> {
        let mut size = 0;
        ok(
            cs::cusparseSpMV_bufferSize(self.h, N, al, a as _, x as _, be, y as _, dt(d), SPMV_ALG, &mut size),
            "cusparseSpMV_bufferSize",
        )?;
        Ok(size)
    }
    unsafe fn spmv_preprocess(
        &self,
        al: *const c_void,
        a: D,
        x: D,
        be: *const c_void,
        y: D,
        d: Dt,
        buf: u64,
    ) -> Res<()> {
        ok(
            cs::cusparseSpMV_preprocess(self.h, N, al, a as _, x as _, be, y as _, dt(d), SPMV_ALG, buf as _),
            "cusparseSpMV_preprocess",
        )
    }
    unsafe fn spmv(&self, al: *const c_void, a: D, x: D, be: *const c_void, y: D, d: Dt, buf: u64) -> Res<()> {
        ok(cs::cusparseSpMV(self.h, N, al, a as _, x as _, be, y as _, dt(d), SPMV_ALG, buf as _), "cusparseSpMV")
    }

    unsafe fn spmm_buffer_size(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, d: Dt) -> Res<usize> {
        let mut size = 0;
        ok(
            cs::cusparseSpMM_bufferSize(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), SPMM_ALG, &mut size),
            "cusparseSpMM_bufferSize",
        )?;
        Ok(size)
    }
    unsafe fn spmm_preprocess(
        &self,
        al: *const c_void,
        a: D,
        b: D,
        be: *const c_void,
        c: D,
        d: Dt,
        buf: u64,
    ) -> Res<()> {
        ok(
            cs::cusparseSpMM_preprocess(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), SPMM_ALG, buf as _),
            "cusparseSpMM_preprocess",
        )
    }
    unsafe fn spmm(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, d: Dt, buf: u64) -> Res<()> {
        ok(cs::cusparseSpMM(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), SPMM_ALG, buf as _), "cusparseSpMM")
    }

    unsafe fn sddmm_buffer_size(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, d: Dt) -> Res<usize> {
        let mut size = 0;
        ok(
            cs::cusparseSDDMM_bufferSize(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), SDDMM_ALG, &mut size),
            "cusparseSDDMM_bufferSize",
        )?;
        Ok(size)
    }
    unsafe fn sddmm_preprocess(
        &self,
        al: *const c_void,
        a: D,
        b: D,
        be: *const c_void,
        c: D,
        d: Dt,
        buf: u64,
    ) -> Res<()> {
        ok(
            cs::cusparseSDDMM_preprocess(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), SDDMM_ALG, buf as _),
            "cusparseSDDMM_preprocess",
        )
    }
    unsafe fn sddmm(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, d: Dt, buf: u64) -> Res<()> {
        ok(cs::cusparseSDDMM(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), SDDMM_ALG, buf as _), "cusparseSDDMM")
    }

    unsafe fn csr2csc_buffer_size(&self, a: &DevCsr, o: &DevCsc) -> Res<usize> {
        let mut size = 0;
        ok(
            cs::cusparseCsr2cscEx2_bufferSize(
                self.h,
                a.rows as i32,
                a.cols as i32,
                a.nnz as i32,
                a.val as *const c_void,
                a.ptr as *const i32,
                a.col as *const i32,
                o.val as *mut c_void,
                o.col_ptr as *mut i32,
                o.row_ind as *mut i32,
                dt(a.dt),
                cs::cusparseAction_t::CUSPARSE_ACTION_NUMERIC,
                BASE0,
                cs::cusparseCsr2CscAlg_t::CUSPARSE_CSR2CSC_ALG_DEFAULT,
                &mut size,
            ),
            "cusparseCsr2cscEx2_bufferSize",
        )?;
        Ok(size)
    }
    unsafe fn csr2csc(&self, a: &DevCsr, o: &DevCsc, buf: u64) -> Res<()> {
        ok(
            cs::cusparseCsr2cscEx2(
                self.h,
                a.rows as i32,
                a.cols as i32,
                a.nnz as i32,
                a.val as *const c_void,
                a.ptr as *const i32,
                a.col as *const i32,
                o.val as *mut c_void,
                o.col_ptr as *mut i32,
                o.row_ind as *mut i32,
                dt(a.dt),
                cs::cusparseAction_t::CUSPARSE_ACTION_NUMERIC,
                BASE0,
                cs::cusparseCsr2CscAlg_t::CUSPARSE_CSR2CSC_ALG_DEFAULT,
                buf as *mut c_void,
            ),
            "cusparseCsr2cscEx2",
        )
    }

    unsafe fn spgemm_create(&self) -> Res<D> {
        let mut g: cs::cusparseSpGEMMDescr_t = std::ptr::null_mut();
        ok(cs::cusparseSpGEMM_createDescr(&mut g), "cusparseSpGEMM_createDescr")?;
        Ok(g as D)
    }
    unsafe fn spgemm_destroy(&self, g: D) {
        cs::cusparseSpGEMM_destroyDescr(g as _);
    }
    unsafe fn spgemm_work_estimation(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()> {
        ok(
            cs::cusparseSpGEMM_workEstimation(
                self.h,
                N,
                N,
                s.alpha,
                s.a as _,
                s.b as _,
                s.beta,
                s.c as _,
                dt(s.dt),
                spgemm_alg(s.alg),
                s.g as _,
                size,
                buf as *mut c_void,
            ),
            "cusparseSpGEMM_workEstimation",
        )
    }
    unsafe fn spgemm_compute(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()> {
        ok(
            cs::cusparseSpGEMM_compute(
                self.h,
                N,
                N,
                s.alpha,
                s.a as _,
                s.b as _,
                s.beta,
                s.c as _,
                dt(s.dt),
                spgemm_alg(s.alg),
                s.g as _,
                size,
                buf as *mut c_void,
            ),
            "cusparseSpGEMM_compute",
        )
    }
    unsafe fn spgemm_copy(&self, s: &SpgemmCall) -> Res<()> {
        ok(
            cs::cusparseSpGEMM_copy(
                self.h,
                N,
                N,
                s.alpha,
                s.a as _,
                s.b as _,
                s.beta,
                s.c as _,
                dt(s.dt),
                spgemm_alg(s.alg),
                s.g as _,
            ),
            "cusparseSpGEMM_copy",
        )
    }
    unsafe fn spgemm_reuse_work_estimation(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()> {
        ok(
            cs::cusparseSpGEMMreuse_workEstimation(
                self.h,
                N,
                N,
                s.a as _,
                s.b as _,
                s.c as _,
                spgemm_alg(s.alg),
                s.g as _,
                size,
                buf as *mut c_void,
            ),
            "cusparseSpGEMMreuse_workEstimation",
        )
    }
    unsafe fn spgemm_reuse_nnz(&self, s: &SpgemmCall, sizes: &mut [usize; 3], bufs: [u64; 3]) -> Res<()> {
        let [s2, s3, s4] = sizes;
        ok(
            cs::cusparseSpGEMMreuse_nnz(
                self.h,
                N,
                N,
                s.a as _,
                s.b as _,
                s.c as _,
                spgemm_alg(s.alg),
                s.g as _,
                s2,
                bufs[0] as *mut c_void,
                s3,
                bufs[1] as *mut c_void,
                s4,
                bufs[2] as *mut c_void,
            ),
            "cusparseSpGEMMreuse_nnz",
        )
    }
    unsafe fn spgemm_reuse_copy(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()> {
        ok(
            cs::cusparseSpGEMMreuse_copy(
                self.h,
                N,
                N,
                s.a as _,
                s.b as _,
                s.c as _,
                spgemm_alg(s.alg),
                s.g as _,
                size,
                buf as *mut c_void,
            ),
            "cusparseSpGEMMreuse_copy",
        )
    }
    unsafe fn spgemm_reuse_compute(&self, s: &SpgemmCall) -> Res<()> {
        ok(
            cs::cusparseSpGEMMreuse_compute(
                self.h,
                N,
                N,
                s.alpha,
                s.a as _,
                s.b as _,
                s.beta,
                s.c as _,
                dt(s.dt),
                spgemm_alg(s.alg),
                s.g as _,
            ),
            "cusparseSpGEMMreuse_compute",
        )
    }
    unsafe fn spgemm_estimate_memory(
        &self,
        s: &SpgemmCall,
        size3: &mut usize,
        buf3: u64,
        size2: *mut usize,
    ) -> Res<()> {
        ok(
            cs::cusparseSpGEMM_estimateMemory(
                self.h,
                N,
                N,
                s.alpha,
                s.a as _,
                s.b as _,
                s.beta,
                s.c as _,
                dt(s.dt),
                spgemm_alg(s.alg),
                s.g as _,
                SpgemmAlg::CHUNK_FRACTION,
                size3,
                buf3 as *mut c_void,
                size2,
            ),
            "cusparseSpGEMM_estimateMemory",
        )
    }
}
