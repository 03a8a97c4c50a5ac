//! Skills: folders holding a `SKILL.md` (front matter `name`,
//! `description`, optional `allowed-tools`; the folder may hold scripts and
//! reference files), offered to the model by name and description only and
//! loaded whole when invoked (progressive disclosure).
//!
//! Data flow: `discover` finds `*/SKILL.md` under the user's
//! `$CLAUDE_CONFIG_DIR/skills` (or `~/.claude/skills`) and `~/.orbit/skills`,
//! then — in a trusted folder only — the project's `.claude/skills` and
//! `.orbit/skills` (a later directory wins a name clash), reading each file
//! through `orbit_untrusted` with the commands' front matter reader: a
//! [`SkillSet`]. The session offers the set through the `Skill` tool
//! (`orbit-tools`, its description from [`SkillSet::listing`] within
//! [`SKILL_LISTING_MAX_BYTES`]); a call loads [`Skill::prompt`] (the body,
//! arguments filled, after the folder's path so the model can run its
//! scripts) and the skill's `allowed-tools` are granted until the user's
//! turn ends. `/name args` typed by the user goes through `invoke`
//! ([`crate::PromptExpander::plan`]), like a custom command.

mod discover;
mod invoke;

use std::path::PathBuf;

use crate::discover::{CustomCommand, Scope};
use crate::front::FrontMatter;

pub use discover::SKILL_FILE_MAX_BYTES;
pub(crate) use invoke::skill_plan;

/// The most bytes of skill names and descriptions listed in the `Skill`
/// tool's description (the rest are named only, then counted).
pub const SKILL_LISTING_MAX_BYTES: usize = 8 * 1024;
/// A skill's description is cut to this many chars in the listing.
const SKILL_DESCRIPTION_MAX_CHARS: usize = 250;

/// One skill: a folder with a `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its name (front matter `name`, else the folder's name).
    pub name: String,
    /// When to use it (front matter `description`, else the body's first
    /// line), cut to a listing line.
    pub description: String,
    /// The instructions (`SKILL.md` without its front matter).
    pub body: String,
    /// The skill's folder (its scripts and reference files).
    pub dir: PathBuf,
    /// Whose it is.
    pub scope: Scope,
    /// The front matter's `allowed-tools`: allow rules granted until the
    /// end of the user's turn once the skill is invoked.
    pub allowed_tools: Vec<String>,
}

impl Skill {
    /// What the model reads when the skill is invoked: the folder's path,
    /// then the body with `args` filled as a command's are.
    pub fn prompt(&self, args: &str) -> String {
        format!(
            "Base directory for this skill: {}\n\n{}",
            self.dir.display(),
            crate::expand::expand_arguments(&self.body, args)
        )
    }

    /// The skill as a slash command (the interactive UI's popup and
    /// dispatch list it with the custom commands).
    pub fn as_command(&self) -> CustomCommand {
        CustomCommand {
            name: self.name.clone(),
            description: self.description.clone(),
            body: self.body.clone(),
            source: self.dir.join(discover::SKILL_FILE),
            scope: self.scope,
            front: FrontMatter {
                description: Some(self.description.clone()),
                allowed_tools: self.allowed_tools.clone(),
                ..FrontMatter::default()
            },
        }
    }
}

/// The skills visible in a session, sorted by name, and the files that
/// were refused.
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    skills: Vec<Skill>,
    /// One line per refused skill file (`skipped skill file P: why`).
    pub warnings: Vec<String>,
}

impl SkillSet {
    /// The skills, sorted by name.
    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    /// The skill named `name` (a leading `/` is ignored).
    pub fn find(&self, name: &str) -> Option<&Skill> {
        let name = name.strip_prefix('/').unwrap_or(name);
        self.skills.iter().find(|s| s.name == name)
    }

    /// The names, sorted (the stream-json `init` line's `skills`).
    pub fn names(&self) -> Vec<String> {
        self.skills.iter().map(|s| s.name.clone()).collect()
    }

    /// Whether no skill was found.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// `- name: description` lines within `max_bytes`; the skills past the
    /// budget are named without their descriptions while names fit, then
    /// counted (`…and N more`).
    pub fn listing(&self, max_bytes: usize) -> String {
        let mut out = String::new();
        let mut rest = self.skills.iter().peekable();
        while let Some(skill) = rest.next_if(|s| out.len() + line(s).len() <= max_bytes) {
            out.push_str(&line(skill));
        }
        let mut left = 0usize;
        for skill in rest {
            let bare = format!("- {}\n", skill.name);
            if left == 0 && out.len() + bare.len() <= max_bytes {
                out.push_str(&bare);
            } else {
                left += 1;
            }
        }
        if left > 0 {
            out.push_str(&format!("…and {left} more\n"));
        }
        out
    }
}

/// A skill's listing line.
fn line(skill: &Skill) -> String {
    format!("- {}: {}\n", skill.name, skill.description)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            name: name.into(),
            description: description.into(),
            body: "Do $ARGUMENTS.\n".into(),
            dir: PathBuf::from("/s").join(name),
            scope: Scope::User,
            allowed_tools: Vec::new(),
        }
    }

    #[test]
    fn lists_within_the_budget() {
        let set = SkillSet {
            skills: vec![skill("a", "first"), skill("b", "second"), skill("c", "x")],
            warnings: Vec::new(),
        };
        assert_eq!(set.listing(1000), "- a: first\n- b: second\n- c: x\n");
        assert_eq!(set.listing(20), "- a: first\n- b\n- c\n");
        assert_eq!(set.listing(14), "- a: first\n…and 2 more\n");
        assert_eq!(
            set.skills[0].prompt("it"),
            "Base directory for this skill: /s/a\n\nDo it.\n"
        );
        assert_eq!(set.find("/b").map(|s| s.name.as_str()), Some("b"));
    }
}
