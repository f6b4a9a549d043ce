//! Jobs on worker threads: `count` independent jobs taken in order by `threads` scoped
//! threads, their results returned in job order. Sweeps run their cases on it and fits
//! their Jacobian columns.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `job(k)` for every `k < count`. `watch` runs on the calling thread meanwhile with
/// the count of finished jobs (a progress line) and must return once it reaches `count`.
///
/// ```
/// let squares = model_compiler::sweep::pool::map(2, 5, |k| k * k, |_| {});
/// assert_eq!(squares, [0, 1, 4, 9, 16]);
/// ```
pub fn map<R: Send>(
    threads: usize,
    count: usize,
    job: impl Fn(usize) -> R + Sync,
    watch: impl FnOnce(&AtomicUsize),
) -> Vec<R> {
    let slots: Vec<Mutex<Option<R>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, count.max(1)) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= count {
                        break;
                    }
                    let r = job(k);
                    *slots[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        watch(&done);
    });
    slots
        .into_iter()
        .map(|s| {
            s.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every job ran")
        })
        .collect()
}
