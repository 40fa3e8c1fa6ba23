//! `spblkSparseToDense` and `spblkDenseToSparse_{bufferSize,analysis,convert}` on the host
//! backend and (with a GPU) the CUDA backend, against a reference written here: CSR, CSC and
//! COO, both index widths and bases, row- and column-major dense matrices with padded leading
//! dimensions (the padding must stay untouched, and is never read as an element), element
//! widths of 1 to 16 bytes with random bit patterns (NaN is not zero, -0 is), and empty
//! shapes. Every result is compared byte for byte.

use super::*;
use spblk::capi::dense_sparse::*;
use spblk::capi::sp_mat::*;

/// Value types of every element width.
const TYPES: [spblkDataType_t; 6] = [SPBLK_R_32F, SPBLK_R_64F, SPBLK_R_16F, SPBLK_R_16BF, SPBLK_R_8I, SPBLK_C_64F];
const FORMATS: [spblkFormat_t; 3] = [SPBLK_FORMAT_CSR, SPBLK_FORMAT_CSC, SPBLK_FORMAT_COO];
const SHAPES: [(usize, usize); 6] = [(0, 3), (4, 0), (1, 1), (17, 9), (9, 40), (300, 70)];

/// Whether an element is zero: each component's bits zero, the sign bit aside for floating
/// point (the library's documented rule).
fn is_zero(e: &[u8], t: spblkDataType_t) -> bool {
    match t {
        SPBLK_R_8I => e[0] == 0,
        SPBLK_R_16F | SPBLK_R_16BF => u16::from_le_bytes([e[0], e[1]]) & 0x7fff == 0,
        SPBLK_R_32F => u32::from_le_bytes(e.try_into().unwrap()) & 0x7fff_ffff == 0,
        _ => e.chunks_exact(8).all(|c| u64::from_le_bytes(c.try_into().unwrap()) & (u64::MAX >> 1) == 0),
    }
}

/// A random element: +0 or -0 with probability `zero`, otherwise random bits that are not
/// zero (NaN and infinity patterns included).
pub fn element(r: &mut StdRng, t: spblkDataType_t, zero: f64) -> Vec<u8> {
    let e = vsize(t);
    if r.gen_bool(zero) {
        let mut z = vec![0u8; e];
        if t != SPBLK_R_8I && r.gen_bool(0.5) {
            let sign_byte = if t == SPBLK_C_64F { 7 } else { e - 1 };
            z[sign_byte] = 0x80; // -0 (of the real part for complex)
        }
        return z;
    }
    loop {
        let v: Vec<u8> = (0..e).map(|_| r.gen()).collect();
        if !is_zero(&v, t) {
            return v;
        }
    }
}

/// A dense matrix's layout: (ld, elements spanned, offset of (i, j)).
fn dense_layout(r: &mut StdRng, rows: usize, cols: usize, order: spblkOrder_t) -> (usize, usize) {
    let (outer, inner) = if order == SPBLK_ORDER_ROW { (rows, cols) } else { (cols, rows) };
    let ld = inner.max(1) + if r.gen_bool(0.5) { 0 } else { r.gen_range(1..4) };
    (ld, ld * outer.max(1))
}

fn at(order: spblkOrder_t, ld: usize, i: usize, j: usize) -> usize {
    if order == SPBLK_ORDER_ROW {
        i * ld + j
    } else {
        i + j * ld
    }
}

