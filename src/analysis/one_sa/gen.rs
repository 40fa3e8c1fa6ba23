//! Deterministic synthetic matrix generators for 1-SA experiments and tests.
//!
//! Everything here is driven by a tiny SplitMix64 generator seeded from a `u64`, so the same
//! seed always gives the same matrix on every machine and thread count (rows are generated in
//! parallel, each from its own stream derived from `(seed, row)`).

use rayon::prelude::*;

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, good enough for test data.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// A stream derived from `(seed, stream)`; distinct streams are decorrelated.
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut s = SplitMix64::new(seed ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        s.next_u64();
        s
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (`n > 0`), multiply-shift (negligible bias for test data).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

/// A uniformly random permutation of `0..n` (Fisher–Yates).
pub fn random_permutation(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = SplitMix64::stream(seed, 0x5eed_0f9e);
    let mut p: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.below(i + 1);
        p.swap(i, j);
    }
    p
}

fn rows_to_csr(rows: Vec<Vec<usize>>) -> (Vec<usize>, Vec<usize>) {
    let mut row_ptr = Vec::with_capacity(rows.len() + 1);
    row_ptr.push(0);
    let mut acc = 0;
    for r in &rows {
        acc += r.len();
        row_ptr.push(acc);
    }
    let mut col_idx = Vec::with_capacity(acc);
    for r in rows {
        col_idx.extend_from_slice(&r);
    }
    (row_ptr, col_idx)
}

/// The paper's synthetic matrix A(Δ, θ, ρ): `n × n`, tiled into `delta × delta` blocks
/// (the last block row/column is partial when `delta` does not divide `n`); each block is
/// nonzero independently with probability `theta`, and each entry of a nonzero block is
/// nonzero independently with probability `rho`. The rows are then scrambled by a random
/// permutation, so the block structure is hidden from a reader that looks at consecutive
/// rows. Column indices are sorted within each row; there are no duplicates.
///
/// Returns `(row_ptr, col_idx)` (zero-based CSR pattern).
pub fn block_structured(n: usize, delta: usize, theta: f64, rho: f64, seed: u64) -> (Vec<usize>, Vec<usize>) {
    assert!(delta >= 1);
    let nb = n.div_ceil(delta);
    // Nonzero block columns of every block row.
    let block_rows: Vec<Vec<usize>> = (0..nb)
        .into_par_iter()
        .map(|bi| {
            let mut rng = SplitMix64::stream(seed, 0x1000_0000 + bi as u64);
            (0..nb).filter(|_| rng.next_f64() < theta).collect()
        })
        .collect();
    let perm = random_permutation(n, seed);
    let rows: Vec<Vec<usize>> = perm
        .par_iter()
        .map(|&orig| {
            let mut rng = SplitMix64::stream(seed, 0x2000_0000 + orig as u64);
            let mut r = Vec::new();
            for &bj in &block_rows[orig / delta] {
                let c0 = bj * delta;
                let c1 = (c0 + delta).min(n);
                for c in c0..c1 {
                    if rng.next_f64() < rho {
                        r.push(c);
                    }
                }
            }
            r
        })
        .collect();
    rows_to_csr(rows)
}

