//! Shared test support: random and adversarial sparse matrices, a Matrix Market reader, an
//! independent dense f64 reference, typed buffers, and thin wrappers over the C API.
//! The reference deliberately shares no code with the library.
#![allow(dead_code)]

use std::ffi::c_void;

use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use spblk::capi::types::*;

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// A sparse matrix as triplets (duplicates not allowed; order is the storage order).
#[derive(Clone, Debug)]
pub struct Triplets {
    pub rows: usize,
    pub cols: usize,
    pub entries: Vec<(usize, usize, f64)>,
}

/// Shapes of row-length distributions that stress different code paths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    Uniform,
    EmptyRows,
    DenseRow,
    PowerLaw,
    Empty,
}

pub const KINDS: [Kind; 5] = [Kind::Uniform, Kind::EmptyRows, Kind::DenseRow, Kind::PowerLaw, Kind::Empty];

/// A non-zero value in [-1, -0.1] ∪ [0.1, 1] (never 0, so unwritten outputs show).
pub fn value(r: &mut StdRng) -> f64 {
    let v: f64 = r.gen_range(0.1..1.0);
    if r.gen_bool(0.5) {
        v
    } else {
        -v
    }
}

/// A random matrix of the given kind; columns within a row are unsorted half of the time.
pub fn random_matrix(r: &mut StdRng, rows: usize, cols: usize, kind: Kind) -> Triplets {
    let mut entries = Vec::new();
    let avg = if cols == 0 { 0 } else { r.gen_range(1..=cols.clamp(1, 12)) };
    let dense_row = if rows > 0 { r.gen_range(0..rows) } else { 0 };
    for i in 0..rows {
        let len = match kind {
            Kind::Empty => 0,
            Kind::Uniform => r.gen_range(0..=2 * avg).min(cols),
            Kind::EmptyRows => {
                if r.gen_bool(0.6) {
                    0
                } else {
                    r.gen_range(0..=2 * avg).min(cols)
                }
            }
            Kind::DenseRow => {
                if i == dense_row {
                    cols
                } else {
                    r.gen_range(0..=avg).min(cols)
                }
            }
            Kind::PowerLaw => {
                // Pareto-like: most rows short, a few very long.
                let u: f64 = r.gen_range(0.0..1.0);
                ((1.0 / (1.0 - u).powf(1.0 / 1.2)) as usize - 1).min(cols)
            }
        };
        let mut cs: Vec<usize> = rand::seq::index::sample(r, cols, len).into_vec();
        if r.gen_bool(0.5) {
            cs.sort_unstable();
        }
        entries.extend(cs.into_iter().map(|j| (i, j, value(r))));
    }
    Triplets { rows, cols, entries }
}

/// Reads a Matrix Market coordinate file (real, integer or pattern; general, symmetric or
/// skew-symmetric). Pattern entries get random non-zero values.
pub fn read_matrix_market(path: &std::path::Path, seed: u64) -> Triplets {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_ascii_lowercase();
    assert!(header.starts_with("%%matrixmarket matrix coordinate"), "{header}");
    let pattern = header.contains("pattern");
    let symmetric = header.contains(" symmetric");
    let skew = header.contains("skew-symmetric");
    let mut lines = lines.filter(|l| !l.starts_with('%') && !l.trim().is_empty());
    let size: Vec<usize> = lines.next().unwrap().split_whitespace().map(|t| t.parse().unwrap()).collect();
    let mut r = rng(seed);
    let mut entries = Vec::with_capacity(size[2] * 2);
    for line in lines {
        let mut t = line.split_whitespace();
        let i: usize = t.next().unwrap().parse::<usize>().unwrap() - 1;
        let j: usize = t.next().unwrap().parse::<usize>().unwrap() - 1;
        let v = if pattern { value(&mut r) } else { t.next().unwrap().parse::<f64>().unwrap() };
        entries.push((i, j, v));
        if (symmetric || skew) && i != j {
            entries.push((j, i, if skew { -v } else { v }));
        }
    }
    // Matrix Market files may list duplicates; keep the first of each (i, j).
    let mut seen = std::collections::HashSet::new();
    entries.retain(|&(i, j, _)| seen.insert((i, j)));
    Triplets { rows: size[0], cols: size[1], entries }
}

