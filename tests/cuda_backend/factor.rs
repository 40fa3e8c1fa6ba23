//! Incomplete factorizations (`spblk{S,D}csric02*`, `spblk{S,D}csrilu02*`): the factors hold
//! the property that defines them (checked in f64, independently of the algorithm: (L U)(i, j)
//! = a(i, j) on A's pattern for ILU0, (L Lᵀ)(i, j) = a(i, j) on its lower pattern for IC0), the
//! CUDA backend gives the host's bits, repeated factorizations the same bits; zero pivots where
//! NVIDIA's library reports them (probe of session 20, docs/spsv.md); the numeric boost; graph
//! capture; the protocol's errors.

use std::ffi::c_void;

use rand::rngs::StdRng;
use rand::Rng;
use spblk::capi::factor::*;
use spblk::capi::mat_descr::*;
use spblk::capi::types::*;

use super::support::*;

const IC0: bool = true;
const ILU0: bool = false;
const POLICY: spblkSolvePolicy_t = SPBLK_SOLVE_POLICY_NO_LEVEL;

/// A CSR matrix with ascending columns: rows of (column, value).
type Rows = Vec<Vec<(usize, f64)>>;

/// A random n x n matrix whose every row holds its diagonal, about `avg` other entries per row
/// (every 97th row `long` of them when `long` > 0), diagonally dominant (so both factorizations
/// exist and stay bounded); symmetric when `symmetric`.
fn matrix(r: &mut StdRng, n: usize, avg: usize, long: usize, symmetric: bool) -> Rows {
    let mut rows: Vec<std::collections::BTreeMap<usize, f64>> = vec![Default::default(); n];
    for i in 0..n {
        let len = if long > 0 && i % 97 == 0 { long } else { r.gen_range(0..=2 * avg) };
        for _ in 0..len.min(n.saturating_sub(1)) {
            let j = r.gen_range(0..n);
            if j == i || (symmetric && j > i) {
                continue;
            }
            let v: f64 = r.gen_range(-1.0..1.0);
            rows[i].insert(j, v);
            if symmetric {
                rows[j].insert(i, v);
            }
        }
    }
    with_dominant_diagonal(r, rows)
}

/// The rows with a diagonal entry larger than the sum of the others' magnitudes.
fn with_dominant_diagonal(r: &mut StdRng, mut rows: Vec<std::collections::BTreeMap<usize, f64>>) -> Rows {
    for (i, row) in rows.iter_mut().enumerate() {
        let weight: f64 = row.values().map(|v| v.abs()).sum();
        row.insert(i, 1.0 + weight + r.gen_range(0.0..1.0));
    }
    rows.into_iter().map(|m| m.into_iter().collect()).collect()
}

/// A band whose every row waits on the row before it (entries (i, i - 1), (i, i - 3) and, unless
/// symmetric, (i, i + 2)): one row per level, so a ticket of short rows is a chain of lanes.
fn chain(r: &mut StdRng, n: usize, symmetric: bool) -> Rows {
    let mut rows: Vec<std::collections::BTreeMap<usize, f64>> = vec![Default::default(); n];
    for i in 0..n {
        for j in [i.checked_sub(1), i.checked_sub(3), (!symmetric && i + 2 < n).then_some(i + 2)].into_iter().flatten()
        {
            let v: f64 = r.gen_range(-1.0..1.0);
            rows[i].insert(j, v);
            if symmetric {
                rows[j].insert(i, v);
            }
        }
    }
    with_dominant_diagonal(r, rows)
}

/// A side's copy of a CSR matrix with `int` indices from `base`, values in `vt`.
struct Device {
    m: i32,
    nnz: i32,
    ptr: *mut c_void,
    col: *mut c_void,
    val: *mut c_void,
}

