//! How the open loop wakes for its next send. A timerfd wakes the thread, but the wake-up
//! itself (the CPU leaving its idle state, the scheduler) lands late by microseconds to tens of
//! them, and that lateness is in every latency of a fast server. So the timer is armed
//! [`SPIN_WINDOW`] before the next send and the loop then polls without sleeping (`epoll_wait`
//! with a zero timeout, still reading answers) until the send time: the wake-up error is then
//! one turn of the loop. The thread's timer slack is set to 1 ns so that the kernel does not
//! round its sleeps either. What the spin costs is the generator's CPU, reported as ever; a
//! rate whose interval is shorter than the window keeps the thread busy.

use std::time::{Duration, Instant};

use super::Worker;

/// How long before a scheduled send the loop stops sleeping.
pub(super) const SPIN_WINDOW: Duration = Duration::from_micros(30);

/// Asks the kernel not to stretch this thread's timed sleeps (its default slack is 50 µs for
/// `epoll_wait` timeouts); a failure only leaves the default.
pub(super) fn tighten_timer_slack() {
    let _ = nix::sys::prctl::set_timerslack(1);
}

impl Worker {
    /// True when the next scheduled send is within [`SPIN_WINDOW`]: the loop polls without
    /// sleeping until it is due.
    #[inline]
    pub(super) fn spinning(&self, now: Instant) -> bool {
        self.timer.is_some()
            && self
                .due
                .peek()
                .is_some_and(|r| r.0.0.saturating_duration_since(now) <= SPIN_WINDOW)
    }
}