pub fn matrices_dir() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/matrices");
    dir.is_dir().then_some(dir)
}

/// Raw memory with 8-byte alignment, holding elements of any supported type.
pub struct Buf {
    words: Vec<u64>,
    pub len: usize,
}

impl Buf {
    pub fn ptr(&mut self) -> *mut c_void {
        if self.len == 0 {
            std::ptr::null_mut()
        } else {
            self.words.as_mut_ptr() as *mut c_void
        }
    }
    fn with_bytes(bytes: usize, len: usize) -> Self {
        Buf { words: vec![0; bytes.div_ceil(8).max(1)], len }
    }
}

pub fn type_size(t: spblkDataType_t) -> usize {
    match t {
        SPBLK_R_16F | SPBLK_R_16BF => 2,
        SPBLK_R_32F => 4,
        SPBLK_R_64F => 8,
        _ => panic!("type {t}"),
    }
}

/// Stores `values` converted to `t` (rounding as the type does).
pub fn values_buf(t: spblkDataType_t, values: &[f64]) -> Buf {
    let mut b = Buf::with_bytes(values.len() * type_size(t), values.len());
    let p = b.words.as_mut_ptr();
    for (k, &v) in values.iter().enumerate() {
        // SAFETY: the buffer holds len elements of t.
        unsafe {
            match t {
                SPBLK_R_32F => *(p as *mut f32).add(k) = v as f32,
                SPBLK_R_64F => *(p as *mut f64).add(k) = v,
                SPBLK_R_16F => *(p as *mut f16).add(k) = f16::from_f64(v),
                SPBLK_R_16BF => *(p as *mut bf16).add(k) = bf16::from_f64(v),
                _ => unreachable!(),
            }
        }
    }
    b
}

/// Reads a values buffer back as f64 (exact).
pub fn read_values(t: spblkDataType_t, b: &Buf) -> Vec<f64> {
    let p = b.words.as_ptr();
    (0..b.len)
        .map(|k| unsafe {
            // SAFETY: the buffer holds len elements of t.
            match t {
                SPBLK_R_32F => *(p as *const f32).add(k) as f64,
                SPBLK_R_64F => *(p as *const f64).add(k),
                SPBLK_R_16F => (*(p as *const f16).add(k)).to_f64(),
                SPBLK_R_16BF => (*(p as *const bf16).add(k)).to_f64(),
                _ => unreachable!(),
            }
        })
        .collect()
}

pub fn index_buf(t: spblkIndexType_t, v: &[i64]) -> Buf {
    let mut b = Buf::with_bytes(v.len() * 8, v.len());
    let p = b.words.as_mut_ptr();
    for (k, &x) in v.iter().enumerate() {
        // SAFETY: sized for len 8-byte elements.
        unsafe {
            match t {
                SPBLK_INDEX_32I => *(p as *mut i32).add(k) = x as i32,
                SPBLK_INDEX_64I => *(p as *mut i64).add(k) = x,
                _ => unreachable!(),
            }
        }
    }
    b
}

pub fn read_indices(t: spblkIndexType_t, b: &Buf) -> Vec<i64> {
    let p = b.words.as_ptr();
    (0..b.len)
        .map(|k| unsafe {
            // SAFETY: the buffer holds len indices of t.
            match t {
                SPBLK_INDEX_32I => *(p as *const i32).add(k) as i64,
                _ => *(p as *const i64).add(k),
            }
        })
        .collect()
}

/// Rounds through a storage type, so the reference sees what the library reads.
pub fn quantize(t: spblkDataType_t, v: f64) -> f64 {
    match t {
        SPBLK_R_32F => v as f32 as f64,
        SPBLK_R_16F => f16::from_f64(v).to_f64(),
        SPBLK_R_16BF => bf16::from_f64(v).to_f64(),
        _ => v,
    }
}

