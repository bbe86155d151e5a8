//! Verdicts under noise: what two figures, two cells or two runs may be said to differ by, and
//! when a gate fails. Pure arithmetic over the documents' figures; nothing here is written to
//! disk but the value types the documents hold ([`Interval`](crate::Interval),
//! [`RoundsPolicy`](crate::RoundsPolicy), [`RatioRow`](crate::RatioRow)…).
//!
//! [`interval`] (intervals on figures and on ratios, paired by round), [`rounds`] (interleaved
//! rounds, contended slices, rankings with ties, the stop rule), [`ab_ratios`] (the A/B ratio of
//! every measure between two cells, paired by round within a run, unpaired across runs) and
//! [`gate`] (`--fail-if` thresholds checked against those intervals; which machine facts must
//! match), [`multiplicity`] (Holm's correction over the verdicts a run draws at once) and
//! [`rank_correlation`] (Kendall's tau-b between a published order and a measured one).

pub mod ab_ratios;
pub mod gate;
pub mod interval;
pub mod multiplicity;
pub mod rank_correlation;
pub mod rounds;
