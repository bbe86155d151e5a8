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

/// Why a histogram could not be decoded or merged.
#[derive(Debug, thiserror::Error)]
pub enum HistogramError {
    #[error("histogram is not valid base64: {0}")]
    Base64(#[from] base64::DecodeError),
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

/// Decodes what [`encode`] wrote.
pub fn decode(text: &str) -> Result<Histogram<u64>, HistogramError> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(text)?;
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(HistogramError::Decode)
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
}
