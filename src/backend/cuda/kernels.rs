//! The registry of kernel entry points: every `extern "C" __global__` name in `kernels/`
//! that the backend launches. Names follow `spblk_<op>_<variant>_<in>_<out>_<idx>`; the
//! lists below mirror the instantiation macros in `kernels/common/types.cuh`.

use crate::types::{DataType, IndexType, Precision};

/// (input, output) tags of the precision combinations (`Precision::check`).
pub const PRECISIONS: [(&str, &str); 6] =
    [("f32", "f32"), ("f64", "f64"), ("f16", "f32"), ("bf16", "f32"), ("f16", "f16"), ("bf16", "bf16")];
/// Stored value types of SpGEMM and the SpMV long-row partials.
pub const VALUES: [&str; 4] = ["f32", "f64", "f16", "bf16"];
pub const INDICES: [&str; 2] = ["i32", "i64"];
/// Name prefixes of the kernels that take more than 48 KB of dynamic shared memory.
pub const LARGE_SHARED: [&str; 9] = [
    "spblk_spmm_vbr_",
    "spblk_sddmm_aspt_tiles_",
    "spblk_spsv_once_",
    "spblk_spmm_aspt_",
    "spblk_aspt_spmm_estimate_",
    "spblk_spgemm_symbolic_",
    "spblk_spgemm_numeric_",
    "spblk_spgemm_esc_block_",
    "spblk_radix_pass_",
];

pub fn value_tag(t: DataType) -> &'static str {
    match t {
        DataType::F64 => "f64",
        DataType::F16 => "f16",
        DataType::BF16 => "bf16",
        _ => "f32",
    }
}

pub fn index_tag(t: IndexType) -> &'static str {
    match t {
        IndexType::I64 => "i64",
        _ => "i32",
    }
}

/// "<in>_<out>" of a precision.
pub fn precision_tag(p: &Precision) -> String {
    format!("{}_{}", value_tag(p.input), value_tag(p.output))
}

