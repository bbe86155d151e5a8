//! Rounds: how a run's repeats are taken so that a drift of the machine lands on every subject
//! alike, and the verdicts drawn from them.
//!
//! The cells of a *group* (same workload, scenario and protocol) are measured in rounds: in each
//! round every cell of the group once, in a fresh seeded random order, beside a calibration of
//! the generator's ceiling (randomised interleaving: Abedi & Brecht, "Conducting Repeatable
//! Experiments in Highly Variable Cloud Computing Environments", ICPE 2017). A slice where neither
//! the server nor the generator used its CPU is *contended* (something else took it) and does
//! not count. Pairs of cells are compared by their per-round ratio ([`crate::statistics::interval`]);
//! subjects that no paired interval separates share a rank.

use serde::{Deserialize, Serialize};

use crate::statistics::interval::{Interval, paired_ratio};

/// The share of its CPU allowance a side must use in a closed loop for the slice to count as
/// saturated: the server's quota (or cores), or the generator's CPUs.
pub const SATURATED: f64 = 0.90;

/// How a run takes its rounds (in `results.json`'s protocol).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundsPolicy {
    /// The seed of every round's order: the same seed, the same orders.
    pub seed: u64,
    /// Rounds always taken.
    pub min_rounds: u32,
    /// Rounds never exceeded.
    pub max_rounds: u32,
    /// Rounds are added until every paired ratio of a group is within ± this fraction (`0.03`),
    /// or `max_rounds`; `None` takes `min_rounds` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ci: Option<f64>,
    /// Seconds of the re-warm slice before each measured slice (discarded).
    pub rewarm_s: f64,
    /// Duet: every cell of a group is measured at once in each round, each with its own
    /// generator run, its server sharing the server CPUs with the others (`restbench ab`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub duet: bool,
    /// Duets beside a reference (`run`, `study`): in each round every cell of a group is
    /// measured at once beside the group's reference cell (see [`GroupRounds::reference`]),
    /// and the verdicts come from those duets; each cell's own figures come from slices alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub beside_reference: bool,
    /// With [`Self::beside_reference`]: the rounds that also measure every cell alone (its own
    /// figures: req/s with its whole allowance, latency, CPU, memory); `None`: every round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solo_rounds: Option<u32>,
}

/// How the reference of a group measured in duets is chosen, in a sentence (reports and the
/// plan print it).
pub const REFERENCE_RULE: &str = "the cell whose warm-up rate is the group's median (the lower \
     of the two middle ones, ties by name), so that ratios chained through it stay moderate";

/// The reference of a group: of `(label, warm-up rate)`, the one at the median rate (the lower
/// middle one of an even count; ties by label). `None` for an empty group.
pub fn reference_of(cells: &[(String, f64)]) -> Option<usize> {
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by(|&a, &b| {
        cells[a]
            .1
            .total_cmp(&cells[b].1)
            .then_with(|| cells[a].0.cmp(&cells[b].0))
    });
    order.get(cells.len().saturating_sub(1) / 2).copied()
}

/// A slice that did not count, with why: every one is measured again in a later round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExcludedSlice {
    pub subject: String,
    /// The round (0-based) it belonged to.
    pub round: u32,
    /// The other side when the slice was a duet; `None` for a slice alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beside: Option<String>,
    /// Why it did not count: who took the CPU, or which side failed to show it was the bound.
    pub cause: String,
    /// When the measured slice began and ended, in seconds since the Unix epoch.
    pub from_unix_s: f64,
    pub to_unix_s: f64,
}

/// What limited one closed-loop slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Saturation {
    /// The server used its allowance: the figure is the server's.
    Server,
    /// The generator used its CPUs (or reached its ceiling): the figure is a floor.
    Client,
    /// Neither did, and another process (or the hypervisor) took the server's CPU: the figure
    /// is nobody's.
    Contended,
    /// Neither did, and nothing else took the CPU: the server limited itself (one thread, a
    /// lock, a wait). The figure is the server's.
    Unsaturated,
}

impl Saturation {
    /// Whether a slice of this kind counts in the cell's figures.
    pub fn counts(self) -> bool {
        self != Saturation::Contended
    }

