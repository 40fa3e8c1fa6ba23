//! Operation requests: decode the C enums of a call, check every size, type and pointer
//! against the descriptors, and produce the backend's argument structs. Both backends see
//! only requests that passed these checks, so they share one set of error messages.

use std::ffi::c_void;

use crate::abi::*;
use crate::backend::{
    Backend, Csr2CscArgs, Exec, ScalarArg, SddmmArgs, SddmmMethod, SpgemmArgs, SpgemmMethod, SpmmArgs, SpmmMethod,
    SpmvArgs, SpmvMethod,
};
use crate::descr::{DnMat, DnVec, SpMat, SparsePattern};
use crate::ensure;
use crate::error::{Error, Result};
use crate::plan::AsptSpmmShape;
use crate::trace;
use crate::types::{
    Action, Csr2CscAlg, DataType, Format, IndexBase, Operation, PointerMode, Precision, SddmmAlg, SpgemmAlg, SpmmAlg,
    SpmvAlg,
};

pub mod analyze;
pub mod batch;
pub mod bsr;
pub mod dense_sparse;
pub mod dispatch;
pub mod factor;
pub mod geam;
pub mod index_arrays;
pub mod spsv;
pub mod spvec;

/// Decodes opA/opB: N and T are computed; C on real types is rejected as cuSPARSE does
/// since CUDA 11.5.
fn operation(v: u32, arg: &str) -> Result<Operation> {
    let op = Operation::decode(v, arg)?;
    if op == Operation::ConjugateTranspose {
        return Err(Error::not_supported(format!(
            "argument '{arg}': SPBLK_OPERATION_CONJUGATE_TRANSPOSE is not supported for real types"
        )));
    }
    Ok(op)
}

/// A size the legacy API passes as `int`: at least 0.
pub(crate) fn int_size(v: i32, arg: &str) -> Result<i64> {
    ensure!(v >= 0, arg, "must be >= 0 (got {v})");
    Ok(v as i64)
}

/// The index base of a legacy matrix descriptor that must describe a general matrix; `who`
/// names the calls in the message.
pub(crate) fn general_base(d: &crate::descr::MatDescr, arg: &str, who: &str) -> Result<i64> {
    if d.matrix_type != crate::types::MatrixType::General {
        return Err(Error::new(
            SPBLK_STATUS_MATRIX_TYPE_NOT_SUPPORTED,
            format!(
                "argument '{arg}' has matrix type {:?}; {who} take only SPBLK_MATRIX_TYPE_GENERAL (store both \
                 triangles of a symmetric matrix)",
                d.matrix_type
            ),
        ));
    }
    Ok(d.base.offset())
}

fn scalar(ptr: *const c_void, mode: PointerMode, arg: &str) -> Result<ScalarArg> {
    ensure!(!ptr.is_null(), arg, "is NULL");
    Ok(ScalarArg { ptr, mode })
}

/// Rows and columns of op(M) for a matrix of `rows × cols`.
fn op_shape(op: Operation, rows: i64, cols: i64) -> (i64, i64) {
    if op.is_transposed() {
        (cols, rows)
    } else {
        (rows, cols)
    }
}

fn sparse_operand(a: &SpMat, arg: &str, formats: &[Format]) -> Result<()> {
    if !formats.contains(&a.format()) {
        return Err(Error::not_supported(format!(
            "argument '{arg}': format {:?} is not supported here (supported: {formats:?})",
            a.format()
        )));
    }
    a.validate_shape()?;
    a.require_arrays(arg)?;
    a.uniform_index_type(arg)?;
    Ok(())
}

/// Products with BSR and Blocked-ELL matrices take op(A) = A only, as in cuSPARSE.
fn op_a_as_stored(a: &SpMat, op_a: Operation) -> Result<()> {
    if matches!(a.format(), Format::Bsr | Format::BlockedEll) && op_a != Operation::NonTranspose {
        return Err(Error::not_supported(format!(
            "argument 'opA': {} matrices take SPBLK_OPERATION_NON_TRANSPOSE only",
            a.format().name()
        )));
    }
    Ok(())
}