/// A power-law ("scale-free") random matrix in the Chung–Lu style: `rows × cols` with about
/// `nnz` entries. Row `i` gets an expected length proportional to a Zipf weight
/// `(1 + π(i))^(-alpha)` (`π` a random permutation, so long rows are scattered), and its
/// columns are drawn from a skewed column distribution: with probability 1/2 from a "local"
/// window of 4096 columns around a row-dependent centre (community structure), otherwise
/// from a Zipf(`alpha`) law over a random permutation of the columns (hub columns).
/// Duplicate columns within a row are removed, so the final nnz is slightly below `nnz`.
pub fn power_law(rows: usize, cols: usize, nnz: usize, alpha: f64, seed: u64) -> (Vec<usize>, Vec<usize>) {
    assert!(rows > 0 && cols > 0);
    let rperm = random_permutation(rows, seed ^ 0xa5a5);
    let cperm = random_permutation(cols, seed ^ 0x5a5a);
    let w = |k: usize| (1.0 + k as f64).powf(-alpha);
    let wsum: f64 = (0..rows).into_par_iter().map(w).sum();
    // Cumulative column weights for inverse-CDF sampling of hub columns.
    let mut ccdf = Vec::with_capacity(cols);
    let mut acc = 0.0;
    for k in 0..cols {
        acc += w(k);
        ccdf.push(acc);
    }
    let ctot = acc;
    let window = 4096.min(cols);
    let out: Vec<Vec<usize>> = (0..rows)
        .into_par_iter()
        .map(|i| {
            let mut rng = SplitMix64::stream(seed, 0x3000_0000 + i as u64);
            let expect = nnz as f64 * w(rperm[i]) / wsum;
            let mut len = expect.floor() as usize;
            if rng.next_f64() < expect - expect.floor() {
                len += 1;
            }
            let len = len.min(cols);
            let centre = rng.below(cols);
            let mut r = Vec::with_capacity(len);
            for _ in 0..len {
                let c = if rng.next_f64() < 0.5 {
                    (centre + rng.below(window)) % cols
                } else {
                    let u = rng.next_f64() * ctot;
                    let k = ccdf.partition_point(|&x| x < u).min(cols - 1);
                    cperm[k]
                };
                r.push(c);
            }
            r.sort_unstable();
            r.dedup();
            r
        })
        .collect();
    rows_to_csr(out)
}

/// Uniformly random pattern: every row gets `per_row` columns drawn uniformly (duplicates
/// removed). Used by tests for "no structure at all".
pub fn uniform_random(rows: usize, cols: usize, per_row: usize, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let out: Vec<Vec<usize>> = (0..rows)
        .into_par_iter()
        .map(|i| {
            let mut rng = SplitMix64::stream(seed, 0x4000_0000 + i as u64);
            let mut r: Vec<usize> = (0..per_row.min(cols)).map(|_| rng.below(cols)).collect();
            r.sort_unstable();
            r.dedup();
            r
        })
        .collect();
    rows_to_csr(out)
}

/// R-MAT (Chakrabarti, Zhan, Faloutsos 2004) pattern of `2^scale × 2^scale` with `edges`
/// drawn edges: every edge descends `scale` levels choosing the quadrant with probabilities
/// `a, b, c, 1 − a − b − c` (Graph500 uses 0.57, 0.19, 0.19). Row and column ids are then
/// relabelled by random permutations (so hubs are scattered), duplicates are removed and
/// columns are sorted within each row. Edges are generated in parallel, each chunk from its
/// own stream, so the result does not depend on the thread count.
pub fn rmat(scale: u32, edges: usize, a: f64, b: f64, c: f64, seed: u64) -> (Vec<usize>, Vec<usize>) {
    assert!((1..32).contains(&scale) && a >= 0.0 && b >= 0.0 && c >= 0.0 && a + b + c <= 1.0);
    let n = 1usize << scale;
    let rperm = random_permutation(n, seed ^ 0x7777);
    let cperm = random_permutation(n, seed ^ 0x8888);
    let (rperm, cperm) = (&rperm, &cperm);
    const CHUNK: usize = 1 << 16;
    let (ab, abc) = (a + b, a + b + c);
    let mut keys: Vec<u64> = (0..edges.div_ceil(CHUNK))
        .into_par_iter()
        .flat_map_iter(|k| {
            let mut rng = SplitMix64::stream(seed, 0x5000_0000 + k as u64);
            let m = CHUNK.min(edges - k * CHUNK);
            (0..m).map(move |_| {
                let (mut r, mut col) = (0usize, 0usize);
                for _ in 0..scale {
                    let u = rng.next_f64();
                    let (dr, dc) = if u < a {
                        (0, 0)
                    } else if u < ab {
                        (0, 1)
                    } else if u < abc {
                        (1, 0)
                    } else {
                        (1, 1)
                    };
                    r = 2 * r + dr;
                    col = 2 * col + dc;
                }
                ((rperm[r] as u64) << 32) | cperm[col] as u64
            })
        })
        .collect();
    keys.par_sort_unstable();
    keys.dedup();
    let mut row_ptr = vec![0usize; n + 1];
    for &k in &keys {
        row_ptr[(k >> 32) as usize + 1] += 1;
    }
    for i in 0..n {
        row_ptr[i + 1] += row_ptr[i];
    }
    let col_idx: Vec<usize> = keys.par_iter().map(|&k| (k & 0xFFFF_FFFF) as usize).collect();
    (row_ptr, col_idx)
}
