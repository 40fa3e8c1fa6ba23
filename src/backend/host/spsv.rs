//! Triangular solves on the host, the reference: the analysis keeps op(A)'s triangle in solve
//! order with a copy of its values, and the rows grouped into level sets (a row's level is one
//! past the highest of the rows it needs); the solve runs each level's rows in parallel, each
//! row's sum in the order in which the solve meets its entries' rows: op(A)'s storage order for
//! a forward solve (lower), reversed for a backward one (upper): with columns ascending, a row's
//! sum then starts with the rows furthest back in the solve and ends with its nearest
//! neighbour, the one most likely still being solved (the CUDA solve adds what is published
//! while it waits for the rest). Every run gives the same bits, and so does the CUDA backend's
//! row-per-thread kernel on rows of at most 32 entries, which it sums in the same order.

use std::borrow::Cow;
use std::ffi::c_void;
use std::ops::{Div, Sub};

use rayon::prelude::*;

use super::elem::{Elem, Index, Real, SharedMut};
use super::products::read_scalar;
use super::views::{convert_pattern, csr_structure, strided_span, user_array, user_slice};
use crate::backend::{Columns, SpsvArgs};
use crate::error::{Error, Result};
use crate::types::{DataType, SpsvUpdate};
use crate::with_index_type;

/// Levels with fewer rows run on the calling thread.
const PARALLEL_ROWS: usize = 2048;

/// The analysed triangle of op(A) (zero-based, strict: the diagonal is kept apart).
pub struct Triangle {
    n: usize,
    /// A's stored entries, the length of a general update.
    nnz: usize,
    unit: bool,
    ptr: Vec<usize>,
    col: Vec<usize>,
    /// Each kept entry's position among A's stored values.
    src: Vec<usize>,
    /// Each row's first diagonal entry among A's stored values (cuSPARSE ignores later ones).
    diag_src: Vec<Option<usize>>,
    /// The rows of level l are `order[levels[l]..levels[l + 1]]`.
    levels: Vec<usize>,
    order: Vec<usize>,
    values: Values,
}

/// The analysis' copy of the kept entries' values and of the diagonal.
enum Values {
    F32 { val: Vec<f32>, diag: Vec<f32> },
    F64 { val: Vec<f64>, diag: Vec<f64> },
}

impl Triangle {
    /// The levels' count: the longest chain of rows that wait on each other.
    pub fn depth(&self) -> usize {
        self.levels.len().saturating_sub(1)
    }
}

/// # Safety
/// A's arrays must be host memory of the sizes its descriptor declares.
pub unsafe fn analysis(args: &SpsvArgs) -> Result<Triangle> {
    // SAFETY: forwarded.
    let mut t = with_index_type!(args.a.indices_type, I => unsafe { pattern::<I>(args) })?;
    // SAFETY: forwarded; `src` and `diag_src` address A's nnz values.
    unsafe { gather(&mut t, args.a.values, args.value_type)? };
    Ok(t)
}

/// op(A)'s triangle as CSR, and its level sets; the values are left empty.
///
/// # Safety
/// As for [`analysis`].
unsafe fn pattern<I: Index>(args: &SpsvArgs) -> Result<Triangle> {
    let a = args.a;
    let n = a.rows as usize;
    // SAFETY (both): the caller's guarantee; every index read is checked.
    let (ptr, idx, base, perm) = match unsafe { convert_pattern::<I>(a, args.op_a, "matA")? } {
        Some(p) => (Cow::Owned(p.ptr), Cow::Owned(p.idx), 0, Some(p.perm)),
        None => {
            let (ptr, idx) = unsafe { csr_structure::<I>(a, "matA")? };
            (Cow::Borrowed(ptr), Cow::Borrowed(idx), a.base.offset(), None)
        }
    };
    let mut t = Triangle {
        n,
        nnz: a.nnz as usize,
        unit: args.unit,
        ptr: Vec::with_capacity(n + 1),
        col: Vec::new(),
        src: Vec::new(),
        diag_src: vec![None; n],
        levels: Vec::new(),
        order: Vec::new(),
        values: Values::F64 { val: Vec::new(), diag: Vec::new() },
    };
    t.ptr.push(0);
    for i in 0..n {
        let range = (ptr[i].to_i64() - base) as usize..(ptr[i + 1].to_i64() - base) as usize;
        for p in range {
            let c = (idx[p].to_i64() - base) as usize;
            let at = perm.as_ref().map_or(p, |m| m[p] as usize);
            if c == i {
                t.diag_src[i] = t.diag_src[i].or(Some(at));
            } else if (c < i) == args.lower {
                t.col.push(c);
                t.src.push(at);
            }
        }
        if !args.lower {
            // A backward solve: its nearest rows are solved last (the module's comment).
            let kept = t.ptr[i]..t.col.len();
            t.col[kept.clone()].reverse();
            t.src[kept].reverse();
        }
        t.ptr.push(t.col.len());
    }
    levels(&mut t, args.lower);
    Ok(t)
}

/// Groups the rows by level, each level's rows in ascending order.
fn levels(t: &mut Triangle, lower: bool) {
    let mut level = vec![0usize; t.n];
    let mut set = |i: usize| level[i] = t.col[t.ptr[i]..t.ptr[i + 1]].iter().map(|&c| level[c] + 1).max().unwrap_or(0);
    if lower {
        (0..t.n).for_each(&mut set);
    } else {
        (0..t.n).rev().for_each(&mut set);
    }
    let depth = level.iter().max().map_or(0, |&l| l + 1);
    let mut starts = vec![0usize; depth + 1];
    for &l in &level {
        starts[l + 1] += 1;
    }
    for l in 0..depth {
        starts[l + 1] += starts[l];
    }
    let mut next = starts.clone();
    t.order = vec![0; t.n];
    for (i, &l) in level.iter().enumerate() {
        t.order[next[l]] = i;
        next[l] += 1;
    }
    t.levels = starts;
}

