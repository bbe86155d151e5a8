//! Two cells' profiles compared pair by pair (`run --explain`, and a study's marked reversals):
//! the per-request costs side by side, a differential folded profile normalised per request,
//! one sentence drawn from the figures, and what makes a profile less trustworthy (the slice's
//! rate against the measured one, a JIT still compiling).
//!
//! Everything is per request because two servers answer different numbers of requests in their
//! slices: a share of samples says where each one's CPU went, not which one spends more on a
//! request. A sample is worth `1 / (samples / CPU seconds)`; without the CPU time we use the
//! slice's requests (`rps × duration`), so a stack's weight is samples per request of the slice.

use std::collections::BTreeMap;

use restbench_model::{Cell, CellProfile};

/// A profile's share of samples in JIT compiler frames above which the cell is flagged: the
/// compiler was still at work while it was profiled, so its figures are not a warm server's.
pub const JIT_SHARE_THRESHOLD: f64 = 0.05;

/// Frames that belong to a JIT compiler at work: HotSpot's C1 and C2 (its phases and the
/// `Compile::` driver), the compiler threads by name, and V8's TurboFan/Maglev pipelines.
const JIT_COMPILER_MARKERS: [&str; 12] = [
    "C2Compiler",
    "C1Compiler",
    "C2 CompilerThre",
    "C1 CompilerThre",
    "CompilerThread",
    "Compile::",
    "PhaseChaitin",
    "PhaseIdealLoop",
    "PhaseIterGVN",
    "PhaseCFG",
    "Compilation::",
    "v8::internal::compiler::",
];

/// The per-request costs of one side of a pair.
#[derive(Debug, Clone, PartialEq)]
pub struct PerRequest {
    /// Subject (and protocol, scenario) as the reports name it.
    pub label: String,
    /// The cell's measured median, req/s.
    pub measured_rps: f64,
    /// The profiling slice's own rate, req/s.
    pub slice_rps: f64,
    /// CPU µs per request from the measured cell, when the cgroup counted it.
    pub cpu_us: Option<f64>,
    /// The kernel's share of the samples (system) and the rest (user).
    pub system_share: f64,
    pub user_share: f64,
    /// CPU µs per request in the kernel and outside it: the cell's CPU µs split by the shares.
    pub system_us: Option<f64>,
    pub user_us: Option<f64>,
    pub syscalls: Option<f64>,
    pub voluntary_switches: Option<f64>,
    pub involuntary_switches: Option<f64>,
    pub minor_faults: Option<f64>,
    pub major_faults: Option<f64>,
    /// Samples taken per request of the slice.
    pub samples: f64,
    /// Where the samples went among the per-request costs, when the stacks could be read.
    pub frames: Option<FrameShares>,
    /// The share of the samples in a JIT compiler's frames ([`jit_compiler_share`]).
    pub jit_share: f64,
}

/// The share of a profile's samples in the frames of each per-request cost, each sample
/// counted once, in this order: a page fault's handler, then the scheduler (a switch inside a
/// system call is the switch's cost), then the system call's own path; `user` is every sample
/// outside the kernel. What a count costs is what the sentence ranks by: a count 28 times the
/// other side's whose frames hold a hundredth of the CPU does not explain a gap.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameShares {
    pub page_faults: f64,
    pub switches: f64,
    pub syscalls: f64,
    pub user: f64,
}

/// Kernel frames of a page fault's handler.
const PAGE_FAULT_FRAMES: [&str; 4] = [
    "asm_exc_page_fault",
    "exc_page_fault",
    "do_user_addr_fault",
    "handle_mm_fault",
];

/// Kernel frames of a context switch: going to sleep, being switched out or in, waking a thread.
const SWITCH_FRAMES: [&str; 7] = [
    "__schedule",
    "schedule",
    "finish_task_switch",
    "__switch_to",
    "preempt_schedule",
    "context_switch",
    "try_to_wake_up",
];

/// Kernel frames of a system call's entry.
const SYSCALL_FRAMES: [&str; 5] = [
    "entry_SYSCALL",
    "do_syscall_64",
    "__x64_sys_",
    "__do_sys_",
    "__se_sys_",
];

