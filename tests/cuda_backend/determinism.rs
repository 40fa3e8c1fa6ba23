//! Issue 10's determinism line: SpMM and SDDMM with the default algorithm (and SDDMM's ASpT)
//! give the same bits on 100 runs, each run from new descriptors (the plan is built again by
//! the preprocess), on patterns that send the default down each of its paths; the tests also
//! check that every path they mean to cover did run.

use super::sddmm::{run_sddmm, scrambled_blocks, SddmmCase};
use super::*;

/// 100 runs; 5 under `SPBLK_TEST_QUICK` (compute-sanitizer, where each run is slow: the
/// determinism itself is checked by the plain runs).
fn runs() -> usize {
    if std::env::var_os("SPBLK_TEST_QUICK").is_some() {
        5
    } else {
        100
    }
}

/// Runs `run` `runs()` times and asserts every result equals the first; returns the kernel
/// launches of the first run.
fn same_bits(what: &str, mut run: impl FnMut() -> Vec<u8>) -> Vec<spblk::trace::Record> {
    let (first, records) = spblk::trace::capture(&mut run);
    for i in 1..runs() {
        assert!(run() == first, "{what}: run {i} differs from the first");
    }
    records
}

#[test]
fn spmm_default_is_bitwise_deterministic() {
    if !gpu("spmm_default_is_bitwise_deterministic") || harness_on_host() {
        return;
    }
    let mut r = rng(40);
    let mut kernels = Vec::new();
    // Short rows (the row method) and every third row of 1000 entries (RoDe after the
    // preprocess: src/ops/dispatch.rs, rode_predicted).
    let long_rows: Vec<(usize, usize)> = (0..300)
        .flat_map(|i| {
            let mut cols: Vec<usize> = (0..3000).collect();
            cols.shuffle(&mut r);
            cols.truncate(if i % 3 == 0 { 1000 } else { r.gen_range(0..40) });
            cols.into_iter().map(move |j| (i, j))
        })
        .collect();
    let patterns = [
        ("uniform", 900usize, 700usize, pattern(&mut r, 900, 700, Shape::Uniform(6))),
        ("long rows", 300, 3000, long_rows),
    ];
    for (name, m, k, entries) in &patterns {
        let (m, k) = (*m, *k);
        for (vin, out, compute) in [PRECISIONS[0], PRECISIONS[1]] {
            for n in [32usize, 128] {
                let vals = some_values(&mut r, entries.len(), false);
                let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, m, k, entries, &vals, SPBLK_INDEX_32I, 0, vin);
                let case = SpmmCase::default_row_major(&mut r, a, (m, k, n), (vin, out, compute));
                let mut gpu = Side::new(Kind::Cuda);
                kernels.extend(same_bits(&format!("spmm {name} ({vin},{out}) n {n}"), || run_spmm(&mut gpu, &case)));
            }
        }
    }
    assert!(launched(&kernels, "spblk_spmm_csr_") > 0, "the row method never ran");
    assert!(launched(&kernels, "spblk_spmm_rode_") > 0, "RoDe never ran");
}

#[test]
fn sddmm_default_and_aspt_are_bitwise_deterministic() {
    if !gpu("sddmm_default_and_aspt_are_bitwise_deterministic") || harness_on_host() {
        return;
    }
    let mut r = rng(41);
    let mut kernels = Vec::new();
    let (m, n) = (2048, 2048);
    // Scattered entries and scrambled 32-row blocks; the default streams, with or without a
    // preprocess; SPBLK_SDDMM_ALG_ASPT (after its preprocess) too.
    let patterns: [(&str, Vec<(usize, usize)>); 2] = [
        ("uniform", pattern(&mut r, m, n, Shape::Uniform(20))),
        ("blocks", scrambled_blocks(&mut r, (m, n), 32, 8, 0.5, 2)),
    ];
    for (name, entries) in &patterns {
        for (vin, out, compute) in [PRECISIONS[0], PRECISIONS[1]] {
            for depth in [32usize, 128] {
                let cvals = some_values(&mut r, entries.len(), false);
                let c = Sp::new(&mut r, SPBLK_FORMAT_CSR, m, n, entries, &cvals, SPBLK_INDEX_32I, 0, out);
                for (alg, preprocess) in
                    [(SPBLK_SDDMM_ALG_DEFAULT, true), (SPBLK_SDDMM_ALG_DEFAULT, false), (SPBLK_SDDMM_ALG_ASPT, true)]
                {
                    let case = SddmmCase {
                        op_a: N,
                        op_b: N,
                        a: Dn::random(&mut r, m, depth, SPBLK_ORDER_ROW, vin, false),
                        b: Dn::random(&mut r, depth, n, SPBLK_ORDER_COL, vin, false),
                        c: c.clone(),
                        alpha: 1.25,
                        beta: -0.5,
                        compute,
                        device_scalars: false,
                        alg,
                        preprocess,
                    };
                    let what = format!("sddmm {name} ({vin},{out}) k {depth} alg {alg} preprocess {preprocess}");
                    let mut gpu = Side::new(Kind::Cuda);
                    kernels.extend(same_bits(&what, || run_sddmm(&mut gpu, &case)));
                }
            }
        }
    }
    assert!(launched(&kernels, "spblk_sddmm_csr_") > 0, "the streaming kernel never ran");
    assert!(launched(&kernels, "spblk_sddmm_aspt_") > 0, "ASpT never ran");
}
