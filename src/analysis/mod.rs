//! Host-side matrix analysis (`spblkAnalyze`): pure code, no GPU, no unsafe. Its results
//! become plans owned by the sparse-matrix descriptor (`crate::plan`).

use half::{bf16, f16};

pub mod one_sa;

use one_sa::{OneSaParams, OneSaStats, Vbr, VbrLayout};

/// 1-SA blocking of a matrix: the VBR structure with values in the matrix's type, plus
/// half-precision copies when asked for (tensor-core inputs).
#[derive(Debug)]
pub struct OneSaPlan {
    pub params: OneSaParams,
    pub vbr: VbrValues,
    pub f16_copy: Option<Vbr<f16>>,
    pub bf16_copy: Option<Vbr<bf16>>,
}

/// A VBR matrix in the value type of the analysed matrix, or its layout alone where the
/// backend filled the values in its own memory from the matrix (the CUDA backend).
#[derive(Debug)]
pub enum VbrValues {
    F32(Vbr<f32>),
    F64(Vbr<f64>),
    F16(Vbr<f16>),
    BF16(Vbr<bf16>),
    InBackend(VbrLayout),
}

impl VbrValues {
    pub fn stats(&self) -> &OneSaStats {
        match self {
            VbrValues::F32(v) => &v.stats,
            VbrValues::F64(v) => &v.stats,
            VbrValues::F16(v) => &v.stats,
            VbrValues::BF16(v) => &v.stats,
            VbrValues::InBackend(l) => &l.stats,
        }
    }
    pub fn stats_mut(&mut self) -> &mut OneSaStats {
        match self {
            VbrValues::F32(v) => &mut v.stats,
            VbrValues::F64(v) => &mut v.stats,
            VbrValues::F16(v) => &mut v.stats,
            VbrValues::BF16(v) => &mut v.stats,
            VbrValues::InBackend(l) => &mut l.stats,
        }
    }
    pub fn perm(&self) -> &[usize] {
        match self {
            VbrValues::F32(v) => &v.perm,
            VbrValues::F64(v) => &v.perm,
            VbrValues::F16(v) => &v.perm,
            VbrValues::BF16(v) => &v.perm,
            VbrValues::InBackend(l) => &l.perm,
        }
    }
    /// Half-precision copy of the values (same structure); `None` without host values.
    pub fn to_f16(&self) -> Option<Vbr<f16>> {
        Some(match self {
            VbrValues::F32(v) => v.map_values(f16::from_f32),
            VbrValues::F64(v) => v.map_values(f16::from_f64),
            VbrValues::F16(v) => v.clone(),
            VbrValues::BF16(v) => v.map_values(|x| f16::from_f32(x.to_f32())),
            VbrValues::InBackend(_) => return None,
        })
    }
    /// bfloat16 copy of the values (same structure); `None` without host values.
    pub fn to_bf16(&self) -> Option<Vbr<bf16>> {
        Some(match self {
            VbrValues::F32(v) => v.map_values(bf16::from_f32),
            VbrValues::F64(v) => v.map_values(crate::numeric::bf16_from_f64),
            VbrValues::F16(v) => v.map_values(|x| bf16::from_f32(x.to_f32())),
            VbrValues::BF16(v) => v.clone(),
            VbrValues::InBackend(_) => return None,
        })
    }
}
