//! spblk-bench: spblk's CUDA backend against cuSPARSE, same inputs, same process, same
//! stream. See `--help` and docs/benchmarks.md.

mod cases;
mod check;
mod cublas;
mod cusp;
mod dynlib;
mod gen;
mod gpu;
mod libs;
mod mtx;
mod overhead;
mod report;
mod spb;
mod stats;
mod vbr;

use std::io::Write as _;
use std::time::Instant;

use cases::{Ctx, Mat, Op, Record, Settings};
use gen::Spec;
use libs::{Api, Dt};

const USAGE: &str = "\
spblk-bench: times spblk's CUDA backend against cuSPARSE on the same inputs, in one process,
on one stream, and checks that both give the same results.

USAGE:
  spblk-bench [--quick | --full] [--mtx PATH...] [--gen SPEC...] [OPTIONS]
  spblk-bench --overhead [--device N] [--cusparse-lib PATH] [--out DIR] [--baseline-only]
  spblk-bench --vbr | --vbr-quick [--mtx PATH...] [VBR OPTIONS] [--out DIR] [--dry-run]

MATRIX SETS (with no --mtx/--gen and no set, --quick is run):
  --quick              fixed set sized to exceed a 50 MB L2 (about 40 s on an H200)
  --full               larger and more varied set (several minutes more)
  --mtx PATH...        Matrix Market files, or directories of *.mtx (pattern only; values are drawn fresh)
  --gen SPEC...        generated matrices, SPEC one of:
{SPECS}

