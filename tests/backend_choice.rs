//! Backend selection: `spblkCreate` follows SPBLK_BACKEND, never falls back silently, and a
//! CUDA request on a machine without a usable GPU fails with a message that says why.
//! One test in this binary, so changing the environment races with nothing.

mod common;

use common::last_error;
use spblk::capi::handle::*;
use spblk::capi::types::*;

#[test]
fn create_follows_environment_and_never_falls_back() {
    let mut h: spblkHandle_t = std::ptr::null_mut();
    let mut kind = 0u32;

    std::env::set_var("SPBLK_BACKEND", "host");
    assert_eq!(spblkCreate(&mut h), SPBLK_STATUS_SUCCESS);
    assert_eq!(spblkGetBackend(h, &mut kind), SPBLK_STATUS_SUCCESS);
    assert_eq!(kind, SPBLK_BACKEND_HOST);
    assert_eq!(spblkDestroy(h), SPBLK_STATUS_SUCCESS);

    std::env::set_var("SPBLK_BACKEND", "gpu-please");
    let sentinel = 0x42 as spblkHandle_t;
    h = sentinel;
    assert_eq!(spblkCreate(&mut h), SPBLK_STATUS_INVALID_VALUE);
    assert_eq!(h, sentinel, "no handle written on failure");
    assert!(last_error().contains("SPBLK_BACKEND"), "{}", last_error());

    // CUDA: either a real handle on the CUDA backend, or a failure that explains itself;
    // never a host handle in disguise.
    std::env::remove_var("SPBLK_BACKEND");
    h = sentinel;
    let st = spblkCreate(&mut h);
    if st == SPBLK_STATUS_SUCCESS {
        assert_eq!(spblkGetBackend(h, &mut kind), SPBLK_STATUS_SUCCESS);
        assert_eq!(kind, SPBLK_BACKEND_CUDA);
        assert_eq!(spblkDestroy(h), SPBLK_STATUS_SUCCESS);
    } else {
        assert_eq!(h, sentinel);
        let msg = last_error();
        assert!(msg.starts_with("spblkCreate:") && msg.to_lowercase().contains("cuda"), "{msg}");
        eprintln!("CUDA backend unavailable here (expected without a GPU): {msg}");
    }
}
