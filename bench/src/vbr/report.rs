//! `--vbr` results: one row per (matrix, N, precision), written as CSV (`vbr.csv`), as a
//! Markdown table with the run's header (`vbr.md`), and as the same table on stdout.

use super::{Meas, Row, State};

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Milliseconds with 3 significant digits at least (0.0123, 1.23, 123).
pub fn ms(x: f64) -> String {
    if !x.is_finite() {
        "-".into()
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else if x >= 0.01 {
        format!("{x:.4}")
    } else {
        format!("{x:.2e}")
    }
}

fn ratio(x: f64) -> String {
    if x.is_finite() {
        if x >= 100.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.2}")
        }
    } else {
        "-".into()
    }
}

fn sci(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else if x.is_infinite() {
        "inf".into()
    } else if x == 0.0 {
        "0".into()
    } else {
        format!("{x:.1e}")
    }
}

/// Three significant digits or so: 123, 12.3, 1.23, 0.123.
fn sig(x: f64) -> String {
    if !x.is_finite() {
        "-".into()
    } else if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else if x.abs() >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn fixed(x: f64, d: usize) -> String {
    if x.is_finite() {
        format!("{x:.d$}")
    } else {
        "-".into()
    }
}

/// A time cell: the median, or why there is none.
fn time_cell(m: &Meas) -> String {
    match &m.state {
        State::Ok => ms(m.t.median_ms),
        State::NotRun => "-".into(),
        State::NotSupported(_) => "n/a".into(),
        State::Skipped(_) => "skip".into(),
        State::Error(_) => "ERROR".into(),
    }
}

/// Break-even calls: a count, "never" (VBR not faster), or "-" (no data).
pub fn breakeven_text(x: Option<f64>) -> String {
    match x {
        None => "-".into(),
        Some(v) if v.is_infinite() => "never".into(),
        Some(v) => format!("{:.0}", v.ceil()),
    }
}

pub const CSV_HEADER: &str = "matrix,family,rows,cols,nnz,max_row,theta,rho,delta,N,precision,in_type,out_type,\
groups,nonzero_blocks,dH,rho_prime,fill_in,stored_entries,analysis_wall_s,analysis_lib_s,\
vbr_ms,vbr_min_ms,vbr_max_ms,vbr_reps,vbr_state,vbr_alg,vbr_method,\
csr_ms,csr_min_ms,csr_reps,csr_state,\
default_ms,default_min_ms,default_reps,default_state,default_pick,\
cusparse_ms,cusparse_min_ms,cusparse_reps,cusparse_state,cusparse_alg,\
cublas_ms,cublas_min_ms,cublas_reps,cublas_state,cublas_compute,\
speedup_vs_cusparse,speedup_vs_csr,speedup_vs_cublas,default_over_best,\
vbr_tflops_stored,vbr_tflops_useful,csr_tflops,cusparse_tflops,cublas_tflops,\
breakeven_calls_vs_csr,breakeven_calls_vs_cusparse,\
err_vbr,err_csr,err_default,err_cusparse,err_cublas,tol_vbr,tol_cusparse,tol_cublas,input_rounding_bound,accuracy_ok,\
sampled_rows,buffers_bytes,messages,spec";

fn state_name(s: &State) -> &'static str {
    match s {
        State::Ok => "ok",
        State::NotRun => "not_run",
        State::NotSupported(_) => "n/a",
        State::Skipped(_) => "skipped",
        State::Error(_) => "error",
    }
}

fn be_csv(x: Option<f64>) -> String {
    match x {
        None => String::new(),
        Some(v) if v.is_infinite() => "never".into(),
        Some(v) => format!("{v}"),
    }
}

/// The CSV: the header and a line per row.
pub fn csv(rows: &[Row]) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for r in rows {
        s.push_str(&csv_line(r));
    }
    s
}