OPTIONS:
  --ops LIST           operations, comma-separated: spmv,spmm,sddmm,spgemm,csr2csc (default: all;
                       filters the sets' own per-matrix lists)
  --repeat N           timed calls per library and case, median reported (default 20; SpGEMM uses
                       fewer when slow: about 2 s per library, at least 3)
  --warmup N           untimed calls before timing (default 5)
  --spmm-n LIST        SpMM dense widths N (default 32,128); B and C row-major
  --sddmm-k LIST       SDDMM inner dimensions K (default 32,128); A row-major, B column-major
  --spmm-layouts LIST  SpMM orders of B and C, each two letters r (row) or c (column), or all
                       (default rr); labels of other layouts end in :xy, e.g. f32 N=32:cr
  --sddmm-layouts LIST SDDMM orders of A and B, as above (default rc)
  --spmv-types LIST    SpMV value types (default f32,f64)
  --spmv-algs LIST     spblk SpMV algorithms, each timed against cuSPARSE's default (default: default):
                       default, csr-alg1, csr-alg2, scalar, vector, rows, merge (docs/spmv.md); all = every one
  --spmm-alg NAME       spblk's SpMM algorithm, timed against cuSPARSE's default (default: default):
                       default, csr-alg2, rode (SPBLK_SPMM_ALG_RODE), aspt (SPBLK_SPMM_ALG_ASPT), sweep
                       (SPBLK_SPMM_ALG_CSR_SWEEP); the note gives the preprocess time
  --sddmm-alg NAME      spblk's SDDMM algorithm, timed against cuSPARSE's default (default: default):
                       default, aspt (SPBLK_SDDMM_ALG_ASPT); the note gives the spblk preprocess time
  --sizes              add the SpMV size sweep: uniform rows of 8 and R-MAT (edge factor 16), from about
                       10^3 to 10^8 nonzeros (SpMV only)
  --spgemm-max-products N   skip SpGEMM where A·A has more scalar products (default 4e8 quick, 2e9 full)
  --spgemm-reuse       also time the reuse path: reuse_compute of each library after one set-up
  --spgemm-alg NAME    the SpGEMM algorithm of both libraries: default, alg2, alg3 (estimateMemory with
                       chunk_fraction 0.2, as NVIDIA's spgemm_mem sample), esc (spblk's binned ESC;
                       cuSPARSE runs its default)
  --no-preprocess      do not call the *_preprocess functions (default: both libraries get them)
  --baseline-only      cuSPARSE only (checks the harness and cuSPARSE against host references)
  --overhead           run only the host-overhead study and exit: SpMV f32 CSR (preprocessed) on
                       uniform:n=N,deg=8 for N = 1e3, 1e4, 1e5, 1e6; per library the wall time of
                       one call alone (queue only: median, p10, p90 of 2000 calls after 200
                       warm-up, stream synchronized every 64 calls outside the timing) and of call
                       + stream synchronize (median of 1000), libraries alternating in blocks of
                       64 calls. Writes overhead.txt with --out. Takes no matrix set or --ops;
                       --repeat and --warmup do not apply. With --dry-run: the matrices only
  --overhead-op OP     the call --overhead times: spmv (default) or sddmm (f32, K = 32, A row-major,
                       B column-major, the same matrices as C's pattern)
  --seed N             seed of the random values (default 1; generators have their own seed= key)
  --tol-f32 X          relative tolerance for f32 results (default 1e-4), scaled by sum length / 1024
  --tol-f64 X          same for f64 (default 1e-10)
  --device N           GPU ordinal (default 0)
  --cusparse-lib PATH  libcusparse.so.12 file or directory (default: loader path, then usual places)
  --l2-mb X            L2 size used to decide input rotation (default: the device's; 50 in --dry-run)
  --out DIR            write results.csv, results.json and table.txt into DIR
  --dry-run            generate the matrices and print sizes only; needs no GPU
  --dump-mtx DIR       with --dry-run: also write each matrix's pattern to DIR/<name>.mtx (for peers)
  -h, --help           this text

VBR / 1-SA EXPERIMENT (--vbr; see docs/benchmarks.md):
  SpMM C = A·B (B, C row-major, N columns) with spblk's 1-SA variable-row blocks (spblkAnalyze +
  SPBLK_SPMM_ALG_VBR / _VBR_TF32) against spblk SPBLK_SPMM_CSR_ALG1, spblk SPBLK_SPMM_ALG_DEFAULT on the
  analysed descriptor, cuSPARSE CSR SpMM (same types) and cuBLAS GemmEx on the whole matrix stored dense;
  1-SA statistics, analysis time, break-even calls and accuracy against exact products. Writes vbr.md and
  vbr.csv with --out. Exit status as below (1 = an accuracy threshold was exceeded).
  --vbr                the grid: block:n,delta=64,theta,rho (rows scrambled) for n 8192,32768, theta
                       0.01,0.05,0.1, rho 0.01,0.02,0.05,0.1,0.2,0.5, N 128,1024,4096; plus every --mtx file
                       (N 128,1024 unless --vbr-width)
  --vbr-quick          the target cases only: n 32768,8192, theta 0.1, rho 0.2,0.5, N 128,4096
  --vbr-n LIST         matrix sizes n              --vbr-theta LIST   fractions of nonzero blocks
  --vbr-rho LIST       densities inside blocks     --vbr-width LIST   dense widths N (also for --mtx)
  --vbr-delta D        generator block size Δ (default 64)
  --vbr-types LIST     precisions from f16,bf16,f32,tf32 (default f16,f32,tf32): f16/bf16 inputs with f32
                       compute; f32 = spblk VBR f32-accurate; tf32 = spblk VBR_TF32 and cuBLAS FAST_TF32
  --vbr-no-synthetic   only the --mtx files
  --vbr-time-cap S     per library and case, stop timing after about S s once 5 calls are done (default 0.5)
  --vbr-sample-rows K  rows checked against exact products (default 512; all rows of smaller matrices)
  --vbr-half-out X     C for f16/bf16 inputs: auto (f32 if cuSPARSE accepts it, probed), f32, same
  --vbr-no-flush       do not overwrite L2 before each timed call
  --vbr-no-dense       skip cuBLAS (no dense copy of A)
  --vbr-host-analysis  with --dry-run: run 1-SA on spblk's host backend and print its statistics
  --cublas-lib PATH    libcublas.so.* file or directory (default: loader path, then usual places)
  --warmup N / --repeat N   warm-up calls (default 2 here) / most timed calls (default 20)

EXIT STATUS:
  0 all cases ran and agreed; 1 results disagree (MISMATCH); 2 no usable GPU;
  3 some library call failed (ERROR) but nothing disagreed; 64 bad command line.
";

/// The matrix sets. Each entry: spec and the operations run on it.
const ALL_BUT_SPGEMM: &[Op] = &[Op::Spmv, Op::Spmm, Op::Sddmm, Op::Csr2csc];
const ALL: &[Op] = &[Op::Spmv, Op::Spmm, Op::Sddmm, Op::Spgemm, Op::Csr2csc];
const SPGEMM: &[Op] = &[Op::Spgemm];

const QUICK: &[(&str, &[Op])] = &[
    ("rmat:scale=20,ef=16", ALL_BUT_SPGEMM),
    ("poisson3d:n=128", ALL),
    ("block:n=65536,delta=32,theta=0.05,rho=0.3", ALL_BUT_SPGEMM),
    ("powerlaw:n=2^20,alpha=2.2,min=4,max=65536", ALL_BUT_SPGEMM),
    ("uniform:n=2^20,deg=32", ALL_BUT_SPGEMM),
    ("rmat:scale=16,ef=8", SPGEMM),
    ("uniform:n=2^20,deg=8", SPGEMM),
    ("block:n=16384,delta=32,theta=0.02,rho=0.3", SPGEMM),
    ("powerlaw:n=2^20,alpha=2.2,min=2,max=4096", SPGEMM),
];

/// `--sizes`: SpMV from 10^3 to 10^8 nonzeros, regular (8 per row) and skewed (R-MAT).
const SIZES: &[(&str, &[Op])] = &[
    ("uniform:n=125,deg=8", &[Op::Spmv]),
    ("uniform:n=1250,deg=8", &[Op::Spmv]),
    ("uniform:n=12500,deg=8", &[Op::Spmv]),
    ("uniform:n=125000,deg=8", &[Op::Spmv]),
    ("uniform:n=1250000,deg=8", &[Op::Spmv]),
    ("uniform:n=12500000,deg=8", &[Op::Spmv]),
    ("rmat:scale=6,ef=16", &[Op::Spmv]),
    ("rmat:scale=9,ef=16", &[Op::Spmv]),
    ("rmat:scale=13,ef=16", &[Op::Spmv]),
    ("rmat:scale=16,ef=16", &[Op::Spmv]),
    ("rmat:scale=19,ef=16", &[Op::Spmv]),
    ("rmat:scale=22,ef=16", &[Op::Spmv]),
];

/// `--spmm-alg` names and spblk's values.
const SPMM_ALGS: &[(&str, u32)] = &[("default", 0), ("csr-alg2", 6), ("rode", 100), ("aspt", 101), ("sweep", 104)];
/// `--sddmm-alg` names and spblk's values.
const SDDMM_ALGS: &[(&str, u32)] = &[("default", 0), ("aspt", 101)];

/// `--spmv-algs` names and spblk's values.
const SPMV_ALGS: &[(&str, u32)] = &[
    ("default", 0),
    ("csr-alg1", 2),
    ("csr-alg2", 3),
    ("scalar", 100),
    ("vector", 101),
    ("rows", 102),
    ("merge", 103),
];

const FULL: &[(&str, &[Op])] = &[
    ("rmat:scale=18,ef=16", ALL),
    ("rmat:scale=20,ef=16", ALL_BUT_SPGEMM),
    ("rmat:scale=20,ef=64", ALL_BUT_SPGEMM),
    ("rmat:scale=22,ef=8", ALL_BUT_SPGEMM),
    ("poisson2d:n=2048", ALL),
    ("poisson3d:n=128", ALL),
    ("poisson3d:n=160", ALL_BUT_SPGEMM),
    ("block:n=65536,delta=32,theta=0.05,rho=0.3", ALL_BUT_SPGEMM),
    ("block:n=131072,delta=64,theta=0.01,rho=0.1", ALL_BUT_SPGEMM),
    ("block:n=65536,delta=16,theta=0.02,rho=0.5", ALL_BUT_SPGEMM),
    ("block:n=65536,delta=64,theta=0.002,rho=0.8", ALL),
    ("uniform:n=2^20,deg=8", ALL),
    ("uniform:n=2^20,deg=32", ALL_BUT_SPGEMM),
    ("uniform:n=2^20,deg=128", ALL_BUT_SPGEMM),
    ("powerlaw:n=2^20,alpha=2.2,min=4,max=65536", ALL),
    ("powerlaw:n=2^20,alpha=1.8,min=2,max=262144", ALL_BUT_SPGEMM),
    ("rmat:scale=16,ef=8", SPGEMM),
    ("rmat:scale=18,ef=4", SPGEMM),
    ("uniform:n=2^18,deg=8", SPGEMM),
    ("block:n=16384,delta=32,theta=0.02,rho=0.3", SPGEMM),
    ("powerlaw:n=2^18,alpha=2.2,min=2,max=4096", SPGEMM),
    ("poisson2d:n=1024", SPGEMM),
];

struct Opts {
    quick: bool,
    sizes: bool,
    full: bool,
    mtx: Vec<String>,
    gen: Vec<String>,
    ops: Option<Vec<Op>>,
    dry_run: bool,
    dump_mtx: Option<String>,
    baseline_only: bool,
    overhead: bool,
    overhead_call: overhead::Call,
    device: i32,
    cusparse_lib: Option<String>,
    l2_mb: Option<f64>,
    out: Option<String>,
    max_products: Option<u64>,
    set: Settings,
    vbr: vbr::Opts,
    warmup_given: bool,
    repeat_given: bool,
}

fn list<T>(v: &str, f: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    v.split(',').filter(|s| !s.is_empty()).map(|s| f(s.trim())).collect()
}

fn parse_num<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse().or_else(|_| {
        // Accept 4e8-style integers.
        v.parse::<f64>()
            .ok()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
            .and_then(|f| format!("{f:.0}").parse().ok())
            .ok_or_else(|| format!("{flag}: '{v}' is not a valid number"))
    })
}

/// `rr,cr,...` or `all`: the two dense operands' orders (r row, c column).
fn layouts(flag: &str, v: &str) -> Result<Vec<libs::Layout>, String> {
    use libs::Order::{Col, Row};
    if v == "all" {
        return Ok(vec![(Row, Row), (Row, Col), (Col, Row), (Col, Col)]);
    }
    let order = |c: char| match c {
        'r' => Some(Row),
        'c' => Some(Col),
        _ => None,
    };
    v.split(',')
        .map(|t| {
            let mut ch = t.chars();
            match (ch.next().and_then(order), ch.next().and_then(order), ch.next()) {
                (Some(a), Some(b), None) => Ok((a, b)),
                _ => Err(format!("{flag}: '{t}' is not two of r/c (e.g. rr, rc, cr, cc) or all")),
            }
        })
        .collect()
}

fn parse_args(args: &[String]) -> Result<Option<Opts>, String> {
    let mut o = Opts {
        quick: false,
        sizes: false,
        full: false,
        mtx: Vec::new(),
        gen: Vec::new(),
        ops: None,
        dry_run: false,
        dump_mtx: None,
        baseline_only: false,
        overhead: false,
        overhead_call: overhead::Call::Spmv,
        device: 0,
        cusparse_lib: None,
        l2_mb: None,
        out: None,
        max_products: None,
        set: Settings {
            repeat: 20,
            warmup: 5,
            seed: 1,
            preprocess: true,
            spmm_n: vec![32, 128],
            sddmm_k: vec![32, 128],
            spmm_layouts: vec![cases::DEFAULT_SPMM_LAYOUT],
            sddmm_layouts: vec![cases::DEFAULT_SDDMM_LAYOUT],
            spmv_types: vec![Dt::F32, Dt::F64],
            spmv_algs: vec![(0, "default")],
            spmm_alg: (0, "default"),
            sddmm_alg: (0, "default"),
            spgemm_max_products: 0,
            spgemm_reuse: false,
            spgemm_alg: libs::SpgemmAlg::Default,
            tol_f32: 1e-4,
            tol_f64: 1e-10,
            l2_bytes: 50 << 20,
            copy_bw: f64::NAN,
        },
        vbr: vbr::Opts::default(),
        warmup_given: false,
        repeat_given: false,
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let mut value = || -> Result<String, String> {
            i += 1;
            args.get(i).cloned().ok_or_else(|| format!("{a} needs a value"))
        };
        if o.vbr.take(a, &mut value)? {
            i += 1;
            continue;
        }
        match a {
            "-h" | "--help" => return Ok(None),
            "--quick" => o.quick = true,
            "--full" => o.full = true,
            "--dry-run" => o.dry_run = true,
            "--baseline-only" => o.baseline_only = true,
            "--overhead" => o.overhead = true,
            "--overhead-op" => {
                o.overhead_call = match value()?.as_str() {
                    "spmv" => overhead::Call::Spmv,
                    "sddmm" => overhead::Call::Sddmm,
                    v => return Err(format!("--overhead-op: '{v}' is not one of spmv, sddmm")),
                }
            }
            "--no-preprocess" => o.set.preprocess = false,
            "--mtx" | "--gen" => {
                let mut n = 0;
                while i + 1 < args.len() && !args[i + 1].starts_with("--") {
                    i += 1;
                    n += 1;
                    if a == "--mtx" {
                        o.mtx.push(args[i].clone());
                    } else {
                        o.gen.push(args[i].clone());
                    }
                }
                if n == 0 {
                    return Err(format!("{a} needs at least one value"));
                }
            }
            "--ops" => o.ops = Some(list(&value()?, Op::parse)?),
            "--repeat" => {
                o.set.repeat = parse_num::<usize>(a, &value()?)?.max(1);
                o.repeat_given = true;
            }
            "--warmup" => {
                o.set.warmup = parse_num(a, &value()?)?;
                o.warmup_given = true;
            }
            "--seed" => o.set.seed = parse_num(a, &value()?)?,
            "--device" => o.device = parse_num(a, &value()?)?,
            "--spmm-n" => o.set.spmm_n = list(&value()?, |s| parse_num("--spmm-n", s))?,
            "--sddmm-k" => o.set.sddmm_k = list(&value()?, |s| parse_num("--sddmm-k", s))?,
            "--spmm-layouts" => o.set.spmm_layouts = layouts("--spmm-layouts", &value()?)?,
            "--sddmm-layouts" => o.set.sddmm_layouts = layouts("--sddmm-layouts", &value()?)?,
            "--spmv-types" => {
                o.set.spmv_types = list(&value()?, |s| match s {
                    "f32" => Ok(Dt::F32),
                    "f64" => Ok(Dt::F64),
                    _ => Err(format!("--spmv-types: '{s}' is not f32 or f64")),
                })?
            }
            "--spmv-algs" => {
                let v = value()?;
                o.set.spmv_algs = if v == "all" {
                    SPMV_ALGS.iter().map(|&(n, a)| (a, n)).collect()
                } else {
                    list(&v, |s| {
                        SPMV_ALGS
                            .iter()
                            .find(|(n, _)| *n == s)
                            .map(|&(n, a)| (a, n))
                            .ok_or_else(|| format!("--spmv-algs: '{s}' is not one of default, csr-alg1, csr-alg2, scalar, vector, rows, merge, all"))
                    })?
                };
            }
            "--spmm-alg" => {
                let v = value()?;
                o.set.spmm_alg = SPMM_ALGS
                    .iter()
                    .find(|(n, _)| *n == v)
                    .map(|&(n, a)| (a, n))
                    .ok_or_else(|| format!("--spmm-alg: '{v}' is not one of default, csr-alg2, rode, aspt"))?;
            }
            "--sddmm-alg" => {
                let v = value()?;
                o.set.sddmm_alg = SDDMM_ALGS
                    .iter()
                    .find(|(n, _)| *n == v)
                    .map(|&(n, a)| (a, n))
                    .ok_or_else(|| format!("--sddmm-alg: '{v}' is not one of default, aspt"))?;
            }
            "--sizes" => o.sizes = true,
            "--spgemm-max-products" => o.max_products = Some(parse_num(a, &value()?)?),
            "--spgemm-reuse" => o.set.spgemm_reuse = true,
            "--spgemm-alg" => {
                let v = value()?;
                o.set.spgemm_alg = libs::SpgemmAlg::NAMES
                    .iter()
                    .find(|(n, _)| *n == v)
                    .map(|&(_, a)| a)
                    .ok_or_else(|| format!("--spgemm-alg: '{v}' is not one of default, alg2, alg3, esc"))?;
            }
            "--tol-f32" => o.set.tol_f32 = parse_num(a, &value()?)?,
            "--tol-f64" => o.set.tol_f64 = parse_num(a, &value()?)?,
            "--cusparse-lib" => o.cusparse_lib = Some(value()?),
            "--l2-mb" => o.l2_mb = Some(parse_num(a, &value()?)?),
            "--out" => o.out = Some(value()?),
            "--dump-mtx" => o.dump_mtx = Some(value()?),
            other => return Err(format!("unknown argument '{other}' (see --help)")),
        }
        i += 1;
    }
    if o.set.spmm_n.iter().chain(&o.set.sddmm_k).any(|&x| x <= 0) {
        return Err("--spmm-n and --sddmm-k values must be positive".into());
    }
    o.vbr.finish()?;
    if o.vbr.on && (o.quick || o.full || o.sizes || !o.gen.is_empty() || o.ops.is_some() || o.overhead) {
        return Err(
            "--vbr runs its own grid (and --mtx files): it takes no --quick, --full, --gen, --ops or --overhead".into(),
        );
    }
    let any_set = o.quick || o.full || o.sizes || !o.mtx.is_empty() || !o.gen.is_empty();
    if o.overhead && (any_set || o.ops.is_some()) {
        return Err(
            "--overhead runs its own fixed SpMV matrices: it takes no --quick, --full, --mtx, --gen or --ops".into()
        );
    }
    if !any_set && !o.overhead && !o.vbr.on {
        o.quick = true;
    }
    o.set.spgemm_max_products = o.max_products.unwrap_or(if o.full { 2_000_000_000 } else { 400_000_000 });
    Ok(Some(o))
}

/// `--mtx` arguments as files: directories become their *.mtx files, sorted.
fn expand_mtx(paths: &[String]) -> Result<Vec<String>, String> {
    let mut v = Vec::new();
    for m in paths {
        let path = std::path::Path::new(m);
        if path.is_dir() {
            let mut files: Vec<String> = std::fs::read_dir(path)
                .map_err(|e| format!("{m}: {e}"))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "mtx"))
                .map(|p| p.display().to_string())
                .collect();
            files.sort();
            if files.is_empty() {
                return Err(format!("{m}: no .mtx files"));
            }
            v.extend(files);
        } else {
            v.push(m.clone());
        }
    }
    Ok(v)
}

