//! Dense matrix and vector descriptors.

use std::ffi::c_void;

use super::boundary::{self, entry, out, write, Kind};
use super::types::*;
use crate::descr::{DnMat, DnVec};
use crate::error::Result;
use crate::types::{DataType, Order};

/// # Safety
/// Registry-checked; see `boundary::descr`.
pub(crate) unsafe fn dn_mat<'a>(p: spblkConstDnMatDescr_t, arg: &str) -> Result<&'a mut DnMat> {
    // SAFETY: forwarded.
    unsafe { boundary::descr(p as *const c_void, Kind::DnMat, arg) }
}

/// # Safety
/// Registry-checked; see `boundary::descr_ref`.
pub(crate) unsafe fn dn_mat_ref<'a>(p: spblkConstDnMatDescr_t, arg: &str) -> Result<&'a DnMat> {
    // SAFETY: forwarded.
    unsafe { boundary::descr_ref(p as *const c_void, Kind::DnMat, arg) }
}

/// # Safety
/// Registry-checked; see `boundary::descr_ref`.
pub(crate) unsafe fn dn_vec_ref<'a>(p: spblkConstDnVecDescr_t, arg: &str) -> Result<&'a DnVec> {
    // SAFETY: forwarded.
    unsafe { boundary::descr_ref(p as *const c_void, Kind::DnVec, arg) }
}

/// # Safety
/// Registry-checked; see `boundary::descr`.
pub(crate) unsafe fn dn_vec<'a>(p: spblkConstDnVecDescr_t, arg: &str) -> Result<&'a mut DnVec> {
    // SAFETY: forwarded.
    unsafe { boundary::descr(p as *const c_void, Kind::DnVec, arg) }
}

fn create_dn_mat(
    descr: *mut spblkDnMatDescr_t,
    rows: i64,
    cols: i64,
    ld: i64,
    values: *mut c_void,
    value_type: spblkDataType_t,
    order: spblkOrder_t,
) -> Result<()> {
    out(descr, "dnMatDescr")?;
    let m = DnMat {
        rows,
        cols,
        ld,
        values,
        value_type: DataType::decode(value_type, "valueType")?,
        order: Order::decode(order, "order")?,
        batch: Default::default(),
    };
    m.validate()?;
    let p = boundary::register(m, Kind::DnMat) as spblkDnMatDescr_t;
    // SAFETY: checked non-NULL.
    unsafe { write(descr, p) };
    Ok(())
}

fn create_dn_vec(
    descr: *mut spblkDnVecDescr_t,
    size: i64,
    values: *mut c_void,
    value_type: spblkDataType_t,
) -> Result<()> {
    out(descr, "dnVecDescr")?;
    let v = DnVec { size, values, value_type: DataType::decode(value_type, "valueType")? };
    v.validate()?;
    let p = boundary::register(v, Kind::DnVec) as spblkDnVecDescr_t;
    // SAFETY: checked non-NULL.
    unsafe { write(descr, p) };
    Ok(())
}

fn get_values(values: *mut c_void, dst: *mut *mut c_void) -> Result<()> {
    out(dst, "values")?;
    // SAFETY: checked non-NULL.
    unsafe { write(dst, values) };
    Ok(())
}

/// Creates a dense matrix descriptor; `ld` is at least rows (column-major) or cols (row-major).
#[no_mangle]
pub extern "C" fn spblkCreateDnMat(
    dnMatDescr: *mut spblkDnMatDescr_t,
    rows: i64,
    cols: i64,
    ld: i64,
    values: *mut c_void,
    valueType: spblkDataType_t,
    order: spblkOrder_t,
) -> spblkStatus_t {
    entry("spblkCreateDnMat", || create_dn_mat(dnMatDescr, rows, cols, ld, values, valueType, order))
}

