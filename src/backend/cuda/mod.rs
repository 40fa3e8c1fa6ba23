//! The CUDA backend: spblk's own kernels (kernels/, compiled by build.rs into one embedded
//! fatbin), launched through the driver API on the handle's stream in the device's primary
//! context. User pointers are raw device addresses passed to kernels as integers; the
//! backend never owns or frees them.
//!
//! SpMV, SpMM and SDDMM neither allocate, synchronize nor copy to the host (capturable in a
//! CUDA graph). SpGEMM follows cuSPARSE: `compute` blocks to read nnz(C) and owns device
//! allocations kept in the SpGEMM descriptor (see spgemm.rs). Conversions that SpMV/SpMM need
//! (transposed, CSC or COO operands) are deterministic: `*_preprocess` keeps the converted
//! pattern in an operand plan in device memory the plan owns (allocating and waiting, once),
//! and each call then only gathers the current values; without a plan each call converts
//! into the caller's buffer.

use std::ffi::c_void;
use std::sync::Arc;

use super::{
    Backend, BlockedEllProductArgs, Boost, BsrProductArgs, Csr2CscArgs, DenseToSparseArgs, Exec, FactorAnalysis,
    FactorArgs, GeamArgs, GeamValues, IndexArrays, SddmmArgs, SddmmMethod, SortArgs, SparseToDenseArgs, SpgemmArgs,
    SpgemmState, SpmmArgs, SpmmMethod, SpmvArgs, SpmvMethod, SpsvAnalysis, SpsvArgs, SpvecArgs, SpvvArgs,
};
use crate::analysis::OneSaPlan;
use crate::descr::SpMat;
use crate::error::{Error, Result};
use crate::plan::{AsptPlan, AsptSpmmPlan, AsptSpmmShape, RodePlan, SweepPlan, VbrArrays};
use crate::types::{BackendKind, DataType, Operation};

mod aspt;
mod aspt_spmm;
mod bsr;
pub mod context;
mod convert;
mod dense;
mod dense_sparse;
mod ell;
mod factor;
mod geam;
mod index_arrays;
pub mod kernels;
mod launch;
mod levels;
pub mod memory;
pub mod module;
mod prims;
mod rode;
mod sddmm;
mod sort;
mod spgemm;
mod spgemm_reuse;
mod spmm;
mod spmv;
mod spsv;
mod spvec;
mod sweep;
mod tensor_map;
mod vbr;

use context::Device;
use launch::{Carve, Launcher, Scalar};

/// Creates a CUDA backend on the current thread's device (device 0 unless the caller made
/// another current). Fails with a message, never panics, when no driver or GPU is usable.
pub fn create() -> Result<Arc<dyn Backend>> {
    Ok(Arc::new(CudaBackend { dev: context::device_for_this_thread()? }))
}

pub struct CudaBackend {
    dev: Arc<Device>,
}

impl CudaBackend {
    /// The device this backend runs on (tests use it to check the kernel registry).
    pub fn device(&self) -> &Device {
        &self.dev
    }
}

