//! spblk: sparse linear algebra with cuSPARSE's generic C API (`cusparse` → `spblk`), a
//! CUDA backend running spblk's own kernels, and a multithreaded host backend that runs
//! everything without a GPU and serves as the reference.
//!
//! Dependency direction: `capi` → `ops` → {`descr`, `analysis`, `backend`}.
#![deny(unsafe_op_in_unsafe_fn)]

pub mod analysis;
pub mod backend;
pub mod capi;
pub mod descr;
pub mod error;
pub mod numeric;
pub mod ops;
pub mod types;
