//! Every exported function with each pointer argument NULL in turn and each enum argument
//! out of range: the status must be the documented one, the message must name the argument,
//! out-parameters must stay untouched, and nothing may crash. Destroyed handles and
//! descriptors must be reported as NOT_INITIALIZED.

mod common;

use common::*;
use spblk::capi::convert::*;
use spblk::capi::dense::*;
use spblk::capi::handle::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::sp_mat_get::*;
use spblk::capi::spgemm::*;
use spblk::capi::types::*;
use std::ffi::c_void;
use std::ptr::null_mut;

const NI: u32 = SPBLK_STATUS_NOT_INITIALIZED;
const IV: u32 = SPBLK_STATUS_INVALID_VALUE;
const OK: u32 = SPBLK_STATUS_SUCCESS;
/// An out-of-range value for every enum.
const BAD: u32 = 99;

/// `v`, or NULL when bit `i` of `mask` is set.
fn n<T>(mask: u64, i: u32, v: *mut T) -> *mut T {
    if mask & (1 << i) != 0 {
        null_mut()
    } else {
        v
    }
}
/// [`n`] for const pointers.
fn nc<T>(mask: u64, i: u32, v: *const T) -> *const T {
    n(mask, i, v as *mut T)
}
/// `v`, or [`BAD`] when `bad == i`.
fn e(bad: Option<u32>, i: u32, v: u32) -> u32 {
    if bad == Some(i) {
        BAD
    } else {
        v
    }
}

/// Calls `f(mask, bad_enum)` with
/// each pointer in `ptrs` (index → expected status, argument name) NULL in turn, and with
/// each of `enums` (index, argument name) out of range. The valid call runs last, so its
/// out-parameters hold its results afterwards.
fn check(name: &str, ptrs: &[(u32, u32, &str)], enums: &[(u32, &str)], mut f: impl FnMut(u64, Option<u32>) -> u32) {
    for &(i, want, arg) in ptrs {
        let st = f(1 << i, None);
        assert_eq!(st, want, "{name}: argument {i} ({arg}) NULL gave {st}, want {want}: {}", last_error());
        let msg = last_error();
        assert!(msg.starts_with(name) && msg.contains(arg), "{name}: message '{msg}' must name '{arg}'");
    }
    for &(i, arg) in enums {
        let st = f(0, Some(i));
        assert!(
            st == IV || st == SPBLK_STATUS_NOT_SUPPORTED,
            "{name}: argument {i} ({arg}) = {BAD} gave {st}: {}",
            last_error()
        );
        assert!(last_error().contains(arg), "{name}: message '{}' must name '{arg}'", last_error());
    }
    let st = f(0, None);
    assert_eq!(st, OK, "{name}: valid call failed: {}", last_error());
}

struct Fixture {
    h: spblkHandle_t,
    a: SparseArrays,
    coo: SparseArrays,
    sa: spblkSpMatDescr_t,
    x: Buf,
    y: Buf,
    vx: spblkDnVecDescr_t,
    vy: spblkDnVecDescr_t,
    b: Dense,
    c: Dense,
    db: spblkDnMatDescr_t,
    dc: spblkDnMatDescr_t,
}

