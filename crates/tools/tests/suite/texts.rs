//! A change to any model-facing text must show up here.
//!
//! Every text the model can receive lives in `orbit_tool::texts`; this test
//! renders each of them (fixed ones as they are, formatted ones with
//! representative arguments) into one document and snapshots it, and
//! snapshots the built-in tool specs (name, description, input schema) the
//! model gets with every request. A third test reads the `texts` sources
//! and fails when a `pub const …: &str` or `pub fn` there has no entry
//! below, so a new text cannot skip the snapshot.
//!
//! Document format: each text is printed verbatim after its `=== id` line,
//! then one newline and one blank line (so a text ending in `\n\n` shows as
//! extra blank lines). The id is the expression that produced the text,
//! relative to `orbit_tool::texts` (`root` is `/work/project`, `file` is
//! `/work/project/src/main.rs`, `subject` is ``The parameter `todos[0].status` ``).
//!
//! The small-model profile's reminders (`orbit_profile::texts`, id
//! `profile::…`) are here too.
//!
//! The CLI's system prompt is not here: it is private to the `orbit`
//! binary (`crates/cli/src/system_prompt.rs`).

use std::path::{Path, PathBuf};

use orbit_profile::texts as profile;
use orbit_tool::texts::{compact, engine, permissions, tool_use_error, tools, units, validation};
use orbit_tools::builtin::default_tools;
use serde_json::{Value, json};

const IO_ERROR: &str = "No such file or directory (os error 2)";
const URL: &str = "https://example.com/docs";

/// `(id, text)` per expression, the id being the expression's source.
macro_rules! entries {
    ($($text:expr),* $(,)?) => {
        vec![$((one_line(stringify!($text)), $text.to_string())),*]
    };
}

/// An expression's source on one line (rustfmt may have split it).
fn one_line(source: &str) -> String {
    source
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
        .replace("( ", "(")
        .replace(", )", ")")
        .replace(",)", ")")
}

