//! `spblk-bench --vbr`: the experiment of the 1-SA paper (Sylos Labini et al., *Blocking
//! Techniques for Sparse Matrix Multiplication on Tensor Accelerators*): SpMM C = A·B on
//! variable-row blocks found by 1-SA (`spblkAnalyze` + `SPBLK_SPMM_ALG_VBR`) against spblk's
//! CSR SpMM, its default algorithm on the analysed descriptor, cuSPARSE's CSR SpMM and cuBLAS's
//! dense GEMM of the whole matrix, in one process on one stream, with the 1-SA statistics, the
//! analysis time and its break-even point, and the accuracy of every result against exact
//! products. See docs/benchmarks.md ("VBR / 1-SA").
//!
//! Per matrix and input type (f16, bf16 or f32; tf32 shares f32's inputs) the sparse data is
//! uploaded once and analysed once; per dense width N, B and C are made and every library is
//! prepared, checked once on a poisoned C, then timed (`timing`).

pub mod accuracy;
pub mod calls;
pub mod opts;
pub mod report;
pub mod timing;

use std::io::Write as _;
use std::time::Instant;

use spblk::capi::analyze::spblkAnalysisParams;
use spblk::capi::types::*;

use crate::cublas::{Compute, Cublas};
use crate::cusp::Cusparse;
use crate::gen::{values_f64, Pattern, Spec};
use crate::gpu::{DevBuf, Gpu};
use crate::spb::Spblk;
use calls::{Analysis, CsCsr, CsSpmm, Fail, Gemm, Shape, SpbCsr, SpbSpmm, Vt, R};
pub use opts::Opts;
use timing::{Policy, Timing};

/// A precision of the experiment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prec {
    /// f16 A and B, f32 accumulation (C f32, or f16 where cuSPARSE needs it).
    F16,
    /// bf16 A and B, f32 accumulation.
    Bf16,
    /// f32 A and B; spblk's VBR f32-accurate (split TF32).
    F32,
    /// f32 A and B; spblk's VBR_TF32 (one TF32 product), cuBLAS FAST_TF32.
    Tf32,
}

impl Prec {
    pub fn parse(s: &str) -> Option<Prec> {
        match s {
            "f16" => Some(Prec::F16),
            "bf16" => Some(Prec::Bf16),
            "f32" => Some(Prec::F32),
            "tf32" => Some(Prec::Tf32),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Prec::F16 => "f16",
            Prec::Bf16 => "bf16",
            Prec::F32 => "f32",
            Prec::Tf32 => "tf32",
        }
    }
    /// "f16", or "f16→f16" when C is not f32.
    pub fn label(self, out: Vt) -> String {
        if out == Vt::F32 {
            self.name().into()
        } else {
            format!("{}→{}", self.name(), out.name())
        }
    }
    pub fn input(self) -> Vt {
        match self {
            Prec::F16 => Vt::F16,
            Prec::Bf16 => Vt::BF16,
            Prec::F32 | Prec::Tf32 => Vt::F32,
        }
    }
    /// Unit roundoff of the values the products see: 2^-11 (f16, tf32), 2^-8 (bf16), 2^-24.
    pub fn input_rounding(self) -> f64 {
        match self {
            Prec::F16 | Prec::Tf32 => 2f64.powi(-11),
            Prec::Bf16 => 2f64.powi(-8),
            Prec::F32 => 2f64.powi(-24),
        }
    }
    /// The largest accepted error of this precision's VBR result (relative to Σ|a||b|).
    pub fn threshold(self) -> f64 {
        match self {
            Prec::F16 | Prec::Bf16 => 1e-2,
            Prec::Tf32 => 1e-3,
            Prec::F32 => 1e-5,
        }
    }
    pub fn vbr_alg(self) -> spblkSpMMAlg_t {
        if self == Prec::Tf32 {
            SPBLK_SPMM_ALG_VBR_TF32
        } else {
            SPBLK_SPMM_ALG_VBR
        }
    }
    pub fn compute(self) -> Compute {
        if self == Prec::Tf32 {
            Compute::F32FastTf32
        } else {
            Compute::F32
        }
    }
}

/// Threshold of a result computed in f32 arithmetic from inputs of type `vt`.
fn arith_tol(vt: Vt) -> f64 {
    if vt == Vt::F32 {
        1e-5
    } else {
        1e-2
    }
}

/// How one library's call ended.
#[derive(Clone, Debug, PartialEq)]
pub enum State {
    NotRun,
    Ok,
    /// The library refuses the combination ("n/a").
    NotSupported(String),
    /// Not run: memory, or a failed prerequisite.
    Skipped(String),
    Error(String),
}

/// One library in one case.
#[derive(Clone, Debug)]
pub struct Meas {
    pub state: State,
    pub t: Timing,
    /// Largest relative error on the sampled entries; NaN when not checked.
    pub err: f64,
    pub tol: f64,
    /// What was called (algorithm or compute type).
    pub alg: String,
    /// The method spblk reports it ran (from its trace), for spblk's calls.
    pub method: Option<String>,
}

impl Meas {
    fn new(state: State, tol: f64, alg: String) -> Meas {
        Meas { state, t: Timing::default(), err: f64::NAN, tol, alg, method: None }
    }
    fn not_run() -> Meas {
        Meas::new(State::NotRun, f64::NAN, String::new())
    }
    fn failed(f: Fail, tol: f64, alg: String) -> Meas {
        let state = match f {
            Fail::NotSupported(m) => State::NotSupported(m),
            Fail::NoMemory(m) => State::Skipped(format!("out of device memory: {m}")),
            Fail::Error(m) => State::Error(m),
        };
        Meas::new(state, tol, alg)
    }
    /// The median in ms, NaN unless it ran.
    pub fn ms(&self) -> f64 {
        if self.state == State::Ok {
            self.t.median_ms
        } else {
            f64::NAN
        }
    }
    /// Ran, and its error exceeds the threshold (or it was not written: infinite).
    pub fn accuracy_failed(&self) -> bool {
        self.state == State::Ok && (self.err.is_nan() || self.err > self.tol)
    }
}

