//! Hints to the operating system (kept out of `analysis`, which is safe host code).

/// Asks Linux for transparent huge pages over `buf` before its first touch. The 1-SA values of
/// a plan with 1-row groups reach gigabytes (R-MAT 2^20: 4 GB), and faulting them in 4 KiB at
/// a time cost more than the rest of the build. Advice only: where THP is off nothing changes.
pub fn advise_huge_pages<V>(buf: &mut [V]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = std::mem::size_of_val(buf);
        if bytes >= 4 * HUGE {
            let start = buf.as_mut_ptr() as usize;
            let first = start.next_multiple_of(HUGE);
            let end = (start + bytes) / HUGE * HUGE;
            if end > first {
                // SAFETY: [first, end) lies inside `buf`'s allocation; MADV_HUGEPAGE changes no
                // contents, only how later faults are served.
                unsafe {
                    libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
                }
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}
