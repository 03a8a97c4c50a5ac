//! The built-in slash commands a headless session runs itself (`orbit -p
//! "/cost"`, an SDK user message `/context`), as Claude Code 2.1.332 does:
//! without a model request, their output as the turn's text.
//!
//! Data flow: a front end asks [`local_command`] first; `Some` is run by
//! the engine (`QueryEngine::run_local_command`), which answers with an
//! `assistant` line of model `<synthetic>` and a result of zero turns; a
//! command that becomes a prompt (`/init`) is [`LocalCommand::Prompt`] and
//! goes to the model as any prompt. `None` (anything else) goes on to the
//! custom commands ([`crate::prepare_prompt`]). A built-in name wins over a
//! custom command of the same name, as in Claude Code.

use crate::invoke::split_invocation;

/// The prompt `/init` sends: a CLAUDE.md for the project.
pub const INIT_PROMPT: &str = "Please analyze this codebase and create a CLAUDE.md file in the project root for future sessions of a coding agent. Include: the commands to build, lint and test (and to run a single test); the high-level architecture that needs several files to understand; and conventions a newcomer must follow. If a CLAUDE.md exists, improve it instead. Keep it concise; do not list every file.";

/// A built-in command of a headless session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalCommand {
    /// `/compact [instructions]`: summarise the history now.
    Compact(Option<String>),
    /// `/context`: the context window's use, by category.
    Context,
    /// `/cost`: what the session cost so far.
    Cost,
    /// `/model [name]`: show or switch the model for the next requests.
    Model(Option<String>),
    /// `/clear`: start the conversation afresh.
    Clear,
    /// A command that is a prompt for the model (`/init`).
    Prompt(String),
}

/// A built-in command: its name, what it does (the SDK's `commands`
/// entries and `slash_commands`), its argument hint.
pub struct BuiltinInfo {
    /// The name, without `/`.
    pub name: &'static str,
    /// One line saying what it does.
    pub description: &'static str,
    /// What its arguments are ("" when it takes none).
    pub argument_hint: &'static str,
}

/// The built-in commands a headless session runs, in the order the SDK's
/// `init` line lists them.
pub const BUILTIN_COMMANDS: &[BuiltinInfo] = &[
    BuiltinInfo {
        name: "compact",
        description: "Summarise the conversation so far to free context",
        argument_hint: "[instructions]",
    },
    BuiltinInfo {
        name: "context",
        description: "Show how full the context window is, by category",
        argument_hint: "",
    },
    BuiltinInfo {
        name: "cost",
        description: "Show the session's cost and token use",
        argument_hint: "",
    },
    BuiltinInfo {
        name: "model",
        description: "Show the model, or switch it for this session",
        argument_hint: "[model]",
    },
    BuiltinInfo {
        name: "clear",
        description: "Clear the conversation history",
        argument_hint: "",
    },
    BuiltinInfo {
        name: "init",
        description: "Write a CLAUDE.md describing this project",
        argument_hint: "",
    },
];

/// `custom` (the custom commands' names) without those a built-in
/// shadows, then the built-in names: the `slash_commands` of the SDK's
/// `init` line.
pub fn with_builtins(custom: Vec<String>) -> Vec<String> {
    custom
        .into_iter()
        .filter(|name| !is_builtin(name))
        .chain(BUILTIN_COMMANDS.iter().map(|b| b.name.to_string()))
        .collect()
}

/// Whether `name` is a built-in command's (it wins over a custom one).
pub fn is_builtin(name: &str) -> bool {
    BUILTIN_COMMANDS.iter().any(|b| b.name == name)
}

/// The built-in command `text` invokes, if it is one (`/name args`).
pub fn local_command(text: &str) -> Option<LocalCommand> {
    let (name, args) = split_invocation(text)?;
    let args = (!args.is_empty()).then(|| args.to_string());
    Some(match name {
        "compact" => LocalCommand::Compact(args),
        "context" => LocalCommand::Context,
        "cost" => LocalCommand::Cost,
        "model" => LocalCommand::Model(args),
        "clear" => LocalCommand::Clear,
        "init" => LocalCommand::Prompt(INIT_PROMPT.to_string()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_names_are_read_with_their_arguments() {
        let table: &[(&str, Option<LocalCommand>)] = &[
            ("/cost", Some(LocalCommand::Cost)),
            ("  /context  ", Some(LocalCommand::Context)),
            ("/compact", Some(LocalCommand::Compact(None))),
            (
                "/compact keep the API notes",
                Some(LocalCommand::Compact(Some("keep the API notes".into()))),
            ),
            ("/model", Some(LocalCommand::Model(None))),
            (
                "/model haiku",
                Some(LocalCommand::Model(Some("haiku".into()))),
            ),
            ("/clear", Some(LocalCommand::Clear)),
            ("/init", Some(LocalCommand::Prompt(INIT_PROMPT.into()))),
            ("/review this", None),
            ("/usr/bin/env", None),
            ("cost", None),
            ("what does /cost do?", None),
        ];
        for (text, want) in table {
            assert_eq!(&local_command(text), want, "{text}");
        }
    }

    #[test]
    fn every_listed_command_is_recognised() {
        for info in BUILTIN_COMMANDS {
            assert!(
                local_command(&format!("/{}", info.name)).is_some(),
                "{}",
                info.name
            );
        }
    }
}
