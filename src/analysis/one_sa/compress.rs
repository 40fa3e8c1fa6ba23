//! Paper Algorithm 1: quotient rows, classes of identical quotient rows, and the global
//! rarest-first block order (ranks) that the search works in.
//!
//! Everything is flat (no vector per row or class) and parallel over fixed chunks of rows or
//! classes; only O(rows) bookkeeping loops are serial.

use super::{chunk_bounds, split_by, BlockDiv, CsrPattern};
use rayon::prelude::*;

/// Classes of identical quotient rows, numbered by first member row.
pub(super) struct Classes {
    /// Pattern of every class as *ranks* (positions in the global block order: fewest classes
    /// first, ties by block id), ascending, so the first `k` entries are the class's `k`
    /// rarest blocks (its prefix).
    pub pat_ptr: Vec<usize>,
    pub pat: Vec<u32>,
    /// Member rows of every class, ascending.
    pub row_ptr: Vec<usize>,
    pub rows: Vec<usize>,
    /// Number of ranks (distinct blocks that occur in some row).
    pub nranks: usize,
}

impl Classes {
    pub fn len(&self) -> usize {
        self.pat_ptr.len() - 1
    }
    #[inline]
    pub fn pat(&self, c: usize) -> &[u32] {
        &self.pat[self.pat_ptr[c]..self.pat_ptr[c + 1]]
    }
    #[inline]
    pub fn height(&self, c: usize) -> usize {
        self.row_ptr[c + 1] - self.row_ptr[c]
    }
}

