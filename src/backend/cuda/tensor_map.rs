//! TMA descriptors (`CUtensorMap`) for kernels that load tiles with the tensor-memory
//! accelerator (compute capability 9.0): 2-D tensors of 16-bit elements read in boxes of
//! 64 elements (128 bytes, the span of the 128-byte swizzle that wgmma reads) by up to 256
//! rows, zero-filled outside the tensor.

use cudarc::driver::sys;

use super::context::check;
use crate::error::{Error, Result};
use crate::types::DataType;

/// Elements of a box's row: 128 bytes of 16-bit values.
const BOX_COLS: u32 = 64;

/// A row-major `rows x cols` tensor of f16 or bf16 at device address `addr`, rows `pitch`
/// bytes apart, read in boxes of `BOX_COLS x box_rows`. TMA wants the address and pitch in
/// 16-byte units and the extents within 32 bits (coordinates are signed 32-bit): callers check
/// with `fits` first, so an error here is internal.
pub fn tiled_b16(ty: DataType, addr: u64, cols: u64, rows: u64, pitch: u64, box_rows: u32) -> Result<sys::CUtensorMap> {
    if !fits(addr, cols, rows, pitch) || box_rows == 0 || box_rows > 256 {
        return Err(Error::internal(format!(
            "TMA descriptor for {rows} x {cols} at {addr:#x}, pitch {pitch}, box rows {box_rows}"
        )));
    }
    let dtype = match ty {
        DataType::F16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        DataType::BF16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        t => return Err(Error::internal(format!("TMA descriptor for {t:?} elements"))),
    };
    let dims = [cols, rows];
    let strides = [pitch];
    let boxes = [BOX_COLS, box_rows];
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

/// Whether TMA can read such a tensor: a 16-byte aligned address and pitch (at least one
/// row of `cols`), extents from 1 to 2^30, so that a kernel's signed 32-bit coordinates (a
/// box or two past the last one included) cannot overflow.
pub fn fits(addr: u64, cols: u64, rows: u64, pitch: u64) -> bool {
    let extent = 1..=1u64 << 30;
    addr % 16 == 0
        && addr != 0
        && pitch % 16 == 0
        && pitch >= cols * 2
        && pitch < 1 << 40
        && extent.contains(&cols)
        && extent.contains(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_wants_aligned_address_and_pitch_and_32_bit_extents() {
        assert!(fits(256, 100, 7, 208));
        assert!(!fits(258, 100, 7, 208), "address not 16-byte aligned");
        assert!(!fits(256, 100, 7, 200), "pitch not a multiple of 16");
        assert!(!fits(256, 100, 7, 192), "pitch shorter than a row");
        assert!(!fits(0, 100, 7, 208), "NULL");
        assert!(!fits(256, 8, (1 << 30) + 1, 16), "rows past 2^30");
        assert!(!fits(256, 100, 0, 208), "no rows");
    }
}
