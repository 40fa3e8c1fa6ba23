//! spblk through its C API, called from Rust (`spblk::capi::*`), on the CUDA backend.

use std::ffi::c_void;

use spblk::capi::convert::*;
use spblk::capi::dense::*;
use spblk::capi::handle::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::spgemm::*;
use spblk::capi::types::*;

use crate::gpu::{Gpu, Res};
use crate::libs::{Api, DevCsc, DevCsr, Dt, Order, SpgemmAlg, SpgemmCall, D};

pub struct Spblk {
    h: spblkHandle_t,
    pub version: i32,
    /// The algorithm value of SpMV calls (`--spmv-algs`).
    spmv_alg: std::cell::Cell<spblkSpMVAlg_t>,
    /// The algorithm value of SpMM calls (`--spmm-alg`).
    spmm_alg: std::cell::Cell<spblkSpMMAlg_t>,
    /// The algorithm value of SDDMM calls (`--sddmm-alg`).
    sddmm_alg: std::cell::Cell<spblkSDDMMAlg_t>,
    /// Wall time of the last SpMM preprocess (it waits for its work).
    preprocess_ms: std::cell::Cell<Option<f64>>,
}

fn spgemm_alg(a: SpgemmAlg) -> spblkSpGEMMAlg_t {
    match a {
        SpgemmAlg::Default => SPBLK_SPGEMM_DEFAULT,
        SpgemmAlg::Alg2 => SPBLK_SPGEMM_ALG2,
        SpgemmAlg::Alg3 => SPBLK_SPGEMM_ALG3,
        SpgemmAlg::Esc => SPBLK_SPGEMM_ALG_ESC,
    }
}

/// "what: SPBLK_STATUS_X: the library's last message".
fn ok(st: spblkStatus_t, what: &str) -> Res<()> {
    if st == SPBLK_STATUS_SUCCESS {
        return Ok(());
    }
    // SAFETY: static NUL-terminated string.
    let name = unsafe { std::ffi::CStr::from_ptr(spblkGetErrorName(st)) }.to_string_lossy().into_owned();
    let mut buf = vec![0u8; 1024];
    let mut written = 0usize;
    let msg = if spblkGetLastErrorMessage(buf.as_mut_ptr() as *mut _, buf.len(), &mut written) == SPBLK_STATUS_SUCCESS {
        String::from_utf8_lossy(&buf[..written]).into_owned()
    } else {
        String::new()
    };
    Err(format!("spblk {what}: {name} ({st}): {msg}"))
}

fn dt(d: Dt) -> spblkDataType_t {
    match d {
        Dt::F32 => SPBLK_R_32F,
        Dt::F64 => SPBLK_R_64F,
    }
}

fn order(o: Order) -> spblkOrder_t {
    match o {
        Order::Row => SPBLK_ORDER_ROW,
        Order::Col => SPBLK_ORDER_COL,
    }
}

const N: spblkOperation_t = SPBLK_OPERATION_NON_TRANSPOSE;

impl Spblk {
    /// A handle on the CUDA backend, queuing on the benchmark's stream.
    pub fn new(gpu: &Gpu) -> Res<Spblk> {
        let mut h: spblkHandle_t = std::ptr::null_mut();
        ok(spblkCreateWithBackend(&mut h, SPBLK_BACKEND_CUDA), "spblkCreateWithBackend(CUDA)")?;
        // Owned from here: an early return destroys the handle.
        let mut s = Spblk {
            h,
            version: 0,
            spmv_alg: std::cell::Cell::new(SPBLK_SPMV_ALG_DEFAULT),
            spmm_alg: std::cell::Cell::new(SPBLK_SPMM_ALG_DEFAULT),
            sddmm_alg: std::cell::Cell::new(SPBLK_SDDMM_ALG_DEFAULT),
            preprocess_ms: std::cell::Cell::new(None),
        };
        ok(spblkSetStream(h, gpu.stream as spblkStream_t), "spblkSetStream")?;
        ok(spblkGetVersion(h, &mut s.version), "spblkGetVersion")?;
        // The backend may have made its context current; keep ours (the same primary one).
        gpu.make_current()?;
        Ok(s)
    }

    /// The handle, for calls outside the `Api` shim (`--vbr`: analysis, other value types and
    /// algorithms). It queues on the benchmark's stream.
    pub fn raw(&self) -> spblkHandle_t {
        self.h
    }
}

impl Drop for Spblk {
    fn drop(&mut self) {
        spblkDestroy(self.h);
    }
}