fn hash_blocks(q: &[u32]) -> u64 {
    let mut h: u64 = 0x243F_6A88_85A3_08D3 ^ q.len() as u64;
    for &b in q {
        h = (h ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    h
}

/// `quotients(n)` is called as soon as the quotient rows are known, with `n = Σ_rows |Q(row)|`
/// (what [`analyze`](super::analyze) needs to start faulting in the values early).
pub(super) fn compress(p: &CsrPattern, bw: usize, quotients: impl FnOnce(usize)) -> Classes {
    let div = BlockDiv::new(bw);
    let nblk = p.cols.div_ceil(bw).max(1);
    assert!(nblk <= u32::MAX as usize && p.rows < u32::MAX as usize, "matrix too large for 1-SA");
    let rows = p.rows;

    // 1. Quotient rows (sorted, distinct blocks) and their hashes, per chunk of rows (weight:
    //    entries + 1 per row), then concatenated.
    let rb = chunk_bounds(rows, |i| p.row_ptr[i] + i);
    let parts: Vec<(Vec<u32>, Vec<u32>, Vec<u64>)> = rb
        .par_windows(2)
        .with_max_len(1)
        .map(|w| {
            let (mut q, mut lens, mut hashes) = (Vec::new(), Vec::with_capacity(w[1] - w[0]), Vec::new());
            hashes.reserve(w[1] - w[0]);
            for i in w[0]..w[1] {
                let start = q.len();
                q.extend(p.row(i).iter().map(|&c| div.block(c) as u32));
                let t = &mut q[start..];
                if !t.windows(2).all(|x| x[0] <= x[1]) {
                    t.sort_unstable();
                }
                let mut n = 0;
                for k in 0..t.len() {
                    if n == 0 || t[k] != t[n - 1] {
                        t[n] = t[k];
                        n += 1;
                    }
                }
                q.truncate(start + n);
                lens.push(n as u32);
                hashes.push(hash_blocks(&q[start..]));
            }
            (q, lens, hashes)
        })
        .collect();
    let mut qptr = Vec::with_capacity(rows + 1);
    qptr.push(0usize);
    for (_, lens, _) in &parts {
        for &n in lens {
            qptr.push(qptr.last().unwrap() + n as usize);
        }
    }
    let mut qidx = vec![0u32; qptr[rows]];
    split_by(&mut qidx, parts.iter().map(|x| x.0.len()))
        .into_par_iter()
        .zip(&parts)
        .for_each(|(dst, src)| dst.copy_from_slice(&src.0));
    let q = |r: usize| &qidx[qptr[r]..qptr[r + 1]];
    quotients(qptr[rows]);

    // 2. Sort rows by (hash, row); a run of equal hashes holds the candidates for identity.
    let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(rows);
    for (_, _, hashes) in &parts {
        keyed.extend(hashes.iter().map(|&h| (h, 0)));
    }
    drop(parts);
    keyed.par_iter_mut().enumerate().for_each(|(r, k)| k.1 = r as u32);
    keyed.par_sort_unstable();

    // 3. Representative (first row with the same quotient row) of every row, parallel over
    //    chunks of `keyed` cut at hash-run boundaries.
    let mut kb = chunk_bounds(rows, |i| i);
    for b in kb.iter_mut().skip(1) {
        while *b < rows && *b > 0 && keyed[*b].0 == keyed[*b - 1].0 {
            *b += 1;
        }
    }
    kb.dedup();
    let repk: Vec<Vec<u32>> = kb
        .par_windows(2)
        .with_max_len(1)
        .map(|w| {
            let mut out = Vec::with_capacity(w[1] - w[0]);
            let mut i = w[0];
            let mut reps: Vec<u32> = Vec::new();
            while i < w[1] {
                let mut j = i + 1;
                while j < w[1] && keyed[j].0 == keyed[i].0 {
                    j += 1;
                }
                let run = &keyed[i..j];
                let first = q(run[0].1 as usize);
                // A long run is one big class (e.g. the empty rows) unless hashes collide:
                // check that in parallel, so that it does not serialize this pass.
                if run.len() >= 1 << 14 && run.par_iter().all(|&(_, r)| q(r as usize) == first) {
                    out.resize(out.len() + run.len(), run[0].1);
                    i = j;
                    continue;
                }
                reps.clear();
                // Rows ascending within the run: the first of each distinct pattern is its rep.
                for &(_, r) in run {
                    match reps.iter().find(|&&x| q(x as usize) == q(r as usize)) {
                        Some(&x) => out.push(x),
                        None => {
                            reps.push(r);
                            out.push(r);
                        }
                    }
                }
                i = j;
            }
            out
        })
        .collect();
    let mut rep = vec![0u32; rows];
    for (&(_, r), &x) in keyed.iter().zip(repk.iter().flatten()) {
        rep[r as usize] = x;
    }
    drop(keyed);
    drop(repk);

    // 4. Classes numbered by first row; member rows by a counting sort (ascending).
    let mut cid = vec![u32::MAX; rows];
    let mut firsts: Vec<u32> = Vec::new();
    for r in 0..rows {
        if rep[r] as usize == r {
            cid[r] = firsts.len() as u32;
            firsts.push(r as u32);
        }
    }
    let nc = firsts.len();
    let mut row_ptr = vec![0usize; nc + 1];
    for &x in &rep {
        row_ptr[cid[x as usize] as usize + 1] += 1;
    }
    for c in 0..nc {
        row_ptr[c + 1] += row_ptr[c];
    }
    let mut fill = row_ptr.clone();
    let mut members = vec![0usize; rows];
    for (r, &x) in rep.iter().enumerate() {
        let c = cid[x as usize] as usize;
        members[fill[c]] = r;
        fill[c] += 1;
    }
    drop((rep, cid, fill));

    // 5. Class patterns (block ids), the block order by class frequency, then ranks.
    let mut pat_ptr = Vec::with_capacity(nc + 1);
    pat_ptr.push(0usize);
    for &f in &firsts {
        pat_ptr.push(pat_ptr.last().unwrap() + q(f as usize).len());
    }
    let cb = chunk_bounds(nc, |c| pat_ptr[c] + c);
    let mut pat = vec![0u32; pat_ptr[nc]];
    split_by(&mut pat, cb.windows(2).map(|w| pat_ptr[w[1]] - pat_ptr[w[0]]))
        .into_par_iter()
        .zip(cb.par_windows(2))
        .with_max_len(1)
        .for_each(|(dst, w)| {
            let mut k = 0;
            for &f in &firsts[w[0]..w[1]] {
                let s = q(f as usize);
                dst[k..k + s.len()].copy_from_slice(s);
                k += s.len();
            }
        });
    drop(qidx);
    let freq = pat
        .par_chunks(1 << 16)
        .fold(
            || vec![0u32; nblk],
            |mut f, c| {
                for &b in c {
                    f[b as usize] += 1;
                }
                f
            },
        )
        .reduce(
            || vec![0u32; nblk],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    let mut used: Vec<u32> = (0..nblk as u32).filter(|&b| freq[b as usize] > 0).collect();
    used.par_sort_unstable_by_key(|&b| (freq[b as usize], b));
    let nranks = used.len();
    let mut rank = vec![u32::MAX; nblk];
    for (r, &b) in used.iter().enumerate() {
        rank[b as usize] = r as u32;
    }
    split_by(&mut pat, cb.windows(2).map(|w| pat_ptr[w[1]] - pat_ptr[w[0]]))
        .into_par_iter()
        .zip(cb.par_windows(2))
        .with_max_len(1)
        .for_each(|(dst, w)| {
            let base = pat_ptr[w[0]];
            let mut bits: Vec<u64> = Vec::new();
            for c in w[0]..w[1] {
                let s = &mut dst[pat_ptr[c] - base..pat_ptr[c + 1] - base];
                s.iter_mut().for_each(|b| *b = rank[*b as usize]);
                if s.len() * 64 >= nranks {
                    // Long patterns (sets): sorted through a bitmap over the ranks.
                    bits.resize(nranks.div_ceil(64), 0);
                    for &b in s.iter() {
                        bits[b as usize >> 6] |= 1 << (b & 63);
                    }
                    let mut k = 0;
                    for (wi, word) in bits.iter_mut().enumerate() {
                        while *word != 0 {
                            s[k] = (wi * 64) as u32 + word.trailing_zeros();
                            *word &= *word - 1;
                            k += 1;
                        }
                    }
                } else {
                    s.sort_unstable();
                }
            }
        });
    Classes { pat_ptr, pat, row_ptr, rows: members, nranks }
}
