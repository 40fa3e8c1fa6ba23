//! The legacy index helpers on the host backend and (with a GPU) the CUDA backend, against a
//! reference written here: `spblkCreateIdentityPermutation`, `spblkXcsr2coo`, `spblkXcoo2csr`,
//! and the sorts `spblkXcsrsort`, `spblkXcscsort`, `spblkXcoosortByRow`/`ByColumn` with and
//! without the permutation, on shapes up to 70,000 columns (three radix passes) and 200,000
//! entries, both index bases, and nothing at all.

use super::*;
use spblk::capi::index_arrays::*;
use spblk::capi::mat_descr::*;
use spblk::capi::sort::*;

fn ints(v: &[i64]) -> Vec<u8> {
    idx_bytes(v, SPBLK_INDEX_32I)
}

fn read(side: &Side, p: *mut c_void, n: usize) -> Vec<i64> {
    side.sync();
    idx_decode(&side.get(p, n * 4), SPBLK_INDEX_32I)
}

/// (m, n, entries): shapes from empty to 3 x 70,000-column radix keys.
const SHAPES: [(usize, usize, usize); 6] =
    [(0, 0, 0), (1, 1, 1), (5, 7, 0), (40, 30, 300), (3000, 70_000, 200_000), (70_000, 3, 50_000)];

/// `count` distinct random (row, column) pairs of an m x n matrix, in random order.
fn random_pairs(r: &mut StdRng, m: usize, n: usize, count: usize) -> Vec<(i64, i64)> {
    let count = count.min(m * n);
    let mut set = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let p = (r.gen_range(0..m) as i64, r.gen_range(0..n) as i64);
        if set.insert(p) {
            out.push(p);
        }
    }
    out
}

#[test]
fn identity_csr2coo_and_coo2csr_match_the_reference() {
    for kind in sides("identity_csr2coo_and_coo2csr_match_the_reference") {
        let mut r = rng(71);
        for (k, &(m, n, count)) in SHAPES.iter().enumerate() {
            let mut side = Side::new(kind);
            let h = side.handle;
            let what = format!("{kind:?} shape {k} ({m} x {n}, {count} entries)");
            let p = side.put(&vec![0xEE; count * 4]);
            ok(spblkCreateIdentityPermutation(h, count as i32, p as *mut i32), "spblkCreateIdentityPermutation");
            assert_eq!(read(&side, p, count), (0..count as i64).collect::<Vec<_>>(), "{what}: identity");
            let base = (k % 2) as i64;
            let mut rows: Vec<i64> = random_pairs(&mut r, m, n, count).iter().map(|&(i, _)| i + base).collect();
            rows.sort();
            let nnz = rows.len();
            let offsets: Vec<i64> =
                (0..=m as i64).map(|i| rows.partition_point(|&x| x - base < i) as i64 + base).collect();
            let ptr = side.put(&ints(&offsets));
            let out = side.put(&vec![0xEE; nnz * 4]);
            let (mi, zi) = (m as i32, nnz as i32);
            ok(spblkXcsr2coo(h, ptr as *const i32, zi, mi, out as *mut i32, base as u32), "spblkXcsr2coo");
            assert_eq!(read(&side, out, nnz), rows, "{what}: csr2coo");
            let rp = side.put(&ints(&rows));
            let back = side.put(&vec![0xEE; (m + 1) * 4]);
            ok(spblkXcoo2csr(h, rp as *const i32, zi, mi, back as *mut i32, base as u32), "spblkXcoo2csr");
            assert_eq!(read(&side, back, m + 1), offsets, "{what}: coo2csr");
        }
    }
}

