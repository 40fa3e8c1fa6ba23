//! The legacy BSR products: `spblk{S,D}bsrmv` (`y = alpha A x + beta y`) and
//! `spblk{S,D}bsrmm` (`C = alpha A op(B) + beta C`, B and C column-major). A has `mb` x `nb`
//! (or `kb`) blocks of `blockDim` x `blockDim` values, each stored row by row
//! (`SPBLK_DIRECTION_ROW`) or column by column; only op(A) = A, as in cuSPARSE. alpha and beta
//! follow the handle's pointer mode; beta = 0 never reads y or C.

use super::boundary::{self, entry};
use super::mat_descr::mat_descr;
use super::types::*;
use crate::error::Result;
use crate::ops::bsr::{bsrmm_args, bsrmv_args, BsrInput, DenseOperands};
use crate::types::DataType;

/// A's C arguments: dirA, transA, mb, nb, nnzb, descrA, values, row offsets, columns, block.
type Bsr<V> =
    (spblkDirection_t, spblkOperation_t, i32, i32, i32, spblkMatDescr_t, *const V, *const i32, *const i32, i32);

/// # Safety
/// `descr` is registry-checked here; the pointers are only carried.
unsafe fn input<V>(a: Bsr<V>) -> Result<BsrInput> {
    let (dir, trans, mb, kb, nnzb, d, values, offsets, columns, block) = a;
    // SAFETY: registry-checked.
    let descr = unsafe { mat_descr(d)? } as *const _;
    Ok(BsrInput { dir, trans, mb, kb, nnzb, descr, values: values.cast(), offsets, columns, block })
}

fn mv<V>(
    handle: spblkHandle_t,
    a: Bsr<V>,
    scalars: (*const V, *const V),
    x: *const V,
    y: *mut V,
    t: DataType,
) -> Result<()> {
    // SAFETY (lookups): registry-checked.
    let h = unsafe { boundary::handle(handle)? };
    let a = unsafe { input(a)? };
    // SAFETY: the descriptor was just checked.
    let args = unsafe { bsrmv_args(h.pointer_mode, &a, (scalars.0.cast(), scalars.1.cast()), x.cast(), y.cast(), t)? };
    h.backend.bsr_product(&h.exec(), &args)
}

fn mm<V>(handle: spblkHandle_t, a: Bsr<V>, scalars: (*const V, *const V), d: DenseOperands, t: DataType) -> Result<()> {
    // SAFETY (lookups): registry-checked.
    let h = unsafe { boundary::handle(handle)? };
    let a = unsafe { input(a)? };
    // SAFETY: the descriptor was just checked.
    let args = unsafe { bsrmm_args(h.pointer_mode, &a, (scalars.0.cast(), scalars.1.cast()), &d, t)? };
    h.backend.bsr_product(&h.exec(), &args)
}

/// `y = alpha A x + beta y`, A in BSR with 32-bit indices (single precision).
#[no_mangle]
pub extern "C" fn spblkSbsrmv(
    handle: spblkHandle_t,
    dirA: spblkDirection_t,
    transA: spblkOperation_t,
    mb: i32,
    nb: i32,
    nnzb: i32,
    alpha: *const f32,
    descrA: spblkMatDescr_t,
    bsrSortedValA: *const f32,
    bsrSortedRowPtrA: *const i32,
    bsrSortedColIndA: *const i32,
    blockDim: i32,
    x: *const f32,
    beta: *const f32,
    y: *mut f32,
) -> spblkStatus_t {
    entry("spblkSbsrmv", || {
        let a = (dirA, transA, mb, nb, nnzb, descrA, bsrSortedValA, bsrSortedRowPtrA, bsrSortedColIndA, blockDim);
        mv(handle, a, (alpha, beta), x, y, DataType::F32)
    })
}

/// `y = alpha A x + beta y` in double precision (as `spblkSbsrmv`).
#[no_mangle]
pub extern "C" fn spblkDbsrmv(
    handle: spblkHandle_t,
    dirA: spblkDirection_t,
    transA: spblkOperation_t,
    mb: i32,
    nb: i32,
    nnzb: i32,
    alpha: *const f64,
    descrA: spblkMatDescr_t,
    bsrSortedValA: *const f64,
    bsrSortedRowPtrA: *const i32,
    bsrSortedColIndA: *const i32,
    blockDim: i32,
    x: *const f64,
    beta: *const f64,
    y: *mut f64,
) -> spblkStatus_t {
    entry("spblkDbsrmv", || {
        let a = (dirA, transA, mb, nb, nnzb, descrA, bsrSortedValA, bsrSortedRowPtrA, bsrSortedColIndA, blockDim);
        mv(handle, a, (alpha, beta), x, y, DataType::F64)
    })
}

/// `C = alpha A op(B) + beta C`, A in BSR (mb x kb blocks), op(B) (kb blockSize) x n and C
/// (mb blockSize) x n column-major with leading dimensions ldb and ldc (single precision).
#[no_mangle]
pub extern "C" fn spblkSbsrmm(
    handle: spblkHandle_t,
    dirA: spblkDirection_t,
    transA: spblkOperation_t,
    transB: spblkOperation_t,
    mb: i32,
    n: i32,
    kb: i32,
    nnzb: i32,
    alpha: *const f32,
    descrA: spblkMatDescr_t,
    bsrSortedValA: *const f32,
    bsrSortedRowPtrA: *const i32,
    bsrSortedColIndA: *const i32,
    blockSize: i32,
    B: *const f32,
    ldb: i32,
    beta: *const f32,
    C: *mut f32,
    ldc: i32,
) -> spblkStatus_t {
    entry("spblkSbsrmm", || {
        let a = (dirA, transA, mb, kb, nnzb, descrA, bsrSortedValA, bsrSortedRowPtrA, bsrSortedColIndA, blockSize);
        let d = DenseOperands { trans_b: transB, n, b: B.cast(), ldb, c: C.cast(), ldc };
        mm(handle, a, (alpha, beta), d, DataType::F32)
    })
}

/// `C = alpha A op(B) + beta C` in double precision (as `spblkSbsrmm`).
#[no_mangle]
pub extern "C" fn spblkDbsrmm(
    handle: spblkHandle_t,
    dirA: spblkDirection_t,
    transA: spblkOperation_t,
    transB: spblkOperation_t,
    mb: i32,
    n: i32,
    kb: i32,
    nnzb: i32,
    alpha: *const f64,
    descrA: spblkMatDescr_t,
    bsrSortedValA: *const f64,
    bsrSortedRowPtrA: *const i32,
    bsrSortedColIndA: *const i32,
    blockSize: i32,
    B: *const f64,
    ldb: i32,
    beta: *const f64,
    C: *mut f64,
    ldc: i32,
) -> spblkStatus_t {
    entry("spblkDbsrmm", || {
        let a = (dirA, transA, mb, kb, nnzb, descrA, bsrSortedValA, bsrSortedRowPtrA, bsrSortedColIndA, blockSize);
        let d = DenseOperands { trans_b: transB, n, b: B.cast(), ldb, c: C.cast(), ldc };
        mm(handle, a, (alpha, beta), d, DataType::F64)
    })
}
