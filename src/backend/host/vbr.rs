//! SpMM with a 1-SA plan (`SPBLK_SPMM_ALG_VBR`) on the host: the VBR blocks times op(B),
//! written back in the original row order. The reference for the tensor-core kernel.

use super::elem::{Elem, Real};
use super::products::read_scalar;
use super::views::DenseView;
use crate::analysis::one_sa::{self, Vbr};
use crate::analysis::{OneSaPlan, VbrValues};
use crate::backend::SpmmArgs;
use crate::error::{Error, Result};
use crate::numeric::tf32_round;
use crate::types::Operation;

/// Picks the VBR whose values have the Rust type `Self`.
pub trait VbrElem: Elem + Sized {
    fn of(v: &VbrValues) -> Option<&Vbr<Self>>;
}
macro_rules! vbr_elem {
    ($t:ty, $variant:ident) => {
        impl VbrElem for $t {
            fn of(v: &VbrValues) -> Option<&Vbr<Self>> {
                match v {
                    VbrValues::$variant(x) => Some(x),
                    _ => None,
                }
            }
        }
    };
}
vbr_elem!(f32, F32);
vbr_elem!(f64, F64);
vbr_elem!(half::f16, F16);
vbr_elem!(half::bf16, BF16);

/// Adapts the compute type to the analysis module's arithmetic trait.
#[derive(Clone, Copy)]
struct Acc<T>(T);
impl<T: Real> one_sa::Scalar for Acc<T> {
    fn zero() -> Self {
        Acc(T::ZERO)
    }
    fn add(self, o: Self) -> Self {
        Acc(self.0 + o.0)
    }
    fn mul(self, o: Self) -> Self {
        Acc(self.0 * o.0)
    }
}

/// `tf32`: A's and op(B)'s values are rounded to TF32 before they are multiplied (what
/// `SPBLK_SPMM_ALG_VBR_TF32` computes on tensor cores), products summed in `T`.
///
/// # Safety
/// B and C must describe host memory of their declared sizes.
pub unsafe fn spmm<In: VbrElem, Out: Elem, T: Real>(args: &SpmmArgs, plan: &OneSaPlan, tf32: bool) -> Result<()> {
    let vbr = In::of(&plan.vbr).ok_or_else(|| Error::internal("the 1-SA plan's value type differs from matA's"))?;
    // SAFETY: forwarded from the caller.
    let (alpha, beta) = unsafe { (read_scalar::<T>(args.alpha, "alpha")?, read_scalar::<T>(args.beta, "beta")?) };
    let b = unsafe { DenseView::<In>::new(args.b, args.op_b, "matB")? };
    let c = unsafe { DenseView::<Out>::new(args.c, Operation::NonTranspose, "matC")? };
    let input = |v: In| {
        let x = T::load(v);
        if tf32 {
            T::from_f64(tf32_round(x.to_f64() as f32) as f64)
        } else {
            x
        }
    };
    vbr.spmm(
        |v| Acc(input(v)),
        // SAFETY: k < cols(A) = rows(op(B)), j < n, checked by ops.
        |k, j| Acc(input(unsafe { b.get(k, j) })),
        c.cols,
        |i, j, s| {
            // beta = 0 must not read C.
            // SAFETY: i < m, j < n; one write per element.
            let out = if beta == T::ZERO { alpha * s.0 } else { alpha * s.0 + beta * T::load(unsafe { c.get(i, j) }) };
            unsafe { c.set(i, j, out.store::<Out>()) };
        },
    );
    Ok(())
}