fn upload(side: &mut Side, rows: &Rows, base: i32, vt: spblkDataType_t) -> Device {
    let mut ptr = vec![base];
    let (mut col, mut val) = (Vec::new(), Vec::new());
    for row in rows {
        for &(j, v) in row {
            col.push(j as i32 + base);
            val.push(v);
        }
        ptr.push(col.len() as i32 + base);
    }
    let bytes = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    Device {
        m: rows.len() as i32,
        nnz: col.len() as i32,
        ptr: side.put(&bytes(&ptr)),
        col: side.put(&bytes(&col)),
        val: side.put(&encode(&val, vt)),
    }
}

fn descr(base: i32) -> spblkMatDescr_t {
    let mut d = std::ptr::null_mut();
    ok(spblkCreateMatDescr(&mut d), "createMatDescr");
    ok(spblkSetMatIndexBase(d, base as u32), "base");
    d
}

/// Statuses of the analysis, its zero pivot (status, position), the factorization and its zero
/// pivot, the factored values; `boost`: (tolerance, value) for ILU0.
#[derive(Debug)]
struct Outcome {
    analysis: (spblkStatus_t, i32),
    factor: (spblkStatus_t, i32),
    values: Vec<f64>,
}

/// Runs the protocol (bufferSize, analysis, zeroPivot, factorization, zeroPivot) on one side.
fn factorize(
    side: &mut Side,
    a: &Device,
    d: spblkMatDescr_t,
    ic: bool,
    vt: spblkDataType_t,
    boost: Option<(f64, f64)>,
) -> Outcome {
    let h = side.handle;
    let (m, nnz, ptr, col, val) = (a.m, a.nnz, a.ptr as *const i32, a.col as *const i32, a.val);
    let f32t = vt == SPBLK_R_32F;
    let mut size = 0i32;
    let mut info: *mut c_void = std::ptr::null_mut();
    let (mut pa, mut pf) = (-7, -7);
    let (sa, sf);
    if ic {
        ok(spblkCreateCsric02Info(&mut info as *mut _ as *mut spblkCsric02Info_t), "createInfo");
        let info = info as spblkCsric02Info_t;
        let st = if f32t {
            spblkScsric02_bufferSize(h, m, nnz, d, val.cast(), ptr, col, info, &mut size)
        } else {
            spblkDcsric02_bufferSize(h, m, nnz, d, val.cast(), ptr, col, info, &mut size)
        };
        ok(st, "bufferSize");
        let buf = side.buffer(size as usize);
        let st = if f32t {
            spblkScsric02_analysis(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf)
        } else {
            spblkDcsric02_analysis(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf)
        };
        ok(st, "analysis");
        sa = spblkXcsric02_zeroPivot(h, info, &mut pa);
        let st = if f32t {
            spblkScsric02(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf)
        } else {
            spblkDcsric02(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf)
        };
        ok(st, "csric02");
        sf = spblkXcsric02_zeroPivot(h, info, &mut pf);
        ok(spblkDestroyCsric02Info(info), "destroyInfo");
    } else {
        ok(spblkCreateCsrilu02Info(&mut info as *mut _ as *mut spblkCsrilu02Info_t), "createInfo");
        let info = info as spblkCsrilu02Info_t;
        if let Some((mut tol, value)) = boost {
            let st = if f32t {
                let mut v = value as f32;
                spblkScsrilu02_numericBoost(h, info, 1, &mut tol, &mut v)
            } else {
                let mut v = value;
                spblkDcsrilu02_numericBoost(h, info, 1, &mut tol, &mut v)
            };
            ok(st, "numericBoost");
        }
        let st = if f32t {
            spblkScsrilu02_bufferSize(h, m, nnz, d, val.cast(), ptr, col, info, &mut size)
        } else {
            spblkDcsrilu02_bufferSize(h, m, nnz, d, val.cast(), ptr, col, info, &mut size)
        };
        ok(st, "bufferSize");
        let buf = side.buffer(size as usize);
        let st = if f32t {
            spblkScsrilu02_analysis(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf)
        } else {
            spblkDcsrilu02_analysis(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf)
        };
        ok(st, "analysis");
        sa = spblkXcsrilu02_zeroPivot(h, info, &mut pa);
        let st = if f32t {
            spblkScsrilu02(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf)
        } else {
            spblkDcsrilu02(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf)
        };
        ok(st, "csrilu02");
        sf = spblkXcsrilu02_zeroPivot(h, info, &mut pf);
        ok(spblkDestroyCsrilu02Info(info), "destroyInfo");
    }
    side.sync();
    let values = decode(&side.get(val, a.nnz as usize * vsize(vt)), vt);
    Outcome { analysis: (sa, pa), factor: (sf, pf), values }
}

