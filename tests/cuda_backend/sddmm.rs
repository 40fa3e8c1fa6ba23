//! SDDMM on the CUDA backend against the host: every precision, layout and pattern shape
//! with the default; the streaming kernel's fast path; ASpT (`SPBLK_SDDMM_ALG_ASPT`) against
//! the host's ASpT, and outside f32 (no tensor-core tiles) bit for bit against the default.

use super::*;

#[derive(Clone)]
pub(super) struct SddmmCase {
    pub(super) op_a: spblkOperation_t,
    pub(super) op_b: spblkOperation_t,
    pub(super) a: Dn,
    pub(super) b: Dn,
    pub(super) c: Sp,
    pub(super) alpha: f64,
    pub(super) beta: f64,
    pub(super) compute: spblkDataType_t,
    pub(super) device_scalars: bool,
    /// The algorithm value of every call (preprocess included).
    pub(super) alg: spblkSDDMMAlg_t,
    /// Whether spblkSDDMM_preprocess runs first (with it, the default may run ASpT).
    pub(super) preprocess: bool,
}

pub(super) fn run_sddmm(side: &mut Side, c: &SddmmCase) -> Vec<u8> {
    side.set_pointer_mode(c.device_scalars);
    let ap = side.put(&c.a.data);
    let a = c.a.descr(ap);
    let bp = side.put(&c.b.data);
    let b = c.b.descr(bp);
    let (p0, p1, pv) = (side.put(&c.c.a), side.put(&c.c.b), side.put(&c.c.v));
    let cd = c.c.descr_at(p0, p1, pv);
    let alpha = side.scalar(c.device_scalars, &scalar_bytes(c.alpha, c.compute));
    let beta = side.scalar(c.device_scalars, &scalar_bytes(c.beta, c.compute));
    let (h, alg) = (side.handle, c.alg);
    let mut size = 0usize;
    ok(
        spblkSDDMM_bufferSize(h, c.op_a, c.op_b, alpha, a, b, beta, cd, c.compute, alg, &mut size),
        "spblkSDDMM_bufferSize",
    );
    let buf = side.buffer(size);
    if c.preprocess {
        ok(
            spblkSDDMM_preprocess(h, c.op_a, c.op_b, alpha, a, b, beta, cd, c.compute, alg, buf),
            "spblkSDDMM_preprocess",
        );
    }
    ok(spblkSDDMM(h, c.op_a, c.op_b, alpha, a, b, beta, cd, c.compute, alg, buf), "spblkSDDMM");
    let out = side.get(pv, c.c.v.len());
    spblkDestroyDnMat(a);
    spblkDestroyDnMat(b);
    spblkDestroySpMat(cd);
    out
}

/// The error scale of an SDDMM case: the same product over magnitudes, on the host.
fn sddmm_scale(host: &mut Side, case: &SddmmCase, out: spblkDataType_t) -> Vec<f64> {
    let abs = SddmmCase {
        a: case.a.with_abs_values(),
        b: case.b.with_abs_values(),
        c: case.c.with_abs_values(),
        alpha: case.alpha.abs(),
        beta: case.beta.abs(),
        ..case.clone()
    };
    decode(&run_sddmm(host, &abs), out)
}

