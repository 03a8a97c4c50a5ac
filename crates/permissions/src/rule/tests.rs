//! The rule grammar: forms, strict errors with positions, CLI lists, and a
//! fuzz of the parser (no panic; what does not parse is an error, never a
//! rule broader than written).

use proptest::prelude::*;

use super::*;

fn kind(rule: &str) -> Result<&'static str, usize> {
    PermissionRule::parse(rule)
        .map(|r| match r.specifier {
            Specifier::Whole => "whole",
            Specifier::Command(_) => "command",
            Specifier::ReadPath(_) => "read",
            Specifier::WritePath(_) => "write",
            Specifier::Domain(_) => "domain",
            Specifier::Opaque(_) => "opaque",
        })
        .map_err(|e| e.position)
}

#[test]
fn forms_and_errors() {
    // (rule, Ok(kind) or Err(position of the fault))
    let table: &[(&str, Result<&str, usize>)] = &[
        ("Read", Ok("whole")),
        (" Bash ", Ok("whole")),
        ("Bash()", Ok("whole")),
        ("Bash(*)", Ok("whole")),
        ("Bash(git status)", Ok("command")),
        ("Bash(npm run test:*)", Ok("command")),
        ("Bash(touch *)", Ok("command")),
        ("Bash(git * main)", Ok("command")),
        ("Read(./secrets/**)", Ok("read")),
        ("Read(~/.ssh/**)", Ok("read")),
        ("Read(//etc/passwd)", Ok("read")),
        ("Read(./a(1).txt)", Ok("read")),
        ("Edit(/src/**)", Ok("write")),
        ("Write(./src/**)", Ok("write")),
        ("WebFetch(domain:example.com)", Ok("domain")),
        ("WebFetch(domain:*.example.com)", Ok("domain")),
        ("mcp__github", Ok("whole")),
        ("mcp__github__*", Ok("whole")),
        ("mcp__github__create_issue", Ok("whole")),
        ("mcp__sh__run(ls:*)", Ok("command")),
        ("Skill(deploy; now)", Ok("opaque")),
        // Malformed: an error at the fault.
        ("", Err(0)),
        ("Bash(git", Err(8)),
        ("Bash(rm:*", Err(9)),
        ("Bash(git status) x", Err(18)),
        ("(x)", Err(0)),
        ("Ba sh", Err(2)),
        ("Bash)", Err(4)),
        ("Bash(git status; rm x)", Err(5)),
        ("Bash(echo $(id))", Err(5)),
        ("Bash('open)", Err(5)),
        ("WebFetch(example.com)", Err(9)),
        ("WebFetch(domain:)", Err(16)),
        ("WebFetch(domain:exa mple.com)", Err(16)),
        ("WebFetch(domain:http://x/)", Err(16)),
        ("Read*", Err(4)),
    ];
    for (rule, want) in table {
        assert_eq!(kind(rule), *want, "{rule:?}");
    }
    let err = PermissionRule::parse("Bash(git").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid permission rule `Bash(git` at char 8: expected `)` at the end of the rule"
    );
}

#[test]
fn mcp_server_rules_cover_the_servers_tools() {
    // (rule, tools it names, tools it does not)
    let table: &[(&str, &[&str], &[&str])] = &[
        (
            "mcp__github",
            &["mcp__github__create_issue"],
            &["mcp__githubx__create_issue", "mcp__github__"],
        ),
        ("mcp__github__*", &["mcp__github__a"], &[]),
        (
            "mcp__github__create_issue",
            &["mcp__github__create_issue"],
            &["mcp__github__create_issue__x"],
        ),
        ("mcp__a__b", &[], &["mcp__a__b__c"]),
        ("Bash", &["Bash"], &["BashOutput"]),
    ];
    for (rule, named, not_named) in table {
        let parsed = PermissionRule::parse(rule).unwrap();
        for (tools, want) in [(named, true), (not_named, false)] {
            for tool in *tools {
                assert_eq!(parsed.names_tool(tool), want, "{rule} vs {tool}");
            }
        }
    }
}

#[test]
fn splits_cli_lists_outside_parentheses() {
    assert_eq!(
        parse_rule_list("Bash(git log --oneline) Read,Edit ,, mcp__s__t"),
        vec!["Bash(git log --oneline)", "Read", "Edit", "mcp__s__t"]
    );
    assert!(parse_rule_list("  ").is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Any text: no panic; a rule that parses has a name made of name
    /// characters, and a specifier was written whenever it is not `Whole`.
    #[test]
    fn parser_never_panics_and_never_invents(raw in "\\PC{0,40}") {
        if let Ok(rule) = PermissionRule::parse(&raw) {
            prop_assert!(!rule.tool_name.is_empty());
            prop_assert!(rule.text.contains(&rule.tool_name));
            if rule.specifier == Specifier::Whole {
                // Whole only for a bare name, `()` or `(*)`.
                let inner = rule.text.strip_prefix(&rule.tool_name).unwrap_or("");
                prop_assert!(matches!(inner.trim_matches(|c| c == '(' || c == ')').trim(), "" | "*"),
                    "{raw:?} read as a whole-tool rule");
            }
        }
    }

    /// A valid rule with its closing parenthesis cut, or junk appended
    /// after it, is an error — never the whole tool.
    #[test]
    fn truncated_rules_are_errors(
        tool in "(Bash|Read|Edit|Write|WebFetch|mcp__s__t)",
        spec in "[a-z0-9 ./:*~_-]{1,20}",
        junk in "[a-z)( ]{1,5}",
    ) {
        let cut = format!("{tool}({spec}");
        prop_assert!(PermissionRule::parse(&cut).is_err(), "{cut:?}");
        let trailing = format!("{tool}({spec}){junk}");
        if let Ok(rule) = PermissionRule::parse(&trailing) {
            prop_assert!(rule.specifier != Specifier::Whole || spec.trim().is_empty() || spec.trim() == "*",
                "{trailing:?} became {rule:?}");
        }
    }
}
