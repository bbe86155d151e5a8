//! A latency histogram as HdrHistogram's percentile distribution (`.hgrm`), the text wrk2 prints
//! and users paste into HdrHistogram's plotter: values in milliseconds, five ticks per half
//! distance to 100 %, then the mean, deviation, maximum and count (the layout of HdrHistogram's
//! `outputPercentileDistribution`).

use std::fmt::Write;

use hdrhistogram::Histogram;

/// Microseconds per millisecond: the histograms hold microseconds, `.hgrm` shows milliseconds.
const SCALE: f64 = 1000.0;
/// Lines per halving of the distance to 100 %, as wrk2 prints them.
const TICKS_PER_HALF_DISTANCE: u32 = 5;

/// The `.hgrm` text of `h` (microseconds).
pub fn hgrm(h: &Histogram<u64>) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{:>12} {:>14} {:>10} {:>14}\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    );
    let mut total = 0u64;
    if !h.is_empty() {
        for v in h.iter_quantiles(TICKS_PER_HALF_DISTANCE) {
            total += v.count_since_last_iteration();
            let q = v.quantile_iterated_to();
            let value = v.value_iterated_to() as f64 / SCALE;
            if q < 1.0 {
                let _ = writeln!(
                    o,
                    "{value:12.3} {q:2.12} {total:10} {:14.2}",
                    1.0 / (1.0 - q)
                );
            } else {
                let _ = writeln!(o, "{value:12.3} {q:2.12} {total:10}");
            }
        }
    }
    let (mean, stdev, max) = if h.is_empty() {
        (0.0, 0.0, 0.0)
    } else {
        (h.mean() / SCALE, h.stdev() / SCALE, h.max() as f64 / SCALE)
    };
    let sub_buckets = (2 * 10u64.pow(u32::from(h.sigfig()))).next_power_of_two();
    let _ = writeln!(o, "#[Mean    = {mean:12.3}, StdDeviation   = {stdev:12.3}]");
    let _ = writeln!(
        o,
        "#[Max     = {max:12.3}, Total count    = {:12}]",
        h.len()
    );
    let _ = writeln!(
        o,
        "#[Buckets = {:12}, SubBuckets     = {sub_buckets:12}]",
        h.buckets()
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use restbench_model::documents::histogram::new_latency_histogram;

    #[test]
    fn the_distribution_reads_as_hdrhistogram_writes_it() {
        let mut h = new_latency_histogram();
        for us in 1..=1000u64 {
            h.record(us * 10).unwrap();
        }
        let text = hgrm(&h);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].trim_start().starts_with("Value"), "{}", lines[0]);
        assert_eq!(lines[1], "");
        let first: Vec<&str> = lines[2].split_whitespace().collect();
        assert_eq!(first, ["0.010", "0.000000000000", "1", "1.00"]);
        let last_value = lines
            .iter()
            .rfind(|l| !l.starts_with('#'))
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>();
        assert_eq!(last_value.len(), 3, "the 100 % line has no inverse");
        assert_eq!(last_value[1], "1.000000000000");
        assert_eq!(last_value[2], "1000");
        let values: Vec<f64> = lines[2..]
            .iter()
            .take_while(|l| !l.starts_with('#'))
            .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
            .collect();
        assert!(values.windows(2).all(|w| w[0] <= w[1]), "values rise");
        assert!(
            text.contains("#[Max     =       10.007, Total count    =         1000]"),
            "{text}"
        );
        assert!(text.contains("SubBuckets     =         2048]"));
    }
}