    /// A closed-loop slice judged from what each side used: `server_cores` of `allowed_cores`,
    /// `loadgen_cores` of `loadgen_cpus`; `client_bound` when the generator was judged the
    /// limit otherwise (its calibrated ceiling). Neither is `Contended`; the caller turns it
    /// into [`Saturation::Unsaturated`] when it can tell that nobody else took the CPU.
    pub fn of(
        server_cores: f64,
        allowed_cores: f64,
        loadgen_cores: f64,
        loadgen_cpus: f64,
        client_bound: bool,
    ) -> Saturation {
        if allowed_cores > 0.0 && server_cores >= SATURATED * allowed_cores {
            Saturation::Server
        } else if client_bound || (loadgen_cpus > 0.0 && loadgen_cores >= SATURATED * loadgen_cpus)
        {
            Saturation::Client
        } else {
            Saturation::Contended
        }
    }
}

/// One round of a group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// The subjects in the order they were measured.
    pub order: Vec<String>,
    /// The generator's ceiling measured in this round, when calibrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling_rps: Option<f64>,
    /// Subjects whose slice in this round was contended (not counted).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contended: Vec<String>,
    /// Who took the CPU during this round's calibration, when someone did: its ceiling was
    /// not kept, and no slice is judged client-bound from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling_contended: Option<String>,
}

/// The ratio of two cells of a group, paired by round: `b ÷ a` of req/s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairRatio {
    pub a: String,
    pub b: String,
    pub rps: Interval,
    /// CPU µs per request, `b ÷ a` (below 1: B is more efficient).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us_per_req: Option<Interval>,
    /// Within the run's target (`--target-ci`); never without a target (a fixed count of
    /// rounds says nothing about how narrow its intervals came out).
    pub settled: bool,
    /// Whether the req/s interval separates the two as a finding of every verdict the run drew,
    /// after Holm's correction ([`crate::statistics::multiplicity`]); `None`: not corrected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps_distinct: Option<bool>,
    /// The same for CPU µs per request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_distinct: Option<bool>,
}

/// A subject's place in a group's ranking; subjects that no interval separates share a rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankEntry {
    pub subject: String,
    /// 1 + the number of subjects separated from it and better.
    pub rank: u32,
    /// Another subject holds the same rank (`=2`).
    pub tied: bool,
    /// The figure ranked (median req/s, or CPU µs per request).
    pub value: f64,
}

impl RankEntry {
    /// `1`, `=2`.
    pub fn label(&self) -> String {
        if self.tied {
            format!("={}", self.rank)
        } else {
            self.rank.to_string()
        }
    }
}

/// The rounds of one group and what they decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupRounds {
    pub workload: String,
    pub scenario: String,
    pub protocol: String,
    pub rounds: Vec<Round>,
    /// Every paired ratio was within the target when the rounds stopped.
    pub settled: bool,
    pub pairs: Vec<PairRatio>,
    /// By req/s, valid cells only (not contended, client-bound cells last as floors).
    pub ranking: Vec<RankEntry>,
    /// By CPU µs per request (lower first): the measure noise moves least.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub efficiency: Vec<RankEntry>,
    /// Measured in duets beside this cell ([`REFERENCE_RULE`]): the pairs are the duets' ratios,
    /// chained through it per round; `None`: the pairs come from slices alone (interleaved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// How this group was measured when not as the run's policy says, and why (a scenario
    /// whose allowance a shared CPU would break).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method_note: Option<String>,
    /// Every slice that did not count, with its cause.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<ExcludedSlice>,
    /// Every slice that counted, with its window: with [`Self::excluded`], when each slice of
    /// the group ran (to check what a disturbance overlapped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counted: Vec<SliceWindow>,
}

/// When one counted slice ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SliceWindow {
    pub subject: String,
    pub round: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beside: Option<String>,
    pub from_unix_s: f64,
    pub to_unix_s: f64,
}

impl GroupRounds {
    /// The pairs that never came within the target.
    pub fn unsettled(&self) -> impl Iterator<Item = &PairRatio> {
        self.pairs.iter().filter(|p| !p.settled)
    }
}

/// One subject's per-round figure in a group; `None` for a round it was not measured or its
/// slice did not count.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub subject: String,
    pub values: Vec<Option<f64>>,
}

impl Series {
    pub fn valid(&self) -> Vec<f64> {
        self.values.iter().flatten().copied().collect()
    }
}

