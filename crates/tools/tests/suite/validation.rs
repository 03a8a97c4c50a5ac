//! T2/T3 through the real built-in tools and the default registry.

use orbit_tools::builtin::default_tools;
use orbit_tools::validation::{
    no_such_tool_error, unparsable_input_error, validate_tool_input, wrap_tool_use_error,
};
use serde_json::json;

use super::harness::builtin;

#[test]
fn read_missing_file_path() {
    assert_eq!(
        validate_tool_input(&*builtin("Read"), &json!({})).unwrap_err(),
        "<tool_use_error>InputValidationError: Read failed due to the following issue:\n\
The required parameter `file_path` is missing</tool_use_error>"
    );
}

#[test]
fn read_unexpected_and_mistyped_parameters() {
    assert_eq!(
        validate_tool_input(
            &*builtin("Read"),
            &json!({"file_path": "/a", "bogus": 1, "offset": "abc", "limit": true})
        )
        .unwrap_err(),
        "<tool_use_error>InputValidationError: Read failed due to the following issues:\n\
An unexpected parameter `bogus` was provided\n\
The parameter `offset` type is expected as `number` but provided as `string`\n\
The parameter `limit` type is expected as `number` but provided as `boolean`</tool_use_error>"
    );
}

#[test]
fn read_numeric_strings_are_coerced() {
    assert_eq!(
        validate_tool_input(
            &*builtin("Read"),
            &json!({"file_path": "/a", "offset": "5", "limit": "10"})
        ),
        Ok(json!({"file_path": "/a", "offset": 5, "limit": 10}))
    );
}

#[test]
fn edit_replace_all_string_is_coerced_and_missing_strings_reported() {
    assert_eq!(
        validate_tool_input(
            &*builtin("Edit"),
            &json!({"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": "false"})
        ),
        Ok(json!({"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": false}))
    );
    assert_eq!(
        validate_tool_input(&*builtin("Edit"), &json!({"file_path": "/a"})).unwrap_err(),
        "<tool_use_error>InputValidationError: Edit failed due to the following issues:\n\
The required parameter `old_string` is missing\n\
The required parameter `new_string` is missing</tool_use_error>"
    );
}

#[test]
fn write_content_must_be_a_string() {
    assert_eq!(
        validate_tool_input(
            &*builtin("Write"),
            &json!({"file_path": "/a", "content": 12})
        )
        .unwrap_err(),
        "<tool_use_error>InputValidationError: Write failed due to the following issue:\n\
The parameter `content` type is expected as `string` but provided as `number`</tool_use_error>"
    );
}

#[test]
fn unknown_tool_and_unparsable_input_texts() {
    let registry = default_tools();
    assert!(registry.find("Read").is_some());
    assert!(registry.find("NoSuchThing").is_none());
    assert_eq!(
        no_such_tool_error("NoSuchThing"),
        "<tool_use_error>Error: No such tool available: NoSuchThing</tool_use_error>"
    );
    assert_eq!(
        unparsable_input_error("Edit", "{\"file_path\": "),
        "<tool_use_error>InputValidationError: Edit was called with input that could not be parsed \
as JSON.\nYou sent (first 14 of 14 bytes): {\"file_path\": \nCommon causes: unescaped backslashes \
in file paths (use / or \\\\), unescaped control characters, or truncated output. Retry with valid \
JSON.</tool_use_error>"
    );
    assert_eq!(
        wrap_tool_use_error("File has not been read yet. Read it first before writing to it."),
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    );
}

#[test]
fn read_write_edit_come_first_and_stay_small() {
    let registry = default_tools();
    let names = registry.names();
    assert_eq!(&names[..3], &["Read", "Write", "Edit"]);
    for name in ["Read", "Write", "Edit"] {
        let tool = registry.find(name).unwrap();
        let desc = tool.description().len();
        let schema = serde_json::to_string(tool.input_schema()).unwrap().len();
        assert!(desc <= 600, "{name} description is {desc} bytes");
        assert!(schema <= 700, "{name} schema is {schema} bytes");
    }
}