/// One row as a CSV line (with its newline).
pub fn csv_line(r: &Row) -> String {
    let a = r.analysis.as_ref();
    let an = |f: &dyn Fn(&super::calls::Analysis) -> f64| a.map(f).map(num).unwrap_or_default();
    let opt = |x: Option<f64>| x.map(num).unwrap_or_default();
    let fields: Vec<String> = vec![
        r.matrix.clone(),
        r.family.clone(),
        r.rows.to_string(),
        r.cols.to_string(),
        r.nnz.to_string(),
        r.max_row.to_string(),
        opt(r.theta),
        opt(r.rho),
        r.delta.map(|d| d.to_string()).unwrap_or_default(),
        r.n.to_string(),
        r.prec.name().into(),
        r.input.name().into(),
        r.output.name().into(),
        a.map(|x| x.groups.to_string()).unwrap_or_default(),
        a.map(|x| x.blocks.to_string()).unwrap_or_default(),
        an(&|x| x.dh),
        an(&|x| x.rho),
        an(&|x| x.fill),
        an(&|x| x.stored),
        an(&|x| x.wall_s),
        an(&|x| x.lib_s),
        num(r.vbr.ms()),
        num(r.vbr.t.min_ms),
        num(r.vbr.t.max_ms),
        r.vbr.t.samples.len().to_string(),
        state_name(&r.vbr.state).into(),
        r.vbr.alg.clone(),
        r.vbr.method.clone().unwrap_or_default(),
        num(r.csr.ms()),
        num(r.csr.t.min_ms),
        r.csr.t.samples.len().to_string(),
        state_name(&r.csr.state).into(),
        num(r.default.ms()),
        num(r.default.t.min_ms),
        r.default.t.samples.len().to_string(),
        state_name(&r.default.state).into(),
        r.default_pick(),
        num(r.cusparse.ms()),
        num(r.cusparse.t.min_ms),
        r.cusparse.t.samples.len().to_string(),
        state_name(&r.cusparse.state).into(),
        r.cusparse.alg.clone(),
        num(r.cublas.ms()),
        num(r.cublas.t.min_ms),
        r.cublas.t.samples.len().to_string(),
        state_name(&r.cublas.state).into(),
        r.cublas.alg.clone(),
        num(r.speedup(&r.cusparse)),
        num(r.speedup(&r.csr)),
        num(r.speedup(&r.cublas)),
        num(r.default_over_best()),
        num(r.vbr_tflops()),
        num(r.tflops_useful(&r.vbr)),
        num(r.tflops_useful(&r.csr)),
        num(r.tflops_useful(&r.cusparse)),
        num(r.cublas_tflops()),
        be_csv(r.breakeven(&r.csr)),
        be_csv(r.breakeven(&r.cusparse)),
        num(r.vbr.err),
        num(r.csr.err),
        num(r.default.err),
        num(r.cusparse.err),
        num(r.cublas.err),
        num(r.vbr.tol),
        num(r.cusparse.tol),
        num(r.cublas.tol),
        num(r.prec.input_rounding()),
        (!r.accuracy_failed() as u8).to_string(),
        r.sampled_rows.to_string(),
        r.buffers.clone(),
        r.messages().join(" | "),
        r.spec.clone(),
    ];
    let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
    line.join(",") + "\n"
}

/// The columns of the Markdown and stdout tables.
pub const TABLE_HEAD: &[&str] = &[
    "matrix",
    "n",
    "nnz",
    "θ",
    "ρ",
    "N",
    "prec",
    "ΔH'",
    "ρ'",
    "analysis s",
    "VBR ms",
    "CSR ms",
    "DEFAULT ms (pick)",
    "cuSPARSE ms",
    "cuBLAS ms",
    "cuSP/VBR",
    "CSR/VBR",
    "cuBLAS/VBR",
    "DEF/best",
    "VBR TF/s",
    "cuBLAS TF/s",
    "b-e CSR",
    "b-e cuSP",
    "err VBR",
    "err cuSP",
    "err cuBLAS",
    "check",
];

/// Right-aligned columns (numbers).
fn right(col: usize) -> bool {
    col != 0 && col != 6 && col != 12 && col != 26
}

pub fn table_cells(r: &Row) -> Vec<String> {
    let a = r.analysis.as_ref();
    let opt = |x: Option<f64>| x.map(|v| format!("{v}")).unwrap_or_else(|| "-".into());
    let mut default = time_cell(&r.default);
    let pick = r.default_pick();
    if r.default.state == State::Ok && !pick.is_empty() {
        default = format!("{default} ({pick})");
    }
    vec![
        r.matrix.clone(),
        r.rows.to_string(),
        r.nnz.to_string(),
        opt(r.theta),
        opt(r.rho),
        r.n.to_string(),
        r.prec.label(r.output),
        a.map(|x| fixed(x.dh, 1)).unwrap_or_else(|| "-".into()),
        a.map(|x| fixed(x.rho, 3)).unwrap_or_else(|| "-".into()),
        a.map(|x| fixed(x.wall_s, 3)).unwrap_or_else(|| "-".into()),
        time_cell(&r.vbr),
        time_cell(&r.csr),
        default,
        time_cell(&r.cusparse),
        time_cell(&r.cublas),
        ratio(r.speedup(&r.cusparse)),
        ratio(r.speedup(&r.csr)),
        ratio(r.speedup(&r.cublas)),
        ratio(r.default_over_best()),
        sig(r.vbr_tflops()),
        sig(r.cublas_tflops()),
        breakeven_text(r.breakeven(&r.csr)),
        breakeven_text(r.breakeven(&r.cusparse)),
        sci(r.vbr.err),
        sci(r.cusparse.err),
        sci(r.cublas.err),
        r.check_text(),
    ]
}