/// Every pair of `series` (in the order given: `a` before `b`) with its paired interval; pairs
/// with fewer than two common rounds are left out. `cpu` is the same subjects' CPU µs per
/// request, in the same order (empty when not known).
pub fn pair_ratios(series: &[Series], cpu: &[Series], target: Option<f64>) -> Vec<PairRatio> {
    let mut pairs = Vec::new();
    for (i, a) in series.iter().enumerate() {
        for (j, b) in series.iter().enumerate().skip(i + 1) {
            let Some(rps) = paired_ratio(&a.values, &b.values) else {
                continue;
            };
            let cpu_us_per_req = match (cpu.get(i), cpu.get(j)) {
                (Some(ca), Some(cb)) => paired_ratio(&ca.values, &cb.values),
                _ => None,
            };
            let settled = target.is_some_and(|t| rps.relative_half_width() <= t);
            pairs.push(PairRatio {
                a: a.subject.clone(),
                b: b.subject.clone(),
                rps,
                cpu_us_per_req,
                settled,
                rps_distinct: None,
                cpu_distinct: None,
            });
        }
    }
    pairs
}

/// Whether a group may stop after `rounds`: at `max_rounds`, or from `min_rounds` on when every
/// pair is settled (with no target, at `min_rounds`). A group with fewer than two cells needs
/// only `min_rounds`.
pub fn may_stop(policy: &RoundsPolicy, rounds: u32, pairs: &[PairRatio]) -> bool {
    if rounds >= policy.max_rounds {
        return true;
    }
    if rounds < policy.min_rounds {
        return false;
    }
    policy.target_ci.is_none() || pairs.iter().all(|p| p.settled)
}

/// Ranks `subjects` (each with its figure) by the pairs' verdicts: a subject's rank is 1 + the
/// number of subjects a paired interval puts ahead of it; equal ranks are ties. `higher_better`
/// for req/s; for CPU µs per request lower is better and the CPU interval is used.
pub fn rank(
    subjects: &[(String, f64)],
    pairs: &[PairRatio],
    higher_better: bool,
) -> Vec<RankEntry> {
    let ahead = |x: &str, y: &str| -> bool {
        // Is `y` separated from `x` and better?
        pairs.iter().any(|p| {
            let interval = if higher_better {
                Some(p.rps)
            } else {
                p.cpu_us_per_req
            };
            let Some(i) = interval else { return false };
            let corrected = if higher_better {
                p.rps_distinct
            } else {
                p.cpu_distinct
            };
            if corrected == Some(false) {
                return false;
            }
            // i is b ÷ a.
            let b_more = i.above(1.0);
            let b_less = i.below(1.0);
            let b_better = if higher_better { b_more } else { b_less };
            let a_better = if higher_better { b_less } else { b_more };
            (p.a == x && p.b == y && b_better) || (p.b == x && p.a == y && a_better)
        })
    };
    let mut entries: Vec<RankEntry> = subjects
        .iter()
        .map(|(s, v)| RankEntry {
            subject: s.clone(),
            rank: 1 + subjects.iter().filter(|(o, _)| ahead(s, o)).count() as u32,
            tied: false,
            value: *v,
        })
        .collect();
    entries.sort_by(|x, y| {
        x.rank.cmp(&y.rank).then_with(|| {
            if higher_better {
                y.value.total_cmp(&x.value)
            } else {
                x.value.total_cmp(&y.value)
            }
        })
    });
    let ranks: Vec<u32> = entries.iter().map(|e| e.rank).collect();
    for e in &mut entries {
        e.tied = ranks.iter().filter(|r| **r == e.rank).count() > 1;
    }
    entries
}

/// Holm's correction over every verdict `groups` draw (each pair's req/s and CPU µs per request,
/// in every group: the family is the run), then each group ranked again from the corrected
/// pairs, its figures kept. An A/A run of a whole grid then says "same" everywhere but for a
/// 5 % chance of one false verdict in the whole run.
pub fn correct_groups(groups: &mut [GroupRounds]) {
    let mut intervals = Vec::new();
    for g in groups.iter() {
        for p in &g.pairs {
            intervals.push(p.rps);
            if let Some(c) = p.cpu_us_per_req {
                intervals.push(c);
            }
        }
    }
    let mut verdicts = crate::statistics::multiplicity::distinct(&intervals).into_iter();
    for g in groups.iter_mut() {
        for p in &mut g.pairs {
            p.rps_distinct = verdicts.next();
            if p.cpu_us_per_req.is_some() {
                p.cpu_distinct = verdicts.next();
            }
        }
        let figures = |entries: &[RankEntry]| -> Vec<(String, f64)> {
            entries
                .iter()
                .map(|e| (e.subject.clone(), e.value))
                .collect()
        };
        g.ranking = rank(&figures(&g.ranking), &g.pairs, true);
        if !g.efficiency.is_empty() {
            g.efficiency = rank(&figures(&g.efficiency), &g.pairs, false);
        }
    }
}

