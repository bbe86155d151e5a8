//! Latency histograms: fixed bounds, a portable text encoding, and the summary we print.

use base64::Engine;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use serde::{Deserialize, Serialize};

/// Lowest recordable latency, in microseconds.
pub const LOWEST_US: u64 = 1;
/// Highest recordable latency (60 s), in microseconds; larger values are clamped to it.
pub const HIGHEST_US: u64 = 60_000_000;
/// Significant decimal digits kept (at most 0.1 % quantisation error).
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// The longest base64 text [`decode`] reads (1 MiB): restbench's own histograms take a few KiB.
pub const MAX_ENCODED_LEN: usize = 1 << 20;
/// The most bytes a histogram's payload may take once inflated (4 MiB): a histogram with
/// restbench's bounds has about 30,000 counts of at most 9 bytes each.
pub const MAX_PAYLOAD_LEN: usize = 4 << 20;

/// The V2 format's cookies (HdrHistogram's "V2 encoding" and "V2 compressed encoding").
const V2_COOKIE: u32 = 0x1c84_9313;
const V2_COMPRESSED_COOKIE: u32 = 0x1c84_9314;
/// Cookie, payload length, normalising offset, significant digits, lowest, highest, ratio.
const V2_HEADER_LEN: usize = 40;

/// Why a histogram could not be decoded or merged.
#[derive(Debug, thiserror::Error)]
pub enum HistogramError {
    #[error("histogram is not valid base64: {0}")]
    Base64(#[from] base64::DecodeError),
    /// The header promises what the bytes do not hold, or bounds restbench never writes: refused
    /// before anything is allocated from it.
    #[error("histogram {0}")]
    Header(String),
    #[error("histogram could not be decoded: {0:?}")]
    Decode(hdrhistogram::serialization::DeserializeError),
    #[error("histograms could not be merged: {0:?}")]
    Merge(hdrhistogram::AdditionError),
}

/// A histogram with restbench's fixed bounds, so that any two can be merged.
pub fn new_latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)
        .expect("constant histogram bounds are valid")
}