/// One (matrix, N, precision) of the experiment.
#[derive(Clone, Debug)]
pub struct Row {
    pub matrix: String,
    pub family: String,
    pub spec: String,
    pub rows: usize,
    pub cols: usize,
    pub nnz: usize,
    pub max_row: usize,
    pub theta: Option<f64>,
    pub rho: Option<f64>,
    pub delta: Option<usize>,
    pub n: usize,
    pub prec: Prec,
    pub input: Vt,
    pub output: Vt,
    pub analysis: Option<Analysis>,
    pub analysis_note: String,
    pub vbr: Meas,
    pub csr: Meas,
    pub default: Meas,
    pub cusparse: Meas,
    pub cublas: Meas,
    pub sampled_rows: usize,
    /// Workspace sizes, "lib=bytes;…".
    pub buffers: String,
    pub note: String,
}

impl Row {
    /// Time of `other` / time of VBR (> 1: VBR faster).
    pub fn speedup(&self, other: &Meas) -> f64 {
        other.ms() / self.vbr.ms()
    }
    /// DEFAULT / min(CSR, VBR): 1 when the default chose the faster of the two.
    pub fn default_over_best(&self) -> f64 {
        let best = [self.csr.ms(), self.vbr.ms()].into_iter().filter(|x| x.is_finite()).fold(f64::NAN, f64::min);
        self.default.ms() / best
    }
    /// VBR's rate counting every stored block entry (2·stored·N).
    pub fn vbr_tflops(&self) -> f64 {
        match &self.analysis {
            Some(a) => 2.0 * a.stored * self.n as f64 / (self.vbr.ms() * 1e-3) / 1e12,
            None => f64::NAN,
        }
    }
    /// The rate of useful work, 2·nnz·N.
    pub fn tflops_useful(&self, m: &Meas) -> f64 {
        2.0 * self.nnz as f64 * self.n as f64 / (m.ms() * 1e-3) / 1e12
    }
    /// cuBLAS's rate on the dense product, 2·rows·cols·N.
    pub fn cublas_tflops(&self) -> f64 {
        2.0 * self.rows as f64 * self.cols as f64 * self.n as f64 / (self.cublas.ms() * 1e-3) / 1e12
    }
    /// SpMM calls after which analysing paid off against `other`: analysis time / (t_other −
    /// t_VBR). `Some(inf)`: never (VBR not faster); `None`: no data.
    pub fn breakeven(&self, other: &Meas) -> Option<f64> {
        let a = self.analysis.as_ref()?;
        let (to, tv) = (other.ms(), self.vbr.ms());
        if !to.is_finite() || !tv.is_finite() {
            return None;
        }
        Some(if tv < to { a.wall_s / ((to - tv) * 1e-3) } else { f64::INFINITY })
    }
    /// What DEFAULT ran: from spblk's trace, else "≈CSR"/"≈VBR" when its time is within 3% of
    /// one of them, else empty.
    pub fn default_pick(&self) -> String {
        if let Some(m) = &self.default.method {
            return match m.as_str() {
                "CsrRows" => "CSR".into(),
                "Vbr" => "VBR".into(),
                "VbrTf32" => "VBR_TF32".into(),
                other => other.into(),
            };
        }
        let d = self.default.ms();
        let near = |x: f64| x.is_finite() && (d / x - 1.0).abs() < 0.03;
        if near(self.csr.ms()) {
            "≈CSR".into()
        } else if near(self.vbr.ms()) {
            "≈VBR".into()
        } else {
            String::new()
        }
    }
    pub fn all(&self) -> [(&'static str, &Meas); 5] {
        [
            ("VBR", &self.vbr),
            ("CSR", &self.csr),
            ("DEFAULT", &self.default),
            ("cuSPARSE", &self.cusparse),
            ("cuBLAS", &self.cublas),
        ]
    }
    pub fn accuracy_failed(&self) -> bool {
        self.all().iter().any(|(_, m)| m.accuracy_failed())
    }
    pub fn errored(&self) -> bool {
        self.all().iter().any(|(_, m)| matches!(m.state, State::Error(_)))
    }
    /// "ok", or "FAIL: VBR 3e-2 > 1e-2; …".
    pub fn check_text(&self) -> String {
        let bad: Vec<String> = self
            .all()
            .iter()
            .filter(|(_, m)| m.accuracy_failed())
            .map(|(n, m)| format!("{n} {:.1e} > {:.0e}", m.err, m.tol))
            .collect();
        let checked = self.all().iter().any(|(_, m)| m.state == State::Ok);
        if !bad.is_empty() {
            format!("FAIL: {}", bad.join("; "))
        } else if checked {
            "ok".into()
        } else {
            "-".into()
        }
    }
    /// Why things did not run, and notes.
    pub fn messages(&self) -> Vec<String> {
        let mut v = Vec::new();
        if !self.analysis_note.is_empty() {
            v.push(format!("analysis: {}", self.analysis_note));
        }
        for (n, m) in self.all() {
            match &m.state {
                State::NotSupported(s) => v.push(format!("{n} n/a: {s}")),
                State::Skipped(s) => v.push(format!("{n} skipped: {s}")),
                State::Error(s) => v.push(format!("{n} ERROR: {s}")),
                _ => {}
            }
        }
        if !self.note.is_empty() {
            v.push(self.note.clone());
        }
        v
    }
}

/// A matrix of the experiment and its dense widths.
#[derive(Clone, Debug)]
pub struct MatCase {
    pub spec: Spec,
    pub theta: Option<f64>,
    pub rho: Option<f64>,
    pub delta: Option<usize>,
    pub widths: Vec<usize>,
}

/// The synthetic grid (unless `--vbr-no-synthetic`), then the Matrix Market files.
pub fn cases(o: &Opts, mtx: &[String]) -> Vec<MatCase> {
    let mut v = Vec::new();
    if o.synthetic {
        for &n in &o.n_list() {
            for &theta in &o.theta_list() {
                for &rho in &o.rho_list() {
                    v.push(MatCase {
                        spec: Spec::Block { n, delta: o.delta, theta, rho, seed: 1 },
                        theta: Some(theta),
                        rho: Some(rho),
                        delta: Some(o.delta),
                        widths: o.synthetic_widths(),
                    });
                }
            }
        }
    }
    for path in mtx {
        v.push(MatCase {
            spec: Spec::Mtx { path: path.clone() },
            theta: None,
            rho: None,
            delta: None,
            widths: o.mtx_widths(),
        });
    }
    v
}

/// The input types to run, each with its precisions, in the order asked for.
pub fn groups(types: &[Prec]) -> Vec<(Vt, Vec<Prec>)> {
    let mut g: Vec<(Vt, Vec<Prec>)> = Vec::new();
    for &p in types {
        match g.iter_mut().find(|(vt, _)| *vt == p.input()) {
            Some((_, v)) => {
                if !v.contains(&p) {
                    v.push(p)
                }
            }
            None => g.push((p.input(), vec![p])),
        }
    }
    g
}

/// The calls of one input type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lib {
    Vbr(Prec),
    Csr,
    Default,
    Cusparse,
    Cublas(Compute),
}

