use super::gen;
use super::search::DEFAULT_CANDIDATE_BUDGET;
use super::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

struct Csr {
    rows: usize,
    cols: usize,
    row_ptr: Vec<usize>,
    col_idx: Vec<usize>,
}

impl Csr {
    fn pat(&self) -> CsrPattern<'_> {
        CsrPattern { rows: self.rows, cols: self.cols, row_ptr: &self.row_ptr, col_idx: &self.col_idx }
    }
    fn from_rows(cols: usize, rows: Vec<Vec<usize>>) -> Csr {
        let mut row_ptr = vec![0];
        let mut col_idx = Vec::new();
        for r in &rows {
            col_idx.extend_from_slice(r);
            row_ptr.push(col_idx.len());
        }
        Csr { rows: rows.len(), cols, row_ptr, col_idx }
    }
}

/// Random test matrix mixing the awkward cases: template rows with noise (so merges happen),
/// exact copies (identical rows), empty rows, a dense row, power-law lengths, unsorted
/// columns and duplicate entries.
fn random_case(rng: &mut StdRng) -> Csr {
    let rows = rng.gen_range(0..220);
    let cols = rng.gen_range(1..700);
    let ntempl = rng.gen_range(1..8);
    let templ: Vec<Vec<usize>> = (0..ntempl)
        .map(|_| {
            let len = rng.gen_range(1..40);
            (0..len).map(|_| rng.gen_range(0..cols)).collect()
        })
        .collect();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for i in 0..rows {
        let kind = rng.gen_range(0..10);
        let r: Vec<usize> = match kind {
            0 => Vec::new(),
            1 if i > 0 => out[rng.gen_range(0..i)].clone(),
            2 if rng.gen_bool(0.05) => (0..cols).collect(),
            3 => {
                // power-law length
                let u: f64 = rng.gen_range(0.0001..1.0);
                let len = ((1.0 / u).powf(1.2) as usize).min(4 * cols);
                (0..len).map(|_| rng.gen_range(0..cols)).collect()
            }
            _ => {
                let t = &templ[rng.gen_range(0..ntempl)];
                let mut r: Vec<usize> = t.iter().copied().filter(|_| rng.gen_bool(0.8)).collect();
                for _ in 0..rng.gen_range(0..4) {
                    r.push(rng.gen_range(0..cols));
                }
                r
            }
        };
        let mut r = r;
        if rng.gen_bool(0.5) {
            r.sort_unstable();
            if rng.gen_bool(0.5) {
                r.dedup();
            }
        }
        out.push(r);
    }
    Csr::from_rows(cols, out)
}

fn random_params(rng: &mut StdRng) -> OneSaParams {
    OneSaParams {
        block_width: [1, 3, 8, 16, 64][rng.gen_range(0..5)],
        tau: [0.1, 0.25, 0.3, 0.5, 0.7, 0.9, 1.0][rng.gen_range(0..7)],
        similarity: if rng.gen_bool(0.5) { Similarity::Jaccard } else { Similarity::Cosine },
        merge_rule: if rng.gen_bool(0.6) { MergeRule::TwoStep } else { MergeRule::Plain },
        max_group_height: if rng.gen_bool(0.3) { rng.gen_range(1..12) } else { 0 },
        candidate_budget: None,
    }
}

fn assert_is_grouping(g: &Grouping, rows: usize) {
    assert_eq!(g.perm.len(), rows);
    let mut seen = vec![false; rows];
    for &r in &g.perm {
        assert!(r < rows && !seen[r], "row {r} missing or repeated");
        seen[r] = true;
    }
    assert_eq!(g.group_ptr[0], 0);
    assert_eq!(*g.group_ptr.last().unwrap(), rows);
    assert!(g.group_ptr.windows(2).all(|w| w[0] < w[1]), "empty group");
}

fn quotient(c: &Csr, i: usize, bw: usize) -> Vec<usize> {
    let mut q: Vec<usize> = c.col_idx[c.row_ptr[i]..c.row_ptr[i + 1]].iter().map(|&x| x / bw).collect();
    q.sort_unstable();
    q.dedup();
    q
}