#[test]
fn sorts_match_the_reference() {
    for kind in sides("sorts_match_the_reference") {
        let mut r = rng(73);
        for (k, &(m, n, count)) in SHAPES.iter().enumerate() {
            for variant in 0..4 {
                let with_perm = (k + variant) % 3 != 0;
                let pairs = random_pairs(&mut r, m, n, count);
                let nnz = pairs.len();
                let base = ((k + variant) % 2) as i64;
                let mut side = Side::new(kind);
                let h = side.handle;
                let what = format!("{kind:?} shape {k} variant {variant} ({m} x {n}, {nnz} entries, P {with_perm})");
                // P starts as a random permutation (not the identity), so that its rewrite is seen.
                let mut p0: Vec<i64> = (0..nnz as i64).collect();
                p0.shuffle(&mut r);
                let pp = if with_perm { side.put(&ints(&p0)) } else { std::ptr::null_mut() };
                let mut size = 0usize;
                // want: the entries ordered by (line, index), carrying P.
                let by_column = variant % 2 == 1;
                let key = |&(i, j): &(i64, i64)| if by_column { (j, i) } else { (i, j) };
                match variant {
                    // COO by row or by column, indices as stored.
                    0 | 1 => {
                        let (rows, cols): (Vec<i64>, Vec<i64>) =
                            pairs.iter().map(|&(i, j)| (i + base, j + base)).unzip();
                        let (ra, ca) = (side.put(&ints(&rows)), side.put(&ints(&cols)));
                        let (mi, ni, zi) = (m as i32, n as i32, nnz as i32);
                        ok(
                            spblkXcoosort_bufferSizeExt(h, mi, ni, zi, ra as *const i32, ca as *const i32, &mut size),
                            "spblkXcoosort_bufferSizeExt",
                        );
                        let buf = side.buffer(size);
                        let (ra, ca, pi) = (ra as *mut i32, ca as *mut i32, pp as *mut i32);
                        let st = if by_column {
                            spblkXcoosortByColumn(h, mi, ni, zi, ra, ca, pi, buf)
                        } else {
                            spblkXcoosortByRow(h, mi, ni, zi, ra, ca, pi, buf)
                        };
                        ok(st, "spblkXcoosortBy*");
                        let mut order: Vec<usize> = (0..nnz).collect();
                        order.sort_by_key(|&q| key(&pairs[q]));
                        let want_rows: Vec<i64> = order.iter().map(|&q| pairs[q].0 + base).collect();
                        let want_cols: Vec<i64> = order.iter().map(|&q| pairs[q].1 + base).collect();
                        assert_eq!(read(&side, ra as *mut c_void, nnz), want_rows, "{what}: rows");
                        assert_eq!(read(&side, ca as *mut c_void, nnz), want_cols, "{what}: columns");
                        if with_perm {
                            let want: Vec<i64> = order.iter().map(|&q| p0[q]).collect();
                            assert_eq!(read(&side, pp, nnz), want, "{what}: P");
                        }
                    }
                    // CSR (by row) or CSC (by column): lines grouped, indices shuffled within.
                    _ => {
                        let mut grouped = pairs.clone();
                        grouped.sort_by_key(|p| key(p).0);
                        let lines = if by_column { n } else { m };
                        let offsets: Vec<i64> = (0..=lines as i64)
                            .map(|l| grouped.partition_point(|p| key(p).0 < l) as i64 + base)
                            .collect();
                        let minor: Vec<i64> = grouped.iter().map(|p| key(p).1 + base).collect();
                        let (op, mp) = (side.put(&ints(&offsets)), side.put(&ints(&minor)));
                        let mut descr: spblkMatDescr_t = std::ptr::null_mut();
                        ok(spblkCreateMatDescr(&mut descr), "spblkCreateMatDescr");
                        ok(spblkSetMatIndexBase(descr, base as u32), "spblkSetMatIndexBase");
                        let (mi, ni, zi) = (m as i32, n as i32, nnz as i32);
                        let (op, mp, pi) = (op as *const i32, mp as *mut i32, pp as *mut i32);
                        if by_column {
                            ok(spblkXcscsort_bufferSizeExt(h, mi, ni, zi, op, mp, &mut size), "bufferSizeExt");
                            let buf = side.buffer(size);
                            ok(spblkXcscsort(h, mi, ni, zi, descr, op, mp, pi, buf), "spblkXcscsort");
                        } else {
                            ok(spblkXcsrsort_bufferSizeExt(h, mi, ni, zi, op, mp, &mut size), "bufferSizeExt");
                            let buf = side.buffer(size);
                            ok(spblkXcsrsort(h, mi, ni, zi, descr, op, mp, pi, buf), "spblkXcsrsort");
                        }
                        let mut order: Vec<usize> = (0..nnz).collect();
                        order.sort_by_key(|&q| key(&grouped[q]));
                        let want: Vec<i64> = order.iter().map(|&q| minor[q]).collect();
                        assert_eq!(read(&side, mp as *mut c_void, nnz), want, "{what}: indices");
                        assert_eq!(read(&side, op as *mut c_void, lines + 1), offsets, "{what}: offsets unchanged");
                        if with_perm {
                            let want: Vec<i64> = order.iter().map(|&q| p0[q]).collect();
                            assert_eq!(read(&side, pp, nnz), want, "{what}: P");
                        }
                        spblkDestroyMatDescr(descr);
                    }
                }
            }
        }
    }
}