fn fixture() -> Fixture {
    let mut r = rng(11);
    let h = host_handle();
    let m = random_matrix(&mut r, 6, 6, Kind::Uniform);
    let mut a = SparseArrays::new(&m, SPBLK_FORMAT_CSR, SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    let coo = SparseArrays::new(&m, SPBLK_FORMAT_COO, SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    let sa = a.descr();
    let (mut x, mut y) = (values_buf(SPBLK_R_32F, &[1.0; 6]), values_buf(SPBLK_R_32F, &[1.0; 6]));
    let (mut vx, mut vy) = (null_mut(), null_mut());
    assert_eq!(spblkCreateDnVec(&mut vx, 6, x.ptr(), SPBLK_R_32F), OK);
    assert_eq!(spblkCreateDnVec(&mut vy, 6, y.ptr(), SPBLK_R_32F), OK);
    let mut b = Dense::new(&mut r, 6, 3, SPBLK_ORDER_ROW, SPBLK_R_32F, 0, None);
    let mut c = Dense::new(&mut r, 6, 3, SPBLK_ORDER_ROW, SPBLK_R_32F, 0, None);
    let (db, dc) = (b.descr(), c.descr());
    Fixture { h, a, coo, sa, x, y, vx, vy, b, c, db, dc }
}

static ONE: f32 = 1.0;
fn one() -> *mut c_void {
    &ONE as *const f32 as *mut c_void
}

#[test]
fn handle_functions() {
    let mut fx = fixture();
    let h = fx.h;
    // spblkCreate's backend depends on the machine (tests/backend_choice.rs covers it); here
    // only its NULL out-parameter is checked.
    assert_eq!(spblkCreate(null_mut()), IV);
    assert!(last_error().contains("handle"));
    // spblkCreate picks CUDA unless SPBLK_BACKEND=host; either way a NULL out-param is the error.
    let mut made: spblkHandle_t = null_mut();
    check("spblkCreateWithBackend", &[(0, IV, "handle")], &[(1, "backend")], |m, bad| {
        spblkCreateWithBackend(n(m, 0, &mut made), e(bad, 1, SPBLK_BACKEND_HOST))
    });
    assert_eq!(spblkDestroy(made), OK);
    let mut backend = 77u32;
    check("spblkGetBackend", &[(0, NI, "handle"), (1, IV, "backend")], &[], |m, _| {
        spblkGetBackend(n(m, 0, h), n(m, 1, &mut backend))
    });
    assert_eq!(backend, SPBLK_BACKEND_HOST);
    check("spblkSetStream", &[(0, NI, "handle")], &[], |m, _| spblkSetStream(n(m, 0, h), null_mut()));
    let mut s: spblkStream_t = 0x99 as spblkStream_t;
    check("spblkGetStream", &[(0, NI, "handle"), (1, IV, "streamId")], &[], |m, _| {
        spblkGetStream(n(m, 0, h), n(m, 1, &mut s))
    });
    let mut v = -5;
    check("spblkGetVersion", &[(0, NI, "handle"), (1, IV, "version")], &[], |m, _| {
        spblkGetVersion(n(m, 0, h), n(m, 1, &mut v))
    });
    assert_eq!(v, 100);
    check("spblkGetProperty", &[(1, IV, "value")], &[(0, "type")], |m, bad| {
        spblkGetProperty(e(bad, 0, SPBLK_MINOR_VERSION), n(m, 1, &mut v))
    });
    assert_eq!(v, 1);
    check("spblkSetPointerMode", &[(0, NI, "handle")], &[(1, "mode")], |m, bad| {
        spblkSetPointerMode(n(m, 0, h), e(bad, 1, SPBLK_POINTER_MODE_HOST))
    });
    let mut mode = 7u32;
    check("spblkGetPointerMode", &[(0, NI, "handle"), (1, IV, "mode")], &[], |m, _| {
        spblkGetPointerMode(n(m, 0, h), n(m, 1, &mut mode))
    });
    assert_eq!(mode, SPBLK_POINTER_MODE_HOST);
    // Unknown statuses still give static, non-NULL strings.
    for st in [0u32, 3, 11, 12, 99, u32::MAX] {
        assert!(!spblkGetErrorName(st).is_null() && !spblkGetErrorString(st).is_null());
    }
    // GetLastErrorMessage: NULL `written` is rejected and does not replace the message.
    let before = last_error();
    assert_eq!(spblkGetLastErrorMessage(null_mut(), 0, null_mut()), IV);
    assert_eq!(last_error(), before);
    let mut len = 0usize;
    assert_eq!(spblkGetLastErrorMessage(null_mut(), 0, &mut len), OK);
    assert_eq!(len, before.len());
    let mut tiny = [0x55u8; 4];
    assert_eq!(spblkGetLastErrorMessage(tiny.as_mut_ptr() as *mut _, 4, &mut len), OK);
    assert_eq!((len, tiny[3]), (3, 0), "truncated and NUL-terminated");
    drop_fixture(&mut fx);
}

/// The compatibility library's stubs fail through `spblkCompatNotSupported`: NOT_SUPPORTED with
/// a message naming the cuSPARSE function; anything but a cuSPARSE name is rejected.
#[test]
fn compat_not_supported_names_the_function() {
    use spblk::capi::compat::spblkCompatNotSupported;
    assert_eq!(spblkCompatNotSupported(c"cusparseXcsrcolor".as_ptr()), SPBLK_STATUS_NOT_SUPPORTED);
    assert_eq!(last_error(), "cusparseXcsrcolor: not implemented by spblk (it returns CUSPARSE_STATUS_NOT_SUPPORTED)");
    assert_eq!(spblkCompatNotSupported(std::ptr::null()), IV);
    assert!(last_error().starts_with("spblkCompatNotSupported:") && last_error().contains("'function'"));
    for bad in [c"spblkSpMV", c"cusparse X", c""] {
        assert_eq!(spblkCompatNotSupported(bad.as_ptr()), IV, "{bad:?}");
    }
}

#[test]
fn destroyed_objects_are_not_initialized() {
    let h = host_handle();
    assert_eq!(spblkDestroy(h), OK);
    let mut v = 0;
    assert_eq!(spblkGetVersion(h, &mut v), NI);
    assert_eq!(spblkDestroy(h), NI, "double destroy must be detected");
    assert_eq!(spblkDestroy(null_mut()), NI);
    let mut x = values_buf(SPBLK_R_32F, &[1.0; 3]);
    let mut d = null_mut();
    assert_eq!(spblkCreateDnVec(&mut d, 3, x.ptr(), SPBLK_R_32F), OK);
    assert_eq!(spblkDestroyDnVec(d), OK);
    let mut size = 0;
    assert_eq!(spblkDnVecGet(d, &mut size, &mut null_mut(), &mut 0), NI);
    assert!(last_error().contains("dnVecDescr"));
    assert_eq!(spblkDestroyDnVec(d), NI);
    // NULL descriptors are no-ops for destroy functions, as in cuSPARSE.
    assert_eq!(spblkDestroySpMat(null_mut()), OK);
    assert_eq!(spblkDestroyDnMat(null_mut()), OK);
    assert_eq!(spblkDestroyDnVec(null_mut()), OK);
    assert_eq!(spblkSpGEMM_destroyDescr(null_mut()), OK);
    // A descriptor of the wrong kind is rejected, not reinterpreted.
    let mut dv = null_mut();
    assert_eq!(spblkCreateDnVec(&mut dv, 3, x.ptr(), SPBLK_R_32F), OK);
    let mut rows = 0;
    assert_eq!(spblkSpMatGetSize(dv as spblkConstSpMatDescr_t, &mut rows, &mut rows.clone(), &mut 0), NI);
    assert_eq!(spblkDestroyDnVec(dv), OK);
}

#[test]
fn sparse_descriptor_functions() {
    let mut fx = fixture();
    let (r, c, z) = (6i64, 6i64, fx.a.nnz as i64);
    let (off, col, val) = (fx.a.major.ptr(), fx.a.minor.ptr(), fx.a.values.ptr());
    let mut d: spblkSpMatDescr_t = 0x10 as spblkSpMatDescr_t;
    let mut made = Vec::new();
    for (name, csc) in [("spblkCreateCsr", false), ("spblkCreateCsc", true)] {
        check(
            name,
            // NULL offsets are accepted (clients set them later); NULL indices/values with nnz > 0 are not.
            &[
                (0, IV, "spMatDescr"),
                (2, IV, if csc { "cscRowInd" } else { "csrColInd" }),
                (3, IV, if csc { "cscValues" } else { "csrValues" }),
            ],
            &[(4, "OffsetsType"), (5, "Type"), (6, "idxBase"), (7, "valueType")],
            |m, bad| {
                let f = if csc { spblkCreateCsc } else { spblkCreateCsr };
                f(
                    n(m, 0, &mut d),
                    r,
                    c,
                    z,
                    n(m, 1, off),
                    n(m, 2, col),
                    n(m, 3, val),
                    e(bad, 4, 2),
                    e(bad, 5, 2),
                    e(bad, 6, 0),
                    e(bad, 7, 0),
                )
            },
        );
        made.push(d);
    }
    let mut cd: spblkConstSpMatDescr_t = null_mut();
    check(
        "spblkCreateConstCsr",
        &[(0, IV, "spMatDescr"), (2, IV, "csrColInd"), (3, IV, "csrValues")],
        &[(4, "csrRowOffsetsType"), (5, "csrColIndType"), (6, "idxBase"), (7, "valueType")],
        |m, bad| {
            spblkCreateConstCsr(
                n(m, 0, &mut cd),
                r,
                c,
                z,
                n(m, 1, off),
                n(m, 2, col),
                n(m, 3, val),
                e(bad, 4, 2),
                e(bad, 5, 2),
                e(bad, 6, 0),
                e(bad, 7, 0),
            )
        },
    );
    made.push(cd as spblkSpMatDescr_t);
    let (ri, ci, cv) = (fx.coo.major.ptr(), fx.coo.minor.ptr(), fx.coo.values.ptr());
    check(
        "spblkCreateCoo",
        &[(0, IV, "spMatDescr"), (1, IV, "cooRowInd"), (2, IV, "cooColInd"), (3, IV, "cooValues")],
        &[(4, "cooIdxType"), (5, "idxBase"), (6, "valueType")],
        |m, bad| {
            spblkCreateCoo(
                n(m, 0, &mut d),
                r,
                c,
                z,
                n(m, 1, ri),
                n(m, 2, ci),
                n(m, 3, cv),
                e(bad, 4, 2),
                e(bad, 5, 0),
                e(bad, 6, 0),
            )
        },
    );
    made.push(d);
    // Sizes: negative, nnz > rows*cols, index type too narrow.
    for (rr, cc, zz) in [(-1, 6, 0), (6, -1, 0), (6, 6, -1), (2, 2, 5)] {
        let mut keep: spblkSpMatDescr_t = 0x77 as _;
        assert_eq!(spblkCreateCsr(&mut keep, rr, cc, zz, off, col, val, 2, 2, 0, 0), IV, "{rr} {cc} {zz}");
        assert_eq!(keep, 0x77 as _, "out-param written on failure");
    }
    let coo = made.pop().unwrap();
    let sa = fx.sa;
    let (mut rr, mut cc, mut zz) = (0i64, 0i64, 0i64);
    check(
        "spblkSpMatGetSize",
        &[(0, IV, "spMatDescr"), (1, IV, "rows"), (2, IV, "cols"), (3, IV, "nnz")],
        &[],
        |m, _| spblkSpMatGetSize(n(m, 0, sa), n(m, 1, &mut rr), n(m, 2, &mut cc), n(m, 3, &mut zz)),
    );
    assert_eq!((rr, cc, zz), (r, c, z));
    let mut fmt = 0u32;
    check("spblkSpMatGetFormat", &[(0, IV, "spMatDescr"), (1, IV, "format")], &[], |m, _| {
        spblkSpMatGetFormat(n(m, 0, sa), n(m, 1, &mut fmt))
    });
    assert_eq!(fmt, SPBLK_FORMAT_CSR);
    let mut base = 9u32;
    check("spblkSpMatGetIndexBase", &[(0, IV, "spMatDescr"), (1, IV, "idxBase")], &[], |m, _| {
        spblkSpMatGetIndexBase(n(m, 0, sa), n(m, 1, &mut base))
    });
    let mut vp: *mut c_void = null_mut();
    check("spblkSpMatGetValues", &[(0, IV, "spMatDescr"), (1, IV, "values")], &[], |m, _| {
        spblkSpMatGetValues(n(m, 0, sa), n(m, 1, &mut vp))
    });
    assert_eq!(vp, val);
    check("spblkSpMatSetValues", &[(0, IV, "spMatDescr"), (1, IV, "values")], &[], |m, _| {
        spblkSpMatSetValues(n(m, 0, sa), n(m, 1, val))
    });
    let mut fill = 9u32;
    check("spblkSpMatGetAttribute", &[(0, IV, "spMatDescr"), (2, IV, "data")], &[(1, "attribute")], |m, b| {
        spblkSpMatGetAttribute(
            n(m, 0, sa),
            e(b, 1, SPBLK_SPMAT_FILL_MODE),
            n(m, 2, &mut fill as *mut u32 as *mut c_void),
            4,
        )
    });
    assert_eq!(fill, SPBLK_FILL_MODE_LOWER, "the default fill mode");
    let mut upper = SPBLK_FILL_MODE_UPPER;
    check("spblkSpMatSetAttribute", &[(0, IV, "spMatDescr"), (2, IV, "data")], &[(1, "attribute")], |m, b| {
        spblkSpMatSetAttribute(
            n(m, 0, sa),
            e(b, 1, SPBLK_SPMAT_FILL_MODE),
            n(m, 2, &mut upper as *mut u32 as *mut c_void),
            4,
        )
    });
    // Round trip; a bad value or size changes and writes nothing.
    let as_data = |v: &mut u32| v as *mut u32 as *mut c_void;
    let mut got = 9u32;
    assert_eq!(spblkSpMatGetAttribute(sa, SPBLK_SPMAT_FILL_MODE, as_data(&mut got), 4), OK);
    assert_eq!(got, SPBLK_FILL_MODE_UPPER, "the fill mode just set");
    let mut unit = SPBLK_DIAG_TYPE_UNIT;
    assert_eq!(spblkSpMatGetAttribute(sa, SPBLK_SPMAT_DIAG_TYPE, as_data(&mut got), 4), OK);
    assert_eq!(got, SPBLK_DIAG_TYPE_NON_UNIT, "the default diagonal type");
    assert_eq!(spblkSpMatSetAttribute(sa, SPBLK_SPMAT_DIAG_TYPE, as_data(&mut unit), 4), OK);
    assert_eq!(spblkSpMatGetAttribute(sa, SPBLK_SPMAT_DIAG_TYPE, as_data(&mut got), 4), OK);
    assert_eq!(got, SPBLK_DIAG_TYPE_UNIT);
    let mut bad = 7u32;
    assert_eq!(spblkSpMatSetAttribute(sa, SPBLK_SPMAT_FILL_MODE, as_data(&mut bad), 4), IV);
    assert!(last_error().contains("'data'"), "{}", last_error());
    assert_eq!(spblkSpMatSetAttribute(sa, SPBLK_SPMAT_FILL_MODE, as_data(&mut unit), 8), IV);
    assert!(last_error().contains("dataSize"), "{}", last_error());
    got = 9;
    assert_eq!(spblkSpMatGetAttribute(sa, SPBLK_SPMAT_FILL_MODE, as_data(&mut got), 2), IV);
    assert_eq!(got, 9, "nothing written on failure");
    assert_eq!(spblkSpMatGetAttribute(sa, SPBLK_SPMAT_FILL_MODE, as_data(&mut got), 4), OK);
    assert_eq!(got, SPBLK_FILL_MODE_UPPER, "failed calls change nothing");
    check(
        "spblkCsrSetPointers",
        &[(0, IV, "spMatDescr"), (1, IV, "csrRowOffsets"), (2, IV, "csrColInd"), (3, IV, "csrValues")],
        &[],
        |m, _| spblkCsrSetPointers(n(m, 0, sa), n(m, 1, off), n(m, 2, col), n(m, 3, val)),
    );
    let (mut p1, mut p2, mut p3) = (null_mut(), null_mut(), null_mut());
    let (mut t1, mut t2, mut t3, mut t4) = (0u32, 0u32, 0u32, 0u32);
    let names = [
        "spMatDescr",
        "rows",
        "cols",
        "nnz",
        "csrRowOffsets",
        "csrColInd",
        "csrValues",
        "csrRowOffsetsType",
        "csrColIndType",
        "idxBase",
        "valueType",
    ];
    let ptrs: Vec<(u32, u32, &str)> = names.iter().enumerate().map(|(i, s)| (i as u32, IV, *s)).collect();
    check("spblkCsrGet", &ptrs, &[], |m, _| {
        spblkCsrGet(
            n(m, 0, sa),
            n(m, 1, &mut rr),
            n(m, 2, &mut cc),
            n(m, 3, &mut zz),
            n(m, 4, &mut p1),
            n(m, 5, &mut p2),
            n(m, 6, &mut p3),
            n(m, 7, &mut t1),
            n(m, 8, &mut t2),
            n(m, 9, &mut t3),
            n(m, 10, &mut t4),
        )
    });
    assert_eq!((p1, p2, p3, t1, t4), (off, col, val, SPBLK_INDEX_32I, SPBLK_R_32F));
    let names =
        ["spMatDescr", "rows", "cols", "nnz", "cooRowInd", "cooColInd", "cooValues", "idxType", "idxBase", "valueType"];
    let ptrs: Vec<(u32, u32, &str)> = names.iter().enumerate().map(|(i, s)| (i as u32, IV, *s)).collect();
    check("spblkCooGet", &ptrs, &[], |m, _| {
        spblkCooGet(
            n(m, 0, coo),
            n(m, 1, &mut rr),
            n(m, 2, &mut cc),
            n(m, 3, &mut zz),
            n(m, 4, &mut p1),
            n(m, 5, &mut p2),
            n(m, 6, &mut p3),
            n(m, 7, &mut t1),
            n(m, 8, &mut t2),
            n(m, 9, &mut t3),
        )
    });
    assert_eq!((p1, p2), (ri, ci));
    // Format mismatch: CooGet on CSR and CsrGet on COO are rejected without writing.
    let mut untouched: *mut c_void = 0x5 as _;
    assert_eq!(
        spblkCooGet(sa, &mut rr, &mut cc, &mut zz, &mut untouched, &mut p2, &mut p3, &mut t1, &mut t2, &mut t3),
        IV
    );
    assert_eq!(untouched, 0x5 as _);
    made.push(coo);
    for d in made {
        assert_eq!(spblkDestroySpMat(d), OK);
    }
    drop_fixture(&mut fx);
}

#[test]
fn dense_descriptor_functions() {
    let mut fx = fixture();
    let vals = fx.b.buf.ptr();
    let mut d: spblkDnMatDescr_t = null_mut();
    let mut made = Vec::new();
    check(
        "spblkCreateDnMat",
        &[(0, IV, "dnMatDescr"), (1, IV, "values")],
        &[(2, "valueType"), (3, "order")],
        |m, bad| spblkCreateDnMat(n(m, 0, &mut d), 6, 3, 3, n(m, 1, vals), e(bad, 2, 0), e(bad, 3, SPBLK_ORDER_ROW)),
    );
    made.push(d);
    // ld too small for the order.
    assert_eq!(spblkCreateDnMat(&mut d, 6, 3, 2, vals, 0, SPBLK_ORDER_ROW), IV);
    assert!(last_error().contains("ld"));
    assert_eq!(spblkCreateDnMat(&mut d, 6, 3, 5, vals, 0, SPBLK_ORDER_COL), IV);
    let db = fx.db;
    let (mut r, mut c, mut ld, mut vp, mut t, mut o) = (0i64, 0i64, 0i64, null_mut(), 0u32, 0u32);
    let names = ["dnMatDescr", "rows", "cols", "ld", "values", "type", "order"];
    let ptrs: Vec<(u32, u32, &str)> = names.iter().enumerate().map(|(i, s)| (i as u32, IV, *s)).collect();
    check("spblkDnMatGet", &ptrs, &[], |m, _| {
        spblkDnMatGet(
            n(m, 0, db),
            n(m, 1, &mut r),
            n(m, 2, &mut c),
            n(m, 3, &mut ld),
            n(m, 4, &mut vp),
            n(m, 5, &mut t),
            n(m, 6, &mut o),
        )
    });
    assert_eq!((r, c, ld, vp, o), (6, 3, 3, vals, SPBLK_ORDER_ROW));
    check("spblkDnMatGetValues", &[(0, IV, "dnMatDescr"), (1, IV, "values")], &[], |m, _| {
        spblkDnMatGetValues(n(m, 0, db), n(m, 1, &mut vp))
    });
    check("spblkDnMatSetValues", &[(0, IV, "dnMatDescr"), (1, IV, "values")], &[], |m, _| {
        spblkDnMatSetValues(n(m, 0, db), n(m, 1, vals))
    });
    let xv = fx.x.ptr();
    let mut v: spblkDnVecDescr_t = null_mut();
    check("spblkCreateDnVec", &[(0, IV, "dnVecDescr"), (1, IV, "values")], &[(2, "valueType")], |m, bad| {
        spblkCreateDnVec(n(m, 0, &mut v), 6, n(m, 1, xv), e(bad, 2, 0))
    });
    assert_eq!(spblkDestroyDnVec(v), OK);
    assert_eq!(spblkCreateDnVec(&mut v, -1, xv, 0), IV);
    let vx = fx.vx;
    let (mut size, mut ty) = (0i64, 0u32);
    check(
        "spblkDnVecGet",
        &[(0, IV, "dnVecDescr"), (1, IV, "size"), (2, IV, "values"), (3, IV, "valueType")],
        &[],
        |m, _| spblkDnVecGet(n(m, 0, vx), n(m, 1, &mut size), n(m, 2, &mut vp), n(m, 3, &mut ty)),
    );
    assert_eq!((size, vp), (6, xv));
    check("spblkDnVecGetValues", &[(0, IV, "dnVecDescr"), (1, IV, "values")], &[], |m, _| {
        spblkDnVecGetValues(n(m, 0, vx), n(m, 1, &mut vp))
    });
    check("spblkDnVecSetValues", &[(0, IV, "dnVecDescr"), (1, IV, "values")], &[], |m, _| {
        spblkDnVecSetValues(n(m, 0, vx), n(m, 1, xv))
    });
    for d in made {
        assert_eq!(spblkDestroyDnMat(d), OK);
    }
    drop_fixture(&mut fx);
}

#[test]
fn spmv_spmm_sddmm_functions() {
    let mut fx = fixture();
    let (h, sa, vx, vy, db, dc) = (fx.h, fx.sa, fx.vx, fx.vy, fx.db, fx.dc);
    let mut size = 12345usize;
    // (handle, alpha, matA, vecX, beta, vecY, bufferSize) and enums (opA, computeType, alg).
    let ptrs =
        [(0, NI, "handle"), (1, IV, "alpha"), (2, IV, "matA"), (3, IV, "vecX"), (4, IV, "beta"), (5, IV, "vecY")];
    let enums = [(10, "opA"), (11, "computeType"), (12, "alg")];
    let mut with_size = ptrs.to_vec();
    with_size.push((6, IV, "bufferSize"));
    check("spblkSpMV_bufferSize", &with_size, &enums, |m, b| {
        spblkSpMV_bufferSize(
            n(m, 0, h),
            e(b, 10, 0),
            n(m, 1, one()),
            n(m, 2, sa),
            n(m, 3, vx),
            n(m, 4, one()),
            n(m, 5, vy),
            e(b, 11, 0),
            e(b, 12, 0),
            n(m, 6, &mut size),
        )
    });
    assert_ne!(size, 12345);
    for (name, f) in [
        ("spblkSpMV_preprocess", spblkSpMV_preprocess as unsafe extern "C" fn(_, _, _, _, _, _, _, _, _, _) -> _),
        ("spblkSpMV", spblkSpMV),
    ] {
        check(
            name,
            &ptrs,
            &enums,
            // SAFETY: the function pointers are the library's own exported functions.
            |m, b| unsafe {
                f(
                    n(m, 0, h),
                    e(b, 10, 0),
                    n(m, 1, one()),
                    n(m, 2, sa),
                    n(m, 3, vx),
                    n(m, 4, one()),
                    n(m, 5, vy),
                    e(b, 11, 0),
                    e(b, 12, 0),
                    null_mut(),
                )
            },
        );
    }
    // Dimension mismatch: x of the wrong length.
    let mut short = values_buf(SPBLK_R_32F, &[1.0; 5]);
    let mut vs = null_mut();
    assert_eq!(spblkCreateDnVec(&mut vs, 5, short.ptr(), 0), OK);
    assert_eq!(spblkSpMV(h, 0, one(), sa, vs, one(), vy, 0, 0, null_mut()), IV);
    assert!(last_error().contains("vecX"), "{}", last_error());
    // Conjugate transpose on real types and f64 compute with f32 data are NOT_SUPPORTED.
    assert_eq!(spblkSpMV(h, 2, one(), sa, vx, one(), vy, 0, 0, null_mut()), SPBLK_STATUS_NOT_SUPPORTED);
    assert_eq!(spblkSpMV(h, 0, one(), sa, vx, one(), vy, SPBLK_R_64F, 0, null_mut()), SPBLK_STATUS_NOT_SUPPORTED);
    assert_eq!(spblkDestroyDnVec(vs), OK);

    let ptrs =
        [(0, NI, "handle"), (1, IV, "alpha"), (2, IV, "matA"), (3, IV, "matB"), (4, IV, "beta"), (5, IV, "matC")];
    let enums = [(10, "opA"), (11, "opB"), (12, "computeType"), (13, "alg")];
    let mut with_size = ptrs.to_vec();
    with_size.push((6, IV, "bufferSize"));
    check("spblkSpMM_bufferSize", &with_size, &enums, |m, b| {
        spblkSpMM_bufferSize(
            n(m, 0, h),
            e(b, 10, 0),
            e(b, 11, 0),
            n(m, 1, one()),
            n(m, 2, sa),
            n(m, 3, db),
            n(m, 4, one()),
            n(m, 5, dc),
            e(b, 12, 0),
            e(b, 13, 0),
            n(m, 6, &mut size),
        )
    });
    for (name, f) in [
        ("spblkSpMM_preprocess", spblkSpMM_preprocess as unsafe extern "C" fn(_, _, _, _, _, _, _, _, _, _, _) -> _),
        ("spblkSpMM", spblkSpMM),
    ] {
        check(
            name,
            &ptrs,
            &enums,
            // SAFETY: the library's own exported functions.
            |m, b| unsafe {
                f(
                    n(m, 0, h),
                    e(b, 10, 0),
                    e(b, 11, 0),
                    n(m, 1, one()),
                    n(m, 2, sa),
                    n(m, 3, db),
                    n(m, 4, one()),
                    n(m, 5, dc),
                    e(b, 12, 0),
                    e(b, 13, 0),
                    null_mut(),
                )
            },
        );
    }
    // C of the wrong shape (B is 6x3 but C would need 6x3: pass B as C with opB = T → 6x6).
    assert_eq!(spblkSpMM(h, 0, 1, one(), sa, db, one(), dc, 0, 0, null_mut()), IV);
    assert!(last_error().contains("matB") || last_error().contains("matC"), "{}", last_error());
    // VBR without an analysis.
    assert_eq!(spblkSpMM(h, 0, 0, one(), sa, db, one(), dc, 0, SPBLK_SPMM_ALG_VBR, null_mut()), IV);

    // SDDMM: C (sparse, 6x6) = A (6x3) · Bᵀ where B is 6x3 → use opB = T.
    let ptrs =
        [(0, NI, "handle"), (1, IV, "alpha"), (2, IV, "matA"), (3, IV, "matB"), (4, IV, "beta"), (5, IV, "matC")];
    let mut with_size = ptrs.to_vec();
    with_size.push((6, IV, "bufferSize"));
    check("spblkSDDMM_bufferSize", &with_size, &enums, |m, b| {
        spblkSDDMM_bufferSize(
            n(m, 0, h),
            e(b, 10, 0),
            e(b, 11, 1),
            n(m, 1, one()),
            n(m, 2, db),
            n(m, 3, dc),
            n(m, 4, one()),
            n(m, 5, sa),
            e(b, 12, 0),
            e(b, 13, 0),
            n(m, 6, &mut size),
        )
    });
    for (name, f) in [
        ("spblkSDDMM_preprocess", spblkSDDMM_preprocess as unsafe extern "C" fn(_, _, _, _, _, _, _, _, _, _, _) -> _),
        ("spblkSDDMM", spblkSDDMM),
    ] {
        check(
            name,
            &ptrs,
            &enums,
            // SAFETY: the library's own exported functions.
            |m, b| unsafe {
                f(
                    n(m, 0, h),
                    e(b, 10, 0),
                    e(b, 11, 1),
                    n(m, 1, one()),
                    n(m, 2, db),
                    n(m, 3, dc),
                    n(m, 4, one()),
                    n(m, 5, sa),
                    e(b, 12, 0),
                    e(b, 13, 0),
                    null_mut(),
                )
            },
        );
    }
    drop_fixture(&mut fx);
}

#[test]
fn spgemm_and_conversion_functions() {
    let mut fx = fixture();
    let (h, sa) = (fx.h, fx.sa);
    let mut off = index_buf(SPBLK_INDEX_32I, &[0; 7]);
    let mut dc = null_mut();
    assert_eq!(spblkCreateCsr(&mut dc, 6, 6, 0, off.ptr(), null_mut(), null_mut(), 2, 2, 0, 0), OK);
    let mut g: spblkSpGEMMDescr_t = 0x31 as _;
    check("spblkSpGEMM_createDescr", &[(0, IV, "descr")], &[], |m, _| spblkSpGEMM_createDescr(n(m, 0, &mut g)));
    // Protocol order: compute and copy before workEstimation are rejected.
    let mut s = 0usize;
    assert_eq!(spblkSpGEMM_compute(h, 0, 0, one(), sa, sa, one(), dc, 0, 0, g, &mut s, null_mut()), IV);
    assert_eq!(spblkSpGEMM_copy(h, 0, 0, one(), sa, sa, one(), dc, 0, 0, g), IV);
    let ptrs = [
        (0, NI, "handle"),
        (1, IV, "alpha"),
        (2, IV, "matA"),
        (3, IV, "matB"),
        (4, IV, "beta"),
        (5, IV, "matC"),
        (6, IV, "spgemmDescr"),
        (7, IV, "bufferSize1"),
    ];
    let enums = [(10, "opA"), (11, "opB"), (12, "computeType"), (13, "alg")];
    let mut buf = vec![0u8; 64];
    let bp = buf.as_mut_ptr() as *mut c_void;
    check("spblkSpGEMM_workEstimation", &ptrs, &enums, |m, b| {
        s = 64;
        spblkSpGEMM_workEstimation(
            n(m, 0, h),
            e(b, 10, 0),
            e(b, 11, 0),
            n(m, 1, one()),
            n(m, 2, sa),
            n(m, 3, sa),
            n(m, 4, one()),
            n(m, 5, dc),
            e(b, 12, 0),
            e(b, 13, 0),
            n(m, 6, g),
            n(m, 7, &mut s),
            bp,
        )
    });
    let mut ptrs2 = ptrs.to_vec();
    ptrs2[7] = (7, IV, "bufferSize2");
    check("spblkSpGEMM_compute", &ptrs2, &enums, |m, b| {
        s = 64;
        spblkSpGEMM_compute(
            n(m, 0, h),
            e(b, 10, 0),
            e(b, 11, 0),
            n(m, 1, one()),
            n(m, 2, sa),
            n(m, 3, sa),
            n(m, 4, one()),
            n(m, 5, dc),
            e(b, 12, 0),
            e(b, 13, 0),
            n(m, 6, g),
            n(m, 7, &mut s),
            bp,
        )
    });
    // A too-small buffer is INSUFFICIENT_RESOURCES.
    let mut tiny = 0usize;
    assert_eq!(
        spblkSpGEMM_compute(h, 0, 0, one(), sa, sa, one(), dc, 0, 0, g, &mut tiny, bp),
        SPBLK_STATUS_INSUFFICIENT_RESOURCES
    );
    // copy before CsrSetPointers (NULL columns) is rejected.
    let mut nnz = 0i64;
    assert_eq!(spblkSpMatGetSize(dc, &mut 0, &mut 0, &mut nnz), OK);
    assert!(nnz > 0);
    assert_eq!(spblkSpGEMM_copy(h, 0, 0, one(), sa, sa, one(), dc, 0, 0, g), IV);
    let mut col = index_buf(SPBLK_INDEX_32I, &vec![0; nnz as usize]);
    let mut val = values_buf(SPBLK_R_32F, &vec![0.0; nnz as usize]);
    assert_eq!(spblkCsrSetPointers(dc, off.ptr(), col.ptr(), val.ptr()), OK);
    check("spblkSpGEMM_copy", &ptrs[..7], &enums, |m, b| {
        spblkSpGEMM_copy(
            n(m, 0, h),
            e(b, 10, 0),
            e(b, 11, 0),
            n(m, 1, one()),
            n(m, 2, sa),
            n(m, 3, sa),
            n(m, 4, one()),
            n(m, 5, dc),
            e(b, 12, 0),
            e(b, 13, 0),
            n(m, 6, g),
        )
    });
    // Transposes are NOT_SUPPORTED for SpGEMM, as in cuSPARSE.
    assert_eq!(spblkSpGEMM_copy(h, 1, 0, one(), sa, sa, one(), dc, 0, 0, g), SPBLK_STATUS_NOT_SUPPORTED);
    check("spblkSpGEMM_destroyDescr", &[], &[], |_, _| spblkSpGEMM_destroyDescr(g));
    assert_eq!(spblkDestroySpMat(dc), OK);

    // csr2csc: (csrVal, csrRowPtr, csrColInd, cscVal, cscColPtr, cscRowInd, bufferSize).
    let nz = fx.a.nnz as i32;
    let (v, rp, ci) = (fx.a.values.ptr(), fx.a.major.ptr() as *mut i32, fx.a.minor.ptr() as *mut i32);
    let mut cv = values_buf(SPBLK_R_32F, &vec![0.0; nz as usize]);
    let mut cp = index_buf(SPBLK_INDEX_32I, &[0; 7]);
    let mut cr = index_buf(SPBLK_INDEX_32I, &vec![0; nz as usize]);
    let (cvp, cpp, crp) = (cv.ptr(), cp.ptr() as *mut i32, cr.ptr() as *mut i32);
    let ptrs = [
        (0, NI, "handle"),
        (1, IV, "csrVal"),
        (2, IV, "csrRowPtr"),
        (3, IV, "csrColInd"),
        (4, IV, "cscVal"),
        (5, IV, "cscColPtr"),
        (6, IV, "cscRowInd"),
    ];
    let enums = [(10, "valType"), (11, "copyValues"), (12, "idxBase"), (13, "alg")];
    let mut with_size = ptrs.to_vec();
    with_size.push((7, IV, "bufferSize"));
    check("spblkCsr2cscEx2_bufferSize", &with_size, &enums, |m, b| {
        spblkCsr2cscEx2_bufferSize(
            n(m, 0, h),
            6,
            6,
            nz,
            n(m, 1, v),
            n(m, 2, rp),
            n(m, 3, ci),
            n(m, 4, cvp),
            n(m, 5, cpp),
            n(m, 6, crp),
            e(b, 10, 0),
            e(b, 11, 1),
            e(b, 12, 0),
            e(b, 13, 1),
            n(m, 7, &mut s),
        )
    });
    let mut work = vec![0u8; s];
    let wp = work.as_mut_ptr() as *mut c_void;
    check("spblkCsr2cscEx2", &ptrs, &enums, |m, b| {
        spblkCsr2cscEx2(
            n(m, 0, h),
            6,
            6,
            nz,
            n(m, 1, v),
            n(m, 2, rp),
            n(m, 3, ci),
            n(m, 4, cvp),
            n(m, 5, cpp),
            n(m, 6, crp),
            e(b, 10, 0),
            e(b, 11, 1),
            e(b, 12, 0),
            e(b, 13, 1),
            wp,
        )
    });
    assert_eq!(spblkCsr2cscEx2(h, -1, 6, nz, v, rp, ci, cvp, cpp, crp, 0, 1, 0, 1, wp), IV);
    drop_fixture(&mut fx);
}

fn drop_fixture(fx: &mut Fixture) {
    assert_eq!(spblkDestroySpMat(fx.sa), OK);
    assert_eq!(spblkDestroyDnVec(fx.vx), OK);
    assert_eq!(spblkDestroyDnVec(fx.vy), OK);
    assert_eq!(spblkDestroyDnMat(fx.db), OK);
    assert_eq!(spblkDestroyDnMat(fx.dc), OK);
    assert_eq!(spblkDestroy(fx.h), OK);
    let _ = (&mut fx.x, &mut fx.y, &mut fx.b, &mut fx.c);
}

#[test]
fn analysis_functions() {
    use spblk::capi::analyze::*;
    let mut fx = fixture();
    let (h, sa) = (fx.h, fx.sa);
    let size = std::mem::size_of::<spblkAnalysisParams>();
    let mut p = spblkAnalysisParams {
        structSize: 0,
        blockWidth: 0,
        tau: 0.0,
        similarity: 0,
        mergeRule: 0,
        maxGroupHeight: 0,
        halfCopies: 0,
        candidateBudget: 0,
    };
    check("spblkAnalysisParamsInit", &[(0, IV, "params")], &[], |m, _| spblkAnalysisParamsInit(n(m, 0, &mut p), size));
    assert_eq!(spblkAnalysisParamsInit(&mut p, 2), IV, "structSize smaller than its own field");
    let pp = &mut p as *mut spblkAnalysisParams;
    // params may be NULL (defaults), so only handle and matA are required pointers.
    check("spblkAnalyze", &[(0, NI, "handle"), (1, IV, "matA")], &[(10, "alg")], |m, b| {
        spblkAnalyze(n(m, 0, h), n(m, 1, sa), e(b, 10, SPBLK_ANALYSIS_1SA), pp)
    });
    p.similarity = BAD;
    assert_eq!(spblkAnalyze(h, sa, SPBLK_ANALYSIS_1SA, &p), IV);
    p.similarity = 0;
    p.mergeRule = BAD;
    assert_eq!(spblkAnalyze(h, sa, SPBLK_ANALYSIS_1SA, &p), IV);
    let mut info = spblkAnalysisInfo { structSize: std::mem::size_of::<spblkAnalysisInfo>(), ..Default::default() };
    check("spblkAnalysisGetInfo", &[(0, IV, "matA"), (1, IV, "info")], &[], |m, _| {
        spblkAnalysisGetInfo(n(m, 0, sa), n(m, 1, &mut info))
    });
    let mut perm = vec![0i64; 6];
    check("spblkAnalysisGetPermutation", &[(0, IV, "matA"), (1, IV, "perm")], &[], |m, _| {
        spblkAnalysisGetPermutation(n(m, 0, sa), n(m, 1, perm.as_mut_ptr()))
    });
    drop_fixture(&mut fx);
}

#[test]
fn const_and_csc_coo_descriptor_functions() {
    let mut fx = fixture();
    let mut r = rng(12);
    let m = random_matrix(&mut r, 6, 6, Kind::Uniform);
    let mut csc = SparseArrays::new(&m, SPBLK_FORMAT_CSC, SPBLK_INDEX_64I, 1, SPBLK_R_64F);
    let (off, idx, val) = (csc.major.ptr(), csc.minor.ptr(), csc.values.ptr());
    let z = csc.nnz as i64;
    let mut d: spblkConstSpMatDescr_t = null_mut();
    check(
        "spblkCreateConstCsc",
        &[(0, IV, "spMatDescr"), (2, IV, "cscRowInd"), (3, IV, "cscValues")],
        &[(4, "cscColOffsetsType"), (5, "cscRowIndType"), (6, "idxBase"), (7, "valueType")],
        |m, b| {
            spblkCreateConstCsc(
                n(m, 0, &mut d),
                6,
                6,
                z,
                n(m, 1, off),
                n(m, 2, idx),
                n(m, 3, val),
                e(b, 4, 3),
                e(b, 5, 3),
                e(b, 6, 1),
                e(b, 7, 1),
            )
        },
    );
    let dm = d as spblkSpMatDescr_t;
    let (mut rr, mut cc, mut zz, mut p1, mut p2, mut p3) = (0i64, 0i64, 0i64, null_mut(), null_mut(), null_mut());
    let (mut t1, mut t2, mut t3, mut t4) = (0u32, 0u32, 0u32, 0u32);
    let names = [
        "spMatDescr",
        "rows",
        "cols",
        "nnz",
        "cscColOffsets",
        "cscRowInd",
        "cscValues",
        "cscColOffsetsType",
        "cscRowIndType",
        "idxBase",
        "valueType",
    ];
    let ptrs: Vec<(u32, u32, &str)> = names.iter().enumerate().map(|(i, s)| (i as u32, IV, *s)).collect();
    check("spblkCscGet", &ptrs, &[], |m, _| {
        spblkCscGet(
            n(m, 0, dm),
            n(m, 1, &mut rr),
            n(m, 2, &mut cc),
            n(m, 3, &mut zz),
            n(m, 4, &mut p1),
            n(m, 5, &mut p2),
            n(m, 6, &mut p3),
            n(m, 7, &mut t1),
            n(m, 8, &mut t2),
            n(m, 9, &mut t3),
            n(m, 10, &mut t4),
        )
    });
    assert_eq!((p1, p2, p3, t1, t3, t4), (off, idx, val, SPBLK_INDEX_64I, 1, SPBLK_R_64F));
    check(
        "spblkCscSetPointers",
        &[(0, IV, "spMatDescr"), (1, IV, "cscColOffsets"), (2, IV, "cscRowInd"), (3, IV, "cscValues")],
        &[],
        |m, _| spblkCscSetPointers(n(m, 0, dm), n(m, 1, off), n(m, 2, idx), n(m, 3, val)),
    );
    // A CSC descriptor does not take CSR or COO pointers.
    assert_eq!(spblkCsrSetPointers(dm, off, idx, val), IV);
    assert_eq!(spblkCooSetPointers(dm, off, idx, val), IV);
    let mut cv: *const c_void = null_mut();
    check("spblkConstSpMatGetValues", &[(0, IV, "spMatDescr"), (1, IV, "values")], &[], |m, _| {
        spblkConstSpMatGetValues(nc(m, 0, d), n(m, 1, &mut cv))
    });
    assert_eq!(cv, val as *const c_void);
    let (ri, ci, cov) = (fx.coo.major.ptr(), fx.coo.minor.ptr(), fx.coo.values.ptr());
    let cz = fx.coo.nnz as i64;
    let mut dc: spblkConstSpMatDescr_t = null_mut();
    check(
        "spblkCreateConstCoo",
        &[(0, IV, "spMatDescr"), (1, IV, "cooRowInd"), (2, IV, "cooColInd"), (3, IV, "cooValues")],
        &[(4, "cooIdxType"), (5, "idxBase"), (6, "valueType")],
        |m, b| {
            spblkCreateConstCoo(
                n(m, 0, &mut dc),
                6,
                6,
                cz,
                n(m, 1, ri),
                n(m, 2, ci),
                n(m, 3, cov),
                e(b, 4, 2),
                e(b, 5, 0),
                e(b, 6, 0),
            )
        },
    );
    check(
        "spblkCooSetPointers",
        &[(0, IV, "spMatDescr"), (1, IV, "cooRows"), (2, IV, "cooColumns"), (3, IV, "cooValues")],
        &[],
        |m, _| spblkCooSetPointers(n(m, 0, dc as spblkSpMatDescr_t), n(m, 1, ri), n(m, 2, ci), n(m, 3, cov)),
    );
    let bv = fx.b.buf.ptr();
    let mut dd: spblkConstDnMatDescr_t = null_mut();
    check(
        "spblkCreateConstDnMat",
        &[(0, IV, "dnMatDescr"), (1, IV, "values")],
        &[(2, "valueType"), (3, "order")],
        |m, b| spblkCreateConstDnMat(n(m, 0, &mut dd), 6, 3, 3, n(m, 1, bv), e(b, 2, 0), e(b, 3, SPBLK_ORDER_ROW)),
    );
    check("spblkConstDnMatGetValues", &[(0, IV, "dnMatDescr"), (1, IV, "values")], &[], |m, _| {
        spblkConstDnMatGetValues(nc(m, 0, dd), n(m, 1, &mut cv))
    });
    let mut dv: spblkConstDnVecDescr_t = null_mut();
    check("spblkCreateConstDnVec", &[(0, IV, "dnVecDescr"), (1, IV, "values")], &[(2, "valueType")], |m, b| {
        spblkCreateConstDnVec(n(m, 0, &mut dv), 6, n(m, 1, bv), e(b, 2, 0))
    });
    check("spblkConstDnVecGetValues", &[(0, IV, "dnVecDescr"), (1, IV, "values")], &[], |m, _| {
        spblkConstDnVecGetValues(nc(m, 0, dv), n(m, 1, &mut cv))
    });
    assert_eq!(cv, bv as *const c_void);
    for s in [spblkDestroySpMat(d), spblkDestroySpMat(dc), spblkDestroyDnMat(dd), spblkDestroyDnVec(dv)] {
        assert_eq!(s, OK);
    }
    drop_fixture(&mut fx);
}

#[test]
fn const_getters_and_strided_batches() {
    use spblk::capi::batch::*;
    let mut fx = fixture();
    let (sa, coo_d) = (fx.sa, fx.coo.descr());
    let (mut rr, mut cc, mut zz) = (0i64, 0i64, 0i64);
    let (mut p1, mut p2, mut p3): (*const c_void, *const c_void, *const c_void) = (null_mut(), null_mut(), null_mut());
    let (mut t1, mut t2, mut t3, mut t4) = (0u32, 0u32, 0u32, 0u32);
    let csr = ["spMatDescr", "rows", "cols", "nnz", "csrRowOffsets", "csrColInd", "csrValues"];
    let csr: Vec<&str> =
        csr.into_iter().chain(["csrRowOffsetsType", "csrColIndType", "idxBase", "valueType"]).collect();
    let ptrs: Vec<(u32, u32, &str)> = csr.iter().enumerate().map(|(i, s)| (i as u32, IV, *s)).collect();
    check("spblkConstCsrGet", &ptrs, &[], |m, _| {
        spblkConstCsrGet(
            nc(m, 0, sa),
            n(m, 1, &mut rr),
            n(m, 2, &mut cc),
            n(m, 3, &mut zz),
            n(m, 4, &mut p1),
            n(m, 5, &mut p2),
            n(m, 6, &mut p3),
            n(m, 7, &mut t1),
            n(m, 8, &mut t2),
            n(m, 9, &mut t3),
            n(m, 10, &mut t4),
        )
    });
    assert_eq!((p1, p2, p3), (fx.a.major.ptr() as _, fx.a.minor.ptr() as _, fx.a.values.ptr() as _));
    assert_eq!((rr, cc, t1, t3, t4), (6, 6, SPBLK_INDEX_32I, 0, SPBLK_R_32F));
    // The const getters check the format too, and write nothing then.
    let untouched: *const c_void = 0x5 as _;
    p1 = untouched;
    let st =
        spblkConstCscGet(sa, &mut rr, &mut cc, &mut zz, &mut p1, &mut p2, &mut p3, &mut t1, &mut t2, &mut t3, &mut t4);
    assert_eq!((st, p1), (IV, untouched));
    assert!(last_error().contains("is CSR, not CSC"), "{}", last_error());
    let coo = ["spMatDescr", "rows", "cols", "nnz", "cooRowInd", "cooColInd", "cooValues", "idxType", "idxBase"];
    let coo: Vec<&str> = coo.into_iter().chain(["valueType"]).collect();
    let ptrs: Vec<(u32, u32, &str)> = coo.iter().enumerate().map(|(i, s)| (i as u32, IV, *s)).collect();
    check("spblkConstCooGet", &ptrs, &[], |m, _| {
        spblkConstCooGet(
            nc(m, 0, coo_d),
            n(m, 1, &mut rr),
            n(m, 2, &mut cc),
            n(m, 3, &mut zz),
            n(m, 4, &mut p1),
            n(m, 5, &mut p2),
            n(m, 6, &mut p3),
            n(m, 7, &mut t1),
            n(m, 8, &mut t2),
            n(m, 9, &mut t3),
        )
    });
    assert_eq!((p1, p2), (fx.coo.major.ptr() as _, fx.coo.minor.ptr() as _));
    let db = fx.db;
    let (mut ld, mut o) = (0i64, 0u32);
    let names = ["dnMatDescr", "rows", "cols", "ld", "values", "type", "order"];
    let ptrs: Vec<(u32, u32, &str)> = names.iter().enumerate().map(|(i, s)| (i as u32, IV, *s)).collect();
    check("spblkConstDnMatGet", &ptrs, &[], |m, _| {
        spblkConstDnMatGet(
            nc(m, 0, db),
            n(m, 1, &mut rr),
            n(m, 2, &mut cc),
            n(m, 3, &mut ld),
            n(m, 4, &mut p1),
            n(m, 5, &mut t1),
            n(m, 6, &mut o),
        )
    });
    assert_eq!((rr, cc, ld, p1, o), (6, 3, 3, fx.b.buf.ptr() as _, SPBLK_ORDER_ROW));
    let vx = fx.vx;
    check(
        "spblkConstDnVecGet",
        &[(0, IV, "dnVecDescr"), (1, IV, "size"), (2, IV, "values"), (3, IV, "valueType")],
        &[],
        |m, _| spblkConstDnVecGet(nc(m, 0, vx), n(m, 1, &mut rr), n(m, 2, &mut p1), n(m, 3, &mut t1)),
    );
    assert_eq!((rr, p1), (6, fx.x.ptr() as _));

    // Strided batches: the descriptor NULL; counts and strides out of range; read back.
    let nnz = fx.a.nnz as i64;
    check("spblkCsrSetStridedBatch", &[(0, IV, "spMatDescr")], &[], |m, _| {
        spblkCsrSetStridedBatch(n(m, 0, sa), 2, 0, nnz)
    });
    let mut count = 0i32;
    check("spblkSpMatGetStridedBatch", &[(0, IV, "spMatDescr"), (1, IV, "batchCount")], &[], |m, _| {
        spblkSpMatGetStridedBatch(nc(m, 0, sa), n(m, 1, &mut count))
    });
    assert_eq!(count, 2);
    for (c, o, v, arg) in [(0, 0, nnz, "batchCount"), (-3, 0, nnz, "batchCount"), (2, 6, nnz, "offsetsBatchStride")] {
        assert_eq!(spblkCsrSetStridedBatch(sa, c, o, v), IV);
        assert!(last_error().contains(arg), "{}", last_error());
    }
    assert_eq!(spblkCsrSetStridedBatch(sa, 2, -7, nnz), IV);
    assert_eq!(spblkSpMatGetStridedBatch(sa, &mut count), OK);
    assert_eq!(count, 2, "a failed setter changed the batch");
    assert_eq!(spblkCsrSetStridedBatch(sa, 1, 0, 0), OK);
    check("spblkCooSetStridedBatch", &[(0, IV, "spMatDescr")], &[], |m, _| {
        spblkCooSetStridedBatch(n(m, 0, coo_d), 3, nnz)
    });
    assert_eq!(spblkCooSetStridedBatch(coo_d, 3, -1), IV);
    assert!(last_error().contains("batchStride"));
    assert_eq!(spblkCooSetStridedBatch(sa, 3, nnz), IV);
    assert!(last_error().contains("is CSR, not COO"));
    check("spblkDnMatSetStridedBatch", &[(0, IV, "dnMatDescr")], &[], |m, _| {
        spblkDnMatSetStridedBatch(n(m, 0, db), 4, 20)
    });
    let mut stride = 0i64;
    check(
        "spblkDnMatGetStridedBatch",
        &[(0, IV, "dnMatDescr"), (1, IV, "batchCount"), (2, IV, "batchStride")],
        &[],
        |m, _| spblkDnMatGetStridedBatch(nc(m, 0, db), n(m, 1, &mut count), n(m, 2, &mut stride)),
    );
    assert_eq!((count, stride), (4, 20));
    assert_eq!(spblkDnMatSetStridedBatch(db, 4, 17), IV, "6 x 3 row-major with ld 3 spans 18");
    assert!(last_error().contains("batchStride"));
    assert_eq!(spblkDnMatSetStridedBatch(db, 0, 20), IV);
    assert_eq!(spblkDnMatSetStridedBatch(db, 1, 0), OK);
    assert_eq!(spblkDestroySpMat(coo_d), OK);
    drop_fixture(&mut fx);
}

#[test]
fn legacy_matrix_descriptors() {
    use spblk::capi::mat_descr::*;
    let mut d: spblkMatDescr_t = null_mut();
    check("spblkCreateMatDescr", &[(0, IV, "descrA")], &[], |m, _| spblkCreateMatDescr(n(m, 0, &mut d)));
    // cuSPARSE's defaults.
    assert_eq!(spblkGetMatType(d), SPBLK_MATRIX_TYPE_GENERAL);
    assert_eq!(spblkGetMatFillMode(d), SPBLK_FILL_MODE_LOWER);
    assert_eq!(spblkGetMatDiagType(d), SPBLK_DIAG_TYPE_NON_UNIT);
    assert_eq!(spblkGetMatIndexBase(d), SPBLK_INDEX_BASE_ZERO);
    check("spblkSetMatType", &[(0, IV, "descrA")], &[(1, "type")], |m, b| {
        spblkSetMatType(n(m, 0, d), e(b, 1, SPBLK_MATRIX_TYPE_TRIANGULAR))
    });
    check("spblkSetMatFillMode", &[(0, IV, "descrA")], &[(1, "fillMode")], |m, b| {
        spblkSetMatFillMode(n(m, 0, d), e(b, 1, SPBLK_FILL_MODE_UPPER))
    });
    check("spblkSetMatDiagType", &[(0, IV, "descrA")], &[(1, "diagType")], |m, b| {
        spblkSetMatDiagType(n(m, 0, d), e(b, 1, SPBLK_DIAG_TYPE_UNIT))
    });
    check("spblkSetMatIndexBase", &[(0, IV, "descrA")], &[(1, "base")], |m, b| {
        spblkSetMatIndexBase(n(m, 0, d), e(b, 1, SPBLK_INDEX_BASE_ONE))
    });
    // Set values read back; a rejected value changed nothing.
    assert_eq!(spblkSetMatType(d, 4), IV);
    assert_eq!(spblkGetMatType(d), SPBLK_MATRIX_TYPE_TRIANGULAR);
    assert_eq!(spblkGetMatFillMode(d), SPBLK_FILL_MODE_UPPER);
    assert_eq!(spblkGetMatDiagType(d), SPBLK_DIAG_TYPE_UNIT);
    assert_eq!(spblkGetMatIndexBase(d), SPBLK_INDEX_BASE_ONE);
    // The getters cannot return a status: NULL, foreign and destroyed descriptors give
    // SPBLK_MAT_DESCR_INVALID and a message naming the function and the argument.
    let getters: [(&str, extern "C" fn(spblkMatDescr_t) -> u32); 4] = [
        ("spblkGetMatType", spblkGetMatType),
        ("spblkGetMatFillMode", spblkGetMatFillMode),
        ("spblkGetMatDiagType", spblkGetMatDiagType),
        ("spblkGetMatIndexBase", spblkGetMatIndexBase),
    ];
    let fx = fixture();
    let foreign = fx.sa as spblkMatDescr_t;
    let mut dead: spblkMatDescr_t = null_mut();
    assert_eq!(spblkCreateMatDescr(&mut dead), OK);
    assert_eq!(spblkDestroyMatDescr(dead), OK);
    for (name, get) in getters {
        for (what, p, words) in
            [("NULL", null_mut(), "is NULL"), ("foreign", foreign, "not a legacy"), ("dead", dead, "not a live")]
        {
            assert_eq!(get(p), SPBLK_MAT_DESCR_INVALID, "{name} on a {what} descriptor");
            let msg = last_error();
            assert!(msg.starts_with(name) && msg.contains("descrA") && msg.contains(words), "{name}: {msg}");
        }
    }
    assert_eq!(spblkSetMatType(dead, 0), NI);
    assert_eq!(spblkDestroyMatDescr(dead), NI);
    assert_eq!(spblkDestroyMatDescr(null_mut()), OK);
    assert_eq!(spblkDestroyMatDescr(d), OK);
    let mut fx = fx;
    drop_fixture(&mut fx);
}

#[test]
fn sparse_vector_functions() {
    use spblk::capi::sp_vec::*;
    use spblk::capi::spvec_ops::*;
    let mut fx = fixture();
    let mut idx: Vec<i32> = vec![0, 2, 5];
    let mut vals: Vec<f32> = vec![1.0, 2.0, 3.0];
    let (ip, vp) = (idx.as_mut_ptr() as *mut c_void, vals.as_mut_ptr() as *mut c_void);
    let mut x: spblkSpVecDescr_t = null_mut();
    let i32i = SPBLK_INDEX_32I;
    check(
        "spblkCreateSpVec",
        &[(0, IV, "spVecDescr"), (1, IV, "indices"), (2, IV, "values")],
        &[(3, "idxType"), (4, "idxBase"), (5, "valueType")],
        |m, b| spblkCreateSpVec(n(m, 0, &mut x), 6, 3, n(m, 1, ip), n(m, 2, vp), e(b, 3, i32i), e(b, 4, 0), e(b, 5, 0)),
    );
    let mut cx: spblkConstSpVecDescr_t = std::ptr::null();
    check(
        "spblkCreateConstSpVec",
        &[(0, IV, "spVecDescr"), (1, IV, "indices"), (2, IV, "values")],
        &[(3, "idxType"), (4, "idxBase"), (5, "valueType")],
        |m, b| {
            let (i, v) = (nc(m, 1, ip as *const c_void), nc(m, 2, vp as *const c_void));
            spblkCreateConstSpVec(n(m, 0, &mut cx), 6, 3, i, v, e(b, 3, i32i), e(b, 4, 0), e(b, 5, 0))
        },
    );
    // Sizes: nnz above size, negative, 16-bit indices; NULL arrays only without entries.
    let mut other: spblkSpVecDescr_t = null_mut();
    for (size, nnz, ity, arg) in [(2i64, 3i64, i32i, "nnz"), (-1, 0, i32i, "size"), (6, 3, SPBLK_INDEX_16U, "idxType")]
    {
        assert_eq!(spblkCreateSpVec(&mut other, size, nnz, ip, vp, ity, 0, 0), IV, "{arg}");
        assert!(last_error().contains(arg), "{}", last_error());
    }
    assert!(other.is_null(), "a failed create wrote its out-parameter");
    assert_eq!(spblkCreateSpVec(&mut other, 6, 0, null_mut(), null_mut(), i32i, 0, 0), OK);
    assert_eq!(spblkDestroySpVec(other), OK);
    // Getters.
    let (mut size, mut nnz, mut gi, mut gv, mut it, mut ib, mut vt) =
        (0i64, 0i64, null_mut(), null_mut(), 9u32, 9u32, 9u32);
    let names = ["spVecDescr", "size", "nnz", "indices", "values", "idxType", "idxBase", "valueType"];
    let ptrs: Vec<(u32, u32, &str)> = names.iter().enumerate().map(|(i, s)| (i as u32, IV, *s)).collect();
    check("spblkSpVecGet", &ptrs, &[], |m, _| {
        spblkSpVecGet(
            n(m, 0, x),
            n(m, 1, &mut size),
            n(m, 2, &mut nnz),
            n(m, 3, &mut gi),
            n(m, 4, &mut gv),
            n(m, 5, &mut it),
            n(m, 6, &mut ib),
            n(m, 7, &mut vt),
        )
    });
    assert_eq!((size, nnz, gi, gv, it, ib, vt), (6, 3, ip, vp, i32i, 0, SPBLK_R_32F));
    let (mut ci, mut cv): (*const c_void, *const c_void) = (std::ptr::null(), std::ptr::null());
    check("spblkConstSpVecGet", &ptrs, &[], |m, _| {
        spblkConstSpVecGet(
            nc(m, 0, cx),
            n(m, 1, &mut size),
            n(m, 2, &mut nnz),
            n(m, 3, &mut ci),
            n(m, 4, &mut cv),
            n(m, 5, &mut it),
            n(m, 6, &mut ib),
            n(m, 7, &mut vt),
        )
    });
    assert_eq!((ci, cv), (ip as *const c_void, vp as *const c_void));
    check("spblkSpVecGetIndexBase", &[(0, IV, "spVecDescr"), (1, IV, "idxBase")], &[], |m, _| {
        spblkSpVecGetIndexBase(nc(m, 0, cx), n(m, 1, &mut ib))
    });
    check("spblkSpVecGetValues", &[(0, IV, "spVecDescr"), (1, IV, "values")], &[], |m, _| {
        spblkSpVecGetValues(n(m, 0, x), n(m, 1, &mut gv))
    });
    check("spblkConstSpVecGetValues", &[(0, IV, "spVecDescr"), (1, IV, "values")], &[], |m, _| {
        spblkConstSpVecGetValues(nc(m, 0, cx), n(m, 1, &mut cv))
    });
    check("spblkSpVecSetValues", &[(0, IV, "spVecDescr"), (1, IV, "values")], &[], |m, _| {
        spblkSpVecSetValues(n(m, 0, x), n(m, 1, vp))
    });
    // Operations: X sparse (size 6), Y dense (size 6), scalars of the compute type.
    let (h, y, vy) = (fx.h, fx.vy, fx.vx);
    check(
        "spblkAxpby",
        &[(0, NI, "handle"), (1, IV, "alpha"), (2, IV, "vecX"), (3, IV, "beta"), (4, IV, "vecY")],
        &[],
        |m, _| spblkAxpby(n(m, 0, h), nc(m, 1, one()), nc(m, 2, x), nc(m, 3, one()), n(m, 4, y)),
    );
    check("spblkGather", &[(0, NI, "handle"), (1, IV, "vecY"), (2, IV, "vecX")], &[], |m, _| {
        spblkGather(n(m, 0, h), nc(m, 1, vy), n(m, 2, x))
    });
    check("spblkScatter", &[(0, NI, "handle"), (1, IV, "vecX"), (2, IV, "vecY")], &[], |m, _| {
        spblkScatter(n(m, 0, h), nc(m, 1, x), n(m, 2, y))
    });
    check(
        "spblkRot",
        &[(0, NI, "handle"), (1, IV, "c_coeff"), (2, IV, "s_coeff"), (3, IV, "vecX"), (4, IV, "vecY")],
        &[],
        |m, _| spblkRot(n(m, 0, h), nc(m, 1, one()), nc(m, 2, one()), n(m, 3, x), n(m, 4, y)),
    );
    let mut result = 0f32;
    let rp = &mut result as *mut f32 as *mut c_void;
    let mut bytes = 1usize;
    let f32t = SPBLK_R_32F;
    check(
        "spblkSpVV_bufferSize",
        &[(0, NI, "handle"), (1, IV, "vecX"), (2, IV, "vecY"), (3, IV, "result"), (4, IV, "bufferSize")],
        &[(5, "opX"), (6, "computeType")],
        |m, b| {
            let (op, ct) = (e(b, 5, 0), e(b, 6, f32t));
            spblkSpVV_bufferSize(n(m, 0, h), op, nc(m, 1, x), nc(m, 2, y), nc(m, 3, rp), ct, n(m, 4, &mut bytes))
        },
    );
    assert_eq!(bytes, 0, "the host backend needs no workspace");
    check(
        "spblkSpVV",
        &[(0, NI, "handle"), (1, IV, "vecX"), (2, IV, "vecY"), (3, IV, "result")],
        &[(5, "opX"), (6, "computeType")],
        |m, b| spblkSpVV(n(m, 0, h), e(b, 5, 0), nc(m, 1, x), nc(m, 2, y), n(m, 3, rp), e(b, 6, f32t), null_mut()),
    );
    // Rules: SpVV's opX, the sizes and types of X and Y, Axpby's types, a SpVec where a
    // DnVec belongs.
    assert_eq!(spblkSpVV(h, SPBLK_OPERATION_TRANSPOSE, x, y, rp, f32t, null_mut()), SPBLK_STATUS_NOT_SUPPORTED);
    assert!(last_error().contains("opX"), "{}", last_error());
    assert_eq!(spblkSpVV(h, 0, x, y, rp, SPBLK_R_64F, null_mut()), SPBLK_STATUS_NOT_SUPPORTED);
    let mut small: spblkDnVecDescr_t = null_mut();
    assert_eq!(spblkCreateDnVec(&mut small, 5, fx.y.ptr(), f32t), OK);
    assert_eq!(spblkScatter(h, x, small), IV);
    assert!(last_error().contains("size"), "{}", last_error());
    let mut wide: spblkDnVecDescr_t = null_mut();
    assert_eq!(spblkCreateDnVec(&mut wide, 6, fx.y.ptr(), SPBLK_R_64F), OK);
    assert_eq!(spblkGather(h, wide, x), IV);
    assert!(last_error().contains("value type"), "{}", last_error());
    let mut ints: spblkSpVecDescr_t = null_mut();
    assert_eq!(spblkCreateSpVec(&mut ints, 6, 3, ip, vp, i32i, 0, SPBLK_R_8I), OK);
    let mut int_y: spblkDnVecDescr_t = null_mut();
    assert_eq!(spblkCreateDnVec(&mut int_y, 6, fx.y.ptr(), SPBLK_R_8I), OK);
    assert_eq!(spblkAxpby(h, one(), ints, one(), int_y), SPBLK_STATUS_NOT_SUPPORTED);
    assert_eq!(spblkScatter(h, ints, int_y), OK, "copies take any value type");
    assert_eq!(spblkAxpby(h, one(), fx.vx as spblkConstSpVecDescr_t, one(), y), NI);
    assert!(last_error().contains("not a sparse vector"), "{}", last_error());
    for d in [small, wide, int_y] {
        assert_eq!(spblkDestroyDnVec(d), OK);
    }
    // Destroyed descriptors.
    assert_eq!(spblkDestroySpVec(ints), OK);
    assert_eq!(spblkDestroySpVec(ints), NI);
    assert_eq!(spblkSpVecGetValues(ints, &mut gv), NI);
    assert_eq!(spblkDestroySpVec(null_mut()), OK);
    assert_eq!(spblkDestroySpVec(x), OK);
    assert_eq!(spblkDestroySpVec(cx), OK);
    drop_fixture(&mut fx);
}

#[test]
fn dense_sparse_conversions() {
    use spblk::capi::dense_sparse::*;
    let mut fx = fixture();
    let (h, sa) = (fx.h, fx.sa);
    let mut dense = values_buf(SPBLK_R_32F, &[0.0; 36]);
    let mut db: spblkDnMatDescr_t = null_mut();
    assert_eq!(spblkCreateDnMat(&mut db, 6, 6, 6, dense.ptr(), SPBLK_R_32F, SPBLK_ORDER_ROW), OK);
    let mut size = 7usize;
    let ptrs = [(0, NI, "handle"), (1, IV, "matA"), (2, IV, "matB"), (3, IV, "bufferSize")];
    check("spblkSparseToDense_bufferSize", &ptrs, &[(4, "alg")], |m, b| {
        spblkSparseToDense_bufferSize(n(m, 0, h), nc(m, 1, sa), n(m, 2, db), e(b, 4, 0), n(m, 3, &mut size))
    });
    assert_eq!(size, 0, "the host backend needs no workspace");
    check("spblkSparseToDense", &ptrs[..3], &[(4, "alg")], |m, b| {
        spblkSparseToDense(n(m, 0, h), nc(m, 1, sa), n(m, 2, db), e(b, 4, 0), null_mut())
    });
    // B is now A as a dense matrix: back to CSR through the three calls.
    let mut offsets = index_buf(SPBLK_INDEX_32I, &[0; 7]);
    let mut b: spblkSpMatDescr_t = null_mut();
    let (i32i, f32t) = (SPBLK_INDEX_32I, SPBLK_R_32F);
    assert_eq!(spblkCreateCsr(&mut b, 6, 6, 0, offsets.ptr(), null_mut(), null_mut(), i32i, i32i, 0, f32t), OK);
    let da = db as spblkConstDnMatDescr_t;
    check("spblkDenseToSparse_bufferSize", &ptrs, &[(4, "alg")], |m, bad| {
        spblkDenseToSparse_bufferSize(n(m, 0, h), nc(m, 1, da), n(m, 2, b), e(bad, 4, 0), n(m, 3, &mut size))
    });
    check("spblkDenseToSparse_analysis", &ptrs[..3], &[(4, "alg")], |m, bad| {
        spblkDenseToSparse_analysis(n(m, 0, h), nc(m, 1, da), n(m, 2, b), e(bad, 4, 0), null_mut())
    });
    let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
    assert_eq!(spblkSpMatGetSize(b, &mut rows, &mut cols, &mut nnz), OK);
    assert_eq!(nnz, fx.a.nnz as i64, "the analysis counts A's nonzeros");
    // convert needs B's arrays.
    assert_eq!(spblkDenseToSparse_convert(h, da, b, 0, null_mut()), IV);
    assert!(last_error().contains("csrColInd"), "{}", last_error());
    let mut columns = index_buf(SPBLK_INDEX_32I, &vec![0; nnz as usize]);
    let mut vals = values_buf(SPBLK_R_32F, &vec![0.0; nnz as usize]);
    assert_eq!(spblkCsrSetPointers(b, offsets.ptr(), columns.ptr(), vals.ptr()), OK);
    check("spblkDenseToSparse_convert", &ptrs[..3], &[(4, "alg")], |m, bad| {
        spblkDenseToSparse_convert(n(m, 0, h), nc(m, 1, da), n(m, 2, b), e(bad, 4, 0), null_mut())
    });
    assert_eq!(read_indices(SPBLK_INDEX_32I, &offsets), read_indices(SPBLK_INDEX_32I, &fx.a.major));
    // Rules: shapes and types must match; batches and other formats are refused.
    let mut narrow: spblkDnMatDescr_t = null_mut();
    assert_eq!(spblkCreateDnMat(&mut narrow, 6, 5, 6, dense.ptr(), f32t, SPBLK_ORDER_ROW), OK);
    assert_eq!(spblkSparseToDense(h, sa, narrow, 0, null_mut()), IV);
    assert!(last_error().contains("matB") && last_error().contains("6x5"), "{}", last_error());
    let mut wide: spblkDnMatDescr_t = null_mut();
    assert_eq!(spblkCreateDnMat(&mut wide, 6, 6, 6, dense.ptr(), SPBLK_R_16F, SPBLK_ORDER_ROW), OK);
    assert_eq!(spblkDenseToSparse_analysis(h, wide, b, 0, null_mut()), IV);
    assert!(last_error().contains("value type"), "{}", last_error());
    let mut batched: spblkDnMatDescr_t = null_mut();
    assert_eq!(spblkCreateDnMat(&mut batched, 6, 6, 6, dense.ptr(), f32t, SPBLK_ORDER_ROW), OK);
    assert_eq!(spblk::capi::batch::spblkDnMatSetStridedBatch(batched, 2, 0), OK);
    assert_eq!(spblkSparseToDense(h, sa, batched, 0, null_mut()), SPBLK_STATUS_NOT_SUPPORTED);
    // A failed analysis leaves B's nnz as it was.
    assert_eq!(spblkSpMatGetSize(b, &mut rows, &mut cols, &mut nnz), OK);
    assert_eq!(nnz, fx.a.nnz as i64);
    for d in [db, narrow, wide, batched] {
        assert_eq!(spblkDestroyDnMat(d), OK);
    }
    assert_eq!(spblkDestroySpMat(b), OK);
    drop_fixture(&mut fx);
}

#[test]
fn legacy_index_helpers() {
    use spblk::capi::index_arrays::*;
    use spblk::capi::mat_descr::*;
    use spblk::capi::sort::*;
    let h = host_handle();
    let mut p = [9i32; 4];
    check("spblkCreateIdentityPermutation", &[(0, NI, "handle"), (1, IV, "p")], &[], |m, _| {
        spblkCreateIdentityPermutation(n(m, 0, h), 4, n(m, 1, p.as_mut_ptr()))
    });
    assert_eq!(p, [0, 1, 2, 3]);
    assert_eq!(spblkCreateIdentityPermutation(h, -1, p.as_mut_ptr()), IV);
    let offsets = [0i32, 2, 2, 3];
    let mut rows = [9i32; 3];
    let ptrs = [(0, NI, "handle"), (1, IV, "csrSortedRowPtr"), (2, IV, "cooRowInd")];
    check("spblkXcsr2coo", &ptrs, &[(3, "idxBase")], |m, b| {
        spblkXcsr2coo(n(m, 0, h), nc(m, 1, offsets.as_ptr()), 3, 3, n(m, 2, rows.as_mut_ptr()), e(b, 3, 0))
    });
    assert_eq!(rows, [0, 0, 2]);
    let mut back = [9i32; 4];
    let ptrs = [(0, NI, "handle"), (1, IV, "cooRowInd"), (2, IV, "csrSortedRowPtr")];
    check("spblkXcoo2csr", &ptrs, &[(3, "idxBase")], |m, b| {
        spblkXcoo2csr(n(m, 0, h), nc(m, 1, rows.as_ptr()), 3, 3, n(m, 2, back.as_mut_ptr()), e(b, 3, 0))
    });
    assert_eq!(back, offsets);
    // What the host checks: unsorted rows, offsets that do not end at nnz.
    assert_eq!(spblkXcoo2csr(h, [2, 0, 1].as_ptr(), 3, 3, back.as_mut_ptr(), 0), IV);
    assert!(last_error().contains("not sorted"), "{}", last_error());
    assert_eq!(spblkXcsr2coo(h, offsets.as_ptr(), 4, 3, rows.as_mut_ptr(), 0), IV);
    // The sorts: 3 x 3 with rows {2, 0 | (empty) | 1}.
    let mut descr: spblkMatDescr_t = null_mut();
    assert_eq!(spblkCreateMatDescr(&mut descr), OK);
    let mut cols = [2i32, 0, 1];
    let mut perm = [0i32, 1, 2];
    let mut size = 7usize;
    let (op, cp, pp) = (offsets.as_ptr(), cols.as_mut_ptr(), perm.as_mut_ptr());
    for (name, csc) in [("spblkXcsrsort", false), ("spblkXcscsort", true)] {
        let names = if csc { ["cscColPtrA", "cscRowIndA"] } else { ["csrRowPtrA", "csrColIndA"] };
        let size_fn = if csc { spblkXcscsort_bufferSizeExt } else { spblkXcsrsort_bufferSizeExt };
        let sort_fn = if csc { spblkXcscsort } else { spblkXcsrsort };
        let ptrs = [(0, NI, "handle"), (1, IV, names[0]), (2, IV, names[1]), (3, IV, "pBufferSizeInBytes")];
        check(&format!("{name}_bufferSizeExt"), &ptrs, &[], |m, _| {
            size_fn(n(m, 0, h), 3, 3, 3, nc(m, 1, op), nc(m, 2, cp as *const i32), n(m, 3, &mut size))
        });
        assert_eq!(size, 0);
        let ptrs = [(0, NI, "handle"), (1, IV, "descrA"), (2, IV, names[0]), (3, IV, names[1])];
        check(name, &ptrs, &[], |m, _| {
            sort_fn(n(m, 0, h), 3, 3, 3, n(m, 1, descr), nc(m, 2, op), n(m, 3, cp), pp, null_mut())
        });
        // P is optional.
        assert_eq!(sort_fn(h, 3, 3, 3, descr, op, cp, null_mut(), null_mut()), OK);
    }
    assert_eq!(cols, [0, 2, 1], "sorted within the first line");
    let mut coo_rows = [2i32, 0, 0];
    let mut coo_cols = [0i32, 2, 1];
    let (rp, cp) = (coo_rows.as_mut_ptr(), coo_cols.as_mut_ptr());
    let ptrs = [(0, NI, "handle"), (1, IV, "cooRowsA"), (2, IV, "cooColsA"), (3, IV, "pBufferSizeInBytes")];
    check("spblkXcoosort_bufferSizeExt", &ptrs, &[], |m, _| {
        spblkXcoosort_bufferSizeExt(
            n(m, 0, h),
            3,
            3,
            3,
            nc(m, 1, rp as *const i32),
            nc(m, 2, cp as *const i32),
            n(m, 3, &mut size),
        )
    });
    let ptrs = [(0, NI, "handle"), (1, IV, "cooRowsA"), (2, IV, "cooColsA")];
    check("spblkXcoosortByColumn", &ptrs, &[], |m, _| {
        spblkXcoosortByColumn(n(m, 0, h), 3, 3, 3, n(m, 1, rp), n(m, 2, cp), pp, null_mut())
    });
    assert_eq!((coo_rows, coo_cols), ([2, 0, 0], [0, 1, 2]));
    check("spblkXcoosortByRow", &ptrs, &[], |m, _| {
        spblkXcoosortByRow(n(m, 0, h), 3, 3, 3, n(m, 1, rp), n(m, 2, cp), null_mut(), null_mut())
    });
    assert_eq!((coo_rows, coo_cols), ([0, 0, 2], [1, 2, 0]));
    // An index past the matrix is reported by the host, and nothing is rewritten.
    let mut bad = [5i32, 0, 1];
    assert_eq!(spblkXcoosortByRow(h, 3, 3, 3, bad.as_mut_ptr(), cp, pp, null_mut()), IV);
    assert_eq!(bad, [5, 0, 1]);
    assert_eq!(spblkDestroyMatDescr(descr), OK);
    assert_eq!(spblkDestroy(h), OK);
}

#[test]
fn csrgeam2() {
    use spblk::capi::geam::*;
    use spblk::capi::mat_descr::*;
    let h = host_handle();
    let mut descr: spblkMatDescr_t = null_mut();
    assert_eq!(spblkCreateMatDescr(&mut descr), OK);
    // A: 3 x 3 rows {0, 2 | - | 1}; B: rows {2 | 0 | 1, 1}: C has 2 + 1 + 1 entries.
    let (a_off, a_col, a_val) = ([0i32, 2, 2, 3], [0i32, 2, 1], [1.0f32, 2.0, 3.0]);
    let (b_off, b_col, b_val) = ([0i32, 1, 2, 4], [2i32, 0, 1, 1], [10.0f32, 20.0, 30.0, 40.0]);
    let (ap, ac, av) = (a_off.as_ptr(), a_col.as_ptr(), a_val.as_ptr());
    let (bp, bc, bv) = (b_off.as_ptr(), b_col.as_ptr(), b_val.as_ptr());
    let (alpha, beta) = (2.0f32, 1.0f32);
    let mut c_off = [9i32; 4];
    let (mut c_col, mut c_val) = ([9i32; 4], [9.0f32; 4]);
    let mut size = 7usize;
    let ptrs = [
        (0, NI, "handle"),
        (2, IV, "descrA"),
        (4, IV, "csrSortedRowPtrA"),
        (5, IV, "csrSortedColIndA"),
        (7, IV, "descrB"),
        (9, IV, "csrSortedRowPtrB"),
        (10, IV, "csrSortedColIndB"),
        (11, IV, "descrC"),
        (15, IV, "pBufferSizeInBytes"),
    ];
    check("spblkScsrgeam2_bufferSizeExt", &ptrs, &[], |m, _| {
        let (d, z) = (descr, null_mut::<f32>() as *const f32);
        spblkScsrgeam2_bufferSizeExt(
            n(m, 0, h),
            3,
            3,
            nc(m, 1, &alpha),
            n(m, 2, d),
            3,
            nc(m, 3, av),
            nc(m, 4, ap),
            nc(m, 5, ac),
            nc(m, 6, &beta),
            n(m, 7, d),
            4,
            nc(m, 8, bv),
            nc(m, 9, bp),
            nc(m, 10, bc),
            n(m, 11, d),
            z,
            null_mut::<i32>(),
            null_mut::<i32>(),
            n(m, 15, &mut size),
        )
    });
    assert_eq!(size, 0, "the host needs no workspace");
    let mut total = -1i32;
    let ptrs = [
        (0, NI, "handle"),
        (1, IV, "descrA"),
        (2, IV, "csrSortedRowPtrA"),
        (3, IV, "csrSortedColIndA"),
        (4, IV, "descrB"),
        (5, IV, "csrSortedRowPtrB"),
        (6, IV, "csrSortedColIndB"),
        (7, IV, "descrC"),
        (8, IV, "csrSortedRowPtrC"),
    ];
    check("spblkXcsrgeam2Nnz", &ptrs, &[], |m, _| {
        let d = descr;
        let (cp, tp) = (n(m, 8, c_off.as_mut_ptr()), &mut total as *mut i32);
        spblkXcsrgeam2Nnz(
            n(m, 0, h),
            3,
            3,
            n(m, 1, d),
            3,
            nc(m, 2, ap),
            nc(m, 3, ac),
            n(m, 4, d),
            4,
            nc(m, 5, bp),
            nc(m, 6, bc),
            n(m, 7, d),
            cp,
            tp,
            null_mut(),
        )
    });
    assert_eq!((c_off, total), ([0, 2, 3, 4], 4));
    // nnzTotalDevHostPtr is optional.
    let none = null_mut();
    assert_eq!(
        spblkXcsrgeam2Nnz(h, 3, 3, descr, 3, ap, ac, descr, 4, bp, bc, descr, c_off.as_mut_ptr(), none, none.cast()),
        OK
    );
    let ptrs = [
        (0, NI, "handle"),
        (1, IV, "alpha"),
        (2, IV, "descrA"),
        (3, IV, "csrSortedValA"),
        (4, IV, "csrSortedRowPtrA"),
        (5, IV, "csrSortedColIndA"),
        (6, IV, "beta"),
        (7, IV, "descrB"),
        (8, IV, "csrSortedValB"),
        (9, IV, "csrSortedRowPtrB"),
        (10, IV, "csrSortedColIndB"),
        (11, IV, "descrC"),
        (12, IV, "csrSortedValC"),
        (13, IV, "csrSortedRowPtrC"),
        (14, IV, "csrSortedColIndC"),
    ];
    check("spblkScsrgeam2", &ptrs, &[], |m, _| {
        let d = descr;
        spblkScsrgeam2(
            n(m, 0, h),
            3,
            3,
            nc(m, 1, &alpha),
            n(m, 2, d),
            3,
            nc(m, 3, av),
            nc(m, 4, ap),
            nc(m, 5, ac),
            nc(m, 6, &beta),
            n(m, 7, d),
            4,
            nc(m, 8, bv),
            nc(m, 9, bp),
            nc(m, 10, bc),
            n(m, 11, d),
            n(m, 12, c_val.as_mut_ptr()),
            n(m, 13, c_off.as_mut_ptr()),
            n(m, 14, c_col.as_mut_ptr()),
            null_mut(),
        )
    });
    // Row 0: 2*1 at 0, 2*2 + 10 at 2; row 1: 20 at 0; row 2: 2*3 + 30 + 40 at 1 (B repeats 1).
    assert_eq!((c_col, c_val), ([0, 2, 0, 1], [2.0, 14.0, 20.0, 76.0]));
    // What the host checks: A's columns out of order, C's rows without the room the union needs,
    // a matrix that is not general, negative sizes; none of them writes C.
    let unsorted = [2i32, 0, 1];
    let mut fresh = [9i32; 4];
    let run_nnz = |cols: *const i32, out: *mut i32, d: spblkMatDescr_t, m: i32| {
        spblkXcsrgeam2Nnz(h, m, 3, d, 3, ap, cols, descr, 4, bp, bc, descr, out, null_mut(), null_mut())
    };
    assert_eq!(run_nnz(unsorted.as_ptr(), fresh.as_mut_ptr(), descr, 3), IV);
    assert!(last_error().contains("not ascending in row 0"), "{}", last_error());
    assert_eq!(run_nnz(ac, fresh.as_mut_ptr(), descr, -1), IV);
    assert!(last_error().contains("'m'"), "{}", last_error());
    assert_eq!(fresh, [9; 4]);
    let mut symmetric: spblkMatDescr_t = null_mut();
    assert_eq!(spblkCreateMatDescr(&mut symmetric), OK);
    assert_eq!(spblkSetMatType(symmetric, SPBLK_MATRIX_TYPE_SYMMETRIC), OK);
    assert_eq!(run_nnz(ac, fresh.as_mut_ptr(), symmetric, 3), SPBLK_STATUS_MATRIX_TYPE_NOT_SUPPORTED);
    assert!(last_error().contains("descrA"), "{}", last_error());
    let short = [0i32, 1, 2, 3];
    let mut cols = [9i32; 4];
    let st = spblkScsrgeam2(
        h,
        3,
        3,
        &alpha,
        descr,
        3,
        av,
        ap,
        ac,
        &beta,
        descr,
        4,
        bv,
        bp,
        bc,
        descr,
        c_val.as_mut_ptr(),
        short.as_ptr() as *mut i32,
        cols.as_mut_ptr(),
        null_mut(),
    );
    assert_eq!(st, IV);
    assert!(last_error().contains("csrSortedRowPtrC"), "{}", last_error());
    assert_eq!(cols, [9; 4]);
    assert_eq!(spblkDestroyMatDescr(symmetric), OK);
    assert_eq!(spblkDestroyMatDescr(descr), OK);
    assert_eq!(spblkDestroy(h), OK);
}

#[test]
fn bsr_products() {
    use spblk::capi::bsr::*;
    use spblk::capi::mat_descr::*;
    let h = host_handle();
    let mut descr: spblkMatDescr_t = null_mut();
    assert_eq!(spblkCreateMatDescr(&mut descr), OK);
    // A: 2 x 2 blocks of 2 x 2, blocks (0, 0) and (1, 1), stored row by row: [[1, 2], [3, 4]], [[5, 6], [7, 8]].
    let (off, col, val) = ([0i32, 1, 2], [0i32, 1], [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    let (op, cp, vp) = (off.as_ptr(), col.as_ptr(), val.as_ptr());
    let x = [1.0f32, 1.0, 1.0, 2.0];
    let mut y = [9.0f32; 4];
    let (alpha, beta) = (1.0f32, 0.0f32);
    let ptrs = [
        (0, NI, "handle"),
        (1, IV, "alpha"),
        (2, IV, "descrA"),
        (3, IV, "bsrSortedValA"),
        (4, IV, "bsrSortedRowPtrA"),
        (5, IV, "bsrSortedColIndA"),
        (6, IV, "x"),
        (7, IV, "beta"),
        (8, IV, "y"),
    ];
    let enums = [(9, "dirA"), (10, "transA")];
    check("spblkSbsrmv", &ptrs, &enums, |m, b| {
        spblkSbsrmv(
            n(m, 0, h),
            e(b, 9, SPBLK_DIRECTION_ROW),
            e(b, 10, SPBLK_OPERATION_NON_TRANSPOSE),
            2,
            2,
            2,
            nc(m, 1, &alpha),
            n(m, 2, descr),
            nc(m, 3, vp),
            nc(m, 4, op),
            nc(m, 5, cp),
            2,
            nc(m, 6, x.as_ptr()),
            nc(m, 7, &beta),
            n(m, 8, y.as_mut_ptr()),
        )
    });
    assert_eq!(y, [3.0, 7.0, 17.0, 23.0]);
    let mut c = [9.0f32; 8];
    let b = [1.0f32, 1.0, 1.0, 2.0, 0.0, 1.0, 0.0, 0.0];
    let ptrs = [
        (0, NI, "handle"),
        (1, IV, "alpha"),
        (2, IV, "descrA"),
        (3, IV, "bsrSortedValA"),
        (4, IV, "bsrSortedRowPtrA"),
        (5, IV, "bsrSortedColIndA"),
        (6, IV, "B"),
        (7, IV, "beta"),
        (8, IV, "C"),
    ];
    let enums = [(9, "dirA"), (10, "transA"), (11, "transB")];
    check("spblkSbsrmm", &ptrs, &enums, |m, bad| {
        spblkSbsrmm(
            n(m, 0, h),
            e(bad, 9, SPBLK_DIRECTION_COLUMN),
            e(bad, 10, SPBLK_OPERATION_NON_TRANSPOSE),
            e(bad, 11, SPBLK_OPERATION_NON_TRANSPOSE),
            2,
            2,
            2,
            2,
            nc(m, 1, &alpha),
            n(m, 2, descr),
            nc(m, 3, vp),
            nc(m, 4, op),
            nc(m, 5, cp),
            2,
            nc(m, 6, b.as_ptr()),
            4,
            nc(m, 7, &beta),
            n(m, 8, c.as_mut_ptr()),
            4,
        )
    });
    // Blocks stored column by column: [[1, 3], [2, 4]], [[5, 7], [6, 8]]; B's columns x and e2.
    assert_eq!(c, [4.0, 6.0, 19.0, 22.0, 3.0, 4.0, 0.0, 0.0]);
    // What ops checks beyond pointers: transposed A, too small ldb, block size 0; the host: an
    // offset array that does not end at nnzb.
    let st = spblkSbsrmv(
        h,
        0,
        SPBLK_OPERATION_TRANSPOSE,
        2,
        2,
        2,
        &alpha,
        descr,
        vp,
        op,
        cp,
        2,
        x.as_ptr(),
        &beta,
        y.as_mut_ptr(),
    );
    assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED);
    assert!(last_error().contains("transA"), "{}", last_error());
    let st = spblkSbsrmm(h, 0, 0, 0, 2, 2, 2, 2, &alpha, descr, vp, op, cp, 2, b.as_ptr(), 3, &beta, c.as_mut_ptr(), 4);
    assert_eq!(st, IV);
    assert!(last_error().contains("'ldb'"), "{}", last_error());
    let st = spblkSbsrmv(h, 0, 0, 2, 2, 2, &alpha, descr, vp, op, cp, 0, x.as_ptr(), &beta, y.as_mut_ptr());
    assert_eq!(st, IV);
    assert!(last_error().contains("'blockDim'"), "{}", last_error());
    let short = [0i32, 1, 1];
    let before = y;
    let st = spblkSbsrmv(h, 0, 0, 2, 2, 2, &alpha, descr, vp, short.as_ptr(), cp, 2, x.as_ptr(), &beta, y.as_mut_ptr());
    assert_eq!(st, IV);
    assert!(last_error().contains("bsrSortedRowPtrA"), "{}", last_error());
    assert_eq!(y, before, "nothing written on failure");
    assert_eq!(spblkDestroyMatDescr(descr), OK);
    assert_eq!(spblkDestroy(h), OK);
}

#[test]
fn blocked_format_descriptors() {
    use spblk::capi::batch::*;
    use spblk::capi::sp_mat_blocked::*;
    let (i32i, f32t) = (SPBLK_INDEX_32I, SPBLK_R_32F);
    let (mut off, mut col, mut val) = ([0i32; 4], [0i32; 5], [0f32; 64]);
    let (op, cp, vp) =
        (off.as_mut_ptr().cast::<c_void>(), col.as_mut_ptr().cast::<c_void>(), val.as_mut_ptr().cast::<c_void>());
    // BSR: 3 x 4 blocks of 2 x 2, 5 blocks (NVIDIA's sizes: 6 x 8, nnz 20).
    let mut m: spblkSpMatDescr_t = null_mut();
    let ptrs = [(0, IV, "spMatDescr"), (1, IV, "bsrRowOffsets"), (2, IV, "bsrColInd"), (3, IV, "bsrValues")];
    let enums = [(4, "bsrRowOffsetsType"), (5, "bsrColIndType"), (6, "idxBase"), (7, "valueType"), (8, "order")];
    check("spblkCreateBsr", &ptrs, &enums, |mk, b| {
        if !m.is_null() {
            spblkDestroySpMat(m);
            m = null_mut();
        }
        let (t0, t1) = (e(b, 4, i32i), e(b, 5, i32i));
        let (base, vt, order) = (e(b, 6, 0), e(b, 7, f32t), e(b, 8, SPBLK_ORDER_ROW));
        spblkCreateBsr(
            n(mk, 0, &mut m),
            3,
            4,
            5,
            2,
            2,
            n(mk, 1, op),
            n(mk, 2, cp),
            n(mk, 3, vp),
            t0,
            t1,
            base,
            vt,
            order,
        )
    });
    let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
    assert_eq!(spblkSpMatGetSize(m, &mut rows, &mut cols, &mut nnz), OK);
    assert_eq!((rows, cols, nnz), (6, 8, 20), "NVIDIA's sizes");
    let mut fmt = 0;
    assert_eq!(spblkSpMatGetFormat(m, &mut fmt), OK);
    assert_eq!(fmt, SPBLK_FORMAT_BSR);
    // Batches: strides of at least brows + 1, bnnz and bnnz * 4 (or 0).
    assert_eq!(spblkBsrSetStridedBatch(m, 2, 3, 5, 20), IV);
    assert!(last_error().contains("offsetsBatchStride"), "{}", last_error());
    assert_eq!(spblkBsrSetStridedBatch(m, 2, 4, 5, 19), IV);
    assert!(last_error().contains("ValuesBatchStride"), "{}", last_error());
    assert_eq!(spblkBsrSetStridedBatch(null_mut(), 2, 4, 5, 20), IV);
    assert_eq!(spblkBsrSetStridedBatch(m, 2, 4, 5, 20), OK);
    let mut count = 0;
    assert_eq!(spblkSpMatGetStridedBatch(m, &mut count), OK);
    assert_eq!(count, 2);
    assert_eq!(spblkCsrSetStridedBatch(m, 2, 4, 5), IV, "a CSR setter on BSR");
    // What cuSPARSE refuses: rectangular blocks, mixed index types (NOT_SUPPORTED), too many blocks.
    let mut other: spblkSpMatDescr_t = null_mut();
    let st = spblkCreateBsr(&mut other, 3, 4, 5, 2, 3, op, cp, vp, i32i, i32i, 0, f32t, SPBLK_ORDER_ROW);
    assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED);
    let st = spblkCreateBsr(&mut other, 3, 4, 5, 2, 2, op, cp, vp, i32i, SPBLK_INDEX_64I, 0, f32t, SPBLK_ORDER_ROW);
    assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED);
    let st = spblkCreateBsr(&mut other, 3, 4, 13, 2, 2, op, cp, vp, i32i, i32i, 0, f32t, SPBLK_ORDER_ROW);
    assert_eq!(st, IV);
    assert!(other.is_null(), "nothing written on failure");
    assert_eq!(spblkDestroySpMat(m), OK);
    // Blocked-ELL: 8 x 12, blocks of 4, 8 ELL columns (nnz: the 64 stored values).
    let mut m: spblkSpMatDescr_t = null_mut();
    let ptrs = [(0, IV, "spMatDescr"), (1, IV, "ellColInd"), (2, IV, "ellValue")];
    check("spblkCreateBlockedEll", &ptrs, &[(3, "ellIdxType"), (4, "idxBase"), (5, "valueType")], |mk, b| {
        if !m.is_null() {
            spblkDestroySpMat(m);
            m = null_mut();
        }
        let (it, base, vt) = (e(b, 3, i32i), e(b, 4, 0), e(b, 5, f32t));
        spblkCreateBlockedEll(n(mk, 0, &mut m), 8, 12, 4, 8, n(mk, 1, cp), n(mk, 2, vp), it, base, vt)
    });
    assert_eq!(spblkSpMatGetSize(m, &mut rows, &mut cols, &mut nnz), OK);
    assert_eq!((rows, cols, nnz), (8, 12, 64));
    let (mut block, mut ell_cols) = (0i64, 0i64);
    let (mut ci, mut v): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
    let (mut it, mut base, mut vt) = (9u32, 9u32, 99u32);
    let ptrs = [
        (0, IV, "spMatDescr"),
        (1, IV, "rows"),
        (2, IV, "cols"),
        (3, IV, "ellBlockSize"),
        (4, IV, "ellCols"),
        (5, IV, "ellColInd"),
        (6, IV, "ellValue"),
        (7, IV, "ellIdxType"),
        (8, IV, "idxBase"),
        (9, IV, "valueType"),
    ];
    check("spblkBlockedEllGet", &ptrs, &[], |mk, _| {
        spblkBlockedEllGet(
            n(mk, 0, m),
            n(mk, 1, &mut rows),
            n(mk, 2, &mut cols),
            n(mk, 3, &mut block),
            n(mk, 4, &mut ell_cols),
            n(mk, 5, &mut ci),
            n(mk, 6, &mut v),
            n(mk, 7, &mut it),
            n(mk, 8, &mut base),
            n(mk, 9, &mut vt),
        )
    });
    assert_eq!((rows, cols, block, ell_cols, ci, v, it, base, vt), (8, 12, 4, 8, cp, vp, i32i, 0, f32t));
    for (r, c, bs, ec, what) in [(10, 12, 4, 8, "'rows'"), (8, 12, 4, 6, "'ellCols'"), (8, 12, 4, 16, "'ellCols'")] {
        assert_eq!(spblkCreateBlockedEll(&mut other, r, c, bs, ec, cp, vp, i32i, 0, f32t), IV);
        assert!(last_error().contains(what), "{}", last_error());
    }
    // The CSR getter refuses it, and so does every operation.
    let mut cp2: *mut c_void = null_mut();
    let (mut r2, mut c2, mut z2, mut t2) = (0i64, 0i64, 0i64, 0u32);
    let st =
        spblkCsrGet(m, &mut r2, &mut c2, &mut z2, &mut cp2, &mut cp2, &mut cp2, &mut t2, &mut t2, &mut t2, &mut t2);
    assert_eq!(st, IV);
    let h = host_handle();
    let (x, mut y) = ([1f32; 12], [0f32; 8]);
    let (mut vx, mut vy) = (null_mut(), null_mut());
    assert_eq!(spblkCreateDnVec(&mut vx, 12, x.as_ptr() as *mut c_void, f32t), OK);
    assert_eq!(spblkCreateDnVec(&mut vy, 8, y.as_mut_ptr().cast(), f32t), OK);
    let (one, zero) = (1f32, 0f32);
    let st = spblkSpMV(h, 0, (&one as *const f32).cast(), m, vx, (&zero as *const f32).cast(), vy, f32t, 0, null_mut());
    assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED);
    assert!(last_error().contains("BlockedEll") || last_error().contains("Blocked-ELL"), "{}", last_error());
    assert_eq!(spblkDestroyDnVec(vx), OK);
    assert_eq!(spblkDestroyDnVec(vy), OK);
    assert_eq!(spblkDestroySpMat(m), OK);
    // Sliced-ELL: 5 x 7, 9 entries in 12 slots, slices of 2 rows.
    let mut m: spblkSpMatDescr_t = null_mut();
    let ptrs = [(0, IV, "spMatDescr"), (1, IV, "sellSliceOffsets"), (2, IV, "sellColInd"), (3, IV, "sellValues")];
    let enums = [(4, "sellSliceOffsetsType"), (5, "sellColIndType"), (6, "idxBase"), (7, "valueType")];
    check("spblkCreateSlicedEll", &ptrs, &enums, |mk, b| {
        if !m.is_null() {
            spblkDestroySpMat(m);
            m = null_mut();
        }
        let (t0, t1, base, vt) = (e(b, 4, i32i), e(b, 5, i32i), e(b, 6, 0), e(b, 7, f32t));
        spblkCreateSlicedEll(
            n(mk, 0, &mut m),
            5,
            7,
            9,
            12,
            2,
            n(mk, 1, op),
            n(mk, 2, cp),
            n(mk, 3, vp),
            t0,
            t1,
            base,
            vt,
        )
    });
    assert_eq!(spblkSpMatGetSize(m, &mut rows, &mut cols, &mut nnz), OK);
    assert_eq!((rows, cols, nnz), (5, 7, 9));
    assert_eq!(spblkCreateSlicedEll(&mut other, 5, 7, 13, 12, 2, op, cp, vp, i32i, i32i, 0, f32t), IV);
    assert!(last_error().contains("'nnz'"), "{}", last_error());
    assert_eq!(
        spblkBlockedEllGet(
            m,
            &mut rows,
            &mut cols,
            &mut block,
            &mut ell_cols,
            &mut ci,
            &mut v,
            &mut it,
            &mut base,
            &mut vt
        ),
        IV
    );
    assert!(other.is_null());
    assert_eq!(spblkDestroySpMat(m), OK);
    assert_eq!(spblkDestroy(h), OK);
}

