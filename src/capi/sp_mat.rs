//! Sparse-matrix descriptors: CSR, CSC and COO.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write, Kind};
use super::types::*;
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::types::{DataType, DiagType, FillMode, IndexBase, IndexType, SpMatAttribute};

/// # Safety
/// Registry-checked; see `boundary::descr`.
pub(crate) unsafe fn sp_mat<'a>(p: spblkConstSpMatDescr_t, arg: &str) -> Result<&'a mut SpMat> {
    // SAFETY: forwarded.
    unsafe { boundary::descr(p as *const c_void, Kind::SpMat, arg) }
}

/// # Safety
/// Registry-checked; see `boundary::descr_ref`.
pub(crate) unsafe fn sp_mat_ref<'a>(p: spblkConstSpMatDescr_t, arg: &str) -> Result<&'a SpMat> {
    // SAFETY: forwarded.
    unsafe { boundary::descr_ref(p as *const c_void, Kind::SpMat, arg) }
}

#[allow(clippy::too_many_arguments)]
fn create(
    descr: *mut spblkSpMatDescr_t,
    rows: i64,
    cols: i64,
    nnz: i64,
    pattern: SparsePattern,
    values: *mut c_void,
    offsets_type: (spblkIndexType_t, &str),
    indices_type: (spblkIndexType_t, &str),
    base: spblkIndexBase_t,
    value_type: spblkDataType_t,
) -> Result<()> {
    out(descr, "spMatDescr")?;
    let m = SpMat {
        rows,
        cols,
        nnz,
        pattern,
        values,
        offsets_type: IndexType::decode(offsets_type.0, offsets_type.1)?,
        indices_type: IndexType::decode(indices_type.0, indices_type.1)?,
        base: IndexBase::decode(base, "idxBase")?,
        value_type: DataType::decode(value_type, "valueType")?,
        fill_mode: FillMode::Lower,
        diag_type: DiagType::NonUnit,
        batch: Default::default(),
        plans: Default::default(),
    };
    m.validate_shape()?;
    if m.nnz > 0 {
        let (idx_name, idx, values_name) = match pattern {
            SparsePattern::Csr { col_ind, .. } => ("csrColInd", col_ind, "csrValues"),
            SparsePattern::Csc { row_ind, .. } => ("cscRowInd", row_ind, "cscValues"),
            SparsePattern::Coo { col_ind, .. } => ("cooColInd", col_ind, "cooValues"),
            _ => return Err(Error::internal("the blocked formats are created in sp_mat_blocked.rs")),
        };
        if idx.is_null() {
            return Err(Error::invalid(idx_name, format!("is NULL with nnz = {nnz}")));
        }
        if let SparsePattern::Coo { row_ind, .. } = pattern {
            if row_ind.is_null() {
                return Err(Error::invalid("cooRowInd", format!("is NULL with nnz = {nnz}")));
            }
        }
        if values.is_null() {
            return Err(Error::invalid(values_name, format!("is NULL with nnz = {nnz}")));
        }
    }
    register(descr, m)
}

/// Registers a checked descriptor and hands it to C (`descr` checked non-NULL by the caller).
pub(crate) fn register(descr: *mut spblkSpMatDescr_t, m: SpMat) -> Result<()> {
    let p = boundary::register(m, Kind::SpMat) as spblkSpMatDescr_t;
    // SAFETY: checked non-NULL by the caller.
    unsafe { write(descr, p) };
    Ok(())
}

/// Creates a CSR descriptor. It stores the pointers, copies nothing; offsets may be NULL
/// until set (e.g. the output of SpGEMM), column indices and values may be NULL when nnz = 0.
#[no_mangle]
pub extern "C" fn spblkCreateCsr(
    spMatDescr: *mut spblkSpMatDescr_t,
    rows: i64,
    cols: i64,
    nnz: i64,
    csrRowOffsets: *mut c_void,
    csrColInd: *mut c_void,
    csrValues: *mut c_void,
    csrRowOffsetsType: spblkIndexType_t,
    csrColIndType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateCsr", || {
        create(
            spMatDescr,
            rows,
            cols,
            nnz,
            SparsePattern::Csr { row_offsets: csrRowOffsets, col_ind: csrColInd },
            csrValues,
            (csrRowOffsetsType, "csrRowOffsetsType"),
            (csrColIndType, "csrColIndType"),
            idxBase,
            valueType,
        )
    })
}

