//! SpGEMM's reuse path (`spblkSpGEMMreuse_*`) and `spblkSpGEMM_getNumProducts`: on each
//! backend, the structure is set up once and `reuse_compute` runs several rounds with new
//! values of A and B (and of C, for beta != 0); every round must equal, bit for bit, the full
//! protocol run on the host with that round's values.

use std::ffi::c_void;

use rand::Rng;
use spblk::capi::sp_mat::*;
use spblk::capi::spgemm::*;
use spblk::capi::types::*;

use super::support::*;
use super::{run_spgemm, Product, N};

/// One round of `reuse_compute`: values of A and B, alpha, beta and C's values before it.
struct Round {
    va: Vec<f64>,
    vb: Vec<f64>,
    alpha: f64,
    beta: f64,
    c_old: Vec<f64>,
}

/// The reuse protocol as the cuSPARSE sample runs it (buffers 1 and 2 freed after nnz, 3
/// after copy), then the rounds; returns the product count and C after each round.
fn run_reuse(side: &mut Side, a: &Sp, b: &Sp, rounds: &[Round], device: bool) -> (i64, Vec<Product>) {
    side.set_pointer_mode(device);
    let compute = if a.vt == SPBLK_R_64F { SPBLK_R_64F } else { SPBLK_R_32F };
    let (ma, mb) = (a.descr(side), b.descr(side));
    let isz = isize_of(a.ity);
    let m = a.rows as usize;
    let null = std::ptr::null_mut::<c_void>();
    let c_off = side.put(&vec![0u8; (m + 1) * isz]);
    let mut mc = std::ptr::null_mut();
    ok(spblkCreateCsr(&mut mc, a.rows, b.cols, 0, c_off, null, null, a.ity, a.ity, a.base, a.vt), "create C");
    let mut d = std::ptr::null_mut();
    ok(spblkSpGEMM_createDescr(&mut d), "spblkSpGEMM_createDescr");
    let (h, alg) = (side.handle, SPBLK_SPGEMM_DEFAULT);
    let mut s1 = 0usize;
    ok(spblkSpGEMMreuse_workEstimation(h, N, N, ma, mb, mc, alg, d, &mut s1, null), "reuse_workEstimation (size)");
    let buf1 = side.buffer(s1);
    ok(spblkSpGEMMreuse_workEstimation(h, N, N, ma, mb, mc, alg, d, &mut s1, buf1), "reuse_workEstimation");
    let mut products = -1i64;
    ok(spblkSpGEMM_getNumProducts(d, &mut products), "spblkSpGEMM_getNumProducts");
    let (mut s2, mut s3, mut s4) = (0usize, 0usize, 0usize);
    ok(
        spblkSpGEMMreuse_nnz(h, N, N, ma, mb, mc, alg, d, &mut s2, null, &mut s3, null, &mut s4, null),
        "reuse_nnz (sizes)",
    );
    assert!(s2 >= 1 && s3 >= 1 && s4 >= 1, "reuse_nnz sizes must be at least 1: {s2} {s3} {s4}");
    let (buf2, buf3, buf4) = (side.buffer(s2), side.buffer(s3), side.buffer(s4));
    ok(spblkSpGEMMreuse_nnz(h, N, N, ma, mb, mc, alg, d, &mut s2, buf2, &mut s3, buf3, &mut s4, buf4), "reuse_nnz");
    // Buffers 1 and 2 are no longer needed: poison them.
    side.overwrite(buf1, s1);
    side.overwrite(buf2, s2);
    let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
    ok(spblkSpMatGetSize(mc, &mut rows, &mut cols, &mut nnz), "spblkSpMatGetSize");
    let nnz = nnz as usize;
    let c_col = side.put(&vec![0u8; nnz * isz]);
    let c_val = side.put(&encode(&vec![0.0; nnz], a.vt));
    ok(spblkCsrSetPointers(mc, c_off, c_col, c_val), "spblkCsrSetPointers");
    let mut s5 = 0usize;
    ok(spblkSpGEMMreuse_copy(h, N, N, ma, mb, mc, alg, d, &mut s5, null), "reuse_copy (size)");
    let buf5 = side.buffer(s5);
    ok(spblkSpGEMMreuse_copy(h, N, N, ma, mb, mc, alg, d, &mut s5, buf5), "reuse_copy");
    side.overwrite(buf3, s3);
    let mut out = Vec::new();
    for r in rounds {
        ok(spblkSpMatSetValues(ma, side.put(&encode(&r.va, a.vt))), "set A's values");
        ok(spblkSpMatSetValues(mb, side.put(&encode(&r.vb, b.vt))), "set B's values");
        let c_val = side.put(&encode(&r.c_old, a.vt));
        ok(spblkCsrSetPointers(mc, c_off, c_col, c_val), "set C's values");
        let alpha = side.scalar(device, &scalar_bytes(r.alpha, compute));
        let beta = side.scalar(device, &scalar_bytes(r.beta, compute));
        ok(spblkSpGEMMreuse_compute(h, N, N, alpha, ma, mb, beta, mc, compute, alg, d), "reuse_compute");
        out.push(Product {
            offsets: idx_decode(&side.get(c_off, (m + 1) * isz), a.ity),
            cols: idx_decode(&side.get(c_col, nnz * isz), a.ity),
            vals: side.get(c_val, nnz * vsize(a.vt)),
            // The reuse path's buffer 3 holds what the full protocol's buffer 2 does.
            buffer2: s3,
        });
    }
    ok(spblkSpGEMM_destroyDescr(d), "spblkSpGEMM_destroyDescr");
    for x in [ma, mb, mc] {
        spblkDestroySpMat(x);
    }
    (products, out)
}