/// Copies the kept entries' values and the diagonal from A's values (`values`: nnz of them).
///
/// # Safety
/// `values` must be host memory of `t.nnz` elements of `ty`.
unsafe fn gather(t: &mut Triangle, values: *const c_void, ty: DataType) -> Result<()> {
    fn copy<T: Elem>(t: &Triangle, v: &[T]) -> (Vec<T>, Vec<T>) {
        let val = t.src.iter().map(|&s| v[s]).collect();
        let diag = t.diag_src.iter().map(|d| d.map_or(T::from_f64(1.0), |s| v[s])).collect();
        (val, diag)
    }
    // SAFETY (both): the caller's guarantee.
    t.values = match ty {
        DataType::F32 => {
            let (val, diag) = copy(t, unsafe { user_slice::<f32>(values, t.nnz, "matA")? });
            Values::F32 { val, diag }
        }
        DataType::F64 => {
            let (val, diag) = copy(t, unsafe { user_slice::<f64>(values, t.nnz, "matA")? });
            Values::F64 { val, diag }
        }
        other => return Err(Error::internal(format!("SpSV with values {other:?}"))),
    };
    Ok(())
}

/// `spblkSpSV_updateMatrix` on the host.
///
/// # Safety
/// `values` must be host memory of nnz (`General`) or n (`Diagonal`) values of the analysed
/// type.
pub unsafe fn update(t: &mut Triangle, values: *const c_void, part: SpsvUpdate) -> Result<()> {
    let ty = match t.values {
        Values::F32 { .. } => DataType::F32,
        Values::F64 { .. } => DataType::F64,
    };
    match part {
        // SAFETY: forwarded.
        SpsvUpdate::General => unsafe { gather(t, values, ty) },
        SpsvUpdate::Diagonal => {
            let n = t.n;
            // SAFETY (both): the caller's guarantee.
            match &mut t.values {
                Values::F32 { diag, .. } => diag.copy_from_slice(unsafe { user_slice(values, n, "newValues")? }),
                Values::F64 { diag, .. } => diag.copy_from_slice(unsafe { user_slice(values, n, "newValues")? }),
            }
            Ok(())
        }
    }
}

/// # Safety
/// x and y must be host memory of n x `cols` values of the analysed type at their steps (they
/// may be one array).
pub unsafe fn solve(args: &SpsvArgs, t: &Triangle) -> Result<()> {
    // SAFETY (both): forwarded.
    match &t.values {
        Values::F32 { val, diag } => unsafe { solve_typed(args, t, val, diag) },
        Values::F64 { val, diag } => unsafe { solve_typed(args, t, val, diag) },
    }
}

/// # Safety
/// As for [`solve`].
unsafe fn solve_typed<T>(args: &SpsvArgs, t: &Triangle, val: &[T], diag: &[T]) -> Result<()>
where
    T: Real + Sub<Output = T> + Div<Output = T>,
{
    // SAFETY: ops checked alpha non-NULL; it has the values' type.
    let alpha: T = unsafe { read_scalar(args.alpha, "alpha")? };
    let cols = args.cols as usize;
    let span = |c: &Columns| strided_span(t.n, cols, c.row_step, c.col_step);
    // Raw pointers: x and y may be one array. Row i reads x[i, j] before writing y[i, j], and
    // reads y only at rows of earlier levels, which are written by then.
    // SAFETY (both): the caller's guarantee.
    let x = SharedMut(unsafe { user_array::<T>(args.x.values, span(&args.x), "B")? });
    let y = SharedMut(unsafe { user_array::<T>(args.y.values, span(&args.y), "C")? });
    // Element steps (the closures below are shared between threads; Columns holds a pointer).
    let (xs, ys) = ((args.x.row_step, args.x.col_step), (args.y.row_step, args.y.col_step));
    let at = |(rs, cs): &(i64, i64), i: usize, j: usize| i as isize * *rs as isize + j as isize * *cs as isize;
    let row = |i: usize| {
        let range = t.ptr[i]..t.ptr[i + 1];
        for j in 0..cols {
            let mut sum = T::ZERO;
            for (&a, &c) in val[range.clone()].iter().zip(&t.col[range.clone()]) {
                // SAFETY: columns are < n (checked by the analysis' pattern), j < cols.
                sum += a * unsafe { *y.get().offset(at(&ys, c, j)) };
            }
            // SAFETY: i < n, j < cols.
            let mut r = alpha * unsafe { *x.get().offset(at(&xs, i, j)) } - sum;
            if !t.unit {
                r = r / diag[i];
            }
            // SAFETY: as above; no other row of this level writes or reads y[i, j].
            unsafe { *y.get().offset(at(&ys, i, j)) = r };
        }
    };
    for l in 0..t.depth() {
        let rows = &t.order[t.levels[l]..t.levels[l + 1]];
        if rows.len() * cols >= PARALLEL_ROWS {
            rows.par_iter().for_each(|&i| row(i));
        } else {
            rows.iter().for_each(|&i| row(i));
        }
    }
    Ok(())
}