fn every_text() -> Vec<(String, String)> {
    let root = Path::new("/work/project");
    let file = Path::new("/work/project/src/main.rs");
    let saved = PathBuf::from("/home/u/.orbit/projects/-work-project/s1/tool-results/toolu_1.txt");
    let subject = validation::issue_subject("todos[0].status");
    let one_issue = [validation::missing_parameter("file_path")];
    let two_issues = [
        validation::missing_parameter("file_path"),
        validation::unexpected_parameter("path"),
    ];
    let paths = ["src/main.rs".to_string(), "src/lib.rs".to_string()];
    let counts = ["src/lib.rs:2".to_string(), "src/main.rs:3".to_string()];
    entries![
        tool_use_error("MESSAGE"),
        // engine
        engine::INTERRUPT_MESSAGE_FOR_TOOL_USE,
        engine::CANCEL_MESSAGE,
        engine::STREAM_CUT_TOOL_NOT_RUN_MESSAGE,
        engine::INTERRUPT_MESSAGE,
        engine::MAX_TOKENS_CONTINUE_MESSAGE,
        profile::RECOVERY_REMINDER,
        profile::RECOVERY_AFTER_LOAD,
        profile::RECOVERY_NOTHING_CHANGED,
        profile::RECOVERY_NO_OUTPUT,
        profile::RECOVERY_RUN_IT,
        profile::recovery_wrote_a_copy("steps_reversed.txt", "steps.txt"),
        profile::recovery_unseen_name("app.cfg", "step 1 finished."),
        engine::max_turns_error(12),
        engine::max_budget_error(0.5),
        engine::max_budget_error(2.0),
        engine::sibling_error_message("Bash", "false"),
        engine::sibling_error_message(
            "Bash",
            "cargo test --workspace --all-features -- --nocapture"
        ),
        engine::tool_fatal_error("Read", "DETAIL"),
        engine::tool_panic_error("Bash", "DETAIL"),
        engine::tool_not_ready_error("mcp__slow__add", 1500),
        engine::PARSE_PANICKED_DETAIL,
        engine::TASK_CANCELLED_DETAIL,
        engine::UNKNOWN_PANIC_DETAIL,
        engine::call_not_validated_detail("Edit"),
        engine::cwd_reset_note(root),
        engine::empty_result_placeholder("Bash"),
        engine::EMPTY_ERROR_TEXT,
        engine::truncated_error("HEAD", 1_234, "TAIL"),
        engine::PERSISTED_OUTPUT_TAG,
        engine::PERSISTED_OUTPUT_CLOSING_TAG,
        engine::persisted_output(228_894, &saved, 2_000, "1\n2\n3", true),
        engine::persisted_output(40_000, &saved, 2_000, "one long line", false),
        engine::STRUCTURED_OUTPUT_TOOL_NAME,
        engine::STRUCTURED_OUTPUT_DESCRIPTION,
        engine::STRUCTURED_OUTPUT_ACCEPTED,
        engine::STRUCTURED_OUTPUT_REQUIRED_REMINDER,
        engine::structured_output_retries_error(5),
        engine::repeated_tool_call_reminder("Read", 5),
        engine::repeated_tool_call_error("Read", 10),
        // compaction
        compact::COMPACT_INSTRUCTIONS,
        compact::compact_instructions(None, None),
        compact::compact_instructions(Some("Keep the test names."), None),
        compact::compact_instructions(Some("Keep the test names."), Some("Run ./step.sh 2.")),
        compact::compact_summary_message("SUMMARY"),
        compact::CLEARED_TOOL_RESULT,
        compact::dropped_turns_note(12),
        compact::cut_text_marker(4_000),
        // validation
        validation::no_such_tool("Frobnicate"),
        validation::no_such_tool("ExitPlanMode"),
        validation::no_such_tool("AskUserQuestion"),
        validation::invalid_input_schema("mcp__s__t", "ERROR"),
        validation::unparsable_input("Edit", 14, 14, "{\"file_path\": "),
        validation::validation_issues("Read", &one_issue),
        validation::input_validation_error("Read", &one_issue),
        validation::input_validation_error("Read", &two_issues),
        validation::issue_subject(""),
        validation::issue_subject("todos[0].status"),
        validation::missing_parameter("todos[0].content"),
        validation::unexpected_parameter("priority"),
        validation::type_mismatch(&subject, "number | string", "boolean"),
        validation::float_for_integer(&subject),
        validation::invalid_value(&subject, "DETAIL"),
        validation::must_be_one_of(&subject, "pending, in_progress, completed"),
        validation::must_be_exactly(&subject, "done"),
        validation::at_least(&subject, 0),
        validation::greater_than(&subject, 0),
        validation::at_most(&subject, 600_000),
        validation::less_than(&subject, 10),
        validation::min_length(&subject, 1),
        validation::min_length(&subject, 2),
        validation::max_length(&subject, 200),
        validation::min_items(&subject, 1),
        validation::max_items(&subject, 3),
        validation::must_match_pattern(&subject, "^[a-z]+$"),
        validation::no_duplicate_items(&subject),
        validation::must_be_valid_format(&subject, "uri"),
        validation::not_allowed(&subject),
        // permissions
        permissions::denied_by_rule("Bash", "Bash(rm:*)"),
        permissions::denied_in_plan_mode("Write"),
        permissions::asks_user("AskUserQuestion"),
        permissions::not_granted("Bash"),
        permissions::unsandboxed("Bash"),
        permissions::ask_rule("Bash", "Bash(git push:*)"),
        permissions::deny_rule_unsure("Bash", "Bash(rm:*)"),
        permissions::outside_workspace("Read", Path::new("/home/u/.ssh/id_rsa"), false),
        permissions::protected_path(
            "Write",
            Path::new("/p/.git/hooks/pre-commit"),
            "it is inside a directory that configures git, orbit or Claude Code"
        ),
        // units
        units::format_file_size(1_000),
        units::format_file_size(228_894),
        units::format_file_size(1_280),
        units::format_file_size(5 << 20),
        units::format_read_size(300 * 1024 + 100),
        units::format_read_size(1_280),
        units::format_duration_ms(250),
        units::format_duration_ms(120_000),
        units::format_duration_ms(1_500),
        // shared tool texts
        tools::NOT_READ_MESSAGE,
        tools::MODIFIED_MESSAGE,
        tools::file_not_found(root),
        tools::is_a_directory("read", root),
        tools::is_a_directory("open", root),
        tools::permission_denied(file),
        tools::not_a_regular_file("read", Path::new("/dev/null"), "a character device"),
        tools::cannot_read(file, IO_ERROR),
        tools::cannot_write(file, IO_ERROR),
        tools::cannot_create_directory(root, IO_ERROR),
        tools::path_not_found("Directory", &root.join("nope"), root),
        tools::not_a_directory(file),
        tools::task_failed("Read", "task 7 panicked"),
        tools::cancelled("Grep"),
        // Read
        tools::read::DESCRIPTION,
        tools::read::EMPTY_FILE_REMINDER,
        tools::read::LINE_TRUNCATION_MARKER,
        tools::read::shorter_than_offset(50, 3),
        tools::read::binary_file("exe"),
        tools::read::binary_file(""),
        tools::read::file_too_large(300 * 1024, 256 * 1024),
        tools::read::too_many_tokens(31_000, 25_000),
        tools::read::image_too_large(5 << 20, 3 * 1024 * 1024 + 768 * 1024),
        // Write, Edit
        tools::write::DESCRIPTION,
        tools::write::updated(file),
        tools::write::created(file),
        tools::write::STATUS_TEXT_REFUSAL,
        tools::edit::DESCRIPTION,
        tools::edit::NO_CHANGES_MESSAGE,
        tools::edit::FILE_EXISTS_MESSAGE,
        tools::edit::string_not_found("fn mian()"),
        tools::edit::ambiguous_match(3, "x += 1;"),
        tools::edit::file_too_large(100 << 20, 16 << 20),
        tools::edit::success("src/main.rs", false),
        tools::edit::success("src/main.rs", true),
        // Bash, BashOutput, KillShell
        tools::bash::DESCRIPTION,
        tools::bash::BASH_OUTPUT_DESCRIPTION,
        tools::bash::KILL_SHELL_DESCRIPTION,
        tools::bash::exit_code_line(2),
        tools::bash::killed_by_signal_line("SIGKILL", 9),
        tools::bash::unknown_signal_name(64),
        tools::bash::timed_out_line(1_500),
        tools::bash::wait_failed_line(IO_ERROR),
        tools::bash::changed_no_file_note("app.cfg"),
        tools::bash::named_files_unchanged_note("a.py, b.py"),
        tools::bash::spawn_failed(IO_ERROR),
        tools::bash::SPAWN_NO_PID,
        tools::bash::SANDBOX_BLOCKED_NOTE,
        tools::bash::dropped_output_marker(1_048_576),
        tools::bash::background_started("bash_1"),
        tools::bash::SHELL_STATUS_RUNNING,
        tools::bash::SHELL_STATUS_COMPLETED,
        tools::bash::SHELL_STATUS_FAILED,
        tools::bash::SHELL_STATUS_KILLED,
        tools::bash::no_shell("bash_9"),
        tools::bash::invalid_filter("(", "regex parse error"),
        tools::bash::shell_output("running", None, "line 1\nline 2", ""),
        tools::bash::shell_output("failed", Some(1), "out", "err"),
        tools::bash::shell_output("completed", Some(0), "", "warning"),
        tools::bash::shell_killed("bash_1", "sleep 100"),
        tools::bash::shell_not_running("bash_1", "completed"),
        // Glob, Grep, LS
        tools::glob::DESCRIPTION,
        tools::glob::GLOB_TRUNCATED_NOTE,
        tools::glob::NO_FILES_FOUND,
        tools::glob::invalid_pattern("src/[", "unclosed character class"),
        tools::grep::DESCRIPTION,
        tools::grep::NO_MATCHES_FOUND,
        tools::grep::GREP_CAPPED_NOTE,
        tools::grep::LONG_LINE_MARKER,
        tools::grep::files_found(&paths[..1]),
        tools::grep::files_found(&paths),
        tools::grep::count_summary(&counts[..1], 1, 1),
        tools::grep::count_summary(&counts, 5, 2),
        tools::grep::invalid_regex("fn (", "unclosed group"),
        tools::grep::invalid_glob("*.{rs", "unclosed alternate group"),
        tools::grep::invalid_glob_filter("ERROR"),
        tools::grep::invalid_file_type("rusty", "unrecognized file type: rusty"),
        tools::grep::count_of(1, "file"),
        tools::grep::count_of(2, "file"),
        tools::ls::DESCRIPTION,
        tools::ls::truncated_note(1_000),
        tools::ls::invalid_ignore_glob("[", "unclosed character class"),
        tools::ls::invalid_ignore_globs("ERROR"),
        // TodoWrite
        tools::todo::DESCRIPTION,
        tools::todo::TODO_WRITE_RESULT,
        tools::todo::too_many_in_progress(2),
        tools::todo::empty_item(3),
        // WebFetch
        tools::web_fetch::DESCRIPTION,
        tools::web_fetch::url_too_long(2_000),
        tools::web_fetch::invalid_url("not a url"),
        tools::web_fetch::unsupported_scheme("ftp"),
        tools::web_fetch::redirect_detected(
            "https://example.com/old",
            "https://docs.example.org/new",
            "301 Moved Permanently",
            "What does it say about limits?",
        ),
        tools::web_fetch::request_failed(404),
        tools::web_fetch::binary_content("application/pdf", URL),
        tools::web_fetch::page_header("Summarize the page", URL),
        tools::web_fetch::content_truncated(100_000),
        tools::web_fetch::DOWNLOAD_STOPPED_NOTE,
        tools::web_fetch::html_conversion_failed("ERROR"),
        tools::web_fetch::timed_out(URL, 30.0),
        tools::web_fetch::too_many_redirects(10, URL),
        tools::web_fetch::bad_redirect(URL),
        tools::web_fetch::fetch_failed(URL, "error sending request: connection refused"),
        tools::web_fetch::client_failed("ERROR"),
        tools::web_fetch::address_refused("metadata.internal", "169.254.169.254", "link-local"),
        tools::web_fetch::SIDE_SYSTEM,
        tools::web_fetch::SIDE_CONTENT_TRUNCATED,
        tools::web_fetch::side_request("PAGE", true, "What does it say about limits?"),
        tools::web_fetch::partial_page_note(265_956, 0, 100_000),
        tools::web_fetch::offset_past_end(300_000, 265_956),
        tools::web_fetch::side_failed("ERROR"),
        // WebSearch
        tools::web_search::DESCRIPTION,
        tools::web_search::SIDE_SYSTEM,
        tools::web_search::side_request("orbit agent"),
        tools::web_search::results_header("orbit agent"),
        tools::web_search::links_part(r#"[{"title":"A","url":"https://example.com/a"}]"#),
        tools::web_search::search_error_part("max_uses_exceeded"),
        tools::web_search::SOURCES_REMINDER,
        tools::web_search::NO_RESULTS,
        tools::web_search::QUERY_TOO_SHORT,
        tools::web_search::BOTH_DOMAIN_FILTERS,
        tools::web_search::no_backend("openai"),
        tools::web_search::unknown_backend("bing"),
        tools::web_search::backend_needs("brave", "ORBIT_WEBSEARCH_API_KEY"),
        tools::web_search::search_failed("HTTP 500"),
    ]
}

fn render(entries: &[(String, String)]) -> String {
    let mut doc = String::new();
    for (id, text) in entries {
        doc.push_str("=== ");
        doc.push_str(id);
        doc.push('\n');
        doc.push_str(text);
        doc.push_str("\n\n");
    }
    doc
}

#[test]
fn every_model_facing_text() {
    insta::assert_snapshot!("model_facing_texts", render(&every_text()));
}

#[test]
fn built_in_tool_specs() {
    let specs: Vec<Value> = default_tools()
        .tools()
        .iter()
        .map(|t| {
            json!({
                "name": t.name(),
                "description": t.description(),
                "input_schema": t.input_schema(),
            })
        })
        .collect();
    insta::assert_json_snapshot!("built_in_tool_specs", specs);
}

/// Every `pub const NAME: &str` and `pub fn name(` under `texts/`, as
/// `module::name` (the top-level module's items without a prefix).
fn declared_texts(dir: &Path, module: &str, out: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let child = |name: &str| {
            if module.is_empty() {
                name.to_string()
            } else {
                format!("{module}::{name}")
            }
        };
        if path.is_dir() {
            declared_texts(&path, &child(&stem), out);
            continue;
        }
        let file_module = if stem == "mod" {
            module.to_string()
        } else {
            child(&stem)
        };
        let source = std::fs::read_to_string(&path).unwrap();
        for line in source.lines() {
            let name = if let Some(rest) = line.strip_prefix("pub const ") {
                rest.split_once(": &str").map(|(name, _)| name)
            } else if let Some(rest) = line.strip_prefix("pub fn ") {
                rest.split_once('(').map(|(name, _)| name)
            } else {
                None
            };
            if let Some(name) = name {
                out.push(if file_module.is_empty() {
                    name.to_string()
                } else {
                    format!("{file_module}::{name}")
                });
            }
        }
    }
}