/// The matrices to run, in order, with their operations (not yet generated).
fn plan(o: &Opts) -> Result<Vec<(Spec, Vec<Op>)>, String> {
    let wanted = |ops: &[Op]| -> Vec<Op> {
        ops.iter().copied().filter(|op| o.ops.as_ref().is_none_or(|w| w.contains(op))).collect()
    };
    let mut v = Vec::new();
    let mut add_set = |set: &[(&str, &[Op])]| -> Result<(), String> {
        for (text, ops) in set {
            v.push((Spec::parse(text)?, wanted(ops)));
        }
        Ok(())
    };
    if o.quick {
        add_set(QUICK)?;
    }
    if o.full {
        add_set(FULL)?;
    }
    if o.sizes {
        add_set(SIZES)?;
    }
    for g in &o.gen {
        v.push((Spec::parse(g)?, wanted(ALL)));
    }
    for f in expand_mtx(&o.mtx)? {
        v.push((Spec::Mtx { path: f }, wanted(ALL)));
    }
    v.retain(|(_, ops)| !ops.is_empty());
    if v.is_empty() {
        return Err("no matrix has any of the requested operations".into());
    }
    Ok(v)
}

fn build(spec: &Spec, ops: &[Op]) -> Result<Mat, String> {
    let t = Instant::now();
    let p = spec.build()?;
    Ok(Mat { spec: spec.clone(), name: spec.name(), p, ops: ops.to_vec(), gen_s: t.elapsed().as_secs_f64() })
}