fn group_of(g: &Grouping) -> Vec<usize> {
    let mut out = vec![0; g.perm.len()];
    for k in 0..g.groups() {
        for &r in &g.perm[g.group_ptr[k]..g.group_ptr[k + 1]] {
            out[r] = k;
        }
    }
    out
}

#[test]
fn every_row_exactly_once_both_versions() {
    let mut rng = StdRng::seed_from_u64(1);
    for _ in 0..150 {
        let c = random_case(&mut rng);
        let prm = random_params(&mut rng);
        assert_is_grouping(&group_rows_reference(&c.pat(), &prm), c.rows);
        assert_is_grouping(&group_rows_exact(&c.pat(), &prm), c.rows);
    }
}

#[test]
fn fast_equals_reference_on_random_inputs() {
    let mut rng = StdRng::seed_from_u64(2);
    let mut merged_somewhere = 0;
    for it in 0..400 {
        let c = random_case(&mut rng);
        let prm = random_params(&mut rng);
        let r = group_rows_reference(&c.pat(), &prm);
        let f = group_rows_exact(&c.pat(), &prm);
        assert_eq!(r, f, "case {it}: params {prm:?}");
        if r.groups() < c.rows {
            merged_somewhere += 1;
        }
    }
    assert!(merged_somewhere > 100, "test inputs too easy: {merged_somewhere}");
}

#[test]
fn fast_equals_reference_on_generated_matrices() {
    let cases: Vec<Csr> = vec![
        {
            let (rp, ci) = gen::block_structured(1000, 16, 0.15, 0.1, 3);
            Csr { rows: 1000, cols: 1000, row_ptr: rp, col_idx: ci }
        },
        {
            let (rp, ci) = gen::power_law(3000, 2500, 30000, 0.9, 4);
            Csr { rows: 3000, cols: 2500, row_ptr: rp, col_idx: ci }
        },
        {
            let (rp, ci) = gen::uniform_random(700, 333, 6, 5);
            Csr { rows: 700, cols: 333, row_ptr: rp, col_idx: ci }
        },
        // nnz = 0, rectangular
        Csr { rows: 17, cols: 5, row_ptr: vec![0; 18], col_idx: vec![] },
        // no rows
        Csr { rows: 0, cols: 9, row_ptr: vec![0], col_idx: vec![] },
    ];
    for c in &cases {
        for &tau in &[0.1, 0.3, 0.5, 0.8, 1.0] {
            for &similarity in &[Similarity::Jaccard, Similarity::Cosine] {
                for &merge_rule in &[MergeRule::Plain, MergeRule::TwoStep] {
                    for &bw in &[4, 16, 64] {
                        let prm = OneSaParams { block_width: bw, tau, similarity, merge_rule, ..Default::default() };
                        let r = group_rows_reference(&c.pat(), &prm);
                        assert_eq!(r, group_rows_exact(&c.pat(), &prm), "{prm:?}");
                        assert_is_grouping(&r, c.rows);
                    }
                }
            }
        }
    }
}

#[test]
fn identical_rows_always_in_the_same_group() {
    let mut rng = StdRng::seed_from_u64(3);
    for _ in 0..150 {
        let c = random_case(&mut rng);
        let prm = random_params(&mut rng);
        for g in [group_rows_reference(&c.pat(), &prm), group_rows_exact(&c.pat(), &prm)] {
            let gid = group_of(&g);
            let q: Vec<Vec<usize>> = (0..c.rows).map(|i| quotient(&c, i, prm.block_width)).collect();
            for i in 0..c.rows {
                for j in i + 1..c.rows {
                    if q[i] == q[j] {
                        assert_eq!(gid[i], gid[j], "identical rows {i},{j} split ({prm:?})");
                    }
                }
            }
            // All empty rows form one group of their own.
            let empties: Vec<usize> = (0..c.rows).filter(|&i| q[i].is_empty()).collect();
            if let Some(&e) = empties.first() {
                let k = gid[e];
                assert_eq!(g.group_ptr[k + 1] - g.group_ptr[k], empties.len());
            }
        }
    }
}