/// `spblkCreateCsr` for read-only data.
#[no_mangle]
pub extern "C" fn spblkCreateConstCsr(
    spMatDescr: *mut spblkConstSpMatDescr_t,
    rows: i64,
    cols: i64,
    nnz: i64,
    csrRowOffsets: *const c_void,
    csrColInd: *const c_void,
    csrValues: *const c_void,
    csrRowOffsetsType: spblkIndexType_t,
    csrColIndType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateConstCsr", || {
        create(
            spMatDescr as *mut spblkSpMatDescr_t,
            rows,
            cols,
            nnz,
            SparsePattern::Csr { row_offsets: csrRowOffsets as *mut c_void, col_ind: csrColInd as *mut c_void },
            csrValues as *mut c_void,
            (csrRowOffsetsType, "csrRowOffsetsType"),
            (csrColIndType, "csrColIndType"),
            idxBase,
            valueType,
        )
    })
}

/// Creates a CSC descriptor.
#[no_mangle]
pub extern "C" fn spblkCreateCsc(
    spMatDescr: *mut spblkSpMatDescr_t,
    rows: i64,
    cols: i64,
    nnz: i64,
    cscColOffsets: *mut c_void,
    cscRowInd: *mut c_void,
    cscValues: *mut c_void,
    cscColOffsetsType: spblkIndexType_t,
    cscRowIndType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateCsc", || {
        create(
            spMatDescr,
            rows,
            cols,
            nnz,
            SparsePattern::Csc { col_offsets: cscColOffsets, row_ind: cscRowInd },
            cscValues,
            (cscColOffsetsType, "cscColOffsetsType"),
            (cscRowIndType, "cscRowIndType"),
            idxBase,
            valueType,
        )
    })
}

/// Creates a COO descriptor (row and column index arrays of nnz entries each).
#[no_mangle]
pub extern "C" fn spblkCreateCoo(
    spMatDescr: *mut spblkSpMatDescr_t,
    rows: i64,
    cols: i64,
    nnz: i64,
    cooRowInd: *mut c_void,
    cooColInd: *mut c_void,
    cooValues: *mut c_void,
    cooIdxType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateCoo", || {
        create(
            spMatDescr,
            rows,
            cols,
            nnz,
            SparsePattern::Coo { row_ind: cooRowInd, col_ind: cooColInd },
            cooValues,
            (cooIdxType, "cooIdxType"),
            (cooIdxType, "cooIdxType"),
            idxBase,
            valueType,
        )
    })
}

/// Destroys a sparse descriptor and frees its plans (analysis and preprocess results); NULL is a
/// no-op.
#[no_mangle]
pub extern "C" fn spblkDestroySpMat(spMatDescr: spblkConstSpMatDescr_t) -> spblkStatus_t {
    entry("spblkDestroySpMat", || {
        // SAFETY: registry-checked; C must not use the descriptor afterwards.
        unsafe { boundary::release::<SpMat>(spMatDescr as *const c_void, Kind::SpMat, "spMatDescr")? };
        Ok(())
    })
}

/// Reads rows, columns and nnz (nnz of a SpGEMM output is known after `spblkSpGEMM_compute`).
#[no_mangle]
pub extern "C" fn spblkSpMatGetSize(
    spMatDescr: spblkConstSpMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    nnz: *mut i64,
) -> spblkStatus_t {
    entry("spblkSpMatGetSize", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        out(rows, "rows")?;
        out(cols, "cols")?;
        out(nnz, "nnz")?;
        // SAFETY: all checked non-NULL.
        unsafe {
            write(rows, m.rows);
            write(cols, m.cols);
            write(nnz, m.nnz);
        }
        Ok(())
    })
}

/// Reads the storage format.
#[no_mangle]
pub extern "C" fn spblkSpMatGetFormat(spMatDescr: spblkConstSpMatDescr_t, format: *mut spblkFormat_t) -> spblkStatus_t {
    entry("spblkSpMatGetFormat", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        out(format, "format")?;
        // SAFETY: checked non-NULL.
        unsafe { write(format, m.format().to_c()) };
        Ok(())
    })
}

/// Reads the index base.
#[no_mangle]
pub extern "C" fn spblkSpMatGetIndexBase(
    spMatDescr: spblkConstSpMatDescr_t,
    idxBase: *mut spblkIndexBase_t,
) -> spblkStatus_t {
    entry("spblkSpMatGetIndexBase", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        out(idxBase, "idxBase")?;
        // SAFETY: checked non-NULL.
        unsafe { write(idxBase, m.base.to_c()) };
        Ok(())
    })
}

/// Reads the values pointer.
#[no_mangle]
pub extern "C" fn spblkSpMatGetValues(spMatDescr: spblkSpMatDescr_t, values: *mut *mut c_void) -> spblkStatus_t {
    entry("spblkSpMatGetValues", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        out(values, "values")?;
        // SAFETY: checked non-NULL.
        unsafe { write(values, m.values) };
        Ok(())
    })
}

