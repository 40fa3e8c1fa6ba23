//! Incomplete factorizations on the host, the reference (docs/factor.md): rows grouped into
//! levels (a row's level is one past the highest of the rows its lower entries name), each
//! level's rows in parallel, each row computed exactly as the CUDA kernels compute it
//! (kernels/factor/ilu0.cu, ic0.cu: the same operations in the same order), so both backends
//! give the same bits.

use std::ops::{Div, Sub};

use rayon::prelude::*;

use super::elem::{Real, SharedMut};
use super::views::{check_indices, check_offsets, user_array, user_slice};
use crate::backend::{Boost, FactorArgs, FactorKind};
use crate::error::{Error, Result};
use crate::types::DataType;

/// Levels with fewer rows run on the calling thread.
const PARALLEL_ROWS: usize = 1024;

/// A's checked pattern (zero-based) and what the factorizations need to know of it.
pub struct Pattern {
    ptr: Vec<usize>,
    col: Vec<usize>,
    /// Each row's diagonal entry, and its first entry not below the diagonal.
    diag: Vec<Option<usize>>,
    split: Vec<usize>,
    /// The rows of level l are `order[levels[l]..levels[l + 1]]`.
    levels: Vec<usize>,
    order: Vec<usize>,
    /// The first row without a diagonal entry; the first zero pivot of the last factorization.
    structural: Option<usize>,
    numeric: Option<usize>,
}

