//! Generators for the property tests of the crates that read what others
//! send (MCP messages, OAuth metadata, MCP Apps' posts, import files).
//!
//! [`json`] makes any JSON value, but with the keys and the string values
//! a parser looks for turning up often, so the generated documents reach
//! past its first check; integers and floats, nulls, booleans, arrays and
//! objects nest a few levels deep.

use proptest::prelude::*;
use serde_json::{Map, Number, Value};

/// Any JSON value; `keys` are the object keys and `words` the strings that
/// turn up often (besides any text).
pub fn json(keys: &'static [&'static str], words: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let key = prop_oneof![3 => prop::sample::select(keys).prop_map(str::to_owned), 1 => ".{0,12}"];
    let text = prop_oneof![2 => prop::sample::select(words).prop_map(str::to_owned), 1 => ".{0,40}"];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        text.prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 96, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

#[cfg(test)]
mod tests {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    use super::*;

    fn depth(v: &Value) -> usize {
        match v {
            Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
            Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    #[test]
    fn the_words_given_turn_up_and_values_nest() {
        let strategy = json(&["method", "params"], &["tools/call"]);
        let mut runner = TestRunner::deterministic();
        let values: Vec<Value> = (0..300).map(|_| strategy.new_tree(&mut runner).expect("a value").current()).collect();
        let text: String = values.iter().map(Value::to_string).collect();
        assert!(text.contains("\"method\":") && text.contains("\"params\":"), "the keys given are used");
        assert!(text.contains("\"tools/call\""), "the words given are used");
        assert!(values.iter().any(|v| depth(v) >= 2), "values nest");
        assert!(values.iter().any(|v| v.is_f64()) && values.iter().any(|v| v.is_i64()), "floats and integers");
    }
}