/// Unit roundoff of a storage type (output rounding allowance).
pub fn unit_roundoff(t: spblkDataType_t) -> f64 {
    match t {
        SPBLK_R_16F => 2f64.powi(-11),
        SPBLK_R_16BF => 2f64.powi(-8),
        SPBLK_R_32F => 2f64.powi(-24),
        _ => 2f64.powi(-53),
    }
}

/// Relative tolerance of the compute type (1e-5 for f32, 1e-12 for f64), applied to the sum
/// of absolute terms, which scales the bound with row length.
pub fn compute_tolerance(t: spblkDataType_t) -> f64 {
    if t == SPBLK_R_64F {
        1e-12
    } else {
        1e-5
    }
}

/// A sparse matrix materialized in one format, index type, base and value type.
pub struct SparseArrays {
    pub format: spblkFormat_t,
    pub ity: spblkIndexType_t,
    pub base: spblkIndexBase_t,
    pub vty: spblkDataType_t,
    pub major: Buf,
    pub minor: Buf,
    pub values: Buf,
    pub rows: usize,
    pub cols: usize,
    pub nnz: usize,
}

impl SparseArrays {
    pub fn new(
        m: &Triplets,
        format: spblkFormat_t,
        ity: spblkIndexType_t,
        base: spblkIndexBase_t,
        vty: spblkDataType_t,
    ) -> Self {
        let b = base as i64;
        let nnz = m.entries.len();
        // Stable sort by the major index keeps each row's (or column's) storage order.
        let mut e = m.entries.clone();
        let (major, minor) = match format {
            SPBLK_FORMAT_CSR => {
                e.sort_by_key(|t| t.0);
                (offsets(e.iter().map(|t| t.0), m.rows, b), e.iter().map(|t| t.1 as i64 + b).collect::<Vec<_>>())
            }
            SPBLK_FORMAT_CSC => {
                e.sort_by_key(|t| t.1);
                (offsets(e.iter().map(|t| t.1), m.cols, b), e.iter().map(|t| t.0 as i64 + b).collect())
            }
            _ => (e.iter().map(|t| t.0 as i64 + b).collect(), e.iter().map(|t| t.1 as i64 + b).collect()),
        };
        let vals: Vec<f64> = e.iter().map(|t| t.2).collect();
        SparseArrays {
            format,
            ity,
            base,
            vty,
            major: index_buf(ity, &major),
            minor: index_buf(ity, &minor),
            values: values_buf(vty, &vals),
            rows: m.rows,
            cols: m.cols,
            nnz,
        }
    }

    /// A descriptor over these arrays (destroy it with `spblkDestroySpMat`).
    pub fn descr(&mut self) -> spblkSpMatDescr_t {
        let mut d: spblkSpMatDescr_t = std::ptr::null_mut();
        let (r, c, n) = (self.rows as i64, self.cols as i64, self.nnz as i64);
        let (maj, min, val) = (self.major.ptr(), self.minor.ptr(), self.values.ptr());
        use spblk::capi::sp_mat::*;
        let st = match self.format {
            SPBLK_FORMAT_CSR => spblkCreateCsr(&mut d, r, c, n, maj, min, val, self.ity, self.ity, self.base, self.vty),
            SPBLK_FORMAT_CSC => spblkCreateCsc(&mut d, r, c, n, maj, min, val, self.ity, self.ity, self.base, self.vty),
            _ => spblkCreateCoo(&mut d, r, c, n, maj, min, val, self.ity, self.base, self.vty),
        };
        assert_eq!(st, SPBLK_STATUS_SUCCESS, "{}", last_error());
        d
    }
}

fn offsets(major: impl Iterator<Item = usize>, n: usize, base: i64) -> Vec<i64> {
    let mut off = vec![0i64; n + 1];
    for i in major {
        off[i + 1] += 1;
    }
    for i in 0..n {
        off[i + 1] += off[i];
    }
    off.iter().map(|x| x + base).collect()
}

/// A dense matrix in memory: `rows × cols`, order and leading dimension.
pub struct Dense {
    pub rows: usize,
    pub cols: usize,
    pub ld: usize,
    pub order: spblkOrder_t,
    pub vty: spblkDataType_t,
    pub buf: Buf,
}

