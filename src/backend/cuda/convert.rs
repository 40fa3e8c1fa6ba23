//! Layout conversions on the GPU: csr2csc, and CSR of op(A) for SpMV/SpMM operands that are
//! transposed, CSC or COO. Both are a stable radix sort of the entries by their new row
//! (prims.rs), so entries keep their storage order within a row: deterministic, with row
//! indices sorted within each column for csr2csc. A square compressed pattern is first tried
//! as its own mirror (kernels/convert/mirror.cu): where it is structurally symmetric with
//! ascending indices, the transpose keeps its offsets and indices and only the values move,
//! and the sort's kernels, launched behind it, find that on the device and return at once.

use std::sync::Arc;

use super::context::Device;
use super::kernels::index_tag;
use super::launch::{Args, Carve, Launcher, BLOCK};
use super::memory::DeviceAlloc;
use super::prims::{index_sort_slot, key_bits, radix_sort_index, Carried, Destination, SortSpace};
use crate::backend::Csr2CscArgs;
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::plan::{Converted, OperandPlan};
use crate::types::{IndexType, Operation};

/// Where the entries to convert come from.
pub struct Source {
    pub nnz: u64,
    pub ity: IndexType,
    pub base: i64,
    /// The index array whose values become the new rows.
    pub key_idx: u64,
    /// Compressed input: offsets over `major` stored rows (the new column of an entry is
    /// its stored row). 0 for COO.
    pub ptr: u64,
    pub major: i64,
    /// COO input: the other index array (the new column). 0 for compressed.
    pub other: u64,
    pub val: u64,
    pub elem_bytes: i32,
    pub new_rows: u64,
}

pub struct Dest {
    pub ptr: u64,
    pub idx: u64,
    /// 0 skips the values (csr2csc SYMBOLIC).
    pub val: u64,
    pub base: i64,
}

fn limits(nnz: u64, new_rows: u64, what: &str) -> Result<()> {
    if nnz > u32::MAX as u64 || new_rows > u32::MAX as u64 {
        return Err(Error::not_supported(format!(
            "{what}: converting a matrix with {nnz} entries and {new_rows} rows (the GPU conversion handles up to 2^32-1 of each)"
        )));
    }
    Ok(())
}

/// Entries per block of `spblk_convert_rows_*` and `spblk_convert_mirror_*` (kernels/convert/rows.cuh).
pub(super) const ROWS_TILE: u64 = 2048;
/// `__launch_bounds__` of `spblk_convert_mirror_*`, whose blocks loop over the tiles.
const MIRROR_BLOCKS_PER_SM: u32 = 4;

/// Workspace of a conversion: the mirror transpose's outcome word (first, at offset 0: 0 when
/// it applied, 1 when the sort did the work; tests read it), the sort's space, and the old
/// major index of every entry (compressed input).
pub struct ConvertSpace {
    failed: u64,
    pub sort: SortSpace,
    minor_of: u64,
}

impl ConvertSpace {
    pub fn carve(c: &mut Carve, nnz: u64) -> ConvertSpace {
        let failed = c.take(4);
        ConvertSpace { failed, sort: SortSpace::carve_words(c, nnz, 2), minor_of: c.take(nnz as usize * 4) }
    }
}

