//! `SPBLK_SPMM_ALG_VBR` / `_TF32` on the CUDA backend (the tensor-core kernel) against the
//! host backend's VBR reference, CUDA's CSR kernel, and an f64 product: plans of every shape
//! (group heights 1 to 200, an empty group, a group with one block, a group with every
//! block), block widths that are and are not multiples of the 16-byte copy, B and C in both
//! orders with padded leading dimensions, N on and off the column tiles; the mma.sync kernels
//! and, on compute capability 9.0, the TMA/wgmma ones.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;
use spblk::analysis::one_sa::{self, CsrPattern, OneSaParams};
use spblk::capi::analyze::*;
use spblk::capi::dense::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::types::*;

use super::support::*;

const N: spblkOperation_t = SPBLK_OPERATION_NON_TRANSPOSE;
const T: spblkOperation_t = SPBLK_OPERATION_TRANSPOSE;

/// Rows in families that share one set of column blocks (1-SA never splits identical
/// quotient rows, so each family lies inside one group): heights from `heights`, family 0
/// without entries, family 1 with a single block, family 2 with every block. Rows shuffled.
fn family_pattern(r: &mut StdRng, cols: usize, bw: usize, heights: &[usize]) -> (usize, Vec<(usize, usize)>) {
    let nb = cols.div_ceil(bw);
    let rows: usize = heights.iter().sum();
    let mut order: Vec<usize> = (0..rows).collect();
    order.shuffle(r);
    let mut entries = Vec::new();
    let mut next = 0;
    for (f, &h) in heights.iter().enumerate() {
        let blocks: Vec<usize> = match f {
            0 => vec![],
            1 => vec![r.gen_range(0..nb)],
            2 => (0..nb).collect(),
            _ => {
                let mut all: Vec<usize> = (0..nb).collect();
                all.shuffle(r);
                all.truncate(r.gen_range(1..=nb.min(6)));
                all
            }
        };
        for _ in 0..h {
            let row = order[next];
            next += 1;
            for &b in &blocks {
                let (c0, c1) = (b * bw, ((b + 1) * bw).min(cols));
                // At least one entry per block (the quotient row stays the family's).
                let mut cs: Vec<usize> = (c0..c1).filter(|_| r.gen_bool(0.4)).collect();
                if cs.is_empty() {
                    cs.push(r.gen_range(c0..c1));
                }
                entries.extend(cs.into_iter().map(|c| (row, c)));
            }
        }
    }
    entries.sort_unstable();
    (rows, entries)
}

/// Group heights 1-SA finds for the pattern (the same function `spblkAnalyze` runs).
fn group_heights(rows: usize, cols: usize, entries: &[(usize, usize)], params: &OneSaParams) -> Vec<usize> {
    let mut row_ptr = vec![0usize; rows + 1];
    for &(i, _) in entries {
        row_ptr[i + 1] += 1;
    }
    for i in 0..rows {
        row_ptr[i + 1] += row_ptr[i];
    }
    let col_idx: Vec<usize> = entries.iter().map(|e| e.1).collect();
    let g = one_sa::group_rows(&CsrPattern { rows, cols, row_ptr: &row_ptr, col_idx: &col_idx }, params);
    g.group_ptr.windows(2).map(|w| w[1] - w[0]).collect()
}

struct VbrCase {
    a: Sp,
    b: Dn,
    c: Dn,
    op_b: spblkOperation_t,
    alpha: f64,
    beta: f64,
    block_width: i64,
    max_height: i64,
    device_scalars: bool,
}

