//! The C API: the only place with `#[no_mangle]` functions. Every function decodes its
//! integers with checked conversions, checks its pointers, runs inside `boundary::entry`
//! (panics become `SPBLK_STATUS_INTERNAL_ERROR`) and writes out-parameters only on success.
#![allow(non_snake_case, non_camel_case_types)]
// These functions are called from C, where every argument is checked for what can be checked
// (NULL, liveness of handles and descriptors, enum ranges, sizes); that non-NULL pointers
// point to memory of the declared size is the C caller's contract, as in cuSPARSE.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod analyze;
pub mod batch;
pub mod boundary;
pub mod bsr;
pub mod compat;
pub mod convert;
pub mod dense;
pub mod dense_sparse;
pub mod factor;
pub mod geam;
pub mod handle;
pub mod index_arrays;
pub mod logger;
pub mod mat_descr;
pub mod products;
pub mod sort;
pub mod sp_mat;
pub mod sp_mat_blocked;
pub mod sp_mat_get;
pub mod sp_vec;
pub mod spgemm;
pub mod spsm;
pub mod spsv;
pub mod spvec_ops;
pub mod types;