impl Api for Spblk {
    fn name(&self) -> &'static str {
        "spblk"
    }
    fn set_spmv_alg(&self, alg: u32) {
        self.spmv_alg.set(alg);
    }
    fn set_spmm_alg(&self, alg: u32) {
        self.spmm_alg.set(alg);
        self.preprocess_ms.set(None);
    }
    fn set_sddmm_alg(&self, alg: u32) {
        self.sddmm_alg.set(alg);
        self.preprocess_ms.set(None);
    }
    fn last_preprocess_ms(&self) -> Option<f64> {
        self.preprocess_ms.get()
    }

    unsafe fn csr(&self, rows: i64, cols: i64, nnz: i64, ptr: u64, col: u64, val: u64, d: Dt) -> Res<D> {
        let mut m: spblkSpMatDescr_t = std::ptr::null_mut();
        ok(
            spblkCreateCsr(
                &mut m,
                rows,
                cols,
                nnz,
                ptr as *mut c_void,
                col as *mut c_void,
                val as *mut c_void,
                SPBLK_INDEX_32I,
                SPBLK_INDEX_32I,
                SPBLK_INDEX_BASE_ZERO,
                dt(d),
            ),
            "spblkCreateCsr",
        )?;
        Ok(m as D)
    }
    unsafe fn destroy_sp_mat(&self, d: D) {
        spblkDestroySpMat(d as spblkConstSpMatDescr_t);
    }
    unsafe fn dn_vec(&self, size: i64, values: u64, d: Dt) -> Res<D> {
        let mut v: spblkDnVecDescr_t = std::ptr::null_mut();
        ok(spblkCreateDnVec(&mut v, size, values as *mut c_void, dt(d)), "spblkCreateDnVec")?;
        Ok(v as D)
    }
    unsafe fn destroy_dn_vec(&self, d: D) {
        spblkDestroyDnVec(d as spblkConstDnVecDescr_t);
    }
    unsafe fn dn_mat(&self, rows: i64, cols: i64, ld: i64, values: u64, d: Dt, o: Order) -> Res<D> {
        let mut m: spblkDnMatDescr_t = std::ptr::null_mut();
        ok(spblkCreateDnMat(&mut m, rows, cols, ld, values as *mut c_void, dt(d), order(o)), "spblkCreateDnMat")?;
        Ok(m as D)
    }
    unsafe fn destroy_dn_mat(&self, d: D) {
        spblkDestroyDnMat(d as spblkConstDnMatDescr_t);
    }
    unsafe fn sp_mat_nnz(&self, d: D) -> Res<i64> {
        let (mut r, mut c, mut n) = (0, 0, 0);
        ok(spblkSpMatGetSize(d as spblkConstSpMatDescr_t, &mut r, &mut c, &mut n), "spblkSpMatGetSize")?;
        Ok(n)
    }
    unsafe fn csr_set_pointers(&self, d: D, ptr: u64, col: u64, val: u64) -> Res<()> {
        ok(
            spblkCsrSetPointers(d as spblkSpMatDescr_t, ptr as *mut c_void, col as *mut c_void, val as *mut c_void),
            "spblkCsrSetPointers",
        )
    }

    unsafe fn spmv_buffer_size(&self, al: *const c_void, a: D, x: D, be: *const c_void, y: D, d: Dt) -> Res<usize> {
        let mut size = 0;
        ok(
            spblkSpMV_bufferSize(self.h, N, al, a as _, x as _, be, y as _, dt(d), self.spmv_alg.get(), &mut size),
            "spblkSpMV_bufferSize",
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
            spblkSpMV_preprocess(self.h, N, al, a as _, x as _, be, y as _, dt(d), self.spmv_alg.get(), buf as _),
            "spblkSpMV_preprocess",
        )
    }
    unsafe fn spmv(&self, al: *const c_void, a: D, x: D, be: *const c_void, y: D, d: Dt, buf: u64) -> Res<()> {
        ok(spblkSpMV(self.h, N, al, a as _, x as _, be, y as _, dt(d), self.spmv_alg.get(), buf as _), "spblkSpMV")
    }

    unsafe fn spmm_buffer_size(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, d: Dt) -> Res<usize> {
        let mut size = 0;
        ok(
            spblkSpMM_bufferSize(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), self.spmm_alg.get(), &mut size),
            "spblkSpMM_bufferSize",
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
        let start = std::time::Instant::now();
        ok(
            spblkSpMM_preprocess(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), self.spmm_alg.get(), buf as _),
            "spblkSpMM_preprocess",
        )?;
        self.preprocess_ms.set(Some(start.elapsed().as_secs_f64() * 1e3));
        Ok(())
    }
    unsafe fn spmm(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, d: Dt, buf: u64) -> Res<()> {
        ok(spblkSpMM(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), self.spmm_alg.get(), buf as _), "spblkSpMM")
    }

    unsafe fn sddmm_buffer_size(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, d: Dt) -> Res<usize> {
        let mut size = 0;
        ok(
            spblkSDDMM_bufferSize(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), self.sddmm_alg.get(), &mut size),
            "spblkSDDMM_bufferSize",
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
        let start = std::time::Instant::now();
        ok(
            spblkSDDMM_preprocess(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), self.sddmm_alg.get(), buf as _),
            "spblkSDDMM_preprocess",
        )?;
        self.preprocess_ms.set(Some(start.elapsed().as_secs_f64() * 1e3));
        Ok(())
    }
    unsafe fn sddmm(&self, al: *const c_void, a: D, b: D, be: *const c_void, c: D, d: Dt, buf: u64) -> Res<()> {
        ok(
            spblkSDDMM(self.h, N, N, al, a as _, b as _, be, c as _, dt(d), self.sddmm_alg.get(), buf as _),
            "spblkSDDMM",
        )
    }

    unsafe fn csr2csc_buffer_size(&self, a: &DevCsr, o: &DevCsc) -> Res<usize> {
        let mut size = 0;
        ok(
            spblkCsr2cscEx2_bufferSize(
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
                SPBLK_ACTION_NUMERIC,
                SPBLK_INDEX_BASE_ZERO,
                SPBLK_CSR2CSC_ALG_DEFAULT,
                &mut size,
            ),
            "spblkCsr2cscEx2_bufferSize",
        )?;
        Ok(size)
    }
    unsafe fn csr2csc(&self, a: &DevCsr, o: &DevCsc, buf: u64) -> Res<()> {
        ok(
            spblkCsr2cscEx2(
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
                SPBLK_ACTION_NUMERIC,
                SPBLK_INDEX_BASE_ZERO,
                SPBLK_CSR2CSC_ALG_DEFAULT,
                buf as *mut c_void,
            ),
            "spblkCsr2cscEx2",
        )
    }

    unsafe fn spgemm_create(&self) -> Res<D> {
        let mut g: spblkSpGEMMDescr_t = std::ptr::null_mut();
        ok(spblkSpGEMM_createDescr(&mut g), "spblkSpGEMM_createDescr")?;
        Ok(g as D)
    }
    unsafe fn spgemm_destroy(&self, g: D) {
        spblkSpGEMM_destroyDescr(g as spblkSpGEMMDescr_t);
    }
    unsafe fn spgemm_work_estimation(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()> {
        ok(
            spblkSpGEMM_workEstimation(
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
            "spblkSpGEMM_workEstimation",
        )
    }
    unsafe fn spgemm_compute(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()> {
        ok(
            spblkSpGEMM_compute(
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
            "spblkSpGEMM_compute",
        )
    }
    unsafe fn spgemm_copy(&self, s: &SpgemmCall) -> Res<()> {
        ok(
            spblkSpGEMM_copy(
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
            "spblkSpGEMM_copy",
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
            spblkSpGEMM_estimateMemory(
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
            "spblkSpGEMM_estimateMemory",
        )
    }
    unsafe fn spgemm_reuse_work_estimation(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()> {
        ok(
            spblkSpGEMMreuse_workEstimation(
                self.h,
                N,
                N,
                s.a as _,
                s.b as _,
                s.c as _,
                SPBLK_SPGEMM_DEFAULT,
                s.g as _,
                size,
                buf as *mut c_void,
            ),
            "spblkSpGEMMreuse_workEstimation",
        )
    }
    unsafe fn spgemm_reuse_nnz(&self, s: &SpgemmCall, sizes: &mut [usize; 3], bufs: [u64; 3]) -> Res<()> {
        let [s2, s3, s4] = sizes;
        ok(
            spblkSpGEMMreuse_nnz(
                self.h,
                N,
                N,
                s.a as _,
                s.b as _,
                s.c as _,
                SPBLK_SPGEMM_DEFAULT,
                s.g as _,
                s2,
                bufs[0] as *mut c_void,
                s3,
                bufs[1] as *mut c_void,
                s4,
                bufs[2] as *mut c_void,
            ),
            "spblkSpGEMMreuse_nnz",
        )
    }
    unsafe fn spgemm_reuse_copy(&self, s: &SpgemmCall, size: &mut usize, buf: u64) -> Res<()> {
        ok(
            spblkSpGEMMreuse_copy(
                self.h,
                N,
                N,
                s.a as _,
                s.b as _,
                s.c as _,
                SPBLK_SPGEMM_DEFAULT,
                s.g as _,
                size,
                buf as *mut c_void,
            ),
            "spblkSpGEMMreuse_copy",
        )
    }
    unsafe fn spgemm_reuse_compute(&self, s: &SpgemmCall) -> Res<()> {
        ok(
            spblkSpGEMMreuse_compute(
                self.h,
                N,
                N,
                s.alpha,
                s.a as _,
                s.b as _,
                s.beta,
                s.c as _,
                dt(s.dt),
                SPBLK_SPGEMM_DEFAULT,
                s.g as _,
            ),
            "spblkSpGEMMreuse_compute",
        )
    }
}