/// Runs `alg` on a fresh descriptor (analysed first unless the algorithm is a CSR one);
/// returns C's bytes or the status of the first failing call.
fn run(side: &mut Side, c: &VbrCase, alg: spblkSpMMAlg_t) -> Result<Vec<u8>, spblkStatus_t> {
    side.set_pointer_mode(c.device_scalars);
    let a = c.a.descr(side);
    if alg == SPBLK_SPMM_ALG_VBR || alg == SPBLK_SPMM_ALG_VBR_TF32 {
        let mut p: spblkAnalysisParams = unsafe { std::mem::zeroed() };
        ok(spblkAnalysisParamsInit(&mut p, std::mem::size_of::<spblkAnalysisParams>()), "params");
        p.blockWidth = c.block_width;
        p.maxGroupHeight = c.max_height;
        ok(spblkAnalyze(side.handle, a, SPBLK_ANALYSIS_1SA, &p), "spblkAnalyze");
    }
    let bp = side.put(&c.b.data);
    let b = c.b.descr(bp);
    let cp = side.put(&c.c.data);
    let cd = c.c.descr(cp);
    let compute = SPBLK_R_32F;
    let alpha = side.scalar(c.device_scalars, &scalar_bytes(c.alpha, compute));
    let beta = side.scalar(c.device_scalars, &scalar_bytes(c.beta, compute));
    let h = side.handle;
    let mut size = 0usize;
    let mut st = spblkSpMM_bufferSize(h, N, c.op_b, alpha, a, b, beta, cd, compute, alg, &mut size);
    let buf = side.buffer(size);
    if st == SPBLK_STATUS_SUCCESS {
        st = spblkSpMM_preprocess(h, N, c.op_b, alpha, a, b, beta, cd, compute, alg, buf);
    }
    if st == SPBLK_STATUS_SUCCESS {
        st = spblkSpMM(h, N, c.op_b, alpha, a, b, beta, cd, compute, alg, buf);
    }
    let out = side.get(cp, c.c.data.len());
    spblkDestroySpMat(a);
    spblkDestroyDnMat(b);
    spblkDestroyDnMat(cd);
    if st == SPBLK_STATUS_SUCCESS {
        Ok(out)
    } else {
        Err(st)
    }
}

/// C's logical elements (row-major) from its bytes.
fn logical_c(c: &Dn, bytes: &[u8]) -> Vec<f64> {
    let all = decode(bytes, c.vt);
    c.positions().into_iter().map(|p| all[p]).collect()
}

/// The exact result in f64 from the stored inputs, and each element's magnitude bound
/// |alpha| Σ|a||b| + |beta c| (row-major, logical elements).
fn reference(c: &VbrCase, entries: &[(usize, usize)]) -> (Vec<f64>, Vec<f64>) {
    let av = decode(&c.a.v, c.a.vt);
    let bv = decode(&c.b.data, c.b.vt);
    let old = logical_c(&c.c, &c.c.data);
    let n = c.c.cols as usize;
    let at = |i: usize, j: usize| {
        if c.b.order == SPBLK_ORDER_ROW {
            i * c.b.ld as usize + j
        } else {
            i + j * c.b.ld as usize
        }
    };
    let b_of = |k: usize, j: usize| if c.op_b == N { bv[at(k, j)] } else { bv[at(j, k)] };
    let mut sum = vec![0.0f64; old.len()];
    let mut mag = vec![0.0f64; old.len()];
    for (p, &(i, k)) in entries.iter().enumerate() {
        for j in 0..n {
            sum[i * n + j] += av[p] * b_of(k, j);
            mag[i * n + j] += (av[p] * b_of(k, j)).abs();
        }
    }
    let beta_c = |e: usize| if c.beta == 0.0 { 0.0 } else { c.beta * old[e] };
    let want = (0..old.len()).map(|e| c.alpha * sum[e] + beta_c(e)).collect();
    let scale = (0..old.len()).map(|e| c.alpha.abs() * mag[e] + beta_c(e).abs()).collect();
    (want, scale)
}

/// max |x - y| / scale over C (an element of scale 0 must match exactly).
fn worst(what: &str, x: &[f64], y: &[f64], scale: &[f64]) -> f64 {
    let mut w = 0.0f64;
    for e in 0..x.len() {
        assert!(x[e].is_finite(), "{what}: C element {e} is {}", x[e]);
        let d = (x[e] - y[e]).abs();
        if scale[e] > 0.0 {
            w = w.max(d / scale[e]);
        } else {
            assert_eq!(d, 0.0, "{what}: C element {e} should be exactly {}", y[e]);
        }
    }
    w
}