/// Encodes a histogram as base64 of the standard V2 + DEFLATE format (readable by HdrHistogram
/// implementations in other languages).
pub fn encode(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(histogram, &mut bytes)
        .expect("serializing into memory cannot fail");
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Base64 of raw bytes, as [`encode`] writes its serialisation: lets the fuzz targets build
/// documents around bytes of their choosing.
#[doc(hidden)]
pub fn encode_bytes(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Decodes what [`encode`] wrote (or another HdrHistogram V2 writer with bounds within
/// restbench's). The header is checked before the decoder allocates anything from it: the text
/// at most [`MAX_ENCODED_LEN`], the payload at most [`MAX_PAYLOAD_LEN`] and no longer than the
/// bytes that hold it, the bounds within [`LOWEST_US`]..=[`HIGHEST_US`] and at most
/// [`SIGNIFICANT_DIGITS`] digits.
pub fn decode(text: &str) -> Result<Histogram<u64>, HistogramError> {
    if text.len() > MAX_ENCODED_LEN {
        return Err(HistogramError::Header(format!(
            "is {} bytes of text, more than the {MAX_ENCODED_LEN} a histogram may take",
            text.len()
        )));
    }
    let bytes = base64::engine::general_purpose::STANDARD.decode(text)?;
    let plain = match be_u32(&bytes, 0) {
        Some(V2_COMPRESSED_COOKIE) => inflate(&bytes)?,
        _ => bytes,
    };
    check_v2_header(&plain)?;
    Deserializer::new()
        .deserialize(&mut plain.as_slice())
        .map_err(HistogramError::Decode)
}

/// The V2 bytes inside a compressed histogram, at most a header and [`MAX_PAYLOAD_LEN`].
fn inflate(bytes: &[u8]) -> Result<Vec<u8>, HistogramError> {
    use std::io::Read;
    let header = |problem: &str| HistogramError::Header(problem.to_string());
    let len = be_u32(bytes, 4).ok_or_else(|| header("ends inside its header"))? as usize;
    let deflated = bytes
        .get(8..)
        .and_then(|rest| rest.get(..len))
        .ok_or_else(|| header("promises more compressed bytes than it holds"))?;
    let limit = (V2_HEADER_LEN + MAX_PAYLOAD_LEN) as u64;
    let mut plain = Vec::new();
    flate2::read::ZlibDecoder::new(deflated)
        .take(limit + 1)
        .read_to_end(&mut plain)
        .map_err(|e| HistogramError::Header(format!("cannot be inflated: {e}")))?;
    if plain.len() as u64 > limit {
        return Err(header("inflates to more than a histogram may take"));
    }
    Ok(plain)
}

/// The uncompressed V2 header holds what restbench can decode without a large allocation.
fn check_v2_header(b: &[u8]) -> Result<(), HistogramError> {
    let bad = |problem: String| Err(HistogramError::Header(problem));
    if be_u32(b, 0) != Some(V2_COOKIE) || b.len() < V2_HEADER_LEN {
        return bad("is not an HdrHistogram V2 encoding".into());
    }
    let payload = be_u32(b, 4).unwrap_or(0) as usize;
    if payload > MAX_PAYLOAD_LEN || payload > b.len() - V2_HEADER_LEN {
        return bad(format!(
            "promises a {payload}-byte payload but holds {} bytes",
            b.len() - V2_HEADER_LEN
        ));
    }
    let digits = be_u32(b, 12).unwrap_or(0);
    let (low, high) = (be_u64(b, 16), be_u64(b, 24));
    if digits > u32::from(SIGNIFICANT_DIGITS) || !(LOWEST_US..=HIGHEST_US).contains(&low) {
        return bad(format!(
            "has {digits} significant digits from {low}: restbench's are {SIGNIFICANT_DIGITS} \
             from {LOWEST_US}"
        ));
    }
    if high > HIGHEST_US {
        return bad(format!(
            "reaches {high} µs, past the {HIGHEST_US} µs restbench records"
        ));
    }
    check_counts(&b[V2_HEADER_LEN..V2_HEADER_LEN + payload])
}

/// The payload's counts, read as the decoder reads them (ZigZag LEB128, at most 9 bytes each):
/// a run of zeros of 2^63 (which the decoder negates, an overflow), or counts whose sum passes
/// 2^64 (which the decoder saturates: the histogram's total would not be its counts' sum), are
/// refused. A truncated number is left to the decoder, which refuses it.
fn check_counts(mut payload: &[u8]) -> Result<(), HistogramError> {
    let mut total = 0u64;
    while let Some((encoded, len)) = leb128_9(payload) {
        payload = &payload[len..];
        let n = ((encoded >> 1) as i64) ^ -((encoded & 1) as i64);
        if n == i64::MIN {
            return Err(HistogramError::Header(
                "holds a run of 2^63 empty buckets".into(),
            ));
        }
        if n > 0 {
            total = total.checked_add(n as u64).ok_or_else(|| {
                HistogramError::Header("holds counts that add up to more than 2^64".into())
            })?;
        }
    }
    Ok(())
}

/// HdrHistogram's LEB128-64b9B: 7 bits a byte, the ninth byte whole; `None` when truncated.
fn leb128_9(b: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for i in 0..9 {
        let byte = *b.get(i)?;
        if i == 8 {
            return Some((value | (u64::from(byte) << 56), 9));
        }
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

fn be_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn be_u64(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_be_bytes)
}

/// Adds `other` into `into`.
pub fn merge(into: &mut Histogram<u64>, other: &Histogram<u64>) -> Result<(), HistogramError> {
    into.add(other).map_err(HistogramError::Merge)
}

/// The latency figures restbench prints and stores, in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub min: u64,
    pub p50: u64,
    pub p75: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    pub mean: f64,
    pub stdev: f64,
}

impl LatencySummary {
    /// Reads the summary off a histogram; all zeros when it is empty.
    pub fn from_histogram(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return Self::default();
        }
        Self {
            min: h.min(),
            p50: h.value_at_quantile(0.50),
            p75: h.value_at_quantile(0.75),
            p90: h.value_at_quantile(0.90),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
            mean: h.mean(),
            stdev: h.stdev(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trip_keeps_counts() {
        let mut h = new_latency_histogram();
        for v in [1, 10, 100, 1_000, 10_000, 59_000_000] {
            h.record(v).unwrap();
        }
        let back = decode(&encode(&h)).unwrap();
        assert_eq!(back.len(), 6);
        assert_eq!(back.max(), h.max());
        assert_eq!(back.value_at_quantile(0.5), h.value_at_quantile(0.5));
    }

    #[test]
    fn merging_shards_equals_recording_everything_once() {
        let mut whole = new_latency_histogram();
        let mut a = new_latency_histogram();
        let mut b = new_latency_histogram();
        for v in 1..5_000u64 {
            whole.record(v * 7).unwrap();
            if v % 2 == 0 {
                a.record(v * 7).unwrap()
            } else {
                b.record(v * 7).unwrap()
            }
        }
        merge(&mut a, &b).unwrap();
        assert_eq!(
            LatencySummary::from_histogram(&a),
            LatencySummary::from_histogram(&whole)
        );
    }

    #[test]
    fn empty_histogram_summarises_to_zero() {
        assert_eq!(
            LatencySummary::from_histogram(&new_latency_histogram()).p99,
            0
        );
    }

    #[test]
    fn garbage_is_a_clear_error() {
        assert!(decode("not base64!").is_err());
        assert!(decode("AAAA").is_err());
    }

    /// A V2 header of restbench's bounds, then `payload` (its length as the header says, unless
    /// `promised`).
    fn v2(payload: &[u8], promised: Option<u32>, high: u64, digits: u32) -> String {
        let mut b = V2_COOKIE.to_be_bytes().to_vec();
        b.extend_from_slice(&promised.unwrap_or(payload.len() as u32).to_be_bytes());
        b.extend_from_slice(&0u32.to_be_bytes());
        b.extend_from_slice(&digits.to_be_bytes());
        b.extend_from_slice(&LOWEST_US.to_be_bytes());
        b.extend_from_slice(&high.to_be_bytes());
        b.extend_from_slice(&1.0f64.to_be_bytes());
        b.extend_from_slice(payload);
        encode_bytes(&b)
    }

    #[test]
    fn headers_that_promise_more_than_they_hold_are_refused_before_allocating() {
        // 40 bytes promising a 4 GiB payload (issue 26 item 6): refused, not allocated.
        let lying = v2(&[], Some(u32::MAX), HIGHEST_US, 3);
        assert_eq!(lying.len(), 56, "40 bytes of base64");
        let e = decode(&lying).unwrap_err().to_string();
        assert!(e.contains("4294967295-byte payload but holds 0"), "{e}");
        for (text, needle) in [
            (v2(&[], None, u64::MAX / 2, 3), "past the"),
            (v2(&[], None, HIGHEST_US, 5), "significant digits"),
            ("A".repeat(MAX_ENCODED_LEN + 4), "bytes of text"),
        ] {
            let e = decode(&text).unwrap_err().to_string();
            assert!(e.contains(needle), "{needle}: {e}");
        }
        assert!(
            decode(&v2(&[2, 0], None, HIGHEST_US, 3)).is_ok(),
            "a count of 1, a zero"
        );
    }

    #[test]
    fn a_deflate_bomb_is_cut_at_the_payload_limit() {
        use std::io::Write;
        let mut plain = Vec::new();
        let mut header = base64::engine::general_purpose::STANDARD
            .decode(v2(&[], Some(0), HIGHEST_US, 3))
            .unwrap();
        plain.append(&mut header);
        plain.resize(V2_HEADER_LEN + MAX_PAYLOAD_LEN + 1024, 0);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&plain).unwrap();
        let deflated = z.finish().unwrap();
        let mut b = V2_COMPRESSED_COOKIE.to_be_bytes().to_vec();
        b.extend_from_slice(&(deflated.len() as u32).to_be_bytes());
        b.extend_from_slice(&deflated);
        let e = decode(&encode_bytes(&b)).unwrap_err().to_string();
        assert!(e.contains("inflates to more"), "{e}");
    }

    /// Found by `cargo fuzz run histogram`: a ZigZag number of i64::MIN, a run of 2^63 zeros,
    /// overflowed hdrhistogram's negation (a panic in debug builds).
    #[test]
    fn fuzz_regression_a_run_of_two_to_the_63_zeros() {
        let crash: &[u8] = &[
            28, 132, 147, 19, 0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
            0, 0, 0, 0, 56, 63, 240, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255,
            255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
            255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
            255, 255, 255, 255, 255, 246, 62, 126, 0, 72, 73, 150, 84, 240, 47, 0, 232, 232, 232,
            232, 232, 232, 232, 0, 126, 0, 0, 0, 1, 28, 132, 255, 255, 255, 255, 255, 255, 255,
            255, 255, 255, 255, 255, 255, 255, 255, 0,
        ];
        let e = decode(&encode_bytes(crash)).unwrap_err().to_string();
        assert!(e.contains("2^63"), "{e}");
        // Counts whose sum passes 2^64: the decoder would saturate the total.
        // Each a count of about 2^62 (ZigZag, nine bytes), five of them.
        let big = [0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        let many: Vec<u8> = big.iter().copied().cycle().take(9 * 5).collect();
        let e = decode(&v2(&many, None, HIGHEST_US, 3))
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than 2^64"), "{e}");
    }
}
