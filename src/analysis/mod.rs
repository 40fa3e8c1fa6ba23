//! Host-side matrix analysis (1-SA blocking, ...): pure code, no GPU, no unsafe.

pub mod one_sa;

/// The result of `spblkAnalyze`, owned by the sparse-matrix descriptor.
#[derive(Debug)]
pub enum Plan {}

impl Plan {
    pub fn is_one_sa(&self) -> bool {
        match *self {}
    }
}
