//! The status-only HPACK scan: a response header block read for `:status` alone.
//!
//! We advertise SETTINGS_HEADER_TABLE_SIZE 0, so the server keeps no HPACK dynamic table for
//! us (RFC 7541 §4.2) and every other field is skipped by its length, Huffman-coded or not. A
//! full decoder costs more than everything else a request does here: `fluke-hpack` builds its
//! Huffman table on every coded string, 60 % of the generator's CPU against hyper's h2c when it
//! decoded every block.

/// Built on the first Huffman-coded `:status` or header name (rare: statuses outside the static
/// table), then kept by the connection.
pub(crate) type Huffman = Option<Box<fluke_hpack::huffman::HuffmanDecoder>>;

/// Static-table indexes (RFC 7541 Appendix A) of `:status` with a value: 200, 204, 206, 304,
/// 400, 404, 500; index 8 doubles as the name `:status` for a literal value.
const STATUS_INDEXES: [(usize, u16); 7] = [
    (8, 200),
    (9, 204),
    (10, 206),
    (11, 304),
    (12, 400),
    (13, 404),
    (14, 500),
];
const STATIC_TABLE_LEN: usize = 61;

/// Scans an HPACK header block for `:status` without a dynamic table (we advertise a table
/// size of 0, so a server adds nothing it may refer to later: an index past the static table is
/// a protocol error). Other fields are skipped by their length, never Huffman-decoded.
pub(crate) fn block_status(block: &[u8], huffman: &mut Huffman) -> Result<u16, &'static str> {
    let mut status = 0u16;
    let mut i = 0;
    while i < block.len() {
        let first = block[i];
        if first & 0x80 != 0 {
            // Indexed field.
            let (index, n) = hpack_integer(&block[i..], 7)?;
            i += n;
            match index {
                0 => return Err("an HPACK index of 0"),
                1..=STATIC_TABLE_LEN => {
                    if let Some(&(_, code)) = STATUS_INDEXES.iter().find(|(x, _)| *x == index) {
                        status = code;
                    }
                }
                _ => return Err("an HPACK dynamic-table index though the table size is 0"),
            }
        } else if first & 0xe0 == 0x20 {
            // Dynamic table size update: nothing to keep with no table.
            let (_, n) = hpack_integer(&block[i..], 5)?;
            i += n;
        } else {
            // A literal: with incremental indexing (01), without (0000) or never indexed (0001).
            let prefix = if first & 0x40 != 0 { 6 } else { 4 };
            let (name_index, n) = hpack_integer(&block[i..], prefix)?;
            i += n;
            let is_status = match name_index {
                0 => {
                    let (name, huffman_coded, n) = hpack_string(&block[i..])?;
                    i += n;
                    string_is(name, huffman_coded, b":status", huffman)?
                }
                1..=STATIC_TABLE_LEN => (8..=14).contains(&name_index),
                _ => return Err("an HPACK dynamic-table name though the table size is 0"),
            };
            let (value, huffman_coded, n) = hpack_string(&block[i..])?;
            i += n;
            if is_status {
                status = if huffman_coded {
                    let d = huffman.get_or_insert_with(|| {
                        Box::new(fluke_hpack::huffman::HuffmanDecoder::new())
                    });
                    parse_status(&d.decode(value).map_err(|_| "a bad Huffman-coded :status")?)
                } else {
                    parse_status(value)
                };
            }
        }
    }
    Ok(status)
}

fn string_is(
    s: &[u8],
    huffman_coded: bool,
    want: &[u8],
    huffman: &mut Huffman,
) -> Result<bool, &'static str> {
    if !huffman_coded {
        return Ok(s == want);
    }
    // A coded string is at least 5 bits per octet: anything longer than that cannot match.
    if s.len() > want.len() {
        return Ok(false);
    }
    let d = huffman.get_or_insert_with(|| Box::new(fluke_hpack::huffman::HuffmanDecoder::new()));
    Ok(d.decode(s).map_err(|_| "a bad Huffman-coded header name")? == want)
}

/// An HPACK integer with an `n`-bit prefix (RFC 7541 §5.1): its value and its length in bytes.
fn hpack_integer(b: &[u8], n: u8) -> Result<(usize, usize), &'static str> {
    const TRUNCATED: &str = "a truncated HPACK integer";
    let max = (1usize << n) - 1;
    let mut value = usize::from(*b.first().ok_or(TRUNCATED)?) & max;
    if value < max {
        return Ok((value, 1));
    }
    let mut shift = 0u32;
    for (k, &byte) in b.iter().enumerate().skip(1) {
        if shift > 28 {
            return Err("an HPACK integer over 2^32");
        }
        value += usize::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok((value, k + 1));
        }
    }
    Err(TRUNCATED)
}

/// An HPACK string (RFC 7541 §5.2): its bytes as sent, whether they are Huffman-coded, and the
/// length of the whole representation.
fn hpack_string(b: &[u8]) -> Result<(&[u8], bool, usize), &'static str> {
    let huffman_coded = b.first().ok_or("a truncated HPACK string")? & 0x80 != 0;
    let (len, n) = hpack_integer(b, 7)?;
    let end = n
        .checked_add(len)
        .filter(|&e| e <= b.len())
        .ok_or("a truncated HPACK string")?;
    Ok((&b[n..end], huffman_coded, end))
}

fn parse_status(v: &[u8]) -> u16 {
    if v.len() == 3 && v.iter().all(u8::is_ascii_digit) {
        v.iter().fold(0u16, |a, d| a * 10 + u16::from(d - b'0'))
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_is_read_from_a_block_without_a_dynamic_table() {
        let mut h = None;
        // Indexed :status 200; a table size update first; a Huffman-coded content-type skipped.
        assert_eq!(block_status(&[0x88], &mut h), Ok(200));
        assert_eq!(block_status(&[0x20, 0x8d], &mut h), Ok(404));
        assert_eq!(
            block_status(&[0x5f, 0x83, 0xaa, 0xbb, 0xcc, 0x88], &mut h),
            Ok(200)
        );
        // A literal value under the name :status, plain and Huffman-coded ("503").
        assert_eq!(
            block_status(&[0x08, 0x03, b'5', b'0', b'3'], &mut h),
            Ok(503)
        );
        assert!(h.is_none(), "no Huffman table for plain strings");
        assert_eq!(
            block_status(&[0x08, 0x83, 0x6c, 0x0c, 0xff], &mut h),
            Ok(503)
        );
        // A literal name spelled out, never indexed.
        let mut named = vec![0x10, 7];
        named.extend_from_slice(b":status");
        named.extend_from_slice(&[3, b'2', b'0', b'1']);
        assert_eq!(block_status(&named, &mut h), Ok(201));
        // Trailers carry no status.
        assert_eq!(block_status(&[0x40, 1, b'x', 1, b'y'], &mut h), Ok(0));
        // A dynamic index, a truncated string, a truncated integer: errors, not panics.
        assert!(block_status(&[0xbe], &mut h).is_err());
        assert!(block_status(&[0x08, 0x05, b'2'], &mut h).is_err());
        assert!(block_status(&[0xff], &mut h).is_err());
        assert!(block_status(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f], &mut h).is_err());
        // RFC 7541 C.1.2: 1337 with a 5-bit prefix.
        assert_eq!(hpack_integer(&[0x1f, 0x9a, 0x0a], 5), Ok((1337, 3)));
    }
}
