//! The worker's connection lifecycle: a socket opened (or adopted), its TCP connect and TLS
//! handshake moved on, the connection opened, and its one teardown ([`Worker::tear_down`]) with
//! the reconnect it queues. Nothing here runs per request: the per-request loop is in
//! `exchange.rs`, and it reaches this module only when a connection ends.

use std::cmp::Reverse;
use std::io;
use std::time::{Duration, Instant};

use mio::Interest;

use super::{ErrorClass, MAX_BACKOFF, MIN_BACKOFF, Phase, Worker, token};
use crate::response::ResponseParser;
use crate::transport::tls::{Handshake, TlsStream};
use crate::transport::{Socket, Transport};

/// When a torn-down connection is opened again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reconnect {
    /// At once if the connection answered something (the server is there; it closed or broke
    /// one connection), else after the backoff.
    AtOnceIfAnswered,
    /// After the backoff whatever the connection answered: it failed to open, or the server
    /// refused it, so reconnecting at once could be a busy loop.
    AfterBackoff,
}

/// The generation field of a token wraps within its bits (see [`token`]).
const GENERATION_MASK: usize = (1 << super::INDEX_BITS) - 1;

impl Worker {
    pub(super) fn connect(&mut self, idx: usize, now: Instant) {
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
        c.generation = (c.generation + 1) & GENERATION_MASK;
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
        self.connecting += 1;
        Ok(())
    }

    /// Takes over an already connected socket.
    pub(super) fn adopt(&mut self, idx: usize, stream: Socket, now: Instant) -> io::Result<()> {
        self.register(idx, stream)?;
        self.tcp_connected(idx, now);
        Ok(())
    }

    pub(super) fn finish_connect(&mut self, idx: usize) {
        let now = Instant::now();
        let Some(stream) = self.conns[idx].stream.as_ref() else {
            return;
        };
        match stream.socket().finish_connect() {
            Ok(true) => {
                let started = self.conns[idx].connect_started;
                self.rec.connected(now.saturating_duration_since(started));
                self.tcp_connected(idx, now)
            }
            Ok(false) => {} // still in progress
            Err(_) => self.connect_failed(idx, now),
        }
    }

    /// A connection leaves its TCP connect (connected, failed or torn down): the next waiting
    /// connect may start.
    fn leave_connecting(&mut self, idx: usize) {
        if self.conns[idx].phase == Phase::Connecting {
            self.connecting -= 1;
        }
    }

    /// The socket is connected: the connection is open, or its TLS handshake starts.
    fn tcp_connected(&mut self, idx: usize, now: Instant) {
        self.leave_connecting(idx);
        let c = &mut self.conns[idx];
        if let Some(s) = c.stream.as_ref() {
            s.socket().set_nodelay();
        }
        let Some(tls) = &self.cfg.tls else {
            return self.connected(idx, now);
        };
        let Some(Transport::Plain(sock)) = c.stream.take() else {
            return;
        };
        match TlsStream::new(sock, tls.config.clone(), tls.server_name.clone()) {
            Ok(stream) => {
                c.stream = Some(Transport::Tls(Box::new(stream)));
                c.phase = Phase::Handshaking;
                c.connect_started = now;
                self.handshake(idx);
            }
            Err(reason) => self.tls_failed(idx, reason, now),
        }
    }

    /// Moves a TLS handshake on; when it is done, the connection opens.
    pub(super) fn handshake(&mut self, idx: usize) {
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

    /// A TLS failure: its own error class with its reason, then a reconnect after a backoff.
    pub(super) fn tls_failed(&mut self, idx: usize, reason: String, now: Instant) {
        self.rec.tls_failed(reason, now);
        self.tear_down(idx, now, Reconnect::AfterBackoff);
    }

    /// A connect that failed or did not finish within `--timeout`: one `connect` error, then a
    /// reconnect after a backoff.
    pub(super) fn connect_failed(&mut self, idx: usize, now: Instant) {
        self.rec.error(ErrorClass::Connect, 1, now);
        self.tear_down(idx, now, Reconnect::AfterBackoff);
    }

    /// Closes the socket; unanswered requests on it count as `class`; a new one follows.
    pub(super) fn fail(&mut self, idx: usize, class: ErrorClass, now: Instant) {
        let lost = self.conns[idx].in_flight.len() as u64;
        self.rec.error(class, lost, now);
        self.in_flight -= lost;
        self.tear_down(idx, now, Reconnect::AtOnceIfAnswered);
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
        self.tear_down(idx, now, Reconnect::AfterBackoff);
    }

    /// The one way a connection ends: its permit given back, the socket dropped, and a reconnect
    /// queued as `when` says. The backoff doubles from [`MIN_BACKOFF`] to [`MAX_BACKOFF`], so
    /// that a dead server, or one that accepts and refuses every connection (GOAWAY before any
    /// stream), costs no busy loop; it starts again from [`MIN_BACKOFF`] once a connection has
    /// answered.
    ///
    /// The caller has already counted what was lost; a connection that never opened has no
    /// request in flight and nothing left to write, so clearing those is a no-op for it.
    pub(super) fn tear_down(&mut self, idx: usize, now: Instant, when: Reconnect) {
        self.leave_connecting(idx);
        self.release(idx);
        let c = &mut self.conns[idx];
        c.in_flight.clear();
        c.stream = None;
        c.phase = Phase::Down;
        c.write_at = 0;
        c.write_end = 0;
        let delay = if when == Reconnect::AtOnceIfAnswered && c.served > 0 {
            c.backoff = MIN_BACKOFF;
            Duration::ZERO
        } else {
            let d = c.backoff;
            c.backoff = (c.backoff * 2).min(MAX_BACKOFF);
            d
        };
        self.reconnects.push(Reverse((now + delay, idx)));
    }
}
