use super::*;
use serde_json::json;

/// `path: message` for each violation (empty when the value passes).
fn errors(schema: &Value, value: &Value) -> Vec<String> {
    match validate(schema, value) {
        Ok(()) => Vec::new(),
        Err(v) => v.into_iter().map(|v| format!("{}: {}", v.path, v.message)).collect(),
    }
}

fn calculator() -> Value {
    json!({"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"],"additionalProperties":false})
}

#[test]
fn the_built_in_tool_schemas() {
    let calc = calculator();
    let time = json!({"type":"object","properties":{"timezone":{"type":"string"}},"additionalProperties":false});
    let table: [(&Value, Value, &[&str]); 9] = [
        (&calc, json!({"expression": "1+1"}), &[]),
        (&calc, json!({}), &[": missing required property \"expression\""]),
        (&calc, json!({"expression": 5}), &["/expression: expected string, got integer 5"]),
        (&calc, json!({"expression": null}), &["/expression: expected string, got null null"]),
        (&calc, json!({"expression": "1", "x": 1}), &[": unexpected property \"x\" (allowed: expression)"]),
        (&calc, json!({"expr": "1+1"}), &[": missing required property \"expression\"", ": unexpected property \"expr\" (allowed: expression)"]),
        (&calc, json!([]), &[": expected object, got array []"]),
        (&time, json!({}), &[]),
        (&time, json!({"timezone": ["Asia/Tokyo"]}), &["/timezone: expected string, got array [\"Asia/Tokyo\"]"]),
    ];
    for (schema, value, want) in table {
        assert_eq!(errors(schema, &value), want, "{value}");
    }
}

