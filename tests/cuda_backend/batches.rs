//! Strided batches (`spblkCsrSetStridedBatch`, `spblkCooSetStridedBatch`,
//! `spblkDnMatSetStridedBatch`) in SpMM and SDDMM, on the host backend and (with a GPU) the
//! CUDA backend, against a naive f64 reference per batch: every combination of batched and
//! shared operands, shared and separate CSR offsets, padded strides (the gaps between batches
//! must stay untouched), CSR and COO, both index widths and bases, opA/opB N and T, both
//! orders. Then the rules: counts that disagree, overlapping outputs, operations that take one
//! matrix, plan-based algorithms on batched operands.

use super::*;

const BATCHES: usize = 3;

/// `count` sparse matrices with the same row lengths (so CSR offsets can be shared) and nnz,
/// laid out with `stride` elements between batches of each array (0: batch 0's arrays only).
struct SpBatch {
    mats: Vec<Sp>,
    entries: Vec<Vec<(usize, usize, f64)>>,
    first_stride: usize,
    entries_stride: usize,
}

impl SpBatch {
    #[allow(clippy::too_many_arguments)]
    fn new(
        r: &mut StdRng,
        format: spblkFormat_t,
        rows: usize,
        cols: usize,
        count: usize,
        ity: spblkIndexType_t,
        base: spblkIndexBase_t,
        vt: spblkDataType_t,
    ) -> SpBatch {
        let lens: Vec<usize> = (0..rows).map(|_| r.gen_range(0..=cols.min(6))).collect();
        let (mut mats, mut entries) = (vec![], vec![]);
        for _ in 0..count {
            let mut pattern = vec![];
            for (i, &len) in lens.iter().enumerate() {
                let mut cs: Vec<usize> = (0..cols).collect();
                cs.shuffle(r);
                pattern.extend(cs[..len].iter().map(|&j| (i, j)));
            }
            let vals = values(r, pattern.len());
            mats.push(Sp::new(r, format, rows, cols, &pattern, &vals, ity, base, vt));
            entries.push(pattern.iter().zip(&vals).map(|(&(i, j), &v)| (i, j, quantized(v, vt))).collect());
        }
        let nnz = mats[0].nnz as usize;
        // CSR offsets: shared (stride 0) or one copy per batch; the rest padded or not.
        let first_len = if format == SPBLK_FORMAT_CSR { rows + 1 } else { nnz };
        let shared_first = count > 1 && format == SPBLK_FORMAT_CSR && r.gen_bool(0.5);
        let pad = r.gen_range(0..3);
        let entries_stride = if count == 1 { 0 } else { nnz + pad };
        let first_stride = if count == 1 || shared_first {
            0
        } else if format == SPBLK_FORMAT_COO {
            entries_stride
        } else {
            first_len + r.gen_range(0..3)
        };
        SpBatch { mats, entries, first_stride, entries_stride }
    }

    /// The batch in `side`'s memory, as one descriptor.
    fn descr(&self, side: &mut Side) -> (spblkSpMatDescr_t, *mut c_void, usize) {
        let m0 = &self.mats[0];
        let (isz, vsz) = (isize_of(m0.ity), vsize(m0.vt));
        let pack = |arrays: Vec<&Vec<u8>>, stride: usize, size: usize| -> Vec<u8> {
            let mut out = vec![0xEEu8; (stride * (arrays.len() - 1)) * size + arrays[0].len()];
            for (i, a) in arrays.iter().enumerate() {
                out[i * stride * size..][..a.len()].copy_from_slice(a);
            }
            out
        };
        let first = if self.first_stride == 0 { vec![&m0.a] } else { self.mats.iter().map(|m| &m.a).collect() };
        let second: Vec<&Vec<u8>> = self.mats.iter().map(|m| &m.b).collect();
        let vals: Vec<&Vec<u8>> = self.mats.iter().map(|m| &m.v).collect();
        let v = pack(vals, self.entries_stride, vsz);
        let (pa, pb, pv) = (
            side.put(&pack(first, self.first_stride, isz)),
            side.put(&pack(second, self.entries_stride, isz)),
            side.put(&v),
        );
        let d = m0.descr_at(pa, pb, pv);
        let count = self.mats.len() as i32;
        if count > 1 {
            let st = if m0.format == SPBLK_FORMAT_CSR {
                spblk::capi::batch::spblkCsrSetStridedBatch(
                    d,
                    count,
                    self.first_stride as i64,
                    self.entries_stride as i64,
                )
            } else {
                spblk::capi::batch::spblkCooSetStridedBatch(d, count, self.entries_stride as i64)
            };
            ok(st, "set strided batch");
        }
        (d, pv, v.len())
    }
}