/// An aligned Markdown table (valid Markdown, readable as plain text).
pub fn table(rows: &[Row]) -> String {
    let cells: Vec<Vec<String>> = rows.iter().map(table_cells).collect();
    let cols = TABLE_HEAD.len();
    let width = |c: usize| {
        cells.iter().map(|r| r[c].chars().count()).chain(std::iter::once(TABLE_HEAD[c].chars().count())).max().unwrap()
    };
    let widths: Vec<usize> = (0..cols).map(width).collect();
    let pad = |s: &str, c: usize| {
        let fill = " ".repeat(widths[c] - s.chars().count());
        if right(c) {
            format!("{fill}{s}")
        } else {
            format!("{s}{fill}")
        }
    };
    let line = |v: Vec<String>| format!("| {} |\n", v.join(" | "));
    let mut out = line((0..cols).map(|c| pad(TABLE_HEAD[c], c)).collect());
    out.push_str(&line(
        (0..cols)
            .map(|c| {
                let dashes = "-".repeat(widths[c].max(3) - 1);
                if right(c) {
                    format!("{dashes}:")
                } else {
                    format!("{dashes}-")
                }
            })
            .collect(),
    ));
    for r in &cells {
        out.push_str(&line((0..cols).map(|c| pad(&r[c], c)).collect()));
    }
    out
}

/// What the columns mean, for the Markdown file and the end of stdout.
pub const LEGEND: &str = "\
Columns: n = rows of A; N = dense width (B is cols×N, C n×N, both row-major); prec = input precision \
(→ output type when it is not f32); ΔH', ρ' = 1-SA average block height and in-block density \
(spblkAnalysisGetInfo); analysis s = host wall clock of spblkAnalyze (per input type: f32 and tf32 share \
one); times are medians in ms (n/a: the library refuses the combination, e.g. spblk's VBR before its CUDA \
kernel exists; skip: does not fit in memory); VBR = SPBLK_SPMM_ALG_VBR (tf32: SPBLK_SPMM_ALG_VBR_TF32); \
CSR = SPBLK_SPMM_CSR_ALG1; DEFAULT = SPBLK_SPMM_ALG_DEFAULT on the analysed descriptor, with the method it \
ran (from spblk's trace; ≈ when inferred from times); cuSPARSE = CSR SpMM (algorithm in the CSV), same \
types; cuBLAS = cublasGemmEx on the whole matrix stored dense (f32: COMPUTE_32F, tf32: \
COMPUTE_32F_FAST_TF32, f16/bf16: f32 compute). X/VBR = time of X / time of VBR (> 1: VBR faster); DEF/best \
= DEFAULT / min(CSR, VBR) (1: DEFAULT chose the faster one). VBR TF/s counts the stored dense blocks \
(2·stored·N), cuBLAS TF/s 2·n·cols·N. b-e = break-even number of SpMM calls, analysis time / (t_X − t_VBR) \
(never: VBR not faster). err = max over sampled entries of |c − exact| / Σ|a||b| (inputs as stored); check: \
ok, or FAIL with what exceeded its threshold (f16/bf16 1e-2, tf32 1e-3, f32 1e-5).";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        assert_eq!(ms(123.4), "123");
        assert_eq!(ms(1.234), "1.23");
        assert_eq!(ms(0.01234), "0.0123");
        assert_eq!(ms(0.001234), "1.23e-3");
        assert_eq!(ms(f64::NAN), "-");
        assert_eq!(breakeven_text(Some(f64::INFINITY)), "never");
        assert_eq!(breakeven_text(Some(3.2)), "4");
        assert_eq!(breakeven_text(None), "-");
        assert_eq!(sci(f64::INFINITY), "inf");
        assert_eq!(sci(1.234e-7), "1.2e-7");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }

    #[test]
    fn csv_and_table_shapes() {
        let mut r = crate::vbr::tests::row();
        let mut na = r.clone();
        na.vbr = Meas { state: State::NotSupported("not yet".into()), ..r.vbr.clone() };
        r.theta = None;
        let text = csv(&[r, na]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        let cols = CSV_HEADER.split(',').count();
        for l in &lines[1..] {
            assert_eq!(l.split(',').count(), cols, "{l}");
        }
        assert!(lines[2].contains(",n/a,"), "{}", lines[2]);
        let t = table(&[crate::vbr::tests::row()]);
        let bars: Vec<usize> = t.lines().map(|l| l.matches('|').count()).collect();
        assert!(bars.iter().all(|&b| b == TABLE_HEAD.len() + 1), "{bars:?}");
        assert_eq!(table_cells(&crate::vbr::tests::row()).len(), TABLE_HEAD.len());
    }
}