/// The factors' defining property, in f64: for ILU0 every (i, j) of A's pattern has
/// Σ_k l(i, k) u(k, j) = a(i, j) (k over the entries both rows hold, l(i, i) = 1, k <= j, k <= i);
/// for IC0 every (i, j), j <= i, has Σ_k l(i, k) l(j, k) = a(i, j) (k <= j). Within a bound
/// proportional to the sum of the terms' magnitudes.
#[track_caller]
fn check_property(what: &str, a: &Rows, factored: &[f64], ic: bool, vt: spblkDataType_t) {
    let mut at = 0;
    let f: Vec<Vec<(usize, f64)>> = a
        .iter()
        .map(|row| {
            let out = row.iter().zip(&factored[at..]).map(|(&(j, _), &v)| (j, v)).collect();
            at += row.len();
            out
        })
        .collect();
    let get = |i: usize, j: usize| f[i].binary_search_by_key(&j, |e| e.0).ok().map(|p| f[i][p].1);
    let eps = if vt == SPBLK_R_32F { 2f64.powi(-24) } else { 2f64.powi(-53) };
    for (i, row) in a.iter().enumerate() {
        for &(j, aij) in row {
            if ic && j > i {
                // Above the diagonal: IC0 leaves A's value.
                assert_eq!(get(i, j).unwrap(), as_type(aij, vt), "{what}: ({i}, {j}) above the diagonal changed");
                continue;
            }
            let (mut sum, mut mag) = (0.0, 0.0);
            for &(k, lik) in &f[i] {
                if k > j.min(i) {
                    break;
                }
                let other = if ic {
                    get(j, k)
                } else if k == i {
                    None
                } else {
                    get(k, j)
                };
                let term = match (ic, k == i) {
                    (false, true) => get(i, j).unwrap_or(0.0), // l(i, i) = 1 times u(i, j)
                    _ => other.map_or(0.0, |o| lik * o),
                };
                sum += term;
                mag += term.abs();
            }
            let bound = 8.0 * (row.len() as f64 + 2.0) * eps * (mag + aij.abs());
            let want = as_type(aij, vt);
            assert!(
                (sum - want).abs() <= bound,
                "{what}: ({i}, {j}) of the product is {sum}, A holds {want} (bound {bound:e})"
            );
        }
    }
}

