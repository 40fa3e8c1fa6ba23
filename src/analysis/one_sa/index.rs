//! The inverted prefix index (block → classes whose prefix holds the block, in class order)
//! and the windows of the budget.

use super::compress::Classes;
use super::{chunk_bounds_n, split_by, OneSaParams};
use rayon::prelude::*;

/// 64-bit block signature of a set: bit `hash(b) mod 64` for every block `b`. Every bit of
/// `sig(d) & !sig(P)` comes from at least one block of `d` that is not in `P`, so
/// `|P ∩ d| ≤ |d| − popcount(sig(d) & !sig(P))`.
#[inline]
pub(super) fn block_sig(b: u32) -> u64 {
    1u64 << ((b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// Second, 128-bit signature of a set (bit `hash'(b) mod 128`, a hash independent of
/// [`block_sig`]'s, so the two filters' collisions are independent).
#[inline]
pub(super) fn block_sig2(b: u32) -> (u64, u64) {
    let h = (b as u64).wrapping_mul(0x2545_F491_4F6C_DD1D) >> 57;
    let bit = 1u64 << (h & 63);
    if h < 64 {
        (bit, 0)
    } else {
        (0, bit)
    }
}

/// Per class: its [`block_sig2`] signature and where its pattern starts. A candidate that
/// passes the entry filters is checked against this one cache line before its pattern is
/// read (most candidates that pass the 64-bit entry signature are ruled out here).
#[derive(Clone, Copy, Default)]
pub(super) struct ClassSig {
    pub w: (u64, u64),
    pub off: usize,
}

impl ClassSig {
    /// Blocks of this class (`len` of them) certainly outside a set with signature `p`.
    #[inline]
    pub fn outside(&self, p: (u64, u64)) -> usize {
        ((self.w.0 & !p.0).count_ones() + (self.w.1 & !p.1).count_ones()) as usize
    }
}

/// Classes with at least this many blocks also carry a long signature ([`long_sig_words`]).
const LONG_SIG_MIN: usize = 32;

/// Words of the long signature of a class of `n` blocks: `2n` bits rounded up to a power of
/// two (none below [`LONG_SIG_MIN`]). The 64- and 128-bit signatures are saturated by sets of
/// a hundred blocks and more, and comparing two such classes costs a read of a third of one
/// of them when they hardly overlap (R-MAT 2^20: 1.4 M such tests in the certificates).
#[inline]
fn long_sig_words(n: usize) -> usize {
    if n < LONG_SIG_MIN {
        0
    } else {
        (2 * n).next_power_of_two() / 64
    }
}

/// Bit of block `b` in a long signature of `m` bits (a power of two, ≥ 64). The bit of a
/// smaller power of two `m'` is this one mod `m'`, so a signature folds (OR of its `m'`-bit
/// pieces) into the signature of the same set with `m'` bits.
#[inline]
fn long_sig_bit(b: u32, m: usize) -> usize {
    ((b as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 32) as usize & (m - 1)
}

/// Blocks of a set with long signature `d` certainly outside a set with long signature `p`:
/// both folded to the smaller size, every bit of `d & !p` comes from a block outside `p`.
#[inline]
pub(super) fn long_sig_outside(d: &[u64], p: &[u64]) -> usize {
    let m = d.len().min(p.len());
    let fold = |x: &[u64], i: usize| x[i..].iter().step_by(m).fold(0, |a, &w| a | w);
    (0..m).map(|i| (fold(d, i) & !fold(p, i)).count_ones() as usize).sum()
}

/// Index entry `(sig, d, len, j, wl)`: a class `d`, its signature and size (in blocks);
/// `j`, the position of the list's block in the class's pattern (positional filter); `wl`,
/// the length of the class's own window in this list when it seeds a group (certificates).
/// A tuple, so that `vec![(0, 0, 0, 0, 0); n]` is a lazily zeroed allocation (hundreds of MB
/// on large inputs) whose pages are first touched by the parallel fill.
pub(super) type Ent = (u64, u32, u32, u32, u32);

/// List `r` (rank `r`) is `ent[ptr[r]..ptr[r + 1]]`, in class order.
pub(super) struct Index {
    pub ptr: Vec<usize>,
    pub ent: Vec<Ent>,
    /// Signature of every class.
    pub csig: Vec<u64>,
    pub csig2: Vec<ClassSig>,
    /// Long signature of every class: `lsig[lsig_ptr[d]..lsig_ptr[d + 1]]`, empty for classes
    /// under [`LONG_SIG_MIN`] blocks.
    pub lsig_ptr: Vec<usize>,
    pub lsig: Vec<u64>,
    /// Per class as a seed: windows cut by the budget (for the statistics), and whether its
    /// certificate was given up (windows over [`CERT_EFFORT`] entries: exact mode, huge
    /// budgets).
    pub cuts: Vec<u32>,
    pub unknown: Vec<bool>,
    /// Position of every class's own entries in its prefix lists: class `d`'s `k`-th prefix
    /// block's list holds it at `selfpos[pre_ptr[d] + k]` (where its seed windows start).
    pub pre_ptr: Vec<usize>,
    pub selfpos: Vec<u32>,
}

/// Entries a certificate may cover (exact mode has unbounded windows, large budgets large
/// ones) before it is given up and the seed left to the scan.
pub(super) const CERT_EFFORT: usize = 2048;

/// Chunks of classes of the parallel index build (each keeps a count per list).
const CHUNKS: usize = 16;

/// Prefix length of a class of `n > 0` blocks: `n − α(n) + 1`.
#[inline]
pub(super) fn prefix_len(params: &OneSaParams, n: usize) -> usize {
    n - params.min_overlap(n).min(n) + 1
}

/// Build the index for windows of `w` entries per list and `g` per group (`usize::MAX`:
/// exact). The windows of a seed are the entries right after its own entry in each of its
/// prefix lists, in the order the seed opens them (rank order): `min(w, left in the list,
/// g − taken by the earlier lists)` — the entries the serial scan reads before its first
/// merge, whatever earlier groups assigned (assigned classes count too).
pub(super) fn build(cls: &Classes, params: &OneSaParams, w: usize, g: usize) -> Index {
    let nc = cls.len();
    let nr = cls.nranks;
    let csig: Vec<u64> =
        (0..nc).into_par_iter().map(|d| cls.pat(d).iter().fold(0u64, |a, &b| a | block_sig(b))).collect();
    let csig2: Vec<ClassSig> = (0..nc)
        .into_par_iter()
        .map(|d| {
            let w = cls.pat(d).iter().fold((0, 0), |a, &b| {
                let x = block_sig2(b);
                (a.0 | x.0, a.1 | x.1)
            });
            ClassSig { w, off: cls.pat_ptr[d] }
        })
        .collect();
    let mut lsig_ptr = Vec::with_capacity(nc + 1);
    lsig_ptr.push(0usize);
    for d in 0..nc {
        lsig_ptr.push(lsig_ptr[d] + long_sig_words(cls.pat(d).len()));
    }
    let mut lsig = vec![0u64; lsig_ptr[nc]];
    {
        let lb = chunk_bounds_n(nc, 256, |d| lsig_ptr[d] + d);
        split_by(&mut lsig, lb.windows(2).map(|w| lsig_ptr[w[1]] - lsig_ptr[w[0]]))
            .into_par_iter()
            .zip(lb.par_windows(2))
            .with_max_len(1)
            .for_each(|(out, w)| {
                for d in w[0]..w[1] {
                    let sig = &mut out[lsig_ptr[d] - lsig_ptr[w[0]]..lsig_ptr[d + 1] - lsig_ptr[w[0]]];
                    let m = sig.len() * 64;
                    for &b in cls.pat(d).iter().filter(|_| m > 0) {
                        let i = long_sig_bit(b, m);
                        sig[i >> 6] |= 1 << (i & 63);
                    }
                }
            });
    }
    let plen = |d: usize| {
        let n = cls.pat(d).len();
        if n == 0 {
            0
        } else {
            prefix_len(params, n)
        }
    };
    let cap = params.max_group_height;
    // Transpose the class × rank prefix matrix in parallel: chunks of classes count their
    // entries per list; chunk `c`'s entries of list `r` then form one contiguous range of
    // the list (after those of chunks `< c`), so every chunk fills its own disjoint pieces
    // in class order — the lists come out in class order, as a serial fill would give.
    let cb = chunk_bounds_n(nc, CHUNKS, |d| cls.pat_ptr[d]);
    let counts: Vec<Vec<u32>> = cb
        .par_windows(2)
        .with_max_len(1)
        .map(|cw| {
            let mut c = vec![0u32; nr];
            for d in cw[0]..cw[1] {
                for &r in &cls.pat(d)[..plen(d)] {
                    c[r as usize] += 1;
                }
            }
            c
        })
        .collect();
    let mut ptr = vec![0usize; nr + 1];
    for r in 0..nr {
        ptr[r + 1] = ptr[r] + counts.iter().map(|c| c[r] as usize).sum::<usize>();
    }
    let n = ptr[nr];
    assert!(n < u32::MAX as usize, "index too large");
    let mut pre_ptr = Vec::with_capacity(nc + 1);
    pre_ptr.push(0usize);
    for d in 0..nc {
        pre_ptr.push(pre_ptr[d] + plen(d));
    }
    let mut selfpos = vec![0u32; n];
    crate::os::advise_huge_pages(&mut selfpos);
    let mut ent: Vec<Ent> = vec![(0, 0, 0, 0, 0); n];
    crate::os::advise_huge_pages(&mut ent);
    // Pieces (r, c) in memory order: list by list, chunk by chunk.
    let mut pieces: Vec<Vec<&mut [Ent]>> = (0..counts.len()).map(|_| Vec::with_capacity(nr)).collect();
    {
        let mut a: &mut [Ent] = &mut ent;
        for r in 0..nr {
            for (k, cnt) in counts.iter().enumerate() {
                let (x, rest) = a.split_at_mut(cnt[r] as usize);
                pieces[k].push(x);
                a = rest;
            }
        }
    }
    // Per class as a seed: its windows (the entries after its own in each prefix list).
    let mut cuts = vec![0u32; nc];
    let mut unknown = vec![false; nc];
    let cls_parts: Vec<_> = split_by(&mut cuts, cb.windows(2).map(|w| w[1] - w[0]))
        .into_iter()
        .zip(split_by(&mut unknown, cb.windows(2).map(|w| w[1] - w[0])))
        .zip(split_by(&mut selfpos, cb.windows(2).map(|w| pre_ptr[w[1]] - pre_ptr[w[0]])))
        .collect();
    // Position of chunk c's first entry in list r: ptr[r] + the counts of chunks < c.
    let starts: Vec<Vec<usize>> = {
        let mut acc = ptr[..nr].to_vec();
        pieces
            .iter()
            .map(|pc| {
                let st = acc.clone();
                for (r, p) in pc.iter().enumerate() {
                    acc[r] += p.len();
                }
                st
            })
            .collect()
    };
    pieces.into_par_iter().zip(cls_parts).zip(cb.par_windows(2)).zip(starts).with_max_len(1).for_each(
        |(((mut pc, ((cuts, unknown), selfpos)), cw), start)| {
            let mut fill = vec![0usize; nr];
            for d in cw[0]..cw[1] {
                let pat = cls.pat(d);
                // A seed at the height cap takes nothing: no windows.
                let closed = cap > 0 && cls.height(d) >= cap;
                let (mut taken, mut cut, mut stop) = (0usize, 0u32, closed);
                for (k, &r) in pat[..plen(d)].iter().enumerate() {
                    let r = r as usize;
                    let i = fill[r];
                    fill[r] += 1;
                    selfpos[pre_ptr[d] - pre_ptr[cw[0]] + k] = (start[r] + i) as u32;
                    let left = ptr[r + 1] - (start[r] + i) - 1;
                    let mut wl = 0;
                    if stop {
                    } else if taken >= g {
                        // The seed opens no further lists.
                        cut += 1;
                        stop = true;
                    } else {
                        wl = w.min(g - taken).min(left);
                        cut += (left > wl) as u32;
                        taken += wl;
                    }
                    pc[r][i] = (csig[d], d as u32, pat.len() as u32, k as u32, wl as u32);
                }
                unknown[d - cw[0]] = taken > CERT_EFFORT;
                cuts[d - cw[0]] = cut;
            }
        },
    );
    drop(counts);
    if g > CERT_EFFORT {
        // A given-up certificate covers no windows.
        ent.par_iter_mut().for_each(|e| {
            if unknown[e.1 as usize] {
                e.4 = 0;
            }
        });
    }
    Index { ptr, ent, csig, csig2, lsig_ptr, lsig, cuts, unknown, pre_ptr, selfpos }
}