/// Runs one case on both backends (and CUDA's CSR kernel) and checks the CUDA VBR result:
/// deterministic, C's padding untouched, within `bound` of the exact product, agreeing with
/// the host's VBR and with CSR. Returns the kernels the CUDA VBR call launched.
fn check_case(
    case: &VbrCase,
    entries: &[(usize, usize)],
    out: spblkDataType_t,
    alg: spblkSpMMAlg_t,
    bound: f64,
    what: &str,
) -> Vec<(String, u32)> {
    let mut host = Side::new(Kind::Host);
    let mut gpu = Side::new(Kind::Cuda);
    let want = run(&mut host, case, alg).unwrap_or_else(|s| panic!("{what}: host status {s}"));
    let (got, records) = spblk::trace::capture(|| run(&mut gpu, case, alg));
    let got = got.unwrap_or_else(|s| panic!("{what}: CUDA status {s}: {}", last_message()));
    let again = run(&mut gpu, case, alg).unwrap();
    assert!(got == again, "{what}: two runs differ (the kernel must be deterministic)");
    // Padding of B and C: C's padding must stay as it was.
    let inside: std::collections::HashSet<usize> = case.c.positions().into_iter().collect();
    let s = vsize(out);
    for p in (0..case.c.data.len() / s).filter(|p| !inside.contains(p)) {
        assert_eq!(&got[p * s..(p + 1) * s], &case.c.data[p * s..(p + 1) * s], "{what}: padding {p} written");
    }
    let csr = run(&mut gpu, case, SPBLK_SPMM_CSR_ALG1).unwrap();
    let (exact, scale) = reference(case, entries);
    let (got, want, csr) = (logical_c(&case.c, &got), logical_c(&case.c, &want), logical_c(&case.c, &csr));
    let err = worst(what, &got, &exact, &scale);
    let err_host = worst(what, &want, &exact, &scale);
    let err_csr = worst(what, &csr, &exact, &scale);
    eprintln!("{what}: error/sum|a||b|: cuda vbr {err:.2e}, host vbr {err_host:.2e}, cuda csr {err_csr:.2e}");
    assert!(err <= bound, "{what}: error {err:e} over the bound {bound:e}");
    // The host reference computes what the kernel computes (TF32 rounding included):
    // they agree to f32 accumulation and one rounding of the output.
    let agree = match out {
        SPBLK_R_16F => 2f64.powi(-10),
        SPBLK_R_16BF => 2f64.powi(-7),
        _ => 1e-5,
    };
    let diff = worst(what, &got, &want, &scale);
    assert!(diff <= agree, "{what}: CUDA and host VBR differ by {diff:e} of sum|a||b|");
    let diff = worst(what, &got, &csr, &scale);
    assert!(diff <= 2.0 * bound, "{what}: VBR and CSR differ by {diff:e} of sum|a||b|");
    records.into_iter().flat_map(|r| r.kernels).collect()
}

/// (input, output, algorithm, accuracy bound relative to Σ|a||b|).
const MODES: [(spblkDataType_t, spblkDataType_t, spblkSpMMAlg_t, f64); 6] = [
    (SPBLK_R_16F, SPBLK_R_32F, SPBLK_SPMM_ALG_VBR, 1e-2),
    (SPBLK_R_16F, SPBLK_R_16F, SPBLK_SPMM_ALG_VBR, 1e-2),
    (SPBLK_R_16BF, SPBLK_R_32F, SPBLK_SPMM_ALG_VBR, 1e-2),
    (SPBLK_R_16BF, SPBLK_R_16BF, SPBLK_SPMM_ALG_VBR, 1e-2),
    (SPBLK_R_32F, SPBLK_R_32F, SPBLK_SPMM_ALG_VBR, 1e-5),
    (SPBLK_R_32F, SPBLK_R_32F, SPBLK_SPMM_ALG_VBR_TF32, 1e-3),
];