fn libs_for(precs: &[Prec]) -> Vec<Lib> {
    let mut v: Vec<Lib> = precs.iter().map(|&p| Lib::Vbr(p)).collect();
    v.extend([Lib::Csr, Lib::Default, Lib::Cusparse]);
    for p in precs {
        if !v.contains(&Lib::Cublas(p.compute())) {
            v.push(Lib::Cublas(p.compute()));
        }
    }
    v
}

fn gb(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.2} GB", bytes / 1e9)
    } else {
        format!("{:.1} MB", bytes / 1e6)
    }
}

/// A different value stream for every (matrix, input type, operand).
fn stream(case: usize, vt: Vt, operand: u64) -> u64 {
    ((case as u64) << 12) | ((vt as u64) << 8) | operand
}

/// Device memory kept free beyond what a step allocates (workspaces, the libraries' own).
const MARGIN: usize = 1 << 30;

/// Everything the run shares.
pub struct Env<'a> {
    pub gpu: &'a Gpu,
    pub spblk: Option<&'a Spblk>,
    pub cusparse: Option<&'a Cusparse>,
    pub cublas: Option<&'a Cublas>,
    pub o: &'a Opts,
    pub seed: u64,
    pub pol: Policy,
    pub params: spblkAnalysisParams,
    flush: Option<DevBuf>,
    /// Output type for each input type (f32 unless decided otherwise at start).
    outs: Vec<(Vt, Vt)>,
    pub notes: Vec<String>,
}

impl<'a> Env<'a> {
    /// Allocates the L2 flush buffer and decides C's type for half inputs.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        gpu: &'a Gpu,
        spblk: Option<&'a Spblk>,
        cusparse: Option<&'a Cusparse>,
        cublas: Option<&'a Cublas>,
        o: &'a Opts,
        seed: u64,
        pol: Policy,
    ) -> Result<Env<'a>, String> {
        let params = calls::analysis_params().map_err(|f| f.msg().to_string())?;
        let flush = if o.flush_l2 {
            let bytes = (2 * gpu.l2_bytes).max(8 << 20).next_multiple_of(4);
            Some(gpu.alloc(bytes)?)
        } else {
            None
        };
        let mut env =
            Env { gpu, spblk, cusparse, cublas, o, seed, pol, params, flush, outs: Vec::new(), notes: Vec::new() };
        for (vt, _) in groups(&o.types) {
            if vt == Vt::F32 {
                continue;
            }
            let (out, why) = env.half_out(vt);
            env.outs.push((vt, out));
            env.notes.push(why);
        }
        Ok(env)
    }

    fn out_for(&self, vt: Vt) -> Vt {
        self.outs.iter().find(|(i, _)| *i == vt).map(|(_, o)| *o).unwrap_or(Vt::F32)
    }

    /// C's type for `vt` inputs: f32 when cuSPARSE's CSR SpMM takes `vt` inputs with an f32
    /// C and f32 compute (tried on a small matrix), else `vt` (both with f32 compute), so that
    /// every library gets the same types.
    fn half_out(&self, vt: Vt) -> (Vt, String) {
        use opts::HalfOut;
        let name = vt.name();
        match self.o.half_out {
            HalfOut::F32 => return (Vt::F32, format!("{name} inputs: C f32 (--vbr-half-out f32)")),
            HalfOut::Same => return (vt, format!("{name} inputs: C {name} (--vbr-half-out same)")),
            HalfOut::Auto => {}
        }
        let Some(cusp) = self.cusparse else {
            return (Vt::F32, format!("{name} inputs: C f32 (cuSPARSE not loaded, nothing to probe)"));
        };
        let try_out = |out: Vt| -> R<&'static str> {
            let p = crate::gen::uniform(256, 256, 8, 1);
            let n = 128usize;
            let g = self.gpu;
            let (ptr, col) = (g.upload(&p.ptr)?, g.upload(&p.col)?);
            let val = g.upload(&vt.encode(&vec![0.5; p.nnz()]))?;
            let b = g.upload(&vt.encode(&vec![0.5; p.cols * n]))?;
            let c = g.alloc(p.rows * n * out.size())?;
            let s = Shape { rows: p.rows as i64, cols: p.cols as i64, n: n as i64 };
            // SAFETY: device arrays of the stated sizes, alive through the calls.
            let a = unsafe { CsCsr::new(s.rows, s.cols, p.nnz() as i64, ptr.ptr, col.ptr, val.ptr, vt)? };
            // SAFETY: as above.
            let mut call = unsafe { CsSpmm::new(cusp.raw(), g, &a, b.ptr, c.ptr, s, out)? };
            calls::Call::run(&mut call)?;
            g.sync()?;
            let got = vt_read(g, c.ptr, out, 4)?;
            if got.iter().any(|&x| (x - 2.0).abs() > 1e-3) {
                return Err(Fail::Error(format!("probe computed {got:?}, expected 2.0")));
            }
            Ok(call.alg_name)
        };
        match try_out(Vt::F32) {
            Ok(alg) => (Vt::F32, format!("{name} inputs: C f32, compute f32 (cuSPARSE accepts it: {alg})")),
            Err(e32) => match try_out(vt) {
                Ok(alg) => (
                    vt,
                    format!(
                        "{name} inputs: C {name}, compute f32, for every library: cuSPARSE refused C f32 ({}); \
                         it accepts C {name} ({alg})",
                        e32.msg()
                    ),
                ),
                Err(e) => (
                    Vt::F32,
                    format!(
                        "{name} inputs: C f32; cuSPARSE refused both C f32 ({}) and C {name} ({}): its {name} \
                         column will be n/a",
                        e32.msg(),
                        e.msg()
                    ),
                ),
            },
        }
    }
}

/// `count` values of type `vt` at device address `ptr`, as f64.
fn vt_read(gpu: &Gpu, ptr: u64, vt: Vt, count: usize) -> R<Vec<f64>> {
    Ok(vt.decode(&gpu.download::<u8>(ptr, count * vt.size())?))
}