/// [`FrameShares`] of folded stacks (kernel frames suffixed `_[k]`); `None` with no samples.
pub fn frame_shares(folded: &str) -> Option<FrameShares> {
    let (mut total, mut shares) = (0.0, FrameShares::default());
    for (stack, count) in folded_lines(folded) {
        total += count;
        let frames: Vec<&str> = stack.split(';').collect();
        if !frames.last().is_some_and(|leaf| leaf.ends_with("_[k]")) {
            shares.user += count;
            continue;
        }
        let has = |names: &[&str]| {
            frames.iter().any(|f| {
                f.strip_suffix("_[k]")
                    .is_some_and(|f| names.iter().any(|n| f.starts_with(n)))
            })
        };
        if has(&PAGE_FAULT_FRAMES) {
            shares.page_faults += count;
        } else if has(&SWITCH_FRAMES) {
            shares.switches += count;
        } else if has(&SYSCALL_FRAMES) {
            shares.syscalls += count;
        }
    }
    (total > 0.0).then(|| FrameShares {
        page_faults: shares.page_faults / total,
        switches: shares.switches / total,
        syscalls: shares.syscalls / total,
        user: shares.user / total,
    })
}

impl PerRequest {
    /// The per-request figures of `cell`'s profile.
    pub fn of(label: &str, cell: &Cell, profile: &CellProfile) -> PerRequest {
        let cpu_us = cell
            .intervals
            .as_ref()
            .and_then(|i| i.cpu_us_per_req.as_ref())
            .map(|i| i.estimate)
            .or(Some(cell.server.cpu_us_per_req))
            .filter(|v| v.is_finite() && *v > 0.0);
        let system_share = profile.split.kernel();
        let user_share = (1.0 - system_share).max(0.0);
        let folded = profile.folded().ok();
        PerRequest {
            label: label.to_string(),
            measured_rps: cell.rps.median,
            slice_rps: profile.rps,
            cpu_us,
            system_share,
            user_share,
            system_us: cpu_us.map(|c| c * system_share),
            user_us: cpu_us.map(|c| c * user_share),
            syscalls: profile.syscalls_per_request,
            voluntary_switches: profile.voluntary_switches_per_request,
            involuntary_switches: profile.involuntary_switches_per_request,
            minor_faults: profile.minor_faults_per_request,
            major_faults: profile.major_faults_per_request,
            samples: per_request(profile.samples as f64, profile),
            frames: folded.as_deref().and_then(frame_shares),
            jit_share: folded.as_deref().map_or(0.0, jit_compiler_share),
        }
    }

    /// The slice's rate against the measured one: perf's overhead, measured (1.0 = none).
    pub fn slice_ratio(&self) -> Option<f64> {
        (self.measured_rps > 0.0).then(|| self.slice_rps / self.measured_rps)
    }

    /// The figures the sentence may pick from, each with its name, unit and, when the stacks
    /// were read, the share of the samples in its frames (system time has none: it is the sum
    /// of the others' kernel parts).
    fn costs(&self) -> Vec<Cost> {
        let switches = match (self.voluntary_switches, self.involuntary_switches) {
            (Some(v), Some(i)) => Some(v + i),
            _ => None,
        };
        let f = self.frames;
        [
            ("system time", "µs of system time", self.system_us, None),
            (
                "user time",
                "µs of user time",
                self.user_us,
                f.map(|f| f.user),
            ),
            (
                "system calls",
                "system calls",
                self.syscalls,
                f.map(|f| f.syscalls),
            ),
            (
                "context switches",
                "context switches",
                switches,
                f.map(|f| f.switches),
            ),
            (
                "page faults",
                "minor page faults",
                self.minor_faults,
                f.map(|f| f.page_faults),
            ),
        ]
        .into_iter()
        .filter_map(|(name, unit, value, share)| {
            Some(Cost {
                name,
                unit,
                value: value?,
                share,
            })
        })
        .collect()
    }

    /// What a share of this side's samples costs per request: µs of its CPU when `in_us`,
    /// else samples per request of the slice.
    fn weight(&self, share: f64, in_us: bool) -> f64 {
        match (in_us, self.cpu_us) {
            (true, Some(cpu)) => cpu * share,
            _ => self.samples * share,
        }
    }
}

