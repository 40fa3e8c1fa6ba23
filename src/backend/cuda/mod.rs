//! CUDA backend (placeholder until the kernels land; reports NOT_SUPPORTED).
use std::sync::Arc;

use super::Backend;
use crate::error::{Error, Result};

pub fn create() -> Result<Arc<dyn Backend>> {
    Err(Error::not_supported("the CUDA backend is not implemented yet"))
}
