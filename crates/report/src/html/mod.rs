//! `report.html`: one self-contained page (inline CSS and SVG, no network, no external fonts or
//! scripts) rendered from a [`RunResults`](restbench_model::RunResults).
//!
//! Test hooks: every chart is a `<figure class="chart" data-chart="rps|latency|cpu|memory|timeline">`
//! (`timeline` only when the cells recorded their seconds),
//! every summary table a `<table class="cells">`, every ranking a `<table class="ranking">`, every study table a `<table class="ratios">`, the conformance section a
//! `<section id="conformance" data-conformance>`.
//! A tiny inline script records page errors in `<html data-errors>` and sets `data-ready="1"`
//! on load, so a headless browser can prove the page rendered cleanly.
//!
//! Modules: [`page`] assembles the document and its cards; [`tables`] the summary and findings
//! tables; [`charts`] the figures of a group, drawn by [`svg`] (scales, ticks, and one
//! [`svg::Axes`] for every chart's grid and axes) and [`timeline`] (rate and p99 over time, one
//! small panel per cell); [`mod@rankings`] a group's ranking with ties and its efficiency
//! ranking (runs measured in rounds); [`study`] the ratio tables, and [`tfb`] `study tfb`'s (one per TechEmpower test type); [`mod@conformance`] each subject's
//! conformance cases; [`profile`] the profiles (`--profile`): the CPU split's stacked bars,
//! per-request counts and inferno's flame graphs, each in an iframe of its own;
//! [`mod@history`] the `restbench history show` timeline (a page of its own);
//! [`markup`] the small pieces they share. The style and the script are `report.css` and
//! `report.js` beside this file.

pub mod charts;
pub mod conformance;
pub mod history;
pub mod markup;
pub mod page;
pub mod profile;
pub mod rankings;
pub mod study;
pub mod svg;
pub mod tables;
pub mod tfb;
pub mod timeline;

pub use page::{render, render_many};
