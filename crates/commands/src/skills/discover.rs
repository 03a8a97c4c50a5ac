//! Finding and reading the skill folders.
//!
//! Data flow: the directories of [`CommandSources`] (the commands' own
//! sources, so both find the user's and the project's folders the same
//! way), each with `skills` in place of `commands`, lowest precedence
//! first; the project's only when the folder is trusted. Every direct
//! subfolder holding a `SKILL.md` is one skill; the file is read through
//! `orbit_untrusted` (a FIFO, a device, a link out of the project, a file
//! over [`SKILL_FILE_MAX_BYTES`] are refused without blocking, one warning
//! each) and its front matter through the commands' reader.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use orbit_untrusted::{ReadOpts, read_untrusted};

use super::{SKILL_DESCRIPTION_MAX_CHARS, Skill, SkillSet};
use crate::discover::{CommandSources, Scope, first_line, truncate};
use crate::front::{front_list, front_scalar, split_front_matter};

/// The file that makes a folder a skill.
pub(super) const SKILL_FILE: &str = "SKILL.md";
/// Largest `SKILL.md` read, in bytes (a larger one is left out).
pub const SKILL_FILE_MAX_BYTES: usize = 256 * 1024;
/// Most skill folders read from one directory.
const SKILL_DIRS_MAX: usize = 500;

impl SkillSet {
    /// Reads the skills of `sources`; the project's only when `trusted`.
    pub fn load(sources: &CommandSources, trusted: bool) -> Self {
        let mut by_name = BTreeMap::new();
        let mut warnings = Vec::new();
        let root = sources.project_root.as_path();
        for (dir, scope) in skill_dirs(sources) {
            if scope == Scope::Project && !trusted {
                continue;
            }
            let opts = match scope {
                Scope::User => ReadOpts::user_file(SKILL_FILE_MAX_BYTES),
                Scope::Project => ReadOpts::in_project(root, SKILL_FILE_MAX_BYTES),
            }
            .refuse_over_cap();
            for skill in read_dir(&dir, scope, &opts, &mut warnings) {
                by_name.insert(skill.name.clone(), skill);
            }
        }
        Self {
            skills: by_name.into_values().collect(),
            warnings,
        }
    }
}

/// The skill directories: the commands' directories with `skills` last.
fn skill_dirs(sources: &CommandSources) -> Vec<(PathBuf, Scope)> {
    sources
        .dirs()
        .into_iter()
        .map(|(commands, scope)| (commands.with_file_name("skills"), scope))
        .collect()
}

/// The skills of one directory, sorted by folder name.
fn read_dir(
    dir: &Path,
    scope: Scope,
    opts: &ReadOpts<'_>,
    warnings: &mut Vec<String>,
) -> Vec<Skill> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut folders: Vec<PathBuf> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
    folders.sort();
    let mut found = Vec::new();
    for folder in folders.into_iter().take(SKILL_DIRS_MAX) {
        // A project's link to a folder is not followed (it may lead
        // anywhere); the user's own links are.
        let is_link = std::fs::symlink_metadata(&folder).is_ok_and(|m| m.file_type().is_symlink());
        if !folder.is_dir() || (is_link && scope == Scope::Project) {
            continue;
        }
        let Some(folder_name) = folder.file_name().and_then(|s| s.to_str()) else {
            continue;
        };
        let path = folder.join(SKILL_FILE);
        let file = match read_untrusted(&path, opts) {
            Ok(file) => file,
            Err(err) => {
                if !err.is_not_found() {
                    warnings.push(format!("skipped skill file {}: {err}", path.display()));
                }
                continue;
            }
        };
        found.push(skill(folder_name, &file.text(), folder.clone(), scope));
    }
    found
}

/// A skill from its `SKILL.md` text.
fn skill(folder_name: &str, content: &str, dir: PathBuf, scope: Scope) -> Skill {
    let (front, body) = split_front_matter(content);
    let front = front.unwrap_or_default();
    let name = front_scalar(front, "name")
        .filter(|n| valid_name(n))
        .unwrap_or_else(|| folder_name.to_string());
    let description = front_scalar(front, "description")
        .or_else(|| first_line(body))
        .unwrap_or_default();
    Skill {
        name,
        description: truncate(&description, SKILL_DESCRIPTION_MAX_CHARS),
        body: body.to_string(),
        dir,
        scope,
        allowed_tools: front_list(front, "allowed-tools").unwrap_or_default(),
    }
}

/// A name the model and the user can type: letters, digits, `-`, `_`,
/// `:` and `.`, no leading `/`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use orbit_test_support::files::{mkfifo, put};

    use super::*;

    /// The skills of `project` alone (no home folder).
    fn project_only(project: &Path) -> CommandSources {
        CommandSources {
            project_root: project.to_path_buf(),
            home: None,
            claude_config_dir: None,
        }
    }

    #[test]
    fn finds_user_and_trusted_project_skills() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        put(
            home.path(),
            ".claude/skills/notes/SKILL.md",
            "---\nname: notes\ndescription: Take notes\n---\nBody\n",
        );
        put(
            project.path(),
            ".claude/skills/changelog/SKILL.md",
            "---\ndescription: \"Write the changelog\"\nallowed-tools: Bash(git log:*), Read\n---\n# Changelog\nSteps\n",
        );
        put(
            project.path(),
            ".orbit/skills/plain/SKILL.md",
            "# Plain skill\n",
        );
        put(
            project.path(),
            ".claude/skills/empty/README.md",
            "not a skill",
        );
        let sources = CommandSources {
            project_root: project.path().to_path_buf(),
            home: Some(home.path().to_path_buf()),
            claude_config_dir: None,
        };
        let set = SkillSet::load(&sources, true);
        assert_eq!(set.names(), ["changelog", "notes", "plain"]);
        let changelog = set.find("changelog").unwrap();
        assert_eq!(changelog.description, "Write the changelog");
        assert_eq!(changelog.allowed_tools, ["Bash(git log:*)", "Read"]);
        assert_eq!(changelog.body, "# Changelog\nSteps\n");
        assert_eq!(changelog.scope, Scope::Project);
        assert_eq!(set.find("plain").unwrap().description, "Plain skill");
        let untrusted = SkillSet::load(&sources, false);
        assert_eq!(untrusted.names(), ["notes"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_projects_link_to_a_skill_folder_is_not_followed() {
        let outside = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        put(
            outside.path(),
            "evil/SKILL.md",
            "---\ndescription: x\n---\nBody\n",
        );
        std::fs::create_dir_all(project.path().join(".claude/skills")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("evil"),
            project.path().join(".claude/skills/evil"),
        )
        .unwrap();
        let set = SkillSet::load(&project_only(project.path()), true);
        assert!(set.is_empty() && set.warnings.is_empty(), "{set:?}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_skill_file_is_one_warning() {
        let project = tempfile::tempdir().unwrap();
        let dir = project.path().join(".claude/skills/fifo");
        std::fs::create_dir_all(&dir).unwrap();
        mkfifo(&dir.join(SKILL_FILE));
        let set = SkillSet::load(&project_only(project.path()), true);
        assert!(set.is_empty());
        assert_eq!(set.warnings.len(), 1, "{:?}", set.warnings);
        assert!(set.warnings[0].starts_with("skipped skill file"));
    }
}
