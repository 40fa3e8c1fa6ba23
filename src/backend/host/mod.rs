//! The host backend: every operation on the CPU (rayon over all cores), for host memory.
//! It is the reference the CUDA backend is tested against, so it favours plain loops in a
//! fixed summation order over speed tricks.

use std::ffi::c_void;

use super::{
    Backend, BlockedEllProductArgs, Boost, BsrProductArgs, Csr2CscArgs, DenseToSparseArgs, Exec, FactorAnalysis,
    FactorArgs, GeamArgs, GeamValues, IndexArrays, SddmmArgs, SddmmMethod, SortArgs, SparseToDenseArgs, SpgemmArgs,
    SpgemmMethod, SpgemmState, SpmmArgs, SpmmMethod, SpmvArgs, SpmvMethod, SpsvAnalysis, SpsvArgs, SpvecArgs, SpvvArgs,
};
use crate::descr::SpMat;
use crate::error::{Error, Result};
use crate::plan::{AsptPlan, AsptSpmmPlan, Buffer, Converted, OperandPlan, RodePlan, SweepPlan};
use crate::trace;
use crate::types::{BackendKind, IndexType, Operation};
use crate::{with_index_type, with_precision};

pub mod aspt;
pub mod bsr;
pub mod convert;
pub mod dense_sparse;
pub mod elem;
pub mod ell;
pub mod factor;
pub mod geam;
pub mod index_arrays;
pub mod products;
pub mod spgemm;
pub mod spsv;
pub mod spvec;
pub mod vbr;
pub mod views;

/// The CPU implementation; stateless.
pub struct HostBackend;

