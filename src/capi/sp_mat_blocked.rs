//! Descriptors of the blocked formats: BSR (`spblkCreate[Const]Bsr`), Blocked-ELL
//! (`spblkCreate[Const]BlockedEll`, `spblk[Const]BlockedEllGet`) and Sliced-ELL
//! (`spblkCreate[Const]SlicedEll`), with cuSPARSE 12.6.3's limits as measured on the GPU
//! machine (docs/drop-in.md, session 18): square BSR blocks and one index type, Blocked-ELL
//! rows and ELL columns multiples of the block, Sliced-ELL nnz within its value slots.
//! `spblkSpMatGetSize` reports rows and columns in elements and nnz as the entries stored:
//! bnnz·block² for BSR, rows·ellCols for Blocked-ELL (NVIDIA answers rows·cols·block there),
//! the given nnz for Sliced-ELL.

use std::ffi::c_void;

use super::boundary::{entry, out, write};
use super::sp_mat::{register, sp_mat_ref};
use super::types::*;
use crate::descr::{SpMat, SparsePattern};
use crate::ensure;
use crate::error::{Error, Result};
use crate::types::{DataType, DiagType, FillMode, IndexBase, IndexType, Order};

fn non_negative(v: i64, arg: &str) -> Result<i64> {
    ensure!(v >= 0, arg, "must be >= 0 (got {v})");
    Ok(v)
}

fn product(a: i64, b: i64, what: &str) -> Result<i64> {
    a.checked_mul(b).ok_or_else(|| Error::invalid(what, format!("gives {a} x {b} elements, more than 2^63")))
}

/// The parts of a descriptor every blocked format shares.
struct Common {
    rows: i64,
    cols: i64,
    nnz: i64,
    values: *mut c_void,
    offsets_type: IndexType,
    indices_type: IndexType,
    base: spblkIndexBase_t,
    value_type: spblkDataType_t,
}

fn finish(descr: *mut spblkSpMatDescr_t, pattern: SparsePattern, c: Common) -> Result<()> {
    let m = SpMat {
        rows: c.rows,
        cols: c.cols,
        nnz: c.nnz,
        pattern,
        values: c.values,
        offsets_type: c.offsets_type,
        indices_type: c.indices_type,
        base: IndexBase::decode(c.base, "idxBase")?,
        value_type: DataType::decode(c.value_type, "valueType")?,
        fill_mode: FillMode::Lower,
        diag_type: DiagType::NonUnit,
        batch: Default::default(),
        plans: Default::default(),
    };
    m.validate_shape()?;
    register(descr, m)
}

/// The BSR arguments after the output pointer.
struct BsrArgs {
    brows: i64,
    bcols: i64,
    bnnz: i64,
    row_block: i64,
    col_block: i64,
    offsets: *mut c_void,
    columns: *mut c_void,
    values: *mut c_void,
    offsets_type: spblkIndexType_t,
    columns_type: spblkIndexType_t,
    base: spblkIndexBase_t,
    value_type: spblkDataType_t,
    order: spblkOrder_t,
}

fn create_bsr(descr: *mut spblkSpMatDescr_t, a: BsrArgs) -> Result<()> {
    out(descr, "spMatDescr")?;
    let (brows, bcols, bnnz) =
        (non_negative(a.brows, "brows")?, non_negative(a.bcols, "bcols")?, non_negative(a.bnnz, "bnnz")?);
    ensure!(a.row_block >= 1, "rowBlockSize", "must be >= 1 (got {})", a.row_block);
    ensure!(a.col_block >= 1, "colBlockSize", "must be >= 1 (got {})", a.col_block);
    if a.row_block != a.col_block {
        return Err(Error::not_supported(format!(
            "argument 'colBlockSize': BSR blocks must be square ({} x {} given), as in cuSPARSE",
            a.row_block, a.col_block
        )));
    }
    let block = a.row_block;
    ensure!(
        bnnz as i128 <= brows as i128 * bcols as i128,
        "bnnz",
        "({bnnz}) exceeds brows * bcols ({brows} x {bcols})"
    );
    let offsets_type = IndexType::decode(a.offsets_type, "bsrRowOffsetsType")?;
    let indices_type = IndexType::decode(a.columns_type, "bsrColIndType")?;
    if offsets_type != indices_type {
        return Err(Error::not_supported(format!(
            "argument 'bsrColIndType': BSR takes one index type for offsets and columns ({offsets_type:?} and \
             {indices_type:?} given), as in cuSPARSE"
        )));
    }
    let order = Order::decode(a.order, "order")?;
    ensure!(!a.offsets.is_null() || brows == 0, "bsrRowOffsets", "is NULL with brows = {brows}");
    ensure!(!a.columns.is_null() || bnnz == 0, "bsrColInd", "is NULL with bnnz = {bnnz}");
    ensure!(!a.values.is_null() || bnnz == 0, "bsrValues", "is NULL with bnnz = {bnnz}");
    let square = product(block, block, "rowBlockSize")?;
    let common = Common {
        rows: product(brows, block, "brows")?,
        cols: product(bcols, block, "bcols")?,
        nnz: product(bnnz, square, "bnnz")?,
        values: a.values,
        offsets_type,
        indices_type,
        base: a.base,
        value_type: a.value_type,
    };
    let pattern = SparsePattern::Bsr { row_offsets: a.offsets, col_ind: a.columns, block, order };
    finish(descr, pattern, common)
}