#[test]
fn spsv_functions() {
    use spblk::capi::spsv::*;
    let mut fx = fixture();
    let (h, sa, vx, vy) = (fx.h, fx.sa, fx.vx, fx.vy);
    let mut d: spblkSpSVDescr_t = 0x31 as _;
    check("spblkSpSV_createDescr", &[(0, IV, "descr")], &[], |m, _| spblkSpSV_createDescr(n(m, 0, &mut d)));
    let ptrs =
        [(0, NI, "handle"), (1, IV, "alpha"), (2, IV, "matA"), (3, IV, "vecX"), (4, IV, "vecY"), (5, IV, "spsvDescr")];
    let enums = [(10, "opA"), (11, "computeType"), (12, "alg")];
    let mut size = 0usize;
    let mut with_size = ptrs.to_vec();
    with_size.push((6, IV, "bufferSize"));
    check("spblkSpSV_bufferSize", &with_size, &enums, |m, b| {
        let st = spblkSpSV_bufferSize(
            n(m, 0, h),
            e(b, 10, 0),
            nc(m, 1, one()),
            nc(m, 2, sa),
            nc(m, 3, vx),
            n(m, 4, vy),
            e(b, 11, SPBLK_R_32F),
            e(b, 12, 0),
            n(m, 5, d),
            n(m, 6, &mut size),
        );
        assert!(st == OK || size == 0, "bufferSize written on failure");
        st
    });
    // The host backend keeps its analysis in the descriptor: no buffer is needed.
    assert_eq!(size, 0);
    // Solve and update before the analysis: the descriptor has none.
    assert_eq!(spblkSpSV_solve(h, 0, one(), sa, vx, vy, SPBLK_R_32F, 0, d), IV);
    assert!(last_error().contains("spblkSpSV_analysis"), "{}", last_error());
    check("spblkSpSV_analysis", &ptrs, &enums, |m, b| {
        spblkSpSV_analysis(
            n(m, 0, h),
            e(b, 10, 0),
            nc(m, 1, one()),
            nc(m, 2, sa),
            nc(m, 3, vx),
            n(m, 4, vy),
            e(b, 11, SPBLK_R_32F),
            e(b, 12, 0),
            n(m, 5, d),
            null_mut(),
        )
    });
    check("spblkSpSV_solve", &ptrs, &enums, |m, b| {
        spblkSpSV_solve(
            n(m, 0, h),
            e(b, 10, 0),
            nc(m, 1, one()),
            nc(m, 2, sa),
            nc(m, 3, vx),
            n(m, 4, vy),
            e(b, 11, SPBLK_R_32F),
            e(b, 12, 0),
            n(m, 5, d),
        )
    });
    let values = fx.a.values.ptr();
    check(
        "spblkSpSV_updateMatrix",
        &[(0, NI, "handle"), (1, IV, "spsvDescr"), (2, IV, "newValues")],
        &[(10, "updatePart")],
        |m, b| spblkSpSV_updateMatrix(n(m, 0, h), n(m, 1, d), n(m, 2, values), e(b, 10, 0)),
    );
    assert_eq!(spblkSpSV_destroyDescr(d), OK);
    assert_eq!(spblkSpSV_destroyDescr(d), NI);
    assert_eq!(spblkSpSV_destroyDescr(null_mut()), OK);
    drop_fixture(&mut fx);
}

