//! One load thread: an edge-triggered epoll loop over its share of the connections.
//!
//! Per request the hot path is one `write` (the pre-encoded bytes), one `read` and one clock read:
//! the next request is written straight after its answer is parsed, so no readiness is re-armed;
//! a read that returns less than the free buffer means the socket is drained, so no extra read
//! waits for `EAGAIN`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::io::{self, Read, Write};
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
use crate::response::{ResponseParser, Step};
use crate::transport::tls::{Handshake, TlsStream};
use crate::transport::{Endpoint, Socket, Transport};

mod h2_io;

const TIMER: Token = Token(usize::MAX);
const INITIAL_BUFFER: usize = 16 * 1024;
const MAX_BUFFER: usize = 128 * 1024;
const MIN_BACKOFF: Duration = Duration::from_millis(10);
const MAX_BACKOFF: Duration = Duration::from_secs(1);
const MAX_POLL_WAIT: Duration = Duration::from_millis(50);
/// Connects made in a row before the loop looks at the deadline again.
const CONNECTS_PER_CLOCK_CHECK: u32 = 64;
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
    pub tls: Option<(
        Arc<rustls::ClientConfig>,
        rustls::pki_types::ServerName<'static>,
    )>,
    /// `pipeline` copies of the encoded request, back to back.
    pub requests: Arc<[u8]>,
    /// HTTP/2: the request as frames; `pipeline` is then the streams per connection.
    pub h2: Option<Arc<H2Request>>,
    pub request_len: usize,
    pub pipeline: usize,
    pub keepalive: bool,
    pub head_requests: bool,
    pub timeout: Duration,
    pub connections: usize,
    /// Global index of this thread's first connection (spreads the rate schedule).
    pub first_connection: usize,
    /// With a rate: the interval between two requests of one connection, and the gap between
    /// the schedules of neighbouring connections.
    pub schedule: Option<(Duration, Duration)>,
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
}

/// What one thread measured.
pub struct ThreadReport {
    pub recorder: Recorder,
    pub in_flight: u64,
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
    due: BinaryHeap<Reverse<(Instant, usize)>>,
    timer: Option<TimerFd>,
    timer_armed_for: Option<Instant>,
    last_progress: Instant,
    /// Connections that spent their read budget with bytes left: (index, generation, closing).
    /// Edge-triggered readiness will not tell of them again, so the next turn reads them.
    still_readable: Vec<(usize, usize, bool)>,
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
}

fn token(idx: usize, generation: usize) -> Token {
    Token((generation << 32) | idx)
}