/// Every value type, both bases, sizes from 1 to 20000 rows, rows of hundreds of entries
/// (a warp's rows, many dependencies each) and of a few (a lane's), a chain of rows (lanes
/// waiting on earlier lanes), rows staged in shared memory (4 to 128 entries: these matrices'
/// levels are narrow) whose dependencies' parts span several windows of 64 entries, short rows
/// galloping over long ones: the factors' property, CUDA the host's bits, a second
/// factorization the same bits.
#[test]
fn factorizations_hold_their_property_and_the_hosts_bits() {
    let sides = sides("factorizations_hold_their_property_and_the_hosts_bits");
    let mut r = rng(0xfac7);
    let mut case = 0;
    for ic in [IC0, ILU0] {
        for vt in [SPBLK_R_32F, SPBLK_R_64F] {
            let shapes = [
                (1, 0, 0),
                (7, 2, 0),
                (130, 3, 0),
                (1000, 6, 0),
                (20000, 3, 300),
                (3000, 40, 0),
                (3000, 0, 0),
                (4000, 12, 200),
            ];
            for (n, avg, long) in shapes {
                case += 1;
                if quick_skip(case) {
                    continue;
                }
                let base = (case % 2) as i32;
                // (n, 0, 0) with n > 1: the chain.
                let a = if avg == 0 && n > 1 { chain(&mut r, n, ic) } else { matrix(&mut r, n, avg, long, ic) };
                let what =
                    format!("{} {vt:?} n={n} avg={avg} long={long} base {base}", if ic { "IC0" } else { "ILU0" });
                let mut results = Vec::new();
                for &kind in &sides {
                    let mut side = Side::new(kind);
                    let d = descr(base);
                    let dev = upload(&mut side, &a, base, vt);
                    let first = factorize(&mut side, &dev, d, ic, vt, None);
                    assert_eq!(first.analysis, (SPBLK_STATUS_SUCCESS, -1), "{what} {kind:?}: analysis' zero pivot");
                    assert_eq!(first.factor, (SPBLK_STATUS_SUCCESS, -1), "{what} {kind:?}: zero pivot");
                    check_property(&format!("{what} {kind:?}"), &a, &first.values, ic, vt);
                    let again = upload(&mut side, &a, base, vt);
                    let second = factorize(&mut side, &again, d, ic, vt, None);
                    assert!(
                        second.values.iter().zip(&first.values).all(|(x, y)| x.to_bits() == y.to_bits()),
                        "{what} {kind:?}: a second factorization gave other bits"
                    );
                    ok(spblkDestroyMatDescr(d), "destroyMatDescr");
                    results.push(first.values);
                }
                if let [host, cuda] = &results[..] {
                    for (p, (c, h)) in cuda.iter().zip(host).enumerate() {
                        assert!(c.to_bits() == h.to_bits(), "{what}: entry {p} is {c} on CUDA, {h} on the host");
                    }
                }
            }
        }
    }
}