/// A buffer must be given when the backend asked for one.
pub fn require_buffer(needed: usize, buffer: *mut c_void, arg: &str) -> Result<()> {
    ensure!(!buffer.is_null() || needed == 0, arg, "is NULL but {needed} bytes are required");
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn spmv_args<'a>(
    mode: PointerMode,
    op_a: spblkOperation_t,
    alpha: *const c_void,
    a: &'a SpMat,
    x: &'a DnVec,
    beta: *const c_void,
    y: &'a DnVec,
    compute: spblkDataType_t,
    alg: spblkSpMVAlg_t,
) -> Result<SpmvArgs<'a>> {
    let op_a = operation(op_a, "opA")?;
    let alpha = scalar(alpha, mode, "alpha")?;
    let beta = scalar(beta, mode, "beta")?;
    let compute = DataType::decode(compute, "computeType")?;
    let method = dispatch::spmv(SpmvAlg::decode(alg, "alg")?, a, op_a)?;
    sparse_operand(a, "matA", &[Format::Csr, Format::Csc, Format::Coo, Format::Bsr, Format::SlicedEll])?;
    op_a_as_stored(a, op_a)?;
    batch::single(a, "matA", "SpMV")?;
    x.validate()?;
    y.validate()?;
    let (m, k) = op_shape(op_a, a.rows, a.cols);
    ensure!(x.size == k, "vecX", "has size {} but op(A) has {k} columns", x.size);
    ensure!(y.size == m, "vecY", "has size {} but op(A) has {m} rows", y.size);
    ensure!(
        x.value_type == a.value_type,
        "vecX",
        "has value type {:?} but matA has {:?} (they must match)",
        x.value_type,
        a.value_type
    );
    let precision = Precision::check(a.value_type, y.value_type, compute)?;
    trace::sizes(format_args!("A={:?} {}x{} nnz={} op={op_a:?} {precision}", a.format(), a.rows, a.cols, a.nnz));
    Ok(SpmvArgs { op_a, alpha, a, x, beta, y, precision, method })
}

/// Workspace bytes of an SpMV request. When spblk chooses the method (`dispatch::spmv_chooses`),
/// the plan can change the choice (it knows the longest row) and can be built or dropped
/// between `bufferSize` and the call, so the size fits every method the choice can name.
pub fn spmv_buffer_size(backend: &dyn Backend, args: &SpmvArgs, alg: spblkSpMVAlg_t) -> Result<usize> {
    let own = backend.spmv_buffer_size(args)?;
    let as_stored = matches!(args.method, SpmvMethod::Bsr | SpmvMethod::Sell);
    if !dispatch::spmv_chooses(SpmvAlg::decode(alg, "alg")?) || as_stored {
        return Ok(own);
    }
    dispatch::SPMV_CHOICES
        .iter()
        .try_fold(own, |most, &method| Ok(most.max(backend.spmv_buffer_size(&SpmvArgs { method, ..*args })?)))
}

/// `spblkSpMV_preprocess`: the request's method builds its plan; when spblk chooses the method
/// and the plan changes the choice (skewed rows), the new method is prepared as well, so the
/// calls that follow find its plan.
pub fn spmv_preprocess(
    backend: &dyn Backend,
    exec: &Exec,
    args: &SpmvArgs,
    alg: spblkSpMVAlg_t,
    buffer: *mut c_void,
) -> Result<()> {
    backend.spmv_preprocess(exec, args, buffer)?;
    let alg = SpmvAlg::decode(alg, "alg")?;
    if !dispatch::spmv_chooses(alg) {
        return Ok(());
    }
    let method = dispatch::spmv(alg, args.a, args.op_a)?;
    if method == args.method {
        return Ok(());
    }
    backend.spmv_preprocess(exec, &SpmvArgs { method, ..*args }, buffer)
}

