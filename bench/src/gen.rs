//! Sparse patterns for the benchmark: deterministic generators (same spec and seed, same
//! matrix, whatever the thread count) and the pattern type they produce. Pure host code, no
//! GPU. Every pattern has sorted, distinct column indices in each row.
//!
//! Only the pattern is generated here; the benchmark draws fresh random values for each
//! operation (see `values`).

use rayon::prelude::*;

/// A CSR sparsity pattern with 32-bit indices (what cuSPARSE's `Csr2cscEx2` and SpGEMM take).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub rows: usize,
    pub cols: usize,
    /// Row offsets, `rows + 1` entries, zero-based.
    pub ptr: Vec<i32>,
    /// Column indices, sorted and distinct within each row.
    pub col: Vec<i32>,
}

impl Pattern {
    pub fn nnz(&self) -> usize {
        self.col.len()
    }

    pub fn row(&self, i: usize) -> &[i32] {
        &self.col[self.ptr[i] as usize..self.ptr[i + 1] as usize]
    }

    pub fn row_len(&self, i: usize) -> usize {
        (self.ptr[i + 1] - self.ptr[i]) as usize
    }

    pub fn max_row_len(&self) -> usize {
        (0..self.rows).map(|i| self.row_len(i)).max().unwrap_or(0)
    }

    /// Number of scalar products of A·A (the work of SpGEMM with this pattern for both
    /// operands): Σ over entries (i, k) of the length of row k. Needs a square pattern.
    pub fn products_squared(&self) -> u64 {
        assert_eq!(self.rows, self.cols, "A·A needs a square matrix");
        self.col.par_iter().map(|&k| self.row_len(k as usize) as u64).sum()
    }

    /// Checks the invariants: offsets monotone from 0 to nnz, columns in range, sorted and
    /// distinct within each row. Returns the first violation.
    pub fn validate(&self) -> Result<(), String> {
        if self.ptr.len() != self.rows + 1 {
            return Err(format!("ptr has {} entries for {} rows", self.ptr.len(), self.rows));
        }
        if self.ptr[0] != 0 || self.ptr[self.rows] as usize != self.col.len() {
            return Err(format!(
                "ptr runs from {} to {} but nnz is {}",
                self.ptr[0],
                self.ptr[self.rows],
                self.col.len()
            ));
        }
        if self.col.len() > i32::MAX as usize || self.cols > i32::MAX as usize {
            return Err("does not fit 32-bit indices".into());
        }
        for i in 0..self.rows {
            if self.ptr[i] > self.ptr[i + 1] {
                return Err(format!("ptr decreases at row {i}"));
            }
            let r = self.row(i);
            for (j, &c) in r.iter().enumerate() {
                if c < 0 || c as usize >= self.cols {
                    return Err(format!("row {i}: column {c} out of range 0..{}", self.cols));
                }
                if j > 0 && r[j - 1] >= c {
                    return Err(format!("row {i}: columns not sorted and distinct ({} then {c})", r[j - 1]));
                }
            }
        }
        Ok(())
    }

    /// Builds a pattern from (row, column) pairs in any order; duplicates are merged.
    pub fn from_pairs(rows: usize, cols: usize, mut keys: Vec<u64>) -> Pattern {
        keys.par_sort_unstable();
        keys.dedup();
        let mut ptr = vec![0i32; rows + 1];
        for &k in &keys {
            ptr[(k >> 32) as usize + 1] += 1;
        }
        for i in 0..rows {
            ptr[i + 1] += ptr[i];
        }
        let col = keys.par_iter().map(|&k| (k & 0xffff_ffff) as i32).collect();
        Pattern { rows, cols, ptr, col }
    }

