//! Large inputs on the CUDA backend: results checked on sampled rows against an f64
//! reference computed here, and the time of each operation printed (CUDA events, median of
//! repeated calls after warm-up) with its effective bandwidth next to a measured
//! device-to-device copy. Without a GPU it prints `SKIPPED: <reason>` and passes.
#![cfg(feature = "cuda")]

use std::ffi::c_void;
use std::io::Write;

use cudarc::driver::sys;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use spblk::capi::convert::*;
use spblk::capi::dense::*;
use spblk::capi::handle::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::spgemm::*;
use spblk::capi::types::*;

fn say(line: String) {
    // Direct to stderr: libtest captures eprintln! of passing tests.
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[track_caller]
fn ok(s: spblkStatus_t, what: &str) {
    if s != SPBLK_STATUS_SUCCESS {
        let mut buf = vec![0u8; 1024];
        let mut n = 0;
        spblkGetLastErrorMessage(buf.as_mut_ptr() as *mut _, buf.len(), &mut n);
        panic!("{what}: status {s}: {}", String::from_utf8_lossy(&buf[..n]));
    }
}

#[track_caller]
fn cu(r: sys::CUresult, what: &str) {
    assert_eq!(r, sys::CUresult::CUDA_SUCCESS, "{what}");
}

/// Makes device 0's primary context (the one spblk uses) current for the test's own calls.
fn make_current() {
    // SAFETY: driver calls with out-pointers to locals; the driver was initialized by spblk.
    unsafe {
        let (mut d, mut c) = (0, std::ptr::null_mut());
        cu(sys::cuDeviceGet(&mut d, 0), "device");
        cu(sys::cuDevicePrimaryCtxRetain(&mut c, d), "ctx");
        cu(sys::cuCtxSetCurrent(c), "ctx");
    }
}

struct Dev(Vec<u64>);

impl Dev {
    fn put<T: Copy>(&mut self, v: &[T]) -> *mut c_void {
        let bytes = std::mem::size_of_val(v).max(16);
        let mut p = 0;
        // SAFETY: allocation and upload of `bytes` bytes from a live slice.
        unsafe {
            cu(sys::cuMemAlloc_v2(&mut p, bytes), "cuMemAlloc");
            if !v.is_empty() {
                cu(sys::cuMemcpyHtoD_v2(p, v.as_ptr() as *const c_void, std::mem::size_of_val(v)), "HtoD");
            }
        }
        self.0.push(p);
        p as *mut c_void
    }
    fn zeros(&mut self, bytes: usize) -> *mut c_void {
        self.put(&vec![0u8; bytes])
    }
    fn get<T: Copy + Default>(&self, p: *mut c_void, n: usize) -> Vec<T> {
        let mut v = vec![T::default(); n];
        // SAFETY: p holds at least n elements (allocated by `put`).
        unsafe {
            cu(sys::cuMemcpyDtoH_v2(v.as_mut_ptr() as *mut c_void, p as u64, n * std::mem::size_of::<T>()), "DtoH")
        };
        v
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        for &p in &self.0 {
            // SAFETY: our allocations.
            unsafe { sys::cuMemFree_v2(p) };
        }
    }
}

/// Median time in ms of `f` on the legacy stream, after 3 warm-up calls.
fn time_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..3 {
        f();
    }
    let mut times = Vec::new();
    // SAFETY: events created, recorded on the legacy stream, read and destroyed here.
    unsafe {
        let (mut a, mut b) = (std::ptr::null_mut(), std::ptr::null_mut());
        cu(sys::cuEventCreate(&mut a, 0), "event");
        cu(sys::cuEventCreate(&mut b, 0), "event");
        for _ in 0..reps {
            cu(sys::cuEventRecord(a, std::ptr::null_mut()), "record");
            f();
            cu(sys::cuEventRecord(b, std::ptr::null_mut()), "record");
            cu(sys::cuEventSynchronize(b), "sync");
            let mut ms = 0f32;
            cu(sys::cuEventElapsedTime_v2(&mut ms, a, b), "elapsed");
            times.push(ms as f64);
        }
        sys::cuEventDestroy_v2(a);
        sys::cuEventDestroy_v2(b);
    }
    times.sort_by(|x, y| x.partial_cmp(y).unwrap());
    times[times.len() / 2]
}