impl Worker {
    pub fn new(mut cfg: WorkerConfig) -> io::Result<Self> {
        let poll = Poll::new()?;
        let now = Instant::now();
        let mut conns = Vec::with_capacity(cfg.connections);
        for i in 0..cfg.connections {
            let next_due = match cfg.schedule {
                Some((_, gap)) => cfg.start + gap * (cfg.first_connection + i) as u32,
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
                connect_started: now,
                backoff: MIN_BACKOFF,
                next_due,
                queued: false,
                close_after: false,
                reserved: false,
                h2: cfg
                    .h2
                    .as_ref()
                    .map(|r| Box::new(H2Conn::new(cfg.pipeline * r.max_len()))),
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
        let mut worker = Self {
            rec: Recorder::new(corrected, now, cfg.progress.clone()),
            cfg,
            poll,
            conns,
            in_flight: 0,
            permits,
            reserved: 0,
            reconnects: BinaryHeap::new(),
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
        let mut events = Events::with_capacity(1024);
        let mut cpu_at_start = None;
        let scan_every =
            (self.cfg.timeout / 4).clamp(Duration::from_millis(1), Duration::from_millis(20));
        let mut next_scan = Instant::now() + scan_every;
        let mut reported = Reported::default();
        let (end, ending) = loop {
            let now = Instant::now();
            if !self.rec.measuring && now >= self.cfg.measure_from {
                self.rec.start_measuring(now, self.in_flight);
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
            self.arm_timer(now)?;
            let wait = if self.still_readable.is_empty() {
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
            if at > now {
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
        if let Some(&Reverse((at, _))) = self.reconnects.peek() {
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
        let idx = event.token().0 & 0xffff_ffff;
        let generation = event.token().0 >> 32;
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
    fn read_on(&mut self, unread: &[(usize, usize, bool)]) {
        for &(idx, generation, closing) in unread {
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
    }

    /// The thread's report: its recorder, and the CPU it used while measuring.
    fn finish(
        mut self,
        end: Instant,
        gave_up: bool,
        cpu_at_start: Option<(Duration, Duration)>,
    ) -> ThreadReport {
        self.rec.finish();
        let cpu_end = thread_cpu();
        let (cpu_user, cpu_system) = match cpu_at_start {
            Some((u, s)) => (cpu_end.0.saturating_sub(u), cpu_end.1.saturating_sub(s)),
            None => (Duration::ZERO, Duration::ZERO),
        };
        ThreadReport {
            in_flight: self.in_flight,
            end,
            cpu_user,
            cpu_system,
            gave_up,
            recorder: self.rec,
        }
    }

    fn connect(&mut self, idx: usize, now: Instant) {
        if self.permits == Some(0) {
            return; // every request is sent; no new connection is needed
        }
        if !self.cfg.keepalive
            && let Some(p) = self.permits.as_mut()
        {
            // Open exactly one connection per request, as ab does.
            *p -= 1;
            self.reserved += 1;
            self.conns[idx].reserved = true;
        }
        match Socket::connect(&self.cfg.endpoint) {
            Ok(stream) => {
                if self.adopt_connecting(idx, stream, now).is_err() {
                    self.connect_failed(idx, now);
                }
            }
            Err(_) => self.connect_failed(idx, now),
        }
    }

    fn register(&mut self, idx: usize, stream: Socket) -> io::Result<()> {
        let mut stream = Transport::Plain(stream);
        let c = &mut self.conns[idx];
        c.generation = (c.generation + 1) & 0xffff_ffff;
        self.poll.registry().register(
            &mut stream,
            token(idx, c.generation),
            Interest::READABLE | Interest::WRITABLE,
        )?;
        c.stream = Some(stream);
        c.parser = ResponseParser::new(self.cfg.head_requests);
        c.start = 0;
        c.end = 0;
        c.served = 0;
        c.close_after = false;
        c.write_at = 0;
        c.write_end = 0;
        Ok(())
    }

    fn adopt_connecting(&mut self, idx: usize, stream: Socket, now: Instant) -> io::Result<()> {
        self.register(idx, stream)?;
        let c = &mut self.conns[idx];
        c.phase = Phase::Connecting;
        c.connect_started = now;
        Ok(())
    }

    /// Takes over an already connected socket.
    fn adopt(&mut self, idx: usize, stream: Socket, now: Instant) -> io::Result<()> {
        self.register(idx, stream)?;
        self.tcp_connected(idx, now);
        Ok(())
    }

    fn finish_connect(&mut self, idx: usize) {
        let now = Instant::now();
        let Some(stream) = self.conns[idx].stream.as_ref() else {
            return;
        };
        match stream.socket().finish_connect() {
            Ok(true) => self.tcp_connected(idx, now),
            Ok(false) => {} // still in progress
            Err(_) => self.connect_failed(idx, now),
        }
    }

    /// The socket is connected: the connection is open, or its TLS handshake starts.
    fn tcp_connected(&mut self, idx: usize, now: Instant) {
        let c = &mut self.conns[idx];
        if let Some(s) = c.stream.as_ref() {
            s.socket().set_nodelay();
        }
        let Some((config, name)) = &self.cfg.tls else {
            return self.connected(idx, now);
        };
        let Some(Transport::Plain(sock)) = c.stream.take() else {
            return;
        };
        match TlsStream::new(sock, config.clone(), name.clone()) {
            Ok(tls) => {
                c.stream = Some(Transport::Tls(Box::new(tls)));
                c.phase = Phase::Handshaking;
                c.connect_started = now;
                self.handshake(idx);
            }
            Err(reason) => self.tls_failed(idx, reason, now),
        }
    }

    /// Moves a TLS handshake on; when it is done, the connection opens.
    fn handshake(&mut self, idx: usize) {
        let now = Instant::now();
        let c = &mut self.conns[idx];
        let Some(Transport::Tls(tls)) = c.stream.as_mut() else {
            return;
        };
        match tls.handshake() {
            Handshake::Pending => {}
            Handshake::Failed(reason) => self.tls_failed(idx, reason, now),
            Handshake::Done => {
                if self.cfg.h2.is_some() && tls.alpn() != Some(b"h2") {
                    let reason = "protocol: the server did not choose h2 by ALPN (does it serve \
                                  HTTP/2 over TLS?)";
                    return self.tls_failed(idx, reason.into(), now);
                }
                self.rec
                    .handshake(now.saturating_duration_since(c.connect_started));
                self.connected(idx, now);
            }
        }
    }

    /// A TLS failure: its own error class with its reason, then a reconnect after a backoff.
    fn tls_failed(&mut self, idx: usize, reason: String, now: Instant) {
        self.rec.tls_failed(reason, now);
        self.release(idx);
        let c = &mut self.conns[idx];
        c.stream = None;
        c.phase = Phase::Down;
        let delay = c.backoff;
        c.backoff = (c.backoff * 2).min(MAX_BACKOFF);
        self.reconnects.push(Reverse((now + delay, idx)));
    }

    fn connected(&mut self, idx: usize, now: Instant) {
        let c = &mut self.conns[idx];
        c.phase = Phase::Open;
        if let Some(h) = c.h2.as_mut() {
            h.start();
            c.write_at = 0;
            c.write_end = h.out.len();
            self.flush(idx); // the preface; requests follow the server's SETTINGS
        }
        // Not progress for the give-up guard: a server that accepts and never answers must not
        // keep a count-mode run alive forever.
        self.rec.opened();
        self.fill(idx, now);
    }

    /// Gives back the permit of a connection that closes before sending its request.
    fn release(&mut self, idx: usize) {
        if std::mem::take(&mut self.conns[idx].reserved) {
            self.reserved -= 1;
            if let Some(p) = self.permits.as_mut() {
                *p += 1;
            }
        }
    }

    fn connect_failed(&mut self, idx: usize, now: Instant) {
        self.rec.error(ErrorClass::Connect, 1, now);
        self.release(idx);
        let c = &mut self.conns[idx];
        c.stream = None;
        c.phase = Phase::Down;
        let delay = c.backoff;
        c.backoff = (c.backoff * 2).min(MAX_BACKOFF);
        self.reconnects.push(Reverse((now + delay, idx)));
    }

    /// Closes the socket; unanswered requests on it count as `class`; a new one follows.
    fn fail(&mut self, idx: usize, class: ErrorClass, now: Instant) {
        let lost = self.conns[idx].in_flight.len() as u64;
        self.rec.error(class, lost, now);
        self.in_flight -= lost;
        self.recycle(idx, now, false);
    }

    /// The server broke the protocol on this connection (an HTTP/2 flood): one `protocol` error
    /// for the connection, its unanswered requests as `read`, and a reconnect after a backoff
    /// even if it answered before, so a server that does it on every connection is not
    /// reconnected to in a busy loop.
    pub(super) fn refuse(&mut self, idx: usize, now: Instant) {
        self.rec.error(ErrorClass::Protocol, 1, now);
        let lost = self.conns[idx].in_flight.len() as u64;
        self.rec.error(ErrorClass::Read, lost, now);
        self.in_flight -= lost;
        self.recycle(idx, now, true);
    }

    /// Drops the socket and queues a reconnect: at once when it answered something, else (or
    /// when `refused`) after a backoff that doubles from 10 ms to 1 s, so that a dead server,
    /// or one that accepts and refuses every connection (GOAWAY before any stream), costs no
    /// busy loop. The backoff starts again from 10 ms once a connection has answered.
    fn recycle(&mut self, idx: usize, now: Instant, refused: bool) {
        self.release(idx);
        let c = &mut self.conns[idx];
        c.in_flight.clear();
        c.stream = None;
        c.phase = Phase::Down;
        c.write_at = 0;
        c.write_end = 0;
        let delay = if c.served > 0 && !refused {
            c.backoff = MIN_BACKOFF;
            Duration::ZERO
        } else {
            let d = c.backoff;
            c.backoff = (c.backoff * 2).min(MAX_BACKOFF);
            d
        };
        self.reconnects.push(Reverse((now + delay, idx)));
    }

    /// Sends as many requests as the connection may have in flight now.
    fn fill(&mut self, idx: usize, now: Instant) {
        if self.cfg.deadline.is_some_and(|d| now >= d) {
            return;
        }
        let c = &mut self.conns[idx];
        // HTTP/2 appends to what is still being written; HTTP/1.x waits for it.
        if c.phase != Phase::Open || (c.write_at < c.write_end && c.h2.is_none()) || c.close_after {
            return;
        }
        let mut k = self.cfg.pipeline - c.in_flight.len();
        if !self.cfg.keepalive {
            k = k.min(usize::from(c.served == 0 && c.in_flight.is_empty()));
        }
        if c.reserved {
            k = k.min(1);
        } else if let Some(p) = self.permits {
            k = k.min(p as usize);
        }
        if let (Some(h), Some(req)) = (c.h2.as_ref(), self.cfg.h2.as_ref()) {
            k = h.can_open(k, req.body_len);
        }
        if k == 0 {
            return;
        }
        let mut intended = now;
        if let Some((interval, _)) = self.cfg.schedule {
            if c.next_due > now {
                if !c.queued {
                    c.queued = true;
                    self.due.push(Reverse((c.next_due, idx)));
                }
                return;
            }
            // One scheduled request at a time keeps each its own intended send time.
            k = 1;
            intended = c.next_due;
            self.rec.lag(now.saturating_duration_since(c.next_due));
            c.next_due += interval;
        }
        let reserved = std::mem::take(&mut c.reserved);
        if reserved {
            self.reserved -= 1;
        }
        for _ in 0..k {
            c.in_flight.push_back(Flight {
                intended,
                sent: now,
            });
        }
        match (c.h2.as_mut(), self.cfg.h2.as_ref()) {
            (Some(h), Some(req)) => {
                h.push_requests(k, req);
                c.write_end = h.out.len();
            }
            _ => {
                c.write_at = 0;
                c.write_end = k * self.cfg.request_len;
            }
        }
        self.in_flight += k as u64;
        if let Some(p) = self.permits.as_mut()
            && !reserved
        {
            *p -= k as u64;
        }
        self.rec.sent(k as u64);
        self.flush(idx);
        if self.cfg.schedule.is_some() && self.conns[idx].phase == Phase::Open {
            // Pipelined schedules may allow another request already.
            self.fill(idx, now);
        }
    }

    fn flush(&mut self, idx: usize) {
        let c = &mut self.conns[idx];
        let Some(stream) = c.stream.as_mut() else {
            return;
        };
        let bytes: &[u8] = match c.h2.as_ref() {
            None => &self.cfg.requests,
            Some(h) => &h.out,
        };
        while c.write_at < c.write_end {
            match stream.write(&bytes[c.write_at..c.write_end]) {
                Ok(0) => return self.fail(idx, ErrorClass::Write, Instant::now()),
                Ok(n) => c.write_at += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if let Some(h) = c.h2.as_mut()
                        && c.write_at > 0
                    {
                        // What was written leaves the queue: its length is what is still owed,
                        // which `H2Conn` bounds.
                        h.out.drain(..c.write_at);
                        c.write_end -= c.write_at;
                        c.write_at = 0;
                    }
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return self.fail(idx, ErrorClass::Write, Instant::now()),
            }
        }
        c.write_at = 0;
        c.write_end = 0;
        if let Some(h) = c.h2.as_mut() {
            h.out.clear();
        }
        if let Err(e) = stream.flush()
            && e.kind() != io::ErrorKind::WouldBlock
        {
            self.fail(idx, ErrorClass::Write, Instant::now());
        }
    }

    /// Reads until the socket is drained. `closing`: the peer's FIN (or an error) came with this
    /// edge, so no later edge will tell us; read on until the end is seen.
    fn read_ready(&mut self, idx: usize, closing: bool) {
        let mut now = Instant::now();
        let mut budget = READ_BUDGET;
        let mut unread = false;
        loop {
            let c = &mut self.conns[idx];
            if c.end == c.buf.len() {
                if c.start > 0 {
                    c.buf.copy_within(c.start..c.end, 0);
                    c.end -= c.start;
                    c.start = 0;
                } else if c.buf.len() < MAX_BUFFER {
                    let len = c.buf.len() * 2;
                    c.buf.resize(len, 0);
                } else {
                    return self.fail(idx, ErrorClass::Parse, now);
                }
            }
            let Some(stream) = c.stream.as_mut() else {
                return;
            };
            let space = c.buf.len() - c.end;
            match stream.read(&mut c.buf[c.end..]) {
                Ok(0) => return self.eof(idx, Instant::now()),
                Ok(n) => {
                    c.end += n;
                    now = Instant::now();
                    self.rec.bytes(n);
                    if !self.parse(idx, now) {
                        return;
                    }
                    if n < space && !closing {
                        break;
                    }
                    budget = budget.saturating_sub(n);
                    if budget == 0 {
                        unread = true;
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return self.fail(idx, ErrorClass::Read, Instant::now()),
            }
        }
        if self.conns[idx].close_after {
            return self.close_after_answer(idx, now);
        }
        self.fill(idx, now);
        let c = &self.conns[idx];
        if unread && c.phase == Phase::Open {
            self.still_readable.push((idx, c.generation, closing));
        }
    }

    /// Completes every response in the buffer; false when the connection was dropped.
    fn parse(&mut self, idx: usize, now: Instant) -> bool {
        if self.conns[idx].h2.is_some() {
            return self.h2_parse(idx, now);
        }
        loop {
            let c = &mut self.conns[idx];
            if c.start == c.end {
                c.start = 0;
                c.end = 0;
                return true;
            }
            let step = c.parser.advance(&c.buf[c.start..c.end]);
            match step {
                Err(_) => {
                    self.fail(idx, ErrorClass::Parse, now);
                    return false;
                }
                Ok(Step::Partial(0)) => return true,
                Ok(Step::Partial(n)) => c.start += n,
                Ok(Step::Complete {
                    consumed,
                    status,
                    close,
                }) => {
                    c.start += consumed;
                    let Some(flight) = c.in_flight.pop_front() else {
                        // A response no request asked for: the server is out of step with the
                        // connection. Counted as a protocol error, never silent; nothing is in
                        // flight on it, so the connection is simply replaced.
                        self.rec.error(ErrorClass::Protocol, 1, now);
                        self.fail(idx, ErrorClass::Parse, now);
                        return false;
                    };
                    c.served += 1;
                    self.in_flight -= 1;
                    self.last_progress = now;
                    self.rec.answered(status, flight.intended, flight.sent, now);
                    if close || !self.cfg.keepalive {
                        c.close_after = true;
                        return true;
                    }
                }
            }
        }
    }

    /// The server said it closes (or we asked it to): unanswered pipelined requests are lost.
    fn close_after_answer(&mut self, idx: usize, now: Instant) {
        let lost = self.conns[idx].in_flight.len() as u64;
        self.rec.error(ErrorClass::Read, lost, now);
        self.in_flight -= lost;
        self.recycle(idx, now, false);
    }

    fn eof(&mut self, idx: usize, now: Instant) {
        let c = &mut self.conns[idx];
        if let Some(status) = c.parser.finish_at_eof()
            && let Some(flight) = c.in_flight.pop_front()
        {
            c.served += 1;
            self.in_flight -= 1;
            self.last_progress = now;
            self.rec.answered(status, flight.intended, flight.sent, now);
            return self.close_after_answer(idx, now);
        }
        if self.conns[idx].in_flight.is_empty() {
            // An idle keep-alive connection the server closed: not an error.
            self.recycle(idx, now, false);
        } else {
            self.fail(idx, ErrorClass::Read, now);
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
    /// timeout has only milliseconds).
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
        let wait = at
            .saturating_duration_since(now)
            .max(Duration::from_micros(1));
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
