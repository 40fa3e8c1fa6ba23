//! spblk: sparse linear algebra with cuSPARSE's generic C API (`cusparse` → `spblk`), a
//! CUDA backend running spblk's own kernels, and a multithreaded host backend that runs
//! everything without a GPU and serves as the reference.
//!
//! Dependency direction (checked by `tests/layering.rs`):
//! `capi` → `ops` → `backend` → {`descr`, `plan`} → `analysis`, and every layer → the leaves
//! `abi` (the C values), `types`, `error`, `trace` (and `logger`, which `trace` feeds).
#![deny(unsafe_op_in_unsafe_fn)]

pub mod abi;
pub mod analysis;
pub mod backend;
pub mod capi;
pub mod descr;
pub mod error;
pub mod logger;
pub mod numeric;
pub mod ops;
pub mod os;
pub mod plan;
pub mod trace;
pub mod types;
