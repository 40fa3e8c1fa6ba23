//! Sparse vector descriptors (`spblkSpVecDescr_t`).

use std::ffi::c_void;

use super::boundary::{self, entry, out, write, Kind};
use super::types::*;
use crate::descr::SpVec;
use crate::error::Result;
use crate::types::{DataType, IndexBase, IndexType};

/// # Safety
/// Registry-checked; see `boundary::descr`.
pub(crate) unsafe fn sp_vec<'a>(p: spblkConstSpVecDescr_t, arg: &str) -> Result<&'a mut SpVec> {
    // SAFETY: forwarded.
    unsafe { boundary::descr(p as *const c_void, Kind::SpVec, arg) }
}

/// # Safety
/// Registry-checked; see `boundary::descr_ref`.
pub(crate) unsafe fn sp_vec_ref<'a>(p: spblkConstSpVecDescr_t, arg: &str) -> Result<&'a SpVec> {
    // SAFETY: forwarded.
    unsafe { boundary::descr_ref(p as *const c_void, Kind::SpVec, arg) }
}

#[allow(clippy::too_many_arguments)]
fn create(
    descr: *mut spblkSpVecDescr_t,
    size: i64,
    nnz: i64,
    indices: *mut c_void,
    values: *mut c_void,
    idx_type: spblkIndexType_t,
    idx_base: spblkIndexBase_t,
    value_type: spblkDataType_t,
) -> Result<()> {
    out(descr, "spVecDescr")?;
    let v = SpVec {
        size,
        nnz,
        indices,
        values,
        index_type: IndexType::decode(idx_type, "idxType")?,
        base: IndexBase::decode(idx_base, "idxBase")?,
        value_type: DataType::decode(value_type, "valueType")?,
    };
    v.validate()?;
    let p = boundary::register(v, Kind::SpVec) as spblkSpVecDescr_t;
    // SAFETY: checked non-NULL.
    unsafe { write(descr, p) };
    Ok(())
}

/// Creates a sparse vector of `size` elements with `nnz` stored entries: `values[k]` at
/// position `indices[k]` (minus the index base). The arrays may be NULL only when nnz is 0.
#[no_mangle]
pub extern "C" fn spblkCreateSpVec(
    spVecDescr: *mut spblkSpVecDescr_t,
    size: i64,
    nnz: i64,
    indices: *mut c_void,
    values: *mut c_void,
    idxType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateSpVec", || create(spVecDescr, size, nnz, indices, values, idxType, idxBase, valueType))
}

/// `spblkCreateSpVec` for a vector that operations only read.
#[no_mangle]
pub extern "C" fn spblkCreateConstSpVec(
    spVecDescr: *mut spblkConstSpVecDescr_t,
    size: i64,
    nnz: i64,
    indices: *const c_void,
    values: *const c_void,
    idxType: spblkIndexType_t,
    idxBase: spblkIndexBase_t,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateConstSpVec", || {
        create(spVecDescr as _, size, nnz, indices as _, values as _, idxType, idxBase, valueType)
    })
}

