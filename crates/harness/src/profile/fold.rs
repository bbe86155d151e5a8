//! `perf script` text folded into stacks (inferno's perf collapser) and the folded stacks
//! classified into the CPU split and the top symbols.

use std::collections::HashMap;

use inferno::collapse::Collapse;
use inferno::collapse::perf::{Folder, Options};
use restbench_model::{CpuSplit, TopSymbol};

use super::runtime::{KERNEL_NETWORK_PREFIXES, LIBC_NAMES, LIBC_PREFIXES, RuntimeProfile};

/// How many symbols a profile keeps, highest self time first.
pub const TOP_SYMBOLS: usize = 15;

/// Folds `perf script` output: one `comm;outer;…;leaf count` line per distinct stack, kernel
/// frames suffixed `_[k]` and JIT frames (from a perf map) `_[j]`, as FlameGraph's java palette
/// colours them. A frame perf could not name stays `[unknown]` (or `[its module]`).
pub fn fold(perf_script: &str) -> std::io::Result<String> {
    let mut options = Options::default();
    options.annotate_kernel = true;
    options.annotate_jit = true;
    options.nthreads = 1;
    let mut folded = Vec::new();
    Folder::from(options).collapse(perf_script.as_bytes(), &mut folded)?;
    Ok(String::from_utf8_lossy(&folded).into_owned())
}

/// The parts of the split, as [`CpuSplit::parts`] names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Part {
    KernelNetwork,
    KernelOther,
    Own,
    Runtime,
    Libc,
    Unknown,
}

impl Part {
    pub fn name(self) -> &'static str {
        match self {
            Part::KernelNetwork => "kernel network",
            Part::KernelOther => "kernel other",
            Part::Own => "own code",
            Part::Runtime => "runtime",
            Part::Libc => "libc/alloc",
            Part::Unknown => "unknown",
        }
    }
}

/// What the folded stacks say: their total weight (perf's folded counts are sample periods,
/// nanoseconds of `cpu-clock`), the split of it, and the top symbols by self time.
#[derive(Debug, Clone, PartialEq)]
pub struct Classified {
    pub samples: u64,
    pub split: CpuSplit,
    pub top_symbols: Vec<TopSymbol>,
}

/// Classifies every sample by its leaf frame (where the CPU was), with `runtime`'s table; a
/// kernel leaf counts as the network stack's when any kernel frame of its stack is.
pub fn classify(folded: &str, runtime: &RuntimeProfile) -> Classified {
    let mut by_part: HashMap<Part, u64> = HashMap::new();
    let mut by_symbol: HashMap<(String, Part), u64> = HashMap::new();
    let mut samples = 0;
    for line in folded.lines() {
        let Some((stack, count)) = line.rsplit_once(' ') else {
            continue;
        };
        let Ok(count) = count.trim().parse::<u64>() else {
            continue;
        };
        let frames: Vec<&str> = stack.split(';').collect();
        let Some(leaf) = frames.last() else {
            continue;
        };
        let part = part_of(&frames, runtime);
        samples += count;
        *by_part.entry(part).or_default() += count;
        *by_symbol
            .entry((strip_annotation(leaf).to_string(), part))
            .or_default() += count;
    }
    let share = |part| match samples {
        0 => 0.0,
        n => by_part.get(&part).copied().unwrap_or(0) as f64 / n as f64,
    };
    let split = CpuSplit {
        kernel_network: share(Part::KernelNetwork),
        kernel_other: share(Part::KernelOther),
        own: share(Part::Own),
        runtime: share(Part::Runtime),
        libc: share(Part::Libc),
        unknown: share(Part::Unknown),
    };
    let mut symbols: Vec<_> = by_symbol.into_iter().collect();
    symbols.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.0.cmp(&b.0.0)));
    let top_symbols = symbols
        .into_iter()
        .take(TOP_SYMBOLS)
        .map(|((symbol, part), count)| TopSymbol {
            symbol,
            part: part.name().into(),
            share: count as f64 / samples.max(1) as f64,
        })
        .collect();
    Classified {
        samples,
        split,
        top_symbols,
    }
}

/// The part a stack (root first, leaf last) counts in.
pub fn part_of(frames: &[&str], runtime: &RuntimeProfile) -> Part {
    let Some(&leaf) = frames.last() else {
        return Part::Unknown;
    };
    if leaf.ends_with("_[k]") {
        let network = frames
            .iter()
            .filter(|f| f.ends_with("_[k]"))
            .any(|f| starts_with_any(strip_annotation(f), KERNEL_NETWORK_PREFIXES));
        return if network {
            Part::KernelNetwork
        } else {
            Part::KernelOther
        };
    }
    let symbol = strip_annotation(leaf);
    if symbol == "[unknown]" || symbol.starts_with("0x") {
        return Part::Unknown;
    }
    let is_runtime = starts_with_any(symbol, runtime.runtime_prefixes)
        || runtime.runtime_contains.iter().any(|c| symbol.contains(c)) && !leaf.ends_with("_[j]");
    if is_runtime {
        Part::Runtime
    } else if starts_with_any(symbol, LIBC_PREFIXES) || LIBC_NAMES.contains(&symbol) {
        Part::Libc
    } else {
        Part::Own
    }
}

fn starts_with_any(symbol: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| symbol.starts_with(p))
}

/// A frame without inferno's `_[k]`, `_[j]` or `_[i]` (inlined) suffix.
pub fn strip_annotation(frame: &str) -> &str {
    for suffix in ["_[k]", "_[j]", "_[i]"] {
        if let Some(stripped) = frame.strip_suffix(suffix) {
            return stripped;
        }
    }
    frame
}
