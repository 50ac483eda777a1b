//! TLC runs side by side: a JVM starting up is most of a small model's
//! time, so two cores check two models at once.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// How many TLC runs at once: `jobs`, or one per core when 0.
pub fn jobs(jobs: usize) -> usize {
    match jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// `f` of every item on `jobs` threads, the results in the items' order.
pub fn in_parallel<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let out: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                out.lock().unwrap()[i] = Some(r);
            });
        }
    });
    out.into_inner().unwrap().into_iter().map(|r| r.expect("every item run")).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn in_parallel_keeps_the_order_and_runs_each_once() {
        let items: Vec<u32> = (0..50).collect();
        for jobs in [1, 2, 7, 80] {
            assert_eq!(super::in_parallel(&items, jobs, |x| x * 2), (0..50).map(|x| x * 2).collect::<Vec<_>>());
        }
        assert!(super::in_parallel(&Vec::<u32>::new(), 2, |x| *x).is_empty());
        assert!(super::jobs(0) >= 1);
        assert_eq!(super::jobs(3), 3);
    }
}
