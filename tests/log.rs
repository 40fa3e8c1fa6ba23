//! `SPBLK_LOG=1` with `SPBLK_LOG_FILE`: one line per call naming the function, the backend,
//! the method and why, the kernels (host steps) and, for a failure, its message. Its own test
//! binary: the environment is read once per process, before the first call.

use std::ffi::c_void;

use spblk::capi::dense::*;
use spblk::capi::handle::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::types::*;

#[test]
fn spblk_log_writes_one_line_per_call() {
    let path = std::env::temp_dir().join(format!("spblk-log-{}.txt", std::process::id()));
    let _ = std::fs::remove_file(&path);
    std::env::set_var("SPBLK_LOG", "2");
    std::env::set_var("SPBLK_LOG_FILE", &path);

    // A = [[1 0 2], [0 3 0]] in COO, x = [1 1 1].
    let (mut rows, mut cols, mut vals) = ([0i32, 0, 1], [0i32, 2, 1], [1f32, 2.0, 3.0]);
    let (mut x, mut y) = ([1f32; 3], [0f32; 2]);
    let (alpha, beta) = (1f32, 0f32);
    let mut h: spblkHandle_t = std::ptr::null_mut();
    assert_eq!(spblkCreateWithBackend(&mut h, SPBLK_BACKEND_HOST), SPBLK_STATUS_SUCCESS);
    let (mut a, mut dx, mut dy) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
    let p = |v: &mut [i32]| v.as_mut_ptr() as *mut c_void;
    let st = spblkCreateCoo(
        &mut a,
        2,
        3,
        3,
        p(&mut rows),
        p(&mut cols),
        vals.as_mut_ptr() as *mut c_void,
        SPBLK_INDEX_32I,
        SPBLK_INDEX_BASE_ZERO,
        SPBLK_R_32F,
    );
    assert_eq!(st, SPBLK_STATUS_SUCCESS);
    assert_eq!(spblkCreateDnVec(&mut dx, 3, x.as_mut_ptr() as *mut c_void, SPBLK_R_32F), SPBLK_STATUS_SUCCESS);
    assert_eq!(spblkCreateDnVec(&mut dy, 2, y.as_mut_ptr() as *mut c_void, SPBLK_R_32F), SPBLK_STATUS_SUCCESS);
    let (al, be) = (&alpha as *const f32 as *const c_void, &beta as *const f32 as *const c_void);
    let n = SPBLK_OPERATION_NON_TRANSPOSE;
    let null = std::ptr::null_mut();
    assert_eq!(spblkSpMV(h, n, al, a, dx, be, dy, SPBLK_R_32F, SPBLK_SPMV_COO_ALG2, null), SPBLK_STATUS_SUCCESS);
    assert_eq!(y, [3.0, 3.0]);
    let st = spblkSpMV(h, n, al, a, dx, be, dy, SPBLK_R_32F, SPBLK_SPMV_CSR_ALG1, null);
    assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED);
    spblkDestroySpMat(a);
    spblkDestroyDnVec(dx);
    spblkDestroyDnVec(dy);
    spblkDestroy(h);

    let log = std::fs::read_to_string(&path).expect("SPBLK_LOG_FILE was not written");
    let _ = std::fs::remove_file(&path);
    let spmv: Vec<&str> = log.lines().filter(|l| l.starts_with("spblk: spblkSpMV ")).collect();
    assert_eq!(spmv.len(), 2, "{log}");
    let ok = spmv[0];
    for part in [
        "backend=Host",
        "method=CsrRows (asked for CooAlg2: 3 entries < 524288",
        "kernels=host:convert,host:spmm_rows",
        "A=Coo 2x3 nnz=3",
        "-> SPBLK_STATUS_SUCCESS",
        "host=",
    ] {
        assert!(ok.contains(part), "'{part}' missing from: {ok}");
    }
    assert!(spmv[1].contains("-> SPBLK_STATUS_NOT_SUPPORTED: spblkSpMV: argument 'alg': CsrAlg1"), "{}", spmv[1]);
    assert!(log.lines().any(|l| l.starts_with("spblk: spblkCreateCoo ")), "{log}");
}