struct Cost {
    name: &'static str,
    unit: &'static str,
    value: f64,
    /// The share of the side's samples in this cost's frames.
    share: Option<f64>,
}

/// One cost compared between the sides.
struct Gap<'a> {
    /// Which side spends more, as a ratio ≥ 1 of the counts.
    ratio: f64,
    slow: &'a Cost,
    fast: &'a Cost,
    slower_spends_more: bool,
    /// What the cost's frames take per request on the slower and the faster side.
    weights: Option<(f64, f64)>,
}

impl Gap<'_> {
    /// The CPU per request the cost's frames account for, the spending side less the other.
    fn weight_gap(&self) -> f64 {
        self.weights.map_or(0.0, |(s, f)| {
            if self.slower_spends_more {
                s - f
            } else {
                f - s
            }
        })
    }
}

/// `count` per request of the profile's slice (`rps × duration` requests).
fn per_request(count: f64, profile: &CellProfile) -> f64 {
    let requests = profile.rps * profile.duration_s;
    if requests > 0.0 {
        count / requests
    } else {
        0.0
    }
}

/// Two sides' per-request costs, the faster first.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedProfile {
    pub faster: PerRequest,
    pub slower: PerRequest,
}

impl PairedProfile {
    /// The pair, the faster (by measured rate) first.
    pub fn new(a: PerRequest, b: PerRequest) -> PairedProfile {
        if a.measured_rps >= b.measured_rps {
            PairedProfile {
                faster: a,
                slower: b,
            }
        } else {
            PairedProfile {
                faster: b,
                slower: a,
            }
        }
    }

    /// One sentence from the figures: of the per-request costs whose counts differ by a fifth
    /// or more, the one that accounts for the most CPU between the sides (the µs per request
    /// its frames take, the spending side less the other), by how much its count differs,
    /// and the next such cost the same side spends more on as its evidence. Without stacks to weigh by, the largest ratio leads; costs below
    /// 0.01 per request on both sides are left out (a ratio of two near-zeros says nothing).
    pub fn sentence(&self) -> String {
        let slow = self.slower.costs();
        let fast = self.faster.costs();
        let in_us = self.slower.cpu_us.is_some() && self.faster.cpu_us.is_some();
        let weighed = self.slower.frames.is_some() && self.faster.frames.is_some();
        let mut gaps: Vec<Gap> = slow
            .iter()
            .filter_map(|s| {
                let f = fast.iter().find(|f| f.name == s.name)?;
                if s.value.max(f.value) < 0.01 {
                    return None;
                }
                let weights = match (s.share, f.share) {
                    (Some(a), Some(b)) if weighed => {
                        Some((self.slower.weight(a, in_us), self.faster.weight(b, in_us)))
                    }
                    _ => None,
                };
                // With stacks, only the costs whose frames were weighed compete.
                if weighed && weights.is_none() {
                    return None;
                }
                // Which side spends more, and by how much (≥ 1).
                let (more, less, slower_spends_more) = if s.value >= f.value {
                    (s.value, f.value, true)
                } else {
                    (f.value, s.value, false)
                };
                let ratio = if less > 0.0 {
                    more / less
                } else {
                    f64::INFINITY
                };
                Some(Gap {
                    ratio,
                    slow: s,
                    fast: f,
                    slower_spends_more,
                    weights,
                })
            })
            .collect();
        if weighed {
            // A cost whose count barely differs does not lead while another's differs by a
            // fifth or more; among those, the CPU its frames account for decides, then the ratio.
            if gaps.iter().any(|g| g.ratio >= 1.2) {
                gaps.retain(|g| g.ratio >= 1.2);
            }
            gaps.sort_by(|a, b| {
                b.weight_gap()
                    .total_cmp(&a.weight_gap())
                    .then(b.ratio.total_cmp(&a.ratio))
            });
        } else {
            gaps.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));
        }
        let Some(lead) = gaps.first() else {
            return format!(
                "{} and {} have no per-request counts to compare; only their shares are shown.",
                self.faster.label, self.slower.label
            );
        };
        let sides = |g: &Gap| {
            if g.slower_spends_more {
                (g.slow.value, g.fast.value, g.weights)
            } else {
                (g.fast.value, g.slow.value, g.weights.map(|(s, f)| (f, s)))
            }
        };
        let weight_unit = if in_us { "µs of CPU" } else { "samples" };
        let (spender, other) = if lead.slower_spends_more {
            (&self.slower.label, &self.faster.label)
        } else {
            (&self.faster.label, &self.slower.label)
        };
        let (mine, theirs, weights) = sides(lead);
        let gap = self.faster.measured_rps / self.slower.measured_rps.max(f64::MIN_POSITIVE);
        let mut sentence = format!(
            "{spender} spends {} the {} per request of {other}: {} against {} {} per request",
            times(lead.ratio),
            lead.slow.name,
            figure(mine),
            figure(theirs),
            lead.slow.unit
        );
        // Time is its own weight; a count says what its frames cost.
        if let Some((w_mine, w_theirs)) =
            weights.filter(|(a, b)| lead.slow.name != "user time" && a.max(*b) > 0.0)
        {
            sentence.push_str(&format!(
                ", whose frames take {} against {} {weight_unit} per request",
                figure(w_mine),
                figure(w_theirs)
            ));
        }
        // The next cost the same side spends more on, as the evidence beside it.
        if let Some(next) = gaps.iter().skip(1).find(|g| {
            g.slower_spends_more == lead.slower_spends_more
                && g.ratio >= 1.2
                && (!weighed || g.weight_gap() > 0.0)
        }) {
            let (mine2, theirs2, _) = sides(next);
            sentence.push_str(&format!(
                ", and {} the {} ({} against {})",
                times(next.ratio),
                next.slow.name,
                figure(mine2),
                figure(theirs2)
            ));
        }
        sentence.push_str(&format!(
            "; {} answers {} the requests per second of {}",
            self.faster.label,
            times(gap),
            self.slower.label
        ));
        // A side whose JIT was still compiling spent part of that cost warming up: say how much.
        for side in [&self.slower, &self.faster] {
            if side.jit_share > JIT_SHARE_THRESHOLD {
                let cost = side.weight(side.jit_share, in_us);
                sentence.push_str(&format!(
                    "; {}'s JIT compiler was at work in {:.0} % of its samples ({} {weight_unit} \
                     per request), so part of its cost is warming up",
                    side.label,
                    side.jit_share * 100.0,
                    figure(cost)
                ));
            }
        }
        sentence.push('.');
        sentence
    }
}