/// Creates a BSR descriptor: `brows` x `bcols` blocks of `rowBlockSize` x `colBlockSize`
/// values (square, as cuSPARSE requires), `bnnz` of them; `bsrRowOffsets` has brows + 1
/// entries, `bsrColInd` bnnz, `bsrValues` bnnz blocks, each row- or column-major (`order`).
#[no_mangle]
pub extern "C" fn spblkCreateBsr(
    spMatDescr: *mut spblkSpMatDescr_t,
    brows: i64,
    bcols: i64,
    bnnz: i64,
    rowBlockSize: i64,
    colBlockSize: i64,
    bsrRowOffsets: *mut c_void,
    bsrColInd: *mut c_void,
    bsrValues: *mut c_void,
    bsrRowOffsetsType: spblkIndexType_t,
    bsrColIndType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
    order: spblkOrder_t,
) -> spblkStatus_t {
    entry("spblkCreateBsr", || {
        let args = BsrArgs {
            brows,
            bcols,
            bnnz,
            row_block: rowBlockSize,
            col_block: colBlockSize,
            offsets: bsrRowOffsets,
            columns: bsrColInd,
            values: bsrValues,
            offsets_type: bsrRowOffsetsType,
            columns_type: bsrColIndType,
            base: idxBase,
            value_type: valueType,
            order,
        };
        create_bsr(spMatDescr, args)
    })
}

/// `spblkCreateBsr` for read-only data.
#[no_mangle]
pub extern "C" fn spblkCreateConstBsr(
    spMatDescr: *mut spblkConstSpMatDescr_t,
    brows: i64,
    bcols: i64,
    bnnz: i64,
    rowBlockDim: i64,
    colBlockDim: i64,
    bsrRowOffsets: *const c_void,
    bsrColInd: *const c_void,
    bsrValues: *const c_void,
    bsrRowOffsetsType: spblkIndexType_t,
    bsrColIndType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
    order: spblkOrder_t,
) -> spblkStatus_t {
    entry("spblkCreateConstBsr", || {
        let args = BsrArgs {
            brows,
            bcols,
            bnnz,
            row_block: rowBlockDim,
            col_block: colBlockDim,
            offsets: bsrRowOffsets as *mut c_void,
            columns: bsrColInd as *mut c_void,
            values: bsrValues as *mut c_void,
            offsets_type: bsrRowOffsetsType,
            columns_type: bsrColIndType,
            base: idxBase,
            value_type: valueType,
            order,
        };
        create_bsr(spMatDescr as *mut spblkSpMatDescr_t, args)
    })
}

#[allow(clippy::too_many_arguments)]
fn create_blocked_ell(
    descr: *mut spblkSpMatDescr_t,
    (rows, cols, block, ell_cols): (i64, i64, i64, i64),
    col_ind: *mut c_void,
    values: *mut c_void,
    index_type: spblkIndexType_t,
    base: spblkIndexBase_t,
    value_type: spblkDataType_t,
) -> Result<()> {
    out(descr, "spMatDescr")?;
    let (rows, cols) = (non_negative(rows, "rows")?, non_negative(cols, "cols")?);
    ensure!(block >= 1, "ellBlockSize", "must be >= 1 (got {block})");
    let ell_cols = non_negative(ell_cols, "ellCols")?;
    ensure!(rows % block == 0, "rows", "({rows}) is not a multiple of ellBlockSize ({block})");
    ensure!(ell_cols % block == 0, "ellCols", "({ell_cols}) is not a multiple of ellBlockSize ({block})");
    ensure!(ell_cols <= cols, "ellCols", "({ell_cols}) exceeds cols ({cols})");
    let nnz = product(rows, ell_cols, "ellCols")?;
    ensure!(!col_ind.is_null() || nnz == 0, "ellColInd", "is NULL with rows * ellCols = {nnz}");
    ensure!(!values.is_null() || nnz == 0, "ellValue", "is NULL with rows * ellCols = {nnz}");
    let index_type = IndexType::decode(index_type, "ellIdxType")?;
    let common =
        Common { rows, cols, nnz, values, offsets_type: index_type, indices_type: index_type, base, value_type };
    finish(descr, SparsePattern::BlockedEll { col_ind, block, ell_cols }, common)
}