#[test]
fn keywords_table() {
    let table: Vec<(Value, Value, Vec<&str>)> = vec![
        // Types, integer and nullable.
        (json!({"type": "integer"}), json!(3), vec![]),
        (json!({"type": "integer"}), json!(3.0), vec![]),
        (json!({"type": "integer"}), json!(3.5), vec![": expected integer, got number 3.5"]),
        (json!({"type": "number"}), json!(3), vec![]),
        (json!({"type": "number"}), json!("abc"), vec![": expected number, got string \"abc\""]),
        (json!({"type": ["string", "null"]}), json!(null), vec![]),
        (json!({"type": ["string", "null"]}), json!(1), vec![": expected string or null, got integer 1"]),
        (json!({"type": "string", "nullable": true}), json!(null), vec![]),
        (json!({"type": "boolean"}), json!("true"), vec![": expected boolean, got string \"true\""]),
        (json!({"type": "string"}), json!("x".repeat(60)), vec![]),
        (json!({"type": "number"}), json!("y".repeat(60)), vec![": expected number, got string \"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy…"]),
        // enum and const, numbers by value.
        (json!({"enum": ["c", "f"]}), json!("c"), vec![]),
        (json!({"enum": ["c", "f"]}), json!("k"), vec![": expected one of \"c\", \"f\", got \"k\""]),
        (json!({"enum": [1, 2]}), json!(2.0), vec![]),
        (json!({"const": {"a": [1]}}), json!({"a": [1.0]}), vec![]),
        (json!({"const": "x"}), json!("y"), vec![": expected \"x\", got \"y\""]),
        // Numbers.
        (json!({"minimum": 1, "maximum": 10}), json!(10), vec![]),
        (json!({"minimum": 1}), json!(0), vec![": expected a number of at least 1, got 0"]),
        (json!({"maximum": 10}), json!(10.5), vec![": expected a number of at most 10, got 10.5"]),
        (json!({"exclusiveMinimum": 0}), json!(0), vec![": expected a number greater than 0, got 0"]),
        (json!({"exclusiveMaximum": 1.5}), json!(1.5), vec![": expected a number less than 1.5, got 1.5"]),
        (json!({"minimum": 0, "exclusiveMinimum": true}), json!(0), vec![": expected a number greater than 0, got 0"]),
        (json!({"maximum": 5, "exclusiveMaximum": false}), json!(5), vec![]),
        (json!({"multipleOf": 0.1}), json!(0.3), vec![]),
        (json!({"multipleOf": 5}), json!(12), vec![": expected a multiple of 5, got 12"]),
        (json!({"minimum": 5}), json!("3"), vec![]),
        // Strings, in characters.
        (json!({"minLength": 2, "maxLength": 3}), json!("日本語"), vec![]),
        (json!({"minLength": 2}), json!("a"), vec![": expected at least 2 characters, got 1"]),
        (json!({"maxLength": 1}), json!("ab"), vec![": expected at most 1 character, got 2"]),
        (json!({"pattern": "^[0-9]+$", "format": "email"}), json!("not checked"), vec![]),
        // Arrays.
        (json!({"items": {"type": "string"}}), json!(["a", "b"]), vec![]),
        (json!({"items": {"type": "string"}}), json!(["a", 2]), vec!["/1: expected string, got integer 2"]),
        (json!({"minItems": 1}), json!([]), vec![": expected at least 1 item, got 0"]),
        (json!({"maxItems": 2}), json!([1, 2, 3]), vec![": expected at most 2 items, got 3"]),
        (json!({"uniqueItems": true}), json!([1, 2, 1.0]), vec![": expected unique items, item 2 repeats item 0"]),
        (json!({"uniqueItems": true}), json!([{"a": 1}, {"a": 2}]), vec![]),
        (json!({"prefixItems": [{"type": "number"}, {"type": "string"}], "items": false}), json!([1, "a", null]), vec!["/2: no value is allowed here"]),
        (json!({"prefixItems": [{"type": "number"}]}), json!(["x", "free"]), vec!["/0: expected number, got string \"x\""]),
        (json!({"contains": {"type": "string"}}), json!([1, "a"]), vec![]),
        (json!({"contains": {"type": "string"}}), json!([1, 2]), vec![": expected at least 1 item matching {\"type\":\"string\"}, got 0"]),
        (json!({"contains": {"const": 1}, "minContains": 2, "maxContains": 2}), json!([1, 1, 1]), vec![": expected at most 2 items matching {\"const\":1}, got 3"]),
        // Objects.
        (json!({"additionalProperties": {"type": "integer"}}), json!({"a": 1, "b": "2"}), vec!["/b: expected integer, got string \"2\""]),
        (json!({"additionalProperties": false}), json!({"a": 1}), vec![": unexpected property \"a\" (no properties are allowed)"]),
        (json!({"patternProperties": {"^x-": {}}, "additionalProperties": false}), json!({"x-a": 1}), vec![]),
        (json!({"minProperties": 1}), json!({}), vec![": expected at least 1 property, got 0"]),
        (json!({"maxProperties": 1}), json!({"a": 1, "b": 2}), vec![": expected at most 1 property, got 2"]),
        (json!({"propertyNames": {"maxLength": 3}}), json!({"abcd": 1}), vec!["/abcd: expected at most 3 characters, got 4"]),
        (json!({"dependentRequired": {"unit": ["value"]}}), json!({"unit": "c"}), vec![": missing property \"value\", required with \"unit\""]),
        (json!({"dependentRequired": {"unit": ["value"]}}), json!({"other": 1}), vec![]),
        (json!({"dependentSchemas": {"unit": {"required": ["value"]}}}), json!({"unit": "c"}), vec![": missing required property \"value\""]),
        (json!({"properties": {"a/b~c": {"type": "string"}}}), json!({"a/b~c": 1}), vec!["/a~1b~0c: expected string, got integer 1"]),
        // Boolean schemas.
        (json!(true), json!({"anything": 1}), vec![]),
        (json!(false), json!({}), vec![": no value is allowed here"]),
        (json!({"properties": {"a": false}}), json!({"a": 1}), vec!["/a: no value is allowed here"]),
        (json!({}), json!(null), vec![]),
    ];
    for (schema, value, want) in table {
        assert_eq!(errors(&schema, &value), want, "schema {schema} value {value}");
    }
}