#[allow(clippy::too_many_arguments)]
pub fn spmm_args<'a>(
    mode: PointerMode,
    op_a: spblkOperation_t,
    op_b: spblkOperation_t,
    alpha: *const c_void,
    a: &'a SpMat,
    b: &'a DnMat,
    beta: *const c_void,
    c: &'a DnMat,
    compute: spblkDataType_t,
    alg: spblkSpMMAlg_t,
) -> Result<SpmmArgs<'a>> {
    let op_a = operation(op_a, "opA")?;
    let op_b = operation(op_b, "opB")?;
    let alpha = scalar(alpha, mode, "alpha")?;
    let beta = scalar(beta, mode, "beta")?;
    let compute = DataType::decode(compute, "computeType")?;
    let method = dispatch::spmm(SpmmAlg::decode(alg, "alg")?, a, op_a, c.cols)?;
    sparse_operand(a, "matA", &[Format::Csr, Format::Csc, Format::Coo, Format::Bsr, Format::BlockedEll])?;
    op_a_as_stored(a, op_a)?;
    b.validate()?;
    c.validate()?;
    let (m, k) = op_shape(op_a, a.rows, a.cols);
    let (bk, n) = op_shape(op_b, b.rows, b.cols);
    ensure!(bk == k, "matB", "op(B) has {bk} rows but op(A) has {k} columns");
    ensure!(c.rows == m && c.cols == n, "matC", "is {}x{} but op(A)·op(B) is {m}x{n}", c.rows, c.cols);
    ensure!(
        b.value_type == a.value_type,
        "matB",
        "has value type {:?} but matA has {:?} (they must match)",
        b.value_type,
        a.value_type
    );
    let precision = Precision::check(a.value_type, c.value_type, compute)?;
    if matches!(method, SpmmMethod::Vbr | SpmmMethod::VbrTf32) {
        ensure!(op_a == Operation::NonTranspose, "opA", "must be NON_TRANSPOSE with SPBLK_SPMM_ALG_VBR");
    }
    if method == SpmmMethod::VbrTf32 && a.value_type != DataType::F32 {
        return Err(Error::not_supported(format!(
            "SPBLK_SPMM_ALG_VBR_TF32 rounds f32 inputs to TF32; matA is {:?} (use SPBLK_SPMM_ALG_VBR)",
            a.value_type
        )));
    }
    trace::sizes(format_args!(
        "A={:?} {}x{} nnz={} B={:?} C={:?} n={n} op={op_a:?}/{op_b:?} {precision}",
        a.format(),
        a.rows,
        a.cols,
        a.nnz,
        b.order,
        c.order
    ));
    Ok(SpmmArgs { op_a, op_b, alpha, a, b, beta, c, precision, method })
}

/// SpMM's workspace for `args`, and the default's last choice: with an ASpT, column-sweep or
/// RoDe plan (the default's preprocess builds them where `dispatch` predicts them faster) whose
/// method is still predicted faster and fits in the row method's workspace, the default runs
/// that method. The size reported
/// is the row method's either way: `bufferSize` does not depend on plans.
pub fn spmm_workspace(backend: &dyn Backend, args: &mut SpmmArgs, alg: spblkSpMMAlg_t) -> Result<usize> {
    let needed = backend.spmm_buffer_size(args)?;
    if alg != SPBLK_SPMM_ALG_DEFAULT || args.method != SpmmMethod::CsrRows {
        return Ok(needed);
    }
    let aspt = args.a.plans.lock().aspt_spmm();
    if let Some(aspt) = aspt.filter(|_| args.op_a == Operation::NonTranspose) {
        let (wins, why) = dispatch::aspt_predicted(args.a, &aspt.shape(), args.c.cols);
        let aspt_args = SpmmArgs { method: SpmmMethod::Aspt, ..*args };
        if wins && backend.spmm_buffer_size(&aspt_args)? <= needed {
            args.method = SpmmMethod::Aspt;
            trace::choice("Aspt", format_args!("{why} (ASpT plan)"));
            return Ok(needed);
        }
        trace::note(format_args!("ASpT not predicted faster: {why}"));
    }
    let (operand, rode, sweep) = {
        let plans = args.a.plans.lock();
        (plans.operand(args.op_a), plans.rode(args.op_a), plans.sweep(args.op_a))
    };
    if let (Some(operand), Some(sweep)) = (&operand, sweep) {
        let (wins, why) = dispatch::sweep_predicted(args.a, args.op_a, args.c.cols, operand.max_row_len);
        let sweep_args = SpmmArgs { method: SpmmMethod::CsrSweep, ..*args };
        if wins && backend.spmm_buffer_size(&sweep_args)? <= needed {
            args.method = SpmmMethod::CsrSweep;
            trace::choice("CsrSweep", format_args!("{why} ({} slabs; column-sweep plan)", sweep.slabs));
            return Ok(needed);
        }
    }
    let (Some(operand), Some(rode)) = (operand, rode) else { return Ok(needed) };
    let (wins, why) = dispatch::rode_predicted(args.a, args.op_a, args.c.cols, operand.max_row_len);
    if !wins {
        return Ok(needed);
    }
    let rode_needs = backend.spmm_rode_workspace(args, &rode)?;
    if rode_needs <= needed {
        args.method = SpmmMethod::Rode;
        trace::choice("Rode", format_args!("{why} ({} segments; RoDe plan)", rode.segments));
    } else {
        trace::note(format_args!(
            "RoDe predicted ({why}) but its {} segments need {rode_needs} bytes, the row method's workspace \
             {needed}",
            rode.segments
        ));
    }
    Ok(needed)
}