/// Bytes of every `spblkSpMatAttribute_t`'s value (`spblkFillMode_t`, `spblkDiagType_t`).
const ATTRIBUTE_SIZE: usize = std::mem::size_of::<spblkFillMode_t>();

fn attribute_size(data_size: usize) -> Result<()> {
    if data_size != ATTRIBUTE_SIZE {
        return Err(Error::invalid(
            "dataSize",
            format!("is {data_size} but the attribute's value is {ATTRIBUTE_SIZE} bytes"),
        ));
    }
    Ok(())
}

/// Reads an attribute (fill mode or diagonal type) into `data`, `dataSize` bytes (4).
#[no_mangle]
pub extern "C" fn spblkSpMatGetAttribute(
    spMatDescr: spblkConstSpMatDescr_t,
    attribute: spblkSpMatAttribute_t,
    data: *mut c_void,
    dataSize: usize,
) -> spblkStatus_t {
    entry("spblkSpMatGetAttribute", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        let attribute = SpMatAttribute::decode(attribute, "attribute")?;
        out(data, "data")?;
        attribute_size(dataSize)?;
        let value = match attribute {
            SpMatAttribute::FillMode => m.fill_mode.to_c(),
            SpMatAttribute::DiagType => m.diag_type.to_c(),
        };
        // SAFETY: checked non-NULL; C gives dataSize = 4 bytes, possibly unaligned.
        unsafe { std::ptr::write_unaligned(data as *mut u32, value) };
        Ok(())
    })
}

/// Sets an attribute from `data`, `dataSize` bytes (4): `SPBLK_SPMAT_FILL_MODE` takes a
/// `spblkFillMode_t`, `SPBLK_SPMAT_DIAG_TYPE` a `spblkDiagType_t`. The descriptor's plans stay:
/// no plan depends on these.
#[no_mangle]
pub extern "C" fn spblkSpMatSetAttribute(
    spMatDescr: spblkSpMatDescr_t,
    attribute: spblkSpMatAttribute_t,
    data: *mut c_void,
    dataSize: usize,
) -> spblkStatus_t {
    entry("spblkSpMatSetAttribute", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        let attribute = SpMatAttribute::decode(attribute, "attribute")?;
        if data.is_null() {
            return Err(Error::invalid("data", "is NULL"));
        }
        attribute_size(dataSize)?;
        // SAFETY: checked non-NULL; C gives dataSize = 4 bytes, possibly unaligned.
        let value = unsafe { std::ptr::read_unaligned(data as *const u32) };
        match attribute {
            SpMatAttribute::FillMode => m.fill_mode = FillMode::decode(value, "data")?,
            SpMatAttribute::DiagType => m.diag_type = DiagType::decode(value, "data")?,
        }
        Ok(())
    })
}

/// Replaces the values pointer and drops the descriptor's plans (from `spblkAnalyze` and the
/// `*_preprocess` functions): the 1-SA plan holds copies of the old values, and a new
/// preprocess rebuilds the others. Values changed in place, through the same pointer, are
/// read by every call; only a 1-SA plan needs `spblkAnalyze` again then.
#[no_mangle]
pub extern "C" fn spblkSpMatSetValues(spMatDescr: spblkSpMatDescr_t, values: *mut c_void) -> spblkStatus_t {
    entry("spblkSpMatSetValues", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        if values.is_null() && m.nnz > 0 {
            return Err(Error::invalid("values", format!("is NULL with nnz = {}", m.nnz)));
        }
        m.values = values;
        m.drop_plans();
        Ok(())
    })
}

/// Replaces a CSR descriptor's arrays (after `spblkSpGEMM_compute`, for example). Any
/// plans of the old pattern are dropped.
#[no_mangle]
pub extern "C" fn spblkCsrSetPointers(
    spMatDescr: spblkSpMatDescr_t,
    csrRowOffsets: *mut c_void,
    csrColInd: *mut c_void,
    csrValues: *mut c_void,
) -> spblkStatus_t {
    entry("spblkCsrSetPointers", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        let pattern = SparsePattern::Csr { row_offsets: csrRowOffsets, col_ind: csrColInd };
        set_pointers(m, pattern, csrValues, ["csrRowOffsets", "csrColInd", "csrValues"])
    })
}

