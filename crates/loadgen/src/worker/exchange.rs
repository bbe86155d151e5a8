//! The worker's per-request loop: requests written ([`Worker::fill`], [`Worker::flush`]),
//! answers read and parsed ([`Worker::read_ready`]), and the end of a connection told apart from
//! an error. This is the hot path the parent module's docs describe: one `write` of the
//! pre-encoded bytes, one `read` and one clock read per request, no allocation; it stays in one
//! module so that its functions are compiled together. HTTP/2 frames are handed to `h2_io.rs`;
//! a connection that ends goes to `lifecycle.rs`.

use std::cmp::Reverse;
use std::io::{self, Read, Write};
use std::time::Instant;

use super::lifecycle::Reconnect;
use super::scripted;
use super::{ErrorClass, Flight, MAX_BUFFER, Phase, READ_BUDGET, Unread, Worker};
use crate::response::Step;

impl Worker {
    /// Sends as many requests as the connection may have in flight now.
    pub(super) fn fill(&mut self, idx: usize, now: Instant) {
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
        if let Some(n) = self.cfg.requests_per_connection {
            // Never more on one connection than it will be kept for.
            let sent = c.served + c.in_flight.len() as u64;
            k = k.min(n.saturating_sub(sent) as usize);
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
        if let Some(schedule) = self.cfg.schedule {
            // `--deadline`: requests already too late are shed, each counted, none sent.
            if let Some(limit) = schedule.deadline {
                while now.saturating_duration_since(c.next_due) > limit {
                    self.rec.shed();
                    c.next_due += schedule.interval_at(c.next_due);
                }
            }
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
            c.next_due += schedule.interval_at(c.next_due);
        }
        if self.script.as_ref().is_some_and(|s| s.makes_requests()) && !self.scripted_fill(idx, k) {
            return;
        }
        let c = &mut self.conns[idx];
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
            // A script's requests are already in place (`scripted_fill`).
            _ if self.script.as_ref().is_some_and(|s| s.makes_requests()) => {}
            (Some(h), Some(req)) => {
                h.push_requests(k, req);
                c.write_end = h.out.len();
            }
            _ => match &self.cfg.rotation {
                // A path mix: one request in flight (the spec checks it), its own range.
                Some(rotation) => {
                    let ((from, to), next) = rotation.next(c.mix_at);
                    c.mix_at = next;
                    c.write_at = from;
                    c.write_end = to;
                }
                None => {
                    c.write_at = 0;
                    c.write_end = k * self.cfg.request_len;
                }
            },
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

    pub(super) fn flush(&mut self, idx: usize) {
        let c = &mut self.conns[idx];
        let Some(stream) = c.stream.as_mut() else {
            return;
        };
        let bytes: &[u8] = match c.h2.as_ref() {
            None if self.script.as_ref().is_some_and(|s| s.makes_requests()) => &c.scripted,
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
    pub(super) fn read_ready(&mut self, idx: usize, closing: bool) {
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
            self.still_readable.push(Unread {
                idx,
                generation: c.generation,
                closing,
            });
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
                Ok(Step::Partial(n)) => {
                    if self.script.as_ref().is_some_and(|s| s.reads_responses()) {
                        scripted::capture(&mut c.captured, &c.buf[c.start..c.start + n]);
                    }
                    c.start += n
                }
                Ok(Step::Complete {
                    consumed,
                    status,
                    close,
                }) => {
                    if self.script.as_ref().is_some_and(|s| s.reads_responses()) {
                        scripted::capture(&mut c.captured, &c.buf[c.start..c.start + consumed]);
                    }
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
                    c.got += 1;
                    self.in_flight -= 1;
                    self.last_progress = now;
                    self.rec.answered(status, flight.intended, flight.sent, now);
                    if close
                        || !self.cfg.keepalive
                        || self
                            .cfg
                            .requests_per_connection
                            .is_some_and(|n| c.served >= n)
                    {
                        c.close_after = true;
                    }
                    let close_after = c.close_after;
                    if self.script.is_some() {
                        self.scripted_answer(idx, status);
                    }
                    if close_after {
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
        self.tear_down(idx, now, Reconnect::AtOnceIfAnswered);
    }

    fn eof(&mut self, idx: usize, now: Instant) {
        let c = &mut self.conns[idx];
        if let Some(status) = c.parser.finish_at_eof()
            && let Some(flight) = c.in_flight.pop_front()
        {
            c.served += 1;
            c.got += 1;
            self.in_flight -= 1;
            self.last_progress = now;
            self.rec.answered(status, flight.intended, flight.sent, now);
            return self.close_after_answer(idx, now);
        }
        if self.conns[idx].in_flight.is_empty() {
            // An idle keep-alive connection the server closed: not an error.
            self.tear_down(idx, now, Reconnect::AtOnceIfAnswered);
        } else {
            self.fail(idx, ErrorClass::Read, now);
        }
    }
}