#[test]
fn height_cap_respected_except_single_classes() {
    let mut rng = StdRng::seed_from_u64(4);
    for _ in 0..150 {
        let c = random_case(&mut rng);
        let mut prm = random_params(&mut rng);
        prm.max_group_height = rng.gen_range(1..6);
        let g = group_rows_exact(&c.pat(), &prm);
        for k in 0..g.groups() {
            let rows = &g.perm[g.group_ptr[k]..g.group_ptr[k + 1]];
            if rows.len() > prm.max_group_height {
                let q0 = quotient(&c, rows[0], prm.block_width);
                assert!(
                    rows.iter().all(|&r| quotient(&c, r, prm.block_width) == q0),
                    "over-cap group is not a single class"
                );
            }
        }
    }
}

/// Paper §3.2 guarantee, in the form derived in the module docs: for every group with
/// TwoStep (height h, final block pattern P, E distinct nonzero positions, W = ΔW),
///   (a) nonzero (row, block) pairs ≥ f(τ)·h·|P|, with f = τ(1 − τ/2) (Jaccard) or
///       τ²(1 − τ/2) (cosine);
///   (b) E / (h·|P|·W) ≥ f(τ)/W ≥ τ/(2W) for Jaccard (τ²/(2W) for cosine), padding counted;
///   (c) E / (h·#columns nonempty in the group) ≥ the same bound (empty columns removed).
#[test]
fn two_step_density_bound_holds_for_every_group() {
    let mut rng = StdRng::seed_from_u64(5);
    let mut checked = 0;
    for it in 0..300 {
        let c = if it % 3 == 0 {
            let (rp, ci) = gen::block_structured(400, 8, 0.2, 0.15, it as u64);
            Csr { rows: 400, cols: 400, row_ptr: rp, col_idx: ci }
        } else {
            random_case(&mut rng)
        };
        let mut prm = random_params(&mut rng);
        prm.merge_rule = MergeRule::TwoStep;
        let g = group_rows_exact(&c.pat(), &prm);
        let bw = prm.block_width as f64;
        let tau = prm.tau;
        let f = match prm.similarity {
            Similarity::Jaccard => tau * (1.0 - tau / 2.0),
            Similarity::Cosine => tau * tau * (1.0 - tau / 2.0),
        };
        let paper = match prm.similarity {
            Similarity::Jaccard => tau / (2.0 * bw),
            Similarity::Cosine => tau * tau / (2.0 * bw),
        };
        for k in 0..g.groups() {
            let rows = &g.perm[g.group_ptr[k]..g.group_ptr[k + 1]];
            let h = rows.len() as f64;
            let mut pat: Vec<usize> = Vec::new();
            let mut pairs = 0usize;
            let mut positions: Vec<(usize, usize)> = Vec::new();
            for &r in rows {
                let q = quotient(&c, r, prm.block_width);
                pairs += q.len();
                pat.extend_from_slice(&q);
                for &col in &c.col_idx[c.row_ptr[r]..c.row_ptr[r + 1]] {
                    positions.push((r, col));
                }
            }
            pat.sort_unstable();
            pat.dedup();
            if pat.is_empty() {
                continue;
            }
            positions.sort_unstable();
            positions.dedup();
            let e = positions.len() as f64;
            let mut ncols: Vec<usize> = positions.iter().map(|p| p.1).collect();
            ncols.sort_unstable();
            ncols.dedup();
            let np = pat.len() as f64;
            let eps = 1e-12;
            assert!(pairs as f64 >= f * h * np - eps, "(a) group {k} {prm:?}");
            assert!(e / (h * np * bw) >= f / bw - eps, "(b) group {k} {prm:?}");
            assert!(f / bw >= paper - eps);
            assert!(e / (h * ncols.len() as f64) >= paper - eps, "(c) group {k} {prm:?}");
            checked += 1;
        }
    }
    assert!(checked > 1000);
}