/// Case number `k`'s SDDMM on `entries` (m × n, inner dimension `depth`) with random operands in
/// the given operations and orders: exact values for k % 5 < 2, 32-bit indices for even k, base
/// (k / 2) % 2, device scalars for k % 4 >= 2, β = 0 with C NaN-filled for k % 3 == `beta_zero_at`;
/// the default algorithm, preprocessed.
fn random_case(
    r: &mut StdRng,
    k: usize,
    (m, n, depth): (usize, usize, usize),
    entries: &[(usize, usize)],
    (op_a, op_b, oa, ob): (spblkOperation_t, spblkOperation_t, spblkOrder_t, spblkOrder_t),
    (vin, out, compute): (spblkDataType_t, spblkDataType_t, spblkDataType_t),
    beta_zero_at: usize,
) -> SddmmCase {
    let exact = k % 5 < 2;
    let ity = if k % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
    let beta_zero = k % 3 == beta_zero_at;
    let cvals = if beta_zero { vec![f64::NAN; entries.len()] } else { some_values(r, entries.len(), exact) };
    let c = Sp::new(r, SPBLK_FORMAT_CSR, m, n, entries, &cvals, ity, ((k / 2) % 2) as u32, out);
    let a = if op_a == N { Dn::random(r, m, depth, oa, vin, exact) } else { Dn::random(r, depth, m, oa, vin, exact) };
    let b = if op_b == N { Dn::random(r, depth, n, ob, vin, exact) } else { Dn::random(r, n, depth, ob, vin, exact) };
    SddmmCase {
        op_a,
        op_b,
        a,
        b,
        c,
        alpha: some_scalar(r, 0.5, 2.0, exact),
        beta: if beta_zero { 0.0 } else { some_scalar(r, -1.0, 1.0, exact) },
        compute,
        device_scalars: k % 4 >= 2,
        alg: SPBLK_SDDMM_ALG_DEFAULT,
        preprocess: true,
    }
}

#[test]
fn sddmm_matches_host() {
    if !gpu("sddmm_matches_host") {
        return;
    }
    let mut r = rng(4);
    let mut k = 0usize;
    let depths = [1usize, 3, 16, 33, 100, 7, 600];
    for (vin, out, compute) in PRECISIONS {
        for (op_a, op_b) in [(N, N), (N, T), (T, N), (T, T)] {
            for (oa, ob) in [
                (SPBLK_ORDER_ROW, SPBLK_ORDER_ROW),
                (SPBLK_ORDER_ROW, SPBLK_ORDER_COL),
                (SPBLK_ORDER_COL, SPBLK_ORDER_ROW),
                (SPBLK_ORDER_COL, SPBLK_ORDER_COL),
            ] {
                k += 1;
                if quick_skip(k) {
                    continue;
                }
                let exact = k % 5 < 2;
                let (m, n) = if k % 13 == 0 { (0, 4) } else { (r.gen_range(1..60), r.gen_range(1..60)) };
                let depth = depths[k % depths.len()];
                let shape = shapes(k);
                let entries = pattern(&mut r, m, n, shape);
                let dims = (m, n, depth);
                let case = random_case(&mut r, k, dims, &entries, (op_a, op_b, oa, ob), (vin, out, compute), 0);
                let case = SddmmCase { alg: SPBLK_SDDMM_ALG_DEFAULT, ..case };
                let what =
                    format!("sddmm case {k} ({vin},{out}) op {op_a}{op_b} order {oa}{ob} {m}x{n} k {depth} {shape:?}");
                let mut host = Side::new(Kind::Host);
                let mut gpu = Side::new(Kind::Cuda);
                let want = decode(&run_sddmm(&mut host, &case), out);
                let (got, records) = spblk::trace::capture(|| run_sddmm(&mut gpu, &case));
                let got = decode(&got, out);
                let scale = sddmm_scale(&mut host, &case, out);
                compare(&what, &got, &want, &scale, depth, out, compute, exact);
                // A strided operand (op(A) column-major, op(B) row-major) is copied first.
                if !harness_on_host() {
                    let a_row = (oa == SPBLK_ORDER_ROW) != (op_a == T);
                    let b_row = (ob == SPBLK_ORDER_ROW) != (op_b == T);
                    let want_copies = if entries.is_empty() { 0 } else { u32::from(!a_row) + u32::from(b_row) };
                    assert_eq!(launched(&records, "spblk_dense_transpose"), want_copies, "{what}: transposes");
                }
            }
        }
    }
}