impl Backend for HostBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Host
    }

    fn spmv_buffer_size(&self, _args: &SpmvArgs) -> Result<usize> {
        Ok(0)
    }

    fn spmv_preprocess(&self, _exec: &Exec, args: &SpmvArgs, _buffer: *mut c_void) -> Result<()> {
        match args.method {
            // The host computes every method's result with its one reference loop.
            SpmvMethod::CsrMerge | SpmvMethod::CsrRows | SpmvMethod::CsrScalar | SpmvMethod::CsrVector => {
                operand_plan(args.a, args.op_a).map(drop)
            }
            SpmvMethod::Bsr | SpmvMethod::Sell => Ok(()),
        }
    }

    fn spmv(&self, _exec: &Exec, args: &SpmvArgs, _buffer: *mut c_void) -> Result<()> {
        // The reference: one fixed-order loop per row, whatever the method (the methods differ in
        // how the GPU is used, not in what they compute).
        match args.method {
            SpmvMethod::Bsr => return self.bsr_product(_exec, &BsrProductArgs::of_spmv(args)?),
            SpmvMethod::Sell => {
                trace::kernel("host:sell_as_csr");
                // SAFETY: ops validated the descriptor; the host backend works on host memory.
                let mut csr = unsafe { ell::sell_as_csr(args.a)? };
                let a = csr.descriptor(args.a);
                return self.spmv(_exec, &SpmvArgs { a: &a, method: SpmvMethod::CsrRows, ..*args }, _buffer);
            }
            _ => {}
        }
        let (x, y) = (args.x.as_column(), args.y.as_column());
        let ity = args.a.uniform_index_type("matA")?;
        let plan = args.a.plans.lock().operand(args.op_a);
        with_index_type!(ity, I => with_precision!(args.precision, In, Out, T => {
            // SAFETY: ops validated sizes and pointers; the host backend works on host memory.
            unsafe {
                products::spmm::<I, In, Out, T>(
                    args.op_a, Operation::NonTranspose, args.alpha, args.a, plan.as_deref(), &x, args.beta, &y,
                    products::SumOrder::Entries,
                )
            }
        }))
    }

    fn spmm_buffer_size(&self, _args: &SpmmArgs) -> Result<usize> {
        Ok(0)
    }

    fn spmm_rode_workspace(&self, _args: &SpmmArgs, _plan: &RodePlan) -> Result<usize> {
        Ok(0)
    }

    fn spmm_preprocess(&self, _exec: &Exec, args: &SpmmArgs, _buffer: *mut c_void) -> Result<()> {
        match args.method {
            SpmmMethod::CsrRows => operand_plan(args.a, args.op_a).map(drop),
            SpmmMethod::Rode => rode_plan(args.a, args.op_a),
            SpmmMethod::CsrSweep => sweep_plan(args),
            SpmmMethod::Aspt => self.analyze_aspt(_exec, args.a, true),
            // The 1-SA plan is spblkAnalyze's; the VBR product needs nothing more.
            SpmmMethod::Vbr | SpmmMethod::VbrTf32 | SpmmMethod::Bsr | SpmmMethod::BlockedEll => Ok(()),
        }
    }

    fn spmm(&self, exec: &Exec, args: &SpmmArgs, _buffer: *mut c_void) -> Result<()> {
        match args.method {
            SpmmMethod::Bsr => self.bsr_product(exec, &BsrProductArgs::of_spmm(args)?),
            SpmmMethod::BlockedEll => {
                trace::kernel("host:blocked_ell_product");
                // SAFETY: as in spmv.
                unsafe { ell::blocked_ell_product(&BlockedEllProductArgs::of_spmm(args)?) }
            }
            SpmmMethod::Vbr | SpmmMethod::VbrTf32 => {
                let tf32 = args.method == SpmmMethod::VbrTf32;
                let plan = args.a.plans.lock().one_sa().ok_or_else(|| {
                    Error::invalid("matA", "has no 1-SA analysis (call spblkAnalyze with SPBLK_ANALYSIS_1SA)")
                })?;
                trace::kernel(if tf32 { "host:vbr_spmm_tf32" } else { "host:vbr_spmm" });
                with_precision!(args.precision, In, Out, T => {
                    // SAFETY: as in spmv.
                    unsafe { vbr::spmm::<In, Out, T>(args, &plan.plan, tf32) }
                })
            }
            SpmmMethod::Aspt => {
                let plan =
                    args.a.plans.lock().aspt_spmm().ok_or_else(|| Error::invalid("matA", AsptSpmmPlan::MISSING))?;
                with_precision!(args.precision, In, Out, T => {
                    // SAFETY: as in spmv; a host descriptor's plan is a host plan.
                    unsafe { aspt::spmm::<In, Out, T>(args, &plan) }
                })
            }
            SpmmMethod::CsrRows | SpmmMethod::Rode | SpmmMethod::CsrSweep => {
                let ity = args.a.uniform_index_type("matA")?;
                let (plan, rode, sweep) = {
                    let plans = args.a.plans.lock();
                    (plans.operand(args.op_a), plans.rode(args.op_a), plans.sweep(args.op_a))
                };
                // The sweep's sums are the row method's (its slabs only order the GPU's reads).
                let order = match args.method {
                    SpmmMethod::Rode => {
                        let plan = rode.ok_or_else(|| Error::invalid("matA", RodePlan::MISSING))?;
                        products::SumOrder::RodeSegments(plan.seg)
                    }
                    SpmmMethod::CsrSweep => {
                        sweep.ok_or_else(|| Error::invalid("matA", SweepPlan::MISSING))?;
                        products::SumOrder::Entries
                    }
                    _ => products::SumOrder::Entries,
                };
                with_index_type!(ity, I => with_precision!(args.precision, In, Out, T => {
                    // SAFETY: as in spmv.
                    unsafe {
                        products::spmm::<I, In, Out, T>(
                            args.op_a, args.op_b, args.alpha, args.a, plan.as_deref(), args.b, args.beta, args.c,
                            order,
                        )
                    }
                }))
            }
        }
    }

    fn sddmm_buffer_size(&self, _args: &SddmmArgs) -> Result<usize> {
        Ok(0)
    }

    fn sddmm_preprocess(&self, exec: &Exec, args: &SddmmArgs, _buffer: *mut c_void) -> Result<()> {
        match args.method {
            // Each entry's dot product reads C's pattern as stored: nothing to precompute.
            SddmmMethod::CsrEntries => Ok(()),
            SddmmMethod::Aspt => self.analyze_aspt(exec, args.c, false),
        }
    }

    fn sddmm(&self, _exec: &Exec, args: &SddmmArgs, _buffer: *mut c_void) -> Result<()> {
        let ity = args.c.uniform_index_type("matC")?;
        let plan = match args.method {
            SddmmMethod::CsrEntries => None,
            SddmmMethod::Aspt => {
                Some(args.c.plans.lock().aspt().ok_or_else(|| Error::invalid("matC", AsptPlan::MISSING))?)
            }
        };
        trace::kernel(if plan.is_some() { "host:sddmm_aspt" } else { "host:sddmm_entries" });
        with_index_type!(ity, I => with_precision!(args.precision, In, Out, T => {
            // SAFETY: as in spmv; a host descriptor's plan is a host plan.
            unsafe { products::sddmm::<I, In, Out, T>(args, plan.as_deref()) }
        }))
    }

    fn spgemm_work_estimation_size(&self, _args: &SpgemmArgs) -> Result<usize> {
        // The host keeps its state in the descriptor; report 1 byte so that clients never see
        // a zero size (cudaMalloc(0) may return NULL and turn the next call into a query).
        Ok(1)
    }

    fn spgemm_work_estimation(
        &self,
        _exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        _buffer: *mut c_void,
        _buffer_size: usize,
    ) -> Result<()> {
        state.num_products = Some(spgemm::count_products(args)?);
        Ok(())
    }

    fn spgemm_compute_size(&self, _args: &SpgemmArgs, _state: &SpgemmState) -> Result<usize> {
        Ok(1)
    }

    fn spgemm_compute(
        &self,
        _exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        _buffer: *mut c_void,
        _buffer_size: usize,
    ) -> Result<i64> {
        // Every method is the one reference loop here (host memory, no buffer to plan, so
        // ALG3 needs no passes); that loop is ESC row by row (expansion, stable sort, merge).
        let (SpgemmMethod::BinnedHash
        | SpgemmMethod::BinnedHashInBuffer
        | SpgemmMethod::BinnedHashInChunks
        | SpgemmMethod::Esc) = args.method;
        trace::kernel("host:spgemm_rows");
        let product = spgemm::product(args)?;
        let nnz = product.col.len() as i64;
        state.data = Some(Box::new(product));
        Ok(nnz)
    }

    fn spgemm_copy(&self, _exec: &Exec, args: &SpgemmArgs, state: &mut SpgemmState) -> Result<()> {
        spgemm::write_c(args, spgemm::held(state)?, true)
    }

    fn spgemm_reuse_nnz_sizes(&self, _args: &SpgemmArgs, _state: &SpgemmState) -> Result<[usize; 3]> {
        Ok([1; 3])
    }

    fn spgemm_reuse_nnz(
        &self,
        exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        _buffers: [*mut c_void; 3],
    ) -> Result<i64> {
        self.spgemm_compute(exec, args, state, std::ptr::null_mut(), 0)
    }

    fn spgemm_reuse_copy_size(&self, _args: &SpgemmArgs, _state: &SpgemmState) -> Result<usize> {
        Ok(1)
    }

    fn spgemm_reuse_copy(
        &self,
        _exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        _buffer: *mut c_void,
    ) -> Result<()> {
        spgemm::write_c(args, spgemm::held(state)?, false)
    }

    fn spgemm_reuse_compute(&self, _exec: &Exec, args: &SpgemmArgs, state: &mut SpgemmState) -> Result<()> {
        // The reference recomputes the whole product: same structure, summed in the same order.
        trace::kernel("host:spgemm_rows");
        let product = spgemm::product(args)?;
        if product.col != spgemm::held(state)?.col {
            return Err(Error::invalid("matA", "or matB no longer has the structure the reuse path was set up for"));
        }
        spgemm::write_c(args, &product, true)
    }

    fn spvec_update(&self, _exec: &Exec, args: &SpvecArgs) -> Result<()> {
        trace::kernel("host:spvec_update");
        // SAFETY: ops validated sizes and pointers; the host backend works on host memory.
        unsafe { spvec::update(args) }
    }

    fn spvv_buffer_size(&self, _args: &SpvvArgs) -> Result<usize> {
        Ok(0)
    }

    fn spvv(&self, _exec: &Exec, args: &SpvvArgs, _buffer: *mut c_void) -> Result<()> {
        trace::kernel("host:spvv");
        // SAFETY: as in spvec_update.
        unsafe { spvec::spvv(args) }
    }

    fn sparse_to_dense_buffer_size(&self, _args: &SparseToDenseArgs) -> Result<usize> {
        Ok(0)
    }

    fn sparse_to_dense(&self, _exec: &Exec, args: &SparseToDenseArgs, _buffer: *mut c_void) -> Result<()> {
        trace::kernel("host:sparse_to_dense");
        // SAFETY: ops validated sizes and pointers; the host backend works on host memory.
        unsafe { dense_sparse::sparse_to_dense(args) }
    }

    fn dense_to_sparse_buffer_size(&self, _args: &DenseToSparseArgs) -> Result<usize> {
        Ok(0)
    }

    fn dense_to_sparse_analysis(&self, _exec: &Exec, args: &DenseToSparseArgs, _buffer: *mut c_void) -> Result<i64> {
        trace::kernel("host:dense_to_sparse_analysis");
        // SAFETY: as in sparse_to_dense.
        unsafe { dense_sparse::dense_to_sparse_analysis(args) }
    }

    fn dense_to_sparse_convert(&self, _exec: &Exec, args: &DenseToSparseArgs, _buffer: *mut c_void) -> Result<()> {
        trace::kernel("host:dense_to_sparse_convert");
        // SAFETY: as in sparse_to_dense.
        unsafe { dense_sparse::dense_to_sparse_convert(args) }
    }

    fn bsr_product(&self, _exec: &Exec, args: &BsrProductArgs) -> Result<()> {
        trace::kernel("host:bsr_product");
        // SAFETY: ops checked sizes and pointers; the host backend works on host memory.
        unsafe { bsr::product(args) }
    }

    fn geam_buffer_size(&self, _args: &GeamArgs) -> Result<usize> {
        Ok(0)
    }

    fn geam_nnz(&self, _exec: &Exec, args: &GeamArgs, _buffer: *mut c_void) -> Result<()> {
        trace::kernel("host:geam_nnz");
        // SAFETY: ops checked sizes and pointers; the host backend works on host memory.
        unsafe { geam::nnz(args) }
    }

    fn geam(&self, _exec: &Exec, args: &GeamArgs, values: &GeamValues) -> Result<()> {
        trace::kernel("host:geam");
        // SAFETY: as in geam_nnz.
        unsafe { geam::fill(args, values) }
    }

    fn index_arrays(&self, _exec: &Exec, op: &IndexArrays) -> Result<()> {
        trace::kernel("host:index_arrays");
        // SAFETY: ops checked sizes and pointers; the host backend works on host memory.
        unsafe { index_arrays::run(op) }
    }

    fn sort_buffer_size(&self, _args: &SortArgs) -> Result<usize> {
        Ok(0)
    }

    fn sort(&self, _exec: &Exec, args: &SortArgs, _buffer: *mut c_void) -> Result<()> {
        trace::kernel("host:sort");
        // SAFETY: as in index_arrays.
        unsafe { index_arrays::sort(args) }
    }

    fn csr2csc_buffer_size(&self, _args: &Csr2CscArgs) -> Result<usize> {
        Ok(1)
    }

    fn csr2csc(&self, _exec: &Exec, args: &Csr2CscArgs, _buffer: *mut c_void) -> Result<()> {
        trace::kernel("host:csr2csc");
        // SAFETY: ops validated sizes; host memory.
        unsafe { convert::csr2csc(args, args.value_type.size()) }
    }

    fn analyze_rode(&self, _exec: &Exec, a: &SpMat) -> Result<()> {
        rode_plan(a, Operation::NonTranspose)
    }

    fn analyze_aspt(&self, _exec: &Exec, c: &SpMat, spmm: bool) -> Result<()> {
        let existing = c.plans.lock().aspt();
        let base = match existing {
            Some(base) => base,
            None => {
                // SpMM's sparse operand is matA, SDDMM's matC.
                let ity = c.uniform_index_type(if spmm { "matA" } else { "matC" })?;
                // SAFETY: ops validated the descriptor; host memory of its declared sizes.
                let plan = with_index_type!(ity, I => unsafe { aspt::build_plan::<I>(c) })?;
                trace::choice(
                    "ASpT plan",
                    format_args!("{} panels, {:.1} entries per panel column (host)", plan.panels, plan.reuse()),
                );
                c.plans.lock().set_aspt(plan)
            }
        };
        if spmm && c.plans.lock().aspt_spmm().is_none() {
            let plan = aspt::build_spmm_plan(&base);
            trace::note(format_args!(
                "ASpT SpMM plan: {:.0}% of the entries in dense columns, {:.1} entries each (host)",
                100.0 * plan.dense_share(),
                plan.reuse()
            ));
            c.plans.lock().set_aspt_spmm(plan);
        }
        Ok(())
    }

    fn spsv_buffer_size(&self, _args: &SpsvArgs) -> Result<usize> {
        Ok(0)
    }

    fn spsv_analysis(&self, _exec: &Exec, args: &SpsvArgs, _buffer: *mut c_void) -> Result<Box<SpsvAnalysis>> {
        // SAFETY: host backend: the descriptors describe host memory of their sizes.
        let t = unsafe { spsv::analysis(args)? };
        trace::note(format_args!("{} level sets (host)", t.depth()));
        Ok(Box::new(t))
    }

    fn spsv_solve(&self, _exec: &Exec, args: &SpsvArgs, analysis: &SpsvAnalysis) -> Result<()> {
        let t = analysis.downcast_ref::<spsv::Triangle>().ok_or_else(other_backend)?;
        // SAFETY: as in spsv_analysis.
        unsafe { spsv::solve(args, t) }
    }

    // `values` is backend memory the caller vouches for, as every pointer a backend is given.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    fn spsv_update(
        &self,
        _exec: &Exec,
        analysis: &mut SpsvAnalysis,
        values: *const c_void,
        part: crate::types::SpsvUpdate,
    ) -> Result<()> {
        let t = analysis.downcast_mut::<spsv::Triangle>().ok_or_else(other_backend)?;
        // SAFETY: `values` is host memory of the values the part needs (the caller's contract).
        unsafe { spsv::update(t, values, part) }
    }

    fn factor_buffer_size(&self, _args: &FactorArgs) -> Result<usize> {
        Ok(0)
    }

    fn factor_analysis(&self, _exec: &Exec, args: &FactorArgs, _buffer: *mut c_void) -> Result<Box<FactorAnalysis>> {
        // SAFETY: host backend: the caller's arrays are host memory of their sizes.
        Ok(Box::new(unsafe { factor::analysis(args)? }))
    }

    fn factor(
        &self,
        _exec: &Exec,
        args: &FactorArgs,
        analysis: &mut FactorAnalysis,
        boost: Option<Boost>,
    ) -> Result<()> {
        let t = analysis.downcast_mut::<factor::Pattern>().ok_or_else(other_backend_info)?;
        // SAFETY: as in factor_analysis.
        unsafe { factor::factor(args, t, boost) }
    }

    fn factor_zero_pivot(&self, _exec: &Exec, analysis: &FactorAnalysis) -> Result<Option<i64>> {
        let t = analysis.downcast_ref::<factor::Pattern>().ok_or_else(other_backend_info)?;
        Ok(t.zero_pivot().map(|r| r as i64))
    }

    // `dst` is backend memory the caller vouches for, as every pointer a backend is given.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    fn write_i32(&self, _exec: &Exec, dst: *mut i32, value: i32) -> Result<()> {
        // SAFETY: host memory of one int (the caller's contract; checked non-NULL by ops).
        unsafe { *dst = value };
        Ok(())
    }

    fn read_bytes(&self, _exec: &Exec, src: *const c_void, dst: &mut [u8]) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        if src.is_null() {
            return Err(Error::invalid("source", "is NULL"));
        }
        // SAFETY: the caller guarantees `dst.len()` readable bytes at `src` (host memory).
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }
}