/// NVIDIA's answers on 4x4 tridiagonal matrices (probe of 2026-11-27, cuSPARSE 12.6.3, f64,
/// docs/spsv.md): a missing diagonal is a zero pivot from the analysis on (and reads as one);
/// IC0 reports a pivot <= 0 and stores the square root of its magnitude; ILU0 reports an
/// exact zero only; positions count from the base. NVIDIA's values printed with 4 digits.
#[test]
fn zero_pivots_where_nvidia_reports_them() {
    /// The tridiagonal (4, 1) matrix with changes: `which` 0: (2, 2) missing; 1: a(1, 1) = 0;
    /// 2: the leading 2x2 block all ones.
    fn case(which: usize) -> Rows {
        let mut full = [[4.0, 1.0, 0.0, 0.0], [1.0, 4.0, 1.0, 0.0], [0.0, 1.0, 4.0, 1.0], [0.0, 0.0, 1.0, 4.0]];
        if which == 1 {
            full[1][1] = 0.0;
        }
        if which == 2 {
            full[0] = [1.0, 1.0, 0.0, 0.0];
            full[1][0] = 1.0;
            full[1][1] = 1.0;
        }
        (0..4)
            .map(|i| {
                (0..4)
                    .filter(|&j| (full[i][j] != 0.0 || (i == j && which != 0)) && !(which == 0 && i == 2 && j == 2))
                    .map(|j| (j, full[i][j]))
                    .collect()
            })
            .collect()
    }
    let inf = f64::INFINITY;
    /// Which matrix, IC0?, the analysis' zero row, the factor's zero row, NVIDIA's values (NaN:
    /// not compared).
    type Case = (usize, bool, Option<i32>, Option<i32>, Vec<f64>);
    let cases: Vec<Case> = vec![
        (0, IC0, Some(2), Some(2), vec![2.0, 1.0, 0.5, 1.936, 1.0, 0.5164, 1.0, 1.0, 1.732]),
        (0, ILU0, Some(2), Some(2), vec![4.0, 1.0, 0.25, 3.75, 1.0, 0.2667, 1.0, 1.0, 4.0]),
        (1, IC0, None, Some(1), vec![2.0, 1.0, 0.5, 0.5, 1.0, 2.0, 0.0, 1.0, inf, inf]),
        (1, ILU0, None, None, vec![4.0, 1.0, 0.25, -0.25, 1.0, -4.0, 8.0, 1.0, 0.125, 3.875]),
        // NVIDIA's IC0 gives NaN in row 3 here (1/inf is 0 in spblk): not compared.
        (2, IC0, None, Some(1), vec![1.0, 1.0, 1.0, 0.0, 1.0, inf, inf, 1.0, f64::NAN, f64::NAN]),
        (2, ILU0, None, Some(1), vec![1.0, 1.0, 1.0, 0.0, 1.0, inf, -inf, 1.0, -0.0, 4.0]),
    ];
    for kind in sides("zero_pivots_where_nvidia_reports_them") {
        for base in [0, 1] {
            for (which, ic, at_analysis, at_factor, want) in &cases {
                let what = format!("{kind:?} case {which} {} base {base}", if *ic { "IC0" } else { "ILU0" });
                let a = case(*which);
                let mut side = Side::new(kind);
                let d = descr(base);
                let dev = upload(&mut side, &a, base, SPBLK_R_64F);
                let out = factorize(&mut side, &dev, d, *ic, SPBLK_R_64F, None);
                let expect = |row: &Option<i32>| match row {
                    Some(r) => (SPBLK_STATUS_ZERO_PIVOT, r + base),
                    None => (SPBLK_STATUS_SUCCESS, -1),
                };
                assert_eq!(out.analysis, expect(at_analysis), "{what}: after the analysis");
                assert_eq!(out.factor, expect(at_factor), "{what}: after the factorization");
                assert_eq!(out.values.len(), want.len(), "{what}");
                for (p, (&got, &w)) in out.values.iter().zip(want).enumerate() {
                    let close = if w.is_nan() {
                        true
                    } else if w.is_infinite() || w == 0.0 {
                        got == w && got.is_sign_negative() == w.is_sign_negative()
                    } else {
                        (got - w).abs() <= 5e-4 * w.abs()
                    };
                    assert!(close, "{what}: value {p} is {got}, NVIDIA's {w} ({:?})", out.values);
                }
                ok(spblkDestroyMatDescr(d), "destroyMatDescr");
            }
        }
    }
}

/// The numeric boost replaces small pivots (and they are not reported); the ILU0 property then
/// holds with the boosted pivots.
#[test]
fn numeric_boost_replaces_small_pivots() {
    let sides = sides("numeric_boost_replaces_small_pivots");
    // The all-ones leading block makes u(1, 1) exactly 0.
    let a: Rows = vec![
        vec![(0, 1.0), (1, 1.0)],
        vec![(0, 1.0), (1, 1.0), (2, 1.0)],
        vec![(1, 1.0), (2, 4.0), (3, 1.0)],
        vec![(2, 1.0), (3, 4.0)],
    ];
    let mut results = Vec::new();
    for &kind in &sides {
        for vt in [SPBLK_R_32F, SPBLK_R_64F] {
            let mut side = Side::new(kind);
            let d = descr(0);
            let dev = upload(&mut side, &a, 0, vt);
            let out = factorize(&mut side, &dev, d, ILU0, vt, Some((1e-3, 0.5)));
            assert_eq!(out.factor, (SPBLK_STATUS_SUCCESS, -1), "{kind:?} {vt:?}: a boosted pivot is not reported");
            // u(1, 1) = 0.5 (boosted), l(2, 1) = 1 / 0.5, u(2, 2) = 4 - 2 * 1.
            assert_eq!(out.values[3], 0.5, "{kind:?} {vt:?}: {:?}", out.values);
            assert_eq!(out.values[5], 2.0, "{kind:?} {vt:?}: {:?}", out.values);
            assert_eq!(out.values[6], 2.0, "{kind:?} {vt:?}: {:?}", out.values);
            results.push(out.values);
            ok(spblkDestroyMatDescr(d), "destroyMatDescr");
        }
    }
    if results.len() == 4 {
        assert_eq!(results[0], results[2]);
        assert_eq!(results[1], results[3]);
    }
}