/// SpMM's preprocess: the method's plans, and with `SPBLK_SPMM_ALG_DEFAULT` the ASpT plans
/// where they are predicted to pay (`aspt_for_default`), else the column-sweep plan or a RoDe
/// plan when the operand plan's longest row makes `dispatch::sweep_predicted` or
/// `dispatch::rode_predicted` favour it.
pub fn spmm_preprocess(
    backend: &dyn Backend,
    exec: &Exec,
    args: &SpmmArgs,
    alg: spblkSpMMAlg_t,
    buffer: *mut c_void,
) -> Result<()> {
    backend.spmm_preprocess(exec, args, buffer)?;
    if alg != SPBLK_SPMM_ALG_DEFAULT || args.method != SpmmMethod::CsrRows {
        return Ok(());
    }
    if aspt_for_default(backend, exec, args)? {
        return Ok(());
    }
    let Some(operand) = args.a.plans.lock().operand(args.op_a) else { return Ok(()) };
    let (sweep, why) = dispatch::sweep_predicted(args.a, args.op_a, args.c.cols, operand.max_row_len);
    if sweep {
        // Out of device memory for the plan: the row method stays.
        match backend.spmm_preprocess(exec, &SpmmArgs { method: SpmmMethod::CsrSweep, ..*args }, buffer) {
            Err(e) if e.status == SPBLK_STATUS_ALLOC_FAILED => {
                trace::note(format_args!("column-sweep plan not built ({why}), the row method kept: {e}"))
            }
            r => r?,
        }
        return Ok(());
    }
    if dispatch::rode_predicted(args.a, args.op_a, args.c.cols, operand.max_row_len).0 {
        backend.spmm_preprocess(exec, &SpmmArgs { method: SpmmMethod::Rode, ..*args }, buffer)?;
    }
    Ok(())
}

/// The default's preprocess builds A's ASpT plans where an estimate from sampled panels
/// (`Backend::estimate_aspt_spmm`, made once per matrix) makes `dispatch::aspt_predicted` favour
/// ASpT; whether it did. The plans are an optimisation the caller did not ask for: when their
/// memory cannot be had, the default keeps the row method.
fn aspt_for_default(backend: &dyn Backend, exec: &Exec, args: &SpmmArgs) -> Result<bool> {
    let (a, n) = (args.a, args.c.cols);
    if !dispatch::aspt_candidate(a, args.op_a, n) {
        return Ok(false);
    }
    if let Some(plan) = a.plans.lock().aspt_spmm() {
        return Ok(dispatch::aspt_predicted(a, &plan.shape(), n).0);
    }
    // Out of device memory for the estimate or the plans: the row method stays.
    let optional = |r: Result<bool>| match r {
        Err(e) if e.status == SPBLK_STATUS_ALLOC_FAILED => {
            trace::note(format_args!("ASpT plans not built, the row method kept: {e}"));
            Ok(false)
        }
        r => r,
    };
    let shape = match aspt_estimate(backend, exec, a) {
        Ok(Some(shape)) => shape,
        Ok(None) => return Ok(false),
        Err(e) => return optional(Err(e)),
    };
    let (wins, why) = dispatch::aspt_predicted(a, &shape, n);
    trace::note(format_args!("ASpT {}predicted from sampled panels: {why}", if wins { "" } else { "not " }));
    if !wins {
        return Ok(false);
    }
    optional(backend.analyze_aspt(exec, a, true).map(|()| true))
}