/// An info object analysed with the other backend's handle.
fn other_backend_info() -> Error {
    Error::invalid("info", "was analysed with a handle of another backend")
}

/// An analysis made by the other backend (a descriptor analysed with a CUDA handle).
fn other_backend() -> Error {
    Error::invalid("spsvDescr", "was analysed with a handle of another backend")
}

/// The matrix's operand plan for op(A), built once: the converted pattern (when A is not CSR
/// of op(A)) and the longest row.
fn operand_plan(a: &SpMat, op: Operation) -> Result<std::sync::Arc<OperandPlan>> {
    let mut plans = a.plans.lock();
    if let Some(p) = plans.operand(op) {
        return Ok(p);
    }
    a.require_arrays("matA")?;
    let ity = a.uniform_index_type("matA")?;
    let plan = with_index_type!(ity, I => {
        // SAFETY: ops validated the descriptor; host memory of its declared sizes.
        unsafe { build_operand_plan::<I>(a, op, ity) }
    })?;
    Ok(plans.set_operand(op, plan))
}

/// RoDe's plan of op(A), built once. The host product derives each row's segments from its
/// length, so the plan records only their count (and that the analysis ran).
fn rode_plan(a: &SpMat, op: Operation) -> Result<()> {
    use elem::Index;
    let start = std::time::Instant::now();
    let operand = operand_plan(a, op)?;
    if a.plans.lock().rode(op).is_some() {
        return Ok(());
    }
    let ity = a.uniform_index_type("matA")?;
    let seg = RodePlan::seg_for(a.nnz);
    let segments = with_index_type!(ity, I => {
        let ptr: &[I] = match &operand.converted {
            // SAFETY: the host operand plan's offsets are a Vec<I> of rows + 1 elements.
            Some(c) => unsafe { c.row_ptr.host_slice::<I>() },
            // SAFETY: ops validated the descriptor; host memory of its declared sizes.
            None => unsafe { views::stored_offsets::<I>(a, "matA")? },
        };
        Ok(ptr.windows(2).map(|w| RodePlan::segments_of(w[1].to_i64() - w[0].to_i64(), seg) as u64).sum::<u64>())
    })?;
    let rows = if op.is_transposed() { a.cols } else { a.rows };
    let plan = RodePlan { rows, segments, seg, build_seconds: start.elapsed().as_secs_f64(), arrays: None };
    trace::choice("RoDe plan", format_args!("{segments} segments (host)"));
    a.plans.lock().set_rode(op, plan);
    Ok(())
}