fn human(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.2} GB", bytes / 1e9)
    } else {
        format!("{:.1} MB", bytes / 1e6)
    }
}

fn mat_line(m: &Mat) -> String {
    let p = &m.p;
    let mean = p.nnz() as f64 / p.rows.max(1) as f64;
    let min = (0..p.rows).map(|i| p.row_len(i)).min().unwrap_or(0);
    format!(
        "{}: {}×{}, nnz {}, row length min {} mean {:.1} max {} (generated in {:.1} s) [{}]",
        m.name,
        p.rows,
        p.cols,
        p.nnz(),
        min,
        mean,
        p.max_row_len(),
        m.gen_s,
        m.spec.text()
    )
}

fn dry_run(o: &Opts, plan: &[(Spec, Vec<Op>)]) -> i32 {
    let set = &o.set;
    println!(
        "dry run: {} matrices; input rotation sized for an L2 of {:.0} MB; no GPU is used",
        plan.len(),
        set.l2_bytes as f64 / 1048576.0
    );
    for (spec, ops) in plan {
        let m = match build(spec, ops) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("spblk-bench: {e}");
                return 64;
            }
        };
        if let Err(e) = m.p.validate() {
            eprintln!("spblk-bench: {}: invalid pattern: {e}", m.name);
            return 1;
        }
        println!("{}", mat_line(&m));
        if let Some(dir) = &o.dump_mtx {
            let path = format!("{dir}/{}.mtx", m.name);
            if let Err(e) = mtx::write(&path, &m.p) {
                eprintln!("spblk-bench: {e}");
                return 1;
            }
            println!("  written to {path}");
        }
        for &op in &m.ops {
            for (dt, w, _, label) in cases::variants(op, set) {
                if op == Op::Spgemm {
                    if m.p.rows != m.p.cols {
                        println!("  {:8} {:12} skipped: not square", op.name(), label);
                        continue;
                    }
                    let prods = m.p.products_squared();
                    let skip =
                        if prods > set.spgemm_max_products { " (over --spgemm-max-products: skipped)" } else { "" };
                    println!(
                        "  {:8} {:12} {} products, {:.2} GFLOP, A {}{skip}",
                        op.name(),
                        label,
                        prods,
                        2.0 * prods as f64 / 1e9,
                        human(cases::min_bytes(op, &m.p, dt, w) as f64)
                    );
                    continue;
                }
                let bytes = cases::min_bytes(op, &m.p, dt, w);
                let fl = cases::flops(op, &m.p, w);
                println!(
                    "  {:8} {:12} {:>10} min bytes, {:>8.2} GFLOP, {} input cop{}",
                    op.name(),
                    label,
                    human(bytes as f64),
                    fl / 1e9,
                    set.copies(bytes),
                    if set.copies(bytes) == 1 { "y" } else { "ies" }
                );
            }
        }
    }
    0
}