fn quantized(v: f64, vt: spblkDataType_t) -> f64 {
    decode(&encode(&[v], vt), vt)[0]
}

/// `count` dense matrices of one layout, `stride` elements apart (padded or not).
struct DnBatch {
    mats: Vec<Dn>,
    stride: usize,
}

impl DnBatch {
    fn new(
        r: &mut StdRng,
        rows: usize,
        cols: usize,
        order: spblkOrder_t,
        vt: spblkDataType_t,
        count: usize,
    ) -> DnBatch {
        let first = Dn::random(r, rows, cols, order, vt, false);
        let per = first.data.len() / vsize(vt);
        let mut mats = vec![first.clone()];
        for _ in 1..count {
            mats.push(Dn { data: encode(&values(r, per), vt), ..first.clone() });
        }
        let stride = if count == 1 { 0 } else { per + r.gen_range(0..3) };
        DnBatch { mats, stride }
    }

    fn bytes(&self) -> Vec<u8> {
        let size = vsize(self.mats[0].vt);
        let n = self.mats.len();
        let mut out = encode(&vec![f64::NAN; self.stride * (n - 1) + self.mats[0].data.len() / size], self.mats[0].vt);
        for (i, m) in self.mats.iter().enumerate() {
            out[i * self.stride * size..][..m.data.len()].copy_from_slice(&m.data);
        }
        out
    }

    fn descr(&self, p: *mut c_void) -> spblkDnMatDescr_t {
        let d = self.mats[0].descr(p);
        if self.mats.len() > 1 {
            ok(
                spblk::capi::batch::spblkDnMatSetStridedBatch(d, self.mats.len() as i32, self.stride as i64),
                "spblkDnMatSetStridedBatch",
            );
        }
        d
    }

    /// Element (i, j) of op(batch b) as f64.
    fn at(&self, b: usize, op: spblkOperation_t, i: usize, j: usize) -> f64 {
        let m = &self.mats[b.min(self.mats.len() - 1)];
        let (i, j) = if op == N { (i, j) } else { (j, i) };
        let k = if m.order == SPBLK_ORDER_ROW { i * m.ld as usize + j } else { i + j * m.ld as usize };
        decode(&m.data[k * vsize(m.vt)..][..vsize(m.vt)], m.vt)[0]
    }
}

fn pick<T: Copy>(r: &mut StdRng, xs: &[T]) -> T {
    *xs.choose(r).unwrap()
}

/// Which operands are batched: both, only the sparse one, only the dense one(s).
const MODES: [(bool, bool); 3] = [(true, true), (true, false), (false, true)];