#[test]
fn every_declared_text_is_in_the_snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool/src/texts");
    let mut declared = Vec::new();
    declared_texts(&dir, "", &mut declared);
    assert!(declared.len() > 100, "{declared:?}");
    let ids: Vec<String> = every_text().into_iter().map(|(id, _)| id).collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "duplicate ids");
    let missing: Vec<&String> = declared
        .iter()
        .filter(|name| {
            !ids.iter()
                .any(|id| id == *name || id.starts_with(&format!("{name}(")))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "texts without a snapshot entry in suite/texts.rs: {missing:?}"
    );
}

/// A valid call of a built-in tool is checked without compiling a
/// `jsonschema` validator (its meta-schema alone is ≈ 480 KB of heap and
/// ≈ 1.4 ms on a session's first call): each schema stays in the subset
/// `orbit_tool::validation` checks by itself.
#[test]
fn built_in_schemas_are_checked_without_compiling() {
    use orbit_tool::typed;
    use orbit_tools::builtin::{ask_user, exit_plan_mode, task_stop};
    let mut tools = default_tools().tools();
    tools.push(typed(ask_user::AskUserQuestionTool));
    tools.push(typed(exit_plan_mode::ExitPlanModeTool));
    tools.push(typed(task_stop::TaskStopTool));
    for tool in tools {
        assert!(
            orbit_tools::validation::checks_without_compiling(tool.input_schema()),
            "{}'s schema left the subset: {}",
            tool.name(),
            tool.input_schema()
        );
    }
}