impl Dense {
    /// Random values (or `fill` everywhere when given), with `pad` extra leading-dimension slack.
    pub fn new(
        r: &mut StdRng,
        rows: usize,
        cols: usize,
        order: spblkOrder_t,
        vty: spblkDataType_t,
        pad: usize,
        fill: Option<f64>,
    ) -> Self {
        let inner = if order == SPBLK_ORDER_ROW { cols } else { rows };
        let outer = if order == SPBLK_ORDER_ROW { rows } else { cols };
        let ld = inner.max(1) + pad;
        let vals: Vec<f64> = (0..ld * outer).map(|_| fill.unwrap_or_else(|| value(r))).collect();
        Dense { rows, cols, ld, order, vty, buf: values_buf(vty, &vals) }
    }
    pub fn offset(&self, i: usize, j: usize) -> usize {
        if self.order == SPBLK_ORDER_ROW {
            i * self.ld + j
        } else {
            i + j * self.ld
        }
    }
    pub fn to_f64(&self) -> Vec<f64> {
        read_values(self.vty, &self.buf)
    }
    pub fn get(&self, all: &[f64], i: usize, j: usize) -> f64 {
        all[self.offset(i, j)]
    }
    pub fn descr(&mut self) -> spblkDnMatDescr_t {
        let mut d: spblkDnMatDescr_t = std::ptr::null_mut();
        let st = spblk::capi::dense::spblkCreateDnMat(
            &mut d,
            self.rows as i64,
            self.cols as i64,
            self.ld as i64,
            self.buf.ptr(),
            self.vty,
            self.order,
        );
        assert_eq!(st, SPBLK_STATUS_SUCCESS, "{}", last_error());
        d
    }
}

pub fn last_error() -> String {
    let mut buf = vec![0u8; 512];
    let mut n = 0usize;
    spblk::capi::handle::spblkGetLastErrorMessage(buf.as_mut_ptr() as *mut _, buf.len(), &mut n);
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

pub fn host_handle() -> spblkHandle_t {
    let mut h: spblkHandle_t = std::ptr::null_mut();
    assert_eq!(spblk::capi::handle::spblkCreateWithBackend(&mut h, SPBLK_BACKEND_HOST), SPBLK_STATUS_SUCCESS);
    h
}

/// op(M) as rows of (column, value) with values quantized to `vty` (the reference's input;
/// row lists rather than a dense array, so large shared matrices fit in memory).
pub fn op_rows(m: &Triplets, vty: spblkDataType_t, transpose: bool) -> Vec<Vec<(usize, f64)>> {
    let mut rows = vec![Vec::new(); if transpose { m.cols } else { m.rows }];
    for &(i, j, v) in &m.entries {
        let (r, c) = if transpose { (j, i) } else { (i, j) };
        rows[r].push((c, quantize(vty, v)));
    }
    rows
}

/// Asserts |got - want| <= tol * scale + roundoff(out) * |want| element-wise; `scale` is the
/// sum of absolute terms that formed `want`.
pub fn assert_close(got: &[f64], want: &[f64], scale: &[f64], tol: f64, out_ty: spblkDataType_t, what: &str) {
    assert_eq!(got.len(), want.len());
    let u = unit_roundoff(out_ty);
    for k in 0..got.len() {
        // Subnormal results round to an absolute spacing, not a relative one: f16 outputs
        // round once (2^-24); in f32/f64 arithmetic every product and sum may lose a
        // subnormal spacing, so allow up to 1024 of them.
        let spacing = match out_ty {
            SPBLK_R_16F => 2f64.powi(-24),
            SPBLK_R_16BF | SPBLK_R_32F => 1024.0 * 2f64.powi(-149),
            _ => 1024.0 * 2f64.powi(-1074),
        };
        let bound = tol * scale[k] + 2.0 * u * want[k].abs() + spacing;
        let err = (got[k] - want[k]).abs();
        assert!(
            err <= bound && got[k].is_finite(),
            "{what}: element {k}: got {} want {} (err {err:e} > bound {bound:e})",
            got[k],
            want[k]
        );
    }
}