#[test]
fn composition_table() {
    let string_or_number = json!({"anyOf": [{"type": "string"}, {"type": "number"}]});
    let shapes = json!({"oneOf": [
        {"type": "object", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
        {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]}
    ]});
    let table: Vec<(&Value, Value, Vec<&str>)> = vec![
        (&string_or_number, json!(1), vec![]),
        (&string_or_number, json!("a"), vec![]),
        (&string_or_number, json!(true), vec![": expected string, got boolean true; or expected number, got boolean true"]),
        (&shapes, json!({"kind": "circle", "r": 1}), vec![]),
        // The closest alternative says what was meant.
        (&shapes, json!({"kind": "circle"}), vec![": missing required property \"r\""]),
        (&shapes, json!({"kind": "square", "side": "2"}), vec!["/side: expected number, got string \"2\""]),
    ];
    for (schema, value, want) in table {
        assert_eq!(errors(schema, &value), want, "schema {schema} value {value}");
    }
    let both = json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]});
    assert_eq!(errors(&both, &json!(3)), [": expected exactly one of the 2 allowed forms to match, 2 did"]);
    assert!(errors(&both, &json!(-3)).is_empty());
    let all = json!({"allOf": [{"required": ["a"]}, {"required": ["b"]}]});
    assert_eq!(errors(&all, &json!({})), [": missing required property \"a\"", ": missing required property \"b\""]);
    let not = json!({"not": {"type": "null"}});
    assert_eq!(errors(&not, &json!(null)), [": must not match {\"type\":\"null\"}"]);
    let cond = json!({"if": {"properties": {"unit": {"const": "k"}}}, "then": {"properties": {"t": {"minimum": 0}}}, "else": {"properties": {"t": {"minimum": -273.15}}}});
    assert_eq!(errors(&cond, &json!({"unit": "k", "t": -1})), ["/t: expected a number of at least 0, got -1"]);
    assert!(errors(&cond, &json!({"unit": "c", "t": -1})).is_empty());
    assert_eq!(errors(&cond, &json!({"unit": "c", "t": -300})), ["/t: expected a number of at least -273.15, got -300"]);
}

#[test]
fn references_in_both_drafts() {
    let draft7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
        "type": "object",
        "properties": {
            "point": {"$ref": "#/definitions/point"},
            "points": {"type": "array", "items": {"$ref": "#/definitions/point"}},
            // Draft 7 ignores keywords beside `$ref`.
            "loose": {"$ref": "#/definitions/point", "maxProperties": 0},
            "pair": {"items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
            "fixed": {"dependencies": {"a": ["b"], "c": {"required": ["d"]}}}
        }
    });
    let table: Vec<(Value, Vec<&str>)> = vec![
        (json!({"point": {"x": 1}, "points": [{"x": 2}], "loose": {"x": 3}, "pair": ["a", 1]}), vec![]),
        (json!({"point": {}}), vec!["/point: missing required property \"x\""]),
        (json!({"points": [{"x": 1}, {"x": 2}, {"x": "3"}]}), vec!["/points/2/x: expected number, got string \"3\""]),
        (json!({"pair": [1, 1.5, true]}), vec!["/pair/0: expected string, got integer 1", "/pair/1: expected integer, got number 1.5", "/pair/2: no value is allowed here"]),
        (json!({"fixed": {"a": 1, "c": 2}}), vec!["/fixed: missing property \"b\", required with \"a\"", "/fixed: missing required property \"d\""]),
    ];
    for (value, want) in table {
        assert_eq!(errors(&draft7, &value), want, "{value}");
    }

    let modern = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "id": {"type": "string", "minLength": 1},
            "item": {"type": "object", "properties": {"name": {"$ref": "#/$defs/id"}}, "required": ["name"]},
            "tagged": {"$anchor": "tag", "enum": ["a", "b"]}
        },
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
            // 2020-12 applies keywords beside `$ref` too.
            "short": {"$ref": "#/$defs/id", "maxLength": 2},
            "tag": {"$ref": "#tag"},
            "encoded": {"$ref": "#/%24defs/id"}
        }
    });
    let table: Vec<(Value, Vec<&str>)> = vec![
        (json!({"items": [{"name": "a"}], "short": "ab", "tag": "a", "encoded": "x"}), vec![]),
        (json!({"items": [{"name": "a"}, {"name": "b"}, {"name": ""}]}), vec!["/items/2/name: expected at least 1 character, got 0"]),
        (json!({"items": [{}]}), vec!["/items/0: missing required property \"name\""]),
        (json!({"short": "abc"}), vec!["/short: expected at most 2 characters, got 3"]),
        (json!({"tag": "c"}), vec!["/tag: expected one of \"a\", \"b\", got \"c\""]),
        (json!({"encoded": 1}), vec!["/encoded: expected string, got integer 1"]),
    ];
    for (value, want) in table {
        assert_eq!(errors(&modern, &value), want, "{value}");
    }

    // Without `$schema`, 2020-12; `definitions` still resolves as a pointer.
    let plain = json!({"definitions": {"n": {"type": "number"}}, "properties": {"n": {"$ref": "#/definitions/n", "minimum": 1}}});
    assert_eq!(errors(&plain, &json!({"n": 0})), ["/n: expected a number of at least 1, got 0"]);
    // The root's own `$id` before the `#`, and the whole document.
    let with_id = json!({"$id": "urn:tool", "$defs": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "urn:tool#/$defs/s"}, "self": {"$ref": "#"}}});
    assert_eq!(errors(&with_id, &json!({"self": {"a": 1}})), ["/self/a: expected string, got integer 1"]);
}