/// `--overhead --dry-run`: the study's matrices, generated, with their sizes.
fn overhead_dry_run() -> i32 {
    let specs = overhead::specs();
    println!("dry run of --overhead: SpMV f32 on {} matrices; no GPU is used", specs.len());
    for spec in &specs {
        match build(spec, &[Op::Spmv]) {
            Ok(m) => println!("{}", mat_line(&m)),
            Err(e) => {
                eprintln!("spblk-bench: {e}");
                return 64;
            }
        }
    }
    0
}

/// spblk (unless `--baseline-only`) and cuSPARSE, each `None` when it is not usable; the
/// flag says whether one that was wanted is missing (its error has been printed).
fn open_libs(o: &Opts, gpu: &gpu::Gpu) -> (Option<spb::Spblk>, Option<cusp::Cusparse>, bool) {
    let mut any_error = false;
    let spblk = if o.baseline_only {
        None
    } else {
        match spb::Spblk::new(gpu) {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("spblk-bench: ERROR: spblk's CUDA backend is not usable: {e}");
                eprintln!("spblk-bench: continuing with cuSPARSE only; every case will show the spblk error");
                any_error = true;
                None
            }
        }
    };
    let cusparse = match cusp::Cusparse::new(gpu, o.cusparse_lib.as_deref()) {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("spblk-bench: ERROR: cuSPARSE is not usable: {e}");
            any_error = true;
            None
        }
    };
    (spblk, cusparse, any_error)
}

