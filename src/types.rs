//! Rust-side enums decoded from the C integers with checked conversions.
//!
//! `decode(value, "argName")` returns `INVALID_VALUE` naming the argument for any integer
//! that is not a known constant; values that exist in cuSPARSE but that spblk does not
//! implement are decoded and rejected later with `NOT_SUPPORTED`.

use crate::abi::*;
use crate::error::{Error, Result};

macro_rules! c_enum {
    ($(#[$m:meta])* $name:ident : $cty:ty { $($variant:ident = $c:ident),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }
        impl $name {
            /// Checked conversion from the C value; `arg` names the parameter in the message.
            pub fn decode(value: $cty, arg: &str) -> Result<Self> {
                match value {
                    $($c => Ok($name::$variant),)+
                    other => Err(Error::invalid(
                        arg,
                        format!("has out-of-range value {} for {}", other, stringify!($cty)),
                    )),
                }
            }
            /// The C value.
            pub fn to_c(self) -> $cty {
                match self { $($name::$variant => $c,)+ }
            }
        }
    };
}

c_enum!(PointerMode: spblkPointerMode_t {
    Host = SPBLK_POINTER_MODE_HOST,
    Device = SPBLK_POINTER_MODE_DEVICE,
});
c_enum!(IndexBase: spblkIndexBase_t { Zero = SPBLK_INDEX_BASE_ZERO, One = SPBLK_INDEX_BASE_ONE });
c_enum!(Operation: spblkOperation_t {
    NonTranspose = SPBLK_OPERATION_NON_TRANSPOSE,
    Transpose = SPBLK_OPERATION_TRANSPOSE,
    ConjugateTranspose = SPBLK_OPERATION_CONJUGATE_TRANSPOSE,
});
c_enum!(IndexType: spblkIndexType_t {
    U16 = SPBLK_INDEX_16U,
    I32 = SPBLK_INDEX_32I,
    I64 = SPBLK_INDEX_64I,
});
c_enum!(Order: spblkOrder_t { Col = SPBLK_ORDER_COL, Row = SPBLK_ORDER_ROW });
c_enum!(Format: spblkFormat_t {
    Csr = SPBLK_FORMAT_CSR,
    Csc = SPBLK_FORMAT_CSC,
    Coo = SPBLK_FORMAT_COO,
    BlockedEll = SPBLK_FORMAT_BLOCKED_ELL,
    Bsr = SPBLK_FORMAT_BSR,
    SlicedEll = SPBLK_FORMAT_SLICED_ELLPACK,
});
c_enum!(DataType: spblkDataType_t {
    F32 = SPBLK_R_32F,
    F64 = SPBLK_R_64F,
    F16 = SPBLK_R_16F,
    I8 = SPBLK_R_8I,
    C32 = SPBLK_C_32F,
    C64 = SPBLK_C_64F,
    C16 = SPBLK_C_16F,
    I32 = SPBLK_R_32I,
    BF16 = SPBLK_R_16BF,
    CBF16 = SPBLK_C_16BF,
});
c_enum!(Action: spblkAction_t { Symbolic = SPBLK_ACTION_SYMBOLIC, Numeric = SPBLK_ACTION_NUMERIC });
c_enum!(SpMatAttribute: spblkSpMatAttribute_t {
    FillMode = SPBLK_SPMAT_FILL_MODE,
    DiagType = SPBLK_SPMAT_DIAG_TYPE,
});
c_enum!(FillMode: spblkFillMode_t { Lower = SPBLK_FILL_MODE_LOWER, Upper = SPBLK_FILL_MODE_UPPER });
c_enum!(DiagType: spblkDiagType_t { NonUnit = SPBLK_DIAG_TYPE_NON_UNIT, Unit = SPBLK_DIAG_TYPE_UNIT });
c_enum!(Direction: spblkDirection_t { Row = SPBLK_DIRECTION_ROW, Column = SPBLK_DIRECTION_COLUMN });
c_enum!(MatrixType: spblkMatrixType_t {
    General = SPBLK_MATRIX_TYPE_GENERAL,
    Symmetric = SPBLK_MATRIX_TYPE_SYMMETRIC,
    Hermitian = SPBLK_MATRIX_TYPE_HERMITIAN,
    Triangular = SPBLK_MATRIX_TYPE_TRIANGULAR,
});
c_enum!(
    /// Which implementation a handle runs on.
    BackendKind: spblkBackend_t { Cuda = SPBLK_BACKEND_CUDA, Host = SPBLK_BACKEND_HOST }
);

c_enum!(
    /// `spblkSpMVAlg_t`.
    SpmvAlg: spblkSpMVAlg_t {
        Default = SPBLK_SPMV_ALG_DEFAULT,
        CooAlg1 = SPBLK_SPMV_COO_ALG1,
        CsrAlg1 = SPBLK_SPMV_CSR_ALG1,
        CsrAlg2 = SPBLK_SPMV_CSR_ALG2,
        CooAlg2 = SPBLK_SPMV_COO_ALG2,
        SellAlg1 = SPBLK_SPMV_SELL_ALG1,
        BsrAlg1 = SPBLK_SPMV_BSR_ALG1,
        CsrScalar = SPBLK_SPMV_ALG_CSR_SCALAR,
        CsrVector = SPBLK_SPMV_ALG_CSR_VECTOR,
        CsrRows = SPBLK_SPMV_ALG_CSR_ROWS,
        CsrMerge = SPBLK_SPMV_ALG_CSR_MERGE,
    }
);
c_enum!(
    /// `spblkSpMMAlg_t`, with spblk's additions.
    SpmmAlg: spblkSpMMAlg_t {
        Default = SPBLK_SPMM_ALG_DEFAULT,
        CooAlg1 = SPBLK_SPMM_COO_ALG1,
        CooAlg2 = SPBLK_SPMM_COO_ALG2,
        CooAlg3 = SPBLK_SPMM_COO_ALG3,
        CsrAlg1 = SPBLK_SPMM_CSR_ALG1,
        CooAlg4 = SPBLK_SPMM_COO_ALG4,
        CsrAlg2 = SPBLK_SPMM_CSR_ALG2,
        CsrAlg3 = SPBLK_SPMM_CSR_ALG3,
        BlockedEllAlg1 = SPBLK_SPMM_BLOCKED_ELL_ALG1,
        BsrAlg1 = SPBLK_SPMM_BSR_ALG1,
        Rode = SPBLK_SPMM_ALG_RODE,
        Aspt = SPBLK_SPMM_ALG_ASPT,
        Vbr = SPBLK_SPMM_ALG_VBR,
        VbrTf32 = SPBLK_SPMM_ALG_VBR_TF32,
        CsrSweep = SPBLK_SPMM_ALG_CSR_SWEEP,
    }
);
c_enum!(
    /// `spblkSDDMMAlg_t`.
    SddmmAlg: spblkSDDMMAlg_t { Default = SPBLK_SDDMM_ALG_DEFAULT, Aspt = SPBLK_SDDMM_ALG_ASPT }
);
c_enum!(
    /// `spblkSpGEMMAlg_t`.
    SpgemmAlg: spblkSpGEMMAlg_t {
        Default = SPBLK_SPGEMM_DEFAULT,
        CsrDeterministic = SPBLK_SPGEMM_CSR_ALG_DETERMINITIC,
        CsrNondeterministic = SPBLK_SPGEMM_CSR_ALG_NONDETERMINITIC,
        Alg1 = SPBLK_SPGEMM_ALG1,
        Alg2 = SPBLK_SPGEMM_ALG2,
        Alg3 = SPBLK_SPGEMM_ALG3,
        Esc = SPBLK_SPGEMM_ALG_ESC,
    }
);
c_enum!(
    /// `spblkSpSVAlg_t`.
    SpsvAlg: spblkSpSVAlg_t { Default = SPBLK_SPSV_ALG_DEFAULT }
);
c_enum!(
    /// `spblkSolvePolicy_t`.
    SolvePolicy: spblkSolvePolicy_t { NoLevel = SPBLK_SOLVE_POLICY_NO_LEVEL, UseLevel = SPBLK_SOLVE_POLICY_USE_LEVEL }
);
c_enum!(
    /// `spblkSpSMAlg_t`.
    SpsmAlg: spblkSpSMAlg_t { Default = SPBLK_SPSM_ALG_DEFAULT }
);
c_enum!(
    /// `spblkSpSVUpdate_t`.
    SpsvUpdate: spblkSpSVUpdate_t { General = SPBLK_SPSV_UPDATE_GENERAL, Diagonal = SPBLK_SPSV_UPDATE_DIAGONAL }
);
c_enum!(
    /// `spblkSparseToDenseAlg_t`.
    SparseToDenseAlg: spblkSparseToDenseAlg_t { Default = SPBLK_SPARSETODENSE_ALG_DEFAULT }
);
c_enum!(
    /// `spblkDenseToSparseAlg_t`.
    DenseToSparseAlg: spblkDenseToSparseAlg_t { Default = SPBLK_DENSETOSPARSE_ALG_DEFAULT }
);
c_enum!(
    /// `spblkCsr2CscAlg_t` (`SPBLK_CSR2CSC_ALG_DEFAULT` is the same value as `ALG1`).
    Csr2CscAlg: spblkCsr2CscAlg_t { Alg1 = SPBLK_CSR2CSC_ALG1 }
);
c_enum!(
    /// `spblkAnalysisAlg_t`: which analysis `spblkAnalyze` runs.
    AnalysisAlg: spblkAnalysisAlg_t {
        OneSa = SPBLK_ANALYSIS_1SA,
        Aspt = SPBLK_ANALYSIS_ASPT,
        Rode = SPBLK_ANALYSIS_RODE,
    }
);

impl IndexType {
    /// Bytes per index.
    pub fn size(self) -> usize {
        match self {
            IndexType::U16 => 2,
            IndexType::I32 => 4,
            IndexType::I64 => 8,
        }
    }
    /// Largest value representable (for size checks).
    pub fn max_value(self) -> i64 {
        match self {
            IndexType::U16 => u16::MAX as i64,
            IndexType::I32 => i32::MAX as i64,
            IndexType::I64 => i64::MAX,
        }
    }
}

impl Format {
    /// The format as cuSPARSE's documentation writes it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csr => "CSR",
            Format::Csc => "CSC",
            Format::Coo => "COO",
            Format::BlockedEll => "Blocked-ELL",
            Format::Bsr => "BSR",
            Format::SlicedEll => "Sliced-ELL",
        }
    }
}