/// # Safety
/// As for `views::convert_pattern`.
unsafe fn build_operand_plan<I: elem::Index>(a: &SpMat, op: Operation, ity: IndexType) -> Result<OperandPlan> {
    // SAFETY: forwarded.
    let Some(p) = (unsafe { views::convert_pattern::<I>(a, op, "matA")? }) else {
        // CSR of op(A) as stored: only the longest row is worth knowing.
        // SAFETY: forwarded.
        let max_row_len = unsafe { views::stored_max_row::<I>(a, "matA")? };
        return Ok(OperandPlan { converted: None, max_row_len });
    };
    trace::kernel("host:convert");
    let max_row_len = views::max_row(&p.ptr);
    let converted = Converted {
        rows: p.rows as i64,
        nnz: p.perm.len() as i64,
        index_type: ity,
        row_ptr: Buffer::from_vec(p.ptr),
        col_ind: Buffer::from_vec(p.idx),
        perm: Buffer::from_vec(p.perm),
    };
    Ok(OperandPlan { converted: Some(converted), max_row_len })
}

/// The column-sweep plan on the host: the slab sizes only (the host sums rows in storage order,
/// as the sweep does), recorded so that the product finds what a CUDA product needs.
fn sweep_plan(args: &SpmmArgs) -> Result<()> {
    let (a, op) = (args.a, args.op_a);
    operand_plan(a, op)?;
    if a.plans.lock().sweep(op).is_some() {
        return Ok(());
    }
    let rows = if op.is_transposed() { a.cols } else { a.rows };
    let k = if op.is_transposed() { a.rows } else { a.cols };
    let row_bytes = (args.c.cols.max(1) as u64) * args.precision.input.size() as u64;
    let (slabs, slab_cols) = SweepPlan::slabs_for(k, row_bytes);
    trace::choice("column-sweep plan", format_args!("{slabs} slabs of {slab_cols} columns (host)"));
    a.plans.lock().set_sweep(op, SweepPlan { rows, slabs, slab_cols, build_seconds: 0.0, offsets: None });
    Ok(())
}
