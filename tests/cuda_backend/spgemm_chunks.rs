//! SpGEMM ALG3 (`SPBLK_SPGEMM_ALG3`): the rows too big for shared memory run in passes, each
//! over `chunk_fraction` of their memory, so buffer 2 shrinks with the fraction while C stays
//! the same, bit for bit.

use spblk::capi::types::*;
use spblk::trace;

use super::support::*;
use super::{launched, run_spgemm};

/// Eight rows of up to ~40 000 products over 2^21 columns: most need global tables in both
/// phases (the symbolic pool: hash tables over 64 KB and a bitmap over 128 KB; the numeric
/// phase: tables over 16 384 slots and over 16 dense windows). Through ALG3 at fractions 1,
/// 0.3 and 0.02 C equals the host's bit for bit; buffer 2 shrinks as the fraction does, to
/// below ALG2's; and the passes show in the launches (one symbolic and one placement launch
/// per window: more than one at the small fractions).
#[test]
fn spgemm_alg3_runs_in_passes() {
    if !gpu("spgemm_alg3_runs_in_passes") {
        return;
    }
    let mut r = rng(71);
    let (m, kk, n) = (8, 1000, 1 << 21);
    for (vt, ity, base) in [(SPBLK_R_32F, SPBLK_INDEX_32I, 0u32), (SPBLK_R_64F, SPBLK_INDEX_64I, 1)] {
        let compute = vt;
        let ea = pattern(&mut r, m, kk, Shape::Uniform(500));
        let eb = pattern(&mut r, kk, n, Shape::Uniform(20));
        let (va, vb) = (values(&mut r, ea.len()), values(&mut r, eb.len()));
        let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, m, kk, &ea, &va, ity, base, vt);
        let b = Sp::new(&mut r, SPBLK_FORMAT_CSR, kk, n, &eb, &vb, ity, base, vt);
        let old = values(&mut r, 400_000);
        let c_init = |nnz: usize| encode(&old[..nnz], vt);
        let run = |kind, alg| run_spgemm(&mut Side::new(kind), alg, &a, &b, compute, 1.25, 0.5, false, &c_init);
        let want = run(Kind::Host, (SPBLK_SPGEMM_DEFAULT, 1.0));
        let alg2 = run(Kind::Cuda, (SPBLK_SPGEMM_ALG2, 1.0));
        assert!(alg2.cols == want.cols && alg2.vals == want.vals, "type {vt}: ALG2");
        let mut sizes = Vec::new();
        for fraction in [1.0f32, 0.3, 0.02] {
            let what = format!("ALG3 type {vt} chunk_fraction {fraction}");
            let (got, records) = trace::capture(|| run(Kind::Cuda, (SPBLK_SPGEMM_ALG3, fraction)));
            assert_eq!(got.offsets, want.offsets, "{what}: row offsets");
            assert_eq!(got.cols, want.cols, "{what}: columns");
            let (gv, wv) = (decode(&got.vals, vt), decode(&want.vals, vt));
            for (e, (x, y)) in gv.iter().zip(&wv).enumerate() {
                assert!(x.to_bits() == y.to_bits(), "{what}: value {e}: got {x}, want {y}");
            }
            sizes.push(got.buffer2);
            if harness_on_host() {
                continue;
            }
            let (symbolic, placed) =
                (launched(&records, "spblk_spgemm_symbolic_global_"), launched(&records, "spblk_spgemm_place_"));
            if fraction == 1.0 {
                assert!(symbolic == 1 && placed == 1, "{what}: {symbolic} symbolic, {placed} placement passes");
            } else {
                assert!(symbolic > 1 && placed > 1, "{what}: {symbolic} symbolic, {placed} placement passes");
            }
        }
        if !harness_on_host() {
            assert!(
                sizes.windows(2).all(|w| w[1] < w[0]) && sizes[2] < alg2.buffer2 / 2,
                "type {vt}: buffer 2 by fraction (1, 0.3, 0.02) {sizes:?}, ALG2 {}",
                alg2.buffer2
            );
        }
    }
}