    /// Builds a pattern from rows produced independently (in parallel, in chunks of rows).
    /// `row(i, rng_out)` appends row i's sorted, distinct columns.
    fn from_rows(rows: usize, cols: usize, row: impl Fn(usize, &mut Vec<i32>) + Sync) -> Pattern {
        const CHUNK: usize = 2048;
        let chunks: Vec<(Vec<i32>, Vec<i32>)> = (0..rows.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(rows));
                let mut lens = Vec::with_capacity(hi - lo);
                let mut out = Vec::new();
                for i in lo..hi {
                    let before = out.len();
                    row(i, &mut out);
                    lens.push((out.len() - before) as i32);
                }
                (lens, out)
            })
            .collect();
        let nnz: usize = chunks.iter().map(|c| c.1.len()).sum();
        assert!(nnz <= i32::MAX as usize, "pattern has {nnz} entries; 32-bit indices hold at most 2^31-1");
        let mut ptr = Vec::with_capacity(rows + 1);
        ptr.push(0i32);
        let mut col = Vec::with_capacity(nnz);
        for (lens, c) in chunks {
            for l in lens {
                let last = *ptr.last().unwrap();
                ptr.push(last + l);
            }
            col.extend_from_slice(&c);
        }
        Pattern { rows, cols, ptr, col }
    }

    /// The pattern with its rows permuted: row p of the result is row `perm[p]` of `self`.
    pub fn permute_rows(&self, perm: &[usize]) -> Pattern {
        assert_eq!(perm.len(), self.rows);
        let mut ptr = Vec::with_capacity(self.rows + 1);
        ptr.push(0i32);
        for &p in perm {
            let last = *ptr.last().unwrap();
            ptr.push(last + self.row_len(p) as i32);
        }
        let mut col = vec![0i32; self.nnz()];
        // Fill in parallel: each output row is a disjoint slice.
        let mut slices: Vec<&mut [i32]> = Vec::with_capacity(self.rows);
        let mut rest = col.as_mut_slice();
        for &p in perm {
            let (head, tail) = rest.split_at_mut(self.row_len(p));
            slices.push(head);
            rest = tail;
        }
        slices.into_par_iter().zip(perm.par_iter()).for_each(|(dst, &p)| dst.copy_from_slice(self.row(p)));
        Pattern { rows: self.rows, cols: self.cols, ptr, col }
    }
}

// ---------------------------------------------------------------------------------------
// Random numbers: xoshiro256++ seeded through SplitMix64, one independent stream per
// (seed, stream id), so that parallel generation is deterministic.

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// Stream `stream` of seed `seed`.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut x = seed;
        let a = splitmix(&mut x);
        let mut y = stream ^ a.rotate_left(29) ^ 0xD1B5_4A32_D192_ED03;
        let s = [splitmix(&mut y), splitmix(&mut y), splitmix(&mut y), splitmix(&mut y)];
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let r = self.s[0].wrapping_add(self.s[3]).rotate_left(23).wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        r
    }

    /// Uniform in 0..n (Lemire's multiply; the bias is below 2^-32 for the sizes used here).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A random permutation of 0..n (Fisher–Yates).
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        p
    }
}

/// Appends `k` distinct columns drawn uniformly from 0..n, sorted.
pub fn sample_sorted_distinct(rng: &mut Rng, n: usize, k: usize, out: &mut Vec<i32>) {
    let k = k.min(n);
    if k == 0 {
        return;
    }
    if k == n {
        out.extend(0..n as i32);
        return;
    }
    if 4 * k >= n {
        // Selection sampling (Knuth's algorithm S): one pass over 0..n, exactly k chosen.
        let mut need = k;
        for j in 0..n {
            if rng.below((n - j) as u64) < need as u64 {
                out.push(j as i32);
                need -= 1;
                if need == 0 {
                    break;
                }
            }
        }
        return;
    }
    let start = out.len();
    let mut missing = k;
    while missing > 0 {
        for _ in 0..missing {
            out.push(rng.below(n as u64) as i32);
        }
        out[start..].sort_unstable();
        let mut w = start;
        for r in start..out.len() {
            if r == start || out[r] != out[w - 1] {
                out[w] = out[r];
                w += 1;
            }
        }
        out.truncate(w);
        missing = k - (out.len() - start);
    }
}

// ---------------------------------------------------------------------------------------
// Generators.

