//! A cell's profile: where the server's CPU went during a profiling slice run after the measured
//! repeats, under the same load. Nothing here is ranked: the slice's own req/s is kept beside
//! the measured one so the profiler's overhead is visible.
//!
//! The folded stacks (`frame;frame;frame count`, one line per distinct stack, as inferno and
//! Brendan Gregg's FlameGraph read them) are kept inline, gzip then base64, like the cell's
//! histogram: a results.json stays one self-contained file that `report` redraws from, copies
//! and merges keep the profile with its cell, and a few seconds of `cpu-clock` samples fold to a
//! few thousand distinct stacks, tens of kilobytes once compressed.

use std::io::{Read, Write};

use base64::Engine;
use serde::{Deserialize, Serialize};

/// Where a server's CPU samples fell, in shares of all its samples (they sum to 1 when any were
/// taken).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuSplit {
    /// The kernel's network stack: TCP/IP, sockets, epoll, the loopback device.
    pub kernel_network: f64,
    /// The rest of the kernel: scheduler, syscall entry, memory management, interrupts.
    pub kernel_other: f64,
    /// The server's own code and its framework's, as named by its symbols.
    pub own: f64,
    /// The language runtime: GC, JIT compiler, interpreter, scheduler of green threads.
    pub runtime: f64,
    /// libc and the allocator.
    pub libc: f64,
    /// Frames nothing could name (`[unknown]`, a bare address): counted, never dropped.
    #[serde(default)]
    pub unknown: f64,
}

impl CpuSplit {
    /// The shares in report order, with their names.
    pub fn parts(&self) -> [(&'static str, f64); 6] {
        [
            ("kernel network", self.kernel_network),
            ("kernel other", self.kernel_other),
            ("own code", self.own),
            ("runtime", self.runtime),
            ("libc/alloc", self.libc),
            ("unknown", self.unknown),
        ]
    }

    /// Both kernel shares together: the floor no change to the server's code can lower.
    pub fn kernel(&self) -> f64 {
        self.kernel_network + self.kernel_other
    }
}

/// One symbol's share of the server's samples, where it was the frame on CPU (self time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopSymbol {
    pub symbol: String,
    /// The part of the split it counts in (`kernel network`, `own code`, …).
    pub part: String,
    pub share: f64,
}

/// A cell's profiling slice and what it found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellProfile {
    /// The slice's own rate under the profiler (not the cell's measured rate).
    pub rps: f64,
    pub duration_s: f64,
    /// CPU samples taken in the server's processes.
    pub samples: u64,
    /// What recorded the samples (`perf record -e cpu-clock -g --cgroup …`).
    pub recorder: String,
    pub split: CpuSplit,
    /// The symbols with the most self time, highest first.
    pub top_symbols: Vec<TopSymbol>,
    /// System calls the server made per request (`raw_syscalls:sys_enter`), when counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syscalls_per_request: Option<f64>,
    /// Voluntary and involuntary context switches per request (/proc/PID/status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voluntary_switches_per_request: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub involuntary_switches_per_request: Option<f64>,
    /// Minor and major page faults per request (/proc/PID/stat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minor_faults_per_request: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub major_faults_per_request: Option<f64>,
    /// The folded stacks, gzip then base64 (see the module doc); read with [`Self::folded`].
    pub folded_gz: String,
    /// What is missing and why (e.g. CPython 3.11 names no Python functions; 3.12's `-X perf`
    /// would).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Why a profile's folded stacks could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum FoldedError {
    #[error("the profile's folded stacks are not valid base64: {0}")]
    Base64(#[from] base64::DecodeError),
    #[error("the profile's folded stacks are not valid gzip text: {0}")]
    Gzip(#[from] std::io::Error),
}

impl CellProfile {
    /// The folded stacks as text, one `frames count` line per stack.
    pub fn folded(&self) -> Result<String, FoldedError> {
        decode_folded(&self.folded_gz)
    }
}

/// Folded stacks compressed for [`CellProfile::folded_gz`].
pub fn encode_folded(folded: &str) -> String {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(folded.as_bytes());
    let bytes = encoder.finish().unwrap_or_default();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The text [`encode_folded`] made.
pub fn decode_folded(encoded: &str) -> Result<String, FoldedError> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded.trim())?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(bytes.as_slice()).read_to_string(&mut text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_stacks_survive_the_round_trip() {
        let folded = "main;serve;[unknown] 3\nmain;tcp_sendmsg 7\n";
        let encoded = encode_folded(folded);
        assert_eq!(decode_folded(&encoded).unwrap(), folded);
        assert!(decode_folded("not base64!").is_err());
    }

    #[test]
    fn the_kernel_share_is_both_kernel_parts() {
        let split = CpuSplit {
            kernel_network: 0.5,
            kernel_other: 0.25,
            own: 0.25,
            ..CpuSplit::default()
        };
        assert_eq!(split.kernel(), 0.75);
        assert_eq!(
            split.parts().iter().map(|(_, share)| share).sum::<f64>(),
            1.0
        );
    }
}
