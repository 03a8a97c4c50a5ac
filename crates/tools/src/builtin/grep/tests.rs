//! Unit tests of Grep's input schema and its small helpers.

use super::*;

#[test]
fn globs_split_on_commas_and_spaces_but_not_inside_braces() {
    assert_eq!(split_globs("*.rs,*.toml"), vec!["*.rs", "*.toml"]);
    assert_eq!(split_globs("*.{ts,tsx} *.js"), vec!["*.{ts,tsx}", "*.js"]);
    assert_eq!(split_globs("!target/**"), vec!["!target/**"]);
}

#[test]
fn plural_and_limit() {
    use orbit_tool::texts::tools::grep::count_of as plural;
    assert_eq!(plural(1, "file"), "1 file");
    assert_eq!(plural(2, "file"), "2 files");
    assert_eq!(limit_of(Some(0)), usize::MAX);
    assert_eq!(limit_of(Some(3)), 3);
}

#[test]
fn schema_uses_claude_code_parameter_names() {
    let schema = orbit_tool::input_schema_for::<GrepInput>();
    let props = schema["properties"]
        .as_object()
        .map(|m| m.keys().cloned().collect::<Vec<_>>());
    assert_eq!(
        props,
        Some(
            [
                "pattern",
                "path",
                "glob",
                "output_mode",
                "-B",
                "-A",
                "-C",
                "-n",
                "-i",
                "type",
                "head_limit",
                "multiline"
            ]
            .map(String::from)
            .to_vec()
        )
    );
    assert_eq!(schema["required"], serde_json::json!(["pattern"]));
    assert_eq!(
        schema["properties"]["output_mode"]["enum"],
        serde_json::json!(["content", "files_with_matches", "count"])
    );
}
