//! `!`cmd`` and `@file` inside an expanded command body.
//!
//! Data flow: [`inline`] first replaces every `!`cmd`` with the output of
//! `cmd`, run as a `Bash` call through the engine's orchestrator
//! ([`PromptSession::run_tool`]; the engine's `QueryEngine::run_prompt_tool`: hooks, the permission gate — the
//! command's scoped `allowed-tools` grant included, the approver in the UI,
//! a denial headless — the sandbox, the result pipeline); then every
//! `@path` naming a regular file is read with a `Read` call the same way
//! and attached as Claude Code attaches it (the `@path` text stays; two
//! `<system-reminder>` blocks before the command: the call and its
//! result). A call the gate refuses refuses the whole prompt: the caller
//! prints the one line and sends nothing, never a half-expanded prompt.

use std::path::{Path, PathBuf};

use crate::session::{PromptSession, ToolRun};
use serde_json::json;

/// The body with `!` output in place and the `@file` attachments.
#[derive(Debug, Default)]
pub(crate) struct Inlined {
    /// The body, each `!`cmd`` replaced by its output.
    pub(crate) body: String,
    /// `<system-reminder>` blocks for the files read, in order.
    pub(crate) attachments: Vec<String>,
}

/// Runs the body's `!`cmd``s and reads its `@file`s (module docs); `Err`
/// is the refusal line (without the command's name).
pub(crate) async fn inline<S: PromptSession + ?Sized>(
    engine: &S,
    body: &str,
    cwd: &Path,
    home: Option<&Path>,
) -> Result<Inlined, String> {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find("!`") {
        let after = &rest[at + 2..];
        let Some(end) = after.find('`').filter(|&end| end > 0) else {
            break;
        };
        out.push_str(&rest[..at]);
        let command = &after[..end];
        let pattern = &rest[at..at + 2 + end + 1];
        match engine.run_tool("Bash", json!({"command": command})).await {
            ToolRun::Ran { text, .. } => out.push_str(text.trim_end()),
            ToolRun::Denied(why) | ToolRun::Unavailable(why) => {
                return Err(format!(
                    "shell command permission check failed for pattern \"{pattern}\": {}",
                    one_line(&why)
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    let mut attachments = Vec::new();
    for mention in mentions(&out) {
        let path = resolve(&mention, cwd, home);
        // Only an existing regular file is read (a FIFO or device named
        // here stays text; the Read tool is never pointed at it).
        if !std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let file_path = path.display().to_string();
        let input = json!({"file_path": file_path});
        match engine.run_tool("Read", input.clone()).await {
            ToolRun::Ran {
                text,
                is_error: false,
            } => {
                attachments.push(format!(
                    "<system-reminder>\nCalled the Read tool with the following input: {input}\n</system-reminder>"
                ));
                attachments.push(format!(
                    "<system-reminder>\nResult of calling the Read tool:\n{text}\n</system-reminder>"
                ));
            }
            // The tool ran and failed (unreadable, too large): the mention
            // stays text, as for a missing file.
            ToolRun::Ran { .. } => {}
            ToolRun::Denied(why) | ToolRun::Unavailable(why) => {
                return Err(format!(
                    "Read permission check failed for \"@{mention}\": {}",
                    one_line(&why)
                ));
            }
        }
    }
    Ok(Inlined {
        body: out,
        attachments,
    })
}

/// The `@path` mentions of `text`: an `@` at the start or after
/// whitespace, then the path up to whitespace (`@"a b"` for a path with
/// spaces); trailing punctuation is not part of it. Each path once.
pub(crate) fn mentions(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut prev_space = true;
    for (i, c) in text.char_indices() {
        if c == '@' && prev_space {
            let after = &text[i + 1..];
            let path = if let Some(quoted) = after.strip_prefix('"') {
                quoted.find('"').map(|end| quoted[..end].to_string())
            } else {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                let word =
                    after[..end].trim_end_matches(['.', ',', ';', ':', ')', '!', '?', '"', '\'']);
                Some(word.to_string())
            };
            if let Some(path) = path.filter(|p| !p.is_empty())
                && !out.contains(&path)
            {
                out.push(path);
            }
        }
        prev_space = c.is_whitespace();
    }
    out
}

/// A mention as a path: `~/` from `home`, relative from `cwd`.
fn resolve(mention: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    if let (Some(rest), Some(home)) = (mention.strip_prefix("~/"), home) {
        return home.join(rest);
    }
    cwd.join(mention)
}

/// The first line of a reason (the refusal is one line).
fn one_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_mentions_like_claude_code() {
        let text = "Read @src/lib.rs, then @\"my notes.txt\" and a@b.c (@x) @src/lib.rs\n@end.";
        assert_eq!(mentions(text), ["src/lib.rs", "my notes.txt", "end"]);
    }
}