#[test]
fn spsm_functions() {
    use spblk::capi::spsm::*;
    let mut fx = fixture();
    let (h, sa, db, dc) = (fx.h, fx.sa, fx.db, fx.dc);
    let mut d: spblkSpSMDescr_t = 0x31 as _;
    check("spblkSpSM_createDescr", &[(0, IV, "descr")], &[], |m, _| spblkSpSM_createDescr(n(m, 0, &mut d)));
    let ptrs =
        [(0, NI, "handle"), (1, IV, "alpha"), (2, IV, "matA"), (3, IV, "matB"), (4, IV, "matC"), (5, IV, "spsmDescr")];
    let enums = [(10, "opA"), (11, "opB"), (12, "computeType"), (13, "alg")];
    let call = |m: u64, b: Option<u32>, size: Option<&mut usize>, which: u8| {
        let (op_a, op_b, ct, alg) = (e(b, 10, 0), e(b, 11, 0), e(b, 12, SPBLK_R_32F), e(b, 13, 0));
        let (alpha, a, mb, mc, dd) = (nc(m, 1, one()), nc(m, 2, sa), nc(m, 3, db), n(m, 4, dc), n(m, 5, d));
        let hh = n(m, 0, h);
        match which {
            0 => spblkSpSM_bufferSize(
                hh,
                op_a,
                op_b,
                alpha,
                a,
                mb,
                mc,
                ct,
                alg,
                dd,
                size.map_or(null_mut(), |s| n(m, 6, s as *mut usize)),
            ),
            1 => spblkSpSM_analysis(hh, op_a, op_b, alpha, a, mb, mc, ct, alg, dd, null_mut()),
            _ => spblkSpSM_solve(hh, op_a, op_b, alpha, a, mb, mc, ct, alg, dd),
        }
    };
    let mut size = 0usize;
    let mut with_size = ptrs.to_vec();
    with_size.push((6, IV, "bufferSize"));
    check("spblkSpSM_bufferSize", &with_size, &enums, |m, b| {
        let st = call(m, b, Some(&mut size), 0);
        assert!(st == OK || size == 0, "bufferSize written on failure");
        st
    });
    // The host backend keeps its analysis in the descriptor: no buffer is needed.
    assert_eq!(size, 0);
    // Solve and update before the analysis: the descriptor has none.
    assert_eq!(spblkSpSM_solve(h, 0, 0, one(), sa, db, dc, SPBLK_R_32F, 0, d), IV);
    assert!(last_error().contains("spblkSpSM_analysis"), "{}", last_error());
    check("spblkSpSM_analysis", &ptrs, &enums, |m, b| call(m, b, None, 1));
    check("spblkSpSM_solve", &ptrs, &enums, |m, b| call(m, b, None, 2));
    let values = fx.a.values.ptr();
    check(
        "spblkSpSM_updateMatrix",
        &[(0, NI, "handle"), (1, IV, "spsmDescr"), (2, IV, "newValues")],
        &[(10, "updatePart")],
        |m, b| spblkSpSM_updateMatrix(n(m, 0, h), n(m, 1, d), n(m, 2, values), e(b, 10, 0)),
    );
    assert_eq!(spblkSpSM_destroyDescr(d), OK);
    assert_eq!(spblkSpSM_destroyDescr(d), NI);
    assert_eq!(spblkSpSM_destroyDescr(null_mut()), OK);
    drop_fixture(&mut fx);
}