#[test]
fn spmm_strided_batches_match_reference() {
    for kind in sides("spmm_strided_batches_match_reference") {
        let mut side = Side::new(kind);
        let mut r = rng(0xBA7C);
        for case in 0..48 {
            let (sparse_batched, dense_batched) = MODES[case % 3];
            let format = pick(&mut r, &[SPBLK_FORMAT_CSR, SPBLK_FORMAT_COO]);
            let vt = pick(&mut r, &[SPBLK_R_32F, SPBLK_R_64F]);
            let (ity, base) = (pick(&mut r, &[SPBLK_INDEX_32I, SPBLK_INDEX_64I]), pick(&mut r, &[0, 1]));
            let (op_a, op_b) = (pick(&mut r, &[N, T]), pick(&mut r, &[N, T]));
            let (m, k, n) = (r.gen_range(1..40), r.gen_range(1..30), r.gen_range(1..20));
            let (ar, ac) = if op_a == N { (m, k) } else { (k, m) };
            let a = SpBatch::new(&mut r, format, ar, ac, if sparse_batched { BATCHES } else { 1 }, ity, base, vt);
            let (br, bc) = if op_b == N { (k, n) } else { (n, k) };
            let order = pick(&mut r, &[SPBLK_ORDER_ROW, SPBLK_ORDER_COL]);
            let b = DnBatch::new(&mut r, br, bc, order, vt, if dense_batched { BATCHES } else { 1 });
            let c_order = pick(&mut r, &[SPBLK_ORDER_ROW, SPBLK_ORDER_COL]);
            let c = DnBatch::new(&mut r, m, n, c_order, vt, BATCHES);
            let (alpha, beta) = (pick(&mut r, &[1.0, -0.5]), pick(&mut r, &[0.0, 1.5]));
            let family = if format == SPBLK_FORMAT_CSR { SPBLK_SPMM_CSR_ALG2 } else { SPBLK_SPMM_COO_ALG4 };
            let alg = pick(&mut r, &[SPBLK_SPMM_ALG_DEFAULT, family]);
            let what = format!(
                "{kind:?} SpMM case {case}: A batched {sparse_batched}, B batched {dense_batched}, fmt {format} \
                 {vt} ity {ity} base {base} op {op_a}/{op_b} {m}x{k}x{n} alg {alg} strides {}/{} {} {}",
                a.first_stride, a.entries_stride, b.stride, c.stride
            );
            let (da, _, _) = a.descr(&mut side);
            let bp = side.put(&b.bytes());
            let db = b.descr(bp);
            let c_bytes = c.bytes();
            let cp = side.put(&c_bytes);
            let dc = c.descr(cp);
            let (al, be) = (side.scalar(false, &scalar_bytes(alpha, vt)), side.scalar(false, &scalar_bytes(beta, vt)));
            side.set_pointer_mode(false);
            let h = side.handle;
            let mut size = 0usize;
            ok(spblkSpMM_bufferSize(h, op_a, op_b, al, da, db, be, dc, vt, alg, &mut size), &what);
            let buf = side.buffer(size);
            ok(spblkSpMM_preprocess(h, op_a, op_b, al, da, db, be, dc, vt, alg, buf), &what);
            ok(spblkSpMM(h, op_a, op_b, al, da, db, be, dc, vt, alg, buf), &what);
            let got = decode(&side.get(cp, c_bytes.len()), vt);
            let before = decode(&c_bytes, vt);
            let mut touched = vec![false; got.len()];
            for bi in 0..BATCHES {
                let ents = &a.entries[if sparse_batched { bi } else { 0 }];
                let (mut g, mut want, mut scale) = (vec![], vec![], vec![]);
                for i in 0..m {
                    for j in 0..n {
                        let (mut sum, mut abs) = (0.0, 0.0);
                        for &(ri, ci, v) in ents {
                            let (oi, ok_) = if op_a == N { (ri, ci) } else { (ci, ri) };
                            if oi == i {
                                let p = v * b.at(bi, op_b, ok_, j);
                                sum += p;
                                abs += p.abs();
                            }
                        }
                        let cm = &c.mats[bi];
                        let pos = bi * c.stride
                            + if cm.order == SPBLK_ORDER_ROW { i * cm.ld as usize + j } else { i + j * cm.ld as usize };
                        touched[pos] = true;
                        let old = if beta == 0.0 { 0.0 } else { before[pos] };
                        g.push(got[pos]);
                        want.push(alpha * sum + beta * old);
                        scale.push(alpha.abs() * abs + beta.abs() * old.abs());
                    }
                }
                compare(&format!("{what}, batch {bi}"), &g, &want, &scale, k, vt, vt, false);
            }
            for (pos, &t) in touched.iter().enumerate() {
                if !t {
                    let same = got[pos].to_bits() == before[pos].to_bits() || got[pos].is_nan() && before[pos].is_nan();
                    assert!(same, "{what}: element {pos} of C outside every batch was written");
                }
            }
            spblkDestroySpMat(da);
            spblkDestroyDnMat(db);
            spblkDestroyDnMat(dc);
        }
    }
}

