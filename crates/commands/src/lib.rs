//! Custom slash commands, the same way everywhere: `orbit -p "/name args"`,
//! the SDK's user messages and the interactive UI all go through
//! [`prepare_prompt`].
//!
//! Data flow:
//! 1. `discover` finds the command files — the user's (`$CLAUDE_CONFIG_DIR`
//!    or `~/.claude`, then `~/.orbit`, `commands/**.md`) and the project's
//!    (`.claude/commands/**.md`, then `.orbit/commands/**.md`; a later
//!    directory wins a name clash; `sub/name.md` is `/sub:name`) — and reads
//!    each through `orbit_untrusted` (regular files only, capped, a project
//!    link may not leave the project): a [`CommandSet`].
//! 2. `front` reads the front matter: `description`, `argument-hint`,
//!    `allowed-tools`, `model`.
//! 3. `expand` fills `$ARGUMENTS`, `$ARGUMENTS[N]` and `$N` (0-based, as
//!    Claude Code 2.1.332 does).
//! 4. `invoke` ([`prepare_prompt`]) opens the command's grant (its
//!    `allowed-tools`, for this prompt only, through the engine's one
//!    scoped-grant mechanism, reached through [`PromptSession`], which
//!    `orbit-engine` implements for `QueryEngine`: this crate stays below
//!    the engine), then `inline` runs each `!`cmd`` as a `Bash`
//!    call and each `@file` as a `Read` call through the engine's
//!    permission gate; a refused one refuses the whole prompt
//!    ([`Refusal`]: one line, nothing sent).
//!
//! Skills (`skills`: `SKILL.md` folders) share the discovery sources, the
//! front matter reader, the argument filling and the grant; the `Skill`
//! tool offers them to the model, `/name` to the user.
//!
//! A project's commands in an untrusted folder keep their text but get no
//! `allowed-tools` and no `model` (one note line says so).

#![deny(missing_docs)]

mod builtin;
mod discover;
mod expand;
mod front;
mod inline;
mod invoke;
mod session;
pub mod skills;

pub use builtin::{
    BUILTIN_COMMANDS, BuiltinInfo, INIT_PROMPT, LocalCommand, is_builtin, local_command,
    with_builtins,
};
pub use discover::{
    COMMAND_FILE_MAX_BYTES, CommandSet, CommandSources, CustomCommand, Scope, load_custom_commands,
};
pub use expand::{expand_arguments, split_arguments};
pub use front::{FrontMatter, front_list, front_scalar, split_front_matter, split_list};
pub use invoke::{PromptExpander, PromptPlan, Refusal, prepare_prompt, split_invocation};
pub use session::{ExpansionVerdict, Grant, PromptSession, ToolRun};
pub use skills::{SKILL_LISTING_MAX_BYTES, Skill, SkillSet};
