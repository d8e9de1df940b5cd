//! The allocator of the `kfam` binary and the benchmarks (mimalloc), and
//! its tuning. Not part of the library: a crate that links the generator
//! (the proc-macro, a build script) keeps its own allocator. Included by
//! path from `main.rs` and the benchmarks.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the same index in mimalloc 2 and 3;
/// the test below pins it by its default).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// For a process that builds hundreds of megabytes of text once and exits:
/// freed memory is kept for reuse instead of being handed back to the kernel
/// (purged): at 10,000 families the kernel zeroed about 900 MB of pages
/// again (the pipeline benchmark: 1.61 s -> 1.44 s). The memory goes back
/// when the process exits.
///
/// And no transparent huge pages: mimalloc asks the kernel for them
/// (`MADV_HUGEPAGE`) on the arenas it maps, the first before `main`, and on
/// a machine whose memory is fragmented the kernel compacts memory to find
/// them, in the page fault, on the process's time. The process-wide switch
/// (what mimalloc's own `allow_thp=0` does at its start) is checked at every
/// fault, so it covers the arena already mapped. Call it first thing in
/// `main`.
pub fn tune() {
    // SAFETY: sets one integer option; mimalloc reads options atomically,
    // and -1 ("never purge") is a documented value.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
    #[cfg(target_os = "linux")]
    // SAFETY: a process attribute; no memory is passed. A kernel without
    // it returns an error, which changes nothing and is ignored.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn purge_delay_option_index() {
        // Only `purge_delay` defaults to 1000 (ms) among mimalloc 3's options
        // (mimalloc 2: 10); a renumbering would show here, not as a slowdown.
        // SAFETY: reads one option.
        let default = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert!(
            std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() || [10, 1000].contains(&default),
            "option {} is not purge_delay (value {default})",
            super::MI_OPTION_PURGE_DELAY
        );
    }
}
