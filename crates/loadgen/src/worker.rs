//! One load thread: an edge-triggered epoll loop over its share of the connections.
//!
//! Per request the hot path is one `write` (the pre-encoded bytes), one `read` and one clock read:
//! the next request is written straight after its answer is parsed, so no readiness is re-armed;
//! a read that returns less than the free buffer means the socket is drained, so no extra read
//! waits for `EAGAIN`.
//!
//! Modules by job: this one runs the loop (readiness, the rate timer, timeouts, the end of the
//! run); `exchange.rs` is the per-request path above, for HTTP/1.x and HTTP/2 alike; `h2_io.rs`
//! turns HTTP/2 frames into answers; `lifecycle.rs` opens connections (TCP, then TLS) and tears
//! them down, with the reconnect backoff; `pacing.rs` says how the open loop wakes for a send
//! (the timer armed early, the last stretch spun); `scripted.rs` asks a wrk script for each request and
//! hands it each answer, when one runs per request.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Token};
use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};

use crate::Progress;
use crate::h2::{H2Conn, H2Request};
use crate::recorder::{ErrorClass, Recorder};
use crate::response::ResponseParser;
use crate::transport::{Endpoint, Socket, Transport};

mod exchange;
mod h2_io;
mod lifecycle;
mod pacing;
mod scripted;

use scripted::Scripted;
pub use scripted::{ScriptConfig, ScriptReport};

/// The rate timer's token: above any connection's, whose index fits in [`INDEX_BITS`].
const TIMER: Token = Token(usize::MAX);
/// A connection's token is its index in the low bits and its socket's generation above them,
/// so that a late event of a replaced socket is told from its successor's.
const INDEX_BITS: u32 = 32;
/// A connection's first read buffer: room for many pipelined small answers in one `read`.
const INITIAL_BUFFER: usize = 16 * 1024;
/// A full buffer whose bytes are still one unfinished piece doubles up to this: twice the largest
/// piece that must be whole in it (a response head of [`crate::http1_limits::MAX_HEAD`]; bodies
/// are skipped by length), so a piece still unfinished at this size is the server's fault.
const MAX_BUFFER: usize = 128 * 1024;
/// The first reconnect delay after a failed connection: short enough that one refused
/// connect costs little, long enough that a dead server costs no busy loop.
const MIN_BACKOFF: Duration = Duration::from_millis(10);
/// The doubling backoff stops here: a server that comes back is found again within a second.
const MAX_BACKOFF: Duration = Duration::from_secs(1);
/// The longest poll sleep: the stop flag (Ctrl-C) is looked at at least this often.
const MAX_POLL_WAIT: Duration = Duration::from_millis(50);
/// Readiness events taken per poll; any more wait for the next turn of the loop, which looks at
/// the clock, the timers and the stop flag in between.
const EVENTS_PER_POLL: usize = 1024;
/// Timeouts are scanned this many times per `--timeout`, so that a request is failed at most a
/// quarter of its timeout late...
const SCANS_PER_TIMEOUT: u32 = 4;
/// ...but never more often than this (a scan walks every connection)...
const MIN_SCAN_INTERVAL: Duration = Duration::from_millis(1);
/// ...nor less often than this, so that a long `--timeout` still ends a stuck handshake soon.
const MAX_SCAN_INTERVAL: Duration = Duration::from_millis(20);
/// The shortest rate-timer wait: a timerfd given zero is disarmed, not fired.
const MIN_TIMER_WAIT: Duration = Duration::from_micros(1);
/// Connects made in a row before the loop looks at the deadline again: thousands of connects
/// take a while, and a clock read per connect would cost more than the check is worth.
const CONNECTS_PER_CLOCK_CHECK: u32 = 64;
/// TCP connects a worker has in flight at most. Thousands of SYNs at once overflow a server's
/// accept queue (Node's backlog is 511, tokio's 1024), and a dropped SYN costs its connection
/// the kernel's first retransmit, a whole second; connects beyond this wait their turn, so that
/// 10,000 connections open at the rate the server accepts them.
const MAX_CONNECTING: u32 = 128;
/// Bytes read from one connection per turn of the loop. A server that writes faster than we
/// parse keeps its socket readable for ever; past this the connection waits for the next turn
/// (on the still-readable list: its edge will not fire again), so the deadline, `--timeout` and
/// the other connections are looked at in between.
const READ_BUDGET: usize = 256 * 1024;

