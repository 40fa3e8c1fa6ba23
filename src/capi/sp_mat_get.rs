//! Reading sparse-matrix descriptors back: `spblkCsrGet`, `spblkCscGet`, `spblkCooGet` and
//! their `Const` twins (the same body; the twins hand out `const void*` arrays).

use std::ffi::c_void;

use super::boundary::{entry, out, write};
use super::sp_mat::sp_mat;
use super::types::*;
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::types::Format;

/// The out-parameters of `spblkCsrGet`/`spblkCscGet` (`spblkCooGet` has one index type).
struct Outs {
    rows: *mut i64,
    cols: *mut i64,
    nnz: *mut i64,
    arrays: [*mut *mut c_void; 3],
    index_types: [*mut spblkIndexType_t; 2],
    idx_base: *mut spblkIndexBase_t,
    value_type: *mut spblkDataType_t,
}

/// Checks every out-parameter of a `*Get` call on a descriptor of `format`, then writes
/// them all. `names` are the three arrays' and the two index types' parameter names (COO:
/// the index type twice, written once).
fn get(descr: spblkConstSpMatDescr_t, format: Format, o: Outs, names: [&str; 5]) -> Result<()> {
    // SAFETY: registry-checked.
    let m: &SpMat = unsafe { sp_mat(descr, "spMatDescr")? };
    if m.format() != format {
        return Err(Error::invalid("spMatDescr", format!("is {}, not {}", m.format().name(), format.name())));
    }
    let (first, second) = match m.pattern {
        SparsePattern::Csr { row_offsets, col_ind } => (row_offsets, col_ind),
        SparsePattern::Csc { col_offsets, row_ind } => (col_offsets, row_ind),
        SparsePattern::Coo { row_ind, col_ind } => (row_ind, col_ind),
        _ => return Err(Error::internal("the blocked formats have getters of their own")),
    };
    out(o.rows, "rows")?;
    out(o.cols, "cols")?;
    out(o.nnz, "nnz")?;
    for (p, name) in o.arrays.iter().zip(&names[..3]) {
        out(*p, name)?;
    }
    for (p, name) in o.index_types.iter().zip(&names[3..]) {
        out(*p, name)?;
    }
    out(o.idx_base, "idxBase")?;
    out(o.value_type, "valueType")?;
    // SAFETY: all checked non-NULL.
    unsafe {
        write(o.rows, m.rows);
        write(o.cols, m.cols);
        write(o.nnz, m.nnz);
        write(o.arrays[0], first);
        write(o.arrays[1], second);
        write(o.arrays[2], m.values);
        write(o.index_types[0], m.offsets_type.to_c());
        write(o.index_types[1], m.indices_type.to_c());
        write(o.idx_base, m.base.to_c());
        write(o.value_type, m.value_type.to_c());
    }
    Ok(())
}

const CSR_NAMES: [&str; 5] = ["csrRowOffsets", "csrColInd", "csrValues", "csrRowOffsetsType", "csrColIndType"];
const CSC_NAMES: [&str; 5] = ["cscColOffsets", "cscRowInd", "cscValues", "cscColOffsetsType", "cscRowIndType"];
const COO_NAMES: [&str; 5] = ["cooRowInd", "cooColInd", "cooValues", "idxType", "idxType"];

/// Reads everything a CSR descriptor holds.
#[no_mangle]
pub extern "C" fn spblkCsrGet(
    spMatDescr: spblkSpMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    nnz: *mut i64,
    csrRowOffsets: *mut *mut c_void,
    csrColInd: *mut *mut c_void,
    csrValues: *mut *mut c_void,
    csrRowOffsetsType: *mut spblkIndexType_t,
    csrColIndType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCsrGet", || {
        let arrays = [csrRowOffsets, csrColInd, csrValues];
        let index_types = [csrRowOffsetsType, csrColIndType];
        let o = Outs { rows, cols, nnz, arrays, index_types, idx_base: idxBase, value_type: valueType };
        get(spMatDescr, Format::Csr, o, CSR_NAMES)
    })
}

/// `spblkCsrGet` for a read-only descriptor.
#[no_mangle]
pub extern "C" fn spblkConstCsrGet(
    spMatDescr: spblkConstSpMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    nnz: *mut i64,
    csrRowOffsets: *mut *const c_void,
    csrColInd: *mut *const c_void,
    csrValues: *mut *const c_void,
    csrRowOffsetsType: *mut spblkIndexType_t,
    csrColIndType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkConstCsrGet", || {
        let arrays = [csrRowOffsets as _, csrColInd as _, csrValues as _];
        let index_types = [csrRowOffsetsType, csrColIndType];
        let o = Outs { rows, cols, nnz, arrays, index_types, idx_base: idxBase, value_type: valueType };
        get(spMatDescr, Format::Csr, o, CSR_NAMES)
    })
}

/// Reads everything a CSC descriptor holds.
#[no_mangle]
pub extern "C" fn spblkCscGet(
    spMatDescr: spblkSpMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    nnz: *mut i64,
    cscColOffsets: *mut *mut c_void,
    cscRowInd: *mut *mut c_void,
    cscValues: *mut *mut c_void,
    cscColOffsetsType: *mut spblkIndexType_t,
    cscRowIndType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCscGet", || {
        let arrays = [cscColOffsets, cscRowInd, cscValues];
        let index_types = [cscColOffsetsType, cscRowIndType];
        let o = Outs { rows, cols, nnz, arrays, index_types, idx_base: idxBase, value_type: valueType };
        get(spMatDescr, Format::Csc, o, CSC_NAMES)
    })
}

/// `spblkCscGet` for a read-only descriptor.
#[no_mangle]
pub extern "C" fn spblkConstCscGet(
    spMatDescr: spblkConstSpMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    nnz: *mut i64,
    cscColOffsets: *mut *const c_void,
    cscRowInd: *mut *const c_void,
    cscValues: *mut *const c_void,
    cscColOffsetsType: *mut spblkIndexType_t,
    cscRowIndType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkConstCscGet", || {
        let arrays = [cscColOffsets as _, cscRowInd as _, cscValues as _];
        let index_types = [cscColOffsetsType, cscRowIndType];
        let o = Outs { rows, cols, nnz, arrays, index_types, idx_base: idxBase, value_type: valueType };
        get(spMatDescr, Format::Csc, o, CSC_NAMES)
    })
}

/// Reads everything a COO descriptor holds.
#[no_mangle]
pub extern "C" fn spblkCooGet(
    spMatDescr: spblkSpMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    nnz: *mut i64,
    cooRowInd: *mut *mut c_void,
    cooColInd: *mut *mut c_void,
    cooValues: *mut *mut c_void,
    idxType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCooGet", || {
        let arrays = [cooRowInd, cooColInd, cooValues];
        let o = Outs { rows, cols, nnz, arrays, index_types: [idxType; 2], idx_base: idxBase, value_type: valueType };
        get(spMatDescr, Format::Coo, o, COO_NAMES)
    })
}

/// `spblkCooGet` for a read-only descriptor.
#[no_mangle]
pub extern "C" fn spblkConstCooGet(
    spMatDescr: spblkConstSpMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    nnz: *mut i64,
    cooRowInd: *mut *const c_void,
    cooColInd: *mut *const c_void,
    cooValues: *mut *const c_void,
    idxType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkConstCooGet", || {
        let arrays = [cooRowInd as _, cooColInd as _, cooValues as _];
        let o = Outs { rows, cols, nnz, arrays, index_types: [idxType; 2], idx_base: idxBase, value_type: valueType };
        get(spMatDescr, Format::Coo, o, COO_NAMES)
    })
}
