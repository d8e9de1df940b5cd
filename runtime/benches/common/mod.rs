//! What the runtime benchmarks share: the clock.
//!
//! By default criterion measures wall time. On a shared machine (other
//! builds, tests or fuzzers on the same two cores) wall time also counts the
//! time the benchmark thread waits for a core. `KFAM_BENCH_CLOCK=cpu`
//! measures the benchmark thread's own CPU time instead
//! (`CLOCK_THREAD_CPUTIME_ID`, Linux), which contention does not inflate
//! (cache pollution by the other processes still shows). docs/performance.md
//! says which clock each published figure used.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::Criterion;

pub enum Clock {
    Wall,
    ThreadCpu,
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
}

/// Linux's `CLOCK_THREAD_CPUTIME_ID`.
const CLOCK_THREAD_CPUTIME_ID: i32 = 3;

fn thread_cpu_ns() -> u64 {
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid out pointer; the clock id is Linux's constant.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

impl Clock {
    fn now(&self) -> u64 {
        static EPOCH: OnceLock<Instant> = OnceLock::new();
        match self {
            Clock::Wall => EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64,
            Clock::ThreadCpu => thread_cpu_ns(),
        }
    }
}

impl Measurement for Clock {
    type Intermediate = u64;
    type Value = Duration;

    fn start(&self) -> u64 {
        self.now()
    }
    fn end(&self, start: u64) -> Duration {
        Duration::from_nanos(self.now() - start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WallTime.formatter()
    }
}

/// A criterion configured from `KFAM_BENCH_CLOCK` (`wall`, the default, or `cpu`).
pub fn criterion() -> Criterion<Clock> {
    let clock = match std::env::var("KFAM_BENCH_CLOCK").as_deref() {
        Ok("cpu") => Clock::ThreadCpu,
        _ => Clock::Wall,
    };
    Criterion::default().with_measurement(clock)
}