#[test]
fn spgemm_reuse_matches_full_product_exactly() {
    if !gpu("spgemm_reuse_matches_full_product_exactly") {
        return;
    }
    let mut r = rng(12);
    // Warp bins, a block per row (> 2048 products), global tables (n > 2^20), empty rows,
    // entries of C with runs of ~180 products (a warp each in reuse_compute).
    let sizes = [
        (80, 60, 70, Shape::Uniform(8), Shape::Uniform(8)),
        (8, 300, 8, Shape::DenseRow, Shape::Uniform(8)),
        (60, 500, 500, Shape::PowerLaw, Shape::PowerLaw),
        (30, 300, 2000, Shape::DenseRow, Shape::Uniform(20)),
        (20, 30, 40, Shape::EmptyRows(3), Shape::Empty),
        (2, 1000, 1 << 21, Shape::DenseRow, Shape::Uniform(20)),
        (0, 10, 10, Shape::Uniform(2), Shape::Uniform(2)),
    ];
    let mut k = 0usize;
    for vt in [SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F] {
        let compute = if vt == SPBLK_R_64F { SPBLK_R_64F } else { SPBLK_R_32F };
        for &(m, kk, n, sa, sb) in &sizes {
            k += 1;
            let ity = if k % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
            let base = ((k / 2) % 2) as u32;
            let (ea, eb) = (pattern(&mut r, m, kk, sa), pattern(&mut r, kk, n, sb));
            let (va, vb) = (values(&mut r, ea.len()), values(&mut r, eb.len()));
            let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, m, kk, &ea, &va, ity, base, vt);
            let b = Sp::new(&mut r, SPBLK_FORMAT_CSR, kk, n, &eb, &vb, ity, base, vt);
            let mut b_row = vec![0i64; kk];
            eb.iter().for_each(|&(i, _)| b_row[i] += 1);
            let products: i64 = ea.iter().map(|&(_, j)| b_row[j]).sum();
            // The full protocol's nnz(C), for C's old values of the beta rounds.
            let full = run_spgemm(
                &mut Side::new(Kind::Host),
                (SPBLK_SPGEMM_DEFAULT, 1.0),
                &a,
                &b,
                compute,
                1.0,
                0.0,
                false,
                &|z| encode(&vec![0.0; z], vt),
            );
            let nnz = full.cols.len();
            let rounds: Vec<Round> = (0..3)
                .map(|t| Round {
                    va: values(&mut r, ea.len()),
                    vb: values(&mut r, eb.len()),
                    alpha: r.gen_range(0.5..2.0),
                    beta: if t == 1 { 0.75 } else { 0.0 },
                    c_old: if t == 1 { values(&mut r, nnz) } else { vec![f64::NAN; nnz] },
                })
                .collect();
            let device = k % 3 == 0;
            let what = format!("reuse case {k} type {vt} idx {ity} base {base} {m}x{kk}x{n} {sa:?} {sb:?}");
            for kind in [Kind::Host, Kind::Cuda] {
                let (count, got) = run_reuse(&mut Side::new(kind), &a, &b, &rounds, device);
                assert_eq!(count, products, "{what} {kind:?}: spblkSpGEMM_getNumProducts");
                for (t, (round, g)) in rounds.iter().zip(&got).enumerate() {
                    let (ra, rb) =
                        (Sp { v: encode(&round.va, vt), ..a.clone() }, Sp { v: encode(&round.vb, vt), ..b.clone() });
                    let old = encode(&round.c_old, vt);
                    let want = run_spgemm(
                        &mut Side::new(Kind::Host),
                        (SPBLK_SPGEMM_DEFAULT, 1.0),
                        &ra,
                        &rb,
                        compute,
                        round.alpha,
                        round.beta,
                        false,
                        &|_| old.clone(),
                    );
                    assert_eq!(g.offsets, want.offsets, "{what} {kind:?} round {t}: row offsets");
                    assert_eq!(g.cols, want.cols, "{what} {kind:?} round {t}: columns");
                    let (gv, wv) = (decode(&g.vals, vt), decode(&want.vals, vt));
                    for (e, (x, y)) in gv.iter().zip(&wv).enumerate() {
                        assert!(x.to_bits() == y.to_bits(), "{what} {kind:?} round {t}: value {e}: got {x}, want {y}");
                    }
                }
            }
        }
    }
}