/// Destroys a sparse vector descriptor; NULL is a no-op.
#[no_mangle]
pub extern "C" fn spblkDestroySpVec(spVecDescr: spblkConstSpVecDescr_t) -> spblkStatus_t {
    entry("spblkDestroySpVec", || {
        // SAFETY: registry-checked; C must not use it afterwards.
        unsafe { boundary::release::<SpVec>(spVecDescr as *const c_void, Kind::SpVec, "spVecDescr")? };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
fn get(
    descr: spblkConstSpVecDescr_t,
    size: *mut i64,
    nnz: *mut i64,
    indices: *mut *mut c_void,
    values: *mut *mut c_void,
    idx_type: *mut spblkIndexType_t,
    idx_base: *mut spblkIndexBase_t,
    value_type: *mut spblkDataType_t,
) -> Result<()> {
    // SAFETY: registry-checked.
    let v = unsafe { sp_vec_ref(descr, "spVecDescr")? };
    out(size, "size")?;
    out(nnz, "nnz")?;
    out(indices, "indices")?;
    out(values, "values")?;
    out(idx_type, "idxType")?;
    out(idx_base, "idxBase")?;
    out(value_type, "valueType")?;
    // SAFETY: all checked non-NULL.
    unsafe {
        write(size, v.size);
        write(nnz, v.nnz);
        write(indices, v.indices);
        write(values, v.values);
        write(idx_type, v.index_type.to_c());
        write(idx_base, v.base.to_c());
        write(value_type, v.value_type.to_c());
    }
    Ok(())
}

/// Reads everything a sparse vector descriptor holds.
#[no_mangle]
pub extern "C" fn spblkSpVecGet(
    spVecDescr: spblkSpVecDescr_t,
    size: *mut i64,
    nnz: *mut i64,
    indices: *mut *mut c_void,
    values: *mut *mut c_void,
    idxType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkSpVecGet", || get(spVecDescr, size, nnz, indices, values, idxType, idxBase, valueType))
}

/// `spblkSpVecGet` for a read-only descriptor.
#[no_mangle]
pub extern "C" fn spblkConstSpVecGet(
    spVecDescr: spblkConstSpVecDescr_t,
    size: *mut i64,
    nnz: *mut i64,
    indices: *mut *const c_void,
    values: *mut *const c_void,
    idxType: *mut spblkIndexType_t,
    idxBase: *mut spblkIndexBase_t,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkConstSpVecGet", || get(spVecDescr, size, nnz, indices as _, values as _, idxType, idxBase, valueType))
}

/// Reads the index base of a sparse vector.
#[no_mangle]
pub extern "C" fn spblkSpVecGetIndexBase(
    spVecDescr: spblkConstSpVecDescr_t,
    idxBase: *mut spblkIndexBase_t,
) -> spblkStatus_t {
    entry("spblkSpVecGetIndexBase", || {
        // SAFETY: registry-checked.
        let v = unsafe { sp_vec_ref(spVecDescr, "spVecDescr")? };
        out(idxBase, "idxBase")?;
        // SAFETY: checked non-NULL.
        unsafe { write(idxBase, v.base.to_c()) };
        Ok(())
    })
}

fn get_values(descr: spblkConstSpVecDescr_t, values: *mut *mut c_void) -> Result<()> {
    // SAFETY: registry-checked.
    let v = unsafe { sp_vec_ref(descr, "spVecDescr")? };
    out(values, "values")?;
    // SAFETY: checked non-NULL.
    unsafe { write(values, v.values) };
    Ok(())
}

/// Reads the values pointer of a sparse vector.
#[no_mangle]
pub extern "C" fn spblkSpVecGetValues(spVecDescr: spblkSpVecDescr_t, values: *mut *mut c_void) -> spblkStatus_t {
    entry("spblkSpVecGetValues", || get_values(spVecDescr, values))
}

/// `spblkSpVecGetValues` for a read-only descriptor.
#[no_mangle]
pub extern "C" fn spblkConstSpVecGetValues(
    spVecDescr: spblkConstSpVecDescr_t,
    values: *mut *const c_void,
) -> spblkStatus_t {
    entry("spblkConstSpVecGetValues", || get_values(spVecDescr, values as _))
}

/// Replaces the values pointer of a sparse vector (NULL only when it has no entries).
#[no_mangle]
pub extern "C" fn spblkSpVecSetValues(spVecDescr: spblkSpVecDescr_t, values: *mut c_void) -> spblkStatus_t {
    entry("spblkSpVecSetValues", || {
        // SAFETY: registry-checked.
        let v = unsafe { sp_vec(spVecDescr, "spVecDescr")? };
        let updated = SpVec { values, ..v.clone() };
        updated.validate()?;
        *v = updated;
        Ok(())
    })
}