/// A default-algorithm case on the fast path's layout: op(A) (m x depth) row-major and op(B)
/// (depth x n) column-major, with leading dimensions that keep every row of A and column of B
/// 16-byte aligned (4 elements more on odd cases); beta = 0 where `beta_zero`, no preprocess.
fn fast_layout_case(
    r: &mut StdRng,
    c: Sp,
    (m, n, depth): (usize, usize, usize),
    (vin, compute): (spblkDataType_t, spblkDataType_t),
    exact: bool,
    case_no: usize,
    beta_zero: bool,
) -> SddmmCase {
    let ld = depth.next_multiple_of(4) + 4 * (case_no % 2);
    let mut dense = |rows: usize, cols: usize, order| {
        let outer = if order == SPBLK_ORDER_ROW { rows } else { cols };
        let data = encode(&some_values(r, ld * outer, exact), vin);
        Dn { rows: rows as i64, cols: cols as i64, ld: ld as i64, order, vt: vin, data }
    };
    let (a, b) = (dense(m, depth, SPBLK_ORDER_ROW), dense(depth, n, SPBLK_ORDER_COL));
    SddmmCase {
        op_a: N,
        op_b: N,
        a,
        b,
        c,
        alpha: some_scalar(r, 0.5, 2.0, exact),
        beta: if beta_zero { 0.0 } else { some_scalar(r, -1.0, 1.0, exact) },
        compute,
        device_scalars: case_no % 4 >= 2,
        alg: SPBLK_SDDMM_ALG_DEFAULT,
        preprocess: false,
    }
}

/// Rows long enough for SDDMM's fast path (row by row, two entries per step; the trace note
/// says which path ran), with op(A) row-major and op(B) column-major, aligned leading
/// dimensions, k from one slice's tail to a full 8G slice: correct, and the same bits when run
/// again.
#[test]
fn sddmm_long_rows_take_the_fast_path() {
    if !gpu("sddmm_long_rows_take_the_fast_path") || harness_on_host() {
        return;
    }
    let mut r = rng(6);
    let mut case_no = 0usize;
    for (vin, out, compute) in [PRECISIONS[0], PRECISIONS[1], PRECISIONS[2], PRECISIONS[3]] {
        for depth in [16usize, 33, 100, 256] {
            case_no += 1;
            let exact = case_no % 3 == 0;
            let ity = if case_no % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
            // Every row holds 100..200 entries: at least 4 per group and row for any width; and
            // ~450 K entries, enough for runs of 16 entries or more per group (small matrices
            // get shorter runs: src/backend/cuda/sddmm.rs).
            let (m, n) = (3000 + case_no, 400);
            let entries: Vec<(usize, usize)> = (0..m)
                .flat_map(|i| {
                    let len = r.gen_range(100..200);
                    let mut cols: Vec<usize> = (0..n).collect();
                    cols.shuffle(&mut r);
                    let mut row: Vec<usize> = cols[..len].to_vec();
                    row.sort_unstable();
                    row.into_iter().map(move |j| (i, j))
                })
                .collect();
            let beta_zero = case_no % 2 == 1;
            let cvals =
                if beta_zero { vec![f64::NAN; entries.len()] } else { some_values(&mut r, entries.len(), exact) };
            let c = Sp::new(&mut r, SPBLK_FORMAT_CSR, m, n, &entries, &cvals, ity, (case_no % 2) as u32, out);
            // No preprocess: the default's would find these rows' reuse and pick ASpT.
            let case = fast_layout_case(&mut r, c, (m, n, depth), (vin, compute), exact, case_no, beta_zero);
            let what = format!("sddmm long rows case {case_no} ({vin},{out}) {m}x{n} k {depth}");
            let mut host = Side::new(Kind::Host);
            let mut gpu = Side::new(Kind::Cuda);
            let want = decode(&run_sddmm(&mut host, &case), out);
            let (first, records) = spblk::trace::capture(|| run_sddmm(&mut gpu, &case));
            let notes: Vec<&String> =
                records.iter().filter(|rec| rec.function == "spblkSDDMM").flat_map(|rec| &rec.notes).collect();
            assert!(
                notes.iter().any(|note| note.starts_with("fast path")),
                "{what}: the fast path did not run: {notes:?}"
            );
            let again = run_sddmm(&mut gpu, &case);
            assert!(first == again, "{what}: a second run gave other bits");
            let scale = sddmm_scale(&mut host, &case, out);
            compare(&what, &decode(&first, out), &want, &scale, depth, out, compute, exact);
        }
    }
}

