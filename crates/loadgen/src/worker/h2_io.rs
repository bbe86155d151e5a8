//! The worker's HTTP/2 side: frames from the read buffer to completed requests. The protocol
//! itself (frames, HPACK, flow control) is in `crate::h2`; this glue only moves what it decides
//! into the worker's books, so the HTTP/1.x path is left as it was.

use std::time::Instant;

use super::{ErrorClass, Phase, Worker};
use crate::h2::{Event, H2Conn};

impl Worker {
    /// Handles every whole frame in the buffer; false when the connection was dropped.
    pub(super) fn h2_parse(&mut self, idx: usize, now: Instant) -> bool {
        loop {
            let c = &mut self.conns[idx];
            let Some(h) = c.h2.as_mut() else {
                return true;
            };
            let data = &c.buf[c.start..c.end];
            let len = match H2Conn::frame_len(data) {
                Ok(Some(n)) => n,
                Ok(None) => break,
                Err(_) => {
                    self.fail(idx, ErrorClass::Parse, now);
                    return false;
                }
            };
            let event = h.on_frame(&data[..len]);
            c.start += len;
            match event {
                Event::None => {}
                Event::Complete { pos, status } => {
                    h.streams.remove(pos);
                    let Some(flight) = c.in_flight.remove(pos) else {
                        continue; // streams and flights are kept in step; never reached
                    };
                    c.served += 1;
                    c.got += 1;
                    self.in_flight -= 1;
                    self.last_progress = now;
                    self.rec.answered(status, flight.intended, flight.sent, now);
                    if !self.cfg.keepalive {
                        c.close_after = true;
                    }
                }
                Event::Reset { pos } => {
                    h.streams.remove(pos);
                    if c.in_flight.remove(pos).is_some() {
                        self.in_flight -= 1;
                        self.rec.error(ErrorClass::Reset, 1, now);
                    }
                }
                Event::GoAway { last_id } => {
                    self.rec.goaway();
                    if last_id == 0 && c.served == 0 {
                        // Refused before any stream: a failed connection, not a clean close
                        // (and the teardown backs off, as for a refused connect).
                        self.rec.error(ErrorClass::Connect, 1, now);
                    }
                    // Streams above `last_id` were never processed: taken back, sent elsewhere.
                    let mut taken = 0u64;
                    while let Some(pos) = h.streams.iter().position(|s| s.id > last_id) {
                        h.streams.remove(pos);
                        if c.in_flight.remove(pos).is_some() {
                            taken += 1;
                        }
                    }
                    self.in_flight -= taken;
                    self.rec.unsent(taken);
                    if let Some(p) = self.permits.as_mut() {
                        *p += taken;
                    }
                }
                Event::Error(_) => {
                    self.fail(idx, ErrorClass::Parse, now);
                    return false;
                }
                Event::Flood(_) => {
                    self.rec.write_queue(h.out.len());
                    self.refuse(idx, now);
                    return false;
                }
            }
            if h.draining && h.streams.is_empty() {
                c.close_after = true;
            }
        }
        let c = &mut self.conns[idx];
        if c.start == c.end {
            c.start = 0;
            c.end = 0;
        }
        // Control frames (SETTINGS and PING acknowledgements, WINDOW_UPDATE) go out at once.
        if let Some(h) = c.h2.as_ref()
            && h.out.len() > c.write_end
        {
            self.rec.write_queue(h.out.len());
            c.write_end = h.out.len();
            self.flush(idx);
            return self.conns[idx].phase == Phase::Open;
        }
        true
    }
}