/// Everything one thread needs; built by the engine.
pub struct WorkerConfig {
    pub endpoint: Endpoint,
    /// Over TLS: the shared client configuration (its session cache resumes on reconnect) and
    /// the name the certificate must carry.
    pub tls: Option<TlsClient>,
    /// `pipeline` copies of the encoded request, back to back; with a path mix, each path's
    /// request once, at the ranges of `rotation`.
    pub requests: Arc<[u8]>,
    pub rotation: Option<Arc<Rotation>>,
    /// HTTP/2: the request as frames; `pipeline` is then the streams per connection.
    pub h2: Option<Arc<H2Request>>,
    pub request_len: usize,
    pub pipeline: usize,
    pub keepalive: bool,
    /// Answers after which a connection is closed and replaced (`--requests-per-connection`).
    pub requests_per_connection: Option<u64>,
    pub head_requests: bool,
    pub timeout: Duration,
    pub connections: usize,
    /// Global index of this thread's first connection (spreads the rate schedule).
    pub first_connection: usize,
    /// With a rate: when each connection sends (open loop).
    pub schedule: Option<Schedule>,
    /// Total requests this thread sends, in count mode.
    pub permits: Option<u64>,
    pub start: Instant,
    pub measure_from: Instant,
    pub deadline: Option<Instant>,
    /// In count mode: give up when no request was answered for this long.
    pub stall_limit: Duration,
    pub progress: Arc<Progress>,
    /// A connection opened by the engine to check the server is there; reused as the first one.
    pub preconnected: Option<Socket>,
    /// A wrk script run per request, and this thread's index among the run's threads.
    pub script: Option<ScriptConfig>,
}

/// A path mix on the wire: each path's request as a range of [`WorkerConfig::requests`], and the
/// order they are drawn in.
#[derive(Debug)]
pub struct Rotation {
    pub ranges: Vec<(usize, usize)>,
    pub order: Vec<u16>,
}

impl Rotation {
    /// The range to write for a connection at `at` in the order, and the position after it.
    #[inline]
    fn next(&self, at: usize) -> ((usize, usize), usize) {
        let at = at % self.order.len();
        (self.ranges[usize::from(self.order[at])], at + 1)
    }
}

/// Over TLS, what each new connection's handshake needs.
#[derive(Debug, Clone)]
pub struct TlsClient {
    /// Shared by every connection and thread: its session cache resumes on reconnect.
    pub config: Arc<rustls::ClientConfig>,
    /// The name the server's certificate must carry (sent as SNI when it is a DNS name).
    pub server_name: rustls::pki_types::ServerName<'static>,
}

/// With a rate: the pace of each connection's requests.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    /// Between two requests of one connection: the run's connections times `gap`.
    pub interval: Duration,
    /// Between the schedules of neighbouring connections (one over the total rate), so that
    /// the connections' requests are spread evenly instead of sent in bursts.
    pub gap: Duration,
    /// A ramp (`-R A:B`): the rate moves from A to B over the measured period.
    pub ramp: Option<Ramp>,
    /// `--deadline`: a request later than this at its send time is shed.
    pub deadline: Option<Duration>,
}

/// A rate moving linearly from `from` to `to` (requests/s) between `start` and `start + len`,
/// held at `from` before and at `to` after.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ramp {
    pub from: f64,
    pub to: f64,
    pub start: Instant,
    pub len: Duration,
    /// The run's connections: each sends once per `connections / rate`.
    pub connections: u32,
}

impl Ramp {
    /// One connection's interval for a request due at `at`.
    #[inline]
    pub fn interval_at(&self, at: Instant) -> Duration {
        let done = at.saturating_duration_since(self.start).as_secs_f64()
            / self.len.as_secs_f64().max(1e-9);
        let rate = self.from + (self.to - self.from) * done.clamp(0.0, 1.0);
        Duration::from_secs_f64(f64::from(self.connections) / rate)
    }
}

impl Schedule {
    /// One connection's interval after a request due at `at`.
    #[inline]
    pub fn interval_at(&self, at: Instant) -> Duration {
        match &self.ramp {
            Some(r) => r.interval_at(at),
            None => self.interval,
        }
    }
}