impl Backend for CudaBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    /// The workspace without a plan, whether or not A has one: a plan can be dropped
    /// (`SetValues`, `CsrSetPointers`) between `bufferSize` and the call, which then needs the
    /// whole workspace; with a plan a call uses less.
    fn spmv_buffer_size(&self, args: &SpmvArgs) -> Result<usize> {
        let mut c = Carve::measure();
        match args.method {
            SpmvMethod::Bsr => return Ok(0),
            SpmvMethod::Sell if !args.op_a.is_transposed() => return Ok(0),
            SpmvMethod::Sell => {
                return ell::sell_transposed_size(args, |c, csr| {
                    spmv::layout(None, c, &SpmvArgs { a: csr, method: SpmvMethod::CsrRows, ..*args }, None).map(drop)
                })
            }
            _ => {
                spmv::layout(None, &mut c, args, None)?;
            }
        }
        Ok(c.size())
    }

    fn spmv_preprocess(&self, exec: &Exec, args: &SpmvArgs, buffer: *mut c_void) -> Result<()> {
        match args.method {
            SpmvMethod::CsrMerge => {
                self.operand_plan(exec, args.a, args.op_a, buffer)?;
                self.spmv_tiles(exec, args.a, args.op_a)
            }
            SpmvMethod::CsrRows | SpmvMethod::CsrScalar | SpmvMethod::CsrVector => {
                self.operand_plan(exec, args.a, args.op_a, buffer)
            }
            SpmvMethod::Sell if args.op_a.is_transposed() => {
                let mut plans = args.a.plans.lock();
                if plans.operand(args.op_a).is_none() {
                    let l = Launcher::new(&self.dev, exec)?;
                    plans.set_operand(args.op_a, ell::sell_transposed_plan(&l, &self.dev, args.a, buffer as u64)?);
                }
                Ok(())
            }
            SpmvMethod::Bsr | SpmvMethod::Sell => Ok(()),
        }
    }

    fn spmv(&self, exec: &Exec, args: &SpmvArgs, buffer: *mut c_void) -> Result<()> {
        let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
        let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
        if args.y.size == 0 {
            return Ok(());
        }
        if args.method == SpmvMethod::Bsr {
            return self.bsr_product(exec, &BsrProductArgs::of_spmv(args)?);
        }
        let l = Launcher::new(&self.dev, exec)?;
        let x = spmv::Strided { ptr: args.x.values as u64, inc: 1 };
        let y = spmv::Strided { ptr: args.y.values as u64, inc: 1 };
        let mut c = Carve::new(buffer);
        if args.method == SpmvMethod::Sell {
            if !args.op_a.is_transposed() {
                return ell::sell_spmv(&l, args);
            }
            // With the plan of Aᵀ, CSR of Aᵀ comes from it (values gathered through its slots).
            let plan = args.a.plans.lock().operand(args.op_a);
            let converted;
            let args = match plan {
                Some(_) => SpmvArgs { method: SpmvMethod::CsrRows, ..*args },
                None => {
                    (converted, _) = ell::sell_as_csr(Some(&l), &mut c, args.a, ell::Carry::Values)?;
                    SpmvArgs { a: &converted, method: SpmvMethod::CsrRows, ..*args }
                }
            };
            let (csr, space) = spmv::layout(Some(&l), &mut c, &args, plan.as_deref())?;
            return spmv::run_method(&l, args.method, &csr, &space, None, x, y, &args.precision, alpha, beta);
        }
        let (plan, tiles) = {
            let plans = args.a.plans.lock();
            (plans.operand(args.op_a), plans.spmv_tiles(args.op_a))
        };
        let (csr, space) = spmv::layout(Some(&l), &mut c, args, plan.as_deref())?;
        spmv::run_method(&l, args.method, &csr, &space, tiles.as_deref(), x, y, &args.precision, alpha, beta)
    }

    fn spmm_buffer_size(&self, args: &SpmmArgs) -> Result<usize> {
        match args.method {
            // Without a plan, as for SpMV.
            SpmmMethod::CsrRows => {
                let mut c = Carve::measure();
                spmm::layout(None, &mut c, args, None)?;
                Ok(c.size())
            }
            // The kernel needs no workspace: the plan holds its arrays.
            SpmmMethod::Vbr | SpmmMethod::VbrTf32 => vbr::check(args).map(|_| 0),
            SpmmMethod::Rode => rode::workspace(args, None),
            SpmmMethod::CsrSweep => sweep::workspace(args),
            SpmmMethod::Aspt => Ok(aspt_spmm::workspace(args)),
            SpmmMethod::Bsr | SpmmMethod::BlockedEll => Ok(0),
        }
    }

    fn spmm_rode_workspace(&self, args: &SpmmArgs, plan: &RodePlan) -> Result<usize> {
        rode::workspace(args, Some(plan.segments))
    }

    fn spmm_preprocess(&self, exec: &Exec, args: &SpmmArgs, buffer: *mut c_void) -> Result<()> {
        match args.method {
            SpmmMethod::CsrRows => self.operand_plan(exec, args.a, args.op_a, buffer),
            // The 1-SA plan (and its device arrays) is spblkAnalyze's.
            SpmmMethod::Vbr | SpmmMethod::VbrTf32 => vbr::check(args),
            SpmmMethod::Bsr | SpmmMethod::BlockedEll => Ok(()),
            SpmmMethod::Rode => {
                self.operand_plan(exec, args.a, args.op_a, buffer)?;
                self.rode_plan(exec, args.a, args.op_a)
            }
            SpmmMethod::CsrSweep => {
                self.operand_plan(exec, args.a, args.op_a, buffer)?;
                self.sweep_plan(exec, args)
            }
            SpmmMethod::Aspt => self.analyze_aspt(exec, args.a, true),
        }
    }

    fn spmm(&self, exec: &Exec, args: &SpmmArgs, buffer: *mut c_void) -> Result<()> {
        match args.method {
            SpmmMethod::Bsr => self.bsr_product(exec, &BsrProductArgs::of_spmm(args)?),
            SpmmMethod::BlockedEll => {
                ell::blocked_ell_product(&Launcher::new(&self.dev, exec)?, &BlockedEllProductArgs::of_spmm(args)?)
            }
            SpmmMethod::CsrRows => {
                let plan = args.a.plans.lock().operand(args.op_a);
                let l = Launcher::new(&self.dev, exec)?;
                spmm::run(&l, args, plan.as_deref(), buffer)
            }
            SpmmMethod::Vbr | SpmmMethod::VbrTf32 => {
                let one_sa = args.a.plans.lock().one_sa().ok_or_else(|| {
                    Error::invalid("matA", "has no 1-SA analysis (call spblkAnalyze with SPBLK_ANALYSIS_1SA)")
                })?;
                let arrays = one_sa
                    .arrays
                    .as_ref()
                    .ok_or_else(|| Error::internal("the 1-SA plan of a CUDA descriptor has no device arrays"))?;
                let l = Launcher::new(&self.dev, exec)?;
                vbr::run(&l, args, &one_sa.plan, arrays)
            }
            SpmmMethod::Rode => {
                let (operand, plan) = {
                    let plans = args.a.plans.lock();
                    (plans.operand(args.op_a), plans.rode(args.op_a))
                };
                let plan = plan.ok_or_else(|| Error::invalid("matA", RodePlan::MISSING))?;
                let l = Launcher::new(&self.dev, exec)?;
                rode::run(&l, args, operand.as_deref(), &plan, buffer)
            }
            SpmmMethod::CsrSweep => {
                let (operand, plan) = {
                    let plans = args.a.plans.lock();
                    (plans.operand(args.op_a), plans.sweep(args.op_a))
                };
                let plan = plan.ok_or_else(|| Error::invalid("matA", SweepPlan::MISSING))?;
                sweep::run(&Launcher::new(&self.dev, exec)?, args, operand.as_deref(), &plan, buffer)
            }
            SpmmMethod::Aspt => {
                let plan =
                    args.a.plans.lock().aspt_spmm().ok_or_else(|| Error::invalid("matA", AsptSpmmPlan::MISSING))?;
                aspt_spmm::run(&Launcher::new(&self.dev, exec)?, args, &plan, buffer)
            }
        }
    }

    /// Both methods copy the same strided operands (ASpT reads them as the streaming kernel does).
    fn sddmm_buffer_size(&self, args: &SddmmArgs) -> Result<usize> {
        Ok(sddmm::buffer_size(args))
    }

    fn sddmm_preprocess(&self, exec: &Exec, args: &SddmmArgs, _buffer: *mut c_void) -> Result<()> {
        match args.method {
            // Each warp finds its entries' rows in C's offsets as stored; small matrices get
            // each entry's row, which their calls read instead.
            SddmmMethod::CsrEntries => sddmm::build_entry_rows(&Launcher::new(&self.dev, exec)?, &self.dev, args.c),
            SddmmMethod::Aspt => self.analyze_aspt(exec, args.c, false),
        }
    }

    fn sddmm(&self, exec: &Exec, args: &SddmmArgs, buffer: *mut c_void) -> Result<()> {
        let l = Launcher::new(&self.dev, exec)?;
        match args.method {
            SddmmMethod::CsrEntries => sddmm::run(&l, args, buffer),
            SddmmMethod::Aspt => {
                let plan = args.c.plans.lock().aspt().ok_or_else(|| Error::invalid("matC", AsptPlan::MISSING))?;
                aspt::run(&l, args, &plan, buffer)
            }
        }
    }

    fn spgemm_work_estimation_size(&self, args: &SpgemmArgs) -> Result<usize> {
        Ok(spgemm::work_estimation_size(args))
    }

    fn spgemm_work_estimation(
        &self,
        exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        buffer: *mut c_void,
        buffer_size: usize,
    ) -> Result<()> {
        check_size(buffer_size, spgemm::work_estimation_size(args), "bufferSize1")?;
        let l = Launcher::new(&self.dev, exec)?;
        spgemm::work_estimation(&l, args, state, buffer)
    }

    fn spgemm_compute_size(&self, args: &SpgemmArgs, state: &SpgemmState) -> Result<usize> {
        spgemm::compute_size(args, state)
    }

    fn spgemm_compute(
        &self,
        exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        buffer: *mut c_void,
        buffer_size: usize,
    ) -> Result<i64> {
        check_size(buffer_size, spgemm::compute_size(args, state)?, "bufferSize2")?;
        let l = Launcher::new(&self.dev, exec)?;
        spgemm::compute(&l, &self.dev, args, state, buffer)
    }

    fn spgemm_copy(&self, exec: &Exec, args: &SpgemmArgs, state: &mut SpgemmState) -> Result<()> {
        let l = Launcher::new(&self.dev, exec)?;
        spgemm::copy(&l, &self.dev, args, state, true)
    }

    fn spgemm_reuse_nnz_sizes(&self, args: &SpgemmArgs, state: &SpgemmState) -> Result<[usize; 3]> {
        spgemm_reuse::nnz_sizes(args, state)
    }

    fn spgemm_reuse_nnz(
        &self,
        exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        buffers: [*mut c_void; 3],
    ) -> Result<i64> {
        let l = Launcher::new(&self.dev, exec)?;
        spgemm_reuse::nnz(&l, &self.dev, args, state, buffers)
    }

    fn spgemm_reuse_copy_size(&self, _args: &SpgemmArgs, state: &SpgemmState) -> Result<usize> {
        spgemm_reuse::copy_size(state)
    }

    fn spgemm_reuse_copy(
        &self,
        exec: &Exec,
        args: &SpgemmArgs,
        state: &mut SpgemmState,
        buffer: *mut c_void,
    ) -> Result<()> {
        let l = Launcher::new(&self.dev, exec)?;
        spgemm_reuse::copy(&l, &self.dev, args, state, buffer)
    }

    fn spgemm_reuse_compute(&self, exec: &Exec, args: &SpgemmArgs, state: &mut SpgemmState) -> Result<()> {
        let l = Launcher::new(&self.dev, exec)?;
        spgemm_reuse::compute(&l, args, state)
    }

    fn csr2csc_buffer_size(&self, args: &Csr2CscArgs) -> Result<usize> {
        let mut c = Carve::measure();
        convert::csr2csc_layout(&mut c, args);
        Ok(c.size().max(1))
    }

    fn csr2csc(&self, exec: &Exec, args: &Csr2CscArgs, buffer: *mut c_void) -> Result<()> {
        let l = Launcher::new(&self.dev, exec)?;
        let space = convert::csr2csc_layout(&mut Carve::new(buffer), args);
        convert::csr2csc(&l, args, &space)
    }

    fn spvec_update(&self, exec: &Exec, args: &SpvecArgs) -> Result<()> {
        spvec::update(&Launcher::new(&self.dev, exec)?, args)
    }

    fn spvv_buffer_size(&self, args: &SpvvArgs) -> Result<usize> {
        let mut c = Carve::measure();
        spvec::layout(&mut c, args);
        Ok(c.size())
    }

    fn spvv(&self, exec: &Exec, args: &SpvvArgs, buffer: *mut c_void) -> Result<()> {
        spvec::spvv(&Launcher::new(&self.dev, exec)?, args, buffer)
    }

    fn sparse_to_dense_buffer_size(&self, _args: &SparseToDenseArgs) -> Result<usize> {
        Ok(0)
    }

    fn sparse_to_dense(&self, exec: &Exec, args: &SparseToDenseArgs, _buffer: *mut c_void) -> Result<()> {
        dense_sparse::sparse_to_dense(&Launcher::new(&self.dev, exec)?, args)
    }

    fn dense_to_sparse_buffer_size(&self, args: &DenseToSparseArgs) -> Result<usize> {
        Ok(dense_sparse::buffer_size(args))
    }

    fn dense_to_sparse_analysis(&self, exec: &Exec, args: &DenseToSparseArgs, buffer: *mut c_void) -> Result<i64> {
        dense_sparse::analysis(&Launcher::new(&self.dev, exec)?, args, buffer)
    }

    fn dense_to_sparse_convert(&self, exec: &Exec, args: &DenseToSparseArgs, buffer: *mut c_void) -> Result<()> {
        dense_sparse::convert(&Launcher::new(&self.dev, exec)?, args, buffer)
    }

    fn bsr_product(&self, exec: &Exec, args: &BsrProductArgs) -> Result<()> {
        bsr::product(&Launcher::new(&self.dev, exec)?, args)
    }

    fn geam_buffer_size(&self, args: &GeamArgs) -> Result<usize> {
        Ok(geam::buffer_size(args))
    }

    fn geam_nnz(&self, exec: &Exec, args: &GeamArgs, buffer: *mut c_void) -> Result<()> {
        geam::nnz(&Launcher::new(&self.dev, exec)?, args, exec.pointer_mode, buffer)
    }

    fn geam(&self, exec: &Exec, args: &GeamArgs, values: &GeamValues) -> Result<()> {
        geam::fill(&Launcher::new(&self.dev, exec)?, args, values)
    }

    fn index_arrays(&self, exec: &Exec, op: &IndexArrays) -> Result<()> {
        index_arrays::run(&Launcher::new(&self.dev, exec)?, op)
    }

    fn sort_buffer_size(&self, args: &SortArgs) -> Result<usize> {
        Ok(sort::buffer_size(args))
    }

    fn sort(&self, exec: &Exec, args: &SortArgs, buffer: *mut c_void) -> Result<()> {
        sort::run(&Launcher::new(&self.dev, exec)?, args, buffer)
    }

    fn spsv_buffer_size(&self, args: &SpsvArgs) -> Result<usize> {
        spsv::buffer_size(args)
    }

    fn spsv_analysis(&self, exec: &Exec, args: &SpsvArgs, buffer: *mut c_void) -> Result<Box<SpsvAnalysis>> {
        Ok(Box::new(spsv::analysis(&Launcher::new(&self.dev, exec)?, args, buffer)?))
    }

    fn spsv_solve(&self, exec: &Exec, args: &SpsvArgs, analysis: &SpsvAnalysis) -> Result<()> {
        let t = analysis.downcast_ref::<spsv::DeviceTriangle>().ok_or_else(other_backend)?;
        spsv::solve(&Launcher::new(&self.dev, exec)?, args, t)
    }

    fn spsv_update(
        &self,
        exec: &Exec,
        analysis: &mut SpsvAnalysis,
        values: *const c_void,
        part: crate::types::SpsvUpdate,
    ) -> Result<()> {
        let t = analysis.downcast_ref::<spsv::DeviceTriangle>().ok_or_else(other_backend)?;
        spsv::update(&Launcher::new(&self.dev, exec)?, t, values, part)
    }

    fn factor_buffer_size(&self, args: &FactorArgs) -> Result<usize> {
        Ok(factor::buffer_size(args))
    }

    fn factor_analysis(&self, exec: &Exec, args: &FactorArgs, buffer: *mut c_void) -> Result<Box<FactorAnalysis>> {
        Ok(Box::new(factor::analysis(&Launcher::new(&self.dev, exec)?, args, buffer)?))
    }

    fn factor(
        &self,
        exec: &Exec,
        args: &FactorArgs,
        analysis: &mut FactorAnalysis,
        boost: Option<Boost>,
    ) -> Result<()> {
        let t = analysis.downcast_ref::<factor::DevicePattern>().ok_or_else(other_backend_info)?;
        factor::factor(&Launcher::new(&self.dev, exec)?, args, t, boost)
    }

    fn factor_zero_pivot(&self, exec: &Exec, analysis: &FactorAnalysis) -> Result<Option<i64>> {
        let t = analysis.downcast_ref::<factor::DevicePattern>().ok_or_else(other_backend_info)?;
        factor::zero_pivot(&Launcher::new(&self.dev, exec)?, t)
    }

    fn write_i32(&self, exec: &Exec, dst: *mut i32, value: i32) -> Result<()> {
        Launcher::new(&self.dev, exec)?.memset_u32(dst as u64, value as u32, 1)
    }

    fn read_bytes(&self, exec: &Exec, src: *const c_void, dst: &mut [u8]) -> Result<()> {
        if dst.is_empty() {
            return Ok(());
        }
        if src.is_null() {
            return Err(crate::error::Error::invalid("source", "is NULL"));
        }
        Launcher::new(&self.dev, exec)?.read(src as u64, dst)
    }

    fn analyze_rode(&self, exec: &Exec, a: &SpMat) -> Result<()> {
        self.rode_plan(exec, a, Operation::NonTranspose)
    }

    fn estimate_aspt_spmm(&self, exec: &Exec, a: &SpMat) -> Result<Option<AsptSpmmShape>> {
        let l = Launcher::new(&self.dev, exec)?;
        aspt::estimate_spmm(&l, &self.dev, a)
    }

    fn analyze_aspt(&self, exec: &Exec, c: &SpMat, spmm: bool) -> Result<()> {
        let mut plans = c.plans.lock();
        let l = Launcher::new(&self.dev, exec)?;
        let base = match plans.aspt() {
            Some(base) => base,
            None => {
                let plan = aspt::build_plan(&l, &self.dev, c)?;
                crate::trace::choice(
                    "ASpT plan",
                    format_args!(
                        "{} panels, {:.1} entries per panel column, built in {:.3} ms",
                        plan.panels,
                        plan.reuse(),
                        plan.build_seconds * 1e3
                    ),
                );
                plans.set_aspt(plan)
            }
        };
        if spmm && plans.aspt_spmm().is_none() {
            let plan = aspt_spmm::build_plan(&l, &self.dev, &base)?;
            crate::trace::note(format_args!(
                "ASpT SpMM plan: {} of {} entries in {} dense columns ({:.0}%, {:.1} each), built in {:.3} ms",
                plan.dense_entries,
                plan.nnz,
                plan.dense_columns,
                100.0 * plan.dense_share(),
                plan.reuse(),
                plan.build_seconds * 1e3
            ));
            plans.set_aspt_spmm(plan);
        }
        Ok(())
    }

    fn fills_vbr_values(&self, value_type: DataType) -> bool {
        vbr::fills_values(value_type)
    }

    fn upload_one_sa(&self, exec: &Exec, plan: &OneSaPlan, a: &SpMat) -> Result<Option<VbrArrays>> {
        let l = Launcher::new(&self.dev, exec)?;
        vbr::upload(&l, &self.dev, plan, a).map(Some)
    }
}

