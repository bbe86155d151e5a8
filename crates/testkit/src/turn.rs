//! Turns between test files. Each crate's integration tests are one binary, so tests of
//! different files would run side by side, which they were not written for: the slow ones start
//! subjects and look for leftovers by name, hold a CPU quota or count the machine's shared
//! memory, and the load tests judge latencies. Every test takes its file's turn first
//! (`let _turn = turn::take(module_path!());`): a file's tests overlap with each other, never
//! with another file's. The test harness runs tests in name order, so the files follow each other
//! as the binaries did, and a test waits only where one file hands over to the next.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Which file holds the turn, and how many of its tests are running.
static HOLDER: Mutex<Option<(&'static str, usize)>> = Mutex::new(None);
static RELEASED: Condvar = Condvar::new();

/// A turn held by one test; the next file's tests may start once every test of this file that
/// holds one has dropped it.
#[must_use = "the turn lasts as long as this guard"]
pub struct Turn {
    file: &'static str,
}

/// Waits until no other file's test holds a turn, then takes one for `file`. Pass
/// `module_path!()`: `turn::take(module_path!())`.
pub fn take(file: &'static str) -> Turn {
    let mut holder = lock();
    loop {
        match &mut *holder {
            None => {
                *holder = Some((file, 1));
                break;
            }
            Some((f, n)) if *f == file => {
                *n += 1;
                break;
            }
            Some(_) => holder = RELEASED.wait(holder).unwrap_or_else(|p| p.into_inner()),
        }
    }
    Turn { file }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut holder = lock();
        if let Some((f, n)) = &mut *holder
            && *f == self.file
        {
            *n -= 1;
            if *n == 0 {
                *holder = None;
                RELEASED.notify_all();
            }
        }
    }
}

/// The holder, also after a test panicked while holding the lock (a failed test must not fail
/// the others).
fn lock() -> MutexGuard<'static, Option<(&'static str, usize)>> {
    HOLDER.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn tests_of_two_files_never_hold_turns_at_once() {
        static A: AtomicUsize = AtomicUsize::new(0);
        static B: AtomicUsize = AtomicUsize::new(0);
        let run = |file: &'static str, mine: &'static AtomicUsize, theirs: &'static AtomicUsize| {
            std::thread::spawn(move || {
                for _ in 0..20 {
                    let _turn = take(file);
                    mine.fetch_add(1, Ordering::SeqCst);
                    assert_eq!(theirs.load(Ordering::SeqCst), 0);
                    std::thread::sleep(Duration::from_millis(1));
                    mine.fetch_sub(1, Ordering::SeqCst);
                }
            })
        };
        let threads = [
            run("a", &A, &B),
            run("a", &A, &B),
            run("b", &B, &A),
            run("b", &B, &A),
        ];
        for t in threads {
            t.join().unwrap();
        }
    }
}