/// Creates a Blocked-ELL descriptor: `rows` x `cols`, each `ellBlockSize`-row block row holding
/// `ellCols / ellBlockSize` blocks; `ellColInd` their block columns (-1: none), `ellValue` the
/// `rows` x `ellCols` values row-major.
#[no_mangle]
pub extern "C" fn spblkCreateBlockedEll(
    spMatDescr: *mut spblkSpMatDescr_t,
    rows: i64,
    cols: i64,
    ellBlockSize: i64,
    ellCols: i64,
    ellColInd: *mut c_void,
    ellValue: *mut c_void,
    ellIdxType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateBlockedEll", || {
        let shape = (rows, cols, ellBlockSize, ellCols);
        create_blocked_ell(spMatDescr, shape, ellColInd, ellValue, ellIdxType, idxBase, valueType)
    })
}

/// `spblkCreateBlockedEll` for read-only data.
#[no_mangle]
pub extern "C" fn spblkCreateConstBlockedEll(
    spMatDescr: *mut spblkConstSpMatDescr_t,
    rows: i64,
    cols: i64,
    ellBlockSize: i64,
    ellCols: i64,
    ellColInd: *const c_void,
    ellValue: *const c_void,
    ellIdxType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateConstBlockedEll", || {
        let shape = (rows, cols, ellBlockSize, ellCols);
        let (c, v) = (ellColInd as *mut c_void, ellValue as *mut c_void);
        create_blocked_ell(spMatDescr as *mut spblkSpMatDescr_t, shape, c, v, ellIdxType, idxBase, valueType)
    })
}

/// The Sliced-ELL arguments after the output pointer.
struct SellArgs {
    rows: i64,
    cols: i64,
    nnz: i64,
    values_size: i64,
    slice_size: i64,
    slice_offsets: *mut c_void,
    columns: *mut c_void,
    values: *mut c_void,
    offsets_type: spblkIndexType_t,
    columns_type: spblkIndexType_t,
    base: spblkIndexBase_t,
    value_type: spblkDataType_t,
}

fn create_sliced_ell(descr: *mut spblkSpMatDescr_t, a: SellArgs) -> Result<()> {
    out(descr, "spMatDescr")?;
    let (rows, cols, nnz) = (non_negative(a.rows, "rows")?, non_negative(a.cols, "cols")?, non_negative(a.nnz, "nnz")?);
    let values_size = non_negative(a.values_size, "sellValuesSize")?;
    ensure!(a.slice_size >= 1, "sliceSize", "must be >= 1 (got {})", a.slice_size);
    ensure!(nnz <= values_size, "nnz", "({nnz}) exceeds sellValuesSize ({values_size})");
    ensure!(!a.slice_offsets.is_null() || rows == 0, "sellSliceOffsets", "is NULL with rows = {rows}");
    ensure!(!a.columns.is_null() || values_size == 0, "sellColInd", "is NULL with sellValuesSize = {values_size}");
    ensure!(!a.values.is_null() || values_size == 0, "sellValues", "is NULL with sellValuesSize = {values_size}");
    let common = Common {
        rows,
        cols,
        nnz,
        values: a.values,
        offsets_type: IndexType::decode(a.offsets_type, "sellSliceOffsetsType")?,
        indices_type: IndexType::decode(a.columns_type, "sellColIndType")?,
        base: a.base,
        value_type: a.value_type,
    };
    let pattern = SparsePattern::SlicedEll {
        slice_offsets: a.slice_offsets,
        col_ind: a.columns,
        slice_size: a.slice_size,
        values_size,
    };
    finish(descr, pattern, common)
}

/// Creates a Sliced-ELL descriptor: slices of `sliceSize` rows, `sellSliceOffsets` (one per
/// slice, + 1) into the `sellValuesSize` slots of `sellColInd` and `sellValues`, each slice
/// column-major, padding slots with column -1; `nnz` counts the other slots.
#[no_mangle]
pub extern "C" fn spblkCreateSlicedEll(
    spMatDescr: *mut spblkSpMatDescr_t,
    rows: i64,
    cols: i64,
    nnz: i64,
    sellValuesSize: i64,
    sliceSize: i64,
    sellSliceOffsets: *mut c_void,
    sellColInd: *mut c_void,
    sellValues: *mut c_void,
    sellSliceOffsetsType: spblkIndexType_t,
    sellColIndType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateSlicedEll", || {
        let args = SellArgs {
            rows,
            cols,
            nnz,
            values_size: sellValuesSize,
            slice_size: sliceSize,
            slice_offsets: sellSliceOffsets,
            columns: sellColInd,
            values: sellValues,
            offsets_type: sellSliceOffsetsType,
            columns_type: sellColIndType,
            base: idxBase,
            value_type: valueType,
        };
        create_sliced_ell(spMatDescr, args)
    })
}