/// The bound is not vacuous: a chain of rows that each meet Jaccard = τ = 0.5 against the
/// growing pattern is merged by Plain into one group whose (row, block) density drops below
/// τ(1 − τ/2); TwoStep refuses the chain.
#[test]
fn plain_rule_can_violate_the_two_step_bound() {
    let k = 20;
    // Seed {0,1}; row m takes {0..=m} from the pattern {0..2m-1} plus new {2m, 2m+1}.
    let mut rows = vec![vec![0, 1]];
    for m in 1..=k {
        let mut r: Vec<usize> = (0..=m).collect();
        r.extend([2 * m, 2 * m + 1]);
        rows.push(r);
    }
    let c = Csr::from_rows(2 * k + 2, rows);
    let plain = OneSaParams { block_width: 1, tau: 0.5, merge_rule: MergeRule::Plain, ..Default::default() };
    let two = OneSaParams { merge_rule: MergeRule::TwoStep, ..plain };
    let gp = group_rows_exact(&c.pat(), &plain);
    assert_eq!(gp, group_rows_reference(&c.pat(), &plain));
    assert_eq!(gp.groups(), 1);
    let pairs: usize = (0..=k).map(|i| quotient(&c, i, 1).len()).sum();
    let h = (k + 1) as f64;
    let np = (2 * k + 2) as f64;
    assert!((pairs as f64) < 0.5 * (1.0 - 0.25) * h * np, "Plain should violate the bound");
    let gt = group_rows_exact(&c.pat(), &two);
    assert_eq!(gt, group_rows_reference(&c.pat(), &two));
    assert_eq!(gt.group_ptr[1], 1, "TwoStep must not merge the chain");
}

fn csr_times_dense(c: &Csr, vals: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; c.rows * n];
    for i in 0..c.rows {
        for k in c.row_ptr[i]..c.row_ptr[i + 1] {
            for j in 0..n {
                out[i * n + j] += vals[k] * b[c.col_idx[k] * n + j];
            }
        }
    }
    out
}