impl PairedProfile {
    /// The table both reports draw: `(figure, faster side, slower side)`, per request.
    pub fn rows(&self) -> Vec<(String, String, String)> {
        let (a, b) = (&self.faster, &self.slower);
        let opt = |v: Option<f64>| v.map_or("–".to_string(), figure);
        let pair = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => format!("{} / {}", figure(x), figure(y)),
            _ => "–".into(),
        };
        let split = |p: &PerRequest| {
            format!(
                "{:.0} % / {:.0} %",
                p.system_share * 100.0,
                p.user_share * 100.0
            )
        };
        let rate = |p: &PerRequest| {
            p.slice_ratio().map_or("–".into(), |x| {
                format!("{:.0} against {:.0} ({x:.2}×)", p.slice_rps, p.measured_rps)
            })
        };
        vec![
            (
                "measured req/s".into(),
                format!("{:.0}", a.measured_rps),
                format!("{:.0}", b.measured_rps),
            ),
            ("CPU µs".into(), opt(a.cpu_us), opt(b.cpu_us)),
            (
                "system / user µs".into(),
                pair(a.system_us, a.user_us),
                pair(b.system_us, b.user_us),
            ),
            ("system / user share of samples".into(), split(a), split(b)),
            ("system calls".into(), opt(a.syscalls), opt(b.syscalls)),
            (
                "context switches, voluntary / involuntary".into(),
                pair(a.voluntary_switches, a.involuntary_switches),
                pair(b.voluntary_switches, b.involuntary_switches),
            ),
            (
                "page faults, minor / major".into(),
                pair(a.minor_faults, a.major_faults),
                pair(b.minor_faults, b.major_faults),
            ),
            ("samples".into(), figure(a.samples), figure(b.samples)),
            (
                "profiled slice req/s against measured".into(),
                rate(a),
                rate(b),
            ),
        ]
    }
}

