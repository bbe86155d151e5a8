//! Entry points for the fuzz targets in `fuzz/` (not an API: hidden from the docs). They feed
//! bytes a server controls to the parsers as the worker does, so libFuzzer exercises the same
//! code paths without the crate making its parsers public.

use crate::h2::{Event, H2Conn, H2Request, block_status};
use crate::response::{ResponseParser, Step};
use crate::{LoadSpec, Target};

/// Feeds `data` to an HTTP/1.x response parser in `split`-byte reads (at least 1), as a worker
/// does with what one connection returned; then the end of the connection. Returns the statuses
/// of the complete responses, or where the parser gave up.
pub fn http1_responses(data: &[u8], split: usize, no_body: bool) -> Result<Vec<u16>, &'static str> {
    let mut parser = ResponseParser::new(no_body);
    let mut statuses = Vec::new();
    let (mut start, mut end) = (0, 0);
    while end < data.len() {
        end = (end + split.max(1)).min(data.len());
        loop {
            match parser.advance(&data[start..end]).map_err(|e| e.0)? {
                Step::Partial(0) => break,
                Step::Partial(n) => start += n,
                Step::Complete {
                    consumed, status, ..
                } => {
                    start += consumed;
                    statuses.push(status);
                }
            }
            assert!(start <= end, "the parser consumed bytes it was not given");
        }
    }
    statuses.extend(parser.finish_at_eof());
    Ok(statuses)
}

/// Frames `data` as an HTTP/2 connection's read buffer (after our preface and requests for
/// `streams` streams) and hands each whole frame to the connection, until an error. Returns the
/// number of frames handled.
pub fn h2_frames(data: &[u8], streams: usize) -> Result<usize, &'static str> {
    let target = Target::parse("http://fuzz.invalid/").expect("a constant URL parses");
    let request = H2Request::encode(&LoadSpec::get(target)).expect("a plain GET encodes");
    let mut conn = H2Conn::new(streams.max(1) * request.max_len());
    conn.start();
    let (mut at, mut frames) = (0, 0);
    while let Some(len) = H2Conn::frame_len(&data[at..])? {
        // As the worker does after each read: open what the server allows, "write" the output.
        let open = conn.can_open(streams.saturating_sub(conn.streams.len()), 0);
        conn.push_requests(open, &request);
        conn.out.clear();
        match conn.on_frame(&data[at..at + len]) {
            Event::Error(e) | Event::Flood(e) => return Err(e),
            Event::Complete { pos, .. } | Event::Reset { pos } => {
                assert!(
                    pos < conn.streams.len(),
                    "an event for a stream never opened"
                );
                conn.streams.remove(pos);
            }
            Event::GoAway { last_id } => conn.streams.retain(|s| s.id <= last_id),
            Event::None => {}
        }
        at += len;
        frames += 1;
    }
    Ok(frames)
}

/// The `:status` of an HPACK header block, as the connection scans it.
pub fn hpack_status(block: &[u8]) -> Result<u16, &'static str> {
    block_status(block, &mut None)
}