/// Small calls after the default's preprocess (up to `EntryRows::MAX_NNZ` entries): each
/// entry's row comes from the plan (the entries kernel), bit for bit what the call without the
/// preprocess computes by searching the offsets, against the host; rows in any column order,
/// both index types and bases, four precisions, widths of 4, 8 and 16 lanes, one entry per
/// group and (k <= 32, the larger matrices) several; with several entries per group and wider
/// k, the fast path keeps running (it reuses each row's op(A)).
#[test]
fn sddmm_small_calls_read_entry_rows_after_the_preprocess() {
    if !gpu("sddmm_small_calls_read_entry_rows_after_the_preprocess") || harness_on_host() {
        return;
    }
    let mut r = rng(16);
    let mut case_no = 0usize;
    for (vin, out, compute) in [PRECISIONS[0], PRECISIONS[1], PRECISIONS[2], PRECISIONS[3]] {
        for depth in [16usize, 33, 100] {
            case_no += 1;
            let exact = case_no % 3 == 0;
            let ity = if case_no % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
            // Half the cases have ~75 K entries: several per group.
            let several = case_no % 4 >= 2;
            let (m, n, most) = if several { (1500 + case_no, 300, 100) } else { (700 + 37 * case_no, 300, 12) };
            let entries: Vec<(usize, usize)> = (0..m)
                .flat_map(|i| {
                    let mut cols: Vec<usize> = (0..n).collect();
                    cols.shuffle(&mut r);
                    let len = r.gen_range(0..most);
                    cols[..len].iter().map(move |&j| (i, j)).collect::<Vec<_>>()
                })
                .collect();
            let cvals = some_values(&mut r, entries.len(), exact);
            let c = Sp::new(&mut r, SPBLK_FORMAT_CSR, m, n, &entries, &cvals, ity, (case_no % 2) as u32, out);
            let case = SddmmCase {
                preprocess: true,
                ..fast_layout_case(&mut r, c, (m, n, depth), (vin, compute), exact, case_no, false)
            };
            let what = format!("sddmm small case {case_no} ({vin},{out}) {m}x{n} nnz {} k {depth}", entries.len());
            let mut host = Side::new(Kind::Host);
            let mut gpu = Side::new(Kind::Cuda);
            let want = decode(&run_sddmm(&mut host, &case), out);
            let (first, records) = spblk::trace::capture(|| run_sddmm(&mut gpu, &case));
            let entries_path = u32::from(!several || depth <= 32);
            assert_eq!(launched(&records, "spblk_sddmm_csr_entries_"), entries_path, "{what}: the entries kernel");
            assert_eq!(launched(&records, "spblk_convert_rows_"), 1, "{what}: the preprocess's entry rows");
            let searched = SddmmCase { preprocess: false, ..case.clone() };
            let (plain, records) = spblk::trace::capture(|| run_sddmm(&mut gpu, &searched));
            assert_eq!(launched(&records, "spblk_sddmm_csr_entries_"), 0, "{what}: entries kernel without a plan");
            assert!(first == plain, "{what}: the entries path and the searching path differ");
            let scale = sddmm_scale(&mut host, &case, out);
            compare(&what, &decode(&first, out), &want, &scale, depth, out, compute, exact);
        }
    }
}

/// Rows in groups of `delta` that share `blocks` column blocks of width `delta` (each entry
/// of a shared block present with probability `rho`), the groups' rows scrambled: the
/// structure ASpT's row keys must find again. Every row also gets `extra` scattered entries.
pub fn scrambled_blocks(
    r: &mut StdRng,
    (m, n): (usize, usize),
    delta: usize,
    blocks: usize,
    rho: f64,
    extra: usize,
) -> Vec<(usize, usize)> {
    let mut rows: Vec<usize> = (0..m).collect();
    rows.shuffle(r);
    let nb = n.div_ceil(delta);
    let mut e = Vec::new();
    for group in rows.chunks(delta) {
        let mut cols: Vec<usize> = (0..nb).collect();
        cols.shuffle(r);
        cols.truncate(blocks.min(nb));
        for &i in group {
            let mut row: Vec<usize> =
                cols.iter().flat_map(|&b| b * delta..((b + 1) * delta).min(n)).filter(|_| r.gen_bool(rho)).collect();
            row.extend((0..extra).map(|_| r.gen_range(0..n)));
            row.sort_unstable();
            row.dedup();
            e.extend(row.into_iter().map(|j| (i, j)));
        }
    }
    e.sort_unstable();
    e
}

