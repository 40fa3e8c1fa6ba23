//! Results as CSV, JSON and an aligned text table.

use std::fmt::Write as _;

use crate::cases::{LibResult, Op, Record};
use crate::stats;

/// What the run was, for the JSON header and the table's title.
pub struct RunInfo {
    pub command: String,
    pub device: String,
    pub driver_version: i32,
    pub sms: i32,
    pub l2_bytes: usize,
    pub total_mem: usize,
    pub copy_bw: f64,
    pub copy_bytes: usize,
    pub nominal_bw: f64,
    pub spblk: String,
    pub cusparse: String,
    pub settings: String,
}

fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        String::new()
    }
}

fn opt(x: Option<usize>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub const CSV_HEADER: &str = "op,variant,matrix,family,rows,cols,nnz,flops,min_bytes,copies,reps,\
spblk_ms,spblk_min_ms,cusparse_ms,cusparse_min_ms,ratio_cusparse_over_spblk,\
spblk_gflops,cusparse_gflops,spblk_gbs,cusparse_gbs,spblk_frac_copy_bw,cusparse_frac_copy_bw,\
spblk_buffer_bytes,cusparse_buffer_bytes,spblk_peak_bytes,cusparse_peak_bytes,\
spblk_meminfo_peak_bytes,cusparse_meminfo_peak_bytes,spblk_alg,cusparse_alg,check_ok,max_err,check,\
spblk_error,cusparse_error,note,spec";

pub fn csv(records: &[Record], copy_bw: f64) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for r in records {
        let (a, b) = (&r.spblk, &r.cusparse);
        let fields: Vec<String> = vec![
            r.op.name().into(),
            r.variant.clone(),
            r.matrix.clone(),
            r.family.clone(),
            r.rows.to_string(),
            r.cols.to_string(),
            r.nnz.to_string(),
            num(r.flops),
            num(r.min_bytes),
            r.copies.to_string(),
            r.reps.to_string(),
            num(a.median_ms),
            num(a.min_ms),
            num(b.median_ms),
            num(b.min_ms),
            num(r.ratio()),
            num(r.gflops(a)),
            num(r.gflops(b)),
            num(r.gbs(a)),
            num(r.gbs(b)),
            num(r.gbs(a) * 1e9 / copy_bw),
            num(r.gbs(b) * 1e9 / copy_bw),
            a.buffer_bytes.to_string(),
            b.buffer_bytes.to_string(),
            opt(a.own_peak_bytes),
            opt(b.own_peak_bytes),
            opt(a.meminfo_peak_bytes),
            opt(b.meminfo_peak_bytes),
            a.alg.clone(),
            b.alg.clone(),
            (r.verdict.ok as u8).to_string(),
            num(r.verdict.max_err),
            r.verdict.msg.clone(),
            a.error.clone().unwrap_or_default(),
            b.error.clone().unwrap_or_default(),
            r.note.clone(),
            r.spec.clone(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        s.push_str(&line.join(","));
        s.push('\n');
    }
    s
}

fn js(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn jn(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

fn jo(x: Option<usize>) -> String {
    x.map(|v| v.to_string()).unwrap_or_else(|| "null".into())
}

fn lib_json(r: &Record, l: &LibResult, copy_bw: f64) -> String {
    let times: Vec<String> = l.times_ms.iter().map(|&t| jn(t)).collect();
    format!(
        "{{\"ran\": {}, \"median_ms\": {}, \"min_ms\": {}, \"max_ms\": {}, \"gflops\": {}, \"gbs\": {}, \
         \"frac_copy_bw\": {}, \"buffer_bytes\": {}, \"peak_bytes\": {}, \"meminfo_peak_bytes\": {}, \"alg\": {}, \
         \"detail\": {}, \"error\": {}, \"times_ms\": [{}]}}",
        l.ran,
        jn(l.median_ms),
        jn(l.min_ms),
        jn(l.max_ms),
        jn(r.gflops(l)),
        jn(r.gbs(l)),
        jn(r.gbs(l) * 1e9 / copy_bw),
        l.buffer_bytes,
        jo(l.own_peak_bytes),
        jo(l.meminfo_peak_bytes),
        js(&l.alg),
        js(&l.detail),
        l.error.as_deref().map(js).unwrap_or_else(|| "null".into()),
        times.join(", ")
    )
}

pub fn json(info: &RunInfo, records: &[Record]) -> String {
    let mut s = String::from("{\n");
    let _ = writeln!(s, "  \"tool\": \"spblk-bench\",");
    let _ = writeln!(s, "  \"command\": {},", js(&info.command));
    let _ = writeln!(
        s,
        "  \"device\": {{\"name\": {}, \"driver_version\": {}, \"sms\": {}, \"l2_bytes\": {}, \"total_mem_bytes\": {}, \
         \"copy_bw_bytes_per_s\": {}, \"copy_bw_buffer_bytes\": {}, \"nominal_bw_bytes_per_s\": {}}},",
        js(&info.device),
        info.driver_version,
        info.sms,
        info.l2_bytes,
        info.total_mem,
        jn(info.copy_bw),
        info.copy_bytes,
        jn(info.nominal_bw)
    );
    let _ = writeln!(s, "  \"spblk\": {},", js(&info.spblk));
    let _ = writeln!(s, "  \"cusparse\": {},", js(&info.cusparse));
    let _ = writeln!(s, "  \"settings\": {},", js(&info.settings));
    s.push_str("  \"records\": [\n");
    for (i, r) in records.iter().enumerate() {
        let _ = write!(
            s,
            "    {{\"op\": {}, \"variant\": {}, \"matrix\": {}, \"family\": {}, \"spec\": {}, \"rows\": {}, \"cols\": {}, \
             \"nnz\": {}, \"flops\": {}, \"min_bytes\": {}, \"copies\": {}, \"reps\": {}, \"ratio_cusparse_over_spblk\": {}, \
             \"check\": {{\"ok\": {}, \"max_err\": {}, \"msg\": {}}}, \"note\": {},\n     \"spblk\": {},\n     \"cusparse\": {}}}",
            js(r.op.name()),
            js(&r.variant),
            js(&r.matrix),
            js(&r.family),
            js(&r.spec),
            r.rows,
            r.cols,
            r.nnz,
            jn(r.flops),
            jn(r.min_bytes),
            r.copies,
            r.reps,
            jn(r.ratio()),
            r.verdict.ok,
            jn(r.verdict.max_err),
            js(&r.verdict.msg),
            js(&r.note),
            lib_json(r, &r.spblk, info.copy_bw),
            lib_json(r, &r.cusparse, info.copy_bw)
        );
        s.push_str(if i + 1 < records.len() { ",\n" } else { "\n" });
    }
    s.push_str("  ]\n}\n");
    s
}

fn ms(x: f64) -> String {
    if !x.is_finite() {
        "-".into()
    } else if x < 0.1 {
        format!("{x:.4}")
    } else if x < 10.0 {
        format!("{x:.3}")
    } else {
        format!("{x:.1}")
    }
}

fn f1(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        "-".into()
    }
}

fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{:.0}%", 100.0 * x)
    } else {
        "-".into()
    }
}

fn mb(x: Option<usize>) -> String {
    x.map(|v| format!("{:.1}", v as f64 / 1048576.0)).unwrap_or_else(|| "-".into())
}

/// Aligns columns: the first `left` columns left-aligned, the rest right-aligned.
pub fn align(rows: &[Vec<String>], left: usize) -> String {
    let cols = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let mut w = vec![0; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let mut s = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            let pad = w[i] - c.chars().count();
            if i > 0 {
                line.push_str("  ");
            }
            if i < left {
                line.push_str(c);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s
}

fn check_word(r: &Record) -> String {
    if !r.verdict.ok {
        "MISMATCH".into()
    } else if r.failed() {
        "ERROR".into()
    } else if r.verdict.msg.starts_with("not checked") {
        "skipped".into()
    } else {
        "ok".into()
    }
}

/// The table printed last: one line per case, then SpGEMM memory, geomeans and problems.
pub fn table(info: &RunInfo, records: &[Record]) -> String {
    let bw = info.copy_bw;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "spblk-bench on {} ({} SMs, L2 {:.0} MB, copy bandwidth {:.0} GB/s measured, read+write)",
        info.device,
        info.sms,
        info.l2_bytes as f64 / 1e6,
        bw / 1e9
    );
    let _ = writeln!(s, "spblk: {}; cuSPARSE: {}", info.spblk, info.cusparse);
    let _ =
        writeln!(s, "ratio = cuSPARSE time / spblk time (> 1: spblk faster); times are medians of CUDA-event timings");
    let mut rows = vec![vec![
        "op".to_string(),
        "variant".into(),
        "matrix".into(),
        "rows".into(),
        "nnz".into(),
        "spblk ms".into(),
        "cuSPARSE ms".into(),
        "ratio".into(),
        "spblk GB/s".into(),
        "%bw".into(),
        "cuSP GB/s".into(),
        "%bw".into(),
        "spblk GF/s".into(),
        "cuSP GF/s".into(),
        "check".into(),
    ]];
    for r in records {
        rows.push(vec![
            r.op.name().into(),
            r.variant.clone(),
            r.matrix.clone(),
            r.rows.to_string(),
            r.nnz.to_string(),
            ms(r.spblk.median_ms),
            ms(r.cusparse.median_ms),
            if r.ratio().is_finite() { format!("{:.2}", r.ratio()) } else { "-".into() },
            f1(r.gbs(&r.spblk)),
            pct(r.gbs(&r.spblk) * 1e9 / bw),
            f1(r.gbs(&r.cusparse)),
            pct(r.gbs(&r.cusparse) * 1e9 / bw),
            f1(r.gflops(&r.spblk)),
            f1(r.gflops(&r.cusparse)),
            check_word(r),
        ]);
    }
    s.push_str(&align(&rows, 3));

    let sp: Vec<&Record> = records.iter().filter(|r| r.op == Op::Spgemm && (r.spblk.ran || r.cusparse.ran)).collect();
    if !sp.is_empty() {
        s.push_str("\nSpGEMM device memory (MB): own = buffers + C arrays the benchmark allocated; meminfo = largest drop of cuMemGetInfo free memory over the protocol's steps (includes library-internal allocations)\n");
        let mut rows = vec![vec![
            "matrix".to_string(),
            "note".into(),
            "spblk own".into(),
            "spblk meminfo".into(),
            "cuSP own".into(),
            "cuSP meminfo".into(),
            "cuSPARSE alg".into(),
        ]];
        for r in sp {
            rows.push(vec![
                r.matrix.clone(),
                r.note.clone(),
                mb(r.spblk.own_peak_bytes),
                mb(r.spblk.meminfo_peak_bytes),
                mb(r.cusparse.own_peak_bytes),
                mb(r.cusparse.meminfo_peak_bytes),
                r.cusparse.alg.clone(),
            ]);
        }
        s.push_str(&align(&rows, 2));
    }

    let mut geo = Vec::new();
    for op in Op::ALL {
        let ratios: Vec<f64> = records.iter().filter(|r| r.op == op).map(|r| r.ratio()).collect();
        let g = stats::geomean(&ratios);
        if g.is_finite() {
            geo.push(format!("{} {:.2} ({} cases)", op.name(), g, ratios.iter().filter(|x| x.is_finite()).count()));
        }
    }
    if !geo.is_empty() {
        let _ = writeln!(s, "\ngeomean ratio by operation: {}", geo.join(", "));
    }
    for r in records {
        for (who, l) in [("spblk", &r.spblk), ("cuSPARSE", &r.cusparse)] {
            if let Some(e) = &l.error {
                let _ = writeln!(s, "ERROR {} {} {} [{who}]: {e}", r.op.name(), r.variant, r.matrix);
            }
        }
    }
    for r in records {
        if !r.verdict.ok {
            let _ = writeln!(s, "MISMATCH {} {} {}: {}", r.op.name(), r.variant, r.matrix, r.verdict.msg);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_and_alignment() {
        assert_eq!(js("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        assert_eq!(csv_field("x,y"), "\"x,y\"");
        assert_eq!(csv_field("plain"), "plain");
        let t = align(&[vec!["a".into(), "1".into()], vec!["bbb".into(), "22".into()]], 1);
        assert_eq!(t, "a     1\nbbb  22\n");
        assert_eq!(jn(f64::NAN), "null");
    }

    fn info() -> RunInfo {
        RunInfo {
            command: "spblk-bench --quick".into(),
            device: "GPU".into(),
            driver_version: 13000,
            sms: 132,
            l2_bytes: 50 << 20,
            total_mem: 80 << 30,
            copy_bw: 3e12,
            copy_bytes: 1 << 30,
            nominal_bw: 3.3e12,
            spblk: "x".into(),
            cusparse: "y".into(),
            settings: "z".into(),
        }
    }

    fn rec(op: Op, spblk_ms: Option<f64>, cusp_ms: Option<f64>, ok: bool) -> Record {
        let lib = |t: Option<f64>| match t {
            Some(t) => {
                LibResult { ran: true, median_ms: t, min_ms: t, max_ms: t, times_ms: vec![t], ..Default::default() }
            }
            None => LibResult::default(),
        };
        Record {
            op,
            variant: "f32".into(),
            matrix: "m".into(),
            family: "uniform".into(),
            spec: "uniform:n=8,deg=2".into(),
            rows: 8,
            cols: 8,
            nnz: 16,
            flops: 32.0,
            min_bytes: 1e6,
            copies: 2,
            reps: 1,
            spblk: lib(spblk_ms),
            cusparse: lib(cusp_ms),
            verdict: crate::check::Verdict { ok, max_err: 0.0, msg: if ok { "ok".into() } else { "bad".into() } },
            note: String::new(),
        }
    }

    #[test]
    fn table_csv_json_for_ran_skipped_and_mismatched_cases() {
        let records = vec![
            rec(Op::Spmv, Some(1.0), Some(2.0), true),
            rec(Op::Spgemm, None, None, true),
            rec(Op::Spmm, Some(1.0), Some(1.0), false),
        ];
        let t = table(&info(), &records);
        assert!(t.contains("2.00"), "{t}");
        assert!(!t.contains("0.0000"), "a case that did not run prints '-', not 0: {t}");
        assert!(t.contains("MISMATCH spmm"), "{t}");
        assert!(t.contains("geomean ratio by operation: spmv 2.00 (1 cases), spmm 1.00 (1 cases)"), "{t}");
        let c = csv(&records, 3e12);
        assert_eq!(c.lines().count(), 4);
        assert!(c.lines().all(|l| l.split(',').count() >= CSV_HEADER.split(',').count()));
        let j = json(&info(), &records);
        assert!(j.contains("\"median_ms\": null"));
        assert_eq!(j.matches("\"op\":").count(), 3);
    }
}
