//! The chat template and the prompt's worked examples quote orbit's own
//! texts; these tests fail when one of those texts changes and the quote
//! no longer matches.
//!
//! The template picks the line it puts after a tool result by testing the
//! result's start (`message.content.startswith('…')`). The tests read those
//! branches out of the template and "render" each orbit text they are
//! meant for: the text must still take its branch. A real llama-server
//! renders the template in `crates/cli/tests/suite/local_resume.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use orbit_profile::{CHAT_TEMPLATE, SMALL, SMALL_PROMPT};
use orbit_tool::texts::{engine, tool_use_error, tools};

/// One branch of the template's choice of the line after a tool result.
#[derive(Debug)]
struct Branch {
    /// The prefix the result is tested for; None for the `else` branch.
    prefix: Option<String>,
    /// The start of the line the branch emits.
    line: String,
}

/// The branches of the line after a tool result, in the template's order.
fn branches() -> Vec<Branch> {
    let lines: Vec<&str> = CHAT_TEMPLATE.lines().collect();
    let mut out: Vec<Branch> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let prefix = if let Some(at) = line.find("message.content.startswith('") {
            let rest = &line[at + "message.content.startswith('".len()..];
            Some(rest[..rest.find("')").unwrap()].to_string())
        } else if line.trim() == "{%- else -%}" && !out.is_empty() {
            None
        } else {
            continue;
        };
        let emitted = lines[i + 1].trim().strip_prefix("{{- '").unwrap();
        let first = emitted.split("\\n").next().unwrap();
        out.push(Branch {
            prefix: prefix.clone(),
            line: first.trim_end_matches("<|im_end|>").to_string(),
        });
        if prefix.is_none() {
            break;
        }
    }
    out
}

/// The line the template puts after a tool result `content`.
fn line_after(content: &str) -> String {
    branches()
        .into_iter()
        .find(|b| b.prefix.as_deref().is_none_or(|p| content.starts_with(p)))
        .unwrap()
        .line
}

#[test]
fn each_orbit_text_the_template_tests_for_still_takes_its_branch() {
    let branches = branches();
    assert_eq!(branches.len(), 4, "{branches:#?}");
    // (orbit's text, the start of the line the template must put after it)
    let cases = [
        (
            engine::INTERRUPT_MESSAGE_FOR_TOOL_USE.to_string(),
            "The user stopped this call before it finished.",
        ),
        (
            tool_use_error(tools::NOT_READ_MESSAGE),
            "The call was refused.",
        ),
        (
            tools::file_not_found(Path::new("/work/project")),
            "No such file.",
        ),
        (
            "1\tlevel=debug".to_string(),
            "If this result answers the request",
        ),
    ];
    for (text, expected) in &cases {
        let line = line_after(text);
        assert!(line.starts_with(expected), "{text:?} now gets {line:?}");
    }
    // Every prefix the template tests for is the start of an orbit text.
    for prefix in branches.iter().filter_map(|b| b.prefix.as_deref()) {
        assert!(
            cases.iter().any(|(text, _)| text.starts_with(prefix)),
            "the template tests for {prefix:?}, which no orbit text starts with"
        );
    }
}

#[test]
fn the_worked_examples_show_results_as_orbit_and_the_template_write_them() {
    let after_result = line_after("1\tlevel=debug");
    let results = SMALL_PROMPT.matches("</tool_response>\n").count();
    let followed = SMALL_PROMPT
        .matches(&format!("</tool_response>\n{after_result}\n"))
        .count();
    assert_eq!((results, followed), (10, 10));
    // The results quote the tools' texts.
    for quoted in [
        tools::edit::success("geo.py", false),
        tools::edit::success("area.py", false),
        engine::empty_result_placeholder("Bash"),
    ] {
        assert!(
            SMALL_PROMPT.contains(&format!("<tool_response>\n{quoted}\n</tool_response>")),
            "{quoted:?}"
        );
    }
    // Calls are written as the template renders them, to offered tools.
    let calls: Vec<&str> = SMALL_PROMPT
        .split("Assistant: ```json\n{\"name\": \"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect();
    assert_eq!(calls.len(), 10);
    assert!(CHAT_TEMPLATE.contains("{{- '```json\\n{\"name\": \"' + call.name"));
    for name in calls {
        assert!(SMALL.tools.contains(&name), "{name}");
    }
}
