//! `spblkAnalyze` (spblk addition): preprocessing whose result the sparse descriptor owns,
//! used by later calls (`SPBLK_SPMM_ALG_VBR` after `SPBLK_ANALYSIS_1SA`).
//!
//! Parameter and info structs start with `structSize`, so fields can be added later without
//! breaking programs compiled against an older header: the library reads and writes only the
//! first `structSize` bytes and uses defaults for the rest.

use super::boundary::{self, entry, out, write};
use super::sp_mat::sp_mat;
use super::types::*;
use crate::analysis::one_sa::{MergeRule, OneSaParams, Similarity};
use crate::error::{Error, Result};
use crate::ops::analyze::{self, Request};
use crate::types::AnalysisAlg;

/// Parameters of `spblkAnalyze`; fill with `spblkAnalysisParamsInit` first.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct spblkAnalysisParams {
    /// sizeof(spblkAnalysisParams) as the caller compiled it (set by the init function).
    pub structSize: usize,
    /// Column-block width ΔW (default 64).
    pub blockWidth: i64,
    /// Similarity threshold τ in (0, 1] (default 0.5).
    pub tau: f64,
    /// `SPBLK_SIMILARITY_*` (default Jaccard).
    pub similarity: spblkSimilarity_t,
    /// `SPBLK_MERGE_*` (default two-step).
    pub mergeRule: spblkMergeRule_t,
    /// Largest number of rows in a group; 0 means no cap (default 0).
    pub maxGroupHeight: i64,
    /// `SPBLK_VBR_COPY_*` flags: also keep f16/bf16 copies of the blocks (default 0).
    pub halfCopies: u32,
    /// Candidates a row group may examine per inverted list: -1 = automatic (default; bounds
    /// the time on matrices with ~10^6 distinct rows), 0 = exact search, k > 0 = at most k.
    /// The density guarantee holds for every value.
    pub candidateBudget: i64,
}

/// Statistics of an analysis, read with `spblkAnalysisGetInfo`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct spblkAnalysisInfo {
    /// Set by the caller to sizeof(spblkAnalysisInfo) before the call.
    pub structSize: usize,
    /// The `SPBLK_ANALYSIS_*` that produced the plan.
    pub alg: spblkAnalysisAlg_t,
    /// Number of row groups.
    pub groups: i64,
    /// Number of stored (group × column block) blocks.
    pub nonzeroBlocks: i64,
    /// Average block height ΔH' (rows per non-empty group).
    pub avgBlockHeight: f64,
    /// In-block density ρ' (nonzeros / stored block entries).
    pub inBlockDensity: f64,
    /// Stored block entries (with padding) / nonzeros.
    pub fillInRatio: f64,
    /// Wall time of the analysis, reading the matrix included.
    pub analysisSeconds: f64,
}

fn defaults() -> spblkAnalysisParams {
    let d = OneSaParams::default();
    spblkAnalysisParams {
        structSize: std::mem::size_of::<spblkAnalysisParams>(),
        blockWidth: d.block_width as i64,
        tau: d.tau,
        similarity: match d.similarity {
            Similarity::Jaccard => SPBLK_SIMILARITY_JACCARD,
            Similarity::Cosine => SPBLK_SIMILARITY_COSINE,
        },
        mergeRule: match d.merge_rule {
            MergeRule::Plain => SPBLK_MERGE_PLAIN,
            MergeRule::TwoStep => SPBLK_MERGE_TWO_STEP,
        },
        maxGroupHeight: d.max_group_height as i64,
        halfCopies: 0,
        candidateBudget: -1,
    }
}

/// Copies the first `size` bytes between a caller's struct and ours (versioning by size).
///
/// # Safety
/// `src` and `dst` must be valid for `size` bytes; `size` ≤ both structs.
unsafe fn copy_prefix<T>(dst: *mut T, src: *const T, size: usize) {
    // SAFETY: forwarded.
    unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, size) };
}

fn check_struct_size(size: usize, full: usize, arg: &str) -> Result<usize> {
    if size < std::mem::size_of::<usize>() {
        return Err(Error::invalid(arg, format!("has structSize {size}; set it with sizeof (or the init function)")));
    }
    Ok(size.min(full))
}

/// Fills `params` with the defaults; `structSize` is `sizeof(spblkAnalysisParams)` as the
/// caller sees it.
#[no_mangle]
pub extern "C" fn spblkAnalysisParamsInit(params: *mut spblkAnalysisParams, structSize: usize) -> spblkStatus_t {
    entry("spblkAnalysisParamsInit", || {
        out(params, "params")?;
        let n = check_struct_size(structSize, std::mem::size_of::<spblkAnalysisParams>(), "structSize")?;
        let mut d = defaults();
        d.structSize = structSize;
        // SAFETY: the caller's struct has structSize ≥ n bytes.
        unsafe { copy_prefix(params, &d, n) };
        Ok(())
    })
}