/// The order of round `round` of group `group`: a permutation of `0..n`, the same for the same
/// seed. Rounds come in balanced pairs: an even round draws a fresh order (Fisher–Yates over a
/// SplitMix64 stream) and the odd round after it runs that order backwards, so every two cells
/// swap places every two rounds (A B, B A: a drift over the pair lands on both alike).
pub fn round_order(seed: u64, group: u32, round: u32, n: usize) -> Vec<usize> {
    if round % 2 == 1 {
        let mut order = drawn_order(seed, group, round - 1, n);
        order.reverse();
        return order;
    }
    drawn_order(seed, group, round, n)
}

fn drawn_order(seed: u64, group: u32, round: u32, n: usize) -> Vec<usize> {
    let mut state = seed ^ (u64::from(group) << 32) ^ u64::from(round).wrapping_mul(0x9E37_79B9);
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(subject: &str, values: &[f64]) -> Series {
        Series {
            subject: subject.into(),
            values: values.iter().map(|v| Some(*v)).collect(),
        }
    }

    #[test]
    fn saturation_tells_the_server_the_client_and_contention_apart() {
        assert_eq!(
            Saturation::of(0.97, 1.0, 0.6, 1.0, false),
            Saturation::Server
        );
        assert_eq!(
            Saturation::of(0.5, 1.0, 0.95, 1.0, false),
            Saturation::Client
        );
        assert_eq!(Saturation::of(0.5, 1.0, 0.4, 1.0, true), Saturation::Client);
        // The case of the issue: 0.50–0.53 of its one core, the generator not busy either.
        assert_eq!(
            Saturation::of(0.52, 1.0, 0.55, 1.0, false),
            Saturation::Contended
        );
        assert_eq!(
            Saturation::of(0.0, 0.0, 0.0, 0.0, false),
            Saturation::Contended
        );
    }

    #[test]
    fn the_reference_is_the_median_cell() {
        let cells = |v: &[(&str, f64)]| -> Vec<(String, f64)> {
            v.iter().map(|(s, r)| (s.to_string(), *r)).collect()
        };
        let five = cells(&[("a", 5.0), ("b", 1.0), ("c", 3.0), ("d", 9.0), ("e", 2.0)]);
        assert_eq!(reference_of(&five), Some(2), "c at 3 is the median");
        let four = cells(&[("a", 5.0), ("b", 1.0), ("c", 3.0), ("d", 9.0)]);
        assert_eq!(reference_of(&four), Some(2), "the lower middle one");
        let tied = cells(&[("y", 2.0), ("x", 2.0), ("z", 2.0)]);
        assert_eq!(reference_of(&tied), Some(0), "ties by name: x, y, z");
        assert_eq!(reference_of(&[]), None);
    }

    #[test]
    fn ties_share_a_rank_and_separated_subjects_do_not() {
        // a and b indistinguishable, both clearly ahead of c.
        let s = [
            series("a", &[100.0, 102.0, 98.0, 101.0]),
            series("b", &[101.0, 99.0, 100.0, 100.0]),
            series("c", &[50.0, 51.0, 49.0, 50.0]),
        ];
        let pairs = pair_ratios(&s, &[], Some(0.03));
        assert_eq!(pairs.len(), 3);
        let ranking = rank(
            &[("c".into(), 50.0), ("a".into(), 100.0), ("b".into(), 100.0)],
            &pairs,
            true,
        );
        let labels: Vec<(String, String)> = ranking
            .iter()
            .map(|e| (e.subject.clone(), e.label()))
            .collect();
        assert_eq!(
            labels,
            vec![
                ("a".into(), "=1".into()),
                ("b".into(), "=1".into()),
                ("c".into(), "3".into())
            ]
        );
        // Lower is better for CPU per request.
        let cpu = [
            series("a", &[10.0, 10.0, 10.1]),
            series("b", &[20.0, 20.2, 19.9]),
        ];
        let pairs = pair_ratios(&cpu, &cpu, None);
        let ranking = rank(&[("a".into(), 10.0), ("b".into(), 20.0)], &pairs, false);
        assert_eq!(ranking[0].label(), "1");
        assert_eq!(ranking[0].subject, "a");
        assert_eq!(ranking[1].label(), "2");
    }

    #[test]
    fn rounds_stop_when_every_ratio_settled_or_at_the_cap() {
        let policy = RoundsPolicy {
            seed: 1,
            min_rounds: 3,
            max_rounds: 10,
            target_ci: Some(0.03),
            rewarm_s: 1.0,
            duet: false,
            beside_reference: false,
            solo_rounds: None,
        };
        let tight = pair_ratios(
            &[
                series("a", &[100.0, 100.5, 99.5]),
                series("b", &[200.0, 201.0, 199.0]),
            ],
            &[],
            policy.target_ci,
        );
        assert!(tight.iter().all(|p| p.settled));
        assert!(!may_stop(&policy, 2, &tight), "min rounds first");
        assert!(may_stop(&policy, 3, &tight));
        let loose = pair_ratios(
            &[
                series("a", &[100.0, 140.0, 70.0]),
                series("b", &[200.0, 150.0, 260.0]),
            ],
            &[],
            policy.target_ci,
        );
        assert!(loose.iter().all(|p| !p.settled));
        assert!(!may_stop(&policy, 5, &loose));
        assert!(may_stop(&policy, 10, &loose), "the cap ends it");
        let fixed = RoundsPolicy {
            target_ci: None,
            ..policy
        };
        assert!(may_stop(&fixed, 3, &loose), "no target: the fixed count");
        let untargeted = pair_ratios(
            &[
                series("a", &[100.0, 100.5, 99.5]),
                series("b", &[200.0, 201.0, 199.0]),
            ],
            &[],
            None,
        );
        assert!(
            untargeted.iter().all(|p| !p.settled),
            "without a target nothing is called settled"
        );
    }

    #[test]
    fn an_a_a_grid_ranks_every_cell_first_after_the_correction() {
        // Ten subjects of the same server: by chance one pair's interval just misses 1.
        let mut groups = Vec::new();
        for w in ["plaintext", "todo"] {
            let subjects: Vec<String> = (0..5).map(|k| format!("s{k}")).collect();
            let mut pairs = Vec::new();
            for (i, a) in subjects.iter().enumerate() {
                for b in subjects.iter().skip(i + 1) {
                    pairs.push(PairRatio {
                        a: a.clone(),
                        b: b.clone(),
                        rps: Interval {
                            estimate: 1.0,
                            low: 0.98,
                            high: 1.02,
                            n: 4,
                        },
                        cpu_us_per_req: None,
                        settled: true,
                        rps_distinct: None,
                        cpu_distinct: None,
                    });
                }
            }
            pairs[3].rps = Interval {
                estimate: 0.987,
                low: 0.975,
                high: 0.9992,
                n: 4,
            };
            let values: Vec<(String, f64)> = subjects
                .iter()
                .enumerate()
                .map(|(k, s)| (s.clone(), 100.0 + k as f64))
                .collect();
            groups.push(GroupRounds {
                workload: w.into(),
                scenario: "single-thread".into(),
                protocol: "h1".into(),
                rounds: Vec::new(),
                settled: true,
                ranking: rank(&values, &pairs, true),
                pairs,
                efficiency: Vec::new(),
                reference: None,
                method_note: None,
                excluded: Vec::new(),
                counted: Vec::new(),
            });
        }
        assert!(
            groups[0].ranking.iter().any(|e| e.rank > 1),
            "uncorrected, the chance interval separates a pair"
        );
        correct_groups(&mut groups);
        for g in &groups {
            assert!(g.ranking.iter().all(|e| e.rank == 1 && e.tied), "{g:?}");
            assert!(g.pairs.iter().all(|p| p.rps_distinct == Some(false)));
        }
    }

    #[test]
    fn the_order_is_seeded_and_changes_between_rounds() {
        let a = round_order(42, 0, 0, 9);
        assert_eq!(a, round_order(42, 0, 0, 9), "same seed, same order");
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..9).collect::<Vec<_>>(), "a permutation");
        let orders: std::collections::BTreeSet<Vec<usize>> =
            (0..6).map(|r| round_order(42, 0, r, 9)).collect();
        assert!(orders.len() >= 5, "rounds get fresh orders: {orders:?}");
        for r in [0, 2, 4] {
            let mut back = round_order(42, 0, r + 1, 9);
            back.reverse();
            assert_eq!(
                back,
                round_order(42, 0, r, 9),
                "round {} runs {r} backwards",
                r + 1
            );
        }
        assert_eq!(
            round_order(42, 0, 1, 2),
            {
                let mut o = round_order(42, 0, 0, 2);
                o.reverse();
                o
            },
            "two cells: A B then B A"
        );
        assert_ne!(round_order(42, 1, 0, 9), a, "groups differ");
        assert_ne!(round_order(43, 0, 0, 9), a, "seeds differ");
        assert_eq!(round_order(1, 0, 0, 0), Vec::<usize>::new());
    }
}