/// R-MAT (Chakrabarti et al.): 2^scale vertices, edge_factor·2^scale edges drawn by
/// recursive quadrant choice with probabilities a, b, c, 1−a−b−c; duplicates merged. With
/// `scramble`, vertex ids are permuted at random (as Graph500 does), so the hubs are not all
/// at the low indices.
pub fn rmat(scale: u32, edge_factor: u32, a: f64, b: f64, c: f64, scramble: bool, seed: u64) -> Pattern {
    assert!((1..=30).contains(&scale), "R-MAT scale must be 1..=30");
    assert!(a > 0.0 && b >= 0.0 && c >= 0.0 && a + b + c < 1.0, "R-MAT needs a>0, b,c>=0, a+b+c<1");
    let n = 1usize << scale;
    let edges = n * edge_factor as usize;
    // 16-bit thresholds: one 64-bit draw decides four levels.
    let ta = (a * 65536.0) as u64;
    let tb = ((a + b) * 65536.0) as u64;
    let tc = ((a + b + c) * 65536.0) as u64;
    const CHUNK: usize = 1 << 16;
    let perm = if scramble { Rng::new(seed, u64::MAX).permutation(n) } else { Vec::new() };
    let keys: Vec<u64> = (0..edges.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|ch| {
            let mut rng = Rng::new(seed, ch as u64);
            let count = CHUNK.min(edges - ch * CHUNK);
            let perm = &perm;
            (0..count).map(move |_| {
                let (mut r, mut c) = (0usize, 0usize);
                let mut bits = 0u64;
                for level in 0..scale {
                    if level % 4 == 0 {
                        bits = rng.next_u64();
                    }
                    let u = bits & 0xffff;
                    bits >>= 16;
                    let (dr, dc) = if u < ta {
                        (0, 0)
                    } else if u < tb {
                        (0, 1)
                    } else if u < tc {
                        (1, 0)
                    } else {
                        (1, 1)
                    };
                    r = (r << 1) | dr;
                    c = (c << 1) | dc;
                }
                if !perm.is_empty() {
                    r = perm[r];
                    c = perm[c];
                }
                ((r as u64) << 32) | c as u64
            })
        })
        .collect();
    Pattern::from_pairs(n, n, keys)
}

/// Block-structured matrix as in the 1-SA paper's synthetic set: an n×n matrix of Δ×Δ
/// blocks; each block is nonzero with probability θ, each entry of a nonzero block with
/// probability ρ; then the rows are scrambled by a random permutation (so a reordering has
/// to find the blocks again). Expected nnz = θ·ρ·n².
pub fn block(n: usize, delta: usize, theta: f64, rho: f64, seed: u64) -> Pattern {
    assert!(delta >= 1 && n >= 1, "block: n and delta must be positive");
    assert!((0.0..=1.0).contains(&theta) && (0.0..=1.0).contains(&rho), "block: theta and rho in [0, 1]");
    let nb = n.div_ceil(delta);
    // Nonzero block columns of each block row.
    let block_cols: Vec<Vec<usize>> = (0..nb)
        .into_par_iter()
        .map(|br| {
            let mut rng = Rng::new(seed, (1u64 << 40) | br as u64);
            (0..nb).filter(|_| rng.unit() < theta).collect()
        })
        .collect();
    let t_rho = (rho * 65536.0).round() as u64;
    let ordered = Pattern::from_rows(n, n, |i, out| {
        let mut rng = Rng::new(seed, (2u64 << 40) | i as u64);
        let mut bits = 0u64;
        let mut left = 0;
        for &bc in &block_cols[i / delta] {
            for j in bc * delta..((bc + 1) * delta).min(n) {
                if left == 0 {
                    bits = rng.next_u64();
                    left = 4;
                }
                let u = bits & 0xffff;
                bits >>= 16;
                left -= 1;
                if u < t_rho {
                    out.push(j as i32);
                }
            }
        }
    });
    let perm = Rng::new(seed, 3u64 << 40).permutation(n);
    ordered.permute_rows(&perm)
}

/// Uniform random rows: every row has exactly min(deg, n) distinct columns drawn uniformly.
pub fn uniform(rows: usize, cols: usize, deg: usize, seed: u64) -> Pattern {
    Pattern::from_rows(rows, cols, |i, out| {
        let mut rng = Rng::new(seed, i as u64);
        sample_sorted_distinct(&mut rng, cols, deg, out);
    })
}

/// Power-law row lengths: row i has ⌊min·u^(−1/(α−1))⌋ entries (a Pareto tail with
/// exponent α, u uniform in (0, 1]), clipped to [min, max] and to n, at uniform random
/// distinct columns. Mean ≈ min·(α−1)/(α−2) for α > 2.
pub fn power_law(rows: usize, cols: usize, alpha: f64, min: usize, max: usize, seed: u64) -> Pattern {
    assert!(alpha > 1.0, "power law: alpha must exceed 1");
    assert!(min >= 1 && max >= min, "power law: need 1 <= min <= max");
    Pattern::from_rows(rows, cols, |i, out| {
        let mut rng = Rng::new(seed, i as u64);
        let u = 1.0 - rng.unit(); // (0, 1]
        let len = (min as f64 * u.powf(-1.0 / (alpha - 1.0))).floor();
        let len = if len.is_finite() { (len as usize).clamp(min, max) } else { max };
        sample_sorted_distinct(&mut rng, cols, len, out);
    })
}

