//! Rows of a history read back (`restbench_history::point`) and drawn as the timeline page: a
//! history file is anyone's to edit, so any values in any column must give points and a page,
//! never a panic, and the page links to nothing but http(s).
#![no_main]

use libfuzzer_sys::fuzz_target;
use restbench_history::Value;

/// The columns of the points query: 14 facts, then value, low and high of five measures.
const COLUMNS: usize = 14 + 3 * 5;

/// One value from the front of `data`: a tag byte, then what it says.
fn value(data: &mut &[u8]) -> Value {
    let take = |data: &mut &[u8], n: usize| -> Vec<u8> {
        let n = n.min(data.len());
        let (head, rest) = data.split_at(n);
        *data = rest;
        head.to_vec()
    };
    let eight = |data: &mut &[u8]| {
        let mut b = [0u8; 8];
        let got = take(data, 8);
        b[..got.len()].copy_from_slice(&got);
        b
    };
    match take(data, 1).first().copied().unwrap_or(3) % 4 {
        0 => Value::I(Some(i64::from_le_bytes(eight(data)))),
        1 => Value::F(Some(f64::from_le_bytes(eight(data)))),
        2 => {
            let n = take(data, 1).first().copied().unwrap_or(0) as usize;
            Value::T(Some(String::from_utf8_lossy(&take(data, n)).into_owned()))
        }
        _ => Value::T(None),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut data = data;
    let mut points = Vec::new();
    while !data.is_empty() && points.len() < 8 {
        let row: Vec<Value> = (0..COLUMNS).map(|_| value(&mut data)).collect();
        points.push(restbench_history::point(&row));
    }
    let page = restbench_report::html::history::page(
        &points,
        Some("https://example.invalid/commit/{rev}"),
    );
    assert!(!page.to_ascii_lowercase().contains("href=\"javascript:"));
});