#[test]
fn sddmm_strided_batches_match_reference() {
    for kind in sides("sddmm_strided_batches_match_reference") {
        let mut side = Side::new(kind);
        let mut r = rng(0x5DD8);
        for case in 0..48 {
            let (a_batched, b_batched) = [(true, true), (true, false), (false, true), (false, false)][case % 4];
            let vt = pick(&mut r, &[SPBLK_R_32F, SPBLK_R_64F]);
            let (ity, base) = (pick(&mut r, &[SPBLK_INDEX_32I, SPBLK_INDEX_64I]), pick(&mut r, &[0, 1]));
            let (op_a, op_b) = (pick(&mut r, &[N, T]), pick(&mut r, &[N, T]));
            let (m, k, n) = (r.gen_range(1..40), r.gen_range(1..24), r.gen_range(1..30));
            let c = SpBatch::new(&mut r, SPBLK_FORMAT_CSR, m, n, BATCHES, ity, base, vt);
            let (ar, ac) = if op_a == N { (m, k) } else { (k, m) };
            let (br, bc) = if op_b == N { (k, n) } else { (n, k) };
            let orders =
                [pick(&mut r, &[SPBLK_ORDER_ROW, SPBLK_ORDER_COL]), pick(&mut r, &[SPBLK_ORDER_ROW, SPBLK_ORDER_COL])];
            let a = DnBatch::new(&mut r, ar, ac, orders[0], vt, if a_batched { BATCHES } else { 1 });
            let b = DnBatch::new(&mut r, br, bc, orders[1], vt, if b_batched { BATCHES } else { 1 });
            let (alpha, beta) = (pick(&mut r, &[1.0, 0.75]), pick(&mut r, &[0.0, -1.0]));
            let what = format!(
                "{kind:?} SDDMM case {case}: A batched {a_batched}, B batched {b_batched}, {vt} ity {ity} base {base} \
                 op {op_a}/{op_b} {m}x{k}x{n} strides {}/{} {} {}",
                c.first_stride, c.entries_stride, a.stride, b.stride
            );
            let ap = side.put(&a.bytes());
            let da = a.descr(ap);
            let bp = side.put(&b.bytes());
            let db = b.descr(bp);
            let (dc, vp, vlen) = c.descr(&mut side);
            let before = decode(&side.get(vp, vlen), vt);
            let (al, be) = (side.scalar(false, &scalar_bytes(alpha, vt)), side.scalar(false, &scalar_bytes(beta, vt)));
            side.set_pointer_mode(false);
            let (h, alg) = (side.handle, SPBLK_SDDMM_ALG_DEFAULT);
            let mut size = 0usize;
            ok(spblkSDDMM_bufferSize(h, op_a, op_b, al, da, db, be, dc, vt, alg, &mut size), &what);
            let buf = side.buffer(size);
            ok(spblkSDDMM_preprocess(h, op_a, op_b, al, da, db, be, dc, vt, alg, buf), &what);
            ok(spblkSDDMM(h, op_a, op_b, al, da, db, be, dc, vt, alg, buf), &what);
            let got = decode(&side.get(vp, vlen), vt);
            let mut touched = vec![false; got.len()];
            for bi in 0..BATCHES {
                // The stored order of batch bi's values: the CSR built by Sp::new keeps the
                // pattern's order, so entry e of `entries[bi]` is value e.
                let (mut g, mut want, mut scale) = (vec![], vec![], vec![]);
                for (e, &(i, j, old)) in c.entries[bi].iter().enumerate() {
                    let (mut sum, mut abs) = (0.0, 0.0);
                    for kk in 0..k {
                        let p = a.at(bi, op_a, i, kk) * b.at(bi, op_b, kk, j);
                        sum += p;
                        abs += p.abs();
                    }
                    let pos = bi * c.entries_stride + e;
                    touched[pos] = true;
                    assert_eq!(before[pos].to_bits(), old.to_bits(), "{what}: test layout");
                    let old = if beta == 0.0 { 0.0 } else { old };
                    g.push(got[pos]);
                    want.push(alpha * sum + beta * old);
                    scale.push(alpha.abs() * abs + beta.abs() * old.abs());
                }
                compare(&format!("{what}, batch {bi}"), &g, &want, &scale, k, vt, vt, false);
            }
            for (pos, &t) in touched.iter().enumerate() {
                assert!(
                    t || got[pos].to_bits() == before[pos].to_bits(),
                    "{what}: value {pos} between batches written"
                );
            }
            spblkDestroyDnMat(da);
            spblkDestroyDnMat(db);
            spblkDestroySpMat(dc);
        }
    }
}

/// Status and message of a call.
fn fails(status: spblkStatus_t, want: spblkStatus_t, words: &str, what: &str) {
    let message = last_message();
    assert_eq!(status, want, "{what}: {message}");
    assert!(message.contains(words), "{what}: message {message:?} lacks {words:?}");
}