/// C and what is needed to check it.
struct Out<'r> {
    ptr: u64,
    bytes: usize,
    n: usize,
    vt: Vt,
    reference: &'r accuracy::Reference,
}

/// Prepared call → checked run on a poisoned C → timed runs.
fn measure(env: &Env, call: R<Box<dyn calls::Call + '_>>, spblk: bool, c: &Out, tol: f64, alg: String) -> Meas {
    let mut call = match call {
        Ok(c) => c,
        Err(f) => return Meas::failed(f, tol, alg),
    };
    let gpu = env.gpu;
    let mut m = Meas::new(State::Ok, tol, alg);
    let checked = (|| -> R<f64> {
        gpu.fill_u32(c.ptr, u32::MAX, c.bytes / 4)?;
        let (r, method) = if spblk { calls::spblk_method(|| call.run()) } else { (call.run(), None) };
        m.method = method;
        r?;
        gpu.sync()?;
        let row_bytes = c.n * c.vt.size();
        let mut got = Vec::with_capacity(c.reference.rows.len() * c.n);
        for &i in &c.reference.rows {
            got.extend(c.vt.decode(&gpu.download::<u8>(c.ptr + (i * row_bytes) as u64, row_bytes)?));
        }
        Ok(accuracy::max_rel_err(c.reference, &got))
    })();
    match checked {
        Ok(e) => m.err = e,
        Err(f) => return Meas { method: m.method, ..Meas::failed(f, tol, m.alg) },
    }
    match timing::time(gpu, &env.pol, env.flush.as_ref(), call.as_mut()) {
        Ok(t) => m.t = t,
        Err(f) => return Meas { err: m.err, method: m.method, ..Meas::failed(f, tol, m.alg) },
    }
    m
}

/// A generated or read matrix.
pub struct Mat {
    pub case: MatCase,
    pub name: String,
    pub p: Pattern,
}

/// Rows for every (N, precision) of a group that did not run, all with `state`.
#[allow(clippy::too_many_arguments)]
fn blank_rows(
    m: &Mat,
    widths: &[usize],
    precs: &[Prec],
    vt: Vt,
    out: Vt,
    state: &State,
    analysis: Option<Analysis>,
) -> Vec<Row> {
    let mut v = Vec::new();
    for &n in widths {
        for &prec in precs {
            let meas = |tol: f64| Meas::new(state.clone(), tol, String::new());
            v.push(Row {
                matrix: m.name.clone(),
                family: m.case.spec.family().into(),
                spec: m.case.spec.text(),
                rows: m.p.rows,
                cols: m.p.cols,
                nnz: m.p.nnz(),
                max_row: m.p.max_row_len(),
                theta: m.case.theta,
                rho: m.case.rho,
                delta: m.case.delta,
                n,
                prec,
                input: vt,
                output: out,
                analysis,
                analysis_note: String::new(),
                vbr: meas(prec.threshold()),
                csr: meas(arith_tol(vt)),
                default: meas(arith_tol(vt)),
                cusparse: meas(arith_tol(vt)),
                cublas: meas(if prec == Prec::Tf32 { 1e-3 } else { arith_tol(vt) }),
                sampled_rows: 0,
                buffers: String::new(),
                note: String::new(),
            });
        }
    }
    v
}

/// Largest dense copy of A built on the host when cuSPARSE cannot build it.
const HOST_DENSE_MAX: usize = 16 << 30;

/// The dense copy of A for cuBLAS: cuSPARSE's SparseToDense, or built on the host (up to
/// 16 GiB) when cuSPARSE is missing or refuses the type; the flag says which.
fn dense_copy(env: &Env, m: &Mat, cs_a: Option<&CsCsr>, vals: &[u8], vt: Vt) -> R<(DevBuf, bool)> {
    let p = &m.p;
    let bytes = p.rows * p.cols * vt.size();
    let buf = env.gpu.alloc(bytes)?;
    if let (Some(cusp), Some(a)) = (env.cusparse, cs_a) {
        // SAFETY: buf holds rows × cols values of vt.
        match unsafe { calls::cs_to_dense(cusp.raw(), env.gpu, a, p.rows as i64, p.cols as i64, buf.ptr) } {
            Ok(()) => return Ok((buf, false)),
            Err(Fail::NotSupported(_)) => {}
            Err(e) => return Err(e),
        }
    }
    if bytes > HOST_DENSE_MAX {
        return Err(Fail::NotSupported(format!(
            "dense A ({}) not built: cuSPARSE SparseToDense unavailable and too large to build on the host",
            gb(bytes as f64)
        )));
    }
    let s = vt.size();
    let mut host = vec![0u8; bytes];
    for i in 0..p.rows {
        for e in p.ptr[i] as usize..p.ptr[i + 1] as usize {
            let at = (i * p.cols + p.col[e] as usize) * s;
            host[at..at + s].copy_from_slice(&vals[e * s..(e + 1) * s]);
        }
    }
    drop(buf);
    Ok((env.gpu.upload(&host)?, true))
}