/// What one thread measured.
pub struct ThreadReport {
    /// The script's calls and the time spent in them; its first failure, which ended the thread.
    pub script: Option<ScriptReport>,
    pub recorder: Recorder,
    pub in_flight: u64,
    /// The requests still waiting at the end, at their age (µs): censored latencies, each at
    /// least that long.
    pub waiting_at_end: hdrhistogram::Histogram<u64>,
    /// Per connection, the answers it got in the measured period.
    pub answers_per_connection: Vec<u64>,
    pub end: Instant,
    pub cpu_user: Duration,
    pub cpu_system: Duration,
    /// Set when the thread stopped early (count mode, server gone).
    pub gave_up: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No socket; a reconnect is queued.
    Down,
    Connecting,
    /// TCP is up; the TLS handshake is under way (`connect_started` is reset to time it).
    Handshaking,
    Open,
}

struct Flight {
    intended: Instant,
    sent: Instant,
}

struct Conn {
    phase: Phase,
    stream: Option<Transport>,
    /// Bumped on each new socket so that events of an old socket are ignored.
    generation: usize,
    parser: ResponseParser,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    in_flight: VecDeque<Flight>,
    /// Bytes of `requests` still to write: `write_at..write_end`.
    write_at: usize,
    write_end: usize,
    served: u64,
    /// Answers in the measured period, over every socket of this slot: what the connection got.
    got: u64,
    connect_started: Instant,
    backoff: Duration,
    /// With a rate: when this connection's next request is due, and whether it waits in the heap.
    next_due: Instant,
    queued: bool,
    close_after: bool,
    /// One connection per request in count mode: the request this connection was opened for.
    reserved: bool,
    /// HTTP/2 state; `None` for HTTP/1.x.
    h2: Option<Box<H2Conn>>,
    /// With a script that makes requests: this connection's HTTP/1.x requests, encoded per call.
    scripted: Vec<u8>,
    /// With a script that reads answers: the bytes of the answer being read.
    captured: Vec<u8>,
    /// With a path mix: this connection's position in its order.
    mix_at: usize,
}

impl Conn {
    /// Bytes wait to be written: requests, or TLS records rustls still holds.
    #[inline]
    fn wants_flush(&self) -> bool {
        self.write_at < self.write_end || self.stream.as_ref().is_some_and(Transport::wants_write)
    }
}

/// The loop's state.
pub struct Worker {
    cfg: WorkerConfig,
    poll: Poll,
    conns: Vec<Conn>,
    rec: Recorder,
    in_flight: u64,
    permits: Option<u64>,
    /// Permits held by connections still opening (one connection per request).
    reserved: u64,
    reconnects: BinaryHeap<Reverse<(Instant, usize)>>,
    /// Connections whose TCP connect is in flight (at most [`MAX_CONNECTING`]).
    connecting: u32,
    due: BinaryHeap<Reverse<(Instant, usize)>>,
    timer: Option<TimerFd>,
    timer_armed_for: Option<Instant>,
    last_progress: Instant,
    /// Connections that spent their read budget with bytes left. Edge-triggered readiness will
    /// not tell of them again, so the next turn reads them.
    still_readable: Vec<Unread>,
    /// A script run per request (`scripted.rs`); `None` on the ordinary, pre-encoded path.
    script: Option<Scripted>,
}

/// A connection left with bytes to read when its [`READ_BUDGET`] ran out.
#[derive(Debug, Clone, Copy)]
struct Unread {
    idx: usize,
    /// The socket's generation then: a socket replaced since is not read.
    generation: usize,
    /// Its peer's FIN (or an error) came with the edge: read on until the end is seen.
    closing: bool,
}

/// Why a worker's loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The deadline, the stop flag, or the last permit answered.
    Done,
    /// Count mode: nothing was answered for the stall limit (the server is gone).
    GaveUp,
}

/// The counts already added to the shared [`Progress`].
#[derive(Default)]
struct Reported {
    answered: u64,
    errors: u64,
    sent: u64,
    shed: u64,
    status_classes: [u64; crate::STATUS_CLASSES],
}

fn token(idx: usize, generation: usize) -> Token {
    Token((generation << INDEX_BITS) | idx)
}