fn decode(p: &spblkAnalysisParams, alg: spblkAnalysisAlg_t) -> Result<Request> {
    match AnalysisAlg::decode(alg, "alg")? {
        AnalysisAlg::OneSa => {}
        // RoDe has no parameters: its block and segment lengths are fixed (docs/rode.md).
        AnalysisAlg::Rode => return Ok(Request::Rode),
        AnalysisAlg::Aspt => return Ok(Request::Aspt),
    }
    if p.blockWidth < 1 {
        return Err(Error::invalid("params", format!("blockWidth must be >= 1 (got {})", p.blockWidth)));
    }
    if p.candidateBudget < -1 {
        return Err(Error::invalid("params", format!("candidateBudget must be >= -1 (got {})", p.candidateBudget)));
    }
    if p.maxGroupHeight < 0 {
        return Err(Error::invalid("params", format!("maxGroupHeight must be >= 0 (got {})", p.maxGroupHeight)));
    }
    if p.halfCopies & !(SPBLK_VBR_COPY_F16 | SPBLK_VBR_COPY_BF16) != 0 {
        return Err(Error::invalid("params", format!("halfCopies has unknown flags {:#x}", p.halfCopies)));
    }
    let similarity = match p.similarity {
        SPBLK_SIMILARITY_JACCARD => Similarity::Jaccard,
        SPBLK_SIMILARITY_COSINE => Similarity::Cosine,
        other => return Err(Error::invalid("params", format!("similarity has out-of-range value {other}"))),
    };
    let merge_rule = match p.mergeRule {
        SPBLK_MERGE_PLAIN => MergeRule::Plain,
        SPBLK_MERGE_TWO_STEP => MergeRule::TwoStep,
        other => return Err(Error::invalid("params", format!("mergeRule has out-of-range value {other}"))),
    };
    let params = OneSaParams {
        block_width: p.blockWidth as usize,
        tau: p.tau,
        similarity,
        merge_rule,
        max_group_height: p.maxGroupHeight as usize,
        candidate_budget: usize::try_from(p.candidateBudget).ok(),
    };
    Ok(Request::OneSa {
        params,
        f16_copy: p.halfCopies & SPBLK_VBR_COPY_F16 != 0,
        bf16_copy: p.halfCopies & SPBLK_VBR_COPY_BF16 != 0,
    })
}

/// Analyses `matA` (CSR; host or device memory per the handle's backend) and stores the plan
/// in the descriptor, replacing any earlier one. `params` may be NULL for the defaults. The
/// plan is dropped by `spblkCsrSetPointers`, `spblkSpMatSetValues` and `spblkDestroySpMat`.
/// The 1-SA plan copies the values into its blocks: after changing values in place, call
/// `spblkAnalyze` again.
#[no_mangle]
pub extern "C" fn spblkAnalyze(
    handle: spblkHandle_t,
    matA: spblkSpMatDescr_t,
    alg: spblkAnalysisAlg_t,
    params: *const spblkAnalysisParams,
) -> spblkStatus_t {
    entry("spblkAnalyze", || {
        // SAFETY: registry-checked.
        let h = unsafe { boundary::handle(handle)? };
        let a = unsafe { sp_mat(matA, "matA")? };
        let mut p = defaults();
        if !params.is_null() {
            // SAFETY: the caller's struct starts with structSize.
            let size = unsafe { std::ptr::read_unaligned(params as *const usize) };
            let n = check_struct_size(size, std::mem::size_of::<spblkAnalysisParams>(), "params")?;
            // SAFETY: the caller's struct has at least n bytes.
            unsafe { copy_prefix(&mut p, params, n) };
        }
        let request = decode(&p, alg)?;
        analyze::analyze(h.backend.as_ref(), &h.exec(), a, request)
    })
}

/// Reads the statistics of the descriptor's analysis; `info->structSize` must be set.
#[no_mangle]
pub extern "C" fn spblkAnalysisGetInfo(matA: spblkConstSpMatDescr_t, info: *mut spblkAnalysisInfo) -> spblkStatus_t {
    entry("spblkAnalysisGetInfo", || {
        // SAFETY: registry-checked.
        let a = unsafe { sp_mat(matA, "matA")? };
        out(info, "info")?;
        // SAFETY: non-NULL; the caller's struct starts with structSize.
        let size = unsafe { std::ptr::read_unaligned(info as *const usize) };
        let n = check_struct_size(size, std::mem::size_of::<spblkAnalysisInfo>(), "info")?;
        let one_sa = a.plans.lock().one_sa().ok_or_else(|| {
            Error::invalid("matA", "has no analysis (call spblkAnalyze first, after the last spblkCsrSetPointers)")
        })?;
        let s = one_sa.plan.vbr.stats();
        let full = spblkAnalysisInfo {
            structSize: size,
            alg: SPBLK_ANALYSIS_1SA,
            groups: s.groups as i64,
            nonzeroBlocks: s.nonzero_blocks as i64,
            avgBlockHeight: s.avg_block_height,
            inBlockDensity: s.in_block_density,
            fillInRatio: s.fill_in_ratio,
            analysisSeconds: s.analysis_seconds,
        };
        // SAFETY: the caller's struct has at least n bytes.
        unsafe { copy_prefix(info, &full, n) };
        Ok(())
    })
}

/// Writes the analysis' row permutation: `perm[k]` is the original (zero-based) row placed at
/// position k. `perm` must hold `rows` int64 values in host memory.
#[no_mangle]
pub extern "C" fn spblkAnalysisGetPermutation(matA: spblkConstSpMatDescr_t, perm: *mut i64) -> spblkStatus_t {
    entry("spblkAnalysisGetPermutation", || {
        // SAFETY: registry-checked.
        let a = unsafe { sp_mat(matA, "matA")? };
        out(perm, "perm")?;
        let one_sa = a
            .plans
            .lock()
            .one_sa()
            .ok_or_else(|| Error::invalid("matA", "has no analysis (call spblkAnalyze first)"))?;
        for (k, &r) in one_sa.plan.vbr.perm().iter().enumerate() {
            // SAFETY: the caller provides `rows` elements.
            unsafe { write(perm.add(k), r as i64) };
        }
        Ok(())
    })
}