#[test]
fn what_is_not_understood_accepts() {
    let table = [
        json!({"$ref": "#/$defs/missing"}),
        json!({"$ref": "https://example.com/other.json#/x"}),
        json!({"$ref": "#no-such-anchor"}),
        json!({"type": "text"}),
        json!({"type": 5}),
        json!({"properties": []}),
        json!({"required": "x"}),
        json!({"items": 3, "minItems": "2"}),
        json!({"anyOf": []}),
        json!({"oneOf": {}}),
        json!({"multipleOf": 0}),
        json!(null),
        json!(1),
        json!("schema"),
    ];
    for schema in table {
        assert_eq!(errors(&schema, &json!({"a": [1, {"b": null}]})), Vec::<String>::new(), "{schema}");
    }
}

#[test]
fn cyclic_and_explosive_schemas_end() {
    let value = json!({"a": [[[[[[[[1]]]]]]]]});
    let cases = [
        json!({"$ref": "#"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        // Each level doubles the work: 2^96 visits without the budget.
        json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}], "type": "integer"}),
        json!({"allOf": [{"$ref": "#"}, {"$ref": "#"}, {"$ref": "#"}]}),
        json!({"contains": {"$ref": "#"}, "items": {"$ref": "#"}}),
        json!({"not": {"$ref": "#"}}),
        json!({"if": {"$ref": "#"}, "then": {"$ref": "#"}}),
        json!({"propertyNames": {"$ref": "#"}, "additionalProperties": {"$ref": "#"}}),
    ];
    for schema in cases {
        let _ = validate(&schema, &value);
    }
}

/// Schemas made of the keywords with any (often wrong) values.
const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "enum",
    "const",
    "minimum",
    "exclusiveMaximum",
    "minLength",
    "maxItems",
    "uniqueItems",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "$ref",
    "$defs",
    "contains",
    "dependencies",
    "if",
    "then",
    "propertyNames",
    "multipleOf",
    "nullable",
];

proptest::proptest! {
    #[test]
    fn garbage_schemas_never_panic(
        schema in air_testgen::json(KEYWORDS, &["a", "#", "string", "#/$defs/x", "integer", "object", "array", "number"]),
        value in air_testgen::json(&["a", "x"], &["a", "string"]),
    ) {
        let _ = validate(&schema, &value);
    }
}

#[test]
fn describe_names_fields_and_asks_again() {
    let violations = validate(&calculator(), &json!({"expr": "1+1"})).unwrap_err();
    assert_eq!(describe(&violations), "- missing required property \"expression\"\n- unexpected property \"expr\" (allowed: expression)\nCall the tool again with corrected arguments.");
    let nested = [Violation { path: "/items/2/name".into(), message: "expected string, got integer 1".into() }];
    assert_eq!(describe(&nested), "- `/items/2/name`: expected string, got integer 1\nCall the tool again with corrected arguments.");
}