#[test]
fn spgemm_protocol_steps_in_order() {
    if !gpu("spgemm_protocol_steps_in_order") {
        return;
    }
    let mut r = rng(13);
    let e = pattern(&mut r, 20, 20, Shape::Uniform(3));
    let v = values(&mut r, e.len());
    let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, 20, 20, &e, &v, SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    for kind in [Kind::Host, Kind::Cuda] {
        let mut side = Side::new(kind);
        let (ma, mc) = (a.descr(&mut side), a.descr(&mut side));
        let mut d = std::ptr::null_mut();
        ok(spblkSpGEMM_createDescr(&mut d), "spblkSpGEMM_createDescr");
        let null = std::ptr::null_mut::<c_void>();
        let (h, alg) = (side.handle, SPBLK_SPGEMM_DEFAULT);
        let mut products = 7i64;
        assert_eq!(spblkSpGEMM_getNumProducts(d, &mut products), SPBLK_STATUS_INVALID_VALUE, "{kind:?}");
        assert_eq!(products, 7, "{kind:?}: written on failure");
        let (mut s2, mut s3, mut s4, mut s5) = (0usize, 0usize, 0usize, 0usize);
        let st = spblkSpGEMMreuse_nnz(h, N, N, ma, ma, mc, alg, d, &mut s2, null, &mut s3, null, &mut s4, null);
        assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "{kind:?}: reuse_nnz before the work estimation");
        assert!(last_message().contains("spgemmDescr"), "{}", last_message());
        let mut s1 = 0usize;
        ok(spblkSpGEMMreuse_workEstimation(h, N, N, ma, ma, mc, alg, d, &mut s1, null), "size");
        let buf1 = side.buffer(s1);
        ok(spblkSpGEMMreuse_workEstimation(h, N, N, ma, ma, mc, alg, d, &mut s1, buf1), "reuse_workEstimation");
        let st = spblkSpGEMMreuse_copy(h, N, N, ma, ma, mc, alg, d, &mut s5, null);
        assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "{kind:?}: reuse_copy before reuse_nnz");
        ok(spblkSpGEMMreuse_nnz(h, N, N, ma, ma, mc, alg, d, &mut s2, null, &mut s3, null, &mut s4, null), "sizes");
        let buf2 = side.buffer(s2);
        let st = spblkSpGEMMreuse_nnz(h, N, N, ma, ma, mc, alg, d, &mut s2, buf2, &mut s3, null, &mut s4, null);
        assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "{kind:?}: some buffers NULL");
        assert!(last_message().contains("externalBuffer3"), "{}", last_message());
        let one = 1.0f32;
        let p = &one as *const f32 as *const c_void;
        let st = spblkSpGEMMreuse_compute(h, N, N, p, ma, ma, p, mc, SPBLK_R_32F, alg, d);
        assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "{kind:?}: reuse_compute before reuse_copy");
        // ALG3 needs estimateMemory's chunk_fraction before compute; the reuse path has no
        // such step, so it does not take ALG3.
        let mut s2 = 0usize;
        let st = spblkSpGEMM_compute(h, N, N, p, ma, ma, p, mc, SPBLK_R_32F, SPBLK_SPGEMM_ALG3, d, &mut s2, null);
        assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "{kind:?}: ALG3 compute without estimateMemory");
        assert!(last_message().contains("chunk_fraction"), "{}", last_message());
        let st = spblkSpGEMMreuse_workEstimation(h, N, N, ma, ma, mc, SPBLK_SPGEMM_ALG3, d, &mut s1, null);
        assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{kind:?}: the reuse path with ALG3");
        // estimateMemory: ALG2's and ALG3's step, chunk_fraction in (0, 1].
        let mut s3 = 0usize;
        let mut est = |alg, fraction| {
            spblkSpGEMM_estimateMemory(
                h,
                N,
                N,
                p,
                ma,
                ma,
                p,
                mc,
                SPBLK_R_32F,
                alg,
                d,
                fraction,
                &mut s3,
                null,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(est(SPBLK_SPGEMM_DEFAULT, 0.2), SPBLK_STATUS_INVALID_VALUE, "{kind:?}: estimateMemory with DEFAULT");
        assert!(last_message().contains("alg"), "{}", last_message());
        assert_eq!(est(SPBLK_SPGEMM_ALG2, 0.0), SPBLK_STATUS_INVALID_VALUE, "{kind:?}: chunk_fraction 0");
        assert!(last_message().contains("chunk_fraction"), "{}", last_message());
        assert_eq!(est(SPBLK_SPGEMM_ALG3, 1.5), SPBLK_STATUS_INVALID_VALUE, "{kind:?}: chunk_fraction 1.5");
        assert_eq!(est(SPBLK_SPGEMM_ALG3, f32::NAN), SPBLK_STATUS_INVALID_VALUE, "{kind:?}: chunk_fraction NaN");
        ok(est(SPBLK_SPGEMM_ALG3, 0.2), "estimateMemory (ALG3 size)");
        ok(est(SPBLK_SPGEMM_ALG2, 0.2), "estimateMemory (size)");
        assert!(s3 >= 1, "{kind:?}: buffer 3 size {s3}");
        ok(spblkSpGEMM_destroyDescr(d), "spblkSpGEMM_destroyDescr");
        spblkDestroySpMat(ma);
        spblkDestroySpMat(mc);
    }
}
