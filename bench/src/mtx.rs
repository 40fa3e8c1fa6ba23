//! Matrix Market reader (coordinate format). Only the pattern is kept: the benchmark draws
//! fresh random values. Symmetric, skew-symmetric and Hermitian files are expanded to the
//! full pattern; duplicate entries are merged.

use crate::gen::Pattern;

pub fn read(path: &str) -> Result<Pattern, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    parse(&text).map_err(|e| format!("{path}: {e}"))
}

pub fn parse(text: &str) -> Result<Pattern, String> {
    let mut lines = text.lines();
    let header = lines.next().ok_or("empty file")?;
    let h: Vec<String> = header.split_whitespace().map(|s| s.to_ascii_lowercase()).collect();
    if h.len() < 5 || h[0] != "%%matrixmarket" || h[1] != "matrix" {
        return Err(format!("not a Matrix Market matrix header: '{header}'"));
    }
    if h[2] != "coordinate" {
        return Err(format!("format '{}' is not supported (only coordinate)", h[2]));
    }
    let symmetric = match h[4].as_str() {
        "general" => false,
        "symmetric" | "skew-symmetric" | "hermitian" => true,
        other => return Err(format!("symmetry '{other}' is not supported")),
    };
    let mut data = lines.map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('%'));
    let size = data.next().ok_or("no size line")?;
    let dims: Vec<usize> = size
        .split_whitespace()
        .map(|t| t.parse().map_err(|_| format!("bad size line '{size}'")))
        .collect::<Result<_, _>>()?;
    if dims.len() != 3 {
        return Err(format!("size line '{size}' needs rows, columns and entries"));
    }
    let (rows, cols, entries) = (dims[0], dims[1], dims[2]);
    if rows > i32::MAX as usize || cols > i32::MAX as usize {
        return Err("dimensions exceed 32-bit indices".into());
    }
    let mut keys = Vec::with_capacity(if symmetric { 2 * entries } else { entries });
    let mut seen = 0usize;
    for line in data {
        let mut it = line.split_whitespace();
        let (Some(r), Some(c)) = (it.next(), it.next()) else {
            return Err(format!("bad entry line '{line}'"));
        };
        let r: usize = r.parse().map_err(|_| format!("bad row index in '{line}'"))?;
        let c: usize = c.parse().map_err(|_| format!("bad column index in '{line}'"))?;
        if r == 0 || c == 0 || r > rows || c > cols {
            return Err(format!("entry '{line}' is outside the {rows}×{cols} matrix (indices are 1-based)"));
        }
        let (r, c) = (r as u64 - 1, c as u64 - 1);
        keys.push((r << 32) | c);
        if symmetric && r != c {
            keys.push((c << 32) | r);
        }
        seen += 1;
    }
    if seen != entries {
        return Err(format!("size line announces {entries} entries but {seen} were found"));
    }
    Ok(Pattern::from_pairs(rows, cols, keys))
}

/// Writes the pattern as a `coordinate pattern general` file (1-based), for peers' programs that
/// must run on the benchmark's generated matrices (`--dump-mtx`).
pub fn write(path: &str, p: &Pattern) -> Result<(), String> {
    use std::io::Write;
    let file = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut body = || -> std::io::Result<()> {
        writeln!(w, "%%MatrixMarket matrix coordinate pattern general")?;
        writeln!(w, "{} {} {}", p.rows, p.cols, p.col.len())?;
        for i in 0..p.rows {
            for &c in &p.col[p.ptr[i] as usize..p.ptr[i + 1] as usize] {
                writeln!(w, "{} {}", i + 1, c + 1)?;
            }
        }
        w.flush()
    };
    body().map_err(|e| format!("{path}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_and_symmetric() {
        let g = "%%MatrixMarket matrix coordinate real general\n% c\n3 4 3\n1 2 1.5\n3 4 -2\n1 1 7\n";
        let p = parse(g).unwrap();
        assert_eq!((p.rows, p.cols), (3, 4));
        assert_eq!(p.ptr, vec![0, 2, 2, 3]);
        assert_eq!(p.col, vec![0, 1, 3]);
        let s = "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 1\n3 2\n";
        let p = parse(s).unwrap();
        assert_eq!(p.ptr, vec![0, 2, 4, 5]);
        assert_eq!(p.col, vec![0, 1, 0, 2, 1]);
        p.validate().unwrap();
    }

    #[test]
    fn write_then_read_is_the_same_pattern() {
        let p = crate::gen::Spec::parse("rmat:scale=8,ef=4").unwrap().build().unwrap();
        let path = std::env::temp_dir().join(format!("spblk-bench-mtx-{}.mtx", std::process::id()));
        let path = path.to_str().unwrap();
        write(path, &p).unwrap();
        let q = read(path);
        std::fs::remove_file(path).unwrap();
        assert_eq!(q.unwrap(), p);
    }

    #[test]
    fn rejects_bad_files() {
        assert!(parse("").is_err());
        assert!(parse("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n").is_err());
        assert!(parse("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n").is_err());
        assert!(parse("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n").is_err());
    }
}
