//! The one way the pipeline runs per-file work on several threads: split
//! the list into contiguous chunks, map each on its own thread, keep the
//! order. Parsing and checking family files use two (the machine's cores);
//! writing files uses more, as it mostly waits for the disk. Small lists
//! (the build script, the proc-macro) stay on one thread, where spawning
//! would cost more than it saves.

/// Below this many items everything runs on the calling thread.
const MIN_ITEMS: usize = 64;

/// `items.iter().map(f).collect()`, on two threads for long lists.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_on(2, items, f)
}

/// `items.iter().map(f).collect()`, on up to `threads` threads for long lists.
pub fn map_on<T: Sync, R: Send>(threads: usize, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if items.len() < MIN_ITEMS || threads < 2 {
        return items.iter().map(&f).collect();
    }
    let mut chunks = items.chunks(items.len().div_ceil(threads));
    let first = chunks.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let f = &f;
        let others: Vec<_> = chunks
            .map(|chunk| scope.spawn(move || chunk.iter().map(f).collect::<Vec<R>>()))
            .collect();
        let mut out: Vec<R> = first.iter().map(f).collect();
        for other in others {
            match other.join() {
                Ok(more) => out.extend(more),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_order_on_either_path() {
        for n in [0, 1, super::MIN_ITEMS - 1, super::MIN_ITEMS, 1001] {
            let items: Vec<usize> = (0..n).collect();
            let want: Vec<usize> = items.iter().map(|i| 2 * i).collect();
            assert_eq!(super::map(&items, |&i| 2 * i), want);
            for threads in [0, 1, 3, 8, 2000] {
                assert_eq!(super::map_on(threads, &items, |&i| 2 * i), want);
            }
        }
    }
}