/// One matrix, one input type: upload, analyse, then every dense width.
fn run_group(env: &Env, m: &Mat, case_idx: usize, vt: Vt, precs: &[Prec]) -> Vec<Row> {
    let gpu = env.gpu;
    let p = &m.p;
    let out = env.out_for(vt);
    let (rows, cols, nnz) = (p.rows, p.cols, p.nnz());
    let s_in = vt.size();
    let csr_bytes = 4 * (rows + 1) + 4 * nnz + s_in * nnz;
    let free = gpu.mem_info().map(|f| f.0).unwrap_or(0);
    if csr_bytes + MARGIN > free {
        let why = format!("A in CSR needs {}, {} free", gb(csr_bytes as f64), gb(free as f64));
        return blank_rows(m, &m.case.widths, precs, vt, out, &State::Skipped(why), None);
    }
    let a: Vec<f64> = values_f64(nnz, env.seed, stream(case_idx, vt, 0)).into_iter().map(|x| vt.round(x)).collect();
    let a_bytes = vt.encode(&a);
    let up =
        (|| -> R<(DevBuf, DevBuf, DevBuf)> { Ok((gpu.upload(&p.ptr)?, gpu.upload(&p.col)?, gpu.upload(&a_bytes)?)) })();
    let (d_ptr, d_col, d_val) = match up {
        Ok(x) => x,
        Err(f) => {
            let st = Meas::failed(f, 0.0, String::new()).state;
            return blank_rows(m, &m.case.widths, precs, vt, out, &st, None);
        }
    };
    let (r64, c64, z64) = (rows as i64, cols as i64, nnz as i64);
    // spblk: one descriptor, analysed, shared by VBR, CSR_ALG1 and DEFAULT (each with its own
    // workspace and preprocess), as an application would.
    let mut analysis_note = String::new();
    let spb_a: Option<R<SpbCsr>> =
        // SAFETY: device arrays of the stated sizes, alive until the end of this function.
        env.spblk.map(|_| unsafe { SpbCsr::new(r64, c64, z64, d_ptr.ptr, d_col.ptr, d_val.ptr, vt) });
    let mut analysis: R<Analysis> = Err(Fail::Error("spblk not loaded".into()));
    if let (Some(s), Some(Ok(a))) = (env.spblk, &spb_a) {
        analysis = gpu.sync().map_err(Fail::from).and_then(|_| calls::analyze(s.raw(), a, &env.params));
        if let Err(f) = &analysis {
            analysis_note = f.msg().to_string();
        }
    }
    let cs_a: Option<R<CsCsr>> =
        // SAFETY: as above.
        env.cusparse.map(|_| unsafe { CsCsr::new(r64, c64, z64, d_ptr.ptr, d_col.ptr, d_val.ptr, vt) });
    // cuBLAS: the whole matrix dense, once per input type, if it fits beside the largest B, C.
    let max_bc = m.case.widths.iter().map(|&n| cols * n * s_in + rows * n * out.size()).max().unwrap_or(0);
    let dense_bytes = rows * cols * s_in;
    let wants_dense = env.cublas.is_some() && env.o.dense;
    let dense: R<(DevBuf, bool)> = if !wants_dense {
        Err(Fail::NotSupported(if env.o.dense { "cuBLAS not loaded".into() } else { "--vbr-no-dense".into() }))
    } else {
        let free = gpu.mem_info().map(|f| f.0).unwrap_or(0);
        if dense_bytes + max_bc + MARGIN > free {
            Err(Fail::NoMemory(format!(
                "dense A needs {}, {} free beside the largest B and C ({})",
                gb(dense_bytes as f64),
                gb(free as f64),
                gb(max_bc as f64)
            )))
        } else {
            dense_copy(env, m, cs_a.as_ref().and_then(|r| r.as_ref().ok()), &a_bytes, vt)
        }
    };
    let mut out_rows = Vec::new();
    for (wi, &n) in m.case.widths.iter().enumerate() {
        let shape = Shape { rows: r64, cols: c64, n: n as i64 };
        let b_bytes = cols * n * s_in;
        let c_bytes = (rows * n * out.size()).next_multiple_of(4);
        let free = gpu.mem_info().map(|f| f.0).unwrap_or(0);
        if b_bytes + c_bytes + MARGIN > free {
            let why = format!("B and C need {}, {} free", gb((b_bytes + c_bytes) as f64), gb(free as f64));
            let an = analysis.as_ref().ok().copied();
            out_rows.extend(blank_rows(m, &[n], precs, vt, out, &State::Skipped(why), an));
            continue;
        }
        let b: Vec<f64> = values_f64(cols * n, env.seed, stream(case_idx, vt, 1 + wi as u64))
            .into_iter()
            .map(|x| vt.round(x))
            .collect();
        let bc = (|| -> R<(DevBuf, DevBuf)> { Ok((gpu.upload(&vt.encode(&b))?, gpu.alloc(c_bytes)?)) })();
        let (d_b, d_c) = match bc {
            Ok(x) => x,
            Err(f) => {
                let st = Meas::failed(f, 0.0, String::new()).state;
                out_rows.extend(blank_rows(m, &[n], precs, vt, out, &st, analysis.as_ref().ok().copied()));
                continue;
            }
        };
        let sample = accuracy::sample(p, env.o.sample_rows, env.seed);
        let reference = accuracy::reference(p, &a, &b, n, &sample);
        drop(b);
        let c = Out { ptr: d_c.ptr, bytes: c_bytes, n, vt: out, reference: &reference };
        let mut results: Vec<(Lib, Meas)> = Vec::new();
        let mut buffers = Vec::new();
        for lib in libs_for(precs) {
            let meas = match lib {
                Lib::Vbr(_) | Lib::Csr | Lib::Default if env.spblk.is_none() => Meas::not_run(),
                Lib::Vbr(prec) => {
                    let alg = prec.vbr_alg();
                    let name = calls::spblk_alg_name(alg).to_string();
                    match (&spb_a, &analysis) {
                        (Some(Ok(a)), Ok(_)) => {
                            // SAFETY: B and C hold cols × n and rows × n values of their types.
                            let call = unsafe {
                                SpbSpmm::new(env.spblk.unwrap().raw(), gpu, a, d_b.ptr, d_c.ptr, shape, out, alg)
                            };
                            if let Ok(c) = &call {
                                buffers.push(format!("{}={}", name, calls::Call::buffer_bytes(c)));
                            }
                            measure(
                                env,
                                call.map(|c| Box::new(c) as Box<dyn calls::Call>),
                                true,
                                &c,
                                prec.threshold(),
                                name,
                            )
                        }
                        // No descriptor or no analysis: VBR cannot run; the reason (an error
                        // stays an error) is the analysis'.
                        (Some(Err(f)), _) | (_, Err(f)) => Meas::failed(f.clone(), prec.threshold(), name),
                        (None, _) => Meas::not_run(),
                    }
                }
                Lib::Csr | Lib::Default => {
                    let alg = if lib == Lib::Csr { SPBLK_SPMM_CSR_ALG1 } else { SPBLK_SPMM_ALG_DEFAULT };
                    let name = calls::spblk_alg_name(alg).to_string();
                    match &spb_a {
                        Some(Ok(a)) => {
                            // SAFETY: as above.
                            let call = unsafe {
                                SpbSpmm::new(env.spblk.unwrap().raw(), gpu, a, d_b.ptr, d_c.ptr, shape, out, alg)
                            };
                            if let Ok(c) = &call {
                                buffers.push(format!("{}={}", name, calls::Call::buffer_bytes(c)));
                            }
                            measure(
                                env,
                                call.map(|c| Box::new(c) as Box<dyn calls::Call>),
                                true,
                                &c,
                                arith_tol(vt),
                                name,
                            )
                        }
                        Some(Err(f)) => Meas::failed(f.clone(), arith_tol(vt), name),
                        None => Meas::not_run(),
                    }
                }
                Lib::Cusparse => match (env.cusparse, &cs_a) {
                    (Some(cusp), Some(Ok(a))) => {
                        // SAFETY: as above.
                        let call = unsafe { CsSpmm::new(cusp.raw(), gpu, a, d_b.ptr, d_c.ptr, shape, out) };
                        let name = call.as_ref().map(|c| c.alg_name.to_string()).unwrap_or_default();
                        if let Ok(c) = &call {
                            buffers.push(format!("cuSPARSE={}", calls::Call::buffer_bytes(c)));
                        }
                        measure(env, call.map(|c| Box::new(c) as Box<dyn calls::Call>), false, &c, arith_tol(vt), name)
                    }
                    (Some(_), Some(Err(f))) => Meas::failed(f.clone(), arith_tol(vt), String::new()),
                    _ => Meas::not_run(),
                },
                Lib::Cublas(compute) => {
                    let tol = if compute == Compute::F32FastTf32 { 1e-3 } else { arith_tol(vt) };
                    let name = compute.name().to_string();
                    match (env.cublas, &dense) {
                        (Some(cublas), Ok((d, _))) => {
                            let call = Gemm {
                                cublas,
                                s: shape,
                                a: d.ptr,
                                b: d_b.ptr,
                                c: d_c.ptr,
                                input: vt,
                                output: out,
                                compute,
                            };
                            measure(env, Ok(Box::new(call)), false, &c, tol, name)
                        }
                        (Some(_), Err(f)) => Meas::failed(f.clone(), tol, name),
                        (None, _) => Meas::not_run(),
                    }
                }
            };
            results.push((lib, meas));
        }
        let take = |l: Lib| results.iter().find(|(x, _)| *x == l).map(|(_, m)| m.clone()).unwrap_or_else(Meas::not_run);
        for &prec in precs {
            out_rows.push(Row {
                matrix: m.name.clone(),
                family: m.case.spec.family().into(),
                spec: m.case.spec.text(),
                rows,
                cols,
                nnz,
                max_row: p.max_row_len(),
                theta: m.case.theta,
                rho: m.case.rho,
                delta: m.case.delta,
                n,
                prec,
                input: vt,
                output: out,
                analysis: analysis.as_ref().ok().copied(),
                analysis_note: analysis_note.clone(),
                vbr: take(Lib::Vbr(prec)),
                csr: take(Lib::Csr),
                default: take(Lib::Default),
                cusparse: take(Lib::Cusparse),
                cublas: take(Lib::Cublas(prec.compute())),
                sampled_rows: reference.rows.len(),
                buffers: buffers.join(";"),
                note: if matches!(dense, Ok((_, true))) {
                    "dense A for cuBLAS built on the host (cuSPARSE SparseToDense unavailable)".into()
                } else {
                    String::new()
                },
            });
        }
    }
    out_rows
}

