//! How the pipeline runs work on several threads. [`run`] runs a few
//! unequal jobs (the emitters), each thread taking the next job when it
//! finishes one. [`map`] splits a list into contiguous chunks, one job
//! each, and keeps the order: parsing and checking family files use two
//! (the machine's cores); writing files uses more, as it mostly waits for
//! the disk. Small lists (the build script, the proc-macro) stay on one
//! thread, where spawning would cost more than it saves.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Below this many items everything runs on the calling thread.
const MIN_ITEMS: usize = 64;

/// `items.iter().map(f).collect()`, on two threads for long lists.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_on(2, items, f)
}

/// `items.iter().map(f).collect()`, on up to `threads` threads for long lists:
/// one [`run`] job per contiguous chunk.
pub fn map_on<T: Sync, R: Send>(threads: usize, items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if items.len() < MIN_ITEMS || threads < 2 {
        return items.iter().map(&f).collect();
    }
    let f = &f;
    let jobs: Vec<Job<'_, Vec<R>>> = items
        .chunks(items.len().div_ceil(threads))
        .map(|chunk| Box::new(move || chunk.iter().map(f).collect()) as Job<'_, Vec<R>>)
        .collect();
    run(threads, jobs).into_iter().flatten().collect()
}

/// One unit of work for [`run`].
pub type Job<'a, R> = Box<dyn FnOnce() -> R + Send + 'a>;

/// The value in `slot`, leaving it empty.
fn take<T>(slot: &Mutex<Option<T>>) -> Option<T> {
    slot.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// Every job's result, in job order, computed on up to `threads` threads;
/// each thread takes the next job not yet started, so listing the longest
/// first lets the threads finish together.
pub fn run<R: Send>(threads: usize, jobs: Vec<Job<'_, R>>) -> Vec<R> {
    let n = jobs.len();
    let jobs: Vec<Mutex<Option<Job<'_, R>>>> =
        jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let results: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    // A job that panics unwinds its thread and `join` below re-raises it, so
    // no result is read from a poisoned lock.
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(job) = jobs.get(i).and_then(take) else {
            return;
        };
        let result = job();
        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
    };
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads.min(n)).map(|_| scope.spawn(work)).collect();
        work();
        for other in others {
            if let Err(panic) = other.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    results
        .iter()
        .map(|r| take(r).expect("every job ran: the threads only stop when none is left"))
        .collect()
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

    #[test]
    fn run_returns_results_in_job_order() {
        for threads in [0, 1, 2, 5] {
            for n in [0, 1, 2, 7] {
                let jobs: Vec<super::Job<'_, usize>> = (0..n)
                    .map(|i| Box::new(move || 10 * i) as super::Job<'_, usize>)
                    .collect();
                let want: Vec<usize> = (0..n).map(|i| 10 * i).collect();
                assert_eq!(super::run(threads, jobs), want);
            }
        }
    }
}
