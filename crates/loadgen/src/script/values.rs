//! What crosses between Lua states (`thread:get/set`: booleans, numbers, strings and tables of
//! them, as wrk allows), and wrk's statistics objects given to `done()`.

use hdrhistogram::Histogram;
use mlua::{Lua, MetaMethod, UserData, UserDataMethods, Value};

/// Tables nested deeper than this are refused (and a table that holds itself never ends).
const MAX_DEPTH: usize = 16;

/// A value copied out of one Lua state into another.
#[derive(Debug, Clone, PartialEq)]
pub enum Transfer {
    Nil,
    Bool(bool),
    Integer(i64),
    Number(f64),
    String(Vec<u8>),
    Table(Vec<(Transfer, Transfer)>),
}

impl Transfer {
    pub fn from_lua(value: &Value) -> mlua::Result<Self> {
        Self::from_lua_at(value, 0)
    }

    fn from_lua_at(value: &Value, depth: usize) -> mlua::Result<Self> {
        Ok(match value {
            Value::Nil => Self::Nil,
            Value::Boolean(b) => Self::Bool(*b),
            Value::Integer(i) => Self::Integer(*i),
            Value::Number(n) => Self::Number(*n),
            Value::String(s) => Self::String(s.as_bytes().to_vec()),
            Value::Table(t) if depth < MAX_DEPTH => {
                let mut items = Vec::new();
                for pair in t.pairs::<Value, Value>() {
                    let (k, v) = pair?;
                    items.push((
                        Self::from_lua_at(&k, depth + 1)?,
                        Self::from_lua_at(&v, depth + 1)?,
                    ));
                }
                Self::Table(items)
            }
            other => {
                return Err(mlua::Error::runtime(format!(
                    "only booleans, numbers, strings and tables of them pass between threads, \
                     not a {}",
                    other.type_name()
                )));
            }
        })
    }

    pub fn to_lua(&self, lua: &Lua) -> mlua::Result<Value> {
        Ok(match self {
            Self::Nil => Value::Nil,
            Self::Bool(b) => Value::Boolean(*b),
            Self::Integer(i) => Value::Integer(*i),
            Self::Number(n) => Value::Number(*n),
            Self::String(s) => Value::String(lua.create_string(s)?),
            Self::Table(items) => {
                let t = lua.create_table()?;
                for (k, v) in items {
                    t.raw_set(k.to_lua(lua)?, v.to_lua(lua)?)?;
                }
                Value::Table(t)
            }
        })
    }
}

/// wrk's statistics object: `min`, `max`, `mean`, `stdev`, `:percentile(p)`, and `(i)` for the
/// i-th distinct value and its count.
pub struct Stats {
    min: f64,
    max: f64,
    mean: f64,
    stdev: f64,
    /// (value, count), ascending.
    values: Vec<(f64, u64)>,
    total: u64,
}

impl Stats {
    /// Latencies in microseconds, from the run's merged histogram.
    pub fn from_histogram(h: &Histogram<u64>) -> Self {
        let values: Vec<(f64, u64)> = h
            .iter_recorded()
            .map(|v| (v.value_iterated_to() as f64, v.count_at_value()))
            .collect();
        let empty = h.is_empty();
        Self {
            min: if empty { 0.0 } else { h.min() as f64 },
            max: if empty { 0.0 } else { h.max() as f64 },
            mean: if empty { 0.0 } else { h.mean() },
            stdev: if empty { 0.0 } else { h.stdev() },
            total: h.len(),
            values,
        }
    }

    /// Samples such as the threads' requests per second.
    pub fn from_samples(samples: &[f64]) -> Self {
        let mut sorted: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len() as f64;
        let mean = if sorted.is_empty() {
            0.0
        } else {
            sorted.iter().sum::<f64>() / n
        };
        let stdev = if sorted.len() < 2 {
            0.0
        } else {
            (sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        };
        Self {
            min: sorted.first().copied().unwrap_or(0.0),
            max: sorted.last().copied().unwrap_or(0.0),
            mean,
            stdev,
            total: sorted.len() as u64,
            values: sorted.into_iter().map(|x| (x, 1)).collect(),
        }
    }

    /// The value at percentile `p` (0–100), as wrk's `stats_percentile`: the smallest value with
    /// at least p % of the samples at or below it.
    pub fn percentile(&self, p: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((p.clamp(0.0, 100.0) / 100.0) * self.total as f64).ceil() as u64;
        let mut seen = 0;
        for (v, n) in &self.values {
            seen += n;
            if seen >= rank.max(1) {
                return *v;
            }
        }
        self.max
    }
}

impl UserData for Stats {
    fn add_fields<F: mlua::UserDataFields<Self>>(fields: &mut F) {
        fields.add_field_method_get("min", |_, s| Ok(s.min));
        fields.add_field_method_get("max", |_, s| Ok(s.max));
        fields.add_field_method_get("mean", |_, s| Ok(s.mean));
        fields.add_field_method_get("stdev", |_, s| Ok(s.stdev));
    }

    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("percentile", |_, s, p: f64| Ok(s.percentile(p)));
        methods.add_meta_method(MetaMethod::Call, |_, s, i: usize| {
            Ok(match s.values.get(i) {
                Some((v, n)) => (Some(*v), Some(*n)),
                None => (None, None),
            })
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_read_as_wrk_reads_them() {
        let s = Stats::from_samples(&[10.0, 20.0, 30.0, 40.0]);
        assert_eq!(s.percentile(50.0), 20.0);
        assert_eq!(s.percentile(99.0), 40.0);
        assert_eq!(s.percentile(0.0), 10.0);
        assert_eq!((s.min, s.max, s.mean), (10.0, 40.0, 25.0));
        assert_eq!(Stats::from_samples(&[]).percentile(99.0), 0.0);
    }

    #[test]
    fn values_cross_states_and_functions_do_not() {
        let a = Lua::new();
        let b = Lua::new();
        let v: Value = a
            .load("return { 1, 'two', x = { y = true } }")
            .eval()
            .unwrap();
        let t = Transfer::from_lua(&v).unwrap();
        b.globals().set("v", t.to_lua(&b).unwrap()).unwrap();
        let ok: bool = b
            .load("return v[1] == 1 and v[2] == 'two' and v.x.y == true")
            .eval()
            .unwrap();
        assert!(ok);
        let f: Value = a.load("return print").eval().unwrap();
        assert!(Transfer::from_lua(&f).is_err());
        let cyclic: Value = a.load("local t = {}; t.t = t; return t").eval().unwrap();
        assert!(
            Transfer::from_lua(&cyclic).is_err(),
            "a table holding itself"
        );
    }
}
