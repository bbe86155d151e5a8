//! How far two orders of the same systems agree: Kendall's tau-b, the rank correlation a study
//! quotes between a published order and the measured one. Tau-b (not tau-a) because published
//! figures tie (TechEmpower's plaintext is link-bound near 28M req/s) and measured ones may too;
//! tau-b corrects for ties on either side so that a tie neither helps nor hurts agreement.

/// Kendall's tau-b between two equally long lists of figures (one system per index): 1 when
/// both orders agree on every pair, -1 when every pair is reversed. `None` with fewer than two
/// systems, lists of different lengths, a figure that is not finite, or when either side ties
/// every pair (no order to compare).
pub fn kendall_tau_b(first: &[f64], second: &[f64]) -> Option<f64> {
    if first.len() != second.len() || first.len() < 2 {
        return None;
    }
    if first.iter().chain(second).any(|v| !v.is_finite()) {
        return None;
    }
    let (mut concordant, mut discordant) = (0i64, 0i64);
    let (mut tied_first, mut tied_second) = (0i64, 0i64);
    for i in 0..first.len() {
        for j in i + 1..first.len() {
            let a = (first[i] - first[j]).signum_or_zero();
            let b = (second[i] - second[j]).signum_or_zero();
            match (a == 0, b == 0) {
                (true, true) => {}
                (true, false) => tied_first += 1,
                (false, true) => tied_second += 1,
                (false, false) if a == b => concordant += 1,
                (false, false) => discordant += 1,
            }
        }
    }
    let untied_first = (concordant + discordant + tied_second) as f64;
    let untied_second = (concordant + discordant + tied_first) as f64;
    let denominator = (untied_first * untied_second).sqrt();
    if denominator == 0.0 {
        return None;
    }
    Some((concordant - discordant) as f64 / denominator)
}

/// The sign of a difference, with exact equality as 0 (f64's `signum` gives ±1 for ±0).
trait SignumOrZero {
    fn signum_or_zero(self) -> i8;
}

impl SignumOrZero for f64 {
    fn signum_or_zero(self) -> i8 {
        if self > 0.0 {
            1
        } else if self < 0.0 {
            -1
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_and_opposite_orders_give_one_and_minus_one() {
        assert_eq!(
            kendall_tau_b(&[3.0, 2.0, 1.0], &[30.0, 20.0, 10.0]),
            Some(1.0)
        );
        assert_eq!(
            kendall_tau_b(&[3.0, 2.0, 1.0], &[10.0, 20.0, 30.0]),
            Some(-1.0)
        );
    }

    #[test]
    fn one_swapped_pair_of_four_gives_two_thirds() {
        // Six pairs, five concordant and one discordant: (5 - 1) / 6.
        let tau = kendall_tau_b(&[4.0, 3.0, 2.0, 1.0], &[4.0, 2.0, 3.0, 1.0]).unwrap();
        assert!((tau - 4.0 / 6.0).abs() < 1e-12, "{tau}");
    }

    #[test]
    fn ties_are_corrected_as_tau_b() {
        // x ties the first pair: C = 2, D = 0, ties in x only = 1:
        // tau-b = 2 / sqrt((2 + 0 + 0) * (2 + 0 + 1)) = 2 / sqrt(6).
        let tau = kendall_tau_b(&[1.0, 1.0, 0.0], &[2.0, 1.0, 0.0]).unwrap();
        assert!((tau - 2.0 / 6f64.sqrt()).abs() < 1e-12, "{tau}");
    }

    #[test]
    fn no_order_to_compare_gives_none() {
        assert_eq!(kendall_tau_b(&[1.0], &[1.0]), None);
        assert_eq!(kendall_tau_b(&[1.0, 2.0], &[1.0]), None);
        assert_eq!(kendall_tau_b(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(kendall_tau_b(&[f64::NAN, 1.0], &[1.0, 2.0]), None);
    }
}
