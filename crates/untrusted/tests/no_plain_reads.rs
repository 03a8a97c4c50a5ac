//! Every loader of a file orbit did not write itself reads through
//! `orbit_untrusted`: none of these files may use a plain read again (a
//! plain read follows links out, blocks on a FIFO and reads `/dev/zero`
//! without end). Test modules (after `#[cfg(test)]`) are not checked.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

/// The loaders, relative to the workspace root, and what each reads.
const LOADERS: &[(&str, &str)] = &[
    ("crates/orbit/src/system_prompt.rs", "CLAUDE.md, AGENTS.md"),
    (
        "crates/memory/src/load.rs",
        "the memory hierarchy and its @imports",
    ),
    (
        "crates/config/src/settings/load.rs",
        "settings files, --settings",
    ),
    ("crates/cli/src/mcp.rs", ".mcp.json, --mcp-config"),
    (
        "crates/cli/src/mcp_cmd.rs",
        "orbit mcp: settings, .mcp.json",
    ),
    ("crates/orbit/src/mcp.rs", "AgentBuilder::mcp_config files"),
    ("crates/commands/src/discover.rs", ".claude/commands/**.md"),
    (
        "crates/commands/src/inline.rs",
        "@file in a command (a Read call)",
    ),
    ("crates/cli/src/configure.rs", "--json-schema"),
    (
        "crates/agents/src/load.rs",
        ".claude/agents/*.md, ~/.claude/agents",
    ),
    (
        "crates/tui/src/submit.rs",
        "@-mentions, the # note memory file",
    ),
];

/// Plain reads that bypass the checks.
const PLAIN_READS: &[&str] = &[
    "read_to_string(",
    "fs::read(",
    "File::open(",
    "tokio::fs::read",
];

#[test]
fn loaders_read_only_through_orbit_untrusted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    for (file, what) in LOADERS {
        let text = std::fs::read_to_string(root.join(file))
            .unwrap_or_else(|e| panic!("{file} ({what}): {e}; update LOADERS if it moved"));
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for read in PLAIN_READS {
                if line.contains(read) {
                    found.push(format!(
                        "{file}:{}: `{read}` ({what}): {}",
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "plain reads in loaders of untrusted files (use orbit_untrusted::read_untrusted):\n{}",
        found.join("\n")
    );
}