/// Runs the conversion. When nothing needs the permutation and values are at most 4 bytes,
/// the sort carries each entry's old major index (and value) and its last pass writes the new
/// index (and value) arrays: (rows) → radix sort → offsets. Otherwise the sort carries
/// positions: (rows) → radix sort → offsets → gather of the new minor indices → gather of the
/// values, and the permutation (sorted position → stored entry) is returned.
fn run(l: &Launcher, src: &Source, dst: &Dest, cs: &ConvertSpace, keep_perm: bool) -> Result<Option<u64>> {
    let t = index_tag(src.ity);
    let n = src.nnz;
    let space = &cs.sort;
    if src.ptr != 0 && src.major > u32::MAX as i64 {
        return Err(Error::not_supported(format!(
            "converting a compressed matrix with {} stored rows (the GPU conversion handles up to 2^32-1)",
            src.major
        )));
    }
    let bits = key_bits(src.new_rows);
    let mirror = n > 0 && src.ptr != 0 && src.major as u64 == src.new_rows;
    let needed = if mirror {
        let perm = if keep_perm { space.vals[index_sort_slot(bits)] } else { 0 };
        l.memset_u32(cs.failed, 0, 1)?;
        l.launch(
            &format!("spblk_convert_mirror_{t}"),
            l.resident_grid(n, ROWS_TILE, MIRROR_BLOCKS_PER_SM),
            BLOCK,
            0,
            Args::new()
                .ptr(src.ptr)
                .ptr(src.key_idx)
                .i64(src.major)
                .i64(src.base)
                .u64(n)
                .ptr(src.val)
                .i32(src.elem_bytes)
                .ptr(dst.ptr)
                .ptr(dst.idx)
                .ptr(dst.val)
                .i64(dst.base)
                .ptr(perm)
                .ptr(cs.failed),
        )?;
        cs.failed
    } else {
        0
    };
    let minor_of = if src.ptr != 0 { cs.minor_of } else { 0 };
    if n > 0 && minor_of != 0 {
        l.launch(
            &format!("spblk_convert_rows_{t}"),
            l.grid(n, ROWS_TILE),
            BLOCK,
            0,
            Args::new().ptr(src.ptr).i64(src.major).i64(src.base).u64(n).ptr(minor_of).ptr(needed),
        )?;
    }
    let other = if minor_of == 0 { src.other } else { 0 };
    let carry_values = dst.val != 0 && src.elem_bytes <= 4;
    let carried = if keep_perm || (dst.val != 0 && !carry_values) {
        Carried::Position
    } else if carry_values {
        Carried::MinorValue { minor_of, other, val: src.val, elem_bytes: src.elem_bytes }
    } else {
        Carried::Minor { minor_of, other }
    };
    let direct = !matches!(carried, Carried::Position);
    let sink = Destination { idx: dst.idx, base: dst.base, idx_bytes: src.ity.size() as i32, val: dst.val };
    let input = (src.key_idx, src.ity, src.base);
    let cur = radix_sort_index(l, space, n, bits, input, carried, direct.then_some(sink), needed)?;
    l.launch(
        &format!("spblk_convert_offsets_{t}"),
        l.grid(n / 4 + 1, BLOCK as u64),
        BLOCK,
        0,
        Args::new().ptr(space.keys[cur]).u64(n).u64(src.new_rows).i64(dst.base).ptr(dst.ptr).ptr(needed),
    )?;
    if direct || n == 0 {
        return Ok(None);
    }
    let perm = space.vals[cur];
    l.launch(
        &format!("spblk_convert_gather_{t}"),
        l.grid(n, BLOCK as u64),
        BLOCK,
        0,
        Args::new().ptr(perm).u64(n).ptr(minor_of).ptr(src.other).i64(src.base).ptr(dst.idx).i64(dst.base).ptr(needed),
    )?;
    if dst.val != 0 {
        l.launch(
            "spblk_convert_values",
            l.grid(n, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(perm).u64(n).ptr(src.val).ptr(dst.val).i32(src.elem_bytes).ptr(needed),
        )?;
    }
    Ok(Some(perm))
}

/// Converts `src` into `dst`.
pub fn convert(l: &Launcher, src: &Source, dst: &Dest, cs: &ConvertSpace) -> Result<()> {
    run(l, src, dst, cs, false).map(drop)
}

/// Converts `src` into `dst` and returns the address of the permutation (sorted position →
/// stored entry, `nnz` u32 words in the workspace; 0 when there are no entries).
pub fn convert_with_perm(l: &Launcher, src: &Source, dst: &Dest, cs: &ConvertSpace) -> Result<u64> {
    run(l, src, dst, cs, true).map(|p| p.unwrap_or(0))
}

/// A CSR matrix on the device as the product kernels read it.
#[derive(Clone, Copy, Debug)]
pub struct Csr {
    pub rows: i64,
    pub nnz: i64,
    pub ptr: u64,
    pub col: u64,
    pub val: u64,
    pub base: i64,
    pub ity: IndexType,
}

/// How CSR of op(A) is obtained: as stored (`Ok`), or converted from `Source` (`Err`); an
/// error for the formats the conversion does not take.
fn op_source(a: &SpMat, op: Operation, elem_bytes: i32) -> Result<std::result::Result<Csr, Source>> {
    let t = op.is_transposed();
    let nnz = a.nnz as u64;
    let direct = |rows, ptr: *mut std::ffi::c_void, col: *mut std::ffi::c_void| Csr {
        rows,
        nnz: a.nnz,
        ptr: ptr as u64,
        col: col as u64,
        val: a.values as u64,
        base: a.base.offset(),
        ity: a.indices_type,
    };
    let mut src = Source {
        nnz,
        ity: a.indices_type,
        base: a.base.offset(),
        key_idx: 0,
        ptr: 0,
        major: 0,
        other: 0,
        val: a.values as u64,
        elem_bytes,
        new_rows: 0,
    };
    Ok(match (a.pattern, t) {
        (SparsePattern::Csr { row_offsets, col_ind }, false) => Ok(direct(a.rows, row_offsets, col_ind)),
        (SparsePattern::Csc { col_offsets, row_ind }, true) => Ok(direct(a.cols, col_offsets, row_ind)),
        (SparsePattern::Csr { row_offsets, col_ind }, true) => {
            (src.key_idx, src.ptr, src.major, src.new_rows) =
                (col_ind as u64, row_offsets as u64, a.rows, a.cols as u64);
            Err(src)
        }
        (SparsePattern::Csc { col_offsets, row_ind }, false) => {
            (src.key_idx, src.ptr, src.major, src.new_rows) =
                (row_ind as u64, col_offsets as u64, a.cols, a.rows as u64);
            Err(src)
        }
        (SparsePattern::Coo { row_ind, col_ind }, false) => {
            (src.key_idx, src.other, src.new_rows) = (row_ind as u64, col_ind as u64, a.rows as u64);
            Err(src)
        }
        (SparsePattern::Coo { row_ind, col_ind }, true) => {
            (src.key_idx, src.other, src.new_rows) = (col_ind as u64, row_ind as u64, a.cols as u64);
            Err(src)
        }
        _ => return Err(a.unsupported("this operation")),
    })
}

/// CSR of op(A) for one call. As stored (CSR with N, CSC with T); else, with an operand plan,
/// the plan's pattern and this call's values gathered through its permutation into the
/// workspace; else converted whole into the workspace. With a measuring `Carve` and no
/// launcher it only reserves the space.
pub fn csr_of_op(
    l: Option<&Launcher>,
    c: &mut Carve,
    a: &SpMat,
    op: Operation,
    elem_bytes: i32,
    plan: Option<&OperandPlan>,
) -> Result<Csr> {
    // A plan's converted pattern first: it also serves formats the conversion does not take
    // (Sliced-ELL's plan of Aᵀ, whose permutation points at A's slots).
    if let Some(conv) = plan.and_then(|p| p.converted.as_ref()) {
        let val = c.take(a.nnz as usize * elem_bytes as usize);
        if let (Some(l), true) = (l, a.nnz > 0) {
            l.launch(
                "spblk_convert_values",
                l.grid(a.nnz as u64, BLOCK as u64),
                BLOCK,
                0,
                Args::new().ptr(conv.perm.addr).u64(a.nnz as u64).ptr(a.values as u64).ptr(val).i32(elem_bytes).ptr(0),
            )?;
        }
        let (ptr, col) = (conv.row_ptr.addr, conv.col_ind.addr);
        return Ok(Csr { rows: conv.rows, nnz: a.nnz, ptr, col, val, base: 0, ity: a.indices_type });
    }
    let src = match op_source(a, op, elem_bytes)? {
        Ok(csr) => return Ok(csr),
        Err(src) => src,
    };
    limits(src.nnz, src.new_rows, "matA")?;
    let isz = a.indices_type.size();
    let rows = src.new_rows as i64;
    let csr = Csr {
        rows,
        nnz: a.nnz,
        ptr: c.take((rows as usize + 1) * isz),
        col: c.take(a.nnz as usize * isz),
        val: c.take(a.nnz as usize * elem_bytes as usize),
        base: 0,
        ity: a.indices_type,
    };
    let space = ConvertSpace::carve(c, src.nnz);
    if let Some(l) = l {
        convert(l, &src, &Dest { ptr: csr.ptr, idx: csr.col, val: csr.val, base: 0 }, &space)?;
    }
    Ok(csr)
}

/// CSR of op(A) without values, for an analysis that copies the values itself: A's own arrays
/// when A is stored that way (`perm` 0: entries in A's order), else converted into `c`'s space
/// with `perm`, each converted entry's position in A's values (u32 words in `c`'s space).
#[derive(Clone, Copy, Debug)]
pub struct OpPattern {
    pub ptr: u64,
    pub col: u64,
    pub base: i64,
    pub perm: u64,
}

/// Builds (or, with a measuring `Carve` and no launcher, reserves the space of) [`OpPattern`].
pub fn pattern_with_perm(l: Option<&Launcher>, c: &mut Carve, a: &SpMat, op: Operation) -> Result<OpPattern> {
    let src = match op_source(a, op, 0)? {
        Ok(csr) => return Ok(OpPattern { ptr: csr.ptr, col: csr.col, base: csr.base, perm: 0 }),
        Err(src) => src,
    };
    limits(src.nnz, src.new_rows, "matA")?;
    let isz = a.indices_type.size();
    let (ptr, col) = (c.take((src.new_rows as usize + 1) * isz), c.take(a.nnz as usize * isz));
    let space = ConvertSpace::carve(c, src.nnz);
    let perm = match l {
        Some(l) => convert_with_perm(l, &src, &Dest { ptr, idx: col, val: 0, base: 0 }, &space)?,
        None => 0,
    };
    Ok(OpPattern { ptr, col, base: 0, perm })
}

/// The pattern of CSR of op(A) as the product calls read it: `(rows, row offsets, base)` of A
/// itself when it is stored that way, else of the operand plan's converted pattern; `None` when
/// A must be converted and no plan holds the conversion.
pub fn pattern_of_op(a: &SpMat, op: Operation, plan: Option<&OperandPlan>) -> Option<(i64, u64, i64)> {
    csr_pattern_of_op(a, op, plan).map(|csr| (csr.rows, csr.ptr, csr.base))
}

/// As [`pattern_of_op`], with the column indices (`val` is 0).
pub fn csr_pattern_of_op(a: &SpMat, op: Operation, plan: Option<&OperandPlan>) -> Option<Csr> {
    match op_source(a, op, 0).ok()? {
        Ok(csr) => Some(Csr { val: 0, ..csr }),
        Err(_) => plan.and_then(|p| p.converted.as_ref()).map(|c| Csr {
            rows: c.rows,
            nnz: a.nnz,
            ptr: c.row_ptr.addr,
            col: c.col_ind.addr,
            val: 0,
            base: 0,
            ity: a.indices_type,
        }),
    }
}

/// The operand plan of op(A): the converted pattern and permutation in device memory the plan
/// owns (the sort runs in `scratch`, a buffer of the size `csr_of_op` measured without a
/// plan), and the longest row. Waits for its work: the plan may be used from any stream next.
pub fn build_operand_plan(
    l: &Launcher,
    dev: &Arc<Device>,
    a: &SpMat,
    op: Operation,
    scratch: u64,
) -> Result<OperandPlan> {
    let ity = a.indices_type;
    let isz = ity.size();
    let (converted, rows, ptr) = match op_source(a, op, 0)? {
        Ok(csr) => (None, csr.rows, csr.ptr),
        Err(src) => {
            limits(src.nnz, src.new_rows, "matA")?;
            let rows = src.new_rows as i64;
            let alloc = |bytes: usize| DeviceAlloc::new(dev, bytes, "operand plan").map(DeviceAlloc::into_buffer);
            let (row_ptr, col_ind, perm) =
                (alloc((rows as usize + 1) * isz)?, alloc(a.nnz as usize * isz)?, alloc(a.nnz as usize * 4)?);
            let space = ConvertSpace::carve(&mut Carve::new(scratch as *mut std::ffi::c_void), src.nnz);
            let dst = Dest { ptr: row_ptr.addr, idx: col_ind.addr, val: 0, base: 0 };
            let sorted = convert_with_perm(l, &src, &dst, &space)?;
            l.copy(perm.addr, sorted, a.nnz as usize * 4)?;
            let ptr = row_ptr.addr;
            let conv = Converted { rows, nnz: a.nnz, index_type: ity, row_ptr, col_ind, perm };
            (Some(conv), rows, ptr)
        }
    };
    let max_row_len = if rows > 0 { longest_row(l, dev, ptr, rows, ity)? } else { 0 };
    Ok(OperandPlan { converted, max_row_len })
}

/// The longest row of a device CSR pattern (waits for the result).
fn longest_row(l: &Launcher, dev: &Arc<Device>, ptr: u64, rows: i64, ity: IndexType) -> Result<i64> {
    let out = DeviceAlloc::new(dev, 8, "row statistics")?;
    l.memset_u32(out.ptr, 0, 2)?;
    l.launch(
        &format!("spblk_row_max_{}", index_tag(ity)),
        l.grid(rows as u64, BLOCK as u64),
        BLOCK,
        0,
        Args::new().ptr(ptr).i64(rows).ptr(out.ptr),
    )?;
    Ok(l.read_u64s(out.ptr, 1)?[0] as i64)
}

/// Buffer of `spblkCsr2cscEx2`: the conversion's workspace.
pub fn csr2csc_layout(c: &mut Carve, args: &Csr2CscArgs) -> ConvertSpace {
    ConvertSpace::carve(c, args.nnz as u64)
}

pub fn csr2csc(l: &Launcher, args: &Csr2CscArgs, space: &ConvertSpace) -> Result<()> {
    limits(args.nnz as u64, args.n as u64, "csr2csc")?;
    let numeric = args.action == crate::types::Action::Numeric && args.nnz > 0;
    let src = Source {
        nnz: args.nnz as u64,
        ity: IndexType::I32,
        base: args.base.offset(),
        key_idx: args.csr_col_ind as u64,
        ptr: args.csr_row_ptr as u64,
        major: args.m,
        other: 0,
        val: args.csr_val as u64,
        elem_bytes: args.value_type.size() as i32,
        new_rows: args.n as u64,
    };
    let dst = Dest {
        ptr: args.csc_col_ptr as u64,
        idx: args.csc_row_ind as u64,
        val: if numeric { args.csc_val as u64 } else { 0 },
        base: args.base.offset(),
    };
    convert(l, &src, &dst, space)
}