/// The libraries that run, spblk first.
fn lib_list<'a>(spblk: &'a Option<spb::Spblk>, cusparse: &'a Option<cusp::Cusparse>) -> Vec<&'a dyn Api> {
    let mut libs: Vec<&dyn Api> = Vec::new();
    if let Some(s) = spblk {
        libs.push(s);
    }
    if let Some(c) = cusparse {
        libs.push(c);
    }
    libs
}

fn spblk_desc(s: &Option<spb::Spblk>, baseline_only: bool) -> String {
    match s {
        Some(s) => format!("version {} (CUDA backend)", s.version),
        None if baseline_only => "not run (--baseline-only)".into(),
        None => "NOT USABLE".into(),
    }
}

fn cusparse_desc(c: &Option<cusp::Cusparse>) -> String {
    match c {
        Some(c) => format!("version {} from {}", c.version, c.origin),
        None => "NOT USABLE".into(),
    }
}

fn progress_line(i: usize, r: &Record) -> String {
    let t = |l: &cases::LibResult| if l.ran { format!("{:.4} ms", l.median_ms) } else { "-".into() };
    let status = if !r.verdict.ok {
        format!("MISMATCH: {}", r.verdict.msg)
    } else if r.failed() {
        format!("ERROR (see the end); check: {}", r.verdict.msg)
    } else {
        r.verdict.msg.clone()
    };
    let ratio = r.ratio();
    format!(
        "[{i:3}] {:8} {:10} {:40} spblk {:>12}  cuSPARSE {:>12}  ratio {:>5}  {status}",
        r.op.name(),
        r.variant,
        r.matrix,
        t(&r.spblk),
        t(&r.cusparse),
        if ratio.is_finite() { format!("{ratio:.2}") } else { "-".into() },
    )
}

/// The GPU, or exit status 2 with the reason printed.
fn open_gpu(device: i32) -> Result<gpu::Gpu, i32> {
    gpu::Gpu::open(device).map_err(|e| {
        eprintln!(
            "spblk-bench: no usable GPU: {e}.\n\
             This benchmark needs an NVIDIA GPU with its driver; `spblk-bench --dry-run` generates \
             the matrices and prints their sizes without one."
        );
        2
    })
}

