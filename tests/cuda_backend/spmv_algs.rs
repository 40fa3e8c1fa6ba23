//! SpMV's algorithms on the CUDA backend against the host reference (docs/spmv.md): every
//! algorithm value on the shapes that stress the merge tiles (empty rows, one huge row,
//! power-law rows, a 3-D stencil, tiny matrices, rows whose lengths sit on the tile width and
//! the long-row threshold), bitwise determinism over repeated runs with and without a
//! preprocess, and the refusals. Without a GPU each test prints `SKIPPED` and passes.

use rand::rngs::StdRng;
use rand::Rng;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::types::*;
use spblk::trace;

use super::problem::{ints, Spmv};
use super::support::*;
use super::{check_spmv, dn_vec, run_spmv, SpmvCase, N, T};

/// Every algorithm value that runs on CSR (and CSC) matrices.
const ALGS: [spblkSpMVAlg_t; 7] = [
    SPBLK_SPMV_ALG_DEFAULT,
    SPBLK_SPMV_CSR_ALG1,
    SPBLK_SPMV_CSR_ALG2,
    SPBLK_SPMV_ALG_CSR_SCALAR,
    SPBLK_SPMV_ALG_CSR_VECTOR,
    SPBLK_SPMV_ALG_CSR_ROWS,
    SPBLK_SPMV_ALG_CSR_MERGE,
];

/// `len` distinct columns of `0..n` for row `i` (spread over the row, deterministic).
fn row_cols(r: &mut StdRng, n: usize, len: usize) -> Vec<usize> {
    let len = len.min(n);
    if len == 0 {
        return Vec::new();
    }
    let stride = n / len;
    let shift = r.gen_range(0..stride.max(1));
    (0..len).map(|k| (k * stride + shift).min(n - 1)).collect()
}

/// Rows of the given lengths.
fn rows_of(r: &mut StdRng, n: usize, lens: &[usize]) -> Vec<(usize, usize)> {
    let mut e = Vec::new();
    for (i, &len) in lens.iter().enumerate() {
        e.extend(row_cols(r, n, len).into_iter().map(|j| (i, j)));
    }
    e
}

/// A 7-point stencil on a g x g x g grid (rows of 4 to 7 entries).
fn stencil(g: usize) -> Vec<(usize, usize)> {
    let mut e = Vec::new();
    let id = |x: usize, y: usize, z: usize| (z * g + y) * g + x;
    for z in 0..g {
        for y in 0..g {
            for x in 0..g {
                let i = id(x, y, z);
                let mut cols = vec![i];
                if x > 0 {
                    cols.push(id(x - 1, y, z));
                }
                if x + 1 < g {
                    cols.push(id(x + 1, y, z));
                }
                if y > 0 {
                    cols.push(id(x, y - 1, z));
                }
                if y + 1 < g {
                    cols.push(id(x, y + 1, z));
                }
                if z > 0 {
                    cols.push(id(x, y, z - 1));
                }
                if z + 1 < g {
                    cols.push(id(x, y, z + 1));
                }
                cols.sort_unstable();
                e.extend(cols.into_iter().map(|j| (i, j)));
            }
        }
    }
    e
}