/// The line printed as each row is done.
fn progress_line(i: usize, r: &Row) -> String {
    let t = |m: &Meas| {
        let mut s = match &m.state {
            State::Ok => report::ms(m.t.median_ms),
            State::NotRun => "-".into(),
            State::NotSupported(_) => "n/a".into(),
            State::Skipped(_) => "skip".into(),
            State::Error(_) => "ERROR".into(),
        };
        if m.state == State::Ok {
            s.push_str(&format!(" ×{}", m.t.samples.len()));
        }
        s
    };
    let an = match &r.analysis {
        Some(a) => format!("ΔH' {:.1} ρ' {:.3} analysis {:.3} s", a.dh, a.rho, a.wall_s),
        None => "no analysis".into(),
    };
    let pick = r.default_pick();
    format!(
        "[{i:4}] {} N={} {}: {an} | VBR {} | CSR {} | DEF {}{} | cuSPARSE {} | cuBLAS {} | err VBR {} cuSP {} | {}",
        r.matrix,
        r.n,
        r.prec.label(r.output),
        t(&r.vbr),
        t(&r.csr),
        t(&r.default),
        if pick.is_empty() { String::new() } else { format!(" ({pick})") },
        t(&r.cusparse),
        t(&r.cublas),
        if r.vbr.err.is_nan() { "-".into() } else { format!("{:.1e}", r.vbr.err) },
        if r.cusparse.err.is_nan() { "-".into() } else { format!("{:.1e}", r.cusparse.err) },
        r.check_text()
    )
}

/// Distinct reasons why something was n/a, skipped or failed, with their counts.
fn reasons(rows: &[Row]) -> Vec<String> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for r in rows {
        for m in r.messages() {
            // Group by the first 160 characters (messages name sizes and addresses otherwise).
            let key: String = m.chars().take(160).collect();
            match seen.iter_mut().find(|(k, _)| *k == key) {
                Some((_, c)) => *c += 1,
                None => seen.push((key, 1)),
            }
        }
    }
    seen.into_iter().map(|(k, c)| format!("{c}× {k}")).collect()
}