/// ASpT's counts for `m` estimated from sampled panels (`Backend::estimate_aspt_spmm`), made once
/// per matrix and kept on it (SpMM's and SDDMM's defaults both read them); `None` where the
/// backend makes no estimate.
fn aspt_estimate(backend: &dyn Backend, exec: &Exec, m: &SpMat) -> Result<Option<AsptSpmmShape>> {
    let known = m.plans.lock().aspt_estimate();
    if known.is_some() {
        return Ok(known);
    }
    let shape = backend.estimate_aspt_spmm(exec, m)?;
    if let Some(shape) = shape {
        m.plans.lock().set_aspt_estimate(shape);
    }
    Ok(shape)
}

/// SDDMM's preprocess: the method's plan, and with `SPBLK_SDDMM_ALG_DEFAULT` ASpT's plan where an
/// estimate from sampled panels (`Backend::estimate_aspt_spmm`, made once per matrix: the same
/// counts) predicts the tensor-core tiles faster (`dispatch::sddmm_tiles_predicted`). The plan
/// is an optimisation the caller did not ask for: without the memory for it the default streams.
pub fn sddmm_preprocess(
    backend: &dyn Backend,
    exec: &Exec,
    args: &SddmmArgs,
    alg: spblkSDDMMAlg_t,
    buffer: *mut c_void,
) -> Result<()> {
    backend.sddmm_preprocess(exec, args, buffer)?;
    let (c, k) = (args.c, args.inner_dim());
    if alg != SPBLK_SDDMM_ALG_DEFAULT
        || args.method != SddmmMethod::CsrEntries
        || !dispatch::sddmm_tiles_candidate(c, args.precision, k)
        || c.plans.lock().aspt().is_some()
    {
        return Ok(());
    }
    let optional = |r: Result<()>| match r {
        Err(e) if e.status == SPBLK_STATUS_ALLOC_FAILED => {
            trace::note(format_args!("ASpT plan not built, the default streams: {e}"));
            Ok(())
        }
        r => r,
    };
    let shape = match aspt_estimate(backend, exec, c) {
        Ok(Some(shape)) => shape,
        Ok(None) => return Ok(()),
        Err(e) => return optional(Err(e)),
    };
    // A sparse column (one entry in its panel) is a run of its own.
    let runs = shape.dense_columns + (shape.entries - shape.dense_entries);
    let (wins, why) = dispatch::sddmm_tiles_predicted(c, args.precision, k, shape.entries, runs);
    trace::note(format_args!("ASpT tiles {}predicted from sampled panels: {why}", if wins { "" } else { "not " }));
    if wins {
        return optional(backend.analyze_aspt(exec, c, false));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn sddmm_args<'a>(
    mode: PointerMode,
    op_a: spblkOperation_t,
    op_b: spblkOperation_t,
    alpha: *const c_void,
    a: &'a DnMat,
    b: &'a DnMat,
    beta: *const c_void,
    c: &'a SpMat,
    compute: spblkDataType_t,
    alg: spblkSDDMMAlg_t,
) -> Result<SddmmArgs<'a>> {
    let op_a = operation(op_a, "opA")?;
    let op_b = operation(op_b, "opB")?;
    let alpha = scalar(alpha, mode, "alpha")?;
    let beta = scalar(beta, mode, "beta")?;
    let compute = DataType::decode(compute, "computeType")?;
    let alg = SddmmAlg::decode(alg, "alg")?;
    a.validate()?;
    b.validate()?;
    sparse_operand(c, "matC", &[Format::Csr])?;
    let (m, k) = op_shape(op_a, a.rows, a.cols);
    let (bk, n) = op_shape(op_b, b.rows, b.cols);
    ensure!(bk == k, "matB", "op(B) has {bk} rows but op(A) has {k} columns");
    ensure!(c.rows == m && c.cols == n, "matC", "is {}x{} but op(A)·op(B) is {m}x{n}", c.rows, c.cols);
    ensure!(
        b.value_type == a.value_type,
        "matB",
        "has value type {:?} but matA has {:?} (they must match)",
        b.value_type,
        a.value_type
    );
    let precision = Precision::check(a.value_type, c.value_type, compute)?;
    trace::sizes(format_args!("C={}x{} nnz={} k={k} op={op_a:?}/{op_b:?} {precision}", c.rows, c.cols, c.nnz));
    let method = dispatch::sddmm(alg, c, precision, k);
    Ok(SddmmArgs { op_a, op_b, alpha, a, b, beta, c, precision, method })
}

