//! `spblkXcsrgeam2Nnz` and `spblk{S,D}csrgeam2` (C = alpha A + beta B) on the host backend
//! and (with a GPU) the CUDA backend, against a reference written here: shapes from nothing to
//! rows of thousands of entries, columns repeated within a row of one operand, A, B and C on
//! different index bases, both pointer modes, the total asked for or not, f32 and f64. The
//! values must be bit for bit the reference's (each product rounded, added in order), and the
//! fill must write nothing past C's nnz.

use super::*;
use spblk::capi::geam::*;
use spblk::capi::mat_descr::*;
use std::collections::BTreeMap;

fn ints(v: &[i64]) -> Vec<u8> {
    idx_bytes(v, SPBLK_INDEX_32I)
}

fn read_ints(side: &Side, p: *const c_void, n: usize) -> Vec<i64> {
    side.sync();
    idx_decode(&side.get(p, n * 4), SPBLK_INDEX_32I)
}

/// A CSR operand: rows of (column, value), columns ascending, repeats allowed.
struct Operand {
    rows: Vec<Vec<(i64, f64)>>,
    base: i64,
}

impl Operand {
    fn random(r: &mut StdRng, m: usize, n: usize, per_row: usize, repeats: bool, base: i64, exact: bool) -> Operand {
        let rows = (0..m)
            .map(|i| {
                // Some rows long, most short, some empty.
                let len = if n == 0 {
                    0
                } else if i % 97 == 5 {
                    per_row * 20
                } else {
                    r.gen_range(0..=per_row * 2)
                };
                let mut cols: Vec<i64> = (0..len).map(|_| r.gen_range(0..n as i64)).collect();
                if !repeats {
                    cols.sort();
                    cols.dedup();
                }
                cols.sort();
                let vals = some_values(r, cols.len(), exact);
                cols.into_iter().zip(vals).collect()
            })
            .collect();
        Operand { rows, base }
    }

    fn nnz(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }

    /// (offsets, columns, values) as stored, with the base.
    fn arrays(&self) -> (Vec<i64>, Vec<i64>, Vec<f64>) {
        let mut offsets = vec![self.base];
        let (mut cols, mut vals) = (Vec::new(), Vec::new());
        for row in &self.rows {
            for &(c, v) in row {
                cols.push(c + self.base);
                vals.push(v);
            }
            offsets.push(cols.len() as i64 + self.base);
        }
        (offsets, cols, vals)
    }
}

/// Row i of C: each distinct column's terms, alpha a over A's then beta b over B's, in the
/// value type's arithmetic (one rounding per product and per addition).
fn reference(a: &Operand, b: &Operand, alpha: f64, beta: f64, f64_values: bool) -> Vec<Vec<(i64, f64)>> {
    let round = |x: f64| if f64_values { x } else { x as f32 as f64 };
    a.rows
        .iter()
        .zip(&b.rows)
        .map(|(ra, rb)| {
            let mut terms: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
            for &(c, v) in ra {
                terms.entry(c).or_default().push(round(round(alpha) * round(v)));
            }
            for &(c, v) in rb {
                terms.entry(c).or_default().push(round(round(beta) * round(v)));
            }
            terms.into_iter().map(|(c, t)| (c, t.into_iter().fold(0.0, |s, x| round(s + x)))).collect()
        })
        .collect()
}

fn descr(base: i64) -> spblkMatDescr_t {
    let mut d: spblkMatDescr_t = std::ptr::null_mut();
    ok(spblkCreateMatDescr(&mut d), "spblkCreateMatDescr");
    ok(spblkSetMatIndexBase(d, base as u32), "spblkSetMatIndexBase");
    d
}

/// (m, n, entries per row about): from nothing to long rows.
const SHAPES: [(usize, usize, usize); 6] =
    [(0, 0, 0), (1, 1, 1), (5, 7, 0), (40, 30, 6), (3000, 5000, 8), (300, 100_000, 150)];