/// `--vbr`: the 1-SA experiment (bench/src/vbr.rs).
fn vbr_main(o: &Opts, args: &[String]) -> i32 {
    let mtx = match expand_mtx(&o.mtx) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("spblk-bench: {e}");
            return 64;
        }
    };
    let cases = vbr::cases(&o.vbr, &mtx);
    if cases.is_empty() {
        eprintln!("spblk-bench: --vbr has no matrices (--vbr-no-synthetic needs --mtx)");
        return 64;
    }
    if o.dry_run {
        return vbr::dry_run(&o.vbr, &cases);
    }
    let gpu = match open_gpu(o.device) {
        Ok(g) => g,
        Err(code) => return code,
    };
    let (spblk, cusparse, mut any_error) = open_libs(o, &gpu);
    if spblk.is_none() && cusparse.is_none() {
        eprintln!("spblk-bench: neither spblk nor cuSPARSE can run");
        return 3;
    }
    let cublas = if o.vbr.dense {
        match cublas::Cublas::new(&gpu, o.vbr.cublas_lib.as_deref()) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("spblk-bench: ERROR: cuBLAS is not usable: {e} (the dense column will be empty)");
                any_error = true;
                None
            }
        }
    } else {
        None
    };
    let command = std::iter::once("spblk-bench".to_string()).chain(args.iter().cloned()).collect::<Vec<_>>().join(" ");
    let header = vec![
        format!("command: {command}"),
        format!(
            "device: {} (cc {}.{}), {} SMs, L2 {} MB, {:.1} GiB, driver {}",
            gpu.name,
            gpu.cc.0,
            gpu.cc.1,
            gpu.sms,
            gpu.l2_bytes >> 20,
            gpu.total_mem as f64 / (1u64 << 30) as f64,
            gpu.driver_version
        ),
        format!("spblk: {}", spblk_desc(&spblk, o.baseline_only)),
        format!("cuSPARSE: {}", cusparse_desc(&cusparse)),
        format!(
            "cuBLAS: {}",
            match &cublas {
                Some(c) => format!(
                    "version {} from {}{}",
                    c.version,
                    c.origin,
                    if c.workspace_set { ", 32 MiB workspace set" } else { ", its own workspace" }
                ),
                None if !o.vbr.dense => "not run (--vbr-no-dense)".into(),
                None => "NOT USABLE".into(),
            }
        ),
        format!(
            "values: seed {}, magnitude uniform in [0.25, 1) with random sign, rounded to the input type",
            o.set.seed
        ),
    ];
    let min_reps = if o.repeat_given { o.set.repeat.min(5) } else { 5 };
    let pol = vbr::timing::Policy {
        warmup: if o.warmup_given { o.set.warmup.max(1) } else { 2 },
        min_reps,
        max_reps: if o.repeat_given { o.set.repeat } else { 20 },
        slow_ms: 50.0,
        slow_reps: 3.min(min_reps),
        cap_s: o.vbr.time_cap_s,
    };
    let code = {
        let env = match vbr::Env::new(&gpu, spblk.as_ref(), cusparse.as_ref(), cublas.as_ref(), &o.vbr, o.set.seed, pol)
        {
            Ok(e) => e,
            Err(e) => {
                eprintln!("spblk-bench: {e}");
                return 3;
            }
        };
        vbr::run(&env, &cases, &header, o.out.as_deref())
    };
    if code == 0 && any_error {
        3
    } else {
        code
    }
}

fn main() {
    std::process::exit(real_main());
}