impl CudaBackend {
    /// Builds the merge tiles' plan of op(A) once, after the operand plan (whose converted
    /// pattern it partitions when A is not stored as CSR of op(A)).
    fn spmv_tiles(&self, exec: &Exec, a: &SpMat, op: Operation) -> Result<()> {
        let mut plans = a.plans.lock();
        if plans.spmv_tiles(op).is_some() {
            return Ok(());
        }
        let operand = plans.operand(op);
        let pattern = convert::pattern_of_op(a, op, operand.as_deref())
            .ok_or_else(|| Error::internal("SpMV preprocess: no operand plan for a converted operand"))?;
        if pattern.0 == 0 {
            return Ok(());
        }
        let l = Launcher::new(&self.dev, exec)?;
        let tiles = spmv::build_tiles(&l, &self.dev, pattern, a.nnz, a.indices_type)?;
        plans.set_spmv_tiles(op, tiles);
        Ok(())
    }

    /// Builds RoDe's decomposition of op(A) once, after the operand plan (whose converted
    /// pattern it decomposes when A is not stored as CSR of op(A)).
    fn rode_plan(&self, exec: &Exec, a: &SpMat, op: Operation) -> Result<()> {
        let mut plans = a.plans.lock();
        if plans.rode(op).is_some() {
            return Ok(());
        }
        let operand = plans.operand(op);
        let pattern = convert::pattern_of_op(a, op, operand.as_deref()).ok_or_else(|| {
            Error::not_supported(format!(
                "argument 'matA': a RoDe analysis of a {:?} matrix needs spblkSpMM_preprocess (which converts it) \
                 instead of spblkAnalyze",
                a.format()
            ))
        })?;
        let l = Launcher::new(&self.dev, exec)?;
        let plan = rode::build_plan(&l, &self.dev, pattern, a.nnz, a.indices_type)?;
        crate::trace::choice(
            "RoDe plan",
            format_args!("{} segments, built in {:.3} ms", plan.segments, plan.build_seconds * 1e3),
        );
        plans.set_rode(op, plan);
        Ok(())
    }