/// A pair of cells of a run, as the reports compare them: the paired figures (faster first),
/// the cells in the same order, and their labels.
pub struct CellPair<'a> {
    pub paired: PairedProfile,
    pub faster: (&'a Cell, &'a CellProfile),
    pub slower: (&'a Cell, &'a CellProfile),
}

/// Two cells' pair, when both carry a profile.
pub fn pair_of<'a>(a: &'a Cell, b: &'a Cell) -> Option<CellPair<'a>> {
    let (pa, pb) = (a.profile.as_ref()?, b.profile.as_ref()?);
    let label = |c: &Cell| crate::cells::subject_label(&c.subject, &c.protocol);
    let (x, y) = (
        PerRequest::of(&label(a), a, pa),
        PerRequest::of(&label(b), b, pb),
    );
    let a_first = x.measured_rps >= y.measured_rps;
    let paired = PairedProfile::new(x, y);
    let (faster, slower) = if a_first {
        ((a, pa), (b, pb))
    } else {
        ((b, pb), (a, pa))
    };
    Some(CellPair {
        paired,
        faster,
        slower,
    })
}

impl CellPair<'_> {
    /// The differential folded profile, per request: the slower side as `after` (red where it
    /// spends more per request than the faster), the faster as `before`.
    pub fn differential(&self) -> Result<String, restbench_model::FoldedError> {
        let before = self.faster.1.folded()?;
        let after = self.slower.1.folded()?;
        Ok(differential_folded(
            (&before, slice_requests(self.faster.1)),
            (&after, slice_requests(self.slower.1)),
        ))
    }

    /// Both sides' caveats, each prefixed with its label.
    pub fn caveats(&self) -> Vec<String> {
        [
            (&self.paired.faster.label, self.faster),
            (&self.paired.slower.label, self.slower),
        ]
        .into_iter()
        .flat_map(|(label, (cell, profile))| {
            honesty(cell, profile)
                .into_iter()
                .map(move |line| format!("{label}: {line}"))
        })
        .collect()
    }
}

/// The cell of `subject` in `workload` × `scenario`, when it carries a profile: what a study's
/// reversal is explained from.
pub fn profiled_cell<'a>(
    r: &'a restbench_model::RunResults,
    subject: &str,
    workload: &str,
    scenario: &str,
) -> Option<&'a Cell> {
    r.cells.iter().find(|c| {
        c.subject == subject
            && c.workload == workload
            && c.scenario == scenario
            && c.profile.is_some()
    })
}

/// The two cells of a reversal compared profile to profile, when both were profiled.
pub fn reversal_pair<'a>(
    r: &'a restbench_model::RunResults,
    workload: &str,
    t: &crate::study_ratios::RatioTable,
    rev: &crate::study_ratios::Reversal,
) -> Option<CellPair<'a>> {
    let cell = |i: usize| {
        let subject = t.rows.get(i)?.subject.as_deref()?;
        profiled_cell(r, subject, workload, &t.scenario)
    };
    pair_of(cell(rev.first)?, cell(rev.second)?)
}

/// `3.1×`, or `∞×` when the other side spends nothing.
fn times(ratio: f64) -> String {
    if ratio.is_finite() {
        format!("{ratio:.1}×")
    } else {
        "∞×".into()
    }
}

