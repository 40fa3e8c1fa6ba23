//! Numeric conversions the `half` crate gets wrong.

use half::bf16;

/// f64 → bf16, correctly rounded (to nearest, ties to even). half 2.7's `bf16::from_f64`
/// drops low mantissa bits before rounding, so near-ties round the wrong way. Rounding to odd
/// into f32 first (exact when v is an f32, as every f32-compute result is) keeps enough bits
/// that the f32 → bf16 rounding is then correct.
pub fn bf16_from_f64(v: f64) -> bf16 {
    let f = v as f32;
    if v.is_nan() || f as f64 == v {
        return bf16::from_f32(f);
    }
    let mut bits = f.to_bits();
    if (f as f64).abs() > v.abs() {
        bits -= 1; // rounded away from zero: step back toward it (sign-magnitude)
    }
    bf16::from_f32(f32::from_bits(bits | 1))
}

/// `x` rounded to TF32 (10 mantissa bits), to nearest with ties away from zero, as the
/// tensor cores' `cvt.rna.tf32.f32` does; infinities and NaN pass unchanged.
pub fn tf32_round(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    f32::from_bits((x.to_bits() + 0x1000) & 0xffff_e000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_from_f64_rounds_correctly() {
        // f32 0x3f348005 is just above the tie between bf16 0x3f34 and 0x3f35: rounds up.
        let x = f32::from_bits(0x3f34_8005) as f64;
        assert_eq!(bf16_from_f64(x).to_bits(), 0x3f35);
        // Exact ties go to even; values just below a tie go down.
        assert_eq!(bf16_from_f64(f32::from_bits(0x3f34_8000) as f64).to_bits(), 0x3f34);
        assert_eq!(bf16_from_f64(f32::from_bits(0x3f34_7fff) as f64).to_bits(), 0x3f34);
        // An f64 a hair above the tie (not an f32) still rounds up; one below, down.
        let tie = f32::from_bits(0x3f34_8000) as f64;
        assert_eq!(bf16_from_f64(tie + 1e-12).to_bits(), 0x3f35);
        assert_eq!(bf16_from_f64(tie - 1e-12).to_bits(), 0x3f34);
        assert_eq!(bf16_from_f64(-(tie + 1e-12)).to_bits(), 0xbf35);
        assert!(bf16_from_f64(f64::NAN).is_nan());
        assert_eq!(bf16_from_f64(1e300).to_bits(), 0x7f80);
    }
}