/// Every registered kernel name.
pub fn all() -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for t in ["u32", "u64"] {
        for s in ["reduce", "sums", "down"] {
            v.push(format!("spblk_scan_{s}_{t}"));
        }
    }
    v.extend(
        [
            "spblk_radix_counts_pairs",
            "spblk_radix_pass_pairs_w1",
            "spblk_radix_pass_pairs_w2",
            "spblk_iota_u32",
            "spblk_convert_values",
            "spblk_rode_fill",
        ]
        .map(String::from),
    );
    v.extend(
        [
            "spblk_spgemm_bin_rows",
            "spblk_spgemm_big_numeric_pool",
            "spblk_spgemm_gather_keys",
            "spblk_spgemm_k2_starts",
            "spblk_spgemm_esc_stats",
            "spblk_spgemm_esc_bin_rows",
            "spblk_spgemm_esc_merge",
            "spblk_spgemm_esc_long_counts",
            "spblk_spgemm_esc_pass_counts",
            "spblk_spgemm_esc_chunk_heads",
        ]
        .map(String::from),
    );
    v.extend(
        ["spblk_aspt_ranks", "spblk_aspt_first_keys", "spblk_aspt_panel_keys", "spblk_aspt_runs"].map(String::from),
    );
    // kernels/sddmm/aspt_tiles.cu: f32 only, k <= 32 and k <= 256.
    for i in INDICES {
        v.push(format!("spblk_sddmm_aspt_tiles_f32_k32_{i}"));
        v.push(format!("spblk_sddmm_aspt_tiles_f32_k256_{i}"));
    }
    v.extend(
        ["spblk_aspt_spmm_marks", "spblk_aspt_spmm_columns", "spblk_aspt_spmm_entries", "spblk_aspt_spmm_half_ptr"]
            .map(String::from),
    );
    for (a, b) in PRECISIONS {
        for shape in ["g8v4", "g16v4", "g32v4", "g32v1"] {
            v.push(format!("spblk_spmm_aspt_{shape}_{a}_{b}"));
        }
    }
    for i in INDICES {
        for s in ["offsets", "rows", "gather", "mirror"] {
            v.push(format!("spblk_convert_{s}_{i}"));
        }
        v.push(format!("spblk_radix_counts_{i}"));
        v.push(format!("spblk_radix_pass_{i}_w1"));
        v.push(format!("spblk_radix_pass_{i}_w2"));
        v.push(format!("spblk_row_max_{i}"));
        v.push(format!("spblk_spmv_csr_long_plan_{i}"));
        v.push(format!("spblk_spmv_merge_starts_{i}"));
        v.push(format!("spblk_rode_count_{i}"));
        v.push(format!("spblk_spmm_sweep_slabs_{i}"));
        for s in ["row_keys", "entry_keys", "entries", "spmm_estimate"] {
            v.push(format!("spblk_aspt_{s}_{i}"));
        }
        v.push(format!("spblk_spgemm_rowprod_{i}"));
        v.push(format!("spblk_spgemm_offsets_{i}"));
        v.push(format!("spblk_spgemm_symbolic_warp_{i}"));
        v.push(format!("spblk_spgemm_symbolic_short_{i}"));
        v.push(format!("spblk_spgemm_symbolic_big_{i}"));
        v.push(format!("spblk_spgemm_symbolic_global_{i}"));
        v.push(format!("spblk_spgemm_reuse_count_{i}"));
        v.push(format!("spblk_spgemm_reuse_place_{i}"));
        v.push(format!("spblk_spgemm_esc_chunk_starts_{i}"));
        for (a, b) in PRECISIONS {
            v.push(format!("spblk_spmv_csr_vector_{a}_{b}_{i}"));
            v.push(format!("spblk_spmv_csr_vector32_{a}_{b}_{i}"));
            v.push(format!("spblk_spmv_csr_scalar_{a}_{b}_{i}"));
            v.push(format!("spblk_spmv_csr_warp_{a}_{b}_{i}"));
            v.push(format!("spblk_spmv_merge_tiles_{a}_{b}_{i}"));
            v.push(format!("spblk_spmv_merge_finish_{a}_{b}_{i}"));
            v.push(format!("spblk_spmm_csr_v1_{a}_{b}_{i}"));
            v.push(format!("spblk_spmm_csr_v4_{a}_{b}_{i}"));
            v.push(format!("spblk_spmm_rode_rows_v1_{a}_{b}_{i}"));
            v.push(format!("spblk_spmm_rode_rows_v4_{a}_{b}_{i}"));
            v.push(format!("spblk_spmm_sweep_{a}_{b}_{i}"));
            v.push(format!("spblk_sddmm_csr_{a}_{b}_{i}"));
            v.push(format!("spblk_sddmm_csr_entries_{a}_{b}_{i}"));
        }
        for t in VALUES {
            v.push(format!("spblk_spmv_csr_long_partial_{t}_{i}"));
            v.push(format!("spblk_spmm_csr_long_partial_v1_{t}_{i}"));
            v.push(format!("spblk_spmm_csr_long_partial_v4_{t}_{i}"));
            v.push(format!("spblk_spmm_rode_blocks_v1_{t}_{i}"));
            v.push(format!("spblk_spmm_rode_blocks_v4_{t}_{i}"));
            v.push(format!("spblk_spgemm_numeric_warp_{t}_{i}"));
            v.push(format!("spblk_spgemm_numeric_short_{t}_{i}"));
            v.push(format!("spblk_spgemm_numeric_warp2_{t}_{i}"));
            v.push(format!("spblk_spgemm_numeric_big_{t}_{i}"));
            v.push(format!("spblk_spgemm_place_{t}_{i}"));
            for s in ["warp", "block", "chunks", "copy_short", "copy_long"] {
                v.push(format!("spblk_spgemm_esc_{s}_{t}_{i}"));
            }
            v.push(format!("spblk_vbr_fill_{t}_{i}"));
        }
    }
    v.push("spblk_spgemm_reuse_long_list".to_string());
    for t in VALUES {
        v.push(format!("spblk_spgemm_reuse_values_{t}"));
        v.push(format!("spblk_spgemm_reuse_long_{t}"));
    }
    // kernels/spmm/vbr.cu: product flavour x op(B) layout x column tile (128 also split
    // over a cluster) x (input, output).
    for (mode, a, b, tiles) in [
        ("tc", "f16", "f32", &["128", "128_split", "256"][..]),
        ("tc", "f16", "f16", &["128", "128_split", "256"]),
        ("tc", "bf16", "f32", &["128", "128_split", "256"]),
        ("tc", "bf16", "bf16", &["128", "128_split", "256"]),
        ("tf32", "f32", "f32", &["128", "128_split"]),
        ("tf32x3", "f32", "f32", &["128", "128_split"]),
    ] {
        for layout in ["brow", "bcol"] {
            for bn in tiles {
                v.push(format!("spblk_spmm_vbr_{mode}_{layout}_n{bn}_{a}_{b}"));
            }
        }
    }
    // kernels/spmm/vbr_wgmma.cu: op(B) layout x column tile (128 also split) x (input, output).
    for (a, b) in [("f16", "f32"), ("f16", "f16"), ("bf16", "f32"), ("bf16", "bf16")] {
        for layout in ["brow", "bcol"] {
            for bn in ["128", "128_split", "256"] {
                v.push(format!("spblk_spmm_vbr_wg_{layout}_n{bn}_{a}_{b}"));
            }
        }
    }
    // kernels/spmm/vbr_wgmma_f32.cu: split TF32, op(B) layout x whole or split tiles.
    for layout in ["brow", "bcol"] {
        for bn in ["128", "128_split"] {
            v.push(format!("spblk_spmm_vbr_wgx3_{layout}_n{bn}_f32_f32"));
        }
    }
    for (a, b) in PRECISIONS {
        v.push(format!("spblk_sddmm_aspt_{a}_{b}"));
        v.push(format!("spblk_spmv_csr_long_finish_{a}_{b}"));
        v.push(format!("spblk_spmm_csr_long_finish_{a}_{b}"));
    }
    // kernels/spvec/: updates by value type, copies by element width, SpVV's two passes.
    for t in VALUES {
        v.push(format!("spblk_spvec_scale_{t}"));
        for i in INDICES {
            for op in ["axpy", "rot"] {
                v.push(format!("spblk_spvec_{op}_{t}_{i}"));
            }
            v.push(format!("spblk_spvv_partial_{t}_{i}"));
        }
    }
    for w in ["b8", "b16", "b32", "b64", "b128"] {
        for i in INDICES {
            v.push(format!("spblk_spvec_gather_{w}_{i}"));
            v.push(format!("spblk_spvec_scatter_{w}_{i}"));
        }
    }
    // kernels/convert/dense_sparse.cu: by element width (and index type).
    for w in ["b8", "b16", "b32", "b64", "b128"] {
        v.push(format!("spblk_dense_to_sparse_count_{w}"));
        for i in INDICES {
            for s in
                ["dense_to_sparse_fill", "sparse_to_dense_compressed", "sparse_to_dense_coo", "dense_to_blocked_ell"]
            {
                v.push(format!("spblk_{s}_{w}_{i}"));
            }
        }
    }
    for i in INDICES {
        v.push(format!("spblk_dense_to_sparse_offsets_{i}"));
    }
    v.extend(["spblk_csr2coo_rows", "spblk_coo2csr_offsets"].map(String::from));
    // kernels/spmm/bsr.cu, kernels/spmm/blocked_ell.cu, kernels/spmv/sell.cu.
    for (a, b) in PRECISIONS {
        for i in INDICES {
            for k in ["bsrmm_rows", "blocked_ell_rows", "sell_spmv"] {
                v.push(format!("spblk_{k}_{a}_{b}_{i}"));
            }
        }
    }
    for i in INDICES {
        for p in ["f16_f32", "f16_f16", "bf16_f32", "bf16_bf16", "f32_f32"] {
            v.push(format!("spblk_blocked_ell_mma_{p}_{i}"));
        }
        v.push(format!("spblk_sell_row_counts_{i}"));
        v.push(format!("spblk_sell_csr_offsets_{i}"));
        for w in ["b16", "b32", "b64"] {
            v.push(format!("spblk_sell_to_csr_{w}_{i}"));
        }
    }
    // kernels/spsv/analysis.cu, order.cu, small.cu, sync_free.cu and one_block.cu.
    v.extend(
        [
            "spblk_spsv_order_keys",
            "spblk_spsv_arrange",
            "spblk_spsv_order_place",
            "spblk_spsv_ticket_flags",
            "spblk_spsv_ticket_place",
            "spblk_spsv_solve_mode",
            "spblk_spsv_order_small",
            "spblk_spsv_arrange_small",
        ]
        .map(String::from),
    );
    for i in INDICES {
        v.push(format!("spblk_spsv_order_levels_{i}"));
        for t in ["f32", "f64"] {
            v.push(format!("spblk_spsv_place_{i}_{t}"));
        }
    }
    for t in ["f32", "f64"] {
        for k in ["values", "diagonal", "rows_one", "warp_one", "rows_many", "warp_many", "once_rows", "once_warp"] {
            v.push(format!("spblk_spsv_{k}_{t}"));
        }
    }
    // kernels/factor/rows.cuh, ilu0.cu, ic0.cu.
    v.extend(
        [
            "spblk_factor_pattern",
            "spblk_factor_count_long",
            "spblk_factor_lane_row",
            "spblk_factor_ticket_flags",
            "spblk_factor_ticket_place",
        ]
        .map(String::from),
    );
    for t in ["f32", "f64"] {
        v.push(format!("spblk_ilu0_{t}"));
        v.push(format!("spblk_ic0_{t}"));
        v.push(format!("spblk_factor_init_{t}"));
    }
    // kernels/geam/merge.cu.
    v.extend(
        ["spblk_geam_count", "spblk_geam_offsets", "spblk_geam_fill_f32", "spblk_geam_fill_f64"].map(String::from),
    );
    v.push("spblk_spvv_finish_f32".to_string());
    v.push("spblk_spvv_finish_f64".to_string());
    // kernels/convert/dense.cu: transposes of 2-, 4- and 8-byte words.
    for w in ["b16", "b32", "b64"] {
        v.push(format!("spblk_dense_transpose_{w}"));
    }
    for t in VALUES {
        v.push(format!("spblk_dense_axpby_transpose_{t}"));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs without a GPU: every registered name must be an identifier of the kernels as nvcc
    /// preprocessed them (build.rs lists them: the fatbin itself is compressed), so a name
    /// missing from the kernels or misspelt here is caught on CI.
    #[test]
    fn every_registered_kernel_is_in_the_fatbin() {
        let fatbin = super::super::module::FATBIN;
        assert!(fatbin.len() > 1000, "empty fatbin");
        let names = all();
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "duplicate registry entries");
        let listed = include_str!(concat!(env!("OUT_DIR"), "/spblk_kernel_names.txt"));
        let present: std::collections::HashSet<&str> = listed.lines().collect();
        for name in &names {
            assert!(present.contains(name.as_str()), "kernel {name} is registered but not in the kernels");
        }
    }
}