#[test]
fn sparse_to_dense_matches_the_reference() {
    for kind in sides("sparse_to_dense_matches_the_reference") {
        let mut r = rng(61);
        for k in 0..36 {
            let (format, vt) = (FORMATS[k % 3], TYPES[k % 6]);
            let (rows, cols) = SHAPES[(k / 3) % 6];
            let ity = if r.gen_bool(0.5) { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
            let (base, order) = (r.gen_range(0..2), if r.gen_bool(0.5) { SPBLK_ORDER_ROW } else { SPBLK_ORDER_COL });
            let entries = pattern(&mut r, rows, cols, if k % 5 == 4 { Shape::DenseRow } else { Shape::Uniform(3) });
            let mut a =
                Sp::new(&mut r, format, rows, cols, &entries, &vec![0.0; entries.len()], ity, base, SPBLK_R_32F);
            let e = vsize(vt);
            a.vt = vt;
            a.v = (0..entries.len()).flat_map(|_| element(&mut r, vt, 0.1)).collect();
            // The entries in storage order, read back from the arrays as built.
            let stored: Vec<(usize, usize)> = {
                let (ia, ib) = (idx_decode(&a.a, ity), idx_decode(&a.b, ity));
                let b = base as i64;
                match format {
                    SPBLK_FORMAT_COO => {
                        ia.iter().zip(&ib).map(|(&i, &j)| ((i - b) as usize, (j - b) as usize)).collect()
                    }
                    _ => {
                        let mut out = vec![];
                        for line in 0..ia.len().saturating_sub(1) {
                            for &m in &ib[(ia[line] - b) as usize..(ia[line + 1] - b) as usize] {
                                let m = (m - b) as usize;
                                out.push(if format == SPBLK_FORMAT_CSR { (line, m) } else { (m, line) });
                            }
                        }
                        out
                    }
                }
            };
            let (ld, span) = dense_layout(&mut r, rows, cols, order);
            let before = vec![0xEEu8; span * e];
            let mut want = before.clone();
            for i in 0..rows {
                for j in 0..cols {
                    want[at(order, ld, i, j) * e..][..e].fill(0);
                }
            }
            for (p, &(i, j)) in stored.iter().enumerate() {
                want[at(order, ld, i, j) * e..][..e].copy_from_slice(&a.v[p * e..][..e]);
            }
            let mut side = Side::new(kind);
            let da = a.descr(&mut side);
            let bp = side.put(&before);
            let mut db = std::ptr::null_mut();
            ok(
                spblk::capi::dense::spblkCreateDnMat(&mut db, rows as i64, cols as i64, ld as i64, bp, vt, order),
                "spblkCreateDnMat",
            );
            let h = side.handle;
            let mut size = 0usize;
            ok(spblkSparseToDense_bufferSize(h, da, db, 0, &mut size), "spblkSparseToDense_bufferSize");
            let buf = side.buffer(size);
            ok(spblkSparseToDense(h, da, db, 0, buf), "spblkSparseToDense");
            side.sync();
            let got = side.get(bp, before.len());
            assert!(got == want, "{kind:?} case {k}: format {format} type {vt} {rows}x{cols} order {order}: B differs");
            spblkDestroySpMat(da);
            spblk::capi::dense::spblkDestroyDnMat(db);
        }
    }
}

/// The reference: B's arrays (offsets or row indices, minor indices, values) from A's bytes.
fn reference(
    data: &[u8],
    (rows, cols, ld, order): (usize, usize, usize, spblkOrder_t),
    format: spblkFormat_t,
    (ity, base, vt): (spblkIndexType_t, spblkIndexBase_t, spblkDataType_t),
) -> (i64, Vec<u8>, Vec<u8>, Vec<u8>) {
    let e = vsize(vt);
    let csc = format == SPBLK_FORMAT_CSC;
    let (lines, len) = if csc { (cols, rows) } else { (rows, cols) };
    let b = base as i64;
    let (mut first, mut minor, mut vals) = (vec![b], vec![], vec![]);
    for line in 0..lines {
        for k in 0..len {
            let (i, j) = if csc { (k, line) } else { (line, k) };
            let el = &data[at(order, ld, i, j) * e..][..e];
            if !is_zero(el, vt) {
                if format == SPBLK_FORMAT_COO {
                    first.push(line as i64 + b);
                }
                minor.push(k as i64 + b);
                vals.extend_from_slice(el);
            }
        }
        if format != SPBLK_FORMAT_COO {
            first.push(minor.len() as i64 + b);
        }
    }
    if format == SPBLK_FORMAT_COO {
        first.remove(0);
    } else if lines == 0 {
        first.clear();
    }
    (minor.len() as i64, idx_bytes(&first, ity), idx_bytes(&minor, ity), vals)
}

#[test]
fn dense_to_sparse_matches_the_reference() {
    for kind in sides("dense_to_sparse_matches_the_reference") {
        let mut r = rng(67);
        for k in 0..36 {
            let (format, vt) = (FORMATS[k % 3], TYPES[k % 6]);
            let (rows, cols) = SHAPES[(k / 3) % 6];
            let ity = if r.gen_bool(0.5) { SPBLK_INDEX_32I } else { SPBLK_INDEX_64I };
            let (base, order) = (r.gen_range(0..2), if r.gen_bool(0.5) { SPBLK_ORDER_ROW } else { SPBLK_ORDER_COL });
            let e = vsize(vt);
            let (ld, span) = dense_layout(&mut r, rows, cols, order);
            // Padding holds nonzero bits: it must not be taken for elements.
            let mut data: Vec<u8> = (0..span).flat_map(|_| element(&mut r, vt, 0.0)).collect();
            let zero = [0.0, 0.6, 0.95][k % 3];
            for i in 0..rows {
                for j in 0..cols {
                    data[at(order, ld, i, j) * e..][..e].copy_from_slice(&element(&mut r, vt, zero));
                }
            }
            let (nnz, first, minor, vals) = reference(&data, (rows, cols, ld, order), format, (ity, base, vt));
            let what = format!("{kind:?} case {k}: format {format} type {vt} {rows}x{cols} order {order}");

            let mut side = Side::new(kind);
            let ap = side.put(&data);
            let mut da = std::ptr::null_mut();
            ok(
                spblk::capi::dense::spblkCreateDnMat(&mut da, rows as i64, cols as i64, ld as i64, ap, vt, order),
                "spblkCreateDnMat",
            );
            let lines = if format == SPBLK_FORMAT_CSC { cols } else { rows };
            let isz = isize_of(ity);
            let offsets = if format == SPBLK_FORMAT_COO {
                std::ptr::null_mut()
            } else {
                side.put(&vec![0xEE; (lines + 1) * isz])
            };
            let (r64, c64) = (rows as i64, cols as i64);
            let mut db = std::ptr::null_mut();
            let null = std::ptr::null_mut();
            let st = match format {
                SPBLK_FORMAT_CSR => spblkCreateCsr(&mut db, r64, c64, 0, offsets, null, null, ity, ity, base, vt),
                SPBLK_FORMAT_CSC => spblkCreateCsc(&mut db, r64, c64, 0, offsets, null, null, ity, ity, base, vt),
                _ => spblkCreateCoo(&mut db, r64, c64, 0, null, null, null, ity, base, vt),
            };
            ok(st, "create B");
            let h = side.handle;
            let mut size = 0usize;
            ok(spblkDenseToSparse_bufferSize(h, da, db, 0, &mut size), "spblkDenseToSparse_bufferSize");
            let buf = side.buffer(size);
            ok(spblkDenseToSparse_analysis(h, da, db, 0, buf), "spblkDenseToSparse_analysis");
            let (mut gr, mut gc, mut gnnz) = (0i64, 0i64, -1i64);
            ok(spblkSpMatGetSize(db, &mut gr, &mut gc, &mut gnnz), "spblkSpMatGetSize");
            assert_eq!((gr, gc, gnnz), (r64, c64, nnz), "{what}: size after the analysis");
            if format != SPBLK_FORMAT_COO && lines > 0 {
                assert!(side.get(offsets, first.len()) == first, "{what}: offsets after the analysis");
            }
            // B's arrays, then the conversion.
            let n = nnz as usize;
            let minor_p = side.put(&vec![0xEE; n * isz]);
            let vals_p = side.put(&vec![0xEE; n * e]);
            let major_p = if format == SPBLK_FORMAT_COO { side.put(&vec![0xEE; n * isz]) } else { offsets };
            let st = match format {
                SPBLK_FORMAT_CSR => spblkCsrSetPointers(db, offsets, minor_p, vals_p),
                SPBLK_FORMAT_CSC => spblkCscSetPointers(db, offsets, minor_p, vals_p),
                _ => spblkCooSetPointers(db, major_p, minor_p, vals_p),
            };
            ok(st, "set B's pointers");
            ok(spblkDenseToSparse_convert(h, da, db, 0, buf), "spblkDenseToSparse_convert");
            side.sync();
            assert!(side.get(minor_p, n * isz) == minor, "{what}: minor indices");
            assert!(side.get(vals_p, n * e) == vals, "{what}: values");
            if format == SPBLK_FORMAT_COO {
                assert!(side.get(major_p, n * isz) == first, "{what}: row indices");
            } else if lines > 0 {
                assert!(side.get(offsets, first.len()) == first, "{what}: offsets after the conversion");
            }

            // A with one more nonzero than the analysis saw: the host reports it; the CUDA
            // backend writes no more than B's nnz (compute-sanitizer checks the bounds).
            if let Some(z) =
                (0..rows * cols).find(|&p| is_zero(&data[at(order, ld, p / cols, p % cols) * e..][..e], vt))
            {
                let mut more = data.clone();
                more[at(order, ld, z / cols, z % cols) * e..][..e].copy_from_slice(&element(&mut r, vt, 0.0));
                let ap2 = side.put(&more);
                ok(spblk::capi::dense::spblkDnMatSetValues(da, ap2), "spblkDnMatSetValues");
                let st = spblkDenseToSparse_convert(h, da, db, 0, buf);
                if side.kind == Kind::Host {
                    assert_eq!(st, SPBLK_STATUS_INVALID_VALUE, "{what}: convert after A changed");
                    assert!(last_message().contains("nnz"), "{}", last_message());
                } else {
                    assert_eq!(st, SPBLK_STATUS_SUCCESS, "{what}: convert after A changed");
                    side.sync();
                }
            }
            spblkDestroySpMat(db);
            spblk::capi::dense::spblkDestroyDnMat(da);
        }
    }
}
