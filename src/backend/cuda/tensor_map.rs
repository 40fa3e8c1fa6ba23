//! TMA descriptors (`CUtensorMap`) for kernels that load tiles with the tensor-memory
//! accelerator (compute capability 9.0): 2-D tensors of f16, bf16 or f32 elements read in
//! boxes of 128 bytes (64 or 32 elements: the span of the 128-byte swizzle that wgmma reads)
//! by up to 256 rows, zero-filled outside the tensor.

use cudarc::driver::sys;

use super::context::check;
use crate::error::{Error, Result};
use crate::types::DataType;

/// Bytes of a box's row.
const BOX_ROW_BYTES: u32 = 128;

/// A row-major `rows x cols` tensor of f16, bf16 or f32 at device address `addr`, rows
/// `pitch` bytes apart, read in boxes of 128 bytes by `box_rows`. TMA wants the address and
/// pitch in 16-byte units and the extents within 32 bits (coordinates are signed 32-bit):
/// callers check with `fits` first, so an error here is internal.
pub fn tiled(ty: DataType, addr: u64, cols: u64, rows: u64, pitch: u64, box_rows: u32) -> Result<sys::CUtensorMap> {
    if !fits(addr, cols * ty.size() as u64, rows, pitch) || box_rows == 0 || box_rows > 256 {
        return Err(Error::internal(format!(
            "TMA descriptor for {rows} x {cols} at {addr:#x}, pitch {pitch}, box rows {box_rows}"
        )));
    }
    let dtype = match ty {
        DataType::F16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        DataType::BF16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        DataType::F32 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        t => return Err(Error::internal(format!("TMA descriptor for {t:?} elements"))),
    };
    let dims = [cols, rows];
    let strides = [pitch];
    let boxes = [BOX_ROW_BYTES / ty.size() as u32, box_rows];
    let element_strides = [1u32, 1];
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: every array holds the rank's entries (2; strides rank - 1); out-pointer to a
    // local. The descriptor only records the address: nothing is read until a kernel loads.
    let r = unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut map,
            dtype,
            2,
            addr as *mut std::ffi::c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    check(r, "cuTensorMapEncodeTiled")?;
    Ok(map)
}

/// Whether TMA can read such a tensor of rows `row_bytes` long: a 16-byte aligned address and
/// pitch (at least one row), extents from 1 to 2^30 (elements or bytes), so that a kernel's
/// signed 32-bit coordinates (a box or two past the last one included) cannot overflow.
pub fn fits(addr: u64, row_bytes: u64, rows: u64, pitch: u64) -> bool {
    let extent = 1..=1u64 << 30;
    addr % 16 == 0
        && addr != 0
        && pitch % 16 == 0
        && pitch >= row_bytes
        && pitch < 1 << 40
        && extent.contains(&row_bytes)
        && extent.contains(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_wants_aligned_address_and_pitch_and_30_bit_extents() {
        assert!(fits(256, 200, 7, 208));
        assert!(!fits(258, 200, 7, 208), "address not 16-byte aligned");
        assert!(!fits(256, 200, 7, 200), "pitch not a multiple of 16");
        assert!(!fits(256, 200, 7, 192), "pitch shorter than a row");
        assert!(!fits(0, 200, 7, 208), "NULL");
        assert!(!fits(256, 16, (1 << 30) + 1, 16), "rows past 2^30");
        assert!(!fits(256, 200, 0, 208), "no rows");
    }
}