/// 2-D Poisson, 5-point stencil on an nx×ny grid (natural ordering).
pub fn poisson2d(nx: usize, ny: usize) -> Pattern {
    let n = nx * ny;
    Pattern::from_rows(n, n, |i, out| {
        let (x, y) = (i % nx, i / nx);
        if y > 0 {
            out.push((i - nx) as i32);
        }
        if x > 0 {
            out.push((i - 1) as i32);
        }
        out.push(i as i32);
        if x + 1 < nx {
            out.push((i + 1) as i32);
        }
        if y + 1 < ny {
            out.push((i + nx) as i32);
        }
    })
}

/// 3-D Poisson, 7-point stencil on an nx×ny×nz grid (natural ordering).
pub fn poisson3d(nx: usize, ny: usize, nz: usize) -> Pattern {
    let n = nx * ny * nz;
    let plane = nx * ny;
    Pattern::from_rows(n, n, |i, out| {
        let (x, y, z) = (i % nx, (i / nx) % ny, i / plane);
        if z > 0 {
            out.push((i - plane) as i32);
        }
        if y > 0 {
            out.push((i - nx) as i32);
        }
        if x > 0 {
            out.push((i - 1) as i32);
        }
        out.push(i as i32);
        if x + 1 < nx {
            out.push((i + 1) as i32);
        }
        if y + 1 < ny {
            out.push((i + nx) as i32);
        }
        if z + 1 < nz {
            out.push((i + plane) as i32);
        }
    })
}

// ---------------------------------------------------------------------------------------
// Values.

/// Fresh random values for `len` entries of stream `stream`: uniform magnitude in [0.25, 1)
/// with a random sign, so no value is zero or tiny and sums do not all cancel.
pub fn values_f64(len: usize, seed: u64, stream: u64) -> Vec<f64> {
    const CHUNK: usize = 1 << 16;
    let mut v = vec![0f64; len];
    v.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
        let mut rng = Rng::new(seed ^ 0x5EED_0000_0000_0000, (stream << 32) | c as u64);
        for x in out {
            let r = rng.next_u64();
            let mag = 0.25 + 0.75 * ((r >> 11) as f64 * (1.0 / (1u64 << 53) as f64));
            *x = if r & 1 == 1 { -mag } else { mag };
        }
    });
    v
}

#[cfg(test)]
pub fn values_f32(len: usize, seed: u64, stream: u64) -> Vec<f32> {
    values_f64(len, seed, stream).into_par_iter().map(|x| x as f32).collect()
}

// ---------------------------------------------------------------------------------------
// Specs: "family:key=value,..." strings naming a generated matrix.

/// A matrix to benchmark: a generator with its parameters, or a Matrix Market file.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    Rmat { scale: u32, ef: u32, a: f64, b: f64, c: f64, scramble: bool, seed: u64 },
    Block { n: usize, delta: usize, theta: f64, rho: f64, seed: u64 },
    Uniform { n: usize, deg: usize, seed: u64 },
    PowerLaw { n: usize, alpha: f64, min: usize, max: usize, seed: u64 },
    Poisson2d { n: usize },
    Poisson3d { n: usize },
    Mtx { path: String },
}

/// The text `--gen` takes, with every key and its default.
pub const SPEC_HELP: &str =
    "  rmat:scale=S,ef=E[,a=0.57,b=0.19,c=0.19,scramble=1,seed=1]   R-MAT, 2^S vertices, E·2^S edges
  block:n=N,delta=D,theta=T,rho=R[,seed=1]     N×N, D×D blocks, fraction T nonzero, density R inside, rows scrambled
  uniform:n=N,deg=K[,seed=1]                   N×N, K distinct uniform random columns per row
  powerlaw:n=N[,alpha=2.2,min=4,max=65536,seed=1]   N×N, Pareto row lengths, uniform columns
  poisson2d:n=N                                5-point stencil on an N×N grid
  poisson3d:n=N                                7-point stencil on an N×N×N grid
  mtx:PATH                                     a Matrix Market file (pattern only; values are drawn fresh)";

