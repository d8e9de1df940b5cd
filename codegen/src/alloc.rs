//! The allocator of the `kfam` binary and the benchmarks (mimalloc), and
//! its tuning. Not part of the library: a crate that links the generator
//! (the proc-macro, a build script) keeps its own allocator. Included by
//! path from `main.rs` and the benchmarks.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (the same index in mimalloc 2 and 3;
/// the test below pins it by its default).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long mimalloc keeps memory freed before handing it back to the
/// kernel (purging it), in milliseconds.
///
/// A generation's phases reuse little of each other's memory: loading and
/// checking make half a million small records at 10,000 families, emitting
/// a hundred MB of text in a few large strings. Never purging (the
/// earlier setting, `-1`) kept the freed records' pages beside the
/// outputs: a peak of 440-470 MiB at 10,000 families, against 330-340 MiB
/// with a delay of 100 ms, at the same user and system time (three runs
/// each, docs/performance.md, "Peak memory"). A delay of 0 or 10 ms purges
/// the same and costs more system time (the kernel zeroes pages that are
/// soon faulted in again); 1000 ms (mimalloc's default) keeps more.
pub const PURGE_DELAY_MS: libc::c_long = 100;

/// The tuning of the allocator: freed memory goes back to the kernel
/// [`PURGE_DELAY_MS`] after it is freed.
///
/// And no transparent huge pages: mimalloc asks the kernel for them
/// (`MADV_HUGEPAGE`) on the arenas it maps, the first before `main`, and on
/// a machine whose memory is fragmented the kernel compacts memory to find
/// them, in the page fault, on the process's time. The process-wide switch
/// (what mimalloc's own `allow_thp=0` does at its start) is checked at every
/// fault, so it covers the arena already mapped. Call it first thing in
/// `main`.
pub fn tune() {
    // SAFETY: sets one integer option; mimalloc reads options atomically.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) }
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