    /// The column-sweep plan of op(A), once, with slabs sized for this call's op(B) rows.
    fn sweep_plan(&self, exec: &Exec, args: &SpmmArgs) -> Result<()> {
        let (a, op) = (args.a, args.op_a);
        let mut plans = a.plans.lock();
        if plans.sweep(op).is_some() {
            return Ok(());
        }
        let operand = plans.operand(op);
        let csr = convert::csr_pattern_of_op(a, op, operand.as_deref())
            .ok_or_else(|| Error::internal("op(A) has neither a stored CSR pattern nor a converted one"))?;
        let k = if op.is_transposed() { a.rows } else { a.cols };
        let row_bytes = (args.c.cols.max(1) as u64) * args.precision.input.size() as u64;
        let l = Launcher::new(&self.dev, exec)?;
        let plan = sweep::build_plan(&l, &self.dev, &csr, k, row_bytes)?;
        crate::trace::choice(
            "column-sweep plan",
            format_args!(
                "{} slabs of {} columns, built in {:.3} ms",
                plan.slabs,
                plan.slab_cols,
                plan.build_seconds * 1e3
            ),
        );
        plans.set_sweep(op, plan);
        Ok(())
    }

    /// Builds the operand plan of op(A) once (later preprocesses find it in the slot).
    fn operand_plan(&self, exec: &Exec, a: &SpMat, op: Operation, scratch: *mut c_void) -> Result<()> {
        let mut plans = a.plans.lock();
        if plans.operand(op).is_some() {
            return Ok(());
        }
        let l = Launcher::new(&self.dev, exec)?;
        let plan = convert::build_operand_plan(&l, &self.dev, a, op, scratch as u64)?;
        plans.set_operand(op, plan);
        Ok(())
    }
}

fn check_size(given: usize, needed: usize, what: &str) -> Result<()> {
    if given < needed {
        return Err(crate::error::Error::insufficient_resources(format!(
            "argument '{what}' gives {given} bytes but {needed} are required"
        )));
    }
    Ok(())
}

/// An info object analysed with a host handle.
fn other_backend_info() -> Error {
    Error::invalid("info", "was analysed with a handle of another backend")
}

/// An analysis made by the other backend (a descriptor analysed with a host handle).
fn other_backend() -> Error {
    Error::invalid("spsvDescr", "was analysed with a handle of another backend")
}