#[test]
fn vbr_matches_host_and_csr_for_every_plan_shape() {
    if !gpu("vbr_matches_host_and_csr_for_every_plan_shape") {
        return;
    }
    let mut r = rng(90);
    let mut heights_seen = std::collections::BTreeSet::new();
    let mut k = 0usize;
    // Launches of the whole-tile kernels and of the split ones (clusters, compute capability
    // 9.0, where the tiles cannot fill the GPU), mma.sync ([0]) and wgmma ([1]: 9.0, f16/bf16
    // or f32-accurate, with 64-wide blocks and B's leading dimension 16-byte aligned, which the
    // random B here rarely has; `vbr_wgmma_covers_every_layout` tests those): the shapes below
    // need both mma.sync kernels.
    let mut launches = [[0u32; 2]; 2];
    // (block width, max group height, column blocks at least): 64 and 128 take 16-byte copies
    // over 2..8 pipeline steps (64: TMA and wgmma for f16/bf16 on 9.0, the second with tall
    // groups and more blocks); 40 ends a block inside a step; 5 and 12 take element loads;
    // 520 blocks of 16 give the family with every block more than twice the kernel's table of
    // 256 block columns (refilled as the tile walks them).
    let shapes: [(i64, i64, usize); 8] =
        [(64, 0, 1), (16, 0, 1), (40, 0, 1), (5, 0, 1), (128, 50, 1), (12, 0, 1), (16, 0, 520), (64, 200, 9)];
    let widths = [1usize, 7, 8, 33, 128, 130, 300];
    for (mi, &(vin, out, alg, bound)) in MODES.iter().enumerate() {
        for (si, &(bw, max_height, min_blocks)) in shapes.iter().enumerate() {
            k += 1;
            if quick_skip(k) {
                continue;
            }
            let cols = (min_blocks - 1 + r.gen_range(1..=5)) * bw as usize + r.gen_range(0..bw as usize);
            let heights: Vec<usize> = [0usize, 1, 2, 7, 16, 17, 63, 64, 65, 200]
                .iter()
                .map(|&h| if h == 0 { r.gen_range(1..4) } else { h })
                .collect();
            let (rows, entries) = family_pattern(&mut r, cols, bw as usize, &heights);
            let params = OneSaParams {
                block_width: bw as usize,
                max_group_height: max_height as usize,
                ..OneSaParams::default()
            };
            heights_seen.extend(group_heights(rows, cols, &entries, &params));
            let n = widths[(mi + si) % widths.len()];
            let (ob, oc) = [
                (SPBLK_ORDER_ROW, SPBLK_ORDER_ROW),
                (SPBLK_ORDER_COL, SPBLK_ORDER_ROW),
                (SPBLK_ORDER_ROW, SPBLK_ORDER_COL),
            ][k % 3];
            let op_b = if k % 4 == 3 { T } else { N };
            let vals = values(&mut r, entries.len());
            let ity = if k % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
            let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, rows, cols, &entries, &vals, ity, (k % 3 == 1) as u32, vin);
            let b = if op_b == N {
                Dn::random(&mut r, cols, n, ob, vin, false)
            } else {
                Dn::random(&mut r, n, cols, ob, vin, false)
            };
            let beta_zero = k % 3 == 0;
            let mut cm = Dn::random(&mut r, rows, n, oc, out, false);
            if beta_zero {
                cm = cm.nan_like();
            }
            let case = VbrCase {
                a,
                b,
                c: cm,
                op_b,
                alpha: some_scalar(&mut r, 0.5, 2.0, false),
                beta: if beta_zero { 0.0 } else { some_scalar(&mut r, -1.0, 1.0, false) },
                block_width: bw,
                max_height,
                device_scalars: k % 2 == 0,
            };
            let what = format!(
                "vbr case {k}: {vin}->{out} alg {alg} bw {bw} cap {max_height} {rows}x{cols} nnz {} n {n} \
                 order {ob}{oc} op(B) {op_b}",
                entries.len()
            );
            for (name, count) in check_case(&case, &entries, out, alg, bound, &what) {
                if name.starts_with("spblk_spmm_vbr_") {
                    launches[usize::from(name.starts_with("spblk_spmm_vbr_wg"))]
                        [usize::from(name.contains("_split_"))] += count;
                }
            }
        }
    }
    if !quick_skip(1) && !quick_skip(2) {
        for h in [1usize, 2, 7, 16, 17, 63, 64, 65, 200] {
            assert!(heights_seen.contains(&h), "no plan had a group of height {h}: {heights_seen:?}");
        }
        if !harness_on_host() {
            assert!(launches[0][0] > 0, "no case ran the whole-tile mma.sync VBR kernel: {launches:?}");
            if compute_capability_major() == 9 {
                assert!(launches[0][1] > 0, "no case split its tiles over a cluster (mma.sync): {launches:?}");
            }
        }
    }
}

