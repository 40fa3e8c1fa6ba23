//! SpGEMM by expansion, sorting and compression (`SPBLK_SPGEMM_ALG_ESC`): every bin of the
//! method against the host, bit for bit, and only the ESC kernels run.

use std::collections::HashMap;

use spblk::capi::types::*;

use super::support::*;
use super::{launched, spgemm_against_host};

/// Rows in every bin: no products, a warp (<= 32, 256), a block (<= 1024, 4096) and long rows
/// (chunks of 4096 merged: ~20 000 and ~60 000 products, so three and four merge levels; B
/// rows of ~20 000 entries, so chunks that start inside a B row). A and B rows are unsorted.
/// Each case must run the ESC kernels and no kernel of the hash method, and over the test
/// every ESC kernel must run.
#[test]
fn spgemm_esc_matches_host_exactly() {
    if !gpu("spgemm_esc_matches_host_exactly") {
        return;
    }
    let sizes = [
        (50, 40, 30, Shape::Uniform(2), Shape::Uniform(2)),
        (80, 60, 70, Shape::Uniform(8), Shape::Uniform(8)),
        (40, 200, 300, Shape::Uniform(20), Shape::Uniform(25)),
        (40, 200, 3000, Shape::Uniform(60), Shape::Uniform(40)),
        (60, 500, 500, Shape::PowerLaw, Shape::PowerLaw),
        (20, 30, 40, Shape::EmptyRows(3), Shape::Empty),
        (0, 10, 10, Shape::Uniform(2), Shape::Uniform(2)),
        (25, 25, 1, Shape::Uniform(3), Shape::Uniform(1)),
        (2, 1000, 100_000, Shape::DenseRow, Shape::Uniform(20)),
        (1, 3000, 1 << 21, Shape::DenseRow, Shape::Uniform(20)),
        (30, 50, 20_000, Shape::Uniform(3), Shape::DenseRow),
    ];
    let mut runs: HashMap<&str, u32> = HashMap::new();
    let kinds = ["warp", "block", "chunk_starts", "chunks", "merge", "long_counts", "copy_short", "copy_long"];
    spgemm_against_host(
        29,
        &sizes,
        |_| SPBLK_SPGEMM_ALG_ESC,
        |what, _, records| {
            for prefix in ["spblk_spgemm_symbolic_", "spblk_spgemm_numeric_", "spblk_spgemm_place_"] {
                assert_eq!(launched(records, prefix), 0, "{what}: ESC ran the hash method's {prefix}");
            }
            for kind in kinds {
                *runs.entry(kind).or_default() += launched(records, &format!("spblk_spgemm_esc_{kind}"));
            }
        },
    );
    if std::env::var_os("SPBLK_TEST_QUICK").is_none() && !harness_on_host() {
        for kind in kinds {
            assert!(runs[kind] > 0, "no case ran spblk_spgemm_esc_{kind}");
        }
    }
}