/// A random CSR matrix with i32 indices: row lengths from `len`, sorted columns.
fn csr(
    r: &mut StdRng,
    m: usize,
    n: usize,
    mut len: impl FnMut(&mut StdRng) -> usize,
) -> (Vec<i32>, Vec<i32>, Vec<f32>) {
    let mut ptr = vec![0i32];
    let mut col = Vec::new();
    let mut row = Vec::new();
    for _ in 0..m {
        let l = len(r).min(n);
        row.clear();
        row.extend((0..l).map(|_| r.gen_range(0..n as i32)));
        row.sort_unstable();
        row.dedup();
        col.extend_from_slice(&row);
        ptr.push(col.len() as i32);
    }
    let val = (0..col.len()).map(|_| r.gen_range(-1.0f32..1.0)).collect();
    (ptr, col, val)
}

fn row_dot(ptr: &[i32], col: &[i32], val: &[f32], x: &[f32], i: usize) -> (f64, f64) {
    let (mut s, mut a) = (0f64, 0f64);
    for p in ptr[i] as usize..ptr[i + 1] as usize {
        let t = val[p] as f64 * x[col[p] as usize] as f64;
        s += t;
        a += t.abs();
    }
    (s, a)
}

#[test]
fn large_inputs_are_correct_and_timed() {
    let mut h: spblkHandle_t = std::ptr::null_mut();
    if spblkCreateWithBackend(&mut h, SPBLK_BACKEND_CUDA) != SPBLK_STATUS_SUCCESS {
        say("SKIPPED: large_inputs_are_correct_and_timed: no usable CUDA backend".into());
        return;
    }
    make_current();
    let mut dev = Dev(Vec::new());
    let mut r = StdRng::seed_from_u64(11);
    let (one, zero) = (1.0f32, 0.0f32);
    let (alpha, beta) = (&one as *const f32 as *const c_void, &zero as *const f32 as *const c_void);

    // Copy bandwidth (bytes read + written), the ceiling for the memory-bound operations.
    let big = 1usize << 30;
    let (src, dst) = (dev.zeros(big), dev.zeros(big));
    // SAFETY: two device buffers of `big` bytes.
    let copy_ms = time_ms(10, || unsafe {
        cu(sys::cuMemcpyDtoDAsync_v2(dst as u64, src as u64, big, std::ptr::null_mut()), "copy")
    });
    let copy_gbs = 2.0 * big as f64 / copy_ms / 1e6;
    say(format!("PERF copy            {copy_ms:8.3} ms  {copy_gbs:7.0} GB/s (device-to-device, read+write)"));

    // SpMV on a uniform and a power-law matrix, 2^20 x 2^20.
    let m = 1usize << 20;
    for (name, avg) in [("spmv uniform(32)", 0), ("spmv power-law", 1)] {
        let (ptr, col, val) = if avg == 0 {
            csr(&mut r, m, m, |r| r.gen_range(16..48))
        } else {
            csr(&mut r, m, m, |r| {
                let u: f64 = r.gen_range(1e-6..1.0);
                (4.0 / u.powf(0.9)) as usize
            })
        };
        let nnz = col.len();
        let x: Vec<f32> = (0..m).map(|_| r.gen_range(-1.0f32..1.0)).collect();
        let (dp, dc, dv, dx, dy) = (dev.put(&ptr), dev.put(&col), dev.put(&val), dev.put(&x), dev.zeros(m * 4));
        let mut a = std::ptr::null_mut();
        ok(
            spblkCreateCsr(
                &mut a,
                m as i64,
                m as i64,
                nnz as i64,
                dp,
                dc,
                dv,
                SPBLK_INDEX_32I,
                SPBLK_INDEX_32I,
                SPBLK_INDEX_BASE_ZERO,
                SPBLK_R_32F,
            ),
            "csr",
        );
        let (mut vx, mut vy) = (std::ptr::null_mut(), std::ptr::null_mut());
        ok(spblkCreateDnVec(&mut vx, m as i64, dx, SPBLK_R_32F), "x");
        ok(spblkCreateDnVec(&mut vy, m as i64, dy, SPBLK_R_32F), "y");
        let mut size = 0;
        ok(spblkSpMV_bufferSize(h, 0, alpha, a, vx, beta, vy, SPBLK_R_32F, 0, &mut size), "size");
        let buf = dev.zeros(size);
        let ms = time_ms(20, || ok(spblkSpMV(h, 0, alpha, a, vx, beta, vy, SPBLK_R_32F, 0, buf), "spmv"));
        let y: Vec<f32> = dev.get(dy, m);
        for _ in 0..2000 {
            let i = r.gen_range(0..m);
            let (s, abs) = row_dot(&ptr, &col, &val, &x, i);
            let len = (ptr[i + 1] - ptr[i]) as f64;
            assert!((y[i] as f64 - s).abs() <= 1e-6 * (len + 1.0) * abs + 1e-30, "{name}: row {i}: {} vs {s}", y[i]);
        }
        // Bytes that must move: values and columns once, offsets, y; x at least once.
        let bytes = nnz as f64 * 8.0 + (m as f64 + 1.0) * 4.0 + 2.0 * m as f64 * 4.0;
        let max_row = ptr.windows(2).map(|w| w[1] - w[0]).max().unwrap();
        say(format!(
            "PERF {name:<16} {ms:8.3} ms  {:7.0} GB/s ({:.0}% of copy)  nnz {nnz}, longest row {max_row}",
            bytes / ms / 1e6,
            100.0 * bytes / ms / 1e6 / copy_gbs
        ));
        // csr2csc of the same structure and values.
        if avg == 0 {
            let (cp, ri, cv) = (dev.zeros((m + 1) * 4), dev.zeros(nnz * 4), dev.zeros(nnz * 4));
            let (mi, zi) = (m as i32, nnz as i32);
            let mut size = 0;
            ok(
                spblkCsr2cscEx2_bufferSize(
                    h,
                    mi,
                    mi,
                    zi,
                    dv,
                    dp as _,
                    dc as _,
                    cv,
                    cp as _,
                    ri as _,
                    SPBLK_R_32F,
                    SPBLK_ACTION_NUMERIC,
                    0,
                    1,
                    &mut size,
                ),
                "size",
            );
            let cbuf = dev.zeros(size);
            let ms = time_ms(5, || {
                ok(
                    spblkCsr2cscEx2(
                        h,
                        mi,
                        mi,
                        zi,
                        dv,
                        dp as _,
                        dc as _,
                        cv,
                        cp as _,
                        ri as _,
                        SPBLK_R_32F,
                        SPBLK_ACTION_NUMERIC,
                        0,
                        1,
                        cbuf,
                    ),
                    "csr2csc",
                )
            });
            let colptr: Vec<i32> = dev.get(cp, m + 1);
            assert_eq!(colptr[m] as usize, nnz, "csr2csc: column offsets end at nnz");
            say(format!(
                "PERF csr2csc         {ms:8.3} ms  {:7.1} Gnnz/s (radix sort on 20-bit keys)",
                nnz as f64 / ms / 1e6
            ));
        }
        spblkDestroySpMat(a);
        spblkDestroyDnVec(vx);
        spblkDestroyDnVec(vy);
    }

    // SpMM, 2^18 x 2^18 with 32 entries per row, times a row-major 2^18 x N matrix.
    let m = 1usize << 18;
    let (ptr, col, val) = csr(&mut r, m, m, |r| r.gen_range(16..48));
    let nnz = col.len();
    let (dp, dc, dv) = (dev.put(&ptr), dev.put(&col), dev.put(&val));
    let mut a = std::ptr::null_mut();
    ok(
        spblkCreateCsr(
            &mut a,
            m as i64,
            m as i64,
            nnz as i64,
            dp,
            dc,
            dv,
            SPBLK_INDEX_32I,
            SPBLK_INDEX_32I,
            0,
            SPBLK_R_32F,
        ),
        "csr",
    );
    for n in [32usize, 128] {
        let b: Vec<f32> = (0..m * n).map(|_| r.gen_range(-1.0f32..1.0)).collect();
        let (db, dcm) = (dev.put(&b), dev.zeros(m * n * 4));
        let (mut mb, mut mc) = (std::ptr::null_mut(), std::ptr::null_mut());
        ok(spblkCreateDnMat(&mut mb, m as i64, n as i64, n as i64, db, SPBLK_R_32F, SPBLK_ORDER_ROW), "B");
        ok(spblkCreateDnMat(&mut mc, m as i64, n as i64, n as i64, dcm, SPBLK_R_32F, SPBLK_ORDER_ROW), "C");
        let mut size = 0;
        ok(spblkSpMM_bufferSize(h, 0, 0, alpha, a, mb, beta, mc, SPBLK_R_32F, 0, &mut size), "size");
        let buf = dev.zeros(size);
        let ms = time_ms(10, || ok(spblkSpMM(h, 0, 0, alpha, a, mb, beta, mc, SPBLK_R_32F, 0, buf), "spmm"));
        let c: Vec<f32> = dev.get(dcm, m * n);
        for _ in 0..500 {
            let (i, j) = (r.gen_range(0..m), r.gen_range(0..n));
            let (mut s, mut abs) = (0f64, 0f64);
            for p in ptr[i] as usize..ptr[i + 1] as usize {
                let t = val[p] as f64 * b[col[p] as usize * n + j] as f64;
                s += t;
                abs += t.abs();
            }
            assert!((c[i * n + j] as f64 - s).abs() <= 1e-6 * 50.0 * abs + 1e-30, "spmm n={n}: ({i},{j})");
        }
        let gflops = 2.0 * nnz as f64 * n as f64 / ms / 1e6;
        say(format!("PERF spmm n={n:<4}      {ms:8.3} ms  {gflops:7.0} GFLOP/s  nnz {nnz}"));
        spblkDestroyDnMat(mb);
        spblkDestroyDnMat(mc);
    }

    // SDDMM with k = 64 on the same pattern: C = A(m x 64) B(64 x m) at A's entries.
    let k = 64usize;
    let da_: Vec<f32> = (0..m * k).map(|_| r.gen_range(-1.0f32..1.0)).collect();
    let (d_a, d_b) = (dev.put(&da_), dev.put(&da_));
    let (mut ma, mut mb) = (std::ptr::null_mut(), std::ptr::null_mut());
    ok(spblkCreateDnMat(&mut ma, m as i64, k as i64, k as i64, d_a, SPBLK_R_32F, SPBLK_ORDER_ROW), "A");
    ok(spblkCreateDnMat(&mut mb, k as i64, m as i64, k as i64, d_b, SPBLK_R_32F, SPBLK_ORDER_COL), "B");
    let ms =
        time_ms(10, || ok(spblkSDDMM(h, 0, 0, alpha, ma, mb, beta, a, SPBLK_R_32F, 0, std::ptr::null_mut()), "sddmm"));
    let out: Vec<f32> = dev.get(dv, nnz);
    for _ in 0..500 {
        let p = r.gen_range(0..nnz);
        let i = ptr.partition_point(|&q| q as usize <= p) - 1;
        let j = col[p] as usize;
        let s: f64 = (0..k).map(|l| da_[i * k + l] as f64 * da_[j * k + l] as f64).sum();
        assert!((out[p] as f64 - s).abs() <= 1e-5 * k as f64, "sddmm entry {p}");
    }
    say(format!("PERF sddmm k={k}       {ms:8.3} ms  {:7.0} GFLOP/s  nnz {nnz}", 2.0 * (nnz * k) as f64 / ms / 1e6));
    spblkDestroyDnMat(ma);
    spblkDestroyDnMat(mb);
    spblkDestroySpMat(a);

    // SpGEMM A*A, 2^17 x 2^17 with 8 entries per row: the whole protocol, host clock.
    let m = 1usize << 17;
    let (ptr, col, val) = csr(&mut r, m, m, |r| r.gen_range(4..12));
    let nnz = col.len();
    let (dp, dc, dv) = (dev.put(&ptr), dev.put(&col), dev.put(&val));
    let mut a = std::ptr::null_mut();
    ok(
        spblkCreateCsr(
            &mut a,
            m as i64,
            m as i64,
            nnz as i64,
            dp,
            dc,
            dv,
            SPBLK_INDEX_32I,
            SPBLK_INDEX_32I,
            0,
            SPBLK_R_32F,
        ),
        "csr",
    );
    let mut times = Vec::new();
    let mut c_nnz = 0i64;
    for _ in 0..5 {
        let coff = dev.zeros((m + 1) * 4);
        let mut c = std::ptr::null_mut();
        ok(
            spblkCreateCsr(
                &mut c,
                m as i64,
                m as i64,
                0,
                coff,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                SPBLK_INDEX_32I,
                SPBLK_INDEX_32I,
                0,
                SPBLK_R_32F,
            ),
            "C",
        );
        let mut d = std::ptr::null_mut();
        ok(spblkSpGEMM_createDescr(&mut d), "descr");
        let t0 = std::time::Instant::now();
        let (mut s1, mut s2) = (0usize, 0usize);
        ok(
            spblkSpGEMM_workEstimation(h, 0, 0, alpha, a, a, beta, c, SPBLK_R_32F, 0, d, &mut s1, std::ptr::null_mut()),
            "we",
        );
        let b1 = dev.zeros(s1);
        ok(spblkSpGEMM_workEstimation(h, 0, 0, alpha, a, a, beta, c, SPBLK_R_32F, 0, d, &mut s1, b1), "we");
        ok(
            spblkSpGEMM_compute(h, 0, 0, alpha, a, a, beta, c, SPBLK_R_32F, 0, d, &mut s2, std::ptr::null_mut()),
            "compute",
        );
        let b2 = dev.zeros(s2);
        ok(spblkSpGEMM_compute(h, 0, 0, alpha, a, a, beta, c, SPBLK_R_32F, 0, d, &mut s2, b2), "compute");
        let (mut rr, mut cc) = (0, 0);
        ok(spblkSpMatGetSize(c, &mut rr, &mut cc, &mut c_nnz), "size");
        let (ccol, cval) = (dev.zeros(c_nnz as usize * 4), dev.zeros(c_nnz as usize * 4));
        ok(spblkCsrSetPointers(c, coff, ccol, cval), "set");
        ok(spblkSpGEMM_copy(h, 0, 0, alpha, a, a, beta, c, SPBLK_R_32F, 0, d), "copy");
        // SAFETY: waits for the copy.
        unsafe { cu(sys::cuCtxSynchronize(), "sync") };
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        if times.len() == 1 {
            let off: Vec<i32> = dev.get(coff, m + 1);
            let cols: Vec<i32> = dev.get(ccol, c_nnz as usize);
            for _ in 0..200 {
                let i = r.gen_range(0..m);
                let mut want: Vec<i32> = Vec::new();
                for p in ptr[i] as usize..ptr[i + 1] as usize {
                    let kk = col[p] as usize;
                    want.extend_from_slice(&col[ptr[kk] as usize..ptr[kk + 1] as usize]);
                }
                want.sort_unstable();
                want.dedup();
                assert_eq!(&cols[off[i] as usize..off[i + 1] as usize], &want[..], "spgemm row {i}");
            }
        }
        ok(spblkSpGEMM_destroyDescr(d), "destroy");
        spblkDestroySpMat(c);
    }
    times.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let products: usize = (0..m)
        .map(|i| {
            (ptr[i] as usize..ptr[i + 1] as usize)
                .map(|p| (ptr[col[p] as usize + 1] - ptr[col[p] as usize]) as usize)
                .sum::<usize>()
        })
        .sum();
    say(format!(
        "PERF spgemm A*A      {:8.3} ms  {:7.2} Gproducts/s  nnz(A) {nnz}, products {products}, nnz(C) {c_nnz} (whole protocol incl. allocation)",
        times[2],
        products as f64 / times[2] / 1e6
    ));
    spblkDestroySpMat(a);
    ok(spblkDestroy(h), "destroy");
}