/// On CUDA, `spblkAnalyze` builds the 1-SA layout on the host and fills the values on the
/// device from A (kernels/spmm/vbr_fill.cu). Rows here have unsorted columns and duplicate
/// entries (summed, as the host build sums them) beside sorted ones, in both index types and
/// bases, for every stored type the kernel multiplies. Values and B are quarters, so every
/// product and sum is exact: the CUDA VBR product must equal the exact one and the host's bit
/// for bit, and a lost, doubled or misplaced value shows.
#[test]
fn vbr_values_filled_on_the_device_equal_the_host_build() {
    if !gpu("vbr_values_filled_on_the_device_equal_the_host_build") {
        return;
    }
    let mut r = rng(93);
    let mut k = 0usize;
    for vin in [SPBLK_R_16F, SPBLK_R_16BF, SPBLK_R_32F] {
        for (ity, base) in [(SPBLK_INDEX_32I, 0u32), (SPBLK_INDEX_64I, 1), (SPBLK_INDEX_32I, 1), (SPBLK_INDEX_64I, 0)] {
            k += 1;
            let bw = [64usize, 16, 40][k % 3];
            let cols = r.gen_range(2..6) * bw + r.gen_range(0..bw);
            let (rows, sorted) = family_pattern(&mut r, cols, bw, &[2, 1, 3, 7, 16, 33, 5]);
            // Every other row: some entries twice, then the row's entries shuffled.
            let mut entries = Vec::new();
            let mut unsorted_rows = 0;
            for row in 0..rows {
                let mut e: Vec<(usize, usize)> = sorted.iter().copied().filter(|x| x.0 == row).collect();
                if row % 2 == 1 && !e.is_empty() {
                    let twice: Vec<(usize, usize)> = e.iter().copied().filter(|_| r.gen_bool(0.3)).collect();
                    e.extend(twice);
                    e.shuffle(&mut r);
                    unsorted_rows += usize::from(e.windows(2).any(|w| w[1].1 <= w[0].1));
                }
                entries.extend(e);
            }
            assert!(unsorted_rows > 0);
            let vals = exact_values(&mut r, entries.len());
            let n = [8usize, 33, 128][k % 3];
            let case = VbrCase {
                a: Sp::new(&mut r, SPBLK_FORMAT_CSR, rows, cols, &entries, &vals, ity, base, vin),
                b: Dn::random(&mut r, cols, n, SPBLK_ORDER_ROW, vin, true),
                c: Dn::random(&mut r, rows, n, SPBLK_ORDER_ROW, SPBLK_R_32F, true).nan_like(),
                op_b: N,
                alpha: 1.0,
                beta: 0.0,
                block_width: bw as i64,
                max_height: 0,
                device_scalars: false,
            };
            let what = format!("case {k}: {vin} index {ity} base {base} bw {bw} {rows}x{cols} nnz {}", entries.len());
            let host = run(&mut Side::new(Kind::Host), &case, SPBLK_SPMM_ALG_VBR).unwrap();
            let (got, records) = spblk::trace::capture(|| run(&mut Side::new(Kind::Cuda), &case, SPBLK_SPMM_ALG_VBR));
            let got = got.unwrap_or_else(|s| panic!("{what}: CUDA status {s}: {}", last_message()));
            if !harness_on_host() {
                let vtag = match vin {
                    SPBLK_R_16F => "f16",
                    SPBLK_R_16BF => "bf16",
                    _ => "f32",
                };
                let fill = format!("spblk_vbr_fill_{vtag}_{}", if ity == SPBLK_INDEX_32I { "i32" } else { "i64" });
                assert!(
                    records.iter().flat_map(|x| &x.kernels).any(|(name, _)| *name == fill),
                    "{what}: spblkAnalyze did not fill the values on the device ({fill})"
                );
            }
            let (exact, scale) = reference(&case, &entries);
            assert_eq!(worst(&what, &logical_c(&case.c, &host), &exact, &scale), 0.0, "{what}: host");
            assert_eq!(worst(&what, &logical_c(&case.c, &got), &exact, &scale), 0.0, "{what}: CUDA");
            assert!(got == host, "{what}: CUDA and host C differ");
        }
    }
}

