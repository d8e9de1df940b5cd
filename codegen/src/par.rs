//! The one way the pipeline uses a second core for per-file work (parsing
//! and checking family files): split the list in two halves, map each on
//! its own thread, keep the order. Small manifests (the build script, the
//! proc-macro) stay on one thread, where spawning would cost more than it
//! saves.

/// Below this many items everything runs on the calling thread.
const MIN_ITEMS: usize = 64;

/// `items.iter().map(f).collect()`, on two threads for long lists.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if items.len() < MIN_ITEMS {
        return items.iter().map(&f).collect();
    }
    let (first, second) = items.split_at(items.len() / 2);
    std::thread::scope(|scope| {
        let other = scope.spawn(|| second.iter().map(&f).collect::<Vec<R>>());
        let mut out: Vec<R> = first.iter().map(&f).collect();
        match other.join() {
            Ok(more) => out.extend(more),
            Err(panic) => std::panic::resume_unwind(panic),
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
            let doubled = super::map(&items, |&i| 2 * i);
            assert_eq!(doubled, items.iter().map(|i| 2 * i).collect::<Vec<_>>());
        }
    }
}