#[test]
fn csrgeam2_matches_the_reference() {
    for kind in sides("csrgeam2_matches_the_reference") {
        let mut r = rng(79);
        for (k, &(m, n, per_row)) in SHAPES.iter().enumerate() {
            for variant in 0..4 {
                let f64_values = variant % 2 == 1;
                let device_mode = variant >= 2;
                let ask_total = (k + variant) % 3 != 2;
                let (ab, bb, cb) = ((variant % 2) as i64, (k % 2) as i64, ((k + variant / 2) % 2) as i64);
                let exact = k % 2 == 0;
                let a = Operand::random(&mut r, m, n, per_row, variant != 3, ab, exact);
                let b = Operand::random(&mut r, m, n, per_row, variant == 1, bb, exact);
                let alpha = some_scalar(&mut r, -2.0, 2.0, exact);
                let beta = if variant == 2 { 0.0 } else { some_scalar(&mut r, -2.0, 2.0, exact) };
                let want = reference(&a, &b, alpha, beta, f64_values);
                let what = format!(
                    "{kind:?} shape {k} variant {variant} ({m} x {n}, nnz {} + {}, bases {ab}/{bb}/{cb}, f64 \
                     {f64_values}, device mode {device_mode}, total {ask_total})",
                    a.nnz(),
                    b.nnz()
                );
                run_case(kind, &a, &b, (alpha, beta), (m, n, cb), (f64_values, device_mode, ask_total), &want, &what);
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn run_case(
    kind: Kind,
    a: &Operand,
    b: &Operand,
    (alpha, beta): (f64, f64),
    (m, n, cb): (usize, usize, i64),
    (f64_values, device_mode, ask_total): (bool, bool, bool),
    want: &[Vec<(i64, f64)>],
    what: &str,
) {
    let t = if f64_values { SPBLK_R_64F } else { SPBLK_R_32F };
    let mut side = Side::new(kind);
    side.set_pointer_mode(device_mode);
    let h = side.handle;
    let (da, db, dc) = (descr(a.base), descr(b.base), descr(cb));
    let upload = |side: &mut Side, o: &Operand| {
        let (off, col, val) = o.arrays();
        let ptrs = (side.put(&ints(&off)), side.put(&ints(&col)), side.put(&encode(&val, t)));
        (ptrs, col.len() as i32)
    };
    let ((ap, ac, av), na) = upload(&mut side, a);
    let ((bp, bc, bv), nb) = upload(&mut side, b);
    let (mi, ni) = (m as i32, n as i32);
    let sa = side.scalar(device_mode, &encode(&[alpha], t));
    let sb = side.scalar(device_mode, &encode(&[beta], t));
    let c_off = side.put(&vec![0xEE; (m + 1) * 4]);
    let mut size = 0usize;
    let (ap, ac, bp, bc) = (ap as *const i32, ac as *const i32, bp as *const i32, bc as *const i32);
    let st = if f64_values {
        spblkDcsrgeam2_bufferSizeExt(
            h,
            mi,
            ni,
            sa.cast(),
            da,
            na,
            av.cast(),
            ap,
            ac,
            sb.cast(),
            db,
            nb,
            bv.cast(),
            bp,
            bc,
            dc,
            std::ptr::null(),
            c_off as *const i32,
            std::ptr::null(),
            &mut size,
        )
    } else {
        spblkScsrgeam2_bufferSizeExt(
            h,
            mi,
            ni,
            sa.cast(),
            da,
            na,
            av.cast(),
            ap,
            ac,
            sb.cast(),
            db,
            nb,
            bv.cast(),
            bp,
            bc,
            dc,
            std::ptr::null(),
            c_off as *const i32,
            std::ptr::null(),
            &mut size,
        )
    };
    ok(st, "csrgeam2_bufferSizeExt");
    let buf = side.buffer(size);
    // The total: host memory in pointer mode host, the side's memory in device mode.
    let mut host_total = -7i32;
    let total: *mut i32 = match (ask_total, device_mode) {
        (false, _) => std::ptr::null_mut(),
        (true, false) => &mut host_total,
        (true, true) => side.put(&(-7i32).to_le_bytes()).cast(),
    };
    let st = spblkXcsrgeam2Nnz(h, mi, ni, da, na, ap, ac, db, nb, bp, bc, dc, c_off.cast(), total, buf);
    ok(st, &format!("{what}: spblkXcsrgeam2Nnz"));
    let nnz: usize = want.iter().map(Vec::len).sum();
    let mut want_off = vec![cb];
    for row in want {
        want_off.push(want_off.last().unwrap() + row.len() as i64);
    }
    assert_eq!(read_ints(&side, c_off, m + 1), want_off, "{what}: C's offsets");
    if ask_total {
        let got = if device_mode { read_ints(&side, total.cast(), 1)[0] } else { host_total as i64 };
        assert_eq!(got, nnz as i64, "{what}: nnzTotalDevHostPtr");
    }
    // C's arrays with 4 guard entries past nnz(C): the fill must leave them alone.
    let vs = vsize(t);
    let c_col = side.put(&vec![0xEE; (nnz + 4) * 4]);
    let c_val = side.put(&vec![0xEE; (nnz + 4) * vs]);
    let st = if f64_values {
        spblkDcsrgeam2(
            h,
            mi,
            ni,
            sa.cast(),
            da,
            na,
            av.cast(),
            ap,
            ac,
            sb.cast(),
            db,
            nb,
            bv.cast(),
            bp,
            bc,
            dc,
            c_val.cast(),
            c_off.cast(),
            c_col.cast(),
            buf,
        )
    } else {
        spblkScsrgeam2(
            h,
            mi,
            ni,
            sa.cast(),
            da,
            na,
            av.cast(),
            ap,
            ac,
            sb.cast(),
            db,
            nb,
            bv.cast(),
            bp,
            bc,
            dc,
            c_val.cast(),
            c_off.cast(),
            c_col.cast(),
            buf,
        )
    };
    ok(st, &format!("{what}: csrgeam2"));
    let cols = read_ints(&side, c_col, nnz + 4);
    let vals = side.get(c_val, (nnz + 4) * vs);
    let want_cols: Vec<i64> = want.iter().flatten().map(|&(c, _)| c + cb).collect();
    let want_vals: Vec<f64> = want.iter().flatten().map(|&(_, v)| v).collect();
    assert_eq!(cols[..nnz], want_cols[..], "{what}: C's columns");
    assert_eq!(vals[..nnz * vs], encode(&want_vals, t)[..], "{what}: C's values (bit for bit)");
    assert!(vals[nnz * vs..].iter().all(|&x| x == 0xEE), "{what}: values written past nnz(C)");
    assert!(side.get(c_col, (nnz + 4) * 4)[nnz * 4..].iter().all(|&x| x == 0xEE), "{what}: columns past nnz(C)");
    for d in [da, db, dc] {
        ok(spblkDestroyMatDescr(d), "spblkDestroyMatDescr");
    }
}

/// A C whose offsets the caller supplies (the count skipped) with rows too small: the CUDA
/// fill clamps to each row's room; the host reports it. Either way nothing past C is written.
#[test]
fn csrgeam2_never_writes_past_the_rows_it_is_given() {
    for kind in sides("csrgeam2_never_writes_past_the_rows_it_is_given") {
        let mut side = Side::new(kind);
        let h = side.handle;
        let d = descr(0);
        // A = B: 2 x 4 with rows {0, 1, 2 | 3}; C given room for one entry per row.
        let (ap, ac) = (side.put(&ints(&[0, 3, 4])), side.put(&ints(&[0, 1, 2, 3])));
        let av = side.put(&encode(&[1.0, 2.0, 3.0, 4.0], SPBLK_R_32F));
        let c_off = side.put(&ints(&[0, 1, 2]));
        let (c_col, c_val) = (side.put(&[0xEE; 16]), side.put(&[0xEE; 16]));
        let one = 1.0f32;
        let (ap, ac) = (ap as *const i32, ac as *const i32);
        let st = spblkScsrgeam2(
            h,
            2,
            4,
            &one,
            d,
            4,
            av.cast(),
            ap,
            ac,
            &one,
            d,
            4,
            av.cast(),
            ap,
            ac,
            d,
            c_val.cast(),
            c_off.cast(),
            c_col.cast(),
            std::ptr::null_mut(),
        );
        match kind {
            Kind::Host => {
                assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "{kind:?}");
                assert!(last_message().contains("csrSortedRowPtrC"), "{}", last_message());
                assert_eq!(side.get(c_col, 16), vec![0xEE; 16], "nothing written on failure");
            }
            Kind::Cuda => {
                ok(st, "spblkScsrgeam2");
                assert_eq!(read_ints(&side, c_col, 2), vec![0, 3], "each row's first column");
                assert_eq!(side.get(c_col, 16)[8..], [0xEE; 8], "columns past C's two entries");
                assert_eq!(side.get(c_val, 16)[8..], [0xEE; 8], "values past C's two entries");
            }
        }
        ok(spblkDestroyMatDescr(d), "spblkDestroyMatDescr");
    }
}