/// SpGEMM: CSR only, opA = opB = N, one value type for A, B and C.
#[allow(clippy::too_many_arguments)]
pub fn spgemm_args<'a>(
    mode: PointerMode,
    op_a: spblkOperation_t,
    op_b: spblkOperation_t,
    alpha: *const c_void,
    a: &'a SpMat,
    b: &'a SpMat,
    beta: *const c_void,
    c: &'a SpMat,
    compute: spblkDataType_t,
    alg: spblkSpGEMMAlg_t,
) -> Result<SpgemmArgs<'a>> {
    for (op, arg) in [(op_a, "opA"), (op_b, "opB")] {
        if operation(op, arg)? != Operation::NonTranspose {
            return Err(Error::not_supported(format!("argument '{arg}': SpGEMM supports only NON_TRANSPOSE")));
        }
    }
    let alpha = scalar(alpha, mode, "alpha")?;
    let beta = scalar(beta, mode, "beta")?;
    let compute = DataType::decode(compute, "computeType")?;
    let method = dispatch::spgemm(SpgemmAlg::decode(alg, "alg")?)?;
    sparse_operand(a, "matA", &[Format::Csr])?;
    sparse_operand(b, "matB", &[Format::Csr])?;
    for (m, arg) in [(a, "matA"), (b, "matB"), (c, "matC")] {
        batch::single(m, arg, "SpGEMM")?;
    }
    if c.format() != Format::Csr {
        return Err(Error::not_supported(format!("argument 'matC': format {:?}; SpGEMM writes CSR", c.format())));
    }
    c.validate_shape()?;
    c.uniform_index_type("matC")?;
    ensure!(a.cols == b.rows, "matB", "has {} rows but matA has {} columns", b.rows, a.cols);
    ensure!(c.rows == a.rows && c.cols == b.cols, "matC", "is {}x{} but A·B is {}x{}", c.rows, c.cols, a.rows, b.cols);
    ensure!(b.value_type == a.value_type, "matB", "has value type {:?} but matA has {:?}", b.value_type, a.value_type);
    ensure!(c.value_type == a.value_type, "matC", "has value type {:?} but matA has {:?}", c.value_type, a.value_type);
    ensure!(
        a.uniform_index_type("matA")? == c.indices_type,
        "matC",
        "index type {:?} differs from matA's {:?}",
        c.indices_type,
        a.indices_type
    );
    let expected = if a.value_type == DataType::F64 { DataType::F64 } else { DataType::F32 };
    if !a.value_type.is_real_float() || compute != expected {
        return Err(Error::not_supported(format!(
            "SpGEMM with values {:?} and compute {compute:?} (supported: R_32F/R_16F/R_16BF with R_32F compute, R_64F with R_64F)",
            a.value_type
        )));
    }
    trace::sizes(format_args!(
        "A={}x{} nnz={} B={}x{} nnz={} {compute:?}",
        a.rows, a.cols, a.nnz, b.rows, b.cols, b.nnz
    ));
    Ok(SpgemmArgs { alpha, a, b, beta, c, compute, method })
}

/// The reuse path's set-up calls, which take no alpha, beta or compute type: alpha = 1 and
/// beta = 0 in the compute type A's values imply (R_64F for R_64F, else R_32F).
pub fn spgemm_pattern_args<'a>(
    op_a: spblkOperation_t,
    op_b: spblkOperation_t,
    a: &'a SpMat,
    b: &'a SpMat,
    c: &'a SpMat,
    alg: spblkSpGEMMAlg_t,
) -> Result<SpgemmArgs<'a>> {
    static ONE_F64: f64 = 1.0;
    static ZERO_F64: f64 = 0.0;
    static ONE_F32: f32 = 1.0;
    static ZERO_F32: f32 = 0.0;
    let (one, zero, compute) = if a.value_type == DataType::F64 {
        (&ONE_F64 as *const f64 as *const c_void, &ZERO_F64 as *const f64 as *const c_void, DataType::F64)
    } else {
        (&ONE_F32 as *const f32 as *const c_void, &ZERO_F32 as *const f32 as *const c_void, DataType::F32)
    };
    let args = spgemm_args(PointerMode::Host, op_a, op_b, one, a, b, zero, c, compute.to_c(), alg)?;
    if matches!(args.method, SpgemmMethod::BinnedHashInChunks | SpgemmMethod::Esc) {
        // ALG3's chunk_fraction comes from estimateMemory, which the reuse path has no step
        // for; ESC computes the values with the structure.
        return Err(Error::not_supported(
            "the SpGEMM reuse path takes SPBLK_SPGEMM_DEFAULT, ALG1, ALG2 or the CSR_ALG values, not ALG3 or ALG_ESC",
        ));
    }
    Ok(args)
}