/// `spblkCreateCsc` for read-only data.
#[no_mangle]
pub extern "C" fn spblkCreateConstCsc(
    spMatDescr: *mut spblkConstSpMatDescr_t,
    rows: i64,
    cols: i64,
    nnz: i64,
    cscColOffsets: *const c_void,
    cscRowInd: *const c_void,
    cscValues: *const c_void,
    cscColOffsetsType: spblkIndexType_t,
    cscRowIndType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateConstCsc", || {
        create(
            spMatDescr as *mut spblkSpMatDescr_t,
            rows,
            cols,
            nnz,
            SparsePattern::Csc { col_offsets: cscColOffsets as *mut c_void, row_ind: cscRowInd as *mut c_void },
            cscValues as *mut c_void,
            (cscColOffsetsType, "cscColOffsetsType"),
            (cscRowIndType, "cscRowIndType"),
            idxBase,
            valueType,
        )
    })
}

/// `spblkCreateCoo` for read-only data.
#[no_mangle]
pub extern "C" fn spblkCreateConstCoo(
    spMatDescr: *mut spblkConstSpMatDescr_t,
    rows: i64,
    cols: i64,
    nnz: i64,
    cooRowInd: *const c_void,
    cooColInd: *const c_void,
    cooValues: *const c_void,
    cooIdxType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateConstCoo", || {
        create(
            spMatDescr as *mut spblkSpMatDescr_t,
            rows,
            cols,
            nnz,
            SparsePattern::Coo { row_ind: cooRowInd as *mut c_void, col_ind: cooColInd as *mut c_void },
            cooValues as *mut c_void,
            (cooIdxType, "cooIdxType"),
            (cooIdxType, "cooIdxType"),
            idxBase,
            valueType,
        )
    })
}

/// Reads the values pointer of a read-only descriptor.
#[no_mangle]
pub extern "C" fn spblkConstSpMatGetValues(
    spMatDescr: spblkConstSpMatDescr_t,
    values: *mut *const c_void,
) -> spblkStatus_t {
    entry("spblkConstSpMatGetValues", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        out(values, "values")?;
        // SAFETY: checked non-NULL.
        unsafe { write(values, m.values as *const c_void) };
        Ok(())
    })
}

/// Checks new arrays for a descriptor and installs them, dropping its plans.
fn set_pointers(m: &mut SpMat, pattern: SparsePattern, values: *mut c_void, names: [&str; 3]) -> Result<()> {
    let (first, second, first_needed) = match pattern {
        SparsePattern::Csr { row_offsets, col_ind } => (row_offsets, col_ind, m.rows > 0),
        SparsePattern::Csc { col_offsets, row_ind } => (col_offsets, row_ind, m.cols > 0),
        SparsePattern::Coo { row_ind, col_ind } => (row_ind, col_ind, m.nnz > 0),
        _ => return Err(Error::internal("the blocked formats have no *SetPointers")),
    };
    if std::mem::discriminant(&pattern) != std::mem::discriminant(&m.pattern) {
        return Err(Error::invalid("spMatDescr", format!("is {:?}, which these pointers do not fit", m.format())));
    }
    if first.is_null() && first_needed {
        return Err(Error::invalid(names[0], "is NULL"));
    }
    if m.nnz > 0 {
        if second.is_null() {
            return Err(Error::invalid(names[1], format!("is NULL with nnz = {}", m.nnz)));
        }
        if values.is_null() {
            return Err(Error::invalid(names[2], format!("is NULL with nnz = {}", m.nnz)));
        }
    }
    m.pattern = pattern;
    m.values = values;
    m.drop_plans();
    Ok(())
}

/// Replaces a CSC descriptor's arrays.
#[no_mangle]
pub extern "C" fn spblkCscSetPointers(
    spMatDescr: spblkSpMatDescr_t,
    cscColOffsets: *mut c_void,
    cscRowInd: *mut c_void,
    cscValues: *mut c_void,
) -> spblkStatus_t {
    entry("spblkCscSetPointers", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        let pattern = SparsePattern::Csc { col_offsets: cscColOffsets, row_ind: cscRowInd };
        set_pointers(m, pattern, cscValues, ["cscColOffsets", "cscRowInd", "cscValues"])
    })
}

/// Replaces a COO descriptor's arrays.
#[no_mangle]
pub extern "C" fn spblkCooSetPointers(
    spMatDescr: spblkSpMatDescr_t,
    cooRows: *mut c_void,
    cooColumns: *mut c_void,
    cooValues: *mut c_void,
) -> spblkStatus_t {
    entry("spblkCooSetPointers", || {
        // SAFETY: registry-checked.
        let m = unsafe { sp_mat(spMatDescr, "spMatDescr")? };
        let pattern = SparsePattern::Coo { row_ind: cooRows, col_ind: cooColumns };
        set_pointers(m, pattern, cooValues, ["cooRows", "cooColumns", "cooValues"])
    })
}
