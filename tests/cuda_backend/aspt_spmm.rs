//! ASpT SpMM (`SPBLK_SPMM_ALG_ASPT`): against the host's ASpT (the same order of every row's
//! sum) in four precisions and every layout, on scrambled block patterns (up to ~600 dense
//! columns a panel, so several staged chunks per thread block) and the generic shapes, widths
//! that take each lane grouping (2: one column a lane; 8, 33, 130: 8, 16, 32 lanes a row); the
//! same bits on every run; its own kernel once, nothing of the row method.

use super::sddmm::scrambled_blocks;
use super::*;

fn aspt_pattern(r: &mut StdRng, m: usize, n: usize) -> Vec<(usize, usize)> {
    match r.gen_range(0..3) {
        0 => {
            let k = r.gen_range(0..5);
            pattern(r, m, n, shapes(k))
        }
        1 => {
            let delta = [8, 16, 32][r.gen_range(0..3)];
            scrambled_blocks(r, (m, n), delta, 20, 0.5, 2)
        }
        _ => scrambled_blocks(r, (m, n), 32, 4, 0.3, 3),
    }
}

#[test]
fn spmm_aspt_matches_host() {
    if gpu("spmm_aspt_matches_host") {
        long_rows_cases("spmm aspt", SPBLK_SPMM_ALG_ASPT, (11, 1200), aspt_pattern, |what, records| {
            if harness_on_host() {
                return;
            }
            assert_eq!(launched(records, "spblk_spmm_aspt_"), 1, "{what}: ASpT kernel");
            assert_eq!(launched(records, "spblk_spmm_csr_"), 0, "{what}: the row method ran");
        });
    }
}