/// The 1-SA paper's A(Δ = 64, θ, ρ): nonzero 64 x 64 blocks with probability θ, entries in
/// them with probability ρ, rows scrambled. CSR with i32 indices, values in [-1, 1).
fn block_matrix(r: &mut StdRng, n: usize, theta: f64, rho: f64) -> (Vec<i32>, Vec<i32>, Vec<f32>) {
    let nb = n / 64;
    let block_cols: Vec<Vec<usize>> = (0..nb).map(|_| (0..nb).filter(|_| r.gen_bool(theta)).collect()).collect();
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, r.gen_range(0..=i));
    }
    let (mut ptr, mut col, mut val) = (vec![0i32], Vec::new(), Vec::new());
    for &orig in &order {
        for &bc in &block_cols[orig / 64] {
            for c in bc * 64..bc * 64 + 64 {
                if r.gen_bool(rho) {
                    col.push(c as i32);
                    val.push(r.gen_range(-1.0f32..1.0));
                }
            }
        }
        ptr.push(col.len() as i32);
    }
    (ptr, col, val)
}

/// VBR SpMM (tensor cores) against the CSR kernel on A(64, 0.1, 0.2): sampled entries
/// checked against f64, times and TFLOP/s of the stored blocks printed.
#[test]
fn vbr_is_correct_and_timed() {
    let mut h: spblkHandle_t = std::ptr::null_mut();
    if spblkCreateWithBackend(&mut h, SPBLK_BACKEND_CUDA) != SPBLK_STATUS_SUCCESS {
        say("SKIPPED: vbr_is_correct_and_timed: no usable CUDA backend".into());
        return;
    }
    make_current();
    let mut dev = Dev(Vec::new());
    let mut r = StdRng::seed_from_u64(12);
    let (one, zero) = (1.0f32, 0.0f32);
    let (alpha, beta) = (&one as *const f32 as *const c_void, &zero as *const f32 as *const c_void);
    for (n, width, vt, alg) in [
        (32768usize, 128usize, SPBLK_R_16F, SPBLK_SPMM_ALG_VBR),
        (32768, 128, SPBLK_R_32F, SPBLK_SPMM_ALG_VBR),
        (32768, 128, SPBLK_R_32F, SPBLK_SPMM_ALG_VBR_TF32),
        (8192, 128, SPBLK_R_16F, SPBLK_SPMM_ALG_VBR),
        (8192, 4096, SPBLK_R_16F, SPBLK_SPMM_ALG_VBR),
        (32768, 4096, SPBLK_R_16F, SPBLK_SPMM_ALG_VBR),
    ] {
        let (ptr, col, val) = block_matrix(&mut r, n, 0.1, 0.2);
        let nnz = col.len();
        let half = vt == SPBLK_R_16F;
        let round = |x: f32| if half { half::f16::from_f32(x).to_f32() } else { x };
        let b: Vec<f32> = (0..n * width).map(|_| round(r.gen_range(-1.0f32..1.0))).collect();
        let val: Vec<f32> = val.into_iter().map(round).collect();
        let (dv, db) = if half {
            let h16 = |v: &[f32]| v.iter().map(|&x| half::f16::from_f32(x)).collect::<Vec<_>>();
            (dev.put(&h16(&val)), dev.put(&h16(&b)))
        } else {
            (dev.put(&val), dev.put(&b))
        };
        let (dp, dc, dcm) = (dev.put(&ptr), dev.put(&col), dev.zeros(n * width * 4));
        let mut a = std::ptr::null_mut();
        ok(
            spblkCreateCsr(&mut a, n as i64, n as i64, nnz as i64, dp, dc, dv, SPBLK_INDEX_32I, SPBLK_INDEX_32I, 0, vt),
            "A",
        );
        let t0 = std::time::Instant::now();
        ok(spblk::capi::analyze::spblkAnalyze(h, a, SPBLK_ANALYSIS_1SA, std::ptr::null()), "analyze");
        let analysis_s = t0.elapsed().as_secs_f64();
        let mut info: spblk::capi::analyze::spblkAnalysisInfo = unsafe { std::mem::zeroed() };
        info.structSize = std::mem::size_of::<spblk::capi::analyze::spblkAnalysisInfo>();
        ok(spblk::capi::analyze::spblkAnalysisGetInfo(a, &mut info), "info");
        let (mut mb, mut mc) = (std::ptr::null_mut(), std::ptr::null_mut());
        ok(spblkCreateDnMat(&mut mb, n as i64, width as i64, width as i64, db, vt, SPBLK_ORDER_ROW), "B");
        ok(spblkCreateDnMat(&mut mc, n as i64, width as i64, width as i64, dcm, SPBLK_R_32F, SPBLK_ORDER_ROW), "C");
        let mut times = Vec::new();
        for alg in [alg, SPBLK_SPMM_CSR_ALG1] {
            let mut size = 0;
            ok(spblkSpMM_bufferSize(h, 0, 0, alpha, a, mb, beta, mc, SPBLK_R_32F, alg, &mut size), "size");
            let buf = dev.zeros(size);
            ok(spblkSpMM_preprocess(h, 0, 0, alpha, a, mb, beta, mc, SPBLK_R_32F, alg, buf), "pre");
            times.push(time_ms(10, || ok(spblkSpMM(h, 0, 0, alpha, a, mb, beta, mc, SPBLK_R_32F, alg, buf), "spmm")));
            let c: Vec<f32> = dev.get(dcm, n * width);
            let mut worst = 0f64;
            for _ in 0..300 {
                let (i, j) = (r.gen_range(0..n), r.gen_range(0..width));
                let (mut s, mut abs) = (0f64, 0f64);
                for p in ptr[i] as usize..ptr[i + 1] as usize {
                    let t = val[p] as f64 * b[col[p] as usize * width + j] as f64;
                    s += t;
                    abs += t.abs();
                }
                worst = worst.max((c[i * width + j] as f64 - s).abs() / abs.max(1e-30));
            }
            let bound = if alg == SPBLK_SPMM_ALG_VBR_TF32 { 1e-3 } else { 1e-5 };
            assert!(worst <= bound, "n {n} N {width} type {vt} alg {alg}: error {worst:e} of sum|a||b|");
            say(format!("PERF vbr-case n={n} N={width} type {vt} alg {alg}: error/sum|a||b| {worst:.1e}"));
        }
        let stored = info.nonzeroBlocks as f64 * info.avgBlockHeight * 64.0;
        say(format!(
            "PERF vbr n={n} N={width} type {vt} alg {alg}: VBR {:.3} ms ({:.0} TFLOP/s on stored blocks), CSR {:.3} ms, \
             CSR/VBR {:.1}x; nnz {nnz}, rho' {:.3}, dH' {:.1}, analysis {analysis_s:.2} s",
            times[0],
            2.0 * stored * width as f64 / times[0] / 1e9,
            times[1],
            times[1] / times[0],
            info.inBlockDensity,
            info.avgBlockHeight
        ));
        spblkDestroyDnMat(mb);
        spblkDestroyDnMat(mc);
        spblkDestroySpMat(a);
    }
    ok(spblkDestroy(h), "destroy");
}