/// A figure with the digits it deserves.
fn figure(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The two folded profiles merged for inferno's differential flame graph, each normalised per
/// request of its slice: `stack before after` lines, counts in samples per million requests
/// (whole numbers, as inferno reads them). `before` and `after` are `(folded, requests)`.
/// A stack one side never sampled counts 0 on that side.
pub fn differential_folded(before: (&str, f64), after: (&str, f64)) -> String {
    let mut merged: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for (stack, count) in folded_lines(before.0) {
        merged.entry(stack).or_default().0 += count / before.1.max(f64::MIN_POSITIVE);
    }
    for (stack, count) in folded_lines(after.0) {
        merged.entry(stack).or_default().1 += count / after.1.max(f64::MIN_POSITIVE);
    }
    let mut out = String::new();
    for (stack, (b, a)) in merged {
        let (b, a) = ((b * 1e6).round() as u64, (a * 1e6).round() as u64);
        if a > 0 || b > 0 {
            out.push_str(&format!("{stack} {b} {a}\n"));
        }
    }
    out
}

/// `(stack, count)` of each well-formed folded line.
fn folded_lines(folded: &str) -> impl Iterator<Item = (&str, f64)> {
    folded.lines().filter_map(|line| {
        let (stack, count) = line.trim_end().rsplit_once(' ')?;
        Some((stack, count.parse::<f64>().ok()?))
    })
}

/// The share of a folded profile's samples in a JIT compiler's frames (any frame of the stack,
/// thread names included, as perf folds them first).
pub fn jit_compiler_share(folded: &str) -> f64 {
    let (mut total, mut jit) = (0.0, 0.0);
    for (stack, count) in folded_lines(folded) {
        total += count;
        if JIT_COMPILER_MARKERS.iter().any(|m| stack.contains(m)) {
            jit += count;
        }
    }
    if total > 0.0 { jit / total } else { 0.0 }
}

/// The caveats a profile carries: what the profiler cost (the slice's rate against the
/// unprofiled measured one is that cost's measure) and a JIT still compiling.
pub fn honesty(cell: &Cell, profile: &CellProfile) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(ratio) = crate::profiles::slice_ratio(cell, profile) {
        lines.push(format!(
            "profiled slice {:.0} req/s against {:.0} measured ({ratio:.2}×): perf's overhead, \
             as far as the slice's rate against the unprofiled one measures it, is {:+.0} %",
            profile.rps,
            cell.rps.median,
            (1.0 - ratio) * 100.0
        ));
    }
    lines.extend(jit_caveat(profile));
    lines
}

/// Said of a profile taken while a JIT compiler was still at work (its share of the samples
/// above [`JIT_SHARE_THRESHOLD`]); `None` for a warm one, or when its stacks cannot be read.
pub fn jit_caveat(profile: &CellProfile) -> Option<String> {
    let share = jit_compiler_share(&profile.folded().ok()?);
    (share > JIT_SHARE_THRESHOLD).then(|| {
        format!(
            "JIT still compiling: {:.0} % of the samples are in JIT compiler frames (over \
             {:.0} %), so this is not a warm server's profile",
            share * 100.0,
            JIT_SHARE_THRESHOLD * 100.0
        )
    })
}

/// The top symbols of both sides, side by side: `(symbol, share in a, share in b)`, by the
/// larger share, at most `limit` rows.
pub fn top_symbols_side_by_side(
    a: &CellProfile,
    b: &CellProfile,
    limit: usize,
) -> Vec<(String, f64, f64)> {
    let mut rows: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for s in &a.top_symbols {
        rows.entry(&s.symbol).or_default().0 = s.share;
    }
    for s in &b.top_symbols {
        rows.entry(&s.symbol).or_default().1 = s.share;
    }
    let mut rows: Vec<(String, f64, f64)> = rows
        .into_iter()
        .map(|(s, (x, y))| (s.to_string(), x, y))
        .collect();
    rows.sort_by(|x, y| y.1.max(y.2).total_cmp(&x.1.max(x.2)));
    rows.truncate(limit);
    rows
}

/// The profiled cells of one ranking's neighbours: for each group (workload × scenario ×
/// protocol), its profiled cells by measured rate, highest first, and each adjacent pair.
pub fn neighbour_pairs(r: &restbench_model::RunResults) -> Vec<(String, Vec<(&Cell, &Cell)>)> {
    let mut groups: BTreeMap<(String, String, String), Vec<&Cell>> = BTreeMap::new();
    for c in r.cells.iter().filter(|c| c.profile.is_some()) {
        groups
            .entry((c.workload.clone(), c.scenario.clone(), c.protocol.clone()))
            .or_default()
            .push(c);
    }
    groups
        .into_iter()
        .filter_map(|((w, s, p), mut cells)| {
            cells.sort_by(|a, b| b.rps.median.total_cmp(&a.rps.median));
            let pairs: Vec<(&Cell, &Cell)> = cells.windows(2).map(|w| (w[0], w[1])).collect();
            let title = if p == "h1" {
                format!("{w} · {s}")
            } else {
                format!("{w} · {s} ({p})")
            };
            (!pairs.is_empty()).then_some((title, pairs))
        })
        .collect()
}