/// The analysis and the factorization capture into a graph; the replay gives the plain bits.
#[test]
fn factorizations_are_capturable() {
    if !gpu("factorizations_are_capturable") || harness_on_host() {
        return;
    }
    let mut r = rng(0xcafe);
    for ic in [IC0, ILU0] {
        let a = matrix(&mut r, 5000, 4, 0, ic);
        let mut side = Side::new(Kind::Cuda);
        let d = descr(1);
        let first = upload(&mut side, &a, 1, SPBLK_R_64F);
        let plain = factorize(&mut side, &first, d, ic, SPBLK_R_64F, None).values;
        let dev = upload(&mut side, &a, 1, SPBLK_R_64F);
        let h = side.handle;
        let (m, nnz, ptr, col, val) = (dev.m, dev.nnz, dev.ptr as *const i32, dev.col as *const i32, dev.val);
        let mut size = 0;
        let statuses = if ic {
            let mut info = std::ptr::null_mut();
            ok(spblkCreateCsric02Info(&mut info), "info");
            ok(spblkDcsric02_bufferSize(h, m, nnz, d, val.cast(), ptr, col, info, &mut size), "size");
            let buf = side.buffer(size as usize);
            let st = capture_and_replay(h, || {
                [
                    spblkDcsric02_analysis(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf),
                    spblkDcsric02(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf),
                ]
            });
            ok(spblkDestroyCsric02Info(info), "destroy");
            st
        } else {
            let mut info = std::ptr::null_mut();
            ok(spblkCreateCsrilu02Info(&mut info), "info");
            ok(spblkDcsrilu02_bufferSize(h, m, nnz, d, val.cast(), ptr, col, info, &mut size), "size");
            let buf = side.buffer(size as usize);
            let st = capture_and_replay(h, || {
                [
                    spblkDcsrilu02_analysis(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf),
                    spblkDcsrilu02(h, m, nnz, d, val.cast(), ptr, col, info, POLICY, buf),
                ]
            });
            ok(spblkDestroyCsrilu02Info(info), "destroy");
            st
        };
        assert_eq!(statuses, [SPBLK_STATUS_SUCCESS; 2], "{}", last_message());
        let got = decode(&side.get(val, nnz as usize * 8), SPBLK_R_64F);
        assert!(got.iter().zip(&plain).all(|(x, y)| x.to_bits() == y.to_bits()), "IC0 {ic}: the replay differs");
        ok(spblkDestroyMatDescr(d), "destroyMatDescr");
    }
}