impl Pattern {
    /// The first row whose pivot is missing or (after a factorization) zero.
    pub fn zero_pivot(&self) -> Option<usize> {
        match (self.structural, self.numeric) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// # Safety
/// The offsets (n + 1) and columns (nnz) must be host memory.
pub unsafe fn analysis(args: &FactorArgs) -> Result<Pattern> {
    let (n, nnz, base) = (args.n as usize, args.nnz as usize, args.base);
    // SAFETY (both): the caller's guarantee.
    let offsets = unsafe { user_slice::<i32>(args.offsets.cast_mut().cast(), n + 1, "csrSortedRowPtrA")? };
    let columns = unsafe { user_slice::<i32>(args.columns.cast_mut().cast(), nnz, "csrSortedColIndA")? };
    if n > 0 {
        check_offsets(offsets, args.nnz, base, "csrSortedRowPtrA")?;
    }
    check_indices(columns, n, base, "csrSortedColIndA")?;
    let ptr: Vec<usize> = offsets.iter().map(|&o| (o as i64 - base) as usize).collect();
    let col: Vec<usize> = columns.iter().map(|&c| (c as i64 - base) as usize).collect();
    let mut t = Pattern {
        diag: vec![None; n],
        split: vec![0; n],
        levels: Vec::new(),
        order: Vec::new(),
        structural: None,
        numeric: None,
        ptr,
        col,
    };
    let mut level = vec![0usize; n];
    for i in 0..n {
        let row = &t.col[t.ptr[i]..t.ptr[i + 1]];
        if let Some(w) = row.windows(2).position(|w| w[1] <= w[0]) {
            return Err(Error::invalid(
                "csrSortedColIndA",
                format!("row {i} is not sorted: column {} after {} (columns must ascend)", row[w + 1], row[w]),
            ));
        }
        let below = row.iter().take_while(|&&c| c < i).count();
        t.split[i] = t.ptr[i] + below;
        t.diag[i] = (row.get(below) == Some(&i)).then_some(t.split[i]);
        if t.diag[i].is_none() && t.structural.is_none() {
            t.structural = Some(i);
        }
        level[i] = row[..below].iter().map(|&k| level[k] + 1).max().unwrap_or(0);
    }
    let depth = level.iter().max().map_or(0, |&l| l + 1);
    t.levels = vec![0; depth + 1];
    for &l in &level {
        t.levels[l + 1] += 1;
    }
    for l in 0..depth {
        t.levels[l + 1] += t.levels[l];
    }
    let mut next = t.levels.clone();
    t.order = vec![0; n];
    for (i, &l) in level.iter().enumerate() {
        t.order[next[l]] = i;
        next[l] += 1;
    }
    Ok(t)
}

/// # Safety
/// `args.values` must be host memory of nnz values of the analysed type.
pub unsafe fn factor(args: &FactorArgs, t: &mut Pattern, boost: Option<Boost>) -> Result<()> {
    // SAFETY (both): forwarded.
    t.numeric = match args.value_type {
        DataType::F32 => unsafe { factor_typed::<f32>(args, t, boost)? },
        DataType::F64 => unsafe { factor_typed::<f64>(args, t, boost)? },
        other => return Err(Error::internal(format!("a factorization with values {other:?}"))),
    };
    Ok(())
}

/// The value types of the factorizations.
trait Float: Real + Sub<Output = Self> + Div<Output = Self> + PartialOrd {
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
}
impl Float for f32 {
    fn abs(self) -> Self {
        f32::abs(self)
    }
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
}
impl Float for f64 {
    fn abs(self) -> Self {
        f64::abs(self)
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
}

/// The position of column `j` in `range` of the pattern, whose columns ascend.
fn find(col: &[usize], range: std::ops::Range<usize>, j: usize) -> Option<usize> {
    col[range.clone()].binary_search(&j).ok().map(|m| range.start + m)
}

/// Factors every row; the first zero pivot.
///
/// # Safety
/// As for [`factor`].
unsafe fn factor_typed<T: Float>(args: &FactorArgs, t: &Pattern, boost: Option<Boost>) -> Result<Option<usize>> {
    // SAFETY: the caller's guarantee.
    let v = SharedMut(unsafe { user_array::<T>(args.values, args.nnz as usize, "csrSortedValA")? });
    // SAFETY: diagonal positions come from the checked pattern.
    let pivot = |d: Option<usize>| d.map_or(T::from_f64(1.0), |d| unsafe { *v.get().add(d) });
    let kind = args.kind;
    // Row i writes only its own entries and reads rows of earlier levels (all written).
    let row = |i: usize| -> bool {
        // SAFETY (all accesses): positions come from the checked pattern (< nnz).
        let at = |p: usize| unsafe { *v.get().add(p) };
        let set = |p: usize, x: T| unsafe { *v.get().add(p) = x };
        let (s, e) = (t.ptr[i], t.ptr[i + 1]);
        for q in s..t.split[i] {
            let k = t.col[q];
            let pk = pivot(t.diag[k]);
            match kind {
                FactorKind::Ilu0 => {
                    let l = at(q) / pk;
                    set(q, l);
                    // A row without a diagonal entry has no U part to subtract (as NVIDIA's).
                    let upper = t.diag[k].map_or(t.ptr[k + 1], |d| d + 1)..t.ptr[k + 1];
                    for p in q + 1..e {
                        if let Some(m) = find(&t.col, upper.clone(), t.col[p]) {
                            set(p, at(p) - l * at(m));
                        }
                    }
                }
                FactorKind::Ic0 => {
                    let mut dot = T::ZERO;
                    for p in s..q {
                        if let Some(m) = find(&t.col, t.ptr[k]..t.split[k], t.col[p]) {
                            dot += at(p) * at(m);
                        }
                    }
                    set(q, (at(q) - dot) / pk);
                }
            }
        }
        let Some(d) = t.diag[i] else { return false };
        match kind {
            FactorKind::Ilu0 => {
                let u = at(d);
                if let Some(b) = boost.filter(|b| u.to_f64().abs() <= b.tolerance) {
                    set(d, T::from_f64(b.value));
                    false
                } else {
                    u == T::ZERO
                }
            }
            FactorKind::Ic0 => {
                let mut squares = T::ZERO;
                for p in s..t.split[i] {
                    squares += at(p) * at(p);
                }
                let rest = at(d) - squares;
                set(d, rest.abs().sqrt());
                rest <= T::ZERO
            }
        }
    };
    let mut first: Option<usize> = None;
    for l in 0..t.levels.len().saturating_sub(1) {
        let rows = &t.order[t.levels[l]..t.levels[l + 1]];
        let zero = if rows.len() >= PARALLEL_ROWS {
            rows.par_iter().filter(|&&i| row(i)).min().copied()
        } else {
            rows.iter().filter(|&&i| row(i)).min().copied()
        };
        first = match (first, zero) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
    Ok(first)
}