/// The requests a profile's slice answered.
pub fn slice_requests(profile: &CellProfile) -> f64 {
    profile.rps * profile.duration_s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(label: &str, rps: f64, cpu_us: f64, kernel: f64, syscalls: f64, sw: f64) -> PerRequest {
        PerRequest {
            label: label.into(),
            measured_rps: rps,
            slice_rps: rps * 0.9,
            cpu_us: Some(cpu_us),
            system_share: kernel,
            user_share: 1.0 - kernel,
            system_us: Some(cpu_us * kernel),
            user_us: Some(cpu_us * (1.0 - kernel)),
            syscalls: Some(syscalls),
            voluntary_switches: Some(sw / 2.0),
            involuntary_switches: Some(sw / 2.0),
            minor_faults: Some(0.0),
            major_faults: Some(0.0),
            samples: 0.0,
            frames: None,
            jit_share: 0.0,
        }
    }

    #[test]
    fn per_request_counts_divide_by_the_slices_requests() {
        let profile = CellProfile {
            rps: 2000.0,
            duration_s: 5.0,
            samples: 5000,
            recorder: "perf".into(),
            split: restbench_model::CpuSplit {
                kernel_network: 0.5,
                kernel_other: 0.25,
                own: 0.25,
                ..Default::default()
            },
            top_symbols: vec![],
            syscalls_per_request: Some(3.0),
            voluntary_switches_per_request: None,
            involuntary_switches_per_request: None,
            minor_faults_per_request: None,
            major_faults_per_request: None,
            folded_gz: restbench_model::encode_folded("a;b 1\n"),
            notes: vec![],
        };
        assert_eq!(slice_requests(&profile), 10_000.0);
        assert_eq!(per_request(5000.0, &profile), 0.5);
        let mut cell = crate::test_support::cell("x", "plaintext", "single-thread", 2500.0);
        cell.profile = Some(profile.clone());
        let p = PerRequest::of("x", &cell, &profile);
        assert_eq!(p.samples, 0.5);
        assert_eq!(p.system_share, 0.75);
        assert_eq!(p.user_share, 0.25);
        assert_eq!(p.slice_ratio(), Some(0.8));
    }

    #[test]
    fn different_pairs_get_different_sentences_from_their_figures() {
        let go = side("go-nethttp", 40_000.0, 25.0, 0.6, 8.2, 0.1);
        let rust = side("rust-hyper", 90_000.0, 10.0, 0.5, 2.6, 0.1);
        let one = PairedProfile::new(go, rust).sentence();
        assert!(one.starts_with("go-nethttp spends"), "{one}");
        // system time: 15 against 5 µs → 3.0×; system calls: 8.2 / 2.6 = 3.2× is the largest.
        assert!(
            one.contains("3.2× the system calls per request of rust-hyper: 8.20 against 2.60"),
            "{one}"
        );
        assert!(
            one.contains("rust-hyper answers 2.2× the requests per second of go-nethttp"),
            "{one}"
        );

        let jersey = side("java-jersey", 6_000.0, 160.0, 0.4, 8.24, 2.24);
        let node = side("node-http", 30_000.0, 30.0, 0.5, 2.2, 0.02);
        let two = PairedProfile::new(node, jersey).sentence();
        assert_ne!(one, two);
        // Switches: 2.24 / 0.02 = 112× is the largest gap.
        assert!(
            two.starts_with(
                "java-jersey spends 112.0× the context switches per request of node-http: 2.24 against 0.02"
            ),
            "{two}"
        );
        assert!(two.contains("5.0× the requests per second"), "{two}");
    }

    #[test]
    fn each_sample_counts_in_one_cost_faults_first_then_switches_then_system_calls() {
        let folded = "java;Handler::handle 40\n\
                      java;write;entry_SYSCALL_64_[k];do_syscall_64_[k];tcp_sendmsg_[k] 30\n\
                      java;futex;entry_SYSCALL_64_[k];__x64_sys_futex_[k];schedule_[k];finish_task_switch_[k] 20\n\
                      java;alloc;asm_exc_page_fault_[k];handle_mm_fault_[k] 5\n\
                      java;irq_exit_rcu_[k] 5\n";
        let f = frame_shares(folded).unwrap();
        assert_eq!(
            f,
            FrameShares {
                page_faults: 0.05,
                switches: 0.2,
                syscalls: 0.3,
                user: 0.4
            }
        );
        assert_eq!(frame_shares(""), None);
    }

    #[test]
    fn a_count_whose_frames_cost_little_does_not_lead_the_sentence() {
        // Issue 41's pair: Jersey's page faults are 28× node's but their frames hold 1 % of its
        // CPU; its system calls (3.5×) and switches carry the gap.
        let mut jersey = side("java-jersey", 8_500.0, 120.0, 0.45, 7.81, 2.17);
        jersey.minor_faults = Some(0.56);
        jersey.frames = Some(FrameShares {
            page_faults: 0.01,
            switches: 0.2,
            syscalls: 0.2,
            user: 0.55,
        });
        let mut node = side("node-http", 24_000.0, 40.0, 0.35, 2.21, 0.02);
        node.minor_faults = Some(0.02);
        node.frames = Some(FrameShares {
            page_faults: 0.0,
            switches: 0.005,
            syscalls: 0.3,
            user: 0.65,
        });
        let s = PairedProfile::new(node.clone(), jersey.clone()).sentence();
        // user time: 66 − 26 = 40 µs; switches: 24 − 0.2; system calls: 24 − 12; faults: 1.2.
        assert!(
            s.starts_with(
                "java-jersey spends 2.5× the user time per request of node-http: 66.0 against 26.0"
            ),
            "{s}"
        );
        assert!(
            s.contains("and 108.5× the context switches (2.17 against 0.02)"),
            "{s}"
        );
        assert!(!s.contains("page faults") && !s.contains("JIT"), "{s}");
        // A side still compiling says what its JIT took, from its own figures.
        let mut compiling = jersey.clone();
        compiling.jit_share = 0.36;
        let s = PairedProfile::new(node.clone(), compiling).sentence();
        assert!(
            s.ends_with(
                "; java-jersey's JIT compiler was at work in 36 % of its samples (43.2 µs of CPU \
                 per request), so part of its cost is warming up."
            ),
            "{s}"
        );

        // Same user time on both sides: the switches' frames lead, their cost named.
        jersey.frames = Some(FrameShares {
            user: 0.2167,
            ..jersey.frames.unwrap()
        });
        let s = PairedProfile::new(node.clone(), jersey.clone()).sentence();
        assert!(
            s.starts_with(
                "java-jersey spends 108.5× the context switches per request of node-http: 2.17 \
                 against 0.02 context switches per request, whose frames take 24.0 against 0.20 \
                 µs of CPU per request"
            ),
            "{s}"
        );
        assert!(
            s.contains("and 3.5× the system calls (7.81 against 2.21)"),
            "{s}"
        );

        // Without stacks on one side, the ratio rule applies and the faults' 28× leads.
        node.frames = None;
        let s = PairedProfile::new(node, jersey).sentence();
        assert!(
            s.starts_with(
                "java-jersey spends 108.5× the context switches per request of node-http: 2.17 \
                 against 0.02 context switches per request, and 28.0× the page faults"
            ),
            "{s}"
        );
    }

    #[test]
    fn the_differential_merge_normalises_each_side_per_request() {
        let before = "main;read 100\nmain;write 50\n";
        let after = "main;read 100\nmain;epoll 10\n";
        // before answered 1000 requests, after 100: after's read costs 10× as much per request.
        let merged = differential_folded((before, 1000.0), (after, 100.0));
        assert_eq!(
            merged,
            "main;epoll 0 100000\nmain;read 100000 1000000\nmain;write 50000 0\n"
        );
    }

    #[test]
    fn a_profile_with_c2_at_work_is_flagged_and_a_warm_one_is_not() {
        let compiling = "java;C2 CompilerThre;Compile::Compile;PhaseChaitin::Register_Allocate 20\n\
                         java;Thread::run;Handler::handle 80\n";
        assert!((jit_compiler_share(compiling) - 0.2).abs() < 1e-9);
        assert!(jit_compiler_share(compiling) > JIT_SHARE_THRESHOLD);
        let warm = "java;Thread::run;Handler::handle 99\njava;C2 CompilerThre;Compile::Compile 1\n";
        assert!(jit_compiler_share(warm) <= JIT_SHARE_THRESHOLD);
        assert_eq!(jit_compiler_share(""), 0.0);
    }
}
