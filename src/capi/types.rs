//! C-visible types: the opaque objects and the handle and descriptor typedefs. The status
//! codes and enum constants live in the leaf module `crate::abi` and are re-exported here, so
//! C code and `capi` see one set of names while the layers below never import `capi`.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};

/// Opaque library context (one per `spblkCreate`).
pub struct spblkContext {
    _private: [u8; 0],
}
/// Opaque sparse-matrix descriptor.
pub struct spblkSpMatDescr {
    _private: [u8; 0],
}
/// Opaque dense-matrix descriptor.
pub struct spblkDnMatDescr {
    _private: [u8; 0],
}
/// Opaque dense-vector descriptor.
pub struct spblkDnVecDescr {
    _private: [u8; 0],
}
/// Opaque sparse-vector descriptor.
pub struct spblkSpVecDescr {
    _private: [u8; 0],
}
/// Opaque legacy matrix descriptor (cuSPARSE's `cusparseMatDescr_t`).
pub struct spblkMatDescr {
    _private: [u8; 0],
}
/// Opaque SpGEMM state.
pub struct spblkSpGEMMDescr {
    _private: [u8; 0],
}
/// Opaque triangular-solve state (cuSPARSE's `cusparseSpSVDescr_t`): the analysis of one
/// matrix, kept until the descriptor is destroyed or analysed again.
pub struct spblkSpSVDescr {
    _private: [u8; 0],
}
/// Opaque state of a triangular solve with several right-hand sides (cuSPARSE's
/// `cusparseSpSMDescr_t`), as [`spblkSpSVDescr`].
pub struct spblkSpSMDescr {
    _private: [u8; 0],
}
/// Opaque incomplete-Cholesky state (cuSPARSE's `csric02Info_t`): the analysis of one
/// matrix and the zero pivot found.
pub struct spblkCsric02Info {
    _private: [u8; 0],
}
/// Opaque incomplete-LU state (cuSPARSE's `csrilu02Info_t`): the analysis of one matrix, the
/// numeric boost and the zero pivot found.
pub struct spblkCsrilu02Info {
    _private: [u8; 0],
}
/// CUDA's stream type, declared by tag so that a `cudaStream_t` or `CUstream` passes as is
/// and no CUDA header is needed.
pub struct CUstream_st {
    _private: [u8; 0],
}

/// C's `FILE` (from `<stdio.h>`, which spblk.h includes), for `spblkLoggerSetFile`.
pub struct FILE {
    _private: [u8; 0],
}

/// The logger's callback (`spblkLoggerSetCallback`): category (1 error, 2 trace, 3 hints,
/// 4 info, 5 API trace), the function, the message.
pub type spblkLoggerCallback_t =
    Option<unsafe extern "C" fn(logLevel: c_int, functionName: *const c_char, message: *const c_char)>;

/// Library handle (cuSPARSE: `cusparseHandle_t`).
pub type spblkHandle_t = *mut spblkContext;
pub type spblkSpMatDescr_t = *mut spblkSpMatDescr;
pub type spblkConstSpMatDescr_t = *const spblkSpMatDescr;
pub type spblkDnMatDescr_t = *mut spblkDnMatDescr;
pub type spblkConstDnMatDescr_t = *const spblkDnMatDescr;
pub type spblkDnVecDescr_t = *mut spblkDnVecDescr;
pub type spblkConstDnVecDescr_t = *const spblkDnVecDescr;
pub type spblkSpVecDescr_t = *mut spblkSpVecDescr;
pub type spblkConstSpVecDescr_t = *const spblkSpVecDescr;
pub type spblkSpGEMMDescr_t = *mut spblkSpGEMMDescr;
pub type spblkMatDescr_t = *mut spblkMatDescr;
pub type spblkSpSVDescr_t = *mut spblkSpSVDescr;
pub type spblkSpSMDescr_t = *mut spblkSpSMDescr;
pub type spblkCsric02Info_t = *mut spblkCsric02Info;
pub type spblkCsrilu02Info_t = *mut spblkCsrilu02Info;
/// A CUDA stream (`cudaStream_t` / `CUstream`); NULL is the legacy default stream.
pub type spblkStream_t = *mut CUstream_st;
/// Untyped pointer to user memory (host or device, depending on the backend).
pub type spblkPtr = *mut c_void;

pub use crate::abi::*;