/// The incomplete factorizations on [[4, 1], [1, 4]] (every diagonal present, so zeroPivot
/// answers success), f32 then f64.
#[test]
fn factor_functions() {
    use spblk::capi::factor::*;
    use spblk::capi::mat_descr::{spblkCreateMatDescr, spblkDestroyMatDescr};
    let h = host_handle();
    let mut descr = null_mut();
    assert_eq!(spblkCreateMatDescr(&mut descr), OK);
    let (ptr, col) = ([0i32, 2, 4], [0i32, 1, 0, 1]);
    let (mut vs, mut vd) = ([4f32, 1.0, 1.0, 4.0], [4f64, 1.0, 1.0, 4.0]);
    let (p, c) = (ptr.as_ptr(), col.as_ptr());
    let (mut ic, mut ilu): (spblkCsric02Info_t, spblkCsrilu02Info_t) = (0x31 as _, 0x31 as _);
    check("spblkCreateCsric02Info", &[(0, IV, "info")], &[], |m, _| spblkCreateCsric02Info(n(m, 0, &mut ic)));
    check("spblkCreateCsrilu02Info", &[(0, IV, "info")], &[], |m, _| spblkCreateCsrilu02Info(n(m, 0, &mut ilu)));
    let ptrs = [
        (0, NI, "handle"),
        (1, IV, "descrA"),
        (2, IV, "csrSortedValA"),
        (3, IV, "csrSortedRowPtrA"),
        (4, IV, "csrSortedColIndA"),
        (5, IV, "info"),
    ];
    let mut with_size = ptrs.to_vec();
    with_size.push((6, IV, "pBufferSizeInBytes"));
    let policy = [(10, "policy")];
    let mut size: i32;
    let (fs, fd) = (vs.as_mut_ptr(), vd.as_mut_ptr());
    macro_rules! rows {
        ($info:ident, $size:ident, $analysis:ident, $factor:ident, $val:ident, $name:literal) => {
            size = -1;
            check(concat!("spblk", $name, "_bufferSize"), &with_size, &[], |m, _| {
                let st = $size(
                    n(m, 0, h),
                    2,
                    4,
                    n(m, 1, descr),
                    n(m, 2, $val),
                    nc(m, 3, p),
                    nc(m, 4, c),
                    n(m, 5, $info),
                    n(m, 6, &mut size),
                );
                assert!(st == OK || size == -1, "bufferSize written on failure");
                st
            });
            assert_eq!(size, 0, "the host keeps the analysis in the info object");
            check(concat!("spblk", $name, "_analysis"), &ptrs, &policy, |m, b| {
                $analysis(
                    n(m, 0, h),
                    2,
                    4,
                    n(m, 1, descr),
                    nc(m, 2, $val),
                    nc(m, 3, p),
                    nc(m, 4, c),
                    n(m, 5, $info),
                    e(b, 10, 0),
                    null_mut(),
                )
            });
            check(concat!("spblk", $name), &ptrs, &policy, |m, b| {
                $factor(
                    n(m, 0, h),
                    2,
                    4,
                    n(m, 1, descr),
                    n(m, 2, $val),
                    nc(m, 3, p),
                    nc(m, 4, c),
                    n(m, 5, $info),
                    e(b, 10, 0),
                    null_mut(),
                )
            });
        };
    }
    rows!(ic, spblkScsric02_bufferSize, spblkScsric02_analysis, spblkScsric02, fs, "Scsric02");
    rows!(ilu, spblkScsrilu02_bufferSize, spblkScsrilu02_analysis, spblkScsrilu02, fs, "Scsrilu02");
    rows!(ic, spblkDcsric02_bufferSize, spblkDcsric02_analysis, spblkDcsric02, fd, "Dcsric02");
    rows!(ilu, spblkDcsrilu02_bufferSize, spblkDcsrilu02_analysis, spblkDcsrilu02, fd, "Dcsrilu02");
    let mut pos = -7;
    let pivot_ptrs = [(0, NI, "handle"), (1, IV, "info"), (2, IV, "position")];
    check("spblkXcsric02_zeroPivot", &pivot_ptrs, &[], |m, _| {
        let st = spblkXcsric02_zeroPivot(n(m, 0, h), n(m, 1, ic), n(m, 2, &mut pos));
        assert!(st == OK || pos == -7, "position written on failure");
        st
    });
    assert_eq!(pos, -1);
    pos = -7;
    check("spblkXcsrilu02_zeroPivot", &pivot_ptrs, &[], |m, _| {
        let st = spblkXcsrilu02_zeroPivot(n(m, 0, h), n(m, 1, ilu), n(m, 2, &mut pos));
        assert!(st == OK || pos == -7, "position written on failure");
        st
    });
    assert_eq!(pos, -1);
    let (mut tol, mut bs, mut bd) = (1e-8f64, 1f32, 1f64);
    let boost_ptrs = [(0, NI, "handle"), (1, IV, "info"), (2, IV, "tol"), (3, IV, "boost_val")];
    check("spblkScsrilu02_numericBoost", &boost_ptrs, &[], |m, _| {
        spblkScsrilu02_numericBoost(n(m, 0, h), n(m, 1, ilu), 1, n(m, 2, &mut tol), n(m, 3, &mut bs))
    });
    check("spblkDcsrilu02_numericBoost", &boost_ptrs, &[], |m, _| {
        spblkDcsrilu02_numericBoost(n(m, 0, h), n(m, 1, ilu), 1, n(m, 2, &mut tol), n(m, 3, &mut bd))
    });
    assert_eq!(spblkDestroyCsric02Info(ic), OK);
    assert_eq!(spblkDestroyCsric02Info(ic), NI);
    assert_eq!(spblkDestroyCsrilu02Info(ilu), OK);
    assert_eq!(spblkDestroyCsrilu02Info(ilu), NI);
    assert_eq!(spblkDestroyCsric02Info(null_mut()), OK);
    assert_eq!(spblkDestroyMatDescr(descr), OK);
    assert_eq!(spblkDestroy(h), OK);
}