#[test]
fn vbr_spmm_matches_csr() {
    let mut rng = StdRng::seed_from_u64(6);
    for it in 0..60 {
        let c = random_case(&mut rng);
        let prm = random_params(&mut rng);
        let vals: Vec<f64> = (0..c.col_idx.len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let n = rng.gen_range(1..5);
        let b: Vec<f64> = (0..c.cols * n).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let vbr = if it % 2 == 0 {
            analyze(&c.pat(), &vals, &prm)
        } else {
            build_vbr(&c.pat(), &vals, &group_rows_reference(&c.pat(), &prm), &prm)
        };
        let want = csr_times_dense(&c, &vals, &b, n);
        let mut got = vec![f64::NAN; c.rows * n];
        let mut writes = 0;
        vbr.spmm(
            |v| v,
            |k, j| b[k * n + j],
            n,
            |i, j, x| {
                got[i * n + j] = x;
                writes += 1;
            },
        );
        assert_eq!(writes, c.rows * n);
        for (x, y) in got.iter().zip(&want) {
            assert!((x - y).abs() <= 1e-12, "{x} vs {y} ({prm:?})");
        }
        // Structure sanity.
        assert_eq!(vbr.block_ptr.len(), vbr.groups() + 1);
        let mut off = 0;
        for g in 0..vbr.groups() {
            let bc = &vbr.block_col[vbr.block_ptr[g]..vbr.block_ptr[g + 1]];
            assert!(bc.windows(2).all(|w| w[0] < w[1]));
            let h = vbr.group_ptr[g + 1] - vbr.group_ptr[g];
            for k in vbr.block_ptr[g]..vbr.block_ptr[g + 1] {
                assert_eq!(vbr.value_offset[k], off);
                off += h * vbr.block_width;
            }
        }
        assert_eq!(off, vbr.values.len());
    }
}

#[test]
fn duplicates_are_summed_and_padding_is_zero() {
    // 2 rows, cols = 5 (not a multiple of ΔW = 4), entry (0,4) given twice.
    let c = Csr::from_rows(5, vec![vec![4, 0, 4], vec![1]]);
    let vals = [1.5, 2.0, 2.5, 7.0];
    let prm = OneSaParams { block_width: 4, tau: 0.1, ..Default::default() };
    let v = analyze(&c.pat(), &vals, &prm);
    let mut dense = vec![0.0; 10];
    v.spmm(|x| x, |k, j| if k == j { 1.0 } else { 0.0 }, 5, |i, j, x| dense[i * 5 + j] = x);
    assert_eq!(dense, vec![2.0, 0.0, 0.0, 0.0, 4.0, 0.0, 7.0, 0.0, 0.0, 0.0]);
    // The last block (columns 4..8) is padded: its columns 5..8 hold zeros.
    assert_eq!(v.values.len(), v.stats.nonzero_blocks * 4 * v.group_ptr.windows(2).map(|w| w[1] - w[0]).max().unwrap());
    assert!((v.stats.fill_in_ratio - v.values.len() as f64 / 4.0).abs() < 1e-12);
    let half_vbr = v.map_values(half::f16::from_f64);
    let mut d16 = [0.0f32; 10];
    half_vbr.spmm(|x| x.to_f32(), |k, j| if k == j { 1.0 } else { 0.0 }, 5, |i, j, x| d16[i * 5 + j] = x);
    assert_eq!(d16[4], 4.0);
}

#[test]
fn stats_are_consistent() {
    let (rp, ci) = gen::block_structured(512, 32, 0.2, 0.3, 9);
    let c = Csr { rows: 512, cols: 512, row_ptr: rp, col_idx: ci };
    let vals = vec![1.0f32; c.col_idx.len()];
    let v = analyze(&c.pat(), &vals, &OneSaParams { block_width: 32, tau: 0.7, ..Default::default() });
    let s = v.stats;
    assert_eq!(s.groups, v.groups());
    assert_eq!(s.nonzero_blocks, v.block_col.len());
    // No padding here (512 % 32 == 0): fill-in is exactly 1/ρ'.
    assert!((s.fill_in_ratio * s.in_block_density - 1.0).abs() < 1e-9);
    assert!(s.analysis_seconds > 0.0);
    // The planted blocks are recovered: ΔH' near 32, ρ' near 0.3.
    assert!(s.avg_block_height >= 24.0, "{s:?}");
    assert!(s.in_block_density >= 0.27, "{s:?}");
}

#[test]
fn params_validate() {
    assert!(OneSaParams::default().validate().is_ok());
    let d = OneSaParams::default();
    assert_eq!((d.block_width, d.tau, d.max_group_height), (64, 0.5, 0));
    assert!(OneSaParams { block_width: 0, ..d }.validate().is_err());
    assert!(OneSaParams { tau: 0.0, ..d }.validate().is_err());
    assert!(OneSaParams { tau: 1.5, ..d }.validate().is_err());
    assert!(OneSaParams { tau: f64::NAN, ..d }.validate().is_err());
    assert!(OneSaParams { tau: 1.0, ..d }.validate().is_ok());
}

#[test]
fn generators_are_deterministic_and_match_parameters() {
    let a = gen::block_structured(1024, 64, 0.1, 0.2, 42);
    let b = gen::block_structured(1024, 64, 0.1, 0.2, 42);
    assert_eq!(a, b);
    let density = a.1.len() as f64 / (1024.0 * 1024.0);
    assert!((density - 0.02).abs() < 0.01, "{density}");
    let p = gen::power_law(10000, 8000, 100000, 0.9, 1);
    assert_eq!(p, gen::power_law(10000, 8000, 100000, 0.9, 1));
    assert!(p.1.len() > 80000 && p.1.len() <= 100000 + 10000);
    assert!(p.0.windows(2).all(|w| w[0] <= w[1]));
}

/// Paper experiment (8192 × 8192, Δ = ΔW = 64, θ = 0.1): for ρ ∈ {0.2, 0.5} some τ recovers
/// the planted blocks, ΔH' ≥ 48 with ρ'/ρ ≥ 0.9.
#[test]
fn blocking_quality_on_the_paper_matrix() {
    for &(rho, seed) in &[(0.2, 11u64), (0.5, 12u64)] {
        let (rp, ci) = gen::block_structured(8192, 64, 0.1, rho, seed);
        let c = Csr { rows: 8192, cols: 8192, row_ptr: rp, col_idx: ci };
        let vals = vec![1.0f32; c.col_idx.len()];
        let mut ok = false;
        let mut seen = Vec::new();
        for &tau in &[0.5, 0.7, 0.9] {
            let s = analyze(&c.pat(), &vals, &OneSaParams { tau, ..Default::default() }).stats;
            seen.push((tau, s.avg_block_height, s.in_block_density / rho));
            ok |= s.avg_block_height >= 48.0 && s.in_block_density / rho >= 0.9;
        }
        assert!(ok, "rho {rho}: {seen:?}");
    }
}

/// The budgeted default keeps every guarantee on random inputs with small budgets (so the
/// budget is actually hit): permutation, identical rows together (one group for the empty
/// rows), height cap, TwoStep density bound (nonzero (row, block) pairs ≥ f(τ)·h·|P|).
#[test]
fn budgeted_grouping_keeps_the_guarantees() {
    let mut rng = StdRng::seed_from_u64(21);
    let mut cut_runs = 0;
    for it in 0..200 {
        let c = if it % 4 == 0 {
            let (rp, ci) = gen::power_law(600, 500, 6000, 0.9, it as u64);
            Csr { rows: 600, cols: 500, row_ptr: rp, col_idx: ci }
        } else {
            random_case(&mut rng)
        };
        let prm = random_params(&mut rng);
        let budget = [1, 2, 3, 5, 8, DEFAULT_CANDIDATE_BUDGET][rng.gen_range(0..6)];
        let (g, st) = group_rows_with_stats(&c.pat(), &prm, budget);
        if it % 10 == 0 {
            // group_rows = the automatic budget.
            let (ga, sa) = group_rows_auto_with_stats(&c.pat(), &prm);
            assert_eq!(sa.budget, auto_candidate_budget(sa.classes));
            assert_eq!(ga, group_rows_with_stats(&c.pat(), &prm, sa.budget).0);
            assert_eq!(ga, group_rows(&c.pat(), &prm));
        }
        cut_runs += (st.truncated_lists > 0) as usize;
        assert_is_grouping(&g, c.rows);
        let gid = group_of(&g);
        let q: Vec<Vec<usize>> = (0..c.rows).map(|i| quotient(&c, i, prm.block_width)).collect();
        for i in 0..c.rows {
            for j in i + 1..c.rows {
                if q[i] == q[j] {
                    assert_eq!(gid[i], gid[j], "identical rows {i},{j} split ({prm:?}, budget {budget})");
                }
            }
        }
        let empties = q.iter().filter(|x| x.is_empty()).count();
        if let Some(e) = q.iter().position(|x| x.is_empty()) {
            let k = gid[e];
            assert_eq!(g.group_ptr[k + 1] - g.group_ptr[k], empties);
        }
        let f = match prm.similarity {
            Similarity::Jaccard => prm.tau * (1.0 - prm.tau / 2.0),
            Similarity::Cosine => prm.tau * prm.tau * (1.0 - prm.tau / 2.0),
        };
        for k in 0..g.groups() {
            let rows = &g.perm[g.group_ptr[k]..g.group_ptr[k + 1]];
            if prm.max_group_height > 0 && rows.len() > prm.max_group_height {
                assert!(rows.iter().all(|&r| q[r] == q[rows[0]]), "over-cap group is not a single class");
            }
            if prm.merge_rule == MergeRule::TwoStep {
                let mut pat: Vec<usize> = rows.iter().flat_map(|&r| q[r].iter().copied()).collect();
                let pairs = pat.len();
                pat.sort_unstable();
                pat.dedup();
                let bound = f * rows.len() as f64 * pat.len() as f64;
                assert!(pairs as f64 >= bound - 1e-9, "density bound, group {k}, {prm:?}, budget {budget}");
            }
        }
    }
    assert!(cut_runs > 40, "budget rarely hit: {cut_runs}");
}

/// Budget 0 is the exact mode; a budget that is never hit gives the exact grouping too.
#[test]
fn budgeted_grouping_is_exact_when_the_budget_is_not_hit() {
    let mut rng = StdRng::seed_from_u64(22);
    let mut exact_runs = 0;
    for it in 0..250 {
        let c = random_case(&mut rng);
        let prm = random_params(&mut rng);
        let r = group_rows_reference(&c.pat(), &prm);
        assert_eq!(group_rows_budgeted(&c.pat(), &prm, 0), r, "case {it}: budget 0");
        let budget = rng.gen_range(1..40);
        let (g, st) = group_rows_with_stats(&c.pat(), &prm, budget);
        if st.truncated_lists == 0 {
            assert_eq!(g, r, "case {it}: budget {budget} not hit but grouping differs ({prm:?})");
            exact_runs += 1;
        }
        let (gx, stx) = group_rows_with_stats(&c.pat(), &prm, 0);
        assert_eq!((gx, stx.truncated_lists), (r, 0));
    }
    assert!(exact_runs > 50, "{exact_runs}");
}

/// The plain serial Algorithm 2 on rows (speed baseline) meets the invariants (permutation,
/// TwoStep density bound, strict height cap); at τ = 1 (no cap) merging needs equal patterns,
/// so it yields exactly the compressed reference's classes. Below τ = 1 it can split
/// identical rows, which the compressed versions never do.
#[test]
fn serial_algorithm_2_baseline() {
    let mut rng = StdRng::seed_from_u64(23);
    for it in 0..150 {
        let c = random_case(&mut rng);
        let mut prm = random_params(&mut rng);
        let g = group_rows_serial_alg2(&c.pat(), &prm);
        assert_is_grouping(&g, c.rows);
        let q: Vec<Vec<usize>> = (0..c.rows).map(|i| quotient(&c, i, prm.block_width)).collect();
        let f = match prm.similarity {
            Similarity::Jaccard => prm.tau * (1.0 - prm.tau / 2.0),
            Similarity::Cosine => prm.tau * prm.tau * (1.0 - prm.tau / 2.0),
        };
        for k in 0..g.groups() {
            let rows = &g.perm[g.group_ptr[k]..g.group_ptr[k + 1]];
            assert!(rows.windows(2).all(|w| w[0] < w[1]));
            if prm.max_group_height > 0 {
                assert!(rows.len() <= prm.max_group_height);
            }
            if prm.merge_rule == MergeRule::TwoStep {
                let mut pat: Vec<usize> = rows.iter().flat_map(|&r| q[r].iter().copied()).collect();
                let pairs = pat.len();
                pat.sort_unstable();
                pat.dedup();
                assert!(pairs as f64 >= f * rows.len() as f64 * pat.len() as f64 - 1e-9, "case {it}");
            }
        }
        prm.tau = 1.0;
        prm.max_group_height = 0;
        let g1 = group_rows_serial_alg2(&c.pat(), &prm);
        // Empty rows are singletons in the row-wise version; compare the nonempty rows.
        let r1 = group_rows_reference(&c.pat(), &prm);
        if q.iter().all(|x| !x.is_empty()) {
            assert_eq!(g1, r1, "case {it}: tau = 1");
        }
    }
    // Identical rows split by the row-wise version (Plain, τ = 0.5, ΔW = 1): seed {0,1};
    // {0,1,2} (2/3), {0,1,2,3} (3/4), {1,2,3,4} (3/5) join and P = {0..4}; the copy {0,1} of
    // the seed then has Jaccard 2/5 < τ and starts a group of its own. The compressed
    // versions keep rows 0 and 4 together.
    let c = Csr::from_rows(5, vec![vec![0, 1], vec![0, 1, 2], vec![0, 1, 2, 3], vec![1, 2, 3, 4], vec![0, 1]]);
    let prm = OneSaParams { block_width: 1, tau: 0.5, merge_rule: MergeRule::Plain, ..Default::default() };
    let a2 = group_of(&group_rows_serial_alg2(&c.pat(), &prm));
    assert_eq!(a2, vec![0, 0, 0, 0, 1]);
    for g in [group_rows_reference(&c.pat(), &prm), group_rows_exact(&c.pat(), &prm), group_rows(&c.pat(), &prm)] {
        let gid = group_of(&g);
        assert_eq!(gid[0], gid[4]);
    }
}

/// The lonely-seed certificates and the speculative groups are only shortcuts: running
/// every seed through the serial search gives the same grouping and the same budget cuts
/// (exact mode and small budgets, so that windows are cut).
#[test]
fn shortcuts_do_not_change_the_result() {
    let mut rng = StdRng::seed_from_u64(31);
    let mut lonely_seen = 0;
    for it in 0..250 {
        let c = if it % 5 == 0 {
            let (rp, ci) = gen::power_law(700, 600, 7000, 0.9, it as u64);
            Csr { rows: 700, cols: 600, row_ptr: rp, col_idx: ci }
        } else {
            random_case(&mut rng)
        };
        let prm = random_params(&mut rng);
        let budget = [0, 1, 2, 3, 5, 8, 32][rng.gen_range(0..7)];
        let (g, st) = search::group_rows_impl_with(&c.pat(), &prm, Some(budget), true);
        let (g0, st0) = search::group_rows_impl_with(&c.pat(), &prm, Some(budget), false);
        assert_eq!(g, g0, "case {it}: {prm:?}, budget {budget}");
        assert_eq!(st.truncated_lists, st0.truncated_lists, "case {it}: cut count");
        lonely_seen += st.lonely;
    }
    assert!(lonely_seen > 1000, "{lonely_seen}");
}

/// Same input and parameters give the same plan whatever the number of threads.
#[test]
fn result_does_not_depend_on_the_thread_count() {
    let (rp, ci) = gen::power_law(20000, 20000, 200000, 0.9, 77);
    let c = Csr { rows: 20000, cols: 20000, row_ptr: rp, col_idx: ci };
    let vals: Vec<f32> = (0..c.col_idx.len()).map(|k| (k % 7) as f32).collect();
    let run = |threads: usize, prm: &OneSaParams| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let (g, st) = group_rows_with_stats(&c.pat(), prm, 4);
            let mut v = analyze(&c.pat(), &vals, prm);
            v.stats.analysis_seconds = 0.0;
            (g, st, v)
        })
    };
    for tau in [0.3, 0.5, 0.9] {
        let prm = OneSaParams { block_width: 16, tau, ..Default::default() };
        let one = run(1, &prm);
        assert!(one.1.truncated_lists > 0, "budget 4 should cut lists");
        for threads in [2, 3, 8] {
            assert!(run(threads, &prm) == one, "tau {tau}, {threads} threads");
        }
    }
}