/// The wgmma kernels (compute capability 9.0; f16/bf16, and f32 in the f32-accurate mode by
/// split TF32, with 64-wide blocks and op(B) whose leading dimension is a whole number of 16
/// bytes): both op(B) layouts through B's order and op, C in both orders, N inside, on and
/// across the 128- and 256-column tiles, K off the block grid, groups from 1 to 400 rows (a
/// tall group with every block, so that the small matrix splits its tiles), enough tiles not
/// to split, β zero or not. On 9.0 every case must have run a wgmma kernel of its type, and
/// every variant must have run.
#[test]
fn vbr_wgmma_covers_every_layout() {
    if !gpu("vbr_wgmma_covers_every_layout") {
        return;
    }
    let mut r = rng(92);
    let on_wgmma = !harness_on_host() && compute_capability_major() == 9;
    // The wgmma variants that ran, by kernel (f16/bf16 "wg", f32 "wgx3"): whole 128-column
    // tiles, split ones, 256-column ones (f16/bf16).
    let mut variants = std::collections::BTreeSet::new();
    let mut k = 0usize;
    let mut cases = Vec::new();
    for &(vin, out, alg, bound) in MODES.iter().filter(|m| m.2 == SPBLK_SPMM_ALG_VBR) {
        for (ob, op_b) in [(SPBLK_ORDER_ROW, N), (SPBLK_ORDER_COL, N), (SPBLK_ORDER_ROW, T), (SPBLK_ORDER_COL, T)] {
            let heights = vec![r.gen_range(1..4), 1, 400, 17, 64, 65, 3];
            cases.push((vin, out, alg, bound, ob, op_b, [8usize, 100, 128, 200, 300][cases.len() % 5], heights));
        }
    }
    // Enough tiles that none is split (over half the SMs of the GPUs here, 132): 150 groups
    // of 64 rows, at N = 128 (128-column tiles) and N = 300 (256-column ones).
    let (vin, out, alg, bound) = MODES[0];
    cases.push((vin, out, alg, bound, SPBLK_ORDER_ROW, N, 128, vec![64; 150]));
    cases.push((vin, out, alg, bound, SPBLK_ORDER_COL, T, 300, vec![64; 150]));
    let (vin, out, alg, bound) = MODES[4];
    cases.push((vin, out, alg, bound, SPBLK_ORDER_COL, N, 200, vec![64; 150]));
    for (vin, out, alg, bound, ob, op_b, n, heights) in cases {
        k += 1;
        if quick_skip(k) {
            continue;
        }
        let cols = r.gen_range(16..20) * 64 + r.gen_range(1..64);
        let (rows, entries) = family_pattern(&mut r, cols, 64, &heights);
        let b = if op_b == N {
            Dn::random_ld_multiple(&mut r, cols, n, ob, vin, false, 8)
        } else {
            Dn::random_ld_multiple(&mut r, n, cols, ob, vin, false, 8)
        };
        let oc = if k % 3 == 0 { SPBLK_ORDER_COL } else { SPBLK_ORDER_ROW };
        let beta_zero = k % 2 == 0;
        let mut c = Dn::random(&mut r, rows, n, oc, out, false);
        if beta_zero {
            c = c.nan_like();
        }
        let vals = values(&mut r, entries.len());
        let ity = if k % 2 == 0 { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
        let case = VbrCase {
            a: Sp::new(&mut r, SPBLK_FORMAT_CSR, rows, cols, &entries, &vals, ity, (k % 3 == 1) as u32, vin),
            b,
            c,
            op_b,
            alpha: some_scalar(&mut r, 0.5, 2.0, false),
            beta: if beta_zero { 0.0 } else { some_scalar(&mut r, -1.0, 1.0, false) },
            block_width: 64,
            max_height: 0,
            device_scalars: k % 2 == 1,
        };
        let what = format!(
            "wgmma case {k}: {vin}->{out} {rows}x{cols} nnz {} n {n} order {ob}{oc} op(B) {op_b}",
            entries.len()
        );
        let kernels = check_case(&case, &entries, out, alg, bound, &what);
        if on_wgmma {
            let kernel = if vin == SPBLK_R_32F { "wgx3" } else { "wg" };
            let prefix = format!("spblk_spmm_vbr_{kernel}_");
            let wg: Vec<&String> =
                kernels.iter().map(|(name, _)| name).filter(|name| name.starts_with(&prefix)).collect();
            assert!(!wg.is_empty(), "{what}: no {kernel} kernel ran: {kernels:?}");
            for name in wg {
                // spblk_spmm_vbr_<kernel>_<layout>_n<BN>[_variant]_<in>_<out>
                let parts: Vec<&str> = name.split('_').collect();
                variants.insert(format!("{kernel} {}", parts[5..parts.len() - 2].join("_")));
            }
        }
    }
    if on_wgmma && std::env::var_os("SPBLK_TEST_QUICK").is_none() {
        for v in ["wg n128", "wg n128_split", "wg n256", "wgx3 n128", "wgx3 n128_split"] {
            assert!(variants.contains(v), "no case ran the wgmma variant {v}: {variants:?}");
        }
    }
}

/// f64 has no tensor-core path here and TF32 needs f32 inputs: both refuse, never run CSR.
#[test]
fn vbr_refuses_what_it_cannot_run() {
    if !gpu("vbr_refuses_what_it_cannot_run") || harness_on_host() {
        return;
    }
    let mut r = rng(91);
    let (rows, entries) = family_pattern(&mut r, 100, 64, &[2, 3, 4]);
    for (vt, alg, word) in [
        (SPBLK_R_64F, SPBLK_SPMM_ALG_VBR, "f64"),
        (SPBLK_R_16F, SPBLK_SPMM_ALG_VBR_TF32, "TF32"),
        (SPBLK_R_64F, SPBLK_SPMM_ALG_VBR_TF32, "TF32"),
    ] {
        let vals = values(&mut r, entries.len());
        let case = VbrCase {
            a: Sp::new(&mut r, SPBLK_FORMAT_CSR, rows, 100, &entries, &vals, SPBLK_INDEX_32I, 0, vt),
            b: Dn::random(&mut r, 100, 8, SPBLK_ORDER_ROW, vt, false),
            c: Dn::random(&mut r, rows, 8, SPBLK_ORDER_ROW, vt, false),
            op_b: N,
            alpha: 1.0,
            beta: 0.0,
            block_width: 64,
            max_height: 0,
            device_scalars: false,
        };
        // The compute type is f32 in `run`; f64 data needs f64 compute, so ask directly.
        let mut side = Side::new(Kind::Cuda);
        let a = case.a.descr(&mut side);
        ok(spblkAnalyze(side.handle, a, SPBLK_ANALYSIS_1SA, std::ptr::null()), "spblkAnalyze");
        let (bp, cp) = (side.put(&case.b.data), side.put(&case.c.data));
        let (b, c) = (case.b.descr(bp), case.c.descr(cp));
        let compute = if vt == SPBLK_R_64F { SPBLK_R_64F } else { SPBLK_R_32F };
        let one = scalar_bytes(1.0, compute);
        let mut size = 0usize;
        let st = spblkSpMM_bufferSize(
            side.handle,
            N,
            N,
            one.as_ptr() as _,
            a,
            b,
            one.as_ptr() as _,
            c,
            compute,
            alg,
            &mut size,
        );
        assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{vt} alg {alg}");
        assert!(last_message().contains(word), "{}", last_message());
        let st = spblkSpMM(
            side.handle,
            N,
            N,
            one.as_ptr() as _,
            a,
            b,
            one.as_ptr() as _,
            c,
            compute,
            alg,
            std::ptr::null_mut(),
        );
        assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{vt} alg {alg}");
        assert_eq!(side.get(cp, case.c.data.len()), case.c.data, "C must be untouched");
        spblkDestroySpMat(a);
        spblkDestroyDnMat(b);
        spblkDestroyDnMat(c);
    }
}

/// `SPBLK_SPMM_ALG_DEFAULT` after a 1-SA analysis: VBR on CUDA for a blocked matrix (and the
/// VBR kernel runs), the row method for a scattered one, on the host, and without a plan.
#[test]
fn default_takes_vbr_only_where_the_cost_model_says_it_wins() {
    if !gpu("default_takes_vbr_only_where_the_cost_model_says_it_wins") {
        return;
    }
    let mut r = rng(92);
    let cols = 64 * 160;
    let (rows, blocked) = family_pattern(&mut r, cols, 64, &[64; 160]);
    let scattered = pattern(&mut r, rows, cols, Shape::Uniform(3));
    let cuda = if harness_on_host() { Kind::Host } else { Kind::Cuda };
    for (vt, entries, kind, analysed, want) in [
        (SPBLK_R_16F, &blocked, cuda, true, if harness_on_host() { "CsrRows" } else { "Vbr" }),
        (SPBLK_R_32F, &blocked, cuda, true, if harness_on_host() { "CsrRows" } else { "Vbr" }),
        (SPBLK_R_16F, &blocked, cuda, false, "CsrRows"),
        (SPBLK_R_16F, &blocked, Kind::Host, true, "CsrRows"),
        (SPBLK_R_16F, &scattered, cuda, true, "CsrRows"),
        (SPBLK_R_32F, &scattered, cuda, true, "CsrRows"),
    ] {
        let what = format!("{vt} {kind:?} analysed {analysed} nnz {}", entries.len());
        let vals = values(&mut r, entries.len());
        let a = Sp::new(&mut r, SPBLK_FORMAT_CSR, rows, cols, entries, &vals, SPBLK_INDEX_32I, 0, vt);
        let b = Dn::random(&mut r, cols, 256, SPBLK_ORDER_ROW, vt, false);
        let c = Dn::random(&mut r, rows, 256, SPBLK_ORDER_ROW, SPBLK_R_32F, false);
        let mut side = Side::new(kind);
        let ma = a.descr(&mut side);
        if analysed {
            ok(spblkAnalyze(side.handle, ma, SPBLK_ANALYSIS_1SA, std::ptr::null()), "spblkAnalyze");
        }
        let (bp, cp) = (side.put(&b.data), side.put(&c.data));
        let (mb, mc) = (b.descr(bp), c.descr(cp));
        let (alpha, beta) =
            (side.scalar(false, &scalar_bytes(1.0, SPBLK_R_32F)), side.scalar(false, &scalar_bytes(0.0, SPBLK_R_32F)));
        let h = side.handle;
        let alg = SPBLK_SPMM_ALG_DEFAULT;
        let mut size = 0usize;
        ok(spblkSpMM_bufferSize(h, N, N, alpha, ma, mb, beta, mc, SPBLK_R_32F, alg, &mut size), "size");
        let buf = side.buffer(size);
        if analysed && rows == cols {
            // op(A) = Aᵀ has no plan (1-SA groups A's rows): the default must take the rows.
            let mut tsize = 0usize;
            ok(spblkSpMM_bufferSize(h, T, N, alpha, ma, mb, beta, mc, SPBLK_R_32F, alg, &mut tsize), "size T");
            let tbuf = side.buffer(tsize);
            let (st, rec) =
                spblk::trace::capture(|| spblkSpMM(h, T, N, alpha, ma, mb, beta, mc, SPBLK_R_32F, alg, tbuf));
            assert_eq!((st, rec[0].method.as_str()), (SPBLK_STATUS_SUCCESS, "CsrRows"), "{what}: op(A) = T");
        }
        let (st, records) =
            spblk::trace::capture(|| spblkSpMM(h, N, N, alpha, ma, mb, beta, mc, SPBLK_R_32F, alg, buf));
        ok(st, &what);
        assert_eq!(records[0].method, want, "{what}: {}", records[0].reason);
        let vbr_kernels = records[0].launches("spblk_spmm_vbr") + records[0].launches("host:vbr_spmm");
        assert_eq!(vbr_kernels, u32::from(want == "Vbr"), "{what}: {:?}", records[0]);
        spblkDestroySpMat(ma);
        spblkDestroyDnMat(mb);
        spblkDestroyDnMat(mc);
    }
}