/// Destroys a dense matrix descriptor; NULL is a no-op.
#[no_mangle]
pub extern "C" fn spblkDestroyDnMat(dnMatDescr: spblkConstDnMatDescr_t) -> spblkStatus_t {
    entry("spblkDestroyDnMat", || {
        // SAFETY: registry-checked; C must not use it afterwards.
        unsafe { boundary::release::<DnMat>(dnMatDescr as *const c_void, Kind::DnMat, "dnMatDescr")? };
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
fn dn_mat_get(
    descr: spblkConstDnMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    ld: *mut i64,
    values: *mut *mut c_void,
    type_: *mut spblkDataType_t,
    order: *mut spblkOrder_t,
) -> Result<()> {
    // SAFETY: registry-checked.
    let m = unsafe { dn_mat_ref(descr, "dnMatDescr")? };
    out(rows, "rows")?;
    out(cols, "cols")?;
    out(ld, "ld")?;
    out(values, "values")?;
    out(type_, "type")?;
    out(order, "order")?;
    // SAFETY: all checked non-NULL.
    unsafe {
        write(rows, m.rows);
        write(cols, m.cols);
        write(ld, m.ld);
        write(values, m.values);
        write(type_, m.value_type.to_c());
        write(order, m.order.to_c());
    }
    Ok(())
}

/// Reads everything a dense matrix descriptor holds.
#[no_mangle]
pub extern "C" fn spblkDnMatGet(
    dnMatDescr: spblkDnMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    ld: *mut i64,
    values: *mut *mut c_void,
    type_: *mut spblkDataType_t,
    order: *mut spblkOrder_t,
) -> spblkStatus_t {
    entry("spblkDnMatGet", || dn_mat_get(dnMatDescr, rows, cols, ld, values, type_, order))
}

/// `spblkDnMatGet` for a read-only descriptor.
#[no_mangle]
pub extern "C" fn spblkConstDnMatGet(
    dnMatDescr: spblkConstDnMatDescr_t,
    rows: *mut i64,
    cols: *mut i64,
    ld: *mut i64,
    values: *mut *const c_void,
    type_: *mut spblkDataType_t,
    order: *mut spblkOrder_t,
) -> spblkStatus_t {
    entry("spblkConstDnMatGet", || dn_mat_get(dnMatDescr, rows, cols, ld, values as _, type_, order))
}

/// Reads the values pointer of a dense matrix.
#[no_mangle]
pub extern "C" fn spblkDnMatGetValues(dnMatDescr: spblkDnMatDescr_t, values: *mut *mut c_void) -> spblkStatus_t {
    entry("spblkDnMatGetValues", || {
        // SAFETY: registry-checked.
        let m = unsafe { dn_mat(dnMatDescr, "dnMatDescr")? };
        get_values(m.values, values)
    })
}

/// Replaces the values pointer of a dense matrix.
#[no_mangle]
pub extern "C" fn spblkDnMatSetValues(dnMatDescr: spblkDnMatDescr_t, values: *mut c_void) -> spblkStatus_t {
    entry("spblkDnMatSetValues", || {
        // SAFETY: registry-checked.
        let m = unsafe { dn_mat(dnMatDescr, "dnMatDescr")? };
        let updated = DnMat { values, ..m.clone() };
        updated.validate()?;
        *m = updated;
        Ok(())
    })
}

/// Creates a dense vector descriptor.
#[no_mangle]
pub extern "C" fn spblkCreateDnVec(
    dnVecDescr: *mut spblkDnVecDescr_t,
    size: i64,
    values: *mut c_void,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateDnVec", || create_dn_vec(dnVecDescr, size, values, valueType))
}

/// Destroys a dense vector descriptor; NULL is a no-op.
#[no_mangle]
pub extern "C" fn spblkDestroyDnVec(dnVecDescr: spblkConstDnVecDescr_t) -> spblkStatus_t {
    entry("spblkDestroyDnVec", || {
        // SAFETY: registry-checked; C must not use it afterwards.
        unsafe { boundary::release::<DnVec>(dnVecDescr as *const c_void, Kind::DnVec, "dnVecDescr")? };
        Ok(())
    })
}

fn dn_vec_get(
    descr: spblkConstDnVecDescr_t,
    size: *mut i64,
    values: *mut *mut c_void,
    value_type: *mut spblkDataType_t,
) -> Result<()> {
    // SAFETY: registry-checked.
    let v = unsafe { dn_vec_ref(descr, "dnVecDescr")? };
    out(size, "size")?;
    out(values, "values")?;
    out(value_type, "valueType")?;
    // SAFETY: all checked non-NULL.
    unsafe {
        write(size, v.size);
        write(values, v.values);
        write(value_type, v.value_type.to_c());
    }
    Ok(())
}

/// Reads everything a dense vector descriptor holds.
#[no_mangle]
pub extern "C" fn spblkDnVecGet(
    dnVecDescr: spblkDnVecDescr_t,
    size: *mut i64,
    values: *mut *mut c_void,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkDnVecGet", || dn_vec_get(dnVecDescr, size, values, valueType))
}

/// `spblkDnVecGet` for a read-only descriptor.
#[no_mangle]
pub extern "C" fn spblkConstDnVecGet(
    dnVecDescr: spblkConstDnVecDescr_t,
    size: *mut i64,
    values: *mut *const c_void,
    valueType: *mut spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkConstDnVecGet", || dn_vec_get(dnVecDescr, size, values as _, valueType))
}

/// Reads the values pointer of a dense vector.
#[no_mangle]
pub extern "C" fn spblkDnVecGetValues(dnVecDescr: spblkDnVecDescr_t, values: *mut *mut c_void) -> spblkStatus_t {
    entry("spblkDnVecGetValues", || {
        // SAFETY: registry-checked.
        let v = unsafe { dn_vec(dnVecDescr, "dnVecDescr")? };
        get_values(v.values, values)
    })
}

/// Replaces the values pointer of a dense vector.
#[no_mangle]
pub extern "C" fn spblkDnVecSetValues(dnVecDescr: spblkDnVecDescr_t, values: *mut c_void) -> spblkStatus_t {
    entry("spblkDnVecSetValues", || {
        // SAFETY: registry-checked.
        let v = unsafe { dn_vec(dnVecDescr, "dnVecDescr")? };
        let updated = DnVec { values, ..v.clone() };
        updated.validate()?;
        *v = updated;
        Ok(())
    })
}

/// `spblkCreateDnMat` for read-only data.
#[no_mangle]
pub extern "C" fn spblkCreateConstDnMat(
    dnMatDescr: *mut spblkConstDnMatDescr_t,
    rows: i64,
    cols: i64,
    ld: i64,
    values: *const c_void,
    valueType: spblkDataType_t,
    order: spblkOrder_t,
) -> spblkStatus_t {
    entry("spblkCreateConstDnMat", || {
        create_dn_mat(dnMatDescr as *mut spblkDnMatDescr_t, rows, cols, ld, values as *mut c_void, valueType, order)
    })
}

/// `spblkCreateDnVec` for read-only data.
#[no_mangle]
pub extern "C" fn spblkCreateConstDnVec(
    dnVecDescr: *mut spblkConstDnVecDescr_t,
    size: i64,
    values: *const c_void,
    valueType: spblkDataType_t,
) -> spblkStatus_t {
    entry("spblkCreateConstDnVec", || {
        create_dn_vec(dnVecDescr as *mut spblkDnVecDescr_t, size, values as *mut c_void, valueType)
    })
}

/// Reads the values pointer of a read-only dense matrix.
#[no_mangle]
pub extern "C" fn spblkConstDnMatGetValues(
    dnMatDescr: spblkConstDnMatDescr_t,
    values: *mut *const c_void,
) -> spblkStatus_t {
    entry("spblkConstDnMatGetValues", || {
        // SAFETY: registry-checked.
        let m = unsafe { dn_mat(dnMatDescr, "dnMatDescr")? };
        get_values(m.values, values as *mut *mut c_void)
    })
}

/// Reads the values pointer of a read-only dense vector.
#[no_mangle]
pub extern "C" fn spblkConstDnVecGetValues(
    dnVecDescr: spblkConstDnVecDescr_t,
    values: *mut *const c_void,
) -> spblkStatus_t {
    entry("spblkConstDnVecGetValues", || {
        // SAFETY: registry-checked.
        let v = unsafe { dn_vec(dnVecDescr, "dnVecDescr")? };
        get_values(v.values, values as *mut *mut c_void)
    })
}
