//! The C API: the only place with `#[no_mangle]` functions. Every function decodes its
//! integers with checked conversions, checks its pointers, runs inside `boundary::entry`
//! (panics become `SPBLK_STATUS_INTERNAL_ERROR`) and writes out-parameters only on success.
#![allow(non_snake_case)]

pub mod boundary;
pub mod convert;
pub mod dense;
pub mod handle;
pub mod products;
pub mod sp_mat;
pub mod spgemm;
pub mod types;