/// SPBLK_SDDMM_ALG_ASPT in every precision and layout, on scrambled block patterns and the
/// generic shapes, k up to the CUDA limit: matches the host's ASpT, runs its own kernel (once,
/// nothing of the streaming kernel: in f32 with rows sorted by column the tensor-core tiles, k
/// <= 32 or not, else the column-ordered dot products), and gives the same bits when run again.
/// Without the tiles it gives bit for bit what the default gives (the same dot products in the
/// same order); the tiles' split TF32 sums differ from those in the last bits, within the
/// tolerance.
#[test]
fn sddmm_aspt_matches_host_and_the_default() {
    if !gpu("sddmm_aspt_matches_host_and_the_default") {
        return;
    }
    let mut r = rng(8);
    let mut k = 0usize;
    let depths = [1usize, 7, 32, 33, 100, 128, 256];
    for (vin, out, compute) in PRECISIONS {
        for (op_a, op_b) in [(N, T), (T, N), (N, N), (T, T)] {
            for (oa, ob) in [(SPBLK_ORDER_ROW, SPBLK_ORDER_COL), (SPBLK_ORDER_COL, SPBLK_ORDER_ROW)] {
                k += 1;
                if quick_skip(k) {
                    continue;
                }
                let exact = k % 5 < 2;
                let (m, n) = (r.gen_range(40..300), r.gen_range(40..300));
                let max_depth = if compute == SPBLK_R_64F { 128 } else { 256 };
                let depth = depths[k % depths.len()].min(max_depth);
                let entries = if k % 3 == 0 {
                    pattern(&mut r, m, n, shapes(k))
                } else {
                    // Full blocks too: a row's entries in one chunk of the tiles then exceed 32.
                    scrambled_blocks(&mut r, (m, n), [8, 16, 32][k % 3], 3, [0.5, 1.0][k % 2], 2)
                };
                let dims = (m, n, depth);
                let case = random_case(&mut r, k, dims, &entries, (op_a, op_b, oa, ob), (vin, out, compute), 1);
                let case = SddmmCase { alg: SPBLK_SDDMM_ALG_ASPT, ..case };
                let what =
                    format!("sddmm aspt case {k} ({vin},{out}) op {op_a}{op_b} order {oa}{ob} {m}x{n} k {depth}");
                let mut host = Side::new(Kind::Host);
                let mut gpu = Side::new(Kind::Cuda);
                let want = decode(&run_sddmm(&mut host, &case), out);
                let (first, records) = spblk::trace::capture(|| run_sddmm(&mut gpu, &case));
                let scale = sddmm_scale(&mut host, &case, out);
                compare(&what, &decode(&first, out), &want, &scale, depth, out, compute, exact);
                assert!(run_sddmm(&mut gpu, &case) == first, "{what}: a second run gave other bits");
                // f32 with every row sorted by column: the tensor-core tiles.
                let sorted = entries.windows(2).all(|w| w[0].0 != w[1].0 || w[0].1 <= w[1].1);
                let tiles = (vin, out) == (SPBLK_R_32F, SPBLK_R_32F) && sorted;
                if !tiles {
                    // Without a preprocess the default streams (no plan).
                    let streamed = SddmmCase { alg: SPBLK_SDDMM_ALG_DEFAULT, preprocess: false, ..case.clone() };
                    assert!(run_sddmm(&mut gpu, &streamed) == first, "{what}: ASpT and the streaming default differ");
                }
                if !harness_on_host() && !entries.is_empty() {
                    let tile_kernel =
                        if depth <= 32 { "spblk_sddmm_aspt_tiles_f32_k32" } else { "spblk_sddmm_aspt_tiles_f32_k256" };
                    assert_eq!(launched(&records, "spblk_sddmm_aspt_"), 1, "{what}: ASpT kernels");
                    assert_eq!(launched(&records, tile_kernel), u32::from(tiles), "{what}: the tiles' kernel");
                    assert_eq!(launched(&records, "spblk_sddmm_csr_"), 0, "{what}: the streaming kernel ran");
                }
            }
        }
    }
}