/// The protocol's errors, with the argument they name.
#[test]
fn factorization_protocol_errors() {
    let a: Rows = vec![vec![(0, 4.0), (1, 1.0)], vec![(0, 1.0), (1, 4.0)]];
    for kind in sides("factorization_protocol_errors") {
        let mut side = Side::new(kind);
        let h = side.handle;
        let d = descr(0);
        let dev = upload(&mut side, &a, 0, SPBLK_R_64F);
        let (ptr, col, val) = (dev.ptr as *const i32, dev.col as *const i32, dev.val as *mut f64);
        let expect = |status: spblkStatus_t, want: spblkStatus_t, words: &str| {
            let message = last_message();
            assert_eq!(status, want, "{kind:?}: {message}");
            assert!(message.contains(words), "{kind:?}: '{message}' lacks '{words}'");
        };
        let inv = SPBLK_STATUS_INVALID_VALUE;
        let mut info = std::ptr::null_mut();
        ok(spblkCreateCsrilu02Info(&mut info), "info");
        let mut pos = -7;
        expect(spblkXcsrilu02_zeroPivot(h, info, &mut pos), inv, "spblk{S,D}csrilu02_analysis");
        assert_eq!(pos, -7, "position written on failure");
        expect(spblkDcsrilu02(h, 2, 4, d, val, ptr, col, info, POLICY, std::ptr::null_mut()), inv, "info");
        expect(spblkDcsrilu02_analysis(h, 2, 4, d, val, ptr, col, info, 2, std::ptr::null_mut()), inv, "policy");
        expect(spblkDcsrilu02_analysis(h, -1, 4, d, val, ptr, col, info, POLICY, std::ptr::null_mut()), inv, "m");
        expect(
            spblkDcsrilu02_analysis(h, 2, 4, d, val, std::ptr::null(), col, info, POLICY, std::ptr::null_mut()),
            inv,
            "csrSortedRowPtrA",
        );
        ok(spblkSetMatType(d, SPBLK_MATRIX_TYPE_SYMMETRIC), "type");
        expect(
            spblkDcsrilu02_analysis(h, 2, 4, d, val, ptr, col, info, POLICY, std::ptr::null_mut()),
            SPBLK_STATUS_NOT_SUPPORTED,
            "GENERAL",
        );
        ok(spblkSetMatType(d, SPBLK_MATRIX_TYPE_GENERAL), "type");
        let mut size = -1;
        ok(spblkDcsrilu02_bufferSize(h, 2, 4, d, val, ptr, col, info, &mut size), "bufferSize");
        let buf = side.buffer(size as usize);
        if size > 0 {
            expect(
                spblkDcsrilu02_analysis(h, 2, 4, d, val, ptr, col, info, POLICY, std::ptr::null_mut()),
                inv,
                "pBuffer",
            );
        }
        ok(spblkDcsrilu02_analysis(h, 2, 4, d, val, ptr, col, info, POLICY, buf), "analysis");
        expect(spblkScsrilu02(h, 2, 4, d, val.cast(), ptr, col, info, POLICY, buf), inv, "analysed for another matrix");
        let mut tol = 0.1;
        expect(spblkDcsrilu02_numericBoost(h, info, 1, &mut tol, std::ptr::null_mut()), inv, "boost_val");
        ok(spblkDcsrilu02_numericBoost(h, info, 0, std::ptr::null_mut(), std::ptr::null_mut()), "boost off");
        ok(spblkDcsrilu02(h, 2, 4, d, val, ptr, col, info, POLICY, buf), "csrilu02");
        expect(spblkXcsrilu02_zeroPivot(h, info, std::ptr::null_mut()), inv, "position");
        // An ILU0 info object is not an IC0 one.
        let status = spblkXcsric02_zeroPivot(h, info as spblkCsric02Info_t, &mut pos);
        expect(status, SPBLK_STATUS_NOT_INITIALIZED, "not a csric02 info object");
        ok(spblkDestroyCsrilu02Info(info), "destroy");
        ok(spblkDestroyCsrilu02Info(std::ptr::null_mut()), "destroy NULL");
        // Unsorted columns: the host backend says so.
        if kind == Kind::Host {
            let swapped: Rows = vec![vec![(1, 1.0), (0, 4.0)], vec![(0, 1.0), (1, 4.0)]];
            let bad = upload(&mut side, &swapped, 0, SPBLK_R_64F);
            let mut info = std::ptr::null_mut();
            ok(spblkCreateCsric02Info(&mut info), "info");
            let (bp, bc, bv) = (bad.ptr as *const i32, bad.col as *const i32, bad.val as *mut f64);
            expect(
                spblkDcsric02_analysis(h, 2, 4, d, bv, bp, bc, info, POLICY, std::ptr::null_mut()),
                inv,
                "not sorted",
            );
            ok(spblkDestroyCsric02Info(info), "destroy");
        }
        ok(spblkDestroyMatDescr(d), "destroyMatDescr");
    }
}