/// Runs the experiment; returns the exit status (0 ok; 1 an accuracy check failed; 3 a call
/// failed otherwise). `header` describes the run (device, libraries, command).
pub fn run(env: &Env, cases: &[MatCase], header: &[String], out_dir: Option<&str>) -> i32 {
    let started = Instant::now();
    let mut head: Vec<String> = header.to_vec();
    head.push(format!("1-SA analysis parameters (spblk's defaults): {}", calls::params_text(&env.params)));
    head.push(format!("timing: {}", env.pol.describe()));
    head.push(match &env.flush {
        Some(f) => format!(
            "L2: a {:.0} MB buffer is written before every timed call (outside its events)",
            f.bytes as f64 / 1e6
        ),
        None => "L2: not flushed between calls (--vbr-no-flush)".into(),
    });
    head.extend(env.notes.iter().cloned());
    head.push(format!(
        "accuracy: up to {} sampled rows × all N columns against exact f64 products of the stored inputs; error = \
         max |c − exact| / Σ|a||b|; thresholds f16/bf16 1e-2, tf32 1e-3, f32 1e-5 (input-rounding bounds, not \
         counted, for reference: f16 and tf32 2^-11 = 4.9e-4, bf16 2^-8 = 3.9e-3, f32 2^-24 = 6.0e-8)",
        env.o.sample_rows
    ));
    for h in &head {
        println!("{h}");
    }
    // vbr.csv grows row by row, so that a run stopped early (a timeout) keeps what it did.
    let mut csv_file = out_dir.and_then(|dir| {
        let open = || -> std::io::Result<std::fs::File> {
            std::fs::create_dir_all(dir)?;
            let mut f = std::fs::File::create(format!("{dir}/vbr.csv"))?;
            writeln!(f, "{}", report::CSV_HEADER)?;
            Ok(f)
        };
        open().map_err(|e| eprintln!("spblk-bench: cannot write {dir}/vbr.csv: {e}")).ok()
    });
    let mut rows: Vec<Row> = Vec::new();
    let mut count = 0;
    let mut build_errors = 0;
    for (ci, case) in cases.iter().enumerate() {
        let t = Instant::now();
        let p = match case.spec.build() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("spblk-bench: {e}");
                build_errors += 1;
                continue;
            }
        };
        let m = Mat { name: case.spec.name(), case: case.clone(), p };
        println!(
            "matrix {}: {}×{}, nnz {}, max row {} (made in {:.1} s)",
            m.name,
            m.p.rows,
            m.p.cols,
            m.p.nnz(),
            m.p.max_row_len(),
            t.elapsed().as_secs_f64()
        );
        let _ = std::io::stdout().flush();
        for (vt, precs) in groups(&env.o.types) {
            for r in run_group(env, &m, ci, vt, &precs) {
                count += 1;
                println!("{}", progress_line(count, &r));
                let _ = std::io::stdout().flush();
                if let Some(f) = csv_file.as_mut() {
                    if let Err(e) = f.write_all(report::csv_line(&r).as_bytes()) {
                        eprintln!("spblk-bench: writing vbr.csv: {e}");
                        csv_file = None;
                    }
                }
                rows.push(r);
            }
        }
    }
    drop(csv_file);
    let table = report::table(&rows);
    let why = reasons(&rows);
    let failed = rows.iter().filter(|r| r.accuracy_failed()).count();
    let errors = rows.iter().filter(|r| r.errored()).count() + build_errors;
    let summary = format!(
        "{} rows ({} matrices) in {:.0} s: {} accuracy failures, {} with errors",
        rows.len(),
        cases.len(),
        started.elapsed().as_secs_f64(),
        failed,
        errors
    );
    if let Some(dir) = out_dir {
        let mut md = String::from("# spblk-bench --vbr\n\n");
        for h in &head {
            md.push_str(&format!("- {h}\n"));
        }
        md.push_str(&format!("- {summary}\n\n{}\n\n{table}\n", report::LEGEND));
        if !why.is_empty() {
            md.push_str("\nNot run, n/a, skipped or failed (count × reason):\n\n");
            for w in &why {
                md.push_str(&format!("- {}\n", w.replace('|', "\\|")));
            }
        }
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(dir)?;
            // The whole CSV again (the same lines as written along the way).
            std::fs::write(format!("{dir}/vbr.csv"), report::csv(&rows))?;
            std::fs::write(format!("{dir}/vbr.md"), md)?;
            Ok(())
        };
        match write() {
            Ok(()) => println!("results written to {dir}/vbr.csv and {dir}/vbr.md"),
            Err(e) => eprintln!("spblk-bench: writing results to {dir}: {e}"),
        }
    }
    println!("\n{table}\n{}", report::LEGEND);
    if !why.is_empty() {
        println!("\nNot run, n/a, skipped or failed (count × reason):");
        for w in &why {
            println!("  {w}");
        }
    }
    println!("\n{summary}");
    if failed > 0 {
        println!("RESULT: ACCURACY FAILURE (an error exceeded its threshold; see the check column)");
        1
    } else if errors > 0 {
        println!("RESULT: ERROR (some calls failed; see the ERROR lines)");
        3
    } else {
        println!("RESULT: OK");
        0
    }
}