#[test]
fn strided_batch_rules() {
    use spblk::capi::batch::*;
    let mut side = Side::new(Kind::Host);
    let mut r = rng(7);
    let h = side.handle;
    let a = SpBatch::new(&mut r, SPBLK_FORMAT_CSR, 6, 5, 1, SPBLK_INDEX_32I, 0, SPBLK_R_32F);
    let (da, _, _) = a.descr(&mut side);
    let b = DnBatch::new(&mut r, 5, 4, SPBLK_ORDER_ROW, SPBLK_R_32F, 1);
    let bp = side.put(&b.bytes());
    let db = b.descr(bp);
    let c = DnBatch::new(&mut r, 6, 4, SPBLK_ORDER_ROW, SPBLK_R_32F, 1);
    let cp = side.put(&encode(&vec![0.0; 200], SPBLK_R_32F));
    let dc = c.descr(cp);
    let (one, zero) =
        (side.scalar(false, &scalar_bytes(1.0, SPBLK_R_32F)), side.scalar(false, &scalar_bytes(0.0, SPBLK_R_32F)));
    let nnz = a.mats[0].nnz;

    // Setters: counts and strides checked, and read back.
    let (mut count, mut stride) = (0, 0i64);
    ok(spblkSpMatGetStridedBatch(da, &mut count), "get");
    assert_eq!(count, 1);
    fails(spblkCsrSetStridedBatch(da, 0, 0, 0), SPBLK_STATUS_INVALID_VALUE, "batchCount", "count 0");
    fails(spblkCsrSetStridedBatch(da, 2, 3, 0), SPBLK_STATUS_INVALID_VALUE, "offsetsBatchStride", "offsets overlap");
    if nnz > 1 {
        fails(
            spblkCsrSetStridedBatch(da, 2, 0, nnz - 1),
            SPBLK_STATUS_INVALID_VALUE,
            "columnsValuesBatchStride",
            "entries overlap",
        );
    }
    fails(spblkCooSetStridedBatch(da, 2, 0), SPBLK_STATUS_INVALID_VALUE, "not COO", "COO setter on CSR");
    fails(spblkDnMatSetStridedBatch(dc, 2, 23), SPBLK_STATUS_INVALID_VALUE, "batchStride", "dense overlap");
    ok(spblkDnMatSetStridedBatch(dc, 3, 30), "dense batch");
    ok(spblkDnMatGetStridedBatch(dc, &mut count, &mut stride), "dense get");
    assert_eq!((count, stride), (3, 30));

    // Counts must agree: matA of 2 against matC of 3.
    ok(spblkCsrSetStridedBatch(da, 2, 0, nnz), "sparse batch");
    ok(spblkSpMatGetStridedBatch(da, &mut count), "get");
    assert_eq!(count, 2);
    let mut size = 0usize;
    let alg = SPBLK_SPMM_ALG_DEFAULT;
    fails(
        spblkSpMM_bufferSize(h, N, N, one, da, db, zero, dc, SPBLK_R_32F, alg, &mut size),
        SPBLK_STATUS_INVALID_VALUE,
        "batchCount 3 but matA has 2",
        "count mismatch",
    );
    // An output whose batches overlap: stride 0.
    ok(spblkDnMatSetStridedBatch(dc, 2, 0), "dense batch 0");
    fails(
        spblkSpMM_bufferSize(h, N, N, one, da, db, zero, dc, SPBLK_R_32F, alg, &mut size),
        SPBLK_STATUS_INVALID_VALUE,
        "would overlap",
        "overlapping C",
    );
    ok(spblkDnMatSetStridedBatch(dc, 2, 30), "dense batch");
    ok(spblkSpMM_bufferSize(h, N, N, one, da, db, zero, dc, SPBLK_R_32F, alg, &mut size), "batched SpMM size");
    // Plan-based algorithms cannot run a batched matA.
    fails(
        spblkSpMM_bufferSize(h, N, N, one, da, db, zero, dc, SPBLK_R_32F, SPBLK_SPMM_ALG_RODE, &mut size),
        SPBLK_STATUS_NOT_SUPPORTED,
        "a batched matA",
        "RoDe on a batch",
    );
    // SpMV, SpGEMM and spblkAnalyze take one matrix.
    let x = side.put(&encode(&[1.0; 5], SPBLK_R_32F));
    let y = side.put(&encode(&[0.0; 6], SPBLK_R_32F));
    let (mut dx, mut dy) = (std::ptr::null_mut(), std::ptr::null_mut());
    ok(spblkCreateDnVec(&mut dx, 5, x, SPBLK_R_32F), "x");
    ok(spblkCreateDnVec(&mut dy, 6, y, SPBLK_R_32F), "y");
    fails(
        spblkSpMV_bufferSize(h, N, one, da, dx, zero, dy, SPBLK_R_32F, SPBLK_SPMV_ALG_DEFAULT, &mut size),
        SPBLK_STATUS_NOT_SUPPORTED,
        "SpMV takes one",
        "SpMV on a batch",
    );
    let mut gd = std::ptr::null_mut();
    ok(spblkSpGEMM_createDescr(&mut gd), "spgemm descr");
    fails(
        spblkSpGEMM_workEstimation(
            h,
            N,
            N,
            one,
            da,
            da,
            zero,
            da,
            SPBLK_R_32F,
            SPBLK_SPGEMM_DEFAULT,
            gd,
            &mut size,
            std::ptr::null_mut(),
        ),
        SPBLK_STATUS_NOT_SUPPORTED,
        "SpGEMM takes one",
        "SpGEMM on a batch",
    );
    spblkSpGEMM_destroyDescr(gd);
    spblkDestroyDnVec(dx);
    spblkDestroyDnVec(dy);
    spblkDestroySpMat(da);
    spblkDestroyDnMat(db);
    spblkDestroyDnMat(dc);
}