impl Worker {
    pub fn new(mut cfg: WorkerConfig) -> io::Result<Self> {
        let poll = Poll::new()?;
        let now = Instant::now();
        let mut conns = Vec::with_capacity(cfg.connections);
        for i in 0..cfg.connections {
            let next_due = match cfg.schedule {
                Some(Schedule { gap, .. }) => cfg.start + gap * (cfg.first_connection + i) as u32,
                None => cfg.start,
            };
            conns.push(Conn {
                phase: Phase::Down,
                stream: None,
                generation: 0,
                parser: ResponseParser::new(cfg.head_requests),
                buf: vec![0; INITIAL_BUFFER],
                start: 0,
                end: 0,
                in_flight: VecDeque::with_capacity(cfg.pipeline),
                write_at: 0,
                write_end: 0,
                served: 0,
                got: 0,
                connect_started: now,
                backoff: MIN_BACKOFF,
                next_due,
                queued: false,
                close_after: false,
                reserved: false,
                h2: cfg.h2.as_ref().map(|r| {
                    let room = match cfg.script {
                        Some(_) => scripted::H2_REQUEST_ROOM,
                        None => r.max_len(),
                    };
                    Box::new(H2Conn::new(cfg.pipeline * room))
                }),
                scripted: Vec::new(),
                captured: Vec::new(),
                // Spread over the order by a prime stride, so that neighbours ask for
                // different files at the same moment.
                mix_at: (cfg.first_connection + i).wrapping_mul(7919),
            });
        }
        let timer = if cfg.schedule.is_some() {
            let fd = TimerFd::new(
                ClockId::CLOCK_MONOTONIC,
                TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC,
            )
            .map_err(io::Error::from)?;
            poll.registry().register(
                &mut SourceFd(&fd.as_fd().as_raw_fd()),
                TIMER,
                Interest::READABLE,
            )?;
            Some(fd)
        } else {
            None
        };
        let permits = cfg.permits;
        let corrected = cfg.schedule.is_some();
        let preconnected = cfg.preconnected.take();
        let script = match cfg.script.take() {
            Some(sc) => Some(Scripted::start(sc)?),
            None => None,
        };
        let mut worker = Self {
            script,
            rec: Recorder::new(corrected, now, cfg.progress.clone()),
            cfg,
            poll,
            conns,
            in_flight: 0,
            permits,
            reserved: 0,
            reconnects: BinaryHeap::new(),
            connecting: 0,
            due: BinaryHeap::new(),
            timer,
            timer_armed_for: None,
            last_progress: now,
            still_readable: Vec::new(),
        };
        if let Some(stream) = preconnected {
            worker.adopt(0, stream, now)?;
        }
        for i in 0..worker.conns.len() {
            if worker.conns[i].phase == Phase::Down {
                worker.reconnects.push(Reverse((now, i)));
            }
        }
        Ok(worker)
    }