/// `spblkCreateSlicedEll` for read-only data.
#[no_mangle]
pub extern "C" fn spblkCreateConstSlicedEll(
    spMatDescr: *mut spblkConstSpMatDescr_t,
    rows: i64,
    cols: i64,
    nnz: i64,
    sellValuesSize: i64,
    sliceSize: i64,
    sellSliceOffsets: *const c_void,
    sellColInd: *const c_void,
    sellValues: *const c_void,
    sellSliceOffsetsType: spblkIndexType_t,
    sellColIndType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateConstSlicedEll", || {
        let args = SellArgs {
            rows,
            cols,
            nnz,
            values_size: sellValuesSize,
            slice_size: sliceSize,
            slice_offsets: sellSliceOffsets as *mut c_void,
            columns: sellColInd as *mut c_void,
            values: sellValues as *mut c_void,
            offsets_type: sellSliceOffsetsType,
            columns_type: sellColIndType,
            base: idxBase,
            value_type: valueType,
        };
        create_sliced_ell(spMatDescr as *mut spblkSpMatDescr_t, args)
    })
}

/// The out-parameters of `spblk[Const]BlockedEllGet`.
struct EllOuts {
    rows: *mut i64,
    cols: *mut i64,
    block: *mut i64,
    ell_cols: *mut i64,
    col_ind: *mut *mut c_void,
    values: *mut *mut c_void,
    index_type: *mut spblkIndexType_t,
    base: *mut spblkIndexBase_t,
    value_type: *mut spblkDataType_t,
}

fn blocked_ell_get(descr: spblkConstSpMatDescr_t, o: EllOuts) -> Result<()> {
    // SAFETY: registry-checked.
    let m = unsafe { sp_mat_ref(descr, "spMatDescr")? };
    let SparsePattern::BlockedEll { col_ind, block, ell_cols } = m.pattern else {
        return Err(Error::invalid("spMatDescr", format!("is {}, not Blocked-ELL", m.format().name())));
    };
    out(o.rows, "rows")?;
    out(o.cols, "cols")?;
    out(o.block, "ellBlockSize")?;
    out(o.ell_cols, "ellCols")?;
    out(o.col_ind, "ellColInd")?;
    out(o.values, "ellValue")?;
    out(o.index_type, "ellIdxType")?;
    out(o.base, "idxBase")?;
    out(o.value_type, "valueType")?;
    // SAFETY: all checked non-NULL.
    unsafe {
        write(o.rows, m.rows);
        write(o.cols, m.cols);
        write(o.block, block);
        write(o.ell_cols, ell_cols);
        write(o.col_ind, col_ind);
        write(o.values, m.values);
        write(o.index_type, m.indices_type.to_c());
        write(o.base, m.base.to_c());
        write(o.value_type, m.value_type.to_c());
    }
    Ok(())
}

/// Reads everything a Blocked-ELL descriptor holds.
#[no_mangle]
pub extern "C" fn spblkBlockedEllGet(
    spMatDescr: spblkSpMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    ellBlockSize: *mut i64,
    ellCols: *mut i64,
    ellColInd: *mut *mut c_void,
    ellValue: *mut *mut c_void,
    ellIdxType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkBlockedEllGet", || {
        let o = EllOuts {
            rows,
            cols,
            block: ellBlockSize,
            ell_cols: ellCols,
            col_ind: ellColInd,
            values: ellValue,
            index_type: ellIdxType,
            base: idxBase,
            value_type: valueType,
        };
        blocked_ell_get(spMatDescr, o)
    })
}

/// `spblkBlockedEllGet` for a read-only descriptor.
#[no_mangle]
pub extern "C" fn spblkConstBlockedEllGet(
    spMatDescr: spblkConstSpMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    ellBlockSize: *mut i64,
    ellCols: *mut i64,
    ellColInd: *mut *const c_void,
    ellValue: *mut *const c_void,
    ellIdxType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkConstBlockedEllGet", || {
        let o = EllOuts {
            rows,
            cols,
            block: ellBlockSize,
            ell_cols: ellCols,
            col_ind: ellColInd as *mut *mut c_void,
            values: ellValue as *mut *mut c_void,
            index_type: ellIdxType,
            base: idxBase,
            value_type: valueType,
        };
        blocked_ell_get(spMatDescr, o)
    })
}