/// A test matrix: name, rows, columns, entries.
type Named = (&'static str, usize, usize, Vec<(usize, usize)>);

fn shapes(r: &mut StdRng) -> Vec<Named> {
    let mut v = Vec::new();
    v.push(("empty rows", 3000, 500, pattern(r, 3000, 500, Shape::EmptyRows(6))));
    v.push(("all rows empty", 2500, 40, Vec::new()));
    let mut lens: Vec<usize> = (0..60).map(|_| r.gen_range(0..4)).collect();
    lens[17] = 150_000;
    v.push(("one huge row", 60, 200_000, rows_of(r, 200_000, &lens)));
    v.push(("power law", 4000, 4000, pattern(r, 4000, 4000, Shape::PowerLaw)));
    v.push(("stencil 16^3", 4096, 4096, stencil(16)));
    v.push(("1x1", 1, 1, vec![(0, 0)]));
    v.push(("2x3", 2, 3, vec![(0, 2), (1, 0), (1, 1)]));
    v.push(("one empty row", 1, 5, Vec::new()));
    v.push(("one row of 1025", 1, 3000, rows_of(r, 3000, &[1025])));
    // Row + entries = 1024 items: every row fills two tile windows (512) exactly.
    v.push(("rows of 1023", 12, 2000, rows_of(r, 2000, &[1023; 12])));
    // Row + entries = 512 items: every row fills one tile window exactly (the merge tiles' W).
    v.push(("rows of 511", 20, 2000, rows_of(r, 2000, &[511; 20])));
    // On both sides of the merge tiles' long-row threshold L = 512.
    v.push(("rows of 511/512/513", 8, 3000, rows_of(r, 3000, &[512, 513, 511, 0, 513, 512, 2, 1500])));
    // On both sides of the long-row threshold, and long rows back to back.
    v.push(("rows of 1024/1025", 9, 5000, rows_of(r, 5000, &[1024, 1025, 1024, 3000, 2500, 0, 1025, 7, 4096])));
    v.push(("long rows among empty ones", 700, 3000, {
        let lens: Vec<usize> = (0..700).map(|i| if i % 97 == 3 { 1500 + i } else { 0 }).collect();
        rows_of(r, 3000, &lens)
    }));
    v
}

#[allow(clippy::too_many_arguments)]
fn case(
    r: &mut StdRng,
    format: spblkFormat_t,
    op: spblkOperation_t,
    m: usize,
    n: usize,
    entries: &[(usize, usize)],
    ity: spblkIndexType_t,
    base: spblkIndexBase_t,
    prec: (spblkDataType_t, spblkDataType_t, spblkDataType_t),
    beta_zero: bool,
    device_scalars: bool,
    preprocess: bool,
    alg: spblkSpMVAlg_t,
) -> SpmvCase {
    let (vin, out, compute) = prec;
    let vals = values(r, entries.len());
    let a = Sp::new(r, format, m, n, entries, &vals, ity, base, vin);
    let (xl, yl) = if op == N { (n, m) } else { (m, n) };
    let x = encode(&values(r, xl), vin);
    let y = if beta_zero { encode(&vec![f64::NAN; yl], out) } else { encode(&values(r, yl), out) };
    SpmvCase {
        op,
        a,
        x,
        y,
        alpha: some_scalar(r, 0.5, 2.0, false),
        beta: if beta_zero { 0.0 } else { some_scalar(r, -1.0, 1.0, false) },
        out,
        compute,
        device_scalars,
        preprocess,
        exact: false,
        alg,
    }
}

/// A CSR case, f32, 32-bit zero-based indices, op N, host scalars.
fn f32_csr_case(
    r: &mut StdRng,
    m: usize,
    n: usize,
    entries: &[(usize, usize)],
    beta_zero: bool,
    preprocess: bool,
    alg: spblkSpMVAlg_t,
) -> SpmvCase {
    let prec = PRECISIONS[0];
    case(r, SPBLK_FORMAT_CSR, N, m, n, entries, SPBLK_INDEX_32I, 0, prec, beta_zero, false, preprocess, alg)
}

#[test]
fn spmv_every_algorithm_matches_host() {
    if !gpu("spmv_every_algorithm_matches_host") {
        return;
    }
    let mut r = rng(31);
    let shapes = shapes(&mut r);
    let mut k = 0usize;
    for alg in ALGS {
        for (name, m, n, entries) in &shapes {
            // f32 and f64 everywhere; the half types on every other case.
            for (pi, prec) in PRECISIONS.into_iter().enumerate() {
                k += 1;
                if (pi >= 2 && k % 2 == 0) || quick_skip(k) {
                    continue;
                }
                let format = if k % 5 == 0 { SPBLK_FORMAT_CSC } else { SPBLK_FORMAT_CSR };
                // CSC with op T reads the stored arrays as CSR of op(A); CSC with N converts.
                let op = if format == SPBLK_FORMAT_CSC && k % 2 == 0 { T } else { N };
                let (mm, nn, e): (usize, usize, Vec<(usize, usize)>) = if op == T {
                    (*n, *m, entries.iter().map(|&(i, j)| (j, i)).collect())
                } else {
                    (*m, *n, entries.clone())
                };
                let mut e = e;
                e.sort_unstable();
                let ity = if k % 3 == 0 { SPBLK_INDEX_64I } else { SPBLK_INDEX_32I };
                let base = (k % 2) as spblkIndexBase_t;
                let c = case(&mut r, format, op, mm, nn, &e, ity, base, prec, k % 4 == 0, k % 7 == 0, k % 3 != 1, alg);
                let what = format!(
                    "alg {alg} {name} {prec:?} fmt {format} op {op} idx {ity} base {base} pre {}",
                    c.preprocess
                );
                check_spmv(&what, &c, &e);
            }
        }
    }
}

/// op(A) = Aᵀ of CSR matrices whose pattern is symmetric with ascending columns: CSR of op(A)
/// comes from the mirror transpose (kernels/convert/mirror.cu), with the plan's permutation
/// when a preprocess keeps the converted pattern; one entry short of symmetric, from the sort.
#[test]
fn spmv_transpose_of_symmetric_pattern_matches_host() {
    if !gpu("spmv_transpose_of_symmetric_pattern_matches_host") {
        return;
    }
    let mut r = rng(37);
    let sym = stencil(16);
    let mut broken = sym.clone();
    broken.remove(broken.len() - 2);
    let n = 16 * 16 * 16;
    let mut k = 0usize;
    for (name, e) in [("symmetric stencil", &sym), ("stencil less one entry", &broken)] {
        for prec in PRECISIONS {
            for preprocess in [false, true] {
                k += 1;
                let ity = if k % 2 == 0 { SPBLK_INDEX_64I } else { SPBLK_INDEX_32I };
                let base = (k / 2 % 2) as spblkIndexBase_t;
                let alg = SPBLK_SPMV_ALG_DEFAULT;
                let c = case(&mut r, SPBLK_FORMAT_CSR, T, n, n, e, ity, base, prec, k % 3 == 0, false, preprocess, alg);
                check_spmv(&format!("{name} {prec:?} idx {ity} base {base} pre {preprocess}"), &c, e);
            }
        }
    }
}

/// The default gives the same bits on every run: 100 runs of a power-law matrix with long
/// rows, with and without the preprocess (tile plan or searched tiles; finishing kernel), and
/// for every CSR algorithm 5 runs.
#[test]
fn spmv_algorithms_are_bitwise_deterministic() {
    if !gpu("spmv_algorithms_are_bitwise_deterministic") {
        return;
    }
    let mut r = rng(32);
    let mut entries = pattern(&mut r, 6000, 6000, Shape::PowerLaw);
    entries.extend(row_cols(&mut r, 6000, 5000).into_iter().map(|j| (6000, j)));
    for alg in ALGS {
        for preprocess in [false, true] {
            for prec in [PRECISIONS[0], PRECISIONS[1]] {
                let c = case(
                    &mut r,
                    SPBLK_FORMAT_CSR,
                    N,
                    6001,
                    6000,
                    &entries,
                    SPBLK_INDEX_32I,
                    0,
                    prec,
                    false,
                    false,
                    preprocess,
                    alg,
                );
                let what = format!("alg {alg} pre {preprocess} {prec:?}");
                check_spmv(&what, &c, &entries);
                let mut gpu = Side::new(Kind::Cuda);
                let first = run_spmv(&mut gpu, &c);
                let runs = if alg == SPBLK_SPMV_ALG_DEFAULT || alg == SPBLK_SPMV_ALG_CSR_MERGE { 100 } else { 5 };
                for run in 0..runs {
                    assert!(run_spmv(&mut gpu, &c) == first, "{what}: run {run} differs from the first");
                }
            }
        }
    }
}

/// spblk's own CSR algorithms on a COO matrix: NOT_SUPPORTED from bufferSize, preprocess and
/// the call, with nothing launched; the default runs.
#[test]
fn spmv_csr_algorithms_refuse_coo() {
    let kinds: &[Kind] = if gpu("spmv_csr_algorithms_refuse_coo") { &[Kind::Host, Kind::Cuda] } else { &[Kind::Host] };
    for &kind in kinds {
        let mut r = rng(33);
        let entries = pattern(&mut r, 50, 40, Shape::Uniform(3));
        let c = case(
            &mut r,
            SPBLK_FORMAT_COO,
            N,
            50,
            40,
            &entries,
            SPBLK_INDEX_32I,
            0,
            PRECISIONS[0],
            true,
            false,
            true,
            0,
        );
        let mut side = Side::new(kind);
        let a = c.a.descr(&mut side);
        let (x, _) = dn_vec(&mut side, &c.x, c.a.vt);
        let (y, _) = dn_vec(&mut side, &c.y, c.out);
        let one = 1f32;
        let zero = 0f32;
        let (al, be) = (&one as *const f32 as *const _, &zero as *const f32 as *const _);
        let h = side.handle;
        for alg in
            [SPBLK_SPMV_ALG_CSR_SCALAR, SPBLK_SPMV_ALG_CSR_VECTOR, SPBLK_SPMV_ALG_CSR_ROWS, SPBLK_SPMV_ALG_CSR_MERGE]
        {
            let what = format!("{kind:?} COO alg {alg}");
            let mut size = 0usize;
            let (st, records) =
                trace::capture(|| spblkSpMV_bufferSize(h, N, al, a, x, be, y, SPBLK_R_32F, alg, &mut size));
            assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{what}: bufferSize: {}", last_message());
            assert!(last_message().contains("alg"), "{what}: message '{}' names no argument", last_message());
            assert!(records.iter().all(|r| r.kernels.is_empty()), "{what}: nothing may run");
            let buf = side.buffer(1024);
            let (st, records) = trace::capture(|| spblkSpMV_preprocess(h, N, al, a, x, be, y, SPBLK_R_32F, alg, buf));
            assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{what}: preprocess");
            assert!(records.iter().all(|r| r.kernels.is_empty()), "{what}: nothing may run");
            let (st, records) = trace::capture(|| spblkSpMV(h, N, al, a, x, be, y, SPBLK_R_32F, alg, buf));
            assert_eq!(st, SPBLK_STATUS_NOT_SUPPORTED, "{what}: call");
            assert!(records.iter().all(|r| r.kernels.is_empty()), "{what}: nothing may run");
        }
        let mut size = 0usize;
        ok(spblkSpMV_bufferSize(h, N, al, a, x, be, y, SPBLK_R_32F, SPBLK_SPMV_ALG_DEFAULT, &mut size), "default");
        spblkDestroySpMat(a);
    }
}

/// After a preprocess the merge tiles read their plan and, on a matrix without long rows,
/// runs one kernel and nothing else; without a preprocess on a matrix that may have long rows
/// it adds the finishing kernel, and never a memset.
#[test]
fn spmv_merge_launches_one_kernel_when_no_row_is_long() {
    if !gpu("spmv_merge_launches_one_kernel_when_no_row_is_long") || harness_on_host() {
        return;
    }
    let mut r = rng(34);
    let entries = stencil(12);
    let n = 12 * 12 * 12;
    for preprocess in [true, false] {
        let c = f32_csr_case(&mut r, n, n, &entries, true, preprocess, SPBLK_SPMV_ALG_CSR_MERGE);
        let mut gpu = Side::new(Kind::Cuda);
        let (_, records) = trace::capture(|| run_spmv(&mut gpu, &c));
        let call = records.iter().rev().find(|r| r.function == "spblkSpMV").expect("a record of spblkSpMV");
        assert_eq!(call.method, "CsrMerge");
        let tiles = call.launches("spblk_spmv_merge_tiles");
        let finish = call.launches("spblk_spmv_merge_finish");
        assert_eq!(tiles, 1, "{call:?}");
        assert_eq!(finish, u32::from(!preprocess), "preprocess {preprocess}: {call:?}");
        let all: u32 = call.kernels.iter().map(|k| k.1).sum();
        assert_eq!(all, 1 + finish, "preprocess {preprocess}: nothing else: {call:?}");
    }
}

/// A method and the kernel that shows it ran.
type Picked = (&'static str, &'static str);

/// `SPBLK_SPMV_ALG_DEFAULT` picks (src/ops/dispatch.rs): the row groups for a small matrix and
/// for rows of 256 entries or more on average, the merge tiles for a large matrix of short
/// rows, and, once a preprocess has measured the longest row, the merge tiles for skewed rows
/// of a small matrix (the workspace from `bufferSize`, asked before the preprocess, must fit
/// the method chosen after it). The picked kernel runs and the result matches the host.
#[test]
fn spmv_default_picks_by_shape() {
    if !gpu("spmv_default_picks_by_shape") {
        return;
    }
    let mut r = rng(35);
    let long_rows = rows_of(&mut r, 5000, &[300; 2100]);
    let mut skewed_lens = vec![3usize; 3000];
    skewed_lens[1234] = 2500;
    let skewed = rows_of(&mut r, 3000, &skewed_lens);
    workspace_fits_the_choice_after_preprocess(&mut r, &skewed);
    const ROWS: Picked = ("CsrRows", "spblk_spmv_csr_vector");
    const MERGE: Picked = ("CsrMerge", "spblk_spmv_merge_tiles");
    // (matrix, choice without a plan, choice after a preprocess)
    let cases: [(Named, Picked, Picked); 4] = [
        (("small stencil", 1728, 1728, stencil(12)), ROWS, ROWS),
        (("large stencil", 85184, 85184, stencil(44)), MERGE, MERGE),
        (("rows of 300", 2100, 5000, long_rows), ROWS, ROWS),
        (("small, one row of 2500", 3000, 3000, skewed), ROWS, MERGE),
    ];
    for ((what, m, n, entries), without, with) in cases {
        for preprocess in [true, false] {
            let (method, kernel) = if preprocess { with } else { without };
            let c = f32_csr_case(&mut r, m, n, &entries, false, preprocess, SPBLK_SPMV_ALG_DEFAULT);
            let what = format!("{what} ({} entries), preprocess {preprocess}", entries.len());
            let mut side = Side::new(Kind::Cuda);
            let (_, records) = trace::capture(|| run_spmv(&mut side, &c));
            let call = records.iter().rev().find(|r| r.function == "spblkSpMV").expect("a record of spblkSpMV");
            assert_eq!(call.method, method, "{what}");
            if !harness_on_host() {
                assert_eq!(call.launches(kernel), 1, "{what}: {call:?}");
            }
            check_spmv(&what, &c, &entries);
        }
    }
}

/// A matrix whose plan changes the default's choice (rows before the preprocess, merge tiles
/// after): `bufferSize` asked before the preprocess is at least what the call needs after it.
fn workspace_fits_the_choice_after_preprocess(r: &mut StdRng, entries: &[(usize, usize)]) {
    let mut side = Side::new(Kind::Cuda);
    let vals = values(r, entries.len());
    let sp = Sp::new(r, SPBLK_FORMAT_CSR, 3000, 3000, entries, &vals, SPBLK_INDEX_32I, 0, SPBLK_R_64F);
    let x = ints(r, 3000);
    let call = Spmv::new(&mut side, &sp, N, &x);
    let (st, before) = call.size(side.handle, N, SPBLK_SPMV_ALG_DEFAULT);
    ok(st, "bufferSize before the preprocess");
    let buf = side.buffer(before);
    call.preprocess(side.handle, N, SPBLK_SPMV_ALG_DEFAULT, buf);
    let (st, after) = call.size(side.handle, N, SPBLK_SPMV_ALG_DEFAULT);
    ok(st, "bufferSize after the preprocess");
    assert!(after <= before, "the call needs {after} bytes after the preprocess, bufferSize said {before}");
    ok(call.run(side.handle, N, SPBLK_SPMV_ALG_DEFAULT, buf), "spblkSpMV");
    let want: Vec<f64> = (0..3000)
        .map(|i| entries.iter().zip(&vals).filter(|((ri, _), _)| *ri == i).map(|((_, j), v)| v * x[*j]).sum())
        .collect();
    let got = call.result(&side);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() <= 1e-9 * (1.0 + w.abs()), "row {i}: {g} vs {w}");
    }
}