/// What a SpGEMM work estimation records of its operands; later phases must match it.
pub fn spgemm_shape(args: &SpgemmArgs) -> [i64; 5] {
    [args.a.rows, args.a.cols, args.b.cols, args.a.nnz, args.b.nnz]
}

/// A later phase's operands against the work estimation's.
pub fn spgemm_same_shape(args: &SpgemmArgs, recorded: Option<[i64; 5]>) -> Result<()> {
    let now = spgemm_shape(args);
    match recorded {
        Some(r) if r != now => Err(Error::invalid(
            "matA",
            format!(
                "or matB differs from the work estimation's operands (A {}x{} nnz {}, B nnz {} then; \
                 A {}x{} nnz {}, B nnz {} now)",
                r[0], r[1], r[3], r[4], now[0], now[1], now[3], now[4]
            ),
        )),
        _ => Ok(()),
    }
}

/// The arrays `spblkSpGEMM_copy` writes must exist once nnz(C) is known.
pub fn spgemm_output_ready(c: &SpMat, nnz: i64) -> Result<()> {
    let SparsePattern::Csr { row_offsets, col_ind } = c.pattern else {
        return Err(Error::invalid("matC", "is not CSR"));
    };
    ensure!(c.nnz == nnz, "matC", "reports nnz {} but the product has {nnz}", c.nnz);
    ensure!(!row_offsets.is_null() || c.rows == 0, "matC", "has NULL row offsets (call spblkCsrSetPointers)");
    ensure!(!col_ind.is_null() || nnz == 0, "matC", "has NULL column indices (call spblkCsrSetPointers)");
    ensure!(!c.values.is_null() || nnz == 0, "matC", "has NULL values (call spblkCsrSetPointers)");
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn csr2csc_args(
    m: i32,
    n: i32,
    nnz: i32,
    csr_val: *const c_void,
    csr_row_ptr: *const i32,
    csr_col_ind: *const i32,
    csc_val: *mut c_void,
    csc_col_ptr: *mut i32,
    csc_row_ind: *mut i32,
    val_type: spblkDataType_t,
    copy_values: spblkAction_t,
    idx_base: spblkIndexBase_t,
    alg: spblkCsr2CscAlg_t,
) -> Result<Csr2CscArgs> {
    let value_type = DataType::decode(val_type, "valType")?;
    let action = Action::decode(copy_values, "copyValues")?;
    let base = IndexBase::decode(idx_base, "idxBase")?;
    let Csr2CscAlg::Alg1 = Csr2CscAlg::decode(alg, "alg")?;
    trace::sizes(format_args!("{m}x{n} nnz={nnz} {value_type:?} {action:?}"));
    ensure!(m >= 0, "m", "must be >= 0 (got {m})");
    ensure!(n >= 0, "n", "must be >= 0 (got {n})");
    ensure!(nnz >= 0, "nnz", "must be >= 0 (got {nnz})");
    if m > 0 && n > 0 {
        ensure!(!csr_row_ptr.is_null(), "csrRowPtr", "is NULL");
        ensure!(!csc_col_ptr.is_null(), "cscColPtr", "is NULL");
        if nnz > 0 {
            ensure!(!csr_col_ind.is_null(), "csrColInd", "is NULL with nnz = {nnz}");
            ensure!(!csc_row_ind.is_null(), "cscRowInd", "is NULL with nnz = {nnz}");
            if action == Action::Numeric {
                ensure!(!csr_val.is_null(), "csrVal", "is NULL with nnz = {nnz} and SPBLK_ACTION_NUMERIC");
                ensure!(!csc_val.is_null(), "cscVal", "is NULL with nnz = {nnz} and SPBLK_ACTION_NUMERIC");
            }
        }
    }
    Ok(Csr2CscArgs {
        m: m as i64,
        n: n as i64,
        nnz: nnz as i64,
        csr_val,
        csr_row_ptr,
        csr_col_ind,
        csc_val,
        csc_col_ptr,
        csc_row_ind,
        value_type,
        action,
        base,
    })
}