impl DataType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DataType::I8 => 1,
            DataType::F16 | DataType::BF16 => 2,
            DataType::F32 | DataType::I32 | DataType::C16 | DataType::CBF16 => 4,
            DataType::F64 | DataType::C32 => 8,
            DataType::C64 => 16,
        }
    }
    /// Whether spblk's arithmetic handles this type (real floating point).
    pub fn is_real_float(self) -> bool {
        matches!(self, DataType::F32 | DataType::F64 | DataType::F16 | DataType::BF16)
    }
}

impl Operation {
    pub fn is_transposed(self) -> bool {
        self != Operation::NonTranspose
    }
}

impl IndexBase {
    pub fn offset(self) -> i64 {
        match self {
            IndexBase::Zero => 0,
            IndexBase::One => 1,
        }
    }
}

/// The element types of one arithmetic call: inputs (`A` and the dense operand, or both dense
/// operands for SDDMM), output, and compute type (alpha/beta are of the compute type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Precision {
    pub input: DataType,
    pub output: DataType,
    pub compute: DataType,
}

impl std::fmt::Display for Precision {
    /// "F16->F32 (F32)": input, output and compute types.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}->{:?} ({:?})", self.input, self.output, self.compute)
    }
}

impl Precision {
    /// The combinations spblk computes: uniform f32 and f64, and f16/bf16 inputs with f32
    /// compute and an f32 or same-type output (as cuSPARSE's mixed-precision tables).
    pub fn check(input: DataType, output: DataType, compute: DataType) -> Result<Self> {
        use DataType::*;
        let ok = matches!(
            (input, output, compute),
            (F32, F32, F32)
                | (F64, F64, F64)
                | (F16, F32, F32)
                | (BF16, F32, F32)
                | (F16, F16, F32)
                | (BF16, BF16, F32)
        );
        if ok {
            Ok(Precision { input, output, compute })
        } else {
            Err(Error::not_supported(format!(
                "type combination input {input:?}, output {output:?}, compute {compute:?} is not supported \
                 (supported: uniform R_32F or R_64F; R_16F/R_16BF inputs with R_32F compute and R_32F or same-type output)"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_rejects_out_of_range_and_names_the_argument() {
        let e = Operation::decode(7, "opA").unwrap_err();
        assert_eq!(e.status, SPBLK_STATUS_INVALID_VALUE);
        assert!(e.message.contains("opA"), "{}", e.message);
        assert_eq!(Operation::decode(1, "opA").unwrap(), Operation::Transpose);
        assert_eq!(DataType::decode(14, "t").unwrap(), DataType::BF16);
        assert!(DataType::decode(13, "t").is_err());
        assert!(Order::decode(0, "order").is_err());
    }

    #[test]
    fn precision_table() {
        use DataType::*;
        assert!(Precision::check(F16, F32, F32).is_ok());
        assert!(Precision::check(F32, F64, F64).is_err());
        assert_eq!(Precision::check(F16, F32, F16).unwrap_err().status, SPBLK_STATUS_NOT_SUPPORTED);
    }
}
