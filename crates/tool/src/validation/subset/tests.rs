//! The fast path never disagrees with `jsonschema`: a table of the cases
//! it must decide or leave alone, and random schemas and inputs.

use super::*;
use proptest::prelude::*;
use serde_json::json;

fn compiled(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .should_validate_formats(false)
        .build(schema)
        .expect("a subset schema compiles")
}

/// A schema shaped like a built-in tool's.
fn tool_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "file_path": {"type": "string", "minLength": 1, "description": "d"},
            "offset": {"type": "integer", "minimum": 0},
            "ratio": {"type": "number", "exclusiveMaximum": 1.5},
            "mode": {"type": "string", "enum": ["a", "b"]},
            "todos": {"type": "array", "maxItems": 2, "items": {
                "type": "object",
                "properties": {"status": {"const": "done"}},
                "required": ["status"]
            }},
            "either": {"type": ["string", "null"]}
        },
        "required": ["file_path"]
    })
}

#[test]
fn decides_what_it_can_and_leaves_the_rest_to_jsonschema() {
    let schema = tool_schema();
    assert!(in_subset(&schema));
    let validator = compiled(&schema);
    // (input, the fast path's answer); jsonschema's verdict is checked too.
    let table = [
        (json!({"file_path": "a"}), true),
        (
            json!({"file_path": "a", "offset": 3, "ratio": 0.5, "mode": "b"}),
            true,
        ),
        (
            json!({"file_path": "a", "todos": [{"status": "done"}], "either": null}),
            true,
        ),
        (json!({"file_path": "é"}), true),
        (json!({"file_path": ""}), false),
        (json!({"offset": 1}), false),
        (json!({"file_path": "a", "extra": 1}), false),
        (json!({"file_path": "a", "offset": -1}), false),
        (json!({"file_path": "a", "mode": "c"}), false),
        (json!({"file_path": "a", "ratio": 1.5}), false),
        (json!({"file_path": "a", "todos": [{}, {}, {}]}), false),
        (
            json!({"file_path": "a", "todos": [{"status": "open"}]}),
            false,
        ),
        // Valid, but only jsonschema says so: 1.0 is an integer there, and
        // an integer bound against a float value is not compared here.
        (json!({"file_path": "a", "offset": 1.0}), false),
        (json!({"file_path": "a", "ratio": 1}), false),
        (json!("not an object"), false),
    ];
    for (input, fast) in table {
        assert_eq!(surely_valid(&schema, &input), fast, "{input}");
        if fast {
            assert!(validator.is_valid(&input), "{input}");
        }
    }
    assert!(validator.is_valid(&json!({"file_path": "a", "offset": 1.0})));
}

#[test]
fn schemas_outside_the_subset_are_left_to_jsonschema() {
    for schema in [
        json!({"type": "object", "$defs": {}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}}),
        json!({"type": "strin"}),
        json!({"type": []}),
        json!({"type": ["string", "string"]}),
        json!({"required": ["a", "a"]}),
        json!({"required": "a"}),
        json!({"minLength": -1}),
        json!({"minLength": 1.5}),
        json!({"minimum": "0"}),
        json!({"items": [{"type": "string"}]}),
        json!({"pattern": "^a"}),
        json!({"anyOf": [{"type": "string"}]}),
        json!({"description": 3}),
        json!({"properties": {"a": 3}}),
        json!(3),
    ] {
        assert!(!in_subset(&schema), "{schema}");
    }
    let mut deep = json!({"type": "string"});
    for _ in 0..=MAX_SUBSET_DEPTH {
        deep = json!({"type": "array", "items": deep});
    }
    assert!(!in_subset(&deep));
}

/// One keyword with a value of the right shape, or (one time in ten) of
/// any shape, so that malformed schemas are tried too.
fn keyword() -> impl Strategy<Value = (String, Value)> {
    let well_formed = prop_oneof![
        prop::sample::select(vec![
            "string", "integer", "number", "object", "array", "boolean", "null"
        ])
        .prop_map(|t| ("type", json!(t))),
        Just(("type", json!(["string", "null"]))),
        (
            prop::sample::select(vec![
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum"
            ]),
            prop_oneof![
                (-2i64..3).prop_map(Value::from),
                Just(json!(0.5)),
                Just(json!(1.0))
            ]
        ),
        (
            prop::sample::select(vec!["minLength", "maxLength", "minItems", "maxItems"]),
            (0u64..3).prop_map(Value::from)
        ),
        scalar().prop_map(|v| ("enum", json!([v, "a"]))),
        scalar().prop_map(|v| ("const", v)),
        Just(("required", json!(["a"]))),
        Just(("description", json!("d"))),
        scalar().prop_map(|v| ("default", v)),
    ];
    let any_shape = (
        prop::sample::select(vec![
            "type",
            "minimum",
            "minLength",
            "enum",
            "required",
            "description",
        ]),
        scalar(),
    );
    prop_oneof![9 => well_formed, 1 => any_shape].prop_map(|(k, v)| (k.to_string(), v))
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..5).prop_map(Value::from),
        prop::sample::select(vec![0.5f64, 1.0, 2.0, -1.5]).prop_map(Value::from),
        "[ab]{0,3}".prop_map(Value::from),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop::collection::vec(keyword(), 0..4)
        .prop_map(|kws| Value::Object(kws.into_iter().collect()));
    leaf.prop_recursive(3, 24, 3, |inner| {
        (
            prop::collection::vec(keyword(), 0..3),
            prop::collection::btree_map("[ab]", inner.clone(), 0..3),
            prop::option::of(inner.clone()),
            prop::option::of(prop_oneof![inner, any::<bool>().prop_map(Value::Bool)]),
        )
            .prop_map(|(kws, props, items, additional)| {
                let mut map: Map<String, Value> = kws.into_iter().collect();
                map.insert("properties".into(), json!(props));
                if let Some(items) = items {
                    map.insert("items".into(), items);
                }
                if let Some(additional) = additional {
                    map.insert("additionalProperties".into(), additional);
                }
                Value::Object(map)
            })
    })
}

fn instance() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map("[abc]", inner, 0..4).prop_map(|m| json!(m)),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// In the subset, the schema compiles, and "surely valid" is valid.
    #[test]
    fn never_disagrees_with_jsonschema(schema in schema(), input in instance()) {
        if in_subset(&schema) {
            let validator = jsonschema::options()
                .should_validate_formats(false)
                .build(&schema);
            prop_assert!(validator.is_ok(), "{schema}: {:?}", validator.err());
            if surely_valid(&schema, &input) {
                prop_assert!(validator.is_ok_and(|v| v.is_valid(&input)), "{schema} / {input}");
            }
        }
    }
}
