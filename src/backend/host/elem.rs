//! Element and index traits for the host kernels, and the macros that turn the run-time
//! type tags of a call into one monomorphized kernel.

use half::{bf16, f16};
use std::ops::{Add, AddAssign, Mul};

/// A stored index (i32 or i64).
pub trait Index: Copy + Send + Sync + 'static {
    fn to_i64(self) -> i64;
    fn from_i64(v: i64) -> Self;
}
impl Index for i32 {
    #[inline]
    fn to_i64(self) -> i64 {
        self as i64
    }
    #[inline]
    fn from_i64(v: i64) -> Self {
        v as i32
    }
}
impl Index for i64 {
    #[inline]
    fn to_i64(self) -> i64 {
        self
    }
    #[inline]
    fn from_i64(v: i64) -> Self {
        v
    }
}

/// A stored value. Conversions go through f64, which is exact for every supported type, so
/// `Elem::from_f64(x as f64)` rounds exactly once, like a direct conversion would.
pub trait Elem: Copy + Send + Sync + 'static {
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
}
impl Elem for f32 {
    #[inline]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}
impl Elem for f64 {
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
}
impl Elem for f16 {
    #[inline]
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
}
impl Elem for bf16 {
    #[inline]
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        crate::numeric::bf16_from_f64(v)
    }
}

/// The compute type (f32 or f64): alpha and beta have it, and sums accumulate in it.
pub trait Real: Elem + Add<Output = Self> + Mul<Output = Self> + AddAssign + PartialEq + Default {
    const ZERO: Self;
    #[inline]
    fn load<E: Elem>(e: E) -> Self {
        Self::from_f64(e.to_f64())
    }
    #[inline]
    fn store<E: Elem>(self) -> E {
        E::from_f64(self.to_f64())
    }
}
impl Real for f32 {
    const ZERO: Self = 0.0;
    #[inline]
    fn load<E: Elem>(e: E) -> Self {
        // f32 → f32 and f16/bf16 → f32 are exact; this skips the f64 round trip.
        e.to_f64() as f32
    }
}
impl Real for f64 {
    const ZERO: Self = 0.0;
}

/// Runs `$body` with `$I` bound to the Rust type of an `IndexType` (I32 or I64).
#[macro_export]
macro_rules! with_index_type {
    ($ity:expr, $I:ident => $body:expr) => {
        match $ity {
            $crate::types::IndexType::I32 => {
                type $I = i32;
                $body
            }
            $crate::types::IndexType::I64 => {
                type $I = i64;
                $body
            }
            other => Err($crate::error::Error::not_supported(format!(
                "index type {other:?} is not supported by this operation"
            ))),
        }
    };
}

/// Runs `$body` with `$In`, `$Out`, `$T` bound to the input, output and compute types of a
/// checked `Precision`.
#[macro_export]
macro_rules! with_precision {
    ($p:expr, $In:ident, $Out:ident, $T:ident => $body:expr) => {{
        use $crate::types::DataType as D;
        match ($p.input, $p.output, $p.compute) {
            (D::F32, D::F32, D::F32) => {
                type $In = f32;
                type $Out = f32;
                type $T = f32;
                $body
            }
            (D::F64, D::F64, D::F64) => {
                type $In = f64;
                type $Out = f64;
                type $T = f64;
                $body
            }
            (D::F16, D::F32, D::F32) => {
                type $In = half::f16;
                type $Out = f32;
                type $T = f32;
                $body
            }
            (D::BF16, D::F32, D::F32) => {
                type $In = half::bf16;
                type $Out = f32;
                type $T = f32;
                $body
            }
            (D::F16, D::F16, D::F32) => {
                type $In = half::f16;
                type $Out = half::f16;
                type $T = f32;
                $body
            }
            (D::BF16, D::BF16, D::F32) => {
                type $In = half::bf16;
                type $Out = half::bf16;
                type $T = f32;
                $body
            }
            other => Err($crate::error::Error::not_supported(format!(
                "type combination {other:?} is not supported by the host backend"
            ))),
        }
    }};
}

/// A raw pointer that may cross threads: the kernels write disjoint elements through it.
#[derive(Clone, Copy)]
pub struct SharedMut<T>(pub *mut T);
// SAFETY: used only for writes to disjoint elements from parallel workers, each element
// written by exactly one worker, while the caller keeps the memory alive for the call.
unsafe impl<T> Send for SharedMut<T> {}
unsafe impl<T> Sync for SharedMut<T> {}

impl<T> SharedMut<T> {
    /// The pointer (a method, so closures capture the Send wrapper, not the raw field).
    #[inline]
    pub fn get(&self) -> *mut T {
        self.0
    }
}