/// `--vbr --dry-run`: the cases, their sizes and the device memory they need; with
/// `--vbr-host-analysis` also the 1-SA statistics from spblk's host backend (no GPU).
pub fn dry_run(o: &Opts, cases: &[MatCase]) -> i32 {
    let gs = groups(&o.types);
    println!(
        "dry run of --vbr: {} matrices, precisions {:?}; no GPU is used{}",
        cases.len(),
        o.types.iter().map(|p| p.name()).collect::<Vec<_>>(),
        if o.host_analysis { "; 1-SA on spblk's host backend (this machine)" } else { "" }
    );
    let host = if o.host_analysis {
        let mut h: spblk::capi::types::spblkHandle_t = std::ptr::null_mut();
        let st = spblk::capi::handle::spblkCreateWithBackend(&mut h, SPBLK_BACKEND_HOST);
        if let Err(f) = calls::spblk_ok(st, "spblkCreateWithBackend(HOST)") {
            eprintln!("spblk-bench: {}", f.msg());
            return 3;
        }
        Some(h)
    } else {
        None
    };
    let params = match calls::analysis_params() {
        Ok(p) => p,
        Err(f) => {
            eprintln!("spblk-bench: {}", f.msg());
            return 3;
        }
    };
    let mut total_flops = 0.0;
    let mut code = 0;
    for case in cases {
        let t = Instant::now();
        let p = match case.spec.build() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("spblk-bench: {e}");
                code = 64;
                continue;
            }
        };
        let (rows, cols, nnz) = (p.rows, p.cols, p.nnz());
        println!(
            "{}: {}×{}, nnz {}, mean row {:.1}, max row {} (made in {:.1} s)",
            case.spec.name(),
            rows,
            cols,
            nnz,
            nnz as f64 / rows.max(1) as f64,
            p.max_row_len(),
            t.elapsed().as_secs_f64()
        );
        let mut stored = f64::NAN;
        if let Some(h) = host {
            let vals = Vt::F32.encode(&values_f64(nnz, 1, 0));
            // SAFETY: host arrays of the stated sizes, alive through the analysis.
            let a = unsafe {
                SpbCsr::new(
                    rows as i64,
                    cols as i64,
                    nnz as i64,
                    p.ptr.as_ptr() as u64,
                    p.col.as_ptr() as u64,
                    vals.as_ptr() as u64,
                    Vt::F32,
                )
            };
            match a.and_then(|a| calls::analyze(h, &a, &params)) {
                Ok(x) => {
                    stored = x.stored;
                    println!(
                        "  1-SA (host): {} groups, {} blocks, ΔH' {:.2}, ρ' {:.4}, fill-in {:.2}, stored entries {:.0}, \
                         analysis {:.3} s on this machine",
                        x.groups, x.blocks, x.dh, x.rho, x.fill, x.stored, x.wall_s
                    );
                }
                Err(f) => println!("  1-SA (host) failed: {}", f.msg()),
            }
        }
        for &n in &case.widths {
            for (vt, precs) in &gs {
                let s = vt.size();
                let csr = 4 * (rows + 1) + (4 + s) * nnz;
                let bc = cols * n * s + rows * n * 4;
                let dense = rows * cols * s;
                let fl = 2.0 * nnz as f64 * n as f64;
                total_flops += fl * precs.len() as f64;
                println!(
                    "  N={n:<5} {:<9} A {} + B,C {} + dense A {}{}; 2·nnz·N {:.3} GFLOP, dense 2·n·cols·N {:.1} GFLOP",
                    precs.iter().map(|p| p.name()).collect::<Vec<_>>().join(","),
                    gb(csr as f64),
                    gb(bc as f64),
                    gb(dense as f64),
                    if stored.is_finite() { format!(" + VBR blocks {}", gb(stored * s as f64)) } else { String::new() },
                    fl / 1e9,
                    2.0 * (rows * cols * n) as f64 / 1e9
                );
            }
        }
    }
    if let Some(h) = host {
        spblk::capi::handle::spblkDestroy(h);
    }
    println!("total useful work 2·nnz·N over all cases and precisions: {:.2} TFLOP", total_flops / 1e12);
    code
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn meas(ms: f64) -> Meas {
        let mut m = Meas::new(State::Ok, 1e-5, String::new());
        m.t.median_ms = ms;
        m.err = 0.0;
        m
    }

    pub(crate) fn row() -> Row {
        Row {
            matrix: "m".into(),
            family: "block".into(),
            spec: String::new(),
            rows: 1000,
            cols: 1000,
            nnz: 10_000,
            max_row: 20,
            theta: Some(0.1),
            rho: Some(0.5),
            delta: Some(64),
            n: 128,
            prec: Prec::F32,
            input: Vt::F32,
            output: Vt::F32,
            analysis: Some(Analysis { stored: 20_000.0, wall_s: 0.01, ..Default::default() }),
            analysis_note: String::new(),
            vbr: meas(1.0),
            csr: meas(3.0),
            default: meas(3.0),
            cusparse: meas(2.0),
            cublas: meas(4.0),
            sampled_rows: 10,
            buffers: String::new(),
            note: String::new(),
        }
    }

    #[test]
    fn derived_figures() {
        let mut r = row();
        assert_eq!(r.speedup(&r.cusparse), 2.0);
        assert_eq!(r.speedup(&r.csr), 3.0);
        assert_eq!(r.default_over_best(), 3.0);
        assert!((r.vbr_tflops() - 2.0 * 20_000.0 * 128.0 / 1e-3 / 1e12).abs() < 1e-12);
        // 0.01 s / (3 ms − 1 ms) = 5 calls; against cuSPARSE 0.01 / 1 ms = 10.
        assert!((r.breakeven(&r.csr).unwrap() - 5.0).abs() < 1e-9);
        assert!((r.breakeven(&r.cusparse).unwrap() - 10.0).abs() < 1e-9);
        assert_eq!(r.default_pick(), "≈CSR");
        r.default.method = Some("Vbr".into());
        assert_eq!(r.default_pick(), "VBR");
        assert_eq!(r.check_text(), "ok");
        r.vbr = Meas::new(State::NotSupported("not yet".into()), 1e-5, String::new());
        assert!(r.breakeven(&r.csr).is_none());
        assert!(r.speedup(&r.csr).is_nan());
        assert_eq!(r.default_over_best(), 1.0, "VBR n/a: the best is CSR");
        assert!(r.messages().iter().any(|m| m.contains("VBR n/a: not yet")));
        let mut r = row();
        r.vbr.t.median_ms = 4.0;
        assert_eq!(r.breakeven(&r.csr), Some(f64::INFINITY));
        r.cusparse.err = 2e-5;
        assert!(r.accuracy_failed());
        assert!(r.check_text().starts_with("FAIL: cuSPARSE"));
        r.cusparse.err = f64::INFINITY;
        assert!(r.accuracy_failed(), "unwritten output");
    }

    #[test]
    fn grid_and_groups() {
        let mut o = Opts { on: true, ..Default::default() };
        let c = cases(&o, &["x/a.mtx".into()]);
        assert_eq!(c.len(), 2 * 3 * 6 + 1);
        assert_eq!(c[0].widths, vec![128, 1024, 4096]);
        assert_eq!(c.last().unwrap().widths, vec![128, 1024]);
        o.quick = true;
        o.synthetic = true;
        let q = cases(&o, &[]);
        assert_eq!(q.len(), 4);
        assert_eq!(q[0].spec.name(), "block-32768-d64-t0.1-r0.2");
        let g = groups(&[Prec::F16, Prec::F32, Prec::Tf32, Prec::F16]);
        assert_eq!(g, vec![(Vt::F16, vec![Prec::F16]), (Vt::F32, vec![Prec::F32, Prec::Tf32])]);
        assert_eq!(
            libs_for(&[Prec::F32, Prec::Tf32]),
            vec![
                Lib::Vbr(Prec::F32),
                Lib::Vbr(Prec::Tf32),
                Lib::Csr,
                Lib::Default,
                Lib::Cusparse,
                Lib::Cublas(Compute::F32),
                Lib::Cublas(Compute::F32FastTf32)
            ]
        );
    }

    #[test]
    fn precisions() {
        assert_eq!(Prec::Tf32.input(), Vt::F32);
        assert_eq!(Prec::Bf16.input_rounding(), 1.0 / 256.0);
        assert_eq!(Prec::Tf32.vbr_alg(), SPBLK_SPMM_ALG_VBR_TF32);
        assert_eq!(Prec::F16.label(Vt::F16), "f16→f16");
        assert_eq!(Prec::F16.label(Vt::F32), "f16");
    }
}