fn real_main() -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut o = match parse_args(&args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{}", USAGE.replace("{SPECS}", gen::SPEC_HELP));
            return 0;
        }
        Err(e) => {
            eprintln!("spblk-bench: {e}");
            return 64;
        }
    };
    if o.dump_mtx.is_some() && (!o.dry_run || o.overhead || o.vbr.on) {
        eprintln!("spblk-bench: --dump-mtx needs --dry-run (and no --overhead or --vbr)");
        return 64;
    }
    if o.overhead && o.dry_run {
        return overhead_dry_run();
    }
    if o.vbr.on {
        return vbr_main(&o, &args);
    }
    let plan = if o.overhead {
        Vec::new()
    } else {
        match plan(&o) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("spblk-bench: {e}");
                return 64;
            }
        }
    };
    if o.dry_run {
        if let Some(mb) = o.l2_mb {
            o.set.l2_bytes = (mb * 1048576.0) as usize;
        }
        return dry_run(&o, &plan);
    }

    let started = Instant::now();
    let gpu = match open_gpu(o.device) {
        Ok(g) => g,
        Err(code) => return code,
    };
    o.set.l2_bytes = o.l2_mb.map(|mb| (mb * 1048576.0) as usize).unwrap_or(gpu.l2_bytes.max(1 << 20));

    let (spblk, cusparse, mut any_error) = open_libs(&o, &gpu);
    let spblk_err = (!o.baseline_only && spblk.is_none())
        .then(|| "spblk's CUDA backend is not usable (see the start of the log)".to_string());
    if spblk.is_none() && cusparse.is_none() {
        eprintln!("spblk-bench: neither library can run");
        return 3;
    }
    let command = std::iter::once("spblk-bench".to_string()).chain(args.iter().cloned()).collect::<Vec<_>>().join(" ");
    let device = format!("{} (cc {}.{})", gpu.name, gpu.cc.0, gpu.cc.1);
    if o.overhead {
        let head = format!(
            "spblk-bench --overhead: host cost of one {} call (f32, CSR, 32-bit indices, op N, alpha 1, beta 0, \
             default algorithm, preprocessed once)\ncommand: {command}\ndevice: {device}; driver {}\nhost CPU: {}\n\
             spblk: {}\ncuSPARSE: {}\n",
            o.overhead_call.name(),
            gpu.driver_version,
            overhead::cpu_model(),
            spblk_desc(&spblk, o.baseline_only),
            cusparse_desc(&cusparse)
        );
        print!("{head}");
        let libs = lib_list(&spblk, &cusparse);
        return match overhead::run(&gpu, &libs, &head, o.set.seed, o.set.tol_f32, o.out.as_deref(), o.overhead_call) {
            0 if any_error => 3,
            code => code,
        };
    }
    let (copy_bw, copy_bytes) = match gpu.copy_bandwidth() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("spblk-bench: measuring copy bandwidth failed: {e}");
            return 3;
        }
    };
    o.set.copy_bw = copy_bw;
    let info = report::RunInfo {
        command,
        device,
        driver_version: gpu.driver_version,
        sms: gpu.sms,
        l2_bytes: gpu.l2_bytes,
        total_mem: gpu.total_mem,
        copy_bw,
        copy_bytes,
        nominal_bw: gpu.nominal_bw,
        spblk: spblk_desc(&spblk, o.baseline_only),
        cusparse: cusparse_desc(&cusparse),
        settings: format!(
            "repeat {}, warmup {}, seed {}, preprocess {}, spmm N {:?} layouts {:?}, sddmm K {:?} layouts {:?}, tol f32 {:e} f64 {:e}, rotation L2 {} B, spgemm max products {}",
            o.set.repeat,
            o.set.warmup,
            o.set.seed,
            o.set.preprocess,
            o.set.spmm_n,
            o.set.spmm_layouts,
            o.set.sddmm_k,
            o.set.sddmm_layouts,
            o.set.tol_f32,
            o.set.tol_f64,
            o.set.l2_bytes,
            o.set.spgemm_max_products
        ),
    };
    println!(
        "device: {}; {} SMs; L2 {} B; {:.1} GiB",
        info.device,
        gpu.sms,
        gpu.l2_bytes,
        gpu.total_mem as f64 / (1u64 << 30) as f64
    );
    println!(
        "copy bandwidth: {:.0} GB/s measured (device-to-device, {} MiB, read+write); nominal {:.0} GB/s",
        copy_bw / 1e9,
        copy_bytes >> 20,
        gpu.nominal_bw / 1e9
    );
    println!("spblk: {}\ncuSPARSE: {}", info.spblk, info.cusparse);

    let ctx = Ctx { gpu: &gpu, libs: lib_list(&spblk, &cusparse), set: &o.set };
    let mut records: Vec<Record> = Vec::new();
    let mut n = 0;
    for (spec, ops) in &plan {
        let m = match build(spec, ops) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("spblk-bench: {e}");
                any_error = true;
                continue;
            }
        };
        println!("matrix {}", mat_line(&m));
        let _ = std::io::stdout().flush();
        let mut recs = cases::run_matrix(&ctx, &m, |r| {
            n += 1;
            println!("{}", progress_line(n, r));
            let _ = std::io::stdout().flush();
        });
        if let Some(e) = &spblk_err {
            for r in &mut recs {
                r.spblk.error.get_or_insert_with(|| e.clone());
            }
        }
        records.extend(recs);
    }

    let table = report::table(&info, &records);
    if let Some(dir) = &o.out {
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(dir)?;
            std::fs::write(format!("{dir}/results.csv"), report::csv(&records, copy_bw))?;
            std::fs::write(format!("{dir}/results.json"), report::json(&info, &records))?;
            std::fs::write(format!("{dir}/table.txt"), &table)?;
            Ok(())
        };
        match write() {
            Ok(()) => println!("results written to {dir}/results.csv, results.json, table.txt"),
            Err(e) => {
                eprintln!("spblk-bench: writing results to {dir}: {e}");
                any_error = true;
            }
        }
    }
    println!("\n{table}");
    let mismatches = records.iter().filter(|r| !r.verdict.ok).count();
    let errors = records.iter().filter(|r| r.failed()).count();
    println!(
        "{} cases in {:.0} s: {} mismatches, {} with errors",
        records.len(),
        started.elapsed().as_secs_f64(),
        mismatches,
        errors
    );
    if mismatches > 0 {
        println!("RESULT: MISMATCH (spblk and cuSPARSE disagree, or one disagrees with the host reference)");
        1
    } else if errors > 0 || any_error {
        println!("RESULT: ERROR (some calls failed; see the ERROR lines)");
        3
    } else {
        println!("RESULT: OK");
        0
    }
}
