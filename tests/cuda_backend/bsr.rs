//! The legacy BSR products `spblk{S,D}bsrmv` and `spblk{S,D}bsrmm` on the host backend and
//! (with a GPU) the CUDA backend, against a reference written here: block sizes 1 to 16, blocks
//! stored by row and by column, op(B) = B and Bᵀ with padded leading dimensions, both index
//! bases and pointer modes, beta = 0 over a C of NaN, f32 and f64. Values must be the
//! reference's bit for bit (each product and addition rounded, in storage order).

use super::*;
use spblk::capi::bsr::*;
use spblk::capi::mat_descr::*;

/// A random BSR matrix: per block row, distinct block columns in random order.
struct Bsr {
    mb: usize,
    kb: usize,
    b: usize,
    offsets: Vec<i64>,
    columns: Vec<i64>,
    values: Vec<f64>,
}

fn random_bsr(r: &mut StdRng, mb: usize, kb: usize, b: usize, per_row: usize, exact: bool) -> Bsr {
    let (mut offsets, mut columns) = (vec![0i64], Vec::new());
    for _ in 0..mb {
        let mut cols: Vec<i64> = (0..kb as i64).collect();
        cols.shuffle(r);
        let len = if kb == 0 { 0 } else { r.gen_range(0..=per_row.min(kb)) };
        columns.extend_from_slice(&cols[..len]);
        offsets.push(columns.len() as i64);
    }
    let values = some_values(r, columns.len() * b * b, exact);
    Bsr { mb, kb, b, offsets, columns, values }
}

/// `C = alpha A op(B) + beta C` in the value type's arithmetic, as both backends compute it.
#[allow(clippy::too_many_arguments)]
fn reference(
    a: &Bsr,
    by_column: bool,
    dense_b: &[f64],
    (ldb, b_trans): (usize, bool),
    c: &[f64],
    ldc: usize,
    n: usize,
    (alpha, beta): (f64, f64),
    f64_values: bool,
) -> Vec<f64> {
    let round = |x: f64| if f64_values { x } else { x as f32 as f64 };
    let b = a.b;
    let mut out = c.to_vec();
    for col in 0..n {
        for i in 0..a.mb * b {
            let (r, ii) = (i / b, i % b);
            let mut acc = 0.0;
            for k in a.offsets[r] as usize..a.offsets[r + 1] as usize {
                let bc = a.columns[k] as usize;
                for j in 0..b {
                    let v = a.values[k * b * b + if by_column { j * b + ii } else { ii * b + j }];
                    let row_b = bc * b + j;
                    let x = if b_trans { dense_b[col + row_b * ldb] } else { dense_b[row_b + col * ldb] };
                    acc = round(acc + round(round(v) * round(x)));
                }
            }
            let mut v = round(round(alpha) * acc);
            if beta != 0.0 {
                v = round(v + round(round(beta) * round(c[i + col * ldc])));
            }
            out[i + col * ldc] = v;
        }
    }
    out
}

/// (mb, kb, block, blocks per block row at most, n).
const SHAPES: [(usize, usize, usize, usize, usize); 7] = [
    (0, 0, 1, 0, 1),
    (1, 1, 1, 1, 1),
    (3, 4, 2, 0, 3),
    (20, 15, 3, 4, 5),
    (40, 40, 5, 6, 1),
    (300, 500, 4, 12, 9),
    (30, 20, 16, 5, 17),
];

#[test]
fn bsrmv_and_bsrmm_match_the_reference() {
    for kind in sides("bsrmv_and_bsrmm_match_the_reference") {
        let mut r = rng(83);
        for (s, &(mb, kb, b, per_row, n)) in SHAPES.iter().enumerate() {
            for variant in 0..4 {
                let exact = s % 2 == 0;
                let a = random_bsr(&mut r, mb, kb, b, per_row, exact);
                let case = Case {
                    f64_values: variant % 2 == 1,
                    by_column: (s + variant) % 2 == 1,
                    device_mode: variant >= 2,
                    base: ((s + variant / 2) % 2) as i64,
                    b_trans: variant == 1 || variant == 2,
                    beta_zero: variant == 3,
                    // bsrmv for n = 1 on the first two variants.
                    mv: n == 1 && variant < 2,
                };
                let alpha = some_scalar(&mut r, -2.0, 2.0, exact);
                let beta = if case.beta_zero { 0.0 } else { some_scalar(&mut r, -2.0, 2.0, exact) };
                run_case(kind, &a, n, &case, (alpha, beta), &mut r, &format!("{kind:?} shape {s} variant {variant}"));
            }
        }
    }
}

struct Case {
    f64_values: bool,
    by_column: bool,
    device_mode: bool,
    base: i64,
    b_trans: bool,
    beta_zero: bool,
    mv: bool,
}