    /// Runs until the deadline, the last permit's answer, or `stop`.
    pub fn run(mut self, stop: &AtomicBool) -> io::Result<ThreadReport> {
        if self.timer.is_some() {
            pacing::tighten_timer_slack();
        }
        let mut events = Events::with_capacity(EVENTS_PER_POLL);
        let mut cpu_at_start = None;
        let scan_every =
            (self.cfg.timeout / SCANS_PER_TIMEOUT).clamp(MIN_SCAN_INTERVAL, MAX_SCAN_INTERVAL);
        let mut next_scan = Instant::now() + scan_every;
        let mut reported = Reported::default();
        let (end, ending) = loop {
            let now = Instant::now();
            if !self.rec.measuring && now >= self.cfg.measure_from {
                self.rec.start_measuring(now, self.in_flight);
                self.conns.iter_mut().for_each(|c| c.got = 0);
                cpu_at_start = Some(thread_cpu());
            }
            if let Some(ending) = self.ending(now, stop) {
                break (now, ending);
            }
            self.open_due_connections(now, stop);
            if now >= next_scan {
                self.scan_timeouts(now);
                next_scan = now + scan_every;
            }
            self.send_due(now);

            let wake = self.next_wake(now, next_scan);
            // Close to a scheduled send the loop polls without sleeping (`pacing.rs`).
            let spinning = self.spinning(now);
            if !spinning {
                self.arm_timer(now)?;
            }
            let wait = if self.still_readable.is_empty() && !spinning {
                wake.saturating_duration_since(now)
            } else {
                Duration::ZERO
            };
            match self.poll.poll(&mut events, Some(wait)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            let unread = std::mem::take(&mut self.still_readable);
            for event in &events {
                self.on_event(event);
            }
            self.read_on(&unread);
            self.report_progress(&mut reported);
        };
        Ok(self.finish(end, ending == Ending::GaveUp, cpu_at_start))
    }

    /// Why the loop ends now, if it does.
    #[inline]
    fn ending(&self, now: Instant, stop: &AtomicBool) -> Option<Ending> {
        if stop.load(Ordering::Relaxed) || self.cfg.deadline.is_some_and(|d| now >= d) {
            return Some(Ending::Done);
        }
        if self.script.as_ref().is_some_and(Scripted::ended) {
            return Some(Ending::Done);
        }
        if self.permits == Some(0) && self.in_flight == 0 && self.reserved == 0 {
            return Some(Ending::Done);
        }
        if self.permits.is_some_and(|p| p > 0)
            && now.duration_since(self.last_progress) > self.cfg.stall_limit
        {
            return Some(Ending::GaveUp);
        }
        None
    }

    /// Opens the connections whose (re)connect time has come.
    #[inline]
    fn open_due_connections(&mut self, now: Instant, stop: &AtomicBool) {
        let mut opened = 0u32;
        while let Some(&Reverse((at, idx))) = self.reconnects.peek() {
            if at > now || self.connecting >= MAX_CONNECTING {
                break;
            }
            self.reconnects.pop();
            self.connect(idx, now);
            // Thousands of connects take a while: look at the clock and the stop flag now and
            // then, so that the deadline holds however many connections are asked for.
            opened += 1;
            if opened.is_multiple_of(CONNECTS_PER_CLOCK_CHECK)
                && (stop.load(Ordering::Relaxed)
                    || self.cfg.deadline.is_some_and(|d| Instant::now() >= d))
            {
                break;
            }
        }
    }

    /// The latest time the poll may sleep until: the next deadline, measurement start,
    /// reconnect or timeout scan, and never more than [`MAX_POLL_WAIT`].
    #[inline]
    fn next_wake(&self, now: Instant, next_scan: Instant) -> Instant {
        let mut wake = now + MAX_POLL_WAIT;
        if let Some(d) = self.cfg.deadline {
            wake = wake.min(d);
        }
        if !self.rec.measuring {
            wake = wake.min(self.cfg.measure_from);
        }
        // With connects at their cap, the next one waits for a connect to finish (an event).
        if let Some(&Reverse((at, _))) = self.reconnects.peek()
            && self.connecting < MAX_CONNECTING
        {
            wake = wake.min(at);
        }
        wake.min(next_scan)
    }

    /// One readiness event: the rate timer, or a connection of the current generation.
    #[inline]
    fn on_event(&mut self, event: &mio::event::Event) {
        if event.token() == TIMER {
            if let Some(t) = &self.timer {
                let _ = t.wait(); // clears the expiry; EAGAIN is fine
            }
            self.timer_armed_for = None;
            return;
        }
        let idx = event.token().0 & ((1 << INDEX_BITS) - 1);
        let generation = event.token().0 >> INDEX_BITS;
        if idx >= self.conns.len() || self.conns[idx].generation != generation {
            return;
        }
        match self.conns[idx].phase {
            Phase::Down => {}
            Phase::Connecting => self.finish_connect(idx),
            Phase::Handshaking => self.handshake(idx),
            Phase::Open => {
                if event.is_writable() && self.conns[idx].wants_flush() {
                    self.flush(idx);
                }
                if self.conns[idx].phase == Phase::Open
                    && (event.is_readable() || event.is_read_closed() || event.is_error())
                {
                    self.read_ready(idx, event.is_read_closed() || event.is_error());
                }
            }
        }
    }

    /// Reads on the connections that spent their budget last turn (an event this turn may have
    /// read them already, or replaced their socket: the generation tells).
    fn read_on(&mut self, unread: &[Unread]) {
        for &Unread {
            idx,
            generation,
            closing,
        } in unread
        {
            let c = &self.conns[idx];
            if c.generation == generation && c.phase == Phase::Open {
                self.read_ready(idx, closing);
            }
        }
    }

    /// Adds what was answered and failed since the last report to the shared progress.
    #[inline]
    fn report_progress(&self, reported: &mut Reported) {
        let answered = self.rec.answered;
        if answered != reported.answered {
            self.cfg
                .progress
                .answered
                .fetch_add(answered - reported.answered, Ordering::Relaxed);
            reported.answered = answered;
        }
        let errors = self.rec.errors.total();
        if errors != reported.errors {
            self.cfg
                .progress
                .errors
                .fetch_add(errors - reported.errors, Ordering::Relaxed);
            reported.errors = errors;
        }
        let p = &self.cfg.progress;
        if self.rec.sent != reported.sent && self.rec.measuring {
            // `sent` starts at the requests in flight when measuring starts, never below what
            // was reported before it (nothing is reported before it).
            p.sent.fetch_add(
                self.rec.sent.saturating_sub(reported.sent),
                Ordering::Relaxed,
            );
            reported.sent = self.rec.sent;
        }
        if self.rec.shed != reported.shed {
            p.shed
                .fetch_add(self.rec.shed - reported.shed, Ordering::Relaxed);
            reported.shed = self.rec.shed;
        }
        if answered != reported.status_classes.iter().sum::<u64>() {
            for (i, n) in self.rec.status_classes.iter().enumerate() {
                let before = reported.status_classes[i];
                if *n != before {
                    p.status_classes[i].fetch_add(n - before, Ordering::Relaxed);
                    reported.status_classes[i] = *n;
                }
            }
        }
    }

    /// The thread's report: its recorder, and the CPU it used while measuring.
    fn finish(
        mut self,
        end: Instant,
        gave_up: bool,
        cpu_at_start: Option<(Duration, Duration)>,
    ) -> ThreadReport {
        self.rec.finish();
        let script = self.script.as_ref().map(Scripted::finish);
        let cpu_end = thread_cpu();
        let (cpu_user, cpu_system) = match cpu_at_start {
            Some((u, s)) => (cpu_end.0.saturating_sub(u), cpu_end.1.saturating_sub(s)),
            None => (Duration::ZERO, Duration::ZERO),
        };
        let mut waiting_at_end = restbench_model::documents::histogram::new_latency_histogram();
        if self.rec.measuring {
            for f in self.conns.iter().flat_map(|c| c.in_flight.iter()) {
                let age = end.saturating_duration_since(f.sent.max(self.rec.t0));
                let _ = waiting_at_end.record((age.as_micros() as u64).clamp(1, 60_000_000));
            }
        }
        ThreadReport {
            waiting_at_end,
            answers_per_connection: self.conns.iter().map(|c| c.got).collect(),
            script,
            in_flight: self.in_flight,
            end,
            cpu_user,
            cpu_system,
            gave_up,
            recorder: self.rec,
        }
    }

    fn scan_timeouts(&mut self, now: Instant) {
        let timeout = self.cfg.timeout;
        for idx in 0..self.conns.len() {
            let c = &self.conns[idx];
            match c.phase {
                Phase::Open => {
                    if c.in_flight
                        .front()
                        .is_some_and(|f| now.duration_since(f.sent) >= timeout)
                    {
                        self.fail(idx, ErrorClass::Timeout, now);
                    }
                }
                Phase::Connecting => {
                    if now.duration_since(c.connect_started) >= timeout {
                        self.connect_failed(idx, now);
                    }
                }
                Phase::Handshaking => {
                    if now.duration_since(c.connect_started) >= timeout {
                        let reason = "protocol: the TLS handshake did not finish within --timeout";
                        self.tls_failed(idx, reason.into(), now);
                    }
                }
                Phase::Down => {}
            }
        }
    }

    /// Sends the scheduled requests whose time has come.
    fn send_due(&mut self, now: Instant) {
        while let Some(&Reverse((at, idx))) = self.due.peek() {
            if at > now {
                break;
            }
            self.due.pop();
            self.conns[idx].queued = false;
            self.fill(idx, now);
        }
    }

    /// Arms the timer for the next scheduled request with microsecond precision (epoll's own
    /// timeout has only milliseconds), [`pacing::SPIN_WINDOW`] before it is due.
    fn arm_timer(&mut self, now: Instant) -> io::Result<()> {
        let Some(timer) = &self.timer else {
            return Ok(());
        };
        let Some(&Reverse((at, _))) = self.due.peek() else {
            return Ok(());
        };
        if self.timer_armed_for == Some(at) {
            return Ok(());
        }
        // Armed early: the loop spins the last stretch (`pacing.rs`).
        let wait = at
            .saturating_duration_since(now)
            .saturating_sub(pacing::SPIN_WINDOW)
            .max(MIN_TIMER_WAIT);
        timer
            .set(
                Expiration::OneShot(TimeSpec::from_duration(wait)),
                TimerSetTimeFlags::empty(),
            )
            .map_err(io::Error::from)?;
        self.timer_armed_for = Some(at);
        Ok(())
    }
}

/// User and system CPU time of the calling thread.
fn thread_cpu() -> (Duration, Duration) {
    match getrusage(UsageWho::RUSAGE_THREAD) {
        Ok(u) => {
            let tv = |t: nix::sys::time::TimeVal| {
                Duration::new(t.tv_sec() as u64, (t.tv_usec() as u32).saturating_mul(1000))
            };
            (tv(u.user_time()), tv(u.system_time()))
        }
        Err(_) => (Duration::ZERO, Duration::ZERO),
    }
}