impl Spec {
    pub fn parse(text: &str) -> Result<Spec, String> {
        let (family, rest) = text.split_once(':').unwrap_or((text, ""));
        if family == "mtx" {
            return Ok(Spec::Mtx { path: rest.to_string() });
        }
        let mut kv = std::collections::BTreeMap::new();
        for part in rest.split(',').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| format!("'{part}' in '{text}' is not key=value"))?;
            kv.insert(k.trim().to_string(), v.trim().to_string());
        }
        let mut take = |key: &str, default: Option<&str>| -> Result<String, String> {
            kv.remove(key).or(default.map(str::to_string)).ok_or_else(|| format!("'{text}' needs {key}=..."))
        };
        fn num<T: std::str::FromStr>(key: &str, v: String) -> Result<T, String> {
            // Allow 2^k and 1e6 style sizes.
            if let Some(exp) = v.strip_prefix("2^") {
                let e: u32 = exp.parse().map_err(|_| format!("{key}={v} is not a number"))?;
                return format!("{}", 1u64 << e).parse().map_err(|_| format!("{key}={v} is out of range"));
            }
            v.parse().or_else(|_| {
                v.parse::<f64>()
                    .ok()
                    .filter(|f| f.fract() == 0.0)
                    .and_then(|f| format!("{f:.0}").parse().ok())
                    .ok_or_else(|| format!("{key}={v} is not a valid number"))
            })
        }
        let spec = match family {
            "rmat" => Spec::Rmat {
                scale: num("scale", take("scale", None)?)?,
                ef: num("ef", take("ef", None)?)?,
                a: num("a", take("a", Some("0.57"))?)?,
                b: num("b", take("b", Some("0.19"))?)?,
                c: num("c", take("c", Some("0.19"))?)?,
                scramble: num::<u32>("scramble", take("scramble", Some("1"))?)? != 0,
                seed: num("seed", take("seed", Some("1"))?)?,
            },
            "block" => Spec::Block {
                n: num("n", take("n", None)?)?,
                delta: num("delta", take("delta", None)?)?,
                theta: num("theta", take("theta", None)?)?,
                rho: num("rho", take("rho", None)?)?,
                seed: num("seed", take("seed", Some("1"))?)?,
            },
            "uniform" => Spec::Uniform {
                n: num("n", take("n", None)?)?,
                deg: num("deg", take("deg", None)?)?,
                seed: num("seed", take("seed", Some("1"))?)?,
            },
            "powerlaw" => Spec::PowerLaw {
                n: num("n", take("n", None)?)?,
                alpha: num("alpha", take("alpha", Some("2.2"))?)?,
                min: num("min", take("min", Some("4"))?)?,
                max: num("max", take("max", Some("65536"))?)?,
                seed: num("seed", take("seed", Some("1"))?)?,
            },
            "poisson2d" => Spec::Poisson2d { n: num("n", take("n", None)?)? },
            "poisson3d" => Spec::Poisson3d { n: num("n", take("n", None)?)? },
            other => return Err(format!("unknown matrix family '{other}' in '{text}'")),
        };
        if let Some(k) = kv.keys().next() {
            return Err(format!("unknown key '{k}' in '{text}'"));
        }
        spec.check()?;
        Ok(spec)
    }

    fn check(&self) -> Result<(), String> {
        let bad = |why: &str| Err(format!("{}: {why}", self.name()));
        match *self {
            Spec::Rmat { scale, ef, a, b, c, .. } => {
                if !(1..=30).contains(&scale) || ef == 0 {
                    return bad("scale must be 1..=30 and ef positive");
                }
                if !(a > 0.0 && b >= 0.0 && c >= 0.0 && a + b + c < 1.0) {
                    return bad("needs a>0, b,c>=0 and a+b+c<1");
                }
            }
            Spec::Block { n, delta, theta, rho, .. } => {
                if n == 0 || delta == 0 || !(0.0..=1.0).contains(&theta) || !(0.0..=1.0).contains(&rho) {
                    return bad("needs n, delta > 0 and theta, rho in [0, 1]");
                }
            }
            Spec::Uniform { n, .. } | Spec::Poisson2d { n } | Spec::Poisson3d { n } => {
                if n == 0 {
                    return bad("n must be positive");
                }
            }
            Spec::PowerLaw { n, alpha, min, max, .. } => {
                if n == 0 || alpha <= 1.0 || min == 0 || max < min {
                    return bad("needs n > 0, alpha > 1, 1 <= min <= max");
                }
            }
            Spec::Mtx { .. } => {}
        }
        Ok(())
    }

    /// A short name for tables and file names.
    pub fn name(&self) -> String {
        match self {
            Spec::Rmat { scale, ef, .. } => format!("rmat-s{scale}-ef{ef}"),
            Spec::Block { n, delta, theta, rho, .. } => format!("block-{n}-d{delta}-t{theta}-r{rho}"),
            Spec::Uniform { n, deg, .. } => format!("uniform-{n}-deg{deg}"),
            Spec::PowerLaw { n, alpha, min, .. } => format!("powerlaw-{n}-a{alpha}-min{min}"),
            Spec::Poisson2d { n } => format!("poisson2d-{n}"),
            Spec::Poisson3d { n } => format!("poisson3d-{n}"),
            Spec::Mtx { path } => {
                let file = path.rsplit('/').next().unwrap_or(path);
                file.strip_suffix(".mtx").unwrap_or(file).to_string()
            }
        }
    }

    /// The matrix family, for grouping results.
    pub fn family(&self) -> &'static str {
        match self {
            Spec::Rmat { .. } => "rmat",
            Spec::Block { .. } => "block",
            Spec::Uniform { .. } => "uniform",
            Spec::PowerLaw { .. } => "powerlaw",
            Spec::Poisson2d { .. } => "poisson2d",
            Spec::Poisson3d { .. } => "poisson3d",
            Spec::Mtx { .. } => "mtx",
        }
    }

    /// The spec in the form `parse` reads.
    pub fn text(&self) -> String {
        match self {
            Spec::Rmat { scale, ef, a, b, c, scramble, seed } => {
                format!("rmat:scale={scale},ef={ef},a={a},b={b},c={c},scramble={},seed={seed}", *scramble as u32)
            }
            Spec::Block { n, delta, theta, rho, seed } => {
                format!("block:n={n},delta={delta},theta={theta},rho={rho},seed={seed}")
            }
            Spec::Uniform { n, deg, seed } => format!("uniform:n={n},deg={deg},seed={seed}"),
            Spec::PowerLaw { n, alpha, min, max, seed } => {
                format!("powerlaw:n={n},alpha={alpha},min={min},max={max},seed={seed}")
            }
            Spec::Poisson2d { n } => format!("poisson2d:n={n}"),
            Spec::Poisson3d { n } => format!("poisson3d:n={n}"),
            Spec::Mtx { path } => format!("mtx:{path}"),
        }
    }

    /// Generates (or reads) the pattern.
    pub fn build(&self) -> Result<Pattern, String> {
        Ok(match *self {
            Spec::Rmat { scale, ef, a, b, c, scramble, seed } => rmat(scale, ef, a, b, c, scramble, seed),
            Spec::Block { n, delta, theta, rho, seed } => block(n, delta, theta, rho, seed),
            Spec::Uniform { n, deg, seed } => uniform(n, n, deg, seed),
            Spec::PowerLaw { n, alpha, min, max, seed } => power_law(n, n, alpha, min, max, seed),
            Spec::Poisson2d { n } => poisson2d(n, n),
            Spec::Poisson3d { n } => poisson3d(n, n, n),
            Spec::Mtx { ref path } => crate::mtx::read(path)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distinct_sorted(p: &Pattern) {
        p.validate().unwrap();
    }

    #[test]
    fn rng_is_deterministic_and_streams_differ() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7, 3).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut r1 = Rng::new(7, 3);
        let mut r2 = Rng::new(7, 4);
        let mut r3 = Rng::new(8, 3);
        let x = r1.next_u64();
        assert_ne!(x, r2.next_u64());
        assert_ne!(x, r3.next_u64());
        let mut r = Rng::new(1, 1);
        for _ in 0..10_000 {
            assert!(r.below(10) < 10);
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn permutation_is_a_permutation() {
        let mut p = Rng::new(3, 0).permutation(1000);
        p.sort_unstable();
        assert_eq!(p, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn sampling_gives_k_sorted_distinct() {
        let mut rng = Rng::new(5, 5);
        for &(n, k) in &[(10usize, 0usize), (10, 10), (10, 20), (1000, 3), (1000, 300), (1000, 999), (1 << 20, 64)] {
            let mut out = vec![-7];
            sample_sorted_distinct(&mut rng, n, k, &mut out);
            assert_eq!(out[0], -7, "must append");
            let s = &out[1..];
            assert_eq!(s.len(), k.min(n));
            assert!(s.windows(2).all(|w| w[0] < w[1]));
            assert!(s.iter().all(|&c| c >= 0 && (c as usize) < n));
        }
    }

    #[test]
    fn poisson2d_shape_and_nnz() {
        let p = poisson2d(7, 5);
        assert_eq!((p.rows, p.cols), (35, 35));
        assert_eq!(p.nnz(), 5 * 35 - 2 * 7 - 2 * 5);
        distinct_sorted(&p);
        // Interior row: 5 entries, symmetric pattern.
        assert_eq!(p.row(7 + 1), &[1, 7, 8, 9, 15]);
    }

    #[test]
    fn poisson3d_shape_and_nnz() {
        let (nx, ny, nz) = (6, 5, 4);
        let p = poisson3d(nx, ny, nz);
        let n = nx * ny * nz;
        assert_eq!((p.rows, p.cols), (n, n));
        assert_eq!(p.nnz(), 7 * n - 2 * (nx * ny + ny * nz + nx * nz));
        distinct_sorted(&p);
        assert_eq!(p.max_row_len(), 7);
        // The pattern is symmetric.
        let mut t = std::collections::HashSet::new();
        for i in 0..n {
            for &c in p.row(i) {
                t.insert((i as i32, c));
            }
        }
        assert!(t.iter().all(|&(r, c)| t.contains(&(c, r))));
    }

    #[test]
    fn uniform_rows_have_exact_degree() {
        let p = uniform(3000, 500, 17, 9);
        assert_eq!((p.rows, p.cols), (3000, 500));
        assert_eq!(p.nnz(), 3000 * 17);
        assert!((0..p.rows).all(|i| p.row_len(i) == 17));
        distinct_sorted(&p);
        assert_eq!(p, uniform(3000, 500, 17, 9), "same seed, same matrix");
        assert_ne!(p, uniform(3000, 500, 17, 10));
        // Degree above the column count saturates.
        let full = uniform(10, 8, 20, 1);
        assert_eq!(full.nnz(), 80);
    }

    #[test]
    fn rmat_shape_duplicates_and_skew() {
        let p = rmat(12, 8, 0.57, 0.19, 0.19, true, 4);
        let n = 1 << 12;
        assert_eq!((p.rows, p.cols), (n, n));
        assert!(p.nnz() <= 8 * n && p.nnz() > 4 * n, "nnz {} (duplicates merged)", p.nnz());
        distinct_sorted(&p);
        // Skewed: the longest row is far above the mean of 8.
        assert!(p.max_row_len() > 64, "max row {}", p.max_row_len());
        assert_eq!(p, rmat(12, 8, 0.57, 0.19, 0.19, true, 4));
        // Without scrambling, vertex 0 is the hub.
        let q = rmat(12, 8, 0.57, 0.19, 0.19, false, 4);
        assert_eq!(q.row_len(0), q.max_row_len());
        assert_eq!(q.nnz(), p.nnz(), "scrambling relabels, it does not change the edge set's size");
    }

    #[test]
    fn block_structure_and_density() {
        let (n, d, theta, rho) = (2048, 32, 0.1, 0.4);
        let p = block(n, d, theta, rho, 11);
        assert_eq!((p.rows, p.cols), (n, n));
        distinct_sorted(&p);
        let expected = theta * rho * (n * n) as f64;
        let got = p.nnz() as f64;
        assert!((got - expected).abs() < 0.1 * expected, "nnz {got} vs expected {expected}");
        // Unscrambled, every row of a block row touches only that block row's block columns:
        // rows from one block row share column-block sets up to density sampling. Check that
        // the number of distinct nonzero blocks is close to theta * nb^2.
        let mut blocks = std::collections::HashSet::new();
        let perm = Rng::new(11, 3u64 << 40).permutation(n);
        for (pos, &orig) in perm.iter().enumerate() {
            for &c in p.row(pos) {
                blocks.insert((orig / d, c as usize / d));
            }
        }
        let nb = n / d;
        let eb = theta * (nb * nb) as f64;
        assert!((blocks.len() as f64 - eb).abs() < 0.15 * eb, "{} nonzero blocks vs {eb}", blocks.len());
        // Rows are scrambled: row 0 and row 1 are rarely from the same block row.
        assert_eq!(p, block(n, d, theta, rho, 11));
    }

    #[test]
    fn block_with_partial_last_block() {
        let p = block(100, 32, 1.0, 1.0, 1);
        assert_eq!(p.nnz(), 100 * 100);
        distinct_sorted(&p);
    }

    #[test]
    fn power_law_lengths() {
        let p = power_law(20000, 20000, 2.2, 4, 5000, 2);
        distinct_sorted(&p);
        assert!((0..p.rows).all(|i| (4..=5000).contains(&p.row_len(i))));
        let mean = p.nnz() as f64 / p.rows as f64;
        // Pareto mean 4·1.2/0.2 = 24 before clipping; clipping at 5000 lowers it a little.
        assert!((12.0..30.0).contains(&mean), "mean row length {mean}");
        assert!(p.max_row_len() > 500, "heavy tail: max {}", p.max_row_len());
        assert_eq!(p, power_law(20000, 20000, 2.2, 4, 5000, 2));
    }

    #[test]
    fn from_pairs_merges_and_sorts() {
        let keys = vec![(1u64 << 32) | 3, 2, (1 << 32) | 3, 1, 1 << 32];
        let p = Pattern::from_pairs(3, 4, keys);
        assert_eq!(p.ptr, vec![0, 2, 4, 4]);
        assert_eq!(p.col, vec![1, 2, 0, 3]);
        p.validate().unwrap();
    }

    #[test]
    fn validate_rejects_bad_patterns() {
        let bad = Pattern { rows: 2, cols: 3, ptr: vec![0, 2, 3], col: vec![1, 1, 0] };
        assert!(bad.validate().is_err());
        let bad = Pattern { rows: 1, cols: 3, ptr: vec![0, 1], col: vec![3] };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn products_of_square() {
        // [[1,1],[0,1]]: row 0 has entries at cols 0 and 1 (lengths 2 and 1), row 1 at col 1.
        let p = Pattern { rows: 2, cols: 2, ptr: vec![0, 2, 3], col: vec![0, 1, 1] };
        assert_eq!(p.products_squared(), 2 + 1 + 1);
    }

    #[test]
    fn values_are_nonzero_and_deterministic() {
        let v = values_f32(100_000, 3, 1);
        assert!(v.iter().all(|&x| (0.25..1.0).contains(&x.abs())));
        assert_eq!(v, values_f32(100_000, 3, 1));
        assert_ne!(v, values_f32(100_000, 3, 2));
        let pos = v.iter().filter(|&&x| x > 0.0).count();
        assert!((45_000..55_000).contains(&pos));
    }

    #[test]
    fn specs_round_trip() {
        for text in [
            "rmat:scale=20,ef=16",
            "block:n=65536,delta=32,theta=0.05,rho=0.3",
            "uniform:n=2^20,deg=32",
            "powerlaw:n=1048576",
            "poisson2d:n=2048",
            "poisson3d:n=128",
            "mtx:/x/y/cora.mtx",
        ] {
            let s = Spec::parse(text).unwrap();
            assert_eq!(Spec::parse(&s.text()).unwrap(), s, "{text}");
        }
        assert_eq!(Spec::parse("uniform:n=2^20,deg=32").unwrap(), Spec::Uniform { n: 1 << 20, deg: 32, seed: 1 });
        assert_eq!(Spec::parse("mtx:/x/y/cora.mtx").unwrap().name(), "cora");
        assert!(Spec::parse("rmat:scale=20").is_err());
        assert!(Spec::parse("rmat:scale=20,ef=16,zz=1").is_err());
        assert!(Spec::parse("nope:n=1").is_err());
        assert!(Spec::parse("rmat:scale=20,ef=16,a=0.9,b=0.1").is_err());
    }

    #[test]
    fn specs_build() {
        for text in ["rmat:scale=8,ef=4", "block:n=256,delta=16,theta=0.2,rho=0.5", "poisson2d:n=9"] {
            let s = Spec::parse(text).unwrap();
            s.build().unwrap().validate().unwrap();
        }
    }
}
