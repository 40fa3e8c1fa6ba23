//! The small exact problem the plan tests share: a random matrix with integer values in f64
//! (every summation order gives the same bits) and one SpMV set up on a side.

#![allow(dead_code)]

use std::ffi::c_void;

use rand::Rng;
use spblk::capi::dense::*;
use spblk::capi::products::*;
use spblk::capi::sp_mat::*;
use spblk::capi::types::*;

use crate::support::*;

const N: spblkOperation_t = SPBLK_OPERATION_NON_TRANSPOSE;
const F64: spblkDataType_t = SPBLK_R_64F;

/// A random m × k matrix with integer values: its entries and the dense logical matrix.
pub struct Problem {
    pub m: usize,
    pub k: usize,
    pub entries: Vec<(usize, usize)>,
    pub vals: Vec<f64>,
}

impl Problem {
    pub fn new(seed: u64, m: usize, k: usize) -> Problem {
        let mut r = rng(seed);
        let entries = pattern(&mut r, m, k, Shape::Uniform(6));
        let vals = (0..entries.len()).map(|_| r.gen_range(-4..=4) as f64).collect();
        Problem { m, k, entries, vals }
    }
    pub fn sp(&self, seed: u64, format: spblkFormat_t) -> Sp {
        self.sp_of(seed, format, F64)
    }
    /// As [`Problem::sp`] with values of type `vt`.
    pub fn sp_of(&self, seed: u64, format: spblkFormat_t, vt: spblkDataType_t) -> Sp {
        Sp::new(&mut rng(seed), format, self.m, self.k, &self.entries, &self.vals, SPBLK_INDEX_32I, 0, vt)
    }
    /// op(A)·x with the given values (exact).
    pub fn apply(&self, op: spblkOperation_t, vals: &[f64], x: &[f64]) -> Vec<f64> {
        let rows = if op == N { self.m } else { self.k };
        let mut y = vec![0.0; rows];
        for (&(i, j), v) in self.entries.iter().zip(vals) {
            if op == N {
                y[i] += v * x[j];
            } else {
                y[j] += v * x[i];
            }
        }
        y
    }
}

pub fn f64s(b: &[u8]) -> Vec<f64> {
    decode(b, F64)
}

pub fn ints(r: &mut rand::rngs::StdRng, n: usize) -> Vec<f64> {
    (0..n).map(|_| r.gen_range(-3..=3) as f64).collect()
}

/// One SpMV setup on a side: descriptors over the side's memory.
pub struct Spmv {
    pub a: spblkSpMatDescr_t,
    pub x: spblkDnVecDescr_t,
    pub y: spblkDnVecDescr_t,
    y_ptr: *mut c_void,
    rows: usize,
    pub alpha: *const c_void,
    pub beta: *const c_void,
}

impl Spmv {
    pub fn new(side: &mut Side, sp: &Sp, op: spblkOperation_t, x: &[f64]) -> Spmv {
        let a = sp.descr(side);
        let rows = if op == N { sp.rows } else { sp.cols } as usize;
        let (xp, y_ptr) = (side.put(&encode(x, F64)), side.put(&encode(&vec![f64::NAN; rows], F64)));
        let (mut dx, mut dy) = (std::ptr::null_mut(), std::ptr::null_mut());
        ok(spblkCreateDnVec(&mut dx, x.len() as i64, xp, F64), "spblkCreateDnVec");
        ok(spblkCreateDnVec(&mut dy, rows as i64, y_ptr, F64), "spblkCreateDnVec");
        let alpha = side.scalar(false, &scalar_bytes(1.0, F64));
        let beta = side.scalar(false, &scalar_bytes(0.0, F64));
        Spmv { a, x: dx, y: dy, y_ptr, rows, alpha, beta }
    }
    pub fn size(&self, h: spblkHandle_t, op: spblkOperation_t, alg: spblkSpMVAlg_t) -> (spblkStatus_t, usize) {
        let mut size = 0usize;
        let st = spblkSpMV_bufferSize(h, op, self.alpha, self.a, self.x, self.beta, self.y, F64, alg, &mut size);
        (st, size)
    }
    pub fn preprocess(&self, h: spblkHandle_t, op: spblkOperation_t, alg: spblkSpMVAlg_t, buf: *mut c_void) {
        let st = spblkSpMV_preprocess(h, op, self.alpha, self.a, self.x, self.beta, self.y, F64, alg, buf);
        ok(st, "spblkSpMV_preprocess");
    }
    pub fn run(&self, h: spblkHandle_t, op: spblkOperation_t, alg: spblkSpMVAlg_t, buf: *mut c_void) -> spblkStatus_t {
        spblkSpMV(h, op, self.alpha, self.a, self.x, self.beta, self.y, F64, alg, buf)
    }
    pub fn result(&self, side: &Side) -> Vec<f64> {
        side.sync();
        f64s(&side.get(self.y_ptr, self.rows * 8))
    }
}

impl Drop for Spmv {
    fn drop(&mut self) {
        spblkDestroySpMat(self.a);
        spblkDestroyDnVec(self.x);
        spblkDestroyDnVec(self.y);
    }
}