/// `analyze` builds into a values buffer faulted in beside the grouping, sized from the lower
/// bound Σ|Q(row)|·ΔW (plus 1/8): its plan equals `build_vbr` of the same grouping, both when
/// the plan fits that buffer and when it has to grow. `analyze_layout` is that plan without
/// its values (rows unsorted, with duplicates: `fill_values` of it is the same values).
#[test]
fn analyze_equals_build_vbr_of_its_grouping() {
    let mut rng = StdRng::seed_from_u64(31);
    let (mut fits, mut grows) = (0, 0);
    for _ in 0..300 {
        let c = random_case(&mut rng);
        let prm = random_params(&mut rng);
        let vals: Vec<f32> = (0..c.col_idx.len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
        let mut got = analyze(&c.pat(), &vals, &prm);
        let mut want = build_vbr(&c.pat(), &vals, &group_rows(&c.pat(), &prm), &prm);
        got.stats.analysis_seconds = 0.0;
        want.stats.analysis_seconds = 0.0;
        assert!(got == want);
        let mut layout = analyze_layout(&c.pat(), &prm);
        layout.stats.analysis_seconds = 0.0;
        assert!(layout == want.layout);
        assert_eq!(layout.values_len, want.values.len());
        assert!(fill_values(&layout, &c.pat(), &vals, Vec::new()) == want.values);
        let lower: usize = (0..c.rows)
            .map(|i| {
                let mut b: Vec<usize> = c.pat().row(i).iter().map(|&x| x / prm.block_width).collect();
                b.sort_unstable();
                b.dedup();
                b.len() * prm.block_width
            })
            .sum();
        assert!(lower <= want.values.len());
        if lower > 0 && want.values.len() <= lower + lower / 8 {
            fits += 1;
        } else if lower > 0 {
            grows += 1;
        }
    }
    assert!(fits > 20 && grows > 20, "fits {fits}, grows {grows}");
}
