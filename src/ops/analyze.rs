//! `spblkAnalyze`: for 1-SA, reads a CSR matrix's pattern through the backend (host or device
//! memory alike), runs the analysis on the host, and stores the plan in the descriptor: with
//! its values built on the host, or, where the backend computes from its own memory, its
//! layout uploaded and the values filled there from the matrix. RoDe's
//! decomposition and ASpT's tiling are built by the backend itself (on the device for CUDA).

use std::time::Instant;

use half::{bf16, f16};

use crate::analysis::one_sa::{self, CsrPattern, OneSaParams};
use crate::analysis::{OneSaPlan, VbrValues};
use crate::backend::{Backend, Exec};
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::plan::OneSa;
use crate::trace;
use crate::types::{DataType, IndexType};

/// What to analyse for, decoded from the C parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Request {
    OneSa {
        params: OneSaParams,
        f16_copy: bool,
        bf16_copy: bool,
    },
    /// RoDe's row decomposition of A, built by the backend (on the device for CUDA).
    Rode,
    /// ASpT's tiling of A's pattern (for SDDMM, whose sparse matrix is C), built by the backend.
    Aspt,
}

/// Reads `len` indices of type `ity` from backend memory, as zero-based usize.
fn read_indices(
    backend: &dyn Backend,
    exec: &Exec,
    ptr: *const std::ffi::c_void,
    len: usize,
    ity: IndexType,
    base: i64,
) -> Result<Vec<i64>> {
    let mut bytes = vec![0u8; len * ity.size()];
    backend.read_bytes(exec, ptr, &mut bytes)?;
    let raw: Vec<i64> = match ity {
        IndexType::I32 => bytes.chunks_exact(4).map(|c| i32::from_ne_bytes(c.try_into().unwrap()) as i64).collect(),
        IndexType::I64 => bytes.chunks_exact(8).map(|c| i64::from_ne_bytes(c.try_into().unwrap())).collect(),
        IndexType::U16 => return Err(Error::not_supported("16-bit indices")),
    };
    Ok(raw.into_iter().map(|v| v - base).collect())
}

/// A zero-based CSR pattern copied to the host and checked (offsets monotone and ending at
/// nnz, columns in range): the analysis trusts nothing it reads.
fn host_pattern(backend: &dyn Backend, exec: &Exec, a: &SpMat) -> Result<(Vec<usize>, Vec<usize>)> {
    let SparsePattern::Csr { row_offsets, col_ind } = a.pattern else {
        return Err(Error::not_supported(format!(
            "argument 'matA': spblkAnalyze needs CSR, got {:?} (convert first)",
            a.format()
        )));
    };
    let (rows, cols, nnz, base) = (a.rows as usize, a.cols as usize, a.nnz as usize, a.base.offset());
    let ptr =
        if rows > 0 { read_indices(backend, exec, row_offsets, rows + 1, a.offsets_type, base)? } else { vec![0] };
    let col = read_indices(backend, exec, col_ind, nnz, a.indices_type, base)?;
    if ptr[0] != 0 || ptr[rows] != nnz as i64 || ptr.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::invalid("matA", "has row offsets that are not monotone from base to nnz + base"));
    }
    if col.iter().any(|&c| c < 0 || c >= cols as i64) {
        return Err(Error::invalid("matA", "has column indices outside [base, cols + base)"));
    }
    Ok((ptr.into_iter().map(|v| v as usize).collect(), col.into_iter().map(|v| v as usize).collect()))
}

fn read_values<V: Copy + Default>(backend: &dyn Backend, exec: &Exec, a: &SpMat) -> Result<Vec<V>> {
    let n = a.nnz as usize;
    let mut out = vec![V::default(); n];
    // SAFETY: `out` is n initialized elements of a plain numeric type; viewing them as bytes
    // to fill them is sound for every bit pattern of f32/f64/f16/bf16.
    let bytes = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u8, n * std::mem::size_of::<V>()) };
    backend.read_bytes(exec, a.values, bytes)?;
    Ok(out)
}

/// Runs the analysis and stores its plan in `a`, replacing an earlier one of the same kind.
pub fn analyze(backend: &dyn Backend, exec: &Exec, a: &SpMat, request: Request) -> Result<()> {
    a.validate_shape()?;
    a.require_arrays("matA")?;
    super::batch::single(a, "matA", "spblkAnalyze")?;
    match request {
        Request::Rode => {
            if !matches!(a.pattern, SparsePattern::Csr { .. }) {
                return Err(Error::not_supported(format!(
                    "argument 'matA': spblkAnalyze needs CSR, got {:?} (spblkSpMM_preprocess with \
                     SPBLK_SPMM_ALG_RODE builds the plan of any format)",
                    a.format()
                )));
            }
            backend.analyze_rode(exec, a)
        }
        Request::Aspt => {
            if !matches!(a.pattern, SparsePattern::Csr { .. }) {
                return Err(Error::not_supported(format!(
                    "argument 'matA': an ASpT analysis needs CSR, got {:?}",
                    a.format()
                )));
            }
            // A plan already there (from an earlier analysis or preprocess) is kept.
            backend.analyze_aspt(exec, a, true)
        }
        Request::OneSa { params, f16_copy, bf16_copy } => {
            params.validate().map_err(|why| Error::invalid("params", why))?;
            let start = Instant::now();
            let (row_ptr, col_idx) = host_pattern(backend, exec, a)?;
            let p = CsrPattern { rows: a.rows as usize, cols: a.cols as usize, row_ptr: &row_ptr, col_idx: &col_idx };
            if !matches!(a.value_type, DataType::F32 | DataType::F64 | DataType::F16 | DataType::BF16) {
                return Err(Error::not_supported(format!("spblkAnalyze with value type {:?}", a.value_type)));
            }
            // A backend that fills the values from the matrix in its own memory gets the layout
            // alone, unless half copies need the values here: on sparse plans the values are most
            // of the analysis (docs/vbr.md, "Values filled on the device").
            let vbr = if backend.fills_vbr_values(a.value_type) && !f16_copy && !bf16_copy {
                VbrValues::InBackend(one_sa::analyze_layout(&p, &params))
            } else {
                match a.value_type {
                    DataType::F32 => {
                        VbrValues::F32(one_sa::analyze(&p, &read_values::<f32>(backend, exec, a)?, &params))
                    }
                    DataType::F64 => {
                        VbrValues::F64(one_sa::analyze(&p, &read_values::<f64>(backend, exec, a)?, &params))
                    }
                    DataType::F16 => {
                        VbrValues::F16(one_sa::analyze(&p, &read_values::<f16>(backend, exec, a)?, &params))
                    }
                    _ => VbrValues::BF16(one_sa::analyze(&p, &read_values::<bf16>(backend, exec, a)?, &params)),
                }
            };
            // Host values exist whenever a copy is asked for (above).
            let mut plan = OneSaPlan {
                params,
                f16_copy: if f16_copy { vbr.to_f16() } else { None },
                bf16_copy: if bf16_copy { vbr.to_bf16() } else { None },
                vbr,
            };
            let arrays = backend.upload_one_sa(exec, &plan, a)?;
            // Report the whole call (reading and uploading included), not only the grouping.
            plan.vbr.stats_mut().analysis_seconds = start.elapsed().as_secs_f64();
            let s = plan.vbr.stats();
            trace::choice(
                "1-SA",
                format_args!("{} groups, {} blocks, density {:.3}", s.groups, s.nonzero_blocks, s.in_block_density),
            );
            a.plans.lock().set_one_sa(OneSa { plan, arrays });
            Ok(())
        }
    }
}
