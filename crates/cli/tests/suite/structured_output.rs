//! `--json-schema` through the binary against the fake server: the
//! `StructuredOutput` tool, the result's `structured_output` in every output
//! format, invalid output answered with the validation errors and retried,
//! `error_max_structured_output_retries`, and bad schemas refused before any
//! request.

use orbit_test_support::{FakeAnthropic, Reply, Turn, body};
use serde_json::{Value, json};

use super::common::{Scratch, orbit, orbit_with_env, run};
use super::harness::stream_json_ok;

const SCHEMA: &str = r#"{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}"#;

fn output_call(id: &str, input: Value) -> Reply {
    Reply::tool_use(id, "StructuredOutput", input)
}

#[test]
fn valid_invalid_then_valid_and_always_invalid() {
    struct Case {
        name: &'static str,
        replies: Vec<Reply>,
        env: Vec<(&'static str, &'static str)>,
        /// Requests made; with `gave_up`, the attempts that failed.
        requests: usize,
        gave_up: bool,
    }
    let wrong = |i: usize| output_call(&format!("toolu_{i}"), json!({"wrong": i}));
    let cases = vec![
        Case {
            name: "valid",
            replies: vec![output_call("toolu_1", json!({"answer": 42}))],
            env: vec![],
            requests: 1,
            gave_up: false,
        },
        Case {
            name: "invalid, then no call, then valid",
            replies: vec![
                output_call("toolu_1", json!({"answer": "many"})),
                Reply::text("The answer is 42."),
                output_call("toolu_2", json!({"answer": 42})),
            ],
            env: vec![],
            requests: 3,
            gave_up: false,
        },
        Case {
            name: "always invalid",
            replies: (1..=6).map(wrong).collect(),
            env: vec![],
            requests: 5,
            gave_up: true,
        },
        Case {
            name: "always invalid, MAX_STRUCTURED_OUTPUT_RETRIES=2",
            replies: (1..=6).map(wrong).collect(),
            env: vec![("MAX_STRUCTURED_OUTPUT_RETRIES", "2")],
            requests: 2,
            gave_up: true,
        },
    ];
    for case in cases {
        let scratch = Scratch::new();
        let server = FakeAnthropic::start(case.replies);
        let mut cmd = orbit(&scratch, &server);
        cmd.args([
            "-p",
            "What is the answer?",
            "--output-format",
            "stream-json",
            "--json-schema",
            SCHEMA,
        ]);
        for (k, v) in &case.env {
            cmd.env(k, v);
        }
        let out = run(cmd);
        let name = case.name;
        let (code, subtype, structured, errors) = if case.gave_up {
            let error = format!(
                "Failed to provide valid structured output after {} attempts",
                case.requests
            );
            (
                1,
                "error_max_structured_output_retries",
                Value::Null,
                json!([error]),
            )
        } else {
            (0, "success", json!({"answer": 42}), json!([]))
        };
        assert_eq!(out.code, code, "{name}: {}", out.stderr);
        let result = out.result();
        assert_eq!(result["subtype"], subtype, "{name}");
        assert_eq!(result["structured_output"], structured, "{name}");
        assert_eq!(result["errors"], errors, "{name}");
        assert_eq!(server.request_count(), case.requests, "{name}");
        // The tool is offered with the schema as its input schema.
        let bodies = server.bodies();
        let tool = body::tool(&bodies[0], "StructuredOutput");
        let schema: Value = serde_json::from_str(SCHEMA).unwrap();
        assert_eq!(
            tool.map(|t| t["input_schema"].clone()),
            Some(schema),
            "{name}"
        );
        // Every failed attempt was answered: validation errors for a bad
        // call, a reminder for an answer without one.
        for request in &bodies[1..] {
            let texts = body::last_message_texts(request).join("\n");
            assert!(
                texts.contains("InputValidationError: StructuredOutput failed")
                    || texts.contains("You MUST call the StructuredOutput tool"),
                "{name}: {texts}"
            );
        }
    }
}

#[test]
fn the_structured_output_in_text_json_and_stream_json() {
    for format in ["text", "json", "stream-json"] {
        let scratch = Scratch::new();
        let server =
            FakeAnthropic::start(vec![Reply::turn(Turn::new().text("Here it is.").tool_use(
                "toolu_1",
                "StructuredOutput",
                json!({"answer": 7}),
            ))]);
        let mut cmd = orbit(&scratch, &server);
        cmd.args([
            "-p",
            "answer",
            "--output-format",
            format,
            "--json-schema",
            SCHEMA,
        ]);
        let out = run(cmd);
        assert_eq!(out.code, 0, "{format}: {}", out.stderr);
        match format {
            "text" => assert_eq!(out.stdout, "{\"answer\":7}\n"),
            _ => {
                let result = out.result();
                assert_eq!(
                    result["structured_output"],
                    json!({"answer": 7}),
                    "{format}"
                );
                // The value as compact JSON, even after text (as Claude
                // Code 2.1.332).
                assert_eq!(result["result"], r#"{"answer":7}"#, "{format}");
            }
        }
        assert_eq!(
            server.request_count(),
            1,
            "{format}: the valid call ends the run"
        );
    }
}

#[test]
fn a_schema_from_a_file_and_bad_schemas() {
    let scratch = Scratch::new();
    let file = scratch.write("schema.json", SCHEMA);
    let server = FakeAnthropic::start(vec![output_call("toolu_1", json!({"answer": 1}))]);
    let out = stream_json_ok(
        &scratch,
        &server,
        "answer",
        &["--json-schema", &file.display().to_string()],
    );
    assert_eq!(out.result()["structured_output"], json!({"answer": 1}));

    let cases = [
        (
            "{\"type\": ",
            "--json-schema: inline JSON is not valid JSON",
        ),
        (
            "{\"type\": \"array\"}",
            "--json-schema: inline JSON is not a usable schema: the schema must describe an object",
        ),
        (
            "{\"properties\": {\"a\": {\"type\": \"strang\"}}}",
            "--json-schema: inline JSON is not a usable schema: not a valid JSON Schema",
        ),
        (
            "missing.json",
            "--json-schema: cannot read the schema file missing.json",
        ),
    ];
    for (schema, expected) in cases {
        let server = FakeAnthropic::start(vec![]);
        let mut cmd = orbit_with_env(&scratch, &server.env());
        cmd.args(["-p", "answer", "--json-schema", schema]);
        let out = run(cmd);
        assert_eq!(out.code, 1, "{schema}");
        assert!(
            out.stderr.starts_with(&format!("orbit: error: {expected}")),
            "{schema}: {}",
            out.stderr
        );
        assert_eq!(server.request_count(), 0, "{schema}: no request is made");
    }
}