fn run_case(kind: Kind, a: &Bsr, n: usize, case: &Case, (alpha, beta): (f64, f64), r: &mut StdRng, label: &str) {
    let t = if case.f64_values { SPBLK_R_64F } else { SPBLK_R_32F };
    let (m, k) = (a.mb * a.b, a.kb * a.b);
    let b_trans = case.b_trans && !case.mv;
    let (b_rows, b_cols) = if b_trans { (n, k) } else { (k, n) };
    let (ldb, ldc) = if case.mv { (k.max(1), m.max(1)) } else { (b_rows + 3, m + 2) };
    let dense_b = values(r, ldb * b_cols);
    let c0: Vec<f64> = if case.beta_zero { vec![f64::NAN; ldc * n] } else { values(r, ldc * n) };
    let what = format!(
        "{label} ({} x {} blocks of {}, nnzb {}, n {n}, f64 {}, by column {}, device mode {}, base {}, Bᵀ {b_trans}, mv {})",
        a.mb,
        a.kb,
        a.b,
        a.columns.len(),
        case.f64_values,
        case.by_column,
        case.device_mode,
        case.base,
        case.mv
    );
    let mut side = Side::new(kind);
    side.set_pointer_mode(case.device_mode);
    let h = side.handle;
    let mut d: spblkMatDescr_t = std::ptr::null_mut();
    ok(spblkCreateMatDescr(&mut d), "spblkCreateMatDescr");
    ok(spblkSetMatIndexBase(d, case.base as u32), "spblkSetMatIndexBase");
    let shift = |v: &[i64]| idx_bytes(&v.iter().map(|x| x + case.base).collect::<Vec<_>>(), SPBLK_INDEX_32I);
    let op = side.put(&shift(&a.offsets)) as *const i32;
    let cp = side.put(&shift(&a.columns)) as *const i32;
    let vp = side.put(&encode(&a.values, t));
    let bp = side.put(&encode(&dense_b, t));
    let c = side.put(&encode(&c0, t));
    let sa = side.scalar(case.device_mode, &encode(&[alpha], t));
    let sb = side.scalar(case.device_mode, &encode(&[beta], t));
    let dir = if case.by_column { SPBLK_DIRECTION_COLUMN } else { SPBLK_DIRECTION_ROW };
    let nn = SPBLK_OPERATION_NON_TRANSPOSE;
    let tb = if b_trans { SPBLK_OPERATION_TRANSPOSE } else { nn };
    let (mb, kb, nnzb, bs) = (a.mb as i32, a.kb as i32, a.columns.len() as i32, a.b as i32);
    let (ni, lb, lc) = (n as i32, ldb as i32, ldc as i32);
    let st = match (case.mv, case.f64_values) {
        (true, false) => {
            spblkSbsrmv(h, dir, nn, mb, kb, nnzb, sa.cast(), d, vp.cast(), op, cp, bs, bp.cast(), sb.cast(), c.cast())
        }
        (true, true) => {
            spblkDbsrmv(h, dir, nn, mb, kb, nnzb, sa.cast(), d, vp.cast(), op, cp, bs, bp.cast(), sb.cast(), c.cast())
        }
        (false, false) => spblkSbsrmm(
            h,
            dir,
            nn,
            tb,
            mb,
            ni,
            kb,
            nnzb,
            sa.cast(),
            d,
            vp.cast(),
            op,
            cp,
            bs,
            bp.cast(),
            lb,
            sb.cast(),
            c.cast(),
            lc,
        ),
        (false, true) => spblkDbsrmm(
            h,
            dir,
            nn,
            tb,
            mb,
            ni,
            kb,
            nnzb,
            sa.cast(),
            d,
            vp.cast(),
            op,
            cp,
            bs,
            bp.cast(),
            lb,
            sb.cast(),
            c.cast(),
            lc,
        ),
    };
    ok(st, &what);
    side.sync();
    let got = side.get(c, ldc * n * vsize(t));
    let mut want = reference(a, case.by_column, &dense_b, (ldb, b_trans), &c0, ldc, n, (alpha, beta), case.f64_values);
    // The padding rows of C (beyond m) keep what they held.
    for col in 0..n {
        for i in m..ldc {
            want[i + col * ldc] = c0[i + col * ldc];
        }
    }
    let (got_v, want_b) = (decode(&got, t), encode(&want, t));
    assert!(got == want_b, "{what}: C differs from the reference; first difference at {:?}", {
        let at = got.chunks(vsize(t)).zip(want_b.chunks(vsize(t))).position(|(x, y)| x != y);
        at.map(|i| (i, got_v[i], want[i]))
    });
    ok(spblkDestroyMatDescr(d), "spblkDestroyMatDescr");
}
